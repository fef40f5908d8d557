/* Host-staged provider: device -> pinned host -> the ranks' host
 * communicator -> pinned host -> device. The calling thread waits for the
 * stream before the exchange and enqueues the copies back, so the result
 * is in stream order with later work on the same stream. With a CUDA-aware
 * MPI (MPI ranks only) device pointers go to MPI directly and nothing is
 * staged. */
#include "runtime/devcomm_impl.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/marks.h"

enum { TL_DEVCOMM_TAG = 0x7d0c };

#if TL_HAVE_CUDA
/* A staging buffer, and the event after the last copy that reads it, so a
 * later call on another stream never overwrites what is still being read. */
typedef struct staging {
    unsigned char *h;
    size_t cap;
    cudaEvent_t ev_read;
    int pending;
} staging;

struct tl_devcomm_host {
    staging send, recv;
    tl_request **reqs;
    int capreqs;
    int cuda_aware;
};

static tl_status staging_reserve(staging *b, size_t bytes)
{
    if (b->pending) {
        TL_CUDA(cudaEventSynchronize(b->ev_read));
        b->pending = 0;
    }
    if (bytes <= b->cap) return TL_OK;
    void *p = b->h;
    tl_gpu_host_free(&p);
    b->h = NULL;
    b->cap = 0;
    size_t cap = bytes < 4096 ? 4096 : bytes + bytes / 2;
    TL_TRY(tl_gpu_host_alloc(&p, cap));
    b->h = p;
    b->cap = cap;
    return TL_OK;
}

static tl_status staging_read_by(staging *b, cudaStream_t s)
{
    TL_CUDA(cudaEventRecord(b->ev_read, s));
    b->pending = 1;
    return TL_OK;
}

static void staging_free(staging *b)
{
    void *p = b->h;
    if (b->pending) cudaEventSynchronize(b->ev_read);
    tl_gpu_host_free(&p);
    if (b->ev_read) cudaEventDestroy(b->ev_read);
    memset(b, 0, sizeof *b);
}

static tl_status reqs_reserve(tl_devcomm_host *h, int n)
{
    if (n <= h->capreqs) return TL_OK;
    tl_request **r = realloc(h->reqs, (size_t)n * sizeof *r);
    TL_CHECK(r, TL_ERR_NOMEM, "%d requests", n);
    h->reqs = r;
    h->capreqs = n;
    return TL_OK;
}
#endif

static tl_status host_init(tl_ctx *ctx, tl_devcomm *dc, const tl_devcomm_config *cfg)
{
    (void)cfg;
#if TL_HAVE_CUDA
    tl_devcomm_host *h = NULL;
    TL_ALLOC(h, 1);
    dc->host = h;
    TL_CUDA(cudaEventCreateWithFlags(&h->send.ev_read, cudaEventDisableTiming));
    TL_CUDA(cudaEventCreateWithFlags(&h->recv.ev_read, cudaEventDisableTiming));
    h->cuda_aware = tl_comm_cuda_aware(ctx);
    return TL_OK;
#else
    (void)ctx;
    (void)dc;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "device communication needs CUDA, which this build lacks");
#endif
}

static void host_fini(tl_devcomm *dc)
{
#if TL_HAVE_CUDA
    tl_devcomm_host *h = dc->host;
    if (!h) return;
    staging_free(&h->send);
    staging_free(&h->recv);
    free(h->reqs);
    free(h);
    dc->host = NULL;
#else
    (void)dc;
#endif
}

#if TL_HAVE_CUDA
static tl_status staged_allreduce(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count,
                                  cudaStream_t s)
{
    tl_devcomm_host *h = dc->host;
    size_t bytes = count * sizeof(double);
    tl_request *req = NULL;
    TL_TRY(tl_gpu_sync(ctx, s, "host-staged allreduce: waiting for its input"));
    if (h->cuda_aware) {
        TL_TRY(tl_comm_iallreduce(ctx, ch, d_buf, count, &req));
        TL_TRY(tl_comm_wait(ctx, &req));
        return TL_OK;
    }
    TL_TRY(staging_reserve(&h->send, bytes));
    TL_CUDA(cudaMemcpyAsync(h->send.h, d_buf, bytes, cudaMemcpyDeviceToHost, s));
    TL_TRY(tl_gpu_sync(ctx, s, "host-staged allreduce: device to host"));
    TL_TRY(tl_comm_iallreduce(ctx, ch, (double *)h->send.h, count, &req));
    TL_TRY(tl_comm_wait(ctx, &req));
    TL_CUDA(cudaMemcpyAsync(d_buf, h->send.h, bytes, cudaMemcpyHostToDevice, s));
    TL_TRY(staging_read_by(&h->send, s));
    return TL_OK;
}

