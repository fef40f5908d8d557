/* The CUPTI activity collector, one per process.
 *
 * Why a process-wide object (the one exception to "no mutable globals"):
 * CUPTI delivers the activity records of every thread of the process to one
 * subscriber, and its buffer callbacks carry no user pointer. So the
 * collector is a single static struct, reference-counted by the ranks that
 * attach (one per process under MPI, one per GPU thread under the thread
 * launcher, one in injection mode), guarded by two mutexes:
 *   life  serialises start/stop (subscribe, enable, flush, disable); never
 *         taken inside a CUPTI callback;
 *   mu    guards the buffer list; taken by the buffer callbacks, held only
 *         briefly, and never while calling a CUPTI function that may call
 *         back (flush, enable, disable).
 * Completed buffers stay in memory untouched until the ranks collect them
 * (no parsing, no I/O while the program runs); at most max_buffers exist,
 * beyond that a request gets no buffer and CUPTI counts what it drops.
 * Ranks collect in tl_probes_destroy, in rounds (see tl_probe_cupti_collect):
 * the last to arrive flushes and converts the buffers for every rank of the
 * round (probes_convert.c: records of the rank's own device, all of them in
 * injection mode) and frees them; the last rank out stops CUPTI.
 *
 * Timestamps: a timestamp callback hands CUPTI CLOCK_MONOTONIC ns, so CUPTI
 * converts GPU timestamps to the same clock as the host ranges. */
#include "probes/rank_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"

const char *tl_cupti_status_name(tl_cupti_status s)
{
    switch (s) {
    case TL_CUPTI_OFF:
        return "off";
    case TL_CUPTI_ON:
        return "on";
    case TL_CUPTI_SKIPPED_SUBSCRIBER:
        return "skipped-subscriber";
    case TL_CUPTI_UNAVAILABLE:
        return "unavailable";
    }
    return "?";
}

/* Names in TRILAP_CUPTI_KINDS, in the order of TL_CUPTI_KIND_* */
static const char *const tl_cupti_kind_names[TL_CUPTI_NKINDS] = {"kernel", "memcpy", "memset", "sync", "overhead"};

/* One item of TRILAP_CUPTI_KINDS (not empty) into *kinds. */
static tl_status tl_cupti_kind_item(const char *value, const char *item, size_t n, unsigned *kinds)
{
    for (int k = 0; k < TL_CUPTI_NKINDS; k++)
        if (strlen(tl_cupti_kind_names[k]) == n && !strncmp(item, tl_cupti_kind_names[k], n)) {
            *kinds |= 1u << k;
            return TL_OK;
        }
    return TL_FAIL(TL_ERR_INVAL, "TRILAP_CUPTI_KINDS='%s': '%.*s' is not an activity kind (kernel, memcpy, memset, sync, "
                   "overhead)", value, (int)n, item);
}

/* Read when probes are made, so that a typo stops them before the run:
 * before, TRILAP_CUPTI_KINDS=kernels enabled no kind at all (an empty
 * trace) and TRILAP_CUPTI_API=drivr was the default, without a word. */
tl_status tl_probe_cupti_env(unsigned *kinds, tl_cupti_api *api)
{
    *kinds = (1u << TL_CUPTI_NKINDS) - 1;
    *api = TL_CUPTI_API_LAUNCH;
    const char *v = getenv("TRILAP_CUPTI_KINDS");
    if (v && *v) {
        *kinds = 0;
        for (const char *p = v; *p;) {
            size_t n = strcspn(p, ",");
            if (n) TL_TRY(tl_cupti_kind_item(v, p, n, kinds));
            p += n + (p[n] == ',');
        }
        TL_CHECK(*kinds, TL_ERR_INVAL, "TRILAP_CUPTI_KINDS='%s' names no activity kind (kernel, memcpy, memset, sync, "
                 "overhead)", v);
    }
    const char *m = getenv("TRILAP_CUPTI_API");
    if (!m || !*m) return TL_OK;
    if (!strcmp(m, "driver")) *api = TL_CUPTI_API_DRIVER;
    else if (!strcmp(m, "all")) *api = TL_CUPTI_API_ALL;
    else
        return TL_FAIL(TL_ERR_INVAL, "TRILAP_CUPTI_API='%s' is neither 'driver' nor 'all' (unset: the runtime's "
                       "launch, copy, memset and host-wait calls)", m);
    return TL_OK;
}

