/* Event-pair timer. Events come from a free list that grows, so begin and
 * end only record; collect waits for the end events (after the run's own
 * sync they are complete) and sums cudaEventElapsedTime per operation. */
#include "runtime/evtimer.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/check.h"
#include "runtime/comm.h"

typedef struct evpair {
#if TL_HAVE_CUDA
    cudaEvent_t a, b;
#endif
    int op;
} evpair;

struct tl_evtimer {
    int nops;
    const char *const *names;
    tl_evtimer_stat *stats;
    int64_t *open;     /* per op: index into pend of its open begin, -1 */
    unsigned char *untimed; /* per op: begun, not timed (sampling), not ended yet */
    int every;         /* time one call in this many */
    evpair *pend;
    size_t npend, cappend;
#if TL_HAVE_CUDA
    cudaEvent_t *pool; /* recorded-and-read events, ready for reuse */
    size_t npool, cappool;
#endif
};

static void stats_clear(tl_evtimer *t)
{
    for (int i = 0; i < t->nops; i++) t->stats[i] = (tl_evtimer_stat){.name = t->names[i]};
}

tl_status tl_evtimer_create(tl_evtimer **out, int nops, const char *const *names)
{
    *out = NULL;
    TL_CHECK(nops > 0 && names, TL_ERR_INVAL, "event timer: %d operations", nops);
#if !TL_HAVE_CUDA
    return TL_FAIL(TL_ERR_UNSUPPORTED, "the event timer needs CUDA, which this build lacks");
#else
    tl_evtimer *t = NULL;
    TL_ALLOC(t, 1);
    t->nops = nops;
    t->names = names;
    t->stats = calloc((size_t)nops, sizeof *t->stats);
    t->open = malloc((size_t)nops * sizeof *t->open);
    t->untimed = calloc((size_t)nops, sizeof *t->untimed);
    t->every = 1;
    if (!t->stats || !t->open || !t->untimed) {
        tl_evtimer_destroy(&t);
        return TL_FAIL(TL_ERR_NOMEM, "event timer of %d operations", nops);
    }
    for (int i = 0; i < nops; i++) t->open[i] = -1;
    stats_clear(t);
    *out = t;
    return TL_OK;
#endif
}

#if TL_HAVE_CUDA
static void pool_put(tl_evtimer *t, cudaEvent_t e)
{
    if (!e) return;
    if (t->npool == t->cappool) {
        size_t cap = t->cappool ? 2 * t->cappool : 64;
        cudaEvent_t *p = realloc(t->pool, cap * sizeof *p);
        if (!p) {
            cudaEventDestroy(e);
            return;
        }
        t->pool = p;
        t->cappool = cap;
    }
    t->pool[t->npool++] = e;
}

static tl_status pool_get(tl_evtimer *t, cudaEvent_t *e)
{
    if (t->npool) {
        *e = t->pool[--t->npool];
        return TL_OK;
    }
    TL_CUDA(cudaEventCreate(e));
    return TL_OK;
}

static void drop_pending(tl_evtimer *t)
{
    for (size_t i = 0; i < t->npend; i++) {
        pool_put(t, t->pend[i].a);
        pool_put(t, t->pend[i].b);
    }
    t->npend = 0;
    for (int i = 0; i < t->nops; i++) {
        t->open[i] = -1;
        if (t->untimed) t->untimed[i] = 0;
    }
}
#endif

void tl_evtimer_destroy(tl_evtimer **pt)
{
    if (!pt || !*pt) return;
    tl_evtimer *t = *pt;
#if TL_HAVE_CUDA
    if (t->open) drop_pending(t);
    for (size_t i = 0; i < t->npool; i++) cudaEventDestroy(t->pool[i]);
    free(t->pool);
#endif
    free(t->pend);
    free(t->open);
    free(t->untimed);
    free(t->stats);
    free(t);
    *pt = NULL;
}

tl_status tl_evtimer_sample(tl_evtimer *t, int every)
{
    TL_CHECK(every >= 1, TL_ERR_INVAL, "event timer: one call in %d", every);
    t->every = every;
    return TL_OK;
}

