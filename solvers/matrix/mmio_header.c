/* The Matrix Market header: the banner (object, format, field, symmetry)
 * and the size line, checked before anything of that size is allocated; a
 * trilap binary matrix under another name is named as one. */
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/mmio_impl.h"

#include <stdint.h>
#include <string.h>

tl_status tl_mm_read_header(tl_mm_src *s, tl_mm_header *h, int64_t max_dim)
{
    char *line;
    char w[5][32];
    memset(h, 0, sizeof *h);
    /* a binary matrix under another name (or through a pipe, which has none) */
    size_t nmagic = strlen(TL_BIN_MAGIC);
    while (s->end < nmagic && !s->eof)
        TL_TRY(tl_mm_src_fill(s));
    if (s->end >= nmagic && memcmp(s->buf, TL_BIN_MAGIC, nmagic) == 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: a trilap binary matrix, read as one by a file name ending in .tlcsr", s->name);
    TL_TRY(tl_mm_src_line(s, &line));
    if (!line)
        return TL_FAIL(TL_ERR_PARSE, "%s:1: empty file (expected a %%%%MatrixMarket banner)",
                       s->name);
    const char *p = line;
    if (!tl_mm_next_word(&p, w[0], sizeof w[0]) || strcmp(w[0], "%%matrixmarket") != 0)
        return TL_FAIL(
            TL_ERR_PARSE,
            "%s:1: bad banner: expected '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
            s->name);
    for (int k = 1; k < 5; k++)
        if (!tl_mm_next_word(&p, w[k], sizeof w[k]))
            return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: %d of 5 words", s->name, k);
    if (strcmp(w[1], "matrix") != 0)
        return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: object '%s' (only 'matrix' is supported)",
                       s->name, w[1]);
    if (strcmp(w[2], "coordinate") == 0)
        h->format = TL_MM_COORD;
    else if (strcmp(w[2], "array") == 0)
        h->format = TL_MM_ARRAY;
    else
        return TL_FAIL(TL_ERR_PARSE, "%s:1: bad banner: format '%s' (coordinate or array)", s->name,
                       w[2]);
    if (strcmp(w[3], "real") == 0 || strcmp(w[3], "double") == 0)
        h->field = TL_MM_REAL;
    else if (strcmp(w[3], "integer") == 0)
        h->field = TL_MM_INTEGER;
    else if (strcmp(w[3], "pattern") == 0 && h->format == TL_MM_COORD)
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

    TL_TRY(tl_mm_src_data_line(s, &line));
    if (!line)
        return TL_FAIL(TL_ERR_PARSE, "%s:%lld: truncated file: no size line", s->name,
                       (long long)s->lineno);
    p = line;
    int64_t dims[3] = {0, 0, 0};
    int nd = h->format == TL_MM_COORD ? 3 : 2;
    static const char *const dim_names[3] = {"row count", "column count", "entry count"};
    for (int k = 0; k < nd; k++) {
        int rc = tl_mm_parse_i64(&p, &dims[k]);
        if (rc)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: bad size line: %s %s", s->name,
                           (long long)s->lineno, dim_names[k], tl_mm_num_reason(rc));
        if (dims[k] < 0)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: bad size line: negative %s", s->name,
                           (long long)s->lineno, dim_names[k]);
    }
    if (!tl_mm_is_blank(p))
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
    if (h->format == TL_MM_COORD) {
        /* no bound by rows x cols: duplicates are summed, so a 1 x 1 file
         * may hold its entry on several lines. A header lying about its
         * count costs nothing up front: the entries grow with the data
         * (trip_push), and tl_mm_check_memory refuses a count no host could
         * hold before anything is read. */
        h->nentries = dims[2];
    } else {
        if (h->ncols != 0 && h->nrows > INT64_MAX / 16 / h->ncols)
            return TL_FAIL(TL_ERR_PARSE, "%s:%lld: array too large", s->name, (long long)s->lineno);
        h->nentries = h->nrows * h->ncols;
    }
    return TL_OK;
}
