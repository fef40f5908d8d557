/* Multi-rank truth (DESIGN.md "Wave 3"): which rank a GPU record belongs to
 * when ranks share a GPU and a process (probes_owner.c), which
 * communication a copy serves (the host ranges it was enqueued in), the
 * communication classes of copies and host marks, operations matched across
 * ranks split into waiting and transfer, and the diagnosis rules of
 * multi-rank runs, each fired where planted and silent where not. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "probes/rank_state.h"
#include "runtime/role.h"
#include "tl_test.h"
#include "tl_test_run.h"

/* ---- attribution ---------------------------------------------------------- */

TL_TEST(owner_shared_gpu)
{
    /* two thread ranks on device 0 (streams 13/14 and 15/16), one on device 1 */
    tl_probe_streamreg s0[] = {{.device = 0, .id = 13}, {.device = 0, .id = 14}};
    tl_probe_streamreg s1[] = {{.device = 0, .id = 15}, {.device = 0, .id = 16}};
    tl_probe_streamreg s2[] = {{.device = 1, .id = 13}};
    tl_owner_rank ranks[] = {{.rank = 0, .device = 0, .tid = 100, .streams = s0, .nstreams = 2},
                             {.rank = 1, .device = 0, .tid = 101, .streams = s1, .nstreams = 2},
                             {.rank = 2, .device = 1, .tid = 102, .streams = s2, .nstreams = 1}};
    tl_probe_owners o = {.ranks = ranks, .n = 3};
    tl_owner_rule rule;
    /* alone on its device: the device decides */
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 1, 99, 0, &rule), 2);
    TL_ASSERT_EQ(rule, TL_OWN_DEVICE);
    /* a registered stream decides between ranks sharing device 0 */
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 0, 13, 101, &rule), 0);
    TL_ASSERT_EQ(rule, TL_OWN_STREAM);
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 0, 16, 0, &rule), 1);
    /* an unregistered stream (the legacy default stream): the launching thread */
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 0, 7, 101, &rule), 1);
    TL_ASSERT_EQ(rule, TL_OWN_THREAD);
    /* no launch known: the stream's vote, else the lowest rank, said */
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 0, 7, 0, &rule), 0);
    TL_ASSERT_EQ(rule, TL_OWN_GUESS);
    TL_ASSERT_OK(tl_probe_owner_vote(&o, 0, 7, 1));
    TL_ASSERT_OK(tl_probe_owner_vote(&o, 0, 7, 1));
    TL_ASSERT_OK(tl_probe_owner_vote(&o, 0, 7, 0));
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 0, 7, 0, &rule), 1);
    TL_ASSERT_EQ(rule, TL_OWN_VOTE);
    /* a device no rank of the round runs on */
    TL_ASSERT_EQ(tl_probe_owner_of(&o, 5, 13, 0, &rule), -1);
    tl_probe_owners_free(&o);
}

TL_TEST(owner_every_record_once)
{
    /* four ranks on one GPU, random records: each lands on exactly one rank,
     * and on the right one whenever its stream or thread says */
    tl_probe_streamreg s[4][2];
    tl_owner_rank ranks[4];
    for (int r = 0; r < 4; r++) {
        s[r][0] = (tl_probe_streamreg){.device = 0, .id = (uint32_t)(20 + 2 * r)};
        s[r][1] = (tl_probe_streamreg){.device = 0, .id = (uint32_t)(21 + 2 * r)};
        ranks[r] = (tl_owner_rank){.rank = r, .device = 0, .tid = (uint32_t)(500 + r), .streams = s[r], .nstreams = 2};
    }
    tl_probe_owners o = {.ranks = ranks, .n = 4};
    srand(7);
    for (int i = 0; i < 2000; i++) {
        int issuer = rand() % 4, registered = rand() % 2, known = rand() % 2;
        uint32_t stream = registered ? (uint32_t)(20 + 2 * issuer + rand() % 2) : 7;
        tl_owner_rule rule;
        int got = tl_probe_owner_of(&o, 0, stream, known ? (uint32_t)(500 + issuer) : 0, &rule);
        TL_ASSERT(got >= 0 && got < 4);
        if (registered || known) TL_ASSERT_EQ(got, issuer);
    }
    tl_probe_owners_free(&o);
}

/* The round lists its ranks in the order they reached collection
 * (tl_probes_destroy), not by rank: under the thread launcher rank 1
 * often gets there first. "The lowest rank" of the guess, and the lower
 * rank of a tied vote, are by rank number; before, they were the first
 * rank to arrive, and rank 1's trace of pcg-threads-r2
 * (results/multirank-h200) held every guessed wait of rank 0. */
TL_TEST(owner_lowest_rank_by_number)
{
    tl_probe_streamreg s1[] = {{.device = 0, .id = 13}}, s0[] = {{.device = 0, .id = 16}};
    tl_owner_rank ranks[] = {{.rank = 1, .device = 0, .tid = 101, .streams = s1, .nstreams = 1},
                             {.rank = 0, .device = 0, .tid = 100, .streams = s0, .nstreams = 1}};
    tl_probe_owners o = {.ranks = ranks, .n = 2};
    tl_owner_rule rule;
    int got = tl_probe_owner_of(&o, 0, 7, 0, &rule);
    TL_ASSERT_MSG(got == 1 && rule == TL_OWN_GUESS, "a record of unknown issuer went to rank %d (rule %s), not rank 0",
                  got >= 0 ? ranks[got].rank : -1, tl_owner_rule_name(rule));
    got = tl_probe_owner_of_wait(&o, 0, &rule);
    TL_ASSERT_MSG(got == 1 && rule == TL_OWN_GUESS, "a wait of unknown caller went to rank %d, not rank 0",
                  got >= 0 ? ranks[got].rank : -1);
    TL_ASSERT_OK(tl_probe_owner_vote(&o, 0, 7, 0));
    TL_ASSERT_OK(tl_probe_owner_vote(&o, 0, 7, 1));
    got = tl_probe_owner_of(&o, 0, 7, 0, &rule);
    TL_ASSERT_MSG(got == 1 && rule == TL_OWN_VOTE, "a tied vote went to rank %d, not rank 0",
                  got >= 0 ? ranks[got].rank : -1);
    tl_probe_owners_free(&o);
}

TL_TEST(copy_serves_enclosing_communication)
{
    /* host ranges: compute 0..100, coll allreduce 10..50 holding a staged
     * allreduce mark 20..45, p2p halo 60..90 */
    tl_probes p;
    memset(&p, 0, sizeof p);
    tl_probe_range r[] = {{.start = 60, .end = 90, .cat = TL_CAT_P2P, .lane = TL_ROLE_HOST},
                          {.start = 20, .end = 45, .cat = TL_CAT_COLL, .lane = TL_ROLE_COLL},
                          {.start = 10, .end = 50, .cat = TL_CAT_COLL, .lane = TL_ROLE_HOST},
                          {.start = 0, .end = 100, .cat = TL_CAT_COMPUTE, .lane = TL_ROLE_HOST}};
    p.ranges = r;
    p.nranges = 4;
    tl_probe_commidx ix;
    TL_ASSERT_OK(tl_probe_commidx_build(&p, &ix));
    TL_ASSERT_EQ(ix.n, 3);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 5), TL_ROLE_NONE);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 15), TL_ROLE_COLL);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 30), TL_ROLE_COLL);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 48), TL_ROLE_COLL); /* the outer range, after the inner ended */
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 55), TL_ROLE_NONE);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 60), TL_ROLE_P2P);
    TL_ASSERT_EQ(tl_probe_comm_lane_at(&ix, 95), TL_ROLE_NONE);
    tl_probe_commidx_free(&ix);
}

/* ---- the conversion past CUPTI, fed decoded records ------------------------ */

static tl_trace_record rec_on(tl_kind kind, const char *name, uint32_t stream, tl_role lane)
{
    return (tl_trace_record){.device = 0, .stream = stream, .kind = kind, .name = name, .lane = lane,
                             .start_ns = 100, .end_ns = 200, .bytes = -1, .iter = -1};
}

/* Injection mode infers the lanes of unregistered streams from their NCCL
 * kernels, and a copy enqueued inside a halo exchange or a reduction has
 * that communication's lane already (tl_probe_keep_own): inference keeps
 * it. Before, a reduction's copy on a stream of p2p kernels became p2p,
 * and a halo's copy on a stream without kernels compute. */
TL_TEST(infer_lanes_keep_comm_copies)
{
    tl_probes p;
    memset(&p, 0, sizeof p);
    p.infer_lanes = 1;
    tl_trace_record recs[] = {
        rec_on(TL_KIND_KERNEL, "ncclDevKernel_SendRecv", 7, TL_ROLE_OTHER),
        rec_on(TL_KIND_MEMCPY, "memcpy DtoH", 7, TL_ROLE_OTHER), /* undecided: the stream's */
        rec_on(TL_KIND_MEMCPY, "memcpy DtoH", 7, TL_ROLE_COLL),  /* served a reduction */
        rec_on(TL_KIND_MEMCPY, "memcpy HtoD", 9, TL_ROLE_P2P),   /* served a halo exchange */
        rec_on(TL_KIND_KERNEL, "daxpy", 9, TL_ROLE_OTHER),
    };
    tl_probe_gpu g = {.recs = recs, .n = sizeof recs / sizeof recs[0]};
    TL_ASSERT_OK(tl_probe_infer_lanes(&g, &p));
    TL_ASSERT_EQ(recs[0].lane, TL_ROLE_P2P);
    TL_ASSERT_EQ(recs[0].cat, TL_CAT_P2P);
    TL_ASSERT_EQ(recs[1].lane, TL_ROLE_P2P);
    TL_ASSERT_MSG(recs[2].lane == TL_ROLE_COLL, "a reduction's copy on a p2p stream: lane %s",
                  tl_role_name(recs[2].lane));
    TL_ASSERT_MSG(recs[3].lane == TL_ROLE_P2P, "a halo's copy on a compute stream: lane %s",
                  tl_role_name(recs[3].lane));
    TL_ASSERT_EQ(recs[4].lane, TL_ROLE_COMPUTE);
}

/* A host wait (cudaStreamSynchronize) on a context no GPU record of the
 * buffers names has no device from CUPTI. It is still the wait of the
 * rank whose thread called it, kept with that rank's device (the one
 * whose streams it registered); before, every rank left it out and no
 * count said so. In a round of ranks sharing a process, a call no rank's
 * thread made goes to the lowest rank, counted as guessed, as records of
 * unknown issuer are. */
