#include "analysis/cli.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "probes/trace.h"
#include "runtime/out.h"

const tl_option tl_an_common_opts[] = {
    {.name = "accept-incomplete", .type = TL_OPT_FLAG, .offset = offsetof(tl_an_common, accept_incomplete),
     .def = "0", .help = "analyse traces marked complete=no (dropped records), files cut short or grown (rows other than "
             "their records= says) and runs missing ranks, instead of rejecting them"},
    {.name = "raw-clock", .type = TL_OPT_FLAG, .offset = offsetof(tl_an_common, raw_clock), .def = "0",
     .help = "use each rank's own clock: ignore the offsets to rank 0 measured by the probes (clock_offset_ns)"},
    {.name = "align-clocks", .type = TL_OPT_FLAG, .offset = offsetof(tl_an_common, align_clocks), .def = "0",
     .help = "estimate each rank's clock offset to the first from the ends of the matched collectives (they end "
             "together; the median) and apply it to the cross-rank figures (waiting, late ranks): for traces "
             "whose offsets nobody measured (PyTorch profiler)"},
    {.name = "csv", .type = TL_OPT_STRING, .offset = offsetof(tl_an_common, csv), .metavar = "FILE",
     .help = "also write the main table as CSV (units in the column names; a name ending in .gz: gzip'd)"},
    {.name = "iter-range", .type = TL_OPT_STRING, .offset = offsetof(tl_an_common, iters), .metavar = "A:B",
     .aliases = "iters", .help = "restrict to iterations A..B (inclusive; A: or :B open)"},
    {.name = "iter-nvtx", .type = TL_OPT_STRING, .offset = offsetof(tl_an_common, iter_nvtx), .metavar = "[DOMAIN:]NAME",
     .help = "an Nsight Systems export's iterations from its NVTX ranges named NAME or NAME and a number ('step 3', "
             "'step#3', 'step_3'; any domain, or DOMAIN's), not trilap's iter ranges"},
    {.name = "launch-gap-us", .type = TL_OPT_DOUBLE, .offset = offsetof(tl_an_common, launch_gap_us), .def = "10",
     .metavar = "US", .help = "idle stretches up to this long count as launch gaps", .min = 0, .max = 1e9},
    {.name = "progress", .type = TL_OPT_FLAG, .offset = offsetof(tl_an_common, progress), .def = "0",
     .help = "a progress line on stderr for each rank file read, even when it is not a terminal (on a terminal "
             "it is shown for files of a million records or more)"},
};
const size_t tl_an_common_nopts = sizeof tl_an_common_opts / sizeof tl_an_common_opts[0];
const tl_option tl_an_hta_opt = {
    .name = "hta", .type = TL_OPT_FLAG, .offset = offsetof(tl_an_common, hta), .def = "0",
    .help = "PyTorch profiler (Kineto) traces: Holistic Trace Analysis's selection and kernel classes, its figures "
            "exactly (analysis/README.md)"};

/* Which common options each command honours: a command lists (and so
 * accepts) only the ones that change what it prints or writes. A command
 * missing here gets them all; a new common option is added to the rows of
 * the commands that use it. */
static const struct {
    const char *command, *options;
} common_use[] = {
    {"breakdown", "accept-incomplete|raw-clock|csv|iter-range|iter-nvtx|progress"},
    {"overlap", "accept-incomplete|raw-clock|align-clocks|csv|iter-range|iter-nvtx|launch-gap-us|progress"},
    {"diagnose", "accept-incomplete|raw-clock|align-clocks|csv|iter-range|iter-nvtx|launch-gap-us|progress"},
    {"compare", "accept-incomplete|raw-clock|align-clocks|csv|iter-range|iter-nvtx|launch-gap-us|progress"},
    {"timeline", "accept-incomplete|raw-clock|iter-range|iter-nvtx|progress"},
    {"perfetto", "accept-incomplete|raw-clock|iter-range|iter-nvtx|progress"},
    {"collectives", "csv|iter-range|iter-nvtx"},
    {"sweep", "csv"},
    {"import", "iter-nvtx"},
};

static int is_command(const tl_optspec *spec, const char *command)
{
    return spec->command && !strcmp(spec->command, command);
}

