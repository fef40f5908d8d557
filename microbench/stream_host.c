/* Host STREAM: BabelStream's copy, mul, add, triad and dot with OpenMP
 * (first-touch initialisation in parallel, so pages land near the threads
 * that use them). Verified against tl_stream_gold_of. */
#include "microbench/bench.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "config.h"
#include "runtime/clock.h"
#include "runtime/hostmem.h"
#include "runtime/progress.h"
#include "runtime/timing.h"

#if TL_HAVE_OPENMP
#include <omp.h>
#define TL_OMP_FOR _Pragma("omp parallel for schedule(static)")
#define TL_OMP_FOR_SUM _Pragma("omp parallel for schedule(static) reduction(+ : sum)")
#else
#define TL_OMP_FOR
#define TL_OMP_FOR_SUM
#endif

enum { F_COPY, F_MUL, F_ADD, F_TRIAD, F_DOT, F_COUNT };
static const char *const fnames[F_COUNT] = {"copy", "mul", "add", "triad", "dot"};

/* The team a parallel region gets, as the loops below do: omp_get_max_threads
 * is the number asked for, which OMP_THREAD_LIMIT or OMP_DYNAMIC may cut
 * (OMP_NUM_THREADS=4 OMP_THREAD_LIMIT=1: the preamble said 4 threads beside
 * a bandwidth of one) */
int tl_stream_host_threads(void)
{
#if TL_HAVE_OPENMP
    int team = 1;
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    return team;
#else
    return 1;
#endif
}

/* Elements far from their analytic value (BabelStream's relative epsilon). */
static int64_t count_far(const double *x, int64_t n, double want)
{
    tl_bench_expect e = {.kind = TL_EXPECT_CONST, .value = want, .tol = 1e-8};
    return tl_bench_count_wrong(x, n, &e);
}

tl_status tl_stream_host(int64_t n, int64_t iters, int progress, tl_stream_row rows[5])
{
    TL_CHECK(n > 0 && iters >= 2, TL_ERR_INVAL, "n=%lld iters=%lld", (long long)n,
             (long long)iters);
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *c = malloc((size_t)n * sizeof *c);
    double *t = calloc((size_t)(F_COUNT * iters), sizeof *t);
    tl_status st = TL_OK;
    if (!a || !b || !c || !t) {
        /* the reason in the line itself: without --debug only the context is said */
        char need[32];
        st = TL_FAIL(TL_ERR_NOMEM, "cannot allocate 3 host arrays of %lld doubles (%s): out of memory", (long long)n,
                     tl_bytes_str(3.0 * 8.0 * (double)n, need, sizeof need));
        goto fail;
    }
    TL_OMP_FOR
    for (int64_t i = 0; i < n; i++) {
        a[i] = TL_STREAM_INIT_A;
        b[i] = TL_STREAM_INIT_B;
        c[i] = TL_STREAM_INIT_C;
    }
    const double s = TL_STREAM_SCALAR;
    double sum = 0;
    tl_progress bar;
    tl_progress_begin(&bar, "stream --host", (double)iters, "calls", tl_progress_mode_of(progress));
    for (int64_t k = 0; k < iters; k++) {
        int64_t t0 = tl_clock_ns();
        TL_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i];
        int64_t t1 = tl_clock_ns();
        TL_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            b[i] = s * c[i];
        int64_t t2 = tl_clock_ns();
        TL_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            c[i] = a[i] + b[i];
        int64_t t3 = tl_clock_ns();
        TL_OMP_FOR
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        int64_t t4 = tl_clock_ns();
        sum = 0;
        TL_OMP_FOR_SUM
        for (int64_t i = 0; i < n; i++)
            sum += a[i] * b[i];
        int64_t t5 = tl_clock_ns();
        int64_t ts[F_COUNT + 1] = {t0, t1, t2, t3, t4, t5};
        for (int f = 0; f < F_COUNT; f++)
            t[f * iters + k] = (double)(ts[f + 1] - ts[f]) * 1e-9;
        tl_progress_update(&bar, (double)(k + 1));
    }
    tl_progress_end(&bar);
    tl_stream_gold g = tl_stream_gold_of(iters, n);
    int64_t wrong[F_COUNT] = {0};
    /* the last add left c, mul b, triad a; copy is checked through c as BabelStream does */
    wrong[F_COPY] = count_far(c, n, g.c);
    wrong[F_MUL] = count_far(b, n, g.b);
    wrong[F_ADD] = wrong[F_COPY];
    wrong[F_TRIAD] = count_far(a, n, g.a);
    wrong[F_DOT] = fabs(sum - g.sum) > 1e-8 * fabs(g.sum);
    for (int f = 0; f < F_COUNT; f++) {
        double mn = INFINITY, mx = 0, total = 0;
        for (int64_t k = 1; k < iters; k++) { /* the first call is dropped */
            double x = t[f * iters + k];
            mn = fmin(mn, x);
            mx = fmax(mx, x);
            total += x;
        }
        int64_t bytes = tl_stream_bytes(fnames[f], n);
        rows[f] = (tl_stream_row){.function = fnames[f],
                                  .rank = 0,
                                  .device = "host",
                                  .bytes = bytes,
                                  .gbs = (double)bytes / mn * 1e-9,
                                  .min_ms = mn * 1e3,
                                  .max_ms = mx * 1e3,
                                  .avg_ms = total / (double)(iters - 1) * 1e3,
                                  .wrong = wrong[f]};
        if (wrong[f]) st = TL_ERR_NUMERIC;
    }
fail:
    free(a);
    free(b);
    free(c);
    free(t);
    return st;
}
