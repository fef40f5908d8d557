/* Matrix Market reader and writers. One buffered line source (zlib, stdio
 * or memory), a strict entry parser that names file, line and reason, and
 * CSR assembly by two stable counting sorts (columns, then rows), so rows
 * come out sorted in O(nnz + n) and duplicates are adjacent for summing. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/input_check.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "runtime/gzin.h"
#include "runtime/hostmem.h"
#include "solvers/matrix/outfile.h"

enum { MM_BUF = 1 << 20 }; /* also the longest accepted line */

typedef struct mm_src {
    const char *name;
    tl_gzin *in; /* a file, gzip or plain (runtime/gzin.h) */
    const char *mem;
    size_t memlen, mempos;
    char *buf;
    size_t cap; /* buffer bytes (plus one for a final NUL); the longest line */
    size_t beg, end;
    int eof;
    int64_t lineno;
} mm_src;

typedef enum { MM_COORD, MM_ARRAY } mm_format;

typedef struct mm_header {
    mm_format format;
    tl_mm_field field;
    tl_mm_symmetry symmetry;
    int64_t nrows, ncols, nentries;
} mm_header;

static tl_status src_open_file(mm_src *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->name = path;
    TL_TRY(tl_gzin_open(path, &s->in));
    s->cap = MM_BUF;
    s->buf = malloc(s->cap + 1);
    if (!s->buf) return TL_FAIL(TL_ERR_NOMEM, "%s: line buffer", path);
    return TL_OK;
}

static tl_status src_open_mem(mm_src *s, const char *name, const char *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->mem = data;
    s->memlen = len;
    s->cap = len < MM_BUF ? len + 1 : MM_BUF; /* small inputs (the fuzzer's) need no megabyte */
    s->buf = malloc(s->cap + 1);
    if (!s->buf) return TL_FAIL(TL_ERR_NOMEM, "%s: line buffer", name);
    return TL_OK;
}

static void src_close(mm_src *s)
{
    tl_gzin_close(s->in);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

/* Append more bytes after s->end; sets eof at the end of input. Errors
 * name the line being read. */
static tl_status src_fill(mm_src *s)
{
    size_t room = s->cap - s->end;
    size_t got = 0;
    if (s->mem) {
        got = s->memlen - s->mempos < room ? s->memlen - s->mempos : room;
        memcpy(s->buf + s->end, s->mem + s->mempos, got);
        s->mempos += got;
    } else {
        char where[4200];
        snprintf(where, sizeof where, "%s:%lld", s->name, (long long)s->lineno + 1);
        TL_TRY(tl_gzin_read(s->in, s->buf + s->end, room, &got, where));
    }
    s->end += got;
    if (got == 0) s->eof = 1;
    return TL_OK;
}

/* Next line, NUL-terminated, without its newline (and a trailing \r).
 * *line = NULL at the end of input. */
static tl_status src_line(mm_src *s, char **line)
{
    for (;;) {
        char *start = s->buf + s->beg;
        char *nl = memchr(start, '\n', s->end - s->beg);
        if (nl || (s->eof && s->end > s->beg)) {
            char *stop = nl ? nl : s->buf + s->end;
            s->beg = nl ? (size_t)(nl - s->buf) + 1 : s->end;
            s->lineno++;
            if (memchr(start, '\0', (size_t)(stop - start)) != NULL)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: binary data (a NUL byte) in a text file",
                               s->name, (long long)s->lineno);
            *stop = '\0';
            if (stop > start && stop[-1] == '\r') stop[-1] = '\0';
            *line = start;
            return TL_OK;
        }
        if (s->eof) {
            *line = NULL;
            return TL_OK;
        }
        if (s->beg > 0) {
            memmove(s->buf, s->buf + s->beg, s->end - s->beg);
            s->end -= s->beg;
            s->beg = 0;
        }
        if (s->end == s->cap)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: line longer than %zu bytes", s->name,
                           (long long)s->lineno + 1, s->cap);
        TL_TRY(src_fill(s));
    }
}

