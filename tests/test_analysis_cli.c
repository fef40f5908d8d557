/* trilap-analyze end to end: hand-made traces with known metrics, diagnosis
 * of synthetic three-naive vs three-split runs (and the committed H200
 * traces when present), reader robustness, Perfetto nesting, streaming of a
 * ~200 MB trace in bounded memory. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"
#include "tl_test_run.h"

#include "runtime/results.h" /* tl_results_split: the CSV rows read back */

/* Runs a shell command with stdout/stderr into dir/out, dir/err; exit code. */
static int sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(const char *dir, const char *fmt, ...)
{
    char cmd[6000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return tl_test_sh("( %s ) >%s/out 2>%s/err", cmd, dir, dir);
}

static char *out_of(const char *dir, const char *which)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, which);
    return tl_test_read(p);
}

/* The analyze command `args` refused: exit rc, one line on stderr holding
 * `want`, and nothing printed: its stdout is sent to stderr as well, where
 * anything printed before the refusal makes more than one line. */
static void refused(int rc, const char *args, const char *want)
{
    tl_test_refused(rc, want, "(%s/trilap-analyze %s >&2)", tl_test_bin(), args);
}

static const char *META = "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=%d\n# device=%d\n"
                          "# window_start_ns=0\n# window_end_ns=100000\n# complete=yes\n"
                          "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n";

/* rank `rank` of a run of `nranks` */
static void trace_of(const char *dir, int rank, int nranks, const char *rows)
{
    char path[1024], head[1024];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, rank);
    snprintf(head, sizeof head, META, rank, nranks, rank);
    FILE *f = fopen(path, "w");
    if (!f) TL_TEST_FAIL_("cannot write %s", path);
    fputs(head, f);
    fputs(rows, f);
    fclose(f);
}

/* rank `rank` of a two-rank run */
static void trace(const char *dir, int rank, const char *rows)
{
    trace_of(dir, rank, 2, rows);
}

/* Column `col` over the CSV rows whose first field is `key`: their sum,
 * and how many there were (*n). */
static double csv_sum_n(const char *csv, const char *key, const char *col, int *n)
{
    char *dup = strdup(csv), *save = NULL;
    char *line = strtok_r(dup, "\n", &save);
    int ci = -1, i = 0;
    for (char *p = line, *f; (f = strsep(&p, ",")); i++)
        if (!strcmp(f, col)) ci = i;
    if (ci < 0) TL_TEST_FAIL_("no column %s", col);
    double sum = 0;
    *n = 0;
    while ((line = strtok_r(NULL, "\n", &save))) {
        char *p = line, *f = strsep(&p, ",");
        if (strcmp(f, key)) continue;
        for (i = 1; (f = strsep(&p, ",")); i++)
            if (i == ci) sum += atof(f), (*n)++;
    }
    free(dup);
    return sum;
}

/* Value of column `col` in the CSV row whose first field is `key`. */
static double csv_get(const char *csv, const char *key, const char *col)
{
    int n;
    double v = csv_sum_n(csv, key, col, &n);
    if (n != 1) TL_TEST_FAIL_("%d rows %s", n, key);
    return v;
}

TL_TEST(overlap_known_values)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    /* rank 0: compute [0,40]+[30,60] us, p2p [50,80], coll [70,90], window 100 us
     * rank 1: compute [0,50], p2p [10,20], coll [12,18] (nested), memcpy [60,70] */
    trace(run, 0,
          "0,0,1,compute,compute,kernel,k_a,0,40000,1,-1,0\n"
          "0,0,1,compute,compute,kernel,k_b,30000,60000,2,-1,0\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,50000,80000,3,1000,1\n"
          "0,0,3,coll,coll,kernel,\"ncclDevKernel_AllReduce_Sum_f64, RING\",70000,90000,4,16,1\n"
          "0,-1,0,host,range,host,iteration,0,1000,5,-1,0\n");
    trace(run, 1,
          "1,1,1,compute,compute,kernel,k_a,0,50000,1,-1,0\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,10000,20000,3,1000,0\n"
          "1,1,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,12000,18000,4,16,0\n"
          "1,1,4,copy,memcpy,memcpy,memcpy DtoH,60000,70000,5,4096,1\n");
    snprintf(csv, sizeof csv, "%s/ov.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --csv %s", tl_test_bin(), run, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "W_us"), 100, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_compute_us"), 60, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_comm_us"), 40, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "hidden_pct"), 25, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "comm_comm_pct"), 50, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "triple_pct"), 0, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "derived_comm_us"), 30, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "idle_us"), 10, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "hidden_pct"), 100, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "comm_comm_pct"), 100, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "triple_pct"), 6, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "idle_us"), 40, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "derived_comm_us"), 50, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "max", "idle_us"), 40, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "mean", "idle_us"), 25, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "mean", "triple_pct"), 3, 1e-9);
    char *o = out_of(t, "out");
    TL_ASSERT(strstr(o, "# table: reconciliation"));
    TL_ASSERT(strstr(o, "residual"));
    /* every residual of the reconciliation is zero */
    for (char *p = strstr(o, "# table: reconciliation"); (p = strchr(p, '\n'));) {
        p++;
        if (*p == '#' || !*p) continue;
        char *nl = strchr(p, '\n');
        char *last = nl;
        while (last > p && last[-1] != ' ') last--;
        if (nl - p > 20) TL_ASSERT_MSG(atof(last) == 0.0, "residual %.*s", (int)(nl - last), last);
        if (strncmp(nl + 1, "# 4 rows", 8) == 0) break;
    }
    free(c);
    free(o);
}

TL_TEST(breakdown_categories_and_bandwidth)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600], stack[600];
    snprintf(run, sizeof run, "%s/three-split", t);
    trace(run, 0,
          "0,0,1,compute,compute,kernel,tl_daxpy_kernel,0,10000,1,100000,0\n"
          "0,0,1,compute,compute,kernel,tl_daxpy_kernel,20000,50000,2,100000,1\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,0,5000,3,-1,0\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,25000,27000,4,-1,-1\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,tl_daxpy_kernel,0,20000,1,100000,0\n");
    snprintf(csv, sizeof csv, "%s/bd.csv", t);
    snprintf(stack, sizeof stack, "%s/stack.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --csv %s --stack-csv %s", tl_test_bin(), run, csv, stack), 0);
    char *c = tl_test_read(csv);
    /* the axpy category row: 2 kernels, 40 us total, 40%% of the 100 us window, 200 kB / 40 us = 5 GB/s */
    const char *row = strstr(c, "three-split,0,category,axpy,*,");
    TL_ASSERT_MSG(row, "no axpy category row in\n%s", c);
    double count, tot, mean, mn, mx, share, per_iter, bytes, bw;
    TL_ASSERT_EQ(sscanf(row + strlen("three-split,0,category,axpy,*,"), "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &count,
                        &tot, &mean, &mn, &mx, &share, &per_iter, &bytes, &bw),
                 9);
    TL_ASSERT_NEAR(count, 2, 0);
    TL_ASSERT_NEAR(tot, 40, 1e-9);
    TL_ASSERT_NEAR(mn, 10, 1e-9);
    TL_ASSERT_NEAR(mx, 30, 1e-9);
    TL_ASSERT_NEAR(share, 40, 1e-9);
    TL_ASSERT_NEAR(per_iter, 20, 1e-9);
    TL_ASSERT_NEAR(bw, 5, 1e-9);
    TL_ASSERT_MSG(strstr(c, "three-split,0,category,nccl-sendrecv,*,2,7.0"), "%s", c);
    /* over ranks: max is rank 0's 40 us; mean is (40 + 20) / 2 = 30 us = 30 % of the window */
    TL_ASSERT_MSG(strstr(c, "three-split,max,category,axpy,*,2,40.0,20.00,10.00,30.00,40.0,"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "three-split,mean,category,axpy,*,1.5,30.0,20.00,10.00,30.00,30.0,"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "three-split,mean,name,axpy,tl_daxpy_kernel,1.5,30.0,"), "%s", c);
    char *s = tl_test_read(stack);
    TL_ASSERT(strstr(s, "run,nranks,iters,window_per_iter_us,spmv"));
    TL_ASSERT_MSG(strstr(s, "three-split,2,"), "%s", s);
    /* --iter-range 1:1 selects iteration 1's time span (20 us to the window
     * end at 100 us: the last iteration's slice runs to the window end): the
     * second daxpy and the unattributed (iter -1) sendrecv inside it, not
     * iteration 0's sendrecv; rank 1 has no iteration 1 and contributes
     * nothing */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --iter-range 1:1 %s --csv %s", tl_test_bin(), run, csv), 0);
    free(c);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "three-split,0,category,axpy,*,1,30.0,30.00,30.00,30.00,37.5,30.00"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "three-split,0,category,nccl-sendrecv,*,1,2.0,"), "%s", c);
    TL_ASSERT(!strstr(c, "three-split,1,category"));
    free(c);
    free(s);
}

static void synth(const char *dir, const char *variant, int nranks, int niter)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s/tests/helper_synth_trace %s %s %d %d", tl_test_build(), dir, variant, nranks, niter);
    TL_ASSERT_MSG(system(tmp) == 0, "%s failed", tmp);
}

TL_TEST(diagnose_naive_vs_split)
{
    const char *t = tl_test_tmpdir();
    char naive[512], split[512];
    snprintf(naive, sizeof naive, "%s/three-naive", t);
    snprintf(split, sizeof split, "%s/three-split", t);
    synth(naive, "naive", 2, 40);
    synth(split, "split", 2, 40);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), naive), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "FINDING 1 [serialised-communicators]"), "%s", o);
    TL_ASSERT(strstr(o, "ncclCommSplit"));
    TL_ASSERT(strstr(o, "overlapping in 0 of them"));
    TL_ASSERT(!strstr(o, "[no-comm-compute-overlap]: communication never"));
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), split), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(!strstr(o, "FINDING"), "%s", o);
    TL_ASSERT(strstr(o, "ok [serialised-communicators]"));
    TL_ASSERT(strstr(o, "# 0 findings"));
    free(o);
}

/* late-ranks on the committed three-naive run (rank 0 waits 67 % of its
 * communication for rank 1) with rank 1 moved onto another host's clock
 * 1 s ahead, no offsets measured, or cut short: no pair of its operations
 * ran on both ranks at once, or none pairs at all, so waiting cannot be
 * measured. Before: "ok", waiting 0.0 % of W, on both ranks. */
TL_TEST(late_ranks_unmeasurable_said)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin(), *src = "results/tristream-h200x2/three-naive";
    if (access("results/tristream-h200x2/three-naive/trace.rank0.csv.gz", R_OK) != 0)
        TL_SKIP("results/tristream-h200x2 not in this checkout");
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/hosts %s/cut %s/short && cp %s/trace.rank0.csv.gz %s/hosts/ && cp "
                            "%s/trace.rank0.csv.gz %s/cut/ && head -c 30000 %s/trace.rank1.csv.gz > "
                            "%s/cut/trace.rank1.csv.gz && cp %s/trace.rank0.csv.gz %s/short/",
                            t, t, t, src, t, src, t, src, t, src, t),
                 0);
    /* rank 1 whole, but its last 10 of 400 NCCL kernels left out: no
     * name occurs as often on both ranks (a file cut short pairs its
     * first operations: cut_rank_operations_matched) */
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s/trace.rank1.csv.gz | awk '/^# records=/ { next } /ncclDevKernel/ && ++n > 390 "
                            "{ next } { print }' > %s/short/trace.rank1.csv",
                            src, t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s/trace.rank1.csv.gz | awk -F, 'BEGIN { OFS = \",\" } /^# host=/ { print "
                            "\"# host=other\"; next } /^# window_(start|end)_ns=/ { split($0, a, \"=\"); printf "
                            "\"%%s=%%.0f\\n\", a[1], a[2] + 1e9; next } /^#/ || /^rank/ { print; next } { $8 = "
                            "sprintf(\"%%.0f\", $8 + 1e9); $9 = sprintf(\"%%.0f\", $9 + 1e9); print }' > "
                            "%s/hosts/trace.rank1.csv",
                            src, t),
                 0);
    static const struct {
        const char *run, *flag, *why;
    } cases[] = {{"hosts", "", "n/a [late-ranks]: does not apply: ranks 0, 1 are unpaired in time: none of their "
                               "operations paired across the ranks ran on every rank at once"},
                 {"short", "", "n/a [late-ranks]: does not apply: ranks 0, 1 are unpaired: no communication "
                               "operation of theirs occurs as often on every rank"}};
    for (size_t k = 0; k < 2; k++) {
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s %s/%s", bin, cases[k].flag, t, cases[k].run), 0);
        char *o = out_of(t, "out");
        TL_ASSERT_MSG(strstr(o, cases[k].why), "%s:\n%s", cases[k].run, o);
        TL_ASSERT_MSG(tl_test_sh("test $(grep -Ec '^  late-ranks +[01] n/a ' %s/out) = 2", t) == 0, "%s:\n%s",
                      cases[k].run, o);
        /* the exposed-communication evidence says the same of waiting
         * (before: "(0.0 us of it only waiting for other ranks)") */
        TL_ASSERT_MSG(!strstr(o, "us of it only waiting for other ranks") &&
                          tl_test_sh("test $(grep -c 'all its communication [0-9.]* us (waiting for other ranks not "
                                     "measurable: no operation of it paired across the ranks)' %s/out) = 2",
                                     t) == 0,
                      "%s:\n%s", cases[k].run, o);
        free(o);
    }
    /* a file cut short is no record dropped: overlap's rank line says it was cut, and over which window it is
     * judged (before: "records dropped or the file cut short", over the metadata's window) */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --accept-incomplete %s/cut", bin, t), 0);
    char *ov = out_of(t, "out");
    TL_ASSERT_MSG(strstr(ov, "on vm, INCOMPLETE (its file cut short, so judged over the window its records cover: "),
                  "%s", ov);
    free(ov);
    /* the clocks estimated from the collectives' ends: rank 0 waits again */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose --align-clocks %s/hosts", bin, t), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(tl_test_sh("grep -Eq '^  late-ranks +0 FINDING ' %s/out", t) == 0, "%s", o);
    free(o);
}

TL_TEST(diagnose_other_rules)
{
    const char *t = tl_test_tmpdir();
    static const char *const cases[][2] = {{"no-overlap", "[no-comm-compute-overlap]: communication never"},
                                           {"starved", "[starved-communication]: communication kernels take"},
                                           {"launch-bound", "[launch-bound-compute]: the compute stream"}};
    for (int i = 0; i < 3; i++) {
        char run[512];
        snprintf(run, sizeof run, "%s/%s", t, cases[i][0]);
        synth(run, cases[i][0], 1, 30);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), run), 0);
        char *o = out_of(t, "out");
        TL_ASSERT_MSG(strstr(o, cases[i][1]), "%s: %s", cases[i][0], o);
        free(o);
    }
    /* a threshold option moves the verdict: starvation ratio 3.33 is below 4 */
    char run[512];
    snprintf(run, sizeof run, "%s/starved", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose --starve-ratio 4 %s", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    TL_ASSERT(strstr(o, "ok [starved-communication]"));
    free(o);
}

/* Two ranks, ten 10 us iterations: a 6 us compute kernel each, and a
 * SendRecv that is 1 us of work. Odd iterations: both ranks start it after
 * the compute kernel (alone). Even ones: `late` - rank 0 starts at 0.5 us and
 * waits for rank 1, which starts at 6 us (rank 0's kernel spans 6.5 us over
 * compute, but the work is 1 us, after the compute kernel); `slow` - both
 * start at 0.5 us and work 5 us under compute. */
static void peer_run_named(const char *dir, int slow, const char *kernel)
{
    char rows[2][4096];
    size_t len[2] = {0, 0};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 10; i++) {
            long t = i * 10000L, s0, e;
            if (i % 2) {
                s0 = t + 6500;
                e = t + 7500;
            } else if (slow) {
                s0 = t + 500;
                e = t + 5500;
            } else {
                s0 = r == 0 ? t + 500 : t + 6000;
                e = t + 7000;
            }
            len[r] += (size_t)snprintf(rows[r] + len[r], sizeof rows[r] - len[r],
                                       "%d,%d,1,compute,compute,kernel,tl_daxpy_kernel,%ld,%ld,1,-1,%d\n"
                                       "%d,%d,2,p2p,p2p,kernel,%s,%ld,%ld,2,-1,-1\n",
                                       r, r, t, t + 6000, i, r, r, kernel, s0, e);
        }
    trace(dir, 0, rows[0]);
    trace(dir, 1, rows[1]);
}

static void peer_run(const char *dir, int slow) { peer_run_named(dir, slow, "ncclDevKernel_SendRecv"); }

/* A starved kernel's name is given whole, in the evidence, the table and
 * the CSV: it was cut at 60 characters in all three ("..." in the table
 * alone), leaving the user to guess which kernel it was. */
TL_TEST(starvation_names_kernel_whole)
{
    const char *t = tl_test_tmpdir();
    static const char kernel[] = "ncclDevKernel_SendRecv_fused_with_the_residual_norm_and_the_dot_product_of_pipe"
                                 "lined_cg_variant_seven";
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/long", t);
    snprintf(csv, sizeof csv, "%s/diag.csv", t);
    peer_run_named(run, 1, kernel);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out");
    char want[256];
    snprintf(want, sizeof want, "    rank 0: %s: median 5.0 us over 5 instances", kernel);
    TL_ASSERT_MSG(strstr(o, want), "%s", o);
    snprintf(want, sizeof want, "1.50 overlapped/alone    \"extra 20.0 %% of W >= 2 (%s)\"\n", kernel);
    TL_ASSERT_MSG(strstr(o, want), "%s", o);
    TL_ASSERT_MSG(!strstr(o, "cut to"), "%s", o);
    free(o);
    o = tl_test_read(csv);
    snprintf(want, sizeof want, "starved-communication,1,FINDING,5.00,1.50,overlapped/alone,extra 20.0 %% of W >= 2 (%s)\n",
             kernel);
    TL_ASSERT_MSG(strstr(o, want), "%s", o);
    free(o);
}

TL_TEST(starvation_is_work_not_peer_wait)
{
    const char *t = tl_test_tmpdir();
    char late[512], slow[512];
    snprintf(late, sizeof late, "%s/late", t);
    snprintf(slow, sizeof slow, "%s/slow", t);
    peer_run(late, 0);
    peer_run(slow, 1);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), late), 0);
    char *o = out_of(t, "out");
    /* rank 0's raw spans (6.5 us over compute vs 1 us alone) are waiting for rank 1, not starvation */
    TL_ASSERT_MSG(strstr(o, "ok [starved-communication]"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "peer wait rank 0: 10 communication operations spent 27.5 of their 37.5 us (73%, 2.8 us "
                            "each)"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "peer wait rank 1: 10 communication operations spent 0.0 of their 10.0 us"), "%s", o);
    /* the waiting is rank 0's, for rank 1 */
    TL_ASSERT_MSG(strstr(o, "rank 0: 27.5 of 37.5 us (73.3%) of its 10 matched communication operations waited"),
                  "%s", o);
    free(o);
    /* the timeline marks where the work of rank 0's kernel begins: at rank 1's start */
    char tl[600];
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --iter-range 0:0 -o %s", tl_test_bin(), late, tl), 0);
    o = tl_test_read(tl);
    TL_ASSERT_MSG(strstr(o, "0,1,r0 P2P,p2p,p2p,nccl-sendrecv,8,\"ncclDevKernel_SendRecv\",0.500,7.000,-1,6.000,0.000,\"ncclDevKernel_SendRecv\"\n"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "1,5,r1 P2P,p2p,p2p,nccl-sendrecv,8,\"ncclDevKernel_SendRecv\",6.000,7.000,-1,6.000,0.000,\"ncclDevKernel_SendRecv\"\n"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(o, "\"tl_daxpy_kernel\",0.000,6.000,0,0.000,0.000,\"tl_daxpy_kernel\"\n"), "%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), slow), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "[starved-communication]: communication kernels take"), "%s", o);
    /* 5 us under compute vs 1 us alone, 5 x 4 us extra = 20 % of the 100 us window, on both ranks */
    TL_ASSERT_MSG(strstr(o, "rank 0: ncclDevKernel_SendRecv: median 5.0 us over 5 instances overlapping compute vs "
                            "1.0 us over 5 alone (5.00x), 20.0 us extra = 20.0% of the window"),
                  "%s", o);
    TL_ASSERT(strstr(o, "rank 1: ncclDevKernel_SendRecv: median 5.0 us over 5"));
    free(o);
    /* the cost threshold moves the verdict */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose --starve-share 25 %s", tl_test_bin(), slow), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "ok [starved-communication]"), "%s", o);
    free(o);
}

/* One rank, a 50 us compute kernel in a 100 us window. The SendRecv works
 * 5 us under it vs 1 us alone (5x, 12 us extra = 12 % of W: starved); the
 * allreduce 0.6 us vs 0.04 us (15x, but 1.68 us extra = 1.7 % of W: too
 * cheap to fire). The rules table shows the kernel that decides, the
 * SendRecv's 5.00, with its extra time; before, it showed the largest ratio
 * of any kernel (the allreduce's 15.00) and no share, so an ok could stand
 * beside a ratio past the threshold with nothing saying why. */
TL_TEST(starvation_row_shows_deciding_kernel)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    trace_of(run, 0, 1,
             "0,0,1,compute,compute,kernel,tl_daxpy_kernel,0,50000,1,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,1000,6000,2,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,10000,15000,3,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,20000,25000,4,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,30000,30600,5,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,33000,33600,6,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,36000,36600,7,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,60000,61000,8,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,62000,63000,9,-1,0\n"
             "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,64000,65000,10,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,70000,70040,11,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,71000,71040,12,-1,0\n"
             "0,0,3,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,72000,72040,13,-1,0\n");
    snprintf(csv, sizeof csv, "%s/diag.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(o, "rank 0: ncclDevKernel_SendRecv: median 5.0 us over 3 instances overlapping compute vs 1.0 "
                            "us over 3 alone (5.00x), 12.0 us extra = 12.0% of the window"),
                  "%s", o);
    TL_ASSERT_MSG(!strstr(o, "rank 0: ncclDevKernel_AllReduce"), "the allreduce does not qualify:\n%s", o);
    TL_ASSERT_MSG(strstr(c, "rule,rank,verdict,value,threshold,measure,other_conditions\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "starved-communication,0,FINDING,5.00,1.50,overlapped/alone,extra 12.0 % of W >= 2 "
                            "(ncclDevKernel_SendRecv)\n"),
                  "%s", c);
    free(o);
    free(c);
    /* neither fires at 15 % of W: the largest ratio, and the share that keeps it ok */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --starve-share 15 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "starved-communication,0,ok,15.00,1.50,overlapped/alone,extra 1.7 % of W < 15 "
                            "(ncclDevKernel_AllReduce_Sum_f64)\n"),
                  "%s", c);
    free(c);
}

