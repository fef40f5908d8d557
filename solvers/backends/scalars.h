/* Scalar programs: the few scalar recurrences of a pipelined method
 * (alpha, beta from the allreduced dots), written once as host+device
 * inline functions so that the CUDA backend can run them in the prologue
 * of the fused update kernel (no scalar round trip through the host) and
 * a host backend runs the same arithmetic in the same order (products
 * that could be contracted into an FMA on the device use TL_SC_MUL).
 *
 * A program reads the dots of its reduction slot and its state, writes
 * registers (what update coefficients refer to) and the next state. The
 * state is double-buffered by iteration parity: every block of the fused
 * kernel reads state[parity], block 0 writes state[1 - parity], so no
 * block can see a half-written state within one launch. */
#ifndef TL_SCALARS_H
#define TL_SCALARS_H

#include <float.h>
#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TL_HD __host__ __device__ static inline
#else
#define TL_HD static inline
#endif
#include "solvers/backends/pipecg_form.h"

typedef enum {
    TL_SC_NONE = 0,
    TL_SC_PIPECG,      /* pipelined PCG: alpha, beta, stopping test */
    TL_SC_PBICG_LOAD,  /* pipelined BiCGStab: registers from the state (start, restart) */
    TL_SC_PBICG_OMEGA, /* pipelined BiCGStab: omega from (q, y), (y, y) */
    TL_SC_PBICG_AB,    /* pipelined BiCGStab: beta, alpha from the r0 dots, stopping test */
    TL_SC_CG_ALPHA,    /* CG / PCG: alpha from (p, A p) */
    TL_SC_CG_BETA,     /* CG / PCG: beta from (r, M^-1 r), stopping test */
    TL_SC_COUNT
} tl_sc_prog;

/* A product the device compiler may not contract into an FMA, so that host
 * and device round alike. */
#if defined(__CUDA_ARCH__)
#define TL_SC_MUL(a, b) __dmul_rn((a), (b))
#else
#define TL_SC_MUL(a, b) ((a) * (b))
#endif

enum {
    TL_SC_STATE = 16, /* doubles of state per parity */
    TL_SC_REGS = 8,   /* registers */
    TL_SC_RING = 256  /* register copies the host can have in flight (tags modulo); the
                         CUDA backend's persistent loop runs a quarter of it per call */
};

typedef struct tl_sc_io {
    const double *dots; /* the reduced dots of the slot the program reads */
    double *state;      /* 2 * TL_SC_STATE doubles */
    double *regs;       /* TL_SC_REGS doubles, written by block 0 */
    double *copy;       /* NULL, or a second copy of the registers block 0 writes (the CUDA
                           backend: a slot of a ring in mapped host memory, read by the host
                           without a copy on the stream), then copy_seq after them */
    double copy_seq;    /* the run's number, stored in copy[TL_SC_REGS] once the registers
                           are visible to the host: what the host polls for */
    int parity;         /* iteration & 1 */
} tl_sc_io;

/* Pipelined PCG registers and flags (method_pipecg.c's arithmetic). */
enum {
    TL_SC_PCG_ALPHA = 0,
    TL_SC_PCG_BETA = 1,
    TL_SC_PCG_SOFT = 2,  /* benchmark mode, a suspect step taken softly: 1 at rounding level, 2 above it (a restart) */
    TL_SC_PCG_FLAG = 3,  /* 0 ok, else TL_SC_FLAG_* (the update then freezes: alpha = beta = 0) */
    TL_SC_PCG_RNORM = 4, /* sqrt((r, r)) */
    TL_SC_PCG_CURV = 5,
    TL_SC_PCG_GAMMA = 6,
    TL_SC_PCG_DELTA = 7
};
/* Why a program froze the iteration (sticky: every later one freezes too). */
enum {
    TL_SC_FLAG_OK = 0,
    TL_SC_FLAG_CONVERGED = 1, /* ||r|| met a tolerance of the state (or is 0) */
    TL_SC_FLAG_GAMMA = 2,     /* (r, M r) <= 0 */
    TL_SC_FLAG_CURV = 3,      /* p'Ap <= 0 */
    TL_SC_FLAG_NONFINITE = 4  /* NaN or Inf in the dots */
};

