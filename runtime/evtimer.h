/* Device-side timing: a pair of CUDA events around an operation on its
 * stream, read back after the work completes, accumulated per operation.
 * This is the paper's cudaEventRecord breakdown (Sec. IV-C) for runs
 * without CUPTI, and what GPU backends report as per-operation times
 * (a host clock around an asynchronous enqueue measures nothing).
 *
 *   static const char *const ops[] = {"spmv", "dot", "update"};
 *   TL_TRY(tl_evtimer_create(&t, 3, ops));
 *   tl_evtimer_begin(t, OP_SPMV, s); ... launch on s ... tl_evtimer_end(t, OP_SPMV, s);
 *   ... after the run's device sync:
 *   TL_TRY(tl_evtimer_collect(t));
 *   TL_TRY(tl_evtimer_reduce(ctx, t, stats));   (max over ranks; collective)
 *
 * tl_evtimer_sample(t, k) times one call in k of each operation (the
 * first, then every k-th): a pair of events between two kernels may cost
 * the second its programmatic early launch, so timing every call slows
 * the loop it measures; the statistics say how many calls were timed
 * (count) of how many (calls), and a caller scales the total by calls /
 * count.
 *
 * Events come from a pool that grows as needed, so begin/end never sync.
 * An operation's begin and end go on the same stream; intervals of one
 * operation may nest in none of its own. */
#ifndef TL_EVTIMER_H
#define TL_EVTIMER_H

#include <stdint.h>

#include "runtime/ctx.h"

typedef struct tl_evtimer tl_evtimer;

typedef struct tl_evtimer_stat {
    const char *name;
    int64_t count;      /* completed pairs (the timed calls) */
    int64_t calls;      /* begin/end calls, timed or not (tl_evtimer_sample) */
    double total_s;     /* sum of elapsed times */
    double min_s, max_s;/* of one pair; 0 when count == 0 */
} tl_evtimer_stat;

/* names: nops operation names, kept by pointer (static strings). */
tl_status tl_evtimer_create(tl_evtimer **out, int nops, const char *const *names);
void tl_evtimer_destroy(tl_evtimer **t);
/* Time one call in every `every` (>= 1; 1, the default: every call). */
tl_status tl_evtimer_sample(tl_evtimer *t, int every);

#if TL_HAVE_CUDA
#include <cuda_runtime.h>
tl_status tl_evtimer_begin(tl_evtimer *t, int op, cudaStream_t s);
tl_status tl_evtimer_end(tl_evtimer *t, int op, cudaStream_t s);
#endif
/* Wait for every recorded pair, add their times, recycle the events. */
tl_status tl_evtimer_collect(tl_evtimer *t);
/* Forget the accumulated times (after warm-up). Pending pairs are dropped. */
tl_status tl_evtimer_reset(tl_evtimer *t);
int tl_evtimer_nops(const tl_evtimer *t);
tl_evtimer_stat tl_evtimer_stat_of(const tl_evtimer *t, int op);
/* out[nops]: totals, counts, calls and maxima reduced with MAX over ranks, min
 * with MIN (collective on ctx; call after collect on every rank). */
tl_status tl_evtimer_reduce(tl_ctx *ctx, const tl_evtimer *t, tl_evtimer_stat *out);

#endif
