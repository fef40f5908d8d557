/* The probes on a host-only rank (device -1): ranges, iterations and the
 * window recorded on the host clock and written as a trace the reader
 * accepts, with the right names, iterations and nesting. */
#include "probes/probes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/tl_test.h"
#include "runtime/marks.h"
#include "runtime/results.h"
#include "tests/tl_test_run.h"

typedef struct {
    tl_trace_record r;
    char name[128];
} row;

/* Reads a whole trace into rows (at most cap). */
static int read_rows(const char *path, int flags, row *rows, int cap, tl_trace_reader **keep)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, flags));
    int n = 0;
    for (;;) {
        tl_trace_record rec;
        int got = 0;
        TL_ASSERT_OK(tl_trace_reader_next(r, &rec, &got));
        if (!got) break;
        TL_ASSERT(n < cap);
        rows[n].r = rec;
        snprintf(rows[n].name, sizeof rows[n].name, "%s", rec.name);
        rows[n].r.name = rows[n].name;
        n++;
    }
    if (keep)
        *keep = r;
    else
        tl_trace_reader_close(&r);
    return n;
}

static tl_ctx host_ctx(int rank, int size)
{
    static char *argv[] = {"test_probes_host", "--flag", "a,b", "m x/a;b.mtx", NULL};
    return (tl_ctx){.program = "test_probes_host",
                    .rank = rank,
                    .size = size,
                    .device = -1,
                    .argc = 4,
                    .argv = argv};
}

static void spin_us(int us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static int find(row *rows, int n, const char *name, int64_t iter)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0 && rows[i].r.iter == iter) return i;
    return -1;
}

TL_TEST(host_ranges_trace)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/nested/out", tl_test_tmpdir());
    tl_ctx ctx = host_ctx(0, 1);
    tl_probes_config pc = {.outdir = dir, .cupti = 1, .nvtx = 1};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    TL_ASSERT(ctx.probes != NULL);
    tl_probe_push(&ctx, TL_CAT_RANGE, "setup");
    spin_us(50);
    tl_probe_pop(&ctx);
    tl_probe_window_start(&ctx);
    for (int it = 0; it < 5; it++) {
        tl_probe_iter_begin(&ctx, it);
        tl_probe_push(&ctx, TL_CAT_COMPUTE, "daxpy");
        spin_us(20);
        tl_probe_push(&ctx, TL_CAT_P2P, "halo, \"send\"");
        spin_us(20);
        tl_probe_pop(&ctx);
        spin_us(20);
        tl_probe_pop(&ctx);
        tl_probe_iter_end(&ctx);
    }
    tl_probe_window_stop(&ctx);
    tl_probe_push(&ctx, TL_CAT_COLL, "final");
    tl_probe_pop(&ctx);
    TL_ASSERT_EQ(tl_probes_dropped(&ctx), 0);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT(ctx.probes == NULL);
    TL_ASSERT_OK(tl_probes_destroy(&ctx)); /* again: nothing to do */

    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    row rows[64];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, 0, rows, 64, &r);
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "rank"), "0");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "nranks"), "1");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "device"), "-1");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "clock"), "CLOCK_MONOTONIC");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "cupti_status"), "unavailable");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "cupti_clock"), "none");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "complete"), "yes");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "dropped"), "0");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "window"), "marked");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "program"), "test_probes_host");
    /* quoted as the manifest's command: line (before: joined as they were,
     * "... a,b m x/a;b.mtx", which the shell reads back as other arguments) */
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "args"), "test_probes_host --flag a,b 'm x/a;b.mtx'");
    long long w0 = atoll(tl_trace_reader_meta(r, "window_start_ns"));
    long long w1 = atoll(tl_trace_reader_meta(r, "window_end_ns"));
    tl_trace_reader_close(&r);
    /* setup + 5 x (iter, daxpy, halo) + final */
    TL_ASSERT_EQ(n, 17);
    for (int i = 0; i < n; i++) {
        TL_ASSERT_EQ(rows[i].r.device, -1);
        TL_ASSERT_EQ(rows[i].r.lane, TL_ROLE_HOST);
        TL_ASSERT_EQ(rows[i].r.cat, TL_CAT_RANGE);
        TL_ASSERT_EQ(rows[i].r.kind, TL_KIND_HOST);
        TL_ASSERT_EQ(rows[i].r.stream, 0);
        TL_ASSERT_EQ(rows[i].r.bytes, -1);
        if (i) TL_ASSERT(rows[i].r.start_ns >= rows[i - 1].r.start_ns); /* time order */
    }
    int s = find(rows, n, "range:setup", -1), f = find(rows, n, "coll:final", -1);
    TL_ASSERT(s >= 0 && f >= 0);
    TL_ASSERT(rows[s].r.end_ns - rows[s].r.start_ns >= 50000);
    TL_ASSERT(rows[s].r.end_ns <= w0);
    TL_ASSERT(rows[f].r.start_ns >= w1);
    TL_ASSERT(w1 > w0);
    int64_t prev_end = 0;
    for (int it = 0; it < 5; it++) {
        int ii = find(rows, n, "iter", it), d = find(rows, n, "compute:daxpy", it),
            h = find(rows, n, "p2p:halo, \"send\"", it);
        TL_ASSERT_MSG(ii >= 0 && d >= 0 && h >= 0, "iteration %d: iter %d daxpy %d halo %d", it, ii,
                      d, h);
        /* nesting: iter > daxpy > halo, each inside the window */
        TL_ASSERT(rows[ii].r.start_ns <= rows[d].r.start_ns &&
                  rows[d].r.end_ns <= rows[ii].r.end_ns);
        TL_ASSERT(rows[d].r.start_ns <= rows[h].r.start_ns && rows[h].r.end_ns <= rows[d].r.end_ns);
        TL_ASSERT(rows[h].r.end_ns - rows[h].r.start_ns >= 20000);
        TL_ASSERT(rows[d].r.end_ns - rows[d].r.start_ns >= 60000);
        TL_ASSERT(rows[ii].r.start_ns >= w0 && rows[ii].r.end_ns <= w1);
        TL_ASSERT(rows[ii].r.start_ns >= prev_end);
        /* the enclosing range comes first */
        TL_ASSERT(ii < d && d < h);
        prev_end = rows[ii].r.end_ns;
    }
}

