/* Host-only ranks with probes, for the clock-alignment test: after a
 * barrier every rank opens its iteration at about the same moment, so
 * aligned traces must show the ranks' iterations starting together.
 *   helper_clock_skew [--launcher threads --ranks N | under mpirun] OUTDIR
 * Run with TRILAP_TEST_CLOCK_SKEW=R:NS to put rank R's clock NS ahead;
 * --bad-rank R makes R's probes fail to start (the others must not wait). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/probes.h"
#include "runtime/comm.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "tests/tl_test_helper.h"

typedef struct helper_opts {
    int64_t iters, bad_rank;
    const char *out;
} helper_opts;

static const tl_option helper_options[] = {
    {.name = "iters", .type = TL_OPT_INT, .offset = offsetof(helper_opts, iters), .def = "20", .metavar = "N",
     .help = "iterations, each after a barrier", .min = 1, .max = 100000},
    {.name = "bad-rank", .type = TL_OPT_INT, .offset = offsetof(helper_opts, bad_rank), .def = "-1", .metavar = "R",
     .help = "this rank's probes fail to start (an unwritable folder); it runs on untraced", .min = -1, .max = 1024},
};

static tl_status rank_main(tl_ctx *ctx, void *arg)
{
    const helper_opts *o = arg;
    tl_probes_config pc = {.outdir = ctx->rank == o->bad_rank ? "/proc/trilap-no-such-folder" : o->out};
    tl_status st = tl_probes_create(ctx, &pc);
    if (st != TL_OK && ctx->rank != o->bad_rank) return st;
    tl_probe_window_start(ctx);
    for (int64_t it = 0; it < o->iters; it++) {
        TL_TRY(tl_comm_barrier(ctx));
        tl_probe_iter_begin(ctx, it);
        tl_probe_push(ctx, TL_CAT_COMPUTE, "tick");
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
        tl_probe_pop(ctx);
        tl_probe_iter_end(ctx);
    }
    tl_probe_window_stop(ctx);
    TL_TRY(tl_probes_destroy(ctx));
    if (ctx->rank == 0) printf("helper_clock_skew: %d ranks traced into %s\n", ctx->size, o->out);
    return TL_OK;
}

int main(int argc, char **argv)
{
    tl_launch_opts lo;
    helper_opts ho;
    const tl_test_helper h = {.program = "helper_clock_skew",
                              .usage = "[options] OUTDIR",
                              .purpose = "Host-only probes on every rank, iterations after barriers.",
                              .group = "Helper",
                              .options = helper_options,
                              .noptions = sizeof helper_options / sizeof helper_options[0],
                              .opts = &ho,
                              .lo = &lo,
                              .positional = &ho.out,
                              .rank_main = rank_main};
    return tl_test_helper_main(&h, argc, argv);
}
