/* CG and PCG (method_cg.c) with their scalars where the backend computes
 * them: alpha from the scalar program TL_SC_CG_ALPHA, run in the prologue
 * of the update of r, and beta from TL_SC_CG_BETA, run in the prologue of
 * the update of x and p (solvers/backends/scalars.h), so no iteration
 * waits for a reduction to reach the host. The product q = A p also makes
 * the local (p, q) in its pass (tl_be_spmv_dot), and the update of r
 * makes z = M^-1 r and the local (r, z), (r, r) in the same pass
 * (tl_be_update_fused). x += alpha p is made in the pass that reads p for
 * p = z + beta p (the beta program hands the iteration's alpha on), not in
 * the update of r: 8 bytes a row fewer, each value the same. Without a
 * preconditioner z is r itself, not a copy (8 bytes a row fewer again).
 * The programs apply method_cg.c's tests (p'Ap and (r, M^-1 r) positive,
 * the tolerances) and freeze every later iteration (alpha = 0: x and r
 * stay as they were); the host reads the registers of both programs
 * `check_every` iterations late and reports what method_cg.c reports: the
 * same iterations, residuals and stop, the same numbers on the host
 * backend (which runs the programs on the host). In benchmark mode a
 * (r, M^-1 r) or p'Ap that underflowed is flagged as a restart: the
 * iterations after it ran frozen, and the host restarts from b - A x at
 * that iteration (tl_cg_restart, blocking, as method_cg.c) and goes on
 * from there. */
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/cg_steps.h"
#include "solvers/methods/method.h"
#include "solvers/methods/pipecg_async.h"

enum { R, P, Q, Z, NV }; /* Z last: not allocated without a preconditioner */

/* register coefficients: sref = 1 + register */
enum { ALPHA_ = 1 + TL_SC_CG_ALPHA_R, BETA_ = 1 + TL_SC_CG_BETA_R };

/* check_tag's verdict: restart from b - A x at the iteration it names */
enum { RESTART = 2 };

/* The host's checks from the registers of tag `tag` (2i: the alpha program
 * of iteration i; 2i + 1: the beta program after its update, i.e. the
 * residual of iteration i + 1), in method_cg.c's order; 1 to stop,
 * RESTART to restart at iteration *at (benchmark mode). */
static int check_tag(tl_ctx *ctx, const tl_solve_params *prm, tl_solve_result *res, int64_t tag,
                     const double *g, int64_t *at, tl_status *st)
{
    int64_t i = tag / 2;
    int flag = (int)g[TL_SC_CG_FLAG];
    double dot = g[TL_SC_CG_DOT];
    *at = tag % 2 == 0 ? i : i + 1;
    if (tag % 2 == 0) {
        switch (flag) {
        case TL_SC_FLAG_OK:
            return 0;
        case TL_SC_FLAG_RESTART:
            return RESTART;
        case TL_SC_FLAG_NONFINITE:
            return tl_solve_stop(res, TL_STOP_NONFINITE, "p'Ap = %g at iteration %lld", dot,
                                 (long long)i);
        case TL_SC_FLAG_CURV:
            return tl_solve_stop(res, TL_STOP_NOT_SPD, "p'Ap = %.3e <= 0 at iteration %lld", dot,
                                 (long long)i);
        default:
            break;
        }
    } else {
        if (tl_solve_check(ctx, prm, res, i + 1, g[TL_SC_CG_RNORM])) return 1;
        if (flag == TL_SC_FLAG_OK) return 0;
        if (flag == TL_SC_FLAG_RESTART) return RESTART;
        if (flag == TL_SC_FLAG_GAMMA)
            return tl_solve_stop_rz(res, dot, g[TL_SC_CG_RNORM], i + 1);
    }
    /* the program stopped where the host's tests did not */
    *st = TL_FAIL(TL_ERR_NUMERIC,
                  "cg: device flag %d (register tag %lld) disagrees with the host's tests", flag,
                  (long long)tag);
    return 1;
}

/* One iteration, enqueued: q = A p with the local (p, q) in the same
 * pass (tl_be_spmv_dot); its reduction; alpha on the device; r -= alpha q
 * with z = M^-1 r and the local (r, z), (r, r) in the same pass; beta on
 * the device; x += alpha p, p = z + beta p in one pass (per entry in that
 * order: x takes the p of this iteration). The registers of both programs
 * are posted (tags 2 it, 2 it + 1). */
