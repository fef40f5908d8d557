/* trilap-analyze diagnose: the facts each rule needs, gathered on each
 * rank as the run is read: serialisation of p2p and coll, communication
 * on the compute streams, starvation samples, each operation's kernel,
 * exposed and queued time, launch gaps, who carries the communication. */
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose_impl.h"
#include "analysis/grow.h"

static tl_status push_d(double **a, size_t *n, size_t *cap, double v)
{
    TL_TRY(TL_AN_GROW(*a, *n, *cap, "samples"));
    (*a)[(*n)++] = v;
    return TL_OK;
}

/* Predicates see the run's names: whether a copy is staged depends on its
 * direction, which only its name records. */
typedef int (*ival_pred)(const tl_an_names *nm, const tl_an_ival *v);
static int is_nccl(const tl_an_ival *v) { return v->kind == TL_KIND_KERNEL && tl_an_ival_is_comm(v); }
static int pred_nccl(const tl_an_names *nm, const tl_an_ival *v)
{
    (void)nm;
    return is_nccl(v);
}
/* The host carrying communication: its exchange marks and the copies on a
 * p2p/coll lane that touch host memory. A device-to-device copy there
 * (NCCL's one-rank allreduce, a peer copy) is the GPU's, not staging. */
static int is_host_comm(const tl_an_names *nm, const tl_an_ival *v)
{
    if (v->kind == TL_KIND_KERNEL || !tl_an_ival_is_comm(v)) return 0;
    return v->kind == TL_KIND_HOST || !tl_an_copy_is_device(tl_an_names_get(nm, v->name));
}
static int is_staging_copy(const tl_an_names *nm, const tl_an_ival *v)
{
    return v->kind != TL_KIND_HOST && is_host_comm(nm, v);
}
static int is_host_p2p(const tl_an_names *nm, const tl_an_ival *v)
{
    return is_host_comm(nm, v) && (tl_an_ival_class(v) & TL_AN_C_P2P_ALL);
}
static int is_host_coll(const tl_an_names *nm, const tl_an_ival *v)
{
    return is_host_comm(nm, v) && (tl_an_ival_class(v) & TL_AN_C_COLL_ALL);
}

/* Union of the intervals that satisfy pred, clipped to [w0, w1), as disjoint
 * segments (v is sorted by start). */
static tl_status segments(const tl_an_rank *rk, const tl_an_names *nm, ival_pred pred, int64_t w0, int64_t w1,
                          int64_t **seg, size_t *n)
{
    size_t m = 0, cap = 64;
    int64_t *s = malloc(2 * cap * sizeof *s);
    TL_CHECK(s, TL_ERR_NOMEM, "segments");
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        int64_t a = v->start > w0 ? v->start : w0, b = v->end < w1 ? v->end : w1;
        if (b <= a || !pred(nm, v)) continue;
        if (m && a <= s[2 * m - 1]) {
            if (b > s[2 * m - 1]) s[2 * m - 1] = b;
            continue;
        }
        tl_status st = tl_an_grow(&s, &cap, m, 2 * sizeof *s, "segments");
        if (st != TL_OK) {
            free(s);
            return st;
        }
        s[2 * m] = a;
        s[2 * m + 1] = b;
        m++;
    }
    *seg = s;
    *n = m;
    return TL_OK;
}

static int64_t seg_total(const int64_t *s, size_t n)
{
    int64_t t = 0;
    for (size_t k = 0; k < n; k++) t += s[2 * k + 1] - s[2 * k];
    return t;
}

static tl_status union_of(const tl_an_rank *rk, const tl_an_names *nm, ival_pred pred, int64_t w0, int64_t w1,
                          int64_t *u)
{
    int64_t *s = NULL;
    size_t n = 0;
    TL_TRY(segments(rk, nm, pred, w0, w1, &s, &n));
    *u = seg_total(s, n);
    free(s);
    return TL_OK;
}

