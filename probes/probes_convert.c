/* CUPTI activity records to trace records, for one rank: kernel names
 * copied out of CUPTI, lanes from the registered streams or inferred from
 * NCCL kernels (injection), the NCCL classification with the lane, and
 * iterations: a GPU record takes the iteration current on its rank's host
 * when it was launched; its correlation id finds the launching RUNTIME or
 * DRIVER API record, whose start time falls in one of the rank's iteration
 * intervals. Runs in tl_probes_destroy, after the measured window, on the
 * buffers probes_cupti.c kept. */
#include "probes/rank_state.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"

void tl_probe_gpu_free(tl_probe_gpu *g)
{
    if (!g) return;
    for (size_t i = 0; i < g->nnames; i++)
        free(g->names[i]);
    free(g->names);
    free(g->recs);
    memset(g, 0, sizeof *g);
}

/* ---- past CUPTI: records already decoded (the host tests feed these) ---- */

/* Lane of (device, stream): registered (device -1 matches any device),
 * else inferred (injection), else other. */
static int tl_lane_registered(const tl_probes *p, int device, uint32_t stream, tl_role *lane)
{
    for (int i = 0; i < p->nstreams; i++)
        if (p->streams[i].id == stream &&
            (p->streams[i].device == device || p->streams[i].device == -1)) {
            *lane = p->streams[i].lane;
            return 1;
        }
    return 0;
}

typedef struct {
    int device;
    uint32_t stream;
    uint64_t p2p, coll;
} tl_streamcount;

/* Injection mode: a stream that ran named NCCL p2p kernels and more of
 * them than named collectives is p2p; one that ran collectives (or only
 * Generic NCCL kernels) is coll; anything else compute. */
tl_status tl_probe_infer_lanes(tl_probe_gpu *g, const tl_probes *p)
{
    tl_streamcount *sc = NULL;
    size_t nsc = 0, cap = 0;
    tl_status st = TL_OK;
    for (size_t i = 0; i < g->n; i++) {
        tl_trace_record *r = &g->recs[i];
        if (r->kind != TL_KIND_KERNEL && r->kind != TL_KIND_MEMCPY && r->kind != TL_KIND_MEMSET)
            continue;
        size_t j = 0;
        while (j < nsc && !(sc[j].device == r->device && sc[j].stream == r->stream))
            j++;
        if (j == nsc) {
            if (nsc == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                tl_streamcount *n = realloc(sc, ncap * sizeof *n);
                if (!n) {
                    st = TL_FAIL(TL_ERR_NOMEM, "probes: stream table");
                    goto fail;
                }
                sc = n;
                cap = ncap;
            }
            sc[nsc++] = (tl_streamcount){.device = r->device, .stream = (uint32_t)r->stream};
        }
        if (r->kind != TL_KIND_KERNEL) continue;
        switch (tl_trace_nccl_kernel(r->name)) {
        case TL_NCCL_P2P:
            sc[j].p2p++;
            break;
        case TL_NCCL_COLL:
            sc[j].coll++;
            break;
        case TL_NCCL_GENERIC:
            sc[j].coll++;
            break;
        default:
            break;
        }
    }
    for (size_t i = 0; i < g->n; i++) {
        tl_trace_record *r = &g->recs[i];
        if (r->device < 0) continue;
        tl_role lane;
        if (tl_lane_registered(p, r->device, (uint32_t)r->stream, &lane)) continue;
        /* a copy enqueued inside a halo exchange or a reduction has that
         * communication's lane already (tl_probe_keep_own), not the
         * stream's (before, a reduction's copy on a stream of p2p kernels
         * became p2p) */
        if ((r->kind == TL_KIND_MEMCPY || r->kind == TL_KIND_MEMSET) &&
            (r->lane == TL_ROLE_P2P || r->lane == TL_ROLE_COLL))
            continue;
        for (size_t j = 0; j < nsc; j++)
            if (sc[j].device == r->device && sc[j].stream == r->stream) {
                r->lane = tl_trace_lane_of_stream(sc[j].p2p, sc[j].coll);
                break;
            }
        if (r->kind == TL_KIND_KERNEL) r->cat = tl_trace_classify_kernel_lane(r->name, r->lane);
    }
fail:
    free(sc);
    return st;
}

/* Pass 4 of tl_parse past CUPTI, one decoded record: kept in g when this
 * rank issued it, with its lane, category, iteration and (for a copy
 * serving communication) that communication's lane. */
