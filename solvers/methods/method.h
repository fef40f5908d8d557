/* The Krylov methods, each written once against the backend operations
 * (solvers/backends/backend.h), one per file, registered here by name. */
#ifndef TL_METHOD_H
#define TL_METHOD_H

#include "solvers/backends/backend.h"
#include "solvers/methods/solve.h"

/* Solve A x = b from the x given; `res` is filled (reason, iterations,
 * residual norms). Returns an error only for failures of the machinery
 * (communication, memory); numerical trouble is a stop reason. */
typedef tl_status (*tl_method_fn)(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                  tl_solve_result *res);

struct tl_method {
    const char *name;
    tl_method_fn solve;
    int spd; /* needs a symmetric positive definite matrix (and M) */
    int pipelined;
    tl_precond default_precond;
    const char *summary;
};

extern const tl_method tl_methods[];
extern const int tl_nmethods;

/* BiCGStab restarts with r0 = r when |(r0, r)| <= this * ||r0|| ||r||:
 * the bi-orthogonality has decayed to rounding level and the next step
 * would divide by noise (seen on 1138_bus, where r0 = b stagnates and then
 * gives (r0, r) = 0 exactly; PETSc's KSPBCGS breaks down there too). */
#define TL_BICG_RESTART 1e-12

/* By name; NULL when unknown. */
const tl_method *tl_method_find(const char *name);

tl_status tl_method_cg(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                       tl_solve_result *res);
tl_status tl_method_pipecg(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                           tl_solve_result *res);
tl_status tl_method_bicgstab(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                             tl_solve_result *res);
tl_status tl_method_pipebicgstab(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res);

#endif
