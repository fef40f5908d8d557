/* Pipelined PCG (Ghysels & Vanroose 2014, Alg. 4) with its scalars where
 * the backend computes them: the same recurrences as method_pipecg.c, but
 * alpha and beta come from the scalar program TL_SC_PIPECG
 * (solvers/backends/scalars.h), which the CUDA backend runs in the prologue of the
 * fused update kernel, so no iteration waits for a reduction to reach the
 * host. The host reads the registers of each iteration (||r||, the
 * breakdown flag) asynchronously, every `check_every` iterations and
 * `check_every` iterations late; the program applies the stopping test
 * itself and freezes every later iteration (alpha = beta = 0: x, r, u, w
 * stay as they were), so the iteration count and x are those of a method
 * that checked every iteration. On a backend without device scalars the
 * wrappers run the same program on the host. The update's pass also makes
 * m = M w and the local dots of the next iteration (tl_be_update_fused):
 * on the CUDA backend an iteration is the allreduce of those dots
 * overlapped with n = A m, then that one pass; elsewhere the wrappers run
 * precond and the dots apart, with the same values as before.
 *
 * A converged recursive residual is confirmed by b - A x, as in
 * method_pipecg.c: where the two disagree, the recurrences start again
 * from the true residual (converge_or_restart). Otherwise this is Alg. 4
 * without method_pipecg.c's robustness measures (explicit checks of
 * suspect steps, automatic residual replacement), which need a host
 * decision every iteration: a suspect step stops the method ("not
 * SPD"), except in benchmark mode, which runs exactly the iterations
 * asked for: there it is taken softly (a direction restart, beta = 0;
 * tl_sc_pipecg says how), reported as "rounding level: from iteration N"
 * once the residual is at rounding level and counted as "restarts" above
 * it. */
#include <float.h>
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/method.h"
#include "solvers/methods/pipecg_async.h"
#include "solvers/methods/pipecg_steps.h"

enum { R, U, W, M, N, Z, Q, S, P, TMP, NV };

/* check_one's verdict that the recursive residual converged at an
 * iteration: only b - A x there may say so */
enum { ASK_TRUE = 3 };

/* The host's checks of iteration `it` from its registers, in the order of
 * method_pipecg.c; 1 when the method stops there, ASK_TRUE when the
 * recursive residual converged. */
static int check_one(tl_ctx *ctx, const tl_solve_params *prm, tl_solve_result *res, int64_t it,
                     const double *g, tl_status *st)
{
    if (g[TL_SC_PCG_SOFT] == 1.0 && res->rounding_at == 0) {
        /* benchmark mode: the first step the program took softly at rounding level */
        res->rounding_at = it;
        res->rounding_recursive = g[TL_SC_PCG_RNORM];
    }
    if (g[TL_SC_PCG_SOFT] == 2.0) res->restarts++; /* benchmark mode, above rounding level */
    /* the recursive residual meets the tolerance: the device froze there;
     * b - A x decides (converge_or_restart) */
    if (it > 0 && tl_solve_meets_tol(prm, res, g[TL_SC_PCG_RNORM])) return ASK_TRUE;
    if (tl_solve_check(ctx, prm, res, it, g[TL_SC_PCG_RNORM])) return 1;
    double gamma = g[TL_SC_PCG_GAMMA], delta = g[TL_SC_PCG_DELTA];
    switch ((int)g[TL_SC_PCG_FLAG]) {
    case TL_SC_FLAG_OK:
        return 0;
    case TL_SC_FLAG_NONFINITE:
        return tl_solve_stop(res, TL_STOP_NONFINITE, "gamma = %g, delta = %g at iteration %lld",
                             gamma, delta, (long long)it);
    case TL_SC_FLAG_GAMMA:
        return tl_solve_stop(res, TL_STOP_NOT_SPD, "(r, M^-1 r) = %.3e <= 0 at iteration %lld",
                             gamma, (long long)it);
    case TL_SC_FLAG_CURV:
        return tl_solve_stop(res, TL_STOP_NOT_SPD, "p'Ap = %.3e <= 0 at iteration %lld",
                             g[TL_SC_PCG_CURV], (long long)it);
    default:
        /* the program's stopping test said converged, the host's did not */
        *st = TL_FAIL(TL_ERR_NUMERIC,
                      "pipecg: device stopping test (flag %g) disagrees with the host's at "
                      "iteration %lld (||r|| = %.17g)",
                      g[TL_SC_PCG_FLAG], (long long)it, g[TL_SC_PCG_RNORM]);
        return 1;
    }
}

/* The host's checks of iterations *checked .. upto, in order, until one
 * stops the method (*stopped); *checked ends past the last one checked,
 * or at the iteration whose recursive residual converged (ASK_TRUE). */
