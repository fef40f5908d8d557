/* Stopping criteria, the timed driver and the output of trilap-solve. */
#include "solvers/methods/solve.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"
#include "runtime/comm.h"
#include "runtime/progress.h"
#include "runtime/results.h"
#include "solvers/matrix/outfile.h"
#include "solvers/matrix/input_check.h"
#include "solvers/methods/method.h"

static const char *const tl_stop_names[TL_STOP_COUNT] = {
    [TL_STOP_NONE] = "running",
    [TL_STOP_RTOL] = "relative tolerance reached",
    [TL_STOP_ATOL] = "absolute tolerance reached",
    [TL_STOP_ZERO] = "residual is zero",
    [TL_STOP_FIXED] = "fixed iteration count done (rtol = atol = 0, benchmark mode)",
    [TL_STOP_MAXIT] = "maximum iterations reached",
    [TL_STOP_NOT_SPD] = "matrix not SPD",
    [TL_STOP_BREAKDOWN] = "breakdown",
    [TL_STOP_NONFINITE] = "non-finite value",
    [TL_STOP_TRUE_RESIDUAL] = "recursive residual converged",
};

const char *tl_stop_name(tl_stop_reason r)
{
    return (r >= 0 && r < TL_STOP_COUNT) ? tl_stop_names[r] : "unknown";
}

int tl_stop_converged(tl_stop_reason r)
{
    return r == TL_STOP_RTOL || r == TL_STOP_ATOL || r == TL_STOP_ZERO;
}

void tl_solve_result_free(tl_solve_result *r)
{
    if (!r) return;
    free(r->history);
    r->history = NULL;
    r->nhistory = r->cap_history = 0;
}

static void history_push(tl_solve_result *res, double rnorm)
{
    if (res->nhistory == res->cap_history) {
        int64_t cap = res->cap_history ? 2 * res->cap_history : 256;
        double *h = realloc(res->history, (size_t)cap * sizeof *h);
        if (!h) return; /* the history is a diagnostic; a short one is said in its length */
        res->history = h;
        res->cap_history = cap;
    }
    res->history[res->nhistory++] = rnorm;
}

tl_status tl_solve_begin(tl_ctx *ctx, const tl_solve_params *p, tl_solve_result *res, double r0norm)
{
    TL_CHECK(p->rtol >= 0 && p->atol >= 0 && p->max_iterations >= 0, TL_ERR_INVAL,
             "rtol %g, atol %g, max iterations %lld", p->rtol, p->atol,
             (long long)p->max_iterations);
    res->reason = TL_STOP_NONE;
    res->detail[0] = 0;
    res->iterations = 0;
    res->r0norm = r0norm;
    res->rnorm = r0norm;
    res->base = p->base == TL_BASE_R0 ? r0norm : p->bnorm;
    res->nhistory = 0;
    return TL_OK;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The first word w in s at or after `from` ("inf" in "= -inf at", not in
 * "info"), or NULL. */
static char *find_word(char *s, char *from, const char *w)
{
    size_t n = strlen(w);
    for (char *p = strstr(from, w); p; p = strstr(p + 1, w))
        if (!(p > s && word_char(p[-1])) && !word_char(p[n])) return p;
    return NULL;
}

int tl_solve_stop(tl_solve_result *res, tl_stop_reason why, const char *fmt, ...)
{
    res->reason = why;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->detail, sizeof res->detail, fmt, ap);
    va_end(ap);
    /* a NaN's sign bit means nothing, and glibc prints it: "-nan" read as
     * a number below zero */
    char *d = res->detail;
    for (char *m = find_word(d, d, "nan"); m; m = find_word(d, m + 1, "nan")) {
        if (m == d || m[-1] != '-') continue;
        memmove(m - 1, m, strlen(m) + 1);
        m--;
    }
    /* printf's inf and nan said in words, where a verdict prints them:
     * "(q, y) = -nan, (y, y) = -nan" told the user nothing */
    int has_inf = find_word(d, d, "inf") != NULL, has_nan = find_word(d, d, "nan") != NULL;
    size_t at = strlen(res->detail);
    if (has_inf || has_nan)
        snprintf(res->detail + at, sizeof res->detail - at, " (%s%s%s)",
                 has_inf ? "inf: past the largest double, an overflow" : "", has_inf && has_nan ? "; " : "",
                 has_nan ? "nan: no number, an overflow or underflow met by another: inf - inf, 0 * inf, 0 / 0" : "");
    return 1;
}

