/* Defects found by the read-only review of runtime/ and probes/ (branch
 * review-rp): each test shows what a user meets. Several fail on the
 * start commit on purpose; the lead's fixes make them pass. */
#include "probes/trace.h"
#include "runtime/options.h"
#include "runtime/results.h"

#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static const tl_trace_record one_kernel = {.rank = 0, .device = 0, .stream = 7, .lane = TL_ROLE_COMPUTE,
                                           .cat = TL_CAT_COMPUTE, .kind = TL_KIND_KERNEL, .name = "daxpy",
                                           .start_ns = 100, .end_ns = 200, .corr = 1, .bytes = -1, .iter = 0};

/* A trace of one record whose metadata key `key` is `value`, written by
 * the writer: the reader's status and what it read back of key and the
 * record's name (empty when refused). */
static tl_status write_then_read(const char *path, const char *key, const char *value, const char *name,
                                 char *meta_back, size_t nmeta, char *name_back, size_t nname)
{
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, key, value));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "complete", "yes"));
    tl_trace_record rec = one_kernel;
    if (name) rec.name = name;
    TL_ASSERT_OK(tl_trace_writer_record(w, &rec));
    TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
    meta_back[0] = name_back[0] = '\0';
    tl_trace_reader *r = NULL;
    tl_status st = tl_trace_reader_open(&r, path, 0);
    if (st != TL_OK) return st;
    const char *m = tl_trace_reader_meta(r, key);
    snprintf(meta_back, nmeta, "%s", m ? m : "(missing)");
    tl_trace_record got;
    int n = 0;
    st = tl_trace_reader_next(r, &got, &n);
    if (st == TL_OK && n) snprintf(name_back, nname, "%s", got.name);
    tl_trace_reader_close(&r);
    return st;
}

/* The trace's args metadata is the command line quoted for a shell: an
 * argument with one double quote ('a"b') leaves an odd number of '"' on
 * the metadata line, and the reader, counting quotes over every line,
 * takes the lines after it (the header, the records) into one row. */
TL_TEST(trace_meta_with_one_double_quote_reads_back)
{
    const char *path = tl_test_path("trace.rank0.csv");
    char *argv[] = {"trilap-solve", "--label", "say \"hi", NULL};
    char *args = tl_manifest_command(3, argv);
    TL_ASSERT(args);
    char meta[512], name[512];
    tl_status st = write_then_read(path, "args", args, NULL, meta, sizeof meta, name, sizeof name);
    char *text = tl_test_read(path);
    fprintf(stderr, "written:\n%s", text);
    free(text);
    TL_ASSERT_MSG(st == TL_OK, "a trace the writer wrote is refused by the reader (status %d)", st);
    TL_ASSERT_STREQ(meta, args);
    TL_ASSERT_STREQ(name, "daxpy");
    free(args);
}

/* A name the writer takes (a C++ template kernel's mangled name can run
 * to tens of kilobytes) must come back from the reader, or be refused by
 * the writer: not written and then refused at analysis time. */
TL_TEST(trace_long_name_written_is_read)
{
    const char *path = tl_test_path("trace.rank0.csv");
    size_t n = 70000;
    char *big = malloc(n + 1);
    TL_ASSERT(big);
    memset(big, 'k', n);
    big[n] = '\0';
    char meta[64], *name = malloc(n + 1);
    TL_ASSERT(name);
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    tl_trace_record rec = one_kernel;
    rec.name = big;
    tl_status wst = tl_trace_writer_record(w, &rec);
    tl_status cst = tl_trace_writer_close(&w, 1);
    if (wst != TL_OK || cst != TL_OK) {
        free(big);
        free(name);
        return; /* refused at the write: the user is told when it happens */
    }
    tl_status st = write_then_read(path, "program", "x", big, meta, sizeof meta, name, n + 1);
    TL_ASSERT_MSG(st == TL_OK, "a %zu-byte name the writer took is refused by the reader (status %d)", n, st);
    TL_ASSERT(strcmp(name, big) == 0);
    free(big);
    free(name);
}

/* ---- options ------------------------------------------------------------ */

typedef struct rp_opts {
    const char *results, *label;
    int overlap;
    double rtol;
} rp_opts;

