/* Per-rank GPU state: the stream trio, the NCCL communicators and the
 * watchdog. Communicators are created non-blocking (config.blocking = 0) so
 * that neither init nor a collective a peer never joins can hang the run:
 * every wait polls ncclCommGetAsyncError and gives up after the timeout,
 * aborting the communicators and naming rank, operation and reason. */
#include "runtime/gpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/timing.h"

#define TL_GPU_DEFAULT_TIMEOUT_S 300.0

/* ---- helpers that need only CUDA ----------------------------------------------- */

int tl_gpu_count(void)
{
#if TL_HAVE_CUDA
    int n = 0;
    /* no driver or no device is not an error here: it means host-only */
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

tl_status tl_gpu_bind(int device)
{
#if TL_HAVE_CUDA
    TL_CUDA(cudaSetDevice(device));
    return TL_OK;
#else
    return TL_FAIL(TL_ERR_UNSUPPORTED, "device %d: this build has no CUDA (nvcc was not found)", device);
#endif
}

void tl_gpu_device_name(int device, char *buf, size_t n)
{
    snprintf(buf, n, "none");
#if TL_HAVE_CUDA
    struct cudaDeviceProp prop;
    if (device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess)
        snprintf(buf, n, "%s (device %d, PCI %04x:%02x:%02x)", prop.name, device, (unsigned)prop.pciDomainID,
                 (unsigned)prop.pciBusID, (unsigned)prop.pciDeviceID);
    else cudaGetLastError();
#endif
}

#if TL_HAVE_CUDA
static void cuda_version_text(int v, char *buf, size_t n)
{
    if (v <= 0) snprintf(buf, n, "none");
    else snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}
#endif

void tl_gpu_versions(char *cuda_rt, size_t n1, char *driver, size_t n2, char *nccl, size_t n3)
{
    snprintf(cuda_rt, n1, "none");
    snprintf(driver, n2, "none");
    snprintf(nccl, n3, "none");
#if TL_HAVE_CUDA
    int rt = 0, drv = 0;
    if (cudaRuntimeGetVersion(&rt) == cudaSuccess) cuda_version_text(rt, cuda_rt, n1);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    char api[32];
    cuda_version_text(drv, api, sizeof api);
    /* the kernel module's own version ("580.95.05"), which cudaDriverGetVersion does not give */
    char kmod[64] = "";
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        char line[256];
        /* "NVRM version: NVIDIA UNIX [Open ]Kernel Module for x86_64  580.95.05  Release ...":
         * the first token shaped like a version */
        if (fgets(line, sizeof line, f)) {
            char *save = NULL;
            for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
                unsigned a = 0, b = 0;
                if (sscanf(t, "%u.%u", &a, &b) == 2) {
                    snprintf(kmod, sizeof kmod, "%s", t);
                    break;
                }
            }
        }
        fclose(f);
    }
    if (kmod[0]) snprintf(driver, n2, "%s (CUDA %s)", kmod, api);
    else if (drv > 0) snprintf(driver, n2, "CUDA %s", api);
#endif
#if TL_HAVE_NCCL
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess && v > 0)
        snprintf(nccl, n3, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
#endif
}

#if TL_HAVE_CUDA && TL_HAVE_NCCL

/* ---- watchdog -------------------------------------------------------------------- */

static double elapsed_s(int64_t t0) { return (double)(tl_time_ns() - t0) * 1e-9; }

/* Latency matters when timing: spin first, then back off to short sleeps. */
static void backoff(int64_t t0)
{
    double el = elapsed_s(t0);
    if (el < 1e-3) {
        sched_yield();
        return;
    }
    struct timespec nap = {0, el < 0.1 ? 50000 : 1000000};
    nanosleep(&nap, NULL);
}

static void abort_comms(tl_gpu *g)
{
    if (g->split) ncclCommAbort(g->split);
    if (g->world) ncclCommAbort(g->world);
    g->split = NULL;
    g->world = NULL;
}

/* An NCCL error on one of this rank's communicators (ncclSuccess if none). */
static ncclResult_t comm_error(tl_gpu *g, const char **which, const char **detail)
{
    ncclComm_t comms[2] = {g->world, g->split};
    static const char *const names[2] = {"world", "split"};
    for (int i = 0; i < 2; i++) {
        ncclResult_t r = ncclSuccess;
        if (!comms[i]) continue;
        ncclResult_t q = ncclCommGetAsyncError(comms[i], &r);
        if (q != ncclSuccess) r = q;
        if (r != ncclSuccess && r != ncclInProgress) {
            *which = names[i];
            *detail = ncclGetLastError(comms[i]);
            return r;
        }
    }
    return ncclSuccess;
}

