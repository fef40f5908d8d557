/* Pipelined BiCGStab (Cools & Vanroose 2017, right-preconditioned) with
 * its scalars where the backend computes them: the recurrences, fused
 * update groups (Fig. 1b: eight updates, then four) and tests of
 * method_pipebicgstab.c, but omega comes from the scalar program
 * TL_SC_PBICG_OMEGA run in the prologue of the second group's kernel, and
 * beta, alpha from TL_SC_PBICG_AB in the prologue of the next iteration's
 * first group (solvers/backends/scalars.h), so no iteration waits for a reduction
 * to reach the host. The programs also apply the stopping, breakdown and
 * restart tests and freeze every later iteration (zero coefficients: x and
 * r stay as they were); the host reads the registers of both programs
 * asynchronously, `check_every` iterations late, and reports what a method
 * that checked every reduction reports. A restart ((r0~, r) at rounding
 * level) needs the host: the iterations after it ran frozen, the host
 * restarts from that iteration (tl_pipebicgstab_start, blocking, as the first start) and
 * goes on from there. Residual replacement (--residual-replacement N) is
 * the same as method_pipebicgstab.c's. Each group's pass also applies the
 * preconditioner to the vector the next SpMV reads and keeps the local
 * dots of the reduction that follows (tl_be_update_fused; not in an
 * iteration whose residual replacement rewrites their vectors). */
#include <math.h>

#include "probes/probes.h"
#include "solvers/methods/method.h"
#include "solvers/methods/pipebicgstab_steps.h"
#include "solvers/methods/pipecg_async.h"

/* The state after a start: alpha = rho / (r0~, w), beta = omega = 0. */
static tl_status load_state(tl_backend *be, const tl_solve_params *prm, const tl_solve_result *res,
                            const double *d)
{
    double st[TL_SC_STATE] = {0};
    st[TL_SC_ST_RTOL] = prm->rtol > 0 ? prm->rtol * res->base : -1.0;
    st[TL_SC_ST_ATOL] = prm->atol > 0 ? prm->atol : -1.0;
    st[TL_SC_ST_SOFT_TOL] = -1.0;
    st[TL_SC_ST_RHO] = d[0];
    st[TL_SC_ST_RTNORM] = sqrt(d[2]);
    st[TL_SC_ST_ALPHA] = d[0] / d[1];
    st[TL_SC_ST_RESTART_TOL] = TL_BICG_RESTART;
    TL_TRY(tl_be_scalars_init(be, st));
    TL_TRY(tl_be_scalars(be, TL_SC_PBICG_LOAD, 0));
    return TL_OK;
}

/* The host's checks from the registers of tag `tag` (2i: omega of
 * iteration i; 2i + 1: the r0~ dots after it, i.e. iteration i + 1), in
 * method_pipebicgstab.c's order. Returns 1 to stop, 2 to restart at
 * iteration i + 1, 3 to ask b - A x there (the recursive residual
 * converged), 0 to go on. */
static int check_tag(tl_ctx *ctx, const tl_solve_params *prm, tl_solve_result *res, int64_t tag,
                     const double *g, tl_status *st)
{
    int64_t i = tag / 2;
    int flag = (int)g[TL_SC_BI_FLAG];
    if (tag % 2 == 0) {
        switch (flag) {
        case TL_SC_FLAG_OK:
            return 0;
        case TL_SC_FLAG_QY:
            return tl_solve_stop(res, TL_STOP_NONFINITE,
                                 "(q, y) = %g, (y, y) = %g at iteration %lld", g[TL_SC_BI_AUX],
                                 g[TL_SC_BI_RNORM], (long long)i);
        default:
            break;
        }
    } else {
        /* the recursive residual meets the tolerance: the device froze
         * there; b - A x decides (method_pipebicgstab.c's order) */
        if (tl_solve_meets_tol(prm, res, g[TL_SC_BI_RNORM])) return 3;
        if (tl_solve_check(ctx, prm, res, i + 1, g[TL_SC_BI_RNORM])) return 1;
        if (flag >= TL_SC_FLAG_R0DOT && flag < TL_SC_FLAG_R0DOT + 4)
            return tl_solve_stop(res, TL_STOP_NONFINITE, "r0 dot %d = %g at iteration %lld",
                                 flag - TL_SC_FLAG_R0DOT, g[TL_SC_BI_AUX], (long long)(i + 1));
        switch (flag) {
        case TL_SC_FLAG_OK:
            return 0;
        case TL_SC_FLAG_OMEGA0:
            /* an exact step in benchmark mode: b - A x decides, as in
             * method_pipebicgstab.c */
            if (g[TL_SC_BI_RNORM] == 0.0) return 2;
            return tl_solve_stop(res, TL_STOP_BREAKDOWN, "omega = 0 at iteration %lld",
                                 (long long)(i + 1));
        case TL_SC_FLAG_RESTART:
            return 2;
        case TL_SC_FLAG_DEN:
            return tl_solve_stop(res, TL_STOP_BREAKDOWN,
                                 "(r0, w + beta s - beta omega z) = 0 at iteration %lld",
                                 (long long)(i + 1));
        default:
            break;
        }
    }
    *st =
        TL_FAIL(TL_ERR_NUMERIC,
                "pipebicgstab: device flag %d (register tag %lld) disagrees with the host's tests",
                flag, (long long)tag);
    return 1;
}