int tl_probe_keep_own(const tl_probe_keep *k, const tl_probe_cand *c, tl_probe_gpu *g)
{
    const tl_probes *p = k->p;
    tl_trace_record r = c->r;
    tl_owner_rule rule;
    /* device -1: a wait on a context no GPU record of the buffers names (no
     * work on it, or its work in a buffer dropped), still the wait of the
     * rank whose thread called it; before, every rank left it out, and no
     * count said so */
    int owner = r.device >= 0 ? tl_probe_owner_of(k->own, r.device, c->stream, c->tid, &rule)
                              : tl_probe_owner_of_wait(k->own, c->tid, &rule);
    if (owner != k->me) return 0;
    if (r.device < 0) r.device = p->device >= 0 ? p->device : -1; /* where its registered streams are */
    if (r.start_ns == k->off || r.end_ns < r.start_ns) {
        /* Flushed before it finished: CUPTI leaves its times at 0. */
        g->incomplete++;
        return 0;
    }
    r.rank = p->rank;
    r.stream = c->stream;
    g->by_rule[rule]++;
    if (!tl_lane_registered(p, r.device, c->stream, &r.lane)) r.lane = TL_ROLE_OTHER;
    if (r.kind == TL_KIND_KERNEL) r.cat = tl_trace_classify_kernel_lane(r.name, r.lane);
    if (r.kind == TL_KIND_SYNC)
        r.iter = tl_probe_iter_at(p, r.start_ns); /* a host wait: its own time is host time */
    else if (c->known)
        r.iter = tl_probe_iter_at(p, c->launch);
    else
        g->iter_unknown++;
    /* A copy enqueued inside a halo exchange or a reduction serves it
     * (staging through the host, CUDA-aware MPI, peer copies): its lane is
     * that communication's, whatever stream ran it. */
    if (c->known && (r.kind == TL_KIND_MEMCPY || r.kind == TL_KIND_MEMSET)) {
        tl_role cl = tl_probe_comm_lane_at(k->comm, c->launch);
        if (cl != TL_ROLE_NONE) {
            r.lane = cl;
            g->comm_copies++;
        }
    }
    g->recs[g->n++] = r;
    return 1;
}

#if TL_HAVE_CUPTI
#include <cupti.h>

typedef struct {
    uint32_t *key; /* correlation id, 0 empty */
    int64_t *t;    /* API start, trace clock */
    uint32_t *tid; /* the calling thread (gettid) */
    size_t mask;
} tl_corrmap;

static size_t tl_hash32(uint32_t k)
{
    return (size_t)(k * 2654435761u);
}

static void tl_corr_put(tl_corrmap *m, uint32_t k, int64_t t, uint32_t tid)
{
    if (!k) return;
    for (size_t i = tl_hash32(k) & m->mask;; i = (i + 1) & m->mask)
        if (m->key[i] == 0 || m->key[i] == k) {
            if (m->key[i] == 0) {
                m->key[i] = k;
                m->t[i] = t;
                m->tid[i] = tid;
            }
            return;
        }
}

/* The launching call of correlation id k: its start and thread. */
static int tl_corr_get(const tl_corrmap *m, uint32_t k, int64_t *t, uint32_t *tid)
{
    if (!k || !m->key) return 0;
    for (size_t i = tl_hash32(k) & m->mask;; i = (i + 1) & m->mask) {
        if (m->key[i] == k) {
            *t = m->t[i];
            *tid = m->tid[i];
            return 1;
        }
        if (m->key[i] == 0) return 0;
    }
}

/* Kernel names belong to CUPTI; copy them so the trace can outlive it. */
typedef struct {
    const char **key;
    char **copy;
    size_t n, cap;
} tl_namecopy;

static const char *tl_names_copy(tl_namecopy *nc, const char *s, tl_status *st)
{
    if (!s) return "";
    if (2 * (nc->n + 1) > nc->cap) {
        size_t cap = nc->cap ? 2 * nc->cap : 256;
        const char **key = calloc(cap, sizeof *key);
        char **copy = calloc(cap, sizeof *copy);
        if (!key || !copy) {
            free(key);
            free(copy);
            *st = TL_FAIL(TL_ERR_NOMEM, "probes: kernel name table of %zu", cap);
            return "";
        }
        for (size_t i = 0; i < nc->cap; i++) {
            if (!nc->key[i]) continue;
            size_t j = ((uintptr_t)nc->key[i] >> 4) & (cap - 1);
            while (key[j])
                j = (j + 1) & (cap - 1);
            key[j] = nc->key[i];
            copy[j] = nc->copy[i];
        }
        free(nc->key);
        free(nc->copy);
        nc->key = key;
        nc->copy = copy;
        nc->cap = cap;
    }
    size_t j = ((uintptr_t)s >> 4) & (nc->cap - 1);
    while (nc->key[j] && nc->key[j] != s)
        j = (j + 1) & (nc->cap - 1);
    if (!nc->key[j]) {
        char *c = strdup(s);
        if (!c) {
            *st = TL_FAIL(TL_ERR_NOMEM, "probes: kernel name");
            return "";
        }
        nc->key[j] = s;
        nc->copy[j] = c;
        nc->n++;
    }
    return nc->copy[j];
}

