/* trilap-bench stream: BabelStream's copy, mul, add, triad and dot on each
 * rank's GPU (or, with --host, on the host of rank 0). Bandwidth = bytes
 * moved / minimum time, first call dropped, each call timed with CUDA
 * events; the results are verified against the analytic values. */
#include "microbench/bench.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/results.h"

#if TL_HAVE_CUDA
#include "microbench/bench_kernels.h"
#include "runtime/check.h"

enum { F_COPY, F_MUL, F_ADD, F_TRIAD, F_DOT, F_COUNT };
static const char *const fnames[F_COUNT] = {"copy", "mul", "add", "triad", "dot"};

typedef struct gstream {
    double *a, *b, *c, *partial, *sum;
    double *h_sum; /* pinned */
    unsigned long long *d_wrong;
    cudaEvent_t ev[F_COUNT + 1];
    cudaStream_t s;
} gstream;

static tl_status gstream_call(const tl_stream_opts *o, gstream *g, int f, int dot_blocks)
{
    int64_t n = o->count;
    int blk = (int)o->block, vec = (int)o->vector;
    switch (f) {
    case F_COPY:
        return tl_stream_copy(g->a, g->c, n, blk, vec, g->s);
    case F_MUL:
        return tl_stream_mul(g->b, g->c, TL_STREAM_SCALAR, n, blk, vec, g->s);
    case F_ADD:
        return tl_stream_add(g->a, g->b, g->c, n, blk, vec, g->s);
    case F_TRIAD:
        return tl_stream_triad(g->a, g->b, g->c, TL_STREAM_SCALAR, n, blk, vec, g->s);
    default:
        TL_TRY(tl_stream_dot(g->a, g->b, n, blk, dot_blocks, g->partial, g->sum, g->s));
        /* the result reaches the host inside the timing, as BabelStream's dot */
        TL_CUDA(cudaMemcpyAsync(g->h_sum, g->sum, sizeof(double), cudaMemcpyDeviceToHost, g->s));
        return TL_OK;
    }
}

static tl_status stream_device(tl_ctx *ctx, const tl_stream_opts *o, tl_stream_row rows[F_COUNT],
                               char *devname, size_t ndev)
{
    gstream g = {0};
    double *times = NULL;
    tl_status st = TL_OK;
    int64_t n = o->count;
    int sms = 0;
    tl_gpu_device_name(ctx->device, devname, ndev);
    TL_CUDAGOTO(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device), st,
                fail);
    int dot_blocks = 4 * sms; /* enough to fill the device; the grid-stride loop does the rest */
    TL_CUDAGOTO(cudaStreamCreateWithFlags(&g.s, cudaStreamNonBlocking), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.a, (size_t)n * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.b, (size_t)n * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.c, (size_t)n * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.partial, (size_t)dot_blocks * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.sum, sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&g.d_wrong, sizeof *g.d_wrong), st, fail);
    TL_CUDAGOTO(cudaMallocHost((void **)&g.h_sum, sizeof(double)), st, fail);
    for (int i = 0; i <= F_COUNT; i++)
        TL_CUDAGOTO(cudaEventCreate(&g.ev[i]), st, fail);
    times = calloc((size_t)(F_COUNT * o->iters), sizeof *times);
    TL_CHECKGOTO(times, TL_ERR_NOMEM, st, fail, "%lld timings", (long long)(F_COUNT * o->iters));

    TL_TRYGOTO(tl_bench_fill(g.a, n, (tl_bench_expect){.value = TL_STREAM_INIT_A}, g.s), st, fail);
    TL_TRYGOTO(tl_bench_fill(g.b, n, (tl_bench_expect){.value = TL_STREAM_INIT_B}, g.s), st, fail);
    TL_TRYGOTO(tl_bench_fill(g.c, n, (tl_bench_expect){.value = TL_STREAM_INIT_C}, g.s), st, fail);
    TL_CUDAGOTO(cudaStreamSynchronize(g.s), st, fail);
    for (int64_t k = 0; k < o->iters; k++) {
        /* events between the calls: each call's time with no host gap inside */
        TL_CUDAGOTO(cudaEventRecord(g.ev[0], g.s), st, fail);
        for (int f = 0; f < F_COUNT; f++) {
            TL_TRYGOTO(gstream_call(o, &g, f, dot_blocks), st, fail);
            TL_CUDAGOTO(cudaEventRecord(g.ev[f + 1], g.s), st, fail);
        }
        TL_CUDAGOTO(cudaEventSynchronize(g.ev[F_COUNT]), st, fail);
        for (int f = 0; f < F_COUNT; f++) {
            float ms = 0;
            TL_CUDAGOTO(cudaEventElapsedTime(&ms, g.ev[f], g.ev[f + 1]), st, fail);
            times[f * o->iters + k] = ms;
        }
    }
    tl_stream_gold gold = tl_stream_gold_of(o->iters, n);
    int64_t wrong[F_COUNT] = {0};
    double *arr[3] = {g.c, g.b, g.a};
    double want[3] = {gold.c, gold.b, gold.a};
    int64_t got[3] = {0};
    for (int i = 0; i < 3; i++) {
        unsigned long long h = 0;
        tl_bench_expect e = {.kind = TL_EXPECT_CONST, .value = want[i], .tol = 1e-8};
        TL_CUDAGOTO(cudaMemsetAsync(g.d_wrong, 0, sizeof *g.d_wrong, g.s), st, fail);
        TL_TRYGOTO(tl_bench_check(arr[i], n, e, g.d_wrong, g.s), st, fail);
        TL_CUDAGOTO(cudaMemcpyAsync(&h, g.d_wrong, sizeof h, cudaMemcpyDeviceToHost, g.s), st,
                    fail);
        TL_CUDAGOTO(cudaStreamSynchronize(g.s), st, fail);
        got[i] = (int64_t)h;
    }
    /* the last add left c (copy is checked through it), mul b, triad a */
    wrong[F_COPY] = wrong[F_ADD] = got[0];
    wrong[F_MUL] = got[1];
    wrong[F_TRIAD] = got[2];
    wrong[F_DOT] = fabs(*g.h_sum - gold.sum) > 1e-8 * fabs(gold.sum);
    for (int f = 0; f < F_COUNT; f++) {
        double mn = INFINITY, mx = 0, total = 0;
        for (int64_t k = 1; k < o->iters; k++) {
            double ms = times[f * o->iters + k];
            mn = fmin(mn, ms);
            mx = fmax(mx, ms);
            total += ms;
        }
        int64_t bytes = tl_stream_bytes(fnames[f], n);
        rows[f] = (tl_stream_row){.function = fnames[f],
                                  .rank = ctx->rank,
                                  .device = devname,
                                  .bytes = bytes,
                                  .gbs = (double)bytes / (mn * 1e-3) * 1e-9,
                                  .min_ms = mn,
                                  .max_ms = mx,
                                  .avg_ms = total / (double)(o->iters - 1),
                                  .wrong = wrong[f]};
    }
