/* GPU tests of the probes (make check-gpu; each skips without a GPU):
 *   lanes_durations_clock  kernels on three registered streams land on their
 *                          lanes, with durations within 5% of CUDA events, the
 *                          right iterations, and a host range around a
 *                          synchronised kernel encloses the kernel (the CUPTI
 *                          timestamps are on the host clock)
 *   no_drops_10000         10,000 kernels at the default buffer size: none dropped
 *   repeated_sessions      create/destroy three times in one process: each trace
 *                          holds its own kernels only
 *   two_gpu_threads        two ranks as threads of one process share the
 *                          collector and each gets only its device's records
 *   inject_traces_helper   libtrilap-inject.so traces helper_inject_target
 *                          (unmodified NCCL program): p2p, coll, compute lanes
 *                          inferred; TRILAP_LANES overrides one
 *   inject_analysed        the injected trace read by every trilap-analyze
 *                          command (breakdown, overlap, diagnose, timeline,
 *                          perfetto), demangled names, categories
 *   subscriber_present     another CUPTI subscriber first: the probes keep host
 *                          ranges, say so once, mark the trace incomplete */
#include "probes/probes.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime.h>
#if TL_HAVE_CUPTI
#include <cupti.h>
#endif

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

int tl_test_spin(uint64_t ns, cudaStream_t s);
int tl_test_empty(cudaStream_t s);

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (cudaError_t)(x);                                                         \
        if (e_ != cudaSuccess) TL_TEST_FAIL_("%s: %s", #x, cudaGetErrorString(e_));                \
    } while (0)

static int gpus(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}

#define NEED_GPUS(k)                                                                               \
    do {                                                                                           \
        int n_ = gpus();                                                                           \
        if (n_ < (k)) TL_SKIP("needs %d GPU(s), %d visible", (k), n_);                             \
    } while (0)

typedef struct {
    tl_trace_record r;
    char name[256];
} row;

/* The whole trace (rows up to cap); the reader stays open for metadata. */
static int read_rows(const char *path, int flags, row *rows, int cap, tl_trace_reader **keep)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, flags));
    int n = 0;
    for (;;) {
        tl_trace_record rec;
        int got = 0;
        TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
        if (!got) break;
        TL_ASSERT_MSG(n < cap, "%s: more than %d rows", path, cap);
        rows[n].r = rec;
        snprintf(rows[n].name, sizeof rows[n].name, "%s", rec.name);
        rows[n].r.name = rows[n].name;
        n++;
    }
    *keep = r;
    return n;
}

static tl_ctx gpu_ctx(int rank, int size, int device)
{
    static char *argv[] = {"test_gpu_probes", NULL};
    return (tl_ctx){.program = "test_gpu_probes",
                    .rank = rank,
                    .size = size,
                    .device = device,
                    .argc = 1,
                    .argv = argv};
}

static const char *meta(tl_trace_reader *r, const char *k)
{
    const char *v = tl_trace_reader_meta(r, k);
    TL_ASSERT_MSG(v, "metadata %s missing", k);
    return v;
}

/* ---- lanes, durations, iterations, clock ------------------------------- */

enum { NIT = 5 };
static const uint64_t spin_ns = 1000000; /* 1 ms: 5% is 50 us, far above launch jitter */

