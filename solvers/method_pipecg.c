/* Pipelined PCG (P. Ghysels, W. Vanroose, "Hiding global synchronization
 * latency in the preconditioned Conjugate Gradient algorithm", Parallel
 * Computing 40(7), 2014, Alg. 4 "preconditioned pipelined CG").
 *
 * One fused allreduce per iteration, of gamma = (r, u), delta = (w, u) and
 * (r, r) for the stopping test, overlapped with m = M w and n = A m. The
 * recurrences keep u = M r, w = A u, s = A p, q = M s, z = A q. */
#include <math.h>

#include "probes/probes.h"
#include "solvers/method.h"

enum { R, U, W, M, N, Z, Q, S, P, TMP, NV };

tl_status tl_method_pipecg(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                           tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    tl_vec *r = v[R], *u = v[U], *w = v[W], *m = v[M], *n = v[N], *z = v[Z], *q = v[Q], *s = v[S],
           *p = v[P];

    /* r0 = b - A x0, u0 = M r0, w0 = A u0 */
    TL_TRYGOTO(tl_be_residual(be, b, x, r, v[TMP]), st, fail);
    TL_TRYGOTO(tl_be_precond(be, u, r), st, fail);
    TL_TRYGOTO(tl_be_spmv(be, u, w), st, fail);

    double gamma_old = 0.0, alpha_old = 0.0;
    int spd_checked = 0;
    for (int64_t it = 0;;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        double d[3];
        TL_TRYGOTO(tl_be_dot_begin(be, 0, 3, (tl_vec *[]){r, w, r}, (tl_vec *[]){u, u, r}), st,
                   fail);
        TL_TRYGOTO(tl_be_precond(be, m, w), st, fail);    /* m = M w */
        TL_TRYGOTO(tl_be_spmv_begin(be, m, n), st, fail); /* n = A m */
        TL_TRYGOTO(tl_be_spmv_end(be, m, n), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 0, d), st, fail);
        double gamma = d[0], delta = d[1], rnorm = sqrt(d[2]);
        if (it == 0) {
            TL_TRYGOTO(tl_solve_begin(ctx, prm, res, rnorm), st, fail);
            if (!spd_checked && be->cfg.precond == TL_PRECOND_JACOBI && be->nonpos_diag > 0) {
                tl_solve_stop(res, TL_STOP_NOT_SPD,
                              "%lld diagonal entries <= 0 (Jacobi preconditioner not SPD)",
                              (long long)be->nonpos_diag);
                break;
            }
            spd_checked = 1;
        }
        if (tl_solve_check(ctx, prm, res, it, rnorm)) break;
        if (!isfinite(gamma) || !isfinite(delta)) {
            tl_solve_stop(res, TL_STOP_NONFINITE, "gamma = %g, delta = %g at iteration %lld", gamma,
                          delta, (long long)it);
            break;
        }
        if (gamma <= 0.0) {
            tl_solve_stop(res, TL_STOP_NOT_SPD, "(r, M^-1 r) = %.3e <= 0 at iteration %lld", gamma,
                          (long long)it);
            break;
        }
        double beta = it > 0 ? gamma / gamma_old : 0.0;
        /* the curvature p'Ap of this iteration's direction */
        double curv = it > 0 ? delta - beta * gamma / alpha_old : delta;
        if (!(curv > 0.0)) {
            tl_solve_stop(res, TL_STOP_NOT_SPD, "p'Ap = %.3e <= 0 at iteration %lld", curv,
                          (long long)it);
            break;
        }
        double alpha = gamma / curv;
        /* z = n + beta z, q = m + beta q, s = w + beta s, p = u + beta p,
         * x += alpha p, r -= alpha s, u -= alpha q, w -= alpha z: one pass */
        tl_update up[8] = {
            {.y = z, .nterms = 2, .coef = {1.0, beta}, .x = {n, z}},
            {.y = q, .nterms = 2, .coef = {1.0, beta}, .x = {m, q}},
            {.y = s, .nterms = 2, .coef = {1.0, beta}, .x = {w, s}},
            {.y = p, .nterms = 2, .coef = {1.0, beta}, .x = {u, p}},
            {.y = x, .nterms = 2, .coef = {1.0, alpha}, .x = {x, p}},
            {.y = r, .nterms = 2, .coef = {1.0, -alpha}, .x = {r, s}},
            {.y = u, .nterms = 2, .coef = {1.0, -alpha}, .x = {u, q}},
            {.y = w, .nterms = 2, .coef = {1.0, -alpha}, .x = {w, z}},
        };
        TL_TRYGOTO(tl_be_update(be, up, 8), st, fail);
        gamma_old = gamma;
        alpha_old = alpha;
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, NV);
    return st;
}
