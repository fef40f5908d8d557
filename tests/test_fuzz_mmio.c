/* Runs the libFuzzer build of the Matrix Market reader for a bounded time
 * (TL_FUZZ_SECONDS, default 30) from a seed corpus made of the shared
 * matrices' first lines and small files of every kind; fails on any crash,
 * sanitizer report, leak or timeout. Skips when the fuzz binary was not
 * built (no clang with libFuzzer). */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"

static const char *const seeds[] = {
    "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.5\n2 1 -2\n3 3 4e-3\n1 3 7\n",
    "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n1 1 2\n3 1 -1\n3 3 2\n",
    "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 2 -1.5\n",
    "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 3\n",
    "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 -1\n",
    "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n",
    "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n",
};

TL_TEST(fuzz_mmio_bounded)
{
    char fuzzer[512], dir[512], cmd[4096];
    snprintf(fuzzer, sizeof fuzzer, "%s/fuzz/fuzz_mmio", tl_test_env("TL_BUILD", "build"));
    if (access(fuzzer, X_OK) != 0)
        TL_SKIP("%s not built (needs clang with libFuzzer: libclang-rt-14-dev)", fuzzer);
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        snprintf(cmd, sizeof cmd, "%s/corpus/seed%zu.mtx", dir, k);
        if (k == 0) {
            char mk[600];
            snprintf(mk, sizeof mk, "%s/corpus", dir);
            TL_ASSERT(mkdir(mk, 0755) == 0);
        }
        FILE *f = fopen(cmd, "w");
        TL_ASSERT(f);
        fputs(seeds[k], f);
        fclose(f);
    }
    const char *data = tl_test_env("TL_DATA", "../shared/data");
    snprintf(
        cmd, sizeof cmd,
        "for m in %s/matrices/*.mtx; do head -n 30 \"$m\" > %s/corpus/$(basename \"$m\"); done",
        data, dir);
    TL_ASSERT_EQ(system(cmd), 0);
    int secs = atoi(tl_test_env("TL_FUZZ_SECONDS", "30"));
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "
             "%s -max_total_time=%d -max_len=4096 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 "
             "-artifact_prefix=%s/ %s/corpus > %s/fuzz.log 2>&1",
             fuzzer, secs > 0 ? secs : 30, dir, dir, dir);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    snprintf(cmd, sizeof cmd, "tail -n 40 %s/fuzz.log >&2", dir);
    if (system(cmd) != 0) fprintf(stderr, "(no fuzz log)\n");
    TL_ASSERT_MSG(rc == 0, "fuzzer exit %d: a crash or sanitizer report (artifacts in %s)", rc,
                  dir);
}

TL_TEST_MAIN(fuzz_mmio_bounded)
