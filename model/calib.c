/* Reading the measured numbers a calibration needs from trilap's own result
 * files, and the calibration file itself. */
#include "model/calib.h"

#include "runtime/options.h"
#include "runtime/out.h"
#include "runtime/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One line's fields as RFC 4180 reads them (tl_results_split), each a
 * string of its own; the count, or -1 with why. */
static int split(const char *line, char ***out, char *why, size_t nwhy)
{
    enum { MAXF = 256 };
    char *copy = strdup(line), *at[MAXF];
    if (!copy) {
        snprintf(why, nwhy, "out of memory");
        return -1;
    }
    int n = tl_results_split(copy, at, MAXF, why, nwhy);
    char **f = n > 0 ? calloc((size_t)n, sizeof *f) : NULL;
    for (int i = 0; f && i < n; i++)
        if (!(f[i] = strdup(at[i]))) {
            while (i-- > 0) free(f[i]);
            free(f);
            f = NULL;
        }
    free(copy);
    if (n > 0 && !f) {
        snprintf(why, nwhy, "out of memory");
        return -1;
    }
    *out = f;
    return n;
}

void tl_csv_free(tl_csv *t)
{
    if (!t) return;
    for (int i = 0; i < t->ncols && t->head; i++) free(t->head[i]);
    free(t->head);
    for (int r = 0; r < t->nrows; r++) {
        for (int i = 0; i < t->ncols; i++) free(t->rows[r][i]);
        free(t->rows[r]);
    }
    free(t->rows);
    free(t->line);
    memset(t, 0, sizeof *t);
}

tl_status tl_csv_read(const char *path, tl_csv *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return TL_FAIL(TL_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb; /* a folder opens, then read as "no header row" */
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return TL_FAIL(TL_ERR_IO, "%s: a folder, where a file is read", path);
    }
    tl_status st = TL_OK;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char **fields = NULL, why[64];
        int n = split(line, &fields, why, sizeof why);
        TL_CHECKGOTO(n > 0, TL_ERR_PARSE, st, fail, "%s:%d: %s", path, lineno, why);
        if (!t->head) {
            t->head = fields;
            t->ncols = n;
            continue;
        }
        if (n != t->ncols) {
            for (int i = 0; i < n; i++) free(fields[i]);
            free(fields);
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %d fields where the header has %d", path, lineno, n, t->ncols);
            goto fail;
        }
        char ***rows = realloc(t->rows, (size_t)(t->nrows + 1) * sizeof *rows);
        int *lines = rows ? realloc(t->line, (size_t)(t->nrows + 1) * sizeof *lines) : NULL;
        if (rows) t->rows = rows;
        if (lines) t->line = lines;
        if (!lines) {
            for (int i = 0; i < n; i++) free(fields[i]);
            free(fields);
            st = TL_FAIL(TL_ERR_NOMEM, "%s", path);
            goto fail;
        }
        t->line[t->nrows] = lineno;
        t->rows[t->nrows++] = fields;
    }
    TL_CHECKGOTO(t->head, TL_ERR_PARSE, st, fail, "%s: no header row", path);
fail:
    free(line);
    fclose(f);
    if (st != TL_OK) tl_csv_free(t);
    return st;
}

int tl_csv_col(const tl_csv *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->head[i], name) == 0) return i;
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A measured number of a results file: a finite number, all of the field
 * (strtod alone turned "oops" or an empty field into 0, which surfaced
 * later as a missing input). */
static tl_status number_of(const char *field, const char *path, const char *col, const char *row, double *out)
{
    TL_CHECK(tl_opts_parse_double(field, out) == TL_OK, TL_ERR_PARSE, "%s: %s '%s' of %s is not a number", path, col,
             field, row);
    return TL_OK;
}

/* The values a median is taken of, as many as the file holds (256 were
 * kept before, the rest dropped in silence). */
typedef struct samples {
    double *x;
    int n, cap;
} samples;

