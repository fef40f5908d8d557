/* Clock alignment across ranks on one machine: TRILAP_TEST_CLOCK_SKEW puts
 * one rank's clock 5 s (or -3 ms) ahead, the probes measure every rank's
 * offset to rank 0 at start and stop, and
 *   - the measured offset recovers the skew to within the measured
 *     uncertainty (the ranks really share one clock),
 *   - trilap-analyze puts the skewed rank back on rank 0's clock: the
 *     iterations, which start together after barriers, start together
 *     again (within the uncertainty plus the barrier's own spread),
 *   - --raw-clock leaves them 5 s apart,
 *   - bad clock metadata is refused naming file and key,
 *   - the drift the probes write from two noisy offsets over a short
 *     session reads back.
 * Thread ranks always; MPI ranks when mpirun is there. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "tl_test.h"
#include "tl_test_run.h"

#include "analysis/analysis.h"
#include "probes/clock_align.h"
#include "probes/trace.h"
#include "runtime/clock.h"
#include "runtime/comm_impl.h"

enum { MAXIT = 64 };
typedef struct iters {
    int64_t start[MAXIT];
    int n;
} iters;

static tl_status keep_iter(void *user, const tl_trace_record *r)
{
    iters *it = user;
    if (r->kind == TL_KIND_HOST && !strcmp(r->name, "iter") && r->iter >= 0 && r->iter < MAXIT) {
        it->start[r->iter] = r->start_ns;
        if (r->iter + 1 > it->n) it->n = (int)r->iter + 1;
    }
    return TL_OK;
}

/* Scans rank r's trace of dir (aligned unless raw) into it and meta. */
static void scan(const char *dir, int r, int raw, iters *it, tl_an_meta *m)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
    memset(it, 0, sizeof *it);
    TL_ASSERT_OK(tl_an_scan(p, raw ? TL_AN_RAW_CLOCK : 0, keep_iter, it, m));
}

/* the largest |start of iteration k on rank r - on rank 0| */
static int64_t max_gap(const iters *a, const iters *b)
{
    int64_t g = 0;
    TL_ASSERT_EQ(a->n, b->n);
    for (int k = 0; k < a->n; k++) {
        int64_t d = a->start[k] - b->start[k];
        if (d < 0) d = -d;
        if (d > g) g = d;
    }
    return g;
}

/* Rank r's metadata value of key, as the probes wrote it (NULL: absent;
 * static storage). */
static const char *meta_of(const char *dir, int r, const char *key)
{
    static char v[256];
    char p[600];
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
    tl_trace_reader *rd = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&rd, p, 0));
    const char *s = tl_trace_reader_meta(rd, key);
    if (s) snprintf(v, sizeof v, "%s", s);
    tl_trace_reader_close(&rd);
    return s ? v : NULL;
}

/* Seconds between rank r's two offset measurements (trace metadata). */
static double clock_span_s(const char *dir, int r)
{
    char p[600];
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
    tl_trace_reader *rd = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&rd, p, 0));
    const char *a = tl_trace_reader_meta(rd, "clock_offset_at_ns"), *b = tl_trace_reader_meta(rd, "clock_offset_end_at_ns");
    double span = a && b ? (strtod(b, NULL) - strtod(a, NULL)) * 1e-9 : 0;
    tl_trace_reader_close(&rd);
    return span;
}

