/* What HTA does not report, on the same Kineto traces
 * (`trilap-analyze collectives`, analysis/README.md "Collectives"):
 *   - the operation each NCCL kernel served (its launch's correlation id ->
 *     the runtime call -> the nccl:* / record_param_comms ops around it on
 *     the launching thread), with process group and message size
 *   - the delay from the launch call to the kernel's start, and what the
 *     kernel waited behind: the previous activity on its stream still
 *     running at the launch ("stream"), an event wait on the stream
 *     ("event": a GPU-side wait, else the host's cudaStreamWaitEvent and
 *     the other stream's work it waited for), or nothing but the launch
 *     path ("launch")
 *   - communication concurrency: the time two or more NCCL kernels run at
 *     once (several streams or process groups), beside p2p ∩ coll
 *   - the operations matched across the ranks given, by (ProfilerStep,
 *     process group, operation, n-th of them in the step: match.c's
 *     tl_an_opseq_number, as the cross-rank figures of every command pair
 *     them), with their skew;
 *     Kineto's clocks are each host's own, so the offset of each rank to the
 *     first is estimated as the median difference of the matched operations'
 *     ends (a collective ends on all its ranks together) and the skew is
 *     given both raw and on the estimated common clock. */
#include "analysis/cli.h"
#include "analysis/kineto.h"
#include "analysis/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the command ----------------------------------------------------------- */

typedef struct crow_out {
    int rank;
    int64_t step, seq, nelems, bytes, stream; /* nelems, bytes: -1 where the trace does not say */
    int64_t launch, start, end; /* ns */
    int64_t waited;             /* ns of the delay spent behind `behind` */
    uint32_t key;               /* op and pg (tl_kt_comm_key) in cstate.keys: what pairs it */
    uint32_t pgkey;             /* pg in cstate.keys: a channel-keyed row pairs by its messages within it */
    tl_an_p2p_channels ch;      /* a send, recv or batch keyed by its channels (ch.n > 0): paired by messages */
    char op[64], pg[128], behind[112];
    int p2p;
    int outside;                /* launched outside --iter-range: it only counts toward the clock offsets */
} crow_out;

typedef struct rank_conc {
    int rank;
    int64_t comm, multi, p2p_coll; /* ns: U(comm), >= 2 NCCL kernels at once, p2p ∩ coll */
    int nstreams;
    int64_t offset;                /* estimated clock offset to the first rank, ns */
    int noffset;                   /* matched operations it rests on */
    size_t nsteps;                 /* its ProfilerSteps (the host's): none, and nothing pairs by step */
} rank_conc;

typedef struct cstate {
    crow_out *rows;
    size_t n, cap;
    tl_an_names *keys;
    int64_t lo, hi;             /* --iter-range: ProfilerSteps of the launches kept (hi < 0: open) */
    int ranged;                 /* a range was given: rows launched outside any step are not in it */
    size_t n_in;                /* rows inside the range (all of them without one) */
    int64_t step_min, step_max; /* the steps the traces have, for the refusal of an empty range */
    size_t nsteps;              /* of the rank with most */
    size_t nkernels;            /* every rank's kernels, NCCL's or not: what a trace without NCCL has */
    int nsys;                   /* an Nsight Systems export: one clock, no process groups or sizes */
} cstate;

/* GPU rows ordered by device, stream, start */
typedef struct gkey {
    int32_t device;
    int64_t stream;
    double ts;
    size_t i;
} gkey;

