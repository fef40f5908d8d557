/* Iterations of an Nsight Systems export taken from the NVTX ranges a
 * program marks its steps with (--iter-nvtx [DOMAIN:]NAME; analysis/README.md,
 * "Iterations of other programs"), for the export reader (nsys.c). */
#ifndef TL_ANALYSIS_NSYS_ITERS_H
#define TL_ANALYSIS_NSYS_ITERS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/sqlite_lib.h"

typedef struct tl_an_nsys_step {
    int64_t start, end, row, num;
} tl_an_nsys_step;

/* A rank's step ranges, in time order and disjoint, and the iteration of
 * each launch seen so far by correlation id (an open-addressed table). */
typedef struct tl_an_nsys_steps {
    tl_an_nsys_step *s;
    size_t n;
    int64_t *key;
    int32_t *val;
    size_t cap, used;
} tl_an_nsys_steps;

/* The condition on an NVTX_EVENTS row (unaliased) that it is a trilap
 * "rank" mark of process ?1 (its globalPid): the threads holding one are
 * ranks when a process has several (probes_nvtx.c: ranks as threads). */
#define TL_AN_NSYS_RANK_MARK                                                                                          \
    "eventType = 34 AND int64Value IS NOT NULL AND coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) " \
    "= 'rank' AND globalTid / 16777216 * 16777216 = ?1 AND domainId IN (SELECT domainId FROM NVTX_EVENTS WHERE "     \
    "eventType = 75 AND globalTid / 16777216 * 16777216 = ?1 AND coalesce(text, (SELECT value FROM StringIds WHERE " \
    "id = textId)) = 'trilap')"
/* The rank threads of process ?1. */
#define TL_AN_NSYS_RANK_THREADS "(SELECT globalTid FROM NVTX_EVENTS WHERE " TL_AN_NSYS_RANK_MARK ")"

/* The ranges of process pid (thread tid, 0: every thread) that spec
 * names (a thread's: those pushed or started on it, and the start/end
 * ranges started on a thread of the process that is no rank), checked (one thread, no two overlapping) and numbered; none in
 * the whole export is refused naming the export's most frequent ranges.
 * TL_ERR_INVAL for what the command line asked that the export cannot give. */
tl_status tl_an_nsys_steps_load(const tl_an_sqlite *sq, tl_an_sqlite_db *db, const char *path, const char *spec,
                                int64_t pid, int64_t tid, tl_an_nsys_steps *out);
void tl_an_nsys_steps_free(tl_an_nsys_steps *s);
/* The iteration whose range holds t, -1 for none. */
int64_t tl_an_nsys_steps_at(const tl_an_nsys_steps *s, int64_t t);
/* The iteration of the step range at (start, row), -1 when it is none. */
int64_t tl_an_nsys_steps_row(const tl_an_nsys_steps *s, int64_t start, int64_t row);
/* A launch's iteration by its correlation id (iter < 0: kept as none). */
tl_status tl_an_nsys_steps_launch(tl_an_nsys_steps *s, int64_t corr, int64_t iter);
int64_t tl_an_nsys_steps_of_corr(const tl_an_nsys_steps *s, int64_t corr);

/* Ranges of process pid that look like steps: of the names followed by
 * a number 3 times or more, one that says step or iter, else the one whose
 * ranges cover the most time (name[n], their count; 0 when none). */
tl_status tl_an_nsys_steps_hint(const tl_an_sqlite *sq, tl_an_sqlite_db *db, int64_t pid, char *name, size_t n,
                                int64_t *count);

#endif
