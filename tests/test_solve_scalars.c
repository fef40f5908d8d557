/* pipecg on scalar programs (solvers/methods/pipecg_async.c, what the CUDA
 * backend runs with its scalars on the device), on the host backend,
 * where the wrappers run the same programs:
 *  - the host reading the registers late changes nothing: --check-every 1
 *    and 9 give the same output and residual history bit for bit
 *    (convergence, fixed iterations past rounding level, the iteration
 *    limit, atol, --rtol-base r0, no preconditioner, breakdowns), since
 *    the program stops (freezes) itself;
 *  - against method_pipecg.c (--scalars host): the same iteration count on
 *    a well-conditioned input and within 2 % on the others (its automatic
 *    residual replacement is the difference), both converged;
 *  - benchmark mode runs exactly the iterations asked for past rounding
 *    level and says where that was, as method_pipecg.c does;
 *  - pipebicgstab on programs (solvers/methods/pipebicgstab_async.c) equals
 *    method_pipebicgstab.c bit for bit, restarts and residual replacement
 *    included, whether checked every iteration or 9 late; cg and pcg on
 *    programs (solvers/methods/cg_async.c) equal method_cg.c the same way. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static const char *bin(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/trilap-solve", tl_test_env("TL_BIN", "bin"));
    return path;
}

/* Everything but the timing lines, the one naming the scalars and the one
 * naming the history file (each run's own). */
static char *strip_times(char *s)
{
    char *w = s;
    for (char *line = s; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        /* and the line naming the scalars, which differs by design */
        if ((!strstr(line, "time") || (nl && strstr(line, "time") > nl)) && strncmp(line, "scalars: ", 9) != 0 &&
            strncmp(line, "history: ", 9) != 0) {
            memmove(w, line, len);
            w += len;
        }
        line += len;
    }
    *w = 0;
    return s;
}

static char *run_solver(const char *solver, int ranks, const char *mode, int every,
                        const char *args, int *rc, char **hist)
{
    char cmd[2048], *out = NULL, *err = NULL;
    char name[64], check[32] = "";
    snprintf(name, sizeof name, "%s-%s-%d", solver, mode, every);
    *hist = strdup(tl_test_path(name));
    /* the late checks are the scalar programs' (refused with host scalars) */
    if (strcmp(mode, "program") == 0) snprintf(check, sizeof check, "--check-every %d ", every);
    snprintf(cmd, sizeof cmd,
             "%s --launcher threads --ranks %d --no-gpu --solver %s --scalars %s "
             "%s--warmup 0 --repeat 1 --no-stats --history %s %s",
             bin(), ranks, solver, mode, check, *hist, args);
    *rc = tl_test_run(cmd, &out, &err);
    fprintf(stderr, "$ %s -> %d\n", cmd, *rc);
    TL_ASSERT_MSG(*rc == 0 || *rc == 3, "exit %d: %s", *rc, err);
    TL_ASSERT_MSG(strstr(out, "\niterations: "), "no output: %s", err);
    free(err);
    return out;
}

static char *run_pipecg(int ranks, const char *mode, int every, const char *args, int *rc,
                        char **hist)
{
    return run_solver("pipecg", ranks, mode, every, args, rc, hist);
}

static long key_long(const char *out, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\n%s: ", key);
    const char *p = strstr(out, k);
    TL_ASSERT_MSG(p, "no '%s' in output", key);
    return atol(p + strlen(k));
}

/* --check-every 1 and 9: same output (but times), same history */
static void same(int ranks, const char *args)
{
    int rc[2];
    char *hist[2];
    char *out[2] = {run_pipecg(ranks, "program", 1, args, &rc[0], &hist[0]),
                    run_pipecg(ranks, "program", 9, args, &rc[1], &hist[1])};
    TL_ASSERT_EQ(rc[0], rc[1]);
    TL_ASSERT_STREQ(strip_times(out[0]), strip_times(out[1]));
    char *h0 = tl_test_read(hist[0]), *h1 = tl_test_read(hist[1]);
    TL_ASSERT(strlen(h0) > 40);
    TL_ASSERT_STREQ(h0, h1);
    for (int k = 0; k < 2; k++) {
        free(out[k]);
        free(hist[k]);
    }
    free(h0);
    free(h1);
}

/* program vs method_pipecg.c: iteration counts within tol (fraction), both converged */
static void close_to_host(int ranks, const char *args, double tol)
{
    int rc[2];
    char *hist[2];
    char *p = run_pipecg(ranks, "program", 4, args, &rc[0], &hist[0]);
    char *h = run_pipecg(ranks, "host", 4, args, &rc[1], &hist[1]);
    TL_ASSERT(rc[0] == 0 && rc[1] == 0 && strstr(p, "\nconverged: yes") &&
              strstr(h, "\nconverged: yes"));
    long ip = key_long(p, "iterations"), ih = key_long(h, "iterations");
    TL_ASSERT_MSG(labs(ip - ih) <= tol * ih, "iterations %ld (program) vs %ld (host)", ip, ih);
    free(p);
    free(h);
    free(hist[0]);
    free(hist[1]);
}