/* Two ranks, ten 10 us iterations, a 6 us compute kernel each and a
 * SendRecv (iter -1). In iterations 0-4 rank 1 starts it 5.5 us after rank
 * 0 (iteration 4's runs on to 52 us, into iteration 5's slice); in 5-9
 * both start together. */
static void late_then_even_run(const char *dir)
{
    char rows[2][4096];
    size_t len[2] = {0, 0};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 10; i++) {
            long t = i * 10000L, s = i < 5 ? (r == 0 ? t + 500 : t + 6000) : t + 6500,
                 e = i < 4 ? t + 7000 : i == 4 ? 52000 : t + 7500;
            len[r] += (size_t)snprintf(rows[r] + len[r], sizeof rows[r] - len[r],
                                       "%d,%d,1,compute,compute,kernel,tl_daxpy_kernel,%ld,%ld,1,-1,%d\n"
                                       "%d,%d,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,%ld,%ld,2,-1,-1\n",
                                       r, r, t, t + 6000, i, r, r, s, e);
        }
    trace(dir, 0, rows[0]);
    trace(dir, 1, rows[1]);
}

/* The row of table `title` whose text starts with `row` (after its
 * indentation), or NULL. */
static const char *table_line(const char *out, const char *title, const char *row)
{
    const char *p = strstr(out, title);
    for (p = p ? strchr(p, '\n') : NULL; p && p[1] && p[1] != '\n'; p = strchr(p + 1, '\n'))
        if (!strncmp(p + 1 + strspn(p + 1, " "), row, strlen(row))) return p + 1;
    return NULL;
}

/* --iter-range selects the operations of the waiting and transfer table,
 * the most delayed operations, late-ranks and the peer-wait lines, as it
 * does the overlap table: an operation counts in a range its part on the
 * rank has time in, its times clipped to the range. Before, those
 * figures covered the whole run whatever the range (rank 0: 10 matched,
 * 27.5 us waiting, in 5:9 too). */
TL_TEST(iter_range_selects_waiting)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    late_then_even_run(run);
    snprintf(csv, sizeof csv, "%s/ov.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 0:4 --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    const char *row = table_line(o, "# table: communication waiting and transfer", "0    *");
    double matched = 0, wait = 0, transfer = 0;
    TL_ASSERT_MSG(row && sscanf(row, " 0 * %lf %lf %lf", &matched, &wait, &transfer) == 3, "%s", o);
    TL_ASSERT_MSG(matched == 5 && wait == 27.5 && transfer == 8, "0:4, rank 0: %.0f matched, %.1f us waiting, %.1f us "
                  "transfer; expected 5, 27.5, 8 (iteration 4's transfer clipped at 50 us)", matched, wait, transfer);
    TL_ASSERT_NEAR(csv_get(c, "0", "waiting_us"), wait, 1e-9); /* no two operations at once: sum = union */
    row = table_line(o, "# table: communication waiting and transfer", "1    *");
    TL_ASSERT_MSG(row && strstr(row, " 5\n"), "rank 1 came last at the 5 operations: %s", o);
    const char *d = strstr(o, "# table: most delayed operations");
    TL_ASSERT_MSG(d && strstr(d, "# 5 rows"), "%s", o);
    free(o);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 5:9", tl_test_bin(), run), 0);
    o = out_of(t, "out");
    row = table_line(o, "# table: communication waiting and transfer", "0    *");
    TL_ASSERT_MSG(row && sscanf(row, " 0 * %lf %lf %lf", &matched, &wait, &transfer) == 3, "%s", o);
    TL_ASSERT_MSG(matched == 6 && wait == 0 && transfer == 7, "5:9, rank 0: %.0f matched, %.1f us waiting, %.1f us "
                  "transfer; expected 6, 0, 7 (iteration 4's operation counted: 2 us of it inside 50..100 us)", matched, wait,
                  transfer);
    d = strstr(o, "# table: most delayed operations");
    TL_ASSERT_MSG(d && strstr(d, "ncclDevKernel_SendRecv 4    -         1   5.5\n# 1 rows"),
                  "of 5:9's operations only iteration 4's, reaching into it, was delayed:\n%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --iter-range 5:9 --csv %s", tl_test_bin(), run, csv), 0);
    o = out_of(t, "out");
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(o, "ok [late-ranks]"), "%s", o);
    TL_ASSERT_MSG(strstr(c, "late-ranks,0,ok,0.00,"), "%s", c);
    TL_ASSERT_MSG(strstr(o, "peer wait rank 0: 6 communication operations spent 0.0 of their 7.0 us"), "%s", o);
    free(o);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --iter-range 0:4", tl_test_bin(), run), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "rank 0: 27.5 of 35.5 us (77.5%) of its 5 matched communication operations waited for a "
                            "later rank; in 5 operations another rank came last"),
                  "%s", o);
    free(o);
}

/* Who came last is counted of operations only: a pair whose kernels did
 * not run together (rank 1's third SendRecv starts after rank 0's ended)
 * is not one operation, as the most delayed table and late-ranks say, so
 * overlap's `last` leaves it out too and agrees with diagnose's "another
 * rank came last" (before: rank 1 last 3 times where rank 0 was told 2,
 * and on results/multirank-h200/pcg-threads-r4 rank 0's 96 + 306 fell 2
 * short of its 404 operations). */
TL_TEST(last_rank_counts_operations_only)
{
    const char *t = tl_test_tmpdir();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0,
          "0,0,1,compute,compute,kernel,k,0,30000,1,-1,0\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,10000,20000,2,-1,0\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,40000,50000,3,-1,1\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,70000,75000,4,-1,2\n");
    trace(run, 1,
          "1,1,1,compute,compute,kernel,k,0,30000,1,-1,0\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,12000,20000,2,-1,0\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,43000,50000,3,-1,1\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,80000,85000,4,-1,2\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    const char *row = table_line(o, "# table: communication waiting and transfer", "1    *");
    double matched = 0, wait = 0, transfer = 0, pct = 0, last = 0;
    TL_ASSERT_MSG(row && sscanf(row, " 1 * %lf %lf %lf %lf %lf", &matched, &wait, &transfer, &pct, &last) == 5, "%s", o);
    TL_ASSERT_MSG(matched == 3 && last == 2, "rank 1: %.0f matched, last %.0f (expected 3 and 2)\n%s", matched, last, o);
    const char *d = strstr(o, "# table: most delayed operations");
    TL_ASSERT_MSG(d && strstr(d, "# 2 rows"), "%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --wait-share 1 --min-comm-share 0", tl_test_bin(), run), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "matched communication operations waited for a later rank; in 2 operations another rank "
                            "came last"),
                  "%s", o);
    free(o);
}

/* The committed 2 x H200 runs (NCCL 2.28.3): serialisation found in
 * three-naive and two-stream, not in three-split, whose p2p and collective
 * kernels overlap each other and the DAXPY. Works whether or not the NCCL
 * kernels carry their iteration (windows are selected by time). */
TL_TEST(diagnose_committed_h200)
{
    const char *root = tl_test_env("TL_RESULTS", "results");
    static const char *const runs[] = {"tristream-h200x2", "tristream-maxconn32-h200x2"};
    char probe[1100];
    snprintf(probe, sizeof probe, "%s/%s/three-naive/trace.rank0.csv.gz", root, runs[0]);
    if (access(probe, R_OK) != 0) TL_SKIP("no committed H200 traces at %s yet", probe);
    const char *t = tl_test_tmpdir();
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char dir[1024], csv[600];
        snprintf(probe, sizeof probe, "%s/%s/three-naive/trace.rank0.csv.gz", root, runs[i]);
        if (access(probe, R_OK) != 0) continue;
        /* results/ keeps traces gzipped: read as they are, no plain copy */
        snprintf(dir, sizeof dir, "%s/%s", root, runs[i]);
        snprintf(csv, sizeof csv, "%s/diag.csv", t);
        for (int v = 0; v < 3; v++) {
            static const char *const var[] = {"three-naive", "two-stream", "three-split"};
            TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s/%s --csv %s", tl_test_bin(), dir, var[v], csv), 0);
            char *o = out_of(t, "out"), *c = tl_test_read(csv);
            int serial = v < 2;
            TL_ASSERT_MSG(!strstr(o, "e.g. iteration") || !strstr(o, "922337"), "%s: garbage example span\n%s",
                          var[v], o);
            if (serial) {
                TL_ASSERT_MSG(strstr(o, "[serialised-communicators]: P2P and collective"), "%s/%s:\n%s", dir, var[v],
                              o);
                TL_ASSERT_MSG(strstr(o, "overlapping in 0 of them"), "%s/%s:\n%s", dir, var[v], o);
            } else {
                TL_ASSERT_MSG(strstr(o, "ok [serialised-communicators]"), "%s/%s:\n%s", dir, var[v], o);
            }
            /* every rank agrees: comm_comm below 5 % when serialised, well above it when split */
            for (int r = 0; r < 2; r++) {
                char row[128];
                snprintf(row, sizeof row, "serialised-communicators,%d,%s,", r, serial ? "FINDING" : "ok");
                const char *p = strstr(c, row);
                TL_ASSERT_MSG(p, "%s/%s: no row %s in\n%s", dir, var[v], row, c);
                double cc = atof(p + strlen(row));
                TL_ASSERT_MSG(serial ? cc < 1 : cc > 20, "%s/%s rank %d: comm_comm %.2f%%", dir, var[v], r, cc);
            }
            free(o);
            free(c);
        }
        /* late-ranks' share of W is the time rank 0 only waits (a union): its
         * allreduce and SendRecv wait together, so their summed waits (811.1 us
         * over iterations 100-109) would be 124 % of the 654.8 us window */
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s/three-split --iter-range 100:109 --csv %s", tl_test_bin(), dir,
                        csv),
                     0);
        char *lc = tl_test_read(csv);
        const char *late = strstr(lc, "late-ranks,0,FINDING,"), *share = late ? strstr(late, "comm,waiting ") : NULL;
        TL_ASSERT_MSG(share && atof(share + 13) > 30 && atof(share + 13) <= 100, "%s: %s", dir, lc);
        free(lc);
        /* three-split: comm-comm and triple overlap; the DAXPY is the ~49 us kernel of the timed table */
        snprintf(csv, sizeof csv, "%s/ov.csv", t);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s/three-split --csv %s", tl_test_bin(), dir, csv), 0);
        char *c = tl_test_read(csv);
        TL_ASSERT_MSG(csv_get(c, "max", "comm_comm_pct") > 20, "%s", c);
        TL_ASSERT_MSG(csv_get(c, "max", "triple_pct") > 0.5, "%s", c);
        double w = csv_get(c, "0", "W_us"), it = csv_get(c, "0", "iters");
        TL_ASSERT_MSG(it >= 100 && w / it > 49 && w / it < 100, "%s: %.1f us per iteration", dir, w / it);
        free(c);
        snprintf(csv, sizeof csv, "%s/bd.csv", t);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s/three-split --csv %s", tl_test_bin(), dir, csv), 0);
        c = tl_test_read(csv);
        const char *row = strstr(c, "three-split,0,category,axpy,*,");
        TL_ASSERT_MSG(row, "%s", c);
        double count = 0, tot = 0, mean = 0;
        TL_ASSERT_EQ(sscanf(row + strlen("three-split,0,category,axpy,*,"), "%lf,%lf,%lf", &count, &tot, &mean), 3);
        TL_ASSERT_MSG(mean > 40 && mean < 60, "%s: DAXPY mean %.2f us", dir, mean);
        /* NCCL kernels count although the probes could not attribute them (iter -1) */
        TL_ASSERT_MSG(strstr(c, "three-split,1,category,nccl-allreduce,*,") &&
                          strstr(c, "three-split,1,category,nccl-sendrecv,*,"),
                      "%s", c);
        free(c);
    }
}

/* A copy on a communication lane is host staging only where it touches host
 * memory: NCCL's own device-to-device copy (a one-rank allreduce) and peer
 * copies are the GPU's (before, 200 DtoD copies of demo-h200's three-naive
 * were "staged through the host", with NCCL as the remedy). */
TL_TEST(diagnose_device_copies_not_staging)
{
    const char *t = tl_test_tmpdir();
    static const char *const cases[][3] = {
        {"dtod", "coll,memcpy,memcpy,memcpy DtoD", "ok [host-staging]"},
        {"ptop", "p2p,memcpy,memcpy,Memcpy PtoP (Device -> Device)", "ok [host-staging]"},
        {"dtoh", "p2p,memcpy,memcpy,memcpy DtoH", "1 staging copies"},
        {"nodir", "coll,memcpy,memcpy,memcpy", "1 staging copies"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char run[512], rows[512];
        snprintf(run, sizeof run, "%s/%s", t, cases[i][0]);
        snprintf(rows, sizeof rows,
                 "0,0,1,compute,compute,kernel,tl_daxpy_kernel,0,50000,1,-1,0\n"
                 "0,0,2,%s,60000,80000,2,4096,0\n",
                 cases[i][1]);
        trace_of(run, 0, 1, rows);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", tl_test_bin(), run), 0);
        char *o = out_of(t, "out");
        TL_ASSERT_MSG(strstr(o, cases[i][2]), "%s: %s", cases[i][0], o);
        free(o);
    }
}

/* A loop run three times in one trace, each run's iterations numbered
 * from 0 (trilap-solve: a warm-up solve before the window, then two timed
 * ones in it): the warm-up is no iteration of the run, and the two timed
 * runs are iterations 0-1 and 2-3, each kernel in its own. Before, the
 * warm-up's kernels started iterations 0 and 1, outside the window: 2
 * iterations, the median 0.0 us, --iter-range 1:1 wider than the whole
 * window and 0:0 "window end ... before start". */
TL_TEST(iterations_numbered_over_restarts)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    mkdir(run, 0755);
    static const char *const rows =
        "%d,-1,0,host,range,host,iter,0,6000,0,-1,0\n"
        "%d,-1,0,host,range,host,iter,6000,12000,0,-1,1\n"
        "%d,%d,1,compute,compute,kernel,k,1000,5000,1,-1,0\n"
        "%d,%d,1,compute,compute,kernel,k,7000,11000,2,-1,1\n"
        "%d,-1,0,host,range,host,iter,20000,40000,0,-1,0\n"
        "%d,-1,0,host,range,host,iter,40000,60000,0,-1,1\n"
        "%d,-1,0,host,range,host,iter,60000,80000,0,-1,0\n"
        "%d,-1,0,host,range,host,iter,80000,100000,0,-1,1\n"
        "%d,%d,1,compute,compute,kernel,k,21000,39000,3,-1,0\n"
        "%d,%d,1,compute,compute,kernel,k,41000,59000,4,-1,1\n"
        "%d,%d,1,compute,compute,kernel,k,62000,79000,5,-1,0\n"
        "%d,%d,1,compute,compute,kernel,k,81000,99000,6,-1,1\n";
    for (int r = 0; r < 2; r++) {
        char path[600], buf[2048];
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", run, r);
        int n = snprintf(buf, sizeof buf,
                         "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=2\n# device=%d\n"
                         "# window_start_ns=20000\n# window_end_ns=100000\n# complete=yes\n"
                         "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n",
                         r, r);
        snprintf(buf + n, sizeof buf - (size_t)n, rows, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r, r);
        tl_test_write(path, buf);
    }
    snprintf(csv, sizeof csv, "%s/ov.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "iters"), 4, 0);
    TL_ASSERT_NEAR(csv_get(c, "0", "W_us"), 80, 1e-9);
    /* slices from the kernels' starts: 20-41, 41-62, 62-81, 81-100 us; the
     * median of an even count the mean of the middle two (before: the
     * upper one, 21.0) */
    TL_ASSERT_MSG(strstr(o, "# rank 0 iteration time: min 19.0 us, median 20.0 us, max 21.0 us over 4 iterations"),
                  "%s", o);
    free(o);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 2:3 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "W_us"), 38, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_compute_us"), 35, 1e-9);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 0:0 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "W_us"), 21, 1e-9);
    free(c);
    /* breakdown counts overlap's 4 iterations: the window's kernels, 71 us,
     * are 17.75 us per iteration (before: the numbers 0-1 seen, 2
     * iterations, 35.5 us, and the stack CSV's iters 2) */
    char stack[600];
    snprintf(stack, sizeof stack, "%s/stack.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --csv %s --stack-csv %s", tl_test_bin(), run, csv, stack), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "run,0,category,compute,*,4,71.0,17.75,17.00,18.00,88.8,17.75,"), "%s", c);
    free(c);
    c = tl_test_read(stack);
    TL_ASSERT_MSG(strstr(c, "\nrun,2,4,20.00,"), "%s", c);
    free(c);
}

/* compare of a run whose median iteration lasts 0 us (five iterations
 * begun at once) gives no speedup: "-" on the summary line as in the
 * table (before: "infx"). */
TL_TEST(compare_zero_median_no_ratio)
{
    const char *t = tl_test_tmpdir();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", t);
    snprintf(b, sizeof b, "%s/b", t);
    for (int r = 0; r < 2; r++) {
        char rows[1024];
        snprintf(rows, sizeof rows,
                 "%d,%d,1,compute,compute,kernel,k,1000,9000,1,-1,0\n%d,%d,1,compute,compute,kernel,k,50000,59000,2,-1,1\n",
                 r, r, r, r);
        trace(a, r, rows);
        int n = 0;
        for (int k = 0; k < 5; k++)
            n += snprintf(rows + n, sizeof rows - (size_t)n, "%d,%d,1,compute,compute,kernel,k,1000,9000,%d,-1,%d\n", r, r,
                          k + 1, k);
        trace(b, r, rows);
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), a, b), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# speedup of B over A: - (iteration time: A 50.00 us, B 0.00 us)\n") && !strstr(o, "inf"),
                  "%s", o);
    free(o);
}

/* compare against a run that marks no iterations (an export without
 * trilap's iter ranges, a trace of a program without probes): its figures
 * per iteration are "-", not its whole window as one iteration's, and the
 * summary says why there is no speedup and how to mark them (before:
 * idle_per_iter 40000.00 us, and "B nan us"). */
TL_TEST(compare_run_without_iterations)
{
    const char *t = tl_test_tmpdir();
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", t);
    snprintf(b, sizeof b, "%s/b", t);
    trace_of(a, 0, 1, "0,0,1,compute,compute,kernel,k,1000,9000,1,-1,0\n0,0,1,compute,compute,kernel,k,50000,59000,2,-1,1\n");
    trace_of(b, 0, 1, "0,0,1,compute,compute,kernel,k,1000,9000,1,-1,-1\n0,0,1,compute,compute,kernel,k,50000,59000,2,-1,-1\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), a, b), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# speedup of B over A: - (B, ") &&
                      strstr(o, "/b, has no iteration time: the trace marks no iterations: trilap's probes mark them"),
                  "%s", o);
    static const char *const per_iter[] = {"comm_per_iter", "comm_calls_per_iter", "idle_per_iter",
                                           "launch_gaps_per_iter"};
    for (size_t k = 0; k < sizeof per_iter / sizeof per_iter[0]; k++) {
        char key[64];
        snprintf(key, sizeof key, "\n  %s ", per_iter[k]); /* the row, not the values line naming it */
        const char *row = strstr(o, key);
        TL_ASSERT_MSG(row, "no %s row:\n%s", per_iter[k], o);
        char line[256];
        row++;
        snprintf(line, sizeof line, "%.*s", (int)strcspn(row, "\n"), row);
        /* metric unit A B B_minus_A A_over_B: B and what it makes, "-" */
        char f[6][64];
        TL_ASSERT_EQ(sscanf(line, "%63s %63s %63s %63s %63s %63s", f[0], f[1], f[2], f[3], f[4], f[5]), 6);
        TL_ASSERT_MSG(!strcmp(f[3], "-") && !strcmp(f[4], "-") && !strcmp(f[5], "-"), "%s", line);
    }
    TL_ASSERT_MSG(!strstr(o, "nan"), "%s", o);
    free(o);
    /* A without: said as A */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), b, a), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# speedup of B over A: - (A, "), "%s", o);
    free(o);
}

/* No kernel carries its iteration (the probes could not attribute the
 * launches): the host's "iter" ranges bound the iterations, and every kernel
 * inside the selected time span counts. */
