/* trilap-bench tristream: the paper's Sec. II-C microbenchmark. Each
 * iteration is one step of a pipelined solver: an allreduce of a few
 * doubles (the dot products), a ring send/recv (the halo exchange) and a
 * DAXPY (the vector update) that does not depend on this iteration's
 * communication. The variant table says which stream and communicator each
 * operation uses; one driver runs them all. Streams are joined at the end
 * of every iteration through events only (no host sync in the loop). */
#include "microbench/bench.h"

#include "config.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "microbench/bench_kernels.h"
#include "microbench/nccl_ops.h"
#include "probes/gpu_lanes.h"
#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/nccl.h"
#include "runtime/progress.h"
#include "runtime/results.h"
#include "runtime/timing.h"

typedef struct tri_state {
    const tl_tristream_cfg *cfg;
    const tl_tristream_opts *opts;
    double *d_ar_send, *d_ar_recv, *d_ring_send, *d_ring_recv, *d_x, *d_y;
    unsigned long long *d_wrong;
    cudaEvent_t ev_done[TL_ROLE_NSTREAMS]; /* end of a role's work in the last iteration */
    int64_t ar_n, ring_n, dx_n;         /* sizes at the current point */
    int64_t daxpy_updates;              /* y = K * a after K updates since the reset */
    int sms;
    tl_progress bar;      /* rank 0's: one unit per timed repetition and traced window */
    tl_results_rows rows; /* rank 0's: the lines its rows took in --results, for the manifest */
    tl_manifest_run mr;   /* rank 0's: this command's block in manifest.txt */
} tri_state;

static unsigned roles_used(const tl_tristream_variant *v)
{
    unsigned m = 0;
    if (v->allreduce != TL_ROLE_NONE) m |= 1u << v->allreduce;
    if (v->ring != TL_ROLE_NONE) m |= 1u << v->ring;
    if (v->daxpy != TL_ROLE_NONE) m |= 1u << v->daxpy;
    return m;
}

/* One iteration of variant v. */
static tl_status tri_iteration(tl_ctx *ctx, tri_state *t, const tl_tristream_variant *v, int64_t it)
{
    const tl_gpu *g = ctx->gpu;
    unsigned used = roles_used(v);
    tl_probe_iter_begin(ctx, it);
    /* join: each stream starts this iteration after the others finished the last */
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++) {
        if (!(used & (1u << r))) continue;
        for (int q = 0; q < TL_ROLE_NSTREAMS; q++)
            if (q != r && (used & (1u << q)))
                TL_CUDA(cudaStreamWaitEvent(tl_gpu_stream(g, r), t->ev_done[q], 0));
    }
    if (v->allreduce != TL_ROLE_NONE) {
        ncclComm_t c = tl_nccl_comm(ctx, v->allreduce_comm);
        tl_probe_push(ctx, TL_CAT_COLL, "allreduce");
        TL_TRY(tl_bench_allreduce(ctx, t->d_ar_send, t->d_ar_recv, t->ar_n, c,
                                  tl_gpu_stream(g, v->allreduce)));
        tl_probe_pop(ctx);
    }
    if (v->ring != TL_ROLE_NONE) {
        tl_probe_push(ctx, TL_CAT_P2P, "ring");
        TL_TRY(tl_bench_ring(ctx, t->d_ring_send, t->d_ring_recv, t->ring_n, tl_nccl_comm(ctx, v->ring_comm),
                             tl_gpu_stream(g, v->ring)));
        tl_probe_pop(ctx);
    }
    if (v->daxpy != TL_ROLE_NONE) {
        tl_probe_push(ctx, TL_CAT_COMPUTE, "daxpy");
        TL_TRY(tl_bench_daxpy(t->dx_n, TL_BENCH_DAXPY_A, t->d_x, t->d_y, (int)t->cfg->daxpy_blocks,
                              tl_gpu_stream(g, v->daxpy)));
        tl_probe_pop(ctx);
        t->daxpy_updates++;
    }
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++)
        if (used & (1u << r)) TL_CUDA(cudaEventRecord(t->ev_done[r], tl_gpu_stream(g, r)));
    tl_probe_iter_end(ctx);
    return TL_OK;
}

