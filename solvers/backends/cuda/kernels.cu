/* Kernels of the CUDA solver backend (see kernels.h). What each must move
 * and what it achieves on an H200 is in solvers/backends/cuda/README.md. */
#include "solvers/backends/cuda/kernels.h"
#include "solvers/backends/cuda/device_common.cuh"

#include <math.h>

/* ---- SpMV ----------------------------------------------------------------- */

extern "C" int tl_cu_spmv_pick_tpr(double mean_row, int64_t max_row)
{
    if (max_row > 256 && (double)max_row > 16.0 * mean_row) return 0;
    /* H200, results/device-session-b2d4186: one thread per row is the
     * fastest on 7-point rows (poisson7 256^3: 0.87 of triad against 0.56
     * for the 4-lane sub-warp the old rule chose), and 8 lanes on 27-point
     * rows (poisson27 128^3: 0.70, against 0.56 for 16 and 0.39 for 32) */
    if (mean_row <= 12.0) return 1;
    int t = 2;
    while (t < 32 && 2.0 * t <= mean_row / 3.0)
        t *= 2;
    return t;
}

/* T threads per row (a sub-warp): lane j of the sub-warp reads entries
 * rowptr[i] + j, + T, ...; values and indices of consecutive rows are
 * contiguous, so a warp's loads cover 32/T rows in few transactions. The
 * sum is reduced with shuffles; lane 0 writes y once. x is read through
 * the read-only path (__ldg), which keeps the neighbours' reuse in L1/L2.
 * The product's grid has a block per 256 / T rows. A one-wave grid whose
 * threads loop over rows (every block a full share, no partial last wave)
 * was measured on an H200 and dropped for it: equal at 128^3, 0.72 of
 * triad against 0.88 at 256^3 (results/solver-roof-h200/). The product
 * with its dot (DOT) has a grid of its own (tl_cu_csr_spmv_dot_grid): on
 * the product's grid, ~8,200 partials at 128^3, each block's end
 * (reduction, fence, counter) likely holding its SM's next block back,
 * the fused pass was 8.4 us per CG iteration slower than the product and
 * the dot kernel; on one wave it was 5 us faster at 128^3 but 73 us
 * slower at 256^3 (1,113 against 1,040). In waves of resident blocks the
 * best were one at 128^3 (~2,000 rows a block: 148 us) and 16 at 256^3
 * (~1,000 rows: 1,032; the product's grid 1,220), so each block gets
 * about SPMV_DOT_ROWS_PER_BLOCK rows, the grid at least one wave (H200,
 * results/wave3-checks-h200/session3/waves). Same loop either way:
 * consecutive sub-warps take consecutive rows, the stride is the grid's
 * threads / T. */
#define SPMV_DOT_ROWS_PER_BLOCK 1024
/* The end of tl_cu_csr_spmv_dot's dot, in every block: the block's sum
 * (block_sums), its partial (thread 0 stores, fences and counts: a block
 * that is not the last leaves after one counter increment), and in the
 * last block to finish the partials in a fixed order: thread t adds
 * partials t + j x BLOCK into 8 sums by j % 8 (8 loads in flight, not one
 * chain), added pairwise, then the block sum. The counter stays: the
 * alpha program could add the partials itself (it runs next on the
 * stream), but on several ranks the allreduce between them needs the
 * rank's sum, and every block of the update runs the program. */
