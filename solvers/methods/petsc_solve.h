/* The PETSc cross-check ("--backend petsc"): the same distributed matrix,
 * the same right-hand side and start vector, solved with PETSc's KSP and
 * timed with the same protocol. Methods map to KSP types:
 *   cg, pcg -> KSPCG   pipecg -> KSPPIPECG   bicgstab -> KSPBCGS
 *   pipebicgstab -> KSPPIPEBCGS
 * with PCJACOBI or PCNONE. What is compared: PETSc is set to test the 2-norm
 * of the unpreconditioned residual (KSP_NORM_UNPRECONDITIONED; BiCGStab
 * right-preconditioned, CG left as trilap's PCG, whose residual is
 * unpreconditioned too) with KSPConvergedDefault: ||r|| <= max(rtol ||b||,
 * atol), or rtol ||r0|| through KSPConvergedDefaultSetUIRNorm for
 * --rtol-base r0 -- the test trilap's methods apply. Needs MPI mode
 * (PETSc runs on the launcher's MPI_COMM_WORLD); the thread launcher gives
 * a clear error. Built only with PETSc (TL_HAVE_PETSC); otherwise
 * TL_ERR_UNSUPPORTED. */
#ifndef TL_PETSC_SOLVE_H
#define TL_PETSC_SOLVE_H

#include "solvers/dist/dist.h"
#include "solvers/methods/solve.h"

/* PetscInitialize on the launcher's MPI communicator (once per process;
 * PETSc cannot start again after PetscFinalize), and PetscFinalize. */
tl_status tl_petsc_init(tl_ctx *ctx);
tl_status tl_petsc_finalize(tl_ctx *ctx);

/* Collective on ctx. Fills `rep` as tl_solve_run does (no per-operation
 * statistics); x_out (may be NULL) gets the last solution, local order. */
tl_status tl_petsc_solve_run(tl_ctx *ctx, const tl_dist_matrix *m, const tl_solve_config *cfg,
                             const double *b_local, const double *x0_local, double *x_out,
                             tl_solve_report *rep);

/* The KSP type used for a trilap method name; NULL when none. */
const char *tl_petsc_ksp_type(const char *method);

#endif
