/* trilap-solve on rank 0: the matrix, the vectors and the partition,
 * read and checked before any run (a zero diagonal under Jacobi, inputs
 * whose scale no double holds), and what it warns of (a nonsymmetric
 * matrix for cg, pcg and pipecg, ranks without rows, more OpenMP threads
 * than cores). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solvers/dist/partition.h"
#include "solvers/matrix/gen.h"
#include "solvers/matrix/input_check.h"
#include "solvers/matrix/mmio.h"
#include "solvers/driver/solve_impl.h"

/* cg, pcg and pipecg assume a symmetric (positive definite) matrix; on
 * another one they stagnate or stop on a breakdown with no word why. */
void tl_solve_cli_warn_nonsymmetric(const solve_opts *o, const tl_csr *a)
{
    int64_t i = 0, j = 0;
    for (int k = 0; k < o->nmethods; k++) {
        if (!o->methods[k]->spd) continue;
        if (tl_csr_is_symmetric(a, 1e-12, &i, &j)) return;
        fprintf(stderr,
                "%s: warning: %s assumes a symmetric matrix and %s is not (entry %lld,%lld differs from "
                "%lld,%lld); use --solver bicgstab or pipebicgstab\n",
                PROGRAM, o->methods[k]->name, o->matrix, (long long)i + 1, (long long)j + 1, (long long)j + 1,
                (long long)i + 1);
        return;
    }
}

/* Jacobi divides by the diagonal: a zero there (or none) is refused before
 * any run, naming the matrix and the first such row. The backends' own
 * check names no matrix and stops only the run that reaches it, after the
 * runs before it have printed their reports. The PETSc path too: its
 * PCJACOBI takes 1 for a zero diagonal entry and ran (KSPCG stopped "not
 * SPD", exit 3) where trilap's own methods refuse the matrix. */
static tl_status check_jacobi_diagonal(const solve_opts *o, const tl_csr *a)
{
    const char *who = NULL;
    for (int k = 0; k < o->nmethods && !who; k++)
        if (tl_solve_cli_run_precond(o, o->methods[k]) == TL_PRECOND_JACOBI) who = o->methods[k]->name;
    if (!who) return TL_OK;
    int64_t first = -1, zeros = tl_csr_zero_diagonal(a, &first);
    TL_INPUT_CHECK(zeros == 0, TL_ERR_NUMERIC,
                   "%s: %lld zero diagonal entr%s (the first in row %lld), but %s's Jacobi preconditioner divides by "
                   "the diagonal; use --precond none",
                   o->matrix, (long long)zeros, zeros == 1 ? "y" : "ies", (long long)first + 1, who);
    return TL_OK;
}

/* The largest row 2-norm of A M^-1 (*rho), M the preconditioner: I, or
 * Jacobi's diagonal (no zero there: check_jacobi_diagonal came first);
 * each row as dnrm2 measures it (tl_solve_nrm2), so that rows of 1e200
 * are measured, not overflowed. */
static tl_status operator_scale(const tl_csr *a, tl_precond pc, double *rho)
{
    double *d = NULL, *row = NULL;
    int64_t longest = 1;
    for (int64_t i = 0; i < a->nrows; i++)
        if (a->rowptr[i + 1] - a->rowptr[i] > longest) longest = a->rowptr[i + 1] - a->rowptr[i];
    TL_ALLOC(d, a->nrows > 0 ? a->nrows : 1);
    tl_status st = TL_OK;
    TL_CHECKGOTO(row = malloc((size_t)longest * sizeof *row), TL_ERR_NOMEM, st, fail, "a row of %lld entries",
                 (long long)longest);
    tl_csr_diagonal(a, d);
    *rho = 0.0;
    for (int64_t i = 0; i < a->nrows; i++) {
        int64_t k0 = a->rowptr[i], len = a->rowptr[i + 1] - k0;
        for (int64_t k = 0; k < len; k++)
            row[k] = pc == TL_PRECOND_JACOBI ? a->val[k0 + k] / d[a->colidx[k0 + k]] : a->val[k0 + k];
        double rn;
        TL_TRYGOTO(tl_solve_nrm2(NULL, row, len, &rn), st, fail);
        if (rn > *rho) *rho = rn;
    }
fail:
    free(d);
    free(row);
    return st;
}

/* The matrix's scale against r0's, for preconditioner pc. Every method
 * multiplies A M^-1 by vectors of r0's size (p = M^-1 r, then A p) and
 * reduces what comes out: (p, A p) in CG, and squares of it in the others
 * (BiCGStab's (t, t), Pipe-BiCGStab's (y, y), Pipe-CG's delta and its
 * recurrences). rho, the largest row 2-norm of A M^-1, is a lower bound of
 * ||A M^-1||_2 (the row's own direction reaches it) and within sqrt(n) of
 * it, so rho ||r0|| is the size of A p, as ||A|| ||x|| is of A x, and its
 * square must be a normal double as ||r0||'s must. Entries of 1e200 with b = ones
 * and no preconditioner: bicgstab stopped "(t, t) = inf", pipebicgstab
 * "(q, y) = -nan", pipecg "delta = -nan" (exit 3); of 1e-200: pipebicgstab
 * "omega = 0". CG alone never squares a product and ran there; refused all
 * the same, so that one system gets one answer from every method trilap
 * compares. Jacobi's A D^-1 has a unit diagonal: the same matrix, scaled as
 * a whole, runs with it. */
