/* SQLite 3 found at run time (sqlite_lib.h says why). */
#include "analysis/sqlite_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dl.h"
#include "runtime/error.h"

static const char *find_all(tl_an_sqlite *sq)
{
#define FIND(f)                                                          \
    do {                                                                 \
        if (!tl_dl_symbol(sq->lib, "sqlite3_" #f, &sq->f, sizeof sq->f)) \
            return "sqlite3_" #f;                                        \
    } while (0)
    FIND(open_v2);
    FIND(close);
    FIND(errmsg);
    FIND(exec);
    FIND(prepare_v2);
    FIND(step);
    FIND(finalize);
    FIND(bind_int);
    FIND(bind_int64);
    FIND(bind_text);
    FIND(column_type);
    FIND(column_int);
    FIND(column_int64);
    FIND(column_text);
#undef FIND
    return NULL;
}

tl_status tl_an_sqlite_load(tl_an_sqlite *sq, const char *path)
{
    memset(sq, 0, sizeof *sq);
    /* the soname first: the unversioned name is the -dev package's link */
    static const char *const names[] = {"libsqlite3.so.0", "libsqlite3.so"};
    char why[512] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !sq->lib; i++) {
        sq->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!sq->lib && i == 0) snprintf(why, sizeof why, "%s", dlerror());
    }
    TL_CHECK(sq->lib, TL_ERR_UNSUPPORTED,
             "%s: reading Nsight Systems exports needs SQLite 3's library (%s): install libsqlite3-0 (Debian, "
             "Ubuntu) or sqlite-libs (RHEL), or put the folder that holds it on LD_LIBRARY_PATH",
             path, why);
    const char *missing = find_all(sq);
    if (missing) {
        tl_an_sqlite_unload(sq);
        return TL_FAIL(TL_ERR_UNSUPPORTED, "%s: the SQLite library found lacks %s (SQLite 3.6 or newer is needed)",
                       path, missing);
    }
    return TL_OK;
}

void tl_an_sqlite_unload(tl_an_sqlite *sq)
{
    if (sq->lib) dlclose(sq->lib);
    memset(sq, 0, sizeof *sq);
}
