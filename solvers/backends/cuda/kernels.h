/* CUDA kernels of the solver backend, behind C launchers (the launch
 * last: stream and programmatic dependent launch; each checks its launch). Only built with CUDA. Index arrays on the
 * device are int32: a rank's local matrix has fewer than 2^31 rows +
 * ghosts and nonzeros (the backend checks), and 4-byte indices cut the
 * SpMV's traffic from 16 to 12 bytes per nonzero. */
#ifndef TL_CUDA_KERNELS_H
#define TL_CUDA_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "runtime/error.h"
#include "solvers/backends/cuda/update_entry.h"
#include "solvers/backends/scalars.h"

/* Where and how a launcher enqueues its kernel. pdl: programmatic
 * dependent launch (compute capability 9.0 and up; the backend clears it
 * elsewhere): the kernel may be scheduled while the previous kernel of the
 * stream drains, prefetches its first entries into L2 (a hint: L2 is
 * coherent, so it reads no stale value), and waits for that kernel's
 * completion (griddepcontrol.wait) before its first load or store. Every
 * kernel here waits so, launched with pdl or not. */
typedef struct tl_cu_launch {
    cudaStream_t s;
    int pdl;
} tl_cu_launch;

/* A CSR block on the device: rows [0, nrows) of y, columns index x. */
typedef struct tl_cu_csr {
    int32_t nrows, ncols;
    int64_t nnz;
    int32_t *d_rowptr, *d_colidx;
    double *d_val;
    int32_t max_row; /* longest row */
    /* trilap kernel: threads per row (1, 2, 4, ..., 32), or 0 for the
     * nonzero-split path (irregular rows) */
    int tpr;
} tl_cu_csr;

/* Threads per row the trilap kernel picks for a row-length profile
 * (measured on an H200, solvers/backends/cuda/README.md): one per row for a mean
 * row length up to 12 (stencils of 7 points: neighbouring rows' loads
 * coalesce across the warp, and no shuffle reduction), above that the
 * largest power of two (2..32) at most a third of the mean (27 points: 8);
 * the nonzero-split path when the longest row exceeds 16x the mean and
 * 256. */
int tl_cu_spmv_pick_tpr(double mean_row, int64_t max_row);

/* y[yoff + i] (=|+=) sum_k val[k] x[colidx[k]] for rows i of a.
 * accumulate 0: y = A x; 1: y += A x. */
tl_status tl_cu_csr_spmv(const tl_cu_csr *a, const double *d_x, double *d_y, int accumulate,
                         tl_cu_launch l);
/* Bytes the product must move: values and column indices once, row
 * pointers, x (ncols) once, y written (and read when accumulating). */
double tl_cu_csr_bytes(const tl_cu_csr *a, int accumulate);

/* The local (p, y) in a product's pass (tl_cu_csr_spmv_dot): rows [0,
 * nrows) of the block add p[row] * y[row], y's value as the pass leaves
 * it (those rows must be final then); the pass runs `grid` blocks, each
 * thread looping over rows; a partial per block into part, the last block
 * to finish adds them in a fixed order (deterministic: grid is fixed
 * once, tl_cu_csr_spmv_dot_grid), plus *add when add is given, into *out. */
typedef struct tl_cu_spmv_dot {
    const double *p;   /* the block's rows of the operand of the dot */
    int32_t nrows;     /* rows whose value this pass finishes */
    unsigned grid;     /* blocks of the pass (tl_cu_csr_spmv_dot_grid) */
    double *part;      /* grid partials */
    unsigned *count;   /* zero; the kernel leaves it zero */
    const double *add; /* NULL, or a sum to add (written by an earlier kernel of the stream) */
    double *out;
} tl_cu_spmv_dot;
/* The trilap row kernel's product (a->tpr > 0) with the dot above. */
tl_status tl_cu_csr_spmv_dot(const tl_cu_csr *a, const double *d_x, double *d_y, int accumulate,
                             const tl_cu_spmv_dot *dot, tl_cu_launch l);
/* Its grid on `sms` SMs: a block per 1,024 rows, at least one wave of
 * resident blocks (the occupancy of the kernel for a->tpr), at most the
 * product's grid (a block per 256 / tpr rows); 0 where a->tpr is 0. */
tl_status tl_cu_csr_spmv_dot_grid(const tl_cu_csr *a, int sms, unsigned *grid);

/* d_buf[i] = d_x[d_idx[i]], i < n (halo pack). */
tl_status tl_cu_pack(const double *d_x, const int32_t *d_idx, int64_t n, double *d_buf,
                     tl_cu_launch l);