static void check_run(const char *dir, int nranks, int skew_rank, int64_t skew, const char *method)
{
    iters i0, ir, raw;
    tl_an_meta m0, mr, mraw;
    scan(dir, 0, 0, &i0, &m0);
    TL_ASSERT_STREQ(m0.clock_sync, "reference");
    TL_ASSERT(!m0.clock_aligned);
    TL_ASSERT_EQ(i0.n, 20);
    for (int r = 1; r < nranks; r++) {
        scan(dir, r, 0, &ir, &mr);
        scan(dir, r, 1, &raw, &mraw);
        TL_ASSERT_STREQ(mr.clock_sync, method);
        int64_t want = r == skew_rank ? skew : 0;
        /* a rank the skew left alone reads rank 0's very clock: its offset,
         * measured with the others', is within its uncertainty of 0 and
         * not applied (threads of one process) */
        TL_ASSERT_MSG(mr.clock_aligned == (want != 0), "rank %d: skew %lld, aligned %d", r, (long long)want,
                      mr.clock_aligned);
        TL_ASSERT_STREQ(mr.clock_shared, want ? "" : "process");
        const char *measured = meta_of(dir, r, "clock_offset_ns");
        TL_ASSERT(measured);
        int64_t offset = strtoll(measured, NULL, 10);
        /* 1. the offset recovers the skew within its own uncertainty */
        int64_t err = offset - want;
        printf("%s rank %d: skew %lld ns, measured %lld ns +- %lld ns (error %lld ns), drift %.1f ppb\n", method, r,
               (long long)want, (long long)offset, (long long)mr.clock_unc, (long long)err, mr.clock_drift_ppb);
        TL_ASSERT_MSG(err <= mr.clock_unc && -err <= mr.clock_unc, "rank %d: offset %lld, skew %lld, uncertainty %lld",
                      r, (long long)offset, (long long)want, (long long)mr.clock_unc);
        TL_ASSERT(mr.clock_unc > 0 && mr.clock_unc < 50000000);
        /* one machine, one clock: no drift beyond what the two measurements'
         * uncertainty allows over the time between them (a loaded machine
         * widens both; a fixed bound made this test flaky) */
        double dt_s = mr.clock_aligned ? clock_span_s(dir, r) : 0;
        double drift_bound = dt_s > 0 ? 2.0 * (double)mr.clock_unc / dt_s : 1e9;
        TL_ASSERT_MSG(mr.clock_drift_ppb >= -drift_bound - 1e3 && mr.clock_drift_ppb <= drift_bound + 1e3,
                      "drift %g ppb, allowed %g ppb (uncertainty %lld ns over %.3f s)", mr.clock_drift_ppb,
                      drift_bound, (long long)mr.clock_unc, dt_s);
        /* 2. aligned: the iterations start together again */
        int64_t g = max_gap(&ir, &i0);
        printf("%s rank %d: iterations start within %lld ns of rank 0's (aligned)\n", method, r, (long long)g);
        TL_ASSERT_MSG(g <= mr.clock_unc + 20000000, "aligned iterations %lld ns apart (uncertainty %lld ns)",
                      (long long)g, (long long)mr.clock_unc);
        /* 3. raw: the skew is still there */
        int64_t gr = max_gap(&raw, &i0);
        if (want) TL_ASSERT_MSG(gr >= (want > 0 ? want : -want) - 20000000, "raw gap %lld", (long long)gr);
        /* the window moved with the records */
        TL_ASSERT(mraw.w0 - mr.w0 >= want - mr.clock_unc - 1000000 && mraw.w0 - mr.w0 <= want + mr.clock_unc + 1000000);
    }
}

TL_TEST(threads_skew_recovered)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("TRILAP_TEST_CLOCK_SKEW=1:5000000000 %s/tests/helper_clock_skew --launcher threads --ranks 3 "
                    "--no-gpu %s > %s/log 2>&1",
                    tl_test_build(), t, t),
                 0);
    check_run(t, 3, 1, 5000000000LL, "threads-pingpong");
    /* a negative skew, on the last rank */
    char d2[600];
    snprintf(d2, sizeof d2, "%s/neg", t);
    TL_ASSERT_EQ(tl_test_sh("TRILAP_TEST_CLOCK_SKEW=2:-3000000 %s/tests/helper_clock_skew --launcher threads --ranks 3 "
                    "--no-gpu %s > %s/log2 2>&1",
                    tl_test_build(), d2, t),
                 0);
    check_run(d2, 3, 2, -3000000LL, "threads-pingpong");
}

