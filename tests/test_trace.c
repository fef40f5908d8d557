/* trilap trace v1: names, NCCL kernel classification, writer/reader round
 * trip, quoting, metadata, and every error the reader must report. */
#include "probes/trace.h"
#include "runtime/results.h"

#include <fcntl.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* ---- helpers ---------------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ & 3];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

/* Runs fn with stderr captured; returns what was printed. */
static char captured[4096];
static int stderr_saved = -1;
static void capture_begin(const char *dir)
{
    fflush(stderr);
    stderr_saved = dup(2);
    int fd = open(path_in(dir, "stderr.txt"), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    TL_ASSERT(fd >= 0);
    dup2(fd, 2);
    close(fd);
}
static const char *capture_end(const char *dir)
{
    fflush(stderr);
    dup2(stderr_saved, 2);
    close(stderr_saved);
    char *text = tl_test_read(path_in(dir, "stderr.txt"));
    snprintf(captured, sizeof captured, "%s", text);
    free(text);
    return captured;
}

static const char *good_meta = "# format=trilap-trace\n# version=1\n# rank=0\n# complete=yes\n";

/* Reads a whole file; returns the first failing status (TL_OK if none)
 * and the number of records read before it. */
static tl_status read_all(const char *path, int flags, int *nrec)
{
    tl_trace_reader *r = NULL;
    *nrec = 0;
    tl_status st = tl_trace_reader_open(&r, path, flags);
    if (st != TL_OK) return st;
    for (;;) {
        tl_trace_record rec;
        int got = 0;
        st = tl_trace_reader_next(r, &rec, &got);
        if (st != TL_OK || !got) break;
        (*nrec)++;
    }
    tl_trace_reader_close(&r);
    TL_ASSERT(r == NULL);
    return st;
}

/* Expect a parse error whose message names the file, the line and the reason. */
static void expect_error(const char *dir, const char *name, const char *text, int flags,
                         tl_status want, int want_line, const char *reason)
{
    const char *path = path_in(dir, name);
    tl_test_write(path, text);
    int nrec;
    capture_begin(dir);
    tl_status st = read_all(path, flags, &nrec);
    const char *msg = capture_end(dir);
    TL_ASSERT_MSG(st == want, "%s: status %d, expected %d; stderr: %s", name, st, want, msg);
    char where[600];
    snprintf(where, sizeof where, "%s:%d: ", path, want_line);
    TL_ASSERT_MSG(strstr(msg, where), "%s: message does not name '%s': %s", name, where, msg);
    TL_ASSERT_MSG(strstr(msg, reason), "%s: message lacks '%s': %s", name, reason, msg);
}

/* ---- names -------------------------------------------------------------- */

TL_TEST(names_parse_back)
{
    for (int i = 0; i < TL_ROLE_COUNT; i++) {
        tl_role l;
        TL_ASSERT_OK(tl_role_parse(tl_role_name((tl_role)i), &l));
        TL_ASSERT_EQ(l, i);
    }
    for (int i = 0; i < TL_CAT_COUNT; i++) {
        tl_cat c;
        TL_ASSERT_OK(tl_cat_parse(tl_cat_name((tl_cat)i), &c));
        TL_ASSERT_EQ(c, i);
    }
    for (int i = 0; i < TL_KIND_COUNT; i++) {
        tl_kind k;
        TL_ASSERT_OK(tl_kind_parse(tl_kind_name((tl_kind)i), &k));
        TL_ASSERT_EQ(k, i);
    }
    TL_ASSERT_STREQ(tl_role_name(TL_ROLE_P2P), "p2p");
    TL_ASSERT_STREQ(tl_cat_name(TL_CAT_RANGE), "range");
    TL_ASSERT_STREQ(tl_kind_name(TL_KIND_NVTX), "nvtx");
    tl_role l;
    tl_cat c;
    tl_kind k;
    TL_ASSERT_EQ(tl_role_parse("P2P", &l), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_role_parse("", &l), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_cat_parse("kernel", &c), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_kind_parse("range", &k), TL_ERR_PARSE);
    TL_ASSERT_EQ(tl_kind_parse(NULL, &k), TL_ERR_PARSE);
    TL_ASSERT_STREQ(tl_role_name((tl_role)99), "?");
}

/* ---- classification ----------------------------------------------------- */

typedef struct {
    const char *name;
    tl_cat cat;
} named_cat;

/* Kernel names as CUPTI and Nsight Systems report them, NCCL 2.7 to 2.28. */
static const named_cat nccl_names[] = {
    /* NCCL 2.19 - 2.28: ncclDevKernel_, demangled */
    {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_P2P},
    {"ncclDevKernel_AllReduce_Sum_f64_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_COLL},
    {"ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE", TL_CAT_COLL},
    {"ncclDevKernel_AllReduce_Sum_f32_TREE_LL", TL_CAT_COLL},
    {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_Reduce_Sum_f16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_Reduce_MinMax_u8_RING_LL", TL_CAT_COLL},
    /* NCCL 2.19 - 2.28: mangled, as in CUpti_ActivityKernel*.name */
    {"_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", TL_CAT_P2P},
    {"_Z39ncclDevKernel_AllReduce_Sum_f64_RING_LL24ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    {"_Z43ncclDevKernel_ReduceScatter_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
     TL_CAT_COLL},
    {"_Z31ncclDevKernel_AllGather_RING_LL24ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    {"_Z31ncclDevKernel_Broadcast_RING_LL24ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    {"_Z36ncclDevKernel_Reduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    {"_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LLP11ncclDevCommmP8ncclWork", TL_CAT_COLL},
    /* Generic kernels: coll without a lane */
    {"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", TL_CAT_COLL},
    {"_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    {"_Z21ncclDevKernel_Generic24ncclDevKernelArgsStorageILm4096EE", TL_CAT_COLL},
    /* NCCL 2.27+ symmetric-memory kernels: ncclSymkDevKernel_, and below their first name ncclSymDevKernel_ */
    {"ncclSymkDevKernel_AllReduce_AGxLL_R_sum_f32(ncclSymkDevWorkArgs4K)", TL_CAT_COLL},
    {"ncclSymkDevKernel_AllReduce_RSxLDMC_AGxSTMC", TL_CAT_COLL},
    {"ncclSymkDevKernel_AllGather_LLMC", TL_CAT_COLL},
    {"ncclSymkDevKernel_ReduceScatter_LD_sum_bf16", TL_CAT_COLL},
    /* NCCL 2.8 - 2.18: ncclKernel_ */
    {"ncclKernel_AllReduce_RING_LL_Sum_double(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_COLL},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_P2P},
    {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_COLL},
    {"ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_COLL},
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
     TL_CAT_COLL},
    {"ncclKernel_Reduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", TL_CAT_COLL},
    {"_Z42ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_tP11ncclDevCommmP8ncclWork", TL_CAT_P2P},
    {"_Z38ncclKernel_AllReduce_RING_LL_Sum_doubleP11ncclDevCommmP8ncclWork", TL_CAT_COLL},
    /* NCCL <= 2.7 */
    {"ncclSendRecvKernel_copy_i8(ncclWorkElem)", TL_CAT_P2P},
    {"ncclAllReduceRingLLKernel_sum_f32(CollectiveArgs)", TL_CAT_COLL},
    {"ncclReduceScatterRingLLKernel_sum_f16(CollectiveArgs)", TL_CAT_COLL},
    {"ncclBroadcastRingLLKernel_copy_i8(CollectiveArgs)", TL_CAT_COLL},
    /* not NCCL */
    {"daxpy_kernel", TL_CAT_COMPUTE},
    {"_Z16tl_spmv_csr_kerneliPKiS0_PKdS2_Pd", TL_CAT_COMPUTE},
    {"void cusparse::csrmv_v3_kernel<int, int, double>(...)", TL_CAT_COMPUTE},
    {"my_ncclKernel_AllReduce_clone", TL_CAT_COMPUTE},
    {"ncclAllReduceWrapper", TL_CAT_COMPUTE},
    {"", TL_CAT_COMPUTE},
};

TL_TEST(classify_nccl_kernels)
{
    int bad = 0;
    for (size_t i = 0; i < sizeof nccl_names / sizeof nccl_names[0]; i++) {
        tl_cat got = tl_trace_classify_kernel(nccl_names[i].name);
        if (got != nccl_names[i].cat) {
            fprintf(stderr, "%s: %s, expected %s\n", nccl_names[i].name, tl_cat_name(got),
                    tl_cat_name(nccl_names[i].cat));
            bad++;
        }
    }
    TL_ASSERT_EQ(bad, 0);
    TL_ASSERT_EQ(tl_trace_classify_kernel(NULL), TL_CAT_COMPUTE);
    /* NCCL 2.28.9's one-rank reduce under PyTorch (results/foreign-h200), mangled and demangled */
    TL_ASSERT_EQ(tl_trace_classify_kernel("__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_"
                                          "10_onerank_cu_fdf4799013oneRankReduceI13FuncPreMulSumIfEEEvPvS3_mmb"),
                 TL_CAT_COLL);
    TL_ASSERT_EQ(tl_trace_classify_kernel("void (anonymous namespace)::oneRankReduce<FuncPreMulSum<float>>(void*, "
                                          "void*, unsigned long, unsigned long, bool)"),
                 TL_CAT_COLL);
    TL_ASSERT_EQ(tl_trace_classify_kernel("_Z16myoneRankReduceIfEvv"), TL_CAT_COMPUTE);
}

TL_TEST(classify_generic_by_lane)
{
    const char *g = "_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE";
    TL_ASSERT_EQ(tl_trace_nccl_kernel(g), TL_NCCL_GENERIC);
    TL_ASSERT_EQ(tl_trace_classify_kernel_lane(g, TL_ROLE_P2P), TL_CAT_P2P);
    TL_ASSERT_EQ(tl_trace_classify_kernel_lane(g, TL_ROLE_COLL), TL_CAT_COLL);
    TL_ASSERT_EQ(tl_trace_classify_kernel_lane(g, TL_ROLE_COMPUTE), TL_CAT_COLL);
    /* A named operation wins over the lane. */
    TL_ASSERT_EQ(
        tl_trace_classify_kernel_lane("ncclDevKernel_AllReduce_Sum_f64_RING_LL", TL_ROLE_P2P),
        TL_CAT_COLL);
    TL_ASSERT_EQ(tl_trace_classify_kernel_lane("ncclDevKernel_SendRecv", TL_ROLE_COLL), TL_CAT_P2P);
    TL_ASSERT_EQ(tl_trace_classify_kernel_lane("daxpy", TL_ROLE_P2P), TL_CAT_COMPUTE);
    TL_ASSERT_EQ(tl_trace_nccl_kernel("ncclDevKernel_SendRecv"), TL_NCCL_P2P);
    TL_ASSERT_EQ(tl_trace_nccl_kernel("daxpy"), TL_NCCL_NONE);
}

/* NCCL 2.27 named its symmetric-memory kernels ncclSymDevKernel_ (symmetric.h:
 * "ncclSymDevKernel_AllGather_LL(ncclSymDevArgs const)"); 2.28 renamed them
 * ncclSymkDevKernel_. Both are collectives, neither is compute. */
TL_TEST(classify_nccl_227_symmetric_kernels)
{
    static const char *const sym[] = {
        "ncclSymDevKernel_AllReduce_RSxLD_AGxST_sum_bf16(ncclSymDevArgs)",
        "ncclSymDevKernel_AllGather_LL(ncclSymDevArgs)",
        "ncclSymDevKernel_ReduceScatter_LD_sum_f32",
        "_Z47ncclSymDevKernel_AllReduce_RSxLD_AGxST_sum_bf1614ncclSymDevArgs",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
        tl_cat got = tl_trace_classify_kernel(sym[i]);
        if (got != TL_CAT_COLL) {
            fprintf(stderr, "%s: %s, expected coll\n", sym[i], tl_cat_name(got));
            bad++;
        }
    }
    TL_ASSERT_EQ(bad, 0);
}

/* ---- writer / reader ----------------------------------------------------- */

static const tl_trace_record sample[] = {
    {0, 0, 13, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, "daxpy", 1000, 2000, 7, -1, 0},
    {0, 0, 14, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL,
     "_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", 1500, 2600, 8, -1, 0},
    {0, 0, 15, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL,
     "ncclDevKernel_AllReduce_Sum_f64_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1600, 2500, 9, -1,
     0},
    {0, 0, 14, TL_ROLE_P2P, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "HtoD", 2700, 2800, 10, 4096, 1},
    {0, 0, 13, TL_ROLE_COMPUTE, TL_CAT_MEMSET, TL_KIND_MEMSET, "memset", 2800, 2800, 11, 128, 1},
    {0, 0, 15, TL_ROLE_COLL, TL_CAT_SYNC, TL_KIND_SYNC, "stream_sync", 2900, 3000, 12, -1, 1},
    {0, -1, 0, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "compute:spmv, halo", 900, 3100, 0, -1, 1},
    {0, -1, 0, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_NVTX, "say \"hi\"", 950, 960, 0, -1, -1},
    {0, -1, 0, TL_ROLE_OTHER, TL_CAT_RANGE, TL_KIND_HOST, "two\nlines, \"quoted\"", -5,
     TL_TRACE_MAX_NS, 18446744073709551615ULL, 9223372036854775807LL, 1},
    {0, -1, 0, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "", 0, 0, 0, -1, -1},
};
enum { NSAMPLE = sizeof sample / sizeof sample[0] };

static void write_sample(const char *path)
{
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "rank", "0"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "args", "--x=1 --name a,b\nsecond"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "window_start_ns", "1000"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "empty", ""));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "complete", "yes"));
    for (int i = 0; i < NSAMPLE; i++)
        TL_ASSERT_OK(tl_trace_writer_record(w, &sample[i]));
    TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
    TL_ASSERT(w == NULL);
}

/* The one lane rule of the injection library and the Nsight reader, and
 * TRILAP_LANES items. */
TL_TEST(lane_of_stream_and_lane_items)
{
    TL_ASSERT_EQ(tl_trace_lane_of_stream(0, 0), TL_ROLE_COMPUTE);
    TL_ASSERT_EQ(tl_trace_lane_of_stream(5, 0), TL_ROLE_P2P);
    TL_ASSERT_EQ(tl_trace_lane_of_stream(5, 5), TL_ROLE_COLL); /* a tie: collectives ran */
    TL_ASSERT_EQ(tl_trace_lane_of_stream(1, 7), TL_ROLE_COLL);
    uint64_t id = 0;
    tl_role lane = TL_ROLE_COMPUTE;
    TL_ASSERT(tl_trace_lane_item("13:p2p", &id, &lane) && id == 13 && lane == TL_ROLE_P2P);
    TL_ASSERT(tl_trace_lane_item("7:coll", &id, &lane) && id == 7 && lane == TL_ROLE_COLL);
    static const char *const bad[] = {"13", ":p2p", "x:p2p", "13:", "13:sideways", "-1:p2p", "1x:p2p"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        TL_ASSERT_MSG(!tl_trace_lane_item(bad[k], &id, &lane), "accepted '%s'", bad[k]);
}

/* The whole of TRILAP_LANES, read alike by the injection library and the
 * Nsight Systems reader: before, each split it with strtok, which skips an
 * empty item, and a stream given twice took its first lane in one reader
 * and passed a bad item over in the other, without a word */
TL_TEST(lanes_spec_whole)
{
    tl_trace_lanes l;
    char why[256];
    TL_ASSERT_OK(tl_trace_lanes_parse("14:p2p,4294967295:coll", &l, why, sizeof why));
    tl_role lane = TL_ROLE_OTHER;
    TL_ASSERT(l.n == 2 && tl_trace_lanes_find(&l, 4294967295u, &lane) && lane == TL_ROLE_COLL);
    TL_ASSERT(!tl_trace_lanes_find(&l, 15, &lane));
    static const char *const bad[][2] = {
        {"14:p2p,,15:coll", "an empty item (two commas, or one at an end)"},
        {"14:p2p,", "an empty item (two commas, or one at an end)"},
        {",", "an empty item (two commas, or one at an end)"},
        {"14:p2p,14:coll", "stream 14 given twice (p2p, then coll)"},
        {"14:p2p,15:col", "'15:col' is not streamId:lane (a CUPTI stream id below 2^32; lane one of compute p2p "
                          "coll copy host other)"},
        {"4294967296:p2p", "'4294967296:p2p' is not streamId:lane"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        why[0] = '\0';
        TL_ASSERT_MSG(tl_trace_lanes_parse(bad[k][0], &l, why, sizeof why) == TL_ERR_PARSE &&
                          !strncmp(why, bad[k][1], strlen(bad[k][1])),
                      "'%s': %s", bad[k][0], why);
    }
    char many[1024] = "";
    for (int i = 0; i <= TL_TRACE_MAX_LANES; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%d:p2p", i ? "," : "", i);
    TL_ASSERT(tl_trace_lanes_parse(many, &l, why, sizeof why) == TL_ERR_PARSE && strstr(why, "more than 64 streams"));
}

TL_TEST(roundtrip)
{
    const char *dir = tl_test_tmpdir();
    const char *path = path_in(dir, "trace.rank0.csv");
    write_sample(path);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "format"), "trilap-trace");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "args"), "--x=1 --name a,b second");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "window_start_ns"), "1000");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "empty"), "");
    TL_ASSERT(tl_trace_reader_meta(r, "absent") == NULL);
    for (int i = 0; i < NSAMPLE; i++) {
        tl_trace_record rec;
        int got = 0;
        TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
        TL_ASSERT_EQ(got, 1);
        const tl_trace_record *e = &sample[i];
        TL_ASSERT_EQ(rec.rank, e->rank);
        TL_ASSERT_EQ(rec.device, e->device);
        TL_ASSERT(rec.stream == e->stream);
        TL_ASSERT_EQ(rec.lane, e->lane);
        TL_ASSERT_EQ(rec.cat, e->cat);
        TL_ASSERT_EQ(rec.kind, e->kind);
        TL_ASSERT_STREQ(rec.name, e->name);
        TL_ASSERT_EQ(rec.start_ns, e->start_ns);
        TL_ASSERT_EQ(rec.end_ns, e->end_ns);
        TL_ASSERT(rec.corr == e->corr);
        TL_ASSERT_EQ(rec.bytes, e->bytes);
        TL_ASSERT_EQ(rec.iter, e->iter);
    }
    tl_trace_record rec;
    int got = 1;
    TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
    TL_ASSERT_EQ(got, 0);
    tl_trace_reader_close(&r);
    tl_trace_reader_close(&r); /* NULL is fine */
}

