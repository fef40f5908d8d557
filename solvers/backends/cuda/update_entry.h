/* The fused update's per-entry arithmetic, shared by the CUDA kernel
 * (kernels.cu, which calls it with compile-time bounds, so the loops
 * unroll and t, r stay in registers) and the host test of its logic
 * (tests/test_cuda_update_entry.c). No CUDA header needed. */
#ifndef TL_CUDA_UPDATE_ENTRY_H
#define TL_CUDA_UPDATE_ENTRY_H

#include <math.h>
#include <stdint.h>

#include "solvers/backends/scalars.h"

#if defined(__CUDACC__)
#define TL_CU_HD __host__ __device__ __forceinline__ static
#else
#define TL_CU_HD static inline
#endif
#if defined(__CUDA_ARCH__)
#define TL_CU_UNROLL _Pragma("unroll")
/* acc + c x rounded once, as the device contracts it: the host tests then
 * check the device's arithmetic, not the host compiler's choice */
#define TL_CU_FMA(c, x, acc) __fma_rn((c), (x), (acc))
#else
#define TL_CU_UNROLL
#define TL_CU_FMA(c, x, acc) fma((c), (x), (acc))
#endif

/* Fused updates, applied in order per entry: for each entry i and update
 * j in turn, y_j[i] = sum_k c_jk x_jk[i]. A coefficient is coef times a
 * scalar register when sref > 0 (register sref - 1 of the scalar program
 * the kernel's prologue ran, see scalars.h), else coef itself. The caller
 * fills src (tl_cu_update_link). */
enum { TL_CU_UPD_MAX = 12, TL_CU_UPD_TERMS = 4, TL_CU_FUSE_DOTS = 8 };
/* src of a tail operand: an update's index, the preconditioned vector, or
 * memory */
enum { TL_CU_SRC_MEM = -1, TL_CU_SRC_PZ = -2 };
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
/* What the same pass does after the updates (update_fused): pz = dinv *
 * pr (dinv NULL: a copy) when pz is set, then nd dot products of the
 * values after the pass, summed per thread into acc, reduced by the
 * kernel into out (block partials in part, the counter in count). */
typedef struct tl_cu_update_tail {
    double *pz;
    const double *pr, *dinv;
    signed char prsrc; /* the update that wrote pr last, or TL_CU_SRC_MEM */
    int nd;
    const double *dx[TL_CU_FUSE_DOTS], *dy[TL_CU_FUSE_DOTS];
    signed char dxsrc[TL_CU_FUSE_DOTS], dysrc[TL_CU_FUSE_DOTS]; /* TL_CU_SRC_* or an update */
    double *part, *out;
    unsigned *count;
} tl_cu_update_tail;
typedef struct tl_cu_update_args {
    int nu;
    tl_cu_update u[TL_CU_UPD_MAX];
    tl_sc_prog prog; /* program of the prologue (TL_SC_NONE: registers unused) */
    tl_sc_io io;     /* its inputs and outputs in device memory */
    tl_cu_update_tail t;
    int prefetch; /* kernel: L2 prefetch of each thread's next entry (--prefetch) */
} tl_cu_update_args;
/* The update of a that writes v last, or TL_CU_SRC_MEM. */
static inline signed char tl_cu_last_writer(const tl_cu_update_args *a, int before,
                                            const double *v)
{
    signed char s = TL_CU_SRC_MEM;
    for (int q = 0; q < before; q++)
        if (a->u[q].y == v) s = (signed char)q;
    return s;
}
/* Fill every term's src, and the tail's, from the pointers (host side). */
static inline void tl_cu_update_link(tl_cu_update_args *a)
{
    for (int j = 0; j < a->nu; j++)
        for (int k = 0; k < a->u[j].nterms; k++)
            a->u[j].src[k] = tl_cu_last_writer(a, j, a->u[j].x[k]);
    tl_cu_update_tail *t = &a->t;
    t->prsrc = t->pz ? tl_cu_last_writer(a, a->nu, t->pr) : (signed char)TL_CU_SRC_MEM;
    for (int k = 0; k < t->nd; k++) {
        const double *v[2] = {t->dx[k], t->dy[k]};
        signed char *src[2] = {&t->dxsrc[k], &t->dysrc[k]};
        for (int e = 0; e < 2; e++)
            *src[e] = t->pz && v[e] == t->pz ? (signed char)TL_CU_SRC_PZ
                                              : tl_cu_last_writer(a, a->nu, v[e]);
    }
}

