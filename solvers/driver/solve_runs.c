/* trilap-solve's ranks: the matrix distributed, every output's folder
 * made and the manifest begun, then each run of the lists (schedule x
 * SpMV x method): configured, its variant chosen from the backend's
 * answer, solved (traced where asked), reported and its files written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/gpu_lanes.h"
#include "probes/probes.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/gpu.h"
#include "runtime/out.h"
#include "runtime/progress.h"
#include "runtime/results.h"
#include "solvers/matrix/mmio.h"
#include "solvers/driver/solve_impl.h"

/* The configuration of one run from the options and its description. */
static tl_status run_config(const solve_opts *o, const solve_run *run, tl_solve_config *cfg)
{
    const struct spmv_choice *sp = run->spmv;
    *cfg = (tl_solve_config){
        .method = run->method,
        .backend = solve_backends[o->backend].name,
        .bcfg = {.schedule = run->schedule,
                 .omp_threads = (int)o->omp_threads,
                 .spmv = sp->impl,
                 .cusparse_alg = sp->alg != -2 ? sp->alg : tl_solve_cli_cusparse_alg_value(o->cusparse_alg),
                 .spmv_threads_per_row = sp->tpr != -2 ? sp->tpr : (int)o->spmv_tpr,
                 .stream_priorities = o->stream_priorities,
                 .split_max_ctas = (int)o->split_max_ctas,
                 .split_min_ctas = (int)o->split_min_ctas,
                 .op_timer = o->op_timer,
                 .op_timer_every = o->op_timer_every,
                 .check_every = (int)o->check_every,
                 .unfused = !o->fuse && !o->fuse_tail,
                 .fuse_tail = o->fuse_tail && !o->fuse,
                 .unfused_spmv_dot = !o->spmv_dot,
                 .regs_copy = o->regs_copy,
                 .prefetch = o->prefetch,
                 .pdl = o->pdl,
                 .vectors = run->method->work_vectors + TL_SOLVE_VECTORS},
        .params = {.rtol = o->rtol,
                   .atol = o->atol,
                   .max_iterations = o->max_iterations,
                   .base = (tl_rtol_base)o->rtol_base,
                   /* printed in the run's preamble: only where the method acts on it */
                   .residual_replacement = run->method->periodic_replacement ? o->residual_replacement : 0,
                   .monitor = o->monitor,
                   .keep_history = o->history != NULL},
        .warmup = o->warmup,
        .repeat = o->repeat,
        .warmup_iterations = o->warmup_iterations,
    };
    cfg->bcfg.precond = tl_solve_cli_run_precond(o, run->method);
    return TL_OK;
}

/* Ask the backend what it can run for this matrix and configuration,
 * choose the method's variant and the fusion from the answer (the
 * backend's create() then refuses what it cannot run, it never rewrites
 * its configuration). */
static tl_status choose(tl_ctx *ctx, const solve_opts *o, const tl_backend_ops *ops,
                        const tl_dist_matrix *dm, tl_solve_config *cfg, tl_backend_caps *caps,
                        tl_method_choice *choice)
{
    TL_TRY(tl_backend_caps_query(ops, ctx, dm, &cfg->bcfg, caps));
    tl_method_ask ask = {.scalars = (tl_ask_scalars)o->scalars,
                         .fused_iterations = o->persistent};
    *choice = tl_method_choose(cfg->method, caps, &ask);
    cfg->variant = choice->variant;
    cfg->bcfg.fused_iterations = choice->variant == TL_VARIANT_LOOP;
    if (!caps->fused_update) cfg->bcfg.unfused = 1;
    return TL_OK;
}

