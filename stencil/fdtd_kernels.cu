/* The FDTD kernels: the tuned interior updates (shared-memory x-y tiles,
 * register queues marching along z, after Micikevicius, "3D finite
 * difference computation on GPUs using CUDA", GPGPU-2 2009), the
 * one-thread-per-point baseline (the paper's raw kernels), the CPML
 * boundary kernels, pack/unpack, and the small ones (source, receivers,
 * blow-up check, energy). Bytes per point: see fdtd_kernels.h. */
#include <cuda_runtime.h>
#include <math.h>

/* includes runtime/error.h inside extern "C" */
#include "stencil/fdtd_kernels.h"
#include "stencil/fdtd_device.cuh"

/* runtime/check.h would pull in mpi.h, which nvcc does not see */
#define TL_CUDA(expr)                                                                              \
    do {                                                                                           \
        cudaError_t tl_ce_ = (expr);                                                               \
        if (tl_ce_ != cudaSuccess)                                                                 \
            return tl_error_report(TL_ERR_CUDA, __FILE__, __LINE__, #expr, "%s (%s)",              \
                                   cudaGetErrorString(tl_ce_), cudaGetErrorName(tl_ce_));          \
    } while (0)

namespace {

constexpr int TX = 32, TY = 16; /* tile of the tuned kernels: 512 threads */

/* Baseline: one thread per point (block 32 x 8, grid z over planes). */
template <typename T, int R>
__global__ void __launch_bounds__(256) tl_fdtd_v_naive_kernel(const tl_fdtd_kargs a, box3 b, bool cpml)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x < b.ex && y < b.ey) v_point<T, R>(a, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z, cpml);
}
template <typename T, int R>
__global__ void __launch_bounds__(256) tl_fdtd_p_naive_kernel(const tl_fdtd_kargs a, box3 b, bool cpml)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x < b.ex && y < b.ey) p_point<T, R>(a, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z, cpml);
}
/* CPML boundary kernels: the same per-point code on the slab boxes, under
 * their own names so their cost shows in traces. */
template <typename T, int R>
__global__ void __launch_bounds__(256) tl_fdtd_v_cpml_kernel(const tl_fdtd_kargs a, box3 b)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x < b.ex && y < b.ey) v_point<T, R>(a, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z, true);
}
template <typename T, int R>
__global__ void __launch_bounds__(256) tl_fdtd_p_cpml_kernel(const tl_fdtd_kargs a, box3 b)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x < b.ex && y < b.ey) p_point<T, R>(a, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z, true);
}

/* Where a thread of a tuned kernel stands: its column (x, y) in the box's
 * x range [x0, x1) and y range [y0, y1), its z chunk [zs, ze), and whether
 * it updates its point (active), loads its column (col: inside the halo'd
 * tile) or loads x / y halo points (hx, hy: the first R threads of a row or
 * column). The pipelined kernels use it; the tiled ones spell it out
 * because with it ptxas gave them up to 10 more registers (40 -> 50 for
 * p, double, order 2 on sm_90: a block fewer per SM). */
struct tile_pos {
    int tx, ty;
    int64_t x, y, x0, x1, y0, y1, zs, ze;
    bool active, col, hx, hy;
};

template <int R>
__device__ __forceinline__ tile_pos tile_pos_of(const box3 &b, int64_t xbase, int zchunk)
{
    tile_pos t;
    t.tx = threadIdx.x;
    t.ty = threadIdx.y;
    t.x = xbase + (int64_t)blockIdx.x * TX + t.tx;
    t.y = b.lo[1] + (int64_t)blockIdx.y * TY + t.ty;
    t.x0 = b.lo[0];
    t.x1 = b.lo[0] + b.ex;
    t.y0 = b.lo[1];
    t.y1 = b.lo[1] + b.ey;
    t.zs = b.lo[2] + (int64_t)blockIdx.z * zchunk;
    t.ze = t.zs + zchunk;
    if (t.ze > b.lo[2] + b.ez) t.ze = b.lo[2] + b.ez;
    t.active = t.x >= t.x0 && t.x < t.x1 && t.y < t.y1;
    t.col = t.x >= t.x0 - R && t.x < t.x1 + R && t.y >= t.y0 - R && t.y < t.y1 + R;
    t.hx = t.tx < R && t.y < t.y1 + R;
    t.hy = t.ty < R && t.x >= t.x0 - R && t.x < t.x1 + R;
    return t;
}

