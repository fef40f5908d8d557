/* Nsight Systems exports read by trilap-analyze: the per-kernel totals and
 * counts equal `nsys stats --report cuda_gpu_kern_sum` of the same file
 * (four real H200 exports: PyTorch, CuPy, trilap-bench tristream, the inject
 * helper), every command runs on an export, `import` writes trace files
 * that analyse the same, trilap's NVTX domain gives host ranges and
 * iterations, bad inputs are refused naming the file. */
#include <sys/stat.h>

#include "tl_test.h"
#include "tl_test_run.h"

#include "analysis/analysis.h"
#include "analysis/sqlite_lib.h"

#include "config.h" /* TL_HAVE_SQLITE */
#if TL_HAVE_SQLITE
#include <sqlite3.h>
#endif

static const char *FIXTURE = "tests/data/nsys-torch-h200.sqlite";

/* Tests that make an export of their own need sqlite3.h and the library
 * at build time; the reader needs only the library, at run time. */
static void need_sqlite(void)
{
    if (!TL_HAVE_SQLITE) TL_SKIP("built without sqlite3 (libsqlite3-dev)");
}

static void need_sqlite_library(void)
{
    tl_an_sqlite sq;
    if (tl_an_sqlite_load(&sq, "the test's exports") != TL_OK) TL_SKIP("no SQLite library to load (libsqlite3.so.0)");
    tl_an_sqlite_unload(&sq);
}

typedef struct ksum {
    int64_t total, count, min, max;
} ksum;

static int cmp_ksum(const void *a, const void *b)
{
    const ksum *x = a, *y = b;
    if (x->total != y->total) return x->total < y->total ? -1 : 1;
    return x->count < y->count ? -1 : x->count > y->count;
}

typedef struct acc {
    tl_an_names *names;
    ksum *k;
    size_t n;
} acc;

static tl_status add_kernel(void *user, const tl_trace_record *r)
{
    acc *a = user;
    if (r->kind != TL_KIND_KERNEL) return TL_OK;
    uint32_t id;
    TL_TRY(tl_an_names_intern(a->names, r->name, &id));
    if (id >= a->n) {
        ksum *nk = realloc(a->k, (id + 1) * sizeof *nk);
        TL_CHECK(nk, TL_ERR_NOMEM, "kernels");
        memset(nk + a->n, 0, (id + 1 - a->n) * sizeof *nk);
        a->k = nk;
        a->n = id + 1;
    }
    ksum *k = &a->k[id];
    int64_t d = r->end_ns - r->start_ns;
    if (!k->count || d < k->min) k->min = d;
    if (!k->count || d > k->max) k->max = d;
    k->total += d;
    k->count++;
    return TL_OK;
}

/* kern_sum CSV: a "Processing [...]" line, the header, one row per kernel:
 * Time (%),Total Time (ns),Instances,Avg,Med,Min,Max,StdDev,Name */
static size_t read_kern_sum(const char *path, ksum *out, size_t max)
{
    char *text = tl_test_read(path), *save = NULL;
    size_t n = 0;
    int header = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "Time (%),Total Time (ns),Instances", 34)) {
            header = 1;
            continue;
        }
        if (!header) continue;
        double pct, avg, med, sd;
        long long tot, inst, mn, mx;
        TL_ASSERT_MSG(sscanf(line, "%lf,%lld,%lld,%lf,%lf,%lld,%lld,%lf,", &pct, &tot, &inst, &avg, &med, &mn, &mx,
                             &sd) == 8,
                      "%s: bad row %s", path, line);
        TL_ASSERT(n < max);
        out[n++] = (ksum){.total = tot, .count = inst, .min = mn, .max = mx};
    }
    TL_ASSERT_MSG(header, "%s: no kern_sum header", path);
    free(text);
    return n;
}

/* trilap's per-kernel totals, counts, min and max equal nsys stats' */
static void cross_check(const char *sqlite, const char *kern_sum)
{
    acc a = {0};
    TL_ASSERT_OK(tl_an_names_create(&a.names));
    int nr = 0;
    TL_ASSERT_OK(tl_an_nsys_ranks(sqlite, &nr));
    TL_ASSERT(nr >= 1);
    for (int r = 0; r < nr; r++) {
        tl_an_meta m;
        TL_ASSERT_OK(tl_an_nsys_scan(sqlite, r, NULL, add_kernel, &a, &m, NULL));
    }
    ksum ref[256];
    size_t nref = read_kern_sum(kern_sum, ref, 256);
    size_t nk = 0;
    for (size_t i = 0; i < a.n; i++)
        if (a.k[i].count) a.k[nk++] = a.k[i];
    TL_ASSERT_MSG(nk == nref, "%s: %zu kernel names, nsys stats has %zu", sqlite, nk, nref);
    qsort(a.k, nk, sizeof *a.k, cmp_ksum);
    qsort(ref, nref, sizeof *ref, cmp_ksum);
    int64_t sum = 0;
    for (size_t i = 0; i < nk; i++) {
        TL_ASSERT_MSG(a.k[i].total == ref[i].total && a.k[i].count == ref[i].count && a.k[i].min == ref[i].min &&
                          a.k[i].max == ref[i].max,
                      "%s: kernel %zu: trilap total %lld ns x%lld [%lld, %lld], nsys %lld x%lld [%lld, %lld]", sqlite, i,
                      (long long)a.k[i].total, (long long)a.k[i].count, (long long)a.k[i].min, (long long)a.k[i].max,
                      (long long)ref[i].total, (long long)ref[i].count, (long long)ref[i].min, (long long)ref[i].max);
        sum += a.k[i].total;
    }
    printf("%s: %zu kernels, %lld ns in all, equal to nsys stats cuda_gpu_kern_sum\n", sqlite, nk, (long long)sum);
    free(a.k);
    tl_an_names_destroy(&a.names);
}

TL_TEST(kern_sum_fixture)
{
    need_sqlite_library();
    cross_check(FIXTURE, "tests/data/nsys-torch-h200.kern_sum.csv");
}

/* the full exports of results/foreign-h200, gunzipped into a temporary folder */
TL_TEST(kern_sum_h200_exports)
{
    need_sqlite_library();
    static const char *const names[] = {"torch", "cupy", "helper"};
    const char *dir = tl_test_tmpdir();
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char gz[512], db[512], ks[512];
        snprintf(gz, sizeof gz, "results/foreign-h200/%s.sqlite.gz", names[k]);
        snprintf(db, sizeof db, "%s/%s.sqlite", dir, names[k]);
        snprintf(ks, sizeof ks, "results/foreign-h200/%s.kern_sum.csv", names[k]);
        struct stat sb;
        if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
        TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s", gz, db), 0);
        cross_check(db, ks);
    }
}

/* breakdown, overlap, diagnose, timeline, perfetto, compare on an export */
TL_TEST(commands_on_export)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s --csv %s/bd.csv > %s/bd.txt", tl_test_bin(), FIXTURE, t, t), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/bd.txt", t);
    char *o = tl_test_read(p);
    /* readable names and library categories */
    TL_ASSERT_MSG(strstr(o, "gemm            nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "gemm            Kernel2 "), "%s", o);
    TL_ASSERT_MSG(strstr(o, "reduction       softmax_warp_forward "), "%s", o);
    TL_ASSERT_MSG(strstr(o, "elementwise     distribution_elementwise_grid_stride_kernel "), "%s", o);
    TL_ASSERT_MSG(strstr(o, "nccl-coll-other oneRankReduce "), "%s", o);
    /* a name with a blank in quotes: one field for a reader that splits on blanks */
    TL_ASSERT_MSG(strstr(o, "memcpy          \"memcpy HtoD\" "), "%s", o);
    TL_ASSERT_MSG(!strstr(o, "_ZN"), "mangled names printed:\n%s", o);
    free(o);
    snprintf(p, sizeof p, "%s/bd.csv", t);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, ",void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_"
                            "sgemm_256x128_8x4_nn_align1::Params)\n"),
                  "%s", o);
    free(o);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/ov.txt", tl_test_bin(), FIXTURE, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze diagnose %s > %s/dg.txt", tl_test_bin(), FIXTURE, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze timeline %s -o %s/tl.csv > %s/tl.txt", tl_test_bin(), FIXTURE, t, t), 0);
    snprintf(p, sizeof p, "%s/tl.csv", t);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, ",gemm,12,\"Kernel2\","), "%.2000s", o);
    free(o);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s -o %s/p.json > %s/pf.txt", tl_test_bin(), FIXTURE, t, t), 0);
    /* a copy: one file given twice is refused (compare_refuses_one_input_twice) */
    TL_ASSERT_EQ(tl_test_sh("cp %s %s/copy.sqlite && %s/trilap-analyze compare %s %s/copy.sqlite > %s/cmp.txt", FIXTURE,
                            t, tl_test_bin(), FIXTURE, t, t),
                 0);
    snprintf(p, sizeof p, "%s/cmp.txt", t);
    o = tl_test_read(p);
    /* the same export twice: every metric equal (no iterations: the window stands for the time) */
    TL_ASSERT_MSG(strstr(o, "  window                us   483804.60 483804.60      0.00    1.000"), "%s", o);
    free(o);
}