TL_TEST(wait_on_a_context_without_work_kept)
{
    tl_probe_streamreg s0[] = {{.device = 0, .id = 13, .lane = TL_ROLE_COMPUTE}};
    tl_probe_streamreg s1[] = {{.device = 1, .id = 13, .lane = TL_ROLE_P2P}};
    tl_owner_rank ranks[] = {{.rank = 0, .device = 0, .tid = 100, .streams = s0, .nstreams = 1},
                             {.rank = 1, .device = 1, .tid = 101, .streams = s1, .nstreams = 1}};
    tl_probe_owners own = {.ranks = ranks, .n = 2};
    tl_probes p[2];
    for (int i = 0; i < 2; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].rank = i;
        p[i].device = i;
        p[i].streams[0] = i ? s1[0] : s0[0];
        p[i].nstreams = 1;
    }
    tl_probe_commidx comm = {0};
    tl_trace_record wait = rec_on(TL_KIND_SYNC, "cudaStreamSynchronize", 13, TL_ROLE_OTHER);
    wait.device = -1;
    tl_probe_cand by1 = {.r = wait, .stream = 13, .tid = 101, .known = 1, .launch = 150};
    tl_probe_cand by_none = {.r = wait, .stream = 13, .tid = 555, .known = 1, .launch = 150};
    tl_trace_record kept[4];
    int got[2][2];
    tl_probe_gpu g[2];
    for (int i = 0; i < 2; i++) {
        g[i] = (tl_probe_gpu){.recs = kept + 2 * i};
        const tl_probe_keep k = {.p = &p[i], .own = &own, .me = i, .comm = &comm, .off = 0};
        got[i][0] = tl_probe_keep_own(&k, &by1, &g[i]);
        got[i][1] = tl_probe_keep_own(&k, &by_none, &g[i]);
    }
    TL_ASSERT_MSG(got[0][0] == 0 && got[1][0] == 1, "rank 1's own wait kept by rank 0: %d, rank 1: %d", got[0][0],
                  got[1][0]);
    TL_ASSERT_EQ(g[1].recs[0].device, 1);
    TL_ASSERT_EQ(g[1].recs[0].rank, 1);
    TL_ASSERT_EQ(g[1].recs[0].lane, TL_ROLE_P2P); /* rank 1's registered stream 13 */
    TL_ASSERT_EQ(g[1].by_rule[TL_OWN_THREAD], 1);
    TL_ASSERT_MSG(got[0][1] + got[1][1] == 1 && got[0][1] == 1, "another thread's wait kept by rank 0: %d, rank 1: %d",
                  got[0][1], got[1][1]);
    TL_ASSERT_EQ(g[0].by_rule[TL_OWN_GUESS], 1);
    /* one rank in the round (a process of its own): its wait, whoever called */
    own.n = 1;
    tl_probe_gpu one = {.recs = kept};
    const tl_probe_keep k = {.p = &p[0], .own = &own, .me = 0, .comm = &comm, .off = 0};
    TL_ASSERT_EQ(tl_probe_keep_own(&k, &by_none, &one), 1);
    TL_ASSERT_EQ(one.recs[0].device, 0);
    TL_ASSERT_EQ(one.by_rule[TL_OWN_DEVICE], 1);
}

/* The situation of results/multirank-h200/pcg-threads-r2: two thread
 * ranks share device 0 and a process, each calls cudaEventSynchronize
 * (no stream: CUPTI_SYNCHRONIZATION_INVALID_VALUE, read as 0) from its
 * own thread, and rank 1 reached collection first. CUPTI's sync record
 * names no thread; its correlation id finds the API record of the call,
 * kept by default (tl_probe_cupti_api_recorded), whose thread decides.
 * Before, that API record was left out with the calls that enqueue no
 * work, every wait was guessed and went to the first rank of the round:
 * rank 1 held 3648 cudaEventSynchronize rows, rank 0 none. A wait whose
 * call is not found still goes to rank 0, the lowest, counted. */
TL_TEST(thread_ranks_event_waits_kept_by_their_caller)
{
    static const char *const waits[] = {"cudaEventSynchronize_v3020", "cudaStreamSynchronize_v3020",
                                        "cudaStreamSynchronize_ptsz_v7000", "cudaDeviceSynchronize_v3020",
                                        "cuEventSynchronize", "cuStreamSynchronize", "cuCtxSynchronize"};
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        TL_ASSERT_MSG(tl_probe_cupti_api_recorded(waits[i]), "%s: its API record (the waiting thread) is left out",
                      waits[i]);
    TL_ASSERT(tl_probe_cupti_api_recorded("cudaLaunchKernel_v7000"));
    TL_ASSERT(!tl_probe_cupti_api_recorded("cudaStreamQuery_v3020")); /* polled: left out */
    TL_ASSERT(!tl_probe_cupti_api_recorded("cudaEventRecord_v3020"));

    tl_probes p[2];
    for (int i = 0; i < 2; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].rank = i;
        p[i].device = 0;
        p[i].tid = (uint32_t)(4000 + i);
        p[i].streams[0] = (tl_probe_streamreg){.device = 0, .id = (uint32_t)(16 - 3 * i), .lane = TL_ROLE_COMPUTE};
        p[i].nstreams = 1;
    }
    tl_probes *const round[] = {&p[1], &p[0]}; /* as they reached collection */
    tl_owner_rank ranks[2];
    tl_probe_owners own;
    tl_trace_record wait = rec_on(TL_KIND_SYNC, "cudaEventSynchronize", 0, TL_ROLE_OTHER);
    const tl_probe_cand by[3] = {{.r = wait, .stream = 0, .tid = 4000, .known = 1, .launch = 150},
                                 {.r = wait, .stream = 0, .tid = 4001, .known = 1, .launch = 150},
                                 {.r = wait, .stream = 0}}; /* its call not found */
    tl_probe_commidx comm = {0};
    tl_trace_record kept[2][3];
    tl_probe_gpu g[2];
    int got[2][3];
    for (int r = 0; r < 2; r++) {
        int me = tl_probe_owners_of_round(&own, ranks, round, 2, &p[r]);
        TL_ASSERT_EQ(me, 1 - r);
        g[r] = (tl_probe_gpu){.recs = kept[r]};
        const tl_probe_keep k = {.p = &p[r], .own = &own, .me = me, .comm = &comm, .off = 0};
        for (int c = 0; c < 3; c++) got[r][c] = tl_probe_keep_own(&k, &by[c], &g[r]);
        tl_probe_owners_free(&own);
    }
    TL_ASSERT_MSG(got[0][0] && !got[1][0], "rank 0's wait kept by rank 0: %d, rank 1: %d", got[0][0], got[1][0]);
    TL_ASSERT_MSG(!got[0][1] && got[1][1], "rank 1's wait kept by rank 0: %d, rank 1: %d", got[0][1], got[1][1]);
    TL_ASSERT_MSG(got[0][2] && !got[1][2], "a wait of unknown caller kept by rank 0: %d, rank 1: %d", got[0][2],
                  got[1][2]);
    TL_ASSERT_EQ(g[0].by_rule[TL_OWN_THREAD], 1);
    TL_ASSERT_EQ(g[0].by_rule[TL_OWN_GUESS], 1);
    TL_ASSERT_EQ(g[1].by_rule[TL_OWN_THREAD], 1);
    TL_ASSERT_EQ(g[1].by_rule[TL_OWN_GUESS], 0);
    for (int r = 0; r < 2; r++)
        for (size_t i = 0; i < g[r].n; i++) {
            TL_ASSERT_EQ(g[r].recs[i].rank, r);
            TL_ASSERT_EQ(g[r].recs[i].lane, TL_ROLE_OTHER); /* no stream: no registered lane */
        }
}

/* ---- classes and the wait/transfer split ---------------------------------- */

static tl_an_ival iv(tl_kind kind, tl_cat cat, tl_role lane, int64_t s, int64_t e)
{
    tl_an_ival v;
    memset(&v, 0, sizeof v);
    v.kind = (uint8_t)kind;
    v.cat = (uint8_t)cat;
    v.lane = (uint8_t)lane;
    v.start = s;
    v.end = e;
    return v;
}

TL_TEST(comm_classes)
{
    tl_an_ival k = iv(TL_KIND_KERNEL, TL_CAT_COLL, TL_ROLE_COMPUTE, 0, 1);
    TL_ASSERT_EQ(tl_an_ival_class(&k), TL_AN_C_COLL);
    tl_an_ival c = iv(TL_KIND_MEMCPY, TL_CAT_MEMCPY, TL_ROLE_P2P, 0, 1);
    TL_ASSERT_EQ(tl_an_ival_class(&c), TL_AN_C_P2P);
    TL_ASSERT(!tl_an_ival_is_comm_op(&c)); /* part of an operation, not one */
    tl_an_ival plain = iv(TL_KIND_MEMCPY, TL_CAT_MEMCPY, TL_ROLE_COPY, 0, 1);
    TL_ASSERT_EQ(tl_an_ival_class(&plain), TL_AN_C_OTHER);
    tl_an_ival mark = iv(TL_KIND_HOST, TL_CAT_RANGE, TL_ROLE_COLL, 0, 1);
    TL_ASSERT_EQ(tl_an_ival_class(&mark), TL_AN_C_COLL);
    TL_ASSERT(tl_an_ival_is_comm_op(&mark));
    mark.flags = TL_AN_F_WAIT;
    TL_ASSERT_EQ(tl_an_ival_class(&mark), TL_AN_C_COLL_WAIT);
    tl_an_ival comp = iv(TL_KIND_KERNEL, TL_CAT_COMPUTE, TL_ROLE_COMPUTE, 0, 1);
    comp.flags = TL_AN_F_WAIT; /* only communication waits */
    TL_ASSERT_EQ(tl_an_ival_class(&comp), TL_AN_C_COMPUTE);
}

TL_TEST(waiting_is_not_hidden)
{
    /* a collective kernel 0..100 whose last rank arrives at 60, under compute
     * 0..50: before the split it looks half hidden, after it nothing of its
     * transfer (60..100) is */
    tl_an_ival v[] = {iv(TL_KIND_KERNEL, TL_CAT_COLL, TL_ROLE_COLL, 0, 60),
                      iv(TL_KIND_KERNEL, TL_CAT_COLL, TL_ROLE_COLL, 60, 100),
                      iv(TL_KIND_KERNEL, TL_CAT_COMPUTE, TL_ROLE_COMPUTE, 0, 50)};
    v[0].flags = TL_AN_F_WAIT;
    v[1].flags = TL_AN_F_SPLIT;
    tl_an_ival_sort(v, 3);
    tl_an_metrics m;
    TL_ASSERT_OK(tl_an_sweep(v, 3, 0, 100, NULL, 0, 0, &m, NULL));
    TL_ASSERT_NEAR(tl_an_m_hidden(&m), 0.0, 1e-12);
    TL_ASSERT_NEAR(tl_an_m_hidden_all(&m), 0.5, 1e-12);
    TL_ASSERT_EQ(tl_an_m_waiting(&m), 60);
    TL_ASSERT_EQ(tl_an_m_exposed(&m), 50);
    TL_ASSERT_EQ(m.ncoll, 1); /* one operation, not two */
    /* triple: p2p 70..90 beside it, compute 70..80 */
    tl_an_ival w[] = {v[0], v[1], v[2], iv(TL_KIND_KERNEL, TL_CAT_P2P, TL_ROLE_P2P, 20, 90),
                      iv(TL_KIND_KERNEL, TL_CAT_COMPUTE, TL_ROLE_COMPUTE, 70, 80)};
    tl_an_ival_sort(w, 5);
    TL_ASSERT_OK(tl_an_sweep(w, 5, 0, 100, NULL, 0, 0, &m, NULL));
    TL_ASSERT_NEAR(tl_an_m_triple(&m), 10.0 / 100, 1e-12);     /* 70..80 */
    TL_ASSERT_NEAR(tl_an_m_triple_all(&m), 40.0 / 100, 1e-12); /* 20..50 and 70..80 */
}

/* ---- whole runs through trilap-analyze -------------------------------------- */

/* A synthetic run as the program prog would have traced it. */
static void synth_as(const char *prog, const char *dir, const char *variant, int nranks, int niter)
{
    TL_ASSERT_EQ(tl_test_sh("TL_SYNTH_PROGRAM='%s' %s/tests/helper_synth_trace %s %s %d %d", prog, tl_test_build(), dir,
                            variant, nranks, niter),
                 0);
}

static void synth(const char *dir, const char *variant, int nranks, int niter)
{
    synth_as("trilap-bench", dir, variant, nranks, niter);
}

static int fired(const char *out, const char *rule, int rank)
{
    return !strcmp(tl_test_diagnose_verdict(out, rule, rank), "FINDING");
}