/* The CUDA run's choices, printed from the choice itself. */
static void print_cuda_choice(const tl_ctx *ctx, const solve_opts *o, const solve_run *run,
                              const tl_solve_config *cfg, const tl_backend_caps *caps,
                              const tl_method_choice *choice)
{
    const tl_backend_config *b = &cfg->bcfg;
    char timer[96] = "off";
    if (b->op_timer && b->op_timer_every > 1)
        snprintf(timer, sizeof timer, "on (1 call in %d of each operation timed, totals scaled)",
                 b->op_timer_every);
    else if (b->op_timer)
        snprintf(timer, sizeof timer, "on (every call timed)");
    printf("spmv: %s\nscalars: %s\ndevice comm: %s%s\nop timer: %s\nfused: %s\nregisters: "
           "%s\nprefetch: %s\npdl: %s\n",
           run->spmv->label, tl_variant_scalars_name((tl_variant)cfg->variant),
           tl_devcomm_kinds[ctx->device_comm].name, caps->device_comm ? "" : " (not used: one rank)", timer,
           b->unfused ? "off" : b->fuse_tail ? "tail" : "on", b->regs_copy ? "copy" : "mapped",
           b->prefetch ? "on" : "off", b->pdl ? "on" : "off");
    if (o->persistent)
        printf("persistent: %s%s%s\n", cfg->variant == TL_VARIANT_LOOP ? "on" : "off (",
               choice->loop_why_not, cfg->variant == TL_VARIANT_LOOP ? "" : ")");
}

/* The run's solves (warm-up and timed) in a tracing session of their
 * own, when --trace asked for one: a trace per run, whose window is that
 * run's timed solves (one session for all runs mixed their records under
 * the last run's window). */
static tl_status solve_traced(tl_ctx *ctx, const solve_opts *o, const solve_run *run, const tl_dist_matrix *dm,
                              tl_solve_config *cfg, const double *bl, const double *x0l, double *xl,
                              tl_solve_report *rep, tl_backend **be, tl_backend_caps *caps,
                              tl_method_choice *choice)
{
    const solve_backend *sb = &solve_backends[o->backend];
    char sub[256];
    int traced = 0;
    tl_solve_cli_run_name(sub, sizeof sub, o, run);
    const tl_probes_session session = {.sub = sub, .cupti = -1};
    TL_TRY(tl_probes_session_open(ctx, &session, &traced)); /* collective, agreed */
    if (traced) tl_probe_gpu_roles(ctx); /* kernels land on the lane of their stream's role */
    if (sb->run) {
        TL_TRY(sb->run(ctx, dm, cfg, bl, x0l, xl, rep));
    } else {
        TL_TRY(choose(ctx, o, sb->ops, dm, cfg, caps, choice));
        TL_TRY(sb->ops->create(ctx, dm, &cfg->bcfg, be));
        TL_TRY(tl_solve_run(ctx, *be, cfg, bl, x0l, xl, rep));
    }
    TL_TRY(tl_comm_agree(ctx, tl_probes_session_close(ctx)));
    return TL_OK;
}

/* Rank 0's files of one run: the results rows, the residual history; then
 * the solution, gathered from every rank. Collective. A failed write names
 * its option: a device (/dev/full) is taken up front and fails only here,
 * under the report. */
static tl_status write_run_files(tl_ctx *ctx, const solve_opts *o, const solve_run *run, const tl_dist_matrix *dm,
                                 const double *xl, const tl_solve_labels *lb, const tl_solve_config *cfg,
                                 const tl_solve_report *rep, tl_results_rows *rows)
{
    tl_status st = TL_OK, lst = TL_OK;
    double *xg = NULL;
    char path[4096];
    tl_error_context k;
    if (ctx->rank == 0) {
        /* the writers make the folders (runtime/out.h, tl_results_append) */
        if (o->results) lst = tl_solve_results_append(o->results, lb, cfg, rep, rows);
        if (lst == TL_OK && o->history) {
            tl_solve_cli_run_file_path(path, sizeof path, o->history, o, run);
            tl_error_context_begin(&k, "--history");
            lst = tl_solve_history_write(path, &rep->res);
            tl_error_context_end(&k);
            /* with several runs not the name given; a stream holds the data itself */
            if (lst == TL_OK && !tl_out_in_place(path)) printf("history: %s\n", path);
        }
    }
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    if (!o->solution) return TL_OK;
    if (ctx->rank == 0) {
        xg = malloc((size_t)(dm->nglobal ? dm->nglobal : 1) * sizeof *xg);
        lst = xg ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "solution of %lld rows", (long long)dm->nglobal);
    }
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    TL_TRYGOTO(tl_dist_gather_vec(ctx, dm, xl, xg), st, fail);
    if (ctx->rank == 0) {
        tl_solve_cli_run_file_path(path, sizeof path, o->solution, o, run);
        tl_error_context_begin(&k, "--solution");
        lst = tl_mm_write_vector(path, xg, dm->nglobal);
        tl_error_context_end(&k);
        if (lst == TL_OK && !tl_out_in_place(path)) printf("solution: %s\n", path);
    }
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
fail:
    free(xg);
    return st;
}

