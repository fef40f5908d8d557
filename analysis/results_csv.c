/* Results CSV, grouped by (variant, nranks): microbenchmark results
 * (columns variant, nranks, rep, us_per_iter, ... in any order; '#' lines
 * skipped) and trilap-solve --results files, whose variant is named by
 * their solver, precond, schedule, backend and matrix columns. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

/* Split one CSV line in place (RFC 4180 quotes); returns the field count. */
static int split_csv(char *line, char **f, int maxf)
{
    int n = 0;
    char *p = line;
    while (n < maxf) {
        if (*p == '"') {
            char *w = ++p;
            f[n++] = w;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"') p++;
                *w++ = *p++;
            }
            if (*p == '"') p++;
            *w = '\0';
            if (*p == ',') p++;
            else break;
            continue;
        }
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

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

tl_status tl_an_results_read(const char *path, const char *xcol, tl_an_result **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    /* checked before the open, which would wait for a FIFO's writer */
    if (tl_an_is_special(path)) return TL_FAIL(TL_ERR_IO, "%s: a pipe or a device: results are read from files", path);
    FILE *fp = fopen(path, "r");
    if (!fp) return TL_FAIL(TL_ERR_IO, "%s: cannot open results file: %s", path, strerror(errno));
    tl_status st = TL_OK;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0;
    int cv = -1, cn = -1, cu = -1, cx = -1, have_header = 0, ck[NSOLVE_KEYS];
    for (int k = 0; k < NSOLVE_KEYS; k++) ck[k] = -1;
    tl_an_result *g = NULL;
    double **samples = NULL;
    char **confs = NULL;   /* with xcol (a sweep): each group's configuration, from its first row */
    long *first_line = NULL;
    int cc[MAXF], ncc = 0; /* the configuration columns */
    char *hdr[MAXF];       /* the header's names (strdup'd for the configuration columns) */
    size_t ng = 0;
    char *f[MAXF];
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') continue;
        int nf = split_csv(line, f, MAXF);
        if (!have_header) {
            for (int i = 0; i < nf; i++) {
                if (!strcmp(f[i], "variant")) cv = i;
                if (!strcmp(f[i], "nranks")) cn = i;
                if (!strcmp(f[i], "us_per_iter")) cu = i;
                if (xcol && !strcmp(f[i], xcol)) cx = i;
                for (int k = 0; k < NSOLVE_KEYS; k++)
                    if (!strcmp(f[i], solve_keys[k])) ck[k] = i;
            }
            if (cv < 0 && ck[0] >= 0) cv = ck[0]; /* a trilap-solve results file */
            else
                for (int k = 0; k < NSOLVE_KEYS; k++) ck[k] = -1;
            TL_CHECKGOTO(!xcol || cx >= 0, TL_ERR_PARSE, st, fail, "%s:%ld: header lacks the column %s", path, lineno,
                         xcol);
            for (int i = 0; xcol && i < nf; i++)
                if (i != cx && !measured_or_key(f[i])) {
                    hdr[ncc] = strdup(f[i]);
                    TL_CHECKGOTO(hdr[ncc], TL_ERR_NOMEM, st, fail, "header");
                    cc[ncc++] = i;
                }
            TL_CHECKGOTO(cv >= 0 && cn >= 0 && cu >= 0, TL_ERR_PARSE, st, fail,
                         "%s:%ld: not a results file: its header lacks %s (trilap-bench and trilap-solve "
                               "--results files have them)",
                               path, lineno,
                               cv < 0 ? "a variant (or solver) column" : cn < 0 ? "nranks" : "us_per_iter");
            have_header = 1;
            continue;
        }
        int need = cv > cn ? (cv > cu ? cv : cu) : (cn > cu ? cn : cu);
        if (cx > need) need = cx;
        for (int k = 0; k < NSOLVE_KEYS; k++)
            if (ck[k] > need) need = ck[k];
        for (int k = 0; k < ncc; k++)
            if (cc[k] > need) need = cc[k];
        TL_CHECKGOTO(nf > need, TL_ERR_PARSE, st, fail, "%s:%ld: %d fields, expected at least %d", path, lineno, nf,
                     need + 1);
        char *end = NULL;
        errno = 0;
        double us = strtod(f[cu], &end);
        TL_CHECKGOTO(!errno && end != f[cu] && *end == '\0' && isfinite(us) && us >= 0, TL_ERR_PARSE, st, fail,
                     "%s:%ld: bad us_per_iter '%s'", path, lineno, f[cu]);
        long nr = strtol(f[cn], &end, 10);
        TL_CHECKGOTO(end != f[cn] && *end == '\0' && nr > 0, TL_ERR_PARSE, st, fail, "%s:%ld: bad nranks '%s'", path,
                     lineno, f[cn]);
        double x = 0;
        if (cx >= 0) {
            errno = 0;
            x = strtod(f[cx], &end);
            TL_CHECKGOTO(!errno && end != f[cx] && *end == '\0' && isfinite(x), TL_ERR_PARSE, st, fail,
                         "%s:%ld: bad %s '%s'", path, lineno, xcol, f[cx]);
        }
        char variant[sizeof g->variant];
        if (ck[0] >= 0)
            solve_variant(f, ck, variant, sizeof variant);
        else
            snprintf(variant, sizeof variant, "%s", f[cv]);
        size_t k = 0;
        while (k < ng && !(strcmp(g[k].variant, variant) == 0 && g[k].nranks == nr && g[k].x == x)) k++;
        char *conf = NULL;
        if (xcol) {
            conf = conf_of(f, cc, ncc);
            TL_CHECKGOTO(conf, TL_ERR_NOMEM, st, fail, "row");
        }
        if (k < ng && conf && strcmp(conf, confs[k]) != 0) {
            /* a sweep's point pools its rows as repetitions: rows of one
             * point in two configurations would be averaged into one */
            int d = 0;
            char a[96], b[96];
            while (d < ncc && !strcmp(conf_field(conf, d, a, sizeof a), conf_field(confs[k], d, b, sizeof b))) d++;
            free(conf);
            st = TL_FAIL(TL_ERR_PARSE,
                         "%s:%ld: %s, %ld ranks, %s %s again with %s %s (line %ld: %s): sweep takes a point's "
                         "rows as repetitions of one configuration; give it a file whose %s is one value (sweep "
                         "has no filter: keep the header and those rows)",
                         path, lineno, variant, nr, xcol, f[cx], d < ncc ? hdr[d] : "?",
                         d < ncc ? f[cc[d]] : "?", first_line[k], b, d < ncc ? hdr[d] : "?");
            goto fail;
        }
        if (k == ng) {
            tl_an_result *ngp = realloc(g, (ng + 1) * sizeof *ngp);
            if (!ngp) free(conf);
            TL_CHECKGOTO(ngp, TL_ERR_NOMEM, st, fail, "results");
            g = ngp;
            double **ns = realloc(samples, (ng + 1) * sizeof *ns);
            if (!ns) free(conf);
            TL_CHECKGOTO(ns, TL_ERR_NOMEM, st, fail, "results");
            samples = ns;
            char **nc = realloc(confs, (ng + 1) * sizeof *nc);
            if (!nc) free(conf);
            TL_CHECKGOTO(nc, TL_ERR_NOMEM, st, fail, "results");
            confs = nc;
            long *nl = realloc(first_line, (ng + 1) * sizeof *nl);
            if (!nl) free(conf);
            TL_CHECKGOTO(nl, TL_ERR_NOMEM, st, fail, "results");
            first_line = nl;
            confs[ng] = conf;
            first_line[ng] = lineno;
            conf = NULL;
            memset(&g[ng], 0, sizeof g[ng]);
            snprintf(g[ng].variant, sizeof g[ng].variant, "%s", variant);
            g[ng].nranks = (int)nr;
            g[ng].x = x;
            samples[ng] = NULL;
            ng++;
        }
        free(conf);
        double *s = realloc(samples[k], (size_t)(g[k].n + 1) * sizeof *s);
        TL_CHECKGOTO(s, TL_ERR_NOMEM, st, fail, "samples");
        samples[k] = s;
        s[g[k].n++] = us;
    }
    TL_CHECKGOTO(have_header, TL_ERR_PARSE, st, fail, "%s: no header row", path);
    TL_CHECKGOTO(ng > 0, TL_ERR_PARSE, st, fail, "%s: no result rows", path);
    for (size_t k = 0; k < ng; k++) {
        size_t n = (size_t)g[k].n;
        qsort(samples[k], n, sizeof *samples[k], cmp_d);
        g[k].min = samples[k][0];
        g[k].max = samples[k][n - 1];
        g[k].median = n % 2 ? samples[k][n / 2] : 0.5 * (samples[k][n / 2 - 1] + samples[k][n / 2]);
    }
    *out = g;
    *nout = ng;
    g = NULL;
fail:
    for (size_t k = 0; samples && k < ng; k++) free(samples[k]);
    for (size_t k = 0; confs && k < ng; k++) free(confs[k]);
    for (int k = 0; k < ncc; k++) free(hdr[k]);
    free(confs);
    free(first_line);
    free(samples);
    free(g);
    free(line);
    fclose(fp);
    return st;
}