TL_TEST(quoting_rfc4180)
{
    const char *dir = tl_test_tmpdir();
    const char *path = path_in(dir, "q.csv");
    write_sample(path);
    char *text = tl_test_read(path);
    TL_ASSERT(strstr(text, "\n0,0,13,compute,compute,kernel,daxpy,1000,2000,7,-1,0\n"));
    TL_ASSERT(strstr(text, ",\"compute:spmv, halo\",900,"));
    TL_ASSERT(strstr(text, ",\"say \"\"hi\"\"\",950,"));
    TL_ASSERT(strstr(text, ",\"two\nlines, \"\"quoted\"\"\",-5,"));
    TL_ASSERT(strstr(text, "\n" TL_TRACE_HEADER "\n"));
    TL_ASSERT(strncmp(text, "# format=trilap-trace\n# version=1\n", 34) == 0);
    free(text);
    /* A hand-written file quoting ordinary fields is read too. */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s%s\n\"0\",\"1\",2,p2p,p2p,kernel,\"a\"\"b\",3,4,5,-1,\"-1\"\n",
             good_meta, TL_TRACE_HEADER);
    const char *p2 = path_in(dir, "q2.csv");
    tl_test_write(p2, buf);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, p2, 0));
    tl_trace_record rec;
    int got = 0;
    TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
    TL_ASSERT_EQ(got, 1);
    TL_ASSERT_STREQ(rec.name, "a\"b");
    TL_ASSERT_EQ(rec.device, 1);
    TL_ASSERT_EQ(rec.iter, -1);
    tl_trace_reader_close(&r);
}

