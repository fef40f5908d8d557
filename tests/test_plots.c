/* The gnuplot figures and the demo: the plots/ scripts, driven by
 * scripts/render-plots.sh and scripts/demo.sh render valid PNG and PDF files
 * of non-trivial size from synthetic runs (and the committed H200 traces
 * when they exist). Skips without gnuplot (TL_HAVE_GNUPLOT=0). */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"
#include "tl_test_run.h"

static void need_gnuplot(void)
{
    if (!strcmp(tl_test_env("TL_HAVE_GNUPLOT", "1"), "0")) TL_SKIP("built without gnuplot (TL_HAVE_GNUPLOT=0)");
}

/* dir/name holding text, its folder made (the results folders the render
 * tests give --results) */
static void put(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    TL_ASSERT_EQ(tl_test_sh("mkdir -p '%s'", p), 0);
    *slash = '/';
    tl_test_write(p, text);
}

static void run_ok(const char *fmt, const char *a, const char *b, const char *c)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, fmt, a, b, c);
    TL_ASSERT_MSG(system(cmd) == 0, "failed: %s", cmd);
}

/* A file exists, starts with the format's magic bytes and is not a stub. */
static void check_figure(const char *path, long min_bytes)
{
    FILE *f = fopen(path, "rb");
    TL_ASSERT_MSG(f, "missing %s", path);
    unsigned char m[8] = {0};
    size_t got = fread(m, 1, 8, f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    TL_ASSERT_EQ(got, 8);
    if (strstr(path, ".png"))
        TL_ASSERT_MSG(!memcmp(m, "\x89PNG\r\n\x1a\n", 8), "%s is not a PNG", path);
    else
        TL_ASSERT_MSG(!memcmp(m, "%PDF-", 5), "%s is not a PDF", path);
    TL_ASSERT_MSG(n >= min_bytes, "%s: %ld bytes, expected at least %ld", path, n, min_bytes);
}

static void synth_runs(const char *parent)
{
    static const char *const v[][2] = {{"two-stream", "two-stream"}, {"three-naive", "naive"}, {"three-split", "split"}};
    mkdir(parent, 0755);
    for (int i = 0; i < 3; i++) {
        char dir[1024], n[8];
        snprintf(dir, sizeof dir, "%s/%s", parent, v[i][0]);
        snprintf(n, sizeof n, "%d", 30);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "%s/tests/helper_synth_trace '%s' %s 2 %s", tl_test_env("TL_BUILD", "build"), dir, v[i][1], n);
        TL_ASSERT_MSG(system(cmd) == 0, "failed: %s", cmd);
    }
}

TL_TEST(render_timeline_breakdown_sweep)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], out[512], p[1024];
    /* folders with a space in their names, as a laptop's often are */
    snprintf(res, sizeof res, "%s/my results", t);
    snprintf(out, sizeof out, "%s/my out", t);
    mkdir(res, 0755);
    snprintf(p, sizeof p, "%s/tristream", res);
    synth_runs(p);
    /* a ring-bytes sweep in the microbenchmark's results format */
    snprintf(p, sizeof p, "%s/sweep", res);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/sweep/results.csv", res);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "variant,nranks,rep,us_per_iter,allreduce_bytes,ring_bytes,daxpy_bytes\n");
    static const char *const vars[] = {"allreduce-only", "ring-only", "daxpy-only", "two-stream", "three-naive", "three-split"};
    for (long rb = 4096; rb <= 4194304; rb *= 4)
        for (int v = 0; v < 6; v++)
            for (int rep = 0; rep < 3; rep++) {
                double ring = 10 + rb / 25e3, t_us[] = {12, ring, 50, 14 + (ring > 50 ? ring : 50),
                                                       3 + (12 + ring > 50 ? 12 + ring : 50), 2 + (ring > 50 ? ring : 50)};
                fprintf(f, "%s,2,%d,%.3f,16,%ld,67108864\n", vars[v], rep, t_us[v] * (1 + 0.01 * rep), rb);
            }
    fclose(f);
    /* run from another folder, the folders given relative to it */
    char top[4096], bin[4096], in_t[8800];
    TL_ASSERT(getcwd(top, sizeof top) && realpath(tl_test_env("TL_BIN", "bin"), bin));
    snprintf(in_t, sizeof in_t, "cd '%s' && TL_BIN='%s'", t, bin);
    run_ok("%s '%s/scripts/render-plots.sh' --results 'my results' --out 'my out' > log%s 2>&1", in_t, top, "");
    static const char *const figs[] = {"tristream-timeline", "tristream-breakdown", "sweep-sweep-ring_bytes"};
    for (int i = 0; i < 3; i++)
        for (int e = 0; e < 2; e++) {
            snprintf(p, sizeof p, "%s/%s.%s", out, figs[i], e ? "pdf" : "png");
            check_figure(p, e ? 5000 : 10000);
        }
    /* a quote gnuplot would choke on: one line, before anything is drawn */
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out \"%s/o'q\"", res, t);
    TL_ASSERT_MSG(r.rc == 2 && strstr(r.err, "gnuplot cannot take a path with a quote") &&
                      tl_test_count(r.err, "\n") == 1,
                  "%s", r.err);
    tl_test_output_free(&r);
    /* the FDTD figures from another folder: the tree's committed results */
    run_ok("%s '%s/scripts/render-fdtd-plots.sh' --out fd > log%s 2>&1", in_t, top, "-fdtd");
    snprintf(p, sizeof p, "%s/fd/fdtd-energy.png", t);
    check_figure(p, 10000);
    /* snapshot steps the run has no slice for, or not numbers: one line
     * naming the slice or the step (were "undefined variable: STATS_min"
     * and "Non-numeric string found where a numeric expression was
     * expected") */
    static const char *const steps[][2] = {{"150 7", "fdtd-snapshots.gp: no slice "},
                                           {"150 2a", "fdtd-snapshots.gp: steps='150 2a': '2a' is not a step number"}};
    for (int i = 0; i < 2; i++) {
        r = tl_test_capture("FDTD_STEPS='%s' scripts/render-fdtd-plots.sh --out '%s/fd2'", steps[i][0], t);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, steps[i][1]), "rc %d: %s", r.rc, r.err);
        TL_ASSERT_MSG(i || strstr(r.err, "/p-000007.txt (the run wrote none at step 7)"), "%s", r.err);
        tl_test_output_free(&r);
    }
}

/* What render-plots.sh and render-fdtd-plots.sh refuse, and what they skip:
 * an option without its value was bash's 'unbound variable' (exit 1), an
 * --out that is a file mkdir's error after the first figures, a results
 * CSV with a header and no rows a gnuplot error (exit 1, every later
 * figure not drawn) that left a zero-byte PNG. */
TL_TEST(render_refuses_and_skips)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], out[512], p[1024];
    snprintf(res, sizeof res, "%s/res", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(res, 0755);
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("scripts/render-%s.sh --out", i ? "fdtd-plots" : "plots");
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, "--out needs a value"), "rc %d: %s", r.rc, r.err);
        tl_test_output_free(&r);
    }
    snprintf(p, sizeof p, "%s/a-file", t);
    tl_test_write(p, "x\n");
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("scripts/render-%s.sh %s '%s' --out '%s/a-file/sub'",
                                           i ? "fdtd-plots" : "plots", i ? "--cpu" : "--results", res, t);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "a-file is a file, not a folder"), "rc %d: %s", r.rc,
                      r.err);
        tl_test_output_free(&r);
    }
    /* a folder that cannot be made (/proc takes none, even from root): said
     * before anything is drawn (was mkdir's own line after the first figure) */
    for (int i = 0; i < 2; i++) {
        tl_test_output r = tl_test_capture("scripts/render-%s.sh %s '%s' --out /proc/trilap-no/out",
                                           i ? "fdtd-plots" : "plots", i ? "--cpu" : "--results", res);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "--out /proc/trilap-no/out: cannot be made ("), "rc %d: %s",
                      r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* nothing to draw: the folders made for --out are gone again */
    {
        tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/new/deep'", res, t);
        TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
        tl_test_output_free(&r);
        snprintf(p, sizeof p, "%s/new", t);
        TL_ASSERT_MSG(access(p, F_OK) != 0, "%s left behind", p);
    }
    /* an interrupted run's results (the header alone) beside a whole one */
    snprintf(p, sizeof p, "%s/empty.csv", res);
    tl_test_write(p, "# program: trilap-bench tristream\nvariant,nranks,rep,us_per_iter\n");
    snprintf(p, sizeof p, "%s/comm.csv", res);
    tl_test_write(p, "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,16,11\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s'", res, out);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_one_line(r.err, "empty.csv: a header without rows; skipped"), "rc %d: %s",
                  r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/comm.png", out);
    check_figure(p, 10000);
    snprintf(p, sizeof p, "%s/empty-variants.png", out);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s drawn from no rows", p);
    /* rows gnuplot cannot draw (a size that is no number; a time that is
     * none is left out before, render_leaves_out_rows_without_number): one
     * line, and no figure, whole or part */
    snprintf(p, sizeof p, "%s/comm.csv", res);
    tl_test_write(p, "op,comm,size_bytes,time_us\nallreduce,world,x,5\n");
    snprintf(p, sizeof p, "%s/out2", t);
    r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s'", res, p);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "gnuplot could not draw") &&
                      tl_test_count(r.err, "comm.gp") == 2,
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("ls -A '%s'", p);
    TL_ASSERT_MSG(r.out[0] == '\0', "left in %s: %s", p, r.out);
    tl_test_output_free(&r);
}

/* A tristream results file whose environment values are quoted (RFC 4180,
 * as trilap-bench writes a value with a comma): the configurations are told
 * apart by the whole value. awk -F, cut it at the comma: the label read
 * 'launch="a' and any column after it was shifted. */
TL_TEST(render_quoted_fields)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], out[512], p[1024];
    snprintf(res, sizeof res, "%s/res", t);
    snprintf(out, sizeof out, "%s/out", t);
    mkdir(res, 0755);
    snprintf(p, sizeof p, "%s/knobs.csv", res);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "variant,nranks,rep,us_per_iter,nccl_launch_mode,trace_mode,wrong\n");
    for (int rep = 0; rep < 3; rep++) {
        fprintf(f, "three-split,2,%d,%d,unset,off,0\n", rep, 50 + rep);
        fprintf(f, "three-split,2,%d,%d,\"a,\"\"b\"\"\",cupti,0\n", rep, 60 + rep);
    }
    fclose(f);
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s'", res, out);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/knobs-variants.csv", out);
    char *csv = tl_test_read(p);
    /* the second configuration: both knobs, the launch mode whole (its
     * comma shown as ';', which gnuplot does not cut a label at) */
    TL_ASSERT_MSG(strstr(csv, "\nbase,51,50,52\n") && strstr(csv, "\nlaunch=a;\"b\"+trace=cupti,61,60,62\n"),
                  "%s", csv);
    free(csv);
    snprintf(p, sizeof p, "%s/knobs-variants.png", out);
    check_figure(p, 10000);
}

