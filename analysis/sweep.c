/* Interval unions and intersections by one sweep over intervals sorted by
 * start. For each overlap class the sweep keeps only the largest end seen so
 * far: a class covers time t exactly when that end lies beyond t, because
 * every interval starting before t has been admitted. So the busy set is
 * constant between consecutive event times (next start, next class end,
 * next slice bound), and the time of each set is added to by_mask. */
#include "analysis/analysis.h"
#include "analysis/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int comm_lane_class(uint8_t lane)
{
    return lane == TL_ROLE_P2P ? TL_AN_C_P2P : lane == TL_ROLE_COLL ? TL_AN_C_COLL : 0;
}

int tl_an_ival_is_host_compute(const tl_an_ival *v)
{
    return v->kind == TL_KIND_HOST && v->group == TL_AN_G_COMPUTE;
}

int tl_an_ival_class(const tl_an_ival *v)
{
    int c;
    if (tl_an_ival_is_host_compute(v)) return TL_AN_C_COMPUTE;
    if (v->kind == TL_KIND_KERNEL)
        c = v->cat == TL_CAT_COMPUTE ? TL_AN_C_COMPUTE
            : v->cat == TL_CAT_P2P   ? TL_AN_C_P2P
            : v->cat == TL_CAT_COLL  ? TL_AN_C_COLL
                                     : TL_AN_C_OTHER;
    else /* copies and host marks: the lane says what they serve */
        c = comm_lane_class(v->lane);
    if (!c) return TL_AN_C_OTHER;
    if ((v->flags & TL_AN_F_WAIT) && (c & TL_AN_C_COMM)) c <<= 3; /* P2P -> P2P_WAIT, COLL -> COLL_WAIT */
    return c;
}

int tl_an_ival_is_comm(const tl_an_ival *v) { return (tl_an_ival_class(v) & TL_AN_C_COMM_ALL) != 0; }

int tl_an_ival_is_comm_op(const tl_an_ival *v)
{
    return tl_an_ival_is_comm(v) && (v->kind == TL_KIND_KERNEL || v->kind == TL_KIND_HOST);
}

int tl_an_ival_in_selection(const tl_an_ival *v, int64_t w0, int64_t w1)
{
    return v->end > v->start ? v->end > w0 && v->start < w1 : v->start >= w0 && v->start < w1;
}

int tl_an_mark_is_post(const char *name)
{
    static const char post[] = "_post";
    size_t n = name ? strlen(name) : 0;
    return n >= sizeof post - 1 && !strcmp(name + n - (sizeof post - 1), post);
}

int tl_an_ival_activity(const tl_an_ival *v)
{
    if (v->kind == TL_KIND_KERNEL || v->kind == TL_KIND_MEMCPY || v->kind == TL_KIND_MEMSET) return TL_AN_ACT_GPU;
    return v->kind == TL_KIND_HOST && (tl_an_ival_is_comm(v) || tl_an_ival_is_host_compute(v)) ? TL_AN_ACT_HOST
                                                                                                : TL_AN_ACT_NONE;
}

int tl_an_rank_activity(const tl_an_rank *rk)
{
    int a = TL_AN_ACT_NONE;
    for (size_t j = 0; j < rk->n && a != TL_AN_ACT_GPU; j++) {
        int x = tl_an_ival_activity(&rk->v[j]);
        if (x > a) a = x;
    }
    return a;
}

const char *tl_an_activity_name(int activity)
{
    return activity == TL_AN_ACT_HOST ? "host activity" : "GPU activity";
}

static int cmp_ival(const void *a, const void *b)
{
    const tl_an_ival *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return 0;
}

void tl_an_ival_sort(tl_an_ival *v, size_t n)
{
    if (n > 1) qsort(v, n, sizeof *v, cmp_ival);
}

int64_t tl_an_m_union(const tl_an_metrics *m, int classes)
{
    int64_t s = 0;
    for (int k = 0; k < TL_AN_NMASK; k++)
        if (k & classes) s += m->by_mask[k];
    return s;
}

int64_t tl_an_m_inter(const tl_an_metrics *m, int classes)
{
    int64_t s = 0;
    for (int k = 0; k < TL_AN_NMASK; k++)
        if ((k & classes) == classes) s += m->by_mask[k];
    return s;
}

int64_t tl_an_m_cover(const tl_an_metrics *m, const int *groups, int n)
{
    int64_t s = 0;
    for (int k = 0; k < TL_AN_NMASK; k++) {
        int all = 1;
        for (int g = 0; g < n && all; g++) all = (k & groups[g]) != 0;
        if (all) s += m->by_mask[k];
    }
    return s;
}

int64_t tl_an_m_idle(const tl_an_metrics *m) { return m->by_mask[0]; }

static double ratio(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : NAN; }

static double hidden_of(const tl_an_metrics *m, int comm)
{
    const int g[2] = {comm, TL_AN_C_COMPUTE};
    return ratio(tl_an_m_cover(m, g, 2), tl_an_m_union(m, comm));
}