static tl_status samples_add(samples *s, double v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *x = realloc(s->x, (size_t)cap * sizeof *x);
        TL_CHECK(x, TL_ERR_NOMEM, "a median's %d values", cap);
        s->x = x;
        s->cap = cap;
    }
    s->x[s->n++] = v;
    return TL_OK;
}

static double samples_median(samples *s)
{
    qsort(s->x, (size_t)s->n, sizeof s->x[0], cmp_double);
    return s->n % 2 ? s->x[s->n / 2] : 0.5 * (s->x[s->n / 2 - 1] + s->x[s->n / 2]);
}

/* Whether row r failed its own check (`wrong` > 0, where the file has
 * the column): the plots leave such rows out, and calibrate took them
 * (a triad row of wrong = 268435456 and 9999 GB/s gave triad_gbs 9999). */
static tl_status row_wrong(const tl_csv *t, const char *path, int r, int *wrong)
{
    int w = tl_csv_col(t, "wrong");
    double v = 0;
    if (w >= 0) TL_TRY(number_of(t->rows[r][w], path, "wrong", t->rows[r][0], &v));
    *wrong = v > 0;
    return TL_OK;
}

/* One note on stderr for the rows whose own check failed, left out. */
static tl_status note_wrong_rows(const tl_csv *t, const char *path)
{
    int n = 0;
    for (int r = 0; r < t->nrows; r++) {
        int w;
        TL_TRY(row_wrong(t, path, r, &w));
        n += w;
    }
    if (n)
        fprintf(stderr, "trilap-model: note: %s: %d row%s whose own check failed (wrong > 0) left out\n", path, n,
                n == 1 ? "" : "s");
    return TL_OK;
}

/* Median of column `val` over the rows whose column `key` equals `want`
 * and whose own check passed. */
static tl_status median_where(const tl_csv *t, const char *path, const char *key, const char *want, const char *val,
                              double *out)
{
    int k = tl_csv_col(t, key), v = tl_csv_col(t, val), bad = 0;
    TL_CHECK(k >= 0 && v >= 0, TL_ERR_PARSE, "%s: no column '%s' or '%s'", path, key, val);
    samples s = {0};
    tl_status st = TL_OK;
    for (int r = 0; r < t->nrows && st == TL_OK; r++) {
        if (strcmp(t->rows[r][k], want) != 0) continue;
        int wrong;
        double x = 0;
        st = row_wrong(t, path, r, &wrong);
        if (st == TL_OK && wrong) bad++;
        else if (st == TL_OK) st = number_of(t->rows[r][v], path, val, want, &x);
        if (st == TL_OK && !wrong) st = samples_add(&s, x);
    }
    if (st == TL_OK && s.n == 0)
        st = bad ? TL_FAIL(TL_ERR_PARSE, "%s: no row with %s = %s whose own check passed (%d with wrong > 0)", path,
                           key, want, bad)
                 : TL_FAIL(TL_ERR_PARSE, "%s: no row with %s = %s", path, key, want);
    if (st == TL_OK) *out = samples_median(&s);
    free(s.x);
    return st;
}

/* The tristream rows are one configuration's: every column but the
 * variant, the repetition, its time and check holds one value. Before,
 * the medians pooled every configuration of a knob sweep
 * (tristream-knobs-h200x2/knobs.csv: 13 of them, ts_allreduce_us 11.90
 * where the default configuration's is 9.37). */