/* TL_GNUPLOT names the gnuplot the renderers run, as demo.sh takes it
 * (and make plots passes the one make found): before, both called the
 * one on PATH whatever was named. */
TL_TEST(render_takes_tl_gnuplot)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], p[1024];
    snprintf(res, sizeof res, "%s/res", t);
    mkdir(res, 0755);
    snprintf(p, sizeof p, "%s/knobs.csv", res);
    tl_test_write(p, "variant,nranks,rep,us_per_iter,trace_mode,wrong\nthree-split,2,0,50,off,0\n"
                     "three-split,2,1,51,off,0\nthree-split,2,0,60,cupti,0\nthree-split,2,1,61,cupti,0\n");
    snprintf(p, sizeof p, "%s/gp", t); /* a gnuplot that says it ran, then runs the real one */
    tl_test_write(p, "#!/bin/sh\necho called >> \"$(dirname \"$0\")/gp.log\"\nexec gnuplot \"$@\"\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    tl_test_output r = tl_test_capture("TL_GNUPLOT='%s' scripts/render-plots.sh --results '%s' --out '%s/out'", p, res, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/gp.log", t);
    char *log = tl_test_read(p);
    TL_ASSERT_MSG(tl_test_count(log, "called\n") >= 2, "%s", log); /* the PNG and the PDF */
    free(log);
    static const char *const scripts[] = {"render-plots.sh --results x --out y", "render-fdtd-plots.sh --out y"};
    char top[4096];
    TL_ASSERT(getcwd(top, sizeof top));
    for (int k = 0; k < 2; k++) {
        r = tl_test_capture("cd '%s' && TL_GNUPLOT=/no/such/gnuplot '%s'/scripts/%s", t, top, scripts[k]);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "/no/such/gnuplot not found (install gnuplot-nox, or set "
                                                          "TL_GNUPLOT)"),
                      "rc %d: %s", r.rc, r.err);
        tl_test_output_free(&r);
    }
}

/* t/gp: a stand-in gnuplot (TL_GNUPLOT) that writes an empty figure where
 * its -e names out='...': for a test of what the renderers decide and say,
 * not of the drawing (the other tests draw with gnuplot). */
static void empty_figure_gnuplot(const char *t)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/gp", t);
    tl_test_write(p, "#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -e) e=$2; shift 2 ;; *) shift ;; esac; done\n"
                     "o=${e##*out=\\'}; : > \"${o%%\\'*}\"\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
}

/* The check runs' folders of --results (wave3-checks-*, device-session-*,
 * device-logs) are left out, said in one line, unless --all (make plots
 * PLOTS_ALL=1); a --results inside one renders it whole. Before: make
 * plots drew a STREAM chart per stream.csv of results/wave3-checks-h200,
 * 1,629 files in 6 min 25 s. A stand-in gnuplot (TL_GNUPLOT) writes an
 * empty figure: the selection is under test, not the drawing; the trace
 * of the check run is no trace, so drawing it would fail. */
TL_TEST(render_leaves_out_check_runs)
{
    const char *t = tl_test_tmpdir();
    char p[1024];
    static const char *const csvs[] = {"stream-x/stream.csv", "wave3-checks-y/s1/stream.csv",
                                       "device-session-abc/bench/stream.csv", "device-logs/stream.csv"};
    for (size_t i = 0; i < sizeof csvs / sizeof csvs[0]; i++) {
        snprintf(p, sizeof p, "%s/results/%s", t, csvs[i]);
        TL_ASSERT_EQ(tl_test_sh("mkdir -p \"$(dirname '%s')\"", p), 0);
        tl_test_write(p, "function,bandwidth_gbs,rank\ntriad,1,0\n");
    }
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/results/wave3-checks-y/run/two-stream && echo garbage > "
                            "%s/results/wave3-checks-y/run/two-stream/trace.rank0.csv",
                            t, t),
                 0);
    empty_figure_gnuplot(t);
    tl_test_output r = tl_test_capture("TL_GNUPLOT=%s/gp scripts/render-plots.sh --results %s/results/ --out %s/out", t,
                                       t, t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_count(r.err, "\n") == 1 &&
                      strstr(r.err, "render-plots.sh: 3 folder(s) of check runs left out (wave3-checks-y "
                                    "device-session-abc device-logs); --all renders them\n"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test \"$(ls %s/out | tr '\\n' ' ')\" = 'sources.txt stream-x-stream.csv stream-x-stream.pdf "
                            "stream-x-stream.png '",
                            t),
                 0);
    TL_ASSERT_EQ(tl_test_sh("rm -r %s/results/wave3-checks-y/run", t), 0);
    /* a check run asked for by name */
    r = tl_test_capture("TL_GNUPLOT=%s/gp scripts/render-plots.sh --results %s/results/wave3-checks-y --out %s/one "
                        "2>&1 | grep -c 'left out'",
                        t, t, t);
    TL_ASSERT_MSG(!strcmp(r.out, "0\n"), "%s", r.out);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("test -e %s/one/s1-stream.png", t), 0);
    r = tl_test_capture("TL_GNUPLOT=%s/gp scripts/render-plots.sh --results %s/results --out %s/all --all", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && !strstr(r.err, "left out"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh("cd %s/all && test -e stream-x-stream.png && test -e wave3-checks-y-s1-stream.png && "
                            "test -e device-session-abc-bench-stream.png && test -e device-logs-stream.png",
                            t),
                 0);
    /* make plots passes --all with PLOTS_ALL=1 alone */
    r = tl_test_capture("{ make -n plots | grep render-plots.sh; make -n plots PLOTS_ALL=1 | grep render-plots.sh; }");
    TL_ASSERT_MSG(tl_test_count(r.out, "render-plots.sh --results results") == 2 &&
                      tl_test_count(r.out, " --all\n") == 1 && strstr(r.out, " --all\n") > strchr(r.out, '\n'),
                  "%s", r.out);
    tl_test_output_free(&r);
}

/* The byte axes and the keys, as text (the same figure replotted on
 * gnuplot's dumb terminal): gnuplot's "%.0b %BB" labelled 32 B "32   B"
 * and 1 KiB "1 kiB", the sweep's key listed three-naive and the ideal bound
 * for a sweep that had neither, and comm's the split communicator's lines
 * for a --comm world run. */
TL_TEST(byte_axes_and_sweep_key)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/comm.csv", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "op,comm,size_bytes,time_us\n");
    for (long b = 8; b <= (1L << 27); b *= 2)
        fprintf(f, "allreduce,world,%ld,%g\nsendrecv,world,%ld,%g\n", b, 10 + b / 3e5, b, 11 + b / 3e5);
    fclose(f);
    tl_test_output r = tl_test_capture("gnuplot -e \"file='%s/comm.csv'; out='%s/comm.png'\" plots/comm.gp "
                                       "-e 'set terminal dumb size 160,40; set output; replot'", t, t);
    /* world rows only (--comm world): no key for the split communicator */
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "8 B") && strstr(r.out, "4 KiB") && strstr(r.out, "128 MiB") &&
                      !strstr(r.out, "kiB") && !strstr(r.out, "  B ") &&
                      strstr(r.out, "allreduce on the world communicator") &&
                      strstr(r.out, "sendrecv on the world communicator") && !strstr(r.out, "split communicator"),
                  "rc %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    /* a sweep of two schedules without the parts: no bound, no three-naive */
    snprintf(p, sizeof p, "%s/sweep.csv", t);
    f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "ring_bytes,variant,nranks,reps,median_us,min_us,max_us,ideal_us,sum_parts_us,efficiency_pct\n");
    for (long b = 8192; b <= 4194304; b *= 8)
        fprintf(f, "%ld,two-stream,2,3,66,65,67,NaN,NaN,NaN\n%ld,three-split,2,3,58,57,59,NaN,NaN,NaN\n", b, b);
    fclose(f);
    r = tl_test_capture("gnuplot -e \"file='%s/sweep.csv'; xcol='ring_bytes'; out='%s/sweep.png'\" plots/sweep.gp "
                        "-e 'set terminal dumb size 160,40; set output; replot'", t, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "two-stream") && strstr(r.out, "three-split") &&
                      !strstr(r.out, "three-naive") && !strstr(r.out, "ideal bound") && strstr(r.out, "8 KiB") &&
                      strstr(r.out, "4 MiB"),
                  "rc %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

/* t/bin/gnuplot: a stand-in that logs its arguments to t/gnuplot.log and
 * runs the real one (PATH='t/bin':... reads what a script gave gnuplot) */
static void logging_gnuplot(const char *t)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/bin", t);
    mkdir(p, 0755);
    tl_test_output w = tl_test_capture("command -v gnuplot");
    TL_ASSERT(w.rc == 0 && w.out[0]);
    w.out[strcspn(w.out, "\n")] = '\0';
    snprintf(p, sizeof p, "%s/bin/gnuplot", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s/gnuplot.log'\nexec '%s' \"$@\"\n", t, w.out);
    fclose(f);
    chmod(p, 0755);
    tl_test_output_free(&w);
}

/* STREAM results of the host (stream --host: device "host" in every row)
 * are not a GPU's: the bars were titled "GPU memory bandwidth, STREAM
 * kernels", and the error bars' "min..max over repetitions" were the
 * slowest and fastest timed calls. gnuplot's arguments read through a
 * stand-in that logs them and runs the real one. */
TL_TEST(stream_bars_say_host_or_gpu)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    logging_gnuplot(t);
    char p[1024];
    FILE *f;
    static const char *const dev[] = {"host", "NVIDIA H200 (device 0  PCI 0000:00:06)"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/res%d", t, i);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/res%d/stream.csv", t, i);
        f = fopen(p, "w");
        TL_ASSERT(f);
        fprintf(f, "function,rank,device,count,bytes,iters,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong\n");
        fprintf(f, "copy,0,%s,1048576,16777216,5,71.099,0.235970,0.279054,0.253111,0\n", dev[i]);
        fprintf(f, "triad,0,%s,1048576,25165824,5,73.317,0.343249,0.402317,0.372560,0\n", dev[i]);
        fclose(f);
        snprintf(p, sizeof p, "%s/gnuplot.log", t);
        unlink(p);
        tl_test_output r = tl_test_capture("PATH='%s/bin':\"$PATH\" scripts/render-plots.sh --results '%s/res%d' "
                                           "--out '%s/out%d'", t, t, i, t, i);
        TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
        tl_test_output_free(&r);
        char *log = tl_test_read(p);
        TL_ASSERT_MSG(strstr(log, i ? "title='GPU memory bandwidth, STREAM kernels" :
                                      "title='host memory bandwidth, STREAM loops (OpenMP)") &&
                          !strstr(log, i ? "host memory" : "GPU memory") &&
                          strstr(log, "ylabel='GB/s (best call; slowest..fastest call)'"),
                      "%s", log);
        free(log);
        snprintf(p, sizeof p, "%s/out%d/stream.png", t, i);
        check_figure(p, 10000);
    }
}