static tl_status tri_loop(tl_ctx *ctx, tri_state *t, const tl_tristream_variant *v, int64_t first,
                          int64_t n)
{
    for (int64_t it = first; it < first + n; it++)
        TL_TRY(tri_iteration(ctx, t, v, it));
    return TL_OK;
}

/* Known values in the send buffers (this repetition's salt), sentinels in
 * the receive buffers, so a stale or missing result is caught. */
static tl_status tri_refill(tl_ctx *ctx, tri_state *t, int salt)
{
    cudaStream_t s = tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE);
    tl_bench_expect pat = {.kind = TL_EXPECT_PATTERN, .rank = ctx->rank, .salt = salt};
    tl_bench_expect sentinel = {.kind = TL_EXPECT_CONST, .value = -1.0};
    TL_TRY(tl_bench_fill(t->d_ar_send, t->ar_n, pat, s));
    TL_TRY(tl_bench_fill(t->d_ar_recv, t->ar_n, sentinel, s));
    TL_TRY(tl_bench_fill(t->d_ring_send, t->ring_n, pat, s));
    TL_TRY(tl_bench_fill(t->d_ring_recv, t->ring_n, sentinel, s));
    TL_TRY(tl_gpu_sync(ctx, s, "tristream buffer fill"));
    return TL_OK;
}

static tl_status tri_reset_daxpy(tl_ctx *ctx, tri_state *t)
{
    cudaStream_t s = tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE);
    TL_TRY(tl_bench_fill(t->d_x, t->dx_n, (tl_bench_expect){.kind = TL_EXPECT_CONST, .value = 1.0},
                         s));
    TL_TRY(tl_bench_fill(t->d_y, t->dx_n, (tl_bench_expect){.kind = TL_EXPECT_CONST, .value = 0.0},
                         s));
    TL_TRY(tl_gpu_sync(ctx, s, "tristream DAXPY reset"));
    t->daxpy_updates = 0;
    return TL_OK;
}

/* Wrong values of this variant after a run with `salt`, summed over ranks. */
static tl_status tri_check(tl_ctx *ctx, tri_state *t, const tl_tristream_variant *v, int salt,
                           int64_t *wrong)
{
    cudaStream_t s = tl_gpu_stream(ctx->gpu, TL_ROLE_COMPUTE);
    TL_CUDA(cudaMemsetAsync(t->d_wrong, 0, sizeof *t->d_wrong, s));
    if (v->allreduce != TL_ROLE_NONE) {
        tl_bench_expect e = {.kind = TL_EXPECT_SUM, .nranks = ctx->size, .salt = salt};
        TL_TRY(tl_bench_check(t->d_ar_recv, t->ar_n, e, t->d_wrong, s));
    }
    if (v->ring != TL_ROLE_NONE) {
        tl_bench_expect e = {.kind = TL_EXPECT_PATTERN,
                             .rank = (ctx->rank - 1 + ctx->size) % ctx->size,
                             .salt = salt};
        TL_TRY(tl_bench_check(t->d_ring_recv, t->ring_n, e, t->d_wrong, s));
    }
    if (v->daxpy != TL_ROLE_NONE) {
        tl_bench_expect e = {.kind = TL_EXPECT_CONST,
                             .value = tl_bench_daxpy_expected(t->daxpy_updates)};
        TL_TRY(tl_bench_check(t->d_y, t->dx_n, e, t->d_wrong, s));
    }
    unsigned long long h = 0;
    TL_CUDA(cudaMemcpyAsync(&h, t->d_wrong, sizeof h, cudaMemcpyDeviceToHost, s));
    TL_TRY(tl_gpu_sync(ctx, s, "tristream check"));
    int64_t w = (int64_t)h;
    TL_TRY(tl_comm_allreduce(ctx, &w, 1, TL_INT64, TL_SUM));
    *wrong = w;
    return TL_OK;
}

/* The session for `iters` iterations, in DIR/<sub>: each has an
 * iteration range and up to three operation ranges. */
