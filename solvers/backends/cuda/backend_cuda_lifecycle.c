/* The CUDA backend made and destroyed: the streams of the schedule's
 * steps, the events, the dot slots, the scalar state, the matrix on the
 * device, Jacobi's inverse diagonal, the halo's buffers and peers, the
 * event timer; the device communicator and the memory check first. */
#include "config.h"

#if TL_HAVE_CUDA

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/evtimer.h"
#include "runtime/gpu.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"
#include "solvers/backends/cuda/fused_iterations.h"
#include "solvers/backends/cuda/memneed.h"

/* Event-timer operations (cuda_backend.h) by name (their statistics rows:
 * backend_cuda.c's et_op) */
static const char *const et_names[ET_COUNT] = {"spmv_interior", "spmv_border", "halo",
                                               "dot",           "allreduce",   "update",
                                               "precond",       "loop"};

void tl_cu_be_destroy(tl_backend **bep)
{
    if (!bep || !*bep) return;
    cuda_backend *cb = cb_of(*bep);
    tl_ctx *ctx = cb->base.ctx;
    if (ctx && ctx->gpu) tl_gpu_sync_all(ctx, "backend teardown");
    tl_cu_spmv_destroy(&cb->spmv);
    tl_cu_be_loop_free(cb);
    cudaFree(cb->d_dinv);
    cudaFree(cb->d_send_idx);
    cudaFree(cb->d_sendbuf);
    free(cb->peers);
    for (int q = 0; q < TL_DOT_SLOTS; q++) {
        cuda_slot *sl = &cb->slot[q];
        cudaFree(sl->d_part);
        cudaFree(sl->d_count);
        cudaFree(sl->d_res);
        tl_gpu_host_free((void **)&sl->h_res);
        if (sl->ev_dots) cudaEventDestroy(sl->ev_dots);
        if (sl->ev_reduced) cudaEventDestroy(sl->ev_reduced);
    }
    cudaFree(cb->d_state);
    cudaFree(cb->d_regs);
    tl_gpu_host_free((void **)&cb->h_state);
    tl_gpu_host_free((void **)&cb->h_ring);
    if (cb->h_runs) cudaFreeHost(cb->h_runs);
    for (int q = 0; q < TL_SC_RING; q++)
        if (cb->ev_ring[q]) cudaEventDestroy(cb->ev_ring[q]);
    if (cb->ev_input) cudaEventDestroy(cb->ev_input);
    if (cb->ev_halo) cudaEventDestroy(cb->ev_halo);
    tl_evtimer_destroy(&cb->et);
    tl_devcomm_destroy(&cb->dc);
    if (cb->own_gpu && ctx) tl_gpu_destroy(ctx);
    free(cb);
    *bep = NULL;
}

static tl_status make_event(cudaEvent_t *ev)
{
    TL_CUDA(cudaEventCreateWithFlags(ev, cudaEventDisableTiming));
    return TL_OK;
}

/* Rank-local part of create (device memory, matrix upload); agreed on
 * across ranks by the caller before any collective. */
