/* Pipelined PCG (P. Ghysels, W. Vanroose, "Hiding global synchronization
 * latency in the preconditioned Conjugate Gradient algorithm", Parallel
 * Computing 40(7), 2014, Alg. 4 "preconditioned pipelined CG").
 *
 * One fused allreduce per iteration, of gamma = (r, u), delta = (w, u) and
 * (r, r) for the stopping test, overlapped with m = M w and n = A m. The
 * recurrences keep u = M r, w = A u, s = A p, q = M s, z = A q.
 *
 * Robustness. The recurrences drift from their definitions by local
 * rounding errors that the pipeline amplifies (S. Cools, E. F. Yetkin,
 * E. Agullo, L. Giraud, W. Vanroose, "Analyzing the effect of local rounding
 * error propagation on the maximal attainable accuracy of the pipelined
 * Conjugate Gradient method", SIMAX 39(1), 2018). Handled here:
 *  - Verdicts: the curvature p'Ap = delta - beta gamma / alpha_old is a
 *    difference of recurrence values. When it is not clearly positive
 *    relative to its two terms (or gamma = (r, M r) is not positive), that
 *    may be drift rather than an indefinite matrix: r, u, w are recomputed
 *    from x, the scalars from these explicit vectors in one blocking
 *    reduction, and the method restarts from the true residual (beta = 0).
 *    Only a non-positive explicit value is "not SPD", as for PCG.
 *  - Accuracy, when iterating to a tolerance: the gap ||b - A x - r|| is
 *    bounded by the paper's recurrence of local rounding errors, from the
 *    norms of x, u, w, s, z, p, q, m (summed in the fused update pass and
 *    reduced in the same allreduce: no extra pass nor reduction); when the
 *    bound crosses sqrt(eps) ||r|| (the paper's criterion, after van der
 *    Vorst & Ye 2000) r, u, w (from x) and s, q, z (from p) are replaced
 *    after the update. Before stopping on the recursive residual the true
 *    one is computed; convergence is declared when it is within
 *    TL_PIPECG_CONFIRM of the tolerance, else the residual is replaced.
 *  - Fixed-iteration (benchmark) mode runs exactly the iterations asked
 *    for with the work of plain Alg. 4 (no bound): a suspect step gets the
 *    explicit check; once the residual is 1e8 below r0, the method says
 *    that it reached rounding level and from then on steps with whatever
 *    the recurrences give (beta = 0 on a suspect step, alpha = 0 when even
 *    that has no positive curvature). */
#include <float.h>
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/method.h"
#include "solvers/methods/pipecg_steps.h"

enum { R, U, W, M, N, Z, Q, S, P, X, TMP, TMP2, NV };

/* the norms the bound needs, in this order (X is the solution vector) */
enum { NX, NU, NW, NS, NZ, NP, NQ, NM, NNORM };

/* p'Ap is "clearly positive" above this fraction of |delta| + |beta gamma /
 * alpha_old|: the two terms carry the relative errors of the recurrences'
 * drift, far above eps near the attainable accuracy. Measured (Jacobi,
 * 1e-8): the ratio stays >= 0.08 in every step of 1138_bus, ani4,
 * poisson7 n = 24, poisson27 n = 20, hetero2d:52:4 and :52:5, and went
 * negative at the false verdict of issue 11. */
#define PIPECG_CURV_TOL 1e-6

/* Convergence is confirmed when ||b - A x|| is within this factor of the
 * tolerance (or of the recursive ||r||); otherwise the residual is
 * replaced and the iteration goes on. */
#define TL_PIPECG_CONFIRM 2.0

typedef struct pipecg_bound {
    double f, g, h, e;              /* bounds on the gaps of r, s, w, z */
    double f_prev, r_prev, r_last;  /* r_last: ||r|| of the iteration just updated */
    double cur[NNORM], prev[NNORM]; /* norms at the start of this and the last iteration */
    int valid;                      /* prev[] and the gaps describe the last iteration */
} pipecg_bound;

/* A local rounding error from the sum of the magnitudes that one
 * recurrence adds: eps sqrt(sum), the estimate of the practical algorithm
 * by the paper's first author (PETSc's KSPPIPECGRR), not the worst-case
 * eps sum. Measured with gen:hetero2d:52:4 / :52:5 (Jacobi, 1e-8): the
 * worst-case bound replaces 43 / 64 times and converges in 2111 / 7279
 * iterations, this estimate 38 / 84 times in 2039 / 4030 (PCG: 1879 /
 * 3349); on poisson7 n = 24 both replace 3 times in 59 iterations. */
