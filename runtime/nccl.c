/* The NCCL layer: bootstrap, split communicators and the watchdog, on top
 * of the device layer (gpu.c). Communicators are created non-blocking
 * (config.blocking = 0) so that neither init nor a collective a peer never
 * joins can hang the run: the watch polls ncclCommGetAsyncError, and a
 * failure or the deadline aborts the communicators, naming rank, operation
 * and reason. */
#include "runtime/nccl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/check.h"
#include "runtime/comm.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL

static void abort_comms(tl_nccl *n)
{
    if (n->split) ncclCommAbort(n->split);
    if (n->world) ncclCommAbort(n->world);
    n->split = NULL;
    n->world = NULL;
}

ncclComm_t tl_nccl_comm(const tl_ctx *ctx, tl_chan ch)
{
    const tl_nccl *n = ctx->gpu ? ctx->gpu->nccl : NULL;
    if (!n) return NULL;
    return ch == TL_CHAN_SPLIT && n->split ? n->split : n->world;
}

/* ---- the watch NCCL registers with the device layer ---------------------------------- */

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

static void give_up(tl_ctx *ctx, void *arg)
{
    (void)ctx;
    tl_nccl *n = arg;
    abort_deadline d = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    pthread_t th;
    int started = pthread_create(&th, NULL, abort_deadline_main, &d) == 0;
    abort_comms(n);
    if (!started) return;
    pthread_mutex_lock(&d.mu);
    d.done = 1;
    pthread_cond_signal(&d.cv);
    pthread_mutex_unlock(&d.mu);
    pthread_join(th, NULL);
}

static tl_status check_comms(tl_ctx *ctx, void *arg, const char *what)
{
    tl_nccl *n = arg;
    ncclComm_t comms[2] = {n->world, n->split};
    static const char *const names[2] = {"world", "split"};
    for (int i = 0; i < 2; i++) {
        ncclResult_t r = ncclSuccess;
        if (!comms[i]) continue;
        ncclResult_t q = ncclCommGetAsyncError(comms[i], &r);
        if (q != ncclSuccess) r = q;
        if (r != ncclSuccess && r != ncclInProgress) {
            const char *detail = ncclGetLastError(comms[i]);
            return TL_FAIL(TL_ERR_NCCL, "rank %d: %s: NCCL error on the %s communicator: %s%s%s; aborting the communicators",
                           ctx->rank, what, names[i], ncclGetErrorString(r), detail && *detail ? ": " : "",
                           detail ? detail : "");
        }
    }
    return TL_OK;
}

/* An NCCL call that returned ncclInProgress has not enqueued its kernel yet. */
static int comms_pending(tl_ctx *ctx, void *arg)
{
    (void)ctx;
    tl_nccl *n = arg;
    ncclComm_t comms[2] = {n->world, n->split};
    for (int i = 0; i < 2; i++) {
        ncclResult_t r = ncclSuccess;
        if (comms[i] && ncclCommGetAsyncError(comms[i], &r) == ncclSuccess && r == ncclInProgress) return 1;
    }
    return 0;
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

/* Wait for a communicator that is not (yet) registered: init and split.
 * On failure it is aborted here. */
static tl_status wait_new_comm(tl_ctx *ctx, ncclComm_t *comm, const char *what)
{
    comm_wait w = {*comm, what};
    tl_status st = tl_gpu_wait(ctx, what, comm_ready, &w);
    if (st != TL_OK) {
        ncclCommAbort(*comm);
        *comm = NULL;
        return tl_error_frame(st, TL_FILE_, __LINE__);
    }
    return TL_OK;
}

tl_status tl_nccl_ready(tl_ctx *ctx, ncclComm_t comm, const char *what)
{
    TL_CHECK(ctx->gpu && comm, TL_ERR_INVAL, "%s: no communicator", what);
    comm_wait w = {comm, what};
    TL_TRY(tl_gpu_wait(ctx, what, comm_ready, &w));
    return TL_OK;
}

/* ---- communicators ------------------------------------------------------------------ */

/* The bootstrap communicator is non-blocking, so a rank that never joins
 * turns into a timeout instead of a hang. The communicators handed to the
 * programs are blocking splits of it: on a non-blocking communicator any
 * NCCL call may return ncclInProgress, and the next call on it must wait
 * until it is ready, a rule every caller would have to follow. */
static tl_status bootstrap(tl_ctx *ctx, ncclComm_t *boot)
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
    TL_TRY(wait_new_comm(ctx, boot, "ncclCommInitRankConfig"));
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
        TL_TRY(wait_new_comm(ctx, &p, "ncclCommSplit (parent)"));
    }
    TL_CHECK(*out, TL_ERR_NCCL, "ncclCommSplit(rank %d) returned no communicator", ctx->rank);
    TL_TRY(wait_new_comm(ctx, out, "ncclCommSplit"));
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
    (void)max_ctas;
    (void)min_ctas;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "ncclCommSplit needs NCCL >= 2.18; this build has %d.%d.%d", NCCL_MAJOR,
                   NCCL_MINOR, NCCL_PATCH);
