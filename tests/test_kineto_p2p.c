/* A PyTorch pipeline's sends and recvs (Kineto traces) paired with their
 * other end alone: the k-th send of rank 0 to rank 2 is the k-th recv of
 * rank 2 from rank 0, whatever the other ranks send (analysis/README.md,
 * "PyTorch profiler (Kineto) traces"). The ends come from the names
 * ProcessGroupNCCL gives its ops ("nccl:send 0->1", ranks in the process
 * group, mapped through its "Process Group Ranks") or from newer
 * traces' "Dst Rank" / "Src Rank"; a trace that says neither keeps the
 * pairing across every rank and its note. Synthetic traces of two
 * two-stage pipelines over four ranks, rank 2 late at every recv. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tl_test.h"
#include "tl_test_run.h"

/* How a rank's trace says the other end of its send or recv. */
typedef enum ends_style {
    ENDS_NAMES,    /* "nccl:send 0->1" (group ranks) and "Process Group Ranks" */
    ENDS_GLOBAL,   /* record_param_comms' Dst Rank / Src Rank, the op named "nccl:send" */
    ENDS_UNSAID,   /* "nccl:send" and no ranks: the other end is the group's other rank (a group of two) */
    ENDS_NOT_MINE, /* "nccl:send 1->0" on stage 0: A is not this rank in the group */
    ENDS_NO_GROUP, /* "nccl:send", no ranks, no "Process Group Ranks": the ends are not in the trace */
    ENDS_SUBGROUP_COLL, /* each pipeline an all_reduce on its group of two, not a send */
    ENDS_BATCHED,  /* batch_isend_irecv: the kernel launched under nccl:coalesced, no record_param_comms */
    ENDS_BATCH_SAID, /* the same, each send and recv's record_param_comms before it naming its other end;
                        stage 0 also receives from stage 1 (1F1B's send_forward_recv_backward) */
    ENDS_BATCH_TWO,  /* a batch whose sends go to two other ranks */
    ENDS_BATCH_UNSAID, /* ENDS_BATCH_SAID's batch, its records naming no rank (PyTorch before Dst Rank / Src
                          Rank), on a process group of two */
    ENDS_SEND_THEN_BATCH, /* ENDS_GLOBAL's send or recv, then ENDS_BATCH_SAID's batch, in each step */
    ENDS_STYLES
} ends_style;

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        TL_ASSERT(k >= 0);
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = (t->cap + (size_t)k + 1) * 2;
        t->s = realloc(t->s, t->cap);
        TL_ASSERT(t->s);
    }
}

/* One NCCL kernel, its launch (correlation c at `launch` us) and the
 * nccl:* and record_param_comms ops around the launch. */
static void nccl_kernel(text *t, int rank, long c, double launch, double start, double end, const char *kernel,
                        const char *op_name, const char *rpc_args)
{
    put(t, ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": %.1f, \"dur\": 4, \"args\": {\"correlation\": %ld}}",
        launch, c);
    put(t, ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 20, \"ts\": %.1f, "
           "\"dur\": %.1f, \"args\": {\"device\": %d, \"stream\": 20, \"correlation\": %ld}}",
        kernel, start, end - start, rank, c);
    put(t, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %.1f, "
           "\"dur\": 8}",
        op_name, launch - 2);
    if (rpc_args)
        put(t, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, "
               "\"ts\": %.1f, \"dur\": 6, \"args\": {%s}}",
            launch - 1, rpc_args);
}

/* The record_param_comms ProcessGroupNCCL makes of a send or recv inside
 * a batch (no nccl:send op), at `ts` us on the launching thread; end_key
 * NULL: naming no rank. */
static void batch_rpc(text *t, double ts, const char *coll, const char *end_key, int end, int group)
{
    char said[64] = "";
    if (end_key) snprintf(said, sizeof said, ", \"%s\": %d", end_key, end);
    put(t, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": %.1f, \"dur\": 3, \"args\": {\"Collective name\": \"%s\", \"Process Group Name\": \"%d\", "
           "\"Process Group Description\": \"pp\", \"Process Group Ranks\": \"[%d, %d]\", \"In msg nelems\": 1024, "
           "\"dtype\": \"Float\"%s}}",
        ts, coll, group, group - 1, group + 1, said);
}

/* Rank r of four: pipelines {0, 2} (process group 1) and {1, 3} (group 2),
 * stage 0 sending to stage 1 once per ProfilerStep; rank 2 reaches its
 * recv 30 us after rank 0's send starts, the others together; then an
 * all_reduce of all four, together. */