/* The velocity update's derivatives of p at the thread's point: x and y
 * from the shared plane sp, z from the register queue q (p(z) in q[R - 1]). */
template <typename T, int R>
__device__ __forceinline__ void v_derivs(const T (&sp)[TY + 2 * R][TX + 2 * R], const T (&q)[2 * R],
                                         const T (&c)[R], int tx, int ty, T &dx, T &dy, T &dz)
{
    dx = dy = dz = 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
        dx += c[m] * (sp[ty + R][tx + R + m + 1] - sp[ty + R][tx + R - m]);
        dy += c[m] * (sp[ty + R + m + 1][tx + R] - sp[ty + R - m][tx + R]);
        dz += c[m] * (q[R + m] - q[R - 1 - m]);
    }
}

/* The pressure update's derivatives: vx from its shared plane (x halos),
 * vy from its own (y halos), vz from the register queue. */
template <typename T, int R>
__device__ __forceinline__ void p_derivs(const T (&svx)[TY][TX + 2 * R], const T (&svy)[TY + 2 * R][TX],
                                         const T (&q)[2 * R], const T (&c)[R], int tx, int ty, T &dx, T &dy,
                                         T &dz)
{
    dx = dy = dz = 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
        dx += c[m] * (svx[ty][tx + R + m] - svx[ty][tx + R - m - 1]);
        dy += c[m] * (svy[ty + R + m][tx] - svy[ty + R - m - 1][tx]);
        dz += c[m] * (q[R + m] - q[R - 1 - m]);
    }
}

/* Tuned velocity update. A block owns a TX x TY column of points (tile
 * origin aligned to TX in x, so warps load whole 128-byte lines) and
 * marches along z over zchunk planes. Each thread keeps p(z - R + 1 ..
 * z + R) of its column in registers (the z derivative) and puts p(z) in
 * the shared plane, whose x and y halos edge threads load; so p comes
 * from DRAM once per point, vx, vy, vz are read and written once. */
