/* Option parsing: defaults, every accepted form, every rejected form with
 * its one-line message, --help contents, --version and the echo lines. */
#include "runtime/options.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/launch.h"
#include "tests/tl_test.h"

typedef struct bench_opts {
    int64_t ring_bytes, reps;
    double tol;
    const char *out, *kind;
    int64_t points;
    int schedule; /* SCHED_* */
    int verify, prio;
} bench_opts;

enum { SCHED_TWO, SCHED_NAIVE, SCHED_SPLIT };
static const char *const sched_names[] = {[SCHED_TWO] = "two-stream", [SCHED_NAIVE] = "three-naive",
                                          [SCHED_SPLIT] = "three-split"};

static const tl_option bench_table[] = {
    {.name = "ring-bytes", .short_name = 'b', .type = TL_OPT_SIZE, .offset = offsetof(bench_opts, ring_bytes),
     .def = "256000", .metavar = "B", .help = "ring send/recv payload per rank"},
    {.name = "reps", .short_name = 'n', .type = TL_OPT_INT, .offset = offsetof(bench_opts, reps), .def = "5",
     .metavar = "N", .help = "repetitions", .min = 1, .max = 1000},
    {.name = "tol", .type = TL_OPT_DOUBLE, .offset = offsetof(bench_opts, tol), .def = "1e-8", .help = "tolerance",
     .min = 0, .max = 1, .aliases = "rtol|tolerance"},
    {.name = "schedule", .type = TL_OPT_ENUM, .offset = offsetof(bench_opts, schedule), .def = "three-split",
     TL_OPT_CHOICES(sched_names), .help = "stream schedule"},
    {.name = "out", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(bench_opts, out), .metavar = "FILE",
     .help = "results file"},
    {.name = "verify", .type = TL_OPT_FLAG, .offset = offsetof(bench_opts, verify), .def = "1",
     .help = "check every result"},
    {.name = "prio", .short_name = 'p', .type = TL_OPT_FLAG, .offset = offsetof(bench_opts, prio),
     .help = "stream priorities"},
    /* brackets of a syntax (N[:X]) state no default; " [16]" does */
    {.name = "kind", .type = TL_OPT_STRING, .offset = offsetof(bench_opts, kind), .def = "gen:7", .metavar = "SPEC",
     .help = "gen:N[:X] or a file"},
    {.name = "points", .type = TL_OPT_INT, .offset = offsetof(bench_opts, points), .def = "16",
     .help = "time: points per axis [16]; energy: [64]", .min = 1, .max = 4096},
};

typedef struct fixture {
    bench_opts b;
    tl_launch_opts lo;
    tl_optgroup groups[2];
    tl_optspec spec;
    tl_optresult res;
} fixture;

static void setup(fixture *f, int minpos, int maxpos)
{
    memset(f, 0, sizeof *f);
    f->groups[0] = (tl_optgroup){"Benchmark", bench_table, sizeof bench_table / sizeof bench_table[0], &f->b};
    f->groups[1] = (tl_optgroup){"Launch", tl_launch_options, tl_launch_noptions, &f->lo};
    f->spec = (tl_optspec){.program = "trilap-x", .usage = "[options] A.mtx [b.mtx]",
                           .purpose = "Measures the overlap of things.", .groups = f->groups, .ngroups = 2,
                           .min_positional = minpos, .max_positional = maxpos};
}

/* Run tl_opts_parse on a NULL-terminated list; capture stdout and stderr. */
static char captured_out[16384], captured_err[16384];

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *fp = fopen(path, "r");
    size_t got = fp ? fread(buf, 1, n - 1, fp) : 0;
    buf[got] = '\0';
    if (fp) fclose(fp);
}

