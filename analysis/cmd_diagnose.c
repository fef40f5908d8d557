/* trilap-analyze diagnose RUN_DIR: lost-overlap findings with evidence and
 * remedies. Rules and thresholds are documented in analysis/README.md
 * ("Diagnosis rules"); every threshold is an option. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "config.h"

typedef struct diag_opts {
    double min_comm_share;   /* % of W for "substantial" communication */
    double serial_overlap;   /* comm_comm below this % -> serialised */
    double both_iters;       /* % of iterations with p2p or coll that hold both */
    double hidden_min;       /* hidden below this % -> no comm/compute overlap */
    double starve_ratio;     /* median overlapped / median alone */
    double starve_share;     /* excess time of the overlapped instances, % of W */
    int64_t min_samples;
    double launch_share;     /* % of compute-lane time in short gaps */
    double short_kernel_us;
    tl_an_common c;
} diag_opts;

#define MAX_STARVE 16
#define US(x) ((double)(x) / 1e3)

/* Every instance of one communication kernel name on one rank, in start
 * order, so the k-th instance can be paired with the k-th on the other
 * ranks (NCCL matches the operations of a communicator in issue order). */
typedef struct starve_acc {
    uint32_t name;
    int64_t *s, *e;
    size_t n, cap;
} starve_acc;

typedef struct rank_diag {
    int rank;
    int64_t w0, w1, w;
    /* serialisation */
    size_t n_either, n_both, n_both_overlap;
    int64_t ex_iter, ex_p2p[2], ex_coll[2];
    /* comm on the compute streams */
    int64_t ncomm, comm_on_compute_stream;
    /* launch-bound */
    int64_t nlane, gaps_short, ngaps_short, lane_busy;
    double med_lane_us;
    /* starvation, per comm kernel name; the compute union for the overlap test */
    starve_acc st[MAX_STARVE];
    size_t nst;
    int64_t *cseg;
    size_t ncseg;
} rank_diag;

typedef struct diag_state {
    rank_diag *rd;
    size_t n, cap;
    const diag_opts *o;
    tl_an_names *names;
} diag_state;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *x, size_t n)
{
    if (!n) return NAN;
    qsort(x, n, sizeof *x, cmp_d);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static tl_status push_d(double **a, size_t *n, size_t *cap, double v)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        double *na = realloc(*a, c * sizeof *na);
        TL_CHECK(na, TL_ERR_NOMEM, "%zu samples", c);
        *a = na;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return TL_OK;
}

static tl_status push_se(starve_acc *a, int64_t s, int64_t e)
{
    if (a->n == a->cap) {
        size_t c = a->cap ? 2 * a->cap : 256;
        int64_t *ns = realloc(a->s, c * sizeof *ns);
        TL_CHECK(ns, TL_ERR_NOMEM, "%zu instances", c);
        a->s = ns;
        int64_t *ne = realloc(a->e, c * sizeof *ne);
        TL_CHECK(ne, TL_ERR_NOMEM, "%zu instances", c);
        a->e = ne;
        a->cap = c;
    }
    a->s[a->n] = s;
    a->e[a->n] = e;
    a->n++;
    return TL_OK;
}

