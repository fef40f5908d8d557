/* Solving: stopping criteria shared by every method, the timed driver (the
 * paper's protocol), the true residual, statistics and output.
 *
 * Stopping test, on the 2-norm of the recursive unpreconditioned residual r:
 *   ||r|| <= rtol * base   (base = ||b||, or ||r0|| with --rtol-base r0)
 *   ||r|| <= atol
 *   iterations == max_iterations
 * With rtol = atol = 0 the method runs exactly max_iterations (fixed-
 * iteration benchmark mode, as the paper ran). "iterations" counts updates
 * of x: a method that stops on r_k returns x_k after k iterations. */
#ifndef TL_SOLVE_H
#define TL_SOLVE_H

#include <stdint.h>
#include <stdio.h>

#include "runtime/ctx.h"
#include "runtime/results.h"
#include "runtime/timing.h"
#include "solvers/backends/backend.h"

typedef enum { TL_BASE_B, TL_BASE_R0 } tl_rtol_base;

typedef enum {
    TL_STOP_NONE,      /* still running */
    TL_STOP_RTOL,      /* ||r|| <= rtol * base */
    TL_STOP_ATOL,      /* ||r|| <= atol */
    TL_STOP_ZERO,      /* residual exactly zero (or b = 0) */
    TL_STOP_FIXED,     /* fixed-iteration mode: ran max_iterations */
    TL_STOP_MAXIT,     /* max_iterations without meeting the tolerances */
    TL_STOP_NOT_SPD,   /* non-positive curvature or preconditioner in a CG method */
    TL_STOP_BREAKDOWN, /* a zero denominator */
    TL_STOP_NONFINITE, /* NaN or Inf in a reduction */
    /* the recursive residual met the tolerance, the true ||b - A x||
     * computed by the driver afterwards does not: not converged */
    TL_STOP_TRUE_RESIDUAL,
    TL_STOP_COUNT
} tl_stop_reason;

const char *tl_stop_name(tl_stop_reason r);
int tl_stop_converged(tl_stop_reason r);

typedef struct tl_solve_params {
    double rtol, atol;
    int64_t max_iterations;
    tl_rtol_base base;
    double bnorm;                 /* ||b||, computed once by the driver */
    int64_t residual_replacement; /* pipelined BiCGStab: every N iterations (0: never) */
    int monitor;                  /* rank 0 prints each residual on stderr */
    int keep_history;             /* record every residual norm in the result */
    /* rank 0's progress line (NULL: none), counting solves: iteration it
     * of the solve numbered progress_at shows progress_at + it / max_iterations */
    struct tl_progress *progress;
    double progress_at;
} tl_solve_params;

/* Fixed-iteration (benchmark) mode: rtol = atol = 0, max_iterations run
 * whatever the residual does (scalars.h's tl_sc_benchmark is the device
 * side's test, on the state's negative tolerances) */
static inline int tl_solve_benchmark(const tl_solve_params *p)
{
    return p->rtol == 0.0 && p->atol == 0.0;
}

typedef struct tl_solve_result {
    tl_stop_reason reason;
    char detail[320]; /* e.g. "p'Ap = -3.2e-01 <= 0 at iteration 4" */
    int64_t iterations;
    /* BiCGStab: shadow residual renewed; pipecg on scalar programs,
     * benchmark mode: suspect steps above rounding level taken as direction
     * restarts; CG, benchmark mode: restarts from b - A x where (r, M^-1 r)
     * or p'Ap underflowed */
    int64_t restarts;
    /* pipelined CG: residual replacements (r, u, w, s, q, z recomputed from
     * x and p), by the rounding-error bound or after a suspect scalar */
    int64_t replacements;
    /* fixed-iteration mode: the iteration from which the residual was at
     * rounding level (0: not reached or not detected by the method), the
     * true ||b - A x|| and the recursive ||r|| there */
    int64_t rounding_at;
    double rounding_rnorm, rounding_recursive;
    double r0norm;   /* ||r0|| (recursive, absolute) */
    double rnorm;    /* last recursive ||r|| (absolute) */
    double base;     /* what rtol multiplies */
    double *history; /* keep_history: ||r_k||, k = 0..iterations */
    int64_t nhistory, cap_history;
} tl_solve_result;

