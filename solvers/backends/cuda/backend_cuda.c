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
 * finish: a host clock around an enqueue would measure the enqueue. */
#include "config.h"

#if TL_HAVE_CUDA

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/evtimer.h"
#include "runtime/gpu.h"
#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/cuda_backend.h"
#include "solvers/backends/cuda/memneed.h"
#include "solvers/backends/cuda/fused_iterations.h"

/* Event-timer operations (cuda_backend.h) by name, and their statistics rows. */
static const char *const et_names[ET_COUNT] = {"spmv_interior", "spmv_border", "halo",
                                               "dot",           "allreduce",   "update",
                                               "precond",       "loop"};
static const tl_op_kind et_op[ET_COUNT] = {TL_OP_SPMV,   TL_OP_SPMV,    TL_OP_HALO,
                                           TL_OP_DOT,    TL_OP_ALLREDUCE, TL_OP_UPDATE,
                                           TL_OP_PRECOND, TL_OP_LOOP};



/* The steps whose stream an event of mask bit may be recorded on (the
 * dots also on the update's, after update_fused; the reduction on the
 * dots' stream where no allreduce runs, cb->dc). */
static const struct {
    unsigned bit;
    tl_sched_op from[3];
} event_sources[] = {
    {TL_SEV_INPUT, {TL_SOP_PRECOND, TL_SOP_PRECOND, TL_SOP_PRECOND}},
    {TL_SEV_HALO, {TL_SOP_HALO_POST, TL_SOP_HALO_POST, TL_SOP_HALO_POST}},
    {TL_SEV_DOTS, {TL_SOP_DOT, TL_SOP_UPDATE, TL_SOP_DOT}},
    {TL_SEV_REDUCED, {TL_SOP_ALLREDUCE, TL_SOP_DOT, TL_SOP_UPDATE}},
};

/* The events some step waits for on a stream other than one they may be
 * recorded on (join waits only then). The others are not recorded: in a
 * schedule on one stream nothing waits for them, and a record between two
 * kernels may cost the second its programmatic early launch. */
static unsigned events_needed(const cuda_backend *cb)
{
    const tl_backend *be = &cb->base;
    unsigned need = 0;
    for (int op = 0; op < TL_SOP_COUNT; op++) {
        if (op == TL_SOP_ALLREDUCE && !cb->dc) continue; /* the step does not run */
        unsigned w = step(be, op)->waits;
        for (size_t e = 0; e < sizeof event_sources / sizeof event_sources[0]; e++) {
            if (!(w & event_sources[e].bit)) continue;
            for (int k = 0; k < 3; k++) {
                tl_sched_op from = event_sources[e].from[k];
                if (from == TL_SOP_ALLREDUCE && !cb->dc) continue;
                if (cb->s[from] != cb->s[op]) need |= event_sources[e].bit;
            }
        }
    }
    return need;
}

static tl_status record(const cuda_backend *cb, unsigned bit, cudaEvent_t ev, cudaStream_t s)
{
    if (!(cb->ev_needed & bit)) return TL_OK;
    TL_CUDA(cudaEventRecord(ev, s));
    return TL_OK;
}

/* Enqueue the waits of step `op` on its stream: each event of its mask that
 * was produced on another stream. */
static tl_status join(cuda_backend *cb, tl_sched_op op, int slot)
{
    tl_backend *be = &cb->base;
    unsigned w = step(be, op)->waits;
    cudaStream_t s = cb->s[op];
    struct {
        unsigned bit;
        cudaEvent_t ev;
        tl_sched_op from;
    } src[] = {
        {TL_SEV_INPUT, cb->ev_input, TL_SOP_PRECOND},
        {TL_SEV_HALO, cb->ev_halo, TL_SOP_HALO_POST},
        {TL_SEV_DOTS, cb->slot[slot].ev_dots, TL_SOP_DOT},
        {TL_SEV_REDUCED, cb->slot[slot].ev_reduced, TL_SOP_ALLREDUCE},
    };
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        /* the dots may come from an update_fused on the update's stream,
         * and without an allreduce they are the reduction */
        int dots = src[i].bit == TL_SEV_DOTS || (src[i].bit == TL_SEV_REDUCED && !cb->dc);
        cudaStream_t from = dots && cb->slot[slot].dots_on ? cb->slot[slot].dots_on
                            : dots                          ? cb->s[TL_SOP_DOT]
                                                            : cb->s[src[i].from];
        if ((w & src[i].bit) && from != s) TL_CUDA(cudaStreamWaitEvent(s, src[i].ev, 0));
    }
    return TL_OK;
}

