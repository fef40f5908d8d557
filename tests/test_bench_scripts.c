/* The host side of the GPU benchmarks, without a GPU: scripts/solver-log.awk
 * (bytes per iteration, roofline, ratio from a trilap-solve output) on an
 * output whose figures are known, scripts/roof-fit.awk (the fixed and the
 * proportional part of an iteration) on sizes that cost a known line,
 * with and without marginal runs, scripts/render-roof-summary.sh (a summary
 * rebuilt from the logs), and scripts/bench-solver-roof.sh with
 * stand-ins for trilap-solve and trilap-bench: each VARIANTS entry runs
 * with its options and gets its row in the summary; a bad entry is one
 * error line, exit 2 and nothing written; scripts/bench-cpml-trees.sh
 * over scripts/bench-cpml.sh with stand-in builds; the ncu readers on
 * committed ncu files; the Slurm templates under stand-in launchers;
 * bench-solvers-protocol.sh's host dry run; bench-petsc-compare.sh over
 * stand-ins (its footer's counts, a failed run, bad values). */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* One solver block of trilap-solve's output, in its format: 10 fixed
 * iterations x 2 timed solves, 1 us per iteration; per call the SpMV moves
 * 1000 bytes, the update 2000, the dots and Jacobi 300 each; the SpMV and
 * Jacobi also ran in the setup of each solve (22 and 21 calls). */
static const char block[] = "solver: pipecg\n"
                            "schedule: sync\n"
                            "backend: cuda:trilap\n"
                            "matrix: gen:poisson7:4\n"
                            "rows: 64\n"
                            "iterations: 10\n"
                            "timed solves: 2\n"
                            "time per iteration: 1.000000e-06 s\n"
                            "spmv: trilap\n"
                            "op timer: on\n"
                            "fused: off\n"
                            "registers: mapped\n"
                            "operation       count         time          bytes       rate\n"
                            "spmv               22   1.0000e-05     2.2000e+04    500.000\n"
                            "halo                0   0.0000e+00     0.0000e+00      0.000\n"
                            "dot                20   1.0000e-05     6.0000e+03    250.000\n"
                            "allreduce          20   1.0000e-05     4.8000e+02      1.000\n"
                            "update             20   1.0000e-05     4.0000e+04    800.000\n"
                            "precond            21   1.0000e-05     6.3000e+03    100.000\n";

/* a stand-in program at path */
static void write_script(const char *path, const char *text)
{
    tl_test_write(path, text);
    TL_ASSERT_EQ(chmod(path, 0755), 0);
}

/* a stand-in trilap-bench at path: a triad of 1 GB/s in its --results file */
static void fake_bench(const char *path)
{
    write_script(path, "#!/bin/sh\n"
                       "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                       "printf 'function,bandwidth_gbs\\ncopy,2\\ntriad,1\\n' > \"$out\"\n");
}

/* solver-log.awk's row of the output in log at the triad and with the
 * columns given, which must be `expect`. */
static void solver_log_expect(const char *log, const char *triad, const char *cols,
                              const char *expect)
{
    tl_test_output r = tl_test_capture(
        "awk -v triad=%s -v run=x -v kernels=k -v cols=%s -f scripts/csv.awk -f scripts/solver-log.awk %s", triad,
        cols, log);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.out, expect);
    tl_test_output_free(&r);
}

/* s holds exactly one line (a refusal's error) */
static int one_line(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl && !strchr(nl + 1, '\n');
}

/* an ncu reader (scripts/<awk>) given no ncu file: exit 1 and one line
 * naming the script and the reason */
static void refuses_non_ncu(const char *awk, const char *reason)
{
    tl_test_output r = tl_test_capture("echo 'not ncu' | awk -f scripts/%s", awk);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, reason) && one_line(r.err), "%s", r.err);
    tl_test_output_free(&r);
}

/* an ncu reader (its awk arguments) on a committed gzipped ncu file
 * under results/, which it must read without error */
static tl_test_output ncu_read(const char *gz, const char *awk_args)
{
    tl_test_output r = tl_test_capture("zcat results/%s | awk %s", gz, awk_args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    return r;
}

/* Calls per iteration are the timed calls rounded (setup calls drop out),
 * bytes per call their average; halo and allreduce are not memory. */
TL_TEST(solver_log_roofline)
{
    const char *log = tl_test_path("solve.txt");
    tl_test_write(log, block);
    /* 1000 + 2000 + 300 + 300 bytes; at 1 GB/s 3.6 us; 1 us / 3.6 us */
    solver_log_expect(log, "1",
                      "run,kernels,iterations,us_per_iter,bytes_per_iter,roofline_us,"
                      "roofline_ratio,update_frac_triad,dot_frac_triad",
                      "x,k,10,1.000,3600,3.600,0.278,800.000,250.000\n");
    tl_test_output r =
        tl_test_capture("awk -v triad=1 -v run=x -v cols=run,nonsense -f scripts/csv.awk -f scripts/solver-log.awk %s",
                        log);
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_MSG(strstr(r.err, "unknown column nonsense"), "%s", r.err);
    tl_test_output_free(&r);
}

/* A run of the persistent loop (--persistent): iterations 1 to 9 of each
 * of the 2 solves in its row, 3300 bytes each (what the product, the dots
 * with Jacobi and the update move), 18 us of kernel in all; the separate
 * kernels ran only in the setup, iteration 0 and the last program (their
 * calls round to none per iteration). The iteration's bytes are the
 * loop's; its rate is its own bytes over its own time. */
TL_TEST(solver_log_roofline_of_the_loop)
{
    static const char loop_block[] =
        "solver: pipecg\n"
        "rows: 64\n"
        "iterations: 10\n"
        "timed solves: 2\n"
        "time per iteration: 4.000000e-06 s\n"
        "operation       count         time          bytes       rate\n"
        "spmv                6   3.0000e-06     6.0000e+03      2.000\n"
        "dot                 4   1.0000e-06     1.2000e+03      1.200\n"
        "update              2   2.0000e-06     4.0000e+03      2.000\n"
        "precond             4   1.0000e-06     1.2000e+03      1.200\n"
        "loop               18   1.8000e-05     5.9400e+04      3.300\n";
    const char *log = tl_test_path("loop.txt");
    tl_test_write(log, loop_block);
    /* 3300 bytes at 2 GB/s: 1.65 us; 4 us / 1.65 us */
    solver_log_expect(log, "2",
                      "run,bytes_per_iter,roofline_us,roofline_ratio,spmv_frac_triad,loop_gbs,"
                      "loop_frac_triad",
                      "x,3300,1.650,2.424,1.000,3.3,1.650\n");
}

/* median-us-per-iter.awk over two --results files with their headers,
 * the matrix quoted with a comma and a doubled quote in its name: read by
 * RFC 4180 (awk -F, took the name's second half as the next column and
 * printed a median of iteration counts); csv-tabs.awk gives the same cells
 * tab-separated. */
TL_TEST(median_us_per_iter_reads_quoted_cells)
{
    const char *dir = tl_test_tmpdir();
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/a.csv", dir);
    snprintf(b, sizeof b, "%s/b.csv", dir);
    tl_test_write(a, "solver,matrix,iterations,us_per_iter\n"
                     "cg,\"m,1 \"\"x\"\".mtx\",100,3.5\n"
                     "cg,\"m,1 \"\"x\"\".mtx\",100,1.5\n");
    tl_test_write(b, "solver,matrix,us_per_iter,iterations\n"
                     "cg,\"plain\",2.5,7\n");
    tl_test_output r = tl_test_capture("awk -f scripts/csv.awk -f scripts/median-us-per-iter.awk %s %s", a, b);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.out, "2.5\n");
    tl_test_output_free(&r);
    r = tl_test_capture("awk -f scripts/csv.awk -f scripts/csv-tabs.awk %s", a);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.out, "solver\tmatrix\titerations\tus_per_iter\n"
                           "cg\tm,1 \"x\".mtx\t100\t3.5\n"
                           "cg\tm,1 \"x\".mtx\t100\t1.5\n");
    tl_test_output_free(&r);
    r = tl_test_capture("printf 'a,b\\n1,2\\n' | awk -f scripts/csv.awk -f scripts/median-us-per-iter.awk");
    TL_ASSERT_MSG(r.rc == 0 && !*r.out, "no us_per_iter column: '%s'", r.out);
    tl_test_output_free(&r);
}

/* solver-schedules-summary.awk: per group the median, least and greatest
 * time of each schedule and the speedup over two-stream's median, a solve
 * that stopped early marked WRONG and the exit status 3; the matrix's name
 * read whole though quoted with a comma in it. */
TL_TEST(solver_schedules_summary)
{
    char csv[600];
    snprintf(csv, sizeof csv, "%s/r.csv", tl_test_tmpdir());
    tl_test_write(csv, "solver,precond,schedule,backend,matrix,nranks,iterations,solver_time_s,reason\n"
                       "pipecg,jacobi,two-stream,host,\"m,1.mtx\",2,50,3.0,fixed\n"
                       "pipecg,jacobi,two-stream,host,\"m,1.mtx\",2,50,1.0,fixed\n"
                       "pipecg,jacobi,two-stream,host,\"m,1.mtx\",2,50,2.0,fixed\n"
                       "pipecg,jacobi,three-split,host,\"m,1.mtx\",2,50,1.0,fixed\n"
                       "pipecg,jacobi,three-split,host,\"m,1.mtx\",2,49,1.5,\"breakdown, at rounding\"\n");
    tl_test_output r = tl_test_capture("awk -v want=50 -v order='two-stream three-split' -f scripts/csv.awk "
                                       "-f scripts/solver-schedules-summary.awk %s", csv);
    TL_ASSERT_MSG(r.rc == 3 && strstr(r.out, "# m,1.mtx, pipecg (jacobi), 2 ranks, 50 iterations\n") &&
                      strstr(r.out, "two-stream          3   2.0000e+00   1.0000e+00   3.0000e+00      1.000\n") &&
                      strstr(r.out, "three-split         2   1.2500e+00   1.0000e+00   1.5000e+00      1.600  WRONG: "
                                    "stopped at 49 (breakdown, at rounding)\n") &&
                      strstr(r.out, "# 2 rows, 1 wrong\n"),
                  "exit %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* roof-fit.awk's base row on csv: 10 us + 0.1 ns per row, from nmarg
 * marginal points */
static void roof_fit_expect(const char *csv, int nmarg, const char *opts)
{
    tl_test_output r =
        tl_test_capture("awk -v triad=3700 %s -f scripts/roof-fit.awk %s", opts, csv);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    const char *row = strstr(r.out, "\nbase ");
    TL_ASSERT_MSG(row, "%s", r.out);
    char kern[16], spmv[16], allowed[16];
    int sizes, marg;
    double fixed, ns, bpr, prop, pratio, dev;
    TL_ASSERT_EQ(sscanf(row + 1, "%15s %15s %d %d %lf %lf %lf %lf %lf %lf %15s", kern, spmv,
                        &sizes, &marg, &fixed, &ns, &bpr, &prop, &pratio, &dev, allowed),
                 11);
    TL_ASSERT_EQ(sizes, 3);
    TL_ASSERT_EQ(marg, nmarg);
    TL_ASSERT_NEAR(fixed, 10.0, 0.006);
    TL_ASSERT_NEAR(ns, 0.1, 1e-4);
    TL_ASSERT_NEAR(bpr, 296.0, 0.06);
    TL_ASSERT_NEAR(prop, 0.8, 6e-4);
    TL_ASSERT_NEAR(pratio, 1.25, 6e-4);
    TL_ASSERT_NEAR(dev, 0.0, 6e-4);
    TL_ASSERT_STREQ(allowed, "-16.8");
    TL_ASSERT_MSG(!strstr(r.out, "\ntail "), "two sizes fitted: %s", r.out);
    tl_test_output_free(&r);
}

/* roof-fit.awk's input: the columns it reads, and base's -iter runs on
 * 10 us + 0.1 ns per row exactly (296 bytes per row) */
#define ROOF_CSV_HEADER "run,spmv,kernels,iterations,rows,us_per_iter,bytes_per_iter\n"
#define ROOF_CSV_EXACT                                                                             \
    "p7-64-base-iter,trilap,base,2000,262144,36.2144,77594624\n"                                  \
    "p7-128-base-iter,trilap,base,600,2097152,219.7152,620756992\n"                               \
    "p7-256-base-iter,trilap,base,150,16777216,1687.7216,4966055936\n"

/* roof-fit.awk on iterations that cost exactly 10 us + 0.1 ns per row
 * (296 B/row, triad 3700 GB/s: 0.8 of triad once the size hides the 10
 * us); at 128^3 even no fixed cost would leave the ratio above 1.15, so
 * the allowed fixed cost is negative. The -ops run and the variant with
 * two sizes are left out; no triad or a missing column is refused. Then
 * with a setup of 1000 us per solve spread over the iterations, and
 * -iterq runs at a quarter of them: the marginal iterations give the
 * same line, and with two sizes (no line) are still listed. */
TL_TEST(roof_fit_fixed_and_proportional)
{
    char csv[600];
    snprintf(csv, sizeof csv, "%s/summary.csv", tl_test_tmpdir());
    tl_test_write(csv, ROOF_CSV_HEADER ROOF_CSV_EXACT
                  "p7-128-base-ops,trilap,base,600,2097152,400,620756992\n"
                  "p7-64-tail-iter,trilap,tail,2000,262144,30,77594624\n"
                  "p7-128-tail-iter,trilap,tail,600,2097152,200,620756992\n");
    roof_fit_expect(csv, 0, "");
    /* a size below the others' line (its vectors in L2) moves the fit,
     * unless min_rows leaves it out */
    tl_test_write(csv, ROOF_CSV_HEADER ROOF_CSV_EXACT
                  "p7-32-base-iter,trilap,base,2000,32768,5,9699328\n");
    roof_fit_expect(csv, 0, "-v min_rows=262144");
    tl_test_output r0 = tl_test_capture("awk -v triad=3700 -f scripts/roof-fit.awk %s", csv);
    TL_ASSERT_MSG(strstr(r0.out, "\nbase       trilap        4    0 "), "%s", r0.out);
    tl_test_output_free(&r0);
    r0 = tl_test_capture("awk -v triad=3700 -v min_rows=262144 -f scripts/roof-fit.awk %s", csv);
    TL_ASSERT_MSG(strstr(r0.out, "runs of at least 262144 rows;"), "%s", r0.out);
    tl_test_output_free(&r0);
    /* + 1000 us / K on every point; the quarter runs carry 4x as much, and
     * their bytes per iteration (setup calls rounded in) do not count */
    tl_test_write(csv, ROOF_CSV_HEADER
                  "p7-128-base-iter,trilap,base,600,2097152,221.381867,620756992\n"
                  "p7-128-base-iterq,trilap,base,150,2097152,226.381867,610000000\n"
                  "p7-256-base-iter,trilap,base,150,16777216,1694.388267,4966055936\n"
                  "p7-256-base-iterq,trilap,base,37,16777216,1714.748627,4900000000\n"
                  "p7-64-base-iter,trilap,base,2000,262144,36.7144,77594624\n"
                  "p7-64-base-iterq,trilap,base,500,262144,38.2144,77000000\n");
    roof_fit_expect(csv, 3, "");
    tl_test_output r = tl_test_capture("awk -v triad=3700 -f scripts/roof-fit.awk %s", csv);
    /* the marginal times, by size: 128^3 at 219.72 us, ratio 219.7152 / 167.7722 */
    TL_ASSERT_MSG(strstr(r.out, "base       trilap       2097152     219.72     167.77    1.310\n"),
                  "%s", r.out);
    TL_ASSERT_MSG(strstr(r.out, "    262144") < strstr(r.out, "   2097152"), "sizes in order: %s",
                  r.out);
    tl_test_output_free(&r);
    /* two sizes: no fit, the marginal times all the same */
    tl_test_write(csv, ROOF_CSV_HEADER
                  "p7-128-base-iter,trilap,base,600,2097152,221.381867,620756992\n"
                  "p7-128-base-iterq,trilap,base,150,2097152,226.381867,610000000\n"
                  "p7-256-base-iter,trilap,base,150,16777216,1694.388267,4966055936\n");
    r = tl_test_capture("awk -v triad=3700 -f scripts/roof-fit.awk %s", csv);
    TL_ASSERT_MSG(!strstr(r.out, "fixed_us"), "fitted on two sizes: %s", r.out);
    TL_ASSERT_MSG(strstr(r.out, "base       trilap       2097152     219.72     167.77    1.310\n"),
                  "%s", r.out);
    TL_ASSERT_MSG(!strstr(r.out, "16777216"), "a size without -iterq: %s", r.out);
    tl_test_output_free(&r);
    r = tl_test_capture("awk -f scripts/roof-fit.awk %s", csv);
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_MSG(strstr(r.err, "triad"), "%s", r.err);
    tl_test_output_free(&r);
    tl_test_write(csv, "run,kernels,rows\n");
    r = tl_test_capture("awk -v triad=1 -f scripts/roof-fit.awk %s", csv);
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_MSG(strstr(r.err, "no column spmv"), "%s", r.err);
    tl_test_output_free(&r);
}

/* Stand-ins in dir: trilap-bench writes a triad of 1 GB/s to its
 * --results file; trilap-solve logs its arguments to args and prints the
 * block above. The benchmark writes to out. */
typedef struct {
    char dir[600], args[600], out[600];
} roof_env;

static void stand_ins(roof_env *e)
{
    const char *t = tl_test_tmpdir();
    snprintf(e->dir, sizeof e->dir, "%s/fake", t);
    snprintf(e->args, sizeof e->args, "%s/args.txt", t);
    snprintf(e->out, sizeof e->out, "%s/roof", t);
    const char *dir = e->dir, *argslog = e->args;
    char p[700], body[2048];
    TL_ASSERT_EQ(mkdir(dir, 0755), 0);
    snprintf(p, sizeof p, "%s/trilap-bench", dir);
    fake_bench(p);
    snprintf(p, sizeof p, "%s/block.txt", dir);
    tl_test_write(p, block);
    snprintf(p, sizeof p, "%s/trilap-solve", dir);
    snprintf(body, sizeof body,
             "#!/bin/sh\n"
             "echo \"$*\" >> %s\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && : > \"$2\"; shift; done\n"
             "cat %s/block.txt\n",
             argslog, dir);
    write_script(p, body);
}

TL_TEST(roof_variants_side_by_side)
{
    roof_env e;
    stand_ins(&e);
    tl_test_output r = tl_test_capture("SOLVE=%s/trilap-solve BENCH=%s/trilap-bench "
                                       "VARIANTS='base= two=--pdl,--fuse-tail' "
                                       "scripts/bench-solver-roof.sh --budget 60 --sizes '64 160' --marginal %s",
                                       e.dir, e.dir, e.out);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    /* each variant's runs with its options, the SpMV list on the base's only */
    char *a = tl_test_read(e.args);
    TL_ASSERT_MSG(strstr(a, "--no-op-timer --spmv trilap,cusparse gen:poisson7:64"), "%s", a);
    TL_ASSERT_MSG(strstr(a, "--no-op-timer --pdl --fuse-tail gen:poisson7:64"), "%s", a);
    TL_ASSERT_MSG(strstr(a, "--max-iterations 2000 --pdl --fuse-tail gen:poisson7:64"), "%s", a);
    /* a size without its own count: about 1.3e9 row-iterations */
    TL_ASSERT_MSG(strstr(a, "--max-iterations 317 --pdl --fuse-tail gen:poisson7:160"), "%s", a);
    /* --marginal: each -iter run again at a quarter of its iterations */
    TL_ASSERT_MSG(strstr(a, "--max-iterations 500 --no-op-timer --pdl --fuse-tail gen:poisson7:64"),
                  "%s", a);
    free(a);
    char p[700];
    snprintf(p, sizeof p, "%s/summary.csv", e.out);
    char *s = tl_test_read(p);
    /* a row per run and block: the -iter runs and the -ops runs */
    TL_ASSERT_MSG(strstr(s, "\np7-64-base-iter,trilap,off,base,"), "%s", s);
    TL_ASSERT_MSG(strstr(s, "\np7-64-two-iter,trilap,off,two,"), "%s", s);
    TL_ASSERT_MSG(strstr(s, "\np7-64-two-ops,trilap,off,two,"), "%s", s);
    TL_ASSERT_MSG(strstr(s, "\np7-64-two-iterq,trilap,off,two,"), "%s", s);
    TL_ASSERT_MSG(strstr(s, ",3600,3.600,0.278,"), "%s", s);
    /* render-roof-summary.sh rebuilds the same summary from the logs and stream.csv */
    TL_ASSERT_EQ(unlink(p), 0);
    r = tl_test_capture("scripts/render-roof-summary.sh %s", e.out);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    char *again = tl_test_read(p);
    TL_ASSERT_STREQ(again, s);
    free(again);
    free(s);
}

/* bench-solver-roof.sh with every run failing exits 1, its last line
 * naming failed.txt; run again into that OUT, it and bench-solvers-gpu.sh
 * refuse it in one line, exit 1, before any run. Before: exit 0 with every
 * run failed, and an OUT given again mixed the earlier run's logs into
 * this one's summary. */
TL_TEST(roof_failed_runs_and_reused_out)
{
    roof_env e;
    stand_ins(&e);
    char p[700];
    snprintf(p, sizeof p, "%s/fail-solve", e.dir);
    write_script(p, "#!/bin/sh\necho 'trilap-solve: CUDA error: out of memory' >&2; exit 1\n");
    tl_test_output r = tl_test_capture("SOLVE=%s BENCH=%s/trilap-bench VARIANTS=base= "
                                       "scripts/bench-solver-roof.sh --sizes 64 %s", p, e.dir, e.out);
    char want[800];
    snprintf(want, sizeof want, "runs failed: %s/failed.txt\n", e.out);
    const char *last = strrchr(r.err, ']');
    TL_ASSERT_MSG(r.rc == 1 && last && !strcmp(last + 2, want), "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    static const char *const scripts[] = {"bench-solver-roof.sh --sizes 64", "bench-solvers-gpu.sh --quick"};
    for (int i = 0; i < 2; i++) {
        r = tl_test_capture("SOLVE=%s/trilap-solve BENCH=%s/trilap-bench VARIANTS=base= scripts/%s %s", e.dir, e.dir,
                            scripts[i], e.out);
        snprintf(want, sizeof want, ": %s/logs is an earlier run's, and this run's summary would take it in; "
                                    "choose another OUT or remove it\n", e.out);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want) && !strncmp(r.err, scripts[i], 20),
                      "%s: exit %d: %s", scripts[i], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(access(e.args, F_OK) != 0, "%s: trilap-solve ran", scripts[i]);
    }
}

TL_TEST(roof_variants_refused)
{
    roof_env e;
    stand_ins(&e);
    static const char *const bad[] = {"base= --pdl", "Two=--pdl", "=--pdl", "a/b=--pdl"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tl_test_output r =
            tl_test_capture("SOLVE=%s/trilap-solve BENCH=%s/trilap-bench VARIANTS='%s' "
                            "scripts/bench-solver-roof.sh --sizes 64 %s",
                            e.dir, e.dir, bad[k], e.out);
        TL_ASSERT_MSG(r.rc == 2, "VARIANTS='%s': exit %d", bad[k], r.rc);
        TL_ASSERT_MSG(strstr(r.err, "bench-solver-roof.sh: invalid VARIANTS") && one_line(r.err),
                      "VARIANTS='%s': %s", bad[k], r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(access(e.out, F_OK) != 0, "VARIANTS='%s': %s written", bad[k], e.out);
        TL_ASSERT_MSG(access(e.args, F_OK) != 0, "VARIANTS='%s': trilap-solve ran", bad[k]);
    }
    /* a summary of nothing: one line, exit 2 */
    tl_test_output r = tl_test_capture("scripts/render-roof-summary.sh %s", e.out);
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_MSG(strstr(r.err, "render-roof-summary.sh: ") && strstr(r.err, "logs: no such directory") &&
                      one_line(r.err),
                  "%s", r.err);
    tl_test_output_free(&r);
}

/* s is one line holding want, after none or more lines of the commands a
 * script runs ("$ ..."): bench-cpml.sh echoes each before it */
static int one_line_after_commands(const char *s, const char *want)
{
    const char *nl;
    while (!strncmp(s, "$ ", 2) && (nl = strchr(s, '\n')) && nl[1])
        s = nl + 1;
    return tl_test_one_line(s, want);
}

/* In t/o, summary files a and b hold "old"; CMD (a printf format taking t
 * twice: PATH's first folder, then t/o) runs once per fail_on with a
 * stand-in awk first on PATH that, given an argument holding FAIL_ON,
 * writes part of its output and fails: exit 1, one line beginning with
 * err and ending with tail (after the commands the script echoes), a and
 * b still "old" and ls of t/o as ls. */
static void awk_failure_leaves_summary(const char *t, const char *cmd, const char *const fail_on[2], const char *a,
                                       const char *b, const char *ls, const char *err, const char *tail)
{
    char p[700], full[1400];
    snprintf(p, sizeof p, "%s/fa/awk", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fa", t), 0);
    write_script(p, "#!/bin/sh\n"
                    "case \" $* \" in *\"$FAIL_ON\"*) echo 'part,of,it'; exit 2 ;; esac\n"
                    "PATH=${PATH#*/fa:} exec awk \"$@\"\n");
    for (int i = 0; i < 2; i++) {
        TL_ASSERT_EQ(tl_test_sh("echo old > %s/o/%s && echo old > %s/o/%s", t, a, t, b), 0);
        snprintf(full, sizeof full, cmd, t, t);
        tl_test_output r = tl_test_capture("FAIL_ON=%s %s", fail_on[i], full);
        TL_ASSERT_MSG(r.rc == 1 && one_line_after_commands(r.err, err) && strstr(r.err, tail), "%s: rc %d: %s", fail_on[i],
                      r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("cd %s/o && test \"$(cat %s %s)\" = \"$(printf 'old\\nold')\" && test \"$(ls)\" = '%s'", t,
                                 a, b, ls) == 0,
                      "%s: files changed", fail_on[i]);
    }
}

/* render-roof-summary.sh with an awk that fails (a stand-in on PATH, after
 * writing part of its output) reading a log, then in roof-fit.awk: one
 * line, exit 1, summary.csv and summary.txt as they were, no temporary
 * left. Before: exit 2 without a word, summary.txt.tmp left beside them
 * (and, the log's awk failing, a summary.csv without that log's rows). */
TL_TEST(roof_summary_whole_or_nothing)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/o/logs && printf 'iterations: 10\\n' > %s/o/logs/p7-64-base-iter.txt", t, t), 0);
    static const char *const fail_on[] = {"/solver-log.awk", "/roof-fit.awk"};
    awk_failure_leaves_summary(t, "PATH=%s/fa:$PATH scripts/render-roof-summary.sh %s/o 100", fail_on, "summary.csv",
                               "summary.txt", "logs\nsummary.csv\nsummary.txt", "render-roof-summary.sh: cannot write ",
                               "; the summary left as it was\n");
    tl_test_output r = tl_test_capture("(scripts/render-roof-summary.sh %s/o 100 && head -n1 %s/o/summary.csv && ls %s/o)", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && !strncmp(r.out, "run,spmv,", 9) && strstr(r.out, "\nlogs\nsummary.csv\nsummary.txt\n"),
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* results/INDEX.md is what scripts/render-results-index.sh makes from the
 * table of results/README.md; on a copy, a folder without a row, a row
 * without a folder and a stale index are each refused, naming what. */
TL_TEST(results_index_current_and_checked)
{
    tl_test_output r = tl_test_capture("scripts/render-results-index.sh --check");
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    const char *t = tl_test_tmpdir();
    r = tl_test_capture("mkdir -p %s/res/a %s/res/b && echo x > %s/res/a/manifest.txt && "
                        "printf '| folder | what | commit | command | hardware |\n| --- | --- | --- | --- | --- |\n"
                        "| `a/` | claim A | c1 | `cmd a` | hw A |\n' > %s/res/README.md && "
                        "scripts/render-results-index.sh --results %s/res",
                        t, t, t, t, t);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, "/res/b/ has no row"), "%s", r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("rmdir %s/res/b && mkdir %s/res/c && echo '| `c/`, `d/` | claim CD | c2 | "
                        "`cmd c` | hw CD |' >> %s/res/README.md && scripts/render-results-index.sh --results %s/res",
                        t, t, t, t);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, "names d/, which"), "%s", r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("mkdir %s/res/d && scripts/render-results-index.sh --results %s/res && "
                        "cat %s/res/INDEX.md", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "| `a/` | claim A | c1 | `cmd a` | hw A | 1 |") &&
                      strstr(r.out, "| `d/` | claim CD | c2 |") && strstr(r.out, "3 folders"),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("echo y > %s/res/c/more.csv && scripts/render-results-index.sh --results %s/res --check",
                        t, t);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, "out of date"), "%s", r.err);
    tl_test_output_free(&r);
}

/* In a git checkout the index and its check take the folders git tracks:
 * a run's untracked OUT under results/, a Slurm job's hidden staging
 * folder and an untracked file in a tracked folder leave --check passing;
 * a tracked folder without a row still fails it. Before: every folder
 * counted, and one run into results/ (a default OUT) made make check's
 * results_index_current_and_checked fail. */
TL_TEST(results_index_tracked_folders_only)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("cd %s && git init -q . && mkdir -p res/a && echo x > res/a/manifest.txt && "
                            "printf '| folder | what | commit | command | hardware |\\n| --- | --- | --- | --- | --- |\\n"
                            "| `a/` | claim A | c1 | `cmd a` | hw A |\\n' > res/README.md && git add res && "
                            "$OLDPWD/scripts/render-results-index.sh --results res && git add res/INDEX.md",
                            t),
                 0);
    tl_test_output r = tl_test_capture("cd %s && mkdir -p res/run1 res/.out.task-0.42.XYZ && echo 1 > res/run1/t.csv && "
                                       "echo 2 > res/.out.task-0.42.XYZ/t.csv && echo 3 > res/a/trace.rank0.csv && "
                                       "$OLDPWD/scripts/render-results-index.sh --results res --check",
                                       t);
    TL_ASSERT_MSG(r.rc == 0 && !*r.err, "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("cd %s && git add res/run1 && $OLDPWD/scripts/render-results-index.sh --results res --check", t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "res/run1/ has no row"), "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* The render scripts' usage errors, one line and exit 2: an option or
 * argument missing was bash's "line 13: 2: --results needs a folder" and
 * "line 23: 1: usage: ..." with exit 1, as for a failed run. */
TL_TEST(render_scripts_usage)
{
    static const char *const cmd[][2] = {
        {"scripts/render-results-index.sh --results", "render-results-index.sh: --results needs a folder (try --help)\n"},
        {"scripts/render-solver-breakdown.sh", "usage: render-solver-breakdown.sh OUT (try --help)\n"},
        {"scripts/render-solver-breakdown.sh a b", "usage: render-solver-breakdown.sh OUT"},
        {"scripts/render-roof-summary.sh", "usage: render-roof-summary.sh OUTDIR [TRIAD_GBS]\n"},
        /* an option is no folder: "--bogus/logs: no such directory", and
         * "no traced breakdown runs under --bogus", exit 1 */
        {"scripts/render-roof-summary.sh --bogus", "render-roof-summary.sh: invalid argument '--bogus' (try --help)\n"},
        {"scripts/render-solver-breakdown.sh --bogus",
         "render-solver-breakdown.sh: invalid argument '--bogus' (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++) {
        tl_test_output r = tl_test_capture("%s", cmd[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, cmd[i][1]) && !r.out[0], "%s: rc %d: %s%s", cmd[i][0],
                      r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
}

/* The benchmark scripts' count arguments: a bad one is one line naming the
 * script and the value, exit 2, nothing made. Before: "usage: NAME NGPUS
 * [...]" alone (which of the values was wrong left to the reader), and
 * run-tristream.sh's "LAUNCH must be threads, mpi or srun" without the
 * value given; bench-trace-overhead.sh ran no round for ROUNDS=x. */
TL_TEST(bench_scripts_name_bad_counts)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    write_script(fake, "#!/bin/sh\necho ran >> \"$0.log\"\n");
    static const char *const cmd[][2] = {
        {"run-tristream.sh x", "run-tristream.sh: invalid NGPUS 'x': a positive integer (try --help)\n"},
        {"run-tristream.sh 0", "run-tristream.sh: invalid NGPUS '0': a positive integer (try --help)\n"},
        {"LAUNCH=ssh scripts/run-tristream.sh 2", "run-tristream.sh: invalid LAUNCH 'ssh': threads, mpi or srun (try --help)\n"},
        {"bench-size-sweeps.sh two", "bench-size-sweeps.sh: invalid NGPUS 'two': a positive integer (try --help)\n"},
        {"bench-gpu-sweep.sh '1 x'", "bench-gpu-sweep.sh: invalid GPU count 'x' in '1 x': positive integers (try --help)\n"},
        {"bench-knobs.sh 2x", "bench-knobs.sh: invalid NGPUS '2x': a positive integer (try --help)\n"},
        /* before: went to trilap-bench, refused there after OUT was made */
        {"ITERS=1e3 scripts/bench-knobs.sh 1", "bench-knobs.sh: invalid ITERS '1e3': a positive integer (try --help)\n"},
        {"REPEAT=0 scripts/bench-knobs.sh 1", "bench-knobs.sh: invalid REPEAT '0': a positive integer (try --help)\n"},
        {"bench-trace-overhead.sh -1", "bench-trace-overhead.sh: invalid NGPUS '-1': a positive integer (try --help)\n"},
        {"bench-trace-overhead.sh solver gen:poisson7:8 1e3",
         "bench-trace-overhead.sh: invalid ITERATIONS '1e3': a positive integer (try --help)\n"},
        {"ROUNDS=x scripts/bench-trace-overhead.sh solver",
         "bench-trace-overhead.sh: invalid ROUNDS 'x': a positive integer (try --help)\n"},
        {"device-acceptance.sh x", "device-acceptance.sh: invalid NGPUS 'x': a positive integer (try --help)\n"},
        {"device-acceptance.sh 2 0", "device-acceptance.sh: invalid BUDGET_SECONDS '0': a positive integer (try --help)\n"},
        {"device-acceptance.sh 2 60 x", "device-acceptance.sh: invalid argument 'x': at most NGPUS and BUDGET_SECONDS (try --help)\n"},
        {"bench-kineto.sh 1.5", "bench-kineto.sh: invalid MB '1.5': a positive integer (try --help)\n"},
        /* before: bash's "line 39: x: unbound variable", exit 1; REPEAT
         * went to trilap-solve, refused after OUT was made */
        {"ROUNDS=x scripts/bench-cg.sh", "bench-cg.sh: invalid ROUNDS 'x': a positive integer (try --help)\n"},
        {"REPEAT=0 scripts/bench-op-timer.sh", "bench-op-timer.sh: invalid REPEAT '0': a positive integer (try --help)\n"},
        {"REPEAT=x scripts/bench-trace-overhead.sh solver",
         "bench-trace-overhead.sh: invalid REPEAT 'x': a positive integer (try --help)\n"},
        /* before: --bogus was the MATRIX, refused by trilap-solve after OUT was made */
        {"bench-trace-overhead.sh solver --bogus",
         "bench-trace-overhead.sh: invalid argument '--bogus' (trilap-solve options go after --; try --help)\n"},
        /* before: the session ran, its budget read as 0 */
        {"device-nsys-demo.sh x", "device-nsys-demo.sh: invalid BUDGET_SECONDS 'x': a positive integer (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++) {
        const char *c = cmd[i][0];
        int env = strchr(c, '=') && strchr(c, '=') < strchr(c, ' ');
        tl_test_output r = tl_test_capture("OUT=%s/out DEV_OUT=%s/dev BENCH=%s SOLVE=%s TMPDIR=%s %s%s", t, t, fake, fake, t,
                                           env ? "" : "scripts/", c);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, cmd[i][1]) && !r.out[0], "%s: rc %d: %s%s", c, r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
    /* nothing made, nothing run */
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls -A %s)\" = fake-bench", t), 0);
}

/* A program the machine has not built is the machine's failure: one line
 * naming it, exit 1 (the house rule; run-tristream.sh and the others
 * did); a value of the command line, exit 2, named. Before:
 * bench-solver-roof.sh, bench-solvers-gpu.sh, bench-solvers-protocol.sh
 * and demo-solver.sh exited 2 for "not built", and
 * bench-solvers-protocol.sh said "BACKEND must be cuda or host" without
 * the value given. Nothing made in either case. */
TL_TEST(gpu_benchmarks_not_built_exit_1)
{
    const char *t = tl_test_tmpdir();
    static const struct { const char *cmd, *err; int rc; } runs[] = {
        {"SOLVE=$T/none scripts/bench-solver-roof.sh $T/o", "bench-solver-roof.sh: $T/none not built (make all)\n", 1},
        {"scripts/bench-solver-roof.sh --old $T/none $T/o",
         "bench-solver-roof.sh: invalid --old '$T/none': not an executable trilap-solve\n", 2},
        {"SOLVE=$T/none scripts/bench-solvers-gpu.sh $T/o", "bench-solvers-gpu.sh: $T/none not built (make all)\n", 1},
        {"SOLVE=$T/none scripts/bench-solvers-protocol.sh $T/o", "bench-solvers-protocol.sh: $T/none not built (make all)\n", 1},
        {"BACKEND=gpu scripts/bench-solvers-protocol.sh $T/o",
         "bench-solvers-protocol.sh: invalid BACKEND 'gpu': cuda or host (try --help)\n", 2},
        {"SOLVE=$T/none scripts/demo-solver.sh $T/o", "demo-solver.sh: $T/none not built (make all)\n", 1},
        /* named as the others name themselves (they said their whole path, $0) */
        {"BENCH=$T/none OUT=$T/o scripts/bench-knobs.sh 1", "bench-knobs.sh: $T/none not built (run make)\n", 1},
        {"BENCH=$T/none OUT=$T/o scripts/bench-size-sweeps.sh 1", "bench-size-sweeps.sh: $T/none not built (run make)\n",
         1},
        {"BENCH=$T/none OUT=$T/o scripts/run-tristream.sh 1", "run-tristream.sh: $T/none not built (run make)\n", 1},
        {"SOLVE=$T/none OUT=$T/o scripts/bench-trace-overhead.sh solver gen:poisson7:8 10",
         "bench-trace-overhead.sh: $T/none not built (run make)\n", 1},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tl_test_output r = tl_test_capture("T=%s; %s", t, runs[i].cmd);
        char want[1024] = "";
        for (const char *q = runs[i].err; *q; q++) {
            if (q[0] == '$' && q[1] == 'T') {
                strcat(want, t);
                q++;
            } else
                strncat(want, q, 1);
        }
        TL_ASSERT_MSG(r.rc == runs[i].rc && !strcmp(r.err, want), "%s: rc %d: %s", runs[i].cmd, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "%s made something", runs[i].cmd);
    }
}

/* Without a GPU trilap-bench stream refuses, and the GPU benchmarks stop
 * at their triad: exit 1, the last line trilap-bench's reason. Before,
 * "no triad bandwidth (logs/stream.txt)": the reason only in the file
 * (REPRODUCE.md section 8's commands run on a machine without a GPU). */
TL_TEST(gpu_benchmarks_say_why_no_triad)
{
    const char *t = tl_test_tmpdir();
    static const char *const scripts[] = {"bench-solvers-gpu.sh", "bench-solvers-protocol.sh"};
    static const char why[] = "trilap-bench: stream needs one GPU per rank (none visible, or --no-gpu); use --host";
    char bench[600];
    snprintf(bench, sizeof bench, "%s/bench", t);
    char body[300];
    snprintf(body, sizeof body, "#!/bin/sh\necho '%s' >&2\nexit 1\n", why);
    write_script(bench, body);
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        tl_test_output r = tl_test_capture("BENCH=%s scripts/%s %s/out%zu 2>&1 >/dev/null | tail -n 1", bench,
                                           scripts[i], t, i);
        TL_ASSERT_MSG(strstr(r.out, "no triad bandwidth: ") && strstr(r.out, why), "%s: %s", scripts[i], r.out);
        tl_test_output_free(&r);
        r = tl_test_capture("BENCH=%s scripts/%s %s/rc%zu", bench, scripts[i], t, i);
        TL_ASSERT_MSG(r.rc == 1, "%s: rc %d", scripts[i], r.rc);
        tl_test_output_free(&r);
    }
}

