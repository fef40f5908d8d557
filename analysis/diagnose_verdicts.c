/* trilap-analyze diagnose: each rule's verdict on a rank, the rows of
 * the rule table (diagnose_rules.c): what it measures against its
 * threshold, its other conditions, where it does not apply and why, and
 * the evidence it writes when it fires. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose_impl.h"

/* ">=" when x passes a lower bound, "<" when it does not. */
static const char *ge(double x, double thr) { return x >= thr ? ">=" : "<"; }

static double pct_of_w(const rank_diag *d, int64_t x) { return d->w > 0 ? 100.0 * (double)x / (double)d->w : 0; }

/* A rank without GPU lanes (trilap-solve --backend host, the FDTD on the
 * CPU) computes and communicates on the host: nothing is staged, no stream
 * is serialised, and the remedies (NCCL, a GPU per rank) are not its. */
static const char host_only_why[] =
    "host-only (no GPU lanes: the host computes and communicates by design, so nothing is staged for a GPU and there "
    "are no GPU streams whose communication it could serialise)";

static int host_only_rank_because(const diag_state *s, size_t r, measured *mv, const char *why)
{
    if (!tl_an_rank_host_only(&s->res[r])) return 0;
    mv->value = NAN;
    tl_diag_also(mv, "a host-only rank: no GPU, its host computes and communicates");
    mv->na = why;
    return 1;
}

static int host_only_rank(const diag_state *s, size_t r, measured *mv)
{
    return host_only_rank_because(s, r, mv, host_only_why);
}

static int serial_common(const diag_state *s, size_t r, measured *mv, int by_host)
{
    const diag_opts *o = s->o;
    const tl_an_metrics *m = &s->res[r].whole;
    const rank_diag *d = &s->rd[r];
    double p = pct_of_w(d, tl_an_m_union(m, TL_AN_C_P2P_ALL)), c = pct_of_w(d, tl_an_m_union(m, TL_AN_C_COLL_ALL));
    double cc = 100 * tl_an_m_ccover(m), both = d->n_either ? 100.0 * (double)d->n_both / (double)d->n_either : 0;
    mv->value = cc;
    /* who carries most of the communication decides which rule it is */
    if ((d->u_host > d->u_nccl) != by_host) {
        mv->value = NAN;
        tl_diag_also(mv, "%s carries most: see %s", by_host ? "NCCL" : "the host",
                     by_host ? "serialised-communicators" : "serialised-host-lane");
        return 0;
    }
    int substantial = p >= o->min_comm_share && c >= o->min_comm_share;
    int together = both >= o->both_iters || d->n_either == 0;
    if (d->n_either)
        tl_diag_also(mv, "p2p/coll %.1f/%.1f %% of W %s %g; both %.1f %% of iters %s %g", p, c,
                     substantial ? ">=" : "<", o->min_comm_share, both, ge(both, o->both_iters), o->both_iters);
    else /* iterations without communication, or none marked */
        tl_diag_also(mv, "p2p/coll %.1f/%.1f %% of W %s %g; %s", p, c, substantial ? ">=" : "<", o->min_comm_share,
                     s->res[r].nslices ? "no iteration communicates" : "no iterations marked");
    return substantial && together && isfinite(cc) && cc < o->serial_overlap;
}

static void serial_evidence(const diag_state *s, size_t r, evidence *e)
{
    const tl_an_metrics *m = &s->res[r].whole;
    const rank_diag *d = &s->rd[r];
    double p = pct_of_w(d, tl_an_m_union(m, TL_AN_C_P2P_ALL)), c = pct_of_w(d, tl_an_m_union(m, TL_AN_C_COLL_ALL));
    double cc = 100 * tl_an_m_ccover(m);
    if (d->n_either)
        tl_diag_say(e, "    rank %d: p2p %.1f%% and coll %.1f%% of the window, both in %zu of %zu iterations, "
                       "overlapping in %zu of them (comm_comm %.2f%%)\n",
            d->rank, p, c, d->n_both, d->n_either, d->n_both_overlap, cc);
    else /* a program that marks no iterations (injection, nsys): the window */
        tl_diag_say(e, "    rank %d: p2p %.1f%% and coll %.1f%% of the window, no iterations marked, so over the whole "
                       "window (comm_comm %.2f%%)\n",
            d->rank, p, c, cc);
    if (d->ex_iter >= 0)
        tl_diag_say(e, "      e.g. iteration %lld: p2p %.1f..%.1f us, coll %.1f..%.1f us (relative to the window "
                       "start): one waits for the other\n",
            (long long)d->ex_iter, US(d->ex_p2p[0] - d->w0), US(d->ex_p2p[1] - d->w0), US(d->ex_coll[0] - d->w0),
            US(d->ex_coll[1] - d->w0));
    for (int k = 0; k < 2 && d->ex_iter >= 0; k++)
        if (d->ex_label[k] >= 0) {
            char nm[DIAG_NAME_LEN];
            tl_diag_op_name(s, &d->acc[d->ex_label[k]], nm, sizeof nm);
            tl_diag_say(e, "      its %s: %s\n", k ? "collective" : "p2p", nm);
        }
}