TL_TEST(host_iteration_fallback)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    static const char *const rows =
        "%d,-1,0,host,range,host,iter,0,30000,0,-1,0\n"
        "%d,-1,0,host,range,host,iter,30000,60000,0,-1,1\n"
        "%d,-1,0,host,range,host,iter,60000,90000,0,-1,2\n"
        "%d,%d,1,compute,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,5000,15000,1,-1,-1\n"
        "%d,%d,1,compute,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,35000,45000,2,-1,-1\n"
        "%d,%d,1,compute,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,65000,75000,3,-1,-1\n";
    for (int r = 0; r < 2; r++) {
        char buf[1024];
        snprintf(buf, sizeof buf, rows, r, r, r, r, r, r, r, r, r);
        trace(run, r, buf);
    }
    snprintf(csv, sizeof csv, "%s/ov.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(o, "iterations bounded by the host's iter ranges"), "%s", o);
    free(o);
    /* the slices' bounds said as they are: the host's ranges (it said "its
     * GPU activity" of a rank none of whose GPU activity carries one) */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --per-iter", tl_test_bin(), run), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# slices: iteration k runs from the start of its host iter range to that of iteration "
                            "k+1") && !strstr(o, "GPU activity to"), "%s", o);
    TL_ASSERT_NEAR(csv_get(c, "0", "iters"), 3, 0);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_coll_us"), 30, 1e-9);
    free(o);
    free(c);
    /* --iter-range 1:1 is 30..60 us: the second allreduce */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 1:1 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "1", "W_us"), 30, 1e-9);
    TL_ASSERT_NEAR(csv_get(c, "1", "U_coll_us"), 10, 1e-9);
    free(c);
    /* 1:2 is 30 us to the window end (100 us): 20 of 70 us */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --iter-range 1:2 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "run,0,category,nccl-allreduce,*,2,20.0,10.00,10.00,10.00,28.6,10.00"), "%s", c);
    free(c);
    snprintf(csv, sizeof csv, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --count 1 -o %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "0,0,r0 Compute,compute,coll,nccl-allreduce,6,\"ncclDevKernel_AllReduce_Sum_f64\",5.000,15.000,-1"),
                  "%s", c);
    free(c);
}

/* Sum of column `col` over the CSV rows whose first field is `key`. */
static double csv_sum(const char *csv, const char *key, const char *col)
{
    int n;
    return csv_sum_n(csv, key, col, &n);
}

/* NCCL kernels the probes could not attribute (iter -1) before the first
 * iteration's GPU activity and after the last one's: the slices still
 * partition the 100 us window (the first slice starts at the window start,
 * the last ends at its end), so per-iteration sums equal the window's, and
 * a range holding the first and last iterations is the whole window.
 * Before, slice 0 began at the first compute kernel: 10 us and a 4 us
 * kernel were in no slice, and 0:2 was 10..80 us. */
TL_TEST(slices_partition_whole_window)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600], tl[600];
    snprintf(run, sizeof run, "%s/run", t);
    static const char *const rows =
        "%d,%d,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,2000,6000,1,-1,-1\n"
        "%d,%d,1,compute,compute,kernel,k,10000,30000,2,-1,0\n"
        "%d,%d,1,compute,compute,kernel,k,40000,60000,3,-1,1\n"
        "%d,%d,1,compute,compute,kernel,k,70000,80000,4,-1,2\n"
        "%d,%d,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,85000,95000,5,-1,-1\n";
    for (int r = 0; r < 2; r++) {
        char buf[1024];
        snprintf(buf, sizeof buf, rows, r, r, r, r, r, r, r, r, r, r);
        trace(run, r, buf);
    }
    snprintf(csv, sizeof csv, "%s/it.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-csv %s", tl_test_bin(), run, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_sum(c, "0", "W_us"), 100, 1e-9);
    TL_ASSERT_NEAR(csv_sum(c, "0", "U_comm_us"), 14, 1e-9);
    TL_ASSERT_NEAR(csv_sum(c, "1", "W_us"), 100, 1e-9);
    free(c);
    static const char *const ranges[][2] = {{"0:2", "100"}, {"0:", "100"}, {"0:0", "40"}, {"2:2", "30"}, {"1:", "60"}};
    for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; k++) {
        snprintf(csv, sizeof csv, "%s/ov.csv", t);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range %s --csv %s", tl_test_bin(), run, ranges[k][0],
                        csv),
                     0);
        c = tl_test_read(csv);
        TL_ASSERT_MSG(csv_get(c, "0", "W_us") == atof(ranges[k][1]), "--iter-range %s: W %.1f us, expected %s",
                      ranges[k][0], csv_get(c, "0", "W_us"), ranges[k][1]);
        free(c);
    }
    /* the leading kernel is iteration 0's, the trailing one iteration 2's */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 0:0 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_comm_us"), 4, 1e-9);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 2:2 --csv %s", tl_test_bin(), run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_NEAR(csv_get(c, "0", "U_comm_us"), 10, 1e-9);
    free(c);
    /* a timeline of more iterations than the run has: every kernel */
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --count 1000 -o %s", tl_test_bin(), run, tl), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# rows: 10 written"), "%s", o);
    free(o);
}

static void expect_reject(const char *t, const char *name, const char *rows, const char *needle, int header)
{
    char run[512];
    snprintf(run, sizeof run, "%s/%s", t, name);
    if (header) {
        trace_of(run, 0, 1, rows);
    } else {
        char path[600];
        mkdir(run, 0755);
        snprintf(path, sizeof path, "%s/trace.rank0.csv", run);
        tl_test_write(path, rows);
    }
    int rc = sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), run);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(rc == 1, "%s: exit %d, stderr %s", name, rc, e);
    TL_ASSERT_MSG(strstr(e, "trace.rank0.csv"), "%s: error does not name the file: %s", name, e);
    TL_ASSERT_MSG(strstr(e, needle), "%s: error lacks '%s': %s", name, needle, e);
    free(e);
}

TL_TEST(reader_robustness)
{
    const char *t = tl_test_tmpdir();
    const char *ok = "0,0,1,compute,compute,kernel,k,0,1000,1,-1,0\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%s0,0,1,compute,compute,kernel,k,2000,30", ok); /* no newline: truncated */
    expect_reject(t, "truncated", buf, "trace.rank0.csv:11: truncated", 1);
    snprintf(buf, sizeof buf, "%s0,0,1,compute,compute,kernel,k,2x00,3000,1,-1,0\n", ok);
    expect_reject(t, "badnum", buf, "trace.rank0.csv:11: bad number in start_ns: '2x00'", 1);
    snprintf(buf, sizeof buf, "%s0,0,1,compute,compute,kernel,k,5000,3000,1,-1,0\n", ok);
    expect_reject(t, "endbeforestart", buf, "trace.rank0.csv:11: end before start", 1);
    snprintf(buf, sizeof buf, "%s0,0,1,sideways,compute,kernel,k,2000,3000,1,-1,0\n", ok);
    expect_reject(t, "unknownlane", buf, "trace.rank0.csv:11:", 1);
    expect_reject(t, "unknownlane2", buf, "sideways", 1);
    expect_reject(t, "noheader", "# format=trilap-trace\n# version=1\n0,0,1,compute,compute,kernel,k,0,1,1,-1,0\n",
                  "missing header", 0);
    /* a missing input, and a link to one, said as what they are: either
     * may have been a file (it was "cannot open run folder") */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s/nonexistent", tl_test_bin(), t), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "/nonexistent: no such file or folder (a trilap run's folder, a PyTorch profiler trace") &&
                      !strchr(strchr(e, '\n') + 1, '\n'),
                  "%s", e);
    free(e);
    TL_ASSERT_EQ(sh(t, "ln -s %s/gone.json %s/rank0.json && %s/trilap-analyze overlap %s/rank0.json", t, t, tl_test_bin(), t),
                 1);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "/rank0.json: a link to ") && strstr(e, "/gone.json, which does not exist\n"), "%s", e);
    free(e);
    /* a file of none of the three kinds, and a pipe (which the readers
     * cannot open twice): each named for what it is */
    TL_ASSERT_EQ(sh(t, "echo hello > %s/hello.txt; %s/trilap-analyze overlap %s/hello.txt", t, tl_test_bin(), t), 1);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "hello.txt: neither a run folder, a PyTorch profiler trace nor an Nsight Systems"), "%s", e);
    free(e);
    /* an empty file is called empty (it was "neither a run folder, ...") */
    TL_ASSERT_EQ(sh(t, ": > %s/cut.json; %s/trilap-analyze overlap %s/cut.json", t, tl_test_bin(), t), 1);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "cut.json: empty file: no trace in it") && tl_test_count(e, "\n") == 1, "%s", e);
    free(e);
    TL_ASSERT_EQ(sh(t, "cat %s/hello.txt | %s/trilap-analyze overlap /dev/stdin", t, tl_test_bin()), 1);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "/dev/stdin: a pipe or a device: traces are read from files"), "%s", e);
    free(e);
}

/* A FIFO given as a trace, found in a run folder or given as a results
 * file is refused at once, before any open would wait for a writer; the
 * FIFO stays one. */
TL_TEST(fifo_inputs_refused_at_once)
{
    const char *t = tl_test_tmpdir();
    char bin[PATH_MAX];
    TL_ASSERT(realpath(tl_test_bin(), bin)); /* the commands run in t */
    TL_ASSERT_EQ(tl_test_sh("cd %s && mkfifo p.fifo x.json x.sqlite r.csv && mkdir run kin && mkfifo run/trace.rank0.csv "
                            "kin/rank0.json", t),
                 0);
    static const char *const cases[][3] = {
        {"overlap", "p.fifo", "p.fifo: a pipe or a device: traces are read from files"},
        {"diagnose", "x.json", "x.json: a pipe or a device: traces are read from files"},
        {"breakdown", "x.sqlite", "x.sqlite: a pipe or a device: traces are read from files"},
        {"overlap", "run", "run/trace.rank0.csv: a pipe or a device: traces are read from files"},
        {"timeline -o tl.csv", "run", "run/trace.rank0.csv: a pipe or a device"},
        {"overlap", "kin", "kin/rank0.json: a pipe or a device: traces are read from files"},
        {"import -o imp", "p.fifo", "p.fifo: a pipe or a device: traces are read from files"},
        {"sweep --x ring_bytes", "r.csv", "r.csv: a pipe or a device: results are read from files"},
        {"compare", "r.csv", "r.csv: a pipe or a device: results are read from files"},
        {"compare", "r.csv p.fifo", "r.csv: a pipe or a device: results are read from files"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        /* 124: still waiting after 20 s (the open blocked) */
        int rc = sh(t, "cd %s && timeout 20 %s/trilap-analyze %s %s", t, bin, cases[k][0], cases[k][1]);
        char *e = out_of(t, "err"), *o = out_of(t, "out");
        TL_ASSERT_MSG(rc == 1 && strstr(e, cases[k][2]) && !o[0], "%s %s: exit %d:\n%s", cases[k][0], cases[k][1], rc,
                      e);
        free(e);
        free(o);
    }
    TL_ASSERT_EQ(tl_test_sh("cd %s && test -p p.fifo && test -p run/trace.rank0.csv && test ! -e imp", t), 0);
}

/* What a file warns of, and the progress line of each file, is said once
 * per command, although the commands read a file more than once (matching
 * operations across ranks, then the metrics; timeline's look for the
 * iterations; perfetto's host rows; breakdown --iter-range's span). */
TL_TEST(warnings_said_once)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512], gap[512], p[600];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0, "0,0,1,compute,compute,kernel,k,0,40000,1,-1,0\n"
                  "0,0,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,40000,50000,2,16,0\n"
                  "0,0,1,compute,compute,kernel,k,50000,90000,3,-1,1\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,k,0,45000,1,-1,0\n"
                  "1,1,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,45000,50000,2,16,0\n"
                  "1,1,1,compute,compute,kernel,k,50000,95000,3,-1,1\n");
    /* rank 0 declares two rows more than it has: accepted on request, said */
    snprintf(p, sizeof p, "%s/trace.rank0.csv", run);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# complete=yes$/# records=5\\n&/' %s", p), 0);
    snprintf(gap, sizeof gap, "%s/gap", t);
    trace_of(gap, 0, 3, "0,0,1,compute,compute,kernel,k,0,40000,1,-1,0\n");
    trace_of(gap, 2, 3, "2,0,1,compute,compute,kernel,k,0,40000,1,-1,0\n");
    snprintf(p, sizeof p, "%s/other", t); /* a whole run, the other side of compare */
    trace(p, 0, "0,0,1,compute,compute,kernel,k,0,40000,1,-1,0\n");
    trace(p, 1, "1,1,1,compute,compute,kernel,k,0,40000,1,-1,0\n");
    static const char *const cmds[] = {"overlap", "diagnose", "compare %s/other", "breakdown --iter-range 0:1",
                                       "timeline -o %s/tl.csv", "perfetto -o %s/p.json"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, cmds[k], t);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --accept-incomplete %s", bin, cmd, run), 0);
        TL_ASSERT_MSG(tl_test_sh("test $(grep -c 'incomplete trace accepted' %s/err) = 1", t) == 0, "%s: %s", cmd,
                      out_of(t, "err"));
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --accept-incomplete %s", bin, cmd, gap), 0);
        TL_ASSERT_MSG(tl_test_sh("test $(grep -c 'incomplete run accepted: rank 1 missing' %s/err) = 1", t) == 0,
                      "%s: %s", cmd, out_of(t, "err"));
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --progress --accept-incomplete %s", bin, run), 0);
    for (int r = 0; r < 2; r++)
        TL_ASSERT_MSG(tl_test_sh("test $(grep -c 'reading trace.rank%d.csv ' %s/err) = 1", r, t) == 0, "%s",
                      out_of(t, "err"));
}

TL_TEST(incomplete_needs_flag)
{
    const char *t = tl_test_tmpdir();
    char run[512], path[600];
    snprintf(run, sizeof run, "%s/run", t);
    mkdir(run, 0755);
    snprintf(path, sizeof path, "%s/trace.rank0.csv", run);
    tl_test_write(path,
                  "# format=trilap-trace\n# version=1\n# rank=0\n# complete=no\n# dropped=12\n"
                  "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
                  "0,0,1,compute,compute,kernel,k,0,1000,1,-1,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), run), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "incomplete") && strstr(e, "--accept-incomplete"), "the flag is not named: %s", e);
    free(e);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --accept-incomplete %s", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    TL_ASSERT(strstr(o, "INCOMPLETE"));
    TL_ASSERT(strstr(o, "first start to last end")); /* no window metadata: said so */
    free(o);
}

TL_TEST(bad_arguments)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --iter-range 5:2 %s", tl_test_bin(), t), 2);
    char *e = out_of(t, "err");
    TL_ASSERT(strstr(e, "invalid --iter-range '5:2'"));
    free(e);
    /* given but empty: refused, not the whole run */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --iter-range '' %s", tl_test_bin(), t), 2);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "invalid --iter-range ''"), "%s", e);
    free(e);
    /* an open range said as it was written, not with an internal end, and
     * the iterations the run has (it named none) */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --iter-range 200: %s", tl_test_bin(),
                    "results/tristream-h200x2/three-split"),
                 1);
    e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "no GPU activity in iterations 200: (the run has iterations 0..199)\n") && !strstr(e, "-1"),
                  "%s", e);
    free(e);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze frobnicate", tl_test_bin()), 2);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose --starve-ratio x %s", tl_test_bin(), t), 2);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s", tl_test_bin(), t), 2);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --help", tl_test_bin()), 0);
    char *o = out_of(t, "out");
    TL_ASSERT(strstr(o, "--stack-csv"));
    free(o);
}

TL_TEST(timeline_and_perfetto)
{
    const char *t = tl_test_tmpdir();
    char run[512], tl[600], js[600];
    snprintf(run, sizeof run, "%s/run", t);
    /* compute lane: [0,50] holds [10,20]; [40,70] overlaps [0,50] without nesting -> sub-track */
    trace(run, 0,
          "0,0,1,compute,compute,kernel,outer,0,50000,1,-1,0\n"
          "0,0,1,compute,compute,kernel,inner,10000,20000,2,-1,0\n"
          "0,0,5,compute,compute,kernel,straddle,40000,70000,3,-1,1\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,60000,80000,4,-1,2\n"
          "0,0,1,compute,compute,kernel,tail,80000,90000,5,-1,3\n");
    /* rank 1 runs iteration 1 later (60..90 us); its unattributed (iter -1)
     * kernel at 45..50 us lies in rank 0's selection */
    trace(run, 1,
          "1,1,1,compute,compute,kernel,late,60000,90000,1,-1,1\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,45000,50000,2,-1,-1\n"
          "1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,95000,99000,3,-1,-1\n");
    snprintf(js, sizeof js, "%s/trace.json", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze perfetto %s -o %s", tl_test_bin(), run, js), 0);
    char *j = tl_test_read(js);
    TL_ASSERT(strstr(j, "\"traceEvents\""));
    TL_ASSERT(strstr(j, "\"rank 0 / GPU 0\""));
    TL_ASSERT(strstr(j, "\"tid\":0,\"ts\":0.000,\"dur\":50.000,\"name\":\"outer\""));
    TL_ASSERT(strstr(j, "\"tid\":0,\"ts\":10.000,\"dur\":10.000,\"name\":\"inner\""));
    TL_ASSERT(strstr(j, "\"tid\":1,\"ts\":40.000,\"dur\":30.000,\"name\":\"straddle\""));
    TL_ASSERT(strstr(j, "\"name\":\"compute #2\""));
    free(j);
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --iter-range 1:2 -o %s", tl_test_bin(), run, tl), 0);
    char *c = tl_test_read(tl);
    TL_ASSERT(strstr(c, "rank,row,row_label,lane,cat,category,cat_id,name,start_us,end_us,iter,work_start_us,clock_unc_us,full_name\n"));
    /* window starts at iteration 1 (40 us): outer is clipped in, inner is not */
    TL_ASSERT(strstr(c, "\"straddle\",0.000,30.000,1"));
    TL_ASSERT_MSG(strstr(c, "\"outer\",0.000,10.000,0"), "%s", c);
    TL_ASSERT(strstr(c, "0,1,r0 P2P,p2p,p2p,nccl-sendrecv,8,\"ncclDevKernel_SendRecv\",20.000,40.000,2"));
    TL_ASSERT(!strstr(c, "inner"));
    /* one span for all ranks: rank 0's selection, 40 us to its iteration 3 at 80 us */
    TL_ASSERT_MSG(strstr(c, "1,5,r1 P2P,p2p,p2p,nccl-sendrecv,8,\"ncclDevKernel_SendRecv\",5.000,10.000,-1"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "1,4,r1 Compute,compute,compute,compute,11,\"late\",20.000,40.000,1"), "%s", c);
    TL_ASSERT(!strstr(c, ",55.000,59.000,"));
    free(c);
}

/* The committed two-H200 three-split run (results/), or the test skips. */
static void committed_three_split(char *run, size_t n)
{
    char probe[1100];
    snprintf(run, n, "%s/tristream-h200x2/three-split", tl_test_env("TL_RESULTS", "results"));
    snprintf(probe, sizeof probe, "%s/trace.rank0.csv.gz", run);
    if (access(probe, R_OK) != 0) TL_SKIP("no committed H200 traces at %s", probe);
}

/* An --iter-range reaching past the run is said as the selection used:
 * breakdown printed `selection: 150:250` and overlap `iters: 150:250` on a
 * run of iterations 0..199. The figures are those of 150:199, the line
 * apart; a range inside the run is said as typed. */
TL_TEST(iter_range_clipped_said)
{
    char run[1024];
    committed_three_split(run, sizeof run);
    static const char *const cases[][3] = {
        {"breakdown", "150:250", "# selection: 150:199 (--iter-range 150:250 clipped: the run has iterations 0..199)\n"},
        {"overlap", "150:250", "# iters: 150:199 (--iter-range 150:250 clipped: the run has iterations 0..199)\n"},
        {"breakdown", "150:", "# selection: 150:199 (--iter-range 150:, to the last iteration the run has)\n"},
        {"breakdown", "10:20", "# selection: 10:20\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s %s --iter-range %s", tl_test_bin(), cases[k][0], run,
                                           cases[k][1]);
        tl_test_output u = tl_test_capture("%s/trilap-analyze %s %s --iter-range 150:199", tl_test_bin(), cases[k][0],
                                           run);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, cases[k][2]), "%s --iter-range %s: exit %d, want '%s':\n%s%s",
                      cases[k][0], cases[k][1], r.rc, cases[k][2], r.out, r.err);
        /* past the selection line, the same table as the range used */
        const char *a = strchr(strstr(r.out, cases[k][2]), '\n'), *b = strstr(u.out, "# selection: 150:199\n");
        if (!b) b = strstr(u.out, "# iters: 150:199\n");
        TL_ASSERT_MSG(b && (strcmp(cases[k][1], "10:20") == 0 || !strcmp(a, strchr(b, '\n'))),
                      "%s --iter-range %s differs from 150:199:\n%s\n---\n%s", cases[k][0], cases[k][1], r.out, u.out);
        tl_test_output_free(&r);
        tl_test_output_free(&u);
    }
}

/* timeline and perfetto say the selection used, clipped, as breakdown and
 * overlap do (before: timeline's "# iterations: 150:250" of a run of 200,
 * perfetto no range at all) */
TL_TEST(iter_range_clipped_said_timeline_perfetto)
{
    char run[1024];
    committed_three_split(run, sizeof run);
    const char *t = tl_test_tmpdir();
    static const char *const cases[][3] = {
        {"timeline", "150:250", "# iterations: 150:199 (--iter-range 150:250 clipped: the run has iterations 0..199)\n"},
        {"perfetto", "150:250", "# iterations: 150:199 (--iter-range 150:250 clipped: the run has iterations 0..199)\n"},
        {"timeline", "10:20", "# iterations: 10:20\n"},
        {"perfetto", "150:", "# iterations: 150:199 (--iter-range 150:, to the last iteration the run has)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s %s --iter-range %s -o %s/o.%zu", tl_test_bin(),
                                           cases[k][0], run, cases[k][1], t, k);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, cases[k][2]), "%s --iter-range %s: exit %d, want '%s':\n%s%s",
                      cases[k][0], cases[k][1], r.rc, cases[k][2], r.out, r.err);
        tl_test_output_free(&r);
    }
}