TL_TEST(lanes_durations_clock)
{
    NEED_GPUS(1);
    const char *dir = tl_test_tmpdir();
    CK(cudaSetDevice(0));
    cudaStream_t s[3];
    cudaEvent_t ev[3][NIT][2];
    const tl_role lanes[3] = {TL_ROLE_COMPUTE, TL_ROLE_P2P, TL_ROLE_COLL};
    for (int k = 0; k < 3; k++) {
        CK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
        for (int it = 0; it < NIT; it++)
            for (int e = 0; e < 2; e++)
                CK(cudaEventCreate(&ev[k][it][e]));
    }
    CK(tl_test_spin(1000, s[0])); /* load the module before tracing */
    CK(cudaDeviceSynchronize());
    tl_ctx ctx = gpu_ctx(0, 1, 0);
    tl_probes_config pc = {.outdir = dir, .cupti = 1, .nvtx = 1};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    tl_probe_stream(&ctx, s[0], TL_ROLE_COMPUTE, "s_compute");
    tl_probe_stream(&ctx, s[1], TL_ROLE_P2P, "s_p2p");
    tl_probe_stream(&ctx, s[2], TL_ROLE_COLL, "s_coll");
    tl_probe_window_start(&ctx);
    for (int it = 0; it < NIT; it++) {
        tl_probe_iter_begin(&ctx, it);
        for (int k = 0; k < 3; k++) {
            CK(cudaEventRecord(ev[k][it][0], s[k]));
            CK(tl_test_spin(spin_ns, s[k]));
            CK(cudaEventRecord(ev[k][it][1], s[k]));
        }
        CK(cudaDeviceSynchronize());
        tl_probe_iter_end(&ctx);
    }
    /* The clock check: a host range around a kernel the host waits for. */
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "host_wrap");
    CK(tl_test_spin(spin_ns, s[0]));
    CK(cudaStreamSynchronize(s[0]));
    tl_probe_pop(&ctx);
    tl_probe_window_stop(&ctx);
    TL_ASSERT_EQ(tl_probes_dropped(&ctx), 0);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));

    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    static row rows[4096];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, 0, rows, 4096, &r);
    TL_ASSERT_STREQ(meta(r, "cupti_status"), "on");
    TL_ASSERT_STREQ(meta(r, "complete"), "yes");
    TL_ASSERT_STREQ(meta(r, "dropped"), "0");
    TL_ASSERT_STREQ(meta(r, "device"), "0");
    /* the driver's name of the device (the probes found no driver API
     * symbol before: "unknown (the CUDA driver named no device 0)") */
    struct cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    TL_ASSERT_STREQ(meta(r, "device_name"), prop.name);
    TL_ASSERT_MSG(strstr(meta(r, "driver"), "(CUDA "), "driver=%s: no CUDA version from the driver API",
                  meta(r, "driver"));
    TL_ASSERT_STREQ(meta(r, "window"), "marked");
    fprintf(stderr, "cupti_clock=%s\n", meta(r, "cupti_clock"));
    tl_trace_reader_close(&r);

    int seen[3][NIT] = {{0}}, wrap = -1, kwrap = -1;
    for (int i = 0; i < n; i++) {
        const tl_trace_record *x = &rows[i].r;
        if (strcmp(x->name, "compute:host_wrap") == 0) wrap = i;
        if (x->kind != TL_KIND_KERNEL || !strstr(x->name, "tl_test_spin_kernel")) continue;
        TL_ASSERT_EQ(x->device, 0);
        TL_ASSERT_EQ(x->cat, TL_CAT_COMPUTE);
        if (x->iter < 0) {
            TL_ASSERT_MSG(kwrap < 0, "two spin kernels outside iterations");
            TL_ASSERT_EQ(x->lane, TL_ROLE_COMPUTE);
            kwrap = i;
            continue;
        }
        TL_ASSERT(x->iter < NIT);
        int k = 0;
        while (k < 3 && lanes[k] != x->lane)
            k++;
        TL_ASSERT_MSG(k < 3, "spin kernel on lane %s", tl_role_name(x->lane));
        seen[k][x->iter]++;
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, ev[k][x->iter][0], ev[k][x->iter][1]));
        double ev_ns = ms * 1e6, k_ns = (double)(x->end_ns - x->start_ns);
        /* CUPTI instruments the first launches after activity is enabled,
         * and that delay falls between the first iteration's events: compare
         * durations from the second iteration on. */
        if (x->iter > 0)
            TL_ASSERT_MSG(fabs(k_ns - ev_ns) <= 0.05 * ev_ns,
                      "lane %s iter %" PRId64 ": CUPTI %.0f ns, events %.0f ns",
                      tl_role_name(x->lane), x->iter, k_ns, ev_ns);
        TL_ASSERT(k_ns >= 0.95 * (double)spin_ns);
    }
    for (int k = 0; k < 3; k++)
        for (int it = 0; it < NIT; it++)
            TL_ASSERT_MSG(seen[k][it] == 1, "lane %s iter %d: %d spin kernels",
                          tl_role_name(lanes[k]), it, seen[k][it]);
    TL_ASSERT_MSG(wrap >= 0 && kwrap >= 0, "host range %d, kernel %d", wrap, kwrap);
    const tl_trace_record *h = &rows[wrap].r, *k = &rows[kwrap].r;
    /* The kernel lies inside the host range (50 us for CUPTI's GPU-to-host
     * interpolation). */
    const int64_t slack = 50000;
    TL_ASSERT_MSG(k->start_ns >= h->start_ns - slack && k->end_ns <= h->end_ns + slack,
                  "kernel [%" PRId64 ", %" PRId64 "] outside host range [%" PRId64 ", %" PRId64 "]",
                  k->start_ns, k->end_ns, h->start_ns, h->end_ns);
    /* The range ends right after cudaStreamSynchronize returns, so the
     * kernel's end is at most a wake-up before it: the tight side of the
     * clock check. How early the range starts (launch, CUPTI's own work)
     * says nothing about the clock. */
    TL_ASSERT_MSG(h->end_ns - k->end_ns < 200000, "kernel ends %" PRId64 " ns before the host range",
                  h->end_ns - k->end_ns);
    fprintf(stderr, "host range %" PRId64 " ns around a kernel of %" PRId64 " ns\n", h->end_ns - h->start_ns,
            k->end_ns - k->start_ns);
    for (int k2 = 0; k2 < 3; k2++)
        CK(cudaStreamDestroy(s[k2]));
}