/* The process group the name of the serialised example's p2p (k 0) or
 * collective (k 1) gives ("1 (pp, ranks 0,2)": a Kineto trace's), NULL
 * where it names none. */
static const char *example_pg(const diag_state *s, const rank_diag *d, int k)
{
    if (d->ex_label[k] < 0 || !d->acc[d->ex_label[k]].named) return NULL;
    const char *p = strstr(tl_an_names_get(s->names, d->acc[d->ex_label[k]].label), TL_AN_ON_PG);
    return p ? p + sizeof TL_AN_ON_PG - 1 : NULL;
}

/* Where the trace names two process groups, two communicators: NCCL does
 * not order them, so the rule's cause (one communicator) is not theirs. */
static const char apart_why[] =
    "issuing p2p and collective kernels that never overlap on two process groups (the trace names them): two NCCL "
    "communicators, which NCCL does not run one after the other; the program keeps them apart (one stream for both, "
    "an event wait, or the order it issues them in: see the timeline)";

int tl_diag_verdict_serial(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    /* no NCCL communicator on a host-only rank (it pointed at
     * serialised-host-lane, which does not apply there either) */
    if (host_only_rank(s, r, mv) || !serial_common(s, r, mv, 0)) return 0;
    const rank_diag *d = &s->rd[r];
    const char *pp = example_pg(s, d, 0), *pc = example_pg(s, d, 1);
    if (pp && pc && strcmp(pp, pc) != 0) {
        uint64_t sp = d->acc[d->ex_label[0]].stream, sc = d->acc[d->ex_label[1]].stream;
        char streams[64];
        if (sp == sc) snprintf(streams, sizeof streams, "both on stream %llu", (unsigned long long)sp);
        else snprintf(streams, sizeof streams, "streams %llu and %llu", (unsigned long long)sp, (unsigned long long)sc);
        tl_diag_also(mv, "p2p on process group %.60s, coll on %.60s; %s", pp, pc, streams);
        mv->na = apart_why;
        return 0;
    }
    serial_evidence(s, r, e);
    return 1;
}

int tl_diag_verdict_serial_host(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    if (host_only_rank(s, r, mv) || !serial_common(s, r, mv, 1)) return 0;
    serial_evidence(s, r, e);
    const rank_diag *d = &s->rd[r];
    tl_diag_say(e, "      the host carries %.1f us of p2p and %.1f us of coll exchanges, overlapping %.1f us\n",
        US(d->u_host_p2p), US(d->u_host_coll), US(d->host_pc_overlap));
    return 1;
}

int tl_diag_verdict_nohide(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const diag_opts *o = s->o;
    const tl_an_metrics *m = &s->res[r].whole;
    const rank_diag *d = &s->rd[r];
    double cm = pct_of_w(d, tl_an_m_union(m, TL_AN_C_COMM_ALL)), cp = pct_of_w(d, tl_an_m_union(m, TL_AN_C_COMPUTE));
    double h = 100 * tl_an_m_hidden(m);
    /* the remedy is a GPU stream's or event's, which a host-only rank has
     * none of (its "compute 0.0 % of W" made it an ok, not a verdict) */
    if (host_only_rank_because(s, r, mv,
                               "host-only (no GPU lanes: no GPU stream or event dependency to change; its "
                               "communication under its host's compute is overlap's hidden)"))
        return 0;
    mv->value = h;
    tl_diag_also(mv, "comm %.1f, compute %.1f %% of W %s %g", cm, cp,
                 cm >= o->min_comm_share && cp >= o->min_comm_share ? ">=" : "<", o->min_comm_share);
    if (!(cm >= o->min_comm_share && cp >= o->min_comm_share && isfinite(h) && h < o->hidden_min)) return 0;
    tl_diag_say(e, "    rank %d: communication %.1f%% and compute %.1f%% of the window, hidden %.2f%% of the transfer "
                   "time; %lld of %lld NCCL kernels ran on a stream that also runs compute kernels\n",
        d->rank, cm, cp, h, (long long)d->comm_on_compute_stream, (long long)d->ncomm);
    /* by exposed time: partly hidden ones too (hidden_comm may be > 0) */
    tl_diag_say_top_ops(s, d, e, offsetof(op_acc, exposed), "most exposed:");
    return 1;
}