static const char *common_list(const tl_optspec *spec)
{
    const char *cmd = spec->command ? spec->command : "";
    for (size_t i = 0; i < sizeof common_use / sizeof common_use[0]; i++)
        if (!strcmp(common_use[i].command, cmd)) return common_use[i].options;
    return NULL;
}

/* The source an input is when it is not trilap's own trace: 1 a PyTorch
 * profiler (Kineto) trace or a folder of them, 2 an Nsight Systems export,
 * 0 otherwise (a run folder, a results file, nothing readable: the reader
 * says what is wrong with those). */
static int foreign_source(const char *path)
{
    return tl_an_is_nsys(path) ? 2 : tl_an_is_kineto_run(path) ? 1 : 0;
}

/* --raw-clock and --accept-incomplete say what to do with the probes'
 * clock offsets and complete=no: a Kineto trace or an Nsight Systems
 * export has neither, so on one they would change nothing. Refused (2)
 * naming the input; -1 to go on. */
static int refuse_for_source(const char *program, const tl_optresult *res, const tl_an_common *c)
{
    static const char *const what[] = {"", "a PyTorch profiler (Kineto) trace", "an Nsight Systems export"};
    static const char *const clock_why[] = {
        "", ("Kineto measures no clock offsets to leave unapplied (each rank stays on its own host's clock, as the "
             "# clock: line says; --align-clocks estimates offsets from matched collectives)"),
        "its ranks share one session clock, with no measured offsets to leave unapplied"};
    static const char *const incomplete_why[] = {
        "", "Kineto marks no trace complete=no (a folder is read with whichever of a run's ranks it holds)",
        "an export carries no complete=no for it to accept"};
    if (c->hta || (!c->raw_clock && !c->accept_incomplete)) return -1;
    for (int i = 0; i < res->npositional; i++) {
        int k = foreign_source(res->positional[i]);
        if (!k) continue;
        const char *opt = c->raw_clock ? "raw-clock" : "accept-incomplete";
        fprintf(stderr, "%s: --%s does not apply to %s, %s: %s (try --help)\n", program, opt, res->positional[i],
                what[k], c->raw_clock ? clock_why[k] : incomplete_why[k]);
        return 2;
    }
    return -1;
}

/* The first input that is an Nsight Systems export, NULL when none. */
static const char *export_among(const tl_optresult *res)
{
    for (int i = 0; i < res->npositional; i++)
        if (tl_an_is_nsys(res->positional[i])) return res->positional[i];
    return NULL;
}

/* --iter-nvtx names NVTX ranges of an Nsight Systems export: empty, or
 * with an input of another source (which marks its iterations its own
 * way), it is refused (2) naming the input; -1 to go on. */
static int refuse_iter_nvtx(const char *program, const tl_optresult *res, const tl_an_common *c)
{
    if (!c->iter_nvtx) return -1;
    if (!*c->iter_nvtx) {
        fprintf(stderr, "%s: invalid --iter-nvtx '': an empty range name (try --help)\n", program);
        return 2;
    }
    for (int i = 0; i < res->npositional; i++) {
        const char *in = res->positional[i];
        if (tl_an_is_gzip_nsys(in)) continue; /* the reader names a gzipped one */
        if (tl_an_is_nsys(in)) {
            /* before any report: what the export's ranges cannot give is
             * the command line's (2), not a failed reading (1) */
            tl_status st = tl_an_nsys_iter_check(in, c->iter_nvtx);
            if (st == TL_OK) continue;
            return st == TL_ERR_INVAL ? 2 : 1;
        }
        int kineto = tl_an_is_kineto_run(in);
        char route[8800] = "", word[512], path[4200];
        const char *ex = export_among(res);
        if (ex) /* compare's other input: the export's steps go in with import, a command to paste */
            snprintf(route, sizeof route, "; to compare %s's steps with it: trilap-analyze import %s --iter-nvtx %s "
                     "-o DIR, then give DIR", ex, tl_an_sh_word(ex, path, sizeof path),
                     tl_an_sh_word(c->iter_nvtx, word, sizeof word));
        fprintf(stderr, "%s: --iter-nvtx does not apply to %s, %s: it takes an Nsight Systems export's iterations "
                        "from its NVTX ranges (%s)%s (try --help)\n",
                program, in, kineto ? "a PyTorch profiler (Kineto) trace" : "not an Nsight Systems export",
                kineto ? "a Kineto trace's are its ProfilerStep#N ranges" : "a trilap run's are its probes' iter marks",
                route);
        return 2;
    }
    return -1;
}

