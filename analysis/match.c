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
 * An operation whose peers a trace names (peers.<i>: a halo, a Kineto
 * trace's collective of a process group of some of the ranks) is paired
 * with those ranks alone; a Kineto send, recv or batch keyed by its
 * channels with the operations holding the same-numbered messages of its
 * channels at their other ends (p2p_channels.h).
 * On the aligned clock, the time an operation spends before its last rank
 * starts it is waiting (skew), the rest is transfer (DESIGN.md "Wave 3").
 * (iteration, name)s whose count differs between ranks are left unmatched
 * and counted. */
#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "analysis/p2p_channels.h"

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
    int64_t group, launch, start, end, iter; /* launch: its issue (a named operation's launch, else its start) */
    uint32_t key, label;
    uint8_t post;       /* a non-blocking post (tl_an_mark_is_post) */
    uint8_t p2p;        /* point to point: a host mark on the p2p lane, or an NCCL p2p kernel */
    uint8_t p2p_kernel; /* an NCCL p2p kernel (a trace's nccl:p2p peers cover it) */
    uint8_t chan;       /* keyed by its channels (a Kineto send, recv or batch): paired by its messages */
} rop;

/* A channel-keyed operation of a rank: v[at], the k-th of its key in its iteration. */
typedef struct chan_op {
    tl_an_p2p_op p;
    size_t at;
    int64_t k;
} chan_op;

typedef struct rank_ops {
    rop *v;
    size_t n;
    int shared; /* reads rank 0's very clock (metadata clock_shared): no offset to estimate */
    int cut;    /* its file cut short (tl_an_meta.window_cut): it holds a prefix of its operations */
    int rank;   /* its rank number: what peers name */
    tl_an_peers peers; /* the peers its trace names of its point-to-point operations */
    chan_op *chan;     /* its channel-keyed operations */
    size_t nchan;
} rank_ops;

/* The channels of ro's operation i, where its key holds them (a key
 * beginning with TL_AN_P2P_CHANNEL and a rank): kept for the pairing
 * (k: its place among its key's operations in its iteration). A key that
 * begins so but holds no channel text, or a channel that is not this
 * rank's, is a damaged or hand-edited trace: refused, naming the file. */
static tl_status keep_channels(const char *path, tl_an_names *names, rank_ops *ro, size_t i, int64_t k, size_t *cap)
{
    rop *x = &ro->v[i];
    const char *key = tl_an_names_get(names, x->key);
    char why[160];
    size_t rest = 0;
    chan_op c = {.p = {.group = x->group, .launch = x->launch, .start = x->start}, .at = i, .k = k};
    tl_an_p2p_key kind = tl_an_p2p_channels_read(key, &c.p.ch, &rest, why, sizeof why);
    if (kind == TL_AN_P2P_KEY_OTHER) return TL_OK;
    if (kind == TL_AN_P2P_KEY_BAD)
        return TL_FAIL(TL_ERR_PARSE, "%s: operation '%.200s': %s (a damaged or hand-edited trace)", path, key, why);
    for (int j = 0; j < c.p.ch.n; j++)
        if (c.p.ch.ch[j].src != ro->rank && c.p.ch.ch[j].dst != ro->rank)
            return TL_FAIL(TL_ERR_PARSE,
                           "%s: operation '%.200s': channel %d->%d is not rank %d's (a damaged or hand-edited trace)",
                           path, key, (int)c.p.ch.ch[j].src, (int)c.p.ch.ch[j].dst, ro->rank);
    TL_TRY(tl_an_names_intern(names, key + rest, &c.p.pg));
    TL_TRY(TL_AN_GROW(ro->chan, ro->nchan, *cap, "point-to-point operations"));
    ro->chan[ro->nchan++] = c;
    x->chan = 1;
    return TL_OK;
}