/* ---- vectors ----------------------------------------------------------- */

static tl_status cuda_vec_create(tl_backend *be, tl_vec **out)
{
    tl_status st = TL_OK;
    tl_vec *v = NULL;
    TL_ALLOC(v, 1);
    v->nalloc = be->m->nowned + be->m->nghost;
    size_t bytes = (size_t)(v->nalloc ? v->nalloc : 1) * sizeof(double);
    TL_CUDAGOTO(cudaMalloc((void **)&v->data, bytes), st, fail);
    /* Zero-filled on the rank's own stream and waited for: a plain
     * cudaMemset runs on the legacy default stream, which the role streams
     * (cudaStreamNonBlocking) are not ordered with, so it could land after
     * the first upload or kernel on the vector. That was the "0 iterations
     * after the first run" bug: from the second run of a process on,
     * cudaMalloc hands back the previous run's memory (not zero), and a
     * late zero-fill wiped b after vec_set (b = 0: "x = 0", 0 iterations)
     * or left stale values in work vectors a method assumes zero. */
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDAGOTO(cudaMemsetAsync(v->data, 0, bytes, s), st, fail_mem);
    TL_TRYGOTO(tl_gpu_sync(be->ctx, s, "vector zero-fill"), st, fail_mem);
    *out = v;
    return TL_OK;
fail_mem:
    cudaFree(v->data);
fail:
    free(v);
    return st;
}

static void cuda_vec_destroy(tl_backend *be, tl_vec **v)
{
    if (!v || !*v) return;
    cudaFree((*v)->data);
    free(*v);
    *v = NULL;
}

static tl_status cuda_vec_set(tl_backend *be, tl_vec *v, const double *local)
{
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDA(cudaMemcpyAsync(v->data, local, (size_t)be->m->nowned * sizeof(double),
                            cudaMemcpyHostToDevice, s));
    return tl_gpu_sync(be->ctx, s, "vector upload");
}

static tl_status cuda_vec_get(tl_backend *be, const tl_vec *v, double *local)
{
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDA(cudaMemcpyAsync(local, v->data, (size_t)be->m->nowned * sizeof(double),
                            cudaMemcpyDeviceToHost, s));
    return tl_gpu_sync(be->ctx, s, "vector download");
}

static tl_status cuda_fill(tl_backend *be, tl_vec *v, double alpha)
{
    cuda_backend *cb = cb_of(be);
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    int64_t n = be->m->nowned;
    TL_TRY(tl_cu_be_flush_scalars(cb));
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "fill");
    tl_status st = tl_cu_be_timer_begin(cb, ET_UPDATE, s);
    if (st == TL_OK) st = tl_cu_fill(v->data, alpha, n, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_UPDATE, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_UPDATE, 0, (double)n * sizeof(double));
    return TL_OK;
}

/* ---- fused updates ----------------------------------------------------- */

/* The kernel of a (updates, a tail, or both), timed as `et`. */
static tl_status update_launch(cuda_backend *cb, tl_cu_update_args *a, int sms, int et,
                               const char *name)
{
    tl_backend *be = &cb->base;
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    tl_cu_update_link(a);
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, name);
    tl_status st = join(cb, TL_SOP_UPDATE, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, et, s);
    if (st == TL_OK) st = tl_cu_update_run(a, be->m->nowned, sms, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, et, s);
    tl_probe_pop(be->ctx);
    return st;
}