/* The figure's name: without `out` each script failed as "common.gp line
 * 9: undefined variable: out", and out='fig.svg' wrote a PNG named
 * fig.svg (the terminal was PDF only where the name held ".pdf"). One
 * line, exit 2, nothing written. */
TL_TEST(figure_name_checked)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    static const char *const gp[][2] = {{"bars", "file='x.csv'; series='a'"}, {"breakdown", "file='x.csv'"},
                                        {"comm", "file='x.csv'"},           {"sweep", "file='x.csv'"},
                                        {"timeline", "files='x.csv'"},      {"fdtd-energy", "file='x.csv'"}};
    for (size_t i = 0; i < sizeof gp / sizeof gp[0]; i++) {
        tl_test_output r = tl_test_capture("gnuplot -e \"%s\" plots/%s.gp", gp[i][1], gp[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, "no out: set out='x.png' or out='x.pdf'"), "%s: rc %d: %s",
                      gp[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        r = tl_test_capture("gnuplot -e \"%s; out='%s/fig.svg'\" plots/%s.gp", gp[i][1], t, gp[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, "fig.svg': the figure's name ends in .png or .pdf"),
                      "%s: rc %d: %s", gp[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        char p[1024];
        snprintf(p, sizeof p, "%s/fig.svg", t);
        TL_ASSERT_MSG(access(p, F_OK) != 0, "%s wrote %s", gp[i][0], p);
    }
}

static void edge_ink(const char *png, int *right, int *bottom);

/* A measured figure names its hardware: the titles of render-plots.sh
 * named only the source's path. The GPUs of the manifest.txt beside the
 * source (its gpu.rank<N> lines; host ranks, "none", left out), also for a
 * file drawn without its wrong rows (drawn from a scratch copy). */
TL_TEST(render_titles_name_hardware)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    logging_gnuplot(t);
    char p[1024];
    snprintf(p, sizeof p, "%s/res", t);
    const char *gpus = "gpu.rank0: NVIDIA H200 (device 0, PCI 0000:00:06)\n"
                       "gpu.rank1: NVIDIA H200 (device 1, PCI 0000:00:07)\n";
    put(p, "comm/manifest.txt", gpus);
    put(p, "comm/comm.csv", "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,1024,11\n"
                            "allreduce,world,1048576,40\n");
    put(p, "knobs/manifest.txt", gpus);
    put(p, "knobs/knobs.csv", "variant,nranks,rep,us_per_iter,nccl_launch_mode,wrong\n"
                              "three-split,2,0,50,unset,0\nthree-split,2,1,999,unset,4\n");
    put(p, "host/manifest.txt", "gpu.rank0: none (a host-only rank)\n");
    put(p, "host/stream.csv", "function,rank,device,count,bytes,iters,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong\n"
                              "triad,0,host,1048576,25165824,5,73.3,0.34,0.40,0.37,0\n");
    tl_test_output r = tl_test_capture("PATH='%s/bin':\"$PATH\" scripts/render-plots.sh --results '%s' --out '%s/out'", t,
                                       p, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/gnuplot.log", t);
    char *log = tl_test_read(p);
    TL_ASSERT_MSG(strstr(log, "comm/comm.csv, on 2 × NVIDIA H200)'") && strstr(log, "knobs/knobs.csv, on 2 × NVIDIA H200)'") &&
                      strstr(log, "host/stream.csv)'") && !strstr(log, "none"),
                  "%s", log);
    free(log);
}

/* A CSV a script cannot draw: run as the documents write them (REPRODUCE.md
 * section 12's model figures), each script opened its figure first, then
 * printed a screen of gnuplot warnings and left the figure, 0 bytes,
 * under its final name. One line naming the file and the reason, exit 1,
 * no file: a missing CSV, one without a column the script reads, one with
 * a header and no rows. */
TL_TEST(gnuplot_input_checked)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/cols.csv", t);
    tl_test_write(p, "# a comment line, as trilap-fdtd writes\nlabel,zzz\nx,1\n");
    snprintf(p, sizeof p, "%s/empty.csv", t);
    tl_test_write(p, "");
    static const char *const gp[][2] = {
        {"bars", "series='a'; file="},        {"breakdown", "file="},
        {"comm", "file="},                    {"sweep", "file="},
        {"timeline", "files="},               {"fdtd-energy", "file="},
        {"model-scaling", "file="},           {"model-validation", "a='paper_s'; b='predicted_s'; file="},
        {"solver-bars", "file="}};
    static const char *const bad[][2] = {
        {"none.csv", "none.csv: no such file"}, {"cols.csv", "cols.csv: no column "}, {"empty.csv", "empty.csv: empty"}};
    for (size_t i = 0; i < sizeof gp / sizeof gp[0]; i++) {
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            tl_test_output r = tl_test_capture("gnuplot -e \"%s'%s/%s'; out='%s/fig.png'\" plots/%s.gp", gp[i][1], t,
                                               bad[k][0], t, gp[i][0]);
            char want[1400];
            snprintf(want, sizeof want, "%s.gp: %s/%s", gp[i][0], t, bad[k][1]);
            TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "%s, %s: rc %d: %s", gp[i][0], bad[k][0], r.rc,
                          r.err);
            tl_test_output_free(&r);
            snprintf(p, sizeof p, "%s/fig.png", t);
            TL_ASSERT_MSG(access(p, F_OK) != 0, "%s left %s for %s", gp[i][0], p, bad[k][0]);
        }
    }
    /* the header without rows */
    snprintf(p, sizeof p, "%s/hdr.csv", t);
    tl_test_write(p, "platform,gpus,schedule,iter_us,speedup_vs_two_stream\n");
    tl_test_output r = tl_test_capture("gnuplot -e \"file='%s'; out='%s/fig.png'\" plots/model-scaling.gp", p, t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "hdr.csv: no rows under its header"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/fig.png", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "left %s", p);
}

/* A NaN or an empty cell where a figure needs a number drew nothing and
 * left a 0-byte figure under its final name after a screen of gnuplot
 * (comm.gp: "all points y value undefined"; bars.gp of NaN only: "No valid
 * points in histogram"), or, in model-scaling.gp, a bar short of its group
 * without a word; a one-row model-scaling file without a three-split row
 * crashed gnuplot (segfault, 0-byte figure). */
TL_TEST(gnuplot_cells_checked)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    static const char *const gp[][4] = {
        {"model-scaling", "", "gpus,schedule,iter_us,speedup_vs_two_stream\n4,two-stream,%s,1.0\n", "iter_us"},
        {"comm", "", "op,comm,size_bytes,time_us\nallreduce,world,8,%s\n", "time_us"},
        {"fdtd-energy", "", "step,time_s,energy_cpml,energy_none\n1,0.5,%s,1\n", "energy_cpml"},
        {"model-validation", "label='v'; a='m'; b='p'; ", "v,m,p,error_pct\nx,1,%s,5\n", "p"},
        {"sweep", "", "variant,ring_bytes,median_us,min_us,max_us,ideal_us\nthree-split,%s,1,1,1,NaN\n", "ring_bytes"}};
    static const char *const cell[] = {"NaN", ""};
    char p[1024], body[512], want[1400];
    for (size_t i = 0; i < sizeof gp / sizeof gp[0]; i++) {
        for (size_t k = 0; k < sizeof cell / sizeof cell[0]; k++) {
            snprintf(p, sizeof p, "%s/a b,c.csv", t);
            snprintf(body, sizeof body, gp[i][2], cell[k]);
            tl_test_write(p, body);
            tl_test_output r = tl_test_capture("gnuplot -e \"%sfile='%s'; out='%s/fig.png'\" plots/%s.gp", gp[i][1], p,
                                               t, gp[i][0]);
            snprintf(want, sizeof want, "%s.gp: %s: line 2: column %s is '%s', not a number", gp[i][0], p, gp[i][3],
                     cell[k]);
            TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "%s, '%s': rc %d: %s", gp[i][0], cell[k], r.rc,
                          r.err);
            tl_test_output_free(&r);
            snprintf(p, sizeof p, "%s/fig.png", t);
            TL_ASSERT_MSG(access(p, F_OK) != 0, "%s left %s for '%s'", gp[i][0], p, cell[k]);
        }
    }
    /* bars: a configuration without a variant is NaN there and drawn; a
     * file of NaN only is refused */
    snprintf(p, sizeof p, "%s/bars.csv", t);
    tl_test_write(p, "label,a,a_min,a_max\nx,NaN,NaN,NaN\n");
    tl_test_output r = tl_test_capture("gnuplot -e \"series='a'; file='%s'; out='%s/fig.png'\" plots/bars.gp", p, t);
    snprintf(want, sizeof want, "bars.gp: %s: no number in column(s) a in any row", p);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/fig.png", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "bars.gp left %s", p);
    snprintf(p, sizeof p, "%s/bars.csv", t);
    tl_test_write(p, "label,a,a_min,a_max,b,b_min,b_max\nx,NaN,NaN,NaN,2,1,3\ny,1,1,1,2,1,3\n");
    r = tl_test_capture("gnuplot -e \"series='a b'; file='%s'; out='%s/fig.png'\" plots/bars.gp", p, t);
    TL_ASSERT_MSG(r.rc == 0, "bars with one NaN variant: rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    /* one row, no three-split: drawn, one bar */
    snprintf(p, sizeof p, "%s/one.csv", t);
    tl_test_write(p, "gpus,schedule,iter_us,speedup_vs_two_stream\n4,two-stream,772.7,1.0\n");
    r = tl_test_capture("gnuplot -e \"file='%s'; out='%s/one.png'\" plots/model-scaling.gp", p, t);
    TL_ASSERT_MSG(r.rc == 0, "model-scaling, one row: rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/one.png", t);
    struct stat st;
    TL_ASSERT_MSG(stat(p, &st) == 0 && st.st_size > 1000, "model-scaling, one row: no figure %s", p);
    /* a prediction without two-stream: its speedups are empty (trilap-model
     * writes them so since qa-model11; NaN before), the bars drawn without
     * their labels; and a file where only sync's speedup is missing */
    static const char *const nots[] = {
        "gpus,schedule,iter_us,speedup_vs_two_stream\n4,three-split,40.2,%s\n4,three-naive,53.0,%s\n"
        "8,three-split,30.1,%s\n8,three-naive,41.5,%s\n",
        "gpus,schedule,iter_us,speedup_vs_two_stream\n4,sync,52.1,%s\n4,two-stream,50.0,1.0000\n"
        "4,three-split,40.2,1.2438\n8,sync,41.0,%s\n8,two-stream,40.0,1.0000\n8,three-split,30.1,1.3289\n"};
    static const char *const missing[] = {"", "NaN"};
    for (size_t f = 0; f < sizeof nots / sizeof nots[0]; f++)
        for (size_t m = 0; m < sizeof missing / sizeof missing[0]; m++) {
            const char *x = missing[m];
            char rows[512];
            snprintf(rows, sizeof rows, nots[f], x, x, x, x);
            snprintf(p, sizeof p, "%s/nots.csv", t);
            tl_test_write(p, rows);
            r = tl_test_capture("gnuplot -e \"file='%s'; out='%s/nots.png'\" plots/model-scaling.gp", p, t);
            TL_ASSERT_MSG(r.rc == 0 && !r.err[0], "model-scaling, speedups '%s' where missing: rc %d: %s\n%s", x,
                          r.rc, r.err, rows);
            tl_test_output_free(&r);
            snprintf(p, sizeof p, "%s/nots.png", t);
            TL_ASSERT_MSG(stat(p, &st) == 0 && st.st_size > 1000, "model-scaling, speedups '%s': no figure %s", x, p);
            remove(p);
        }
}

