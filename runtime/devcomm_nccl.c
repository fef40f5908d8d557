/* NCCL provider: the communicators of runtime/nccl.h, enqueued on the
 * caller's stream. */
#include "runtime/devcomm_impl.h"

#include "runtime/check.h"
#include "runtime/nccl.h"

static tl_status nccl_init(tl_ctx *ctx, tl_devcomm *dc, const tl_devcomm_config *cfg)
{
    (void)dc;
    tl_nccl_config nc = {.split = cfg->split, .split_max_ctas = cfg->split_max_ctas,
                         .split_min_ctas = cfg->split_min_ctas};
    TL_TRY(tl_nccl_create(ctx, &nc));
    return TL_OK;
}

#if TL_HAVE_CUDA && TL_HAVE_NCCL
static tl_status nccl_allreduce(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count,
                                cudaStream_t s)
{
    (void)dc;
    TL_NCCL(ncclAllReduce(d_buf, d_buf, count, ncclDouble, ncclSum, tl_nccl_comm(ctx, ch), s));
    return TL_OK;
}

static tl_status nccl_exchange(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers, int n,
                               cudaStream_t s)
{
    (void)dc;
    ncclComm_t comm = tl_nccl_comm(ctx, ch);
    tl_status st = TL_OK;
    /* a rank's own entry (periodic boundaries on one rank) is a plain copy */
    for (int i = 0; i < n; i++)
        if (peers[i].rank == ctx->rank && peers[i].send_bytes)
            TL_CUDA(cudaMemcpyAsync(peers[i].d_recv, peers[i].d_send, peers[i].send_bytes, cudaMemcpyDeviceToDevice, s));
    TL_NCCL(ncclGroupStart());
    for (int i = 0; i < n && st == TL_OK; i++) {
        const tl_devcomm_peer *p = &peers[i];
        if (p->rank == ctx->rank) continue;
        ncclResult_t r = ncclSuccess;
        if (p->send_bytes) r = ncclSend(p->d_send, p->send_bytes, ncclUint8, p->rank, comm, s);
        if (r == ncclSuccess && p->recv_bytes) r = ncclRecv(p->d_recv, p->recv_bytes, ncclUint8, p->rank, comm, s);
        if (r != ncclSuccess)
            st = TL_FAIL(TL_ERR_NCCL, "ncclSend/ncclRecv with rank %d (%zu / %zu bytes): %s", p->rank, p->send_bytes,
                         p->recv_bytes, ncclGetErrorString(r));
    }
    ncclResult_t r = ncclGroupEnd();
    if (st == TL_OK && r != ncclSuccess)
        st = TL_FAIL(TL_ERR_NCCL, "ncclGroupEnd of an exchange with %d peers: %s", n, ncclGetErrorString(r));
    return st;
}
#endif

const tl_devcomm_ops tl_devcomm_nccl_ops = {
    .name = "nccl",
    .init = nccl_init,
#if TL_HAVE_CUDA && TL_HAVE_NCCL
    .allreduce = nccl_allreduce,
    .exchange = nccl_exchange,
#endif
};
