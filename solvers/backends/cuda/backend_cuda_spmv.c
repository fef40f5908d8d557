/* The CUDA backend's SpMV with the halo exchange: the ghosts packed and
 * exchanged on the halo's stream, the diagonal block's pass, the ghost
 * block's (the border rows), and spmv_dot (the local dot in the
 * product's pass where it can be, else the dot kernel after it). */
#include "config.h"

#if TL_HAVE_CUDA

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/devcomm.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

static tl_status halo_post(cuda_backend *cb, tl_vec *x)
{
    tl_backend *be = &cb->base;
    const tl_dist_matrix *m = be->m;
    const tl_halo_plan *h = &m->halo;
    cudaStream_t s = cb->s[TL_SOP_HALO_POST];
    for (int q = 0; q < cb->npeers; q++)
        cb->peers[q].d_recv = x->data + m->nowned + h->recv_offset[q];
    tl_probe_push(be->ctx, TL_CAT_P2P, "halo");
    tl_status st = tl_cu_be_join(cb, TL_SOP_HALO_POST, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_HALO, s);
    if (st == TL_OK) st = tl_cu_pack(x->data, cb->d_send_idx, h->nsend, cb->d_sendbuf, on(cb, s));
    if (st == TL_OK)
        st = tl_devcomm_exchange(be->ctx, cb->dc, step(be, TL_SOP_HALO_POST)->chan, cb->peers,
                                 cb->npeers, s);
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_HALO, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    TL_TRY(tl_cu_be_record(cb, TL_SEV_HALO, cb->ev_halo, s));
    tl_backend_stat(be, TL_OP_HALO, 0, (double)(h->nsend + h->nrecv) * sizeof(double));
    cb->halo_pending = 1;
    return TL_OK;
}

/* Whether spmv_end runs the ghost block (the border rows' second half). */
int tl_cu_be_has_border(const cuda_backend *cb)
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
    TL_TRY(tl_cu_be_record(cb, TL_SEV_INPUT, cb->ev_input, cb->s[TL_SOP_PRECOND]));
    if (cb->halo)
        TL_TRY(halo_post(cb, x));
    else
        cb->halo_pending = 1;
    cudaStream_t s = cb->s[TL_SOP_SPMV_INTERIOR];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_interior");
    tl_status st = tl_cu_be_join(cb, TL_SOP_SPMV_INTERIOR, 0);
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
    if (!tl_cu_be_has_border(cb)) return TL_OK;
    cudaStream_t s = cb->s[TL_SOP_SPMV_BORDER];
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "spmv_border");
    tl_status st = tl_cu_be_join(cb, TL_SOP_SPMV_BORDER, 0);
    if (st == TL_OK) st = tl_cu_be_timer_begin(cb, ET_SPMV_BORDER, s);
    if (st == TL_OK) st = tl_cu_spmv_offd(cb->spmv, x->data, y->data, d_dot, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_SPMV_BORDER, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    /* the second half of the same product: bytes added, not counted again */
    be->stats[TL_OP_SPMV].bytes += tl_cu_spmv_offd_bytes(cb->spmv);
    return TL_OK;
}

tl_status tl_cu_be_spmv_begin(tl_backend *be, tl_vec *x, tl_vec *y)
{
    return spmv_begin_dot(be, x, y, NULL, 0);
}

tl_status tl_cu_be_spmv_end(tl_backend *be, tl_vec *x, tl_vec *y)
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
tl_status tl_cu_be_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot)
{
    cuda_backend *cb = cb_of(be);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    cuda_slot *sl = &cb->slot[slot];
    TL_CHECK(!sl->active, TL_ERR_INVAL, "spmv_dot: dot slot %d is active", slot);
    if (!cb->spmv_dot) {
        TL_TRY(tl_cu_be_spmv_begin(be, x, y));
        TL_TRY(tl_cu_be_spmv_end(be, x, y));
        TL_TRY(tl_cu_be_dot_local(cb, slot, 1, &x, &y));
    } else {
        int border = tl_cu_be_has_border(cb);
        TL_TRY(spmv_begin_dot(be, x, y, sl->d_res, border));
        TL_TRY(spmv_end_dot(be, x, y, sl->d_res));
        cudaStream_t s = cb->s[border ? TL_SOP_SPMV_BORDER : TL_SOP_SPMV_INTERIOR];
        TL_TRY(tl_cu_be_record(cb, TL_SEV_DOTS, sl->ev_dots, s));
        sl->dots_on = s;
    }
    sl->kept = 1;
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
