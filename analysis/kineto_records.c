/* A loaded Kineto trace as trilap trace records, so every command reads it
 * the way it reads a run folder (analysis/README.md, "PyTorch profiler
 * (Kineto) traces"):
 *   kernel       kind kernel on its device and stream; NCCL kernels p2p or
 *                coll by the operation they served (nccl:all_to_all -> coll,
 *                nccl:send -> p2p; analysis/kineto_comm.c), by name where
 *                the trace has no operation; lanes by name (a stream that
 *                runs mostly SendRecv kernels is a p2p lane)
 *   gpu_memcpy   kind memcpy, bytes; gpu_memset kind memset, bytes
 *   cuda_sync    kind sync
 *   iteration    the ProfilerStep#N range that holds the launch (the
 *                runtime call of the same correlation id), as HTA assigns it
 *   host rows    "iter" per ProfilerStep (iteration N); per launch, with
 *                its correlation id: "op:nccl:all_reduce on process group 0
 *                (default_pg, ranks 0-1)" with the message size in bytes
 *                for a communication kernel whose operation the trace
 *                names (analysis/load.c gives findings these names, with
 *                the size; match.c pairs the ranks' kernels by them)
 *                beside "cuda:<call>"; and where the launching thread
 *                called cudaStreamWaitEvent since its previous launch (no
 *                GPU-side wait in the trace) "wait:cudaStreamWaitEvent,
 *                stream S: <kernel>", to the end of the work it waited for;
 *                "comm:<collective> pg P" per record_param_comms op
 * Times: ns = baseTimeNanoseconds + ts µs: the host's system clock of each
 * rank; ranks on different hosts agree as far as their clocks do (NTP),
 * Kineto measures no offsets. */
#include "analysis/kineto.h"
#include "analysis/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The operation an NCCL kernel served (its launch's correlation id -> the
 * runtime call -> the nccl:* / record_param_comms ops around it): the
 * records take their class from it, the collectives command reports it. */
const tl_kt_crow *tl_kt_launch_of(const tl_kt_trace *t, int64_t corr)
{
    if (corr < 0) return NULL;
    size_t lo = 0, hi = t->nc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->c[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    return lo < t->nc && t->c[lo].corr == corr ? &t->c[lo] : NULL;
}

static int is_p2p_op(const char *op)
{
    /* an export's NCCL calls (kineto_nsys.c): ncclSend, ncclRecv, a group of them (ncclSend+ncclRecv; a
     * group mixing p2p and collectives tells no operation) */
    return !strcmp(op, "send") || !strcmp(op, "recv") || !strncmp(op, "batch_isend_irecv", 17) ||
           !strcmp(op, "isend") || !strcmp(op, "irecv") || !strncmp(op, "ncclSend", 8) || !strncmp(op, "ncclRecv", 8);
}

/* The nccl:* and record_param_comms ops (the only ones tl_kt_comm_of
 * reads) by thread, then start, then place in the trace; reach[p]: the
 * latest end of those of its thread up to p. An op around a launch at x
 * started at or before it and ends at or after it, so the search walks
 * back from the last op started by x and stops where no earlier op of
 * the thread reaches x: one binary search and the ops nested around the
 * launch, where scanning every op for every NCCL kernel was quadratic
 * (100k NCCL kernels: 25.8 s). */
static int is_comm_op(const tl_kt_trace *t, const tl_kt_op *o)
{
    const char *name = tl_an_names_get(t->names, o->name);
    return !strncmp(name, "nccl:", 5) || !strcmp(name, "record_param_comms");
}

typedef struct op_at {
    const tl_kt_op *ops;
    size_t k;
} op_at;

static int cmp_op_at(const void *a, const void *b)
{
    const tl_kt_op *x = &((const op_at *)a)->ops[((const op_at *)a)->k];
    const tl_kt_op *y = &((const op_at *)b)->ops[((const op_at *)b)->k];
    size_t kx = ((const op_at *)a)->k, ky = ((const op_at *)b)->k;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->ts_us != y->ts_us) return x->ts_us < y->ts_us ? -1 : 1;
    return kx < ky ? -1 : kx > ky;
}

tl_status tl_kt_comm_index_build(const tl_kt_trace *t, tl_kt_comm_index *out)
{
    memset(out, 0, sizeof *out);
    op_at *sorted = malloc((t->nops ? t->nops : 1) * sizeof *sorted);
    out->at = malloc((t->nops ? t->nops : 1) * sizeof *out->at);
    out->reach = malloc((t->nops ? t->nops : 1) * sizeof *out->reach);
    if (!sorted || !out->at || !out->reach) {
        free(sorted);
        tl_kt_comm_index_free(out);
        return TL_FAIL(TL_ERR_NOMEM, "%s: an index of %zu communication ops", t->path, t->nops);
    }
    for (size_t k = 0; k < t->nops; k++)
        if (is_comm_op(t, &t->ops[k])) sorted[out->n++] = (op_at){t->ops, k};
    if (out->n) qsort(sorted, out->n, sizeof *sorted, cmp_op_at);
    for (size_t p = 0; p < out->n; p++) {
        const tl_kt_op *o = &t->ops[sorted[p].k];
        out->at[p] = sorted[p].k;
        double end = o->ts_us + o->dur_us;
        int same = p && t->ops[out->at[p - 1]].tid == o->tid;
        out->reach[p] = same && out->reach[p - 1] > end ? out->reach[p - 1] : end;
    }
    free(sorted);
    return TL_OK;
}

