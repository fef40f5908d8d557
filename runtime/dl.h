/* A symbol of a library opened with dlopen, stored in a table's member.
 *
 * Four libraries are found at run time rather than linked, each for the
 * one path that needs it: SQLite for Nsight Systems exports
 * (analysis/sqlite_lib.h), PETSc for --backend petsc
 * (solvers/methods/petsc_lib.h), cuSPARSE for --spmv cusparse
 * (solvers/backends/cuda/cusparse_lib.h) and SimGrid for trilap-model's
 * simulations (model/simgrid_lib.h). Each keeps its own table and its own
 * one-line errors; this is the lookup they share. */
#ifndef TL_RUNTIME_DL_H
#define TL_RUNTIME_DL_H

#include <stddef.h>

/* Stores the address of `name` in `handle` (dlopen's) into *member, a
 * function or object pointer of `size` bytes; returns 1, or 0 when the
 * library lacks it (*member untouched). */
int tl_dl_symbol(void *handle, const char *name, void *member, size_t size);

#endif