static tl_status cuda_update(tl_backend *be, const tl_update *u, int nu)
{
    cuda_backend *cb = cb_of(be);
    tl_cu_update_args a;
    /* bytes: each vector read before the pass writes it, and each written, once */
    const tl_vec *rd[TL_UPDATE_MAX * TL_UPDATE_MAXTERMS], *wr[TL_UPDATE_MAX];
    int nrd = 0, nwr = 0;
    TL_TRY(tl_cu_be_update_args(cb, u, nu, &a, rd, &nrd, wr, &nwr));
    TL_TRY(update_launch(cb, &a, a.prog != TL_SC_NONE ? cb->sms : 0, ET_UPDATE, "update"));
    tl_backend_stat(be, TL_OP_UPDATE, 0, (double)(nrd + nwr) * be->m->nowned * sizeof(double));
    return TL_OK;
}

/* One kernel: the updates, the Jacobi step on a value just computed, the
 * local dots of the values after the pass, reduced (deterministically,
 * as the dot kernel does) into the slot's result, where the next
 * dot_begin(slot, 0) finds them. With cfg.fuse_tail two: the update
 * kernel, then the tail alone (the Jacobi step and the dots, summed in
 * the same order). It runs on the update's stream; where the schedule
 * puts the dots or the preconditioner on another stream the capabilities
 * say no fused update (tl_cu_be_caps), the driver sets cfg.unfused and
 * create() refuses it otherwise, so a schedule's streams are always
 * honoured. */
static tl_status cuda_update_fused(tl_backend *be, const tl_update *u, int nu,
                                   const tl_update_tail *t)
{
    cuda_backend *cb = cb_of(be);
    tl_cu_update_args a;
    const tl_vec *rd[TL_UPDATE_MAX * TL_UPDATE_MAXTERMS + 2 * TL_UPDATE_DOTS + 2],
        *wr[TL_UPDATE_MAX + 1];
    int nrd = 0, nwr = 0;
    int alone = be->cfg.fuse_tail; /* the tail in a kernel of its own */
    cuda_slot *sl = t->ndots ? &cb->slot[t->slot] : NULL;
    TL_CHECK(!sl || !sl->active, TL_ERR_INVAL, "update_fused: dot slot %d is active", t->slot);
    if (alone) {
        /* the tail then reads what the updates wrote from memory */
        TL_TRY(cuda_update(be, u, nu));
        memset(&a, 0, sizeof a);
        a.prog = TL_SC_NONE;
        a.prefetch = be->cfg.prefetch;
    } else {
        TL_TRY(tl_cu_be_update_args(cb, u, nu, &a, rd, &nrd, wr, &nwr));
    }
    /* the tail's memory operands: the preconditioner's input unless the
     * pass wrote it, its inverse diagonal, each dot operand the pass did
     * not write; its output, written once */
    const tl_vec *tail_rd[2 * TL_UPDATE_DOTS + 1];
    int ntail = 0;
    if (t->pz) {
        a.t.pz = t->pz->data;
        a.t.pr = t->pr->data;
        a.t.dinv = cb->d_dinv;
        tail_rd[ntail++] = t->pr;
    }
    a.t.nd = t->ndots;
    for (int k = 0; k < t->ndots; k++) {
        a.t.dx[k] = t->x[k]->data;
        a.t.dy[k] = t->y[k]->data;
        tail_rd[ntail++] = t->x[k];
        tail_rd[ntail++] = t->y[k];
    }
    for (int q = 0; q < ntail; q++) {
        const tl_vec *v = tail_rd[q];
        int known = v == t->pz;
        for (int e = 0; e < nrd; e++)
            known |= rd[e] == v;
        for (int e = 0; e < nwr; e++)
            known |= wr[e] == v;
        if (!known) rd[nrd++] = v;
    }
    int extra = cb->d_dinv && t->pz; /* the inverse diagonal */
    if (t->pz) {
        int dup = 0;
        for (int e = 0; e < nwr; e++)
            dup |= wr[e] == t->pz;
        if (!dup) wr[nwr++] = t->pz;
    }
    if (sl) {
        a.t.part = sl->d_part;
        a.t.count = sl->d_count;
        a.t.out = sl->d_res;
    }
    TL_TRY(update_launch(cb, &a, cb->sms, alone ? ET_DOT : ET_UPDATE,
                         alone ? "dot" : "update_fused"));
    tl_backend_stat(be, alone ? TL_OP_DOT : TL_OP_UPDATE, 0,
                    (double)(nrd + nwr + extra) * be->m->nowned * sizeof(double));
    if (sl) {
        cudaStream_t s = cb->s[TL_SOP_UPDATE];
        TL_TRY(record(cb, TL_SEV_DOTS, sl->ev_dots, s));
        sl->dots_on = s;
        sl->kept = t->ndots;
    }
    return TL_OK;
}

