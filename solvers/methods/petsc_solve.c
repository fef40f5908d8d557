/* PETSc cross-check: KSPCG / KSPPIPECG / KSPBCGS / KSPPIPEBCGS with PCJACOBI
 * on trilap's distributed matrix (see petsc_solve.h for what is compared). */
#include "solvers/methods/petsc_solve.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

const char *tl_petsc_ksp_type(const char *method)
{
    static const char *const map[][2] = {{"cg", "cg"},
                                         {"pcg", "cg"},
                                         {"pipecg", "pipecg"},
                                         {"bicgstab", "bcgs"},
                                         {"pipebicgstab", "pipebcgs"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (method && strcmp(map[i][0], method) == 0) return map[i][1];
    return NULL;
}

/* The option families refused but for the names taken (prefixes of
 * them: -ksp_monitor_true_residual is a monitor too), each with its line. */
static const struct {
    const char *family;
    const char *taken[8];
    const char *why;
} petsc_refused[] = {
    {"-ksp_",
     {"-ksp_monitor", "-ksp_view", "-ksp_converged_reason", "-ksp_converged_rate", "-ksp_compute_eigenvalues",
      "-ksp_compute_singularvalues", "-ksp_plot_eigenvalues"},
     TL_PETSC_OPTION_REFUSED},
    {"-pc_", {NULL}, TL_PETSC_OPTION_REFUSED},
    {"-mat_", {"-mat_view"}, TL_PETSC_MATVEC_OPTION_REFUSED},
    {"-vec_", {NULL}, TL_PETSC_MATVEC_OPTION_REFUSED},
};

/* The refusal of the option at p (len bytes), NULL when it is taken. */
static const char *option_refusal(const char *p, size_t len)
{
    for (size_t f = 0; f < sizeof petsc_refused / sizeof petsc_refused[0]; f++) {
        if (strncmp(p, petsc_refused[f].family, strlen(petsc_refused[f].family))) continue;
        for (size_t k = 0; k < 8 && petsc_refused[f].taken[k]; k++) {
            size_t n = strlen(petsc_refused[f].taken[k]);
            if (len >= n && !strncmp(p, petsc_refused[f].taken[k], n)) return NULL;
        }
        return petsc_refused[f].why;
    }
    return NULL;
}

const char *tl_petsc_option_refused(const char *options, char *name, size_t nname)
{
    for (const char *p = options ? options : ""; *p;) {
        size_t len = strcspn(p, " \t\n");
        /* a name: '-' and a letter (a value may be -1e-3) */
        const char *why = len > 1 && p[0] == '-' && isalpha((unsigned char)p[1]) ? option_refusal(p, len) : NULL;
        if (why) {
            snprintf(name, nname, "%.*s", (int)len, p);
            return why;
        }
        p += len;
        p += strspn(p, " \t\n");
    }
    return NULL;
}

#if TL_HAVE_PETSC && TL_HAVE_MPI

#include "runtime/comm.h"
#include "runtime/progress.h"
#include "runtime/timing.h"
#include "solvers/methods/method.h"
#include "solvers/methods/petsc_lib.h"

/* Every PETSc call goes through pl, the library loaded at run time
 * (petsc_lib.h): trilap-solve is not linked with PETSc, so a call that
 * bypassed the table would not link. TL_PETSC needs pl in scope. */
#define TL_PETSC(expr, res, label)                                                                 \
    do {                                                                                           \
        PetscErrorCode tl_pe_ = (expr);                                                            \
        if (tl_pe_) {                                                                              \
            const char *tl_pm_ = NULL;                                                             \
            pl->PetscErrorMessage(tl_pe_, &tl_pm_, NULL);                                          \
            (res) = tl_error_report(TL_ERR_SYS, TL_FILE_, __LINE__, #expr, "PETSc error %d: %s",   \
                                    (int)tl_pe_, tl_pm_ ? tl_pm_ : "unknown");                     \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

static tl_status need_mpi(tl_ctx *ctx)
{
    if (ctx->mode != TL_LAUNCH_MPI)
        return TL_FAIL(
            TL_ERR_UNSUPPORTED,
            "the PETSc backend needs MPI ranks (mpirun -np N trilap-solve --backend petsc ...); "
            "the thread launcher is not supported");
    return TL_OK;
}

/* The options database (PETSC_OPTIONS, .petscrc files) against what
 * trilap's options choose: tl_petsc_option_refused. */
static tl_status options_refused(const tl_petsc_lib *pl)
{
    tl_status st = TL_OK;
    char *all = NULL, name[128];
    TL_PETSC(pl->PetscOptionsGetAll(NULL, &all), st, fail);
    const char *why = tl_petsc_option_refused(all, name, sizeof name);
    if (why) {
        char line[1024];
        snprintf(line, sizeof line, why, name);
        st = TL_FAIL(TL_ERR_INVAL, "%s", line);
    }
    (*pl->PetscTrFree)(all, __LINE__, PETSC_FUNCTION_NAME, __FILE__); /* PetscFree(all) */
fail:
    return st;
}

/* PETSc's library on every rank, agreed (collective). Rank 0 loads it
 * first, so that a library missing everywhere is said once, not by each
 * rank; a rank that then fails alone says why. Each entry point loads it
 * again: a loaded library is the same handle, its table of some 50
 * symbols filled anew in microseconds, and no table is kept between calls. */
static tl_status load_agreed(tl_ctx *ctx, tl_petsc_lib *pl)
{
    memset(pl, 0, sizeof *pl);
    tl_status st = tl_comm_agree(ctx, ctx->rank == 0 ? tl_petsc_lib_load(pl) : TL_OK);
    if (st == TL_OK) st = tl_comm_agree(ctx, ctx->rank != 0 ? tl_petsc_lib_load(pl) : TL_OK);
    if (st != TL_OK) tl_petsc_lib_unload(pl);
    return st;
}

tl_status tl_petsc_init(tl_ctx *ctx)
{
    tl_status st = TL_OK;
    tl_petsc_lib lib, *pl = &lib;
    TL_TRY(need_mpi(ctx));
    TL_TRY(load_agreed(ctx, pl));
    PetscBool done = PETSC_FALSE;
    pl->PetscFinalized(&done);
    TL_CHECKGOTO(!done, TL_ERR_UNSUPPORTED, st, fail, "PETSc was finalized in this process and cannot start again");
    PetscBool inited = PETSC_FALSE;
    pl->PetscInitialized(&inited);
    if (inited) goto fail; /* started by an earlier call: nothing to do */
    /* PETSc on trilap-solve's MPI, initialised already (PETSc leaves it
     * to its caller to finalise) */
    *pl->PETSC_COMM_WORLD = tl_comm_mpi(ctx, TL_CHAN_WORLD);
    TL_PETSC(pl->PetscInitializeNoArguments(), st, fail);
    /* every rank holds rank 0's PETSC_OPTIONS: rank 0 says it once */
    if (ctx->rank == 0) st = options_refused(pl);
    st = tl_comm_agree(ctx, st);
    if (st != TL_OK) pl->PetscFinalize(); /* the driver tears down only what set up */
fail:
    tl_petsc_lib_unload(pl);
    return st;
}

tl_status tl_petsc_finalize(tl_ctx *ctx)
{
    tl_status st = TL_OK;
    tl_petsc_lib lib, *pl = &lib;
    TL_TRY(load_agreed(ctx, pl));
    PetscBool inited = PETSC_FALSE;
    pl->PetscInitialized(&inited);
    if (inited) TL_PETSC(pl->PetscFinalize(), st, fail);
fail:
    tl_petsc_lib_unload(pl);
    return st;
}

/* PETSc numbers rows contiguously per rank; trilap's local order (interior
 * | border) becomes rows rstart .. rstart + nowned - 1. A ghost's PETSc
 * index is its owner's rstart + local index, fetched with one halo
 * exchange of those numbers (exact in a double below 2^53). */
static tl_status build_matrix(tl_ctx *ctx, const tl_petsc_lib *pl, const tl_dist_matrix *m, Mat *A)
{
    tl_status st = TL_OK;
    int64_t *counts = NULL;
    double *num = NULL;
    PetscInt *gcol = NULL, *dnz = NULL, *onz = NULL, *cols = NULL;
    tl_halo_xchg *hx = NULL;
    int64_t n = m->nowned, rstart = 0;
    TL_CHECKGOTO(counts = calloc((size_t)ctx->size, sizeof *counts), TL_ERR_NOMEM, st, fail,
                 "counts");
    TL_TRYGOTO(tl_comm_allgather(ctx, &n, counts, sizeof n), st, fail);
    for (int r = 0; r < ctx->rank; r++)
        rstart += counts[r];
    size_t nall = (size_t)(m->nowned + m->nghost);
    num = calloc(nall + 1, sizeof *num);
    gcol = calloc(nall + 1, sizeof *gcol);
    dnz = calloc((size_t)n + 1, sizeof *dnz);
    onz = calloc((size_t)n + 1, sizeof *onz);
    int64_t maxrow = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t len =
            m->diag.rowptr[i + 1] - m->diag.rowptr[i] + m->offd.rowptr[i + 1] - m->offd.rowptr[i];
        if (len > maxrow) maxrow = len;
    }
    cols = calloc((size_t)maxrow, sizeof *cols);
    TL_CHECKGOTO(num && gcol && dnz && onz && cols, TL_ERR_NOMEM, st, fail,
                 "PETSc matrix of %lld rows", (long long)n);
    for (int64_t i = 0; i < n; i++)
        num[i] = (double)(rstart + i);
    if (ctx->size > 1) {
        TL_TRYGOTO(tl_halo_xchg_create(ctx, m, &hx), st, fail);
        TL_TRYGOTO(tl_halo_begin(ctx, hx, num), st, fail);
        TL_TRYGOTO(tl_halo_end(ctx, hx, num), st, fail);
    }
    for (size_t i = 0; i < nall; i++)
        gcol[i] = (PetscInt)num[i];
    for (int64_t i = 0; i < n; i++) {
        dnz[i] = (PetscInt)(m->diag.rowptr[i + 1] - m->diag.rowptr[i]);
        onz[i] = (PetscInt)(m->offd.rowptr[i + 1] - m->offd.rowptr[i]);
    }
    TL_PETSC(pl->MatCreateAIJ(*pl->PETSC_COMM_WORLD, (PetscInt)n, (PetscInt)n, PETSC_DETERMINE,
                          PETSC_DETERMINE, 0, dnz, 0, onz, A),
             st, fail);
    TL_PETSC(pl->MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE), st, fail);
    for (int64_t i = 0; i < n; i++) {
        PetscInt row = (PetscInt)(rstart + i), k = 0;
        for (int64_t j = m->diag.rowptr[i]; j < m->diag.rowptr[i + 1]; j++)
            cols[k++] = gcol[m->diag.colidx[j]];
        TL_PETSC(pl->MatSetValues(*A, 1, &row, k, cols, m->diag.val + m->diag.rowptr[i], INSERT_VALUES),
                 st, fail);
        k = 0;
        for (int64_t j = m->offd.rowptr[i]; j < m->offd.rowptr[i + 1]; j++)
            cols[k++] = gcol[m->nowned + m->offd.colidx[j]];
        if (k)
            TL_PETSC(
                pl->MatSetValues(*A, 1, &row, k, cols, m->offd.val + m->offd.rowptr[i], INSERT_VALUES),
                st, fail);
    }
    TL_PETSC(pl->MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY), st, fail);
    TL_PETSC(pl->MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY), st, fail);
fail:
    tl_halo_xchg_destroy(&hx);
    free(counts);
    free(num);
    free(gcol);
    free(dnz);
    free(onz);
    free(cols);
    return st;
}