static tl_status one_configuration(const tl_csv *t, const char *path)
{
    static const char *const per_row = " variant rep us_per_iter wrong ";
    char cols[512] = "";
    int ndiff = 0, nconf = 0;
    unsigned char *differs = calloc((size_t)t->ncols, 1);
    TL_CHECK(differs, TL_ERR_NOMEM, "%s", path);
    for (int i = 0; i < t->ncols; i++) {
        char word[300];
        snprintf(word, sizeof word, " %s ", t->head[i]);
        if (strstr(per_row, word)) continue;
        for (int r = 1; r < t->nrows && !differs[i]; r++) differs[i] = strcmp(t->rows[r][i], t->rows[0][i]) != 0;
        if (!differs[i]) continue;
        size_t len = strlen(cols);
        snprintf(cols + len, sizeof cols - len, "%s%s", ndiff++ ? ", " : "", t->head[i]);
    }
    for (int r = 0; r < t->nrows && ndiff; r++) { /* the configurations: rows unlike every one before */
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            int same = 1;
            for (int i = 0; i < t->ncols && same; i++) same = !differs[i] || !strcmp(t->rows[r][i], t->rows[q][i]);
            seen = same;
        }
        nconf += !seen;
    }
    free(differs);
    TL_CHECK(!ndiff, TL_ERR_PARSE, "%s: rows of %d configurations (%s differ): calibrate from one configuration's rows "
             "(one trilap-bench tristream run)", path, nconf, cols);
    return TL_OK;
}

static tl_status read_in_range(const tl_mcalib *c, const char *path, const char *names);

static void add_source(tl_mcalib *c, const char *path)
{
    size_t len = strlen(c->source);
    snprintf(c->source + len, sizeof c->source - len, "%s%s", len ? " " : "", path);
}

/* The size of the run each row of t comes from, in column col (the
 * run's rank count, or the row's rank where want is 0: a one-GPU run has
 * rank 0 alone), against the run calibrate needs; without the column, the
 * `ranks:` lines of the manifest beside it. calibrate fits its costs on
 * two simulated GPUs beside the tristream and comm results and scales one
 * GPU's triad: before, a 4-GPU tristream CSV, or rows of 2 and 4 GPUs
 * mixed in one, was fitted as a two-GPU one, exit 0. */
static tl_status run_of_rows(const tl_csv *t, const char *path, const char *col, int want, const char *needs)
{
    int k = tl_csv_col(t, col), first_ok = 0;
    if (k < 0) return tl_mcalib_manifest_ranks(path, want ? want : 1, needs);
    for (int r = 0; r < t->nrows; r++) {
        double v;
        TL_TRY(number_of(t->rows[r][k], path, col, t->rows[r][0], &v));
        if (v == want) {
            if (!first_ok) first_ok = t->line[r];
            continue;
        }
        char has[96], mixed[96] = "";
        if (want)
            snprintf(has, sizeof has, "nranks = %s, a run of %s GPU%s", t->rows[r][k], t->rows[r][k], v == 1 ? "" : "s");
        else snprintf(has, sizeof has, "rank %s, a run of %.0f GPUs or more", t->rows[r][k], v + 1);
        if (first_ok && want)
            snprintf(mixed, sizeof mixed, " mixed with rows of %s = %d from line %d", col, want, first_ok);
        return TL_FAIL(TL_ERR_PARSE, "%s:%d: %s%s: calibrate needs %s", path, t->line[r], has, mixed, needs);
    }
    return TL_OK;
}

static const char two_gpus[] = "a two-GPU run, the size of the simulated platform its costs are fitted on "
                               "(trilap-bench tristream and comm --gpus 2)";

