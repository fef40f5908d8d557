/* A job's storage and its structural checks (no SimGrid here: the CLI and
 * the tests build and check jobs without it). */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

tl_status tl_mjob_alloc(tl_mjob *j, int nranks)
{
    TL_CHECK(nranks >= 1, TL_ERR_INVAL, "a model needs at least one rank (got %d)", nranks);
    memset(j, 0, sizeof *j);
    j->nranks = nranks;
    j->cost = calloc((size_t)nranks * TL_MODEL_MAX_LANES * TL_MODEL_MAX_OPS, sizeof *j->cost);
    j->halo = calloc((size_t)nranks, sizeof *j->halo);
    if (!j->cost || !j->halo) {
        tl_mjob_free(j);
        return TL_FAIL(TL_ERR_NOMEM, "job tables for %d ranks", nranks);
    }
    return TL_OK;
}

void tl_mjob_free(tl_mjob *j)
{
    if (!j) return;
    if (j->halo)
        for (int r = 0; r < j->nranks; r++) {
            free(j->halo[r].peer);
            free(j->halo[r].bytes);
            free(j->halo[r].from);
        }
    free(j->halo);
    free(j->cost);
    j->halo = NULL;
    j->cost = NULL;
}

tl_status tl_mhalo_add(tl_mhalo *halo, int a, int b, int64_t bytes)
{
    tl_mhalo *s = &halo[a], *d = &halo[b];
    int64_t *nb = realloc(s->bytes, (size_t)(s->n + 1) * sizeof *nb);
    if (nb) s->bytes = nb;
    int *np = realloc(s->peer, (size_t)(s->n + 1) * sizeof *np);
    if (np) s->peer = np;
    int *nf = realloc(d->from, (size_t)(d->nfrom + 1) * sizeof *nf);
    if (nf) d->from = nf;
    TL_CHECK(nb && np && nf, TL_ERR_NOMEM, "halo lists");
    s->peer[s->n] = b;
    s->bytes[s->n++] = bytes;
    d->from[d->nfrom++] = a;
    return TL_OK;
}

/* Each event is recorded on exactly one lane, and a lane that waits for
 * it waits as often per iteration as it is recorded: the engine gives
 * every (event, waiting lane) its own counting semaphore and pairs the
 * n-th wait with the n-th record, which is CUDA's pairing (a wait joins
 * the last record issued before it) when the builders issue each record's
 * wait before the next record, as they do (Pipe-BiCGStab records its
 * events twice per iteration). */
tl_status tl_mjob_check(const tl_mjob *j)
{
    TL_CHECK(j->nlanes >= 1 && j->nlanes <= TL_MODEL_MAX_LANES, TL_ERR_INVAL, "%d lanes", j->nlanes);
    TL_CHECK(j->iters >= 1, TL_ERR_INVAL, "%d iterations", j->iters);
    int recorder[TL_MODEL_MAX_EVENTS];
    for (int e = 0; e < TL_MODEL_MAX_EVENTS; e++) recorder[e] = -1;
    for (int l = 0; l < j->nlanes; l++) {
        const tl_mlane *L = &j->lanes[l];
        TL_CHECK(L->nops >= 0 && L->nops <= TL_MODEL_MAX_OPS, TL_ERR_INVAL, "lane %d: %d ops", l, L->nops);
        for (int k = 0; k < L->nops; k++) {
            const tl_mop *o = &L->ops[k];
            if (o->kind == TL_MOP_RECORD || o->kind == TL_MOP_WAIT)
                TL_CHECK(o->ev >= 0 && o->ev < TL_MODEL_MAX_EVENTS, TL_ERR_INVAL, "lane %d op %d: event %d", l, k,
                         o->ev);
            if (o->kind == TL_MOP_RECORD) {
                TL_CHECK(recorder[o->ev] < 0 || recorder[o->ev] == l, TL_ERR_INVAL,
                         "event %d recorded on lanes %d and %d", o->ev, recorder[o->ev], l);
                recorder[o->ev] = l;
            }
            if (o->kind == TL_MOP_COMM)
                TL_CHECK(o->chan >= 0 && o->chan < TL_MODEL_MAX_CHANS, TL_ERR_INVAL, "lane %d op %d: channel %d",
                         l, k, o->chan);
        }
    }
    int recorded[TL_MODEL_MAX_EVENTS] = {0};
    for (int l = 0; l < j->nlanes; l++)
        for (int k = 0; k < j->lanes[l].nops; k++)
            if (j->lanes[l].ops[k].kind == TL_MOP_RECORD) recorded[j->lanes[l].ops[k].ev]++;
    for (int l = 0; l < j->nlanes; l++) {
        int waited[TL_MODEL_MAX_EVENTS] = {0};
        for (int k = 0; k < j->lanes[l].nops; k++) {
            const tl_mop *o = &j->lanes[l].ops[k];
            if (o->kind != TL_MOP_WAIT) continue;
            TL_CHECK(recorder[o->ev] >= 0 && recorder[o->ev] != l, TL_ERR_INVAL,
                     "lane %s waits for event %d, which no other lane records", j->lanes[l].name, o->ev);
            waited[o->ev]++;
        }
        for (int e = 0; e < TL_MODEL_MAX_EVENTS; e++)
            TL_CHECK(!waited[e] || waited[e] == recorded[e], TL_ERR_INVAL,
                     "lane %s waits %d times per iteration for event %d, recorded %d times", j->lanes[l].name,
                     waited[e], e, recorded[e]);
    }
    return TL_OK;
}