/* API records relate GPU work to the host iteration that launched it and
 * name the thread that made each call, so runtime calls that enqueue no
 * work and do not wait (events, queries, attribute reads) are left out by
 * name: recording every runtime call cost +21% per iteration of the
 * traced three-stream loop on 2 H200s, the launch calls alone +3%
 * (results/trace-overhead-allapi-h200x2, trace-overhead-h200x2). CUPTI
 * honours per-API switches only as exceptions to an enabled kind. NCCL
 * launches its kernels through the driver API; recording driver launches
 * (the DRIVER kind, filtered the same way) cost +18% and still did not
 * find NCCL's launches (NCCL 2.28.3), so it is off unless
 * TRILAP_CUPTI_API=driver; TRILAP_CUPTI_API=all records every runtime and
 * driver call. GPU records whose launch is not found keep iter -1 (counted
 * in the iter_unknown metadata) and are placed by time by the analysis. */
static const char *const tl_api_work_prefixes[] = {"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaGraphLaunch",
                                                   "cuLaunch",   "cuMemcpy",   "cuMemset",   "cuGraphLaunch"};
/* The host waits CUPTI's SYNCHRONIZATION records report. Their records
 * carry no thread, and an event or context wait no stream, so between
 * ranks sharing a process and a GPU only the API record of the call (its
 * thread) says whose wait it is: without it every rank's
 * cudaEventSynchronize was guessed, all into one rank's trace
 * (results/multirank-h200/pcg-threads-r2: rank 1 held 3648, rank 0 none).
 * The calls block, so their records cost what the wait hides.
 * cudaStreamWaitEvent is left out: it does not block (recording it costs
 * as a launch does), and its record names its stream, which the stream
 * rule reads. */
static const char *const tl_api_wait_prefixes[] = {"cudaEventSynchronize", "cudaStreamSynchronize",
                                                   "cudaDeviceSynchronize", "cudaThreadSynchronize",
                                                   "cuEventSynchronize",   "cuStreamSynchronize",
                                                   "cuCtxSynchronize"};

static int tl_name_has_prefix(const char *name, const char *const *prefixes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return 0;
}

int tl_probe_cupti_api_recorded(const char *name)
{
    size_t nwork = sizeof tl_api_work_prefixes / sizeof *tl_api_work_prefixes;
    size_t nwait = sizeof tl_api_wait_prefixes / sizeof *tl_api_wait_prefixes;
    return tl_name_has_prefix(name, tl_api_work_prefixes, nwork) ||
           tl_name_has_prefix(name, tl_api_wait_prefixes, nwait);
}

#if TL_HAVE_CUPTI
#include <cupti.h>
#include <pthread.h>

uint32_t tl_probe_cupti_version(void)
{
    uint32_t v = 0;
    return cuptiGetVersion(&v) == CUPTI_SUCCESS ? v : 0;
}

/* In the order of TL_CUPTI_KIND_* (tl_cupti_kind_names) */
static const CUpti_ActivityKind tl_cupti_kinds[TL_CUPTI_NKINDS] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, /* never KIND_KERNEL: it serialises kernels */
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};
enum { TL_NKINDS = TL_CUPTI_NKINDS };

/* Polled or trivial runtime calls (a watchdog loop calls cudaStreamQuery
 * thousands of times a second): no launch, no iteration to find. */
