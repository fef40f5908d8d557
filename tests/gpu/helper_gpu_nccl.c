/* GPU scenarios for tests/gpu/test_gpu_nccl.c, in either launch mode:
 *   helper_gpu_nccl --launcher threads --gpus 2 nccl|mismatch
 *   mpirun -np 2 helper_gpu_nccl nccl|mismatch
 * nccl:     bootstrap world + split, allreduce and ring send/recv on each,
 *           then both at once (split allreduce beside world send/recv);
 *           every result checked against the exact expected values.
 * mismatch: rank 0 starts an allreduce rank 1 never joins; the watchdog
 *           must turn it into TL_ERR_TIMEOUT within --nccl-timeout.
 * `--list` prints nothing (the test runner asks every binary it is given). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/nccl.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/timing.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL
#include "runtime/check.h"
#include "tests/tl_test_helper.h"

typedef struct helper_opts {
    tl_launch_opts lo;
    int64_t count;
    const char *scenario;
} helper_opts;

static const tl_option helper_options[] = {
    {.name = "count", .type = TL_OPT_SIZE, .offset = offsetof(helper_opts, count), .def = "1M", .metavar = "N",
     .help = "doubles per allreduce and per message", .min = 1, .max = 1 << 28},
};

/* Host buffer of n doubles: v[i] = a*i + b. */
static void fill(double *h, size_t n, double a, double b)
{
    for (size_t i = 0; i < n; i++) h[i] = a * (double)(i % 1000) + b;
}

static tl_status compare(const double *h, size_t n, double a, double b, const char *what, int rank)
{
    for (size_t i = 0; i < n; i++) {
        double want = a * (double)(i % 1000) + b;
        if (h[i] != want)
            return TL_FAIL(TL_ERR_NUMERIC, "rank %d: %s: element %zu is %.17g, want %.17g", rank, what, i, h[i], want);
    }
    return TL_OK;
}

typedef struct bufs {
    double *h, *d_ar, *d_send, *d_recv;
} bufs;

/* Allreduce on `comm` in s_coll and/or a ring exchange on `p2p_comm` in s_p2p. */
static tl_status round_trip(tl_ctx *ctx, bufs *b, size_t n, ncclComm_t ar_comm, ncclComm_t p2p_comm,
                            const char *name)
{
    tl_gpu *g = ctx->gpu;
    int r = ctx->rank, size = ctx->size, right = (r + 1) % size, left = (r - 1 + size) % size;
    size_t bytes = n * sizeof(double);
    char what[128];
    if (ar_comm) {
        fill(b->h, n, r + 1.0, 0.5 * r);
        TL_CUDA(cudaMemcpyAsync(b->d_ar, b->h, bytes, cudaMemcpyHostToDevice, tl_gpu_stream(g, TL_ROLE_COLL)));
        TL_NCCL(ncclAllReduce(b->d_ar, b->d_ar, n, ncclDouble, ncclSum, ar_comm, tl_gpu_stream(g, TL_ROLE_COLL)));
    }
    if (p2p_comm) {
        fill(b->h + n, n, 3.0, 1000.0 * r);
        TL_CUDA(cudaMemcpyAsync(b->d_send, b->h + n, bytes, cudaMemcpyHostToDevice, tl_gpu_stream(g, TL_ROLE_P2P)));
        TL_CUDA(cudaMemsetAsync(b->d_recv, 0, bytes, tl_gpu_stream(g, TL_ROLE_P2P)));
        TL_NCCL(ncclGroupStart());
        TL_NCCL(ncclSend(b->d_send, n, ncclDouble, right, p2p_comm, tl_gpu_stream(g, TL_ROLE_P2P)));
        TL_NCCL(ncclRecv(b->d_recv, n, ncclDouble, left, p2p_comm, tl_gpu_stream(g, TL_ROLE_P2P)));
        TL_NCCL(ncclGroupEnd());
    }
    snprintf(what, sizeof what, "%s", name);
    TL_TRY(tl_gpu_sync_all(ctx, what));
    if (ar_comm) {
        TL_CUDA(cudaMemcpyAsync(b->h, b->d_ar, bytes, cudaMemcpyDeviceToHost, tl_gpu_stream(g, TL_ROLE_COLL)));
        TL_TRY(tl_gpu_sync(ctx, tl_gpu_stream(g, TL_ROLE_COLL), what));
        /* sum over ranks q of (q+1)*i' + q/2 */
        double a = size * (size + 1) / 2.0, c = 0.5 * size * (size - 1) / 2.0;
        snprintf(what, sizeof what, "%s: allreduce", name);
        TL_TRY(compare(b->h, n, a, c, what, r));
    }
    if (p2p_comm) {
        TL_CUDA(cudaMemcpyAsync(b->h + n, b->d_recv, bytes, cudaMemcpyDeviceToHost, tl_gpu_stream(g, TL_ROLE_P2P)));
        TL_TRY(tl_gpu_sync(ctx, tl_gpu_stream(g, TL_ROLE_P2P), what));
        snprintf(what, sizeof what, "%s: ring send/recv from rank %d", name, left);
        TL_TRY(compare(b->h + n, n, 3.0, 1000.0 * left, what, r));
    }
    return TL_OK;
}

