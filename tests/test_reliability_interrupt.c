/* Nothing left behind (issue 32, family 6): the registry of temporary
 * outputs (runtime/tmpfile.h) removes files and the folders made for them
 * on an error path, and the programs remove them on SIGINT and SIGTERM,
 * say so and exit 130 or 143. The signal is sent at several moments of a
 * run (before the handlers are installed, while writing, while renaming,
 * after the end); whatever the moment, the output folder holds either the
 * complete output or nothing (the complete output also after a signal
 * that came once it was renamed into place: then the run exits 128 + sig
 * with its result written). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/results.h"
#include "runtime/tmpfile.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* Entries of `dir` other than . and .., as "a b c" (sorted by readdir). */
static int entries(const char *dir, char *names, size_t cap)
{
    DIR *d = opendir(dir);
    TL_ASSERT_MSG(d, "cannot open %s", dir);
    int n = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        strncat(names, e->d_name, cap - strlen(names) - 2);
        strncat(names, " ", cap - strlen(names) - 1);
    }
    closedir(d);
    return n;
}

static void empty_dir(const char *dir)
{
    TL_ASSERT_EQ(tl_test_sh("rm -rf %s/* %s/.[!.]* 2>/dev/null; true", dir, dir), 0);
}

/* Run argv with stdout and stderr to files in `logs`, send `sig` after
 * `delay_us`, and return the wait status. The child gets the default
 * dispositions: a test runner in the background runs with SIGINT
 * ignored, which the programs rightly keep. */
static int run_and_signal(char *const argv[], const char *logs, int sig, long delay_us)
{
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/out", logs);
    snprintf(err, sizeof err, "%s/err", logs);
    pid_t pid = fork();
    TL_ASSERT(pid >= 0);
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0) _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (delay_us > 0) {
        struct timespec ts = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
    }
    if (delay_us >= 0) kill(pid, sig); /* < 0: let it finish */
    int status = 0;
    TL_ASSERT(waitpid(pid, &status, 0) == pid);
    return status;
}

/* After one interrupted run of argv writing `output` into `dir`: either it
 * finished (exit 0, the output there and checked by `check`), or it was
 * interrupted (exit 128 + sig and saying so, or killed by the signal before
 * its handlers were installed) and `dir` is empty. Returns 1 when it was
 * interrupted. */
static int one(char *const argv[], const char *dir, const char *output, const char *logs, int sig, long delay_us,
               const char *check)
{
    empty_dir(dir);
    int status = run_and_signal(argv, logs, sig, delay_us);
    char names[4096], errp[600];
    int n = entries(dir, names, sizeof names);
    snprintf(errp, sizeof errp, "%s/err", logs);
    char *err = tl_test_slurp(errp);
    int interrupted = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        TL_ASSERT_MSG(n == 1 && !strncmp(names, output, strlen(output)), "%s after %ld us: finished, but %s holds: %s",
                      argv[0], delay_us, dir, names);
        if (check) TL_ASSERT_MSG(tl_test_sh("%s", check) == 0, "%s: the finished output fails: %s", output, check);
    } else {
        interrupted = 1;
        if (WIFEXITED(status)) {
            TL_ASSERT_MSG(WEXITSTATUS(status) == 128 + sig, "%s, signal %d after %ld us: exit %d:\n%s", argv[0], sig,
                          delay_us, WEXITSTATUS(status), err);
            TL_ASSERT_MSG(strstr(err, sig == SIGINT ? "interrupted (SIGINT); unfinished outputs removed, finished files kept"
                                                    : "terminated (SIGTERM); unfinished outputs removed, finished files kept"),
                          "%s: %s", argv[0], err);
        } else {
            TL_ASSERT_MSG(WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s: status %#x", argv[0], status);
        }
        /* a signal after the output was renamed into place finds it
         * committed, and a committed output stays (registry_error_path):
         * then it must be the whole output, nothing else */
        TL_ASSERT_MSG(n == 0 || (n == 1 && !strncmp(names, output, strlen(output))),
                      "%s, signal %d after %ld us: left behind in %s: %s", argv[0], sig, delay_us, dir, names);
        if (n == 1 && check)
            TL_ASSERT_MSG(tl_test_sh("%s", check) == 0, "%s: interrupted after its commit, the output fails: %s",
                          output, check);
    }
    free(err);
    return interrupted;
}

/* Several moments, both signals, and a run left to finish; at least one
 * run must have been caught after it started (the test would prove
 * nothing otherwise). */
static void moments(char *const argv[], const char *dir, const char *output, const char *logs, const char *check)
{
    static const long delays[] = {0, 1000, 3000, 10000, 30000, 60000, 120000, 250000, -1};
    int caught = 0, finished = 0;
    for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++)
        for (int s = 0; s < (delays[k] < 0 ? 1 : 2); s++) {
            int i = one(argv, dir, output, logs, s ? SIGTERM : SIGINT, delays[k], check);
            caught += i && delays[k] > 0;
            finished += !i;
        }
    TL_ASSERT_MSG(caught > 0, "%s: no run was interrupted", argv[0]);
    TL_ASSERT_MSG(finished > 0, "%s: not even the run left alone finished", argv[0]);
}

