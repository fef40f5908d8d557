/* The CUDA backend's cross-stream events: which of them some step waits
 * for on another stream (only those are recorded), their records, and a
 * step's joins (the waits of its stream on the events of its mask). */
#include "config.h"

#if TL_HAVE_CUDA

#include "runtime/check.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

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
 * recorded on (tl_cu_be_join waits only then). The others are not
 * recorded: in a schedule on one stream nothing waits for them, and a
 * record between two kernels may cost the second its programmatic early
 * launch. */
unsigned tl_cu_be_events_needed(const cuda_backend *cb)
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

tl_status tl_cu_be_record(const cuda_backend *cb, unsigned bit, cudaEvent_t ev, cudaStream_t s)
{
    if (!(cb->ev_needed & bit)) return TL_OK;
    TL_CUDA(cudaEventRecord(ev, s));
    return TL_OK;
}

/* Enqueue the waits of step `op` on its stream: each event of its mask that
 * was produced on another stream. */
tl_status tl_cu_be_join(cuda_backend *cb, tl_sched_op op, int slot)
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

#endif /* TL_HAVE_CUDA */
