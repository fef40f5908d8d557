/* Symbols of libraries found at run time (dl.h says which and why). */
#include "runtime/dl.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

tl_dl_lib tl_dl_open(const char *env, const char *fallback)
{
    const char *v = env ? getenv(env) : NULL;
    tl_dl_lib lib = {.named = v && *v};
    lib.path = lib.named ? v : fallback;
    lib.handle = dlopen(lib.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib.handle) {
        lib.why = dlerror();
        if (!lib.why) lib.why = "no reason given";
    }
    return lib;
}

const char *tl_dl_fill(void *handle, void *table, const tl_dl_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(handle, entries[i].name);
        if (!p) return entries[i].name;
        /* dlsym returns an object pointer; POSIX guarantees it converts to
         * the function's pointer type, which memcpy says without a cast */
        memcpy((char *)table + entries[i].offset, &p, entries[i].size);
    }
    return NULL;
}
