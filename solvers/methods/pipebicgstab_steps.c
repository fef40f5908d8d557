#include "solvers/methods/pipebicgstab_steps.h"

#include <math.h>

tl_status tl_pipebicgstab_start(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec **v, double *d)
{
    TL_TRY(tl_be_residual(be, b, x, v[R], v[TMP]));
    TL_TRY(tl_be_copy(be, v[RT], v[R]));
    TL_TRY(tl_be_precond(be, v[RH], v[R]));
    TL_TRY(tl_be_spmv(be, v[RH], v[W]));
    TL_TRY(tl_be_dot_begin(be, 1, 3, (tl_vec *[]){v[RT], v[RT], v[R]},
                           (tl_vec *[]){v[R], v[W], v[R]}));
    TL_TRY(tl_be_precond(be, v[WH], v[W]));
    TL_TRY(tl_be_spmv_begin(be, v[WH], v[T]));
    TL_TRY(tl_be_spmv_end(be, v[WH], v[T]));
    TL_TRY(tl_be_dot_end(be, 1, d));
    return TL_OK;
}

int tl_pipebicgstab_exact(tl_solve_result *res, const double *d, int64_t it)
{
    return d[2] == 0.0 &&
           tl_solve_stop(res, TL_STOP_ZERO, "b - A x = 0 exactly at iteration %lld", (long long)it);
}

tl_status tl_pipebicgstab_replace(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec **v)
{
    TL_TRY(tl_be_residual(be, b, x, v[R], v[TMP])); /* r = b - A x */
    TL_TRY(tl_be_precond(be, v[RH], v[R]));         /* rh = M r */
    TL_TRY(tl_be_spmv(be, v[RH], v[W]));            /* w = A rh */
    TL_TRY(tl_be_spmv(be, v[PH], v[S]));            /* s = A ph */
    TL_TRY(tl_be_precond(be, v[SH], v[S]));         /* sh = M s */
    TL_TRY(tl_be_spmv(be, v[SH], v[Z]));            /* z = A sh */
    TL_TRY(tl_be_precond(be, v[ZH], v[Z]));         /* zh = M z */
    TL_TRY(tl_be_spmv(be, v[ZH], v[V]));            /* v = A zh */
    return TL_OK;
}

tl_status tl_pipebicgstab_begin(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                                tl_vec *b, tl_vec *x, tl_vec **v, double *d, int *stopped)
{
    *stopped = 1;
    TL_TRY(tl_pipebicgstab_start(be, b, x, v, d));
    TL_TRY(tl_solve_begin(be->ctx, prm, res, sqrt(d[2])));
    if (tl_solve_check(be->ctx, prm, res, 0, sqrt(d[2]))) return TL_OK;
    if (!(d[1] != 0.0)) {
        tl_solve_stop(res, isfinite(d[1]) ? TL_STOP_BREAKDOWN : TL_STOP_NONFINITE,
                      "(r0, A M r0) = %g", d[1]);
        return TL_OK;
    }
    *stopped = 0;
    return TL_OK;
}