/* queued-communication on an export with NCCL kernels and their launch
 * calls says it is not measured there (before: "-" and nothing else, under
 * an ok line reading "or the trace has no launches (-)", which the export
 * has: CUPTI_ACTIVITY_KIND_RUNTIME). */
TL_TEST(queued_not_measured_said)
{
    need_sqlite_library();
    char cmd[1024], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze diagnose %s", tl_test_bin(), FIXTURE);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    const char *row = strstr(out, "\n  queued-communication ");
    TL_ASSERT_MSG(row, "%s", out);
    size_t n = strcspn(row + 1, "\n");
    const char *why = strstr(row, "\"not measured on Nsight Systems exports (PyTorch profiler traces tie kernels to "
                                  "launches)\"");
    TL_ASSERT_MSG(why && why < row + 1 + n, "%.*s", (int)n, row + 1);
    free(out);
    free(err);
}

/* --progress draws a line for each rank of an export read, as for
 * trilap's own traces (before: nothing); --raw-clock and
 * --accept-incomplete are refused on an export, which has one session
 * clock and no complete=no (before: accepted and ignored). */
TL_TEST(progress_and_clock_flags_on_export)
{
    need_sqlite_library();
    char cmd[1200], *out = NULL, *err = NULL;
    snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap --progress %s", tl_test_bin(), FIXTURE);
    TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 0, "%s: %s", cmd, err);
    TL_ASSERT_MSG(strstr(err, "reading nsys-torch-h200.sqlite rank 0 ") && strstr(err, " records ["), "%s", err);
    free(out);
    free(err);
    static const char *const refused[][2] = {
        {"overlap --raw-clock", "--raw-clock does not apply to tests/data/nsys-torch-h200.sqlite, an Nsight Systems "
                                "export: its ranks share one session clock"},
        {"breakdown --accept-incomplete", "--accept-incomplete does not apply to tests/data/nsys-torch-h200.sqlite, "
                                          "an Nsight Systems export"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s %s", tl_test_bin(), refused[i][0], FIXTURE);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 2, "%s: not refused:\n%s", cmd, err);
        TL_ASSERT_MSG(tl_test_one_line(err, refused[i][1]) && !out[0],
                      "%s: not one line saying '%s':\n%s", cmd, refused[i][1], err);
        free(out);
        free(err);
    }
}

/* import writes trace files; they analyse exactly as the export does */
TL_TEST(import_round_trip)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s/run > %s/imp.txt", tl_test_bin(), FIXTURE, t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s --csv %s/a.csv > /dev/null", tl_test_bin(), FIXTURE, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s/run --csv %s/b.csv > /dev/null", tl_test_bin(), t, t), 0);
    /* the first column is the run's name */
    TL_ASSERT_EQ(tl_test_sh("cut -d, -f2- %s/a.csv > %s/a2 && cut -d, -f2- %s/b.csv > %s/b2 && cmp %s/a2 %s/b2", t, t, t, t,
                    t, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s --csv %s/oa.csv > /dev/null && %s/trilap-analyze overlap %s/run "
                    "--csv %s/ob.csv > /dev/null && cmp %s/oa.csv %s/ob.csv",
                    tl_test_bin(), FIXTURE, t, tl_test_bin(), t, t, t, t),
                 0);
    char p[512];
    snprintf(p, sizeof p, "%s/run/trace.rank0.csv", t);
    char *o = tl_test_read(p);
    TL_ASSERT(strstr(o, "# format=trilap-trace\n# version=1\n# rank=0\n# nranks=1\n# device=0\n"));
    TL_ASSERT(strstr(o, "# source=nsys-sqlite\n"));
    /* NCCL's one-rank reduce launched inside ncclAllReduce ranges: 35 of 35 agree */
    TL_ASSERT(strstr(o, "# nccl_nvtx_ops=35\n# nccl_nvtx_named=35\n# nccl_nvtx_disagree=0\n"));
    /* NCCL's NVTX ranges, the program's own (default domain) ranges, kept mangled kernel names */
    TL_ASSERT(strstr(o, ",host,range,nvtx,NCCL:ncclAllReduce,"));
    TL_ASSERT(strstr(o, ",host,range,nvtx,step 3,"));
    TL_ASSERT(strstr(o, ",kernel,_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE,"));
    TL_ASSERT(strstr(o, ",compute,sync,sync,cudaStreamWaitEvent,"));
    TL_ASSERT(strstr(o, ",other,sync,sync,cudaEventSynchronize,"));
    free(o);
}

/* import --iter-nvtx: the imported trace carries the iterations the
 * program's NVTX ranges give (before: import took no --iter-nvtx, and the
 * imported PyTorch export marked no iterations, its steps lost): its
 * per-iteration rows are the export's read with the option, row for row */
TL_TEST(import_iter_nvtx)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import --iter-nvtx step %s -o %s/run > /dev/null", tl_test_bin(),
                            FIXTURE, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("grep -qx '# iter_nvtx=step' %s/run/trace.rank0.csv", t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap --per-iter --iter-csv %s/a.csv %s/run > /dev/null && "
                            "%s/trilap-analyze overlap --per-iter --iter-nvtx step --iter-csv %s/b.csv %s > /dev/null "
                            "&& cmp %s/a.csv %s/b.csv",
                            tl_test_bin(), t, t, tl_test_bin(), t, FIXTURE, t, t),
                 0);
    char p[512];
    snprintf(p, sizeof p, "%s/a.csv", t);
    TL_ASSERT_EQ(tl_test_sh("test $(grep -c '^0,' %s) -eq 35", p), 0);
    /* the per-iteration tables alike but for the input named */
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap --per-iter %s/run | grep -v '^# input:' > %s/a.txt && "
                            "%s/trilap-analyze overlap --per-iter --iter-nvtx step %s | grep -v '^# input:' > "
                            "%s/b.txt && cmp %s/a.txt %s/b.txt",
                            tl_test_bin(), t, t, tl_test_bin(), FIXTURE, t, t, t),
                 0);
    /* a name the export has no ranges of: refused before anything is written */
    tl_test_refused(2, "--iter-nvtx train_step: no NVTX range is named train_step",
                    "%s/trilap-analyze import --iter-nvtx train_step %s -o %s/run2", tl_test_bin(), FIXTURE, t);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/run2", t), 0);
}

/* Every refusal for an export that marks no iterations names the ranges
 * that look like steps and the option that takes them (before, timeline's
 * --count said only "it marks no iterations (iter -1 everywhere), so the
 * timeline is its whole window"): one line each, nothing written */
