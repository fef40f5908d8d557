/* Kernels of the CUDA solver backend (see kernels.h). What each must move
 * and what it achieves on an H200 is in solvers/backends/cuda/README.md. */
#include "solvers/backends/cuda/kernels.h"
#include "solvers/backends/cuda/loop_plan.h"

#include <math.h>

/* runtime/check.h pulls in MPI, which nvcc does not see: the same check here */
#define TL_CUDA(expr)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return tl_error_report(TL_ERR_CUDA, TL_FILE_, __LINE__, #expr, "%s (%s)",              \
                                   cudaGetErrorString(e_), cudaGetErrorName(e_));                  \
    } while (0)

#define BLOCK 256

static unsigned grid_for(int64_t work, int per_block)
{
    int64_t g = (work + per_block - 1) / per_block;
    if (g < 1) g = 1;
    if (g > 2147483647) g = 2147483647;
    return (unsigned)g;
}

/* Kernel k on grid blocks of `threads` threads, as l says (kernels.h). */
template <typename... P, typename... A>
static tl_status launch_n(void (*k)(P...), unsigned grid, unsigned threads, tl_cu_launch l,
                          A... args)
{
    cudaLaunchConfig_t c = {};
    cudaLaunchAttribute at[1];
    c.gridDim = dim3(grid);
    c.blockDim = dim3(threads);
    c.stream = l.s;
    if (l.pdl) {
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        c.attrs = at;
        c.numAttrs = 1;
    }
    TL_CUDA(cudaLaunchKernelEx(&c, k, args...));
    return TL_OK;
}

template <typename... P, typename... A>
static tl_status launch(void (*k)(P...), unsigned grid, tl_cu_launch l, A... args)
{
    return launch_n(k, grid, BLOCK, l, args...);
}

/* Programmatic dependent launch, device side. The wait returns once the
 * previous kernel of the stream has completed and its memory is visible
 * (at once without a programmatic dependency); every kernel calls it
 * before its first load or store of anything another kernel writes. Then
 * the block lets the next kernel of the stream be scheduled: once every
 * block has, that kernel's blocks take the SMs this one's last blocks
 * leave, and prefetch, while it drains. The trigger comes after the wait:
 * before it, a successor could be scheduled while the kernel before this
 * one still runs, and hold SMs it needs. */