static tl_status check_matrix_scale(const solve_opts *o, const tl_csr *a, tl_precond pc, const char *norm,
                                    double nr)
{
    double rho = 0.0;
    TL_TRY(operator_scale(a, pc, &rho));
    if (rho == 0.0 || nr == 0.0) return TL_OK;
    const double s = rho * nr; /* inf or 0 where it leaves the doubles: refused below */
    const int jacobi = pc == TL_PRECOND_JACOBI, over = !(s <= TL_SOLVE_NORM_MAX);
    TL_INPUT_CHECK(
        !over && s >= TL_SOLVE_NORM_MIN, TL_ERR_NUMERIC,
        "%s: its largest row norm%s, %.3e, times %s = %.3e is %.3e, whose square, the size of (A p, A p) for a "
        "vector p of r0's size, %s a double (%s %.1e); %s",
        o->matrix, jacobi ? " with Jacobi (of A D^-1)" : "", rho, norm, nr, s, over ? "overflows" : "underflows",
        over ? "above" : "below", over ? TL_SOLVE_NORM_MAX : TL_SOLVE_NORM_MIN,
        jacobi ? "scale the matrix's rows and b alike"
               : over ? "divide the matrix by a power of ten (x scales inversely), or use --precond jacobi"
                      : "multiply the matrix by a power of ten (x scales inversely), or use --precond jacobi");
    return TL_OK;
}

/* Every method's first reduction is (r0, r0) = ||b - A x0||^2 (and its
 * kin), on the host and on the GPU alike: where that square is no normal
 * double the run could only print inf and NaN (entries of 1e200: "||b|| =
 * inf", "residual: -nan", exit 3) or stop on a zero read from an
 * underflow (1e-200: "b = 0: x = 0", converged, x = 0). Refused before any
 * run, naming the inputs; then the matrix's scale against it, for each
 * preconditioner the runs use (check_matrix_scale). */
static tl_status check_scale(const solve_opts *o, const tl_csr *a, const double *b, const double *x0)
{
    double *r = NULL, nr = 0.0;
    if (x0) {
        TL_ALLOC(r, a->nrows);
        tl_csr_spmv(a, x0, r);
        for (int64_t i = 0; i < a->nrows; i++)
            r[i] = b[i] - r[i];
    }
    tl_status st = tl_solve_nrm2(NULL, r ? r : b, a->nrows, &nr);
    free(r);
    TL_TRY(st);
    char inputs[1024];
    /* b is a file wherever x0 is (the positionals come in order) */
    if (x0)
        snprintf(inputs, sizeof inputs, "%s, %s, %s", o->matrix, o->rhs, o->x0);
    else
        snprintf(inputs, sizeof inputs, "%s", o->rhs ? o->rhs : "b");
    const char *norm = x0 ? "||b - A x0||" : "||b||", *scaled = x0 ? "b and x0" : "b";
    TL_INPUT_CHECK(isfinite(nr), TL_ERR_NUMERIC, "%s: %s overflows a double; divide %s by a power of ten (x scales with %s)",
                   inputs, norm, scaled, x0 ? "them" : "it");
    TL_INPUT_CHECK(nr <= TL_SOLVE_NORM_MAX, TL_ERR_NUMERIC,
                   "%s: %s = %.3e, whose square, every method's first dot product (r0, r0), overflows a double "
                   "(above %.1e); divide %s by a power of ten (x scales with %s)",
                   inputs, norm, nr, TL_SOLVE_NORM_MAX, scaled, x0 ? "them" : "it");
    TL_INPUT_CHECK(nr == 0.0 || nr >= TL_SOLVE_NORM_MIN, TL_ERR_NUMERIC,
                   "%s: %s = %.3e, whose square, every method's first dot product (r0, r0), underflows a double "
                   "(below %.1e); multiply %s by a power of ten (x scales with %s)",
                   inputs, norm, nr, TL_SOLVE_NORM_MIN, scaled, x0 ? "them" : "it");
    int done[2] = {0, 0}; /* none, Jacobi: each measured once */
    for (int k = 0; k < o->nmethods; k++) {
        tl_precond pc = tl_solve_cli_run_precond(o, o->methods[k]);
        int j = pc == TL_PRECOND_JACOBI;
        if (done[j]++) continue;
        TL_TRY(check_matrix_scale(o, a, pc, norm, nr));
    }
    return TL_OK;
}

/* Ranks without rows still join every allreduce and halo phase: their
 * run measures the collectives of more ranks than the matrix feeds. */
