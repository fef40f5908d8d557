/* bin/trilap-solve end to end: every method on the shared matrices and
 * generated ones under mpirun with 1-4 ranks and under the thread launcher,
 * the output keys and files, and the error paths (missing file, NaN in the
 * matrix, partition file of the wrong length, non-SPD matrix, bad options). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* What the last run() printed, or the file last read with load(). */
static char *out_buf, *err_buf;

/* Run a shell command; stdout and stderr land in out_buf / err_buf. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    free(out_buf);
    free(err_buf);
    int rc = tl_test_run(cmd, &out_buf, &err_buf);
    /* a failing run's own words in the test's log, not only its exit code */
    if (rc != 0) fprintf(stderr, "$ %s -> %d\n%s%s", cmd, rc, out_buf, err_buf);
    return rc;
}

/* Read `path` into out_buf, for value() and count_of(). */
static void load(const char *path)
{
    free(out_buf);
    out_buf = tl_test_slurp(path);
}

static const char *bin(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/trilap-solve", tl_test_env("TL_BIN", "bin"));
    return path;
}
static void need_mpi(void)
{
    if (strcmp(tl_test_env("TL_HAVE_MPI", "1"), "1") != 0 || !getenv("TL_MPIRUN") ||
        !*getenv("TL_MPIRUN"))
        TL_SKIP("needs MPI (TL_MPIRUN)");
}
static const char *mpirun(int np)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s -np %d --oversubscribe", getenv("TL_MPIRUN"), np);
    return buf;
}

/* The n-th (0-based) value of "key: " in out_buf, or NULL. */
static const char *value(const char *key, int nth)
{
    static char val[256];
    char pat[128];
    snprintf(pat, sizeof pat, "\n%s: ", key);
    const char *p = out_buf - 1;
    /* out_buf starts with a key too: look at "\n" + key, treating the start as a newline */
    if (strncmp(out_buf, pat + 1, strlen(pat + 1)) == 0 && nth-- == 0) {
        p = out_buf + strlen(pat + 1);
    } else {
        p = out_buf;
        for (;;) {
            p = strstr(p, pat);
            if (!p) return NULL;
            p += strlen(pat);
            if (nth-- == 0) break;
        }
    }
    size_t n = strcspn(p, "\n");
    if (n >= sizeof val) n = sizeof val - 1;
    memcpy(val, p, n);
    val[n] = 0;
    return val;
}