int tl_diag_verdict_exposed(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const tl_an_metrics *m = &s->res[r].whole;
    const rank_diag *d = &s->rd[r];
    int64_t ex = tl_an_m_exposed(m);
    mv->value = pct_of_w(d, ex);
    if (ex == 0) tl_diag_also(mv, "nothing exposed");
    if (mv->value < s->o->exposed_share || ex == 0) return 0;
    const tl_an_rank_result *res = &s->res[r];
    /* waiting is measured on operations paired across the ranks: with
     * none (late-ranks n/a), 0.0 us would read as measured */
    char waiting[128] = "waiting for other ranks not measurable: no operation of it paired across the ranks";
    int world = tl_an_ranks_subset(s->res, s->n, NULL, 0);
    if (world && s->n < 2) /* the ranks it waited for are not in the trace (before: "0.0 us of it ...") */
        snprintf(waiting, sizeof waiting, "waiting for other ranks not measurable: %d of the run's %d ranks are "
                                          "not in the trace", world - 1, world);
    else if (s->n < 2 || res->split.together)
        snprintf(waiting, sizeof waiting, "%s%.1f us of it only waiting for other ranks%s", world ? "at least " : "",
                 US(tl_an_m_waiting(m)), world ? ", more for those not in the trace" : "");
    tl_diag_say(e, "    rank %d: %.1f us of %.1f us (%.1f%% of the window) communicating with nothing computing; all "
                   "its communication %.1f us (%s): NCCL kernels %.1f us, the host carrying it (exchanges, staging "
                   "copies) %.1f us",
        d->rank, US(ex), US(d->w), mv->value, US(tl_an_m_union(m, TL_AN_C_COMM_ALL)), waiting, US(d->u_nccl),
        US(d->u_host));
    if (res->nslices) tl_diag_say(e, "; %.1f us per iteration", US(ex) / (double)res->nslices);
    tl_diag_say(e, "\n");
    tl_diag_say_top_ops(s, d, e, offsetof(op_acc, exposed), "most exposed:");
    return 1;
}

/* Waiting for a late rank is measured on operations paired across the
 * ranks that ran together; a rank with communication and none such cannot
 * say whether it waited (before: "ok", waiting 0.0 %, of a rank cut short
 * or of ranks on two hosts' clocks). */
static const char late_unmatched_why[] =
    "unpaired: no communication operation of theirs occurs as often on every rank (records dropped, or ranks of "
    "two runs), so waiting for a late rank cannot be measured";
static const char late_apart_why[] =
    "unpaired in time: none of their operations paired across the ranks ran on every rank at once, so the ranks' "
    "clocks do not line up (ranks on two hosts with no measured offsets: --align-clocks estimates them from "
    "collective ends)";

static const char late_subset_why[] =
    "in a trace of some of the run's ranks (the '# ranks:' line names them): how long it waited for the absent "
    "ones is not in the trace";

static int late_unmeasurable(const diag_state *s, size_t r, measured *mv)
{
    const tl_an_rank_result *res = &s->res[r];
    if (s->n < 2 && tl_an_ranks_subset(s->res, s->n, NULL, 0)) {
        mv->na = late_subset_why;
        return 1;
    }
    if (s->n < 2 || res->split.together || !tl_an_m_union(&res->whole, TL_AN_C_COMM_ALL)) return 0;
    mv->na = res->split.matched ? late_apart_why : late_unmatched_why;
    if (res->split.matched)
        tl_diag_also(mv, "0 of %zu matched operations ran on every rank at once", res->split.matched);
    else
        tl_diag_also(mv, "%zu operations of %zu names unmatched", s->ops->unmatched_ops, s->ops->unmatched_names);
    return 1;
}

/* The comparison late-ranks' remedy asks for, made where the compute is
 * its host's (a CPU rank: compute:* ranges): this rank's compute per
 * iteration beside that of the rank last to its most delayed operation
 * (overlap's U_compute / iters for each). */
