/* The registry of temporary outputs and the signal handler that removes
 * them (runtime/tmpfile.h). */
#include "runtime/tmpfile.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    TL_TMP_SLOTS = 256, /* temporary outputs open at once: a trace per rank thread, a few more */
    TL_TMP_PATH = 4096
};

/* slot states: free, being written by tl_tmpfile_add, holding a path */
enum { SLOT_FREE, SLOT_BUSY, SLOT_SET };

/* The documented exception to "no mutable globals" (tmpfile.h says why). */
static struct {
    atomic_int state[TL_TMP_SLOTS];
    atomic_long seq[TL_TMP_SLOTS]; /* registration order, for newest-first removal */
    char kind[TL_TMP_SLOTS];
    long bytes[TL_TMP_SLOTS]; /* TL_TMP_HEADER: the header's length */
    char path[TL_TMP_SLOTS][TL_TMP_PATH];
    atomic_long next;
    atomic_int quiet; /* tl_tmpfile_signal_quiet */
    char program[64];
} tl_tmp;

static tl_status add_slot(const char *path, tl_tmp_kind kind, long bytes);

tl_status tl_tmpfile_add(const char *path, tl_tmp_kind kind)
{
    return add_slot(path, kind, 0);
}

tl_status tl_tmpfile_add_header(const char *path, long header_bytes)
{
    return add_slot(path, TL_TMP_HEADER, header_bytes);
}

static tl_status add_slot(const char *path, tl_tmp_kind kind, long bytes)
{
    size_t n = strlen(path);
    TL_CHECK(n > 0 && n < TL_TMP_PATH, TL_ERR_INVAL, "temporary output name empty or too long: %s",
             path);
    for (int i = 0; i < TL_TMP_SLOTS; i++) {
        int want = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&tl_tmp.state[i], &want, SLOT_BUSY)) continue;
        memcpy(tl_tmp.path[i], path, n + 1);
        tl_tmp.kind[i] = (char)kind;
        tl_tmp.bytes[i] = bytes;
        atomic_store(&tl_tmp.seq[i], atomic_fetch_add(&tl_tmp.next, 1));
        atomic_store(&tl_tmp.state[i], SLOT_SET);
        return TL_OK;
    }
    return TL_FAIL(TL_ERR_NOMEM, "%s: more than %d temporary outputs at once", path, TL_TMP_SLOTS);
}

void tl_tmpfile_forget(const char *path)
{
    for (int i = 0; i < TL_TMP_SLOTS; i++) {
        if (atomic_load(&tl_tmp.state[i]) != SLOT_SET || strcmp(tl_tmp.path[i], path) != 0) continue;
        int want = SLOT_SET;
        if (atomic_compare_exchange_strong(&tl_tmp.state[i], &want, SLOT_BUSY)) {
            atomic_store(&tl_tmp.state[i], SLOT_FREE);
            return;
        }
    }
}

/* The signals that end a program with its unfinished outputs removed (the
 * files it finished, a slice, a results row, stay; the line says so): ^C,
 * kill and scancel, a closed terminal or ssh session, and a write past
 * the file size limit (ulimit -f), whose default leaves them behind. */
static const struct {
    int sig;
    const char *said;
} cleanup_signals[] = {
    {SIGINT, ": interrupted (SIGINT); unfinished outputs removed, finished files kept\n"},
    {SIGTERM, ": terminated (SIGTERM); unfinished outputs removed, finished files kept\n"},
    {SIGHUP, ": hung up (SIGHUP); unfinished outputs removed, finished files kept\n"},
    {SIGXFSZ, ": file size limit exceeded (SIGXFSZ); unfinished outputs removed, finished files kept\n"},
};
enum { NSIGNALS = sizeof cleanup_signals / sizeof cleanup_signals[0] };

static void cleanup_set(sigset_t *set)
{
    sigemptyset(set);
    for (int k = 0; k < NSIGNALS; k++) sigaddset(set, cleanup_signals[k].sig);
}