#if TL_HAVE_CUDA
tl_status tl_evtimer_begin(tl_evtimer *t, int op, cudaStream_t s)
{
    TL_CHECK(op >= 0 && op < t->nops, TL_ERR_INVAL, "event timer: operation %d of %d", op, t->nops);
    TL_CHECK(t->open[op] < 0 && !t->untimed[op], TL_ERR_INVAL,
             "event timer: '%s' begun twice without an end", t->names[op]);
    if (t->stats[op].calls++ % t->every != 0) {
        t->untimed[op] = 1;
        return TL_OK;
    }
    if (t->npend == t->cappend) {
        size_t cap = t->cappend ? 2 * t->cappend : 256;
        evpair *p = realloc(t->pend, cap * sizeof *p);
        TL_CHECK(p, TL_ERR_NOMEM, "event timer: %zu pending pairs", cap);
        t->pend = p;
        t->cappend = cap;
    }
    evpair *e = &t->pend[t->npend];
    *e = (evpair){.op = op};
    TL_TRY(pool_get(t, &e->a));
    TL_CUDA(cudaEventRecord(e->a, s));
    t->open[op] = (int64_t)t->npend++;
    return TL_OK;
}

tl_status tl_evtimer_end(tl_evtimer *t, int op, cudaStream_t s)
{
    TL_CHECK(op >= 0 && op < t->nops, TL_ERR_INVAL, "event timer: operation %d of %d", op, t->nops);
    if (t->untimed[op]) {
        t->untimed[op] = 0;
        return TL_OK;
    }
    TL_CHECK(t->open[op] >= 0, TL_ERR_INVAL, "event timer: '%s' ended without a begin", t->names[op]);
    evpair *e = &t->pend[t->open[op]];
    TL_TRY(pool_get(t, &e->b));
    TL_CUDA(cudaEventRecord(e->b, s));
    t->open[op] = -1;
    return TL_OK;
}
#endif

tl_status tl_evtimer_collect(tl_evtimer *t)
{
#if TL_HAVE_CUDA
    size_t keep = 0;
    for (size_t i = 0; i < t->npend; i++) {
        evpair *e = &t->pend[i];
        if (!e->b) { /* still open: keep it (moved to the front) */
            t->open[e->op] = (int64_t)keep;
            t->pend[keep++] = *e;
            continue;
        }
        float ms = 0;
        TL_CUDA(cudaEventSynchronize(e->b));
        TL_CUDA(cudaEventElapsedTime(&ms, e->a, e->b));
        double s = 1e-3 * ms;
        tl_evtimer_stat *st = &t->stats[e->op];
        if (st->count == 0 || s < st->min_s) st->min_s = s;
        if (s > st->max_s) st->max_s = s;
        st->total_s += s;
        st->count++;
        pool_put(t, e->a);
        pool_put(t, e->b);
    }
    t->npend = keep;
#else
    (void)t;
#endif
    return TL_OK;
}

tl_status tl_evtimer_reset(tl_evtimer *t)
{
#if TL_HAVE_CUDA
    drop_pending(t);
#endif
    stats_clear(t);
    return TL_OK;
}

int tl_evtimer_nops(const tl_evtimer *t) { return t->nops; }

tl_evtimer_stat tl_evtimer_stat_of(const tl_evtimer *t, int op)
{
    if (op < 0 || op >= t->nops) return (tl_evtimer_stat){0};
    return t->stats[op];
}

tl_status tl_evtimer_reduce(tl_ctx *ctx, const tl_evtimer *t, tl_evtimer_stat *out)
{
    int n = t->nops;
    double *mx = NULL;
    TL_ALLOC(mx, 5 * (size_t)n);
    double *mn = mx + 4 * n;
    for (int i = 0; i < n; i++) {
        const tl_evtimer_stat *s = &t->stats[i];
        mx[4 * i] = s->total_s;
        mx[4 * i + 1] = (double)s->count;
        mx[4 * i + 2] = s->max_s;
        mx[4 * i + 3] = (double)s->calls;
        mn[i] = s->count ? s->min_s : 1e300; /* a rank that never ran it does not set the minimum */
    }
    tl_status st = tl_comm_allreduce(ctx, mx, 4 * (size_t)n, TL_DOUBLE, TL_MAX);
    if (st == TL_OK) st = tl_comm_allreduce(ctx, mn, (size_t)n, TL_DOUBLE, TL_MIN);
    if (st == TL_OK)
        for (int i = 0; i < n; i++)
            out[i] = (tl_evtimer_stat){.name = t->names[i], .total_s = mx[4 * i], .count = (int64_t)mx[4 * i + 1],
                                       .max_s = mx[4 * i + 2], .calls = (int64_t)mx[4 * i + 3],
                                       .min_s = mn[i] < 1e300 ? mn[i] : 0};
    free(mx);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}