/* model-validation.gp printed every row's error_pct above its prediction:
 * the fitted three-split, the daxpy-only input and the FDTD calibration
 * rows read "+0.0%", predictions that hit. Those rows carry their role;
 * and the last slanted label ran off the right edge ("1024 peer-4gpu s="). */
TL_TEST(model_validation_roles_and_labels)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/v.csv", t);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "variant,measured_us,predicted_us,error_pct,role\n"
               "ring-only,10.870,11.428,5.13,predicted\n"
               "daxpy-only,49.393,49.393,0.00,input (one-GPU kernel time)\n"
               "three-split,58.43,58.43,0.00,fitted (nccl_rate)\n");
    for (int i = 0; i < 30; i++) /* narrow groups, as fdtd-paper2.csv's 33 */
        fprintf(f, "r%d,1,1.1,10.00,prediction\n", i);
    fprintf(f, "1024 peer-4gpu s=1 and more,20,21,5.00,predicted\n");
    fclose(f);
    tl_test_output r = tl_test_capture("gnuplot -e \"file='%s'; label='variant'; a='measured_us'; b='predicted_us'; "
                                       "out='%s/v.png'\" plots/model-validation.gp "
                                       "-e 'set terminal dumb size 160,40; set output; replot'", p, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "+5.1%") && strstr(r.out, "input") && strstr(r.out, "fitted") &&
                      !strstr(r.out, "+0.0%"),
                  "rc %d:\n%s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/v.png", t);
    check_figure(p, 10000);
    int right = -1, bottom = -1;
    edge_ink(p, &right, &bottom);
    TL_ASSERT_MSG(right == 0, "%s: a label cut: %d dark pixels in the last column", p, right);
}

/* The FDTD pencil timeline is measured: its title named no hardware ("GPU
 * activity per lane and rank" only). The GPU of the runs' manifest. */
TL_TEST(fdtd_timeline_names_gpu)
{
    need_gnuplot();
    if (access("results/fdtd-h200/bench/manifest.txt", F_OK) != 0) TL_SKIP("no results/fdtd-h200 in this tree");
    const char *t = tl_test_tmpdir();
    /* the subtitle render-fdtd-plots.sh gave gnuplot, through a stand-in that logs it */
    logging_gnuplot(t);
    char p[1024];
    tl_test_output r = tl_test_capture("PATH='%s/bin':\"$PATH\" TL_BIN=%s scripts/render-fdtd-plots.sh --out '%s/out2'", t,
                        tl_test_env("TL_BIN", "bin"), t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/gnuplot.log", t);
    char *log = tl_test_read(p);
    TL_ASSERT_MSG(strstr(log, "subtitle='pencil-yz, rank 0, steps 8-9, on NVIDIA H200 (results/fdtd-h200)'"), "%s", log);
    free(log);
}

/* The timelines' window is --iter-range A:B, as trilap-analyze and the
 * README's one vocabulary name it (--iters counts iterations): the
 * script took only --iters A:B, and a bad value reached trilap-analyze
 * after the first folder was announced, its error naming an option the
 * user had not typed. --iters stays for a release, with a note. */
TL_TEST(render_iter_range)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], p[1024];
    snprintf(res, sizeof res, "%s/res", t);
    mkdir(res, 0755);
    snprintf(p, sizeof p, "%s/run", res);
    synth_runs(p);
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/o1' --iter-range 5:7", res, t);
    TL_ASSERT_MSG(r.rc == 0 && !strstr(r.err, "note"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/o1/run-timeline.png", t);
    check_figure(p, 10000);
    r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/o2' --iters 5:7", res, t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_one_line(r.err, "render-plots.sh: note: --iters is now --iter-range"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/o3' --iter-range abc", res, t);
    TL_ASSERT_MSG(r.rc == 2 && !r.out[0] &&
                      tl_test_one_line(r.err, "render-plots.sh: invalid --iter-range 'abc': expected A:B, A: or :B"),
                  "rc %d: %s%s", r.rc, r.out, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/o3", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s made for a refused run", p);
}

/* A row whose run failed its own check (wrong > 0) is no measurement: the
 * figures took it as one (a three-split repetition of 999 us with 4 wrong
 * values made the median 52.5, the bar reach 999). Drawn without it, and
 * said; a file of failed rows only is skipped. */
TL_TEST(render_leaves_out_wrong_rows)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    put(t, "res/knobs.csv", "variant,nranks,rep,us_per_iter,nccl_launch_mode,wrong\n"
                            "three-split,2,0,50,unset,0\nthree-split,2,1,51,unset,0\nthree-split,2,2,52,unset,0\n"
                            "three-split,2,3,999,unset,4\n");
    put(t, "res/stream.csv", "function,rank,device,count,bytes,iters,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong\n"
                             "copy,0,host,1024,16384,5,14.9,0.0011,0.0012,0.0011,3\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t);
    TL_ASSERT_MSG(r.rc == 0 &&
                      strstr(r.err, "knobs.csv: drawn without the 1 row(s) whose run failed its own check (wrong > 0)\n") &&
                      strstr(r.err, "stream.csv: every row failed its own check (wrong > 0); skipped\n") &&
                      tl_test_count(r.err, "\n") == 2,
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/out/knobs-variants.csv", t);
    char *csv = tl_test_read(p);
    TL_ASSERT_MSG(strstr(csv, "\nres,51,50,52\n"), "%s", csv);
    free(csv);
    snprintf(p, sizeof p, "%s/out/stream.png", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s drawn from failed rows", p);
}

/* A run folder or results file with a quote in its name: gnuplot takes
 * paths inside quoted strings, and one such file stopped the whole
 * rendering ("gnuplot could not draw ... unexpected or unrecognized
 * token", exit 1) with every later figure undrawn. Now each is skipped
 * with a note and the others are drawn. */
TL_TEST(render_skips_quoted_names)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/res", t);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/res/the \"run\"", t);
    synth_runs(p);
    snprintf(p, sizeof p, "%s/res/a", t);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/res/a/it's.csv", t);
    tl_test_write(p, "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,16,11\n");
    snprintf(p, sizeof p, "%s/res/a/z.csv", t);
    tl_test_write(p, "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,16,11\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results \"%s/res\" --out \"%s/out\"", t, t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_count(r.err, "gnuplot cannot take a path with a quote in it; skipped") == 2 &&
                      strstr(r.err, "/res/the \"run\": ") && strstr(r.err, "/res/a/it's.csv: ") &&
                      tl_test_count(r.err, "\n") == 2,
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/out/a-z.png", t);
    check_figure(p, 10000);
    r = tl_test_capture("ls \"%s/out\"", t);
    TL_ASSERT_MSG(!strstr(r.out, "it's") && !strstr(r.out, "run"), "%s", r.out);
    tl_test_output_free(&r);
}

/* Figures are named from their source's path: a-b/x.csv and a/b-x.csv are
 * both a-b-x, and the second replaced the first's figure and CSV without a
 * word. The first keeps it, the second is skipped with a note. */
TL_TEST(render_name_clash)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    static const char *const dirs[] = {"res", "res/a", "res/a-b"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", t, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/res/a-b/x.csv", t);
    tl_test_write(p, "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,16,11\n");
    snprintf(p, sizeof p, "%s/res/a/b-x.csv", t);
    tl_test_write(p, "op,comm,size_bytes,time_us\nsendrecv,split,8,70\nsendrecv,split,16,71\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_one_line(r.err, "res/a/b-x.csv: its figure would be a-b-x, as that of ") &&
                      strstr(r.err, "res/a-b/x.csv; skipped (rename one)"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/out/a-b-x.png", t);
    check_figure(p, 10000);
}

TL_TEST(gnuplot_script_needs_input)
{
    need_gnuplot();
    /* a script run without its input says what it needs and fails */
    TL_ASSERT(system("gnuplot -e \"out='/dev/null'\" plots/timeline.gp > /dev/null 2>&1") != 0);
}

/* The demos' solver part on gen:poisson7:16, not the no-GPU default 64:
 * these tests read the figures, not its times (1.7 s of CPU a demo). */
#define DEMO_SMALL_SOLVER "--solver-n 16"

TL_TEST(demo_from_recorded_runs)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char runs[512], out[512], p[1024];
    snprintf(runs, sizeof runs, "%s/runs", t);
    snprintf(out, sizeof out, "%s/demo", t);
    synth_runs(runs);
    run_ok("scripts/demo.sh --from %s --out %s " DEMO_SMALL_SOLVER " > %s/log 2>&1", runs, out, t);
    snprintf(p, sizeof p, "%s/report.txt", out);
    {
        FILE *f = fopen(p, "r");
        TL_ASSERT_MSG(f, "no %s", p);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        TL_ASSERT(strstr(text, "source: recorded trace"));
        char *naive = strstr(text, "== three-naive"), *split = strstr(text, "== three-split");
        TL_ASSERT(naive && split && naive < split);
        char *ser = strstr(naive, "[serialised-communicators]");
        TL_ASSERT_MSG(ser && ser < split, "no serialisation finding for three-naive:\n%s", text);
        TL_ASSERT_MSG(!strstr(split, "FINDING"), "three-split has a finding:\n%s", text);
        TL_ASSERT(strstr(split, "no lost overlap found"));
    }
    static const char *const figs[] = {"timeline.png", "timeline.pdf", "breakdown.png", "breakdown.pdf"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", out, figs[i]);
        check_figure(p, strstr(figs[i], "pdf") ? 5000 : 10000);
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    TL_ASSERT_MSG(f, "no %s", path);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Whether text has a line that starts with head and ends with tail */
static int has_row(const char *text, const char *head, const char *tail)
{
    size_t nh = strlen(head), nt = strlen(tail);
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n >= nh + nt && strncmp(l, head, nh) == 0 && strncmp(l + n - nt, tail, nt) == 0) return 1;
        if (!e) break;
        l = e + 1;
    }
    return 0;
}

/* The breakdown figure's second marker, the untraced median of each run
 * from the results CSV beside the traces (scripts/timed-column.awk): a
 * last column timed_us, NaN for a run the CSV has no row of */
TL_TEST(render_adds_untraced_medians)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/res", t);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/res/tri", t);
    synth_runs(p);
    snprintf(p, sizeof p, "%s/res/tri/tristream.csv", t);
    tl_test_write(p, "variant,nranks,rep,us_per_iter\ntwo-stream,2,0,100\ntwo-stream,2,1,102\nthree-naive,2,0,90\n"
                     "three-naive,2,1,91\n");
    run_ok("scripts/render-plots.sh --results '%s/res' --out '%s/out' > '%s/log' 2>&1", t, t, t);
    snprintf(p, sizeof p, "%s/out/tri-breakdown.csv", t);
    const char *text = slurp(p);
    TL_ASSERT_MSG(has_row(text, "run,nranks,", ",timed_us") && has_row(text, "two-stream,2,", ",101.00") &&
                      has_row(text, "three-naive,2,", ",90.50") && has_row(text, "three-split,2,", ",NaN"),
                  "%s", text);
    snprintf(p, sizeof p, "%s/out/tri-breakdown.png", t);
    check_figure(p, 10000);
}