static const char *tl_memcpy_name(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return "memcpy PtoP";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return "memcpy HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return "memcpy AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
        return "memcpy AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
        return "memcpy AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return "memcpy DtoA";
    default:
        return "memcpy";
    }
}

static const char *tl_sync_name(CUpti_ActivitySynchronizationType t)
{
    switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        return "cudaEventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
        return "cudaStreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return "cudaStreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
        return "cudaDeviceSynchronize";
    default:
        return "synchronize";
    }
}

static const char *tl_overhead_name(CUpti_ActivityOverheadKind k)
{
    switch ((int)k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
        return "cupti:overhead:driver_compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
        return "cupti:overhead:buffer_flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
        return "cupti:overhead:instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
        return "cupti:overhead:resource";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
        return "cupti:overhead:lazy_function_loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
        return "cupti:overhead:command_buffer_full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
        return "cupti:overhead:buffer_request";
    default:
        return "cupti:overhead";
    }
}


typedef struct {
    uint32_t map[64][2]; /* context -> device */
    int n;
} tl_ctxdev;

static int tl_ctxdev_find(const tl_ctxdev *m, uint32_t ctx)
{
    for (int i = 0; i < m->n; i++)
        if (m->map[i][0] == ctx) return (int)m->map[i][1];
    return -1;
}

static void tl_ctxdev_add(tl_ctxdev *m, uint32_t ctx, uint32_t dev)
{
    if (tl_ctxdev_find(m, ctx) < 0 && m->n < 64) {
        m->map[m->n][0] = ctx;
        m->map[m->n][1] = dev;
        m->n++;
    }
}

/* One GPU activity (kernel, memcpy, memset) or host wait (sync) as a trace
 * record: 1, or 0 for other kinds. Names are copied only with nc. */
static int tl_decode(const CUpti_Activity *a, int64_t off, const tl_ctxdev *cd, tl_namecopy *nc,
                     tl_status *st, tl_trace_record *r, uint32_t *stream)
{
    *r = (tl_trace_record){.bytes = -1, .iter = -1};
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        r->device = (int32_t)k->deviceId;
        *stream = k->streamId;
        r->kind = TL_KIND_KERNEL;
        r->name = nc ? tl_names_copy(nc, k->name, st) : k->name;
        r->start_ns = (int64_t)k->start + off;
        r->end_ns = (int64_t)k->end + off;
        r->corr = k->correlationId;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
        r->device = (int32_t)m->deviceId;
        *stream = m->streamId;
        r->kind = TL_KIND_MEMCPY;
        r->cat = TL_CAT_MEMCPY;
        r->name = tl_memcpy_name(m->copyKind);
        r->start_ns = (int64_t)m->start + off;
        r->end_ns = (int64_t)m->end + off;
        r->corr = m->correlationId;
        r->bytes = (int64_t)m->bytes;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
        r->device = (int32_t)m->deviceId;
        *stream = m->streamId;
        r->kind = TL_KIND_MEMSET;
        r->cat = TL_CAT_MEMSET;
        r->name = "memset";
        r->start_ns = (int64_t)m->start + off;
        r->end_ns = (int64_t)m->end + off;
        r->corr = m->correlationId;
        r->bytes = (int64_t)m->bytes;
        return 1;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)a;
        r->device = tl_ctxdev_find(cd, s->contextId);
        *stream = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s->streamId;
        r->kind = TL_KIND_SYNC;
        r->cat = TL_CAT_SYNC;
        r->name = tl_sync_name(s->type);
        r->start_ns = (int64_t)s->start + off;
        r->end_ns = (int64_t)s->end + off;
        r->corr = s->correlationId;
        return 1;
    }
    default:
        return 0;
    }
}

/* CUPTI's overhead records: counted for every rank, written (as host rows)
 * by the owner of their device. */
