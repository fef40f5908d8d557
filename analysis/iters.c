/* A rank's iterations numbered over its whole window. A program that runs
 * its loop more than once in one trace (trilap-solve: a warm-up solve,
 * then --repeat timed ones) marks each run of the loop from iteration 0
 * again, so before this the iteration k of every run shared one slice:
 * its start was the warm-up's, outside the window, and the whole window
 * fell into the last iterations (median iteration time 0.0 us, an
 * --iter-range wider than the run, "window end before start";
 * analysis/README.md, "A loop run again in one trace"). Here the host's "iter" ranges in
 * the window are taken in time order and a number not above the one
 * before starts a new run of the loop, numbered on after the highest so
 * far, as the Nsight Systems importer numbers a probes session's
 * restarted count (nsys.c); ranges before or after the window (a
 * warm-up) are no iteration of the run. A GPU record or communication
 * mark of iteration k belongs to the last run whose range k began at or
 * before it starts (its launch lies inside that range), or to none. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/analysis.h"

static int cmp_start(const void *a, const void *b)
{
    const tl_an_hostiter *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* by the number as traced, then by start */
static int cmp_iter_start(const void *a, const void *b)
{
    const tl_an_hostiter *x = a, *y = b;
    if (x->iter != y->iter) return x->iter < y->iter ? -1 : 1;
    return cmp_start(a, b);
}

/* A run of the loop that went back to iteration k after `after` without
 * beginning again (cg_async restarts at the iteration a flag names) */
static void note_rerun(tl_an_meta *m, int64_t k, int64_t after, int64_t num)
{
    if (!m->reruns++) {
        m->rerun_iter = k;
        m->rerun_after = after;
        m->rerun_num = num;
    }
}

const char *tl_an_reruns_say(const tl_an_meta *m, char *buf, size_t n)
{
    if (!m->reruns) return NULL;
    const char *several = m->reruns > 1 ? " (the first of several)" : "";
    long long k = m->rerun_iter, num = m->rerun_num, by = m->rerun_num - m->rerun_iter;
    if (m->rerun_iter == m->rerun_after) /* a number twice in a row: no loop goes back to where it is */
        snprintf(buf, n,
                 "rank %d: iteration %lld began twice in a row (two ProfilerStep or iter ranges of one number)%s; "
                 "numbered on here: iteration %lld here is the program's second %lld, and every later one %lld above "
                 "the program's number%s",
                 m->rank, k, several, num, k, by, m->reruns > 1 ? " until the next rerun" : "");
    else
        snprintf(buf, n,
                 "rank %d: the program ran iteration %lld again after %lld, in one run of its loop (a restart, as "
                 "cg_async's in benchmark mode)%s; numbered on here: iteration %lld here is the program's %lld, and "
                 "every later one %lld above the program's number%s",
                 m->rank, k, (long long)m->rerun_after, several, num, k, by,
                 m->reruns > 1 ? " until the next rerun" : " in that run");
    return buf;
}

int64_t tl_an_iters_next(tl_an_iters_renumber *rn, int64_t k, tl_an_meta *m)
{
    if (rn->seen && k <= rn->prev) { /* the loop began again, or went back in its run */
        rn->off = rn->top + 1 - k;
        /* a number seen twice in a row begins no loop again as a return to its start does (4, 4, 6: an
         * edited or merged trace), so it is said, as a rerun is */
        if (k > rn->first || k == rn->prev) note_rerun(m, k, rn->prev, k + rn->off);
        if (k <= rn->first) rn->first = k;
    }
    if (!rn->seen) rn->first = k;
    rn->seen = 1;
    int64_t num = k + rn->off;
    if (num > rn->top) rn->top = num;
    rn->prev = k;
    return num;
}

/* The ranges in the window, in time order, each numbered over the window;
 * whether any number changed. */
static int number_in_window(tl_an_rank *rk)
{
    const tl_an_meta *m = &rk->meta;
    size_t n = 0;
    for (size_t i = 0; i < rk->nhit; i++)
        if (!m->window_from_meta || (rk->hit[i].start >= m->w0 && rk->hit[i].start <= m->w1)) rk->hit[n++] = rk->hit[i];
    int changed = n != rk->nhit;
    rk->nhit = n;
    qsort(rk->hit, n, sizeof *rk->hit, cmp_start);
    tl_an_iters_renumber rn = {.top = -1};
    for (size_t i = 0; i < n; i++) {
        rk->hit[i].num = tl_an_iters_next(&rn, rk->hit[i].iter, &rk->meta);
        changed |= rn.off != 0;
    }
    return changed;
}

/* v's iteration over the window: its run of the loop, by the ranges
 * sorted by (iter, start); -1 where no range of its number began before it */
static int32_t number_of(const tl_an_hostiter *h, size_t n, const tl_an_ival *v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first range of v's number */
        size_t mid = lo + (hi - lo) / 2;
        if (h[mid].iter < v->iter) lo = mid + 1;
        else hi = mid;
    }
    int64_t num = -1;
    for (; lo < n && h[lo].iter == v->iter && h[lo].start <= v->start; lo++) num = h[lo].num;
    return (int32_t)num;
}

/* Per-iteration first starts, INT64_MAX where none: of the GPU activity
 * (marks left out), or of the host's ranges. */
static tl_status starts_of(tl_an_rank *rk, int host, int64_t **out, size_t *nout)
{
    int64_t top = -1; /* the highest iteration */
    if (host)
        for (size_t i = 0; i < rk->nhit; i++) top = rk->hit[i].num > top ? rk->hit[i].num : top;
    else
        for (size_t j = 0; j < rk->n; j++) top = rk->v[j].iter > top ? rk->v[j].iter : top;
    size_t n = (size_t)(top + 1);
    int64_t *s = malloc((n ? n : 1) * sizeof *s);
    TL_CHECK(s, TL_ERR_NOMEM, "%zu iterations", n);
    for (size_t k = 0; k < n; k++) s[k] = INT64_MAX;
    if (host)
        for (size_t i = 0; i < rk->nhit; i++) {
            int64_t *t = &s[rk->hit[i].num];
            if (rk->hit[i].start < *t) *t = rk->hit[i].start;
        }
    else
        for (size_t j = 0; j < rk->n; j++) {
            const tl_an_ival *v = &rk->v[j];
            int mark = v->kind == TL_KIND_HOST && (v->lane == TL_ROLE_P2P || v->lane == TL_ROLE_COLL);
            if (v->iter >= 0 && !mark && v->start < s[v->iter]) s[v->iter] = v->start;
        }
    free(*out);
    *out = s;
    *nout = n;
    return TL_OK;
}

tl_status tl_an_rank_number_iters(tl_an_rank *rk)
{
    if (!rk->nhit) return TL_OK;
    if (number_in_window(rk)) {
        /* none left in the window: every record's iteration is none */
        tl_an_hostiter *h = malloc((rk->nhit ? rk->nhit : 1) * sizeof *h);
        TL_CHECK(h, TL_ERR_NOMEM, "%zu iteration ranges", rk->nhit);
        for (size_t i = 0; i < rk->nhit; i++) h[i] = rk->hit[i];
        qsort(h, rk->nhit, sizeof *h, cmp_iter_start);
        for (size_t j = 0; j < rk->n; j++)
            if (rk->v[j].iter >= 0) rk->v[j].iter = number_of(h, rk->nhit, &rk->v[j]);
        free(h);
        tl_status st = starts_of(rk, 0, &rk->iter_start, &rk->niter);
        if (st != TL_OK) return st;
    }
    return starts_of(rk, 1, &rk->host_start, &rk->nhost);
}