/* bench-fdtd.sh and bench-cpml.sh on a machine without a GPU: each failed
 * step's line gives its exit status and the program's own error line.
 * Before, "-> failed or timed out (limit 60s)" for a program that had
 * refused at once (REPRODUCE.md section 7's benchmarks run without a GPU:
 * 79 such lines from bench-fdtd.sh OUT). */
TL_TEST(fdtd_benchmarks_say_why_a_step_failed)
{
    const char *t = tl_test_tmpdir();
    static const char *const runs[] = {"bench-fdtd.sh %s/out0 --sizes 32 --kernels naive --double naive",
                                       "bench-cpml.sh %s/out1 --sizes 32 --reps 1"};
    static const char why[] = "trilap-fdtd: --backend cuda needs a GPU and none is visible";
    char dir[600], body[300], cmd[800];
    snprintf(dir, sizeof dir, "%s/a", t);
    TL_ASSERT_EQ(mkdir(dir, 0755), 0);
    static const char *const progs[] = {"trilap-fdtd", "trilap-bench"};
    for (size_t i = 0; i < 2; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", dir, progs[i]);
        snprintf(body, sizeof body,
                 "#!/bin/sh\necho 'a line before'\n"
                 "echo '%s: --backend cuda needs a GPU and none is visible' >&2\nexit 1\n",
                 progs[i]);
        write_script(p, body);
    }
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(cmd, sizeof cmd, runs[i], t);
        tl_test_output r = tl_test_capture("TL_BIN=%s scripts/%s", dir, cmd);
        TL_ASSERT_MSG(strstr(r.err, "  -> exit 1: ") && strstr(r.err, why) && !strstr(r.err, "timed out"), "%s: %s",
                      cmd, r.err);
        tl_test_output_free(&r);
    }
}

/* bench-solver-roof.sh and bench-solvers-gpu.sh take the programs of the
 * checkout they are in (and its ../shared/data), as the other benchmark
 * scripts do and their --help says, whatever the current folder: run
 * from a copy of scripts/ with no bin/ beside it, in a folder whose bin/
 * holds stand-ins, each names the copy's bin/trilap-solve not built, exit
 * 1, and runs nothing. Before: the current folder's bin/ and
 * ../shared/data, the stand-ins run and OUT made. */
TL_TEST(gpu_benchmarks_default_to_the_checkout)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/tree %s/cwd/bin && cp -r scripts %s/tree/", t, t, t), 0);
    static const char *const progs[] = {"trilap-solve", "trilap-bench", "trilap-analyze"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/cwd/bin/%s", t, progs[i]);
        write_script(p, "#!/bin/sh\necho ran >> \"$0.log\"\nexit 1\n");
    }
    static const char *const scripts[] = {"bench-solver-roof.sh", "bench-solvers-gpu.sh"};
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("cd %s/cwd && env -u SOLVE -u BENCH -u ANALYZE bash %s/tree/scripts/%s o", t, t,
                                           scripts[i]);
        char want[900];
        snprintf(want, sizeof want, "%s: %s/tree/bin/trilap-solve not built (make all)\n", scripts[i], t);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want), "%s: rc %d: %s", scripts[i], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("cd %s/cwd && test \"$(ls -A . bin)\" = \"$(printf '.:\\nbin\\n\\nbin:\\n"
                                 "trilap-analyze\\ntrilap-bench\\ntrilap-solve')\"", t) == 0,
                      "%s ran a stand-in or made OUT", scripts[i]);
    }
}

/* bench-fdtd.sh --summary OUT rewrites summary.csv and table.txt from
 * fdtd.csv: with an awk that fails after writing part of either (a
 * stand-in on PATH), one line, exit 1, both files as they were and no
 * temporary left; then whole. Before: the failure left summary.csv cut
 * (and table.txt, when its awk failed), the earlier ones lost. */
TL_TEST(fdtd_summary_whole_or_nothing)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    snprintf(p, sizeof p, "%s/o/fdtd.csv", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/o", t), 0);
    tl_test_write(p, "label,kernel,precision,nx,cpml,mpoints_s,gbs,min_bytes_per_point,cpml_overhead\n"
                     "a,naive,single,320,0,1000,48.0,48,\nb,vec4,single,320,0,3000,144.0,48,\n");
    static const char *const fail_on[] = {"/fdtd.csv", "/summary.part"};
    awk_failure_leaves_summary(t, "PATH=%s/fa:$PATH scripts/bench-fdtd.sh --summary %s/o", fail_on, "summary.csv",
                               "table.txt", "fdtd.csv\nsummary.csv\ntable.txt", "bench-fdtd.sh: cannot write ",
                               "; summary.csv and table.txt left as they were\n");
    tl_test_output r = tl_test_capture("(scripts/bench-fdtd.sh --summary %s/o && cat %s/o/summary.csv)", t, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "kernel,precision,n,boundary,mpoints_s,") &&
                      strstr(r.out, "\nvec4,single,320,none,3000,144.0,48,0,0.000,3.000,\n"),
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("cd %s/o && test \"$(ls)\" = \"$(printf 'bench.log\\nfdtd.csv\\nsummary.csv\\ntable.txt')\" && "
                            "grep -q '^vec4 ' table.txt", t),
                 0);
}

/* A benchmark script whose trilap-bench fails (no GPU here) says why on
 * stderr and removes the folder it made, unless a CSV in it already holds
 * a row (scripts/bench-out.sh). Before: bench-knobs.sh exited 1 after its
 * header line with the error in OUT/base.err, and it, bench-size-sweeps.sh,
 * bench-gpu-sweep.sh and bench-trace-overhead.sh left their folders of logs
 * and empty CSVs (under results/ by default). */
TL_TEST(failed_benchmarks_leave_no_folder)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    write_script(fake, "#!/bin/sh\necho 'fake-bench: tristream needs one GPU per rank' >&2\nexit 1\n");
    static const char *const runs[] = {"bench-knobs.sh 1", "bench-size-sweeps.sh 1", "bench-gpu-sweep.sh 1",
                                       "bench-trace-overhead.sh 1"};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tl_test_output r = tl_test_capture("OUT=%s/out BENCH=%s TMPDIR=%s scripts/%s", t, fake, t, runs[i]);
        TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "fake-bench: tristream needs one GPU per rank\n") &&
                          strstr(r.err, "/out removed\n"),
                      "%s: rc %d: %s", runs[i], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test ! -e %s/out", t) == 0, "%s left %s/out", runs[i], t);
    }
    /* its own temporary folder too */
    tl_test_output r = tl_test_capture("BENCH=%s TMPDIR=%s scripts/bench-trace-overhead.sh 1", fake, t);
    TL_ASSERT_EQ(r.rc, 1);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls %s | grep trilap-overhead)\"", t), 0);
    /* a later configuration failing: the rows before it stay, and it says where */
    write_script(fake, "#!/bin/sh\n"
                       "n=$(cat \"$0.calls\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$0.calls\"\n"
                       "[ \"$n\" -ge 1 ] && { echo 'fake-bench: failed' >&2; exit 1; }\n"
                       "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                       "printf 'variant,nranks\\nthree-split,1\\n' | tee \"$out\"\n");
    r = tl_test_capture("OUT=%s/kept BENCH=%s scripts/bench-knobs.sh 1", t, fake);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "the rows written before it are in"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test -s %s/kept/knobs.csv", t), 0);
}

/* stand-ins for srun and mpirun in t/fake: their own options dropped, the
 * program run once, the environment passed on */
static void fake_launchers(const char *t)
{
    char p[700];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fake", t), 0);
    snprintf(p, sizeof p, "%s/fake/srun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
    snprintf(p, sizeof p, "%s/fake/mpirun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                    "  case $1 in -np | --map-by | --bind-to | -x) shift 2 ;; *) shift ;; esac\ndone\nexec \"$@\"\n");
}

/* An OUT that is a file is one line naming the script and OUT, exit 1,
 * before anything runs, the file as it was (before: mkdir's "cannot
 * create directory ...: File exists", or, under a Slurm job, the same
 * after the sweep); run-tristream.sh's LAUNCH=srun or mpi without its
 * launcher on PATH is one line, exit 1, no OUT made (before: bash's "line
 * 42: srun: command not found", exit 127, and a line that OUT was
 * removed). */
TL_TEST(bench_out_not_a_folder_and_missing_launcher)
{
    const char *t = tl_test_tmpdir();
    char fake[600], want[1200];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    fake_bench(fake);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/root/bin && ln -s \"$PWD/scripts\" %s/root/scripts && cp %s %s/root/bin/trilap-bench "
                            "&& echo kept > %s/file",
                            t, t, fake, t, t),
                 0);
    fake_launchers(t);
    static const char *const runs[][2] = {{"scripts/run-tristream.sh", "run-tristream.sh 2"},
                                          {"scripts/bench-size-sweeps.sh", "bench-size-sweeps.sh 2"},
                                          {"scripts/bench-knobs.sh", "bench-knobs.sh 1"},
                                          {"tristream.sbatch", "slurm/tristream.sbatch"}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        tl_test_output r = tl_test_capture("PATH=%s/fake:$PATH SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s/root OUT=%s/file "
                                           "BENCH=%s bash scripts/%s",
                                           t, t, t, fake, runs[i][1]);
        snprintf(want, sizeof want, "%s: cannot write the results into %s/file: a file is there, not a folder\n",
                 runs[i][0], t);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "%s: rc %d: %s%s", runs[i][1], r.rc, r.out, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test \"$(cat %s/file)\" = kept", t), 0);
    }
    static const char *const launch[][2] = {
        {"LAUNCH=srun PATH=/usr/bin:/bin", "srun is not on PATH (LAUNCH=srun runs inside a Slurm allocation; "
                                           "elsewhere LAUNCH=threads or mpi)\n"},
        {"LAUNCH=mpi MPIRUN='no-mpirun-here -q'", "no-mpirun-here is not on PATH (load the MPI module, or set MPIRUN)\n"}};
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("%s OUT=%s/out BENCH=%s scripts/run-tristream.sh 2", launch[i][0], t, fake);
        snprintf(want, sizeof want, "run-tristream.sh: LAUNCH=%s but %s", i ? "mpi" : "srun", launch[i][1]);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "%s: rc %d: %s%s", launch[i][0], r.rc, r.out, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out", t), 0);
    }
}