/* ncclCommAbort frees pinned memory (cuMemFreeHost), which waits for the
 * device; when the stuck kernel never sees the abort flag the abort itself
 * hangs. Seen with NCCL 2.28.3 under mpirun on 2 H200s: rank 0 in
 * cuMemFreeHost inside ncclCommAbort, its allreduce kernel waiting for a
 * peer that never joined (results/device-logs/mismatch-bt.txt). So the abort
 * runs under a deadline: past it the process exits with the reason already
 * printed, as NCCL watchdogs elsewhere do (PyTorch's TORCH_NCCL_ASYNC_ERROR_
 * HANDLING) — the one place the library ends the process, because nothing
 * else can return from a hung driver call. */
enum { TL_ABORT_DEADLINE_S = 10 };

typedef struct abort_deadline {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
} abort_deadline;

static void *abort_deadline_main(void *arg)
{
    abort_deadline *d = arg;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += TL_ABORT_DEADLINE_S;
    pthread_mutex_lock(&d->mu);
    while (!d->done)
        if (pthread_cond_timedwait(&d->cv, &d->mu, &until) == ETIMEDOUT && !d->done) {
            fprintf(stderr, "%sncclCommAbort did not return within %d s (a kernel still running on the GPU); "
                            "exiting\n", tl_log_prefix(), TL_ABORT_DEADLINE_S);
            fflush(stderr);
            _exit(1);
        }
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Tell the other ranks, then abort the communicators under the deadline. */
static void give_up(tl_ctx *ctx, tl_gpu *g)
{
    tl_comm_announce_failure(ctx);
    abort_deadline d = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    pthread_t th;
    int started = pthread_create(&th, NULL, abort_deadline_main, &d) == 0;
    abort_comms(g);
    if (!started) return;
    pthread_mutex_lock(&d.mu);
    d.done = 1;
    pthread_cond_signal(&d.cv);
    pthread_mutex_unlock(&d.mu);
    pthread_join(th, NULL);
}

/* One wait loop for every watched operation. done() returns 1 when finished,
 * 0 while running, -1 on its own error (already reported). Failures are
 * reported before the communicators are aborted, so the reason is printed
 * even if the abort never returns. */
typedef int (*tl_done_fn)(void *arg, tl_status *st);

static tl_status watch(tl_ctx *ctx, tl_gpu *g, const char *what, tl_done_fn done, void *arg)
{
    int64_t t0 = tl_time_ns();
    double timeout = g->timeout_s > 0 ? g->timeout_s : TL_GPU_DEFAULT_TIMEOUT_S;
    for (;;) {
        tl_status st = TL_OK;
        int d = done(arg, &st);
        if (d > 0) return TL_OK;
        const char *which = NULL, *detail = NULL;
        ncclResult_t r = d < 0 ? ncclSuccess : comm_error(g, &which, &detail);
        if (d < 0) {
            /* done() has reported it */
        } else if (r != ncclSuccess) {
            st = TL_FAIL(TL_ERR_NCCL, "rank %d: %s: NCCL error on the %s communicator: %s%s%s; aborting the communicators",
                         ctx->rank, what, which, ncclGetErrorString(r), detail && *detail ? ": " : "",
                         detail ? detail : "");
        } else if (tl_comm_peer_failed(ctx)) {
            tl_log("%s: another rank failed; aborting the NCCL communicators", what);
            st = TL_ERR_REMOTE;
        } else if (elapsed_s(t0) > timeout) {
            st = TL_FAIL(TL_ERR_TIMEOUT,
                         "rank %d: %s: not finished after %.0f s (a rank missing from a collective, or a "
                         "mismatched send/recv?); aborting the communicators",
                         ctx->rank, what, timeout);
        } else {
            backoff(t0);
            continue;
        }
        give_up(ctx, g);
        return st;
    }
}

typedef struct stream_wait {
    tl_gpu *g;
    cudaStream_t s;
    const char *what;
} stream_wait;

/* Done when the stream is idle and no communicator is still setting up
 * connections in the background: an NCCL call that returned ncclInProgress
 * has not enqueued its kernel yet, so an idle stream proves nothing. */
static int stream_done(void *arg, tl_status *st)
{
    stream_wait *w = arg;
    cudaError_t e = cudaStreamQuery(w->s);
    if (e == cudaErrorNotReady) return 0;
    if (e != cudaSuccess) {
        *st = TL_FAIL(TL_ERR_CUDA, "%s: cudaStreamQuery: %s (%s)", w->what, cudaGetErrorString(e),
                      cudaGetErrorName(e));
        return -1;
    }
    ncclComm_t comms[2] = {w->g->world, w->g->split};
    for (int i = 0; i < 2; i++) {
        ncclResult_t r = ncclSuccess;
        if (comms[i] && ncclCommGetAsyncError(comms[i], &r) == ncclSuccess && r == ncclInProgress) return 0;
    }
    return 1;
}

tl_status tl_gpu_sync(tl_ctx *ctx, cudaStream_t s, const char *what)
{
    TL_CHECK(ctx->gpu, TL_ERR_INVAL, "%s: no GPU state (call tl_gpu_create first)", what);
    stream_wait w = {ctx->gpu, s, what};
    TL_TRY(watch(ctx, ctx->gpu, what, stream_done, &w));
    return TL_OK;
}

typedef struct comm_wait {
    ncclComm_t comm;
    const char *what;
} comm_wait;

static int comm_ready(void *arg, tl_status *st)
{
    comm_wait *w = arg;
    ncclResult_t r = ncclSuccess;
    ncclResult_t q = ncclCommGetAsyncError(w->comm, &r);
    if (q != ncclSuccess) r = q;
    if (r == ncclSuccess) return 1;
    if (r == ncclInProgress) return 0;
    *st = TL_FAIL(TL_ERR_NCCL, "%s: %s: %s", w->what, ncclGetErrorString(r), ncclGetLastError(w->comm));
    return -1;
}

/* Wait for a communicator that is not (yet) in g: init and split. */
static tl_status wait_new_comm(tl_ctx *ctx, tl_gpu *g, ncclComm_t *comm, const char *what)
{
    comm_wait w = {*comm, what};
    int64_t t0 = tl_time_ns();
    double timeout = g->timeout_s > 0 ? g->timeout_s : TL_GPU_DEFAULT_TIMEOUT_S;
    for (;;) {
        tl_status st = TL_OK;
        int d = comm_ready(&w, &st);
        if (d > 0) return TL_OK;
        const char *why = d < 0 ? NULL : tl_comm_peer_failed(ctx) ? "another rank failed"
                                       : elapsed_s(t0) > timeout ? "timed out" : NULL;
        if (d < 0 || why) {
            tl_comm_announce_failure(ctx); /* a blocking init can wait on the peers too */
            ncclCommAbort(*comm);
            *comm = NULL;
            if (d < 0) return st;
            if (why[0] == 'a') return TL_ERR_REMOTE;
            return TL_FAIL(TL_ERR_TIMEOUT, "rank %d: %s: not complete after %.0f s (are all %d ranks running?); aborted",
                           ctx->rank, what, timeout, ctx->size);
        }
        backoff(t0);
    }
}

tl_status tl_nccl_ready(tl_ctx *ctx, ncclComm_t comm, const char *what)
{
    TL_CHECK(ctx->gpu && comm, TL_ERR_INVAL, "%s: no communicator", what);
    comm_wait w = {comm, what};
    TL_TRY(watch(ctx, ctx->gpu, what, comm_ready, &w));
    return TL_OK;
}

/* ---- communicators ------------------------------------------------------------------ */

/* The bootstrap communicator is non-blocking, so a rank that never joins
 * turns into a timeout instead of a hang. The communicators handed to the
 * programs are blocking splits of it: on a non-blocking communicator any
 * NCCL call may return ncclInProgress, and the next call on it must wait
 * until it is ready, a rule every caller would have to follow. */
static tl_status bootstrap(tl_ctx *ctx, tl_gpu *g, ncclComm_t *boot)
{
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    tl_status st = TL_OK;
    if (ctx->rank == 0) {
        ncclResult_t r = ncclGetUniqueId(&id);
        if (r != ncclSuccess)
            st = TL_FAIL(TL_ERR_NCCL, "ncclGetUniqueId: %s: %s", ncclGetErrorString(r), ncclGetLastError(NULL));
    }
    /* rank 0's failure must not leave the others waiting in the bcast */
    TL_TRY(tl_comm_agree(ctx, st));
    TL_TRY(tl_comm_bcast(ctx, &id, sizeof id, 0));
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t r = ncclCommInitRankConfig(boot, ctx->size, id, ctx->rank, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
        if (*boot) ncclCommAbort(*boot);
        *boot = NULL;
        return TL_FAIL(TL_ERR_NCCL, "ncclCommInitRankConfig(rank %d of %d, device %d): %s: %s", ctx->rank,
                       ctx->size, ctx->device, ncclGetErrorString(r), ncclGetLastError(NULL));
    }
    TL_TRY(wait_new_comm(ctx, g, boot, "ncclCommInitRankConfig"));
    return TL_OK;
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
/* ncclCommSplit(parent, color 0, key rank) into a blocking communicator with
 * the CTA limits; the caller waits for the parent. */
static tl_status comm_split(tl_ctx *ctx, ncclComm_t parent, int max_ctas, int min_ctas, ncclComm_t *out)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    /* minCTAs/maxCTAs exist in ncclConfig_t since NCCL 2.17 */
    if (max_ctas > 0) config.maxCTAs = max_ctas;
    if (min_ctas > 0) config.minCTAs = min_ctas;
    ncclResult_t r = ncclCommSplit(parent, 0, ctx->rank, out, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
        if (*out) ncclCommAbort(*out);
        *out = NULL;
        return TL_FAIL(TL_ERR_NCCL, "ncclCommSplit(maxCTAs=%d, minCTAs=%d): %s: %s", max_ctas, min_ctas,
                       ncclGetErrorString(r), ncclGetLastError(parent));
    }
    /* With a non-blocking parent NCCL finishes the split in the parent's
     * background job and stores the child only then: wait on the parent
     * first (a local copy, so a failed wait cannot null the caller's). */
    if (!*out) {
        ncclComm_t p = parent;
        TL_TRY(wait_new_comm(ctx, ctx->gpu, &p, "ncclCommSplit (parent)"));
    }
    TL_CHECK(*out, TL_ERR_NCCL, "ncclCommSplit(rank %d) returned no communicator", ctx->rank);
    TL_TRY(wait_new_comm(ctx, ctx->gpu, out, "ncclCommSplit"));
    return TL_OK;
}
#endif

tl_status tl_nccl_split(tl_ctx *ctx, ncclComm_t parent, int max_ctas, int min_ctas, ncclComm_t *out)
{
    *out = NULL;
    TL_CHECK(ctx->gpu && parent, TL_ERR_INVAL, "ncclCommSplit needs a parent communicator");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    TL_TRY(comm_split(ctx, parent, max_ctas, min_ctas, out));
    TL_TRY(tl_nccl_ready(ctx, parent, "ncclCommSplit (parent)"));
    return TL_OK;
#else
    return TL_FAIL(TL_ERR_UNSUPPORTED, "ncclCommSplit needs NCCL >= 2.18; this build has %d.%d.%d", NCCL_MAJOR,
                   NCCL_MINOR, NCCL_PATCH);
#endif
}

static tl_status world_init(tl_ctx *ctx, tl_gpu *g)
{
    ncclComm_t boot = NULL;
    TL_TRY(bootstrap(ctx, g, &boot));
    tl_status st = TL_OK;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    st = comm_split(ctx, boot, 0, 0, &g->world);
    if (st == TL_OK) st = wait_new_comm(ctx, g, &boot, "ncclCommSplit (bootstrap parent)");
    if (st == TL_OK) {
        /* the world has its own resources (splitShare 0): the parent can go */
        ncclResult_t r = ncclCommFinalize(boot);
        if (r != ncclSuccess && r != ncclInProgress)
            st = TL_FAIL(TL_ERR_NCCL, "ncclCommFinalize(bootstrap): %s", ncclGetErrorString(r));
        if (st == TL_OK) st = wait_new_comm(ctx, g, &boot, "ncclCommFinalize(bootstrap)");
        if (st == TL_OK) ncclCommDestroy(boot);
        boot = NULL;
    }
    if (boot) ncclCommAbort(boot);
#else
    /* without ncclCommSplit the bootstrap communicator is the world, and
     * NCCL calls on it may return ncclInProgress (see tl_nccl_ready) */
    g->world = boot;
#endif
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

/* Connect what the programs use (allreduce small and large, send/recv to
 * the peers) while nothing else runs, so later calls find the connections
 * made and do not return ncclInProgress. Also proves the communicator works. */
static tl_status warm_up(tl_ctx *ctx, tl_gpu *g, ncclComm_t comm, const char *name)
{
    enum { N = 1 << 20 }; /* 8 MB: large enough for NCCL's bandwidth algorithms */
    double *d_a = NULL, *d_b = NULL;
    tl_status st = TL_OK;
    char what[96];
    TL_CUDAGOTO(cudaMalloc((void **)&d_a, N * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&d_b, N * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMemsetAsync(d_a, 0, N * sizeof(double), g->s_coll), st, fail);
    /* NCCL connects an algorithm's peers on its first use (runtime
     * connect), inside the enqueueing call, where a rank that never joins
     * blocks the host and no watchdog can see it. Every size class now, so
     * that later calls only enqueue and a mismatch hangs in a kernel. */
    const size_t counts[] = {1, 16, 256, 4096, 65536, N};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        snprintf(what, sizeof what, "warm-up allreduce of %zu doubles on the %s communicator", counts[i], name);
        ncclResult_t r = ncclAllReduce(d_a, d_a, counts[i], ncclDouble, ncclSum, comm, g->s_coll);
        TL_CHECKGOTO(r == ncclSuccess || r == ncclInProgress, TL_ERR_NCCL, st, fail, "%s: %s", what,
                     ncclGetErrorString(r));
        TL_TRYGOTO(tl_nccl_ready(ctx, comm, what), st, fail);
    }
    snprintf(what, sizeof what, "warm-up allreduce on the %s communicator", name);
    TL_TRYGOTO(tl_gpu_sync(ctx, g->s_coll, what), st, fail);
    /* every peer up to 16 ranks (halo plans talk to arbitrary peers), ring neighbours beyond */
    int maxd = ctx->size <= 16 ? ctx->size - 1 : (ctx->size > 1 ? 1 : 0);
    for (int dist = 1; dist <= maxd; dist++) {
        int to = (ctx->rank + dist) % ctx->size, from = (ctx->rank - dist + ctx->size) % ctx->size;
        snprintf(what, sizeof what, "warm-up send/recv at distance %d on the %s communicator", dist, name);
        ncclResult_t r1 = ncclGroupStart();
        ncclResult_t r2 = ncclSend(d_a, 1, ncclDouble, to, comm, g->s_p2p);
        ncclResult_t r3 = ncclRecv(d_b, 1, ncclDouble, from, comm, g->s_p2p);
        ncclResult_t r4 = ncclGroupEnd();
        ncclResult_t r = r1 != ncclSuccess ? r1 : r2 != ncclSuccess ? r2 : r3 != ncclSuccess ? r3 : r4;
        TL_CHECKGOTO(r == ncclSuccess || r == ncclInProgress, TL_ERR_NCCL, st, fail, "%s: %s", what,
                     ncclGetErrorString(r));
        TL_TRYGOTO(tl_nccl_ready(ctx, comm, what), st, fail);
    }
    snprintf(what, sizeof what, "warm-up on the %s communicator", name);
    TL_TRYGOTO(tl_gpu_sync(ctx, g->s_coll, what), st, fail);
    TL_TRYGOTO(tl_gpu_sync(ctx, g->s_p2p, what), st, fail);
fail:
    cudaFree(d_a);
    cudaFree(d_b);
    return st;
}

/* ---- lifetime ------------------------------------------------------------------------ */

static void free_streams(tl_gpu *g)
{
    if (g->s_compute) cudaStreamDestroy(g->s_compute);
    if (g->s_p2p) cudaStreamDestroy(g->s_p2p);
    if (g->s_coll) cudaStreamDestroy(g->s_coll);
    g->s_compute = g->s_p2p = g->s_coll = NULL;
}

static tl_status create_streams(tl_gpu *g, const tl_gpu_config *cfg)
{
    TL_CUDA(cudaSetDevice(g->device));
    int least = 0, greatest = 0;
    TL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    /* CUDA: lower numbers are higher priority; `greatest` is the highest */
    g->prio_low = least;
    g->prio_high = cfg->use_priorities ? greatest : least;
    TL_CUDA(cudaStreamCreateWithPriority(&g->s_compute, cudaStreamNonBlocking, g->prio_low));
    TL_CUDA(cudaStreamCreateWithPriority(&g->s_p2p, cudaStreamNonBlocking, g->prio_high));
    TL_CUDA(cudaStreamCreateWithPriority(&g->s_coll, cudaStreamNonBlocking, g->prio_high));
    return TL_OK;
}

tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg)
{
    TL_CHECK(ctx && cfg, TL_ERR_INVAL, "ctx and cfg are required");
    TL_CHECK(!ctx->gpu, TL_ERR_INVAL, "tl_gpu_create called twice");
    tl_status st = TL_OK;
    tl_gpu *g = NULL;
    if (ctx->device < 0)
        st = TL_FAIL(TL_ERR_INVAL, "rank %d has no GPU (no device visible, or --no-gpu); this needs one GPU per rank",
                     ctx->rank);
    if (st == TL_OK && !(g = calloc(1, sizeof *g))) st = TL_FAIL(TL_ERR_NOMEM, "GPU state");
    if (g) {
        g->device = ctx->device;
        g->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : TL_GPU_DEFAULT_TIMEOUT_S;
        ctx->gpu = g;
        st = create_streams(g, cfg);
    }
    /* every rank reaches the NCCL init, or none: a rank that failed here
     * would otherwise leave the others in init until the timeout */
    TL_TRYGOTO(tl_comm_agree(ctx, st), st, fail);
    TL_TRYGOTO(world_init(ctx, g), st, fail);
    TL_TRYGOTO(warm_up(ctx, g, g->world, "world"), st, fail);
    if (cfg->split) {
        TL_TRYGOTO(tl_nccl_split(ctx, g->world, cfg->split_max_ctas, cfg->split_min_ctas, &g->split), st, fail);
        TL_TRYGOTO(warm_up(ctx, g, g->split, "split"), st, fail);
    }
    return TL_OK;
fail:
    tl_gpu_abort(ctx);
    return st;
}

void tl_gpu_abort(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu) return;
    tl_gpu *g = ctx->gpu;
    abort_comms(g);
    free_streams(g);
    free(g);
    ctx->gpu = NULL;
}