template <typename T, int R>
__global__ void __launch_bounds__(TX *TY) tl_fdtd_v_tiled_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b,
                                                                 int zchunk)
{
    __shared__ T sp[TY + 2 * R][TX + 2 * R];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t x = xbase + (int64_t)blockIdx.x * TX + tx, y = b.lo[1] + (int64_t)blockIdx.y * TY + ty;
    const int64_t x0 = b.lo[0], x1 = b.lo[0] + b.ex, y0 = b.lo[1], y1 = b.lo[1] + b.ey;
    const int64_t zs = b.lo[2] + (int64_t)blockIdx.z * zchunk;
    int64_t ze = zs + zchunk;
    if (ze > b.lo[2] + b.ez) ze = b.lo[2] + b.ez;
    const bool active = x >= x0 && x < x1 && y < y1;
    const bool col = x >= x0 - R && x < x1 + R && y >= y0 - R && y < y1 + R; /* inside the halo'd tile */
    const int64_t sx = a.sx, sxy = a.sxy;
    const T *__restrict__ p = (const T *)a.f[0];
    T *__restrict__ vx = (T *)a.f[1];
    T *__restrict__ vy = (T *)a.f[2];
    T *__restrict__ vz = (T *)a.f[3];
    const T *__restrict__ mx = (const T *)a.mat[1];
    const T *__restrict__ my = (const T *)a.mat[2];
    const T *__restrict__ mz = (const T *)a.mat[3];
    const T bdt = (T)a.bdt;
    T c[R];
    load_coeffs<T, R>(a, c);
    const int64_t colbase = a.off + x + y * sx;
    const bool hx = tx < R && y < y1 + R, hy = ty < R && x >= x0 - R && x < x1 + R;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = col ? p[colbase + (zs - R + k) * sxy] : (T)0;
    for (int64_t z = zs; z < ze; z++) {
#pragma unroll
        for (int k = 0; k < 2 * R - 1; k++) q[k] = q[k + 1];
        const int64_t i = colbase + z * sxy;
        q[2 * R - 1] = col ? p[i + R * sxy] : (T)0;
        __syncthreads();
        sp[ty + R][tx + R] = q[R - 1];
        if (hx) {
            sp[ty + R][tx] = x - R >= x0 - R ? p[i - R] : (T)0;
            sp[ty + R][tx + TX + R] = x + TX < x1 + R ? p[i + TX] : (T)0;
        }
        if (hy) {
            sp[ty][tx + R] = y - R >= y0 - R ? p[i - R * sx] : (T)0;
            sp[ty + TY + R][tx + R] = y + TY < y1 + R ? p[i + TY * sx] : (T)0;
        }
        __syncthreads();
        if (active) {
            T dx, dy, dz;
            v_derivs<T, R>(sp, q, c, tx, ty, dx, dy, dz);
            vx[i] -= (mx ? mx[i] : bdt) * dx;
            vy[i] -= (my ? my[i] : bdt) * dy;
            vz[i] -= (mz ? mz[i] : bdt) * dz;
        }
    }
}

/* Tuned pressure update: vx in a shared plane with x halos, vy with y
 * halos, vz(z - R .. z + R - 1) in registers; p read and written once. */
template <typename T, int R>
__global__ void __launch_bounds__(TX *TY) tl_fdtd_p_tiled_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b,
                                                                 int zchunk)
{
    __shared__ T svx[TY][TX + 2 * R];
    __shared__ T svy[TY + 2 * R][TX];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t x = xbase + (int64_t)blockIdx.x * TX + tx, y = b.lo[1] + (int64_t)blockIdx.y * TY + ty;
    const int64_t x0 = b.lo[0], x1 = b.lo[0] + b.ex, y0 = b.lo[1], y1 = b.lo[1] + b.ey;
    const int64_t zs = b.lo[2] + (int64_t)blockIdx.z * zchunk;
    int64_t ze = zs + zchunk;
    if (ze > b.lo[2] + b.ez) ze = b.lo[2] + b.ez;
    const bool active = x >= x0 && x < x1 && y < y1;
    const bool col = x >= x0 - R && x < x1 + R && y >= y0 - R && y < y1 + R;
    const int64_t sx = a.sx, sxy = a.sxy;
    T *__restrict__ p = (T *)a.f[0];
    const T *__restrict__ vx = (const T *)a.f[1];
    const T *__restrict__ vy = (const T *)a.f[2];
    const T *__restrict__ vz = (const T *)a.f[3];
    const T *__restrict__ mk = (const T *)a.mat[0];
    const T kdt = (T)a.kdt;
    T c[R];
    load_coeffs<T, R>(a, c);
    const int64_t colbase = a.off + x + y * sx;
    const bool hx = tx < R && y < y1 + R, hy = ty < R && x >= x0 - R && x < x1 + R;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = col ? vz[colbase + (zs - R - 1 + k) * sxy] : (T)0;
    for (int64_t z = zs; z < ze; z++) {
#pragma unroll
        for (int k = 0; k < 2 * R - 1; k++) q[k] = q[k + 1];
        const int64_t i = colbase + z * sxy;
        q[2 * R - 1] = col ? vz[i + (R - 1) * sxy] : (T)0;
        __syncthreads();
        svx[ty][tx + R] = col ? vx[i] : (T)0;
        svy[ty + R][tx] = col ? vy[i] : (T)0;
        if (hx) {
            svx[ty][tx] = x - R >= x0 - R ? vx[i - R] : (T)0;
            svx[ty][tx + TX + R] = x + TX < x1 + R ? vx[i + TX] : (T)0;
        }
        if (hy) {
            svy[ty][tx] = y - R >= y0 - R ? vy[i - R * sx] : (T)0;
            svy[ty + TY + R][tx] = y + TY < y1 + R ? vy[i + TY * sx] : (T)0;
        }
        __syncthreads();
        if (active) {
            T dx, dy, dz;
            p_derivs<T, R>(svx, svy, q, c, tx, ty, dx, dy, dz);
            p[i] -= (mk ? mk[i] : kdt) * (dx + dy + dz);
        }
    }
}