TL_TEST(mpi_skew_recovered)
{
    const char *m = tl_test_mpirun();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s -np 2 --oversubscribe -x TRILAP_TEST_CLOCK_SKEW=1:5000000000 %s/tests/helper_clock_skew "
                    "--no-gpu %s > %s/log 2>&1",
                    m, tl_test_build(), t, t),
                 0);
    check_run(t, 2, 1, 5000000000LL, "mpi-pingpong");
}

/* Thread ranks of one process read one clock: the probes measure no
 * offset (clock_shared=process, clock_sync=none), the analysis applies
 * none and says one clock (before: threads-pingpong offsets of +-25 us
 * and drifts of 10^4 ppb applied, "ranks aligned to rank 0's clock"). */
TL_TEST(threads_share_one_clock)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/tests/helper_clock_skew --launcher threads --ranks 3 --no-gpu %s > %s/log 2>&1",
                            tl_test_build(), t, t),
                 0);
    for (int r = 0; r < 3; r++) {
        const char *sh = meta_of(t, r, "clock_shared");
        TL_ASSERT_MSG(sh && !strcmp(sh, "process"), "rank %d: clock_shared=%s", r, sh ? sh : "(absent)");
        TL_ASSERT(!meta_of(t, r, "clock_offset_ns"));
        iters it;
        tl_an_meta m;
        scan(t, r, 0, &it, &m);
        TL_ASSERT(!m.clock_aligned);
        TL_ASSERT_STREQ(m.clock_shared, "process");
        TL_ASSERT_EQ(it.n, 20);
    }
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/ov.txt 2>&1", tl_test_bin(), t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '^# clock: .*threads of one process.*one clock, no offsets needed' %s/ov.txt && "
                            "! grep -q \"clock put on rank 0's\" %s/ov.txt",
                            t, t),
                 0);
}

/* MPI ranks of one host read its one CLOCK_MONOTONIC (same boot, same time
 * namespace): the probes still measure, the offsets stay in the metadata
 * (within their uncertainty of 0) with clock_shared=host, and the
 * analysis applies none (before: applied as if the clocks differed). */
TL_TEST(mpi_one_host_shares_clock)
{
    const char *m = tl_test_mpirun();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s -np 2 --oversubscribe %s/tests/helper_clock_skew --no-gpu %s > %s/log 2>&1", m,
                            tl_test_build(), t, t),
                 0);
    const char *sh = meta_of(t, 1, "clock_shared");
    TL_ASSERT_MSG(sh && !strcmp(sh, "host"), "clock_shared=%s", sh ? sh : "(absent)");
    const char *off = meta_of(t, 1, "clock_offset_ns");
    TL_ASSERT(off);
    int64_t offset = strtoll(off, NULL, 10);
    iters it;
    tl_an_meta mr;
    scan(t, 1, 0, &it, &mr);
    TL_ASSERT_STREQ(mr.clock_sync, "mpi-pingpong");
    TL_ASSERT(!mr.clock_aligned);
    TL_ASSERT_MSG(offset <= mr.clock_unc && -offset <= mr.clock_unc, "offset %lld +- %lld", (long long)offset,
                  (long long)mr.clock_unc);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/ov.txt 2>&1", tl_test_bin(), t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q '^# clock: .*one host.*one clock, no offsets needed' %s/ov.txt", t), 0);
}