static tl_status finalize(tl_ctx *ctx, tl_gpu *g, ncclComm_t *comm, const char *what)
{
    ncclResult_t r = ncclCommFinalize(*comm);
    if (r != ncclSuccess && r != ncclInProgress)
        return TL_FAIL(TL_ERR_NCCL, "%s: %s", what, ncclGetErrorString(r));
    TL_TRY(wait_new_comm(ctx, g, comm, what));
    ncclCommDestroy(*comm);
    *comm = NULL;
    return TL_OK;
}

void tl_gpu_destroy(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu) return;
    tl_gpu *g = ctx->gpu;
    cudaSetDevice(g->device);
    /* finalize flushes pending work; if it cannot, abort rather than hang */
    if (g->split && finalize(ctx, g, &g->split, "ncclCommFinalize(split)") != TL_OK) abort_comms(g);
    if (g->world && finalize(ctx, g, &g->world, "ncclCommFinalize(world)") != TL_OK) abort_comms(g);
    abort_comms(g);
    free_streams(g);
    free(g);
    ctx->gpu = NULL;
}

tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what)
{
    if (!ctx->gpu) return TL_OK;
    tl_gpu *g = ctx->gpu;
    cudaStream_t s[3] = {g->s_compute, g->s_p2p, g->s_coll};
    for (int i = 0; i < 3; i++)
        if (s[i]) TL_TRY(tl_gpu_sync(ctx, s[i], what));
    return TL_OK;
}

#else /* without CUDA or NCCL tl_gpu_create never succeeds: no state to free */

tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg)
{
#if TL_HAVE_CUDA
    return TL_FAIL(TL_ERR_UNSUPPORTED, "GPU ranks need NCCL, which this build lacks (set NCCL_HOME and rebuild)");
#else
    return TL_FAIL(TL_ERR_UNSUPPORTED, "GPU ranks need CUDA and NCCL, which this build lacks (nvcc not found or CUDA=0)");
#endif
}

void tl_gpu_destroy(tl_ctx *ctx)
{
    if (ctx) ctx->gpu = NULL;
}

void tl_gpu_abort(tl_ctx *ctx) { tl_gpu_destroy(ctx); }

tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what) { return TL_OK; }

#endif