/* ---- volume ---------------------------------------------------------------- */

TL_TEST(no_drops_10000)
{
    NEED_GPUS(1);
    const char *dir = tl_test_tmpdir();
    CK(cudaSetDevice(0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(tl_test_empty(s));
    CK(cudaDeviceSynchronize());
    tl_ctx ctx = gpu_ctx(0, 1, 0);
    tl_probes_config pc = {.outdir = dir, .cupti = 1, .nvtx = 1};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    tl_probe_stream(&ctx, s, TL_ROLE_COMPUTE, "s_compute");
    tl_probe_window_start(&ctx);
    for (int i = 0; i < 10000; i++) {
        if (i % 100 == 0) tl_probe_iter_begin(&ctx, i / 100);
        CK(tl_test_empty(s));
    }
    tl_probe_iter_end(&ctx);
    CK(cudaStreamSynchronize(s));
    tl_probe_window_stop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    static row rows[12000];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, 0, rows, 12000, &r);
    TL_ASSERT_STREQ(meta(r, "dropped"), "0");
    TL_ASSERT_STREQ(meta(r, "complete"), "yes");
    TL_ASSERT_STREQ(meta(r, "iter_unknown"), "0");
    tl_trace_reader_close(&r);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!strstr(rows[i].name, "tl_test_empty_kernel")) continue;
        TL_ASSERT_EQ(rows[i].r.lane, TL_ROLE_COMPUTE);
        /* one stream: GPU order is launch order */
        TL_ASSERT_MSG(rows[i].r.iter == k / 100, "kernel %d has iter %" PRId64, k, rows[i].r.iter);
        k++;
    }
    TL_ASSERT_EQ(k, 10000);
    CK(cudaStreamDestroy(s));
}

/* ---- sessions one after another (the benchmark traces each variant) ------ */