/* Pipelined variants of the tiled kernels (--kernel pipelined): the same
 * tiles and queues, but every global load of plane z + 1 (queue tail,
 * halos, the values read-modified-written) is issued before plane z's
 * barriers and arithmetic, so a warp waits for memory once per plane, and
 * overlapped with its work, instead of three times (the tiled kernels'
 * trace on H200: 0.77 and 0.91 TB/s). Written after the H200 session:
 * checked against the CPU by the GPU tests; measured in results/device-session-b2d4186. */
template <typename T, int R>
__global__ void __launch_bounds__(TX *TY) tl_fdtd_v_pipe_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b, int zchunk)
{
    __shared__ T sp[TY + 2 * R][TX + 2 * R];
    const tile_pos t = tile_pos_of<R>(b, xbase, zchunk);
    const int tx = t.tx, ty = t.ty;
    const int64_t x = t.x, y = t.y, x0 = t.x0, x1 = t.x1, y1 = t.y1, zs = t.zs, ze = t.ze;
    const bool active = t.active, col = t.col, hx = t.hx, hy = t.hy;
    const bool hxl = hx && x >= x0, hxr = hx && x + TX < x1 + R, hyb = hy && y + TY < y1 + R;
    const int64_t sx = a.sx, sxy = a.sxy;
    const T *__restrict__ p = (const T *)a.f[0];
    T *__restrict__ vx = (T *)a.f[1];
    T *__restrict__ vy = (T *)a.f[2];
    T *__restrict__ vz = (T *)a.f[3];
    const T *__restrict__ mx = (const T *)a.mat[1];
    const T *__restrict__ my = (const T *)a.mat[2];
    const T *__restrict__ mz = (const T *)a.mat[3];
    const T bdt = (T)a.bdt;
    T c[R];
    load_coeffs<T, R>(a, c);
    const int64_t colbase = a.off + x + y * sx;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = col ? p[colbase + (zs - R + k) * sxy] : (T)0;
    /* plane zs's loads */
    int64_t i = colbase + zs * sxy;
    T n_p = col ? p[i + R * sxy] : (T)0;
    T n_l = hxl ? p[i - R] : (T)0, n_r = hxr ? p[i + TX] : (T)0;
    T n_t = hy ? p[i - R * sx] : (T)0, n_b = hyb ? p[i + TY * sx] : (T)0;
    T n_x = active ? vx[i] : (T)0, n_y = active ? vy[i] : (T)0, n_z = active ? vz[i] : (T)0;
    for (int64_t z = zs; z < ze; z++, i += sxy) {
        const T c_l = n_l, c_r = n_r, c_t = n_t, c_b = n_b, c_x = n_x, c_y = n_y, c_z = n_z;
#pragma unroll
        for (int k = 0; k < 2 * R - 1; k++) q[k] = q[k + 1];
        q[2 * R - 1] = n_p;
        if (z + 1 < ze) { /* plane z + 1's loads, in flight during plane z */
            const int64_t j = i + sxy;
            n_p = col ? p[j + R * sxy] : (T)0;
            n_l = hxl ? p[j - R] : (T)0;
            n_r = hxr ? p[j + TX] : (T)0;
            n_t = hy ? p[j - R * sx] : (T)0;
            n_b = hyb ? p[j + TY * sx] : (T)0;
            n_x = active ? vx[j] : (T)0;
            n_y = active ? vy[j] : (T)0;
            n_z = active ? vz[j] : (T)0;
        }
        __syncthreads();
        sp[ty + R][tx + R] = q[R - 1];
        if (hx) {
            sp[ty + R][tx] = c_l;
            sp[ty + R][tx + TX + R] = c_r;
        }
        if (hy) {
            sp[ty][tx + R] = c_t;
            sp[ty + TY + R][tx + R] = c_b;
        }
        __syncthreads();
        if (active) {
            T dx, dy, dz;
            v_derivs<T, R>(sp, q, c, tx, ty, dx, dy, dz);
            vx[i] = c_x - (mx ? mx[i] : bdt) * dx;
            vy[i] = c_y - (my ? my[i] : bdt) * dy;
            vz[i] = c_z - (mz ? mz[i] : bdt) * dz;
        }
    }
}