static tl_status collect(const char *path, int flags, tl_an_names *names, rank_ops *ro)
{
    tl_an_rank rk;
    tl_an_opseq *q = NULL;
    size_t m = 0;
    tl_status st = TL_OK;
    TL_TRY(tl_an_rank_load(path, flags, names, &rk));
    ro->shared = rk.meta.clock_shared[0] != '\0';
    ro->cut = rk.meta.window_cut;
    ro->rank = rk.meta.rank;
    ro->peers = rk.peers; /* kept: the rest of the rank goes */
    memset(&rk.peers, 0, sizeof rk.peers);
    TL_TRYGOTO(rank_opseq(&rk, &q, &m), st, fail);
    ro->v = malloc((m ? m : 1) * sizeof *ro->v);
    TL_CHECKGOTO(ro->v, TL_ERR_NOMEM, st, fail, "%zu communication operations", m);
    for (size_t i = 0; i < m; i++) {
        const tl_an_ival *v = &rk.v[q[i].at];
        const tl_an_oplabel *ol = q[i].group != TL_AN_WHOLE ? tl_an_rank_oplabel(&rk, v) : NULL;
        int kernel = v->kind == TL_KIND_KERNEL;
        ro->v[i] = (rop){.group = q[i].group, .launch = q[i].launch, .start = v->start, .end = v->end,
                         .iter = v->iter, .key = q[i].key,
                         .label = ol ? ol->label : q[i].key,
                         .post = !kernel && tl_an_mark_is_post(tl_an_names_get(names, v->name)),
                         .p2p = kernel ? v->cat == TL_CAT_P2P : v->lane == TL_ROLE_P2P,
                         .p2p_kernel = kernel && v->cat == TL_CAT_P2P};
    }
    ro->n = m;
    for (size_t i = 0, key_lo = 0, cap = 0; i < m; i++) {
        const rop *x = &ro->v[i];
        if (i && (ro->v[i - 1].group != x->group || ro->v[i - 1].key != x->key)) key_lo = i;
        if (x->group != TL_AN_WHOLE)
            TL_TRYGOTO(keep_channels(path, names, ro, i, (int64_t)(i - key_lo), &cap), st, fail);
    }
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

const char *tl_an_ops_pairing_say(const tl_an_ops *o, const tl_an_names *names, char *buf, size_t n)
{
    if (!o->p2p_all) return NULL;
    size_t room = sizeof o->p2p_all_name / sizeof o->p2p_all_name[0], len = 0;
    len += (size_t)snprintf(buf, n, "point-to-point operations (");
    for (size_t i = 0; i < o->p2p_all && i < room && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%.60s", i ? ", " : "",
                                tl_an_names_short(names, o->p2p_all_name[i]));
    if (len < n)
        snprintf(buf + len, n - len,
                 "%s) were paired across every rank (of their process group, where the trace names it): the trace "
                 "does not name each rank's peers (no peers.N metadata: a trace written before it, Nsight Systems, a "
                 "Kineto trace whose sends and recvs name no other end, or a batch of more than %d channels), so a "
                 "rank's waiting may count ranks it does not exchange with",
                 o->p2p_all > room ? ", ..." : "", TL_AN_P2P_MAX_CHANNELS);
    return buf;
}

static tl_status add_op(tl_an_ops *o, const tl_an_op *op)
{
    TL_TRY(TL_AN_GROW(o->op, o->nop, o->capop, "matched operations"));
    o->op[o->nop++] = *op;
    return TL_OK;
}

/* The k-th operation of (group, key) on the rank files who[0..nwho) (who[0]
 * names and labels it): one operation, its times on the first rank's clock
 * (each rank's minus its offset). view: the file whose operation paired
 * with its peers alone (-1: every rank's); ranks its label. */
static tl_status match_one(tl_an_ops *o, const rank_ops *ro, const size_t *who, size_t nwho, const size_t *lo,
                           size_t k, int view, uint32_t ranks)
{
    const rop *r0 = &ro[who[0]].v[lo[who[0]] + k];
    tl_an_op op = {.name = r0->key, .label = r0->label, .named = r0->group != TL_AN_WHOLE, .group = r0->group,
                   .k = (int64_t)k, .post = r0->post, .arrive = INT64_MIN, .first = INT64_MAX, .first_end = INT64_MAX,
                   .view = view, .ranks = ranks};
    for (size_t i = 0; i < nwho; i++) {
        size_t f = who[i];
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
 * line gave an offset to a rank the "# rank:" line said had none). Only
 * operations matched across every rank count: a halo paired with its peers
 * alone is no pair of every rank with the first. */
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

/* How many of who[0]'s operations of x's (group, key) are matched on the
 * rank files who[0..nwho), lo[who[i]] set for each: all, where every one
 * has as many; else none, but where every rank with fewer than the most has
 * its file cut short: the operations its records hold are the first of
 * each name (records are written by start), so the first of the fewest pair
 * up (a rank cut at iteration 120 of 201 left all waiting unmatched, 0.0 us
 * on every rank). *left: the operations left whole (who[0]'s where none
 * pair up, else those of the rank with most beyond the fewest). */
static size_t match_count(const rank_ops *ro, const size_t *who, size_t nwho, const rop *x, size_t *lo, size_t *left)
{
    size_t cnt = 0, mn = SIZE_MAX, mx = 0, hi;
    for (size_t i = 0; i < nwho; i++) {
        key_range(&ro[who[i]], x->group, x->key, &lo[who[i]], &hi);
        size_t c = hi - lo[who[i]];
        if (!i) cnt = c;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
    }
    *left = 0;
    if (mn == mx) return cnt;
    *left = cnt;
    for (size_t i = 0; i < nwho; i++) {
        key_range(&ro[who[i]], x->group, x->key, &lo[who[i]], &hi);
        if (hi - lo[who[i]] < mx && !ro[who[i]].cut) return 0;
    }
    *left = mx - mn;
    return mn;
}

/* Whether some rank's trace names the peers of x's operation: then every
 * rank pairs it with its own peers (or, where its trace names none, with
 * every rank). A named operation (Kineto's) has them where it is a send or
 * recv channel (tl_kt_comm_key) or a collective of a process group of some
 * of the ranks, paired within its iteration. */
static int key_peered(const rank_ops *ro, size_t nf, const rop *x)
{
    for (size_t f = 0; f < nf; f++)
        if (tl_an_peers_find(&ro[f].peers, x->key, x->p2p_kernel)) return 1;
    return 0;
}

/* The rank files of f and of its peers in sets [s0, s1) of tp (tp NULL:
 * every rank's), f first, each once; a peer whose file is not in the run
 * (read with --accept-incomplete) is left out. */
static void peer_files(const rank_ops *ro, size_t nf, size_t f, const tl_trace_peers *tp, int s0, int s1, size_t *who,
                       size_t *nwho)
{
    *nwho = 0;
    who[(*nwho)++] = f;
    for (size_t g = 0; g < nf; g++) {
        int in = !tp && g != f;
        for (int i = tp ? tp->first[s0] : 0; tp && i < tp->first[s1] && !in; i++) in = ro[g].rank == tp->rank[i];
        for (size_t j = 0; j < *nwho && in; j++) in = who[j] != g;
        if (in) who[(*nwho)++] = g;
    }
}

/* "R:P,Q": rank R and the peers of set s (R:none, R:all without tp),
 * interned: the most delayed operations' `ranks`. */
static tl_status view_label(const rank_ops *ro, size_t f, const tl_trace_peers *tp, int s, tl_an_names *names,
                            uint32_t *id)
{
    char label[256];
    size_t len = (size_t)snprintf(label, sizeof label, "%d:%s", ro[f].rank,
                                  !tp ? "all" : tp->first[s] == tp->first[s + 1] ? "none" : "");
    for (int i = tp ? tp->first[s] : 0; tp && i < tp->first[s + 1] && len < sizeof label; i++)
        len += (size_t)snprintf(label + len, sizeof label - len, "%s%d", i > tp->first[s] ? "," : "", tp->rank[i]);
    return tl_an_names_intern(names, label, id);
}

/* Rank file f's operations of x's key, each paired with the same operation
 * of the peers f's trace names for it (the k-th with set k mod nsets), or
 * of every rank where it names none; counted over all its sets' ranks as
 * match_count counts; *matched: how many of f's paired (its first ones,
 * the rest left whole). */
static tl_status match_peered(tl_an_ops *o, const rank_ops *ro, size_t nf, size_t f, const rop *x, tl_an_names *names,
                              size_t *matched)
{
    const tl_trace_peers *tp = tl_an_peers_find(&ro[f].peers, x->key, x->p2p_kernel);
    int nsets = tp ? tp->nsets : 1;
    size_t *lo = malloc(nf * ((size_t)nsets + 2) * sizeof *lo), *who = lo + nf, *nwho = NULL, n = 0, unused;
    uint32_t *label = malloc((size_t)nsets * sizeof *label);
    nwho = malloc((size_t)nsets * sizeof *nwho);
    tl_status st = TL_OK;
    TL_CHECKGOTO(lo && label && nwho, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    peer_files(ro, nf, f, tp, 0, nsets, who, &n);
    *matched = match_count(ro, who, n, x, lo, &unused);
    for (int s = 0; s < nsets; s++) {
        peer_files(ro, nf, f, tp, s, s + 1, who + nf * (size_t)(s + 1), &nwho[s]);
        TL_TRYGOTO(view_label(ro, f, tp, s, names, &label[s]), st, fail);
    }
    for (size_t k = 0; k < *matched; k++) {
        size_t s = k % (size_t)nsets;
        TL_TRYGOTO(match_one(o, ro, who + nf * (s + 1), nwho[s], lo, k, (int)f, label[s]), st, fail);
    }
fail:
    free(lo);
    free(label);
    free(nwho);
    return st;
}

/* One peered (group, key) on each rank file: x[f] its first operation
 * there (NULL: none), n[f] how many, matched[f] how many of them paired. */
typedef struct peered_key {
    const rop **x;
    size_t *n, *matched;
} peered_key;

/* Whether rank file g is among f's peers of operation k of the key (f's
 * trace naming none of it: every rank is). */
static int peer_at(const rank_ops *ro, const peered_key *pk, size_t f, size_t g, size_t k)
{
    const tl_trace_peers *tp = tl_an_peers_find(&ro[f].peers, pk->x[f]->key, pk->x[f]->p2p_kernel);
    if (!tp) return 1;
    size_t s = k % (size_t)tp->nsets;
    for (int i = tp->first[s]; i < tp->first[s + 1]; i++)
        if (tp->rank[i] == ro[g].rank) return 1;
    return 0;
}

/* The key's operations left whole, each exchange once: rank file f's
 * operation k and g's operation k, each the other's peer for it, are one
 * exchange seen from its two ends, counted on the first file (before,
 * every rank's were added up: a pair whose counts differ, 4 and 3, gave
 * 7 where the same trace without peers, paired across every rank, gave
 * 4). An operation no peer left whole with it counts alone. */
static size_t whole_once(const rank_ops *ro, size_t nf, const peered_key *pk)
{
    size_t whole = 0;
    for (size_t f = 0; f < nf; f++)
        for (size_t k = pk->matched[f]; pk->x[f] && k < pk->n[f]; k++) {
            int seen = 0;
            for (size_t g = 0; g < f && !seen; g++)
                seen = pk->x[g] && k >= pk->matched[g] && k < pk->n[g] && peer_at(ro, pk, f, g, k) &&
                       peer_at(ro, pk, g, f, k);
            whole += !seen;
        }
    return whole;
}

/* A (group, key)'s first operation on rank file f, at i in its list. */
typedef struct key_at {
    const rop *x;
    size_t f, i;
} key_at;

static int cmp_key_at(const void *a, const void *b)
{
    const key_at *p = a, *q = b;
    if (p->x->group != q->x->group) return p->x->group < q->x->group ? -1 : 1;
    if (p->x->key != q->x->key) return p->x->key < q->x->key ? -1 : 1;
    if (p->f != q->f) return p->f < q->f ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

static int cmp_first_at(const void *a, const void *b)
{
    const key_at *p = a, *q = b;
    if (p->f != q->f) return p->f < q->f ? -1 : 1;
    return p->i < q->i ? -1 : p->i > q->i;
}

/* The (group, key)s whose peers some trace names, each once, in *keys:
 * the first operation of each on the first file that has it, in the order
 * of the files and their lists. Every file's (group, key)s sorted
 * together: each was looked for among those kept before it, quadratic in
 * a Kineto trace's (step, operation)s (1000 steps of 40 operations of a
 * process group of two: 2.4 s where the whole world's took 0.6 s). */
static tl_status peered_keys(const rank_ops *ro, size_t nf, const rop ***keys, size_t *nkeys)
{
    size_t n = 0, m = 0;
    for (size_t f = 0; f < nf; f++) n += ro[f].n;
    key_at *all = malloc((n ? n : 1) * sizeof *all);
    *keys = NULL;
    *nkeys = 0;
    TL_CHECK(all, TL_ERR_NOMEM, "%zu operations", n);
    n = 0;
    for (size_t f = 0; f < nf; f++)
        for (size_t i = 0; i < ro[f].n; i++)
            if (!i || ro[f].v[i - 1].group != ro[f].v[i].group || ro[f].v[i - 1].key != ro[f].v[i].key)
                all[n++] = (key_at){&ro[f].v[i], f, i};
    if (n) qsort(all, n, sizeof *all, cmp_key_at);
    for (size_t j = 0; j < n; j++) {
        int again = j && all[j - 1].x->group == all[j].x->group && all[j - 1].x->key == all[j].x->key;
        if (!again && !all[j].x->chan && key_peered(ro, nf, all[j].x)) all[m++] = all[j];
    }
    if (m) qsort(all, m, sizeof *all, cmp_first_at);
    *keys = malloc((m ? m : 1) * sizeof **keys);
    if (*keys)
        for (size_t j = 0; j < m; j++) (*keys)[j] = all[j].x;
    free(all);
    TL_CHECK(*keys, TL_ERR_NOMEM, "%zu operation names", m);
    *nkeys = m;
    return TL_OK;
}

static void note_p2p_all(tl_an_ops *o, uint32_t key);

/* A Kineto point-to-point operation whose peers are its process group's,
 * not its other end (a send or batch that names none, tl_kt_emit): paired
 * across the group, which the note says, as it says a pairing across every
 * rank. */
static int p2p_by_group(const rop *x, const tl_an_names *names)
{
    return x->p2p_kernel && x->group != TL_AN_WHOLE &&
           strncmp(tl_an_names_get(names, x->key), TL_AN_P2P_CHANNEL, sizeof TL_AN_P2P_CHANNEL - 1) != 0;
}

/* Every rank's operations whose peers some trace names, each rank's paired
 * with its own peers (match_peered); a name with any left whole is one
 * unmatched name, its operations left whole counted once each
 * (whole_once). */
static tl_status match_all_peered(tl_an_ops *o, const rank_ops *ro, size_t nf, tl_an_names *names)
{
    const rop **keys = NULL;
    size_t nkeys = 0, *counts = calloc(2 * nf, sizeof *counts);
    peered_key pk = {.x = calloc(nf, sizeof *pk.x), .n = counts, .matched = counts ? counts + nf : NULL};
    tl_status st = TL_OK;
    TL_CHECKGOTO(counts && pk.x, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    TL_TRYGOTO(peered_keys(ro, nf, &keys, &nkeys), st, fail);
    for (size_t i = 0; i < nkeys; i++) {
        if (nf > 2 && p2p_by_group(keys[i], names)) note_p2p_all(o, keys[i]->key);
        for (size_t f = 0; f < nf; f++) {
            size_t lo, hi;
            key_range(&ro[f], keys[i]->group, keys[i]->key, &lo, &hi);
            pk.x[f] = hi > lo ? &ro[f].v[lo] : NULL;
            pk.n[f] = hi - lo;
            pk.matched[f] = 0;
            if (pk.x[f]) TL_TRYGOTO(match_peered(o, ro, nf, f, pk.x[f], names, &pk.matched[f]), st, fail);
        }
        size_t whole = whole_once(ro, nf, &pk);
        o->unmatched_ops += whole;
        o->unmatched_names += whole > 0;
    }
fail:
    free(keys);
    free(counts);
    free(pk.x);
    return st;
}

/* Every rank's channel-keyed operations in one list, for the pairing:
 * op[j] is ro[at[j].f].chan[at[j].c]. */
typedef struct chan_at {
    size_t f, c;
} chan_at;

/* Channel operation j paired with its partners (pp): its arrival the
 * latest start among it and them, on rank file f's view; ranks "R:P,Q",
 * its rank and its partners'. */
static tl_status match_partners(tl_an_ops *o, const rank_ops *ro, const chan_at *at, const tl_an_p2p_pairs *pp,
                                size_t j, tl_an_names *names)
{
    const chan_op *c = &ro[at[j].f].chan[at[j].c];
    const rop *x = &ro[at[j].f].v[c->at];
    tl_an_op op = {.name = x->key, .label = x->label, .named = 1, .group = x->group, .k = c->k,
                   .arrive = INT64_MIN, .first = INT64_MAX, .first_end = INT64_MAX, .view = (int)at[j].f};
    char label[256];
    size_t len = (size_t)snprintf(label, sizeof label, "%d:", ro[at[j].f].rank);
    int64_t own_start = 0;
    int said = -1; /* the partners' ranks, each once (a batch's partners may be two ops of one rank) */
    for (size_t p = pp->first[j]; p <= pp->first[j + 1]; p++) {
        size_t i = p == pp->first[j] ? j : pp->partner[p - 1]; /* itself first: it is last on a tie */
        const rop *y = &ro[at[i].f].v[ro[at[i].f].chan[at[i].c].at];
        int64_t start = y->start - o->offset[at[i].f], end = y->end - o->offset[at[i].f];
        if (start > op.arrive) {
            op.arrive = start;
            op.last_rank = (int)at[i].f;
            op.iter = y->iter;
        }
        if (start < op.first) op.first = start;
        /* ran together where each partner overlaps this operation, not
         * each other (rank 1's recv may end before its send begins, both
         * partners of rank 0's batch): first_end is its own end, else a
         * partner's that ended before it began */
        if (i == j) {
            own_start = start;
            op.first_end = end;
        } else if (end <= own_start && end < op.first_end) {
            op.first_end = end;
        }
        int r = ro[at[i].f].rank;
        if (i != j && r != said && len < sizeof label)
            len += (size_t)snprintf(label + len, sizeof label - len, "%s%d", said < 0 ? "" : ",", r);
        if (i != j) said = r;
    }
    TL_TRY(tl_an_names_intern(names, label, &op.ranks));
    return add_op(o, &op);
}

/* Every rank's channel-keyed operations paired by their messages' order
 * (tl_an_p2p_channels_pair): each with the operations on its channels'
 * other ends that hold the same-numbered messages, one operation per
 * rank (view). A channel whose counts differ between its ends is one
 * unmatched name, its operations left whole (counted once each). */
static tl_status match_all_channels(tl_an_ops *o, const rank_ops *ro, size_t nf, tl_an_names *names)
{
    size_t n = 0;
    for (size_t f = 0; f < nf; f++) n += ro[f].nchan;
    if (!n) return TL_OK;
    tl_an_p2p_op *op = malloc(n * sizeof *op);
    chan_at *at = malloc(n * sizeof *at);
    int *rank = malloc(nf * sizeof *rank);
    uint8_t *cut = malloc(nf);
    tl_an_p2p_pairs pp = {0};
    tl_status st = TL_OK;
    TL_CHECKGOTO(op && at && rank && cut, TL_ERR_NOMEM, st, fail, "%zu point-to-point operations", n);
    n = 0;
    for (size_t f = 0; f < nf; f++) {
        rank[f] = ro[f].rank;
        cut[f] = (uint8_t)ro[f].cut;
        for (size_t c = 0; c < ro[f].nchan; c++) {
            op[n] = ro[f].chan[c].p;
            op[n].file = f;
            at[n++] = (chan_at){f, c};
        }
    }
    TL_TRYGOTO(tl_an_p2p_channels_pair(op, n, rank, cut, nf, &pp), st, fail);
    for (size_t j = 0; j < n; j++)
        if (!pp.whole[j]) TL_TRYGOTO(match_partners(o, ro, at, &pp, j, names), st, fail);
    o->unmatched_ops += pp.unmatched_ops;
    o->unmatched_names += pp.unmatched_channels;
fail:
    tl_an_p2p_pairs_free(&pp);
    free(op);
    free(at);
    free(rank);
    free(cut);
    return st;
}

static int cmp_op(const void *a, const void *b)
{
    const tl_an_op *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return x->view < y->view ? -1 : x->view > y->view;
}

/* A point-to-point operation paired across every rank of more than two:
 * noted for tl_an_ops_pairing_say (its first few names). */
static void note_p2p_all(tl_an_ops *o, uint32_t key)
{
    size_t room = sizeof o->p2p_all_name / sizeof o->p2p_all_name[0];
    /* once a name: a Kineto trace's are keyed per iteration, and the note
     * named one send three times over three steps */
    for (size_t i = 0; i < o->p2p_all && i < room; i++)
        if (o->p2p_all_name[i] == key) return;
    if (o->p2p_all < room) o->p2p_all_name[o->p2p_all] = key;
    o->p2p_all++;
}

/* The operations paired across every rank: every (group, key) rank 0 has
 * that no trace names peers of, as often on every rank; one some other
 * rank lacks or has more of is unmatched. glo[g * nf + f], gcnt[g]: where
 * pair g's operations start on file f, how many. */
static tl_status match_all(tl_an_ops *o, const rank_ops *ro, size_t nf, const size_t *every, size_t **glo,
                           size_t **gcnt, size_t *ng)
{
    size_t capg = 0;
    for (size_t i = 0, hi0; i < ro[0].n; i = hi0) {
        const rop *x = &ro[0].v[i];
        for (hi0 = i; hi0 < ro[0].n && ro[0].v[hi0].group == x->group && ro[0].v[hi0].key == x->key;) hi0++;
        if (x->chan || key_peered(ro, nf, x)) continue;
        if (x->p2p && nf > 2) note_p2p_all(o, x->key);
        /* each from a copy of the capacity: one grown, the other not, leaves
         * both as long as capg says (the grown one longer, harmlessly) */
        size_t caplo = capg, capcnt = capg;
        TL_TRY(tl_an_grow(glo, &caplo, *ng, nf * sizeof **glo, "operation names"));
        TL_TRY(TL_AN_GROW(*gcnt, *ng, capcnt, "operation names"));
        capg = capcnt;
        size_t left = 0, mn = match_count(ro, every, nf, x, &(*glo)[*ng * nf], &left);
        if (left) {
            o->unmatched_names++;
            o->unmatched_ops += left;
        }
        if (mn) (*gcnt)[(*ng)++] = mn;
    }
    return TL_OK;
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
    size_t *glo = NULL, *gcnt = NULL, ng = 0, *every = malloc(nf * sizeof *every);
    rank_ops *ro = calloc(nf, sizeof *ro);
    TL_CHECKGOTO(ro && every, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    for (size_t f = 0; f < nf; f++) every[f] = f;
    for (size_t f = 0; f < nf; f++) TL_TRYGOTO(collect(files[f], flags, names, &ro[f]), st, fail);
    TL_TRYGOTO(match_all(o, ro, nf, every, &glo, &gcnt, &ng), st, fail);
    if (flags & TL_AN_ALIGN_ENDS) TL_TRYGOTO(estimate_offsets(o, ro, nf, glo, gcnt, ng), st, fail);
    for (size_t g = 0; g < ng; g++)
        for (size_t k = 0; k < gcnt[g]; k++)
            TL_TRYGOTO(match_one(o, ro, every, nf, &glo[g * nf], k, -1, 0), st, fail);
    TL_TRYGOTO(match_all_peered(o, ro, nf, names), st, fail);
    TL_TRYGOTO(match_all_channels(o, ro, nf, names), st, fail);
    if (o->nop > 1) qsort(o->op, o->nop, sizeof *o->op, cmp_op);
fail:
    for (size_t f = 0; ro && f < nf; f++) {
        free(ro[f].v);
        free(ro[f].chan);
        tl_an_peers_free(&ro[f].peers);
    }
    free(ro);
    free(every);
    free(glo);
    free(gcnt);
    if (st != TL_OK) tl_an_ops_free(o);
    return st;
}

/* The operation (group, key, seq) as rank file f matched it: its own,
 * paired with its peers, else the one of every rank; NULL when none. */
static tl_an_op *find_op(tl_an_ops *o, const tl_an_opseq *q, size_t f)
{
    size_t a = 0, b = o->nop;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const tl_an_op *x = &o->op[m];
        int less = x->group != q->group ? x->group < q->group : x->name != q->key ? x->name < q->key : x->k < q->seq;
        if (less) a = m + 1;
        else b = m;
    }
    for (; a < o->nop && o->op[a].group == q->group && o->op[a].name == q->key && o->op[a].k == q->seq; a++)
        if (o->op[a].view < 0 || o->op[a].view == (int)f) return &o->op[a];
    return NULL;
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
        tl_an_op *op = find_op(o, &q[i], f);
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
