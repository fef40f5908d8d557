/* CG and PCG (Hestenes & Stiefel 1952; preconditioned as in Saad, Iterative
 * Methods for Sparse Linear Systems, Alg. 9.1). Two blocking reductions per
 * iteration: (p, Ap), then (r, z) fused with (r, r) for the stopping test.
 * With --precond none the preconditioner is a copy, so CG is PCG with M = I.
 *
 * Fixed-iteration (benchmark) mode runs exactly the iterations asked for.
 * Past rounding level the recursive residual goes on shrinking until
 * (r, M^-1 r) underflows (to 0 on poisson7 n = 8 at iteration 356
 * without, 353 with Jacobi, where no step can follow), or p'Ap does (a
 * subnormal one, poisson7 times 1e-100 with b = 1e-80 on 2 ranks, took
 * steps that grew the residual to 5e+29 ||b||): there CG restarts from
 * r = b - A x,
 * p = M^-1 r (as BiCGStab recomputes an r that reached 0), counted as a
 * restart, the first one below sqrt(eps) ||r0|| reported as where the
 * residual was at rounding level. A p'Ap that underflows right after a
 * (re)start is the matrix's: a step, or the stop outside benchmark mode,
 * where a zero stays a breakdown ("not SPD" below zero). */
#include <float.h>
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/cg_steps.h"
#include "solvers/methods/method.h"

enum { R = TL_CG_R, Z = TL_CG_Z, P = TL_CG_P, Q = TL_CG_Q, NV = TL_CG_NSTEP };

/* r = b - A x, z = M^-1 r, d = {(r, z), (r, r)} (blocking): the start and
 * every restart. */
static tl_status cg_residual(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec *const *w, double *d)
{
    tl_vec *r = w[TL_CG_R], *z = w[TL_CG_Z];
    TL_TRY(tl_be_residual(be, b, x, r, w[TL_CG_Q]));
    if (z != r) TL_TRY(tl_be_precond(be, z, r));
    return tl_be_dots(be, 2, (tl_vec *[]){r, r}, (tl_vec *[]){z, r}, d);
}

tl_status tl_cg_restart(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec *const *w, int64_t it,
                        tl_solve_result *res, double *rho, int *stopped)
{
    double d[2];
    TL_TRY(cg_residual(be, b, x, w, d));
    res->restarts++;
    /* method_pipecg.c's test: on a system scaled so badly that p'Ap
     * underflows from the start (poisson7 times 1e-150, b = 1e-80) the
     * restarts are no rounding level */
    if (!res->rounding_at && res->rnorm <= sqrt(DBL_EPSILON) * res->r0norm) {
        res->rounding_at = it;
        res->rounding_recursive = res->rnorm;
        res->rounding_rnorm = sqrt(d[1]);
    }
    *stopped = 1;
    if (!isfinite(d[0]) || !isfinite(d[1]))
        tl_solve_stop(res, TL_STOP_NONFINITE,
                      "b - A x: (r, M^-1 r) = %g, (r, r) = %g at iteration %lld", d[0], d[1],
                      (long long)it);
    else if (d[1] == 0.0)
        tl_solve_stop(res, TL_STOP_ZERO, "b - A x = 0 exactly at iteration %lld", (long long)it);
    else if (!(d[0] > 0.0))
        tl_solve_stop_rz(res, d[0], sqrt(d[1]), it);
    else
        *stopped = 0;
    if (*stopped) return TL_OK;
    *rho = d[0];
    return tl_be_copy(be, w[TL_CG_P], w[TL_CG_Z]);
}

tl_status tl_cg_begin(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res, tl_vec *b,
                      tl_vec *x, tl_vec *const *w, double *rho, int *stopped)
{
    double d[2];
    *stopped = 1;
    TL_TRY(cg_residual(be, b, x, w, d));
    *rho = d[0];
    TL_TRY(tl_solve_begin(be->ctx, prm, res, sqrt(d[1])));
    if (be->cfg.precond == TL_PRECOND_JACOBI && be->nonpos_diag > 0) {
        tl_solve_stop(res, TL_STOP_NOT_SPD,
                      "%lld diagonal entries <= 0 (Jacobi preconditioner not SPD)",
                      (long long)be->nonpos_diag);
        return TL_OK;
    }
    if (tl_solve_check(be->ctx, prm, res, 0, sqrt(d[1]))) return TL_OK;
    *stopped = 0;
    return tl_be_copy(be, w[TL_CG_P], w[TL_CG_Z]);
}

tl_status tl_method_cg(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                       tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0, stopped = 0;
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    tl_vec *r = v[R], *z = v[Z], *p = v[P], *q = v[Q];
    const int fixed = tl_solve_benchmark(prm);
    double d[2], rho;
    TL_TRYGOTO(tl_cg_begin(be, prm, res, b, x, v, &rho, &stopped), st, fail);
    int64_t restarted = 0; /* the iteration of the last start from b - A x */
    for (int64_t it = 0; !stopped;) {
        if (!in_iter) tl_probe_iter_begin(ctx, it); /* open still: iteration it again after a restart */
        in_iter = 1;
        TL_TRYGOTO(tl_be_spmv(be, p, q), st, fail);
        double pq;
        TL_TRYGOTO(tl_be_dots(be, 1, &p, &q, &pq), st, fail);
        if (!isfinite(pq) &&
            tl_solve_stop(res, TL_STOP_NONFINITE, "p'Ap = %g at iteration %lld", pq, (long long)it))
            break;
        if (fixed && tl_sc_cg_underflow(pq) && restarted < it) {
            /* iteration it again, from b - A x, in the probe range open
             * for it: closing it and opening another gave the trace two
             * ranges numbered it (77, 153, ... on poisson7 n = 4 times
             * 1e-100), which a reader counts as two iterations */
            TL_TRYGOTO(tl_cg_restart(be, b, x, v, it, res, &rho, &stopped), st, fail);
            restarted = it;
            continue;
        }
        if (pq <= 0.0 && tl_solve_stop(res, TL_STOP_NOT_SPD, "p'Ap = %.3e <= 0 at iteration %lld",
                                       pq, (long long)it))
            break;
        double alpha = rho / pq;
        tl_update u[2] = {
            {.y = x, .nterms = 2, .coef = {1.0, alpha}, .x = {x, p}},
            {.y = r, .nterms = 2, .coef = {1.0, -alpha}, .x = {r, q}},
        };
        TL_TRYGOTO(tl_be_update(be, u, 2), st, fail);
        TL_TRYGOTO(tl_be_precond(be, z, r), st, fail);
        TL_TRYGOTO(tl_be_dots(be, 2, (tl_vec *[]){r, r}, (tl_vec *[]){z, r}, d), st, fail);
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
        if (tl_solve_check(ctx, prm, res, it, sqrt(d[1]))) break;
        if (fixed && tl_sc_cg_underflow(d[0])) {
            TL_TRYGOTO(tl_cg_restart(be, b, x, v, it, res, &rho, &stopped), st, fail);
            restarted = it;
            continue;
        }
        if (d[0] <= 0.0 && tl_solve_stop_rz(res, d[0], sqrt(d[1]), it)) break;
        double beta = d[0] / rho;
        rho = d[0];
        tl_update up = {.y = p, .nterms = 2, .coef = {1.0, beta}, .x = {z, p}};
        TL_TRYGOTO(tl_be_update(be, &up, 1), st, fail);
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, NV);
    return st;
}
