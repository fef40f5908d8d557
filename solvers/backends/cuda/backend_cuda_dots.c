/* The CUDA backend's dots and the allreduce: the dot kernel into a slot's
 * result, the reduction across ranks on the allreduce's stream, and the
 * host-scalar dot_end (the dots copied to pinned memory and waited for). */
#include "config.h"

#if TL_HAVE_CUDA

#include <string.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/devcomm.h"
#include "runtime/gpu.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

/* The local dots of n pairs into the slot's result (the dot kernel). */
tl_status tl_cu_be_dot_local(cuda_backend *cb, int slot, int n, tl_vec *const *x, tl_vec *const *y)
{
    tl_backend *be = &cb->base;
    cuda_slot *sl = &cb->slot[slot];
    tl_cu_dot_args a = {.n = n, .prefetch = be->cfg.prefetch};
    for (int k = 0; k < n; k++) {
        a.x[k] = x[k]->data;
        a.y[k] = y[k]->data;
    }
    int nseen = tl_dot_vectors(n, x, y);
    int64_t len = be->m->nowned;
    cudaStream_t s = cb->s[TL_SOP_DOT];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "dot");
    tl_status st = tl_cu_be_join(cb, TL_SOP_DOT, slot);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_DOT, s);
    if (st == TL_OK) st = tl_cu_dots(&a, len, sl->d_part, sl->d_count, sl->d_res, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_DOT, s);
    if (st == TL_OK) st = tl_cu_be_record(cb, TL_SEV_DOTS, sl->ev_dots, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_DOT, 0, (double)nseen * len * sizeof(double));
    sl->dots_on = s;
    return TL_OK;
}

/* n = 0: the dots an update_fused already reduced into the slot's result
 * (no dot kernel), else the dot kernel; then the allreduce. */
tl_status tl_cu_be_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    TL_CHECK(n >= 0 && n <= TL_DOT_MAX, TL_ERR_INVAL, "%d dots (0..%d)", n, TL_DOT_MAX);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(!sl->active, TL_ERR_INVAL, "dot slot %d begun twice without dot_end", slot);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    if (n == 0) {
        TL_CHECK(sl->kept > 0, TL_ERR_INVAL, "dot slot %d: no dots kept by an update_fused", slot);
        n = sl->kept;
    } else {
        TL_TRY(tl_cu_be_dot_local(cb, slot, n, x, y));
    }
    sl->kept = 0; /* reduced now, or forgotten for dots of the call's own */
    sl->n = n;
    sl->active = 1;

    tl_status st = TL_OK;
    cudaStream_t sa = cb->s[TL_SOP_ALLREDUCE];
    if (cb->dc) {
        tl_probe_push(be->ctx, TL_CAT_COLL, "allreduce");
        st = tl_cu_be_join(cb, TL_SOP_ALLREDUCE, slot);
        if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_ALLREDUCE, sa);
        if (st == TL_OK)
            st = tl_devcomm_allreduce(be->ctx, cb->dc, step(be, TL_SOP_ALLREDUCE)->chan, sl->d_res,
                                      (size_t)n, sa);
        if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_ALLREDUCE, sa);
        tl_probe_pop(be->ctx);
        if (st != TL_OK) {
            sl->active = 0;
            return tl_error_frame(st, TL_FILE_, __LINE__);
        }
        tl_backend_stat(be, TL_OP_ALLREDUCE, 0, (double)n * sizeof(double));
    }
    TL_TRY(tl_cu_be_record(cb, TL_SEV_REDUCED, sl->ev_reduced, cb->dc ? sa : sl->dots_on));
    return TL_OK;
}

/* The host-scalar path: the method needs the dots on the host, so the
 * compute stream waits for the reduction, copies it to pinned memory, and
 * the host waits for that copy (watched). */
tl_status tl_cu_be_dot_end(tl_backend *be, int slot, double *out)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(sl->active, TL_ERR_INVAL, "dot_end on slot %d without dot_begin", slot);
    sl->active = 0;
    cudaStream_t s = cb->s[TL_SOP_DOT_WAIT];
    tl_probe_push(be->ctx, TL_CAT_SYNC, "dot_wait");
    tl_status st = tl_cu_be_join(cb, TL_SOP_DOT_WAIT, slot);
    if (st == TL_OK)
        st = cudaMemcpyAsync(sl->h_res, sl->d_res, (size_t)sl->n * sizeof(double),
                             cudaMemcpyDeviceToHost, s) == cudaSuccess
                 ? TL_OK
                 : TL_FAIL(TL_ERR_CUDA, "cudaMemcpyAsync(dots to host)");
    if (st == TL_OK) st = tl_gpu_sync(be->ctx, s, "dot results");
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    memcpy(out, sl->h_res, (size_t)sl->n * sizeof(double));
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
