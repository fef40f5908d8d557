/* trilap-fdtd verify's refusals inside the launch, each said in one line
 * with the exit it makes: the input's (exit 2, through usage_error), a
 * run's configuration checked under the run's name, --s where nothing is
 * exchanged, and --backend cuda without a GPU (the machine's, exit 1). */
#include <inttypes.h>
#include <stdio.h>

#include "stencil/verify_impl.h"

/* The input refused before anything runs or prints: the line names the
 * option and why (try --help), main exits 2 (TL_ERR_REMOTE: said, the
 * launcher adds no line). */
tl_status tl_verify_refuse(verify_args *va, const char *opt, const char *val, const char *why)
{
    tl_fdtd_cli_bad(opt, val, why);
    va->usage_error = 1;
    return TL_ERR_REMOTE;
}

/* A run's configuration checked (tl_fdtd_verify_config_check, through
 * the experiment's *_check) between tl_error_context_begin and
 * tl_verify_end_run_check:
 * its error line names the run ("verify convergence, order 8, n = 4:
 * ..."); a refusal is the input's (exit 2), a grid the host cannot hold
 * the machine's (exit 1: before, said after the table's header). */
tl_status tl_verify_end_run_check(verify_args *va, const tl_error_context *k, tl_status st)
{
    tl_error_context_end(k);
    if (st != TL_OK && st != TL_ERR_NOMEM) va->usage_error = 1; /* memory: the machine's lack, exit 1 */
    return st;
}

/* --s S > 1 where every run of the experiment is one subdomain with CPML
 * or walls (reflection, energy): nothing is exchanged, and the table was
 * that of s = 1 (accepted up to e2e0d87). opt: the option that sets the
 * decompositions. TL_ERR_REMOTE after one line (exit 2), or TL_OK. */
tl_status tl_verify_refuse_idle_s(verify_args *va, const int (*pd)[3], int nd, const char *opt)
{
    if (va->o.s <= 1) return TL_OK;
    for (int i = 0; i < nd; i++)
        if (pd[i][0] * pd[i][1] * pd[i][2] > 1) return TL_OK;
    char val[32], why[192];
    snprintf(val, sizeof val, "%" PRId64, va->o.s);
    snprintf(why, sizeof why,
             "verify %s on one subdomain (%s 1x1x1) exchanges no ghosts to space out (give %s PXxPYxPZ, or "
             "drop --s)",
             va->what, opt, opt);
    return tl_verify_refuse(va, "--s", val, why);
}

/* No GPU is the machine's lack, not the command line's: exit 1, said
 * once, after the command line's own checks (a mistake in it is exit 2
 * on any machine) */
tl_status tl_verify_gpu_lacking(tl_ctx *ctx, const verify_args *va)
{
    if (ctx->size == 1 && tl_fdtd_cli_no_cuda(ctx, va->v.backend == TL_FDTD_BACKEND_CUDA)) return TL_ERR_REMOTE;
    if (ctx->size > 1 && va->v.backend == TL_FDTD_BACKEND_CUDA && ctx->device < 0) {
        if (ctx->rank == 0)
            fprintf(stderr, PROG ": %d ranks with --backend cuda and no GPU (--no-gpu, or none visible): one subdomain "
                            "per rank needs a GPU bound to every rank (ranks share one with --device-comm host)\n",
                    ctx->size);
        return TL_ERR_REMOTE;
    }
    return TL_OK;
}