/* the analysis commands use the aligned clock and say so */
TL_TEST(analysis_reports_alignment)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("TRILAP_TEST_CLOCK_SKEW=1:5000000000 %s/tests/helper_clock_skew --launcher threads --ranks 2 "
                    "--no-gpu %s > %s/log 2>&1",
                    tl_test_build(), t, t),
                 0);
    char dir[600];
    snprintf(dir, sizeof dir, "%s", t);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/ov.txt 2>&1", tl_test_bin(), dir, dir), 0);
    /* "clock put on rank 0's: offset 5000000.123 us +- 2.5 us": the skew within the uncertainty */
    TL_ASSERT_EQ(tl_test_sh("grep \"rank: 1 \" %s/ov.txt | sed -n \"s/.*clock put on rank 0's: offset \\([-0-9.]*\\) us +- "
                    "\\([0-9.]*\\) us.*/\\1 \\2/p\" | awk '{d = $1 - 5000000; if (d < 0) d = -d; exit !(NF == 2 && d <= $2)}'",
                    dir),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap --raw-clock %s > %s/ov2.txt 2>&1", tl_test_bin(), dir, dir), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q 'own clock (--raw-clock)' %s/ov2.txt", dir), 0);
}

/* a rank whose probes fail to start: the others neither wait for it nor
 * align (clock_sync=none), at start and at stop */
TL_TEST(rank_without_probes)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("timeout 60 %s/tests/helper_clock_skew --launcher threads --ranks 3 --no-gpu --bad-rank 1 %s "
                    "> %s/log 2>&1",
                    tl_test_build(), t, t),
                 0);
    for (int r = 0; r < 3; r += 2) {
        iters it;
        tl_an_meta m;
        scan(t, r, 0, &it, &m);
        TL_ASSERT_STREQ(m.clock_sync, "none");
        TL_ASSERT(!m.clock_aligned);
        TL_ASSERT_EQ(it.n, 20);
    }
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/trace.rank1.csv", t), 0);
}

/* ---- a start that failed between rank 0 and one rank ------------------------ */

/* The thread ranks' host messages (comm_threads.c), except that a message
 * between rank 0 and rank `cut` fails on both sides at once, as a link
 * that broke would: rank 0's start exchange with that rank fails after
 * the ranks before it finished theirs. With `one_side` set, only the
 * messages posted by rank 0 (one_side 1) or by rank `cut` (one_side 2)
 * fail, and only those after its first `after` on that link: that rank
 * stops in the middle of the ping-pong rounds while its peer, whose own
 * calls work, waits for the next message. */
typedef struct cut_comm {
    tl_hostcomm base;
    tl_hostcomm *inner;
    int cut, one_side, after;
    int posted; /* messages this rank posted on the cut link (its thread only) */
} cut_comm;

static tl_hostcomm *inner_of(tl_hostcomm *hc) { return ((cut_comm *)hc)->inner; }

static int link_cut(tl_hostcomm *hc, int peer)
{
    cut_comm *c = (cut_comm *)hc;
    if (c->cut <= 0 || !((hc->rank == 0 && peer == c->cut) || (hc->rank == c->cut && peer == 0))) return 0;
    if (!c->one_side) return 1;
    return hc->rank == (c->one_side == 1 ? 0 : c->cut) && ++c->posted > c->after;
}

static tl_status cut_barrier(tl_hostcomm *hc) { return inner_of(hc)->ops->barrier(inner_of(hc)); }

static tl_status cut_allreduce(tl_hostcomm *hc, void *buf, size_t count, tl_dtype t, tl_op op)
{
    return inner_of(hc)->ops->allreduce(inner_of(hc), buf, count, t, op);
}

static tl_status cut_isend(tl_hostcomm *hc, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                           tl_request **req)
{
    if (link_cut(hc, peer)) return TL_FAIL(TL_ERR_IO, "rank %d -> rank %d: link cut (test)", hc->rank, peer);
    return inner_of(hc)->ops->isend(inner_of(hc), ch, buf, bytes, peer, tag, req);
}

static tl_status cut_irecv(tl_hostcomm *hc, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                           tl_request **req)
{
    if (link_cut(hc, peer)) return TL_FAIL(TL_ERR_IO, "rank %d <- rank %d: link cut (test)", hc->rank, peer);
    return inner_of(hc)->ops->irecv(inner_of(hc), ch, buf, bytes, peer, tag, req);
}