/* register coefficients: sref = 1 + register */
enum {
    A_ = 1 + TL_SC_BI_ALPHA,
    B_ = 1 + TL_SC_BI_BETA,
    BO_ = 1 + TL_SC_BI_BO,
    OM_ = 1 + TL_SC_BI_OMEGA,
    OA_ = 1 + TL_SC_BI_OA
};

/* The first group: p, ph, s, sh, z from their recurrences, then q, qh, y
 * (coefficients from the registers), in the same pass zh = M z and the
 * local (q, y), (y, y); v = A zh; omega from the reduction on the device. */
static tl_status first_group(tl_backend *be, tl_vec *const *v)
{
    tl_update u1[8] = {
        {.y = v[P],
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {v[R], v[P], v[S]},
         .sref = {0, B_, BO_}},
        {.y = v[PH],
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {v[RH], v[PH], v[SH]},
         .sref = {0, B_, BO_}},
        {.y = v[S],
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {v[W], v[S], v[Z]},
         .sref = {0, B_, BO_}},
        {.y = v[SH],
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {v[WH], v[SH], v[ZH]},
         .sref = {0, B_, BO_}},
        {.y = v[Z],
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {v[T], v[Z], v[V]},
         .sref = {0, B_, BO_}},
        {.y = v[Q], .nterms = 2, .coef = {1.0, -1.0}, .x = {v[R], v[S]}, .sref = {0, A_}},
        {.y = v[QH], .nterms = 2, .coef = {1.0, -1.0}, .x = {v[RH], v[SH]}, .sref = {0, A_}},
        {.y = v[Y], .nterms = 2, .coef = {1.0, -1.0}, .x = {v[W], v[Z]}, .sref = {0, A_}},
    };
    tl_update_tail t1 = {
        .pz = v[ZH], .pr = v[Z], .slot = 0, .ndots = 2, .x = {v[Q], v[Y]}, .y = {v[Y], v[Y]}};
    TL_TRY(tl_be_update_fused(be, u1, 8, &t1));
    TL_TRY(tl_be_dot_begin(be, 0, 0, NULL, NULL));
    TL_TRY(tl_be_spmv_begin(be, v[ZH], v[V])); /* v = A zh */
    TL_TRY(tl_be_spmv_end(be, v[ZH], v[V]));
    TL_TRY(tl_be_dot_end_async(be, 0));
    return tl_be_scalars(be, TL_SC_PBICG_OMEGA, 0);
}

/* The second group of iteration it: x += alpha ph + omega qh, r = q -
 * omega y, rh = qh - omega (wh - alpha zh), w = y - omega (t - alpha v);
 * in the same pass wh = M w and the local r0~ dots and (r, r) of the next
 * reduction, unless a residual replacement rewrites r, w, s, z in between
 * (then the update alone, and the dots after it); t = A wh; beta, alpha on
 * the device; the registers of both programs posted (tags 2 it, 2 it + 1). */
static tl_status second_group(tl_backend *be, const tl_solve_params *prm, tl_vec *b, tl_vec *x,
                              tl_vec **v, int64_t it)
{
    tl_update u2[4] = {
        {.y = x,
         .nterms = 3,
         .coef = {1.0, 1.0, 1.0},
         .x = {x, v[PH], v[QH]},
         .sref = {0, A_, OM_}},
        {.y = v[R], .nterms = 2, .coef = {1.0, -1.0}, .x = {v[Q], v[Y]}, .sref = {0, OM_}},
        {.y = v[RH],
         .nterms = 3,
         .coef = {1.0, -1.0, 1.0},
         .x = {v[QH], v[WH], v[ZH]},
         .sref = {0, OM_, OA_}},
        {.y = v[W],
         .nterms = 3,
         .coef = {1.0, -1.0, 1.0},
         .x = {v[Y], v[T], v[V]},
         .sref = {0, OM_, OA_}},
    };
    tl_update_tail t2 = {.pz = v[WH],
                         .pr = v[W],
                         .slot = 1,
                         .ndots = 5,
                         .x = {v[RT], v[RT], v[RT], v[RT], v[R]},
                         .y = {v[R], v[W], v[S], v[Z], v[R]}};
    int replace = prm->residual_replacement > 0 && (it + 1) % prm->residual_replacement == 0;
    if (replace) {
        TL_TRY(tl_be_update(be, u2, 4));
        TL_TRY(tl_be_regs_post(be, 2 * it));
        TL_TRY(tl_pipebicgstab_replace(be, b, x, v));
        TL_TRY(tl_be_dot_begin(be, 1, 5, t2.x, t2.y));
        TL_TRY(tl_be_precond(be, v[WH], v[W])); /* wh = M w */
    } else {
        TL_TRY(tl_be_update_fused(be, u2, 4, &t2));
        TL_TRY(tl_be_regs_post(be, 2 * it));
        TL_TRY(tl_be_dot_begin(be, 1, 0, NULL, NULL));
    }
    TL_TRY(tl_be_spmv_begin(be, v[WH], v[T])); /* t = A wh */
    TL_TRY(tl_be_spmv_end(be, v[WH], v[T]));
    TL_TRY(tl_be_dot_end_async(be, 1));
    TL_TRY(tl_be_scalars(be, TL_SC_PBICG_AB, 1));
    return tl_be_regs_post(be, 2 * it + 1);
}

