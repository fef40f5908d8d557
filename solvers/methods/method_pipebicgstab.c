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

/* x beside the method's own vectors, so the halves take one array */
enum { X_ = NV };

/* The scalars after a (re)start from b - A x, counted as a restart: rho
 * = (r0, r), ||r0||, alpha = rho / (r0, A M r0), beta = 0 (the old
 * directions drop out); 1 (stopped) when b - A x = 0 exactly (converged,
 * no restart) or (r0, A M r0) is zero or not finite. */
typedef struct pbicg_scalars {
    double rho, rtnorm, alpha, beta, omega;
} pbicg_scalars;

static int restarted(tl_solve_result *res, const double *d, int64_t it, pbicg_scalars *sc)
{
    if (tl_pipebicgstab_exact(res, d, it)) return 1;
    res->restarts++;
    if (!(d[1] != 0.0) &&
        tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                      "(r0, A M r0) = %g at the restart of iteration %lld", d[1], (long long)it))
        return 1;
    sc->rho = d[0];
    sc->rtnorm = sqrt(d[2]);
    sc->alpha = sc->rho / d[1];
    sc->beta = 0.0;
    return 0;
}

/* The iteration's first half: p, ph, s, sh, z from their recurrences (beta
 * = 0 at first: the zero-initialised old vectors drop out); then q, qh, y.
 * Entry by entry in this order, so each reads the others' old values where
 * the algorithm does. Then (q, y), (y, y) into d, overlapped with zh = M z
 * and v = A zh. */
static tl_status first_half(tl_backend *be, tl_vec *const *v, const pbicg_scalars *sc, double *d)
{
    double beta = sc->beta, bo = -sc->beta * sc->omega, alpha = sc->alpha;
    tl_update u1[8] = {
        {.y = v[P], .nterms = 3, .coef = {1.0, beta, bo}, .x = {v[R], v[P], v[S]}},
        {.y = v[PH], .nterms = 3, .coef = {1.0, beta, bo}, .x = {v[RH], v[PH], v[SH]}},
        {.y = v[S], .nterms = 3, .coef = {1.0, beta, bo}, .x = {v[W], v[S], v[Z]}},
        {.y = v[SH], .nterms = 3, .coef = {1.0, beta, bo}, .x = {v[WH], v[SH], v[ZH]}},
        {.y = v[Z], .nterms = 3, .coef = {1.0, beta, bo}, .x = {v[T], v[Z], v[V]}},
        {.y = v[Q], .nterms = 2, .coef = {1.0, -alpha}, .x = {v[R], v[S]}},
        {.y = v[QH], .nterms = 2, .coef = {1.0, -alpha}, .x = {v[RH], v[SH]}},
        {.y = v[Y], .nterms = 2, .coef = {1.0, -alpha}, .x = {v[W], v[Z]}},
    };
    TL_TRY(tl_be_update(be, u1, 8));
    TL_TRY(tl_be_dot_begin(be, 0, 2, (tl_vec *[]){v[Q], v[Y]}, (tl_vec *[]){v[Y], v[Y]}));
    TL_TRY(tl_be_precond(be, v[ZH], v[Z]));    /* zh = M z */
    TL_TRY(tl_be_spmv_begin(be, v[ZH], v[V])); /* v = A zh */
    TL_TRY(tl_be_spmv_end(be, v[ZH], v[V]));
    return tl_be_dot_end(be, 0, d);
}

/* The second half, omega known: x += alpha ph + omega qh, r = q - omega y,
 * rh = qh - omega (wh - alpha zh), w = y - omega (t - alpha v); the
 * residual replacement when due; then (r0, r), (r0, w), (r0, s), (r0, z),
 * (r, r) into d, overlapped with wh = M w and t = A wh. */
