/* PETSc's library, found at run time rather than linked: the part of its
 * interface that petsc_solve.c calls, as a table filled by dlopen/dlsym
 * (as analysis/sqlite_lib.h does for SQLite).
 *
 * Why: libpetsc needs some 90 libraries of its own (HYPRE, MUMPS,
 * SuperLU, HDF5, X11, curl ...; Debian's 3.18). Linked, every start of
 * trilap-solve loaded them, --help included: 115 libraries and about
 * 134 ms against 8 ms for trilap-analyze, and the tests start trilap-solve
 * hundreds of times. Now only --backend petsc loads them.
 *
 * Which library: the one the build compiled against, its full path
 * (TL_PETSC_LIBRARY in config.h: pkg-config's libdir and the library's
 * SONAME, mk/config.mk), or the file TRILAP_PETSC_LIB names (a PETSc
 * moved since, or another build of the same version). Its major and minor
 * version must be the headers' (PETSc's ABI changes between minor
 * versions). It is never unloaded (RTLD_NODELETE): PETSc leaves MPI
 * attributes whose delete callbacks MPI_Finalize calls after PETSc's end.
 *
 * Only with TL_HAVE_PETSC and TL_HAVE_MPI; includes petscksp.h. */
#ifndef TL_PETSC_LIB_H
#define TL_PETSC_LIB_H

#include "config.h"

#if TL_HAVE_PETSC && TL_HAVE_MPI

#include <petscksp.h>

#include "runtime/dl.h"
#include "runtime/error.h"

/* Every PETSc symbol trilap calls or reads, the version check's first (a
 * library that is no PETSc lacks it). The three variables are
 * PETSC_COMM_WORLD, set before PetscInitialize; KSPConvergedReasons, the
 * reasons' names; PetscTrFree, the free function PetscFree calls. */
#define TL_PETSC_SYMBOLS(X)                                                                                      \
    X(PetscGetVersionNumber)                                                                                     \
    X(PETSC_COMM_WORLD)                                                                                          \
    X(KSPConvergedReasons)                                                                                       \
    X(PetscTrFree)                                                                                               \
    X(PetscErrorMessage)                                                                                         \
    X(PetscInitialized)                                                                                          \
    X(PetscFinalized)                                                                                            \
    X(PetscInitializeNoArguments)                                                                                \
    X(PetscFinalize)                                                                                             \
    X(PetscOptionsGetAll)                                                                                        \
    X(MatCreateAIJ)                                                                                              \
    X(MatSetOption)                                                                                              \
    X(MatSetValues)                                                                                              \
    X(MatAssemblyBegin)                                                                                          \
    X(MatAssemblyEnd)                                                                                            \
    X(MatCreateVecs)                                                                                             \
    X(MatMult)                                                                                                   \
    X(MatGetSize)                                                                                                \
    X(MatGetInfo)                                                                                                \
    X(MatDestroy)                                                                                                \
    X(VecDuplicate)                                                                                              \
    X(VecGetLocalSize)                                                                                           \
    X(VecGetArray)                                                                                               \
    X(VecRestoreArray)                                                                                           \
    X(VecGetArrayRead)                                                                                           \
    X(VecRestoreArrayRead)                                                                                       \
    X(VecAYPX)                                                                                                   \
    X(VecCopy)                                                                                                   \
    X(VecSet)                                                                                                    \
    X(VecDestroy)                                                                                                \
    X(KSPCreate)                                                                                                 \
    X(KSPSetOperators)                                                                                           \
    X(KSPSetType)                                                                                                \
    X(KSPGetPC)                                                                                                  \
    X(PCSetType)                                                                                                 \
    X(KSPSetPCSide)                                                                                              \
    X(KSPSetNormType)                                                                                            \
    X(KSPSetTolerances)                                                                                          \
    X(KSPConvergedDefaultSetUIRNorm)                                                                             \
    X(KSPSetInitialGuessNonzero)                                                                                 \
    X(KSPSetFromOptions)                                                                                         \
    X(KSPSetUp)                                                                                                  \
    X(KSPMonitorSet)                                                                                             \
    X(KSPSolve)                                                                                                  \
    X(KSPGetIterationNumber)                                                                                     \
    X(KSPGetResidualNorm)                                                                                        \
    X(KSPGetConvergedReason)                                                                                     \
    X(KSPDestroy)

/* A member a pointer to each symbol, of its declared type and by its
 * name (TL_DL_MEMBER: nothing of PETSc is linked): pl->KSPSolve(ksp, b,
 * x), *pl->PETSC_COMM_WORLD. */
typedef struct tl_petsc_lib {
    void *handle;     /* dlopen's, NULL when not loaded */
    const char *path; /* the file loaded (getenv's string or config.h's) */
    TL_PETSC_SYMBOLS(TL_DL_MEMBER)
} tl_petsc_lib;

/* Loads the library (again: a loaded one is the same handle, its table
 * filled anew) and checks its version. A failure is one line naming the
 * library and the reason: dlerror's, the symbol it lacks, or its version;
 * *pl is then unloaded. Rank-local. */
tl_status tl_petsc_lib_load(tl_petsc_lib *pl);
/* Forgets the table (the library stays: RTLD_NODELETE); accepts one not
 * loaded. */
void tl_petsc_lib_unload(tl_petsc_lib *pl);

#endif
#endif