static const tl_option rp_table[] = {
    {.name = "results", .type = TL_OPT_STRING, .offset = offsetof(rp_opts, results), .metavar = "FILE",
     .help = "results file"},
    {.name = "label", .type = TL_OPT_STRING, .offset = offsetof(rp_opts, label), .def = "run", .help = "label"},
    {.name = "overlap", .type = TL_OPT_FLAG, .offset = offsetof(rp_opts, overlap), .help = "overlap"},
    {.name = "rtol", .type = TL_OPT_DOUBLE, .offset = offsetof(rp_opts, rtol), .def = "1e-8", .help = "tolerance"},
};

typedef struct rp_fixture {
    rp_opts o;
    tl_optgroup group;
    tl_optspec spec;
    tl_optresult res;
    char err[8192];
} rp_fixture;

/* tl_opts_parse of the NULL-terminated argv, stderr kept in f->err */
static tl_status rp_parse(rp_fixture *f, char **argv)
{
    memset(f, 0, sizeof *f);
    f->group = (tl_optgroup){"Options", rp_table, sizeof rp_table / sizeof rp_table[0], &f->o};
    f->spec = (tl_optspec){.program = "trilap-x", .groups = &f->group, .ngroups = 1, .max_positional = 0};
    int argc = 0;
    while (argv[argc]) argc++;
    const char *path = tl_test_path("parse-stderr.txt");
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    TL_ASSERT(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    tl_status st = tl_opts_parse(&f->spec, argc, argv, &f->res);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *text = tl_test_read(path);
    snprintf(f->err, sizeof f->err, "%s", text);
    free(text);
    fprintf(stderr, "stderr of the parse: %s\n", f->err);
    return st;
}

/* `--results --overlap`: the value forgotten, the next option taken for
 * the file name. trilap-fdtd run --grid 16 --steps 2 --results --overlap
 * exits 0 with its row in a file named '--overlap' and overlap=0 in it. */
TL_TEST(option_value_that_is_an_option_refused)
{
    rp_fixture f;
    char *argv[] = {"trilap-x", "--results", "--overlap", NULL};
    tl_status st = rp_parse(&f, argv);
    TL_ASSERT_MSG(st != TL_OK, "parsed: --results='%s', --overlap=%d", f.o.results ? f.o.results : "(null)",
                  f.o.overlap);
    TL_ASSERT_MSG(strstr(f.err, "--results") && strstr(f.err, "--overlap"), "the refusal names neither: %s", f.err);
    free(f.res.positional);
}

/* 1e-310 is a double (a subnormal one): strtod says ERANGE for it, and the
 * parser's "beyond the range of a double" is untrue */
TL_TEST(option_subnormal_double_not_called_beyond_range)
{
    rp_fixture f;
    char *argv[] = {"trilap-x", "--rtol", "1e-310", NULL};
    tl_status st = rp_parse(&f, argv);
    if (st == TL_OK) {
        TL_ASSERT(f.o.rtol > 0 && f.o.rtol < 1e-300);
        free(f.res.positional);
        return;
    }
    TL_ASSERT_MSG(!strstr(f.err, "beyond the range of a double"), "1e-310 said to be beyond a double: %s", f.err);
}

/* The "# opt:" echo (trilap-model's preambles, trilap-bench's metadata)
 * cuts a string value at 255 bytes and splits one with a newline over two
 * lines, the second without its '# opt: ' prefix */
TL_TEST(option_echo_keeps_long_and_multiline_values)
{
    rp_fixture f;
    char longpath[400];
    memset(longpath, 'd', sizeof longpath - 1);
    longpath[sizeof longpath - 1] = '\0';
    char *argv[] = {"trilap-x", "--results", longpath, "--label", "two\nlines", NULL};
    TL_ASSERT_OK(rp_parse(&f, argv));
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    TL_ASSERT(m);
    tl_opts_echo(&f.spec, m, "# opt: ");
    fclose(m);
    fprintf(stderr, "echo:\n%s", text);
    char want[512];
    snprintf(want, sizeof want, "# opt: results=%s\n", longpath);
    TL_ASSERT_MSG(strstr(text, want), "the 399-byte --results is not echoed whole");
    for (char *line = text; *line; line = strchr(line, '\n') + 1) {
        TL_ASSERT_MSG(strncmp(line, "# opt: ", 7) == 0, "an echo line without its prefix: '%.*s'",
                      (int)strcspn(line, "\n"), line);
        if (!strchr(line, '\n')) break;
    }
    free(text);
    free(f.res.positional);
}

TL_TEST_MAIN(trace_meta_with_one_double_quote_reads_back, trace_long_name_written_is_read,
             option_value_that_is_an_option_refused, option_subnormal_double_not_called_beyond_range,
             option_echo_keeps_long_and_multiline_values)