static void late_compute_say(const diag_state *s, size_t r, evidence *e)
{
    const tl_an_rank_result *res = &s->res[r];
    if (!tl_an_rank_host_only(res) || !res->n_host_compute || !res->nslices) return;
    tl_diag_say(e, "      compute per iteration (overlap's U_compute / iters): this rank %.1f us",
        US(tl_an_m_union(&res->whole, TL_AN_C_COMPUTE)) / (double)res->nslices);
    if (res->split.worst != SIZE_MAX) {
        const tl_an_rank_result *last = &s->res[s->ops->op[res->split.worst].last_rank];
        if (last != res && last->nslices)
            tl_diag_say(e, ", rank %d (last to its most delayed operation) %.1f us", last->meta.rank,
                US(tl_an_m_union(&last->whole, TL_AN_C_COMPUTE)) / (double)last->nslices);
    }
    tl_diag_say(e, "\n");
}

int tl_diag_verdict_late(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const tl_an_rank_result *res = &s->res[r];
    const rank_diag *d = &s->rd[r];
    if (late_unmeasurable(s, r, mv)) return 0;
    int64_t tot = res->split.wait_ns + res->split.transfer_ns;
    mv->value = tot ? 100.0 * (double)res->split.wait_ns / (double)tot : NAN;
    /* of W: the time the rank only waits (overlap's `waiting`, a union:
     * the summed waits of two operations waiting together exceed it) */
    double wait_w = pct_of_w(d, tl_an_m_waiting(&res->whole));
    if (tot)
        tl_diag_also(mv, "waiting %.1f %% of W %s %g", wait_w, ge(wait_w, s->o->min_comm_share),
                     s->o->min_comm_share);
    if (!tot || mv->value < s->o->wait_share || wait_w < s->o->min_comm_share) {
        /* waiting below the threshold among the ranks present says nothing of the absent ones */
        if (tl_an_ranks_subset(s->res, s->n, NULL, 0)) mv->na = late_subset_why;
        return 0;
    }
    /* who the others waited for, and the most delayed operation, of the
     * rank's operations in the selection (match.c) */
    tl_diag_say(e, "    rank %d: %.1f of %.1f us (%.1f%%) of its %zu matched communication operations waited for a "
                   "later rank; in %zu operations another rank came last\n",
        d->rank, US(res->split.wait_ns), US(tot), mv->value, res->split.matched, res->split.others_last);
    if (res->split.worst != SIZE_MAX) {
        const tl_an_op *op = &s->ops->op[res->split.worst];
        int64_t worst_delay = op->arrive - op->first;
        char nm[DIAG_NAME_LEN];
        if (op->named) {
            tl_diag_say(e, "      most delayed: %s, #%lld of it in iteration %lld: rank %d came %.1f us "
                           "after the first\n",
                tl_an_names_get(s->names, op->label), (long long)op->k, (long long)op->group,
                s->res[op->last_rank].meta.rank, US(worst_delay));
        } else {
            /* not one of the rank's kernels: a host mark (an exchange the
             * host carries), the only other operation match.c pairs; it
             * said "#0 of its kernel" of the FDTD's p2p:exchange_z */
            int kernel = 0;
            snprintf(nm, sizeof nm, "%s (the host)", tl_an_names_short(s->names, op->name));
            for (size_t i = 0; i < d->nord && !kernel; i++)
                if (d->ord[i].kernel == op->name && d->ord[i].k == op->k) {
                    tl_diag_op_name(s, &d->acc[d->ord[i].acc], nm, sizeof nm);
                    kernel = 1;
                }
            /* a kernel whose launch the probes could not attribute has none (overlap: "iter -") */
            char it[48] = "no iteration marked on it";
            if (op->iter >= 0) snprintf(it, sizeof it, "iteration %lld", (long long)op->iter);
            tl_diag_say(e, "      most delayed: %s, #%lld of %s (%s): rank %d came %.1f us after the first\n", nm,
                (long long)op->k, kernel ? "its kernel" : "it", it, s->res[op->last_rank].meta.rank, US(worst_delay));
        }
    }
    late_compute_say(s, r, e);
    tl_diag_say_top_ops(s, d, e, offsetof(op_acc, total), "by time:");
    return 1;
}

/* Communication launched but queued: from its launch call to its start the
 * stream still ran earlier work (compute, or an earlier operation of the
 * same process group). Needs the launches (an "op:" row per kernel). */