static int count_of(const char *needle)
{
    int n = 0;
    for (const char *p = out_buf; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Every solver block converged, and the pipelined variants are within
 * `tol` iterations of the classic ones (solvers run in the order given). */
static void check_blocks(const char *what, int nblocks, const char *const *solvers, int tol)
{
    long its[8] = {0};
    TL_ASSERT_MSG(count_of("converged: yes") == nblocks, "%s: %d of %d converged\n%s\n%s", what,
                  count_of("converged: yes"), nblocks, out_buf, err_buf);
    for (int k = 0; k < nblocks; k++) {
        TL_ASSERT_STREQ(value("solver", k), solvers[k]);
        its[k] = atol(value("iterations", k));
        double res = atof(value("residual", k)), tres = atof(value("true residual", k));
        TL_ASSERT_MSG(res > 0 && tres > 0 && tres < 1e-3, "%s %s: residual %g, true %g", what,
                      solvers[k], res, tres);
    }
    for (int k = 0; k < nblocks; k++)
        for (int j = 0; j < nblocks; j++)
            if (strncmp(solvers[k], "pipe", 4) == 0 && strcmp(solvers[k] + 4, solvers[j]) == 0)
                TL_ASSERT_MSG(labs(its[k] - its[j]) <= tol, "%s: %s %ld vs %s %ld", what,
                              solvers[k], its[k], solvers[j], its[j]);
    for (int k = 0; k < nblocks; k++)
        if (strcmp(solvers[k], "pipecg") == 0)
            for (int j = 0; j < nblocks; j++)
                if (strcmp(solvers[j], "pcg") == 0)
                    TL_ASSERT_MSG(labs(its[k] - its[j]) <= tol, "%s: pipecg %ld vs pcg %ld", what,
                                  its[k], its[j]);
}

static const char *const all5[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
static const char *const cg3[] = {"cg", "pcg", "pipecg"};
static const char *const bicg2[] = {"bicgstab", "pipebicgstab"};
#define QUICK "--warmup 0 --repeat 1 --no-stats"

TL_TEST(mpi_1_to_4_ranks_every_method)
{
    need_mpi();
    for (int r = 1; r <= 4; r++) {
        char what[64];
        snprintf(what, sizeof what, "ani4 on %d ranks", r);
        TL_ASSERT_EQ(run("%s %s " QUICK
                         " --solver cg,pcg,pipecg,bicgstab,pipebicgstab --rtol 1e-8 %s",
                         mpirun(r), bin(), tl_test_matrix("ani4.mtx")),
                     0);
        TL_ASSERT_EQ(atoi(value("ranks", 0)), r);
        TL_ASSERT_STREQ(value("launcher", 0), "mpi");
        /* BiCGStab's convergence on ani4 is erratic; the pipelined variant
         * lands within ~20% of the classic one */
        check_blocks(what, 5, all5, 60);
        snprintf(what, sizeof what, "poisson27 on %d ranks", r);
        TL_ASSERT_EQ(
            run("%s %s " QUICK
                " --solver cg,pcg,pipecg,bicgstab,pipebicgstab --rtol 1e-8 gen:poisson27:9",
                mpirun(r), bin()),
            0);
        check_blocks(what, 5, all5, 2);
        /* 1138_bus (SPD, cond ~1e6; with Jacobi): the CG family to 1e-5, the
         * attainable accuracy of pipelined CG here being ~1e-6 */
        snprintf(what, sizeof what, "1138_bus on %d ranks", r);
        TL_ASSERT_EQ(run("%s %s " QUICK " --solver cg,pcg,pipecg --precond jacobi --rtol 1e-5 %s",
                         mpirun(r), bin(), tl_test_matrix("1138_bus.mtx")),
                     0);
        check_blocks(what, 3, cg3, 30);
        snprintf(what, sizeof what, "ani1_nonsymm on %d ranks", r);
        TL_ASSERT_EQ(run("%s %s " QUICK " --solver bicgstab,pipebicgstab --rtol 1e-8 %s", mpirun(r),
                         bin(), tl_test_matrix("ani1_nonsymm.mtx")),
                     0);
        check_blocks(what, 2, bicg2, 6);
        snprintf(what, sizeof what, "convdiff on %d ranks", r);
        TL_ASSERT_EQ(run("%s %s " QUICK
                         " --solver bicgstab,pipebicgstab --rtol 1e-8 gen:convdiff:12",
                         mpirun(r), bin()),
                     0);
        check_blocks(what, 2, bicg2, 2);
    }
}

TL_TEST(bicgstab_on_1138_bus)
{
    /* 1138_bus is SPD with b = ones; with r0~ = r0 BiCGStab stagnates near
     * 3e-4 while (r0~, r) decays to rounding level and then to exactly 0
     * (PETSc's KSPBCGS breaks down there too on 2 and 4 ranks). Both
     * variants restart with r0~ = r when that happens (TL_BICG_RESTART) and
     * reach 1e-6 on 1 to 4 ranks, under mpirun and the thread launcher. */
    for (int r = 1; r <= 4; r++) {
        TL_ASSERT_EQ(run("%s %s " QUICK " --solver bicgstab,pipebicgstab --precond jacobi "
                         "--rtol 1e-6 --max-iterations 20000 %s",
                         mpirun(r), bin(), tl_test_matrix("1138_bus.mtx")),
                     0);
        TL_ASSERT_MSG(count_of("converged: yes") == 2, "%d ranks:\n%s", r, out_buf);
        TL_ASSERT_MSG(strstr(out_buf, "restarts: "), "%d ranks: no restart reported:\n%s", r, out_buf);
        for (int k = 0; k < 2; k++)
            TL_ASSERT_MSG(atof(value("true residual", k)) <= 2e-6, "%d ranks: true residual %s", r,
                          value("true residual", k));
    }
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 2 --no-gpu --solver bicgstab,pipebicgstab "
                     "--precond jacobi --rtol 1e-6 --max-iterations 20000 %s",
                     bin(), tl_test_matrix("1138_bus.mtx")),
                 0);
    TL_ASSERT_EQ(count_of("converged: yes"), 2);
}

TL_TEST(pipecg_hetero2d_mpi)
{
    /* issue 11 as a user ran it: a two-phase medium (coefficients 1e-2 and
     * 1e2, 2,704 rows), Jacobi, 1e-8, on 1 and 3 MPI ranks. pipecg used to
     * stop with "matrix not SPD"; now both converge with the true residual
     * within 10x of the tolerance, and pipecg reports its replacements */
    need_mpi();
    for (int r = 1; r <= 3; r += 2) {
        TL_ASSERT_EQ(run("%s %s " QUICK " --solver pcg,pipecg --precond jacobi --rtol 1e-8 "
                         "gen:hetero2d:52:4",
                         mpirun(r), bin()),
                     0);
        TL_ASSERT_MSG(count_of("converged: yes") == 2, "%d ranks:\n%s", r, out_buf);
        TL_ASSERT_MSG(strstr(out_buf, "residual replacements: "), "%d ranks:\n%s", r, out_buf);
        for (int k = 0; k < 2; k++)
            TL_ASSERT_MSG(atof(value("true residual", k)) <= 1e-7, "%d ranks: true residual %s", r,
                          value("true residual", k));
    }
}

TL_TEST(thread_launcher_every_method)
{
    for (int r = 1; r <= 4; r += 3) {
        char what[64];
        snprintf(what, sizeof what, "threads, %d ranks", r);
        TL_ASSERT_EQ(
            run("%s " QUICK
                " --launcher threads --ranks %d --solver cg,pcg,pipecg,bicgstab,pipebicgstab "
                "--rtol 1e-8 --schedule two-stream gen:poisson7:12",
                bin(), r),
            0);
        TL_ASSERT_STREQ(value("launcher", 0), "threads");
        TL_ASSERT_STREQ(value("schedule", 0), "two-stream");
        check_blocks(what, 5, all5, 2);
        TL_ASSERT_EQ(
            run("%s " QUICK
                " --launcher threads --ranks %d --solver bicgstab,pipebicgstab --rtol 1e-8 %s",
                bin(), r, tl_test_matrix("ani1_nonsymm.mtx")),
            0);
        check_blocks(what, 2, bicg2, 6);
    }
}

/* Every run of one invocation starts from a clean state: with several
 * schedules and solvers (and warm-up + repeats) in one process, each
 * (solver, schedule) block and each timed solve's CSV row equals a run of
 * that solver alone (the host schedules differ only in the MPI channel, so
 * the numbers are the same to the last printed digit). The CUDA backend
 * once broke every run after the first of a process (device memory
 * reused from the previous run, zero-fills not ordered with its streams);
 * this is the same check on the host backend, with host and program
 * scalars. */
TL_TEST(runs_in_one_invocation_equal_single_runs)
{
    static const char *const modes[] = {"host", "program"};
    static const char *const sched[] = {"sync", "two-stream", "three-naive", "three-split"};
    const char *dir = tl_test_tmpdir();
    for (int m = 0; m < 2; m++) {
        char csv[600];
        snprintf(csv, sizeof csv, "%s/multi_%s.csv", dir, modes[m]);
        TL_ASSERT_EQ(run("%s --launcher threads --ranks 2 --no-stats --warmup 1 --repeat 2 "
                         "--scalars %s --schedule all --solver cg,pcg,pipecg,bicgstab,pipebicgstab "
                         "--results %s gen:poisson7:12",
                         bin(), modes[m], csv),
                     0);
        char *multi = out_buf;
        /* every block names its schedule: 4 schedules x 5 methods */
        TL_ASSERT(value("schedule", 19) != NULL && value("schedule", 20) == NULL);
        out_buf = NULL;
        for (int k = 0; k < 5; k++) {
            TL_ASSERT_EQ(run("%s --launcher threads --ranks 2 --no-stats --warmup 0 --repeat 1 "
                             "--scalars %s --schedule sync --solver %s gen:poisson7:12",
                             bin(), modes[m], all5[k]),
                         0);
            char its[64], res[64], tres[64];
            snprintf(its, sizeof its, "%s", value("iterations", 0));
            snprintf(res, sizeof res, "%s", value("residual", 0));
            snprintf(tres, sizeof tres, "%s", value("true residual", 0));
            TL_ASSERT_MSG(atol(its) > 3, "%s alone: %s iterations", all5[k], its);
            char *single = out_buf;
            out_buf = multi;
            for (int c = 0; c < 4; c++) {
                int b = c * 5 + k; /* schedules outer, solvers inner */
                TL_ASSERT_STREQ(value("solver", b), all5[k]);
                TL_ASSERT_STREQ(value("schedule", b), sched[c]);
                TL_ASSERT_MSG(strcmp(value("iterations", b), its) == 0 &&
                                  strcmp(value("residual", b), res) == 0 &&
                                  strcmp(value("true residual", b), tres) == 0,
                              "scalars %s, %s %s (run %d of the invocation): iterations %s, "
                              "residual %s, true %s; alone: %s, %s, %s",
                              modes[m], all5[k], sched[c], b + 1, value("iterations", b),
                              value("residual", b), value("true residual", b), its, res, tres);
            }
            multi = out_buf;
            out_buf = single;
            /* every timed solve (2 per block) in the CSV */
            char *rows = tl_test_slurp(csv);
            int nrows = 0;
            for (char *line = strchr(rows, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
                char solver[32] = "";
                long it = -1;
                /* solver,precond,schedule,backend,"matrix",nranks,rep,iterations,... */
                if (sscanf(line + 1, "%31[^,]", solver) != 1 || strcmp(solver, all5[k]) != 0)
                    continue;
                const char *q = strchr(line + 1, '"');
                q = q ? strchr(q + 1, '"') : NULL;
                TL_ASSERT(q && sscanf(q + 1, ",%*d,%*d,%ld", &it) == 1);
                TL_ASSERT_MSG(it == atol(its), "CSV row of %s: %ld iterations, alone %s", all5[k],
                              it, its);
                nrows++;
            }
            free(rows);
            TL_ASSERT_EQ(nrows, 4 * 2);
        }
        free(multi);
    }
}

/* A run of cg per schedule: before, both blocks were headed "solver: cg"
 * with no schedule line while the CSV rows said sync and three-split, and
 * manifest.txt said "schedule:" as typed (all, or the list) instead of
 * what ran. The schedule makes cg's halo and allreduce blocking or
 * overlapped, so each block names it; the manifest lists the schedules
 * run, in order. A matrix name's quotes are doubled in its row. */
TL_TEST(schedules_named_in_blocks_rows_and_manifest)
{
    const char *d = tl_test_tmpdir();
    TL_ASSERT_EQ(run("cp %s '%s/m\"x,1.mtx'", tl_test_matrix("ani4.mtx"), d), 0);
    TL_ASSERT_EQ(run("%s --launcher threads --ranks 2 --no-stats --solver cg --schedule three-split,sync --warmup 0 "
                     "--repeat 1 --precond none --rtol 0 --atol 0 --max-iterations 5 --results %s/r/r.csv '%s/m\"x,1.mtx'",
                     bin(), d, d),
                 0);
    TL_ASSERT_STREQ(value("schedule", 0), "three-split");
    TL_ASSERT_STREQ(value("schedule", 1), "sync");
    char path[700], want[800];
    snprintf(path, sizeof path, "%s/r/r.csv", d);
    load(path);
    const char *row = strchr(out_buf, '\n');
    TL_ASSERT(row);
    snprintf(want, sizeof want, "cg,none,three-split,host,\"%s/m\"\"x,1.mtx\",2,0,", d);
    TL_ASSERT_MSG(strncmp(row + 1, want, strlen(want)) == 0, "want %s in\n%s", want, out_buf);
    TL_ASSERT_EQ(tl_test_csv_fields(row + 1), tl_test_csv_fields(out_buf));
    row = strchr(row + 1, '\n');
    TL_ASSERT(row && strncmp(row + 1, "cg,none,sync,host,", 18) == 0);
    snprintf(path, sizeof path, "%s/r/manifest.txt", d);
    load(path);
    TL_ASSERT_MSG(strstr(out_buf, "\nschedule: three-split,sync\n"), "%s", out_buf);
    TL_ASSERT_EQ(run("%s --launcher threads --ranks 1 --no-stats --solver cg --schedule all --warmup 0 --repeat 1 "
                     "--rtol 0 --atol 0 --max-iterations 5 --results %s/all/r.csv gen:poisson7:6",
                     bin(), d),
                 0);
    snprintf(path, sizeof path, "%s/all/manifest.txt", d);
    load(path);
    TL_ASSERT_MSG(strstr(out_buf, "\nschedule: sync,two-stream,three-naive,three-split\n"), "%s", out_buf);
}

TL_TEST(output_keys_files_and_tables)
{
    const char *d = tl_test_tmpdir();
    TL_ASSERT_EQ(
        run("%s --launcher threads --ranks 2 --warmup 1 --repeat 3 --solver pipecg --rtol 1e-8 "
            "--results %s/r/solve.csv --history %s/h.csv --solution %s/x.mtx --trace %s/trace %s",
            bin(), d, d, d, d, tl_test_matrix("ani4.mtx")),
        0);
    const char *keys[] = {"solver",        "precond",     "schedule",      "backend",
                          "ranks",         "matrix",      "rows",          "nonzeros",
                          "converged",     "reason",      "iterations",    "residual",
                          "true residual", "solver time", "residual base", "partition"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        TL_ASSERT_MSG(value(keys[k], 0), "no key %s", keys[k]);
    TL_ASSERT_STREQ(value("rows", 0), "3081");
    TL_ASSERT_STREQ(value("nonzeros", 0), "20971");
    TL_ASSERT_STREQ(value("precond", 0), "jacobi");
    TL_ASSERT_STREQ(value("schedule", 0), "three-split");
    TL_ASSERT(strstr(value("solver time", 0), " s"));
    TL_ASSERT(strstr(value("residual base", 0), "||b||"));
    TL_ASSERT_STREQ(value("timed solves", 0), "3");
    /* the tables */
    TL_ASSERT(strstr(out_buf, "operation") && strstr(out_buf, "GB/s") &&
              strstr(out_buf, "allreduce"));
    /* the host has no persistent loop: no row of zeros for it (before: "loop 0 0.0000e+00 ...", "# 7 rows") */
    TL_ASSERT_MSG(!strstr(out_buf, "\nloop ") && strstr(out_buf, "\n# 6 rows\n"), "%s", out_buf);
    TL_ASSERT(strstr(out_buf, "neighbours") && strstr(out_buf, "B/exchange"));
    char path[1024];
    /* results: header + one row per timed solve; manifest beside it */
    snprintf(path, sizeof path, "%s/r/solve.csv", d);
    load(path);
    TL_ASSERT(
        strncmp(
            out_buf,
            "solver,precond,schedule,backend,matrix,nranks,rep,iterations,residual,true_residual,"
            "solver_time_s",
            97) == 0);
    TL_ASSERT_EQ(count_of("\npipecg,jacobi,three-split,host,"), 3);
    snprintf(path, sizeof path, "%s/r/manifest.txt", d);
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no %s", path);
    snprintf(path, sizeof path, "%s/h.csv", d);
    load(path);
    TL_ASSERT(strncmp(out_buf, "iteration,residual,relative_residual\n0,", 39) == 0);
    snprintf(path, sizeof path, "%s/x.mtx", d);
    load(path);
    TL_ASSERT(strncmp(out_buf, "%%MatrixMarket matrix array real general", 39) == 0);
    TL_ASSERT(strstr(out_buf, "3081 1\n"));
    snprintf(path, sizeof path, "%s/trace/trace.rank1.csv", d);
    TL_ASSERT_MSG(access(path, R_OK) == 0, "no %s", path);
    load(path);
    TL_ASSERT(strstr(out_buf, "spmv_diag") && strstr(out_buf, "halo_wait") &&
              strstr(out_buf, "allreduce_post"));
}

TL_TEST(solution_file_solves_the_system)
{
    /* x0 and b from files; the written solution gives a small residual when
     * read back as x0 (the solve then stops at once) */
    const char *d = tl_test_tmpdir();
    char b[600], x0[600];
    snprintf(b, sizeof b, "%s/b.mtx", d);
    snprintf(x0, sizeof x0, "%s/x0.mtx", d);
    FILE *f = fopen(b, "w");
    fprintf(f, "%%%%MatrixMarket matrix array real general\n36 1\n");
    for (int i = 0; i < 36; i++)
        fprintf(f, "%d\n", 1 + i % 5);
    fclose(f);
    f = fopen(x0, "w");
    fprintf(f, "%%%%MatrixMarket matrix array real general\n36 1\n");
    for (int i = 0; i < 36; i++)
        fprintf(f, "0.5\n");
    fclose(f);
    TL_ASSERT_EQ(run("%s " QUICK " --solver pipebicgstab --rtol 1e-10 --solution %s/x.mtx %s %s %s",
                     bin(), d, tl_test_matrix("ani1_nonsymm.mtx"), b, x0),
                 0);
    long its = atol(value("iterations", 0));
    TL_ASSERT(its > 5);
    TL_ASSERT_EQ(run("%s " QUICK " --solver pipebicgstab --rtol-base b --rtol 1e-8 %s %s %s/x.mtx",
                     bin(), tl_test_matrix("ani1_nonsymm.mtx"), b, d),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "0");
    TL_ASSERT_STREQ(value("converged", 0), "yes");
    /* with several solvers each file takes the solver's name before its
     * extension and keeps its gzip (x.mtx.gz.cg was plain text, h.csv.cg
     * no .csv) */
    TL_ASSERT_EQ(run("%s " QUICK " --solver bicgstab,pipebicgstab --rtol 1e-10 --solution %s/z.mtx.gz --history %s/h.csv "
                     "%s %s %s",
                     bin(), d, d, tl_test_matrix("ani1_nonsymm.mtx"), b, x0),
                 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip -t z.bicgstab.mtx.gz z.pipebicgstab.mtx.gz && test -s h.bicgstab.csv && "
                            "test -s h.pipebicgstab.csv && test ! -e z.mtx.gz.bicgstab",
                            d),
                 0);
    char said[1200];
    snprintf(said, sizeof said, "history: %s/h.bicgstab.csv\nsolution: %s/z.bicgstab.mtx.gz\n", d, d);
    TL_ASSERT_MSG(strstr(out_buf, said), "the files written not said:\n%s", out_buf);
    TL_ASSERT_EQ(run("%s " QUICK " --solver pipebicgstab --rtol-base b --rtol 1e-8 %s %s %s/z.pipebicgstab.mtx.gz",
                     bin(), tl_test_matrix("ani1_nonsymm.mtx"), b, d),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "0");
    /* a history named .gz is gzip, as the solution (plain text before);
     * /dev/null takes every run's output */
    TL_ASSERT_EQ(run("%s " QUICK " --solver bicgstab,pipebicgstab --history %s/g.csv.gz --solution /dev/null %s", bin(), d,
                     tl_test_matrix("ani1_nonsymm.mtx")),
                 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip -t g.bicgstab.csv.gz && zcat g.pipebicgstab.csv.gz | head -n 1 | "
                            "grep -qx iteration,residual,relative_residual",
                            d),
                 0);
    TL_ASSERT_MSG(!strstr(out_buf, "solution:"), "a device said as a file written:\n%s", out_buf);
    /* .gz in any case is gzip (g.CSV.GZ held plain text), and each run's name
     * goes before it */
    TL_ASSERT_EQ(run("%s " QUICK " --solver bicgstab,pipebicgstab --history %s/u.CSV.GZ %s", bin(), d,
                     tl_test_matrix("ani1_nonsymm.mtx")),
                 0);
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip -t < u.bicgstab.CSV.GZ && gzip -t < u.pipebicgstab.CSV.GZ", d), 0);
    /* /dev/null kept its name for each run: as root /dev/null.bicgstab was made */
    TL_ASSERT_EQ(tl_test_sh("test ! -e /dev/null.bicgstab && test ! -e /dev/null.pipebicgstab"), 0);
    /* an output over an input: the solution that restarts a run, written
     * over the x0 it was given (it ran, and the x0 was gone); the options
     * clash, exit 2 */
    TL_ASSERT_EQ(tl_test_sh("cp %s/x0.mtx %s/x.bicgstab.mtx", d, d), 0);
    TL_ASSERT_EQ(run("%s " QUICK " --solver bicgstab,pipebicgstab --solution %s/x.mtx %s %s %s/x.bicgstab.mtx", bin(),
                     d, tl_test_matrix("ani1_nonsymm.mtx"), b, d),
                 2);
    TL_ASSERT_MSG(strstr(err_buf, "--solution ") && strstr(err_buf, "would write over the input ") && !out_buf[0],
                  "%s", err_buf);
    TL_ASSERT_EQ(tl_test_sh("cmp -s %s/x0.mtx %s/x.bicgstab.mtx && test ! -e %s/x.pipebicgstab.mtx", d, d, d), 0);
}

TL_TEST(partition_file_and_rtol_base)
{
    const char *d = tl_test_tmpdir();
    char part[600];
    snprintf(part, sizeof part, "%s/part.mtx", d);
    FILE *f = fopen(part, "w");
    fprintf(f, "%%%%MatrixMarket matrix array integer general\n36 1\n");
    for (int i = 0; i < 36; i++)
        fprintf(f, "%d\n", (i / 5) % 3);
    fclose(f);
    TL_ASSERT_EQ(run("%s " QUICK
                     " --launcher threads --ranks 3 --partition %s --solver pipebicgstab %s",
                     bin(), part, tl_test_matrix("ani1_nonsymm.mtx")),
                 0);
    TL_ASSERT(strncmp(value("partition", 0), part, strlen(part)) == 0);
    TL_ASSERT_STREQ(value("converged", 0), "yes");
    TL_ASSERT_EQ(run("%s " QUICK
                     " --launcher threads --ranks 2 --partition block --rtol-base r0 --rtol 1e-6 "
                     "--solver pcg gen:poisson7:8",
                     bin()),
                 0);
    TL_ASSERT(strstr(value("residual base", 0), "||r0||"));
    TL_ASSERT(strstr(value("reason", 0), "rtol * ||r0||"));
    TL_ASSERT(strncmp(value("partition", 0), "block (2 parts", 14) == 0);
}

TL_TEST(fixed_iterations_and_exit_codes)
{
    TL_ASSERT_EQ(run("%s " QUICK
                     " --solver pipecg,pipebicgstab --rtol 0 --atol 0 --max-iterations 25 %s",
                     bin(), tl_test_matrix("ani4.mtx")),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "25");
    TL_ASSERT_STREQ(value("iterations", 1), "25");
    TL_ASSERT(strstr(value("reason", 0), "fixed"));
    /* not converged within the limit: exit 3, reason said */
    TL_ASSERT_EQ(
        run("%s " QUICK " --solver pcg --max-iterations 5 %s", bin(), tl_test_matrix("ani4.mtx")),
        3);
    TL_ASSERT_STREQ(value("converged", 0), "no");
    TL_ASSERT(strstr(value("reason", 0), "maximum iterations"));
    /* fixed-iteration mode past rounding level (poisson7:40 reaches it near
     * iteration 140, where pipecg used to stop with "matrix not SPD"):
     * exactly the iterations asked for, and the output says where */
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 2 --no-gpu --rtol 0 --atol 0"
                     " --max-iterations 200 gen:poisson7:40",
                     bin()),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "200");
    const char *why = value("reason", 0);
    TL_ASSERT(why && strstr(why, "fixed") && strstr(why, "rounding level"));
    const char *rl = value("rounding level", 0);
    TL_ASSERT(rl && strstr(rl, "from iteration"));
}

