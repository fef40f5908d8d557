/* trilap-analyze overlap RUN_DIR: every metric of DESIGN.md "Overlap
 * metrics" per rank, max/mean over ranks, per iteration, and the
 * reconciliation of derived communication with measured NCCL time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/kineto.h"
#include "analysis/kineto_report.h"

typedef struct overlap_opts {
    int per_iter;
    const char *iter_csv;
    tl_an_common c;
} overlap_opts;

#define US(x) ((double)(x) / 1e3)

/* The columns of the overlap table: each a metric of analysis/README.md,
 * beside its own formula. Ratios are NaN (printed "-") without a
 * denominator, said under the table. */
typedef double (*ov_fn)(const tl_an_metrics *m, int64_t iters);
#define RATIO(f) static double f##_pct(const tl_an_metrics *m, int64_t n) { (void)n; return 100 * tl_an_m_##f(m); }
#define TIME(f, e) static double f##_us(const tl_an_metrics *m, int64_t n) { (void)n; return US(e); }
TIME(w, m->w)
TIME(compute, tl_an_m_union(m, TL_AN_C_COMPUTE))
TIME(p2p, tl_an_m_union(m, TL_AN_C_P2P_ALL))
TIME(coll, tl_an_m_union(m, TL_AN_C_COLL_ALL))
TIME(comm, tl_an_m_union(m, TL_AN_C_COMM_ALL))
TIME(waiting, tl_an_m_waiting(m))
TIME(exposed, tl_an_m_exposed(m))
TIME(derived, tl_an_m_derived(m))
TIME(idle, tl_an_m_idle(m))
RATIO(hidden)
RATIO(hidden_all)
RATIO(ccover)
RATIO(triple)
RATIO(triple_all)
static double iters_n(const tl_an_metrics *m, int64_t n) { (void)m; return (double)n; }

static const struct {
    const char *name, *unit;
    int dec;
    ov_fn fn;
} ov_cols[] = {
    {"W", "us", 1, w_us},
    {"U_compute", "us", 1, compute_us},
    {"U_p2p", "us", 1, p2p_us},
    {"U_coll", "us", 1, coll_us},
    {"U_comm", "us", 1, comm_us},
    {"waiting", "us", 1, waiting_us},
    {"exposed", "us", 1, exposed_us},
    {"hidden", "%", 1, hidden_pct},
    {"hidden_all", "%", 1, hidden_all_pct},
    {"comm_comm", "%", 1, ccover_pct},
    {"triple", "%", 2, triple_pct},
    {"triple_all", "%", 2, triple_all_pct},
    {"derived_comm", "us", 1, derived_us},
    {"idle", "us", 1, idle_us},
    {"iters", "", 0, iters_n},
};
enum { NV = sizeof ov_cols / sizeof ov_cols[0] };

static void ov_values(const tl_an_metrics *m, int64_t iters, double *x)
{
    for (int j = 0; j < NV; j++) x[j] = ov_cols[j].fn(m, iters);
}

enum { NR = 8 };
static const char *const rc_cols[NR] = {"derived_comm", "comm", "idle", "launch_gaps", "memcpy_only",
                                        "hidden_comm", "compute_concurrent", "residual"};

/* derived = U(comm) + idle + memcpy_only − hidden − compute_concurrent (exact;
 * the derivation is in analysis/README.md), so residual must be 0. U(comm)
 * is every communication activity, waiting included. */
static void rc_values(const tl_an_metrics *m, double *x)
{
    int64_t comm = tl_an_m_union(m, TL_AN_C_COMM_ALL);
    int64_t hid = comm - (tl_an_m_union(m, TL_AN_C_COMM_ALL | TL_AN_C_COMPUTE) - tl_an_m_union(m, TL_AN_C_COMPUTE));
    int64_t conc = m->sum_compute - tl_an_m_union(m, TL_AN_C_COMPUTE);
    int64_t other = m->by_mask[TL_AN_C_OTHER];
    int64_t idle = tl_an_m_idle(m), der = tl_an_m_derived(m);
    x[0] = US(der);
    x[1] = US(comm);
    x[2] = US(idle);
    x[3] = US(m->launch_gaps);
    x[4] = US(other);
    x[5] = US(hid);
    x[6] = US(conc);
    x[7] = US(der - (comm + idle + other - hid - conc));
}