/* Every option of the commands that names an output (import's -o a
 * folder, every other a file). */
static const char *const output_names[] = {"csv", "iter-csv", "stack-csv", "output"};

/* An output given an empty name: 1 after one line (the command line's
 * fault: the caller's exit 2, as trilap-solve, trilap-fdtd and
 * trilap-bench say it; it was the file system's, exit 1, "--csv: an output
 * file name is empty"). */
static int output_empty_refused(const tl_optspec *spec)
{
    const int import = is_command(spec, "import");
    char name[64];
    int folder;
    if (!tl_opts_empty_output(spec, import ? "" : "csv|iter-csv|stack-csv|output", import ? "output" : "", &folder,
                              name))
        return 0;
    fprintf(stderr, "%s: invalid --%s '': an empty %s name (try --help)\n", spec->program, name,
            folder ? "folder" : "file");
    return 1;
}

/* The table and file outputs, beyond what tl_opts_outputs_refused checks,
 * before any input is read; 1 after one line: an output over a file the
 * command reads (an input file, or a rank's trace or a Kineto JSON in an
 * input folder): `perfetto RUN -o RUN/trace.rank0.csv.gz` exited 0 and
 * left a run that no longer loads. The options clash: the caller's exit 2
 * (it was 1, as if the file system had refused). (A table's CSV named .gz
 * is written gzip'd, tl_out_open_text, as perfetto's JSON is.) */
static int outputs_refused_here(const tl_optspec *spec, const tl_optresult *res)
{
    for (size_t j = 0; j < sizeof output_names / sizeof output_names[0]; j++) {
        const char *out = tl_opts_string_of(spec, output_names[j]);
        if (!out) continue;
        const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
        char what[64], in[4352];
        snprintf(what, sizeof what, "--%s", output_names[j]);
        for (int k = 0; k < res->npositional; k++) {
            struct stat sb;
            const char *p = res->positional[k];
            int dir = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
            snprintf(in, sizeof in, dir ? "%s/%s" : "%s", p, base);
            const char *inputs[] = {in};
            int read_there = tl_trace_rank_of_name(base) >= 0 || tl_an_json_name(base);
            if ((!dir || read_there) && tl_out_replaces_input(spec->program, what, out, inputs, 1)) return 1;
        }
    }
    return 0;
}

/* An output named for another format than it holds: 1 after one line
 * (a bad option value: the caller's exit 2, where it was 1). `timeline -o
 * t.png` wrote CSV rows under a picture's name, `perfetto -o t.csv` JSON
 * under a table's. Only names of formats known to be other are refused (a
 * table may be named .txt or .dat, a name without a dot anything). */
static int output_format_refused(const tl_optspec *spec)
{
    static const char *const others[] = {"csv",  "tsv", "json", "png",  "pdf", "svg",    "eps", "jpg",
                                         "jpeg", "gif", "html", "ps",   "mtx", "sqlite", "nsys-rep"};
    const int json = is_command(spec, "perfetto");
    if (is_command(spec, "import")) return 0; /* its output is a folder */
    for (size_t j = 0; j < sizeof output_names / sizeof output_names[0]; j++) {
        const char *out = tl_opts_string_of(spec, output_names[j]);
        const int is_json = json && !strcmp(output_names[j], "output");
        const char *writes = is_json ? "json" : "csv";
        if (!out || tl_out_in_place(out)) continue;
        const char *slash = strrchr(out, '/'), *base = slash ? slash + 1 : out;
        char name[512], *dot;
        snprintf(name, sizeof name, "%s", base);
        if (tl_out_names_gzip(name)) name[strlen(name) - 3] = '\0';
        if (!(dot = strrchr(name, '.')) || dot == name) continue;
        for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
            if (strcasecmp(dot + 1, others[k]) || !strcmp(others[k], writes)) continue;
            fprintf(stderr, "%s: --%s %s: it writes %s, not %s: give a .%s name%s\n", spec->program, output_names[j], out,
                    is_json ? "Chrome trace JSON" : "CSV rows", others[k], writes,
                    is_command(spec, "timeline") ? " (the picture: gnuplot plots/timeline.gp on it, or "
                                                          "scripts/render-plots.sh)"
                                                        : "");
            return 1;
        }
    }
    return 0;
}

