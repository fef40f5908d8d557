/* z-column FDTD kernels (--kernel zcol8, zcol16, ...; issue 12's tuned
 * kernels, second try). A thread owns one (x, y) column of its box and
 * marches NZ consecutive z points; the z stencil's 2R operands stay in a
 * sliding register window, so each step loads one new plane of them
 * instead of 2R (the baseline's dominant L1/L2 traffic: 2R planes, reused
 * across blocks through L2 only), and the x and y neighbours come through
 * L1 (__ldg) as in the baseline. No shared memory and no barrier: the
 * loads of consecutive z steps are independent (restrict, read-only
 * fields), so they overlap, where the tiled kernels waited for memory
 * three times a plane.
 *
 * Bytes a step must move: the same 48 B per point as every kernel
 * (fdtd_kernels.h); a column re-reads 2R - 1 planes of its window per
 * chunk of NZ points (L2 hits mostly: neighbouring chunks read them too).
 *
 * Measured on one H200 at 480^3, single (results/fdtd-kernels-h200):
 * 43.7-48.1 Gpoints/s, 0.85-0.94x the baseline (0.70-0.76x with CPML).
 * The window did not pay: each step seems to wait for DRAM with too
 * few warps (60 registers) to hide it. The PF variants (next point's
 * loads first) were written after that run and are not measured yet.
 *
 * Arithmetic: per point exactly the baseline's (v_point, p_point in
 * fdtd_device.cuh), each derivative accumulated over m = 0..R-1 in that
 * order, the CPML correction through the same cpml_term; a point's result
 * does not depend on where its chunk starts, so decomposed runs equal the
 * single domain bit for bit.
 *
 * This header holds the templates; fdtd_zcol_<t><nz>.cu instantiate them
 * one precision and chunk length a file (so nvcc builds them in
 * parallel: one file of all 72 kernels took over 80 s), fdtd_zcol.cu
 * picks one per launch. CUDA only. */
#ifndef TL_FDTD_ZCOL_CUH
#define TL_FDTD_ZCOL_CUH

#include <cuda_runtime.h>

#include "stencil/fdtd_device.cuh"
#include "stencil/fdtd_kargs.h"

