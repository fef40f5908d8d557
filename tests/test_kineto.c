/* PyTorch profiler (Kineto) traces read by trilap-analyze: HTA's own
 * figures on the shared trace sets (issue 27's table) reproduced by
 * `overlap --hta` and `breakdown --hta` to 0.01 points; the NCCL kernels the
 * data README counts found as p2p and coll; iterations from ProfilerStep
 * through the launch; .json and .json.gz read alike; bad traces refused
 * naming the file and the reason. Needs ../shared/data/kineto (skips
 * without it) and zlib in the build (the shared traces are gzip). */
#include <math.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"
#include "tl_test_run.h"

#include "analysis/kineto.h"

#include "config.h" /* TL_HAVE_ZLIB */

static const char *data_dir(const char *set)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/kineto/%s", tl_test_env("TL_DATA", "../shared/data"), set);
    struct stat sb;
    if (stat(path[k], &sb) != 0) TL_SKIP("%s absent (the shared Kineto traces)", path[k]);
    return path[k];
}

static void need_zlib(void)
{
    if (!TL_HAVE_ZLIB) TL_SKIP("built without zlib (zlib1g-dev): the shared traces are gzip");
}

/* The numbers of the data row of `rank` in a trilap table (columns from
 * the first, or after a leading text column such as breakdown's run):
 * fills up to n values, returns how many. */
static int table_row(const char *text, int rank, double *v, int n)
{
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        if (line[0] != '#') {
            char buf[1024];
            size_t len = end ? (size_t)(end - line) : strlen(line);
            if (len >= sizeof buf) len = sizeof buf - 1;
            memcpy(buf, line, len);
            buf[len] = '\0';
            char *p = buf + strspn(buf, " "), *q;
            if (*p && strchr("+-.0123456789", *p) == NULL) p += strcspn(p, " "); /* a text column */
            double x = strtod(p, &q);
            if (q != p && (int)x == rank) {
                int k = 0;
                p = q;
                while (k < n) {
                    x = strtod(p, &q);
                    if (q == p) break;
                    v[k++] = x;
                    p = q;
                }
                return k;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

typedef struct hta_row {
    const char *set;
    int rank;
    double overlap, idle, compute, non_compute;
} hta_row;

/* issue 27: HTA run from its source on this data */
static const hta_row hta_rows[] = {
    {"nccl_parser_config", 0, 14.31, 77.78, 17.26, 4.97},
    {"trace_diff_control", 3, 47.03, 16.20, 61.23, 22.57},
    {"trace_filter", 0, 11.81, 53.56, 17.71, 28.74},
    {"trace_filter", 1, 20.05, 54.72, 22.57, 22.72},
};

TL_TEST(hta_figures_exact)
{
    need_zlib();
    for (size_t i = 0; i < sizeof hta_rows / sizeof hta_rows[0]; i++) {
        const hta_row *h = &hta_rows[i];
        const char *dir = data_dir(h->set);
        char *out = NULL, *err = NULL, cmd[1024];
        double v[8];
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap --hta %s", tl_test_bin(), dir);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
        /* rank comm comp overlap comp_comm_overlap kept dropped */
        TL_ASSERT_MSG(table_row(out, h->rank, v, 6) == 6, "%s: no row for rank %d:\n%s", cmd, h->rank, out);
        TL_ASSERT_MSG(fabs(v[3] - h->overlap) < 0.01, "%s rank %d: comm_comp_overlap %.2f, HTA %.2f", h->set,
                      h->rank, v[3], h->overlap);
        free(out);
        free(err);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze breakdown --hta %s", tl_test_bin(), dir);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
        /* rank kernel idle compute non_compute (us) idle% compute% non_compute% kept dropped */
        TL_ASSERT_MSG(table_row(out, h->rank, v, 8) == 8, "%s: no row for rank %d:\n%s", cmd, h->rank, out);
        TL_ASSERT_MSG(fabs(v[4] - h->idle) < 0.01 && fabs(v[5] - h->compute) < 0.01 &&
                          fabs(v[6] - h->non_compute) < 0.01,
                      "%s rank %d: idle/compute/non-compute %.2f/%.2f/%.2f, HTA %.2f/%.2f/%.2f", h->set, h->rank,
                      v[4], v[5], v[6], h->idle, h->compute, h->non_compute);
        TL_ASSERT_NEAR(v[4] + v[5] + v[6], 100.0, 0.02);
        printf("%s rank %d: overlap %.2f%%, idle/compute/non-compute %.2f/%.2f/%.2f%% (HTA's)\n", h->set, h->rank,
               h->overlap, v[4], v[5], v[6]);
        free(out);
        free(err);
    }
}

typedef struct counts {
    int64_t kernels, p2p, coll, by_name_p2p, by_name_coll, memcpy, memset, iter_min, iter_max, in_iter, launches, steps, comm_ops;
    int64_t gpu_first, gpu_last, bytes;
} counts;

static tl_status count(void *user, const tl_trace_record *r)
{
    counts *c = user;
    if (r->kind == TL_KIND_HOST) {
        c->launches += !strncmp(r->name, "cuda:", 5);
        c->steps += !strcmp(r->name, "iter");
        c->comm_ops += !strncmp(r->name, "comm:", 5);
        return TL_OK;
    }
    if (r->kind == TL_KIND_KERNEL) {
        c->kernels++;
        c->p2p += r->cat == TL_CAT_P2P;
        c->coll += r->cat == TL_CAT_COLL;
        tl_nccl_kind nk = tl_trace_nccl_kernel(r->name);
        c->by_name_p2p += nk == TL_NCCL_P2P;
        c->by_name_coll += nk == TL_NCCL_COLL;
    }
    c->memcpy += r->kind == TL_KIND_MEMCPY;
    c->memset += r->kind == TL_KIND_MEMSET;
    if (r->kind == TL_KIND_MEMCPY && r->bytes > 0) c->bytes += r->bytes;
    TL_CHECK(r->end_ns >= r->start_ns, TL_ERR_PARSE, "record ends before it starts");
    if (r->iter >= 0) {
        c->in_iter++;
        if (r->iter < c->iter_min) c->iter_min = r->iter;
        if (r->iter > c->iter_max) c->iter_max = r->iter;
    }
    return TL_OK;
}

static counts scan(const char *path, tl_an_meta *m)
{
    counts c = {.iter_min = INT64_MAX, .iter_max = -1};
    TL_ASSERT_OK(tl_an_scan(path, 0, count, &c, m));
    return c;
}

/* The NCCL kernels of the data README by name, and p2p or coll by the
 * operation they served (the SendRecv kernels of nccl:all_to_all and
 * nccl:all_reduce are a collective's); iterations from the ProfilerStep
 * ranges; rank and world size from distributedInfo. */
TL_TEST(records_of_shared_traces)
{
    need_zlib();
    char p[600];
    tl_an_meta m;
    snprintf(p, sizeof p, "%s/nccl_data.json.gz", data_dir("nccl_parser_config"));
    counts c = scan(p, &m);
    TL_ASSERT_EQ(c.coll, 21);
    TL_ASSERT_EQ(c.by_name_coll, 21);
    TL_ASSERT_EQ(c.p2p, 0);
    TL_ASSERT_EQ(c.kernels, 2700);
    TL_ASSERT_EQ(c.memcpy, 960);
    TL_ASSERT_EQ(c.memset, 114);
    TL_ASSERT_EQ(c.iter_min, 4);
    TL_ASSERT_EQ(c.iter_max, 6);
    TL_ASSERT_EQ(c.steps, 3);
    /* record_param_comms rows with a collective name: 15 allreduce, 6
     * broadcast (the kernels above) and 6 wait */
    TL_ASSERT_EQ(c.comm_ops, 27);
    TL_ASSERT_EQ(m.rank, 0);
    TL_ASSERT_EQ(m.nranks, 2);
    TL_ASSERT_STREQ(m.device_name, "NVIDIA A100-PG509-200");
    snprintf(p, sizeof p, "%s/control.json.gz", data_dir("trace_diff_control"));
    c = scan(p, &m);
    TL_ASSERT_EQ(c.by_name_p2p, 42);
    TL_ASSERT_EQ(c.by_name_coll, 18);
    TL_ASSERT_EQ(c.p2p, 0); /* the SendRecv kernels serve nccl:all_to_all */
    TL_ASSERT_EQ(c.coll, 60);
    TL_ASSERT_EQ(m.rank, 3);
    TL_ASSERT_EQ(m.nranks, 8);
    TL_ASSERT_EQ(m.device, 3);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/sampled_rank-%d.json.gz", data_dir("trace_filter"), r);
        c = scan(p, &m);
        TL_ASSERT_EQ(c.by_name_p2p, 10);
        TL_ASSERT_EQ(c.p2p, 0); /* nccl:all_to_all, all_reduce, _all_gather_base */
        TL_ASSERT_EQ(c.coll, 10);
        TL_ASSERT_EQ(m.rank, r);
        TL_ASSERT_EQ(m.nranks, 128);
        TL_ASSERT(c.iter_min == 551 && c.iter_max == 552);
    }
    /* the folder lists its ranks in rank order */
    char **files = NULL;
    size_t nf = 0;
    TL_ASSERT_OK(tl_an_run_files(data_dir("trace_filter"), 0, &files, &nf));
    TL_ASSERT_EQ(nf, 2);
    TL_ASSERT(strstr(files[0], "sampled_rank-0") && strstr(files[1], "sampled_rank-1"));
    tl_an_run_files_free(&files, nf);
}

/* The same trace compressed and not: the same records, the same HTA figures. */
TL_TEST(json_and_gz_alike)
{
    need_zlib();
    const char *dir = tl_test_tmpdir();
    char gz[600], js[700];
    snprintf(gz, sizeof gz, "%s/sampled_rank-1.json.gz", data_dir("trace_filter"));
    snprintf(js, sizeof js, "%s/rank1.json", dir);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s", gz, js), 0);
    /* gzip under a plain .json name: found by its content, not its name */
    char renamed[700];
    snprintf(renamed, sizeof renamed, "%s/renamed.json", dir);
    TL_ASSERT_EQ(tl_test_sh("cp %s %s", gz, renamed), 0);
    TL_ASSERT(tl_an_is_kineto(renamed));
    tl_an_meta ma, mb, mc;
    counts a = scan(gz, &ma), b = scan(js, &mb), c = scan(renamed, &mc);
    TL_ASSERT(memcmp(&a, &b, sizeof a) == 0);
    TL_ASSERT(memcmp(&a, &c, sizeof a) == 0);
    TL_ASSERT_EQ(ma.w0, mb.w0);
    TL_ASSERT_EQ(ma.w1, mb.w1);
    tl_kt_trace *t = NULL;
    tl_kt_hta h;
    TL_ASSERT_OK(tl_kt_load(js, &t));
    TL_ASSERT_OK(tl_kt_hta_compute(t, 1, &h));
    TL_ASSERT_NEAR(100.0 * (double)h.overlap_us / (double)h.comm_us, 20.05, 0.01);
    tl_kt_free(&t);
}

/* A small trace of known content: kernels on two streams, an NCCL
 * SendRecv (new naming) serving nccl:send of process group 1 on a third,
 * a copy, launches inside ProfilerStep#7 and #8. */
static const char *SMALL =
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1000, \"dur\": 100},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#8\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1100, \"dur\": 100},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1010, \"dur\": 5, \"args\": {\"correlation\": 11}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1020, \"dur\": 5, \"args\": {\"correlation\": 12}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 1150, \"dur\": 5, \"args\": {\"correlation\": 13}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1030, "
    "\"dur\": 40, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 11}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)\", "
    "\"pid\": 0, \"tid\": 20, \"ts\": 1040, \"dur\": 40, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": 12}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"pid\": 0, \"tid\": 9, "
    "\"ts\": 1160, \"dur\": 2.5, \"args\": {\"device\": 0, \"stream\": 9, \"correlation\": 13, \"bytes\": 4096}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nccl:send\", \"pid\": 1, \"tid\": 1, \"ts\": 1018, "
    "\"dur\": 10},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": 1019, "
    "\"dur\": 8, \"args\": {\"Collective name\": \"send\", \"Process Group Name\": \"1\", "
    "\"Process Group Description\": \"pp\", \"In msg nelems\": 256}},\n"
    "  {\"ph\": \"f\", \"id\": 11, \"pid\": 1, \"tid\": 1, \"ts\": 1010, \"cat\": \"ac2g\", \"name\": \"ac2g\"}\n"
    " ], \"traceName\": \"small.json\"}\n";

typedef struct small_seen {
    int gemm, nccl, copy, launches;
} small_seen;

static tl_status check_small(void *user, const tl_trace_record *r)
{
    small_seen *s = user;
    if (r->kind == TL_KIND_HOST) {
        s->launches += !strncmp(r->name, "cuda:cudaLaunchKernel", 21);
        return TL_OK;
    }
    if (!strcmp(r->name, "gemm")) {
        TL_CHECK(r->cat == TL_CAT_COMPUTE && r->lane == TL_ROLE_COMPUTE && r->stream == 7 && r->iter == 7 &&
                     r->start_ns == 1030000 && r->end_ns == 1070000 && r->corr == 11,
                 TL_ERR_INVAL, "gemm record wrong");
        s->gemm++;
    } else if (!strncmp(r->name, "ncclDevKernel_SendRecv", 22)) {
        TL_CHECK(r->cat == TL_CAT_P2P && r->lane == TL_ROLE_P2P && r->stream == 20 && r->iter == 7, TL_ERR_INVAL,
                 "nccl record wrong");
        s->nccl++;
    } else if (r->kind == TL_KIND_MEMCPY) {
        TL_CHECK(r->bytes == 4096 && r->iter == 8 && r->end_ns - r->start_ns == 2500, TL_ERR_INVAL,
                 "copy record wrong");
        s->copy++;
    }
    return TL_OK;
}

TL_TEST(small_trace_records)
{
    need_zlib();
    const char *p = tl_test_path("small.json");
    tl_test_write(p, SMALL);
    small_seen s = {0};
    tl_an_meta m;
    TL_ASSERT_OK(tl_an_scan(p, 0, check_small, &s, &m));
    TL_ASSERT(s.gemm == 1 && s.nccl == 1 && s.copy == 1 && s.launches == 2);
    TL_ASSERT_EQ(m.rank, 1);
    TL_ASSERT_EQ(m.nranks, 2);
    TL_ASSERT_EQ(m.w0, 1030000);
    TL_ASSERT_EQ(m.w1, 1162500);
    /* HTA: two steps, the copy launched in the last one is dropped; the
     * gemm and the SendRecv overlap for 30 of the SendRecv's 40 us */
    tl_kt_trace *t = NULL;
    tl_kt_hta h;
    TL_ASSERT_OK(tl_kt_load(p, &t));
    TL_ASSERT_OK(tl_kt_hta_compute(t, 1, &h));
    TL_ASSERT_EQ(h.kept, 2);
    TL_ASSERT_EQ(h.dropped, 1);
    TL_ASSERT_EQ(h.comm_us, 40);
    TL_ASSERT_EQ(h.overlap_us, 30);
    TL_ASSERT_EQ(h.kernel_us, 50);
    TL_ASSERT_EQ(h.idle_us, 0);
    /* fractional ts: HTA rounds inward, so the 2.5 us copy becomes [1160, 1162] */
    TL_ASSERT_OK(tl_kt_hta_compute(t, 0, &h));
    TL_ASSERT_EQ(t->ts_float, 0);
    TL_ASSERT_EQ(h.kernel_us, 1162 - 1030);
    tl_kt_free(&t);
}

/* The text of SMALL with `from` replaced by `to`. */
static void variant(const char *path, const char *from, const char *to)
{
    const char *at = strstr(SMALL, from);
    TL_ASSERT(at);
    FILE *f = fopen(path, "w");
    TL_ASSERT(f);
    fprintf(f, "%.*s%s%s", (int)(at - SMALL), SMALL, to, at + strlen(from));
    TL_ASSERT(fclose(f) == 0);
}

/* One refusal: exit 1, the first line of stderr names the file and says why. */
static void refused(const char *path, const char *reason)
{
    char cmd[1024], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap %s", tl_test_bin(), path);
    int rc = tl_test_run(cmd, &out, &err);
    char *nl = strchr(err, '\n');
    if (nl) *nl = '\0';
    TL_ASSERT_MSG(rc == 1 && strstr(err, path) && strstr(err, reason), "%s: exit %d, first line '%s' (expected '%s')",
                  path, rc, err, reason);
    printf("refused: %s\n", err);
    free(out);
    free(err);
}

TL_TEST(bad_traces_refused)
{
    need_zlib();
    const char *dir = tl_test_tmpdir();
    char p[600];
    /* truncated JSON, plain and compressed */
    snprintf(p, sizeof p, "%s/truncated.json", dir);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "%.*s", (int)(strlen(SMALL) / 2), SMALL);
    fclose(f);
    refused(p, "ends early");
    char gz[700];
    snprintf(gz, sizeof gz, "%s/truncated.json.gz", dir);
    snprintf(p, sizeof p, "%s/whole.json", dir);
    tl_test_write(p, SMALL);
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s | head -c 200 > %s", p, gz), 0);
    refused(gz, "truncated or corrupt file: gzip data ends inside a member");
    /* bytes after the gzip data, which zlib's gzread dropped in silence */
    snprintf(gz, sizeof gz, "%s/tail.json.gz", dir);
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s > %s && printf 'junk' >> %s", p, gz, gz), 0);
    refused(gz, "4 bytes or more after the end of the gzip data (not another gzip member)");
    /* no traceEvents */
    snprintf(p, sizeof p, "%s/noevents.json", dir);
    tl_test_write(p, "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0, \"world_size\": 1}}\n");
    refused(p, "no traceEvents");
    /* a kernel ending before it starts */
    snprintf(p, sizeof p, "%s/negative.json", dir);
    variant(p, "\"ts\": 1030, \"dur\": 40", "\"ts\": 1030, \"dur\": -40");
    refused(p, "ends before it starts");
    /* a kernel without its ts, or with a text one: before, read as ts 0,
     * the kernel put at the clock's origin and the window stretched to it */
    snprintf(p, sizeof p, "%s/nots.json", dir);
    variant(p, "\"ts\": 1030, \"dur\": 40", "\"dur\": 40");
    refused(p, "'gemm' has no ts");
    snprintf(p, sizeof p, "%s/textts.json", dir);
    variant(p, "\"ts\": 1030, \"dur\": 40", "\"ts\": \"1030\", \"dur\": 40");
    refused(p, "'gemm' has no ts");
    /* a kernel without its dur, its name, or the device and stream it ran
     * on: before, the first vanished with its launch, the second was
     * written as a kernel named "", the others on device -1 (a host row) */
    static const char *const args = "\"ts\": 1030, \"dur\": 40, \"args\": {\"device\": 0, \"stream\": 7,";
    static const struct {
        const char *file, *from, *to, *says;
    } gpu_missing[] = {
        {"nodur.json", args, "\"ts\": 1030, \"args\": {\"device\": 0, \"stream\": 7,", "'gemm' (kernel) has no dur"},
        {"noname.json", "\"name\": \"gemm\", \"pid\": 0", "\"pid\": 0", "'?' (kernel) has no name"},
        {"nodevice.json", args, "\"ts\": 1030, \"dur\": 40, \"args\": {\"stream\": 7,",
         "'gemm' (kernel) has no args.device"},
        {"nostream.json", args, "\"ts\": 1030, \"dur\": 40, \"args\": {\"device\": 0,",
         "'gemm' (kernel) has no args.stream"},
    };
    for (size_t k = 0; k < sizeof gpu_missing / sizeof gpu_missing[0]; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, gpu_missing[k].file);
        variant(p, gpu_missing[k].from, gpu_missing[k].to);
        refused(p, gpu_missing[k].says);
        char cmd[1400], *out = NULL, *err = NULL;
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze import %s -o %s/imp-%zu", tl_test_bin(), p, dir, k);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
        TL_ASSERT_MSG(tl_test_one_line(err, gpu_missing[k].file) && strstr(err, gpu_missing[k].says), "%s", err);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/imp-%zu", dir, k), 0); /* nothing half-written */
        free(out);
        free(err);
    }
    /* a name that is not UTF-8 (json-c passes the bytes through): before,
     * analysed, and import wrote a trace its reader refuses ("name is not
     * valid UTF-8") */
    snprintf(p, sizeof p, "%s/utf8.json", dir);
    variant(p, "\"name\": \"gemm\"", "\"name\": \"gemm\xff\"");
    refused(p, "the event's name is not valid UTF-8 (byte 0xff at offset 4)");
    /* epoch µs after an epoch baseTimeNanoseconds (given after the events):
     * 3.4e18 ns, past the +-2^61 ns every reader keeps times in; before,
     * analysed, and import failed naming its temporary file */
    snprintf(p, sizeof p, "%s/base.json", dir);
    tl_test_write(p, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, "
                     "\"tid\": 7, \"ts\": 1682725898236567, \"dur\": 68, \"args\": {\"device\": 0, \"stream\": 7, "
                     "\"correlation\": 1}}], \"baseTimeNanoseconds\": 1700000000000000000}\n");
    refused(p, "'gemm' at ts=1682725898236567.000 µs is at 3382725898236567000");
    char cmd[1400], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze import %s -o %s/base-import", tl_test_bin(), p, dir);
    TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
    TL_ASSERT_MSG(tl_test_one_line(err, "base.json: event 'gemm'") && !strstr(err, ".import."), "%s", err);
    free(out);
    free(err);
    /* a gzip trailer claiming 2 GB for a tiny file: read as a stream, never
     * sized from the claim, refused by zlib's length check */
    snprintf(gz, sizeof gz, "%s/claim.json.gz", dir);
    snprintf(p, sizeof p, "%s/whole.json", dir);
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s > %s && printf '\\000\\000\\000\\200' | dd of=%s bs=1 seek=$(($(stat -c %%s %s) "
                            "- 4)) conv=notrunc status=none", p, gz, gz, gz), 0);
    refused(gz, "truncated or corrupt file: incorrect length check");
    /* not JSON at all after the brace, and an event that is not an object */
    snprintf(p, sizeof p, "%s/garbage.json", dir);
    tl_test_write(p, "{\"traceEvents\": [1, 2]}");
    refused(p, "is not an object");
    snprintf(p, sizeof p, "%s/trailing.json", dir);
    tl_test_write(p, "{\"traceEvents\": []} x");
    refused(p, "text after the end");
}

