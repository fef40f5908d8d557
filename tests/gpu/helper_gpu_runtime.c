/* GPU scenarios of the runtime's device layer, for test_gpu_runtime.c:
 *   streams    streams by role with priorities, a kernel, a watched sync (no NCCL)
 *   timeout    a kernel that outlives --nccl-timeout: the watched sync gives up
 *   evtimer    event-pair timer against CUPTI's kernel times (1 ms kernels)
 *   devcomm    allreduce and a ring exchange over --device-comm, checked
 *              exactly, in either launch mode and with ranks sharing a GPU
 * `--list` prints nothing (the test runner asks every binary it is given). */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/evtimer.h"
#include "runtime/gpu.h"
#include "runtime/launch.h"
#include "runtime/options.h"

#if TL_HAVE_CUDA
#include "probes/probes.h"
#include "runtime/check.h"
#include "tests/tl_test_helper.h"

int tl_test_spin(uint64_t ns, cudaStream_t s); /* test_gpu_probes_kernels.cu */

typedef struct helper_opts {
    tl_launch_opts lo;
    int64_t count;
    const char *outdir;
    const char *scenario;
} helper_opts;

static const tl_option helper_options[] = {
    {.name = "count", .type = TL_OPT_SIZE, .offset = offsetof(helper_opts, count), .def = "64K", .metavar = "N",
     .help = "doubles per allreduce and per message", .min = 1, .max = 1 << 26},
    {.name = "outdir", .type = TL_OPT_STRING, .offset = offsetof(helper_opts, outdir), .def = "runtime-trace",
     .metavar = "DIR", .help = "evtimer: where the CUPTI trace goes"},
};

static tl_status streams(tl_ctx *ctx)
{
    tl_gpu_config gc = {.use_priorities = 1};
    TL_TRY(tl_gpu_create(ctx, &gc));
    tl_gpu *g = ctx->gpu;
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++) {
        int prio = 0;
        cudaStream_t s = tl_gpu_stream(g, (tl_role)r);
        TL_CHECK(s, TL_ERR_INVAL, "no %s stream", tl_role_name((tl_role)r));
        for (int q = 0; q < r; q++)
            TL_CHECK(s != tl_gpu_stream(g, (tl_role)q), TL_ERR_INVAL, "%s and %s share a stream",
                     tl_role_name((tl_role)r), tl_role_name((tl_role)q));
        TL_CUDA(cudaStreamGetPriority(s, &prio));
        int want = r == TL_ROLE_COMPUTE ? g->prio_low : g->prio_high;
        TL_CHECK(prio == want, TL_ERR_INVAL, "%s stream priority %d, want %d", tl_role_name((tl_role)r), prio, want);
    }
    TL_CHECK(g->prio_high < g->prio_low, TL_ERR_INVAL, "no priority range (%d..%d)", g->prio_low, g->prio_high);
    TL_CHECK(tl_gpu_stream(g, TL_ROLE_HOST) == tl_gpu_stream(g, TL_ROLE_COMPUTE), TL_ERR_INVAL,
             "a role without a stream must map to compute");
    TL_CUDA(tl_test_spin(200000, tl_gpu_stream(g, TL_ROLE_COMPUTE)));
    TL_TRY(tl_gpu_sync(ctx, tl_gpu_stream(g, TL_ROLE_COMPUTE), "spin kernel"));
    void *h = NULL;
    TL_TRY(tl_gpu_host_alloc(&h, 1 << 20));
    unsigned int flags = 0;
    TL_CUDA(cudaHostGetFlags(&flags, h));
    tl_gpu_host_free(&h);
    TL_CHECK(!h, TL_ERR_INVAL, "host_free left the pointer");
    int peer = 0;
    TL_TRY(tl_gpu_peer_enable(ctx->device, ctx->device, &peer));
    TL_CHECK(peer == 1, TL_ERR_INVAL, "a device must reach itself");
    if (ctx->rank == 0) printf("streams ok: %d roles, priorities %d..%d, shared=%d\n", TL_ROLE_NSTREAMS, g->prio_low,
                               g->prio_high, g->shared);
    tl_gpu_destroy(ctx);
    return TL_OK;
}

static tl_status timeout(tl_ctx *ctx)
{
    tl_gpu_config gc = {0}; /* the launcher's --nccl-timeout */
    TL_TRY(tl_gpu_create(ctx, &gc));
    TL_CUDA(tl_test_spin(4000000000ull, tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE)));
    tl_status st = tl_gpu_sync(ctx, tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE), "endless kernel");
    printf("watched sync returned '%s'\n", tl_strerror(st));
    fflush(stdout);
    return st == TL_OK ? TL_FAIL(TL_ERR_INVAL, "the endless kernel finished?") : st;
}