/* The scalar-program pipecg (what --backend cuda runs) in benchmark mode:
 * on 1138_bus p'Ap goes negative above rounding level near iteration
 * 1120, where the program used to stop ("matrix not SPD", the GPU
 * protocol run of poisson7:128 at 702 of 8800); now the step restarts the
 * direction and the run does the iterations asked for, counting them */
TL_TEST(fixed_iterations_scalar_program_1138_bus)
{
    TL_ASSERT_EQ(run("%s " QUICK " --solver pipecg --scalars program --rtol 0 --atol 0"
                     " --max-iterations 1500 %s",
                     bin(), tl_test_matrix("1138_bus.mtx")),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "1500");
    TL_ASSERT(strstr(value("reason", 0), "fixed"));
    const char *rs = value("restarts", 0);
    TL_ASSERT_MSG(rs && atoi(rs) >= 1, "restarts: %s", rs ? rs : "(none)");
    /* past rounding level: sticky, as method_pipecg.c says it */
    TL_ASSERT_EQ(run("%s " QUICK " --solver pipecg --scalars program --rtol 0 --atol 0"
                     " --max-iterations 600 gen:poisson7:40",
                     bin()),
                 0);
    TL_ASSERT_STREQ(value("iterations", 0), "600");
    TL_ASSERT(strstr(value("reason", 0), "rounding level"));
}

/* cg and pcg in benchmark mode run the iterations asked for past the
 * underflow of their scalars (they stopped "breakdown: (r, M^-1 r) = 0"
 * at 356 and 353 before), restarting from b - A x; under mpirun and the
 * thread launcher, on host scalars and the scalar program, the same
 * iterations, restarts and residuals. */
TL_TEST(fixed_iterations_cg_restarts_mpi_equals_threads)
{
    need_mpi();
    static const char *const keys[] = {"iterations", "restarts", "rounding level", "residual",
                                       "true residual"};
    const char *scalars[] = {"host", "program"};
    for (int k = 0; k < 2; k++) {
        char got[2][2][5][256];
        for (int l = 0; l < 2; l++) {
            TL_ASSERT_EQ(run("%s %s " QUICK " %s --solver cg,pcg --scalars %s --rtol 0 --atol 0"
                             " --max-iterations 1000 gen:poisson7:8",
                             l ? "" : mpirun(2), bin(),
                             l ? "--launcher threads --ranks 2 --no-gpu" : "", scalars[k]),
                         0);
            TL_ASSERT_STREQ(value("launcher", 0), l ? "threads" : "mpi");
            for (int b = 0; b < 2; b++)
                for (int j = 0; j < 5; j++) {
                    const char *v = value(keys[j], b);
                    TL_ASSERT_MSG(v, "%s scalars, %s, block %d: no '%s'", scalars[k],
                                  l ? "threads" : "mpi", b, keys[j]);
                    snprintf(got[l][b][j], sizeof got[l][b][j], "%s", v);
                }
        }
        for (int b = 0; b < 2; b++) {
            TL_ASSERT_STREQ(got[0][b][0], "1000");
            TL_ASSERT_MSG(atoi(got[0][b][1]) >= 2, "%s: restarts %s", b ? "pcg" : "cg",
                          got[0][b][1]);
            for (int j = 0; j < 5; j++)
                TL_ASSERT_STREQ(got[0][b][j], got[1][b][j]);
        }
    }
}

TL_TEST(not_spd_matrix_to_cg)
{
    const char *d = tl_test_tmpdir();
    char path[600];
    snprintf(path, sizeof path, "%s/indef.mtx", d);
    FILE *f = fopen(path, "w");
    /* tridiag(-1, -1, -1), symmetric indefinite */
    fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n20 20 39\n");
    for (int i = 1; i <= 20; i++)
        fprintf(f, "%d %d -1\n", i, i);
    for (int i = 2; i <= 20; i++)
        fprintf(f, "%d %d -1\n", i, i - 1);
    fclose(f);
    TL_ASSERT_EQ(run("%s " QUICK " --solver cg,pcg,pipecg %s", bin(), path), 3);
    TL_ASSERT_EQ(count_of("reason: matrix not SPD"), 3);
    TL_ASSERT_EQ(count_of("converged: no"), 3);
}

TL_TEST(bad_inputs_fail_clearly)
{
    const char *d = tl_test_tmpdir();
    char path[600], part[600];
    /* missing file */
    TL_ASSERT(run("%s " QUICK " %s/no-such.mtx", bin(), d) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "no-such.mtx"), "stderr: %s", err_buf);
    TL_ASSERT(!strstr(out_buf, "converged"));
    /* NaN in the matrix */
    snprintf(path, sizeof path, "%s/nan.mtx", d);
    FILE *f = fopen(path, "w");
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 nan\n3 3 1\n");
    fclose(f);
    TL_ASSERT(run("%s " QUICK " %s", bin(), path) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "nan.mtx:4"), "stderr: %s", err_buf);
    /* partition file of the wrong length (3 entries for 36 rows) */
    snprintf(part, sizeof part, "%s/part.mtx", d);
    f = fopen(part, "w");
    fprintf(f, "%%%%MatrixMarket matrix array integer general\n3 1\n0\n1\n0\n");
    fclose(f);
    TL_ASSERT(run("%s " QUICK " --launcher threads --ranks 2 --partition %s %s", bin(), part,
                  tl_test_matrix("ani1_nonsymm.mtx")) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "part.mtx"), "stderr: %s", err_buf);
    /* a right-hand side of the wrong length */
    TL_ASSERT(run("%s " QUICK " %s %s", bin(), tl_test_matrix("ani1_nonsymm.mtx"), part) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "part.mtx"), "stderr: %s", err_buf);
    /* a partition that is neither a method nor a file: the command line's
     * fault, exit 2, before the launch (it was refused in the run, exit 1) */
    TL_ASSERT_EQ(run("%s " QUICK " --partition metis-foo gen:poisson7:4", bin()), 2);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "invalid --partition 'metis-foo': not block, metis or metis-recursive, "
                                            "and no file of that name (try --help)"),
                  "stderr: %s", err_buf);
    /* a name with a folder or an extension is a file that is missing, as
     * a missing matrix is: exit 1, "cannot open" (it was exit 2, "not
     * block, metis or metis-recursive") */
    const char *missing[] = {"nofile.mtx", "nodir/part"};
    for (int k = 0; k < 2; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " --partition %s/%s gen:poisson7:4", bin(), d, missing[k]), 1);
        char want[800];
        snprintf(want, sizeof want, "--partition: %s/%s: cannot open: No such file or directory", d, missing[k]);
        TL_ASSERT_MSG(tl_test_one_line(err_buf, want), "stderr: %s", err_buf);
        TL_ASSERT_MSG(!out_buf[0], "stdout: %s", out_buf);
    }
    TL_ASSERT_EQ(run("%s " QUICK " --partition nofile.mtx gen:poisson7:4", bin()), 1);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "--partition: nofile.mtx: cannot open: No such file or directory"),
                  "stderr: %s", err_buf);
    TL_ASSERT_EQ(run("%s " QUICK " nofile.mtx", bin()), 1);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "nofile.mtx: cannot open: No such file or directory"), "stderr: %s",
                  err_buf);
    /* a bad generator spec: the kinds named; a size out of range: the range */
    TL_ASSERT(run("%s " QUICK " gen:poisson9:4", bin()) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "'gen:poisson9:4': KIND 'poisson9' is not poisson7, poisson27, convdiff or hetero2d"),
                  "stderr: %s", err_buf);
    TL_ASSERT(run("%s " QUICK " gen:poisson7:99999999", bin()) != 0);
    TL_ASSERT_MSG(strstr(err_buf, "'gen:poisson7:99999999': N '99999999' is out of range [1, 2097151]"),
                  "stderr: %s", err_buf);
}

/* A matrix that is not square, said one way whatever its format (a .tlcsr
 * was "matrix is 3 x 2, not square", a .mtx "matrix is 3 x 2, but a
 * square matrix is needed"): one line naming the file, exit 1. */
TL_TEST(non_square_said_one_way)
{
    const char *t = tl_test_tmpdir();
    char mtx[600];
    snprintf(mtx, sizeof mtx, "%s/ns.mtx", t);
    FILE *f = fopen(mtx, "w");
    TL_ASSERT(f);
    fputs("%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1\n2 2 1\n", f);
    TL_ASSERT(fclose(f) == 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-matgen convert %s/ns.mtx %s/ns.tlcsr >/dev/null", tl_test_bin(), t, t), 0);
    static const char *const names[] = {"ns.mtx", "ns.tlcsr"};
    for (int k = 0; k < 2; k++) {
        char want[1024];
        snprintf(want, sizeof want, "trilap-solve: %s/%s: matrix is 3 x 2, but the solvers need a square matrix\n", t,
                 names[k]);
        TL_ASSERT_EQ(run("%s " QUICK " %s/%s", bin(), t, names[k]), 1);
        TL_ASSERT_STREQ(err_buf, want);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", names[k], out_buf);
    }
}

/* A 0 x 0 matrix is no system (it "converged", x = 0, with "1 of the 1
 * ranks owns no rows ...; use fewer ranks"): one line, exit 1, as a
 * matrix that is not square, from a .mtx and a .tlcsr, on 1 and 2 ranks. */
TL_TEST(empty_matrix_refused)
{
    const char *t = tl_test_tmpdir();
    char mtx[600];
    snprintf(mtx, sizeof mtx, "%s/z.mtx", t);
    tl_test_write(mtx, "%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-matgen convert %s/z.mtx %s/z.tlcsr >/dev/null", tl_test_bin(), t, t), 0);
    static const char *const names[] = {"z.mtx", "z.tlcsr"};
    for (int k = 0; k < 4; k++) {
        char want[1024];
        snprintf(want, sizeof want, "trilap-solve: %s%s/%s: matrix is 0 x 0, but the solvers need at least one row\n",
                 k < 2 ? "" : "rank 0: ", t, names[k % 2]);
        TL_ASSERT_EQ(run("%s " QUICK " --ranks %d %s/%s", bin(), 1 + k / 2, t, names[k % 2]), 1);
        TL_ASSERT_STREQ(err_buf, want);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", names[k % 2], out_buf);
    }
}

/* us_per_iter of a solve without iterations (--max-iterations 0, b = 0)
 * is no figure: the field is empty, as the report prints no time per
 * iteration (it was 0, which a median over the column takes in). */