static int cmp_gkey(const void *a, const void *b)
{
    const gkey *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

typedef struct ev {
    int64_t t;
    int d, p2p;
} ev;

static int cmp_ev(const void *a, const void *b)
{
    const ev *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->d - y->d; /* ends before starts at the same time */
}

/* U(comm), the time >= 2 NCCL kernels run, p2p ∩ coll, over one rank's
 * kernels in the --iter-range selection. */
static tl_status concurrency(const crow_out *r, size_t nr, rank_conc *c)
{
    ev *e = malloc((2 * nr + 1) * sizeof *e);
    TL_CHECK(e, TL_ERR_NOMEM, "%zu kernels", nr);
    size_t n = 0;
    for (size_t i = 0; i < nr; i++) {
        if (r[i].outside) continue;
        e[2 * n] = (ev){r[i].start, 1, r[i].p2p};
        e[2 * n + 1] = (ev){r[i].end, -1, r[i].p2p};
        n++;
    }
    qsort(e, 2 * n, sizeof *e, cmp_ev);
    int active = 0, ap = 0, ac = 0;
    for (size_t i = 0; n && i + 1 < 2 * n; i++) {
        active += e[i].d;
        if (e[i].p2p) ap += e[i].d;
        else ac += e[i].d;
        int64_t dt = e[i + 1].t - e[i].t;
        if (active >= 1) c->comm += dt;
        if (active >= 2) c->multi += dt;
        if (ap >= 1 && ac >= 1) c->p2p_coll += dt;
    }
    free(e);
    return TL_OK;
}

/* What the kernel gi[g] waited behind from its launch: the activity before
 * it on its stream, if still running at the launch; a wait on the stream
 * (a GPU-side sync row, else the launching thread's cudaStreamWaitEvent
 * and the other stream's activity that ended last before the kernel
 * started: before, "launch", waited 0, for kernels held 3.3 ms behind
 * compute); else the launch path. */
static void behind_of(const tl_kt_trace *t, const gkey *gi, size_t g, const tl_kt_ends *en,
                      const tl_kt_crow *ln, crow_out *r)
{
    const tl_kt_srow *k = &t->s[gi[g].i];
    snprintf(r->behind, sizeof r->behind, "%s", ln ? "launch" : "no launch in the trace");
    for (size_t p = g; p-- > 0;) {
        const tl_kt_srow *q = &t->s[gi[p].i];
        if (q->device != k->device || q->stream != k->stream) break;
        int64_t qe = tl_kt_ns(t, q->ts_us) + llround(q->dur_us * 1e3);
        if (q->kind == TL_KT_SYNC) {
            if (qe >= r->launch && qe <= r->start + 1000) {
                snprintf(r->behind, sizeof r->behind, "event: %s", tl_an_names_get(t->names, q->name));
                r->waited = qe - r->launch;
                return;
            }
            continue;
        }
        if (ln && qe > r->launch) {
            snprintf(r->behind, sizeof r->behind, "stream: %.100s", tl_an_names_short(t->names, q->name));
            r->waited = (qe < r->start ? qe : r->start) - r->launch;
            return;
        }
        break;
    }
    const tl_kt_end *w = ln ? tl_kt_host_wait(t, en, gi[g].i, ln) : NULL;
    if (!w) return;
    memcpy(r->behind, "event: ", 7);
    tl_kt_host_wait_name(t, w, r->behind + 7, sizeof r->behind - 7);
    r->waited = w->end - r->launch;
}

/* The number of each of t's steps as every command's iterations number
 * them (iters.c: a number seen again begins the loop again, numbered on
 * after the highest so far; the first such noted in m, which the report
 * says); a GPU stream's copy of a step, and an export's iterations (the
 * importer numbered them so), as they are. */
static tl_status step_numbers(const tl_kt_trace *t, int nsys, tl_an_meta *m, int64_t **out)
{
    int64_t *num = malloc((t->nsteps ? t->nsteps : 1) * sizeof *num);
    TL_CHECK(num, TL_ERR_NOMEM, "%zu steps", t->nsteps);
    tl_an_iters_renumber rn = {.top = -1};
    for (size_t k = 0; k < t->nsteps; k++)
        num[k] = t->steps[k].gpu || nsys ? t->steps[k].num : tl_an_iters_next(&rn, t->steps[k].num, m);
    *out = num;
    return TL_OK;
}

static tl_status rank_rows(const tl_kt_trace *t, tl_an_meta *m, cstate *cs, rank_conc *conc)
{
    size_t ng = 0, first = cs->n;
    int rank = m->rank;
    tl_status st = TL_OK;
    tl_kt_ends ends = {0};
    tl_kt_comm_index cix = {0};
    int64_t *step_num = NULL, *streams = NULL;
    size_t nstreams = 0, capstreams = 0;
    tl_an_opseq *seq = NULL;
    gkey *gi = NULL;
    TL_TRY(step_numbers(t, cs->nsys, m, &step_num));
    conc->nsteps = 0;
    for (size_t k = 0; k < t->nsteps; k++) {
        if (step_num[k] < cs->step_min) cs->step_min = step_num[k];
        if (step_num[k] > cs->step_max) cs->step_max = step_num[k];
        conc->nsteps += !t->steps[k].gpu;
    }
    if (t->nsteps > cs->nsteps) cs->nsteps = t->nsteps;
    gi = malloc((t->ns ? t->ns : 1) * sizeof *gi);
    TL_CHECKGOTO(gi, TL_ERR_NOMEM, st, fail, "%zu rows", t->ns);
    for (size_t i = 0; i < t->ns; i++)
        if (t->s[i].kind <= TL_KT_SYNC) gi[ng++] = (gkey){t->s[i].device, t->s[i].stream, t->s[i].ts_us, i};
    if (ng) qsort(gi, ng, sizeof *gi, cmp_gkey);
    TL_TRYGOTO(tl_kt_ends_build(t, &ends), st, fail);
    TL_TRYGOTO(tl_kt_comm_index_build(t, &cix), st, fail);
    for (size_t g = 0; g < ng; g++) {
        const tl_kt_srow *k = &t->s[gi[g].i];
        if (k->kind != TL_KT_KERNEL) continue;
        cs->nkernels++;
        if (tl_trace_nccl_kernel(tl_an_names_get(t->names, k->name)) == TL_NCCL_NONE) continue;
        tl_kt_comm cm;
        int known = tl_kt_comm_of(t, &cix, gi[g].i, &cm);
        TL_TRYGOTO(TL_AN_GROW(cs->rows, cs->n, cs->cap, "collectives"), st, fail);
        crow_out *r = &cs->rows[cs->n++];
        memset(r, 0, sizeof *r);
        r->rank = rank;
        r->stream = k->stream;
        r->start = tl_kt_ns(t, k->ts_us);
        r->end = r->start + llround(k->dur_us * 1e3);
        r->nelems = known ? cm.nelems : -1;
        r->bytes = known ? cm.bytes : -1;
        r->p2p = known ? cm.p2p : tl_trace_nccl_kernel(tl_an_names_get(t->names, k->name)) == TL_NCCL_P2P;
        snprintf(r->pg, sizeof r->pg, "%s", cs->nsys ? "-" : cm.pg);
        char key[TL_KT_KEY_MAX];
        if (known) {
            if (cm.peer >= 0) snprintf(r->op, sizeof r->op, "%.20s %.42s", cm.op, cm.chan);
            else snprintf(r->op, sizeof r->op, "%s", cm.op);
            if (cm.peer >= 0) r->ch = cm.chans;
            TL_TRYGOTO(tl_an_names_intern(cs->keys, cm.pg, &r->pgkey), st, fail);
            tl_kt_comm_key(&cm, key, sizeof key);
        } else {
            /* the short name every table shows, and whole in the key: two
             * kernels cut to one text would pair as one operation */
            const char *sn = tl_an_names_short(t->names, k->name);
            snprintf(r->op, sizeof r->op, "(kernel %.50s)", sn);
            snprintf(key, sizeof key, "(kernel %s)", sn);
        }
        TL_TRYGOTO(tl_an_names_intern(cs->keys, key, &r->key), st, fail);
        r->launch = cm.launch ? tl_kt_ns(t, cm.launch->ts_us) : r->start;
        size_t in_step = cm.launch ? tl_kt_step_find(t, cm.launch->ts_us) : t->nsteps;
        r->step = in_step < t->nsteps ? step_num[in_step] : -1;
        /* kept outside --iter-range too: the clock offsets rest on every matched operation, so a
         * range selects what is shown, not the clock it is shown on */
        r->outside = cs->ranged && (r->step < cs->lo || (cs->hi >= 0 && r->step > cs->hi));
        cs->n_in += !r->outside;
        behind_of(t, gi, g, &ends, cm.launch, r);
        size_t s = 0;
        while (s < nstreams && streams[s] != k->stream) s++;
        if (s == nstreams) {
            TL_TRYGOTO(TL_AN_GROW(streams, nstreams, capstreams, "streams"), st, fail);
            streams[nstreams++] = k->stream;
        }
    }
    conc->rank = rank;
    conc->nstreams = (int)nstreams;
    TL_TRYGOTO(concurrency(cs->rows + first, cs->n - first, conc), st, fail);
    /* the n-th operation of its kind in its step, by launch */
    seq = malloc((cs->n - first + 1) * sizeof *seq);
    TL_CHECKGOTO(seq, TL_ERR_NOMEM, st, fail, "%zu collectives", cs->n - first);
    for (size_t i = first; i < cs->n; i++) {
        const crow_out *r = &cs->rows[i];
        seq[i - first] = (tl_an_opseq){.group = r->step, .launch = r->launch, .start = r->start, .key = r->key, .at = i};
    }
    tl_an_opseq_number(seq, cs->n - first);
    for (size_t i = 0; i < cs->n - first; i++) cs->rows[seq[i].at].seq = seq[i].seq;
fail:
    free(gi);
    free(step_num);
    free(ends.e);
    tl_kt_comm_index_free(&cix);
    free(streams);
    free(seq);
    return st;
}

static int same_op(const crow_out *a, const crow_out *b)
{
    return a->step == b->step && a->seq == b->seq && a->key == b->key;
}

/* The rows of one operation (same_op) side by side, in row order: at[]
 * the rows by (step, seq, key, row), at[from[i]] .. at[to[i] - 1] row i's
 * operation. Scanning every row for each row was quadratic in NCCL
 * kernels (two ranks of 25k: collectives 4.4 s, overlap 0.9). */
typedef struct op_rows {
    size_t *at, *from, *to;
} op_rows;

typedef struct row_at {
    const crow_out *r;
    size_t i;
} row_at;

static int cmp_row_at(const void *a, const void *b)
{
    const row_at *x = a, *y = b;
    const crow_out *p = &x->r[x->i], *q = &y->r[y->i];
    if (p->step != q->step) return p->step < q->step ? -1 : 1;
    if (p->seq != q->seq) return p->seq < q->seq ? -1 : 1;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void op_rows_free(op_rows *o)
{
    free(o->at);
    free(o->from);
    free(o->to);
    memset(o, 0, sizeof *o);
}

static tl_status op_rows_build(const crow_out *r, size_t n, op_rows *o)
{
    row_at *v = malloc((n ? n : 1) * sizeof *v);
    o->at = malloc((n ? n : 1) * sizeof *o->at);
    o->from = malloc((n ? n : 1) * sizeof *o->from);
    o->to = malloc((n ? n : 1) * sizeof *o->to);
    if (!v || !o->at || !o->from || !o->to) {
        free(v);
        op_rows_free(o);
        return TL_FAIL(TL_ERR_NOMEM, "an index of %zu collectives", n);
    }
    for (size_t i = 0; i < n; i++) v[i] = (row_at){r, i};
    if (n) qsort(v, n, sizeof *v, cmp_row_at);
    for (size_t p = 0, g = 0; p < n; p++) {
        o->at[p] = v[p].i;
        if (p + 1 < n && same_op(&r[v[p].i], &r[v[p + 1].i])) continue;
        for (size_t q = g; q <= p; q++) {
            o->from[v[q].i] = g;
            o->to[v[q].i] = p + 1;
        }
        g = p + 1;
    }
    free(v);
    return TL_OK;
}

/* Each rank's clock offset to the first rank: the median of the matched
 * operations' end differences (match.c's estimate, which --align-clocks
 * applies in the other commands). */
static tl_status offsets(const crow_out *r, size_t n, rank_conc *rc, size_t nr)
{
    op_rows o = {0};
    TL_TRY(op_rows_build(r, n, &o));
    int64_t *d = malloc((n ? n : 1) * sizeof *d);
    if (!d) op_rows_free(&o);
    TL_CHECK(d, TL_ERR_NOMEM, "%zu collectives", n);
    for (size_t k = 1; k < nr; k++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (r[i].rank != rc[k].rank) continue;
            for (size_t p = o.from[i]; p < o.to[i]; p++) /* the first row of the first rank, as the rows go */
                if (r[o.at[p]].rank == rc[0].rank) {
                    d[m++] = r[i].end - r[o.at[p]].end;
                    break;
                }
        }
        rc[k].offset = tl_an_offset_median(d, m);
        rc[k].noffset = (int)m;
    }
    free(d);
    op_rows_free(&o);
    return TL_OK;
}

/* Drops the rows outside --iter-range, once the offsets have seen them. */
static void keep_range(cstate *cs)
{
    size_t m = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (!cs->rows[i].outside) cs->rows[m++] = cs->rows[i];
    cs->n = m;
}

#define US(x) ((double)(x) / 1e3)

/* Two or more NCCL kernels at once, and p2p beside collectives, per rank. */
static tl_status concurrency_table(const rank_conc *rc, size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *cc = NULL;
    TL_TRYGOTO(tl_an_table_create(&cc, "communication concurrency"), st, fail);
    TL_TRYGOTO(tl_an_table_meta(cc, "columns", "U_comm: union of NCCL kernels; multi: two or more at once (streams, "
                                               "process groups); p2p_coll: a p2p and a collective operation at once"),
               st, fail);
    static const char *const ccols[][2] = {{"rank", ""}, {"comm_streams", ""}, {"U_comm", "us"},
                                           {"multi", "us"}, {"multi", "%"}, {"p2p_coll", "us"}};
    for (size_t j = 0; j < sizeof ccols / sizeof ccols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(cc, ccols[j][0], ccols[j][1], 0), st, fail);
    for (size_t k = 0; k < nr; k++) {
        TL_TRYGOTO(tl_an_table_row(cc), st, fail);
        TL_TRYGOTO(tl_an_table_int(cc, rc[k].rank), st, fail);
        TL_TRYGOTO(tl_an_table_int(cc, rc[k].nstreams), st, fail);
        TL_TRYGOTO(tl_an_table_num(cc, US(rc[k].comm), 1), st, fail);
        TL_TRYGOTO(tl_an_table_num(cc, US(rc[k].multi), 1), st, fail);
        TL_TRYGOTO(tl_an_table_num(cc, rc[k].comm ? 100.0 * (double)rc[k].multi / (double)rc[k].comm : NAN, 1), st,
                   fail);
        TL_TRYGOTO(tl_an_table_num(cc, US(rc[k].p2p_coll), 1), st, fail);
    }
    putchar('\n');
    TL_TRYGOTO(tl_an_emit(cc, NULL), st, fail);
fail:
    tl_an_table_destroy(&cc);
    return st;
}

/* The clock the ranks' times are compared on: an export's is one
 * session clock, measured, not estimated (it said "the estimated common
 * clock" of an export's skew too) */
static const char *common_clock(int one_clock)
{
    return one_clock ? "the export's one session clock" : "the estimated common clock";
}

/* A step's cell: "-" for a launch in none (before: -1) */
static tl_status step_cell(tl_an_table *t, int64_t step)
{
    return step >= 0 ? tl_an_table_int(t, step) : tl_an_table_str(t, "-");
}

/* Where an operation was launched, for the findings: "in step 4 (#14)",
 * "outside any step (#14)" */
static const char *step_say(int64_t step, int64_t seq, char *buf, size_t n)
{
    if (step >= 0) snprintf(buf, n, "in step %lld (#%lld)", (long long)step, (long long)seq);
    else snprintf(buf, n, "outside any step (#%lld)", (long long)seq);
    return buf;
}

/* The channel-keyed rows paired by their messages (tl_an_p2p_channels_pair,
 * as match.c pairs them for overlap and diagnose): pp over them in row
 * order, row[j] the row of the j-th. */
typedef struct channel_pairs {
    tl_an_p2p_pairs pp;
    size_t *row;
} channel_pairs;

static void channel_pairs_free(channel_pairs *cp)
{
    tl_an_p2p_pairs_free(&cp->pp);
    free(cp->row);
    cp->row = NULL;
}

static tl_status channel_pairs_build(const crow_out *r, size_t n, const rank_conc *rc, size_t nr, channel_pairs *cp)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) m += r[i].ch.n > 0;
    tl_an_p2p_op *op = malloc((m ? m : 1) * sizeof *op);
    int *rank = malloc((nr ? nr : 1) * sizeof *rank);
    uint8_t *cut = calloc(nr ? nr : 1, 1);
    cp->row = malloc((m ? m : 1) * sizeof *cp->row);
    tl_status st = TL_OK;
    TL_CHECKGOTO(op && rank && cut && cp->row, TL_ERR_NOMEM, st, fail, "%zu point-to-point operations", m);
    for (size_t k = 0; k < nr; k++) rank[k] = rc[k].rank;
    m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].ch.n) continue;
        size_t f = 0;
        while (f < nr && rc[f].rank != r[i].rank) f++;
        op[m] = (tl_an_p2p_op){.file = f, .group = r[i].step, .pg = r[i].pgkey, .launch = r[i].launch,
                               .start = r[i].start, .ch = r[i].ch};
        cp->row[m++] = i;
    }
    TL_TRYGOTO(tl_an_p2p_channels_pair(op, m, rank, cut, nr, &cp->pp), st, fail);