/* timeline takes its span from the first rank with activity: a rank0.json
 * of its header only beside a real rank (before: refused, "rank0.json: no
 * GPU activity in iterations 551:552", while every other command read it). */
TL_TEST(timeline_skips_an_empty_first_rank)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *t = tl_test_tmpdir();
    char run[600];
    snprintf(run, sizeof run, "%s/k2", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s && echo '{\"traceEvents\": []}' > %s/rank0.json && "
                            "cp %s/sampled_rank-1.json.gz %s/", run, run, dir, run), 0);
    tl_test_output o = tl_test_capture("%s/trilap-analyze timeline %s -o %s/tl.csv", tl_test_bin(), run, t);
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    /* the default --count 3 clipped to the trace's two steps, and rank 0's
     * empty trace drawing nothing, said */
    TL_ASSERT_MSG(strstr(o.out, "# iterations: 551:552 (--count 3 clipped: the run has iterations 551..552)\n") &&
                      strstr(o.out, "the selection on rank 1 ") &&
                      strstr(o.out, "# ranks short of the range: rank 0 no rows (no activity in the span)\n"),
                  "%s", o.out);
    tl_test_output_free(&o);
    TL_ASSERT_EQ(tl_test_sh("test $(wc -l < %s/tl.csv) -gt 1000", t), 0);
}

/* overlap's max and mean rows leave out a rank without activity in the
 * window, and say so (before: its W of 0 halved the mean W, 615593.0
 * beside rank 1's 1231186.0, while the mean ratios left it out) */
TL_TEST(overlap_means_leave_out_an_idle_rank)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *t = tl_test_tmpdir();
    char run[600];
    snprintf(run, sizeof run, "%s/k2", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s && echo '{\"traceEvents\": []}' > %s/rank0.json && "
                            "cp %s/sampled_rank-1.json.gz %s/", run, run, dir, run), 0);
    tl_test_output o = tl_test_capture("%s/trilap-analyze overlap %s --csv %s/ov.csv", tl_test_bin(), run, t);
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    TL_ASSERT_MSG(strstr(o.out, "# max, mean: without rank 0, which has no activity in the window\n"), "%s", o.out);
    tl_test_output_free(&o);
    char p[700];
    snprintf(p, sizeof p, "%s/ov.csv", t);
    char *csv = tl_test_read(p), *one = strstr(csv, "\n1,"), *mean = strstr(csv, "\nmean,");
    TL_ASSERT_MSG(one && mean, "%s", csv);
    *strchr(one + 1, '\n') = '\0';
    TL_ASSERT_MSG(strncmp(one + 3, mean + 6, strlen(one + 3)) == 0, "the mean row is not rank 1's:\n%s\n%s", one + 1,
                  mean + 1);
    free(csv);
}

/* Every command reads a Kineto folder; import writes trilap traces that
 * analyse the same. */
TL_TEST(every_command_reads_kineto)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *t = tl_test_tmpdir();
    const char *bin = tl_test_bin();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap --per-iter %s > %s/ov.txt", bin, dir, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s > /dev/null", bin, dir), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze diagnose %s > /dev/null", bin, dir), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze timeline %s -o %s/tl.csv > /dev/null", bin, dir, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s -o %s/p.json > /dev/null", bin, dir, t), 0);
    /* a copy: one folder twice is refused (compare_refuses_one_input_twice) */
    TL_ASSERT_EQ(tl_test_sh("cp -r %s %s/kcopy && %s/trilap-analyze compare %s %s/kcopy > /dev/null", dir, t, bin, dir, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s/run > /dev/null", bin, dir, t), 0);
    /* two of 128 ranks, as the traces are (rank_subset=yes): read as they
     * are, no --accept-incomplete; a Perfetto export kept in the folder
     * leaves it a trilap run */
    TL_ASSERT_EQ(tl_test_sh("grep -q '^# rank_subset=yes$' %s/run/trace.rank1.csv", t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s/run -o %s/run/p.json > /dev/null", bin, t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap --per-iter %s/run > %s/ov2.txt 2> %s/err2.txt && ! test -s "
                            "%s/err2.txt", bin, t, t, t, t), 0);
    /* the same table from the imported CSV, but for the input line */
    TL_ASSERT_EQ(tl_test_sh("cd %s && grep -v '^# input\\|^# program' ov.txt > a && grep -v '^# input\\|^# program' "
                            "ov2.txt > b && diff a b >&2", t),
                 0);
    char path[600];
    snprintf(path, sizeof path, "%s/ov.txt", t);
    char *ov = tl_test_read(path);
    TL_ASSERT_MSG(strstr(ov, "551") && strstr(ov, "552"), "per-iteration rows named by ProfilerStep:\n%s", ov);
    free(ov);
    /* --hta on a trilap run or an Nsight Systems export: the switch cannot
     * apply to that input, exit 2 in one line as --raw-clock on a Kineto
     * trace (the reader refused it, exit 1) */
    TL_ASSERT_EQ(tl_test_sh("printf 'SQLite format 3\\000' > %s/e.sqlite", t), 0);
    static const char *const other[][3] = {{"overlap", "run", "a trilap trace"},
                                           {"breakdown", "run/trace.rank1.csv", "a trilap trace"},
                                           {"breakdown", "e.sqlite", "an Nsight Systems export"}};
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
        char *out = NULL, *err = NULL, cmd[1024], want[800];
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s --hta %s/%s", bin, other[k][0], t, other[k][1]);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 2);
        snprintf(want, sizeof want, "trilap-analyze: --hta does not apply to %s/%s, %s: it applies Holistic Trace "
                                    "Analysis's rules to PyTorch profiler (Kineto) traces",
                 t, other[k][1], other[k][2]);
        TL_ASSERT_MSG(tl_test_one_line(err, want) && !out[0], "%s: %s", cmd, err);
        free(out);
        free(err);
    }
}

/* import names each file by the rank its trace says (rank 3 of 8 is
 * trace.rank3.csv) and reads back as the trace does; an -o folder holding
 * a rank file the import would not replace is refused, nothing written. */
TL_TEST(import_reads_back)
{
    need_zlib();
    const char *src = data_dir("trace_diff_control"), *t = tl_test_tmpdir(), *bin = tl_test_bin();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s/control.json.gz -o %s/run > /dev/null", bin, src, t), 0);
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls %s/run)\" = trace.rank3.csv", t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s/control.json.gz | grep -v '^# input' > %s/a", bin, src, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s/run | grep -v '^# input' > %s/b", bin, t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("diff %s/a %s/b >&2", t, t), 0);
    /* importing again replaces the files it wrote */
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s/control.json.gz -o %s/run > /dev/null", bin, src, t), 0);
    static const char *const stray[][2] = {
        {"trace.rank3.csv.gz", "holds trace.rank3.csv.gz, which would be a second file of rank 3 beside the imported "
                               "trace.rank3.csv"},
        {"trace.rank0.csv", "holds trace.rank0.csv, a rank the traces (1 rank) do not have"},
        {"trace.rank03.csv", "holds trace.rank03.csv, a name the reader refuses"},
    };
    for (size_t k = 0; k < sizeof stray / sizeof stray[0]; k++) {
        char *out = NULL, *err = NULL, cmd[1024];
        TL_ASSERT_EQ(tl_test_sh("rm -rf %s/o && mkdir %s/o && touch %s/o/%s", t, t, t, stray[k][0]), 0);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze import %s/control.json.gz -o %s/o", bin, src, t);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
        const char *nl = strchr(err, '\n');
        TL_ASSERT_MSG(strstr(err, stray[k][1]) && nl && !nl[1], "not one line saying why: %s", err);
        TL_ASSERT_MSG(!out[0], "%s", out);
        TL_ASSERT_EQ(tl_test_sh("test \"$(ls -A %s/o)\" = %s", t, stray[k][0]), 0);
        free(out);
        free(err);
    }
    /* -o naming the folder of traces imported, whatever the spelling: an
     * output over an input, exit 2, nothing written (it wrote
     * trace.rank3.csv beside control.json.gz, the folder then a trilap run) */
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/k && cp %s/control.json.gz %s/k", t, src, t), 0);
    /* and -o naming the folder that holds the trace imported: the same (it
     * was accepted, trace.rank3.csv then beside control.json.gz) */
    static const char *const over[][2] = {
        {"%s/k -o %s/k", "is the input"},
        {"%s/k -o %s/k/", "is the input"},
        {"%s/k/ -o %s/./k", "is the input"},
        {"%s/k/control.json.gz -o %s/k", "is the folder of the input"},
        {"%s/k/control.json.gz -o %s/./k/", "is the folder of the input"},
    };
    for (size_t k = 0; k < sizeof over / sizeof over[0]; k++) {
        char *out = NULL, *err = NULL, args[1300], cmd[1400];
        snprintf(args, sizeof args, over[k][0], t, t);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze import %s", bin, args);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 2);
        TL_ASSERT_MSG(tl_test_one_line(err, over[k][1]) &&
                          tl_test_one_line(err, "the trace files would be written among the traces they come from") &&
                          !out[0],
                      "%s: %s", args, err);
        TL_ASSERT_EQ(tl_test_sh("test \"$(ls -A %s/k)\" = control.json.gz", t), 0);
        free(out);
        free(err);
    }
    /* from inside the folder: a bare name, -o . */
    TL_ASSERT_EQ(tl_test_sh("b=$(readlink -f %s) && cd %s/k && { $b/trilap-analyze import control.json.gz -o . "
                            "2>/dev/null; test $? = 2; }",
                            bin, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls -A %s/k)\" = control.json.gz", t), 0);
}