static tl_status parse(fixture *f, const char *const *args)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"trilap-x";
    for (; *args; args++) argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    const char *dir = tl_test_tmpdir();
    char po[300], pe[300];
    snprintf(po, sizeof po, "%s/out", dir);
    snprintf(pe, sizeof pe, "%s/err", dir);
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    if (!freopen(po, "w", stdout) || !freopen(pe, "w", stderr)) TL_ASSERT(!"freopen");
    tl_status st = tl_opts_parse(&f->spec, argc, argv, &f->res);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    slurp(po, captured_out, sizeof captured_out);
    slurp(pe, captured_err, sizeof captured_err);
    return st;
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

TL_TEST(defaults)
{
    fixture f;
    setup(&f, 0, -1);
    TL_ASSERT_OK(tl_opts_defaults(&f.spec));
    TL_ASSERT_EQ(f.b.ring_bytes, 256000);
    TL_ASSERT_EQ(f.b.reps, 5);
    TL_ASSERT_NEAR(f.b.tol, 1e-8, 0);
    TL_ASSERT_EQ(f.b.schedule, SCHED_SPLIT);
    TL_ASSERT(f.b.out == NULL);
    TL_ASSERT_EQ(f.b.verify, 1);
    TL_ASSERT_EQ(f.b.prio, 0);
    TL_ASSERT_EQ(f.lo.launcher, TL_LAUNCH_AUTO);
    TL_ASSERT_EQ(f.lo.timeout_s, 300);
}

TL_TEST(long_short_and_negated_forms)
{
    fixture f;
    setup(&f, 1, 2);
    TL_ASSERT_OK(parse(&f, ARGS("--ring-bytes=64K", "-n", "7", "--tol", "0.5", "A.mtx", "--schedule=two-stream",
                                "-oout.csv", "--no-verify", "-p", "--launcher", "threads", "--ranks=3", "b.mtx")));
    TL_ASSERT_EQ(f.b.ring_bytes, 65536);
    TL_ASSERT_EQ(f.b.reps, 7);
    TL_ASSERT_NEAR(f.b.tol, 0.5, 0);
    TL_ASSERT_EQ(f.b.schedule, SCHED_TWO);
    TL_ASSERT_STREQ(f.b.out, "out.csv");
    TL_ASSERT_EQ(f.b.verify, 0);
    TL_ASSERT_EQ(f.b.prio, 1);
    TL_ASSERT_EQ(f.lo.launcher, TL_LAUNCH_THREADS);
    TL_ASSERT_EQ(f.lo.ranks, 3);
    TL_ASSERT_EQ(f.res.npositional, 2);
    TL_ASSERT_STREQ(f.res.positional[0], "A.mtx");
    TL_ASSERT_STREQ(f.res.positional[1], "b.mtx");
    TL_ASSERT_EQ(f.res.exit_now, 0);
    TL_ASSERT_STREQ(captured_err, "");
    free(f.res.positional);
    /* "--" ends the options; "--flag=0" also clears; --no-gpu is an option of its own */
    setup(&f, 0, -1);
    TL_ASSERT_OK(parse(&f, ARGS("--verify=no", "--no-gpu", "--", "--reps", "-x")));
    TL_ASSERT_EQ(f.b.verify, 0);
    TL_ASSERT_EQ(f.lo.no_gpu, 1);
    TL_ASSERT_EQ(f.b.reps, 5);
    TL_ASSERT_EQ(f.res.npositional, 2);
    TL_ASSERT_STREQ(f.res.positional[0], "--reps");
    free(f.res.positional);
}

