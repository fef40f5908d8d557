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

/* The CPML correction of one derivative d along axis e at global
 * coordinate g: psi = b psi + a d, d / kappa + psi (the CPU's order). */
template <typename T>
__device__ __forceinline__ T cpml_term(const tl_fdtd_kargs &a, int m, int e, int64_t g, int64_t x, int64_t y,
                                       int64_t z, T d, int pa)
{
    int side = g < a.L ? 0 : (g >= a.N[e] - 1 - a.L ? 1 : -1);
    if (side < 0) return d;
    const tl_fdtd_layout &l = a.psil[m][side];
    T *ps = (T *)a.psi[m][side] + l.off + x + y * l.sx + z * l.sxy;
    const T *pr = (const T *)a.prof[e];
    int64_t n = a.N[e];
    T v = pr[(pa + 1) * n + g] * *ps + pr[pa * n + g] * d;
    *ps = v;
    return d * pr[(pa + 2) * n + g] + v;
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
