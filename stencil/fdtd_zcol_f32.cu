/* z-column kernels in float, chunks of 32 points, without and with prefetch (fdtd_zcol.cuh). */
#include "stencil/fdtd_zcol.cuh"

TL_FDTD_ZCOL_INSTANTIATE(float, 32, false)
TL_FDTD_ZCOL_INSTANTIATE(float, 32, true)