/* The routes one operation of rank r takes (tl_mjob_each_route). */
static int op_routes(const tl_mjob *j, const tl_mop *o, int r, const int *node,
                     int (*fn)(const tl_mroute *, void *), void *arg)
{
    int n = j->nranks, rc = 0;
    const tl_mhalo *h = &j->halo[r];
    for (int e = 0; o->comm == TL_MCOMM_HALO && e < h->n && !rc; e++)
        rc = fn(&(tl_mroute){.src = r, .dst = h->peer[e], .rank = r, .peer = h->peer[e], .what = "its halo"}, arg);
    /* host-staged: into the node's host, then on from there (sim.c) */
    if (o->comm == TL_MCOMM_STAGED && h->n > 0 && !rc)
        rc = fn(&(tl_mroute){.src = r, .dst = node[r], .dst_cpu = 1, .rank = r, .peer = -1,
                             .what = "its halo through its node's host"},
                arg);
    for (int e = 0; o->comm == TL_MCOMM_STAGED && e < h->n && !rc; e++)
        rc = fn(&(tl_mroute){.src = node[r], .src_cpu = 1, .dst = h->peer[e], .rank = r, .peer = h->peer[e],
                             .what = "its halo through host"},
                arg);
    if (!rc && (o->comm == TL_MCOMM_RING || (o->comm == TL_MCOMM_ALLREDUCE && j->ar_algo == TL_MAR_RING)))
        rc = fn(&(tl_mroute){.src = r, .dst = (r + 1) % n, .rank = r, .peer = (r + 1) % n,
                             .what = "a step of its ring"},
                arg);
    if (!rc && o->comm == TL_MCOMM_ALLREDUCE && j->ar_algo == TL_MAR_TREE && r > 0) {
        int up = r - (r & -r); /* the tree's parent: reduce up, broadcast down */
        rc = fn(&(tl_mroute){.src = r, .dst = up, .rank = r, .peer = up, .what = "its partial sums (allreduce tree)"},
                arg);
        if (!rc)
            rc = fn(&(tl_mroute){.src = up, .dst = r, .rank = up, .peer = r, .what = "the sums (allreduce tree)"},
                    arg);
    }
    return rc;
}

int tl_mjob_each_route(const tl_mjob *j, const int *node, int (*fn)(const tl_mroute *route, void *arg), void *arg)
{
    int rc = 0;
    for (int r = 0; r < j->nranks && j->nranks > 1 && !rc; r++)
        for (int l = 0; l < j->nlanes && !rc; l++)
            for (int k = 0; k < j->lanes[l].nops && !rc; k++)
                if (j->lanes[l].ops[k].kind == TL_MOP_COMM) rc = op_routes(j, &j->lanes[l].ops[k], r, node, fn, arg);
    return rc;
}
