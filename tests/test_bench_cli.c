/* trilap-bench as users call it: --help, --version, exit codes of bad
 * arguments, and a host-only stream run with --results (no GPU needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* Run `bin/trilap-bench ARGS` with stdout and stderr captured. */
static tl_test_output bench(const char *args)
{
    return tl_test_capture("%s/trilap-bench %s", tl_test_bin(), args);
}

/* `PRE trilap-bench stream --host --no-gpu ARGS`: PRE sets the machine the
 * run sees (environment, limits) */
static tl_test_output host_stream(const char *pre, const char *args)
{
    return tl_test_capture("%s %s/trilap-bench stream --host --no-gpu %s", pre, tl_test_bin(), args);
}

TL_TEST(help_lists_subcommands)
{
    tl_test_output r = bench("--help");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strstr(r.out, "tristream") && strstr(r.out, "stream") && strstr(r.out, "comm"));
    tl_test_output_free(&r);
    r = bench("");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT(strstr(r.err, "usage: trilap-bench SUBCOMMAND"));
    tl_test_output_free(&r);
    r = bench("--version");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strncmp(r.out, "trilap-bench ", 13) == 0);
    tl_test_output_free(&r);
}

TL_TEST(subcommand_help)
{
    static const char *const subs[][2] = {
        {"tristream", "--ring-bytes"}, {"stream", "--count"}, {"comm", "--max-bytes"},
        /* what -b takes, as its refusal says (the help said "smallest size" alone) */
        {"comm", "smallest size, a multiple of 8 (doubles)"},
        /* in bytes, not "256 KB": the sizes' K is 1024, and --ring-bytes 256K
         * is 262144 B, not the default */
        {"tristream", "(default 32000 = 256000 B)"}};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", subs[i][0]);
        tl_test_output r = bench(args);
        TL_ASSERT_EQ(r.rc, 0);
        TL_ASSERT_MSG(strstr(r.out, subs[i][1]), "%s --help lacks '%s'", subs[i][0], subs[i][1]);
        TL_ASSERT(strstr(r.out, "--gpus")); /* the launcher group */
        tl_test_output_free(&r);
    }
}

