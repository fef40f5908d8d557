/* A progress line on stderr for work that can run longer than a few
 * seconds, in the form tqdm and pv users read at a glance:
 *
 *   trilap-bench: stream --host  37% 37/100 reps [00:03<00:05, 12.3 reps/s]
 *
 * On a terminal the line redraws in place (at most 10 times a second) and
 * ends with a newline when the work ends. Off when stderr is not a terminal
 * (logs, pipes, CI) unless asked: --progress turns it on there too, and
 * then it prints a whole line at most once a second, so a log shows it
 * advancing without a carriage-return smear. stdout is never touched.
 *
 * The state lives in the caller's struct (no globals); one thread updates
 * it (rank 0 in a multi-rank run). */
#ifndef TL_PROGRESS_H
#define TL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef enum { TL_PROGRESS_AUTO = 0, TL_PROGRESS_ON, TL_PROGRESS_OFF } tl_progress_mode;

typedef struct tl_progress {
    char what[96];       /* "stream --host" */
    const char *unit;    /* "reps", "steps", ... (a string literal) */
    double total, done;
    int64_t t0_ns, last_ns;
    int on, tty, drawn;
    FILE *out;
} tl_progress;

/* Start counting `total` units of `what`. mode AUTO: on when stderr is a
 * terminal; ON (--progress): on everywhere; OFF: never. */
void tl_progress_begin(tl_progress *p, const char *what, double total, const char *unit, tl_progress_mode mode);
/* Same, writing to `out` and deciding "terminal" by `tty` (tests). */
void tl_progress_begin_on(tl_progress *p, FILE *out, int tty, const char *what, double total, const char *unit,
                          tl_progress_mode mode);
/* `done` units are complete; redraws when enough time has passed. */
void tl_progress_update(tl_progress *p, double done);
/* Before a log line on stderr: a line drawn in place on a terminal is
 * wiped, so the log starts at the margin; the next update draws it again. */
void tl_progress_clear(tl_progress *p);
/* The final line ("... 100% 100/100 reps [00:08, 12.1 reps/s]"), then off. */
void tl_progress_end(tl_progress *p);

/* The line as it would be drawn at `elapsed_s` (tests, and the one format). */
void tl_progress_format(const tl_progress *p, double elapsed_s, char *buf, size_t n);

/* --progress as a flag of a command's option table: the mode it asks for. */
static inline tl_progress_mode tl_progress_mode_of(int flag) { return flag ? TL_PROGRESS_ON : TL_PROGRESS_AUTO; }

#endif
