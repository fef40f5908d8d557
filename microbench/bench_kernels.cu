/* Kernels of trilap-bench: the tristream DAXPY, pattern fill/check for the
 * correctness checks, and BabelStream's five functions. Memory-bound: the
 * DAXPY moves 24 B per element (read x, y; write y), triad 24 B, copy and
 * mul 16 B, add 24 B, dot 16 B; double2 loads halve the instructions per
 * byte, which is what lets one H200 get near its 4.8 TB/s. */
#include <cuda_runtime.h>

/* includes runtime/error.h inside extern "C": its functions are C */
#include "microbench/bench_kernels.h"

#define TL_KLAUNCHED(what)                                                                         \
    do {                                                                                           \
        cudaError_t e_ = cudaPeekAtLastError();                                                    \
        if (e_ != cudaSuccess)                                                                     \
            return tl_error_report(TL_ERR_CUDA, __FILE__, __LINE__, what, "%s (%s)",               \
                                   cudaGetErrorString(e_), cudaGetErrorName(e_));                  \
    } while (0)

static unsigned grid_for(int64_t items, int block)
{
    int64_t g = (items + block - 1) / block;
    if (g < 1) g = 1;
    if (g > 0x7fffffff) g = 0x7fffffff;
    return (unsigned)g;
}

/* ---- DAXPY ------------------------------------------------------------------ */

__global__ void tl_bench_daxpy_kernel(int64_t n, double a, const double *__restrict__ x,
                                      double *__restrict__ y)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 2;
    if (i + 1 < n) {
        double2 xv = *reinterpret_cast<const double2 *>(x + i);
        double2 yv = *reinterpret_cast<double2 *>(y + i);
        yv.x = fma(a, xv.x, yv.x);
        yv.y = fma(a, xv.y, yv.y);
        *reinterpret_cast<double2 *>(y + i) = yv;
    } else if (i < n) {
        y[i] = fma(a, x[i], y[i]);
    }
}

__global__ void tl_bench_daxpy_stride_kernel(int64_t n, double a, const double *__restrict__ x,
                                             double *__restrict__ y)
{
    int64_t pairs = n / 2, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += stride) {
        double2 xv = reinterpret_cast<const double2 *>(x)[p];
        double2 yv = reinterpret_cast<double2 *>(y)[p];
        yv.x = fma(a, xv.x, yv.x);
        yv.y = fma(a, xv.y, yv.y);
        reinterpret_cast<double2 *>(y)[p] = yv;
    }
    if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) y[n - 1] = fma(a, x[n - 1], y[n - 1]);
}

extern "C" tl_status tl_bench_daxpy(int64_t n, double a, const double *d_x, double *d_y, int blocks,
                                    cudaStream_t s)
{
    if (blocks > 0)
        tl_bench_daxpy_stride_kernel<<<(unsigned)blocks, TL_BENCH_BLOCK, 0, s>>>(n, a, d_x, d_y);
    else
        tl_bench_daxpy_kernel<<<grid_for((n + 1) / 2, TL_BENCH_BLOCK), TL_BENCH_BLOCK, 0, s>>>(
            n, a, d_x, d_y);
    TL_KLAUNCHED("tl_bench_daxpy_kernel<<<>>>");
    return TL_OK;
}

/* ---- fill / check ---------------------------------------------------------------- */

__global__ void tl_bench_fill_kernel(double *d, int64_t n, tl_bench_expect e)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        d[j] = tl_bench_expect_value(&e, j);
}

__global__ void tl_bench_check_kernel(const double *d, int64_t n, tl_bench_expect e,
                                      unsigned long long *wrong)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        mine += (unsigned long long)tl_bench_expect_wrong(&e, j, d[j]);
    if (mine) atomicAdd(wrong, mine);
}

/* Fill and check are outside the timed loops: a bounded grid is enough. */
static unsigned small_grid(int64_t n)
{
    unsigned g = grid_for(n, TL_BENCH_BLOCK);
    return g > 4096 ? 4096 : g;
}

extern "C" tl_status tl_bench_fill(double *d, int64_t n, tl_bench_expect e, cudaStream_t s)
{
    tl_bench_fill_kernel<<<small_grid(n), TL_BENCH_BLOCK, 0, s>>>(d, n, e);
    TL_KLAUNCHED("tl_bench_fill_kernel<<<>>>");
    return TL_OK;
}

extern "C" tl_status tl_bench_check(const double *d, int64_t n, tl_bench_expect e,
                                    unsigned long long *d_wrong, cudaStream_t s)
{
    tl_bench_check_kernel<<<small_grid(n), TL_BENCH_BLOCK, 0, s>>>(d, n, e, d_wrong);
    TL_KLAUNCHED("tl_bench_check_kernel<<<>>>");
    return TL_OK;
}

/* ---- STREAM ---------------------------------------------------------------------- */

/* One element (V=1) or one double2 (V=2) per thread, no loop: the grid
 * covers the array, as BabelStream's CUDA backend does. */
template <int V, typename Op> __device__ __forceinline__ void stream_apply(int64_t n, Op op)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (V == 2) {
        int64_t i = 2 * t;
        if (i + 1 < n)
            op.pair(t);
        else if (i < n)
            op.one(i);
    } else if (t < n) {
        op.one(t);
    }
}