/* One row per rank, labelled with the trace's rank (a Kineto trace of rank 3
 * alone is rank 3, as in every other command), then max and mean over the
 * ranks with activity in the window: a rank without any (W = 0) has no
 * ratios either, and counted as zeros its times halved a two-rank mean
 * that its ratios left out (idle_ranks_note says so under the table). */
static tl_status add_rows(tl_an_table *t, const tl_an_rank_result *res, const double *vals, size_t nrank, size_t nv,
                          const int *dec)
{
    for (size_t r = 0; r < nrank; r++) {
        TL_TRY(tl_an_table_row(t));
        TL_TRY(tl_an_table_fmt(t, "%d", res[r].meta.rank));
        for (size_t j = 0; j < nv; j++) TL_TRY(tl_an_table_num(t, vals[r * nv + j], dec[j]));
    }
    for (int agg = 0; agg < 2 && nrank > 1; agg++) {
        TL_TRY(tl_an_table_row(t));
        TL_TRY(tl_an_table_str(t, agg == 0 ? "max" : "mean"));
        for (size_t j = 0; j < nv; j++) {
            double a = agg == 0 ? -INFINITY : 0;
            size_t cnt = 0;
            for (size_t r = 0; r < nrank; r++) {
                double v = vals[r * nv + j];
                if (!isfinite(v) || res[r].whole.w == 0) continue;
                cnt++;
                if (agg == 0) a = v > a ? v : a;
                else a += v;
            }
            TL_TRY(tl_an_table_num(t, cnt ? (agg == 0 ? a : a / (double)cnt) : NAN, dec[j]));
        }
    }
    return TL_OK;
}

/* The ranks max and mean leave out (add_rows), said under the table */
static void idle_ranks_note(const tl_an_rank_result *res, size_t nr)
{
    if (nr < 2) return;
    for (size_t r = 0; r < nr; r++)
        if (res[r].whole.w == 0)
            printf("# max, mean: without rank %d, which has no activity in the window\n", res[r].meta.rank);
}

/* A negative derived_comm, said under the table. The paper's method
 * (W - the sum of compute kernels) assumes one kernel at a time; kernels
 * that ran at once (the CPML shell's stream beside the interior's) sum to
 * more than W. The figure is kept, not blanked: the reconciliation's
 * compute_concurrent holds the difference and its identity still checks. */
static void derived_note(const tl_an_rank_result *res, size_t nr)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        size_t neg = 0;
        for (size_t k = 0; res[r].slices && k < res[r].nslices; k++) neg += tl_an_m_compute_overlaps_w(&res[r].slices[k]);
        if (tl_an_rank_host_only(&res[r])) continue; /* blank_host_only says why */
        if (tl_an_m_compute_overlaps_w(m))
            printf("# derived_comm < 0: rank %d's compute kernels sum to %.1f us, more than its window (%.1f us): "
                   "they ran at once, which W - their sum does not allow for; U_comm measures communication "
                   "(the reconciliation's compute_concurrent holds the difference)\n",
                   res[r].meta.rank, US(m->sum_compute), US(m->w));
        else if (neg)
            printf("# derived_comm < 0 on rank %d in %zu of its iterations: their compute kernels ran at once, summing "
                   "to more than the iteration\n",
                   res[r].meta.rank, neg);
    }
}

/* Why a ratio shows "-": said once under the table, never "nan". */
static tl_status undefined_note(const tl_an_rank_result *res, size_t nr)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        if (tl_an_m_union(m, TL_AN_C_COMM_ALL) == 0) {
            printf("# -: rank %d has no communication activity in the window, so hidden, comm_comm and triple are "
                   "undefined\n",
                   res[r].meta.rank);
        } else if (isnan(tl_an_m_ccover(m))) {
            printf("# -: rank %d has no %s activity, so comm_comm is undefined\n", res[r].meta.rank,
                   tl_an_m_union(m, TL_AN_C_P2P_ALL) ? "collective" : "p2p");
        } else if (isnan(tl_an_m_hidden(m))) {
            printf("# -: rank %d's communication only waits in the window (no transfer), so hidden is undefined\n",
                   res[r].meta.rank);
        }
    }
    return TL_OK;
}

static int derived_col(void)
{
    int j = 0;
    while (j < NV && strcmp(ov_cols[j].name, "derived_comm") != 0) j++;
    return j;
}

/* A rank without GPU lanes (tl_an_rank_host_only) has no compute kernels
 * to subtract from the window, the paper's method: its derived_comm (and
 * the reconciliation's) is "-", and the table says why. Its compute is its
 * host's compute ranges where it marks them (it said U_compute 0 and idle
 * the whole window of a host computing all of it). */