int tl_an_parse(const tl_optspec *spec, int argc, char **argv, tl_optresult *res, tl_an_common *c)
{
    int rc = -1, out;
    memset(res, 0, sizeof *res);
    /* the command's own spec with the common group cut to what it uses */
    tl_option mine[32];
    tl_optgroup groups[8];
    tl_optspec cut = *spec;
    const char *list = common_list(spec);
    if (list && spec->ngroups <= sizeof groups / sizeof groups[0] && tl_an_common_nopts <= 32) {
        for (size_t g = 0; g < spec->ngroups; g++) {
            groups[g] = spec->groups[g];
            if (groups[g].opts != tl_an_common_opts) continue;
            size_t n = 0;
            for (size_t i = 0; i < tl_an_common_nopts; i++)
                if (tl_opts_choice_index(list, tl_an_common_opts[i].name) >= 0) mine[n++] = tl_an_common_opts[i];
            groups[g].opts = mine;
            groups[g].nopts = n;
        }
        cut.groups = groups;
    }
    if (tl_opts_parse(&cut, argc, argv, res) != TL_OK)
        rc = 2;
    else if (res->exit_now)
        rc = 0;
    else if (tl_an_parse_iters(c->iters, &c->iter_lo, &c->iter_hi) != TL_OK) {
        long long a, b;
        char tail;
        /* a range the wrong way round is well formed: say which end is wrong */
        if (c->iters && sscanf(c->iters, "%lld:%lld%c", &a, &b, &tail) == 2 && a >= 0 && b >= 0 && b < a)
            fprintf(stderr, "%s: invalid --iter-range '%s': its end %lld is before its start %lld (A:B takes "
                    "iterations A to B, both included; try --help)\n", spec->program, c->iters, b, a);
        else
            fprintf(stderr, "%s: invalid --iter-range '%s': expected A:B, A: or :B (try --help)\n", spec->program,
                    c->iters);
        rc = 2;
    } else if (output_empty_refused(&cut)) {
        rc = 2;
    } else if (outputs_refused_here(&cut, res)) {
        /* before the file system's checks: an input kept read-only (as
         * shared data is) was "cannot write: a read-only file", exit 1 */
        rc = 2;
    } else if ((out = tl_opts_outputs_refused(&cut, "csv|iter-csv|stack-csv|output",
                                              is_command(spec, "import") ? "output" : ""))) {
        rc = out; /* before a trace is read: not an error after the report; 2 for a clash */
    } else if (output_format_refused(&cut)) {
        rc = 2;
    } else if (c->align_clocks && c->raw_clock) {
        /* both used to be taken: offsets estimated on clocks the user asked
         * to leave as they are */
        fprintf(stderr, "%s: --align-clocks and --raw-clock contradict each other: --raw-clock keeps each rank on its "
                        "own clock, --align-clocks puts every rank on the first's by offsets estimated from "
                        "collective ends; give one (try --help)\n",
                spec->program);
        rc = 2;
    } else if ((rc = refuse_iter_nvtx(spec->program, res, c)) < 0) {
        rc = refuse_for_source(spec->program, res, c);
    }
    if (rc >= 0) {
        free(res->positional);
        res->positional = NULL;
    }
    return rc;
}

int tl_an_refuse_given(const char *program, const tl_optresult *pr, const tl_an_given *g, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++)
        if (tl_opts_given(pr, g[i].field) && !(g[i].flag && *(const int *)g[i].field == 0)) {
            fprintf(stderr, "%s: --%s does not apply %s (try --help)\n", program, g[i].name, why);
            return 2;
        }
    return -1;
}

