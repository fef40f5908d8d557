/* The symbols of a library opened with dlopen, stored in a table's members.
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

#include <stddef.h> /* offsetof, size_t */

/* One symbol of a loader's table: its name in the library, and the
 * member of the table its address goes in (a function or object pointer). */
typedef struct tl_dl_entry {
    const char *name;
    size_t offset, size;
} tl_dl_entry;
/* The entry of `member` of table type `type`, named as the member is. */
#define TL_DL_ENTRY(type, member) {#member, offsetof(type, member), sizeof(((type *)0)->member)},

/* Fills the n entries' members of `table` from `handle`: the name of the
 * first symbol the library lacks, NULL when it has them all. */
const char *tl_dl_fill(void *handle, void *table, const tl_dl_entry *entries, size_t n);

#endif