static void write_rank(const char *dir, int r, ends_style style)
{
    const int stage = r / 2, group = 1 + r % 2, peer = stage ? r - 2 : r + 2;
    text t = {0};
    put(&t, "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
            " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": 4},\n"
            " \"traceEvents\": [\n"
            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 500, "
            "\"dur\": 50, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": 1}}",
        r, r);
    for (int i = 0; i < 3; i++) {
        double t0 = 1000.0 * (i + 1);
        put(&t, ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %.1f, \"dur\": 900}",
            i, t0);
        char op[64], rpc[512], ranks[64] = "";
        const char *dir_name = style == ENDS_SUBGROUP_COLL ? "allreduce" : stage ? "recv" : "send";
        int late = r == 2 ? 30 : 0;
        if (style == ENDS_NAMES) snprintf(op, sizeof op, stage ? "nccl:recv 1<-0" : "nccl:send 0->1");
        else if (style == ENDS_NOT_MINE) snprintf(op, sizeof op, stage ? "nccl:recv 0<-1" : "nccl:send 1->0");
        else if (style == ENDS_BATCHED) snprintf(op, sizeof op, "nccl:coalesced");
        else if (style == ENDS_SUBGROUP_COLL) snprintf(op, sizeof op, "nccl:all_reduce");
        else snprintf(op, sizeof op, "nccl:%s", dir_name);
        if (style != ENDS_NO_GROUP) snprintf(ranks, sizeof ranks, "\"Process Group Ranks\": \"[%d, %d]\", ", r % 2, r % 2 + 2);
        int w = snprintf(rpc, sizeof rpc,
                         "\"Collective name\": \"%s\", \"Process Group Name\": \"%d\", \"Process Group Description\": "
                         "\"pp\", %s\"In msg nelems\": 1024, \"dtype\": \"Float\"",
                         dir_name, group, ranks);
        if (style == ENDS_GLOBAL)
            snprintf(rpc + w, sizeof rpc - (size_t)w, ", \"%s\": %d", stage ? "Src Rank" : "Dst Rank", peer);
        if (style == ENDS_SEND_THEN_BATCH) {
            /* the single op as ENDS_GLOBAL writes it: its record nested in its nccl:* op, started after it */
            char single[600];
            snprintf(single, sizeof single, "%s, \"%s\": %d", rpc, stage ? "Src Rank" : "Dst Rank", peer);
            nccl_kernel(&t, r, 102 + i * 10, t0 + 40, t0 + 45, t0 + 70,
                        "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", stage ? "nccl:recv" : "nccl:send",
                        single);
        }
        if (style == ENDS_BATCH_SAID || style == ENDS_BATCH_TWO || style == ENDS_BATCH_UNSAID ||
            style == ENDS_SEND_THEN_BATCH) {
            int two = style == ENDS_BATCH_TWO, said = style != ENDS_BATCH_UNSAID;
            snprintf(op, sizeof op, "nccl:coalesced");
            batch_rpc(&t, t0 + 80 + late, "send", said ? "Dst Rank" : NULL, two ? (r + 1) % 4 : peer, group);
            batch_rpc(&t, t0 + 90 + late, two ? "send" : "recv", !said ? NULL : two ? "Dst Rank" : "Src Rank", peer,
                      group);
        }
        nccl_kernel(&t, r, 100 + i * 10, t0 + 100 + late, t0 + 110 + late, t0 + 200,
                    style == ENDS_SUBGROUP_COLL ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                                                : "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                    op, style >= ENDS_BATCHED ? NULL : rpc);
        nccl_kernel(&t, r, 101 + i * 10, t0 + 290, t0 + 300, t0 + 400,
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "nccl:all_reduce",
                    "\"Collective name\": \"allreduce\", \"Process Group Name\": \"0\", \"Process Group "
                    "Description\": \"default_pg\", \"Process Group Ranks\": \"[0, 1, 2, 3]\", \"In msg nelems\": "
                    "4096, \"dtype\": \"Float\"");
    }
    put(&t, "\n ], \"traceName\": \"rank%d.json\"}\n", r);
    char p[1200];
    snprintf(p, sizeof p, "%s/rank%d.json", dir, r);
    tl_test_write(p, t.s);
    free(t.s);
}

static const char *pipelines(ends_style style)
{
    static char dir[ENDS_STYLES][1024];
    snprintf(dir[style], sizeof dir[style], "%s/pipe%d", tl_test_tmpdir(), (int)style);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir[style]), 0);
    for (int r = 0; r < 4; r++) write_rank(dir[style], r, style);
    return dir[style];
}

/* overlap's row of `rank` for the operation whose name starts `op` in the
 * waiting and transfer table: its waiting (us) and matched count. */
static double waiting(const char *o, int rank, const char *op, long *matched)
{
    char key[200];
    snprintf(key, sizeof key, "\n  %d    \"%s", rank, op);
    const char *p = strstr(o, key);
    TL_ASSERT_MSG(p, "no row %d %s in\n%s", rank, op, o);
    p = strchr(p + strlen(key), '"');
    double w = -1;
    TL_ASSERT_MSG(p && sscanf(p + 1, "%ld %lf", matched, &w) == 2, "row %d %s unreadable in\n%s", rank, op, o);
    return w;
}