TL_TEST(no_time_per_iteration_without_iterations)
{
    const char *t = tl_test_tmpdir();
    char b[600];
    snprintf(b, sizeof b, "%s/b0.mtx", t);
    tl_test_write_constant(b, 27, "0");
    char args[2][700];
    snprintf(args[0], sizeof args[0], "--max-iterations 0");
    snprintf(args[1], sizeof args[1], "%s", b);
    for (int k = 0; k < 2; k++) {
        TL_ASSERT_EQ(run("%s --warmup 0 --repeat 2 --no-stats --results %s/r%d.csv gen:poisson7:3 %s", bin(), t, k,
                         args[k]),
                     k == 0 ? 3 : 0);
        TL_ASSERT_STREQ(value("iterations", 0), "0");
        TL_ASSERT_MSG(!strstr(out_buf, "time per iteration"), "%s", out_buf);
        char path[700];
        snprintf(path, sizeof path, "%s/r%d.csv", t, k);
        char *rows = tl_test_read(path);
        char *row = strchr(rows, '\n') + 1;
        TL_ASSERT_EQ(tl_test_count(row, "\n"), 2);
        for (char *end = strchr(row, '\n'); end; row = end + 1, end = strchr(row, '\n'))
            TL_ASSERT_MSG(end[-1] == ',', "%s: a us_per_iter in %.*s", args[k], (int)(end - row), row);
        free(rows);
    }
}

/* Benchmark mode on a system one step solves exactly (a diagonal matrix,
 * gen:poisson7:1, one row): every method and scalar form ends converged,
 * exit 0, with x exact. pipebicgstab stopped "breakdown: omega = 0 at
 * iteration 1" and pipecg "matrix not SPD: (r, M^-1 r) = 0 ... (recomputed
 * from x)", exit 3, with a true residual of 0. */
TL_TEST(fixed_iterations_exact_step_converges)
{
    const char *t = tl_test_tmpdir();
    char diag[600];
    snprintf(diag, sizeof diag, "%s/diag.mtx", t);
    tl_test_write(diag, "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 4\n2 2 2\n3 3 8\n");
    static const char *const runs[] = {"cg --scalars host", "pcg --scalars program", "pipecg --scalars host",
                                       "pipecg --scalars program", "bicgstab", "pipebicgstab --scalars host",
                                       "pipebicgstab --scalars program"};
    const char *const mats[] = {diag, "gen:poisson7:1"};
    for (int m = 0; m < 2; m++)
        for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
            int rc = run("%s " QUICK " --rtol 0 --atol 0 --max-iterations 5 --precond jacobi --solver %s %s", bin(),
                         runs[k], mats[m]);
            TL_ASSERT_MSG(rc == 0 && !strcmp(value("true residual", 0), "0.000000e+00"), "%s on %s: exit %d: %s%s",
                          runs[k], mats[m], rc, out_buf, err_buf);
            /* the program form of pipecg is plain Alg. 4: it runs the 5 */
            if (strcmp(runs[k], "pipecg --scalars program") != 0)
                TL_ASSERT_STREQ(value("reason", 0), "residual is zero (b - A x = 0 exactly at iteration 1)");
        }
}

TL_TEST(bad_arguments_exit_2)
{
    TL_ASSERT_EQ(run("%s --solver gmres %s", bin(), tl_test_matrix("ani4.mtx")), 2);
    TL_ASSERT(strstr(err_buf, "invalid --solver 'gmres'"));
    TL_ASSERT_EQ(run("%s --rtol abc %s", bin(), tl_test_matrix("ani4.mtx")), 2);
    TL_ASSERT(strstr(err_buf, "--rtol"));
    TL_ASSERT_EQ(run("%s --schedule four-stream %s", bin(), tl_test_matrix("ani4.mtx")), 2);
    TL_ASSERT_EQ(run("%s", bin()), 2);
    TL_ASSERT_EQ(run("%s --help", bin()), 0);
    const char *opts[] = {
        "--solver",   "--precond", "--rtol",      "--atol",      "--max-iterations",
        "--schedule", "--backend", "--partition", "--warmup",    "--repeat",
        "--results",  "--trace",   "--gpus",      "--rtol-base", "--residual-replacement",
        "--history",  "--monitor", "--solution"};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
        TL_ASSERT_MSG(strstr(out_buf, opts[k]), "--help lacks %s", opts[k]);
}

/* A generated matrix's spec whose part would be dropped or misread
 * (gen:poisson7:8:3 solved poisson7 on 8^3, 1e-400 became 0) is refused
 * before any work: one line naming the spec and the part, exit 2, nothing
 * on stdout. */
TL_TEST(specs_refused_in_one_line)
{
    static const char *const cases[][2] = {
        {"gen:poisson7:8:3", "'gen:poisson7:8:3': poisson7 takes no PECLET, but ':3' follows N"},
        {"gen:convdiff:8:1e-400", "'gen:convdiff:8:1e-400': PECLET '1e-400' is too small for a double"},
        {"gen:convdiff:8:1e400", "PECLET '1e400' is too large for a double"},
        {"gen:convdiff:8:1:2", "':2' after PECLET"},
        {"gen:hetero2d:8:50", "D '50' is out of range (hetero2d's decades, 0..12)"},
        {"gen:poisson7:+8", "N '+8' is not a whole number\n"},
        /* a whole number, out of range: it said "not a whole number in 1..2097151" */
        {"gen:poisson7:3000000", "'gen:poisson7:3000000': N '3000000' is out of range [1, 2097151]: 2097151 is the "
                                 "largest N whose N^3 rows fit the 64-bit row index"},
        {"gen:hetero2d:0", "N '0' is out of range [1, 2097151]"},
        {"gen:poisson7:99999999999999999999", "N '99999999999999999999' is out of range [1, 2097151]"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " %s", bin(), cases[k][0]), 2);
        TL_ASSERT_MSG(strstr(err_buf, cases[k][1]) && !strchr(strchr(err_buf, '\n') + 1, '\n'),
                      "%s: stderr %s", cases[k][0], err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", cases[k][0], out_buf);
    }
}

/* An empty name for the matrix, b or x0 is the command line's fault: it
 * was "trilap-solve: : cannot open: No such file or directory", exit 1,
 * naming nothing; now one line naming which input, exit 2, as
 * trilap-matgen says it. */
TL_TEST(empty_file_name_refused)
{
    static const char *const cases[][2] = {
        {"''", "trilap-solve: invalid matrix '': an empty file name (try --help)\n"},
        {"gen:poisson7:4 ''", "trilap-solve: invalid b '': an empty file name (try --help)\n"},
        {"gen:poisson7:4 '' ''", "trilap-solve: invalid b '': an empty file name (try --help)\n"},
        {"gen:poisson7:4 /dev/null ''", "trilap-solve: invalid x0 '': an empty file name (try --help)\n"},
        /* an output's was "--results: an output file name is empty", exit 1 */
        {"--results '' gen:poisson7:4", "trilap-solve: invalid --results '': an empty file name (try --help)\n"},
        {"--history '' gen:poisson7:4", "trilap-solve: invalid --history '': an empty file name (try --help)\n"},
        {"--solution '' gen:poisson7:4", "trilap-solve: invalid --solution '': an empty file name (try --help)\n"},
        {"--trace '' gen:poisson7:4", "trilap-solve: invalid --trace '': an empty file name (try --help)\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " %s", bin(), cases[k][0]), 2);
        TL_ASSERT_STREQ(err_buf, cases[k][1]);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", cases[k][0], out_buf);
    }
}

/* A list option with an empty entry (--solver cg, ran cg alone), an entry
 * twice or an unknown one: one line naming the option, the list and what
 * is wrong, exit 2, nothing on stdout. */
TL_TEST(lists_refused_in_one_line)
{
    static const char *const cases[][2] = {
        {"--solver cg,", "invalid --solver 'cg,': an empty entry (a comma at either end, or two together)"},
        {"--solver ,cg", "invalid --solver ',cg': an empty entry"},
        {"--schedule sync,,three-split", "invalid --schedule 'sync,,three-split': an empty entry"},
        {"--spmv trilap,", "invalid --spmv 'trilap,': an empty entry"},
        {"--solver cg,pcg,cg", "invalid --solver 'cg,pcg,cg': 'cg' twice"},
        {"--solver cg,gmres", "'gmres' is not a solver: cg, pcg, pipecg, bicgstab or pipebicgstab"},
        {"--schedule all,sync", "'all' is not a schedule: sync, two-stream, three-naive or three-split (or all, alone)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " %s gen:poisson7:4", bin(), cases[k][0]), 2);
        TL_ASSERT_MSG(strstr(err_buf, cases[k][1]) && !strchr(strchr(err_buf, '\n') + 1, '\n'),
                      "%s: stderr %s", cases[k][0], err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", cases[k][0], out_buf);
    }
}

/* A zero on the diagonal with Jacobi: refused before any run (cg's report
 * came first, then "Jacobi preconditioner: 1 zero diagonal entries" for
 * pcg, naming no matrix), one line naming the matrix and the row. */
TL_TEST(jacobi_zero_diagonal_names_the_matrix)
{
    char path[600];
    snprintf(path, sizeof path, "%s/zd.mtx", tl_test_tmpdir());
    tl_test_write(path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 1\n3 2 1\n3 3 2\n");
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 2 --solver cg,pcg %s", bin(), path), 1);
    TL_ASSERT_MSG(strstr(err_buf, "zd.mtx: 1 zero diagonal entry (the first in row 2), but pcg's Jacobi "
                                  "preconditioner divides by the diagonal; use --precond none"),
                  "stderr: %s", err_buf);
    TL_ASSERT_MSG(!strchr(strchr(err_buf, '\n') + 1, '\n'), "stderr: %s", err_buf);
    TL_ASSERT_MSG(!out_buf[0], "stdout: %s", out_buf);
    /* without Jacobi the matrix is taken */
    TL_ASSERT(run("%s " QUICK " --solver cg,pcg --precond none %s", bin(), path) != 1);
    TL_ASSERT_EQ(count_of("\nsolver: "), 1); /* the first block starts the output */
}

/* An output that cannot be written is refused before the work, in one
 * line naming the option and the path, with nothing written (a bad
 * --history failed after the runs, with the results row written and no
 * manifest beside it, and the trace written). */
TL_TEST(outputs_checked_before_the_work)
{
    const char *d = tl_test_tmpdir();
    char afile[600], other[600];
    snprintf(afile, sizeof afile, "%s/afile", d);
    snprintf(other, sizeof other, "%s/other.csv", d);
    tl_test_write(afile, "");
    tl_test_write(other, "variant,nranks,rep,us_per_iter\nsync,1,0,1.0\n");
    /* 1 where the file system refuses a path, 2 where the options clash
     * (two outputs at one path, a stream for several runs: they exited 1) */
    static const struct {
        const char *opt, *want;
        int rc;
    } cases[] = {
        {"--history %s/afile/h.csv", "--history: %s/afile/h.csv: cannot write there: %s/afile is not a folder", 1},
        {"--solution %s/afile/x.mtx", "--solution: %s/afile/x.mtx: cannot write there: %s/afile is not a folder", 1},
        {"--trace %s/afile/tr", "--trace: %s/afile/tr: cannot write there: %s/afile is not a folder", 1},
        {"--results %s/afile/r.csv", "--results: %s/afile/r.csv: cannot write there: %s/afile is not a folder", 1},
        /* where the headers part, named (it cut both at 80 characters) */
        {"--results %s/other.csv", "--results: %s/other.csv:1: header 'variant,nranks,rep,us_per_iter' differs from "
                                   "this program's at column 1 ('variant' there, 'solver' here)", 1},
        /* a later run's file: the per-run name is checked, before the first run */
        {"--solver cg,pcg --history %s/h.csv --solution %s/x.mtx", "--solution: %s/x.pcg.mtx: a folder; give a file name",
         1},
        /* a folder with several runs too (it wrote afolder/.cg, afolder/.pcg) */
        {"--solver cg,pcg --history %s/", "--history: %s/: a folder; give a file name", 1},
        /* a stream has no per-run names: `-` made the files -.cg and -.pcg */
        {"--solver cg,pcg --solution -", "--solution -: a stream or device takes one run's output, and this command "
                                         "makes 2 runs; give a file name", 2},
        /* two files at one path: the second replaced the first's table
         * without a word (exit 0, the results rows lost) */
        {"--history %s/./r/res.csv", "--results and --history both name %s/./r/res.csv: give each a file of its own", 2},
        {"--history %s/h.csv --solution %s/h.csv", "--history and --solution both name %s/h.csv: give each a file of "
                                                   "its own", 2},
        {"--history %s/r/manifest.txt",
         "--results (its manifest) and --history both name %s/r/manifest.txt: give each a file of its own", 2},
    };
    TL_ASSERT_EQ(tl_test_sh("mkdir %s/x.pcg.mtx", d), 0);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char opt[2048], want[2048];
        snprintf(opt, sizeof opt, cases[k].opt, d, d);
        snprintf(want, sizeof want, cases[k].want, d, d);
        TL_ASSERT_EQ(run("%s " QUICK " --results %s/r/res.csv --trace %s/tr %s gen:poisson7:6", bin(), d, d, opt),
                     cases[k].rc);
        /* a case's option given again over the base's (--trace): the
         * last is used, after a note */
        const char *e = tl_test_past_notes(err_buf);
        TL_ASSERT_MSG(tl_test_one_line(e, want), "%s: expected '%s', stderr: %s", opt, want, err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", opt, out_buf);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/r && test ! -e %s/tr && test ! -e %s/h.cg.csv && test ! -e %s/x.cg.mtx",
                                d, d, d, d),
                     0);
    }
    /* results are rows appended to plain CSV: a .gz name (any case) held
     * plain text under a gzip name */
    TL_ASSERT_EQ(run("%s " QUICK " --results %s/r.CSV.GZ gen:poisson7:6", bin(), d), 2);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "a gzip name: results are rows appended to a plain CSV file") &&
                      tl_test_one_line(err_buf, ") (try --help)\n"),
                  "%s", err_buf);
    /* a stream: the same line's end, as trilap-bench's and trilap-fdtd's */
    TL_ASSERT_EQ(run("%s " QUICK " --results /dev/stdout gen:poisson7:6", bin()), 2);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "trilap-solve: invalid --results '/dev/stdout': a device, a pipe") &&
                      tl_test_one_line(err_buf, " (try --help)\n"),
                  "%s", err_buf);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/r.CSV.GZ && test ! -e %s/manifest.txt", d, d), 0);
    /* its own manifest's name, whatever the folder holds: exit 2 and
     * trilap-bench's line (tl_results_check refused it, exit 1) */
    TL_ASSERT_EQ(run("%s " QUICK " --results %s/manifest.txt gen:poisson7:6", bin(), d), 2);
    char want[700];
    snprintf(want, sizeof want,
             "trilap-solve: invalid --results '%s/manifest.txt': the manifest beside a results file is named so; give "
             "the results another name (try --help)\n",
             d);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, want), "%s", err_buf);
    TL_ASSERT_EQ(tl_test_sh("test ! -e %s/manifest.txt", d), 0);
}

