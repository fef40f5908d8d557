/* Memory a run needs, and the host check (stencil/memneed.h). */
#include "stencil/memneed.h"

#include <stdio.h>
#include <string.h>

#include "runtime/hostmem.h"
#include "runtime/hostshare.h"
#include "stencil/fill.h"

double tl_fdtd_sub_bytes(const tl_fdtd *f, int sd)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    double elems = (double)TL_FDTD_NFIELDS * (double)s->full.count;
    if (tl_fdtd_heterogeneous(&f->cfg)) elems += 4.0 * (double)s->full.count;
    for (int m = 0; m < TL_FDTD_NPSI; m++)
        for (int side = 0; side < 2; side++) elems += (double)s->psi[m][side].count;
    elems += (double)tl_fdtd_profiles_count(f);
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            const tl_fdtd_msg *m = &f->msg[d][k];
            if (m->from == sd) elems += (double)m->count;
            if (m->to == sd) elems += (double)m->count;
        }
    return elems * (double)f->esz;
}

const char *tl_fdtd_run_label(const tl_fdtd *f, char *buf, size_t n)
{
    snprintf(buf, n, "the %lldx%lldx%lld grid (order %d, CPML %lld, %s, %d subdomain%s)",
             (long long)f->cfg.n[0], (long long)f->cfg.n[1], (long long)f->cfg.n[2], f->cfg.order,
             (long long)f->cfg.cpml, f->esz == 8 ? "double" : "float", f->nsub, f->nsub == 1 ? "" : "s");
    return buf;
}

tl_status tl_fdtd_check_host_memory(const tl_fdtd *f, double extra)
{
    double need = extra;
    for (int i = 0; i < f->nsub; i++)
        if (tl_fdtd_mine(f, i)) need += tl_fdtd_sub_bytes(f, i);
    char what[256];
    tl_fdtd_run_label(f, what, sizeof what);
    return tl_hostmem_check(what, need);
}

tl_status tl_fdtd_check_host_memory_early(const tl_fdtd_config *c)
{
    if (c->backend != TL_FDTD_BACKEND_CPU) return TL_OK; /* the GPUs' share: checked at set-up */
    double pts = (double)c->n[0] * (double)c->n[1] * (double)c->n[2];
    char what[256];
    snprintf(what, sizeof what, "the %lldx%lldx%lld grid (%s)", (long long)c->n[0], (long long)c->n[1],
             (long long)c->n[2], c->dbl ? "double" : "float");
    return tl_hostmem_check(what, (double)TL_FDTD_NFIELDS * pts * (c->dbl ? 8.0 : 4.0));
}

/* The subdomains' layout as tl_fdtd_create builds it, without any array:
 * what tl_fdtd_sub_bytes reads (free with tl_fdtd_grid_free). */
static tl_status layout_of(const tl_fdtd_config *c, tl_fdtd *lay)
{
    memset(lay, 0, sizeof *lay);
    lay->cfg = *c;
    lay->r = c->order / 2;
    lay->g = 2 * lay->r * c->s;
    lay->esz = c->dbl ? 8 : 4;
    lay->own = -1;
    tl_status st = tl_fdtd_grid_build(lay);
    if (st != TL_OK) tl_fdtd_grid_free(lay);
    return st;
}

/* The largest extent along each axis of the subdomains of the ranks in
 * the pool of rank `first` (its process's alone: `process`; `same`: all
 * alike). */
static void pool_extents(const tl_fdtd *lay, const tl_hostshare *share, int first, int process, int64_t big[3],
                         int *same)
{
    *same = 1;
    for (int d = 0; d < 3; d++) big[d] = 0;
    for (int r = first; r < share->size; r++) {
        if (process ? !tl_hostshare_same_process(share, first, r) : share->rank[r].first != first) continue;
        for (int d = 0; d < 3; d++) {
            *same = *same && lay->sub[r].n[d] == lay->sub[first].n[d];
            if (lay->sub[r].n[d] > big[d]) big[d] = lay->sub[r].n[d];
        }
    }
}

/* The verdict, the same on every rank from the same gather: the first
 * host (by its first rank) short of memory, else the first process short
 * of its own address-space room, said by rank 0 alone. */
static tl_status judge_hosts(tl_ctx *ctx, const tl_fdtd *lay, const tl_hostshare *share)
{
    int first = tl_hostshare_next_short(share, 0), process = first < 0;
    if (process) first = tl_hostshare_next_short_process(share, 0);
    if (first < 0) return TL_OK;
    if (ctx->rank != 0) return TL_ERR_REMOTE; /* rank 0 says it */
    tl_hostshare_pool pool = process ? tl_hostshare_process_of(share, first) : tl_hostshare_pool_of(share, first);
    int64_t n[3];
    int same;
    pool_extents(lay, share, first, process, n, &same);
    char what[256], where[128], a[32], b[32];
    int whole_host = !process || pool.nranks == tl_hostshare_pool_of(share, first).nranks;
    int len = whole_host ? 0 : snprintf(where, sizeof where, "process %ld on ", share->rank[first].pid);
    if (tl_hostshare_same_host(share, 0, first)) snprintf(where + len, sizeof where - (size_t)len, "this host");
    else snprintf(where + len, sizeof where - (size_t)len, "host %s", share->rank[first].host);
    return TL_FAIL(TL_ERR_NOMEM,
                   "%s needs %s of host memory for the %d rank%s %s %s (%s%lldx%lldx%lld points each); "
                   "%s is available%s",
                   tl_fdtd_run_label(lay, what, sizeof what), tl_bytes_str(pool.need, a, sizeof a), pool.nranks,
                   pool.nranks == 1 ? "" : "s", whole_host ? "on" : "of", where, same ? "" : "up to ",
                   (long long)n[0], (long long)n[1], (long long)n[2], tl_bytes_str(pool.room, b, sizeof b),
                   process ? " under its address-space limit (ulimit -v)" : "");
}

tl_status tl_fdtd_check_host_memory_ranks(const tl_fdtd_config *c, tl_ctx *ctx)
{
    if (c->backend != TL_FDTD_BACKEND_CPU) return TL_OK; /* the GPUs' share: checked at set-up */
    tl_fdtd lay;
    double need = 0, avail = 0, own = 0;
    tl_status st = layout_of(c, &lay);
    if (st == TL_OK && lay.nsub != ctx->size) { /* refused before this (fdtd_run_rank.c: ranks_usage) */
        tl_fdtd_grid_free(&lay);
        return TL_OK;
    }
    if (st == TL_OK) {
        need = tl_fdtd_sub_bytes(&lay, ctx->rank); /* one subdomain a rank, subdomain = rank */
        st = tl_hostmem_rooms(&avail, &own);
    }
    tl_hostshare share;
    st = tl_hostshare_gather_rooms(ctx, st, TL_HOSTSHARE_HOST, need, avail, own, &share);
    if (st == TL_OK) st = judge_hosts(ctx, &lay, &share);
    tl_hostshare_free(&share);
    tl_fdtd_grid_free(&lay);
    return st;
}