static tl_stop_reason map_reason(KSPConvergedReason r, int fixed)
{
    switch (r) {
    case KSP_CONVERGED_RTOL_NORMAL:
    case KSP_CONVERGED_RTOL:
        return TL_STOP_RTOL;
    case KSP_CONVERGED_ATOL_NORMAL:
    case KSP_CONVERGED_ATOL:
        return TL_STOP_ATOL;
    case KSP_CONVERGED_ITS:
    case KSP_DIVERGED_ITS:
        return fixed ? TL_STOP_FIXED : TL_STOP_MAXIT;
    case KSP_DIVERGED_INDEFINITE_PC:
    case KSP_DIVERGED_INDEFINITE_MAT:
        return TL_STOP_NOT_SPD;
    case KSP_DIVERGED_NANORINF:
        return TL_STOP_NONFINITE;
    default:
        return r > 0 ? TL_STOP_RTOL : TL_STOP_BREAKDOWN;
    }
}

/* Rank 0's progress line, advanced by KSP's monitor: iteration it of the
 * solve numbered progress_at (set only when the line is shown, so that an
 * unwatched run calls no monitor). */
static PetscErrorCode progress_monitor(KSP ksp, PetscInt it, PetscReal rnorm, void *arg)
{
    (void)ksp;
    (void)rnorm;
    const tl_solve_params *p = arg;
    tl_solve_progress(p, (int64_t)it);
    return 0;
}

