/* Timing protocol of the papers: barrier + device sync before the clock,
 * device sync after, the maximum over ranks. */
#include "runtime/timing.h"

#include <stdlib.h>

#include "runtime/comm.h"
#include "runtime/gpu.h"

tl_status tl_time_start(tl_ctx *ctx, int64_t *t0_ns)
{
    if (ctx->gpu) TL_TRY(tl_gpu_sync_all(ctx, "timing start"));
    TL_TRY(tl_comm_barrier(ctx));
    *t0_ns = tl_clock_ns();
    return TL_OK;
}

tl_status tl_time_stop(tl_ctx *ctx, int64_t t0_ns, double *max_seconds)
{
    if (ctx->gpu) TL_TRY(tl_gpu_sync_all(ctx, "timing stop"));
    double s = (double)(tl_clock_ns() - t0_ns) * 1e-9;
    TL_TRY(tl_comm_allreduce(ctx, &s, 1, TL_DOUBLE, TL_MAX));
    *max_seconds = s;
    return TL_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

tl_stats tl_stats_of(double *samples, size_t n)
{
    tl_stats s = {0, 0, 0, 0, n};
    if (n == 0) return s;
    qsort(samples, n, sizeof *samples, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += samples[i];
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    s.mean = sum / (double)n;
    return s;
}