void tl_kt_comm_index_free(tl_kt_comm_index *ix)
{
    free(ix->at);
    free(ix->reach);
    memset(ix, 0, sizeof *ix);
}

/* The record_param_comms ops around a launch, walked innermost first
 * (latest start first; among equal starts the trace's later first): what
 * the scan of the ops in the trace's order took from them. It took an op
 * that started later than every one before it in the trace (a record):
 * the message from the last record (the innermost), the process group
 * from the last record naming one, the operation from the first naming
 * one. A record is the first in the trace of its start time, placed
 * before every op that started later: so an op is settled when the walk
 * reaches the next start time. */
typedef struct rpc_walk {
    const tl_kt_op *pend; /* the op waiting for the walk to leave its start time */
    size_t pend_k, min_k; /* its place in the trace; the first place of those walked before it */
    const tl_kt_op *inner, *pg, *coll;
} rpc_walk;

static void rpc_take(rpc_walk *w, const tl_kt_op *o, size_t k)
{
    if (w->pend && (!o || o->ts_us != w->pend->ts_us) && w->pend_k < w->min_k) {
        if (!w->inner) w->inner = w->pend;
        if (!w->pg && w->pend->pg) w->pg = w->pend;
        if (w->pend->coll) w->coll = w->pend;
    }
    if (w->pend && w->pend_k < w->min_k) w->min_k = w->pend_k;
    w->pend = o;
    w->pend_k = k;
}

/* The other rank of a process group of two holding this rank ("Process
 * Group Ranks" [a, b], a name id), -1 else: a send or recv there that
 * names no rank can only be with it. */
static int pair_other(const tl_kt_trace *t, uint32_t group_ranks)
{
    const char *list = group_ranks ? tl_an_names_get(t->names, group_ranks) : NULL;
    int a = tl_kt_group_rank(list, 0), b = tl_kt_group_rank(list, 1);
    if (b < 0 || tl_kt_group_rank(list, 2) >= 0) return -1;
    return a == t->rank ? b : b == t->rank ? a : -1;
}

/* The channels of a send, recv or batch whose ends the trace names, and
 * their text (p2p_channels.c writes it: both ends of one channel write
 * it alike). */
static void set_channels(const tl_kt_trace *t, const tl_an_p2p_channels *chans, tl_kt_comm *out)
{
    out->chans = *chans;
    tl_an_p2p_channels_write(chans, out->chan, sizeof out->chan);
    out->peer = -1;
    for (int i = 0; i < chans->n; i++) {
        int other = chans->ch[i].src == t->rank ? chans->ch[i].dst : chans->ch[i].src;
        if (out->peer < 0 || other < out->peer) out->peer = other;
    }
}

/* The ends of a send or recv, global ranks, where the trace names its
 * other end and its own rank (distributedInfo): record_param_comms' Dst
 * Rank / Src Rank, else nccl:*'s ranks in the group through the group's
 * members, that list giving this rank's own where the name says it
 * (else the name is not this rank's: no ends), else, where neither says
 * a rank, a process group of two: the rank's other member. */
static void p2p_ends(const tl_kt_trace *t, const tl_kt_op *nccl, const rpc_walk *rpc, tl_kt_comm *out)
{
    int send = !strcmp(out->op, "send");
    if (!out->p2p || (!send && strcmp(out->op, "recv") != 0) || t->rank < 0 || t->world <= 0) return;
    int peer = rpc->coll && rpc->coll->peer >= 0 ? rpc->coll->peer : -1;
    const char *list = out->group_ranks ? tl_an_names_get(t->names, out->group_ranks) : NULL;
    if (peer < 0 && nccl && nccl->peer_local >= 0) {
        if (tl_kt_group_rank(list, nccl->self_local) == t->rank) peer = tl_kt_group_rank(list, nccl->peer_local);
    } else if (peer < 0) {
        peer = pair_other(t, out->group_ranks);
    }
    if (peer < 0 || peer >= t->world || peer == t->rank) return;
    tl_an_p2p_channels chans = {0};
    tl_an_p2p_channels_add(&chans, send ? t->rank : peer, send ? peer : t->rank);
    set_channels(t, &chans, out);
}

/* Whether ix place p is a record of a send or recv of a batch launched
 * by thread tid: record_param_comms of a send or recv (no nccl:* op). */
static int batch_record(const tl_kt_trace *t, const tl_kt_comm_index *ix, size_t p, int64_t tid)
{
    const tl_kt_op *o = &t->ops[ix->at[p]];
    const char *coll = o->coll ? tl_an_names_get(t->names, o->coll) : "";
    return o->tid == tid && strncmp(tl_an_names_get(t->names, o->name), "nccl:", 5) != 0 &&
           (!strcmp(coll, "send") || !strcmp(coll, "recv"));
}

