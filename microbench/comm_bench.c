/* trilap-bench comm: NCCL allreduce and ring send/recv latency and
 * bandwidth over a size range, on the world and the split communicator,
 * measured as nccl-tests does (-b 8 -e 128M -f 2 -w 5 -n 20, out of
 * place): barrier + sync, host clock around `iters` back-to-back calls,
 * sync, divide; the maximum over ranks. algbw = bytes / time, busbw =
 * algbw * (2(n-1)/n for allreduce, 1 for sendrecv). */
#include "microbench/bench.h"

#include "config.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "microbench/bench_kernels.h"
#include "microbench/nccl_ops.h"
#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/nccl.h"
#include "runtime/progress.h"
#include "runtime/results.h"
#include "runtime/timing.h"

typedef struct cbufs {
    double *send, *recv;
    unsigned long long *d_wrong;
} cbufs;

static tl_status comm_call(tl_ctx *ctx, int op, ncclComm_t c, const cbufs *b, int64_t n)
{
    const tl_gpu *g = ctx->gpu;
    if (op == 0)
        return tl_bench_allreduce(ctx, b->send, b->recv, n, c, tl_gpu_stream(g, TL_ROLE_COLL));
    return tl_bench_ring(ctx, b->send, b->recv, n, c, tl_gpu_stream(g, TL_ROLE_P2P));
}

/* One size of one op on one communicator: time per call (us, max over
 * ranks) and the wrong values over ranks. */
static tl_status comm_point(tl_ctx *ctx, const tl_commbench_opts *o, int op, ncclComm_t c,
                            const cbufs *b, int64_t n, int salt, double *us, int64_t *wrong)
{
    cudaStream_t s = tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE);
    TL_TRY(tl_bench_fill(
        b->send, n, (tl_bench_expect){.kind = TL_EXPECT_PATTERN, .rank = ctx->rank, .salt = salt},
        s));
    TL_TRY(tl_bench_fill(b->recv, n, (tl_bench_expect){.value = -1.0}, s));
    TL_TRY(tl_gpu_sync(ctx, s, "comm buffer fill"));
    for (int64_t i = 0; i < o->warmup; i++)
        TL_TRY(comm_call(ctx, op, c, b, n));
    int64_t t0 = 0;
    double secs = 0;
    TL_TRY(tl_time_start(ctx, &t0));
    for (int64_t i = 0; i < o->iters; i++)
        TL_TRY(comm_call(ctx, op, c, b, n));
    TL_TRY(tl_time_stop(ctx, t0, &secs));
    *us = secs / (double)o->iters * 1e6;

    tl_bench_expect e =
        op == 0 ? (tl_bench_expect){.kind = TL_EXPECT_SUM, .nranks = ctx->size, .salt = salt}
                : (tl_bench_expect){.kind = TL_EXPECT_PATTERN,
                                    .rank = (ctx->rank - 1 + ctx->size) % ctx->size,
                                    .salt = salt};
    unsigned long long h = 0;
    TL_CUDA(cudaMemsetAsync(b->d_wrong, 0, sizeof *b->d_wrong, s));
    TL_TRY(tl_bench_check(b->recv, n, e, b->d_wrong, s));
    TL_CUDA(cudaMemcpyAsync(&h, b->d_wrong, sizeof h, cudaMemcpyDeviceToHost, s));
    TL_TRY(tl_gpu_sync(ctx, s, "comm check"));
    int64_t w = (int64_t)h;
    TL_TRY(tl_comm_allreduce(ctx, &w, 1, TL_INT64, TL_SUM));
    *wrong = w;
    return TL_OK;
}