static tl_status staged_exchange(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers, int n,
                                 cudaStream_t s)
{
    tl_devcomm_host *h = dc->host;
    size_t sbytes = 0, rbytes = 0;
    for (int i = 0; i < n; i++) {
        sbytes += peers[i].send_bytes;
        rbytes += peers[i].recv_bytes;
    }
    TL_TRY(reqs_reserve(h, 2 * n));
    int staged = !h->cuda_aware;
    if (staged) {
        TL_TRY(staging_reserve(&h->send, sbytes));
        TL_TRY(staging_reserve(&h->recv, rbytes));
    }
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        const tl_devcomm_peer *p = &peers[i];
        if (p->rank == ctx->rank && p->send_bytes)
            TL_CUDA(cudaMemcpyAsync(p->d_recv, p->d_send, p->send_bytes, cudaMemcpyDeviceToDevice, s));
        else if (staged && p->send_bytes)
            TL_CUDA(cudaMemcpyAsync(h->send.h + off, p->d_send, p->send_bytes, cudaMemcpyDeviceToHost, s));
        off += p->send_bytes;
    }
    TL_TRY(tl_gpu_sync(ctx, s, "host-staged exchange: device to host"));
    int nreq = 0;
    tl_status st = TL_OK;
    size_t soff = 0, roff = 0;
    /* receives first, so every send finds its receive posted */
    for (int i = 0; i < n && st == TL_OK; i++) {
        const tl_devcomm_peer *p = &peers[i];
        void *dst = staged ? (void *)(h->recv.h + roff) : p->d_recv;
        if (p->rank != ctx->rank && p->recv_bytes)
            st = tl_comm_irecv(ctx, ch, dst, p->recv_bytes, p->rank, TL_DEVCOMM_TAG, &h->reqs[nreq++]);
        roff += p->recv_bytes;
    }
    for (int i = 0; i < n && st == TL_OK; i++) {
        const tl_devcomm_peer *p = &peers[i];
        const void *src = staged ? (const void *)(h->send.h + soff) : p->d_send;
        if (p->rank != ctx->rank && p->send_bytes)
            st = tl_comm_isend(ctx, ch, src, p->send_bytes, p->rank, TL_DEVCOMM_TAG, &h->reqs[nreq++]);
        soff += p->send_bytes;
    }
    /* wait for what was posted even after a failure: buffers must stay put */
    tl_status wst = tl_comm_waitall(ctx, h->reqs, (size_t)nreq);
    TL_TRY(st);
    TL_TRY(wst);
    if (!staged) return TL_OK;
    roff = 0;
    for (int i = 0; i < n; i++) {
        const tl_devcomm_peer *p = &peers[i];
        if (p->rank != ctx->rank && p->recv_bytes)
            TL_CUDA(cudaMemcpyAsync(p->d_recv, h->recv.h + roff, p->recv_bytes, cudaMemcpyHostToDevice, s));
        roff += p->recv_bytes;
    }
    TL_TRY(staging_read_by(&h->recv, s));
    return TL_OK;
}

/* The host's whole part of an operation (waiting for the stream, the host
 * exchange, enqueueing the copies back) is communication the host carries:
 * marked so that traces count it (runtime/marks.h). */
static tl_status host_allreduce(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count,
                                cudaStream_t s)
{
    if (ctx->size == 1) return TL_OK; /* the sum over one rank is its own value: nothing to wait for or move */
    tl_mark_begin(ctx, TL_ROLE_COLL, dc->host->cuda_aware ? "mpi allreduce" : "staged allreduce");
    tl_status st = staged_allreduce(ctx, dc, ch, d_buf, count, s);
    tl_mark_end(ctx);
    return st;
}

const char *tl_devcomm_host_exchange_what(const tl_devcomm *dc)
{
    return dc->host->cuda_aware ? "mpi exchange" : "staged exchange";
}

static tl_status host_exchange(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers, int n,
                               cudaStream_t s)
{
    int remote = 0;
    for (int i = 0; i < n; i++) remote |= peers[i].rank != ctx->rank;
    if (!remote) { /* only this rank's own faces (periodic on one rank): copies on the stream, no host part */
        for (int i = 0; i < n; i++)
            if (peers[i].send_bytes)
                TL_CUDA(cudaMemcpyAsync(peers[i].d_recv, peers[i].d_send, peers[i].send_bytes,
                                        cudaMemcpyDeviceToDevice, s));
        return TL_OK;
    }
    tl_mark_begin(ctx, TL_ROLE_P2P, tl_devcomm_host_exchange_what(dc));
    tl_status st = staged_exchange(ctx, dc, ch, peers, n, s);
    tl_mark_end(ctx);
    return st;
}
#endif

const tl_devcomm_ops tl_devcomm_host_ops = {
    .name = "host",
    .init = host_init,
    .fini = host_fini,
#if TL_HAVE_CUDA
    .allreduce = host_allreduce,
    .exchange = host_exchange,
#endif
};