int tl_diag_verdict_queued(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const rank_diag *d = &s->rd[r];
    int64_t q = 0, held = 0;
    size_t nq = 0, nheld = 0, nlaunch = 0;
    for (size_t a = 0; a < d->nacc; a++) {
        q += d->acc[a].queued;
        nq += d->acc[a].nqueued;
        held += d->acc[a].held;
        nheld += d->acc[a].nheld;
    }
    for (size_t a = 0; a < d->nacc; a++) nlaunch += d->acc[a].named && d->acc[a].stream;
    mv->value = nlaunch ? pct_of_w(d, q) : NAN;
    if (nlaunch && q == 0) tl_diag_also(mv, "nothing queued");
    /* an export has the launches (its API calls), but no operation tied
     * to each kernel: "-" is not "the trace has no launches" */
    if (!nlaunch && d->nacc && !strncmp(s->res[r].meta.clock, "nsys-session", 12))
        tl_diag_also(mv, "not measured on Nsight Systems exports (PyTorch profiler traces tie kernels to launches)");
    if (!nlaunch || mv->value < s->o->queued_share || q == 0) return 0;
    tl_diag_say(e, "    rank %d: %zu communication kernels waited %.1f us in all (%.1f%% of the window) after their "
                   "launch behind earlier work on their stream",
        d->rank, nq, US(q), mv->value);
    if (nheld)
        tl_diag_say(e, "; %zu of them, %.1f us, behind another stream's work an event wait held them for (a "
                       "cudaStreamWaitEvent the trace records on the host only)",
            nheld, US(held));
    tl_diag_say(e, "\n");
    size_t idx[3];
    size_t m = tl_diag_top_ops(d, offsetof(op_acc, queued), idx, 3);
    char nm[DIAG_NAME_LEN];
    for (size_t i = 0; i < m; i++) {
        const op_acc *a = &d->acc[idx[i]];
        tl_diag_op_name(s, a, nm, sizeof nm);
        char behind[DIAG_NAME_LEN];
        if (a->worst_q_held) {
            tl_diag_name_fit(behind, sizeof behind,
                     snprintf(behind, sizeof behind, "event: %s", tl_an_names_get(s->names, a->worst_q_behind)));
        } else if (a->worst_q_op != SIZE_MAX && d->acc[a->worst_q_op].named) {
            char bn[DIAG_NAME_LEN];
            tl_diag_op_name(s, &d->acc[a->worst_q_op], bn, sizeof bn);
            snprintf(behind, sizeof behind, "%s", bn);
        } else {
            tl_diag_name_fit(behind, sizeof behind,
                     snprintf(behind, sizeof behind, "kernel %s", tl_an_names_short(s->names, a->worst_q_behind)));
        }
        tl_diag_say(e, "      %s %s: %zu of %zu queued, %.1f us in all; longest %.1f us (iteration %lld) behind %s\n",
            i ? "then" : "most:", nm, a->nqueued, a->n, US(a->queued), US(a->worst_q), (long long)a->worst_q_iter,
            behind);
    }
    return 1;
}

int tl_diag_verdict_staging(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const rank_diag *d = &s->rd[r];
    const tl_an_rank_result *res = &s->res[r];
    if (host_only_rank(s, r, mv)) return 0;
    mv->value = pct_of_w(d, d->u_host);
    if (d->u_host == 0) tl_diag_also(mv, "no host-carried communication");
    if (mv->value < s->o->staging_share || d->u_host == 0) return 0;
    tl_diag_say(e, "    rank %d: the host carries communication %.1f%% of the window (%.1f us): %lld host exchanges, "
                   "%lld staging copies on the p2p/coll lanes (device-to-device copies are not counted)\n",
        d->rank, mv->value, US(d->u_host), (long long)res->n_marks, (long long)d->n_staging);
    return 1;
}

/* One communication kernel name's starvation figures: medians of its
 * working time overlapping compute and alone, their ratio, and the extra
 * time of the overlapped instances over the median alone, % of W. 0 when
 * it lacks --min-samples instances on either side. */
typedef struct starve_fig {
    double over_us, alone_us, ratio, extra_us, share;
} starve_fig;

