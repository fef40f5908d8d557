/* Pipelined PCG with device-resident scalars (solvers/pipecg_async.c):
 * the method trilap-solve runs for `--solver pipecg` on a backend with
 * device scalars (--device-scalars, the default with --backend cuda). */
#ifndef TL_PIPECG_ASYNC_H
#define TL_PIPECG_ASYNC_H

#include "solvers/backend.h"
#include "solvers/solve.h"

tl_status tl_method_pipecg_async(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res);

#endif
