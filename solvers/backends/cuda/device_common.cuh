/* What the CUDA solver kernels share (kernels.cu, loop_kernels.cu): the
 * launch helpers, programmatic dependent launch, the CSR row product,
 * block sums and the registers' publication to the host. Device code
 * only; included by .cu files of this folder. */
#ifndef TL_CU_DEVICE_COMMON_CUH
#define TL_CU_DEVICE_COMMON_CUH

#include "solvers/backends/cuda/kernels.h"

/* runtime/check.h pulls in MPI, which nvcc does not see: the same check here */
#define TL_CUDA(expr)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return tl_error_report(TL_ERR_CUDA, TL_FILE_, __LINE__, #expr, "%s (%s)",              \
                                   cudaGetErrorString(e_), cudaGetErrorName(e_));                  \
    } while (0)

#define BLOCK 256

static inline unsigned grid_for(int64_t work, int per_block)
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

/* A program run's registers for the host (io.copy: mapped host memory):
 * the registers, a system-wide fence, then the run's number, which the
 * host polls for (backend_cuda_scalars.c, regs_get). No event on the stream is
 * needed to say they are there, and an event record between two kernels
 * would stop the second from being launched programmatically. */
__device__ __forceinline__ static void publish_regs(const tl_sc_io &io, const double *regs)
{
    if (!io.copy) return;
    for (int q = 0; q < TL_SC_REGS; q++)
        io.copy[q] = regs[q];
    __threadfence_system();
    *(volatile double *)&io.copy[TL_SC_REGS] = io.copy_seq;
}

#endif