/* ---- dots and the allreduce ---------------------------------------------- */

/* The local dots of n pairs into the slot's result (the dot kernel). */
static tl_status dot_local(cuda_backend *cb, int slot, int n, tl_vec *const *x, tl_vec *const *y)
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
    tl_status st = join(cb, TL_SOP_DOT, slot);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_DOT, s);
    if (st == TL_OK) st = tl_cu_dots(&a, len, sl->d_part, sl->d_count, sl->d_res, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_DOT, s);
    if (st == TL_OK) st = record(cb, TL_SEV_DOTS, sl->ev_dots, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_DOT, 0, (double)nseen * len * sizeof(double));
    sl->dots_on = s;
    return TL_OK;
}

/* n = 0: the dots an update_fused already reduced into the slot's result
 * (no dot kernel), else the dot kernel; then the allreduce. */
static tl_status cuda_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y)
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
        TL_TRY(dot_local(cb, slot, n, x, y));
    }
    sl->kept = 0; /* reduced now, or forgotten for dots of the call's own */
    sl->n = n;
    sl->active = 1;

    tl_status st = TL_OK;
    cudaStream_t sa = cb->s[TL_SOP_ALLREDUCE];
    if (cb->dc) {
        tl_probe_push(be->ctx, TL_CAT_COLL, "allreduce");
        st = join(cb, TL_SOP_ALLREDUCE, slot);
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
    TL_TRY(record(cb, TL_SEV_REDUCED, sl->ev_reduced, cb->dc ? sa : sl->dots_on));
    return TL_OK;
}

/* The host-scalar path: the method needs the dots on the host, so the
 * compute stream waits for the reduction, copies it to pinned memory, and
 * the host waits for that copy (watched). */
static tl_status cuda_dot_end(tl_backend *be, int slot, double *out)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(sl->active, TL_ERR_INVAL, "dot_end on slot %d without dot_begin", slot);
    sl->active = 0;
    cudaStream_t s = cb->s[TL_SOP_DOT_WAIT];
    tl_probe_push(be->ctx, TL_CAT_SYNC, "dot_wait");
    tl_status st = join(cb, TL_SOP_DOT_WAIT, slot);
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

/* ---- device-resident scalars ---------------------------------------------- */

/* The compute stream waits for the reduction; nothing reaches the host. */
static tl_status cuda_dot_end_async(tl_backend *be, int slot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(sl->active, TL_ERR_INVAL, "dot_end on slot %d without dot_begin", slot);
    sl->active = 0;
    return join(cb, TL_SOP_DOT_WAIT, slot);
}

static tl_status cuda_dot_fetch(tl_backend *be, int slot, double *out, int n)
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

static tl_status cuda_scalars_init(tl_backend *be, const double *state)
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

static tl_status cuda_scalars(tl_backend *be, tl_sc_prog prog, int slot)
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

