/* Host communication front end: argument checks, then the backend's table. */
#include "runtime/comm.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/comm_impl.h"
#include "runtime/out.h"

size_t tl_dtype_size(tl_dtype t)
{
    switch (t) {
    case TL_DOUBLE: return sizeof(double);
    case TL_INT64: return sizeof(int64_t);
    case TL_INT32: return sizeof(int32_t);
    }
    return 0;
}

#define TL_REDUCE_LOOP_(T)                                                  \
    do {                                                                    \
        T *a = acc;                                                         \
        const T *b = in;                                                    \
        switch (op) {                                                       \
        case TL_SUM: for (size_t i = 0; i < count; i++) a[i] += b[i]; break; \
        case TL_MAX: for (size_t i = 0; i < count; i++) a[i] = b[i] > a[i] ? b[i] : a[i]; break; \
        case TL_MIN: for (size_t i = 0; i < count; i++) a[i] = b[i] < a[i] ? b[i] : a[i]; break; \
        }                                                                   \
    } while (0)

void tl_reduce_local(void *acc, const void *in, size_t count, tl_dtype t, tl_op op)
{
    switch (t) {
    case TL_DOUBLE: TL_REDUCE_LOOP_(double); break;
    case TL_INT64: TL_REDUCE_LOOP_(int64_t); break;
    case TL_INT32: TL_REDUCE_LOOP_(int32_t); break;
    }
}

static tl_status have_comm(const tl_ctx *ctx)
{
    TL_CHECK(ctx && ctx->hc && ctx->hc->ops, TL_ERR_INVAL, "no host communicator (call inside tl_launch_run)");
    return TL_OK;
}

tl_status tl_comm_barrier(tl_ctx *ctx)
{
    TL_TRY(have_comm(ctx));
    TL_TRY(ctx->hc->ops->barrier(ctx->hc));
    return TL_OK;
}

tl_status tl_comm_allreduce(tl_ctx *ctx, void *buf, size_t count, tl_dtype t, tl_op op)
{
    TL_TRY(have_comm(ctx));
    TL_CHECK(tl_dtype_size(t) > 0, TL_ERR_INVAL, "dtype %d", (int)t);
    TL_CHECK(op == TL_SUM || op == TL_MAX || op == TL_MIN, TL_ERR_INVAL, "op %d", (int)op);
    TL_CHECK(buf || count == 0, TL_ERR_INVAL, "NULL buffer for %zu elements", count);
    TL_TRY(ctx->hc->ops->allreduce(ctx->hc, buf, count, t, op));
    return TL_OK;
}

tl_status tl_comm_bcast(tl_ctx *ctx, void *buf, size_t bytes, int root)
{
    TL_TRY(have_comm(ctx));
    TL_CHECK(root >= 0 && root < ctx->hc->size, TL_ERR_INVAL, "root %d of %d ranks", root, ctx->hc->size);
    TL_CHECK(buf || bytes == 0, TL_ERR_INVAL, "NULL buffer for %zu bytes", bytes);
    TL_TRY(ctx->hc->ops->bcast(ctx->hc, buf, bytes, root));
    return TL_OK;
}

tl_status tl_comm_allgather(tl_ctx *ctx, const void *send, void *recv, size_t bytes)
{
    TL_TRY(have_comm(ctx));
    TL_CHECK((send && recv) || bytes == 0, TL_ERR_INVAL, "NULL buffer for %zu bytes", bytes);
    TL_TRY(ctx->hc->ops->allgather(ctx->hc, send, recv, bytes));
    return TL_OK;
}

tl_status tl_comm_gatherv(tl_ctx *ctx, const void *send, size_t bytes, void *recv,
                          const size_t *counts, int root)
{
    TL_TRY(have_comm(ctx));
    TL_CHECK(root >= 0 && root < ctx->hc->size, TL_ERR_INVAL, "root %d of %d ranks", root, ctx->hc->size);
    TL_CHECK(send || bytes == 0, TL_ERR_INVAL, "NULL send buffer for %zu bytes", bytes);
    TL_CHECK(ctx->hc->rank != root || counts, TL_ERR_INVAL, "root needs the counts");
    TL_TRY(ctx->hc->ops->gatherv(ctx->hc, send, bytes, recv, counts, root));
    return TL_OK;
}

tl_status tl_comm_agree(tl_ctx *ctx, tl_status st)
{
    TL_TRY(have_comm(ctx));
    int32_t failed = st != TL_OK;
    tl_status cst = ctx->hc->ops->allreduce(ctx->hc, &failed, 1, TL_INT32, TL_MAX);
    if (st != TL_OK) return st;
    if (cst != TL_OK) return cst == TL_ERR_REMOTE ? cst : tl_error_frame(cst, TL_FILE_, __LINE__);
    return failed ? TL_ERR_REMOTE : TL_OK;
}

