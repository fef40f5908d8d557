/* Symbols of libraries found at run time (dl.h says which and why). */
#include "runtime/dl.h"

#include <dlfcn.h>
#include <string.h>

/* dlsym returns an object pointer; POSIX guarantees it converts to the
 * function's pointer type, which memcpy says without a cast warning */
int tl_dl_symbol(void *handle, const char *name, void *member, size_t size)
{
    void *p = dlsym(handle, name);
    if (p) memcpy(member, &p, size);
    return p != NULL;
}
