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

/* A member of a loader's table: a pointer to the library's `name`, of its
 * declared type. __typeof__ reads the header's declaration without
 * referring to the symbol, so nothing of the library is linked. */
#define TL_DL_MEMBER(name) __typeof__(name) *name;
/* A macro's value as a string: the headers' version in a library's name. */
#define TL_DL_STR_(x) #x
#define TL_DL_STR(x) TL_DL_STR_(x)

/* The library a loader opened. */
typedef struct tl_dl_lib {
    void *handle;     /* NULL where it could not be opened */
    const char *path; /* what was opened: the variable's string, else the build's name */
    int named;        /* the variable named it */
    const char *why;  /* where handle is NULL: dlerror's reason, or "no reason given" */
} tl_dl_lib;
/* Opens the library the variable `env` names where it is set and not empty
 * (env NULL: none names one), else `fallback`, RTLD_NOW | RTLD_LOCAL |
 * RTLD_NODELETE: a loader forgets its table, never the library, whose
 * code (PETSc's MPI attributes, SimGrid's actors) may be reached after
 * that. Each loader says a failure in its own words. */
tl_dl_lib tl_dl_open(const char *env, const char *fallback);

#endif