template <typename T, int R>
__global__ void __launch_bounds__(TX *TY) tl_fdtd_p_pipe_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b, int zchunk)
{
    __shared__ T svx[TY][TX + 2 * R];
    __shared__ T svy[TY + 2 * R][TX];
    const tile_pos t = tile_pos_of<R>(b, xbase, zchunk);
    const int tx = t.tx, ty = t.ty;
    const int64_t x = t.x, y = t.y, x0 = t.x0, x1 = t.x1, y1 = t.y1, zs = t.zs, ze = t.ze;
    const bool active = t.active, col = t.col, hx = t.hx, hy = t.hy;
    const bool hxl = hx && x >= x0, hxr = hx && x + TX < x1 + R, hyb = hy && y + TY < y1 + R;
    const int64_t sx = a.sx, sxy = a.sxy;
    T *__restrict__ p = (T *)a.f[0];
    const T *__restrict__ vx = (const T *)a.f[1];
    const T *__restrict__ vy = (const T *)a.f[2];
    const T *__restrict__ vz = (const T *)a.f[3];
    const T *__restrict__ mk = (const T *)a.mat[0];
    const T kdt = (T)a.kdt;
    T c[R];
    load_coeffs<T, R>(a, c);
    const int64_t colbase = a.off + x + y * sx;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = col ? vz[colbase + (zs - R - 1 + k) * sxy] : (T)0;
    int64_t i = colbase + zs * sxy;
    T n_z = col ? vz[i + (R - 1) * sxy] : (T)0;
    T n_cx = col ? vx[i] : (T)0, n_cy = col ? vy[i] : (T)0;
    T n_l = hxl ? vx[i - R] : (T)0, n_r = hxr ? vx[i + TX] : (T)0;
    T n_t = hy ? vy[i - R * sx] : (T)0, n_b = hyb ? vy[i + TY * sx] : (T)0;
    T n_p = active ? p[i] : (T)0;
    for (int64_t z = zs; z < ze; z++, i += sxy) {
        const T c_cx = n_cx, c_cy = n_cy, c_l = n_l, c_r = n_r, c_t = n_t, c_b = n_b, c_p = n_p;
#pragma unroll
        for (int k = 0; k < 2 * R - 1; k++) q[k] = q[k + 1];
        q[2 * R - 1] = n_z;
        if (z + 1 < ze) {
            const int64_t j = i + sxy;
            n_z = col ? vz[j + (R - 1) * sxy] : (T)0;
            n_cx = col ? vx[j] : (T)0;
            n_cy = col ? vy[j] : (T)0;
            n_l = hxl ? vx[j - R] : (T)0;
            n_r = hxr ? vx[j + TX] : (T)0;
            n_t = hy ? vy[j - R * sx] : (T)0;
            n_b = hyb ? vy[j + TY * sx] : (T)0;
            n_p = active ? p[j] : (T)0;
        }
        __syncthreads();
        svx[ty][tx + R] = c_cx;
        svy[ty + R][tx] = c_cy;
        if (hx) {
            svx[ty][tx] = c_l;
            svx[ty][tx + TX + R] = c_r;
        }
        if (hy) {
            svy[ty][tx] = c_t;
            svy[ty + TY + R][tx] = c_b;
        }
        __syncthreads();
        if (active) {
            T dx, dy, dz;
            p_derivs<T, R>(svx, svy, q, c, tx, ty, dx, dy, dz);
            p[i] = c_p - (mk ? mk[i] : kdt) * (dx + dy + dz);
        }
    }
}

