/* Matrix Market coordinate matrices read into CSR: a strict entry parser
 * that names file, line and reason, and CSR assembly by two stable counting
 * sorts (columns, then rows), so rows come out sorted in O(nnz + n) and
 * duplicates are adjacent for summing. Its parts: the line source
 * (mmio_src.c), the numbers (mmio_lex.c), the header (mmio_header.c);
 * vectors are mmio_vector.c, the writers mmio_write.c. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/input_check.h"
#include "solvers/matrix/mmio_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/hostmem.h"

static tl_status trip_push(tl_mm_trip *t, int64_t i, int64_t j, double v, const char *name)
{
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 4096;
        int64_t *ni = realloc(t->i, (size_t)cap * sizeof *ni);
        if (ni) t->i = ni;
        int64_t *nj = realloc(t->j, (size_t)cap * sizeof *nj);
        if (nj) t->j = nj;
        double *nv = realloc(t->v, (size_t)cap * sizeof *nv);
        if (nv) t->v = nv;
        if (!ni || !nj || !nv)
            return TL_FAIL(TL_ERR_NOMEM, "%s: %lld entries", name, (long long)cap);
        t->cap = cap;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->v[t->n] = v;
    t->n++;
    return TL_OK;
}

void tl_mm_trip_free(tl_mm_trip *t)
{
    free(t->i);
    free(t->j);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* Read the coordinate entries, expanding symmetric storage. A symmetric
 * file holds one triangle (the spec says the lower; files of the upper
 * alone are read as well): entries in both would each be mirrored onto the
 * other, every such pair counted twice, so a file with both is refused
 * (often a general matrix under a symmetric banner). */
tl_status tl_mm_read_coord(tl_mm_src *s, const tl_mm_header *h, tl_mm_trip *t)
{
    char *line;
    long long triangle_line[2] = {0, 0}; /* the first entry below, above the diagonal */
    for (int64_t e = 0;; e++) {
        TL_TRY(tl_mm_src_data_line(s, &line));
        if (!line) {
            if (e < h->nentries)
                return TL_FAIL(TL_ERR_PARSE,
                               "%s:%lld: truncated file: %lld of %lld declared entries", s->name,
                               (long long)s->lineno, (long long)e, (long long)h->nentries);
            return TL_OK;
        }
        if (e >= h->nentries)
            return TL_FAIL(TL_ERR_PARSE,
                           "%s:%lld: wrong counts: more entries than the %lld declared", s->name,
                           (long long)s->lineno, (long long)h->nentries);
        const char *p = line;
        int64_t i, j;
        double v = 1.0;
        int rc = tl_mm_parse_i64(&p, &i);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: row index %s", s->name, (long long)s->lineno,
                           tl_mm_num_reason(rc));
        rc = tl_mm_parse_i64(&p, &j);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: column index %s", s->name, (long long)s->lineno,
                           tl_mm_num_reason(rc));
        if (h->field == TL_MM_REAL) {
            rc = tl_mm_parse_f64(&p, &v);
            if (rc)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: value %s", s->name, (long long)s->lineno,
                               tl_mm_num_reason(rc));
        } else if (h->field == TL_MM_INTEGER) {
            int64_t iv;
            rc = tl_mm_parse_i64(&p, &iv);
            if (rc)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: value %s (the banner says integer)", s->name,
                               (long long)s->lineno, tl_mm_num_reason(rc));
            v = (double)iv;
        }
        if (!tl_mm_is_blank(p))
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: unexpected text after the entry: '%.40s'",
                           s->name, (long long)s->lineno, p);
        if (i < 1 || i > h->nrows)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: row index %lld out of range [1, %lld]", s->name,
                           (long long)s->lineno, (long long)i, (long long)h->nrows);
        if (j < 1 || j > h->ncols)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: column index %lld out of range [1, %lld]",
                           s->name, (long long)s->lineno, (long long)j, (long long)h->ncols);
        if (h->symmetry == TL_MM_SKEW && i == j && v != 0.0)
            return TL_FAIL(TL_ERR_PARSE,
                           "%s:%lld: skew-symmetric matrix with a nonzero diagonal entry", s->name,
                           (long long)s->lineno);
        if (h->symmetry != TL_MM_GENERAL && i != j) {
            int above = j > i;
            if (!triangle_line[above]) triangle_line[above] = (long long)s->lineno;
            if (triangle_line[!above])
                return TL_FAIL(TL_ERR_PARSE,
                               "%s:%lld: entry (%lld, %lld) %s the diagonal, where line %lld holds one %s it: a %s "
                               "file stores one triangle, and each pair in both would count twice (a general matrix? "
                               "then say 'general' in the banner)",
                               s->name, (long long)s->lineno, (long long)i, (long long)j, above ? "above" : "below",
                               triangle_line[!above], above ? "below" : "above",
                               h->symmetry == TL_MM_SKEW ? "skew-symmetric" : "symmetric");
        }
        TL_TRY(trip_push(t, i - 1, j - 1, v, s->name));
        if (h->symmetry != TL_MM_GENERAL && i != j)
            TL_TRY(trip_push(t, j - 1, i - 1, h->symmetry == TL_MM_SKEW ? -v : v, s->name));
    }
}

/* Triplets -> CSR: stable counting sort by column, then by row; sum runs of
 * equal (row, column). */