TL_TEST(no_iterations_refusals_name_the_steps)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    static const struct {
        const char *cmd, *want;
        int rc;
    } cases[] = {
        {"timeline --count 3 %s -o %s/t.csv", "--count does not apply to %s: it marks no iterations (iter -1 "
                                              "everywhere), so the timeline is its whole window", 2},
        {"overlap --per-iter %s", "--per-iter does not apply to %s: it marks no iterations (iter -1 everywhere), so "
                                  "there is no iteration to report; the main table covers its whole window", 2},
        {"overlap %s --iter-csv %s/i.csv", "--iter-csv does not apply to %s: it marks no iterations", 2},
        {"overlap %s --iter-range 1:3", "%s#0: no GPU activity in iterations 1:3 (the trace marks no trilap iterations", 1},
        {"collectives %s --iter-range 1:3", "%s: no NCCL kernel launched in iterations 1:3 (the trace marks no "
                                            "trilap iterations", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cmd[512], want[512];
        snprintf(cmd, sizeof cmd, cases[k].cmd, FIXTURE, t);
        snprintf(want, sizeof want, cases[k].want, FIXTURE);
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s", tl_test_bin(), cmd);
        TL_ASSERT_MSG(r.rc == cases[k].rc && !r.out[0] && tl_test_one_line(r.err, want) &&
                          strstr(r.err, "; it has 35 NVTX ranges 'step N': give --iter-nvtx 'step' to take its "
                                        "iterations from them"),
                      "%s: exit %d:\n%s%s", cmd, r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/t.csv && test ! -e %s/i.csv", t, t), 0);
}

/* trilap's NVTX domain under nsys: host ranges named <category>:<text>,
 * iterations from the payload, renumbered per probes session. The plain
 * one-H200 tristream run of results/nsys-h200 (no --trace): 6 variants x
 * (10 warm-up + 100 timed) iterations, 440 ring, DAXPY and allreduce
 * ranges (4 of the 6 variants run each), one send/recv kernel per ring */
TL_TEST(trilap_domain)
{
    need_sqlite_library();
    const char *gz = "results/nsys-h200/tristream-plain.sqlite.gz";
    struct stat sb;
    if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s/tri.sqlite", gz, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s/tri.sqlite -o %s/run > /dev/null", tl_test_bin(), t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -c ',host,range,host,iter,' %s/run/trace.rank0.csv | grep -qx 660", t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q ',host,range,host,iter,[0-9]*,[0-9]*,0,-1,659$' %s/run/trace.rank0.csv", t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -c ',host,range,host,p2p:ring,' %s/run/trace.rank0.csv | grep -qx 440", t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -c ',host,range,host,compute:daxpy,' %s/run/trace.rank0.csv | grep -qx 440", t), 0);
    /* the send/recv kernel's stream inferred p2p, the kernel p2p */
    TL_ASSERT_EQ(tl_test_sh("grep -q ',p2p,p2p,kernel,_Z22ncclDevKernel_SendRecv' %s/run/trace.rank0.csv", t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s/tri.sqlite --iter-range 100:199 > %s/ov.txt", tl_test_bin(), t, t), 0);
    char p[512];
    snprintf(p, sizeof p, "%s/ov.txt", t);
    char *o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "iterations bounded by the host's iter ranges"), "%s", o);
    free(o);
    /* NCCL's NVTX ranges agree with every named kernel: the send/recv
     * kernels launched in ncclGroupEnd after ncclSend + ncclRecv */
    TL_ASSERT_EQ(tl_test_sh("grep -q '^# nccl_nvtx_ops=440$' %s/run/trace.rank0.csv && grep -q '^# nccl_nvtx_named=440$' "
                    "%s/run/trace.rank0.csv && grep -q '^# nccl_nvtx_disagree=0$' %s/run/trace.rank0.csv",
                    t, t, t),
                 0);
    /* TRILAP_LANES overrides the inference */
    TL_ASSERT_EQ(tl_test_sh("TRILAP_LANES=$(grep -m1 ',p2p,p2p,kernel,' %s/run/trace.rank0.csv | cut -d, -f3):coll "
                    "%s/trilap-analyze import %s/tri.sqlite -o %s/run2 > /dev/null",
                    t, tl_test_bin(), t, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q ',coll,p2p,kernel,_Z22ncclDevKernel_SendRecv' %s/run2/trace.rank0.csv", t), 0);
    /* a TRILAP_LANES the injection library refuses is refused here too (an
     * item that was not one was passed over), nothing written */
    tl_test_refused(1, "TRILAP_LANES='7:p2p,,8:coll': an empty item (two commas, or one at an end)",
                    "TRILAP_LANES=7:p2p,,8:coll %s/trilap-analyze import %s/tri.sqlite -o %s/run3", tl_test_bin(), t,
                    t);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/run3", t), 0);
}

/* An --iter-range that selects nothing on an export names what the export
 * has: the iterations of trilap's NVTX domain, or, on one that marks none
 * (PyTorch under nsys), that it marks none and how a program marks them
 * (before: "no GPU activity in iterations 5:10" alone, as if the range
 * were only out of bounds). One line, exit 1, nothing on stdout. */
TL_TEST(iter_range_on_export_says_its_iterations)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    static const char *const cmds[] = {"overlap", "breakdown", "diagnose", "timeline -o %s/t.csv"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, cmds[k], t);
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s %s --iter-range 5:10", tl_test_bin(), cmd, FIXTURE);
        TL_ASSERT_MSG(r.rc == 1 && !r.out[0] &&
                          tl_test_one_line(r.err, "no GPU activity in iterations 5:10") &&
                          strstr(r.err, "(the trace marks no trilap iterations (NVTX ranges iter in the domain "
                                        "trilap); it has 35 NVTX ranges 'step N': give --iter-nvtx 'step' to take its "
                                        "iterations from them)"),
                      "%s: exit %d:\n%s%s", cmd, r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
    const char *gz = "results/nsys-h200/tristream-plain.sqlite.gz";
    struct stat sb;
    if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s/tri.sqlite", gz, t), 0);
    tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s/tri.sqlite --iter-range 5000:6000", tl_test_bin(), t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "tri.sqlite#0: no GPU activity in iterations 5000:6000 (the run "
                                                       "has iterations 0..659)\n"),
                  "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* NVTX-only probes under nsys (tests/data/nsys-tristream-1gpu.sqlite.gz,
 * from results/nsys-h200): one session for every variant, the iteration
 * count restarting for each warm-up and timed loop: 6 x (10 + 100) */
TL_TEST(iterations_restarting)
{
    need_sqlite();
    const char *gz = "tests/data/nsys-tristream-1gpu.sqlite.gz";
    struct stat sb;
    if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s/n.sqlite", gz, t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s/n.sqlite > %s/ov.txt", tl_test_bin(), t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("grep -q 'over 660 iterations' %s/ov.txt", t), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze timeline %s/n.sqlite -o %s/tl.csv > %s/tl.txt && grep -q 'iterations: 328:330' "
                    "%s/tl.txt",
                    tl_test_bin(), t, t, t, t),
                 0);
}

#if TL_HAVE_SQLITE
/* The tables and columns an nsys 2025.3 export has that the reader reads:
 * strings and kernels, and NVTX ranges */
#define NSYS_KERNEL_TABLES                                                                                     \
    "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"                                    \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER," \
    " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,"    \
    " mangledName INTEGER);"
#define NSYS_NVTX_TABLE                                                                                          \
    "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER," \
    " color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,"      \
    " uint64Value INTEGER, int64Value INTEGER);"

#define NSYS_RUNTIME_TABLE                                                                                     \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER," \
    " correlationId INTEGER, nameId INTEGER, returnValue INTEGER);"

static void exec(sqlite3 *db, const char *q)
{
    char *err = NULL;
    TL_ASSERT_MSG(sqlite3_exec(db, q, NULL, NULL, &err) == SQLITE_OK, "%s: %s", q, err ? err : "");
}

/* An export at path made of the statements sql, then more (NULL: none). */
static void write_export(const char *path, const char *sql, const char *more)
{
    sqlite3 *db = NULL;
    TL_ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    exec(db, sql);
    if (more) exec(db, more);
    sqlite3_close(db);
}
#endif

/* Generic NCCL kernels, whose names do not say p2p or coll, take it from
 * NCCL's NVTX range around their launch: an export made here with the
 * tables and columns nsys 2025.3 writes (only those read) */
TL_TEST(generic_kernels_by_nvtx)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/generic.sqlite", t);
    write_export(db_path, NSYS_KERNEL_TABLES NSYS_RUNTIME_TABLE NSYS_NVTX_TABLE
             "INSERT INTO StringIds VALUES (1, '_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE'),"
             " (2, 'ncclDevKernel_Generic_1'), (3, 'cuLaunchKernelEx'), (4, '_Z10my_computev');",
                 /* pid 5 (globalPid 5 << 24), thread 7; NCCL domain 1 */
                 "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES"
             " (0, 0, 75, 'NCCL', 83886087, 1),"
             " (1000, 2000, 59, 'ncclAllReduce', 83886087, 1),"
             " (3000, 3100, 59, 'ncclGroupStart', 83886087, 1), (3200, 3300, 59, 'ncclSend', 83886087, 1),"
             " (3400, 3500, 59, 'ncclRecv', 83886087, 1), (3600, 4000, 59, 'ncclGroupEnd', 83886087, 1),"
             " (5000, 5100, 59, 'ncclGroupStart', 83886087, 1), (5200, 5300, 59, 'ncclSend', 83886087, 1),"
             " (5400, 5500, 59, 'ncclAllReduce', 83886087, 1), (5600, 6000, 59, 'ncclGroupEnd', 83886087, 1);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500, 1600, 1, 83886087, 11, 3, 0),"
             " (3700, 3800, 1, 83886087, 12, 3, 0), (5700, 5800, 1, 83886087, 13, 3, 0), (7000, 7100, 1, 83886087, 14, 3, 0);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 11000, 0, 1, 20, 11, 83886080, 2, 2, 1),"
             " (12000, 13000, 0, 1, 20, 12, 83886080, 2, 2, 1), (14000, 15000, 0, 1, 20, 13, 83886080, 2, 2, 1),"
             " (16000, 17000, 0, 1, 21, 14, 83886080, 4, 4, 4);");
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s/run > %s/out 2>&1", tl_test_bin(), db_path, t, t), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/run/trace.rank0.csv", t);
    char *o = tl_test_read(p);
    /* in ncclAllReduce: coll; after ncclSend + ncclRecv: p2p; a mixed group: the lane decides (coll) */
    TL_ASSERT_MSG(strstr(o, "0,0,20,coll,coll,kernel,_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE,"
                            "10000,11000,11,"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "0,0,20,coll,p2p,kernel,_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE,"
                            "12000,13000,12,"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "0,0,20,coll,coll,kernel,_Z23ncclDevKernel_Generic_124ncclDevKernelArgsStorageILm4096EE,"
                            "14000,15000,13,"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "0,0,21,compute,compute,kernel,_Z10my_computev,16000,17000,14,"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "# nccl_nvtx_ops=2\n# nccl_nvtx_named=0\n# nccl_nvtx_disagree=0\n"), "%s", o);
    TL_ASSERT_MSG(strstr(o, ",host,range,nvtx,NCCL:ncclGroupEnd,3600,4000,"), "%s", o);
    free(o);