tl_status tl_mcalib_read_tristream(tl_mcalib *c, const char *csv)
{
    tl_csv t;
    TL_TRY(tl_csv_read(csv, &t));
    tl_status st = TL_OK;
    TL_TRYGOTO(run_of_rows(&t, csv, "nranks", 2, two_gpus), st, fail);
    TL_TRYGOTO(one_configuration(&t, csv), st, fail);
    TL_TRYGOTO(note_wrong_rows(&t, csv), st, fail);
    struct {
        const char *variant;
        double *dst;
    } want[] = {{"allreduce-only", &c->ts_allreduce_us}, {"ring-only", &c->ts_ring_us},
                {"daxpy-only", &c->ts_daxpy_us},         {"two-stream", &c->ts_two_us},
                {"three-naive", &c->ts_naive_us},        {"three-split", &c->ts_split_us}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        TL_TRYGOTO(median_where(&t, csv, "variant", want[i].variant, "us_per_iter", want[i].dst), st, fail);
    TL_TRYGOTO(median_where(&t, csv, "variant", "three-split", "ring_bytes", &c->ts_ring_bytes), st, fail);
    TL_TRYGOTO(median_where(&t, csv, "variant", "three-split", "allreduce_bytes", &c->ts_allreduce_bytes), st, fail);
    TL_TRYGOTO(read_in_range(c, csv,
                             "ts_allreduce_us ts_ring_us ts_daxpy_us ts_two_us ts_naive_us ts_split_us ts_ring_bytes "
                             "ts_allreduce_bytes"),
               st, fail);
    add_source(c, csv);
fail:
    tl_csv_free(&t);
    return st;
}

/* comm's three numbers, each the median of its rows that passed their
 * own check: before, the last matching row won, a failed one among them. */
typedef struct comm_rows {
    samples ar16, sr8, port; /* port: the sendrecv busbw at the largest size */
    double largest;
    int bad;
} comm_rows;

static tl_status comm_row(comm_rows *m, const tl_csv *t, int r, const int col[5], const char *csv)
{
    char **f = t->rows[r];
    if (strcmp(f[col[1]], "world") != 0) return TL_OK;
    int ar = strcmp(f[col[0]], "allreduce") == 0, sr = strcmp(f[col[0]], "sendrecv") == 0, wrong;
    if (!ar && !sr) return TL_OK;
    double s, us, gbs;
    TL_TRY(number_of(f[col[2]], csv, "size_bytes", f[col[0]], &s));
    TL_TRY(number_of(f[col[3]], csv, "time_us", f[col[0]], &us));
    TL_TRY(number_of(f[col[4]], csv, "busbw_gbs", f[col[0]], &gbs));
    TL_TRY(row_wrong(t, csv, r, &wrong));
    if (wrong) {
        m->bad++;
        return TL_OK;
    }
    if (ar && s == 16) TL_TRY(samples_add(&m->ar16, us));
    if (sr && s == 8) TL_TRY(samples_add(&m->sr8, us));
    if (sr && s > m->largest) {
        m->largest = s;
        m->port.n = 0;
    }
    if (sr && s == m->largest) TL_TRY(samples_add(&m->port, gbs));
    return TL_OK;
}

tl_status tl_mcalib_read_comm(tl_mcalib *c, const char *csv)
{
    tl_csv t;
    TL_TRY(tl_csv_read(csv, &t));
    tl_status st = TL_OK;
    comm_rows m = {.largest = -1};
    const int col[5] = {tl_csv_col(&t, "op"), tl_csv_col(&t, "comm"), tl_csv_col(&t, "size_bytes"),
                        tl_csv_col(&t, "time_us"), tl_csv_col(&t, "busbw_gbs")};
    TL_CHECKGOTO(col[0] >= 0 && col[1] >= 0 && col[2] >= 0 && col[3] >= 0 && col[4] >= 0, TL_ERR_PARSE, st, fail,
                 "%s: not a trilap-bench comm results file (op, comm, size_bytes, time_us, busbw_gbs)", csv);
    TL_TRYGOTO(run_of_rows(&t, csv, "nranks", 2, two_gpus), st, fail);
    TL_TRYGOTO(note_wrong_rows(&t, csv), st, fail);
    for (int r = 0; r < t.nrows; r++) TL_TRYGOTO(comm_row(&m, &t, r, col, csv), st, fail);
    TL_CHECKGOTO(m.ar16.n && m.sr8.n && m.port.n, TL_ERR_PARSE, st, fail,
                 "%s: needs world allreduce at 16 B and sendrecv at 8 B and above%s", csv,
                 m.bad ? ", rows whose own check passed (the others have wrong > 0)" : "");
    c->comm_allreduce16_us = samples_median(&m.ar16);
    c->comm_sendrecv8_us = samples_median(&m.sr8);
    c->port_gbs = samples_median(&m.port);
    TL_TRYGOTO(read_in_range(c, csv, "comm_allreduce16_us comm_sendrecv8_us port_gbs"), st, fail);
    add_source(c, csv);
fail:
    free(m.ar16.x);
    free(m.sr8.x);
    free(m.port.x);
    tl_csv_free(&t);
    return st;
}

tl_status tl_mcalib_read_stream(tl_mcalib *c, const char *csv)
{
    tl_csv t;
    TL_TRY(tl_csv_read(csv, &t));
    tl_status st = TL_OK;
    /* the triad of one GPU alone: a median over several GPUs' rows pooled
     * devices the calibration names as one */
    TL_TRYGOTO(run_of_rows(&t, csv, "rank", 0, "a one-GPU run, the triad of one GPU (trilap-bench stream --gpus 1)"),
               st, fail);
    TL_TRYGOTO(note_wrong_rows(&t, csv), st, fail);
    TL_TRYGOTO(median_where(&t, csv, "function", "triad", "bandwidth_gbs", &c->triad_gbs), st, fail);
    TL_TRYGOTO(read_in_range(c, csv, "triad_gbs"), st, fail);
    add_source(c, csv);
fail:
    tl_csv_free(&t);
    return st;
}

/* The calibration file: one `key = value` per field, with the values each
 * may take (POS > 0, NONNEG >= 0, FRAC in (0, 1]): what `calibrate` writes
 * always lies in them, and a file outside them would be simulated as
 * nonsense (a zero bandwidth, a NaN cost) or stop SimGrid after the
 * preamble. */
#define CALIB_FIELDS(X)                                                                                     \
    X(ts_allreduce_us, POS, "tristream allreduce-only, us/iter (median)")                                        \
    X(ts_ring_us, POS, "tristream ring-only, us/iter")                                                           \
    X(ts_daxpy_us, POS, "tristream daxpy-only, us/iter (one GPU's kernel)")                                      \
    X(ts_two_us, POS, "tristream two-stream, us/iter (validation only)")                                         \
    X(ts_naive_us, POS, "tristream three-naive, us/iter (validation only)")                                      \
    X(ts_split_us, POS, "tristream three-split, us/iter (fits nccl_rate)")                                       \
    X(ts_ring_bytes, POS, "tristream ring payload, B")                                                           \
    X(ts_allreduce_bytes, POS, "tristream allreduce payload, B")                                                 \
    X(comm_allreduce16_us, POS, "trilap-bench comm: allreduce 16 B, world, us")                                  \
    X(comm_sendrecv8_us, POS, "trilap-bench comm: sendrecv 8 B, world, us")                                      \
    X(port_gbs, POS, "trilap-bench comm: sendrecv busbw at the largest size, GB/s (the NVLink port)")            \
    X(triad_gbs, POS, "trilap-bench stream: triad, GB/s")                                                        \
    X(pcg_fixed_us, NONNEG, "Pipe-PCG us/iter not scaling with rows (results/solver-fixed-cost-h200, 96-256^3)")    \
    X(pcg_bw_frac, FRAC, "fraction of triad of the rest (same fit)")                                              \
    X(xstream_same_us, NONNEG, "tristream traces: kernel start after its same-stream predecessor, us (two-stream, allreduce -> DAXPY)") \
    X(xstream_cross_us, NONNEG, "tristream traces: ring start after the allreduce it waits for on another stream, us (three-naive)") \
    X(xstream_us, NONNEG, "a wait across streams costs this more than one on the same stream, us (cross - same)") \
    X(alpha_coll_us, POS, "fitted: NCCL allreduce fixed cost, us (simulated 16 B allreduce on 2 GPUs = comm result)")         \
    X(alpha_p2p_us, POS, "fitted: NCCL send/recv fixed cost, us (simulated 8 B send/recv on 2 GPUs = comm result)")               \
    X(nccl_rate, FRAC, "fitted: NCCL progress beside a compute kernel, 0-1 (simulated three-split = measured)")

enum { POS, NONNEG, FRAC };

static int in_range(double v, int kind)
{
    if (!isfinite(v)) return 0;
    return kind == POS ? v > 0 : kind == NONNEG ? v >= 0 : v > 0 && v <= 1;
}

static const char *const range_text[] = {[POS] = "> 0", [NONNEG] = ">= 0", [FRAC] = "in (0, 1]"};

/* The values a reader took from path, each in the range the calibration
 * file must hold (names: blank-separated). Before, calibrate wrote a
 * negative or zero measurement (a triad of 0 GB/s) into a file, exit 0,
 * that every later command refused. */
static tl_status read_in_range(const tl_mcalib *c, const char *path, const char *names)
{
#define X(name, k, what)                                                                                    \
    {                                                                                                       \
        const char *at = strstr(names, #name);                                                              \
        size_t len = strlen(#name);                                                                         \
        if (at && (at == names || at[-1] == ' ') && (at[len] == ' ' || !at[len]) && !in_range(c->name, k))  \
            return TL_FAIL(TL_ERR_PARSE, "%s gives %s = %g (%s), which must be %s: not a measurement a "   \
                           "calibration can rest on", path, #name, c->name, what, range_text[k]);          \
    }
    CALIB_FIELDS(X)
#undef X
    return TL_OK;
}

/* line (its comment cut) is `key = text`: the text, blanks around it
 * cut, in out; 0 for another key. */
static int text_key(char *line, const char *key, char *out, size_t n)
{
    char *sv = line + strspn(line, " \t");
    size_t len = strlen(key);
    if (strncmp(sv, key, len) != 0) return 0;
    sv += len + strspn(sv + len, " \t");
    if (*sv != '=') return 0;
    sv += 1 + strspn(sv + 1, " \t");
    size_t end = strcspn(sv, "\r\n");
    while (end && (sv[end - 1] == ' ' || sv[end - 1] == '\t')) end--;
    sv[end] = 0;
    snprintf(out, n, "%s", sv);
    return 1;
}

/* `gpu_mem_gbs = GB/s`, the calibration GPU's nominal memory bandwidth
 * where the platform table lacks it: 2 when line is it, 0 for another
 * key; *st set where its value is not a number > 0. */
static int gpu_mem_key(char *line, const char *path, int lineno, tl_mcalib *c, tl_status *st)
{
    char val[600];
    if (!text_key(line, "gpu_mem_gbs", val, sizeof val)) return 0;
    if (tl_opts_parse_double(val, &c->gpu_mem_gbs) != TL_OK || !in_range(c->gpu_mem_gbs, POS))
        *st = TL_FAIL(TL_ERR_PARSE, "%s:%d: gpu_mem_gbs = %s, must be a number > 0 (the calibration GPU's nominal "
                      "memory bandwidth, GB/s)", path, lineno, val);
    return 2;
}

tl_status tl_mcalib_load(tl_mcalib *c, const char *path)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen(path, "r");
    if (!f && errno == ENOENT)
        return TL_FAIL(TL_ERR_IO, "calibration %s: %s (--calib FILE names one; trilap-model calibrate writes one)",
                       path, strerror(errno));
    if (!f) return TL_FAIL(TL_ERR_IO, "calibration %s: %s", path, strerror(errno));
    struct stat sb; /* a folder opens, then reads as nothing */
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return TL_FAIL(TL_ERR_IO, "calibration %s: a folder, not a calibration file", path);
    }
    char *line = NULL; /* any length: the source line holds four paths */
    size_t cap = 0;
    int lineno = 0, seen = 0, gpu_line = 0, mem_line = 0;
    tl_status st = TL_OK;
    /* the line each field was set on (0: not yet), in CALIB_FIELDS' order */
    enum {
#define X(name, kind, what) F_##name,
        CALIB_FIELDS(X)
#undef X
            NFIELDS
    };
    int at[NFIELDS] = {0};
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        if (text_key(line, "source", c->source, sizeof c->source)) {
            if (strlen(c->source) + 1 < sizeof c->source) continue;
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: source longer than %zu characters (four paths)", path, lineno,
                         sizeof c->source - 2);
            goto done;
        }
        int gpu = text_key(line, "gpu", c->gpu, sizeof c->gpu) ? 1 : gpu_mem_key(line, path, lineno, c, &st);
        if (st != TL_OK) goto done;
        if (gpu && (gpu == 1 ? gpu_line : mem_line)) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %s given again (first on line %d)", path, lineno,
                         gpu == 1 ? "gpu" : "gpu_mem_gbs", gpu == 1 ? gpu_line : mem_line);
            goto done;
        }
        /* an empty value read as no key would be a file from before it, an
         * H200's calibration (jobs.c), whatever GPU it measured */
        if (gpu == 1 && !c->gpu[0]) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: gpu = (nothing): name the GPU measured (its CUDA device name), or "
                         "'" TL_MCALIB_GPU_UNNAMED "' with gpu_mem_gbs", path, lineno);
            goto done;
        }
        if (gpu == 1) gpu_line = lineno;
        if (gpu == 2) mem_line = lineno;
        if (gpu) continue;
        char key[64];
        char val[600];
        int used = 0;
        if (sscanf(line, " %63[a-z0-9_] = %599s%n", key, val, &used) != 2) {
            if (strspn(line, " \t\r\n") == strlen(line)) continue;
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: not 'key = value'", path, lineno);
            goto done;
        }
        /* "0.05 0.5" or "9.5 us": before, the first word was taken in silence */
        char *rest = line + used + strspn(line + used, " \t");
        size_t rlen = strcspn(rest, "\r\n");
        while (rlen && (rest[rlen - 1] == ' ' || rest[rlen - 1] == '\t')) rlen--; /* before a '#' comment */
        rest[rlen] = 0;
        if (*rest) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %s = %s is followed by '%s': one number per line, in the unit the "
                         "key names (a comment after '#')", path, lineno, key, val, rest);
            goto done;
        }
        char *end;
        double v = strtod(val, &end);
        int field = -1, kind = POS;
