/* The runtime's device layer on one GPU: streams by role without NCCL, the
 * watched sync's deadline, the event timer against CUPTI, and device-buffer
 * communication over both providers, with ranks sharing the GPU over the
 * host-staged one (threads and mpirun). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "probes/trace.h"
#include "runtime/clock.h"
#include "runtime/gpu.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static char out_buf[65536];

/* the command's output, stderr merged, in out_buf; its exit code */
#define RUN(...) tl_test_sh_to(out_buf, sizeof out_buf, __VA_ARGS__)

static const char *helper(void) { return tl_test_helper("helper_gpu_runtime"); }

static void need_gpu(void)
{
    if (tl_gpu_count() == 0) TL_SKIP("no GPU visible");
}

TL_TEST(streams_by_role_without_nccl)
{
    need_gpu();
    TL_ASSERT_EQ(RUN("%s --gpus 1 streams", helper()), 0);
    TL_ASSERT(strstr(out_buf, "streams ok: 4 roles"));
}

TL_TEST(watched_sync_gives_up_after_the_deadline)
{
    need_gpu();
    int64_t t0 = tl_clock_ns();
    int rc = RUN("%s --gpus 1 --nccl-timeout 1 timeout", helper());
    double secs = (double)(tl_clock_ns() - t0) * 1e-9;
    TL_ASSERT_MSG(rc != 0, "the endless kernel run succeeded");
    TL_ASSERT(strstr(out_buf, "endless kernel: not finished after 1 s"));
    TL_ASSERT(strstr(out_buf, "watched sync returned 'timed out'"));
    /* the kernel itself runs 4 s: the process may wait for it at exit, not longer */
    TL_ASSERT_MSG(secs < 30, "took %.1f s", secs);
}

/* Sum of CUPTI durations of the spin kernels inside iterations, split by
 * length (1 ms and 0.1 ms). */
static void cupti_totals(const char *path, double *long_s, double *short_s, int *nlong, int *nshort)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "cupti_status"), "on");
    *long_s = *short_s = 0;
    *nlong = *nshort = 0;
    for (;;) {
        tl_trace_record x;
        int got = 0;
        TL_ASSERT_OK(tl_trace_reader_next(r, &x, &got));
        if (!got) break;
        if (x.kind != TL_KIND_KERNEL || !strstr(x.name, "tl_test_spin_kernel") || x.iter < 0) continue;
        double d = (double)(x.end_ns - x.start_ns) * 1e-9;
        if (d > 5e-4) *long_s += d, (*nlong)++;
        else *short_s += d, (*nshort)++;
    }
    tl_trace_reader_close(&r);
}

TL_TEST(event_timer_agrees_with_cupti)
{
    need_gpu();
    const char *dir = tl_test_tmpdir();
    TL_ASSERT_EQ(RUN("%s --gpus 1 --outdir %s evtimer", helper(), dir), 0);
    double ev_long = 0, ev_short = 0;
    const char *l = strstr(out_buf, "evtimer spin: count 12 total ");
    const char *s = strstr(out_buf, "evtimer short: count 12 total ");
    TL_ASSERT_MSG(l && s, "no evtimer lines in: %s", out_buf);
    ev_long = strtod(l + strlen("evtimer spin: count 12 total "), NULL);
    ev_short = strtod(s + strlen("evtimer short: count 12 total "), NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    double cu_long = 0, cu_short = 0;
    int nl = 0, ns = 0;
    cupti_totals(path, &cu_long, &cu_short, &nl, &ns);
    fprintf(stderr, "1 ms kernels: events %.6f s, CUPTI %.6f s (%d); 0.1 ms: events %.6f s, CUPTI %.6f s (%d)\n",
            ev_long, cu_long, nl, ev_short, cu_short, ns);
    TL_ASSERT_EQ(nl, 12);
    TL_ASSERT_EQ(ns, 12);
    TL_ASSERT_MSG(fabs(ev_long - cu_long) <= 0.05 * cu_long, "1 ms kernels: events %.6f s vs CUPTI %.6f s", ev_long,
                  cu_long);
    TL_ASSERT(ev_long >= 12 * 0.95e-3);
}

TL_TEST(host_staged_threads_2_and_4_ranks_share_the_gpu)
{
    need_gpu();
    for (int n = 2; n <= 4; n += 2) {
        TL_ASSERT_EQ(RUN("%s --launcher threads --ranks %d --device-comm host devcomm", helper(), n), 0);
        char want[96];
        snprintf(want, sizeof want, "devcomm host ok on %d ranks (threads, gpu shared=%d)", n, tl_gpu_count() < n);
        TL_ASSERT_MSG(strstr(out_buf, want), "want '%s' in: %s", want, out_buf);
    }
}

TL_TEST(host_staged_mpirun_2_and_4_ranks)
{
    need_gpu();
#if !TL_HAVE_MPI
    TL_SKIP("built without MPI");
#endif
    const char *m = tl_test_mpirun();
    for (int n = 2; n <= 4; n += 2) {
        TL_ASSERT_EQ(RUN("%s -np %d --oversubscribe %s --device-comm host devcomm", m, n, helper()), 0);
        char want[96];
        snprintf(want, sizeof want, "devcomm host ok on %d ranks (mpi", n);
        TL_ASSERT_MSG(strstr(out_buf, want), "want '%s' in: %s", want, out_buf);
    }
}

TL_TEST(host_staged_one_rank_and_large_messages)
{
    need_gpu();
    TL_ASSERT_EQ(RUN("%s --gpus 1 --device-comm host devcomm", helper()), 0);
    TL_ASSERT(strstr(out_buf, "devcomm host ok on 1 ranks"));
    TL_ASSERT_EQ(RUN("%s --ranks 2 --device-comm host --count 4M devcomm", helper()), 0);
}

TL_TEST(nccl_provider_on_one_gpu)
{
    need_gpu();
#if !TL_HAVE_NCCL
    TL_SKIP("built without NCCL");
#endif
    TL_ASSERT_EQ(RUN("%s --gpus 1 --device-comm nccl devcomm", helper()), 0);
    TL_ASSERT(strstr(out_buf, "devcomm nccl ok on 1 ranks (threads, gpu shared=0)"));
}

TL_TEST(nccl_refuses_shared_gpus_clearly)
{
    need_gpu();
    if (tl_gpu_count() > 1) TL_SKIP("needs ranks to outnumber GPUs");
    TL_ASSERT_EQ(RUN("%s --ranks 2 --device-comm nccl devcomm", helper()), 2);
    TL_ASSERT_MSG(strstr(out_buf, "only 1 GPU is visible; use fewer ranks, --device-comm host"), "%s", out_buf);
}

TL_TEST_MAIN(streams_by_role_without_nccl, watched_sync_gives_up_after_the_deadline, event_timer_agrees_with_cupti,
             host_staged_threads_2_and_4_ranks_share_the_gpu, host_staged_mpirun_2_and_4_ranks,
             host_staged_one_rank_and_large_messages, nccl_provider_on_one_gpu, nccl_refuses_shared_gpus_clearly)