static void warn_idle_ranks(const solve_opts *o, int nparts, int64_t nrows, int idle)
{
    fprintf(stderr,
            "%s: warning: %d of the %d ranks own%s no rows of %s (%lld row%s): %s every allreduce and halo "
            "phase with nothing to compute; use fewer ranks\n",
            PROGRAM, idle, nparts, idle == 1 ? "s" : "", o->matrix, (long long)nrows, nrows == 1 ? "" : "s",
            idle == 1 ? "it joins" : "they join");
}

/* The thread count each host rank will use, as the backend chooses it
 * (tl_backend_host_threads), said where it cannot be what was meant: an
 * OMP_NUM_THREADS that is no thread count, taken as unset (libgomp gave
 * such a value every core, for every rank, in silence), and a count beyond
 * the cores its ranks on this host have each, whatever its source (1000
 * threads on 2 cores was taken without a word, and OMP_NUM_THREADS=8 on 2
 * ranks still was): it runs, as one may ask to measure it, but such times
 * measure the OS scheduler as much as the method. */
void tl_solve_cli_warn_omp_threads(const tl_ctx *ctx, const solve_opts *o)
{
    if (!TL_HAVE_OPENMP || !solve_backends[o->backend].omp) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int local = ctx->local_size > 0 ? ctx->local_size : 1;
    long each = cores / local > 1 ? cores / local : 1;
    tl_omp_source src;
    int n = tl_backend_host_threads((int)o->omp_threads, local, &src);
    if (src == TL_OMP_ENV_INVALID)
        fprintf(stderr, "%s: note: OMP_NUM_THREADS '%s' is not a positive whole number: taken as unset, %d thread%s per "
                "rank (cores / ranks on this host)\n", PROGRAM, getenv("OMP_NUM_THREADS"), n, n == 1 ? "" : "s");
    if (n <= each || cores < 1) return;
    char asked[96];
    if (src == TL_OMP_FROM_OPTION) snprintf(asked, sizeof asked, "--omp-threads %d", n);
    else snprintf(asked, sizeof asked, "OMP_NUM_THREADS=%.60s", getenv("OMP_NUM_THREADS"));
    fprintf(stderr,
            "%s: warning: %s with %d rank%s on this host is %lld threads for its %ld core%s: "
            "they take turns, and the times measure the OS scheduler as much as the solver\n",
            PROGRAM, asked, local, local == 1 ? "" : "s", (long long)n * local, cores, cores == 1 ? "" : "s");
}

tl_status tl_solve_cli_load_inputs(const solve_opts *o, int nparts, tl_csr *a, double **b, double **x0,
                                   int **part, char *partdesc, size_t ndesc)
{
    TL_TRY(tl_gen_load(o->matrix, 1, a));
    TL_TRY(check_jacobi_diagonal(o, a));
    int64_t n = a->nrows, len = 0;
    if (o->rhs) {
        TL_TRY(tl_mm_read_vector(o->rhs, n, b, &len));
    } else {
        TL_ALLOC(*b, n);
        for (int64_t i = 0; i < n; i++)
            (*b)[i] = 1.0;
    }
    if (o->x0) TL_TRY(tl_mm_read_vector(o->x0, n, x0, &len));
    TL_TRY(check_scale(o, a, *b, o->x0 ? *x0 : NULL));
    TL_ALLOC(*part, n);
    const char *spec = o->partition;
    const int automatic = strcmp(spec, "auto") == 0;
    if (automatic) spec = TL_HAVE_METIS ? "metis" : "block";
    TL_TRY(tl_partition_by_spec(spec, a, nparts, *part));
    tl_partition_stats ps;
    TL_TRY(tl_partition_stats_compute(a, *part, nparts, &ps));
    char chosen[96] = "";
    const int64_t block_empty = nparts > n ? nparts - n : 0; /* a block split's ranks without rows */
    if (automatic && ps.empty_parts > block_empty && strcmp(spec, "block") != 0) {
        /* METIS leaves parts empty on small graphs (17 of 20 on the 36
         * rows of ani1_nonsymm; with more parts than rows, all rows in
         * one) where a block split gives every rank it can a row: the
         * default takes the split that uses the ranks asked for */
        snprintf(chosen, sizeof chosen, "; auto: %s left %d part%s empty", spec, ps.empty_parts,
                 ps.empty_parts == 1 ? "" : "s");
        spec = "block";
        TL_TRY(tl_partition_by_spec(spec, a, nparts, *part));
        TL_TRY(tl_partition_stats_compute(a, *part, nparts, &ps));
    }
    if (!strncmp(spec, "metis", 5) && nparts > 1 && !tl_partition_metis_called(n, nparts))
        snprintf(chosen, sizeof chosen, "; as many parts as rows or more: a row each, METIS not called");
    snprintf(partdesc, ndesc, "%s (%d part%s, edge cut %lld, rows %lld..%lld, imbalance %.3f%s)", spec, nparts,
             nparts == 1 ? "" : "s", (long long)ps.edgecut, (long long)ps.min_rows, (long long)ps.max_rows,
             ps.imbalance, chosen);
    if (ps.empty_parts > 0) warn_idle_ranks(o, nparts, n, ps.empty_parts);
    return TL_OK;
}