static const CUpti_CallbackId tl_runtime_quiet[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
};
static const struct {
    CUpti_ActivityKind kind;
    CUpti_CallbackDomain domain;
    CUpti_CallbackId nids;
    int by_default;
} tl_api_domains[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 1},
    {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 0},
};

/* enable=1: API records of the calls api asks for; enable=0: none. */
static CUptiResult tl_cupti_api_records(int enable, tl_cupti_api api)
{
    int keep_all = api == TL_CUPTI_API_ALL;
    int driver = api != TL_CUPTI_API_LAUNCH;
    for (size_t d = 0; d < sizeof tl_api_domains / sizeof tl_api_domains[0]; d++) {
        if (!enable) {
            cuptiActivityDisable(tl_api_domains[d].kind);
            continue;
        }
        if (!tl_api_domains[d].by_default && !driver) continue;
        CUptiResult r = cuptiActivityEnable(tl_api_domains[d].kind);
        if (r != CUPTI_SUCCESS) return r;
        if (keep_all) continue;
        for (CUpti_CallbackId id = 1; id < tl_api_domains[d].nids; id++) {
            const char *name = NULL;
            if (cuptiGetCallbackName(tl_api_domains[d].domain, id, &name) != CUPTI_SUCCESS || !name ||
                tl_probe_cupti_api_recorded(name))
                continue;
            if (tl_api_domains[d].domain == CUPTI_CB_DOMAIN_RUNTIME_API)
                cuptiActivityEnableRuntimeApi(id, 0);
            else
                cuptiActivityEnableDriverApi(id, 0);
        }
    }
    /* polled calls, in case a CUPTI names them differently */
    for (size_t i = 0; enable && !keep_all && i < sizeof tl_runtime_quiet / sizeof tl_runtime_quiet[0]; i++)
        cuptiActivityEnableRuntimeApi(tl_runtime_quiet[i], 0);
    return CUPTI_SUCCESS;
}

/* A rank waiting in tl_probe_cupti_collect: the round's last rank fills
 * its records and status. */
typedef struct tl_round_entry {
    tl_probes *p;
    tl_probe_gpu *g;
    tl_status *st;
} tl_round_entry;
enum { TL_MAX_ROUND = 256 };

static struct {
    pthread_mutex_t life, mu;
    int refs;   /* ranks attached */
    int active; /* CUPTI collecting */
    int warned; /* the skip message is said once per process */
    size_t buffer_bytes;
    int max_buffers;
    int nalloc;    /* buffers that exist (with CUPTI or completed) */
    tl_cbuf *done; /* completed, max_buffers slots */
    int ndone;
    uint64_t dropped, refused;
    CUpti_SubscriberHandle sub;
    pthread_cond_t cv;                  /* ranks waiting in collect for the others */
    tl_round_entry round[TL_MAX_ROUND]; /* ranks in collect, this round */
    int nround;
    uint64_t gen;           /* collect rounds: a flush ends one */
    int64_t clock_offset;   /* added to CUPTI times: 0 with the timestamp callback */
    const char *clock_mode; /* "callback" or "offset" */
} tl_cupti = {.life = PTHREAD_MUTEX_INITIALIZER,
              .mu = PTHREAD_MUTEX_INITIALIZER,
              .cv = PTHREAD_COND_INITIALIZER};

static uint64_t CUPTIAPI tl_cupti_clock(void)
{
    return (uint64_t)tl_clock_ns();
}

static void CUPTIAPI tl_cupti_noop(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id,
                                   const void *data)
{
}

static void CUPTIAPI tl_cupti_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    pthread_mutex_lock(&tl_cupti.mu);
    if (tl_cupti.active && tl_cupti.nalloc < tl_cupti.max_buffers) {
        /* CUPTI wants 8-byte alignment; malloc gives 16. */
        uint8_t *b = malloc(tl_cupti.buffer_bytes);
        if (b) {
            tl_cupti.nalloc++;
            *buffer = b;
            *size = tl_cupti.buffer_bytes;
        }
    }
    if (!*buffer && tl_cupti.active) tl_cupti.refused++;
    pthread_mutex_unlock(&tl_cupti.mu);
}

