/* trilap-bench: one program, three subcommands, one option table each
 * (plus the launcher's group). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "microbench/bench.h"
#include "probes/probes.h"
#include "runtime/launch.h"

typedef struct subcommand {
    const char *name, *purpose;
} subcommand;

static const subcommand subs[] = {
    {"tristream",
     "allreduce + ring send/recv + DAXPY on one, two or three streams (the paper's Sec. II-C)"},
    {"stream", "BabelStream copy/mul/add/triad/dot bandwidth on each GPU, or the host"},
    {"comm",
     "NCCL allreduce and ring send/recv latency and bandwidth, world and split communicators"},
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: trilap-bench SUBCOMMAND [options]\n"
        "Microbenchmarks of triple overlap: streams, communicators, bandwidth.\n\nSubcommands:\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        fprintf(out, "  %-10s %s\n", subs[i].name, subs[i].purpose);
    fprintf(out, "\n`trilap-bench SUBCOMMAND --help` lists its options. Ranks: one thread per GPU\n"
                 "(--gpus N) or mpirun -np N trilap-bench ...\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("trilap-bench %s (%s)\n", TL_VERSION, TL_GIT_COMMIT);
        return 0;
    }
    tl_launch_opts lo;
    tl_tristream_opts to;
    tl_stream_opts so;
    tl_commbench_opts co;
    tl_optgroup groups[2] = {{0}, {"Launch", tl_launch_options, tl_launch_noptions, &lo}};
    tl_optspec spec = {.program = "trilap-bench",
                       .groups = groups,
                       .ngroups = 2,
                       .min_positional = 0,
                       .max_positional = 0};
    tl_rank_main_fn fn = NULL;
    const void *opts = NULL;
    if (strcmp(argv[1], "tristream") == 0) {
        groups[0] = (tl_optgroup){"Tristream", tl_tristream_options, tl_tristream_noptions, &to};
        spec.usage = "tristream [options]";
        spec.purpose = subs[0].purpose;
        fn = tl_tristream_rank_main;
        opts = &to;
    } else if (strcmp(argv[1], "stream") == 0) {
        groups[0] = (tl_optgroup){"Stream", tl_stream_options, tl_stream_noptions, &so};
        spec.usage = "stream [options]";
        spec.purpose = subs[1].purpose;
        fn = tl_stream_rank_main;
        opts = &so;
    } else if (strcmp(argv[1], "comm") == 0) {
        groups[0] = (tl_optgroup){"Comm", tl_commbench_options, tl_commbench_noptions, &co};
        spec.usage = "comm [options]";
        spec.purpose = subs[2].purpose;
        fn = tl_commbench_rank_main;
        opts = &co;
    } else {
        fprintf(stderr, "trilap-bench: unknown subcommand '%s' (try --help)\n", argv[1]);
        return 2;
    }
    tl_optresult res;
    if (tl_opts_parse(&spec, argc - 1, argv + 1, &res) != TL_OK) return 2;
    free(res.positional);
    if (res.exit_now) return 0;

    tl_tristream_cfg cfg = {0};
    if (fn == tl_tristream_rank_main && tl_tristream_resolve(&to, &cfg) != TL_OK) return 2;
    /* before anything starts CUDA: the launcher counts GPUs */
    if (fn == tl_tristream_rank_main) tl_bench_choose_hw_queues(to.hw_queues);
    if (fn == tl_commbench_rank_main && co.max_bytes < co.min_bytes) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)co.max_bytes);
        tl_bench_invalid("max-bytes", v, "smaller than --min-bytes");
        return 2;
    }
    if (fn == tl_stream_rank_main && so.block % 32 != 0) {
        char v[32];
        snprintf(v, sizeof v, "%lld", (long long)so.block);
        tl_bench_invalid("block", v, "not a multiple of 32 (the warp size)");
        return 2;
    }
    tl_bench_run run = {.spec = &spec, .opts = opts, .tcfg = &cfg};
    /* every subcommand inside NVTX-only probes: nsys sees its ranges in
     * every run, traced or not (probes/README.md) */
    tl_probes_main pm = {.fn = fn, .arg = &run};
    int rc = tl_launch_run("trilap-bench", &lo, argc, argv, tl_probes_rank_main, &pm);
    tl_tristream_cfg_free(&cfg);
    return rc;
}