/* The ends of a batch (batch_isend_irecv; a pipeline's schedule batches
 * each stage's sends and recvs with one neighbour): ProcessGroupNCCL makes
 * no nccl:send op for a send inside the group, but its record_param_comms,
 * naming the other end (Dst Rank / Src Rank), and launches the group's
 * kernel under nccl:coalesced. So the batch is the record_param_comms of
 * sends and recvs the thread made since its previous nccl:* op or other
 * collective (ix place `at`: the nccl:coalesced op), but those inside
 * that nccl:* op (a record nested in its op, written after it, is the
 * op's own), taken where each names its other end, or its process group
 * is of two (pair_other): its channels, with one other rank or several
 * (Megatron's interleaved schedule sends to the next stage and receives
 * from the previous in one batch); a batch with an end unsaid, or more
 * channels than a key holds, keeps no ends (paired across its group). */
static void batch_ends(const tl_kt_trace *t, const tl_kt_comm_index *ix, size_t at, tl_kt_comm *out)
{
    if (!out->p2p || strcmp(out->op, "coalesced") != 0 || t->rank < 0 || t->world <= 0) return;
    int64_t tid = t->ops[ix->at[at]].tid;
    size_t from = at; /* the batch's records: ix places [from, at) */
    while (from > 0 && batch_record(t, ix, from - 1, tid)) from--;
    const tl_kt_op *before = from > 0 ? &t->ops[ix->at[from - 1]] : NULL;
    double after = before && before->tid == tid ? before->ts_us + before->dur_us : -INFINITY;
    tl_an_p2p_channels chans = {0};
    int said = 1;
    int64_t bytes = 0;
    const tl_kt_op *pg = NULL;
    for (size_t p = at; p-- > from;) {
        const tl_kt_op *o = &t->ops[ix->at[p]];
        if (o->ts_us < after) break;
        int send = !strcmp(tl_an_names_get(t->names, o->coll), "send");
        int end = o->peer >= 0 ? o->peer : pair_other(t, o->group_ranks);
        if (!pg && o->pg) pg = o;
        if (!out->group_ranks) out->group_ranks = o->group_ranks;
        said = said && end >= 0 && end < t->world && end != t->rank &&
               tl_an_p2p_channels_add(&chans, send ? t->rank : end, send ? end : t->rank);
        bytes = bytes >= 0 && o->bytes >= 0 ? bytes + o->bytes : -1;
    }
    /* the group is the batch's even where its ends are not one rank */
    if (pg && !strcmp(out->pg, "?")) snprintf(out->pg, sizeof out->pg, "%s", tl_an_names_get(t->names, pg->pg));
    if (!chans.n || !said) return;
    set_channels(t, &chans, out);
    if (bytes >= 0) out->bytes = bytes;
}

int tl_kt_comm_of(const tl_kt_trace *t, const tl_kt_comm_index *ix, size_t i, tl_kt_comm *out)
{
    memset(out, 0, sizeof *out);
    out->nelems = out->bytes = -1;
    out->peer = -1;
    snprintf(out->pg, sizeof out->pg, "?");
    const tl_kt_crow *ln = tl_kt_launch_of(t, t->s[i].corr);
    if (!ln) return 0;
    out->launch = ln;
    double x = ln->ts_us;
    size_t lo = 0, hi = ix->n; /* past the last op of the thread started by the launch */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tl_kt_op *o = &t->ops[ix->at[mid]];
        if (o->tid < ln->tid || (o->tid == ln->tid && o->ts_us <= x)) lo = mid + 1;
        else hi = mid;
    }
    const tl_kt_op *nccl = NULL; /* the innermost nccl:* op: the latest start, the trace's first among equals */
    size_t nccl_at = 0;          /* its place in ix */
    rpc_walk rpc = {.min_k = SIZE_MAX};
    for (size_t p = lo; p-- > 0;) {
        const tl_kt_op *o = &t->ops[ix->at[p]];
        if (o->tid != ln->tid || ix->reach[p] < x) break;
        if (x > o->ts_us + o->dur_us) continue;
        const char *name = tl_an_names_get(t->names, o->name);
        if (!strncmp(name, "nccl:", 5)) {
            if (!nccl || o->ts_us == nccl->ts_us) nccl = o, nccl_at = p;
        } else {
            rpc_take(&rpc, o, ix->at[p]);
        }
    }
    rpc_take(&rpc, NULL, 0);
    const char *nn = nccl ? tl_an_names_get(t->names, nccl->name) + 5 : NULL;
    /* "nccl:send 0->1": the operation is its first word, the ranks are p2p_ends' */
    if (nn) snprintf(out->op, sizeof out->op, "%.*s", (int)strcspn(nn, " "), nn);
    else if (rpc.coll) snprintf(out->op, sizeof out->op, "%s", tl_an_names_get(t->names, rpc.coll->coll));
    if (rpc.pg) snprintf(out->pg, sizeof out->pg, "%s", tl_an_names_get(t->names, rpc.pg->pg));
    const tl_kt_op *g = rpc.pg && rpc.pg->group_ranks ? rpc.pg : rpc.coll;
    out->group_ranks = g ? g->group_ranks : 0;
    if (rpc.inner) out->nelems = rpc.inner->nelems;
    if (!out->op[0]) return 0;
    /* record_param_comms states the message; the nccl:* op's tensors stand in */
    int64_t bytes_rpc = rpc.inner ? rpc.inner->bytes : -1;
    out->bytes = bytes_rpc >= 0 ? bytes_rpc : nccl ? nccl->bytes : -1;
    /* ProcessGroupNCCL launches a group's kernels under nccl:coalesced, p2p
     * (batch_isend_irecv, a pipeline's schedule) or collectives alike: the
     * kernel says which */
    out->p2p = is_p2p_op(out->op) ||
               (!strcmp(out->op, "coalesced") &&
                tl_trace_nccl_kernel(tl_an_names_get(t->names, t->s[i].name)) == TL_NCCL_P2P);
    p2p_ends(t, nccl, &rpc, out);
    if (nccl) batch_ends(t, ix, nccl_at, out);
    tl_trace_utf8_cut(out->op);
    tl_trace_utf8_cut(out->pg);
    return 1;
}