TL_TEST(calls_without_probes_are_noops)
{
    tl_ctx ctx = host_ctx(0, 1);
    tl_probe_stream(&ctx, NULL, TL_ROLE_P2P, "p2p");
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "x");
    tl_probe_pop(&ctx);
    tl_probe_iter_begin(&ctx, 1);
    tl_probe_iter_end(&ctx);
    tl_probe_window_start(&ctx);
    tl_probe_window_stop(&ctx);
    TL_ASSERT_EQ(tl_probes_dropped(&ctx), 0);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    TL_ASSERT_OK(tl_probes_destroy(NULL));
    tl_probe_push(NULL, TL_CAT_COMPUTE, "x");
    tl_probe_pop(NULL);
}

TL_TEST(cupti_off_and_unbalanced)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = host_ctx(3, 4);
    tl_probes_config pc = {.outdir = dir, .cupti = 0, .nvtx = 0};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    tl_probe_pop(&ctx); /* nothing open */
    tl_probe_iter_begin(&ctx, 7);
    tl_probe_iter_begin(&ctx, 8); /* closes 7 */
    tl_probe_push(&ctx, TL_CAT_COMPUTE, "left open");
    /* no pop, no iter_end, no window: destroy closes them */
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank3.csv", dir);
    row rows[16];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, 0, rows, 16, &r);
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "cupti_status"), "off");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "rank"), "3");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "nranks"), "4");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "unbalanced_pops"), "2");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "window"), "records");
    tl_trace_reader_close(&r);
    TL_ASSERT_EQ(n, 3);
    TL_ASSERT(find(rows, n, "iter", 7) >= 0);
    TL_ASSERT(find(rows, n, "iter", 8) >= 0);
    TL_ASSERT(find(rows, n, "compute:left open", 8) >= 0);
    TL_ASSERT_EQ(rows[0].r.rank, 3);
}

TL_TEST(dropped_ranges_mark_incomplete)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = host_ctx(0, 1);
    tl_probes_config pc = {.outdir = dir, .nvtx = 1, .max_ranges = 4};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    for (int i = 0; i < 10; i++) {
        tl_probe_push(&ctx, TL_CAT_COMPUTE, "k");
        tl_probe_pop(&ctx);
    }
    TL_ASSERT_EQ(tl_probes_dropped(&ctx), 6);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_EQ(tl_trace_reader_open(&r, path, 0), TL_ERR_PARSE);
    TL_ASSERT(r == NULL);
    row rows[16];
    TL_ASSERT_EQ(read_rows(path, TL_TRACE_ACCEPT_INCOMPLETE, rows, 16, &r), 4);
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "complete"), "no");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "dropped"), "6");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "dropped_host"), "6");
    tl_trace_reader_close(&r);
}

TL_TEST(many_names_and_deep_nesting)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = host_ctx(0, 1);
    tl_probes_config pc = {.outdir = dir};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    char buf[32];
    for (int i = 0; i < 1500; i++) { /* one reused buffer, 1500 names: more than the table */
        snprintf(buf, sizeof buf, "name%d", i);
        tl_probe_push(&ctx, TL_CAT_COMPUTE, buf);
        tl_probe_pop(&ctx);
    }
    for (int d = 0; d < 100; d++)
        tl_probe_push(&ctx, TL_CAT_RANGE, "deep");
    for (int d = 0; d < 100; d++)
        tl_probe_pop(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    static row rows[2000];
    tl_trace_reader *r = NULL;
    int n = read_rows(path, TL_TRACE_ACCEPT_INCOMPLETE, rows, 2000, &r);
    /* ranges beyond the kept depth are dropped and say so */
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "dropped_host"), "36");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "complete"), "no");
    TL_ASSERT(atoi(tl_trace_reader_meta(r, "names_dropped")) > 0);
    tl_trace_reader_close(&r);
    TL_ASSERT_EQ(n, 1500 + 64);
    TL_ASSERT(find(rows, n, "compute:name0", -1) >= 0);
    TL_ASSERT(find(rows, n, "compute:name999", -1) >= 0);
    TL_ASSERT(find(rows, n, "compute:(range names exhausted)", -1) >= 0);
}

TL_TEST(bad_config)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = host_ctx(0, 1);
    tl_probes_config pc = {.outdir = NULL};
    TL_ASSERT_EQ(tl_probes_create(&ctx, &pc), TL_ERR_INVAL);
    TL_ASSERT_EQ(tl_probes_create(&ctx, NULL), TL_ERR_INVAL);
    char file[600];
    snprintf(file, sizeof file, "%s/plainfile", dir);
    FILE *f = fopen(file, "w");
    TL_ASSERT(f);
    fclose(f);
    pc.outdir = file;
    TL_ASSERT_EQ(tl_probes_create(&ctx, &pc), TL_ERR_IO);
    TL_ASSERT(ctx.probes == NULL);
    pc.outdir = dir;
    pc.buffer_bytes = 100;
    TL_ASSERT_EQ(tl_probes_create(&ctx, &pc), TL_ERR_INVAL);
    pc.buffer_bytes = 0;
    /* a folder where the rank's trace goes: refused now, not after the run */
    char blocked[700];
    snprintf(blocked, sizeof blocked, "%s/trace.rank0.csv", dir);
    TL_ASSERT_EQ(mkdir(blocked, 0755), 0);
    TL_ASSERT_EQ(tl_probes_create(&ctx, &pc), TL_ERR_IO);
    TL_ASSERT(ctx.probes == NULL);
    TL_ASSERT_EQ(rmdir(blocked), 0);
    /* a CUPTI variable that names nothing it knows stops the probes of a
     * trilap program too (before: TRILAP_CUPTI_KINDS=kernels traced no
     * activity kind, TRILAP_CUPTI_API=drivr the default); without CUPTI
     * asked for, it is not read */
    static const char *const typos[][2] = {{"TRILAP_CUPTI_KINDS", "kernels"}, {"TRILAP_CUPTI_API", "drivr"}};
    for (size_t k = 0; k < sizeof typos / sizeof typos[0]; k++) {
        setenv(typos[k][0], typos[k][1], 1);
        pc.cupti = 1;
        tl_status st = tl_probes_create(&ctx, &pc);
        pc.cupti = 0;
        TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
        TL_ASSERT_OK(tl_probes_destroy(&ctx));
        unsetenv(typos[k][0]);
        TL_ASSERT_EQ(st, TL_ERR_INVAL);
        TL_ASSERT(ctx.probes == NULL);
    }
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    TL_ASSERT_EQ(tl_probes_create(&ctx, &pc), TL_ERR_INVAL); /* twice */
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
}