/* run-solver-schedules.sh's default launcher (LAUNCH=mpi) or srun not on
 * PATH: one line naming LAUNCH=threads, exit 1, no OUT (before, bash's
 * "mpirun: command not found" and exit 127 on a machine without MPI, as
 * REPRODUCE.md runs it). */
TL_TEST(solver_schedules_missing_launcher)
{
    const char *t = tl_test_tmpdir();
    static const char *const launch[][2] = {
        {"MPIRUN=no-mpirun-here", "LAUNCH=mpi but no-mpirun-here is not on PATH (load the MPI module or set MPIRUN; "
                                  "LAUNCH=threads runs the ranks as threads without MPI)\n"},
        {"LAUNCH=srun PATH=/usr/bin:/bin", "LAUNCH=srun but srun is not on PATH (LAUNCH=srun runs inside a Slurm "
                                           "allocation; elsewhere LAUNCH=threads or mpi)\n"}};
    char want[600];
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("%s OUT=%s/out SOLVE=/bin/true scripts/run-solver-schedules.sh 2",
                                           launch[i][0], t);
        snprintf(want, sizeof want, "run-solver-schedules.sh: %s", launch[i][1]);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "%s: rc %d: %s%s", launch[i][0], r.rc, r.out, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out", t), 0);
    }
}

/* The Slurm templates of scripts/slurm/ under stand-ins for srun and
 * mpirun (their own options dropped, the program run once) with the GPUs
 * hidden, each with the arguments its header gives: every option is one
 * the program takes today (no "(try --help)"), the program's refusal
 * reaches stderr, and the job's folder is removed with a line saying so
 * (before: the job left OUT, under results/ by default, with an empty
 * log). Submitted outside a built checkout, a job says so in one line and
 * makes nothing (before: results/<name>-slurm-<job>/ and srun's
 * "No such file or directory"). */
TL_TEST(slurm_templates_refused_runs_leave_no_folder)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fake %s/root && ln -s \"$(cd %s && pwd)\" %s/root/bin && "
                            "ln -s \"$PWD/scripts\" %s/root/scripts",
                            t, t, tl_test_bin(), t, t),
                 0);
    snprintf(p, sizeof p, "%s/fake/srun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
    snprintf(p, sizeof p, "%s/fake/mpirun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                    "  case $1 in -np | --map-by | --bind-to | -x) shift 2 ;; *) shift ;; esac\ndone\nexec \"$@\"\n");
    static const char *const jobs[][2] = {
        {"tristream", "--iters 100000"},
        {"bench-comm", ""},
        {"fdtd-ranks", "--grid 640 --decomp pencil-yz --s 2 --overlap --steps 200 --warmup 10"},
    };
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        tl_test_output r = tl_test_capture("PATH=%s/fake:$PATH CUDA_VISIBLE_DEVICES= SLURM_JOB_ID=42 "
                                           "SLURM_SUBMIT_DIR=%s/root OUT=%s/out bash scripts/slurm/%s.sbatch %s",
                                           t, t, t, jobs[i][0], jobs[i][1]);
        char removed[200];
        snprintf(removed, sizeof removed, "%s.sbatch: failed (exit ", jobs[i][0]);
        TL_ASSERT_MSG(r.rc != 0 && !strstr(r.err, "(try --help)") && strstr(r.err, "trilap-") &&
                          strstr(r.err, removed) && strstr(r.err, "/out removed\n"),
                      "%s: rc %d: %s", jobs[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test ! -e %s/out", t) == 0, "%s left %s/out", jobs[i][0], t);
    }
    tl_test_output r = tl_test_capture("PATH=%s/fake:$PATH SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s "
                                       "bash scripts/slurm/tristream.sbatch",
                                       t, t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_count(r.err, "\n") == 1 &&
                      strstr(r.err, "tristream.sbatch: ") && strstr(r.err, "/bin/trilap-bench not built"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/results", t), 0);
    /* TRILAP_ROOT an install: its programs, no scripts/ (before: bash's
     * "line 35: .../scripts/bench-out.sh: No such file or directory") */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/inst && ln -s \"$(cd %s && pwd)\" %s/inst/bin", t, tl_test_bin(), t), 0);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        r = tl_test_capture("PATH=%s/fake:$PATH SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s TRILAP_ROOT=%s/inst "
                            "bash scripts/slurm/%s.sbatch",
                            t, t, t, jobs[i][0]);
        char want[1200];
        snprintf(want, sizeof want, "%s.sbatch: %s/inst/scripts/bench-out.sh missing: TRILAP_ROOT must be a trilap "
                 "checkout (make install copies no scripts)\n", jobs[i][0], t);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want) && !*r.out, "%s: rc %d: %s", jobs[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/inst/results", t), 0);
    }
}

/* Whether `file` is there and, with `line`, holds a whole line (a file
 * opened for a write is there before the write). */
static int file_ready(const char *file, int line)
{
    if (!line) return access(file, F_OK) == 0;
    FILE *f = fopen(file, "r");
    int c, seen = 0;
    while (f && (c = fgetc(f)) != EOF && !seen) seen = c == '\n';
    if (f) fclose(f);
    return seen;
}

/* `bash -c cmd` in a process group of its own, with stderr to err_path
 * and the default dispositions (a test runner in the background ignores
 * SIGINT, which bash would keep); once `file` exists (with `line`: once it
 * holds a line), `sig` goes to the whole group, as ^C in a terminal or
 * Slurm's scancel and time limit send it. Returns the wait status. */
static int run_until_then_signal(const char *cmd, const char *file, int line, const char *err_path, int sig)
{
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (!freopen(err_path, "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
        execl("/bin/bash", "bash", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0;
    for (int i = 0; i < 2000 && !file_ready(file, line); i++) {
        struct timespec ts = {0, 5000000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    TL_ASSERT_MSG(file_ready(file, line), "%s: no %s%s after 10 s", cmd, file, line ? " holding a line" : "");
    kill(-pid, sig);
    TL_ASSERT(waitpid(pid, &status, 0) == pid);
    return status;
}

/* A benchmark script or Slurm job stopped by a signal (^C, scancel, the
 * job's time limit) is a failed run: its folder goes when no CSV in it
 * holds a row, stays when one does, a line says which, and it exits
 * 128 + the signal. Before: bash's EXIT trap saw $? 0 after a signal, so
 * scripts/bench-out.sh took the run for a finished one: the folder and its
 * header-only CSV stayed, without a word. */
TL_TEST(interrupted_benchmarks_leave_no_folder)
{
    const char *t = tl_test_tmpdir();
    char p[700], cmd[2400], csv[700], err[700];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fake %s/root/bin && ln -s \"$PWD/scripts\" %s/root/scripts", t, t, t), 0);
    snprintf(p, sizeof p, "%s/fake/srun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
    snprintf(p, sizeof p, "%s/fake/mpirun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                    "  case $1 in -np | --map-by | --bind-to | -x) shift 2 ;; *) shift ;; esac\ndone\nexec \"$@\"\n");
    /* a header, with ROWS=1 a row under it, then a wait for the signal */
    snprintf(p, sizeof p, "%s/root/bin/trilap-bench", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                    "printf 'variant,us_per_iter\\n' > \"$out.tmp\"\n"
                    "[ \"${ROWS:-0}\" = 1 ] && printf 'three-split,1\\n' >> \"$out.tmp\"\n"
                    "mv \"$out.tmp\" \"$out\"\nexec sleep 60\n");
    static const struct {
        const char *run, *name, *csv;
        int sig;
    } runs[] = {
        {"BENCH=$R/bin/trilap-bench scripts/run-tristream.sh 2", "run-tristream.sh", "tristream.csv", SIGINT},
        {"SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=$R bash scripts/slurm/bench-comm.sbatch", "bench-comm.sbatch", "comm.csv",
         SIGTERM},
        {"SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=$R bash scripts/slurm/tristream.sbatch", "tristream.sbatch",
         "tristream.csv", SIGTERM},
    };
    snprintf(err, sizeof err, "%s/err", t);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int rows = 0; rows < 2; rows++) {
            snprintf(cmd, sizeof cmd, "R=%s/root; PATH=%s/fake:$PATH ROWS=%d OUT=%s/out exec env %s", t, t, rows, t,
                     runs[i].run);
            snprintf(csv, sizeof csv, "%s/out/%s", t, runs[i].csv);
            int status = run_until_then_signal(cmd, csv, 0, err, runs[i].sig);
            char *e = tl_test_slurp(err);
            char want[300];
            snprintf(want, sizeof want, "%s: interrupted (SIG%s); %s", runs[i].name,
                     runs[i].sig == SIGINT ? "INT" : "TERM", rows ? "the rows written before it are in " : "");
            TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 128 + runs[i].sig && strstr(e, want) &&
                              tl_test_count(e, "interrupted") == 1,
                          "%s, rows %d: status %#x: %s", runs[i].name, rows, status, e);
            free(e);
            TL_ASSERT_MSG(tl_test_sh(rows ? "test -s %s/out/%s" : "test ! -e %s/out", t, runs[i].csv) == 0,
                          "%s, rows %d: the folder %s", runs[i].name, rows, rows ? "went" : "stayed");
            TL_ASSERT_EQ(tl_test_sh("rm -rf %s/out", t), 0);
        }
}

/* run-solver-schedules.sh stopped by a signal: one line, exit 128 + the
 * signal, its folder removed while no run has written a result, kept with
 * the results once one has. Before: the folder stayed with its
 * console.log, and nothing was said. */
TL_TEST(interrupted_solver_schedules_leave_no_folder)
{
    const char *t = tl_test_tmpdir();
    char solve[700], cmd[2400], running[700], err[700];
    snprintf(solve, sizeof solve, "%s/fake-solve", t);
    /* with ROWS=1 the first run writes a result and the second waits for
     * the signal; else the first waits */
    write_script(solve, "#!/bin/sh\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                        "if [ \"${ROWS:-0}\" = 1 ] && [ ! -e \"$out\" ]; then\n"
                        "  printf 'us_per_iter\\n1\\n' > \"$out\"; exit 0\nfi\n"
                        "touch \"${out%/*}/running\"\nexec sleep 60\n");
    snprintf(running, sizeof running, "%s/out/running", t);
    snprintf(err, sizeof err, "%s/err", t);
    for (int rows = 0; rows < 2; rows++)
        for (int s = 0; s < 2; s++) {
            int sig = s ? SIGTERM : SIGINT;
            snprintf(cmd, sizeof cmd, "ROWS=%d SOLVE=%s LAUNCH=threads PLOT=0 OUT=%s/out exec scripts/run-solver-schedules.sh 2",
                     rows, solve, t);
            int status = run_until_then_signal(cmd, running, 0, err, sig);
            char *e = tl_test_slurp(err);
            char want[600];
            if (rows) snprintf(want, sizeof want, "run-solver-schedules.sh: interrupted (SIG%s); the results before it "
                               "are in %s/out/solver-schedules.csv\n", s ? "TERM" : "INT", t);
            else snprintf(want, sizeof want, "run-solver-schedules.sh: interrupted (SIG%s) before any result; %s/out "
                          "removed\n", s ? "TERM" : "INT", t);
            TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig && strstr(e, want) &&
                              tl_test_count(e, "interrupted") == 1,
                          "rows %d, signal %d: status %#x: %s", rows, sig, status, e);
            free(e);
            TL_ASSERT_MSG(tl_test_sh(rows ? "test -s %s/out/solver-schedules.csv" : "test ! -e %s/out", t) == 0,
                          "rows %d, signal %d: the folder %s", rows, sig, rows ? "went" : "stayed");
            TL_ASSERT_EQ(tl_test_sh("rm -rf %s/out", t), 0);
        }
}

/* A ^C (SIGINT to the script's process group, as a terminal sends it) or
 * a SIGTERM while a benchmark runs a step under its time limit stops the
 * step and the script: 130 or 143, no further step started, the running
 * one not left to finish. Before, GNU timeout's own process group missed
 * the ^C: bench-cpml.sh ran the step to its end and started three more,
 * exit 1 after 10 s; after a SIGTERM the script ended but the step ran on,
 * orphaned. */
/* Whether process pid has ended (gone, or a zombie its new parent has not
 * reaped yet), waiting up to 3 s for it. */
static int process_ended(pid_t pid)
{
    for (int i = 0; i < 300; i++) {
        char p[64], st = 0;
        snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(p, "r");
        if (!f) return 1;
        int got = fscanf(f, "%*d (%*[^)]) %c", &st);
        fclose(f);
        if (got == 1 && (st == 'Z' || st == 'X')) return 1;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

TL_TEST(bounded_steps_stop_on_a_signal)
{
    const char *t = tl_test_tmpdir();
    char p[700], cmd[2400], calls[700], err[700];
    snprintf(calls, sizeof calls, "%s/calls", t);
    snprintf(err, sizeof err, "%s/err", t);
    snprintf(p, sizeof p, "%s/trilap-bench", t);
    fake_bench(p);
    /* a step that would run 30 s: left to run on, its process outlives the
     * script; stopped, it is gone at once */
    static const char *const names[] = {"trilap-fdtd", "trilap-solve"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", t, names[i]);
        write_script(p, "#!/bin/sh\necho \"start $$\" >> \"$CALLS\"\nexec sleep 30\n");
    }
    static const char *const runs[] = {
        "TL_BIN=$T scripts/bench-cpml.sh $T/out --sizes '480 1024' --reps 2",
        "SOLVE=$T/trilap-solve BENCH=$T/trilap-bench VARIANTS=base= scripts/bench-solver-roof.sh --sizes '64 128' $T/out",
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
        for (int s = 0; s < 2; s++) {
            int sig = s ? SIGTERM : SIGINT;
            snprintf(cmd, sizeof cmd, "T=%s; CALLS=$T/calls exec env %s", t, runs[i]);
            /* the step's line written: signalled between its open and its
             * write, the step left an empty file and no pid to ask after */
            int status = run_until_then_signal(cmd, calls, 1, err, sig);
            TL_ASSERT_MSG((WIFSIGNALED(status) && WTERMSIG(status) == sig) ||
                              (WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig),
                          "%s, signal %d: status %#x", runs[i], sig, status);
            char *c = tl_test_read(calls);
            int step = 0, used = 0;
            TL_ASSERT_MSG(sscanf(c, "start %d\n%n", &step, &used) == 1 && c[used] == '\0',
                          "%s, signal %d: steps:\n%s", runs[i], sig, c);
            free(c);
            TL_ASSERT_MSG(process_ended(step), "%s, signal %d: the step (pid %d) runs on after the script ended",
                          runs[i], sig, step);
            TL_ASSERT_EQ(tl_test_sh("rm -rf %s/out %s", t, calls), 0);
        }
}

/* A failed step is said with the program's error line, not with a note
 * it printed before (the programs say the folders they make for --results
 * and --trace in a note first: "exit 1: trilap-fdtd: note: --trace
 * out/pencil-x: created folder ..." hid the reason). */
TL_TEST(bounded_step_says_the_error_not_a_note)
{
    char out[2048];
    TL_ASSERT_EQ(tl_test_sh_to(out, sizeof out,
                               "T=%s; bash -c 'set -euo pipefail; . scripts/bounded.sh; log=$0/log; : >\"$log\"; "
                               "say() { echo \"$*\"; }; bounded_step 10 sh -c \"echo trilap-fdtd: note: --trace x: "
                               "created folder x >&2; echo trilap-fdtd: the real reason >&2; exit 1\" || true' \"$T\"",
                               tl_test_tmpdir()),
                 0);
    TL_ASSERT_MSG(strstr(out, "  -> exit 1: trilap-fdtd: the real reason\n"), "%s", out);
}

/* The templates run with NVLink SHARP off unless the job's environment
 * asks for it, as every run of REPRODUCE.md was measured (before: NCCL's
 * default, so a node with NVSwitches timed other collectives than the
 * committed results without a word but the manifest's); bench-comm.sbatch
 * hands it, and NCCL_DEBUG, to mpirun's ranks with -x. */
TL_TEST(slurm_templates_nvls_off_unless_asked)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fake %s/root/bin && ln -s \"$PWD/scripts\" %s/root/scripts", t, t, t), 0);
    snprintf(p, sizeof p, "%s/fake/srun", t);
    write_script(p, "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
    /* mpirun passes on only what -x names, as Open MPI to another node */
    snprintf(p, sizeof p, "%s/fake/mpirun", t);
    write_script(p, "#!/bin/sh\nkeep=\"PATH=$PATH\"\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                    "  case $1 in -x) eval \"v=\\${$2-}\"; keep=\"$keep $2=$v\"; shift 2 ;;\n"
                    "    -np | --map-by | --bind-to) shift 2 ;; *) shift ;; esac\ndone\nexec env -i $keep \"$@\"\n");
    static const char *const progs[] = {"trilap-bench", "trilap-fdtd"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/root/bin/%s", t, progs[k]);
        write_script(p, "#!/bin/sh\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                        "printf 'x\\n1\\n' > \"$out\"\necho \"nvls=${NCCL_NVLS_ENABLE-unset} debug=${NCCL_DEBUG-unset}\"\n");
    }
    static const char *const jobs[][2] = {{"tristream", "tristream"}, {"fdtd-ranks", "fdtd"}, {"bench-comm", "comm"}};
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
        for (int asked = 0; asked < 2; asked++) {
            tl_test_output r = tl_test_capture("env -u NCCL_NVLS_ENABLE -u NCCL_DEBUG %s PATH=%s/fake:$PATH "
                                               "SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s/root OUT=%s/out%zu%d "
                                               "bash scripts/slurm/%s.sbatch",
                                               asked ? "NCCL_NVLS_ENABLE=1" : "", t, t, t, i, asked, jobs[i][0]);
            TL_ASSERT_MSG(r.rc == 0, "%s: rc %d: %s", jobs[i][0], r.rc, r.err);
            TL_ASSERT_MSG(strstr(r.out, asked ? "nvls=1 debug=WARN\n" : "nvls=0 debug=WARN\n"), "%s%s: %s",
                          jobs[i][0], asked ? " with NCCL_NVLS_ENABLE=1" : "", r.out);
            tl_test_output_free(&r);
        }
}

/* Run by hand, a template answers --help (what it runs, the variables it
 * reads, SRUN_MPI among them where srun starts the ranks) and, outside a
 * job, refuses in one line (before: 'SLURM_SUBMIT_DIR: unbound variable',
 * then with TRILAP_ROOT set 'SLURM_JOB_ID: unbound variable', exit 1). */
TL_TEST(slurm_templates_help_and_outside_a_job)
{
    const char *t = tl_test_tmpdir();
    static const struct {
        const char *name, *runs;
        int srun;
    } jobs[] = {
        {"tristream", "trilap-bench tristream", 1},
        {"bench-comm", "trilap-bench comm", 0},
        {"fdtd-ranks", "trilap-fdtd run", 1},
    };
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        tl_test_output r = tl_test_capture("cd %s && env -u SLURM_JOB_ID -u SLURM_SUBMIT_DIR bash %s/scripts/slurm/%s.sbatch "
                                           "--help",
                                           t, getenv("PWD"), jobs[i].name);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, jobs[i].runs) && strstr(r.out, "sbatch ") &&
                          strstr(r.out, "TRILAP_ROOT") && strstr(r.out, "OUT ") &&
                          (!jobs[i].srun || strstr(r.out, "SRUN_MPI")) && !strstr(r.out, "SBATCH") &&
                          !strstr(r.out, "# ") && !strstr(r.out, "set -") && !*r.err,
                      "%s --help: rc %d\n%s%s", jobs[i].name, r.rc, r.out, r.err);
        tl_test_output_free(&r);
        char want[200];
        snprintf(want, sizeof want, "%s.sbatch: not inside a Slurm job: submit it with sbatch (", jobs[i].name);
        for (int root = 0; root < 2; root++) {
            r = tl_test_capture("cd %s && env -u SLURM_JOB_ID -u SLURM_SUBMIT_DIR %s bash %s/scripts/slurm/%s.sbatch",
                                t, root ? "TRILAP_ROOT=$OLDPWD" : "", getenv("PWD"), jobs[i].name);
            TL_ASSERT_MSG(r.rc == 2 && tl_test_count(r.err, "\n") == 1 && strstr(r.err, want) && !*r.out,
                          "%s outside a job: rc %d: %s", jobs[i].name, r.rc, r.err);
            tl_test_output_free(&r);
        }
    }
    TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls -A %s)\"", t), 0);
}

/* the array scripts' wait for a go or started file: 10 s at most */
#define WAITFOR_SH                                                                                                    \
    "waitfor() { for i in $(seq 400); do [ -e \"$1\" ] && return 0; sleep 0.025; done; echo \"no $1\"; exit 1; }\n"

/* t/root: a checkout for the array tasks (bin/ for the stand-in program,
 * results/, this tree's scripts/), t/sync for their go files, the
 * stand-in launchers */
static void slurm_array_root(const char *t)
{
    fake_launchers(t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/root/bin %s/root/results %s/sync && ln -s \"$PWD/scripts\" %s/root/scripts",
                            t, t, t, t),
                 0);
}

/* The tasks of a job array (sbatch --array) given one OUT each write
 * OUT/task-<index>: task 0 started first and fails while task 1 still
 * writes; task 1's folder stays and its run finishes; task 2 runs after,
 * beside it; by default the tasks share results/<name>-slurm-<array job
 * id>/, which a failed task alone does not make. Before: every task wrote
 * OUT's CSV and log, the last overwriting the others, and task 0 removed
 * OUT, task 1's files in it, so that task 1 failed too. */
TL_TEST(slurm_array_tasks_keep_their_folders)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    slurm_array_root(t);
    /* a header, then task 0 fails and the others write their row once
     * their go file is there */
    static const char prog[] = "#!/bin/sh\n"
                               "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                               "printf 'variant,task\\n' > \"$out\"\n"
                               "touch \"$SYNC/started-$SLURM_ARRAY_TASK_ID\"\n"
                               "while [ ! -e \"$SYNC/go-$SLURM_ARRAY_TASK_ID\" ]; do sleep 0.02; done\n"
                               "[ \"$SLURM_ARRAY_TASK_ID\" = 0 ] && { echo 'fake: failed' >&2; exit 1; }\n"
                               "printf 'three-split,%s\\n' \"$SLURM_ARRAY_TASK_ID\" >> \"$out\"\n";
    snprintf(p, sizeof p, "%s/root/bin/trilap-bench", t);
    write_script(p, prog);
    snprintf(p, sizeof p, "%s/root/bin/trilap-fdtd", t);
    write_script(p, prog);
    snprintf(p, sizeof p, "%s/array.sh", t);
    tl_test_write(p, "T=$1 job=scripts/slurm/$2.sbatch\n"
                     "export PATH=$T/fake:$PATH SLURM_SUBMIT_DIR=$T/root SLURM_ARRAY_JOB_ID=41 SYNC=$T/sync\n"
                     WAITFOR_SH
                     "rm -f $T/sync/*\n"
                     "OUT=$T/out SLURM_JOB_ID=41 SLURM_ARRAY_TASK_ID=0 bash $job 2>$T/err0 & p0=$!\n"
                     "waitfor $T/sync/started-0\n"
                     "OUT=$T/out SLURM_JOB_ID=42 SLURM_ARRAY_TASK_ID=1 bash $job 2>$T/err1 & p1=$!\n"
                     "waitfor $T/sync/started-1\n"
                     "touch $T/sync/go-0; wait $p0; echo \"rc0=$?\"\n"
                     "touch $T/sync/go-1; wait $p1; echo \"rc1=$?\"\n"
                     "touch $T/sync/go-2\n"
                     "OUT=$T/out SLURM_JOB_ID=43 SLURM_ARRAY_TASK_ID=2 bash $job 2>$T/err2; echo \"rc2=$?\"\n"
                     "env -u OUT SLURM_JOB_ID=50 SLURM_ARRAY_JOB_ID=50 SLURM_ARRAY_TASK_ID=0 bash $job 2>$T/err3; "
                     "echo \"rc3=$?\"\n"
                     "ls $T/root/results\n"
                     "env -u OUT SLURM_JOB_ID=51 SLURM_ARRAY_JOB_ID=50 SLURM_ARRAY_TASK_ID=2 bash $job 2>$T/err4; "
                     "echo \"rc4=$?\"\n");
    static const char *const jobs[][2] = {{"tristream", "tristream"}, {"fdtd-ranks", "fdtd"}, {"bench-comm", "comm"}};
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        const char *res = strcmp(jobs[i][1], "fdtd") ? jobs[i][1] : "fdtd-ranks";
        tl_test_output r = tl_test_capture("bash %s/array.sh %s %s", t, t, jobs[i][0]);
        /* a task that finished names its folder in its last line */
        char want[800];
        snprintf(want, sizeof want, "rc0=1\n%s.sbatch: finished; the results are in %s/out/task-1\nrc1=0\n"
                 "%s.sbatch: finished; the results are in %s/out/task-2\nrc2=0\nrc3=1\n",
                 jobs[i][0], t, jobs[i][0], t);
        TL_ASSERT_MSG(strstr(r.out, want) && strstr(r.out, "/task-2\nrc4=0\n"), "%s: %s%s", jobs[i][0], r.out, r.err);
        tl_test_output_free(&r);
        snprintf(p, sizeof p, "%s/err0", t);
        char *e = tl_test_read(p);
        snprintf(want, sizeof want, "%s.sbatch: failed (exit 1); no row, %s/out/task-0 not made\n", jobs[i][0], t);
        TL_ASSERT_MSG(strstr(e, want), "%s: %s", jobs[i][0], e);
        free(e);
        /* the failed default task left no results/<name>-slurm-50/ */
        snprintf(p, sizeof p, "%s/err3", t);
        e = tl_test_read(p);
        snprintf(want, sizeof want, "%s/root/results/%s-slurm-50/task-0 not made\n", t, res);
        TL_ASSERT_MSG(strstr(e, want), "%s: %s", jobs[i][0], e);
        free(e);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out/task-0 && grep -qx three-split,1 %s/out/task-1/%s.csv && "
                                "grep -qx three-split,2 %s/out/task-2/%s.csv && test ! -e %s/out/%s.csv && "
                                "grep -qx three-split,2 %s/root/results/%s-slurm-50/task-2/%s.csv && "
                                "test \"$(ls %s/root/results/%s-slurm-50)\" = task-2",
                                t, t, jobs[i][1], t, jobs[i][1], t, jobs[i][1], t, res, jobs[i][1], t, res),
                     0);
        TL_ASSERT_EQ(tl_test_sh("rm -rf %s/out %s/root/results/*", t, t), 0);
    }
}