void tl_tmpfile_hold(sigset_t *old)
{
    sigset_t set;
    cleanup_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void tl_tmpfile_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Async-signal-safe: atomics, stat, unlink, rmdir. Files first, then
 * folders newest first, so that a folder made inside another goes before
 * it. */
static void remove_all(int forget)
{
    for (int i = 0; i < TL_TMP_SLOTS; i++) {
        if (atomic_load(&tl_tmp.state[i]) != SLOT_SET || tl_tmp.kind[i] == TL_TMP_FOLDER) continue;
        struct stat sb;
        if (tl_tmp.kind[i] == TL_TMP_FILE ||
            (stat(tl_tmp.path[i], &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= tl_tmp.bytes[i]))
            unlink(tl_tmp.path[i]);
        if (forget) atomic_store(&tl_tmp.state[i], SLOT_FREE);
    }
    for (;;) {
        int best = -1;
        long best_seq = -1;
        for (int i = 0; i < TL_TMP_SLOTS; i++)
            if (atomic_load(&tl_tmp.state[i]) == SLOT_SET && tl_tmp.kind[i] == TL_TMP_FOLDER &&
                atomic_load(&tl_tmp.seq[i]) > best_seq) {
                best = i;
                best_seq = atomic_load(&tl_tmp.seq[i]);
            }
        if (best < 0) break;
        rmdir(tl_tmp.path[best]); /* fails, as it should, when something is inside */
        atomic_store(&tl_tmp.state[best], SLOT_FREE);
    }
}

void tl_tmpfile_cleanup(void)
{
    remove_all(1);
}

static void put(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void on_signal(int sig)
{
    /* a second signal while cleaning up waits: the handler blocks them all */
    remove_all(1);
    if (!atomic_load(&tl_tmp.quiet)) {
        put(tl_tmp.program);
        for (int k = 0; k < NSIGNALS; k++)
            if (cleanup_signals[k].sig == sig) put(cleanup_signals[k].said);
    }
    _exit(128 + sig);
}

/* At exit: the program's report on stdout reached its file, or the run
 * that printed it does not count as a success (`> /dev/full`, a full disk
 * under a batch job's log). A reader that went away (`| head`) is not an
 * error. */
static void check_stdout(int status, void *installer)
{
    if (getpid() != (pid_t)(intptr_t)installer) return; /* a forked child's copy of stdout is not the report */
    int failed = ferror(stdout), err = 0;
    if (fflush(stdout) != 0) failed = 1, err = errno;
    if (failed && !err) {
        /* it failed in an earlier flush, its errno gone: a pipe whose
         * reader went away (SIGPIPE ignored, `| head`) polls as an error */
        struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
        if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP))) err = EPIPE;
        /* a device that refuses every write says why to an empty one
         * (/dev/full: ENOSPC); a regular file takes it and says nothing */
        else if (write(STDOUT_FILENO, "", 0) < 0) err = errno;
    }
    if (!failed || err == EPIPE) return;
    fprintf(stderr, "%s: standard output: write failed%s%s\n", tl_tmp.program, err ? ": " : "",
            err ? strerror(err) : "");
    if (status == 0) _exit(1);
}

void tl_tmpfile_signal_quiet(void)
{
    atomic_store(&tl_tmp.quiet, 1);
}

tl_status tl_tmpfile_handle_signals(const char *program)
{
    snprintf(tl_tmp.program, sizeof tl_tmp.program, "%s", program);
    if (on_exit(check_stdout, (void *)(intptr_t)getpid()) != 0) return TL_FAIL(TL_ERR_SYS, "on_exit failed");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    cleanup_set(&sa.sa_mask);
    for (int k = 0; k < NSIGNALS; k++) {
        struct sigaction old;
        /* a shell runs background jobs with SIGINT ignored, nohup SIGHUP:
         * keep them so */
        if (sigaction(cleanup_signals[k].sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        if (sigaction(cleanup_signals[k].sig, &sa, NULL) != 0)
            return TL_FAIL(TL_ERR_SYS, "sigaction(%s) failed", strsignal(cleanup_signals[k].sig));
    }
    return TL_OK;
}