static tl_status nccl_checks(tl_ctx *ctx, size_t n)
{
    tl_gpu_config cfg = {.use_priorities = 1, .timeout_s = 120};
    tl_nccl_config nc = {.split = 1, .split_max_ctas = 8, .split_min_ctas = 1};
    TL_TRY(tl_gpu_create(ctx, &cfg));
    TL_TRY(tl_nccl_create(ctx, &nc));
    tl_gpu *g = ctx->gpu;
    tl_status st = TL_OK;
    bufs b = {0};
    int prio = 0;
    TL_CHECKGOTO(g->nccl->world && g->nccl->split, TL_ERR_INVAL, st, fail, "world %p split %p", (void *)g->nccl->world,
                 (void *)g->nccl->split);
    TL_CUDAGOTO(cudaStreamGetPriority(tl_gpu_stream(g, TL_ROLE_P2P), &prio), st, fail);
    TL_CHECKGOTO(prio == g->prio_high, TL_ERR_INVAL, st, fail, "p2p stream priority %d, want %d", prio, g->prio_high);
    TL_CUDAGOTO(cudaStreamGetPriority(tl_gpu_stream(g, TL_ROLE_COMPUTE), &prio), st, fail);
    TL_CHECKGOTO(prio == g->prio_low, TL_ERR_INVAL, st, fail, "compute stream priority %d, want %d", prio, g->prio_low);
    TL_CHECKGOTO(g->prio_high < g->prio_low, TL_ERR_INVAL, st, fail, "no priority range (%d..%d)", g->prio_low,
                 g->prio_high);
    b.h = malloc(2 * n * sizeof(double));
    TL_CHECKGOTO(b.h, TL_ERR_NOMEM, st, fail, "%zu doubles", 2 * n);
    TL_CUDAGOTO(cudaMalloc((void **)&b.d_ar, n * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&b.d_send, n * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&b.d_recv, n * sizeof(double)), st, fail);
    const size_t sizes[2] = {1, n};
    for (int k = 0; k < 2; k++) {
        TL_TRYGOTO(round_trip(ctx, &b, sizes[k], g->nccl->world, NULL, "world allreduce"), st, fail);
        TL_TRYGOTO(round_trip(ctx, &b, sizes[k], NULL, g->nccl->world, "world ring"), st, fail);
        TL_TRYGOTO(round_trip(ctx, &b, sizes[k], g->nccl->split, NULL, "split allreduce"), st, fail);
        TL_TRYGOTO(round_trip(ctx, &b, sizes[k], NULL, g->nccl->split, "split ring"), st, fail);
        /* the three-split pattern: the collective on the split communicator
         * beside point-to-point on the world communicator */
        for (int rep = 0; rep < 5; rep++)
            TL_TRYGOTO(round_trip(ctx, &b, sizes[k], g->nccl->split, g->nccl->world, "split allreduce + world ring"), st, fail);
    }
    int64_t t0 = 0;
    double el = 0;
    TL_TRYGOTO(tl_time_start(ctx, &t0), st, fail);
    TL_TRYGOTO(tl_time_stop(ctx, t0, &el), st, fail);
    if (ctx->rank == 0) {
        char rt[32], drv[96], ncv[32];
        tl_gpu_versions(rt, sizeof rt, drv, sizeof drv, ncv, sizeof ncv);
        printf("versions: cuda %s, driver %s, nccl %s; priorities %d..%d\n", rt, drv, ncv, g->prio_low, g->prio_high);
    }
fail:
    free(b.h);
    cudaFree(b.d_ar);
    cudaFree(b.d_send);
    cudaFree(b.d_recv);
    tl_status agreed = tl_comm_agree(ctx, st);
    if (agreed == TL_OK) tl_gpu_destroy(ctx);
    return agreed;
}