/* Thread launcher: ranks of one process, each with its own probes. */
static void *rank_thread(void *arg)
{
    tl_ctx *ctx = arg;
    for (int it = 0; it < 200; it++) {
        tl_probe_iter_begin(ctx, it);
        tl_probe_push(ctx, ctx->rank ? TL_CAT_P2P : TL_CAT_COLL, ctx->rank ? "send" : "allreduce");
        tl_probe_pop(ctx);
        tl_probe_iter_end(ctx);
    }
    return NULL;
}

TL_TEST(thread_ranks)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx[2] = {host_ctx(0, 2), host_ctx(1, 2)};
    tl_probes_config pc = {.outdir = dir, .cupti = 1, .nvtx = 1};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        TL_ASSERT_OK(tl_probes_create(&ctx[i], &pc));
    for (int i = 0; i < 2; i++)
        TL_ASSERT(pthread_create(&th[i], NULL, rank_thread, &ctx[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++)
        TL_ASSERT_OK(tl_probes_destroy(&ctx[i]));
    for (int i = 0; i < 2; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, i);
        static row rows[512];
        int n = read_rows(path, 0, rows, 512, NULL);
        TL_ASSERT_EQ(n, 400);
        const char *want = i ? "p2p:send" : "coll:allreduce";
        for (int it = 0; it < 200; it++)
            TL_ASSERT(find(rows, n, want, it) >= 0);
        for (int k = 0; k < n; k++)
            TL_ASSERT_EQ(rows[k].r.rank, i);
    }
}

/* libtrilap-inject.so loaded into a child as the driver loads it, without
 * a GPU (the trace it writes at exit holds host ranges only), with the
 * environment `env` ("KEY=value" strings, NULL-terminated) and its trace
 * folder `dir`; its stderr into `err`. */
/* A child that loads the injection library as the driver would, with env
 * set and the launchers' own variables unset, and exits (its atexit
 * handler writing the trace) once hold (a pipe's read end, -1: at once)
 * gives it a byte or is closed. */
/* In a traced child: a child of its own that calls exit() (a C program's
 * worker) must leave the trace and the rank claim to its parent. Exits 8
 * when it wrote the parent's trace, 9 when it gave back the parent's claim. */
static void inject_forked_child(const char *dir)
{
    pid_t pid = fork();
    if (pid < 0) _exit(7);
    if (pid == 0) exit(0); /* its atexit handlers run */
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) _exit(7);
    char p[700];
    snprintf(p, sizeof p, "%s/trace.rank0.csv", dir);
    if (access(p, F_OK) == 0) _exit(8);
    snprintf(p, sizeof p, "%s/trace.rank0.claim", dir);
    if (access(p, F_OK) != 0) _exit(9);
}

static pid_t inject_start(const char *dir, const char *const *env, const char *err, int hold)
{
    char lib[600];
    snprintf(lib, sizeof lib, "%s/lib/libtrilap-inject.so", tl_test_env("TL_BUILD", "build"));
    struct stat sb;
    if (stat(lib, &sb) != 0) TL_SKIP("%s not built", lib);
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        static const char *const launcher[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",
                                               "PMI_SIZE", "PMIX_RANK", "RANK", "WORLD_SIZE", "SLURM_PROCID",
                                               "SLURM_NTASKS", "TRILAP_BUFFER_BYTES", "TRILAP_MAX_BUFFERS",
                                               "TRILAP_LANES", "TRILAP_CUPTI_KINDS", "TRILAP_CUPTI_API"};
        for (size_t i = 0; i < sizeof launcher / sizeof launcher[0]; i++) unsetenv(launcher[i]);
        for (size_t i = 0; env[i]; i++) putenv((char *)env[i]);
        setenv("TRILAP_TRACE_DIR", dir, 1);
        if (!freopen(err, "w", stderr)) _exit(5);
        void *h = dlopen(lib, RTLD_NOW);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (!init) _exit(3);
        int ok = init() == 1;
        char c;
        if (hold >= 0 && read(hold, &c, 1) < 0) _exit(6);
        if (getenv("TL_INJECT_FORK")) inject_forked_child(dir);
        exit(ok ? 0 : 4); /* exit runs the library's atexit writer */
    }
    return pid;
}

static void inject_wait(pid_t pid)
{
    int status = 0;
    TL_ASSERT(waitpid(pid, &status, 0) == pid);
    TL_ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

static void inject_child(const char *dir, const char *const *env, const char *err)
{
    inject_wait(inject_start(dir, env, err, -1));
}

/* path's metadata value of key, "(none)" when the trace has none */
static void assert_meta(const char *path, const char *key, const char *want)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, TL_TRACE_ACCEPT_INCOMPLETE));
    const char *v = tl_trace_reader_meta(r, key);
    TL_ASSERT_MSG(!strcmp(v ? v : "(none)", want), "%s: %s=%s, expected %s", path, key, v ? v : "(none)", want);
    tl_trace_reader_close(&r);
}

/* path's metadata value of key as a number */
static int64_t meta_i64(const char *path, const char *key)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, TL_TRACE_ACCEPT_INCOMPLETE));
    const char *v = tl_trace_reader_meta(r, key);
    TL_ASSERT_MSG(v, "%s: no %s", path, key);
    int64_t x = strtoll(v, NULL, 10);
    tl_trace_reader_close(&r);
    return x;
}

/* Processes no launcher gave a rank (a program's own workers) claim the
 * lowest rank free in the folder: the first holds 0 while the second
 * starts and takes 1 (before: both rank 0, the last to exit writing over
 * the other's trace.rank0.csv). Their traces say rank_from=claim and no
 * nranks; no claim file is left; a rank is free again once its process
 * ended, and a claim file nobody holds (a process killed) is no claim. */