TL_TEST(bad_arguments_exit_2)
{
    static const char *const bad[][2] = {
        {"tristream --ring-bytes x", "trilap-bench: invalid --ring-bytes 'x': not a size (N, NK, NM, NG) (try --help)\n"},
        {"tristream --variants two,three", "trilap-bench: invalid --variants 'two,three'"},
        {"tristream --frobnicate", "trilap-bench: unknown option '--frobnicate' (try --help)\n"},
        {"tristream --sweep ring-bytes --sweep-range 8:4:2", "invalid --sweep-range '8:4:2'"},
        {"stream --vector 3", "trilap-bench: invalid --vector '3'"},
        {"stream --block 100", "trilap-bench: invalid --block '100': not a multiple of 32"},
        {"comm --min-bytes 1Q", "trilap-bench: invalid --min-bytes '1Q': not a size (N, NK, NM, NG) (try --help)\n"},
        /* both sizes said in bytes and as sizes (was: '1024': smaller than --min-bytes) */
        {"comm -b 1M -e 1K", "trilap-bench: invalid --max-bytes '1024': 1.0 KiB, smaller than --min-bytes 1048576 "
                             "(1.0 MiB) (try --help)\n"},
        /* sizes of doubles (was taken and measured as 8 B) */
        {"comm -b 12", "trilap-bench: invalid --min-bytes '12': not a multiple of 8 (doubles) (try --help)\n"},
        /* refused before the measurement, not after it */
        {"stream --host --count 4K --iters 1", "trilap-bench: invalid --iters '1': at least 2"},
        /* what 0 means where the run goes: on GPUs a fixed 256M, not "sized from the machine" */
        {"stream --count 5", "trilap-bench: invalid --count '5': at least 1024 doubles (0: 256M on GPUs) (try --help)\n"},
        {"stream --host --count 5",
         "trilap-bench: invalid --count '5': at least 1024 doubles (0: sized from the machine) (try --help)\n"},
        {"stream --host --count 4K --iters 2 --results ''", "trilap-bench: invalid --results '': empty file name"},
        /* the name of its own manifest, whatever the file system holds (was exit 1) */
        {"stream --host --count 4K --iters 2 --results manifest.txt",
         "trilap-bench: invalid --results 'manifest.txt': the manifest beside a results file is named so; give the "
         "results another name (try --help)\n"},
        {"comm --results sub/manifest.txt", "invalid --results 'sub/manifest.txt': the manifest beside"},
        {"tristream --results manifest.txt", "invalid --results 'manifest.txt': the manifest beside"},
        {"frobnicate", "trilap-bench: unknown subcommand 'frobnicate' (try --help)\n"},
        /* options the run would not use, typed: refused (before: taken, ignored) */
        {"stream --host --count 4K --iters 2 --block 64",
         "trilap-bench: stream --host: --block is the GPU kernel's; the host runs its own loop\n"},
        {"stream --host --count 4K --iters 2 --vector 1",
         "trilap-bench: stream --host: --vector is the GPU kernel's; the host runs its own loop\n"},
        {"stream --host --count 4K --iters 2 --ranks 2",
         "trilap-bench: stream --host: one process measures the host's memory; run it on one rank\n"},
        {"stream --host --count 4K --iters 2 --device-comm host",
         "trilap-bench: --device-comm: this run uses no GPU (stream --host)\n"},
        {"stream --host --count 4K --iters 2 --nccl-timeout 5",
         "trilap-bench: --nccl-timeout: this run uses no GPU (stream --host)\n"},
        /* the traced window runs with --trace only (was taken without it, and did nothing) */
        {"tristream --trace-iters 5",
         "trilap-bench: invalid --trace-iters '5': the traced window it sizes is run with --trace DIR only "
         "(try --help)\n"},
        /* the progress line is drawn by the host loop alone (was taken on GPUs, and did nothing) */
        {"stream --progress",
         "trilap-bench: stream: --progress draws the host loop's progress (--host); the GPU run shows none\n"},
        {"tristream --gpus 2 --ranks 3", "trilap-bench: --gpus and --ranks: give one (--ranks N ranks share the "
                                         "visible GPUs; --gpus N ranks take one GPU each)\n"},
        {"tristream --gpus 2 --no-gpu", "trilap-bench: --gpus and --no-gpu: give one (--ranks N for host-only ranks)\n"},
        /* NCCL is what they time, one GPU per rank: host staging was taken and
         * did nothing, or let ranks share a GPU that NCCL then refused */
        {"tristream --device-comm host",
         "trilap-bench: tristream: --device-comm host: tristream times NCCL itself, one GPU per rank; the option "
         "is for the solvers' device-buffer exchange\n"},
        {"comm --device-comm host", "trilap-bench: comm: --device-comm host: comm times NCCL itself"},
        /* the DAXPY grid with no variant running a DAXPY (was taken, did nothing) */
        {"tristream --daxpy-blocks 132 --variants allreduce-only,ring-only",
         "trilap-bench: invalid --daxpy-blocks '132': no selected variant runs the DAXPY (try --help)\n"},
        /* priorities order streams that run at once: a part runs one */
        {"tristream --priorities off --variants allreduce-only,daxpy-only",
         "trilap-bench: invalid --priorities 'off': no selected variant runs two streams at once (two-stream, "
         "three-naive, three-split) (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tl_test_output r = bench(bad[i][0]);
        TL_ASSERT_MSG(r.rc == 2, "%s: exit %d", bad[i][0], r.rc);
        TL_ASSERT_MSG(strstr(r.err, bad[i][1]), "%s: stderr lacks '%s'", bad[i][0], bad[i][1]);
        TL_ASSERT_MSG(r.out[0] == '\0', "%s: wrote to stdout", bad[i][0]);
        tl_test_output_free(&r);
    }
    /* an output that cannot be written is a file error, exit 1 as in every
     * program (before: 2, and the line did not name --results) */
    tl_test_output w = bench("stream --host --count 4K --iters 2 --results /");
    TL_ASSERT_MSG(w.rc == 1 && !strcmp(w.err, "trilap-bench: --results: /: a folder; give a file name\n") && !w.out[0],
                  "exit %d: %s", w.rc, w.err);
    tl_test_output_free(&w);
    /* host arrays beyond the memory there is (a machine of 1 GiB played):
     * refused, not killed by the kernel when the pages are touched; exit 1,
     * the machine lacks what the run needs, as trilap-fdtd's grid and
     * trilap-solve's matrix beyond it (it was 2, as a bad argument) */
    tl_test_output r = tl_test_capture("TRILAP_TEST_HOST_MEM=1073741824 %s/trilap-bench stream --host --count 64M", tl_test_bin());
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "trilap-bench: ") && strstr(r.err, "--count 67108864 (three arrays of doubles) needs 1.5 GiB of host memory; "
                                             "1.0 GiB is available") && !r.out[0],
                  "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

TL_TEST(gpu_subcommands_without_gpu_fail_cleanly)
{
    /* one line for the run, however many ranks lack a GPU */
    static const char *const cmds[] = {"tristream --no-gpu --iters 1 --repeat 1 --warmup 0",
                                       "comm --no-gpu -e 64",
                                       "stream --no-gpu --count 4K --iters 2",
                                       "comm --no-gpu --launcher threads --ranks 3 -e 64",
                                       "stream --no-gpu --launcher threads --ranks 2 --count 4K --iters 2"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        tl_test_output r = bench(cmds[i]);
        TL_ASSERT_MSG(r.rc == 1, "%s: exit %d", cmds[i], r.rc);
        TL_ASSERT_MSG(strstr(r.err, "GPU") || strstr(r.err, "CUDA"), "%s: no reason given",
                      cmds[i]);
        TL_ASSERT_MSG(tl_test_count(r.err, "\n") == 1, "%s: %s", cmds[i], r.err);
        tl_test_output_free(&r);
    }
}

/* A first run of tristream without a GPU (microbench/README.md's first
 * line) said only that it needs one, as stream says to use --host: name
 * what shows the same without one. comm has nothing to offer. */
TL_TEST(gpu_subcommands_without_gpu_say_what_runs)
{
    static const char *const cmds[][2] = {
        {"tristream --no-gpu --iters 1 --repeat 1 --warmup 0",
         "trilap-bench: tristream needs one GPU per rank (none visible, or --no-gpu); without one, make demo "
         "analyses the committed 2 x H200 run and trilap-model tristream predicts it\n"},
        {"stream --no-gpu --count 4K --iters 2",
         "trilap-bench: stream needs one GPU per rank (none visible, or --no-gpu); use --host\n"},
        /* it said no more than that: nothing named what shows comm without a GPU */
        {"comm --no-gpu -e 64", "trilap-bench: comm needs one GPU per rank (none visible, or --no-gpu); without "
                                "one, results/comm-h200x2 holds a committed 2 x H200 run (comm.csv, and "
                                "comm.log against nccl-tests)\n"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        tl_test_output r = bench(cmds[i][0]);
        TL_ASSERT_MSG(r.rc == 1 && strcmp(r.err, cmds[i][1]) == 0, "%s: exit %d: %s", cmds[i][0], r.rc, r.err);
        tl_test_output_free(&r);
    }
}

TL_TEST(host_stream_with_results)
{
    const char *dir = tl_test_tmpdir();
    char args[1024], path[600], man[600];
    snprintf(path, sizeof path, "%s/stream.csv", dir);
    snprintf(man, sizeof man, "%s/manifest.txt", dir);
    snprintf(args, sizeof args, "stream --host --no-gpu --count 256K --iters 4 --results %s", path);
    tl_test_output r = bench(args);
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strstr(r.out, "# program: trilap-bench stream\n"));
    TL_ASSERT(strstr(r.out, "# opt: count=262144\n"));
    TL_ASSERT(strstr(r.out, "# 5 rows, 0 wrong\n"));
    TL_ASSERT(strstr(r.out, "     triad    0         host     6291456"));
    tl_test_output_free(&r);
    /* a second run appends under the same header */
    r = bench(args);
    TL_ASSERT_EQ(r.rc, 0);
    tl_test_output_free(&r);
    char *csv = tl_test_slurp(path);
    int lines = 0;
    for (char *p = csv; *p; p++)
        lines += *p == '\n';
    TL_ASSERT_EQ(lines, 1 + 10);
    TL_ASSERT(strncmp(csv, "function,rank,device,count,bytes,iters,bandwidth_gbs,", 53) == 0);
    TL_ASSERT(strstr(csv, "\ntriad,0,host,262144,6291456,4,"));
    free(csv);
    struct stat sb;
    TL_ASSERT_MSG(stat(man, &sb) == 0 && sb.st_size > 0, "no manifest at %s", man);
}

TL_TEST(host_stream_formats)
{
    tl_test_output r = bench("stream --host --no-gpu --count 64K --iters 3 --format csv");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(
        strstr(r.out, "\nfunction,rank,device,bytes,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong\n"));
    TL_ASSERT(strstr(r.out, "\ncopy,0,host,1048576,"));
    tl_test_output_free(&r);
    r = bench("stream --host --no-gpu --count 64K --iters 3 --format json");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(r.out[0] == '{');
    TL_ASSERT(strstr(r.out, "\"function\": \"dot\""));
    TL_ASSERT(strstr(r.out, "\"wrong\": 0\n}"));
    tl_test_output_free(&r);
}

/* The '#' preamble stays one line per value: NCCL_LAUNCH_MODE=$'a\nb,c'
 * ended its comment line and put "b,c" before the CSV header, which a CSV
 * reader takes for the header. The arrays' size in a unit that shows it
 * (--count 1K read "(0.0 MiB each)"). */
TL_TEST(preamble_lines_hold_their_values)
{
    tl_test_output r = tl_test_capture("NCCL_LAUNCH_MODE=\"$(printf 'a\\nb,c')\" %s/trilap-bench stream --host "
                                       "--no-gpu --count 1K --iters 2 --format csv",
                                       tl_test_bin());
    TL_ASSERT_EQ(r.rc, 0);
    /* every line before the header is a comment */
    const char *hdr = strstr(r.out, "function,rank,device,");
    TL_ASSERT_MSG(hdr, "%s", r.out);
    for (const char *l = r.out; l < hdr; l = strchr(l, '\n') + 1)
        TL_ASSERT_MSG(*l == '#', "a line before the header is not a comment:\n%.200s", l);
    TL_ASSERT_MSG(strstr(r.out, "\n# NCCL_LAUNCH_MODE: a\\nb,c\n") && strstr(r.out, "(8.0 KiB each)\n"), "%.1500s",
                  r.out);
    tl_test_output_free(&r);
}

/* --results through a link to the manifest beside it, not there yet: the
 * rows went into manifest.txt and the manifest was then written over them
 * (stream --host: exit 0, the rows lost; trilap-solve refuses it). Said
 * before the run, exit 2, nothing made, for every subcommand. */
TL_TEST(results_link_to_its_manifest)
{
    const char *d = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("ln -s manifest.txt %s/m.csv", d), 0);
    static const char *const subs[] = {"stream --host --count 4K --iters 2", "comm", "tristream"};
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        char args[1024], want[1024];
        snprintf(args, sizeof args, "%s --no-gpu --results %s/m.csv", subs[i], d);
        snprintf(want, sizeof want, "trilap-bench: --results and --results (its manifest) both name %s/manifest.txt: "
                 "give each a file of its own\n", d);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want) && !r.out[0], "%s: exit %d, stderr: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/manifest.txt", d), 0);
    }
}