static double est(double sum)
{
    return DBL_EPSILON * sqrt(sum);
}

/* The gaps right after r, u, w (and s, q, z) were computed explicitly. */
static void bound_reset(pipecg_bound *bd, const tl_backend *be, double bnorm)
{
    double a = be->norm_inf;
    double mu = (double)be->max_row_nnz * sqrt((double)be->nglobal); /* SpMV error factor */
    bd->f = est((mu + 1.0) * a * bd->cur[NX] + bnorm);
    bd->g = est(mu * a * bd->cur[NP]);
    bd->h = est(mu * a * bd->cur[NU]);
    bd->e = est(mu * a * bd->cur[NQ]);
}

/* The gap bounds after the update of the last iteration (scalars alpha,
 * beta), from the norms at its start (prev) and at this one's (cur): the
 * local rounding errors of each recurrence (Cools et al. 2018, eqs. of
 * Sec. 3 for p-CG) propagated as there. */
static void bound_step(pipecg_bound *bd, const tl_backend *be, double alpha, double beta)
{
    const double *c = bd->cur, *o = bd->prev;
    double a = be->norm_inf, aa = fabs(alpha), ab = fabs(beta);
    double mu = (double)be->max_row_nnz * sqrt((double)be->nglobal); /* SpMV error factor */
    /* x += alpha p, r -= alpha s, w -= alpha z, s = w + beta s, z = n + beta z */
    double xr = est(a * o[NX] + 2 * aa * a * c[NP] + bd->r_prev + 2 * aa * c[NS]);
    double xw = est(a * o[NU] + 2 * aa * a * c[NQ] + o[NW] + 2 * aa * c[NZ]);
    double xs = est(a * o[NU] + 2 * ab * a * o[NP] + o[NW] + 2 * ab * o[NS]);
    double xz = est((mu + 2.0) * a * c[NM] + 2 * ab * a * o[NQ] + 2 * ab * o[NZ]);
    double e = ab * bd->e + xz;
    double g = bd->h + ab * bd->g + xs;
    bd->f_prev = bd->f;
    bd->f = bd->f + aa * g + xr;
    bd->h = bd->h + aa * e + xw;
    bd->g = g;
    bd->e = e;
}

typedef struct pipecg_explicit {
    double gamma, delta, rr, us, pw, ps, xx;
} pipecg_explicit;

/* Residual replacement (Cools et al. 2018, Sec. 5): r = b - A x, u = M r,
 * w = A u and, with a direction (have_p), s = A p, q = M s, z = A q.
 * `r_true`, when not NULL, already holds b - A x. */
static tl_status replace_vectors(tl_backend *be, tl_vec *b, tl_vec *const *v, int have_p,
                                 tl_vec *r_true)
{
    if (r_true)
        TL_TRY(tl_be_copy(be, v[R], r_true));
    else
        TL_TRY(tl_be_residual(be, b, v[X], v[R], v[TMP]));
    TL_TRY(tl_be_precond(be, v[U], v[R]));
    TL_TRY(tl_be_spmv(be, v[U], v[W]));
    if (have_p) {
        TL_TRY(tl_be_spmv(be, v[P], v[S]));
        TL_TRY(tl_be_precond(be, v[Q], v[S]));
        TL_TRY(tl_be_spmv(be, v[Q], v[Z]));
    }
    return TL_OK;
}

/* The replacement in the middle of an iteration (its m, n and scalars are
 * then stale): the vectors, the scalars from them in one blocking
 * reduction, and m = M w, n = A m again. */
static tl_status replace(tl_backend *be, tl_vec *b, tl_vec *const *v, int have_p, tl_vec *r_true,
                         pipecg_explicit *ex)
{
    TL_TRY(replace_vectors(be, b, v, have_p, r_true));
    double d[7] = {0};
    int nd = have_p ? 7 : 4;
    TL_TRY(tl_be_dots(be, nd, (tl_vec *[]){v[R], v[W], v[R], v[X], v[U], v[P], v[P]},
                      (tl_vec *[]){v[U], v[U], v[R], v[X], v[S], v[W], v[S]}, d));
    TL_TRY(tl_be_precond(be, v[M], v[W]));
    TL_TRY(tl_be_spmv(be, v[M], v[N]));
    *ex = (pipecg_explicit){
        .gamma = d[0], .delta = d[1], .rr = d[2], .xx = d[3], .us = d[4], .pw = d[5], .ps = d[6]};
    return TL_OK;
}

