/* trilap-bench on GPUs: short runs of every tristream variant on 1 and 2
 * GPUs (thread launcher, and mpirun where available) pass their own
 * correctness checks; stream verifies; comm checks its results. Skips
 * without a GPU, and the 2-GPU tests with fewer than 2. Sizes are small
 * and odd on purpose (vector tails, pattern periods). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "microbench/bench_kernels.h"
#include "runtime/gpu.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static void need_gpus(int n)
{
    int have = tl_gpu_count();
    if (have < n) TL_SKIP("needs %d GPU%s, %d visible", n, n > 1 ? "s" : "", have);
}

/* Run `[launcher] bin/trilap-bench ARGS`; returns the exit code, stdout in *out. */
static int bench(const char *launcher, const char *args, char **out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s/trilap-bench %s", launcher, tl_test_env("TL_BIN", "bin"),
             args);
    fprintf(stderr, "$ %s\n", cmd);
    int rc = tl_test_run(cmd, out, NULL);
    fputs(*out, stderr);
    return rc;
}

static void expect_footer(const char *out, int rows)
{
    char want[64];
    snprintf(want, sizeof want, "# %d rows, 0 wrong\n", rows);
    TL_ASSERT_MSG(strstr(out, want), "footer '%s' missing", want);
}

static int count_lines(const char *path)
{
    char *s = tl_test_slurp(path);
    int n = 0;
    for (char *p = s; *p; p++)
        n += *p == '\n';
    free(s);
    return n;
}

#define CUDA_OK(expr)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        TL_ASSERT_MSG(e_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(e_));                 \
    } while (0)

