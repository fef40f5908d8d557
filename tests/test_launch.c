/* The launcher and host communication: thread mode with 1, 2 and 4 ranks
 * in this process and through helper_launch, and MPI mode under
 * $TL_MPIRUN -np 4 --oversubscribe (skipped without MPI). */
#include "runtime/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/hostshare.h"
#include "runtime/timing.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* ---- in-process thread launcher ------------------------------------------------ */

typedef struct seen {
    int nranks;
    int rank_seen[8], size_seen[8], local_seen[8], device_seen[8];
    double max_elapsed;
} seen;

static tl_status record_rank(tl_ctx *ctx, void *arg)
{
    seen *s = (seen *)arg;
    TL_CHECK(ctx->opts == arg, TL_ERR_INVAL, "ctx->opts is not the rank_main argument");
    TL_CHECK(ctx->mode == TL_LAUNCH_THREADS, TL_ERR_INVAL, "mode %d", (int)ctx->mode);
    s->rank_seen[ctx->rank]++;
    s->size_seen[ctx->rank] = ctx->size;
    s->local_seen[ctx->rank] = ctx->local_rank;
    s->device_seen[ctx->rank] = ctx->device;
    int64_t t0 = 0;
    double el = 0;
    TL_TRY(tl_time_start(ctx, &t0));
    TL_TRY(tl_time_stop(ctx, t0, &el));
    if (ctx->rank == 0) s->max_elapsed = el;
    return TL_OK;
}

static void launch_threads_n(int n)
{
    seen s;
    memset(&s, 0, sizeof s);
    tl_launch_opts lo = {.gpus = 0, .launcher = TL_LAUNCH_THREADS, .ranks = n, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"test_launch", NULL};
    TL_ASSERT_EQ(tl_launch_run("test_launch", &lo, 1, argv, record_rank, &s), 0);
    for (int r = 0; r < n; r++) {
        TL_ASSERT_EQ(s.rank_seen[r], 1);
        TL_ASSERT_EQ(s.size_seen[r], n);
        TL_ASSERT_EQ(s.local_seen[r], r);
        TL_ASSERT_EQ(s.device_seen[r], -1);
    }
    TL_ASSERT(s.max_elapsed >= 0 && s.max_elapsed < 10);
}

TL_TEST(threads_in_process)
{
    launch_threads_n(1);
    launch_threads_n(2);
    launch_threads_n(4);
}

static tl_status fail_on_rank2(tl_ctx *ctx, void *arg)
{
    if (ctx->rank == 2) return TL_FAIL(TL_ERR_IO, "induced");
    /* without agree: the others must still get out */
    for (;;) TL_TRY(tl_comm_barrier(ctx));
}

TL_TEST(threads_failing_rank_exit_code)
{
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 4, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"test_launch", NULL};
    int64_t t0 = tl_clock_ns();
    TL_ASSERT_EQ(tl_launch_run("test_launch", &lo, 1, argv, fail_on_rank2, NULL), 1);
    TL_ASSERT((tl_clock_ns() - t0) < 5000000000LL);
}

TL_TEST(detect_from_environment)
{
    static const char *const keys[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < 5; i++) unsetenv(keys[i]);
    TL_ASSERT_EQ(tl_launch_detect(), TL_LAUNCH_THREADS);
    setenv("SLURM_PROCID", "0", 1); /* srun alone starts plain programs too */
    TL_ASSERT_EQ(tl_launch_detect(), TL_LAUNCH_THREADS);
    for (size_t i = 0; i < 4; i++) {
        setenv(keys[i], "2", 1);
        TL_ASSERT_EQ(tl_launch_detect(), TL_LAUNCH_MPI);
        unsetenv(keys[i]);
    }
}

/* Pools of ranks sharing a host or a device (runtime/hostshare.h): four
 * thread ranks on two "devices" (rank % 2) of one host, each needing
 * rank + 1 and measuring a room of 100 (rank 1: 5). */
typedef struct pools_seen {
    tl_hostshare_pool by_device[4], by_host[4], by_process[4];
    int next_short[4], next_short_after[4], process_short[4], host_short[4];
    tl_status failed[4];
} pools_seen;