#endif
}

/* collectives on an export made here: two processes (ranks), NCCL's
 * domain, 'step N' ranges. Rank 0's all-reduce (launch corr 11 in
 * ncclAllReduce, at 1200) starts at 2000 behind a cudaStreamWaitEvent on its
 * stream ending at 1900; its send/recv (corr 12, in the ncclGroupEnd of a
 * ncclSend + ncclRecv group, at 3500) starts at 4000 behind my_compute, on
 * the stream from 3060. Rank 1's all-reduce starts at 2200, ends at 2600 */
#define COMM_EXPORT                                                                                                \
    NSYS_KERNEL_TABLES NSYS_RUNTIME_TABLE NSYS_NVTX_TABLE                                                          \
    "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, "             \
    "streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER);"                               \
    "INSERT INTO StringIds VALUES (1, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'), (2, 'ncclDevKernel_SendRecv'),"   \
    " (3, 'cudaLaunchKernel'), (4, 'my_compute');"                                                                 \
    "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES"                           \
    " (0, 0, 75, 'NCCL', 83886087, 1), (0, 0, 75, 'NCCL', 100663304, 1),"                                          \
    " (1000, 3000, 59, 'step 0', 83886087, 0), (3000, 6000, 59, 'step 1', 83886087, 0),"                           \
    " (1000, 3000, 59, 'step 0', 100663304, 0),"                                                                   \
    " (1100, 1400, 59, 'ncclAllReduce', 83886087, 1), (1100, 1400, 59, 'ncclAllReduce', 100663304, 1),"            \
    " (3100, 3150, 59, 'ncclGroupStart', 83886087, 1), (3200, 3250, 59, 'ncclSend', 83886087, 1),"                 \
    " (3300, 3350, 59, 'ncclRecv', 83886087, 1), (3400, 3700, 59, 'ncclGroupEnd', 83886087, 1);"                   \
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1200, 1300, 1, 83886087, 11, 3, 0),"                          \
    " (3500, 3600, 1, 83886087, 12, 3, 0), (3000, 3050, 1, 83886087, 13, 3, 0), (1200, 1300, 1, 100663304, 11, 3, 0);" \
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 2500, 0, 1, 21, 11, 83886080, 1, 1, 1),"                 \
    " (4000, 4300, 0, 1, 20, 12, 83886080, 2, 2, 2), (3060, 4000, 0, 1, 20, 13, 83886080, 4, 4, 4),"               \
    " (2200, 2600, 1, 1, 21, 11, 100663296, 1, 1, 1);"                                                             \
    "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1850, 1900, 0, 21, 15, 83886080, 2);"

/* collectives reads an export (before: "collectives reads PyTorch profiler
 * (Kineto) traces ...; this is not one", exit 1): the operation from NCCL's
 * NVTX ranges, the step from --iter-nvtx, process group and sizes `-` (an
 * export has no NCCL payloads), delay and what it waited behind from the
 * launches, the stream and its waits; the ranks on the export's one clock,
 * no offset estimated (Kineto's estimate would put rank 1 0.1 us off), the
 * skew said on it (before: "on the estimated common clock") */
TL_TEST(collectives_export)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/comm.sqlite", t);
    write_export(db_path, COMM_EXPORT, NULL);
    tl_test_output r = tl_test_capture("%s/trilap-analyze collectives %s --iter-nvtx step --csv %s/c.csv", tl_test_bin(),
                                       db_path, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "pg, elems, bytes: - (NCCL's NVTX payloads") &&
                      strstr(r.out, "# clock: rank 1: the export's one session clock, rank 0's: no offset\n") &&
                      strstr(r.out, "together: the kernels overlap on the export's one session clock (") &&
                      strstr(r.out, "# finding: largest arrival skew: ncclAllReduce pg - in step 0 (#0): 0.2 us on "
                                    "the export's one session clock;") &&
                      strstr(r.out, " 0 ncclAllReduce -    0     2      0.2  0.2         1 "),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    char p[700];
    snprintf(p, sizeof p, "%s/c.csv", t);
    char *o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "\n0,0,ncclAllReduce,-,0,,,21,0.8,0.7,0.5,event: cudaStreamWaitEvent\n") &&
                      strstr(o, "\n0,1,ncclSend+ncclRecv,-,0,,,20,0.5,0.5,0.3,stream: my_compute\n") &&
                      strstr(o, "\n1,0,ncclAllReduce,-,0,,,21,1.0,0.0,0.4,launch\n"),
                  "%s", o);
    free(o);
    /* gzipped, it is named as one, as every command names it */
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s > %s.gz", db_path, db_path), 0);
    r = tl_test_capture("%s/trilap-analyze collectives %s.gz", tl_test_bin(), db_path);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "comm.sqlite.gz: an Nsight Systems export compressed with gzip"),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    /* --iter-range by the steps --iter-nvtx takes; without it the export marks none */
    r = tl_test_capture("%s/trilap-analyze collectives %s --iter-nvtx step --iter-range 1:1", tl_test_bin(), db_path);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "\n     0    1 ncclSend+ncclRecv") && strstr(r.out, "# 1 rows"),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-analyze collectives %s --iter-range 1:1", tl_test_bin(), db_path);
    TL_ASSERT_MSG(r.rc == 1 && !r.out[0] &&
                      tl_test_one_line(r.err, "comm.sqlite: no NCCL kernel launched in iterations 1:1 (the trace "
                                              "marks no iterations"),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
#endif
}

/* NCCL kernels in a committed export, counted from the file here */
static int64_t nccl_kernels(const char *db_path)
{
    tl_an_sqlite sq;
    tl_an_sqlite_db *db = NULL;
    tl_an_sqlite_stmt *s = NULL;
    int64_t n = -1;
    TL_ASSERT_OK(tl_an_sqlite_load(&sq, db_path));
    TL_ASSERT_EQ(sq.open_v2(db_path, &db, TL_SQ_OPEN_READONLY, NULL), TL_SQ_OK);
    TL_ASSERT_EQ(sq.prepare_v2(db, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                                   "k.demangledName WHERE s.value LIKE 'nccl%' OR s.value LIKE '%oneRankReduce%'",
                               -1, &s, NULL),
                 TL_SQ_OK);
    if (sq.step(s) == TL_SQ_ROW) n = sq.column_int64(s, 0);
    sq.finalize(s);
    sq.close(db);
    tl_an_sqlite_unload(&sq);
    return n;
}

/* The committed H200 exports: PyTorch's 35 one-rank all-reduces, one per
 * step (--iter-nvtx step, a range 5:34 keeping 30), and tristream's 440
 * send/recv kernels, each launched in a ncclSend + ncclRecv group, in the
 * iterations of trilap's domain; as many rows as NCCL kernels in the file */
TL_TEST(collectives_committed_exports)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    static const struct {
        const char *gz, *opts, *op;
        int64_t rows;
    } cases[] = {
        {"results/foreign-h200/torch.sqlite.gz", "--iter-nvtx step", "ncclAllReduce", 35},
        {"results/foreign-h200/torch.sqlite.gz", "--iter-nvtx step --iter-range 5:34", "ncclAllReduce", 30},
        {"results/nsys-h200/tristream-plain.sqlite.gz", "", "ncclSend+ncclRecv", 440},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct stat sb;
        if (stat(cases[k].gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", cases[k].gz);
        char db[600], want[64];
        snprintf(db, sizeof db, "%s/e%zu.sqlite", t, k);
        TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s", cases[k].gz, db), 0);
        int64_t n = nccl_kernels(db);
        TL_ASSERT_MSG(k == 1 || n == cases[k].rows, "%s: %lld NCCL kernels", cases[k].gz, (long long)n);
        tl_test_output r = tl_test_capture("%s/trilap-analyze collectives %s %s", tl_test_bin(), db, cases[k].opts);
        snprintf(want, sizeof want, "\n# %lld rows\n", (long long)cases[k].rows);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, want), "%s %s: exit %d:\n%.3000s%s", cases[k].gz, cases[k].opts, r.rc,
                      r.out, r.err);
        /* every row the operation NCCL's ranges tell, each step once (torch) */
        size_t ops = 0;
        char row_op[64];
        snprintf(row_op, sizeof row_op, " %s -", cases[k].op);
        for (const char *q = r.out; (q = strstr(q, row_op)); q++) ops++;
        TL_ASSERT_MSG(ops == (size_t)cases[k].rows, "%s: %zu rows of %s", cases[k].gz, ops, cases[k].op);
        if (k == 1) TL_ASSERT_MSG(strstr(r.out, "\n     0    5 ncclAllReduce -    0 ") &&
                                      strstr(r.out, "\n     0   34 ncclAllReduce -    0 "), "%s", r.out);
        tl_test_output_free(&r);
    }
}