template <typename T, int R>
cudaError_t launch_update(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, int cpml, int sms,
                          cudaStream_t s)
{
    if (variant == TL_FDTD_VARIANT_TILED || variant == TL_FDTD_VARIANT_PIPE) {
        int64_t xbase = b.lo[0] - (((b.lo[0] % TX) + TX) % TX);
        int64_t gx = (b.lo[0] + b.ex - xbase + TX - 1) / TX, gy = (b.ey + TY - 1) / TY;
        /* enough z chunks to fill the device about four blocks per SM deep;
         * each chunk re-reads 2R - 1 planes to fill its queue */
        int64_t want = (int64_t)(sms > 0 ? sms : 132) * 4, nz = (want + gx * gy - 1) / (gx * gy);
        int64_t maxc = (b.ez + 15) / 16;
        if (nz > maxc) nz = maxc;
        if (nz < 1) nz = 1;
        int zchunk = (int)((b.ez + nz - 1) / nz);
        nz = (b.ez + zchunk - 1) / zchunk;
        dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)nz), block(TX, TY);
        if (variant == TL_FDTD_VARIANT_PIPE) {
            if (which == 0) tl_fdtd_v_pipe_kernel<T, R><<<grid, block, 0, s>>>(a, xbase, b, zchunk);
            else tl_fdtd_p_pipe_kernel<T, R><<<grid, block, 0, s>>>(a, xbase, b, zchunk);
        } else if (which == 0) tl_fdtd_v_tiled_kernel<T, R><<<grid, block, 0, s>>>(a, xbase, b, zchunk);
        else tl_fdtd_p_tiled_kernel<T, R><<<grid, block, 0, s>>>(a, xbase, b, zchunk);
    } else {
        dim3 block(32, 8), grid((unsigned)((b.ex + 31) / 32), (unsigned)((b.ey + 7) / 8), (unsigned)b.ez);
        if (variant == TL_FDTD_VARIANT_CPML) {
            if (which == 0) tl_fdtd_v_cpml_kernel<T, R><<<grid, block, 0, s>>>(a, b);
            else tl_fdtd_p_cpml_kernel<T, R><<<grid, block, 0, s>>>(a, b);
        } else {
            if (which == 0) tl_fdtd_v_naive_kernel<T, R><<<grid, block, 0, s>>>(a, b, cpml != 0);
            else tl_fdtd_p_naive_kernel<T, R><<<grid, block, 0, s>>>(a, b, cpml != 0);
        }
    }
    return cudaPeekAtLastError();
}

template <typename T>
cudaError_t launch_order(const tl_fdtd_kargs &a, int which, const box3 &b, int variant, int cpml, int sms,
                         cudaStream_t s)
{
    switch (a.r) {
    case 1: return launch_update<T, 1>(a, which, b, variant, cpml, sms, s);
    case 2: return launch_update<T, 2>(a, which, b, variant, cpml, sms, s);
    default: return launch_update<T, 4>(a, which, b, variant, cpml, sms, s);
    }
}

template <typename T>
__global__ void tl_fdtd_source_kernel(T *p, int64_t idx, double v)
{
    p[idx] += (T)v;
}

template <typename T>
__global__ void tl_fdtd_sample_kernel(const T *p, const int64_t *idx, int n, double *out)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) out[j] = (double)p[idx[j]];
}

/* One thread per element of the message; the segment found by a scan
 * over the (at most 16) descriptors kept in shared memory. */
