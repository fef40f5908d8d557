/* scripts/demo.sh on one GPU: the analysis stage on the committed one-rank
 * traces (tests/data/demo-1gpu) finishes under set -euo pipefail, with and
 * without gnuplot; the live one-GPU path (stand-in nvidia-smi and
 * trilap-bench) writes the report; a failing step is named and leaves no
 * report. The one-GPU run has no peer waits: `grep '^peer wait rank' | sed`
 * stopped the script there (exit 1 right after "analysing ..."). */
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static const char *const data = "tests/data/demo-1gpu";

/* The solver part on gen:poisson7:16, not the no-GPU default 64: what
 * these tests read of it is the same, and the larger solves were 1.7 s of
 * CPU a demo (test_firsthour.sh readme_quickstart runs the default). */
#define SMALL_SOLVER "--solver-n 16"

static int is_png(const char *path)
{
    unsigned char m[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(m, 1, 8, f);
    fclose(f);
    return n == 8 && memcmp(m, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static char *report_of(const char *out)
{
    char p[1024];
    if (snprintf(p, sizeof p, "%s/report.txt", out) >= (int)sizeof p) return NULL;
    return tl_test_read(p);
}

/* Every variant's section, rank 0 only, no peer wait (one rank). */
static void check_one_rank_report(const char *text)
{
    static const char *const v[] = {"== two-stream", "== three-naive", "== three-split"};
    for (int i = 0; i < 3; i++)
        TL_ASSERT_MSG(strstr(text, v[i]), "no '%s' in:\n%s", v[i], text);
    TL_ASSERT_MSG(strstr(text, "overlapped: rank 0:"), "%s", text);
    TL_ASSERT_MSG(!strstr(text, "overlapped: rank 1:"), "%s", text);
    TL_ASSERT_MSG(!strstr(text, "waiting:"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "traced: three-split vs two-stream, speedup"), "%s", text);
    /* the solver part: Pipe-PCG two-stream vs three-split, its speedup, no NaN anywhere */
    TL_ASSERT_MSG(strstr(text, "## Pipelined CG: two-stream vs three-split"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "speedup of three-split: "), "%s", text);
    TL_ASSERT_MSG(!strstr(text, "NaN") && !strstr(text, "nan%"), "%s", text);
    TL_ASSERT_MSG(strstr(text, "\ntook "), "report not finished:\n%s", text);
}

/* The last two lines of stdout name the report under out and, after
 * "next: ", the file to open next (before, the report's "took N s" was the
 * last line and its folder unnamed). */
static void check_last_lines(const char *o, const char *out, const char *verb, const char *next)
{
    char want[1400];
    snprintf(want, sizeof want, "demo.sh: the report above is %s/report.txt (the solver part's: %s/solver/report.md)\n"
             "next: %s %s/%s", out, out, verb, out, next);
    const char *at = strstr(o, want);
    TL_ASSERT_MSG(at, "no\n%s\nin:\n%s", want, o);
    /* the "next:" line is the last one */
    const char *end = strchr(strchr(at, '\n') + 1, '\n');
    TL_ASSERT_MSG(end && end[1] == '\0', "lines after \"next:\":\n%s", o);
}

TL_TEST(one_gpu_trace_without_gnuplot)
{
    const char *t = tl_test_tmpdir();
    char cmd[2048], out[600];
    snprintf(out, sizeof out, "%s/demo", t);
    snprintf(cmd, sizeof cmd, "TL_GNUPLOT=/nonexistent/gnuplot scripts/demo.sh --from %s --out %s " SMALL_SOLVER,
             data, out);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc == 0, "exit %d\n%s\n%s", rc, o, e);
    /* said before the analysis, not only in the report */
    TL_ASSERT_MSG(strstr(e, "demo.sh: gnuplot not found: the report and CSV files will be written"),
                  "%s", e);
    char *text = report_of(out);
    check_one_rank_report(text);
    TL_ASSERT_MSG(strstr(text, "files: none: gnuplot not found"), "%s", text);
    /* the solver part solved the grid --solver-n names */
    TL_ASSERT_MSG(strstr(text, "- matrix gen:poisson7:16, pipecg (Jacobi), 2 ranks"), "%s", text);
    check_last_lines(o, out, "read", "breakdown.txt; load");
    char p[1024];
    snprintf(p, sizeof p, "%s/timeline.png", out);
    TL_ASSERT(access(p, F_OK) != 0);
    snprintf(p, sizeof p, "%s/timeline-three-split.csv", out);
    TL_ASSERT(access(p, R_OK) == 0);
    free(text);
    free(o);
    free(e);
}

TL_TEST(one_gpu_trace_renders)
{
    if (!strcmp(tl_test_env("TL_HAVE_GNUPLOT", "1"), "0"))
        TL_SKIP("built without gnuplot (TL_HAVE_GNUPLOT=0)");
    const char *t = tl_test_tmpdir();
    char cmd[2048], out[600], p[1024];
    snprintf(out, sizeof out, "%s/demo", t);
    snprintf(cmd, sizeof cmd, "scripts/demo.sh --from %s --out %s " SMALL_SOLVER, data, out);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc == 0, "exit %d\n%s\n%s", rc, o, e);
    char *text = report_of(out);
    check_one_rank_report(text);
    check_last_lines(o, out, "open", "timeline.png and");
    static const char *const figs[] = {"timeline.png", "breakdown.png"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", out, figs[i]);
        TL_ASSERT_MSG(is_png(p), "%s is not a PNG", p);
    }
    free(text);
    free(o);
    free(e);
}

/* The live path on one GPU: nvidia-smi lists one, trilap-bench writes the
 * one-rank traces where --trace says and the untraced results. */
TL_TEST(live_one_gpu_path)
{
    const char *t = tl_test_tmpdir();
    char cwd[1024], fake[600], p[1024], cmd[4096];
    TL_ASSERT(getcwd(cwd, sizeof cwd));
    snprintf(fake, sizeof fake, "%s/bin", t);
    TL_ASSERT_EQ(mkdir(fake, 0755), 0);
    const char *bin = tl_test_env("TL_BIN", "bin");
    /* the real analysis and solver (the demo's solver part), a stand-in benchmark */
    for (int k = 0; k < 2; k++) {
        const char *prog = k ? "trilap-solve" : "trilap-analyze";
        snprintf(cmd, sizeof cmd, "ln -s %s%s%s/%s %s/%s", bin[0] == '/' ? "" : cwd, bin[0] == '/' ? "" : "/", bin,
                 prog, fake, prog);
        TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    }
    snprintf(p, sizeof p, "%s/trilap-bench", fake);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(
        f,
        "#!/bin/sh\n"
        "while [ $# -gt 0 ]; do case $1 in --trace) tr=$2; shift 2;; --results) res=$2; shift 2;;"
        " --gpus) g=$2; shift 2;; *) shift;; esac; done\n"
        "[ \"$g\" = 1 ] || { echo \"trilap-bench: asked for $g GPUs\" >&2; exit 1; }\n"
        "cp -r %s/%s/. \"$tr\"/ || exit 1\n"
        "printf 'variant,nranks,rep,us_per_iter\\ntwo-stream,1,0,60\\nthree-naive,1,0,66\\n"
        "three-split,1,0,57\\n' > \"$res\"\n"
        "echo 'three-split 57 us'\n",
        cwd, data);
    fclose(f);
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    snprintf(p, sizeof p, "%s/nvidia-smi", fake);
    f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-0)'\n");
    fclose(f);
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    snprintf(cmd, sizeof cmd,
             "PATH=%s:$PATH TL_BIN=%s TL_GNUPLOT=/nonexistent scripts/demo.sh --out %s/demo " SMALL_SOLVER, fake,
             fake, t);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc == 0, "exit %d\n%s\n%s", rc, o, e);
    snprintf(p, sizeof p, "%s/demo", t);
    char *text = report_of(p);
    TL_ASSERT_MSG(strstr(text, "source: live run: bin/trilap-bench tristream on 1 GPU(s)"), "%s",
                  text);
    TL_ASSERT_MSG(strstr(text, "untraced timing of the same run"), "%s", text);
    check_one_rank_report(text);
    free(text);
    free(o);
    free(e);
}

