/* The values every trilap-bench check relies on, shared by the host (C11,
 * unit-tested) and the kernels (CUDA) so the two cannot disagree.
 *
 * All values are small integers or multiples of 2^-10, exact in binary, so
 * every check compares with == : a sum over ranks is the same whatever
 * order NCCL adds in, and y += a*x repeated K times gives exactly K*a. */
#ifndef TL_BENCH_PATTERNS_H
#define TL_BENCH_PATTERNS_H

#include <stdint.h>

#ifdef __CUDACC__
#define TL_HD __host__ __device__ __forceinline__
#else
#define TL_HD static inline
#endif

/* Period of the element pattern; prime, so neighbouring sizes differ. */
#define TL_BENCH_PERIOD 1021

/* What rank `rank` sends (ring) or contributes (allreduce) at element j
 * in the check of repetition `salt`. At most (2^20)*1021 + 2^20 < 2^31. */
TL_HD double tl_bench_pattern(int rank, int salt, int64_t j)
{
    return (double)((int64_t)(rank + 1) * (j % TL_BENCH_PERIOD + 1) + (salt & 0xfffff));
}

/* The allreduce (sum) of tl_bench_pattern over ranks 0..nranks-1. */
TL_HD double tl_bench_pattern_sum(int nranks, int salt, int64_t j)
{
    int64_t tri = (int64_t)nranks * (nranks + 1) / 2;
    return (double)(tri * (j % TL_BENCH_PERIOD + 1) + (int64_t)nranks * (salt & 0xfffff));
}

/* DAXPY scheme: x = 1, y0 = 0, a = 2^-10: after K updates y = K * 2^-10. */
#define TL_BENCH_DAXPY_A (1.0 / 1024.0)
TL_HD double tl_bench_daxpy_expected(int64_t k)
{
    return (double)k * TL_BENCH_DAXPY_A;
}

/* What a check compares each element with. */
typedef enum {
    TL_EXPECT_CONST = 0, /* value */
    TL_EXPECT_PATTERN,   /* tl_bench_pattern(rank, salt, j) */
    TL_EXPECT_SUM,       /* tl_bench_pattern_sum(nranks, salt, j) */
} tl_bench_expect_kind;

typedef struct tl_bench_expect {
    tl_bench_expect_kind kind;
    int rank, nranks, salt;
    double value; /* CONST */
    double tol;   /* |got - expected| <= tol * max(1, |expected|); 0: exact */
} tl_bench_expect;

TL_HD double tl_bench_expect_value(const tl_bench_expect *e, int64_t j)
{
    switch (e->kind) {
    case TL_EXPECT_PATTERN:
        return tl_bench_pattern(e->rank, e->salt, j);
    case TL_EXPECT_SUM:
        return tl_bench_pattern_sum(e->nranks, e->salt, j);
    default:
        return e->value;
    }
}

/* 1 when `got` is wrong for element j. NaN is always wrong. */
TL_HD int tl_bench_expect_wrong(const tl_bench_expect *e, int64_t j, double got)
{
    double want = tl_bench_expect_value(e, j);
    if (e->tol == 0.0) return !(got == want);
    double scale = want < 0 ? -want : want;
    if (scale < 1.0) scale = 1.0;
    double d = got - want;
    if (d < 0) d = -d;
    return !(d <= e->tol * scale);
}

#endif