enum { NIT = 12, OP_SPIN = 0, OP_SHORT = 1 };

/* The same kernels timed twice: by event pairs and by CUPTI. The first
 * launch after CUPTI starts is instrumented late, so it is left out. */
static tl_status evtimer(tl_ctx *ctx, const char *outdir)
{
    static const char *const ops[] = {"spin", "short"};
    const uint64_t spin_ns = 1000000;
    tl_gpu_config gc = {0};
    tl_evtimer *t = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_gpu_create(ctx, &gc));
    cudaStream_t s = tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE);
    TL_TRY(tl_evtimer_create(&t, 2, ops));
    tl_probes_config pc = {.outdir = outdir, .cupti = 1, .nvtx = 1};
    TL_TRYGOTO(tl_probes_create(ctx, &pc), st, fail);
    tl_probe_stream(ctx, s, TL_ROLE_COMPUTE, "compute");
    tl_probe_window_start(ctx);
    TL_CUDAGOTO(tl_test_spin(spin_ns, s), st, fail);
    for (int it = 0; it < NIT; it++) {
        tl_probe_iter_begin(ctx, it);
        TL_TRYGOTO(tl_evtimer_begin(t, OP_SPIN, s), st, fail);
        TL_CUDAGOTO(tl_test_spin(spin_ns, s), st, fail);
        TL_TRYGOTO(tl_evtimer_end(t, OP_SPIN, s), st, fail);
        TL_TRYGOTO(tl_evtimer_begin(t, OP_SHORT, s), st, fail);
        TL_CUDAGOTO(tl_test_spin(spin_ns / 10, s), st, fail);
        TL_TRYGOTO(tl_evtimer_end(t, OP_SHORT, s), st, fail);
        tl_probe_iter_end(ctx);
    }
    TL_TRYGOTO(tl_gpu_sync_all(ctx, "evtimer kernels"), st, fail);
    tl_probe_window_stop(ctx);
    TL_TRYGOTO(tl_evtimer_collect(t), st, fail);
    TL_TRYGOTO(tl_probes_destroy(ctx), st, fail);
    tl_evtimer_stat out[2];
    TL_TRYGOTO(tl_evtimer_reduce(ctx, t, out), st, fail);
    for (int k = 0; k < 2; k++)
        printf("evtimer %s: count %" PRId64 " total %.6f s min %.6f max %.6f\n", out[k].name, out[k].count,
               out[k].total_s, out[k].min_s, out[k].max_s);
    TL_CHECKGOTO(out[OP_SPIN].count == NIT && out[OP_SHORT].count == NIT, TL_ERR_NUMERIC, st, fail,
                 "counts %" PRId64 " / %" PRId64 ", want %d", out[0].count, out[1].count, NIT);
fail:
    tl_evtimer_destroy(&t);
    if (ctx->probes) tl_probes_destroy(ctx);
    tl_gpu_destroy(ctx);
    return st;
}

/* Exact values: sums of small integers, the same in any order. */
static double ar_value(int rank, size_t i) { return (double)(rank + 1) * (double)(i % 1024) + 0.5 * rank; }
static double ring_value(int rank, size_t i) { return 1000.0 * rank + (double)(i % 4096); }