void tl_kt_comm_key(const tl_kt_comm *c, char *out, size_t n)
{
    char op[TL_AN_P2P_CHANNELS_TEXT + 16];
    if (c->peer >= 0) snprintf(op, sizeof op, TL_AN_P2P_CHANNEL "%s", c->chan);
    else snprintf(op, sizeof op, "nccl:%s", c->op);
    if (strcmp(c->pg, "?") != 0) snprintf(out, n, "%s" TL_AN_ON_PG "%s", op, c->pg);
    else snprintf(out, n, "%s (process group not in the trace)", op);
    tl_trace_utf8_cut(out);
}

typedef struct lane_acc {
    int32_t device;
    int64_t stream;
    uint64_t p2p, coll;
    tl_role lane;
} lane_acc;

static int cmp_end(const void *a, const void *b)
{
    const tl_kt_end *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

tl_status tl_kt_ends_build(const tl_kt_trace *t, tl_kt_ends *out)
{
    out->n = 0;
    out->e = malloc((t->ns ? t->ns : 1) * sizeof *out->e);
    TL_CHECK(out->e, TL_ERR_NOMEM, "%zu rows", t->ns);
    for (size_t i = 0; i < t->ns; i++)
        if (t->s[i].kind < TL_KT_SYNC)
            out->e[out->n++] =
                (tl_kt_end){t->s[i].device, tl_kt_ns(t, t->s[i].ts_us) + llround(t->s[i].dur_us * 1e3), i};
    if (out->n) qsort(out->e, out->n, sizeof *out->e, cmp_end);
    return TL_OK;
}

/* Whether the launching thread made its stream wait for an event since
 * its previous launch: cudaStreamWaitEvent between them (the calls in
 * correlation order, which is the order they were made in). */
static int host_event_wait(const tl_kt_trace *t, const tl_kt_crow *ln)
{
    int seen = 0;
    for (size_t p = (size_t)(ln - t->c); p-- > 0 && seen < 32;) {
        const tl_kt_crow *c = &t->c[p];
        if (c->tid != ln->tid) continue;
        seen++;
        const char *nm = tl_an_names_get(t->names, c->name);
        if (!strcmp(nm, "cudaStreamWaitEvent")) return 1;
        if (strstr(nm, "Launch") || strstr(nm, "Memcpy") || strstr(nm, "Memset")) return 0;
    }
    return 0;
}

const tl_kt_end *tl_kt_host_wait(const tl_kt_trace *t, const tl_kt_ends *en, size_t k, const tl_kt_crow *ln)
{
    if (!host_event_wait(t, ln)) return NULL;
    const tl_kt_srow *ks = &t->s[k];
    int64_t after = tl_kt_ns(t, ln->ts_us), until = tl_kt_ns(t, ks->ts_us);
    size_t lo = 0, hi = en->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tl_kt_end *m = &en->e[mid];
        if (m->device < ks->device || (m->device == ks->device && m->end <= until)) lo = mid + 1;
        else hi = mid;
    }
    for (size_t p = lo; p-- > 0;) {
        const tl_kt_end *m = &en->e[p];
        if (m->device != ks->device || m->end <= after) break;
        if (t->s[m->i].stream != ks->stream) return m;
    }
    return NULL;
}

void tl_kt_host_wait_name(const tl_kt_trace *t, const tl_kt_end *w, char *out, size_t n)
{
    snprintf(out, n, "cudaStreamWaitEvent, stream %lld: %.60s", (long long)t->s[w->i].stream,
             tl_an_names_short(t->names, t->s[w->i].name));
}