__device__ static void spmv_dot_finish(double acc, const tl_cu_spmv_dot &d)
{
    __shared__ double sh[1][BLOCK / 32];
    __shared__ int last;
    block_sums<1>(&acc, 1, sh);
    if (threadIdx.x == 0) {
        d.part[blockIdx.x] = acc;
        __threadfence();
        last = atomicAdd(d.count, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double v[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 8u * BLOCK) {
#pragma unroll
        for (int j = 0; j < 8; j++)
            if (b + j * BLOCK < gridDim.x) v[j] += __ldcg(d.part + b + j * BLOCK);
    }
    double t = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
    block_sums<1>(&t, 1, sh);
    if (threadIdx.x == 0) {
        *d.out = d.add ? __ldcg(d.add) + t : t;
        *d.count = 0;
    }
}

/* DOT: the product's pass also sums p[row] y[row] over the rows it
 * finishes (tl_cu_csr_spmv_dot): y[row] is in the thread's register and
 * p[row] is the operand's entry at the row, for the diagonal block one of
 * the row's own loads (L1), so the dot adds no pass over p and y (16
 * bytes per row and a launch in the dot kernel). Each thread sums its
 * rows in loop order in a register; one partial per block. */
template <int T, bool DOT>
__global__ void __launch_bounds__(BLOCK)
    tl_spmv_vector_kernel(int32_t nrows, const int32_t *__restrict__ rowptr,
                          const int32_t *__restrict__ colidx, const double *__restrict__ val,
                          const double *__restrict__ x, double *__restrict__ y, int accumulate,
                          tl_cu_spmv_dot dot)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int lane = (int)(tid % T);
    /* T divides BLOCK, so the lanes of a sub-warp share every row */
    int64_t rstride = (int64_t)gridDim.x * blockDim.x / T;
    /* the matrix never changes during a solve: the first row's entries
     * may come while the previous kernel drains */
    if (tid / T < nrows) {
        int32_t k0 = __ldg(rowptr + tid / T) + lane;
        prefetch_l2(val + k0);
        prefetch_l2(colidx + k0);
    }
    pdl_begin();
    double acc = 0.0;
    for (int64_t row = tid / T; row < nrows; row += rstride) {
        double s = spmv_row<T>(row, lane, rowptr, colidx, val, x);
        if (lane == 0) {
            double v = accumulate ? y[row] + s : s;
            y[row] = v;
            if (DOT && row < dot.nrows) acc += __ldg(dot.p + row) * v;
        }
    }
    if constexpr (DOT) spmv_dot_finish(acc, dot);
}

/* Nonzero split for irregular rows: each warp takes NZW consecutive
 * nonzeros (equal work whatever the row lengths, the load balance of a
 * merge-path SpMV), finds the row of its first one by binary search, and
 * accumulates per row with a segmented warp reduction; partial rows at
 * the chunk boundaries are added with atomics (y zeroed or holding the
 * value to accumulate onto). */
#define NZW 256
__device__ static int32_t row_of(const int32_t *rowptr, int32_t nrows, int64_t k)
{
    int32_t lo = 0, hi = nrows; /* largest r with rowptr[r] <= k */
    while (hi - lo > 1) {
        int32_t mid = lo + (hi - lo) / 2;
        if (__ldg(rowptr + mid) <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(BLOCK)
    tl_spmv_nzsplit_kernel(int32_t nrows, int64_t nnz, const int32_t *__restrict__ rowptr,
                           const int32_t *__restrict__ colidx, const double *__restrict__ val,
                           const double *__restrict__ x, double *__restrict__ y)
{
    int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    pdl_begin();
    int64_t k0 = warp * NZW;
    if (k0 >= nnz) return;
    int64_t k1 = k0 + NZW < nnz ? k0 + NZW : nnz;
    int32_t row = row_of(rowptr, nrows, k0);
    for (int64_t base = k0; base < k1; base += 32) {
        int64_t k = base + lane;
        double v = 0.0;
        int32_t r = -1;
        if (k < k1) {
            v = __ldg(val + k) * __ldg(x + __ldg(colidx + k));
            /* advance to the row holding k (rows may be empty) */
            r = row;
            while (__ldg(rowptr + r + 1) <= k)
                r++;
        }
        /* segmented inclusive reduction from the right: each run of equal r
         * ends up summed at its first lane */
        for (int o = 1; o < 32; o *= 2) {
            double vo = __shfl_down_sync(0xffffffffu, v, o);
            int32_t ro = __shfl_down_sync(0xffffffffu, r, o);
            /* rows rise with k, so equal rows o lanes apart mean one run */
            if (lane + o < 32 && ro == r) v += vo;
        }
        int32_t rprev = __shfl_up_sync(0xffffffffu, r, 1);
        int head = r >= 0 && (lane == 0 || rprev != r);
        if (head) atomicAdd(y + r, v);
        int32_t rlast = __shfl_sync(0xffffffffu, r, 31);
        if (rlast >= 0)
            row = rlast;
        else {
            /* the tail of the chunk: the last valid lane's row */
            unsigned valid = __ballot_sync(0xffffffffu, r >= 0);
            int last = 31 - __clz(valid);
            row = __shfl_sync(0xffffffffu, r, last);
        }
    }
}

extern "C" double tl_cu_csr_bytes(const tl_cu_csr *a, int accumulate)
{
    return (double)a->nnz * (sizeof(double) + sizeof(int32_t)) +
           (double)(a->nrows + 1) * sizeof(int32_t) + (double)a->ncols * sizeof(double) +
           (double)a->nrows * sizeof(double) * (accumulate ? 2 : 1);
}

typedef decltype(&tl_spmv_vector_kernel<1, false>) spmv_vector_fn;

/* The row kernel with T = tpr threads per row (1, 2, 4, ..., 32); NULL
 * for any other tpr. */
template <bool DOT>
static spmv_vector_fn vector_kernel(int tpr)
{
    switch (tpr) {
    case 1:
        return tl_spmv_vector_kernel<1, DOT>;
    case 2:
        return tl_spmv_vector_kernel<2, DOT>;
    case 4:
        return tl_spmv_vector_kernel<4, DOT>;
    case 8:
        return tl_spmv_vector_kernel<8, DOT>;
    case 16:
        return tl_spmv_vector_kernel<16, DOT>;
    case 32:
        return tl_spmv_vector_kernel<32, DOT>;
    default:
        return NULL;
    }
}

/* The row kernel on grid g (without the dot: a block per 256 / T rows). */
template <bool DOT>
static tl_status spmv_vector(const tl_cu_csr *a, const double *d_x, double *d_y, int accumulate,
                             tl_cu_spmv_dot dot, unsigned g, tl_cu_launch l)
{
    spmv_vector_fn k = vector_kernel<DOT>(a->tpr);
    TL_CHECK(k, TL_ERR_INVAL, "spmv: %d threads per row (1, 2, 4, ..., 32)", a->tpr);
    return launch(k, g, l, a->nrows, (const int32_t *)a->d_rowptr, (const int32_t *)a->d_colidx,
                  (const double *)a->d_val, d_x, d_y, accumulate, dot);
}

extern "C" tl_status tl_cu_csr_spmv(const tl_cu_csr *a, const double *d_x, double *d_y,
                                    int accumulate, tl_cu_launch l)
{
    if (a->nrows == 0) return TL_OK;
    if (a->tpr == 0) {
        if (!accumulate) TL_CUDA(cudaMemsetAsync(d_y, 0, (size_t)a->nrows * sizeof(double), l.s));
        if (a->nnz == 0) return TL_OK;
        int64_t warps = (a->nnz + NZW - 1) / NZW;
        return launch(tl_spmv_nzsplit_kernel, grid_for(warps * 32, BLOCK), l, a->nrows, a->nnz,
                      (const int32_t *)a->d_rowptr, (const int32_t *)a->d_colidx,
                      (const double *)a->d_val, d_x, d_y);
    }
    return spmv_vector<false>(a, d_x, d_y, accumulate, tl_cu_spmv_dot{},
                              grid_for((int64_t)a->nrows * a->tpr, BLOCK), l);
}

extern "C" tl_status tl_cu_csr_spmv_dot_grid(const tl_cu_csr *a, int sms, unsigned *grid)
{
    *grid = 0;
    if (a->tpr == 0) return TL_OK;
    spmv_vector_fn k = vector_kernel<true>(a->tpr);
    TL_CHECK(k && sms > 0, TL_ERR_INVAL, "spmv with its dot: %d threads per row on %d SMs", a->tpr,
             sms);
    int per_sm = 0;
    TL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
    unsigned wave = (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)sms;
    unsigned g = grid_for((int64_t)a->nrows * a->tpr, BLOCK);
    int64_t by_rows = ((int64_t)a->nrows + SPMV_DOT_ROWS_PER_BLOCK - 1) / SPMV_DOT_ROWS_PER_BLOCK;
    unsigned want = by_rows > (int64_t)wave ? (unsigned)by_rows : wave;
    *grid = g < want ? g : want;
    return TL_OK;
}

extern "C" tl_status tl_cu_csr_spmv_dot(const tl_cu_csr *a, const double *d_x, double *d_y,
                                        int accumulate, const tl_cu_spmv_dot *dot, tl_cu_launch l)
{
    TL_CHECK(a->tpr > 0 && dot->grid > 0 && dot->part && dot->count && dot->out &&
                 dot->nrows <= a->nrows,
             TL_ERR_INVAL, "spmv with its dot: %d threads per row, %u blocks, %d of %d rows",
             a->tpr, dot->grid, dot->nrows, a->nrows);
    /* without rows too: the last block writes the result */
    return spmv_vector<true>(a, d_x, d_y, accumulate, *dot, dot->grid, l);
}

/* ---- halo pack ----------------------------------------------------------- */

__global__ void tl_pack_kernel(const double *__restrict__ x, const int32_t *__restrict__ idx,
                               int64_t n, double *__restrict__ buf)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_begin();
    if (i < n) buf[i] = x[idx[i]];
}

extern "C" tl_status tl_cu_pack(const double *d_x, const int32_t *d_idx, int64_t n, double *d_buf,
                                tl_cu_launch l)
{
    if (n == 0) return TL_OK;
    return launch(tl_pack_kernel, grid_for(n, BLOCK), l, d_x, d_idx, n, d_buf);
}

/* ---- fused dots ------------------------------------------------------------ */

/* The number of block partials of a reduction over len entries: the dot
 * kernel's grid (2 entries per thread, at most TL_CU_DOT_BLOCKS blocks).
 * Partial b sums entries b * BLOCK + t + j * nvb * BLOCK (thread t, j in
 * order, then block_sums): the fused update pass makes the same partials
 * as virtual blocks, so its dots equal the dot kernel's bit for bit. */
static unsigned dot_partials(int64_t len)
{
    unsigned g = grid_for(len, BLOCK * 2);
    return g > (unsigned)TL_CU_DOT_BLOCKS ? (unsigned)TL_CU_DOT_BLOCKS : g;
}

/* Partial vb of n <= N per-thread sums acc into part[vb] (the sums are
 * consumed). */
template <int N>
__device__ static void store_partial(double *acc, int n, double *part, int64_t vb,
                                     double (*sh)[BLOCK / 32])
{
    block_sums<N>(acc, n, sh);
    if (threadIdx.x < n) {
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k == (int)threadIdx.x) part[vb * TL_CU_DOT_MAX + k] = acc[k];
    }
}

/* The end of a deterministic reduction of nvb partials of n <= N sums:
 * the last block to finish (threadfence, barrier, counter) adds the
 * partials with all its threads in a fixed order, so the result does not
 * depend on scheduling, stores out[0..n-1] and zeroes the counter again.
 * Called by every block after its store_partial calls. */
template <int N>
__device__ static void finish_partials(int n, unsigned nvb, double *part, unsigned *count,
                                       double *out, double (*sh)[BLOCK / 32], int *last)
{
    __threadfence();
    __syncthreads(); /* every partial of this block is written and fenced */
    if (threadIdx.x == 0) *last = atomicAdd(count, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!*last) return;
    __threadfence();
    double v[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        v[k] = 0.0;
    /* all n sums in one loop (their loads in flight together), each in
     * the order b = t, t + BLOCK, ... */
    for (unsigned b = threadIdx.x; b < nvb; b += BLOCK) {
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k < n) v[k] += ((volatile double *)part)[(int64_t)b * TL_CU_DOT_MAX + k];
    }
    block_sums<N>(v, n, sh);
    if (threadIdx.x < n) {
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k == (int)threadIdx.x) out[k] = v[k];
    }
    if (threadIdx.x == 0) *count = 0;
}

/* L2 prefetch of entry i of every dot operand */
template <int N>
__device__ __forceinline__ static void dot_prefetch(const tl_cu_dot_args *a, int64_t i)
{
#pragma unroll
    for (int k = 0; k < N; k++)
        if (k < a->n) {
            prefetch_l2(a->x[k] + i);
            prefetch_l2(a->y[k] + i);
        }
}

/* Each thread keeps N partial sums over a grid-stride loop (the first
 * a.n used; N a compile-time bound so they stay in registers), reduced
 * deterministically (store_partial, finish_partials). Up to 5 dots the
 * kernel is built for 8 blocks per SM (at most 32 registers), so the
 * TL_CU_DOT_BLOCKS = 8 x 132 blocks are resident at once on an H200: at
 * 40 registers (3 dots) 6 fitted, and a third of the grid ran as a
 * second round. */
template <int N>
__global__ void __launch_bounds__(BLOCK, N <= 5 ? 8 : 1)
    tl_dots_kernel(tl_cu_dot_args a, int64_t len, double *part, unsigned *count, double *out)
{
    __shared__ double sh[N][BLOCK / 32];
    __shared__ int last;
    double acc[N];
#pragma unroll
    for (int k = 0; k < N; k++)
        acc[k] = 0.0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) dot_prefetch<N>(&a, i);
    pdl_begin();
    for (; i < len; i += stride) {
        if (a.prefetch && i + stride < len) dot_prefetch<N>(&a, i + stride);
#pragma unroll
        for (int k = 0; k < N; k++)
            if (k < a.n) acc[k] += a.x[k][i] * a.y[k][i];
    }
    store_partial<N>(acc, a.n, part, blockIdx.x, sh);
    finish_partials<N>(a.n, gridDim.x, part, count, out, sh, &last);
}