/* --iter-nvtx: an export of a program that marks its steps its own way
 * (pid 5, thread 7: globalTid 83886087). Ranges 'step 3'..'step 5' back
 * to back; each launch (corr 11..13) runs its kernel while the host is in
 * the next step, and one launch (corr 14) is outside every step. */
#define STEPS_RUNTIME                                                                                         \
    NSYS_RUNTIME_TABLE                                                                                        \
    "INSERT INTO StringIds VALUES (1, '_Z10my_computev'), (2, 'cudaLaunchKernel');"                            \
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500, 1600, 1, 83886087, 11, 2, 0),"                      \
    " (2500, 2600, 1, 83886087, 12, 2, 0), (3500, 3600, 1, 83886087, 13, 2, 0), (5000, 5050, 1, 83886087, 14, 2, 0);" \
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2100, 2200, 0, 1, 20, 11, 83886080, 1, 1, 1),"             \
    " (3100, 3300, 0, 1, 20, 12, 83886080, 1, 1, 1), (4100, 4400, 0, 1, 20, 13, 83886080, 1, 1, 1),"           \
    " (5100, 5200, 0, 1, 20, 14, 83886080, 1, 1, 1);"

#if TL_HAVE_SQLITE
/* An export at DIR/name made of the kernel, NVTX and launch tables and
 * the rows of sql. */
static void make_steps_export(const char *path, const char *sql)
{
    write_export(path, NSYS_KERNEL_TABLES NSYS_NVTX_TABLE STEPS_RUNTIME, sql);
}
#endif

typedef struct iters_seen {
    int64_t kernel[4]; /* by correlation id 11..14 */
    int64_t host[8];
    size_t nhost;
} iters_seen;

static tl_status see_iters(void *user, const tl_trace_record *r)
{
    iters_seen *s = user;
    if (r->kind == TL_KIND_KERNEL && r->corr >= 11 && r->corr <= 14) s->kernel[r->corr - 11] = r->iter;
    if (r->kind == TL_KIND_HOST && !strcmp(r->name, "iter") && s->nhost < 8) s->host[s->nhost++] = r->iter;
    return TL_OK;
}

/* The step ranges are the iterations, numbered by their text; a kernel
 * takes its launch's (HTA's rule), not the range it runs in; per-iteration
 * rows and --iter-range select by them (before: --iter-nvtx unknown, and
 * the export read as marking no iterations). */
TL_TEST(iter_nvtx_steps)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/steps.sqlite", t);
    make_steps_export(db_path, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                               " (1000, 2000, 59, 'step 3', 83886087), (2000, 3000, 59, 'step 4', 83886087),"
                               " (3000, 4000, 59, 'step 5', 83886087), (1200, 1300, 59, 'forward', 83886087);");
    iters_seen s = {.kernel = {-9, -9, -9, -9}};
    tl_an_meta m;
    TL_ASSERT_OK(tl_an_nsys_scan(db_path, 0, "step", see_iters, &s, &m, NULL));
    TL_ASSERT_MSG(s.nhost == 3 && s.host[0] == 3 && s.host[1] == 4 && s.host[2] == 5, "%zu iterations: %lld %lld %lld",
                  s.nhost, (long long)s.host[0], (long long)s.host[1], (long long)s.host[2]);
    TL_ASSERT_MSG(s.kernel[0] == 3 && s.kernel[1] == 4 && s.kernel[2] == 5 && s.kernel[3] == -1,
                  "kernels' iterations %lld %lld %lld %lld", (long long)s.kernel[0], (long long)s.kernel[1],
                  (long long)s.kernel[2], (long long)s.kernel[3]);
    tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --iter-nvtx step --per-iter", tl_test_bin(), db_path);
    /* slices from each iteration's first GPU start: 3 [2100, 3100), 4 [3100, 4100), 5 [4100, 5200) */
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "over 3 iterations") && strstr(r.out, "\n     0    3 1.0       0.1 ") &&
                      strstr(r.out, "\n     0    4 1.0       0.2 ") && strstr(r.out, "\n     0    5 1.1       0.4 "),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-analyze overlap %s --iter-nvtx step --iter-range 4:4", tl_test_bin(), db_path);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "# iters: 4:4") && strstr(r.out, "\n  0    1.0       0.2 "),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    /* a domain named: the same ranges in it; the default's do not count */
    snprintf(db_path, sizeof db_path, "%s/dom.sqlite", t);
    make_steps_export(db_path, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES"
                               " (0, 0, 75, 'app', 83886087, 2), (1000, 2000, 59, 'iteration', 83886087, 2),"
                               " (2000, 3000, 59, 'iteration', 83886087, 2), (3000, 4000, 59, 'iteration', 83886087, 2),"
                               " (4500, 4600, 59, 'iteration', 83886087, 0);");
    memset(&s, 0, sizeof s);
    TL_ASSERT_OK(tl_an_nsys_scan(db_path, 0, "app:iteration", see_iters, &s, &m, NULL));
    /* no numbers: the ranges' order from 0 */
    TL_ASSERT_MSG(s.nhost == 3 && s.host[0] == 0 && s.host[2] == 2 && s.kernel[1] == 1, "%zu iterations, kernel %lld",
                  s.nhost, (long long)s.kernel[1]);
#endif
}

/* What --iter-nvtx cannot take is refused in one line, exit 2: steps
 * nested on one thread or marked by two threads (naming two ranges'
 * times), a name no range has (naming the export's most frequent), an
 * input that is no export (beside an export, saying how to compare them:
 * import it with the option, a command to paste). */
TL_TEST(iter_nvtx_refused)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    static const struct {
        const char *name, *rows, *spec, *want;
    } cases[] = {
        {"nested", "(1000, 4000, 59, 'step 1', 83886087), (2000, 3000, 59, 'step 2', 83886087)", "step",
         "nested.sqlite: --iter-nvtx step: step ranges 1000..4000 ns and 2000..3000 ns on thread 7 overlap"},
        {"threads", "(1000, 2000, 59, 'step 1', 83886087), (2000, 3000, 59, 'step 2', 83886088)", "step",
         "threads.sqlite: --iter-nvtx step: two threads of process 5 mark steps: thread 7 (1000..2000 ns) and "
         "thread 8 (2000..3000 ns)"},
        {"none", "(1000, 2000, 59, 'fwd', 83886087), (2000, 3000, 59, 'fwd', 83886087), "
                 "(3000, 4000, 59, 'bwd', 83886087)", "train_step",
         "none.sqlite: --iter-nvtx train_step: no NVTX range is named train_step or train_step followed by a number "
         "('fwd' (2), 'bwd' (1))"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char db_path[600], sql[512];
        snprintf(db_path, sizeof db_path, "%s/%s.sqlite", t, cases[k].name);
        snprintf(sql, sizeof sql, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES %s;",
                 cases[k].rows);
        make_steps_export(db_path, sql);
        tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --iter-nvtx %s", tl_test_bin(), db_path,
                                           cases[k].spec);
        TL_ASSERT_MSG(r.rc == 2 && !r.out[0] && tl_test_one_line(r.err, cases[k].want), "%s: exit %d:\n%s%s",
                      cases[k].name, r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/run && touch %s/run/trace.rank0.csv", t, t), 0);
    tl_test_output r = tl_test_capture("%s/trilap-analyze diagnose %s/run --iter-nvtx step", tl_test_bin(), t);
    TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, "--iter-nvtx does not apply to") &&
                      strstr(r.err, "not an Nsight Systems export"),
                  "exit %d:\n%s", r.rc, r.err);
    tl_test_output_free(&r);
    /* compare of a trilap run with an export: the way to compare them,
     * the export's path one shell word as the name is (before: bare, so
     * a path with a blank pasted as two words) */
    TL_ASSERT_EQ(tl_test_sh("mkdir '%s/my exports' && cp %s/none.sqlite '%s/my exports/'", t, t, t), 0);
    r = tl_test_capture("%s/trilap-analyze compare %s/run '%s/my exports/none.sqlite' --iter-nvtx fwd", tl_test_bin(),
                        t, t);
    char want[900];
    snprintf(want, sizeof want, "/none.sqlite's steps with it: trilap-analyze import '%s/my exports/none.sqlite' "
             "--iter-nvtx 'fwd' -o DIR, then give DIR (try --help)", t);
    TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, want), "exit %d (expected '%s'):\n%s", r.rc, want, r.err);
    tl_test_output_free(&r);