/* The GPU path of demo.sh, with a stand-in trilap-bench and nvidia-smi: the
 * run folder must exist before trilap-bench opens --results in it (it
 * failed with "results.csv: open: No such file or directory"). */
TL_TEST(demo_gpu_path_creates_run_dir)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char fake[512], p[1024], cmd[8192], cwd[1024];
    TL_ASSERT(getcwd(cwd, sizeof cwd));
    snprintf(fake, sizeof fake, "%s/bin", t);
    mkdir(fake, 0755);
    const char *bin = tl_test_env("TL_BIN", "bin"), *build = tl_test_env("TL_BUILD", "build");
    /* the real analyzer, and the solver for demo.sh's solver part */
    static const char *const real[] = {"trilap-analyze", "trilap-solve"};
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
        snprintf(cmd, sizeof cmd, "ln -s %s%s%s/%s %s/%s", bin[0] == '/' ? "" : cwd, bin[0] == '/' ? "" : "/", bin,
                 real[k], fake, real[k]);
        TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    }
    snprintf(p, sizeof p, "%s/trilap-bench", fake);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    /* like trilap-bench: fopen(--results) fails when its folder is missing */
    fprintf(f,
            "#!/bin/sh\n"
            "while [ $# -gt 0 ]; do case $1 in --trace) tr=$2; shift 2;; --results) res=$2; shift 2;; "
            "*) shift;; esac; done\n"
            "[ -d \"$(dirname \"$res\")\" ] || { echo \"trilap-bench: $res: open: No such file or directory\" >&2; "
            "exit 1; }\n"
            "h=%s%s%s/tests/helper_synth_trace\n"
            "$h \"$tr/two-stream\" two-stream 2 20 && $h \"$tr/three-naive\" naive 2 20 && "
            "$h \"$tr/three-split\" split 2 20 || exit 1\n"
            "printf 'variant,nranks,rep,us_per_iter\\ntwo-stream,2,0,66\\nthree-naive,2,0,70\\nthree-split,2,0,58\\n' "
            "> \"$res\"\n"
            "echo 'three-split 58 us'\n",
            build[0] == '/' ? "" : cwd, build[0] == '/' ? "" : "/", build);
    fclose(f);
    chmod(p, 0755);
    snprintf(p, sizeof p, "%s/nvidia-smi", fake);
    f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-0)'\necho 'GPU 1: NVIDIA H200 (UUID: GPU-1)'\n");
    fclose(f);
    chmod(p, 0755);
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH TL_BIN=%s scripts/demo.sh --out %s/demo " DEMO_SMALL_SOLVER " > %s/log 2>&1",
             fake, fake, t, t);
    TL_ASSERT_MSG(system(cmd) == 0, "failed: %s\n%s", cmd, (snprintf(p, sizeof p, "%s/log", t), slurp(p)));
    snprintf(p, sizeof p, "%s/demo/report.txt", t);
    char *text = slurp(p);
    TL_ASSERT_MSG(strstr(text, "source: live run: bin/trilap-bench tristream on 2 GPU(s)"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "untraced timing of the same run"), "%s", text);
    /* the report names where the files are, not the folder the run wrote them in */
    TL_ASSERT_MSG(!strstr(text, ".demo-partial") && strstr(text, "/demo/run/results.csv;"), "%s", text);
    snprintf(p, sizeof p, "%s/demo/breakdown-stack.csv", t);
    text = slurp(p);
    TL_ASSERT_MSG(has_row(text, "three-split,2,", ",58.00") && has_row(text, "two-stream,2,", ",66.00"), "%s", text);
    snprintf(p, sizeof p, "%s/demo/run/three-split/trace.rank1.csv", t);
    TL_ASSERT_MSG(access(p, R_OK) == 0, "no %s", p);
    snprintf(p, sizeof p, "%s/demo/timeline.png", t);
    check_figure(p, 10000);
}

TL_TEST(demo_committed_h200)
{
    need_gnuplot();
    if (access("results/tristream-h200x2/three-naive/trace.rank0.csv.gz", R_OK) != 0)
        TL_SKIP("no committed H200 traces under results/tristream-h200x2 yet");
    const char *t = tl_test_tmpdir();
    char out[512], p[1024];
    snprintf(out, sizeof out, "%s/demo", t);
    /* without a GPU demo.sh falls back to the committed run on its own; --from makes it so here too */
    run_ok("scripts/demo.sh --from %s --out %s " DEMO_SMALL_SOLVER " > %s/log 2>&1", "results/tristream-h200x2", out,
           t);
    snprintf(p, sizeof p, "%s/report.txt", out);
    char *text = slurp(p);
    char *naive = strstr(text, "== three-naive"), *split = strstr(text, "== three-split");
    TL_ASSERT_MSG(naive && split && naive < split, "%s", text);
    char *ser = strstr(naive, "FINDING 1 [serialised-communicators]");
    TL_ASSERT_MSG(ser && ser < split, "no serialisation finding for three-naive:\n%s", text);
    TL_ASSERT_MSG(!strstr(split, "[serialised-communicators]"), "three-split reported serialised:\n%s", text);
    /* the untraced table of the run is quoted: three-split is the fastest of the three schedules */
    TL_ASSERT_MSG(strstr(text, "untraced timing of the same run") && strstr(text, "three-split         2"), "%s",
                  text);
    /* the timeline holds both ranks' NCCL kernels (unattributed ones included) for the split run */
    snprintf(p, sizeof p, "%s/timeline-three-split.csv", out);
    char *c = slurp(p);
    TL_ASSERT_MSG(strstr(c, "\n0,1,r0 P2P,") && strstr(c, "\n0,2,r0 Collective,") && strstr(c, "\n1,5,r1 P2P,") &&
                      strstr(c, "\n1,6,r1 Collective,") && strstr(c, "\n1,4,r1 Compute,"),
                  "%.2000s", c);
    static const char *const figs[] = {"timeline.png", "timeline.pdf", "breakdown.png", "breakdown.pdf"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", out, figs[i]);
        check_figure(p, strstr(figs[i], "pdf") ? 5000 : 10000);
    }
}

/* A results row whose measured cell is no number ('-', NaN: a failed run's
 * row, or one written by hand) is no measurement: awk read '-' as 0, so a
 * three-naive of 70 us and '-' drew a bar of 35 with its error bar from 0,
 * exit 0, and NaN stopped the rendering ("No valid points in histogram",
 * exit 1). Drawn without it, said; a file of such rows only is skipped. */