static tl_status cuda_regs_post(tl_backend *be, int64_t tag)
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

static tl_status cuda_regs_get(tl_backend *be, int64_t tag, double *regs)
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

/* ---- SpMV with the halo exchange ----------------------------------------- */

static tl_status halo_post(cuda_backend *cb, tl_vec *x)
{
    tl_backend *be = &cb->base;
    const tl_dist_matrix *m = be->m;
    const tl_halo_plan *h = &m->halo;
    cudaStream_t s = cb->s[TL_SOP_HALO_POST];
    for (int q = 0; q < cb->npeers; q++)
        cb->peers[q].d_recv = x->data + m->nowned + h->recv_offset[q];
    tl_probe_push(be->ctx, TL_CAT_P2P, "halo");
    tl_status st = join(cb, TL_SOP_HALO_POST, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_HALO, s);
    if (st == TL_OK) st = tl_cu_pack(x->data, cb->d_send_idx, h->nsend, cb->d_sendbuf, on(cb, s));
    if (st == TL_OK)
        st = tl_devcomm_exchange(be->ctx, cb->dc, step(be, TL_SOP_HALO_POST)->chan, cb->peers,
                                 cb->npeers, s);
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_HALO, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    TL_TRY(record(cb, TL_SEV_HALO, cb->ev_halo, s));
    tl_backend_stat(be, TL_OP_HALO, 0, (double)(h->nsend + h->nrecv) * sizeof(double));
    cb->halo_pending = 1;
    return TL_OK;
}

/* Whether spmv_end runs the ghost block (the border rows' second half). */
static int has_border(const cuda_backend *cb)
{
    const tl_dist_matrix *m = cb->base.m;
    return cb->halo && m->nborder > 0 && m->nghost > 0;
}

/* spmv_begin; with d_dot, the diagonal block's pass also sums x_i y_i
 * (tl_cu_spmv_diag: into *d_dot, or with `border` over the interior rows
 * for the ghost block's pass to finish). */
static tl_status spmv_begin_dot(tl_backend *be, tl_vec *x, tl_vec *y, double *d_dot, int border)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(x != y, TL_ERR_INVAL, "spmv in place");
    TL_CHECK(!cb->halo_pending, TL_ERR_INVAL, "spmv_begin twice without spmv_end");
    TL_TRY(tl_cu_be_flush_scalars(cb));
    /* the operand was written on the compute stream */
    TL_TRY(record(cb, TL_SEV_INPUT, cb->ev_input, cb->s[TL_SOP_PRECOND]));
    if (cb->halo)
        TL_TRY(halo_post(cb, x));
    else
        cb->halo_pending = 1;
    cudaStream_t s = cb->s[TL_SOP_SPMV_INTERIOR];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_interior");
    tl_status st = join(cb, TL_SOP_SPMV_INTERIOR, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_SPMV_INT, s);
    if (st == TL_OK) st = tl_cu_spmv_diag(cb->spmv, x->data, y->data, d_dot, border, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_SPMV_INT, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_SPMV, 0, tl_cu_spmv_diag_bytes(cb->spmv));
    return TL_OK;
}

/* spmv_end; with d_dot, *d_dot = the interior rows' sum + the border
 * rows' from this pass (tl_cu_spmv_offd). */