static char *analyze(const char *args, const char *dir)
{
    return tl_test_output_of("%s/trilap-analyze %s %s", tl_test_bin(), args, dir);
}

/* `import` of dir into a folder of its own (its name: `what`), *out set
 * to that folder; the text of rank `rank`'s trace file there. */
static char *imported_rank(const char *dir, const char *what, int rank, char *out, size_t n)
{
    char p[1300];
    snprintf(out, n, "%s/%s", tl_test_tmpdir(), what);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s > /dev/null", tl_test_bin(), dir, out), 0);
    snprintf(p, sizeof p, "%s/trace.rank%d.csv", out, rank);
    return tl_test_read(p);
}

/* Rank 0 waits 30 us at each of its three sends for rank 2, the one rank
 * it sends to; rank 1's sends to rank 3 wait for nobody. Before, the sends
 * of each pipeline were keys of one rank each ("nccl:send 0->1 on process
 * group 1 ..."), left unmatched: no waiting at all. */
/* overlap's rows of each rank's operation key[r]: matched 3 times, rank 0
 * waiting 90.0 us (30 at each), the others nothing. */
static void only_rank0_waits(const char *o, const char *const key[4])
{
    static const double want[4] = {90.0, 0.0, 0.0, 0.0};
    for (int r = 0; r < 4; r++) {
        long m = -1;
        double w = waiting(o, r, key[r], &m);
        TL_ASSERT_MSG(m == 3 && w > want[r] - 0.05 && w < want[r] + 0.05, "rank %d: %s matched %ld, waiting %.1f us "
                      "(want 3, %.1f)\n%s", r, key[r], m, w, want[r], o);
    }
}

static void pipeline_waits_on(const char *dir, const char *const chan[4], const char *label)
{
    char *o = analyze("overlap", dir);
    only_rank0_waits(o, chan);
    TL_ASSERT_MSG(!strstr(o, "were paired across every rank"), "%s", o);
    free(o);
    /* the sends are p2p, the all_reduce a collective of another process
     * group: no shared communicator serialises them (the rule said one
     * did, of any two that never overlap) */
    o = analyze("diagnose --wait-share 1", dir);
    TL_ASSERT_MSG(strstr(o, label) &&
                      strstr(o, "n/a [serialised-communicators]: does not apply: ranks 0, 1, 2, 3 are issuing p2p and "
                                "collective kernels that never overlap on two process groups") &&
                      !strstr(o, "[serialised-communicators]: P2P"),
                  "%s", o);
    free(o);
}

static void pipeline_waits(const char *dir)
{
    static const char *const chan[4] = {"nccl:p2p 0->2 ", "nccl:p2p 1->3 ", "nccl:p2p 0->2 ", "nccl:p2p 1->3 "};
    pipeline_waits_on(dir, chan, "nccl:p2p 4.1 kB 0->2 on process group 1 (pp, ranks 0,2)");
}

TL_TEST(send_recv_paired_by_group_ranks_in_names)
{
    const char *dir = pipelines(ENDS_NAMES);
    pipeline_waits(dir);
    /* collectives' matched table: each channel's pairs, the one between
     * ranks 1 and 3 too (it listed the first rank's operations only) */
    char *o = analyze("collectives", dir);
    const char *m = strstr(o, "# table: matched across ranks");
    static const char *const want[] = {
        "     2 \"send 0->2\" \"1 (pp, ranks 0,2)\"           0     2     30.0 30.0         2",
        "     2 \"send 1->3\" \"2 (pp, ranks 1,3)\"           0     2      0.0  0.0         1"};
    for (size_t i = 0; i < 2; i++) TL_ASSERT_MSG(m && strstr(m, want[i]), "'%s' not in\n%s", want[i], o);
    free(o);
}

TL_TEST(send_recv_paired_by_dst_and_src_rank)
{
    pipeline_waits(pipelines(ENDS_GLOBAL));
}

/* "nccl:send" with no ranks on a process group of two: the other end is
 * the group's other rank (before, noted as paired across every rank, and
 * each group's sends unmatched on the ranks outside it). */
TL_TEST(send_recv_paired_in_a_group_of_two)
{
    pipeline_waits(pipelines(ENDS_UNSAID));
}

/* A collective of a process group of some of the ranks (here each
 * pipeline's all_reduce on its group of two) is paired on the group's
 * ranks alone: rank 0 waits 30 us at each for rank 2. Before, the key of
 * group 1, which ranks 1 and 3 lack, was unmatched (`# unmatched: 3
 * operations of 3 names`) and nobody waited. */