static int starve_figures(const diag_state *s, const rank_diag *d, starve_acc *sa, starve_fig *f)
{
    if ((int64_t)sa->na < s->o->min_samples || (int64_t)sa->no < s->o->min_samples) return 0;
    f->over_us = tl_an_median(sa->over, sa->no);
    f->alone_us = tl_an_median(sa->alone, sa->na);
    f->extra_us = 0;
    for (size_t i = 0; i < sa->no; i++)
        if (sa->over[i] > f->alone_us) f->extra_us += sa->over[i] - f->alone_us;
    f->ratio = f->over_us / f->alone_us;
    f->share = d->w > 0 ? 100 * f->extra_us / US(d->w) : 0;
    return 1;
}

/* What starvation calls an accumulator: the kernel, and the operation
 * with its size where the trace names it. */
static void starve_name(const diag_state *s, const starve_acc *sa, char *out, size_t n)
{
    int len;
    if (sa->by_op)
        len = snprintf(out, n, "%s, kernel %s", tl_an_names_get(s->names, sa->label),
                       tl_an_names_short(s->names, sa->name));
    else
        len = snprintf(out, n, "%s", tl_an_names_short(s->names, sa->name));
    tl_diag_name_fit(out, n, len);
}

/* Starvation fires on a kernel when both its ratio and its extra time pass
 * their thresholds. The row shows the kernel that decides the verdict:
 * the largest ratio among the kernels that fire, else among all with
 * enough instances, with its extra time beside it (an ok next to a ratio
 * past the threshold is a kernel whose slowdown costs too little). */
int tl_diag_verdict_starve(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const diag_opts *o = s->o;
    const rank_diag *d = &s->rd[r];
    int found = 0;
    starve_fig shown = {0};
    const starve_acc *shown_acc = NULL;
    char nm[DIAG_NAME_LEN];
    mv->value = NAN;
    for (size_t a = 0; a < d->nst; a++) {
        starve_acc *sa = (starve_acc *)&d->st[a];
        starve_fig f;
        if (!starve_figures(s, d, sa, &f)) continue;
        int fires = f.ratio >= o->starve_ratio && f.share >= o->starve_share;
        /* a firing kernel outranks any that does not; then the larger ratio */
        if (isnan(mv->value) || (fires && !found) || (fires == found && f.ratio > mv->value)) {
            mv->value = f.ratio;
            shown = f;
            shown_acc = sa;
        }
        if (!fires) continue;
        found = 1;
        starve_name(s, sa, nm, sizeof nm);
        tl_diag_say(e, "    rank %d: %s: median %.1f us over %zu instances overlapping compute vs %.1f us over %zu "
                       "alone (%.2fx), %.1f us extra = %.1f%% of the window\n",
            d->rank, nm, f.over_us, sa->no, f.alone_us, sa->na, f.ratio, f.extra_us, f.share);
    }
    if (shown_acc) {
        starve_name(s, shown_acc, nm, sizeof nm);
        tl_diag_also(mv, "extra %.1f %% of W %s %g (%s)", shown.share, ge(shown.share, o->starve_share),
                     o->starve_share, nm);
    }
    return found;
}

int tl_diag_verdict_launch(const diag_state *s, size_t r, measured *mv, evidence *e)
{
    const diag_opts *o = s->o;
    const rank_diag *d = &s->rd[r];
    double tot = (double)(d->gaps_short + d->lane_busy);
    mv->value = tot > 0 ? 100.0 * (double)d->gaps_short / tot : NAN;
    if (d->nlane)
        tl_diag_also(mv, "%lld kernels %s 10, median %.2f us %s %g", (long long)d->nlane, d->nlane >= 10 ? ">=" : "<",
                     d->med_lane_us, d->med_lane_us <= o->short_kernel_us ? "<=" : ">", o->short_kernel_us);
    else
        tl_diag_also(mv, "no kernels on the compute lane");
    if (!(d->nlane >= 10 && isfinite(mv->value) && mv->value >= o->launch_share && d->med_lane_us <= o->short_kernel_us))
        return 0;
    size_t ns = s->res[r].nslices;
    tl_diag_say(e, "    rank %d: %lld compute-lane kernels", d->rank, (long long)d->nlane);
    if (ns) tl_diag_say(e, " (%.1f per iteration)", (double)d->nlane / (double)ns);
    tl_diag_say(e, ", median %.2f us; %lld gaps <= %g us add up to %.1f us = %.1f%% of the lane's time\n",
        d->med_lane_us, (long long)d->ngaps_short, o->c.launch_gap_us, US(d->gaps_short), mv->value);
    return 1;
}
