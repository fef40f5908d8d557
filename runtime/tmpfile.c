/* The registry of temporary outputs and the SIGINT/SIGTERM handler that
 * removes them (runtime/tmpfile.h). */
#include "runtime/tmpfile.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
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
    char path[TL_TMP_SLOTS][TL_TMP_PATH];
    atomic_long next;
    char program[64];
} tl_tmp;

tl_status tl_tmpfile_add(const char *path, tl_tmp_kind kind)
{
    size_t n = strlen(path);
    TL_CHECK(n > 0 && n < TL_TMP_PATH, TL_ERR_INVAL, "temporary output name empty or too long: %s",
             path);
    for (int i = 0; i < TL_TMP_SLOTS; i++) {
        int want = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&tl_tmp.state[i], &want, SLOT_BUSY)) continue;
        memcpy(tl_tmp.path[i], path, n + 1);
        tl_tmp.kind[i] = (char)kind;
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

void tl_tmpfile_hold(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void tl_tmpfile_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Async-signal-safe: atomics, unlink, rmdir. Files first, then folders
 * newest first, so that a folder made inside another goes before it. */
static void remove_all(int forget)
{
    for (int i = 0; i < TL_TMP_SLOTS; i++)
        if (atomic_load(&tl_tmp.state[i]) == SLOT_SET && tl_tmp.kind[i] == TL_TMP_FILE) {
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
    /* a second signal while cleaning up waits: the handler blocks both */
    remove_all(1);
    put(tl_tmp.program);
    put(sig == SIGINT ? ": interrupted (SIGINT); temporary outputs removed\n"
                      : ": terminated (SIGTERM); temporary outputs removed\n");
    _exit(128 + sig);
}

tl_status tl_tmpfile_handle_signals(const char *program)
{
    snprintf(tl_tmp.program, sizeof tl_tmp.program, "%s", program);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    const int sigs[2] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        struct sigaction old;
        /* a shell runs background jobs with SIGINT ignored: keep it so */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        if (sigaction(sigs[k], &sa, NULL) != 0)
            return TL_FAIL(TL_ERR_SYS, "sigaction(%s) failed", sigs[k] == SIGINT ? "SIGINT" : "SIGTERM");
    }
    return TL_OK;
}
