/* Pipe-PCG's forms against the one statement of its recurrences
 * (solvers/backends/pipecg_form.h), iteration by iteration: the statement
 * run literally here (serial, the curvature and the eight updates from its
 * table), the CUDA backend's arithmetic run here on the host (the scalar
 * program tl_sc_pipecg and the per-entry update tl_cu_pipecg_values, which
 * the fused update kernel and the persistent loop run), method_pipecg.c
 * (scalars on the host) and pipecg_async.c (scalar programs) on the host
 * backend with 1 and 2 thread ranks. Every form must take the same number
 * of iterations, ||r_k|| within 1e-10 ||r_0|| of the statement's at every
 * k, and the same x. A reordered statement is caught by the same check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/launch.h"
#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/update_entry.h"
#include "solvers/backends/pipecg_form.h"
#include "solvers/backends/scalars.h"
#include "solvers/dist/dist.h"
#include "solvers/dist/partition.h"
#include "solvers/matrix/gen.h"
#include "solvers/methods/method.h"
#include "solvers/methods/solve.h"
#include "tests/tl_test.h"

enum { MAXIT = 200 };
#define RTOL 1e-10
#define TOL 1e-10

typedef struct history {
    int64_t n; /* iterations run: ||r_k||, k = 0..n */
    double r[MAXIT + 1];
    double *x;
} history;

static void spmv(const tl_csr *A, const double *x, double *y)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += A->val[k] * x[A->colidx[k]];
        y[i] = s;
    }
}