extern "C" tl_status tl_cu_dots(const tl_cu_dot_args *a, int64_t len, double *d_part,
                                unsigned *d_count, double *d_out, tl_cu_launch l)
{
    TL_CHECK(a->n >= 1 && a->n <= TL_CU_DOT_MAX, TL_ERR_INVAL, "%d dots (1..%d)", a->n,
             TL_CU_DOT_MAX);
    unsigned g = dot_partials(len);
    auto k = a->n <= 1   ? tl_dots_kernel<1>
             : a->n <= 2 ? tl_dots_kernel<2>
             : a->n <= 3 ? tl_dots_kernel<3>
             : a->n <= 5 ? tl_dots_kernel<5>
             : a->n <= 8 ? tl_dots_kernel<8>
                         : tl_dots_kernel<TL_CU_DOT_MAX>;
    return launch(k, g, l, *a, len, d_part, d_count, d_out);
}

/* ---- fused updates with the scalar prologue -------------------------------- */

/* Thread 0 of every block runs the scalar program on the reduced dots into
 * shared registers (a few flops on values in L2: cheaper than a launch),
 * block 0 also stores registers and the next state. Without a program the
 * shared registers are loaded from io.regs (what the last program, run in
 * an earlier kernel of this stream, stored); before, they were left
 * unwritten, so an update after a program that ran on its own
 * (pipebicgstab's first group, whose beta/alpha program is flushed by
 * regs_post) took its coefficients from stale shared memory: the
 * "(q, y) = -nan, (y, y) = inf at iteration 4" breakdown. No block reads
 * what block 0 writes in the same launch: the state is double-buffered by
 * parity, and registers are read from memory only by kernels without a
 * program. Then each entry goes
 * through tl_cu_update_entry (update_entry.h): all loads first, the
 * memory-level parallelism a chain of dependent load-store updates lacks.
 * Distinct vectors cross DRAM once; repeated loads of one vector hit L1.
 * NU x NT is a compile-time bound of the shape (registers). The argument
 * block is __grid_constant__, so its address can be taken without a copy
 * to local memory. */