#endif
}

static tl_status world_init(tl_ctx *ctx, tl_nccl *n)
{
    ncclComm_t boot = NULL;
    TL_TRY(bootstrap(ctx, &boot));
    tl_status st = TL_OK;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
    st = comm_split(ctx, boot, 0, 0, &n->world);
    if (st == TL_OK) st = wait_new_comm(ctx, &boot, "ncclCommSplit (bootstrap parent)");
    if (st == TL_OK) {
        /* the world has its own resources (splitShare 0): the parent can go */
        ncclResult_t r = ncclCommFinalize(boot);
        if (r != ncclSuccess && r != ncclInProgress)
            st = TL_FAIL(TL_ERR_NCCL, "ncclCommFinalize(bootstrap): %s", ncclGetErrorString(r));
        if (st == TL_OK) st = wait_new_comm(ctx, &boot, "ncclCommFinalize(bootstrap)");
        if (st == TL_OK) ncclCommDestroy(boot);
        boot = NULL;
    }
    if (boot) ncclCommAbort(boot);
#else
    /* without ncclCommSplit the bootstrap communicator is the world, and
     * NCCL calls on it may return ncclInProgress (see tl_nccl_ready) */
    n->world = boot;
#endif
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}

/* Connect what the programs use (allreduce small and large, send/recv to
 * the peers) while nothing else runs, so later calls find the connections
 * made and do not return ncclInProgress. Also proves the communicator works. */
static tl_status warm_up(tl_ctx *ctx, ncclComm_t comm, const char *name)
{
    enum { N = 1 << 20 }; /* 8 MB: large enough for NCCL's bandwidth algorithms */
    cudaStream_t s_coll = tl_gpu_stream(ctx->gpu, TL_ROLE_COLL), s_p2p = tl_gpu_stream(ctx->gpu, TL_ROLE_P2P);
    double *d_a = NULL, *d_b = NULL;
    tl_status st = TL_OK;
    char what[96];
    TL_CUDAGOTO(cudaMalloc((void **)&d_a, N * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&d_b, N * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMemsetAsync(d_a, 0, N * sizeof(double), s_coll), st, fail);
    /* NCCL connects an algorithm's peers on its first use (runtime
     * connect), inside the enqueueing call, where a rank that never joins
     * blocks the host and no watchdog can see it. Every size class now, so
     * that later calls only enqueue and a mismatch hangs in a kernel. */
    const size_t counts[] = {1, 16, 256, 4096, 65536, N};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        snprintf(what, sizeof what, "warm-up allreduce of %zu doubles on the %s communicator", counts[i], name);
        ncclResult_t r = ncclAllReduce(d_a, d_a, counts[i], ncclDouble, ncclSum, comm, s_coll);
        TL_CHECKGOTO(r == ncclSuccess || r == ncclInProgress, TL_ERR_NCCL, st, fail, "%s: %s", what,
                     ncclGetErrorString(r));
        TL_TRYGOTO(tl_nccl_ready(ctx, comm, what), st, fail);
    }
    snprintf(what, sizeof what, "warm-up allreduce on the %s communicator", name);
    TL_TRYGOTO(tl_gpu_sync(ctx, s_coll, what), st, fail);
    /* every peer up to 16 ranks (halo plans talk to arbitrary peers), ring neighbours beyond */
    int maxd = ctx->size <= 16 ? ctx->size - 1 : (ctx->size > 1 ? 1 : 0);
    for (int dist = 1; dist <= maxd; dist++) {
        int to = (ctx->rank + dist) % ctx->size, from = (ctx->rank - dist + ctx->size) % ctx->size;
        snprintf(what, sizeof what, "warm-up send/recv at distance %d on the %s communicator", dist, name);
        ncclResult_t r1 = ncclGroupStart();
        ncclResult_t r2 = ncclSend(d_a, 1, ncclDouble, to, comm, s_p2p);
        ncclResult_t r3 = ncclRecv(d_b, 1, ncclDouble, from, comm, s_p2p);
        ncclResult_t r4 = ncclGroupEnd();
        ncclResult_t r = r1 != ncclSuccess ? r1 : r2 != ncclSuccess ? r2 : r3 != ncclSuccess ? r3 : r4;
        TL_CHECKGOTO(r == ncclSuccess || r == ncclInProgress, TL_ERR_NCCL, st, fail, "%s: %s", what,
                     ncclGetErrorString(r));
        TL_TRYGOTO(tl_nccl_ready(ctx, comm, what), st, fail);
    }
    snprintf(what, sizeof what, "warm-up on the %s communicator", name);
    TL_TRYGOTO(tl_gpu_sync(ctx, s_coll, what), st, fail);
    TL_TRYGOTO(tl_gpu_sync(ctx, s_p2p, what), st, fail);
fail:
    cudaFree(d_a);
    cudaFree(d_b);
    return st;
}

