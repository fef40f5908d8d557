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

/* The forms a method runs in, as rows of its table entry (NULL: the
 * method has no such form). The driver picks one from what was asked and
 * what the backend can run (tl_method_choose); every form of a method
 * computes the same iterates (tests/test_pipecg_forms.c for Pipe-PCG). */
typedef enum {
    TL_VARIANT_HOST,    /* scalars on the host, every reduction read there (method_*.c) */
    TL_VARIANT_PROGRAM, /* scalar programs where the backend runs them, convergence read
                           late (*_async.c): on a GPU the scalars never visit the host */
    TL_VARIANT_LOOP,    /* the program form with its iterations through the backend's
                           fused_iterations (one persistent kernel on the GPU) */
    TL_VARIANT_COUNT
} tl_variant;

/* What `scalars:` prints for a variant. */
const char *tl_variant_scalars_name(tl_variant v);

struct tl_method {
    const char *name;
    tl_method_fn variants[TL_VARIANT_COUNT];
    int work_vectors; /* the most vectors any variant holds at once, besides the four of
                         tl_solve_run (TL_SOLVE_VECTORS): the device memory estimate */
    int spd; /* needs a symmetric positive definite matrix (and M) */
    int pipelined;
    int periodic_replacement; /* takes --residual-replacement N (trilap-solve refuses it for the others) */
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

/* What the user asked for: scalars on the host, as programs, or (auto)
 * programs where the backend runs them on the device; and whether the
 * iterations should be fused into one loop (--persistent). */
typedef enum { TL_ASK_SCALARS_AUTO, TL_ASK_SCALARS_HOST, TL_ASK_SCALARS_PROGRAM } tl_ask_scalars;
typedef struct tl_method_ask {
    tl_ask_scalars scalars;
    int fused_iterations;
} tl_method_ask;

/* The chosen variant; when fused iterations were asked for and cannot
 * run, why not (in the user's terms), else "". */
typedef struct tl_method_choice {
    tl_variant variant;
    char loop_why_not[192];
} tl_method_choice;

/* The variant of m to run on a backend with capabilities caps. */
tl_method_choice tl_method_choose(const tl_method *m, const tl_backend_caps *caps,
                                  const tl_method_ask *ask);

tl_status tl_method_cg(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                       tl_solve_result *res);
tl_status tl_method_pipecg(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                           tl_solve_result *res);
tl_status tl_method_bicgstab(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                             tl_solve_result *res);
tl_status tl_method_pipebicgstab(tl_backend *be, const tl_solve_params *p, tl_vec *b, tl_vec *x,
                                 tl_solve_result *res);

#endif