TL_TEST(matgen_tlcsr)
{
    const char *t = tl_test_tmpdir();
    char dir[600], logs[600], out[700], bin[600], check[2000];
    snprintf(dir, sizeof dir, "%s/out", t);
    snprintf(logs, sizeof logs, "%s/logs", t);
    mkdir(dir, 0755);
    mkdir(logs, 0755);
    snprintf(out, sizeof out, "%s/A.tlcsr", dir);
    snprintf(bin, sizeof bin, "%s/trilap-matgen", tl_test_bin());
    snprintf(check, sizeof check, "%s/trilap-matgen info %s | grep -q 'nonzeros: 6940000'", tl_test_bin(), out);
    char *argv[] = {bin, "poisson7", "100", out, NULL};
    moments(argv, dir, "A.tlcsr", logs, check);
}

TL_TEST(matgen_mtx_gz)
{
    const char *t = tl_test_tmpdir();
    char dir[600], logs[600], out[700], bin[600], check[2000];
    snprintf(dir, sizeof dir, "%s/out", t);
    snprintf(logs, sizeof logs, "%s/logs", t);
    mkdir(dir, 0755);
    mkdir(logs, 0755);
    snprintf(out, sizeof out, "%s/A.mtx.gz", dir);
    snprintf(bin, sizeof bin, "%s/trilap-matgen", tl_test_bin());
    snprintf(check, sizeof check, "%s/trilap-matgen info %s | grep -q 'rows: 125000'", tl_test_bin(), out);
    char *argv[] = {bin, "poisson7", "50", out, NULL};
    moments(argv, dir, "A.mtx.gz", logs, check);
}

TL_TEST(perfetto_output)
{
    const char *t = tl_test_tmpdir();
    char run[600], dir[600], logs[600], out[700], bin[600], p[700], check[2000];
    snprintf(run, sizeof run, "%s/run", t);
    snprintf(dir, sizeof dir, "%s/out", t);
    snprintf(logs, sizeof logs, "%s/logs", t);
    mkdir(run, 0755);
    mkdir(dir, 0755);
    mkdir(logs, 0755);
    /* a run of 200000 kernels: a JSON of some 25 MB */
    snprintf(p, sizeof p, "%s/trace.rank0.csv", run);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f, "# format=trilap-trace\n# version=1\n# rank=0\n# nranks=1\n# device=0\n# complete=yes\n"
               "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n");
    for (int k = 0; k < 200000; k++)
        fprintf(f, "0,0,%d,%s,%s,kernel,%s,%d,%d,%d,-1,%d\n", 1 + k % 2, k % 2 ? "coll" : "compute",
                k % 2 ? "coll" : "compute", k % 2 ? "ncclDevKernel_AllReduce_Sum_f64" : "spmv", 1000 * k,
                1000 * k + 900, k + 1, k / 10);
    TL_ASSERT(fclose(f) == 0);
    snprintf(out, sizeof out, "%s/t.json", dir);
    snprintf(bin, sizeof bin, "%s/trilap-analyze", tl_test_bin());
    snprintf(check, sizeof check, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", out);
    char *argv[] = {bin, "perfetto", run, "-o", out, NULL};
    moments(argv, dir, "t.json", logs, check);
}

/* The registry in-process: a file and the folders made for it go on an
 * error path; a folder that was there, or that holds something else,
 * stays; a forgotten (committed) file stays. */
TL_TEST(registry_error_path)
{
    const char *t = tl_test_tmpdir();
    char deep[700], tmp[800], kept[800], other[700];
    snprintf(deep, sizeof deep, "%s/a/b/c", t);
    TL_ASSERT_OK(tl_mkdir_p(deep));
    snprintf(tmp, sizeof tmp, "%s/out.tmp.1", deep);
    tl_test_write(tmp, "half");
    TL_ASSERT_OK(tl_tmpfile_add(tmp, TL_TMP_FILE));
    snprintf(other, sizeof other, "%s/x/y", t);
    TL_ASSERT_OK(tl_mkdir_p(other));
    snprintf(kept, sizeof kept, "%s/done.csv", other);
    TL_ASSERT_OK(tl_tmpfile_add(kept, TL_TMP_FILE));
    tl_test_write(kept, "whole");
    tl_tmpfile_forget(kept); /* renamed into place: the program's result */
    tl_tmpfile_cleanup();
    char names[4096];
    TL_ASSERT_EQ(entries(t, names, sizeof names), 1);
    TL_ASSERT_MSG(!strcmp(names, "x "), "left in %s: %s", t, names);
    TL_ASSERT_EQ(tl_test_sh("test -f %s", kept), 0);
    /* a name too long is refused, not cut */
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    TL_ASSERT(tl_tmpfile_add(big, TL_TMP_FILE) != TL_OK);
}

TL_TEST_MAIN(matgen_tlcsr, matgen_mtx_gz, perfetto_output, registry_error_path)