static tl_status probes_start(tl_ctx *ctx, const char *sub, int cupti, int64_t iters)
{
    const tl_probes_session session = {.sub = sub, .cupti = cupti, .max_ranges = (size_t)(4 * iters + 4096)};
    /* collective and agreed: one rank's refusal never leaves the others in NCCL */
    TL_TRY(tl_probes_session_open(ctx, &session, NULL));
    tl_probe_gpu_roles(ctx);
    return TL_OK;
}

typedef struct tri_collect {
    tl_tristream_row *rows; /* rank 0: npoints * nvariants */
    size_t nrows;
    int64_t wrong;
} tri_collect;

static tl_status tri_variant(tl_ctx *ctx, tri_state *t, int vi, size_t p, double *samples,
                             tri_collect *out)
{
    const tl_tristream_cfg *cfg = t->cfg;
    const tl_tristream_variant var = tl_tristream_variant_get(vi), *v = &var;
    static const char *const modes[] = {"off", "nvtx", "cupti"};
    int64_t wrong_total = 0, w = 0;

    TL_TRY(tri_reset_daxpy(ctx, t));
    TL_TRY(tri_refill(ctx, t, 0));
    if (cfg->trace_mode > 0) {
        char dir[1200];
        tl_tristream_trace_sub(cfg, 1, p, v->name, dir, sizeof dir);
        TL_TRY(
            probes_start(ctx, dir, cfg->trace_mode == 2, cfg->warmup + cfg->repeat * cfg->iters));
    }
    TL_TRY(tri_loop(ctx, t, v, 0, cfg->warmup));
    TL_TRY(tl_gpu_sync_all(ctx, "tristream warm-up"));
    if (cfg->warmup > 0) { /* without iterations the receive buffers still hold sentinels */
        TL_TRY(tri_check(ctx, t, v, 0, &w));
        wrong_total += w;
    }
    tl_probe_window_start(ctx);
    for (int64_t rep = 0; rep < cfg->repeat; rep++) {
        int salt = (int)rep + 1;
        TL_TRY(tri_refill(ctx, t, salt));
        int64_t t0 = 0;
        double secs = 0;
        TL_TRY(tl_time_start(ctx, &t0));
        TL_TRY(tri_loop(ctx, t, v, cfg->warmup + rep * cfg->iters, cfg->iters));
        TL_TRY(tl_time_stop(ctx, t0, &secs));
        samples[rep] = secs / (double)cfg->iters * 1e6;
        TL_TRY(tri_check(ctx, t, v, salt, &w));
        wrong_total += w;
        tl_progress_update(&t->bar, t->bar.done + 1);
        if (ctx->rank == 0 && t->opts->results) {
            char row[1024];
            tl_tristream_sample s = {.variant = v->name,
                                     .nranks = ctx->size,
                                     .rep = (int)rep,
                                     .us_per_iter = samples[rep],
                                     .allreduce_bytes = t->ar_n * 8,
                                     .ring_bytes = t->ring_n * 8,
                                     .daxpy_bytes = t->dx_n * 8,
                                     .iters = cfg->iters,
                                     .warmup = cfg->warmup,
                                     .priorities = cfg->priorities,
                                     .split_max_ctas = cfg->split_max_ctas,
                                     .split_min_ctas = cfg->split_min_ctas,
                                     .daxpy_blocks = cfg->daxpy_blocks,
                                     .trace_mode = modes[cfg->trace_mode],
                                     .max_connections = tl_bench_env("CUDA_DEVICE_MAX_CONNECTIONS"),
                                     .launch_mode = tl_bench_env("NCCL_LAUNCH_MODE"),
                                     .wrong = w};
            TL_TRY(tl_results_append(t->opts->results, tl_tristream_results_header,
                                     tl_tristream_results_row(&s, row, sizeof row), &t->rows));
        }
    }
    tl_probe_window_stop(ctx);
    if (cfg->trace_mode > 0) TL_TRY(tl_probes_session_close(ctx));

    if (ctx->rank == 0) {
        tl_stats s = tl_stats_of(samples, (size_t)cfg->repeat);
        out->rows[out->nrows++] =
            (tl_tristream_row){.variant = v->name,
                               .allreduce_bytes = v->allreduce != TL_ROLE_NONE ? t->ar_n * 8 : 0,
                               .ring_bytes = v->ring != TL_ROLE_NONE ? t->ring_n * 8 : 0,
                               .daxpy_bytes = v->daxpy != TL_ROLE_NONE ? t->dx_n * 8 : 0,
                               .median_us = s.median,
                               .min_us = s.min,
                               .max_us = s.max,
                               .wrong = wrong_total};
        tl_progress_clear(&t->bar);
        tl_log("tristream %-14s %10.2f us/iter (median of %lld), %lld wrong", v->name, s.median,
               (long long)cfg->repeat, (long long)wrong_total);
    }
    out->wrong += wrong_total;
    return TL_OK;
}