/* A device is taken for --history and --solution (/dev/stdout prints the
 * file), so /dev/full fails only when written, after the report: one line
 * naming the option (it named the device alone), exit 1. */
TL_TEST(late_write_failure_names_its_option)
{
    static const char *const opts[] = {"--history", "--solution"};
    for (size_t k = 0; k < 2; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " %s /dev/full gen:poisson7:6", bin(), opts[k]), 1);
        char want[128];
        snprintf(want, sizeof want, "%s: /dev/full: write failed: No space left on device", opts[k]);
        TL_ASSERT_MSG(tl_test_one_line(err_buf, want), "%s: stderr %s", opts[k], err_buf);
        TL_ASSERT_MSG(strstr(out_buf, "converged: yes"), "%s: the report first: %s", opts[k], out_buf);
    }
}

/* The results file where a run's trace folder goes (--trace HC --results
 * HC/cg with a run cg; --trace HC --results HC with one run) is refused
 * before the work in one line naming both options; before, the first run
 * wrote HC/cg and the second failed, "HC/cg is not a folder", naming no
 * option. The results file inside a run's folder is fine. */
TL_TEST(results_where_a_trace_folder_goes)
{
    const char *d = tl_test_tmpdir();
    static const char *const cases[][2] = {
        {"--solver cg,pcg --trace %s/HC --results %s/HC/cg",
         "trilap-solve: --results and --trace (run cg's folder) both name %s/HC/cg: give each a file of its own\n"},
        {"--trace %s/HC --results %s/HC", "trilap-solve: --results and --trace both name %s/HC: give each a file of "
                                          "its own\n"},
        /* the folder above several runs' (HC/cg could not be made under a file HC) */
        {"--solver cg,pcg --trace %s/HC --results %s/HC", "trilap-solve: --results and --trace both name %s/HC: give "
                                                          "each a file of its own\n"},
        /* a rank file the trace writes (failed after the run on its header) */
        {"--trace %s/HC --results %s/HC/trace.rank0.csv",
         "trilap-solve: --results and --trace (its rank file) both name %s/HC/trace.rank0.csv: give each a file of its "
         "own\n"},
        {"--solver cg,pcg --trace %s/HC --results %s/HC/pcg/trace.rank0.csv",
         "trilap-solve: --results and --trace (run pcg's rank file) both name %s/HC/pcg/trace.rank0.csv: give each a "
         "file of its own\n"},
        /* the trace under the results file, neither made yet (the folder
         * made first, the results failed after the run) */
        {"--trace %s/HC/tr --results %s/HC",
         "trilap-solve: --trace %s/HC/tr lies under the file --results names: give each a place of its own\n"},
        {"--solver cg,pcg --trace %s/HC/tr --results %s/HC",
         "trilap-solve: --trace %s/HC/tr lies under the file --results names: give each a place of its own\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char opt[2048], want[2048];
        snprintf(opt, sizeof opt, cases[k][0], d, d);
        snprintf(want, sizeof want, cases[k][1], d);
        TL_ASSERT_EQ(run("%s " QUICK " %s gen:poisson7:6", bin(), opt), 2);
        TL_ASSERT_MSG(!strcmp(err_buf, want) && !out_buf[0], "%s: expected '%s', stderr: %s", opt, want, err_buf);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/HC", d), 0);
    }
    TL_ASSERT_EQ(run("%s " QUICK " --solver cg,pcg --trace %s/HC --results %s/HC/cg/r.csv gen:poisson7:6", bin(), d, d),
                 0);
    TL_ASSERT_EQ(tl_test_sh("test -f %s/HC/cg/r.csv && test -f %s/HC/cg/trace.rank0.csv && test -f "
                            "%s/HC/pcg/trace.rank0.csv",
                            d, d, d),
                 0);
}

/* Iteration records of a trace: all of them, those inside its window, and
 * the window itself. */
typedef struct trace_iters {
    int total, in_window;
    long long w0, w1;
} trace_iters;

static trace_iters read_trace_iters(const char *path)
{
    trace_iters t = {0, 0, -1, -1};
    char *text = tl_test_read(path);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        long long a, b;
        if (sscanf(line, "# window_start_ns=%lld", &a) == 1) t.w0 = a;
        if (sscanf(line, "# window_end_ns=%lld", &a) == 1) t.w1 = a;
        /* rank,device,stream,lane,cat,kind,name,start_ns,end_ns,... */
        if (sscanf(line, "%*[^,],%*[^,],%*[^,],%*[^,],range,host,iter,%lld,%lld", &a, &b) == 2) {
            t.total++;
            t.in_window += a >= t.w0 && b <= t.w1;
        }
    }
    free(text);
    return t;
}

/* --trace with several runs: a trace folder per run, named by the run's
 * list entries as --history names its files (all runs went into one trace
 * whose window was the last run's), said in each run's block and in the
 * manifest. Each trace holds its run's warm-up and timed solves; its window
 * spans the timed ones, all --repeat of them. */
TL_TEST(trace_per_run)
{
    const char *d = tl_test_tmpdir();
    TL_ASSERT_EQ(run("%s --launcher threads --ranks 2 --no-stats --warmup 1 --repeat 2 --schedule sync,three-split "
                     "--solver cg,pipecg --trace %s/tr --results %s/r.csv gen:poisson7:8",
                     bin(), d, d),
                 0);
    static const char *const names[] = {"sync.cg", "sync.pipecg", "three-split.cg", "three-split.pipecg"};
    long long last_end = 0;
    char manifest_line[4096] = "trace:";
    for (int k = 0; k < 4; k++) {
        char dir[700], path[800];
        snprintf(dir, sizeof dir, "%s/tr/%s", d, names[k]);
        TL_ASSERT_STREQ(value("trace", k), dir);
        long its = atol(value("iterations", k));
        for (int r = 0; r < 2; r++) {
            snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, r);
            trace_iters t = read_trace_iters(path);
            /* per solve: its iterations, and pipecg marks the one whose test stops it too */
            int per = t.total / 3;
            TL_ASSERT_MSG(t.total == 3 * per && (per == its || per == its + 1) && t.in_window == 2 * per,
                          "%s: %d iterations, %d in the window; the run: 1 + 2 solves of %ld", path, t.total,
                          t.in_window, its);
            TL_ASSERT_MSG(t.w0 > last_end, "%s: window starts before the last run's ended", path);
            if (r == 1) last_end = t.w1;
        }
        snprintf(manifest_line + strlen(manifest_line), sizeof manifest_line - strlen(manifest_line), " %s", dir);
    }
    char path[700];
    snprintf(path, sizeof path, "%s/tr/trace.rank0.csv", d);
    TL_ASSERT_MSG(access(path, F_OK) != 0, "a trace of every run in %s", path);
    snprintf(path, sizeof path, "%s/manifest.txt", d);
    load(path);
    TL_ASSERT_MSG(strstr(out_buf, manifest_line), "manifest lacks '%s':\n%s", manifest_line, out_buf);
}

TL_TEST(cuda_and_petsc_backends_refuse_cleanly)
{
    TL_ASSERT_EQ(run("%s --backend cuda %s", bin(), tl_test_matrix("ani4.mtx")), 1);
    /* here: built without CUDA, or no GPU visible, and the way on */
    TL_ASSERT_MSG(strstr(err_buf, "--backend cuda: built without CUDA") ||
                      strstr(err_buf, "--backend cuda: no GPU visible (--backend host runs the same methods on the "
                                      "CPU)\n"),
                  "stderr: %s", err_buf);
    TL_ASSERT_EQ(run("%s --backend cuda --no-gpu %s", bin(), tl_test_matrix("ani4.mtx")), 1);
    TL_ASSERT_MSG(strstr(err_buf, "--backend cuda: built without CUDA") ||
                      strstr(err_buf, "--backend cuda: --no-gpu was given (--backend host runs the same methods on "
                                      "the CPU)\n"),
                  "stderr: %s", err_buf);
    TL_ASSERT(run("%s " QUICK " --launcher threads --backend petsc %s", bin(),
                  tl_test_matrix("ani4.mtx")) != 0);
    if (strcmp(tl_test_env("TL_HAVE_PETSC", "0"), "1") == 0)
        TL_ASSERT_MSG(strstr(err_buf, "thread launcher is not supported"), "stderr: %s", err_buf);
    else
        TL_ASSERT_MSG(strstr(err_buf, "no PETSc"), "stderr: %s", err_buf);
    /* refused before the launch, in one line (before: one line from each
     * thread rank, exit 1) */
    if (strcmp(tl_test_env("TL_HAVE_PETSC", "0"), "1") == 0 && strcmp(tl_test_env("TL_HAVE_MPI", "1"), "1") == 0) {
        TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 3 --backend petsc gen:poisson7:4", bin()), 2);
        TL_ASSERT_MSG(!strcmp(err_buf, "trilap-solve: --backend petsc: PETSc needs MPI ranks (mpirun -np N "
                                       "trilap-solve --backend petsc ...); the thread launcher is not supported\n"),
                      "stderr: %s", err_buf);
        TL_ASSERT_MSG(!out_buf[0], "stdout: %s", out_buf);
    }
}

/* What only the CUDA backend acts on, given to host or PETSc, is refused
 * in one line before any work (before: taken and ignored), as is --cupti
 * without a trace; --residual-replacement is said in the preamble only of
 * the method that acts on it (before: "every 5 iterations" under cg). */
TL_TEST(device_options_refused_elsewhere)
{
    static const char *const cases[][2] = {
        {"--fuse", "trilap-solve: --fuse acts only with --backend cuda (this run: --backend host)\n"},
        {"--no-pdl", "trilap-solve: --pdl acts only with --backend cuda (this run: --backend host)\n"},
        {"--spmv cusparse", "trilap-solve: --spmv acts only with --backend cuda (this run: --backend host)\n"},
        {"--backend petsc --op-timer-every 4",
         "trilap-solve: --op-timer-every acts only with --backend cuda (this run: --backend petsc)\n"},
        {"--cupti", "trilap-solve: --cupti without --trace DIR: the kernel records would go nowhere\n"},
        {"--backend cuda --cupti", "trilap-solve: --cupti without --trace DIR: the kernel records would go nowhere\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(run("%s %s gen:poisson7:4", bin(), cases[k][0]), 2);
        TL_ASSERT_MSG(!strcmp(err_buf, cases[k][1]), "%s: stderr %s", cases[k][0], err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", cases[k][0], out_buf);
    }
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 1 --solver cg,pipebicgstab --residual-replacement 5 "
                     "gen:poisson7:6", bin()), 0);
    const char *pipe = strstr(out_buf, "solver: pipebicgstab");
    const char *said = strstr(out_buf, "residual replacement: every 5 iterations");
    TL_ASSERT_MSG(pipe && said && said > pipe && !strstr(said + 1, "residual replacement: every"), "%s", out_buf);
    /* which scalars each host run used: --scalars program is taken by a
     * list holding bicgstab, which has no program (before: nothing said) */
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 1 --scalars program --solver bicgstab,pipecg "
                     "gen:poisson7:6", bin()), 0);
    const char *b = strstr(out_buf, "solver: bicgstab"), *p = strstr(out_buf, "solver: pipecg");
    TL_ASSERT_MSG(b && p && strstr(b, "scalars: host") < p && strstr(p, "scalars: program\n"), "%s", out_buf);
}