template <typename T>
__device__ __forceinline__ void pack_body(const tl_fdtd_segdesc *d, int nseg, int64_t total, T *buf, bool unpack)
{
    __shared__ tl_fdtd_segdesc sd[4 + 12];
    if (threadIdx.x < nseg) sd[threadIdx.x] = d[threadIdx.x];
    __syncthreads();
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += (int64_t)gridDim.x * blockDim.x) {
        int s = 0;
        while (s + 1 < nseg && j >= sd[s + 1].buf_off) s++;
        const tl_fdtd_segdesc &g = sd[s];
        int64_t q = j - g.buf_off;
        int64_t x = q % g.ext[0], r = q / g.ext[0], y = r % g.ext[1], z = r / g.ext[1];
        T *e = (T *)g.ptr + g.off + g.lo[0] + x + (g.lo[1] + y) * g.sx + (g.lo[2] + z) * g.sxy;
        if (unpack) *e = buf[j];
        else buf[j] = *e;
    }
}
template <typename T>
__global__ void __launch_bounds__(256) tl_fdtd_pack_kernel(const tl_fdtd_segdesc *d, int nseg, int64_t total, T *buf)
{
    pack_body<T>(d, nseg, total, buf, false);
}
template <typename T>
__global__ void __launch_bounds__(256) tl_fdtd_unpack_kernel(const tl_fdtd_segdesc *d, int nseg, int64_t total, T *buf)
{
    pack_body<T>(d, nseg, total, buf, true);
}

template <typename T>
__global__ void tl_fdtd_check_kernel(const T *p, tl_fdtd_layout l, int64_t nx, int64_t ny, int64_t total,
                                     double limit, unsigned long long *bad)
{
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = q % nx, y = q / nx % ny, z = q / (nx * ny);
        double v = (double)p[l.off + x + y * l.sx + z * l.sxy];
        if (!isfinite(v) || fabs(v) > limit) atomicMin(bad, (unsigned long long)q);
    }
}

template <typename T>
__global__ void __launch_bounds__(256) tl_fdtd_energy_kernel(const tl_fdtd_kargs a, int64_t nx, int64_t ny,
                                                             int64_t total, tl_fdtd_medium md, double *out)
{
    __shared__ double part[256];
    double e = 0;
    const T *p = (const T *)a.f[0], *vx = (const T *)a.f[1], *vy = (const T *)a.f[2], *vz = (const T *)a.f[3];
    for (int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (int64_t)gridDim.x * blockDim.x) {
        int64_t x = q % nx, y = q / nx % ny, z = q / (nx * ny);
        int64_t i = a.off + x + y * a.sx + z * a.sxy;
        e += tl_fdtd_medium_energy2(&md, a.o[2] + z, p[i], vx[i], vy[i], vz[i]);
    }
    part[threadIdx.x] = e;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, 0.5 * part[0]);
}

unsigned grid_for(int64_t n, int block)
{
    int64_t g = (n + block - 1) / block;
    return (unsigned)(g < 1 ? 1 : g > 65535 * 16 ? 65535 * 16 : g);
}

} // namespace