TL_TEST(render_leaves_out_rows_without_number)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    put(t, "res/knobs.csv", "variant,nranks,rep,us_per_iter,wrong\n"
                            "three-split,2,0,50,0\nthree-split,2,1,52,0\nthree-naive,2,0,70,0\nthree-naive,2,1,-,0\n"
                            "three-naive,2,2,NaN,0\n");
    put(t, "res/stream.csv", "function,rank,device,count,bytes,iters,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong\n"
                             "copy,0,host,1024,16384,5,-,-,-,-,0\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t);
    TL_ASSERT_MSG(r.rc == 0 &&
                      strstr(r.err, "knobs.csv: drawn without the 2 row(s) whose us_per_iter is not a number "
                                    "(one has '-')\n") &&
                      strstr(r.err, "stream.csv: no row has a number in bandwidth_gbs (one has '-'); skipped\n") &&
                      tl_test_count(r.err, "\n") == 2,
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/out/knobs-variants.csv", t);
    char *csv = tl_test_read(p);
    TL_ASSERT_MSG(strstr(csv, "\nres,70,70,70,51,50,52\n"), "%s", csv);
    free(csv);
    snprintf(p, sizeof p, "%s/out/knobs-variants.png", t);
    check_figure(p, 10000);
    snprintf(p, sizeof p, "%s/out/stream.png", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s drawn from rows without a number", p);
}

/* Rows that commands of two commits appended to one results file were
 * pooled into one median and one bar without a word (manifest.txt's
 * blocks say which command wrote which rows): now said, naming the
 * commits; rows of one commit, or of another results file, say nothing.
 * And a results file cut to nothing is said, not passed over. */
TL_TEST(render_says_rows_of_several_commits)
{
    const char *t = tl_test_tmpdir();
    char p[1024];
    empty_figure_gnuplot(t); /* what is said is under test, not the drawing */
    put(t, "res/knobs.csv", "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,50,0\nthree-split,2,0,40,0\n");
    put(t, "res/manifest.txt", "program: trilap-bench\ngit_commit: aaaa111\nresults: knobs.csv\nresults_lines: 2\n\n"
                               "program: trilap-bench\ngit_commit: bbbb222-dirty\nresults: knobs.csv\nresults_lines: 3\n\n"
                               "program: trilap-bench\ngit_commit: cccc333\nresults: other.csv\nresults_lines: 2\n");
    snprintf(p, sizeof p, "%s/res/cut.csv", t); /* a results file cut to nothing: said, not passed over */
    tl_test_write(p, "");
    tl_test_output r =
        tl_test_capture("TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.err, "/res/cut.csv: an empty file; skipped\n"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(unlink(p), 0);
    r = tl_test_capture("TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && tl_test_one_line(r.err, "knobs.csv: its rows come from 2 commits (aaaa111 bbbb222-dirty, "
                                                       "manifest.txt), drawn together; give each commit a results "
                                                       "file of its own to compare them"),
                  "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    put(t, "res/manifest.txt", "program: trilap-bench\ngit_commit: aaaa111\nresults: knobs.csv\nresults_lines: 2\n\n"
                               "program: trilap-bench\ngit_commit: aaaa111\nresults: knobs.csv\nresults_lines: 3\n\n"
                               "program: trilap-bench\ngit_commit: cccc333\nresults: other.csv\nresults_lines: 2\n");
    r = tl_test_capture("TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results '%s/res' --out '%s/out2'", t, t, t);
    TL_ASSERT_MSG(r.rc == 0 && !r.err[0], "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* A folder of runs traced without a GPU kernel (host ranks: trilap-solve
 * --backend host) has a timeline but no kernel time to stack: its
 * breakdown stopped the whole rendering with gnuplot's "breakdown.gp line
 * 40: invalid expression", exit 1, every later figure undrawn. Now said in
 * one line, the next folder drawn; breakdown.gp alone says why and leaves
 * no empty figure. */
TL_TEST(render_host_ranks_breakdown)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    const char *build = tl_test_env("TL_BUILD", "build");
    run_ok("mkdir -p '%s/res/a-host' && %s/tests/helper_synth_trace '%s/res/a-host/three-split' host-only 2 30 >/dev/null",
           t, build, t);
    run_ok("mkdir -p '%s/res/b-gpu' && %s/tests/helper_synth_trace '%s/res/b-gpu/three-split' split 2 30 >/dev/null", t,
           build, t);
    /* a host rank's breakdown stacks its host's compute and communication
     * ranges (analysis/README.md; before, it had no rows, and none was drawn) */
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s/res' --out '%s/out'", t, t);
    TL_ASSERT_MSG(r.rc == 0 && !strstr(r.err, "no breakdown drawn"), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    static const char *const drawn[] = {"a-host-timeline.png", "a-host-breakdown.png", "b-gpu-timeline.png",
                                        "b-gpu-breakdown.png"};
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/out/%s", t, drawn[i]);
        check_figure(p, 10000);
    }
    /* titled for what it stacks: a host run's ranges, a GPU run's kernels
     * (it said "GPU time ... by kernel category" and "2 GPUs" of host ranks) */
    static const char *const runs[][2] = {{"a-host", "Time per iteration by category (mean over ranks)\\n{/*0.8 host ranks: "},
                                          {"b-gpu", "GPU time per iteration by kernel category (mean over ranks)\\n"}};
    for (int i = 0; i < 2; i++) {
        r = tl_test_capture("gnuplot -e \"file='%s/out/%s-breakdown.csv'; out='%s/t%d.png'\" plots/breakdown.gp -e 'show title'",
                            t, runs[i][0], t, i);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.err, runs[i][1]), "%s: rc %d: %s", runs[i][0], r.rc, r.err);
        tl_test_output_free(&r);
    }
    /* breakdown.gp itself, on a stack of zeros (that run's, its times zeroed) */
    snprintf(p, sizeof p, "%s/zero.csv", t);
    run_ok("%s/trilap-analyze breakdown '%s/res/a-host/three-split' --stack-csv '%s.in' >/dev/null",
           tl_test_env("TL_BIN", "bin"), t, p);
    TL_ASSERT_EQ(tl_test_sh("awk -F, -v OFS=, '/^#/ || !h++ { print; next } { for (i = 5; i <= NF; i++) $i = \"0.00\"; "
                            "print }' '%s.in' > '%s'",
                            p, p),
                 0);
    r = tl_test_capture("gnuplot -e \"file='%s'; out='%s/zero.png'\" plots/breakdown.gp", p, t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "zero.csv: no kernel time in any category"), "rc %d: %s", r.rc,
                  r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/zero.png", t);
    TL_ASSERT_MSG(access(p, F_OK) != 0, "%s left behind", p);
}

/* Ctrl-C while gnuplot draws: gnuplot's SIGINT handler can hang inside
 * cairo with SIGINT blocked (seen with gnuplot 5.4 in about one interrupt
 * in twenty), and render-plots.sh, waiting for it in the foreground, hung
 * with it: make plots did not stop, a second Ctrl-C did nothing. A
 * stand-in gnuplot that ignores SIGINT and waits stands for it: the script
 * must end within seconds, its part figure removed. */
TL_TEST(render_interrupt_ends_gnuplot)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024], gp[1024], cmd[4096];
    snprintf(p, sizeof p, "%s/res", t);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/res/knobs.csv", t);
    tl_test_write(p, "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,50,0\nthree-split,2,1,52,0\n");
    snprintf(gp, sizeof gp, "%s/gp", t); /* writes part of the figure, then hangs, deaf to SIGINT */
    tl_test_write(gp, "#!/bin/sh\no=${2##*out=\\'}; o=${o%\\'}\necho partial > \"$o\"\ntrap '' INT\nexec sleep 30\n");
    TL_ASSERT_EQ(chmod(gp, 0755), 0);
    snprintf(cmd, sizeof cmd, "TL_GNUPLOT='%s' exec scripts/render-plots.sh --results '%s/res' --out '%s/out' "
                              ">'%s/log' 2>&1", gp, t, t, t);
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL); /* as a terminal's foreground job has it */
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    /* the part figure is there: gnuplot is drawing */
    int started = 0;
    for (int i = 0; i < 200 && !started; i++) {
        tl_test_output ls = tl_test_capture("ls '%s/out' 2>/dev/null | grep -c '[.]part[0-9]*[.]png$'", t);
        started = atoi(ls.out) > 0;
        tl_test_output_free(&ls);
        if (!started) usleep(50000);
    }
    kill(-pid, SIGINT);
    int status = 0, done = 0;
    for (int i = 0; i < 100 && !done; i++) {
        done = waitpid(pid, &status, WNOHANG) == pid;
        if (!done) usleep(50000);
    }
    kill(-pid, SIGKILL); /* whatever is left of it, the stand-in's sleep included */
    if (!done) waitpid(pid, &status, 0);
    TL_ASSERT_MSG(started, "the stand-in gnuplot never started");
    TL_ASSERT_MSG(done, "render-plots.sh still running 5 s after SIGINT (waiting for gnuplot)");
    TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 130, "status %d", status);
    /* nothing, whole or part: the variants' CSV is renamed with its figure
     * (it stayed, written in place before gnuplot started) */
    tl_test_output ls = tl_test_capture("ls -A '%s/out' 2>/dev/null", t);
    TL_ASSERT_MSG(ls.out[0] == '\0', "left in %s/out: %s", t, ls.out);
    tl_test_output_free(&ls);
}

/* Every file a render writes appears under its final name whole or not at
 * all: the CSV beside a figure was written in place before gnuplot ran
 * (a failed or interrupted render left a new CSV beside an old figure, or
 * a cut one), trilap-analyze's timeline CSVs too, and the PNG took its
 * final name before the PDF was drawn. A stand-in gnuplot writes part of
 * its figure and fails, at the PNG or at the PDF; the files of an earlier
 * render under the final names must be left as they were, and no
 * temporary left beside them. */
TL_TEST(render_whole_or_nothing)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    /* a source of each kind and the final names of its CSV and figure */
    static const char *const src[][3] = {
        {"knobs.csv", "knobs-variants.csv", "knobs-variants.png"},
        {"comm.csv", "comm.csv", "comm.png"},
        {"stream.csv", "stream.csv", "stream.png"},
        {"", "tristream-timeline-two-stream.csv", "tristream-timeline.png"}};
    static const char *const rows[] = {
        "variant,nranks,rep,us_per_iter,trace_mode,wrong\nthree-split,2,0,50,off,0\nthree-split,2,0,60,cupti,0\n",
        "op,comm,size_bytes,time_us\nallreduce,world,8,10\nallreduce,world,16,11\n",
        "function,rank,bandwidth_gbs\ncopy,0,71\ntriad,0,73\n", ""};
    snprintf(p, sizeof p, "%s/gp", t); /* FAIL_AT: the figure it fails at, after writing part of it */
    tl_test_write(p, "#!/bin/sh\no=${2##*out=\\'}; o=${o%\\'}\n"
                     "case $o in *.$FAIL_AT) printf 'part' > \"$o\"; exit 1 ;; esac\n"
                     "printf '\\211PNG\\r\\n\\032\\n whole' > \"$o\"\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    for (int s = 0; s < 4; s++) {
        snprintf(p, sizeof p, "%s/res%d", t, s);
        if (s < 3) put(p, src[s][0], rows[s]);
        else {
            mkdir(p, 0755);
            snprintf(p, sizeof p, "%s/res%d/tristream", t, s);
            synth_runs(p);
        }
        for (int at = 0; at < 2; at++) {
            char out[768];
            snprintf(out, sizeof out, "%s/out%d%s", t, s, at ? "pdf" : "png");
            for (int k = 1; k < 3; k++) put(out, src[s][k], "old\n");
            tl_test_output r = tl_test_capture("FAIL_AT=%s TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results "
                                               "'%s/res%d' --out '%s'",
                                               at ? "pdf" : "png", t, t, s, out);
            TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "gnuplot could not draw"), "%s: rc %d: %s", out, r.rc,
                          r.err);
            tl_test_output_free(&r);
            /* .sources.lock: the lock of sources.txt (render_concurrent_sources), empty */
            r = tl_test_capture("(cd '%s' && ls -A | grep -vxF .sources.lock && test ! -s .sources.lock && cat '%s' '%s')",
                                out, src[s][1], src[s][2]);
            char want[1400];
            snprintf(want, sizeof want, "%s\n%s\nold\nold\n", src[s][1], src[s][2]);
            if (strcmp(src[s][1], src[s][2]) > 0)
                snprintf(want, sizeof want, "%s\n%s\nold\nold\n", src[s][2], src[s][1]);
            TL_ASSERT_MSG(r.rc == 0 && !strcmp(r.out, want), "%s after a failure at the %s:\n%s", out,
                          at ? "PDF" : "PNG", r.out);
            tl_test_output_free(&r);
        }
    }
}

/* The comm figure (NCCL time per size) had no CSV beside it, while every
 * other figure has the one it was drawn from: now the rows drawn (those
 * with a number in time_us), from which comm.gp redraws it alone. */
TL_TEST(render_comm_csv_beside)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char res[512], p[1024];
    snprintf(res, sizeof res, "%s/res", t);
    put(res, "comm.csv", "# program: trilap-bench comm\nop,comm,size_bytes,time_us\nallreduce,world,8,10\n"
                         "allreduce,world,16,-\nsendrecv,split,8,70\n");
    tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/out'", res, t);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/out/comm.csv", t);
    char *csv = tl_test_read(p);
    TL_ASSERT_MSG(strstr(csv, "op,comm,size_bytes,time_us\nallreduce,world,8,10\nsendrecv,split,8,70\n") &&
                      !strstr(csv, ",-"),
                  "%s", csv);
    free(csv);
    run_ok("gnuplot -e \"file='%s'; out='%s/again.png'\" plots/comm.gp%s", p, t, "");
    snprintf(p, sizeof p, "%s/again.png", t);
    check_figure(p, 10000);
}

/* Dark pixels of a PNG in its last column and in its bottom row, as
 * gnuplot reads the image back ("right N bottom M"). */