/* State of a program (per parity). */
enum {
    TL_SC_ST_GAMMA_OLD = 0,
    TL_SC_ST_ALPHA_OLD = 1,
    TL_SC_ST_ITER = 2,
    TL_SC_ST_STOPPED = 3,  /* the flag that froze an earlier iteration, 0 */
    TL_SC_ST_RTOL = 4,     /* stop when ||r|| <= this (negative: never) */
    TL_SC_ST_ATOL = 5,     /* stop when ||r|| <= this (negative: never) */
    TL_SC_ST_SOFT_TOL = 6, /* benchmark mode: ||r|| at rounding level below this (negative: off) */
    /* pipelined BiCGStab (ALPHA and RHO also CG's) */
    TL_SC_ST_ALPHA = 7,
    TL_SC_ST_BETA = 8,
    TL_SC_ST_OMEGA = 9,
    TL_SC_ST_RHO = 10,
    TL_SC_ST_RTNORM = 11,     /* ||r0~|| */
    TL_SC_ST_RESTART_TOL = 12, /* restart when |(r0~, r)| <= this ||r0~|| ||r|| (TL_BICG_RESTART) */
    TL_SC_ST_ROUNDED = 13,     /* pipelined PCG, benchmark mode: the residual reached rounding level (sticky) */
    TL_SC_ST_FRESH = 14        /* CG: this iteration starts from b - A x (a start or restart), so a
                                  p'Ap that underflowed is the matrix's: no restart */
};

/* Pipelined BiCGStab registers and flags (method_pipebicgstab.c). */
enum {
    TL_SC_BI_ALPHA = 0,
    TL_SC_BI_BETA = 1,
    TL_SC_BI_BO = 2, /* -beta omega */
    TL_SC_BI_OMEGA = 3,
    TL_SC_BI_OA = 4, /* omega alpha */
    TL_SC_BI_FLAG = 5,
    TL_SC_BI_RNORM = 6, /* AB: ||r||; OMEGA: (y, y) */
    TL_SC_BI_AUX = 7    /* AB: the dot a flag is about; OMEGA: (q, y) */
};
enum {
    TL_SC_FLAG_YY = 5,      /* retired: (y, y) = 0 is an exact step, omega = 0 */
    TL_SC_FLAG_OMEGA0 = 6,  /* omega = 0 */
    TL_SC_FLAG_RESTART = 7, /* (r0~, r) at rounding level; CG, benchmark mode: (r, M^-1 r) or
                               p'Ap underflowed (tl_sc_cg_underflow). The host restarts */
    TL_SC_FLAG_DEN = 8,     /* (r0~, w + beta s - beta omega z) = 0 */
    TL_SC_FLAG_QY = 9,      /* (q, y) or (y, y) not finite */
    TL_SC_FLAG_R0DOT = 10   /* + k: r0~ dot k not finite */
};

/* Fixed-iteration (benchmark) mode: the state gives both tolerances negative. */
TL_HD int tl_sc_benchmark(const double *st)
{
    return st[TL_SC_ST_RTOL] < 0 && st[TL_SC_ST_ATOL] < 0;
}

/* CG, benchmark mode: (r, M^-1 r) or p'Ap underflowed (0, or subnormal:
 * too few digits left to step with), where method_cg.c and the programs
 * restart from b - A x. */
TL_HD int tl_sc_cg_underflow(double v)
{
    return v >= 0.0 && v < DBL_MIN;
}

/* The stopping test of solvers/methods/solve.c (tl_solve_check) on ||r||, without
 * the iteration limit, which the host enforces by enqueueing no further
 * iteration; never in benchmark mode. */
TL_HD int tl_sc_converged(double rnorm, const double *st)
{
    if (tl_sc_benchmark(st)) return 0;
    return rnorm == 0.0 || rnorm <= st[TL_SC_ST_RTOL] || rnorm <= st[TL_SC_ST_ATOL];
}

/* dots = {gamma = (r, u), delta = (w, u), (r, r)}.
 * A suspect step (gamma or p'Ap not positive, or a scalar not finite)
 * freezes the iteration with a flag. In benchmark mode (st[SOFT_TOL] >= 0)
 * it is taken softly instead, so that the run does the iterations asked
 * for whatever the residual does: beta = 0 (the direction restarts from
 * the recursive vectors), and alpha = 0 when even delta is not positive.
 * Once ||r|| has been at rounding level (below st[SOFT_TOL],
 * method_pipecg.c's sqrt(eps) ||r0||: sticky, as there, since the
 * recursive ||r|| may grow again after it) that is SOFT 1; above it, where
 * method_pipecg.c would check the scalars from explicit vectors, a host
 * decision this program cannot wait for, SOFT 2: a restart the output
 * counts. */