static tl_status infer_lanes(const tl_kt_trace *t, lane_acc **out, size_t *nout)
{
    lane_acc *l = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < t->ns; i++) {
        const tl_kt_srow *r = &t->s[i];
        if (r->kind > TL_KT_SYNC) continue;
        size_t j = 0;
        while (j < n && !(l[j].device == r->device && l[j].stream == r->stream)) j++;
        if (j == n) {
            tl_status st = TL_AN_GROW(l, n, cap, "streams");
            if (st != TL_OK) {
                free(l);
                return st;
            }
            l[n++] = (lane_acc){.device = r->device, .stream = r->stream};
        }
        if (r->kind != TL_KT_KERNEL) continue;
        switch (tl_trace_nccl_kernel(tl_an_names_get(t->names, r->name))) {
        case TL_NCCL_P2P: l[j].p2p++; break;
        case TL_NCCL_COLL:
        case TL_NCCL_GENERIC: l[j].coll++; break;
        default: break;
        }
    }
    for (size_t j = 0; j < n; j++)
        l[j].lane = l[j].p2p && l[j].p2p > l[j].coll ? TL_ROLE_P2P : l[j].coll ? TL_ROLE_COLL : TL_ROLE_COMPUTE;
    *out = l;
    *nout = n;
    return TL_OK;
}

size_t tl_kt_step_find(const tl_kt_trace *t, double us)
{
    size_t at = t->nsteps;
    for (size_t k = 0; k < t->nsteps && t->steps[k].ts_us <= us; k++)
        if (!t->steps[k].gpu && us < t->steps[k].ts_us + t->steps[k].dur_us) at = k;
    return at;
}

int64_t tl_kt_step_at(const tl_kt_trace *t, double us)
{
    size_t k = tl_kt_step_find(t, us);
    return k < t->nsteps ? t->steps[k].num : -1;
}

/* GPU rows by device, stream, start */
typedef struct stream_row {
    int32_t device;
    int64_t stream;
    double ts, end;
} stream_row;