/* Traces of two runs in one folder (world sizes differ) are refused naming
 * both. */
TL_TEST(kineto_runs_checked)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/mix && cp %s/sampled_rank-0.json.gz %s/control.json.gz %s/mix", t,
                            data_dir("trace_filter"), data_dir("trace_diff_control"), t),
                 0);
    char p[600];
    snprintf(p, sizeof p, "%s/mix", t);
    refused(p, "sampled_rank-0.json.gz and ");
    refused(p, "control.json.gz are not of one run: distributedInfo says world_size 128 and 8");
}

/* A trace with no activity is refused in every command; a folder where
 * only one rank has none still loads. */
TL_TEST(kineto_activity_checked)
{
    need_zlib();
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char p[600];
    snprintf(p, sizeof p, "%s/noevents.json", t);
    tl_test_write(p, "{\"traceEvents\": []}\n");
    refused(p, "no GPU or host activity recorded");
    static const char *const cmds[] = {"diagnose", "breakdown", "collectives"};
    for (size_t k = 0; k < 3; k++) {
        char *out = NULL, *err = NULL, cmd[1024];
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s %s", bin, cmds[k], p);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
        TL_ASSERT_MSG(strstr(err, "nothing to analyse") && !out[0], "%s: %s%s", cmds[k], out, err);
        free(out);
        free(err);
    }
    /* CPU operators only */
    snprintf(p, sizeof p, "%s/cpu.json", t);
    tl_test_write(p, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"ts\": 1, "
                     "\"dur\": 2}], \"distributedInfo\": {\"rank\": 1, \"world_size\": 128}}\n");
    refused(p, "no GPU or host activity recorded");
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/half && cp %s/sampled_rank-0.json.gz %s/cpu.json %s/half", t,
                            data_dir("trace_filter"), t, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s/half > /dev/null", bin, t), 0);
}

/* A profile of the CPU only (torch.profiler without ProfilerActivity.CUDA:
 * steps, operators and CUDA runtime calls, no kernel, copy or memset) has
 * no GPU figure to give: refused in one line by every command, nothing
 * written. Before, every command exited 0 with W 0.0 us, diagnose called
 * the rank "host-only (... by design)" and overlap told the user to trace
 * "a --backend cuda run"; a folder of such ranks alike. */
TL_TEST(kineto_cpu_only_refused)
{
    need_zlib();
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char p[600];
    static const char cpu[] =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"ts\": 10, "
        "\"dur\": 100}, {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"ts\": 20, \"dur\": 30}, "
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 25, \"dur\": 5, "
        "\"args\": {\"correlation\": 7}}], \"distributedInfo\": {\"rank\": %d, \"world_size\": 2}}\n";
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/cpu && printf '%s' 0 0 > %s/cpu/rank0.json && printf '%s' 1 1 > "
                            "%s/cpu/rank1.json",
                            t, cpu, t, cpu, t),
                 0);
    static const char *const cmds[] = {"overlap", "diagnose", "breakdown", "timeline -o OUT/t.csv",
                                       "perfetto -o OUT/p.json", "collectives", "overlap --hta", "breakdown --hta",
                                       "import -o OUT/imp"};
    static const char *const inputs[] = {"cpu/rank0.json", "cpu"};
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
            char *out = NULL, *err = NULL, cmd[1024];
            const char *o = strstr(cmds[k], "OUT"); /* an output: in the folder o, which stays empty */
            snprintf(p, sizeof p, "%s/%s", t, inputs[i]);
            TL_ASSERT_EQ(tl_test_sh("rm -rf %s/o && mkdir %s/o", t, t), 0);
            int len = o ? (int)(o - cmds[k]) : (int)strlen(cmds[k]);
            snprintf(cmd, sizeof cmd, "%s/trilap-analyze %.*s%s%s%s %s", bin, len, cmds[k], o ? t : "", o ? "/o" : "",
                     o ? o + 3 : "", p);
            int rc = tl_test_run(cmd, &out, &err);
            const char *nl = strchr(err, '\n');
            TL_ASSERT_MSG(rc == 1 && strstr(err, p) && strstr(err, "no GPU activity") &&
                              strstr(err, "ProfilerActivity.CUDA") && nl && !nl[1] && !out[0],
                          "%s: exit %d\n%s%s", cmd, rc, out, err);
            TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls -A %s/o)\"", t), 0);
            free(out);
            free(err);
        }
}

/* A gzip stream cut short says how much it gave before it ended. */
TL_TEST(cut_gzip_counts_what_it_read)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char gz[600], *out = NULL, *err = NULL, cmd[1024];
    snprintf(gz, sizeof gz, "%s/cut.json.gz", t);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s/sampled_rank-0.json.gz | gzip -c | head -c 50000 > %s", data_dir("trace_filter"),
                            gz),
                 0);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc < %s 2>/dev/null | wc -c > %s/n", gz, t), 0);
    snprintf(cmd, sizeof cmd, "%s/n", t);
    char *n = tl_test_read(cmd), want[128];
    n[strcspn(n, "\n")] = '\0';
    TL_ASSERT_MSG(atol(n) > 100000, "gzip gave %s bytes of 50000 compressed", n);
    snprintf(want, sizeof want, "after %s bytes of JSON: truncated or corrupt file: gzip data ends inside a member", n);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap %s", tl_test_bin(), gz);
    TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
    TL_ASSERT_MSG(strstr(err, want), "expected '%s':\n%s", want, err);
    free(n);
    free(out);
    free(err);
}

/* `collectives`: the operation, process group and size of each NCCL
 * kernel, its launch delay; matched across the two trace_filter ranks with
 * the clock offset estimated from their ends. */
TL_TEST(collectives_command)
{
    need_zlib();
    char cmd[1024], *out = NULL, *err = NULL;
    const char *p = tl_test_path("small.json");
    tl_test_write(p, SMALL);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze collectives %s", tl_test_bin(), p);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    /* rank step op pg seq elems bytes stream delay waited duration behind (no dtype: no bytes) */
    /* pg in quotes: one field for a reader that splits on blanks */
    TL_ASSERT_MSG(strstr(out, "     1    7 send \"1 (pp)\"   0   256     -     20  20.0    0.0     40.0 launch"), "%s",
                  out);
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze collectives %s", tl_test_bin(), data_dir("nccl_parser_config"));
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    TL_ASSERT_EQ(tl_test_count(out, " all_reduce \"0 (default_pg, ranks 0-1)\" "), 15);
    TL_ASSERT_EQ(tl_test_count(out, " broadcast  \"0 (default_pg, ranks 0-1)\" "), 6);
    /* In msg nelems x dtype (Float) */
    TL_ASSERT_MSG(strstr(out, " \"0 (default_pg, ranks 0-1)\"   0   53120   212480     40 "), "%s", out);
    TL_ASSERT(strstr(out, "# 21 rows"));
    free(out);
    free(err);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze collectives %s", tl_test_bin(), data_dir("trace_filter"));
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    TL_ASSERT_MSG(strstr(out, "offset to rank 0 estimated") && strstr(out, "from 10 matched ends"), "%s", out);
    TL_ASSERT_EQ(tl_test_count(out, "_all_gather_base"), 4 + 2);
    TL_ASSERT(strstr(out, "# finding: largest arrival skew:"));
    free(out);
    free(err);
}

/* A trace without an NCCL kernel (a one-GPU program) has nothing for
 * collectives: one line saying what it has, exit 1, no --csv written
 * (before: an empty table, "# 0 rows", exit 0) */
TL_TEST(collectives_without_nccl_refused)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600], cmd[1400], *out = NULL, *err = NULL;
    snprintf(p, sizeof p, "%s/one-gpu.json", t);
    variant(p, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "my_kernel");
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze collectives %s --csv %s/c.csv", tl_test_bin(), p, t);
    int rc = tl_test_run(cmd, &out, &err);
    TL_ASSERT_MSG(rc == 1 && !out[0] && tl_test_one_line(err, "one-gpu.json: no NCCL kernel: the trace has 2 kernels on "
                                                              "1 rank, none of them NCCL's; collectives reads NCCL "
                                                              "kernels"),
                  "exit %d\n%s%s", rc, out, err);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/c.csv", t), 0);
    free(out);
    free(err);
}

/* The output of `trilap-analyze ARGS`, which must exit 0 (free it). */
static char *analyze(const char *args)
{
    char cmd[1024], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", tl_test_bin(), args);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    free(err);
    return out;
}

/* The n characters at a, as a string (free it). */
static char *text_copy(const char *a, size_t n)
{
    char *s = malloc(n + 1);
    TL_ASSERT(s);
    memcpy(s, a, n);
    s[n] = '\0';
    return s;
}

/* The evidence block of FINDING [rule] in diagnose's output (up to its
 * remedy), or NULL when the rule did not fire. */
static char *finding(const char *out, const char *rule)
{
    char key[96];
    snprintf(key, sizeof key, "[%s]: ", rule);
    const char *a = out;
    for (;;) {
        a = strstr(a, "\nFINDING ");
        if (!a) return NULL;
        a++;
        const char *eol = strchr(a, '\n'), *k = strstr(a, key);
        if (k && eol && k < eol) break;
    }
    const char *b = strstr(a, "  remedy:");
    return text_copy(a, b ? (size_t)(b - a) : strlen(a));
}

/* issue 27: diagnose's communication findings name the collective (its
 * message size) and the process group where the trace records them, and
 * the operation a collective waited behind. */
TL_TEST(diagnose_names_collectives)
{
    need_zlib();
    char args[700];
    /* record_param_comms: collective, size (2049000 floats) and process group with its ranks */
    snprintf(args, sizeof args, "diagnose --exposed-share 1 %s", data_dir("nccl_parser_config"));
    char *out = analyze(args), *f = finding(out, "exposed-communication");
    TL_ASSERT_MSG(f, "exposed-communication did not fire:\n%s", out);
    TL_ASSERT_MSG(strstr(f, "most exposed: nccl:all_reduce 8.2 MB on process group 0 (default_pg, ranks 0-1) on "
                            "stream 40: 3 operations"),
                  "%s", f);
    printf("%s\n", f);
    free(f);
    free(out);
    /* nccl:* ops only (no process group in these traces): the collective and
     * its tensor size, the absence said */
    snprintf(args, sizeof args, "diagnose %s", data_dir("trace_diff_control"));
    out = analyze(args);
    f = finding(out, "exposed-communication");
    TL_ASSERT_MSG(f && strstr(f, "most exposed: nccl:all_to_all 288.9 MB (process group not in the trace) on stream 21"),
                  "%s", out);
    free(f);
    f = finding(out, "queued-communication");
    TL_ASSERT_MSG(f && strstr(f, "most: nccl:all_reduce 1.1 MB (process group not in the trace) on stream 21: 6 of 6 "
                                 "queued") && strstr(f, "behind nccl:all_reduce 181.2 MB"),
                  "%s", out);
    printf("%s\n", f);
    free(f);
    free(out);
    /* across ranks: the most delayed operation named */
    snprintf(args, sizeof args, "diagnose --wait-share 5 %s", data_dir("trace_filter"));
    out = analyze(args);
    f = finding(out, "late-ranks");
    TL_ASSERT_MSG(f && strstr(f, "most delayed: nccl:") && strstr(f, "by time: nccl:all_to_all 419.4 MB"), "%s", out);
    free(f);
    f = finding(out, "queued-communication");
    TL_ASSERT_MSG(f && strstr(f, "rank 0: 2 communication kernels waited 91521.0 us") &&
                      strstr(f, "rank 1: 2 communication kernels waited 99926.0 us"),
                  "%s", out);
    free(f);
    free(out);
}

/* The remedy line of FINDING [rule] in diagnose's output (free it), or
 * NULL when the rule did not fire. */
static char *remedy(const char *out, const char *rule)
{
    char *f = finding(out, rule);
    if (!f) return NULL;
    const char *a = strstr(out, f);
    free(f);
    a = a ? strstr(a, "  remedy: ") : NULL;
    TL_ASSERT_MSG(a, "[%s] fired without a remedy:\n%s", rule, out);
    return text_copy(a, strcspn(a, "\n"));
}

/* A PyTorch profiler trace is a PyTorch program's: each finding's remedy
 * says what to change in it (async_op, DDP's buckets, FSDP's prefetch,
 * the process group's options, torch.compile), not a stencil's (before:
 * exposed-communication advised "the interior of the domain while its halo
 * moves" on an all_to_all of a recommender model, starved-communication
 * CTAs "on the split communicator" trilap-solve makes, launch-bound-compute
 * "fuse the short kernels" with no word of how in PyTorch). */
