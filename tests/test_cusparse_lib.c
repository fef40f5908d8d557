/* cuSPARSE found at run time (solvers/backends/cuda/cusparse_lib.h): the
 * table filled from the toolkit's library, the library named in one line
 * when it is not cuSPARSE, and a trilap-solve that does not ask for
 * --spmv cusparse never loading it (it was linked, and its loading, with
 * nvJitLink's, took about 45 of the 65 ms of every start). No GPU: the
 * library loads, and names its version, without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "solvers/backends/cuda/cusparse_lib.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

#if TL_HAVE_CUDA

TL_TEST(cusparse_table_filled_with_its_version)
{
    tl_cusparse_lib cl;
    TL_ASSERT_EQ(tl_cusparse_lib_load(&cl), TL_OK);
    TL_ASSERT(cl.handle != NULL);
#define TL_CUSPARSE_FILLED(name) TL_ASSERT_MSG(cl.name != NULL, "%s not filled", #name);
    TL_CUSPARSE_SYMBOLS(TL_CUSPARSE_FILLED)
#undef TL_CUSPARSE_FILLED
    int major = -1;
    TL_ASSERT_EQ(cl.cusparseGetProperty(MAJOR_VERSION, &major), CUSPARSE_STATUS_SUCCESS);
    TL_ASSERT_EQ(major, CUSPARSE_VER_MAJOR);
    TL_ASSERT(strcmp(cl.cusparseGetErrorString(CUSPARSE_STATUS_NOT_INITIALIZED), "") != 0);
    tl_cusparse_lib_unload(&cl);
    TL_ASSERT(cl.handle == NULL && cl.cusparseSpMV == NULL);
}

/* The child's side: LD_LIBRARY_PATH (searched before the run path) holds a
 * libcusparse.so.<major> that is zlib; the load is refused in one line. */
#define CHILD_ENV "TL_TEST_CUSPARSE_CHILD"

TL_TEST(cusparse_library_lacking_a_function_named)
{
    if (getenv(CHILD_ENV)) {
        tl_cusparse_lib cl;
        tl_status st = tl_cusparse_lib_load(&cl);
        exit(st == TL_OK ? 0 : 3);
    }
    const char *d = tl_test_tmpdir();
    tl_test_output z = tl_test_capture("for f in /lib/x86_64-linux-gnu/libz.so.1 /usr/lib64/libz.so.1 "
                                       "/usr/lib/libz.so.1; do [ -e $f ] && echo $f && break; done");
    if (!z.out[0]) TL_SKIP("no libz.so.1 to stand in for cuSPARSE");
    z.out[strcspn(z.out, "\n")] = '\0';
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    TL_ASSERT(n > 0);
    self[n] = '\0';
    tl_test_output r = tl_test_capture("ln -s %s %s/libcusparse.so.%d && env LD_LIBRARY_PATH=%s " CHILD_ENV
                                       "=1 %s cusparse_library_lacking_a_function_named",
                                       z.out, d, CUSPARSE_VER_MAJOR, d, self);
    char want[200];
    snprintf(want, sizeof want, "--spmv cusparse: the library libcusparse.so.%d found lacks cusparseGetProperty\n",
             CUSPARSE_VER_MAJOR);
    TL_ASSERT_MSG(r.rc == 3 && tl_test_count(r.err, "\n") == 1 && strstr(r.err, want), "exit %d: %s\nwant: %s",
                  r.rc, r.err, want);
    tl_test_output_free(&r);
    tl_test_output_free(&z);
}

/* Every loader line of a run that asks for no cuSPARSE: none names it, nor
 * nvJitLink, which only cuSPARSE needs. --help, a host solve, and the
 * FDTD's program (linked with the same CUDA libraries) for the count. */
TL_TEST(cusparse_not_loaded_without_spmv_cusparse)
{
    const char *d = tl_test_tmpdir(), *bin = tl_test_env("TL_BIN", "bin");
    const char *runs[] = {"trilap-solve --help", "trilap-solve --backend host --solver cg --warmup 0 --repeat 1 "
                                                 "--no-stats gen:poisson7:4"};
    for (int k = 0; k < 2; k++) {
        TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/ld%d && env LD_DEBUG=files LD_DEBUG_OUTPUT=%s/ld%d/ld %s/%s >%s/out 2>&1",
                                d, k, d, k, bin, runs[k], d),
                     0);
        tl_test_output r = tl_test_capture("cat %s/ld%d/ld.*", d, k);
        TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "libcudart"), "%s: LD_DEBUG=files shows no CUDA runtime", runs[k]);
        const char *seen = strstr(r.out, "libcusparse") ? strstr(r.out, "libcusparse") : strstr(r.out, "libnvJitLink");
        TL_ASSERT_MSG(!seen, "%s loaded cuSPARSE: ...%.100s", runs[k], seen);
        tl_test_output_free(&r);
    }
}

TL_TEST_MAIN(cusparse_table_filled_with_its_version, cusparse_library_lacking_a_function_named,
             cusparse_not_loaded_without_spmv_cusparse)

#else

TL_TEST(cusparse_needs_cuda)
{
    TL_SKIP("built without CUDA (CUDA=0): no cuSPARSE to load");
}

TL_TEST_MAIN(cusparse_needs_cuda)

#endif