/* --iter-range counts and sums one set of operations: those whose part on
 * the rank has time in the selection. On three-split's last iteration rank
 * 0's SendRecv began in iteration 198 (before: "0 operations" beside
 * 46.7 us, and diagnose's most delayed #199 missing from overlap's table,
 * its `by time:` and `most exposed:` lines "0 operations, 56.5 us");
 * the three ranges add up to the run in time, in count plus the one that
 * straddles a boundary. */
TL_TEST(iter_range_counts_what_it_sums)
{
    char run[1024];
    committed_three_split(run, sizeof run);
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --iter-range 199:199", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "  0    *                                             2    79.4     15.3"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "  0    ncclDevKernel_SendRecv                        1    46.7"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "  ncclDevKernel_SendRecv                  199    -         1  47.8\n"), "%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s --iter-range 199:199", tl_test_bin(), run), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "2 communication operations spent 79.4 of their 94.7 us (84%, 39.7 us each)") &&
                      strstr(o, "#199 of its kernel (no iteration marked on it): rank 1 came 47.8 us "
                                "after the first"),
                  "%s", o);
    /* diagnose's lists of operations count the same one (before: "0
     * operations, 56.5 us", counted where it started); rank 1's one
     * iteration has no communication (before: "no iterations marked") */
    TL_ASSERT_MSG(strstr(o, "by time: ncclDevKernel_SendRecv (kernel; the trace names no operation) on the p2p stream "
                            "23: 1 operation, 56.5 us\n") &&
                      strstr(o, "p2p/coll 0.0/0.0 % of W < 2; no iteration communicates") &&
                      strstr(o, "most exposed: ncclDevKernel_SendRecv (kernel; the trace names no operation) on the "
                                "p2p stream 23: 1 operation, 9.0 us not under compute of their 56.5 us\n"),
                  "%s", o);
    free(o);
    static const char *const parts[] = {"--iter-range 0:0", "--iter-range 1:198", "--iter-range 199:199", ""};
    double n[4], w[4], x[4];
    for (int k = 0; k < 4; k++) {
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s %s", tl_test_bin(), run, parts[k]), 0);
        o = out_of(t, "out");
        const char *row = strstr(o, "\n  0    *  ");
        TL_ASSERT_MSG(row && sscanf(row + 10, "%lf %lf %lf", &n[k], &w[k], &x[k]) == 3, "%s", o);
        free(o);
    }
    TL_ASSERT_NEAR(w[0] + w[1] + w[2], w[3], 0.15);
    TL_ASSERT_NEAR(x[0] + x[1] + x[2], x[3], 0.15);
    TL_ASSERT_EQ((long)(n[0] + n[1] + n[2]), (long)n[3] + 1);
}

/* The timeline's work_start_us (the wait plots/timeline.gp hatches) is
 * the waiting that overlap and diagnose report: each communication
 * kernel's wait ends at its operation's last arrival as match.c pairs
 * them (the k-th kernel of a name on every rank). Before, the timeline
 * paired kernels whose ends lay within 5 us: on three-split rank 1 36.4 us
 * of waiting against overlap's 359.8, rank 0 15495.6 against 15762.1. */
TL_TEST(timeline_waits_are_overlaps)
{
    char run[1024];
    committed_three_split(run, sizeof run);
    char tl[600];
    const char *t = tl_test_tmpdir();
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --iter-range 0:199 -o %s", tl_test_bin(), run, tl), 0);
    char *c = tl_test_read(tl), *save = NULL;
    double wait[2] = {0, 0};
    for (char *line = strtok_r(c, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int rank;
        double start, ws;
        /* rank,row,"label",lane,cat,category,cat_id,"name",start_us,end_us,iter,work_start_us,... */
        if (sscanf(line, "%d,", &rank) != 1 || rank < 0 || rank > 1) continue;
        const char *name_end = strstr(line, "\",");
        if (!name_end || sscanf(name_end + 2, "%lf,%*f,%*d,%lf", &start, &ws) != 2) continue;
        wait[rank] += ws - start;
    }
    free(c);
    TL_ASSERT_NEAR(wait[0], 15762.1, 0.2);
    TL_ASSERT_NEAR(wait[1], 359.8, 0.2);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "\n  0    *                                           400 15762.1") &&
                      strstr(o, "\n  1    *                                           400   359.8"),
                  "%s", o);
    free(o);
}

/* A first rank that recorded nothing gives no span: the first rank with
 * activity does, and the preamble names it. (Before, timeline found no
 * iterations in rank 0 and drew the whole window, "none recorded".) */
TL_TEST(timeline_span_from_first_active_rank)
{
    const char *t = tl_test_tmpdir();
    char run[512], tl[600];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0, "");
    trace(run, 1,
          "1,1,1,compute,compute,kernel,k0,0,10000,1,-1,0\n"
          "1,1,1,compute,compute,kernel,k1,20000,30000,2,-1,1\n"
          "1,1,1,compute,compute,kernel,k2,40000,50000,3,-1,2\n"
          "1,1,1,compute,compute,kernel,k3,60000,70000,4,-1,3\n");
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --count 2 -o %s", tl_test_bin(), run, tl), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# iterations: 1:2\n"), "%s", o);
    TL_ASSERT_MSG(strstr(o, "# span: 40.0 us, the selection on rank 1 (the first with activity in it)"), "%s", o);
    free(o);
    char *c = tl_test_read(tl);
    TL_ASSERT_MSG(strstr(c, "\"k1\",0.000,10.000,1") && strstr(c, "\"k2\",20.000,30.000,2") && !strstr(c, "\"k0\""),
                  "%s", c);
    free(c);
    /* a range too (iteration 3 runs to the window end): rank 0 has nothing
     * to select from, and is not refused */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --iter-range 3:3 -o %s", tl_test_bin(), run, tl), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# span: 40.0 us, the selection on rank 1"), "%s", o);
    free(o);
}

/* An --iter-range that selects nothing on any rank is refused by
 * breakdown as by overlap, naming the run, the range and the iterations
 * the run has (before: "# 0 rows", a CSV of its header alone, exit 0; then
 * the range alone), and on a run that marks no iterations at all, saying
 * so and how they are marked; nothing printed or written. (A rank without
 * them beside ranks that have them adds nothing:
 * breakdown_categories_and_bandwidth.) */
TL_TEST(breakdown_refuses_empty_iter_range)
{
    const char *t = tl_test_tmpdir();
    char run[512], flat[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    snprintf(flat, sizeof flat, "%s/flat", t);
    snprintf(csv, sizeof csv, "%s/b.csv", t);
    for (int r = 0; r < 2; r++) {
        char rows[512];
        snprintf(rows, sizeof rows,
                 "%d,%d,1,compute,compute,kernel,k,0,10000,1,-1,0\n"
                 "%d,%d,1,compute,compute,kernel,k,20000,30000,2,-1,1\n",
                 r, r, r, r);
        trace(run, r, rows);
        snprintf(rows, sizeof rows, "%d,%d,1,compute,compute,kernel,k,0,10000,1,-1,-1\n", r, r);
        trace(flat, r, rows);
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --iter-range 1:1 %s", tl_test_bin(), run), 0);
    static const char *const cases[][3] = {
        {"breakdown --iter-range 5:6 --csv %s %s", "run",
         ": no GPU activity in iterations 5:6 on any of its 2 ranks (the run has iterations 0..1)\n"},
        {"breakdown --iter-range 0:1 --csv %s %s", "flat",
         ": no GPU activity in iterations 0:1 on any of its 2 ranks (the trace marks no iterations: trilap's probes "
         "mark them (tl_probe_iter_begin / tl_probe_iter_end, probes/README.md)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1400], want[700];
        snprintf(args, sizeof args, cases[i][0], csv, i ? flat : run);
        snprintf(want, sizeof want, "%s%s", i ? flat : run, cases[i][2]);
        refused(1, args, want);
        TL_ASSERT_MSG(access(csv, F_OK) != 0, "%s: wrote %s before refusing", args, csv);
    }
}

/* timeline --count and overlap's per-iteration output on a run that marks
 * no iterations: refused in one line naming the run and why (before: the
 * same whole-window file whatever --count said, and "# 0 rows" with a CSV
 * of its header alone); without them the whole window is drawn. */
TL_TEST(iteration_options_need_iterations)
{
    const char *t = tl_test_tmpdir();
    char flat[512], out[600];
    snprintf(flat, sizeof flat, "%s/flat", t);
    snprintf(out, sizeof out, "%s/o.csv", t);
    trace(flat, 0, "0,0,1,compute,compute,kernel,k,0,10000,1,-1,-1\n");
    trace(flat, 1, "1,1,1,compute,compute,kernel,k,0,10000,1,-1,-1\n");
    static const char *const cases[][2] = {
        {"timeline --count 1 %s -o %s", "--count does not apply to %s: it marks no iterations (iter -1 "
                                        "everywhere), so the timeline is its whole window"},
        {"overlap --per-iter %s", "--per-iter does not apply to %s: it marks no iterations (iter -1 everywhere), "
                                  "so there is no iteration to report"},
        {"overlap %s --iter-csv %s", "--iter-csv does not apply to %s: it marks no iterations"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[1400], want[900];
        snprintf(args, sizeof args, cases[i][0], flat, out);
        snprintf(want, sizeof want, cases[i][1], flat);
        refused(2, args, want);
        TL_ASSERT_MSG(access(out, F_OK) != 0, "%s: wrote %s before refusing", args, out);
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s -o %s", tl_test_bin(), flat, out), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# iterations: none recorded (iter -1 everywhere): the whole window"), "%s", o);
    /* drawn from the window's start: it said "from the first selected
     * iteration's start" of a run that has none */
    TL_ASSERT_MSG(strstr(o, " (times in us from the window's start)\n") && !strstr(o, "iteration's start"), "%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), flat), 0);
}

TL_TEST(compare_runs_and_results)
{
    const char *t = tl_test_tmpdir();
    char a[512], b[512], res[600];
    snprintf(a, sizeof a, "%s/two-stream", t);
    snprintf(b, sizeof b, "%s/three-split", t);
    synth(a, "two-stream", 2, 20);
    synth(b, "split", 2, 20);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), a, b), 0);
    char *o = out_of(t, "out");
    /* 65 us vs 55 us per iteration */
    TL_ASSERT_MSG(strstr(o, "# speedup of B over A: 1.182x"), "%s", o);
    free(o);
    snprintf(res, sizeof res, "%s/results.csv", t);
    tl_test_write(
        res,
        "# a comment\nvariant,nranks,rep,us_per_iter,ring_bytes\n"
        "two-stream,2,0,80.0,256000\ntwo-stream,2,1,82.0,256000\ntwo-stream,2,2,79.0,256000\n"
        "three-split,2,0,64.0,256000\nthree-split,2,1,66.0,256000\nthree-split,2,2,65.0,256000\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s --baseline two-stream", tl_test_bin(), res), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "three-split") && strstr(o, "1.231"), "%s", o); /* 80 / 65 */
    free(o);
    tl_test_write(res, "variant,nranks,rep,us_per_iter\nthree-split,2,0,abc\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s", tl_test_bin(), res), 1);
    char *e = out_of(t, "err");
    TL_ASSERT(strstr(e, "results.csv:2: bad us_per_iter 'abc'"));
    free(e);
}

/* Two results files of which no row meets the other's: a trilap-bench
 * tristream file beside a trilap-solve one, or one program at other GPU
 * counts. Refused in one line naming both files' variants, nothing on
 * stdout (before: a table whose B and speedup columns were all "-", exit
 * 0); files that share one variant are still compared. */
TL_TEST(compare_refuses_files_sharing_no_row)
{
    const char *t = tl_test_tmpdir();
    char bench[600], solve[600], four[600];
    snprintf(bench, sizeof bench, "%s/tristream.csv", t);
    snprintf(solve, sizeof solve, "%s/solve.csv", t);
    snprintf(four, sizeof four, "%s/four.csv", t);
    tl_test_write(bench, "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,80.0\nthree-split,2,0,64.0\n");
    tl_test_write(solve, "solver,precond,schedule,backend,matrix,nranks,rep,us_per_iter\n"
                         "pipecg,jacobi,two-stream,cuda:trilap,gen:poisson7:64,2,0,90.0\n");
    tl_test_write(four, "variant,nranks,rep,us_per_iter\ntwo-stream,4,0,85.0\nthree-split,4,0,70.0\n");
    const char *const pairs[][3] = {
        {bench, solve, "(A's: two-stream, three-split; B's: pipecg/jacobi/two-stream/cuda:trilap:gen:poisson7:64)"},
        {solve, bench, "(A's: pipecg/jacobi/two-stream/cuda:trilap:gen:poisson7:64; B's: two-stream, three-split)"},
        {bench, four, "(A's: two-stream, three-split; B's: two-stream, three-split)"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char args[2048], want[2048];
        snprintf(args, sizeof args, "compare %s %s", pairs[i][0], pairs[i][1]);
        snprintf(want, sizeof want, "trilap-analyze: %s and %s share no variant at the same number of ranks %s: "
                 "compare sets runs of one kind side by side", pairs[i][0], pairs[i][1], pairs[i][2]);
        refused(1, args, want);
    }
    /* one variant in common: the table, the others' B columns "-" */
    tl_test_write(four, "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,40.0\nthree-naive,4,0,70.0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), bench, four), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "2.000") && strstr(o, "three-split"), "%s", o); /* 80 / 40 */
    free(o);
}

/* A value of a results file that cannot be read says why, in one line,
 * exit 1 (before: "bad ring_bytes '1K'", "bad nranks '0'", the reason
 * left to guess). */
TL_TEST(results_values_say_why)
{
    const char *t = tl_test_tmpdir();
    static const char *const cases[][3] = {
        {"sweep", "variant,nranks,rep,us_per_iter,ring_bytes\ntwo-stream,2,0,80,1K\n",
         "r.csv:2: bad ring_bytes '1K': not a number (the swept column)"},
        {"compare", "variant,nranks,rep,us_per_iter\ntwo-stream,0,0,80\n",
         "r.csv:2: bad nranks '0': not a whole number of 1 or more"},
        {"compare", "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,-1\n",
         "r.csv:2: bad us_per_iter '-1': not a number of 0 or more"},
        {"compare", "solver,nranks,rep,iterations,solver_time_s\ncg,1,0,10,x\n",
         "r.csv:2: bad solver_time_s 'x': not a number of 0 or more"},
        /* a time beyond 2^61 ns (a damaged row): it was read, printed as
         * the variant's max and moved its median, exit 0 */
        {"compare", "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,80\ntwo-stream,2,1,99999999999999999999999999\n",
         "r.csv:3: bad us_per_iter '99999999999999999999999999': beyond 2^61 ns (73 years), not a time"},
        {"sweep", "variant,nranks,rep,us_per_iter,ring_bytes\ntwo-stream,2,0,3e15,8\n",
         "r.csv:2: bad us_per_iter '3e15': beyond 2^61 ns"},
        {"compare", "solver,nranks,rep,iterations,solver_time_s\ncg,1,0,10,3e9\n",
         "r.csv:2: bad solver_time_s '3e9': beyond 2^61 ns"},
    };
    char res[600];
    snprintf(res, sizeof res, "%s/r.csv", t);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_write(res, cases[i][1]);
        char args[1000];
        snprintf(args, sizeof args, "%s %s", cases[i][0], res);
        refused(1, args, cases[i][2]);
    }
}

/* One run or results file as A and B, whatever the spelling, is refused
 * in one line (exit 2), as breakdown refuses one input given twice: it
 * printed its figures twice with speedup 1.000 throughout, exit 0. */
TL_TEST(compare_refuses_one_input_twice)
{
    const char *t = tl_test_tmpdir();
    char a[512], res[600], csv[600];
    snprintf(a, sizeof a, "%s/run", t);
    synth(a, "two-stream", 2, 20);
    snprintf(res, sizeof res, "%s/results.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,80.0\nthree-split,2,0,64.0\n");
    snprintf(csv, sizeof csv, "%s/c.csv", t);
    const struct {
        const char *fmt, *x, *y;
    } twice[] = {{"%s %s", a, a}, {"%s %s/", a, a}, {"%s %s/../run", a, a}, {"%s %s/./results.csv", res, t}};
    for (size_t k = 0; k < sizeof twice / sizeof twice[0]; k++) {
        char args[1400];
        snprintf(args, sizeof args, twice[k].fmt, twice[k].x, twice[k].y);
        char full[2100];
        snprintf(full, sizeof full, "compare --csv %s %s", csv, args);
        refused(2, full, "one input given twice (A against itself");
        TL_ASSERT_MSG(access(csv, F_OK) != 0, "%s: wrote %s before refusing", args, csv);
    }
}

/* compare's and timeline's options applied or refused in one line (exit 2),
 * never accepted and ignored. Before, `--baseline nonexistent` printed
 * every B and speedup column as "-" with exit 0, and --baseline with two
 * files, --iter-range on results files and --count beside --iter-range
 * changed nothing. */
/* A traced run and a second input that is not one: the message names the
 * second input and what is wrong with it (before, each of these said "RUN
 * is one traced run and holds no results file: compare needs a second
 * run"). */
TL_TEST(compare_names_second_input)
{
    const char *t = tl_test_tmpdir();
    char run[512], res[600], fifo[600], dir[600];
    snprintf(run, sizeof run, "%s/three-split", t);
    synth(run, "split", 2, 20);
    snprintf(res, sizeof res, "%s/tristream.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter\nthree-split,2,0,64.0\n");
    snprintf(fifo, sizeof fifo, "%s/p.fifo", t);
    TL_ASSERT_EQ(mkfifo(fifo, 0600), 0);
    snprintf(dir, sizeof dir, "%s/empty", t);
    TL_ASSERT_EQ(mkdir(dir, 0755), 0);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/nonexistent", t);
    const char *const cases[][2] = {{missing, "nonexistent: No such file or directory"},
                                    {fifo, "p.fifo: a pipe or a device"},
                                    {res, "tristream.csv is a file but no trace"},
                                    {dir, "empty holds no traces"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int order = 0; order < 2; order++) {
            TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), order ? cases[i][0] : run,
                            order ? run : cases[i][0]),
                         1);
            char *e = out_of(t, "err");
            TL_ASSERT_MSG(strstr(e, cases[i][1]) && !strstr(e, "holds no results file") && !strchr(strchr(e, '\n') + 1, '\n'),
                          "%s: %s", cases[i][0], e);
            free(e);
        }
}

TL_TEST(compare_and_timeline_options_refused)
{
    const char *t = tl_test_tmpdir();
    char res[600], run[512];
    snprintf(res, sizeof res, "%s/results.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,80.0\nthree-split,2,0,64.0\n");
    static const char *const bad[][2] = {
        {"compare %s --baseline nonexistent",
         "invalid --baseline 'nonexistent': %s has no such variant (its variants: two-stream, three-split)"},
        {"compare %s %s --baseline three-split", "--baseline does not apply with two inputs: B is the baseline"},
        {"compare %s --iter-range 0:1", "--iter-range does not apply to results files"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[800];
        snprintf(want, sizeof want, bad[i][1], res);
        char args[1400];
        snprintf(args, sizeof args, bad[i][0], res, res);
        refused(2, args, want);
    }
    /* the baseline present: applied, over it */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s --baseline three-split", tl_test_bin(), res), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "  two-stream       2    80.00 80.00 80.00    64.00 64.00 64.00   0.800"), "%s", o);
    free(o);
    /* the default baseline absent: the table says so instead of a column of "-" unexplained */
    tl_test_write(res, "variant,nranks,rep,us_per_iter\nthree-split,2,0,64.0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s", tl_test_bin(), res), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# baseline: A has no variant two-stream (--baseline's default), so the B columns are "
                            "empty; its variants: three-split"),
                  "%s", o);
    free(o);
    snprintf(run, sizeof run, "%s/run", t);
    late_then_even_run(run);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --iter-range 1:2 --count 5 -o %s/tl.csv", tl_test_bin(), run, t),
                 2);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "--count does not apply with --iter-range"), "%s", e);
    free(e);
}

TL_TEST(sweep_ideal_and_efficiency)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/results.csv", t);
    snprintf(csv, sizeof csv, "%s/sweep.csv", t);
    /* parts 12, 20, 50 us: ideal 50, sum 82; three-split median 55 -> (82-55)/(82-50) = 84.375 % */
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes\n"
                       "allreduce-only,2,0,12,1024\nring-only,2,0,20,1024\ndaxpy-only,2,0,50,1024\n"
                       "three-split,2,0,54,1024\nthree-split,2,1,55,1024\nthree-split,2,2,58,1024\n"
                       "three-split,2,0,99,4096\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x ring_bytes --csv %s", tl_test_bin(), res, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "ring_bytes,variant,nranks,reps,wrong,median_us,min_us,max_us,ideal_us,sum_parts_us,efficiency_pct\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "1024,three-split,2,3,0,55.000,54.000,58.000,50.000,82.000,84.4\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "1024,ring-only,2,1,0,20.000,20.000,20.000,50.000,82.000,\n"), "%s", c);
    /* no parts measured at 4096: no bound */
    TL_ASSERT_MSG(strstr(c, "4096,three-split,2,1,0,99.000,99.000,99.000,,,\n"), "%s", c);
    free(c);
    /* a column the file lacks: --x's value does not fit the input, exit 2
     * as compare's --baseline naming no variant (it was 1), in one line
     * naming the columns the file has */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x nosuchcol --csv %s.x", tl_test_bin(), res, csv), 2);
    char *e = out_of(t, "err"), *o = out_of(t, "out");
    TL_ASSERT_MSG(tl_test_one_line(e, "results.csv:1: no column nosuchcol (its columns: variant, nranks, rep, "
                                      "us_per_iter, ring_bytes)"),
                  "%s", e);
    TL_ASSERT_MSG(!o[0] && tl_test_sh("test ! -e %s.x", csv) == 0, "printed or wrote before refusing:\n%s", o);
    free(e);
    free(o);
}

