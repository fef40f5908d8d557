/* Host side of the probes: range names interned per rank, ranges and
 * iterations recorded on CLOCK_MONOTONIC into preallocated arrays. The
 * push/pop/iteration calls touch only the rank's own struct: no lock, no
 * allocation, no I/O. */
#include "probes/rank_state.h"

#include <stdlib.h>
#include <string.h>

static uint32_t tl_name_add(tl_probes *p, const char *key, const char *s)
{
    size_t len = strlen(s) + 1;
    if (p->nnames == TL_PROBE_MAX_NAMES || p->arena_used + len > TL_PROBE_NAME_ARENA)
        return UINT32_MAX;
    uint32_t id = p->nnames++;
    memcpy(p->arena + p->arena_used, s, len);
    p->names[id].key = key;
    p->names[id].off = (uint32_t)p->arena_used;
    p->arena_used += len;
    p->names[id].nvtx = tl_probe_nvtx_string(p, p->arena + p->names[id].off);
    return id;
}

tl_status tl_probe_host_init(tl_probes *p)
{
    size_t cap = p->cfg.max_ranges;
    /* malloc, not calloc: untouched pages of a large array cost no memory. */
    p->ranges = malloc(cap * sizeof *p->ranges);
    p->iters = malloc(cap * sizeof *p->iters);
    if (!p->ranges || !p->iters) {
        tl_probe_host_fini(p);
        return TL_FAIL(TL_ERR_NOMEM, "probes: %zu host ranges", cap);
    }
    p->cap_ranges = p->cap_iters = cap;
    p->cur_iter = -1;
    p->window_start = p->window_end = -1;
    tl_name_add(p, NULL, "iter");
    tl_name_add(p, NULL, "(range names exhausted)");
    return TL_OK;
}

void tl_probe_host_fini(tl_probes *p)
{
    free(p->ranges);
    free(p->iters);
    p->ranges = NULL;
    p->iters = NULL;
    p->cap_ranges = p->cap_iters = 0;
}

/* Names are nearly always string literals: the pointer finds the entry,
 * the comparison guards against a reused buffer holding another name. */
uint32_t tl_probe_name_id(tl_probes *p, const char *name)
{
    if (!name) name = "";
    uintptr_t h = (uintptr_t)name;
    h ^= h >> 17;
    h *= 0x9E3779B97F4A7C15ull;
    const uint32_t mask = 2 * TL_PROBE_MAX_NAMES - 1;
    for (uint32_t i = (uint32_t)(h >> 40) & mask, n = 0; n <= mask; i = (i + 1) & mask, n++) {
        uint32_t s = p->slot[i];
        if (s == 0) {
            uint32_t id = tl_name_add(p, name, name);
            if (id == UINT32_MAX) {
                p->names_dropped++;
                return TL_PROBE_NAME_OVERFLOW;
            }
            p->slot[i] = id + 1;
            return id;
        }
        const tl_probe_name *e = &p->names[s - 1];
        if (e->key == name && strcmp(p->arena + e->off, name) == 0) return s - 1;
    }
    p->names_dropped++;
    return TL_PROBE_NAME_OVERFLOW;
}

