/* CUDA backend: the operations of solvers/backends/backend.h enqueued on the
 * rank's role streams, in the order and with the joins the schedule row
 * gives (runtime/schedule.h: per step a stream role, a communicator and
 * the events it waits for). Cross-stream dependencies go only through
 * events; the host waits only where a method needs a value (dot_end) and
 * in finish. Communication goes through runtime/devcomm.h (NCCL, or the
 * host-staged provider that lets ranks share a GPU).
 *
 * Per-operation times come from the event timer (runtime/evtimer.h), a
 * pair of events around each operation on its stream, collected in
 * finish: a host clock around an enqueue would measure the enqueue.
 *
 * This file: the operations table, the preconditioner and finish; the
 * other operations are backend_cuda_*.c (backend_cuda_impl.h): events,
 * vectors, updates, dots, scalars, spmv, lifecycle. */
#include "config.h"

#if TL_HAVE_CUDA

#include <math.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/evtimer.h"
#include "runtime/gpu.h"
#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"
#include "solvers/backends/cuda/fused_iterations.h"

/* Event-timer operations' statistics rows (cuda_backend.h; their names:
 * backend_cuda_lifecycle.c's et_names) */
static const tl_op_kind et_op[ET_COUNT] = {TL_OP_SPMV,   TL_OP_SPMV,    TL_OP_HALO,
                                           TL_OP_DOT,    TL_OP_ALLREDUCE, TL_OP_UPDATE,
                                           TL_OP_PRECOND, TL_OP_LOOP};

static tl_status cuda_precond(tl_backend *be, tl_vec *z, tl_vec *r)
{
    cuda_backend *cb = cb_of(be);
    int64_t n = be->m->nowned;
    cudaStream_t s = cb->s[TL_SOP_PRECOND];
    TL_TRY(tl_cu_be_flush_scalars(cb));
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "precond");
    tl_status st = tl_cu_be_join(cb, TL_SOP_PRECOND, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_PRECOND, s);
    if (st == TL_OK) st = tl_cu_jacobi(cb->d_dinv, r->data, z->data, n, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_PRECOND, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_PRECOND, 0, (double)n * sizeof(double) * (cb->d_dinv ? 3 : 2));
    return TL_OK;
}

/* Wait for every stream, then move the event timer's times into the
 * statistics, each operation's timed calls scaled to all its calls (and
 * forget them, so that a statistics reset between the warm-up and the
 * timed solves also resets the times). */
static tl_status cuda_finish(tl_backend *be)
{
    cuda_backend *cb = cb_of(be);
    TL_TRY(tl_cu_be_flush_scalars(cb));
    TL_TRY(tl_gpu_sync_all(be->ctx, "solve"));
    if (!cb->et) return TL_OK;
    TL_TRY(tl_evtimer_collect(cb->et));
    for (int k = 0; k < ET_COUNT; k++) {
        /* sampled calls stand for all of them (tl_evtimer_sample) */
        tl_evtimer_stat es = tl_evtimer_stat_of(cb->et, k);
        if (es.count > 0)
            be->stats[et_op[k]].ns +=
                (int64_t)llround(es.total_s * 1e9 * (double)es.calls / (double)es.count);
    }
    TL_TRY(tl_evtimer_reset(cb->et));
    return TL_OK;
}

const tl_backend_ops tl_backend_cuda_ops = {
    .name = "cuda",
    .create = tl_cu_be_create,
    .caps = tl_cu_be_caps,
    .destroy = tl_cu_be_destroy,
    .vec_create = tl_cu_be_vec_create,
    .vec_destroy = tl_cu_be_vec_destroy,
    .vec_set = tl_cu_be_vec_set,
    .vec_get = tl_cu_be_vec_get,
    .fill = tl_cu_be_fill,
    .update = tl_cu_be_update,
    .dot_begin = tl_cu_be_dot_begin,
    .dot_end = tl_cu_be_dot_end,
    .spmv_begin = tl_cu_be_spmv_begin,
    .spmv_end = tl_cu_be_spmv_end,
    .precond = cuda_precond,
    .finish = cuda_finish,
    .dot_end_async = tl_cu_be_dot_end_async,
    .dot_fetch = tl_cu_be_dot_fetch,
    .scalars = tl_cu_be_scalars,
    .scalars_init = tl_cu_be_scalars_init,
    .regs_post = tl_cu_be_regs_post,
    .regs_get = tl_cu_be_regs_get,
    .update_fused = tl_cu_be_update_fused,
    .spmv_dot = tl_cu_be_spmv_dot,
    .fused_iterations = tl_cu_be_fused_iterations,
};

#endif /* TL_HAVE_CUDA */

#if !TL_HAVE_CUDA
#include "solvers/backends/backend.h"

/* Without CUDA the name is known and refuses cleanly. */
#define CUDA_UNBUILT "built without CUDA (nvcc not found or CUDA=0)"
static tl_status cuda_create_unbuilt(tl_ctx *ctx, const tl_dist_matrix *m,
                                     const tl_backend_config *cfg, tl_backend **out)
{
    *out = NULL;
    return TL_FAIL(TL_ERR_UNSUPPORTED, CUDA_UNBUILT);
}

const tl_backend_ops tl_backend_cuda_ops = {
    .name = "cuda", .unavailable = CUDA_UNBUILT, .create = cuda_create_unbuilt};
#endif