/* The ideal bound is the max of all three parts: with one not measured
 * there is none (fmax passed over the missing one: ideal 20 of ring-only
 * beside sum_parts "-"). --x naming what a point is grouped by or
 * measures is refused as the command line's, exit 2 (--x rep drew a point
 * per repetition, --x variant was "bad variant: not a number", exit 1), and
 * so is a column of words, naming the columns of numbers (--x priorities
 * was "bad priorities 'on': not a number", exit 1). */
TL_TEST(sweep_bound_needs_every_part)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/results.csv", t);
    snprintf(csv, sizeof csv, "%s/sweep.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes\n"
                       "allreduce-only,2,0,12,1024\nring-only,2,0,20,1024\n"
                       "three-split,2,0,30,1024\nthree-split,2,1,26,1024\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --csv %s", tl_test_bin(), res, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "1024,three-split,2,2,0,28.000,26.000,30.000,,,\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "1024,ring-only,2,1,0,20.000,20.000,20.000,,,\n"), "%s", c);
    free(c);
    static const char *const cols[] = {"rep", "us_per_iter", "variant", "nranks"};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        char args[1500], want[300];
        snprintf(args, sizeof args, "sweep %s --x %s --csv %s.x", res, cols[k], csv);
        snprintf(want, sizeof want, "results.csv:1: --x %s: a column that names or measures a point (variant, nranks, "
                                    "rep, us_per_iter, wrong, ...), not a swept size", cols[k]);
        refused(2, args, want);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s.x", csv), 0);
    }
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,iters,priorities\n"
                       "three-split,2,0,30,1024,100,on\nthree-split,2,0,40,2048,100,on\n");
    char args[1500];
    snprintf(args, sizeof args, "sweep %s --x priorities --csv %s.x", res, csv);
    refused(2, args, "results.csv:2: --x priorities: a column of words ('on'), not a swept size: give a column "
                             "of numbers: ring_bytes, iters");
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s.x", csv), 0);
}

/* An output over an input kept read-only (as shared data is) is refused
 * as every output over an input is, exit 2: it was "cannot write: a
 * read-only file", exit 1, the file system's check coming first. */
TL_TEST(output_over_read_only_input)
{
    const char *t = tl_test_tmpdir();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0, "0,0,1,compute,compute,kernel,k,0,10000,1,-1,0\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,k,0,10000,1,-1,0\n");
    TL_ASSERT_EQ(sh(t, "mkdir %s/k && echo '{}' >%s/k/rank0.json && chmod 0444 %s/k/rank0.json %s/trace.rank*.csv", t, t,
                    t, run),
                 0);
    /* each case's paths under base: the run, or t for the Kineto folder k */
    static const struct {
        const char *args, *want;
        int kineto;
    } cases[] = {
        {"timeline %s -o %s/trace.rank0.csv", "--output %s/trace.rank0.csv would write over the input", 0},
        {"perfetto %s -o %s/trace.rank1.csv", "--output %s/trace.rank1.csv would write over the input", 0},
        {"collectives %s/k --csv %s/k/rank0.json", "--csv %s/k/rank0.json would write over the input", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *base = cases[k].kineto ? t : run;
        char args[1200], want[700];
        snprintf(args, sizeof args, cases[k].args, base, base);
        snprintf(want, sizeof want, cases[k].want, base);
        refused(2, args, want);
    }
}

/* `args` exits 1 with one line holding `want` on stderr, having
 * printed nothing and written no `csv` */
static void refused_one_line(const char *args, const char *csv, const char *want)
{
    char full[2400];
    snprintf(full, sizeof full, "%s --csv %s", args, csv);
    refused(1, full, want);
    TL_ASSERT_MSG(access(csv, F_OK) != 0, "%s: wrote %s before refusing", args, csv);
}

/* A sweep point's rows are repetitions of one configuration: rows of one
 * variant, rank count and size that differ in another column
 * (trace_mode off and nvtx) are refused naming the column, both values
 * and their lines (before: pooled, "reps 6" over two configurations);
 * columns measured per repetition (rep, us_per_iter, wrong) may differ. */
TL_TEST(sweep_refuses_mixed_configurations)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/results.csv", t);
    snprintf(csv, sizeof csv, "%s/sweep.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,daxpy_bytes,trace_mode,wrong\n"
                       "three-split,2,0,54,1024,64,off,0\nthree-split,2,1,55,1024,64,off,1\n"
                       "three-split,2,0,60,1024,64,nvtx,0\n");
    char args[900], want[900];
    snprintf(args, sizeof args, "sweep %s --x ring_bytes", res);
    snprintf(want, sizeof want, "%s:4: three-split, 2 ranks, ring_bytes 1024 again with trace_mode nvtx (line 2: "
                                "off): sweep takes a point's rows as repetitions of one configuration; give it a "
                                "file whose trace_mode is one value", res);
    refused_one_line(args, csv, want);
    /* another size column differing is another configuration too */
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,daxpy_bytes\n"
                       "three-split,2,0,54,1024,64\nthree-split,2,0,80,1024,128\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x ring_bytes", tl_test_bin(), res), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "again with daxpy_bytes 128 (line 2: 64)"), "%s", e);
    free(e);
    /* one configuration: its repetitions pooled, the swept sizes apart */
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,daxpy_bytes,trace_mode,wrong\n"
                       "three-split,2,0,54,1024,64,off,0\nthree-split,2,1,56,1024,64,off,0\n"
                       "three-split,2,0,70,4096,64,off,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x ring_bytes --csv %s", tl_test_bin(), res, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "\n1024,three-split,2,2,0,55.000,") && strstr(c, "\n4096,three-split,2,1,0,70.000,"), "%s", c);
    free(c);
}

/* A repetition whose results failed their check (wrong not 0) is left
 * out of its point's times and counted in the wrong column: a broken run's
 * speed is no measurement (before, 900 us of a wrong run was the max and
 * moved the median to 55, reps 3, unsaid). A point whose every repetition
 * is wrong has no time (reps 0, NaN), and so no bound where it is a part. */
TL_TEST(sweep_leaves_out_wrong_repetitions)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/results.csv", t);
    snprintf(csv, sizeof csv, "%s/sweep.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,wrong\n"
                       "allreduce-only,2,0,12,1024,0\nring-only,2,0,20,1024,0\ndaxpy-only,2,0,50,1024,0\n"
                       "three-split,2,0,54,1024,0\nthree-split,2,1,900,1024,3\nthree-split,2,2,55,1024,0\n"
                       "daxpy-only,2,0,50,4096,1\nthree-split,2,0,70,4096,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x ring_bytes --csv %s", tl_test_bin(), res, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "\n1024,three-split,2,2,1,54.500,54.000,55.000,50.000,82.000,85.9\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "\n4096,daxpy-only,2,0,1,,,,,,\n"), "%s", c);
    TL_ASSERT_MSG(strstr(c, "\n4096,three-split,2,1,0,70.000,70.000,70.000,,,\n"), "%s", c);
    free(c);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze sweep %s --x ring_bytes", tl_test_bin(), res), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "wrong: repetitions whose results failed their check"), "%s", o);
    free(o);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,wrong\nthree-split,2,0,54,1024,x\n");
    char args[900];
    snprintf(args, sizeof args, "sweep %s --x ring_bytes", res);
    strcat(csv, ".bad"); /* the table above is there: a new name shows nothing was written */
    refused_one_line(args, csv, "results.csv:2: bad wrong 'x': not a whole number of 0 or more");
}

/* compare leaves a failed repetition out of its medians, as sweep does,
 * and says which points lost one (before: in the median, 900 us of a run
 * whose results were wrong; then left out without a word) */
TL_TEST(compare_says_wrong_repetitions)
{
    const char *t = tl_test_tmpdir();
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/a.csv", t);
    snprintf(b, sizeof b, "%s/b.csv", t);
    tl_test_write(a, "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,54,0\nthree-split,2,1,900,3\n"
                     "three-split,2,2,56,0\n");
    tl_test_write(b, "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,60,0\nthree-split,2,1,62,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s", tl_test_bin(), a, b), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# A_wrong: repetitions left out of A's medians, their results failed their check (wrong "
                            "column not 0): three-split at 2 ranks 1\n") &&
                      !strstr(o, "B_wrong") && strstr(o, "three-split      2    55.00"),
                  "%s", o);
    free(o);
}

/* compare pools a variant's rows per GPU count as repetitions too: a
 * trilap-bench file of trace_mode off and nvtx (bench-trace-overhead.sh's
 * overhead.csv) or a trilap-solve file of two thread counts is refused as
 * sweep refuses it, naming the column, both values and their lines
 * (before: one median over both configurations, a speedup of 1.000 over
 * itself); the same rows in one configuration are compared. */
TL_TEST(compare_refuses_mixed_configurations)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/overhead.csv", t);
    snprintf(csv, sizeof csv, "%s/speedup.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,trace_mode,wrong\n"
                       "two-stream,1,0,60,1024,off,0\nthree-split,1,0,54,1024,off,0\n"
                       "two-stream,1,0,66,1024,nvtx,0\nthree-split,1,0,57,1024,nvtx,0\n");
    char args[900], want[900];
    snprintf(args, sizeof args, "compare %s", res);
    snprintf(want, sizeof want, "%s:4: two-stream, 1 ranks again with trace_mode nvtx (line 2: off): compare takes a "
                                "point's rows as repetitions of one configuration; give it a file whose trace_mode "
                                "is one value", res);
    refused_one_line(args, csv, want);
    snprintf(res, sizeof res, "%s/results.csv", t);
    tl_test_write(res, "solver,precond,schedule,backend,matrix,nranks,rep,iterations,omp_threads,us_per_iter\n"
                       "cg,jacobi,two-stream,host,m,1,0,10,1,90\ncg,jacobi,two-stream,host,m,1,0,10,2,50\n");
    TL_ASSERT_EQ(tl_test_sh("cp %s %s.copy", res, res), 0); /* one file twice is refused before it is read */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s %s.copy", tl_test_bin(), res, res), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, ":3: cg/jacobi/two-stream/host:m, 1 ranks again with omp_threads 2 (line 2: 1)"), "%s",
                  e);
    free(e);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes,trace_mode,wrong\n"
                       "two-stream,1,0,60,1024,off,0\nthree-split,1,0,54,1024,off,0\n"
                       "two-stream,1,1,62,1024,off,0\nthree-split,1,1,56,1024,off,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s --csv %s", tl_test_bin(), res, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "\nthree-split,1,55.00,54.00,56.00,61.00,60.00,62.00,1.109"), "%s", c);
    free(c);
}

/* A results row is read as RFC 4180 (tl_results_split): a quoted matrix
 * name keeps its comma, and a quote left open is refused with its line
 * (before: the rest of the row read as one field, the file compared) */
TL_TEST(results_rows_read_as_written)
{
    const char *t = tl_test_tmpdir();
    char res[600], csv[600];
    snprintf(res, sizeof res, "%s/results.csv", t);
    snprintf(csv, sizeof csv, "%s/speedup.csv", t);
    tl_test_write(res, "solver,precond,schedule,backend,matrix,nranks,rep,us_per_iter\n"
                       "cg,jacobi,two-stream,host,\"a,b.mtx\",1,0,90\ncg,jacobi,two-stream,host,\"a,b.mtx\",2,0,50\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s", tl_test_bin(), res), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "cg/jacobi/two-stream/host:a,b.mtx"), "%s", o);
    free(o);
    tl_test_write(res, "solver,precond,schedule,backend,matrix,nranks,rep,us_per_iter\n"
                       "cg,jacobi,two-stream,host,m,1,0,90\ncg,jacobi,two-stream,host,\"a,b.mtx,2,0,50\n");
    char args[900], want[900];
    snprintf(args, sizeof args, "compare %s", res);
    snprintf(want, sizeof want, "%s:3: quoted field 5 not closed on its line", res);
    refused_one_line(args, csv, want);
}