/* Pipe-PCG's eight AXPYs (method_pipecg.c, pipecg_async.c), the update
 * the solvers run most: z = n + b z, q = m + b q, s = w + b s, p = u + b p,
 * x += a p, r -= a s, u -= a q, w -= a z. The generic kernel reads the
 * vectors and each term's source from its arguments at run time, loads u
 * and w twice and takes 80 registers; its own kernel loads the ten
 * distinct vectors once, in 64 registers (on an H200 at 128^3: 0.869 of
 * triad against 0.829, and 3 us less per iteration;
 * results/solver-shape-h200/). Same values bit for bit: each y = x0 + c
 * x1 in the generic term order (fma(c1, x1, c0 x0), c0 = 1 exactly). */

/* Its operands by role, from the updates of a: in = n m w u x r z q s p,
 * out = z q s p x r u w (the updates' y in order). */
TL_CU_HD void tl_cu_pipecg_operands(const tl_cu_update_args *a, const double **in, double **out)
{
    in[0] = a->u[0].x[0];
    in[1] = a->u[1].x[0];
    in[2] = a->u[7].y;
    in[3] = a->u[6].y;
    in[4] = a->u[4].y;
    in[5] = a->u[5].y;
    for (int j = 0; j < 4; j++)
        in[6 + j] = a->u[j].y;
    for (int j = 0; j < 8; j++)
        out[j] = a->u[j].y;
}

/* 1 when the updates of a (tl_cu_update_link done, no tail) are exactly
 * that shape, in that order, on ten distinct vectors. Any other update
 * runs the generic kernel. */
static inline int tl_cu_update_is_pipecg(const tl_cu_update_args *a)
{
    if (a->nu != 8 || a->t.pz || a->t.nd) return 0;
    for (int j = 0; j < 8; j++) {
        const tl_cu_update *u = &a->u[j];
        if (u->nterms != 2 || u->coef[0] != 1.0 || u->sref[0] != 0 || u->src[0] != TL_CU_SRC_MEM)
            return 0;
        /* directions in place from memory, then each y in place plus a
         * direction just made (x += a p: p is update 3's) */
        if (j < 4 ? u->x[1] != u->y || u->src[1] != TL_CU_SRC_MEM
                  : u->x[0] != u->y || u->src[1] != 7 - j)
            return 0;
    }
    /* u and w: sources of p and s before their own updates */
    if (a->u[6].y != a->u[3].x[0] || a->u[7].y != a->u[2].x[0]) return 0;
    const double *in[10];
    double *out[8];
    tl_cu_pipecg_operands(a, in, out);
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < i; k++)
            if (in[i] == in[k]) return 0;
    return 1;
}

/* Entry i's values of Pipe-PCG's update from its ten operands in (n m w
 * u x r z q s p) and the coefficients c[j] of the updates' second terms:
 * out = z q s p x r u w, the generic entry's values bit for bit (the
 * first terms' coefficient is 1). */
TL_CU_HD void tl_cu_pipecg_values(const double *in, const double *c, double *out)
{
    enum { N_, M_, W_, U_, X_, R_, Z_, Q_, S_, P_ };
    double z = TL_CU_FMA(c[0], in[Z_], in[N_]), q = TL_CU_FMA(c[1], in[Q_], in[M_]);
    double s = TL_CU_FMA(c[2], in[S_], in[W_]), p = TL_CU_FMA(c[3], in[P_], in[U_]);
    out[0] = z;
    out[1] = q;
    out[2] = s;
    out[3] = p;
    out[4] = TL_CU_FMA(c[4], p, in[X_]);
    out[5] = TL_CU_FMA(c[5], s, in[R_]);
    out[6] = TL_CU_FMA(c[6], q, in[U_]);
    out[7] = TL_CU_FMA(c[7], z, in[W_]);
}

/* The tail operands an update of the call writes, taken as the update's
 * value is made (see tl_cu_update_values). */
typedef struct tl_cu_picked {
    double pr, x[TL_CU_FUSE_DOTS], y[TL_CU_FUSE_DOTS];
} tl_cu_picked;