TL_TEST(empty_trace_and_abort)
{
    const char *dir = tl_test_tmpdir();
    const char *path = path_in(dir, "empty.csv");
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    /* Nothing in place before the commit. */
    TL_ASSERT(access(path, F_OK) != 0);
    TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
    int n = -1;
    TL_ASSERT_OK(read_all(path, 0, &n));
    TL_ASSERT_EQ(n, 0);

    const char *gone = path_in(dir, "aborted.csv");
    TL_ASSERT_OK(tl_trace_writer_open(&w, gone));
    TL_ASSERT_OK(tl_trace_writer_record(w, &sample[0]));
    TL_ASSERT_OK(tl_trace_writer_close(&w, 0));
    TL_ASSERT(access(gone, F_OK) != 0);
    /* No temporary files left behind: only empty.csv remains. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", dir);
    TL_ASSERT_EQ(system(cmd), 0);
    TL_ASSERT_OK(tl_trace_writer_close(NULL, 1));
}

TL_TEST(writer_rejects_bad_input)
{
    const char *dir = tl_test_tmpdir();
    tl_trace_writer *w = NULL;
    capture_begin(dir);
    tl_status s1 = tl_trace_writer_open(&w, path_in(dir, "stderr.txt/t.csv")); /* under a plain file */
    TL_ASSERT_OK(tl_trace_writer_open(&w, path_in(dir, "w.csv")));
    tl_status s2 = tl_trace_writer_meta(w, "bad key", "x");
    tl_status s3 = tl_trace_writer_meta(w, "", "x");
    tl_trace_record bad = sample[0];
    bad.end_ns = bad.start_ns - 1;
    tl_status s4 = tl_trace_writer_record(w, &bad);
    bad = sample[0];
    bad.lane = TL_ROLE_COUNT;
    tl_status s5 = tl_trace_writer_record(w, &bad);
    TL_ASSERT_OK(tl_trace_writer_record(w, &sample[0]));
    tl_status s6 = tl_trace_writer_meta(w, "late", "x");
    TL_ASSERT_OK(tl_trace_writer_close(&w, 0));
    const char *msg = capture_end(dir);
    TL_ASSERT_EQ(s1, TL_ERR_IO);
    TL_ASSERT_EQ(s2, TL_ERR_INVAL);
    TL_ASSERT_EQ(s3, TL_ERR_INVAL);
    TL_ASSERT_EQ(s4, TL_ERR_INVAL);
    TL_ASSERT_EQ(s5, TL_ERR_INVAL);
    TL_ASSERT_EQ(s6, TL_ERR_INVAL);
    TL_ASSERT(strstr(msg, "before start"));
    TL_ASSERT(strstr(msg, "after the first record"));
}

