/* Timing as the papers measure: warm-up, then barrier + device sync, host
 * CLOCK_MONOTONIC around many iterations, and the maximum over ranks. */
#ifndef TL_TIMING_H
#define TL_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/clock.h"
#include "runtime/ctx.h"


/* Barrier (and device sync when ctx->gpu is set), then the clock. */
tl_status tl_time_start(tl_ctx *ctx, int64_t *t0_ns);
/* Device sync, then the clock; the elapsed seconds, max over ranks. */
tl_status tl_time_stop(tl_ctx *ctx, int64_t t0_ns, double *max_seconds);

typedef struct tl_stats {
    double min, median, max, mean;
    size_t n;
} tl_stats;
/* Over n samples (the array is sorted in place). */
tl_stats tl_stats_of(double *samples, size_t n);

#endif