int tl_solve_meets_tol(const tl_solve_params *p, const tl_solve_result *res, double rnorm)
{
    if (tl_solve_benchmark(p)) return 0;
    return rnorm == 0.0 || (p->rtol > 0 && rnorm <= p->rtol * res->base) ||
           (p->atol > 0 && rnorm <= p->atol);
}

void tl_solve_progress(const tl_solve_params *p, int64_t it)
{
    if (p->progress && p->max_iterations > 0)
        tl_progress_update(p->progress, p->progress_at + fmin(1.0, (double)it / (double)p->max_iterations));
}

int tl_solve_check(tl_ctx *ctx, const tl_solve_params *p, tl_solve_result *res, int64_t it,
                   double rnorm)
{
    res->iterations = it;
    res->rnorm = rnorm;
    if (p->keep_history) history_push(res, rnorm);
    tl_solve_progress(p, it);
    if (p->monitor && ctx->rank == 0)
        fprintf(stderr, "%6lld  ||r|| %.6e  ||r||/base %.6e\n", (long long)it, rnorm,
                res->base > 0 ? rnorm / res->base : rnorm);
    if (!isfinite(rnorm))
        return tl_solve_stop(res, TL_STOP_NONFINITE, "||r|| = %g at iteration %lld", rnorm,
                             (long long)it);
    int fixed = tl_solve_benchmark(p);
    /* x0 solves A x = b exactly: no method can take a first step (they
     * stopped "matrix not SPD: p'Ap = 0" or "breakdown" in benchmark mode),
     * and none is needed, as b = 0 in tl_solve_run */
    if (fixed && it == 0 && rnorm == 0.0)
        return tl_solve_stop(res, TL_STOP_ZERO, "||r0|| = 0: x0 solves A x = b exactly");
    if (fixed) {
        if (it >= p->max_iterations && res->rounding_at > 0)
            return tl_solve_stop(res, TL_STOP_FIXED,
                                 "%lld iterations; the residual was at rounding level from "
                                 "iteration %lld on",
                                 (long long)it, (long long)res->rounding_at);
        if (it >= p->max_iterations)
            return tl_solve_stop(res, TL_STOP_FIXED, "%lld iterations", (long long)it);
        return 0;
    }
    if (rnorm == 0.0)
        return tl_solve_stop(res, TL_STOP_ZERO, "||r|| = 0 at iteration %lld", (long long)it);
    if (p->rtol > 0 && rnorm <= p->rtol * res->base)
        return tl_solve_stop(res, TL_STOP_RTOL, "||r|| = %.3e <= rtol * %s = %.3e", rnorm,
                             p->base == TL_BASE_R0 ? "||r0||" : "||b||", p->rtol * res->base);
    if (p->atol > 0 && rnorm <= p->atol)
        return tl_solve_stop(res, TL_STOP_ATOL, "||r|| = %.3e <= atol = %.3e", rnorm, p->atol);
    if (it >= p->max_iterations)
        return tl_solve_stop(res, TL_STOP_MAXIT, "%lld iterations, ||r|| = %.3e", (long long)it,
                             rnorm);
    return 0;
}

/* ---- driver ---------------------------------------------------------------- */