static unsigned long long count_wrong_dev(const double *d, int64_t n, tl_bench_expect e,
                                          unsigned long long *d_wrong, cudaStream_t s)
{
    unsigned long long h = 0;
    CUDA_OK(cudaMemsetAsync(d_wrong, 0, sizeof h, s));
    TL_ASSERT_OK(tl_bench_check(d, n, e, d_wrong, s));
    CUDA_OK(cudaMemcpyAsync(&h, d_wrong, sizeof h, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    return h;
}

/* The kernels the checks rely on: fill/check find exactly the corrupted
 * elements, and the DAXPY (both grids, odd length) gives K/1024 exactly. */
TL_TEST(kernels_fill_check_daxpy)
{
    need_gpus(1);
    CUDA_OK(cudaSetDevice(0));
    const int64_t n = 1000001;
    double *d_x = NULL, *d_y = NULL;
    unsigned long long *d_wrong = NULL;
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_OK(cudaMalloc((void **)&d_x, (size_t)n * sizeof(double)));
    CUDA_OK(cudaMalloc((void **)&d_y, (size_t)n * sizeof(double)));
    CUDA_OK(cudaMalloc((void **)&d_wrong, sizeof *d_wrong));

    tl_bench_expect pat = {.kind = TL_EXPECT_PATTERN, .rank = 3, .salt = 7};
    TL_ASSERT_OK(tl_bench_fill(d_x, n, pat, s));
    TL_ASSERT_EQ(count_wrong_dev(d_x, n, pat, d_wrong, s), 0);
    double h[3];
    CUDA_OK(cudaMemcpy(h, d_x + 1020, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 3; i++)
        TL_ASSERT(h[i] == tl_bench_pattern(3, 7, 1020 + i));
    double bad = -5.0;
    CUDA_OK(cudaMemcpy(d_x + n - 1, &bad, sizeof bad, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_x + 12345, &bad, sizeof bad, cudaMemcpyHostToDevice));
    TL_ASSERT_EQ(count_wrong_dev(d_x, n, pat, d_wrong, s), 2);
    tl_bench_expect other = pat;
    other.rank = 2; /* data from the wrong neighbour: everything is wrong */
    TL_ASSERT_EQ(count_wrong_dev(d_x, n, other, d_wrong, s), (unsigned long long)n);

    const int grids[2] = {0, 37};
    for (int g = 0; g < 2; g++) {
        TL_ASSERT_OK(tl_bench_fill(d_x, n, (tl_bench_expect){.value = 1.0}, s));
        TL_ASSERT_OK(tl_bench_fill(d_y, n, (tl_bench_expect){.value = 0.0}, s));
        for (int k = 0; k < 100; k++)
            TL_ASSERT_OK(tl_bench_daxpy(n, TL_BENCH_DAXPY_A, d_x, d_y, grids[g], s));
        tl_bench_expect want = {.value = tl_bench_daxpy_expected(100)};
        TL_ASSERT_MSG(count_wrong_dev(d_y, n, want, d_wrong, s) == 0, "daxpy with %d blocks",
                      grids[g]);
    }
    CUDA_OK(cudaFree(d_x));
    CUDA_OK(cudaFree(d_y));
    CUDA_OK(cudaFree(d_wrong));
    CUDA_OK(cudaStreamDestroy(s));
}

#define SMALL                                                                                      \
    "--allreduce-count 3 --ring-count 1001 --daxpy-count 100001 --warmup 3 --iters 40 --repeat 2"

TL_TEST(tristream_1gpu_all_variants)
{
    need_gpus(1);
    char res[512], args[1024];
    snprintf(res, sizeof res, "%s/r.csv", tl_test_tmpdir());
    snprintf(args, sizeof args, "tristream --gpus 1 " SMALL " --results %s", res);
    char *out = NULL;
    TL_ASSERT_EQ(bench("", args, &out), 0);
    expect_footer(out, 6);
    static const char *const v[] = {"allreduce-only", "ring-only",   "daxpy-only",
                                    "two-stream",     "three-naive", "three-split"};
    for (int i = 0; i < 6; i++)
        TL_ASSERT_MSG(strstr(out, v[i]), "no row for %s", v[i]);
    TL_ASSERT(strstr(out, "# CUDA_DEVICE_MAX_CONNECTIONS: "));
    TL_ASSERT(strstr(out, "# NCCL_LAUNCH_MODE: "));
    free(out);
    TL_ASSERT_EQ(count_lines(res), 1 + 6 * 2); /* header + variants x repetitions */
}

TL_TEST(tristream_2gpu_all_variants_traced)
{
    need_gpus(2);
    char dir[256], args[1024], path[600];
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    snprintf(args, sizeof args,
             "tristream --gpus 2 " SMALL
             " --format csv --results %s/r.csv --trace %s/trace --trace-iters 20",
             dir, dir);
    char *out = NULL;
    TL_ASSERT_EQ(bench("", args, &out), 0);
    expect_footer(out, 6);
    TL_ASSERT(strstr(out, "\nvariant,allreduce_bytes,ring_bytes,daxpy_bytes,median_us,"));
    TL_ASSERT(strstr(out, "\nthree-split,24,8008,800008,"));
    free(out);
    static const char *const v[] = {"two-stream", "three-naive", "three-split"};
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 2; r++) {
            struct stat sb;
            snprintf(path, sizeof path, "%s/trace/%s/trace.rank%d.csv", dir, v[i], r);
            TL_ASSERT_MSG(stat(path, &sb) == 0 && sb.st_size > 0, "no trace %s", path);
        }
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no manifest %s", path);
}

TL_TEST(tristream_2gpu_knobs_and_sweep)
{
    need_gpus(2);
    char *out = NULL;
    TL_ASSERT_EQ(bench("",
                       "tristream --gpus 2 " SMALL
                       " --variants two-stream,three-split --priorities off "
                       "--split-max-ctas 2 --split-min-ctas 1 --daxpy-blocks 64 "
                       "--sweep ring-bytes --sweep-range 8K:32K:2",
                       &out),
                 0);
    expect_footer(out, 6); /* 3 points x 2 variants */
    TL_ASSERT(strstr(out, "# priorities: off"));
    free(out);
    TL_ASSERT_EQ(bench("",
                       "tristream --gpus 2 " SMALL
                       " --variants three-split --sweep allreduce-count "
                       "--sweep-range 1:1K:32 --format json",
                       &out),
                 0);
    TL_ASSERT(strstr(out, "\"wrong\": 0\n}"));
    free(out);
}

TL_TEST(tristream_2gpu_trace_modes)
{
    need_gpus(2);
    static const char *const modes[] = {"nvtx", "cupti"};
    for (int i = 0; i < 2; i++) {
        char args[1024];
        snprintf(args, sizeof args,
                 "tristream --gpus 2 " SMALL " --variants three-split --trace %s/t --trace-mode %s",
                 tl_test_tmpdir(), modes[i]);
        char *out = NULL;
        TL_ASSERT_EQ(bench("", args, &out), 0);
        expect_footer(out, 1);
        free(out);
    }
}

TL_TEST(tristream_2gpu_mpirun)
{
    need_gpus(2);
    const char *mpirun = getenv("TL_MPIRUN");
    if (!mpirun || !*mpirun ||
        strcmp(getenv("TL_HAVE_MPI") ? getenv("TL_HAVE_MPI") : "0", "1") != 0)
        TL_SKIP("needs MPI (TL_MPIRUN)");
    char launcher[512];
    snprintf(launcher, sizeof launcher, "%s -np 2 --oversubscribe", mpirun);
    char *out = NULL;
    TL_ASSERT_EQ(bench(launcher, "tristream " SMALL, &out), 0);
    expect_footer(out, 6);
    TL_ASSERT(strstr(out, "# launcher: mpi"));
    TL_ASSERT(strstr(out, "# ranks: 2"));
    free(out);
}

TL_TEST(stream_1gpu_verifies)
{
    need_gpus(1);
    char *out = NULL;
    TL_ASSERT_EQ(bench("", "stream --gpus 1 --count 1M --iters 5", &out), 0);
    expect_footer(out, 5);
    free(out);
    /* scalar kernels, odd length (tails), other block size */
    TL_ASSERT_EQ(
        bench("", "stream --gpus 1 --count 1000003 --iters 4 --vector 1 --block 128", &out), 0);
    expect_footer(out, 5);
    free(out);
    TL_ASSERT_EQ(
        bench("", "stream --gpus 1 --count 1000003 --iters 4 --vector 2 --block 1024", &out), 0);
    expect_footer(out, 5);
    free(out);
}

TL_TEST(comm_1gpu_and_2gpu)
{
    need_gpus(1);
    char *out = NULL;
    TL_ASSERT_EQ(bench("", "comm --gpus 1 -b 8 -e 64K -f 8 -w 1 -n 3", &out), 0);
    expect_footer(out, 2 * 2 * 5); /* ops x comms x sizes 8..32K */
    free(out);
    if (tl_gpu_count() < 2) return;
    TL_ASSERT_EQ(bench("", "comm --gpus 2 -b 8 -e 4M -f 4 -w 2 -n 5", &out), 0);
    expect_footer(out, 2 * 2 * 10); /* 8 B .. 2 MB */
    TL_ASSERT(strstr(out, " allreduce world "));
    TL_ASSERT(strstr(out, "  sendrecv split "));
    free(out);
}

/* tristream and comm: a progress line with --progress off a terminal
 * (the tests' stderr is a file), none without it; one unit per timed
 * repetition, per size, op and communicator. */
TL_TEST(progress_lines)
{
    need_gpus(1);
    const char *bin = tl_test_env("TL_BIN", "bin");
    tl_test_output r = tl_test_capture("%s/trilap-bench tristream --gpus 1 " SMALL " --progress", bin);
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(strstr(r.err, "tristream 100% 12/12 reps ["), "%s", r.err);
    TL_ASSERT(!strstr(r.out, "reps/s"));
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-bench comm --gpus 1 -b 8 -e 64K -f 8 -w 1 -n 3 --progress", bin);
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(strstr(r.err, "comm 100% 20/20 sizes ["), "%s", r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-bench comm --gpus 1 -b 8 -e 64K -f 8 -w 1 -n 3", bin);
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(!strstr(r.err, "sizes/s"), "%s", r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(kernels_fill_check_daxpy, tristream_1gpu_all_variants,
             tristream_2gpu_all_variants_traced, tristream_2gpu_knobs_and_sweep,
             tristream_2gpu_trace_modes, tristream_2gpu_mpirun, stream_1gpu_verifies,
             comm_1gpu_and_2gpu, progress_lines)