#define X(name, k, what)                                                                                    \
    if (strcmp(key, #name) == 0) {                                                                          \
        c->name = v;                                                                                        \
        field = F_##name;                                                                                   \
        kind = k;                                                                                           \
    }
        CALIB_FIELDS(X)
#undef X
        if (field < 0 || *end || end == val) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %s '%s'", path, lineno, field >= 0 ? "bad number" : "unknown key",
                         field >= 0 ? val : key);
            goto done;
        }
        if (at[field]) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %s given again (first on line %d)", path, lineno, key, at[field]);
            goto done;
        }
        if (!in_range(v, kind)) {
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: %s = %s, must be %s", path, lineno, key, val, range_text[kind]);
            goto done;
        }
        at[field] = lineno;
        seen++;
    }
    if (seen == 0) {
        st = TL_FAIL(TL_ERR_PARSE, "%s: no calibration values", path);
        goto done;
    }
    /* a value left out would be simulated as 0 (no NCCL rate, no bandwidth) */
#define X(name, k, what)                                                                                    \
    if (!at[F_##name]) {                                                                                    \
        st = TL_FAIL(TL_ERR_PARSE, "%s: no %s (%s; trilap-model calibrate writes every value)", path, #name, \
                     what);                                                                                 \
        goto done;                                                                                          \
    }
    CALIB_FIELDS(X)
#undef X
done:
    free(line);
    fclose(f);
    return st;
}