/* nvidia-smi that fails (a machine whose driver is gone) counts as no GPU:
 * the demo replays the committed run instead of stopping. */
TL_TEST(failing_nvidia_smi_is_no_gpu)
{
    const char *t = tl_test_tmpdir();
    char fake[600], p[1024], cmd[4096];
    snprintf(fake, sizeof fake, "%s/bin", t);
    TL_ASSERT_EQ(mkdir(fake, 0755), 0);
    snprintf(p, sizeof p, "%s/nvidia-smi", fake);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the "
               "NVIDIA driver.'\nexit 9\n");
    fclose(f);
    TL_ASSERT_EQ(chmod(p, 0755), 0);
    snprintf(cmd, sizeof cmd, "PATH=%s:$PATH TL_GNUPLOT=/nonexistent scripts/demo.sh --out %s/demo " SMALL_SOLVER,
             fake, t);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc == 0, "exit %d\n%s\n%s", rc, o, e);
    TL_ASSERT_MSG(strstr(o, "source: recorded trace: no GPU visible"), "%s", o);
    free(o);
    free(e);
}

/* A broken trace: the step and the command are named, and the --out
 * folder is left as it was (it had lost the older report and kept a 0-byte
 * table over the last good one beside the last run's other files: a
 * first-hour QA finding); no folder of the failed run stays inside it. */