static int is_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v')
        p++;
    return *p == '\0';
}

/* Next line that is neither a comment nor blank. */
static tl_status src_data_line(mm_src *s, char **line)
{
    for (;;) {
        TL_TRY(src_line(s, line));
        if (!*line) return TL_OK;
        if ((*line)[0] != '%' && !is_blank(*line)) return TL_OK;
    }
}

static int at_token_end(const char *p)
{
    return *p == '\0' || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v';
}

/* A decimal number written with a fraction or an exponent (4.5, 1e3):
 * a number, but not an integer, which is what the user needs to hear. */
static int decimal_non_integer(const char *q)
{
    for (const char *c = q; !at_token_end(c); c++)
        if (*c == 'x' || *c == 'X') return 0;
    char *end;
    double x = strtod(q, &end);
    return end != q && at_token_end(end) && isfinite(x);
}

/* Parse one integer token at *p; 0 on success. */
static int parse_i64(const char **p, int64_t *v)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\0') return -1; /* missing */
    char *end;
    errno = 0;
    long long x = strtoll(q, &end, 10);
    if (end == q || !at_token_end(end)) return decimal_non_integer(q) ? -6 : -2;
    if (errno == ERANGE) return -3;
    *v = x;
    *p = end;
    return 0;
}

static int parse_f64(const char **p, double *v)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    if (*q == '\0') return -1;
    /* decimal only: strtod would also read 0x10 as 16 (inf and nan it
     * reads, and isfinite refuses below) */
    for (const char *c = q; !at_token_end(c); c++)
        if (*c == 'x' || *c == 'X') return -5;
    char *end;
    double x = strtod(q, &end);
    if (end == q || !at_token_end(end)) return -2;
    if (!isfinite(x)) return -4; /* NaN, Inf, or overflow */
    *v = x;
    *p = end;
    return 0;
}

static const char *num_reason(int rc)
{
    switch (rc) {
    case -1:
        return "missing";
    case -2:
        return "not a number";
    case -3:
        return "out of range";
    case -5:
        return "not a number (a hexadecimal one: Matrix Market values are decimal)";
    case -6:
        return "not an integer";
    default:
        return "not finite";
    }
}

/* Copy the next whitespace-separated word, lower-cased; NULL at the end. */
static const char *next_word(const char **p, char *out, size_t cap)
{
    const char *q = *p;
    while (*q == ' ' || *q == '\t')
        q++;
    size_t n = 0;
    while (!at_token_end(q)) {
        if (n + 1 < cap) out[n++] = (char)tolower((unsigned char)*q);
        q++;
    }
    out[n] = '\0';
    *p = q;
    return n ? out : NULL;
}