TL_TEST(huge_trace_streams)
{
    const char *t = tl_test_tmpdir();
    char run[512], path[600];
    snprintf(run, sizeof run, "%s/huge", t);
    synth(run, "split", 1, 10); /* warm the helper path */
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s/tests/helper_synth_trace %s split 1 10 200000000", tl_test_build(), run);
    TL_ASSERT(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/trace.rank0.csv", run);
    struct stat sb;
    TL_ASSERT(stat(path, &sb) == 0);
    TL_ASSERT_MSG(sb.st_size > 150000000, "only %lld bytes", (long long)sb.st_size);
    pid_t pid = fork();
    if (pid == 0) {
        char exe[600];
        snprintf(exe, sizeof exe, "%s/trilap-analyze", tl_test_bin());
        if (!freopen("/dev/null", "w", stdout)) _exit(127);
        execl(exe, exe, "overlap", run, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    TL_ASSERT(wait4(pid, &status, 0, &ru) == pid);
    TL_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    long long rss = (long long)ru.ru_maxrss * 1024;
    printf("file %lld bytes, peak RSS %lld bytes (%.0f%%)\n", (long long)sb.st_size, rss, 100.0 * rss / sb.st_size);
    /* 32 bytes kept per ~110-byte row of interest, host rows not kept */
    TL_ASSERT_MSG(rss < sb.st_size / 2, "peak RSS %lld for a %lld-byte trace", rss, (long long)sb.st_size);
    unlink(path);
}

/* -o and --csv to a pipe (a FIFO, as /dev/stdout behind `|`): the same
 * text as to a file, and the pipe stays a pipe. Before, the output went to
 * a temporary name renamed over the path, which put a regular file there
 * (as root even over /dev/stdout or /dev/null). */
TL_TEST(outputs_to_a_pipe)
{
    const char *t = tl_test_tmpdir();
    char run[512], fifo[600], file[600];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0,
          "0,0,1,compute,compute,kernel,k,0,50000,1,-1,0\n"
          "0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,20000,80000,2,-1,0\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,k,0,40000,1,-1,0\n");
    snprintf(fifo, sizeof fifo, "%s/pipe.csv", t);
    snprintf(file, sizeof file, "%s/file", t); /* no format's name: the CSV and the JSON alike */
    const char *how[] = {"timeline %s -o %s", "breakdown %s --csv %s", "perfetto %s -o %s"};
    for (int k = 0; k < 3; k++) {
        char to_pipe[1200], to_file[1200];
        snprintf(to_pipe, sizeof to_pipe, how[k], run, fifo);
        snprintf(to_file, sizeof to_file, how[k], run, file);
        int rd = tl_test_fifo(fifo);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s", tl_test_bin(), to_pipe), 0);
        char *piped = tl_test_fifo_read(fifo, rd);
        close(rd);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s", tl_test_bin(), to_file), 0);
        char *filed = tl_test_read(file);
        TL_ASSERT_MSG(piped[0] && strcmp(piped, filed) == 0, "%s: through the pipe:\n%.300s\nto a file:\n%.300s", how[k],
                      piped, filed);
        free(piped);
        free(filed);
        TL_ASSERT_EQ(unlink(fifo), 0);
    }
}

/* Every output is checked before a trace is read: a path under a plain
 * file is one line naming the option, nothing on stdout, no other output
 * written; a missing folder is made. */
TL_TEST(outputs_checked_before_reading)
{
    const char *t = tl_test_tmpdir();
    const char *run = "results/tristream-h200x2/three-split";
    char file[600];
    snprintf(file, sizeof file, "%s/afile", t);
    TL_ASSERT_EQ(sh(t, "echo x > %s", file), 0);
    static const char *const how[][2] = {
        {"overlap %s --csv %s/ok.csv --iter-csv %s/x.csv", "--iter-csv"},
        {"breakdown %s --csv %s/ok.csv --stack-csv %s/x.csv", "--stack-csv"},
        {"timeline %s --iter-range 0:0 -o %.0s%s/x.csv", "--output"},
        {"import %s -o %.0s%s/imp", "--output"},
    };
    for (size_t k = 0; k < sizeof how / sizeof how[0]; k++) {
        char args[2048];
        snprintf(args, sizeof args, how[k][0], run, t, file);
        tl_test_output r = tl_test_capture("%s/trilap-analyze %s", tl_test_bin(), args);
        TL_ASSERT_MSG(r.rc == 1 && !r.out[0] && tl_test_count(r.err, "\n") == 1 && strstr(r.err, how[k][1]) &&
                          strstr(r.err, "is not a folder"),
                      "%s: exit %d\n%s%s", args, r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
    TL_ASSERT_EQ(sh(t, "test ! -e %s/ok.csv", t), 0);
    /* two tables at one path, spelled two ways in a folder not made yet:
     * the options clash, exit 2 (was 1, as if the file system refused) */
    tl_test_output r = tl_test_capture("%s/trilap-analyze breakdown %s --csv %s/n/x.csv --stack-csv %s/n/../n/x.csv",
                                       tl_test_bin(), run, t, t);
    TL_ASSERT_MSG(r.rc == 2 && !r.out[0] && tl_test_count(r.err, "\n") == 1 &&
                      strstr(r.err, "--stack-csv and --csv both name") && strstr(r.err, "give each a file of its own"),
                  "exit %d\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(sh(t, "test ! -e %s/n", t), 0);
    r = tl_test_capture("%s/trilap-analyze overlap %s --csv %s/new/er/o.csv", tl_test_bin(), run, t);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(sh(t, "test -s %s/new/er/o.csv", t), 0);
}

/* trilap-analyze `args`, run in folder t: its exit code and stderr
 * (malloc'd, the caller's to free). */
static int analyze_in(const char *t, const char *args, char **err)
{
    char bin[PATH_MAX];
    TL_ASSERT(realpath(tl_test_bin(), bin));
    tl_test_output o = tl_test_capture("cd %s && %s/trilap-analyze %s", t, bin, args);
    free(o.out);
    *err = o.err;
    return o.rc;
}

/* Every output of trilap-analyze (-o, --csv, --iter-csv, --stack-csv,
 * import's folder) makes its missing folder once the inputs are read and
 * says it in one line, as trilap-solve's and trilap-model's outputs do
 * (tl_out_make_folder); nothing is said where it is there. An input
 * refused, a damaged row of the last rank's file among them (perfetto
 * wrote the ranks before it as it read them), stays one line and leaves
 * no folder. Before, each output's folder was made in silence, a typo in
 * a path unseen. */
TL_TEST(output_folders_made_and_said)
{
    char t[600], run[PATH_MAX], sqlite[PATH_MAX];
    snprintf(t, sizeof t, "%s", tl_test_tmpdir());
    TL_ASSERT(realpath("results/tristream-h200x2/three-split", run));
    TL_ASSERT(realpath("tests/data/nsys-torch-h200.sqlite", sqlite));
    static const struct {
        const char *args, *said[3];
    } made[] = {
        {"perfetto %s -o p/x/t.json", {"trilap-analyze: note: --output p/x/t.json: created folders p to p/x\n"}},
        {"timeline %s -o tl/t.csv", {"trilap-analyze: note: --output tl/t.csv: created folder tl\n"}},
        {"breakdown %s --csv b/b.csv --stack-csv bs/x/s.csv",
         {"trilap-analyze: note: --csv b/b.csv: created folder b\n",
          "trilap-analyze: note: --stack-csv bs/x/s.csv: created folders bs to bs/x\n"}},
        {"overlap %s --iter-csv o/i.csv", {"trilap-analyze: note: --iter-csv o/i.csv: created folder o\n"}},
        {"import %.0s" "%s -o imp/a", {"trilap-analyze: note: --output imp/a: created folders imp to imp/a\n"}},
    };
    static const char *const written[] = {"p/x/t.json", "tl/t.csv", "b/b.csv", "bs/x/s.csv", "o/i.csv",
                                          "imp/a/trace.rank0.csv"};
    for (size_t k = 0; k < sizeof made / sizeof made[0]; k++) {
        char args[3000], *err;
        snprintf(args, sizeof args, made[k].args, run, sqlite);
        for (int again = 0; again < 2; again++) { /* the second time the folders are there: nothing said */
            int rc = analyze_in(t, args, &err), n = 0;
            TL_ASSERT_MSG(rc == 0, "%s: exit %d\n%s", args, rc, err);
            for (; !again && made[k].said[n]; n++)
                TL_ASSERT_MSG(tl_test_count(err, made[k].said[n]) == 1, "%s: not once: %s in\n%s", args,
                              made[k].said[n], err);
            TL_ASSERT_MSG(tl_test_count(err, "created folder") == n, "%s (again %d):\n%s", args, again, err);
            free(err);
        }
    }
    for (size_t k = 0; k < sizeof written / sizeof written[0]; k++)
        TL_ASSERT_MSG(sh(t, "test -s %s/%s", t, written[k]) == 0, "%s not written", written[k]);
    /* rank 1's row 3000 damaged (its start_ns 'x'), after rank 0 read
     * whole; a Kineto trace's second kernel without its dur, found as
     * import converts it */
    TL_ASSERT_EQ(sh(t, "cd %s && mkdir bad && cp %s/trace.rank0.csv.gz bad/ && gzip -dc %s/trace.rank1.csv.gz | "
                       "awk -F, -v OFS=, 'NR == 3000 { $8 = \"x\" } 1' > bad/trace.rank1.csv",
                    t, run, run),
                 0);
    char nodur[700];
    snprintf(nodur, sizeof nodur, "%s/nodur.json", t);
    tl_test_write(nodur,
                  "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
                  "\"ts\": 1000, \"dur\": 20, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}, "
                  "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1030, "
                  "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}}]}\n");
    static const struct {
        const char *args, *says;
    } refused_in[] = {
        {"perfetto bad -o rp/x/t.json", "bad/trace.rank1.csv:3000: bad number in start_ns: 'x'"},
        {"timeline bad -o rt/t.csv", "bad/trace.rank1.csv:3000: bad number in start_ns: 'x'"},
        {"breakdown bad --csv rb/b.csv", "bad/trace.rank1.csv:3000: bad number in start_ns: 'x'"},
        {"import nodur.json -o ri/a", "'gemm' (kernel) has no dur"},
    };
    for (size_t k = 0; k < sizeof refused_in / sizeof refused_in[0]; k++) {
        char *err;
        int rc = analyze_in(t, refused_in[k].args, &err);
        TL_ASSERT_MSG(rc == 1 && tl_test_one_line(err, refused_in[k].says), "%s: exit %d\n%s", refused_in[k].args, rc,
                      err);
        free(err);
    }
    TL_ASSERT_MSG(sh(t, "cd %s && test ! -e rp && test ! -e rt && test ! -e rb && test ! -e ri", t) == 0,
                  "a folder left by a refused input");
}

/* Whether the CSV rows' first `nkey` fields are distinct: the table's key. */
static int csv_keys_unique(const char *csv, int nkey, int *nrows)
{
    char *dup = strdup(csv), *save = NULL, **keys = NULL;
    int n = 0, unique = 1;
    strtok_r(dup, "\n", &save); /* the header */
    for (char *line; (line = strtok_r(NULL, "\n", &save));) {
        int f = 0, quoted = 0;
        char *p = line;
        for (; *p && f < nkey; p++) {
            if (*p == '"') quoted = !quoted;
            else if (*p == ',' && !quoted) f++;
        }
        keys = realloc(keys, (size_t)(n + 1) * sizeof *keys);
        keys[n++] = strndup(line, (size_t)(p - line));
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && unique; j++) unique = strcmp(keys[i], keys[j]) != 0;
    for (int i = 0; i < n; i++) free(keys[i]);
    free(keys);
    free(dup);
    *nrows = n;
    return unique;
}

/* breakdown of two runs of one name (a/three-split, b/three-split): a
 * # input: line for each, every row's run the trailing path that tells
 * them apart, so the CSV's key (run, rank, level, category, name) is
 * unique (before: one # input: line naming the first, both runs
 * "three-split"); one run given twice, however spelt, refused in one line
 * before anything is printed or written (before: every row twice). */
TL_TEST(breakdown_runs_told_apart)
{
    const char *t = tl_test_tmpdir();
    char a[512], b[512], csv[600], want[700];
    snprintf(a, sizeof a, "%s/a", t);
    mkdir(a, 0755);
    snprintf(a, sizeof a, "%s/a/three-split", t);
    snprintf(b, sizeof b, "%s/b", t);
    mkdir(b, 0755);
    snprintf(b, sizeof b, "%s/b/three-split", t);
    synth(a, "split", 2, 5);
    synth(b, "split", 2, 5);
    snprintf(csv, sizeof csv, "%s/bd.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --csv %s %s %s", tl_test_bin(), csv, a, b), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    for (int k = 0; k < 2; k++) {
        snprintf(want, sizeof want, "# input: %s\n", k ? b : a);
        TL_ASSERT_MSG(strstr(o, want), "no '%s' in:\n%.2000s", want, o);
        snprintf(want, sizeof want, "\n%s/three-split,", k ? "b" : "a");
        TL_ASSERT_MSG(strstr(c, want), "no row of run %s/three-split in:\n%.2000s", k ? "b" : "a", c);
    }
    int n = 0;
    TL_ASSERT_MSG(csv_keys_unique(c, 5, &n) && n > 0, "a key repeats among %d rows:\n%.3000s", n, c);
    free(o);
    free(c);
    /* one run twice: refused whatever the spelling, --hta too */
    remove(csv);
    static const char *const twice[] = {"%s %s", "%s %s/", "%s %s/../three-split", "--hta %s %s"};
    for (size_t k = 0; k < sizeof twice / sizeof twice[0]; k++) {
        char args[1400];
        snprintf(args, sizeof args, twice[k], a, a);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --csv %s %s", tl_test_bin(), csv, args), 2);
        char *e = out_of(t, "err");
        o = out_of(t, "out");
        TL_ASSERT_MSG(tl_test_one_line(e, "one input given twice"), "%s: not one line:\n%s", args, e);
        TL_ASSERT_MSG(strstr(e, a), "%s: the input is not named: %s", args, e);
        TL_ASSERT_MSG(!o[0] && access(csv, F_OK) != 0, "%s: printed or wrote before refusing:\n%s", args, o);
        free(e);
        free(o);
    }
    /* a folder and one of its files (a Kineto folder and its rank-0 JSON
     * printed that rank's rows twice) */
    char one[1100];
    snprintf(one, sizeof one, "%s/trace.rank0.csv", a);
    TL_ASSERT_MSG(access(one, R_OK) == 0, "no %s", one);
    char args[3000];
    snprintf(args, sizeof args, "breakdown --csv %s %s %s", csv, a, one);
    refused(2, args, "one is a file of the other folder");
}

/* A rank file cut short (fewer rows than its records= says) is refused
 * naming the flag that reads it anyway (before: "accept it explicitly",
 * no flag named), and --help says the flag covers such files. */
TL_TEST(cut_file_names_the_flag)
{
    const char *t = tl_test_tmpdir();
    char run[512], path[600];
    snprintf(run, sizeof run, "%s/run", t);
    mkdir(run, 0755);
    snprintf(path, sizeof path, "%s/trace.rank0.csv", run);
    tl_test_write(path, "# format=trilap-trace\n# version=1\n# rank=0\n# nranks=1\n# records=3\n"
                        "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
                        "0,0,1,compute,compute,kernel,k,0,1000,1,-1,0\n"
                        "0,0,1,compute,compute,kernel,k,2000,3000,2,-1,1\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s", tl_test_bin(), run), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(strstr(e, "cut short") && strstr(e, "--accept-incomplete"), "the flag is not named: %s", e);
    free(e);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --accept-incomplete %s", tl_test_bin(), run), 0);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --help", tl_test_bin()), 0);
    char *o = out_of(t, "out");
    char *flag = strstr(o, "--accept-incomplete");
    TL_ASSERT_MSG(flag && strstr(flag, "cut short") && strstr(flag, "cut short") < strstr(flag, "\n  -"),
                  "--help does not say the flag reads cut files:\n%s", o);
    free(o);
}

/* The top-level --help names every kind of input the commands read, and
 * each command's line the arguments its own --help takes (before: no
 * PyTorch traces, import "FILE.sqlite -o DIR"). */
TL_TEST(top_help_agrees_with_commands)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze --help", tl_test_bin()), 0);
    char *top = out_of(t, "out");
    char *cmds = strstr(top, "commands:\n");
    TL_ASSERT(cmds);
    /* the summary above the commands (a command's own line names it too) */
    char head[1024];
    snprintf(head, sizeof head, "%.*s", (int)(cmds - top), top);
    TL_ASSERT_MSG(strstr(head, "PyTorch") && strstr(head, "Nsight Systems") && strstr(head, "trace.rank<R>.csv"),
                  "an input kind is missing:\n%s", head);
    int ncmd = 0, col = -1;
    for (char *line = strchr(cmds, '\n') + 1; *line == ' '; line = strchr(line, '\n') + 1, ncmd++) {
        char name[32] = "", mine[512] = "";
        char *eol = strchr(line, '\n');
        TL_ASSERT(sscanf(line, " %31s", name) == 1);
        /* every description in one column, a blank at least after the
         * longest name (collectives' was one column right of the others) */
        const char *d = strstr(line, name) + strlen(name);
        int at = (int)(d + strspn(d, " ") - line);
        TL_ASSERT_MSG(col < 0 || at == col, "%s's description at column %d, the others' at %d:\n%s", name, at, col,
                      cmds);
        TL_ASSERT_MSG(d[0] == ' ' && d[1] == ' ', "%s: fewer than two blanks before its description:\n%s", name, cmds);
        col = at;
        snprintf(mine, sizeof mine, "%.*s", (int)(eol - line), line);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --help", tl_test_bin(), name), 0);
        char *h = out_of(t, "out"), *u = strstr(h, "usage: ");
        TL_ASSERT_MSG(u, "%s --help has no usage line", name);
        /* the usage's arguments, after the program and [options] */
        char args[512];
        snprintf(args, sizeof args, "%.*s", (int)strcspn(u, "\n"), u);
        char *save = NULL, *w = strtok_r(args, " ", &save);
        for (int k = 0; w; w = strtok_r(NULL, " ", &save), k++)
            if (k >= 3 && strcmp(w, "[options]") != 0)
                TL_ASSERT_MSG(strstr(mine, w), "%s: the top-level line '%s' lacks '%s' of its usage", name, mine, w);
        free(h);
    }
    TL_ASSERT(ncmd >= 8);
    free(top);
}

/* One rank's file given where a run goes is named as such, with the
 * folder to give instead (before: "neither a run folder, a PyTorch
 * profiler trace nor an Nsight Systems sqlite export"). */
TL_TEST(rank_file_given_alone)
{
    const char *t = tl_test_tmpdir();
    char run[512], want[1400];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0, "0,0,1,compute,compute,kernel,k,0,1000,1,-1,0\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,k,0,1000,1,-1,0\n");
    /* compare too, first or second (it said "a file but no trace (a
     * results file?)"), and alone ("no results file") */
    static const char *const cmds[] = {"overlap", "breakdown", "import -o %s/imp", "compare %s/run",
                                       "compare", "diagnose", "timeline -o %s/tl.csv"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char cmd[700];
        snprintf(cmd, sizeof cmd, cmds[k], t);
        char args[1500];
        snprintf(args, sizeof args, "%s %s/trace.rank1.csv", cmd, run);
        snprintf(want, sizeof want, "%s/trace.rank1.csv: one rank's file (rank 1) of a trilap run: give the run's "
                                    "folder, %s", run, run);
        refused(1, args, want);
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s/trace.rank1.csv %s", tl_test_bin(), run, run), 1);
    char *e = out_of(t, "err");
    TL_ASSERT_MSG(tl_test_one_line(e, want), "%s", e);
    free(e);
}

/* An output written over a file the command reads is refused before any
 * is read, by file (a rank's trace in a run folder, a Kineto JSON given
 * as such): `perfetto RUN -o RUN/trace.rank0.csv.gz` exited 0 and left a
 * run that no longer loads. The options clash: exit 2 (it was 1, as if the
 * file system had refused). Other files in the run's folder stay
 * writable. */
TL_TEST(outputs_over_inputs_refused)
{
    char run[1024];
    committed_three_split(run, sizeof run);
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(sh(t, "cp -r %s %s/run && cp %s/run/trace.rank1.csv.gz %s/keep.gz", run, t, t, t), 0);
    static const char *const cmds[][2] = {
        {"perfetto %s/run -o %s/run/trace.rank0.csv.gz", "--output %s/run/trace.rank0.csv.gz would write over the input "},
        {"timeline %s/run -o %s/./run/trace.rank1.csv.gz", "--output %s/./run/trace.rank1.csv.gz would write over"},
        {"overlap %s/run/ --csv %s/run/trace.rank1.csv.gz", "--csv %s/run/trace.rank1.csv.gz would write over"},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char args[2400], want[2400];
        snprintf(args, sizeof args, cmds[k][0], t, t);
        snprintf(want, sizeof want, cmds[k][1], t);
        refused(2, args, want);
    }
    TL_ASSERT_EQ(sh(t, "cmp %s/run/trace.rank1.csv.gz %s/keep.gz && %s/trilap-analyze timeline %s/run -o %s/run/tl.csv",
                    t, t, tl_test_bin(), t, t),
                 0);
}

/* Options that clash exit 2, as trilap-solve's do (they exited 1, as if the
 * file system had refused): two tables at one path, an output over a
 * Kineto JSON given as such or read from a folder given, an output named
 * for another format. A path the file system refuses stays 1. One line,
 * nothing on stdout, the input left as it was. */
TL_TEST(option_clashes_exit_2)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(sh(t, "mkdir %s/k && echo '{}' >%s/k/rank0.json && echo x >%s/afile", t, t, t), 0);
    static const struct {
        const char *args, *want;
        int rc;
    } cases[] = {
        {"overlap %s/k --csv %s/o.csv --iter-csv %s/./o.csv", "--iter-csv and --csv both name ", 2},
        {"collectives %s/k/rank0.json --csv %s/k/rank0.json", "--csv T/k/rank0.json would write over the input ", 2},
        {"breakdown %s/k --csv %s/k/./rank0.json", "would write over the input T/k/rank0.json: give the output", 2},
        {"timeline %s/k -o %s/t.svg", "--output T/t.svg: it writes CSV rows, not svg", 2},
        {"breakdown %s/k --csv %s/afile/b.csv", "--csv: T/afile/b.csv: cannot write there: T/afile is not a folder", 1},
        {"import %s/k -o %s/afile", "--output: T/afile: cannot write there", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char args[2400], want[1200], *w = want;
        snprintf(args, sizeof args, cases[k].args, t, t, t);
        for (const char *p = cases[k].want; *p && w < want + sizeof want - 1; p++) /* T: the folder */
            w += *p == 'T' && p[1] == '/' ? snprintf(w, want + sizeof want - w, "%s", t) : (*w = *p, 1);
        *w = '\0';
        refused(cases[k].rc, args, want);
    }
    TL_ASSERT_EQ(sh(t, "test \"$(cat %s/k/rank0.json)\" = '{}' && test ! -e %s/o.csv && test ! -e %s/t.svg", t, t, t), 0);
}

/* Fields of a printed table row split on blanks, a double-quoted field
 * ("my run") one field, as gnuplot and pandas read them. */
static int blank_fields(const char *line, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && line[i] == ' ') i++;
        if (i >= len) break;
        n++;
        if (line[i] == '"') {
            for (i++; i < len && !(line[i] == '"' && (i + 1 >= len || line[i + 1] != '"')); i += line[i] == '"' ? 2 : 1) {}
            i++;
        }
        while (i < len && line[i] != ' ') i++;
    }
    return n;
}

/* breakdown's run labels: "." names the folder itself (it said "."), and a
 * label with a blank is one field of its row (it shifted every field after
 * it for a reader that splits on blanks); the CSV keeps the label as is. */
TL_TEST(breakdown_labels_in_line)
{
    const char *t = tl_test_tmpdir();
    char a[512], b[512], csv[600];
    snprintf(a, sizeof a, "%s/three-split", t);
    snprintf(b, sizeof b, "%s/my run", t);
    synth(a, "split", 2, 5);
    TL_ASSERT_EQ(tl_test_sh("%s/tests/helper_synth_trace '%s' naive 2 5", tl_test_build(), b), 0);
    snprintf(csv, sizeof csv, "%s/bd.csv", t);
    char *bin = realpath(tl_test_bin(), NULL); /* the command runs in the run's folder */
    TL_ASSERT(bin);
    TL_ASSERT_EQ(sh(t, "cd '%s' && %s/trilap-analyze breakdown --csv %s . '%s'", a, bin, csv, b), 0);
    free(bin);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(o, "\n  three-split 0 ") && strstr(o, "\n  \"my run\"    0 ") && !strstr(o, "\n  . "),
                  "%s", o);
    TL_ASSERT_MSG(strstr(c, "\nthree-split,0,") && strstr(c, "\nmy run,0,"), "%s", c);
    /* every row as many fields as the names row (less its "#") */
    const char *h = strstr(o, "\n# run ");
    TL_ASSERT(h);
    h++;
    int want = blank_fields(h, strcspn(h, "\n")) - 1, rows = 0;
    for (const char *p = strstr(h, "\n  "); p; p = strstr(p + 1, "\n  ")) {
        size_t len = strcspn(p + 1, "\n");
        TL_ASSERT_MSG(blank_fields(p + 1, len) == want, "%.*s: not %d fields", (int)len, p + 1, want);
        rows++;
    }
    TL_ASSERT_MSG(rows > 10, "%s", o);
    free(o);
    free(c);
}

/* A printed table row split on blanks as gnuplot and pandas read it: a
 * field in double quotes is one field, its doubled quotes single. The
 * fields into f (NUL-ended); returns how many, -1 for a quote not closed. */
static int blank_split(const char *line, size_t len, char f[][256], int maxf)
{
    int n = 0;
    for (size_t i = 0; i < len && n < maxf;) {
        while (i < len && line[i] == ' ') i++;
        if (i >= len) break;
        size_t w = 0;
        if (line[i] == '"') {
            for (i++;; i++) {
                if (i >= len) return -1;
                if (line[i] == '"' && (i + 1 >= len || line[i + 1] != '"')) break;
                i += line[i] == '"';
                if (w < 255) f[n][w++] = line[i];
            }
            i++;
        }
        for (; i < len && line[i] != ' '; i++)
            if (w < 255) f[n][w++] = line[i];
        f[n++][w] = '\0';
    }
    return n;
}

/* Every table in out: each row as many fields as its names row (less the
 * "#"), split on blanks as blank_split reads them. Returns the tables seen. */
static int tables_in_line(const char *out, const char *cmd)
{
    static char f[64][256];
    int ntab = 0;
    for (const char *tab = strstr(out, "# table: "); tab; tab = strstr(tab + 1, "# table: ")) {
        const char *names = NULL, *units = NULL;
        int want = -1;
        for (const char *l = tab; *l; l = strchr(l, '\n') + 1) {
            size_t len = strcspn(l, "\n");
            if (!l[len]) break;
            if (!strncmp(l, "# ", 2) && len > 7 && !strncmp(l + len - 5, " rows", 5) &&
                strspn(l + 2, "0123456789") == len - 7)
                break; /* the footer, "# 12 rows" */
            if (l[0] == '#') {
                names = units, units = l; /* the last two "#" lines before the rows */
                continue;
            }
            if (want < 0) {
                TL_ASSERT_MSG(names, "%s: a row before a names row:\n%s", cmd, tab);
                want = blank_split(names, strcspn(names, "\n"), f, 64) - 1;
                TL_ASSERT_EQ(blank_split(units, strcspn(units, "\n"), f, 64) - 1, want);
            }
            TL_ASSERT_MSG(blank_split(l, len, f, 64) == want, "%s: '%.*s': not %d fields", cmd, (int)len, l, want);
        }
        ntab++;
    }
    return ntab;
}

/* Free text in every table is one field: a kernel name with a blank, a
 * comma and quotes, a copy's "memcpy DtoD", diagnose's measures ("comm_comm
 * %"), printed in double quotes, its quotes doubled (before: unquoted, so a
 * reader splitting on blanks put the rest of the row fields to the right;
 * only the run label was quoted); in the CSV quoted as RFC 4180 reads it
 * where a comma or quote is in it (runtime's tl_results_field, the
 * timeline's names always in quotes). */
