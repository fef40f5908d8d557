/* Runs the libFuzzer builds of the readers for a bounded time each
 * (TL_FUZZ_SECONDS, default 10), under AddressSanitizer and
 * UndefinedBehaviorSanitizer, from seed corpora made here:
 *   fuzz_mmio   the Matrix Market reader: the shared matrices' first lines
 *               and small files of every kind
 *   fuzz_trace  the trace reader and a run folder's rank set: folders of
 *               one to three rank files (tests/fuzz_trace.c's format)
 *   fuzz_nsys   the Nsight Systems sqlite reader: small exports
 * Fails on any crash, sanitizer report, leak or timeout. Skips when a fuzz
 * binary was not built (no clang with libFuzzer, or no sqlite3). */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "tl_test.h"
#if TL_HAVE_SQLITE
#include <sqlite3.h>
#endif

static const char *const seeds[] = {
    "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.5\n2 1 -2\n3 3 4e-3\n1 3 7\n",
    "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 3\n1 1 2\n3 1 -1\n3 3 2\n",
    "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 2 -1.5\n",
    "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 3\n1 3\n",
    "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 -1\n",
    "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n",
    "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 2\n",
};

/* The fuzzer's path, or a skip when it was not built. */
static const char *fuzzer_of(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/fuzz/%s", tl_test_env("TL_BUILD", "build"), name);
    if (access(buf, X_OK) != 0) TL_SKIP("%s not built (needs clang with libFuzzer: libclang-rt-14-dev)", buf);
    return buf;
}

/* A fresh corpus folder under dir with `n` seeds. */
static void corpus(const char *dir, const char *const *seed, size_t n, const char *ext)
{
    char p[700];
    snprintf(p, sizeof p, "%s/corpus", dir);
    TL_ASSERT(mkdir(p, 0755) == 0);
    for (size_t k = 0; k < n; k++) {
        snprintf(p, sizeof p, "%s/corpus/seed%zu%s", dir, k, ext);
        FILE *f = fopen(p, "w");
        TL_ASSERT(f);
        fputs(seed[k], f);
        TL_ASSERT(fclose(f) == 0);
    }
}

/* Run `fuzzer` over dir/corpus for the bounded time; fail on any finding. */
static void run_fuzzer(const char *fuzzer, const char *dir, int max_len)
{
    char cmd[4096];
    int secs = atoi(tl_test_env("TL_FUZZ_SECONDS", "10"));
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "
             "%s -max_total_time=%d -max_len=%d -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 "
             "-artifact_prefix=%s/ %s/corpus > %s/fuzz.log 2>&1",
             fuzzer, secs > 0 ? secs : 10, max_len, dir, dir, dir);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    snprintf(cmd, sizeof cmd, "tail -n 40 %s/fuzz.log >&2", dir);
    if (system(cmd) != 0) fprintf(stderr, "(no fuzz log)\n");
    TL_ASSERT_MSG(rc == 0, "fuzzer exit %d: a crash or sanitizer report (artifacts in %s)", rc, dir);
}

TL_TEST(fuzz_mmio_bounded)
{
    char fuzzer[512], dir[512], cmd[4096];
    fuzzer_of("fuzz_mmio", fuzzer, sizeof fuzzer);
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    corpus(dir, seeds, sizeof seeds / sizeof seeds[0], ".mtx");
    /* the shared matrices' heads join the seeds where they are there; a
     * clone without them fuzzes from the seeds (it failed: the loop's
     * unmatched pattern) */
    const char *data = tl_test_env("TL_DATA", "../shared/data");
    snprintf(cmd, sizeof cmd,
             "for m in %s/matrices/*.mtx; do [ -e \"$m\" ] || continue; head -n 30 \"$m\" > %s/corpus/$(basename \"$m\"); done",
             data, dir);
    TL_ASSERT_EQ(system(cmd), 0);
    run_fuzzer(fuzzer, dir, 4096);
}