/* A stop on the recursive residual is a claim about b - A x: the driver's
 * true residual must meet the same tolerance, or the verdict is "not
 * converged" (on a matrix with condition number 4e14 the recurrences reach
 * rtol 1e-8 while b - A x stays at 1e-3). Every rank holds the same
 * allreduced norms, so every rank reaches the same verdict. */
int tl_solve_stop_true(const tl_solve_params *p, tl_solve_result *res, double true_rnorm,
                       const char *why)
{
    if (p->rtol > 0 && res->base > 0)
        return tl_solve_stop(res, TL_STOP_TRUE_RESIDUAL,
                             "true residual %.3e (||b - A x|| / %s) > rtol = %.3e; %s",
                             true_rnorm / res->base, p->base == TL_BASE_R0 ? "||r0||" : "||b||",
                             p->rtol, why);
    return tl_solve_stop(res, TL_STOP_TRUE_RESIDUAL, "true residual %.3e (||b - A x||) > atol = %.3e; %s",
                         true_rnorm, p->atol, why);
}

void tl_solve_true_verdict(const tl_solve_params *p, tl_solve_result *res, double true_rnorm)
{
    /* b - A x = 0 meets every tolerance, fixed-iteration mode's too (b = 0
     * there read "converged: no, true residual 0 > atol = 0", exit 3) */
    if (!tl_stop_converged(res->reason) || true_rnorm == 0.0 ||
        tl_solve_meets_tol(p, res, true_rnorm))
        return;
    char was[sizeof res->detail + 16];
    snprintf(was, sizeof was, "recursive: %s", res->detail);
    tl_solve_stop_true(p, res, true_rnorm, was);
}

int tl_solve_stop_rz(tl_solve_result *res, double rz, double rnorm, int64_t it)
{
    if (rz < 0.0)
        return tl_solve_stop(res, TL_STOP_NOT_SPD, "(r, M^-1 r) = %.3e <= 0 at iteration %lld", rz,
                             (long long)it);
    return tl_solve_stop(res, TL_STOP_BREAKDOWN,
                         "(r, M^-1 r) = 0 at iteration %lld: the recursive residual reached zero "
                         "or underflowed (||r|| = %.3e), so no further step can be taken",
                         (long long)it, rnorm);
}

void tl_solve_report_free(tl_solve_report *r)
{
    if (!r) return;
    tl_solve_result_free(&r->res);
    free(r->times);
    free(r->iterations);
    free(r->reasons);
    free(r->residuals);
    free(r->true_residuals);
    memset(r, 0, sizeof *r);
}

tl_status tl_solve_report_alloc(tl_solve_report *rep, int64_t nrep)
{
    rep->times = calloc((size_t)nrep, sizeof *rep->times);
    rep->iterations = calloc((size_t)nrep, sizeof *rep->iterations);
    rep->reasons = calloc((size_t)nrep, sizeof *rep->reasons);
    rep->residuals = calloc((size_t)nrep, sizeof *rep->residuals);
    rep->true_residuals = calloc((size_t)nrep, sizeof *rep->true_residuals);
    TL_CHECK(rep->times && rep->iterations && rep->reasons && rep->residuals && rep->true_residuals, TL_ERR_NOMEM,
             "%lld repeats", (long long)nrep);
    return TL_OK;
}

tl_status tl_solve_report_time_stats(tl_solve_report *rep, int64_t nrep)
{
    rep->ntimes = nrep;
    double *sorted = malloc((size_t)nrep * sizeof *sorted);
    TL_CHECK(sorted, TL_ERR_NOMEM, "%lld times", (long long)nrep);
    memcpy(sorted, rep->times, (size_t)nrep * sizeof *sorted);
    rep->time = tl_stats_of(sorted, (size_t)nrep);
    free(sorted);
    return TL_OK;
}

static int have_comm(const tl_ctx *ctx)
{
    return ctx->hc != NULL;
}