TL_TEST(inject_ranks_claimed_without_a_launcher)
{
    const char *dir = tl_test_tmpdir();
    static const char *const none[] = {NULL};
    char err0[700], err1[700], p[700];
    snprintf(err0, sizeof err0, "%s/stderr0", dir);
    snprintf(err1, sizeof err1, "%s/stderr1", dir);
    int hold[2];
    TL_ASSERT_EQ(pipe(hold), 0);
    pid_t first = inject_start(dir, none, err0, hold[0]);
    /* the first has claimed rank 0 once its claim file holds its pid */
    snprintf(p, sizeof p, "%s/trace.rank0.claim", dir);
    for (int i = 0; i < 500; i++) {
        struct stat sb;
        if (stat(p, &sb) == 0 && sb.st_size > 0) break;
        usleep(10000);
    }
    inject_child(dir, none, err1);
    TL_ASSERT_EQ(write(hold[1], "x", 1), 1);
    close(hold[0]);
    close(hold[1]);
    inject_wait(first);
    char *said = tl_test_slurp(err1);
    TL_ASSERT_MSG(said && strstr(said, "rank 1 claimed in "), "%s", said ? said : "(no stderr)");
    free(said);
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
        char want[8];
        snprintf(want, sizeof want, "%d", r);
        assert_meta(p, "rank", want);
        assert_meta(p, "rank_from", "claim");
        assert_meta(p, "nranks", "(none)");
    }
    /* neither recorded a row (no GPU here): their windows are the probes'
     * lives, which overlap, so trilap-analyze reads one run with nothing
     * in it (before: each a point at its exit, "not of one run") */
    int64_t w[2][2];
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/trace.rank%d.csv", dir, r);
        w[r][0] = meta_i64(p, "window_start_ns");
        w[r][1] = meta_i64(p, "window_end_ns");
    }
    TL_ASSERT_MSG(w[0][0] < w[1][1] && w[1][0] < w[0][1], "windows %lld..%lld and %lld..%lld do not overlap",
                  (long long)w[0][0], (long long)w[0][1], (long long)w[1][0], (long long)w[1][1]);
    TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls %s | grep claim)\"", dir), 0);
    /* alone afterwards, and over a claim file nobody holds: rank 0 again */
    snprintf(p, sizeof p, "%s/trace.rank0.claim", dir);
    tl_test_write(p, "12345\n");
    TL_ASSERT_EQ(tl_test_sh("rm %s/trace.rank1.csv", dir), 0);
    inject_child(dir, none, err1);
    snprintf(p, sizeof p, "%s/trace.rank1.csv", dir);
    struct stat sb;
    TL_ASSERT_MSG(stat(p, &sb) != 0, "a process alone took rank 1");
    TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls %s | grep claim)\"", dir), 0);
    /* no claim possible (here a folder at the claim's name; an NFS mount
     * without locks): rank 0 unclaimed, said, the trace still written */
    snprintf(p, sizeof p, "%s/trace.rank0.claim", dir);
    TL_ASSERT_EQ(mkdir(p, 0755), 0);
    TL_ASSERT_EQ(tl_test_sh("rm %s/trace.rank0.csv", dir), 0);
    inject_child(dir, none, err1);
    said = tl_test_slurp(err1);
    TL_ASSERT_MSG(said && strstr(said, "rank 0 without a claim: processes tracing into "), "%s", said ? said : "");
    free(said);
    snprintf(p, sizeof p, "%s/trace.rank0.csv", dir);
    assert_meta(p, "rank", "0");
    assert_meta(p, "rank_from", "none");
}

/* TRILAP_TRACE_DIR takes nsys's patterns (%p, %h, %q{VAR}, %%): workers
 * started one after another each get a folder of their own. Without them
 * a later worker takes the rank an earlier one gave back, and says that
 * it writes over that trace. A pattern that cannot be expanded turns
 * tracing off, said, with no folder made. */
TL_TEST(inject_trace_dir_patterns)
{
    const char *top = tl_test_tmpdir();
    static const char *const tagged[] = {"TL_INJECT_TAG=trial", NULL};
    char dir[700], err[700], p[2000], host[256] = "";
    snprintf(err, sizeof err, "%s/stderr", top);
    snprintf(dir, sizeof dir, "%s/run.%%q{TL_INJECT_TAG}.%%p.%%h.100%%%%", top);
    pid_t pid = inject_start(dir, tagged, err, -1);
    inject_wait(pid);
    TL_ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
    snprintf(p, sizeof p, "%s/run.trial.%ld.%s.100%%/trace.rank0.csv", top, (long)pid, host);
    assert_meta(p, "rank_from", "claim");
    /* one after another into one folder: the second writes over the first's
     * trace, and says so, with advice that works as given (a %% stays %%) */
    snprintf(dir, sizeof dir, "%s/same%%%%", top);
    static const char *const none[] = {NULL};
    inject_child(dir, none, err);
    char *said = tl_test_slurp(err);
    TL_ASSERT_MSG(said && !strstr(said, "written over"), "%s", said ? said : "");
    free(said);
    inject_child(dir, none, err);
    said = tl_test_slurp(err);
    snprintf(p, sizeof p, "%s/same%%/trace.rank0.csv, an earlier process's, is written over at exit; "
             "TRILAP_TRACE_DIR=%s/%%p", top, dir);
    TL_ASSERT_MSG(said && strstr(said, p), "%s", said ? said : "");
    free(said);
    static const char *const bad[][2] = {{"%s/run.%%z", "unknown pattern '%z'"},
                                         {"%s/run.%%q{TL_INJECT_UNSET}", "%q{TL_INJECT_UNSET}: TL_INJECT_UNSET is not set"},
                                         {"%s/run.%%q{TL_INJECT_TAG", "unknown pattern '%q'"},
                                         {"%s/run.%%q{}", "%q{} names no variable"}};
    static const char *const empty[] = {"TL_INJECT_EMPTY=", NULL};
    inject_child("%q{TL_INJECT_EMPTY}", empty, err);
    said = tl_test_slurp(err);
    TL_ASSERT_MSG(said && strstr(said, "TRILAP_TRACE_DIR='%q{TL_INJECT_EMPTY}' names no folder once expanded") &&
                      strstr(said, "tracing off for this process"),
                  "%s", said ? said : "");
    free(said);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(dir, sizeof dir, bad[k][0], top);
        inject_child(dir, none, err);
        said = tl_test_slurp(err);
        TL_ASSERT_MSG(said && strstr(said, bad[k][1]) && strstr(said, "tracing off for this process"), "%s: %s", dir,
                      said ? said : "");
        free(said);
        TL_ASSERT_EQ(tl_test_sh("test -z \"$(ls %s | grep '^run\\.%%')\"", top), 0);
    }
}