void tl_solve_result_free(tl_solve_result *r);

/* After a solve: a converged verdict whose true residual ||b - A x||
 * (absolute) misses the tolerance becomes TL_STOP_TRUE_RESIDUAL, the
 * recursive verdict kept in the detail. */
void tl_solve_true_verdict(const tl_solve_params *p, tl_solve_result *res, double true_rnorm);
/* A method's own stop with that verdict: the recursive residual met the
 * tolerance, b - A x (absolute) did not, and going on from it did not help
 * (`why` says so). Returns 1, as tl_solve_stop. */
int tl_solve_stop_true(const tl_solve_params *p, tl_solve_result *res, double true_rnorm,
                       const char *why);
/* CG's (r, M^-1 r) <= 0 after the update (rz, with ||r|| = rnorm) at
 * iteration it. With M SPD (none, or Jacobi on a positive diagonal,
 * checked before the first step) it is 0 only where r is 0 or
 * underflowed (past rounding level: measured on poisson7 n = 8 at
 * iteration 350; fixed-iteration mode restarts there instead, see
 * method_cg.c), a breakdown and not a verdict on the matrix; below 0 the
 * matrix is not SPD. Returns 1, as tl_solve_stop. */
int tl_solve_stop_rz(tl_solve_result *res, double rz, double rnorm, int64_t it);
/* Going on from b - A x when the recursive residual alone converged pays
 * while each such restart at least halves the true residual. */
#define TL_TRUE_RESTART_GAIN 0.5

/* Methods call these. tl_solve_begin records ||r0|| and the base; then
 * tl_solve_check(it, ||r_it||) returns 1 when the method must stop (reason
 * set), 0 to go on. Both are deterministic functions of allreduced values,
 * so every rank stops at the same iteration. */
tl_status tl_solve_begin(tl_ctx *ctx, const tl_solve_params *p, tl_solve_result *res,
                         double r0norm);
int tl_solve_check(tl_ctx *ctx, const tl_solve_params *p, tl_solve_result *res, int64_t it,
                   double rnorm);
/* 1 when ||r|| = rnorm meets the tolerances (rtol or atol; never in
 * fixed-iteration mode): a method that checks its recursive residual
 * against the true one before stopping asks this first. */