/* max |x_i|, NaN when an entry is NaN (fmax would pass it over) */
static double max_abs(const double *x, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (isnan(a)) return a;
        if (a > m) m = a;
    }
    return m;
}

tl_status tl_solve_nrm2(tl_ctx *ctx, const double *x, int64_t n, double *out)
{
    double m = max_abs(x, n), ssq = 0.0;
    if (ctx && have_comm(ctx)) TL_TRY(tl_comm_allreduce(ctx, &m, 1, TL_DOUBLE, TL_MAX));
    if (m > 0.0 && isfinite(m))
        for (int64_t i = 0; i < n; i++) {
            double s = x[i] / m; /* |s| <= 1: its square cannot overflow */
            ssq += s * s;
        }
    if (ctx && have_comm(ctx)) TL_TRY(tl_comm_allreduce(ctx, &ssq, 1, TL_DOUBLE, TL_SUM));
    *out = m > 0.0 && isfinite(m) ? m * sqrt(ssq) : m;
    return TL_OK;
}

void tl_solve_stop_b_zero(tl_solve_result *res)
{
    tl_solve_stop(res, TL_STOP_ZERO, "b = 0: x = 0");
}

tl_status tl_solve_run(tl_ctx *ctx, tl_backend *be, const tl_solve_config *cfg,
                       const double *b_local, const double *x0_local, double *x_out,
                       tl_solve_report *rep)
{
    tl_status st = TL_OK;
    tl_vec *b = NULL, *x = NULL, *r = NULL, *tmp = NULL;
    double *r_host = NULL;
    memset(rep, 0, sizeof *rep);
    TL_CHECK(cfg->method && cfg->repeat >= 1 && cfg->warmup >= 0, TL_ERR_INVAL,
             "repeat %lld, warmup %lld", (long long)cfg->repeat, (long long)cfg->warmup);
    TL_CHECK(cfg->variant >= 0 && cfg->variant < TL_VARIANT_COUNT &&
                 cfg->method->variants[cfg->variant],
             TL_ERR_INVAL, "%s has no variant %d", cfg->method->name, cfg->variant);
    tl_method_fn solve = cfg->method->variants[cfg->variant];
    int64_t nrep = cfg->repeat;
    TL_TRYGOTO(tl_solve_report_alloc(rep, nrep), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &b), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &x), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &r), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &tmp), st, fail);
    TL_CHECKGOTO(r_host = malloc((size_t)(be->m->nowned > 0 ? be->m->nowned : 1) * sizeof *r_host), TL_ERR_NOMEM, st,
                 fail, "a residual of %lld rows", (long long)be->m->nowned);
    TL_TRYGOTO(be->ops->vec_set(be, b, b_local), st, fail);
    tl_solve_params prm = cfg->params;
    /* on the host, scaled, from the array every backend was given: (b, b)
     * was inf for entries of 1e200 and 0 for 1e-200 ("b = 0: x = 0") */
    TL_TRYGOTO(tl_solve_nrm2(ctx, b_local, be->m->nowned, &prm.bnorm), st, fail);
    rep->nglobal = be->nglobal;
    rep->nnz = be->nnz_global;
    rep->omp_threads = be->cfg.omp_threads;

    for (int64_t k = 0; k < cfg->warmup + nrep; k++) {
        int timed = k >= cfg->warmup;
        int64_t ik = k - cfg->warmup;
        if (k == cfg->warmup) {
            tl_backend_stats_reset(be);
            tl_probe_window_start(ctx);
        }
        if (x0_local)
            TL_TRYGOTO(be->ops->vec_set(be, x, x0_local), st, fail);
        else
            TL_TRYGOTO(tl_be_fill(be, x, 0.0), st, fail);
        tl_solve_result_free(&rep->res);
        memset(&rep->res, 0, sizeof rep->res);
        prm.max_iterations = !timed && cfg->warmup_iterations > 0 ? cfg->warmup_iterations
                                                                  : cfg->params.max_iterations;
        prm.keep_history = cfg->params.keep_history && k == cfg->warmup + nrep - 1;
        prm.monitor = cfg->params.monitor && k == cfg->warmup + nrep - 1;
        prm.progress_at = (double)k;
        if (prm.progress) tl_progress_update(prm.progress, (double)k);
        int64_t t0 = 0;
        if (have_comm(ctx))
            TL_TRYGOTO(tl_time_start(ctx, &t0), st, fail);
        else
            t0 = tl_clock_ns();
        if (prm.bnorm == 0.0) {
            /* x = 0 solves A x = 0 exactly; no method needed */
            TL_TRYGOTO(tl_be_fill(be, x, 0.0), st, fail);
            tl_solve_stop_b_zero(&rep->res);
        } else {
            TL_TRYGOTO(solve(be, &prm, b, x, &rep->res), st, fail);
        }
        TL_TRYGOTO(be->ops->finish(be), st, fail);
        double sec;
        if (have_comm(ctx))
            TL_TRYGOTO(tl_time_stop(ctx, t0, &sec), st, fail);
        else
            sec = (double)(tl_clock_ns() - t0) * 1e-9;
        if (!timed) continue;
        if (ik == nrep - 1) tl_probe_window_stop(ctx);
        /* the true residual, outside the timed region, scaled on the host
         * as ||b|| is: the backend's (r, r) read 0 where a residual of
         * 1e-166 (b of 1e-150, converged) squared underflowed */
        double tn;
        TL_TRYGOTO(tl_be_residual(be, b, x, r, tmp), st, fail);
        TL_TRYGOTO(be->ops->vec_get(be, r, r_host), st, fail);
        TL_TRYGOTO(tl_solve_nrm2(ctx, r_host, be->m->nowned, &tn), st, fail);
        double base = rep->res.base > 0 ? rep->res.base : 1.0;
        rep->times[ik] = sec;
        rep->iterations[ik] = rep->res.iterations;
        rep->residuals[ik] = rep->res.rnorm / base;
        rep->true_residuals[ik] = tn / base;
        rep->true_rnorm = tn;
        tl_solve_true_verdict(&prm, &rep->res, tn);
        rep->reasons[ik] = rep->res.reason;
    }
    TL_TRYGOTO(tl_solve_report_time_stats(rep, nrep), st, fail);

    /* statistics: time and count the maximum over ranks, bytes the sum */
    int64_t nsmax[2 * TL_OP_COUNT];
    double bytes[TL_OP_COUNT];
    for (int o = 0; o < TL_OP_COUNT; o++) {
        nsmax[o] = be->stats[o].ns;
        nsmax[TL_OP_COUNT + o] = be->stats[o].count;
        bytes[o] = be->stats[o].bytes;
    }
    if (have_comm(ctx)) {
        TL_TRYGOTO(tl_comm_allreduce(ctx, nsmax, 2 * TL_OP_COUNT, TL_INT64, TL_MAX), st, fail);
        TL_TRYGOTO(tl_comm_allreduce(ctx, bytes, TL_OP_COUNT, TL_DOUBLE, TL_SUM), st, fail);
    }
    for (int o = 0; o < TL_OP_COUNT; o++) {
        rep->stats[o].ns = nsmax[o];
        rep->stats[o].count = nsmax[TL_OP_COUNT + o];
        rep->stats[o].bytes = bytes[o];
    }
    rep->have_stats = 1;
    if (x_out) TL_TRYGOTO(be->ops->vec_get(be, x, x_out), st, fail);
