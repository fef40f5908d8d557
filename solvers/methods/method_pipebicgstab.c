/* Pipelined BiCGStab (S. Cools, W. Vanroose, "The communication-hiding
 * pipelined BiCGStab method for the parallel solution of large unsymmetric
 * linear systems", Parallel Computing 65, 2017, Alg. 3 "p-BiCGStab", with
 * right preconditioning as in their preconditioned variant and PETSc's
 * KSPPIPEBCGS). Two global reductions per iteration, each overlapped with a
 * preconditioner application and an SpMV:
 *   (q, y), (y, y)                          overlapped with zh = M z, v = A zh
 *   (r0, r), (r0, w), (r0, s), (r0, z), (r, r)
 *                                           overlapped with wh = M w, t = A wh
 * Auxiliary vectors (M the preconditioner, B = A M):
 *   w = B r, t = B w, s = B p, z = B s, v = B z, and xh = M x for
 *   xh in r, p, s, w, z, q (rh, ph, sh, wh, zh, qh) so that x is updated
 *   with x += alpha ph + omega qh.
 * Residual replacement (--residual-replacement N): every N iterations
 * r = b - A x and w, s, z, v (and their M-images) are recomputed from
 * their definitions, bounding the drift of the recurrences. */
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/method.h"
#include "solvers/methods/pipebicgstab_steps.h"