static double dot(const double *a, const double *b, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* How the serial forms make an iteration's scalars and update pass. */
typedef enum {
    FORM_STATEMENT, /* pipecg_form.h as written */
    FORM_DEVICE,    /* tl_sc_pipecg + tl_cu_pipecg_values (the CUDA kernels' arithmetic) */
    FORM_REORDERED  /* the statement with x += alpha p before p = u + beta p: must differ */
} serial_form;

/* Pipe-PCG from x0 = 0, b = 1, Jacobi, serially in one of the forms. */
static void run_serial(const tl_csr *A, serial_form form, history *h)
{
    int64_t n = A->nrows;
    double *v[TL_PCG_NVEC], *dinv = malloc((size_t)n * sizeof *dinv);
    for (int k = 0; k < TL_PCG_NVEC; k++)
        v[k] = calloc((size_t)n, sizeof(double));
    tl_csr_diagonal(A, dinv);
    for (int64_t i = 0; i < n; i++) {
        dinv[i] = 1.0 / dinv[i];
        v[TL_PCG_R][i] = 1.0; /* r = b - A 0 */
        v[TL_PCG_U][i] = dinv[i] * v[TL_PCG_R][i];
    }
    spmv(A, v[TL_PCG_U], v[TL_PCG_W]);
    double bnorm = sqrt((double)n), gamma_old = 0.0, alpha_old = 0.0;
    double st[2][TL_SC_STATE] = {{0}};
    st[0][TL_SC_ST_RTOL] = RTOL * bnorm;
    st[0][TL_SC_ST_ATOL] = -1.0;
    st[0][TL_SC_ST_SOFT_TOL] = -1.0;
    tl_pcg_axpy ax[TL_PCG_NAXPY];
    memcpy(ax, tl_pcg_axpys, sizeof ax);
    if (form == FORM_REORDERED) { /* x += alpha p first: the old direction */
        tl_pcg_axpy t = ax[4];
        memmove(&ax[1], &ax[0], 4 * sizeof ax[0]);
        ax[0] = t;
    }
    int64_t it = 0;
    for (;; it++) {
        for (int64_t i = 0; i < n; i++)
            v[TL_PCG_M][i] = dinv[i] * v[TL_PCG_W][i];
        spmv(A, v[TL_PCG_M], v[TL_PCG_N]);
        double d[TL_PCG_NDOT];
        for (int k = 0; k < TL_PCG_NDOT; k++)
            d[k] = dot(v[tl_pcg_dots[k][0]], v[tl_pcg_dots[k][1]], n);
        h->r[it] = sqrt(d[2]);
        if (h->r[it] <= RTOL * bnorm || it == MAXIT) break;
        double alpha, beta, t2;
        if (form == FORM_DEVICE) {
            double regs[TL_SC_REGS];
            tl_sc_pipecg(d, st[it & 1], regs, st[(it + 1) & 1]);
            TL_ASSERT_EQ(regs[TL_SC_PCG_FLAG], (double)TL_SC_FLAG_OK);
            alpha = regs[TL_SC_PCG_ALPHA];
            beta = regs[TL_SC_PCG_BETA];
        } else {
            double curv = tl_pcg_curvature(d[0], d[1], gamma_old, alpha_old, it > 0, &beta, &t2);
            alpha = d[0] / curv;
        }
        gamma_old = d[0];
        alpha_old = alpha;
        for (int64_t i = 0; i < n; i++) {
            if (form == FORM_DEVICE) {
                double in[10], out[8], c[8];
                for (int k = 0; k < 10; k++)
                    in[k] = v[k][i]; /* tl_cu_pipecg_operands' order is TL_PCG_* */
                for (int j = 0; j < 8; j++)
                    c[j] = tl_pcg_axpys[j].sign * (tl_pcg_axpys[j].alpha ? alpha : beta);
                tl_cu_pipecg_values(in, c, out);
                for (int j = 0; j < 8; j++)
                    v[tl_pcg_axpys[j].y][i] = out[j];
                continue;
            }
            for (int j = 0; j < TL_PCG_NAXPY; j++) {
                double cj = ax[j].sign * (ax[j].alpha ? alpha : beta);
                v[ax[j].y][i] = v[ax[j].a][i] + cj * v[ax[j].b][i];
            }
        }
    }
    h->n = it;
    h->x = v[TL_PCG_X];
    for (int k = 0; k < TL_PCG_NVEC; k++)
        if (k != TL_PCG_X) free(v[k]);
    free(dinv);
}

/* One solve by trilap's method `variant` on the host backend. */
typedef struct dist_run {
    const tl_csr *A;
    tl_variant variant;
    history *h;
} dist_run;

static tl_status run_rank(tl_ctx *ctx, void *arg)
{
    dist_run *d = arg;
    tl_status st = TL_OK;
    int64_t n = d->A->nrows;
    int *part = NULL;
    double *bg = NULL, *bl = NULL, *xl = NULL;
    tl_dist_matrix *dm = NULL;
    tl_backend *be = NULL;
    tl_solve_report rep = {0};
    if (ctx->rank == 0) {
        part = calloc((size_t)n, sizeof *part);
        bg = malloc((size_t)n * sizeof *bg);
        TL_CHECKGOTO(part && bg, TL_ERR_NOMEM, st, fail, "inputs");
        for (int64_t i = 0; i < n; i++)
            bg[i] = 1.0;
        TL_TRYGOTO(tl_partition_block(n, ctx->size, part), st, fail);
    }
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? d->A : NULL, part, &dm), st, fail);
    bl = calloc((size_t)dm->nowned + 1, sizeof *bl);
    xl = calloc((size_t)dm->nowned + 1, sizeof *xl);
    TL_CHECKGOTO(bl && xl, TL_ERR_NOMEM, st, fail, "vectors");
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, bg, bl), st, fail);
    tl_solve_config cfg = {
        .method = tl_method_find("pipecg"),
        .variant = d->variant,
        .backend = "host",
        .bcfg = {.schedule = tl_schedule_find("three-split"),
                 .precond = TL_PRECOND_JACOBI,
                 .omp_threads = 1,
                 .check_every = 1},
        .params = {.rtol = RTOL, .max_iterations = MAXIT, .keep_history = 1},
        .repeat = 1,
    };
    TL_TRYGOTO(tl_backend_host_ops.create(ctx, dm, &cfg.bcfg, &be), st, fail);
    TL_TRYGOTO(tl_solve_run(ctx, be, &cfg, bl, NULL, xl, &rep), st, fail);
    if (ctx->rank == 0) {
        d->h->n = rep.res.iterations;
        for (int64_t k = 0; k < rep.res.nhistory && k <= MAXIT; k++)
            d->h->r[k] = rep.res.history[k];
        d->h->x = calloc((size_t)n, sizeof(double));
    }
    TL_TRYGOTO(tl_dist_gather_vec(ctx, dm, xl, ctx->rank == 0 ? d->h->x : NULL), st, fail);
fail:
    if (be) be->ops->destroy(&be);
    tl_solve_report_free(&rep);
    tl_dist_destroy(&dm);
    free(part);
    free(bg);
    free(bl);
    free(xl);
    return st;
}