TL_TEST(metadata_parsing)
{
    const char *dir = tl_test_tmpdir();
    const char *path = path_in(dir, "m.csv");
    char buf[2048];
    snprintf(buf, sizeof buf,
             "# format=trilap-trace\n#version=1\n# program=trilap-bench\n"
             "# args=--ring-bytes=4096 --x a=b\n# unknown_future_key=anything, at all\n"
             "# dropped=0\n# complete=yes\n# window_start_ns=123\n# window_end_ns=456\n%s\n",
             TL_TRACE_HEADER);
    tl_test_write(path, buf);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "version"), "1");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "args"), "--ring-bytes=4096 --x a=b");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "unknown_future_key"), "anything, at all");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "window_end_ns"), "456");
    TL_ASSERT(tl_trace_reader_meta(r, "Format") == NULL);
    TL_ASSERT(tl_trace_reader_meta(NULL, "format") == NULL);
    tl_trace_reader_close(&r);

    /* complete=no: refused unless asked for, then readable. */
    snprintf(buf, sizeof buf,
             "# format=trilap-trace\n# version=1\n# dropped=17\n# complete=no\n"
             "# cupti_status=on\n%s\n0,0,1,compute,compute,kernel,k,1,2,3,-1,0\n",
             TL_TRACE_HEADER);
    expect_error(dir, "incomplete.csv", buf, 0, TL_ERR_PARSE, 1,
                 "incomplete trace (complete=no, dropped=17");
    int n = -1;
    TL_ASSERT_OK(read_all(path_in(dir, "incomplete.csv"), TL_TRACE_ACCEPT_INCOMPLETE, &n));
    TL_ASSERT_EQ(n, 1);
}