static tl_status diag_rank(void *user, const tl_an_rank *rk, const tl_an_rank_result *res)
{
    diag_state *s = user;
    tl_status st = TL_OK;
    double *lane_d = NULL;
    uint8_t *compute_stream = NULL;
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 8;
        rank_diag *nr = realloc(s->rd, c * sizeof *nr);
        TL_CHECK(nr, TL_ERR_NOMEM, "%zu ranks", c);
        s->rd = nr;
        s->cap = c;
    }
    rank_diag *d = &s->rd[s->n++];
    memset(d, 0, sizeof *d);
    d->rank = rk->meta.rank;
    d->w0 = res->meta.w0;
    d->w1 = res->meta.w1;
    d->w = res->whole.w;
    d->ex_iter = -1;
    int64_t w0 = res->meta.w0, w1 = res->meta.w1;

    /* Serialisation: iterations that hold both p2p and coll, and whether they overlap. */
    for (size_t k = 0; k < res->nslices; k++) {
        const tl_an_metrics *m = &res->slices[k];
        int64_t p = tl_an_m_union(m, TL_AN_C_P2P), c = tl_an_m_union(m, TL_AN_C_COLL);
        if (p > 0 || c > 0) d->n_either++;
        if (p > 0 && c > 0) {
            d->n_both++;
            if (tl_an_m_inter(m, TL_AN_C_P2P | TL_AN_C_COLL) > 0) d->n_both_overlap++;
        }
    }
    /* The example: the middle one of the serialised iterations, away from
     * the warm-up of the first ones. */
    for (size_t k = 0, seen = 0, want = (d->n_both - d->n_both_overlap) / 2; k < res->nslices; k++) {
        const tl_an_metrics *m = &res->slices[k];
        if (!tl_an_m_union(m, TL_AN_C_P2P) || !tl_an_m_union(m, TL_AN_C_COLL) ||
            tl_an_m_inter(m, TL_AN_C_P2P | TL_AN_C_COLL) > 0)
            continue;
        if (seen++ == want) {
            d->ex_iter = res->iters[k];
            break;
        }
    }
    if (d->ex_iter >= 0) {
        /* The example's spans come from the slice's time range, not from the
         * records' iter: NCCL kernels may carry iter=-1 (launch not attributed). */
        int64_t *bounds = NULL, *its = NULL, sw0 = w0, sw1 = w1;
        size_t nb = 0;
        TL_TRYGOTO(tl_an_rank_slices(rk, s->o->c.iter_lo, s->o->c.iter_hi, &bounds, &its, &nb, &sw0, &sw1), st, fail);
        size_t k = 0;
        while (k < nb && its[k] != d->ex_iter) k++;
        int64_t lo = k < nb && bounds[k] > w0 ? bounds[k] : w0, hi = k + 1 < nb && bounds[k + 1] < w1 ? bounds[k + 1] : w1;
        free(bounds);
        free(its);
        d->ex_p2p[0] = d->ex_coll[0] = INT64_MAX;
        d->ex_p2p[1] = d->ex_coll[1] = INT64_MIN;
        for (size_t j = 0; j < rk->n && rk->v[j].start < hi; j++) {
            const tl_an_ival *v = &rk->v[j];
            if (v->end <= lo) continue;
            int c = tl_an_ival_class(v);
            int64_t *x = c == TL_AN_C_P2P ? d->ex_p2p : c == TL_AN_C_COLL ? d->ex_coll : NULL;
            if (!x) continue;
            int64_t a = v->start > lo ? v->start : lo, b = v->end < hi ? v->end : hi;
            if (a < x[0]) x[0] = a;
            if (b > x[1]) x[1] = b;
        }
        if (d->ex_p2p[0] == INT64_MAX || d->ex_coll[0] == INT64_MAX) d->ex_iter = -1;
    }

    /* Streams: communication kernels on a stream that also runs compute kernels. */
    compute_stream = calloc(rk->nstreams ? rk->nstreams : 1, 1);
    TL_CHECKGOTO(compute_stream, TL_ERR_NOMEM, st, fail, "streams");
    for (size_t j = 0; j < rk->n; j++)
        if (tl_an_ival_class(&rk->v[j]) == TL_AN_C_COMPUTE) compute_stream[rk->v[j].stream] = 1;
    for (size_t j = 0; j < rk->n; j++) {
        int c = tl_an_ival_class(&rk->v[j]);
        if (c != TL_AN_C_P2P && c != TL_AN_C_COLL) continue;
        if (rk->v[j].end <= w0 || rk->v[j].start >= w1) continue;
        d->ncomm++;
        if (compute_stream[rk->v[j].stream]) d->comm_on_compute_stream++;
    }

    /* Starvation: every communication kernel of the trace (the window is
     * applied in report(), after pairing instances across ranks) and the
     * compute union they are tested against. */
    TL_TRYGOTO(tl_an_union_segments(rk->v, rk->n, TL_AN_C_COMPUTE, &d->cseg, &d->ncseg), st, fail);
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        int c = tl_an_ival_class(v);
        if (c != TL_AN_C_P2P && c != TL_AN_C_COLL) continue;
        size_t a = 0;
        while (a < d->nst && d->st[a].name != v->name) a++;
        if (a == d->nst) {
            if (d->nst == MAX_STARVE) continue;
            memset(&d->st[a], 0, sizeof d->st[a]);
            d->st[a].name = v->name;
            d->nst++;
        }
        TL_TRYGOTO(push_se(&d->st[a], v->start, v->end), st, fail);
    }

    /* Launch-bound compute: gaps between consecutive kernels of the compute lane. */
    size_t nl = 0, capl = 0;
    int64_t max_end = INT64_MIN, busy_s = 0, busy_e = INT64_MIN;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (v->lane != TL_ROLE_COMPUTE || v->kind != TL_KIND_KERNEL || v->start < w0 || v->start >= w1) continue;
        TL_TRYGOTO(push_d(&lane_d, &nl, &capl, (double)(v->end - v->start) / 1e3), st, fail);
        if (max_end != INT64_MIN && v->start > max_end) {
            int64_t gap = v->start - max_end;
            if (gap <= s->o->c.launch_gap_us * 1e3) {
                d->gaps_short += gap;
                d->ngaps_short++;
            }
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
    d->med_lane_us = median(lane_d, nl);
fail:
    free(lane_d);
    free(compute_stream);
    return st;
}

