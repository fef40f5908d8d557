/* Host halo exchange over runtime/comm.h: the pack buffer and request
 * slots live in the exchange object, so begin/end allocate nothing of
 * their own. Zero-length directions post no message (the plan lists a
 * neighbour when either direction is non-empty). */
#include "solvers/dist/dist.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"

enum { TAG_HALO = 0x7d20 };

struct tl_halo_xchg {
    const tl_dist_matrix *m;
    double *sendbuf;   /* nsend */
    tl_request **reqs; /* 2 * nneighbors */
    size_t nreq;
    int in_flight;
};

tl_status tl_halo_xchg_create(tl_ctx *ctx, const tl_dist_matrix *m, tl_halo_xchg **out)
{
    tl_halo_xchg *h = NULL;
    *out = NULL;
    h = calloc(1, sizeof *h);
    TL_CHECK(h, TL_ERR_NOMEM, "halo exchange");
    h->m = m;
    h->sendbuf = malloc((size_t)(m->halo.nsend ? m->halo.nsend : 1) * sizeof *h->sendbuf);
    h->reqs = calloc(2 * (size_t)m->halo.nneighbors + 1, sizeof *h->reqs);
    if (!h->sendbuf || !h->reqs) {
        tl_halo_xchg_destroy(&h);
        return TL_FAIL(TL_ERR_NOMEM, "halo buffers for %lld values", (long long)m->halo.nsend);
    }
    *out = h;
    return TL_OK;
}

void tl_halo_xchg_destroy(tl_halo_xchg **ph)
{
    tl_halo_xchg *h = ph ? *ph : NULL;
    if (!h) return;
    free(h->sendbuf);
    free(h->reqs);
    free(h);
    *ph = NULL;
}

tl_status tl_halo_begin(tl_ctx *ctx, tl_halo_xchg *h, double *x)
{
    const tl_halo_plan *p = &h->m->halo;
    TL_CHECK(!h->in_flight, TL_ERR_INVAL, "tl_halo_begin twice without tl_halo_end");
    double *ghost = x + h->m->nowned;
    h->nreq = 0;
    /* receives first, so a matching send never waits for a posted buffer */
    for (int k = 0; k < p->nneighbors; k++)
        if (p->recv_count[k])
            TL_TRY(tl_comm_irecv(ctx, TL_CHAN_WORLD, ghost + p->recv_offset[k],
                                 (size_t)p->recv_count[k] * sizeof(double), p->neighbors[k],
                                 TAG_HALO, &h->reqs[h->nreq++]));
    for (int64_t k = 0; k < p->nsend; k++)
        h->sendbuf[k] = x[p->send_idx[k]];
    for (int k = 0; k < p->nneighbors; k++)
        if (p->send_count[k])
            TL_TRY(tl_comm_isend(ctx, TL_CHAN_WORLD, h->sendbuf + p->send_offset[k],
                                 (size_t)p->send_count[k] * sizeof(double), p->neighbors[k],
                                 TAG_HALO, &h->reqs[h->nreq++]));
    h->in_flight = 1;
    return TL_OK;
}

tl_status tl_halo_end(tl_ctx *ctx, tl_halo_xchg *h, double *x)
{
    TL_CHECK(h->in_flight, TL_ERR_INVAL, "tl_halo_end without tl_halo_begin");
    h->in_flight = 0;
    TL_TRY(tl_comm_waitall(ctx, h->reqs, h->nreq));
    h->nreq = 0;
    return TL_OK;
}