TL_TEST(reader_errors_header)
{
    const char *dir = tl_test_tmpdir();
    char buf[2048];
    expect_error(dir, "empty.csv", "", 0, TL_ERR_PARSE, 1, "missing header row");
    expect_error(dir, "meta_only.csv", "# format=trilap-trace\n# version=1\n", 0, TL_ERR_PARSE, 3,
                 "missing header row");
    snprintf(buf, sizeof buf, "%srank,device,stream\n", good_meta);
    expect_error(dir, "bad_header.csv", buf, 0, TL_ERR_PARSE, 5, "missing header row: expected");
    snprintf(buf, sizeof buf, "# format=chrome-trace\n# version=1\n%s\n", TL_TRACE_HEADER);
    expect_error(dir, "format.csv", buf, 0, TL_ERR_PARSE, 1,
                 "not a trilap trace (format=chrome-trace");
    snprintf(buf, sizeof buf, "# version=1\n%s\n", TL_TRACE_HEADER);
    expect_error(dir, "noformat.csv", buf, 0, TL_ERR_PARSE, 1, "format=(missing)");
    snprintf(buf, sizeof buf, "# format=trilap-trace\n# version=2\n%s\n", TL_TRACE_HEADER);
    expect_error(dir, "version.csv", buf, 0, TL_ERR_PARSE, 1, "trace version 2 not supported");
    snprintf(buf, sizeof buf, "# format=trilap-trace\n# version=1\n# complete=maybe\n%s\n",
             TL_TRACE_HEADER);
    expect_error(dir, "complete.csv", buf, 0, TL_ERR_PARSE, 1, "complete=maybe");
    snprintf(buf, sizeof buf, "# format=trilap-trace\n# version=1\n# just words\n%s\n",
             TL_TRACE_HEADER);
    expect_error(dir, "meta_noeq.csv", buf, 0, TL_ERR_PARSE, 3, "not '# key=value'");
    snprintf(buf, sizeof buf, "# format=trilap-trace\n# version=1\n# rank=0\n# rank=1\n%s\n",
             TL_TRACE_HEADER);
    expect_error(dir, "meta_dup.csv", buf, 0, TL_ERR_PARSE, 4, "duplicate metadata key 'rank'");
    snprintf(buf, sizeof buf, "%s%s", good_meta, TL_TRACE_HEADER);
    expect_error(dir, "header_trunc.csv", buf, 0, TL_ERR_PARSE, 5, "truncated last row");
    int n;
    capture_begin(dir);
    tl_status st = read_all(path_in(dir, "does-not-exist.csv"), 0, &n);
    const char *msg = capture_end(dir);
    TL_ASSERT_EQ(st, TL_ERR_IO);
    TL_ASSERT(strstr(msg, "does-not-exist.csv: cannot open"));
}