TL_TEST(staged_run_diagnosed)
{
    char dir[1024], tmp[512], p[1100];
    snprintf(tmp, sizeof tmp, "%s", tl_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/staged", tmp);
    synth_as("trilap-solve", dir, "staged", 2, 30); /* its shape: --device-comm host */
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(!tl_test_says_nan(o), "%s", o);
    TL_ASSERT_MSG(fired(o, "exposed-communication", 0) && fired(o, "exposed-communication", 1), "%s", o);
    TL_ASSERT(fired(o, "host-staging", 0) && fired(o, "host-staging", 1));
    TL_ASSERT(fired(o, "serialised-host-lane", 0));
    TL_ASSERT(!fired(o, "serialised-communicators", 0)); /* the host, not NCCL, serialises them */
    /* rank 0 computes 10 us less (and starts 0.5 us earlier) and waits for
     * rank 1, not the reverse */
    TL_ASSERT(fired(o, "late-ranks", 0));
    TL_ASSERT(!fired(o, "late-ranks", 1));
    TL_ASSERT(strstr(o, "rank 1 came 10.5 us after the first"));
    TL_ASSERT(strstr(o, "--device-comm nccl"));
    free(o);
    o = tl_test_output_of("%s/trilap-analyze overlap %s --csv %s/ov.csv", tl_test_bin(), dir, tmp);
    TL_ASSERT_MSG(!tl_test_says_nan(o), "%s", o);
    TL_ASSERT(strstr(o, "rank 0: 0 NCCL kernels, 120 copies on p2p/coll lanes, 60 host exchanges"));
    TL_ASSERT(strstr(o, "communication waiting and transfer"));
    free(o);
    snprintf(p, sizeof p, "%s/ov.csv", tmp);
    char *csv = tl_test_read(p);
    /* per iteration (72 us): compute 40, allreduce 40..59 (waiting 40..50.5
     * less the staging copy 40..42), halo 59..71, all of it exposed */
    TL_ASSERT_MSG(strstr(csv, "rank,W_us,U_compute_us,U_p2p_us,U_coll_us,U_comm_us,waiting_us,exposed_us"), "%s", csv);
    TL_ASSERT_MSG(strstr(csv, "\n0,2160.0,1200.0,360.0,570.0,930.0,255.0,930.0,"), "%s", csv);
    free(csv);
}

TL_TEST(one_rank_without_communication_is_silent)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/compute", tl_test_tmpdir());
    synth(dir, "compute-only", 1, 40);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "# 0 findings"), "%s", o);
    TL_ASSERT_MSG(!tl_test_says_nan(o), "%s", o);
    TL_ASSERT(strstr(o, "hidden - (no communication)"));
    free(o);
    o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(!tl_test_says_nan(o), "%s", o);
    TL_ASSERT(strstr(o, "no communication activity in the window"));
    TL_ASSERT(strstr(o, "one rank, so no communication waits"));
    free(o);
}

/* The communication of host ranks (trilap-solve --backend host, the FDTD's
 * CPU exchange) is the host's own work, so their traces count it: it was
 * traced as plain host ranges, and overlap said "0 host exchanges" and
 * diagnose "idle 100.0% of the window" for runs spending a third of it in
 * halo exchanges. */
static void host_comm_counted(const char *dir, int nranks)
{
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    for (int r = 0; r < nranks; r++) {
        char key[128];
        snprintf(key, sizeof key, "# communication: rank %d: 0 NCCL kernels, 0 copies on p2p/coll lanes, ", r);
        const char *p = strstr(o, key);
        long n = p ? strtol(p + strlen(key), NULL, 10) : 0;
        TL_ASSERT_MSG(n > 0, "rank %d: no host exchanges counted:\n%s", r, o);
    }
    TL_ASSERT_MSG(!strstr(o, "has no communication activity"), "%s", o);
    free(o);
}

TL_TEST(host_ranks_communication_counted)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/solve", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --ranks 2 --repeat 1 --no-stats --trace %s gen:poisson7:12", tl_test_bin(), dir));
    host_comm_counted(dir, 2);
    /* counted, it is the host's own, not staged for a GPU: the staging and
     * host-lane rules (remedies: NCCL, a GPU per rank) do not apply */
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    for (int r = 0; r < 2; r++)
        TL_ASSERT_MSG(!fired(o, "host-staging", r) && !fired(o, "serialised-host-lane", r), "%s", o);
    TL_ASSERT_MSG(tl_test_count(o, "a host-only rank: no GPU, its host computes and communicates") == 8, "%s", o);
    /* and the summary says so, not "ok": before, "ok [host-staging]: the host
     * carries communication less than the threshold" beside a host carrying
     * most of the window */
    static const char *const na_rules[] = {"serialised-host-lane", "host-staging", "serialised-communicators"};
    for (size_t k = 0; k < 3; k++) {
        char ok[96], na[160];
        snprintf(ok, sizeof ok, "ok [%s]", na_rules[k]);
        snprintf(na, sizeof na, "\nn/a [%s]: does not apply: ranks 0, 1 are host-only (no GPU lanes: ", na_rules[k]);
        TL_ASSERT_MSG(!strstr(o, ok) && strstr(o, na), "%s", o);
        for (int r = 0; r < 2; r++)
            TL_ASSERT_MSG(!strcmp(tl_test_diagnose_verdict(o, na_rules[k], r), "n/a"), "%s rank %d:\n%s", na_rules[k], r, o);
    }
    free(o);
    /* the timeline draws it (it wrote a header alone, "the selection on rank -1") */
    char tmp[512], p[1200];
    snprintf(tmp, sizeof tmp, "%s", tl_test_tmpdir());
    o = tl_test_output_of("%s/trilap-analyze timeline %s -o %s/tl.csv", tl_test_bin(), dir, tmp);
    TL_ASSERT_MSG(strstr(o, "the selection on rank 0"), "%s", o);
    free(o);
    snprintf(p, sizeof p, "%s/tl.csv", tmp);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, ",r0 P2P,p2p,") && strstr(o, ",r1 Collective,coll,"), "%s", o);
    /* coloured as the host's communication, not as a "compute" kernel */
    TL_ASSERT_MSG(strstr(o, ",r0 P2P,p2p,range,host-comm,18,\"p2p:halo_wait\",") &&
                      strstr(o, ",r1 Collective,coll,range,host-comm,18,\"coll:allreduce"),
                  "%s", o);
    free(o);
    /* one rank moves nothing (its allreduce is a copy): no communication;
     * its timeline draws its host's compute on its compute row (it said
     * "span: none", nothing drawn, of a host computing the whole run) */
    snprintf(dir, sizeof dir, "%s/solve1", tmp);
    free(tl_test_output_of("%s/trilap-solve --repeat 1 --no-stats --trace %s gen:poisson7:12", tl_test_bin(), dir));
    o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "rank 0: 0 NCCL kernels, 0 copies on p2p/coll lanes, 0 host exchanges"), "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze timeline %s -o %s/tl1.csv", tl_test_bin(), dir, tmp);
    TL_ASSERT_MSG(strstr(o, "the selection on rank 0") && !strstr(o, "# span: none"), "%s", o);
    free(o);
    snprintf(p, sizeof p, "%s/tl1.csv", tmp);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "\n0,0,r0 Compute,host,range,compute,11,\"compute:spmv_diag\","), "%s", o);
    free(o);
    snprintf(dir, sizeof dir, "%s/fdtd", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-fdtd run --grid 24 --steps 4 --ranks 2 --decomp 1x1x2 --trace %s", tl_test_bin(), dir));
    host_comm_counted(dir, 2);
}

/* A rank whose trace's name is taken by a folder stops every rank at the
 * start, in one line naming it, and no rank's trace is written (before:
 * found at the end, by the rename of that rank's trace alone, after the
 * whole run). */
/* The remedy of a finding on host-only ranks points only at what applies
 * there: exposed-communication said "see host-staging" and late-ranks
 * "compare U_compute", a rule and a figure n/a on such ranks; the summary
 * said "compute 0.0%" of a host that computes (its compute is no GPU
 * lane's), and no-comm-compute-overlap was "ok" for "compute 0.0 % of W". */
TL_TEST(host_ranks_remedies_apply)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/hostonly", tl_test_tmpdir());
    synth_as("trilap-solve", dir, "host-only", 2, 20); /* its shape: --backend host */
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "exposed-communication", 0) && fired(o, "late-ranks", 0), "%s", o);
    TL_ASSERT_MSG(!strstr(o, "see host-staging") && !strstr(o, "(overlap's U_compute)"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "  remedy: overlap it with work that does not need its data: post the halo exchange"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "  remedy: the operation cannot move data before every rank has joined it. Compare the "
                            "ranks' time outside communication per iteration (overlap's idle / iters"),
                  "%s", o);
    /* its host's compute ranges are its compute: 40 and 50 us of each 72
     * (it said "n/a", beside "idle" for the time its host computed) */
    static const char *const cp[] = {"compute 55.6% (its host's compute ranges), p2p 16.7%, coll 26.4%, exposed "
                                     "communication 43.1%, idle 1.4% of the window",
                                     "compute 69.4% (its host's compute ranges), p2p 16.7%, coll 12.5%, exposed "
                                     "communication 29.2%, idle 1.4% of the window"};
    for (int r = 0; r < 2; r++) {
        char key[256];
        snprintf(key, sizeof key, "# rank %d: window 1440.0 us, 20 iterations; %s", r, cp[r]);
        TL_ASSERT_MSG(strstr(o, key), "%s", o);
        TL_ASSERT_MSG(!strcmp(tl_test_diagnose_verdict(o, "no-comm-compute-overlap", r), "n/a"), "%s", o);
    }
    TL_ASSERT_MSG(!strstr(o, "compute 0.0"), "%s", o);
    free(o);
    /* a GPU rank beside a host-only one: each its own remedy */
    snprintf(dir, sizeof dir, "%s/mixed", tl_test_tmpdir());
    synth_as("trilap-solve", dir, "mixed-host", 2, 20);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "exposed-communication", 0) && fired(o, "exposed-communication", 1), "%s", o);
    TL_ASSERT_MSG(strstr(o, "see host-staging; where ranks wait for each other, see late-ranks.\n  remedy on "
                            "host-only rank 1: overlap it with work that does not need its data: post the halo"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "# rank 0: window 1440.0 us, 20 iterations; compute 55.6%, "), "%s", o);
    TL_ASSERT_MSG(fired(o, "no-comm-compute-overlap", 0), "%s", o);
    TL_ASSERT_MSG(!strcmp(tl_test_diagnose_verdict(o, "no-comm-compute-overlap", 1), "n/a"), "%s", o);
    free(o);
}

/* The remedies' lines of diagnose's output, one after the other. */
static char *remedies(const char *out)
{
    size_t n = 0;
    char *r = calloc(strlen(out) + 1, 1);
    TL_ASSERT(r);
    for (const char *p = strstr(out, "\n  remedy"); p; p = strstr(p + 1, "\n  remedy")) {
        const char *eol = strchr(p + 1, '\n');
        size_t k = eol ? (size_t)(eol - p) : strlen(p);
        memcpy(r + n, p, k);
        n += k;
    }
    return r;
}

/* An FDTD run's findings advise the FDTD's own knobs: late-ranks on CPU
 * ranks said "a rank with more rows or nonzeros arrives last, so balance
 * the partition (METIS with weights)" and exposed-communication "compute
 * the interior rows of the SpMV", a sparse solver's advice for a
 * decomposition whose imbalance is the CPML slabs' or an uneven cut's. */
TL_TEST(fdtd_remedies_speak_fdtd)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fdtd-host", tl_test_tmpdir());
    synth_as("trilap-fdtd", dir, "host-only", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "exposed-communication", 0) && fired(o, "late-ranks", 0), "%s", o);
    char *rm = remedies(o);
    TL_ASSERT_MSG(!strstr(rm, "METIS") && !strstr(rm, "SpMV") && !strstr(rm, "nonzeros"), "%s", rm);
    TL_ASSERT_MSG(strstr(rm, "  remedy: a CPU rank's one thread updates and exchanges in turn") &&
                      strstr(rm, "(--s S: ghosts 2 r S deep, one exchange every S steps)"),
                  "%s", rm);
    TL_ASSERT_MSG(strstr(rm, "  remedy: the exchange cannot complete before its neighbours join it. Compare the "
                             "ranks' compute per step (overlap's U_compute / iters") &&
                      strstr(rm, "updates the CPML slabs there (--cpml cells deep)"),
                  "%s", rm);
    free(rm);
    free(o);
    /* a real run, every rule made to fire where it can: the same texts */
    snprintf(dir, sizeof dir, "%s/fdtd-run", tl_test_tmpdir());
    free(tl_test_output_of("OMP_NUM_THREADS=1 %s/trilap-fdtd run --grid 24 --steps 4 --ranks 2 --decomp 1x1x2 --trace %s",
                 tl_test_bin(), dir));
    o = tl_test_output_of("%s/trilap-analyze diagnose %s --exposed-share 0 --wait-share 0 --min-comm-share 0", tl_test_bin(),
                dir);
    rm = remedies(o);
    TL_ASSERT_MSG(fired(o, "exposed-communication", 0) && strstr(rm, "--s S") && !strstr(rm, "METIS") &&
                      !strstr(rm, "SpMV"),
                  "%s", o);
    free(rm);
    free(o);
}

