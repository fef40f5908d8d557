/* trilap-fdtd verify convergence|time|reflection|energy|decomp: the
 * command's entry, which parses the options, refuses what is typed wrong
 * and launches the ranks, and the rank entry that runs the experiment
 * named (each in verify_*.c, through stencil/verify_impl.h). Every
 * experiment prints its table as CSV with a header row; decomp also runs
 * on several ranks (one subdomain each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/verify_impl.h"

static tl_status verify_rank(tl_ctx *ctx, void *arg)
{
    verify_args *va = arg;
    if (ctx->size > 1 && strcmp(va->what, "decomp")) {
        if (ctx->rank == 0)
            fprintf(stderr, PROG ": verify %s runs on one rank; only verify decomp takes several (strategy ranks)\n",
                    va->what);
        if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) va->usage_error = 1;
        return TL_ERR_REMOTE;
    }
    if (!strcmp(va->what, "decomp")) return tl_verify_decomp(ctx, va); /* its lists first: a plan's own checks */
    TL_TRY(tl_verify_gpu_lacking(ctx, va));
    if (!strcmp(va->what, "convergence")) return tl_verify_convergence(va);
    if (!strcmp(va->what, "time")) return tl_verify_time(va);
    if (!strcmp(va->what, "reflection")) return tl_verify_reflection(va);
    return tl_verify_energy(va);
}

int tl_fdtd_cli_verify(int argc, char **argv, int full_argc, char **full_argv, tl_launch_quiet *quiet)
{
    verify_args va;
    tl_launch_opts lo;
    tl_option lopts[TL_FDTD_CLI_LAUNCH_NOPTS];
    memset(&va, 0, sizeof va);
    memset(&lo, 0, sizeof lo);
    tl_fdtd_cli_launch_group(lopts, "thread launcher: ranks, for verify decomp alone (the others run on one): each "
                                    "decomposition of --decomps with px*py*pz of them spread one subdomain per rank "
                                    "(strategy ranks, cuda devcomm), the others named as not run; 1: one process");
    const tl_optgroup groups[] = {{"Verification", tl_verify_options, tl_verify_noptions, &va.o},
                                  {"Launch", lopts, TL_FDTD_CLI_LAUNCH_NOPTS, &lo}};
    /* the parser's lines begin PROG ": " as every other (fdtd_cli.h) */
    const tl_optspec spec = {.program = PROG,
                             .command = "verify",
                             .usage = "convergence|time|reflection|energy|decomp [options]",
                             .purpose = "Reproduces the paper's verification tables as CSV on stdout. An "
                                        "experiment takes the options whose help names it, and those that "
                                        "name none.",
                             .groups = groups, .ngroups = 2, .max_positional = 1};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) {
        free(res.positional);
        return 0;
    }
    if (res.npositional == 0) { /* the parser's "expected 1 argument, got 0" named neither verify nor what */
        free(res.positional);
        fprintf(stderr, PROG ": verify needs an experiment: " VERIFY_EXPERIMENTS " (try --help)\n");
        return 2;
    }
    va.what = res.positional[0];
    int refused = tl_verify_options_refused(&va, &res, &lo);
    va.every_typed = tl_opts_given(&res, &va.o.every);
    free(res.positional); /* tl_opts_given's record with it */
    if (refused) return 2;
    tl_fdtd_vopts_defaults(&va.v);
    va.v.backend = (tl_fdtd_backend_kind)va.o.backend;
    va.v.kernel = (tl_fdtd_kernel_kind)va.o.kernel;
    va.v.dbl = va.o.precision == 1;
    va.v.strategy = va.o.strategy;
    va.v.s = (int)va.o.s;
    va.v.gpus = (int)va.o.gpus;
    va.v.order_fixed = strcmp(va.what, "convergence") != 0; /* --orders is convergence's alone */
    /* the remedies name it: convergence said "a grid of at least 16 points
     * along z", an option it does not take (reflection's, --n-int, is set
     * where its margin is known) */
    va.v.grid_option = strcmp(va.what, "convergence") ? "--grid" : "--sizes";
    if (tl_fdtd_cli_parse_decomp(va.o.decomp, va.v.pd) != 0)
        return tl_fdtd_cli_bad("--decomp", va.o.decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    int rc = tl_fdtd_cli_launch(&lo, quiet, full_argc, full_argv, verify_rank, &va, va.v.backend == TL_FDTD_BACKEND_CUDA,
                            NULL);
    return va.usage_error ? 2 : rc;
}