static tl_status run_one(tl_ctx *ctx, const solve_opts *o, const solve_run *run,
                         const tl_dist_matrix *dm, const double *bl, const double *x0l, double *xl,
                         const char *partdesc, solve_job *job)
{
    tl_status st = TL_OK;
    tl_backend *be = NULL;
    tl_solve_report rep = {0};
    const solve_backend *sb = &solve_backends[o->backend];
    int cuda = sb->device;
    tl_solve_config cfg;
    tl_method_choice choice = {.variant = TL_VARIANT_HOST};
    tl_backend_caps caps = {0};
    tl_progress bar;
    TL_TRY(run_config(o, run, &cfg));
    if (ctx->rank == 0) {
        double nsolves = (double)(o->warmup + o->repeat);
        tl_progress_begin(&bar, run->method->name, nsolves, "solves", tl_progress_mode_of(o->progress));
        cfg.params.progress = &bar;
    }
    TL_TRYGOTO(solve_traced(ctx, o, run, dm, &cfg, bl, x0l, xl, &rep, &be, &caps, &choice), st, fail);
    if (cfg.params.progress) {
        tl_progress_update(&bar, bar.total); /* a solve that converged early is done too */
        tl_progress_end(&bar);
        cfg.params.progress = NULL;
    }
    tl_solve_labels lb = {.solver = run->method->name,
                          .precond = tl_precond_name(cfg.bcfg.precond),
                          .schedule = sb->schedule_label ? sb->schedule_label : run->schedule->name,
                          .backend = solve_backends[o->backend].name,
                          .matrix = o->matrix_name,
                          .partition = partdesc,
                          .launcher = ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads",
                          .nranks = ctx->size};
    /* the SpMV implementation is part of what a CUDA row measured */
    char belabel[48];
    if (cuda) {
        snprintf(belabel, sizeof belabel, "cuda:%s", run->spmv->label);
        lb.backend = belabel;
    }
    if (ctx->rank == 0) {
        /* every method's block names its schedule, as its rows do: cg, pcg
         * and bicgstab wait for each reduction, but the schedule still says
         * how their halo and allreduce are made (blocking or overlapped,
         * which channel, which stream) */
        tl_solve_print(stdout, &lb, &cfg, &rep);
        if (o->trace) {
            char dir[4096];
            tl_solve_cli_run_trace_folder(dir, sizeof dir, o, run);
            printf("trace: %s\n", dir);
        }
        if (cuda) print_cuda_choice(ctx, o, run, &cfg, &caps, &choice);
        else if (sb->ops) /* which scalars ran: --scalars program is a wish bicgstab has none for */
            printf("scalars: %s\n", cfg.variant == TL_VARIANT_HOST ? "host" : "program");
        /* Fixed-iteration mode only succeeds by running every iteration
         * (or on b = 0, solved exactly); a breakdown before that is a
         * non-converged stop like any other. */
        if (!tl_stop_converged(rep.res.reason) && rep.res.reason != TL_STOP_FIXED)
            job->not_converged = 1;
        if (o->stats) tl_solve_print_stats(stdout, &rep);
    }
    if (o->stats && sb->ops) { /* the halo plan's table: trilap's exchanges only */
        fflush(stdout);
        TL_TRYGOTO(tl_solve_print_halo(ctx, stdout, dm, rep.stats[TL_OP_HALO].count), st, fail);
    }
    TL_TRYGOTO(write_run_files(ctx, o, run, dm, xl, &lb, &cfg, &rep, &job->rows), st, fail);
    if (ctx->rank == 0) {
        printf("\n");
        fflush(stdout);
    }
fail:
    if (cfg.params.progress) tl_progress_end(&bar); /* the line ended before the error's */
    if (be) be->ops->destroy(&be);
    tl_solve_report_free(&rep);
    return st;
}