/* The injection library takes its rank from torchrun's RANK / WORLD_SIZE
 * (and before SLURM_PROCID, the node's task under srun + torchrun). Before,
 * every process of a torchrun job was rank 0 and wrote over the others'
 * trace.rank0.csv. */
TL_TEST(inject_rank_from_torchrun)
{
    const char *dir = tl_test_tmpdir();
    static const char *const env[] = {"RANK=1", "WORLD_SIZE=2", "SLURM_PROCID=0", "SLURM_NTASKS=1", NULL};
    char err[700];
    snprintf(err, sizeof err, "%s/stderr", dir);
    inject_child(dir, env, err);
    struct stat sb;
    char p0[700], p1[700];
    snprintf(p0, sizeof p0, "%s/trace.rank0.csv", dir);
    snprintf(p1, sizeof p1, "%s/trace.rank1.csv", dir);
    TL_ASSERT_MSG(stat(p0, &sb) != 0, "%s written: the torchrun rank 1 taken for rank 0", p0);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, p1, TL_TRACE_ACCEPT_INCOMPLETE));
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "rank"), "1");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "nranks"), "2");
    TL_ASSERT_STREQ(tl_trace_reader_meta(r, "rank_from"), "RANK");
    tl_trace_reader_close(&r);
    /* RANK without WORLD_SIZE: no nranks (before: nranks=1, below the rank) */
    static const char *const alone[] = {"RANK=3", NULL};
    inject_child(dir, alone, err);
    snprintf(p1, sizeof p1, "%s/trace.rank3.csv", dir);
    assert_meta(p1, "nranks", "(none)");
}

/* The size comes from the launcher the rank came from, and only when it
 * is above the rank: each trace below is one the reader takes (before:
 * RANK=3 under srun said nranks=1 from SLURM_NTASKS, RANK=3 WORLD_SIZE=2
 * nranks=2, both refused by the reader; RANK=abc was passed over without
 * a word and WORLD_SIZE=2 said of a claimed rank). */