/* Fused dots: d_out[k] = sum_i x_k[i] y_k[i], k < n <= TL_CU_DOT_MAX, one
 * kernel, deterministic (block partials in d_part, reduced by the last
 * block to finish; d_count a zeroed counter the kernel leaves zeroed). */
enum { TL_CU_DOT_MAX = 16, TL_CU_DOT_BLOCKS = 1056 };
typedef struct tl_cu_dot_args {
    int n;
    int prefetch; /* L2 prefetch of each thread's next entries (--prefetch) */
    const double *x[TL_CU_DOT_MAX], *y[TL_CU_DOT_MAX];
} tl_cu_dot_args;
tl_status tl_cu_dots(const tl_cu_dot_args *a, int64_t len, double *d_part, unsigned *d_count,
                     double *d_out, tl_cu_launch l);

/* Fused updates: types and the per-entry arithmetic in update_entry.h. */
/* sms > 0: the grid is one wave of resident blocks on that many SMs (the
 * kernel's occupancy; grid-stride loop): with a scalar program in the
 * prologue every block pays its latency once, and the dots' partials are
 * few; 0: one entry per thread. With a tail (a.t) the pass also applies
 * the preconditioner and reduces the dots into a.t.out, deterministically
 * (block partials, the last block adds them in a fixed order); with a
 * tail and no update (a.nu = 0) it is the tail alone (--fuse-tail). */
tl_status tl_cu_update_run(const tl_cu_update_args *a, int64_t len, int sms, tl_cu_launch l);

/* Run a scalar program alone (one thread), when no update follows. */
tl_status tl_cu_scalars_run(tl_sc_prog prog, tl_sc_io io, tl_cu_launch l);

/* z = d * r (Jacobi, d the inverse diagonal); d NULL: z = r. */
tl_status tl_cu_jacobi(const double *d_dinv, const double *d_r, double *d_z, int64_t n,
                       tl_cu_launch l);
/* y[i] = alpha, i < n. */
tl_status tl_cu_fill(double *d_y, double alpha, int64_t n, tl_cu_launch l);

/* The persistent Pipe-PCG loop (loop_plan.h): iterations base .. base +
 * iters - 1 of pipecg_async.c's iteration in one kernel whose resident
 * blocks take tiles from a counter: per tile the dots (r, u), (w, u),
 * (r, r) and m = D^-1 w (DJ), n = A m (S), then after the program
 * TL_SC_PIPECG on the reduced dots (run by the last DJ item) the eight
 * AXPYs (U, the arithmetic of tl_pipecg_update_kernel). Iteration numbers
 * are absolute and only grow (the per-tile flags hold 1 + the last
 * iteration done); `first` is the solve's first loop iteration, whose DJ
 * items wait for nothing. Each iteration's registers go to slot (run0 + j)
 * % ring_slots of the mapped ring, run number run0 + j + 1 after them
 * (what regs_get polls for). */
typedef struct tl_cu_loop_args {
    int64_t nrows;
    int32_t tile, ntiles, nitems;
    const uint32_t *items;                /* loop_plan.h, on the device */
    const int32_t *flo, *fhi, *rlo, *rhi; /* the plan's windows, on the device */
    const int32_t *rowptr, *colidx;       /* the rank's diagonal block */
    const double *val, *dinv;
    double *r, *u, *w, *m, *n, *z, *q, *s, *p, *x;
    int reg_alpha, reg_beta;              /* x += alpha p, z = n + beta z: their registers */
    unsigned *counter;                    /* zeroed by the launcher */
    unsigned *fu, *fdj, *fs;              /* per tile, zero-filled once */
    unsigned *djcount;                    /* 2, zero-filled once */
    unsigned *prog_done;                  /* 1 + the last iteration whose program ran */
    double *part;                         /* 3 per tile */
    double *dots;                         /* the reduced dots (3) */
    double *state;                        /* the programs' state, two parities */
    double *regs;                         /* TL_SC_REGS */
    double *ring;                         /* ring_slots slots of TL_SC_REGS + 1 */
    int ring_slots, parity0;              /* the state parity of iteration base */
    int64_t run0;
    unsigned first, base;
    int iters;
} tl_cu_loop_args;

/* Blocks of the loop resident at once on `sms` SMs (its grid). */
tl_status tl_cu_pipecg_loop_blocks(int sms, int *blocks);
tl_status tl_cu_pipecg_loop(const tl_cu_loop_args *a, int blocks, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