/* Whether path is trilap's own trace: a rank file by its name, or a
 * folder holding one (a Kineto folder holds none: tl_an_is_kineto_run). */
static int trilap_source(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (tl_trace_rank_of_name(slash ? slash + 1 : path) >= 0) return 1;
    DIR *d = opendir(path);
    if (!d) return 0;
    int trilap = 0;
    for (struct dirent *e; !trilap && (e = readdir(d));) trilap = tl_trace_rank_of_name(e->d_name) >= 0;
    closedir(d);
    return trilap;
}

/* --hta on an input of another source, plain before it is read (a trilap
 * run, an Nsight Systems export): the switch cannot apply to that input,
 * as --raw-clock cannot to a Kineto trace, so 2 (it was the reader's
 * failure, 1). What is no trace at all stays the reader's to refuse. */
static int hta_refuse_source(const char *program, const tl_optresult *pr)
{
    for (int i = 0; i < pr->npositional; i++) {
        const char *in = pr->positional[i];
        const char *what = foreign_source(in) == 2 ? "an Nsight Systems export"
                           : trilap_source(in)      ? "a trilap trace"
                                                    : NULL;
        if (!what) continue;
        fprintf(stderr,
                "%s: --hta does not apply to %s, %s: it applies Holistic Trace Analysis's rules to PyTorch profiler "
                "(Kineto) traces; analyse this one without --hta (try --help)\n",
                program, in, what);
        return 2;
    }
    return -1;
}

int tl_an_hta_refuse(const char *program, const tl_optresult *pr, const tl_an_common *c, const tl_an_given *own,
                     size_t n)
{
    const tl_an_given common[] = {
        {&c->iters, "iter-range", 0},       {&c->launch_gap_us, "launch-gap-us", 0},
        {&c->align_clocks, "align-clocks", 1}, {&c->raw_clock, "raw-clock", 1},
        {&c->accept_incomplete, "accept-incomplete", 1}, {&c->progress, "progress", 1},
    };
    static const char why[] = "with --hta: HTA's figures are whole-trace, one per rank, by its own rules; only "
                              "--csv applies there";
    int rc = tl_an_refuse_given(program, pr, own, n, why);
    if (rc < 0) rc = tl_an_refuse_given(program, pr, common, sizeof common / sizeof common[0], why);
    return rc >= 0 ? rc : hta_refuse_source(program, pr);
}

tl_status tl_an_out_folder(const char *option, const char *path, tl_out_folder which)
{
    return tl_out_make_folder("trilap-analyze", option, path, which);
}

tl_status tl_an_write_csv(const tl_an_table *t, const char *option, const char *path)
{
    TL_TRY(tl_an_out_folder(option, path, TL_OUT_FOLDER_OF_FILE));
    return tl_an_table_write_csv(t, path);
}

tl_status tl_an_emit(const tl_an_table *t, const char *csv_path)
{
    /* the note before the table it precedes on a terminal */
    TL_TRY(tl_an_out_folder("--csv", csv_path, TL_OUT_FOLDER_OF_FILE));
    tl_an_table_print(t, stdout);
    fflush(stdout);
    if (csv_path) TL_TRY(tl_an_write_csv(t, "--csv", csv_path));
    return TL_OK;
}

tl_status tl_an_table_std_meta(tl_an_table *t, const char *command, const char *input)
{
    TL_TRY(tl_an_table_meta(t, "program", "trilap-analyze %s %s (git %s)", command, TL_VERSION, TL_GIT_COMMIT));
    TL_TRY(tl_an_table_meta(t, "input", "%s", input));
    return TL_OK;
}

tl_an_overlap_opts tl_an_overlap_opts_of(const tl_an_common *c)
{
    return (tl_an_overlap_opts){.flags = (c->accept_incomplete ? TL_TRACE_ACCEPT_INCOMPLETE : 0) |
                                         (c->raw_clock ? TL_AN_RAW_CLOCK : 0) |
                                         (c->align_clocks ? TL_AN_ALIGN_ENDS : 0) |
                                         (c->progress ? TL_AN_PROGRESS : 0),
                                .iter_lo = c->iter_lo,
                                .iter_nvtx = c->iter_nvtx,
                                .iter_hi = c->iter_hi,
                                .gap_ns = (int64_t)(c->launch_gap_us * 1e3)};
}

