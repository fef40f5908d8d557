/* Compressed sparse row matrices (global or rank-local), 0-based. */
#ifndef TL_CSR_H
#define TL_CSR_H

#include <stdint.h>

#include "runtime/error.h"

typedef struct tl_csr {
    int64_t nrows, ncols, nnz;
    int64_t *rowptr; /* nrows + 1 */
    int64_t *colidx; /* nnz, sorted within each row, no duplicates */
    double *val;     /* nnz */
} tl_csr;

tl_status tl_csr_alloc(tl_csr *a, int64_t nrows, int64_t ncols, int64_t nnz);
void tl_csr_free(tl_csr *a); /* frees the arrays, zeroes the struct; NULL-safe */
/* y = A x (serial reference). */
void tl_csr_spmv(const tl_csr *a, const double *x, double *y);
/* Where a_ij of row i is stored, -1 when not. O(log(row length));
 * columns must be sorted within rows (tl_csr_check). */
int64_t tl_csr_find(const tl_csr *a, int64_t i, int64_t j);
/* Diagonal entries (0 where absent). */
void tl_csr_diagonal(const tl_csr *a, double *d);
/* How many rows have a zero (or absent) diagonal entry, *first the first
 * such row (-1: none): what a Jacobi preconditioner cannot divide by. */
int64_t tl_csr_zero_diagonal(const tl_csr *a, int64_t *first);
/* Structural check: rowptr starts at 0, non-decreasing, ends at nnz;
 * columns in range and strictly ascending within each row; values finite.
 * `what` names the matrix (a file) in the error line. */
tl_status tl_csr_check(const tl_csr *a, const char *what);
/* 1 when A is square and symmetric, else 0 with the first offending
 * (i, j) in *i_out, *j_out (may be NULL). rtol 0: exactly, the same
 * pattern and equal values (what symmetric storage needs); rtol > 0: a_ji
 * within rtol of a_ij, absent entries counting as 0 (what a method that
 * assumes symmetry needs). O(nnz log(row length)): cheap beside a solve.
 * Columns must be sorted within rows (tl_csr_check). */
int tl_csr_is_symmetric(const tl_csr *a, double rtol, int64_t *i_out, int64_t *j_out);

#endif