TL_TEST(inject_rank_and_size_of_one_launcher)
{
    static const struct {
        const char *env[3];
        const char *file, *from, *nranks, *said;
    } cases[] = {
        {{"RANK=3", "SLURM_NTASKS=1", NULL}, "trace.rank3.csv", "RANK", "(none)", NULL},
        {{"RANK=3", "WORLD_SIZE=2", NULL}, "trace.rank3.csv", "RANK", "(none)", "WORLD_SIZE=2 is not above RANK=3"},
        {{"RANK=1", "WORLD_SIZE=0", NULL}, "trace.rank1.csv", "RANK", "(none)", "WORLD_SIZE=0 is not above RANK=1"},
        {{"RANK=abc", "WORLD_SIZE=2", NULL}, "trace.rank0.csv", "claim", "(none)", "RANK='abc' is not a whole number"},
        {{"RANK=-1", "SLURM_PROCID=2", "SLURM_NTASKS=4"}, "trace.rank2.csv", "SLURM_PROCID", "4", "RANK='-1' is not"},
        {{"OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", NULL}, "trace.rank1.csv", "OMPI_COMM_WORLD_RANK", "2", NULL},
        {{"PMIX_RANK=1", "WORLD_SIZE=4", NULL}, "trace.rank1.csv", "PMIX_RANK", "(none)", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *dir = tl_test_tmpdir();
        const char *env[4] = {cases[k].env[0], cases[k].env[1], cases[k].env[2], NULL};
        char err[700], p[700];
        snprintf(err, sizeof err, "%s/stderr", dir);
        inject_child(dir, env, err);
        snprintf(p, sizeof p, "%s/%s", dir, cases[k].file);
        tl_trace_reader *r = NULL;
        TL_ASSERT_OK(tl_trace_reader_open(&r, p, TL_TRACE_ACCEPT_INCOMPLETE));
        tl_trace_reader_close(&r);
        assert_meta(p, "rank_from", cases[k].from);
        assert_meta(p, "nranks", cases[k].nranks);
        char *said = tl_test_slurp(err);
        TL_ASSERT_MSG(said && (!cases[k].said || strstr(said, cases[k].said)), "%s %s: %s", env[0], env[1],
                      said ? said : "");
        free(said);
    }
}

/* Every TRILAP_* variable the injection reads, set to what it cannot take,
 * turns tracing off, said on one line naming the variable and why; the
 * program's exit status is its own. Before: 'abc' was read as the default;
 * 0 was the default; 2^64-1 bytes traced with a buffer that never came;
 * TRILAP_CUPTI_KINDS=kernels enabled no kind at all and
 * TRILAP_CUPTI_API=drivr was the default, both without a word; a
 * TRILAP_LANES item that was not one was passed over, and a stream id
 * beyond 32 bits was cut to another stream's. */
TL_TEST(inject_bad_env_said)
{
    static const char *const bad[][2] = {
        {"TRILAP_BUFFER_BYTES=abc", "TRILAP_BUFFER_BYTES='abc' is not a whole number"},
        {"TRILAP_BUFFER_BYTES=-1", "TRILAP_BUFFER_BYTES='-1' is not a whole number"},
        {"TRILAP_BUFFER_BYTES= 4096", "TRILAP_BUFFER_BYTES=' 4096' is not a whole number"},
        {"TRILAP_BUFFER_BYTES=0", "TRILAP_BUFFER_BYTES='0' is not from 4096 to 1073741824"},
        {"TRILAP_BUFFER_BYTES=18446744073709551615", "TRILAP_BUFFER_BYTES='18446744073709551615' is not from 4096"},
        {"TRILAP_BUFFER_BYTES=99999999999999999999999", "TRILAP_BUFFER_BYTES='99999999999999999999999' is not from"},
        {"TRILAP_MAX_BUFFERS=8x", "TRILAP_MAX_BUFFERS='8x' is not a whole number"},
        {"TRILAP_MAX_BUFFERS=0", "TRILAP_MAX_BUFFERS='0' is not from 1 to 65536"},
        {"TRILAP_MAX_BUFFERS=2147483647", "TRILAP_MAX_BUFFERS='2147483647' is not from 1 to 65536"},
        {"TRILAP_CUPTI_KINDS=kernels", "TRILAP_CUPTI_KINDS='kernels': 'kernels' is not an activity kind (kernel, "},
        {"TRILAP_CUPTI_KINDS=,", "TRILAP_CUPTI_KINDS=',' names no activity kind"},
        {"TRILAP_CUPTI_API=drivr", "TRILAP_CUPTI_API='drivr' is neither 'driver' nor 'all'"},
        {"TRILAP_LANES=14:p2p,15:col", "TRILAP_LANES='14:p2p,15:col': '15:col' is not streamId:lane"},
        {"TRILAP_LANES=4294967296:p2p", "TRILAP_LANES='4294967296:p2p': '4294967296:p2p' is not streamId:lane"},
        /* an empty item was skipped, a stream given twice took its first lane */
        {"TRILAP_LANES=14:p2p,,15:coll", "TRILAP_LANES='14:p2p,,15:coll': an empty item"},
        {"TRILAP_LANES=14:p2p,14:coll", "TRILAP_LANES='14:p2p,14:coll': stream 14 given twice (p2p, then coll)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *dir = tl_test_tmpdir();
        const char *env[] = {bad[k][0], NULL};
        char err[700], p0[700];
        snprintf(err, sizeof err, "%s/stderr", dir);
        snprintf(p0, sizeof p0, "%s/trace.rank0.csv", dir);
        inject_child(dir, env, err);
        char *text = tl_test_slurp(err);
        TL_ASSERT_MSG(text && strstr(text, bad[k][1]) && strstr(text, "tracing off for this process"), "%s: %s",
                      bad[k][0], text ? text : "(no stderr)");
        free(text);
        struct stat sb;
        TL_ASSERT_MSG(stat(p0, &sb) != 0, "%s written with %s", p0, bad[k][0]);
    }
    /* what they take, taken */
    const char *dir = tl_test_tmpdir();
    static const char *const good[] = {"TRILAP_BUFFER_BYTES=4096",     "TRILAP_MAX_BUFFERS=65536",
                                       "TRILAP_CUPTI_KINDS=kernel,,sync", "TRILAP_CUPTI_API=driver",
                                       "TRILAP_LANES=14:p2p,4294967295:coll", NULL};
    char err[700], p0[700];
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(p0, sizeof p0, "%s/trace.rank0.csv", dir);
    inject_child(dir, good, err);
    assert_meta(p0, "buffer_bytes", "4096");
    assert_meta(p0, "max_buffers", "65536");
    assert_meta(p0, "stream.-1.14", "p2p p2p");
    assert_meta(p0, "stream.-1.4294967295", "coll coll");
}

/* A TRILAP_TRACE_DIR that cannot be traced into is said naming the
 * variable, once, tracing off; one with a space and a comma is used as
 * given. Before: a folder where nobody may write (sysfs, which root's
 * access() passes) got a false "rank 0 without a claim" line, and its
 * trace was lost at exit ("no trace written"). */
TL_TEST(inject_trace_dir_unusable)
{
    const char *top = tl_test_tmpdir();
    static const char *const none[] = {NULL};
    char dir[700], err[700], p[1600];
    snprintf(err, sizeof err, "%s/stderr", top);
    snprintf(dir, sizeof dir, "%s/afile", top);
    tl_test_write(dir, "x\n");
    inject_child(dir, none, err);
    char *said = tl_test_slurp(err);
    snprintf(p, sizeof p, "TRILAP_TRACE_DIR='%s': %s is not a folder", dir, dir);
    TL_ASSERT_MSG(said && strstr(said, p) && strstr(said, "tracing off for this process"), "%s", said ? said : "");
    free(said);
    struct stat sb;
    if (stat("/sys/kernel", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        inject_child("/sys/kernel", none, err);
        said = tl_test_slurp(err);
        TL_ASSERT_MSG(said && strstr(said, "TRILAP_TRACE_DIR='/sys/kernel': probes: cannot write in /sys/kernel: ") &&
                          strstr(said, "tracing off for this process") && !strstr(said, "without a claim") &&
                          !strstr(said, "no trace written"),
                      "%s", said ? said : "");
        free(said);
    }
    snprintf(dir, sizeof dir, "%s/a dir, with a comma", top);
    inject_child(dir, none, err);
    snprintf(p, sizeof p, "%s/trace.rank0.csv", dir);
    assert_meta(p, "rank", "0");
}

/* A traced process that forks a child calling exit() keeps its trace and
 * its rank claim (before: the child wrote the parent's trace.rank0.csv and
 * removed its claim file, so another process could claim rank 0 too). */
TL_TEST(inject_forked_child_leaves_the_trace)
{
    const char *dir = tl_test_tmpdir();
    static const char *const forks[] = {"TL_INJECT_FORK=1", NULL};
    char err[700], p[700];
    snprintf(err, sizeof err, "%s/stderr", dir);
    inject_child(dir, forks, err);
    snprintf(p, sizeof p, "%s/trace.rank0.csv", dir);
    assert_meta(p, "rank_from", "claim");
}

/* A rank file's name: trilap's own part in lower case, .gz in any case. */
TL_TEST(rank_file_names)
{
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank0.csv"), 0);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank12.csv"), 12);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank01.csv"), -2);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank99999999999.csv"), -2);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank.csv"), -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank1.CSV"), -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("TRACE.rank1.csv"), -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank1.csv.bz2"), -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank1.gz"), -1);
    const int zlib = strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") == 0;
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank3.csv.gz"), zlib ? 3 : -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank3.csv.GZ"), zlib ? 3 : -1);
    TL_ASSERT_EQ(tl_trace_rank_of_name("trace.rank3.csv.gZ"), zlib ? 3 : -1);
    if (!zlib) return;
    /* the path of a rank: the plain file first, else the gzipped one as it is spelled there */
    const char *t = tl_test_tmpdir();
    char p[600];
    tl_trace_rank_path(t, 2, p, sizeof p);
    TL_ASSERT_MSG(strstr(p, "/trace.rank2.csv.gz"), "%s", p); /* neither there: the name it would have */
    TL_ASSERT_EQ(tl_test_sh("touch %s/trace.rank2.csv.GZ", t), 0);
    tl_trace_rank_path(t, 2, p, sizeof p);
    TL_ASSERT_MSG(strstr(p, "/trace.rank2.csv.GZ"), "%s", p);
    TL_ASSERT_EQ(tl_test_sh("touch %s/trace.rank2.csv", t), 0);
    tl_trace_rank_path(t, 2, p, sizeof p);
    TL_ASSERT_MSG(strstr(p, "/trace.rank2.csv") && !strstr(p, ".csv."), "%s", p);
}

