/* Pipelined PCG (Ghysels & Vanroose 2014, Alg. 4), stated once. Every form
 * trilap runs is this statement: methods/method_pipecg.c (scalars on the
 * host, with its robustness measures around them), methods/pipecg_async.c
 * with the scalar program TL_SC_PIPECG (scalars.h), the CUDA backend's
 * fused update (cuda/update_entry.h tl_cu_pipecg_values) and its
 * persistent loop (cuda/loop_kernels.cu, the same two functions).
 * tests/test_pipecg_forms.c runs this statement literally beside the
 * forms and compares them iteration by iteration.
 *
 * Vectors: x, r, u = M r, w = A u, m = M w, n = A m; directions z, q, s, p.
 * One iteration:
 *   one reduction of gamma = (r, u), delta = (w, u), (r, r), overlapped
 *   with m = M w and n = A m
 *   beta  = gamma / gamma_old              (0 with no previous direction)
 *   curv  = delta - beta gamma / alpha_old (p'Ap of p = u + beta p_old)
 *   alpha = gamma / curv
 *   z = n + beta z,  q = m + beta q,  s = w + beta s,  p = u + beta p,
 *   x += alpha p,    r -= alpha s,    u -= alpha q,    w -= alpha z
 * in that order, in one pass. Host and device code (TL_HD). */
#ifndef TL_PIPECG_FORM_H
#define TL_PIPECG_FORM_H

#ifndef TL_HD
#ifdef __CUDACC__
#define TL_HD __host__ __device__ static inline
#else
#define TL_HD static inline
#endif
#endif

/* The vectors by role. */
enum {
    TL_PCG_N, TL_PCG_M, TL_PCG_W, TL_PCG_U, TL_PCG_X,
    TL_PCG_R, TL_PCG_Z, TL_PCG_Q, TL_PCG_S, TL_PCG_P,
    TL_PCG_NVEC
};

/* Update j: y = a + sign * (alpha ? alpha : beta) * b. */
typedef struct tl_pcg_axpy {
    unsigned char y, a, b, alpha;
    signed char sign;
} tl_pcg_axpy;
enum { TL_PCG_NAXPY = 8, TL_PCG_NDOT = 3 };

#ifndef __CUDA_ARCH__
static const tl_pcg_axpy tl_pcg_axpys[TL_PCG_NAXPY] = {
    {TL_PCG_Z, TL_PCG_N, TL_PCG_Z, 0, 1},  {TL_PCG_Q, TL_PCG_M, TL_PCG_Q, 0, 1},
    {TL_PCG_S, TL_PCG_W, TL_PCG_S, 0, 1},  {TL_PCG_P, TL_PCG_U, TL_PCG_P, 0, 1},
    {TL_PCG_X, TL_PCG_X, TL_PCG_P, 1, 1},  {TL_PCG_R, TL_PCG_R, TL_PCG_S, 1, -1},
    {TL_PCG_U, TL_PCG_U, TL_PCG_Q, 1, -1}, {TL_PCG_W, TL_PCG_W, TL_PCG_Z, 1, -1},
};
/* The reduction's pairs: gamma, delta, (r, r). */
static const unsigned char tl_pcg_dots[TL_PCG_NDOT][2] = {
    {TL_PCG_R, TL_PCG_U}, {TL_PCG_W, TL_PCG_U}, {TL_PCG_R, TL_PCG_R}};
#endif

/* beta and p'Ap from the reduction and the previous step (have_p 0: no
 * previous direction, beta = 0, curv = delta); *t2 = beta gamma /
 * alpha_old, the second term (its size judges the rounding of curv). */
TL_HD double tl_pcg_curvature(double gamma, double delta, double gamma_old, double alpha_old,
                              int have_p, double *beta, double *t2)
{
    *beta = have_p ? gamma / gamma_old : 0.0;
    *t2 = have_p ? *beta * gamma / alpha_old : 0.0;
    return delta - *t2;
}

#endif