static tl_status record_pools(tl_ctx *ctx, void *arg)
{
    pools_seen *s = (pools_seen *)arg;
    int r = ctx->rank;
    ctx->device = r % 2;
    tl_hostshare share;
    TL_TRY(tl_hostshare_gather(ctx, TL_OK, TL_HOSTSHARE_DEVICE, r + 1, r == 1 ? 5 : 100, &share));
    s->by_device[r] = tl_hostshare_pool_of(&share, r);
    s->next_short[r] = tl_hostshare_next_short(&share, 0);
    s->next_short_after[r] = tl_hostshare_next_short(&share, 2);
    tl_hostshare_free(&share);
    TL_TRY(tl_hostshare_gather(ctx, TL_OK, TL_HOSTSHARE_HOST, r + 1, r == 1 ? 5 : 100, &share));
    s->by_host[r] = tl_hostshare_pool_of(&share, r);
    tl_hostshare_free(&share);
    /* the process's own room (its address-space limit): rank 0's 8 speaks
     * for the four thread ranks of its process, which need 10 */
    TL_TRY(tl_hostshare_gather_rooms(ctx, TL_OK, TL_HOSTSHARE_HOST, r + 1, 100, r == 0 ? 8 : 50, &share));
    s->by_process[r] = tl_hostshare_process_of(&share, r);
    s->process_short[r] = tl_hostshare_next_short_process(&share, 0);
    s->host_short[r] = tl_hostshare_next_short(&share, 0);
    tl_hostshare_free(&share);
    /* a rank that failed before the gather: none waits, nothing gathered */
    s->failed[r] = tl_hostshare_gather(ctx, r == 2 ? TL_ERR_IO : TL_OK, TL_HOSTSHARE_HOST, 1, 1, &share);
    TL_CHECK(!share.rank && !share.size, TL_ERR_INVAL, "rank %d: a table after a failure", r);
    return TL_OK;
}

TL_TEST(threads_hostshare_pools)
{
    pools_seen s;
    memset(&s, 0, sizeof s);
    tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 4, .timeout_s = 300, .no_gpu = 1};
    char *argv[] = {(char *)"test_launch", NULL};
    TL_ASSERT_EQ(tl_launch_run("test_launch", &lo, 1, argv, record_pools, &s), 0);
    for (int r = 0; r < 4; r++) {
        /* device 0: ranks 0 and 2 (1 + 3 against rank 0's 100); device 1:
         * ranks 1 and 3 (2 + 4 against rank 1's 5, short) */
        TL_ASSERT_EQ(s.by_device[r].first, r % 2);
        TL_ASSERT_EQ(s.by_device[r].nranks, 2);
        TL_ASSERT(s.by_device[r].need == (r % 2 ? 6.0 : 4.0));
        TL_ASSERT(s.by_device[r].room == (r % 2 ? 5.0 : 100.0));
        TL_ASSERT_EQ(s.next_short[r], 1);
        TL_ASSERT_EQ(s.next_short_after[r], -1);
        /* the host: all four (10 against rank 0's 100) */
        TL_ASSERT_EQ(s.by_host[r].first, 0);
        TL_ASSERT_EQ(s.by_host[r].nranks, 4);
        TL_ASSERT(s.by_host[r].need == 10.0 && s.by_host[r].room == 100.0);
        /* one process: its four ranks against rank 0's own room, short
         * where the host is not */
        TL_ASSERT_EQ(s.by_process[r].first, 0);
        TL_ASSERT_EQ(s.by_process[r].nranks, 4);
        TL_ASSERT(s.by_process[r].need == 10.0 && s.by_process[r].room == 8.0);
        TL_ASSERT_EQ(s.process_short[r], 0);
        TL_ASSERT_EQ(s.host_short[r], -1);
        TL_ASSERT_EQ(s.failed[r], r == 2 ? TL_ERR_IO : TL_ERR_REMOTE);
    }
}

/* ---- through helper_launch ---------------------------------------------------- */

static char out_buf[65536];

/* the command's output, stderr merged, in out_buf; its exit code */
#define RUN(...) tl_test_sh_to(out_buf, sizeof out_buf, __VA_ARGS__)

static const char *helper(void) { return tl_test_helper("helper_launch"); }

TL_TEST(threads_collectives)
{
    for (int n = 1; n <= 4; n *= 2) {
        TL_ASSERT_EQ(RUN("%s --launcher threads --ranks %d collectives", helper(), n), 0);
        char want[64];
        snprintf(want, sizeof want, "collectives ok on %d ranks (threads)", n);
        TL_ASSERT(strstr(out_buf, want));
    }
}

TL_TEST(threads_p2p_and_iallreduce)
{
    for (int n = 1; n <= 4; n *= 2) {
        TL_ASSERT_EQ(RUN("%s --launcher threads --ranks %d --iters 3000 p2p", helper(), n), 0);
        TL_ASSERT(strstr(out_buf, "p2p ok on"));
    }
}

TL_TEST(threads_agree_with_failing_rank)
{
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 4 --fail-rank 2 agree-fail", helper()), 1);
    TL_ASSERT(strstr(out_buf, "rank 2: agree: invalid argument"));
    TL_ASSERT(strstr(out_buf, "rank 0: agree: another rank failed"));
    TL_ASSERT(strstr(out_buf, "rank 1: agree: another rank failed"));
    TL_ASSERT(strstr(out_buf, "rank 3: agree: another rank failed"));
    /* the user's line: the message, no source position (that is --debug's) */
    TL_ASSERT(strstr(out_buf, "helper_launch: rank 2: induced failure\n"));
}