fail:
    free(r_host);
    tl_be_vec_free(be, &b);
    tl_be_vec_free(be, &x);
    tl_be_vec_free(be, &r);
    tl_be_vec_free(be, &tmp);
    return st;
}

/* ---- output ------------------------------------------------------------------ */

static const char *base_name(const tl_solve_params *p)
{
    return p->base == TL_BASE_R0 ? "||r0||" : "||b||";
}

void tl_solve_print(FILE *out, const tl_solve_labels *lb, const tl_solve_config *cfg,
                    const tl_solve_report *rep)
{
    const tl_solve_params *p = &cfg->params;
    const tl_solve_result *res = &rep->res;
    fprintf(out, "solver: %s\n", lb->solver);
    fprintf(out, "precond: %s\n", lb->precond);
    if (lb->schedule) fprintf(out, "schedule: %s\n", lb->schedule); /* NULL: a caller without one */
    fprintf(out, "backend: %s\n", lb->backend);
    fprintf(out, "ranks: %d\n", lb->nranks);
    if (lb->launcher) fprintf(out, "launcher: %s\n", lb->launcher);
    if (rep->omp_threads > 0) fprintf(out, "omp threads per rank: %d\n", rep->omp_threads);
    fprintf(out, "matrix: %s\n", lb->matrix);
    if (lb->partition) fprintf(out, "partition: %s\n", lb->partition);
    fprintf(out, "rows: %lld\n", (long long)rep->nglobal);
    fprintf(out, "nonzeros: %lld\n", (long long)rep->nnz);
    fprintf(out, "rtol: %g\n", p->rtol);
    fprintf(out, "atol: %g\n", p->atol);
    fprintf(out, "max iterations: %lld\n", (long long)p->max_iterations);
    if (p->residual_replacement > 0)
        fprintf(out, "residual replacement: every %lld iterations\n",
                (long long)p->residual_replacement);
    fprintf(out, "residual base: %s = %.6e\n", base_name(p), res->base);
    fprintf(out, "converged: %s\n", tl_stop_converged(res->reason) ? "yes" : "no");
    if (res->reason == TL_STOP_TRUE_RESIDUAL)
        fprintf(out, "reason: %s, %s\n", tl_stop_name(res->reason), res->detail);
    else if (res->reason == TL_STOP_NOT_SPD || res->reason == TL_STOP_BREAKDOWN ||
             res->reason == TL_STOP_NONFINITE)
        fprintf(out, "reason: %s: %s\n", tl_stop_name(res->reason), res->detail);
    else
        fprintf(out, "reason: %s (%s)\n", tl_stop_name(res->reason), res->detail);
    fprintf(out, "iterations: %lld\n", (long long)res->iterations);
    if (res->restarts) fprintf(out, "restarts: %lld\n", (long long)res->restarts);
    if (res->replacements)
        fprintf(out, "residual replacements: %lld (automatic)\n", (long long)res->replacements);
    if (res->rounding_at > 0)
    {
        if (res->rounding_rnorm > 0)
            fprintf(out,
                    "rounding level: from iteration %lld (recurrence scalars at rounding noise; "
                    "recursive ||r|| = %.3e, true ||b - Ax|| = %.3e there)\n",
                    (long long)res->rounding_at, res->rounding_recursive, res->rounding_rnorm);
        else
            fprintf(out,
                    "rounding level: from iteration %lld (recurrence scalars at rounding noise; "
                    "recursive ||r|| = %.3e there)\n",
                    (long long)res->rounding_at, res->rounding_recursive);
    }
    double base = res->base > 0 ? res->base : 1.0;
    fprintf(out, "residual: %.6e\n", res->rnorm / base);
    fprintf(out, "true residual: %.6e\n", rep->true_rnorm / base);
    fprintf(out, "residual norms: recursive ||r|| and true ||b - Ax||, divided by %s\n",
            base_name(p));
    fprintf(out, "residual absolute: %.6e\n", res->rnorm);
    fprintf(out, "true residual absolute: %.6e\n", rep->true_rnorm);
    fprintf(out, "warmup solves: %lld\n", (long long)cfg->warmup);
    if (cfg->warmup_iterations > 0)
        fprintf(out, "warmup iterations: %lld per warm-up solve\n",
                (long long)cfg->warmup_iterations);
    fprintf(out, "timed solves: %lld\n", (long long)rep->ntimes);
    fprintf(out, "solver time: %.6e s\n", rep->time.median);
    fprintf(out, "solver time min: %.6e s\n", rep->time.min);
    fprintf(out, "solver time median: %.6e s\n", rep->time.median);
    fprintf(out, "solver time max: %.6e s\n", rep->time.max);
    fprintf(out,
            "solver time protocol: barrier, host clock, max over ranks, median of timed solves\n");
    if (res->iterations > 0)
        fprintf(out, "time per iteration: %.6e s\n", rep->time.median / (double)res->iterations);
}

