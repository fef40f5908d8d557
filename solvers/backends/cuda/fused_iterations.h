/* The fused-iteration operation of the CUDA backend (fused_iterations.c):
 * what it can run for a matrix and configuration, and k iterations of a
 * method in one persistent kernel. */
#ifndef TL_CU_FUSED_ITERATIONS_H
#define TL_CU_FUSED_ITERATIONS_H

#include "solvers/backends/cuda/cuda_backend.h"

tl_status tl_cu_be_caps(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                        tl_backend_caps *out);
tl_status tl_cu_be_fused_iterations(tl_backend *be, const tl_iteration *it, int64_t first_tag,
                                    int n);
void tl_cu_be_loop_free(cuda_backend *cb);

#endif