TL_HD void tl_sc_pipecg(const double *dots, const double *st, double *regs, double *st_next)
{
    double gamma = dots[0], delta = dots[1], rnorm = sqrt(dots[2]);
    double it = st[TL_SC_ST_ITER];
    double beta, t2; /* the recurrences of pipecg_form.h */
    double curv = tl_pcg_curvature(gamma, delta, st[TL_SC_ST_GAMMA_OLD], st[TL_SC_ST_ALPHA_OLD],
                                   it > 0, &beta, &t2);
    double alpha = gamma / curv;
    int flag = (int)st[TL_SC_ST_STOPPED], soft = 0;
    int suspect = !(gamma > 0.0) || !(curv > 0.0) || !isfinite(beta) || !isfinite(alpha);
    if (flag != TL_SC_FLAG_OK)
        ;
    else if (!isfinite(rnorm))
        flag = TL_SC_FLAG_NONFINITE;
    else if (tl_sc_converged(rnorm, st))
        flag = TL_SC_FLAG_CONVERGED;
    else if (!isfinite(gamma) || !isfinite(delta))
        flag = TL_SC_FLAG_NONFINITE;
    else if (suspect && st[TL_SC_ST_SOFT_TOL] >= 0) {
        soft = st[TL_SC_ST_ROUNDED] != 0.0 || rnorm <= st[TL_SC_ST_SOFT_TOL] ? 1 : 2;
        beta = 0.0;
        curv = delta;
        alpha = gamma > 0.0 && curv > 0.0 ? gamma / curv : 0.0;
    } else if (!(gamma > 0.0))
        flag = TL_SC_FLAG_GAMMA;
    else if (suspect)
        flag = TL_SC_FLAG_CURV;
    if (flag != TL_SC_FLAG_OK) alpha = beta = 0.0;
    regs[TL_SC_PCG_ALPHA] = alpha;
    regs[TL_SC_PCG_BETA] = beta;
    regs[TL_SC_PCG_SOFT] = soft;
    regs[TL_SC_PCG_FLAG] = flag;
    regs[TL_SC_PCG_RNORM] = rnorm;
    regs[TL_SC_PCG_CURV] = curv;
    regs[TL_SC_PCG_GAMMA] = gamma;
    regs[TL_SC_PCG_DELTA] = delta;
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    int step = flag == TL_SC_FLAG_OK;
    st_next[TL_SC_ST_GAMMA_OLD] = step ? gamma : st[TL_SC_ST_GAMMA_OLD];
    st_next[TL_SC_ST_ALPHA_OLD] = step ? alpha : st[TL_SC_ST_ALPHA_OLD];
    st_next[TL_SC_ST_ITER] = it + 1;
    st_next[TL_SC_ST_STOPPED] = flag;
    if (soft == 1) st_next[TL_SC_ST_ROUNDED] = 1.0;
}

/* Registers of the pipelined BiCGStab updates from the state; all zero
 * coefficients once stopped (the iteration freezes). */
TL_HD void tl_sc_pbicg_regs(const double *st, double *regs, int flag)
{
    int go = flag == TL_SC_FLAG_OK;
    double alpha = go ? st[TL_SC_ST_ALPHA] : 0.0, beta = go ? st[TL_SC_ST_BETA] : 0.0;
    double omega = go ? st[TL_SC_ST_OMEGA] : 0.0;
    regs[TL_SC_BI_ALPHA] = alpha;
    regs[TL_SC_BI_BETA] = beta;
    regs[TL_SC_BI_BO] = -beta * omega;
    regs[TL_SC_BI_OMEGA] = omega;
    regs[TL_SC_BI_OA] = omega * alpha;
    regs[TL_SC_BI_FLAG] = flag;
}

TL_HD void tl_sc_pbicg_load(const double *st, double *regs, double *st_next)
{
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    tl_sc_pbicg_regs(st, regs, (int)st[TL_SC_ST_STOPPED]);
    regs[TL_SC_BI_RNORM] = 0.0;
    regs[TL_SC_BI_AUX] = 0.0;
}

