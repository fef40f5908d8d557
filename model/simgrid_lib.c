/* SimGrid's library found at run time (simgrid_lib.h says why). */
#include "model/simgrid_lib.h"

#if TL_HAVE_SIMGRID

#include <dlfcn.h>
#include <string.h>

#include "runtime/dl.h"

/* the variable that names another library than the build's */
#define TL_SIMGRID_LIB_ENV "TRILAP_SIMGRID_LIB"
/* the library of the headers compiled against, by its SONAME */
#define TL_SIMGRID_HEADERS TL_DL_STR(SIMGRID_VERSION_MAJOR) "." TL_DL_STR(SIMGRID_VERSION_MINOR)
#define TL_SIMGRID_LIBRARY "libsimgrid.so." TL_SIMGRID_HEADERS

/* Every symbol of the table, by its member's name. */
#define TL_SIMGRID_ENTRY(name) TL_DL_ENTRY(tl_simgrid_lib, name)
static const tl_dl_entry symbols[] = {TL_SIMGRID_SYMBOLS(TL_SIMGRID_ENTRY)};
#undef TL_SIMGRID_ENTRY

tl_status tl_simgrid_lib_load(tl_simgrid_lib *sl)
{
    memset(sl, 0, sizeof *sl);
    const tl_dl_lib lib = tl_dl_open(TL_SIMGRID_LIB_ENV, TL_SIMGRID_LIBRARY);
    const int named = lib.named;
    sl->path = lib.path;
    sl->handle = lib.handle;
    if (!sl->handle) {
        if (named)
            return TL_FAIL(TL_ERR_UNSUPPORTED, "cannot load SimGrid's library %s (%s), named by " TL_SIMGRID_LIB_ENV,
                           sl->path, lib.why);
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "cannot load SimGrid's library %s (%s): trilap-model was built with SimGrid %s; install it "
                       "again, or name its library in " TL_SIMGRID_LIB_ENV,
                       sl->path, lib.why, TL_SIMGRID_HEADERS);
    }
    const char *missing = tl_dl_fill(sl->handle, sl, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        const char *path = sl->path;
        tl_simgrid_lib_unload(sl);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "the library %s%s is no SimGrid: it lacks %s", path,
                       named ? " (" TL_SIMGRID_LIB_ENV ")" : "", missing);
    }
    int major = 0, minor = 0, patch = 0;
    sl->sg_version_get(&major, &minor, &patch);
    if (major != SIMGRID_VERSION_MAJOR || minor != SIMGRID_VERSION_MINOR) {
        const char *path = sl->path;
        tl_simgrid_lib_unload(sl);
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "SimGrid's library %s is version %d.%d.%d, but trilap-model was built with SimGrid %s (its C "
                       "interface changes between versions): rebuild trilap, or name a %s library in "
                       TL_SIMGRID_LIB_ENV,
                       path, major, minor, patch, TL_SIMGRID_HEADERS, TL_SIMGRID_HEADERS);
    }
    return TL_OK;
}

void tl_simgrid_lib_unload(tl_simgrid_lib *sl)
{
    if (sl->handle) dlclose(sl->handle);
    memset(sl, 0, sizeof *sl);
}

#endif