/* Options that act on some runs only, typed where no run of the command
 * acts on them, are refused in one line before any work (before: taken and
 * ignored; --backend petsc --schedule all ran 4 identical PETSc solves and
 * wrote 4 indistinguishable rows): trilap's method options with PETSc's
 * KSP, --check-every without a scalar program, --spmv-dot without cg or
 * pcg on one, --warmup-iterations without a warm-up solve,
 * --residual-replacement without pipebicgstab (a first-hour QA finding:
 * taken in silence with --solver cg). Where one run acts on them they are
 * taken. */
TL_TEST(run_options_refused_where_no_run_acts)
{
#define PETSC_KSP "--backend petsc runs PETSc's own KSP; "
#define CHECK_EVERY "trilap-solve: --check-every acts only on the scalar programs of cg, pcg, pipecg and pipebicgstab "
#define SPMV_DOT "acts only on the scalar programs of cg and pcg "
    static const char *const cases[][2] = {
        {"--backend petsc --schedule all",
         "trilap-solve: --schedule: " PETSC_KSP "trilap's schedules do not apply\n"},
        {"--backend petsc --schedule three-split",
         "trilap-solve: --schedule: " PETSC_KSP "trilap's schedules do not apply\n"},
        {"--backend petsc --scalars program",
         "trilap-solve: --scalars: " PETSC_KSP "trilap's scalar programs do not apply\n"},
        {"--backend petsc --check-every 2",
         "trilap-solve: --check-every: " PETSC_KSP "trilap's scalar programs do not apply\n"},
        {"--backend petsc --solver cg --no-spmv-dot",
         "trilap-solve: --no-spmv-dot: " PETSC_KSP "trilap's (p, A p) in the product's pass does not apply\n"},
        {"--backend petsc --omp-threads 1",
         "trilap-solve: --omp-threads: " PETSC_KSP "trilap's OpenMP loops do not apply\n"},
        {"--backend petsc --solver pipebicgstab --residual-replacement 3",
         "trilap-solve: --residual-replacement: " PETSC_KSP
         "its KSPPIPEBCGS replaces the residual on its own (every 100 iterations up to 1000)\n"},
        {"--backend petsc --history h.csv",
         "trilap-solve: --history: " PETSC_KSP "it gives trilap no residual history (the file held a header only)\n"},
        {"--backend petsc --monitor", "trilap-solve: --monitor: " PETSC_KSP "it gives trilap no residual history to print\n"},
        /* the launcher's options this run would not use */
        {"--device-comm host", "trilap-solve: --device-comm: this run uses no GPU (--backend host)\n"},
        {"--backend petsc --nccl-timeout 9", "trilap-solve: --nccl-timeout: this run uses no GPU (--backend petsc)\n"},
        {"--gpus 2 --ranks 2", "trilap-solve: --gpus and --ranks: give one (--ranks N ranks share the visible GPUs; "
                               "--gpus N ranks take one GPU each)\n"},
        {"--check-every 2", CHECK_EVERY "(this run: --solver pipecg, --scalars auto: host with --backend host)\n"},
        {"--scalars host --solver cg,pipebicgstab --check-every 2",
         CHECK_EVERY "(this run: --solver cg,pipebicgstab, --scalars host)\n"},
        {"--scalars program --solver bicgstab --check-every 2",
         CHECK_EVERY "(this run: --solver bicgstab, --scalars program)\n"},
        {"--solver cg --no-spmv-dot",
         "trilap-solve: --no-spmv-dot " SPMV_DOT "(this run: --solver cg, --scalars auto: host with --backend host)\n"},
        {"--scalars program --solver pipecg,bicgstab --spmv-dot",
         "trilap-solve: --spmv-dot " SPMV_DOT "(this run: --solver pipecg,bicgstab, --scalars program)\n"},
        {"--scalars host --solver pcg --no-spmv-dot",
         "trilap-solve: --no-spmv-dot " SPMV_DOT "(this run: --solver pcg, --scalars host)\n"},
        {"--warmup 0 --warmup-iterations 3",
         "trilap-solve: --warmup-iterations acts only on warm-up solves (this run: --warmup 0)\n"},
        {"--warmup 0 --warmup-iterations 0",
         "trilap-solve: --warmup-iterations acts only on warm-up solves (this run: --warmup 0)\n"},
        {"--solver cg,pipecg --residual-replacement 5",
         "trilap-solve: --residual-replacement acts only on pipebicgstab (this run: --solver cg,pipecg)\n"},
    };
#undef PETSC_KSP
#undef CHECK_EVERY
#undef SPMV_DOT
    const char *dir = tl_test_tmpdir();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT_EQ(run("%s %s --results %s/r%zu.csv gen:poisson7:4", bin(), cases[k][0], dir, k), 2);
        TL_ASSERT_MSG(!strcmp(err_buf, cases[k][1]), "%s: stderr %s", cases[k][0], err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", cases[k][0], out_buf);
        char path[700];
        snprintf(path, sizeof path, "%s/r%zu.csv", dir, k);
        TL_ASSERT_MSG(access(path, F_OK) != 0, "%s: %s written", cases[k][0], path);
    }
    /* a trace of PETSc's KSP held no records, only its preamble (before:
     * written, exit 0) */
    TL_ASSERT_EQ(run("%s --backend petsc --trace %s/tr.petsc gen:poisson7:4", bin(), dir), 2);
    TL_ASSERT_MSG(!strcmp(err_buf, "trilap-solve: --trace: --backend petsc runs PETSc's own KSP; it records no "
                                   "trilap operation ranges (the trace held no records)\n"),
                  "stderr %s", err_buf);
    TL_ASSERT_MSG(!out_buf[0], "stdout %s", out_buf);
    char trace_dir[700];
    snprintf(trace_dir, sizeof trace_dir, "%s/tr.petsc", dir);
    TL_ASSERT_MSG(access(trace_dir, F_OK) != 0, "%s written", trace_dir);
    /* one run that acts on them is enough: taken */
    static const char *const taken[] = {
        "--scalars program --solver bicgstab,pipecg --check-every 2",
        "--scalars program --solver pipecg,pcg --no-spmv-dot",
        "--warmup 1 --warmup-iterations 2",
        "--solver cg,pipebicgstab --residual-replacement 5",
    };
    for (size_t k = 0; k < sizeof taken / sizeof taken[0]; k++)
        TL_ASSERT_EQ(run("%s --repeat 1 --no-stats --launcher threads --ranks 1 %s gen:poisson7:4", bin(), taken[k]), 0);
}

/* Under mpirun a refusal before the launch is said once (local rank 0 of
 * the host), not once per rank; the exit status is the same. */
TL_TEST(mpirun_refusal_said_once)
{
    need_mpi();
    static const char *const cases[][2] = {
        {"--bogus gen:poisson7:4", "unknown option '--bogus'"},
        {"--fuse gen:poisson7:4", "--fuse acts only with --backend cuda"},
        {"--backend petsc --schedule all gen:poisson7:4", "--schedule: --backend petsc runs PETSc's own KSP"},
        {"--history / gen:poisson7:4", "--history: /: a folder; give a file name"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        TL_ASSERT(run("%s %s %s", mpirun(3), bin(), cases[k][0]) != 0);
        TL_ASSERT_MSG(strstr(err_buf, cases[k][1]) && tl_test_count(err_buf, "trilap-solve") == 1, "%s: %s",
                      cases[k][0], err_buf);
    }
    TL_ASSERT(run("%s %s/trilap-bench --bogus", mpirun(3), tl_test_bin()) != 0);
    TL_ASSERT_MSG(tl_test_count(err_buf, "trilap-bench") == 1, "%s", err_buf);
}

/* ^C on mpirun reaches every rank as SIGTERM: the job says it once
 * (rank 0), not "trilap-solve: terminated (SIGTERM); temporary outputs
 * removed" once per rank, three lines for -np 3. At most once: a rank 0
 * that mpirun had to kill says nothing, and mpirun then names it. */
TL_TEST(mpirun_interrupt_said_once)
{
    need_mpi();
    const char *dir = tl_test_tmpdir();
    /* interrupted once every rank is running: rank 0 makes the trace
     * folder when the solves begin */
    int rc = tl_test_sh("D=%s; %s %s --repeat 1000 --rtol 0 --max-iterations 3000 --trace $D/t/tr "
                        "gen:poisson7:24 >$D/out 2>$D/err & p=$!; "
                        "while [ ! -d $D/t/tr ] && kill -0 $p 2>/dev/null; do sleep 0.05; done; "
                        "[ -d $D/t/tr ] && echo running >$D/state; kill -INT $p; wait $p",
                        dir, mpirun(3), bin());
    char path[600];
    snprintf(path, sizeof path, "%s/err", dir);
    char *err = tl_test_slurp(path);
    snprintf(path, sizeof path, "%s/state", dir);
    char *state = tl_test_slurp(path);
    TL_ASSERT_MSG(!strcmp(state, "running\n"), "the job ended before its solves: %s", err);
    free(state);
    TL_ASSERT_MSG(rc != 0, "the interrupted job exited 0: %s", err);
    /* and the trace folder, made by rank 0 before the solves, said once */
    int made = tl_test_count(err, "trilap-solve: note: --trace ");
    TL_ASSERT_MSG(made <= 1 && tl_test_count(err, "trilap-solve") - made <= 1, "%s", err);
    free(err);
}

/* The benchmark protocol's columns and warm-up: --warmup-iterations bounds
 * the warm-up solves only (the timed ones run --max-iterations), the CSV
 * row says so and gives us_per_iter = solver_time_s / iterations * 1e6;
 * with several schedules and solvers every run keeps its own history file. */
TL_TEST(warmup_iterations_and_us_per_iter)
{
    const char *dir = tl_test_tmpdir();
    char csv[600];
    snprintf(csv, sizeof csv, "%s/w.csv", dir);
    TL_ASSERT_EQ(run("%s --launcher threads --ranks 2 --no-stats --rtol 0 --atol 0 "
                     "--max-iterations 25 --warmup 1 --warmup-iterations 3 --repeat 2 "
                     "--solver pipecg,pcg --schedule sync,two-stream --history %s/h.csv "
                     "--results %s gen:poisson7:10",
                     bin(), dir, csv),
                 0);
    TL_ASSERT_STREQ(value("warmup iterations", 0), "3 per warm-up solve");
    TL_ASSERT_STREQ(value("iterations", 3), "25");
    char *rows = tl_test_read(csv);
    TL_ASSERT_MSG(strncmp(rows, "solver,", 7) == 0 &&
                      strstr(rows, ",warmup,omp_threads,warmup_iterations,us_per_iter\n"),
                  "header: %.300s", rows);
    int n = 0;
    for (char *line = strchr(rows, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        /* as many fields as the header: the reason ("rtol = atol = 0,
         * benchmark mode") must not split a row for awk -F, */
        int commas = 0, hcommas = 0;
        for (char *q = line + 1; *q && *q != '\n'; q++)
            commas += *q == ',';
        for (char *q = rows; *q != '\n'; q++)
            hcommas += *q == ',';
        TL_ASSERT_EQ(commas, hcommas);
        /* ...,"gen:poisson7:10",nranks,rep,iterations,residual,true_residual,solver_time_s,... */
        const char *q = strchr(strchr(line + 1, '"') + 1, '"');
        long it = 0;
        double t = 0;
        TL_ASSERT(sscanf(q + 1, ",%*d,%*d,%ld,%*g,%*g,%lg", &it, &t) == 2);
        TL_ASSERT_EQ(it, 25);
        char *end = strchr(line + 1, '\n');
        char *last = end;
        while (last > line + 1 && last[-1] != ',')
            last--;
        char *prev = last - 1;
        while (prev > line + 1 && prev[-1] != ',')
            prev--;
        TL_ASSERT_EQ(atol(prev), 3);
        TL_ASSERT_NEAR(strtod(last, NULL), t / it * 1e6, 1e-4 * t / it * 1e6);
        n++;
    }
    free(rows);
    TL_ASSERT_EQ(n, 2 * 2 * 2); /* schedules x solvers x repeats */
    static const char *const names[] = {"sync.pipecg", "two-stream.pipecg", "sync.pcg", "two-stream.pcg"};
    for (int k = 0; k < 4; k++) {
        char path[700];
        snprintf(path, sizeof path, "%s/h.%s.csv", dir, names[k]);
        TL_ASSERT_MSG(access(path, R_OK) == 0, "no history file %s", path);
        /* the names made from the one given are said, each once */
        char said[800];
        snprintf(said, sizeof said, "history: %s\n", path);
        TL_ASSERT_MSG(tl_test_count(out_buf, said) == 1, "%s not said once:\n%s", said, out_buf);
    }
    /* PETSc runs its warm-up solves to --max-iterations: refused there */
    TL_ASSERT_EQ(run("%s --backend petsc --warmup-iterations 3 gen:poisson7:4", bin()), 2);
    TL_ASSERT(strstr(err_buf, "--warmup-iterations"));
}

/* Inputs whose ||b - A x0|| squared, every method's first reduction, is no
 * normal double (session QA: entries of 1e200 printed "||b|| = inf",
 * "residual: -nan", exit 3; 1e-200 read as b = 0, "converged: yes" with
 * x = 0): refused before any run in one line naming the inputs, exit 1,
 * for every method; the matrix's own scale is matrix_scale_beyond_a_double_refused's. */
TL_TEST(scale_beyond_a_double_refused)
{
    const char *d = tl_test_tmpdir();
    char a[600], big[600], tiny[600], ones[600], x0[600];
    snprintf(a, sizeof a, "%s/big.mtx", d);
    snprintf(big, sizeof big, "%s/b200.mtx", d);
    snprintf(tiny, sizeof tiny, "%s/bm200.mtx", d);
    snprintf(ones, sizeof ones, "%s/ones.mtx", d);
    snprintf(x0, sizeof x0, "%s/x200.mtx", d);
    tl_test_write(a, "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4e200\n2 1 -1e200\n2 2 4e200\n"
                     "3 3 4e200\n");
    tl_test_write(big, "%%MatrixMarket matrix array real general\n3 1\n1e200\n2e200\n3e200\n");
    tl_test_write(tiny, "%%MatrixMarket matrix array real general\n3 1\n1e-200\n2e-200\n3e-200\n");
    tl_test_write(ones, "%%MatrixMarket matrix array real general\n3 1\n1\n1\n1\n");
    tl_test_write(x0, "%%MatrixMarket matrix array real general\n3 1\n1e200\n2e200\n3e200\n");
    char eye[600];
    snprintf(eye, sizeof eye, "%s/eye.mtx", d);
    tl_test_write(eye, "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 1\n3 3 1\n");
    for (size_t k = 0; k < sizeof all5 / sizeof all5[0]; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " --solver %s %s %s", bin(), all5[k], eye, big), 1);
        TL_ASSERT_MSG(tl_test_one_line(err_buf, "b200.mtx: ||b|| = 3.742e+200, whose square, every method's first dot "
                                                "product (r0, r0), overflows a double (above 1.3e+154); divide b by a "
                                                "power of ten (x scales with it)"),
                      "%s: stderr %s", all5[k], err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", all5[k], out_buf);
    }
    TL_ASSERT_EQ(run("%s " QUICK " --solver cg %s %s", bin(), a, tiny), 1);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "bm200.mtx: ||b|| = 3.742e-200, whose square, every method's first dot "
                                            "product (r0, r0), underflows a double (below 1.5e-154); multiply b by a "
                                            "power of ten (x scales with it)"),
                  "stderr %s", err_buf);
    /* x0 of 1e200 on the identity: b - A x0 is that large; on entries of
     * 1e200, A x0 itself overflows */
    TL_ASSERT_EQ(run("%s " QUICK " %s %s %s", bin(), eye, ones, x0), 1);
    TL_ASSERT_MSG(strstr(err_buf, "eye.mtx, ") && strstr(err_buf, "x200.mtx: ||b - A x0|| = 3.742e+200, whose square"),
                  "stderr %s", err_buf);
    TL_ASSERT_EQ(run("%s " QUICK " %s %s %s", bin(), a, ones, x0), 1);
    TL_ASSERT_MSG(tl_test_one_line(err_buf, "x200.mtx: ||b - A x0|| overflows a double; divide b and x0 by a power of "
                                            "ten (x scales with them)"),
                  "stderr %s", err_buf);
    TL_ASSERT_EQ(run("%s " QUICK " --solver pcg,pipecg %s", bin(), a), 0);
    TL_ASSERT_EQ(count_of("converged: yes"), 2);
}