TL_TEST(late_checks_change_nothing)
{
    char a[600];
    snprintf(a, sizeof a, "--rtol 1e-5 %s", tl_test_matrix("1138_bus.mtx"));
    same(4, a);
    same(2, tl_test_matrix("ani4.mtx"));
    same(3, "gen:poisson7:12");
    same(2, "--atol 1e-3 --rtol 0 gen:poisson7:8");
    same(2, "--max-iterations 5 gen:poisson7:8");
    same(2, "--max-iterations 0 gen:poisson7:8");
    same(2, "--precond none --rtol-base r0 gen:poisson7:8");
    same(1, "--rtol 0 --atol 0 --max-iterations 300 gen:poisson7:8");
    same(2, "gen:convdiff:8"); /* not SPD */
}

TL_TEST(against_method_pipecg)
{
    close_to_host(3, "gen:poisson7:12", 0.0);
    close_to_host(2, tl_test_matrix("ani4.mtx"), 0.02);
    char a[600];
    snprintf(a, sizeof a, "--rtol 1e-5 %s", tl_test_matrix("1138_bus.mtx"));
    close_to_host(4, a, 0.02);
}

/* A method on programs with late checks (1 and 9 iterations) and its host
 * form give the same output and history bit for bit (pipebicgstab:
 * restarts and residual replacement included). */
static void same_programs(const char *solver, int ranks, const char *args)
{
    int rc[3];
    char *hist[3];
    char *out[3] = {run_solver(solver, ranks, "host", 1, args, &rc[0], &hist[0]),
                    run_solver(solver, ranks, "program", 1, args, &rc[1], &hist[1]),
                    run_solver(solver, ranks, "program", 9, args, &rc[2], &hist[2])};
    char *h[3];
    for (int k = 0; k < 3; k++) {
        strip_times(out[k]);
        h[k] = tl_test_read(hist[k]);
    }
    for (int k = 1; k < 3; k++) {
        TL_ASSERT_EQ(rc[0], rc[k]);
        TL_ASSERT_STREQ(out[0], out[k]);
        TL_ASSERT_STREQ(h[0], h[k]);
    }
    TL_ASSERT(strlen(h[0]) > 40);
    for (int k = 0; k < 3; k++) {
        free(out[k]);
        free(hist[k]);
        free(h[k]);
    }
}

TL_TEST(pipebicgstab_programs_equal_the_method)
{
    char a[600];
    snprintf(a, sizeof a, "--rtol 1e-6 %s", tl_test_matrix("1138_bus.mtx")); /* 4 restarts */
    same_programs("pipebicgstab", 2, a);
    same_programs("pipebicgstab", 3, tl_test_matrix("ani1_nonsymm.mtx"));
    same_programs("pipebicgstab", 2, "gen:convdiff:12");
    same_programs("pipebicgstab", 1, "--residual-replacement 10 gen:convdiff:12");
    same_programs("pipebicgstab", 2, "--rtol 0 --atol 0 --max-iterations 300 gen:convdiff:8"); /* restarts */
    same_programs("pipebicgstab", 2, "--max-iterations 7 gen:poisson7:8");
    same_programs("pipebicgstab", 2, "--atol 1e-4 --rtol 0 --precond none gen:poisson7:8");
}

/* cg and pcg on programs (solvers/methods/cg_async.c) equal method_cg.c
 * bit for bit: convergence, the limits, no preconditioner, the stops on
 * a matrix that is not SPD, benchmark mode, before and past the restarts
 * where the scalars underflow (from about iteration 338 here: the host
 * reading the flag 9 iterations late goes back to it). */
TL_TEST(cg_programs_equal_the_method)
{
    char a[600];
    snprintf(a, sizeof a, "--rtol 1e-6 %s", tl_test_matrix("1138_bus.mtx"));
    same_programs("pcg", 2, a);
    same_programs("cg", 3, tl_test_matrix("ani4.mtx"));
    same_programs("pcg", 3, "gen:poisson7:12");
    same_programs("cg", 2, "--atol 1e-4 --rtol 0 gen:poisson7:8");
    same_programs("pcg", 2, "--max-iterations 7 gen:poisson7:8");
    same_programs("pcg", 2, "--max-iterations 0 gen:poisson7:8");
    same_programs("pcg", 1, "--precond none --rtol-base r0 gen:poisson7:8");
    same_programs("pcg", 2, "--rtol 0 --atol 0 --max-iterations 300 gen:poisson7:8");
    same_programs("cg", 2, "--rtol 0 --atol 0 --max-iterations 1000 gen:poisson7:8");
    same_programs("pcg", 3, "--rtol 0 --atol 0 --max-iterations 1000 gen:poisson7:8");
    same_programs("cg", 2, "gen:convdiff:8"); /* not SPD */
}

TL_TEST(benchmark_mode_past_rounding_level)
{
    int rc;
    char *hist;
    char *out = run_pipecg(1, "program", 4, "--rtol 0 --atol 0 --max-iterations 400 gen:poisson7:8",
                           &rc, &hist);
    TL_ASSERT_EQ(rc, 0);
    TL_ASSERT_EQ(key_long(out, "iterations"), 400);
    TL_ASSERT(strstr(out, "\nrounding level: from iteration "));
    const char *t = strstr(out, "\ntrue residual: ");
    TL_ASSERT(t && atof(t + 16) < 1e-9);
    free(out);
    free(hist);
}

TL_TEST_MAIN(late_checks_change_nothing, against_method_pipecg, cg_programs_equal_the_method,
             pipebicgstab_programs_equal_the_method, benchmark_mode_past_rounding_level)