TL_TEST(subgroup_collective_paired_within_its_group)
{
    const char *dir = pipelines(ENDS_SUBGROUP_COLL);
    char *o = analyze("overlap", dir);
    static const char *const key[4] = {"nccl:all_reduce on process group 1 ", "nccl:all_reduce on process group 2 ",
                                       "nccl:all_reduce on process group 1 ", "nccl:all_reduce on process group 2 "};
    only_rank0_waits(o, key);
    TL_ASSERT_MSG(!strstr(o, "# unmatched"), "%s", o);
    free(o);
    char out[1100];
    char *f = imported_rank(dir, "imported-subgroup", 3, out, sizeof out);
    /* the group of all four names no peers: every rank is its peer */
    TL_ASSERT_MSG(strstr(f, "\n# peers.0=1 nccl:all_reduce on process group 2 (pp, ranks 1,3)\n") &&
                      !strstr(f, "# peers.1="),
                  "%.1500s", f);
    free(f);
}

/* An import carries the ends as the trace file's peers lines, and reads
 * back to the same waiting. */
TL_TEST(import_writes_the_channels_peers)
{
    char out[1100];
    char *f = imported_rank(pipelines(ENDS_NAMES), "imported", 2, out, sizeof out);
    TL_ASSERT_MSG(strstr(f, "\n# peers.0=0 nccl:p2p 0->2 on process group 1 (pp, ranks 0,2)\n") &&
                      !strstr(f, "# peers.1="),
                  "%.1500s", f);
    free(f);
    pipeline_waits(out);
}

/* Without the ends, the sends and recvs pair across every rank, or their
 * process group's where the trace names its ranks, and the note says so;
 * so too where a name's own rank is not the trace's (a name of another
 * rank's: no end taken from it). */
TL_TEST(send_recv_without_ends_noted)
{
    static const ends_style styles[] = {ENDS_NOT_MINE, ENDS_NO_GROUP};
    /* with its group's ranks an operation pairs across the group, each of
     * the four (send and recv of two groups) a name of its own */
    static const char *const group[] = {"nccl:send on process group 1 (pp, ranks 0,2), nccl:send on process group 2 "
                                        "(pp, ranks 1,3), nccl:recv on process group 1 (pp, ranks 0,2), ...",
                                        "nccl:send on process group 1 (pp)"};
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
        char *o = analyze("overlap", pipelines(styles[i])), want[600];
        /* each name once: it named rank 0's send three times, once a ProfilerStep */
        snprintf(want, sizeof want,
                 "# note: point-to-point operations (%s) were paired across every rank (of "
                 "their process group, where the trace names it): "
                 "the trace does not name each rank's peers (no peers.N metadata: a trace written before it, Nsight "
                 "Systems, a Kineto trace whose sends and recvs name no other end, or a batch of more than 8 "
                 "channels)",
                 group[i]);
        TL_ASSERT_MSG(strstr(o, want) &&
                          !strstr(o, "nccl:p2p"),
                      "%s", o);
        free(o);
    }
}

/* A pipeline's batch_isend_irecv: ProcessGroupNCCL launches the group's
 * SendRecv kernel under nccl:coalesced, which named no point-to-point
 * operation, so its kernels counted as collectives (p2p 0.0 %). */
TL_TEST(batched_send_recv_is_p2p)
{
    char *o = analyze("diagnose", pipelines(ENDS_BATCHED));
    for (int r = 0; r < 4; r++) {
        char want[128];
        snprintf(want, sizeof want, "# rank %d: window 2900.0 us, 3 iterations; compute 1.7%%, p2p %s%%", r,
                 r == 2 ? "6.2" : "9.3");
        TL_ASSERT_MSG(strstr(o, want), "'%s' not in\n%s", want, o);
    }
    free(o);
}

/* Each rank's batch keyed by its channels with its other end. */
static const char *const batch_chan[4] = {"nccl:p2p 0->2, 2->0 ", "nccl:p2p 1->3, 3->1 ", "nccl:p2p 0->2, 2->0 ",
                                           "nccl:p2p 1->3, 3->1 "};

/* A batch with one other rank (1F1B's send_forward_recv_backward against
 * send_backward_recv_forward) is paired with that rank's batch by its
 * channels, read from the record_param_comms of its sends and recvs
 * (ProcessGroupNCCL makes no nccl:send op inside a batch): rank 0 waits
 * 30 us at each for rank 2. Before, every batch was one operation,
 * nccl:coalesced, paired across all four ranks. */
