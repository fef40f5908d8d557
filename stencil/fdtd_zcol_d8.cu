/* z-column kernels in double, chunks of 8 points (fdtd_zcol.cuh). */
#include "stencil/fdtd_zcol.cuh"

TL_FDTD_ZCOL_INSTANTIATE(double, 8, false)