TL_TEST(repeated_sessions)
{
    NEED_GPUS(1);
    const char *dir = tl_test_tmpdir();
    CK(cudaSetDevice(0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int sess = 0; sess < 3; sess++) {
        char sub[600];
        snprintf(sub, sizeof sub, "%s/session%d", dir, sess);
        tl_ctx ctx = gpu_ctx(0, 1, 0);
        tl_probes_config pc = {.outdir = sub, .cupti = 1, .nvtx = 1};
        TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
        tl_probe_stream(&ctx, s, TL_ROLE_COLL, "s");
        tl_probe_window_start(&ctx);
        for (int i = 0; i < 20 + sess; i++)
            CK(tl_test_spin(10000, s));
        CK(cudaStreamSynchronize(s));
        tl_probe_window_stop(&ctx);
        TL_ASSERT_OK(tl_probes_destroy(&ctx));
        /* work between sessions is not traced */
        for (int i = 0; i < 5; i++)
            CK(tl_test_spin(10000, s));
        CK(cudaStreamSynchronize(s));
    }
    for (int sess = 0; sess < 3; sess++) {
        char path[700];
        snprintf(path, sizeof path, "%s/session%d/trace.rank0.csv", dir, sess);
        static row rows[4096];
        tl_trace_reader *r = NULL;
        int n = read_rows(path, 0, rows, 4096, &r);
        TL_ASSERT_STREQ(meta(r, "cupti_status"), "on");
        TL_ASSERT_STREQ(meta(r, "dropped"), "0");
        long long w0 = atoll(meta(r, "window_start_ns")), w1 = atoll(meta(r, "window_end_ns"));
        tl_trace_reader_close(&r);
        int nk = 0;
        for (int i = 0; i < n; i++) {
            if (!strstr(rows[i].name, "tl_test_spin_kernel")) continue;
            TL_ASSERT_EQ(rows[i].r.lane, TL_ROLE_COLL);
            TL_ASSERT(rows[i].r.start_ns >= w0 && rows[i].r.end_ns <= w1);
            nk++;
        }
        TL_ASSERT_MSG(nk == 20 + sess, "session %d: %d spin kernels, expected %d", sess, nk,
                      20 + sess);
    }
    CK(cudaStreamDestroy(s));
}

/* ---- thread ranks ---------------------------------------------------------- */

typedef struct {
    tl_ctx ctx;
    const char *dir;
    int ok;
} rank_arg;

static void *rank_main(void *p)
{
    rank_arg *a = p;
    if (cudaSetDevice(a->ctx.device) != cudaSuccess) return NULL;
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return NULL;
    tl_probes_config pc = {.outdir = a->dir, .cupti = 1, .nvtx = 1};
    if (tl_probes_create(&a->ctx, &pc) != TL_OK) return NULL;
    tl_probe_stream(&a->ctx, s, TL_ROLE_COMPUTE, "s_compute");
    tl_probe_window_start(&a->ctx);
    for (int it = 0; it < 50; it++) {
        tl_probe_iter_begin(&a->ctx, it);
        /* rank 1 runs longer, so rank 0 collects while rank 1 still works */
        if (tl_test_spin(a->ctx.rank ? 40000 : 10000, s) != cudaSuccess) return NULL;
        tl_probe_iter_end(&a->ctx);
    }
    if (cudaStreamSynchronize(s) != cudaSuccess) return NULL;
    tl_probe_window_stop(&a->ctx);
    a->ok = tl_probes_destroy(&a->ctx) == TL_OK;
    cudaStreamDestroy(s);
    return NULL;
}

TL_TEST(two_gpu_threads)
{
    NEED_GPUS(2);
    const char *dir = tl_test_tmpdir();
    rank_arg a[2] = {{gpu_ctx(0, 2, 0), dir, 0}, {gpu_ctx(1, 2, 1), dir, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        TL_ASSERT(pthread_create(&th[i], NULL, rank_main, &a[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        TL_ASSERT_MSG(a[i].ok, "rank %d failed", i);
        char path[600];
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, i);
        static row rows[4096];
        tl_trace_reader *r = NULL;
        int n = read_rows(path, 0, rows, 4096, &r);
        TL_ASSERT_STREQ(meta(r, "dropped"), "0");
        tl_trace_reader_close(&r);
        int its[50] = {0}, nk = 0;
        for (int j = 0; j < n; j++) {
            if (rows[j].r.kind != TL_KIND_KERNEL) continue;
            TL_ASSERT_MSG(rows[j].r.device == i, "rank %d got a kernel of device %d", i,
                          rows[j].r.device);
            if (!strstr(rows[j].name, "tl_test_spin_kernel")) continue;
            TL_ASSERT(rows[j].r.iter >= 0 && rows[j].r.iter < 50);
            its[rows[j].r.iter]++;
            nk++;
        }
        TL_ASSERT_EQ(nk, 50);
        for (int it = 0; it < 50; it++)
            TL_ASSERT_EQ(its[it], 1);
    }
}

/* ---- injection --------------------------------------------------------------- */

static void run_helper(const char *dir, const char *lanes)
{
    const char *build = tl_test_env("TL_BUILD", "build");
    char lib[600], helper[600], cmd[4096], log[700];
    snprintf(lib, sizeof lib, "%s/lib/libtrilap-inject.so", build);
    snprintf(helper, sizeof helper, "%s/tests/helper_inject_target", build);
    char *alib = realpath(lib, NULL);
    TL_ASSERT_MSG(alib, "%s not built (make %s)", lib, lib);
    TL_ASSERT_MSG(access(helper, X_OK) == 0, "%s not built (make %s)", helper, helper);
    snprintf(log, sizeof log, "%s/helper.log", dir);
    snprintf(
        cmd, sizeof cmd,
        "CUDA_INJECTION64_PATH='%s' TRILAP_TRACE_DIR='%s' TRILAP_LANES='%s' '%s' 10 >'%s' 2>&1",
        alib, dir, lanes, helper, log);
    free(alib);
    int rc = system(cmd);
    char out[8192] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        size_t m = fread(out, 1, sizeof out - 1, f);
        out[m] = '\0';
        fclose(f);
    }
    fprintf(stderr, "%s", out);
    TL_ASSERT_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "helper_inject_target exit %d:\n%s",
                  WEXITSTATUS(rc), out);
    TL_ASSERT_MSG(strstr(out, "helper_inject_target: ok"), "helper output:\n%s", out);
    TL_ASSERT_MSG(strstr(out, "trilap-inject: rank 0: wrote "), "no trace written:\n%s", out);
}

TL_TEST(inject_traces_helper)
{
    NEED_GPUS(1);
    int ng = gpus() >= 2 ? 2 : 1;
    const char *dir = tl_test_tmpdir();
    run_helper(dir, "");
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    static row rows[20000];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, 0, rows, 20000, &r);
    TL_ASSERT_STREQ(meta(r, "cupti_status"), "on");
    TL_ASSERT_STREQ(meta(r, "lanes"), "inferred");
    TL_ASSERT_STREQ(meta(r, "program"), "helper_inject_target");
    TL_ASSERT_STREQ(meta(r, "complete"), "yes");
    TL_ASSERT_STREQ(meta(r, "device"), "all");
    fprintf(stderr, "nccl=%s cuda=%s device_name=%s\n", meta(r, "nccl"), meta(r, "cuda"),
            meta(r, "device_name"));
    tl_trace_reader_close(&r);
    int p2p = 0, coll = 0, comp[2] = {0, 0};
    uint64_t p2p_stream = 0;
    for (int i = 0; i < n; i++) {
        const tl_trace_record *x = &rows[i].r;
        if (x->kind != TL_KIND_KERNEL) continue;
        tl_nccl_kind nk = tl_trace_nccl_kernel(x->name);
        if (strstr(x->name, "helper_scale_kernel")) {
            TL_ASSERT_EQ(x->lane, TL_ROLE_COMPUTE);
            TL_ASSERT_EQ(x->cat, TL_CAT_COMPUTE);
            TL_ASSERT(x->device >= 0 && x->device < ng);
            comp[x->device]++;
        } else if (nk != TL_NCCL_NONE) {
            TL_ASSERT_MSG(x->lane == TL_ROLE_P2P || x->lane == TL_ROLE_COLL, "%s on lane %s",
                          x->name, tl_role_name(x->lane));
            TL_ASSERT_MSG((x->cat == TL_CAT_P2P) == (x->lane == TL_ROLE_P2P),
                          "%s: cat %s on lane %s", x->name, tl_cat_name(x->cat),
                          tl_role_name(x->lane));
            if (x->lane == TL_ROLE_P2P) {
                p2p++;
                if (x->device == 0) p2p_stream = x->stream;
            } else {
                coll++;
            }
        }
        TL_ASSERT_EQ(x->iter, -1);
    }
    fprintf(stderr, "p2p kernels %d, coll kernels %d, compute %d + %d\n", p2p, coll, comp[0],
            comp[1]);
    for (int d = 0; d < ng; d++)
        TL_ASSERT_EQ(comp[d], 10);
    /* One rank: NCCL copies instead of launching communication kernels. */
    if (ng < 2) TL_SKIP("compute lane checked; p2p and coll lanes need 2 GPUs");
    TL_ASSERT_MSG(p2p >= 10 * ng, "%d p2p kernels", p2p);
    TL_ASSERT_MSG(coll >= 10 * ng, "%d coll kernels", coll);
    TL_ASSERT(p2p_stream != 0);

    /* The same program with the p2p stream's lane overridden. */
    const char *dir2 = tl_test_tmpdir();
    char lanes[64];
    snprintf(lanes, sizeof lanes, "%" PRIu64 ":copy", p2p_stream);
    run_helper(dir2, lanes);
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir2);
    n = read_rows(path, 0, rows, 20000, &r);
    char key[64];
    snprintf(key, sizeof key, "stream.-1.%" PRIu64, p2p_stream);
    TL_ASSERT_STREQ(meta(r, key), "copy copy");
    tl_trace_reader_close(&r);
    int on_copy = 0;
    for (int i = 0; i < n; i++)
        if (rows[i].r.device >= 0 && rows[i].r.stream == p2p_stream) {
            TL_ASSERT_EQ(rows[i].r.lane, TL_ROLE_COPY);
            on_copy++;
        }
    TL_ASSERT_MSG(on_copy > 0, "no records on stream %" PRIu64 " in the second run", p2p_stream);
}