/* A plain stream --host sizes its arrays within 1/8 of the available
 * memory; it asked sysconf for the free pages while the check after it
 * asks tl_hostmem_available (MemAvailable, lowered to RLIMIT_AS), so under
 * `ulimit -v 350000`, or a machine of 256 MiB as played here, the run
 * refused the size it had chosen itself, naming a --count never typed
 * ("--count 16777216 (three arrays of doubles) needs 384.0 MiB of host
 * memory; 256.0 MiB is available", exit 1). */
TL_TEST(host_stream_default_fits_the_memory)
{
    tl_test_output r = host_stream("TRILAP_TEST_HOST_MEM=268435456", "--iters 2");
    /* 256 MiB / 8 for three arrays: 1398101 doubles each, said alike in
     * the note (which read "arrays of 10 MiB") and the preamble */
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "\n# arrays: 3 x 1398101 doubles (10.7 MiB each)\n") &&
                      strstr(r.err, "trilap-bench: note: stream --host: arrays of 10.7 MiB, below 4x the ") &&
                      strstr(r.err, "1/8 of the available memory") && !strstr(r.err, "host memory"),
                  "rc %d: %.1500s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* Arrays the memory check lets through but malloc refuses (the address
 * space the libraries already hold under `ulimit -v`; here a machine
 * played larger than the limit): the line said "trilap-bench: 3 host
 * arrays of 16777216 doubles" and not what went wrong with them. */