tl_status tl_commbench_rank_main(tl_ctx *ctx, void *arg)
{
    const tl_bench_run *run = arg;
    const tl_commbench_opts *o = run->opts;
    static const char *const opnames[2] = {"allreduce", "sendrecv"};
    static const char *const commnames[2] = {"world", "split"};
    cbufs b = {0};
    int64_t *sizes = NULL;
    size_t nsizes = 0;
    tl_comm_row *rows = NULL;
    tl_results_rows lines = {0}; /* rank 0: where its rows went in --results, for the manifest */
    tl_manifest_run mr = {0};
    tl_bench_cell *cells = NULL;
    tl_bench_meta m = {0};
    size_t nrows = 0;
    int64_t wrong_total = 0;
    tl_status st = TL_OK;
    const char *why = NULL;
    tl_progress bar = {0}; /* rank 0's */

    /* bit 0: world / allreduce, bit 1: split / sendrecv */
    int ops_mask = o->ops == TL_COMMBENCH_BOTH ? 3 : 1 << o->ops;
    int comm_mask = o->comm == TL_COMMBENCH_BOTH ? 3 : 1 << o->comm;
    TL_TRYGOTO(tl_bench_need_gpus(ctx, "comm"), st, fail);
    TL_CHECKGOTO(tl_sweep_series(o->min_bytes, o->max_bytes, o->factor, &sizes, &nsizes, &why) ==
                     TL_OK,
                 TL_ERR_INVAL, st, fail, "--min-bytes/--max-bytes/--factor: %s", why);
    TL_TRYGOTO(tl_results_make_folder(ctx, "--results", o->results, TL_OUT_FOLDER_OF_FILE), st, fail);
    tl_gpu_config gc = {.use_priorities = 0};
    tl_nccl_config nc = {.split = (comm_mask & 2) != 0,
                         .split_max_ctas = (int)o->split_max_ctas,
                         .split_min_ctas = (int)o->split_min_ctas};
    TL_TRYGOTO(tl_gpu_create(ctx, &gc), st, fail);
    TL_TRYGOTO(tl_nccl_create(ctx, &nc), st, fail);
    size_t maxn = (size_t)(o->max_bytes / 8 > 0 ? o->max_bytes / 8 : 1);
    TL_CUDAGOTO(cudaMalloc((void **)&b.send, maxn * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&b.recv, maxn * sizeof(double)), st, fail);
    TL_CUDAGOTO(cudaMalloc((void **)&b.d_wrong, sizeof *b.d_wrong), st, fail);
    rows = calloc(4 * nsizes, sizeof *rows);
    TL_CHECKGOTO(rows, TL_ERR_NOMEM, st, fail, "%zu rows", 4 * nsizes);
    if (ctx->rank == 0) /* one unit per size, op and communicator */
        tl_progress_begin(&bar, "comm",
                          (double)nsizes * (ops_mask == 3 ? 2 : 1) * (comm_mask == 3 ? 2 : 1),
                          "sizes", tl_progress_mode_of(o->progress));

    for (int op = 0; op < 2; op++) {
        if (!(ops_mask & (1 << op))) continue;
        for (int cs = 0; cs < 2; cs++) {
            if (!(comm_mask & (1 << cs))) continue;
            ncclComm_t c = cs ? ctx->gpu->nccl->split : ctx->gpu->nccl->world;
            for (size_t i = 0; i < nsizes; i++) {
                int64_t n = sizes[i] / 8 > 0 ? sizes[i] / 8 : 1;
                double us = 0;
                int64_t w = 0;
                TL_TRYGOTO(comm_point(ctx, o, op, c, &b, n, (int)i + 1, &us, &w), st, fail);
                double algbw = (double)(n * 8) / (us * 1e-6) * 1e-9;
                rows[nrows++] =
                    (tl_comm_row){.op = opnames[op],
                                  .comm = commnames[cs],
                                  .bytes = n * 8,
                                  .count = n,
                                  .type = "double",
                                  .redop = op == 0 ? "sum" : "none",
                                  .time_us = us,
                                  .algbw_gbs = algbw,
                                  .busbw_gbs = algbw * tl_busbw_factor(opnames[op], ctx->size),
                                  .wrong = w};
                wrong_total += w;
                tl_progress_update(&bar, (double)nrows);
            }
        }
    }
    tl_progress_end(&bar);

    TL_TRYGOTO(tl_bench_manifest_begin(ctx, o->results, tl_comm_results_header, "comm", &mr), st, fail);
    TL_TRYGOTO(tl_bench_meta_common(&m, ctx, "comm"), st, fail);
    if (ctx->rank == 0) {
        TL_TRYGOTO(tl_bench_meta_add(&m, "timing",
                                     "host clock around %" PRId64
                                     " back-to-back calls after %" PRId64
                                     " warm-up, per size; max over ranks; out of place",
                                     o->iters, o->warmup),
                   st, fail);
        TL_TRYGOTO(tl_bench_meta_add(&m, "busbw",
                                     "algbw * 2(n-1)/n (allreduce), * 1 (sendrecv), as nccl-tests"),
                   st, fail);
        TL_TRYGOTO(tl_bench_meta_add_opts(&m, run->spec), st, fail);
        cells = calloc(nrows * tl_comm_ncols + 1, sizeof *cells);
        TL_CHECKGOTO(cells, TL_ERR_NOMEM, st, fail, "%zu cells", nrows * tl_comm_ncols);
        for (size_t i = 0; i < nrows; i++)
            tl_comm_cells(&rows[i], cells + i * tl_comm_ncols);
        TL_TRYGOTO(tl_bench_write(stdout, (tl_bench_format)o->format, &m, tl_comm_cols,
                                  tl_comm_ncols, cells, nrows, wrong_total),
                   st, fail);
        fflush(stdout);
        if (o->results) {
            char row[512];
            for (size_t i = 0; i < nrows; i++)
                TL_TRYGOTO(tl_results_append(
                               o->results, tl_comm_results_header,
                               tl_comm_results_row(&rows[i], ctx->size, o->iters, row, sizeof row), &lines),
                           st, fail);
        }
    }
    TL_TRYGOTO(tl_manifest_end(ctx, &mr, &lines, NULL), st, fail);
    if (wrong_total > 0) {
        if (ctx->rank == 0) tl_log("comm: %" PRId64 " wrong values: the run fails", wrong_total);
        st = TL_ERR_NUMERIC;
    }
fail:
    tl_progress_end(&bar); /* the line ended before an error's */
    if (st != TL_OK && st != TL_ERR_NUMERIC) tl_manifest_abort(ctx, &mr, &lines);
    cudaFree(b.send);
    cudaFree(b.recv);
    cudaFree(b.d_wrong);
    free(sizes);
    free(rows);
    free(cells);
    tl_bench_meta_free(&m);
    return st;
}

#else

tl_status tl_commbench_rank_main(tl_ctx *ctx, void *arg)
{
    return TL_FAIL(
        TL_ERR_UNSUPPORTED,
        "comm needs CUDA and NCCL; this build has %s (install the CUDA toolkit and NCCL, rebuild)",
        TL_HAVE_CUDA ? "CUDA without NCCL" : "no CUDA");
}

#endif