void tl_solve_print_stats(FILE *out, const tl_solve_report *rep)
{
    if (!rep->have_stats) {
        fprintf(out, "# per-operation statistics: not recorded by this backend\n");
        return;
    }
    fprintf(out,
            "# per-operation statistics over %lld timed solves; time: max over ranks, "
            "bytes: sum over ranks\n",
            (long long)rep->ntimes);
    fprintf(out, "%-10s %10s %12s %14s %10s\n", "operation", "count", "time", "bytes", "rate");
    fprintf(out, "%-10s %10s %12s %14s %10s\n", "", "", "s", "B", "GB/s");
    int rows = 0;
    for (int o = 0; o < TL_OP_COUNT; o++) {
        const tl_opstat *s = &rep->stats[o];
        /* the persistent loop's row only where a backend ran one (CUDA
         * --persistent): elsewhere it was a row of zeros */
        if (o == TL_OP_LOOP && s->count == 0) continue;
        double sec = (double)s->ns * 1e-9;
        fprintf(out, "%-10s %10lld %12.4e %14.4e %10.3f\n", tl_op_name((tl_op_kind)o),
                (long long)s->count, sec, s->bytes, sec > 0 ? s->bytes / sec * 1e-9 : 0.0);
        rows++;
    }
    fprintf(out, "# %d rows\n", rows);
}