/* One good row on line 6, then the bad row on line 7. */
static void bad_row(const char *dir, const char *name, const char *row, const char *reason)
{
    char buf[TL_TRACE_MAX_ROW + 4096];
    snprintf(buf, sizeof buf, "%s%s\n0,0,1,compute,compute,kernel,k,1,2,3,-1,0\n%s", good_meta,
             TL_TRACE_HEADER, row);
    expect_error(dir, name, buf, 0, TL_ERR_PARSE, 7, reason);
    int n;
    capture_begin(dir);
    read_all(path_in(dir, name), 0, &n);
    capture_end(dir);
    TL_ASSERT_MSG(n == 1, "%s: %d records before the error", name, n);
}

TL_TEST(reader_errors_rows)
{
    const char *dir = tl_test_tmpdir();
    bad_row(dir, "fields_few.csv", "0,0,1,compute,compute,kernel,k,1,2,3,-1\n",
            "wrong field count: 11");
    bad_row(dir, "fields_many.csv", "0,0,1,compute,compute,kernel,k,1,2,3,-1,0,9\n",
            "more than 12 fields");
    bad_row(dir, "comma_name.csv", "0,0,1,compute,compute,kernel,a,b,1,2,3,-1,0\n",
            "more than 12 fields");
    bad_row(dir, "num_start.csv", "0,0,1,compute,compute,kernel,k,1x,2,3,-1,0\n",
            "bad number in start_ns: '1x'");
    bad_row(dir, "num_empty.csv", "0,0,1,compute,compute,kernel,k,,2,3,-1,0\n",
            "bad number in start_ns: ''");
    bad_row(dir, "num_rank.csv", "-1,0,1,compute,compute,kernel,k,1,2,3,-1,0\n",
            "bad number in rank");
    bad_row(dir, "num_device.csv", "0,-2,1,compute,compute,kernel,k,1,2,3,-1,0\n",
            "bad number in device");
    bad_row(dir, "num_stream.csv", "0,0,-1,compute,compute,kernel,k,1,2,3,-1,0\n",
            "bad number in stream");
    bad_row(dir, "num_corr.csv", "0,0,1,compute,compute,kernel,k,1,2,1e3,-1,0\n",
            "bad number in corr");
    bad_row(dir, "num_bytes.csv", "0,0,1,compute,compute,kernel,k,1,2,3,-2,0\n",
            "bad number in bytes");
    bad_row(dir, "num_iter.csv", "0,0,1,compute,compute,kernel,k,1,2,3,-1, 4\n",
            "bad number in iter");
    /* a number, but none the column holds, says why (before: "bad number" alone) */
    bad_row(dir, "num_range.csv", "0,0,1,compute,compute,kernel,k,99999999999999999999,2,3,-1,0\n",
            "bad number in start_ns: '99999999999999999999' is beyond 2^61 ns (73 years), not a time");
    bad_row(dir, "num_2_61.csv", "0,0,1,compute,compute,kernel,k,1,4611686018427387000,3,-1,0\n",
            "bad number in end_ns: '4611686018427387000' is beyond 2^61 ns (73 years), not a time");
    bad_row(dir, "num_rank_big.csv", "4294967296,0,1,compute,compute,kernel,k,1,2,3,-1,0\n",
            "bad number in rank: '4294967296' is outside 0..2147483647");
    bad_row(dir, "end_before.csv", "0,0,1,compute,compute,kernel,k,10,9,3,-1,0\n",
            "end before start: end_ns 9 < start_ns 10");
    bad_row(dir, "lane.csv", "0,0,1,gpu,compute,kernel,k,1,2,3,-1,0\n", "unknown lane 'gpu'");
    bad_row(dir, "cat.csv", "0,0,1,compute,comm,kernel,k,1,2,3,-1,0\n", "unknown cat 'comm'");
    bad_row(dir, "kind.csv", "0,0,1,compute,compute,api,k,1,2,3,-1,0\n", "unknown kind 'api'");
    bad_row(dir, "trunc.csv", "0,0,1,compute,compute,kernel,k,1,2",
            "truncated last row (no newline");
    bad_row(dir, "trunc_full.csv", "0,0,1,compute,compute,kernel,k,1,2,3,-1,0",
            "truncated last row");
    bad_row(dir, "trunc_quote.csv", "0,0,1,compute,compute,kernel,\"k\n1,2,3,-1,0\n",
            "truncated last row (quoted name not closed)");
    bad_row(dir, "after_quote.csv", "0,0,1,compute,compute,kernel,\"k\"x,1,2,3,-1,0\n",
            "text after the closing quote of field 7");
    bad_row(dir, "blank.csv", "\n", "wrong field count: 1");
    static char longrow[TL_TRACE_MAX_ROW + 100];
    memset(longrow, 'a', sizeof longrow - 2);
    longrow[sizeof longrow - 2] = '\n';
    bad_row(dir, "long.csv", longrow, "row longer than 65536 bytes");
}

