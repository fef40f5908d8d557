/* The CUDA backend's fused updates: the update kernel (update), and the
 * same with its tail (update_fused: the Jacobi step and the next
 * reduction's local dots, in the kernel or, with cfg.fuse_tail, alone). */
#include "config.h"

#if TL_HAVE_CUDA

#include <string.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

/* The kernel of a (updates, a tail, or both), timed as `et`. */
static tl_status update_launch(cuda_backend *cb, tl_cu_update_args *a, int sms, int et,
                               const char *name)
{
    tl_backend *be = &cb->base;
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    tl_cu_update_link(a);
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, name);
    tl_status st = tl_cu_be_join(cb, TL_SOP_UPDATE, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, et, s);
    if (st == TL_OK) st = tl_cu_update_run(a, be->m->nowned, sms, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, et, s);
    tl_probe_pop(be->ctx);
    return st;
}

tl_status tl_cu_be_update(tl_backend *be, const tl_update *u, int nu)
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
tl_status tl_cu_be_update_fused(tl_backend *be, const tl_update *u, int nu,
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
        TL_TRY(tl_cu_be_update(be, u, nu));
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
        TL_TRY(tl_cu_be_record(cb, TL_SEV_DOTS, sl->ev_dots, s));
        sl->dots_on = s;
        sl->kept = t->ndots;
    }
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