static tl_status create_local(cuda_backend *cb, const double *diag)
{
    tl_backend *be = &cb->base;
    const tl_dist_matrix *m = be->m;
    const tl_backend_config *cfg = &be->cfg;
    for (int op = 0; op < TL_SOP_COUNT; op++)
        cb->s[op] = tl_gpu_stream(be->ctx->gpu, step(be, op)->role);
    cb->ev_needed = tl_cu_be_events_needed(cb);
    /* the choices the driver made from tl_cu_be_caps: refused, never
     * rewritten, where they do not hold */
    tl_backend_caps caps;
    TL_TRY(tl_cu_be_caps(be->ctx, m, cfg, &caps));
    TL_CHECK(cfg->unfused || caps.fused_update, TL_ERR_INVAL,
             "update_fused: schedule %s puts the dots or the preconditioner on another stream "
             "than the update (run it unfused)", cfg->schedule->name);
    TL_CHECK(!cfg->fused_iterations || caps.fused_iterations, TL_ERR_INVAL,
             "fused iterations: %s", caps.why_not);
    /* Every initial value goes through the rank's update stream, waited for
     * at the end: device memory may be a previous run's (cudaMalloc reuses
     * it), and the legacy default stream of plain cudaMemset / cudaMemcpy
     * is not ordered with the non-blocking role streams. */
    cudaStream_t s0 = cb->s[TL_SOP_UPDATE];
    TL_TRY(make_event(&cb->ev_input));
    TL_TRY(make_event(&cb->ev_halo));
    for (int q = 0; q < TL_DOT_SLOTS; q++) {
        cuda_slot *sl = &cb->slot[q];
        TL_CUDA(
            cudaMalloc((void **)&sl->d_part, TL_CU_DOT_BLOCKS * TL_CU_DOT_MAX * sizeof(double)));
        TL_CUDA(cudaMalloc((void **)&sl->d_count, sizeof(unsigned)));
        TL_CUDA(cudaMemsetAsync(sl->d_count, 0, sizeof(unsigned), s0));
        TL_CUDA(cudaMalloc((void **)&sl->d_res, TL_CU_DOT_MAX * sizeof(double)));
        TL_CUDA(cudaMemsetAsync(sl->d_res, 0, TL_CU_DOT_MAX * sizeof(double), s0));
        TL_TRY(tl_gpu_host_alloc((void **)&sl->h_res, TL_CU_DOT_MAX * sizeof(double)));
        TL_TRY(make_event(&sl->ev_dots));
        TL_TRY(make_event(&sl->ev_reduced));
    }
    int sms = 0, major = 0;
    TL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, be->ctx->device));
    cb->sms = sms > 0 ? sms : 1;
    TL_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, be->ctx->device));
    cb->pdl = cfg->pdl && major >= 9;
    TL_CUDA(cudaMalloc((void **)&cb->d_state, 2 * TL_SC_STATE * sizeof(double)));
    TL_CUDA(cudaMemsetAsync(cb->d_state, 0, 2 * TL_SC_STATE * sizeof(double), s0));
    TL_CUDA(cudaMalloc((void **)&cb->d_regs, TL_SC_REGS * sizeof(double)));
    TL_CUDA(cudaMemsetAsync(cb->d_regs, 0, TL_SC_REGS * sizeof(double), s0));
    TL_TRY(tl_gpu_host_alloc((void **)&cb->h_state, TL_SC_STATE * sizeof(double)));
    TL_TRY(tl_gpu_host_alloc((void **)&cb->h_ring, TL_SC_RING * TL_SC_REGS * sizeof(double)));
    for (int q = 0; q < TL_SC_RING; q++) {
        TL_TRY(make_event(&cb->ev_ring[q]));
        cb->ring_tag[q] = -1;
    }
    int can_map = 0;
    TL_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, be->ctx->device));
    if (!cfg->regs_copy && can_map) {
        size_t bytes = (size_t)RUN_SLOTS * RUN_STRIDE * sizeof(double);
        TL_CUDA(cudaHostAlloc((void **)&cb->h_runs, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
        memset(cb->h_runs, 0, bytes);
        TL_CUDA(cudaHostGetDevicePointer((void **)&cb->d_runs, cb->h_runs, 0));
    }
    tl_cu_spmv_config sc = {.impl = cfg->spmv,
                            .cusparse_alg = cfg->cusparse_alg,
                            .threads_per_row = cfg->spmv_threads_per_row,
                            .sms = cb->sms};
    TL_TRY(tl_cu_spmv_create(m, &sc, s0, &cb->spmv));
    if (cfg->precond == TL_PRECOND_JACOBI && m->nowned > 0) {
        double *dinv = malloc((size_t)m->nowned * sizeof *dinv);
        TL_CHECK(dinv, TL_ERR_NOMEM, "inverse diagonal of %lld rows", (long long)m->nowned);
        for (int64_t i = 0; i < m->nowned; i++)
            dinv[i] = diag[i] != 0.0 ? 1.0 / diag[i] : 0.0;
        cudaError_t e = cudaMalloc((void **)&cb->d_dinv, (size_t)m->nowned * sizeof(double));
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(cb->d_dinv, dinv, (size_t)m->nowned * sizeof(double),
                                cudaMemcpyHostToDevice, s0);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s0); /* before dinv is freed */
        free(dinv);
        TL_CUDA(e);
    }
    const tl_halo_plan *h = &m->halo;
    cb->halo = be->ctx->size > 1 && h->nneighbors > 0;
    if (cb->halo) {
        TL_CHECK(h->nsend < INT32_MAX, TL_ERR_UNSUPPORTED, "%lld halo values to send",
                 (long long)h->nsend);
        int32_t *idx = malloc((size_t)(h->nsend ? h->nsend : 1) * sizeof *idx);
        TL_CHECK(idx, TL_ERR_NOMEM, "halo index list");
        for (int64_t i = 0; i < h->nsend; i++)
            idx[i] = (int32_t)h->send_idx[i];
        cudaError_t e = cudaMalloc((void **)&cb->d_send_idx, (size_t)(h->nsend + 1) * sizeof *idx);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(cb->d_send_idx, idx, (size_t)h->nsend * sizeof *idx,
                                cudaMemcpyHostToDevice, s0);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s0); /* before idx is freed */
        free(idx);
        TL_CUDA(e);
        TL_CUDA(cudaMalloc((void **)&cb->d_sendbuf, (size_t)(h->nsend + 1) * sizeof(double)));
        TL_ALLOC(cb->peers, h->nneighbors);
        cb->npeers = h->nneighbors;
        for (int q = 0; q < h->nneighbors; q++) {
            cb->peers[q].rank = h->neighbors[q];
            cb->peers[q].d_send = cb->d_sendbuf + h->send_offset[q];
            cb->peers[q].send_bytes = (size_t)h->send_count[q] * sizeof(double);
            cb->peers[q].recv_bytes = (size_t)h->recv_count[q] * sizeof(double);
        }
    }
    /* the dot in the product's pass: its kernels run on the SpMV steps'
     * stream, so the dot step must be on it too and wait for nothing */
    cb->spmv_dot = tl_cu_spmv_can_dot(cb->spmv, tl_cu_be_has_border(cb)) &&
                   cb->s[TL_SOP_SPMV_INTERIOR] == cb->s[TL_SOP_DOT] &&
                   cb->s[TL_SOP_SPMV_BORDER] == cb->s[TL_SOP_DOT] && step(be, TL_SOP_DOT)->waits == 0;
    if (cfg->op_timer) {
        TL_TRY(tl_evtimer_create(&cb->et, ET_COUNT, et_names));
        TL_TRY(tl_evtimer_sample(cb->et, cfg->op_timer_every > 1 ? cfg->op_timer_every : 1));
    }
    cb->loop_tag = -1;
    /* every initial value above is in place before the first operation,
     * whichever stream that runs on */
    TL_TRY(tl_gpu_sync(be->ctx, s0, "backend initial values"));
    return TL_OK;
}