/* dots = {(q, y), (y, y)}: omega (method_pipebicgstab.c after dot slot 0). */
TL_HD void tl_sc_pbicg_omega(const double *dots, const double *st, double *regs, double *st_next)
{
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    int flag = (int)st[TL_SC_ST_STOPPED];
    if (flag != TL_SC_FLAG_OK)
        ;
    else if (!isfinite(dots[0]) || !isfinite(dots[1]))
        flag = TL_SC_FLAG_QY;
    /* (y, y) = 0: q = 0, an exact step; omega = 0 lets the next test find
     * ||r|| = 0 (method_pipebicgstab.c), a breakdown only if r is not 0 */
    if (flag == TL_SC_FLAG_OK) st_next[TL_SC_ST_OMEGA] = dots[1] > 0.0 ? dots[0] / dots[1] : 0.0;
    st_next[TL_SC_ST_STOPPED] = flag;
    tl_sc_pbicg_regs(st_next, regs, flag);
    regs[TL_SC_BI_RNORM] = dots[1];
    regs[TL_SC_BI_AUX] = dots[0];
}

/* dots = {(r0~, r), (r0~, w), (r0~, s), (r0~, z), (r, r)}: the stopping
 * test, the breakdown and restart tests, beta, alpha and rho
 * (method_pipebicgstab.c after dot slot 1, in its order). */
TL_HD void tl_sc_pbicg_ab(const double *dots, const double *st, double *regs, double *st_next)
{
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    double rnorm = sqrt(dots[4]), aux = 0.0;
    double alpha = st[TL_SC_ST_ALPHA], omega = st[TL_SC_ST_OMEGA], rho = st[TL_SC_ST_RHO];
    double beta = 0.0;
    int flag = (int)st[TL_SC_ST_STOPPED];
    if (flag == TL_SC_FLAG_OK) {
        if (!isfinite(rnorm))
            flag = TL_SC_FLAG_NONFINITE;
        else if (tl_sc_converged(rnorm, st))
            flag = TL_SC_FLAG_CONVERGED;
        for (int k = 0; k < 4 && flag == TL_SC_FLAG_OK; k++)
            if (!isfinite(dots[k])) {
                flag = TL_SC_FLAG_R0DOT + k;
                aux = dots[k];
            }
    }
    if (flag != TL_SC_FLAG_OK)
        ;
    else if (omega == 0.0)
        flag = TL_SC_FLAG_OMEGA0;
    else if (fabs(dots[0]) <= st[TL_SC_ST_RESTART_TOL] * st[TL_SC_ST_RTNORM] * rnorm)
        flag = TL_SC_FLAG_RESTART;
    else {
        beta = (alpha / omega) * (dots[0] / rho);
        double den = dots[1] + TL_SC_MUL(beta, dots[2]) - TL_SC_MUL(beta * omega, dots[3]);
        if (den == 0.0) {
            flag = TL_SC_FLAG_DEN;
        } else {
            st_next[TL_SC_ST_ALPHA] = dots[0] / den;
            st_next[TL_SC_ST_BETA] = beta;
            st_next[TL_SC_ST_RHO] = dots[0];
        }
    }
    st_next[TL_SC_ST_STOPPED] = flag;
    tl_sc_pbicg_regs(st_next, regs, flag);
    regs[TL_SC_BI_RNORM] = rnorm;
    regs[TL_SC_BI_AUX] = aux;
}

/* CG / PCG registers (method_cg.c's arithmetic); the state keeps rho =
 * (r, M^-1 r) in TL_SC_ST_RHO and the tolerances. */
enum {
    TL_SC_CG_ALPHA_R = 0, /* alpha: r -= alpha q (ALPHA), x += alpha p (BETA: the same alpha) */
    TL_SC_CG_BETA_R = 1,  /* beta: p = z + beta p */
    TL_SC_CG_FLAG = 2,    /* 0 ok, else TL_SC_FLAG_* (sticky; alpha = 0 from then on) */
    TL_SC_CG_RNORM = 3,   /* BETA: sqrt((r, r)) */
    TL_SC_CG_DOT = 4      /* ALPHA: (p, A p); BETA: (r, M^-1 r) */
};

/* dots = {(p, A p)}: alpha = rho / (p, A p), or the iteration frozen
 * (alpha = 0) when a flag is up or (p, A p) is not positive (CURV) or not
 * finite, as method_cg.c stops there before its update; in benchmark mode
 * a (p, A p) that underflowed is where method_cg.c restarts (RESTART),
 * unless this iteration starts from b - A x already (FRESH). alpha is
 * also kept in the state for the beta program, whose update moves x. */