/* Entry i of the updates of a, with coefficients c (sref resolved):
 * every term that reads memory is loaded first (all loads independent, so
 * a GPU thread has them all in flight), then the updates are applied in
 * order in registers (a term reading a vector an earlier update wrote
 * takes that update's value, src), and each y is stored once; r[j] is
 * update j's value. nu_max and nt_max bound a->nu and the terms
 * (compile-time constants in the kernel). With pk (update_fused), each
 * tail operand an update writes (a->t's prsrc, dxsrc, dysrc; nd_max
 * bounds the dots) is copied into pk as that update's value is made:
 * picked from r[] afterwards by a runtime index, the compiler kept r[] in
 * local memory (a store and a load per value and entry). */
TL_CU_HD void tl_cu_update_values(const tl_cu_update_args *a, const double (*c)[TL_CU_UPD_TERMS],
                                  int64_t i, int nu_max, int nt_max, double *r, int nd_max,
                                  tl_cu_picked *pk)
{
    double t[TL_CU_UPD_MAX][TL_CU_UPD_TERMS];
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
            acc = k == 0 ? c[j][0] * v : TL_CU_FMA(c[j][k], v, acc);
        }
        r[j] = acc;
        a->u[j].y[i] = acc;
        if (pk) {
            if (a->t.prsrc == j) pk->pr = acc;
            TL_CU_UNROLL
            for (int k = 0; k < TL_CU_FUSE_DOTS; k++) {
                if (k >= nd_max) break;
                if (a->t.dxsrc[k] == j) pk->x[k] = acc;
                if (a->t.dysrc[k] == j) pk->y[k] = acc;
            }
        }
    }
}

TL_CU_HD void tl_cu_update_entry(const tl_cu_update_args *a, const double (*c)[TL_CU_UPD_TERMS],
                                 int64_t i, int nu_max, int nt_max)
{
    double r[TL_CU_UPD_MAX];
    tl_cu_update_values(a, c, i, nu_max, nt_max, r, 0, (tl_cu_picked *)0);
}

/* Entry i of update_fused: the updates, then pz = dinv * pr from the
 * value just computed, then acc[k] += dx_k * dy_k of the values after the
 * pass (nd_max bounds t.nd). The tail's memory operands (the inverse
 * diagonal, and operands no update of the call writes, so the pass does
 * not change them) are loaded first, with the updates' loads: one round
 * trip per entry. Loaded after the updates' stores they cost a second one,
 * as the compiler may not move a load above a store it cannot prove
 * distinct (measured on an H200: the fused pass at 0.64 of triad at 128^3,
 * against 0.79 for the update alone). */
TL_CU_HD void tl_cu_fused_entry(const tl_cu_update_args *a, const double (*c)[TL_CU_UPD_TERMS],
                                int64_t i, int nu_max, int nt_max, int nd_max, double *acc)
{
    const tl_cu_update_tail *t = &a->t;
    double d = 1.0;
    tl_cu_picked pk;
    pk.pr = 0.0;
    if (t->pz) {
        if (t->dinv) d = t->dinv[i];
        if (t->prsrc == TL_CU_SRC_MEM) pk.pr = t->pr[i];
    }
    TL_CU_UNROLL
    for (int k = 0; k < TL_CU_FUSE_DOTS; k++) {
        if (k >= nd_max) break;
        pk.x[k] = k < t->nd && t->dxsrc[k] == TL_CU_SRC_MEM ? t->dx[k][i] : 0.0;
        pk.y[k] = k < t->nd && t->dysrc[k] == TL_CU_SRC_MEM ? t->dy[k][i] : 0.0;
    }
    double r[TL_CU_UPD_MAX];
    tl_cu_update_values(a, c, i, nu_max, nt_max, r, nd_max, &pk);
    double z = 0.0;
    if (t->pz) {
        z = t->dinv ? d * pk.pr : pk.pr;
        t->pz[i] = z;
    }
    TL_CU_UNROLL
    for (int k = 0; k < TL_CU_FUSE_DOTS; k++) {
        if (k >= nd_max || k >= t->nd) break;
        double x = t->dxsrc[k] == TL_CU_SRC_PZ ? z : pk.x[k];
        double y = t->dysrc[k] == TL_CU_SRC_PZ ? z : pk.y[k];
        acc[k] += x * y;
    }
}

#endif