/* starved-communication on an FDTD run fell back to trilap-solve's text,
 * "ncclConfig_t.minCTAs/maxCTAs on the split communicator" and stream
 * priorities to create: trilap-fdtd has neither a split communicator nor
 * a priority option. Every option its remedy names is one of
 * `trilap-fdtd run --help`'s. */
TL_TEST(fdtd_starved_remedy_names_fdtd_options)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fdtd-starved", tl_test_tmpdir());
    synth_as("trilap-fdtd", dir, "starved", 2, 30);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "starved-communication", 0) || fired(o, "starved-communication", 1), "%s", o);
    char *rm = remedies(o);
    TL_ASSERT_MSG(!strstr(rm, "split communicator") && !strstr(rm, "cudaStreamCreateWithPriority") &&
                      strstr(rm, "NCCL_MIN_CTAS/NCCL_MAX_CTAS") && strstr(rm, "--strategy peer"),
                  "%s", rm);
    char *help = tl_test_output_of("%s/trilap-fdtd run --help", tl_test_bin());
    for (const char *p = strstr(rm, "--"); p; p = strstr(p + 2, "--")) {
        char opt[64];
        size_t k = strspn(p, "-abcdefghijklmnopqrstuvwxyz");
        TL_ASSERT(k < sizeof opt - 1);
        snprintf(opt, sizeof opt, " %.*s ", (int)k, p);
        TL_ASSERT_MSG(strstr(help, opt), "the remedy names '%s', not an option of trilap-fdtd run:\n%s", opt, rm);
    }
    free(help);
    free(rm);
    free(o);
}

/* trilap-bench's findings advise the microbenchmark's own options: they
 * fell back to trilap-solve's texts ("interior rows of the SpMV", "balance
 * the partition (METIS with weights)", "--device-comm nccl"), which name
 * work and options tristream does not have. */
TL_TEST(bench_remedies_speak_bench)
{
    static const struct {
        const char *variant, *rule, *says;
    } cases[] = {
        {"naive", "serialised-communicators", "(--variants three-naive,three-split)"},
        {"two-stream", "exposed-communication", "a larger --daxpy-count"},
        {"no-overlap", "no-comm-compute-overlap", "--hw-queues 8 or more"},
        {"starved", "starved-communication", "(--daxpy-blocks N, 1-2 x the SM count)"},
        {"launch-bound", "launch-bound-compute", "a small --daxpy-count"},
        {"staged", "late-ranks", "every rank runs the same sizes, so a late rank is slower"},
        {"staged", "host-staging", "tristream moves every buffer with NCCL"},
    };
    char dir[1024];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        snprintf(dir, sizeof dir, "%s/bench-%s", tl_test_tmpdir(), cases[k].variant);
        synth(dir, cases[k].variant, 2, 30);
        char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
        TL_ASSERT_MSG(fired(o, cases[k].rule, 0) || fired(o, cases[k].rule, 1), "%s: %s", cases[k].rule, o);
        char *rm = remedies(o);
        TL_ASSERT_MSG(strstr(rm, cases[k].says), "%s: no '%s' in\n%s", cases[k].rule, cases[k].says, rm);
        static const char *const solve[] = {"METIS", "SpMV", "nonzeros", "--device-comm", "three-split schedule"};
        for (size_t j = 0; j < sizeof solve / sizeof solve[0]; j++)
            TL_ASSERT_MSG(!strstr(rm, solve[j]), "%s: a remedy names '%s':\n%s", cases[k].variant, solve[j], rm);
        free(rm);
        free(o);
    }
}

/* A program trilap did not write (traced by injection) gets remedies that
 * name none of trilap's options or schedules: host-staging said "use NCCL
 * (--device-comm nccl)", serialised-host-lane "the three-split schedule",
 * late-ranks "METIS with weights", starved-communication NCCL's CTAs "on
 * the split communicator" (trilap-solve's). */
TL_TEST(foreign_program_remedies_name_no_trilap_option)
{
    static const char *const variants[] = {"staged", "host-only", "mixed-host", "naive", "starved"};
    char tmp[512], dir[1024];
    snprintf(tmp, sizeof tmp, "%s", tl_test_tmpdir());
    for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
        snprintf(dir, sizeof dir, "%s/app-%s", tmp, variants[k]);
        synth_as("my_app", dir, variants[k], 2, 30);
        char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
        TL_ASSERT_MSG(strstr(o, "\nFINDING 1 "), "%s: no finding:\n%s", variants[k], o);
        char *rm = remedies(o);
        static const char *const trilap[] = {" --", "(--", "three-split", "METIS", "SpMV", "p2p/coll lanes",
                                             "split communicator"};
        for (size_t j = 0; j < sizeof trilap / sizeof trilap[0]; j++)
            TL_ASSERT_MSG(!strstr(rm, trilap[j]), "%s: a remedy names '%s':\n%s", variants[k], trilap[j], rm);
        free(rm);
        free(o);
    }
    snprintf(dir, sizeof dir, "%s/app-staged", tmp);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "host-staging", 0) && fired(o, "serialised-host-lane", 0) && fired(o, "late-ranks", 0),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "let NCCL or CUDA-aware MPI move the device buffers") &&
                      strstr(o, "so give the ranks equal work"),
                  "%s", o);
    free(o);
    snprintf(dir, sizeof dir, "%s/app-starved", tmp);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(fired(o, "starved-communication", 0) || fired(o, "starved-communication", 1), "%s", o);
    TL_ASSERT_MSG(strstr(o, "(NCCL_MIN_CTAS/NCCL_MAX_CTAS, or ncclConfig_t.minCTAs/maxCTAs in the config the "
                            "communicator is created with)"),
                  "%s", o);
    free(o);
}

/* late-ranks' evidence on CPU ranks: a host exchange named as the host's,
 * not as a kernel's ("most delayed: p2p:exchange_z, #0 of its kernel
 * (iteration 0)" of an FDTD run on the CPU), and the comparison its remedy
 * asks for made: each rank's compute per iteration (its host's compute:*
 * ranges, overlap's U_compute / iters) beside the late rank's, 40 and 50
 * us here (before, the remedy said "compare" and the evidence gave
 * neither figure). */
TL_TEST(late_ranks_host_evidence)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/late-host", tl_test_tmpdir());
    synth(dir, "host-only", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "most delayed: coll:staged allreduce (the host), #0 of it (iteration 0): rank 1 came "
                            "10.5 us after the first"),
                  "%s", o);
    TL_ASSERT_MSG(!strstr(o, "of its kernel"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "      compute per iteration (overlap's U_compute / iters): this rank 40.0 us, rank 1 "
                            "(last to its most delayed operation) 50.0 us\n"),
                  "%s", o);
    free(o);
    /* and the figures are overlap's */
    o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "\n  0    1440.0     800.0 ") && strstr(o, "\n  1    1440.0    1000.0 "), "%s", o);
    free(o);
}

/* An --iter-range that selects nothing on a host-backend run is refused by
 * every command, as on a GPU run: its iterations are the host's, and its
 * activity the host's communication (before: each read the whole window,
 * exit 0, diagnose "window 1440.0 us, 0 iterations", timeline and perfetto
 * every record of the run). */
TL_TEST(host_ranks_iter_range_outside_refused)
{
    char dir[1024], tmp[512];
    snprintf(tmp, sizeof tmp, "%s", tl_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/hostsel", tmp);
    synth(dir, "host-only", 2, 20);
    static const char *const cmds[] = {"breakdown", "overlap", "diagnose", "timeline", "perfetto"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char out[1200] = "", path[1100] = "";
        if (k >= 3) {
            snprintf(path, sizeof path, "%s/sel%zu.%s", tmp, k, k == 3 ? "csv" : "json");
            snprintf(out, sizeof out, "-o %s", path);
        }
        tl_test_output o = tl_test_capture("%s/trilap-analyze %s %s --iter-range 500: %s", tl_test_bin(), cmds[k],
                                           dir, out);
        TL_ASSERT_MSG(o.rc == 1 && tl_test_count(o.err, "\n") == 1 &&
                          strstr(o.err, "no host activity in iterations 500: ") &&
                          strstr(o.err, "(the run has iterations 0..19)"),
                      "%s: exit %d\n%s%s", cmds[k], o.rc, o.out, o.err);
        if (path[0]) TL_ASSERT_MSG(access(path, F_OK) != 0, "%s wrote %s", cmds[k], path);
        tl_test_output_free(&o);
        /* a range it has is read */
        o = tl_test_capture("%s/trilap-analyze %s %s --iter-range 5:6 %s", tl_test_bin(), cmds[k], dir, out);
        TL_ASSERT_MSG(o.rc == 0, "%s: exit %d\n%s", cmds[k], o.rc, o.err);
        tl_test_output_free(&o);
    }
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s --iter-range 5:6", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "# rank 0: window 144.0 us, 2 iterations;"), "%s", o);
    free(o);
}

/* overlap's "# communication:" counts are of the window, as every figure
 * of its tables: a host run's exchanges equal the operations its waiting
 * table matched (before: the whole file's, the warm-up solve before the
 * window included, 1414 beside 1060 matched on a traced solve of 3, and
 * the same 1414 with --iter-range 0:0). */
static long comm_count(const char *o, int rank, long *matched)
{
    char key[128], row[32];
    snprintf(key, sizeof key, "# communication: rank %d: 0 NCCL kernels, 0 copies on p2p/coll lanes, ", rank);
    snprintf(row, sizeof row, "\n  %d    *", rank);
    const char *p = strstr(o, key), *q = strstr(o, row);
    *matched = q ? strtol(q + strlen(row), NULL, 10) : -1;
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

TL_TEST(host_ranks_communication_counted_in_window)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/solvew", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --ranks 2 --repeat 2 --no-stats --trace %s gen:poisson7:12", tl_test_bin(), dir));
    static const char *const ranges[] = {"", "--iter-range 2:3"};
    long whole = 0;
    for (size_t k = 0; k < 2; k++) {
        char *o = tl_test_output_of("%s/trilap-analyze overlap %s %s", tl_test_bin(), dir, ranges[k]);
        for (int r = 0; r < 2; r++) {
            long matched, n = comm_count(o, r, &matched);
            TL_ASSERT_MSG(n > 0 && n == matched, "rank %d: %ld host exchanges, %ld matched\n%s", r, n, matched, o);
            if (!k && !r) whole = n;
            if (k) TL_ASSERT_MSG(n < whole / 4, "%s: %ld host exchanges of %ld", ranges[k], n, whole);
        }
        free(o);
    }
}

/* overlap's per-iteration figures of a host-only rank leave derived_comm
 * undefined, as its whole-window row does (before: the per-iteration table
 * and --iter-csv gave each slice's whole W as derived communication beside
 * a "-" and "derived_comm is undefined" for the window). */
/* The line starting at l, without its newline. */
static void line_at(const char *l, char *row, size_t n)
{
    const char *e = strchr(l, '\n');
    snprintf(row, n, "%.*s", (int)(e ? e - l : (long)strlen(l)), l);
}