tl_status tl_solve_print_halo(tl_ctx *ctx, FILE *out, const tl_dist_matrix *m, int64_t exchanges)
{
    enum { K = 6 };
    const tl_halo_plan *h = &m->halo;
    int64_t mine[K] = {h->nneighbors, h->nsend,
                       h->nrecv,      (h->nsend + h->nrecv) * (int64_t)sizeof(double),
                       m->nowned,     m->nborder};
    int64_t *all = calloc((size_t)ctx->size * K, sizeof *all);
    TL_CHECK(all, TL_ERR_NOMEM, "%d ranks", ctx->size);
    tl_status st = TL_OK;
    if (ctx->hc)
        st = tl_comm_allgather(ctx, mine, all, sizeof mine);
    else
        memcpy(all, mine, sizeof mine);
    if (st == TL_OK && ctx->rank == 0) {
        fprintf(out,
                "# per-rank halo: values sent and received per exchange; %lld exchanges (max over "
                "ranks)\n",
                (long long)exchanges);
        fprintf(out, "%6s %10s %10s %10s %10s %12s %12s\n", "rank", "rows", "border", "neighbours",
                "send", "recv", "bytes");
        fprintf(out, "%6s %10s %10s %10s %10s %12s %12s\n", "", "", "", "", "values", "values",
                "B/exchange");
        for (int r = 0; r < ctx->size; r++) {
            const int64_t *a = all + (size_t)r * K;
            fprintf(out, "%6d %10lld %10lld %10lld %10lld %12lld %12lld\n", r, (long long)a[4],
                    (long long)a[5], (long long)a[0], (long long)a[1], (long long)a[2],
                    (long long)a[3]);
        }
        fprintf(out, "# %d rows\n", ctx->size);
    }
    free(all);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}