TL_TEST(free_text_one_field)
{
    const char *t = tl_test_tmpdir();
    static const char kernel[] = "my kernel, \"fast\"";
    char run[512], csv[600], tl[600];
    snprintf(run, sizeof run, "%s/run", t);
    for (int r = 0; r < 2; r++) {
        char rows[1024];
        snprintf(rows, sizeof rows,
                 "%d,%d,1,compute,compute,kernel,\"my kernel, \"\"fast\"\"\",0,10000,1,-1,0\n"
                 "%d,%d,4,copy,memcpy,memcpy,memcpy DtoD,20000,30000,2,4096,0\n"
                 "%d,%d,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,30000,50000,3,1000,0\n",
                 r, r, r, r, r, r);
        trace(run, r, rows);
    }
    snprintf(csv, sizeof csv, "%s/bd.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_EQ(tables_in_line(o, "breakdown"), 1);
    /* rank 0's rows of the two names, printed and in the CSV, read back */
    static const char *const name[] = {kernel, "memcpy DtoD"}, *const cat[] = {"compute", "memcpy"};
    static char f[64][256];
    for (int k = 0; k < 2; k++) {
        int found = 0;
        for (const char *l = strstr(o, "\n  run 0 "); l && !found; l = strstr(l + 1, "\n  run 0 ")) {
            int n = blank_split(l + 1, strcspn(l + 1, "\n"), f, 64);
            found = n == 14 && !strcmp(f[2], "name") && !strcmp(f[3], cat[k]) && !strcmp(f[4], name[k]) &&
                    !strcmp(f[5], "1") && !strcmp(f[6], "10.0");
        }
        TL_ASSERT_MSG(found, "no row of rank 0 reads back as name %s:\n%s", name[k], o);
        found = 0;
        char *dup = strdup(c), *save = NULL, *fc[32], why[200];
        for (char *line = strtok_r(dup, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
            int n = tl_results_split(line, fc, 32, why, sizeof why);
            TL_ASSERT_MSG(n == 15, "%s: %d fields (%s)", line, n, n < 0 ? why : "");
            found = !strcmp(fc[0], "run") && !strcmp(fc[1], "0") && !strcmp(fc[2], "name") &&
                    !strcmp(fc[4], name[k]) && !strcmp(fc[5], "1") && !strcmp(fc[14], name[k]);
        }
        free(dup);
        TL_ASSERT_MSG(found, "no CSV row of rank 0 reads back as name %s:\n%s", name[k], c);
    }
    TL_ASSERT_MSG(strstr(c, "\nrun,0,name,compute,\"my kernel, \"\"fast\"\"\",1,") &&
                      strstr(c, "\nrun,0,name,memcpy,memcpy DtoD,1,"),
                  "%s", c);
    free(o);
    free(c);
    /* the other commands' tables */
    static const char *const cmds[] = {"overlap", "diagnose", "overlap --per-iter"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s %s", tl_test_bin(), cmds[k], run), 0);
        o = out_of(t, "out");
        TL_ASSERT_MSG(tables_in_line(o, cmds[k]) > 0, "%s: no table:\n%s", cmds[k], o);
        if (!strcmp(cmds[k], "diagnose")) TL_ASSERT_MSG(strstr(o, " \"comm_comm %\" "), "%s", o);
        free(o);
    }
    /* the timeline's names: each one field of its row */
    snprintf(tl, sizeof tl, "%s/tl.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s -o %s", tl_test_bin(), run, tl), 0);
    c = tl_test_read(tl);
    int nk = 0;
    char *save = NULL, *fc[32], why[200];
    for (char *line = strtok_r(c, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        TL_ASSERT_MSG(tl_results_split(line, fc, 32, why, sizeof why) == 14, "%s: %s", line, why);
        nk += !strcmp(fc[7], kernel) && !strcmp(fc[13], kernel);
    }
    TL_ASSERT_EQ(nk, 2);
    free(c);
}

/* A table's CSV named .gz is written gzip'd (tl_out_open_text, as perfetto
 * -o is): a valid gzip whose content is the plain CSV. Before, it was
 * refused (and before that, plain text under a .gz name). */
TL_TEST(table_csv_gz_is_gzip)
{
    const char *t = tl_test_tmpdir();
    char run[512], run2[512];
    snprintf(run, sizeof run, "%s/run", t);
    snprintf(run2, sizeof run2, "%s/run2", t);
    synth(run, "naive", 2, 20);
    synth(run2, "split", 2, 20);
    static const char *const cmd[][2] = {
        {"overlap %s --csv %s/%s --iter-csv %s/i%s", "o.csv"},
        {"breakdown %s --csv %s/%s --stack-csv %s/s%s", "b.csv"},
        {"diagnose %s --csv %s/%s", "d.csv"},
        {"timeline %s -o %s/%s", "t.csv"},
        {"compare %s %s --csv %s/%s", "c.csv"},
    };
    for (size_t k = 0; k < sizeof cmd / sizeof cmd[0]; k++) {
        const char *name = cmd[k][1];
        for (int gz = 0; gz < 2; gz++) {
            char file[64], args[2400];
            snprintf(file, sizeof file, "%s%s", name, gz ? ".gz" : "");
            if (k == 4) snprintf(args, sizeof args, cmd[k][0], run, run2, t, file);
            else snprintf(args, sizeof args, cmd[k][0], run, t, file, t, file);
            TL_ASSERT_MSG(sh(t, "%s/trilap-analyze %s", tl_test_bin(), args) == 0, "%s:\n%s", args,
                          out_of(t, "err"));
        }
        /* gzip -t: a whole gzip stream; its content byte for byte the plain CSV */
        TL_ASSERT_MSG(sh(t, "gzip -t %s/%s.gz && gzip -dc %s/%s.gz | cmp - %s/%s", t, name, t, name, t, name) == 0,
                      "%s: %s", name, out_of(t, "err"));
        if (k < 2)
            TL_ASSERT_MSG(sh(t, "gzip -dc %s/%c%s.gz | cmp - %s/%c%s", t, k ? 's' : 'i', name, t, k ? 's' : 'i',
                             name) == 0,
                          "%s: %s", name, out_of(t, "err"));
    }
    char p[600];
    snprintf(p, sizeof p, "%s/o.csv", t);
    char *csv = tl_test_read(p);
    TL_ASSERT_MSG(!strncmp(csv, "rank,W_us,", 10), "%s", csv);
    free(csv);
}

/* A name ending in .gz in any case is written gzip'd (X.JSON.GZ held
 * plain JSON under a gzip name); any other name is plain. */
TL_TEST(gz_name_case)
{
    const char *t = tl_test_tmpdir();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    synth(run, "split", 2, 10);
    static const char *const gz[] = {"perfetto %s -o %s/X.JSON.GZ", "overlap %s --csv %s/o.csv.Gz",
                                     "timeline %s -o %s/t.csv.gZ", "perfetto %s -o %s/Y.JSON.gz"};
    for (size_t k = 0; k < sizeof gz / sizeof gz[0]; k++) {
        char args[1200];
        snprintf(args, sizeof args, gz[k], run, t);
        const char *file = strrchr(args, ' ') + 1;
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s >/dev/null && gzip -t < %s", tl_test_bin(), args, file), 0);
    }
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze perfetto %s -o %s/Z.JSON && ! gzip -t < %s/Z.JSON 2>/dev/null && "
                       "head -c 1 %s/Z.JSON | grep -q '{'",
                    tl_test_bin(), run, t, t, t),
                 0);
}

/* trilap-solve's results files from before us_per_iter (results/ holds
 * many: solver-schedules-host2-vm, device-session-*) are compared on
 * solver_time_s / iterations, the figure us_per_iter holds; before, they
 * were "not a results file". */
TL_TEST(compare_solver_file_without_us_per_iter)
{
    const char *t = tl_test_tmpdir();
    char res[600];
    snprintf(res, sizeof res, "%s/old.csv", t);
    /* two-stream 50 iterations in 0.0150 / 0.0160 / 0.0170 s: median 320 us;
     * three-split 0.0140 / 0.0144 / 0.0150: median 288 us, speedup 1.111 */
    tl_test_write(res, "solver,precond,schedule,backend,matrix,nranks,rep,iterations,residual,true_residual,"
                       "solver_time_s,converged,reason,rows\n"
                       "pipecg,jacobi,two-stream,host,\"gen:poisson7:8\",2,0,50,1e-3,1e-3,0.0150,no,fixed,512\n"
                       "pipecg,jacobi,two-stream,host,\"gen:poisson7:8\",2,1,50,1e-3,1e-3,0.0170,no,fixed,512\n"
                       "pipecg,jacobi,two-stream,host,\"gen:poisson7:8\",2,2,50,1e-3,1e-3,0.0160,no,fixed,512\n"
                       "pipecg,jacobi,three-split,host,\"gen:poisson7:8\",2,0,50,1e-3,1e-3,0.0144,no,fixed,512\n"
                       "pipecg,jacobi,three-split,host,\"gen:poisson7:8\",2,1,50,1e-3,1e-3,0.0140,no,fixed,512\n"
                       "pipecg,jacobi,three-split,host,\"gen:poisson7:8\",2,2,50,1e-3,1e-3,0.0150,no,fixed,512\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze compare %s --baseline two-stream --csv %s/c.csv", tl_test_bin(), res, t), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/c.csv", t);
    char *c = tl_test_read(path);
    TL_ASSERT_MSG(strstr(c, "pipecg/jacobi/three-split/host:gen:poisson7:8,2,288.00,280.00,300.00,320.00,300.00,"
                            "340.00,1.111\n"),
                  "%s", c);
    free(c);
    /* a row of no iterations has no time per iteration: refused, named */
    TL_ASSERT_EQ(tl_test_sh("sed -i '$s/,50,1e-3,1e-3,0.0150,/,0,1e-3,1e-3,0.0150,/' %s", res), 0);
    char args[1000];
    snprintf(args, sizeof args, "compare %s --baseline two-stream", res);
    refused(1, args, "old.csv:7: iterations '0': no time per iteration");
}

/* What is not a results file is named as what it is: a folder (it read as
 * an empty file: "no header row"), a rank's trace (gzip'd, it was to be
 * unpacked), a Matrix Market file under sweep (it lacked "the column
 * ring_bytes", as if a results file without that sweep). */
TL_TEST(results_input_named)
{
    const char *t = tl_test_tmpdir();
    char bin[PATH_MAX];
    TL_ASSERT(realpath(tl_test_bin(), bin)); /* the commands run in t */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/run && printf 'x\\n' > %s/run/trace.rank0.csv && "
                            "printf '%%%%MatrixMarket matrix coordinate real general\\n1 1 1\\n1 1 2\\n' > %s/a.mtx",
                            t, t, t),
                 0);
    /* trilap-bench stream's results as it writes them; comm's header (it
     * needs GPUs), after a comment line */
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s/trilap-bench stream --host --count 4K --iters 2 --results s.csv >/dev/null && "
                            "printf '# x\\nop,comm,nranks,size_bytes,count,type,redop,iters,time_us,algbw_gbs,busbw_gbs,"
                            "wrong\\n' > c.csv",
                            t, bin),
                 0);
    static const char *const cases[][2] = {
        {"sweep run --x ring_bytes", "run: a folder: results are a CSV file"},
        {"compare run/trace.rank0.csv run/trace.rank0.csv", "one rank's file (rank 0) of a trilap run"},
        {"sweep run/trace.rank0.csv --x ring_bytes", "run/trace.rank0.csv: a rank's trace of a trilap run, not a results file"},
        {"sweep a.mtx --x ring_bytes", "a.mtx:1: not a results file: its header lacks a variant (or solver) column"},
        {"compare a.mtx", "a.mtx:1: not a results file: its header lacks a variant (or solver) column (trilap-bench "
                          "tristream and trilap-solve --results files have them)"},
        /* trilap-bench's other tables, named (they were told "trilap-bench
         * and trilap-solve --results files have" the columns they lack) */
        {"sweep s.csv --x bytes", "s.csv:1: a trilap-bench stream results file: compare and sweep read trilap-bench "
                                  "tristream and trilap-solve results (a variant or solver column, nranks, us_per_iter)"},
        {"compare c.csv", "c.csv:2: a trilap-bench comm results file: compare and sweep read"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_refused(1, cases[k][1], "(cd %s && %s/trilap-analyze %s >&2)", t, bin, cases[k][0]);
    }
}

/* A gzip'd results file is said to be one (compare and sweep read it as
 * text: "its header lacks a variant (or solver) column"). */
TL_TEST(results_gzip_read)
{
    /* a results file gzip'd reads as the file itself, through the reader
     * the traces and matrices use (runtime/gzin.h); before, "gzip data:
     * results are read as plain CSV; give it unpacked" */
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char res[600];
    snprintf(res, sizeof res, "%s/r.csv", t);
    tl_test_write(res, "variant,nranks,rep,us_per_iter,ring_bytes\nring-only,2,0,20,1024\nthree-split,2,0,54,1024\n");
    TL_ASSERT_EQ(sh(t, "gzip -k %s && %s/trilap-analyze sweep %s --csv %s/plain.csv && %s/trilap-analyze sweep %s.gz "
                       "--csv %s/gz.csv && cmp %s/plain.csv %s/gz.csv",
                    res, bin, res, t, bin, res, t, t, t),
                 0);
    char *c = out_of(t, "gz.csv");
    TL_ASSERT_MSG(strstr(c, "1024,three-split,2,1,0,54.000,"), "%s", c);
    free(c);
    /* an empty file is no gzip data (it was "r.csv.gz: gzip data: ..."),
     * whatever its name */
    char args[1000], want[1200];
    TL_ASSERT_EQ(tl_test_sh(": > %s/e.csv.gz && : > %s/e.csv", t, t), 0);
    static const char *const names[] = {"e.csv.gz", "e.csv"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "sweep %s/%s", t, names[k]);
        snprintf(want, sizeof want, "%s/%s: an empty file, not a results file (no header row)", t, names[k]);
        refused(1, args, want);
    }
}

/* An output named for another format than the one written is refused
 * before the work, in one line, exit 2 (a bad option value; it was 1),
 * nothing written: timeline -o t.png wrote CSV rows under a picture's
 * name. The format's own names, in any case and gzip'd, and names of no
 * known format pass. */
TL_TEST(outputs_named_for_another_format)
{
    const char *t = tl_test_tmpdir();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    trace(run, 0, "0,0,1,compute,compute,kernel,k,0,50000,1,-1,0\n0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,60000,80000,2,-1,0\n");
    trace(run, 1, "1,1,1,compute,compute,kernel,k,0,50000,1,-1,0\n1,1,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,60000,80000,2,-1,0\n");
    static const char *const bad[][2] = {
        {"timeline -o %s/t.png", "trilap-analyze: --output T/t.png: it writes CSV rows, not png: give a .csv "
                                 "name (the picture: gnuplot plots/timeline.gp on it, or scripts/render-plots.sh)\n"},
        {"timeline -o %s/t.PDF", "--output T/t.PDF: it writes CSV rows, not pdf"},
        {"perfetto -o %s/p.csv", "trilap-analyze: --output T/p.csv: it writes Chrome trace JSON, not csv: "
                                 "give a .json name\n"},
        {"perfetto -o %s/p.html.gz", "it writes Chrome trace JSON, not html"},
        {"breakdown --csv %s/b.json", "trilap-analyze: --csv T/b.json: it writes CSV rows, not json"},
        {"overlap --csv %s/o.svg", "--csv T/o.svg: it writes CSV rows, not svg"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char cmd[800], want[400], *w = want;
        snprintf(cmd, sizeof cmd, bad[k][0], t);
        for (const char *p = bad[k][1]; *p && w < want + sizeof want - 1; p++) /* T: the folder */
            w += *p == 'T' && p[1] == '/' ? snprintf(w, want + sizeof want - w, "%s", t) : (*w = *p, 1);
        *w = '\0';
        char args[1500];
        snprintf(args, sizeof args, "%s %s", cmd, run);
        refused(2, args, want);
    }
    TL_ASSERT_EQ(tl_test_sh("ls %s | grep -v '^run$' | grep -v '^out$' | grep -v '^err$' | wc -l | grep -qx 0", t), 0);
    static const char *const taken[] = {"timeline -o %s/t.csv", "timeline -o %s/t.CSV", "timeline -o %s/t.txt",
                                        "timeline -o %s/t", "perfetto -o %s/p.json.gz", "perfetto -o %s/p.JSON",
                                        "breakdown --csv %s/b.csv.gz", "overlap --csv %s/o.dat"};
    for (size_t k = 0; k < sizeof taken / sizeof taken[0]; k++) {
        char cmd[800];
        snprintf(cmd, sizeof cmd, taken[k], t);
        TL_ASSERT_MSG(sh(t, "%s/trilap-analyze %s %s", tl_test_bin(), cmd, run) == 0, "%s", cmd);
    }
}

/* The share after `key` ("idle ") on the diagnose summary line of rank r. */
static double rank_share(const char *out, int r, const char *key)
{
    char head[48];
    snprintf(head, sizeof head, "# rank %d: window ", r);
    const char *line = strstr(out, head), *at = line ? strstr(line, key) : NULL;
    if (!at || strchr(line, '\n') < at) TL_TEST_FAIL_("no '%s' on rank %d's line:\n%s", key, r, out);
    return atof(at + strlen(key));
}

/* A rank file cut short holds the first of its operations (records are
 * written by start): those pair up with the other ranks' first, so the
 * waiting before the cut is measured; before, every operation of a name
 * whose count differed between ranks was left unmatched, and a rank cut
 * at iteration 120 of 201 gave waiting 0.0 us on every rank (4632.3 us on
 * rank 0 of the whole run). A rank with fewer operations whose file is not
 * cut still matches none of them. */
/* Two ranks of four iterations, rank 1 arriving 500 ns after rank 0 at
 * every all-reduce, rank 1's file cut mid-row after iteration 1; rows
 * keeps the whole rows of both. */
static void rank1_cut_run(const char *run, char rows[2][2048])
{
    for (int r = 0; r < 2; r++) {
        int n = 0;
        for (int k = 0; k < 4; k++) /* rank 1 arrives 500 ns after rank 0 at every all-reduce */
            n += snprintf(rows[r] + n, sizeof rows[r] - (size_t)n,
                          "%d,%d,1,compute,compute,kernel,k,%d,%d,%d,-1,%d\n"
                          "%d,%d,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,%d,%d,%d,-1,%d\n",
                          r, r, 10000 * k, 10000 * k + 2000, 2 * k + 1, k, r, r, 10000 * k + 3000 + 500 * r,
                          10000 * k + 4000, 2 * k + 2, k);
    }
    trace(run, 0, rows[0]);
    /* rank 1 cut inside its fourth row's successor: two all-reduces left */
    char *cut = rows[1];
    for (int line = 0; line < 4; line++) cut = strchr(cut, '\n') + 1;
    char keep[32];
    snprintf(keep, sizeof keep, "%s", cut);
    snprintf(cut, 24, "%s", "1,1,1,compute,compute");
    trace(run, 1, rows[1]);
    memcpy(cut, keep, sizeof keep);
}

TL_TEST(cut_rank_operations_matched)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512], csv[600], rows[2][2048];
    snprintf(run, sizeof run, "%s/cut", t);
    snprintf(csv, sizeof csv, "%s/o.csv", t);
    rank1_cut_run(run, rows);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --accept-incomplete %s --csv %s", bin, run, csv), 0);
    char *c = tl_test_read(csv);
    TL_ASSERT_MSG(fabs(csv_get(c, "0", "waiting_us") - 1.0) < 1e-9 && fabs(csv_get(c, "1", "waiting_us")) < 1e-9,
                  "rank 0 waited 0.5 us at each of the two all-reduces rank 1's file holds:\n%s", c);
    free(c);
    /* the same rank 1 whole but missing its last two all-reduces: nothing
     * says which of rank 0's four they are, so none pair up */
    snprintf(run, sizeof run, "%s/short", t);
    char *cut = rows[1];
    for (int line = 0; line < 4; line++) cut = strchr(cut, '\n') + 1;
    snprintf(cut, 128, "1,1,1,compute,compute,kernel,k,20000,22000,5,-1,2\n1,1,1,compute,compute,kernel,k,30000,32000,7,-1,3\n");
    trace(run, 0, rows[0]);
    trace(run, 1, rows[1]);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap %s --csv %s", bin, run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(fabs(csv_get(c, "0", "waiting_us")) < 1e-9, "%s", c);
    free(c);
}

/* An --iter-range past a cut rank's records, within the run's: the
 * refusal names that rank's file and gives its iterations as its file's
 * (before: "the run has iterations 0..1", rank 0 having 0..3). */
TL_TEST(cut_rank_iter_range_said)
{
    const char *t = tl_test_tmpdir();
    char run[512], rows[2][2048], args[1600];
    snprintf(run, sizeof run, "%s/cut", t);
    rank1_cut_run(run, rows);
    char tl[700], pf[700];
    snprintf(tl, sizeof tl, "timeline -o %s/x.csv", t);
    snprintf(pf, sizeof pf, "perfetto -o %s/x.json", t);
    const char *const cmds[] = {"overlap", "diagnose", tl, pf};
    /* the accepted cut is said first, then the refusal */
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0] + 1; k++) {
        int past = k == sizeof cmds / sizeof cmds[0]; /* past every rank: the run's, as before */
        snprintf(args, sizeof args, "%s --accept-incomplete --iter-range %s %s", past ? "overlap" : cmds[k],
                 past ? "7:9" : "3:3", run);
        tl_test_output o = tl_test_capture("%s/trilap-analyze %s", tl_test_bin(), args);
        const char *want = past ? "cut/trace.rank0.csv: no GPU activity in iterations 7:9 (the run has iterations "
                                  "0..3)\n"
                                : "cut/trace.rank1.csv: no GPU activity in iterations 3:3 (its file, cut short, has "
                                  "iterations 0..1)\n";
        TL_ASSERT_MSG(o.rc == 1 && strstr(o.err, want) && !o.out[0], "%s: exit %d\n%s", args, o.rc, o.err);
        tl_test_output_free(&o);
    }
}

/* A rank file cut short is judged over the window its records cover (to
 * its last record's start, the probes writing records by start), and
 * every report says so: before, its window was the metadata's, and the
 * time after its last record counted as idle (rank 1 of a split run cut
 * in half: idle 53.6 % beside rank 0's 7.3 %, compute 45.5 % beside
 * 90.9 %; breakdown's share halved alike). */
TL_TEST(cut_rank_judged_over_its_records)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char whole[512], cut[512];
    snprintf(whole, sizeof whole, "%s/whole", t);
    snprintf(cut, sizeof cut, "%s/cut", t);
    synth(whole, "split", 2, 200);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s && cp %s/trace.rank0.csv %s/ && f=%s/trace.rank1.csv && "
                            "head -c $(( $(stat -c %%s $f) / 2 )) $f > %s/trace.rank1.csv",
                            cut, whole, cut, whole, cut), 0);
    const char *said = "its file cut short, so judged over the window its records cover: ";
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose --accept-incomplete %s", bin, cut), 0);
    char *o = out_of(t, "out");
    double idle0 = rank_share(o, 0, ", idle "), idle1 = rank_share(o, 1, ", idle ");
    double comp0 = rank_share(o, 0, "compute "), comp1 = rank_share(o, 1, "compute ");
    TL_ASSERT_MSG(fabs(idle1 - idle0) < 1 && fabs(comp1 - comp0) < 1, "rank 1 judged over time it did not measure "
                  "(idle %.1f%% / %.1f%%, compute %.1f%% / %.1f%%):\n%s", idle1, idle0, comp1, comp0, o);
    char *r1 = strstr(o, "# rank 1: window ");
    TL_ASSERT_MSG(r1 && strstr(r1, said) && strstr(r1, said) < strchr(r1, '\n') &&
                      !strstr(o, "# rank 0: window 11000.0 us ("),
                  "the cut window is not said on rank 1's line alone:\n%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --accept-incomplete %s", bin, cut), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# rank: 1 ") && strstr(strstr(o, "# rank: 1 "), said), "%s", o);
    free(o);
    char csv[600];
    snprintf(csv, sizeof csv, "%s/b.csv", t);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --accept-incomplete %s --csv %s", bin, cut, csv), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# window: cut rank 1: its file cut short") && !strstr(o, "rank 0: its file"), "%s", o);
    free(o);
    char *c = tl_test_read(csv);
    /* each rank's DAXPY share of the window it measured: 90.9 % on both */
    TL_ASSERT_MSG(strstr(c, "cut,0,category,axpy,*,200,10000.0,50.00,50.00,50.00,90.9,") &&
                      strstr(c, "cut,1,category,axpy,*,100,5000.0,50.00,50.00,50.00,90.9,"), "%s", c);
    free(c);
    /* the whole run is judged over its metadata's window, nothing said */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze diagnose %s", bin, whole), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(!strstr(o, "cut short") && strstr(o, "# rank 1: window 11000.0 us, 200 iterations"), "%s", o);
    free(o);
}