static tl_status blank_host_only(tl_an_table *t, const tl_an_rank_result *res, size_t nr, double *vals,
                                 double *rv)
{
    int derived = derived_col();
    for (size_t r = 0; r < nr; r++) {
        if (!tl_an_rank_host_only(&res[r])) continue;
        vals[r * NV + derived] = NAN;
        rv[r * NR] = rv[r * NR + NR - 1] = NAN; /* derived_comm, residual */
        if (res[r].n_host_compute)
            TL_TRY(tl_an_table_meta(t, "gpu_lanes",
                                    "rank %d: none (a host-only trace: no device, no kernels or copies recorded), so "
                                    "derived_comm is undefined; U_compute is its host's compute ranges (compute:*)",
                                    res[r].meta.rank));
        else
            TL_TRY(tl_an_table_meta(t, "gpu_lanes",
                                    "rank %d: none (a host-only trace: no device, no kernels or copies recorded), so "
                                    "derived_comm is undefined and U_compute is 0; trace a --backend cuda run for the "
                                    "GPU figures",
                                    res[r].meta.rank));
    }
    return TL_OK;
}

static int cmp_delay(const void *a, const void *b)
{
    const tl_an_op *x = *(const tl_an_op *const *)a, *y = *(const tl_an_op *const *)b;
    int64_t dx = x->arrive - x->first, dy = y->arrive - y->first;
    if (dx != dy) return dx > dy ? -1 : 1;
    return x < y ? -1 : x > y; /* ties in the operations' order: the same table every run */
}

/* Two ranks' views of one exchange that saw it alike (the two ranks of a
 * pair): one row. */
static int same_wait(const tl_an_op *x, const tl_an_op *y)
{
    return x->name == y->name && x->group == y->group && x->k == y->k && x->arrive == y->arrive &&
           x->first == y->first && x->last_rank == y->last_rank;
}