/* The reader streams: many rows, one row of memory. */
TL_TEST(many_records)
{
    const char *dir = tl_test_tmpdir();
    const char *path = path_in(dir, "many.csv");
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        tl_trace_record r = sample[i % 3];
        r.start_ns = 1000LL * i;
        r.end_ns = r.start_ns + i % 777;
        r.iter = i / 3;
        TL_ASSERT_OK(tl_trace_writer_record(w, &r));
    }
    TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    int64_t sum = 0;
    int k = 0;
    for (;;) {
        tl_trace_record rec;
        int got;
        TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
        if (!got) break;
        TL_ASSERT_EQ(rec.start_ns, 1000LL * k);
        TL_ASSERT_EQ(rec.cat, sample[k % 3].cat);
        sum += rec.end_ns - rec.start_ns;
        k++;
    }
    tl_trace_reader_close(&r);
    TL_ASSERT_EQ(k, n);
    int64_t want = 0;
    for (int i = 0; i < n; i++)
        want += i % 777;
    TL_ASSERT_EQ(sum, want);
}

/* A one-record trace whose metadata `key` is `value` and whose record is
 * named `name`, written and read back: the reader's status, the metadata
 * and the name it read (empty when refused). */
static tl_status write_then_read(const char *path, const char *key, const char *value, const char *name,
                                 char *meta_back, size_t nmeta, char *name_back, size_t nname)
{
    tl_trace_writer *w = NULL;
    TL_ASSERT_OK(tl_trace_writer_open(&w, path));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, "version", "1"));
    TL_ASSERT_OK(tl_trace_writer_meta(w, key, value));
    tl_trace_record rec = {.stream = 7, .lane = TL_ROLE_COMPUTE, .cat = TL_CAT_COMPUTE, .kind = TL_KIND_KERNEL,
                           .name = name, .start_ns = 100, .end_ns = 200, .corr = 1, .bytes = -1};
    TL_ASSERT_OK(tl_trace_writer_record(w, &rec));
    TL_ASSERT_OK(tl_trace_writer_close(&w, 1));
    meta_back[0] = name_back[0] = '\0';
    tl_trace_reader *r = NULL;
    tl_status st = tl_trace_reader_open(&r, path, 0);
    if (st != TL_OK) return st;
    const char *m = tl_trace_reader_meta(r, key);
    snprintf(meta_back, nmeta, "%s", m ? m : "(missing)");
    tl_trace_record got;
    int n = 0;
    st = tl_trace_reader_next(r, &got, &n);
    if (st == TL_OK && n) snprintf(name_back, nname, "%s", got.name);
    tl_trace_reader_close(&r);
    return st;
}