namespace {

constexpr int ZCOL_BX = 32; /* block width: one warp along x, rows aligned to 32 points */

/* One column's velocity update over nz points from zs (FULL: nz == NZ,
 * the loop unrolled without a bound check so the loads of later points
 * can go out early). q[j] = p(z - R + 1 + j) at step z. PF: the loads
 * that go to DRAM (the window's new plane, vx, vy, vz) of point z + 1 are
 * issued before point z's arithmetic, as the pipelined tiled kernels do,
 * rather than left to the compiler's scheduling. */
template <typename T, int R, int NZ, bool CPML, bool FULL, bool PF>
__device__ __forceinline__ void v_column(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t zs, int nz)
{
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
    int64_t i = a.off + x + y * sx + zs * sxy;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = __ldg(p + i + (k - R) * sxy);
    T n_q = 0, n_x = 0, n_y = 0, n_z = 0; /* PF: point z + 1's */
    if (PF) {
        n_q = __ldg(p + i + R * sxy);
        n_x = vx[i];
        n_y = vy[i];
        n_z = vz[i];
    }
#pragma unroll
    for (int k = 0; k < NZ; k++, i += sxy) {
        if (!FULL && k >= nz) break;
#pragma unroll
        for (int j = 0; j < 2 * R - 1; j++) q[j] = q[j + 1];
        T c_x = 0, c_y = 0, c_z = 0;
        if (PF) {
            q[2 * R - 1] = n_q;
            c_x = n_x;
            c_y = n_y;
            c_z = n_z;
            if (k + 1 < (FULL ? NZ : nz)) {
                const int64_t j = i + sxy;
                n_q = __ldg(p + j + R * sxy);
                n_x = vx[j];
                n_y = vy[j];
                n_z = vz[j];
            }
        } else q[2 * R - 1] = __ldg(p + i + R * sxy);
        const T pc = q[R - 1]; /* p(x, y, z) */
        T dx = 0, dy = 0, dz = 0;
#pragma unroll
        for (int m = 0; m < R; m++) {
            dx += c[m] * (__ldg(p + i + m + 1) - (m == 0 ? pc : __ldg(p + i - m)));
            dy += c[m] * (__ldg(p + i + (m + 1) * sx) - (m == 0 ? pc : __ldg(p + i - m * sx)));
            dz += c[m] * (q[R + m] - q[R - 1 - m]);
        }
        if (CPML) {
            const int64_t z = zs + k;
            dx = cpml_term<T>(a, 0, 0, a.o[0] + x, x, y, z, dx, TL_FDTD_PROF_AH);
            dy = cpml_term<T>(a, 1, 1, a.o[1] + y, x, y, z, dy, TL_FDTD_PROF_AH);
            dz = cpml_term<T>(a, 2, 2, a.o[2] + z, x, y, z, dz, TL_FDTD_PROF_AH);
        }
        const T bx = mx ? __ldg(mx + i) : bdt;
        const T by = my ? __ldg(my + i) : bdt;
        const T bz = mz ? __ldg(mz + i) : bdt;
        if (PF) {
            vx[i] = c_x - bx * dx;
            vy[i] = c_y - by * dy;
            vz[i] = c_z - bz * dz;
        } else {
            vx[i] -= bx * dx;
            vy[i] -= by * dy;
            vz[i] -= bz * dz;
        }
    }
}

/* One column's pressure update; q[j] = vz(z - R + j) at step z. PF: the
 * window's new plane and p of point z + 1 loaded before point z's work. */
template <typename T, int R, int NZ, bool CPML, bool FULL, bool PF>
__device__ __forceinline__ void p_column(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t zs, int nz)
{
    const int64_t sx = a.sx, sxy = a.sxy;
    T *__restrict__ p = (T *)a.f[0];
    const T *__restrict__ vx = (const T *)a.f[1];
    const T *__restrict__ vy = (const T *)a.f[2];
    const T *__restrict__ vz = (const T *)a.f[3];
    const T *__restrict__ mk = (const T *)a.mat[0];
    const T kdt = (T)a.kdt;
    T c[R];
    load_coeffs<T, R>(a, c);
    int64_t i = a.off + x + y * sx + zs * sxy;
    T q[2 * R];
#pragma unroll
    for (int k = 1; k < 2 * R; k++) q[k] = __ldg(vz + i + (k - R - 1) * sxy);
    T n_q = 0, n_p = 0; /* PF: point z + 1's */
    if (PF) {
        n_q = __ldg(vz + i + (R - 1) * sxy);
        n_p = p[i];
    }
#pragma unroll
    for (int k = 0; k < NZ; k++, i += sxy) {
        if (!FULL && k >= nz) break;
#pragma unroll
        for (int j = 0; j < 2 * R - 1; j++) q[j] = q[j + 1];
        T c_p = 0;
        if (PF) {
            q[2 * R - 1] = n_q;
            c_p = n_p;
            if (k + 1 < (FULL ? NZ : nz)) {
                const int64_t j = i + sxy;
                n_q = __ldg(vz + j + (R - 1) * sxy);
                n_p = p[j];
            }
        } else q[2 * R - 1] = __ldg(vz + i + (R - 1) * sxy);
        T dx = 0, dy = 0, dz = 0;
#pragma unroll
        for (int m = 0; m < R; m++) {
            dx += c[m] * (__ldg(vx + i + m) - __ldg(vx + i - m - 1));
            dy += c[m] * (__ldg(vy + i + m * sx) - __ldg(vy + i - (m + 1) * sx));
            dz += c[m] * (q[R + m] - q[R - 1 - m]);
        }
        if (CPML) {
            const int64_t z = zs + k;
            dx = cpml_term<T>(a, 3, 0, a.o[0] + x, x, y, z, dx, TL_FDTD_PROF_A);
            dy = cpml_term<T>(a, 4, 1, a.o[1] + y, x, y, z, dy, TL_FDTD_PROF_A);
            dz = cpml_term<T>(a, 5, 2, a.o[2] + z, x, y, z, dz, TL_FDTD_PROF_A);
        }
        const T k_ = mk ? __ldg(mk + i) : kdt;
        if (PF) p[i] = c_p - k_ * (dx + dy + dz);
        else p[i] -= k_ * (dx + dy + dz);
    }
}

/* Grid: x from xbase (the box's start rounded down to 32, so a warp's
 * row is one aligned line), y over the box in rows of blockDim.y, z in
 * chunks of NZ (the last one shorter). */
template <typename T, int R, int NZ, bool CPML, bool PF>
__global__ void __launch_bounds__(256) tl_fdtd_v_zcol_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b)
{
    const int64_t x = xbase + (int64_t)blockIdx.x * ZCOL_BX + threadIdx.x;
    const int64_t y = b.lo[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < b.lo[0] || x >= b.lo[0] + b.ex || y >= b.lo[1] + b.ey) return;
    const int64_t zs = b.lo[2] + (int64_t)blockIdx.z * NZ, left = b.lo[2] + b.ez - zs;
    if (left >= NZ) v_column<T, R, NZ, CPML, true, PF>(a, x, y, zs, NZ);
    else v_column<T, R, NZ, CPML, false, PF>(a, x, y, zs, (int)left);
}