TL_TEST(host_stream_allocation_failure_says_why)
{
    tl_test_output r = host_stream("ulimit -v 1000000; TRILAP_TEST_HOST_MEM=1099511627776", "--count 64M --iters 2");
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "trilap-bench: ") &&
                      strstr(r.err, "trilap-bench: cannot allocate 3 host arrays of 67108864 doubles (1.5 GiB): out "
                                    "of memory\n") &&
                      !r.out[0],
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* A host bandwidth depends on how many threads moved the bytes: the
 * preamble said "OpenMP loops" and nothing of the thread count, so runs
 * with OMP_NUM_THREADS=1 and =2 printed the same description beside
 * figures a factor apart. */
TL_TEST(host_stream_names_its_threads)
{
    if (!TL_HAVE_OPENMP) TL_SKIP("built without OpenMP (OPENMP=0): one thread whatever OMP_NUM_THREADS says");
    static const char *const cases[][2] = {
        {"1", "\n# kernels: OpenMP loops on 1 thread (OMP_NUM_THREADS=1, OMP_PROC_BIND=unset)\n"},
        {"2", "\n# kernels: OpenMP loops on 2 threads (OMP_NUM_THREADS=2, OMP_PROC_BIND=unset)\n"},
        /* the team the loops get, not the number asked for: under a limit
         * of 1 the line said 4 threads beside figures of one */
        {"4 OMP_THREAD_LIMIT=1", "\n# kernels: OpenMP loops on 1 thread (OMP_NUM_THREADS=4, OMP_PROC_BIND=unset)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char pre[96];
        snprintf(pre, sizeof pre, "env -u OMP_PROC_BIND -u OMP_THREAD_LIMIT OMP_NUM_THREADS=%s", cases[i][0]);
        tl_test_output r = host_stream(pre, "--count 4K --iters 2");
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, cases[i][1]), "rc %d: %.1200s%s", r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
}

/* stream --host sizes its arrays from the machine and may add a note that
 * they are below 4x the cache; a run refused afterwards (--results a
 * folder) printed that note above its refusal, two lines for one. */
TL_TEST(host_stream_refusal_without_note)
{
    const char *t = tl_test_tmpdir();
    tl_test_output r = tl_test_capture("%s/trilap-bench stream --host --no-gpu --iters 2 --results '%s/ok.csv'",
                                       tl_test_bin(), t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    int noted = strstr(r.err, "trilap-bench: note: stream --host: arrays of ") != NULL;
    tl_test_output_free(&r);
    if (!noted) TL_SKIP("this host's arrays reach 4x its cache: stream --host prints no note here");
    r = tl_test_capture("%s/trilap-bench stream --host --no-gpu --iters 2 --results /", tl_test_bin());
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, "trilap-bench: --results: /: a folder; give a file name\n"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* The same for tristream's note on --trace-mode nvtx without --trace: it
 * came above any refusal that followed (--results /, a bad sweep). */
TL_TEST(tristream_refusal_without_note)
{
    static const char *const cmd[][2] = {
        {"--trace-mode nvtx --results /", "trilap-bench: --results: /: a folder; give a file name\n"},
        {"--trace-mode nvtx --sweep ring-bytes --sweep-range 8:4",
         "trilap-bench: invalid --sweep-range '8:4': END is smaller than START (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "tristream %s", cmd[i][0]);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc != 0 && !strcmp(r.err, cmd[i][1]), "%s: rc %d: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* taken: the note, then the run looks for a GPU */
    tl_test_output r = bench("tristream --trace-mode nvtx --no-gpu");
    /* a note, said as one like every other (it lacked "note:") */
    TL_ASSERT_MSG(r.rc == 1 && !strncmp(r.err, "trilap-bench: note: --trace-mode nvtx without --trace records no "
                                               "host ranges", 75), "%s", r.err);
    tl_test_output_free(&r);
    /* the environment's queues over --hw-queues: a note too (it lacked "note:") */
    r = tl_test_capture("CUDA_DEVICE_MAX_CONNECTIONS=8 %s/trilap-bench tristream --no-gpu --hw-queues 4",
                        tl_test_bin());
    const char *env_note =
        "trilap-bench: note: CUDA_DEVICE_MAX_CONNECTIONS=8 from the environment (not --hw-queues 4)\n";
    TL_ASSERT_MSG(r.rc == 1 && !strncmp(r.err, env_note, strlen(env_note)), "%s", r.err);
    tl_test_output_free(&r);
}

/* Each of `bad` ({args, its one line}) exits 2 with that line alone; each
 * of `good` passes every check and stops at the missing GPU, exit 1. */
static void refused_and_taken(const char *const (*bad)[2], size_t nbad, const char *const *good, size_t ngood)
{
    for (size_t i = 0; i < nbad; i++) {
        tl_test_output r = bench(bad[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, bad[i][1]), "%s: exit %d: %s", bad[i][0], r.rc, r.err);
        tl_test_output_free(&r);
    }
    for (size_t i = 0; i < ngood; i++) {
        tl_test_output r = bench(good[i]);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "needs one GPU per rank"), "%s: exit %d: %s", good[i],
                      r.rc, r.err);
        tl_test_output_free(&r);
    }
}

/* A count of doubles typed with a byte unit: the size parser takes "64KB"
 * as 64K, right for a byte option, but here it ran 64K doubles, 8x the
 * bytes typed (--ring-count 256KB sent 2 MiB). Refused in one line, exit
 * 2, saying both readings; the byte options keep the unit. */
TL_TEST(counts_refuse_byte_units)
{
    static const char *const bad[][2] = {
        {"stream --host --count 64KB",
         "trilap-bench: invalid --count '64KB': a count of doubles, not bytes: give 64K for 65536 doubles, or 8192 "
         "for 65536 bytes (try --help)\n"},
        {"tristream --ring-count 256KB", "invalid --ring-count '256KB': a count of doubles, not bytes: give 256K "
                                         "for 262144 doubles, or 32768 for 262144 bytes"},
        {"tristream --allreduce-count=1KiB", "invalid --allreduce-count '1KiB': a count of doubles"},
        {"tristream --daxpy-count 8MB", "invalid --daxpy-count '8MB': a count of doubles"},
        {"tristream --sweep allreduce-count --sweep-range 1KB:4K",
         "trilap-bench: invalid --sweep-range '1KB:4K': --sweep allreduce-count counts doubles, not bytes: give "
         "the sizes without B (try --help)\n"},
    };
    /* byte options keep the unit: past the checks, to the missing GPU */
    static const char *const good[] = {"tristream --no-gpu --ring-bytes 256KB",
                                       "tristream --no-gpu --sweep ring-bytes --sweep-range 1KB:4KB",
                                       "comm --no-gpu -b 64KB -e 1MB"};
    refused_and_taken(bad, sizeof bad / sizeof bad[0], good, sizeof good / sizeof good[0]);
}

/* A bad --variants list was one generic line ("expected all or a comma
 * list of distinct variant names") whatever was wrong, with no names to
 * pick from: now the entry and what is wrong with it. */
TL_TEST(variants_name_the_bad_entry)
{
    static const char *const bad[][2] = {
        {"tristream --variants Two-Stream",
         "trilap-bench: invalid --variants 'Two-Stream': 'Two-Stream' is not a variant (all, or a comma list of "
         "allreduce-only, ring-only, daxpy-only, two-stream, three-naive, three-split) (try --help)\n"},
        {"tristream --variants two-stream,two-stream",
         "invalid --variants 'two-stream,two-stream': two-stream is given twice"},
        {"tristream --variants two-stream,,three-split", "': an empty entry (two commas, or one at an end)"},
        {"tristream --variants three-split,", "': an empty entry (two commas, or one at an end)"},
        {"tristream --variants ''", "invalid --variants '': an empty entry"},
        {"tristream --variants all,two-stream", "': all stands alone: it is every variant"},
    };
    static const char *const good[] = {"tristream --no-gpu --variants three-split,two-stream"};
    refused_and_taken(bad, sizeof bad / sizeof bad[0], good, sizeof good / sizeof good[0]);
}

/* Sizes tristream would not run as typed: a ring of 0 ran as the default
 * 32000 doubles (0 meant "not given"), a size option beside a sweep of that
 * size was dropped, and a sweep went past the option's own range (1K:1T
 * reached the GPUs with a DAXPY --daxpy-count refuses). Refused in one
 * line, exit 2; a sweep of another size or within the range is not. */
TL_TEST(tristream_sizes_as_typed)
{
    static const char *const bad[][2] = {
        {"--ring-count 0", "trilap-bench: invalid --ring-count '0': out of range [1, 1073741824] (try --help)\n"},
        {"--ring-bytes 0", "trilap-bench: invalid --ring-bytes '0': out of range [8, 8589934592] (try --help)\n"},
        {"--sweep ring-bytes --sweep-range 8:1K --ring-count 5",
         "trilap-bench: invalid --ring-count '5': --sweep ring-bytes sets this size at each point; give one or "
         "the other (try --help)\n"},
        {"--sweep ring-bytes --sweep-range 8:1K --ring-bytes 64", "invalid --ring-bytes '64': --sweep ring-bytes"},
        {"--sweep allreduce-count --sweep-range 1:16 --allreduce-count 2",
         "invalid --allreduce-count '2': --sweep allreduce-count sets this size"},
        {"--sweep daxpy-bytes --sweep-range 8K:1M --daxpy-count 8M",
         "invalid --daxpy-count '8388608': --sweep daxpy-bytes sets this size"},
        {"--sweep daxpy-bytes --sweep-range 1K:1T",
         "trilap-bench: invalid --sweep-range '1K:1T': the point 1099511627776 is beyond the largest "
         "--daxpy-count, 17179869184 doubles (137438953472 B) (try --help)\n"},
        {"--sweep ring-bytes --sweep-range 8:16G", "the point 17179869184 is beyond the largest --ring-count"},
        {"--sweep allreduce-count --sweep-range 1:4G",
         "the point 4294967296 is beyond the largest --allreduce-count, 1073741824 (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "tristream %s", bad[i][0]);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, bad[i][1]), "%s: exit %d: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* taken: the run goes on to look for a GPU (none with --no-gpu) */
    static const char *const good[] = {"--sweep daxpy-bytes --sweep-range 8K:16K --ring-count 64",
                                       "--sweep ring-bytes --sweep-range 8:8G --daxpy-count 1K"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "tristream %s --no-gpu", good[i]);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "tristream needs one GPU per rank"), "%s: exit %d: %s",
                      args, r.rc, r.err);
        tl_test_output_free(&r);
    }
}

/* The split communicator's CTA limits where they would do nothing or
 * contradict: comm took --split-min-ctas 4 --split-max-ctas 2 (tristream
 * refused it) and, like tristream without three-split, limits for a
 * communicator it does not measure. One line, exit 2. */
TL_TEST(split_ctas_where_used)
{
    static const char *const bad[][2] = {
        {"comm --split-min-ctas 4 --split-max-ctas 2",
         "trilap-bench: invalid --split-min-ctas '4': greater than --split-max-ctas (try --help)\n"},
        {"comm --comm world --split-max-ctas 2",
         "trilap-bench: invalid --split-max-ctas '2': --comm world measures no split communicator (try --help)\n"},
        {"comm --comm world --split-min-ctas 1", "invalid --split-min-ctas '1': --comm world"},
        {"tristream --variants two-stream,three-naive --split-max-ctas 2",
         "trilap-bench: invalid --split-max-ctas '2': no selected variant uses the split communicator "
         "(three-split) (try --help)\n"},
    };
    static const char *const good[] = {"comm --comm split --split-max-ctas 2 --split-min-ctas 1 --no-gpu",
                                       "tristream --variants three-split --split-max-ctas 2 --no-gpu"};
    refused_and_taken(bad, sizeof bad / sizeof bad[0], good, sizeof good / sizeof good[0]);
}

/* --trace is first written after every timed repetition: a trace folder
 * that is a file (or under one) was found out only then, after the
 * measurement; now one line naming --trace before the run, exit 1, as for
 * --results. */
TL_TEST(trace_folder_checked_first)
{
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/a-file", t);
    tl_test_write(p, "x\n");
    static const char *const sub[] = {"", "/sub"};
    for (int i = 0; i < 2; i++) {
        char args[2048];
        snprintf(args, sizeof args, "tristream --trace '%s/a-file%s' --variants three-split", t, sub[i]);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "trilap-bench: --trace: ") &&
                          strstr(r.err, "a-file is not a folder"),
                      "%s: exit %d: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* a variant's folder (or one above it) that is a file: the folder
     * --trace names could be written, and the run failed after the
     * measurement on DIR/three-split; a variant not run is no matter */
    static const char *const leaf[][2] = {
        {"--variants three-split", "%s/three-split is not a folder"},
        {"--variants two-stream --trace-mode nvtx", "%s/timed-nvtx is not a folder"},
    };
    snprintf(p, sizeof p, "%s/tr", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s && echo x >%s/three-split && echo x >%s/timed-nvtx", p, p, p), 0);
    for (size_t i = 0; i < sizeof leaf / sizeof leaf[0]; i++) {
        char args[2048], want[2048];
        snprintf(args, sizeof args, "tristream --no-gpu --trace '%s' %s", p, leaf[i][0]);
        snprintf(want, sizeof want, leaf[i][1], p);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "trilap-bench: --trace: ") && strstr(r.err, want),
                      "%s: exit %d: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
    }
    snprintf(p, sizeof p, "tristream --no-gpu --variants two-stream --trace '%s/tr'", t);
    tl_test_output r = bench(p);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "tristream needs one GPU per rank"), "%s: exit %d: %s", p, r.rc,
                  r.err);
    tl_test_output_free(&r);
}