/* What the injection wrote, through every analysis command (issue 13: the
 * analysis refused device=all and printed mangled names). */
TL_TEST(inject_analysed)
{
    NEED_GPUS(1);
    const char *dir = tl_test_tmpdir();
    run_helper(dir, "");
    const char *bin = tl_test_env("TL_BIN", "bin");
    static const char *const cmds[] = {"breakdown %s", "overlap %s", "diagnose %s", "timeline %s -o %s/tl.csv",
                                       "perfetto %s -o %s/p.json"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char sub[1024], cmd[4096];
        snprintf(sub, sizeof sub, cmds[k], dir, dir);
        snprintf(cmd, sizeof cmd, "'%s/trilap-analyze' %s > '%s/out%zu' 2>&1", bin, sub, dir, k);
        int rc = system(cmd);
        char p[700];
        snprintf(p, sizeof p, "%s/out%zu", dir, k);
        char *o = tl_test_slurp_or_null(p);
        fprintf(stderr, "$ trilap-analyze %s\n%s", sub, o ? o : "");
        TL_ASSERT_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "trilap-analyze %s failed:\n%s", sub, o ? o : "");
        if (k == 0) {
            /* the short, demangled name; no mangled one in the table */
            int found = 0;
            for (const char *l = o; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                char run[256], rank[32], level[32], cat[64], name[256];
                found = sscanf(l, "%255s %31s %31s %63s %255s", run, rank, level, cat, name) == 5 &&
                      !strcmp(level, "name") && !strcmp(cat, "compute") && !strcmp(name, "helper_scale_kernel");
            }
            TL_ASSERT_MSG(found, "no row 'name compute helper_scale_kernel' in\n%s", o ? o : "");
            TL_ASSERT_MSG(!strstr(o, "_Z19helper_scale_kernel"), "%s", o);
        }
        free(o);
    }
    char p[700];
    snprintf(p, sizeof p, "%s/p.json", dir);
    char *j = tl_test_slurp_or_null(p);
    TL_ASSERT_MSG(j && strstr(j, "\"name\":\"helper_scale_kernel\""), "perfetto: no short kernel name");
    TL_ASSERT(strstr(j, "\"full_name\":\"helper_scale_kernel(double*, double, unsigned long)\""));
    free(j);
}