static tl_status facts_carriers(rank_diag *d, const tl_an_names *nm, const tl_an_rank *rk)
{
    int64_t *p = NULL, *c = NULL;
    size_t np = 0, nc = 0;
    tl_status st = TL_OK;
    TL_TRY(union_of(rk, nm, pred_nccl, d->w0, d->w1, &d->u_nccl));
    TL_TRY(union_of(rk, nm, is_host_comm, d->w0, d->w1, &d->u_host));
    /* counted over the selection, as the host exchanges beside them (run.c;
     * it counted the whole file's: 814 copies beside 22 exchanges) */
    for (size_t j = 0; j < rk->n; j++)
        d->n_staging += is_staging_copy(nm, &rk->v[j]) && tl_an_ival_in_selection(&rk->v[j], d->w0, d->w1);
    TL_TRYGOTO(segments(rk, nm, is_host_p2p, d->w0, d->w1, &p, &np), st, fail);
    TL_TRYGOTO(segments(rk, nm, is_host_coll, d->w0, d->w1, &c, &nc), st, fail);
    d->u_host_p2p = seg_total(p, np);
    d->u_host_coll = seg_total(c, nc);
    for (size_t k = 0; k < np; k++) d->host_pc_overlap += tl_an_overlap_with(c, nc, p[2 * k], p[2 * k + 1]);
fail:
    free(p);
    free(c);
    return st;
}

static tl_status acc_of(rank_diag *d, const tl_an_rank *rk, const tl_an_ival *v, const tl_an_oplabel *ol,
                        size_t *out);

/* Serialisation: iterations that hold both p2p and coll, whether they
 * overlap, and an example from the middle of the serialised ones. */
static tl_status facts_serial(rank_diag *d, const diag_state *s, const tl_an_rank *rk, const tl_an_rank_result *res)
{
    for (size_t k = 0; k < res->nslices; k++) {
        const tl_an_metrics *m = &res->slices[k];
        int64_t p = tl_an_m_union(m, TL_AN_C_P2P_ALL), c = tl_an_m_union(m, TL_AN_C_COLL_ALL);
        const int g[2] = {TL_AN_C_P2P_ALL, TL_AN_C_COLL_ALL};
        if (p > 0 || c > 0) d->n_either++;
        if (p > 0 && c > 0) {
            d->n_both++;
            if (tl_an_m_cover(m, g, 2) > 0) d->n_both_overlap++;
        }
    }
    /* The example: the middle one of the serialised iterations, away from
     * the warm-up of the first ones. */
    for (size_t k = 0, seen = 0, want = (d->n_both - d->n_both_overlap) / 2; k < res->nslices; k++) {
        const tl_an_metrics *m = &res->slices[k];
        const int g[2] = {TL_AN_C_P2P_ALL, TL_AN_C_COLL_ALL};
        if (!tl_an_m_union(m, TL_AN_C_P2P_ALL) || !tl_an_m_union(m, TL_AN_C_COLL_ALL) || tl_an_m_cover(m, g, 2) > 0)
            continue;
        if (seen++ == want) {
            d->ex_iter = res->iters[k];
            break;
        }
    }
    if (d->ex_iter < 0) return TL_OK;
    /* The example's spans come from the slice's time range, not from the
     * records' iter: NCCL kernels may carry iter=-1 (launch not attributed). */
    int64_t *bounds = NULL, *its = NULL, sw0 = d->w0, sw1 = d->w1;
    size_t nb = 0;
    TL_TRY(tl_an_rank_slices(rk, s->o->c.iter_lo, s->o->c.iter_hi, &bounds, &its, &nb, &sw0, &sw1));
    size_t k = 0;
    while (k < nb && its[k] != d->ex_iter) k++;
    int64_t lo = k < nb && bounds[k] > d->w0 ? bounds[k] : d->w0;
    int64_t hi = k + 1 < nb && bounds[k + 1] < d->w1 ? bounds[k + 1] : d->w1;
    free(bounds);
    free(its);
    d->ex_p2p[0] = d->ex_coll[0] = INT64_MAX;
    d->ex_p2p[1] = d->ex_coll[1] = INT64_MIN;
    for (size_t j = 0; j < rk->n && rk->v[j].start < hi; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (v->end <= lo) continue;
        int c = tl_an_ival_class(v);
        int64_t *x = c & TL_AN_C_P2P_ALL ? d->ex_p2p : c & TL_AN_C_COLL_ALL ? d->ex_coll : NULL;
        if (!x) continue;
        int64_t *lab = &d->ex_label[x == d->ex_coll];
        if (*lab < 0 && tl_an_ival_is_comm_op(v) && !(v->flags & TL_AN_F_SPLIT)) {
            size_t a = 0;
            TL_TRY(acc_of(d, rk, v, v->kind == TL_KIND_KERNEL ? tl_an_rank_oplabel(rk, v) : NULL, &a));
            *lab = (int64_t)a;
        }
        int64_t a = v->start > lo ? v->start : lo, b = v->end < hi ? v->end : hi;
        if (a < x[0]) x[0] = a;
        if (b > x[1]) x[1] = b;
    }
    if (d->ex_p2p[0] == INT64_MAX || d->ex_coll[0] == INT64_MAX) d->ex_iter = -1;
    return TL_OK;
}

