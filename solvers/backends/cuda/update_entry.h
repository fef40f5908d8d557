/* The fused update's per-entry arithmetic, shared by the CUDA kernel
 * (kernels.cu, which calls it with compile-time bounds, so the loops
 * unroll and t, r stay in registers) and the host test of its logic
 * (tests/test_cuda_update_entry.c). No CUDA header needed. */
#ifndef TL_CUDA_UPDATE_ENTRY_H
#define TL_CUDA_UPDATE_ENTRY_H

#include <stdint.h>

#include "solvers/backends/scalars.h"

#if defined(__CUDACC__)
#define TL_CU_HD __host__ __device__ __forceinline__ static
#else
#define TL_CU_HD static inline
#endif
#if defined(__CUDA_ARCH__)
#define TL_CU_UNROLL _Pragma("unroll")
#else
#define TL_CU_UNROLL
#endif

/* Fused updates, applied in order per entry: for each entry i and update
 * j in turn, y_j[i] = sum_k c_jk x_jk[i]. A coefficient is coef times a
 * scalar register when sref > 0 (register sref - 1 of the scalar program
 * the kernel's prologue ran, see scalars.h), else coef itself. The caller
 * fills src (tl_cu_update_link). */
enum { TL_CU_UPD_MAX = 12, TL_CU_UPD_TERMS = 4 };
typedef struct tl_cu_update {
    double *y;
    int nterms;
    const double *x[TL_CU_UPD_TERMS];
    double coef[TL_CU_UPD_TERMS];
    signed char sref[TL_CU_UPD_TERMS];
    /* the earlier update of the call that wrote x[k] last (its value is
     * taken from there), or -1: x[k] is read from memory */
    signed char src[TL_CU_UPD_TERMS];
} tl_cu_update;
typedef struct tl_cu_update_args {
    int nu;
    tl_cu_update u[TL_CU_UPD_MAX];
    tl_sc_prog prog; /* program of the prologue (TL_SC_NONE: registers unused) */
    tl_sc_io io;     /* its inputs and outputs in device memory */
} tl_cu_update_args;
/* Fill every term's src from the pointers (host side). */
static inline void tl_cu_update_link(tl_cu_update_args *a)
{
    for (int j = 0; j < a->nu; j++)
        for (int k = 0; k < a->u[j].nterms; k++) {
            a->u[j].src[k] = -1;
            for (int q = 0; q < j; q++)
                if (a->u[q].y == a->u[j].x[k]) a->u[j].src[k] = (signed char)q;
        }
}

/* Entry i of the updates of a, with coefficients c (sref resolved):
 * every term that reads memory is loaded first (all loads independent, so
 * a GPU thread has them all in flight), then the updates are applied in
 * order in registers (a term reading a vector an earlier update wrote
 * takes that update's value, src), and each y is stored once. nu_max and
 * nt_max bound a->nu and the terms (compile-time constants in the kernel). */
TL_CU_HD void tl_cu_update_entry(const tl_cu_update_args *a, const double (*c)[TL_CU_UPD_TERMS],
                                 int64_t i, int nu_max, int nt_max)
{
    double t[TL_CU_UPD_MAX][TL_CU_UPD_TERMS], r[TL_CU_UPD_MAX];
    TL_CU_UNROLL
    for (int j = 0; j < TL_CU_UPD_MAX; j++) {
        if (j >= nu_max) break;
        TL_CU_UNROLL
        for (int k = 0; k < TL_CU_UPD_TERMS; k++) {
            if (k >= nt_max) break;
            if (j < a->nu && k < a->u[j].nterms && a->u[j].src[k] < 0) t[j][k] = a->u[j].x[k][i];
        }
    }
    TL_CU_UNROLL
    for (int j = 0; j < TL_CU_UPD_MAX; j++) {
        if (j >= nu_max || j >= a->nu) break;
        double acc = 0.0;
        TL_CU_UNROLL
        for (int k = 0; k < TL_CU_UPD_TERMS; k++) {
            if (k >= nt_max || k >= a->u[j].nterms) break;
            int sj = a->u[j].src[k];
            double v = 0.0;
            if (sj < 0) {
                v = t[j][k];
            } else {
                TL_CU_UNROLL
                for (int q = 0; q < TL_CU_UPD_MAX; q++) {
                    if (q >= j) break;
                    if (q == sj) v = r[q];
                }
            }
            acc = k == 0 ? c[j][0] * v : acc + c[j][k] * v;
        }
        r[j] = acc;
        a->u[j].y[i] = acc;
    }
}

#endif
