/* Per-rank device state without NCCL: binding, streams by role with
 * priorities, pinned host memory, peer access and the watched wait that
 * turns a stuck stream into an error after a deadline. The NCCL layer
 * (nccl.c) registers its communicators with the watch. */
#include "runtime/gpu.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/check.h"
#include "runtime/clock.h"
#include "runtime/comm.h"
#include "runtime/provenance.h"

#define TL_GPU_DEFAULT_TIMEOUT_S 300.0

/* ---- helpers that need only the CUDA runtime ---------------------------------------- */

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
    char kmod[64];
    tl_provenance_driver_module(kmod, sizeof kmod);
    if (kmod[0]) snprintf(driver, n2, "%s (CUDA %s)", kmod, api);
    else if (drv > 0) snprintf(driver, n2, "CUDA %s", api);
#endif
#if TL_HAVE_NCCL
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess && v > 0)
        snprintf(nccl, n3, "%d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
#endif
}

#if TL_HAVE_CUDA

/* ---- the watched wait --------------------------------------------------------------- */

static double elapsed_s(int64_t t0) { return (double)(tl_clock_ns() - t0) * 1e-9; }

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

/* Failures are reported before the layers above give up (abort their
 * communicators), so the reason is printed even if an abort never returns. */
tl_status tl_gpu_wait(tl_ctx *ctx, const char *what, tl_gpu_done_fn done, void *arg)
{
    TL_CHECK(ctx->gpu, TL_ERR_INVAL, "%s: no GPU state (call tl_gpu_create first)", what);
    tl_gpu *g = ctx->gpu;
    int64_t t0 = tl_clock_ns();
    double timeout = g->timeout_s > 0 ? g->timeout_s : TL_GPU_DEFAULT_TIMEOUT_S;
    for (;;) {
        tl_status st = TL_OK;
        int d = done(arg, &st);
        if (d > 0) return TL_OK;
        if (d < 0) {
            /* done() has reported it */
        } else if (g->watch.check && (st = g->watch.check(ctx, g->watch.arg, what)) != TL_OK) {
            /* the check has reported it */
        } else if (tl_comm_peer_failed(ctx)) {
            tl_log("%s: another rank failed; giving up", what);
            st = TL_ERR_REMOTE;
        } else if (elapsed_s(t0) > timeout) {
            st = TL_FAIL(TL_ERR_TIMEOUT, "rank %d: %s: not finished after %.0f s (%s)", ctx->rank, what, timeout,
                         g->watch.timeout_hint ? g->watch.timeout_hint
                                               : "a kernel that does not end, or a peer that never sent?");
        } else {
            backoff(t0);
            continue;
        }
        tl_comm_announce_failure(ctx);
        if (g->watch.give_up) g->watch.give_up(ctx, g->watch.arg);
        return st;
    }
}

typedef struct stream_wait {
    tl_ctx *ctx;
    cudaStream_t s;
    const char *what;
} stream_wait;

/* Done when the stream is idle and no layer above has work it has not
 * enqueued yet (an NCCL call that returned ncclInProgress). */
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
    const tl_gpu_watch *wt = &w->ctx->gpu->watch;
    if (wt->pending && wt->pending(w->ctx, wt->arg)) return 0;
    return 1;
}

tl_status tl_gpu_sync(tl_ctx *ctx, cudaStream_t s, const char *what)
{
    stream_wait w = {ctx, s, what};
    TL_TRY(tl_gpu_wait(ctx, what, stream_done, &w));
    return TL_OK;
}

cudaStream_t tl_gpu_stream(const tl_gpu *g, tl_role role)
{
    return (int)role >= 0 && (int)role < TL_ROLE_NSTREAMS ? g->streams[role] : g->streams[TL_ROLE_COMPUTE];
}

/* ---- lifetime ------------------------------------------------------------------------ */

static void free_streams(tl_gpu *g)
{
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++) {
        if (g->streams[r]) cudaStreamDestroy(g->streams[r]);
        g->streams[r] = NULL;
    }
}

/* Communication and staging streams preempt compute: a halo or an
 * allreduce that waits behind a wide kernel is the lost overlap. */