/* One iteration's scalars: as the reduction gave them, or recomputed from
 * x (explicit_now, with the explicit dots in ex) after a replacement. */
typedef struct pcg_step {
    double gamma, delta, rnorm;
    int have_p;       /* a direction to keep (beta != 0) */
    int explicit_now; /* r, u, w, s, q, z, m, n and the scalars recomputed */
    pipecg_explicit ex;
} pcg_step;

/* The scalars of a replacement made now (restart: no direction). */
static tl_status restart_from(tl_backend *be, tl_vec *b, tl_vec *const *v, tl_vec *r_true,
                              tl_solve_result *res, pcg_step *sp)
{
    sp->have_p = 0;
    TL_TRY(replace(be, b, v, 0, r_true, &sp->ex));
    res->replacements++;
    sp->explicit_now = 1;
    sp->gamma = sp->ex.gamma;
    sp->delta = sp->ex.delta;
    sp->rnorm = sqrt(sp->ex.rr);
    return TL_OK;
}

/* The recursive residual says converged: ask b - A x too, and restart
 * from it when the gap is as large as the tolerance (the old direction
 * belongs to another residual). */
static tl_status confirm(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                         tl_vec *b, tl_vec *const *v, pcg_step *sp)
{
    double tt;
    TL_TRY(tl_be_residual(be, b, v[X], v[TMP2], v[TMP]));
    TL_TRY(tl_be_dots(be, 1, &v[TMP2], &v[TMP2], &tt));
    if (!(sqrt(tt) <= TL_PIPECG_CONFIRM * sp->rnorm) &&
        !tl_solve_meets_tol(prm, res, sqrt(tt) / TL_PIPECG_CONFIRM))
        TL_TRY(restart_from(be, b, v, v[TMP2], res, sp));
    return TL_OK;
}

/* The bound's bookkeeping at the start of iteration it, from the squared
 * norms the reduction gave; 1 when the gap bound crossed sqrt(eps) ||r||
 * (the paper's criterion; it stays below it afterwards): replace after
 * this iteration's update. */
static int bound_iteration(pipecg_bound *bd, const tl_backend *be, const tl_solve_params *prm,
                           const double *sq, int64_t it, double alpha_old, double beta_old,
                           double rnorm)
{
    for (int k = 0; k < NNORM; k++)
        bd->cur[k] = sqrt(sq[k]);
    if (it == 0) {
        bound_reset(bd, be, prm->bnorm);
        return 0;
    }
    bd->r_prev = bd->r_last;
    bound_step(bd, be, alpha_old, beta_old);
    double tau = sqrt(DBL_EPSILON);
    return bd->valid && bd->f_prev <= tau * bd->r_prev && bd->f > tau * rnorm;
}

/* beta and p'Ap from the explicit dots of a replacement; 1 (stopped) when
 * they are not finite or say the matrix or M is not SPD. */
static int explicit_scalars(tl_solve_result *res, const pcg_step *sp, double gamma_old, int64_t it,
                            double *beta, double *curv)
{
    const pipecg_explicit *ex = &sp->ex;
    double gamma = sp->gamma;
    *beta = sp->have_p ? gamma / gamma_old : 0.0;
    /* p'Ap of p = u + beta p_old, s = w + beta s_old, explicitly */
    *curv = sp->have_p ? ex->delta + *beta * (ex->us + ex->pw) + *beta * *beta * ex->ps : ex->delta;
    if (!isfinite(*curv) || !isfinite(gamma))
        return tl_solve_stop(res, TL_STOP_NONFINITE, "recomputed gamma = %g, p'Ap = %g", gamma,
                             *curv);
    /* x solves the system (an exact step on a diagonal matrix or one row,
     * in benchmark mode): it said "matrix not SPD: (r, M^-1 r) = 0" */
    if (ex->rr == 0.0)
        return tl_solve_stop(res, TL_STOP_ZERO, "b - A x = 0 exactly at iteration %lld",
                             (long long)it);
    if (!(gamma > 0.0))
        return tl_solve_stop(res, TL_STOP_NOT_SPD,
                             "(r, M^-1 r) = %.3e <= 0 at iteration %lld (recomputed from x)", gamma,
                             (long long)it);
    if (!(*curv > 0.0))
        return tl_solve_stop(res, TL_STOP_NOT_SPD,
                             "p'Ap = %.3e <= 0 at iteration %lld (recomputed from x and p)", *curv,
                             (long long)it);
    return 0;
}

