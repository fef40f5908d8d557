/* CUDA kernels of trilap-bench, behind C launchers (stream last; each
 * checks its launch with cudaPeekAtLastError). Only built with CUDA. */
#ifndef TL_BENCH_KERNELS_H
#define TL_BENCH_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "microbench/patterns.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "runtime/error.h"

/* Threads per block of the DAXPY and the fill/check kernels. */
#define TL_BENCH_BLOCK 256

/* y = a*x + y over n doubles. blocks 0: one double2 per thread, one block
 * per 512 doubles (every block retires quickly, so NCCL's kernels find SMs
 * between them); blocks > 0: a grid-stride loop over that many blocks. */
tl_status tl_bench_daxpy(int64_t n, double a, const double *d_x, double *d_y, int blocks,
                         cudaStream_t s);
/* d[j] = tl_bench_expect_value(&e, j). */
tl_status tl_bench_fill(double *d, int64_t n, tl_bench_expect e, cudaStream_t s);
/* *d_wrong += number of j with tl_bench_expect_wrong(&e, j, d[j]). */
tl_status tl_bench_check(const double *d, int64_t n, tl_bench_expect e, unsigned long long *d_wrong,
                         cudaStream_t s);

/* BabelStream kernels over n doubles; block threads, vector 1 or 2 doubles
 * per thread (double2 loads). */
tl_status tl_stream_copy(const double *a, double *c, int64_t n, int block, int vector,
                         cudaStream_t s);
tl_status tl_stream_mul(double *b, const double *c, double scalar, int64_t n, int block, int vector,
                        cudaStream_t s);
tl_status tl_stream_add(const double *a, const double *b, double *c, int64_t n, int block,
                        int vector, cudaStream_t s);
tl_status tl_stream_triad(double *a, const double *b, const double *c, double scalar, int64_t n,
                          int block, int vector, cudaStream_t s);
/* sum(a*b): `nblocks` partial sums into d_partial (nblocks doubles), then
 * one block reduces them into *d_sum. */
tl_status tl_stream_dot(const double *a, const double *b, int64_t n, int block, int nblocks,
                        double *d_partial, double *d_sum, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