static void tl_overhead(tl_probes *p, const tl_probe_owners *own, int me, const CUpti_Activity *a,
                        int64_t off, tl_probe_gpu *g)
{
    const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)a;
    int dev = -1;
    if (o->objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE ||
        o->objectKind == CUPTI_ACTIVITY_OBJECT_CONTEXT ||
        o->objectKind == CUPTI_ACTIVITY_OBJECT_STREAM)
        dev = (int)o->objectId.dcs.deviceId;
    tl_owner_rule rule;
    if (dev >= 0 && tl_probe_owner_of(own, dev, 0, 0, &rule) != me) return;
    g->overhead_ns += o->end > o->start ? o->end - o->start : 0;
    g->overhead_n++;
    if (dev < 0)
        return; /* process- and thread-wide overhead: counted (by every rank), written by none */
    tl_trace_record r = {.rank = p->rank,
                         .device = -1,
                         .lane = TL_ROLE_HOST,
                         .cat = TL_CAT_RANGE,
                         .kind = TL_KIND_HOST,
                         .name = tl_overhead_name(o->overheadKind),
                         .start_ns = (int64_t)o->start + off,
                         .end_ns = (int64_t)(o->end > o->start ? o->end : o->start) + off,
                         .corr = o->correlationId,
                         .bytes = -1};
    r.iter = tl_probe_iter_at(p, r.start_ns);
    g->recs[g->n++] = r;
}

/* Pass 1 of tl_parse: the API records (for the correlation map's size),
 * the GPU records, and each context's device. */
static void count_records(const tl_cbuf *bufs, int nbufs, tl_ctxdev *cd, size_t *napi, size_t *ngpu)
{
    for (int b = 0; b < nbufs; b++) {
        CUpti_Activity *it = NULL;
        while (cuptiActivityGetNextRecord(bufs[b].data, bufs[b].valid, &it) == CUPTI_SUCCESS) {
            const CUpti_Activity *a = it;
            switch (a->kind) {
            case CUPTI_ACTIVITY_KIND_RUNTIME:
            case CUPTI_ACTIVITY_KIND_DRIVER:
                ++*napi;
                continue;
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
                tl_ctxdev_add(cd, ((const CUpti_ActivityKernel10 *)a)->contextId,
                              ((const CUpti_ActivityKernel10 *)a)->deviceId);
                break;
            case CUPTI_ACTIVITY_KIND_MEMCPY:
                tl_ctxdev_add(cd, ((const CUpti_ActivityMemcpy6 *)a)->contextId,
                              ((const CUpti_ActivityMemcpy6 *)a)->deviceId);
                break;
            case CUPTI_ACTIVITY_KIND_MEMSET:
                tl_ctxdev_add(cd, ((const CUpti_ActivityMemset4 *)a)->contextId,
                              ((const CUpti_ActivityMemset4 *)a)->deviceId);
                break;
            default:
                break;
            }
            ++*ngpu;
        }
    }
}

/* What pass 4 of tl_parse reads for each record. */
typedef struct own_pass {
    tl_probes *p;
    const tl_probe_owners *own;
    int me;
    const tl_corrmap *cm;
    const tl_probe_commidx *comm;
    const tl_ctxdev *cd;
    tl_namecopy *nc;
    int64_t off;
} own_pass;

/* Pass 4 of tl_parse, one record: decoded, then kept in g when this rank
 * issued it (tl_probe_keep_own), its kernel name copied out of CUPTI. */
static void keep_own(const own_pass *ps, const CUpti_Activity *it, tl_probe_gpu *g, tl_status *st)
{
    tl_probe_cand c = {.launch = 0};
    if (!tl_decode(it, ps->off, ps->cd, NULL, st, &c.r, &c.stream)) return;
    c.known = tl_corr_get(ps->cm, (uint32_t)c.r.corr, &c.launch, &c.tid);
    const tl_probe_keep k = {.p = ps->p, .own = ps->own, .me = ps->me, .comm = ps->comm, .off = ps->off};
    if (tl_probe_keep_own(&k, &c, g) && c.r.kind == TL_KIND_KERNEL)
        g->recs[g->n - 1].name = tl_names_copy(ps->nc, c.r.name, st);
}