template <typename T, int R, int NZ, bool CPML, bool PF>
__global__ void __launch_bounds__(256) tl_fdtd_p_zcol_kernel(const tl_fdtd_kargs a, int64_t xbase, box3 b)
{
    const int64_t x = xbase + (int64_t)blockIdx.x * ZCOL_BX + threadIdx.x;
    const int64_t y = b.lo[1] + (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (x < b.lo[0] || x >= b.lo[0] + b.ex || y >= b.lo[1] + b.ey) return;
    const int64_t zs = b.lo[2] + (int64_t)blockIdx.z * NZ, left = b.lo[2] + b.ez - zs;
    if (left >= NZ) p_column<T, R, NZ, CPML, true, PF>(a, x, y, zs, NZ);
    else p_column<T, R, NZ, CPML, false, PF>(a, x, y, zs, (int)left);
}

} // namespace

namespace tl_fdtd_zcol {

template <typename T, int R, int NZ, bool PF>
void launch(const tl_fdtd_kargs &a, int which, const int64_t lo[3], const int64_t hi[3], int by, bool cpml,
            cudaStream_t s)
{
    const box3 b = {{lo[0], lo[1], lo[2]}, (int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
    const int64_t xbase = b.lo[0] - (((b.lo[0] % ZCOL_BX) + ZCOL_BX) % ZCOL_BX);
    dim3 block(ZCOL_BX, (unsigned)by);
    dim3 grid((unsigned)((b.lo[0] + b.ex - xbase + ZCOL_BX - 1) / ZCOL_BX), (unsigned)((b.ey + by - 1) / by),
              (unsigned)((b.ez + NZ - 1) / NZ));
    if (which == 0) {
        if (cpml) tl_fdtd_v_zcol_kernel<T, R, NZ, true, PF><<<grid, block, 0, s>>>(a, xbase, b);
        else tl_fdtd_v_zcol_kernel<T, R, NZ, false, PF><<<grid, block, 0, s>>>(a, xbase, b);
    } else {
        if (cpml) tl_fdtd_p_zcol_kernel<T, R, NZ, true, PF><<<grid, block, 0, s>>>(a, xbase, b);
        else tl_fdtd_p_zcol_kernel<T, R, NZ, false, PF><<<grid, block, 0, s>>>(a, xbase, b);
    }
}

} // namespace tl_fdtd_zcol

/* The explicit instantiations of one file (fdtd_zcol_<t><nz>.cu): the three orders. */
#define TL_FDTD_ZCOL_INSTANTIATE(T, NZ, PF)                                                                         \
    template void tl_fdtd_zcol::launch<T, 1, NZ, PF>(const tl_fdtd_kargs &, int, const int64_t[3], const int64_t[3], \
                                                     int, bool, cudaStream_t);                                       \
    template void tl_fdtd_zcol::launch<T, 2, NZ, PF>(const tl_fdtd_kargs &, int, const int64_t[3], const int64_t[3], \
                                                     int, bool, cudaStream_t);                                       \
    template void tl_fdtd_zcol::launch<T, 4, NZ, PF>(const tl_fdtd_kargs &, int, const int64_t[3], const int64_t[3], \
                                                     int, bool, cudaStream_t);

#endif