TL_TEST(diagnose_remedies_speak_pytorch)
{
    need_zlib();
    static const struct {
        const char *rule, *opts, *says, *not_says;
    } cases[] = {
        {"exposed-communication", "", "async_op=True", "halo"},
        {"no-comm-compute-overlap", "--hidden-min 50", "async_op=True", "cudaStreamWaitEvent"},
        {"launch-bound-compute", "--launch-share 1", "torch.compile", "vector updates"},
        {"starved-communication", "--starve-ratio 1.01 --starve-share 0 --min-samples 1", "is_high_priority_stream",
         "split communicator"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[800];
        snprintf(args, sizeof args, "diagnose %s %s", cases[i].opts, data_dir("trace_diff_control"));
        char *out = analyze(args), *r = remedy(out, cases[i].rule);
        TL_ASSERT_MSG(r, "%s did not fire:\n%s", cases[i].rule, out);
        TL_ASSERT_MSG(strstr(r, cases[i].says) && !strstr(r, cases[i].not_says), "%s", r);
        printf("%s:%s\n", cases[i].rule, r + 1);
        free(r);
        free(out);
    }
}

/* A collective held behind compute on another stream by the event its
 * process group's stream waits for (cudaStreamWaitEvent, which older
 * traces record on the host only, no GPU-side wait) says so, with the
 * other stream's activity it started after (before: behind "launch",
 * waited 0.0, for 3298 us of delay; 12 such of trace_diff_control's 60,
 * 27.4 ms); a kernel that started at its launch keeps "launch". */
TL_TEST(collectives_event_wait_on_the_host)
{
    need_zlib();
    char args[700];
    snprintf(args, sizeof args, "collectives %s", data_dir("trace_diff_control"));
    char *out = analyze(args);
    const char *a = strstr(out, "\n     3 1009 all_to_all ?    0 "), *b = strstr(out, "\n     3 1009 all_to_all ?    1 ");
    TL_ASSERT_MSG(a && b, "%s", out);
    char row[400];
    snprintf(row, sizeof row, "%.*s", (int)strcspn(a + 1, "\n"), a + 1);
    TL_ASSERT_MSG(strstr(row, " 3298.0 3293.0 ") && strstr(row, "\"event: cudaStreamWaitEvent, stream 7: Memset (Device)\""),
                  "%s", row);
    snprintf(row, sizeof row, "%.*s", (int)strcspn(b + 1, "\n"), b + 1);
    TL_ASSERT_MSG(strstr(row, " 16.0    0.0 ") && strstr(row, " launch"), "%s", row);
    TL_ASSERT_EQ(tl_test_count(out, "\"event: cudaStreamWaitEvent, stream 7: "), 13);
    free(out);
}

/* A one-rank trace: a gemm on stream 7 (1020-1400 us); all_reduce #0 on
 * stream 20 (1040-1300), #1 launched at 1050 behind it (1300-1350: 250 us
 * behind the stream); a cudaStreamWaitEvent on the host, then #2 launched
 * at 1070 on stream 21, held for the gemm (1405-1450: 330 us behind the
 * event, which the trace records on the host only). */
static void host_wait_trace(const char *path)
{
    static const struct {
        int corr, launch, start, dur, stream;
        const char *name;
    } k[] = {{100, 1010, 1020, 380, 7, "gemm"},
             {101, 1030, 1040, 260, 20, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
             {102, 1050, 1300, 50, 20, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"},
             {104, 1070, 1405, 45, 21, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}};
    char j[8192];
    size_t len = (size_t)snprintf(j, sizeof j,
                                  "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
                                  "\"world_size\": 1},\n \"traceEvents\": [\n"
                                  "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", "
                                  "\"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 500},\n"
                                  "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamWaitEvent\", "
                                  "\"pid\": 1, \"tid\": 1, \"ts\": 1060, \"dur\": 2, \"args\": {\"correlation\": 103}}");
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].corr != 100)
            len += (size_t)snprintf(j + len, sizeof j - len,
                                    ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"nccl:all_reduce\", "
                                    "\"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, \"args\": {\"Input Dims\": "
                                    "[[1024]], \"Input type\": [\"float\"]}}",
                                    k[i].launch - 1);
        len += (size_t)snprintf(j + len, sizeof j - len,
                                ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                                "\"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},\n"
                                "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, "
                                "\"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": %d, \"correlation\": "
                                "%d}}",
                                k[i].launch, k[i].corr, k[i].name, k[i].stream, k[i].start, k[i].dur, k[i].stream,
                                k[i].corr);
    }
    TL_ASSERT(len < sizeof j - 64);
    snprintf(j + len, sizeof j - len, "\n ], \"traceName\": \"hostwait.json\"}\n");
    tl_test_write(path, j);
}

/* diagnose's queued-communication and collectives' finding count what the
 * rows show: the wait behind the stream and the one behind an event the
 * host recorded. Before, both counted the stream's alone (250 us), while
 * the row of #2 said "event: cudaStreamWaitEvent, stream 7: gemm", 330 us. */
TL_TEST(queued_counts_host_event_waits)
{
    char p[600], args[700];
    snprintf(p, sizeof p, "%s/hostwait.json", tl_test_tmpdir());
    host_wait_trace(p);
    snprintf(args, sizeof args, "collectives %s", p);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, " 250.0  250.0     50.0 \"stream: ncclDevKernel_AllReduce_Sum_f32_RING_LL\"") &&
                      strstr(out, " 335.0  330.0     45.0 \"event: cudaStreamWaitEvent, stream 7: gemm\""),
                  "%s", out);
    TL_ASSERT_MSG(strstr(out, "# finding: rank 0: collectives waited 580.0 us in all behind earlier work on their "
                              "stream (1 of them, 330.0 us, behind an event wait the host recorded); longest: "
                              "all_reduce pg ? in step 1 (#2), 330.0 us behind cudaStreamWaitEvent, stream 7: gemm. "
                              "Its stream waited"),
                  "%s", out);
    free(out);
    snprintf(args, sizeof args, "diagnose %s", p);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "rank 0: 2 communication kernels waited 580.0 us in all (") &&
                      strstr(out, "behind earlier work on their stream; 1 of them, 330.0 us, behind another "
                                  "stream's work an event wait held them for") &&
                      strstr(out, "longest 330.0 us (iteration 1) behind event: cudaStreamWaitEvent, stream 7: gemm"),
                  "%s", out);
    free(out);
}

/* The data lines of table `title` in a trilap command's output, one
 * string with each line ending in '\n' (free it). */
static char *table_lines(const char *out, const char *title)
{
    char key[160];
    snprintf(key, sizeof key, "# table: %s\n", title);
    const char *t = strstr(out, key), *end = t ? strstr(t, " rows\n") : NULL;
    TL_ASSERT_MSG(t && end, "no table '%s':\n%s", title, out);
    char *lines = calloc((size_t)(end - t) + 1, 1);
    TL_ASSERT(lines);
    for (const char *l = strchr(t, '\n'); l && l < end; l = strchr(l + 1, '\n')) {
        size_t n = strcspn(l + 1, "\n");
        if (l[1] != '#') strncat(lines, l + 1, n + 1);
    }
    return lines;
}

/* `collectives` shows the message size `diagnose` names: trace_diff_control's
 * record_param_comms carry no "In msg nelems", so the elems column says -,
 * and its size is the nccl:* op's tensors (before: no column had it, while
 * diagnose named "nccl:all_to_all 288.9 MB"). */
TL_TEST(collectives_sizes_as_diagnose_names_them)
{
    need_zlib();
    const char *dir = data_dir("trace_diff_control");
    char args[700];
    snprintf(args, sizeof args, "diagnose %s", dir);
    char *dg = analyze(args), mb[32] = "";
    const char *named = strstr(dg, "most exposed: nccl:all_to_all ");
    TL_ASSERT_MSG(named && sscanf(named, "most exposed: nccl:all_to_all %31s MB", mb) == 1, "%s", dg);
    free(dg);
    snprintf(args, sizeof args, "collectives %s", dir);
    char *out = analyze(args), *rows = table_lines(out, "collectives");
    const char *hdr = strstr(out, "\n# rank step op "), *e = hdr ? strstr(hdr, " elems ") : NULL;
    const char *b = e ? strstr(e, " bytes ") : NULL, *sn = b ? strstr(b, " stream ") : NULL;
    TL_ASSERT_MSG(sn && !memchr(hdr + 1, '\n', (size_t)(sn - hdr - 1)), "no elems, bytes, stream header:\n%s", out);
    int n = 0, sized = 0, same = 0;
    for (char *l = rows, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
        char op[64], pg[128], elems[32], bytes[32];
        long long step, seq;
        int rank;
        TL_ASSERT_MSG(sscanf(l, "%d %lld %63s %127s %lld %31s %31s", &rank, &step, op, pg, &seq, elems, bytes) == 7,
                      "%.200s", l);
        if (strcmp(op, "all_to_all")) continue;
        n++;
        if (strcmp(bytes, "-")) {
            char x[48];
            snprintf(x, sizeof x, "%.1f", atof(bytes) / 1e6);
            sized++;
            same += !strcmp(x, mb);
        }
    }
    TL_ASSERT_MSG(n > 0 && sized == n && same > 0, "%d all_to_all rows, %d with a size, %d of %s MB:\n%s", n, sized,
                  same, mb, rows);
    free(rows);
    free(out);
}

/* `collectives --iter-range` selects what it shows, not the clock it shows
 * it on: the offsets rest on every matched operation, as overlap
 * --align-clocks applies them. Before, 551:551 estimated +62789.0 us from
 * 5 matched ends and 552:552 -189.0 us, against +332.0 us from 10 on the
 * whole trace, so step 551's all_reduce #0 had a skew of 59487.0 us under
 * the range and 2970.0 us without it. */
TL_TEST(iter_range_keeps_the_clock_offsets)
{
    need_zlib();
    const char *dir = data_dir("trace_filter");
    char args[700];
    snprintf(args, sizeof args, "collectives %s", dir);
    char *whole = analyze(args), *whole_rows = table_lines(whole, "matched across ranks");
    const char *est = strstr(whole, "offset to rank 0 estimated ");
    double off = NAN;
    int nends = 0;
    TL_ASSERT_MSG(est && sscanf(est, "offset to rank 0 estimated %lf us from %d matched ends", &off, &nends) == 2,
                  "%s", whole);
    char line[160], aligned[160];
    snprintf(line, sizeof line, "offset to rank 0 estimated %+.1f us from %d matched ends\n", off, nends);
    snprintf(aligned, sizeof aligned, "ends of %d matched collectives", nends);
    for (int step = 551; step <= 552; step++) {
        snprintf(args, sizeof args, "collectives %s --iter-range %d:%d", dir, step, step);
        char *out = analyze(args), *rows = table_lines(out, "matched across ranks");
        TL_ASSERT_MSG(strstr(out, line), "--iter-range %d:%d: not '%s':\n%s", step, step, line, out);
        /* each operation of the step matched with the same skew as on the whole trace */
        int n = 0;
        for (char *l = rows, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1, n++) {
            char want[600];
            snprintf(want, sizeof want, "%.*s", (int)(nl - l + 1), l);
            TL_ASSERT_MSG(strstr(whole_rows, want), "--iter-range %d:%d: '%s' not in the whole trace's:\n%s", step,
                          step, want, whole_rows);
        }
        TL_ASSERT_MSG(n > 0, "%s", out);
        free(rows);
        free(out);
        /* overlap --align-clocks applies that offset under the range too */
        snprintf(args, sizeof args, "overlap --align-clocks %s --iter-range %d:%d", dir, step, step);
        out = analyze(args);
        char applied[96];
        snprintf(applied, sizeof applied, "not to a measured offset: rank 1 %+.1f us\n", off);
        TL_ASSERT_MSG(strstr(out, aligned) && strstr(out, applied), "%s", out);
        free(out);
    }
    free(whole_rows);
    free(whole);
}

/* A Kineto trace of one rank: n NCCL AllReduce kernels of one name, each
 * launched inside nccl:all_reduce with a float tensor of nelems[i], 200 us
 * apart, lasting dur_us[i]; under[i]: a gemm runs over it. */
static void allreduce_trace(const char *path, const long *nelems, const int *under, const double *dur_us, int n)
{
    size_t cap = 4096 + (size_t)n * 1400, len = 0;
    char *j = malloc(cap);
    TL_ASSERT(j);
    len += (size_t)snprintf(j + len, cap - len,
                            "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
                            "\"world_size\": 1},\n \"traceEvents\": [\n"
                            "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, "
                            "\"tid\": 1, \"ts\": 1000, \"dur\": %d}",
                            200 * n + 100);
    for (int i = 0; i < n; i++) {
        int t = 1050 + 200 * i;
        len += (size_t)snprintf(
            j + len, cap - len,
            ",\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"nccl:all_reduce\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %d, \"dur\": 5, \"args\": {\"Input Dims\": [[%ld]], \"Input type\": [\"float\"]}},\n"
            "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
            "\"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": %d}},\n"
            "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"pid\": 0, "
            "\"tid\": 20, \"ts\": %d, \"dur\": %.1f, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": %d}}",
            t - 1, nelems[i], t, 100 + i, t + 5, dur_us[i], 100 + i);
        if (under[i])
            len += (size_t)snprintf(
                j + len, cap - len,
                ",\n  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                "\"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d}},\n"
                "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, "
                "\"dur\": %.1f, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}}",
                t - 4, 500 + i, t + 3, dur_us[i] + 10, 500 + i);
    }
    snprintf(j + len, cap - len, "\n ], \"traceName\": \"allreduce.json\"}\n");
    tl_test_write(path, j);
    free(j);
}

/* A one-rank Kineto trace of two NCCL kernels, a then b, whose launches
 * lie in no nccl:* operation */
static void two_nccl_kernels(const char *path, const char *a, const char *b)
{
    char j[4096];
    snprintf(j, sizeof j,
             "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1},\n"
             " \"traceEvents\": [\n"
             "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, "
             "\"ts\": 1000, \"dur\": 900},\n"
             "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
             "\"ts\": 1010, \"dur\": 2, \"args\": {\"correlation\": 100}},\n"
             "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 20, \"ts\": 1050, "
             "\"dur\": 100, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": 100}},\n"
             "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
             "\"ts\": 1200, \"dur\": 2, \"args\": {\"correlation\": 101}},\n"
             "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 20, \"ts\": 1250, "
             "\"dur\": 50, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": 101}}\n"
             " ], \"traceName\": \"two.json\"}\n",
             a, b);
    tl_test_write(path, j);
}

/* collectives names an NCCL kernel the trace names no operation for by
 * its short name, the one every table shows, and pairs by it whole: two
 * kernels with blanks in their names ("ncclDevKernel_SendRecv x, y",
 * "ncclDevKernel_AllGather a, y") were both "(kernel y)", one operation
 * seen twice (seq 0 and 1), and so were two whose names part after 50
 * characters (the key was the printed text, cut). */
TL_TEST(collectives_kernel_names_with_blanks)
{
    need_zlib();
    char p[600], csv[700], args[1400];
    snprintf(p, sizeof p, "%s/two.json", tl_test_tmpdir());
    snprintf(csv, sizeof csv, "%s/two.csv", tl_test_tmpdir());
    two_nccl_kernels(p, "ncclDevKernel_SendRecv x, y", "ncclDevKernel_AllGather a, y");
    snprintf(args, sizeof args, "collectives %s", p);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, " \"(kernel ncclDevKernel_SendRecv x, y)\"  ?    0 ") &&
                      strstr(out, " \"(kernel ncclDevKernel_AllGather a, y)\" ?    0 ") && !strstr(out, "(kernel y)"),
                  "%s", out);
    free(out);
    two_nccl_kernels(p, "ncclDevKernel_SendRecv_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxA",
                     "ncclDevKernel_SendRecv_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxB");
    snprintf(args, sizeof args, "collectives %s --csv %s", p, csv);
    free(analyze(args));
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(tl_test_count(c, "),?,0,") == 2, "%s", c);
    free(c);
}

/* starved-communication compares a kernel's instances of one operation
 * and size: on trace_diff_control the SendRecv kernel's "alone" instances
 * are 4 MB all_to_alls (17-33 us) and its "overlapped" ones 290 MB ones,
 * which fired it (100.97x) on the message size; a kernel slower under
 * compute at one size is still starved. */
TL_TEST(starvation_compares_like_with_like)
{
    need_zlib();
    char args[700], p[600];
    snprintf(args, sizeof args, "diagnose %s", data_dir("trace_diff_control"));
    char *out = analyze(args), *f = finding(out, "starved-communication");
    TL_ASSERT_MSG(!f && strstr(out, "ok [starved-communication]"), "%s", out);
    free(out);
    /* one name, two sizes: small alone, large under compute (5x longer) */
    const long mixed[6] = {1024, 1024, 1024, 262144, 262144, 262144};
    const int under[6] = {0, 0, 0, 1, 1, 1};
    const double dur[6] = {20, 20, 20, 100, 100, 100};
    snprintf(p, sizeof p, "%s/mixed.json", tl_test_tmpdir());
    allreduce_trace(p, mixed, under, dur, 6);
    snprintf(args, sizeof args, "diagnose %s", p);
    out = analyze(args);
    f = finding(out, "starved-communication");
    TL_ASSERT_MSG(!f && strstr(out, "ok [starved-communication]"), "%s", out);
    free(out);
    /* one size, slower under compute: starved, the operation named */
    const long same[6] = {262144, 262144, 262144, 262144, 262144, 262144};
    snprintf(p, sizeof p, "%s/same.json", tl_test_tmpdir());
    allreduce_trace(p, same, under, dur, 6);
    snprintf(args, sizeof args, "diagnose %s", p);
    out = analyze(args);
    f = finding(out, "starved-communication");
    TL_ASSERT_MSG(f && strstr(f, "rank 0: nccl:all_reduce 1.0 MB (process group not in the trace), kernel "
                                 "ncclDevKernel_AllReduce_Sum_f32_RING_LL: median 100.0 us over 3 instances "
                                 "overlapping compute vs 20.0 us over 3 alone (5.00x)"),
                  "%s", out);
    printf("%s", f);
    free(f);
    free(out);
}

