/* SQLite 3 found at run time (sqlite_lib.h says why). */
#include "analysis/sqlite_lib.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runtime/dl.h"
#include "runtime/error.h"

/* Every function of the table: SQLite's name, the member without its
 * sqlite3_ prefix. */
#define SQ_ENTRY(f) {"sqlite3_" #f, offsetof(tl_an_sqlite, f), sizeof(((tl_an_sqlite *)0)->f)},
static const tl_dl_entry symbols[] = {
    SQ_ENTRY(open_v2) SQ_ENTRY(close) SQ_ENTRY(errmsg) SQ_ENTRY(exec) SQ_ENTRY(prepare_v2) SQ_ENTRY(step)
    SQ_ENTRY(finalize) SQ_ENTRY(bind_int) SQ_ENTRY(bind_int64) SQ_ENTRY(bind_text) SQ_ENTRY(column_type)
    SQ_ENTRY(column_int) SQ_ENTRY(column_int64) SQ_ENTRY(column_text)};
#undef SQ_ENTRY

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
    const char *missing = tl_dl_fill(sq->lib, sq, symbols, sizeof symbols / sizeof symbols[0]);
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
