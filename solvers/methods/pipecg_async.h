/* The methods on scalar programs (solvers/methods/pipecg_async.c,
 * solvers/methods/pipebicgstab_async.c, solvers/methods/cg_async.c): what
 * trilap-solve runs for pipecg, pipebicgstab, cg and pcg with --scalars
 * program (the default with --backend cuda). */
#ifndef TL_PIPECG_ASYNC_H
#define TL_PIPECG_ASYNC_H

#include "solvers/backends/backend.h"
#include "solvers/methods/solve.h"

/* The methods on two programs per iteration (register tags 2 it and 2 it +
 * 1): the last tag the host checks once iteration `it` is enqueued, `lag`
 * tags behind and all of them after the last iteration; -1 between the
 * checks (every `every` iterations). */
static inline int64_t tl_async_check_upto(int64_t it, int64_t maxit, int every, int lag)
{
    int last = it >= maxit;
    if (!last && it % every != 0) return -1;
    return last ? 2 * it - 1 : 2 * it - 1 - lag;
}

tl_status tl_method_pipecg_async(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res);

tl_status tl_method_pipebicgstab_async(tl_backend *be, const tl_solve_params *p, tl_vec *b,
                                       tl_vec *x, tl_solve_result *res);

tl_status tl_method_cg_async(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                             tl_solve_result *res);

#endif