/* For traces: the device exchange involves the halo plan's neighbours
 * alone (a rank without any says so), so that the analysis pairs it with
 * those (runtime/devcomm.h). */
static tl_status halo_declare_peers(cuda_backend *cb)
{
    const tl_halo_plan *h = &cb->base.m->halo;
    if (!cb->dc) return TL_OK;
    const tl_mark_peerset nbrs = {.rank = h->neighbors, .n = cb->halo ? h->nneighbors : 0};
    return tl_devcomm_declare_peers(cb->base.ctx, cb->dc, &nbrs, 1);
}

tl_status tl_cu_be_create(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                          tl_backend **out)
{
    tl_status st = TL_OK, lst = TL_OK;
    cuda_backend *cb = NULL;
    double *diag = NULL;
    *out = NULL;
    TL_CHECK(cfg && cfg->schedule, TL_ERR_INVAL, "no schedule");
    cb = calloc(1, sizeof *cb);
    TL_CHECK(cb, TL_ERR_NOMEM, "cuda backend");
    cb->base.ctx = ctx;
    diag = calloc((size_t)(m->nowned ? m->nowned : 1), sizeof *diag);
    lst = diag ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "diagonal of %lld rows", (long long)m->nowned);
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    tl_csr_diagonal(&m->diag, diag);
    TL_TRYGOTO(tl_backend_init_base(&cb->base, &tl_backend_cuda_ops, ctx, m, cfg, diag), st, fail);
    if (cb->base.zero_diag > 0 && cfg->precond == TL_PRECOND_JACOBI) {
        st = TL_FAIL(TL_ERR_NUMERIC, "Jacobi preconditioner: %lld zero diagonal entries",
                     (long long)cb->base.zero_diag);
        goto fail;
    }
    if (!ctx->gpu) {
        tl_gpu_config gc = {.use_priorities = cfg->stream_priorities};
        TL_TRYGOTO(tl_gpu_create(ctx, &gc), st, fail);
        cb->own_gpu = 1;
    }
    if (tl_cu_be_device_comm(ctx)) {
        tl_devcomm_config dcc = {.kind = (tl_devcomm_kind)ctx->device_comm,
                                 .split = 1,
                                 .split_max_ctas = cfg->split_max_ctas,
                                 .split_min_ctas = cfg->split_min_ctas};
        TL_TRYGOTO(tl_devcomm_create(ctx, &dcc, &cb->dc), st, fail);
    }
    /* after the context and NCCL have taken theirs, before the solve's */
    char what[192];
    snprintf(what, sizeof what, "rank %d's %lld rows and %lld nonzeros with %d vectors", ctx->rank,
             (long long)m->nowned, (long long)(m->diag.nnz + m->offd.nnz),
             cfg->vectors > 0 ? cfg->vectors : TL_BE_VECTORS_UNKNOWN);
    TL_TRYGOTO(tl_gpu_mem_check(ctx, what, tl_cu_be_memory_need(m, cfg),
                                "run on more GPUs (-g, or ranks on more GPUs) or a smaller matrix"),
               st, fail);
    lst = create_local(cb, diag);
    if (lst == TL_OK) lst = halo_declare_peers(cb);
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    free(diag);
    *out = &cb->base;
    return TL_OK;
fail:
    free(diag);
    {
        tl_backend *b = &cb->base;
        cb->base.ctx = ctx;
        tl_cu_be_destroy(&b);
    }
    return st;
}

#endif /* TL_HAVE_CUDA */