__device__ __forceinline__ static void pdl_begin(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

/* A hint: the line of p into L2 (no register waits for it). L2 is where
 * global memory is coherent, so a prefetch before pdl_begin reads no
 * stale value, whatever the previous kernel still writes. --prefetch
 * also issues one per operand for each thread's next entry, one grid
 * stride ahead, to put more bytes in flight than the resident threads'
 * registers hold; measured on an H200 it made every iteration slower, up
 * to 5 % (results/solver-pdl-h200/): off by default. */
__device__ __forceinline__ static void prefetch_l2(const void *p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/* ---- SpMV ----------------------------------------------------------------- */

extern "C" int tl_cu_spmv_pick_tpr(double mean_row, int64_t max_row)
{
    if (max_row > 256 && (double)max_row > 16.0 * mean_row) return 0;
    /* H200, results/solvers-h200/run2-b2d4186: one thread per row is the
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
 * The grid has a block per 256 / T rows. A one-wave grid whose threads
 * loop over rows (every block a full share, no partial last wave) was
 * measured on an H200 and dropped: equal at 128^3, 0.72 of triad against
 * 0.88 at 256^3 (results/solver-roof-h200/). */
/* x through L2 only (X_L2: the persistent loop, where other blocks of the
 * same kernel write x, and L1 is not coherent), else the read-only path */
template <bool X_L2>
__device__ __forceinline__ static double load_x(const double *x)
{
    return X_L2 ? __ldcg(x) : __ldg(x);
}

template <int T, bool X_L2 = false>
__device__ __forceinline__ static double spmv_row(int64_t row, int lane,
                                                  const int32_t *__restrict__ rowptr,
                                                  const int32_t *__restrict__ colidx,
                                                  const double *__restrict__ val,
                                                  const double *__restrict__ x)
{
    int32_t k0 = __ldg(rowptr + row), k1 = __ldg(rowptr + row + 1);
    double s = 0.0;
    int32_t k = k0 + lane;
    /* two entries per step: their index, value and x loads are all in
     * flight together (three dependent round trips per row, not five) */
    for (; k + T < k1; k += 2 * T) {
        int32_t c0 = __ldg(colidx + k), c1 = __ldg(colidx + k + T);
        double v0 = __ldg(val + k), v1 = __ldg(val + k + T);
        s += v0 * load_x<X_L2>(x + c0) + v1 * load_x<X_L2>(x + c1);
    }
    if (k < k1) s += __ldg(val + k) * load_x<X_L2>(x + __ldg(colidx + k));
    if (T > 1) {
        unsigned mask = T == 32 ? 0xffffffffu : (((1u << T) - 1u) << ((threadIdx.x & 31) / T * T));
        for (int o = T / 2; o > 0; o /= 2)
            s += __shfl_down_sync(mask, s, o, T);
    }
    return s;
}

template <int T>
__global__ void __launch_bounds__(BLOCK)
    tl_spmv_vector_kernel(int32_t nrows, const int32_t *__restrict__ rowptr,
                          const int32_t *__restrict__ colidx, const double *__restrict__ val,
                          const double *__restrict__ x, double *__restrict__ y, int accumulate)
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
    for (int64_t row = tid / T; row < nrows; row += rstride) {
        double s = spmv_row<T>(row, lane, rowptr, colidx, val, x);
        if (lane == 0) y[row] = accumulate ? y[row] + s : s;
    }
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
    unsigned g = grid_for((int64_t)a->nrows * a->tpr, BLOCK);
#define SPMV_CASE(T)                                                                               \
    case T:                                                                                        \
        return launch(tl_spmv_vector_kernel<T>, g, l, a->nrows, (const int32_t *)a->d_rowptr,     \
                      (const int32_t *)a->d_colidx, (const double *)a->d_val, d_x, d_y, accumulate)
    switch (a->tpr) {
        SPMV_CASE(1);
        SPMV_CASE(2);
        SPMV_CASE(4);
        SPMV_CASE(8);
        SPMV_CASE(16);
        SPMV_CASE(32);
    default:
        return TL_FAIL(TL_ERR_INVAL, "spmv: %d threads per row (1, 2, 4, ..., 32)", a->tpr);
    }
#undef SPMV_CASE
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

/* Block-wide sums of v[0..n-1] (every thread gets them; n the same in
 * every thread): per value a shuffle tree in each warp, then the warps'
 * sums in warp order, all n values through one pair of barriers. Each
 * value is summed exactly as a block_sum of it alone would be. sh holds
 * N x BLOCK / 32 doubles. */
template <int N>
__device__ static void block_sums(double *v, int n, double (*sh)[BLOCK / 32])
{
    int lane = threadIdx.x & 31, wid = threadIdx.x / 32;
#pragma unroll
    for (int k = 0; k < N; k++) {
        if (k >= n) break;
        for (int o = 16; o > 0; o /= 2)
            v[k] += __shfl_down_sync(0xffffffffu, v[k], o);
    }
    __syncthreads(); /* sh reused across calls */
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < N; k++) {
            if (k >= n) break;
            sh[k][wid] = v[k];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < N; k++) {
        if (k >= n) break;
        double t = 0.0;
        for (int w = 0; w < BLOCK / 32; w++)
            t += sh[k][w];
        v[k] = t;
    }
}

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

/* A program run's registers for the host (io.copy: mapped host memory):
 * the registers, a system-wide fence, then the run's number, which the
 * host polls for (backend_cuda.c, regs_get). No event on the stream is
 * needed to say they are there, and an event record between two kernels
 * would stop the second from being launched programmatically. */
__device__ static void publish_regs(const tl_sc_io &io, const double *regs)
{
    if (!io.copy) return;
    for (int q = 0; q < TL_SC_REGS; q++)
        io.copy[q] = regs[q];
    __threadfence_system();
    *(volatile double *)&io.copy[TL_SC_REGS] = io.copy_seq;
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

/* ---- the persistent Pipe-PCG loop ------------------------------------------ */

__device__ __forceinline__ static unsigned ld_acquire(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ static void st_release(unsigned *p, unsigned v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Until flags[lo .. hi] all reach `need` (1 + an iteration), the block's
 * threads polling them side by side; after the barrier the block's loads
 * see what the publishing blocks stored (their release, this acquire). */
__device__ static void loop_wait(const unsigned *flags, int32_t lo, int32_t hi, unsigned need)
{
    for (;;) {
        int ok = 1;
        for (int32_t j = lo + (int32_t)threadIdx.x; j <= hi; j += BLOCK)
            if ((int)(ld_acquire(flags + j) - need) < 0) ok = 0;
        if (__syncthreads_and(ok)) return;
        __nanosleep(64);
    }
}

/* After an item: every store of the block, then its flag. */
__device__ static void loop_publish(unsigned *flag, unsigned v)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        st_release(flag, v);
    }
}

/* Iteration k's program on its reduced dots (one thread, once per
 * iteration), its registers to the ring slot of its run. */
__device__ __forceinline__ static void loop_program(const tl_cu_loop_args &a, unsigned k,
                                                 const double *dots)
{
    int j = (int)(k - a.base), parity = a.parity0 ^ (j & 1);
    double regs[TL_SC_REGS], next[TL_SC_STATE];
    for (int q = 0; q < 3; q++)
        a.dots[q] = dots[q];
    tl_sc_pipecg(a.dots, a.state + parity * TL_SC_STATE, regs, next);
    for (int q = 0; q < TL_SC_STATE; q++)
        a.state[(1 - parity) * TL_SC_STATE + q] = next[q];
    for (int q = 0; q < TL_SC_REGS; q++)
        a.regs[q] = regs[q];
    int64_t run = a.run0 + j;
    tl_sc_io io = {};
    io.copy = a.ring + (run % a.ring_slots) * (TL_SC_REGS + 1);
    io.copy_seq = (double)(run + 1);
    publish_regs(io, regs);
}

/* DJ_k(t), and for the last of iteration k the reduction of the tiles'
 * partials (in tile order, so the dots do not depend on which block came
 * last) and the program. */
__device__ static void loop_dj(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                               int64_t e1, double (*sh)[BLOCK / 32], int *last)
{
    if (k != a.first) {
        loop_wait(a.fu, t, t, k);                 /* U_{k-1}(t): r, u, w */
        loop_wait(a.fs, a.rlo[t], a.rhi[t], k);   /* S_{k-1} done with m(t) */
    }
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t i = e0 + threadIdx.x; i < e1; i += BLOCK) {
        double r = __ldcg(a.r + i), u = __ldcg(a.u + i), w = __ldcg(a.w + i);
        acc[0] += r * u;
        acc[1] += w * u;
        acc[2] += r * r;
        a.m[i] = __ldg(a.dinv + i) * w;
    }
    block_sums<3>(acc, 3, sh);
    if (threadIdx.x == 0) {
        double *pt = a.part + 3 * (int64_t)t;
        pt[0] = acc[0];
        pt[1] = acc[1];
        pt[2] = acc[2];
    }
    loop_publish(a.fdj + t, k + 1);
    unsigned *count = a.djcount + (k & 1);
    if (threadIdx.x == 0) {
        __threadfence();
        *last = atomicAdd(count, 1u) == (unsigned)a.ntiles - 1;
    }
    __syncthreads();
    if (!*last) return;
    __threadfence();
    double v[3] = {0.0, 0.0, 0.0};
    for (int32_t b = threadIdx.x; b < a.ntiles; b += BLOCK)
        for (int q = 0; q < 3; q++)
            v[q] += __ldcg(a.part + 3 * (int64_t)b + q);
    block_sums<3>(v, 3, sh);
    if (threadIdx.x == 0) {
        loop_program(a, k, v);
        *count = 0;
        __threadfence();
        st_release(a.prog_done, k + 1);
    }
}

/* S_k(t): n = A m on the tile's rows (spmv_row's arithmetic). */
__device__ static void loop_s(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                              int64_t e1)
{
    loop_wait(a.fdj, a.flo[t], a.fhi[t], k + 1);
    for (int64_t row = e0 + threadIdx.x; row < e1; row += BLOCK)
        a.n[row] = spmv_row<1, true>(row, 0, a.rowptr, a.colidx, a.val, a.m);
    loop_publish(a.fs + t, k + 1);
}

/* U_k(t): tl_pipecg_update_kernel's arithmetic, its coefficients from the
 * registers of iteration k's program; in the launch's last iteration also
 * m = D^-1 w from the new w (Jacobi's product), which no DJ item of this
 * launch will make: then only once every S_k reading m(t) is done with it,
 * not just the tile's own. */
__device__ static void loop_u(const tl_cu_loop_args &a, int32_t t, unsigned k, int64_t e0,
                              int64_t e1, double *cf, int last_iteration)
{
    if (threadIdx.x == 0) {
        while ((int)(ld_acquire(a.prog_done) - (k + 1)) < 0)
            __nanosleep(64);
        cf[0] = __ldcg(a.regs + a.reg_alpha);
        cf[1] = __ldcg(a.regs + a.reg_beta);
    }
    if (last_iteration)
        loop_wait(a.fs, a.rlo[t], a.rhi[t], k + 1);
    else
        loop_wait(a.fs, t, t, k + 1);
    /* the second terms' coefficients as update_prologue makes them (1 or
     * -1 times a register: exact), from two registers */
    double alpha = cf[0], beta = cf[1];
    double c[8] = {1.0 * beta,  1.0 * beta,   1.0 * beta,   1.0 * beta,
                   1.0 * alpha, -1.0 * alpha, -1.0 * alpha, -1.0 * alpha};
    /* the vectors straight from the parameters (tl_cu_pipecg_operands'
     * order), not through arrays of pointers, which cost registers */
    for (int64_t i = e0 + threadIdx.x; i < e1; i += BLOCK) {
        double in[10] = {__ldcg(a.n + i), __ldcg(a.m + i), __ldcg(a.w + i), __ldcg(a.u + i),
                         __ldcg(a.x + i), __ldcg(a.r + i), __ldcg(a.z + i), __ldcg(a.q + i),
                         __ldcg(a.s + i), __ldcg(a.p + i)};
        double out[8];
        tl_cu_pipecg_values(in, c, out);
        a.z[i] = out[0];
        a.q[i] = out[1];
        a.s[i] = out[2];
        a.p[i] = out[3];
        a.x[i] = out[4];
        a.r[i] = out[5];
        a.u[i] = out[6];
        a.w[i] = out[7];
        if (last_iteration) a.m[i] = __ldg(a.dinv + i) * out[7];
    }
    loop_publish(a.fu + t, k + 1);
}

/* The items of iteration block kb (0 .. iters): U of iteration base + kb -
 * 1, DJ and S of iteration base + kb (loop_plan.h). Thread 0 takes the
 * next item's number as the current one starts, and stores it at its end. */
__global__ void __launch_bounds__(BLOCK, 4) tl_pipecg_loop_kernel(const __grid_constant__ tl_cu_loop_args a)
{
    __shared__ double sh[3][BLOCK / 32];
    __shared__ double cf[2];
    __shared__ unsigned next;
    __shared__ int last;
    const unsigned total = (unsigned)(a.iters + 1) * (unsigned)a.nitems;
    pdl_begin();
    if (threadIdx.x == 0) next = atomicAdd(a.counter, 1u);
    for (;;) {
        __syncthreads();
        unsigned it = next;
        __syncthreads();
        if (it >= total) return;
        unsigned ahead = threadIdx.x == 0 ? atomicAdd(a.counter, 1u) : 0u;
        int kb = (int)(it / (unsigned)a.nitems);
        uint32_t item = a.items[it % (unsigned)a.nitems];
        int step = TL_CU_ITEM_STEP(item);
        int32_t t = TL_CU_ITEM_TILE(item);
        int64_t e0 = (int64_t)t * a.tile, e1 = e0 + a.tile < a.nrows ? e0 + a.tile : a.nrows;
        unsigned k = a.base + (unsigned)kb;
        if (step == TL_CU_STEP_U && kb > 0)
            loop_u(a, t, k - 1, e0, e1, cf, kb == a.iters);
        else if (step == TL_CU_STEP_DJ && kb < a.iters)
            loop_dj(a, t, k, e0, e1, sh, &last);
        else if (step == TL_CU_STEP_S && kb < a.iters)
            loop_s(a, t, k, e0, e1);
        if (threadIdx.x == 0) next = ahead;
    }
}

extern "C" tl_status tl_cu_pipecg_loop_blocks(int sms, int *blocks)
{
    int per_sm = 0;
    TL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tl_pipecg_loop_kernel, BLOCK, 0));
    TL_CHECK(per_sm > 0, TL_ERR_CUDA, "persistent loop: no block fits on an SM");
    *blocks = per_sm * sms;
    return TL_OK;
}

extern "C" tl_status tl_cu_pipecg_loop(const tl_cu_loop_args *a, int blocks, cudaStream_t s)
{
    TL_CHECK(a->iters > 0 && a->ntiles > 0 && a->nitems == 3 * a->ntiles && blocks > 0,
             TL_ERR_INVAL, "persistent loop: %d iterations, %d tiles, %d items, %d blocks",
             a->iters, a->ntiles, a->nitems, blocks);
    TL_CHECK((int64_t)(a->iters + 1) * a->nitems < (int64_t)UINT32_MAX, TL_ERR_INVAL,
             "persistent loop: %d iterations of %d items overflow its counter", a->iters,
             a->nitems);
    TL_CUDA(cudaMemsetAsync(a->counter, 0, sizeof(unsigned), s));
    /* plain launch: the memset before it is not a kernel to overlap */
    return launch_n(tl_pipecg_loop_kernel, (unsigned)blocks, BLOCK, tl_cu_launch{s, 0}, *a);
}