static tl_status mismatch(tl_ctx *ctx, double timeout_s)
{
    /* bootstrap under a generous limit; only the induced hang gets the short one */
    tl_gpu_config cfg = {.timeout_s = 120};
    tl_nccl_config nc = {.split = 1};
    TL_TRY(tl_gpu_create(ctx, &cfg));
    TL_TRY(tl_nccl_create(ctx, &nc));
    tl_gpu *g = ctx->gpu;
    g->timeout_s = timeout_s;
    double *d = NULL;
    TL_CUDA(cudaMalloc((void **)&d, 4096 * sizeof(double)));
    tl_status st = TL_OK;
    if (ctx->rank == 0) {
        int64_t t0 = tl_clock_ns();
        /* a size the warm-up connected (see warm_up in runtime/nccl.c) */
        tl_log("starting an allreduce the other ranks never join");
        TL_NCCL(ncclAllReduce(d, d, 4096, ncclDouble, ncclSum, g->nccl->world, tl_gpu_stream(g, TL_ROLE_COLL)));
        st = tl_gpu_sync(ctx, tl_gpu_stream(g, TL_ROLE_COLL), "mismatched allreduce");
        printf("rank 0: watchdog returned '%s' after %.1f s\n", tl_strerror(st), (double)(tl_clock_ns() - t0) * 1e-9);
        fflush(stdout);
        if (st == TL_OK) st = TL_FAIL(TL_ERR_INVAL, "the mismatched allreduce completed?");
    }
    tl_log("freeing the buffer (waits for the aborted kernel)");
    cudaFree(d);
    tl_log("mismatch scenario done: %s", tl_strerror(st));
    return st;
}

static tl_status rank_main(tl_ctx *ctx, void *arg)
{
    helper_opts *o = arg;
    if (strcmp(o->scenario, "nccl") == 0) {
        TL_TRY(nccl_checks(ctx, (size_t)o->count));
        if (ctx->rank == 0) printf("nccl ok on %d ranks (%s)\n", ctx->size, ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads");
        return TL_OK;
    }
    if (strcmp(o->scenario, "mismatch") == 0) return mismatch(ctx, (double)o->lo.timeout_s);
    return TL_FAIL(TL_ERR_INVAL, "unknown scenario '%s'", o->scenario);
}

int main(int argc, char **argv)
{
    helper_opts ho;
    const tl_test_helper h = {.program = "helper_gpu_nccl",
                              .usage = "[options] nccl|mismatch",
                              .purpose = "Checks NCCL bootstrap, split communicators and the watchdog.",
                              .group = "Scenario",
                              .options = helper_options,
                              .noptions = sizeof helper_options / sizeof helper_options[0],
                              .opts = &ho,
                              .lo = &ho.lo,
                              .positional = &ho.scenario,
                              .rank_main = rank_main};
    return tl_test_helper_main(&h, argc, argv);
}

#else

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) return 0;
    fprintf(stderr, "helper_gpu_nccl: this build has no CUDA/NCCL\n");
    return 77;
}

#endif