#define META(r, n) "# format=trilap-trace\n# version=1\n# rank=" #r "\n# nranks=" #n "\n# device=0\n# complete=yes\n"
#define HEADER "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n"
#define ROW0 "0,0,1,compute,compute,kernel,k,100,1000,1,-1,0\n"
#define ROW1 "0,0,2,coll,coll,kernel,\"ncclDevKernel_AllReduce, \"\"x\"\"\",500,1500,2,4096,0\n"
#define ROW2 "0,-1,0,host,range,host,iter,50,2000,0,-1,1\n"

static const char *const trace_seeds[] = {
    META(0, 1) "# records=3\n" HEADER ROW0 ROW1 ROW2,
    META(0, 2) "# window_start_ns=0\n# window_end_ns=3000\n" HEADER ROW0 ROW1 "@@ 1\n" META(1, 2) HEADER ROW0 ROW2,
    META(0, 3) HEADER ROW0 "@@ 2\n" META(2, 3) HEADER ROW1 "@@ 1\n" META(1, 3) "# records=1\n" HEADER ROW2,
    "# format=trilap-trace\r\n# version=1\r\n# rank=0\r\n# nranks=1\r\n" "rank,device,stream,lane,cat,kind,name,"
    "start_ns,end_ns,corr,bytes,iter\r\n0,0,1,compute,compute,kernel,k,100,1000,1,-1,0\r\n",
    META(0, 2) "# clock_offset_ns=12\n# clock_offset_at_ns=5\n# clock_drift_ppb=3.5\n" HEADER ROW0 "@@ 3\n" META(1, 2)
        HEADER ROW2,
};

TL_TEST(fuzz_trace_bounded)
{
    char fuzzer[512], dir[512];
    fuzzer_of("fuzz_trace", fuzzer, sizeof fuzzer);
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    corpus(dir, trace_seeds, sizeof trace_seeds / sizeof trace_seeds[0], ".txt");
    run_fuzzer(fuzzer, dir, 4096);
}

TL_TEST(fuzz_nsys_bounded)
{
#if !TL_HAVE_SQLITE
    TL_SKIP("built without sqlite3 (libsqlite3-dev)");
#else
    char fuzzer[512], dir[512], p[700];
    fuzzer_of("fuzz_nsys", fuzzer, sizeof fuzzer);
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    corpus(dir, NULL, 0, "");
    /* small exports: kernels with and without names, copies, memsets,
     * NVTX ranges with the trilap domain, launches */
    static const char *const extra[] = {
        "",
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2500, 2400, 0, 1, 20, 13, 83886080, 9, 9, 9);",
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
        " correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (10, 20, 0, 20, 5, 83886080, 4096, 1);"
        "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,"
        " color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER,"
        " uint64Value INTEGER, int64Value INTEGER);"
        "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, domainId, int64Value) VALUES"
        " (0, 0, 75, 'trilap', 83886087, 1, NULL), (900, 2100, 59, 'iter', 83886087, 1, 0),"
        " (950, 960, 59, 'spmv', 83886087, 1, NULL);",
    };
    for (size_t k = 0; k < sizeof extra / sizeof extra[0]; k++) {
        sqlite3 *db = NULL;
        snprintf(p, sizeof p, "%s/corpus/seed%zu.sqlite", dir, k);
        TL_ASSERT_EQ(sqlite3_open(p, &db), SQLITE_OK);
        char *err = NULL;
        char q[4096];
        snprintf(q, sizeof q,
                 "PRAGMA page_size=512;"
                 "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER,"
                 " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
                 " shortName INTEGER, mangledName INTEGER);"
                 "INSERT INTO StringIds VALUES (1, '_Z10my_computev'), (2, 'ncclDevKernel_SendRecv');"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 20, 11, 83886080, 1, 1, 1),"
                 " (1500, 3000, 0, 1, 21, 12, 83886080, 2, 2, 2);%s",
                 extra[k]);
        TL_ASSERT_MSG(sqlite3_exec(db, q, NULL, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
        sqlite3_close(db);
    }
    run_fuzzer(fuzzer, dir, 16384);
#endif
}

TL_TEST_MAIN(fuzz_mmio_bounded, fuzz_trace_bounded, fuzz_nsys_bounded)