static tl_status create_streams(tl_gpu *g, const tl_gpu_config *cfg)
{
    TL_CUDA(cudaSetDevice(g->device));
    int least = 0, greatest = 0;
    TL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    /* CUDA: lower numbers are higher priority; `greatest` is the highest */
    g->prio_low = least;
    g->prio_high = cfg->use_priorities ? greatest : least;
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++) {
        int prio = r == TL_ROLE_COMPUTE ? g->prio_low : g->prio_high;
        TL_CUDA(cudaStreamCreateWithPriority(&g->streams[r], cudaStreamNonBlocking, prio));
    }
    return TL_OK;
}

tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg)
{
    TL_CHECK(ctx && cfg, TL_ERR_INVAL, "ctx and cfg are required");
    TL_CHECK(!ctx->gpu, TL_ERR_INVAL, "tl_gpu_create called twice");
    tl_status st = TL_OK;
    tl_gpu *g = NULL;
    if (ctx->device < 0)
        st = TL_FAIL(TL_ERR_INVAL, "rank %d has no GPU (no device visible, or --no-gpu); this needs a GPU",
                     ctx->rank);
    if (st == TL_OK && !(g = calloc(1, sizeof *g))) st = TL_FAIL(TL_ERR_NOMEM, "GPU state");
    if (g) {
        g->device = ctx->device;
        g->shared = ctx->gpu_shared;
        g->timeout_s = cfg->timeout_s > 0   ? cfg->timeout_s
                       : ctx->timeout_s > 0 ? ctx->timeout_s
                                            : TL_GPU_DEFAULT_TIMEOUT_S;
        ctx->gpu = g;
        st = create_streams(g, cfg);
    }
    /* every rank has its device, or none goes on to what needs the peers */
    st = tl_comm_agree(ctx, st);
    if (st != TL_OK) tl_gpu_abort(ctx);
    return st;
}

void tl_gpu_abort(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu) return;
    tl_gpu *g = ctx->gpu;
    cudaSetDevice(g->device);
    if (g->watch.release) g->watch.release(ctx, g->watch.arg, 1);
    free_streams(g);
    free(g);
    ctx->gpu = NULL;
}

void tl_gpu_destroy(tl_ctx *ctx)
{
    if (!ctx || !ctx->gpu) return;
    tl_gpu *g = ctx->gpu;
    cudaSetDevice(g->device);
    if (g->watch.release) g->watch.release(ctx, g->watch.arg, 0);
    free_streams(g);
    free(g);
    ctx->gpu = NULL;
}

tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what)
{
    if (!ctx->gpu) return TL_OK;
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++)
        if (ctx->gpu->streams[r]) TL_TRY(tl_gpu_sync(ctx, ctx->gpu->streams[r], what));
    return TL_OK;
}

tl_status tl_gpu_host_alloc(void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0) return TL_OK;
    TL_CUDA(cudaHostAlloc(p, bytes, cudaHostAllocPortable));
    return TL_OK;
}

void tl_gpu_host_free(void **p)
{
    if (!p || !*p) return;
    cudaFreeHost(*p);
    *p = NULL;
}

tl_status tl_gpu_peer_enable(int device, int peer, int *enabled)
{
    *enabled = 0;
    if (device == peer) {
        *enabled = 1;
        return TL_OK;
    }
    int can = 0;
    TL_CUDA(cudaDeviceCanAccessPeer(&can, device, peer));
    if (!can) return TL_OK;
    TL_CUDA(cudaSetDevice(device));
    cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
    else if (e != cudaSuccess)
        return TL_FAIL(TL_ERR_CUDA, "cudaDeviceEnablePeerAccess(%d -> %d): %s (%s)", device, peer,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    *enabled = 1;
    return TL_OK;
}

#else /* without CUDA tl_gpu_create never succeeds: no state to free */

tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg)
{
    (void)ctx;
    (void)cfg;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "GPU ranks need CUDA, which this build lacks (nvcc not found or CUDA=0)");
}

void tl_gpu_destroy(tl_ctx *ctx)
{
    if (ctx) ctx->gpu = NULL;
}

void tl_gpu_abort(tl_ctx *ctx) { tl_gpu_destroy(ctx); }

tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what)
{
    (void)ctx;
    (void)what;
    return TL_OK;
}

tl_status tl_gpu_host_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "pinned host memory (%zu bytes) needs CUDA, which this build lacks", bytes);
}

void tl_gpu_host_free(void **p)
{
    if (p) *p = NULL;
}

tl_status tl_gpu_peer_enable(int device, int peer, int *enabled)
{
    *enabled = device == peer;
    return TL_OK;
}

#endif