TL_TEST(host_ranks_per_iter_derived_undefined)
{
    char dir[1024], csv[1100];
    snprintf(dir, sizeof dir, "%s/hostper", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/it.csv", tl_test_tmpdir());
    synth(dir, "mixed-host", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s --per-iter --iter-csv %s", tl_test_bin(), dir, csv);
    const char *t = strstr(o, "# table: overlap per iteration");
    TL_ASSERT_MSG(t, "%s", o);
    int host = 0, gpu = 0;
    for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        int rank, it;
        if (sscanf(l + 1, " %d %d", &rank, &it) != 2) continue;
        char row[400];
        line_at(l + 1, row, sizeof row);
        /* derived_comm, then idle: the last two fields */
        char *last = strrchr(row, ' ');
        while (last > row && last[-1] == ' ') last--;
        *last = 0;
        const char *derived = strrchr(row, ' ') + 1;
        if (rank == 1) host += !strcmp(derived, "-");
        else gpu += strcmp(derived, "-") != 0;
    }
    TL_ASSERT_MSG(host == 20 && gpu == 20, "host-only rows with derived_comm -: %d, GPU rows with a figure: %d\n%s",
                  host, gpu, o);
    free(o);
    o = tl_test_read(csv);
    TL_ASSERT_MSG(o && strstr(o, "\n1,0,") && strstr(o, "\n0,0,"), "%s", o ? o : "(none)");
    for (const char *l = strstr(o, "\n1,"); l; l = strstr(l + 1, "\n1,")) {
        char row[400];
        line_at(l + 1, row, sizeof row);
        *strrchr(row, ',') = 0;
        TL_ASSERT_MSG(!strcmp(strrchr(row, ',') + 1, ""), "rank 1's derived_comm_us: %s", row);
    }
    free(o);
}

/* breakdown of a host-backend run: no kernel or copy, so its rows are its
 * host's compute and communication ranges, and it says so (before: "# 0
 * rows" beside overlap's U_p2p of most of the window; then a line saying
 * there was nothing to break down, of a host computing 56 % of it). */
TL_TEST(host_ranks_breakdown_counts_host)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/hostbd", tl_test_tmpdir());
    synth(dir, "host-only", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze breakdown %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "# gpu_lanes: hostbd rank 0: none (a host-only trace: no device, no kernels or copies "
                            "recorded): its rows are its host's ranges, its compute (compute:*) and its "
                            "communication") &&
                      strstr(o, "hostbd rank 1: none (") && strstr(o, "# 20 rows"),
                  "%s", o);
    /* 40 us of compute and 19 + 12 of communication in each of 20
     * iterations of 72 us */
    TL_ASSERT_MSG(strstr(o, "\n  hostbd 0    name     compute   compute:spmv               20  800.0 40.00 40.00 "
                            "40.00  55.6    40.00     -      -") &&
                      strstr(o, "\n  hostbd 0    category host-comm *                          40  620.0 15.50 "
                                "12.00 19.00  43.1    31.00     -      -"),
                  "%s", o);
    free(o);
    /* a GPU rank beside a host-only one: only the latter named */
    snprintf(dir, sizeof dir, "%s/mixedbd", tl_test_tmpdir());
    synth(dir, "mixed-host", 2, 20);
    o = tl_test_output_of("%s/trilap-analyze breakdown %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "# gpu_lanes: mixedbd rank 1: none (") && !strstr(o, "mixedbd rank 0: none"), "%s", o);
    free(o);
}

/* Field k (0-based) of the table row of rank 0 after `table`, in buf. */
static const char *rank0_field(const char *o, const char *table, int k, char *buf, size_t n)
{
    const char *t = strstr(o, table), *l = t ? strstr(t, "\n  0 ") : NULL;
    char row[512];
    buf[0] = 0;
    if (!l) return buf;
    line_at(l + 1, row, sizeof row);
    char *save = NULL, *f = strtok_r(row, " ", &save);
    for (int i = 0; f && i < k; i++) f = strtok_r(NULL, " ", &save);
    snprintf(buf, n, "%s", f ? f : "");
    return buf;
}

/* The union of rank 0's compute:* ranges within its window (us, as
 * overlap prints it), worked out from the rank's trace file in dir. */
static double compute_ranges_us(const char *dir)
{
    char us[64];
    TL_ASSERT_EQ(tl_test_sh_to(us, sizeof us,
                               "awk -F, '/^# window_start_ns=/ { sub(/.*=/, \"\"); ws = $0 + 0 } "
                               "/^# window_end_ns=/ { sub(/.*=/, \"\"); we = $0 + 0 } "
                               "$5 == \"range\" && $7 ~ /^compute:/ { s = $8 < ws ? ws : $8; e = $9 > we ? we : $9; "
                               "if (e > s) printf \"%%.0f %%.0f\\n\", s, e }' %s/trace.rank0.csv | sort -n | "
                               "awk '{ if (NR > 1 && $1 <= end) { if ($2 > end) end = $2; next } "
                               "total += end - start; start = $1; end = $2 } "
                               "END { printf \"%%.1f\", (total + end - start) / 1e3 }'",
                               dir),
                 0);
    return atof(us);
}

/* A CPU run's compute is its host's compute:* ranges (trilap-fdtd
 * --backend cpu, trilap-solve --backend host on one rank): breakdown printed
 * "# 0 rows", overlap U_compute 0.0 and idle the whole window, diagnose
 * "idle 100.0% of the window", and an --iter-range past the run was read as
 * its whole window, exit 0. */
static void cpu_run_counted(const char *dir, const char *name)
{
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    char w[64], cp[64], idle[64];
    double fw = atof(rank0_field(o, "# table: overlap\n", 1, w, sizeof w));
    double fc = atof(rank0_field(o, "# table: overlap\n", 2, cp, sizeof cp));
    double fi = atof(rank0_field(o, "# table: overlap\n", 14, idle, sizeof idle));
    double ranges = compute_ranges_us(dir);
    /* the compute ranges the trace holds, and idle what they leave
     * (before: U_compute 0.0, idle the whole window); not a share of the
     * window, which the load decides: "more than half" failed in 2 of 3
     * loaded runs of make check (W 6709.4, U_compute 542.2: a solve of
     * 0.6 ms preempted between its ranges) */
    TL_ASSERT_MSG(ranges > 0 && fabs(fc - ranges) < 0.15 && fabs(fc + fi - fw) < 0.2,
                  "W %s, U_compute %s (the trace's compute ranges: %.1f), idle %s:\n%s", w, cp, ranges, idle, o);
    TL_ASSERT_MSG(strstr(o, "U_compute is its host's compute ranges (compute:*)"), "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "(its host's compute ranges)") && !strstr(o, "idle 100.0%"), "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze breakdown %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, name) && !strstr(o, "# 0 rows") && strstr(o, "its rows are its host's ranges"), "%s", o);
    free(o);
    tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --iter-range 500:", tl_test_bin(), dir);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "no host activity in iterations 500: "), "exit %d\n%s%s", r.rc, r.out,
                  r.err);
    tl_test_output_free(&r);
}

TL_TEST(cpu_runs_compute_counted)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/fdtdcpu", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-fdtd run --backend cpu --grid 24 --steps 4 --trace %s", tl_test_bin(), dir));
    cpu_run_counted(dir, " compute:update_v ");
    snprintf(dir, sizeof dir, "%s/solvecpu", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --backend host --repeat 1 --no-stats --trace %s gen:poisson7:12", tl_test_bin(),
                 dir));
    cpu_run_counted(dir, " compute:spmv_diag ");
}

/* The host's compute:* marks of a GPU rank cover launches and waits, not
 * compute: the staged variant's (compute and the allreduce after it) leave
 * its figures those of its kernels (staged_run_diagnosed's U_compute 1200,
 * hidden 0). */
TL_TEST(gpu_ranks_host_compute_marks_not_compute)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/stagedmarks", tl_test_tmpdir());
    synth(dir, "staged", 2, 30);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    char cp[64], hid[64];
    TL_ASSERT_MSG(!strcmp(rank0_field(o, "# table: overlap\n", 2, cp, sizeof cp), "1200.0") &&
                      !strcmp(rank0_field(o, "# table: overlap\n", 8, hid, sizeof hid), "0.0"),
                  "U_compute %s, hidden %s\n%s", cp, hid, o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze breakdown %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(!strstr(o, "compute:axpy") && !strstr(o, "gpu_lanes"), "%s", o);
    free(o);
}

/* A rank with a device traced without GPU activity (--trace-mode nvtx,
 * no CUPTI) keeps only its host ranges: its compute:* ranges time the
 * enqueues, as beside kernels, and are no compute (they were counted
 * while no GPU record had come). */
TL_TEST(gpu_rank_without_activity_host_compute_not_compute)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/nvtxonly", tl_test_tmpdir());
    synth(dir, "staged", 2, 30);
    /* the kernels and copies dropped: what an NVTX-only trace of the run holds */
    for (int r = 0; r < 2; r++)
        TL_ASSERT_EQ(tl_test_sh("awk -F, '$6 != \"kernel\" && $6 != \"memcpy\"' %s/trace.rank%d.csv > %s/t && "
                                "mv %s/t %s/trace.rank%d.csv",
                                dir, r, dir, dir, dir, r),
                     0);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    char cp[64];
    TL_ASSERT_MSG(!strcmp(rank0_field(o, "# table: overlap\n", 2, cp, sizeof cp), "0.0"), "U_compute %s\n%s", cp, o);
    free(o);
}

TL_TEST(a_rank_that_cannot_trace_stops_all)
{
    static const char *const runs[] = {
        "trilap-fdtd run --grid 24 --steps 4 --ranks 2 --decomp 1x1x2 --trace %s",
        "trilap-solve --ranks 2 --repeat 1 --no-stats --trace %s gen:poisson7:12",
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char dir[1024], fmt[512], cmd[2048];
        snprintf(dir, sizeof dir, "%s/blocked%zu", tl_test_tmpdir(), k);
        TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/trace.rank1.csv", dir), 0);
        snprintf(fmt, sizeof fmt, "timeout 60 %%s/%s", runs[k]);
        snprintf(cmd, sizeof cmd, fmt, tl_test_bin(), dir);
        tl_test_output r = tl_test_capture("%s", cmd);
        TL_ASSERT_MSG(r.rc != 0 && r.rc != 124 && strstr(r.err, "trace.rank1.csv is a folder"), "%s: exit %d: %s",
                      cmd, r.rc, r.err);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/trace.rank0.csv", dir), 0);
        tl_test_output_free(&r);
    }
}

/* compare on two host-rank runs: derived communication undefined there
 * (no GPU lanes, as overlap says), not the whole window per iteration;
 * their host exchanges as communication, not as "nccl_per_iter". */
TL_TEST(host_runs_compared)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/two", tl_test_tmpdir());
    snprintf(b, sizeof b, "%s/split", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --ranks 2 --repeat 1 --no-stats --schedule two-stream --trace %s gen:poisson7:12",
                 tl_test_bin(), a));
    free(tl_test_output_of("%s/trilap-solve --ranks 2 --repeat 1 --no-stats --schedule three-split --trace %s gen:poisson7:12",
                 tl_test_bin(), b));
    char *o = tl_test_output_of("%s/trilap-analyze compare %s %s", tl_test_bin(), a, b);
    const char *d = strstr(o, "\n  derived_comm_per_iter ");
    char unit[8] = "", va[16] = "", vb[16] = "";
    TL_ASSERT_MSG(d && sscanf(d, " derived_comm_per_iter %7s %15s %15s", unit, va, vb) == 3, "%s", o);
    TL_ASSERT_MSG(!strcmp(va, "-") && !strcmp(vb, "-"), "%s", o);
    const char *c = strstr(o, "\n  comm_per_iter ");
    double ca = 0, cb = 0;
    TL_ASSERT_MSG(c && sscanf(c, " comm_per_iter %7s %lf %lf", unit, &ca, &cb) == 3 && ca > 0 && cb > 0, "%s", o);
    TL_ASSERT_MSG(!strstr(o, "nccl_per_iter"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "\n# ranks: A 2, B 2\n"), "%s", o);
    free(o);
    /* runs at other rank counts: said (before, nothing said the ranks) */
    char one[1024];
    snprintf(one, sizeof one, "%s/one", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --repeat 1 --no-stats --trace %s gen:poisson7:12", tl_test_bin(), one));
    o = tl_test_output_of("%s/trilap-analyze compare %s %s", tl_test_bin(), one, a);
    TL_ASSERT_MSG(strstr(o, "\n# ranks: A 1, B 2 (not the same: each value is the max over its own run's ranks, "),
                  "%s", o);
    free(o);
}