static void CUPTIAPI tl_cupti_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                       size_t valid)
{
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
    pthread_mutex_lock(&tl_cupti.mu);
    tl_cupti.dropped += dropped;
    if (valid > 0 && tl_cupti.active && tl_cupti.ndone < tl_cupti.max_buffers) {
        tl_cupti.done[tl_cupti.ndone++] = (tl_cbuf){buffer, valid};
    } else {
        free(buffer);
        tl_cupti.nalloc--;
    }
    pthread_mutex_unlock(&tl_cupti.mu);
}

static const char *tl_cupti_err(CUptiResult r)
{
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    return s ? s : "unknown CUPTI error";
}

/* Under life. Returns the status for the rank. */
static tl_cupti_status tl_cupti_start(const tl_probes *p)
{
    CUptiResult r = cuptiSubscribe(&tl_cupti.sub, tl_cupti_noop, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        if (!tl_cupti.warned++)
            tl_log("probes: another CUPTI client is attached (Nsight Systems/Compute, "
                   "compute-sanitizer?): keeping NVTX and host ranges, no CUPTI activity "
                   "(cupti_status=skipped-subscriber)");
        return TL_CUPTI_SKIPPED_SUBSCRIBER;
    }
    if (r != CUPTI_SUCCESS) {
        if (!tl_cupti.warned++)
            tl_log("probes: cuptiSubscribe: %s: host ranges only (cupti_status=unavailable)",
                   tl_cupti_err(r));
        return TL_CUPTI_UNAVAILABLE;
    }
    const char *what = "cuptiActivityRegisterCallbacks";
    tl_cupti.clock_offset = 0;
    r = cuptiActivityRegisterTimestampCallback(tl_cupti_clock);
    tl_cupti.clock_mode = r == CUPTI_SUCCESS ? "callback" : "offset";
    if (r != CUPTI_SUCCESS) {
        /* Calibrated anchor instead: CUPTI's own clock read between two
         * reads of ours, the tightest pair of a few. */
        int64_t best = INT64_MAX;
        for (int i = 0; i < 16; i++) {
            uint64_t c = 0;
            int64_t t0 = tl_clock_ns();
            if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) break;
            int64_t t1 = tl_clock_ns();
            if (t1 - t0 < best) {
                best = t1 - t0;
                tl_cupti.clock_offset = t0 + (t1 - t0) / 2 - (int64_t)c;
            }
        }
        tl_log("probes: cuptiActivityRegisterTimestampCallback: %s: CUPTI times shifted by a "
               "measured offset (within %" PRId64 " ns) instead",
               tl_cupti_err(r), best);
    }
    /* API records name the OS thread (gettid) that made the call, which is
     * how ranks sharing a process and a device tell their launches apart. */
    if (cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) != CUPTI_SUCCESS)
        tl_log("probes: cuptiSetThreadIdType(SYSTEM) failed: ranks sharing a GPU in one process are "
               "told apart by their streams only");
    r = cuptiActivityRegisterCallbacks(tl_cupti_request, tl_cupti_complete);
    pthread_mutex_lock(&tl_cupti.mu);
    tl_cupti.buffer_bytes = p->cfg.buffer_bytes;
    tl_cupti.max_buffers = p->cfg.max_buffers;
    tl_cupti.done = calloc((size_t)p->cfg.max_buffers, sizeof *tl_cupti.done);
    tl_cupti.ndone = 0;
    tl_cupti.dropped = tl_cupti.refused = 0; /* counts are per session */
    tl_cupti.active = tl_cupti.done != NULL;
    pthread_mutex_unlock(&tl_cupti.mu);
    if (!tl_cupti.done) {
        what = "calloc";
        r = CUPTI_ERROR_OUT_OF_MEMORY;
    }
    int enabled = 0;
    for (; r == CUPTI_SUCCESS && enabled < TL_NKINDS; enabled++) {
        what = "cuptiActivityEnable";
        if (!(p->cupti_kinds & (1u << enabled))) continue;
        r = cuptiActivityEnable(tl_cupti_kinds[enabled]);
        if (r != CUPTI_SUCCESS) break;
    }
    if (r == CUPTI_SUCCESS) {
        what = "cuptiActivityEnable(RUNTIME)";
        r = tl_cupti_api_records(1, p->cupti_api);
    }
    if (r == CUPTI_SUCCESS) {
        /* No records for event/stream queries that find work unfinished:
         * a polling loop would fill the buffers with them. */
        cuptiActivityEnableAllSyncRecords(0);
        return TL_CUPTI_ON;
    }
    for (int k = 0; k < enabled; k++)
        cuptiActivityDisable(tl_cupti_kinds[k]);
    tl_cupti_api_records(0, TL_CUPTI_API_LAUNCH);
    cuptiUnsubscribe(tl_cupti.sub);
    pthread_mutex_lock(&tl_cupti.mu);
    tl_cupti.active = 0;
    free(tl_cupti.done);
    tl_cupti.done = NULL;
    pthread_mutex_unlock(&tl_cupti.mu);
    tl_cupti_status st = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                             ? TL_CUPTI_SKIPPED_SUBSCRIBER
                             : TL_CUPTI_UNAVAILABLE;
    if (!tl_cupti.warned++)
        tl_log("probes: %s: %s: keeping NVTX and host ranges, no CUPTI activity (cupti_status=%s)",
               what, tl_cupti_err(r), tl_cupti_status_name(st));
    return st;
}