/* A metadata line is one line: an args= holding one '"' (a traced
 * command's argument 'say "hi', which the command's shell quoting leaves
 * as it is) opened a quoted field, and the reader took the header and
 * every record after it for one row ("truncated last row") */
TL_TEST(metadata_with_one_quote_reads_back)
{
    const char *path = tl_test_path("trace.rank0.csv");
    char *argv[] = {"trilap-solve", "--label", "say \"hi", NULL};
    char *args = tl_manifest_command(3, argv);
    TL_ASSERT(args);
    char meta[512], name[512];
    TL_ASSERT_OK(write_then_read(path, "args", args, "daxpy", meta, sizeof meta, name, sizeof name));
    TL_ASSERT_STREQ(meta, args);
    TL_ASSERT_STREQ(name, "daxpy");
    free(args);
}

/* A name or a metadata value beyond TL_TRACE_MAX_TEXT bytes is written
 * cut at a character's start and marked, and reads back so: before, the
 * writer wrote a 70,000-byte kernel name whole and the reader refused the
 * trace ("row longer than 65536 bytes") */
TL_TEST(long_text_written_cut_and_read)
{
    const char *path = tl_test_path("trace.rank0.csv");
    size_t n = 70000;
    char *big = malloc(n + 1), *name = malloc(n + 1), *meta = malloc(n + 1);
    TL_ASSERT(big && name && meta);
    memset(big, '"', n); /* every byte doubled when quoted: the longest row a name makes */
    memcpy(big + TL_TRACE_MAX_TEXT - 41, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 12); /* e-acute: 2 bytes */
    big[n] = '\0';
    TL_ASSERT_OK(write_then_read(path, "args", big, big, meta, n + 1, name, n + 1));
    const char *mark = "...[70000 bytes, cut]";
    size_t kept = strlen(name) - strlen(mark);
    TL_ASSERT_MSG(kept <= TL_TRACE_MAX_TEXT && kept > TL_TRACE_MAX_TEXT - 40 && !strcmp(name + kept, mark),
                  "name of %zu bytes: ...%s", strlen(name), name + (strlen(name) > 40 ? strlen(name) - 40 : 0));
    TL_ASSERT(!strncmp(name, big, kept));
    TL_ASSERT_MSG(((unsigned char)big[kept] & 0xC0) != 0x80, "cut inside a character at %zu", kept);
    TL_ASSERT_STREQ(meta, name);
    free(big);
    free(name);
    free(meta);
}

TL_TEST_MAIN(lanes_spec_whole, metadata_with_one_quote_reads_back, long_text_written_cut_and_read, names_parse_back, classify_nccl_kernels, classify_nccl_227_symmetric_kernels, classify_generic_by_lane, lane_of_stream_and_lane_items, roundtrip,
             quoting_rfc4180, empty_trace_and_abort, writer_rejects_bad_input, metadata_parsing,
             reader_errors_header, reader_errors_rows, many_records)