TL_TEST(failing_step_is_named)
{
    const char *t = tl_test_tmpdir();
    char runs[600], out[600], cmd[4096], p[1024];
    snprintf(runs, sizeof runs, "%s/runs", t);
    snprintf(out, sizeof out, "%s/demo", t);
    snprintf(cmd, sizeof cmd,
             "cp -r %s %s && sed -i '40s/.*/not,a,row/' %s/three-naive/trace.rank0.csv", data, runs,
             runs);
    TL_ASSERT_MSG(system(cmd) == 0, "%s", cmd);
    /* an older run's files: a failed run changes none of them */
    TL_ASSERT_EQ(mkdir(out, 0755), 0);
    snprintf(p, sizeof p, "%s/report.txt", out);
    tl_test_write(p, "old report\n");
    char old_table[700];
    snprintf(old_table, sizeof old_table, "%s/overlap-two-stream.txt", out);
    tl_test_write(old_table, "old table\n");
    snprintf(cmd, sizeof cmd, "TL_GNUPLOT=/nonexistent scripts/demo.sh --from %s --out %s", runs,
             out);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc != 0, "exit 0 on a broken trace\n%s", o);
    TL_ASSERT_MSG(strstr(e, "wrong field count"), "%s", e); /* trilap-analyze's own line */
    TL_ASSERT_MSG(strstr(e, "demo.sh: failed while analysing three-naive: trilap-analyze overlap "),
                  "%s", e);
    char *text = tl_test_read(p);
    TL_ASSERT_MSG(text && !strcmp(text, "old report\n"), "report.txt: %s", text ? text : "(gone)");
    free(text);
    text = tl_test_read(old_table);
    TL_ASSERT_MSG(text && !strcmp(text, "old table\n"), "overlap-two-stream.txt: %s", text ? text : "(gone)");
    free(text);
    char listing[1024];
    TL_ASSERT_EQ(tl_test_sh_to(listing, sizeof listing, "ls -A %s", out), 0);
    TL_ASSERT_MSG(!strcmp(listing, "overlap-two-stream.txt\nreport.txt\n"), "left in %s:\n%s", out, listing);
    free(o);
    free(e);
}

/* A figure gnuplot cannot draw: one line naming it and gnuplot's last
 * line, exit 1, --out as it was (demo.sh draws through the render
 * scripts' step, scripts/render-gp.sh, whose background wait lets a
 * Ctrl-C end a hung gnuplot: test_plots:render_interrupt_ends_gnuplot) */
TL_TEST(gnuplot_failure_is_one_line)
{
    const char *t = tl_test_tmpdir();
    char gp[600], out[600], cmd[4096];
    snprintf(gp, sizeof gp, "%s/gp", t);
    tl_test_write(gp, "#!/bin/sh\necho 'warning: a line before'\necho 'timeline.gp line 9: cannot draw' >&2\nexit 1\n");
    TL_ASSERT_EQ(chmod(gp, 0755), 0);
    snprintf(out, sizeof out, "%s/demo", t);
    snprintf(cmd, sizeof cmd, "TL_GNUPLOT='%s' scripts/demo.sh --from %s --out %s", gp, data, out);
    char *o = NULL, *e = NULL;
    int rc = tl_test_run(cmd, &o, &e);
    TL_ASSERT_MSG(rc == 1 && tl_test_one_line(e, "demo.sh: gnuplot could not draw ") &&
                      strstr(e, "/timeline.png (timeline.gp): timeline.gp line 9: cannot draw\n"),
                  "exit %d\n%s", rc, e);
    /* --out was not there before: a failed run leaves none */
    char listing[1024];
    TL_ASSERT_MSG(tl_test_sh_to(listing, sizeof listing, "ls -A %s 2>&1", out) != 0, "left in %s:\n%s", out, listing);
    free(o);
    free(e);
}