int64_t tl_probe_iter_at(const tl_probes *p, int64_t t)
{
    /* Iterations are appended in time order and do not overlap. */
    size_t lo = 0, hi = p->niters;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->iters[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return -1;
    const tl_probe_iterval *it = &p->iters[lo - 1];
    if (t <= it->end) return it->iter;
    /* The iteration still open at collection time. */
    if (lo == p->niters && p->cur_iter >= 0 && t >= p->iter_start) return p->cur_iter;
    return -1;
}

/* ---- communication ranges: what a copy was enqueued for ------------------ */

static int cmp_range_start(const void *a, const void *b)
{
    const tl_probe_range *x = *(const tl_probe_range *const *)a, *y = *(const tl_probe_range *const *)b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* the enclosing one first */
}

void tl_probe_commidx_free(tl_probe_commidx *ix)
{
    free(ix->start);
    free(ix->end);
    free(ix->maxend);
    free(ix->lane);
    memset(ix, 0, sizeof *ix);
}

tl_status tl_probe_commidx_build(const tl_probes *p, tl_probe_commidx *ix)
{
    memset(ix, 0, sizeof *ix);
    size_t n = 0;
    for (size_t i = 0; i < p->nranges; i++)
        n += p->ranges[i].cat == TL_CAT_P2P || p->ranges[i].cat == TL_CAT_COLL;
    if (!n) return TL_OK;
    const tl_probe_range **r = malloc(n * sizeof *r);
    ix->start = malloc(n * sizeof *ix->start);
    ix->end = malloc(n * sizeof *ix->end);
    ix->maxend = malloc(n * sizeof *ix->maxend);
    ix->lane = malloc(n);
    if (!r || !ix->start || !ix->end || !ix->maxend || !ix->lane) {
        free(r);
        tl_probe_commidx_free(ix);
        return TL_FAIL(TL_ERR_NOMEM, "probes: %zu communication ranges", n);
    }
    size_t k = 0;
    for (size_t i = 0; i < p->nranges; i++)
        if (p->ranges[i].cat == TL_CAT_P2P || p->ranges[i].cat == TL_CAT_COLL) r[k++] = &p->ranges[i];
    qsort(r, n, sizeof *r, cmp_range_start);
    for (size_t i = 0; i < n; i++) {
        ix->start[i] = r[i]->start;
        ix->end[i] = r[i]->end;
        ix->maxend[i] = i && ix->maxend[i - 1] > r[i]->end ? ix->maxend[i - 1] : r[i]->end;
        ix->lane[i] = r[i]->cat == TL_CAT_COLL ? TL_ROLE_COLL : TL_ROLE_P2P;
    }
    ix->n = n;
    free(r);
    return TL_OK;
}

tl_role tl_probe_comm_lane_at(const tl_probe_commidx *ix, int64_t t)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) { /* entries with start <= t: [0, lo) */
        size_t mid = lo + (hi - lo) / 2;
        if (ix->start[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the latest-starting range that still contains t is the innermost */
    for (size_t i = lo; i > 0 && ix->maxend[i - 1] >= t; i--)
        if (ix->end[i - 1] >= t) return (tl_role)ix->lane[i - 1];
    return TL_ROLE_NONE;
}

/* ---- the public hot-path calls --------------------------------------- */

static void range_begin(tl_ctx *ctx, tl_cat cat, tl_role lane, const char *name)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p) return;
    int d = p->depth++;
    if (d >= TL_PROBE_MAX_DEPTH) return;
    uint32_t id = tl_probe_name_id(p, name);
    tl_probe_nvtx_push(p, cat, lane, id);
    tl_probe_open *o = &p->stack[d];
    o->name = id;
    o->cat = (uint8_t)cat;
    o->lane = (uint8_t)lane;
    o->iter = p->cur_iter;
    o->start = tl_clock_ns();
}

void tl_probe_push(tl_ctx *ctx, tl_cat cat, const char *name)
{
    range_begin(ctx, cat, TL_ROLE_HOST, name);
}

/* A host communication mark is a range whose lane is the communication it
 * serves; its category follows the lane. */
static void mark_begin(tl_ctx *ctx, tl_role lane, const char *what)
{
    tl_role l = lane == TL_ROLE_COLL ? TL_ROLE_COLL : TL_ROLE_P2P;
    range_begin(ctx, l == TL_ROLE_COLL ? TL_CAT_COLL : TL_CAT_P2P, l, what);
}

const tl_comm_marks tl_probe_marks = {.begin = mark_begin, .end = tl_probe_pop, .peers = tl_probe_peers_declare};

void tl_probe_pop(tl_ctx *ctx)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p) return;
    int64_t t = tl_clock_ns();
    if (p->depth == 0) {
        p->unbalanced++;
        return;
    }
    int d = --p->depth;
    if (d >= TL_PROBE_MAX_DEPTH) {
        p->host_dropped++;
        return;
    }
    tl_probe_nvtx_pop(p);
    if (p->nranges == p->cap_ranges) {
        p->host_dropped++;
        return;
    }
    const tl_probe_open *o = &p->stack[d];
    p->ranges[p->nranges++] = (tl_probe_range){
        .start = o->start, .end = t, .iter = o->iter, .name = o->name, .cat = o->cat, .lane = o->lane};
}

void tl_probe_iter_begin(tl_ctx *ctx, int64_t iter)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p) return;
    if (p->cur_iter >= 0) tl_probe_iter_end(ctx);
    if (iter < 0) return; /* -1 is "outside any iteration" in the trace */
    tl_probe_nvtx_iter(p, iter);
    p->cur_iter = iter;
    p->iter_start = tl_clock_ns();
}

void tl_probe_iter_end(tl_ctx *ctx)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p || p->cur_iter < 0) return;
    int64_t t = tl_clock_ns();
    tl_probe_nvtx_pop(p);
    if (p->niters == p->cap_iters)
        p->host_dropped++;
    else
        p->iters[p->niters++] =
            (tl_probe_iterval){.start = p->iter_start, .end = t, .iter = p->cur_iter};
    p->cur_iter = -1;
}

void tl_probe_window_start(tl_ctx *ctx)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (p) p->window_start = tl_clock_ns();
}

void tl_probe_window_stop(tl_ctx *ctx)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (p) p->window_end = tl_clock_ns();
}
