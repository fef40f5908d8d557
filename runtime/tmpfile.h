/* Temporary outputs that must not outlive the program that writes them.
 *
 * Every writer that writes under a temporary name and renames on success
 * (solvers/matrix/outfile.c, probes/trace_write.c, runtime/results.c,
 * analysis/table.c) registers the temporary name here while it exists, and
 * every folder made for an output is registered as it is made. A program
 * that installs the handlers (tl_tmpfile_handle_signals, first thing in
 * main) then removes them on SIGINT, SIGTERM, SIGHUP and SIGXFSZ, says
 * why it stopped, and exits 128 + the signal; on an error path main calls
 * tl_tmpfile_cleanup.
 *
 * The registry is the one piece of process-wide mutable state in trilap:
 * a signal handler has no context to be passed, so what it removes must be
 * reachable from a fixed place. Its slots are claimed with atomics (rank
 * threads write trace files at once) and read by the handler without
 * locks; the handler calls only async-signal-safe functions. */
#ifndef TL_TMPFILE_H
#define TL_TMPFILE_H

#include <signal.h>

#include "runtime/error.h"

typedef enum {
    TL_TMP_FILE,   /* unlinked on cleanup */
    TL_TMP_FOLDER, /* removed on cleanup when empty (made for an output) */
    TL_TMP_HEADER  /* a results file the command started: unlinked on cleanup while it holds no more than its header
                      (tl_tmpfile_add_header) */
} tl_tmp_kind;

/* Remember `path` until tl_tmpfile_forget(path). TL_ERR_INVAL when the
 * name is too long, TL_ERR_NOMEM when every slot is taken. */
tl_status tl_tmpfile_add(const char *path, tl_tmp_kind kind);
/* A results file this command started, whose header is `header_bytes`
 * long: a signal or an error path removes it while no row was added to
 * it, as tl_manifest_abort does (before, a SIGTERM left a results file of
 * its header alone). */
tl_status tl_tmpfile_add_header(const char *path, long header_bytes);
/* The temporary file was renamed or removed: nothing to clean up. */
void tl_tmpfile_forget(const char *path);
/* Remove every registered file, then every registered folder that is
 * empty, newest first; forget them. For main's error path. */
void tl_tmpfile_cleanup(void);
/* Hold those signals off in this thread between creating a
 * temporary file and registering it (or renaming it and forgetting it),
 * so that no signal lands in between; release restores the old mask. In a
 * program with several threads another thread may still take the signal:
 * the window is a few instructions. */
void tl_tmpfile_hold(sigset_t *old);
void tl_tmpfile_release(const sigset_t *old);
/* What a program leaves when it ends. Install handlers for SIGINT,
 * SIGTERM, SIGHUP and SIGXFSZ that clean up, print
 * "<program>: interrupted (SIGINT); unfinished outputs removed, finished files kept" on stderr
 * and _exit(128 + signal); and check at exit that stdout took what was
 * printed: if not, one line, and a run that would have exited 0 exits 1.
 * Programs call it first thing in main; libraries never do (the
 * injection library lives in other people's processes). */
tl_status tl_tmpfile_handle_signals(const char *program);
/* Under mpirun a ^C reaches every rank (mpirun passes it on as SIGTERM),
 * and each said "terminated (SIGTERM)": one line per rank. The launcher
 * keeps the handler of every MPI rank but 0 from saying it (the outputs
 * are removed all the same); mpirun names a rank that ended alone. */
void tl_tmpfile_signal_quiet(void);

#endif