fail:
    free(op);
    free(rank);
    free(cut);
    return st;
}

/* One row of the matched table: the operation of rows who[0..nwho) (who[0]
 * names it); by_messages: who[0]'s operation with its partners, which ran
 * together where each partner overlaps it (not each other), as match.c
 * says; else where the last start is before the first end. *worst: the
 * largest skew of a match that ran together, at r[*worst_i]. */
static tl_status matched_row(tl_an_table *m, const crow_out *r, const rank_conc *rc, size_t nr, const size_t *who,
                             size_t nwho, int by_messages, int64_t *worst, size_t *worst_i)
{
    size_t i = who[0];
    int last = r[i].rank;
    int64_t s0 = INT64_MAX, s1 = INT64_MIN, a0 = INT64_MAX, a1 = INT64_MIN, e0 = INT64_MAX, e1 = INT64_MIN;
    int64_t first_end = INT64_MAX, own = 0;
    for (size_t p = 0; p < nwho; p++) {
        size_t j = who[p];
        int64_t off = 0;
        for (size_t k = 0; k < nr; k++)
            if (rc[k].rank == r[j].rank) off = rc[k].offset;
        int64_t s = r[j].start - off, e = r[j].end - off;
        if (r[j].start < s0) s0 = r[j].start;
        if (r[j].start > s1) s1 = r[j].start;
        if (s < a0) a0 = s;
        if (s > a1) {
            a1 = s;
            last = r[j].rank;
        }
        if (e < e0) e0 = e;
        if (e > e1) e1 = e;
        if (!by_messages && e < first_end) first_end = e;
        if (by_messages && !p) first_end = e, own = s;
        if (by_messages && p && e <= own && e < first_end) first_end = e;
    }
    TL_TRY(tl_an_table_row(m));
    TL_TRY(step_cell(m, r[i].step));
    TL_TRY(tl_an_table_str(m, r[i].op));
    TL_TRY(tl_an_table_str(m, r[i].pg));
    TL_TRY(tl_an_table_int(m, r[i].seq));
    int64_t ranks = (int64_t)nwho; /* a batch's partners may be two operations of one rank: its ranks, each once */
    for (size_t p = 1; by_messages && p < nwho; p++)
        for (size_t q = 0; q < p; q++)
            if (r[who[q]].rank == r[who[p]].rank) {
                ranks--;
                break;
            }
    TL_TRY(tl_an_table_int(m, ranks));
    TL_TRY(tl_an_table_num(m, US(s1 - s0), 1));
    TL_TRY(tl_an_table_num(m, US(a1 - a0), 1));
    TL_TRY(tl_an_table_int(m, last));
    TL_TRY(tl_an_table_num(m, US(e1 - e0), 1));
    /* one collective's kernels run together on the common clock: the
     * last start before the first end; a match that does not is two
     * different operations (other process groups, a sampled window) */
    int together = a1 < first_end;
    TL_TRY(tl_an_table_str(m, together ? "yes" : "no"));
    if (together && a1 - a0 > *worst) {
        *worst = a1 - a0;
        *worst_i = i;
    }
    return TL_OK;
}