/* The iteration's fused reduction, gamma = (r, u), delta = (w, u), (r, r)
 * and, with_norms, the bound's squared norms into d[3..], overlapped with
 * m = M w and n = A m. */
static tl_status reduce_overlapped(tl_backend *be, tl_vec *const *v, tl_vec *const *normv,
                                   int with_norms, double *d)
{
    tl_vec *dx[3 + NNORM] = {v[R], v[W], v[R]}, *dy[3 + NNORM] = {v[U], v[U], v[R]};
    int nd = 3;
    for (int k = 0; with_norms && k < NNORM; k++)
        dx[nd] = dy[nd] = normv[k], nd++;
    TL_TRY(tl_be_dot_begin(be, 0, nd, dx, dy));
    TL_TRY(tl_be_precond(be, v[M], v[W]));    /* m = M w */
    TL_TRY(tl_be_spmv_begin(be, v[M], v[N])); /* n = A m */
    TL_TRY(tl_be_spmv_end(be, v[M], v[N]));
    return tl_be_dot_end(be, 0, d);
}

/* A suspect step: restart from the explicit residual. After drift large
 * enough to upset the curvature, the old direction does not belong to the
 * true residual (keeping it gives beta = gamma_true / gamma_recursive,
 * measured > 60 on gen:hetero2d:52:4, and the next curvature fails
 * again). In benchmark mode, the residual down by 1e8 and the scalars at
 * rounding noise, say so and check no more (*rounding_checked; a suspect
 * step earlier is lost accuracy, checked each time). */
static tl_status restart_suspect(tl_backend *be, tl_vec *b, tl_vec *const *v, tl_solve_result *res,
                                 int fixed, int64_t it, int *rounding_checked, pcg_step *sp)
{
    double rnorm_rec = sp->rnorm;
    TL_TRY(restart_from(be, b, v, NULL, res, sp));
    if (fixed && !*rounding_checked && rnorm_rec <= sqrt(DBL_EPSILON) * res->r0norm) {
        *rounding_checked = 1;
        res->rounding_at = it;
        res->rounding_rnorm = sp->rnorm;
        res->rounding_recursive = rnorm_rec;
    }
    return TL_OK;
}