/* ||v||_2 scaled on the host as trilap's methods measure it
 * (tl_solve_nrm2): VecNorm's read 0 for a residual of 1e-166 (b of
 * 1e-150, converged), on one rank and on two. Collective. */
static tl_status host_norm(tl_ctx *ctx, const tl_petsc_lib *pl, Vec v, double *out)
{
    tl_status st = TL_OK;
    const PetscScalar *a = NULL;
    PetscInt n = 0;
    TL_PETSC(pl->VecGetLocalSize(v, &n), st, fail);
    TL_PETSC(pl->VecGetArrayRead(v, &a), st, fail);
    st = tl_solve_nrm2(ctx, a, (int64_t)n, out);
    TL_PETSC(pl->VecRestoreArrayRead(v, &a), st, fail);
fail:
    return st;
}

/* Timed solve ik's result into rep: PETSc's count, recursive residual
 * and reason (b = 0: none ran, x = 0, trilap's verdict), the true
 * residual ||b - A x|| measured here, the verdict on it. */
static tl_status record_solve(tl_ctx *ctx, const tl_petsc_lib *pl, KSP ksp, Mat A, Vec b, Vec x, Vec r, const tl_solve_params *p,
                              const char *type, double bnorm, double r0norm, int64_t ik, tl_solve_report *rep)
{
    tl_status st = TL_OK;
    PetscInt its = 0;
    PetscReal rn = 0.0;
    double tn;
    KSPConvergedReason why = KSP_CONVERGED_ITERATING;
    if (bnorm != 0.0) {
        TL_PETSC(pl->KSPGetIterationNumber(ksp, &its), st, fail);
        TL_PETSC(pl->KSPGetResidualNorm(ksp, &rn), st, fail);
        TL_PETSC(pl->KSPGetConvergedReason(ksp, &why), st, fail);
    }
    TL_PETSC(pl->MatMult(A, x, r), st, fail);
    TL_PETSC(pl->VecAYPX(r, -1.0, b), st, fail);
    TL_TRYGOTO(host_norm(ctx, pl, r, &tn), st, fail);
    double base = p->base == TL_BASE_R0 ? r0norm : bnorm;
    rep->iterations[ik] = its;
    rep->residuals[ik] = rn / (base > 0 ? base : 1.0);
    rep->true_residuals[ik] = tn / (base > 0 ? base : 1.0);
    rep->true_rnorm = tn;
    rep->res.iterations = its;
    rep->res.rnorm = rn;
    rep->res.r0norm = r0norm;
    rep->res.base = base;
    if (bnorm == 0.0) {
        tl_solve_stop_b_zero(&rep->res);
    } else {
        rep->res.reason = map_reason(why, tl_solve_benchmark(p));
        /* KSPPIPECG's loop runs while i <= max_it: at its limit it does
         * one iteration more than asked, and counts it */
        snprintf(rep->res.detail, sizeof rep->res.detail, "PETSc %s: %s%s", type, (*pl->KSPConvergedReasons)[why],
                 its > p->max_iterations ? "; KSPPIPECG does max_it + 1 iterations at its limit" : "");
    }
    tl_solve_true_verdict(p, &rep->res, tn);
    rep->reasons[ik] = rep->res.reason;
fail:
    return st;
}

