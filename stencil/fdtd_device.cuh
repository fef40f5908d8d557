/* Device code shared by the FDTD kernel files (fdtd_kernels.cu,
 * fdtd_zcol.cu): the update box, the CPML correction of a derivative and
 * the coefficients in registers, so every kernel does a CPML point's
 * arithmetic in the same order (the CPU's). CUDA only. */
#ifndef TL_FDTD_DEVICE_CUH
#define TL_FDTD_DEVICE_CUH

#include <stdint.h>

#include "stencil/fdtd_kargs.h"

namespace {

struct box3 {
    int64_t lo[3];
    int ex, ey, ez;
};

/* The slab along axis e that global coordinate g lies in: 0 low, 1 high,
 * -1 none. */
__device__ __forceinline__ int cpml_side(const tl_fdtd_kargs &a, int e, int64_t g)
{
    return g < a.L ? 0 : (g >= a.N[e] - 1 - a.L ? 1 : -1);
}

/* The CPML correction of one derivative d with memory variable psi and
 * the profile's a, b, 1/kappa at the point: psi = b psi + a d, then
 * d / kappa + psi (the CPU's order). The fused multiply-adds are written
 * out so that every kernel, whichever path takes the point, rounds alike
 * (a decomposed run equals the single domain bit for bit). */
template <typename T>
__device__ __forceinline__ T cpml_apply(T d, T &psi, T pa, T pb, T pik)
{
    psi = fma(pb, psi, pa * d);
    return fma(d, pik, psi);
}

/* Element (x, y, z) of memory variable m in the slab of `side`. */
template <typename T>
__device__ __forceinline__ T *cpml_psi(const tl_fdtd_kargs &a, int m, int side, int64_t x, int64_t y, int64_t z)
{
    /* two constant-index parameter reads and a select, not a dynamic
     * index into the parameter space */
    const tl_fdtd_layout &l = side == 0 ? a.psil[m][0] : a.psil[m][1];
    return (T *)(side == 0 ? a.psi[m][0] : a.psi[m][1]) + l.off + x + y * l.sx + z * l.sxy;
}

/* The CPML correction of one derivative d along axis e at global
 * coordinate g (memory variable m, profile pa). */
template <typename T>
__device__ __forceinline__ T cpml_term(const tl_fdtd_kargs &a, int m, int e, int64_t g, int64_t x, int64_t y,
                                       int64_t z, T d, int pa)
{
    int side = cpml_side(a, e, g);
    if (side < 0) return d;
    T *ps = cpml_psi<T>(a, m, side, x, y, z);
    const T *pr = (const T *)a.prof[e];
    int64_t n = a.N[e];
    T v = *ps;
    d = cpml_apply(d, v, pr[pa * n + g], pr[(pa + 1) * n + g], pr[(pa + 2) * n + g]);
    *ps = v;
    return d;
}

/* One point of the velocity (v_point) or pressure (p_point) update, the
 * baseline's per-point code (the CPU's order): each derivative summed over
 * m = 0..R-1, the CPML correction when `cpml`, then the field update.
 * Every kernel either calls these or repeats their arithmetic exactly. */
template <typename T, int R>
__device__ __forceinline__ void v_point(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, bool cpml)
{
    const T *p = (const T *)a.f[0];
    const int64_t sx = a.sx, sxy = a.sxy, i = a.off + x + y * sx + z * sxy;
    T dx = 0, dy = 0, dz = 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
        T c = (T)a.c[m];
        dx += c * (p[i + m + 1] - p[i - m]);
        dy += c * (p[i + (m + 1) * sx] - p[i - m * sx]);
        dz += c * (p[i + (m + 1) * sxy] - p[i - m * sxy]);
    }
    if (cpml) {
        dx = cpml_term<T>(a, 0, 0, a.o[0] + x, x, y, z, dx, TL_FDTD_PROF_AH);
        dy = cpml_term<T>(a, 1, 1, a.o[1] + y, x, y, z, dy, TL_FDTD_PROF_AH);
        dz = cpml_term<T>(a, 2, 2, a.o[2] + z, x, y, z, dz, TL_FDTD_PROF_AH);
    }
    T bx = a.mat[1] ? ((const T *)a.mat[1])[i] : (T)a.bdt;
    T by = a.mat[2] ? ((const T *)a.mat[2])[i] : (T)a.bdt;
    T bz = a.mat[3] ? ((const T *)a.mat[3])[i] : (T)a.bdt;
    ((T *)a.f[1])[i] -= bx * dx;
    ((T *)a.f[2])[i] -= by * dy;
    ((T *)a.f[3])[i] -= bz * dz;
}

template <typename T, int R>
__device__ __forceinline__ void p_point(const tl_fdtd_kargs &a, int64_t x, int64_t y, int64_t z, bool cpml)
{
    const T *vx = (const T *)a.f[1], *vy = (const T *)a.f[2], *vz = (const T *)a.f[3];
    const int64_t sx = a.sx, sxy = a.sxy, i = a.off + x + y * sx + z * sxy;
    T dx = 0, dy = 0, dz = 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
        T c = (T)a.c[m];
        dx += c * (vx[i + m] - vx[i - m - 1]);
        dy += c * (vy[i + m * sx] - vy[i - (m + 1) * sx]);
        dz += c * (vz[i + m * sxy] - vz[i - (m + 1) * sxy]);
    }
    if (cpml) {
        dx = cpml_term<T>(a, 3, 0, a.o[0] + x, x, y, z, dx, TL_FDTD_PROF_A);
        dy = cpml_term<T>(a, 4, 1, a.o[1] + y, x, y, z, dy, TL_FDTD_PROF_A);
        dz = cpml_term<T>(a, 5, 2, a.o[2] + z, x, y, z, dz, TL_FDTD_PROF_A);
    }
    T k = a.mat[0] ? ((const T *)a.mat[0])[i] : (T)a.kdt;
    ((T *)a.f[0])[i] -= k * (dx + dy + dz);
}

/* The stencil's coefficients, in registers. */
template <typename T, int R>
__device__ __forceinline__ void load_coeffs(const tl_fdtd_kargs &a, T (&c)[R])
{
#pragma unroll
    for (int m = 0; m < R; m++) c[m] = (T)a.c[m];
}

} // namespace

#endif