#define UPD_GRID_MAX 8192
/* ND > 0: update_fused's kernel: the same entries also go through the
 * tail (tl_cu_fused_entry: the preconditioner on a value just computed,
 * the dots of the values after the pass, summed per thread), and the
 * dots end in the dot kernel's deterministic reduction into the slot's
 * result. Its blocks take the dot kernel's nvb blocks in turn as virtual
 * blocks (vb = blockIdx.x, + gridDim.x, ...: thread t of vb does entries
 * vb * BLOCK + t + j * nvb * BLOCK, j in order, and stores partial vb),
 * so the dots, and with them the whole iteration, equal the separate
 * update, Jacobi and dot kernels' bit for bit; before, the one-wave grid
 * summed in another order, which moved Pipe-PCG's count on 1138_bus by 7
 * (results/device-session-070b323). */
/* With a tail on the shapes the methods use (up to 8 updates), at least
 * 2 blocks per SM (at most 128 registers, no spills): loading the tail's
 * operands up front took Pipe-BiCGStab's groups from 128 to 192 and 171
 * registers, one block of 8 warps per SM. */
/* L2 prefetch of entry i of every vector the entry reads from memory */
template <int NU, int NT, int ND>
__device__ __forceinline__ static void prefetch_operands(const tl_cu_update_args *a, int64_t i)
{
#pragma unroll
    for (int j = 0; j < NU; j++) {
        if (j >= a->nu) break;
#pragma unroll
        for (int k = 0; k < NT; k++)
            if (k < a->u[j].nterms && a->u[j].src[k] < 0) prefetch_l2(a->u[j].x[k] + i);
    }
    if constexpr (ND > 0) {
        const tl_cu_update_tail *t = &a->t;
        if (t->pz && t->dinv) prefetch_l2(t->dinv + i);
        if (t->pz && t->prsrc == TL_CU_SRC_MEM) prefetch_l2(t->pr + i);
#pragma unroll
        for (int k = 0; k < ND; k++) {
            if (k >= t->nd) break;
            if (t->dxsrc[k] == TL_CU_SRC_MEM) prefetch_l2(t->dx[k] + i);
            if (t->dysrc[k] == TL_CU_SRC_MEM) prefetch_l2(t->dy[k] + i);
        }
    }
}