static tl_status read_header(mm_src *s, mm_header *h, int64_t max_dim)
{
    char *line;
    char w[5][32];
    memset(h, 0, sizeof *h);
    /* a binary matrix under another name (or through a pipe, which has none) */
    size_t nmagic = strlen(TL_BIN_MAGIC);
    while (s->end < nmagic && !s->eof)
        TL_TRY(src_fill(s));
    if (s->end >= nmagic && memcmp(s->buf, TL_BIN_MAGIC, nmagic) == 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: a trilap binary matrix, read as one by a file name ending in .tlcsr", s->name);
    TL_TRY(src_line(s, &line));
    if (!line)
        return TL_FAIL(TL_ERR_PARSE, "%s:1: empty file (expected a %%%%MatrixMarket banner)",
                       s->name);
    const char *p = line;
    if (!next_word(&p, w[0], sizeof w[0]) || strcmp(w[0], "%%matrixmarket") != 0)
        return TL_FAIL(
            TL_ERR_PARSE,
            "%s:1: bad banner: expected '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
            s->name);
    for (int k = 1; k < 5; k++)
        if (!next_word(&p, w[k], sizeof w[k]))
            return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: %d of 5 words", s->name, k);
    if (strcmp(w[1], "matrix") != 0)
        return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: object '%s' (only 'matrix' is supported)",
                       s->name, w[1]);
    if (strcmp(w[2], "coordinate") == 0)
        h->format = MM_COORD;
    else if (strcmp(w[2], "array") == 0)
        h->format = MM_ARRAY;
    else
        return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: format '%s' (coordinate or array)", s->name,
                       w[2]);
    if (strcmp(w[3], "real") == 0 || strcmp(w[3], "double") == 0)
        h->field = TL_MM_REAL;
    else if (strcmp(w[3], "integer") == 0)
        h->field = TL_MM_INTEGER;
    else if (strcmp(w[3], "pattern") == 0 && h->format == MM_COORD)
        h->field = TL_MM_PATTERN;
    else if (strcmp(w[3], "complex") == 0)
        return TL_FAIL(TL_ERR_UNSUPPORTED, "%s:1: complex matrices are not supported", s->name);
    else
        return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: field '%s' (real, integer or pattern)",
                       s->name, w[3]);
    if (strcmp(w[4], "general") == 0)
        h->symmetry = TL_MM_GENERAL;
    else if (strcmp(w[4], "symmetric") == 0 || strcmp(w[4], "hermitian") == 0)
        h->symmetry = TL_MM_SYMMETRIC;
    else if (strcmp(w[4], "skew-symmetric") == 0)
        h->symmetry = TL_MM_SKEW;
    else
        return TL_FAIL(TL_ERR_PARSE,
                       "%s:1: bad banner: symmetry '%s' (general, symmetric or skew-symmetric)",
                       s->name, w[4]);

    TL_TRY(src_data_line(s, &line));
    if (!line)
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: truncated file: no size line", s->name,
                       (long long)s->lineno);
    p = line;
    int64_t dims[3] = {0, 0, 0};
    int nd = h->format == MM_COORD ? 3 : 2;
    static const char *const dim_names[3] = {"row count", "column count", "entry count"};
    for (int k = 0; k < nd; k++) {
        int rc = parse_i64(&p, &dims[k]);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: bad size line: %s %s", s->name,
                           (long long)s->lineno, dim_names[k], num_reason(rc));
        if (dims[k] < 0)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: bad size line: negative %s", s->name,
                           (long long)s->lineno, dim_names[k]);
    }
    if (!is_blank(p))
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: bad size line: more than %d numbers", s->name,
                       (long long)s->lineno, nd);
    h->nrows = dims[0];
    h->ncols = dims[1];
    if (max_dim > 0 && (h->nrows > max_dim || h->ncols > max_dim))
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: %lld x %lld exceeds the limit %lld", s->name,
                       (long long)s->lineno, (long long)h->nrows, (long long)h->ncols,
                       (long long)max_dim);
    if (h->nrows > (INT64_MAX / 8) - 1 || h->ncols > (INT64_MAX / 8) - 1)
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: dimensions too large", s->name,
                       (long long)s->lineno);
    if (h->symmetry != TL_MM_GENERAL && h->nrows != h->ncols)
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: %s matrix is %lld x %lld, not square", s->name,
                       (long long)s->lineno,
                       h->symmetry == TL_MM_SKEW ? "skew-symmetric" : "symmetric",
                       (long long)h->nrows, (long long)h->ncols);
    if (h->format == MM_COORD) {
        /* no bound by rows x cols: duplicates are summed, so a 1 x 1 file
         * may hold its entry on several lines. A header lying about its
         * count costs nothing up front: the entries grow with the data
         * (trip_push), and check_memory refuses a count no host could
         * hold before anything is read. */
        h->nentries = dims[2];
    } else {
        if (h->ncols != 0 && h->nrows > INT64_MAX / 16 / h->ncols)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: array too large", s->name, (long long)s->lineno);
        h->nentries = h->nrows * h->ncols;
    }
    return TL_OK;
}