/* issue 27: every command says how the ranks were put on one clock. */
TL_TEST(clock_stated)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *t = tl_test_tmpdir();
    static const char kineto[] = "# clock: each rank on its own host's system clock (Kineto: baseTimeNanoseconds + "
                                 "ts), offsets unknown (Kineto measures none): cross-rank figures";
    static const char *const cmds[] = {"overlap", "diagnose", "collectives", "compare"};
    TL_ASSERT_EQ(tl_test_sh("cp -r %s %s/kcopy", dir, t), 0); /* compare refuses one folder twice */
    char args[1200];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (!strcmp(cmds[i], "compare")) snprintf(args, sizeof args, "compare %s %s/kcopy", dir, t);
        else snprintf(args, sizeof args, "%s %s", cmds[i], dir);
        char *out = analyze(args);
        const char *want = !strcmp(cmds[i], "compare") ? "# clock A: each rank on its own host's system clock" : kineto;
        TL_ASSERT_MSG(strstr(out, want), "%s does not say the clock:\n%s", cmds[i], out);
        free(out);
    }
    snprintf(args, sizeof args, "timeline %s -o %s/tl.csv", dir, t);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, kineto), "%s", out);
    free(out);
    /* --align-clocks: collectives' offset estimate applied, and said */
    snprintf(args, sizeof args, "overlap --align-clocks %s", dir);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# clock: each rank on its own clock (kineto-host), offsets to rank 0 estimated from the "
                              "ends of 10 matched collectives") &&
                      strstr(out, "not to a measured offset: rank 1 +332.0 us\n"),
                  "%s", out);
    free(out);
    snprintf(args, sizeof args, "collectives %s", dir);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "offset to rank 0 estimated +332.0 us from 10 matched ends"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "overlap %s", data_dir("nccl_parser_config"));
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# clock: one rank on its own clock (kineto-host)"), "%s", out);
    free(out);
    /* trilap traces of two ranks on one host, without measured offsets */
    for (int r = 0; r < 2; r++) {
        char p[600], body[1024];
        snprintf(p, sizeof p, "%s/trace.rank%d.csv", t, r);
        snprintf(body, sizeof body,
                 "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=2\n# host=node7\n# clock=CLOCK_MONOTONIC\n"
                 "# complete=yes\n" TL_TRACE_HEADER "\n%d,0,13,compute,compute,kernel,k,1000,2000,1,-1,0\n", r, r);
        tl_test_write(p, body);
    }
    snprintf(args, sizeof args, "overlap %s", t);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# clock: all ranks on one host's CLOCK_MONOTONIC: one clock, no offsets needed"), "%s",
                  out);
    free(out);
    printf("%s...\n", kineto);
}

/* One NCCL kernel of a shared trace as the test pairs it, from the reader's
 * own API (not match.c): its collective, the ProfilerStep of its launch,
 * launch and kernel times (ns). */
typedef struct kop {
    char op[64];
    int64_t step, launch, start, end;
} kop;

static int cmp_kop(const void *a, const void *b)
{
    const kop *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    if (c) return c;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return x->launch < y->launch ? -1 : x->launch > y->launch;
}

static size_t rank_kops(const char *path, kop *v, size_t cap)
{
    tl_kt_trace *t = NULL;
    TL_ASSERT_OK(tl_kt_load(path, &t));
    tl_kt_comm_index cix;
    TL_ASSERT_OK(tl_kt_comm_index_build(t, &cix));
    size_t n = 0;
    for (size_t i = 0; i < t->ns; i++) {
        tl_kt_comm cm;
        if (t->s[i].kind != TL_KT_KERNEL || !tl_kt_comm_of(t, &cix, i, &cm)) continue;
        TL_ASSERT(n < cap);
        kop *k = &v[n++];
        snprintf(k->op, sizeof k->op, "%s", cm.op);
        k->step = -1;
        for (size_t j = 0; j < t->nsteps; j++)
            if (t->steps[j].ts_us <= cm.launch->ts_us && cm.launch->ts_us < t->steps[j].ts_us + t->steps[j].dur_us)
                k->step = t->steps[j].num;
        k->launch = tl_kt_ns(t, cm.launch->ts_us);
        k->start = tl_kt_ns(t, t->s[i].ts_us);
        k->end = k->start + llround(t->s[i].dur_us * 1e3);
    }
    tl_kt_comm_index_free(&cix);
    tl_kt_free(&t);
    qsort(v, n, sizeof *v, cmp_kop);
    return n;
}

/* The k-th kernel of collective `op` launched in `step`, or NULL. */
static const kop *kth(const kop *v, size_t n, const char *op, int64_t step, long long k)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].op, op) && v[i].step == step && k-- == 0) return &v[i];
    return NULL;
}

/* issue 27: on trace_filter one SendRecv kernel serves all_to_all,
 * all_reduce and _all_gather_base, in a different order on each rank.
 * Paired by kernel name (the k-th SendRecv on each rank), late-ranks and
 * overlap's most delayed operations put different collectives together
 * (164 ms "delays" between an all_reduce and an all_to_all). Paired by
 * operation, every reported pair is the k-th of one collective in one
 * ProfilerStep on both ranks, its kernels run together, and the pairs are
 * the `collectives` command's. */
TL_TEST(late_ranks_pair_by_operation)
{
    need_zlib();
    const char *dir = data_dir("trace_filter");
    static kop k0[64], k1[64];
    char p[700], args[700];
    snprintf(p, sizeof p, "%s/sampled_rank-0.json.gz", dir);
    size_t n0 = rank_kops(p, k0, 64);
    snprintf(p, sizeof p, "%s/sampled_rank-1.json.gz", dir);
    size_t n1 = rank_kops(p, k1, 64);
    TL_ASSERT_EQ(n0, (size_t)10);
    TL_ASSERT_EQ(n1, (size_t)10);
    snprintf(args, sizeof args, "overlap %s", dir);
    char *out = analyze(args), *coll = NULL;
    snprintf(args, sizeof args, "collectives %s", dir);
    coll = analyze(args);
    const char *tab = strstr(out, "# table: most delayed operations");
    TL_ASSERT_MSG(tab, "%s", out);
    int rows = 0;
    double top = 0;
    char top_op[64] = "";
    long long top_k = -1, top_it = -1;
    for (const char *line = strchr(tab, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char op[64] = "", pg[64] = "";
        long long k = -1, it = -1;
        int last = -1;
        double delay = -1;
        /* "\"nccl:all_reduce (process group not in the trace)\" 1 552 1 22328.0" (the operation in
         * quotes: one field for a reader that splits on blanks) */
        if (line[1] == '#' || sscanf(line + 1, " \"nccl:%63s (process group not in the %63[^)])\" %lld %lld %d %lf",
                                     op, pg, &k, &it, &last, &delay) != 6) {
            TL_ASSERT_MSG(line[1] == '#' || strncmp(line + 1, "  ", 2) != 0, "a pair not named by its collective: %.120s",
                          line + 1);
            if (rows && line[1] == '#') break;
            continue;
        }
        const kop *a = kth(k0, n0, op, it, k), *b = kth(k1, n1, op, it, k);
        TL_ASSERT_MSG(a && b, "%s #%lld in step %lld: not on both ranks", op, k, it);
        int64_t d = a->start > b->start ? a->start - b->start : b->start - a->start;
        TL_ASSERT_MSG(fabs(delay - (double)d / 1e3) < 0.05, "%s #%lld in step %lld: delay %.1f us, the ranks' kernels "
                      "of that collective start %.1f us apart", op, k, it, delay, (double)d / 1e3);
        TL_ASSERT_MSG((a->start > b->start ? a->start : b->start) < (a->end < b->end ? a->end : b->end),
                      "%s #%lld in step %lld: kernels that did not run together reported as one operation", op, k, it);
        TL_ASSERT_EQ(last, a->start > b->start ? 0 : 1);
        /* the same pair in `collectives`' matched table, raw skew alike */
        char want[160];
        snprintf(want, sizeof want, "%5lld %-16s ?  %3lld     2 %8.1f", it, op, k, delay);
        TL_ASSERT_MSG(strstr(coll, want), "'%s' not in collectives' matched table:\n%s", want, coll);
        if (delay > top) top = delay, top_k = k, top_it = it, snprintf(top_op, sizeof top_op, "%s", op);
        rows++;
    }
    TL_ASSERT_MSG(rows == 4, "%d pairs that ran together, 4 expected:\n%s", rows, tab);
    free(out);
    free(coll);
    /* late-ranks names the most delayed of those, with its step and ordinal */
    snprintf(args, sizeof args, "diagnose --wait-share 5 %s", dir);
    out = analyze(args);
    char *f = finding(out, "late-ranks"), want[200];
    snprintf(want, sizeof want, "(process group not in the trace), #%lld of it in iteration %lld: rank 1 came %.1f us "
                                "after the first", top_k, top_it, top);
    TL_ASSERT_MSG(f && strstr(f, want) && strstr(f, top_op), "want '%s' (%s):\n%s", want, top_op, f ? f : out);
    printf("most delayed: nccl:%s #%lld in step %lld, %.1f us\n", top_op, top_k, top_it, top);
    free(f);
    free(out);
}

/* --iter-range on trace_filter: the waiting and transfer table and the
 * most delayed operations cover the ProfilerStep selected, as the overlap
 * table does. Before, `--iter-range 552:552` printed waiting 23620.0 us
 * for rank 0 in the overlap table but 27006.0 us over 10 matched
 * operations (both steps) in the matching table, and delayed operations
 * of step 551. */
TL_TEST(iter_range_selects_matched_operations)
{
    need_zlib();
    const char *dir = data_dir("trace_filter");
    for (int step = 551; step <= 552; step++) {
        char args[700];
        snprintf(args, sizeof args, "overlap %s --iter-range %d:%d", dir, step, step);
        char *out = analyze(args);
        double ov[6] = {0};
        TL_ASSERT_EQ(table_row(out, 0, ov, 6), 6); /* W U_compute U_p2p U_coll U_comm waiting */
        const char *tab = strstr(out, "# table: communication waiting and transfer"), *row = NULL;
        for (const char *l = tab; l && !row; l = strchr(l + 1, '\n'))
            if (!strncmp(l + 1, "  0    *", 8)) row = l + 1;
        double matched = 0, wait = 0;
        TL_ASSERT_MSG(row && sscanf(row, " 0 * %lf %lf", &matched, &wait) == 2, "%s", out);
        TL_ASSERT_MSG(matched == 5 && fabs(wait - ov[5]) < 0.05, "step %d, rank 0: %.0f operations waiting %.1f us in "
                      "the matching table, %.1f us in the overlap table", step, matched, wait, ov[5]);
        const char *d = strstr(out, "# table: most delayed operations");
        TL_ASSERT(d);
        int rows = 0;
        const char *footer = strstr(d, " rows\n"); /* "# 2 rows" */
        TL_ASSERT(footer);
        for (const char *l = strchr(d, '\n'); l && l < footer; l = strchr(l + 1, '\n')) {
            if (l[1] == '#') continue; /* the heading lines and the footer */
            long long k = -1, it = -1;
            const char *close = strstr(l + 1, ")\""); /* the end of the operation's quoted name */
            TL_ASSERT_MSG(close && sscanf(close + 2, " %lld %lld", &k, &it) == 2, "%.100s", l + 1);
            TL_ASSERT_MSG(it == step, "--iter-range %d:%d lists an operation of step %lld", step, step, it);
            rows++;
        }
        TL_ASSERT_MSG(rows > 0, "%s", d);
        free(out);
    }
}

/* Options applied or refused, never accepted and ignored: `collectives
 * --iter-range` keeps the kernels launched in those ProfilerSteps and
 * refuses a range without any (before: all 20 rows, exit 0, the same
 * output for 999:1000 as for 552:552); options it has no use for are not
 * accepted; `--hta` takes only --csv (before: --iter-range and --per-iter
 * left HTA's table unchanged). */
TL_TEST(options_applied_or_refused)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *bin = tl_test_bin();
    char cmd[1200], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze collectives %s --iter-range 552:552", bin, dir);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    const char *tab = strstr(out, "# table: collectives"), *end = tab ? strstr(tab, " rows\n") : NULL;
    TL_ASSERT(tab && end);
    int rows = 0;
    for (const char *l = strchr(tab, '\n'); l && l < end; l = strchr(l + 1, '\n')) {
        int rank = -1;
        long long step = -1;
        if (l[1] == '#' || sscanf(l + 1, "%d %lld", &rank, &step) != 2) continue;
        TL_ASSERT_MSG(step == 552, "a kernel of step %lld in --iter-range 552:552:\n%s", step, out);
        rows++;
    }
    TL_ASSERT_MSG(rows == 10 && strstr(out, "# 10 rows"), "%d rows of step 552 (of 20):\n%s", rows, out);
    free(out);
    free(err);
    static const char *const refused[][2] = {
        {"collectives %s --iter-range 999:1000", "no NCCL kernel launched in ProfilerSteps 999:1000 (--iter-range); "
                                                 "the trace has ProfilerSteps 551..552"},
        {"collectives %s --raw-clock", "unknown option '--raw-clock'"},
        {"overlap --hta %s --iter-range 551:551", "--iter-range does not apply with --hta"},
        {"overlap --hta %s --per-iter", "--per-iter does not apply with --hta"},
        {"overlap --hta %s --iter-csv x.csv", "--iter-csv does not apply with --hta"},
        {"breakdown --hta %s --iter-range 551:551", "--iter-range does not apply with --hta"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char args[900];
        snprintf(args, sizeof args, refused[i][0], dir);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", bin, args);
        int rc = tl_test_run(cmd, &out, &err);
        TL_ASSERT_MSG(rc == (i == 0 ? 1 : 2), "%s: exit %d", args, rc);
        TL_ASSERT_MSG(tl_test_one_line(err, refused[i][1]),
                      "%s: not one line saying '%s':\n%s", args, refused[i][1], err);
        TL_ASSERT_MSG(!out[0], "%s printed before refusing:\n%s", args, out);
        free(out);
        free(err);
    }
    /* --csv still applies with --hta */
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap --hta %s --csv %s", bin, dir, tl_test_path("hta.csv"));
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    free(out);
    free(err);
}

/* --progress draws its line for each Kineto file read, as for trilap's
 * own traces (before: nothing for Kineto or Nsight Systems inputs);
 * --raw-clock and --accept-incomplete, which say what to do with measured
 * clock offsets and complete=no, are refused on Kineto traces, which have
 * neither (before: accepted and ignored). */
TL_TEST(progress_and_clock_flags_on_kineto)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *bin = tl_test_bin();
    char cmd[1200], *out = NULL, *err = NULL;
    static const char *const cmds[] = {"overlap", "breakdown", "diagnose", "timeline -o /dev/null",
                                       "perfetto -o /dev/null"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s --progress %s", bin, cmds[i], dir);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
        /* one line per file, however often the command reads it */
        for (int r = 0; r < 2; r++) {
            char want[64];
            snprintf(want, sizeof want, "reading sampled_rank-%d.json.gz ", r);
            const char *at = strstr(err, want);
            TL_ASSERT_MSG(at && strstr(at, " events [") && !strstr(at + 1, want), "%s: no single progress line for "
                          "rank %d:\n%s", cmds[i], r, err);
        }
        free(out);
        free(err);
    }
    static const char *const refused[][2] = {
        {"overlap --raw-clock %s", "--raw-clock does not apply to %s, a PyTorch profiler (Kineto) trace: Kineto "
                                   "measures no clock offsets to leave unapplied"},
        {"breakdown --accept-incomplete %s", "--accept-incomplete does not apply to %s, a PyTorch profiler (Kineto) "
                                             "trace: Kineto marks no trace complete=no"},
        {"timeline --raw-clock %s -o x.csv", "--raw-clock does not apply to %s"},
        {"compare --raw-clock %s %s", "--raw-clock does not apply to %s"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char args[900], want[900];
        snprintf(args, sizeof args, refused[i][0], dir, dir);
        snprintf(want, sizeof want, refused[i][1], dir);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", bin, args);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 2, "%s: not refused (2):\n%s", args, err);
        TL_ASSERT_MSG(tl_test_one_line(err, want) && !out[0],
                      "%s: not one line saying '%s':\n%s", args, want, err);
        free(out);
        free(err);
    }
    /* typed off, they ask for nothing */
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap --no-raw-clock --no-accept-incomplete %s", bin, dir);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    free(out);
    free(err);
}

/* `breakdown --hta A B --csv F`: one table of every input's ranks, each
 * row naming its input in a run column, printed and written once (before:
 * one table per input, and the CSV rewritten by each, so it held the last
 * input's rows only); an input that is not a Kineto trace is refused
 * before anything is printed or written. */
TL_TEST(hta_breakdown_of_several_inputs)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *ctl = data_dir("trace_diff_control"), *t = tl_test_tmpdir();
    char cmd[2000], csvp[700], *out = NULL, *err = NULL;
    snprintf(csvp, sizeof csvp, "%s/bd.csv", t);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze breakdown --hta --csv %s %s %s/sampled_rank-1.json.gz", tl_test_bin(),
             csvp, ctl, dir);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    char *csv = tl_test_read(csvp);
    TL_ASSERT_MSG(!strncmp(csv, "run,rank,kernel_time_us,", 24), "%s", csv);
    /* HTA's figures of each (issue 27's table), each under its input's name */
    TL_ASSERT_MSG(strstr(csv, "\ntrace_diff_control,3,") && strstr(csv, ",16.20,61.23,22.57,"), "%s", csv);
    TL_ASSERT_MSG(strstr(csv, "\nsampled_rank-1.json.gz,1,") && strstr(csv, ",54.72,22.57,22.72,"), "%s", csv);
    int lines = 0;
    for (const char *c = csv; *c; c++) lines += *c == '\n';
    TL_ASSERT_MSG(lines == 3, "%d lines, not a header and 2 rows:\n%s", lines, csv);
    TL_ASSERT_MSG(strstr(out, "# 2 rows") && !strstr(out + 1, "# table:"), "not one table:\n%s", out);
    free(csv);
    free(out);
    free(err);
    /* a second input that is not a Kineto trace: refused, nothing written */
    snprintf(csvp, sizeof csvp, "%s/bad.csv", t);
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze breakdown --hta --csv %s %s %s", tl_test_bin(), csvp, ctl, t);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 1, "%s: %s", cmd, err);
    TL_ASSERT_MSG(strstr(err, "--hta applies Holistic Trace Analysis's rules") && !out[0], "%s\n%s", out, err);
    struct stat sb;
    TL_ASSERT_MSG(stat(csvp, &sb) != 0, "%s written", csvp);
    free(out);
    free(err);
}