/* The pass with a tail (ND > 0): virtual blocks, the dots' partials and
 * their deterministic reduction (see above). c: the updates'
 * coefficients (unused without updates, NU = 0). */
template <int NU, int NT, int ND>
__device__ __forceinline__ static void fused_pass(const tl_cu_update_args &a,
                                                  const double (*c)[TL_CU_UPD_TERMS], int64_t len,
                                                  unsigned nvb)
{
    __shared__ double sh[ND][BLOCK / 32];
    __shared__ int last;
    int64_t vstride = (int64_t)nvb * blockDim.x;
    for (int64_t vb = blockIdx.x; vb < nvb; vb += gridDim.x) {
        double acc[ND];
#pragma unroll
        for (int k = 0; k < ND; k++)
            acc[k] = 0.0;
        for (int64_t i = vb * blockDim.x + threadIdx.x; i < len; i += vstride) {
            if (a.prefetch && i + vstride < len) prefetch_operands<NU, NT, ND>(&a, i + vstride);
            tl_cu_fused_entry(&a, c, i, NU, NT, ND, acc);
        }
        if (a.t.nd > 0) store_partial<ND>(acc, a.t.nd, a.t.part, vb, sh);
    }
    if (a.t.nd > 0) finish_partials<ND>(a.t.nd, nvb, a.t.part, a.t.count, a.t.out, sh, &last);
}