void tl_probe_cupti_attach(tl_probes *p)
{
    pthread_mutex_lock(&tl_cupti.life);
    tl_cupti_status st = tl_cupti.refs > 0 ? TL_CUPTI_ON : tl_cupti_start(p);
    if (st == TL_CUPTI_ON) {
        tl_cupti.refs++;
        p->cupti_attached = 1;
    }
    p->cupti = st;
    pthread_mutex_unlock(&tl_cupti.life);
}

uint32_t tl_probe_cupti_stream_id(void *stream)
{
    uint32_t id = 0;
    if (cuptiGetStreamIdEx(NULL, (CUstream)stream, 0, &id) != CUPTI_SUCCESS) return 0;
    return id;
}

uint64_t tl_probe_cupti_dropped(void)
{
    pthread_mutex_lock(&tl_cupti.mu);
    uint64_t d = tl_cupti.dropped;
    /* A refused buffer means CUPTI had nowhere to put records. */
    if (tl_cupti.refused && !d) d = tl_cupti.refused;
    pthread_mutex_unlock(&tl_cupti.mu);
    return d;
}

/* Collection happens in rounds. Every rank of the process that uses CUPTI
 * reaches here (tl_probes_destroy) before the buffers are flushed: CUPTI's
 * buffers are global, and a forced flush while another rank's kernels still
 * run would hand over its records unfinished. The last rank to arrive
 * flushes, parses the buffers for every rank of the round, frees them, and
 * wakes the others; so a rank that goes on to trace again (the benchmark
 * traces one variant after another) never sees the previous round's
 * records, and memory does not pile up. A rank that does not arrive within
 * TL_COLLECT_WAIT_S is left for a later round (said on stderr; records of it
 * that were in the flushed buffers are lost, and unfinished ones counted). */
enum { TL_COLLECT_WAIT_S = 60 };