static tl_status iteration(tl_backend *be, tl_vec *x, tl_vec *z, tl_vec *const *v, int64_t it)
{
    tl_vec *r = v[R], *p = v[P], *q = v[Q];
    /* (p, q) from the product's pass where the backend can (no pass of
     * its own over p and q), else at this dot_begin */
    TL_TRY(tl_be_spmv_dot(be, p, q, 0));
    TL_TRY(tl_be_dot_begin(be, 0, 0, NULL, NULL));
    TL_TRY(tl_be_dot_end_async(be, 0));
    TL_TRY(tl_be_scalars(be, TL_SC_CG_ALPHA, 0));
    tl_update ur = {.y = r, .nterms = 2, .coef = {1.0, -1.0}, .x = {r, q}, .sref = {0, ALPHA_}};
    tl_update_tail t = {.slot = 1, .ndots = 2, .x = {r, r}, .y = {z, r}};
    if (z != r) t.pz = z, t.pr = r;
    TL_TRY(tl_be_update_fused(be, &ur, 1, &t));
    TL_TRY(tl_be_regs_post(be, 2 * it));
    TL_TRY(tl_be_dot_begin(be, 1, 0, NULL, NULL));
    TL_TRY(tl_be_dot_end_async(be, 1));
    TL_TRY(tl_be_scalars(be, TL_SC_CG_BETA, 1));
    tl_update u[2] = {
        {.y = x, .nterms = 2, .coef = {1.0, 1.0}, .x = {x, p}, .sref = {0, ALPHA_}},
        {.y = p, .nterms = 2, .coef = {1.0, 1.0}, .x = {z, p}, .sref = {0, BETA_}},
    };
    TL_TRY(tl_be_update(be, u, 2));
    return tl_be_regs_post(be, 2 * it + 1);
}

/* The programs' state from a start or restart: rho = (r, M^-1 r), the
 * tolerances (both negative in benchmark mode, which the programs read)
 * and FRESH, for the first iteration from b - A x. */
static tl_status load_state(tl_backend *be, const tl_solve_params *prm, const tl_solve_result *res,
                            double rho)
{
    double state[TL_SC_STATE] = {0};
    state[TL_SC_ST_RTOL] = prm->rtol > 0 ? prm->rtol * res->base : -1.0;
    state[TL_SC_ST_ATOL] = prm->atol > 0 ? prm->atol : -1.0;
    state[TL_SC_ST_SOFT_TOL] = -1.0;
    state[TL_SC_ST_RHO] = rho;
    state[TL_SC_ST_FRESH] = 1.0;
    return tl_be_scalars_init(be, state);
}

/* method_cg.c's start (tl_cg_begin), and the programs' state from it;
 * *stopped when the solve ends there. w: r, z, p, q (cg_steps.h). */
static tl_status start(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res, tl_vec *b,
                       tl_vec *x, tl_vec *const *w, int *stopped)
{
    double rho;
    TL_TRY(tl_cg_begin(be, prm, res, b, x, w, &rho, stopped));
    return *stopped ? TL_OK : load_state(be, prm, res, rho);
}

/* Benchmark mode: iteration `at` again from b - A x (what the device ran
 * frozen after the flag is dropped), with the programs' state anew. */
static tl_status restart_at(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                            tl_vec *b, tl_vec *x, tl_vec *const *w, int64_t at, int *stopped)
{
    double rho;
    TL_TRY(tl_cg_restart(be, b, x, w, at, res, &rho, stopped));
    return *stopped ? TL_OK : load_state(be, prm, res, rho);
}

tl_status tl_method_cg_async(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                             tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0, stopped = 0;
    int every = be->cfg.check_every > 0 ? be->cfg.check_every : 1;
    int lag = 2 * every; /* in register tags, two per iteration */
    /* M = I: z is r (method_cg.c's copy holds the same values) */
    int nv = be->cfg.precond == TL_PRECOND_NONE ? Z : NV;
    TL_CHECK(2 * lag + 4 <= TL_SC_RING, TL_ERR_INVAL, "--check-every %d (at most %d)", every,
             (TL_SC_RING - 4) / 4);
    TL_TRYGOTO(tl_be_vecs(be, v, nv), st, fail);
    tl_vec *z = nv == NV ? v[Z] : v[R];
    tl_vec *w[TL_CG_NSTEP] = {[TL_CG_R] = v[R], [TL_CG_Z] = z, [TL_CG_P] = v[P], [TL_CG_Q] = v[Q]};
    TL_TRYGOTO(start(be, prm, res, b, x, w, &stopped), st, fail);
    int64_t maxit = prm->max_iterations, checked = 0; /* next register tag to check */
    for (int64_t it = 0; !stopped && it < maxit;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        TL_TRYGOTO(iteration(be, x, z, v, it), st, fail);
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
        /* the host's checks, `lag` tags behind (all of them at the end) */
        int64_t upto = tl_async_check_upto(it, maxit, every, lag);
        for (; checked <= upto && !stopped; checked++) {
            double g[TL_SC_REGS];
            int64_t at;
            TL_TRYGOTO(tl_be_regs_get(be, checked, g), st, fail);
            stopped = check_tag(ctx, prm, res, checked, g, &at, &st);
            TL_TRYGOTO(st, st, fail);
            if (stopped == RESTART) {
                it = at;
                checked = 2 * at;
                TL_TRYGOTO(restart_at(be, prm, res, b, x, w, at, &stopped), st, fail);
                break;
            }
        }
    }
    TL_CHECKGOTO(stopped || maxit == 0, TL_ERR_NUMERIC, st, fail,
                 "cg: no stop after %lld iterations", (long long)maxit);
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, nv);
    return st;
}