TL_TEST(batch_paired_with_its_other_end)
{
    const char *dir = pipelines(ENDS_BATCH_SAID);
    pipeline_waits_on(dir, batch_chan, "nccl:p2p 8.2 kB 0->2, 2->0 on process group 1 (pp, ranks 0,2)");
    char *o = analyze("collectives", dir);
    const char *m = strstr(o, "# table: matched across ranks");
    TL_ASSERT_MSG(m && strstr(m, "     2 \"coalesced 0->2, 2->0\" \"1 (pp, ranks 0,2)\"           0     2     30.0 "
                                 "30.0         2"),
                  "%s", o);
    free(o);
    char out[1100];
    char *f = imported_rank(dir, "imported-batch", 0, out, sizeof out);
    TL_ASSERT_MSG(strstr(f, "\n# peers.0=2 nccl:p2p 0->2, 2->0 on process group 1 (pp, ranks 0,2)\n"), "%.1500s", f);
    free(f);
}

/* A batch whose sends go to two other ranks is keyed by its channels
 * like any other ("nccl:p2p 0->1, 0->2"), no longer "nccl:coalesced" of
 * its process group paired across the group's ranks with the note (the
 * old limitation this test described). This synthetic trace's sends have
 * no recv at their other ends, so each channel's counts differ (1 and 0):
 * each of the 8 channels of a step unmatched, the 4 batches left whole. */
TL_TEST(batch_with_two_other_ranks_keyed_by_channels)
{
    char *o = analyze("overlap", pipelines(ENDS_BATCH_TWO));
    TL_ASSERT_MSG(strstr(o, "# unmatched: 12 operations of 24 names whose count differs between ranks") &&
                      !strstr(o, "were paired across every rank") && !strstr(o, "nccl:coalesced"),
                  "%s", o);
    free(o);
    char out[1100];
    char *f = imported_rank(pipelines(ENDS_BATCH_TWO), "imported-two", 1, out, sizeof out);
    TL_ASSERT_MSG(strstr(f, "\n# peers.0=2,3 nccl:p2p 1->2, 1->3 on process group 2 (pp, ranks 1,3)\n"), "%.1500s", f);
    free(f);
}

/* A batch whose records name no rank (PyTorch before Dst Rank / Src
 * Rank) on a process group of two has one other end, the group's other
 * rank, as a send there has: paired with that rank's batch by its
 * channels. Before, it stayed nccl:coalesced of its group with the note
 * that a rank's waiting may count ranks it does not exchange with (there
 * are none in a group of two). */
TL_TEST(batch_in_a_group_of_two_paired_by_its_channels)
{
    pipeline_waits_on(pipelines(ENDS_BATCH_UNSAID), batch_chan,
                      "nccl:p2p 8.2 kB 0->2, 2->0 on process group 1 (pp, ranks 0,2)");
}

/* A batch after a send whose record nests in its nccl:send op (started
 * after it, as this file writes every op) is its own two records: 8.2 kB
 * over 0->2, 2->0, and the send keeps its record. Before, the send's
 * record was the batch's too: "nccl:p2p 0->2 x2, 2->0", 12.3 kB. */
TL_TEST(batch_after_a_send_leaves_it_its_record)
{
    const char *dir = pipelines(ENDS_SEND_THEN_BATCH);
    pipeline_waits_on(dir, batch_chan, "nccl:p2p 8.2 kB 0->2, 2->0 on process group 1 (pp, ranks 0,2)");
    char *o = analyze("overlap", dir);
    long m = -1;
    double w = waiting(o, 0, "nccl:p2p 0->2 on ", &m);
    TL_ASSERT_MSG(m == 3 && w == 0.0, "the send: matched %ld, waiting %.1f us\n%s", m, w, o);
    free(o);
}

/* A Dst Rank that is no rank is refused in one line naming the file. */
TL_TEST(bad_dst_rank_refused)
{
    char dir[1024], p[1100], *out = NULL, *err = NULL;
    snprintf(dir, sizeof dir, "%s/bad", tl_test_tmpdir());
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir), 0);
    text t = {0};
    put(&t, "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}, \"traceEvents\": [\n"
            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 500, "
            "\"dur\": 50, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}");
    nccl_kernel(&t, 0, 9, 600, 610, 700, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "nccl:send",
                "\"Collective name\": \"send\", \"Dst Rank\": -4");
    put(&t, "\n]}\n");
    snprintf(p, sizeof p, "%s/rank0.json", dir);
    tl_test_write(p, t.s);
    free(t.s);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap %s", tl_test_bin(), dir);
    TL_ASSERT(tl_test_run(cmd, &out, &err) != 0);
    TL_ASSERT_MSG(strstr(err, "rank0.json: traceEvents[") &&
                      strstr(err, "] record_param_comms of a send: Dst Rank -4 is not a rank\n") &&
                      !strchr(strchr(err, '\n') + 1, '\n'),
                  "%s", err);
    free(out);
    free(err);
}