static void run_dist(const tl_csr *A, tl_variant variant, int nranks, history *h)
{
    dist_run d = {.A = A, .variant = variant, .h = h};
    tl_launch_opts lo = {
        .launcher = TL_LAUNCH_THREADS, .ranks = nranks, .timeout_s = 60, .no_gpu = 1};
    char *argv[] = {"test_pipecg_forms", NULL};
    TL_ASSERT_EQ(tl_launch_run("test_pipecg_forms", &lo, 1, argv, run_rank, &d), 0);
}

/* The largest gap between two histories (relative to ||r_0||) and x's
 * (relative to max |x|); INFINITY when the iteration counts differ. */
static double gap(const history *a, const history *b, int64_t n)
{
    if (a->n != b->n) return INFINITY;
    double g = 0.0, xmax = 0.0;
    for (int64_t k = 0; k <= a->n; k++)
        g = fmax(g, fabs(a->r[k] - b->r[k]) / a->r[0]);
    for (int64_t i = 0; i < n; i++)
        xmax = fmax(xmax, fabs(a->x[i]));
    for (int64_t i = 0; i < n; i++)
        g = fmax(g, fabs(a->x[i] - b->x[i]) / xmax);
    return g;
}

static void matrix(tl_gen_kind kind, int64_t n, tl_csr *A)
{
    tl_gen g = {.kind = kind, .n = n};
    TL_ASSERT_OK(tl_gen_csr(&g, A));
}

static void forms_agree_on(tl_gen_kind kind, int64_t size)
{
    tl_csr A = {0};
    matrix(kind, size, &A);
    int64_t n = A.nrows;
    history ref = {0}, dev = {0}, host1 = {0}, host2 = {0}, prog1 = {0}, prog2 = {0};
    run_serial(&A, FORM_STATEMENT, &ref);
    TL_ASSERT_MSG(ref.n > 5 && ref.n < MAXIT, "the statement took %lld iterations",
                  (long long)ref.n);
    run_serial(&A, FORM_DEVICE, &dev);
    run_dist(&A, TL_VARIANT_HOST, 1, &host1);
    run_dist(&A, TL_VARIANT_HOST, 2, &host2);
    run_dist(&A, TL_VARIANT_PROGRAM, 1, &prog1);
    run_dist(&A, TL_VARIANT_PROGRAM, 2, &prog2);
    const struct {
        const char *name;
        const history *h;
    } forms[] = {{"tl_sc_pipecg + tl_cu_pipecg_values", &dev},
                 {"method_pipecg.c, 1 rank", &host1},
                 {"method_pipecg.c, 2 ranks", &host2},
                 {"pipecg_async.c, 1 rank", &prog1},
                 {"pipecg_async.c, 2 ranks", &prog2}};
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
        TL_ASSERT_MSG(gap(&ref, forms[f].h, n) <= TOL,
                      "%s: %lld iterations (statement %lld), gap %.3e", forms[f].name,
                      (long long)forms[f].h->n, (long long)ref.n, gap(&ref, forms[f].h, n));
    free(ref.x);
    free(dev.x);
    free(host1.x);
    free(host2.x);
    free(prog1.x);
    free(prog2.x);
    tl_csr_free(&A);
}

TL_TEST(forms_agree_on_poisson7)
{
    forms_agree_on(TL_GEN_POISSON7, 8);
}

TL_TEST(forms_agree_on_poisson27)
{
    forms_agree_on(TL_GEN_POISSON27, 6);
}

/* The comparison sees a change of the recurrences: x += alpha p with the
 * previous direction converges differently. */
TL_TEST(a_reordered_statement_is_caught)
{
    tl_csr A = {0};
    matrix(TL_GEN_POISSON7, 8, &A);
    history ref = {0}, bad = {0};
    run_serial(&A, FORM_STATEMENT, &ref);
    run_serial(&A, FORM_REORDERED, &bad);
    TL_ASSERT_MSG(gap(&ref, &bad, A.nrows) > 1e3 * TOL, "gap %.3e", gap(&ref, &bad, A.nrows));
    free(ref.x);
    free(bad.x);
    tl_csr_free(&A);
}

TL_TEST_MAIN(forms_agree_on_poisson7, forms_agree_on_poisson27,
             a_reordered_statement_is_caught)