/* --iter-range 0:, the open range of every iteration, on a run that marks
 * none selects the whole run in every command that takes it, said in its
 * selection line (before: breakdown printed `# 0 rows` while overlap,
 * timeline and perfetto read the whole window, all four saying "0: (none
 * of them in this run)"; timeline's rows still "from the first selected
 * iteration's start" with 0:, "from the window's start" without); any
 * other range on it is refused in one line by each, exit 1. */
TL_TEST(open_range_on_unmarked_run)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char flat[512];
    snprintf(flat, sizeof flat, "%s/flat", t);
    for (int r = 0; r < 2; r++) {
        char rows[512];
        snprintf(rows, sizeof rows, "%d,%d,1,compute,compute,kernel,k,1000,41000,1,-1,-1\n"
                                    "%d,%d,2,p2p,memcpy,memcpy,memcpy DtoD,50000,60000,2,1000000,-1\n", r, r, r, r);
        trace(flat, r, rows);
    }
    const char *said = "0: (the run marks no iterations: its whole window)\n";
    /* the lines that name the selection aside (the rows line kept: the
     * same output, and times from the same start) */
    const char *figures = "grep -v '^# \\(program\\|window\\|iters\\|selection\\|iterations\\|events\\):'";
    static const char *const cmds[][4] = {
        {"breakdown", "", "# selection: ", ""}, {"overlap", "", "# iters: ", ""},
        {"timeline", "-o %s/tl.csv", "# iterations: ", "tl.csv"}, {"perfetto", "-o %s/p.json", "# iterations: ", "p.json"}};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char out[600], plain[8000], want[200];
        snprintf(out, sizeof out, cmds[k][1], t);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s %s %s | %s", bin, cmds[k][0], out, flat, figures), 0);
        char *o = out_of(t, "out");
        snprintf(plain, sizeof plain, "%s", o);
        free(o);
        if (cmds[k][3][0]) TL_ASSERT_EQ(tl_test_sh("mv %s/%s %s/plain.out", t, cmds[k][3], t), 0);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --iter-range 0: %s %s", bin, cmds[k][0], out, flat), 0);
        o = out_of(t, "out");
        snprintf(want, sizeof want, "%s%s", cmds[k][2], said);
        TL_ASSERT_MSG(strstr(o, want), "%s: not '%s':\n%s", cmds[k][0], want, o);
        free(o);
        /* the same figures, and rows written, as without the range */
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --iter-range 0: %s %s | %s", bin, cmds[k][0], out, flat, figures), 0);
        o = out_of(t, "out");
        TL_ASSERT_MSG(!strcmp(o, plain) && strstr(o, "\n"), "%s --iter-range 0: reads other than the whole run:\n%s\n"
                      "without the range:\n%s", cmds[k][0], o, plain);
        free(o);
        if (cmds[k][3][0])
            TL_ASSERT_MSG(tl_test_sh("cmp -s %s/%s %s/plain.out", t, cmds[k][3], t) == 0, "%s -o differs with 0:",
                          cmds[k][0]);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s --iter-range 1: %s %s", bin, cmds[k][0], out, flat), 1);
        char *e = out_of(t, "err");
        TL_ASSERT_MSG(tl_test_one_line(e, "no GPU activity in iterations 1: ") &&
                          strstr(e, "the trace marks no iterations"),
                      "%s --iter-range 1: not refused in one line:\n%s", cmds[k][0], e);
        free(e);
    }
}

/* The bytes this process and the children it reaped have read (Linux
 * /proc/self/io rchar), -1 where it cannot be read. */
static long long rchar_self(void)
{
    FILE *f = fopen("/proc/self/io", "r"); /* its size reads 0: read by line */
    char line[128];
    long long n = -1;
    while (f && n < 0 && fgets(line, sizeof line, f))
        if (!strncmp(line, "rchar: ", 7)) n = atoll(line + 7);
    if (f) fclose(f);
    return n;
}

/* breakdown reads each rank file once, as one load gives the intervals
 * and the bytes (before: a load for the window and iterations, then a
 * second scan for the totals: 37.5 MB read of a 2 x 9.3 MB run), with or
 * without --iter-range; measured by the bytes its process read. */
TL_TEST(breakdown_reads_each_file_once)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    synth(run, "split", 2, 4000);
    if (rchar_self() < 0) TL_SKIP("no /proc/self/io to count the bytes read");
    long long size = 0;
    for (int r = 0; r < 2; r++) {
        char p[600];
        struct stat sb;
        snprintf(p, sizeof p, "%s/trace.rank%d.csv", run, r);
        TL_ASSERT_EQ(stat(p, &sb), 0);
        size += (long long)sb.st_size;
    }
    static const char *const opts[] = {"", "--iter-range 0:", "--iter-range 10:20"};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        long long before = rchar_self();
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s %s", bin, opts[k], run), 0);
        long long read = rchar_self() - before;
        TL_ASSERT_MSG(read >= size && read < size + size / 2, "breakdown %s read %lld bytes of a %lld-byte run",
                      opts[k], read, size);
    }
}

/* timeline says what it could not draw: --count beyond the run, clipped as
 * --iter-range's clipping is said (it drew 0:199 unsaid), and a rank whose
 * file was cut short (--accept-incomplete), which has no rows past its
 * last iteration (before, nothing said so). */
TL_TEST(timeline_clip_and_short_ranks_said)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char whole[512], cut[512], csv[600];
    snprintf(whole, sizeof whole, "%s/whole", t);
    snprintf(cut, sizeof cut, "%s/cut", t);
    snprintf(csv, sizeof csv, "%s/tl.csv", t);
    synth(whole, "split", 2, 200);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --count 1000 -o %s", bin, whole, csv), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# iterations: 0:199 (--count 1000 clipped: the run has iterations 0..199)\n") &&
                      !strstr(o, "short of the range"), "%s", o);
    free(o);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline %s --count 3 -o %s", bin, whole, csv), 0);
    o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# iterations: 98:100\n"), "%s", o);
    free(o);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s && cp %s/trace.rank0.csv %s/ && f=%s/trace.rank1.csv && "
                            "head -c $(( $(stat -c %%s $f) / 2 )) $f > %s/trace.rank1.csv",
                            cut, whole, cut, whole, cut), 0);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze timeline --accept-incomplete %s --iter-range 50: -o %s", bin, cut, csv), 0);
    o = out_of(t, "out");
    const char *said = strstr(o, "# ranks short of the range: rank 1 rows through iteration ");
    TL_ASSERT_MSG(said && strstr(said, " only (its file cut short, read with --accept-incomplete: it has "
                                       "iterations 0..") && !strstr(o, "rank 0 rows"), "%s", o);
    free(o);
}

/* A two-rank run of DAXPY kernels of 1 us, 2 us apart: n[r] on rank r in
 * the window (0..100 us), and with `after` one more after its end. */
static void daxpy_run(const char *run, const int n[2], int after)
{
    for (int r = 0; r < 2; r++) {
        char rows[4096];
        size_t w = 0;
        for (int k = 0; k < n[r] + after && w < sizeof rows; k++) {
            long long a = k < n[r] ? 1000 + 2000LL * k : 150000;
            w += (size_t)snprintf(rows + w, sizeof rows - w, "%d,%d,1,compute,compute,kernel,tl_daxpy_kernel,%lld,%lld,"
                                  "%d,-1,-1\n", r, r, a, a + 1000, k + 1);
        }
        trace(run, r, rows);
    }
}

/* breakdown's mean rows print a whole count as the other rows do ("2",
 * it said "2.0"), a fraction only where the ranks' counts differ. */
TL_TEST(breakdown_mean_count_whole)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/run", t);
    snprintf(csv, sizeof csv, "%s/b.csv", t);
    daxpy_run(run, (const int[2]){2, 2}, 0);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --csv %s", bin, run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    const char *m = strstr(o, "run mean category axpy"), *star = m ? strchr(m, '*') : NULL;
    TL_ASSERT_MSG(strstr(c, "run,mean,category,axpy,*,2,") && star && !strncmp(star + 1 + strspn(star + 1, " "), "2 ", 2),
                  "%s\n%s", o, c);
    free(o);
    free(c);
    daxpy_run(run, (const int[2]){2, 1}, 0);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown %s --csv %s", bin, run, csv), 0);
    c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(c, "run,mean,category,axpy,*,1.5,"), "%s", c);
    free(c);
}

/* perfetto writes the events outside the analysis window too (set-up,
 * warm-up), so its counts may exceed breakdown's: its stdout says how many
 * (before, only the README did). */
TL_TEST(perfetto_says_outside_window)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512], json[600];
    snprintf(run, sizeof run, "%s/run", t);
    snprintf(json, sizeof json, "%s/p.json", t);
    daxpy_run(run, (const int[2]){2, 2}, 1);
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze perfetto %s -o %s", bin, run, json), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# outside: 2 of them start outside the analysis window"), "%s", o);
    free(o);
}

/* An empty output name is the command line's fault, said as the other
 * option errors are, exit 2, for every output option of every command (it
 * was exit 1, "--csv: an output file name is empty", as if the file system
 * had refused). */
TL_TEST(empty_output_names_exit_2)
{
    const char *t = tl_test_tmpdir(), *bin = tl_test_bin();
    char run[512];
    snprintf(run, sizeof run, "%s/run", t);
    daxpy_run(run, (const int[2]){1, 1}, 0);
    static const struct {
        const char *args, *opt;
    } cases[] = {{"timeline RUN -o ''", "output"},     {"perfetto RUN -o ''", "output"},
                 {"import RUN -o ''", "output"},       {"breakdown RUN --csv ''", "csv"},
                 {"breakdown RUN --stack-csv ''", "stack-csv"}, {"overlap RUN --csv ''", "csv"},
                 {"overlap RUN --iter-csv ''", "iter-csv"},     {"diagnose RUN --csv ''", "csv"},
                 {"compare RUN RUN --csv ''", "csv"},  {"collectives RUN --csv ''", "csv"},
                 {"sweep RUN --csv ''", "csv"},        {"timeline RUN --output= ", "output"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char args[1024];
        const char *at = strstr(cases[k].args, "RUN");
        snprintf(args, sizeof args, "%.*s%s%s", (int)(at - cases[k].args), cases[k].args, run, at + 3);
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s", bin, args), 2);
        char *e = out_of(t, "err"), want[200];
        snprintf(want, sizeof want, "trilap-analyze: invalid --%s '': an empty %s name (try --help)\n", cases[k].opt,
                 strncmp(cases[k].args, "import", 6) ? "file" : "folder");
        TL_ASSERT_MSG(!strcmp(e, want), "%s: %s", args, e);
        free(e);
    }
}

/* An --iter-range the wrong way round is well formed: the refusal says
 * which end is wrong (before: "expected A:B, A: or :B", which 5:4 is). */
TL_TEST(iter_range_reversed_said)
{
    const char *t = tl_test_tmpdir();
    char run[1024], args[1200];
    snprintf(run, sizeof run, "%s/run", t);
    TL_ASSERT(mkdir(run, 0755) == 0);
    trace_of(run, 0, 1, "0,0,1,compute,compute,kernel,k,10,20,1,-1,0\n");
    snprintf(args, sizeof args, "overlap %s --iter-range 5:4", run);
    refused(2, args, "trilap-analyze: invalid --iter-range '5:4': its end 4 is before its start 5 (A:B takes "
                     "iterations A to B, both included; try --help)");
    snprintf(args, sizeof args, "overlap %s --iter-range 5:x", run);
    refused(2, args, "invalid --iter-range '5:x': expected A:B, A: or :B");
}

/* A window far past its records (a damaged or hand-edited header: here
 * window_end_ns 3.2 years on) is refused in one line naming the file and
 * the field, by every command that reads the window (before: accepted,
 * W 100000000000000.0 us, idle the same, every share diluted to 0). */
TL_TEST(window_far_past_records_refused)
{
    const char *t = tl_test_tmpdir();
    char run[512], path[600], args[800], want[900];
    snprintf(run, sizeof run, "%s/far", t);
    trace_of(run, 0, 1, "0,0,1,compute,compute,kernel,k,0,50000,1,-1,0\n"
                        "0,0,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,60000,90000,2,-1,0\n");
    snprintf(path, sizeof path, "%s/trace.rank0.csv", run);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/^# window_end_ns=100000$/# window_end_ns=100000000000000000/' %s", path), 0);
    static const char *const cmds[] = {"overlap", "breakdown", "diagnose", "timeline -o t.csv", "perfetto -o t.json"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        snprintf(args, sizeof args, "%s %s", cmds[k], run);
        snprintf(want, sizeof want, "%s: window_end_ns lies 3.2 years past its last record's end (at 90000 ns; its "
                                    "records span 90.0 us): a damaged or hand-edited header; delete its window_end_ns "
                                    "line to judge the span its records cover",
                 path);
        refused(1, args, want);
    }
    /* the same at the window's start */
    TL_ASSERT_EQ(tl_test_sh("sed -i -e 's/^# window_end_ns=.*/# window_end_ns=100000000000000000/' -e "
                            "'s/^# window_start_ns=0$/# window_start_ns=-100000000000000000/' -e "
                            "'s/,0,50000,1,-1,0$/,100000000000000000,100000000000050000,1,-1,0/' -e "
                            "'s/,60000,90000,2,-1,0$/,100000000000060000,100000000000090000,2,-1,0/' %s",
                            path),
                 0);
    snprintf(args, sizeof args, "overlap %s", run);
    snprintf(want, sizeof want, "%s: window_start_ns lies 6.3 years before its first record's start", path);
    refused(1, args, want);
    /* a program's long start is no damage: 3 minutes before 90 us of GPU
     * work (an injected program loading its data) is read, all idle */
    TL_ASSERT_EQ(tl_test_sh("sed -i -e 's/^# window_start_ns=.*/# window_start_ns=99999820000000000/' %s", path), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/long.txt 2>&1", tl_test_bin(), run, t), 0);
}

/* derived_comm = W - sum of compute kernels goes negative where compute
 * kernels ran at once for more than the window holds (here a record whose
 * end lies far past the window, clipped to it, over another): the figure
 * stays (-20.0 us, as the paper's method gives it), said under the table,
 * and the reconciliation's identity still holds through compute_concurrent
 * (a residual of 0). Before, nothing said why it was negative. */
TL_TEST(derived_comm_negative_explained)
{
    const char *t = tl_test_tmpdir();
    char run[512], csv[600];
    snprintf(run, sizeof run, "%s/conc", t);
    snprintf(csv, sizeof csv, "%s/o.csv", t);
    trace_of(run, 0, 1, "0,0,1,compute,compute,kernel,k,0,900000000000,1,-1,0\n"
                        "0,0,3,compute,compute,kernel,k,20000,40000,2,-1,0\n"
                        "0,0,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,60000,90000,3,-1,0\n");
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze overlap --per-iter %s --csv %s", tl_test_bin(), run, csv), 0);
    char *o = out_of(t, "out"), *c = tl_test_read(csv);
    TL_ASSERT_MSG(strstr(o, "# derived_comm < 0: rank 0's compute kernels sum to 120.0 us, more than its window (100.0 "
                            "us): they ran at once, which W - their sum does not allow for") &&
                      strstr(o, "  -20.0 ") && strstr(o, " 20.0    0.000\n"),
                  "%s", o);
    TL_ASSERT_MSG(strstr(c, "\n0,100.0,100.0,") && strstr(c, ",0.00,0.00,-20.0,0.0,1\n"), "%s", c);
    free(o);
    free(c);
}

/* A rank cut short before an --iter-range: breakdown refuses the range as
 * overlap does, naming the cut (before: breakdown printed rank 0 alone,
 * its mean over the two ranks halved, the cut rank's lost records read as
 * none). */
TL_TEST(cut_rank_breakdown_agrees)
{
    const char *t = tl_test_tmpdir();
    char run[512], rows[2][2048], args[800], want[900];
    snprintf(run, sizeof run, "%s/cut", t);
    rank1_cut_run(run, rows);
    static const char *const cmds[] = {"overlap", "breakdown"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(args, sizeof args, "%s --accept-incomplete --iter-range 2:3 %s", cmds[k], run);
        snprintf(want, sizeof want, "%s/trace.rank1.csv: no GPU activity in iterations 2:3 (its file, cut short, has "
                                    "iterations 0..1)",
                 run);
        /* the line after the one warning of the file cut short, nothing printed */
        TL_ASSERT_EQ(sh(t, "%s/trilap-analyze %s", tl_test_bin(), args), 1);
        char *e = out_of(t, "err"), *o = out_of(t, "out");
        TL_ASSERT_MSG(strstr(e, want) && !o[0], "%s: %s%s", cmds[k], e, o);
        free(e);
        free(o);
    }
    /* a range it holds: breakdown's note says what the cut rank counts, the
     * window overlap judges it over */
    TL_ASSERT_EQ(sh(t, "%s/trilap-analyze breakdown --accept-incomplete %s", tl_test_bin(), run), 0);
    char *o = out_of(t, "out");
    TL_ASSERT_MSG(strstr(o, "# window: cut rank 1: its file cut short, so judged over the window its records cover: "
                            "13.5 us to its last record's start, of the 100.0 us its metadata says; its rows, max and "
                            "mean count its records starting there, as overlap's window"),
                  "%s", o);
    free(o);
}

/* Every CSV the analysis writes leaves a missing figure empty, as the
 * results files do (gnuplot and pandas read it as missing); it wrote NaN. */
TL_TEST(csv_missing_is_empty)
{
    const char *t = tl_test_tmpdir();
    char run[512];
    snprintf(run, sizeof run, "%s/one", t);
    trace_of(run, 0, 1, "0,0,1,compute,compute,kernel,k,0,50000,1,-1,0\n");
    TL_ASSERT_EQ(sh(t, "cp -r %s %s2 && %s/trilap-analyze overlap %s --csv %s/o.csv && %s/trilap-analyze breakdown %s "
                       "--csv %s/b.csv && %s/trilap-analyze compare %s %s2 --csv %s/c.csv",
                    run, run, tl_test_bin(), run, t, tl_test_bin(), run, t, tl_test_bin(), run, run, t),
                 0);
    TL_ASSERT_MSG(tl_test_sh("! grep -il nan %s/o.csv %s/b.csv %s/c.csv", t, t, t) == 0, "NaN in a CSV");
    char *o = out_of(t, "o.csv");
    TL_ASSERT_MSG(strstr(o, "\n0,100.0,50.0,0.0,0.0,0.0,0.0,0.0,,,,0.00,0.00,50.0,50.0,1\n"), "%s", o);
    free(o);
}

TL_TEST_MAIN(compare_says_wrong_repetitions, outputs_named_for_another_format, option_clashes_exit_2, iter_range_clipped_said,
             iter_range_clipped_said_timeline_perfetto, overlap_known_values, results_input_named, compare_solver_file_without_us_per_iter, breakdown_categories_and_bandwidth, diagnose_naive_vs_split, late_ranks_unmeasurable_said, diagnose_other_rules,
             starvation_is_work_not_peer_wait, starvation_names_kernel_whole, starvation_row_shows_deciding_kernel, iter_range_selects_waiting, diagnose_committed_h200, host_iteration_fallback,
             slices_partition_whole_window, reader_robustness, incomplete_needs_flag, bad_arguments, timeline_and_perfetto, timeline_span_from_first_active_rank, iter_range_counts_what_it_sums,
             compare_runs_and_results, compare_refuses_one_input_twice, compare_refuses_files_sharing_no_row, results_values_say_why, compare_and_timeline_options_refused, sweep_ideal_and_efficiency, huge_trace_streams, outputs_to_a_pipe,
             fifo_inputs_refused_at_once, warnings_said_once, outputs_checked_before_reading,
             diagnose_device_copies_not_staging, compare_names_second_input, breakdown_refuses_empty_iter_range,
             iteration_options_need_iterations, sweep_refuses_mixed_configurations,
             compare_refuses_mixed_configurations, results_rows_read_as_written, iterations_numbered_over_restarts, last_rank_counts_operations_only, compare_zero_median_no_ratio, compare_run_without_iterations,
             timeline_waits_are_overlaps, breakdown_runs_told_apart, cut_file_names_the_flag,
             top_help_agrees_with_commands, rank_file_given_alone, outputs_over_inputs_refused, table_csv_gz_is_gzip, gz_name_case, breakdown_labels_in_line,
             results_gzip_read, free_text_one_field, cut_rank_judged_over_its_records, cut_rank_operations_matched, cut_rank_iter_range_said, open_range_on_unmarked_run,
             breakdown_reads_each_file_once, timeline_clip_and_short_ranks_said, output_folders_made_and_said, breakdown_mean_count_whole,
             perfetto_says_outside_window, empty_output_names_exit_2, sweep_bound_needs_every_part, sweep_leaves_out_wrong_repetitions,
             output_over_read_only_input, iter_range_reversed_said,
             window_far_past_records_refused, derived_comm_negative_explained, cut_rank_breakdown_agrees, csv_missing_is_empty)