/* Every operation of the first rank matched on the others (same_op), its
 * skew raw and on the estimated common clock; *worst: the largest skew of
 * a match whose kernels ran together, at r[*worst_i]. */
static tl_status matched_table(const crow_out *r, size_t n, const rank_conc *rc, size_t nr, int one_clock,
                               int64_t *worst, size_t *worst_i)
{
    tl_status st = TL_OK;
    tl_an_table *m = NULL;
    op_rows o = {0};
    channel_pairs cp = {0};
    size_t *who = malloc((n + 1) * sizeof *who); /* an operation and its partners */
    TL_CHECKGOTO(who, TL_ERR_NOMEM, st, fail, "%zu collectives", n);
    TL_TRYGOTO(tl_an_table_create(&m, "matched across ranks"), st, fail);
    TL_TRYGOTO(tl_an_table_meta(m, "match", "(step, pg, op, n-th in the step) on every rank given (a send/recv "
                                            "channel, \"send 0->2\": on its two ranks); together: "
                                            "the kernels overlap on %s (else the match pairs different "
                                            "operations, e.g. other process groups)",
                                common_clock(one_clock)),
               st, fail);
    for (size_t k = 1; k < nr && one_clock; k++)
        TL_TRYGOTO(tl_an_table_meta(m, "clock", "rank %d: the export's one session clock, rank %d's: no offset",
                                    rc[k].rank, rc[0].rank),
                   st, fail);
    for (size_t k = 1; k < nr && !one_clock; k++) {
        if (rc[k].noffset) {
            TL_TRYGOTO(tl_an_table_meta(m, "clock", "rank %d: each host's own clock (Kineto measures no offsets); "
                                                    "offset to rank %d estimated %+.1f us from %d matched ends",
                                        rc[k].rank, rc[0].rank, US(rc[k].offset), rc[k].noffset),
                       st, fail);
            continue;
        }
        /* operations pair by step: a rank without steps pairs with none of a rank with them (before: "estimated
         * +0.0 us from 0 matched ends") */
        char why[64] = "";
        if (!rc[k].nsteps != !rc[0].nsteps)
            snprintf(why, sizeof why, " (rank %d has no ProfilerStep)", rc[rc[k].nsteps ? 0 : k].rank);
        TL_TRYGOTO(tl_an_table_meta(m, "clock", "rank %d: each host's own clock (Kineto measures no offsets); "
                                                "offset not estimated: no operation matched%s",
                                    rc[k].rank, why),
                   st, fail);
    }
    static const char *const mcols[][2] = {{"step", ""}, {"op", ""}, {"pg", ""}, {"seq", ""}, {"ranks", ""},
                                           {"skew_raw", "us"}, {"skew", "us"}, {"last_rank", ""},
                                           {"end_spread", "us"}, {"together", ""}};
    for (size_t j = 0; j < sizeof mcols / sizeof mcols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(m, mcols[j][0], mcols[j][1], j == 1 || j == 2 || j == 9), st, fail);
    TL_TRYGOTO(op_rows_build(r, n, &o), st, fail);
    TL_TRYGOTO(channel_pairs_build(r, n, rc, nr, &cp), st, fail);
    for (size_t i = 0, c = 0; i < n; i++) {
        if (r[i].ch.n) { /* paired by its messages: with its partners, a pair of one each once */
            size_t j = c++, np = cp.pp.first[j + 1] - cp.pp.first[j], *pt = cp.pp.partner + cp.pp.first[j];
            /* shown from the earlier of the two, unless that one is left whole (a channel of it
             * unmatched) and shows none: then rank 1's send paired with rank 0's batch had no row */
            int shown = np == 1 && *pt < j && !cp.pp.whole[*pt] && cp.pp.first[*pt + 1] - cp.pp.first[*pt] == 1;
            if (cp.pp.whole[j] || !np || shown) continue;
            who[0] = i;
            for (size_t p = 0; p < np; p++) who[p + 1] = cp.row[pt[p]];
            TL_TRYGOTO(matched_row(m, r, rc, nr, who, np + 1, 1, worst, worst_i), st, fail);
            continue;
        }
        /* each operation once, from its first rank's row: a channel's ends may both be ranks other than the
         * first (a pipeline's 1->3), whose matches were left out when only the first rank's rows were walked */
        if (o.at[o.from[i]] != i || o.to[i] - o.from[i] < 2) continue;
        TL_TRYGOTO(matched_row(m, r, rc, nr, o.at + o.from[i], o.to[i] - o.from[i], 0, worst, worst_i), st, fail);
    }
    putchar('\n');
    TL_TRYGOTO(tl_an_emit(m, NULL), st, fail);
fail:
    tl_an_table_destroy(&m);
    op_rows_free(&o);
    channel_pairs_free(&cp);
    free(who);
    return st;
}