static tl_status devcomm(tl_ctx *ctx, size_t n)
{
    tl_gpu_config gc = {.use_priorities = 1};
    tl_devcomm_config dcc = {.kind = (tl_devcomm_kind)ctx->device_comm, .split = 1};
    tl_devcomm *dc = NULL;
    double *h = NULL, *d_ar = NULL, *d_send = NULL, *d_left = NULL, *d_right = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_gpu_create(ctx, &gc));
    TL_TRYGOTO(tl_devcomm_create(ctx, &dcc, &dc), st, fail);
    int r = ctx->rank, size = ctx->size, right = (r + 1) % size, left = (r - 1 + size) % size;
    size_t bytes = n * sizeof(double);
    h = malloc(3 * bytes);
    TL_CHECKGOTO(h, TL_ERR_NOMEM, st, fail, "%zu doubles", 3 * n);
    TL_CUDAGOTO(cudaMalloc((void **)&d_ar, bytes), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&d_send, bytes), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&d_left, bytes), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&d_right, bytes), st, fail);
    cudaStream_t s_coll = tl_gpu_stream(ctx->gpu, TL_ROLE_COLL), s_p2p = tl_gpu_stream(ctx->gpu, TL_ROLE_P2P);
    for (int rep = 0; rep < 3; rep++) {
        for (int ch = 0; ch < TL_CHAN_COUNT; ch++) {
            for (size_t i = 0; i < n; i++) h[i] = ar_value(r, i);
            TL_CUDAGOTO(cudaMemcpyAsync(d_ar, h, bytes, cudaMemcpyHostToDevice, s_coll), st, fail);
            TL_TRYGOTO(tl_devcomm_allreduce(ctx, dc, (tl_chan)ch, d_ar, n, s_coll), st, fail);
            TL_CUDAGOTO(cudaMemcpyAsync(h, d_ar, bytes, cudaMemcpyDeviceToHost, s_coll), st, fail);
            TL_TRYGOTO(tl_gpu_sync(ctx, s_coll, "allreduce result"), st, fail);
            for (size_t i = 0; i < n; i++) {
                double want = 0;
                for (int q = 0; q < size; q++) want += ar_value(q, i);
                TL_CHECKGOTO(h[i] == want, TL_ERR_NUMERIC, st, fail, "rank %d %s allreduce: [%zu] = %.17g, want %.17g",
                             r, ch ? "split" : "world", i, h[i], want);
            }
            /* both neighbours in one group: left and right may be the same rank */
            for (size_t i = 0; i < n; i++) h[i] = ring_value(r, i);
            TL_CUDAGOTO(cudaMemcpyAsync(d_send, h, bytes, cudaMemcpyHostToDevice, s_p2p), st, fail);
            TL_CUDAGOTO(cudaMemsetAsync(d_left, 0, bytes, s_p2p), st, fail);
            TL_CUDAGOTO(cudaMemsetAsync(d_right, 0, bytes, s_p2p), st, fail);
            tl_devcomm_peer peers[2] = {{.rank = right, .d_send = d_send, .send_bytes = bytes, .d_recv = d_right,
                                         .recv_bytes = bytes},
                                        {.rank = left, .d_send = d_send, .send_bytes = bytes, .d_recv = d_left,
                                         .recv_bytes = bytes}};
            int npeers = size == 1 ? 1 : size == 2 ? 1 : 2; /* one entry per distinct neighbour */
            if (size <= 2) peers[0].d_recv = d_left;
            TL_TRYGOTO(tl_devcomm_exchange(ctx, dc, (tl_chan)ch, peers, npeers, s_p2p), st, fail);
            TL_CUDAGOTO(cudaMemcpyAsync(h + n, d_left, bytes, cudaMemcpyDeviceToHost, s_p2p), st, fail);
            TL_CUDAGOTO(cudaMemcpyAsync(h + 2 * n, d_right, bytes, cudaMemcpyDeviceToHost, s_p2p), st, fail);
            TL_TRYGOTO(tl_gpu_sync(ctx, s_p2p, "exchange result"), st, fail);
            for (size_t i = 0; i < n; i++) {
                TL_CHECKGOTO(h[n + i] == ring_value(left, i), TL_ERR_NUMERIC, st, fail,
                             "rank %d: from left rank %d [%zu] = %.17g", r, left, i, h[n + i]);
                if (size > 2)
                    TL_CHECKGOTO(h[2 * n + i] == ring_value(right, i), TL_ERR_NUMERIC, st, fail,
                                 "rank %d: from right rank %d [%zu] = %.17g", r, right, i, h[2 * n + i]);
            }
        }
    }
    if (r == 0)
        printf("devcomm %s ok on %d ranks (%s, gpu shared=%d)\n", tl_devcomm_name(dc), size,
               ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads", ctx->gpu->shared);
fail:
    free(h);
    cudaFree(d_ar);
    cudaFree(d_send);
    cudaFree(d_left);
    cudaFree(d_right);
    tl_devcomm_destroy(&dc);
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK) tl_gpu_destroy(ctx);
    return st;
}

static tl_status rank_main(tl_ctx *ctx, void *arg)
{
    helper_opts *o = arg;
    if (strcmp(o->scenario, "streams") == 0) return streams(ctx);
    if (strcmp(o->scenario, "timeout") == 0) return timeout(ctx);
    if (strcmp(o->scenario, "evtimer") == 0) return evtimer(ctx, o->outdir);
    if (strcmp(o->scenario, "devcomm") == 0) return devcomm(ctx, (size_t)o->count);
    return TL_FAIL(TL_ERR_INVAL, "unknown scenario '%s'", o->scenario);
}

int main(int argc, char **argv)
{
    helper_opts ho;
    const tl_test_helper h = {.program = "helper_gpu_runtime",
                              .usage = "[options] streams|timeout|evtimer|devcomm",
                              .purpose = "Checks the runtime's device layer.",
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
    fprintf(stderr, "helper_gpu_runtime: this build has no CUDA\n");
    return 77;
}

#endif