/* With --hta a flag typed at its default (--no-progress, --no-per-iter,
 * --no-raw-clock) asks for nothing and is taken; before, it was refused
 * naming the option the user had not typed ("--progress does not apply
 * with --hta"). Typed on, it is still refused. */
TL_TEST(hta_takes_flags_typed_off)
{
    need_zlib();
    const char *dir = data_dir("trace_filter"), *bin = tl_test_bin();
    char cmd[1200], *out = NULL, *err = NULL, *plain = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap --hta %s", bin, dir);
    TL_ASSERT_MSG(tl_test_run(cmd, &plain, &err) == 0, "%s: %s", cmd, err);
    free(err);
    static const char *const taken[] = {"overlap --hta --no-progress %s", "overlap --hta --no-per-iter %s",
                                        "breakdown --hta --no-raw-clock %s",
                                        "overlap --hta --no-accept-incomplete --no-align-clocks %s"};
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        char args[900];
        snprintf(args, sizeof args, taken[i], dir);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", bin, args);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0 && !err[0], "%s: refused:\n%s", args, err);
        if (i == 0) TL_ASSERT_MSG(!strcmp(out, plain), "%s: not overlap --hta's table:\n%s", args, out);
        free(out);
        free(err);
    }
    free(plain);
    static const char *const refused[][2] = {
        {"overlap --hta --progress %s", "--progress does not apply with --hta"},
        {"overlap --hta --no-per-iter --per-iter %s", "--per-iter does not apply with --hta"},
        {"breakdown --hta --raw-clock %s", "--raw-clock does not apply with --hta"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char args[900];
        snprintf(args, sizeof args, refused[i][0], dir);
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", bin, args);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 2, "%s: not refused:\n%s", args, err);
        /* --no-per-iter --per-iter: the last is used, after a note */
        TL_ASSERT_MSG(tl_test_one_line(tl_test_past_notes(err), refused[i][1]),
                      "%s: not one line saying '%s':\n%s", args, refused[i][1], err);
        free(out);
        free(err);
    }
}

/* Every data row of `overlap` names the trace's rank: trace_diff_control
 * is rank 3 alone, as its `# rank:` line and every other command say.
 * Before, the main and reconciliation tables, their --csv and the
 * iteration-time line numbered the ranks from 0 (rows "0"), while
 * --per-iter said 3. */
TL_TEST(overlap_rows_carry_the_trace_rank)
{
    need_zlib();
    char trace[600], args[1500];
    snprintf(trace, sizeof trace, "%s/control.json.gz", data_dir("trace_diff_control"));
    const char *t = tl_test_tmpdir();
    snprintf(args, sizeof args, "overlap %s --per-iter --csv %s/ov.csv --iter-csv %s/it.csv", trace, t, t);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# rank: 3 device 3"), "%s", out);
    TL_ASSERT_MSG(strstr(out, "# rank 3 iteration time:"), "%s", out);
    int rows = 0;
    for (const char *line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (*line == '#' || *line == '\n' || !*line) continue;
        long rank = strtol(line, NULL, 10);
        TL_ASSERT_MSG(rank == 3, "a row not of rank 3: %.80s", line);
        rows++;
    }
    TL_ASSERT_MSG(rows == 2 + 6, "%d rows (overlap, reconciliation, 6 iterations):\n%s", rows, out);
    for (int k = 0; k < 2; k++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", t, k ? "it.csv" : "ov.csv");
        char *csv = tl_test_read(path), *line = strchr(csv, '\n');
        int n = 0;
        for (; line && line[1]; line = strchr(line + 1, '\n'), n++)
            TL_ASSERT_MSG(!strncmp(line + 1, "3,", 2), "%s: a row not of rank 3: %.60s", path, line + 1);
        TL_ASSERT_EQ(n, k ? 6 : 1);
        free(csv);
    }
    free(out);
}

/* Peak resident memory (KB) of one run of trilap-analyze, its exit code. */
static long peak_kb(char *const argv[], int *rc)
{
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    TL_ASSERT(wait4(pid, &status, 0, &ru) == pid);
    *rc = tl_test_exit_code(status);
    return ru.ru_maxrss;
}

/* issue 27: a trace of hundreds of MB analysed in no more than twice its
 * size (TL_KINETO_BIG_MB, 64 by default; scripts/bench-kineto.sh runs 200
 * and reports the rate). The reader keeps ~64 bytes per GPU activity, not
 * the JSON: 0.12 times the file at 200 MB. */
TL_TEST(big_trace_bounded_memory)
{
    need_zlib();
    char src[600], big[600], an[600];
    snprintf(src, sizeof src, "%s/sampled_rank-0.json.gz", data_dir("trace_filter"));
    snprintf(big, sizeof big, "%s/big.json", tl_test_tmpdir());
    int mb = atoi(tl_test_env("TL_KINETO_BIG_MB", "64"));
    TL_ASSERT_EQ(tl_test_sh("%s/tests/helper_kineto_big %s %s %d", tl_test_env("TL_BUILD", "build"), src, big,
                            mb > 0 ? mb : 64), 0);
    struct stat sb;
    TL_ASSERT(stat(big, &sb) == 0);
    snprintf(an, sizeof an, "%s/trilap-analyze", tl_test_bin());
    char *hta[] = {an, "overlap", "--hta", big, NULL}, *own[] = {an, "overlap", big, NULL};
    int rc = 0;
    long k1 = peak_kb(hta, &rc);
    TL_ASSERT_EQ(rc, 0);
    long k2 = peak_kb(own, &rc);
    TL_ASSERT_EQ(rc, 0);
    double file_kb = (double)sb.st_size / 1024;
    printf("%.1f MB trace: peak %.1f MB (overlap --hta), %.1f MB (overlap): %.3f and %.3f of the file\n",
           file_kb / 1024, (double)k1 / 1024, (double)k2 / 1024, (double)k1 / file_kb, (double)k2 / file_kb);
    TL_ASSERT_MSG(k1 <= 2 * file_kb && k2 <= 2 * file_kb, "peak %ld / %ld KB for a %.0f KB trace", k1, k2, file_kb);
    remove(big);
}

/* Rank `rank` of `world`: per step a gemm and an all_reduce launched in
 * it (nccl:all_reduce with record_param_comms), the steps numbered
 * nums[0..n-1] in time order, or no ProfilerStep events where `steps` is 0. */
static void step_trace(const char *path, int rank, int world, const int *nums, int n, int steps)
{
    FILE *f = fopen(path, "w");
    TL_ASSERT_MSG(f, "%s", path);
    fprintf(f, "{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, \"traceEvents\": [",
            rank, world);
    for (int i = 0; i < n; i++) {
        int t = 1000 + 1000 * i, c = 10 * i + 1;
        if (steps)
            fprintf(f, "%s\n{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
                       "\"tid\": 1, \"ts\": %d, \"dur\": 1000},",
                    i ? "," : "", nums[i], t);
        else if (i)
            fputc(',', f);
        fprintf(f, "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}},"
                   "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": %d, "
                   "\"dur\": 300, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": %d}},"
                   "\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nccl:all_reduce\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %d, \"dur\": 20},"
                   "\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %d, \"dur\": 10, \"args\": {\"Collective name\": \"allreduce\", \"Process Group Name\": "
                   "\"0\", \"Process Group Description\": \"default_pg\", \"In msg nelems\": 1024, \"dtype\": "
                   "\"Float\"}},"
                   "\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                   "\"ts\": %d, \"dur\": 5, \"args\": {\"correlation\": %d}},"
                   "\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", "
                   "\"pid\": 0, \"tid\": 20, \"ts\": %d, \"dur\": 200, \"args\": {\"device\": 0, \"stream\": 20, "
                   "\"correlation\": %d}}",
                t + 10, c, t + 20, c, t + 30, t + 32, t + 35, c + 1, t + 100 + 10 * rank, c + 1);
    }
    fprintf(f, "\n]}\n");
    TL_ASSERT(fclose(f) == 0);
}

/* A ProfilerStep number seen twice (4, 4, 6: an edited or merged trace)
 * begins the loop again, numbered on after the highest so far (4, 5, 7),
 * as a rerun is: overlap, diagnose and collectives now say so in one
 * "# iterations:" line and collectives numbers its steps the same way.
 * Before: overlap --per-iter showed 4, 5, 7 without a word, --iter-range
 * 6:6 found nothing, and collectives labelled the rows 4, 4, 6. */
TL_TEST(repeated_step_number_renumbered_and_said)
{
    char p[600], args[700];
    snprintf(p, sizeof p, "%s/dup.json", tl_test_tmpdir());
    static const int nums[] = {4, 4, 6};
    step_trace(p, 0, 1, nums, 3, 1);
    static const char say[] = "# iterations: rank 0: iteration 4 began twice in a row (two ProfilerStep or iter "
                              "ranges of one number); numbered on here: iteration 5 here is the program's second 4, "
                              "and every later one 1 above the program's number";
    snprintf(args, sizeof args, "overlap --per-iter %s", p);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, say) && strstr(out, "\n     0    7 "), "%s", out);
    free(out);
    snprintf(args, sizeof args, "collectives %s", p);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, say), "%s", out);
    TL_ASSERT_MSG(strstr(out, "\n     0    4 all_reduce") && strstr(out, "\n     0    5 all_reduce") &&
                      strstr(out, "\n     0    7 all_reduce") && !strstr(out, "\n     0    6 all_reduce"),
                  "%s", out);
    free(out);
    snprintf(args, sizeof args, "diagnose %s", p);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, say), "%s", out);
    free(out);
}

/* A rank without ProfilerStep events has no step to pair its operations
 * by: collectives says the offset is not estimated and why, its steps
 * "-"; overlap names the missing steps. Before: "offset to rank 0
 * estimated +0.0 us from 0 matched ends", rows of step -1, and overlap's
 * "unmatched: 2 operations of 2 names whose count differs between ranks"
 * though both ranks ran the same two. */
TL_TEST(rank_without_profiler_steps_said)
{
    char d[600], p[700], args[800];
    snprintf(d, sizeof d, "%s/nostep", tl_test_tmpdir());
    TL_ASSERT(mkdir(d, 0755) == 0);
    static const int nums[] = {1, 2};
    snprintf(p, sizeof p, "%s/r0.json", d);
    step_trace(p, 0, 2, nums, 2, 1);
    snprintf(p, sizeof p, "%s/r1.json", d);
    step_trace(p, 1, 2, nums, 2, 0);
    snprintf(args, sizeof args, "collectives %s", d);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# clock: rank 1: each host's own clock (Kineto measures no offsets); offset not "
                              "estimated: no operation matched (rank 1 has no ProfilerStep)") &&
                      strstr(out, "\n     1    - all_reduce") && !strstr(out, " -1 ") && !strstr(out, "step -1"),
                  "%s", out);
    free(out);
    snprintf(args, sizeof args, "overlap %s", d);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "stay whole (counted as transfer): rank 1 has no "
                              "iterations (no ProfilerStep or iter range), so its operations pair with none of the "
                              "other ranks' iterations") &&
                      !strstr(out, "whose count differs"),
                  "%s", out);
    free(out);
}

/* A trace of some of a run's ranks (distributedInfo world_size 8, rank 3
 * only; 2 of 4) names them and the world, says that waiting for the
 * absent ranks is not measured (none of it, or a lower bound), and
 * late-ranks is n/a with the reason; an import of it (nranks=8,
 * rank_subset=yes) reads alike. Before: "# ranks: 1", "# waiting: one
 * rank, so no communication waits for another (all of it is transfer)",
 * "ok [late-ranks]". */
