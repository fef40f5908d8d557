/* z-column kernels in double, chunks of 16 points, without and with prefetch (fdtd_zcol.cuh). */
#include "stencil/fdtd_zcol.cuh"

TL_FDTD_ZCOL_INSTANTIATE(double, 16, false)
TL_FDTD_ZCOL_INSTANTIATE(double, 16, true)