/* Two FDTD runs that differ in how often they exchange (--s 2: one
 * exchange every 2 steps) are told apart by compare's communication calls
 * per step; before, compare had no such row. */
TL_TEST(fdtd_exchanges_per_step_compared)
{
    char a[1024], b[1024];
    const char *run = "OMP_NUM_THREADS=1 %s/trilap-fdtd run --backend cpu --grid 32 --steps 8 --decomp 1x1x2 "
                      "--launcher threads --ranks 2 --trace %s%s";
    snprintf(a, sizeof a, "%s/fdtd-s1", tl_test_tmpdir());
    snprintf(b, sizeof b, "%s/fdtd-s2", tl_test_tmpdir());
    free(tl_test_output_of(run, tl_test_bin(), a, ""));
    free(tl_test_output_of(run, tl_test_bin(), b, " --s 2"));
    char *o = tl_test_output_of("%s/trilap-analyze compare %s %s", tl_test_bin(), a, b);
    const char *c = strstr(o, "\n  comm_calls_per_iter ");
    double ca = 0, cb = 0, ratio = 0;
    char unit[8] = "", diff[16] = "";
    TL_ASSERT_MSG(c && sscanf(c, " comm_calls_per_iter %7s %lf %lf %15s %lf", unit, &ca, &cb, diff, &ratio) == 5,
                  "%s", o);
    /* one exchange per step along z, then one every two steps */
    TL_ASSERT_MSG(ca == 1.0 && cb == 0.5 && ratio == 2.0, "%s", o);
    free(o);
}

/* cg on scalar programs in fixed-iteration mode restarts where (r, r)
 * underflows: the trace has iterations k.. run again within one solve,
 * which the analysis numbers on after the highest. The output says so and
 * by how much its numbers differ from the program's; before, nothing said
 * it (a solve of 300 iterations showed 306, the last numbered 305). A
 * loop begun again from its start (--repeat) is no rerun. */
TL_TEST(cg_async_rerun_said)
{
    char dir[1024], plain[1024];
    snprintf(dir, sizeof dir, "%s/cg-async", tl_test_tmpdir());
    snprintf(plain, sizeof plain, "%s/cg-repeat", tl_test_tmpdir());
    free(tl_test_output_of("%s/trilap-solve --solver cg --scalars program --rtol 0 --atol 0 --max-iterations 300 --repeat 1 "
                 "--no-stats --trace %s gen:poisson7:6",
                 tl_test_bin(), dir));
    free(tl_test_output_of("%s/trilap-solve --solver cg --repeat 2 --no-stats --trace %s gen:poisson7:6", tl_test_bin(), plain));
    static const char *const cmds[] = {"overlap", "diagnose"};
    for (size_t c = 0; c < 2; c++) {
        char *o = tl_test_output_of("%s/trilap-analyze %s %s", tl_test_bin(), cmds[c], dir);
        const char *say = strstr(o, "\n# iterations: rank 0: the program ran iteration ");
        long long k = -1, after = -1, num = -1, prog = -1, off = -1;
        TL_ASSERT_MSG(say && sscanf(say, "\n# iterations: rank 0: the program ran iteration %lld again after %lld", &k,
                                    &after) == 2,
                      "%s: %s", cmds[c], o);
        const char *here = strstr(say, "numbered on here: iteration ");
        TL_ASSERT_MSG(here && sscanf(here, "numbered on here: iteration %lld here is the program's %lld, and every "
                                           "later one %lld above",
                                     &num, &prog, &off) == 3,
                      "%s", o);
        TL_ASSERT_MSG(k > 0 && k <= after && prog == k && num == after + 1 && off == num - k, "%s", say);
        /* the 300 iterations of the solve and those it ran again */
        char n[64];
        snprintf(n, sizeof n, c ? ", %lld iterations;" : "over %lld iterations", 300 + off);
        TL_ASSERT_MSG(strstr(o, n), "%s: no '%s' in %s", cmds[c], n, o);
        free(o);
        o = tl_test_output_of("%s/trilap-analyze %s %s", tl_test_bin(), cmds[c], plain);
        TL_ASSERT_MSG(!strstr(o, "# iterations: "), "%s", o);
        free(o);
    }
}

TL_TEST(nccl_wait_split_on_naive)
{
    /* the synthetic three-naive run shifts rank 1 by 0.5 us: every matched
     * NCCL kernel of rank 0 waits 0.5 us, rank 1's none */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/naive", tl_test_tmpdir());
    synth(dir, "naive", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    /* rank, "*" (all operations), matched, waiting us, transfer us, wait %, last */
    static const double want[2][5] = {{40, 20.0, 500.0, 3.8, 0}, {40, 0.0, 520.0, 0.0, 40}};
    for (int r = 0; r < 2; r++) {
        char key[32];
        snprintf(key, sizeof key, "\n  %d    *", r);
        const char *row = strstr(o, key);
        TL_ASSERT_MSG(row, "%s", o);
        double v[5];
        TL_ASSERT_EQ(sscanf(row + strlen(key), "%lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4]), 5);
        for (int k = 0; k < 5; k++) TL_ASSERT_NEAR(v[k], want[r][k], 1e-9);
    }
    TL_ASSERT(strstr(o, "ncclDevKernel_AllReduce_Sum_f64_RING_LL"));
    free(o);
}

/* Two ranks on one host doing four allreduces that end together, rank 1's
 * clock `skew` ns ahead (`jitter`: one end 300 ns off, so the estimate is
 * the median, not one pair); the run folder under the test dir. */
static void write_skewed_ranks(const char *dir, int nranks, const int64_t *skew, const char *const *shared)
{
    static const int64_t a0[] = {0, 100000, 0, 50000}, a1[] = {200000, 0, 150000, 50000},
                         jitter[] = {0, 0, 300, 0};
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir), 0);
    for (int r = 0; r < nranks; r++) {
        char p[1100], body[4096], sh[64] = "";
        if (shared && shared[r]) snprintf(sh, sizeof sh, "# clock_shared=%s\n", shared[r]);
        int w = snprintf(body, sizeof body,
                         "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=%d\n# host=node7\n"
                         "# clock=CLOCK_MONOTONIC\n%s# complete=yes\n" TL_TRACE_HEADER "\n",
                         r, nranks, sh);
        for (int i = 0; i < 4; i++) {
            int64_t base = 1000000 + i * 1000000LL + skew[r];
            int64_t s = base + (r ? a1[i] : a0[i]), e = base + 500000 + (r ? jitter[i] : 0);
            w += snprintf(body + w, sizeof body - (size_t)w,
                          "%d,0,14,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f32_RING_LL,%lld,%lld,%d,-1,%d\n"
                          "%d,0,13,compute,compute,kernel,gemm,%lld,%lld,%d,-1,%d\n",
                          r, (long long)s, (long long)e, 10 + i, i, r, (long long)(base + 600000),
                          (long long)(base + 900000), 20 + i, i);
        }
        snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
        tl_test_write(p, body);
    }
}

static void write_skewed_run(const char *dir, int64_t skew)
{
    const int64_t sk[] = {0, skew};
    write_skewed_ranks(dir, 2, sk, NULL);
}

/* The waiting table of `overlap` (its rows, without the preamble). */
static char *wait_table(const char *out)
{
    const char *a = strstr(out, "# table: communication waiting and transfer"), *b = a ? strstr(a, "# operation *") : NULL;
    TL_ASSERT_MSG(a && b, "%s", out);
    a = strstr(a, "\n# rank");
    TL_ASSERT(a && a < b);
    char *t = malloc((size_t)(b - a) + 1);
    TL_ASSERT(t);
    memcpy(t, a, (size_t)(b - a));
    t[b - a] = '\0';
    return t;
}

/* issue 27: --align-clocks estimates a rank's clock offset from the ends of
 * the matched collectives and applies it to the cross-rank figures: on a
 * run whose rank 1 clock is 5 ms ahead, the waiting figures are those of
 * the same run without the skew, and the clock line says what was applied.
 * Without it the skew hides every wait (rank 1 "starts" after rank 0
 * ended). */
TL_TEST(align_clocks_recovers_offset)
{
    char truth[1024], skewed[1024];
    snprintf(truth, sizeof truth, "%s", tl_test_path("truth"));
    snprintf(skewed, sizeof skewed, "%s", tl_test_path("skewed"));
    write_skewed_run(truth, 0);
    write_skewed_run(skewed, 5000000);
    char *t = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), truth);
    char *a = tl_test_output_of("%s/trilap-analyze overlap --align-clocks %s", tl_test_bin(), skewed);
    char *raw = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), skewed);
    char *wt = wait_table(t), *wa = wait_table(a), *wr = wait_table(raw);
    TL_ASSERT_MSG(strstr(wt, "  0    *   ") && strstr(wt, " 4   350.0   1500.0 18.9    1\n") &&
                      strstr(wt, " 4   100.0   1500.3  6.2    2\n"),
                  "%s", wt);
    TL_ASSERT_MSG(!strcmp(wt, wa), "aligned:\n%s\ntruth:\n%s", wa, wt);
    TL_ASSERT_MSG(strcmp(wt, wr) != 0, "the skew changed nothing:\n%s", wr);
    TL_ASSERT_MSG(strstr(a, "# clock: each rank on its own clock (CLOCK_MONOTONIC), offsets to rank 0 estimated from "
                            "the ends of 4 matched collectives") &&
                      strstr(a, "not to a measured offset: rank 1 +5000.0 us\n"),
                  "%s", a);
    TL_ASSERT_MSG(strstr(raw, "# clock: all ranks on one host's CLOCK_MONOTONIC"), "%s", raw);
    /* the same estimate in diagnose: late-ranks on rank 0, its most delayed op */
    char *d = tl_test_output_of("%s/trilap-analyze diagnose --align-clocks --wait-share 5 --min-comm-share 0 %s", tl_test_bin(),
                      skewed);
    TL_ASSERT_MSG(strstr(d, "rank 1 came 200.0 us after the first"), "%s", d);
    printf("%s", wa);
    free(d);
    free(wt);
    free(wa);
    free(wr);
    free(t);
    free(a);
    free(raw);
}

/* A rank that reads rank 0's very clock (clock_shared: threads of one
 * process, or one host's boot and time namespace) gets no offset under
 * --align-clocks: what its collective ends differ by is their spread, kept
 * as data. Before, the estimate was applied, and the "# clock:" line gave
 * rank 1 an offset its "# rank:" line said it had none of. And
 * --align-clocks with --raw-clock (each rank on its own clock) is refused. */
