/* trilap-fdtd run on each rank (tl_fdtd_cli_run_rank): the ranks and the
 * decomposition agreed, the input refused before anything is printed,
 * the host's memory, the output folders, the preamble, then the runs
 * (fdtd_run_one.c) in one block of the manifest. Internal to the
 * program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "stencil/fdtd_run_impl.h"
#include "stencil/memneed.h"

/* Several ranks: one subdomain each, px py pz ranks, the backend's
 * per-rank strategy (cpu: ranks; cuda: devcomm, a GPU bound to every
 * rank). At odds: rank 0 prints one line, every rank stops (TL_ERR_REMOTE:
 * the launcher adds nothing) and main exits 2. So is --device-comm typed
 * for a run in one process, whose exchange never uses it, and --gpus for
 * a run of ranks, each on the GPU the launcher bound it to (accepted, it
 * did nothing). */
static tl_status ranks_usage(tl_ctx *ctx, run_args *ra, tl_fdtd_config *c)
{
    int nsub = c->pd[0] * c->pd[1] * c->pd[2];
    const char *def = tl_fdtd_strategy_default(c->backend, 1);
    const char *one = c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0);
    /* a strategy not of the backend was refused by tl_fdtd_cli_build_config */
    int kind = c->strategy ? tl_fdtd_strategy_per_rank(c->strategy, c->backend) : 1;
    int ranked = ctx->size > 1 || (c->strategy && kind == 1);
    int cuda = c->backend == TL_FDTD_BACKEND_CUDA;
    char why[512] = "";
    int no_gpu = 0; /* the machine's lack, not the command line's: exit 1 */
    if (!ranked && !(cuda && ra->device_comm_typed)) return TL_OK;
    if (!ranked)
        snprintf(why, sizeof why,
                 "--device-comm %s moves ghosts between ranks; this run is one process (--strategy %s) (run px*py*pz "
                 "ranks with --strategy devcomm, or drop --device-comm)",
                 tl_devcomm_kinds[ctx->device_comm].name, one);
    else if (kind == 0 && cuda && !strcmp(c->strategy, "peer"))
        snprintf(why, sizeof why,
                 "%d ranks with --strategy peer: cudaMemcpyPeerAsync needs every subdomain in one process (CUDA IPC "
                 "between ranks is not implemented); several ranks use --strategy devcomm (their default: NCCL or "
                 "host-staged, by --device-comm)", ctx->size);
    else if (kind == 0)
        snprintf(why, sizeof why,
                 "%d ranks with --strategy %s: that strategy moves ghosts inside one process; several ranks use "
                 "--strategy %s (their default%s)",
                 ctx->size, c->strategy, def, cuda ? ": NCCL or host-staged, by --device-comm" : "");
    else if (nsub != ctx->size)
        snprintf(why, sizeof why,
                 "%d rank%s for --decomp %dx%dx%d: one subdomain per rank needs px*py*pz = %d ranks "
                 "(--ranks %d, or mpirun -np %d)",
                 ctx->size, ctx->size == 1 ? "" : "s", c->pd[0], c->pd[1], c->pd[2], nsub, nsub, nsub);
    else if (ra->gpus_typed)
        snprintf(why, sizeof why,
                 "--gpus %d spreads the subdomains of one process over GPUs; in a run of ranks each rank's subdomain "
                 "is on the GPU the launcher binds it to, its local rank %% the host's GPUs (drop --gpus; "
                 "CUDA_VISIBLE_DEVICES sets the GPUs)", c->gpus);
    else if (cuda && ctx->device < 0) {
        no_gpu = 1;
        snprintf(why, sizeof why,
                 "%d rank%s with --backend cuda and no GPU (--no-gpu, or none visible): one subdomain per rank needs a "
                 "GPU bound to every rank (ranks share one with --device-comm host)",
                 ctx->size, ctx->size == 1 ? "" : "s");
    }
    if (!why[0]) {
        c->strategy = def;
        return TL_OK;
    }
    if (ctx->rank == 0) fprintf(stderr, PROG ": %s\n", why);
    if (!no_gpu && (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI))
        ra->usage_error = 1; /* thread ranks share it: rank 0 writes */
    return TL_ERR_REMOTE;
}

/* The input refused before anything is printed or written: rank 0 judges
 * (the line comes from it alone), every rank takes its verdict and stops;
 * main exits 2 for the configuration, 1 for an output that cannot be
 * written (a file error, as in every program). Notes on the input (the
 * CPML's) are said only after this, when the run goes ahead. */