int tl_an_ranks_subset(const tl_an_rank_result *res, size_t nr, char *buf, size_t n)
{
    int world = 0;
    for (size_t r = 0; r < nr; r++)
        if (res[r].meta.nranks > world) world = res[r].meta.nranks;
    if (world <= 0 || (size_t)world <= nr) return 0;
    if (!buf) return world;
    size_t len = (size_t)snprintf(buf, n, "%zu of %d: rank%s ", nr, world, nr > 1 ? "s" : "");
    for (size_t r = 0; r < nr && len < n; r++) {
        if (r == 8) { /* the count says how many */
            len += (size_t)snprintf(buf + len, n - len, ", ...");
            break;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s%d", r ? ", " : "", res[r].meta.rank);
    }
    size_t absent = (size_t)world - nr;
    if (len < n && absent == 1)
        snprintf(buf + len, n - len, " (the metadata's world size; the other is not in the trace)");
    else if (len < n)
        snprintf(buf + len, n - len, " (the metadata's world size; the %zu others are not in the trace)", absent);
    return world;
}

enum { TOP_DELAYED = 10 };

/* Why operations stayed unmatched: they pair by iteration, so a rank
 * without iterations (a Kineto trace without ProfilerStep) pairs with
 * none of a rank with them, whatever the counts (before: "whose count
 * differs between ranks" of ranks that ran the same operations). */
static tl_status unmatched_say(tl_an_table *t, const tl_an_ops *ops, const tl_an_rank_result *res, size_t nr)
{
    size_t without = 0, with = 0, first = 0;
    for (size_t r = 0; r < nr; r++) {
        if (res[r].have.n) with++;
        else if (!without++) first = r;
    }
    const char *s = ops->unmatched_names == 1 ? "" : "s";
    if (!without || !with)
        return tl_an_table_meta(t, "unmatched", "%zu operations of %zu name%s whose count differs between ranks in "
                                                "the whole trace stay whole (counted as transfer)",
                                ops->unmatched_ops, ops->unmatched_names, s);
    char more[48] = "";
    if (without > 1) snprintf(more, sizeof more, " (and %zu more)", without - 1);
    return tl_an_table_meta(t, "unmatched", "%zu operations of %zu name%s stay whole (counted as transfer): rank "
                                            "%d%s has no iterations (no ProfilerStep or iter range), so its "
                                            "operations pair with none of the other ranks' iterations",
                            ops->unmatched_ops, ops->unmatched_names, s, res[first].meta.rank, more);
}

/* The operations whose last rank came latest, naming it; where an
 * operation was paired with one rank's peers alone (a halo: the trace's
 * peers.<i>), the column `ranks` says whose ("2:1,3": rank 2 with ranks 1
 * and 3), the same exchange appearing once per rank that saw it
 * otherwise (same_wait). */
static tl_status delayed_table(const tl_an_ops *ops, const tl_an_names *names, const tl_an_rank_result *res)
{
    tl_status st = TL_OK;
    tl_an_table *d = NULL;
    const tl_an_op **by = malloc(ops->nop * sizeof *by), *top[TOP_DELAYED];
    TL_CHECK(by, TL_ERR_NOMEM, "%zu operations", ops->nop);
    size_t nby = 0, ntop = 0;
    int views = 0;
    for (size_t i = 0; i < ops->nop; i++)
        if (ops->op[i].in_span && tl_an_op_waits(&ops->op[i])) by[nby++] = &ops->op[i];
    qsort(by, nby, sizeof *by, cmp_delay);
    for (size_t i = 0; i < nby && ntop < TOP_DELAYED && by[i]->arrive > by[i]->first; i++) {
        int seen = 0;
        for (size_t j = 0; j < ntop && !seen; j++) seen = same_wait(top[j], by[i]);
        if (seen) continue;
        top[ntop++] = by[i];
        views |= by[i]->view >= 0;
    }
    TL_TRYGOTO(tl_an_table_create(&d, "most delayed operations"), st, fail);
    TL_TRYGOTO(tl_an_table_meta(d, "delay", "last rank's start - first rank's start of the same operation, of those "
                                            "whose kernels ran together on every rank (the last started before the "
                                            "first ended: else not one operation), posts left out (a non-blocking "
                                            "post waits for nobody), and counted on some rank (its part there has "
                                            "time in that rank's window)"),
               st, fail);
    if (views)
        TL_TRYGOTO(tl_an_table_meta(d, "ranks", "R:P,Q: rank R's operation paired with its peers P, Q alone (the "
                                                "trace's peers.N), one row per rank that saw it otherwise; all: every rank"),
                   st, fail);
    static const char *const dcols[][2] = {{"operation", ""}, {"k", ""},      {"iter", ""},
                                           {"last_rank", ""}, {"delay", "us"}, {"ranks", ""}};
    for (size_t j = 0; j < sizeof dcols / sizeof dcols[0] - !views; j++)
        TL_TRYGOTO(tl_an_table_col(d, dcols[j][0], dcols[j][1], j == 0), st, fail);
    int unattributed = 0;
    for (size_t i = 0; i < ntop; i++) {
        unattributed |= top[i]->iter < 0;
        TL_TRYGOTO(tl_an_table_row(d), st, fail);
        TL_TRYGOTO(tl_an_table_str(d, top[i]->named ? tl_an_names_get(names, top[i]->name)
                                                   : tl_an_names_short(names, top[i]->name)),
                   st, fail);
        TL_TRYGOTO(tl_an_table_int(d, top[i]->k), st, fail);
        TL_TRYGOTO(tl_an_table_num(d, top[i]->iter >= 0 ? (double)top[i]->iter : NAN, 0), st, fail);
        TL_TRYGOTO(tl_an_table_int(d, res[top[i]->last_rank].meta.rank), st, fail);
        TL_TRYGOTO(tl_an_table_num(d, US(top[i]->arrive - top[i]->first), 1), st, fail);
        if (views)
            TL_TRYGOTO(tl_an_table_str(d, top[i]->view >= 0 ? tl_an_names_get(names, top[i]->ranks) : "all"), st, fail);
    }
    putchar('\n');
    tl_an_table_print(d, stdout);
    if (unattributed)
        printf("# iter -: the last rank's kernel was not attributed to an iteration (its launch was not recorded)\n");
fail:
    free(by);
    tl_an_table_destroy(&d);
    return st;
}

/* Waiting and transfer per rank, and the operations whose last rank came
 * latest (DESIGN.md "Wave 3": NCCL time is waiting plus transfer). */
static tl_status wait_tables(const tl_an_ops *ops, const tl_an_names *names, const tl_an_rank_result *res,
                             size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    putchar('\n');
    int world = tl_an_ranks_subset(res, nr, NULL, 0);
    if (nr < 2 && world) {
        /* its collectives waited for the absent ranks: how long is not in the trace */
        printf("# waiting: not measured: the trace holds 1 of the run's %d ranks, and the others' arrival is not in "
               "it; the overlap table's waiting (0) and hidden = hidden_all count all communication as transfer\n",
               world);
        goto fail;
    }
    if (nr < 2) {
        printf("# waiting: one rank, so no communication waits for another (all of it is transfer)\n");
        goto fail;
    }
    TL_TRYGOTO(tl_an_table_create(&t, "communication waiting and transfer"), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "matching", "the k-th operation of a collective and process group in an "
                                               "iteration where the trace names them (Kineto), else the k-th of a "
                                               "kernel name, on every rank (a point-to-point operation whose peers "
                                               "the trace names: on the rank and its peers alone; a Kineto send, "
                                               "recv or batch: with the operations holding the same-numbered "
                                               "messages of its channels at their other ends), on the clock the "
                                               "'# clock:' line states; waiting = before the last rank starts it, "
                                               "transfer = the rest"),
               st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "sums", "over the rank's operations with time in its window (--iter-range: "
                                           "the selection), times clipped to it; two operations at once count "
                                           "twice (the overlap table's waiting is their union)"),
               st, fail);
    if (ops->unmatched_names) TL_TRYGOTO(unmatched_say(t, ops, res, nr), st, fail);
    if (world)
        TL_TRYGOTO(tl_an_table_meta(t, "subset", "waiting measured against the %zu ranks in the trace only: a lower "
                                                 "bound (a collective also waits for the %zu absent)",
                                    nr, (size_t)world - nr),
                   st, fail);
    static const char *const cols[][2] = {{"operation", ""}, {"matched", ""}, {"waiting", "us"},
                                          {"transfer", "us"}, {"wait", "%"},    {"last", "ops"}};
    TL_TRYGOTO(tl_an_table_col(t, "rank", "", 1), st, fail);
    for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(t, cols[j][0], cols[j][1], j == 0), st, fail);
    for (size_t r = 0; r < nr; r++) {
        const tl_an_split *sp = &res[r].split;
        /* the rank's total, then each operation name */
        for (size_t i = 0; i <= sp->nnames; i++) {
            const tl_an_split_sum *b = i ? &sp->by_name[i - 1] : NULL;
            size_t matched = b ? b->matched : sp->matched;
            int64_t w = b ? b->wait_ns : sp->wait_ns, x = b ? b->transfer_ns : sp->transfer_ns, tot = w + x;
            TL_TRYGOTO(tl_an_table_row(t), st, fail);
            TL_TRYGOTO(tl_an_table_fmt(t, "%d", res[r].meta.rank), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, !b ? "*" : b->named ? tl_an_names_get(names, b->name)
                                                      : tl_an_names_short(names, b->name)),
                       st, fail);
            TL_TRYGOTO(tl_an_table_int(t, (int64_t)matched), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, US(w), 1), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, US(x), 1), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, tot ? 100.0 * (double)w / (double)tot : 0, 1), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, b ? NAN : (double)sp->last, 0), st, fail);
        }
    }
    tl_an_table_print(t, stdout);
    printf("# operation *: all of the rank's matched operations; last: how often it was the last rank to arrive\n");
    char note[512];
    if (tl_an_ops_pairing_say(ops, names, note, sizeof note)) printf("# note: %s\n", note);
    if (ops->nop) st = delayed_table(ops, names, res);
