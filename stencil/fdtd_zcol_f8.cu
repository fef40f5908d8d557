/* z-column kernels in float, chunks of 8 points (fdtd_zcol.cuh). */
#include "stencil/fdtd_zcol.cuh"

TL_FDTD_ZCOL_INSTANTIATE(float, 8, false)