#endif
}

/* The committed PyTorch export (`step {i}` ranges: a warm-up of 5, then
 * 30 timed, each loop from 0): 35 iterations, numbered on after the
 * warm-up as a loop run again is, per-iteration rows and a selection */
TL_TEST(iter_nvtx_torch)
{
    need_sqlite_library();
    iters_seen s = {0};
    tl_an_meta m;
    TL_ASSERT_OK(tl_an_nsys_scan(FIXTURE, 0, "step", see_iters, &s, &m, NULL));
    /* without the option --per-iter is refused, naming the ranges to give */
    tl_test_output r0 = tl_test_capture("%s/trilap-analyze overlap %s --per-iter", tl_test_bin(), FIXTURE);
    TL_ASSERT_MSG(r0.rc == 2 && tl_test_one_line(r0.err, "it has 35 NVTX ranges 'step N': give --iter-nvtx 'step' to "
                                                          "take its iterations from them"),
                  "exit %d:\n%s", r0.rc, r0.err);
    tl_test_output_free(&r0);
    TL_ASSERT_MSG(s.nhost == 8 && s.host[4] == 4 && s.host[5] == 0 && s.host[7] == 2, "%zu: %lld %lld", s.nhost,
                  (long long)s.host[4], (long long)s.host[5]);
    tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --iter-nvtx step --per-iter", tl_test_bin(), FIXTURE);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "over 35 iterations") && strstr(r.out, "\n     0   34 ") &&
                      !strstr(r.out, "\n     0   35 ") && strstr(r.out, "\n     0    0 460906.7 "),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("%s/trilap-analyze diagnose %s --iter-nvtx step --iter-range 5:34", tl_test_bin(), FIXTURE);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "# rank 0: window 19770.1 us, 30 iterations;"), "exit %d:\n%s%s", r.rc,
                  r.out, r.err);
    tl_test_output_free(&r);
    /* a refusal names the export's rank as FILE#R, not with the option its
     * name carries for the reader (before: "FILE#0#iter-nvtx=step: ...") */
    char want[600];
    snprintf(want, sizeof want, "%s#0: no GPU activity in iterations 900:901 (the run has iterations 0..34)", FIXTURE);
    tl_test_refused(1, want, "%s/trilap-analyze diagnose %s --iter-nvtx step --iter-range 900:901", tl_test_bin(),
                    FIXTURE);
}

/* The hint of an export without iterations names the loop that looks
 * like the steps, not the most frequent numbered name: 3 `step N` around
 * 4 `layer N` each (before: "it has 12 NVTX ranges 'layer N': give
 * --iter-nvtx 'layer'", each layer an iteration), and without a step or
 * iter name the ranges that cover the most time (`batch`, not `layer`);
 * the name to give is one shell word */
TL_TEST(steps_hint_names_the_outer_loop)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    static const char *const outer[][2] = {
        {"step", "it has 3 NVTX ranges 'step N': give --iter-nvtx 'step'"},
        {"batch", "it has 3 NVTX ranges 'batch N': give --iter-nvtx 'batch'"},
        /* the name as one shell word (before: 'it's step') */
        {"it''s step", "it has 3 NVTX ranges 'it's step N': give --iter-nvtx 'it'\\''s step' to take"}};
    for (size_t k = 0; k < 3; k++) {
        char db_path[600], sql[2048];
        size_t at = (size_t)snprintf(sql, sizeof sql, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, "
                                                      "globalTid) VALUES (1000, 1000, 59, 'x', 83886087)");
        for (int i = 0; i < 3; i++) {
            at += (size_t)snprintf(sql + at, sizeof sql - at, ", (%d, %d, 59, '%s %d', 83886087)", 1000 + i * 1000,
                                   1900 + i * 1000, outer[k][0], i);
            for (int j = 0; j < 4; j++)
                at += (size_t)snprintf(sql + at, sizeof sql - at, ", (%d, %d, 59, 'layer %d', 83886087)",
                                       1010 + i * 1000 + j * 200, 1100 + i * 1000 + j * 200, j);
        }
        snprintf(sql + at, sizeof sql - at, ";");
        snprintf(db_path, sizeof db_path, "%s/hint%zu.sqlite", t, k);
        make_steps_export(db_path, sql);
        tl_test_output r = tl_test_capture("%s/trilap-analyze overlap %s --per-iter", tl_test_bin(), db_path);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, outer[k][1]), "%s: exit %d:\n%s", outer[k][0], r.rc,
                      r.err);
        tl_test_output_free(&r);
    }
#endif
}

/* Start/end ranges (eventType 60) are the process's: steps started on
 * alternate threads (a worker pool) are its iterations (before: "two
 * threads of process 5 mark steps", exit 2); overlapping ones are still
 * refused */
TL_TEST(iter_nvtx_start_end_ranges_of_any_thread)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/se.sqlite", t);
    make_steps_export(db_path, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, endGlobalTid) VALUES"
                               " (1000, 2000, 60, 'step 3', 83886087, 83886088),"
                               " (2000, 3000, 60, 'step 4', 83886088, 83886087),"
                               " (3000, 4000, 60, 'step 5', 83886087, 83886087);");
    iters_seen s = {.kernel = {-9, -9, -9, -9}};
    tl_an_meta m;
    TL_ASSERT_OK(tl_an_nsys_scan(db_path, 0, "step", see_iters, &s, &m, NULL));
    TL_ASSERT_MSG(s.nhost == 3 && s.host[0] == 3 && s.host[1] == 4 && s.host[2] == 5 && s.kernel[1] == 4,
                  "%zu iterations: %lld %lld, kernel %lld", s.nhost, (long long)s.host[0], (long long)s.host[1],
                  (long long)s.kernel[1]);
    snprintf(db_path, sizeof db_path, "%s/se-overlap.sqlite", t);
    make_steps_export(
        db_path, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                 " (1000, 2500, 60, 'step 3', 83886087), (2000, 3000, 60, 'step 4', 83886088);");
    tl_test_refused(2, "se-overlap.sqlite: --iter-nvtx step: step ranges 1000..2500 ns and 2000..3000 ns on thread 7 "
                       "overlap",
                    "%s/trilap-analyze overlap %s --iter-nvtx step", tl_test_bin(), db_path);
#endif
}

/* Ranks as threads of one process (pid 5: threads 7 and 8 announce
 * trilap ranks 0 and 1; thread 9 is none). Rank 0 launches corr 11 at
 * 1500, rank 1 corr 12 at 3050. */
#define THREAD_RANKS_EXPORT                                                                                      \
    NSYS_KERNEL_TABLES NSYS_NVTX_TABLE NSYS_RUNTIME_TABLE                                                        \
    "INSERT INTO StringIds VALUES (1, '_Z10my_computev'), (2, 'cudaLaunchKernel');"                              \
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1500, 1600, 1, 83886087, 11, 2, 0),"                        \
    " (3050, 3090, 1, 83886088, 12, 2, 0);"                                                                      \
    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000, 2100, 0, 1, 20, 11, 83886080, 1, 1, 1),"               \
    " (3200, 3300, 1, 2, 20, 12, 83886080, 1, 1, 1);"                                                            \
    "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, int64Value) VALUES"             \
    " (0, 0, 75, 'trilap', 83886087, 3, NULL), (10, NULL, 34, 'rank', 83886087, 3, 0),"                          \
    " (10, NULL, 34, 'rank', 83886088, 3, 1);"

/* Start/end step ranges started on a thread that is no rank (a main
 * thread driving thread-ranks) are every thread-rank's steps (before:
 * neither rank had an iteration, the query kept its own thread's);
 * a rank's own start/end ranges stay its own, not the other rank's */