TL_HD void tl_sc_cg_alpha(const double *dots, const double *st, double *regs, double *st_next)
{
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    double pq = dots[0];
    int flag = (int)st[TL_SC_ST_STOPPED];
    if (flag != TL_SC_FLAG_OK)
        ;
    else if (!isfinite(pq))
        flag = TL_SC_FLAG_NONFINITE;
    else if (tl_sc_benchmark(st) && tl_sc_cg_underflow(pq) && st[TL_SC_ST_FRESH] == 0.0)
        flag = TL_SC_FLAG_RESTART;
    else if (pq <= 0.0)
        flag = TL_SC_FLAG_CURV;
    double alpha = flag == TL_SC_FLAG_OK ? st[TL_SC_ST_RHO] / pq : 0.0;
    st_next[TL_SC_ST_STOPPED] = flag;
    st_next[TL_SC_ST_ALPHA] = alpha;
    st_next[TL_SC_ST_FRESH] = 0.0;
    regs[TL_SC_CG_ALPHA_R] = alpha;
    regs[TL_SC_CG_BETA_R] = 0.0;
    regs[TL_SC_CG_FLAG] = flag;
    regs[TL_SC_CG_RNORM] = 0.0;
    regs[TL_SC_CG_DOT] = pq;
}

/* dots = {(r, M^-1 r), (r, r)} after the update: the stopping test (the
 * host enforces the iteration limit), then (r, M^-1 r) > 0 (in benchmark
 * mode one that underflowed: RESTART, as method_cg.c restarts), then beta =
 * (r, M^-1 r) / rho and rho for the next iteration, as method_cg.c; and
 * the iteration's alpha again (the alpha program's, 0 when it froze), for
 * x += alpha p in the update of p, which stops or not after it. */
TL_HD void tl_sc_cg_beta(const double *dots, const double *st, double *regs, double *st_next)
{
    for (int q = 0; q < TL_SC_STATE; q++)
        st_next[q] = st[q];
    double rz = dots[0], rnorm = sqrt(dots[1]), beta = 0.0;
    int flag = (int)st[TL_SC_ST_STOPPED];
    if (flag != TL_SC_FLAG_OK)
        ;
    else if (!isfinite(rnorm))
        flag = TL_SC_FLAG_NONFINITE;
    else if (tl_sc_converged(rnorm, st))
        flag = TL_SC_FLAG_CONVERGED;
    else if (tl_sc_benchmark(st) && tl_sc_cg_underflow(rz))
        flag = TL_SC_FLAG_RESTART;
    else if (rz <= 0.0)
        flag = TL_SC_FLAG_GAMMA;
    if (flag == TL_SC_FLAG_OK) {
        beta = rz / st[TL_SC_ST_RHO];
        st_next[TL_SC_ST_RHO] = rz;
    }
    st_next[TL_SC_ST_STOPPED] = flag;
    regs[TL_SC_CG_ALPHA_R] = st[TL_SC_ST_ALPHA];
    regs[TL_SC_CG_BETA_R] = beta;
    regs[TL_SC_CG_FLAG] = flag;
    regs[TL_SC_CG_RNORM] = rnorm;
    regs[TL_SC_CG_DOT] = rz;
}

/* Run program p on io's buffers (st_next = the other parity). */
TL_HD void tl_sc_run(tl_sc_prog p, const double *dots, const double *st, double *regs,
                     double *st_next)
{
    switch (p) {
    case TL_SC_PIPECG:
        tl_sc_pipecg(dots, st, regs, st_next);
        break;
    case TL_SC_PBICG_LOAD:
        tl_sc_pbicg_load(st, regs, st_next);
        break;
    case TL_SC_PBICG_OMEGA:
        tl_sc_pbicg_omega(dots, st, regs, st_next);
        break;
    case TL_SC_PBICG_AB:
        tl_sc_pbicg_ab(dots, st, regs, st_next);
        break;
    case TL_SC_CG_ALPHA:
        tl_sc_cg_alpha(dots, st, regs, st_next);
        break;
    case TL_SC_CG_BETA:
        tl_sc_cg_beta(dots, st, regs, st_next);
        break;
    default:
        break;
    }
}

#endif