/* The traced window of variant vi: after every variant's timed
 * repetitions at this point, so CUPTI (enabled here) never runs during,
 * or before, a timed loop. Adds its wrong values to *wrong. */
static tl_status tri_traced(tl_ctx *ctx, tri_state *t, int vi, size_t p, int64_t *wrong)
{
    const tl_tristream_cfg *cfg = t->cfg;
    const tl_tristream_variant var = tl_tristream_variant_get(vi), *v = &var;
    const int salt = (int)cfg->repeat + 1;
    char dir[1200];
    int64_t w = 0;
    tl_tristream_trace_sub(cfg, 0, p, v->name, dir, sizeof dir);
    TL_TRY(tri_reset_daxpy(ctx, t));
    TL_TRY(tri_refill(ctx, t, salt));
    TL_TRY(probes_start(ctx, dir, 1, cfg->trace_iters));
    TL_TRY(tl_time_start(ctx, &(int64_t){0}));
    tl_probe_window_start(ctx);
    TL_TRY(tri_loop(ctx, t, v, 0, cfg->trace_iters));
    TL_TRY(tl_gpu_sync_all(ctx, "tristream traced window"));
    tl_probe_window_stop(ctx);
    uint64_t dropped = tl_probes_dropped(ctx);
    TL_TRY(tl_probes_session_close(ctx));
    if (dropped) tl_log("%s/%s: trace of %s dropped %" PRIu64 " records", t->opts->trace, dir, v->name, dropped);
    TL_TRY(tri_check(ctx, t, v, salt, &w));
    *wrong += w;
    tl_progress_update(&t->bar, t->bar.done + 1);
    return TL_OK;
}

static tl_status tri_alloc(tl_ctx *ctx, tri_state *t)
{
    const tl_tristream_cfg *cfg = t->cfg;
    int64_t ar = 0, ring = 0, dx = 0;
    for (size_t p = 0; p < cfg->npoints; p++) {
        int64_t a, r, d;
        tl_tristream_point(cfg, p, &a, &r, &d);
        ar = a > ar ? a : ar;
        ring = r > ring ? r : ring;
        dx = d > dx ? d : dx;
    }
    TL_CUDA(cudaMalloc((void **)&t->d_ar_send, (size_t)ar * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_ar_recv, (size_t)ar * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_ring_send, (size_t)ring * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_ring_recv, (size_t)ring * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_x, (size_t)dx * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_y, (size_t)dx * sizeof(double)));
    TL_CUDA(cudaMalloc((void **)&t->d_wrong, sizeof *t->d_wrong));
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++)
        TL_CUDA(cudaEventCreateWithFlags(&t->ev_done[r], cudaEventDisableTiming));
    TL_CUDA(cudaDeviceGetAttribute(&t->sms, cudaDevAttrMultiProcessorCount, ctx->device));
    return TL_OK;
}

static void tri_free(tri_state *t)
{
    cudaFree(t->d_ar_send);
    cudaFree(t->d_ar_recv);
    cudaFree(t->d_ring_send);
    cudaFree(t->d_ring_recv);
    cudaFree(t->d_x);
    cudaFree(t->d_y);
    cudaFree(t->d_wrong);
    for (int r = 0; r < TL_ROLE_NSTREAMS; r++)
        if (t->ev_done[r]) cudaEventDestroy(t->ev_done[r]);
}

