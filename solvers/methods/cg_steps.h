/* The steps both forms of CG and PCG take (method_cg.c, scalars on the
 * host; cg_async.c, on scalar programs), written once in method_cg.c so
 * that the two stay the same step for step. */
#ifndef TL_CG_STEPS_H
#define TL_CG_STEPS_H

#include "solvers/backends/backend.h"
#include "solvers/methods/solve.h"

/* The vectors the steps touch, in this order: r, z = M^-1 r (r itself
 * without a preconditioner), p, and q, scratch for b - A x. */
enum { TL_CG_R, TL_CG_Z, TL_CG_P, TL_CG_Q, TL_CG_NSTEP };

/* The start: r = b - A x, z = M^-1 r, *rho = (r, z) (blocking, with
 * (r, r): tl_solve_begin and the check at iteration 0), p = z; *stopped
 * when the solve ends there (x0 solves the system, or M is not SPD). */
tl_status tl_cg_begin(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res, tl_vec *b,
                      tl_vec *x, tl_vec *const *w, double *rho, int *stopped);

/* Benchmark mode (rtol = atol = 0): a restart at iteration it from b - A x
 * where (r, M^-1 r) or p'Ap underflowed (tl_sc_cg_underflow): r, z,
 * p = z and *rho = (r, z) anew, counted in res->restarts, the first one
 * with the recursive ||r|| (res->rnorm) below sqrt(eps) ||r0|| noted as
 * where the residual was at rounding level (with b - A x there).
 * *stopped when no step can follow: b - A x = 0 exactly, or its
 * (r, M^-1 r) not positive (tl_solve_stop_rz's verdict). */
tl_status tl_cg_restart(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec *const *w, int64_t it,
                        tl_solve_result *res, double *rho, int *stopped);

#endif
