/* Communication operations matched across ranks. An NCCL collective or
 * send/recv, or a host-staged exchange, can only move data once every rank
 * of it has arrived. Where the trace names the operation a kernel served
 * (an "op:" row: Kineto's collective and process group), the seq-th
 * operation of that name in an iteration (by launch) is the seq-th on every
 * other rank: one kernel (SendRecv) may serve several collectives in a
 * different order on each rank, so the kernel's name cannot pair them.
 * Elsewhere the k-th operation of one name on one rank is the k-th of that
 * name on every other rank (NCCL runs a communicator's operations in issue
 * order; trilap's host exchanges are collective calls in program order).
 * On the aligned clock, the time an operation spends before its last rank
 * starts it is waiting (skew), the rest is transfer (DESIGN.md "Wave 3").
 * (iteration, name)s whose count differs between ranks are left unmatched
 * and counted. */
#include "analysis/analysis.h"
#include "analysis/grow.h"

#include <stdlib.h>
#include <string.h>

static int cmp_opseq(const void *a, const void *b)
{
    const tl_an_opseq *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

void tl_an_opseq_number(tl_an_opseq *v, size_t n)
{
    if (n > 1) qsort(v, n, sizeof *v, cmp_opseq);
    for (size_t i = 0; i < n; i++)
        v[i].seq = i && v[i - 1].group == v[i].group && v[i - 1].key == v[i].key ? v[i - 1].seq + 1 : 0;
}

int tl_an_op_together(const tl_an_op *op) { return op->arrive < op->first_end; }

int tl_an_op_waits(const tl_an_op *op) { return !op->post && tl_an_op_together(op); }

/* The communication operations of a loaded rank (before any split),
 * numbered for pairing: at is the index in rk->v. */
static tl_status rank_opseq(const tl_an_rank *rk, tl_an_opseq **out, size_t *nout)
{
    *nout = 0;
    tl_an_opseq *q = *out = malloc((rk->n ? rk->n : 1) * sizeof *q);
    TL_CHECK(q, TL_ERR_NOMEM, "%zu communication operations", rk->n);
    size_t m = 0;
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (!tl_an_ival_is_comm_op(v) || (v->flags & TL_AN_F_SPLIT)) continue;
        const tl_an_oplabel *ol = v->kind == TL_KIND_KERNEL ? tl_an_rank_oplabel(rk, v) : NULL;
        q[m++] = ol ? (tl_an_opseq){.group = v->iter, .launch = ol->launch, .start = v->start, .key = ol->key, .at = j}
                    : (tl_an_opseq){.group = TL_AN_WHOLE, .launch = v->start, .start = v->start, .key = v->name,
                                    .at = j};
    }
    tl_an_opseq_number(q, m);
    *nout = m;
    return TL_OK;
}

/* One rank's operation as the matching needs it, in opseq order. */
typedef struct rop {
    int64_t group, start, end, iter;
    uint32_t key, label;
    int post; /* a non-blocking post (tl_an_mark_is_post) */
} rop;

typedef struct rank_ops {
    rop *v;
    size_t n;
    int shared; /* reads rank 0's very clock (metadata clock_shared): no offset to estimate */
    int cut;    /* its file cut short (tl_an_meta.window_cut): it holds a prefix of its operations */
} rank_ops;

static tl_status collect(const char *path, int flags, tl_an_names *names, rank_ops *ro)
{
    tl_an_rank rk;
    tl_an_opseq *q = NULL;
    size_t m = 0;
    tl_status st = TL_OK;
    TL_TRY(tl_an_rank_load(path, flags, names, &rk));
    ro->shared = rk.meta.clock_shared[0] != '\0';
    ro->cut = rk.meta.window_cut;
    TL_TRYGOTO(rank_opseq(&rk, &q, &m), st, fail);
    ro->v = malloc((m ? m : 1) * sizeof *ro->v);
    TL_CHECKGOTO(ro->v, TL_ERR_NOMEM, st, fail, "%zu communication operations", m);
    for (size_t i = 0; i < m; i++) {
        const tl_an_ival *v = &rk.v[q[i].at];
        const tl_an_oplabel *ol = q[i].group != TL_AN_WHOLE ? tl_an_rank_oplabel(&rk, v) : NULL;
        ro->v[i] = (rop){.group = q[i].group, .start = v->start, .end = v->end, .iter = v->iter, .key = q[i].key,
                         .label = ol ? ol->label : q[i].key,
                         .post = v->kind == TL_KIND_HOST && tl_an_mark_is_post(tl_an_names_get(names, v->name))};
    }
    ro->n = m;
fail:
    free(q);
    tl_an_rank_free(&rk);
    return st;
}