TL_TEST(threads_rank_failing_without_agree)
{
    int64_t t0 = tl_clock_ns();
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 4 --fail-rank 3 fail", helper()), 1);
    TL_ASSERT(strstr(out_buf, "rank 3: induced failure without agree"));
    TL_ASSERT(strstr(out_buf, "induced failure without agree"));
    TL_ASSERT((tl_clock_ns() - t0) < 5000000000LL);
}

TL_TEST(threads_stuck_ranks_are_given_up)
{
    /* the grace period shortened to 2 s (TRILAP_ABORT_GRACE_S; 10 s by default) */
    int64_t t0 = tl_clock_ns();
    TL_ASSERT_EQ(RUN("TRILAP_ABORT_GRACE_S=2 %s --launcher threads --ranks 3 --fail-rank 1 stuck", helper()), 1);
    TL_ASSERT(strstr(out_buf, "induced failure while the others compute"));
    TL_ASSERT(strstr(out_buf, "2 ranks are still running 2 s after rank 1 failed; aborting"));
    double s = (double)(tl_clock_ns() - t0) * 1e-9;
    TL_ASSERT(s >= 2.0 && s < 20.0);
}

TL_TEST(abort_grace_refused_when_invalid)
{
    static const char *const bad[] = {"0", "-1", "abc", "2s", "7200"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        TL_ASSERT_EQ(RUN("TRILAP_ABORT_GRACE_S=%s %s --launcher threads --ranks 2 collectives", bad[i], helper()), 2);
        char want[96];
        snprintf(want, sizeof want, "TRILAP_ABORT_GRACE_S='%s': seconds a failed rank waits", bad[i]);
        TL_ASSERT(strstr(out_buf, want));
        TL_ASSERT(!strstr(out_buf, "collectives ok"));
    }
    TL_ASSERT_EQ(RUN("TRILAP_ABORT_GRACE_S=0.5 %s --launcher threads --ranks 2 collectives", helper()), 0);
}

TL_TEST(threads_errors_are_reported)
{
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 2 mismatch", helper()), 1);
    TL_ASSERT(strstr(out_buf, "collective mismatch"));
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 2 truncate", helper()), 1);
    TL_ASSERT(strstr(out_buf, "does not fit"));
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 2 nosuch", helper()), 1);
    TL_ASSERT(strstr(out_buf, "unknown scenario 'nosuch'"));
    TL_ASSERT_EQ(RUN("%s --launcher bogus collectives", helper()), 2);
    TL_ASSERT(strstr(out_buf, "helper_launch: invalid --launcher 'bogus'"));
}

/* ---- MPI ---------------------------------------------------------------------- */

TL_TEST(mpi_collectives)
{
    const char *m = tl_test_mpirun();
    TL_ASSERT_EQ(RUN("%s -np 4 --oversubscribe %s collectives", m, helper()), 0);
    TL_ASSERT(strstr(out_buf, "collectives ok on 4 ranks (mpi)"));
}

TL_TEST(mpi_p2p_and_iallreduce)
{
    const char *m = tl_test_mpirun();
    TL_ASSERT_EQ(RUN("%s -np 4 --oversubscribe %s --iters 500 p2p", m, helper()), 0);
    TL_ASSERT(strstr(out_buf, "p2p ok on 4 ranks (mpi)"));
}

TL_TEST(mpi_agree_with_failing_rank)
{
    const char *m = tl_test_mpirun();
    TL_ASSERT(RUN("%s -np 4 --oversubscribe %s --fail-rank 1 agree-fail", m, helper()) != 0);
    TL_ASSERT(strstr(out_buf, "rank 1: agree: invalid argument"));
    TL_ASSERT(strstr(out_buf, "rank 0: agree: another rank failed"));
    TL_ASSERT(strstr(out_buf, "rank 3: agree: another rank failed"));
    TL_ASSERT(!strstr(out_buf, "MPI_ABORT")); /* agreed: a clean exit, no abort */
}

TL_TEST(mpi_rank_failing_without_agree_aborts)
{
    const char *m = tl_test_mpirun();
    int64_t t0 = tl_clock_ns();
    /* 2 s of grace instead of 10: mpirun passes the environment on */
    TL_ASSERT(RUN("TRILAP_ABORT_GRACE_S=2 %s -np 4 --oversubscribe %s --fail-rank 2 fail", m, helper()) != 0);
    TL_ASSERT(strstr(out_buf, "rank 2: induced failure"));
    TL_ASSERT(strstr(out_buf, "aborting the job"));
    TL_ASSERT((tl_clock_ns() - t0) < 60000000000LL);
}