void tl_mcalib_print(const tl_mcalib *c, FILE *out, const char *prefix)
{
#define X(name, kind, what) fprintf(out, "%s%-20s = %-12.6g # %s\n", prefix, #name, c->name, what);
    CALIB_FIELDS(X)
#undef X
}

/* The n-th word of c->source (calibrate writes its inputs there in the
 * order it reads them: --tristream, --traces, --comm, --stream), or the
 * whole line where it does not hold those four words (edited by hand, or
 * a path with a blank). */
static const char *source_word(const tl_mcalib *c, int n, char *buf, size_t size)
{
    const char *p = c->source;
    int words = 0;
    for (const char *q = p; *q; q += strspn(q, " ")) {
        size_t len = strcspn(q, " ");
        if (words++ == n) snprintf(buf, size, "%.*s", (int)len, q);
        q += len;
    }
    int none = !c->source[0] || strcmp(c->source, "-") == 0;
    if (words != 4 || n >= words) snprintf(buf, size, "%s", none ? "(the calibration names no source)" : c->source);
    return buf;
}

void tl_mcalib_print_origins(const tl_mcalib *c, FILE *out, const char *prefix)
{
    char tri[sizeof c->source], traces[sizeof c->source], comm[sizeof c->source];
    source_word(c, 0, tri, sizeof tri);
    source_word(c, 1, traces, sizeof traces);
    source_word(c, 2, comm, sizeof comm);
    fprintf(out, "%salpha_coll_us %g: fitted, a simulated 16 B allreduce on two GPUs of h200-nvlink = "
                 "comm_allreduce16_us %g of %s\n", prefix, c->alpha_coll_us, c->comm_allreduce16_us, comm);
    fprintf(out, "%salpha_p2p_us %g: fitted, a simulated 8 B send/recv on the same = comm_sendrecv8_us %g of %s\n",
            prefix, c->alpha_p2p_us, c->comm_sendrecv8_us, comm);
    fprintf(out, "%snccl_rate %g: fitted, the simulated microbenchmark's three-split (ring and allreduce on two "
                 "communicators beside a %g us DAXPY) = ts_split_us %g, the median three-split of %s\n",
            prefix, c->nccl_rate, c->ts_daxpy_us, c->ts_split_us, tri);
    fprintf(out, "%sxstream_us %g: measured, xstream_cross_us %g - xstream_same_us %g in the traces %s\n", prefix,
            c->xstream_us, c->xstream_cross_us, c->xstream_same_us, traces);
    /* the roof fit only where both are its values: one given to
     * calibrate was said to be it */
    int roof = c->pcg_fixed_us == strtod(TL_MCALIB_ROOF_FIXED_US, NULL) &&
               c->pcg_bw_frac == strtod(TL_MCALIB_ROOF_BW_FRAC, NULL);
    if (roof)
        fprintf(out, "%spcg_fixed_us %g, pcg_bw_frac %g: calibrate's --pcg-fixed-us and --pcg-bw-frac (their "
                     "defaults: the roof fit of results/solver-fixed-cost-h200, measured)\n",
                prefix, c->pcg_fixed_us, c->pcg_bw_frac);
    else
        fprintf(out, "%spcg_fixed_us %g, pcg_bw_frac %g: given to calibrate (--pcg-fixed-us, --pcg-bw-frac), not the "
                     "roof fit of results/solver-fixed-cost-h200 (%s, %s)\n",
                prefix, c->pcg_fixed_us, c->pcg_bw_frac, TL_MCALIB_ROOF_FIXED_US, TL_MCALIB_ROOF_BW_FRAC);
}

tl_status tl_mcalib_save(const tl_mcalib *c, const char *path)
{
    tl_out o; /* "-" is stdout */
    TL_TRY(tl_out_open(&o, path));
    fprintf(o.f, "# trilap-model calibration: measured values and the parameters fitted on them\n");
    fprintf(o.f, "source = %s\n", c->source[0] ? c->source : "-");
    if (!strcmp(c->gpu, TL_MCALIB_GPU_UNNAMED)) /* said, where no key was a file from before the key */
        fprintf(o.f, "gpu = %s  # no manifest, stream.csv device column or trace of the inputs named the GPU "
                     "measured\n", c->gpu);
    else if (c->gpu[0])
        fprintf(o.f, "gpu = %s\n", c->gpu);
    if (c->gpu_mem_gbs > 0) fprintf(o.f, "gpu_mem_gbs = %.9g\n", c->gpu_mem_gbs);
    tl_mcalib_print(c, o.f, "");
    return tl_out_close(&o, 1);
}