/* Communication kernels on a stream that also runs compute kernels. */
static tl_status facts_streams(rank_diag *d, const tl_an_rank *rk)
{
    uint8_t *compute_stream = calloc(rk->nstreams ? rk->nstreams : 1, 1);
    TL_CHECK(compute_stream, TL_ERR_NOMEM, "streams");
    for (size_t j = 0; j < rk->n; j++)
        if (tl_an_ival_class(&rk->v[j]) == TL_AN_C_COMPUTE) compute_stream[rk->v[j].stream] = 1;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (!is_nccl(v) || (v->flags & TL_AN_F_SPLIT) || v->end <= d->w0 || v->start >= d->w1) continue;
        d->ncomm++;
        if (compute_stream[v->stream]) d->comm_on_compute_stream++;
    }
    free(compute_stream);
    return TL_OK;
}

/* The accumulator of a kernel name (and operation, by_op) on one rank,
 * created on first sight. */
static tl_status starve_of(rank_diag *d, uint32_t name, int by_op, uint32_t label, starve_acc **out)
{
    size_t a = 0;
    while (a < d->nst && !(d->st[a].name == name && d->st[a].by_op == by_op && d->st[a].label == label)) a++;
    if (a == d->nst) {
        TL_TRY(TL_AN_GROW(d->st, d->nst, d->capst, "communication kernels"));
        d->st[a] = (starve_acc){.name = name, .label = label, .by_op = by_op};
        d->nst++;
    }
    *out = &d->st[a];
    return TL_OK;
}

/* Starvation: the working time of every NCCL kernel in the window (its
 * transfer part: waiting for a late peer is not work), with compute or
 * alone. Where the trace names the operations (a Kineto trace's "op:"
 * rows) only instances of one operation, process group and size are
 * compared: a kernel name serves a 4 MB and a 290 MB all_to_all alike, and
 * their ratio is the message's, not starvation; an instance whose size
 * the trace does not give is compared with nothing. */
static tl_status facts_starve(rank_diag *d, const tl_an_rank *rk)
{
    int64_t *cseg = NULL;
    size_t ncseg = 0, ns = rk->nstreams ? rk->nstreams : 1;
    int by_op = rk->nopl > 0;
    tl_status st = TL_OK;
    TL_TRY(tl_an_union_segments(rk->v, rk->n, TL_AN_C_COMPUTE, &cseg, &ncseg));
    /* the transfer part of a split operation has no label of its own: its
     * waiting part, just before it on its stream, has */
    const tl_an_oplabel **wait_ol = calloc(ns, sizeof *wait_ol);
    TL_CHECKGOTO(wait_ol, TL_ERR_NOMEM, st, fail, "%zu streams", ns);
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (!is_nccl(v)) continue;
        const tl_an_oplabel *ol = NULL;
        if (by_op) ol = v->flags & TL_AN_F_SPLIT ? wait_ol[v->stream] : tl_an_rank_oplabel(rk, v);
        if (v->flags & TL_AN_F_WAIT) wait_ol[v->stream] = ol;
        if ((v->flags & TL_AN_F_WAIT) || v->start < d->w0 || v->start >= d->w1) continue;
        if (by_op && (!ol || ol->label == ol->key)) continue; /* no size: nothing like it to compare with */
        starve_acc *sa = NULL;
        TL_TRYGOTO(starve_of(d, v->name, by_op, ol ? ol->label : 0, &sa), st, fail);
        int64_t dur = v->end - v->start, ov = tl_an_overlap_with(cseg, ncseg, v->start, v->end);
        if (dur > 0 && 2 * ov >= dur) TL_TRYGOTO(push_d(&sa->over, &sa->no, &sa->capo, US(dur)), st, fail);
        else TL_TRYGOTO(push_d(&sa->alone, &sa->na, &sa->capa, US(dur)), st, fail);
    }