fail:
    tl_an_table_destroy(&t);
    return st;
}

/* The identity between derived_comm and the overlap columns, per rank. */
static tl_status reconciliation_table(const overlap_opts *o, const tl_an_rank_result *res, const double *rv,
                                      size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *rc = NULL;
    TL_TRYGOTO(tl_an_table_create(&rc, "reconciliation"), st, fail);
    TL_TRYGOTO(tl_an_table_meta(rc, "identity", "derived_comm = comm + idle + memcpy_only - hidden_comm - "
                                                "compute_concurrent (residual must be 0)"),
               st, fail);
    TL_TRYGOTO(tl_an_table_meta(rc, "why", "derived_comm counts idle time (launch gaps, waits) and other copies "
                                           "as communication, and misses communication hidden under compute"),
               st, fail);
    TL_TRYGOTO(tl_an_table_meta(rc, "launch_gaps", "part of idle in stretches <= %g us", o->c.launch_gap_us), st,
               fail);
    TL_TRYGOTO(tl_an_table_col(rc, "rank", "", 1), st, fail);
    int rdec[NR];
    for (int j = 0; j < NR; j++) {
        TL_TRYGOTO(tl_an_table_col(rc, rc_cols[j], "us", 0), st, fail);
        rdec[j] = j == NR - 1 ? 3 : 1;
    }
    TL_TRYGOTO(add_rows(rc, res, rv, nr, NR, rdec), st, fail);
    putchar('\n');
    TL_TRYGOTO(tl_an_emit(rc, NULL), st, fail);
fail:
    tl_an_table_destroy(&rc);
    return st;
}