/* A job array whose tasks all fail leaves no OUT, neither empty nor half
 * written: while the tasks run OUT does not exist (each writes into a
 * folder of its own beside it, renamed into OUT/task-<index> when it keeps
 * it), the task that fails first having found OUT missing, as the last
 * does (here task 0, then task 1); a failed task that wrote a row keeps
 * its folder, OUT made for it; a default OUT (results/<name>-slurm-<array
 * job id>) likewise. OUT has a space in its name. Before: task 0 made OUT,
 * task 1 wrote beside it and, having found OUT there, never removed it:
 * an empty OUT stayed, and while they ran OUT held their header-only CSVs. */
TL_TEST(slurm_array_failed_tasks_leave_no_out)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    slurm_array_root(t);
    snprintf(p, sizeof p, "%s/root/bin/trilap-bench", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                    "i=$SLURM_ARRAY_TASK_ID\n"
                    "printf 'variant,task\\n' > \"$out\"\n"
                    "touch \"$SYNC/started-$i\"\n"
                    "while [ ! -e \"$SYNC/go-$i\" ]; do sleep 0.02; done\n"
                    "case \" $ROWS \" in *\" $i \"*) printf 'three-split,%s\\n' \"$i\" >> \"$out\" ;; esac\n"
                    "echo 'fake: failed' >&2; exit 1\n");
    snprintf(p, sizeof p, "%s/array.sh", t);
    tl_test_write(p, "T=$1 ROWS=$2 job=scripts/slurm/tristream.sbatch\n"
                     "export PATH=$T/fake:$PATH SLURM_SUBMIT_DIR=$T/root SLURM_ARRAY_JOB_ID=61 SYNC=$T/sync ROWS\n"
                     WAITFOR_SH
                     "task() { rm -f $T/sync/*-$1; SLURM_JOB_ID=6$1 SLURM_ARRAY_TASK_ID=$1 bash $job 2>$T/err$1 & "
                     "waitfor $T/sync/started-$1; }\n"
                     "for o in \"$T/o u t\" \"\"; do\n"
                     "  if [ -n \"$o\" ]; then export OUT=$o; else unset OUT; o=$T/root/results/tristream-slurm-61; fi\n"
                     "  task 0; p0=$!; task 1; p1=$!\n"
                     "  [ -e \"$o\" ] && echo \"running: $(ls -A \"$o\")\" || echo 'running: no OUT'\n"
                     "  touch $T/sync/go-0; wait $p0; echo \"rc0=$?\"\n"
                     "  touch $T/sync/go-1; wait $p1; echo \"rc1=$?\"\n"
                     "  [ -e \"$o\" ] && echo \"after: $(ls -A \"$o\")\" || echo 'after: no OUT'\n"
                     "  echo \"beside: $(ls -A \"${o%/*}\" | tr '\\n' ' ')\"\n"
                     "done\n");
    tl_test_output r = tl_test_capture("bash %s/array.sh %s ''", t, t);
    TL_ASSERT_MSG(!strcmp(r.out, "running: no OUT\nrc0=1\nrc1=1\nafter: no OUT\n"
                                 "beside: array.sh err0 err1 fake root sync \n"
                                 "running: no OUT\nrc0=1\nrc1=1\nafter: no OUT\nbeside: \n"),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    char want[800];
    snprintf(p, sizeof p, "%s/err1", t);
    char *e = tl_test_read(p);
    snprintf(want, sizeof want, "tristream.sbatch: failed (exit 1); no row, %s/root/results/tristream-slurm-61/task-1 not made\n", t);
    TL_ASSERT_MSG(strstr(e, want), "%s", e);
    free(e);
    /* task 0 wrote a row before it failed: its folder is kept */
    r = tl_test_capture("bash %s/array.sh %s 0", t, t);
    TL_ASSERT_MSG(!strcmp(r.out, "running: no OUT\nrc0=1\nrc1=1\nafter: task-0\n"
                                 "beside: array.sh err0 err1 fake o u t root sync \n"
                                 "running: no OUT\nrc0=1\nrc1=1\nafter: task-0\nbeside: tristream-slurm-61 \n"),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/err0", t);
    e = tl_test_read(p);
    snprintf(want, sizeof want, "tristream.sbatch: failed (exit 1); the rows written before it are in %s/root/results/tristream-slurm-61/task-0\n", t);
    TL_ASSERT_MSG(strstr(e, want), "%s", e);
    free(e);
    TL_ASSERT_EQ(tl_test_sh("grep -qx three-split,0 '%s/o u t/task-0/tristream.csv' && "
                            "test \"$(ls '%s/o u t/task-0')\" = \"$(printf 'tristream.csv\\ntristream.log')\"", t, t),
                 0);
    /* an OUT the task could not rename into is refused before the run */
    r = tl_test_capture("cd %s && rm -f sync/* && touch file && OUT=$PWD/file PATH=$PWD/fake:$PATH SLURM_SUBMIT_DIR=$PWD/root "
                        "SLURM_JOB_ID=70 SLURM_ARRAY_JOB_ID=70 SLURM_ARRAY_TASK_ID=0 bash %s/scripts/slurm/tristream.sbatch",
                        t, getenv("PWD"));
    snprintf(want, sizeof want, "tristream.sbatch: %s/file is not a folder this job can write in\n", t);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/sync/started-0 && test -z \"$(ls -A %s | grep -v '^[^.]')\"", t, t), 0);
}

/* A task killed outright (SIGKILL: its traps never run) leaves its
 * .OUT.task-<index>.<job id>.XXXXXX folder beside OUT. A later task of the
 * array removes each such folder once squeue (a stand-in reading
 * t/queue) says its job is gone (not listed, or COMPLETED), and the one
 * of its own job id (a requeued run's), one line each (the killed task's,
 * which holds a row, goes into OUT as task-1.killed-91:
 * slurm_killed_task_rows_kept); it keeps those of
 * jobs running or pending, and all of them while squeue cannot answer;
 * a job that is no array's, into the same OUT, sweeps them too.
 * Folders of the naming before the job id was in it (.OUT.task-<index>.
 * XXXXXX) are asked about by the job id their manifest records (8: job
 * 95, COMPLETED; 9: job 94, running, then COMPLETED); one without a
 * manifest (0) names no job and is never removed: one line a run names it
 * and the command that removes it (before, all three stayed, unsaid).
 * Each kept task folder's files (manifest's command: line, log) name
 * OUT/task-<index>, where the program wrote the staged folder's name.
 * Before: the folders stayed for good, and every manifest's command: line
 * named .OUT.task-<index>.XXXXXX/task-<index>, gone once the task ended. */
TL_TEST(slurm_array_killed_task_swept)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    slurm_array_root(t);
    snprintf(p, sizeof p, "%s/root/bin/trilap-bench", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                    "printf 'program: trilap-bench\\ncommand: trilap-bench tristream --results %s\\n' \"$out\" "
                    "> \"${out%/*}/manifest.txt\"\n"
                    "printf 'variant,task\\nthree-split,%s\\n' \"$SLURM_ARRAY_TASK_ID\" > \"$out\"\n"
                    "echo \"results: $out\"\n"
                    "touch \"$SYNC/started-$SLURM_ARRAY_TASK_ID\"\n"
                    "[ -z \"${HANG:-}\" ] || exec sleep 600\n");
    snprintf(p, sizeof p, "%s/fake/squeue", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = -j ] && id=$2; shift; done\n"
                    "[ -z \"${FAKE_SQUEUE_DOWN:-}\" ] || "
                    "{ echo 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)' >&2; exit 1; }\n"
                    "s=$(awk -v id=\"$id\" '$1 == id { print $2 }' \"$FAKE_QUEUE\")\n"
                    "[ -n \"$s\" ] || { echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; }\n"
                    "echo \"$s\"\n");
    snprintf(p, sizeof p, "%s/array.sh", t);
    tl_test_write(p, "T=$1 job=scripts/slurm/tristream.sbatch\n"
                     "export PATH=$T/fake:$PATH SLURM_SUBMIT_DIR=$T/root SLURM_ARRAY_JOB_ID=90 SYNC=$T/sync "
                     "FAKE_QUEUE=$T/queue OUT=$T/out\n"
                     WAITFOR_SH
                     "left() { echo \"$1: $(ls -A $T | grep '^[.]out[.]' | sed 's/[.][A-Za-z0-9]*$//' | tr '\\n' ' ')\"; }\n"
                     ": > $T/queue\n"
                     "HANG=1 SLURM_JOB_ID=91 SLURM_ARRAY_TASK_ID=1 setsid bash $job >/dev/null 2>$T/err1 & p=$!\n"
                     "waitfor $T/sync/started-1\n"
                     "kill -KILL -- -$p; wait $p; echo \"rc1=$?\"\n"
                     "left killed\n"
                     "mkdir $T/.out.task-4.94.Ab12Cd $T/.out.task-5.95.Ab12Cd $T/.out.task-6.96.Ab12Cd "
                     "$T/.out.task-7.93.Ab12Cd\n"
                     "for k in 0 8 9; do mkdir -p $T/.out.task-$k.Xy12Zw/task-$k; done\n"
                     "printf 'program: trilap-bench\\nenv.SLURM_JOB_ID: 95\\n' > $T/.out.task-8.Xy12Zw/task-8/manifest.txt\n"
                     "printf 'program: trilap-bench\\nenv.SLURM_JOB_ID: 94\\n' > $T/.out.task-9.Xy12Zw/task-9/manifest.txt\n"
                     "printf '94 RUNNING\\n95 COMPLETED\\n96 PENDING\\n93 RUNNING\\n' > $T/queue\n"
                     "FAKE_SQUEUE_DOWN=1 SLURM_JOB_ID=92 SLURM_ARRAY_TASK_ID=2 bash $job >/dev/null 2>$T/err2; "
                     "echo \"rc2=$?\"\n"
                     "left down\n"
                     "SLURM_JOB_ID=93 SLURM_ARRAY_TASK_ID=3 bash $job >/dev/null 2>$T/err3; echo \"rc3=$?\"\n"
                     "left after\n"
                     "echo \"out: $(ls $T/out | tr '\\n' ' ')\"\n"
                     "printf '94 COMPLETED\\n96 PENDING\\n' > $T/queue\n"
                     "env -u SLURM_ARRAY_TASK_ID SLURM_JOB_ID=97 bash $job >/dev/null 2>$T/err4; echo \"rc4=$?\"\n"
                     "left single\n");
    tl_test_output r = tl_test_capture("bash %s/array.sh %s", t, t);
    TL_ASSERT_MSG(!strcmp(r.out, "rc1=137\nkilled: .out.task-1.91 \nrc2=0\n"
                                 "down: .out.task-0 .out.task-1.91 .out.task-4.94 .out.task-5.95 .out.task-6.96 "
                                 ".out.task-7.93 .out.task-8 .out.task-9 \n"
                                 "rc3=0\nafter: .out.task-0 .out.task-4.94 .out.task-6.96 .out.task-9 \n"
                                 "out: task-1.killed-91 task-2 task-3 \n"
                                 "rc4=0\nsingle: .out.task-0 .out.task-6.96 \n"),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    char want[1400];
    /* the folder that names no job: kept, one line a run with its rm */
    snprintf(want, sizeof want, "tristream.sbatch: kept 1 folder(s) beside %s/out left by tasks of an older trilap that "
             "name no job (none in the name, no manifest), so whether one still runs cannot be asked; once no job writes "
             "into %s/out, remove them: rm -rf -- %s/.out.task-0.Xy12Zw\n", t, t, t);
    snprintf(p, sizeof p, "%s/err2", t);
    char *e = tl_test_read(p);
    TL_ASSERT_STREQ(e, want);
    free(e);
    snprintf(p, sizeof p, "%s/err3", t);
    e = tl_test_read(p);
    TL_ASSERT_MSG(tl_test_count(e, "\n") == 5 && tl_test_count(e, want) == 1, "%s", e);
    static const char *const gone[] = {"task-5.95.", "task-7.93.", "task-8.Xy12Zw, left by job 95,"};
    for (int i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "tristream.sbatch: removed %s/.out.%s", t, gone[i]);
        const char *at = strstr(e, want);
        TL_ASSERT_MSG(at && strstr(at, ", no longer running (a task killed outright, no row)\n"), "%s: %s", gone[i], e);
    }
    /* the killed task had written a row: kept, in OUT */
    snprintf(want, sizeof want, "tristream.sbatch: job 91, no longer running, was killed outright after it wrote "
             "results: kept in %s/out/task-1.killed-91\n", t);
    TL_ASSERT_MSG(strstr(e, want), "%s", e);
    free(e);
    TL_ASSERT_EQ(tl_test_sh("grep -qx three-split,1 %s/out/task-1.killed-91/tristream.csv", t), 0);
    for (int i = 2; i <= 3; i++) {
        snprintf(want, sizeof want, "program: trilap-bench\ncommand: trilap-bench tristream --results %s/out/task-%d/tristream.csv\n",
                 t, i);
        snprintf(p, sizeof p, "%s/out/task-%d/manifest.txt", t, i);
        e = tl_test_read(p);
        TL_ASSERT_MSG(!strcmp(e, want), "task %d: %s", i, e);
        free(e);
        snprintf(want, sizeof want, "results: %s/out/task-%d/tristream.csv\n", t, i);
        snprintf(p, sizeof p, "%s/out/task-%d/tristream.log", t, i);
        e = tl_test_read(p);
        TL_ASSERT_MSG(!strcmp(e, want), "task %d: %s", i, e);
        free(e);
    }
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls -A %s/out/task-3)\" = \"$(printf 'manifest.txt\\ntristream.csv\\ntristream.log')\"", t), 0);
}

/* a stand-in squeue of several clusters in t/fake: the one it asks is
 * -M's, else SLURM_CLUSTERS', else FAKE_HERE (the controller it talks to);
 * t/queue.clusters lists those it knows, t/queue holds "CLUSTER ID STATE"
 * lines; -M or SLURM_CLUSTERS head the answer "CLUSTER: NAME", as
 * squeue's; each call's arguments go to t/queue.log */
static void fake_squeue_clusters(const char *t)
{
    char p[700];
    snprintf(p, sizeof p, "%s/fake/squeue", t);
    write_script(p, "#!/bin/sh\n"
                    "echo \"squeue $* (SLURM_CLUSTERS=${SLURM_CLUSTERS:-})\" >> \"$FAKE_QUEUE.log\"\n"
                    "cl=${SLURM_CLUSTERS:-$FAKE_HERE} m=${SLURM_CLUSTERS:-}\n"
                    "while [ $# -gt 0 ]; do case $1 in -j) id=$2 ;; -M | --clusters) cl=$2 m=1 ;; esac; shift; done\n"
                    "grep -qx \"$cl\" \"$FAKE_QUEUE.clusters\" || "
                    "{ echo \"squeue: error: No cluster '$cl' known by database.\" >&2; exit 1; }\n"
                    "[ -z \"$m\" ] || echo \"CLUSTER: $cl\"\n"
                    "s=$(awk -v c=\"$cl\" -v id=\"$id\" '$1 == c && $2 == id { print $3 }' \"$FAKE_QUEUE\")\n"
                    "[ -n \"$s\" ] || { echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; }\n"
                    "echo \"$s\"\n");
}

/* the killed-task scripts' common part: t/root with a stand-in program
 * that writes its manifest, a row and where it wrote ($T/where), the
 * stand-in squeue; stage IDX NAME [JOB [CLUSTER]] makes the folder a task
 * killed outright leaves, .out.task-IDX.NAME/task-IDX with a manifest, a
 * header-only CSV and an empty log, as $d */
#define KILLED_SH                                                                                                     \
    "T=$1 job=scripts/slurm/tristream.sbatch\n"                                                                       \
    "export PATH=$T/fake:$PATH SLURM_SUBMIT_DIR=$T/root SLURM_ARRAY_JOB_ID=80 FAKE_QUEUE=$T/queue FAKE_HERE=alpha "   \
    "OUT=$T/out\n"                                                                                                    \
    "stage() { d=$T/.out.task-$1.$2/task-$1; mkdir -p $d\n"                                                           \
    "  printf 'program: trilap-bench\\ncommand: trilap-bench tristream --results %s/tristream.csv\\n' $d "            \
    "> $d/manifest.txt\n"                                                                                             \
    "  [ -z \"${4:-}\" ] || echo \"env.SLURM_CLUSTER_NAME: $4\" >> $d/manifest.txt\n"                                 \
    "  [ -z \"${3:-}\" ] || echo \"env.SLURM_JOB_ID: $3\" >> $d/manifest.txt\n"                                       \
    "  echo variant,task > $d/tristream.csv; : > $d/tristream.log; }\n"

static void killed_task_root(const char *t)
{
    char p[700];
    slurm_array_root(t);
    fake_squeue_clusters(t);
    snprintf(p, sizeof p, "%s/root/bin/trilap-bench", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                    "echo \"$out\" > \"${OUT%/*}/where\"\n"
                    "printf 'program: trilap-bench\\ncommand: trilap-bench tristream --results %s\\n' \"$out\" "
                    "> \"${out%/*}/manifest.txt\"\n"
                    "printf 'variant,task\\nthree-split,%s\\n' \"$SLURM_ARRAY_TASK_ID\" > \"$out\"\n");
}

/* KILLED_SH then BODY, run in t (killed_task_root) */
static tl_test_output killed_task_run(const char *t, const char *body)
{
    char p[700];
    killed_task_root(t);
    snprintf(p, sizeof p, "%s/k.sh", t);
    size_t n = strlen(KILLED_SH) + strlen(body) + 1;
    char *text = malloc(n);
    TL_ASSERT(text != NULL);
    snprintf(text, n, "%s%s", KILLED_SH, body);
    tl_test_write(p, text);
    free(text);
    return tl_test_capture("bash %s/k.sh %s", t, t);
}

/* A task killed outright (past its time limit, the node lost) after it
 * wrote results keeps them: once its job is over, the next job into OUT
 * moves its folder into OUT as task-<index>.killed-<job id> (task-4's
 * name taken: .2), its manifest and log naming it there, one line each:
 * a CSV row (1, 4) or any file but the log, the manifest, a header-only
 * CSV and a part file (3: a trace) is a result; a folder of none of them
 * (2: its header, an empty log, a manifest, a part file) is removed, one
 * line. Before: every such folder was removed, its rows with it. */
TL_TEST(slurm_killed_task_rows_kept)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    tl_test_output r = killed_task_run(t,
                  "echo alpha > $T/queue.clusters\n"
                  "printf 'alpha 81 TIMEOUT\\nalpha 82 TIMEOUT\\nalpha 83 CANCELLED\\nalpha 84 NODE_FAIL\\n' > $T/queue\n"
                  "stage 1 81.Ab12Cd; echo three-split,1 >> $d/tristream.csv; "
                  "echo \"results: $d/tristream.csv\" > $d/tristream.log\n"
                  "stage 2 82.Ab12Cd; echo 'n rate' > $d/table.part4242.txt\n"
                  "stage 3 83.Ab12Cd; mkdir $d/trace; echo '{}' > $d/trace/rank0.json\n"
                  "stage 4 84.Ab12Cd; echo three-split,4 >> $d/tristream.csv; mkdir -p $T/out/task-4.killed-84\n"
                  "SLURM_JOB_ID=86 SLURM_ARRAY_TASK_ID=0 bash $job >/dev/null 2>$T/err; echo \"rc=$?\"\n"
                  "echo \"out: $(ls $T/out | tr '\\n' ' ')\"\n"
                  "echo \"beside: $(ls -A $T | grep '^[.]' | tr '\\n' ' ')\"\n");
    TL_ASSERT_MSG(!strcmp(r.out, "rc=0\nout: task-0 task-1.killed-81 task-3.killed-83 task-4.killed-84 task-4.killed-84.2 \n"
                                 "beside: \n"),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    char want[1400];
    snprintf(p, sizeof p, "%s/err", t);
    char *e = tl_test_read(p);
    static const char *const kept[][2] = {{"81", "task-1.killed-81"}, {"83", "task-3.killed-83"}, {"84", "task-4.killed-84.2"}};
    for (int i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "tristream.sbatch: job %s, no longer running, was killed outright after it wrote "
                 "results: kept in %s/out/%s\n", kept[i][0], t, kept[i][1]);
        TL_ASSERT_MSG(strstr(e, want), "no '%s' in: %s", want, e);
    }
    TL_ASSERT_MSG(tl_test_count(e, ", no longer running, was killed outright after it wrote results: kept in ") == 3, "%s", e);
    snprintf(want, sizeof want, "tristream.sbatch: removed %s/.out.task-2.82.Ab12Cd, left by job 82, no longer running "
             "(a task killed outright, no row)\n", t);
    TL_ASSERT_MSG(strstr(e, want) && tl_test_count(e, "\n") == 4, "%s", e);
    free(e);
    /* its files name where it is now */
    snprintf(want, sizeof want, "program: trilap-bench\ncommand: trilap-bench tristream --results "
             "%s/out/task-1.killed-81/tristream.csv\n", t);
    snprintf(p, sizeof p, "%s/out/task-1.killed-81/manifest.txt", t);
    e = tl_test_read(p);
    TL_ASSERT_STREQ(e, want);
    free(e);
    TL_ASSERT_EQ(tl_test_sh("cd %s/out && grep -qx three-split,1 task-1.killed-81/tristream.csv && "
                            "grep -qx 'results: %s/out/task-1.killed-81/tristream.csv' task-1.killed-81/tristream.log && "
                            "test -s task-3.killed-83/trace/rank0.json && grep -qx three-split,4 task-4.killed-84.2/tristream.csv && "
                            "test -z \"$(ls -A task-4.killed-84)\" && grep -qx three-split,0 task-0/tristream.csv",
                            t, t),
                 0);
}

/* A folder a task killed outright left is asked about on the cluster it
 * ran on: the job records its cluster (SLURM_CLUSTER_NAME) in the folder's
 * name; a job of another cluster is asked about with squeue -M (beta: 71
 * running, kept; 72 completed, removed), one of this job's cluster here
 * whatever SLURM_CLUSTERS says (74: unknown to alpha, removed, though
 * beta runs a job 74, and SLURM_CLUSTERS=beta); a cluster squeue cannot be asked about (zeta)
 * keeps the folder, one line saying why; an older folder's manifest gives
 * the cluster (5: beta's 75, running); one whose manifest names no
 * cluster (6) cannot be asked about while this job names its cluster:
 * kept, one line. Before: squeue asked this cluster, whose "Invalid job
 * id" for a job of another (75, 76) read as gone: the folders of jobs
 * still running elsewhere were removed. */