fail:
    free(wait_ol);
    free(cseg);
    return st;
}

/* The accumulator of v's operation (created on first sight). */
static tl_status acc_of(rank_diag *d, const tl_an_rank *rk, const tl_an_ival *v, const tl_an_oplabel *ol, size_t *out)
{
    uint32_t label = ol ? ol->label : v->name;
    int named = ol != NULL || v->kind != TL_KIND_KERNEL; /* a host mark's name is its operation */
    uint64_t stream = v->kind == TL_KIND_KERNEL ? rk->streams[v->stream] : 0;
    size_t a = 0;
    while (a < d->nacc && !(d->acc[a].label == label && d->acc[a].kernel == v->name && d->acc[a].named == named &&
                            d->acc[a].stream == stream))
        a++;
    if (a == d->nacc) {
        TL_TRY(TL_AN_GROW(d->acc, d->nacc, d->capacc, "operations"));
        d->acc[a] = (op_acc){.label = label, .kernel = v->name, .named = named, .stream = stream, .lane = v->lane,
                             .worst_q_iter = -1, .worst_q_op = SIZE_MAX};
        d->nacc++;
    }
    *out = a;
    return TL_OK;
}

/* The kernel v of operation x, launched at ol->launch: queued behind the
 * earlier work on its stream, ending at prev (name, its operation acc),
 * still running at the launch; else behind the other stream's work a
 * host-recorded event wait held it for (ol->held), as collectives' rows
 * say "stream: ..." or "event: cudaStreamWaitEvent, ...". */
static void count_queued(op_acc *x, const tl_an_oplabel *ol, const tl_an_ival *v, int64_t prev, uint32_t name,
                         size_t acc)
{
    int held = prev <= ol->launch;
    int64_t until = held ? ol->held : prev;
    if (until <= ol->launch) return;
    int64_t q = (until < v->start ? until : v->start) - ol->launch;
    x->queued += q;
    x->nqueued++;
    x->held += held ? q : 0;
    x->nheld += held;
    if (q > x->worst_q) {
        x->worst_q = q;
        x->worst_q_iter = v->iter;
        x->worst_q_behind = held ? ol->held_name : name;
        x->worst_q_op = held ? SIZE_MAX : acc;
        x->worst_q_held = held;
    }
}

/* Per operation: kernel time, the part not under compute, and the time
 * from its launch to its start spent behind earlier work on its stream
 * (where the trace has the launch: an "op:" row); the ordinal of each
 * operation among its kernel name's (match.c's k). */
static tl_status facts_ops(rank_diag *d, const diag_state *s, const tl_an_rank *rk)
{
    int64_t *cseg = NULL, *send = NULL, *kcount = NULL;
    size_t ncseg = 0, ns = rk->nstreams ? rk->nstreams : 1, nnames = tl_an_names_count(s->names);
    uint32_t *sname = NULL;
    size_t *split_acc = NULL, *sacc = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_an_union_segments(rk->v, rk->n, TL_AN_C_COMPUTE, &cseg, &ncseg));
    send = malloc(ns * sizeof *send);
    sname = calloc(ns, sizeof *sname);
    split_acc = malloc(ns * sizeof *split_acc);
    sacc = malloc(ns * sizeof *sacc);
    kcount = calloc(nnames ? nnames : 1, sizeof *kcount);
    d->ord = malloc((rk->n ? rk->n : 1) * sizeof *d->ord);
    TL_CHECKGOTO(send && sname && split_acc && sacc && kcount && d->ord, TL_ERR_NOMEM, st, fail, "%zu streams", ns);
    for (size_t k = 0; k < ns; k++) send[k] = INT64_MIN, split_acc[k] = sacc[k] = SIZE_MAX;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        int op = tl_an_ival_is_comm_op(v) || (v->flags & TL_AN_F_SPLIT);
        size_t a = SIZE_MAX;
        if (op && (v->flags & TL_AN_F_SPLIT)) {
            /* the transfer part of an operation split at its last arrival:
             * it follows its waiting part on the same stream */
            a = split_acc[v->stream];
        } else if (op) {
            const tl_an_oplabel *ol = v->kind == TL_KIND_KERNEL ? tl_an_rank_oplabel(rk, v) : NULL;
            TL_TRYGOTO(acc_of(d, rk, v, ol, &a), st, fail);
            op_acc *x = &d->acc[a];
            if (v->kind == TL_KIND_KERNEL && !ol && v->name < nnames)
                d->ord[d->nord++] = (op_ord){.kernel = v->name, .acc = (uint32_t)a, .k = kcount[v->name]++};
            /* an operation in the window where it runs in it, as overlap's
             * per-operation table counts it (one straddling the window's
             * start counted, its time inside summed, below) */
            x->n += v->end > d->w0 && v->start < d->w1;
            int64_t prev = v->kind == TL_KIND_KERNEL ? send[v->stream] : INT64_MIN;
            if (ol && ol->launch < v->start && v->start >= d->w0 && v->start < d->w1)
                count_queued(x, ol, v, prev, sname[v->stream], sacc[v->stream]);
            if (v->flags & TL_AN_F_WAIT) split_acc[v->stream] = a;
        }
        if (a != SIZE_MAX) {
            int64_t lo = v->start > d->w0 ? v->start : d->w0, hi = v->end < d->w1 ? v->end : d->w1;
            if (hi > lo) {
                d->acc[a].total += hi - lo;
                d->acc[a].exposed += hi - lo - tl_an_overlap_with(cseg, ncseg, lo, hi);
            }
        }
        if (v->kind != TL_KIND_HOST && v->end > send[v->stream]) {
            send[v->stream] = v->end;
            sname[v->stream] = v->name;
            sacc[v->stream] = a;
        }
    }