/* Growable triplet list. Grows with the file, not with the declared count,
 * so a lying header cannot make us allocate more than the data holds. */
typedef struct trip {
    int64_t *i, *j;
    double *v;
    int64_t n, cap;
} trip;

static tl_status trip_push(trip *t, int64_t i, int64_t j, double v, const char *name)
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

static void trip_free(trip *t)
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
static tl_status read_coord(mm_src *s, const mm_header *h, trip *t)
{
    char *line;
    long long triangle_line[2] = {0, 0}; /* the first entry below, above the diagonal */
    for (int64_t e = 0;; e++) {
        TL_TRY(src_data_line(s, &line));
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
        int rc = parse_i64(&p, &i);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: row index %s", s->name, (long long)s->lineno,
                           num_reason(rc));
        rc = parse_i64(&p, &j);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: column index %s", s->name, (long long)s->lineno,
                           num_reason(rc));
        if (h->field == TL_MM_REAL) {
            rc = parse_f64(&p, &v);
            if (rc)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: value %s", s->name, (long long)s->lineno,
                               num_reason(rc));
        } else if (h->field == TL_MM_INTEGER) {
            int64_t iv;
            rc = parse_i64(&p, &iv);
            if (rc)
                return TL_FAIL(TL_ERR_PARSE, "%s:%lld: value %s (the banner says integer)", s->name,
                               (long long)s->lineno, num_reason(rc));
            v = (double)iv;
        }
        if (!is_blank(p))
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
static tl_status assemble(const trip *t, int64_t nrows, int64_t ncols, const char *name, tl_csr *a)
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
static tl_status check_memory(const mm_src *s, const mm_header *h)
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

static tl_status read_csr_src(mm_src *s, int square, int64_t max_dim, tl_csr *a, tl_mm_info *info)
{
    mm_header h;
    trip t = {0};
    tl_status st = TL_OK;
    memset(a, 0, sizeof *a);
    TL_TRY(read_header(s, &h, max_dim));
    TL_INPUT_CHECK(h.format == MM_COORD, TL_ERR_PARSE,
                   "%s:1: an array (dense) file where a coordinate matrix is needed", s->name);
    TL_INPUT_CHECK(!square || h.nrows == h.ncols, TL_ERR_PARSE,
                   TL_MM_NOT_SQUARE, s->name,
                   (long long)h.nrows, (long long)h.ncols);
    TL_TRY(check_memory(s, &h));
    TL_TRYGOTO(read_coord(s, &h, &t), st, fail);
    TL_TRYGOTO(assemble(&t, h.nrows, h.ncols, s->name, a), st, fail);
    if (info) {
        info->symmetry = h.symmetry;
        info->field = h.field;
        info->nrows = h.nrows;
        info->ncols = h.ncols;
        info->nentries = h.nentries;
    }
fail:
    trip_free(&t);
    return st;
}