/* Operations paired by their messages' order ------------------------------
 * NCCL matches the messages of one direction between two ranks in issue
 * order, whatever the grouping: the j-th send a->b on rank a meets the
 * j-th recv from a on rank b. These traces group them differently at the
 * two ends. */

/* One point-to-point operation of a step: its messages, "s1" a send to
 * rank 1, "r3" a recv from rank 3 (one: an nccl:send or nccl:recv op with
 * its record_param_comms naming the other end; several: a batch, its
 * records before the nccl:coalesced op), its kernel from `start` to `end`
 * us past the step's start, launched 10 us before. */
typedef struct p2p_op {
    const char *msgs;
    double start, end;
} p2p_op;

/* The record_param_comms of one message on process group 1 of ranks 0..world-1. */
static void message_rpc(text *t, double ts, double dur, int send, int end, int world)
{
    char ranks[64] = "";
    for (int r = 0, n = 0; r < world; r++) n += snprintf(ranks + n, sizeof ranks - (size_t)n, "%s%d", r ? ", " : "", r);
    put(t, ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, "
           "\"ts\": %.1f, \"dur\": %.1f, \"args\": {\"Collective name\": \"%s\", \"Process Group Name\": \"1\", "
           "\"Process Group Description\": \"pp\", \"Process Group Ranks\": \"[%s]\", \"In msg nelems\": 1024, "
           "\"dtype\": \"Float\", \"%s\": %d}}",
        ts, dur, send ? "send" : "recv", ranks, send ? "Dst Rank" : "Src Rank", end);
}

/* Rank r of `world`: three ProfilerSteps, each of the operations op[0..nop). */
static void write_p2p_rank(const char *dir, int r, int world, const p2p_op *op, size_t nop)
{
    text t = {0};
    put(&t, "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": 1700000000000000000,\n"
            " \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n"
            " \"traceEvents\": [\n"
            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 500, "
            "\"dur\": 50, \"args\": {\"device\": %d, \"stream\": 7, \"correlation\": 1}}",
        r, world, r);
    for (int i = 0; i < 3; i++) {
        double t0 = 1000.0 * (i + 1);
        put(&t, ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %.1f, \"dur\": 900}",
            i, t0);
        for (size_t k = 0; k < nop; k++) {
            double launch = t0 + op[k].start - 10;
            size_t n = strlen(op[k].msgs) / 3 + 1; /* "s1 r0": messages of one digit, a space apart */
            int send = op[k].msgs[0] == 's';
            for (size_t m = 0; n > 1 && m < n; m++) /* a batch's records, before its op */
                message_rpc(&t, launch - 30 + 3 * (double)m, 2, op[k].msgs[3 * m] == 's', op[k].msgs[3 * m + 1] - '0',
                            world);
            /* a single op's record, inside its nccl:* op (which nccl_kernel writes from launch - 2 on) */
            if (n == 1) message_rpc(&t, launch - 1, 6, send, op[k].msgs[1] - '0', world);
            nccl_kernel(&t, r, 100 + i * 10 + (long)k, launch, t0 + op[k].start, t0 + op[k].end,
                        "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
                        n > 1 ? "nccl:coalesced" : send ? "nccl:send" : "nccl:recv", NULL);
        }
    }
    put(&t, "\n ], \"traceName\": \"rank%d.json\"}\n", r);
    char p[1200];
    snprintf(p, sizeof p, "%s/rank%d.json", dir, r);
    tl_test_write(p, t.s);
    free(t.s);
}

static const char *p2p_dir(const char *name)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", tl_test_tmpdir(), name);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s", dir), 0);
    return dir;
}

/* overlap's row of `rank`'s operation `op` matched `m` times with `want` us of waiting. */
static void waits(const char *o, int rank, const char *op, long m, double want)
{
    long got = -1;
    double w = waiting(o, rank, op, &got);
    TL_ASSERT_MSG(got == m && w > want - 0.05 && w < want + 0.05, "rank %d: %s matched %ld, waiting %.1f us (want "
                  "%ld, %.1f)\n%s", rank, op, got, w, m, want, o);
}

/* Rank 0 batches its send to rank 1 and its recv from it; rank 1 recvs,
 * then sends, rank 1's recv starting 30 us after rank 0's batch, its send
 * 20 us later still. Each message pairs its two ends: rank 0's batch
 * holds the first message of 0->1 (rank 1's recv) and of 1->0 (rank 1's
 * send), so it waits for the later of them, 50 us a step; rank 1 waits
 * for nobody. Before, the keys "0->1, 1->0" and "0->1", "1->0" were
 * names of one rank each: "# unmatched: 9 operations of 9 names", nobody
 * waiting. */
