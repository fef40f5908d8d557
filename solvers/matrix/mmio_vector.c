/* Matrix Market vectors: array n x 1 or 1 x n (a coordinate n x 1 file
 * too), real or integer; an integer vector (a partition file) refuses a
 * value that is not a whole number. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/input_check.h"
#include "solvers/matrix/mmio_impl.h"

#include <math.h>
#include <stdlib.h>

/* An integer that a double holds exactly (a part number). */
static int whole_number(double x)
{
    return x == floor(x) && fabs(x) < 9.0e15;
}

/* Vector: array (dense) n x 1 or 1 x n; a coordinate n x 1 file is
 * accepted too (missing entries are zero). `integral`: values must be
 * whole numbers (partition files). */
static tl_status read_vector_src(tl_mm_src *s, int64_t expect_n, int integral, double **out,
                                 int64_t *nout)
{
    tl_mm_header h;
    double *v = NULL;
    tl_mm_trip t = {0};
    tl_status st = TL_OK;
    *out = NULL;
    TL_TRY(tl_mm_read_header(&*s, &h, 0));
    TL_INPUT_CHECK(h.nrows == 1 || h.ncols == 1, TL_ERR_PARSE,
                   "%s: a %lld x %lld matrix where a vector is needed", s->name, (long long)h.nrows,
                   (long long)h.ncols);
    TL_INPUT_CHECK(h.symmetry == TL_MM_GENERAL, TL_ERR_PARSE, "%s:1: a vector must be 'general'",
                   s->name);
    int64_t n = h.nrows == 1 ? h.ncols : h.nrows;
    if (h.nrows == 1 && h.ncols == 1) n = 1;
    TL_INPUT_CHECK(expect_n < 0 || n == expect_n, TL_ERR_PARSE,
                   "%s: wrong length: %lld entries, expected %lld", s->name, (long long)n,
                   (long long)expect_n);
    if (h.format == TL_MM_COORD) {
        TL_TRY(tl_mm_check_memory(s, &h));
        TL_TRYGOTO(tl_mm_read_coord(s, &h, &t), st, fail);
        v = calloc(n ? (size_t)n : 1, sizeof *v);
        TL_INPUT_CHECKGOTO(v, TL_ERR_NOMEM, st, fail, "%s: vector of %lld", s->name, (long long)n);
        for (int64_t k = 0; k < t.n; k++)
            v[h.ncols == 1 ? t.i[k] : t.j[k]] += t.v[k];
    } else {
        int64_t cap = n < 65536 ? n : 65536, got = 0;
        v = malloc((cap ? (size_t)cap : 1) * sizeof *v);
        TL_INPUT_CHECKGOTO(v, TL_ERR_NOMEM, st, fail, "%s: vector of %lld", s->name, (long long)n);
        char *line;
        for (;;) {
            TL_TRYGOTO(tl_mm_src_data_line(s, &line), st, fail);
            if (!line) break;
            const char *p = line;
            TL_INPUT_CHECKGOTO(got < n, TL_ERR_PARSE, st, fail,
                               "%s:%lld: wrong counts: more values than the %lld declared", s->name,
                               (long long)s->lineno, (long long)n);
            if (got == cap) {
                cap = cap * 2 < n ? cap * 2 : n;
                double *nv = realloc(v, (size_t)cap * sizeof *nv);
                TL_INPUT_CHECKGOTO(nv, TL_ERR_NOMEM, st, fail, "%s: vector of %lld", s->name,
                                   (long long)cap);
                v = nv;
            }
            int rc;
            if (h.field == TL_MM_INTEGER) {
                int64_t iv = 0;
                rc = tl_mm_parse_i64(&p, &iv);
                v[got] = (double)iv;
            } else {
                rc = tl_mm_parse_f64(&p, &v[got]);
            }
            TL_INPUT_CHECKGOTO(rc == 0, TL_ERR_PARSE, st, fail, "%s:%lld: value %s%s", s->name,
                               (long long)s->lineno, tl_mm_num_reason(rc),
                               h.field == TL_MM_INTEGER ? " (the banner says integer)" : "");
            TL_INPUT_CHECKGOTO(tl_mm_is_blank(p), TL_ERR_PARSE, st, fail,
                               "%s:%lld: more than one value on the line", s->name,
                               (long long)s->lineno);
            TL_INPUT_CHECKGOTO(!integral || whole_number(v[got]), TL_ERR_PARSE, st, fail,
                               "%s:%lld: value %g is not an integer", s->name, (long long)s->lineno, v[got]);
            got++;
        }
        TL_INPUT_CHECKGOTO(got == n, TL_ERR_PARSE, st, fail,
                           "%s:%lld: truncated file: %lld of %lld declared values", s->name,
                           (long long)s->lineno, (long long)got, (long long)n);
    }
    /* a coordinate file's entry may be the sum of several lines: no one line to name */
    if (integral && h.format == TL_MM_COORD)
        for (int64_t k = 0; k < n; k++)
            TL_INPUT_CHECKGOTO(whole_number(v[k]), TL_ERR_PARSE, st, fail,
                               "%s: entry %lld: %g is not an integer", s->name, (long long)k + 1,
                               v[k]);
    *out = v;
    *nout = n;
    v = NULL;
fail:
    free(v);
    tl_mm_trip_free(&t);
    return st;
}

tl_status tl_mm_read_vector(const char *path, int64_t expect_n, double **v, int64_t *n)
{
    tl_mm_src s;
    tl_status st = tl_mm_src_open_file(&s, path);
    if (st == TL_OK) st = read_vector_src(&s, expect_n, 0, v, n);
    tl_mm_src_close(&s);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

tl_status tl_mm_read_ivector(const char *path, int64_t expect_n, int64_t **v, int64_t *n)
{
    tl_mm_src s;
    double *d = NULL;
    *v = NULL;
    tl_status st = tl_mm_src_open_file(&s, path);
    if (st == TL_OK) st = read_vector_src(&s, expect_n, 1, &d, n);
    tl_mm_src_close(&s);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    int64_t *iv = malloc((*n ? (size_t)*n : 1) * sizeof *iv);
    if (!iv) {
        free(d);
        return TL_FAIL(TL_ERR_NOMEM, "%s: vector of %lld", path, (long long)*n);
    }
    for (int64_t k = 0; k < *n; k++)
        iv[k] = (int64_t)d[k];
    free(d);
    *v = iv;
    return TL_OK;
}