TL_TEST(iter_nvtx_start_end_ranges_of_thread_ranks)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    static const struct {
        const char *name, *steps;
        int64_t k11, k12; /* rank 0's launch's iteration, rank 1's */
    } cases[] = {
        {"main", "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                 " (1000, 3000, 60, 'step 0', 83886089), (3000, 6000, 60, 'step 1', 83886089);", 0, 1},
        {"own", "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                " (1000, 3000, 60, 'step 0', 83886087), (3000, 6000, 60, 'step 1', 83886087),"
                " (1100, 3100, 60, 'step 0', 83886088), (3100, 6100, 60, 'step 1', 83886088);", 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char db_path[600];
        snprintf(db_path, sizeof db_path, "%s/%s.sqlite", t, cases[c].name);
        write_export(db_path, THREAD_RANKS_EXPORT, cases[c].steps);
        int nr = 0;
        TL_ASSERT_OK(tl_an_nsys_ranks(db_path, &nr));
        TL_ASSERT_EQ(nr, 2);
        iters_seen s[2] = {{.kernel = {-9, -9, -9, -9}}, {.kernel = {-9, -9, -9, -9}}};
        tl_an_meta m;
        for (int r = 0; r < 2; r++) TL_ASSERT_OK(tl_an_nsys_scan(db_path, r, "step", see_iters, &s[r], &m, NULL));
        TL_ASSERT_MSG(s[0].nhost == 2 && s[1].nhost == 2 && s[0].kernel[0] == cases[c].k11 &&
                          s[1].kernel[1] == cases[c].k12,
                      "%s: %zu and %zu iterations; rank 0's launch in %lld, rank 1's in %lld", cases[c].name,
                      s[0].nhost, s[1].nhost, (long long)s[0].kernel[0], (long long)s[1].kernel[1]);
    }
#endif
}

/* An export without an NCCL kernel (one GPU, no NCCL) has nothing for
 * collectives: one line with its kernel count, exit 1 (before: "# 0
 * rows", exit 0): one made here, and the committed CuPy export */
TL_TEST(collectives_without_nccl_refused)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/one-gpu.sqlite", t);
    make_steps_export(db_path, NULL);
    tl_test_output r = tl_test_capture("%s/trilap-analyze collectives %s", tl_test_bin(), db_path);
    TL_ASSERT_MSG(r.rc == 1 && !r.out[0] && tl_test_one_line(r.err, "one-gpu.sqlite: no NCCL kernel: the trace has 4 "
                                                                    "kernels on 1 rank, none of them NCCL's; "
                                                                    "collectives reads NCCL kernels"),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    const char *gz = "results/foreign-h200/cupy.sqlite.gz";
    struct stat sb;
    if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s > %s/cupy.sqlite", gz, t), 0);
    TL_ASSERT_EQ(tl_test_sh("awk -F, 'h { n += $3 } /^Time [(]%%[)]/ { h = 1 } END { print n }' "
                            "results/foreign-h200/cupy.kern_sum.csv > %s/n", t),
                 0);
    char p[700], want[200];
    snprintf(p, sizeof p, "%s/n", t);
    char *n = tl_test_read(p);
    n[strcspn(n, "\n")] = '\0';
    snprintf(want, sizeof want, "cupy.sqlite: no NCCL kernel: the trace has %s kernels on 1 rank", n);
    r = tl_test_capture("%s/trilap-analyze collectives %s/cupy.sqlite", tl_test_bin(), t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "exit %d (expected '%s'):\n%s%s", r.rc, want, r.out,
                  r.err);
    tl_test_output_free(&r);
    free(n);
#endif
}

/* Steps whose GPU work was all launched outside them (the steps end
 * before any kernel starts): an --iter-range of them selects none
 * of the window, refused as a range without activity (before: overlap
 * and diagnose "window end 300 before start 2100", breakdown "# 0 rows",
 * exit 0) */
TL_TEST(iter_range_of_steps_without_gpu_work)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/early.sqlite", t);
    make_steps_export(db_path, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
                               " (100, 200, 59, 'step 0', 83886087), (200, 300, 59, 'step 1', 83886087),"
                               " (300, 400, 59, 'step 2', 83886087);");
    static const char *const cmds[][2] = {
        {"overlap", "early.sqlite#0: no GPU activity in iterations 0:1 (the run has iterations 0..2)"},
        {"diagnose", "early.sqlite#0: no GPU activity in iterations 0:1 (the run has iterations 0..2)"},
        {"breakdown", "early.sqlite: no GPU activity in iterations 0:1 on its rank (the run has iterations 0..2)"}};
    for (size_t k = 0; k < 3; k++) {
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s %s --iter-nvtx step --iter-range 0:1", tl_test_bin(),
                                           cmds[k][0], db_path);
        TL_ASSERT_MSG(r.rc == 1 && !r.out[0] && tl_test_one_line(r.err, cmds[k][1]), "%s: exit %d:\n%s%s",
                      cmds[k][0], r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
#endif
}

TL_TEST(bad_inputs)
{
    const char *t = tl_test_tmpdir();
    /* a file that is not SQLite, a folder with no traces: one line naming it */
    TL_ASSERT_EQ(tl_test_sh("echo hello > %s/x.sqlite; %s/trilap-analyze import %s/x.sqlite -o %s/o 2> %s/err", t, tl_test_bin(), t,
                    t, t),
                 1);
    char p[512];
    snprintf(p, sizeof p, "%s/err", t);
    char *o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "x.sqlite: not an SQLite file"), "%s", o);
    free(o);
    need_sqlite_library();
    TL_ASSERT_EQ(tl_test_sh("sqlite3 %s/empty.sqlite 'CREATE TABLE t(a)' 2>/dev/null || "
                    "python3 -c \"import sqlite3; sqlite3.connect('%s/empty.sqlite').execute('CREATE TABLE t(a)')\"",
                    t, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s/empty.sqlite 2> %s/err", tl_test_bin(), t, t), 1);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "empty.sqlite: no CUDA activity tables"), "%s", o);
    free(o);
    /* nothing half-written */
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/o/trace.rank0.csv", t), 0);
    /* a folder with another run's rank 3: refused, nothing written */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/stale && touch %s/stale/trace.rank3.csv && %s/trilap-analyze import %s -o %s/stale "
                    "2> %s/err",
                    t, t, tl_test_bin(), FIXTURE, t, t),
                 1);
    o = tl_test_read(p);
    TL_ASSERT_MSG(strstr(o, "stale: holds trace.rank3.csv, a rank the export (1 rank) does not have"), "%s", o);
    free(o);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/stale/trace.rank0.csv", t), 0);
}

/* An export compressed with gzip (results/ keeps them so) is named for
 * what it is, with what to do, in every command that takes an export. */
TL_TEST(gzip_export_named)
{
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") != 0) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    char gz[600];
    snprintf(gz, sizeof gz, "%s/rep.sqlite.gz", t);
    TL_ASSERT_EQ(tl_test_sh("gzip -c %s > %s", FIXTURE, gz), 0);
    static const char *const cmds[] = {"overlap %s", "diagnose %s", "import %s -o %s/imp", "compare %s %s"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char args[1400], *out = NULL, *err = NULL, cmd[1600];
        snprintf(args, sizeof args, cmds[k], gz, k == 2 ? t : FIXTURE); /* compare refuses one file twice */
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze %s", tl_test_bin(), args);
        TL_ASSERT_EQ(tl_test_run(cmd, &out, &err), 1);
        const char *nl = strchr(err, '\n');
        TL_ASSERT_MSG(strstr(err, "rep.sqlite.gz: an Nsight Systems export compressed with gzip") &&
                          strstr(err, "gunzip -c") && strstr(err, "> PLAIN.sqlite") && nl && !nl[1] && !out[0],
                      "%s:\n%s%s", cmd, out, err);
        free(out);
        free(err);
    }
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/imp", t), 0);
}

/* An export in WAL mode (a file another tool opened and kept in that mode)
 * is read where it lies: nothing written beside it (no -shm or -wal), and
 * the same breakdown as the same export in rollback mode. A log that holds
 * pages is read too (the plain read-only open). */
