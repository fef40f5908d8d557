/* cuSPARSE found at run time (cusparse_lib.h says why). */
#include "solvers/backends/cuda/cusparse_lib.h"

#if TL_HAVE_CUDA

#include <dlfcn.h>
#include <string.h>

#include "runtime/dl.h"

#define TL_CUSPARSE_STR_(x) #x
#define TL_CUSPARSE_STR(x) TL_CUSPARSE_STR_(x)
/* the SONAME of the headers' major version, as the linker recorded it */
#define TL_CUSPARSE_SONAME "libcusparse.so." TL_CUSPARSE_STR(CUSPARSE_VER_MAJOR)
#define TL_CUSPARSE_HEADERS \
    TL_CUSPARSE_STR(CUSPARSE_VER_MAJOR) "." TL_CUSPARSE_STR(CUSPARSE_VER_MINOR) "." TL_CUSPARSE_STR(CUSPARSE_VER_PATCH)

/* Every symbol of the table, by its member's name. */
#define TL_CUSPARSE_ENTRY(name) TL_DL_ENTRY(tl_cusparse_lib, name)
static const tl_dl_entry symbols[] = {TL_CUSPARSE_SYMBOLS(TL_CUSPARSE_ENTRY)};
#undef TL_CUSPARSE_ENTRY

tl_status tl_cusparse_lib_load(tl_cusparse_lib *cl)
{
    memset(cl, 0, sizeof *cl);
    /* never unmapped (RTLD_NODELETE): its kernels are registered with the
     * CUDA runtime of the process, whose contexts may outlive the table */
    cl->handle = dlopen(TL_CUSPARSE_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!cl->handle) {
        const char *why = dlerror();
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "--spmv cusparse: cannot load cuSPARSE's library " TL_CUSPARSE_SONAME
                       " (%s): trilap-solve was built with cuSPARSE " TL_CUSPARSE_HEADERS
                       "; put the CUDA toolkit's lib64 on LD_LIBRARY_PATH, or use --spmv trilap",
                       why ? why : "no reason given");
    }
    const char *missing = tl_dl_fill(cl->handle, cl, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        tl_cusparse_lib_unload(cl);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "--spmv cusparse: the library " TL_CUSPARSE_SONAME " found lacks %s",
                       missing);
    }
    int major = -1;
    if (cl->cusparseGetProperty(MAJOR_VERSION, &major) != CUSPARSE_STATUS_SUCCESS || major != CUSPARSE_VER_MAJOR) {
        tl_cusparse_lib_unload(cl);
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "--spmv cusparse: the library " TL_CUSPARSE_SONAME " found is version %d, but trilap-solve "
                       "was built with cuSPARSE " TL_CUSPARSE_HEADERS,
                       major);
    }
    return TL_OK;
}

void tl_cusparse_lib_unload(tl_cusparse_lib *cl)
{
    if (cl->handle) dlclose(cl->handle);
    memset(cl, 0, sizeof *cl);
}

#endif