TL_TEST(slurm_killed_task_of_another_cluster)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    tl_test_output r = killed_task_run(t,
                  "printf 'alpha\\nbeta\\n' > $T/queue.clusters\n"
                  "printf 'beta 71 RUNNING\\nbeta 72 COMPLETED\\nbeta 74 RUNNING\\nbeta 75 RUNNING\\n"
                  "beta 76 RUNNING\\n' > $T/queue\n"
                  "stage 1 71.beta.Ab12Cd; stage 2 72.beta.Ab12Cd; stage 3 73.zeta.Ab12Cd\n"
                  "stage 5 Xy12Zw 75 beta; stage 6 Xy12Zw 76\n"
                  "export SLURM_CLUSTER_NAME=alpha\n"
                  "SLURM_JOB_ID=77 SLURM_ARRAY_TASK_ID=0 bash $job >/dev/null 2>$T/err; echo \"rc=$?\"\n"
                  "echo \"beside: $(ls -A $T | grep '^[.]' | tr '\\n' ' ')\"\n"
                  "sed 's/[.][A-Za-z0-9]*\\/task-0\\/.*//' $T/where\n"
                  "stage 4 74.alpha.Ab12Cd\n"
                  "SLURM_CLUSTERS=beta SLURM_JOB_ID=78 SLURM_ARRAY_TASK_ID=8 bash $job >/dev/null 2>$T/err8; "
                  "echo \"rc=$?\"\n"
                  "echo \"out: $(ls $T/out | tr '\\n' ' ')\"\n"
                  "echo \"beside: $(ls -A $T | grep '^[.]' | tr '\\n' ' ')\"\n");
    char want[1600];
    const char *beside = ".out.task-1.71.beta.Ab12Cd .out.task-3.73.zeta.Ab12Cd .out.task-5.Xy12Zw .out.task-6.Xy12Zw";
    snprintf(want, sizeof want, "rc=0\nbeside: %s \n%s/.out.task-0.77.alpha\nrc=0\nout: task-0 task-8 \nbeside: %s \n",
             beside, t, beside);
    TL_ASSERT_MSG(!strcmp(r.out, want), "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/err", t);
    char *e = tl_test_read(p);
    snprintf(want, sizeof want, "tristream.sbatch: kept %s/.out.task-3.73.zeta.Ab12Cd: job 73 ran on cluster zeta, and "
             "squeue -M zeta cannot answer here (squeue: error: No cluster 'zeta' known by database.)\n", t);
    TL_ASSERT_MSG(strstr(e, want), "%s", e);
    snprintf(want, sizeof want, "tristream.sbatch: kept %s/.out.task-6.Xy12Zw: job 76's cluster is not recorded (an "
             "older trilap's folder, or no SLURM_CLUSTER_NAME in its job) and squeue here answers for alpha, where the "
             "id may be another job's; remove it once that job is over\n", t);
    TL_ASSERT_MSG(strstr(e, want), "%s", e);
    TL_ASSERT_MSG(strstr(e, ".out.task-2.72.beta.Ab12Cd, left by job 72, no longer running") && tl_test_count(e, "\n") == 3,
                  "%s", e);
    free(e);
    snprintf(p, sizeof p, "%s/err8", t);
    e = tl_test_read(p);
    TL_ASSERT_MSG(strstr(e, ".out.task-4.74.alpha.Ab12Cd, left by job 74, no longer running") && tl_test_count(e, "\n") == 3,
                  "%s", e);
    free(e);
    snprintf(p, sizeof p, "%s/queue.log", t);
    e = tl_test_read(p);
    TL_ASSERT_MSG(strstr(e, "squeue -M beta -h -j 75 -t all -o %T (SLURM_CLUSTERS=)\n") &&
                      strstr(e, "squeue -h -j 74 -t all -o %T (SLURM_CLUSTERS=)\n") && !strstr(e, "-M alpha") &&
                      !strstr(e, "-j 76 "),
                  "%s", e);
    free(e);
}

/* TRILAP_MODULES, or the template's site_modules line, is loaded with the
 * site's `module` (here an Environment Modules init/bash under
 * MODULESHOME whose module puts its lib/ on LD_LIBRARY_PATH), and a job
 * with none of the submitting shell's environment, as under sbatch
 * --export=NONE, whose program cannot find a library says so in one line
 * and makes nothing. Before: the variable did not exist, and such a job
 * ran its ranks into the loader's "error while loading shared
 * libraries". The program here is a real ELF file linked against a
 * library only the module makes visible. */
TL_TEST(slurm_templates_modules_and_export_none)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    fake_launchers(t);
    /* srun and mpirun as Slurm's: a job submitted with --export=NONE has
     * SLURM_EXPORT_ENV=NONE, and its steps then get none of the job
     * script's environment (the modules it loaded) */
    static const char *const launchers[] = {"srun", "mpirun"};
    for (size_t k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/fake/%s", t, launchers[k]);
        write_script(p, k ? "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do\n"
                            "  case $1 in -np | --map-by | --bind-to | -x) shift 2 ;; *) shift ;; esac\ndone\n"
                            "[ \"${SLURM_EXPORT_ENV:-ALL}\" = NONE ] && exec env -i PATH=/usr/bin:/bin \"$@\"\nexec \"$@\"\n"
                          : "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
                            "[ \"${SLURM_EXPORT_ENV:-ALL}\" = NONE ] && exec env -i PATH=/usr/bin:/bin \"$@\"\nexec \"$@\"\n");
    }
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/root/bin %s/mods/init %s/mods/tlmod/lib && ln -s \"$PWD/scripts\" "
                            "%s/root/scripts",
                            t, t, t, t),
                 0);
    snprintf(p, sizeof p, "%s/lib.c", t);
    tl_test_write(p, "int tlmod_answer(void) { return 42; }\n");
    snprintf(p, sizeof p, "%s/main.c", t);
    tl_test_write(p, "#include <stdio.h>\n#include <string.h>\nint tlmod_answer(void);\n"
                     "int main(int argc, char **argv)\n{\n    const char *out = NULL;\n"
                     "    for (int i = 1; i + 1 < argc; i++)\n"
                     "        if (!strcmp(argv[i], \"--results\")) out = argv[i + 1];\n"
                     "    FILE *f = out ? fopen(out, \"w\") : NULL;\n    if (!f) return 1;\n"
                     "    fprintf(f, \"x\\n%d\\n\", tlmod_answer());\n    return fclose(f) != 0;\n}\n");
    if (tl_test_sh("cd %s && ${CC:-cc} -shared -fPIC -o mods/tlmod/lib/libtlmod.so lib.c && "
                   "${CC:-cc} -o root/bin/trilap-bench main.c -Lmods/tlmod/lib -ltlmod && "
                   "cp root/bin/trilap-bench root/bin/trilap-fdtd",
                   t) != 0)
        TL_SKIP("needs a C compiler (CC)");
    snprintf(p, sizeof p, "%s/mods/init/bash", t);
    tl_test_write(p, "module() {\n  [ \"$1\" = load ] || return 1\n  shift\n  for m; do\n"
                     "    [ -d \"$MODULESHOME/$m\" ] || { echo \"ERROR: Unable to locate a modulefile for '$m'\" >&2; "
                     "return 1; }\n"
                     "    export LD_LIBRARY_PATH=$MODULESHOME/$m/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n"
                     "  done\n}\n");
    static const struct {
        const char *name, *prog, *csv, *launcher;
    } jobs[] = {
        {"tristream", "trilap-bench", "tristream", "srun"},
        {"fdtd-ranks", "trilap-fdtd", "fdtd", "srun"},
        {"bench-comm", "trilap-bench", "comm", "mpirun"},
    };
    char env[1400], want[1200];
    /* a job's environment as under --export=NONE: Slurm's variables, a
     * login PATH, no LD_LIBRARY_PATH */
    snprintf(env, sizeof env, "env -i PATH=%s/fake:/usr/bin:/bin SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s/root "
             "SLURM_EXPORT_ENV=NONE OUT=%s/out", t, t, t);
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        tl_test_output r = tl_test_capture("%s MODULESHOME=%s/mods bash scripts/slurm/%s.sbatch", env, t, jobs[i].name);
        snprintf(want, sizeof want, "%s.sbatch: %s/root/bin/%s cannot start in this job: libtlmod.so not found; "
                 "load the modules it was built with (TRILAP_MODULES=", jobs[i].name, t, jobs[i].prog);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want) && strstr(r.err, "--export=NONE"), "%s: rc %d: %s",
                      jobs[i].name, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out && test ! -e %s/root/results", t, t), 0);
        r = tl_test_capture("%s MODULESHOME=%s/mods TRILAP_MODULES=tlmod bash scripts/slurm/%s.sbatch", env, t,
                            jobs[i].name);
        TL_ASSERT_MSG(r.rc == 0, "%s with TRILAP_MODULES: rc %d: %s", jobs[i].name, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("grep -qx 42 %s/out/%s.csv && rm -rf %s/out", t, jobs[i].csv, t), 0);
        /* the site line of a copy of the template, under --export=NONE */
        TL_ASSERT_EQ(tl_test_sh("sed 's/^site_modules=\"\"$/site_modules=\"tlmod\"/' scripts/slurm/%s.sbatch > "
                                "%s/site.sbatch && grep -q '^site_modules=\"tlmod\"$' %s/site.sbatch",
                                jobs[i].name, t, t),
                     0);
        r = tl_test_capture("%s MODULESHOME=%s/mods bash %s/site.sbatch", env, t, t);
        TL_ASSERT_MSG(r.rc == 0, "%s with site_modules: rc %d: %s", jobs[i].name, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("grep -qx 42 %s/out/%s.csv && rm -rf %s/out", t, jobs[i].csv, t), 0);
        r = tl_test_capture("%s MODULESHOME=%s/mods TRILAP_MODULES='tlmod nosuch' bash scripts/slurm/%s.sbatch", env,
                            t, jobs[i].name);
        snprintf(want, sizeof want, "%s.sbatch: module load tlmod nosuch failed: ERROR: Unable to locate a modulefile "
                 "for 'nosuch'\n", jobs[i].name);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "%s: rc %d: %s", jobs[i].name, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out", t), 0);
        /* no module command at all (a site without one) */
        if (tl_test_sh("test ! -e /etc/profile.d/lmod.sh && test ! -e /etc/profile.d/modules.sh") == 0) {
            r = tl_test_capture("%s TRILAP_MODULES=tlmod bash scripts/slurm/%s.sbatch", env, jobs[i].name);
            snprintf(want, sizeof want, "%s.sbatch: TRILAP_MODULES='tlmod' but this job has no module command",
                     jobs[i].name);
            TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "%s: rc %d: %s", jobs[i].name, r.rc, r.err);
            tl_test_output_free(&r);
        }
        /* the launcher not on the job's PATH */
        if (tl_test_sh("PATH=/usr/bin:/bin command -v %s >/dev/null", jobs[i].launcher) != 0) {
            r = tl_test_capture("env -i PATH=/usr/bin:/bin SLURM_JOB_ID=42 SLURM_SUBMIT_DIR=%s/root OUT=%s/out "
                                "MODULESHOME=%s/mods TRILAP_MODULES=tlmod bash scripts/slurm/%s.sbatch",
                                t, t, t, jobs[i].name);
            snprintf(want, sizeof want, "%s.sbatch: %s is not on this job's PATH: load the module that provides it",
                     jobs[i].name, jobs[i].launcher);
            TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "%s: rc %d: %s", jobs[i].name, r.rc, r.err);
            tl_test_output_free(&r);
        }
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/out && test ! -e %s/root/results", t, t), 0);
    }
}

/* bench-op-timer.sh, bench-cg.sh and run-multirank-h200.sh refuse a bad
 * argument in one line, exit 2, and make nothing; a bench-op-timer.sh or
 * bench-cg.sh run that fails
 * before a row (no GPU, an option trilap-solve refuses) leaves no folder.
 * Before: bench-op-timer.sh --bogus went to trilap-solve as the matrix,
 * which refused it after OUT and a log in it had been made (a folder under
 * TMPDIR without OUT), and a bad ITERATIONS printed the usage alone
 * (bench-cg.sh the same, its bad size named by its full path);
 * bench-cg.sh '' printed an empty table, exit 0, its folder left under
 * TMPDIR, and bench-op-timer.sh '' handed trilap-solve an empty matrix;
 * run-multirank-h200.sh --bogus was a DEST mkdir refused, and the session
 * (not -e) went on to `make -j16` in the current folder. */
TL_TEST(op_timer_and_multirank_refuse_bad_arguments)
{
    const char *t = tl_test_tmpdir();
    char solve[700];
    snprintf(solve, sizeof solve, "%s/fake-solve", t);
    write_script(solve, "#!/bin/sh\necho 'trilap-solve: --backend cuda: no GPU visible (--backend host runs the same "
                        "methods on the CPU)' >&2\nexit 1\n");
    static const char *const cases[][2] = {
        {"bench-op-timer.sh --bogus", "bench-op-timer.sh: invalid argument '--bogus' (trilap-solve options go after "
                                      "--; try --help)\n"},
        {"bench-op-timer.sh gen:poisson7:8 x", "bench-op-timer.sh: invalid ITERATIONS 'x': a positive integer (try "
                                               "--help)\n"},
        {"bench-op-timer.sh gen:poisson7:8 5 extra", "bench-op-timer.sh: invalid argument 'extra' (trilap-solve "
                                                     "options go after --; try --help)\n"},
        {"bench-cg.sh --bogus", "bench-cg.sh: invalid argument '--bogus' (trilap-solve options go after --; try "
                                "--help)\n"},
        {"bench-cg.sh '8 x'", "bench-cg.sh: invalid size 'x' in SIZES: a positive integer (try --help)\n"},
        {"bench-cg.sh 8 0", "bench-cg.sh: invalid ITERATIONS '0': a positive integer (try --help)\n"},
        {"bench-cg.sh '' 5", "bench-cg.sh: invalid SIZES '': empty (try --help)\n"},
        {"bench-op-timer.sh ' ' 5", "bench-op-timer.sh: invalid MATRIX ' ': empty (try --help)\n"},
        {"run-multirank-h200.sh", "run-multirank-h200.sh: no DEST given (usage: run-multirank-h200.sh DEST "
                                  "[BUDGET_SECONDS]; try --help)\n"},
        {"run-multirank-h200.sh --bogus", "run-multirank-h200.sh: invalid argument '--bogus' (usage: "
                                          "run-multirank-h200.sh DEST [BUDGET_SECONDS]; try --help)\n"},
        {"run-multirank-h200.sh dest 5m", "run-multirank-h200.sh: invalid BUDGET_SECONDS '5m': a positive integer "
                                          "(try --help)\n"},
    };
    char top[4096];
    TL_ASSERT(getcwd(top, sizeof top));
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/cwd %s/tmp", t, t), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = tl_test_capture("cd %s/cwd && TMPDIR=%s/tmp SOLVE=%s OUT=%s/out %s/scripts/%s", t, t, solve,
                                           t, top, cases[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, cases[i][1]) && !*r.out, "%s: exit %d: %s", cases[i][0], r.rc,
                      r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(find %s/cwd %s/tmp -mindepth 1)\" && test ! -e %s/out", t, t, t) == 0,
                      "%s wrote something", cases[i][0]);
    }
    /* a run that fails before a row, with OUT and without */
    static const char *const runs[][2] = {{"bench-op-timer.sh", "gen:poisson7:8 2"}, {"bench-cg.sh", "8 2"}};
    for (int k = 0; k < 4; k++) {
        int named = k % 2;
        const char *name = runs[k / 2][0];
        tl_test_output r = tl_test_capture("cd %s/cwd && TMPDIR=%s/tmp SOLVE=%s %s%s%s %s/scripts/%s %s", t, t, solve,
                                           named ? "OUT=" : "", named ? t : "", named ? "/out" : "", top, name,
                                           runs[k / 2][1]);
        char want[200];
        snprintf(want, sizeof want, "%s: failed (exit 1); ", name);
        TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "no GPU visible (--backend host runs the same methods on the CPU)\n") &&
                          strstr(r.err, want) &&
                          strstr(r.err, " removed\n"),
                      "%s: exit %d: %s", name, r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(find %s/cwd %s/tmp -mindepth 1)\" && test ! -e %s/out", t, t, t) == 0,
                      "%s: a folder stayed (OUT %s)", name, named ? "given" : "unset");
    }
}

/* bench-trace-overhead.sh's microbenchmark twice into one OUT (as
 * REPRODUCE.md's into results/trace-overhead-h200x2): each mode's output
 * holds both runs as overhead.csv does, and the table is the second's. */
static void rerun_trace_overhead(const char *t)
{
    char fake[600], n[64];
    snprintf(fake, sizeof fake, "%s/fake-tristream", t);
    write_script(fake, "#!/bin/sh\n"
                       "c=$(cat \"$0.calls\" 2>/dev/null || echo 0); echo $((c + 1)) > \"$0.calls\"\n"
                       "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                       "[ -s \"$out\" ] || echo variant > \"$out\"; echo three-split >> \"$out\"\n"
                       "printf 'variant,nranks,rep,x,us\\nthree-split,1,0,0,%d\\n' $((c < 3 ? 10 : 20))\n");
    tl_test_output r = {0};
    for (int k = 0; k < 2; k++) {
        tl_test_output_free(&r);
        r = tl_test_capture("OUT=%s/ov BENCH=%s scripts/bench-trace-overhead.sh 1", t, fake);
        TL_ASSERT_MSG(r.rc == 0, "bench-trace-overhead.sh: exit %d: %s", r.rc, r.err);
    }
    TL_ASSERT_MSG(strstr(r.out, "\noff            20   1.0000\n"), "not the second run's table:\n%s", r.out);
    tl_test_output_free(&r);
    static const char *const files[] = {"overhead", "off", "nvtx", "cupti"};
    for (int i = 0; i < 4; i++) {
        TL_ASSERT_EQ(tl_test_sh_to(n, sizeof n, "grep -c ^three-split %s/ov/%s.csv", t, files[i]), 0);
        /* overhead.csv: a row a mode a run */
        TL_ASSERT_MSG(atoi(n) == (i ? 2 : 6), "%s.csv: %s rows of two runs", files[i], n);
    }
    TL_ASSERT_EQ(tl_test_sh("grep -q '^# ==== another run into %s/ov: bench-trace-overhead.sh, ' %s/ov/off.csv", t, t),
                 0);
}

/* A second run into an OUT the first one made: the program's --results
 * appends its rows (a stand-in that appends, header once, as trilap-bench
 * does), and the log keeps both runs too, the second below a line naming
 * it (before, tee overwrote the log: two runs' rows in the CSV, the last
 * run's lines in the log). The benchmarks that take medians over their
 * CSVs refuse an OUT holding one, in one line, before running anything
 * (before, the medians took in the earlier run's rows). */
TL_TEST(rerun_into_out_log_agrees_with_csv)
{
    const char *t = tl_test_tmpdir();
    char fake[600], solve[600];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    write_script(fake, "#!/bin/sh\n"
                       "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && out=$2; shift; done\n"
                       "[ -s \"$out\" ] || echo 'variant,nranks' > \"$out\"\n"
                       "echo three-split,1 >> \"$out\"; echo 'fake-bench: one row'\n");
    /* the script, its argument and a log with its CSV */
    static const char *const runs[][3] = {{"run-tristream.sh", "1", "tristream"},
                                          {"bench-size-sweeps.sh", "1", "sweep-ring-bytes"},
                                          {"bench-size-sweeps.sh", "1", "sweep-daxpy-bytes"}};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 2 && (i < 2); k++) {
            tl_test_output r = tl_test_capture("OUT=%s/out%d BENCH=%s scripts/%s %s", t, i, fake, runs[i][0],
                                               runs[i][1]);
            TL_ASSERT_MSG(r.rc == 0, "%s: exit %d: %s", runs[i][0], r.rc, r.err);
            tl_test_output_free(&r);
        }
        int o = i < 2 ? i : 1;
        char n[64];
        TL_ASSERT_EQ(tl_test_sh_to(n, sizeof n, "grep -c three-split %s/out%d/%s.csv", t, o, runs[i][2]), 0);
        TL_ASSERT_MSG(atoi(n) == 2, "%s: %s rows", runs[i][2], n);
        TL_ASSERT_EQ(tl_test_sh_to(n, sizeof n, "grep -c 'fake-bench: one row' %s/out%d/%s.log", t, o, runs[i][2]), 0);
        TL_ASSERT_MSG(atoi(n) == 2, "%s: the log holds %s runs' lines, the CSV two", runs[i][2], n);
        TL_ASSERT_MSG(tl_test_sh("sed -n '2,$p' %s/out%d/%s.log | grep -q '^# ==== another run into %s/out%d: %s, '",
                                 t, o, runs[i][2], t, o, runs[i][0]) == 0,
                      "%s.log: no line naming the second run", runs[i][2]);
    }
    rerun_trace_overhead(t);
    snprintf(solve, sizeof solve, "%s/fake-solve", t);
    write_script(solve, "#!/bin/sh\necho 'fake-solve: ran' >&2\nexit 1\n");
    static const char *const medians[][3] = {{"bench-op-timer.sh", "gen:poisson7:8 2", "pipecg-default.csv"},
                                             {"bench-cg.sh", "8 2", "p7-8-cg.csv"},
                                             {"bench-trace-overhead.sh", "solver gen:poisson7:8 2", "off.csv"}};
    for (size_t i = 0; i < sizeof medians / sizeof medians[0]; i++) {
        TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/m%zu && echo 'us_per_iter' > %s/m%zu/%s", t, i, t, i, medians[i][2]), 0);
        tl_test_output r = tl_test_capture("OUT=%s/m%zu SOLVE=%s BENCH=%s scripts/%s %s", t, i, solve, fake,
                                           medians[i][0], medians[i][1]);
        char want[1200];
        snprintf(want, sizeof want, "%s: %s/m%zu/%s is an earlier run's, and this one's medians would take in its "
                 "rows; choose another OUT or remove it\n", medians[i][0], t, i, medians[i][2]);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want), "%s: exit %d: %s", medians[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test \"$(ls %s/m%zu)\" = %s", t, i, medians[i][2]), 0);
    }
}

/* An OUT given again that holds a committed run (REPRODUCE.md's
 * `OUT=results/tristream-h200x2 TRACE=1 scripts/run-tristream.sh 2` on a
 * machine without a GPU): a run failing before a row of its own leaves
 * every file of it byte for byte as it was, and says so. Before: the
 * committed log kept a '# ==== another run' line and the program's error,
 * bench-knobs.sh put that line in each knob's CSV and overwrote its .err,
 * bench-trace-overhead.sh in each mode's CSV. */
TL_TEST(failed_rerun_leaves_an_earlier_out_as_it_was)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    write_script(fake, "#!/bin/sh\necho 'fake-bench: no GPU' >&2\nexit 1\n");
    static const char *const runs[][3] = {
        {"run-tristream.sh", "1", "tristream.csv tristream.log tristream.err"},
        {"bench-knobs.sh", "1", "knobs.csv base.csv base.err prio-off.csv"},
        {"bench-trace-overhead.sh", "1 three-split", "off.csv nvtx.csv cupti.csv"}};
    for (int i = 0; i < 3; i++) {
        TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/o%d && cd %s/o%d && for f in %s; do "
                                "printf 'variant,nranks\\nthree-split,2\\n# earlier %%s\\n' $f > $f; done && "
                                "cp -a %s/o%d %s/was%d",
                                t, i, t, i, runs[i][2], t, i, t, i),
                     0);
        tl_test_output r = tl_test_capture("OUT=%s/o%d BENCH=%s scripts/%s %s", t, i, fake, runs[i][0], runs[i][1]);
        char want[800];
        snprintf(want, sizeof want, "scripts/%s: failed (exit 1); no row, %s/o%d left as the earlier run left it\n",
                 runs[i][0], t, i);
        const char *last = r.err ? strstr(r.err, "scripts/") : NULL;
        TL_ASSERT_MSG(r.rc == 1 && last && !strcmp(last, want) && strstr(r.err, "fake-bench: no GPU"),
                      "%s: exit %d: %s", runs[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("diff -r %s/was%d %s/o%d >&2", t, i, t, i) == 0, "%s: %s/o%d changed", runs[i][0],
                      t, i);
    }
}

/* The lent-machine scripts that are not -e refuse a log folder that is a
 * file in one line, exit 1, the file as it was, before any step (before:
 * mkdir's line, then each step's log lost, a dozen 'Not a directory'
 * lines and exit 0; a budget of 1 s skips every step, so that the script
 * of before runs nothing here either). */
TL_TEST(device_scripts_refuse_a_log_folder_that_is_a_file)
{
    const char *t = tl_test_tmpdir();
    static const char *const runs[][2] = {{"DEV_OUT", "device-acceptance.sh 2 1"}, {"OUT", "device-nsys-demo.sh 1"}};
    for (int i = 0; i < 2; i++) {
        TL_ASSERT_EQ(tl_test_sh("echo kept > %s/file", t), 0);
        tl_test_output r = tl_test_capture("%s=%s/file scripts/%s", runs[i][0], t, runs[i][1]);
        char want[1200];
        snprintf(want, sizeof want, "%.*s: cannot write %s %s %s/file: a file is there, not a folder\n",
                 (int)strcspn(runs[i][1], " "), runs[i][1], i ? "into" : "the logs into", runs[i][0], t);
        TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "%s: exit %d:\n%s%s", runs[i][1], r.rc, r.out,
                      r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test \"$(cat %s/file)\" = kept", t), 0);
    }
}

/* device-session.sh refuses a command line it cannot run as given in one
 * line, exit 2, before it makes DEST: no DEST, an option, a TOTAL_SECONDS
 * that is not a positive integer, a step --help does not list, a fourth
 * argument. Before: an unknown step was a log line inside a session that
 * went on (exit 0, DEST and DEST.tgz made: a typo cost a lent GPU session
 * its step), TOTAL_SECONDS 'abc' or -5 skipped every step (exit 0), no
 * DEST was bash's 'line 56: 1: usage: ...', --bogus mkdir's two lines.
 * Every step its loop runs is one --help lists, and so one it accepts. */
