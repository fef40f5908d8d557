/* Scalar programs: the few scalar recurrences of a pipelined method
 * (alpha, beta from the allreduced dots), written once as host+device
 * inline functions so that the CUDA backend can run them in the prologue
 * of the fused update kernel (no scalar round trip through the host) and
 * a host caller can run the identical arithmetic (the same IEEE operations
 * in the same order, so host and device agree bit for bit).
 *
 * A program reads the dots of its reduction slot and its state, writes
 * registers (what update coefficients refer to) and the next state. The
 * state is double-buffered by iteration parity: every block of the fused
 * kernel reads state[parity], block 0 writes state[1 - parity], so no
 * block can see a half-written state within one launch. */
#ifndef TL_CUDA_SCALARS_H
#define TL_CUDA_SCALARS_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TL_HD __host__ __device__ static inline
#else
#define TL_HD static inline
#endif

typedef enum { TL_SC_NONE = 0, TL_SC_PIPECG, TL_SC_COUNT } tl_sc_prog;

enum {
    TL_SC_STATE = 4, /* doubles of state per parity */
    TL_SC_REGS = 8   /* registers */
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
    TL_SC_PCG_NEG_ALPHA = 2,
    TL_SC_PCG_FLAG = 3,  /* 0 ok, else TL_SC_FLAG_* (the update then freezes: alpha = beta = 0) */
    TL_SC_PCG_RNORM = 4, /* sqrt((r, r)) */
    TL_SC_PCG_CURV = 5,
    TL_SC_PCG_GAMMA = 6,
    TL_SC_PCG_DELTA = 7
};
enum { TL_SC_FLAG_OK = 0, TL_SC_FLAG_GAMMA = 1, TL_SC_FLAG_CURV = 2, TL_SC_FLAG_NONFINITE = 3 };

/* dots = {gamma = (r, u), delta = (w, u), (r, r)};
 * state = {gamma_old, alpha_old, iteration}. */
TL_HD void tl_sc_pipecg(const double *dots, const double *st, double *regs, double *st_next)
{
    double gamma = dots[0], delta = dots[1];
    double it = st[2];
    double beta = it > 0 ? gamma / st[0] : 0.0;
    double curv = it > 0 ? delta - beta * gamma / st[1] : delta;
    double alpha = gamma / curv;
    int flag = TL_SC_FLAG_OK;
    if (!isfinite(gamma) || !isfinite(delta))
        flag = TL_SC_FLAG_NONFINITE;
    else if (gamma <= 0.0)
        flag = TL_SC_FLAG_GAMMA;
    else if (!(curv > 0.0))
        flag = TL_SC_FLAG_CURV;
    if (flag != TL_SC_FLAG_OK) alpha = beta = 0.0;
    regs[TL_SC_PCG_ALPHA] = alpha;
    regs[TL_SC_PCG_BETA] = beta;
    regs[TL_SC_PCG_NEG_ALPHA] = -alpha;
    regs[TL_SC_PCG_FLAG] = flag;
    regs[TL_SC_PCG_RNORM] = sqrt(dots[2]);
    regs[TL_SC_PCG_CURV] = curv;
    regs[TL_SC_PCG_GAMMA] = gamma;
    regs[TL_SC_PCG_DELTA] = delta;
    st_next[0] = flag == TL_SC_FLAG_OK ? gamma : st[0];
    st_next[1] = flag == TL_SC_FLAG_OK ? alpha : st[1];
    st_next[2] = it + 1;
    st_next[3] = 0.0;
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
