/* Scalar programs for backends without device scalars: the tl_be_*
 * wrappers of solvers/backends/backend.h run them on the host, with the same
 * functions (solvers/backends/scalars.h) the CUDA kernels run, so a method written
 * against the wrappers gives the same numbers on every backend. */
#include <string.h>

#include "solvers/backends/backend.h"

tl_status tl_be_dot_end_async(tl_backend *be, int slot)
{
    if (be->ops->dot_end_async) return be->ops->dot_end_async(be, slot);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS, TL_ERR_INVAL, "dot slot %d", slot);
    return be->ops->dot_end(be, slot, be->sc.dots[slot]);
}

tl_status tl_be_dot_fetch(tl_backend *be, int slot, double *out, int n)
{
    if (be->ops->dot_fetch) return be->ops->dot_fetch(be, slot, out, n);
    TL_CHECK(slot >= 0 && slot < TL_DOT_SLOTS && n >= 0 && n <= TL_DOT_MAX, TL_ERR_INVAL,
             "dot slot %d, %d values", slot, n);
    memcpy(out, be->sc.dots[slot], (size_t)n * sizeof *out);
    return TL_OK;
}

tl_status tl_be_scalars_init(tl_backend *be, const double *state)
{
    if (be->ops->scalars_init) return be->ops->scalars_init(be, state);
    memcpy(be->sc.state, state, TL_SC_STATE * sizeof *state);
    be->sc.parity = 0;
    return TL_OK;
}

tl_status tl_be_scalars(tl_backend *be, tl_sc_prog prog, int slot)
{
    if (be->ops->scalars) return be->ops->scalars(be, prog, slot);
    TL_CHECK(prog > TL_SC_NONE && prog < TL_SC_COUNT && slot >= 0 && slot < TL_DOT_SLOTS,
             TL_ERR_INVAL, "scalar program %d on slot %d", (int)prog, slot);
    tl_sc_host *h = &be->sc;
    tl_sc_run(prog, h->dots[slot], h->state + h->parity * TL_SC_STATE, h->regs,
              h->state + (1 - h->parity) * TL_SC_STATE);
    h->parity = 1 - h->parity;
    return TL_OK;
}

tl_status tl_be_regs_post(tl_backend *be, int64_t tag)
{
    if (be->ops->regs_post) return be->ops->regs_post(be, tag);
    TL_CHECK(tag >= 0, TL_ERR_INVAL, "register tag %lld", (long long)tag);
    memcpy(be->sc.ring[tag % TL_SC_RING], be->sc.regs, sizeof be->sc.regs);
    return TL_OK;
}

tl_status tl_be_regs_get(tl_backend *be, int64_t tag, double *regs)
{
    if (be->ops->regs_get) return be->ops->regs_get(be, tag, regs);
    TL_CHECK(tag >= 0, TL_ERR_INVAL, "register tag %lld", (long long)tag);
    memcpy(regs, be->sc.ring[tag % TL_SC_RING], sizeof be->sc.regs);
    return TL_OK;
}

tl_status tl_be_update_host_sref(tl_backend *be, const tl_update *u, int n)
{
    TL_CHECK(n >= 1 && n <= TL_UPDATE_MAX, TL_ERR_INVAL, "%d updates (1..%d)", n, TL_UPDATE_MAX);
    tl_update w[TL_UPDATE_MAX];
    memcpy(w, u, (size_t)n * sizeof *u);
    for (int j = 0; j < n; j++)
        for (int k = 0; k < w[j].nterms && k < TL_UPDATE_MAXTERMS; k++) {
            int r = w[j].sref[k];
            TL_CHECK(r <= TL_SC_REGS, TL_ERR_INVAL, "update %d term %d: register %d", j, k, r - 1);
            if (r) w[j].coef[k] *= be->sc.regs[r - 1];
            w[j].sref[k] = 0;
        }
    return be->ops->update(be, w, n);
}