/* The queued finding of a rank: tot ns behind the stream or an event (nev
 * rows, tev ns, behind an event wait the host recorded), the longest the
 * row wr. */
static void finding_queued(const crow_out *wr, int rank, int64_t tot, size_t nev, int64_t tev)
{
    int event = !strncmp(wr->behind, "event", 5);
    printf("# finding: rank %d: collectives waited %.1f us in all behind earlier work on their stream", rank, US(tot));
    if (nev) printf(" (%zu of them, %.1f us, behind an event wait the host recorded)", nev, US(tev));
    char where[64];
    printf("; longest: %s pg %s %s, %.1f us behind %s. %s\n", wr->op, wr->pg,
           step_say(wr->step, wr->seq, where, sizeof where), US(wr->waited), wr->behind + (event ? 7 : 8),
           event ? "Its stream waited for another's work: depend only on the tensors the collective reads, and it "
                "starts when they are ready."
           : strstr(wr->behind, "nccl")
               ? "Its process group runs its operations in order on one stream: fewer, larger collectives "
                 "(gradient buckets) or a second process group let it start at launch."
               : "It was queued behind compute on the same stream: a stream of its own for the process group "
                 "lets it start at launch.");
}

/* The findings, each naming the operation and its process group. */
static void print_findings(const crow_out *r, size_t n, const rank_conc *rc, size_t nr, int64_t worst,
                           size_t worst_i, int one_clock)
{
    for (size_t k = 0; k < nr; k++) {
        int64_t w = 0, tot = 0, tev = 0;
        size_t wi = n, nev = 0;
        for (size_t i = 0; i < n; i++) {
            /* what the rows show: behind the stream or an event wait
             * (before, the stream's alone, 27.4 ms fewer on trace_diff_control) */
            int event = !strncmp(r[i].behind, "event", 5);
            if (r[i].rank != rc[k].rank || (strncmp(r[i].behind, "stream", 6) && !event)) continue;
            tot += r[i].waited;
            /* the host-recorded ones apart, as diagnose says them */
            int host = !strncmp(r[i].behind, "event: cudaStreamWaitEvent, stream ", 35);
            tev += host ? r[i].waited : 0;
            nev += host && r[i].waited > 0;
            if (r[i].waited > w) {
                w = r[i].waited;
                wi = i;
            }
        }
        if (wi < n && tot > 0) finding_queued(&r[wi], rc[k].rank, tot, nev, tev);
        if (rc[k].comm > 0 && rc[k].multi > rc[k].comm / 10)
            printf("# finding: rank %d: two or more NCCL kernels ran at once for %.1f%% of communication time "
                   "(%d streams): they share the links and SMs.\n",
                   rc[k].rank, 100.0 * (double)rc[k].multi / (double)rc[k].comm, rc[k].nstreams);
    }
    char where[64];
    if (worst > 0)
        printf("# finding: largest arrival skew: %s pg %s %s: %.1f us on %s; the ranks that arrived first waited "
               "that long inside the kernel for the last.\n",
               r[worst_i].op, r[worst_i].pg, step_say(r[worst_i].step, r[worst_i].seq, where, sizeof where),
               US(worst), common_clock(one_clock));
}