/* Restart at iteration it from b - A x (what the device ran after it was
 * frozen is dropped): confirming (the recursive residual converged), as
 * method_pipebicgstab.c, the solve stops there or goes on from it; a
 * restart ((r0~, r) at rounding level) goes on. *stopped when it ends. */
static tl_status restart_at(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                            tl_vec *b, tl_vec *x, tl_vec **v, int64_t it, int confirming,
                            double *true_last, int *stopped)
{
    double d[5];
    TL_TRY(tl_pipebicgstab_start(be, b, x, v, d));
    if (confirming) {
        double tr = sqrt(d[2]);
        if (tl_solve_check(be->ctx, prm, res, it, tr) ||
            (!(tr <= TL_TRUE_RESTART_GAIN * *true_last) &&
             tl_solve_stop_true(prm, res, tr,
                                "the recursive residual converged again after a restart "
                                "from b - A x without reducing it"))) {
            *stopped = 1;
            return TL_OK;
        }
        *true_last = tr;
    }
    if (tl_pipebicgstab_exact(res, d, it)) {
        *stopped = 1;
        return TL_OK;
    }
    res->restarts++;
    if (!(d[1] != 0.0) &&
        tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                      "(r0, A M r0) = %g at the restart of iteration %lld", d[1], (long long)it)) {
        *stopped = 1;
        return TL_OK;
    }
    return load_state(be, prm, res, d);
}

tl_status tl_method_pipebicgstab_async(tl_backend *be, const tl_solve_params *prm, tl_vec *b,
                                       tl_vec *x, tl_solve_result *res)
{
    tl_status st = TL_OK;
    tl_ctx *ctx = be->ctx;
    tl_vec *v[NV] = {NULL};
    int in_iter = 0;
    int every = be->cfg.check_every > 0 ? be->cfg.check_every : 1;
    int lag = 2 * every; /* in register tags, two per iteration */
    TL_CHECK(2 * lag + 4 <= TL_SC_RING, TL_ERR_INVAL, "--check-every %d (at most %d)", every,
             (TL_SC_RING - 4) / 4);
    TL_TRYGOTO(tl_be_vecs(be, v, NV), st, fail);

    double d[5];
    int stopped;
    TL_TRYGOTO(tl_pipebicgstab_begin(be, prm, res, b, x, v, d, &stopped), st, fail);
    if (stopped) goto fail;
    TL_TRYGOTO(load_state(be, prm, res, d), st, fail);

    int64_t maxit = prm->max_iterations, checked = 0; /* next register tag to check */
    double true_last = INFINITY;                      /* b - A x at the last restart from it */
    for (int64_t it = 0; !stopped && it < maxit;) {
        tl_probe_iter_begin(ctx, it);
        in_iter = 1;
        TL_TRYGOTO(first_group(be, v), st, fail);
        TL_TRYGOTO(second_group(be, prm, b, x, v, it), st, fail);
        it++;
        tl_probe_iter_end(ctx);
        in_iter = 0;
        /* the host's checks, `lag` tags behind (all of them at the end) */
        int64_t upto = tl_async_check_upto(it, maxit, every, lag);
        for (; checked <= upto && !stopped; checked++) {
            double g[TL_SC_REGS];
            TL_TRYGOTO(tl_be_regs_get(be, checked, g), st, fail);
            int verdict = check_tag(ctx, prm, res, checked, g, &st);
            TL_TRYGOTO(st, st, fail);
            if (verdict == 1) stopped = 1;
            if (verdict == 2 || verdict == 3) {
                /* at iteration checked / 2 + 1: b - A x asked (3) or a
                 * restart (2); go on from there */
                it = checked / 2 + 1;
                checked = 2 * it;
                TL_TRYGOTO(
                    restart_at(be, prm, res, b, x, v, it, verdict == 3, &true_last, &stopped), st,
                    fail);
                break;
            }
        }
    }
    TL_CHECKGOTO(stopped || maxit == 0, TL_ERR_NUMERIC, st, fail,
                 "pipebicgstab: no stop after %lld iterations", (long long)maxit);
fail:
    if (in_iter) tl_probe_iter_end(ctx);
    tl_be_vecs_free(be, v, NV);
    return st;
}