TL_TEST(mpi_failed_rank_abort_removes_temporaries)
{
    /* rank 0 fails with an output unfinished, rank 1 computes past the
     * grace period: rank 0's final agreement times out and it aborts the
     * job. Before, MPI_Abort ended it with its temporary (out.csv.*.tmp)
     * and the folder made for it still there. */
    const char *m = tl_test_mpirun();
    const char *dir = tl_test_tmpdir();
    int64_t t0 = tl_clock_ns();
    TL_ASSERT(RUN("TRILAP_ABORT_GRACE_S=1 %s -np 2 --oversubscribe %s --fail-rank 0 --manifest %s/made/out.csv "
                  "fail-output",
                  m, helper(), dir) != 0);
    TL_ASSERT_MSG(strstr(out_buf, "induced failure with an output unfinished"), "%s", out_buf);
    TL_ASSERT_MSG(strstr(out_buf, "aborting the job"), "%s", out_buf);
    TL_ASSERT((tl_clock_ns() - t0) < 50000000000LL);
    char left[2048] = "";
    tl_test_sh_to(left, sizeof left, "cd %s && find . -mindepth 1 | sort | tr '\\n' ' '", dir);
    TL_ASSERT_MSG(left[0] == '\0', "after the abort, left in the output folder: %s", left);
}

TL_TEST(mpi_forced_threads_inside_mpirun)
{
    /* --launcher threads overrides the environment: each process is a whole run */
    const char *m = tl_test_mpirun();
    TL_ASSERT_EQ(RUN("%s -np 2 --oversubscribe %s --launcher threads --ranks 2 collectives", m, helper()), 0);
    TL_ASSERT(strstr(out_buf, "collectives ok on 2 ranks (threads)"));
}

TL_TEST(mpi_thread_count_refused)
{
    /* --ranks 4 under mpirun -np 2 ran 2 ranks after a note, exit 0 */
    const char *m = tl_test_mpirun();
    TL_ASSERT_EQ(RUN("%s -np 2 --oversubscribe %s --ranks 4 collectives", m, helper()), 2);
    const char *want = "--ranks 4: under mpirun every process is one rank and mpirun started 2; use mpirun -np 4, "
                       "or leave --ranks out\n";
    TL_ASSERT_MSG(tl_test_count(out_buf, want) == 1, "%s", out_buf);
    TL_ASSERT_MSG(!strstr(out_buf, "collectives ok"), "%s", out_buf);
    /* the count mpirun started is the run asked for */
    TL_ASSERT_EQ(RUN("%s -np 2 --oversubscribe %s --ranks 2 collectives", m, helper()), 0);
    TL_ASSERT(strstr(out_buf, "collectives ok on 2 ranks (mpi)"));
    /* --launcher mpi started by hand is MPI's singleton: no mpirun to name
     * (it said "mpirun started 1") */
    TL_ASSERT_EQ(RUN("%s --launcher mpi --ranks 4 collectives", helper()), 2);
    want = "--ranks 4 with --launcher mpi outside mpirun or srun: this process is one rank; use mpirun -np 4, or "
           "--launcher threads --ranks 4\n";
    TL_ASSERT_MSG(tl_test_count(out_buf, want) == 1 && !strstr(out_buf, "mpirun started"), "%s", out_buf);
}

TL_TEST(mpi_folder_made_by_one_rank)
{
    /* under mpirun a trace folder's parts were made by whichever rank came
     * first, each process removing only its own: ^C on 'mpirun -np 2
     * trilap-solve --trace k/tr' left an empty k three times in eight */
    const char *m = tl_test_mpirun();
    for (int n = 2; n <= 4; n += 2) {
        char top[512];
        snprintf(top, sizeof top, "%s/np%d", tl_test_tmpdir(), n);
        TL_ASSERT_EQ(RUN("%s -np %d --oversubscribe %s --manifest %s mkdir", m, n, helper(), top), 0);
        TL_ASSERT_MSG(strstr(out_buf, "mkdir ok on"), "%s", out_buf);
    }
    TL_ASSERT_EQ(RUN("%s --launcher threads --ranks 3 --manifest %s/threads mkdir", helper(), tl_test_tmpdir()), 0);
}

TL_TEST_MAIN(threads_in_process, threads_failing_rank_exit_code, threads_hostshare_pools, detect_from_environment, threads_collectives,
             threads_p2p_and_iallreduce, threads_agree_with_failing_rank, threads_rank_failing_without_agree,
             threads_stuck_ranks_are_given_up, abort_grace_refused_when_invalid, threads_errors_are_reported, mpi_collectives, mpi_p2p_and_iallreduce, mpi_agree_with_failing_rank,
             mpi_rank_failing_without_agree_aborts, mpi_failed_rank_abort_removes_temporaries,
             mpi_forced_threads_inside_mpirun,
             mpi_thread_count_refused, mpi_folder_made_by_one_rank)
