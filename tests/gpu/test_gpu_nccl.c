/* NCCL bootstrap in both launch modes, allreduce and ring send/recv on the
 * world and split communicators, and the watchdog turning an allreduce one
 * rank never joins into a clean error. Needs 2 GPUs; skips otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu.h"
#include "runtime/timing.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static char out_buf[65536];

/* the command's output, stderr merged, in out_buf; its exit code */
#define RUN(...) tl_test_sh_to(out_buf, sizeof out_buf, __VA_ARGS__)

static const char *helper(void) { return tl_test_helper("helper_gpu_nccl"); }

static int need_gpus(int n)
{
    int have = tl_gpu_count();
    if (have == 0) TL_SKIP("no GPU visible");
    if (have < n) TL_SKIP("needs %d GPUs, %d visible", n, have);
    return have;
}

TL_TEST(versions)
{
    need_gpus(1);
    char rt[32], drv[96], nccl[32];
    tl_gpu_versions(rt, sizeof rt, drv, sizeof drv, nccl, sizeof nccl);
    fprintf(stderr, "cuda %s, driver %s, nccl %s\n", rt, drv, nccl);
    TL_ASSERT(strcmp(rt, "none") != 0 && strchr(rt, '.'));
    TL_ASSERT(strcmp(drv, "none") != 0);
    TL_ASSERT(strcmp(nccl, "none") != 0 && strchr(nccl, '.'));
    char name[256];
    tl_gpu_device_name(0, name, sizeof name);
    TL_ASSERT(strcmp(name, "none") != 0);
}

TL_TEST(threads_bootstrap_world_and_split)
{
    need_gpus(2);
    TL_ASSERT_EQ(RUN("%s --launcher threads --gpus 2 nccl", helper()), 0);
    TL_ASSERT(strstr(out_buf, "nccl ok on 2 ranks (threads)"));
}

TL_TEST(mpi_bootstrap_world_and_split)
{
    need_gpus(2);
    const char *m = tl_test_mpirun();
    TL_ASSERT_EQ(RUN("%s -np 2 --oversubscribe %s nccl", m, helper()), 0);
    TL_ASSERT(strstr(out_buf, "nccl ok on 2 ranks (mpi)"));
}

static void expect_watchdog(const char *cmd)
{
    int64_t t0 = tl_clock_ns();
    int rc = RUN("%s", cmd);
    double secs = (double)(tl_clock_ns() - t0) * 1e-9;
    TL_ASSERT_MSG(rc != 0, "the mismatched run succeeded");
    TL_ASSERT(strstr(out_buf, "rank 0: mismatched allreduce: not finished after 5 s"));
    TL_ASSERT(strstr(out_buf, "aborting the communicators"));
    /* either the abort returned, or it hung in the driver and the abort
     * deadline ended the process with the reason already printed */
    TL_ASSERT(strstr(out_buf, "rank 0: watchdog returned 'timed out'") ||
              strstr(out_buf, "ncclCommAbort did not return within"));
    /* 5 s watchdog plus bootstrap and teardown, far from a hang */
    TL_ASSERT_MSG(secs < 90, "took %.1f s", secs);
}

TL_TEST(threads_watchdog_turns_mismatch_into_error)
{
    need_gpus(2);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --launcher threads --gpus 2 --nccl-timeout 5 mismatch", helper());
    expect_watchdog(cmd);
}

TL_TEST(mpi_watchdog_turns_mismatch_into_error)
{
    need_gpus(2);
    const char *m = tl_test_mpirun();
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -np 2 --oversubscribe %s --nccl-timeout 5 mismatch", m, helper());
    expect_watchdog(cmd);
}

TL_TEST(more_ranks_than_gpus_is_a_clear_error)
{
    int have = need_gpus(1);
    TL_ASSERT_EQ(RUN("%s --launcher threads --gpus %d nccl", helper(), have + 1), 2); /* a usage error */
    TL_ASSERT(strstr(out_buf, "ranks in this process but only"));
    /* host-only ranks ask for no GPU, and a GPU program says so */
    TL_ASSERT_EQ(RUN("%s --launcher threads --no-gpu --ranks 2 nccl", helper()), 1);
    TL_ASSERT(strstr(out_buf, "has no GPU"));
}

TL_TEST_MAIN(versions, threads_bootstrap_world_and_split, mpi_bootstrap_world_and_split,
             threads_watchdog_turns_mismatch_into_error, mpi_watchdog_turns_mismatch_into_error,
             more_ranks_than_gpus_is_a_clear_error)