static void edge_ink(const char *png, int *right, int *bottom)
{
    char table[1024];
    snprintf(table, sizeof table, "%s/pixels.txt", tl_test_tmpdir());
    tl_test_output r = tl_test_capture(
        "(gnuplot -e \"set table '%s'; plot '%s' binary filetype=png with rgbimage\" && "
        "awk 'NF >= 5 && $1 ~ /^[0-9]/ { x = $1 + 0; if (x > w) w = x; if ($3 + $4 + $5 < 600) { d[x]++; if ($2 + 0 == 0) b++ } }"
        " END { print (w > 0 ? d[w] + 0 : -1), b + 0 }' '%s')",
        table, png, table);
    TL_ASSERT_MSG(r.rc == 0 && sscanf(r.out, "%d %d", right, bottom) == 2 && *right >= 0, "%s: %s%s", png, r.out,
                  r.err);
    tl_test_output_free(&r);
}

/* The knob labels of a -variants figure hang down to the right of their
 * tics: the last one ran off the right edge (`max_ctas=2+conn=32` of the
 * committed knob study read `max_ctas=2+con`). No dark pixel in the
 * figure's last column or bottom row, for the committed study and for a
 * longer last label. */
TL_TEST(bars_labels_inside_figure)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    snprintf(p, sizeof p, "%s/res", t);
    put(p, "knobs.csv", "variant,nranks,rep,us_per_iter,priorities,daxpy_blocks,cuda_device_max_connections,"
                        "nccl_launch_mode,wrong\n"
                        "three-split,2,0,50,on,132,unset,unset,0\nthree-split,2,0,51,on,264,unset,unset,0\n"
                        "three-split,2,0,52,off,528,32,GROUP,0\n");
    static const char *const runs[][2] = {{"results/tristream-knobs-h200x2", "tristream-knobs-h200x2-knobs-variants"},
                                          {"", "knobs-variants"}};
    for (int i = 0; i < 2; i++) {
        if (i == 0 && access(runs[0][0], F_OK) != 0) continue; /* a tree without the committed results */
        tl_test_output r = tl_test_capture("scripts/render-plots.sh --results '%s' --out '%s/out%d'",
                                           i ? p : runs[i][0], t, i);
        TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
        tl_test_output_free(&r);
        char png[1100];
        snprintf(png, sizeof png, "%s/out%d/%s.png", t, i, runs[i][1]);
        check_figure(png, 10000);
        int right = -1, bottom = -1;
        edge_ink(png, &right, &bottom);
        TL_ASSERT_MSG(right == 0 && bottom == 0, "%s: a label cut: %d dark pixels in the last column, %d in the bottom row",
                      png, right, bottom);
    }
}

/* Figures are named from their source's path below --results, so two
 * folders of one base name given one at a time (results/a/x, results/b/x)
 * drew the same names, the second over the first without a word. Below
 * the tree's results/ a source is named from its path there, as make
 * plots names it; elsewhere the second source of a name already drawn in
 * --out (sources.txt) is skipped, one line naming both; the same source
 * drawn again, or one whose earlier source is gone, draws over it. */
TL_TEST(render_name_clash_across_runs)
{
    const char *t = tl_test_tmpdir();
    char p[1024];
    empty_figure_gnuplot(t); /* the names are under test, not the drawing */
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s/x", t, i ? "b" : "a");
        put(p, "knobs.csv", i ? "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,77,0\n"
                              : "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,55,0\n");
    }
    static const char *const steps[][3] = {{"a", "", ",55,"}, {"b", "its figure would be knobs-variants, as that of ", ",55,"},
                                           {"a", "", ",55,"}, {"-b", "", ",77,"}};
    for (int k = 0; k < 4; k++) {
        if (steps[k][0][0] == '-') TL_ASSERT_EQ(tl_test_sh("rm -r '%s/a'", t), 0);
        tl_test_output r = tl_test_capture("TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results '%s/%s/x' --out '%s/out'",
                                           t, t, steps[k][0] + (steps[k][0][0] == '-'), t);
        if (steps[k][1][0])
            TL_ASSERT_MSG(r.rc == 0 && tl_test_one_line(r.err, steps[k][1]) && strstr(r.err, "/a/x/knobs.csv, drawn into") &&
                              strstr(r.err, "/b/x/knobs.csv: its figure"),
                          "step %d: rc %d: %s", k, r.rc, r.err);
        else
            TL_ASSERT_MSG(r.rc == 0 && !strstr(r.err, "its figure would be"), "step %d: rc %d: %s", k, r.rc, r.err);
        tl_test_output_free(&r);
        snprintf(p, sizeof p, "%s/out/knobs-variants.csv", t);
        char *csv = tl_test_read(p);
        TL_ASSERT_MSG(strstr(csv, steps[k][2]), "step %d: %s", k, csv);
        free(csv);
    }
    /* inside the tree's results/: the name make plots gives it */
    if (access("results/tristream-knobs-h200x2/knobs.csv", F_OK) == 0) {
        tl_test_output r = tl_test_capture("(TL_GNUPLOT='%s/gp' scripts/render-plots.sh --results "
                                           "results/tristream-knobs-h200x2/ --out '%s/tree' && ls '%s/tree')", t, t, t);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "\ntristream-knobs-h200x2-knobs-variants.png\n") &&
                          !strstr(r.out, "\nknobs-variants"),
                      "rc %d: %s%s", r.rc, r.out, r.err);
        tl_test_output_free(&r);
    }
}

/* Two renders started at once into one --out, through a gnuplot stand-in
 * that writes an empty figure (the plumbing is under test, not the
 * drawing: gnuplot's 16 runs were 1.2 s of CPU) and holds each PDF until
 * the other render has drawn as many (0.6 s at most), and an mv that
 * takes 0.3 s to put sources.txt in place: both renders claim each
 * figure name at once, and each update of sources.txt is read before the
 * other's is renamed. Each folder holds a figure of
 * its own and knobs.csv, whose figure name both take (a/x and b/x), second
 * in both. Both exit 0; sources.txt names both figures of their own
 * and knobs-variants once, the source whose CSV is in --out, the other
 * render saying it skipped it. The same again without flock on PATH (the
 * mkdir lock); and a lock another process holds past TL_RENDER_LOCK_WAIT
 * is one line, exit 1, nothing drawn. Before: each render read
 * sources.txt, wrote its copy and renamed it, the later rename dropping
 * the other's entries, and both drew knobs, neither saying so. */
TL_TEST(render_concurrent_sources)
{
    const char *t = tl_test_tmpdir();
    char p[1024];
    for (int i = 0; i < 2; i++) {
        const char *w = i ? "b" : "a";
        snprintf(p, sizeof p, "%s/%s/x", t, w);
        put(p, "knobs.csv", i ? "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,77,0\n"
                              : "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,55,0\n");
        for (int k = 1; k <= 1; k++) {
            char f[32];
            snprintf(f, sizeof f, "%s%d.csv", w, k);
            put(p, f, "variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,60,0\n");
        }
    }
    snprintf(p, sizeof p, "%s/gp", t);
    tl_test_write(p, "#!/bin/sh\no=${2##*out=\\'}; : > \"${o%%\\'*}\"\ncase $2 in *\".pdf'\"*) ;; *) exit 0 ;; esac\n"
                     "echo >> \"$SYNC/$GP_TAG\"; n=$(wc -l < \"$SYNC/$GP_TAG\"); i=0\n"
                     "while [ \"$(cat \"$SYNC/$GP_OTHER\" 2>/dev/null | wc -l)\" -lt \"$n\" ] && [ $i -lt 12 ]; do "
                     "sleep 0.05; i=$((i + 1)); done\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/wrap", t), 0);
    snprintf(p, sizeof p, "%s/wrap/mv", t);
    tl_test_write(p, "#!/bin/sh\nfor a; do :; done\ncase $a in */sources.txt) sleep 0.3 ;; esac\n"
                     "PATH=${PATH#*/wrap:} exec mv \"$@\"\n");
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    /* PATH without flock: every command of /usr/bin and /bin but it */
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/nf && { ln -s /usr/local/bin/* /usr/bin/* /bin/* %s/nf/ 2>/dev/null; "
                            "rm -f %s/nf/flock; test -x %s/nf/awk; }",
                            t, t, t, t),
                 0);
    for (int pass = 0; pass < 2; pass++) {
        tl_test_output r = tl_test_capture(
            "(T=%s; rm -rf $T/out $T/sync; mkdir $T/sync; PATH=$T/wrap:%s; export TL_GNUPLOT=$T/gp SYNC=$T/sync; "
            "(GP_TAG=a GP_OTHER=b scripts/render-plots.sh --results $T/a/x --out $T/out >/dev/null 2>$T/ea; "
            "echo \"rc=$?\" >> $T/ea) & GP_TAG=b GP_OTHER=a scripts/render-plots.sh --results $T/b/x --out $T/out "
            ">/dev/null 2>$T/eb; echo \"rc=$?\" >> $T/eb; wait; cat $T/ea $T/eb; "
            "command -v flock >/dev/null && echo flock; ls -A $T/out | grep -v '[.]png$\\|[.]pdf$\\|[.]csv$')",
            t, pass ? "$T/nf" : "$PATH");
        TL_ASSERT_MSG(tl_test_count(r.out, "rc=0\n") == 2 && tl_test_count(r.out, "its figure would be knobs-variants") == 1 &&
                          !strstr(r.out, "rc=1") && (strstr(r.out, "\nflock\n") != NULL) == !pass &&
                          strstr(r.out, "\nsources.txt\n") && !strstr(r.out, ".part") && !strstr(r.out, ".sources.lock.d"),
                      "pass %d: %s%s", pass, r.out, r.err);
        tl_test_output_free(&r);
        r = tl_test_capture("(T=%s; for n in a1 b1; do w=${n%%?}; grep -qxF \"$n-variants	$(readlink -f $T)/$w/x/$n.csv\" "
                            "$T/out/sources.txt || echo \"no $n\"; done; grep -c '^knobs-variants	' $T/out/sources.txt; "
                            "src=$(awk -F'\\t' '$1 == \"knobs-variants\" { print $2 }' $T/out/sources.txt); "
                            "case $src in */a/x/knobs.csv) v=55 ;; */b/x/knobs.csv) v=77 ;; *) v=none ;; esac; "
                            "grep -q \",$v,\" $T/out/knobs-variants.csv && echo same)",
                            t);
        TL_ASSERT_MSG(!strcmp(r.out, "1\nsame\n"), "pass %d: %s%s", pass, r.out, r.err);
        tl_test_output_free(&r);
    }
    /* a lock held elsewhere past TL_RENDER_LOCK_WAIT: one line, exit 1, nothing drawn */
    tl_test_output r = tl_test_capture("(T=%s; rm -rf $T/out && mkdir $T/out && (flock $T/out/.sources.lock sleep 4 >/dev/null 2>&1 &) && "
                                       "sleep 0.3 && TL_RENDER_LOCK_WAIT=1 scripts/render-plots.sh --results $T/a/x --out $T/out; "
                                       "echo \"rc=$?\"; ls -A $T/out)",
                                       t);
    TL_ASSERT_MSG(tl_test_one_line(r.err, "render-plots.sh: --out ") && strstr(r.err, "/out: another render into it has held ") &&
                      strstr(r.out, "rc=1\n.sources.lock\n") && !strstr(r.out, "rc=1\n.sources.lock\n."),
                  "%s%s", r.out, r.err);
    tl_test_output_free(&r);
}