/* Operations of (group, key) on one rank: [lo, hi) of its sorted list. */
static void key_range(const rank_ops *ro, int64_t group, uint32_t key, size_t *lo, size_t *hi)
{
    size_t a = 0, b = ro->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const rop *x = &ro->v[m];
        if (x->group < group || (x->group == group && x->key < key)) a = m + 1;
        else b = m;
    }
    *lo = a;
    while (a < ro->n && ro->v[a].group == group && ro->v[a].key == key) a++;
    *hi = a;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void tl_an_ops_free(tl_an_ops *o)
{
    if (!o) return;
    free(o->op);
    free(o->offset);
    free(o->ends_est);
    memset(o, 0, sizeof *o);
}

static tl_status add_op(tl_an_ops *o, const tl_an_op *op)
{
    TL_TRY(TL_AN_GROW(o->op, o->nop, o->capop, "matched operations"));
    o->op[o->nop++] = *op;
    return TL_OK;
}

/* The k-th operation of (group, key) on every rank: one operation, its
 * times on the first rank's clock (each rank's minus its offset). */
static tl_status match_one(tl_an_ops *o, const rank_ops *ro, size_t nf, const size_t *lo, size_t k)
{
    const rop *r0 = &ro[0].v[lo[0] + k];
    tl_an_op op = {.name = r0->key, .label = r0->label, .named = r0->group != TL_AN_WHOLE, .group = r0->group,
                   .k = (int64_t)k, .post = r0->post, .arrive = INT64_MIN, .first = INT64_MAX, .first_end = INT64_MAX};
    for (size_t f = 0; f < nf; f++) {
        const rop *x = &ro[f].v[lo[f] + k];
        int64_t start = x->start - o->offset[f], end = x->end - o->offset[f];
        if (start > op.arrive) {
            op.arrive = start;
            op.last_rank = (int)f;
            op.iter = x->iter;
        }
        if (start < op.first) op.first = start;
        if (end < op.first_end) op.first_end = end;
    }
    return add_op(o, &op);
}

int64_t tl_an_offset_median(int64_t *d, size_t n)
{
    if (!n) return 0;
    qsort(d, n, sizeof *d, cmp_i64);
    return d[n / 2];
}

/* Each rank's offset to the first: the median over the pairs of (its end -
 * the first rank's end); a collective ends on all its ranks together. A
 * rank on the first's very clock gets none: the median is then the spread
 * of the ends, kept as data (before, it was applied, and the "# clock:"
 * line gave an offset to a rank the "# rank:" line said had none). */
static tl_status estimate_offsets(tl_an_ops *o, const rank_ops *ro, size_t nf, const size_t *glo, const size_t *gcnt,
                                  size_t ng)
{
    size_t npairs = 0;
    for (size_t g = 0; g < ng; g++) npairs += gcnt[g];
    int64_t *d = malloc((npairs ? npairs : 1) * sizeof *d);
    TL_CHECK(d, TL_ERR_NOMEM, "%zu matched operations", npairs);
    for (size_t f = 1; f < nf; f++) {
        size_t m = 0;
        for (size_t g = 0; g < ng; g++)
            for (size_t k = 0; k < gcnt[g]; k++)
                d[m++] = ro[f].v[glo[g * nf + f] + k].end - ro[0].v[glo[g * nf] + k].end;
        o->ends_est[f] = tl_an_offset_median(d, m);
        o->offset[f] = ro[f].shared ? 0 : o->ends_est[f];
    }
    o->offset_ends = npairs;
    free(d);
    return TL_OK;
}

/* How many of rank 0's operations of one (group, key), [lo[0], hi0), are
 * matched, lo[f] set for every rank: all, where every rank has as many;
 * else none, but where every rank with fewer than the most has its file cut
 * short: the operations its records hold are the first of each name
 * (records are written by start), so the first of the fewest pair up (a
 * rank cut at iteration 120 of 201 left all waiting unmatched, 0.0 us on
 * every rank). *left: the operations left whole (rank 0's where none pair
 * up, else those of the rank with most beyond the fewest). */