/* Whether path is a file of the folder folder (by the file: any spelling). */
static int file_in_folder(const char *path, const struct stat *folder)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    struct stat d;
    return S_ISDIR(folder->st_mode) && stat(dir, &d) == 0 && d.st_dev == folder->st_dev && d.st_ino == folder->st_ino;
}

int tl_an_refuse_repeated(const char *program, const tl_optresult *pr, const char *why, int nested)
{
    /* by the file, not the spelling: run, run/ and ./run are one input,
     * and so are (nested) a folder of Kineto traces and one of its files */
    for (int i = 1; i < pr->npositional; i++) {
        struct stat a;
        if (stat(pr->positional[i], &a) != 0) continue; /* the reader says what is wrong with it */
        for (int j = 0; j < i; j++) {
            struct stat b;
            if (stat(pr->positional[j], &b) != 0) continue;
            int same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
            int inside = !nested                  ? 0
                         : S_ISREG(a.st_mode) ? file_in_folder(pr->positional[i], &b)
                                              : S_ISREG(b.st_mode) && file_in_folder(pr->positional[j], &a);
            if (!same && !inside) continue;
            if (same)
                fprintf(stderr, "%s: %s and %s are one input given twice (%s); give it once (try --help)\n", program,
                        pr->positional[j], pr->positional[i], why);
            else
                fprintf(stderr,
                        "%s: %s and %s: one is a file of the other folder (%s); give one of them (try --help)\n",
                        program, pr->positional[j], pr->positional[i], why);
            return 2;
        }
    }
    return -1;
}

/* An input's path with its slashes made single and none at the end, so
 * that two spellings of one trailing path compare equal. */
static void tidy_path(const char *in, char *out, size_t n)
{
    size_t w = 0;
    for (const char *p = in; *p && w + 1 < n; p++)
        if (!(*p == '/' && w > 0 && out[w - 1] == '/')) out[w++] = *p;
    while (w > 1 && out[w - 1] == '/') w--;
    out[w] = '\0';
}

/* Where the last k components of p (length len) begin; 0 when it has no
 * more than k. */
static size_t tail_at(const char *p, size_t len, int k)
{
    size_t b = len;
    for (int c = 0; c < k && b > 0; c++) {
        if (c > 0) b--; /* the slash before the component */
        while (b > 0 && p[b - 1] != '/') b--;
    }
    return b;
}

/* An input's path as a label reads it: tidy_path's, and where a component
 * is "." or ".." (breakdown ., ../x/..), the folder's real path, so that
 * the label names the run ("three-split", not "."). */
static void label_path(const char *in, char *out, size_t n)
{
    tidy_path(in, out, n);
    int dots = 0;
    for (const char *p = out;;) {
        size_t k = strcspn(p, "/");
        dots |= (k == 1 && p[0] == '.') || (k == 2 && p[0] == '.' && p[1] == '.');
        if (!p[k]) break;
        p += k + 1;
    }
    char *real = dots ? realpath(out, NULL) : NULL;
    if (real) snprintf(out, n, "%s", real);
    free(real);
}

void tl_an_run_label(char *const *inputs, size_t n, size_t i, char *buf, size_t len)
{
    char me[4096], other[4096];
    label_path(inputs[i], me, sizeof me);
    size_t ml = strlen(me), at = tail_at(me, ml, 1);
    /* one more component until no other input ends in the same ones; two
     * distinct paths (refused when one file: tl_an_refuse_repeated) always
     * part by their whole length, so the labels come out distinct */
    for (int k = 1; at > 0; k++) {
        at = tail_at(me, ml, k);
        int clash = 0;
        for (size_t j = 0; j < n && !clash; j++) {
            if (j == i) continue;
            label_path(inputs[j], other, sizeof other);
            size_t ol = strlen(other), ot = tail_at(other, ol, k);
            clash = ol - ot == ml - at && !memcmp(other + ot, me + at, ml - at);
        }
        if (!clash) break;
    }
    snprintf(buf, len, "%s", me + at);
}