/* --gpus that is no number of GPUs: refused in one line before anything
 * is written (it ran the replay and exited 0: a first-hour QA finding),
 * and an --out that is a file */
TL_TEST(bad_gpus_refused)
{
    const char *t = tl_test_tmpdir();
    static const char *const bad[] = {"abc", "0", "-1", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tl_test_output r = tl_test_capture("scripts/demo.sh --gpus '%s' --out %s/d%zu", bad[i], t, i);
        char want[128];
        snprintf(want, sizeof want, "demo.sh: invalid --gpus '%s': a number of GPUs, 1 or more\n", bad[i]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want), "--gpus '%s': exit %d: %s", bad[i], r.rc, r.err);
        tl_test_output_free(&r);
        char d[600];
        snprintf(d, sizeof d, "%s/d%zu", t, i);
        TL_ASSERT_MSG(access(d, F_OK) != 0, "%s written", d);
    }
    /* --out naming a file: one line (mkdir's own came first) */
    char afile[600], want[700];
    snprintf(afile, sizeof afile, "%s/afile", t);
    tl_test_write(afile, "x\n");
    tl_test_output r = tl_test_capture("scripts/demo.sh --out %s", afile);
    snprintf(want, sizeof want, "demo.sh: --out %s: a file, not a folder\n", afile);
    TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, want), "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
}

/* The summary table's "traced it(us)" is the median iteration of the
 * slowest rank, as its note ("max over ranks") and compare's
 * iteration_time say: on the committed two-H200 run three-split's ranks
 * have medians 65.9 and 66.1 us, and the table gave rank 0's. */
