/* The kernel arguments of a fused update pass (tl_cu_update_args): the
 * one translation of tl_update for backend_cuda_updates.c's updates and
 * fused_iterations.c's persistent loop. */
#include "config.h"

#if TL_HAVE_CUDA

#include <string.h>

#include "runtime/check.h"
#include "solvers/backends/cuda/cuda_backend.h"

/* The kernel arguments of updates u (and the registers they read), and the
 * distinct vectors the pass reads before writing them (rd) and writes (wr). */
tl_status tl_cu_be_update_args(cuda_backend *cb, const tl_update *u, int nu, tl_cu_update_args *a,
                               const tl_vec **rd, int *nrd_out, const tl_vec **wr, int *nwr_out)
{
    TL_CHECK(nu >= 1 && nu <= TL_UPDATE_MAX, TL_ERR_INVAL, "%d updates (1..%d)", nu, TL_UPDATE_MAX);
    memset(a, 0, sizeof *a);
    a->nu = nu;
    a->prog = TL_SC_NONE;
    a->prefetch = cb->base.cfg.prefetch;
    int nrd = 0, nwr = 0;
    for (int j = 0; j < nu; j++) {
        TL_CHECK(u[j].nterms >= 1 && u[j].nterms <= TL_UPDATE_MAXTERMS && u[j].y, TL_ERR_INVAL,
                 "update %d: %d terms", j, u[j].nterms);
        a->u[j].y = u[j].y->data;
        a->u[j].nterms = u[j].nterms;
        for (int k = 0; k < u[j].nterms; k++) {
            a->u[j].x[k] = u[j].x[k]->data;
            a->u[j].coef[k] = u[j].coef[k];
            a->u[j].sref[k] = (signed char)u[j].sref[k];
            TL_CHECK(u[j].sref[k] <= TL_SC_REGS && (!u[j].sref[k] || cb->have_regs), TL_ERR_INVAL,
                     "update %d term %d: register %d%s", j, k, u[j].sref[k] - 1,
                     cb->have_regs ? "" : " before any scalar program ran");
        }
    }
    tl_update_rw(u, nu, rd, &nrd, wr, &nwr);
    if (cb->pend_prog != TL_SC_NONE) {
        /* the pending scalar program runs in this kernel's prologue */
        a->prog = cb->pend_prog;
        a->io = cb->pend_io;
        cb->pend_prog = TL_SC_NONE;
    } else if (cb->have_regs) {
        /* no program here: sref coefficients read the registers the last
         * program left in device memory (a program flushed on its own, e.g.
         * pipebicgstab's beta/alpha before regs_post, wrote them there) */
        a->io.regs = cb->d_regs;
    }
    *nrd_out = nrd;
    *nwr_out = nwr;
    return TL_OK;
}

#endif