static size_t match_count(const rank_ops *ro, size_t nf, size_t *lo, size_t hi0, size_t *left)
{
    size_t cnt = hi0 - lo[0], mn = cnt, mx = cnt;
    for (size_t f = 1; f < nf; f++) {
        size_t hi;
        key_range(&ro[f], ro[0].v[lo[0]].group, ro[0].v[lo[0]].key, &lo[f], &hi);
        mn = hi - lo[f] < mn ? hi - lo[f] : mn;
        mx = hi - lo[f] > mx ? hi - lo[f] : mx;
    }
    *left = 0;
    if (mn == mx) return cnt;
    *left = cnt;
    for (size_t f = 0; f < nf; f++) {
        size_t a, b;
        key_range(&ro[f], ro[0].v[lo[0]].group, ro[0].v[lo[0]].key, &a, &b);
        if (b - a < mx && !ro[f].cut) return 0;
    }
    *left = mx - mn;
    return mn;
}

tl_status tl_an_ops_build(char *const *files, size_t nf, int flags, tl_an_names *names, tl_an_ops *o)
{
    tl_status st = TL_OK;
    memset(o, 0, sizeof *o);
    o->nranks = nf;
    o->offset = calloc(nf ? nf : 1, sizeof *o->offset);
    o->ends_est = calloc(nf ? nf : 1, sizeof *o->ends_est);
    if (!o->offset || !o->ends_est) tl_an_ops_free(o);
    TL_CHECK(o->offset, TL_ERR_NOMEM, "%zu ranks", nf);
    if (nf < 2) return TL_OK; /* one rank waits for nobody */
    size_t *glo = NULL, *gcnt = NULL, ng = 0, capg = 0;
    rank_ops *ro = calloc(nf, sizeof *ro);
    TL_CHECKGOTO(ro, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    for (size_t f = 0; f < nf; f++) TL_TRYGOTO(collect(files[f], flags, names, &ro[f]), st, fail);
    /* the pairs: every (group, key) rank 0 has, as often on every rank; one
     * some other rank lacks or has more of is unmatched */
    for (size_t i = 0; i < ro[0].n;) {
        /* each from a copy of the capacity: one grown, the other not, leaves
         * both as long as capg says (the grown one longer, harmlessly) */
        size_t caplo = capg, capcnt = capg;
        TL_TRYGOTO(tl_an_grow(&glo, &caplo, ng, nf * sizeof *glo, "operation names"), st, fail);
        TL_TRYGOTO(TL_AN_GROW(gcnt, ng, capcnt, "operation names"), st, fail);
        capg = capcnt;
        size_t *lo = &glo[ng * nf], hi0;
        key_range(&ro[0], ro[0].v[i].group, ro[0].v[i].key, &lo[0], &hi0);
        i = hi0;
        size_t left = 0, mn = match_count(ro, nf, lo, hi0, &left);
        if (left) {
            o->unmatched_names++;
            o->unmatched_ops += left;
        }
        if (mn) gcnt[ng++] = mn;
    }
    if (flags & TL_AN_ALIGN_ENDS) TL_TRYGOTO(estimate_offsets(o, ro, nf, glo, gcnt, ng), st, fail);
    for (size_t g = 0; g < ng; g++)
        for (size_t k = 0; k < gcnt[g]; k++) TL_TRYGOTO(match_one(o, ro, nf, &glo[g * nf], k), st, fail);
fail:
    for (size_t f = 0; ro && f < nf; f++) free(ro[f].v);
    free(ro);
    free(glo);
    free(gcnt);
    if (st != TL_OK) tl_an_ops_free(o);
    return st;
}

/* The matched operation (group, key, seq), or NULL. */
static tl_an_op *find_op(tl_an_ops *o, const tl_an_opseq *q)
{
    size_t a = 0, b = o->nop;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const tl_an_op *x = &o->op[m];
        int less = x->group != q->group ? x->group < q->group : x->name != q->key ? x->name < q->key : x->k < q->seq;
        if (less) a = m + 1;
        else b = m;
    }
    if (a == o->nop) return NULL;
    tl_an_op *x = &o->op[a];
    return x->group == q->group && x->name == q->key && x->k == q->seq ? x : NULL;
}

static tl_status push_ival(tl_an_rank *rk, const tl_an_ival *v)
{
    TL_TRY(TL_AN_GROW(rk->v, rk->n, rk->cap, "intervals"));
    rk->v[rk->n++] = *v;
    return TL_OK;
}

void tl_an_split_free(tl_an_split *s)
{
    if (!s) return;
    free(s->by_name);
    s->by_name = NULL;
    s->nnames = s->capnames = 0;
}

/* Clipped to [w0, w1): the length of [a, b) inside the window. */
static int64_t clipped(int64_t a, int64_t b, int64_t w0, int64_t w1)
{
    if (a < w0) a = w0;
    if (b > w1) b = w1;
    return b > a ? b - a : 0;
}