TL_TEST(wal_export_read_in_place)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char w[512], side[600];
    snprintf(w, sizeof w, "%s/a b%%?w.sqlite", t); /* characters a URI escapes */
    TL_ASSERT_EQ(tl_test_sh("cp %s '%s'", FIXTURE, w), 0);
    sqlite3 *db = NULL;
    TL_ASSERT_EQ(sqlite3_open(w, &db), SQLITE_OK);
    TL_ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL), SQLITE_OK);
    TL_ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
    TL_ASSERT_EQ(tl_test_sh("test ! -e '%s-wal' && test ! -e '%s-shm'", w, w), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown --csv %s/wal.csv '%s' > /dev/null", tl_test_bin(), t, w), 0);
    snprintf(side, sizeof side, "%s-shm", w);
    struct stat st;
    TL_ASSERT_MSG(stat(side, &st) != 0, "%s written beside the export", side);
    snprintf(side, sizeof side, "%s-wal", w);
    TL_ASSERT_MSG(stat(side, &st) != 0, "%s written beside the export", side);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown --csv %s/plain.csv %s > /dev/null", tl_test_bin(), t, FIXTURE), 0);
    /* the same rows but for the run's name */
    TL_ASSERT_EQ(tl_test_sh("cut -d, -f2- %s/wal.csv > %s/w2 && cut -d, -f2- %s/plain.csv > %s/p2 && cmp %s/w2 %s/p2",
                            t, t, t, t, t, t),
                 0);
    /* a log with pages: a row added there and not checkpointed is read */
    TL_ASSERT_EQ(sqlite3_open(w, &db), SQLITE_OK);
    TL_ASSERT_EQ(sqlite3_exec(db, "PRAGMA wal_autocheckpoint=0; INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT * FROM "
                                  "CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    TL_ASSERT_EQ(tl_test_sh("cp '%s' %s/l.sqlite && cp '%s-wal' %s/l.sqlite-wal", w, t, w, t), 0);
    TL_ASSERT_EQ(sqlite3_close(db), SQLITE_OK);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown --csv %s/log.csv %s/l.sqlite > /dev/null", tl_test_bin(), t, t), 0);
    TL_ASSERT_EQ(tl_test_sh("cut -d, -f2- %s/log.csv > %s/l2 && ! cmp -s %s/l2 %s/p2", t, t, t, t), 0);
#endif
}

/* A GPU row of no process (globalPid NULL or text) is refused naming the
 * column: before, it made an empty rank 0 of its own ("# rank: 0 device
 * -1") and its rows were dropped by every per-process query. */
TL_TEST(gpu_row_without_process)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    static const char *const pid[][2] = {{"NULL", "globalPid NULL: not a process id"},
                                         {"'abc'", "globalPid 'abc': not a process id"}};
    for (size_t k = 0; k < 2; k++) {
        char db_path[600], q[600];
        snprintf(db_path, sizeof db_path, "%s/nopid%zu.sqlite", t, k);
        sqlite3 *db = NULL;
        TL_ASSERT_EQ(sqlite3_open(db_path, &db), SQLITE_OK);
        exec(db, NSYS_KERNEL_TABLES
                 "INSERT INTO StringIds VALUES (1, '_Z10my_computev');"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 7, 1, 83886080, 1, 1, 1);");
        snprintf(q, sizeof q, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3000, 4000, 0, 1, 7, 2, %s, 1, 1, 1);",
                 pid[k][0]);
        exec(db, q);
        sqlite3_close(db);
        char cmd[1400];
        tl_test_output o;
        snprintf(cmd, sizeof cmd, "%s/trilap-analyze overlap %s", tl_test_bin(), db_path);
        o = tl_test_capture("%s", cmd);
        TL_ASSERT_MSG(o.rc == 1 && tl_test_one_line(o.err, pid[k][1]) && strstr(o.err, db_path), "rc %d: %s%s", o.rc,
                      o.err, o.out);
        tl_test_output_free(&o);
    }
#endif
}

/* A name that is not UTF-8 is refused naming the row: before, read, and
 * import wrote a trace its own reader refuses ("name is not valid
 * UTF-8"). */
TL_TEST(name_not_utf8)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600];
    snprintf(db_path, sizeof db_path, "%s/utf8.sqlite", t);
    sqlite3 *db = NULL;
    TL_ASSERT_EQ(sqlite3_open(db_path, &db), SQLITE_OK);
    exec(db, NSYS_KERNEL_TABLES
             "INSERT INTO StringIds VALUES (1, CAST(X'67656d6dff' AS TEXT));"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 7, 1, 83886080, 1, 1, 1);");
    sqlite3_close(db);
    tl_test_output o = tl_test_capture("%s/trilap-analyze import %s -o %s/run", tl_test_bin(), db_path, t);
    TL_ASSERT_MSG(o.rc == 1 &&
                      tl_test_one_line(o.err, "utf8.sqlite: Nsight Systems export: CUPTI_ACTIVITY_KIND_KERNEL row 1: its "
                                              "name is not valid UTF-8 (byte 0xff at offset 4)"),
                  "rc %d: %s%s", o.rc, o.err, o.out);
    tl_test_output_free(&o);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/run", t), 0);
#endif
}

/* An NVTX range name longer than the reader's name buffer, in two-byte
 * characters, is cut at a character: what import writes reads back
 * (before: cut inside one, "name is not valid UTF-8" on reading it). */
TL_TEST(long_nvtx_name_cut_at_a_character)
{
    need_sqlite();
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db_path[600], q[2400];
    snprintf(db_path, sizeof db_path, "%s/nvtx.sqlite", t);
    sqlite3 *db = NULL;
    TL_ASSERT_EQ(sqlite3_open(db_path, &db), SQLITE_OK);
    exec(db, NSYS_KERNEL_TABLES
             NSYS_NVTX_TABLE
             "INSERT INTO StringIds VALUES (1, '_Z10my_computev');"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 7, 1, 83886080, 1, 1, 1);");
    int n = snprintf(q, sizeof q, "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId) VALUES "
                                  "(900, 2500, 59, '");
    for (int k = 0; k < 700; k++) n += snprintf(q + n, sizeof q - (size_t)n, "\xc3\xa9");
    snprintf(q + n, sizeof q - (size_t)n, "', 83886087, 0);");
    exec(db, q);
    sqlite3_close(db);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze import %s -o %s/run > /dev/null", tl_test_bin(), db_path, t), 0);
    tl_test_output o = tl_test_capture("%s/trilap-analyze overlap %s/run", tl_test_bin(), t);
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    tl_test_output_free(&o);
    TL_ASSERT_EQ(tl_test_sh("grep -q ',nvtx,\xc3\xa9\xc3\xa9' %s/run/trace.rank0.csv", t), 0);
#endif
}

/* The reader loads SQLite at run time, so trilap-analyze builds and reads
 * exports where libsqlite3-dev is missing (a GPU node, session35's first
 * hour); a library that cannot load, or lacks a function, is named in one
 * line, exit 1, nothing written. */
TL_TEST(sqlite_loaded_at_run_time)
{
    need_sqlite_library();
    const char *t = tl_test_tmpdir();
    TL_ASSERT_MSG(tl_test_sh("ldd %s/trilap-analyze | grep -q libsqlite3", tl_test_bin()) != 0,
                  "trilap-analyze links libsqlite3: built without libsqlite3-dev, it would have no reader");
    static const char *const cases[][3] = {
        /* a file that is no library, under both names dlopen tries */
        {"echo junk > %s/lib/libsqlite3.so.0 && echo junk > %s/lib/libsqlite3.so", "needs SQLite 3's library (",
         "install libsqlite3-0 (Debian, Ubuntu) or sqlite-libs (RHEL)"},
        /* a library without SQLite's functions */
        {"cp \"$(ldd /bin/sh | awk '/libc.so/ {print $3}')\" %s/lib/libsqlite3.so.0 && cp %s/lib/libsqlite3.so.0 "
         "%s/lib/libsqlite3.so",
         "the SQLite library found lacks sqlite3_open_v2", "SQLite 3.6 or newer"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(tl_test_sh("rm -rf %s/lib %s/o && mkdir %s/lib", t, t, t), 0);
        char setup[1024], cmd[1400], *out = NULL, *err = NULL;
        snprintf(setup, sizeof setup, cases[k][0], t, t, t);
        TL_ASSERT_EQ(tl_test_sh("%s", setup), 0);
        snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH=%s/lib %s/trilap-analyze import %s -o %s/o", t, tl_test_bin(), FIXTURE,
                 t);
        TL_ASSERT_MSG(tl_test_run(cmd, &out, &err) == 1, "%s: not refused:\n%s", cmd, err);
        TL_ASSERT_MSG(tl_test_one_line(err, cases[k][1]) && strstr(err, cases[k][2]) && strstr(err, FIXTURE) && !out[0],
                      "%s: not one line saying '%s':\n%s", cmd, cases[k][1], err);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/o", t), 0);
        free(out);
        free(err);
    }
}

TL_TEST_MAIN(queued_not_measured_said, iter_range_of_steps_without_gpu_work, steps_hint_names_the_outer_loop, iter_nvtx_start_end_ranges_of_any_thread, iter_nvtx_start_end_ranges_of_thread_ranks, import_iter_nvtx, collectives_export, collectives_without_nccl_refused, collectives_committed_exports, no_iterations_refusals_name_the_steps, iter_nvtx_steps, iter_nvtx_refused, iter_nvtx_torch, kern_sum_fixture, sqlite_loaded_at_run_time, kern_sum_h200_exports, commands_on_export, import_round_trip, trilap_domain, gzip_export_named,
             iterations_restarting, generic_kernels_by_nvtx, bad_inputs, wal_export_read_in_place,
             progress_and_clock_flags_on_export, gpu_row_without_process, name_not_utf8,
             long_nvtx_name_cut_at_a_character, iter_range_on_export_says_its_iterations)