static tl_status cut_wait(tl_hostcomm *hc, tl_request *req) { return inner_of(hc)->ops->wait(inner_of(hc), req); }

static tl_status cut_wait_for(tl_hostcomm *hc, tl_request *req, double timeout_s)
{
    return inner_of(hc)->ops->wait_for(inner_of(hc), req, timeout_s);
}

static int cut_peer_failed(tl_hostcomm *hc) { return inner_of(hc)->ops->peer_failed(inner_of(hc)); }

static const tl_comm_ops cut_ops = {.name = "threads-cut",
                                    .barrier = cut_barrier,
                                    .allreduce = cut_allreduce,
                                    .isend = cut_isend,
                                    .irecv = cut_irecv,
                                    .wait = cut_wait,
                                    .wait_for = cut_wait_for,
                                    .peer_failed = cut_peer_failed};

enum { CUT_RANKS = 3 };

typedef struct cut_rank {
    tl_ctx ctx;
    cut_comm comm;
    tl_clock_align ca;
    tl_status start, stop;
    int done; /* written under the mutex of the run */
    pthread_mutex_t *mu;
} cut_rank;

static void *cut_rank_main(void *arg)
{
    cut_rank *r = arg;
    r->start = tl_clock_align_start(&r->ctx, &r->ca);
    r->stop = tl_clock_align_stop(&r->ctx, &r->ca);
    pthread_mutex_lock(r->mu);
    r->done = 1;
    pthread_mutex_unlock(r->mu);
    return NULL;
}

/* Three thread ranks measure at start and stop over a comm whose link
 * between rank 0 and rank `cut` (0: none) fails; *finished: the ranks
 * done within 20 s (a rank still waiting is left behind: the process
 * ends with the test). */