/* What the operation columns rest on: a Kineto trace's CPU ops, or an
 * export's NCCL NVTX ranges, whose payloads the export does not keep */
static const char *const op_said[] = {
    "the nccl:* op (else record_param_comms' Collective name) around the kernel's launch; pg and elems from "
    "record_param_comms; bytes: the message, elems x dtype, else the nccl:* op's Input Dims x Input type (older "
    "traces give only these)",
    "NCCL's NVTX range around the kernel's launch (ncclAllReduce; in ncclGroupEnd the group's operations, "
    "ncclSend+ncclRecv); pg, elems, bytes: - (NCCL's NVTX payloads, communicator and message size, are not in an "
    "Nsight Systems export); step: the iteration holding the launch"};

static tl_status report(const char *input, const tl_an_common *c, crow_out *r, size_t n, rank_conc *rc, size_t nr,
                        const tl_an_meta *metas, const char *clock, int nsys)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    TL_TRYGOTO(tl_an_table_create(&t, "collectives"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "collectives", input), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "ranks", "%zu", nr), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "clock", "%s", clock), st, fail);
    for (size_t k = 0; k < nr; k++) {
        char say[512];
        if (tl_an_reruns_say(&metas[k], say, sizeof say))
            TL_TRYGOTO(tl_an_table_meta(t, "iterations", "%s", say), st, fail);
        if (tl_an_odd_rows_say(&metas[k], say, sizeof say))
            TL_TRYGOTO(tl_an_table_meta(t, "note", "%s", say), st, fail);
    }
    TL_TRYGOTO(tl_an_table_meta(t, "operation", "%s", op_said[nsys]), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "delay", "kernel start - launch call start; waited: the part spent behind "
                                            "`behind` (stream: the previous activity on the stream was still "
                                            "running at the launch; event: a wait on the stream)"),
               st, fail);
    static const char *const cols[][2] = {{"rank", ""}, {"step", ""}, {"op", ""}, {"pg", ""}, {"seq", ""},
                                          {"elems", ""}, {"bytes", ""}, {"stream", ""}, {"delay", "us"},
                                          {"waited", "us"}, {"duration", "us"}, {"behind", ""}};
    for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(t, cols[j][0], cols[j][1], j == 2 || j == 3 || j == 11), st, fail);
    for (size_t i = 0; i < n; i++) {
        TL_TRYGOTO(tl_an_table_row(t), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].rank), st, fail);
        TL_TRYGOTO(step_cell(t, r[i].step), st, fail);
        TL_TRYGOTO(tl_an_table_str(t, r[i].op), st, fail);
        TL_TRYGOTO(tl_an_table_str(t, r[i].pg), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].seq), st, fail);
        TL_TRYGOTO(r[i].nelems >= 0 ? tl_an_table_int(t, r[i].nelems) : tl_an_table_str(t, "-"), st, fail);
        TL_TRYGOTO(r[i].bytes >= 0 ? tl_an_table_int(t, r[i].bytes) : tl_an_table_str(t, "-"), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].stream), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, US(r[i].start - r[i].launch), 1), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, US(r[i].waited), 1), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, US(r[i].end - r[i].start), 1), st, fail);
        TL_TRYGOTO(tl_an_table_str(t, r[i].behind), st, fail);
    }
    TL_TRYGOTO(tl_an_emit(t, c->csv), st, fail);

    TL_TRYGOTO(concurrency_table(rc, nr), st, fail);

    /* across ranks */
    int64_t worst = -1;
    size_t worst_i = 0;
    if (nr > 1) TL_TRYGOTO(matched_table(r, n, rc, nr, nsys, &worst, &worst_i), st, fail);
    print_findings(r, n, rc, nr, worst, worst_i, nsys);