static tl_status check_through(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                               int64_t upto, int64_t *checked, int *stopped)
{
    tl_status st = TL_OK;
    for (; *checked <= upto && !*stopped; (*checked)++) {
        double g[TL_SC_REGS];
        TL_TRY(tl_be_regs_get(be, *checked, g));
        *stopped = check_one(be->ctx, prm, res, *checked, g, &st);
        TL_TRY(st);
        if (*stopped == ASK_TRUE) break;
    }
    return TL_OK;
}

/* r = b - A x, u = M r, w = A u, m = M w: the start of the recurrences,
 * at iteration 0 and at a restart from the true residual. */
static tl_status start_from_x(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec **v)
{
    TL_TRY(tl_be_residual(be, b, x, v[R], v[TMP]));
    TL_TRY(tl_be_precond(be, v[U], v[R]));
    TL_TRY(tl_be_spmv(be, v[U], v[W]));
    TL_TRY(tl_be_precond(be, v[M], v[W]));
    return TL_OK;
}

/* The recursive residual converged at iteration `it` and the device froze
 * every later one, so x is that iteration's. The true residual, computed
 * as the driver computes it, decides: it converged, or the recurrences
 * start again from it (method_pipecg.c replaces the residual there), as
 * long as each such restart at least halves it (TL_TRUE_RESTART_GAIN);
 * 1 when the method stops. */
static tl_status converge_or_restart(tl_backend *be, const tl_solve_params *prm, tl_vec *b,
                                     tl_vec *x, tl_vec **v, tl_solve_result *res, int64_t it,
                                     double *true_last, int *stop)
{
    double rr;
    TL_TRY(tl_be_residual(be, b, x, v[R], v[TMP]));
    TL_TRY(tl_be_dots(be, 1, &v[R], &v[R], &rr));
    double tr = sqrt(rr);
    *stop = 0;
    int gained = tr <= TL_TRUE_RESTART_GAIN * *true_last;
    if (!isfinite(tr) || tl_solve_meets_tol(prm, res, tr) || it >= prm->max_iterations || !gained) {
        /* the method ends at `it` with b - A x as its last residual */
        *stop = tl_solve_check(be->ctx, prm, res, it, tr) ||
                tl_solve_stop_true(prm, res, tr,
                                   "the recursive residual converged again after a restart from "
                                   "b - A x without reducing it");
        return TL_OK;
    }
    /* going on: iteration `it` runs again from b - A x and records its
     * residual then (once: the history has a row per iteration) */
    *true_last = tr;
    res->replacements++;
    return start_from_x(be, b, x, v);
}