/* The progress line at iteration it of the current solve (nothing without one). */
void tl_solve_progress(const tl_solve_params *p, int64_t it);
int tl_solve_meets_tol(const tl_solve_params *p, const tl_solve_result *res, double rnorm);
/* Stop with a breakdown-type reason; returns 1 for `if (...) break;` use. */
int tl_solve_stop(tl_solve_result *res, tl_stop_reason why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the driver ------------------------------------------------------------ */

typedef struct tl_method tl_method; /* solvers/methods/method.h */

/* Vectors tl_solve_run holds besides the method's own: b, x, r, tmp. */
#define TL_SOLVE_VECTORS 4

typedef struct tl_solve_config {
    const tl_method *method;
    int variant; /* tl_variant (method.h) of the method to run; 0: host scalars */
    const char *backend; /* "host", "cuda", "petsc" */
    tl_backend_config bcfg;
    tl_solve_params params;
    int64_t warmup, repeat;
    /* iteration limit of the warm-up solves (the paper's 10 warm-up
     * iterations); 0: params.max_iterations, as the timed solves */
    int64_t warmup_iterations;
} tl_solve_config;

/* What one configuration produced, the same for every backend (rank 0's
 * copy is complete; the others hold their own stats). */
typedef struct tl_solve_report {
    tl_solve_result res; /* of the last timed solve */
    double true_rnorm;   /* ||b - A x|| recomputed after the last solve */
    double *times;       /* per timed solve, seconds, max over ranks */
    int64_t ntimes;
    tl_stats time;                      /* min / median / max / mean of `times` */
    int64_t *iterations;                /* per timed solve */
    tl_stop_reason *reasons;            /* per timed solve, after the true-residual verdict */
    double *residuals, *true_residuals; /* per timed solve, relative to the base */
    tl_opstat stats[TL_OP_COUNT]; /* summed over timed solves: ns max over ranks, bytes summed */
    int have_stats;
    int omp_threads;
    int64_t nglobal, nnz;
} tl_solve_report;

void tl_solve_report_free(tl_solve_report *r);
/* Allocate the per-solve arrays of `rep` (nrep entries each, zeroed);
 * tl_solve_report_free releases them, also after a failure. */
tl_status tl_solve_report_alloc(tl_solve_report *rep, int64_t nrep);
/* Set rep->ntimes = nrep and rep->time from the first nrep rep->times. */
tl_status tl_solve_report_time_stats(tl_solve_report *rep, int64_t nrep);

/* ||x||_2 of a host array as LAPACK's dnrm2 scales it: M = max |x_i|,
 * then M sqrt(sum (x_i / M)^2), so that the squares neither overflow
 * (entries of 1e200: (x, x) = inf) nor underflow (1e-200: (x, x) = 0,
 * which read as b = 0). Collective over the ranks' parts when ctx has a
 * communicator; ctx NULL: this array alone. NaN where an entry is NaN,
 * inf where one is infinite. */
tl_status tl_solve_nrm2(tl_ctx *ctx, const double *x, int64_t n, double *out);
/* The largest ||r0|| = ||b - A x0|| whose square, the first reduction of
 * every method ((r, r) and its kin), is a double: sqrt(DBL_MAX); and the
 * smallest above zero whose square is a normal one: sqrt(DBL_MIN). */
#define TL_SOLVE_NORM_MAX 1.3407807929942596e+154
#define TL_SOLVE_NORM_MIN 1.4916681462400413e-154
/* b = 0: x = 0 solves A x = b exactly, with no method (trilap's own and
 * the PETSc path alike, so that both judge b = 0 the same way). */
void tl_solve_stop_b_zero(tl_solve_result *res);

/* Collective on ctx. Runs cfg->warmup untimed and cfg->repeat timed solves
 * of A x = b from x0 (local owned parts, local order) with backend `be`;
 * x_out (may be NULL) receives the last solution. */
tl_status tl_solve_run(tl_ctx *ctx, tl_backend *be, const tl_solve_config *cfg,
                       const double *b_local, const double *x0_local, double *x_out,
                       tl_solve_report *rep);

/* ---- output ----------------------------------------------------------------- */

typedef struct tl_solve_labels {
    const char *solver, *precond, *schedule, *backend, *matrix, *partition, *launcher;
    int nranks;
} tl_solve_labels;

/* key: value lines (rank 0 only calls it). */
void tl_solve_print(FILE *out, const tl_solve_labels *lb, const tl_solve_config *cfg,
                    const tl_solve_report *rep);
/* Per-operation table. */
void tl_solve_print_stats(FILE *out, const tl_solve_report *rep);
/* Per-rank halo table; collective (gathers to rank 0, which prints). */
tl_status tl_solve_print_halo(tl_ctx *ctx, FILE *out, const tl_dist_matrix *m, int64_t exchanges);
/* One CSV row per timed solve (rank 0); rows (NULL: not kept) takes
 * their lines, for the manifest. */
tl_status tl_solve_results_append(const char *path, const tl_solve_labels *lb,
                                  const tl_solve_config *cfg, const tl_solve_report *rep, tl_results_rows *rows);
/* The header of those rows. */
extern const char tl_solve_results_header[];
/* Before the runs: whether `path` can take these rows (tl_results_check:
 * not a stream, it and manifest.txt writable, an existing file's header
 * these rows'), rather than an append refused after the work. */
tl_status tl_solve_results_check(const char *path);
/* Residual history "iteration,residual,relative" (rank 0), atomically. */
tl_status tl_solve_history_write(const char *path, const tl_solve_result *res);

#endif