/* ---- another CUPTI client first ---------------------------------------------- */

#if TL_HAVE_CUPTI
static void CUPTIAPI other_tool(void *ud, CUpti_CallbackDomain d, CUpti_CallbackId id,
                                const void *data)
{
}
#endif

TL_TEST(subscriber_present)
{
    NEED_GPUS(1);
#if !TL_HAVE_CUPTI
    TL_SKIP("built without CUPTI");
#else
    const char *dir = tl_test_tmpdir();
    CK(cudaSetDevice(0));
    CUpti_SubscriberHandle sub;
    TL_ASSERT_MSG(cuptiSubscribe(&sub, other_tool, NULL) == CUPTI_SUCCESS,
                  "the test's own subscribe failed");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    /* stderr to a file: the skip is said once for two ranks */
    char errpath[600];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    fflush(stderr);
    int saved = dup(2), fd = open(errpath, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    TL_ASSERT(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    tl_ctx ctx = gpu_ctx(0, 2, 0), ctx1 = gpu_ctx(1, 2, 0);
    char dir1[600];
    snprintf(dir1, sizeof dir1, "%s/r1", dir);
    tl_probes_config pc = {.outdir = dir, .cupti = 1, .nvtx = 1},
                     pc1 = {.outdir = dir1, .cupti = 1, .nvtx = 1};
    tl_status st0 = tl_probes_create(&ctx, &pc), st1 = tl_probes_create(&ctx1, &pc1);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    TL_ASSERT_OK(st0);
    TL_ASSERT_OK(st1);
    tl_probe_stream(&ctx, s, TL_ROLE_COMPUTE, "s_compute");
    tl_probe_window_start(&ctx);
    for (int it = 0; it < 3; it++) {
        tl_probe_iter_begin(&ctx, it);
        tl_probe_push(&ctx, TL_CAT_COMPUTE, "spin");
        CK(tl_test_spin(100000, s));
        tl_probe_pop(&ctx);
        tl_probe_iter_end(&ctx);
    }
    CK(cudaStreamSynchronize(s)); /* the program still runs */
    tl_probe_window_stop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT_OK(tl_probes_destroy(&ctx1));
    TL_ASSERT(cuptiUnsubscribe(sub) == CUPTI_SUCCESS);

    char text[4096] = "";
    FILE *f = fopen(errpath, "r");
    TL_ASSERT(f);
    size_t m = fread(text, 1, sizeof text - 1, f);
    text[m] = '\0';
    fclose(f);
    const char *first = strstr(text, "another CUPTI client");
    TL_ASSERT_MSG(first && !strstr(first + 1, "another CUPTI client"), "stderr: %s", text);

    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_EQ(tl_trace_reader_open(&r, path, 0), TL_ERR_PARSE); /* incomplete */
    static row rows[64];
    int n = read_rows(path, TL_TRACE_ACCEPT_INCOMPLETE, rows, 64, &r);
    TL_ASSERT_STREQ(meta(r, "cupti_status"), "skipped-subscriber");
    TL_ASSERT_STREQ(meta(r, "complete"), "no");
    tl_trace_reader_close(&r);
    TL_ASSERT_EQ(n, 6); /* 3 iterations + 3 ranges, no GPU records */
    for (int i = 0; i < n; i++)
        TL_ASSERT_EQ(rows[i].r.kind, TL_KIND_HOST);
    CK(cudaStreamDestroy(s));
#endif
}

TL_TEST_MAIN(lanes_durations_clock, no_drops_10000, repeated_sessions, two_gpu_threads,
             inject_traces_helper, inject_analysed, subscriber_present)