/* The names of g->recs point into nc's copies or static strings. */
static tl_status tl_parse(tl_probes *p, tl_probes *const *round, int nround, const tl_cbuf *bufs,
                          int nbufs, int64_t off, tl_probe_gpu *g, tl_namecopy *nc)
{
    tl_status st = TL_OK;
    tl_corrmap cm = {0};
    tl_ctxdev cd = {.n = 0};
    tl_owner_rank ranks[256];
    tl_probe_owners own = {.n = 0};
    tl_probe_commidx comm = {0};
    size_t napi = 0, ngpu = 0;
    CUpti_Activity *it;
    TL_CHECK(nround > 0 && nround <= 256, TL_ERR_INVAL, "probes: a round of %d ranks", nround);
    int me = tl_probe_owners_of_round(&own, ranks, round, nround, p);
    TL_CHECK(me >= 0, TL_ERR_INVAL, "probes: rank %d is not in its collection round", p->rank);
    TL_TRY(tl_probe_commidx_build(p, &comm));
    count_records(bufs, nbufs, &cd, &napi, &ngpu); /* pass 1 */
    if (napi) {
        size_t cap = 16;
        while (cap < 2 * napi)
            cap *= 2;
        cm.key = calloc(cap, sizeof *cm.key);
        cm.t = malloc(cap * sizeof *cm.t);
        cm.tid = malloc(cap * sizeof *cm.tid);
        cm.mask = cap - 1;
        if (!cm.key || !cm.t || !cm.tid) {
            st = TL_FAIL(TL_ERR_NOMEM, "probes: correlation map of %zu", cap);
            goto fail;
        }
    }
    g->recs = malloc((ngpu ? ngpu : 1) * sizeof *g->recs);
    if (!g->recs) {
        st = TL_FAIL(TL_ERR_NOMEM, "probes: %zu GPU records", ngpu);
        goto fail;
    }
    /* Pass 2: launches, with their threads. */
    for (int b = 0; b < nbufs; b++) {
        it = NULL;
        while (cuptiActivityGetNextRecord(bufs[b].data, bufs[b].valid, &it) == CUPTI_SUCCESS)
            if (it->kind == CUPTI_ACTIVITY_KIND_RUNTIME || it->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
                const CUpti_ActivityAPI *api = (const CUpti_ActivityAPI *)it;
                tl_corr_put(&cm, api->correlationId, (int64_t)api->start + off, api->threadId);
            }
    }
    /* Pass 3: the streams' owners by the decisive rules, for the vote of
     * records whose launch is not known (NCCL's driver launches). */
    for (int b = 0; nround > 1 && b < nbufs; b++) {
        it = NULL;
        while (cuptiActivityGetNextRecord(bufs[b].data, bufs[b].valid, &it) == CUPTI_SUCCESS) {
            tl_trace_record r;
            uint32_t stream = 0, tid = 0;
            int64_t launch;
            if (!tl_decode(it, off, &cd, NULL, &st, &r, &stream) || r.kind == TL_KIND_SYNC)
                continue;
            tl_corr_get(&cm, (uint32_t)r.corr, &launch, &tid);
            tl_owner_rule rule;
            int o = tl_probe_owner_of(&own, r.device, stream, tid, &rule);
            if (o >= 0 && rule <= TL_OWN_THREAD)
                TL_TRYGOTO(tl_probe_owner_vote(&own, r.device, stream, o), st, fail);
        }
    }
    /* Pass 4: this rank's records. */
    for (int b = 0; b < nbufs; b++) {
        it = NULL;
        while (cuptiActivityGetNextRecord(bufs[b].data, bufs[b].valid, &it) == CUPTI_SUCCESS) {
            if (it->kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
                tl_overhead(p, &own, me, it, off, g);
                continue;
            }
            keep_own(&(own_pass){p, &own, me, &cm, &comm, &cd, nc, off}, it, g, &st);
        }
    }
    if (p->infer_lanes) TL_TRYGOTO(tl_probe_infer_lanes(g, p), st, fail);
fail:
    free(cm.key);
    free(cm.t);
    free(cm.tid);
    tl_probe_owners_free(&own);
    tl_probe_commidx_free(&comm);
    return st;
}

tl_status tl_probe_convert(tl_probes *p, tl_probes *const *round, int nround, const tl_cbuf *bufs,
                           int nbufs, int64_t offset_ns, tl_probe_gpu *g)
{
    tl_namecopy nc = {0};
    tl_status st = tl_parse(p, round, nround, bufs, nbufs, offset_ns, g, &nc);
    /* The name copies go with g and are freed with it. */
    g->names = nc.copy;
    g->nnames = nc.cap;
    free(nc.key);
    return st;
}

#endif