static tl_status refuse_bad_input(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c)
{
    if (tl_comm_agree(ctx, ctx->rank == 0 ? tl_fdtd_config_check(c) : TL_OK) != TL_OK) {
        if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) ra->usage_error = 1; /* thread ranks share it: rank 0 writes */
        return TL_ERR_REMOTE;
    }
    return tl_comm_agree(ctx, ctx->rank == 0 ? tl_fdtd_cli_check_outputs(&ra->o, c) : TL_OK) == TL_OK ? TL_OK
                                                                                         : TL_ERR_REMOTE;
}

tl_status tl_fdtd_cli_run_rank(tl_ctx *ctx, void *arg)
{
    run_args *ra = arg;
    tl_fdtd_config cr = ra->c; /* this rank's: the strategy may become "ranks" */
    const tl_fdtd_config *c = &cr;
    if (ctx->size == 1 && tl_fdtd_cli_no_cuda(ctx, c->backend == TL_FDTD_BACKEND_CUDA))
        return TL_ERR_REMOTE; /* said; exit 1, the machine's, not the command line's */
    TL_TRY(ranks_usage(ctx, ra, &cr));
    TL_TRY(refuse_bad_input(ctx, ra, c));
    /* a grid the host cannot hold is refused before the preamble; ranks
     * sharing a host add their needs up */
    TL_TRY(tl_comm_agree(ctx, ctx->size > 1 ? tl_fdtd_check_host_memory_ranks(c, ctx)
                                            : tl_fdtd_check_host_memory_early(c)));
    TL_TRY(tl_fdtd_cli_make_output_folders(ctx, &ra->o));
    /* the results file started and this command's block begun before any
     * work: a file of other rows is refused here, not after the run */
    tl_manifest_run mr = {0};
    if (ra->o.results)
        TL_TRY(tl_manifest_begin(ctx, ra->o.results, results_header, NULL, &mr));
    if (ctx->rank == 0 && ra->note[0]) fprintf(stderr, "%s\n", ra->note);
    if (ctx->rank == 0) { /* rank 0 prints */
        /* quoted as the manifest quotes it, so that it can be pasted into a shell */
        char *cmd = tl_manifest_command(ctx->argc, ctx->argv);
        TL_CHECK(cmd, TL_ERR_NOMEM, "the command line for the preamble");
        printf("# trilap-fdtd %s (%s)\n# command: %s\n", TL_VERSION, TL_GIT_COMMIT, cmd);
        free(cmd);
        printf("# grid: %" PRId64 "x%" PRId64 "x%" PRId64 "\n# order: %d\n# steps: %" PRId64 " (+%" PRId64 " warm-up)\n",
               c->n[0], c->n[1], c->n[2], c->order, c->steps, c->warmup);
        /* the R, kappa and alpha of no CPML said nothing of the boundary the run had */
        if (c->cpml > 0)
            printf("# cpml: %" PRId64 " cells, R = %g, kappa_max = %g, alpha_max = %g sigma_max, "
                   "sigma_max = -4 c_max ln(R) / (2 L h)\n",
                   c->cpml, c->cpml_r, c->kappa_max, c->alpha_frac);
        else
            printf("# cpml: none; %s\n", c->periodic ? "periodic in every axis"
                                                    : "p = v = 0 outside: low faces rigid, high faces pressure-release");
        printf("# backend: %s  kernel: %s  decomposition: %dx%dx%d  s: %d  ghost: %d\n", backend_names[c->backend].name,
               c->backend == TL_FDTD_BACKEND_CUDA ? tl_fdtd_kernels[c->kernel].name : "cpu reference",
               c->pd[0], c->pd[1], c->pd[2], c->s, c->order * c->s);
        if (ctx->size > 1 && c->backend == TL_FDTD_BACKEND_CUDA)
            printf("# ranks: %d, one subdomain each (strategy devcomm, %s device communication%s)\n", ctx->size,
                   ctx->device_comm == TL_DEVCOMM_HOST ? "host-staged" : "NCCL",
                   ctx->gpu_shared ? ", ranks sharing GPUs" : "");
        else if (ctx->size > 1)
            printf("# ranks: %d, one subdomain each (strategy ranks, host messages)\n", ctx->size);
        printf("%s\n", results_header);
    }
    double t_none = 0, t = 0;
    tl_results_rows rows = {0};
    tl_status st = TL_OK;
    if (ra->o.compare_cpml && c->cpml > 0) {
        tl_fdtd_config c0 = *c;
        c0.cpml = 0;
        c0.trace = 0;
        st = tl_fdtd_cli_one_run(ctx, ra, &c0, 0, &t_none, &rows);
    }
    if (st == TL_OK) st = tl_fdtd_cli_one_run(ctx, ra, c, t_none, &t, &rows);
    /* one block for the command's rows, both of --compare-cpml's */
    if (st == TL_OK) return tl_manifest_end(ctx, &mr, &rows, NULL);
    tl_manifest_abort(ctx, &mr, &rows);
    return tl_error_frame(st, TL_FILE_, __LINE__);
}