/* "trace: DIR/a DIR/b ...": every run's trace folder, in run order. */
static char *trace_folders(const solve_opts *o)
{
    size_t n = (size_t)(o->nschedules * o->nspmvs * o->nmethods) * (strlen(o->trace) + 256) + 16, at = 0;
    char *buf = malloc(n);
    if (!buf) return NULL;
    at += (size_t)snprintf(buf, n, "trace:");
    for (int c = 0; c < o->nschedules; c++)
        for (int v = 0; v < o->nspmvs; v++)
            for (int k = 0; k < o->nmethods; k++) {
                const solve_run run = {.method = o->methods[k], .schedule = o->schedules[c], .spmv = &o->spmvs[v]};
                char dir[4096];
                tl_solve_cli_run_trace_folder(dir, sizeof dir, o, &run);
                at += (size_t)snprintf(buf + at, n - at, " %s", dir);
            }
    snprintf(buf + at, n - at, "\n");
    return buf;
}

/* The schedules the runs used, in the order run, as the rows' schedule
 * column names them: the backend's own label where it has one (petsc),
 * else --schedule's entries resolved ("all": the four). */
static const char *schedules_run(const solve_opts *o, char *buf, size_t n)
{
    const solve_backend *sb = &solve_backends[o->backend];
    size_t at = 0;
    buf[0] = '\0';
    if (sb->schedule_label) {
        snprintf(buf, n, "%s", sb->schedule_label);
        return buf;
    }
    for (int c = 0; c < o->nschedules && at < n; c++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", c ? "," : "", o->schedules[c]->name);
    return buf;
}

/* This command's block of manifest.txt beside the results, begun before
 * its first row: the runs' inputs and where their traces are.
 * Collective. */
static tl_status begin_manifest(tl_ctx *ctx, const solve_opts *o, const char *partdesc, tl_manifest_run *mr)
{
    const solve_backend *sb = &solve_backends[o->backend];
    char gpu[256] = "", scheds[256];
    int cuda = sb->device;
    if (cuda) tl_gpu_device_name(ctx->device, gpu, sizeof gpu);
    char *traces = o->trace ? trace_folders(o) : NULL;
    size_t n = 2048 + strlen(partdesc) + (traces ? strlen(traces) : 0);
    char *extra = malloc(n);
    tl_status st = extra && (traces || !o->trace) ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "the manifest's lines");
    if (st == TL_OK)
        snprintf(extra, n, "matrix: %s\npartition: %s\nbackend: %s\nschedule: %s\n%s%s%s%s%s%s%s%s", o->matrix_name,
                 partdesc, sb->name, schedules_run(o, scheds, sizeof scheds), cuda ? "spmv: " : "", cuda ? o->spmv : "",
                 cuda ? "\ndevice comm: " : "", cuda ? tl_devcomm_kinds[ctx->device_comm].name : "",
                 cuda ? "\ngpu: " : "", gpu, cuda ? "\n" : "", traces ? traces : "");
    free(traces);
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK)
        st = tl_manifest_begin(ctx, o->results, tl_solve_results_header, extra, mr);
    free(extra);
    return st;
}

/* The bytes tl_solve_cli_load_inputs' partition description needs, the
 * same on every rank (from the options): the spec, a file's path as long
 * as it is, and the figures after it (a 256-byte buffer cut a 230-byte
 * path's row range, imbalance and closing parenthesis off the report and
 * the manifest). */
static size_t partdesc_size(const solve_opts *o)
{
    return strlen(o->partition) + 512;
}