fail:
    tl_an_table_destroy(&t);
    return st;
}

/* The input's rank files: a Kineto trace or a folder of them, or the ranks
 * of an Nsight Systems export (FILE#R, with --iter-nvtx its iterations
 * from the program's ranges); else refused naming what it reads. */
static tl_status rank_files(const char *input, const tl_an_common *c, char ***files, size_t *nf, int *nsys)
{
    int found = 0;
    *nsys = tl_an_is_nsys(input);
    if (*nsys) return tl_an_run_files_nvtx(input, TL_AN_QUIET, c->iter_nvtx, files, nf);
    TL_TRY(tl_an_kineto_run_files(input, files, nf, &found));
    if (!found) TL_TRY(tl_an_input_kind(input)); /* a gzipped export named as one, as import names it */
    if (!found) TL_TRY(tl_an_kineto_refuse_other(input));
    TL_CHECK(found, TL_ERR_INVAL, "%s: collectives reads PyTorch profiler (Kineto) traces (a .json or .json.gz trace, "
             "or a folder of them) and Nsight Systems exports (nsys export --type sqlite); this is neither", input);
    return TL_OK;
}

/* Every rank read into cs's rows and conc[f] (metas[f]: its metadata). */
static tl_status read_ranks(char **files, size_t nf, cstate *cs, rank_conc *conc, tl_an_meta *metas)
{
    tl_status st = TL_OK;
    tl_kt_trace *t = NULL;
    for (size_t f = 0; f < nf && st == TL_OK; f++) {
        if (cs->nsys) {
            st = tl_kt_from_nsys(files[f], &t, &metas[f]);
        } else {
            st = tl_kt_load(files[f], &t);
            if (st == TL_OK) st = tl_kt_emit(t, NULL, NULL, &metas[f], NULL, NULL); /* its metadata: the clock */
            if (metas[f].rank_by_place) metas[f].rank = tl_an_rank_unclaimed(&metas[0].rank, f, sizeof *metas);
        }
        if (st == TL_OK) st = rank_rows(t, &metas[f], cs, &conc[f]);
        tl_kt_free(&t);
    }
    return st;
}

