/* The vectors of pipelined BiCGStab and the steps both of its methods take
 * (method_pipebicgstab.c, scalars on the host; pipebicgstab_async.c, on
 * scalar programs): written once, so the two stay the same step for step. */
#ifndef TL_PIPEBICGSTAB_STEPS_H
#define TL_PIPEBICGSTAB_STEPS_H

#include "solvers/backends/backend.h"
#include "solvers/methods/solve.h"

/* v[] indices: r, its preconditioned rh, the shadow r0~, and the
 * recurrences of Cools & Vanroose 2017 (Alg. 3) */
enum { R, RH, RT, P, PH, S, SH, Z, ZH, Q, QH, Y, W, WH, T, V, TMP, NV };

/* The start, and a restart: r = b - A x, r0~ = r, rh = M r, w = A rh,
 * wh = M w, t = A wh; d = {(r0~, r), (r0~, w), (r, r)} (blocking). */
tl_status tl_pipebicgstab_start(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec **v, double *d);

/* After a restart from b - A x (d from tl_pipebicgstab_start): 1
 * (stopped, converged) when b - A x = 0 exactly, x solving the system, as
 * bicgstab says; the restart would divide by (r0, A M r0) = 0. Reached in
 * benchmark mode, where no tolerance stops r = 0: an exact step (y = 0, so
 * omega = 0) on a diagonal matrix or one row stopped "breakdown: omega =
 * 0", exit 3, with x exact. */
int tl_pipebicgstab_exact(tl_solve_result *res, const double *d, int64_t it);

/* The first start, with the solve's opening: tl_solve_begin from ||r0||,
 * the check at iteration 0 and the breakdown test on (r0~, w); *stopped
 * when the solve ends there (its result says why). */
tl_status tl_pipebicgstab_begin(tl_backend *be, const tl_solve_params *prm, tl_solve_result *res,
                                tl_vec *b, tl_vec *x, tl_vec **v, double *d, int *stopped);

/* Residual replacement: the auxiliary vectors recomputed from x, p, s. */
tl_status tl_pipebicgstab_replace(tl_backend *be, tl_vec *b, tl_vec *x, tl_vec **v);

#endif