TL_TEST(rank_subset_named_and_waiting_not_claimed)
{
    char d[600], p[700], imp[700], args[1600];
    snprintf(d, sizeof d, "%s/oneof8", tl_test_tmpdir());
    TL_ASSERT(mkdir(d, 0755) == 0);
    static const int nums[] = {1, 2};
    snprintf(p, sizeof p, "%s/r3.json", d);
    step_trace(p, 3, 8, nums, 2, 1);
    snprintf(imp, sizeof imp, "%s/imp8", tl_test_tmpdir());
    snprintf(args, sizeof args, "import %s -o %s", d, imp);
    free(analyze(args));
    static const char one[] = "# ranks: 1 of 8: rank 3 (the metadata's world size; the 7 others are not in the "
                              "trace)\n";
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "overlap %s", k ? imp : d);
        char *out = analyze(args);
        TL_ASSERT_MSG(strstr(out, one) && !strstr(out, "# waiting: one rank") &&
                          strstr(out, "# waiting: not measured: the trace holds 1 of the run's 8 ranks"),
                      "%s", out);
        free(out);
        snprintf(args, sizeof args, "diagnose %s", k ? imp : d);
        out = analyze(args);
        TL_ASSERT_MSG(strstr(out, one) && !strstr(out, "ok [late-ranks]") &&
                          strstr(out, "n/a [late-ranks]: does not apply: rank 3 is in a trace of some of the run's "
                                      "ranks"),
                      "%s", out);
        free(out);
    }
    snprintf(d, sizeof d, "%s/twoof4", tl_test_tmpdir());
    TL_ASSERT(mkdir(d, 0755) == 0);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/r%d.json", d, r);
        step_trace(p, r, 4, nums, 2, 1);
    }
    snprintf(args, sizeof args, "overlap %s", d);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# ranks: 2 of 4: ranks 0, 1 (the metadata's world size; the 2 others are not in the "
                              "trace)\n") &&
                      strstr(out, "# subset: waiting measured against the 2 ranks in the trace only: a lower bound "
                                  "(a collective also waits for the 2 absent)"),
                  "%s", out);
    free(out);
}

/* A one-rank Kineto trace at p holding GPU rows CUPTI and Nsight Systems
 * never record: a kernel of days (dur 1e12 us), and two kernels at once on
 * one stream. */
static void odd_rows_trace(const char *p)
{
    static const int nums[] = {1, 2, 3};
    step_trace(p, 0, 1, nums, 3, 1);
    char *j0 = tl_test_read(p), *j = malloc(strlen(j0) + 8);
    TL_ASSERT(j);
    /* the second gemm lasts 1e12 us; the third starts at 3020, inside a 300 us one at 2900 */
    char *g = strstr(j0, "\"ts\": 2020, \"dur\": 300");
    TL_ASSERT_MSG(g, "%s", j0);
    snprintf(j, strlen(j0) + 8, "%.*s\"ts\": 2020, \"dur\": 1e12%s", (int)(g - j0), j0, g + 22);
    free(j0);
    size_t len = strlen(j);
    char *end = strrchr(j, ']');
    TL_ASSERT(end);
    char *k = malloc(len + 400);
    TL_ASSERT(k);
    snprintf(k, len + 400, "%.*s,\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
                           "\"ts\": 2900, \"dur\": 300, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 999}}"
                           "\n%s",
             (int)(end - j), j, end);
    tl_test_write(p, k);
    free(j);
    free(k);
}

static const char odd_rows_say[] = "rank 0: 1 GPU row lasts over a day and 2 start before the previous one on their "
                                   "stream ended (by up to ";

/* Such rows are said once per trace, counted, by overlap, diagnose and
 * collectives. Before: read without a word. */
TL_TEST(impossible_gpu_rows_noted_once)
{
    char p[600], args[700];
    snprintf(p, sizeof p, "%s/odd.json", tl_test_tmpdir());
    odd_rows_trace(p);
    const char *say = odd_rows_say;
    static const char *const cmds[] = {"overlap", "diagnose", "collectives"};
    for (size_t c = 0; c < 3; c++) {
        snprintf(args, sizeof args, "%s %s", cmds[c], p);
        char *out = analyze(args);
        TL_ASSERT_MSG(tl_test_count(out, say) == 1 && strstr(out, "CUPTI and Nsight Systems record neither"), "%s",
                      out);
        free(out);
    }
}

/* import carries the note into the trilap trace it writes, and overlap and
 * diagnose of the imported folder say it as they say it of the Kineto
 * trace, to the figure. Before, the imported trace was analysed without a
 * word of it. */
TL_TEST(impossible_gpu_rows_noted_after_import)
{
    char p[600], dir[700], args[1500];
    snprintf(p, sizeof p, "%s/odd.json", tl_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/imported", tl_test_tmpdir());
    odd_rows_trace(p);
    snprintf(args, sizeof args, "overlap %s", p);
    char *kineto = analyze(args);
    const char *at = strstr(kineto, odd_rows_say);
    TL_ASSERT_MSG(at, "%s", kineto);
    char *note = text_copy(at, strcspn(at, "\n"));
    free(kineto);
    snprintf(args, sizeof args, "import %s -o %s", p, dir);
    free(analyze(args));
    static const char *const cmds[] = {"overlap", "diagnose"};
    for (size_t c = 0; c < 2; c++) {
        snprintf(args, sizeof args, "%s %s", cmds[c], dir);
        char *out = analyze(args);
        TL_ASSERT_MSG(tl_test_count(out, odd_rows_say) == 1 && strstr(out, note), "%s: %s\n%s", args, note, out);
        free(out);
    }
    free(note);
}

/* A one-rank trace of n NCCL kernels, each launched inside its
 * nccl:all_reduce, between as many compute kernels (review's big.py). */
static void many_nccl_trace(const char *path, int n, int rank, int world)
{
    FILE *f = fopen(path, "w");
    TL_ASSERT_MSG(f, "%s", path);
    fprintf(f, "{\"distributedInfo\": {\"rank\": %d, \"world_size\": %d}, \"traceEvents\": [\n"
               "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#0\", \"pid\": 1, \"tid\": 1, "
               "\"ts\": 0, \"dur\": %d}",
            rank, world, 40 * n);
    for (int i = 0; i < 2 * n; i++) {
        int ts = 20 * i, nccl = i % 2 == 0;
        if (nccl)
            fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nccl:all_reduce\", \"pid\": 1, "
                       "\"tid\": 1, \"ts\": %d, \"dur\": 2}",
                    ts);
        fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
                   "\"tid\": 1, \"ts\": %d.5, \"dur\": 1, \"args\": {\"correlation\": %d}}"
                   ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
                   "\"ts\": %d, \"dur\": 8, \"args\": {\"device\": 0, \"stream\": %d, \"correlation\": %d}}",
                ts, i + 1, nccl ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "gemm", ts + 3, nccl ? 20 : 7, i + 1);
    }
    fprintf(f, "\n]}\n");
    TL_ASSERT(fclose(f) == 0);
}

/* The processor time (user and system) of `trilap-analyze args`, not its
 * wall time: on CI's two cores shared with two other tests and the
 * sanitizers' runs, wall time put 32000 kernels over the bound against
 * 8000's with no change of the reader (a CI run of 16da729 beside a
 * helper's builds). */
static double seconds_of(const char *args)
{
    struct rusage a, b;
    TL_ASSERT(getrusage(RUSAGE_CHILDREN, &a) == 0);
    free(analyze(args));
    TL_ASSERT(getrusage(RUSAGE_CHILDREN, &b) == 0);
    return (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec) + (double)(b.ru_stime.tv_sec - a.ru_stime.tv_sec) +
           1e-6 * (double)(b.ru_utime.tv_usec - a.ru_utime.tv_usec + b.ru_stime.tv_usec - a.ru_stime.tv_usec);
}

/* Reading a trace grows with its NCCL kernels, not their square: the
 * operation of each was looked for among every op of the trace (50k NCCL
 * kernels 5.0 s, 100k 25.8 s in overlap, collectives 36 s). Four times
 * the kernels take about four times as long; eight is the bound, where
 * the scan took 12 times as long. Two ranks of eight times the kernels:
 * sixteen is the bound, where collectives' pairing of every row with
 * every row took more. */
TL_TEST(nccl_kernels_read_in_linear_time)
{
    char small[600], big[600], args[700];
    snprintf(small, sizeof small, "%s/small.json", tl_test_tmpdir());
    snprintf(big, sizeof big, "%s/big.json", tl_test_tmpdir());
    many_nccl_trace(small, 8000, 0, 1);
    many_nccl_trace(big, 32000, 0, 1);
    static const char *const cmds[] = {"overlap", "collectives"};
    for (size_t c = 0; c < 2; c++) {
        snprintf(args, sizeof args, "%s %s", cmds[c], small);
        double t1 = seconds_of(args);
        snprintf(args, sizeof args, "%s %s", cmds[c], big);
        double t4 = seconds_of(args);
        printf("%s: 8000 NCCL kernels %.2f s, 32000 %.2f s\n", cmds[c], t1, t4);
        TL_ASSERT_MSG(t4 < 8 * t1 + 0.3, "%s: 8000 NCCL kernels %.2f s, 32000 %.2f s", cmds[c], t1, t4);
    }
    remove(small);
    remove(big);
    /* two ranks: collectives pairs their operations (it scanned every row for each) */
    double t[2];
    for (int k = 0; k < 2; k++) {
        char d[600], p[700];
        snprintf(d, sizeof d, "%s/two%d", tl_test_tmpdir(), k);
        TL_ASSERT(mkdir(d, 0755) == 0);
        for (int r = 0; r < 2; r++) {
            snprintf(p, sizeof p, "%s/r%d.json", d, r);
            many_nccl_trace(p, k ? 40000 : 5000, r, 2);
        }
        snprintf(args, sizeof args, "collectives %s", d);
        t[k] = seconds_of(args);
    }
    printf("collectives, two ranks: 5000 NCCL kernels each %.2f s, 40000 %.2f s\n", t[0], t[1]);
    TL_ASSERT_MSG(t[1] < 16 * t[0] + 0.3, "collectives, two ranks: 5000 NCCL kernels each %.2f s, 40000 %.2f s", t[0],
                  t[1]);
}

/* HTA's figures in whole µs on epoch times (ts 1.7e15 µs, no base): a
 * 68 µs kernel under a 100 µs NCCL kernel from 20 µs on is 68 µs of
 * compute, 48 of overlap, 52 of non-compute. Before, ts * 1e3 in a double
 * moved each end by up to 128 ns: compute 67, overlap 47, non-compute 53
 * (trace_filter rank 0: idle 321375 where the trace gives 321378). */
TL_TEST(hta_whole_us_on_epoch_times)
{
    need_zlib();
    static const char epoch[] =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 1682725898236562, \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 7, "
        "\"ts\": 1682725898236567, \"dur\": 68.0, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
        "\"ts\": 1682725898236563, \"dur\": 1, \"args\": {\"correlation\": 2}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_RING_LL_Sum_float\", \"pid\": 0, "
        "\"tid\": 8, \"ts\": 1682725898236587, \"dur\": 100.0, \"args\": {\"device\": 0, \"stream\": 8, "
        "\"correlation\": 2}}]}\n";
    tl_kt_trace *t = NULL;
    tl_kt_hta h;
    TL_ASSERT_OK(tl_kt_load_mem("epoch.json", epoch, sizeof epoch - 1, &t));
    TL_ASSERT_EQ(t->ts_float, 0);
    TL_ASSERT_OK(tl_kt_hta_compute(t, 0, &h)); /* no ProfilerStep: HTA filters nothing */
    TL_ASSERT_EQ(h.kept, 2);
    TL_ASSERT_EQ(h.comp_us, 68);
    TL_ASSERT_EQ(h.comm_us, 100);
    TL_ASSERT_EQ(h.overlap_us, 48);
    TL_ASSERT_EQ(h.kernel_us, 120);
    TL_ASSERT_EQ(h.idle_us, 0);
    tl_kt_free(&t);
}

/* An import that fails on a later rank names no file: before, stdout
 * said "rank 0 (...) -> o/trace.rank0.csv" for a file never put in place
 * (the failure removes what was written, and o with it). */
TL_TEST(import_failure_names_no_file)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600];
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/in", t), 0);
    snprintf(p, sizeof p, "%s/in/rank0.json", t);
    variant(p, "\"rank\": 1", "\"rank\": 0");
    snprintf(p, sizeof p, "%s/in/rank1.json", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "%.*s", (int)(strlen(SMALL) / 2), SMALL);
    fclose(f);
    char cmd[1024], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze import %s/in -o %s/o", tl_test_bin(), t, t);
    TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
    TL_ASSERT_MSG(tl_test_one_line(err, "rank1.json: the JSON ends early"), "%s", err);
    TL_ASSERT_MSG(!out[0], "stdout names files that are not there: %s", out);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/o", t), 0);
    free(out);
    free(err);
    /* the ranks named once they are in place */
    snprintf(p, sizeof p, "%s/in/rank1.json", t);
    tl_test_write(p, SMALL);
    TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 0);
    TL_ASSERT_MSG(strstr(out, "rank 0 (device 0, ") && strstr(out, "/o/trace.rank0.csv\n") &&
                      strstr(out, "/o/trace.rank1.csv\n"),
                  "%s", out);
    free(out);
    free(err);
}

/* Traces without distributedInfo take the ranks no other trace of the
 * folder claims (0, 1, ... when none does) in every command, as import
 * names their files (before: overlap, diagnose, breakdown, timeline and
 * perfetto called both "rank 0", while import and collectives said 0 and
 * 1; beside a trace of rank 1, import numbered all three by their places,
 * the rank 1 trace as rank 0). */
TL_TEST(ranks_by_place_without_distributed_info)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    static const char di[] = "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2},";
    char p[600], args[1500];
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/run", t), 0);
    snprintf(p, sizeof p, "%s/run/a.json", t);
    variant(p, di, "");
    snprintf(p, sizeof p, "%s/run/b.json", t);
    variant(p, di, "");
    snprintf(args, sizeof args, "overlap %s/run --csv %s/ov.csv", t, t);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# rank: 0 device") && strstr(out, "# rank: 1 device"), "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/ov.csv", t);
    char *csv = tl_test_read(p);
    TL_ASSERT_MSG(strstr(csv, "\n0,") && strstr(csv, "\n1,"), "%s", csv);
    free(csv);
    snprintf(args, sizeof args, "breakdown %s/run --csv %s/bd.csv", t, t);
    free(analyze(args));
    snprintf(p, sizeof p, "%s/bd.csv", t);
    csv = tl_test_read(p);
    TL_ASSERT_MSG(strstr(csv, "\nrun,0,") && strstr(csv, "\nrun,1,"), "%s", csv);
    free(csv);
    snprintf(args, sizeof args, "diagnose %s/run", t);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "overlap rank 0:") && strstr(out, "overlap rank 1:"), "%s", out);
    free(out);
    /* beside a trace that says it is rank 1 (of 2): 0 and 2 */
    snprintf(p, sizeof p, "%s/run/c.json", t);
    variant(p, "\"name\": \"gemm\"", "\"name\": \"gemm_of_rank_1\"");
    snprintf(args, sizeof args, "overlap %s/run", t);
    out = analyze(args);
    const char *r0 = strstr(out, "# rank: 0 device"), *r1 = strstr(out, "# rank: 1 device"),
               *r2 = strstr(out, "# rank: 2 device");
    TL_ASSERT_MSG(r0 && r1 && r2 && r0 < r1 && r1 < r2, "ranks 0, 1, 2 in order: %s", out);
    free(out);
    snprintf(args, sizeof args, "import %s/run -o %s/imp", t, t);
    free(analyze(args));
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls %s/imp | tr '\\n' ' ')\" = 'trace.rank0.csv trace.rank1.csv trace.rank2.csv '", t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q ',gemm_of_rank_1,' %s/imp/trace.rank1.csv", t), 0);
}

/* HTA's ratio without a denominator prints '-' and says why under the
 * table, as every table does (before: '-' alone; results/kineto-h200's
 * one-rank all-reduce, oneRankReduce, is no HTA comm name). */
