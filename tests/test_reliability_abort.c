/* What a program leaves when it stops short (the second review of
 * runtime/ and probes/, each case failing before its fix):
 *   results_partial_write_undone   a row whose write(2) stops short (a
 *                                  full disk, ulimit -f) is taken back,
 *                                  the file as it was
 *   solve_sigxfsz_no_half_row      the same through trilap-solve under
 *                                  `ulimit -f`: exit 153, whole rows only
 *                                  (the write holds the signal off)
 *   solve_sigterm_no_open_block    SIGTERM mid-solve: the results file it
 *                                  started, still at its header, removed;
 *                                  the manifest block stays as begun, its
 *                                  line saying a stopped command keeps it
 *   launch_stuck_rank_cleans_up    a thread rank still running after the
 *                                  grace period: the launcher's abort
 *                                  removes temporaries and folders made
 *   claim_held_by_forked_child     a child forked without exec does not
 *                                  keep its parent's rank claim after the
 *                                  parent died (a record lock, not flock) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probes/rank_claim.h"
#include "runtime/launch.h"
#include "runtime/out.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static const char header[] = "a,b,c";

/* Entries of dir other than . and .. (recursively one level), as text. */
static void entries(const char *dir, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && find . -mindepth 1 | sort | tr '\\n' ' '", dir);
    tl_test_sh_to(out, cap, "%s", cmd);
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

TL_TEST(results_partial_write_undone)
{
    const char *dir = tl_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/r.csv", dir);
    TL_ASSERT_EQ(tl_results_append(path, header, "1,2,3", NULL), TL_OK);
    long before = file_size(path);
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        /* room for 10 more bytes: the row's write stops there, as on a
         * full disk; SIGXFSZ ignored so that write(2) says EFBIG */
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {(rlim_t)before + 10, (rlim_t)before + 10};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
        char row[200];
        memset(row, '7', sizeof row - 1);
        row[sizeof row - 1] = '\0';
        row[1] = row[3] = ',';
        _exit(tl_results_append(path, header, row, NULL) == TL_OK ? 0 : 1);
    }
    int status = 0;
    TL_ASSERT(waitpid(pid, &status, 0) == pid);
    TL_ASSERT_EQ(tl_test_exit_code(status), 1); /* the append failed, and said so */
    char *text = tl_test_slurp(path);
    TL_ASSERT_MSG(file_size(path) == before, "a failed append left %ld bytes where %ld were: '%s'", file_size(path),
                  before, text);
    free(text);
}

/* A results file of rows, near 4 KiB: bash's `ulimit -f 4` (KiB; dash
 * counts 512-byte blocks) stops the next row inside. */
static void fill_to_near_4k(const char *path)
{
    TL_ASSERT_EQ(tl_test_sh("python3 - '%s' <<'EOF'\n"
                            "import sys\n"
                            "p = sys.argv[1]\n"
                            "h = open(p).read().splitlines()\n"
                            "s = h[0] + '\\n'\n"
                            "while len(s) + len(h[1]) + 1 < 4096 - 60: s += h[1] + '\\n'\n"
                            "open(p, 'w').write(s)\n"
                            "EOF",
                            path),
                 0);
}

TL_TEST(solve_sigxfsz_no_half_row)
{
    const char *dir = tl_test_tmpdir();
    char bin[512], path[600];
    snprintf(bin, sizeof bin, "%s", realpath(tl_test_bin(), NULL));
    snprintf(path, sizeof path, "%s/r.csv", dir);
    const char *solve = "trilap-solve --backend host gen:poisson7:8 --warmup 0";
    TL_ASSERT_EQ(tl_test_sh("cd %s && %s/%s --repeat 1 --results r.csv >/dev/null 2>&1", dir, bin, solve), 0);
    fill_to_near_4k(path);
    char err[1024] = "";
    int rc = tl_test_sh_to(err, sizeof err, "cd %s && bash -c 'ulimit -f 4; exec \"$0\" \"$@\" 2>&1 >/dev/null' %s/%s --repeat 3 --results r.csv",
                           dir, bin, solve);
    TL_ASSERT_EQ(rc, 153);
    TL_ASSERT(strstr(err, "SIGXFSZ") != NULL);
    /* every line a whole row, the file ending with its newline */
    char *text = tl_test_slurp(path);
    size_t n = strlen(text);
    TL_ASSERT_MSG(n > 0 && text[n - 1] == '\n', "r.csv ends inside a row: '...%s'", text + (n > 60 ? n - 60 : 0));
    free(text);
}

