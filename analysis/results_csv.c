/* Results CSV, grouped by (variant, nranks): microbenchmark results
 * (columns variant, nranks, rep, us_per_iter, ... in any order; '#' lines
 * skipped) and trilap-solve --results files, whose variant is named by
 * their solver, precond, schedule, backend and matrix columns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "probes/trace.h"
#include "runtime/gzin.h"
#include "runtime/results.h"

enum { MAXF = 128 };

/* the columns that name a trilap-solve row's variant, in label order */
enum { NSOLVE_KEYS = 5 };
static const char *const solve_keys[NSOLVE_KEYS] = {"solver", "precond", "schedule", "backend", "matrix"};

static void solve_variant(char *const *f, const int *ck, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < NSOLVE_KEYS && len < n; k++) {
        if (ck[k] < 0) continue;
        const char *sep = len == 0 ? "" : k == NSOLVE_KEYS - 1 ? ":" : "/";
        int w = snprintf(buf + len, n - len, "%s%s", sep, f[ck[k]]);
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* Columns that are measured (they differ between repetitions of one
 * configuration) or that name the point already (variant, nranks, the
 * swept x): every other column of a results file is its configuration
 * (trilap-bench: the other sizes, iters, priorities, trace_mode, ...). */
static int measured_or_key(const char *col)
{
    static const char *const cols[] = {"variant",  "nranks",        "rep",           "us_per_iter", "wrong",
                                       "iterations", "residual",    "true_residual", "solver_time_s", "time_s",
                                       "converged", "reason"};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        if (!strcmp(col, cols[k])) return 1;
    for (int k = 0; k < NSOLVE_KEYS; k++)
        if (!strcmp(col, solve_keys[k])) return 1;
    return 0;
}

/* The configuration fields of a row, joined by '\x1f' (malloc'd). */
static char *conf_of(char *const *f, const int *cc, int ncc)
{
    size_t len = 1;
    for (int k = 0; k < ncc; k++) len += strlen(f[cc[k]]) + 1;
    char *c = malloc(len), *w = c;
    if (!c) return NULL;
    for (int k = 0; k < ncc; k++) w += sprintf(w, "%s%s", k ? "\x1f" : "", f[cc[k]]);
    *w = '\0';
    return c;
}

/* The k-th field of a conf_of string, into buf. */
static const char *conf_field(const char *c, int k, char *buf, size_t n)
{
    for (; k > 0 && c; k--) c = strchr(c, '\x1f') ? strchr(c, '\x1f') + 1 : NULL;
    if (!c) c = "";
    snprintf(buf, n, "%.*s", (int)strcspn(c, "\x1f"), c);
    return buf;
}

/* The columns a results file names in its header. */
typedef struct columns {
    int variant, nranks, us, x, solve[NSOLVE_KEYS];
    int wrong;             /* trilap-bench's count of wrong results; -1 where the file has none */
    int time_s, iters;     /* trilap-solve's solver_time_s and iterations: us_per_iter where a file predates it */
    int conf[MAXF], nconf; /* the configuration columns */
    char *conf_name[MAXF]; /* their names (strdup'd) */
    int need;              /* the highest column a row must have */
} columns;

/* trilap-bench's other results files, by the columns that set them apart:
 * their rows are functions and sizes, not variants (compare and sweep
 * told them "trilap-bench ... --results files have" the columns they lack). */
static const char *bench_table_of(char **f, int nf)
{
    int function = 0, bandwidth = 0, op = 0, busbw = 0;
    for (int i = 0; i < nf; i++) {
        function |= !strcmp(f[i], "function");
        bandwidth |= !strcmp(f[i], "bandwidth_gbs");
        op |= !strcmp(f[i], "op");
        busbw |= !strcmp(f[i], "busbw_gbs");
    }
    return function && bandwidth ? "stream" : op && busbw ? "comm" : NULL;
}

static tl_status read_header(const char *path, long lineno, char **f, int nf, const char *xcol, columns *c)
{
    c->variant = c->nranks = c->us = c->x = c->time_s = c->iters = c->wrong = -1;
    for (int k = 0; k < NSOLVE_KEYS; k++) c->solve[k] = -1;
    for (int i = 0; i < nf; i++) {
        if (!strcmp(f[i], "variant")) c->variant = i;
        if (!strcmp(f[i], "nranks")) c->nranks = i;
        if (!strcmp(f[i], "us_per_iter")) c->us = i;
        if (!strcmp(f[i], "wrong")) c->wrong = i;
        if (xcol && !strcmp(f[i], xcol)) c->x = i;
        if (!strcmp(f[i], "solver_time_s")) c->time_s = i;
        if (!strcmp(f[i], "iterations")) c->iters = i;
        for (int k = 0; k < NSOLVE_KEYS; k++)
            if (!strcmp(f[i], solve_keys[k])) c->solve[k] = i;
    }
    if (c->variant < 0 && c->solve[0] >= 0) c->variant = c->solve[0]; /* a trilap-solve results file */
    else
        for (int k = 0; k < NSOLVE_KEYS; k++) c->solve[k] = -1;
    /* trilap-solve's files before us_per_iter (results/ holds many): the
     * same figure, solver_time_s / iterations, from their own columns */
    if (c->us < 0 && (c->solve[0] < 0 || c->time_s < 0 || c->iters < 0)) c->time_s = c->iters = -1;
    if (c->us >= 0) c->time_s = c->iters = -1;
    for (int i = 0; i < nf; i++)
        if (i != c->x && !measured_or_key(f[i])) {
            c->conf_name[c->nconf] = strdup(f[i]);
            TL_CHECK(c->conf_name[c->nconf], TL_ERR_NOMEM, "header");
            c->conf[c->nconf++] = i;
        }
    const char *bench = c->variant < 0 ? bench_table_of(f, nf) : NULL;
    TL_CHECK(!bench, TL_ERR_PARSE,
             "%s:%ld: a trilap-bench %s results file: compare and sweep read trilap-bench tristream and trilap-solve "
             "results (a variant or solver column, nranks, us_per_iter)",
             path, lineno, bench);
    TL_CHECK(c->variant >= 0 && c->nranks >= 0 && (c->us >= 0 || c->time_s >= 0), TL_ERR_PARSE,
             "%s:%ld: not a results file: its header lacks %s (trilap-bench tristream and trilap-solve --results files "
             "have them)",
             path, lineno, c->variant < 0 ? "a variant (or solver) column" : c->nranks < 0 ? "nranks" : "us_per_iter");
    /* after the check above: a file that is no results file (a matrix, an
     * export) is named as such, not as lacking the swept column */
    if (xcol && c->x < 0) {
        /* the caller's column, not the file, is what does not fit: INVAL
         * (a usage refusal, exit 2), naming what the file has instead */
        char have[512] = "";
        for (int i = 0, at = 0; i < nf && at < (int)sizeof have; i++)
            at += snprintf(have + at, sizeof have - (size_t)at, "%s%s", i ? ", " : "", f[i]);
        return TL_FAIL(TL_ERR_INVAL, "%s:%ld: no column %s (its columns: %s)", path, lineno, xcol, have);
    }
    /* --x naming what a point is grouped by or measures is no size: --x rep
     * drew one point per repetition, --x us_per_iter one per time, and a
     * text column was a bad number in the file, exit 1 */
    TL_CHECK(!xcol || !measured_or_key(xcol), TL_ERR_INVAL,
             "%s:%ld: --x %s: a column that names or measures a point (variant, nranks, rep, us_per_iter, wrong, ...), "
             "not a swept size: give ring_bytes, allreduce_bytes or daxpy_bytes",
             path, lineno, xcol);
    int need = c->variant > c->nranks ? c->variant : c->nranks;
    if (c->us > need) need = c->us;
    if (c->time_s > need) need = c->time_s;
    if (c->iters > need) need = c->iters;
    if (c->x > need) need = c->x;
    if (c->wrong > need) need = c->wrong;
    for (int k = 0; k < NSOLVE_KEYS; k++)
        if (c->solve[k] > need) need = c->solve[k];
    for (int k = 0; k < c->nconf; k++)
        if (c->conf[k] > need) need = c->conf[k];
    c->need = need;
    return TL_OK;
}

/* one group's us_per_iter samples */
typedef struct sample_set {
    double *us;
    size_t cap;
} sample_set;

/* The points read so far, each with its samples and the configuration
 * of its first row. */
typedef struct groups {
    tl_an_result *g;
    sample_set *samples;
    char **confs;
    long *first_line;
    size_t n, cap; /* the four arrays' rows and capacity */
} groups;

/* A point of its own; `conf` is taken (freed on failure). */
static tl_status groups_add(groups *gs, const char *variant, long nranks, double x, char *conf, long lineno)
{
    /* each from a copy of the capacity: some grown, the others not, leaves
     * all four as long as gs->cap says (the grown ones longer, harmlessly) */
    size_t capg = gs->cap, caps = gs->cap, capc = gs->cap, capl = gs->cap;
    tl_status st = TL_AN_GROW(gs->g, gs->n, capg, "result groups");
    if (st == TL_OK) st = TL_AN_GROW(gs->samples, gs->n, caps, "result groups");
    if (st == TL_OK) st = TL_AN_GROW(gs->confs, gs->n, capc, "result groups");
    if (st == TL_OK) st = TL_AN_GROW(gs->first_line, gs->n, capl, "result groups");
    if (st != TL_OK) {
        free(conf);
        return st;
    }
    gs->cap = capl;
    memset(&gs->g[gs->n], 0, sizeof gs->g[gs->n]);
    snprintf(gs->g[gs->n].variant, sizeof gs->g[gs->n].variant, "%s", variant);
    gs->g[gs->n].nranks = (int)nranks;
    gs->g[gs->n].x = x;
    gs->samples[gs->n] = (sample_set){0};
    gs->confs[gs->n] = conf;
    gs->first_line[gs->n] = lineno;
    gs->n++;
    return TL_OK;
}

static void groups_free(groups *gs)
{
    for (size_t k = 0; k < gs->n; k++) {
        free(gs->samples[k].us);
        free(gs->confs[k]);
    }
    free(gs->samples);
    free(gs->confs);
    free(gs->first_line);
    free(gs->g);
}

static int is_number(const char *v)
{
    char *end = NULL;
    (void)strtod(v, &end);
    return end != v && *end == '\0';
}

/* --x naming a column of words (priorities 'on', trace_mode) is the
 * command line's mistake, as --x rep is: it said "bad priorities 'on': not
 * a number", exit 1. The first row tells; a *_bytes column is a size
 * whatever it holds, so a word there ("1K") stays the file's fault. */
static tl_status x_is_words(const char *path, long lineno, char *const *f, const char *xcol, const columns *c)
{
    size_t xl = strlen(xcol);
    if ((xl > 6 && !strcmp(xcol + xl - 6, "_bytes")) || is_number(f[c->x])) return TL_OK;
    char num[512] = "";
    for (int k = 0, at = 0; k < c->nconf && at < (int)sizeof num; k++)
        if (is_number(f[c->conf[k]]))
            at += snprintf(num + at, sizeof num - (size_t)at, "%s%s", at ? ", " : "", c->conf_name[k]);
    return TL_FAIL(TL_ERR_INVAL, "%s:%ld: --x %s: a column of words ('%s'), not a swept size: %s%s", path, lineno, xcol,
                   f[c->x], *num ? "give a column of numbers: " : "the file has no column of numbers to sweep",
                   num);
}

/* The time beyond which no reader takes one (TL_TRACE_MAX_NS), in us */
#define RESULTS_MAX_US (TL_TRACE_MAX_NS / 1e3)

/* A time column (us_per_iter, or solver_time_s: us_per unit microseconds
 * to the unit) as a number of 0 or more; one beyond 2^61 ns, as every
 * trace reader refuses, is damage (a corrupt or mistyped row), whose
 * repetition printed as the variant's max and moved its median. */
static tl_status time_field(const char *path, long lineno, const char *col, const char *s, double us_per,
                            double *v)
{
    char *end = NULL;
    errno = 0;
    *v = strtod(s, &end);
    TL_CHECK(!errno && end != s && *end == '\0' && isfinite(*v) && *v >= 0, TL_ERR_PARSE,
             "%s:%ld: bad %s '%s': not a number of 0 or more", path, lineno, col, s);
    TL_CHECK(*v * us_per <= RESULTS_MAX_US, TL_ERR_PARSE,
             "%s:%ld: bad %s '%s': beyond 2^61 ns (73 years), not a time (a damaged row?)", path, lineno, col, s);
    return TL_OK;
}

/* One row into its point (a new one where it is the first). */
static tl_status read_row(const char *path, long lineno, char **f, int nf, const char *xcol, const columns *c,
                          groups *gs)
{
    TL_CHECK(nf > c->need, TL_ERR_PARSE, "%s:%ld: %d fields, expected at least %d", path, lineno, nf, c->need + 1);
    char *end = NULL;
    double us;
    if (c->us >= 0) {
        TL_TRY(time_field(path, lineno, "us_per_iter", f[c->us], 1, &us));
    } else {
        double ts;
        TL_TRY(time_field(path, lineno, "solver_time_s", f[c->time_s], 1e6, &ts));
        long it = strtol(f[c->iters], &end, 10);
        TL_CHECK(end != f[c->iters] && *end == '\0' && it > 0, TL_ERR_PARSE,
                 "%s:%ld: iterations '%s': no time per iteration (a file without us_per_iter)", path, lineno,
                 f[c->iters]);
        us = ts * 1e6 / (double)it;
    }
    long nr = strtol(f[c->nranks], &end, 10);
    TL_CHECK(end != f[c->nranks] && *end == '\0' && nr > 0, TL_ERR_PARSE,
             "%s:%ld: bad nranks '%s': not a whole number of 1 or more", path, lineno, f[c->nranks]);
    double x = 0;
    if (c->x >= 0 && !gs->n) TL_TRY(x_is_words(path, lineno, f, xcol, c));
    if (c->x >= 0) {
        errno = 0;
        x = strtod(f[c->x], &end);
        TL_CHECK(!errno && end != f[c->x] && *end == '\0' && isfinite(x), TL_ERR_PARSE,
                 "%s:%ld: bad %s '%s': not a number (the swept column)", path, lineno, xcol, f[c->x]);
    }
    long wrong = 0;
    if (c->wrong >= 0) {
        wrong = strtol(f[c->wrong], &end, 10);
        TL_CHECK(end != f[c->wrong] && *end == '\0' && wrong >= 0, TL_ERR_PARSE,
                 "%s:%ld: bad wrong '%s': not a whole number of 0 or more", path, lineno, f[c->wrong]);
    }
    char variant[sizeof gs->g->variant];
    if (c->solve[0] >= 0)
        solve_variant(f, c->solve, variant, sizeof variant);
    else
        snprintf(variant, sizeof variant, "%s", f[c->variant]);
    size_t k = 0;
    while (k < gs->n && !(strcmp(gs->g[k].variant, variant) == 0 && gs->g[k].nranks == nr && gs->g[k].x == x)) k++;
    char *conf = conf_of(f, c->conf, c->nconf);
    TL_CHECK(conf, TL_ERR_NOMEM, "row");
    if (k < gs->n && strcmp(conf, gs->confs[k]) != 0) {
        /* a point pools its rows as repetitions (sweep per size, compare
         * per variant and GPU count): rows of one point in two
         * configurations would be averaged into one */
        int d = 0;
        char a[96], b[96];
        while (d < c->nconf && !strcmp(conf_field(conf, d, a, sizeof a), conf_field(gs->confs[k], d, b, sizeof b)))
            d++;
        free(conf);
        const char *col = d < c->nconf ? c->conf_name[d] : "?", *cmd = xcol ? "sweep" : "compare";
        char at[160] = "";
        if (xcol) snprintf(at, sizeof at, ", %s %s", xcol, f[c->x]);
        return TL_FAIL(TL_ERR_PARSE,
                       "%s:%ld: %s, %ld ranks%s again with %s %s (line %ld: %s): %s takes a point's rows as "
                       "repetitions of one configuration; give it a file whose %s is one value (%s has no filter: "
                       "keep the header and those rows)",
                       path, lineno, variant, nr, at, col, d < c->nconf ? f[c->conf[d]] : "?", gs->first_line[k], b,
                       cmd, col, cmd);
    }
    if (k == gs->n) TL_TRY(groups_add(gs, variant, nr, x, conf, lineno));
    else free(conf);
    if (wrong) {
        gs->g[k].wrong++;
        return TL_OK;
    }
    sample_set *s = &gs->samples[k];
    TL_TRY(TL_AN_GROW(s->us, (size_t)gs->g[k].n, s->cap, "samples"));
    s->us[gs->g[k].n++] = us;
    return TL_OK;
}

/* The lines of a results file, plain or gzip'd, through the reader the
 * traces and matrices use (runtime/gzin.h): one at a time, without its
 * line end, in a buffer grown to the longest. */
typedef struct line_reader {
    tl_gzin *in;
    char chunk[1 << 16];
    size_t at, n;
    int end;
    char *line;
    size_t len, cap;
} line_reader;

/* *got 0 at the end of the file; a line's read error names it. */
static tl_status next_line(line_reader *lr, const char *path, long lineno, int *got)
{
    lr->len = 0;
    *got = 0;
    for (;;) {
        if (lr->at == lr->n) {
            if (lr->end) break;
            char where[1100];
            snprintf(where, sizeof where, "%s:%ld", path, lineno + 1);
            TL_TRY(tl_gzin_read(lr->in, lr->chunk, sizeof lr->chunk, &lr->n, where));
            lr->at = 0;
            if (!lr->n) {
                lr->end = 1;
                break;
            }
        }
        char c = lr->chunk[lr->at++];
        if (c == '\n') {
            *got = 1;
            break;
        }
        TL_TRY(tl_an_grow(&lr->line, &lr->cap, lr->len + 1, 1, "a results line")); /* and its NUL */
        lr->line[lr->len++] = c;
        *got = 1; /* a last line without its line end */
    }
    if (*got) {
        TL_TRY(tl_an_grow(&lr->line, &lr->cap, lr->len, 1, "a results line"));
        lr->line[lr->len] = '\0';
    }
    return TL_OK;
}

tl_status tl_an_results_read(const char *path, const char *xcol, tl_an_result **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    /* checked before the open, which would wait for a FIFO's writer */
    if (tl_an_is_special(path)) return TL_FAIL(TL_ERR_IO, "%s: a pipe or a device: results are read from files", path);
    /* a folder opens and reads as an empty file ("no header row"), and a
     * rank's gzip'd trace would be said to want unpacking: both named as
     * what they are */
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return TL_FAIL(TL_ERR_PARSE, "%s: a folder: results are a CSV file (the one --results wrote)", path);
    const char *base = strrchr(path, '/');
    if (tl_trace_rank_of_name(base ? base + 1 : path) >= 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: a rank's trace of a trilap run, not a results file: give the CSV file "
                                     "--results wrote", path);
    /* nothing at all is no results file, whatever its name (a .gz name
     * said "gzip data", which an empty file is not) */
    TL_CHECK(stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > 0, TL_ERR_PARSE,
             "%s: an empty file, not a results file (no header row)", path);
    line_reader lr = {0};
    TL_TRY(tl_gzin_open(path, &lr.in));
    tl_status st = TL_OK;
    long lineno = 0;
    int have_header = 0, got = 0;
    columns c = {0};
    groups gs = {0};
    char *f[MAXF];
    while (st == TL_OK && (st = next_line(&lr, path, lineno, &got)) == TL_OK && got) {
        lineno++;
        char *line = lr.line;
        line[strcspn(line, "\r")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        char why[64];
        int nf = tl_results_split(line, f, MAXF, why, sizeof why);
        if (nf < 0) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%ld: %s", path, lineno, why);
            break;
        }
        if (have_header) st = read_row(path, lineno, f, nf, xcol, &c, &gs);
        else st = read_header(path, lineno, f, nf, xcol, &c), have_header = 1;
    }
    TL_TRYGOTO(st, st, fail);
    TL_CHECKGOTO(have_header, TL_ERR_PARSE, st, fail, "%s: no header row", path);
    TL_CHECKGOTO(gs.n > 0, TL_ERR_PARSE, st, fail, "%s: no result rows", path);
    for (size_t k = 0; k < gs.n; k++) {
        size_t n = (size_t)gs.g[k].n;
        /* every repetition wrong: no time to give */
        gs.g[k].median = n ? tl_an_median(gs.samples[k].us, n) : NAN;
        gs.g[k].min = n ? gs.samples[k].us[0] : NAN;
        gs.g[k].max = n ? gs.samples[k].us[n - 1] : NAN;
    }
    *out = gs.g;
    *nout = gs.n;
    gs.g = NULL;
fail:
    groups_free(&gs);
    for (int k = 0; k < c.nconf; k++) free(c.conf_name[k]);
    free(lr.line);
    tl_gzin_close(lr.in);
    return st;
}