extern "C" tl_status tl_fdtd_cuda_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3], const int64_t hi[3],
                                         int variant, int cpml, int dbl, int sms, cudaStream_t s,
                                         const tl_fdtd_shell_stream *shell)
{
    box3 b = {{lo[0], lo[1], lo[2]}, (int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
    if (b.ex <= 0 || b.ey <= 0 || b.ez <= 0) return TL_OK;
    if (variant >= TL_FDTD_VARIANT_VEC2) { /* the vector variants come last, the z-column ones before */
        TL_CUDA(tl_fdtd_cuda_vec_update(a, which, lo, hi, variant, cpml, dbl, s, shell));
        return TL_OK;
    }
    if (variant >= TL_FDTD_VARIANT_ZCOL8) {
        TL_CUDA(tl_fdtd_cuda_zcol_update(a, which, lo, hi, variant, cpml, dbl, s));
        return TL_OK;
    }
    TL_CUDA(dbl ? launch_order<double>(*a, which, b, variant, cpml, sms, s)
                : launch_order<float>(*a, which, b, variant, cpml, sms, s));
    return TL_OK;
}

extern "C" tl_status tl_fdtd_cuda_source(void *d_p, int64_t idx, double value, int dbl, cudaStream_t s)
{
    if (dbl) tl_fdtd_source_kernel<double><<<1, 1, 0, s>>>((double *)d_p, idx, value);
    else tl_fdtd_source_kernel<float><<<1, 1, 0, s>>>((float *)d_p, idx, value);
    TL_CUDA(cudaPeekAtLastError());
    return TL_OK;
}

extern "C" tl_status tl_fdtd_cuda_sample(const void *d_p, const int64_t *d_idx, int n, double *d_out, int dbl,
                                         cudaStream_t s)
{
    if (n <= 0) return TL_OK;
    unsigned g = (unsigned)((n + 127) / 128);
    if (dbl) tl_fdtd_sample_kernel<double><<<g, 128, 0, s>>>((const double *)d_p, d_idx, n, d_out);
    else tl_fdtd_sample_kernel<float><<<g, 128, 0, s>>>((const float *)d_p, d_idx, n, d_out);
    TL_CUDA(cudaPeekAtLastError());
    return TL_OK;
}

extern "C" tl_status tl_fdtd_cuda_pack(const tl_fdtd_segdesc *d_desc, int nseg, int64_t total, void *d_buf,
                                       int unpack, int dbl, cudaStream_t s)
{
    if (total <= 0) return TL_OK;
    unsigned g = grid_for(total, 256);
    if (g > 8192) g = 8192;
    if (dbl && unpack) tl_fdtd_unpack_kernel<double><<<g, 256, 0, s>>>(d_desc, nseg, total, (double *)d_buf);
    else if (dbl) tl_fdtd_pack_kernel<double><<<g, 256, 0, s>>>(d_desc, nseg, total, (double *)d_buf);
    else if (unpack) tl_fdtd_unpack_kernel<float><<<g, 256, 0, s>>>(d_desc, nseg, total, (float *)d_buf);
    else tl_fdtd_pack_kernel<float><<<g, 256, 0, s>>>(d_desc, nseg, total, (float *)d_buf);
    TL_CUDA(cudaPeekAtLastError());
    return TL_OK;
}

extern "C" tl_status tl_fdtd_cuda_check(const void *d_p, const tl_fdtd_layout *l, const int64_t n[3], double limit,
                                        unsigned long long *d_bad, int dbl, cudaStream_t s)
{
    int64_t total = n[0] * n[1] * n[2];
    unsigned g = grid_for(total, 256);
    if (g > 4096) g = 4096;
    if (dbl) tl_fdtd_check_kernel<double><<<g, 256, 0, s>>>((const double *)d_p, *l, n[0], n[1], total, limit, d_bad);
    else tl_fdtd_check_kernel<float><<<g, 256, 0, s>>>((const float *)d_p, *l, n[0], n[1], total, limit, d_bad);
    TL_CUDA(cudaPeekAtLastError());
    return TL_OK;
}

extern "C" tl_status tl_fdtd_cuda_energy(const tl_fdtd_kargs *a, const int64_t n[3], const tl_fdtd_medium *md,
                                         double *d_e, int dbl, cudaStream_t s)
{
    int64_t total = n[0] * n[1] * n[2];
    unsigned g = grid_for(total, 256);
    if (g > 4096) g = 4096;
    if (dbl) tl_fdtd_energy_kernel<double><<<g, 256, 0, s>>>(*a, n[0], n[1], total, *md, d_e);
    else tl_fdtd_energy_kernel<float><<<g, 256, 0, s>>>(*a, n[0], n[1], total, *md, d_e);
    TL_CUDA(cudaPeekAtLastError());
    return TL_OK;
}