static tl_status tri_report(tl_ctx *ctx, const tl_bench_run *run, tri_state *t, tri_collect *c)
{
    const tl_tristream_cfg *cfg = t->cfg;
    tl_bench_meta m = {0};
    tl_bench_cell *cells = NULL;
    tl_status st = TL_OK;
    TL_TRYGOTO(tl_bench_meta_common(&m, ctx, "tristream"), st, fail);
    if (ctx->rank != 0) goto fail;
    int64_t a, r, d;
    tl_tristream_point(cfg, 0, &a, &r, &d);
    TL_TRYGOTO(tl_bench_meta_add(&m, "allreduce", "%" PRId64 " doubles (%" PRId64 " B)%s", a, a * 8,
                                 cfg->sweep == TL_SWEEP_ALLREDUCE_COUNT ? " (swept)" : ""),
               st, fail);
    TL_TRYGOTO(tl_bench_meta_add(&m, "ring", "%" PRId64 " doubles (%" PRId64 " B) to rank+1%s", r,
                                 r * 8, cfg->sweep == TL_SWEEP_RING_BYTES ? " (swept)" : ""),
               st, fail);
    TL_TRYGOTO(tl_bench_meta_add(&m, "daxpy", "%" PRId64 " doubles (%" PRId64 " B) per vector%s", d,
                                 d * 8, cfg->sweep == TL_SWEEP_DAXPY_BYTES ? " (swept)" : ""),
               st, fail);
    if (cfg->daxpy_blocks > 0)
        TL_TRYGOTO(tl_bench_meta_add(&m, "daxpy_grid",
                                     "%" PRId64 " blocks x %d threads, grid-stride (%d SMs)",
                                     cfg->daxpy_blocks, TL_BENCH_BLOCK, t->sms),
                   st, fail);
    else
        TL_TRYGOTO(tl_bench_meta_add(
                       &m, "daxpy_grid",
                       "%" PRId64 " blocks x %d threads, one double2 per thread (%d SMs)",
                       (d + 2 * TL_BENCH_BLOCK - 1) / (2 * TL_BENCH_BLOCK), TL_BENCH_BLOCK, t->sms),
                   st, fail);
    TL_TRYGOTO(tl_bench_meta_add(&m, "priorities", "%s (compute %d, p2p and coll %d)",
                                 cfg->priorities ? "on" : "off", ctx->gpu->prio_low,
                                 cfg->priorities ? ctx->gpu->prio_high : ctx->gpu->prio_low),
               st, fail);
    TL_TRYGOTO(tl_bench_meta_add(
                   &m, "split", "%s (maxCTAs %" PRId64 ", minCTAs %" PRId64 ", 0 = NCCL default)",
                   cfg->needs_split ? "yes" : "no", cfg->split_max_ctas, cfg->split_min_ctas),
               st, fail);
    TL_TRYGOTO(tl_bench_meta_add(&m, "timing",
                                 "host clock over %" PRId64 " iterations after %" PRId64
                                 " warm-up, %" PRId64 " repetitions, max over ranks",
                                 cfg->iters, cfg->warmup, cfg->repeat),
               st, fail);
    TL_TRYGOTO(tl_bench_meta_add_opts(&m, run->spec), st, fail);
    cells = calloc(c->nrows * tl_tristream_ncols + 1, sizeof *cells);
    TL_CHECKGOTO(cells, TL_ERR_NOMEM, st, fail, "%zu result rows", c->nrows);
    for (size_t i = 0; i < c->nrows; i++)
        tl_tristream_cells(&c->rows[i], cells + i * tl_tristream_ncols);
    TL_TRYGOTO(tl_bench_write(stdout, (tl_bench_format)cfg->format, &m, tl_tristream_cols,
                              tl_tristream_ncols, cells, c->nrows, c->wrong),
               st, fail);
    fflush(stdout);
fail:
    free(cells);
    tl_bench_meta_free(&m);
    return st;
}