/* Reads path's metadata value of key into v (empty when absent). */
static void meta_into(const char *path, const char *key, char *v, size_t nv)
{
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, TL_TRACE_ACCEPT_INCOMPLETE));
    const char *s = tl_trace_reader_meta(r, key);
    snprintf(v, nv, "%s", s ? s : "");
    tl_trace_reader_close(&r);
}

/* A host range or iteration the trace does not hold must be counted
 * (dropped_host) and the trace marked incomplete, also when it is lost at
 * destroy, where the ranges still open are closed: deeper than the kept
 * 64 levels, or with the range or iteration arrays full. */
static int destroy_loses_one(const char *what, void (*lose)(tl_ctx *), size_t max_ranges, const char *dropped)
{
    const char *dir = tl_test_tmpdir();
    char sub[600], path[700], v[64];
    snprintf(sub, sizeof sub, "%s/%s", dir, what);
    tl_ctx ctx = host_ctx(0, 1);
    tl_probes_config pc = {.outdir = sub, .max_ranges = max_ranges};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    lose(&ctx);
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    snprintf(path, sizeof path, "%s/trace.rank0.csv", sub);
    char c[64];
    meta_into(path, "dropped_host", v, sizeof v);
    meta_into(path, "complete", c, sizeof c);
    int bad = strcmp(v, dropped) != 0 || strcmp(c, "no") != 0;
    if (bad) fprintf(stderr, "%s: dropped_host=%s complete=%s, want %s and no\n", what, v, c, dropped);
    return bad;
}

static void open_70_deep(tl_ctx *ctx)
{
    for (int d = 0; d < 70; d++)
        tl_probe_push(ctx, TL_CAT_RANGE, "deep");
}

static void open_one_when_full(tl_ctx *ctx)
{
    for (int i = 0; i < 2; i++) {
        tl_probe_push(ctx, TL_CAT_COMPUTE, "k");
        tl_probe_pop(ctx);
    }
    tl_probe_push(ctx, TL_CAT_COMPUTE, "left open");
}

static void iter_open_when_full(tl_ctx *ctx)
{
    tl_probe_iter_begin(ctx, 0);
    tl_probe_iter_begin(ctx, 1); /* closes 0, which fills the one slot */
}

TL_TEST(ranges_lost_at_destroy_counted)
{
    int bad = destroy_loses_one("deep", open_70_deep, 0, "6");
    bad += destroy_loses_one("full", open_one_when_full, 2, "1");
    bad += destroy_loses_one("iter", iter_open_when_full, 1, "1");
    TL_ASSERT_EQ(bad, 0);
}

/* ---- the command line in the trace's args -------------------------------- */

enum { LONG_ARGC = 70 };

/* argv of LONG_ARGC arguments, `total` bytes or so in all, into store
 * (a program name first, then argument k of k's digit repeated). */
static void long_argv(char *store, size_t cap, size_t total, char **argv)
{
    size_t per = total / LONG_ARGC, at = 0;
    for (int k = 0; k < LONG_ARGC; k++) {
        TL_ASSERT(at + per + 1 < cap);
        argv[k] = store + at;
        if (k == 0) {
            snprintf(store + at, per + 1, "prog");
            at += 5;
            continue;
        }
        memset(store + at, '0' + k % 10, per);
        store[at + per] = '\0';
        at += per + 1;
    }
    argv[LONG_ARGC] = NULL;
}

/* The args of a trace written by probes created on a context of argv. */
static void args_of_probes(char **argv, char *got, size_t cap)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    tl_ctx ctx = host_ctx(0, 1);
    ctx.argc = LONG_ARGC;
    ctx.argv = argv;
    tl_probes_config pc = {.outdir = dir, .cupti = 0, .nvtx = 0};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    const char *v = tl_trace_reader_meta(r, "args");
    snprintf(got, cap, "%s", v ? v : "(none)");
    tl_trace_reader_close(&r);
}

/* A command line of 70 arguments and 5,000 bytes is the trace's args
 * whole (before: cut at 2,047 bytes without a mark); one of 20,000 bytes
 * is cut as the writer cuts every long value, marked. */
TL_TEST(long_command_line_in_args)
{
    static char store[32768], got[32768];
    char *argv[LONG_ARGC + 1];
    long_argv(store, sizeof store, 5000, argv);
    char *want = tl_manifest_command(LONG_ARGC, argv);
    TL_ASSERT(want && strlen(want) > 4900);
    args_of_probes(argv, got, sizeof got);
    TL_ASSERT_MSG(!strcmp(got, want), "args of %zu bytes, the command line %zu", strlen(got), strlen(want));
    free(want);
    long_argv(store, sizeof store, 20000, argv);
    want = tl_manifest_command(LONG_ARGC, argv);
    args_of_probes(argv, got, sizeof got);
    char mark[64];
    snprintf(mark, sizeof mark, "...[%zu bytes, cut]", strlen(want));
    size_t n = strlen(got), m = strlen(mark);
    TL_ASSERT_MSG(n > m && !strcmp(got + n - m, mark), "args of %zu bytes, ending '%s'", n, n > 40 ? got + n - 40 : got);
    TL_ASSERT(!strncmp(got, want, n - m));
    free(want);
}

