/* Runs the libFuzzer build of the Kineto reader for a bounded time
 * (TL_FUZZ_SECONDS, default 30) from a seed corpus of small traces of every
 * kind of event and the openings of the shared traces; fails on any crash,
 * sanitizer report, leak or timeout. Skips when the fuzz binary was not
 * built (no clang with libFuzzer). */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tl_test.h"

static const char *const seeds[] = {
    "{\"traceEvents\": []}",
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"baseTimeNanoseconds\": 17000, "
    "\"deviceProperties\": [{\"id\": 0, \"name\": \"H200\"}], \"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"ts\": 10, \"dur\": 100},"
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"ts\": 110, \"dur\": 100},"
    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"tid\": 5, \"ts\": 20.5, \"dur\": 3, "
    "\"args\": {\"correlation\": 7, \"External id\": 2}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce_RING_LL_Sum_float\", \"ts\": 30.25, "
    "\"dur\": 12.5, \"args\": {\"device\": 0, \"stream\": 21, \"correlation\": 7}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"ts\": 31, \"dur\": 0.4, "
    "\"args\": {\"device\": 0, \"stream\": \"7\", \"correlation\": 8}},"
    "{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"ts\": 50, \"dur\": 1, "
    "\"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9, \"bytes\": 8}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"tid\": 5, \"ts\": 19, \"dur\": 6, "
    "\"args\": {\"External id\": 2, \"Collective name\": \"allreduce\", \"Process Group Name\": \"0\", "
    "\"In msg nelems\": 1024}},"
    "{\"ph\": \"f\", \"id\": 7, \"ts\": 20, \"cat\": \"ac2g\", \"name\": \"ac2g\"},"
    "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": \"python\"}}], \"traceName\": \"x\"}",
    "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoD\", \"ts\": 1e3, \"dur\": 2, "
    "\"args\": {\"stream\": 3, \"correlation\": 1, \"bytes\": 1.5e9}}, {\"cat\": \"cuda_sync\", \"name\": \"Event Sync\", "
    "\"ts\": 4, \"dur\": 1, \"args\": {\"correlation\": 2}}]}",
};

TL_TEST(fuzz_kineto_bounded)
{
    char fuzzer[512], dir[512], cmd[4096];
    snprintf(fuzzer, sizeof fuzzer, "%s/fuzz/fuzz_kineto", tl_test_env("TL_BUILD", "build"));
    if (access(fuzzer, X_OK) != 0)
        TL_SKIP("%s not built (needs clang with libFuzzer: libclang-rt-14-dev)", fuzzer);
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    snprintf(cmd, sizeof cmd, "%s/corpus", dir);
    TL_ASSERT(mkdir(cmd, 0755) == 0);
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        snprintf(cmd, sizeof cmd, "%s/corpus/seed%zu.json", dir, k);
        FILE *f = fopen(cmd, "w");
        TL_ASSERT(f);
        fputs(seeds[k], f);
        fclose(f);
    }
    /* the openings of the real traces (cut mid-event: the truncation path) */
    const char *data = tl_test_env("TL_DATA", "../shared/data");
    snprintf(cmd, sizeof cmd,
             "for m in %s/kineto/*/*.json.gz; do [ -f \"$m\" ] || continue; "
             "gzip -dc \"$m\" | head -c 6000 > %s/corpus/$(basename \"$m\" .gz); done",
             data, dir);
    TL_ASSERT_EQ(system(cmd), 0);
    int secs = atoi(tl_test_env("TL_FUZZ_SECONDS", "30"));
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "
             "%s -max_total_time=%d -max_len=8192 -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 "
             "-artifact_prefix=%s/ %s/corpus > %s/fuzz.log 2>&1",
             fuzzer, secs > 0 ? secs : 30, dir, dir, dir);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    snprintf(cmd, sizeof cmd, "tail -n 40 %s/fuzz.log >&2", dir);
    if (system(cmd) != 0) fprintf(stderr, "(no fuzz log)\n");
    TL_ASSERT_MSG(rc == 0, "fuzzer exit %d: a crash or sanitizer report (artifacts in %s)", rc, dir);
}

TL_TEST_MAIN(fuzz_kineto_bounded)