const char tl_solve_results_header[] =
    "solver,precond,schedule,backend,matrix,nranks,rep,iterations,residual,true_residual,"
    "solver_time_s,"
    "converged,reason,rows,nonzeros,rtol,atol,rtol_base,max_iterations,warmup,omp_threads,"
    "warmup_iterations,us_per_iter";

tl_status tl_solve_results_check(const char *path) { return tl_results_check(path, tl_solve_results_header); }

tl_status tl_solve_results_append(const char *path, const tl_solve_labels *lb,
                                  const tl_solve_config *cfg, const tl_solve_report *rep, tl_results_rows *rows)
{
    static const char *const header = tl_solve_results_header;
    const tl_solve_params *p = &cfg->params;
    /* matrix names are file names: quoted (inner quotes doubled, RFC 4180)
     * so that commas cannot split the row */
    char matrix[1024];
    tl_results_quote(matrix, sizeof matrix, lb->matrix);
    for (int64_t k = 0; k < rep->ntimes; k++) {
        /* each repeat's own stop (the last one's was on every row); the
         * reason is prose ("fixed iteration count done (rtol = atol =
         * 0, benchmark mode)"): no commas in it, so that every reader that
         * splits on commas (awk -F, in scripts/, gnuplot) finds the
         * columns after it */
        const tl_stop_reason why = rep->reasons[k];
        char reason[256];
        snprintf(reason, sizeof reason, "%s", tl_stop_name(why));
        for (char *q = reason; *q; q++)
            if (*q == ',') *q = ';';
        /* solver_time_s is the max over ranks, so this is too; none
         * without iterations (b = 0, x0 a solution, --max-iterations 0),
         * where it said 0, a time the median of a column would take in,
         * and the report prints no time per iteration */
        char us[32] = "";
        if (rep->iterations[k] > 0)
            snprintf(us, sizeof us, "%.6g", rep->times[k] / (double)rep->iterations[k] * 1e6);
        char row[2048];
        snprintf(
            row, sizeof row,
            "%s,%s,%s,%s,%s,%d,%lld,%lld,%.6e,%.6e,%.6e,%s,%s,%lld,%lld,%g,%g,%s,%lld,%lld,%d,"
            "%lld,%s",
            lb->solver, lb->precond, lb->schedule, lb->backend, matrix, lb->nranks, (long long)k,
            (long long)rep->iterations[k], rep->residuals[k], rep->true_residuals[k], rep->times[k],
            tl_stop_converged(why) ? "yes" : "no", reason, (long long)rep->nglobal,
            (long long)rep->nnz, p->rtol, p->atol, p->base == TL_BASE_R0 ? "r0" : "b",
            (long long)p->max_iterations, (long long)cfg->warmup, rep->omp_threads,
            (long long)(cfg->warmup_iterations > 0 ? cfg->warmup_iterations : p->max_iterations),
            us);
        TL_TRY(tl_results_append(path, header, row, rows));
    }
    return TL_OK;
}

tl_status tl_solve_history_write(const char *path, const tl_solve_result *res)
{
    size_t cap = 64 + (size_t)res->nhistory * 64;
    char *buf = malloc(cap);
    TL_CHECK(buf, TL_ERR_NOMEM, "%zu bytes", cap);
    size_t len = (size_t)snprintf(buf, cap, "iteration,residual,relative_residual\n");
    double base = res->base > 0 ? res->base : 1.0;
    for (int64_t k = 0; k < res->nhistory; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%lld,%.17g,%.17g\n", (long long)k,
                                res->history[k], res->history[k] / base);
    /* through tl_outfile, as --solution: gzip where the name ends in .gz
     * (it wrote plain text under that name) */
    tl_outfile *f = NULL;
    tl_status st = tl_outfile_open(path, &f);
    if (st == TL_OK) st = tl_outfile_write(f, buf, len);
    if (st == TL_OK) st = tl_outfile_commit(&f);
    tl_outfile_abort(&f);
    free(buf);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}