/* trilap-matgen's poisson7 of n^3 rows at path (Matrix Market). */
static void poisson7_file(int n, const char *path)
{
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-matgen poisson7 %d %s >/dev/null", tl_test_env("TL_BIN", "bin"), n, path), 0);
}

/* The coordinate Matrix Market file src with every value times 10^e, at dst. */
static void scale_matrix(const char *src, int e, const char *dst)
{
    TL_ASSERT_EQ(tl_test_sh("awk '/^%%/ {print; next} !h {print; h = 1; next} {printf \"%%d %%d %%.17g\\n\", "
                            "$1, $2, $3 * 1e%d}' %s > %s",
                            e, src, dst),
                 0);
}

/* A matrix whose products with vectors of b's size a double cannot hold
 * squared (session QA: entries of 1e200, b = ones, --precond none:
 * bicgstab "non-finite value: (t, s) = 2.2e+199, (t, t) = inf",
 * pipebicgstab "(q, y) = -nan, (y, y) = -nan", pipecg "delta = -nan",
 * exit 3; 1e-200: pipebicgstab "breakdown: omega = 0"): refused before the
 * run in one line naming the matrix, exit 1, for every method. With
 * Jacobi (A D^-1, unit diagonal) the same matrices run; the shared
 * matrices and poisson7 scaled by 1e100 and 1e-100 are never refused. */
TL_TEST(matrix_scale_beyond_a_double_refused)
{
    const char *d = tl_test_tmpdir();
    const struct {
        const char *name, *exp, *want;
    } cases[] = {
        {"big.mtx", "200",
         "big.mtx: its largest row norm, 4.123e+200, times ||b|| = 1.732e+00 is 7.141e+200, whose square, the size of "
         "(A p, A p) for a vector p of r0's size, overflows a double (above 1.3e+154); divide the matrix by a power of "
         "ten (x scales inversely), or use --precond jacobi"},
        {"tiny.mtx", "-200",
         "tiny.mtx: its largest row norm, 4.123e-200, times ||b|| = 1.732e+00 is 7.141e-200, whose square, the size "
         "of (A p, A p) for a vector p of r0's size, underflows a double (below 1.5e-154); multiply the matrix by a "
         "power of ten (x scales inversely), or use --precond jacobi"},
    };
    for (int c = 0; c < 2; c++) {
        char path[600], text[512];
        snprintf(path, sizeof path, "%s/%s", d, cases[c].name);
        snprintf(text, sizeof text,
                 "%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4e%s\n2 1 -1e%s\n2 2 4e%s\n"
                 "3 3 4e%s\n",
                 cases[c].exp, cases[c].exp, cases[c].exp, cases[c].exp);
        tl_test_write(path, text);
        for (size_t k = 0; k < sizeof all5 / sizeof all5[0]; k++) {
            TL_ASSERT_EQ(run("%s " QUICK " --precond none --solver %s %s", bin(), all5[k], path), 1);
            TL_ASSERT_MSG(tl_test_one_line(err_buf, cases[c].want), "%s: stderr %s", all5[k], err_buf);
            TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", all5[k], out_buf);
        }
        TL_ASSERT_EQ(run("%s " QUICK " --precond jacobi --solver cg,pcg,pipecg,bicgstab,pipebicgstab %s", bin(), path),
                     0);
        TL_ASSERT_EQ(count_of("converged: yes"), 5);
    }
    /* ordinary matrices, scaled as a whole by 1e+-100, without and with Jacobi */
    const char *ordinary[] = {"1138_bus.mtx", "ani1_nonsymm.mtx", "ani4.mtx", "poisson7"};
    for (size_t m = 0; m < sizeof ordinary / sizeof ordinary[0]; m++)
        for (int e = -100; e <= 100; e += 100) {
            char src[600], scaled[600];
            snprintf(src, sizeof src, "%s/p7.mtx", d);
            if (m < 3)
                snprintf(src, sizeof src, "%s", tl_test_matrix(ordinary[m]));
            else
                poisson7_file(16, src);
            snprintf(scaled, sizeof scaled, "%s/scaled.mtx", d);
            scale_matrix(src, e, scaled);
            for (int j = 0; j < 2; j++) {
                int rc = run("%s " QUICK " --precond %s --solver cg,bicgstab --max-iterations 5 %s", bin(),
                             j ? "jacobi" : "none", scaled);
                TL_ASSERT_MSG(rc == 0 || rc == 3, "%s times 1e%d: exit %d", ordinary[m], e, rc);
                TL_ASSERT_MSG(!strstr(err_buf, "largest row norm"), "%s times 1e%d: %s", ordinary[m], e, err_buf);
            }
        }
}

/* The true residual measured with ||b||'s scaled norm on the host: with b
 * of 1e-150 (accepted: ||b||^2 is a normal double) the converged residual
 * is near 1e-165, whose square the backend's (r, r) read as 0 ("true
 * residual: 0.000000e+00" for every method, one rank or two). */
TL_TEST(true_residual_scaled_on_the_host)
{
    const char *d = tl_test_tmpdir();
    char b[600];
    snprintf(b, sizeof b, "%s/b150.mtx", d);
    tl_test_write_constant(b, 64, "1e-150");
    for (int ranks = 1; ranks <= 2; ranks++) {
        TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks %d --solver cg,pcg,pipecg,bicgstab,pipebicgstab "
                         "gen:poisson7:4 %s",
                         bin(), ranks, b),
                     0);
        for (int k = 0; k < 5; k++) {
            double abs_tn = atof(value("true residual absolute", k)), rel = atof(value("true residual", k));
            TL_ASSERT_MSG(abs_tn > 1e-180 && abs_tn < 1e-160 && rel > 0 && rel < 1e-12,
                          "%s on %d ranks: true residual %g, absolute %g", all5[k], ranks, rel, abs_tn);
        }
    }
}

/* cg in benchmark mode restarts where p'Ap underflows (poisson7 n = 4
 * times 1e-100, b = ones: from iteration 77 on, 5 restarts in 400) and
 * takes iteration k again within the probe range open for k: the host
 * backend's trace holds one range per iteration (it held two numbered 77,
 * 153, 229, 304 and 380: 405 ranges for 400 iterations). */
TL_TEST(cg_restart_one_range_per_iteration)
{
    const char *d = tl_test_tmpdir();
    char a[600], small[600], got[256];
    snprintf(a, sizeof a, "%s/p4.mtx", d);
    snprintf(small, sizeof small, "%s/p4small.mtx", d);
    poisson7_file(4, a);
    scale_matrix(a, -100, small);
    TL_ASSERT_EQ(run("%s " QUICK " --solver cg --scalars host --rtol 0 --atol 0 --max-iterations 400 --trace %s/tr %s",
                     bin(), d, small),
                 0);
    const char *rs = value("restarts", 0);
    TL_ASSERT_MSG(rs && atoi(rs) >= 1, "restarts: %s", rs ? rs : "(none)");
    /* iteration ranges: how many, how many numbers, the largest number */
    TL_ASSERT_EQ(tl_test_sh_to(got, sizeof got,
                               "awk -F, '$7 == \"iter\" {n++; if (!($12 in c)) u++; c[$12]++; if ($12 + 0 > m) m = $12 + 0}"
                               " END {printf \"%%d %%d %%d\", n, u, m}' %s/tr/trace.rank0.csv",
                               d),
                 0);
    TL_ASSERT_STREQ(got, "400 400 399");
}

/* Options each fine, together a run that cannot be as given: one line
 * naming the option, exit 2, nothing written; together without effect: a
 * note, and the run. Fixed-iteration mode with
 * --max-iterations 0 timed no iteration (exit 0, a results row of 0 us
 * an iteration); --solution and --history, text, under a .tlcsr name,
 * which every reader takes for a binary matrix (written so, exit 0); an
 * empty --partition said "no file of that name", as no other empty name. */
