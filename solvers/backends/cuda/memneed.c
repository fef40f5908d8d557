/* The CUDA backend's device memory estimate (memneed.h). */
#include "solvers/backends/cuda/memneed.h"

/* Large cudaMalloc allocations come in 2 MiB pages. */
static double rounded(double bytes)
{
    const double page = 2.0 * 1024 * 1024;
    return bytes <= 0     ? 0
           : bytes < page ? bytes
                          : ((double)(int64_t)((bytes + page - 1) / page)) * page;
}

static double csr_bytes(const tl_csr *a)
{
    double nnz = (double)(a->nnz > 0 ? a->nnz : 1);
    return rounded(4.0 * ((double)a->nrows + 1)) + rounded(4.0 * nnz) + rounded(8.0 * nnz);
}

double tl_cu_be_memory_need(const tl_dist_matrix *m, const tl_backend_config *cfg)
{
    double rows = (double)m->nowned, len = (double)(m->nowned + m->nghost);
    int vectors = cfg->vectors > 0 ? cfg->vectors : TL_BE_VECTORS_UNKNOWN;
    double need = vectors * rounded(8.0 * (len > 0 ? len : 1));
    need += csr_bytes(&m->diag) + csr_bytes(&m->offd);
    if (cfg->precond == TL_PRECOND_JACOBI) need += rounded(8.0 * rows);
    if (m->halo.nsend > 0)
        need +=
            rounded(4.0 * (double)(m->halo.nsend + 1)) + rounded(8.0 * (double)(m->halo.nsend + 1));
    /* cuSPARSE's CSR SpMV buffer, per block: at most a few words per row
     * (trilap's dot partials, one per block of a wave, are small ones) */
    if (cfg->spmv != 0 /* cusparse */)
        need += rounded(16.0 * (rows + 1)) + rounded(16.0 * ((double)m->offd.nrows + 1));
    /* the persistent loop's tiles hold at least 32 rows, 64 bytes of plan each */
    if (cfg->fused_iterations) need += rounded(2.0 * (rows + 32));
    /* the small ones (dot slots' partials, the SpMV's dot partials: at
     * most 8 blocks of 256 per SM, scalar state, registers, events'
     * pages): under 1 MiB together, allowed 4 */
    need += 4.0 * 1024 * 1024;
    return need;
}