/* An --iter-range without an NCCL kernel launched in it: refused naming
 * the steps (Kineto) or iterations (an export, as every command's
 * --iter-range says them: tl_an_iters_had) the input has. */
static tl_status range_empty(const char *input, const tl_an_common *c, const cstate *cs, const tl_an_meta *m0)
{
    char have[640] = "no ProfilerStep", sel[48];
    if (cs->nsys) {
        tl_an_iter_span h = {cs->step_min, cs->step_max, cs->step_min <= cs->step_max ? cs->nsteps : 0};
        return TL_FAIL(TL_ERR_INVAL, "%s: no NCCL kernel launched in iterations %s (%s)", input,
                       tl_an_iters_str(c->iter_lo, c->iter_hi, sel, sizeof sel),
                       tl_an_iters_had(h, m0, have, sizeof have));
    }
    if (cs->step_min <= cs->step_max)
        snprintf(have, sizeof have, "ProfilerSteps %lld..%lld", (long long)cs->step_min, (long long)cs->step_max);
    return TL_FAIL(TL_ERR_INVAL, "%s: no NCCL kernel launched in ProfilerSteps %s (--iter-range); the trace has %s",
                   input, c->iters, have);
}

/* A trace without an NCCL kernel has nothing collectives reads: refused
 * (exit 1, as a range without one) saying what it has instead, where an
 * empty table and exit 0 read as a script's success. */
static tl_status no_nccl(const char *input, const cstate *cs, size_t nf)
{
    return TL_FAIL(TL_ERR_INVAL, "%s: no NCCL kernel: the trace has %zu kernel%s on %zu rank%s, none of them NCCL's; "
                   "collectives reads NCCL kernels (a program's all-reduces, sends and receives through NCCL)",
                   input, cs->nkernels, cs->nkernels == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
}

int tl_an_cmd_collectives(int argc, char **argv)
{
    tl_an_common c;
    memset(&c, 0, sizeof c);
    const tl_optgroup groups[] = {
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &c},
    };
    const tl_optspec spec = {.program = "trilap-analyze",
                             .command = "collectives",
                             .usage = "[options] TRACE.json[.gz]|DIR|FILE.sqlite",
                             .purpose = "PyTorch profiler (Kineto) traces and Nsight Systems exports: every NCCL "
                                        "kernel with the operation and process group it served, its launch delay "
                                        "and what it waited behind; communication concurrency; operations matched "
                                        "across ranks with their skew.",
                             .groups = groups, .ngroups = 1, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &c);
    if (rc >= 0) return rc;
    const char *input = pr.positional[0];
    char **files = NULL;
    size_t nf = 0;
    cstate cs = {.lo = c.iter_lo, .hi = c.iter_hi, .ranged = c.iters != NULL, .step_min = INT64_MAX,
                 .step_max = INT64_MIN};
    rank_conc *conc = NULL;
    tl_an_meta *metas = NULL;
    tl_status st = rank_files(input, &c, &files, &nf, &cs.nsys);
    if (st != TL_OK) goto fail;
    TL_TRYGOTO(tl_an_names_create(&cs.keys), st, fail);
    conc = calloc(nf ? nf : 1, sizeof *conc);
    metas = calloc(nf ? nf : 1, sizeof *metas);
    TL_CHECKGOTO(conc && metas, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    TL_TRYGOTO(read_ranks(files, nf, &cs, conc, metas), st, fail);
    if (!cs.n) {
        st = no_nccl(input, &cs, nf);
        goto fail;
    }
    if (c.iters && !cs.n_in) {
        st = range_empty(input, &c, &cs, &metas[0]);
        goto fail;
    }
    /* an export's ranks share the session's clock: no offset to estimate */
    if (!cs.nsys) TL_TRYGOTO(offsets(cs.rows, cs.n, conc, nf), st, fail);
    keep_range(&cs);
    char clock[512];
    tl_an_clock_say(metas, nf, sizeof *metas, clock, sizeof clock);
    TL_TRYGOTO(report(input, &c, cs.rows, cs.n, conc, nf, metas, clock, cs.nsys), st, fail);
fail:
    tl_an_run_files_free(&files, nf);
    free(cs.rows);
    tl_an_names_destroy(&cs.keys);
    free(conc);
    free(metas);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