tl_status tl_tristream_rank_main(tl_ctx *ctx, void *arg)
{
    const tl_bench_run *run = arg;
    const tl_tristream_cfg *cfg = run->tcfg;
    tri_state t = {.cfg = cfg, .opts = run->opts};
    tri_collect c = {0};
    double *samples = NULL;
    tl_status st = TL_OK;

    TL_TRYGOTO(tl_bench_need_gpus(ctx, "tristream"), st, fail);
    tl_gpu_config gc = {.use_priorities = cfg->priorities};
    tl_nccl_config nc = {.split = cfg->needs_split,
                         .split_max_ctas = (int)cfg->split_max_ctas,
                         .split_min_ctas = (int)cfg->split_min_ctas};
    TL_TRYGOTO(tl_gpu_create(ctx, &gc), st, fail);
    TL_TRYGOTO(tl_nccl_create(ctx, &nc), st, fail);
    TL_TRYGOTO(tri_alloc(ctx, &t), st, fail);
    samples = calloc((size_t)cfg->repeat, sizeof *samples);
    c.rows = calloc(cfg->npoints * TL_NVARIANTS, sizeof *c.rows);
    TL_CHECKGOTO(samples && c.rows, TL_ERR_NOMEM, st, fail, "result arrays");
    /* the folders of the results and the traces made before the work, and
     * said (runtime/results.h), as in every program */
    TL_TRYGOTO(tl_results_make_folder(ctx, "--results", t.opts->results, TL_OUT_FOLDER_OF_FILE), st, fail);
    TL_TRYGOTO(tl_results_make_folder(ctx, "--trace", t.opts->trace, TL_OUT_FOLDER_ITSELF), st, fail);
    /* rows go to --results after each timed repetition: the block first */
    TL_TRYGOTO(tl_bench_manifest_begin(ctx, t.opts->results, tl_tristream_results_header, "tristream", &t.mr), st, fail);
    if (ctx->rank == 0) {
        int nvar = 0;
        for (int vi = 0; vi < TL_NVARIANTS; vi++)
            nvar += (cfg->variants & (1u << vi)) != 0;
        double per_variant = (double)cfg->repeat + (t.opts->trace ? 1.0 : 0.0);
        tl_progress_begin(&t.bar, "tristream", (double)cfg->npoints * nvar * per_variant, "reps",
                          tl_progress_mode_of(t.opts->progress));
    }
    for (size_t p = 0; p < cfg->npoints; p++) {
        tl_tristream_point(cfg, p, &t.ar_n, &t.ring_n, &t.dx_n);
        size_t first = c.nrows;
        for (int vi = 0; vi < TL_NVARIANTS; vi++)
            if (cfg->variants & (1u << vi))
                TL_TRYGOTO(tri_variant(ctx, &t, vi, p, samples, &c), st, fail);
        for (int vi = 0, k = 0; t.opts->trace && vi < TL_NVARIANTS; vi++) {
            if (!(cfg->variants & (1u << vi))) continue;
            int64_t w = 0;
            TL_TRYGOTO(tri_traced(ctx, &t, vi, p, &w), st, fail);
            if (ctx->rank == 0) c.rows[first + (size_t)k].wrong += w;
            c.wrong += w;
            k++;
        }
        if (ctx->rank == 0) tl_tristream_derive(c.rows + first, c.nrows - first);
    }
    tl_progress_end(&t.bar);
    TL_TRYGOTO(tri_report(ctx, run, &t, &c), st, fail);
    char wrong[64];
    snprintf(wrong, sizeof wrong, "wrong: %" PRId64 "\n", c.wrong);
    TL_TRYGOTO(tl_manifest_end(ctx, &t.mr, &t.rows, wrong), st, fail);
    if (c.wrong > 0) {
        if (ctx->rank == 0) tl_log("tristream: %" PRId64 " wrong values: the run fails", c.wrong);
        st = TL_ERR_NUMERIC;
    }
fail:
    tl_progress_end(&t.bar); /* the line ended before an error's */
    if (st != TL_OK && st != TL_ERR_NUMERIC) tl_manifest_abort(ctx, &t.mr, &t.rows);
    tl_probes_session_close(ctx); /* one left open on an error path */
    tri_free(&t);
    free(samples);
    free(c.rows);
    return st;
}

#else

tl_status tl_tristream_rank_main(tl_ctx *ctx, void *arg)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED,
                   "tristream needs CUDA and NCCL; this build has %s (install the CUDA toolkit and "
                   "NCCL, rebuild)",
                   TL_HAVE_CUDA ? "CUDA without NCCL" : "no CUDA");
}

#endif
