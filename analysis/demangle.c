/* Kernel names as a person reads them: demangled with the toolchain's own
 * demangler and shortened the way Nsight Systems does (the function's name
 * without its scope, template arguments and parameters).
 *
 * The demangler is abi::__cxa_demangle from libstdc++: it is always there
 * where gcc is (libiberty-dev is an extra package), it is the same
 * cp-demangle code c++filt uses, and it has C linkage, so no C++ shim is
 * needed, only -lstdc++ at link time. */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

/* <cxxabi.h>, abi::__cxa_demangle; C linkage. */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* nvcc gives kernels of internal linkage a prefix before the mangled name:
 * __nv_static_<n>__<hash>__Z... (NCCL's oneRankReduce). */
static const char *skip_nv_static(const char *s)
{
    if (strncmp(s, "__nv_static_", 12) != 0) return s;
    const char *z = strstr(s + 12, "__Z");
    return z ? z + 1 : s;
}

tl_status tl_an_demangle(const char *name, char **full)
{
    const char *m = skip_nv_static(name);
    char *d = NULL;
    if (m[0] == '_' && m[1] == 'Z') {
        int status = 0;
        d = __cxa_demangle(m, NULL, NULL, &status);
        if (status != 0) {
            free(d);
            d = NULL;
        }
    }
    if (!d) d = strdup(name); /* extern "C", plain or not a C++ name: as it is */
    TL_CHECK(d, TL_ERR_NOMEM, "name of %zu bytes", strlen(name));
    *full = d;
    return TL_OK;
}

/* Index of the bracket that opens the one closing at s[end] (')' or '>'),
 * or -1. Brackets of the other kind inside are skipped as a whole. */
static long open_of(const char *s, long end)
{
    int depth = 0;
    for (long i = end; i >= 0; i--) {
        char c = s[i];
        if (c == ')' || c == '>' || c == ']') {
            /* "operator>" / "->" inside template arguments are rare in kernel names; take them as brackets */
            depth++;
        } else if (c == '(' || c == '<' || c == '[') {
            if (--depth == 0) return i;
        }
    }
    return -1;
}

/* The qualified function name of a demangled name, without return type,
 * template arguments and parameters: "void at::native::k<4, F>(int, F)"
 * gives "at::native::k"; "(anonymous namespace)" scopes are kept as they
 * are. Written into out (size n). A demangler prints a return type only
 * for a function template (the Itanium ABI encodes it for those alone), so
 * a blank outside brackets is taken for its end only where template
 * arguments were cut: elsewhere the blank is the name's own. Before, the
 * name began after the last such blank whatever it was: a Kineto kernel
 * "ncclDevKernel_SendRecv x, y" read as "y", "my kernel(int)" and "your
 * kernel(int)" as one "kernel". */
void tl_an_qualified_name(const char *full, char *out, size_t n)
{
    size_t len = strlen(full);
    long e = (long)len - 1;
    /* trailing " const", " [clone .cold]" and the like */
    while (e >= 0) {
        if (full[e] == ' ') {
            e--;
        } else if (e >= 5 && !strncmp(full + e - 4, "const", 5) && full[e - 5] == ' ' && e + 1 == (long)len) {
            e -= 5;
        } else if (full[e] == ']') {
            long o = open_of(full, e);
            if (o < 0) break;
            e = o - 1;
        } else {
            break;
        }
    }
    if (e >= 0 && full[e] == ')') {
        long o = open_of(full, e);
        if (o > 0) e = o - 1;
    }
    int templated = 0;
    if (e >= 0 && full[e] == '>') {
        long o = open_of(full, e);
        if (o > 0) e = o - 1, templated = 1;
    }
    /* start: after the return type, i.e. after the last space at depth 0
     * (none but a template's: the start of the name) */
    long b = templated ? e : -1;
    int depth = 0;
    while (b >= 0) {
        char c = full[b];
        if (c == ')' || c == '>') depth++;
        else if (c == '(' || c == '<') {
            if (depth == 0) break;
            depth--;
        } else if (c == ' ' && depth == 0)
            break;
        b--;
    }
    long start = b + 1, stop = e + 1;
    if (stop <= start) {
        snprintf(out, n, "%s", full);
        return;
    }
    size_t k = (size_t)(stop - start);
    if (k >= n) k = n - 1;
    memcpy(out, full + start, k);
    out[k] = '\0';
}

void tl_an_short_name(const char *full, char *out, size_t n)
{
    char q[4096];
    tl_an_qualified_name(full, q, sizeof q);
    /* the last scope component at depth 0 */
    const char *last = q;
    int depth = 0;
    for (const char *p = q; *p; p++) {
        if (*p == '(' || *p == '<') depth++;
        else if ((*p == ')' || *p == '>') && depth > 0) depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':') last = p + 2;
    }
    snprintf(out, n, "%s", *last ? last : q);
}