static tl_status spmv_end_dot(tl_backend *be, tl_vec *x, tl_vec *y, double *d_dot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(cb->halo_pending, TL_ERR_INVAL, "spmv_end without spmv_begin");
    cb->halo_pending = 0;
    if (!has_border(cb)) return TL_OK;
    cudaStream_t s = cb->s[TL_SOP_SPMV_BORDER];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_border");
    tl_status st = join(cb, TL_SOP_SPMV_BORDER, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_SPMV_BORDER, s);
    if (st == TL_OK) st = tl_cu_spmv_offd(cb->spmv, x->data, y->data, d_dot, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_SPMV_BORDER, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    /* the second half of the same product: bytes added, not counted again */
    be->stats[TL_OP_SPMV].bytes += tl_cu_spmv_offd_bytes(cb->spmv);
    return TL_OK;
}

static tl_status cuda_spmv_begin(tl_backend *be, tl_vec *x, tl_vec *y)
{
    return spmv_begin_dot(be, x, y, NULL, 0);
}

static tl_status cuda_spmv_end(tl_backend *be, tl_vec *x, tl_vec *y)
{
    return spmv_end_dot(be, x, y, NULL);
}

/* Where the product's pass can also make the local (x, y) (cb->spmv_dot:
 * trilap's row kernel on both blocks, the product and the dot step on one
 * stream), its kernels reduce it into the slot's result, deterministically
 * (block partials, the last block's fixed-order sum; the ghost block's
 * pass adds the border rows' terms, with their final values, to the
 * interior rows' sum of the diagonal block's pass), where the next
 * dot_begin(slot, 0) finds it; else the product, then the dot kernel.
 * The fused pass is the SpMV row of the statistics (its bytes: the
 * product's; p and y are the values the pass holds) and no dot call. */
static tl_status cuda_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(!sl->active, TL_ERR_INVAL, "spmv_dot: dot slot %d is active", slot);
    if (!cb->spmv_dot) {
        TL_TRY(cuda_spmv_begin(be, x, y));
        TL_TRY(cuda_spmv_end(be, x, y));
        TL_TRY(dot_local(cb, slot, 1, &x, &y));
    } else {
        int border = has_border(cb);
        TL_TRY(spmv_begin_dot(be, x, y, sl->d_res, border));
        TL_TRY(spmv_end_dot(be, x, y, sl->d_res));
        cudaStream_t s = cb->s[border ? TL_SOP_SPMV_BORDER : TL_SOP_SPMV_INTERIOR];
        TL_TRY(record(cb, TL_SEV_DOTS, sl->ev_dots, s));
        sl->dots_on = s;
    }
    sl->kept = 1;
    return TL_OK;
}

/* ---- preconditioner, finish ------------------------------------------------ */

static tl_status cuda_precond(tl_backend *be, tl_vec *z, tl_vec *r)
{
    cuda_backend *cb = cb_of(be);
    int64_t n = be->m->nowned;
    cudaStream_t s = cb->s[TL_SOP_PRECOND];
    TL_TRY(tl_cu_be_flush_scalars(cb));
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "precond");
    tl_status st = join(cb, TL_SOP_PRECOND, 0);
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

/* ---- life cycle --------------------------------------------------------- */

static void cuda_destroy(tl_backend **bep)
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
    cb->ev_needed = events_needed(cb);
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
    cb->spmv_dot = tl_cu_spmv_can_dot(cb->spmv, has_border(cb)) &&
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

static tl_status cuda_create(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
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
        cuda_destroy(&b);
    }
    return st;
}

const tl_backend_ops tl_backend_cuda_ops = {
    .name = "cuda",
    .create = cuda_create,
    .caps = tl_cu_be_caps,
    .destroy = cuda_destroy,
    .vec_create = cuda_vec_create,
    .vec_destroy = cuda_vec_destroy,
    .vec_set = cuda_vec_set,
    .vec_get = cuda_vec_get,
    .fill = cuda_fill,
    .update = cuda_update,
    .dot_begin = cuda_dot_begin,
    .dot_end = cuda_dot_end,
    .spmv_begin = cuda_spmv_begin,
    .spmv_end = cuda_spmv_end,
    .precond = cuda_precond,
    .finish = cuda_finish,
    .dot_end_async = cuda_dot_end_async,
    .dot_fetch = cuda_dot_fetch,
    .scalars = cuda_scalars,
    .scalars_init = cuda_scalars_init,
    .regs_post = cuda_regs_post,
    .regs_get = cuda_regs_get,
    .update_fused = cuda_update_fused,
    .spmv_dot = cuda_spmv_dot,
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