TL_TEST(value_parsers)
{
    int64_t v = 0;
    double d = 0;
    TL_ASSERT_OK(tl_opts_parse_size("1K", &v));
    TL_ASSERT_EQ(v, 1024);
    TL_ASSERT_OK(tl_opts_parse_size("3M", &v));
    TL_ASSERT_EQ(v, 3 << 20);
    TL_ASSERT_OK(tl_opts_parse_size("2G", &v));
    TL_ASSERT_EQ(v, (int64_t)2 << 30);
    TL_ASSERT_OK(tl_opts_parse_size("64KiB", &v));
    TL_ASSERT_EQ(v, 65536);
    TL_ASSERT_OK(tl_opts_parse_size("123", &v));
    TL_ASSERT_EQ(v, 123);
    TL_ASSERT_EQ(tl_opts_parse_size("-1", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_size("1X", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_size("K", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_size("99999999999999G", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_size("", &v), TL_ERR_PARSE);
    TL_ASSERT_OK(tl_opts_parse_int("-42", &v));
    TL_ASSERT_EQ(v, -42);
    TL_ASSERT_EQ(tl_opts_parse_int("4x", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_int(" 4", &v), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_int("99999999999999999999", &v), TL_ERR_PARSE);
    TL_ASSERT_OK(tl_opts_parse_double("2.5e-3", &d));
    TL_ASSERT_NEAR(d, 2.5e-3, 0);
    TL_ASSERT_EQ(tl_opts_parse_double("nan", &d), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_double("1e999", &d), TL_ERR_PARSE);
    /* underflow too: 1e-400 would be 0, 1e-310 a subnormal */
    TL_ASSERT_EQ(tl_opts_parse_double("1e-400", &d), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_double("1e-310", &d), TL_ERR_PARSE);
    TL_ASSERT_OK(tl_opts_parse_double("0", &d));
    TL_ASSERT_EQ(tl_opts_parse_double("1.0.0", &d), TL_ERR_PARSE);
    /* strtod's hexadecimal floats are no number a user types */
    TL_ASSERT_EQ(tl_opts_parse_double("0x1p-3", &d), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_opts_parse_double("-0X10", &d), TL_ERR_PARSE);
    TL_ASSERT_OK(tl_opts_parse_double("+0.5", &d));
    TL_ASSERT_EQ(tl_opts_choice_index("a|bb|c", "bb"), 1);
    TL_ASSERT_EQ(tl_opts_choice_index("a|bb|c", "c"), 2);
    TL_ASSERT_EQ(tl_opts_choice_index("a|bb|c", "b"), -1);
    TL_ASSERT_EQ(tl_opts_choice_index("a|bb|c", ""), -1);
}

static void expect_error(const char *const *args, const char *line)
{
    fixture f;
    setup(&f, 0, 1);
    TL_ASSERT_EQ(parse(&f, args), TL_ERR_INVAL);
    TL_ASSERT_MSG(strcmp(captured_err, line) == 0, "stderr \"%s\", want \"%s\"", captured_err, line);
    TL_ASSERT(f.res.positional == NULL);
    TL_ASSERT_STREQ(captured_out, "");
}

TL_TEST(bad_arguments)
{
    expect_error(ARGS("--bogus"), "trilap-x: unknown option '--bogus' (try --help)\n");
    expect_error(ARGS("--bogus=3"), "trilap-x: unknown option '--bogus' (try --help)\n");
    expect_error(ARGS("-z"), "trilap-x: unknown option '-z' (try --help)\n");
    expect_error(ARGS("--no-reps"), "trilap-x: unknown option '--no-reps' (try --help)\n");
    expect_error(ARGS("--no-no-gpu"),
                 "trilap-x: unknown option '--no-no-gpu': --no-gpu has no negated form; leave it out (it is off unless given)\n");
    expect_error(ARGS("--ring-bytes", "x"), "trilap-x: invalid --ring-bytes 'x': not a size (N, NK, NM, NG) (try --help)\n");
    expect_error(ARGS("--reps=4.5"), "trilap-x: invalid --reps '4.5': not an integer (try --help)\n");
    expect_error(ARGS("-n", "12abc"), "trilap-x: invalid -n '12abc': not an integer (try --help)\n");
    expect_error(ARGS("--tol", "abc"), "trilap-x: invalid --tol 'abc': not a number (try --help)\n");
    expect_error(ARGS("--reps", "0"), "trilap-x: invalid --reps '0': out of range [1, 1000] (try --help)\n");
    expect_error(ARGS("--tol=2"), "trilap-x: invalid --tol '2': out of range [0, 1] (try --help)\n");
    expect_error(ARGS("--schedule", "three"),
                 "trilap-x: invalid --schedule 'three': expected one of two-stream|three-naive|three-split (try --help)\n");
    expect_error(ARGS("--launcher=slurm"), "trilap-x: invalid --launcher 'slurm': expected one of auto|threads|mpi (try --help)\n");
    expect_error(ARGS("--verify=maybe"), "trilap-x: invalid --verify 'maybe': expected 0|1|yes|no (try --help)\n");
    expect_error(ARGS("--reps"), "trilap-x: option '--reps' needs a value (try --help)\n");
    expect_error(ARGS("-o"), "trilap-x: option '-o' needs a value (try --help)\n");
    expect_error(ARGS("a", "b"), "trilap-x: unexpected argument 'b' (at most 1; try --help)\n");
    expect_error(ARGS("--nccl-timeout", "0"), "trilap-x: invalid --nccl-timeout '0': out of range [1, 86400] (try --help)\n");
    /* a subnormal was "beyond the range of a double", which it is not */
    expect_error(ARGS("--tol", "1e-310"),
                 "trilap-x: invalid --tol '1e-310': below the smallest normal double (2.2e-308 in magnitude) "
                 "(try --help)\n");
    expect_error(ARGS("--tol", "1e-400"),
                 "trilap-x: invalid --tol '1e-400': below the smallest normal double (2.2e-308 in magnitude) "
                 "(try --help)\n");
    expect_error(ARGS("--tol", "-1e999"),
                 "trilap-x: invalid --tol '-1e999': beyond the range of a double (1.8e308 in magnitude) (try --help)\n");
}

/* A value forgotten before the next option: `--results --overlap` took
 * --overlap for the file name (trilap-fdtd wrote its row into a file named
 * --overlap and ran without overlap); a value that is an option's name
 * goes with '=' */
TL_TEST(value_that_is_an_option_refused)
{
    expect_error(ARGS("--out", "--prio"), "trilap-x: option '--out' needs a value, and '--prio' is an option (a value "
                                          "that is one: --out=--prio; try --help)\n");
    expect_error(ARGS("-o", "--no-verify"), "trilap-x: option '-o' needs a value, and '--no-verify' is an option (a "
                                            "value that is one: -o=--no-verify; try --help)\n");
    expect_error(ARGS("--kind", "-p"), "trilap-x: option '--kind' needs a value, and '-p' is an option (a value that "
                                       "is one: --kind=-p; try --help)\n");
    expect_error(ARGS("--out", "--help"), "trilap-x: option '--out' needs a value, and '--help' is an option (a value "
                                          "that is one: --out=--help; try --help)\n");
    fixture f;
    setup(&f, 0, 1);
    /* what is no option of this program, or is given with '=', is a value */
    TL_ASSERT_OK(parse(&f, ARGS("--out", "--prio-file", "--kind=--prio", "--tol", "-0")));
    TL_ASSERT_STREQ(f.b.out, "--prio-file");
    TL_ASSERT_STREQ(f.b.kind, "--prio");
    TL_ASSERT(f.b.tol == 0 && !f.b.prio);
    free(f.res.positional);
}

/* The echo writes a string whole, on its one line: a 399-byte path was cut
 * at 255 bytes, and a newline in a value began a line without the prefix */
TL_TEST(echo_long_and_two_line_values)
{
    fixture f;
    setup(&f, 0, -1);
    char longpath[400];
    memset(longpath, 'd', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    TL_ASSERT_OK(parse(&f, ARGS("--out", longpath, "--kind", "two\nlines")));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    tl_opts_echo(&f.spec, m, NULL);
    fclose(m);
    char want[512];
    snprintf(want, sizeof want, "# opt: out=%s\n", longpath);
    TL_ASSERT_MSG(strstr(buf, want), "the 399-byte --out is not echoed whole:\n%s", buf);
    TL_ASSERT_MSG(strstr(buf, "# opt: kind=two lines\n"), "the two-line --kind:\n%s", buf);
    for (const char *line = buf; *line; line = strchr(line, '\n') + 1)
        TL_ASSERT_MSG(!strncmp(line, "# opt: ", 7), "a line without its prefix: '%.*s'", (int)strcspn(line, "\n"), line);
    free(buf);
    free(f.res.positional);
}

TL_TEST(positional_counts)
{
    fixture f;
    setup(&f, 1, 1);
    TL_ASSERT_EQ(parse(&f, ARGS("--reps", "3")), TL_ERR_INVAL);
    TL_ASSERT_STREQ(captured_err, "trilap-x: expected 1 argument, got 0 (try --help)\n");
    setup(&f, 2, -1);
    TL_ASSERT_EQ(parse(&f, ARGS("a")), TL_ERR_INVAL);
    TL_ASSERT_STREQ(captured_err, "trilap-x: expected at least 2 arguments, got 1 (try --help)\n");
    setup(&f, 2, -1);
    TL_ASSERT_OK(parse(&f, ARGS("a", "b", "c", "-")));
    TL_ASSERT_EQ(f.res.npositional, 4);
    TL_ASSERT_STREQ(f.res.positional[3], "-");
    free(f.res.positional);
    /* a negative number is an argument (was "unknown option '-3'"), for
     * the program to say what is wrong with it; -n is still an option */
    setup(&f, 2, -1);
    TL_ASSERT_OK(parse(&f, ARGS("-3", "-n", "4", "-.5")));
    TL_ASSERT_EQ(f.res.npositional, 2);
    TL_ASSERT_STREQ(f.res.positional[0], "-3");
    TL_ASSERT_STREQ(f.res.positional[1], "-.5");
    TL_ASSERT_EQ(f.b.reps, 4);
    free(f.res.positional);
}

TL_TEST(help_lists_options_with_defaults)
{
    fixture f;
    setup(&f, 1, 1);
    TL_ASSERT_OK(parse(&f, ARGS("--reps", "9", "--help")));
    TL_ASSERT_EQ(f.res.exit_now, 1);
    TL_ASSERT_STREQ(captured_err, "");
    const char *want[] = {"usage: trilap-x [options] A.mtx [b.mtx]\n",
                          "Measures the overlap of things.\n",
                          "\nBenchmark:\n",
                          "  -b, --ring-bytes B",
                          "ring send/recv payload per rank [256000]\n",
                          "  -n, --reps N",
                          "repetitions [5]\n",
                          "tolerance [1e-8]\n",
                          "--schedule two-stream|three-naive|three-split",
                          "stream schedule [three-split]\n",
                          "results file\n",
                          "      --verify",
                          "check every result [on]\n",
                          "stream priorities [off]\n",
                          "gen:N[:X] or a file [gen:7]\n",
                          "time: points per axis [16]; energy: [64]\n",
                          "\nLaunch:\n",
                          "  -g, --gpus N",
                          "--launcher auto|threads|mpi",
                          "[auto]\n",
                          "--nccl-timeout S",
                          "[300]\n",
                          "--no-gpu",
                          "  -h, --help",
                          "--version"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        TL_ASSERT_MSG(strstr(captured_out, want[i]), "help lacks \"%s\":\n%s", want[i], captured_out);
    setup(&f, 1, 1);
    TL_ASSERT_OK(parse(&f, ARGS("-h")));
    TL_ASSERT_EQ(f.res.exit_now, 1);
    TL_ASSERT(strncmp(captured_out, "usage: trilap-x", 15) == 0);
}

TL_TEST(version)
{
    fixture f;
    setup(&f, 1, 1);
    TL_ASSERT_OK(parse(&f, ARGS("--version")));
    TL_ASSERT_EQ(f.res.exit_now, 1);
    char want[256];
    snprintf(want, sizeof want, "trilap-x %s (%s)\n", TL_VERSION, TL_GIT_COMMIT);
    TL_ASSERT_STREQ(captured_out, want);
}

TL_TEST(echo_lines)
{
    fixture f;
    setup(&f, 0, -1);
    TL_ASSERT_OK(parse(&f, ARGS("--ring-bytes", "1M", "--tol=0.1", "-o", "r.csv", "--prio")));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    tl_opts_echo(&f.spec, m, NULL);
    tl_opts_echo(&f.spec, m, "#opt ");
    fclose(m);
    const char *want[] = {"# opt: ring-bytes=1048576\n", "# opt: reps=5\n", "# opt: tol=0.1\n",
                          "# opt: schedule=three-split\n", "# opt: out=r.csv\n", "# opt: verify=1\n",
                          "# opt: prio=1\n", "# opt: gpus=0\n", "# opt: launcher=auto\n", "# opt: no-gpu=0\n",
                          "#opt nccl-timeout=300\n"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        TL_ASSERT_MSG(strstr(buf, want[i]), "echo lacks \"%s\":\n%s", want[i], buf);
    free(buf);
    free(f.res.positional);
}

TL_TEST(bad_default_is_reported)
{
    static const tl_option broken[] = {{.name = "n", .type = TL_OPT_INT, .offset = 0, .def = "many"}};
    int64_t n = 0;
    tl_optgroup g = {"Broken", broken, 1, &n};
    tl_optspec spec = {.program = "trilap-x", .groups = &g, .ngroups = 1, .max_positional = -1};
    TL_ASSERT_EQ(tl_opts_defaults(&spec), TL_ERR_INVAL);
}

/* An ENUM option indexes its table; help and errors list the table's names. */
TL_TEST(enum_indexes_its_table)
{
    fixture f;
    setup(&f, 0, 1);
    TL_ASSERT_EQ(f.lo.device_comm, 0);
    TL_ASSERT_OK(parse(&f, ARGS("--device-comm", "host", "--launcher=mpi")));
    TL_ASSERT_EQ(f.lo.device_comm, 1);
    TL_ASSERT_EQ(f.lo.launcher, TL_LAUNCH_MPI);
    TL_ASSERT_STREQ(tl_opts_enum_name(&tl_launch_options[1], TL_LAUNCH_THREADS), "threads");
    TL_ASSERT(tl_opts_enum_name(&tl_launch_options[1], 3) == NULL);
    char buf[64];
    TL_ASSERT_STREQ(tl_opts_enum_choices(&tl_launch_options[1], buf, sizeof buf), "auto|threads|mpi");
    expect_error(ARGS("--device-comm", "mpi"),
                 "trilap-x: invalid --device-comm 'mpi': expected one of nccl|host (try --help)\n");
    setup(&f, 0, 1);
    TL_ASSERT_OK(parse(&f, ARGS("--help")));
    TL_ASSERT(strstr(captured_out, "--device-comm nccl|host"));
    TL_ASSERT(strstr(captured_out, "[nccl]"));
}

TL_TEST(aliases_note_and_store)
{
    fixture f;
    setup(&f, 0, -1);
    TL_ASSERT_OK(parse(&f, ARGS("--tolerance", "0.25")));
    TL_ASSERT_NEAR(f.b.tol, 0.25, 0);
    TL_ASSERT_MSG(strstr(captured_err, "trilap-x: note: --tolerance is now --tol;"), "%s", captured_err);
    free(f.res.positional);
    TL_ASSERT_OK(parse(&f, ARGS("--rtol=0.5")));
    TL_ASSERT_NEAR(f.b.tol, 0.5, 0);
    TL_ASSERT_MSG(strstr(captured_err, "--rtol is now --tol"), "%s", captured_err);
    /* a refusal names what was typed, the old name without its value */
    char buf[32];
    TL_ASSERT_STREQ(tl_opts_typed_name(&f.res, &f.b.tol, "tol", buf, sizeof buf), "rtol");
    free(f.res.positional);
    /* the current name: no note; an alias is not in --help */
    TL_ASSERT_OK(parse(&f, ARGS("--tol", "0.5")));
    TL_ASSERT_STREQ(captured_err, "");
    TL_ASSERT_STREQ(tl_opts_typed_name(&f.res, &f.b.tol, "tol", buf, sizeof buf), "tol");
    free(f.res.positional);
    TL_ASSERT_OK(parse(&f, ARGS("--tolerance", "0.1", "--tol", "0.5")));
    TL_ASSERT_STREQ(tl_opts_typed_name(&f.res, &f.b.tol, "tol", buf, sizeof buf), "tol"); /* the last one typed */
    free(f.res.positional);
    TL_ASSERT_OK(parse(&f, ARGS("--help")));
    TL_ASSERT(!strstr(captured_out, "--tolerance") && !strstr(captured_out, "rtol"));
    TL_ASSERT(strstr(captured_out, "--debug"));
}

TL_TEST(given_tells_typed_from_default)
{
    fixture f;
    setup(&f, 0, -1);
    TL_ASSERT_OK(parse(&f, ARGS("-n", "5", "--no-verify")));
    TL_ASSERT(tl_opts_given(&f.res, &f.b.reps));     /* typed, though equal to the default */
    TL_ASSERT(tl_opts_given(&f.res, &f.b.verify));
    TL_ASSERT(!tl_opts_given(&f.res, &f.b.tol));
    TL_ASSERT(!tl_opts_given(&f.res, &f.b.ring_bytes));
    free(f.res.positional);
}

/* An option given twice keeps its last value and says so once, at its
 * last occurrence, however it was spelt (before: without a word) */
TL_TEST(repeats_noted)
{
    fixture f;
    setup(&f, 0, -1);
    TL_ASSERT_OK(parse(&f, ARGS("-n", "3", "--ring-bytes", "8", "--reps", "4", "--reps=6", "--tolerance", "0.5",
                                "--tol", "0.25", "--no-verify", "--verify")));
    TL_ASSERT_EQ(f.b.reps, 6);
    TL_ASSERT_NEAR(f.b.tol, 0.25, 0);
    TL_ASSERT_EQ(f.b.verify, 1);
    TL_ASSERT_EQ(f.b.ring_bytes, 8);
    TL_ASSERT_MSG(strstr(captured_err, "trilap-x: note: --reps is given 3 times; the last one given is used\n") &&
                      strstr(captured_err, "trilap-x: note: --tolerance and --tol are one option, given twice; the "
                                           "last one given is used\n") &&
                      strstr(captured_err, "trilap-x: note: --verify (or --no-verify) is given twice; the last one "
                                           "given is used\n") &&
                      !strstr(captured_err, "ring-bytes"),
                  "%s", captured_err);
    free(f.res.positional);
    /* once each: no note */
    TL_ASSERT_OK(parse(&f, ARGS("-n", "3", "--tol", "0.5")));
    TL_ASSERT_STREQ(captured_err, "");
    free(f.res.positional);
}

TL_TEST(debug_sets_the_environment)
{
    fixture f;
    setup(&f, 0, -1);
    unsetenv("TRILAP_DEBUG");
    TL_ASSERT(!tl_error_debug());
    TL_ASSERT_OK(parse(&f, ARGS("--debug")));
    TL_ASSERT(tl_error_debug());
    free(f.res.positional);
    setenv("TRILAP_DEBUG", "0", 1);
    TL_ASSERT(!tl_error_debug());
}

/* A long list of choices and a long text: wrapped at word boundaries,
 * every word kept, the default once at the end. */
TL_TEST(help_nothing_cut)
{
    typedef struct {
        int kind;
    } kopts;
    static const struct {
        const char *name;
    } kinds[] = {{"tiled"}, {"naive"}, {"pipelined"}, {"zcol8"}, {"zcol16"}, {"zcol16-y4"}, {"zcol32-y4"},
                 {"zcol8-fused"}, {"zcol16-fused"}, {"zcol16-y4-pf"}, {"zcol32-y4-pf"}, {"vec2"}, {"vec4"},
                 {"vec4-x128"}, {"vec4-band"}};
    char longhelp[1200] = "";
    for (int i = 0; i < 40; i++) strcat(longhelp, i ? " word" : "start");
    strcat(longhelp, " finish");
    const tl_option t[] = {{.name = "kernel", .type = TL_OPT_ENUM, .offset = 0, .def = "vec4-band", .table = kinds,
                            .table_stride = sizeof kinds[0], .table_count = 15, .help = longhelp}};
    kopts k;
    tl_optgroup g = {"K", t, 1, &k};
    tl_optspec spec = {.program = "p", .groups = &g, .ngroups = 1, .max_positional = 0};
    const char *dir = tl_test_tmpdir();
    char path[300];
    snprintf(path, sizeof path, "%s/help", dir);
    FILE *fp = fopen(path, "w");
    TL_ASSERT(fp);
    tl_opts_print_help(&spec, fp);
    fclose(fp);
    static char text[16384];
    slurp(path, text, sizeof text);
    TL_ASSERT_MSG(strstr(text, "vec4-x128|vec4-band"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "finish [vec4-band]\n"), "%s", text);
    int words = 0;
    for (const char *p = text; (p = strstr(p, " word")); p++) words++;
    TL_ASSERT_EQ(words, 39);
    /* every help-text line within 100 columns (the option column may be longer) */
    for (const char *line = strstr(text, "start"), *nl; line && *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl) break;
        const char *bol = line;
        while (bol > text && bol[-1] != '\n') bol--;
        TL_ASSERT_MSG(nl - bol <= 100, "%.*s", (int)(nl - bol), bol);
    }
}

/* The first listed output given an empty name, file or folder; a string
 * option not listed, or one set, is none (tl_opts_empty_output: the
 * programs say it in their own form, exit 2) */
TL_TEST(empty_output_found)
{
    fixture f;
    setup(&f, 0, 2);
    char name[64];
    int folder = -1;
    TL_ASSERT_EQ(parse(&f, ARGS("--out", "r.csv")), TL_OK);
    TL_ASSERT(tl_opts_empty_output(&f.spec, "out", "kind", &folder, name) == NULL);
    free(f.res.positional);
    TL_ASSERT_EQ(parse(&f, ARGS("--out", "")), TL_OK);
    TL_ASSERT(tl_opts_empty_output(&f.spec, "out", "", &folder, name) == name);
    TL_ASSERT_STREQ(name, "out");
    TL_ASSERT_EQ(folder, 0);
    TL_ASSERT(tl_opts_empty_output(&f.spec, "", "out", &folder, name) == name);
    TL_ASSERT_EQ(folder, 1);
    TL_ASSERT(tl_opts_empty_output(&f.spec, "kind", "", NULL, name) == NULL); /* not this one */
    free(f.res.positional);
    TL_ASSERT_EQ(parse(&f, ARGS("--kind", "", "--out", "x")), TL_OK);
    TL_ASSERT(tl_opts_empty_output(&f.spec, "out|kind", "", &folder, name) == name);
    TL_ASSERT_STREQ(name, "kind");
    free(f.res.positional);
}

TL_TEST_MAIN(value_that_is_an_option_refused, echo_long_and_two_line_values, aliases_note_and_store, empty_output_found, repeats_noted, given_tells_typed_from_default, debug_sets_the_environment, help_nothing_cut,
             defaults, long_short_and_negated_forms, value_parsers, bad_arguments, positional_counts,
             help_lists_options_with_defaults, version, echo_lines, bad_default_is_reported, enum_indexes_its_table)
