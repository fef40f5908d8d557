/* The z-column kernels' launcher (variants TL_FDTD_VARIANT_ZCOL*): the
 * kernels and their bytes per point are in fdtd_zcol.cuh, instantiated
 * by fdtd_zcol_<t><nz>.cu. */
#include <cuda_runtime.h>

/* includes runtime/error.h inside extern "C" */
#include "stencil/fdtd_kernels.h"

namespace tl_fdtd_zcol {
/* defined in fdtd_zcol.cuh, instantiated in fdtd_zcol_<t><nz>.cu */
template <typename T, int R, int NZ, bool PF>
void launch(const tl_fdtd_kargs &a, int which, const int64_t lo[3], const int64_t hi[3], int by, bool cpml,
            cudaStream_t s);
} // namespace tl_fdtd_zcol

namespace {

template <typename T, int R>
void launch_variant(const tl_fdtd_kargs &a, int which, const int64_t lo[3], const int64_t hi[3], int variant,
                    bool cpml, cudaStream_t s)
{
    using namespace tl_fdtd_zcol;
    switch (variant) { /* chunk of NZ points, blocks of 32 x by, prefetch */
    case TL_FDTD_VARIANT_ZCOL8: launch<T, R, 8, false>(a, which, lo, hi, 8, cpml, s); break;
    case TL_FDTD_VARIANT_ZCOL16_Y4: launch<T, R, 16, false>(a, which, lo, hi, 4, cpml, s); break;
    case TL_FDTD_VARIANT_ZCOL32_Y4: launch<T, R, 32, false>(a, which, lo, hi, 4, cpml, s); break;
    case TL_FDTD_VARIANT_ZCOL16_Y4_PF: launch<T, R, 16, true>(a, which, lo, hi, 4, cpml, s); break;
    case TL_FDTD_VARIANT_ZCOL32_Y4_PF: launch<T, R, 32, true>(a, which, lo, hi, 4, cpml, s); break;
    default: launch<T, R, 16, false>(a, which, lo, hi, 8, cpml, s); break;
    }
}

template <typename T>
void launch_order(const tl_fdtd_kargs &a, int which, const int64_t lo[3], const int64_t hi[3], int variant,
                  bool cpml, cudaStream_t s)
{
    switch (a.r) {
    case 1: launch_variant<T, 1>(a, which, lo, hi, variant, cpml, s); break;
    case 2: launch_variant<T, 2>(a, which, lo, hi, variant, cpml, s); break;
    default: launch_variant<T, 4>(a, which, lo, hi, variant, cpml, s); break;
    }
}

} // namespace

extern "C" cudaError_t tl_fdtd_cuda_zcol_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3],
                                                const int64_t hi[3], int variant, int cpml, int dbl, cudaStream_t s)
{
    if (hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]) return cudaSuccess;
    if (dbl) launch_order<double>(*a, which, lo, hi, variant, cpml != 0, s);
    else launch_order<float>(*a, which, lo, hi, variant, cpml != 0, s);
    return cudaPeekAtLastError();
}