static tl_status second_half(tl_backend *be, const tl_solve_params *prm, tl_vec *b,
                             tl_vec *const *v, const pbicg_scalars *sc, int64_t it, double *d)
{
    double alpha = sc->alpha, omega = sc->omega;
    tl_update u2[4] = {
        {.y = v[X_], .nterms = 3, .coef = {1.0, alpha, omega}, .x = {v[X_], v[PH], v[QH]}},
        {.y = v[R], .nterms = 2, .coef = {1.0, -omega}, .x = {v[Q], v[Y]}},
        {.y = v[RH], .nterms = 3, .coef = {1.0, -omega, omega * alpha}, .x = {v[QH], v[WH], v[ZH]}},
        {.y = v[W], .nterms = 3, .coef = {1.0, -omega, omega * alpha}, .x = {v[Y], v[T], v[V]}},
    };
    TL_TRY(tl_be_update(be, u2, 4));
    if (prm->residual_replacement > 0 && (it + 1) % prm->residual_replacement == 0)
        TL_TRY(tl_pipebicgstab_replace(be, b, v[X_], (tl_vec **)v));
    TL_TRY(tl_be_dot_begin(be, 1, 5, (tl_vec *[]){v[RT], v[RT], v[RT], v[RT], v[R]},
                           (tl_vec *[]){v[R], v[W], v[S], v[Z], v[R]}));
    TL_TRY(tl_be_precond(be, v[WH], v[W]));    /* wh = M w */
    TL_TRY(tl_be_spmv_begin(be, v[WH], v[T])); /* t = A wh */
    TL_TRY(tl_be_spmv_end(be, v[WH], v[T]));
    return tl_be_dot_end(be, 1, d);
}

tl_status tl_method_pipebicgstab(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV + 1] = {NULL}; /* v[X_]: the caller's x */
    int in_iter = 0;
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);
    v[X_] = x;

    double d[5];
    int stopped;
    TL_TRYGOTO(tl_pipebicgstab_begin(be, prm, res, b, x, v, d, &stopped), st, fail);
    if (stopped) goto fail;
    /* rtnorm: ||r0|| */
    pbicg_scalars sc = {.rho = d[0], .rtnorm = sqrt(d[2]), .alpha = d[0] / d[1]};
    double true_last = INFINITY; /* b - A x at the last restart from it */

    for (int64_t it = 0;;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        TL_TRYGOTO(first_half(be, v, &sc, d), st, fail);
        if (!isfinite(d[0]) || !isfinite(d[1])) {
            tl_solve_stop(res, TL_STOP_NONFINITE, "(q, y) = %g, (y, y) = %g at iteration %lld",
                          d[0], d[1], (long long)it);
            break;
        }
        /* y = A M q = 0 means q = 0: x + alpha ph solves the system (an
         * exact first step, a diagonal matrix). omega = 0 takes that step;
         * the next test then finds ||r|| = 0, and only a nonzero r with
         * omega = 0 is a breakdown, as in method_bicgstab.c. */
        sc.omega = d[1] > 0.0 ? d[0] / d[1] : 0.0;
        TL_TRYGOTO(second_half(be, prm, b, v, &sc, it, d), st, fail);
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
            if (restarted(res, d, it, &sc)) break;
            continue;
        }
        if (tl_solve_check(ctx, prm, res, it, sqrt(d[4]))) break;
        for (int k = 0; k < 4; k++)
            if (!isfinite(d[k])) {
                tl_solve_stop(res, TL_STOP_NONFINITE, "r0 dot %d = %g at iteration %lld", k, d[k],
                              (long long)it);
                goto fail;
            }
        if (sc.omega == 0.0 && d[4] == 0.0) {
            /* the exact step above, in benchmark mode (elsewhere r = 0
             * met the tolerance): b - A x decides */
            TL_TRYGOTO(tl_pipebicgstab_start(be, b, x, v, d), st, fail);
            if (restarted(res, d, it, &sc)) break;
            continue;
        }
        if (sc.omega == 0.0 &&
            tl_solve_stop(res, TL_STOP_BREAKDOWN, "omega = 0 at iteration %lld", (long long)it))
            break;
        if (fabs(d[0]) <= TL_BICG_RESTART * sc.rtnorm * sqrt(d[4])) {
            /* (r0, r) has decayed to rounding level: restart with r0 = r
             * (beta = 0 drops the old directions) */
            TL_TRYGOTO(tl_pipebicgstab_start(be, b, x, v, d), st, fail);
            if (restarted(res, d, it, &sc)) break;
            continue;
        }
        sc.beta = (sc.alpha / sc.omega) * (d[0] / sc.rho);
        double den = d[1] + sc.beta * d[2] - sc.beta * sc.omega * d[3];
        if (den == 0.0 &&
            tl_solve_stop(res, TL_STOP_BREAKDOWN,
                          "(r0, w + beta s - beta omega z) = 0 at iteration %lld", (long long)it))
            break;
        sc.alpha = d[0] / den;
        sc.rho = d[0];
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    v[X_] = NULL;
    tl_be_vecs_free(be, v, NV);
    return st;
}