TL_TEST(align_clocks_spares_shared_clocks)
{
    char one[1024], three[1024];
    snprintf(one, sizeof one, "%s", tl_test_path("threads"));
    snprintf(three, sizeof three, "%s", tl_test_path("three"));
    const int64_t spread[] = {0, 8000};
    const char *const threads[] = {"process", "process"};
    write_skewed_ranks(one, 2, spread, threads);
    char *plain = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), one);
    char *a = tl_test_output_of("%s/trilap-analyze overlap --align-clocks %s", tl_test_bin(), one);
    char *wp = wait_table(plain), *wa = wait_table(a);
    TL_ASSERT_MSG(!strcmp(wp, wa), "aligned:\n%s\nunaligned:\n%s", wa, wp);
    TL_ASSERT_MSG(strstr(a, "# clock: all ranks on rank 0's clock itself (threads of one process): --align-clocks "
                            "applies no offsets; the ends of 4 matched collectives differ from rank 0's by (median; "
                            "their spread, not a clock offset): rank 1 +8.0 us\n") &&
                      strstr(a, "# rank: 1 device 0 (?) on node7, complete; one clock for the threads of one process "
                                "(no offset)\n"),
                  "%s", a);
    free(wp);
    free(wa);
    free(plain);
    free(a);
    /* beside a rank on its own clock, 5 ms ahead: that one is aligned */
    const int64_t sk[] = {0, 8000, 5000000};
    const char *const host[] = {NULL, "host", NULL};
    write_skewed_ranks(three, 3, sk, host);
    a = tl_test_output_of("%s/trilap-analyze overlap --align-clocks %s", tl_test_bin(), three);
    TL_ASSERT_MSG(strstr(a, "not to a measured offset: rank 1 none (rank 0's clock itself; its ends +8.0 us), rank 2 "
                            "+5000.0 us\n"),
                  "%s", a);
    free(a);
    for (int k = 0; k < 3; k++) {
        static const char *const cmd[] = {"overlap", "diagnose", "compare"};
        char line[4096];
        snprintf(line, sizeof line, "%s/trilap-analyze %s --align-clocks --raw-clock %s%s%s", tl_test_bin(), cmd[k],
                 one, k == 2 ? " " : "", k == 2 ? three : "");
        tl_test_output o = tl_test_capture("%s", line);
        char want[256];
        snprintf(want, sizeof want, "trilap-analyze: --align-clocks and --raw-clock contradict each other: "
                                    "--raw-clock keeps each rank on its own clock, --align-clocks puts every rank on "
                                    "the first's by offsets estimated from collective ends; give one (try --help)\n");
        TL_ASSERT_MSG(o.rc == 2 && !strcmp(o.err, want) && !o.out[0], "%s: exit %d\n%s%s", line, o.rc, o.out, o.err);
        tl_test_output_free(&o);
    }
}

TL_TEST(nsys_threads_are_ranks)
{
    /* an Nsight Systems export of trilap-solve --ranks 2 --device-comm host
     * on one H200: one process, two rank threads (tests/data/README.md) */
    char db[600];
    snprintf(db, sizeof db, "%s", tl_test_path("r2.sqlite"));
    TL_ASSERT_EQ(tl_test_sh("gzip -dc tests/data/nsys-ranks/pipecg-r2-threads.sqlite.gz > %s", db), 0);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s --iters 1:", tl_test_bin(), db);
    TL_ASSERT_MSG(strstr(o, "# ranks: 2\n"), "%s", o);
    /* each rank its own 20 iterations (plus the set-up one), not 42 merged */
    /* of the selection 1:, as the 42 operations its waiting table matched
     * (47 and 94 in the whole file, the set-up iteration included) */
    TL_ASSERT_MSG(strstr(o, "rank 0: 0 NCCL kernels, 84 copies on p2p/coll lanes, 42 host exchanges"), "%s", o);
    TL_ASSERT(strstr(o, "rank 1: 0 NCCL kernels, 84 copies on p2p/coll lanes, 42 host exchanges"));
    TL_ASSERT(strstr(o, "over 20 iterations"));
    TL_ASSERT(!tl_test_says_nan(o));
    free(o);
    /* the kernels split between the ranks: 48 SpMV parts each */
    o = tl_test_output_of("%s/trilap-analyze breakdown %s", tl_test_bin(), db);
    TL_ASSERT_MSG(strstr(o, "r2.sqlite 0    category spmv         *                          48"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "r2.sqlite 1    category spmv         *                          48"), "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze diagnose %s --iters 1:", tl_test_bin(), db);
    TL_ASSERT_MSG(strstr(o, "[exposed-communication]: communication takes"), "%s", o);
    TL_ASSERT(strstr(o, "[serialised-host-lane]: P2P and collective"));
    free(o);
}

/* trilap-analyze with the arguments after rc (NULL-ended; an empty one
 * left out): its stdout and stderr together (malloc'd), its exit code in
 * *rc. Started without a shell: the loops over every committed run start
 * it some 800 times (a shell each was 4 s of CPU). */
static char *analyze(int *rc, ...)
{
    char prog[1024], *argv[16];
    int n = 0;
    snprintf(prog, sizeof prog, "%s/trilap-analyze", tl_test_bin());
    argv[n++] = prog;
    va_list ap;
    va_start(ap, rc);
    for (const char *a; (a = va_arg(ap, const char *)) != NULL;)
        if (a[0] && n < 15) argv[n++] = (char *)a; /* exec's argv, never written */
    va_end(ap);
    argv[n] = NULL;
    const char *out = tl_test_path("analyze.out");
    fprintf(stderr, "$ %s ...\n", prog);
    *rc = tl_test_spawn_to(out, argv);
    return tl_test_read(out);
}

/* `overlap` reads `input` with `flags`; a run the refusal says is marked
 * complete=no (the one documented reason) reads with --accept-incomplete.
 * What it printed (malloc'd). */
static char *loads(const char *input, const char *flags)
{
    int rc;
    char *o = analyze(&rc, "overlap", flags, input, NULL);
    if (rc != 0 && strstr(o, "complete=no")) {
        free(o);
        o = analyze(&rc, "overlap", "--accept-incomplete", flags, input, NULL);
    }
    TL_ASSERT_MSG(rc == 0, "overlap %s %s refused a run that is one:\n%s", flags, input, o);
    return o;
}

/* --raw-clock on a PyTorch profiler trace or an Nsight Systems export,
 * which have no measured offsets to leave unapplied: refused in one line
 * naming the input (exit 2). */
static void raw_clock_refused(const char *input)
{
    int rc;
    char *o = analyze(&rc, "overlap", "--raw-clock", input, NULL);
    TL_ASSERT_MSG(rc == 2 && strstr(o, "--raw-clock does not apply to ") && strstr(o, input),
                  "overlap --raw-clock %s: exit %d:\n%s", input, rc, o);
    free(o);
}

/* A run folder or an Nsight Systems export (input; run, the name under
 * results/) through every other command: undefined values print "-" with
 * a reason, never nan. overlap's output is the caller's (`loads`). */
static void no_nan_in_commands(const char *input, const char *run)
{
    /* an export has no complete=no to accept: the flag is refused there */
    const char *acc = strstr(input, ".sqlite") ? "" : "--accept-incomplete";
    char out[600];
    snprintf(out, sizeof out, "%s", tl_test_path("tl.csv"));
    static const char *const cmds[] = {"diagnose", "breakdown"};
    int rc;
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char *o = analyze(&rc, cmds[c], acc, input, NULL);
        TL_ASSERT_MSG(rc == 0, "%s %s %s: exit %d: %s", cmds[c], acc, input, rc, o);
        TL_ASSERT_MSG(!tl_test_says_nan(o), "%s %s:\n%s", cmds[c], run, o);
        free(o);
    }
    char *o = analyze(&rc, "timeline", acc, input, "-o", out, NULL);
    TL_ASSERT_MSG(rc == 0, "timeline %s %s: exit %d: %s", acc, input, rc, o);
    free(o);
    char *t = tl_test_read(out);
    TL_ASSERT_MSG(!tl_test_says_nan(t), "timeline %s", run);
    free(t);
}

TL_TEST(every_committed_trace_loads)
{
    /* the checks that refuse the ranks of two runs in one folder (and a run
     * with nothing recorded) take none of these: every run folder, export
     * and PyTorch profiler trace under results/ and the shared Kineto sets,
     * on the measured offsets, on each rank's raw clock and with offsets
     * estimated; what import writes of each export and Kineto set reads
     * back as it is, without --accept-incomplete. Every run folder and
     * export, through every command besides: undefined values print "-"
     * with a reason, never nan (no_nan_on_committed_runs read them all a
     * second time, a test of its own) */
    char list[600];
    snprintf(list, sizeof list, "%s", tl_test_path("inputs"));
    const char *kineto = tl_test_env("TL_DATA", "../shared/data");
    TL_ASSERT_EQ(tl_test_sh("{ find results \\( -name 'trace.rank0.csv' -o -name 'trace.rank0.csv.gz' \\) -printf '%%h\\n';"
                            " find results -name '*.sqlite.gz' -o -name '*.json.gz'; if [ -d %s/kineto ]; then"
                            " find %s/kineto -mindepth 1; fi; } | sort -u > %s",
                            kineto, kineto, list),
                 0);
    char *inputs = tl_test_read(list), *save = NULL;
    int n = 0, runs = 0;
    for (char *in = strtok_r(inputs, "\n", &save); in; in = strtok_r(NULL, "\n", &save), n++) {
        char input[700], imp[700];
        snprintf(input, sizeof input, "%s", in);
        if (strstr(in, ".sqlite.gz")) { /* SQLite opens only a plain export */
            snprintf(input, sizeof input, "%s/%d.sqlite", tl_test_path("x"), n);
            TL_ASSERT_EQ(tl_test_sh("mkdir -p %s && gzip -dc %s > %s", tl_test_path("x"), in, input), 0);
        }
        int foreign = strstr(input, ".sqlite") || strstr(input, ".json") || strstr(input, "/kineto/");
        char *o = loads(input, "");
        if (!strstr(input, ".json") && !strstr(input, "/kineto/")) { /* a run folder or an export */
            TL_ASSERT_MSG(!tl_test_says_nan(o), "overlap %s:\n%s", in, o);
            no_nan_in_commands(input, in);
            runs++;
        }
        free(o);
        if (foreign) raw_clock_refused(input);
        else free(loads(input, "--raw-clock"));
        free(loads(input, "--align-clocks"));
        if (!foreign) continue;
        snprintf(imp, sizeof imp, "%s/%d", tl_test_path("imported"), n);
        int rc;
        o = analyze(&rc, "import", input, "-o", imp, NULL);
        TL_ASSERT_MSG(rc == 0, "import %s -o %s: exit %d: %s", input, imp, rc, o);
        free(o);
        o = analyze(&rc, "overlap", imp, NULL);
        TL_ASSERT_MSG(rc == 0, "the import of %s does not read back:\n%s", input, o);
        free(o);
    }
    TL_ASSERT_MSG(runs >= 10, "only %d runs found under results/", runs);
    TL_ASSERT_MSG(n >= 60, "only %d inputs found under results/ and %s/kineto", n, kineto);
    free(inputs);
}

/* ---- trilap's own multi-rank runs (review of a6c1dec) ----------------------- */

/* A rank file written by hand: the metadata of a traced run on one host
 * (device -1: a host-only rank), then rows, under dir. */
static void write_rank(const char *dir, int rank, int nranks, int device, const char *extra_meta, const char *rows)
{
    char p[1100], *body = malloc(strlen(rows) + 1024);
    TL_ASSERT(body);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir), 0);
    sprintf(body,
            "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=%d\n# host=node7\n# device=%d\n"
            "# clock=CLOCK_MONOTONIC\n# program=trilap-solve\n%s# complete=yes\n" TL_TRACE_HEADER "\n%s",
            rank, nranks, device, extra_meta, rows);
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, rank);
    tl_test_write(p, body);
    free(body);
}

/* diagnose's host-staging counts the staging copies over the selection, as
 * the host exchanges beside them and overlap's "# communication:" line
 * (before: the whole file's copies, 80 beside 4 exchanges of
 * --iter-range 5:6). */
TL_TEST(staging_copies_counted_in_selection)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/stagesel", tl_test_tmpdir());
    synth_as("trilap-solve", dir, "staged", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s --iter-range 5:6 --staging-share 0", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "us): 4 host exchanges, 8 staging copies on the p2p/coll lanes"), "%s", o);
    free(o);
    o = tl_test_output_of("%s/trilap-analyze overlap %s --iter-range 5:6", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "rank 0: 0 NCCL kernels, 8 copies on p2p/coll lanes, 4 host exchanges"), "%s", o);
    free(o);
}

/* The field after `key` in the CSV text (a row's start), as a number. */
static double csv_field(const char *csv, const char *key, int k)
{
    const char *p = strstr(csv, key);
    TL_ASSERT_MSG(p, "no row %s in\n%s", key, csv);
    p += strlen(key);
    for (int i = 0; i < k; i++) {
        p = strchr(p, ',');
        TL_ASSERT(p);
        p++;
    }
    return strtod(p, NULL);
}