tl_status tl_comm_mkdir(tl_ctx *ctx, const char *dir)
{
    TL_CHECK(ctx, TL_ERR_INVAL, "a folder for ranks needs a rank context");
    if (ctx->size <= 1) return tl_mkdir_p(dir);
    return tl_comm_agree(ctx, ctx->rank == 0 ? tl_mkdir_p(dir) : TL_OK);
}

static tl_status check_chan(const tl_ctx *ctx, tl_chan ch, tl_request **req)
{
    TL_CHECK(req, TL_ERR_INVAL, "NULL request pointer");
    *req = NULL;
    TL_TRY(have_comm(ctx));
    TL_CHECK(ch >= 0 && ch < TL_CHAN_COUNT, TL_ERR_INVAL, "channel %d", (int)ch);
    return TL_OK;
}

/* The arguments of a point-to-point send or receive. */
static tl_status check_p2p(const tl_ctx *ctx, tl_chan ch, const void *buf, size_t bytes, int peer,
                           int tag, tl_request **req)
{
    TL_TRY(check_chan(ctx, ch, req));
    TL_CHECK(peer >= 0 && peer < ctx->hc->size, TL_ERR_INVAL, "peer %d of %d ranks", peer,
             ctx->hc->size);
    TL_CHECK(tag >= 0, TL_ERR_INVAL, "tag %d", tag);
    TL_CHECK(buf || bytes == 0, TL_ERR_INVAL, "NULL buffer for %zu bytes", bytes);
    return TL_OK;
}

tl_status tl_comm_iallreduce(tl_ctx *ctx, tl_chan ch, double *buf, size_t count, tl_request **req)
{
    TL_TRY(check_chan(ctx, ch, req));
    TL_CHECK(buf || count == 0, TL_ERR_INVAL, "NULL buffer for %zu elements", count);
    TL_TRY(ctx->hc->ops->iallreduce(ctx->hc, ch, buf, count, req));
    return TL_OK;
}

tl_status tl_comm_isend(tl_ctx *ctx, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                        tl_request **req)
{
    TL_TRY(check_p2p(ctx, ch, buf, bytes, peer, tag, req));
    TL_TRY(ctx->hc->ops->isend(ctx->hc, ch, buf, bytes, peer, tag, req));
    return TL_OK;
}

tl_status tl_comm_irecv(tl_ctx *ctx, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                        tl_request **req)
{
    TL_TRY(check_p2p(ctx, ch, buf, bytes, peer, tag, req));
    TL_TRY(ctx->hc->ops->irecv(ctx->hc, ch, buf, bytes, peer, tag, req));
    return TL_OK;
}

tl_status tl_comm_wait(tl_ctx *ctx, tl_request **req)
{
    if (!req || !*req) return TL_OK;
    TL_TRY(have_comm(ctx));
    tl_request *r = *req;
    *req = NULL;
    tl_status st = ctx->hc->ops->wait(ctx->hc, r);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}

tl_status tl_comm_wait_for(tl_ctx *ctx, tl_request **req, double timeout_s)
{
    if (!req || !*req) return TL_OK;
    TL_TRY(have_comm(ctx));
    TL_CHECK(ctx->hc->ops->wait_for, TL_ERR_UNSUPPORTED, "host messages '%s' cannot wait with a time limit",
             ctx->hc->ops->name);
    tl_request *r = *req;
    *req = NULL;
    tl_status st = ctx->hc->ops->wait_for(ctx->hc, r, timeout_s);
    if (st != TL_OK && st != TL_ERR_TIMEOUT) return tl_error_frame(st, TL_FILE_, __LINE__);
    return st;
}

tl_status tl_comm_waitall(tl_ctx *ctx, tl_request **reqs, size_t n)
{
    /* wait for every request even after a failure, so none is left in flight */
    tl_status first = TL_OK;
    for (size_t i = 0; i < n; i++) {
        tl_status st = tl_comm_wait(ctx, &reqs[i]);
        if (st != TL_OK && first == TL_OK) first = st;
    }
    return first;
}

int tl_comm_peer_failed(const tl_ctx *ctx)
{
    return ctx && ctx->hc && ctx->hc->ops->peer_failed ? ctx->hc->ops->peer_failed(ctx->hc) : 0;
}

void tl_comm_announce_failure(tl_ctx *ctx)
{
    if (ctx && ctx->hc && ctx->hc->ops->announce_failure) ctx->hc->ops->announce_failure(ctx->hc);
}

void tl_hostcomm_destroy(tl_hostcomm **hc)
{
    if (!hc || !*hc) return;
    (*hc)->ops->destroy(*hc);
    *hc = NULL;
}