/* Under life. */
static void tl_round_finish(void)
{
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS) tl_log("probes: cuptiActivityFlushAll: %s", tl_cupti_err(r));
    pthread_mutex_lock(&tl_cupti.mu);
    /* Ranks of one process share CUPTI's buffers: each takes the records it
     * issued (probes_owner.c), decided against the whole round. */
    tl_probes *ps[TL_MAX_ROUND];
    for (int i = 0; i < tl_cupti.nround; i++)
        ps[i] = tl_cupti.round[i].p;
    for (int i = 0; i < tl_cupti.nround; i++) {
        tl_probe_gpu *g = tl_cupti.round[i].g;
        *tl_cupti.round[i].st = tl_probe_convert(tl_cupti.round[i].p, ps, tl_cupti.nround, tl_cupti.done,
                                                 tl_cupti.ndone, tl_cupti.clock_offset, g);
        g->clock = tl_cupti.clock_mode;
        tl_cupti.round[i].p->cupti_attached = 0;
    }
    for (int b = 0; b < tl_cupti.ndone; b++)
        free(tl_cupti.done[b].data);
    tl_cupti.nalloc -= tl_cupti.ndone;
    tl_cupti.ndone = 0;
    pthread_mutex_unlock(&tl_cupti.mu);
    tl_cupti.refs -= tl_cupti.nround;
    tl_cupti.nround = 0;
    tl_cupti.gen++;
    pthread_cond_broadcast(&tl_cupti.cv);
    if (tl_cupti.refs > 0) return;
    /* The last rank out stops CUPTI. */
    for (int k = 0; k < TL_NKINDS; k++)
        cuptiActivityDisable(tl_cupti_kinds[k]);
    tl_cupti_api_records(0, TL_CUPTI_API_LAUNCH);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    cuptiUnsubscribe(tl_cupti.sub);
    pthread_mutex_lock(&tl_cupti.mu);
    for (int b = 0; b < tl_cupti.ndone; b++)
        free(tl_cupti.done[b].data);
    tl_cupti.nalloc -= tl_cupti.ndone;
    tl_cupti.ndone = 0;
    tl_cupti.active = 0;
    free(tl_cupti.done);
    tl_cupti.done = NULL;
    pthread_mutex_unlock(&tl_cupti.mu);
}

tl_status tl_probe_cupti_collect(tl_probes *p, tl_probe_gpu *g)
{
    tl_status st = TL_OK;
    memset(g, 0, sizeof *g);
    if (!p->cupti_attached) return TL_OK;
    pthread_mutex_lock(&tl_cupti.life);
    if (tl_cupti.nround == TL_MAX_ROUND) tl_round_finish();
    tl_cupti.round[tl_cupti.nround++] = (tl_round_entry){.p = p, .g = g, .st = &st};
    uint64_t gen = tl_cupti.gen;
    if (tl_cupti.nround < tl_cupti.refs) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += TL_COLLECT_WAIT_S;
        while (tl_cupti.gen == gen)
            if (pthread_cond_timedwait(&tl_cupti.cv, &tl_cupti.life, &deadline) == ETIMEDOUT) break;
    }
    if (tl_cupti.gen == gen) {
        if (tl_cupti.nround < tl_cupti.refs)
            tl_log("probes: only %d of the %d ranks of this process reached tl_probes_destroy "
                   "within %d s; "
                   "collecting without the others",
                   tl_cupti.nround, tl_cupti.refs, (int)TL_COLLECT_WAIT_S);
        tl_round_finish();
    }
    pthread_mutex_unlock(&tl_cupti.life);
    return st;
}

#else /* !TL_HAVE_CUPTI */

uint32_t tl_probe_cupti_version(void)
{
    return 0;
}

void tl_probe_cupti_attach(tl_probes *p)
{
    p->cupti = TL_CUPTI_UNAVAILABLE;
    p->cupti_attached = 0;
}
uint32_t tl_probe_cupti_stream_id(void *stream)
{
    return 0;
}
uint64_t tl_probe_cupti_dropped(void)
{
    return 0;
}
tl_status tl_probe_cupti_collect(tl_probes *p, tl_probe_gpu *g)
{
    memset(g, 0, sizeof *g);
    return TL_OK;
}

#endif