tl_status tl_method_pipebicgstab(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    tl_vec *r = v[R], *rh = v[RH], *rt = v[RT], *p = v[P], *ph = v[PH], *s = v[S], *sh = v[SH],
           *z = v[Z], *zh = v[ZH], *q = v[Q], *qh = v[QH], *y = v[Y], *w = v[W], *wh = v[WH],
           *t = v[T], *vv = v[V];

    double d[5];
    TL_TRYGOTO(tl_pipebicgstab_start(be, b, x, v, d), st, fail);
    double rho = d[0], rtnorm = sqrt(d[2]); /* rtnorm: ||r0|| */
    TL_TRYGOTO(tl_solve_begin(ctx, prm, res, sqrt(d[2])), st, fail);
    if (tl_solve_check(ctx, prm, res, 0, sqrt(d[2]))) goto fail;
    if (!(d[1] != 0.0)) {
        tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                      "(r0, A M r0) = %g", d[1]);
        goto fail;
    }
    double alpha = rho / d[1], beta = 0.0, omega = 0.0;
    double true_last = INFINITY; /* b - A x at the last restart from it */

    for (int64_t it = 0;;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        /* p, ph, s, sh, z from their recurrences (beta = 0 at first: the
         * zero-initialised old vectors drop out); then q, qh, y. Entry by
         * entry in this order, so each reads the others' old values where
         * the algorithm does. */
        double bo = -beta * omega;
        tl_update u1[8] = {
            {.y = p, .nterms = 3, .coef = {1.0, beta, bo}, .x = {r, p, s}},
            {.y = ph, .nterms = 3, .coef = {1.0, beta, bo}, .x = {rh, ph, sh}},
            {.y = s, .nterms = 3, .coef = {1.0, beta, bo}, .x = {w, s, z}},
            {.y = sh, .nterms = 3, .coef = {1.0, beta, bo}, .x = {wh, sh, zh}},
            {.y = z, .nterms = 3, .coef = {1.0, beta, bo}, .x = {t, z, vv}},
            {.y = q, .nterms = 2, .coef = {1.0, -alpha}, .x = {r, s}},
            {.y = qh, .nterms = 2, .coef = {1.0, -alpha}, .x = {rh, sh}},
            {.y = y, .nterms = 2, .coef = {1.0, -alpha}, .x = {w, z}},
        };
        TL_TRYGOTO(tl_be_update(be, u1, 8), st, fail);

        TL_TRYGOTO(tl_be_dot_begin(be, 0, 2, (tl_vec *[]){q, y}, (tl_vec *[]){y, y}), st, fail);
        TL_TRYGOTO(tl_be_precond(be, zh, z), st, fail);     /* zh = M z */
        TL_TRYGOTO(tl_be_spmv_begin(be, zh, vv), st, fail); /* v = A zh */
        TL_TRYGOTO(tl_be_spmv_end(be, zh, vv), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 0, d), st, fail);
        if (!isfinite(d[0]) || !isfinite(d[1])) {
            tl_solve_stop(res, TL_STOP_NONFINITE, "(q, y) = %g, (y, y) = %g at iteration %lld",
                          d[0], d[1], (long long)it);
            break;
        }
        /* y = A M q = 0 means q = 0: x + alpha ph solves the system (an
         * exact first step, a diagonal matrix). omega = 0 takes that step;
         * the next test then finds ||r|| = 0, and only a nonzero r with
         * omega = 0 is a breakdown, as in method_bicgstab.c. */
        omega = d[1] > 0.0 ? d[0] / d[1] : 0.0;
        /* x += alpha ph + omega qh, r = q - omega y,
         * rh = qh - omega (wh - alpha zh), w = y - omega (t - alpha v) */
        tl_update u2[4] = {
            {.y = x, .nterms = 3, .coef = {1.0, alpha, omega}, .x = {x, ph, qh}},
            {.y = r, .nterms = 2, .coef = {1.0, -omega}, .x = {q, y}},
            {.y = rh, .nterms = 3, .coef = {1.0, -omega, omega * alpha}, .x = {qh, wh, zh}},
            {.y = w, .nterms = 3, .coef = {1.0, -omega, omega * alpha}, .x = {y, t, vv}},
        };
        TL_TRYGOTO(tl_be_update(be, u2, 4), st, fail);
        if (prm->residual_replacement > 0 && (it + 1) % prm->residual_replacement == 0)
            TL_TRYGOTO(tl_pipebicgstab_replace(be, b, x, v), st, fail);

        TL_TRYGOTO(
            tl_be_dot_begin(be, 1, 5, (tl_vec *[]){rt, rt, rt, rt, r}, (tl_vec *[]){r, w, s, z, r}),
            st, fail);
        TL_TRYGOTO(tl_be_precond(be, wh, w), st, fail);    /* wh = M w */
        TL_TRYGOTO(tl_be_spmv_begin(be, wh, t), st, fail); /* t = A wh */
        TL_TRYGOTO(tl_be_spmv_end(be, wh, t), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 1, d), st, fail);
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
        if (tl_solve_meets_tol(prm, res, sqrt(d[4]))) {
            /* the recursive residual says converged: ask b - A x too
             * (restarting from it computes it), and go on from it when it
             * disagrees, as a restart */
            TL_TRYGOTO(tl_pipebicgstab_start(be, b, x, v, d), st, fail);
            if (tl_solve_check(ctx, prm, res, it, sqrt(d[2]))) break;
            if (!(sqrt(d[2]) <= TL_TRUE_RESTART_GAIN * true_last) &&
                tl_solve_stop_true(prm, res, sqrt(d[2]),
                                   "the recursive residual converged again after a restart from "
                                   "b - A x without reducing it"))
                break;
            true_last = sqrt(d[2]);
            res->restarts++;
            if (!(d[1] != 0.0) &&
                tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                              "(r0, A M r0) = %g at the restart of iteration %lld", d[1], (long long)it))
                break;
            rho = d[0];
            rtnorm = sqrt(d[2]);
            alpha = rho / d[1];
            beta = 0.0;
            continue;
        }
        if (tl_solve_check(ctx, prm, res, it, sqrt(d[4]))) break;
        for (int k = 0; k < 4; k++)
            if (!isfinite(d[k])) {
                tl_solve_stop(res, TL_STOP_NONFINITE, "r0 dot %d = %g at iteration %lld", k, d[k],
                              (long long)it);
                goto fail;
            }
        if (omega == 0.0 &&
            tl_solve_stop(res, TL_STOP_BREAKDOWN, "omega = 0 at iteration %lld", (long long)it))
            break;
        if (fabs(d[0]) <= TL_BICG_RESTART * rtnorm * sqrt(d[4])) {
            /* (r0, r) has decayed to rounding level: restart with r0 = r
             * (beta = 0 drops the old directions) */
            TL_TRYGOTO(tl_pipebicgstab_start(be, b, x, v, d), st, fail);
            res->restarts++;
            if (!(d[1] != 0.0) &&
                tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                              "(r0, A M r0) = %g at the restart of iteration %lld", d[1], (long long)it))
                break;
            rho = d[0];
            rtnorm = sqrt(d[2]);
            alpha = rho / d[1];
            beta = 0.0;
            continue;
        }
        beta = (alpha / omega) * (d[0] / rho);
        double den = d[1] + beta * d[2] - beta * omega * d[3];
        if (den == 0.0 &&
            tl_solve_stop(res, TL_STOP_BREAKDOWN,
                          "(r0, w + beta s - beta omega z) = 0 at iteration %lld", (long long)it))
            break;
        alpha = d[0] / den;
        rho = d[0];
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, NV);
    return st;
}