TL_TEST(device_session_refuses_bad_arguments)
{
    const char *t = tl_test_tmpdir();
    static const char *const cases[][2] = {
        {"", "device-session.sh: no DEST given (usage: device-session.sh DEST [TOTAL_SECONDS] [STEPS]; try --help)\n"},
        {"--bogus", "device-session.sh: invalid argument '--bogus' (usage: device-session.sh DEST [TOTAL_SECONDS] "
                    "[STEPS]; try --help)\n"},
        {"'d 1' abc", "device-session.sh: invalid TOTAL_SECONDS 'abc': a positive integer (try --help)\n"},
        {"d1 -5 build", "device-session.sh: invalid TOTAL_SECONDS '-5': a positive integer (try --help)\n"},
        {"d1 100 build,bulid,demo", "device-session.sh: unknown step 'bulid' in STEPS (try --help: it lists them)\n"},
        {"d1 100 build,", "device-session.sh: unknown step '' in STEPS (try --help: it lists them)\n"},
        {"d1 100 build extra", "device-session.sh: invalid argument 'extra' (usage: device-session.sh DEST "
                               "[TOTAL_SECONDS] [STEPS]; try --help)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = tl_test_capture("cd %s && bash %s/scripts/device-session.sh %s", t, getenv("PWD"),
                                           cases[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, cases[i][1]) && !*r.out, "[%s]: rc %d: %s%s", cases[i][0], r.rc,
                      r.out, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "[%s] made something", cases[i][0]);
    }
    /* the loop's steps, each in --help's list */
    TL_ASSERT_EQ(tl_test_sh("h=$(bash scripts/device-session.sh --help) && n=0 && "
                            "for s in $(sed -n '/^for s in \"${order\\[@\\]}\"; do/,/^done/p' scripts/device-session.sh | "
                            "sed -n 's/^    \\([a-z0-9| -]*\\))\\( .*\\)\\{0,1\\}$/\\1/p' | tr '|' ' '); do n=$((n + 1)); "
                            "printf '%%s\\n' \"$h\" | grep -q \"^  $s  \" || { echo \"$s not in --help\"; exit 1; }; done; "
                            "[ $n -ge 20 ] || { echo \"$n steps found\"; exit 1; }"),
                 0);
}

/* A benchmark option given without its value (the last word) is one line
 * naming it, exit 2, nothing made. Before: bash's '$2: unbound variable',
 * exit 1, in bench-cpml.sh, bench-fdtd.sh, bench-solver-roof.sh,
 * bench-solvers-gpu.sh and bench-solvers-protocol.sh (17 options). */
TL_TEST(bench_options_need_their_value)
{
    static const char *const cases[][2] = {
        {"bench-cpml.sh", "--sizes"},           {"bench-cpml.sh", "--kernel"},
        {"bench-cpml.sh", "--cpml"},            {"bench-cpml.sh", "--reps"},
        {"bench-fdtd.sh", "--sizes"},           {"bench-fdtd.sh", "--more"},
        {"bench-fdtd.sh", "--steps"},           {"bench-fdtd.sh", "--kernels"},
        {"bench-fdtd.sh", "--double"},          {"bench-fdtd.sh", "--breakdown"},
        {"bench-fdtd.sh", "--strategies"},      {"bench-solver-roof.sh", "--old"},
        {"bench-solver-roof.sh", "--budget"},   {"bench-solver-roof.sh", "--sizes"},
        {"bench-solvers-gpu.sh", "--budget"},   {"bench-solvers-gpu.sh", "--cases"},
        {"bench-solvers-protocol.sh", "--inputs"},
    };
    const char *t = tl_test_tmpdir();
    char top[4096], want[300];
    TL_ASSERT(getcwd(top, sizeof top));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = tl_test_capture("cd %s && OUT=%s/out %s/scripts/%s %s", t, t, top, cases[i][0], cases[i][1]);
        snprintf(want, sizeof want, "%s: %s needs a value (try --help)\n", cases[i][0], cases[i][1]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want) && !*r.out, "%s %s: exit %d: %s", cases[i][0], cases[i][1],
                      r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "%s %s wrote in %s", cases[i][0], cases[i][1],
                      t);
    }
}

/* run-solver-schedules.sh refuses a bad argument in one line, exit 2,
 * nothing made. Before: the reason, then a second usage line; without
 * NRANKS, the whole 39-line header on stderr. */
TL_TEST(run_solver_schedules_bad_arguments_one_line)
{
    static const char *const cases[][2] = {
        {"", "run-solver-schedules.sh: no NRANKS given"},
        {"x", "run-solver-schedules.sh: invalid NRANKS 'x': a positive integer"},
        {"2 --n", "run-solver-schedules.sh: --n needs a value"},
        {"2 --what", "run-solver-schedules.sh: invalid argument '--what'"},
        {"2 --schedules bogus", "run-solver-schedules.sh: invalid schedule 'bogus'"},
    };
    const char *t = tl_test_tmpdir();
    char want[300];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = tl_test_capture("OUT=%s/out scripts/run-solver-schedules.sh %s", t, cases[i][0]);
        snprintf(want, sizeof want, "%s (usage: run-solver-schedules.sh NRANKS [options]; try --help)\n", cases[i][1]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want) && !*r.out, "[%s]: exit %d: %s", cases[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls -A %s)\"", t), 0);
    }
}

/* a stand-in trilap-solve appending a row of its --schedule and
 * --max-iterations to --results, in solver_time_s 1.7261e-03 s */
static void fake_schedules_solve(const char *path)
{
    write_script(path, "#!/bin/sh\n"
                       "while [ $# -gt 0 ]; do case $1 in --results) out=$2 ;; --schedule) s=$2 ;;\n"
                       "  --max-iterations) it=$2 ;; esac; shift; done\n"
                       "[ -e \"$out\" ] || echo solver,precond,schedule,backend,matrix,nranks,iterations,"
                       "solver_time_s,reason > \"$out\"\n"
                       "echo \"pipecg,jacobi,$s,host,gen:poisson7:16,2,$it,1.7261e-03,fixed\" >> \"$out\"\n");
}

/* run-solver-schedules.sh's summary under a comma-decimal locale (de_DE,
 * built with localedef into the test's folder; on ISO-8859-1, whose
 * numbers are UTF-8's, in 0.5 s of CPU where UTF-8's character tables
 * took 1.6 s) is the C locale's. Before, with no LC_ALL set by the
 * script, mawk read 1.7261e-03 as 1 and printed its ratios as 1,000,
 * exit 0. */
TL_TEST(summaries_in_a_comma_decimal_locale)
{
    const char *t = tl_test_tmpdir();
    if (tl_test_sh("command -v localedef >/dev/null && localedef -i de_DE -f ISO-8859-1 %s/de_DE.ISO-8859-1 2>/dev/null",
                   t))
        TL_SKIP("no localedef, or no de_DE source for it (/usr/share/i18n/locales)");
    char solve[700], a[700], b[700];
    snprintf(solve, sizeof solve, "%s/fake-solve", t);
    fake_schedules_solve(solve);
    static const char *const env[] = {"LC_ALL=C", "-u LC_ALL LC_NUMERIC=de_DE.ISO-8859-1 LANG=de_DE.ISO-8859-1"};
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("env %s LOCPATH=%s SOLVE=%s LAUNCH=threads PLOT=0 OUT=%s/out%d "
                                           "scripts/run-solver-schedules.sh 2 --iterations 20 --rounds 1",
                                           env[i], t, solve, t, i);
        TL_ASSERT_MSG(r.rc == 0, "%s: exit %d: %s", env[i], r.rc, r.err);
        tl_test_output_free(&r);
    }
    snprintf(a, sizeof a, "%s/out0/summary.txt", t);
    snprintf(b, sizeof b, "%s/out1/summary.txt", t);
    char *c = tl_test_read(a), *de = tl_test_read(b);
    TL_ASSERT_MSG(strstr(c, "1.7261e-03"), "%s", c);
    TL_ASSERT_STREQ(de, c);
    free(c);
    free(de);
}

/* TRACE=1 into an OUT holding an earlier run's traces (a copy of the
 * committed results/tristream-h200x2) is refused in one line, exit 2, the
 * folder unchanged; a run into it that fails after writing into a
 * variant's subfolder leaves it byte for byte as it was. Before: the
 * probes' trace.rank0.csv went beside the committed trace.rank0.csv.gz
 * (make demo: 'rank 0 has two trace files'), and a failed run said the
 * folder was left as the earlier run left it with the new trace still in
 * it (the snapshot looked at the top of the folder alone). */
TL_TEST(tristream_rerun_into_a_traced_out)
{
    const char *t = tl_test_tmpdir();
    char p[700];
    TL_ASSERT_EQ(tl_test_sh("cp -r results/tristream-h200x2 %s/out && cp -r results/tristream-h200x2 %s/orig", t, t), 0);
    snprintf(p, sizeof p, "%s/bench", t);
    write_script(p, "#!/bin/sh\n"
                    "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && d=${2%/*}; shift; done\n"
                    "mkdir -p \"$d/three-split\" \"$d/new\" && echo partial > \"$d/three-split/trace.rank0.csv\"\n"
                    "echo 'trilap-bench: CUDA error: an illegal memory access' >&2; exit 1\n");
    tl_test_output r = tl_test_capture("OUT=%s/out TRACE=1 BENCH=%s scripts/run-tristream.sh 2 --hw-queues 0", t, p);
    char want[800];
    snprintf(want, sizeof want, "run-tristream.sh: TRACE=1 into %s/out, which holds an earlier run's traces (", t);
    TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, want) && !strncmp(r.err, want, strlen(want)), "exit %d: %s",
                  r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("diff -r %s/orig %s/out", t, t), 0);
    r = tl_test_capture("OUT=%s/out BENCH=%s scripts/run-tristream.sh 2", t, p);
    TL_ASSERT_MSG(r.rc == 1, "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_MSG(tl_test_sh("diff -r %s/orig %s/out", t, t) == 0, "%s/out changed", t);
}

/* bench-kineto.sh takes its shared trace from TL_DATA, as the tests and
 * bench-solvers-protocol.sh do (before: always ../shared/data beside the
 * checkout, 'TL_DATA=... scripts/bench-kineto.sh 5' naming a trace that
 * was not there), and its 'not built' line names a real make target
 * (before: 'run make and make tests'). */
/* TL_DATA's trace_filter trace of RANK into trace, or the test skips */
static void shared_kineto_trace(char *trace, size_t size, int rank)
{
    char *real = realpath(tl_test_env("TL_DATA", "../shared/data"), NULL);
    snprintf(trace, size, "%s/kineto/trace_filter/sampled_rank-%d.json.gz", real ? real : "", rank);
    free(real);
    if (access(trace, R_OK) != 0) TL_SKIP("needs TL_DATA/kineto/trace_filter");
}

TL_TEST(bench_kineto_reads_tl_data)
{
    char trace[4096];
    shared_kineto_trace(trace, sizeof trace, 1);
    const char *t = tl_test_tmpdir();
    tl_test_output r = tl_test_capture("TL_DATA=%s/none OUT=%s/o scripts/bench-kineto.sh 1", t, t);
    char want[600];
    snprintf(want, sizeof want,
             "%s/none/kineto/trace_filter/sampled_rank-0.json.gz: no such trace (set TL_DATA to the shared data "
             "folder, or give SRC)\n",
             t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_count(r.err, "\n") == 1 && strstr(r.err, want), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    /* a data folder of its own: its trace is the one read */
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/data/kineto/trace_filter && ln -s %s "
                            "%s/data/kineto/trace_filter/sampled_rank-0.json.gz",
                            t, trace, t),
                 0);
    r = tl_test_capture("TL_DATA=%s/data OUT=%s/o scripts/bench-kineto.sh 1", t, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "from sampled_rank-0.json.gz") &&
                      tl_test_count(r.out, "\n") == 8,
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("TL_BIN=%s/nobin TL_DATA=%s/data scripts/bench-kineto.sh 1", t, t);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "/nobin/trilap-analyze not built (make all tests builds it)\n"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* bench-kineto.sh without OUT removes the scratch folder it made under
 * TMPDIR, after a run and after a failure (one line saying so); an OUT
 * given keeps its traces. Before, big.json and its gzip copy (420 MB at
 * the default size) stayed in TMPDIR after every run. */
TL_TEST(bench_kineto_removes_its_scratch)
{
    char trace[4096];
    shared_kineto_trace(trace, sizeof trace, 0);
    const char *t = tl_test_tmpdir();
    char p[600];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/tmp %s/bin", t, t), 0);
    tl_test_output r = tl_test_capture("TMPDIR=%s/tmp scripts/bench-kineto.sh 1", t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_count(r.out, "\n") == 8, "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s/tmp)\"", t) == 0, "the scratch folder stayed in TMPDIR");
    /* an analysis that fails: the folder goes too, and the line says how to keep it */
    snprintf(p, sizeof p, "%s/bin/trilap-analyze", t);
    write_script(p, "#!/bin/sh\necho 'trilap-analyze: stand-in failure' >&2\nexit 1\n");
    r = tl_test_capture("TMPDIR=%s/tmp TL_BIN=%s/bin scripts/bench-kineto.sh 1", t, t);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "trilap-analyze: stand-in failure\nbench-kineto.sh: stopped (exit 1); its "
                                             "scratch folder ") &&
                      strstr(r.err, " removed (OUT=DIR keeps the traces)\n"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s/tmp)\"", t) == 0, "a failed run left its scratch folder");
    r = tl_test_capture("TMPDIR=%s/tmp OUT=%s/o scripts/bench-kineto.sh 1", t, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test -s %s/o/big.json && test -s %s/o/big.json.gz", t, t), 0);
}

/* run-tristream.sh LAUNCH=srun starts its ranks as the Slurm template
 * does: srun --mpi=pmix (PMIx's variables select trilap's MPI launcher;
 * where the site's default is none, each rank ran alone on every GPU of
 * the node) --gpu-bind=none (a rank binds to a GPU by its local rank and
 * must see them all); SRUN_ARGS replaces both. Before: srun -n N alone. */
TL_TEST(run_tristream_srun_as_the_template)
{
    const char *t = tl_test_tmpdir();
    char p[700], args[600];
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fake", t), 0);
    snprintf(p, sizeof p, "%s/fake/srun", t);
    write_script(p, "#!/bin/sh\necho \"$*\" > \"$0.args\"\n"
                    "while [ $# -gt 0 ]; do case $1 in -n) shift 2 ;; --*) shift ;; *) break ;; esac; done\n"
                    "exec \"$@\"\n");
    snprintf(p, sizeof p, "%s/fake/bench", t);
    fake_bench(p);
    tl_test_output r = tl_test_capture("PATH=%s/fake:$PATH LAUNCH=srun BENCH=%s OUT=%s/rt scripts/run-tristream.sh 2",
                                       t, p, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh_to(args, sizeof args, "cat %s/fake/srun.args", t), 0);
    TL_ASSERT_MSG(strncmp(args, "-n 2 --mpi=pmix --gpu-bind=none ", 32) == 0, "srun %s", args);
    r = tl_test_capture("PATH=%s/fake:$PATH LAUNCH=srun SRUN_ARGS=--mpi=pmi2 BENCH=%s OUT=%s/rt2 "
                        "scripts/run-tristream.sh 2",
                        t, p, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh_to(args, sizeof args, "cat %s/fake/srun.args", t), 0);
    TL_ASSERT_MSG(strncmp(args, "-n 2 --mpi=pmi2 ", 16) == 0 && !strstr(args, "gpu-bind"), "srun %s", args);
}

/* bench-knobs.sh measures the hardware queues as one knob among others:
 * the configurations that do not set CUDA_DEVICE_MAX_CONNECTIONS run at
 * CUDA's default (--hw-queues 0, the variable unset even where the
 * caller's environment sets it), the max-conn-32 ones at 32, as
 * results/tristream-knobs-h200x2 was measured. Before: since tristream's
 * own default became 32 queues (8b76cd4) every configuration ran at 32,
 * "base" the same run as "max-connections-32". */
TL_TEST(knobs_hardware_queues_one_knob)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    snprintf(fake, sizeof fake, "%s/fake-bench", t);
    write_script(fake, "#!/bin/sh\n"
                       "q=unset; for a in \"$@\"; do [ \"$prev\" = --hw-queues ] && q=$a; prev=$a; done\n"
                       "echo \"${CUDA_DEVICE_MAX_CONNECTIONS:-unset} $q\" >> \"$0.calls\"\n"
                       "printf 'variant,nranks\\nthree-split,1\\n'\n");
    tl_test_output r =
        tl_test_capture("CUDA_DEVICE_MAX_CONNECTIONS=16 OUT=%s/k BENCH=%s scripts/bench-knobs.sh 1", t, fake);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    char calls[2000];
    TL_ASSERT_EQ(tl_test_sh_to(calls, sizeof calls, "sort %s.calls | uniq -c | sed 's/^ *//'", fake), 0);
    /* 8 configurations at CUDA's default, 5 at 32 queues, none at the caller's 16 */
    TL_ASSERT_MSG(strcmp(calls, "5 32 0\n8 unset 0\n") == 0, "environment, --hw-queues per run:\n%s", calls);
}

/* A stand-in trilap-bench at t/fake-bench printing tristream --format
 * csv's header and then `rows` (shell lines echoing rows). */
static void knobs_fake_bench(const char *t, char *fake, size_t n, const char *rows)
{
    char text[1600];
    snprintf(fake, n, "%s/fake-bench", t);
    snprintf(text, sizeof text,
             "#!/bin/sh\n"
             "echo 'variant,allreduce_bytes,ring_bytes,daxpy_bytes,median_us,min_us,max_us,speedup,"
             "bound_us,overlap_eff_pct,wrong'\n%s",
             rows);
    write_script(fake, text);
}

/* bench-knobs.sh into OUT=t/out with `args` exits 0 and its summary's base
 * line has split time `split` and three-naive time `naive` ('-': none) */
static void knobs_base_line(const char *t, const char *fake, const char *out, const char *args, const char *split,
                            const char *naive)
{
    char want[200];
    snprintf(want, sizeof want, "\nbase                 %10s          -          -        -        - %12s\n", split,
             naive);
    tl_test_output r = tl_test_capture("OUT=%s/%s BENCH=%s scripts/bench-knobs.sh 1 %s", t, out, fake, args);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, want), "%s: want%s\nrc %d: %s%s", args, want, r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* bench-knobs.sh's summary with figures the run did not give (extra
 * options selecting variants: --variants three-split has no bound, no
 * two-stream, no three-naive): '-' in their columns, as in the program's
 * table. Before: split/bnd 0.000 beside an empty bound, and 0.000 with no
 * three-split row at all, a ratio the run never measured. */
TL_TEST(knobs_summary_without_a_figure_says_dash)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    /* the bound, efficiency and speedup empty, as the program writes them
     * for --variants three-split */
    knobs_fake_bench(t, fake, sizeof fake,
                     "case \"$*\" in *three-split*) echo 'three-split,16,256000,67108864,52.75,52.25,54.00,,,,0' ;; esac\n"
                     "echo 'two-stream,16,256000,67108864,70.00,69.50,71.25,1.000,,,0'\n");
    knobs_base_line(t, fake, "k", "-- --variants three-split", "52.75", "-");
    knobs_base_line(t, fake, "k2", "-- --variants two-stream", "-", "-");
}

/* bench-knobs.sh given an OUT that holds an earlier run: each summary line
 * is this run's, read below the line bench_out_log put in the
 * configuration's CSV. Before: the whole appended CSV was read, so a run
 * with --variants three-split after a full one showed the earlier run's
 * three-naive time (30.00) as its own. */
TL_TEST(knobs_summary_reads_this_runs_rows)
{
    const char *t = tl_test_tmpdir();
    char fake[600];
    knobs_fake_bench(t, fake, sizeof fake,
                     "echo 'three-split,16,256000,67108864,52.75,52.25,54.00,,,,0'\n"
                     "case \"$*\" in *--variants*) ;; *) echo 'three-naive,16,256000,67108864,30.00,29.00,31.00,,,,0' ;; esac\n");
    knobs_base_line(t, fake, "k", "", "52.75", "30.00");
    knobs_base_line(t, fake, "k", "-- --variants three-split", "52.75", "-");
    /* the earlier run's rows are still in the CSV: the reset, not their loss, gives '-' */
    TL_ASSERT_EQ(tl_test_sh("grep -q '^three-naive,' %s/k/base.csv && grep -q '^# ==== another run' %s/k/base.csv", t, t),
                 0);
}

/* bench-knobs.sh with a sweep (-- --sweep ring-bytes ...): a summary line
 * per point, named by the size the points differ in, the same columns.
 * Before: one line, the last point's figures under the bare name. */
TL_TEST(knobs_summary_every_sweep_point)
{
    const char *t = tl_test_tmpdir();
    char fake[600], want[400];
    knobs_fake_bench(t, fake, sizeof fake,
                     "for p in '8000 40.00 36.00 90.0 1.100 50.00' '16000 45.00 40.00 88.0 1.050 55.00'; do\n"
                     "  set -- $p\n"
                     "  echo \"three-split,16,$1,67108864,$2,$2,$2,$5,$3,$4,0\"\n"
                     "  echo \"three-naive,16,$1,67108864,$6,$6,$6,,,,0\"\n"
                     "done\n");
    tl_test_output r =
        tl_test_capture("OUT=%s/k BENCH=%s scripts/bench-knobs.sh 1 -- --sweep ring-bytes --sweep-range 8K:16K:2", t,
                        fake);
    snprintf(want, sizeof want, "\n%-20s %10s %10s %10s %8s %8s %12s\n%-20s %10s %10s %10s %8s %8s %12s\n",
             "base@ring_bytes=8000", "40.00", "36.00", "1.111", "90.0", "1.100", "50.00", "base@ring_bytes=16000",
             "45.00", "40.00", "1.125", "88.0", "1.050", "55.00");
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, want), "want%s\nrc %d: %s%s", want, r.rc, r.out, r.err);
    /* every configuration has its two lines and no bare one */
    TL_ASSERT_MSG(tl_test_count(r.out, "@ring_bytes=8000 ") == 13 && tl_test_count(r.out, "@ring_bytes=16000 ") == 13 &&
                      !strstr(r.out, "\nbase "),
                  "%s", r.out);
    tl_test_output_free(&r);
}

/* bench-solvers-protocol.sh BACKEND=host, the dry run without a GPU that
 * REPRODUCE.md and scripts/README.md offer: trilap-solve runs every
 * schedule on the host backend and the summary has their rows. Before:
 * the script passed --no-op-timer on the host backend too, which
 * trilap-solve refuses since 6fd791d ("--op-timer acts only with
 * --backend cuda"): every input "exit 2", an empty summary, exit 0.
 * The data folder's name has a comma: trilap-solve quotes the matrix
 * cell, and before 2026-12-05 the script split its rows with awk -F, and
 * read every column after it one to the right (K 2, 10 us an iteration);
 * and a space: the inputs' list is read by words, and the matrix was
 * "not found" at the space (before 2026-12-05, session26). */