double tl_an_m_hidden(const tl_an_metrics *m) { return hidden_of(m, TL_AN_C_COMM); }
double tl_an_m_hidden_all(const tl_an_metrics *m) { return hidden_of(m, TL_AN_C_COMM_ALL); }

double tl_an_m_ccover(const tl_an_metrics *m)
{
    const int g[2] = {TL_AN_C_P2P_ALL, TL_AN_C_COLL_ALL};
    int64_t p = tl_an_m_union(m, TL_AN_C_P2P_ALL), c = tl_an_m_union(m, TL_AN_C_COLL_ALL);
    return ratio(tl_an_m_cover(m, g, 2), p < c ? p : c);
}

double tl_an_m_triple(const tl_an_metrics *m)
{
    return ratio(tl_an_m_inter(m, TL_AN_C_P2P | TL_AN_C_COLL | TL_AN_C_COMPUTE), m->w);
}

double tl_an_m_triple_all(const tl_an_metrics *m)
{
    const int g[3] = {TL_AN_C_P2P_ALL, TL_AN_C_COLL_ALL, TL_AN_C_COMPUTE};
    return ratio(tl_an_m_cover(m, g, 3), m->w);
}

int64_t tl_an_m_exposed(const tl_an_metrics *m)
{
    const int g[2] = {TL_AN_C_COMM_ALL, TL_AN_C_COMPUTE};
    return tl_an_m_union(m, TL_AN_C_COMM_ALL) - tl_an_m_cover(m, g, 2);
}

int64_t tl_an_m_waiting(const tl_an_metrics *m)
{
    return tl_an_m_union(m, TL_AN_C_COMM_ALL) - tl_an_m_union(m, TL_AN_C_COMM);
}

int64_t tl_an_m_derived(const tl_an_metrics *m) { return m->w - m->sum_compute; }

int tl_an_m_compute_overlaps_w(const tl_an_metrics *m) { return m->sum_compute > m->w; }

void tl_an_m_add(tl_an_metrics *acc, const tl_an_metrics *m)
{
    acc->w += m->w;
    for (int k = 0; k < TL_AN_NMASK; k++) acc->by_mask[k] += m->by_mask[k];
    acc->sum_compute += m->sum_compute;
    acc->launch_gaps += m->launch_gaps;
    acc->ncompute += m->ncompute;
    acc->np2p += m->np2p;
    acc->ncoll += m->ncoll;
    acc->nother += m->nother;
}

static int class_index(int c)
{
    int i = 0;
    while (c > 1) c >>= 1, i++;
    return i;
}

/* Slice of time t: the last k with bounds[k] <= t, -1 before the first. */
static ptrdiff_t slice_of(const int64_t *b, size_t nb, int64_t t)
{
    size_t lo = 0, hi = nb;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b[mid] <= t) lo = mid + 1;
        else hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

static int64_t slice_end(const int64_t *b, size_t nb, ptrdiff_t k, int64_t w1)
{
    if (k + 1 < (ptrdiff_t)nb) return b[k + 1] < w1 ? b[k + 1] : w1;
    return w1;
}

/* Add [s, e) to a per-slice field through `field` (offset into metrics). */
static void spread(tl_an_metrics *slices, const int64_t *b, size_t nb, int64_t w1, int64_t s, int64_t e,
                   size_t field)
{
    if (!slices || !nb || e <= s) return;
    for (ptrdiff_t k = slice_of(b, nb, s) < 0 ? 0 : slice_of(b, nb, s); k < (ptrdiff_t)nb; k++) {
        int64_t lo = b[k] > s ? b[k] : s, hi = slice_end(b, nb, k, w1);
        if (hi > e) hi = e;
        if (lo >= e) break;
        if (hi > lo) *(int64_t *)((char *)&slices[k] + field) += hi - lo;
    }
}