static tl_status assemble(const tl_mm_trip *t, int64_t nrows, int64_t ncols, const char *name,
                          tl_csr *a)
{
    tl_status st = TL_OK;
    int64_t *cnt = NULL, *ti = NULL, *tj = NULL;
    double *tv = NULL;
    memset(a, 0, sizeof *a);
    int64_t n = t->n;
    int64_t m = nrows > ncols ? nrows : ncols;
    cnt = calloc((size_t)m + 1, sizeof *cnt);
    ti = malloc((n ? (size_t)n : 1) * sizeof *ti);
    tj = malloc((n ? (size_t)n : 1) * sizeof *tj);
    tv = malloc((n ? (size_t)n : 1) * sizeof *tv);
    TL_INPUT_CHECKGOTO(cnt && ti && tj && tv, TL_ERR_NOMEM, st, fail, "%s: assembling %lld entries",
                       name, (long long)n);
    for (int64_t k = 0; k < n; k++)
        cnt[t->j[k] + 1]++;
    for (int64_t c = 0; c < ncols; c++)
        cnt[c + 1] += cnt[c];
    for (int64_t k = 0; k < n; k++) {
        int64_t d = cnt[t->j[k]]++;
        ti[d] = t->i[k];
        tj[d] = t->j[k];
        tv[d] = t->v[k];
    }
    TL_TRYGOTO(tl_csr_alloc(a, nrows, ncols, n), st, fail);
    memset(cnt, 0, ((size_t)m + 1) * sizeof *cnt);
    for (int64_t k = 0; k < n; k++)
        cnt[ti[k] + 1]++;
    for (int64_t r = 0; r < nrows; r++)
        cnt[r + 1] += cnt[r];
    for (int64_t k = 0; k < n; k++) {
        int64_t d = cnt[ti[k]]++;
        a->colidx[d] = tj[k];
        a->val[d] = tv[k];
    }
    /* cnt[r] is now the end of row r; compact duplicates in place */
    int64_t out = 0, beg = 0;
    for (int64_t r = 0; r < nrows; r++) {
        int64_t end = cnt[r];
        a->rowptr[r] = out;
        for (int64_t k = beg; k < end; k++) {
            if (out > a->rowptr[r] && a->colidx[out - 1] == a->colidx[k]) {
                a->val[out - 1] += a->val[k];
            } else {
                a->colidx[out] = a->colidx[k];
                a->val[out] = a->val[k];
                out++;
            }
        }
        beg = end;
    }
    a->rowptr[nrows] = out;
    a->nnz = out;
fail:
    free(cnt);
    free(ti);
    free(tj);
    free(tv);
    if (st != TL_OK) tl_csr_free(a);
    return st;
}

/* What reading the declared matrix will claim at its peak, before any of
 * it is allocated: the triplets (24 B an entry, twice for symmetric
 * storage), assemble()'s counts and sorted copy (8 B a row or column, 24 B
 * an entry) and the CSR (8 B a row, 16 B an entry). A header declaring
 * 2e9 rows is refused here, not killed by the kernel 30 GB later. */
tl_status tl_mm_check_memory(const tl_mm_src *s, const tl_mm_header *h)
{
    double e = (double)h->nentries * (h->symmetry == TL_MM_GENERAL ? 1.0 : 2.0);
    double m = (double)(h->nrows > h->ncols ? h->nrows : h->ncols);
    double need = 8.0 * (m + 1) + 8.0 * ((double)h->nrows + 1) + e * (24.0 + 24.0 + 16.0);
    char what[512];
    snprintf(what, sizeof what, "%s:%lld: a %lld x %lld matrix with %lld entries", s->name,
             (long long)(s->lineno), (long long)h->nrows, (long long)h->ncols,
             (long long)h->nentries);
    return tl_hostmem_check(what, need);
}

static tl_status read_csr_src(tl_mm_src *s, int square, int64_t max_dim, tl_csr *a,
                              tl_mm_info *info)
{
    tl_mm_header h;
    tl_mm_trip t = {0};
    tl_status st = TL_OK;
    memset(a, 0, sizeof *a);
    TL_TRY(tl_mm_read_header(s, &h, max_dim));
    TL_INPUT_CHECK(h.format == TL_MM_COORD, TL_ERR_PARSE,
                   "%s:1: an array (dense) file where a coordinate matrix is needed", s->name);
    TL_INPUT_CHECK(!square || h.nrows == h.ncols, TL_ERR_PARSE,
                   TL_MM_NOT_SQUARE, s->name,
                   (long long)h.nrows, (long long)h.ncols);
    TL_TRY(tl_mm_check_memory(s, &h));
    TL_TRYGOTO(tl_mm_read_coord(s, &h, &t), st, fail);
    TL_TRYGOTO(assemble(&t, h.nrows, h.ncols, s->name, a), st, fail);
    if (info) {
        info->symmetry = h.symmetry;
        info->field = h.field;
        info->nrows = h.nrows;
        info->ncols = h.ncols;
        info->nentries = h.nentries;
    }
fail:
    tl_mm_trip_free(&t);
    return st;
}

tl_status tl_mm_read_csr(const char *path, int square, tl_csr *a, tl_mm_info *info)
{
    tl_mm_src s;
    tl_status st = tl_mm_src_open_file(&s, path);
    if (st == TL_OK) st = read_csr_src(&s, square, 0, a, info);
    tl_mm_src_close(&s);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

tl_status tl_mm_parse_csr(const char *name, const char *data, size_t len, int square,
                          int64_t max_dim, tl_csr *a, tl_mm_info *info)
{
    tl_mm_src s;
    tl_status st = tl_mm_src_open_mem(&s, name, data, len);
    if (st == TL_OK) st = read_csr_src(&s, square, max_dim, a, info);
    tl_mm_src_close(&s);
    return st;
}