fail:
    free(times);
    for (int i = 0; i <= F_COUNT; i++)
        if (g.ev[i]) cudaEventDestroy(g.ev[i]);
    cudaFree(g.a);
    cudaFree(g.b);
    cudaFree(g.c);
    cudaFree(g.partial);
    cudaFree(g.sum);
    cudaFree(g.d_wrong);
    if (g.h_sum) cudaFreeHost(g.h_sum);
    if (g.s) cudaStreamDestroy(g.s);
    return st;
}
#endif

/* Rows travel to rank 0 as numbers; names are rebuilt there. */
typedef struct wire_row {
    double gbs, min_ms, max_ms, avg_ms;
    int64_t bytes, wrong;
    char device[64];
} wire_row;

/* What ran: on the host the thread count and the variables that set it
 * and its placement, without which two host bandwidths cannot be
 * compared (OMP_NUM_THREADS=1 and 2 read the same "OpenMP loops"). */
static tl_status stream_kernels_meta(tl_bench_meta *m, const tl_stream_opts *o)
{
    if (!o->host)
        return tl_bench_meta_add(m, "kernels", "%s", o->vector == 2 ? "one double2 per thread" : "one double per thread");
    int threads = tl_stream_host_threads();
    return tl_bench_meta_add(m, "kernels", "OpenMP loops on %d thread%s (OMP_NUM_THREADS=%s, OMP_PROC_BIND=%s)",
                             threads, threads == 1 ? "" : "s", tl_bench_env("OMP_NUM_THREADS"),
                             tl_bench_env("OMP_PROC_BIND"));
}

