/* The tristream figures derived from the measured medians, the nccl-tests
 * bus-bandwidth factors, and the host-side correctness formulas. */
#include "microbench/bench.h"

#include <math.h>
#include <string.h>

double tl_overlap_efficiency(double sum_parts, double max_part, double t)
{
    if (!isfinite(sum_parts) || !isfinite(max_part) || !isfinite(t)) return NAN;
    double room = sum_parts - max_part; /* what perfect overlap would save */
    if (!(room > 0)) return NAN;
    return (sum_parts - t) / room;
}

static const tl_tristream_row *find_row(const tl_tristream_row *rows, size_t n, int variant)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].variant && strcmp(rows[i].variant, tl_tristream_variants[variant].name) == 0)
            return &rows[i];
    return NULL;
}

void tl_tristream_derive(tl_tristream_row *rows, size_t n)
{
    const tl_tristream_row *ar = find_row(rows, n, TL_VAR_ALLREDUCE_ONLY);
    const tl_tristream_row *ring = find_row(rows, n, TL_VAR_RING_ONLY);
    const tl_tristream_row *dx = find_row(rows, n, TL_VAR_DAXPY_ONLY);
    const tl_tristream_row *two = find_row(rows, n, TL_VAR_TWO_STREAM);
    double bound = NAN, sum = NAN;
    if (ar && ring && dx) {
        bound = fmax(ar->median_us, fmax(ring->median_us, dx->median_us));
        sum = ar->median_us + ring->median_us + dx->median_us;
    }
    for (size_t i = 0; i < n; i++) {
        tl_tristream_row *r = &rows[i];
        int single = r == ar || r == ring || r == dx;
        r->speedup =
            two && two->median_us > 0 && r->median_us > 0 ? two->median_us / r->median_us : NAN;
        r->bound_us = single ? NAN : bound;
        r->eff_pct = single ? NAN : 100.0 * tl_overlap_efficiency(sum, bound, r->median_us);
    }
}

double tl_busbw_factor(const char *op, int nranks)
{
    if (strcmp(op, "allreduce") == 0)
        return nranks > 0 ? 2.0 * (double)(nranks - 1) / (double)nranks : 0.0;
    return 1.0; /* sendrecv, as nccl-tests */
}

int64_t tl_bench_count_wrong(const double *buf, int64_t n, const tl_bench_expect *e)
{
    int64_t wrong = 0;
    for (int64_t j = 0; j < n; j++)
        wrong += tl_bench_expect_wrong(e, j, buf[j]);
    return wrong;
}

tl_stream_gold tl_stream_gold_of(int64_t iters, int64_t n)
{
    /* replays the kernels' order on scalars, as BabelStream's check does */
    double a = TL_STREAM_INIT_A, b = TL_STREAM_INIT_B, c = TL_STREAM_INIT_C;
    const double s = TL_STREAM_SCALAR;
    for (int64_t i = 0; i < iters; i++) {
        c = a;
        b = s * c;
        c = a + b;
        a = b + s * c;
    }
    return (tl_stream_gold){.a = a, .b = b, .c = c, .sum = a * b * (double)n};
}

int64_t tl_stream_bytes(const char *function, int64_t n)
{
    int64_t arrays = strcmp(function, "add") == 0 || strcmp(function, "triad") == 0 ? 3 : 2;
    return arrays * n * (int64_t)sizeof(double);
}