static void cut_run(int cut, int one_side, cut_rank *rk, int *finished)
{
    /* a skewed rank, so that thread ranks measure at all (one_process) */
    setenv("TRILAP_TEST_CLOCK_SKEW", "1:1000000", 1);
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    tl_threadcomm_shared *sh = NULL;
    TL_ASSERT_OK(tl_threadcomm_shared_create(CUT_RANKS, &sh));
    pthread_t tid[CUT_RANKS];
    for (int i = 0; i < CUT_RANKS; i++) {
        /* timeout_s: a second's patience, not the 10 s of its own (the
         * stopped exchanges below wait it out twice) */
        rk[i] = (cut_rank){.ctx = {.program = "test_clock_align", .rank = i, .size = CUT_RANKS, .device = -1,
                                   .mode = TL_LAUNCH_THREADS, .timeout_s = 1},
                           .mu = &mu};
        TL_ASSERT_OK(tl_threadcomm_create(sh, i, &rk[i].comm.inner));
        rk[i].comm.base = (tl_hostcomm){.ops = &cut_ops, .rank = i, .size = CUT_RANKS};
        rk[i].comm.cut = cut;
        rk[i].comm.one_side = one_side;
        rk[i].comm.after = 4; /* one_side: rank 0's third ping, or rank 1's receive of it, fails */
        rk[i].ctx.hc = &rk[i].comm.base;
    }
    for (int i = 0; i < CUT_RANKS; i++) TL_ASSERT_EQ(pthread_create(&tid[i], NULL, cut_rank_main, &rk[i]), 0);
    int64_t t0 = tl_clock_ns();
    for (;;) {
        pthread_mutex_lock(&mu);
        *finished = 0;
        for (int i = 0; i < CUT_RANKS; i++) *finished += rk[i].done;
        pthread_mutex_unlock(&mu);
        if (*finished == CUT_RANKS || tl_clock_ns() - t0 > 20000000000LL) break;
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
    if (*finished < CUT_RANKS) return;
    for (int i = 0; i < CUT_RANKS; i++) {
        pthread_join(tid[i], NULL);
        tl_hostcomm *in = rk[i].comm.inner;
        tl_hostcomm_destroy(&in);
    }
    tl_threadcomm_shared_destroy(&sh);
}

/* Rank 0's start exchange with rank 2 fails after rank 1's finished: rank
 * 1, measured at start, waited at stop for a ping rank 0 never sends
 * (rank 0 unmeasured skips its stop). The failure is agreed at start now:
 * no rank measures again, every trace keeps its own clock. */
TL_TEST(start_failed_after_a_rank_finished)
{
    cut_rank rk[CUT_RANKS];
    int finished = 0;
    cut_run(0, 0, rk, &finished); /* the fake comm itself, uncut: both measurements on every rank */
    TL_ASSERT_EQ(finished, CUT_RANKS);
    for (int i = 0; i < CUT_RANKS; i++) {
        TL_ASSERT_OK(rk[i].start);
        TL_ASSERT_OK(rk[i].stop);
        TL_ASSERT_EQ(rk[i].ca.nsamples, 2);
    }
    cut_run(2, 0, rk, &finished);
    TL_ASSERT_MSG(finished == CUT_RANKS, "only %d of %d ranks finished start and stop within 20 s (rank 1 done: %d)",
                  finished, CUT_RANKS, rk[1].done);
    for (int i = 0; i < CUT_RANKS; i++) {
        TL_ASSERT_MSG(rk[i].start != TL_OK, "rank %d: start said ok though rank 0's exchange with rank 2 failed", i);
        TL_ASSERT_OK(rk[i].stop);
        TL_ASSERT_MSG(rk[i].ca.nsamples == 0, "rank %d: %d samples after a failed start", i, rk[i].ca.nsamples);
        TL_ASSERT_STREQ(rk[i].ca.method, "none");
    }
}

/* One side of the exchange between rank 0 and rank 1 stops in the middle
 * of the rounds, its peer's calls still working: rank 0's sends to rank 1
 * failing from its third ping on (rank 1 waited for that ping, and rank 2
 * for its first, while rank 0 waited in the agreement: all three hung),
 * or rank 1's (rank 0 waited for its answer). Every rank comes out, within
 * the measurement's patience, unmeasured. */
TL_TEST(exchange_stopped_on_one_side)
{
    for (int side = 1; side <= 2; side++) {
        cut_rank rk[CUT_RANKS];
        int finished = 0;
        int64_t t0 = tl_clock_ns();
        cut_run(1, side, rk, &finished);
        double took_s = (double)(tl_clock_ns() - t0) * 1e-9;
        TL_ASSERT_MSG(finished == CUT_RANKS,
                      "rank %d's side failing: only %d of %d ranks finished start and stop within 20 s "
                      "(done: rank 0 %d, rank 1 %d, rank 2 %d)",
                      side == 1 ? 0 : 1, finished, CUT_RANKS, rk[0].done, rk[1].done, rk[2].done);
        printf("rank %d's side failing: every rank out in %.1f s\n", side == 1 ? 0 : 1, took_s);
        /* a second's patience (ctx.timeout_s) waited out, not the own 10 s */
        TL_ASSERT_MSG(took_s < 8, "rank %d's side failing: %.1f s, past the 1 s patience the run allowed",
                      side == 1 ? 0 : 1, took_s);
        for (int i = 0; i < CUT_RANKS; i++) {
            TL_ASSERT_MSG(rk[i].start != TL_OK, "rank %d: start said ok though an exchange stopped", i);
            TL_ASSERT_OK(rk[i].stop);
            TL_ASSERT_MSG(rk[i].ca.nsamples == 0, "rank %d: %d samples after a failed start", i, rk[i].ca.nsamples);
            TL_ASSERT_STREQ(rk[i].ca.method, "none");
        }
    }
}

/* The exchange's own patience, unless the run allows a wait less
 * (--nccl-timeout, ctx->timeout_s): the launcher's default (300 s) leaves
 * the own. */
TL_TEST(patience_bounded_by_the_run_timeout)
{
    tl_ctx ctx = {.size = 4};
    TL_ASSERT(fabs(tl_clock_align_patience_s(&ctx) - 10.04) < 1e-9);
    ctx.timeout_s = 300;
    TL_ASSERT(fabs(tl_clock_align_patience_s(&ctx) - 10.04) < 1e-9);
    ctx.timeout_s = 2;
    TL_ASSERT(fabs(tl_clock_align_patience_s(&ctx) - 2.0) < 1e-9);
}

TL_TEST(bad_clock_metadata)
{
    const char *t = tl_test_tmpdir();
    static const char *const bad[][2] = {
        {"# clock_offset_ns=12x\n# clock_offset_at_ns=5\n", "clock_offset_ns='12x' is not an integer"},
        {"# clock_offset_ns=12\n", "clock_offset_ns and clock_offset_at_ns come together"},
        {"# clock_offset_ns=12\n# clock_offset_at_ns=5\n# clock_drift_ppb=fast\n", "clock_drift_ppb='fast'"},
        {"# clock_offset_ns=12\n# clock_offset_at_ns=5\n# clock_uncertainty_ns=-4\n", "negative"},
        {"# clock_shared=maybe\n", "clock_shared='maybe' is neither process nor host"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/trace.rank0.csv", t);
        FILE *f = fopen(p, "w");
        TL_ASSERT(f);
        fprintf(f, "# format=trilap-trace\n# version=1\n# rank=0\n%s"
                   "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
                   "0,0,1,compute,compute,kernel,k,100,200,1,-1,0\n",
                bad[k][0]);
        fclose(f);
        TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/out 2> %s/err", tl_test_bin(), t, t, t), 1);
        TL_ASSERT_EQ(tl_test_sh("grep -q \"trace.rank0.csv: .*%s\" %s/err", bad[k][1], t), 0);
    }
    /* a good one: applied with its drift, t - (offset + (t - at) * ppb / 1e9) */
    char p[1024];
    snprintf(p, sizeof p, "%s/trace.rank0.csv", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "# format=trilap-trace\n# version=1\n# rank=0\n# clock_sync=mpi-pingpong\n"
               "# clock_offset_ns=1000\n# clock_offset_at_ns=0\n# clock_drift_ppb=1000000\n"
               "# clock_uncertainty_ns=7\n"
               "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
               "0,-1,0,host,range,host,iter,1000000,2000000,0,-1,0\n");
    fclose(f);
    iters it;
    tl_an_meta m;
    scan(t, 0, 0, &it, &m);
    /* at t = 1e6: offset 1000 + 1e6 * 1e-3 = 2000 */
    TL_ASSERT_EQ(it.start[0], 1000000 - 2000);
    TL_ASSERT_EQ(m.clock_unc, 7);
    /* rank 0's very clock: offsets kept for reading, not applied; a thread
     * rank's of a trace written before clock_shared, within its
     * uncertainty of 0, is the exchange's noise (one process, one clock),
     * one beyond it (the test skew) applied */
    static const struct {
        const char *meta;
        int64_t start;
        const char *shared;
    } kept[] = {
        {"# clock_sync=mpi-pingpong\n# clock_shared=host\n# clock_offset_ns=1000\n# clock_offset_at_ns=0\n"
         "# clock_uncertainty_ns=1200\n", 1000000, "host"},
        {"# clock_sync=threads-pingpong\n# clock_offset_ns=12354\n# clock_offset_at_ns=0\n"
         "# clock_offset_end_ns=-20000\n# clock_offset_end_at_ns=900000\n# clock_drift_ppb=-42370.6\n"
         "# clock_uncertainty_ns=25419\n", 1000000, "process"},
        {"# clock_sync=threads-pingpong\n# clock_offset_ns=12354\n# clock_offset_at_ns=0\n"
         "# clock_offset_end_ns=-30000\n# clock_offset_end_at_ns=900000\n# clock_uncertainty_ns=25419\n",
         1000000 - 12354, ""},
        {"# clock_sync=threads-pingpong\n# clock_offset_ns=5000\n# clock_offset_at_ns=0\n"
         "# clock_uncertainty_ns=2500\n", 1000000 - 5000, ""},
    };
    for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
        f = fopen(p, "w");
        TL_ASSERT(f);
        fprintf(f, "# format=trilap-trace\n# version=1\n# rank=0\n%s"
                   "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
                   "0,-1,0,host,range,host,iter,1000000,2000000,0,-1,0\n",
                kept[k].meta);
        fclose(f);
        scan(t, 0, 0, &it, &m);
        TL_ASSERT_MSG(it.start[0] == kept[k].start, "case %zu: start %lld, want %lld", k, (long long)it.start[0],
                      (long long)kept[k].start);
        TL_ASSERT_STREQ(m.clock_shared, kept[k].shared);
        TL_ASSERT_EQ(m.clock_aligned, !kept[k].shared[0]);
    }
}

/* Two offsets measured, each right to within its uncertainty, over a short
 * session: their difference is noise, and the drift the probes write from
 * it, (40 us) / (300 us) = 1.3e8 ppb, must still be a trace the analysis
 * reads; here a rank of rank 0's very clock (clock_shared=host, nothing
 * applied) and a rank of another host. */
TL_TEST(noisy_short_drift_read_back)
{
    const char *t = tl_test_tmpdir();
    static const char *const shared[] = {"host", NULL};
    for (int k = 0; k < 2; k++) {
        tl_clock_align ca = {.nsamples = 2, .method = "mpi-pingpong", .shared = shared[k]};
        ca.s[0] = (tl_clock_sample){.offset = -20000, .at = 1000000, .rtt = 50000, .unc = 25000};
        ca.s[1] = (tl_clock_sample){.offset = 20000, .at = 1300000, .rtt = 50000, .unc = 25000};
        char p[1024];
        snprintf(p, sizeof p, "%s/trace.rank1.csv", t);
        tl_trace_writer *w = NULL;
        TL_ASSERT_OK(tl_trace_writer_open(&w, p));
        TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
        TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
        TL_ASSERT_OK(tl_trace_writer_meta(w, "rank", "1"));
        TL_ASSERT_OK(tl_clock_align_meta(&ca, w));
        TL_ASSERT_OK(tl_trace_writer_meta(w, "complete", "yes"));
        tl_trace_record r = {.rank = 1, .device = -1, .lane = TL_ROLE_HOST, .cat = TL_CAT_RANGE,
                             .kind = TL_KIND_HOST, .name = "iter", .start_ns = 1100000, .end_ns = 1200000,
                             .bytes = -1, .iter = 0};
        TL_ASSERT_OK(tl_trace_writer_record(w, &r));
        TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
        printf("clock_drift_ppb=%s (%s)\n", meta_of(t, 1, "clock_drift_ppb"), shared[k] ? shared[k] : "other host");
        iters it;
        tl_an_meta m;
        memset(&it, 0, sizeof it);
        tl_status st = tl_an_scan(p, 0, keep_iter, &it, &m);
        TL_ASSERT_MSG(st == TL_OK, "%s: the analysis refuses the drift the probes wrote",
                      shared[k] ? shared[k] : "other host");
        /* inside the measured span the correction stays within the two
         * offsets' uncertainty */
        TL_ASSERT(it.start[0] >= 1100000 - 25000 - 20000 && it.start[0] <= 1100000 + 25000 + 20000);
    }
}

TL_TEST_MAIN(threads_skew_recovered, mpi_skew_recovered, analysis_reports_alignment, rank_without_probes,
             bad_clock_metadata, threads_share_one_clock, mpi_one_host_shares_clock,
             noisy_short_drift_read_back, start_failed_after_a_rank_finished, exchange_stopped_on_one_side,
             patience_bounded_by_the_run_timeout)
