/* Division by a number fixed before a kernel starts: n / d for 0 <= n <
 * 2^31 as a multiply-high and a shift (Granlund and Montgomery, PLDI
 * 1994), the multiplier made on the host and passed in the kernel's
 * parameters. A GPU has no integer divide unit: nvcc makes a division
 * by a run-time divisor a 64-bit division with a 32-bit fast path, each
 * a sequence of about twenty instructions, and a banded block walk
 * (fdtd_vec.cu's block_of) divided its block index four times, once per
 * warp (PTX of stencil/fdtd_vec.cu, sm_90). With p =
 * 31 + ceil(log2 d) and mul = ceil(2^p / d) = (2^p + e) / d, 0 <= e < d
 * <= 2^(p - 31), the error e n / 2^p stays below 1 / d for n < 2^31, so
 * the quotient is exact there. Plain C for the host (tests/test_fdtd.c
 * checks it against `/`), the same code in CUDA. */
#ifndef TL_FAST_DIV_H
#define TL_FAST_DIV_H

#include <stdint.h>

#ifdef __CUDACC__
#define TL_FAST_DIV_FN __host__ __device__ static inline
#else
#define TL_FAST_DIV_FN static inline
#endif

typedef struct tl_fast_div {
    uint32_t d;     /* the divisor, at least 1 */
    uint32_t mul;   /* ceil(2^p / d); 0 for d = 1 */
    uint32_t shift; /* p - 32 */
} tl_fast_div;

/* d >= 1 */
TL_FAST_DIV_FN tl_fast_div tl_fast_div_of(uint32_t d)
{
    tl_fast_div f = {d, 0, 0};
    if (d <= 1) return f;
    uint32_t log2 = 0; /* ceil(log2 d) */
    while (((uint64_t)1 << log2) < d) log2++;
    uint32_t p = 31 + log2;
    f.mul = (uint32_t)((((uint64_t)1 << p) + d - 1) / d);
    f.shift = p - 32;
    return f;
}

/* n / f.d, 0 <= n < 2^31 */
TL_FAST_DIV_FN uint32_t tl_fast_div_quot(tl_fast_div f, uint32_t n)
{
    if (f.d == 1) return n;
#ifdef __CUDA_ARCH__
    return __umulhi(n, f.mul) >> f.shift;
#else
    return (uint32_t)(((uint64_t)n * f.mul) >> 32) >> f.shift;
#endif
}

#undef TL_FAST_DIV_FN

#endif
