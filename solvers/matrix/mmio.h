/* Matrix Market input and output (https://math.nist.gov/MatrixMarket/formats.html).
 *
 * Reads coordinate real / integer / pattern matrices, general, symmetric or
 * skew-symmetric (expanded to full storage), duplicates summed, rows sorted;
 * and array real / integer vectors. Files may be gzip-compressed (zlib reads
 * plain files too). Every error is one line naming the file, the line and
 * the reason, e.g.
 *   mmio.c:412: A.mtx:7: column index 9 out of range [1, 5] */
#ifndef TL_MMIO_H
#define TL_MMIO_H

#include <stddef.h>
#include <stdint.h>

#include "solvers/matrix/csr.h"

typedef enum { TL_MM_GENERAL, TL_MM_SYMMETRIC, TL_MM_SKEW } tl_mm_symmetry;
typedef enum { TL_MM_REAL, TL_MM_INTEGER, TL_MM_PATTERN } tl_mm_field;

typedef struct tl_mm_info {
    tl_mm_symmetry symmetry;
    tl_mm_field field;
    int64_t nrows, ncols;
    int64_t nentries; /* entries declared in the file (before expansion) */
} tl_mm_info;

/* The refusal of a matrix that is not square, for every reader (its path,
 * nrows, ncols as long long): one wording for .mtx and .tlcsr, where
 * trilap-solve said "not square" of a .tlcsr and "a square matrix is
 * needed" of a .mtx. */
#define TL_MM_NOT_SQUARE "%s: matrix is %lld x %lld, but the solvers need a square matrix"

/* Read a coordinate matrix into `a` (allocated; free with tl_csr_free).
 * `square`: fail unless nrows == ncols (TL_MM_NOT_SQUARE). `info` may be
 * NULL. */
tl_status tl_mm_read_csr(const char *path, int square, tl_csr *a, tl_mm_info *info);

/* The same from a memory buffer; `name` stands for the file in messages
 * (used by the fuzz target). `max_dim` > 0 rejects larger row or column
 * counts before anything of that size is allocated. */
tl_status tl_mm_parse_csr(const char *name, const char *data, size_t len, int square,
                          int64_t max_dim, tl_csr *a, tl_mm_info *info);

/* Array vector (n x 1, real or integer; a 1 x n row is accepted too).
 * *v is malloc'd. `expect_n` >= 0 checks the length. */
tl_status tl_mm_read_vector(const char *path, int64_t expect_n, double **v, int64_t *n);
/* Array integer vector (partition files); real values must be integral. */
tl_status tl_mm_read_ivector(const char *path, int64_t expect_n, int64_t **v, int64_t *n);

/* Writers: through a temporary file and rename, gzip when the name ends in
 * .gz. Values with 17 significant digits (round trip exact). */
tl_status tl_mm_write_vector(const char *path, const double *v, int64_t n);
tl_status tl_mm_write_ivector(const char *path, const int64_t *v, int64_t n);
/* Coordinate real general (or symmetric: lower triangle written). */
tl_status tl_mm_write_csr(const char *path, const tl_csr *a, int symmetric);

#endif
