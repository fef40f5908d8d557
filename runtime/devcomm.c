/* Device-buffer communication: provider choice, argument checks, then the
 * provider's table. */
#include "runtime/devcomm.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/devcomm_impl.h"
#include "runtime/marks.h"

static const tl_devcomm_ops *const tl_devcomm_providers[TL_DEVCOMM_COUNT] = {
    [TL_DEVCOMM_NCCL] = &tl_devcomm_nccl_ops,
    [TL_DEVCOMM_HOST] = &tl_devcomm_host_ops,
};

const tl_devcomm_kind_info tl_devcomm_kinds[TL_DEVCOMM_COUNT] = {
    [TL_DEVCOMM_NCCL] = {.name = "nccl", .summary = "NCCL on the caller's stream; one GPU per rank"},
    [TL_DEVCOMM_HOST] = {.name = "host", .summary = "staged through pinned host memory over MPI or threads; "
                                                    "ranks may share a GPU"},
};

const char *tl_devcomm_kind_name(tl_devcomm_kind k)
{
    return k >= 0 && k < TL_DEVCOMM_COUNT ? tl_devcomm_kinds[k].name : NULL;
}

tl_status tl_devcomm_create(tl_ctx *ctx, const tl_devcomm_config *cfg, tl_devcomm **out)
{
    *out = NULL;
    TL_CHECK(cfg && cfg->kind >= 0 && cfg->kind < TL_DEVCOMM_COUNT, TL_ERR_INVAL, "device communication: no such provider");
    TL_CHECK(ctx->gpu, TL_ERR_INVAL, "device communication needs tl_gpu_create first");
    tl_devcomm *dc = NULL;
    TL_ALLOC(dc, 1);
    dc->ops = tl_devcomm_providers[cfg->kind];
    dc->kind = cfg->kind;
    tl_status st = dc->ops->init(ctx, dc, cfg);
    if (st != TL_OK) {
        tl_devcomm_destroy(&dc);
        return tl_error_frame(st, TL_FILE_, __LINE__);
    }
    *out = dc;
    return TL_OK;
}

void tl_devcomm_destroy(tl_devcomm **pdc)
{
    if (!pdc || !*pdc) return;
    if ((*pdc)->ops->fini) (*pdc)->ops->fini(*pdc);
    free(*pdc);
    *pdc = NULL;
}

const char *tl_devcomm_name(const tl_devcomm *dc) { return dc->ops->name; }
tl_devcomm_kind tl_devcomm_kind_of(const tl_devcomm *dc) { return dc->kind; }

#if TL_HAVE_CUDA
tl_status tl_devcomm_allreduce(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count,
                               cudaStream_t s)
{
    TL_CHECK(ch >= 0 && ch < TL_CHAN_COUNT, TL_ERR_INVAL, "allreduce: channel %d", (int)ch);
    TL_CHECK(d_buf || count == 0, TL_ERR_INVAL, "allreduce of %zu doubles: no buffer", count);
    if (count == 0) return TL_OK;
    TL_TRY(dc->ops->allreduce(ctx, dc, ch, d_buf, count, s));
    return TL_OK;
}

tl_status tl_devcomm_exchange(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers, int n,
                              cudaStream_t s)
{
    TL_CHECK(ch >= 0 && ch < TL_CHAN_COUNT, TL_ERR_INVAL, "exchange: channel %d", (int)ch);
    TL_CHECK(n >= 0 && (peers || n == 0), TL_ERR_INVAL, "exchange: %d peers", n);
    for (int i = 0; i < n; i++) {
        const tl_devcomm_peer *p = &peers[i];
        TL_CHECK(p->rank >= 0 && p->rank < ctx->size, TL_ERR_INVAL, "exchange: peer %d of %d ranks", p->rank,
                 ctx->size);
        TL_CHECK((p->d_send || !p->send_bytes) && (p->d_recv || !p->recv_bytes), TL_ERR_INVAL,
                 "exchange with rank %d: a buffer is missing", p->rank);
        TL_CHECK(p->rank != ctx->rank || p->send_bytes == p->recv_bytes, TL_ERR_INVAL,
                 "exchange with itself: %zu bytes sent, %zu received", p->send_bytes, p->recv_bytes);
    }
    if (n == 0) return TL_OK;
    TL_TRY(dc->ops->exchange(ctx, dc, ch, peers, n, s));
    return TL_OK;
}

tl_status tl_devcomm_declare_peers(tl_ctx *ctx, const tl_devcomm *dc, const tl_mark_peerset *calls, int ncalls)
{
    TL_CHECK(ncalls >= 1 && calls, TL_ERR_INVAL, "exchange peers: %d calls", ncalls);
    /* as the trace names the exchange: the host provider's mark, NCCL's
     * point-to-point kernels of its grouped send/recv */
    int host = dc->kind == TL_DEVCOMM_HOST;
    const char *what = host ? tl_devcomm_host_exchange_what(dc) : TL_MARK_NCCL_KERNELS;
    tl_mark_peerset *traced = malloc((size_t)ncalls * sizeof *traced);
    TL_CHECK(traced, TL_ERR_NOMEM, "exchange peers of %d calls", ncalls);
    int n = 0;
    for (int c = 0; c < ncalls; c++) {
        int remote = 0;
        for (int i = 0; i < calls[c].n; i++) remote |= calls[c].rank[i] != ctx->rank;
        /* a call of no peer exchanges nothing, and the host provider marks
         * none with this rank alone (copies on the stream): no instance */
        if (calls[c].n > 0 && (remote || !host)) traced[n++] = calls[c];
    }
    if (!n) traced[n++] = (tl_mark_peerset){.n = 0};
    tl_status st = tl_mark_peers(ctx, TL_ROLE_P2P, what, traced, n);
    free(traced);
    return st;
}
#endif