tl_status tl_mm_read_csr(const char *path, int square, tl_csr *a, tl_mm_info *info)
{
    mm_src s;
    tl_status st = src_open_file(&s, path);
    if (st == TL_OK) st = read_csr_src(&s, square, 0, a, info);
    src_close(&s);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

tl_status tl_mm_parse_csr(const char *name, const char *data, size_t len, int square,
                          int64_t max_dim, tl_csr *a, tl_mm_info *info)
{
    mm_src s;
    tl_status st = src_open_mem(&s, name, data, len);
    if (st == TL_OK) st = read_csr_src(&s, square, max_dim, a, info);
    src_close(&s);
    return st;
}

/* An integer that a double holds exactly (a part number). */
static int whole_number(double x)
{
    return x == floor(x) && fabs(x) < 9.0e15;
}

/* Vector: array (dense) n x 1 or 1 x n; a coordinate n x 1 file is
 * accepted too (missing entries are zero). `integral`: values must be
 * whole numbers (partition files). */
static tl_status read_vector_src(mm_src *s, int64_t expect_n, int integral, double **out,
                                 int64_t *nout)
{
    mm_header h;
    double *v = NULL;
    trip t = {0};
    tl_status st = TL_OK;
    *out = NULL;
    TL_TRY(read_header(&*s, &h, 0));
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
    if (h.format == MM_COORD) {
        TL_TRY(check_memory(s, &h));
        TL_TRYGOTO(read_coord(s, &h, &t), st, fail);
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
            TL_TRYGOTO(src_data_line(s, &line), st, fail);
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
                rc = parse_i64(&p, &iv);
                v[got] = (double)iv;
            } else {
                rc = parse_f64(&p, &v[got]);
            }
            TL_INPUT_CHECKGOTO(rc == 0, TL_ERR_PARSE, st, fail, "%s:%lld: value %s%s", s->name,
                               (long long)s->lineno, num_reason(rc),
                               h.field == TL_MM_INTEGER ? " (the banner says integer)" : "");
            TL_INPUT_CHECKGOTO(is_blank(p), TL_ERR_PARSE, st, fail,
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
    if (integral && h.format == MM_COORD)
        for (int64_t k = 0; k < n; k++)
            TL_INPUT_CHECKGOTO(whole_number(v[k]), TL_ERR_PARSE, st, fail,
                               "%s: entry %lld: %g is not an integer", s->name, (long long)k + 1,
                               v[k]);
    *out = v;
    *nout = n;
    v = NULL;
fail:
    free(v);
    trip_free(&t);
    return st;
}

tl_status tl_mm_read_vector(const char *path, int64_t expect_n, double **v, int64_t *n)
{
    mm_src s;
    tl_status st = src_open_file(&s, path);
    if (st == TL_OK) st = read_vector_src(&s, expect_n, 0, v, n);
    src_close(&s);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

tl_status tl_mm_read_ivector(const char *path, int64_t expect_n, int64_t **v, int64_t *n)
{
    mm_src s;
    double *d = NULL;
    *v = NULL;
    tl_status st = src_open_file(&s, path);
    if (st == TL_OK) st = read_vector_src(&s, expect_n, 1, &d, n);
    src_close(&s);
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

tl_status tl_mm_write_vector(const char *path, const double *v, int64_t n)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(tl_outfile_printf(
                   f,
                   "%%%%MatrixMarket matrix array real general\n%%%% written by trilap\n%lld 1\n",
                   (long long)n),
               st, fail);
    for (int64_t k = 0; k < n; k++)
        TL_TRYGOTO(tl_outfile_printf(f, "%.17g\n", v[k]), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}

tl_status tl_mm_write_ivector(const char *path, const int64_t *v, int64_t n)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(
        tl_outfile_printf(
            f, "%%%%MatrixMarket matrix array integer general\n%%%% written by trilap\n%lld 1\n",
            (long long)n),
        st, fail);
    for (int64_t k = 0; k < n; k++)
        TL_TRYGOTO(tl_outfile_printf(f, "%lld\n", (long long)v[k]), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}

tl_status tl_mm_write_csr(const char *path, const tl_csr *a, int symmetric)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    int64_t nnz = 0;
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            nnz += !symmetric || a->colidx[k] <= i;
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(
        tl_outfile_printf(
            f,
            "%%%%MatrixMarket matrix coordinate real %s\n%%%% written by trilap\n%lld %lld %lld\n",
            symmetric ? "symmetric" : "general", (long long)a->nrows, (long long)a->ncols,
            (long long)nnz),
        st, fail);
    for (int64_t i = 0; i < a->nrows; i++)
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            if (!symmetric || a->colidx[k] <= i)
                TL_TRYGOTO(tl_outfile_printf(f, "%lld %lld %.17g\n", (long long)i + 1,
                                             (long long)a->colidx[k] + 1, a->val[k]),
                           st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}
