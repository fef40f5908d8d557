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

/* PETSc options (PETSC_OPTIONS, a .petscrc) reach the KSP through
 * KSPSetFromOptions, so that -ksp_monitor, -ksp_view, -ksp_converged_reason
 * and -log_view work as a PETSc user expects. What trilap's options choose
 * and its report states (the KSP, the preconditioner, the stopping test,
 * the norm, the initial guess) stays theirs: of the -ksp_ and -pc_ options
 * only the monitors and viewers are taken. So does the product: trilap
 * builds the AIJ matrix and its vectors without MatSetFromOptions or
 * VecSetFromOptions, so -mat_type and -vec_type went unread (PETSc's
 * -options_left: "unused"; a report of a solve still on the host, in AIJ,
 * for -vec_type cuda), and -mat_no_inode, which is read, changed the SpMV
 * kernel timed: of the -mat_ and -vec_ options only the viewers
 * (-mat_view*) are taken. The first other one in `options`
 * (PetscOptionsGetAll's "-name value ..." form), copied into name; NULL
 * when none is, else the refusal's line after "program: ", a printf
 * format with the option's name its one %s. */
const char *tl_petsc_option_refused(const char *options, char *name, size_t nname);
/* The refusals' lines. */
#define TL_PETSC_OPTION_REFUSED                                                                    \
    "PETSc option %s: trilap's --solver, --precond, --rtol, --atol, --rtol-base and "          \
    "--max-iterations choose the KSP, its preconditioner and its stopping test, which the "    \
    "report states; of PETSc's -ksp_ and -pc_ options only the monitors and viewers "           \
    "(-ksp_monitor*, -ksp_view*, -ksp_converged_reason*) are taken"
#define TL_PETSC_MATVEC_OPTION_REFUSED                                                             \
    "PETSc option %s: trilap builds the PETSc matrix (AIJ, on the host) and its vectors itself, "  \
    "so -mat_type and -vec_type would go unread (the solve would not move to another format or "  \
    "device) and the others change the product timed; of PETSc's -mat_ and -vec_ options only "   \
    "the viewers (-mat_view*) are taken"

/* The KSP type used for a trilap method name; NULL when none. */
const char *tl_petsc_ksp_type(const char *method);

#endif