/* Every update kernel's start, after pdl_begin: the scalar program (or
 * the registers it left in memory) into regs, then the coefficients
 * c[j][k] of the updates. */
__device__ static void update_prologue(const tl_cu_update_args &a, double *regs,
                                       double (*c)[TL_CU_UPD_TERMS])
{
    if (a.prog != TL_SC_NONE && threadIdx.x == 0) {
        double next[TL_SC_STATE];
        const double *st = a.io.state + a.io.parity * TL_SC_STATE;
        tl_sc_run(a.prog, a.io.dots, st, regs, next);
        if (blockIdx.x == 0) {
            double *stn = a.io.state + (1 - a.io.parity) * TL_SC_STATE;
            for (int q = 0; q < TL_SC_STATE; q++)
                stn[q] = next[q];
            for (int q = 0; q < TL_SC_REGS; q++)
                a.io.regs[q] = regs[q];
            publish_regs(a.io, regs);
        }
    } else if (a.prog == TL_SC_NONE && threadIdx.x < TL_SC_REGS) {
        regs[threadIdx.x] = a.io.regs ? a.io.regs[threadIdx.x] : 0.0;
    }
    __syncthreads();
    if (threadIdx.x < TL_CU_UPD_MAX * TL_CU_UPD_TERMS) {
        int j = threadIdx.x / TL_CU_UPD_TERMS, k = threadIdx.x % TL_CU_UPD_TERMS;
        if (j < a.nu && k < a.u[j].nterms)
            c[j][k] =
                a.u[j].sref[k] > 0 ? a.u[j].coef[k] * regs[a.u[j].sref[k] - 1] : a.u[j].coef[k];
    }
    __syncthreads();
}

template <int NU, int NT, int ND>
__global__ void __launch_bounds__(BLOCK, (ND > 0 && NU <= 8) ? 2 : 0)
    tl_update_kernel(const __grid_constant__ tl_cu_update_args a, int64_t len, unsigned nvb)
{
    __shared__ double regs[TL_SC_REGS];
    __shared__ double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    /* where threads have several entries, the lines of each one's first
     * entry come into L2 while the previous kernel drains, and under the
     * prologue (a chain of L2 round trips in thread 0 that holds every
     * thread at the barrier) */
    int64_t ip = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (ip < len && (a.prog != TL_SC_NONE || (int64_t)gridDim.x * blockDim.x < len))
        prefetch_operands<NU, NT, ND>(&a, ip);
    pdl_begin();
    update_prologue(a, regs, c);
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (ND == 0) {
        for (int64_t i = i0; i < len; i += stride) {
            if (a.prefetch && i + stride < len) prefetch_operands<NU, NT, ND>(&a, i + stride);
            tl_cu_update_entry(&a, c, i, NU, NT);
        }
    } else {
        /* the program in the prologue may read the slot's dots (pipecg:
         * the reduced dots of this iteration, the buffer this kernel's
         * last block overwrites with the next ones): every block read them
         * before its counter increment, which the last block waits for */
        fused_pass<NU, NT, ND>(a, c, len, nvb);
    }
}

/* The tail alone (no update, no program: --fuse-tail, the preconditioner
 * step and the dots after a separate update kernel), built for the dot
 * kernel's 8 blocks per SM up to 3 dots (Pipe-PCG's tail: 32 registers,
 * 16 bytes of spills), 4 above (no spills at 5); named for what dominates
 * it (the analysis groups kernels by name: analysis/names.c). */