static void release(tl_ctx *ctx, void *arg, int abort)
{
    (void)arg;
    if (abort) tl_nccl_abort(ctx);
    else tl_nccl_destroy(ctx);
}

tl_status tl_nccl_create(tl_ctx *ctx, const tl_nccl_config *cfg)
{
    TL_CHECK(ctx && cfg, TL_ERR_INVAL, "ctx and cfg are required");
    TL_CHECK(ctx->gpu, TL_ERR_INVAL, "tl_nccl_create needs tl_gpu_create first");
    if (ctx->gpu->nccl) return TL_OK;
    tl_gpu *g = ctx->gpu;
    tl_status st = TL_OK;
    if (g->shared)
        st = TL_FAIL(TL_ERR_UNSUPPORTED, "rank %d shares GPU %d with other ranks, which NCCL refuses; use "
                     "--device-comm host, or one rank per GPU", ctx->rank, g->device);
    tl_nccl *n = st == TL_OK ? calloc(1, sizeof *n) : NULL;
    if (st == TL_OK && !n) st = TL_FAIL(TL_ERR_NOMEM, "NCCL state");
    /* every rank reaches the NCCL init, or none: a rank that failed here
     * would otherwise leave the others in init until the timeout */
    st = tl_comm_agree(ctx, st);
    if (st != TL_OK) {
        free(n);
        return st;
    }
    g->nccl = n;
    g->watch = (tl_gpu_watch){
        .check = check_comms,
        .pending = comms_pending,
        .give_up = give_up,
        .release = release,
        .timeout_hint = "a rank missing from a collective, or a mismatched send/recv?; aborting the NCCL "
                        "communicators",
        .arg = n};
    TL_TRYGOTO(world_init(ctx, n), st, fail);
    TL_TRYGOTO(warm_up(ctx, n->world, "world"), st, fail);
    if (cfg->split) {
        TL_TRYGOTO(tl_nccl_split(ctx, n->world, cfg->split_max_ctas, cfg->split_min_ctas, &n->split), st, fail);
        TL_TRYGOTO(warm_up(ctx, n->split, "split"), st, fail);
    }
    return TL_OK;
fail:
    tl_nccl_abort(ctx);
    return st;
}

void tl_nccl_abort(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu || !ctx->gpu->nccl) return;
    tl_gpu *g = ctx->gpu;
    abort_comms(g->nccl);
    free(g->nccl);
    g->nccl = NULL;
    g->watch = (tl_gpu_watch){0};
}

static tl_status finalize(tl_ctx *ctx, ncclComm_t *comm, const char *what)
{
    ncclResult_t r = ncclCommFinalize(*comm);
    if (r != ncclSuccess && r != ncclInProgress)
        return TL_FAIL(TL_ERR_NCCL, "%s: %s", what, ncclGetErrorString(r));
    TL_TRY(wait_new_comm(ctx, comm, what));
    ncclCommDestroy(*comm);
    *comm = NULL;
    return TL_OK;
}

void tl_nccl_destroy(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu || !ctx->gpu->nccl) return;
    tl_nccl *n = ctx->gpu->nccl;
    /* finalize flushes pending work; if it cannot, abort rather than hang */
    if (n->split && finalize(ctx, &n->split, "ncclCommFinalize(split)") != TL_OK) abort_comms(n);
    if (n->world && finalize(ctx, &n->world, "ncclCommFinalize(world)") != TL_OK) abort_comms(n);
    tl_nccl_abort(ctx);
}

#else /* no NCCL in this build */

tl_status tl_nccl_create(tl_ctx *ctx, const tl_nccl_config *cfg)
{
    (void)ctx;
    (void)cfg;
#if TL_HAVE_CUDA
    return TL_FAIL(TL_ERR_UNSUPPORTED, "this needs NCCL, which this build lacks (set NCCL_HOME and rebuild, or use "
                   "--device-comm host)");
#else
    return TL_FAIL(TL_ERR_UNSUPPORTED, "this needs CUDA and NCCL, which this build lacks (nvcc not found or CUDA=0)");
#endif
}

void tl_nccl_destroy(tl_ctx *ctx) { (void)ctx; }
void tl_nccl_abort(tl_ctx *ctx) { (void)ctx; }

#endif