static tl_status count_split(tl_an_split *sum, const tl_an_op *op, int counted, int64_t wait, int64_t transfer)
{
    uint32_t name = op->name;
    size_t i = 0;
    while (i < sum->nnames && sum->by_name[i].name != name) i++;
    if (i == sum->nnames) {
        TL_TRY(TL_AN_GROW(sum->by_name, i, sum->capnames, "operation names"));
        sum->by_name[sum->nnames++] = (tl_an_split_sum){.name = name, .named = op->named};
    }
    tl_an_split_sum *b = &sum->by_name[i];
    b->matched += (size_t)counted;
    b->wait_ns += wait;
    b->transfer_ns += transfer;
    sum->matched += (size_t)counted;
    sum->wait_ns += wait;
    sum->transfer_ns += transfer;
    return TL_OK;
}

/* Who came last at an operation counted on rank file f, and the most
 * delayed of them; only an operation that waits (tl_an_op_waits) has one:
 * a pair whose kernels did not run together is not one operation, and a
 * post waits for nobody (overlap's `last`, diagnose's "another rank came
 * last" and the waiting figures count the same operations); the operation
 * is in the selection (in_span), so overlap's most delayed operations hold
 * every rank's most delayed. That one is an operation of the loop where
 * any is: a set-up exchange before iteration 0 waits for the ranks'
 * start-up, not for what late-ranks is about (it was the example on every
 * rank of a 4-rank thread run, 835.9 us late, "no iteration marked"). */
static void count_arrival(tl_an_split *sum, const tl_an_ops *o, tl_an_op *op, size_t f)
{
    int64_t delay = op->arrive - op->first;
    op->in_span = 1;
    sum->together += (size_t)tl_an_op_together(op);
    if (delay <= 0 || !tl_an_op_waits(op)) return;
    if ((size_t)op->last_rank == f) sum->last++;
    else sum->others_last++;
    const tl_an_op *w = sum->worst != SIZE_MAX ? &o->op[sum->worst] : NULL;
    int looped = op->iter >= 0, w_looped = w && w->iter >= 0;
    if (!w || looped > w_looped || (looped == w_looped && delay > w->arrive - w->first))
        sum->worst = (size_t)(op - o->op);
}

tl_status tl_an_ops_split(tl_an_ops *o, size_t f, tl_an_rank *rk, int64_t w0, int64_t w1, tl_an_split *sum)
{
    memset(sum, 0, sizeof *sum);
    sum->worst = SIZE_MAX;
    if (!o->nop) return TL_OK;
    tl_an_opseq *q = NULL;
    size_t m = 0;
    tl_status st = TL_OK;
    TL_TRYGOTO(rank_opseq(rk, &q, &m), st, fail);
    size_t n0 = rk->n;
    for (size_t i = 0; i < m; i++) {
        tl_an_op *op = find_op(o, &q[i]);
        if (!op) continue;
        size_t j = q[i].at;
        tl_an_ival v = rk->v[j];
        int64_t arrive = op->arrive + (f < o->nranks && o->offset ? o->offset[f] : 0); /* on this rank's clock */
        /* counted wherever its part here has time in the window (or, of
         * no length, lies in it), so an operation counted is one whose
         * times are summed and the other way round */
        int counted = tl_an_ival_in_selection(&v, w0, w1);
        if (counted) count_arrival(sum, o, op, f);
        if (!tl_an_op_waits(op) || arrive <= v.start || arrive >= v.end) {
            /* a post (it waits for nobody), ranks that did not run it
             * together (not one operation), first to nobody's wait, or a
             * peer that began after this one ended: left whole */
            int64_t whole = clipped(v.start, v.end, w0, w1);
            if (counted) TL_TRYGOTO(count_split(sum, op, counted, 0, whole), st, fail);
            continue;
        }
        rk->v[j].end = arrive;
        rk->v[j].flags |= TL_AN_F_WAIT;
        int64_t wait = clipped(v.start, arrive, w0, w1), transfer = clipped(arrive, v.end, w0, w1);
        if (counted) TL_TRYGOTO(count_split(sum, op, counted, wait, transfer), st, fail);
        tl_an_ival rest = v;
        rest.start = arrive;
        rest.flags |= TL_AN_F_SPLIT;
        TL_TRYGOTO(push_ival(rk, &rest), st, fail);
    }
    if (rk->n != n0) tl_an_ival_sort(rk->v, rk->n);
fail:
    free(q);
    return st;
}