TL_TEST(solvers_protocol_host_dry_run)
{
    if (access(tl_test_matrix("1138_bus.mtx"), R_OK) != 0) TL_SKIP("needs TL_DATA/matrices/1138_bus.mtx");
    const char *t = tl_test_tmpdir();
    char data[600];
    snprintf(data, sizeof data, "%s/da, ta", t);
    char *real = realpath(tl_test_env("TL_DATA", "../shared/data"), NULL);
    TL_ASSERT(real && symlink(real, data) == 0);
    free(real);
    tl_test_output r = tl_test_capture("BACKEND=host TL_DATA='%s' SOLVE=%s/trilap-solve BENCH=%s/trilap-bench "
                                       "ANALYZE=%s/trilap-analyze scripts/bench-solvers-protocol.sh "
                                       "--inputs 1138_bus %s/p 5",
                                       data, tl_test_bin(), tl_test_bin(), tl_test_bin(), t);
    TL_ASSERT_MSG(r.rc == 0 && !strstr(r.err, "exit 2"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    char summary[4000], first[800];
    TL_ASSERT_EQ(tl_test_sh_to(summary, sizeof summary, "cat %s/p/summary.txt", t), 0);
    TL_ASSERT_EQ(tl_test_sh_to(first, sizeof first, "sed -n 2p %s/p/results.csv", t), 0);
    char cell[700];
    snprintf(cell, sizeof cell, ",\"%s/matrices/1138_bus.mtx\",1,0,", data);
    const char *after = strstr(first, cell);
    TL_ASSERT_MSG(after, "no %s in %s", cell, first);
    int iterations = atoi(after + strlen(cell));
    TL_ASSERT_MSG(iterations > 100, "%d iterations: %s", iterations, first);
    static const char *const scheds[] = {"sync", "two-stream", "three-naive", "three-split"};
    for (size_t i = 0; i < 4; i++) {
        char row[80];
        snprintf(row, sizeof row, "1138_bus      pipecg        %-12s %6d ", scheds[i], iterations);
        TL_ASSERT_MSG(strstr(summary, row), "no %s row of K %d:\n%s", scheds[i], iterations, summary);
    }
    TL_ASSERT_MSG(!strstr(summary, "skipped or failed") && !strstr(summary, "inf"), "%s", summary);
    /* PLAN_ONLY=1: the plan and its manifest printed, nothing written */
    r = tl_test_capture("PLAN_ONLY=1 BACKEND=host TL_DATA=%s SOLVE=%s/trilap-solve BENCH=%s/trilap-bench "
                        "ANALYZE=%s/trilap-analyze scripts/bench-solvers-protocol.sh --inputs '1138_bus p7-64' %s/plan 60",
                        tl_test_env("TL_DATA", "../shared/data"), tl_test_bin(), tl_test_bin(), tl_test_bin(), t);
    /* the two inputs' 20 s and the seconds the plan itself took (the
     * total counts them: 1 s on a busy machine) */
    const char *total = strstr(r.err, "plan only: estimated total ");
    int planned = total ? atoi(total + strlen("plan only: estimated total ")) : -1;
    TL_ASSERT_MSG(r.rc == 0 && planned >= 20 && planned <= 25 && strstr(total, " s of 60 s") &&
                      strstr(r.out, "iterations p7-64: gen:poisson7:64 pipecg K=10000"),
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    char plan[600];
    snprintf(plan, sizeof plan, "%s/plan", t);
    TL_ASSERT_MSG(access(plan, F_OK) != 0, "PLAN_ONLY made %s", plan);
}

/* bench-solvers-gpu.sh's summary with its matrices in a folder whose
 * name holds a comma and a space, through stand-in programs (the script
 * needs a GPU): solver-log.awk wrote the matrix cell unquoted and the
 * table read summary.csv with awk -F,, so every column after it moved (on
 * an H100, results/wave3-checks-h200/session26/D: the spmv column read
 * "trices/ani4.mtx"); the inputs' list is read by words, and trilap-solve
 * was given the path up to the space */
TL_TEST(solvers_gpu_summary_with_a_comma_and_space_in_the_path)
{
    const char *t = tl_test_tmpdir();
    char bench[600], solve[600], data[600];
    snprintf(bench, sizeof bench, "%s/bench", t);
    snprintf(solve, sizeof solve, "%s/solve", t);
    snprintf(data, sizeof data, "%s/da, ta", t);
    fake_bench(bench);
    /* trilap-solve's --results row (the matrix quoted) and the lines of
     * its output that solver-log.awk reads */
    write_script(solve, "#!/bin/sh\n"
                        "for a; do m=$a; done\n"
                        "while [ $# -gt 0 ]; do [ \"$1\" = --results ] && res=$2; shift; done\n"
                        "printf 'solver,schedule,matrix,backend,nranks,rep,iterations,solver_time_s\\n' > \"$res\"\n"
                        "printf 'pipecg,sync,\"%s\",cuda:trilap,1,0,100,1.0e-03\\n' \"$m\" >> \"$res\"\n"
                        "printf 'solver: pipecg\\nschedule: sync\\nmatrix: %s\\nbackend: cuda:trilap\\nrows: 64\\n"
                        "iterations: 100\\ntimed solves: 3\\ntime per iteration: 1.000000e-05 s\\nspmv: trilap\\n"
                        "op timer: off\\nfused: off\\nregisters: mapped\\n' \"$m\"\n");
    tl_test_output r = tl_test_capture("TL_DATA='%s' SOLVE=%s BENCH=%s ANALYZE=/nonexistent "
                                       "scripts/bench-solvers-gpu.sh --quick --cases ani4 %s/out",
                                       data, solve, bench, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    char row[1000], cell[700], table[4000];
    snprintf(cell, sizeof cell, ",\"%s/matrices/ani4.mtx\",cuda:trilap,", data);
    TL_ASSERT_EQ(tl_test_sh_to(row, sizeof row, "grep '^ani4-iter,' %s/out/summary.csv", t), 0);
    TL_ASSERT_MSG(strstr(row, cell), "no %s in %s", cell, row);
    TL_ASSERT_EQ(tl_test_sh_to(row, sizeof row, "grep '^pipecg,' %s/out/results.csv", t), 0);
    TL_ASSERT_MSG(strstr(row, cell), "no %s in %s", cell, row);
    TL_ASSERT_EQ(tl_test_sh_to(table, sizeof table, "cat %s/out/summary.txt", t), 0);
    TL_ASSERT_MSG(strstr(table, "ani4-iter              pipecg        trilap           off mapped    100      10.00"),
                  "%s", table);
}

/* ncu-launches.awk on a committed ncu file of one FDTD step with CPML
 * (bench-cpml.sh --ncu): 14 launches, each update's plain interior and
 * six CPML shell boxes, and the shell's share of each update; a file
 * with no launch rows is refused in one line. */
TL_TEST(ncu_launches_of_a_cpml_step)
{
    tl_test_output r =
        ncu_read("wave3-checks-h200/session4/M/ncu/ncu-480-cpml20.csv.gz", "-f scripts/ncu-launches.awk");
    int plain = tl_test_count(r.out, " plain ("), cpml = tl_test_count(r.out, " cpml  (");
    TL_ASSERT_MSG(strstr(r.out, "0      v      plain (13, 14, 439)      48      653.5    222607242  72.12  94.87") &&
                      strstr(r.out, "13     p      cpml  (1, 14, 439)       64       75.5     32045244  48.80  71.46"),
                  "%s", r.out);
    TL_ASSERT_MSG(plain == 2 && cpml == 12, "%d plain, %d cpml launches:\n%s", plain, cpml, r.out);
    TL_ASSERT_MSG(strstr(r.out, "v             653.5        414.0        0.388") &&
                      strstr(r.out, "p             500.1        364.1        0.421"),
                  "%s", r.out);
    tl_test_output_free(&r);
    refuses_non_ncu("ncu-launches.awk", "ncu-launches.awk: no launch rows");
}

/* The kernel names of the FDTD launches, one a launch, as ncu's pages
 * spell them: main's two builds (flag 0 or 1, false, (bool)1 on a source
 * page), the shell's one pressure launch, session5's kernel named for its
 * CPML build (its last argument a box kind), session16's branch kernel
 * without the flag, a kernel of another program, and the interior's
 * z-slab build (no flag, known by its name). */
static const char *const fdtd_names[] = {
    "void <unnamed>::tl_fdtd_v_vec_kernel<float, 4, 4, 8, 32, 0>(tl_fdtd_kargs, <unnamed>::box3, long, "
    "<unnamed>::block_order)",
    "void <unnamed>::tl_fdtd_p_vec_kernel<float, 4, 4, 8, 8, 1>(tl_fdtd_kargs, <unnamed>::box3, long, "
    "<unnamed>::block_order)",
    "void <unnamed>::tl_fdtd_p_vec_shell_kernel<float, 4, 4, 8, 8, 1>(tl_fdtd_kargs, <unnamed>::shell_table)",
    "void <unnamed>::tl_fdtd_v_vec_kernel<float, (int)4, (int)4, (int)8, (int)8, (bool)1>(tl_fdtd_kargs, "
    "<unnamed>::box3, long, <unnamed>::block_order)",
    "void <unnamed>::tl_fdtd_v_vec_cpml_kernel<float, 4, 4, 8, 32, 0>(tl_fdtd_kargs, "
    "<unnamed>::box_list<list_len<T6>()>)",
    "void <unnamed>::tl_fdtd_v_vec_deep_kernel<float, 4, 4, 8, 8>(tl_fdtd_kargs, <unnamed>::deep_plan)",
    "void triad_kernel<float>(float *, const float *, const float *, float, long)",
    "void <unnamed>::tl_fdtd_p_vec_kernel<double, 4, 4, 8, 32, false>(tl_fdtd_kargs, <unnamed>::box3, long, "
    "<unnamed>::block_order)",
    "void <unnamed>::tl_fdtd_v_vec_zslab_kernel<float, 4, 4, 8, 32>(tl_fdtd_kargs, <unnamed>::box3, long, "
    "<unnamed>::block_order)",
};

/* ncu-launches.awk (a details page) and ncu-raw-per-point.awk (a raw
 * page) name each launch of fdtd_names alike, by one rule: the update
 * from tl_fdtd_v_ / tl_fdtd_p_, the build from a _zslab_ or _cpml_
 * kernel's name or the CPML flag, ? where the name says neither; ncu-launches.awk then
 * leaves the unknown launches out of its sums, says which, and gives
 * their update's share as ?. */
TL_TEST(ncu_readers_name_launches_alike)
{
    const int n = (int)(sizeof fdtd_names / sizeof fdtd_names[0]);
    const char *details = tl_test_path("details.csv"), *raw = tl_test_path("raw.csv");
    FILE *d = fopen(details, "w"), *w = fopen(raw, "w");
    TL_ASSERT(d && w);
    fprintf(w, "\"ID\",\"Kernel Name\",\"launch__thread_count\",\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"ns\"\n");
    for (int k = 0; k < n; k++) {
        fprintf(d, "\"%d\",\"1\",\"trilap-fdtd\",\"h\",\"%s\",\"1\",\"7\",\"(64, 1, 1)\",\"(10, 1, 1)\",\"0\",\"9.0\","
                   "\"GPU Speed Of Light Throughput\",\"Duration\",\"us\",\"%d\"\n",
                k, fdtd_names[k], 10 * (k + 1));
        fprintf(w, "\"%d\",\"%s\",\"1000\",\"10000\"\n", k, fdtd_names[k]);
    }
    TL_ASSERT(fclose(d) == 0 && fclose(w) == 0);
    const char *names = "awk '$1 ~ /^[0-9]+$/ { printf \"%s %s %s;\", $1, $2, $3 }'";
    tl_test_output a = tl_test_capture("awk -f scripts/ncu-launches.awk %s | %s", details, names);
    tl_test_output b = tl_test_capture("awk -f scripts/ncu-raw-per-point.awk %s | %s", raw, names);
    TL_ASSERT_MSG(a.rc == 0 && b.rc == 0, "%s%s", a.err, b.err);
    TL_ASSERT_MSG(strcmp(a.out, "0 v plain;1 p cpml;2 p cpml;3 v cpml;4 v cpml;5 v ?;6 ? ?;7 p plain;8 v zslab;") == 0,
                  "ncu-launches.awk: %s", a.out);
    TL_ASSERT_MSG(strcmp(a.out, b.out) == 0, "ncu-launches.awk: %s\nncu-raw-per-point.awk: %s", a.out, b.out);
    tl_test_output_free(&a);
    tl_test_output_free(&b);
    /* the sums: v's interior 10 us plain + 90 zslab, v cpml 40 + 50 us,
     * v's share ?; p plain 80, p cpml 20 + 30 */
    a = tl_test_capture("awk -f scripts/ncu-launches.awk %s", details);
    TL_ASSERT_MSG(strstr(a.out, "\nv             100.0         90.0            ?\n") &&
                      strstr(a.out, "\np              80.0         50.0        0.385\n") &&
                      strstr(a.out, "\nlaunches 5 6: update or build not known from the kernel's name, left out of "
                                    "the sums\n"),
                  "%s", a.out);
    tl_test_output_free(&a);
    /* session5's committed page of that design: its eight CPML launches
     * by their kernel's name, its two interior launches (a name without
     * the flag) unknown; the old rule read all eight ? and six of them
     * plain */
    a = ncu_read("wave3-checks-h200/session5/P/cpml/ncu/ncu-480-cpml20.csv.gz", "-f scripts/ncu-launches.awk");
    TL_ASSERT_MSG(tl_test_count(a.out, "      v      cpml  (") == 4 &&
                      tl_test_count(a.out, "      p      cpml  (") == 4 &&
                      strstr(a.out, "\n0      v      ?     (13, 14, 439)") &&
                      strstr(a.out, "\nv               0.0        436.8            ?\n") &&
                      strstr(a.out, "\nlaunches 0 5: update or build not known"),
                  "%s", a.out);
    tl_test_output_free(&a);
}

/* ncu-sass-ops.awk on session7's committed SASS pages of one launch each
 * of the float velocity kernel: the CPML build on a z shell box (4,500
 * blocks of 8 warps) executes 597 warp instructions a warp, the plain
 * build on the interior 323; a file with no SASS rows is refused in one
 * line. */
TL_TEST(ncu_sass_ops_of_shell_and_interior)
{
    tl_test_output r = ncu_read("wave3-checks-h200/session7/Y/ncu/zbox-sass.csv.gz",
                                "-v warps=36000 -v top=3 -f scripts/ncu-sass-ops.awk");
    TL_ASSERT_MSG(strstr(r.out, "tl_fdtd_v_vec_kernel<float, (int)4, (int)4, (int)8, (int)32, (bool)1>") &&
                      strstr(r.out, "warp instructions executed: 21482400 (596.7 per warp of 36000)") &&
                      strstr(r.out, "FFMA                        2517600   11.7%     69.93") &&
                      strstr(r.out, "FADD                        1728000    8.0%     48.00") && !strstr(r.out, "IMAD.MOV"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session7/Y/ncu/interior-sass.csv.gz",
                 "-v warps=639184 -f scripts/ncu-sass-ops.awk");
    TL_ASSERT_MSG(strstr(r.out, "(322.7 per warp of 639184)") && tl_test_count(r.out, "%") == 25, "%s",
                  r.out);
    tl_test_output_free(&r);
    refuses_non_ncu("ncu-sass-ops.awk", "ncu-sass-ops.awk: no SASS rows");
}

/* ncu-sass-ops.awk -v stalls=N on session14's committed SASS page of the
 * CPML shell's z-lo velocity launch: the warp-state samples by reason
 * (long scoreboard 67.7 %) and the instructions with the most, the first
 * a derivative's FADD waiting for the stencil; without stalls no sample
 * is printed; a page whose rows carry no sample is refused in one line. */
TL_TEST(ncu_sass_stalls_of_shell_launch)
{
    const char *page = "wave3-checks-h200/session14/C/ncu/vshell-zlo-sass.csv.gz";
    tl_test_output r = ncu_read(page, "-v warps=36000 -v top=1 -v stalls=2 -f scripts/ncu-sass-ops.awk");
    TL_ASSERT_MSG(strstr(r.out, "(541.1 per warp of 36000)") && strstr(r.out, "stall samples: 4861\n") &&
                      strstr(r.out, "long_sb                        3292   67.7%") &&
                      strstr(r.out, "wait                            519   10.7%") &&
                      strstr(r.out, "417         1009   20.8%  FADD R13, R50, -R46\n") &&
                      strstr(r.out, "248          914   18.8%  FADD R17, R25, -R17\n") &&
                      !strstr(r.out, "FADD R68"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read(page, "-f scripts/ncu-sass-ops.awk");
    TL_ASSERT_MSG(!strstr(r.out, "stall samples"), "%s", r.out);
    tl_test_output_free(&r);
    const char *bare = tl_test_path("no-samples.csv");
    tl_test_write(bare, "\"Address\",\"Source\",\"Instructions Executed\"\n\"0x0\",\"  FADD R1, R2, R3\",\"32\"\n");
    r = tl_test_capture("awk -v stalls=3 -f scripts/ncu-sass-ops.awk %s", bare);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.out, "warp instructions executed: 32") && strstr(r.err, "no warp stall samples") &&
                      one_line(r.err),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
}

/* ncu-raw-per-point.awk on session8's committed raw pages of one FDTD
 * step at 480^3: without CPML, the two whole-grid launches' bytes per
 * point slot (the velocity update's 4 B of spill each way among them);
 * with CPML, the L2 fabric's share of its peak, plain interior against a
 * z shell box; each file's totals, the fabric busy 1,479.9 us without
 * CPML (its breakdown page) against 1,664.5 with: 0.889, what the step
 * would reach were every launch to keep the fabric as busy as the
 * interior does; where the file has the sectors that crossed the fabric
 * (session11's, at the GPU's own clocks), their bytes summed: 3,482.2 MB
 * without CPML against 3,819.3 with the memory variables' rows aligned;
 * each launch's DRAM and fabric rates alone, where the file has their
 * bytes (session11's z-lo shell box 2,947 and 2,026 GB/s against the
 * interior's 3,631 and 2,345); a file with no launch rows is refused in
 * one line. */
TL_TEST(ncu_raw_per_point_of_a_step)
{
    tl_test_output r =
        ncu_read("wave3-checks-h200/session8/C/ncu/sectors-cpml0.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "0      v      plain   110.59     7873.3 16.46 11.88 0.156 82.00 35.26 12.00 "
                                "4.00 4.00") &&
                      strstr(r.out, " 53.8 3599\n") && strstr(r.out, " dram_GB/s\n") && !strstr(r.out, "fabric_GB/s") &&
                      strstr(r.out, "1      p      plain   110.59     6000.0 16.40 3.95 ") &&
                      strstr(r.out, "\ntotal  2 launches, 1534.3 us\n") && tl_test_count(r.out, "\n") == 4,
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session8/C/ncu/breakdown-cpml20.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, " lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed") &&
                      strstr(r.out, "0      v      plain    81.82     7866.3 95.5 67.5") &&
                      strstr(r.out, "1      v      cpml      4.61    12777.8 83.2 52.5") &&
                      tl_test_count(r.out, " cpml ") == 12 &&
                      strstr(r.out, "\ntotal  14 launches, 1846.9 us, L2 fabric busy 1664.5 us\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session8/C/ncu/breakdown-cpml0.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "\ntotal  2 launches, 1533.6 us, L2 fabric busy 1479.9 us\n"), "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session11/C/ncu/fabric-cpml0.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "\ntotal  2 launches, 1490.5 us, L2 fabric busy 1440.9 us, 3482.2 MB over the L2 fabric\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session11/E/ncu/fabric-cpml20.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "1      v      cpml      4.61    11770.8 22.77 11.92 82.9 23.85 ") &&
                      strstr(r.out, " dram_GB/s fabric_GB/s\n") &&
                      strstr(r.out, " 3631 2345\n1      v      cpml ") && strstr(r.out, " 2947 2026\n2      v      cpml ") &&
                      strstr(r.out, "\ntotal  14 launches, 1750.6 us, L2 fabric busy 1590.2 us, 3819.3 MB over the L2 fabric\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    /* session12's shell in one launch an update: the shell kernels named by their update */
    r = ncu_read("wave3-checks-h200/session12/E/ncu/fabric-cpml20.csv.gz", "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "\n1      v      cpml     31.92    11836.4 ") &&
                      strstr(r.out, "\n3      p      cpml     31.92     8604.7 ") && !strstr(r.out, " ?  ") &&
                      strstr(r.out, "\ntotal  4 launches, 1747.4 us, L2 fabric busy 1632.5 us, 3857.1 MB over the L2 fabric\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    /* session16's branch exp-deep-y: a kernel of a new name read by its
     * update, and its build left ? where the name has no CPML flag */
    r = ncu_read("wave3-checks-h200/session16/H/fab-deep/ncu-fabric-480-cpml20.csv.gz",
                 "-f scripts/ncu-raw-per-point.awk");
    TL_ASSERT_MSG(strstr(r.out, "\n4      v      cpml      6.18    12176.4 ") &&
                      strstr(r.out, "\n5      v      ?        16.90    14564.4 ") &&
                      strstr(r.out, "\n6      p      plain    81.82     5760.9 ") && tl_test_count(r.out, " ?  ") == 1,
                  "%s", r.out);
    tl_test_output_free(&r);
    refuses_non_ncu("ncu-raw-per-point.awk", "ncu-raw-per-point.awk: no launch rows");
}

/* ncu-l2-excess.awk on session11's source pages of the z-lo shell box's
 * velocity launch: before the memory variables' rows were aligned, their
 * load and store each asked 720,000 sectors for 576,000 (a warp row 16
 * bytes into a sector: 5 sectors for 4), the stores 7 % over in all;
 * after, the store is gone from the list and the stores are 0.5 % over;
 * a file with no SASS rows is refused in one line. */
TL_TEST(ncu_l2_excess_of_the_shell_box)
{
    tl_test_output r = ncu_read("wave3-checks-h200/session11/C/ncu/source-zlo-v.csv.gz",
                                "-v per=4610000 -f scripts/ncu-l2-excess.awk");
    TL_ASSERT_MSG(strstr(r.out, "kernel: void <unnamed>::tl_fdtd_v_vec_kernel<float, (int)4, (int)4, (int)8, (int)8, (bool)1>") &&
                      strstr(r.out, "\n  0x1940      36000     720000     576000     144000    25.0  LDG.E.128 R24, "
                                    "desc[UR8][R10.64]\n") &&
                      strstr(r.out, "\n  0x4e30      36000     720000     576000     144000    25.0  STG.E.128 "
                                    "desc[UR8][R52.64], R24\n") &&
                      strstr(r.out, "\nglobal stores  sectors 2571900, ideal 2403600, excess 168300 (7.0 %); 17.85 B "
                                    "against 16.68 per item\n") &&
                      strstr(r.out, "\nlocal          sectors 576000 (spill loads and stores); 4.00 B per item\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = ncu_read("wave3-checks-h200/session11/E/ncu/source-zlo-v.csv.gz", "-f scripts/ncu-l2-excess.awk");
    TL_ASSERT_MSG(!strstr(r.out, "], R24\n") && tl_test_count(r.out, "\n  0x") == 6 &&
                      strstr(r.out, "\nglobal stores  sectors 2415600, ideal 2403600, excess 12000 (0.5 %)\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    refuses_non_ncu("ncu-l2-excess.awk", "ncu-l2-excess.awk: no SASS rows with L2 sectors");
}

/* A stand-in trilap-fdtd in dir/NAME: logs "NAME args" to log and appends
 * bench-cpml.sh's columns to its --results, the rate without CPML `none`
 * and with it `cpml` plus 10 per round (the round from the output folder
 * bench-cpml-trees.sh names NAME-rR; 0 in a folder of another name);
 * `fail` makes it exit 1 instead. */
static void cpml_build(const char *dir, const char *name, int none, int cpml, int fail, const char *log)
{
    char p[700], body[1400];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    TL_ASSERT_EQ(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/%s/trilap-bench", dir, name);
    fake_bench(p);
    snprintf(p, sizeof p, "%s/%s/trilap-fdtd", dir, name);
    snprintf(body, sizeof body,
             "#!/bin/sh\n"
             "echo \"%s $*\" >> %s\n"
             "[ %d = 0 ] || exit 1\n"
             "while [ $# -gt 0 ]; do case $1 in --grid) n=$2;; --label) l=$2;; --results) f=$2;; --cpml) c=$2;; "
             "esac; shift; done\n"
             "r=${f%%/fdtd.csv}; r=${r##*-r}; case $r in *[!0-9]* | '') r=0 ;; esac\n"
             "[ -f \"$f\" ] || echo label,nx,steps,cpml,mpoints_s,gbs > \"$f\"\n"
             "echo \"$l,$n,100,0,%d,1\" >> \"$f\"\n"
             "echo \"$l,$n,100,$c,$((%d + 10 * r)),1\" >> \"$f\"\n",
             name, log, fail, none, cpml);
    write_script(p, body);
}

/* scripts/bench-cpml-trees.sh over scripts/bench-cpml.sh and stand-in
 * builds: rounds alternate the builds (a, b, c, then a again), each
 * build's summary rows are the means of its rounds with their spread and
 * its rates over the first build's (b: faster with CPML and without, at a
 * lower ratio), a build whose runs fail has a row of none and the script
 * exits 1; a bad argument is one line, exit 2 and nothing run or
 * written. */
TL_TEST(cpml_builds_alternated)
{
    const char *t = tl_test_tmpdir();
    char dir[600], log[600], out[600], p[700];
    snprintf(dir, sizeof dir, "%s/builds", t);
    snprintf(log, sizeof log, "%s/runs.txt", t);
    snprintf(out, sizeof out, "%s/cmp", t);
    TL_ASSERT_EQ(mkdir(dir, 0755), 0);
    cpml_build(dir, "a", 1000, 800, 0, log);
    cpml_build(dir, "b", 1100, 880, 0, log);
    cpml_build(dir, "c", 1000, 900, 1, log);
    tl_test_output r = tl_test_capture("scripts/bench-cpml-trees.sh %s a=%s/a b=%s/b c=%s/c --rounds 2 --sizes '480 96'",
                                       out, dir, dir, dir);
    TL_ASSERT_MSG(r.rc == 1, "exit %d: %s", r.rc, r.err);
    TL_ASSERT_MSG(strstr(r.err, "bench-cpml-trees.sh: c round 1 failed") && tl_test_count(r.err, " failed (see ") == 2,
                  "%s", r.err);
    /* progress: a line a run, before it */
    TL_ASSERT_MSG(tl_test_count(r.err, "bench-cpml-trees.sh: round ") == 6 &&
                      strstr(r.err, "bench-cpml-trees.sh: round 2 of 2, c (sizes 480 96)\n"),
                  "%s", r.err);
    /* a: 810 and 820 against 1000 in rounds 1 and 2; b: 890, 900 against
     * 1100, 1.1 and 895 / 815 times a's rates */
    TL_ASSERT_MSG(strstr(r.out, "over the first build's (a)\n") &&
                      strstr(r.out, "\na              480      2         1000          815  0.8150 0.8100-0.8200    1.0000    1.0000\n") &&
                      strstr(r.out, "\na               96      2         1000          815  0.8150 0.8100-0.8200    1.0000    1.0000\n") &&
                      strstr(r.out, "\nb              480      2         1100          895  0.8136 0.8091-0.8182    1.1000    1.0982\n") &&
                      strstr(r.out, "\nc              480      0            -            -       -             -         -         -\n"),
                  "%s", r.out);
    /* bench-cpml.sh's own table: issue 29's target at 480^3, none at 96^3 */
    snprintf(p, sizeof p, "%s/a-r2/table.txt", out);
    char *table = tl_test_read(p);
    TL_ASSERT_MSG(strstr(table, "\n  480   1   100         1000          820  0.820   0.88 ") &&
                      strstr(table, "\n   96   1   100         1000          820  0.820          "),
                  "%s", table);
    free(table);
    snprintf(p, sizeof p, "%s/summary.txt", out);
    char *sum = tl_test_read(p);
    TL_ASSERT_STREQ(sum, r.out);
    free(sum);
    tl_test_output_free(&r);
    char *runs = tl_test_read(log);
    const char *a1 = strstr(runs, "a run"), *b1 = strstr(runs, "b run"), *c1 = strstr(runs, "c run");
    TL_ASSERT_MSG(a1 && b1 && c1 && a1 < b1 && b1 < c1 && strstr(c1, "a run") && strstr(runs, "--grid 96 "),
                  "%s", runs);
    TL_ASSERT_EQ(tl_test_count(runs, "a run"), 4);
    free(runs);
    static const char *const bad[] = {"A=%s/a", "a=%s/none", "a=%s/a a=%s/a", "a=%s/a --rounds 0", "a=%s/a --sizes x"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char args[800];
        snprintf(args, sizeof args, bad[k], dir, dir);
        char fresh[700];
        snprintf(fresh, sizeof fresh, "%s/bad%zu", t, k);
        r = tl_test_capture("scripts/bench-cpml-trees.sh %s %s", fresh, args);
        TL_ASSERT_MSG(r.rc == 2 && strstr(r.err, "bench-cpml-trees.sh: ") && one_line(r.err), "'%s': exit %d, %s",
                      args, r.rc, r.err);
        TL_ASSERT_MSG(access(fresh, F_OK) != 0, "'%s': %s written", args, fresh);
        tl_test_output_free(&r);
    }
}

/* scripts/bench-cpml.sh --ncu-fabric at 480^3, one rep, into TMP/NAME
 * (out), with the stand-in build and ncu in DIR/a and ENV before it
 * (which page the stand-in ncu serves) */
static tl_test_output fabric_run(const char *env, const char *dir, const char *name, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", tl_test_tmpdir(), name);
    return tl_test_capture("%sPATH=%s/a:$PATH TL_BIN=%s/a scripts/bench-cpml.sh %s --sizes 480 --reps 1 --ncu-fabric",
                           env, dir, dir, out);
}

/* that bench-cpml.sh left no FILE in OUT */
static void assert_not_written(const char *out, const char *file)
{
    char p[800];
    snprintf(p, sizeof p, "%s/%s", out, file);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s written", p);
}

/* scripts/bench-cpml.sh --ncu-fabric with a stand-in ncu that prints
 * session11's committed raw pages of the step without CPML (C) and with
 * 20 cells (E, the 14 launches of the step before session12): the two
 * steps side by side (3,482.2 MB over the fabric
 * against 3,819.3, busy 1,440.9 us against 1,590.2: 0.912 and 0.906), the
 * shell's six velocity boxes 31.93 M point slots of 480^3 (s = 0.289),
 * and k from the stand-in build's ratio, 0.81: (1 / 0.81 - 1) / 0.289 =
 * 0.81. The launches a step are counted first, by an ncu run of one
 * step (here the page's own: 2 without CPML, 14 with), and each profiling
 * run skips the first step's and takes the second's; a CPML step with a
 * launch of a kernel that ncu-raw-per-point.awk cannot name (a branch's)
 * gets its fabric figures but no s or k, said so; an ncu page
 * without the fabric's counters leaves no fabric.txt and exits 1, and
 * so does an ncu that lists no launch, named, with nothing profiled. */
TL_TEST(cpml_fabric_of_two_steps)
{
    const char *t = tl_test_tmpdir();
    char dir[600], log[600], out[700], p[800], body[1400];
    snprintf(dir, sizeof dir, "%s/builds", t);
    snprintf(log, sizeof log, "%s/runs.txt", t);
    TL_ASSERT_EQ(mkdir(dir, 0755), 0);
    cpml_build(dir, "a", 1000, 800, 0, log);
    snprintf(p, sizeof p, "%s/a/ncu", dir);
    snprintf(body, sizeof body,
             "#!/bin/sh\n"
             "echo \"ncu $*\" >> %s\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --cpml ] && c=$2; shift; done\n"
             "[ -n \"$NCU_PAGE\" ] && { zcat \"$NCU_PAGE\"; exit 0; }\n"
             "[ -n \"$NCU_CPML\" ] && [ \"$c\" != 0 ] && { zcat \"$NCU_CPML\"; exit 0; }\n"
             "if [ \"$c\" = 0 ]; then zcat results/wave3-checks-h200/session11/C/ncu/fabric-cpml0.csv.gz\n"
             "else zcat results/wave3-checks-h200/session11/E/ncu/fabric-cpml20.csv.gz; fi\n",
             log);
    write_script(p, body);
    tl_test_output r = fabric_run("", dir, "fab-r1", out, sizeof out);
    TL_ASSERT_MSG(r.rc == 0, "exit %d: %s", r.rc, r.err);
    TL_ASSERT_MSG(strstr(r.out, "\n    0        2     1490.5         1440.9     3482.2\n"
                                "   20       14     1750.6         1590.2     3819.3\n"
                                "none / CPML: fabric bytes 0.912, fabric busy 0.906 ") &&
                      strstr(r.out, "\nshell: s = 0.289 of the point slots; at the measured ratio 0.8100 (mean of 1), "
                                    "k = (1 / ratio - 1) / s = 0.81\n"),
                  "%s", r.out);
    snprintf(p, sizeof p, "%s/fabric.txt", out);
    char *fab = tl_test_read(p);
    TL_ASSERT_MSG(strstr(r.out, fab), "fabric.txt not as printed: %s", fab);
    free(fab);
    TL_ASSERT_MSG(strstr(r.err, "ncu: 2 launches a step at 480^3 with --cpml 0\n") &&
                      strstr(r.err, "ncu: 14 launches a step at 480^3 with --cpml 20\n"),
                  "%s", r.err);
    tl_test_output_free(&r);
    char *runs = tl_test_read(log);
    TL_ASSERT_MSG(strstr(runs, "ncu --csv --page raw --kernel-name regex:vec --metrics launch__grid_size ") &&
                      strstr(runs, "--grid 480 --steps 1 --cpml 20\n") &&
                      strstr(runs, "ncu --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip 2 "
                                   "--launch-count 2 ") &&
                      strstr(runs, "--launch-skip 14 --launch-count 14 ") &&
                      strstr(runs, "--grid 480 --steps 3 --cpml 20\n"),
                  "%s", runs);
    free(runs);
    /* a CPML step with a launch of a kernel the reader cannot name
     * (session16's exp-deep-y): the fabric figures, but no s or k */
    r = fabric_run("NCU_CPML=results/wave3-checks-h200/session16/H/fab-deep/ncu-fabric-480-cpml20.csv.gz ", dir,
                   "deep-r1", out, sizeof out);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.err, "ncu: 8 launches a step at 480^3 with --cpml 20\n") &&
                      strstr(r.out, "   20        8     1802.8         1603.0     3743.0\n") &&
                      strstr(r.out, "\nshell: s and k not computed: launch 5 of the CPML step is not known as a v or p "
                                    "update of the plain or CPML build (ncu-fabric-480-cpml20.txt)\n") &&
                      !strstr(r.out, "k = "),
                  "exit %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    /* a page without the fabric's counters (session8's sectors page) */
    r = fabric_run("NCU_PAGE=results/wave3-checks-h200/session8/C/ncu/sectors-cpml0.csv.gz ", dir, "nofab-r1", out,
                   sizeof out);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "bench-cpml.sh: no fabric.txt (see "), "exit %d: %s", r.rc, r.err);
    assert_not_written(out, "fabric.txt");
    tl_test_output_free(&r);
    /* an ncu that lists no launch: nothing profiled, named, exit 1 */
    r = fabric_run("NCU_PAGE=/dev/null ", dir, "none-r1", out, sizeof out);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "ncu: 0 launches a step at 480^3 with --cpml 0\n") &&
                      strstr(r.err, "  -> ncu counted no launch of a step (see "),
                  "exit %d: %s", r.rc, r.err);
    assert_not_written(out, "ncu-fabric-480-cpml0.csv");
    assert_not_written(out, "fabric.txt");
    tl_test_output_free(&r);
}

/* bench-cpml.sh --ncu --ncu-fabric run from another folder, OUT given
 * relative to it: every ncu-* file (pages and their readings) lands in
 * OUT, nothing in the folder it ran from but OUT (the stand-in ncu prints
 * session11's committed pages, as a real one prints without -o). */
TL_TEST(cpml_ncu_files_under_out)
{
    const char *t = tl_test_tmpdir();
    char dir[600], p[700], body[1600], cwd[512];
    TL_ASSERT(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(dir, sizeof dir, "%s/builds", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s %s/run", dir, t), 0);
    cpml_build(dir, "a", 1000, 800, 0, "/dev/null");
    snprintf(p, sizeof p, "%s/a/ncu", dir);
    snprintf(body, sizeof body,
             "#!/bin/sh\n"
             "while [ $# -gt 0 ]; do [ \"$1\" = --cpml ] && c=$2; shift; done\n"
             "if [ \"$c\" = 0 ]; then zcat %s/results/wave3-checks-h200/session11/C/ncu/fabric-cpml0.csv.gz\n"
             "else zcat %s/results/wave3-checks-h200/session11/E/ncu/fabric-cpml20.csv.gz; fi\n",
             cwd, cwd);
    write_script(p, body);
    tl_test_output r = tl_test_capture("cd %s/run && PATH=%s/a:$PATH TL_BIN=%s/a %s/scripts/bench-cpml.sh o --sizes 480 "
                                       "--reps 1 --ncu --ncu-fabric",
                                       t, dir, dir, cwd);
    TL_ASSERT_MSG(r.rc == 0, "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("cd %s/run && test \"$(ls -A)\" = o && test \"$(ls o | grep -c '^ncu-')\" = 8 && "
                            "test -s o/ncu-480-cpml20.csv && test -s o/ncu-fabric-480-cpml20.txt && test -s o/fabric.txt",
                            t),
                 0);
}

/* bench-cpml.sh writes cpml.csv and table.txt under temporary names
 * (scripts/parts.sh) and renames them once both are whole: with an awk
 * that fails after writing part of either (a stand-in on PATH, the
 * stand-in build of cpml_build), one line, exit 1, both as they were and
 * no temporary left; then whole. Before: written in place, the failure
 * left cpml.csv cut (or a new cpml.csv beside a cut table.txt), exit 2
 * without a word. */
TL_TEST(cpml_table_whole_or_nothing)
{
    const char *t = tl_test_tmpdir();
    char dir[600];
    snprintf(dir, sizeof dir, "%s/fa", t);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/fa %s/o", t, t), 0);
    cpml_build(dir, "a", 1000, 800, 0, "/dev/null");
    static const char *const fail_on[] = {"/fdtd.csv", "/cpml."};
    const char *ls = "bench.log\ncpml.csv\nfdtd.csv\nstream.csv\ntable.txt";
    awk_failure_leaves_summary(t, "TL_BIN=%s/fa/a PATH=${TL_BIN%%%%/a}:$PATH scripts/bench-cpml.sh %s/o --sizes 480 --reps 1",
                               fail_on, "cpml.csv", "table.txt", ls, "bench-cpml.sh: cannot write ",
                               "; cpml.csv and table.txt left as they were (see ");
    tl_test_output r = tl_test_capture("TL_BIN=%s/a scripts/bench-cpml.sh %s/o --sizes 480 --reps 1", dir, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "\n  480   1   100         1000          800  0.800   0.88 "), "rc %d: %s%s",
                  r.rc, r.out, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("cd %s/o && test \"$(ls)\" = \"$(printf '%s')\" && "
                            "grep -qx '480,1,100,1000,800,0.800,0.88,1.000,1' cpml.csv",
                            t, ls),
                 0);
}

/* scripts/bench-petsc-compare.sh over stand-ins for mpirun (drops its
 * options) and trilap-solve (logs its arguments; K iterations a solve,
 * PETSc's pipecg K + 1 as KSPPIPECG, PETSc's bicgstab K / 2, as a KSP that
 * stops at rounding level; FAKE_FAIL=BACKEND fails that backend's runs). */
static const char petsc_compare_solve[] =
    "#!/bin/sh\n"
    "echo \"$*\" >>\"$FAKE_LOG\"\n"
    "be= solvers= k=0\n"
    "while [ $# -gt 0 ]; do\n"
    "  case $1 in --backend) be=$2; shift ;; --solver) solvers=$2; shift ;; --max-iterations) k=$2; shift ;; esac\n"
    "  shift\n"
    "done\n"
    "if [ \"$be\" = \"${FAKE_FAIL:-}\" ]; then echo \"trilap-solve: stand-in failure of $be\" >&2; exit 1; fi\n"
    "for s in $(echo \"$solvers\" | tr , ' '); do\n"
    "  i=$k\n"
    "  if [ \"$be\" = petsc ]; then case $s in pipecg) i=$((k + 1)) ;; bicgstab) i=$((k / 2)) ;; esac; fi\n"
    "  printf 'solver: %s\\nconverged: no\\niterations: %s\\nsolver time: 1.0e-03 s\\nsolver time min: 1.0e-03 s\\n' "
    "\"$s\" \"$i\"\n"
    "done\n";

/* a launcher that says FAKE_MPI_NAME to --version, notes its own options
 * in FAKE_LOG and runs the program */
static const char petsc_compare_mpirun[] =
    "#!/bin/sh\n"
    "[ \"$1\" = --version ] && { echo \"${FAKE_MPI_NAME:-mpirun (Open MPI) 4.1.4}\"; exit 0; }\n"
    "o=\n"
    "while [ \"${1#-}\" != \"$1\" ]; do case $1 in -np) o=\"$o $1 $2\"; shift 2 ;; *) o=\"$o $1\"; shift ;; esac; done\n"
    "echo \"launcher:$o\" >>\"$FAKE_LOG\"\n"
    "exec \"$@\"\n";

static tl_test_output petsc_compare(const char *dir, const char *env, const char *args)
{
    return tl_test_capture("TL_BIN=%s TL_MPIRUN=%s/mpirun FAKE_LOG=%s/log %s scripts/bench-petsc-compare.sh --ranks 1 "
                           "--repeat 1 %s",
                           dir, dir, dir, env, args);
}

/* What the comparison's table says matches what ran (before: PETSc's
 * count went unchecked in the timing mode's footer; every host run got
 * --residual-replacement 100, which trilap-solve refuses without
 * pipebicgstab, so --solvers pcg,pipecg gave trilap rows of dashes; a
 * failed run, a bad --rtol or solver made a table of dashes, exit 0). */
/* --allow-run-as-root and --oversubscribe go to Open MPI's mpirun alone:
 * a TL_MPIRUN that is srun gets -np only (before, both flags, which srun
 * refuses: "unrecognized option"). */
TL_TEST(petsc_compare_open_mpi_flags_only_to_open_mpi)
{
    const char *d = tl_test_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/mpirun", d);
    write_script(path, petsc_compare_mpirun);
    snprintf(path, sizeof path, "%s/trilap-solve", d);
    write_script(path, petsc_compare_solve);
    static const char *const launchers[][2] = {
        {"", "launcher: --allow-run-as-root --oversubscribe -np 1\n"},
        {"FAKE_MPI_NAME='slurm 23.02.7'", "launcher: -np 1\n"},
        {"FAKE_MPI_NAME='HYDRA build details:'", "launcher: -np 1\n"}};
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        TL_ASSERT_EQ(tl_test_sh("rm -f %s/log", d), 0);
        tl_test_output r = petsc_compare(d, launchers[i][0], "--solvers pcg gen:poisson7:4");
        TL_ASSERT_MSG(r.rc == 0, "%s: exit %d: %s", launchers[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        snprintf(path, sizeof path, "%s/log", d);
        char *log = tl_test_read(path);
        TL_ASSERT_MSG(tl_test_count(log, launchers[i][1]) == 2 && tl_test_count(log, "launcher:") == 2, "%s: %s",
                      launchers[i][0], log);
        free(log);
    }
}

TL_TEST(petsc_compare_failures_and_counts)
{
    const char *d = tl_test_tmpdir();
    char path[600], want[900];
    snprintf(path, sizeof path, "%s/mpirun", d);
    write_script(path, petsc_compare_mpirun);
    snprintf(path, sizeof path, "%s/trilap-solve", d);
    write_script(path, petsc_compare_solve);
    /* PETSc's count in the footer: bicgstab's 10 of 20 is not a complete
     * measurement; pipecg's 21 is KSPPIPECG's own */
    tl_test_output r = petsc_compare(d, "", "--iterations 20 --solvers pcg,pipecg,bicgstab gen:poisson7:4");
    TL_ASSERT_MSG(r.rc == 0, "exit %d: %s", r.rc, r.err);
    TL_ASSERT_MSG(strstr(r.out, "\n# 3 rows, 0 with trilap slower than 1.1x PETSc, 1 without a complete measurement "
                                "or with another iteration count than 20 (PETSc's pipecg 21)\n"),
                  "%s", r.out);
    tl_test_output_free(&r);
    snprintf(path, sizeof path, "%s/log", d);
    char *log = tl_test_read(path);
    TL_ASSERT_MSG(tl_test_count(log, "--backend host --solver pcg,pipecg,bicgstab ") == 1 &&
                      !strstr(log, "--residual-replacement"),
                  "%s", log);
    free(log);
    /* --residual-replacement 100 where pipebicgstab runs, on trilap's side */
    r = petsc_compare(d, "", "--solvers pcg,pipebicgstab gen:poisson7:4");
    TL_ASSERT_MSG(r.rc == 0, "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    log = tl_test_read(path);
    TL_ASSERT_MSG(tl_test_count(log, "--residual-replacement 100") == 1 &&
                      strstr(log, "--backend host --solver pcg,pipebicgstab --rtol 1e-6 --omp-threads 1 "
                                  "--residual-replacement 100 "),
                  "%s", log);
    free(log);
    /* a failed run stops the script with its status and message; a
     * folder with nothing measured goes */
    char args[800];
    snprintf(args, sizeof args, "--out %s/o gen:poisson7:4", d);
    r = petsc_compare(d, "FAKE_FAIL=host", args);
    snprintf(want, sizeof want,
             "trilap-solve: stand-in failure of host\nbench-petsc-compare.sh: trilap-solve --backend host exited 1 "
             "(gen-poisson7-4-np1-host-round1) before any result; %s/o removed (message above)\n",
             d);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want), "exit %d: %s", r.rc, r.err);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/o", d), 0);
    tl_test_output_free(&r);
    /* after a result: stopped, no summary, the runs' output kept */
    snprintf(args, sizeof args, "--out %s/p gen:poisson7:4", d);
    r = petsc_compare(d, "FAKE_FAIL=petsc", args);
    snprintf(want, sizeof want,
             "trilap-solve: stand-in failure of petsc\nbench-petsc-compare.sh: trilap-solve --backend petsc exited 1 "
             "(gen-poisson7-4-np1-petsc-round1); stopping (message above, its output in "
             "%s/p/raw/gen-poisson7-4-np1-petsc-round1.txt)\n",
             d);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want), "exit %d: %s", r.rc, r.err);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/p/summary.txt && test -s %s/p/raw/gen-poisson7-4-np1-host-round1.txt", d, d), 0);
    tl_test_output_free(&r);
    /* bad values: one line, exit 2, nothing run */
    static const char *const bad[][2] = {
        {"--rtol abc", "bench-petsc-compare.sh: invalid --rtol 'abc': a number between 0 and 1 (try --help)\n"},
        {"--rtol 1", "bench-petsc-compare.sh: invalid --rtol '1': a number between 0 and 1 (try --help)\n"},
        {"--solvers pcg,foo", "bench-petsc-compare.sh: invalid --solvers 'pcg,foo': 'foo' is not cg, pcg, pipecg, "
                              "bicgstab or pipebicgstab (try --help)\n"},
        {"--solvers pcg,", "bench-petsc-compare.sh: invalid --solvers 'pcg,': '' is not cg, pcg, pipecg, "
                           "bicgstab or pipebicgstab (try --help)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = petsc_compare(d, "", bad[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, bad[i][1]) && !*r.out, "[%s]: exit %d: %s%s", bad[i][0], r.rc,
                      r.out, r.err);
        tl_test_output_free(&r);
    }
}

/* The default matrices come from TL_DATA (../shared/data beside the
 * checkout): a fresh clone without it is the machine's lack, said with
 * what to do, exit 1 (before: "no such matrix file", exit 2); a named
 * file that is not there exits 1 too, as trilap-solve's missing matrix. */
TL_TEST(petsc_compare_default_matrices_need_tl_data)
{
    const char *d = tl_test_tmpdir();
    char want[900];
    tl_test_output r = tl_test_capture("TL_DATA=%s/none TL_BIN=%s scripts/bench-petsc-compare.sh", d, d);
    snprintf(want, sizeof want,
             "bench-petsc-compare.sh: %s/none/matrices/1138_bus.mtx: no such matrix file (set TL_DATA to the shared "
             "data folder, or name the matrices)\n",
             d);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "exit %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("TL_DATA=%s/none TL_BIN=%s scripts/bench-petsc-compare.sh %s/none.mtx", d, d, d);
    snprintf(want, sizeof want, "bench-petsc-compare.sh: %s/none.mtx: no such matrix file\n", d);
    TL_ASSERT_MSG(r.rc == 1 && !strcmp(r.err, want) && !*r.out, "exit %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(solver_log_roofline, knobs_summary_reads_this_runs_rows, knobs_summary_every_sweep_point, solver_log_roofline_of_the_loop, median_us_per_iter_reads_quoted_cells,
             solver_schedules_summary, roof_fit_fixed_and_proportional,
             roof_variants_side_by_side, roof_variants_refused, roof_failed_runs_and_reused_out, results_index_current_and_checked, results_index_tracked_folders_only,
             render_scripts_usage, failed_benchmarks_leave_no_folder, bench_out_not_a_folder_and_missing_launcher, solver_schedules_missing_launcher,
             slurm_templates_refused_runs_leave_no_folder,
             interrupted_benchmarks_leave_no_folder, interrupted_solver_schedules_leave_no_folder, bounded_steps_stop_on_a_signal, bounded_step_says_the_error_not_a_note,
             slurm_templates_nvls_off_unless_asked,
             slurm_templates_help_and_outside_a_job, slurm_array_tasks_keep_their_folders, slurm_array_failed_tasks_leave_no_out,
             slurm_array_killed_task_swept, slurm_killed_task_rows_kept, slurm_killed_task_of_another_cluster,
             bench_scripts_name_bad_counts, fdtd_summary_whole_or_nothing,
             gpu_benchmarks_not_built_exit_1, gpu_benchmarks_default_to_the_checkout, roof_summary_whole_or_nothing,
             gpu_benchmarks_say_why_no_triad, fdtd_benchmarks_say_why_a_step_failed,
             slurm_templates_modules_and_export_none, op_timer_and_multirank_refuse_bad_arguments,
             rerun_into_out_log_agrees_with_csv, failed_rerun_leaves_an_earlier_out_as_it_was,
             device_scripts_refuse_a_log_folder_that_is_a_file,
             bench_options_need_their_value,
             run_solver_schedules_bad_arguments_one_line, device_session_refuses_bad_arguments,
             summaries_in_a_comma_decimal_locale, tristream_rerun_into_a_traced_out,
             bench_kineto_reads_tl_data, bench_kineto_removes_its_scratch,
             run_tristream_srun_as_the_template, knobs_hardware_queues_one_knob, knobs_summary_without_a_figure_says_dash,
             solvers_protocol_host_dry_run, solvers_gpu_summary_with_a_comma_and_space_in_the_path,
             ncu_launches_of_a_cpml_step, ncu_readers_name_launches_alike, ncu_sass_ops_of_shell_and_interior,
             ncu_sass_stalls_of_shell_launch, ncu_raw_per_point_of_a_step,
             ncu_l2_excess_of_the_shell_box, cpml_builds_alternated, cpml_fabric_of_two_steps, cpml_ncu_files_under_out,
             cpml_table_whole_or_nothing,
             petsc_compare_failures_and_counts, petsc_compare_open_mpi_flags_only_to_open_mpi,
             petsc_compare_default_matrices_need_tl_data)