TL_TEST(hta_undefined_ratio_said)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600], args[1400];
    snprintf(p, sizeof p, "%s/nocomm.json", t);
    tl_test_write(p, "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                     "\"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1, \"args\": {\"correlation\": 1}}, {\"ph\": \"X\", "
                     "\"cat\": \"kernel\", \"name\": \"oneRankReduce\", \"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 50, "
                     "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}]}\n");
    snprintf(args, sizeof args, "overlap --hta %s", p);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "\n     0    0   50       0                 -") &&
                      strstr(out, "# -: rank 0 keeps no communication kernel (HTA's comm names"),
                  "%s", out);
    free(out);
}

/* trilap-analyze's own Perfetto export written into a Kineto folder is no
 * rank of the run: left out of the folder, refused given alone (before:
 * read as one more rank, "# rank: 2 device -1", or rank 0 twice); so is
 * a JSON object without traceEvents. */
/* A gzip of a gzip (X.json.gz.gz, or a .json.gz whose content is gzip
 * again), a .json that is no JSON object, and a folder of .json files none
 * of which is a trace: each refused in one line naming the input and why,
 * by every command that reads them (before: "neither a run folder, a
 * PyTorch profiler trace nor an Nsight Systems sqlite export", "no
 * trace.rank<R>.csv[.gz] files", "this is not one"). */
TL_TEST(not_kineto_says_why)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char plain[600], twice[600], inner[600], list[600], dir[600];
    snprintf(plain, sizeof plain, "%s/small.json", t);
    tl_test_write(plain, SMALL);
    snprintf(twice, sizeof twice, "%s/small.json.gz.gz", t);
    snprintf(inner, sizeof inner, "%s/inner.json.gz", t);
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s | gzip -c > %s && cp %s %s", plain, twice, twice, inner), 0);
    snprintf(list, sizeof list, "%s/list.json", t);
    tl_test_write(list, "[1, 2]\n");
    snprintf(dir, sizeof dir, "%s/configs", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s && printf '{\"lr\": 0.1}' > %s/b.json && printf '{}' > %s/a.json", dir, dir,
                            dir),
                 0);
    const struct {
        const char *input, *why;
    } cases[] = {
        {twice, "gzip data inside gzip data (the file gzipped twice): gunzip it once (gunzip -c %1$s > "
                "%2$s/small.json.gz)"},
        {inner, "gzip data inside gzip data (the file gzipped twice): gunzip it once, keeping its name (gunzip -c "
                "%1$s > %1$s.once && mv %1$s.once %1$s)"},
        {list, "its text begins with '[', not '{': a PyTorch profiler (Kineto) trace is one JSON object holding "
               "traceEvents"},
        {dir, "no PyTorch profiler (Kineto) trace among its 2 .json files (a.json: no traceEvents array: not a "
              "PyTorch profiler (Kineto) trace)"},
    };
    static const char *const cmds[] = {"overlap %s", "collectives %s", "breakdown --hta %s", "import %s -o %s/imp"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
            char args[1400], why[1400], want[2200], cmd[1600], *out = NULL, *err = NULL;
            snprintf(args, sizeof args, cmds[c], cases[k].input, t);
            snprintf(why, sizeof why, cases[k].why, cases[k].input, t);
            snprintf(want, sizeof want, "trilap-analyze: %s: %s\n", cases[k].input, why);
            snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", tl_test_bin(), args);
            int rc = tl_test_run(cmd, &out, &err);
            TL_ASSERT_MSG(rc == 1 && !strcmp(err, want), "%s: exit %d\n%s(expected '%s')", args, rc, err, want);
            free(out);
            free(err);
        }
}

TL_TEST(perfetto_export_is_no_rank)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600], args[1400];
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/run", t), 0);
    snprintf(p, sizeof p, "%s/run/rank0.json", t);
    variant(p, "\"rank\": 1", "\"rank\": 0");
    snprintf(p, sizeof p, "%s/run/rank1.json", t);
    tl_test_write(p, SMALL);
    snprintf(args, sizeof args, "perfetto %s/run -o %s/run/perfetto.json", t, t);
    free(analyze(args));
    snprintf(args, sizeof args, "overlap %s/run", t);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# ranks: 2\n") && !strstr(out, "# rank: 2"), "%s", out);
    free(out);
    snprintf(p, sizeof p, "%s/run/perfetto.json", t);
    refused(p, "a Perfetto export written by trilap-analyze (otherData.generator), not a PyTorch profiler trace");
    /* so is another JSON object beside the traces (a config; before: the
     * folder refused whole, "config.json: no traceEvents array"), which
     * named alone is still refused */
    snprintf(p, sizeof p, "%s/run/config.json", t);
    tl_test_write(p, "{\"lr\": 0.1, \"model\": {\"layers\": 4}}\n");
    snprintf(args, sizeof args, "overlap %s/run", t);
    out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# ranks: 2\n"), "%s", out);
    free(out);
    refused(p, "config.json: no traceEvents array: not a PyTorch profiler (Kineto) trace");
}

/* A folder's .json that cannot be read (a dangling link, a folder, a pipe)
 * or that its reader refuses (an empty file) is refused in one line, the
 * reader's, naming the file and why, by every command (before: the
 * reader's line and then the folder's, "no trace.rank<R>.csv[.gz] files";
 * and a dangling or empty rank1.json beside rank0.json was left out, the
 * run read as one rank). A trilap run's folder is its own reader's to judge: a
 * dangling perfetto.json beside its rank files changes nothing. */
TL_TEST(unreadable_json_in_folder_one_line)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600];
    TL_ASSERT_EQ(tl_test_sh("cd %s && mkdir dangling empty sub pipe short && ln -s %s/absent.json dangling/rank0.json && "
                            ": > empty/rank0.json && mkdir sub/rank0.json && mkfifo pipe/rank0.json",
                            t, t),
                 0);
    snprintf(p, sizeof p, "%s/short/rank0.json", t);
    variant(p, "\"rank\": 1", "\"rank\": 0");
    TL_ASSERT_EQ(tl_test_sh("ln -s %s/absent.json %s/short/rank1.json", t, t), 0);
    snprintf(p, sizeof p, "%s/cut/rank0.json", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/cut && : > %s/cut/rank1.json", t, t), 0);
    variant(p, "\"rank\": 1", "\"rank\": 0");
    const struct {
        const char *dir, *why;
    } cases[] = {
        {"dangling", "rank0.json: cannot open: No such file or directory"},
        {"empty", "rank0.json: empty file: not a Kineto JSON trace"},
        {"sub", "rank0.json: a folder, where a file is read"},
        {"pipe", "rank0.json: a pipe or a device: traces are read from files"},
        {"short", "rank1.json: cannot open: No such file or directory"},
        {"cut", "rank1.json: empty file: not a Kineto JSON trace"},
    };
    static const char *const cmds[] = {"overlap %s/%s", "breakdown %s/%s", "collectives %s/%s",
                                       "breakdown --hta %s/%s", "import %s/%s -o %s/imp"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
            char args[1400], want[2200], cmd[1600], *out = NULL, *err = NULL;
            snprintf(args, sizeof args, cmds[c], t, cases[k].dir, t);
            snprintf(want, sizeof want, "trilap-analyze: %s/%s/%s\n", t, cases[k].dir, cases[k].why);
            snprintf(cmd, sizeof cmd, "timeout 20 %s/trilap-analyze %s", tl_test_bin(), args);
            int rc = tl_test_run(cmd, &out, &err);
            TL_ASSERT_MSG(rc == 1 && !strcmp(err, want), "%s: exit %d\n%s(expected '%s')", args, rc, err, want);
            free(out);
            free(err);
        }
    snprintf(p, sizeof p, "import %s/short/rank0.json -o %s/run", t, t);
    free(analyze(p));
    TL_ASSERT_EQ(tl_test_sh("ln -s %s/absent.json %s/run/perfetto.json", t, t), 0);
    snprintf(p, sizeof p, "overlap %s/run", t);
    free(analyze(p));
}

/* Names put together from a trace's strings (the operation and process
 * group of an NCCL kernel, "op:nccl:send on process group ...") are cut
 * at a character, not inside one: a process group description of 300
 * two-byte characters, imported, reads back (before: the name cut in a
 * character, "name is not valid UTF-8" on reading what import wrote). */
TL_TEST(long_names_cut_at_a_character)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600], desc[700] = "\"Process Group Description\": \"x"; /* "1 (x": the buffers end inside a character */
    for (int k = 0; k < 300; k++) strcat(desc, "\xc3\xa9");
    strcat(desc, "\"");
    snprintf(p, sizeof p, "%s/pg.json", t);
    variant(p, "\"Process Group Description\": \"pp\"", desc);
    char args[1400];
    snprintf(args, sizeof args, "import %s -o %s/run", p, t);
    free(analyze(args));
    snprintf(args, sizeof args, "overlap %s/run", t);
    free(analyze(args));
    snprintf(args, sizeof args, "%s/run/trace.rank1.csv", t);
    char *csv = tl_test_read(args);
    TL_ASSERT_MSG(strstr(csv, "op:nccl:send on process group 1 (x\xc3\xa9\xc3\xa9"), "%.2000s", csv);
    free(csv);
}

/* X.json beside X.json.gz (a trace kept plain and gzipped) is refused,
 * as a trilap run's trace.rank0.csv beside trace.rank0.csv.gz is: without
 * distributedInfo they were two ranks of one trace, every figure counted
 * twice. */
TL_TEST(plain_and_gzipped_trace_once)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    static const char di[] = "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2},";
    char p[600];
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/run", t), 0);
    snprintf(p, sizeof p, "%s/run/a.json", t);
    variant(p, di, "");
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s > %s.gz", p, p), 0);
    snprintf(p, sizeof p, "%s/run", t);
    refused(p, "run: a.json and a.json.gz are one trace, plain and gzipped; keep one");
}

/* Kineto names in any case, as .gz is everywhere in trilap: a folder of
 * RANK0.JSON.GZ and worker1.Json is trace_filter read as from its own
 * names, the same files in rank order and the same tables (before: "no
 * trace.rank<R>.csv files"); a trace kept plain and gzipped is one trace
 * whatever the case of its .gz. */
TL_TEST(json_names_in_any_case)
{
    need_zlib();
    const char *t = tl_test_tmpdir(), *dir = data_dir("trace_filter");
    char up[600];
    snprintf(up, sizeof up, "%s/upper/trace_filter", t); /* the same run label as the shared folder's */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s && cp %s/sampled_rank-0.json.gz %s/RANK0.JSON.GZ && "
                            "gzip -dc %s/sampled_rank-1.json.gz > %s/worker1.Json",
                            up, dir, up, dir, up),
                 0);
    TL_ASSERT(tl_an_json_name("RANK0.JSON.GZ") && tl_an_json_name("worker1.Json") && tl_an_json_name("x.json.Gz"));
    TL_ASSERT(!tl_an_json_name("x.jsonl") && !tl_an_json_name(".JSON") && !tl_an_json_name("x.JSON.gzip"));
    char **files = NULL;
    size_t nf = 0;
    TL_ASSERT_OK(tl_an_run_files(up, 0, &files, &nf));
    TL_ASSERT_EQ(nf, 2);
    TL_ASSERT(strstr(files[0], "/RANK0.JSON.GZ") && strstr(files[1], "/worker1.Json"));
    tl_an_run_files_free(&files, nf);
    /* the tables of both folders alike, byte for byte */
    static const char *const cmds[] = {"overlap %s --csv %s/%s.csv", "breakdown %s --csv %s/%s.csv",
                                       "overlap --hta %s --csv %s/%s.csv", "collectives %s --csv %s/%s.csv"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        for (int u = 0; u < 2; u++) {
            char args[1600];
            snprintf(args, sizeof args, cmds[k], u ? up : dir, t, u ? "upper" : "lower");
            free(analyze(args));
        }
        TL_ASSERT_MSG(tl_test_sh("cmp %s/lower.csv %s/upper.csv", t, t) == 0, "%s: the upper-case names read otherwise",
                      cmds[k]);
    }
    /* X.JSON beside X.JSON.Gz: one trace kept twice */
    char p[700];
    snprintf(p, sizeof p, "%s/twice", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s && gzip -dc %s/sampled_rank-1.json.gz > %s/A.JSON && gzip -c %s/A.JSON > "
                            "%s/A.JSON.Gz",
                            p, dir, p, p, p),
                 0);
    refused(p, "twice: A.JSON and A.JSON.Gz are one trace, plain and gzipped; keep one");
}

/* Newer PyTorch writes each ProfilerStep again on every GPU stream
 * (gpu_user_annotation): the iterations are the host's steps only (before:
 * each copy began its step again, iters.c numbered it as the next run of
 * the loop, results/kineto-h200's 20 steps read as 40 iterations of half
 * their time). HTA's last-step rule still counts the copies, as HTA does. */
TL_TEST(gpu_step_copies_are_no_iterations)
{
    need_zlib();
    const char *t = tl_test_tmpdir();
    char p[600], args[1400];
    snprintf(p, sizeof p, "%s/gpusteps.json", t);
    variant(p, "\"ts\": 1100, \"dur\": 100},\n",
            "\"ts\": 1100, \"dur\": 100},\n"
            "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": 0, \"tid\": 7, "
            "\"ts\": 1030, \"dur\": 50},\n"
            "  {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"ProfilerStep#8\", \"pid\": 0, \"tid\": 9, "
            "\"ts\": 1195, \"dur\": 20},\n");
    snprintf(args, sizeof args, "overlap --per-iter %s", p);
    char *out = analyze(args);
    TL_ASSERT_MSG(strstr(out, "# rank 1 iteration time:") && strstr(out, "over 2 iterations"), "%s", out);
    TL_ASSERT_MSG(strstr(out, "\n     1    7 ") && strstr(out, "\n     1    8 "), "%s", out);
    free(out);
    tl_kt_trace *tr = NULL;
    TL_ASSERT_OK(tl_kt_load(p, &tr));
    TL_ASSERT_EQ(tl_kt_step_at(tr, 1040), 7);
    TL_ASSERT_EQ(tl_kt_step_at(tr, 1210), -1); /* after the host's step 8, inside its GPU copy */
    tl_kt_free(&tr);
}

TL_TEST_MAIN(hta_figures_exact, impossible_gpu_rows_noted_once, impossible_gpu_rows_noted_after_import, rank_subset_named_and_waiting_not_claimed, repeated_step_number_renumbered_and_said, rank_without_profiler_steps_said, nccl_kernels_read_in_linear_time, collectives_without_nccl_refused, collectives_event_wait_on_the_host, queued_counts_host_event_waits, diagnose_remedies_speak_pytorch, collectives_kernel_names_with_blanks, not_kineto_says_why, overlap_means_leave_out_an_idle_rank, big_trace_bounded_memory, collectives_command, records_of_shared_traces, json_and_gz_alike, small_trace_records,
             bad_traces_refused, timeline_skips_an_empty_first_rank, every_command_reads_kineto, diagnose_names_collectives, clock_stated,
             late_ranks_pair_by_operation, overlap_rows_carry_the_trace_rank,
             iter_range_selects_matched_operations, options_applied_or_refused, import_reads_back,
             kineto_runs_checked, kineto_activity_checked, kineto_cpu_only_refused, cut_gzip_counts_what_it_read,
             progress_and_clock_flags_on_kineto, hta_takes_flags_typed_off, hta_breakdown_of_several_inputs,
             hta_whole_us_on_epoch_times, import_failure_names_no_file,
             ranks_by_place_without_distributed_info, hta_undefined_ratio_said,
             perfetto_export_is_no_rank, unreadable_json_in_folder_one_line, long_names_cut_at_a_character,
             plain_and_gzipped_trace_once, gpu_step_copies_are_no_iterations, iter_range_keeps_the_clock_offsets,
             starvation_compares_like_with_like, collectives_sizes_as_diagnose_names_them, json_names_in_any_case)