/* The results file where tristream traces (--trace T --results
 * T/three-split: a variant's folder; T/three-split/trace.rank0.csv: its
 * rank file; T itself; T/timed-nvtx with --trace-mode nvtx) is refused
 * before the run in one line naming both options, exit 2 (the options
 * clash; it was 1, as if the file system had refused), nothing made;
 * before, the rows went there and the trace failed after the measurement.
 * Only what this command traces counts: the results beside T, in a
 * variant's folder, or where a variant not run would go are taken (and
 * the run then looks for a GPU). */
TL_TEST(results_where_a_trace_folder_goes)
{
    const char *d = tl_test_tmpdir();
    static const char *const cases[][2] = {
        {"--results %s/T/three-split", "trilap-bench: --results and --trace (variant three-split's folder) both name "
                                       "%s/T/three-split: give each a file of its own\n"},
        {"--results %s/T/three-split/trace.rank0.csv",
         "trilap-bench: --results and --trace (variant three-split's rank file) both name "
         "%s/T/three-split/trace.rank0.csv: give each a file of its own\n"},
        {"--results %s/T", "trilap-bench: --results and --trace both name %s/T: give each a file of its own\n"},
        {"--trace-mode nvtx --results %s/T/timed-nvtx/ring-only",
         "trilap-bench: --results and --trace (variant ring-only's timed-nvtx folder) both name "
         "%s/T/timed-nvtx/ring-only: give each a file of its own\n"},
        /* a folder above a variant's: the variant's lies under the results */
        {"--trace-mode nvtx --results %s/T/timed-nvtx",
         "trilap-bench: --trace (variant allreduce-only's timed-nvtx folder) %s/T/timed-nvtx/allreduce-only lies "
         "under the file --results names: give each a place of its own\n"},
        {"--sweep ring-bytes --sweep-range 8:16 --results %s/T/ring-bytes-16",
         "trilap-bench: --trace (variant allreduce-only's folder) %s/T/ring-bytes-16/allreduce-only lies under the "
         "file --results names: give each a place of its own\n"},
        {"--trace-mode cupti --sweep ring-bytes --sweep-range 8:16 --results "
         "%s/T/timed-cupti/ring-bytes-8/daxpy-only/trace.rank2.csv",
         "trilap-bench: --results and --trace (variant daxpy-only's timed-cupti rank file) both name "
         "%s/T/timed-cupti/ring-bytes-8/daxpy-only/trace.rank2.csv: give each a file of its own\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char opt[1024], args[2048], want[2048];
        snprintf(opt, sizeof opt, cases[k][0], d);
        snprintf(args, sizeof args, "tristream --no-gpu --trace %s/T %s", d, opt);
        snprintf(want, sizeof want, cases[k][1], d);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want) && !r.out[0], "%s: exit %d, expected '%s', stderr: %s", args,
                      r.rc, want, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/T && test ! -e %s/manifest.txt", d, d), 0);
    }
    static const char *const taken[] = {
        "--results %s/r.csv",                                              /* beside T */
        "--results %s/T/three-split/r.csv",                                /* in a variant's folder */
        "--variants three-split --results %s/T/two-stream",                /* a variant not run */
        "--variants ring-only --results %s/T/three-split/trace.rank0.csv", /* its rank file */
        "--results %s/T/timed-nvtx",                                       /* the timed loop not traced */
    };
    for (size_t k = 0; k < sizeof taken / sizeof taken[0]; k++) {
        char opt[1024], args[2048];
        snprintf(opt, sizeof opt, taken[k], d);
        snprintf(args, sizeof args, "tristream --no-gpu --trace %s/T %s", d, opt);
        tl_test_output r = bench(args);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "trilap-bench: tristream needs one GPU per rank") &&
                          !r.out[0],
                      "%s: exit %d: %s", args, r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* a link to a rank file, neither there yet: the rows went through it
     * into trace.rank0.csv, which the trace then replaced (the rank file
     * was looked for under the link's own name, ln.csv) */
    TL_ASSERT_EQ(tl_test_sh("ln -s T/three-split/trace.rank0.csv %s/ln.csv", d), 0);
    char args[2048], want[2048];
    snprintf(args, sizeof args, "tristream --no-gpu --trace %s/T --results %s/ln.csv", d, d);
    snprintf(want, sizeof want,
             "trilap-bench: --results and --trace (variant three-split's rank file) both name "
             "%s/T/three-split/trace.rank0.csv: give each a file of its own\n", d);
    tl_test_output l = bench(args);
    TL_ASSERT_MSG(l.rc == 2 && !strcmp(l.err, want) && !l.out[0], "%s: exit %d, stderr: %s", args, l.rc, l.err);
    tl_test_output_free(&l);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/T && test ! -e %s/manifest.txt", d, d), 0);
    /* the traces under the results file, neither made yet */
    snprintf(args, sizeof args, "tristream --no-gpu --trace %s/R/T --results %s/R", d, d);
    snprintf(want, sizeof want,
             "trilap-bench: --trace %s/R/T lies under the file --results names: give each a place of its own\n", d);
    tl_test_output r = bench(args);
    TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want) && !r.out[0], "%s: exit %d, stderr: %s", args, r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/R", d), 0);
}