tl_status tl_method_pipecg_async(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    int every = be->cfg.check_every > 0 ? be->cfg.check_every : 1;
    /* how far the host trails (also on the host backend, where nothing
     * needs waiting for: the same iterations run, frozen, on both) */
    int lag = every;
    TL_CHECK(2 * every + 2 <= TL_SC_RING, TL_ERR_INVAL, "--check-every %d (at most %d)", every,
             (TL_SC_RING - 2) / 2);
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    tl_vec *r = v[R], *u = v[U], *w = v[W], *m = v[M], *n = v[N], *z = v[Z], *q = v[Q], *s = v[S],
           *p = v[P];

    TL_TRYGOTO(start_from_x(be, b, x, v), st, fail);
    /* each update also makes the next m = M w and the local parts of the
     * next iteration's dots (r, u), (w, u), (r, r), in the same pass where
     * the backend can (tl_be_update_fused); the iteration is then the
     * allreduce of those dots overlapped with n = A m, and that pass */
    tl_update_tail tail = {
        .pz = m, .pr = w, .slot = 0, .ndots = 3, .x = {r, w, r}, .y = {u, u, r}};

    /* the eight updates of pipecg_form.h in one pass, coefficients from
     * the registers; then m = M w and the dots (tail) */
    enum { A = 1 + TL_SC_PCG_ALPHA, B = 1 + TL_SC_PCG_BETA };
    tl_vec *vec[TL_PCG_NVEC] = {[TL_PCG_N] = n, [TL_PCG_M] = m, [TL_PCG_W] = w, [TL_PCG_U] = u,
                                [TL_PCG_X] = x, [TL_PCG_R] = r, [TL_PCG_Z] = z, [TL_PCG_Q] = q,
                                [TL_PCG_S] = s, [TL_PCG_P] = p};
    tl_update up[TL_PCG_NAXPY];
    tl_pipecg_updates(vec, 1.0, 1.0, A, B, up);

    int64_t checked = 0, maxit = prm->max_iterations;
    int stopped = 0;
    /* the iteration the recurrences started at from b - A x (0, or a
     * restart of converge_or_restart), and that true residual */
    int64_t start = 0;
    double true_last = INFINITY;
    /* Where the driver chose the loop variant (the backend's
     * fused_iterations: one persistent kernel on CUDA), each call runs
     * `chunk` iterations and the host checks one call behind: 64 at a time in benchmark mode (nothing to
     * stop early; the registers of two calls in flight fit the ring), else
     * the check interval, so that a converged run goes on as far as it
     * does here. Iteration 0 and the last program (no update) run as
     * below. */
    int looping = tl_be_has_fused_iterations(be);
    const tl_iteration iter = {
        .sx = m, .sy = n, .prog = TL_SC_PIPECG, .u = up, .nu = TL_PCG_NAXPY, .t = &tail};
    int fixed_mode = tl_solve_benchmark(prm);
    int chunk = fixed_mode ? TL_SC_RING / 4 : every;
    for (int64_t it = 0; !stopped; it++) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        if (looping && it > start && it < maxit) {
            int k = maxit - it < chunk ? (int)(maxit - it) : chunk;
            TL_TRYGOTO(tl_be_fused_iterations(be, &iter, it, k), st, fail);
            it += k - 1;
            tl_probe_iter_end(ctx);
            in_iter = 0;
            TL_TRYGOTO(check_through(be, prm, res, it - chunk, &checked, &stopped), st, fail);
            if (stopped == ASK_TRUE) {
                TL_TRYGOTO(converge_or_restart(be, prm, b, x, v, res, checked, &true_last,
                                               &stopped),
                           st, fail);
                it = (start = checked) - 1;
            }
            continue;
        }
        /* the dots of the start, later the ones the last update kept */
        if (it == start)
            TL_TRYGOTO(tl_be_dot_begin(be, 0, 3, tail.x, tail.y), st, fail);
        else
            TL_TRYGOTO(tl_be_dot_begin(be, 0, 0, NULL, NULL), st, fail);
        TL_TRYGOTO(tl_be_spmv_begin(be, m, n), st, fail); /* n = A m */
        TL_TRYGOTO(tl_be_spmv_end(be, m, n), st, fail);
        TL_TRYGOTO(tl_be_dot_end_async(be, 0), st, fail);
        if (it == start) {
            /* once per solve: ||r0|| sets the tolerance the program tests;
             * at a restart the program's state starts again (beta = 0) */
            double d[3];
            TL_TRYGOTO(tl_be_dot_fetch(be, 0, d, 3), st, fail);
            if (it == 0) TL_TRYGOTO(tl_solve_begin(ctx, prm, res, sqrt(d[2])), st, fail);
            if (it == 0 && be->cfg.precond == TL_PRECOND_JACOBI && be->nonpos_diag > 0) {
                tl_solve_stop(res, TL_STOP_NOT_SPD,
                              "%lld diagonal entries <= 0 (Jacobi preconditioner not SPD)",
                              (long long)be->nonpos_diag);
                break;
            }
            double state[TL_SC_STATE] = {0};
            state[TL_SC_ST_RTOL] = prm->rtol > 0 ? prm->rtol * res->base : -1.0;
            state[TL_SC_ST_ATOL] = prm->atol > 0 ? prm->atol : -1.0;
            int fixed = tl_solve_benchmark(prm);
            state[TL_SC_ST_SOFT_TOL] = fixed ? sqrt(DBL_EPSILON) * res->r0norm : -1.0;
            TL_TRYGOTO(tl_be_scalars_init(be, state), st, fail);
        }
        TL_TRYGOTO(tl_be_scalars(be, TL_SC_PIPECG, 0), st, fail);
        if (it < maxit) TL_TRYGOTO(tl_be_update_fused(be, up, TL_PCG_NAXPY, &tail), st, fail);
        TL_TRYGOTO(tl_be_regs_post(be, it), st, fail);
        tl_probe_iter_end(ctx);
        in_iter = 0;
        /* the host's checks, `lag` iterations behind (all at the end) */
        int64_t upto = it >= maxit ? it : it - lag;
        if (lag > 0 && (it + 1) % every != 0 && it < maxit) continue;
        TL_TRYGOTO(check_through(be, prm, res, upto, &checked, &stopped), st, fail);
        if (stopped == ASK_TRUE) {
            /* iteration `checked` again, from b - A x, unless that converged */
            TL_TRYGOTO(converge_or_restart(be, prm, b, x, v, res, checked, &true_last, &stopped),
                       st, fail);
            it = (start = checked) - 1;
            continue;
        }
        TL_CHECKGOTO(stopped || it < maxit, TL_ERR_NUMERIC, st, fail,
                     "pipecg: no stop after %lld iterations", (long long)maxit);
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, NV);
    return st;
}