TL_TEST(solve_sigterm_no_open_block)
{
    const char *dir = tl_test_tmpdir();
    char bin[512], out[256] = "";
    snprintf(bin, sizeof bin, "%s", realpath(tl_test_bin(), NULL));
    /* the block is begun before the first solve; the signal comes during it */
    int rc = tl_test_sh_to(out, sizeof out,
                           "cd %s && { %s/trilap-solve --backend host gen:poisson7:64 --max-iterations 100000 --rtol 0 "
                           "--results r.csv >out.txt 2>err.txt & p=$!; "
                           "for i in $(seq 200); do grep -q results_lines manifest.txt 2>/dev/null && break; sleep 0.05; "
                           "done; sleep 0.5; kill -TERM $p; wait $p; echo $?; }",
                           dir, bin);
    TL_ASSERT_EQ(rc, 0);
    TL_ASSERT_EQ(atoi(out), 143);
    char csv[600], manifest[600];
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(manifest, sizeof manifest, "%s/manifest.txt", dir);
    char *m = tl_test_slurp_or_null(manifest);
    long size = file_size(csv);
    /* the block stays as begun: a signal handler cannot rewrite the
     * manifest (not async-signal-safe), and the begun block's line says
     * what a reader needs, that a command which stopped early keeps it */
    int open_block = m && strstr(m, "(while the command runs; one that stopped early keeps this line") != NULL;
    free(m);
    TL_ASSERT_MSG(open_block, "after SIGTERM manifest.txt lacks the begun block's line");
    /* as tl_manifest_abort does for a failure: a results file made and
     * left at its header is removed (before, it stayed with its header) */
    TL_ASSERT_MSG(size < 0, "after SIGTERM r.csv (made by the command, no row) is left with %ld bytes", size);
}

enum { STUCK_SLEEP_S = 5 };

/* Rank 0 has an output open (a temporary in a folder it made) and keeps
 * computing; rank 1 fails. */
static tl_status stuck_rank(tl_ctx *ctx, void *arg)
{
    const char *path = arg;
    if (ctx->rank == 1) return TL_FAIL(TL_ERR_INVAL, "induced failure");
    tl_out o;
    TL_TRY(tl_out_open(&o, path));
    fputs("x\n", o.f);
    fflush(o.f);
    struct timespec nap = {STUCK_SLEEP_S, 0};
    nanosleep(&nap, NULL);
    return tl_out_close(&o, 1);
}

TL_TEST(launch_stuck_rank_cleans_up)
{
    const char *dir = tl_test_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/made/out.csv", dir);
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        setenv("TRILAP_ABORT_GRACE_S", "0.5", 1);
        tl_launch_opts lo = {.launcher = TL_LAUNCH_THREADS, .ranks = 2, .no_gpu = 1, .timeout_s = 300};
        char *argv[] = {"test_review_rp2", NULL};
        int rc = tl_launch_run("test_review_rp2", &lo, 1, argv, stuck_rank, path);
        tl_tmpfile_cleanup(); /* main's error path, as the programs have it */
        _exit(rc);
    }
    int status = 0;
    TL_ASSERT(waitpid(pid, &status, 0) == pid);
    TL_ASSERT_EQ(tl_test_exit_code(status), 1);
    char left[2048] = "";
    entries(dir, left, sizeof left);
    TL_ASSERT_MSG(left[0] == '\0', "after the stuck rank's abort, left in the output folder: %s", left);
}

TL_TEST(claim_held_by_forked_child)
{
    const char *dir = tl_test_tmpdir();
    int ready[2];
    TL_ASSERT_EQ(pipe(ready), 0);
    pid_t claimer = fork();
    TL_ASSERT(claimer >= 0);
    if (claimer == 0) {
        tl_rank_claim c;
        if (tl_probes_rank_claim(dir, &c) != TL_OK || c.rank != 0) _exit(3);
        /* a worker forked without exec (multiprocessing's fork), which
         * outlives the traced process */
        pid_t worker = fork();
        if (worker == 0) {
            close(ready[0]);
            sleep(STUCK_SLEEP_S);
            _exit(0);
        }
        /* the traced process crashes: no release */
        if (write(ready[1], "k", 1) != 1) _exit(4);
        abort();
    }
    close(ready[1]);
    char k = 0;
    TL_ASSERT_EQ(read(ready[0], &k, 1), 1);
    int status = 0;
    TL_ASSERT(waitpid(claimer, &status, 0) == claimer);
    TL_ASSERT(WIFSIGNALED(status));
    tl_rank_claim next;
    TL_ASSERT_EQ(tl_probes_rank_claim(dir, &next), TL_OK);
    int got = next.rank;
    tl_probes_rank_release(&next);
    TL_ASSERT_MSG(got == 0, "the claimer died, yet the next process gets rank %d: its forked worker holds rank 0", got);
}

TL_TEST_MAIN(results_partial_write_undone, solve_sigxfsz_no_half_row, solve_sigterm_no_open_block,
             launch_stuck_rank_cleans_up, claim_held_by_forked_child)