/* TL_RENDER_LOCK_WAIT, the seconds a render waits for another's lock on
 * --out's sources.txt, is whole seconds from 0 to 86400: another value is
 * one line naming it and the value, exit 2, --out not made (0 and 86400
 * taken). Before: 'abc' and '-1' were flock's own error, then "another
 * render into it has held ... for abc s", exit 1; '1e9' a wait of 31
 * years. */
TL_TEST(render_lock_wait_checked)
{
    const char *t = tl_test_tmpdir();
    static const char *const bad[] = {"abc", "-1", "1e9", "0.5", "86401", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tl_test_output r = tl_test_capture("TL_RENDER_LOCK_WAIT='%s' scripts/render-plots.sh --results %s --out %s/out", bad[i],
                                           t, t);
        char want[200];
        snprintf(want, sizeof want, "render-plots.sh: invalid TL_RENDER_LOCK_WAIT '%s': whole seconds from 0 to 86400", bad[i]);
        TL_ASSERT_MSG(r.rc == 2 && tl_test_one_line(r.err, want) && !r.out[0], "%s: rc %d: %s%s", bad[i], r.rc, r.out,
                      r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "%s: something made", bad[i]);
    }
    /* the bounds (and a leading zero) pass the check: what stops these is
     * trilap-analyze, not built in TL_BIN */
    static const char *const good[] = {"0", "86400", "010"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        tl_test_output r = tl_test_capture("TL_BIN=%s/none TL_GNUPLOT=true TL_RENDER_LOCK_WAIT=%s scripts/render-plots.sh "
                                           "--results %s/none --out %s/out",
                                           t, good[i], t, t);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, "/none/trilap-analyze not built"), "%s: rc %d: %s", good[i],
                      r.rc, r.err);
        tl_test_output_free(&r);
    }
}

/* A script run by hand (gnuplot -e "..." plots/X.gp) that gnuplot fails
 * after its input checks (a cell no number: "undefined variable:
 * STATS_sum"; more variants than colours: "Non-numeric string") left a
 * 0-byte figure under its final name: gnuplot 5.4 opens `set output` at
 * once and has no error trap. Now only the temporary, fig.part<pid>.png,
 * is left; a figure drawn leaves no temporary; render-gp.sh's own
 * temporary is not staged again (gp_staged), so its failure leaves
 * nothing; and every script that writes a figure ends by renaming it. */
TL_TEST(gnuplot_failure_leaves_no_figure)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    char p[1024];
    static const char *const cases[][3] = {
        {"breakdown", "file=", "run,nranks,window_per_iter_us,spmv\na,x,y,z\n"},
        {"timeline", "files=", "row,cat_id,start_us,work_start_us,end_us,clock_unc_us\nx,x,x,x,x,x\n"},
        {"sweep", "xcol='ring_bytes'; variants='a b c d e f g h i j k l'; file=",
         "variant,ring_bytes,median_us,min_us,max_us,ideal_us\na,1024,5,4,6,3\n"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", t, cases[i][0]);
        put(p, "in.csv", cases[i][2]);
        tl_test_output r = tl_test_capture("gnuplot -e \"%s'%s/in.csv'; out='%s/fig.png'\" plots/%s.gp", cases[i][1],
                                           p, p, cases[i][0]);
        TL_ASSERT_MSG(r.rc == 1, "%s: rc %d: %s", cases[i][0], r.rc, r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("cd '%s' && test \"$(ls | grep -v -x in.csv | sed 's/[0-9]*\\.png$/N.png/')\" = "
                                 "fig.partN.png", p) == 0, "%s: not fig.part<pid>.png alone", cases[i][0]);
        /* render-gp.sh stages it: nothing left of the failed figure */
        char assign[1200];
        snprintf(assign, sizeof assign, "%s'%s/in.csv'", cases[i][1], p);
        TL_ASSERT_EQ(tl_test_sh("rm '%s'/fig.part*.png && ! bash -c '. scripts/render-gp.sh; trap render_gp_end EXIT; "
                                "render_gp t gnuplot \"plots/$0.gp\" \"$1/fig\" \"$2\"' %s '%s' \"%s\" 2>/dev/null && "
                                "test \"$(ls '%s')\" = in.csv",
                                p, cases[i][0], p, assign, p),
                     0);
    }
    /* drawn: the figure, no temporary */
    snprintf(p, sizeof p, "%s/ok", t);
    put(p, "in.csv", "variant,ring_bytes,median_us,min_us,max_us,ideal_us\na,1024,5,4,6,3\na,2048,6,5,7,3\n");
    run_ok("gnuplot -e \"file='%s/in.csv'; xcol='ring_bytes'; variants='a'; out='%s/fig.png'\" plots/sweep.gp "
           "2>/dev/null && test \"$(ls '%s')\" = \"$(printf 'fig.png\\nin.csv')\"", p, p, p);
    snprintf(p, sizeof p, "%s/ok/fig.png", t);
    check_figure(p, 2000);
    TL_ASSERT_EQ(tl_test_sh("for f in plots/*.gp; do grep -q '^load dir . \"common.gp\"' \"$f\" || continue; "
                            "test \"$(tail -n 1 \"$f\")\" = 'load dir . \"finish.gp\"' || { echo \"$f\" >&2; exit 1; }; "
                            "done"),
                 0);
}

/* A figure and its input in a folder whose name has a ': drawn, renamed,
 * nothing left beside it (before: the input "no such file, or not a
 * readable one"; given another input, the figure drawn and left as
 * fig.part<pid>.png, "mv: missing destination file operand", exit 1) */
TL_TEST(figure_in_a_quoted_folder)
{
    need_gnuplot();
    char d[1024], p[1100];
    snprintf(d, sizeof d, "%s/it's", tl_test_tmpdir());
    TL_ASSERT_EQ(mkdir(d, 0777), 0);
    snprintf(p, sizeof p, "%s/in.csv", d);
    tl_test_write(p, "variant,ring_bytes,median_us,min_us,max_us,ideal_us\na,1024,5,4,6,3\na,2048,6,5,7,3\n");
    tl_test_output r = tl_test_capture("gnuplot -e \"file=\\\"%s\\\"; xcol='ring_bytes'; variants='a'; "
                                       "out=\\\"%s/fig.png\\\"\" plots/sweep.gp", p, d);
    TL_ASSERT_MSG(r.rc == 0, "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/fig.png", d);
    check_figure(p, 2000);
    DIR *dir = opendir(d);
    TL_ASSERT_MSG(dir, "%s", d);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));) n += e->d_name[0] != '.';
    closedir(dir);
    TL_ASSERT_MSG(n == 2, "%d files in %s: a temporary left", n, d);
}

/* timeline.gp and fdtd-snapshots.gp read a file in a folder named it's
 * through the shell quoted as input.gp quotes (gp_sh): before, their own
 * '...' broke there, timeline's header read as nothing ("Syntax error:
 * Unterminated quoted string", rank 1's clock band not drawn) and the
 * snapshots refused a slice that is there ("no slice ...", exit 1) */
TL_TEST(figures_read_a_quoted_folder)
{
    need_gnuplot();
    char d[1024], p[1100];
    snprintf(d, sizeof d, "%s/it's", tl_test_tmpdir());
    TL_ASSERT_EQ(mkdir(d, 0777), 0);
    snprintf(p, sizeof p, "%s/t.csv", d);
    tl_test_write(p, "row,cat_id,start_us,work_start_us,end_us,clock_unc_us\n0,0,0,0,10,0\n4,0,2,3,12,1.5\n");
    tl_test_output r = tl_test_capture("gnuplot -e \"files=\\\"%s\\\"; out=\\\"%s/t.png\\\"\" plots/timeline.gp", p, d);
    TL_ASSERT_MSG(r.rc == 0 && !r.err[0], "timeline.gp: rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/t.png", d);
    check_figure(p, 2000);
    snprintf(p, sizeof p, "%s/s", d);
    TL_ASSERT_EQ(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/s/p-000150.txt", d);
    tl_test_write(p, "# p\n0 1 0\n1 -2 1\n0 1 0\n");
    r = tl_test_capture("gnuplot -e \"dirs=\\\"%s/s\\\"; steps='150'; out=\\\"%s/f.png\\\"\" plots/fdtd-snapshots.gp", d,
                        d);
    TL_ASSERT_MSG(r.rc == 0, "fdtd-snapshots.gp: rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/f.png", d);
    check_figure(p, 2000);
}

/* A figure in a folder that is not there: one line naming it, exit 1
 * (before: gnuplot's "common.gp line 38: cannot open file; output not
 * changed" about `set output gp_part`, on three lines, naming neither) */
TL_TEST(figure_in_a_missing_folder)
{
    need_gnuplot();
    const char *t = tl_test_tmpdir();
    put(t, "in.csv", "variant,ring_bytes,median_us,min_us,max_us,ideal_us\na,1024,5,4,6,3\na,2048,6,5,7,3\n");
    tl_test_output r = tl_test_capture("gnuplot -e \"file='%s/in.csv'; xcol='ring_bytes'; variants='a'; "
                                       "out='%s/nowhere/fig.png'\" plots/sweep.gp", t, t);
    char want[1200];
    snprintf(want, sizeof want, "sweep.gp: %s/nowhere/fig.png: no folder %s/nowhere to write the figure in", t, t);
    TL_ASSERT_MSG(r.rc == 1 && tl_test_one_line(r.err, want), "rc %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(render_takes_tl_gnuplot, render_titles_name_hardware, gnuplot_input_checked, gnuplot_cells_checked, model_validation_roles_and_labels, fdtd_timeline_names_gpu, render_leaves_out_check_runs, render_timeline_breakdown_sweep, render_refuses_and_skips, render_quoted_fields,
             byte_axes_and_sweep_key, stream_bars_say_host_or_gpu, figure_name_checked, render_iter_range,
             render_leaves_out_wrong_rows, render_skips_quoted_names, render_name_clash,
             gnuplot_script_needs_input, demo_from_recorded_runs, render_adds_untraced_medians,
             demo_gpu_path_creates_run_dir, demo_committed_h200, render_leaves_out_rows_without_number,
             render_host_ranks_breakdown, render_says_rows_of_several_commits, render_interrupt_ends_gnuplot,
             render_whole_or_nothing, render_comm_csv_beside, bars_labels_inside_figure,
             render_name_clash_across_runs, render_concurrent_sources, render_lock_wait_checked,
             gnuplot_failure_leaves_no_figure, figure_in_a_quoted_folder, figures_read_a_quoted_folder,
             figure_in_a_missing_folder)
