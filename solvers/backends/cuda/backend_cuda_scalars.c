/* The CUDA backend's device-resident scalars: dot_end without the host,
 * the dots fetched, the scalar programs' state and runs, and their
 * registers posted and read back (a ring of pinned copies, or the slots
 * of mapped memory the kernel writes with the run's number). */
#include "config.h"

#if TL_HAVE_CUDA

#include <stdatomic.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/gpu.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

/* The compute stream waits for the reduction; nothing reaches the host. */
tl_status tl_cu_be_dot_end_async(tl_backend *be, int slot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(sl->active, TL_ERR_INVAL, "dot_end on slot %d without dot_begin", slot);
    sl->active = 0;
    return tl_cu_be_join(cb, TL_SOP_DOT_WAIT, slot);
}

tl_status tl_cu_be_dot_fetch(tl_backend *be, int slot, double *out, int n)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS && n >= 0 && n <= TL_DOT_MAX, TL_ERR_INVAL,
             "dot slot %d, %d values", slot, n);
    cuda_slot *sl = &cb->slot[slot];
    cudaStream_t s = cb->s[TL_SOP_DOT_WAIT];
    TL_CUDA(cudaMemcpyAsync(sl->h_res, sl->d_res, (size_t)n * sizeof(double),
                            cudaMemcpyDeviceToHost, s));
    TL_TRY(tl_gpu_sync(be->ctx, s, "dot results"));
    memcpy(out, sl->h_res, (size_t)n * sizeof(double));
    return TL_OK;
}

tl_status tl_cu_be_scalars_init(tl_backend *be, const double *state)
{
    cuda_backend *cb = cb_of(be);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    memcpy(cb->h_state, state, TL_SC_STATE * sizeof(double));
    TL_CUDA(cudaMemcpyAsync(cb->d_state, cb->h_state, TL_SC_STATE * sizeof(double),
                            cudaMemcpyHostToDevice, s));
    /* once per solve: the pinned source must outlive the copy */
    TL_TRY(tl_gpu_sync(be->ctx, s, "scalar state"));
    cb->parity = 0;
    cb->loop_tag = -1; /* a new solve: its loop iterations start afresh */
    return TL_OK;
}

tl_status tl_cu_be_scalars(tl_backend *be, tl_sc_prog prog, int slot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(prog > TL_SC_NONE && prog < TL_SC_COUNT && slot >= 0 && slot < TL_DOT_SLOTS,
             TL_ERR_INVAL, "scalar program %d on slot %d", (int)prog, slot);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    cb->pend_prog = prog;
    cb->pend_io = (tl_sc_io){.dots = cb->slot[slot].d_res,
                             .state = cb->d_state,
                             .regs = cb->d_regs,
                             .parity = cb->parity};
    if (cb->d_runs) {
        cb->last_run = (int)(cb->nruns++ % RUN_SLOTS);
        cb->pend_io.copy = cb->d_runs + (size_t)cb->last_run * RUN_STRIDE;
        cb->pend_io.copy_seq = (double)cb->nruns;
    }
    cb->parity = 1 - cb->parity;
    cb->have_regs = 1;
    return TL_OK;
}

tl_status tl_cu_be_regs_post(tl_backend *be, int64_t tag)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(tag >= 0, TL_ERR_INVAL, "register tag %lld", (long long)tag);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    int q = (int)(tag % TL_SC_RING);
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    if (cb->d_runs) {
        /* the kernel that ran the last program wrote them to its slot */
        TL_CHECK(cb->have_regs, TL_ERR_INVAL, "register post %lld before any scalar program",
                 (long long)tag);
        cb->run_of[q] = cb->last_run;
        cb->run_seq[q] = cb->nruns;
    } else {
        TL_CUDA(cudaMemcpyAsync(cb->h_ring + (size_t)q * TL_SC_REGS, cb->d_regs,
                                TL_SC_REGS * sizeof(double), cudaMemcpyDeviceToHost, s));
        TL_CUDA(cudaEventRecord(cb->ev_ring[q], s));
    }
    cb->ring_tag[q] = tag;
    return TL_OK;
}

static int event_done(void *arg, tl_status *st)
{
    cudaError_t e = cudaEventQuery(*(cudaEvent_t *)arg);
    if (e == cudaErrorNotReady) return 0;
    if (e == cudaSuccess) return 1;
    *st =
        TL_FAIL(TL_ERR_CUDA, "cudaEventQuery: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
    return -1;
}

/* A run's slot in mapped memory: done once its number is there. While it
 * is not, the stream is asked whether it has failed, or finished without
 * writing it (the kernel's writes are visible once it has completed). */
typedef struct run_wait {
    const volatile double *seq;
    double want;
    cudaStream_t s;
} run_wait;

static int run_done(void *arg, tl_status *st)
{
    run_wait *w = arg;
    if (*w->seq == w->want) return 1;
    cudaError_t e = cudaStreamQuery(w->s);
    if (e == cudaErrorNotReady) return 0;
    if (e == cudaSuccess && *w->seq == w->want) return 1;
    *st = e == cudaSuccess
              ? TL_FAIL(TL_ERR_CUDA, "scalar registers of run %.0f: the stream finished, the slot "
                                     "holds run %.0f", w->want, *w->seq)
              : TL_FAIL(TL_ERR_CUDA, "cudaStreamQuery: %s (%s)", cudaGetErrorString(e),
                        cudaGetErrorName(e));
    return -1;
}

tl_status tl_cu_be_regs_get(tl_backend *be, int64_t tag, double *regs)
{
    cuda_backend *cb = cb_of(be);
    int q = (int)(tag % TL_SC_RING);
    TL_CHECK(tag >= 0 && cb->ring_tag[q] == tag, TL_ERR_INVAL,
             "registers of %lld not posted (or overwritten: more than %d in flight)",
             (long long)tag, TL_SC_RING);
    if (!cb->d_runs) {
        TL_TRY(tl_gpu_wait(be->ctx, "scalar registers", event_done, &cb->ev_ring[q]));
        memcpy(regs, cb->h_ring + (size_t)q * TL_SC_REGS, TL_SC_REGS * sizeof(double));
        return TL_OK;
    }
    const double *slot = cb->h_runs + (size_t)cb->run_of[q] * RUN_STRIDE;
    run_wait w = {.seq = slot + TL_SC_REGS,
                  .want = (double)cb->run_seq[q],
                  .s = cb->s[TL_SOP_UPDATE]};
    TL_TRY(tl_gpu_wait(be->ctx, "scalar registers", run_done, &w));
    /* the registers were stored before the number (a system fence between) */
    atomic_thread_fence(memory_order_acquire);
    memcpy(regs, slot, TL_SC_REGS * sizeof(double));
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