TL_TEST(traced_iteration_max_over_ranks)
{
    const char *t = tl_test_tmpdir();
    char out[600], p[1024];
    snprintf(out, sizeof out, "%s/demo", t);
    tl_test_output r =
        tl_test_capture("TL_GNUPLOT=/nonexistent/gnuplot scripts/demo.sh --from results/tristream-h200x2 --out %s "
                        SMALL_SOLVER, out);
    TL_ASSERT_MSG(r.rc == 0, "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    char *text = report_of(out);
    static const char *const v[] = {"two-stream", "three-naive", "three-split"};
    for (int k = 0; k < 3; k++) {
        snprintf(p, sizeof p, "%s/overlap-%s.txt", out, v[k]);
        char *ov = tl_test_read(p);
        double want = -1;
        int ranks = 0;
        for (const char *l = strstr(ov, "iteration time:"); l; l = strstr(l + 1, "iteration time:")) {
            const char *m = strstr(l, "median ");
            TL_ASSERT(m);
            double x = strtod(m + 7, NULL);
            if (x > want) want = x;
            ranks++;
        }
        TL_ASSERT_MSG(ranks == 2, "%s: %d ranks' iteration times in\n%s", v[k], ranks, ov);
        char row[64];
        snprintf(row, sizeof row, "\n%-12s ", v[k]);
        const char *at = strstr(text, row);
        TL_ASSERT_MSG(at, "no row %s in\n%s", v[k], text);
        double got = strtod(at + strlen(row), NULL);
        TL_ASSERT_MSG(got == want, "%s: traced it(us) %.1f, the slowest rank's median %.1f\n%s", v[k], got, want, text);
        free(ov);
    }
    free(text);
}

/* The first scripts a user runs refuse a bad argument in one line, exit 2,
 * before they make anything, and demo.sh's --help is its whole header.
 * Before: demo.sh --out without a value was bash's '$2: unbound
 * variable' (exit 1); a word with no option was taken for --out,
 * undocumented, the last of several winning, and the demo ran into it;
 * --help stopped mid-sentence (lines 2-13 of a 15-line header); a
 * --solver-n that is no grid size is refused as --gpus is;
 * demo-solver.sh --n without a value was '$2: unbound variable', --n 0 ran
 * trilap-solve into its own refusal, and a missing OUT was a bare usage
 * line. */
TL_TEST(first_scripts_refuse_bad_arguments)
{
    const char *t = tl_test_tmpdir();
    static const char *const cases[][2] = {
        {"demo.sh --out", "demo.sh: --out needs a value (try --help)\n"},
        {"demo.sh --from", "demo.sh: --from needs a value (try --help)\n"},
        {"demo.sh OUTA OUTB", "demo.sh: invalid argument 'OUTA' (try --help)\n"},
        {"demo.sh --solver-n", "demo.sh: invalid --solver-n '': a grid size, 1 or more\n"},
        {"demo.sh --solver-n 0x10", "demo.sh: invalid --solver-n '0x10': a grid size, 1 or more\n"},
        {"demo-solver.sh OUTA --n", "demo-solver.sh: expected one OUT folder, got 2 argument(s) (usage: "
                                    "demo-solver.sh [--n N] [--iterations K] OUT; try --help)\n"},
        {"demo-solver.sh --n", "demo-solver.sh: invalid --n '': a positive integer (try --help)\n"},
        {"demo-solver.sh --n 0 OUTA", "demo-solver.sh: invalid --n '0': a positive integer (try --help)\n"},
        {"demo-solver.sh --iterations x OUTA", "demo-solver.sh: invalid --iterations 'x': a positive integer (try "
                                               "--help)\n"},
        {"demo-solver.sh", "demo-solver.sh: expected one OUT folder, got 0 argument(s) (usage: demo-solver.sh [--n "
                           "N] [--iterations K] OUT; try --help)\n"},
    };
    char top[4096];
    TL_ASSERT(getcwd(top, sizeof top));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = tl_test_capture("cd %s && %s/scripts/%s", t, top, cases[i][0]);
        TL_ASSERT_MSG(r.rc == 2 && !strcmp(r.err, cases[i][1]) && !*r.out, "%s: exit %d: %s", cases[i][0], r.rc,
                      r.err);
        tl_test_output_free(&r);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "%s wrote in %s", cases[i][0], t);
    }
    /* --help: the header to its last line, no code */
    tl_test_output r = tl_test_capture("scripts/demo.sh --help");
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "(the solver part, DIR/solver, is written in place).\n") &&
                      !strstr(r.out, "set -"),
                  "%s", r.out);
    tl_test_output_free(&r);
}

/* A failed run leaves no --out it made (the folders of "a b/demo", a
 * blank in the name), and an --out it cannot write in is one line, exit 1,
 * before the work. Before: the failed run left "a b/demo" empty (--out
 * "as it was" only where it was there before), and a read-only --out
 * printed mktemp's line and "failed while making ..." twice, once for the
 * command substitution and once for the assignment. The read-only --out
 * is a read-only bind mount (unshare -rm), which root cannot write either. */
TL_TEST(failed_run_leaves_no_out_it_made)
{
    const char *t = tl_test_tmpdir();
    tl_test_output r = tl_test_capture("TL_GNUPLOT=/nonexistent scripts/demo.sh --from %s/none --out '%s/a b/demo'", t, t);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, "demo.sh: no trace "), "exit %d: %s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", t) == 0, "a folder stayed in %s", t);
    if (tl_test_sh("unshare -rm true 2>/dev/null") != 0) TL_SKIP("a read-only --out needs unshare -rm");
    r = tl_test_capture("mkdir %s/ro && unshare -rm sh -c 'mount --bind -o ro %s/ro %s/ro && "
                        "TL_GNUPLOT=/nonexistent scripts/demo.sh --from results/tristream-h200x2 --out %s/ro'",
                        t, t, t, t);
    char want[800];
    snprintf(want, sizeof want, "demo.sh: cannot write in --out %s/ro\n", t);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, want) && tl_test_count(r.err, "\n") == 2 && !*r.out, "exit %d: %s%s",
                  r.rc, r.out, r.err);
    tl_test_output_free(&r);
}

TL_TEST_MAIN(bad_gpus_refused, gnuplot_failure_is_one_line, first_scripts_refuse_bad_arguments, one_gpu_trace_without_gnuplot,
             one_gpu_trace_renders, live_one_gpu_path, failing_nvidia_smi_is_no_gpu, failing_step_is_named,
             traced_iteration_max_over_ranks, failed_run_leaves_no_out_it_made)
