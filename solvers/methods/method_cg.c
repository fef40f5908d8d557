/* CG and PCG (Hestenes & Stiefel 1952; preconditioned as in Saad, Iterative
 * Methods for Sparse Linear Systems, Alg. 9.1). Two blocking reductions per
 * iteration: (p, Ap), then (r, z) fused with (r, r) for the stopping test.
 * With --precond none the preconditioner is a copy, so CG is PCG with M = I. */
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/method.h"

enum { R, Z, P, Q, NV };

tl_status tl_method_cg(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                       tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    tl_vec *r = v[R], *z = v[Z], *p = v[P], *q = v[Q];
    double d[2];

    TL_TRYGOTO(tl_be_residual(be, b, x, r, q), st, fail);
    TL_TRYGOTO(tl_be_precond(be, z, r), st, fail);
    TL_TRYGOTO(tl_be_dots(be, 2, (tl_vec *[]){r, r}, (tl_vec *[]){z, r}, d), st, fail);
    double rho = d[0];
    TL_TRYGOTO(tl_solve_begin(ctx, prm, res, sqrt(d[1])), st, fail);
    if (be->cfg.precond == TL_PRECOND_JACOBI && be->nonpos_diag > 0) {
        tl_solve_stop(res, TL_STOP_NOT_SPD,
                      "%lld diagonal entries <= 0 (Jacobi preconditioner not SPD)",
                      (long long)be->nonpos_diag);
        goto fail;
    }
    if (tl_solve_check(ctx, prm, res, 0, sqrt(d[1]))) goto fail;
    TL_TRYGOTO(tl_be_copy(be, p, z), st, fail);

    for (int64_t it = 0;;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        TL_TRYGOTO(tl_be_spmv(be, p, q), st, fail);
        double pq;
        TL_TRYGOTO(tl_be_dots(be, 1, &p, &q, &pq), st, fail);
        if (!isfinite(pq) &&
            tl_solve_stop(res, TL_STOP_NONFINITE, "p'Ap = %g at iteration %lld", pq, (long long)it))
            break;
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
