/* Free device memory and the check before a run allocates (runtime/gpu.h). */
#include "runtime/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/ctx.h"
#include "runtime/hostmem.h"

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

/* One rank's claim on its GPU, gathered where ranks share one. */
typedef struct gpu_claim {
    char host[64];
    int device;
    double need;
} gpu_claim;

/* What the ranks that share this rank's GPU (same host, same device) ask
 * together, and whether this rank is the first of them (the one that
 * speaks for them); the free memory was measured by each before any of
 * them allocated, since the gather orders every measure before every
 * claim. */
static tl_status shared_need(tl_ctx *ctx, double need, double *total_need, int *nranks, int *first)
{
    *total_need = need;
    *nranks = 1;
    *first = 1;
    if (!ctx->gpu_shared || !ctx->hc || ctx->size <= 1) return TL_OK;
    gpu_claim mine;
    memset(&mine, 0, sizeof mine);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0)
        snprintf(mine.host, sizeof mine.host, "unknown");
    mine.device = ctx->device;
    mine.need = need;
    gpu_claim *all = calloc((size_t)ctx->size, sizeof *all);
    tl_status st = tl_comm_agree(ctx, all ? TL_OK : TL_ERR_NOMEM);
    if (st == TL_OK) st = tl_comm_allgather(ctx, &mine, all, sizeof mine);
    if (st == TL_OK) {
        *total_need = 0;
        *nranks = 0;
        for (int r = 0; r < ctx->size; r++)
            if (all[r].device == mine.device && strcmp(all[r].host, mine.host) == 0) {
                *total_need += all[r].need;
                if (++*nranks == 1) *first = r == ctx->rank;
            }
    }
    free(all);
    if (st == TL_ERR_NOMEM) return TL_FAIL(st, "%d GPU claims", ctx->size);
    return st;
}

tl_status tl_gpu_mem_check(tl_ctx *ctx, const char *what, double need, const char *advice)
{
    double free_b = 0, total_b = 0;
    tl_status lst = tl_gpu_mem_info(&free_b, &total_b);
    TL_TRY(tl_comm_agree(ctx, lst));
    double together;
    int nranks, first;
    TL_TRY(shared_need(ctx, need, &together, &nranks, &first));
    char a[32], b[32], c[32], d[32], shared[96] = "";
    if (nranks > 1)
        snprintf(shared, sizeof shared, " (with the %d ranks that share it: %s)", nranks,
                 tl_bytes_str(together, d, sizeof d));
    lst = together <= free_b || !first /* one line for the GPU, from its first rank */
              ? TL_OK
              : TL_FAIL(TL_ERR_NOMEM, "%s needs %s on GPU %d%s; %s of its %s is free: %s", what,
                        tl_bytes_str(need, a, sizeof a), ctx->device, shared,
                        tl_bytes_str(free_b, b, sizeof b), tl_bytes_str(total_b, c, sizeof c),
                        advice);
    return tl_comm_agree(ctx, lst);
}