tl_status tl_an_sweep(const tl_an_ival *v, size_t n, int64_t w0, int64_t w1, const int64_t *bounds,
                      size_t nb, int64_t gap_ns, tl_an_metrics *whole, tl_an_metrics *slices)
{
    TL_CHECK(w1 >= w0, TL_ERR_INVAL, "window end %lld before start %lld", (long long)w1, (long long)w0);
    for (size_t k = 1; k < nb; k++)
        TL_CHECK(bounds[k] >= bounds[k - 1], TL_ERR_INVAL, "slice bounds not ascending at %zu", k);
    memset(whole, 0, sizeof *whole);
    whole->w = w1 - w0;
    if (slices) {
        memset(slices, 0, nb * sizeof *slices);
        for (size_t k = 0; k < nb; k++) {
            int64_t lo = bounds[k] > w0 ? bounds[k] : w0, hi = slice_end(bounds, nb, (ptrdiff_t)k, w1);
            slices[k].w = hi > lo ? hi - lo : 0;
        }
    }
    int64_t cur_end[TL_AN_NCLASS];
    for (int c = 0; c < TL_AN_NCLASS; c++) cur_end[c] = INT64_MIN;
    size_t i = 0;
    int64_t t = w0, gap_start = -1;
    ptrdiff_t k = nb ? slice_of(bounds, nb, t) : -1;
    for (;;) {
        while (i < n && v[i].start <= t) {
            int c = tl_an_ival_class(&v[i]);
            int ci = class_index(c);
            if (v[i].end > cur_end[ci]) cur_end[ci] = v[i].end;
            i++;
        }
        if (t >= w1) break;
        int mask = 0;
        int64_t next = w1;
        for (int c = 0; c < TL_AN_NCLASS; c++)
            if (cur_end[c] > t) {
                mask |= 1 << c;
                if (cur_end[c] < next) next = cur_end[c];
            }
        if (i < n && v[i].start < next) next = v[i].start;
        if (nb && k + 1 < (ptrdiff_t)nb && bounds[k + 1] < next) next = bounds[k + 1];
        int64_t dt = next - t;
        whole->by_mask[mask] += dt;
        if (slices && k >= 0) slices[k].by_mask[mask] += dt;
        if (mask == 0 && gap_start < 0) gap_start = t;
        if (mask != 0 && gap_start >= 0) {
            if (t - gap_start <= gap_ns) {
                whole->launch_gaps += t - gap_start;
                spread(slices, bounds, nb, w1, gap_start, t, offsetof(tl_an_metrics, launch_gaps));
            }
            gap_start = -1;
        }
        t = next;
        while (nb && k + 1 < (ptrdiff_t)nb && bounds[k + 1] <= t) k++;
    }
    if (gap_start >= 0 && w1 - gap_start <= gap_ns) {
        whole->launch_gaps += w1 - gap_start;
        spread(slices, bounds, nb, w1, gap_start, w1, offsetof(tl_an_metrics, launch_gaps));
    }
    /* Sums and counts over the clipped intervals. */
    for (size_t j = 0; j < n; j++) {
        int64_t s = v[j].start > w0 ? v[j].start : w0, e = v[j].end < w1 ? v[j].end : w1;
        int c = tl_an_ival_class(&v[j]);
        if (v[j].start >= w0 && v[j].start < w1 && !(v[j].flags & TL_AN_F_SPLIT)) {
            size_t f = c == TL_AN_C_COMPUTE              ? offsetof(tl_an_metrics, ncompute)
                       : c & TL_AN_C_P2P_ALL             ? offsetof(tl_an_metrics, np2p)
                       : c & TL_AN_C_COLL_ALL            ? offsetof(tl_an_metrics, ncoll)
                                                         : offsetof(tl_an_metrics, nother);
            *(int64_t *)((char *)whole + f) += 1;
            ptrdiff_t ks = nb ? slice_of(bounds, nb, v[j].start) : -1;
            if (slices && ks >= 0) *(int64_t *)((char *)&slices[ks] + f) += 1;
        }
        if (c != TL_AN_C_COMPUTE || e <= s) continue;
        whole->sum_compute += e - s;
        spread(slices, bounds, nb, w1, s, e, offsetof(tl_an_metrics, sum_compute));
    }
    return TL_OK;
}

tl_status tl_an_union_segments(const tl_an_ival *v, size_t n, int classes, int64_t **seg, size_t *nseg)
{
    *seg = NULL;
    *nseg = 0;
    size_t cap = 64, m = 0;
    int64_t *s = malloc(cap * 2 * sizeof *s);
    TL_CHECK(s, TL_ERR_NOMEM, "%zu segments", cap);
    for (size_t j = 0; j < n; j++) {
        if (!(tl_an_ival_class(&v[j]) & classes) || v[j].end <= v[j].start) continue;
        if (m && v[j].start <= s[2 * m - 1]) {
            if (v[j].end > s[2 * m - 1]) s[2 * m - 1] = v[j].end;
            continue;
        }
        tl_status st = tl_an_grow(&s, &cap, m, 2 * sizeof *s, "segments");
        if (st != TL_OK) {
            free(s);
            return st;
        }
        s[2 * m] = v[j].start;
        s[2 * m + 1] = v[j].end;
        m++;
    }
    *seg = s;
    *nseg = m;
    return TL_OK;
}

int64_t tl_an_overlap_with(const int64_t *seg, size_t nseg, int64_t s, int64_t e)
{
    size_t lo = 0, hi = nseg;
    while (lo < hi) { /* first segment ending after s */
        size_t mid = (lo + hi) / 2;
        if (seg[2 * mid + 1] <= s) lo = mid + 1;
        else hi = mid;
    }
    int64_t tot = 0;
    for (size_t k = lo; k < nseg && seg[2 * k] < e; k++) {
        int64_t a = seg[2 * k] > s ? seg[2 * k] : s, b = seg[2 * k + 1] < e ? seg[2 * k + 1] : e;
        if (b > a) tot += b - a;
    }
    return tot;
}