/* One communication kernel name on one rank, its instances in the window
 * paired with the same instance on every rank: the kernel can only make
 * progress once the last rank has launched its part, so its working time is
 * end - (latest start over the ranks), and the time before is a wait for a
 * peer, not work. Unpaired (counts differ across ranks, or one rank): the
 * raw durations. */
typedef struct starve_eval {
    size_t no, na;          /* instances overlapping compute (>= half their working time), alone */
    double mo, ma;          /* median working time, us */
    double excess_us;       /* Σ (overlapped working time - median alone) */
    double wait_us;         /* Σ waits for the last peer */
    double sum_us;          /* Σ kernel durations */
    double med_wait_us;
    size_t nwin;            /* instances in the window */
    int paired;
} starve_eval;

static const starve_acc *find_acc(const rank_diag *d, uint32_t name)
{
    for (size_t a = 0; a < d->nst; a++)
        if (d->st[a].name == name) return &d->st[a];
    return NULL;
}

static tl_status eval_starve(const diag_state *s, size_t r, const starve_acc *sa, starve_eval *ev)
{
    tl_status st = TL_OK;
    const rank_diag *d = &s->rd[r];
    double *over = NULL, *alone = NULL, *wait = NULL;
    size_t capo = 0, capa = 0, capw = 0, nw = 0;
    memset(ev, 0, sizeof *ev);
    ev->paired = s->n > 1;
    for (size_t q = 0; q < s->n && ev->paired; q++) {
        const starve_acc *o = find_acc(&s->rd[q], sa->name);
        if (!o || o->n != sa->n) ev->paired = 0;
    }
    for (size_t i = 0; i < sa->n; i++) {
        if (sa->s[i] < d->w0 || sa->s[i] >= d->w1) continue;
        int64_t eff = sa->s[i];
        if (ev->paired)
            for (size_t q = 0; q < s->n; q++) {
                int64_t sq = find_acc(&s->rd[q], sa->name)->s[i];
                if (sq > eff) eff = sq;
            }
        if (eff >= sa->e[i]) eff = sa->s[i]; /* a peer started after this one ended: not the same operation */
        int64_t dur = sa->e[i] - eff, ov = tl_an_overlap_with(d->cseg, d->ncseg, eff, sa->e[i]);
        ev->nwin++;
        ev->wait_us += US(eff - sa->s[i]);
        ev->sum_us += US(sa->e[i] - sa->s[i]);
        TL_TRYGOTO(push_d(&wait, &nw, &capw, US(eff - sa->s[i])), st, fail);
        if (dur > 0 && 2 * ov >= dur) TL_TRYGOTO(push_d(&over, &ev->no, &capo, US(dur)), st, fail);
        else TL_TRYGOTO(push_d(&alone, &ev->na, &capa, US(dur)), st, fail);
    }
    ev->mo = median(over, ev->no);
    ev->ma = median(alone, ev->na);
    ev->med_wait_us = median(wait, nw);
    for (size_t i = 0; i < ev->no && ev->na; i++)
        if (over[i] > ev->ma) ev->excess_us += over[i] - ev->ma;
fail:
    free(over);
    free(alone);
    free(wait);
    return st;
}

