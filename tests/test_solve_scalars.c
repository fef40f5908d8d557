/* pipecg with scalar programs (solvers/pipecg_async.c, what the CUDA
 * backend runs with its scalars on the device) against pipecg reading each
 * reduction on the host (method_pipecg.c): on the host backend, where the
 * wrappers run the same programs, both give the same residual history,
 * iteration count, stop reason and true residual, bit for bit, for
 * convergence, fixed iterations, the iteration limit, atol, rtol-base r0,
 * no preconditioner and a breakdown. */
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

/* Everything but the timing lines. */
static char *strip_times(char *s)
{
    char *w = s;
    for (char *line = s; *line;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
        if (!strstr(line, "time") || (nl && strstr(line, "time") > nl)) {
            memmove(w, line, len);
            w += len;
        }
        line += len;
    }
    *w = 0;
    return s;
}

static void same(int ranks, const char *args)
{
    char cmd[2048], hist[2][512];
    char *out[2], *err[2];
    int rc[2];
    const char *modes[2] = {"host", "program"};
    for (int k = 0; k < 2; k++) {
        snprintf(hist[k], sizeof hist[k], "%s", tl_test_path(modes[k]));
        snprintf(cmd, sizeof cmd,
                 "%s --launcher threads --ranks %d --no-gpu --solver pipecg --scalars %s "
                 "--warmup 0 --repeat 1 --no-stats --history %s %s",
                 bin(), ranks, modes[k], hist[k], args);
        rc[k] = tl_test_run(cmd, &out[k], &err[k]);
        fprintf(stderr, "$ %s -> %d\n", cmd, rc[k]);
    }
    TL_ASSERT_MSG(rc[0] == rc[1] && (rc[0] == 0 || rc[0] == 3), "exit %d vs %d: %s", rc[0], rc[1],
                  err[1]);
    TL_ASSERT_MSG(strstr(out[0], "\niterations: "), "no output: %s", err[0]);
    TL_ASSERT_STREQ(strip_times(out[0]), strip_times(out[1]));
    char *h0 = tl_test_read(hist[0]), *h1 = tl_test_read(hist[1]);
    TL_ASSERT(strlen(h0) > 40);
    TL_ASSERT_STREQ(h0, h1);
    for (int k = 0; k < 2; k++) {
        free(out[k]);
        free(err[k]);
    }
    free(h0);
    free(h1);
}

TL_TEST(converged_1138_bus_4_ranks)
{
    char a[600];
    snprintf(a, sizeof a, "--rtol 1e-5 %s", tl_test_matrix("1138_bus.mtx"));
    same(4, a);
}
TL_TEST(converged_ani4_2_ranks)
{
    same(2, tl_test_matrix("ani4.mtx"));
}
TL_TEST(stopping_variants_poisson7)
{
    same(3, "gen:poisson7:12");
    same(2, "--atol 1e-3 --rtol 0 gen:poisson7:8");
    same(2, "--max-iterations 5 gen:poisson7:8");
    same(2, "--max-iterations 0 gen:poisson7:8");
    same(2, "--precond none --rtol-base r0 gen:poisson7:8");
    same(1, "--rtol 0 --atol 0 --max-iterations 12 gen:poisson7:8");
}
TL_TEST(breakdowns)
{
    same(1,
         "--rtol 0 --atol 0 --max-iterations 30 gen:poisson27:8"); /* p'Ap <= 0 at rounding level */
    same(2, "gen:convdiff:8");                                     /* not SPD */
}

TL_TEST_MAIN(converged_1138_bus_4_ranks, converged_ani4_2_ranks, stopping_variants_poisson7,
             breakdowns)