/* stream --host under mpirun with more than one process is refused before
 * the launch, exit 2 as for --ranks 2, said once (before: inside the
 * ranks, exit 1 through mpirun's abort) */
TL_TEST(host_stream_under_mpirun_refused_first)
{
    const char *m = tl_test_mpirun();
    tl_test_output r = tl_test_capture("%s -np 2 --oversubscribe %s/trilap-bench stream --host --count 4K --iters 2", m,
                                       tl_test_bin());
    TL_ASSERT_MSG(r.rc == 2 && tl_test_count(r.err, "one process measures the host's memory") == 1 &&
                      strstr(r.err, "run it on one rank (mpirun started 2)\n") && !r.out[0],
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* --sweep without --sweep-range: the refusal names the option typed and
 * the range's real syntax (it said "invalid --sweep-range ''", an option
 * never given, and called the optional FACTOR required). */
TL_TEST(sweep_without_range_names_sweep)
{
    tl_test_output r = bench("tristream --sweep ring-bytes");
    TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, "trilap-bench: invalid --sweep 'ring-bytes': needs --sweep-range "
                                             "START:END[:FACTOR] (try --help)\n"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(help_lists_subcommands, host_stream_under_mpirun_refused_first, subcommand_help, bad_arguments_exit_2, tristream_sizes_as_typed,
             split_ctas_where_used, trace_folder_checked_first, results_where_a_trace_folder_goes,
             gpu_subcommands_without_gpu_fail_cleanly, gpu_subcommands_without_gpu_say_what_runs,
             host_stream_with_results,
             host_stream_formats, preamble_lines_hold_their_values, host_stream_names_its_threads, host_stream_default_fits_the_memory, results_link_to_its_manifest, host_stream_allocation_failure_says_why,
             host_stream_refusal_without_note, tristream_refusal_without_note, counts_refuse_byte_units, variants_name_the_bad_entry,
             sweep_without_range_names_sweep)