tl_status tl_stream_rank_main(tl_ctx *ctx, void *arg)
{
    const tl_bench_run *run = arg;
    const tl_stream_opts *o = run->opts;
    static const char *const names[5] = {"copy", "mul", "add", "triad", "dot"};
    tl_stream_row mine[5];
    memset(mine, 0, sizeof mine);
    char devname[64] = "host";
    tl_status st = TL_OK, local = TL_OK;
    wire_row w[5], *all = NULL;
    tl_stream_row *rows = NULL;
    tl_results_rows lines = {0}; /* rank 0: where its rows went in --results, for the manifest */
    tl_manifest_run mr = {0};
    tl_bench_cell *cells = NULL;
    tl_bench_meta m = {0};
    int nrows_rank = 5;

    if (o->host && ctx->size > 1) /* mpirun -np N: only rank 0 would measure */
        return ctx->rank ? TL_ERR_REMOTE
                         : TL_FAIL(TL_ERR_INVAL, "stream --host: one process measures the host's memory; run it "
                                                 "on one rank (this run: %d)", ctx->size);
#if TL_HAVE_CUDA
    if (!o->host) TL_TRY(tl_bench_need_gpus(ctx, "stream"));
#else
    if (!o->host)
        return tl_comm_agree(
            ctx, TL_FAIL(TL_ERR_UNSUPPORTED, "stream on GPUs needs CUDA (this build has none); use --host"));
#endif
    /* the folder of the results made before the work, and said (runtime/results.h) */
    TL_TRY(tl_results_make_folder(ctx, "--results", o->results, TL_OUT_FOLDER_OF_FILE));
    if (o->host) {
        local = tl_stream_host(o->count, o->iters, o->progress, mine);
        if (local == TL_ERR_NUMERIC) local = TL_OK; /* reported as wrong values below */
    } else {
#if TL_HAVE_CUDA
        local = stream_device(ctx, o, mine, devname, sizeof devname);
#endif
    }
    TL_TRY(tl_comm_agree(ctx, local));
    for (int f = 0; f < 5; f++) {
        w[f] = (wire_row){mine[f].gbs,
                          mine[f].min_ms,
                          mine[f].max_ms,
                          mine[f].avg_ms,
                          mine[f].bytes,
                          mine[f].wrong,
                          ""};
        snprintf(w[f].device, sizeof w[f].device, "%s", o->host ? "host" : devname);
    }
    all = calloc((size_t)ctx->size * 5, sizeof *all);
    TL_CHECK(all, TL_ERR_NOMEM, "%d ranks of stream results", ctx->size);
    TL_TRYGOTO(tl_comm_allgather(ctx, w, all, sizeof w), st, fail);
    TL_TRYGOTO(tl_bench_meta_common(&m, ctx, "stream"), st, fail);
    int nranks_shown = o->host ? 1 : ctx->size;
    int64_t wrong = 0;
    size_t nrows = (size_t)nranks_shown * (size_t)nrows_rank;
    rows = calloc(nrows, sizeof *rows);
    cells = calloc(nrows * tl_stream_ncols, sizeof *cells);
    TL_CHECKGOTO(rows && cells, TL_ERR_NOMEM, st, fail, "stream rows");
    TL_TRYGOTO(tl_bench_manifest_begin(ctx, o->results, tl_stream_results_header, "stream", &mr), st, fail);
    /* function-major: all ranks' copy, then mul, ... */
    for (int f = 0, k = 0; f < 5; f++)
        for (int r = 0; r < nranks_shown; r++, k++) {
            const wire_row *x = &all[r * 5 + f];
            rows[k] = (tl_stream_row){.function = names[f],
                                      .rank = r,
                                      .device = x->device,
                                      .bytes = x->bytes,
                                      .gbs = x->gbs,
                                      .min_ms = x->min_ms,
                                      .max_ms = x->max_ms,
                                      .avg_ms = x->avg_ms,
                                      .wrong = x->wrong};
            wrong += x->wrong;
        }
    if (ctx->rank == 0) {
        /* KiB below a MiB: --count 1K read "(0.0 MiB each)" */
        double kib = (double)o->count * 8 / 1024.0;
        TL_TRYGOTO(tl_bench_meta_add(&m, "arrays", "3 x %" PRId64 " doubles (%.1f %s each)", o->count,
                                     kib < 1024 ? kib : kib / 1024, kib < 1024 ? "KiB" : "MiB"),
                   st, fail);
        TL_TRYGOTO(stream_kernels_meta(&m, o), st, fail);
        TL_TRYGOTO(tl_bench_meta_add(&m, "bandwidth",
                                     "bytes moved / min time over %" PRId64
                                     " calls (first dropped), 1 GB/s = 1e9 B/s",
                                     o->iters - 1),
                   st, fail);
        TL_TRYGOTO(tl_bench_meta_add_opts(&m, run->spec), st, fail);
        for (size_t i = 0; i < nrows; i++)
            tl_stream_cells(&rows[i], cells + i * tl_stream_ncols);
        TL_TRYGOTO(tl_bench_write(stdout, (tl_bench_format)o->format, &m, tl_stream_cols,
                                  tl_stream_ncols, cells, nrows, wrong),
                   st, fail);
        fflush(stdout);
        if (o->results) {
            char row[512];
            for (size_t i = 0; i < nrows; i++)
                TL_TRYGOTO(tl_results_append(o->results, tl_stream_results_header,
                                             tl_stream_results_row(&rows[i], o->count, o->iters,
                                                                   row, sizeof row),
                                             &lines),
                           st, fail);
        }
    }
    TL_TRYGOTO(tl_manifest_end(ctx, &mr, &lines, NULL), st, fail);
    if (wrong > 0) {
        if (ctx->rank == 0) tl_log("stream: %" PRId64 " wrong values: verification failed", wrong);
        st = TL_ERR_NUMERIC;
    }
fail:
    if (st != TL_OK && st != TL_ERR_NUMERIC) tl_manifest_abort(ctx, &mr, &lines);
    tl_bench_meta_free(&m);
    free(all);
    free(rows);
    free(cells);
    return st;
}