TL_TEST(grouped_unlike_at_the_two_ends_paired_by_messages)
{
    const char *dir = p2p_dir("unlike");
    static const p2p_op batch[] = {{"s1 r1", 110, 200}}, single[] = {{"r0", 140, 150}, {"s0", 160, 200}};
    write_p2p_rank(dir, 0, 2, batch, 1);
    write_p2p_rank(dir, 1, 2, single, 2);
    char *o = analyze("overlap", dir);
    waits(o, 0, "nccl:p2p 0->1, 1->0 on ", 3, 150.0);
    waits(o, 1, "nccl:p2p 0->1 on ", 3, 0.0);
    waits(o, 1, "nccl:p2p 1->0 on ", 3, 0.0);
    TL_ASSERT_MSG(!strstr(o, "# unmatched") && !strstr(o, "were paired across every rank"), "%s", o);
    free(o);
    /* collectives says the same: rank 0's batch and its partners on rank 1, rank 1 last 50 us after */
    o = analyze("collectives", dir);
    const char *m = strstr(o, "# table: matched across ranks");
    TL_ASSERT_MSG(m && strstr(m, "     2 \"coalesced 0->1, 1->0\" \"1 (pp, ranks 0-1)\"   0     2     50.0 50.0         1  "
                                 "     50.0 yes") &&
                      strstr(m, "     2 \"send 1->0\"            \"1 (pp, ranks 0-1)\"   0     2     50.0 50.0         1"),
                  "%s", o);
    free(o);
}

static const char *ring_of_four(void)
{
    const char *dir = p2p_dir("ring");
    static const p2p_op step[4][1] = {{{"s1 r3", 110, 300}}, {{"s2 r0", 110, 300}}, {{"s3 r1", 200, 300}},
                                      {{"s0 r2", 110, 300}}};
    for (int r = 0; r < 4; r++) write_p2p_rank(dir, r, 4, step[r], 1);
    return dir;
}

/* Megatron's interleaved 1F1B on a ring of four: each step, every rank
 * one batch of its send to the next and its recv from the previous, rank
 * 2 90 us late. A rank's batch holds its send's message, whose recv is
 * in the next rank's batch, and its recv's, whose send is in the
 * previous rank's: rank 1 (sending to 2) and rank 3 (receiving from 2)
 * wait 90 us a step, ranks 0 and 2 nobody. Before, every batch, naming
 * two other ranks, was "nccl:coalesced" of its group, paired across all
 * four: ranks 0, 1 and 3 waited 270.0 us, with the note. */
TL_TEST(interleaved_ring_waits_for_its_neighbours)
{
    const char *dir = ring_of_four();
    static const char *const key[4] = {"nccl:p2p 0->1, 3->0 on ", "nccl:p2p 0->1, 1->2 on ",
                                       "nccl:p2p 1->2, 2->3 on ", "nccl:p2p 2->3, 3->0 on "};
    static const double want[4] = {0.0, 270.0, 0.0, 270.0};
    char *o = analyze("overlap", dir);
    for (int r = 0; r < 4; r++) waits(o, r, key[r], 3, want[r]);
    TL_ASSERT_MSG(!strstr(o, "# unmatched") && !strstr(o, "were paired across every rank") &&
                      strstr(o, " 90.0 1:0,2\n") && strstr(o, " 90.0 3:0,2\n"),
                  "%s", o);
    free(o);
    /* diagnose's peer wait says the same ranks */
    o = analyze("diagnose", dir);
    for (int r = 0; r < 4; r++) {
        char line[160];
        snprintf(line, sizeof line, "peer wait rank %d: 3 communication operations spent %.1f of their", r, want[r]);
        TL_ASSERT_MSG(strstr(o, line), "'%s' not in\n%s", line, o);
    }
    TL_ASSERT_MSG(!strstr(o, "were paired across every rank"), "%s", o);
    free(o);
    /* collectives' matched table pairs them so too: each rank's batch with
     * its partners (before: "coalesced", one row of all four a step) */
    o = analyze("collectives", dir);
    const char *m = strstr(o, "# table: matched across ranks");
    static const char *const row[] = {
        "     0 \"coalesced 0->1, 3->0\" \"1 (pp, ranks 0-3)\"   0     3      0.0  0.0         0        0.0 yes",
        "     0 \"coalesced 0->1, 1->2\" \"1 (pp, ranks 0-3)\"   0     3     90.0 90.0         2        0.0 yes",
        "     2 \"coalesced 2->3, 3->0\" \"1 (pp, ranks 0-3)\"   0     3     90.0 90.0         2        0.0 yes"};
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++)
        TL_ASSERT_MSG(m && strstr(m, row[i]) && strstr(m, "# 12 rows"), "'%s' not in\n%s", row[i], o);
    free(o);
}

/* Rank 0's batch holds two messages 0->1 where rank 1 receives one: the
 * channel 0->1 is unmatched in each step, rank 0's batch and rank 1's
 * recv left whole, one exchange seen from its two ends (counted once);
 * channel 1->0 pairs rank 1's send with rank 0's batch. Before: the three
 * keys of one rank each, "# unmatched: 9 operations of 9 names". */