template <int ND>
__global__ void __launch_bounds__(BLOCK, ND <= 3 ? 8 : 4)
    tl_dots_tail_kernel(const __grid_constant__ tl_cu_update_args a, int64_t len, unsigned nvb)
{
    int64_t ip = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (ip < len) prefetch_operands<0, 1, ND>(&a, ip);
    pdl_begin();
    fused_pass<0, 1, ND>(a, (const double (*)[TL_CU_UPD_TERMS])0, len, nvb);
}

/* Pipe-PCG's eight AXPYs (update_entry.h, tl_cu_update_is_pipecg): the
 * ten vectors by role, each loaded once, the terms fixed at compile time
 * (tl_cu_pipecg_values); the generic kernel's prologue and grid. 64
 * registers: 4 blocks per SM fill the register file, as the generic
 * kernel's 3 at 80 do. Held to 3 per SM it was faster alone but slower
 * per iteration at 256^3 (1,296 against 1,270 us; results/solver-shape-h200/). */
__global__ void __launch_bounds__(BLOCK)
    tl_pipecg_update_kernel(const __grid_constant__ tl_cu_update_args a, int64_t len,
                            unsigned nvb)
{
    (void)nvb;
    __shared__ double regs[TL_SC_REGS];
    __shared__ double c[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
    const double *src[10];
    double *dst[8];
    tl_cu_pipecg_operands(&a, src, dst);
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i0 < len && (a.prog != TL_SC_NONE || stride < len)) {
#pragma unroll
        for (int k = 0; k < 10; k++)
            prefetch_l2(src[k] + i0);
    }
    pdl_begin();
    update_prologue(a, regs, c);
    double cf[8];
#pragma unroll
    for (int j = 0; j < 8; j++)
        cf[j] = c[j][1];
    for (int64_t i = i0; i < len; i += stride) {
        double in[10], out[8];
        if (a.prefetch && i + stride < len) {
#pragma unroll
            for (int k = 0; k < 10; k++)
                prefetch_l2(src[k] + i + stride);
        }
#pragma unroll
        for (int k = 0; k < 10; k++)
            in[k] = src[k][i];
        tl_cu_pipecg_values(in, cf, out);
#pragma unroll
        for (int k = 0; k < 8; k++)
            dst[k][i] = out[k];
    }
}

typedef decltype(&tl_update_kernel<4, 2, 0>) update_kernel_fn;

template <int ND>
static update_kernel_fn update_pick(const tl_cu_update_args *a, int nt)
{
    if constexpr (ND == 0) {
        if (a->nu <= 4 && nt <= 2) return tl_update_kernel<4, 2, 0>;
    } else {
        if (a->nu == 0) return tl_dots_tail_kernel<ND>;
    }
    /* with a tail, fewer shapes (compile time): 4 x 2 runs as 4 x 3 */
    if (a->nu <= 4 && nt <= 3) return tl_update_kernel<4, 3, ND>;
    if (a->nu <= 8 && nt <= 2) return tl_update_kernel<8, 2, ND>;
    if (a->nu <= 8 && nt <= 3) return tl_update_kernel<8, 3, ND>;
    return tl_update_kernel<TL_CU_UPD_MAX, TL_CU_UPD_TERMS, ND>;
}

extern "C" tl_status tl_cu_update_run(const tl_cu_update_args *a, int64_t len, int sms,
                                      tl_cu_launch l)
{
    int tail = a->t.pz || a->t.nd > 0;
    TL_CHECK(a->nu >= (tail ? 0 : 1) && a->nu <= TL_CU_UPD_MAX, TL_ERR_INVAL, "%d updates%s",
             a->nu, tail ? " with a tail" : "");
    TL_CHECK(a->t.nd >= 0 && a->t.nd <= TL_CU_FUSE_DOTS && (!a->t.nd || (a->t.part && a->t.out &&
                                                                         a->t.count)),
             TL_ERR_INVAL, "update tail: %d dots", a->t.nd);
    /* with dots the kernel always runs: its last block writes the result */
    if (len == 0 && a->prog == TL_SC_NONE && !a->t.nd) return TL_OK;
    int nt = 1;
    for (int j = 0; j < a->nu; j++)
        if (a->u[j].nterms > nt) nt = a->u[j].nterms;
    update_kernel_fn k = tl_cu_update_is_pipecg(a) ? tl_pipecg_update_kernel
                         : !tail                   ? update_pick<0>(a, nt)
                         : a->t.nd <= 3 ? update_pick<3>(a, nt)
                         : a->t.nd <= 5 ? update_pick<5>(a, nt)
                                        : update_pick<TL_CU_FUSE_DOTS>(a, nt);
    unsigned g = grid_for(len, BLOCK);
    if (g > UPD_GRID_MAX) g = UPD_GRID_MAX;
    /* with a tail: the dot kernel's partials as virtual blocks */
    unsigned nvb = tail ? dot_partials(len) : 0;
    if (tail) g = nvb;
    if (sms > 0) {
        /* one wave: as many blocks as are resident at once (the kernel's
         * occupancy: 2 per SM at 112-128 registers, the Pipe-PCG and
         * Pipe-BiCGStab passes). A fixed 4 per SM left a partial second
         * round whenever 3 fit (a44a310's fused pass at 80 registers),
         * each block with a full share of the entries. */
        int per_sm = 0;
        TL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, BLOCK, 0));
        unsigned wave = (unsigned)(per_sm > 0 ? per_sm : 1) * (unsigned)sms;
        if (g > wave) g = wave;
    }
    if (tail) {
        /* as many virtual blocks per block everywhere (1056 partials on
         * 264 resident blocks: 4 each) */
        unsigned per = (nvb + g - 1) / g;
        g = (nvb + per - 1) / per;
    }
    return launch(k, g, l, *a, len, nvb);
}

