/* The methods on scalar programs (solvers/methods/pipecg_async.c,
 * solvers/methods/pipebicgstab_async.c, solvers/methods/cg_async.c): what
 * trilap-solve runs for pipecg, pipebicgstab, cg and pcg with --scalars
 * program (the default with --backend cuda). */
#ifndef TL_PIPECG_ASYNC_H
#define TL_PIPECG_ASYNC_H

#include "solvers/backends/backend.h"
#include "solvers/methods/solve.h"

tl_status tl_method_pipecg_async(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res);

tl_status tl_method_pipebicgstab_async(tl_backend *be, const tl_solve_params *p, tl_vec *b,
                                       tl_vec *x, tl_solve_result *res);

tl_status tl_method_cg_async(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                             tl_solve_result *res);

#endif