tl_status tl_method_pipecg(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                           tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    /* X is the caller's x: allocate the others only */
    for (int k = 0; k < NV; k++)
        if (k != X) TL_TRYGOTO(tl_be_vec(be, &v[k]), st, fail);
    v[X] = x;
    tl_vec *r = v[R], *u = v[U], *w = v[W], *m = v[M], *n = v[N];
    tl_vec *vec[TL_PCG_NVEC] = {
        [TL_PCG_N] = n, [TL_PCG_M] = m,    [TL_PCG_W] = w,    [TL_PCG_U] = u,    [TL_PCG_X] = x,
        [TL_PCG_R] = r, [TL_PCG_Z] = v[Z], [TL_PCG_Q] = v[Q], [TL_PCG_S] = v[S], [TL_PCG_P] = v[P]};
    tl_vec *normv[NNORM] = {
        [NX] = x, [NU] = u, [NW] = w, [NS] = v[S], [NZ] = v[Z], [NP] = v[P], [NQ] = v[Q], [NM] = m};
    const int fixed = tl_solve_benchmark(prm);
    /* the bound's norms: from the update pass when the backend can, else
     * as dots in the same allreduce; none in benchmark mode */
    const int bounded = !fixed;
    const int sq_in_update = bounded && tl_be_has_update_sq(be);
    pipecg_bound bd = {0};

    /* r0 = b - A x0, u0 = M r0, w0 = A u0 */
    TL_TRYGOTO(tl_be_residual(be, b, x, r, v[TMP]), st, fail);
    TL_TRYGOTO(tl_be_precond(be, u, r), st, fail);
    TL_TRYGOTO(tl_be_spmv(be, u, w), st, fail);

    double gamma_old = 0.0, alpha_old = 0.0, beta_old = 0.0;
    int rounding_checked = 0; /* fixed mode: the explicit check was made */
    for (int64_t it = 0;;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        double d[3 + NNORM];
        TL_TRYGOTO(reduce_overlapped(be, v, normv, bounded && (!sq_in_update || it == 0), d), st,
                   fail);
        /* beta = 0 at the start and after a zero step (alpha_old = 0) */
        pcg_step sp = {.gamma = d[0],
                       .delta = d[1],
                       .rnorm = sqrt(d[2]),
                       .have_p = it > 0 && alpha_old != 0.0};
        if (it == 0) {
            TL_TRYGOTO(tl_solve_begin(ctx, prm, res, sp.rnorm), st, fail);
            if (be->cfg.precond == TL_PRECOND_JACOBI && be->nonpos_diag > 0) {
                tl_solve_stop(res, TL_STOP_NOT_SPD,
                              "%lld diagonal entries <= 0 (Jacobi preconditioner not SPD)",
                              (long long)be->nonpos_diag);
                break;
            }
        }
        if (!fixed && it > 0 && tl_solve_meets_tol(prm, res, sp.rnorm))
            TL_TRYGOTO(confirm(be, prm, res, b, v, &sp), st, fail);
        if (tl_solve_check(ctx, prm, res, it, sp.rnorm)) break;
        if (!isfinite(sp.gamma) || !isfinite(sp.delta)) {
            tl_solve_stop(res, TL_STOP_NONFINITE, "gamma = %g, delta = %g at iteration %lld",
                          sp.gamma, sp.delta, (long long)it);
            break;
        }
        int scheduled =
            bounded && bound_iteration(&bd, be, prm, d + 3, it, alpha_old, beta_old, sp.rnorm);
        double beta, t2; /* the recurrences of solvers/backends/pipecg_form.h */
        double curv =
            tl_pcg_curvature(sp.gamma, sp.delta, gamma_old, alpha_old, sp.have_p, &beta, &t2);
        int suspect = !(sp.gamma > 0.0) || !(curv > PIPECG_CURV_TOL * (fabs(sp.delta) + fabs(t2)));
        if (suspect && !(fixed && rounding_checked) && !sp.explicit_now)
            TL_TRYGOTO(restart_suspect(be, b, v, res, fixed, it, &rounding_checked, &sp), st, fail);
        double gamma = sp.gamma;
        if (sp.explicit_now) {
            if (explicit_scalars(res, &sp, gamma_old, it, &beta, &curv)) break;
            if (bounded) {
                bd.cur[NX] = sqrt(sp.ex.xx);
                bound_reset(&bd, be, prm->bnorm);
                bd.f_prev = bd.f;
            }
            scheduled = 0;
        } else if (suspect) {
            /* benchmark mode at rounding level: restart the direction from
             * the recursive vectors; no step where even that curves wrong */
            beta = 0.0;
            curv = sp.delta;
            if (!(gamma > 0.0) || !(curv > 0.0)) gamma = curv = 0.0;
        }
        double alpha = curv != 0.0 ? gamma / curv : 0.0;
        /* the eight updates of pipecg_form.h, in one pass */
        tl_update up[TL_PCG_NAXPY];
        tl_pipecg_updates(vec, alpha, beta, 0, 0, up);
        if (sq_in_update)
            TL_TRYGOTO(tl_be_update_sq(be, up, 8, 0, NNORM, normv), st, fail);
        else
            TL_TRYGOTO(tl_be_update(be, up, 8), st, fail);
        if (scheduled && alpha != 0.0) {
            /* the bound crossed: replace now, so the next iteration's
             * reduction already sees the explicit vectors */
            TL_TRYGOTO(replace_vectors(be, b, v, 1, NULL), st, fail);
            res->replacements++;
            bound_reset(&bd, be, prm->bnorm);
            bd.f_prev = bd.f;
        }
        if (bounded) {
            for (int k = 0; k < NNORM; k++)
                bd.prev[k] = bd.cur[k];
            bd.r_last = sp.rnorm;
            bd.valid = 1;
        }
        gamma_old = gamma;
        alpha_old = alpha;
        beta_old = beta;
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
    }
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    v[X] = NULL;
    tl_be_vecs_free(be, v, NV);
    return st;
}