struct copy_op {
    const double *__restrict__ a;
    double *__restrict__ c;
    __device__ void one(int64_t i) const { c[i] = a[i]; }
    __device__ void pair(int64_t p) const
    {
        reinterpret_cast<double2 *>(c)[p] = reinterpret_cast<const double2 *>(a)[p];
    }
};
struct mul_op {
    double *__restrict__ b;
    const double *__restrict__ c;
    double s;
    __device__ void one(int64_t i) const { b[i] = s * c[i]; }
    __device__ void pair(int64_t p) const
    {
        double2 v = reinterpret_cast<const double2 *>(c)[p];
        reinterpret_cast<double2 *>(b)[p] = make_double2(s * v.x, s * v.y);
    }
};
struct add_op {
    const double *__restrict__ a;
    const double *__restrict__ b;
    double *__restrict__ c;
    __device__ void one(int64_t i) const { c[i] = a[i] + b[i]; }
    __device__ void pair(int64_t p) const
    {
        double2 x = reinterpret_cast<const double2 *>(a)[p],
                y = reinterpret_cast<const double2 *>(b)[p];
        reinterpret_cast<double2 *>(c)[p] = make_double2(x.x + y.x, x.y + y.y);
    }
};
struct triad_op {
    double *__restrict__ a;
    const double *__restrict__ b;
    const double *__restrict__ c;
    double s;
    __device__ void one(int64_t i) const { a[i] = b[i] + s * c[i]; }
    __device__ void pair(int64_t p) const
    {
        double2 x = reinterpret_cast<const double2 *>(b)[p],
                y = reinterpret_cast<const double2 *>(c)[p];
        reinterpret_cast<double2 *>(a)[p] = make_double2(x.x + s * y.x, x.y + s * y.y);
    }
};

template <int V, typename Op> __global__ void tl_stream_kernel(int64_t n, Op op)
{
    stream_apply<V>(n, op);
}

template <typename Op>
static tl_status stream_launch(int64_t n, int block, int vector, Op op, cudaStream_t s,
                               const char *what)
{
    if (vector == 2)
        tl_stream_kernel<2><<<grid_for((n + 1) / 2, block), block, 0, s>>>(n, op);
    else
        tl_stream_kernel<1><<<grid_for(n, block), block, 0, s>>>(n, op);
    TL_KLAUNCHED(what);
    return TL_OK;
}

extern "C" tl_status tl_stream_copy(const double *a, double *c, int64_t n, int block, int vector,
                                    cudaStream_t s)
{
    return stream_launch(n, block, vector, copy_op{a, c}, s, "tl_stream_kernel<copy><<<>>>");
}
extern "C" tl_status tl_stream_mul(double *b, const double *c, double scalar, int64_t n, int block,
                                   int vector, cudaStream_t s)
{
    return stream_launch(n, block, vector, mul_op{b, c, scalar}, s, "tl_stream_kernel<mul><<<>>>");
}
extern "C" tl_status tl_stream_add(const double *a, const double *b, double *c, int64_t n,
                                   int block, int vector, cudaStream_t s)
{
    return stream_launch(n, block, vector, add_op{a, b, c}, s, "tl_stream_kernel<add><<<>>>");
}
extern "C" tl_status tl_stream_triad(double *a, const double *b, const double *c, double scalar,
                                     int64_t n, int block, int vector, cudaStream_t s)
{
    return stream_launch(n, block, vector, triad_op{a, b, c, scalar}, s,
                         "tl_stream_kernel<triad><<<>>>");
}

/* Block sum through warp shuffles; blockDim.x a multiple of 32, <= 1024. */
__device__ double block_sum(double v)
{
    __shared__ double warp_sums[32];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) >> 5;
    v = threadIdx.x < nwarps ? warp_sums[threadIdx.x] : 0.0;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
    return v; /* valid in thread 0 */
}

__global__ void tl_stream_dot_kernel(const double *__restrict__ a, const double *__restrict__ b,
                                     int64_t n, double *partial)
{
    int64_t pairs = n / 2, stride = (int64_t)gridDim.x * blockDim.x;
    double sum = 0.0;
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < pairs; p += stride) {
        double2 x = reinterpret_cast<const double2 *>(a)[p],
                y = reinterpret_cast<const double2 *>(b)[p];
        sum += x.x * y.x + x.y * y.y;
    }
    if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) sum += a[n - 1] * b[n - 1];
    sum = block_sum(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void tl_stream_dot_final_kernel(const double *partial, int nparts, double *out)
{
    double sum = 0.0;
    for (int i = threadIdx.x; i < nparts; i += blockDim.x)
        sum += partial[i];
    sum = block_sum(sum);
    if (threadIdx.x == 0) *out = sum;
}

extern "C" tl_status tl_stream_dot(const double *a, const double *b, int64_t n, int block,
                                   int nblocks, double *d_partial, double *d_sum, cudaStream_t s)
{
    tl_stream_dot_kernel<<<(unsigned)nblocks, block, 0, s>>>(a, b, n, d_partial);
    TL_KLAUNCHED("tl_stream_dot_kernel<<<>>>");
    tl_stream_dot_final_kernel<<<1, 1024, 0, s>>>(d_partial, nblocks, d_sum);
    TL_KLAUNCHED("tl_stream_dot_final_kernel<<<>>>");
    return TL_OK;
}
