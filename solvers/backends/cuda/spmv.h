/* The rank's matrix on the device and its product, two implementations
 * behind one option (--spmv cusparse|trilap):
 *   trilap    solvers/backends/cuda/kernels.cu: a thread per row (mean row length
 *             <= 12), a sub-warp above, or a nonzero split for irregular rows;
 *   cusparse  cusparseSpMV on CSR (algorithm --cusparse-alg), buffers and
 *             preprocessing done once at create.
 * Both read the same int32 CSR arrays, so they move the same bytes. The
 * diagonal block covers all owned rows; the ghost block is stored only for
 * the border rows (rows ninterior..nowned-1), columns 0..nghost-1 indexing
 * x + nowned. Only built with CUDA. */
#ifndef TL_CUDA_SPMV_H
#define TL_CUDA_SPMV_H

#include <cuda_runtime.h>

#include "runtime/error.h"
#include "solvers/backends/cuda/kernels.h"
#include "solvers/dist/dist.h"

typedef enum { TL_SPMV_TRILAP = 0, TL_SPMV_CUSPARSE, TL_SPMV_COUNT } tl_spmv_impl;

/* "trilap", "cusparse"; NULL out of range. */
const char *tl_spmv_impl_name(tl_spmv_impl k);
/* cuSPARSE algorithms by name: "default", "csr1", "csr2" -> cusparseSpMVAlg_t values; -1 unknown.
 */
int tl_cusparse_alg_parse(const char *s);

typedef struct tl_cu_spmv_config {
    int impl;            /* tl_spmv_impl */
    int cusparse_alg;    /* cusparseSpMVAlg_t (0: default) */
    int threads_per_row; /* trilap: 0 auto, 1..32 (power of 2), -1 the nonzero split */
    int sms;             /* the device's SMs (trilap: the grid of the product with its dot) */
} tl_cu_spmv_config;

typedef struct tl_cu_spmv tl_cu_spmv;

/* Upload m's blocks on stream s, waited for (rank-local; fails on local
 * matrices beyond int32). */
tl_status tl_cu_spmv_create(const tl_dist_matrix *m, const tl_cu_spmv_config *cfg, cudaStream_t s,
                            tl_cu_spmv **out);
void tl_cu_spmv_destroy(tl_cu_spmv **sp);
/* Whether the product can also give the local (x, A x) in its pass:
 * trilap's row kernel on the diagonal block and, with_offd, on the ghost
 * block (not the nonzero split, not cuSPARSE). */
int tl_cu_spmv_can_dot(const tl_cu_spmv *sp, int with_offd);
/* y[0..nowned) = A_diag x. With d_dot (where tl_cu_spmv_can_dot) the
 * pass also sums x_i y_i deterministically over the rows it finishes:
 * offd 0, every row, into *d_dot; offd 1 (tl_cu_spmv_offd follows on the
 * same stream), the interior rows, kept for it. */
tl_status tl_cu_spmv_diag(tl_cu_spmv *sp, const double *d_x, double *d_y, double *d_dot,
                          int offd, tl_cu_launch l);
/* y[ninterior..nowned) += A_offd x[nowned..]. With d_dot: *d_dot = the
 * interior rows' sum of the diagonal pass before it + the border rows'
 * x_i y_i, each with its final value. */
tl_status tl_cu_spmv_offd(tl_cu_spmv *sp, const double *d_x, double *d_y, double *d_dot,
                          tl_cu_launch l);
/* Bytes each must move (values, int32 indices, row pointers, x, y). */
double tl_cu_spmv_diag_bytes(const tl_cu_spmv *sp);
double tl_cu_spmv_offd_bytes(const tl_cu_spmv *sp);
/* Threads per row the trilap kernel uses for the diagonal block (0: the
 * nonzero split), for output. */
int tl_cu_spmv_tpr(const tl_cu_spmv *sp);
/* The rank's diagonal block on the device (the persistent loop's product). */
const tl_cu_csr *tl_cu_spmv_diag_csr(const tl_cu_spmv *sp);

#endif
