/* Device memory a CUDA solve will allocate on one rank, estimated from
 * the rank's share of the matrix and the configuration before anything
 * is allocated, so that a matrix the GPU cannot hold is refused in one
 * line instead of failing in the middle of the set-up. Host code: the
 * estimate is tested without a GPU (tests/test_cuda_memneed.c). */
#ifndef TL_CU_MEMNEED_H
#define TL_CU_MEMNEED_H

#include "solvers/backends/backend.h"
#include "solvers/dist/dist.h"

/* Bytes: cfg->vectors vectors of nowned + nghost doubles (TL_BE_VECTORS_UNKNOWN
 * when 0), the diagonal and ghost blocks as int32 CSR with double values,
 * the inverse diagonal (Jacobi), the halo's send list and buffer, cuSPARSE's
 * work buffer, the persistent loop's plan and 4 MiB for the small ones; each
 * allocation rounded up to the 2 MiB the allocator hands out for large
 * ones. */
double tl_cu_be_memory_need(const tl_dist_matrix *m, const tl_backend_config *cfg);

#endif
