/* PETSc's library found at run time (petsc_lib.h says why). */
#include "solvers/methods/petsc_lib.h"

#if TL_HAVE_PETSC && TL_HAVE_MPI

#include <dlfcn.h>
#include <string.h>

#include "runtime/dl.h"

/* the variable that names another library than the build's */
#define TL_PETSC_LIB_ENV "TRILAP_PETSC_LIB"
/* the version of the headers compiled against (petscversion.h) */
#define TL_PETSC_HEADERS \
    TL_DL_STR(PETSC_VERSION_MAJOR) "." TL_DL_STR(PETSC_VERSION_MINOR) "." TL_DL_STR(PETSC_VERSION_SUBMINOR)

/* Every symbol of the table, by its member's name. */
#define TL_PETSC_ENTRY(name) TL_DL_ENTRY(tl_petsc_lib, name)
static const tl_dl_entry symbols[] = {TL_PETSC_SYMBOLS(TL_PETSC_ENTRY)};
#undef TL_PETSC_ENTRY

tl_status tl_petsc_lib_load(tl_petsc_lib *pl)
{
    memset(pl, 0, sizeof *pl);
    /* PETSc's own libraries resolve against the MPI trilap-solve is
     * linked with (the same libmpi, already loaded and initialised) */
    const tl_dl_lib lib = tl_dl_open(TL_PETSC_LIB_ENV, TL_PETSC_LIBRARY);
    const int named = lib.named;
    pl->path = lib.path;
    pl->handle = lib.handle;
    if (!pl->handle) {
        if (named)
            return TL_FAIL(TL_ERR_UNSUPPORTED, "--backend petsc: cannot load PETSc's library %s (%s), named by "
                           TL_PETSC_LIB_ENV, pl->path, lib.why);
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "--backend petsc: cannot load PETSc's library %s (%s): trilap-solve was built with PETSc %s "
                       "there; install it again, or name its library in " TL_PETSC_LIB_ENV,
                       pl->path, lib.why, TL_PETSC_HEADERS);
    }
    const char *missing = tl_dl_fill(pl->handle, pl, symbols, sizeof symbols / sizeof symbols[0]);
    if (missing) {
        const char *path = pl->path;
        tl_petsc_lib_unload(pl);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "--backend petsc: the library %s%s is no PETSc: it lacks %s", path,
                       named ? " (" TL_PETSC_LIB_ENV ")" : "", missing);
    }
    PetscInt major = 0, minor = 0, subminor = 0, release = 0;
    if (pl->PetscGetVersionNumber(&major, &minor, &subminor, &release) != 0 || major != PETSC_VERSION_MAJOR ||
        minor != PETSC_VERSION_MINOR) {
        const char *path = pl->path;
        tl_petsc_lib_unload(pl);
        return TL_FAIL(TL_ERR_UNSUPPORTED,
                       "--backend petsc: PETSc's library %s is version %d.%d.%d, but trilap-solve was built with "
                       "PETSc %s (the interface changes between minor versions): rebuild trilap, or name a %d.%d "
                       "library in " TL_PETSC_LIB_ENV,
                       path, (int)major, (int)minor, (int)subminor, TL_PETSC_HEADERS, PETSC_VERSION_MAJOR,
                       PETSC_VERSION_MINOR);
    }
    return TL_OK;
}

void tl_petsc_lib_unload(tl_petsc_lib *pl)
{
    if (pl->handle) dlclose(pl->handle);
    memset(pl, 0, sizeof *pl);
}

#endif
