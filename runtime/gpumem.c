/* Free device memory and the check before a run allocates (runtime/gpu.h). */
#include "runtime/gpu.h"

#include <stdio.h>
#include <stdlib.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/ctx.h"
#include "runtime/hostmem.h"
#include "runtime/hostshare.h"

#if TL_HAVE_CUDA
#include <cuda_runtime.h>
#endif

tl_status tl_gpu_mem_info(double *free_b, double *total_b)
{
    *free_b = *total_b = 0;
#if TL_HAVE_CUDA
    size_t f = 0, t = 0;
    TL_CUDA(cudaMemGetInfo(&f, &t));
    *free_b = (double)f;
    *total_b = (double)t;
#endif
    double v;
    int set;
    TL_TRY(tl_env_bytes("TRILAP_TEST_DEVICE_MEM", &v, &set));
    if (set) {
        *free_b = v;
        if (*total_b < v) *total_b = v;
    }
    return TL_OK;
}

/* The ranks that share this rank's GPU (same host, same device): what
 * they ask together, and their first rank, which speaks for them; each
 * measured its free memory before any of them allocated, since the
 * gather orders every measure before every claim. */
static tl_status gpu_pool(tl_ctx *ctx, double need, double free_b, tl_hostshare_pool *pool)
{
    *pool = (tl_hostshare_pool){.first = ctx->rank, .nranks = 1, .need = need, .room = free_b};
    if (!ctx->gpu_shared || !ctx->hc || ctx->size <= 1) return TL_OK;
    tl_hostshare share;
    TL_TRY(tl_hostshare_gather(ctx, TL_OK, TL_HOSTSHARE_DEVICE, need, free_b, &share));
    *pool = tl_hostshare_pool_of(&share, ctx->rank);
    tl_hostshare_free(&share);
    return TL_OK;
}

tl_status tl_gpu_mem_check(tl_ctx *ctx, const char *what, double need, const char *advice)
{
    double free_b = 0, total_b = 0;
    tl_status lst = tl_gpu_mem_info(&free_b, &total_b);
    TL_TRY(tl_comm_agree(ctx, lst));
    tl_hostshare_pool pool;
    TL_TRY(gpu_pool(ctx, need, free_b, &pool));
    char a[32], b[32], c[32], d[32], shared[96] = "";
    if (pool.nranks > 1)
        snprintf(shared, sizeof shared, " (with the %d ranks that share it: %s)", pool.nranks,
                 tl_bytes_str(pool.need, d, sizeof d));
    lst = pool.need <= pool.room || pool.first != ctx->rank /* one line for the GPU, from its first rank */
              ? TL_OK
              : TL_FAIL(TL_ERR_NOMEM, "%s needs %s on GPU %d%s; %s of its %s is free: %s", what,
                        tl_bytes_str(need, a, sizeof a), ctx->device, shared,
                        tl_bytes_str(free_b, b, sizeof b), tl_bytes_str(total_b, c, sizeof c),
                        advice);
    return tl_comm_agree(ctx, lst);
}