tl_status tl_solve_cli_rank_main(tl_ctx *ctx, void *arg)
{
    solve_job *job = arg;
    const solve_opts *o = job->o;
    tl_status st = TL_OK, lst = TL_OK;
    tl_csr A = {0};
    double *bg = NULL, *x0g = NULL, *bl = NULL, *x0l = NULL, *xl = NULL;
    int *part = NULL;
    tl_dist_matrix *dm = NULL;
    char *partdesc = NULL;
    const size_t ndesc = partdesc_size(o);
    const solve_backend *sb = &solve_backends[o->backend];
    int setup_done = 0;

    if (sb->device) {
        /* once for every run of this process (the NCCL communicators live
         * with it); the launcher tears it down, or aborts it after a failure */
        tl_gpu_config gc = {.use_priorities = o->stream_priorities};
        TL_TRYGOTO(tl_gpu_create(ctx, &gc), st, fail);
        tl_probe_gpu_roles(ctx); /* for an attached tool; each run's trace registers them again */
    }
    partdesc = calloc(ndesc, 1);
    lst = partdesc ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "a partition description of %zu bytes", ndesc);
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    if (ctx->rank == 0) {
        lst = tl_solve_cli_load_inputs(o, ctx->size, &A, &bg, &x0g, &part, partdesc, ndesc);
        if (lst == TL_OK) {
            tl_solve_cli_warn_nonsymmetric(o, &A);
            tl_solve_cli_warn_omp_threads(ctx, o);
        }
    }
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    TL_TRYGOTO(tl_comm_bcast(ctx, partdesc, ndesc, 0), st, fail);
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? &A : NULL, part, &dm), st, fail);
    tl_csr_free(&A);
    free(part);
    part = NULL;
    int64_t n = dm->nowned + 1;
    bl = calloc((size_t)n, sizeof *bl);
    x0l = calloc((size_t)n, sizeof *x0l);
    xl = calloc((size_t)n, sizeof *xl);
    lst = bl && x0l && xl ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "vectors of %lld rows", (long long)n);
    TL_TRYGOTO(tl_comm_agree(ctx, lst), st, fail);
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, bg, bl), st, fail);
    if (o->x0) TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, x0g, x0l), st, fail);
    free(bg);
    free(x0g);
    bg = x0g = NULL;
    if (sb->setup) {
        TL_TRYGOTO(sb->setup(ctx), st, fail);
        setup_done = 1;
    }
    /* every output's folder made before the runs, and said: a typo in a
     * path shows now, not as a tree made in silence (--history's and
     * --solution's were made so by their writers, after the runs) */
    TL_TRYGOTO(tl_results_make_folder(ctx, "--results", o->results, TL_OUT_FOLDER_OF_FILE), st, fail);
    TL_TRYGOTO(tl_results_make_folder(ctx, "--trace", o->trace, TL_OUT_FOLDER_ITSELF), st, fail);
    TL_TRYGOTO(tl_results_make_folder(ctx, "--history", o->history, TL_OUT_FOLDER_OF_FILE), st, fail);
    TL_TRYGOTO(tl_results_make_folder(ctx, "--solution", o->solution, TL_OUT_FOLDER_OF_FILE), st, fail);
    if (o->results) TL_TRYGOTO(begin_manifest(ctx, o, partdesc, &job->mr), st, fail);
    for (int c = 0; c < o->nschedules; c++)
        for (int v = 0; v < o->nspmvs; v++)
            for (int k = 0; k < o->nmethods; k++) {
                const solve_run run = {
                    .method = o->methods[k], .schedule = o->schedules[c], .spmv = &o->spmvs[v]};
                TL_TRYGOTO(run_one(ctx, o, &run, dm, bl, o->x0 ? x0l : NULL, xl, partdesc, job),
                           st, fail);
            }
    TL_TRYGOTO(tl_manifest_end(ctx, &job->mr, &job->rows, NULL), st, fail);
fail:
    if (st != TL_OK) tl_manifest_abort(ctx, &job->mr, &job->rows);
    if (setup_done && sb->teardown) {
        tl_status fst = sb->teardown(ctx);
        if (st == TL_OK) st = fst;
    }
    tl_dist_destroy(&dm);
    tl_csr_free(&A);
    free(part);
    free(bg);
    free(x0g);
    free(bl);
    free(x0l);
    free(xl);
    free(partdesc);
    return st;
}