fail:
    free(cseg);
    free(send);
    free(sname);
    free(split_acc);
    free(sacc);
    free(kcount);
    return st;
}

/* Launch-bound compute: gaps between consecutive kernels of the compute lane. */
static tl_status facts_launch(rank_diag *d, const tl_an_rank *rk, double gap_us)
{
    double *lane_d = NULL;
    size_t nl = 0, capl = 0;
    tl_status st = TL_OK;
    int64_t max_end = INT64_MIN, busy_s = 0, busy_e = INT64_MIN;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (v->lane != TL_ROLE_COMPUTE || v->kind != TL_KIND_KERNEL || v->start < d->w0 || v->start >= d->w1) continue;
        TL_TRYGOTO(push_d(&lane_d, &nl, &capl, US(v->end - v->start)), st, fail);
        if (max_end != INT64_MIN && v->start > max_end && v->start - max_end <= gap_us * 1e3) {
            d->gaps_short += v->start - max_end;
            d->ngaps_short++;
        }
        if (v->start > busy_e) {
            if (busy_e != INT64_MIN) d->lane_busy += busy_e - busy_s;
            busy_s = v->start;
            busy_e = v->end;
        } else if (v->end > busy_e) {
            busy_e = v->end;
        }
        if (v->end > max_end) max_end = v->end;
    }
    if (busy_e != INT64_MIN) d->lane_busy += busy_e - busy_s;
    d->nlane = (int64_t)nl;
    d->med_lane_us = tl_an_median(lane_d, nl);
fail:
    free(lane_d);
    return st;
}

tl_status tl_diag_rank_facts(void *user, const tl_an_rank *rk, const tl_an_rank_result *res)
{
    diag_state *s = user;
    TL_TRY(TL_AN_GROW(s->rd, s->n, s->cap, "ranks"));
    rank_diag *d = &s->rd[s->n++];
    memset(d, 0, sizeof *d);
    d->rank = rk->meta.rank;
    d->w0 = res->meta.w0;
    d->w1 = res->meta.w1;
    d->w = res->whole.w;
    d->ex_iter = -1;
    d->ex_label[0] = d->ex_label[1] = -1;
    TL_TRY(facts_ops(d, s, rk));
    TL_TRY(facts_serial(d, s, rk, res));
    TL_TRY(facts_streams(d, rk));
    TL_TRY(facts_starve(d, rk));
    TL_TRY(facts_launch(d, rk, s->o->c.launch_gap_us));
    TL_TRY(facts_carriers(d, s->names, rk));
    return TL_OK;
}

void tl_diag_free(diag_state *s)
{
    for (size_t r = 0; r < s->n; r++) {
        for (size_t a = 0; a < s->rd[r].nst; a++) {
            free(s->rd[r].st[a].over);
            free(s->rd[r].st[a].alone);
        }
        free(s->rd[r].st);
        free(s->rd[r].acc);
        free(s->rd[r].ord);
    }
    free(s->rd);
}