tl_status tl_petsc_solve_run(tl_ctx *ctx, const tl_dist_matrix *m, const tl_solve_config *cfg,
                             const double *b_local, const double *x0_local, double *x_out,
                             tl_solve_report *rep)
{
    tl_status st = TL_OK;
    Mat A = NULL;
    Vec b = NULL, x = NULL, x0 = NULL, r = NULL;
    KSP ksp = NULL;
    PC pc = NULL;
    tl_petsc_lib lib, *pl = &lib;
    memset(rep, 0, sizeof *rep);
    TL_TRY(need_mpi(ctx));
    const char *type = tl_petsc_ksp_type(cfg->method->name);
    TL_CHECK(type, TL_ERR_UNSUPPORTED, "no PETSc KSP for method %s", cfg->method->name);
    TL_TRY(load_agreed(ctx, pl));
    const tl_solve_params *p = &cfg->params;
    int64_t nrep = cfg->repeat, n = m->nowned;
    TL_TRYGOTO(tl_solve_report_alloc(rep, nrep), st, fail);

    TL_TRYGOTO(build_matrix(ctx, pl, m, &A), st, fail);
    TL_PETSC(pl->MatCreateVecs(A, &x, &b), st, fail);
    TL_PETSC(pl->VecDuplicate(x, &x0), st, fail);
    TL_PETSC(pl->VecDuplicate(x, &r), st, fail);
    PetscScalar *a;
    TL_PETSC(pl->VecGetArray(b, &a), st, fail);
    memcpy(a, b_local, (size_t)n * sizeof *a);
    TL_PETSC(pl->VecRestoreArray(b, &a), st, fail);
    TL_PETSC(pl->VecGetArray(x0, &a), st, fail);
    if (x0_local)
        memcpy(a, x0_local, (size_t)n * sizeof *a);
    else
        memset(a, 0, (size_t)n * sizeof *a);
    TL_PETSC(pl->VecRestoreArray(x0, &a), st, fail);

    double r0norm;
    double bnorm;
    /* as tl_solve_run: on the host, scaled, so that b = 0 means the same */
    TL_TRYGOTO(tl_solve_nrm2(ctx, b_local, n, &bnorm), st, fail);
    TL_PETSC(pl->MatMult(A, x0, r), st, fail);
    TL_PETSC(pl->VecAYPX(r, -1.0, b), st, fail);
    TL_TRYGOTO(host_norm(ctx, pl, r, &r0norm), st, fail);

    TL_PETSC(pl->KSPCreate(*pl->PETSC_COMM_WORLD, &ksp), st, fail);
    TL_PETSC(pl->KSPSetOperators(ksp, A, A), st, fail);
    TL_PETSC(pl->KSPSetType(ksp, type), st, fail);
    TL_PETSC(pl->KSPGetPC(ksp, &pc), st, fail);
    TL_PETSC(pl->PCSetType(pc, cfg->bcfg.precond == TL_PRECOND_JACOBI ? PCJACOBI : PCNONE), st, fail);
    /* BiCGStab: right preconditioning, so r is the true residual as in trilap */
    if (!cfg->method->spd) TL_PETSC(pl->KSPSetPCSide(ksp, PC_RIGHT), st, fail);
    TL_PETSC(pl->KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED), st, fail);
    /* no divergence test: trilap has none either */
    TL_PETSC(pl->KSPSetTolerances(ksp, p->rtol, p->atol, PETSC_MAX_REAL, (PetscInt)p->max_iterations),
             st, fail);
    if (p->base == TL_BASE_R0) TL_PETSC(pl->KSPConvergedDefaultSetUIRNorm(ksp), st, fail);
    TL_PETSC(pl->KSPSetInitialGuessNonzero(ksp, x0_local ? PETSC_TRUE : PETSC_FALSE), st, fail);
    /* PETSC_OPTIONS' monitors and viewers (the others were refused at
     * tl_petsc_init): without this call -ksp_monitor and -ksp_view did nothing */
    TL_PETSC(pl->KSPSetFromOptions(ksp), st, fail);
    TL_PETSC(pl->KSPSetUp(ksp), st, fail);
    tl_solve_params prog = *p; /* progress_at moves with the solves */
    if (p->progress && p->progress->on)
        TL_PETSC(pl->KSPMonitorSet(ksp, progress_monitor, &prog, NULL), st, fail);

    for (int64_t k = 0; k < cfg->warmup + nrep; k++) {
        TL_PETSC(pl->VecCopy(x0, x), st, fail);
        prog.progress_at = (double)k;
        if (prog.progress) tl_progress_update(prog.progress, (double)k);
        int64_t t0;
        double sec;
        TL_TRYGOTO(tl_time_start(ctx, &t0), st, fail);
        /* b = 0: x = 0, as trilap's methods (PETSc iterated from a nonzero
         * x0 to rtol ||r0||, and the verdict against rtol ||b|| = 0 was
         * "converged: no") */
        if (bnorm == 0.0)
            TL_PETSC(pl->VecSet(x, 0.0), st, fail);
        else
            TL_PETSC(pl->KSPSolve(ksp, b, x), st, fail);
        TL_TRYGOTO(tl_time_stop(ctx, t0, &sec), st, fail);
        if (k < cfg->warmup) continue;
        TL_TRYGOTO(record_solve(ctx, pl, ksp, A, b, x, r, p, type, bnorm, r0norm, k - cfg->warmup, rep), st, fail);
        rep->times[k - cfg->warmup] = sec;
    }
    TL_TRYGOTO(tl_solve_report_time_stats(rep, nrep), st, fail);
    PetscInt mrows, nz;
    MatInfo info;
    TL_PETSC(pl->MatGetSize(A, &mrows, NULL), st, fail);
    TL_PETSC(pl->MatGetInfo(A, MAT_GLOBAL_SUM, &info), st, fail);
    nz = (PetscInt)info.nz_used;
    rep->nglobal = mrows;
    rep->nnz = nz;
    rep->have_stats = 0;
    /* what ran (the rows said 0): PETSc's AIJ MatMult and its Vec
     * kernels are not threaded, so one thread a rank (a threaded BLAS
     * under its Vec dots and updates aside; Debian's is the reference one) */
    rep->omp_threads = 1;
    if (x_out) {
        const PetscScalar *xa;
        TL_PETSC(pl->VecGetArrayRead(x, &xa), st, fail);
        memcpy(x_out, xa, (size_t)n * sizeof *x_out);
        TL_PETSC(pl->VecRestoreArrayRead(x, &xa), st, fail);
    }
fail:
    if (ksp) pl->KSPDestroy(&ksp);
    if (b) pl->VecDestroy(&b);
    if (x) pl->VecDestroy(&x);
    if (x0) pl->VecDestroy(&x0);
    if (r) pl->VecDestroy(&r);
    if (A) pl->MatDestroy(&A);
    tl_petsc_lib_unload(pl);
    return st;
}

#else

tl_status tl_petsc_init(tl_ctx *ctx)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED,
                   "this build has no PETSc (install petsc-dev and MPI, rebuild)");
}

tl_status tl_petsc_finalize(tl_ctx *ctx)
{
    return TL_OK;
}

tl_status tl_petsc_solve_run(tl_ctx *ctx, const tl_dist_matrix *m, const tl_solve_config *cfg,
                             const double *b_local, const double *x0_local, double *x_out,
                             tl_solve_report *rep)
{
    memset(rep, 0, sizeof *rep);
    return TL_FAIL(TL_ERR_UNSUPPORTED,
                   "this build has no PETSc (install petsc-dev and MPI, rebuild)");
}

#endif
