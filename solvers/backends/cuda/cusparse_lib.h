/* cuSPARSE, found at run time rather than linked: the functions spmv.c
 * calls for --spmv cusparse, as a table filled by dlopen/dlsym (as
 * methods/petsc_lib.h does for PETSc).
 *
 * Why: libcusparse (160 MB) and the libnvJitLink it needs (100 MB) took
 * about 45 ms of every start of trilap-solve, --help and host runs
 * included (65 ms a start against 20 ms for trilap-fdtd, which links the
 * same CUDA runtime, NCCL and CUPTI: relocations and nvJitLink's
 * constructors), and only --spmv cusparse calls it. The tests start
 * trilap-solve hundreds of times.
 *
 * Which library: libcusparse.so.<the headers' major version>, searched as
 * the link found it: trilap-solve's run path (the toolkit's lib64 the
 * build used), then LD_LIBRARY_PATH and the system's. Its major version
 * must be the headers' (cuSPARSE keeps its interface within one).
 *
 * Only with TL_HAVE_CUDA; includes cusparse.h. */
#ifndef TL_CUSPARSE_LIB_H
#define TL_CUSPARSE_LIB_H

#include "config.h"

#if TL_HAVE_CUDA

/* the legacy API is not used; its deprecation attributes would warn */
#define DISABLE_CUSPARSE_DEPRECATED 1
#include <cusparse.h>

#include "runtime/error.h"

/* Every cuSPARSE function trilap calls, the version check's first. */
#define TL_CUSPARSE_SYMBOLS(X) \
    X(cusparseGetProperty)     \
    X(cusparseGetErrorString)  \
    X(cusparseCreate)          \
    X(cusparseDestroy)         \
    X(cusparseSetStream)       \
    X(cusparseCreateCsr)       \
    X(cusparseDestroySpMat)    \
    X(cusparseCreateDnVec)     \
    X(cusparseDestroyDnVec)    \
    X(cusparseDnVecSetValues)  \
    X(cusparseSpMV_bufferSize) \
    X(cusparseSpMV_preprocess) \
    X(cusparseSpMV)

/* A member a pointer to each function, of its declared type and by its
 * name: cl->cusparseSpMV(...). __typeof__ reads the header's declaration
 * without referring to the symbol, so nothing of cuSPARSE is linked. */
#define TL_CUSPARSE_MEMBER(name) __typeof__(name) *name;
typedef struct tl_cusparse_lib {
    void *handle; /* dlopen's, NULL when not loaded */
    TL_CUSPARSE_SYMBOLS(TL_CUSPARSE_MEMBER)
} tl_cusparse_lib;
#undef TL_CUSPARSE_MEMBER

/* Loads the library and checks its major version. A failure is one line
 * naming the library and the reason (dlerror's, the function it lacks, or
 * its version); *cl is then unloaded. */
tl_status tl_cusparse_lib_load(tl_cusparse_lib *cl);
/* Forgets the table (the library stays mapped: RTLD_NODELETE); accepts
 * one not loaded. */
void tl_cusparse_lib_unload(tl_cusparse_lib *cl);

#endif
#endif