__global__ void tl_scalars_kernel(tl_sc_prog prog, tl_sc_io io)
{
    double next[TL_SC_STATE], regs[TL_SC_REGS];
    pdl_begin();
    tl_sc_run(prog, io.dots, io.state + io.parity * TL_SC_STATE, regs, next);
    for (int q = 0; q < TL_SC_STATE; q++)
        io.state[(1 - io.parity) * TL_SC_STATE + q] = next[q];
    for (int q = 0; q < TL_SC_REGS; q++)
        io.regs[q] = regs[q];
    publish_regs(io, regs);
}

extern "C" tl_status tl_cu_scalars_run(tl_sc_prog prog, tl_sc_io io, tl_cu_launch l)
{
    return launch_n(tl_scalars_kernel, 1, 1, l, prog, io);
}

/* ---- Jacobi, fill ----------------------------------------------------------- */

/* z = d * r: 24 bytes per entry (16 without d), a pair of entries per
 * thread as 16-byte loads and stores (cudaMalloc'd vectors are aligned;
 * the odd last entry by the last pair's thread); per entry the product of
 * the one-entry kernel. */
__global__ void __launch_bounds__(BLOCK)
    tl_jacobi_kernel(const double *__restrict__ d, const double *__restrict__ r,
                     double *__restrict__ z, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, npair = n / 2;
    if (i < npair) {
        prefetch_l2((const double2 *)r + i);
        if (d) prefetch_l2((const double2 *)d + i);
    }
    pdl_begin();
    if (i < npair) {
        double2 rv = ((const double2 *)r)[i];
        if (d) {
            double2 dv = ((const double2 *)d)[i];
            rv.x = dv.x * rv.x;
            rv.y = dv.y * rv.y;
        }
        ((double2 *)z)[i] = rv;
    }
    if ((n & 1) && i == (npair > 0 ? npair - 1 : 0)) z[n - 1] = d ? d[n - 1] * r[n - 1] : r[n - 1];
}

/* one entry per thread (unaligned vectors) */
__global__ void tl_jacobi1_kernel(const double *__restrict__ d, const double *__restrict__ r,
                                  double *__restrict__ z, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_begin();
    if (i < n) z[i] = d ? d[i] * r[i] : r[i];
}

static int aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

extern "C" tl_status tl_cu_jacobi(const double *d_dinv, const double *d_r, double *d_z, int64_t n,
                                  tl_cu_launch l)
{
    if (n == 0 || (!d_dinv && d_r == d_z)) return TL_OK;
    if (!aligned16(d_r) || !aligned16(d_z) || (d_dinv && !aligned16(d_dinv)))
        return launch(tl_jacobi1_kernel, grid_for(n, BLOCK), l, d_dinv, d_r, d_z, n);
    return launch(tl_jacobi_kernel, grid_for(n / 2 > 0 ? n / 2 : 1, BLOCK), l, d_dinv, d_r, d_z,
                  n);
}

__global__ void tl_fill_kernel(double *y, double alpha, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    pdl_begin();
    if (i < n) y[i] = alpha;
}

extern "C" tl_status tl_cu_fill(double *d_y, double alpha, int64_t n, tl_cu_launch l)
{
    if (n == 0) return TL_OK;
    return launch(tl_fill_kernel, grid_for(n, BLOCK), l, d_y, alpha, n);
}