/* --per-iter and --iter-csv: the overlap columns of every iteration slice. */
static tl_status per_iteration_table(const overlap_opts *o, const tl_an_rank_result *res, size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *it = NULL;
    TL_TRYGOTO(tl_an_table_create(&it, "overlap per iteration"), st, fail);
    /* what bounds a slice: its GPU activity, or where none carries its
     * iteration (a host-backend run) the host's iter range (it said "its
     * GPU activity" of a rank that has none) */
    size_t nhost = 0;
    for (size_t r = 0; r < nr; r++) nhost += res[r].meta.iters_from_host != 0;
    const char *gpu = "the first start of its GPU activity", *host = "the start of its host iter range";
    char from[160];
    if (nhost == 0 || nhost == nr) snprintf(from, sizeof from, "%s", nhost ? host : gpu);
    else snprintf(from, sizeof from, "%s (on the ranks whose GPU activity carries no iteration, %s)", gpu, host);
    TL_TRYGOTO(tl_an_table_meta(it, "slices", "iteration k runs from %s to that of iteration k+1, the first from the "
                                              "window start, the last to the window end (they partition the "
                                              "window)", from),
               st, fail);
    TL_TRYGOTO(tl_an_table_col(it, "rank", "", 0), st, fail);
    TL_TRYGOTO(tl_an_table_col(it, "iter", "", 0), st, fail);
    for (int j = 0; j < NV - 1; j++) TL_TRYGOTO(tl_an_table_col(it, ov_cols[j].name, ov_cols[j].unit, 0), st, fail);
    for (size_t r = 0; r < nr; r++)
        for (size_t k = 0; k < res[r].nslices; k++) {
            double x[NV];
            ov_values(&res[r].slices[k], 1, x);
            if (tl_an_rank_host_only(&res[r])) x[derived_col()] = NAN; /* as its window's: blank_host_only */
            TL_TRYGOTO(tl_an_table_row(it), st, fail);
            TL_TRYGOTO(tl_an_table_int(it, res[r].meta.rank), st, fail);
            TL_TRYGOTO(tl_an_table_int(it, res[r].iters[k]), st, fail);
            for (int j = 0; j < NV - 1; j++) TL_TRYGOTO(tl_an_table_num(it, x[j], ov_cols[j].dec), st, fail);
        }
    if (o->per_iter) {
        putchar('\n');
        tl_an_table_print(it, stdout);
    }
    if (o->iter_csv) TL_TRYGOTO(tl_an_write_csv(it, "--iter-csv", o->iter_csv), st, fail);
fail:
    tl_an_table_destroy(&it);
    return st;
}

/* The iterations --iter-range selected, clipped to those the run has
 * ("150:199 (--iter-range 150:250 clipped: ...)"; it said "150:250" of a
 * run of 200) */
static tl_status iters_meta(tl_an_table *t, const overlap_opts *o, const tl_an_rank_result *res, size_t nr)
{
    char sel[800];
    return tl_an_table_meta(t, "iters", "%s",
                            tl_an_results_selection_say(res, nr, o->c.iter_lo, o->c.iter_hi, sel, sizeof sel));
}