TL_TEST(meaningless_together_refused)
{
    static const char *const cases[][2] = {
        {"--rtol 0 --atol 0 --max-iterations 0",
         "trilap-solve: --max-iterations 0 with --rtol 0 --atol 0: fixed-iteration mode runs exactly --max-iterations "
         "iterations, and 0 times none (give N >= 1)\n"},
        {"--solution x.tlcsr", "trilap-solve: invalid --solution '%s/x.tlcsr': x is written as Matrix Market text; "
                               "give it a .mtx or .mtx.gz name (try --help)\n"},
        {"--solver cg,pcg --solution x.tlcsr",
         "trilap-solve: invalid --solution '%s/x.tlcsr': x is written as Matrix Market text; give it a .mtx or "
         ".mtx.gz name (try --help)\n"},
        {"--history x.tlcsr", "trilap-solve: invalid --history '%s/x.tlcsr': the history is written as CSV text; "
                              "give it a .csv name (try --help)\n"},
        {"--partition ''", "trilap-solve: invalid --partition '': an empty file name (try --help)\n"},
    };
    const char *d = tl_test_tmpdir();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char opts[512], want[1024];
        /* the file options name a file in d */
        const char *x = strstr(cases[k][0], "x.tlcsr");
        snprintf(opts, sizeof opts, "%.*s%s%s%s", x ? (int)(x - cases[k][0]) : (int)strlen(cases[k][0]), cases[k][0],
                 x ? d : "", x ? "/" : "", x ? x : "");
        snprintf(want, sizeof want, cases[k][1], d);
        TL_ASSERT_EQ(run("%s " QUICK " --results %s/r%zu.csv %s gen:poisson7:4", bin(), d, k, opts), 2);
        TL_ASSERT_MSG(!strcmp(err_buf, want), "%s: stderr %s", opts, err_buf);
        TL_ASSERT_MSG(!out_buf[0], "%s: stdout %s", opts, out_buf);
        TL_ASSERT_MSG(tl_test_sh("test -z \"$(ls -A %s)\"", d) == 0, "%s: something written in %s", opts, d);
    }
    /* one iteration, or 0 with a tolerance (x0 may solve it): taken */
    TL_ASSERT_EQ(run("%s " QUICK " --rtol 0 --atol 0 --max-iterations 1 gen:poisson7:4", bin()), 0);
    TL_ASSERT_STREQ(value("iterations", 0), "1");
    TL_ASSERT_EQ(run("%s " QUICK " --max-iterations 0 gen:poisson7:4", bin()), 3);
    TL_ASSERT_STREQ(value("iterations", 0), "0");
    /* valid, without effect: a note, and the run (a replacement interval
     * above the iteration limit printed "residual replacement: every 7
     * iterations" of a run that replaced none, without a word) */
#define FIXED6 " --solver pipebicgstab --rtol 0 --atol 0 --max-iterations 6 gen:poisson7:4"
    TL_ASSERT_EQ(run("%s " QUICK " --residual-replacement 7" FIXED6, bin()), 0);
    TL_ASSERT_STREQ(err_buf, "trilap-solve: note: --residual-replacement 7 is above --max-iterations 6: no solve "
                             "reaches its first replacement, so it has no effect\n");
    TL_ASSERT_STREQ(value("iterations", 0), "6");
    TL_ASSERT_EQ(run("%s " QUICK " --residual-replacement 6" FIXED6, bin()), 0);
    TL_ASSERT_MSG(!err_buf[0], "stderr %s", err_buf);
    /* a warm-up solve that runs longer reaches it: no note */
    TL_ASSERT_EQ(run("%s --no-stats --repeat 1 --warmup 1 --warmup-iterations 7 --residual-replacement 7" FIXED6,
                     bin()), 0);
    TL_ASSERT_MSG(!err_buf[0], "stderr %s", err_buf);
#undef FIXED6
}

/* --omp-threads beyond the cores of the ranks on this host runs, and says
 * so on stderr in one line (1000 threads on 2 cores was taken without a
 * word); within them, nothing is said. */
TL_TEST(omp_threads_beyond_the_cores_said)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 1 --omp-threads 1000 gen:poisson7:4", bin()), 0);
    char want[256];
    snprintf(want, sizeof want,
             "trilap-solve: warning: --omp-threads 1000 with 1 rank on this host is 1000 threads for its %ld core%s: "
             "they take turns, and the times measure the OS scheduler as much as the solver\n",
             cores, cores == 1 ? "" : "s");
    TL_ASSERT_MSG(!strcmp(err_buf, want), "stderr %s", err_buf);
    TL_ASSERT_STREQ(value("omp threads per rank", 0), "1000");
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 1 --omp-threads 1 gen:poisson7:4", bin()), 0);
    TL_ASSERT_MSG(!err_buf[0], "stderr %s", err_buf);
}

/* OMP_NUM_THREADS is read as OpenMP reads its first element, a positive
 * whole number ("4,2" is 4); anything else (empty, as
 * `export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK` gives without
 * --cpus-per-task) is taken as unset, cores / ranks, and said: libgomp
 * answered such a value with every core for every rank. The thread count
 * used is warned about whatever its source: OMP_NUM_THREADS=1000 ran
 * without a word where --omp-threads 1000 was warned about. */
TL_TEST(omp_num_threads_read_and_warned)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char each[32];
    snprintf(each, sizeof each, "%ld", cores / 2 > 1 ? cores / 2 : 1);
    TL_ASSERT_EQ(run("OMP_NUM_THREADS= %s " QUICK " --launcher threads --ranks 2 gen:poisson7:4", bin()), 0);
    if (!value("omp threads per rank", 0)) TL_SKIP("built without OpenMP (OPENMP=0): no thread count to choose");
    TL_ASSERT_STREQ(value("omp threads per rank", 0), each);
    char want[256];
    snprintf(want, sizeof want,
             "trilap-solve: note: OMP_NUM_THREADS '' is not a positive whole number: taken as unset, %s thread%s per "
             "rank (cores / ranks on this host)\n", each, strcmp(each, "1") ? "s" : "");
    TL_ASSERT_MSG(strstr(err_buf, want), "stderr %s", err_buf);
    TL_ASSERT_EQ(run("OMP_NUM_THREADS=x2 %s " QUICK " --launcher threads --ranks 2 gen:poisson7:4", bin()), 0);
    TL_ASSERT_STREQ(value("omp threads per rank", 0), each);
    TL_ASSERT_MSG(strstr(err_buf, "trilap-solve: note: OMP_NUM_THREADS 'x2' is not a positive whole number"), "stderr %s",
                  err_buf);
    /* a list's first element, in silence */
    TL_ASSERT_EQ(run("OMP_NUM_THREADS=1,2 %s " QUICK " --launcher threads --ranks 2 gen:poisson7:4", bin()), 0);
    TL_ASSERT_STREQ(value("omp threads per rank", 0), "1");
    TL_ASSERT_MSG(!err_buf[0], "stderr %s", err_buf);
    TL_ASSERT_EQ(run("OMP_NUM_THREADS=1000 %s " QUICK " --launcher threads --ranks 2 gen:poisson7:4", bin()), 0);
    TL_ASSERT_STREQ(value("omp threads per rank", 0), "1000");
    snprintf(want, sizeof want,
             "trilap-solve: warning: OMP_NUM_THREADS=1000 with 2 ranks on this host is 2000 threads for its %ld core%s: "
             "they take turns, and the times measure the OS scheduler as much as the solver\n",
             cores, cores == 1 ? "" : "s");
    TL_ASSERT_MSG(!strcmp(err_buf, want), "stderr %s", err_buf);
    /* --omp-threads wins over the environment, and is the one named */
    TL_ASSERT_EQ(run("OMP_NUM_THREADS=1000 %s " QUICK " --launcher threads --ranks 1 --omp-threads 1 gen:poisson7:4",
                     bin()), 0);
    TL_ASSERT_STREQ(value("omp threads per rank", 0), "1");
    TL_ASSERT_MSG(!err_buf[0], "stderr %s", err_buf);
}

/* The partition line whole, in the report and the manifest, however long
 * the partition file's path: it was cut at 255 bytes, which lost the row
 * range, the imbalance and the closing parenthesis of a 230-byte path. */
TL_TEST(partition_description_whole)
{
    char dir[1024], part[1200], want[1400];
    const char *folder = "a-folder-name-of-sixty-characters-to-make-the-path-long-0001";
    snprintf(dir, sizeof dir, "%s/%s/%s/%s/%s", tl_test_tmpdir(), folder, folder, folder, folder);
    TL_ASSERT_EQ(tl_test_sh("mkdir -p '%s'", dir), 0);
    snprintf(part, sizeof part, "%s/part.mtx", dir);
    TL_ASSERT(strlen(part) > 230);
    FILE *f = fopen(part, "w");
    TL_ASSERT(f);
    fprintf(f, "%%%%MatrixMarket matrix array integer general\n64 1\n");
    for (int i = 0; i < 64; i++)
        fprintf(f, "%d\n", i / 32);
    fclose(f);
    TL_ASSERT_EQ(run("%s " QUICK " --launcher threads --ranks 2 --partition '%s' --results '%s/r.csv' gen:poisson7:4",
                     bin(), part, dir),
                 0);
    snprintf(want, sizeof want, "\npartition: %s (2 parts, edge cut 16, rows 32..32, imbalance 1.000)\n", part);
    TL_ASSERT_MSG(strstr(out_buf, want), "want %s in:\n%s", want + 1, out_buf);
    char manifest[1300];
    snprintf(manifest, sizeof manifest, "%s/manifest.txt", dir);
    load(manifest);
    TL_ASSERT_MSG(out_buf && strstr(out_buf, want), "want %s in the manifest:\n%s", want + 1, out_buf);
}

/* --results, and the manifest.txt beside it, over an input: the clash of
 * options every other output gets, exit 2, nothing written (--results
 * A.mtx A.mtx said the matrix's header was not the results', exit 1). */
TL_TEST(results_over_an_input_refused)
{
    const char *d = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/m && cp %s %s/A.mtx && cp %s %s/m/manifest.txt", d,
                            tl_test_matrix("ani1_nonsymm.mtx"), d, tl_test_matrix("ani1_nonsymm.mtx"), d),
                 0);
    char want[1200];
    TL_ASSERT_EQ(run("%s " QUICK " --results %s/A.mtx %s/A.mtx", bin(), d, d), 2);
    snprintf(want, sizeof want,
             "trilap-solve: --results %s/A.mtx would write over the input %s/A.mtx: give the output a file of its own\n",
             d, d);
    TL_ASSERT_MSG(!strcmp(err_buf, want) && !out_buf[0], "stderr %s", err_buf);
    TL_ASSERT_EQ(run("%s " QUICK " --results %s/m/r.csv %s/m/manifest.txt", bin(), d, d), 2);
    snprintf(want, sizeof want,
             "trilap-solve: --results (its manifest) %s/m/manifest.txt would write over the input %s/m/manifest.txt: "
             "give the output a file of its own\n", d, d);
    TL_ASSERT_MSG(!strcmp(err_buf, want) && !out_buf[0], "stderr %s", err_buf);
    TL_ASSERT_EQ(tl_test_sh("cmp -s %s %s/A.mtx && cmp -s %s %s/m/manifest.txt && test ! -e %s/m/r.csv",
                            tl_test_matrix("ani1_nonsymm.mtx"), d, tl_test_matrix("ani1_nonsymm.mtx"), d, d),
                 0);
}

/* A generated matrix's parameter, default or given, on the matrix: line:
 * gen:hetero2d:20 said "matrix: gen:hetero2d:20", which trilap-matgen
 * hetero2d 20 (4 decades) was not. */
TL_TEST(generated_matrix_names_its_parameter)
{
    static const char *const spec[][2] = {{"gen:hetero2d:6", "gen:hetero2d:6:4"},
                                          {"gen:convdiff:4", "gen:convdiff:4:0.5"},
                                          {"gen:convdiff:4:2", "gen:convdiff:4:2"},
                                          {"gen:poisson7:4", "gen:poisson7:4"}};
    for (size_t k = 0; k < sizeof spec / sizeof spec[0]; k++) {
        TL_ASSERT_EQ(run("%s " QUICK " --solver bicgstab %s", bin(), spec[k][0]), 0);
        TL_ASSERT_STREQ(value("matrix", 0), spec[k][1]);
    }
}

TL_TEST_MAIN(mpi_1_to_4_ranks_every_method, bicgstab_on_1138_bus, pipecg_hetero2d_mpi,
             thread_launcher_every_method, runs_in_one_invocation_equal_single_runs,
             schedules_named_in_blocks_rows_and_manifest, output_keys_files_and_tables,
             solution_file_solves_the_system, partition_file_and_rtol_base,
             fixed_iterations_and_exit_codes, fixed_iterations_scalar_program_1138_bus, not_spd_matrix_to_cg,
             bad_inputs_fail_clearly, non_square_said_one_way, empty_matrix_refused,
             no_time_per_iteration_without_iterations, fixed_iterations_exact_step_converges, bad_arguments_exit_2, specs_refused_in_one_line, empty_file_name_refused,
             lists_refused_in_one_line,
             jacobi_zero_diagonal_names_the_matrix, outputs_checked_before_the_work, late_write_failure_names_its_option, results_where_a_trace_folder_goes,
             trace_per_run, cuda_and_petsc_backends_refuse_cleanly, device_options_refused_elsewhere,
             run_options_refused_where_no_run_acts, mpirun_refusal_said_once, mpirun_interrupt_said_once,
             warmup_iterations_and_us_per_iter, scale_beyond_a_double_refused, matrix_scale_beyond_a_double_refused,
             true_residual_scaled_on_the_host, cg_restart_one_range_per_iteration, omp_threads_beyond_the_cores_said, meaningless_together_refused,
             omp_num_threads_read_and_warned, partition_description_whole, results_over_an_input_refused,
             generated_matrix_names_its_parameter,
             fixed_iterations_cg_restarts_mpi_equals_threads)
