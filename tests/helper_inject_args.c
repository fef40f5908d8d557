/* A process of any command line that loads libtrilap-inject.so as the CUDA
 * driver would (dlopen, then InitializeInjection) and exits, its trace
 * written by the library's exit handler:
 *   TRILAP_TRACE_DIR=DIR helper_inject_args LIB [ARG...]
 * For test_probes_host: the trace's `args` is this command line, read by
 * the library from /proc/self/cmdline. Exits 3 when LIB does not load. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) return 0; /* the test runner asks every binary */
    if (argc < 2) {
        fprintf(stderr, "usage: helper_inject_args LIB [ARG...]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW);
    int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
    if (!init) {
        fprintf(stderr, "helper_inject_args: %s: %s\n", argv[1], dlerror());
        return 3;
    }
    return init() == 1 ? 0 : 4;
}