static tl_status report(const char *dir, const overlap_opts *o, tl_an_rank_result *res, size_t nr,
                        const tl_an_ops *ops, const tl_an_names *names)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    double *vals = calloc(nr * NV, sizeof *vals), *rv = calloc(nr * NR, sizeof *rv);
    TL_CHECKGOTO(vals && rv, TL_ERR_NOMEM, st, fail, "%zu ranks", nr);
    TL_TRYGOTO(tl_an_table_create(&t, "overlap"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "overlap", dir), st, fail);
    char ranks[256];
    if (tl_an_ranks_subset(res, nr, ranks, sizeof ranks))
        TL_TRYGOTO(tl_an_table_meta(t, "ranks", "%s", ranks), st, fail);
    else TL_TRYGOTO(tl_an_table_meta(t, "ranks", "%zu", nr), st, fail);
    char clock[512];
    tl_an_clock_say(&res[0].meta, nr, sizeof *res, clock, sizeof clock);
    TL_TRYGOTO(tl_an_table_meta(t, "clock", "%s", clock), st, fail);
    int fallback = 0;
    for (size_t r = 0; r < nr; r++) fallback |= !res[r].meta.window_from_meta;
    TL_TRYGOTO(tl_an_table_meta(t, "window",
                                "%s%s", fallback ? "first start to last end of GPU activity (no window_start_ns/"
                                                   "window_end_ns metadata)"
                                                 : "window_start_ns..window_end_ns from the trace metadata",
                                o->c.iters ? ", restricted to --iter-range" : ""),
                st, fail);
    if (o->c.iters) TL_TRYGOTO(iters_meta(t, o, res, nr), st, fail);
    for (size_t r = 0; r < nr; r++) {
        char clk[160] = "";
        const tl_an_meta *m = &res[r].meta;
        if (m->clock_aligned)
            snprintf(clk, sizeof clk, "; clock put on rank 0's: offset %.3f us +- %.3f us, drift %.1f ppb (%s)",
                     (double)m->clock_offset / 1e3, (double)m->clock_unc / 1e3, m->clock_drift_ppb, m->clock_sync);
        else if (!strcmp(m->clock_shared, "process"))
            snprintf(clk, sizeof clk, "; one clock for the threads of one process (no offset)");
        else if (m->clock_shared[0])
            snprintf(clk, sizeof clk, "; rank 0's host's clock (same boot and time namespace: no offset; measured +- "
                                      "%.3f us, kept in the metadata)", (double)m->clock_unc / 1e3);
        else if (strcmp(m->clock_sync, "none") != 0 && strcmp(m->clock_sync, "reference") != 0)
            snprintf(clk, sizeof clk, "; own clock (--raw-clock), measured +- %.3f us", (double)m->clock_unc / 1e3);
        char cut[256], inc[320];
        if (m->window_cut) snprintf(inc, sizeof inc, "INCOMPLETE (%s)", tl_an_window_cut_say(m, cut, sizeof cut));
        else snprintf(inc, sizeof inc, "INCOMPLETE (read with --accept-incomplete: records dropped or the file cut "
                                       "short, as stderr said)");
        TL_TRYGOTO(tl_an_table_meta(t, "rank", "%d device %d (%s) on %s, %s%s%s", m->rank, m->device, m->device_name,
                                    m->host, m->complete ? "complete" : inc,
                                    m->iters_from_host ? "; iterations bounded by the host's iter ranges "
                                                         "(no GPU activity carries its iteration)" : "",
                                    clk),
                   st, fail);
    }
    for (size_t r = 0; r < nr; r++) {
        char say[512];
        if (tl_an_reruns_say(&res[r].meta, say, sizeof say))
            TL_TRYGOTO(tl_an_table_meta(t, "iterations", "%s", say), st, fail);
        if (tl_an_odd_rows_say(&res[r].meta, say, sizeof say))
            TL_TRYGOTO(tl_an_table_meta(t, "note", "%s", say), st, fail);
    }
    char guessed[1024];
    if (nr && tl_an_guessed_owners_say(&res[0].meta, nr, sizeof *res, guessed, sizeof guessed))
        TL_TRYGOTO(tl_an_table_meta(t, "note", "%s", guessed), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "metrics", "defined in analysis/README.md; communication = NCCL kernels, copies "
                                              "serving a halo or reduction, the host's own exchanges; waiting = "
                                              "before the last rank arrived; hidden = |transfer∩compute|/U(transfer), "
                                              "triple = |p2p∩coll∩compute|/W on transfer time; *_all: the same on "
                                              "whole operations (waiting included); comm_comm = "
                                              "|p2p∩coll|/min(U(p2p),U(coll)); exposed = U(comm) not under compute"),
               st, fail);
    for (size_t r = 0; r < nr; r++)
        TL_TRYGOTO(tl_an_table_meta(t, "communication", "rank %d: %lld NCCL kernels, %lld copies on p2p/coll lanes, "
                                                        "%lld host exchanges%s",
                                    res[r].meta.rank, (long long)res[r].n_nccl, (long long)res[r].n_comm_copies,
                                    (long long)res[r].n_marks,
                                    res[r].n_nccl + res[r].n_comm_copies + res[r].n_marks
                                        ? ""
                                        : " (none: comm-based columns are 0 or -)"),
                   st, fail);
    TL_TRYGOTO(tl_an_table_col(t, "rank", "", 1), st, fail);
    int dec[NV];
    for (int j = 0; j < NV; j++) {
        TL_TRYGOTO(tl_an_table_col(t, ov_cols[j].name, ov_cols[j].unit, 0), st, fail);
        dec[j] = ov_cols[j].dec;
    }
    for (size_t r = 0; r < nr; r++) {
        ov_values(&res[r].whole, (int64_t)res[r].nslices, vals + r * NV);
        rc_values(&res[r].whole, rv + r * NR);
    }
    TL_TRYGOTO(blank_host_only(t, res, nr, vals, rv), st, fail);
    TL_TRYGOTO(add_rows(t, res, vals, nr, NV, dec), st, fail);
    TL_TRYGOTO(tl_an_emit(t, o->c.csv), st, fail);
    idle_ranks_note(res, nr);
    derived_note(res, nr);
    TL_TRYGOTO(undefined_note(res, nr), st, fail);

    TL_TRYGOTO(reconciliation_table(o, res, rv, nr), st, fail);

    TL_TRYGOTO(wait_tables(ops, names, res, nr), st, fail);

    /* iteration time (slice length) distribution, rank by rank */
    for (size_t r = 0; r < nr && res[r].nslices; r++) {
        double lo, med, hi;
        TL_TRYGOTO(tl_an_iter_times(&res[r], &lo, &med, &hi), st, fail);
        printf("# rank %d iteration time: min %.1f us, median %.1f us, max %.1f us over %zu iterations\n",
               res[r].meta.rank, lo, med, hi, res[r].nslices);
    }

    if (o->per_iter || o->iter_csv) TL_TRYGOTO(per_iteration_table(o, res, nr), st, fail);
