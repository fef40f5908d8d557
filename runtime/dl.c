/* Symbols of libraries found at run time (dl.h says which and why). */
#include "runtime/dl.h"

#include <dlfcn.h>
#include <string.h>

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