static void free_diag(diag_state *s)
{
    for (size_t r = 0; r < s->n; r++) {
        for (size_t a = 0; a < s->rd[r].nst; a++) {
            free(s->rd[r].st[a].s);
            free(s->rd[r].st[a].e);
        }
        free(s->rd[r].cseg);
    }
    free(s->rd);
}

typedef struct verdicts {
    int serial, nohide, starve, launch;
} verdicts;

static tl_status add_rule_row(tl_an_table *t, const char *rule, int rank, int found, double value, double thr,
                              const char *what)
{
    TL_TRY(tl_an_table_row(t));
    TL_TRY(tl_an_table_str(t, rule));
    TL_TRY(tl_an_table_int(t, rank));
    TL_TRY(tl_an_table_str(t, found ? "FINDING" : "ok"));
    TL_TRY(tl_an_table_num(t, value, 2));
    TL_TRY(tl_an_table_num(t, thr, 2));
    TL_TRY(tl_an_table_str(t, what));
    return TL_OK;
}

static tl_status report(const char *dir, const diag_opts *o, diag_state *s, const tl_an_rank_result *res, size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    TL_TRYGOTO(tl_an_table_create(&t, "diagnosis rules"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "diagnose", dir), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "thresholds",
                                "min-comm-share %g%%, serial-overlap %g%%, both-iters %g%%, hidden-min %g%%, "
                                "starve-ratio %g, starve-share %g%%, min-samples %lld, launch-share %g%%, short-kernel-us %g, "
                                "launch-gap-us %g",
                                o->min_comm_share, o->serial_overlap, o->both_iters, o->hidden_min, o->starve_ratio,
                                o->starve_share, (long long)o->min_samples, o->launch_share, o->short_kernel_us, o->c.launch_gap_us),
                st, fail);
    static const char *const cols[][2] = {{"rule", ""}, {"rank", ""}, {"verdict", ""}, {"value", ""},
                                          {"threshold", ""}, {"measure", ""}};
    for (size_t j = 0; j < 6; j++) TL_TRYGOTO(tl_an_table_col(t, cols[j][0], cols[j][1], j != 1 && j != 3 && j != 4), st, fail);

    int nfind = 0;
    char ev[4096];
    printf("# program: trilap-analyze diagnose %s (git %s)\n# input: %s\n", TL_VERSION, TL_GIT_COMMIT, dir);
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        double w = (double)m->w;
        printf("# rank %d: window %.1f us, %zu iterations; compute %.1f%%, p2p %.1f%%, coll %.1f%% of the window; "
               "hidden %.1f%%, comm_comm %.1f%%, triple %.2f%%, idle %.1f%%\n",
               res[r].meta.rank, US(m->w), res[r].nslices, 100 * tl_an_m_union(m, TL_AN_C_COMPUTE) / w,
               100 * tl_an_m_union(m, TL_AN_C_P2P) / w, 100 * tl_an_m_union(m, TL_AN_C_COLL) / w,
               100 * tl_an_m_hidden(m), 100 * tl_an_m_ccover(m), 100 * tl_an_m_triple(m),
               100 * tl_an_m_idle(m) / w);
    }
    putchar('\n');

    /* Rule 1: serialised communicators. */
    {
        int any = 0;
        size_t len = 0;
        ev[0] = '\0';
        for (size_t r = 0; r < nr; r++) {
            const tl_an_metrics *m = &res[r].whole;
            const rank_diag *d = &s->rd[r];
            double w = (double)m->w, p = 100 * tl_an_m_union(m, TL_AN_C_P2P) / w,
                   c = 100 * tl_an_m_union(m, TL_AN_C_COLL) / w, cc = 100 * tl_an_m_ccover(m);
            double both = d->n_either ? 100.0 * (double)d->n_both / (double)d->n_either : 0;
            int substantial = p >= o->min_comm_share && c >= o->min_comm_share;
            int together = both >= o->both_iters || d->n_either == 0;
            int found = substantial && together && isfinite(cc) && cc < o->serial_overlap;
            TL_TRYGOTO(add_rule_row(t, "serialised-communicators", d->rank, found, cc, o->serial_overlap,
                                    "comm_comm %"),
                       st, fail);
            if (!found) continue;
            any = 1;
            if (d->n_either)
                len += (size_t)snprintf(ev + len, sizeof ev - len,
                                        "    rank %d: p2p %.1f%% and coll %.1f%% of the window, both in %zu of %zu "
                                        "iterations, overlapping in %zu of them (comm_comm %.2f%%)\n",
                                        d->rank, p, c, d->n_both, d->n_either, d->n_both_overlap, cc);
            else /* a program that marks no iterations (injection, nsys): the window */
                len += (size_t)snprintf(ev + len, sizeof ev - len,
                                        "    rank %d: p2p %.1f%% and coll %.1f%% of the window, no iterations "
                                        "marked, so over the whole window (comm_comm %.2f%%)\n",
                                        d->rank, p, c, cc);
            if (d->ex_iter >= 0 && len < sizeof ev)
                len += (size_t)snprintf(ev + len, sizeof ev - len,
                                        "      e.g. iteration %lld: p2p %.1f..%.1f us, coll %.1f..%.1f us "
                                        "(relative to the window start): one waits for the other\n",
                                        (long long)d->ex_iter, US(d->ex_p2p[0] - d->w0), US(d->ex_p2p[1] - d->w0),
                                        US(d->ex_coll[0] - d->w0), US(d->ex_coll[1] - d->w0));
            if (len >= sizeof ev) len = sizeof ev - 1;
        }
        if (any) {
            nfind++;
            printf("FINDING %d [serialised-communicators]: P2P and collective kernels are issued in the same "
                   "iterations but never run at the same time\n  evidence:\n%s"
                   "  remedy: they share one NCCL communicator, and NCCL runs the operations of a communicator one "
                   "after the other whatever the streams. Put the collective on its own communicator "
                   "(ncclCommSplit(comm, 0, rank, &coll_comm, NULL)), as the three-split schedule does.\n\n",
                   nfind, ev);
        } else {
            printf("ok [serialised-communicators]: no rank has substantial p2p and coll (>= %g%% of the window "
                   "each, together in >= %g%% of the iterations) overlapping less than %g%%\n",
                   o->min_comm_share, o->both_iters, o->serial_overlap);
        }
    }
    /* Rule 2: no comm/compute overlap. */
    {
        int any = 0;
        size_t len = 0;
        ev[0] = '\0';
        for (size_t r = 0; r < nr; r++) {
            const tl_an_metrics *m = &res[r].whole;
            const rank_diag *d = &s->rd[r];
            double w = (double)m->w, cm = 100 * tl_an_m_union(m, TL_AN_C_P2P | TL_AN_C_COLL) / w,
                   cp = 100 * tl_an_m_union(m, TL_AN_C_COMPUTE) / w, h = 100 * tl_an_m_hidden(m);
            int found = cm >= o->min_comm_share && cp >= o->min_comm_share && isfinite(h) && h < o->hidden_min;
            TL_TRYGOTO(add_rule_row(t, "no-comm-compute-overlap", d->rank, found, h, o->hidden_min, "hidden %"), st,
                       fail);
            if (!found) continue;
            any = 1;
            len += (size_t)snprintf(ev + len, sizeof ev - len,
                                    "    rank %d: communication %.1f%% and compute %.1f%% of the window, hidden "
                                    "%.2f%%; %lld of %lld communication kernels ran on a stream that also runs "
                                    "compute kernels\n",
                                    d->rank, cm, cp, h, (long long)d->comm_on_compute_stream, (long long)d->ncomm);
            if (len >= sizeof ev) len = sizeof ev - 1;
        }
        if (any) {
            nfind++;
            printf("FINDING %d [no-comm-compute-overlap]: communication never overlaps compute\n  evidence:\n%s"
                   "  remedy: if the communication kernels share the compute stream, give them their own stream "
                   "(the p2p/coll lanes); otherwise a cudaStreamWaitEvent makes compute wait for the whole "
                   "communication (a missing or wrong event dependency): wait only for the data the kernel reads.\n\n",
                   nfind, ev);
        } else {
            printf("ok [no-comm-compute-overlap]: hidden communication >= %g%% wherever communication and compute "
                   "are both >= %g%% of the window\n",
                   o->hidden_min, o->min_comm_share);
        }
    }
    /* Rule 3: starved communication kernels (working time after the last
     * peer arrived, with compute vs alone). */
    {
        int any = 0;
        size_t len = 0;
        ev[0] = '\0';
        for (size_t r = 0; r < nr; r++) {
            rank_diag *d = &s->rd[r];
            double worst = NAN;
            int found = 0;
            for (size_t a = 0; a < d->nst; a++) {
                starve_eval se;
                TL_TRYGOTO(eval_starve(s, r, &d->st[a], &se), st, fail);
                if ((int64_t)se.na < o->min_samples || (int64_t)se.no < o->min_samples) continue;
                double ratio = se.mo / se.ma, share = d->w > 0 ? 100 * se.excess_us / US(d->w) : 0;
                if (!isfinite(worst) || ratio > worst) worst = ratio;
                if (ratio < o->starve_ratio || share < o->starve_share) continue;
                any = found = 1;
                const char *nm = tl_an_names_short(s->names, d->st[a].name);
                len += (size_t)snprintf(ev + len, sizeof ev - len,
                                        "    rank %d: %.60s: median %.1f us over %zu instances overlapping compute "
                                        "vs %.1f us over %zu alone (%.2fx), %.1f us extra = %.1f%% of the window%s\n",
                                        d->rank, nm, se.mo, se.no, se.ma, se.na, ratio, se.excess_us, share,
                                        se.paired ? "" : " (raw durations: instances not paired across ranks)");
                if (len >= sizeof ev) len = sizeof ev - 1;
            }
            TL_TRYGOTO(add_rule_row(t, "starved-communication", d->rank, found, worst, o->starve_ratio,
                                    "overlapped/alone median"),
                       st, fail);
        }
        if (any) {
            nfind++;
            printf("FINDING %d [starved-communication]: communication kernels take far longer while compute runs "
                   "than alone\n  evidence (working time = end - latest start of the same operation over the "
                   "ranks, so waiting for a late peer does not count):\n%s"
                   "  remedy: the compute kernels occupy the SMs and memory bandwidth NCCL needs. Create the "
                   "communication streams with a higher priority (cudaStreamCreateWithPriority), bound the compute "
                   "grid, or give NCCL its own CTAs (NCCL_MIN_CTAS/NCCL_MAX_CTAS or ncclConfig_t.minCTAs/maxCTAs on "
                   "the split communicator).\n\n",
                   nfind, ev);
        } else {
            printf("ok [starved-communication]: no communication kernel works %gx longer with compute than alone "
                   "at a cost of >= %g%% of the window (needs >= %lld instances of each)\n",
                   o->starve_ratio, o->starve_share, (long long)o->min_samples);
        }
    }
    /* Rule 4: launch-bound compute. */
    {
        int any = 0;
        size_t len = 0;
        ev[0] = '\0';
        for (size_t r = 0; r < nr; r++) {
            const rank_diag *d = &s->rd[r];
            double tot = (double)(d->gaps_short + d->lane_busy);
            double share = tot > 0 ? 100.0 * (double)d->gaps_short / tot : NAN;
            int found = d->nlane >= 10 && isfinite(share) && share >= o->launch_share &&
                        d->med_lane_us <= o->short_kernel_us;
            TL_TRYGOTO(add_rule_row(t, "launch-bound-compute", d->rank, found, share, o->launch_share, "gap share %"),
                       st, fail);
            if (!found) continue;
            any = 1;
            len += (size_t)snprintf(ev + len, sizeof ev - len,
                                    "    rank %d: %lld compute-lane kernels (%.1f per iteration), median %.2f us; "
                                    "%lld gaps <= %g us add up to %.1f us = %.1f%% of the lane's time\n",
                                    d->rank, (long long)d->nlane,
                                    res[r].nslices ? (double)d->nlane / (double)res[r].nslices : NAN, d->med_lane_us,
                                    (long long)d->ngaps_short, o->c.launch_gap_us, US(d->gaps_short), share);
            if (len >= sizeof ev) len = sizeof ev - 1;
        }
        if (any) {
            nfind++;
            printf("FINDING %d [launch-bound-compute]: the compute stream waits on kernel launches between many "
                   "short kernels\n  evidence:\n%s"
                   "  remedy: fuse the short kernels (e.g. the vector updates of one iteration into one kernel) or "
                   "capture the iteration into a CUDA graph and launch it once.\n\n",
                   nfind, ev);
        } else {
            printf("ok [launch-bound-compute]: compute-lane gaps <= %g us stay below %g%% of the lane's time, or "
                   "the kernels are long (median > %g us)\n",
                   o->c.launch_gap_us, o->launch_share, o->short_kernel_us);
        }
    }
    /* What did overlap, for the report. */
    putchar('\n');
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        printf("overlap rank %d: %.1f%% of communication hidden under compute, p2p and coll overlap %.1f%%, all "
               "three lanes busy together %.2f%% of the window\n",
               res[r].meta.rank, 100 * tl_an_m_hidden(m), 100 * tl_an_m_ccover(m), 100 * tl_an_m_triple(m));
    }
    for (size_t r = 0; r < nr && nr > 1; r++) {
        const rank_diag *d = &s->rd[r];
        double wsum = 0, ksum = 0;
        size_t npaired = 0, nwin = 0;
        for (size_t a = 0; a < d->nst; a++) {
            starve_eval se;
            TL_TRYGOTO(eval_starve(s, r, &d->st[a], &se), st, fail);
            if (!se.paired) continue;
            npaired++;
            nwin += se.nwin;
            wsum += se.wait_us;
            ksum += se.sum_us;
        }
        if (!npaired || !nwin) continue;
        printf("peer wait rank %d: %zu NCCL kernels spent %.1f of their %.1f us (%.0f%%, %.1f us each) waiting for "
               "the last rank to start the same operation; U(comm) and hidden include that wait\n",
               d->rank, nwin, wsum, ksum, ksum > 0 ? 100 * wsum / ksum : 0, wsum / (double)nwin);
    }
    putchar('\n');
    tl_an_table_print(t, stdout);
    printf("# %d finding%s\n", nfind, nfind == 1 ? "" : "s");
    if (o->c.csv) TL_TRYGOTO(tl_an_table_write_csv(t, o->c.csv), st, fail);