/* breakdown counts a GPU rank's host-staged exchanges (category host-comm)
 * as overlap counts them in U_comm (before: only their staging copies). */
TL_TEST(host_staged_breakdown_counts_host_comm)
{
    char dir[1024], csv[1100];
    snprintf(dir, sizeof dir, "%s/stagebd", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/stagebd.csv", tl_test_tmpdir());
    synth_as("trilap-solve", dir, "staged", 2, 20);
    free(tl_test_output_of("%s/trilap-analyze breakdown %s --csv %s", tl_test_bin(), dir, csv));
    char *c = tl_test_read(csv);
    /* 19 us of allreduce and 12 of exchange in each of 20 iterations of 72 */
    TL_ASSERT_NEAR(csv_field(c, "\nstagebd,0,category,host-comm,*,", 0), 40, 0);
    TL_ASSERT_NEAR(csv_field(c, "\nstagebd,0,category,host-comm,*,", 1), 620.0, 1e-9);
    TL_ASSERT_NEAR(csv_field(c, "\nstagebd,0,category,host-comm,*,", 5), 43.1, 1e-9);
    TL_ASSERT_NEAR(csv_field(c, "\nstagebd,1,name,host-comm,p2p:staged exchange,", 1), 240.0, 1e-9);
    /* the host's compute marks on a GPU rank stay out: its kernels are its compute */
    TL_ASSERT_MSG(!strstr(c, "compute:axpy"), "%s", c);
    free(c);
}

/* Records whose rank the probes guessed (owner_guess) are said once per
 * command, naming the rank file and how many (before: nothing). */
TL_TEST(guessed_owners_said)
{
    char dir[1024], tmp[512];
    snprintf(tmp, sizeof tmp, "%s", tl_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/guessed", tmp);
    synth_as("trilap-solve", dir, "staged", 2, 20);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# complete=yes$/# owner_guess=7\\n&/' %s/trace.rank1.csv", dir), 0);
    static const char *const cmds[] = {"overlap", "diagnose", "breakdown", "perfetto"};
    const char *say = "rank 1's file holds 7 GPU or API records whose rank the probes guessed (owner_guess; "
                      "ranks sharing a GPU and a process, no rule of probes/README.md \"Which rank a record belongs "
                      "to\" decided): its per-rank figures may mix ranks' records\n";
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char *o = tl_test_output_of("%s/trilap-analyze %s %s %s", tl_test_bin(), cmds[k], dir,
                          k == 3 ? "-o /dev/null" : "");
        /* breakdown's names the run first ("# note: guessed: rank 1's ...") */
        TL_ASSERT_MSG(tl_test_count(o, say) == 1 && tl_test_count(o, "owner_guess") == 1 &&
                          strstr(o, k == 2 ? "# note: guessed: rank 1's" : "# note: rank 1's"),
                      "%s:\n%s", cmds[k], o);
        free(o);
    }
    /* a run without guesses says nothing */
    snprintf(dir, sizeof dir, "%s/unguessed", tmp);
    synth_as("trilap-solve", dir, "staged", 2, 4);
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT_MSG(!strstr(o, "owner_guess"), "%s", o);
    free(o);
}

/* late-ranks' example is an operation of the loop, not the set-up exchange
 * before iteration 0 (before: "#0 of it (no iteration marked on it): rank 1
 * came 800.0 us after the first", the threads' start-up skew). */
TL_TEST(late_ranks_example_from_the_loop)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/setup-late", tl_test_tmpdir());
    static const int late[] = {5, 10, 30, 20};
    for (int r = 0; r < 2; r++) {
        char rows[4096];
        int64_t b = 1000000000;
        int w = snprintf(rows, sizeof rows, "%d,-1,0,p2p,range,host,p2p:staged exchange,%lld,%lld,0,-1,-1\n", r,
                         (long long)(b + (r ? 800000 : 0)), (long long)(b + 900000));
        for (int i = 0; i < 4; i++) {
            int64_t t = b + 1000000 + 100000LL * i, d = r ? late[i] * 1000 : 0;
            w += snprintf(rows + w, sizeof rows - (size_t)w,
                          "%d,%d,13,compute,compute,kernel,tl_spmv_kernel,%lld,%lld,%d,-1,%d\n"
                          "%d,-1,0,p2p,range,host,p2p:staged exchange,%lld,%lld,0,-1,%d\n",
                          r, r, (long long)t, (long long)(t + 40000 + d), 10 + i, i, r, (long long)(t + 40000 + d),
                          (long long)(t + 80000), i);
        }
        /* the window opens before the set-up, as a thread run's does */
        write_rank(dir, r, 2, r, "# window_start_ns=1000000000\n# window_end_ns=1001400000\n", rows);
    }
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s --wait-share 0", tl_test_bin(), dir);
    TL_ASSERT_MSG(strstr(o, "most delayed: p2p:staged exchange (the host), #3 of it (iteration 2): rank 1 came 30.0 "
                            "us after the first"),
                  "%s", o);
    free(o);
}

/* The waiting table's row of rank `rank` and operation `name`: matched,
 * waiting, last ("-" of an operation's row: -1). */
static void wait_row(const char *o, int rank, const char *name, long *matched, double *wait)
{
    char key[160];
    snprintf(key, sizeof key, "\n  %d    %s ", rank, name);
    const char *p = strstr(o, key);
    TL_ASSERT_MSG(p, "no row %d %s in\n%s", rank, name, o);
    TL_ASSERT_EQ(sscanf(p + strlen(key), "%ld %lf", matched, wait), 2);
}

/* A non-blocking post waits for nobody, and an operation whose ranks did
 * not run it together is no one operation: neither counts waiting, so the
 * ranks' `last` add up to the operations that waited (before: rank 0's
 * halo_post 20.0 us and allreduce 40.0 us of waiting, `last` 8 of 12
 * operations, 4 of them posts). */
TL_TEST(posts_and_apart_ranks_do_not_wait)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/posts", tl_test_tmpdir());
    /* per rank, times in us within each 100 us iteration: the post, the
     * wait (rank 1 last, at 30), an allreduce rank 1 ends (65) before
     * rank 2 starts it (70) */
    static const int post[3][2] = {{0, 10}, {5, 15}, {2, 12}}, hw[3][2] = {{10, 50}, {30, 50}, {25, 50}},
                     ar[3][2] = {{60, 90}, {60, 65}, {70, 90}};
    for (int r = 0; r < 3; r++) {
        char rows[8192];
        int w = 0;
        for (int i = 0; i < 4; i++) {
            long long t = 1000000000LL + 100000LL * i;
            w += snprintf(rows + w, sizeof rows - (size_t)w,
                          "%d,-1,0,host,range,host,iter,%lld,%lld,0,-1,%d\n"
                          "%d,-1,0,p2p,range,host,p2p:halo_post,%lld,%lld,0,-1,%d\n"
                          "%d,-1,0,p2p,range,host,p2p:halo_wait,%lld,%lld,0,-1,%d\n"
                          "%d,-1,0,coll,range,host,coll:allreduce,%lld,%lld,0,-1,%d\n",
                          r, t, t + 100000, i, r, t + post[r][0] * 1000, t + post[r][1] * 1000, i, r,
                          t + hw[r][0] * 1000, t + hw[r][1] * 1000, i, r, t + ar[r][0] * 1000, t + ar[r][1] * 1000,
                          i);
        }
        write_rank(dir, r, 3, -1, "", rows);
    }
    char *o = tl_test_output_of("%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    static const double want_hw[3] = {80.0, 0.0, 20.0};
    for (int r = 0; r < 3; r++) {
        long m;
        double wt;
        wait_row(o, r, "p2p:halo_post", &m, &wt);
        TL_ASSERT_MSG(m == 4 && wt == 0.0, "rank %d: halo_post waited %.1f us\n%s", r, wt, o);
        wait_row(o, r, "coll:allreduce", &m, &wt);
        TL_ASSERT_MSG(m == 4 && wt == 0.0, "rank %d: allreduce waited %.1f us\n%s", r, wt, o);
        wait_row(o, r, "p2p:halo_wait", &m, &wt);
        TL_ASSERT_MSG(m == 4 && wt == want_hw[r], "rank %d: halo_wait waited %.1f us\n%s", r, wt, o);
    }
    /* last: rank 1 at every halo_wait, and at nothing else */
    long last[3];
    for (int r = 0; r < 3; r++) {
        char key[64];
        snprintf(key, sizeof key, "\n  %d    *", r);
        const char *p = strstr(o, key);
        double a, b, c;
        long m;
        TL_ASSERT_MSG(p && sscanf(p + strlen(key), "%ld %lf %lf %lf %ld", &m, &a, &b, &c, &last[r]) == 5, "%s", o);
    }
    TL_ASSERT_MSG(last[0] == 0 && last[1] == 4 && last[2] == 0, "last %ld %ld %ld\n%s", last[0], last[1], last[2], o);
    /* and none of them is a most delayed operation but the waits */
    TL_ASSERT_MSG(!strstr(strstr(o, "# table: most delayed operations"), "halo_post"), "%s", o);
    free(o);
}

/* no-comm-compute-overlap on host-staged GPU ranks gives the host-staged
 * remedy, not the NCCL streams' (before: "give them their own stream ...
 * cudaStreamWaitEvent" beside "0 of 0 NCCL kernels"). */
TL_TEST(host_staged_no_overlap_remedy)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/stagerem", tl_test_tmpdir());
    synth_as("trilap-solve", dir, "staged", 2, 20);
    char *o = tl_test_output_of("%s/trilap-analyze diagnose %s", tl_test_bin(), dir);
    const char *f = strstr(o, "[no-comm-compute-overlap]"), *end = f ? strstr(f, "\nFINDING") : NULL;
    TL_ASSERT_MSG(f && end, "%s", o);
    char *part = malloc((size_t)(end - f) + 1);
    TL_ASSERT(part);
    memcpy(part, f, (size_t)(end - f));
    part[end - f] = '\0';
    TL_ASSERT_MSG(!strstr(part, "cudaStreamWaitEvent") && !strstr(part, "own stream") &&
                      strstr(part, "  remedy: the host carries this rank's communication") &&
                      strstr(part, "--device-comm nccl"),
                  "%s", part);
    free(part);
    free(o);
}

TL_TEST_MAIN(infer_lanes_keep_comm_copies, wait_on_a_context_without_work_kept, owner_shared_gpu, owner_every_record_once,
             owner_lowest_rank_by_number, thread_ranks_event_waits_kept_by_their_caller,
             copy_serves_enclosing_communication, comm_classes,
             waiting_is_not_hidden, staged_run_diagnosed, one_rank_without_communication_is_silent,
             host_ranks_communication_counted, host_ranks_remedies_apply, fdtd_remedies_speak_fdtd,
             fdtd_starved_remedy_names_fdtd_options, bench_remedies_speak_bench,
             foreign_program_remedies_name_no_trilap_option, late_ranks_host_evidence,
             host_ranks_iter_range_outside_refused,
             host_ranks_communication_counted_in_window,
             host_ranks_per_iter_derived_undefined, host_ranks_breakdown_counts_host, cpu_runs_compute_counted,
             gpu_ranks_host_compute_marks_not_compute, gpu_rank_without_activity_host_compute_not_compute, a_rank_that_cannot_trace_stops_all, host_runs_compared, fdtd_exchanges_per_step_compared, cg_async_rerun_said, nccl_wait_split_on_naive, nsys_threads_are_ranks,
             align_clocks_recovers_offset, align_clocks_spares_shared_clocks, every_committed_trace_loads,
             staging_copies_counted_in_selection, host_staged_breakdown_counts_host_comm, guessed_owners_said,
             late_ranks_example_from_the_loop, posts_and_apart_ranks_do_not_wait, host_staged_no_overlap_remedy)
