/* trilap-bench: one program, three subcommands, one option table each
 * (plus the launcher's group). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "microbench/bench.h"
#include "probes/probes.h"
#include "runtime/devcomm.h" /* TL_DEVCOMM_HOST */
#include "runtime/launch.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"

/* Every subcommand's options, side by side: the table entry names the
 * member its option group fills. */
typedef struct bench_options {
    tl_tristream_opts to;
    tl_stream_opts so;
    tl_commbench_opts co;
} bench_options;

typedef struct subcommand {
    const char *name, *purpose, *title, *usage;
    const tl_option *opts;
    const size_t *nopts;
    size_t offset; /* of its options in bench_options */
    tl_rank_main_fn fn;
} subcommand;

static const subcommand subs[] = {
    {.name = "tristream",
     .purpose = "allreduce + ring send/recv + DAXPY on one, two or three streams (the paper's Sec. II-C)",
     .title = "Tristream", .usage = "tristream [options]", .opts = tl_tristream_options,
     .nopts = &tl_tristream_noptions, .offset = offsetof(bench_options, to), .fn = tl_tristream_rank_main},
    {.name = "stream", .purpose = "BabelStream copy/mul/add/triad/dot bandwidth on each GPU, or the host",
     .title = "Stream", .usage = "stream [options]", .opts = tl_stream_options, .nopts = &tl_stream_noptions,
     .offset = offsetof(bench_options, so), .fn = tl_stream_rank_main},
    {.name = "comm",
     .purpose = "NCCL allreduce and ring send/recv latency and bandwidth, world and split communicators",
     .title = "Comm", .usage = "comm [options]", .opts = tl_commbench_options, .nopts = &tl_commbench_noptions,
     .offset = offsetof(bench_options, co), .fn = tl_commbench_rank_main},
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

/* stream --host measures one process's loop: the GPU kernel's options,
 * and more than one rank (only rank 0 would measure), do nothing there;
 * the progress line is the host loop's alone, nothing draws it on GPUs. */
static int host_stream_refuses(const tl_stream_opts *so, const tl_launch_opts *lo, const tl_optresult *res)
{
    if (!so->host) {
        if (!tl_opts_given(res, &so->progress)) return 0;
        fprintf(stderr, "trilap-bench: stream: --progress draws the host loop's progress (--host); the GPU run "
                        "shows none\n");
        return 1;
    }
    const char *gpu_only = tl_opts_given(res, &so->block) ? "--block" : tl_opts_given(res, &so->vector) ? "--vector" : NULL;
    if (gpu_only) {
        fprintf(stderr, "trilap-bench: stream --host: %s is the GPU kernel's; the host runs its own loop\n", gpu_only);
        return 1;
    }
    /* under mpirun too, before the launch: inside the ranks the refusal exited 1, here 2 */
    const int procs = tl_launch_env_size();
    if (lo->ranks > 1 || lo->gpus > 1 || procs > 1) {
        if (procs > 1)
            fprintf(stderr, "trilap-bench: stream --host: one process measures the host's memory; run it on one "
                            "rank (mpirun started %d)\n", procs);
        else
            fprintf(stderr, "trilap-bench: stream --host: one process measures the host's memory; run it on one rank\n");
        return 1;
    }
    return 0;
}

/* tristream and comm time NCCL itself, one GPU per rank: host staging is
 * the solvers' device-buffer exchange, nothing these measure, and the
 * ranks it lets share a GPU are ranks NCCL refuses. */
static int nccl_sub_refuses(const subcommand *sub, const tl_launch_opts *lo)
{
    if (sub->fn == tl_stream_rank_main || lo->device_comm != TL_DEVCOMM_HOST) return 0;
    fprintf(stderr, "trilap-bench: %s: --device-comm host: %s times NCCL itself, one GPU per rank; the option is for "
                    "the solvers' device-buffer exchange\n", sub->name, sub->name);
    return 1;
}

int main(int argc, char **argv)
{
    tl_log_set_prefix("trilap-bench", -1);
    if (tl_tmpfile_handle_signals("trilap-bench") != TL_OK) return 1;
    tl_launch_quiet quiet; /* under mpirun, a refusal before the launch once per host */
    tl_launch_quiet_begin(&quiet);
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
    const subcommand *sub = NULL;
    for (size_t i = 0; i < sizeof subs / sizeof subs[0] && !sub; i++)
        if (strcmp(argv[1], subs[i].name) == 0) sub = &subs[i];
    if (!sub) {
        fprintf(stderr, "trilap-bench: unknown subcommand '%s' (try --help)\n", argv[1]);
        return 2;
    }
    tl_launch_opts lo;
    /* zeroed: only the subcommand's group is parsed, and the probes'
     * request below reads tristream's --trace whatever the subcommand */
    bench_options all = {0};
    tl_tristream_opts *to = &all.to;
    tl_stream_opts *so = &all.so;
    tl_commbench_opts *co = &all.co;
    void *opts = (char *)&all + sub->offset;
    tl_optgroup groups[2] = {{sub->title, sub->opts, *sub->nopts, opts},
                             {"Launch", tl_launch_options, tl_launch_noptions, &lo}};
    tl_optspec spec = {.program = "trilap-bench",
                       .usage = sub->usage,
                       .purpose = sub->purpose,
                       .groups = groups,
                       .ngroups = 2,
                       .min_positional = 0,
                       .max_positional = 0};
    tl_rank_main_fn fn = sub->fn;
    tl_optresult res;
    if (tl_opts_parse(&spec, argc - 1, argv + 1, &res) != TL_OK) return 2;
    int refused = !res.exit_now && (nccl_sub_refuses(sub, &lo) ||
                                    (fn == tl_stream_rank_main && host_stream_refuses(so, &lo, &res)) ||
                                    tl_launch_opts_refused("trilap-bench", &lo, &res,
                                                           fn == tl_stream_rank_main && so->host ? "stream --host" : NULL));
    if (refused || res.exit_now) {
        free(res.positional); /* and what tl_opts_given reads */
        return refused ? 2 : 0;
    }

    tl_tristream_cfg cfg = {0};
    tl_status checked = TL_OK;
    if (fn == tl_tristream_rank_main) checked = tl_tristream_resolve(to, &res, &cfg);
    if (fn == tl_commbench_rank_main) checked = tl_commbench_check(co);
    if (fn == tl_stream_rank_main) checked = tl_stream_check(so);
    free(res.positional);
    if (checked != TL_OK) {
        tl_tristream_cfg_free(&cfg);
        /* an output that cannot be written, or arrays beyond the host's
         * memory (a machine that lacks what the run needs, as trilap-fdtd's
         * grid and trilap-solve's matrix: it was 2); else the arguments */
        return checked == TL_ERR_IO || checked == TL_ERR_NOMEM ? 1 : 2;
    }
    /* the trace folders are first written after every timed repetition:
     * one that cannot be, or that --results stands where, is said now, not
     * after the measurement */
    int outs = tl_opts_outputs_refused(&spec, "", "trace");
    if (!outs && fn == tl_tristream_rank_main) outs = tl_tristream_outputs_refused(to, &cfg);
    if (outs) {
        tl_tristream_cfg_free(&cfg);
        return outs; /* 1 a folder the file system refuses, 2 --results where a trace goes */
    }
    /* before anything starts CUDA: the launcher counts GPUs */
    if (fn == tl_tristream_rank_main) tl_bench_choose_hw_queues(to->hw_queues);
    tl_bench_run run = {.spec = &spec, .opts = opts, .tcfg = &cfg};
    /* every subcommand inside NVTX-only probes: nsys sees its ranges in
     * every run, traced or not (probes/README.md) */
    tl_probes_main pm = {.fn = fn, .arg = &run, .trace = {.dir = to->trace, .cupti = 1}};
    tl_launch_quiet_end(&quiet);
    int rc = tl_launch_run("trilap-bench", &lo, argc, argv, tl_probes_rank_main, &pm);
    tl_tristream_cfg_free(&cfg);
    if (rc != 0) tl_tmpfile_cleanup(); /* temporary outputs, folders made for them */
    return rc;
}