fail:
    tl_an_table_destroy(&t);
    return st;
}

int tl_an_cmd_diagnose(int argc, char **argv)
{
    diag_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "min-comm-share", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, min_comm_share), .def = "2",
         .metavar = "PCT", .help = "communication counts as substantial from this % of the window", .min = 0,
         .max = 100},
        {.name = "serial-overlap", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, serial_overlap), .def = "5",
         .metavar = "PCT", .help = "p2p/coll overlap below this % means serialised", .min = 0, .max = 100},
        {.name = "both-iters", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, both_iters), .def = "50",
         .metavar = "PCT", .help = "p2p and coll issued together: both in this % of iterations", .min = 0,
         .max = 100},
        {.name = "hidden-min", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, hidden_min), .def = "5",
         .metavar = "PCT", .help = "hidden communication below this % means no comm/compute overlap", .min = 0,
         .max = 100},
        {.name = "starve-ratio", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, starve_ratio), .def = "1.5",
         .metavar = "X", .help = "median overlapped / median alone duration that means starved", .min = 1,
         .max = 1e6},
        {.name = "starve-share", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, starve_share), .def = "2",
         .metavar = "PCT", .help = "starved only if the extra working time is this % of the window", .min = 0,
         .max = 100},
        {.name = "min-samples", .type = TL_OPT_INT, .offset = offsetof(diag_opts, min_samples), .def = "3",
         .metavar = "N", .help = "instances needed on each side for the starvation rule", .min = 1, .max = 1e9},
        {.name = "launch-share", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, launch_share), .def = "25",
         .metavar = "PCT", .help = "compute-lane time in launch gaps that means launch-bound", .min = 0,
         .max = 100},
        {.name = "short-kernel-us", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, short_kernel_us),
         .def = "20", .metavar = "US", .help = "launch-bound needs a median compute kernel at most this long",
         .min = 0, .max = 1e9},
    };
    const tl_optgroup groups[] = {
        {.title = "rules", .opts = own, .nopts = sizeof own / sizeof own[0], .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze diagnose", .usage = "[options] RUN_DIR",
                             .purpose = "Lost-overlap findings (serialised communicators, no comm/compute overlap, "
                                        "starved communication, launch-bound compute) with evidence and remedies.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    diag_state ds = {.o = &o};
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    oo.slices = 1;
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    ds.names = names;
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, diag_rank, &ds, &res, &nr), st, fail);
    TL_TRYGOTO(report(pr.positional[0], &o, &ds, res, nr), st, fail);
fail:
    free_diag(&ds);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
