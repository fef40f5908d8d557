/* Scalar programs: the few scalar recurrences of a pipelined method
 * (alpha, beta from the allreduced dots), written once as host+device
 * inline functions so that the CUDA backend can run them in the prologue
 * of the fused update kernel (no scalar round trip through the host) and
 * a host backend runs the same arithmetic in the same order (no
 * expression here offers the compiler an FMA contraction).
 *
 * A program reads the dots of its reduction slot and its state, writes
 * registers (what update coefficients refer to) and the next state. The
 * state is double-buffered by iteration parity: every block of the fused
 * kernel reads state[parity], block 0 writes state[1 - parity], so no
 * block can see a half-written state within one launch. */
#ifndef TL_SCALARS_H
#define TL_SCALARS_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TL_HD __host__ __device__ static inline
#else
#define TL_HD static inline
#endif

typedef enum { TL_SC_NONE = 0, TL_SC_PIPECG, TL_SC_COUNT } tl_sc_prog;

enum {
    TL_SC_STATE = 8, /* doubles of state per parity */
    TL_SC_REGS = 8,  /* registers */
    TL_SC_RING = 64  /* register copies the host can have in flight (tags modulo) */
};

typedef struct tl_sc_io {
    const double *dots; /* the reduced dots of the slot the program reads */
    double *state;      /* 2 * TL_SC_STATE doubles */
    double *regs;       /* TL_SC_REGS doubles, written by block 0 */
    int parity;         /* iteration & 1 */
} tl_sc_io;

/* Pipelined PCG registers and flags (method_pipecg.c's arithmetic). */
enum {
    TL_SC_PCG_ALPHA = 0,
    TL_SC_PCG_BETA = 1,
    TL_SC_PCG_SOFT = 2,  /* 1: a suspect step taken softly (benchmark mode at rounding level) */
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
    TL_SC_ST_STOPPED = 3, /* the flag that froze an earlier iteration, 0 */
    TL_SC_ST_RTOL = 4,    /* stop when ||r|| <= this (negative: never) */
    TL_SC_ST_ATOL = 5,    /* stop when ||r|| <= this (negative: never) */
    TL_SC_ST_SOFT_TOL = 6 /* benchmark mode: ||r|| at rounding level below this (negative: off) */
};

/* The stopping test of solvers/solve.c (tl_solve_check) on ||r||, without
 * the iteration limit, which the host enforces by enqueueing no further
 * iteration. Fixed-iteration mode gives both tolerances negative. */
TL_HD int tl_sc_converged(double rnorm, const double *st)
{
    if (st[TL_SC_ST_RTOL] < 0 && st[TL_SC_ST_ATOL] < 0) return 0;
    return rnorm == 0.0 || rnorm <= st[TL_SC_ST_RTOL] || rnorm <= st[TL_SC_ST_ATOL];
}

/* dots = {gamma = (r, u), delta = (w, u), (r, r)}.
 * A suspect step (gamma or p'Ap not positive, or a scalar not finite)
 * freezes the iteration with a flag; in benchmark mode once ||r|| is at
 * rounding level (below st[SOFT_TOL], method_pipecg.c's sqrt(eps) ||r0||)
 * it is taken softly instead, as method_pipecg.c does there: beta = 0,
 * and alpha = 0 when even delta is not positive. */
TL_HD void tl_sc_pipecg(const double *dots, const double *st, double *regs, double *st_next)
{
    double gamma = dots[0], delta = dots[1], rnorm = sqrt(dots[2]);
    double it = st[TL_SC_ST_ITER];
    double beta = it > 0 ? gamma / st[TL_SC_ST_GAMMA_OLD] : 0.0;
    double curv = it > 0 ? delta - beta * gamma / st[TL_SC_ST_ALPHA_OLD] : delta;
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
    else if (suspect && st[TL_SC_ST_SOFT_TOL] >= 0 && rnorm <= st[TL_SC_ST_SOFT_TOL]) {
        soft = 1;
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
}

/* Run program p on io's buffers (st_next = the other parity). */
TL_HD void tl_sc_run(tl_sc_prog p, const double *dots, const double *st, double *regs,
                     double *st_next)
{
    switch (p) {
    case TL_SC_PIPECG:
        tl_sc_pipecg(dots, st, regs, st_next);
        break;
    default:
        break;
    }
}

#endif