TL_TEST(channel_counts_differing_unmatched)
{
    const char *dir = p2p_dir("differ");
    static const p2p_op batch[] = {{"s1 s1 r1", 110, 200}}, single[] = {{"r0", 140, 150}, {"s0", 160, 200}};
    write_p2p_rank(dir, 0, 2, batch, 1);
    write_p2p_rank(dir, 1, 2, single, 2);
    char *o = analyze("overlap", dir);
    waits(o, 1, "nccl:p2p 1->0 on ", 3, 0.0);
    TL_ASSERT_MSG(strstr(o, "# unmatched: 3 operations of 3 names whose count differs between ranks") &&
                      !strstr(o, "\n  0    \"nccl:p2p 0->1 x2, 1->0 on ") && !strstr(o, "\n  1    \"nccl:p2p 0->1 on "),
                  "%s", o);
    free(o);
    /* collectives pairs them alike: rank 1's send with rank 0's batch, left
     * whole (before, no row: the send's one partner was to show the pair,
     * and the batch, left whole, showed none; "# 0 rows") */
    o = analyze("collectives", dir);
    const char *m = strstr(o, "# table: matched across ranks");
    TL_ASSERT_MSG(m && strstr(m, "     0 \"send 1->0\" \"1 (pp, ranks 0-1)\"   0     2     50.0 50.0         1") &&
                      strstr(m, "# 3 rows") && !strstr(m, "coalesced") && !strstr(m, "recv 0->1"),
                  "%s", o);
    free(o);
}

/* A channel key that is no channel text (a hand-edited import) is
 * refused, naming the file and the channel: the text after "nccl:p2p "
 * and a rank is the reader's own, and one read otherwise would pair
 * wrongly without a word. A count past 2^31-1 likewise. */
TL_TEST(bad_channel_key_refused)
{
    char out[1100], want[1600];
    char *f = imported_rank(ring_of_four(), "imported-ring", 1, out, sizeof out);
    free(f);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/nccl:p2p 0->1, 1->2 on/nccl:p2p 0->1, 1->x on/' %s/trace.rank1.csv", out), 0);
    snprintf(want, sizeof want,
             "%s/trace.rank1.csv: operation 'nccl:p2p 0->1, 1->x on process group 1 (pp, ranks 0-3)': bad channel "
             "'1->x': not A->B or A->B xN (ranks A and B apart, N messages from 2 to 2147483647) (a damaged or "
             "hand-edited trace)",
             out);
    tl_test_refused(1, want, "%s/trilap-analyze overlap %s", tl_test_bin(), out);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/nccl:p2p 0->1, 1->x on/nccl:p2p 0->1, 1->2 x2147483648 on/' %s/trace.rank1.csv",
                            out),
                 0);
    tl_test_refused(1, "bad channel '1->2 x2147483648'", "%s/trilap-analyze diagnose %s", tl_test_bin(), out);
    /* channels not ", " apart: before, "0->1" was read, ",1->2 on ..." taken for its
     * process group, and the operation paired with nothing, exit 0 */
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/nccl:p2p 0->1, 1->2 x2147483648 on/nccl:p2p 0->1,1->2 on/' %s/trace.rank1.csv",
                            out),
                 0);
    tl_test_refused(1, "operation 'nccl:p2p 0->1,1->2 on process group 1 (pp, ranks 0-3)': bad channel '0->1,1->2': "
                       "not A->B or A->B xN",
                    "%s/trilap-analyze overlap %s", tl_test_bin(), out);
    /* a count not a number: before, " xq on ..." was taken for the process group */
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/nccl:p2p 0->1,1->2 on/nccl:p2p 0->1, 1->2 xq on/' %s/trace.rank1.csv", out), 0);
    tl_test_refused(1, "bad channel '1->2 xq': not A->B or A->B xN", "%s/trilap-analyze overlap %s", tl_test_bin(),
                    out);
}

TL_TEST_MAIN(send_recv_paired_by_group_ranks_in_names, send_recv_paired_by_dst_and_src_rank,
             send_recv_paired_in_a_group_of_two, subgroup_collective_paired_within_its_group,
             import_writes_the_channels_peers, send_recv_without_ends_noted, batched_send_recv_is_p2p,
             batch_paired_with_its_other_end, batch_with_two_other_ranks_keyed_by_channels,
             batch_in_a_group_of_two_paired_by_its_channels, batch_after_a_send_leaves_it_its_record,
             bad_dst_rank_refused, grouped_unlike_at_the_two_ends_paired_by_messages,
             interleaved_ring_waits_for_its_neighbours, channel_counts_differing_unmatched, bad_channel_key_refused)