static int cmp_stream_row(const void *a, const void *b)
{
    const stream_row *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* What CUPTI and Nsight Systems never record, counted once per trace for
 * one line (before, read without a word): a GPU row of over a day, and
 * rows at once on one stream, which runs its work in order (1 us spared:
 * the µs a trace rounds its times to). */
static tl_status odd_rows(const tl_kt_trace *t, tl_an_meta *m)
{
    stream_row *v = malloc((t->ns ? t->ns : 1) * sizeof *v);
    TL_CHECK(v, TL_ERR_NOMEM, "%s: %zu GPU rows", t->path, t->ns);
    size_t n = 0;
    for (size_t i = 0; i < t->ns; i++) {
        const tl_kt_srow *r = &t->s[i];
        if (r->kind >= TL_KT_SYNC) continue;
        m->odd_long += r->dur_us > 86400e6;
        v[n++] = (stream_row){r->device, r->stream, r->ts_us, r->ts_us + r->dur_us};
    }
    if (n) qsort(v, n, sizeof *v, cmp_stream_row);
    for (size_t i = 1, k = 0; i < n; i++) { /* k: the row of the stream that ends last so far */
        if (v[i].device != v[k].device || v[i].stream != v[k].stream) {
            k = i;
            continue;
        }
        if (v[i].ts < v[k].end - 1.0) {
            m->odd_overlap++;
            if (v[k].end - v[i].ts > m->odd_overlap_us) m->odd_overlap_us = v[k].end - v[i].ts;
        }
        if (v[i].end > v[k].end) k = i;
    }
    free(v);
    return TL_OK;
}

const char *tl_an_odd_rows_say(const tl_an_meta *m, char *buf, size_t n)
{
    if (!m->odd_long && !m->odd_overlap) return NULL;
    char lasting[64] = "", early[160] = "";
    long long nl = m->odd_long, no = m->odd_overlap;
    if (nl) snprintf(lasting, sizeof lasting, "%lld GPU row%s over a day%s", nl, nl == 1 ? " lasts" : "s last",
                     no ? " and " : "");
    if (no)
        snprintf(early, sizeof early, "%lld%s start%s before the previous one on their stream ended (by up to %.1f us)",
                 no, nl ? "" : no == 1 ? " GPU row" : " GPU rows", no == 1 ? "s" : "", m->odd_overlap_us);
    snprintf(buf, n,
             "rank %d: %s%s: CUPTI and Nsight Systems record neither (an edited or synthetic trace?); the figures "
             "take them as written",
             m->rank, lasting, early);
    return buf;
}

static tl_status emit_meta(const tl_kt_trace *t, const tl_an_meta *m, tl_an_nsys_meta_fn mfn, void *user)
{
    char v[64];
    TL_TRY(tl_an_meta_keys_head(m, mfn, user));
    TL_TRY(mfn(user, "clock", "kineto-host (baseTimeNanoseconds + ts; ranks agree as far as their hosts' clocks)"));
    TL_TRY(mfn(user, "source", "kineto-json"));
    TL_TRY(mfn(user, "lanes", "inferred"));
    size_t nhost = 0;
    for (size_t k = 0; k < t->nsteps; k++) nhost += !t->steps[k].gpu;
    snprintf(v, sizeof v, "%zu", nhost);
    TL_TRY(mfn(user, "profiler_steps", v));
    TL_TRY(mfn(user, "window", "records"));
    TL_TRY(mfn(user, "complete", "yes"));
    /* the rows no tracer writes, for the loader to say as this reader does
     * (tl_an_odd_rows_say): an imported trace lost the note */
    if (!m->odd_long && !m->odd_overlap) return TL_OK;
    snprintf(v, sizeof v, "%lld", (long long)m->odd_long);
    TL_TRY(mfn(user, "odd_gpu_rows_long", v));
    snprintf(v, sizeof v, "%lld", (long long)m->odd_overlap);
    TL_TRY(mfn(user, "odd_gpu_rows_overlap", v));
    snprintf(v, sizeof v, "%.0f", 1e3 * m->odd_overlap_us);
    return mfn(user, "odd_gpu_rows_overlap_ns", v);
}

/* The launch of GPU row i: a host row carrying its correlation id; a
 * second one names the operation it served, where the trace says, and a
 * third ("wait:cudaStreamWaitEvent, stream 7: Memset (Device)", from the
 * launch to that work's end) the other stream's work a host-recorded event
 * wait held it behind (tl_kt_host_wait): diagnose's queued-communication
 * counts it as collectives' rows show it. */
static tl_status emit_launch(const tl_kt_trace *t, const tl_kt_ends *ends, size_t i, const tl_kt_crow *ln,
                             const tl_trace_record *r, const char *op, int64_t op_bytes, tl_an_record_fn cb,
                             void *user)
{
    char call[160];
    snprintf(call, sizeof call, "cuda:%s", tl_an_names_get(t->names, ln->name));
    tl_trace_utf8_cut(call);
    tl_trace_record h = {.rank = r->rank, .device = -1, .lane = TL_ROLE_HOST, .cat = TL_CAT_RANGE,
                         .kind = TL_KIND_HOST, .name = call, .start_ns = tl_kt_ns(t, ln->ts_us),
                         .end_ns = tl_kt_ns(t, ln->ts_us + ln->dur_us), .corr = r->corr, .bytes = -1,
                         .iter = r->iter};
    TL_TRY(cb(user, &h));
    if (!op) return TL_OK;
    h.name = op;
    h.bytes = op_bytes;
    TL_TRY(cb(user, &h));
    const tl_kt_end *w = tl_kt_host_wait(t, ends, i, ln);
    if (!w) return TL_OK;
    char wait[160] = "wait:";
    tl_kt_host_wait_name(t, w, wait + 5, sizeof wait - 5);
    tl_trace_utf8_cut(wait);
    h.name = wait;
    h.bytes = -1;
    h.end_ns = w->end;
    return cb(user, &h);
}

/* An operation's peers where its process group is some of the run's
 * ranks ("Process Group Ranks" holding this rank, fewer than the world):
 * the group's other ranks, "2,6" (out: room for the list), 0 else (every
 * rank, where match.c pairs an unpeered operation, holds the whole world;
 * a list naming a rank twice or beyond the world is not taken). */
static int group_peers(const tl_kt_trace *t, uint32_t group_ranks, char *out, size_t n)
{
    const char *p = group_ranks ? tl_an_names_get(t->names, group_ranks) : "";
    if (*p++ != '[' || t->world <= 0 || t->rank < 0) return 0;
    unsigned char *in = calloc((size_t)t->world, 1); /* one pass, each rank once: groups run to thousands */
    int mine = 0, count = 0, ok = in != NULL;
    size_t len = 0;
    while (ok) {
        while (*p == ' ') p++;
        char *end = NULL;
        long r = strtol(p, &end, 10);
        ok = end != p && r >= 0 && r < t->world && !in[r];
        if (!ok) break;
        in[r] = 1;
        count++;
        mine |= r == t->rank;
        int w = r == t->rank ? 0 : snprintf(out + len, n - len, "%s%ld", len ? "," : "", r);
        ok = w >= 0 && (size_t)w < n - len;
        len += (size_t)w;
        for (p = end; *p == ' ';) p++;
        if (*p == ']') break;
        ok = ok && *p++ == ',';
    }
    free(in);
    if (!ok || !mine || count >= t->world) return 0;
    if (!len) snprintf(out, n, "none");
    return 1;
}

/* The peers lines a trace gets, at most: `import` writes them among an
 * imported rank's metadata, of which the trace reader keeps 512 lines
 * (probes/trace_read.c); its other keys take 16 at most. */
enum { KT_MAX_PEERS_LINES = 480 };

/* Each channel of the rank's sends and recvs (tl_kt_comm_key) once, as a
 * peers.<i> line naming its other end (probes/trace.h): every command then
 * pairs the channel's operations with that rank alone (match.c), where the
 * k-th send of each rank was paired with every other rank's; and each
 * other operation of a process group of some of the ranks, naming the
 * group's others: an all_reduce of a tensor-parallel group {0, 2} pairs on
 * ranks 0 and 2 (before, a key ranks 1 and 3 lack was unmatched on every
 * rank), and so does a send or batch whose other end is unsaid (match.c
 * notes that pairing, as it did the one across every rank). Only lines a
 * trace file holds whole: a value of TL_TRACE_MAX_TEXT bytes at most (a
 * group of some 3,400 ranks), KT_MAX_PEERS_LINES lines; an operation past
 * them is paired across every rank, as without its group's ranks, here as
 * in its import (before, `import` wrote them, and reading them back was
 * refused: a line cut, or more than 512). */
static tl_status emit_peers(const tl_kt_trace *t, const tl_kt_comm_index *cix, tl_an_nsys_meta_fn mfn,
                             void *user)
{
    tl_an_names *seen = NULL;
    tl_status st = TL_OK;
    size_t cap = 64 + 12 * (size_t)(t->world > 0 ? t->world : 1); /* a group's ranks, each "," and up to 10 digits */
    char *value = malloc(cap + TL_KT_KEY_MAX + 1);
    TL_CHECKGOTO(value, TL_ERR_NOMEM, st, fail, "%s: the peers of %d ranks", t->path, t->world);
    TL_TRYGOTO(tl_an_names_create(&seen), st, fail);
    size_t lines = 0;
    for (size_t i = 0; i < t->ns; i++) {
        tl_kt_comm cm;
        /* the kernels the records ask of (tl_kt_emit): any NCCL kernel, whose name only hints at what it serves */
        if (t->s[i].kind != TL_KT_KERNEL ||
            tl_trace_nccl_kernel(tl_an_names_get(t->names, t->s[i].name)) == TL_NCCL_NONE ||
            !tl_kt_comm_of(t, cix, i, &cm) || (cm.peer < 0 && !cm.group_ranks))
            continue;
        char key[TL_KT_KEY_MAX], line[32];
        uint32_t id;
        size_t before = tl_an_names_count(seen);
        tl_kt_comm_key(&cm, key, sizeof key);
        TL_TRYGOTO(tl_an_names_intern(seen, key, &id), st, fail);
        if (tl_an_names_count(seen) == before) continue;
        value[0] = '\0';
        if (cm.peer >= 0) tl_an_p2p_channels_peers(&cm.chans, t->rank, value, cap);
        else if (!group_peers(t, cm.group_ranks, value, cap)) continue;
        snprintf(value + strlen(value), TL_KT_KEY_MAX + 1, " %s", key);
        if (strlen(value) > TL_TRACE_MAX_TEXT) continue;
        snprintf(line, sizeof line, TL_TRACE_PEERS_KEY "%zu", lines++);
        TL_TRYGOTO(mfn(user, line, value), st, fail);
        if (lines == KT_MAX_PEERS_LINES) break;
    }
fail:
    free(value);
    tl_an_names_destroy(&seen);
    return st;
}

tl_status tl_kt_emit(const tl_kt_trace *t, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                     tl_an_nsys_meta_fn mfn, void *muser)
{
    memset(meta, 0, sizeof *meta);
    snprintf(meta->path, sizeof meta->path, "%s", t->path);
    meta->rank = t->rank >= 0 ? t->rank : 0;
    meta->rank_by_place = t->rank < 0;
    meta->nranks = t->world > 0 ? t->world : 1;
    meta->device = -1;
    meta->complete = 1;
    snprintf(meta->host, sizeof meta->host, "?");
    snprintf(meta->device_name, sizeof meta->device_name, "%s", t->device_name);
    snprintf(meta->clock_sync, sizeof meta->clock_sync, "none");
    snprintf(meta->clock, sizeof meta->clock, "kineto-host");
    for (size_t i = 0; i < t->ns && meta->device < 0; i++)
        if (t->s[i].kind <= TL_KT_SYNC) meta->device = t->s[i].device;
    TL_TRY(odd_rows(t, meta)); /* before the metadata, which carries them */
    if (mfn) TL_TRY(emit_meta(t, meta, mfn, muser));
    lane_acc *lanes = NULL;
    size_t nl = 0;
    tl_status st = TL_OK;
    tl_kt_ends ends = {0};
    tl_kt_comm_index cix = {0};
    TL_TRYGOTO(tl_kt_comm_index_build(t, &cix), st, fail);
    if (mfn) TL_TRYGOTO(emit_peers(t, &cix, mfn, muser), st, fail);
    TL_TRYGOTO(infer_lanes(t, &lanes, &nl), st, fail);
    TL_TRYGOTO(tl_kt_ends_build(t, &ends), st, fail);
    int64_t first = INT64_MAX, last = INT64_MIN;
    char name[512];
    for (size_t i = 0; i < t->ns; i++) {
        const tl_kt_srow *s = &t->s[i];
        if (s->kind > TL_KT_SYNC) continue;
        size_t j = 0;
        while (j < nl && !(lanes[j].device == s->device && lanes[j].stream == s->stream)) j++;
        const tl_kt_crow *ln = tl_kt_launch_of(t, s->corr);
        const char *op = NULL; /* the "op:" row of a communication kernel: its key and message size */
        int64_t op_bytes = -1;
        tl_trace_record r = {.rank = meta->rank, .device = s->device, .stream = s->stream > 0 ? (uint64_t)s->stream : 0,
                             .lane = j < nl ? lanes[j].lane : TL_ROLE_OTHER,
                             .name = tl_an_names_get(t->names, s->name),
                             .start_ns = tl_kt_ns(t, s->ts_us), .corr = s->corr > 0 ? (uint64_t)s->corr : 0,
                             .bytes = s->bytes, .iter = ln ? tl_kt_step_at(t, ln->ts_us) : -1};
        r.end_ns = r.start_ns + llround(s->dur_us * 1e3);
        switch (s->kind) {
        case TL_KT_KERNEL:
            r.kind = TL_KIND_KERNEL;
            r.cat = tl_trace_classify_kernel_lane(r.name, r.lane);
            r.bytes = -1;
            /* communication is defined by the operation (DESIGN.md, Wave 3):
             * a SendRecv kernel serving nccl:all_to_all is a collective's */
            if (r.cat == TL_CAT_P2P || r.cat == TL_CAT_COLL) {
                tl_kt_comm cm;
                if (tl_kt_comm_of(t, &cix, i, &cm)) {
                    r.cat = cm.p2p ? TL_CAT_P2P : TL_CAT_COLL;
                    memcpy(name, "op:", 3);
                    tl_kt_comm_key(&cm, name + 3, sizeof name - 3);
                    op = name;
                    op_bytes = cm.bytes;
                }
            }
            break;
        case TL_KT_MEMCPY: r.kind = TL_KIND_MEMCPY; r.cat = TL_CAT_MEMCPY; break;
        case TL_KT_MEMSET: r.kind = TL_KIND_MEMSET; r.cat = TL_CAT_MEMSET; break;
        default: r.kind = TL_KIND_SYNC; r.cat = TL_CAT_SYNC; r.bytes = -1; break;
        }
        if (r.kind != TL_KIND_SYNC) {
            if (r.start_ns < first) first = r.start_ns;
            if (r.end_ns > last) last = r.end_ns;
        }
        if (cb) TL_TRYGOTO(cb(user, &r), st, fail);
        if (ln && cb) TL_TRYGOTO(emit_launch(t, &ends, i, ln, &r, op, op_bytes, cb, user), st, fail);
    }
    for (size_t k = 0; k < t->nsteps && cb; k++) {
        /* the host's step only: its copies on the GPU streams, later and
         * shorter, would each begin the step again (iters.c numbers a step
         * seen again as the next run of the loop: 40 iterations of 20) */
        if (t->steps[k].gpu) continue;
        tl_trace_record h = {.rank = meta->rank, .device = -1, .lane = TL_ROLE_HOST, .cat = TL_CAT_RANGE,
                             .kind = TL_KIND_HOST, .name = "iter", .start_ns = tl_kt_ns(t, t->steps[k].ts_us),
                             .end_ns = tl_kt_ns(t, t->steps[k].ts_us + t->steps[k].dur_us), .bytes = -1,
                             .iter = t->steps[k].num};
        TL_TRYGOTO(cb(user, &h), st, fail);
    }
    for (size_t k = 0; k < t->nops && cb; k++) {
        const tl_kt_op *o = &t->ops[k];
        if (!o->coll) continue; /* the record_param_comms row says it; the c10d:: op around it repeats it */
        snprintf(name, sizeof name, "comm:%s pg %s", tl_an_names_get(t->names, o->coll),
                 o->pg ? tl_an_names_get(t->names, o->pg) : "?");
        tl_trace_utf8_cut(name);
        tl_trace_record h = {.rank = meta->rank, .device = -1, .lane = TL_ROLE_HOST, .cat = TL_CAT_RANGE,
                             .kind = TL_KIND_HOST, .name = name, .start_ns = tl_kt_ns(t, o->ts_us),
                             .end_ns = tl_kt_ns(t, o->ts_us + o->dur_us), .bytes = -1,
                             .iter = tl_kt_step_at(t, o->ts_us)};
        TL_TRYGOTO(cb(user, &h), st, fail);
    }
    meta->w0 = first != INT64_MAX ? first : 0;
    meta->w1 = last != INT64_MIN ? last : meta->w0;
fail:
    free(lanes);
    free(ends.e);
    tl_kt_comm_index_free(&cix);
    return st;
}

tl_status tl_an_kineto_scan(const char *path, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                            tl_an_nsys_meta_fn mfn, void *muser, struct tl_progress *bar)
{
    tl_kt_trace *t = NULL;
    memset(meta, 0, sizeof *meta);
    TL_TRY(tl_kt_load_progress(path, bar, &t));
    tl_status st = tl_kt_emit(t, cb, user, meta, mfn, muser);
    tl_kt_free(&t);
    return st == TL_OK ? TL_OK : tl_error_frame(st, __FILE__, __LINE__);
}