fail:
    free(vals);
    free(rv);
    tl_an_table_destroy(&t);
    return st;
}

int tl_an_cmd_overlap(int argc, char **argv)
{
    overlap_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "per-iter", .type = TL_OPT_FLAG, .offset = offsetof(overlap_opts, per_iter), .def = "0",
         .help = "also print the metrics of every iteration"},
        {.name = "iter-csv", .type = TL_OPT_STRING, .offset = offsetof(overlap_opts, iter_csv), .metavar = "FILE",
         .help = "write the per-iteration table as CSV"},
    };
    const tl_optgroup groups[] = {
        {.title = "overlap", .opts = own, .nopts = 2, .dst = &o},
        {.title = "HTA", .opts = &tl_an_hta_opt, .nopts = 1, .dst = &o.c},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "overlap", .usage = "[options] RUN_DIR",
                             .purpose = "Overlap metrics (DESIGN.md) per rank, max/mean over ranks and per "
                                        "iteration, with the derived-communication reconciliation.",
                             .groups = groups, .ngroups = 3, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    if (o.c.hta) { /* Kineto traces: HTA's figures (analysis/kineto_hta.c) */
        const tl_an_given per_iter[] = {{&o.per_iter, "per-iter", 1}, {&o.iter_csv, "iter-csv", 0}};
        rc = tl_an_hta_refuse(spec.program, &pr, &o.c, per_iter, 2);
        if (rc < 0) rc = tl_kt_hta_report(0, pr.positional, 1, &o.c);
        free(pr.positional);
        return rc;
    }
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_status st = TL_OK;
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    oo.slices = o.per_iter || o.iter_csv ? 2 : 0;
    tl_an_ops ops;
    memset(&ops, 0, sizeof ops);
    oo.ops_out = &ops;
    oo.match = 1;
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, NULL, NULL, &res, &nr), st, fail);
    if (oo.slices) {
        /* per-iteration output of a run without iterations would be a
         * header alone: refused, before the report, saying why */
        size_t slices = 0;
        for (size_t r = 0; r < nr; r++) slices += res[r].nslices;
        char why[1200];
        tl_an_no_iters_say(nr ? &res[0].meta : NULL, pr.positional[0],
                           "there is no iteration to report; the main table covers its whole window", why, sizeof why);
        const tl_an_given per_iter[] = {{&o.per_iter, "per-iter", 1}, {&o.iter_csv, "iter-csv", 0}};
        if (!slices && (rc = tl_an_refuse_given(spec.program, &pr, per_iter, 2, why)) >= 0) goto fail;
    }
    TL_TRYGOTO(report(pr.positional[0], &o, res, nr, &ops, names), st, fail);
fail:
    tl_an_ops_free(&ops);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return rc >= 0 ? rc : st == TL_OK ? 0 : 1;
}