/* The injection library reads the traced program's command line from
 * /proc/self/cmdline: 70 arguments and 5,000 bytes are its args whole
 * (before: the first 4,095 bytes and 63 arguments, unmarked). */
TL_TEST(inject_long_command_line)
{
    char lib[600], helper[600];
    snprintf(lib, sizeof lib, "%s/lib/libtrilap-inject.so", tl_test_env("TL_BUILD", "build"));
    snprintf(helper, sizeof helper, "%s", tl_test_helper("helper_inject_args"));
    struct stat sb;
    if (stat(lib, &sb) != 0) TL_SKIP("%s not built", lib);
    static char store[32768], got[32768];
    char *argv[LONG_ARGC + 1];
    long_argv(store, sizeof store, 5000, argv);
    argv[0] = helper;
    argv[1] = lib;
    const char *dir = tl_test_tmpdir();
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        static const char *const launcher[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",
                                               "PMI_SIZE", "PMIX_RANK", "RANK", "WORLD_SIZE", "SLURM_PROCID",
                                               "SLURM_NTASKS"};
        for (size_t i = 0; i < sizeof launcher / sizeof launcher[0]; i++) unsetenv(launcher[i]);
        setenv("TRILAP_TRACE_DIR", dir, 1);
        execv(helper, argv);
        _exit(5);
    }
    inject_wait(pid);
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank0.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, TL_TRACE_ACCEPT_INCOMPLETE));
    const char *v = tl_trace_reader_meta(r, "args");
    snprintf(got, sizeof got, "%s", v ? v : "(none)");
    tl_trace_reader_close(&r);
    char *want = tl_manifest_command(LONG_ARGC, argv);
    TL_ASSERT(want && strlen(want) > 4900);
    TL_ASSERT_MSG(!strcmp(got, want), "args of %zu bytes, the command line %zu", strlen(got), strlen(want));
    free(want);
}

/* The peers a program declares of its point-to-point operations
 * (runtime/marks.h tl_mark_peers) are written as peers.<i> metadata, one
 * line per operation name in the order first declared, a name declared
 * again with its new sets; the sets sorted, once each and without this
 * rank; a rank without a neighbour says "none"; and they read back
 * (tl_trace_peers_parse). Without probes the call does nothing. */
TL_TEST(peers_written_and_read_back)
{
    const char *dir = tl_test_tmpdir();
    tl_ctx ctx = host_ctx(1, 4);
    static const int wait[] = {2, 0}, wait2[] = {2}, y[] = {0}, z[] = {3, 1, 3}, nccl[] = {0};
    const tl_mark_peerset one = {.rank = wait, .n = 2}, none = {.n = 0};
    const tl_mark_peerset phases[] = {{.rank = y, .n = 1}, {.rank = z, .n = 3}};
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, "halo_wait", &one, 1)); /* no probes: nothing */
    tl_probes_config pc = {.outdir = dir};
    TL_ASSERT_OK(tl_probes_create(&ctx, &pc));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, "halo_wait", &one, 1));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, "staged exchange", phases, 2));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, "halo_post", &none, 1));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, TL_MARK_NCCL_KERNELS, &(tl_mark_peerset){.rank = nccl, .n = 1}, 1));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_COLL, "a, b; c", phases, 2));
    TL_ASSERT_OK(tl_mark_peers(&ctx, TL_ROLE_P2P, "halo_wait", &(tl_mark_peerset){.rank = wait2, .n = 1}, 1));
    TL_ASSERT_OK(tl_probes_destroy(&ctx));
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank1.csv", dir);
    tl_trace_reader *r = NULL;
    TL_ASSERT_OK(tl_trace_reader_open(&r, path, 0));
    static const char *const want[] = {"2 p2p:halo_wait", "0;3 p2p:staged exchange", "none p2p:halo_post",
                                       "0 nccl:p2p", "0;3 coll:a, b; c"};
    for (int i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof key, "peers.%d", i);
        TL_ASSERT_STREQ(tl_trace_reader_meta(r, key), want[i]);
    }
    TL_ASSERT(!tl_trace_reader_meta(r, "peers.5"));
    tl_trace_peers tp;
    char why[128];
    TL_ASSERT_OK(tl_trace_peers_parse(tl_trace_reader_meta(r, "peers.1"), 1, 4, &tp, why, sizeof why));
    TL_ASSERT_STREQ(tp.name, "p2p:staged exchange");
    TL_ASSERT_EQ(tp.nsets, 2);
    TL_ASSERT(tp.first[1] - tp.first[0] == 1 && tp.rank[tp.first[0]] == 0);
    TL_ASSERT(tp.first[2] - tp.first[1] == 1 && tp.rank[tp.first[1]] == 3);
    tl_trace_peers_free(&tp);
    TL_ASSERT_OK(tl_trace_peers_parse(tl_trace_reader_meta(r, "peers.4"), 1, 4, &tp, why, sizeof why));
    TL_ASSERT_STREQ(tp.name, "coll:a, b; c");
    tl_trace_peers_free(&tp);
    TL_ASSERT_OK(tl_trace_peers_parse(tl_trace_reader_meta(r, "peers.2"), 1, 4, &tp, why, sizeof why));
    TL_ASSERT(tp.nsets == 1 && tp.first[1] == 0);
    tl_trace_peers_free(&tp);
    tl_trace_reader_close(&r);
}

TL_TEST_MAIN(peers_written_and_read_back, rank_file_names, host_ranges_trace, calls_without_probes_are_noops, cupti_off_and_unbalanced,
             dropped_ranges_mark_incomplete, many_names_and_deep_nesting, bad_config, thread_ranks,
             inject_rank_from_torchrun, inject_rank_and_size_of_one_launcher, inject_bad_env_said,
             inject_trace_dir_unusable, inject_forked_child_leaves_the_trace,
             inject_ranks_claimed_without_a_launcher, inject_trace_dir_patterns, ranges_lost_at_destroy_counted,
             long_command_line_in_args, inject_long_command_line)
