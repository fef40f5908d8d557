/* Krylov methods, host backend and schedules, in process: ranks are
 * threads of this process (tl_launch_run with the thread launcher), so
 * 1-4 ranks run without mpirun. The CLI and MPI runs are in
 * test_solve_cli.c, the PETSc comparison in test_petsc.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/launch.h"
#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/memneed.h"
#include "solvers/dist/dist.h"
#include "solvers/matrix/gen.h"
#include "solvers/methods/method.h"
#include "solvers/dist/partition.h"
#include "solvers/methods/solve.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

/* One solve on `nranks` thread ranks; rank 0 fills the outputs. */
typedef struct run_spec {
    const tl_csr *A; /* global matrix, read by rank 0 */
    const char *method;
    int precond; /* -1: the method's default */
    const char *schedule;
    double rtol, atol, bval, x0val;
    int64_t maxit, rr;
    tl_rtol_base base;
    int nranks;
    int no_update_sq; /* run as a backend without update_sq (the CUDA one may be) */
    tl_variant variant; /* 0: host scalars */
    /* outputs */
    int vectors_peak; /* the most vectors the solve held at once */
    tl_solve_result res;
    double true_rel;
    int64_t nhistory;
    tl_opstat stats[TL_OP_COUNT];
    double *x; /* global solution (rank 0) */
    int st;
} run_spec;

static tl_status run_rank(tl_ctx *ctx, void *arg)
{
    run_spec *s = arg;
    tl_status st = TL_OK;
    int *part = NULL;
    tl_dist_matrix *dm = NULL;
    tl_backend *be = NULL;
    double *bg = NULL, *bl = NULL, *x0 = NULL, *xl = NULL;
    tl_solve_report rep = {0};
    int64_t n = s->A->nrows;
    if (ctx->rank == 0) {
        part = calloc((size_t)n, sizeof *part);
        bg = calloc((size_t)n, sizeof *bg);
        for (int64_t i = 0; i < n; i++)
            bg[i] = s->bval;
        TL_TRYGOTO(tl_partition_block(n, ctx->size, part), st, fail);
    }
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? s->A : NULL, part, &dm), st, fail);
    bl = calloc((size_t)dm->nowned + 1, sizeof *bl);
    xl = calloc((size_t)dm->nowned + 1, sizeof *xl);
    x0 = calloc((size_t)dm->nowned + 1, sizeof *x0);
    for (int64_t i = 0; i < dm->nowned; i++)
        x0[i] = s->x0val;
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, bg, bl), st, fail);
    const tl_method *m = tl_method_find(s->method);
    TL_CHECKGOTO(m, TL_ERR_INVAL, st, fail, "method %s", s->method);
    tl_solve_config cfg = {
        .method = m,
        .variant = s->variant,
        .backend = "host",
        .bcfg = {.schedule = tl_schedule_find(s->schedule ? s->schedule : "three-split"),
                 .precond = s->precond >= 0 ? (tl_precond)s->precond : m->default_precond,
                 .omp_threads = 1},
        .params = {.rtol = s->rtol,
                   .atol = s->atol,
                   .max_iterations = s->maxit ? s->maxit : 5000,
                   .base = s->base,
                   .residual_replacement = s->rr,
                   .keep_history = 1},
        .warmup = 0,
        .repeat = 1,
    };
    TL_TRYGOTO(tl_backend_host_ops.create(ctx, dm, &cfg.bcfg, &be), st, fail);
    tl_backend_ops plain = tl_backend_host_ops;
    plain.update_sq = NULL;
    if (s->no_update_sq) be->ops = &plain;
    TL_TRYGOTO(tl_solve_run(ctx, be, &cfg, bl, s->x0val != 0 ? x0 : NULL, xl, &rep), st, fail);
    if (ctx->rank == 0) {
        s->res = rep.res;
        rep.res.history = NULL;
        s->nhistory = s->res.nhistory;
        s->true_rel = rep.true_residuals[0];
        memcpy(s->stats, rep.stats, sizeof s->stats);
        s->vectors_peak = be->vectors_peak;
        s->x = calloc((size_t)n, sizeof *s->x);
    }
    /* only rank 0 reads s->x, which rank 0 alone writes (ThreadSanitizer) */
    TL_TRYGOTO(tl_dist_gather_vec(ctx, dm, xl, ctx->rank == 0 ? s->x : NULL), st, fail);
fail:
    if (be) be->ops->destroy(&be);
    tl_solve_report_free(&rep);
    tl_dist_destroy(&dm);
    free(part);
    free(bg);
    free(bl);
    free(xl);
    free(x0);
    return st;
}

static int launch(tl_rank_main_fn fn, void *arg, int nranks)
{
    tl_launch_opts lo = {
        .gpus = 0, .launcher = TL_LAUNCH_THREADS, .ranks = nranks, .timeout_s = 60, .no_gpu = 1};
    char *argv[] = {"test_solvers", NULL};
    return tl_launch_run("test_solvers", &lo, 1, argv, fn, arg);
}

static run_spec solve(const tl_csr *A, const char *method, int nranks, double rtol)
{
    run_spec s = {
        .A = A, .method = method, .precond = -1, .rtol = rtol, .bval = 1.0, .nranks = nranks};
    s.st = launch(run_rank, &s, nranks);
    return s;
}

static void gen(tl_gen_kind k, int64_t n, tl_csr *A)
{
    tl_gen g = {.kind = k, .n = n, .peclet = 0.5};
    TL_ASSERT_OK(tl_gen_csr(&g, A));
}

/* 1D tridiag(-1, 2 - shift, -1): indefinite for shift > 0 large enough. */
static void tridiag(int64_t n, double shift, tl_csr *A)
{
    TL_ASSERT_OK(tl_csr_alloc(A, n, n, 3 * n - 2));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        A->rowptr[i] = k;
        if (i > 0) A->colidx[k] = i - 1, A->val[k++] = -1.0;
        A->colidx[k] = i, A->val[k++] = 2.0 - shift;
        if (i < n - 1) A->colidx[k] = i + 1, A->val[k++] = -1.0;
    }
    A->rowptr[n] = k;
}

static void free_run(run_spec *s)
{
    free(s->res.history);
    free(s->x);
}

TL_TEST(schedule_table)
{
    TL_ASSERT_EQ(TL_SCHED_COUNT, 4);
    const tl_schedule *s = tl_schedule_find("three-split");
    TL_ASSERT(s && s->host_chan == TL_CHAN_SPLIT && s->split_comm && s->overlap_allreduce);
    TL_ASSERT_EQ(tl_schedule_find("three-naive")->host_chan, TL_CHAN_WORLD);
    TL_ASSERT_EQ(tl_schedule_find("three-naive")->allreduce_lane, TL_ROLE_COLL);
    TL_ASSERT_EQ(tl_schedule_find("two-stream")->allreduce_lane, TL_ROLE_COMPUTE);
    TL_ASSERT_EQ(tl_schedule_find("two-stream")->halo_lane, TL_ROLE_P2P);
    TL_ASSERT(!tl_schedule_find("sync")->overlap_halo &&
              !tl_schedule_find("sync")->overlap_allreduce);
    TL_ASSERT(tl_schedule_find("four-stream") == NULL);
    for (int i = 0; i < TL_SCHED_COUNT; i++)
        TL_ASSERT(strstr(tl_schedule_choices(), tl_schedules[i].name));
}

TL_TEST(method_registry)
{
    const char *names[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
    TL_ASSERT_EQ(tl_nmethods, 5);
    for (int i = 0; i < 5; i++)
        TL_ASSERT(tl_method_find(names[i]) &&
                  strcmp(tl_method_find(names[i])->name, names[i]) == 0);
    TL_ASSERT(tl_method_find("gmres") == NULL);
    TL_ASSERT(tl_method_find("pipecg")->spd && tl_method_find("pipecg")->pipelined);
    TL_ASSERT(!tl_method_find("bicgstab")->spd);
    TL_ASSERT_STREQ(tl_backend_find("host")->name, "host");
    /* listed either way; refusing at once only in a build without CUDA */
    TL_ASSERT((tl_backend_find("cuda")->unavailable != NULL) == !TL_HAVE_CUDA);
    TL_ASSERT(tl_backend_find("opencl") == NULL);
    tl_precond p;
    TL_ASSERT_OK(tl_precond_parse("jacobi", &p));
    TL_ASSERT_EQ(p, TL_PRECOND_JACOBI);
    TL_ASSERT(tl_precond_parse("ilu", &p) != TL_OK);
}

/* ---- backend operations, on 1-3 ranks ------------------------------------ */

typedef struct ops_spec {
    const tl_csr *A;
    const char *schedule;
    int failures;
} ops_spec;

static tl_status ops_rank(tl_ctx *ctx, void *arg)
{
    ops_spec *o = arg;
    tl_status st = TL_OK;
    int *part = NULL;
    tl_dist_matrix *dm = NULL;
    tl_backend *be = NULL;
    tl_vec *a = NULL, *b = NULL, *y = NULL;
    double *ga = NULL, *gy = NULL, *ref = NULL, *la = NULL, *ly = NULL;
    int64_t n = o->A->nrows;
    if (ctx->rank == 0) {
        part = calloc((size_t)n, sizeof *part);
        ga = calloc((size_t)n, sizeof *ga);
        gy = calloc((size_t)n, sizeof *gy);
        ref = calloc((size_t)n, sizeof *ref);
        for (int64_t i = 0; i < n; i++)
            ga[i] = 1.0 + (double)(i % 7) * 0.25;
        /* rows dealt round-robin: every rank has neighbours */
        for (int64_t i = 0; i < n; i++)
            part[i] = (int)(i % ctx->size);
    }
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? o->A : NULL, part, &dm), st, fail);
    tl_backend_config bc = {
        .schedule = tl_schedule_find(o->schedule), .precond = TL_PRECOND_NONE, .omp_threads = 1};
    TL_TRYGOTO(tl_backend_host_ops.create(ctx, dm, &bc, &be), st, fail);
    la = calloc((size_t)dm->nowned + 1, sizeof *la);
    ly = calloc((size_t)dm->nowned + 1, sizeof *ly);
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, ga, la), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &a), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &b), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &y), st, fail);
    TL_TRYGOTO(be->ops->vec_set(be, a, la), st, fail);
    /* y = A a, split phase */
    TL_TRYGOTO(tl_be_spmv_begin(be, a, y), st, fail);
    TL_TRYGOTO(tl_be_spmv_end(be, a, y), st, fail);
    TL_TRYGOTO(be->ops->vec_get(be, y, ly), st, fail);
    TL_TRYGOTO(tl_dist_gather_vec(ctx, dm, ly, gy), st, fail);
    if (ctx->rank == 0) {
        tl_csr_spmv(o->A, ga, ref);
        for (int64_t i = 0; i < n; i++)
            if (fabs(ref[i] - gy[i]) > 1e-12 * (1 + fabs(ref[i]))) o->failures++;
    }
    /* fused update in order: b = 2 a; a = a + b (new b); b = a - b (new a) */
    tl_update u[3] = {
        {.y = b, .nterms = 1, .coef = {2.0}, .x = {a}},
        {.y = a, .nterms = 2, .coef = {1.0, 1.0}, .x = {a, b}},
        {.y = b, .nterms = 2, .coef = {1.0, -1.0}, .x = {a, b}},
    };
    TL_TRYGOTO(tl_be_update(be, u, 3), st, fail);
    /* two reductions in flight at once: slot 0 (a,a),(a,b); slot 1 (b,b) */
    double d0[2], d1[1];
    TL_TRYGOTO(tl_be_dot_begin(be, 0, 2, (tl_vec *[]){a, a}, (tl_vec *[]){a, b}), st, fail);
    TL_TRYGOTO(tl_be_dot_begin(be, 1, 1, &b, &b), st, fail);
    TL_TRYGOTO(tl_be_dot_end(be, 1, d1), st, fail);
    TL_TRYGOTO(tl_be_dot_end(be, 0, d0), st, fail);
    if (ctx->rank == 0) {
        double aa = 0, bb = 0;
        for (int64_t i = 0; i < n; i++)
            aa += 9 * ga[i] * ga[i], bb += ga[i] * ga[i];
        /* a = 3 a0, b = a0 */
        if (fabs(d0[0] - aa) > 1e-9 * aa || fabs(d0[1] - aa / 3) > 1e-9 * aa ||
            fabs(d1[0] - bb) > 1e-9 * bb)
            o->failures += 100;
        if (be->stats[TL_OP_SPMV].count != 1 || be->stats[TL_OP_UPDATE].count != 1 ||
            be->stats[TL_OP_DOT].count != 2)
            o->failures += 1000;
        /* the fused update reads a (b is written first) and writes a and b */
        if (be->stats[TL_OP_UPDATE].bytes != 3.0 * dm->nowned * sizeof(double))
            o->failures += 10000;
        if (ctx->size > 1 &&
            (be->stats[TL_OP_HALO].count != 1 || be->stats[TL_OP_ALLREDUCE].count != 2))
            o->failures += 100000;
    }
    /* update_sq: sums of squares of a (3 a0) and b (a0, rewritten as 2 b - b)
     * after the pass, reduced with the next dots of slot 0 */
    if (tl_be_has_update_sq(be)) {
        tl_update ub = {.y = b, .nterms = 2, .coef = {2.0, -1.0}, .x = {b, b}};
        double d3[3];
        TL_TRYGOTO(tl_be_update_sq(be, &ub, 1, 0, 2, (tl_vec *[]){a, b}), st, fail);
        TL_TRYGOTO(tl_be_dot_begin(be, 0, 1, &a, &b), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 0, d3), st, fail);
        /* and a plain dot_begin afterwards carries nothing extra */
        TL_TRYGOTO(tl_be_dots(be, 1, &b, &b, d1), st, fail);
        if (ctx->rank == 0) {
            double bb = 0;
            for (int64_t i = 0; i < n; i++)
                bb += ga[i] * ga[i];
            if (fabs(d3[0] - 3 * bb) > 1e-9 * bb || fabs(d3[1] - 9 * bb) > 1e-9 * bb ||
                fabs(d3[2] - bb) > 1e-9 * bb || fabs(d1[0] - bb) > 1e-9 * bb)
                o->failures += 10000000;
        }
    } else {
        o->failures += 20000000; /* the host backend has it */
    }
    /* misuse is an error, not a hang */
    if (tl_be_dot_end(be, 0, d0) == TL_OK) o->failures += 1000000;
    /* update_fused on the host backend (the wrappers' fallback): the update,
     * y = M^-1 a (none: a copy), and the dots (a, y), (b, b) of the values
     * after it, reduced by the next dot_begin(1, 0); with a = 3 a0, b = a0
     * (the update rewrites b as 2 b - b) */
    {
        tl_update ub = {.y = b, .nterms = 2, .coef = {2.0, -1.0}, .x = {b, b}};
        tl_update_tail tail = {
            .pz = y, .pr = a, .slot = 1, .ndots = 2, .x = {a, b}, .y = {y, b}};
        double d4[2] = {0}, d5[1] = {0};
        int64_t nprecond = be->stats[TL_OP_PRECOND].count;
        TL_TRYGOTO(tl_be_update_fused(be, &ub, 1, &tail), st, fail);
        TL_TRYGOTO(tl_be_dot_begin(be, 1, 0, NULL, NULL), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 1, d4), st, fail);
        /* reduced once: a second dot_begin of kept dots has none */
        if (tl_be_dot_begin(be, 1, 0, NULL, NULL) == TL_OK) o->failures += 100000000;
        /* dots of its own forget the kept ones */
        TL_TRYGOTO(tl_be_update_fused(be, &ub, 1, &tail), st, fail);
        TL_TRYGOTO(tl_be_dot_begin(be, 1, 1, &b, &b), st, fail);
        TL_TRYGOTO(tl_be_dot_end(be, 1, d5), st, fail);
        if (tl_be_dot_begin(be, 1, 0, NULL, NULL) == TL_OK) o->failures += 200000000;
        if (ctx->rank == 0) {
            double bb = 0;
            for (int64_t i = 0; i < n; i++)
                bb += ga[i] * ga[i];
            if (fabs(d4[0] - 9 * bb) > 1e-9 * bb || fabs(d4[1] - bb) > 1e-9 * bb ||
                fabs(d5[0] - bb) > 1e-9 * bb)
                o->failures += 400000000;
        }
        if (be->stats[TL_OP_PRECOND].count != nprecond + 2) o->failures += 800000000;
    }
fail:
    if (be) {
        tl_be_vec_free(be, &a);
        tl_be_vec_free(be, &b);
        tl_be_vec_free(be, &y);
        be->ops->destroy(&be);
    }
    tl_dist_destroy(&dm);
    free(part);
    free(ga);
    free(gy);
    free(ref);
    free(la);
    free(ly);
    return st;
}

TL_TEST(backend_ops_all_schedules)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON27, 6, &A);
    for (int r = 1; r <= 3; r++)
        for (int k = 0; k < TL_SCHED_COUNT; k++) {
            ops_spec o = {.A = &A, .schedule = tl_schedules[k].name};
            TL_ASSERT_EQ(launch(ops_rank, &o, r), 0);
            TL_ASSERT_MSG(o.failures == 0, "%d ranks, %s: failures code %d", r, o.schedule,
                          o.failures);
        }
    tl_csr_free(&A);
}

/* ---- spmv_dot: the product's pass also gives (x, A x) -------------------- */

typedef struct spmvdot_spec {
    const tl_csr *A;
    int round_robin; /* rows dealt round-robin (every row a border row) or in blocks */
    int omp_threads;
    int failures;
} spmvdot_spec;

/* y = A x and (x, y) through one backend form; the dot stays in out. */
static tl_status spmvdot_form(tl_backend *be, tl_vec *x, tl_vec *y, int fused, double *out)
{
    if (!fused) {
        TL_TRY(tl_be_spmv(be, x, y));
        return tl_be_dots(be, 1, &x, &y, out);
    }
    TL_TRY(tl_be_spmv_dot(be, x, y, 0));
    TL_TRY(tl_be_dot_begin(be, 0, 0, NULL, NULL));
    return tl_be_dot_end(be, 0, out);
}

static tl_status spmvdot_rank(tl_ctx *ctx, void *arg)
{
    spmvdot_spec *o = arg;
    tl_status st = TL_OK;
    int *part = NULL;
    tl_dist_matrix *dm = NULL;
    tl_backend *be = NULL;
    tl_vec *x = NULL, *y[3] = {NULL};
    double *gx = NULL, *gy = NULL, *lx = NULL, *ly[3] = {NULL};
    int64_t n = o->A->nrows;
    if (ctx->rank == 0) {
        part = calloc((size_t)n, sizeof *part);
        gx = calloc((size_t)n, sizeof *gx);
        gy = calloc((size_t)n, sizeof *gy);
        for (int64_t i = 0; i < n; i++)
            gx[i] = 1.0 + (double)(i % 13) * 0.37 - (double)(i % 5) * 0.11;
        if (o->round_robin)
            for (int64_t i = 0; i < n; i++)
                part[i] = (int)(i % ctx->size);
        else
            TL_TRYGOTO(tl_partition_block(n, ctx->size, part), st, fail);
    }
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? o->A : NULL, part, &dm), st, fail);
    tl_backend_config bc = {.schedule = tl_schedule_find("three-split"),
                            .precond = TL_PRECOND_NONE,
                            .omp_threads = o->omp_threads};
    TL_TRYGOTO(tl_backend_host_ops.create(ctx, dm, &bc, &be), st, fail);
    lx = calloc((size_t)dm->nowned + 1, sizeof *lx);
    for (int k = 0; k < 3; k++)
        ly[k] = calloc((size_t)dm->nowned + 1, sizeof *ly[k]);
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, dm, gx, lx), st, fail);
    TL_TRYGOTO(tl_be_vec(be, &x), st, fail);
    TL_TRYGOTO(be->ops->vec_set(be, x, lx), st, fail);
    /* 0: spmv + dots; 1: spmv_dot; 2: spmv_dot's fallback (cfg.unfused_spmv_dot) */
    double d[3];
    tl_opstat stats[3][TL_OP_COUNT];
    for (int k = 0; k < 3; k++) {
        TL_TRYGOTO(tl_be_vec(be, &y[k]), st, fail);
        be->cfg.unfused_spmv_dot = k == 2;
        tl_backend_stats_reset(be);
        TL_TRYGOTO(spmvdot_form(be, x, y[k], k > 0, &d[k]), st, fail);
        memcpy(stats[k], be->stats, sizeof stats[k]);
        TL_TRYGOTO(be->ops->vec_get(be, y[k], ly[k]), st, fail);
    }
    /* on one thread the same numbers bit for bit; on several the dot of
     * dot_begin after the product, whose OpenMP reduction has no fixed order */
    double tol = o->omp_threads > 1 ? 1e-13 * fabs(d[0]) : 0.0;
    for (int k = 1; k < 3; k++) {
        if (memcmp(ly[k], ly[0], (size_t)dm->nowned * sizeof(double)) != 0) o->failures |= 1;
        if (!(fabs(d[k] - d[0]) <= tol)) o->failures |= 2;
    }
    /* the fused pass is counted as the product: no dot pass of its own */
    if (stats[1][TL_OP_SPMV].count != 1 || stats[1][TL_OP_DOT].count != 0 ||
        stats[1][TL_OP_SPMV].bytes != stats[0][TL_OP_SPMV].bytes ||
        stats[2][TL_OP_DOT].count != 1)
        o->failures |= 4;
    /* a dot_begin with dots of its own forgets the kept one */
    double dd;
    TL_TRYGOTO(tl_be_spmv_dot(be, x, y[1], 0), st, fail);
    TL_TRYGOTO(tl_be_dots(be, 1, &x, &x, &dd), st, fail);
    if (tl_be_dot_begin(be, 0, 0, NULL, NULL) == TL_OK) o->failures |= 8;
    TL_TRYGOTO(tl_dist_gather_vec(ctx, dm, ly[1], gy), st, fail);
    if (ctx->rank == 0) {
        double ref = 0.0;
        for (int64_t i = 0; i < n; i++)
            ref += gx[i] * gy[i];
        if (fabs(d[1] - ref) > 1e-12 * fabs(ref)) o->failures |= 16;
    }
fail:
    if (be) {
        tl_be_vec_free(be, &x);
        for (int k = 0; k < 3; k++)
            tl_be_vec_free(be, &y[k]);
        be->ops->destroy(&be);
    }
    tl_dist_destroy(&dm);
    free(part);
    free(gx);
    free(gy);
    free(lx);
    for (int k = 0; k < 3; k++)
        free(ly[k]);
    return st;
}

/* spmv_dot on the host backend equals spmv followed by the dot kernel bit
 * for bit on 1-4 ranks, with the rows in blocks (interior and border
 * rows) and dealt round-robin (border rows only), and its fallback alike;
 * on two OpenMP threads within rounding. */
TL_TEST(spmv_dot_equals_spmv_and_dot)
{
    tl_csr A = {0}, B = {0};
    gen(TL_GEN_POISSON7, 11, &A);
    gen(TL_GEN_POISSON7, 26, &B); /* 17,576 rows: above the one-thread limit */
    for (int r = 1; r <= 4; r++)
        for (int rr = 0; rr < 2; rr++) {
            spmvdot_spec o = {.A = &A, .round_robin = rr, .omp_threads = 1};
            TL_ASSERT_EQ(launch(spmvdot_rank, &o, r), 0);
            TL_ASSERT_MSG(o.failures == 0, "%d ranks, %s rows: failures %#x", r,
                          rr ? "round-robin" : "block", o.failures);
        }
    spmvdot_spec o = {.A = &B, .omp_threads = 2};
    TL_ASSERT_EQ(launch(spmvdot_rank, &o, 1), 0);
    TL_ASSERT_MSG(o.failures == 0, "2 threads: failures %#x", o.failures);
    tl_csr_free(&A);
    tl_csr_free(&B);
}

/* ---- methods ------------------------------------------------------------- */

static void check_converged(const run_spec *s, const char *what)
{
    TL_ASSERT_MSG(s->st == 0, "%s: launch failed", what);
    TL_ASSERT_MSG(tl_stop_converged(s->res.reason), "%s: not converged: %s (%s) after %lld", what,
                  tl_stop_name(s->res.reason), s->res.detail, (long long)s->res.iterations);
    TL_ASSERT_MSG(s->res.rnorm <= s->rtol * s->res.base, "%s: ||r|| %g > rtol * base %g", what,
                  s->res.rnorm, s->rtol * s->res.base);
    /* the true residual stays close to the recursive one */
    TL_ASSERT_MSG(s->true_rel <= 10 * s->rtol, "%s: true residual %g vs rtol %g", what, s->true_rel,
                  s->rtol);
}

TL_TEST(methods_converge_poisson_1_to_4_ranks)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 10, &A);
    const char *names[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
    for (int r = 1; r <= 4; r++) {
        int64_t its[5];
        for (int k = 0; k < 5; k++) {
            run_spec s = solve(&A, names[k], r, 1e-8);
            char what[64];
            snprintf(what, sizeof what, "%s on %d ranks", names[k], r);
            check_converged(&s, what);
            its[k] = s.res.iterations;
            /* one residual per iteration, plus r0 */
            TL_ASSERT_EQ(s.nhistory, s.res.iterations + 1);
            free_run(&s);
        }
        TL_ASSERT_MSG(llabs(its[1] - its[2]) <= 2, "pcg %lld vs pipecg %lld", (long long)its[1],
                      (long long)its[2]);
        TL_ASSERT_MSG(llabs(its[3] - its[4]) <= 3, "bicgstab %lld vs pipebicgstab %lld",
                      (long long)its[3], (long long)its[4]);
    }
    tl_csr_free(&A);
}

TL_TEST(bicgstab_convdiff_and_solution)
{
    tl_csr A = {0};
    gen(TL_GEN_CONVDIFF, 10, &A);
    TL_ASSERT(!tl_gen_symmetric(&(tl_gen){.kind = TL_GEN_CONVDIFF, .n = 10, .peclet = 0.5}));
    /* b = A * ones, so x = ones */
    double *ones = malloc((size_t)A.nrows * sizeof *ones), *b = malloc((size_t)A.nrows * sizeof *b);
    for (int64_t i = 0; i < A.nrows; i++)
        ones[i] = 1.0;
    tl_csr_spmv(&A, ones, b);
    for (int r = 1; r <= 4; r += 3) {
        int64_t its[2];
        for (int k = 0; k < 2; k++) {
            run_spec s = solve(&A, k ? "pipebicgstab" : "bicgstab", r, 1e-10);
            check_converged(&s, k ? "pipebicgstab" : "bicgstab");
            its[k] = s.res.iterations;
            free_run(&s);
        }
        TL_ASSERT_MSG(llabs(its[0] - its[1]) <= 3, "%lld vs %lld", (long long)its[0],
                      (long long)its[1]);
    }
    free(ones);
    free(b);
    tl_csr_free(&A);
}

TL_TEST(distributed_solution_matches_serial)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON27, 7, &A);
    run_spec s1 = solve(&A, "pipecg", 1, 1e-10);
    run_spec s3 = solve(&A, "pipecg", 3, 1e-10);
    check_converged(&s1, "1 rank");
    check_converged(&s3, "3 ranks");
    double diff = 0, nrm = 0;
    for (int64_t i = 0; i < A.nrows; i++)
        diff = fmax(diff, fabs(s1.x[i] - s3.x[i])), nrm = fmax(nrm, fabs(s1.x[i]));
    TL_ASSERT_MSG(diff <= 1e-7 * nrm, "max |x1 - x3| = %g (|x| %g)", diff, nrm);
    /* and x solves A x = b: check one row directly */
    double row = 0;
    for (int64_t k = A.rowptr[0]; k < A.rowptr[1]; k++)
        row += A.val[k] * s3.x[A.colidx[k]];
    TL_ASSERT_NEAR(row, 1.0, 1e-6);
    free_run(&s1);
    free_run(&s3);
    tl_csr_free(&A);
}

TL_TEST(schedules_do_not_change_numerics)
{
    /* overlap moves communication, not arithmetic: every schedule gives the
     * same residual history bit for bit */
    tl_csr A = {0};
    gen(TL_GEN_CONVDIFF, 8, &A);
    const char *meths[] = {"pipecg", "pipebicgstab"};
    for (int mi = 0; mi < 2; mi++) {
        run_spec ref = {0};
        for (int k = 0; k < TL_SCHED_COUNT; k++) {
            run_spec s = {.A = &A,
                          .method = meths[mi],
                          .precond = -1,
                          .rtol = 0,
                          .atol = 0,
                          .maxit = 12,
                          .bval = 1.0,
                          .schedule = tl_schedules[k].name};
            s.st = launch(run_rank, &s, 3);
            TL_ASSERT_EQ(s.st, 0);
            if (k == 0) {
                ref = s;
                continue;
            }
            TL_ASSERT_EQ(s.nhistory, ref.nhistory);
            for (int64_t i = 0; i < s.nhistory; i++)
                TL_ASSERT_MSG(s.res.history[i] == ref.res.history[i],
                              "%s %s: history[%lld] %.17g vs %.17g", meths[mi],
                              tl_schedules[k].name, (long long)i, s.res.history[i],
                              ref.res.history[i]);
            free_run(&s);
        }
        free_run(&ref);
    }
    tl_csr_free(&A);
}

TL_TEST(fixed_iteration_mode)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    const char *names[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
    for (int k = 0; k < 5; k++) {
        run_spec s = {.A = &A,
                      .method = names[k],
                      .precond = -1,
                      .rtol = 0,
                      .atol = 0,
                      .maxit = 17,
                      .bval = 1.0};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_FIXED, "%s: %s", names[k],
                      tl_stop_name(s.res.reason));
        TL_ASSERT_EQ(s.res.iterations, 17);
        free_run(&s);
    }
    tl_csr_free(&A);
}

TL_TEST(not_spd_stops_cg_methods)
{
    tl_csr A = {0};
    tridiag(50, 3.0, &A); /* eigenvalues in (-3, 1): indefinite, diagonal -1 */
    struct {
        const char *m;
        int pc;
    } cases[] = {{"cg", TL_PRECOND_NONE},
                 {"pcg", TL_PRECOND_JACOBI},
                 {"pipecg", TL_PRECOND_NONE},
                 {"pipecg", TL_PRECOND_JACOBI}};
    for (int k = 0; k < 4; k++) {
        for (int r = 1; r <= 2; r++) {
            run_spec s = {
                .A = &A, .method = cases[k].m, .precond = cases[k].pc, .rtol = 1e-8, .bval = 1.0};
            s.st = launch(run_rank, &s, r);
            TL_ASSERT_EQ(s.st, 0);
            TL_ASSERT_MSG(s.res.reason == TL_STOP_NOT_SPD, "%s/%d on %d ranks: %s (%s)", cases[k].m,
                          cases[k].pc, r, tl_stop_name(s.res.reason), s.res.detail);
            TL_ASSERT(strstr(tl_stop_name(s.res.reason), "not SPD"));
            free_run(&s);
        }
    }
    tl_csr_free(&A);
    /* positive diagonal (1.5), eigenvalues in (-0.5, 3.5): only the
     * curvature test can tell */
    tridiag(50, 0.5, &A);
    const char *meths[] = {"pcg", "pipecg"};
    for (int k = 0; k < 2; k++) {
        run_spec s = {
            .A = &A, .method = meths[k], .precond = TL_PRECOND_JACOBI, .rtol = 1e-10, .bval = 1.0};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_NOT_SPD && strstr(s.res.detail, "<= 0"),
                      "%s: %s (%s)", meths[k], tl_stop_name(s.res.reason), s.res.detail);
        free_run(&s);
    }
    tl_csr_free(&A);
}

TL_TEST(bicgstab_breakdown_is_a_stop_reason)
{
    /* a rotation: (r0, A r0) = 0 from the start */
    tl_csr A = {0};
    TL_ASSERT_OK(tl_csr_alloc(&A, 2, 2, 2));
    A.rowptr[0] = 0, A.rowptr[1] = 1, A.rowptr[2] = 2;
    A.colidx[0] = 1, A.val[0] = 1.0;
    A.colidx[1] = 0, A.val[1] = -1.0;
    for (int k = 0; k < 2; k++) {
        run_spec s = {.A = &A,
                      .method = k ? "pipebicgstab" : "bicgstab",
                      .precond = TL_PRECOND_NONE,
                      .rtol = 1e-8,
                      .bval = 1.0};
        s.st = launch(run_rank, &s, 1);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_BREAKDOWN, "%s: %s", s.method,
                      tl_stop_name(s.res.reason));
        TL_ASSERT(!tl_stop_converged(s.res.reason));
        free_run(&s);
    }
    tl_csr_free(&A);
}

TL_TEST(nonfinite_is_detected)
{
    tl_csr A = {0};
    tridiag(10, 0.0, &A);
    for (int k = 0; k < 2; k++) {
        /* ||b||^2 overflows */
        run_spec s = {.A = &A,
                      .method = k ? "pipecg" : "bicgstab",
                      .precond = -1,
                      .rtol = 1e-8,
                      .bval = 1e300};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_NONFINITE, "%s: %s", s.method,
                      tl_stop_name(s.res.reason));
        /* the verdict says what its inf or nan means (it printed "(q, y) =
         * -nan, (y, y) = -nan" alone) */
        TL_ASSERT_MSG(strstr(s.res.detail, "inf: past the largest double, an overflow") ||
                          strstr(s.res.detail, "nan: no number"),
                      "%s: %s", s.method, s.res.detail);
        free_run(&s);
    }
    tl_csr_free(&A);
}

/* A NaN's sign means nothing: a verdict printed "delta = -nan", read as a
 * number below zero; it says "nan", and a minus before anything else stays */
TL_TEST(verdict_nan_without_sign)
{
    tl_solve_result res = {0};
    tl_solve_stop(&res, TL_STOP_NONFINITE, "delta = %g, (q, y) = %g, gamma = %g, x = %g", -NAN, -NAN, -INFINITY,
                  -1.5);
    TL_ASSERT_MSG(!strncmp(res.detail, "delta = nan, (q, y) = nan, gamma = -inf, x = -1.5 (inf: ", 55), "%s",
                  res.detail);
    TL_ASSERT_MSG(strstr(res.detail, "; nan: no number"), "%s", res.detail);
    tl_solve_stop(&res, TL_STOP_MAXIT, "-nanny -nan_x -nan");
    TL_ASSERT_MSG(!strncmp(res.detail, "-nanny -nan_x nan (nan: ", 24), "%s", res.detail);
}

TL_TEST(rtol_base_r0_and_atol)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    run_spec s = {.A = &A,
                  .method = "pcg",
                  .precond = -1,
                  .rtol = 1e-6,
                  .bval = 1.0,
                  .x0val = 3.0,
                  .base = TL_BASE_R0};
    s.st = launch(run_rank, &s, 2);
    TL_ASSERT_EQ(s.st, 0);
    TL_ASSERT_EQ(s.res.reason, TL_STOP_RTOL);
    TL_ASSERT_NEAR(s.res.base, s.res.r0norm, 0);
    TL_ASSERT(s.res.rnorm <= 1e-6 * s.res.r0norm);
    /* ||r0|| > ||b|| here, so the r0 base is the looser test */
    run_spec sb = {
        .A = &A, .method = "pcg", .precond = -1, .rtol = 1e-6, .bval = 1.0, .x0val = 3.0};
    sb.st = launch(run_rank, &sb, 2);
    TL_ASSERT(s.res.r0norm > sb.res.base);
    TL_ASSERT(sb.res.iterations >= s.res.iterations);
    run_spec sa = {
        .A = &A, .method = "pipecg", .precond = -1, .rtol = 0, .atol = 1e-3, .bval = 1.0};
    sa.st = launch(run_rank, &sa, 2);
    TL_ASSERT_EQ(sa.res.reason, TL_STOP_ATOL);
    TL_ASSERT(sa.res.rnorm <= 1e-3);
    free_run(&s);
    free_run(&sb);
    free_run(&sa);
    tl_csr_free(&A);
}

TL_TEST(residual_replacement_pipebicgstab)
{
    tl_csr A = {0};
    gen(TL_GEN_CONVDIFF, 10, &A);
    run_spec s = {
        .A = &A, .method = "pipebicgstab", .precond = -1, .rtol = 1e-10, .bval = 1.0, .rr = 5};
    s.st = launch(run_rank, &s, 2);
    check_converged(&s, "pipebicgstab with residual replacement");
    run_spec s0 = solve(&A, "pipebicgstab", 2, 1e-10);
    /* replacement perturbs the iteration a little, no more */
    TL_ASSERT_MSG(llabs(s.res.iterations - s0.res.iterations) <= 5, "%lld vs %lld",
                  (long long)s.res.iterations, (long long)s0.res.iterations);
    free_run(&s);
    free_run(&s0);
    tl_csr_free(&A);
}

TL_TEST(statistics_recorded)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    /* benchmark mode, before rounding level: plain Alg. 4 */
    run_spec s = {.A = &A, .method = "pipecg", .precond = -1, .maxit = 20, .bval = 1.0};
    s.st = launch(run_rank, &s, 2);
    TL_ASSERT_EQ(s.st, 0);
    TL_ASSERT_EQ(s.res.reason, TL_STOP_FIXED);
    TL_ASSERT_EQ(s.res.replacements, 0);
    int64_t it = s.res.iterations;
    TL_ASSERT_EQ(it, 20);
    /* pipecg: A x0 and A u0, one SpMV and one allreduce per pass of the
     * loop (it + 1 passes), and the driver's true residual (its SpMV; its
     * norm is scaled on the host, as ||b|| is, outside the statistics) */
    TL_ASSERT_EQ(s.stats[TL_OP_SPMV].count, it + 4);
    /* ||b|| is computed once before the timed solves, outside the statistics */
    TL_ASSERT_EQ(s.stats[TL_OP_ALLREDUCE].count, it + 1);
    TL_ASSERT(s.stats[TL_OP_HALO].count >= it);
    TL_ASSERT(s.stats[TL_OP_PRECOND].count == it + 2);
    /* every row has bytes but the persistent loop's, which only the CUDA
     * backend runs */
    for (int o = 0; o < TL_OP_COUNT; o++)
        TL_ASSERT_MSG(o == TL_OP_LOOP ? s.stats[o].count == 0 && s.stats[o].bytes == 0
                                      : s.stats[o].bytes > 0,
                      "%s: %lld calls, %g bytes", tl_op_name((tl_op_kind)o),
                      (long long)s.stats[o].count, s.stats[o].bytes);
    free_run(&s);
    /* to a tolerance: + 1 SpMV and reduction for the method's true
     * residual at convergence, + 1 SpMV for the driver's, + at most 4
     * SpMVs and 1 reduction per replacement */
    s = solve(&A, "pipecg", 2, 1e-8);
    check_converged(&s, "pipecg");
    it = s.res.iterations;
    int64_t rep = s.res.replacements;
    TL_ASSERT(s.stats[TL_OP_SPMV].count >= it + 5);
    TL_ASSERT_MSG(s.stats[TL_OP_SPMV].count <= it + 5 + 4 * rep, "%lld SpMVs, %lld its, %lld rep",
                  (long long)s.stats[TL_OP_SPMV].count, (long long)it, (long long)rep);
    TL_ASSERT(s.stats[TL_OP_ALLREDUCE].count >= it + 2);
    TL_ASSERT(s.stats[TL_OP_ALLREDUCE].count <= it + 2 + rep);
    free_run(&s);
    tl_csr_free(&A);
}

/* Issue 11: a two-phase 2D medium (coefficients 1e-2 and 1e2) on which
 * plain pipelined CG called rounding indefiniteness ("not SPD" at 2758 on
 * 1 rank, 2084 on 3) and PETSc's KSPPIPECG does not converge. */
TL_TEST(pipecg_converges_on_hetero2d)
{
    tl_csr A = {0};
    tl_gen g = {.kind = TL_GEN_HETERO2D, .n = 52, .peclet = 4};
    TL_ASSERT_OK(tl_gen_csr(&g, &A));
    const char *meths[] = {"pcg", "pipecg"};
    for (int r = 1; r <= 3; r += 2)
        for (int k = 0; k < 2; k++) {
            run_spec s = solve(&A, meths[k], r, 1e-8);
            char what[64];
            snprintf(what, sizeof what, "%s on %d ranks", meths[k], r);
            check_converged(&s, what);
            if (k == 1) TL_ASSERT_MSG(s.res.replacements > 0, "%s: no replacement", what);
            free_run(&s);
        }
    /* the same without update_sq: the norms as dots in the same allreduce */
    run_spec s = {.A = &A, .method = "pipecg", .precond = -1, .rtol = 1e-8, .bval = 1.0,
                  .no_update_sq = 1};
    s.st = launch(run_rank, &s, 2);
    check_converged(&s, "pipecg without update_sq");
    TL_ASSERT(s.res.replacements > 0);
    free_run(&s);
    tl_csr_free(&A);
}

/* The benchmark protocol: exactly the iterations asked for, past the
 * point where the recurrences reach rounding level (poisson7 n = 8 does at
 * about 27), which is reported; a truly indefinite matrix still stops. */
TL_TEST(fixed_iterations_past_rounding_level)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    for (int r = 1; r <= 2; r++) {
        run_spec s = {.A = &A, .method = "pipecg", .precond = -1, .maxit = 400, .bval = 1.0};
        s.st = launch(run_rank, &s, r);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_FIXED, "%d ranks: %s (%s)", r,
                      tl_stop_name(s.res.reason), s.res.detail);
        TL_ASSERT_EQ(s.res.iterations, 400);
        TL_ASSERT_MSG(s.res.rounding_at > 0 && s.res.rounding_at < 400, "rounding at %lld",
                      (long long)s.res.rounding_at);
        TL_ASSERT(strstr(s.res.detail, "rounding level"));
        TL_ASSERT_MSG(s.true_rel < 1e-12, "true residual %g", s.true_rel);
        free_run(&s);
    }
    /* BiCGStab: past the exact zeros of rounding level (r = 0 at about
     * 270 here; convdiff n = 8 at 314) */
    for (int k = 0; k < 2; k++) {
        tl_csr C = {0};
        gen(k ? TL_GEN_CONVDIFF : TL_GEN_POISSON7, 8, &C);
        run_spec s = {.A = &C, .method = "bicgstab", .precond = -1, .maxit = 1000, .bval = 1.0};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_FIXED, "bicgstab %d: %s (%s)", k,
                      tl_stop_name(s.res.reason), s.res.detail);
        TL_ASSERT_EQ(s.res.iterations, 1000);
        TL_ASSERT(s.res.rounding_at > 0 && strstr(s.res.detail, "rounding level"));
        TL_ASSERT_MSG(s.true_rel < 1e-12, "true residual %g", s.true_rel);
        free_run(&s);
        tl_csr_free(&C);
    }
    tl_csr_free(&A);
    tridiag(50, 0.5, &A); /* positive diagonal, indefinite */
    run_spec s = {.A = &A, .method = "pipecg", .precond = TL_PRECOND_JACOBI, .maxit = 400,
                  .bval = 1.0};
    s.st = launch(run_rank, &s, 2);
    TL_ASSERT_EQ(s.st, 0);
    TL_ASSERT_MSG(s.res.reason == TL_STOP_NOT_SPD, "%s (%s)", tl_stop_name(s.res.reason),
                  s.res.detail);
    free_run(&s);
    tl_csr_free(&A);
}

/* Pipelined BiCGStab's recurrences drift in benchmark mode (solvers/README.md):
 * the run still takes every iteration asked, no value of ||r|| goes
 * non-finite or subnormal (which would slow each later iteration on the
 * host), and the restarts from b - A x keep the true residual at rounding
 * level (1.0e-15 at 3000, 47 restarts, when this was written). */
TL_TEST(fixed_iterations_pipebicgstab_drift)
{
    tl_csr A = {0};
    gen(TL_GEN_CONVDIFF, 8, &A);
    run_spec s = {.A = &A, .method = "pipebicgstab", .precond = -1, .maxit = 3000, .bval = 1.0};
    s.st = launch(run_rank, &s, 1);
    TL_ASSERT_EQ(s.st, 0);
    TL_ASSERT_MSG(s.res.reason == TL_STOP_FIXED, "%s (%s)", tl_stop_name(s.res.reason),
                  s.res.detail);
    TL_ASSERT_EQ(s.res.iterations, 3000);
    TL_ASSERT_EQ(s.nhistory, 3001);
    TL_ASSERT_MSG(s.res.restarts > 0, "no restart from b - A x in 3000 iterations");
    for (int64_t k = 0; k < s.nhistory; k++)
        TL_ASSERT_MSG(isfinite(s.res.history[k]) &&
                          (s.res.history[k] == 0.0 || s.res.history[k] >= DBL_MIN),
                      "||r|| = %g at iteration %lld", s.res.history[k], (long long)k);
    TL_ASSERT_MSG(s.true_rel < 1e-12, "true residual %g", s.true_rel);
    free_run(&s);
    tl_csr_free(&A);
}

/* s[0] (host scalars) and s[1], the same on the scalar program, solved
 * on s[0].nranks ranks: the same stop, counts and residuals. */
static void solve_both_variants(run_spec *s, const char *what)
{
    s[0].variant = TL_VARIANT_HOST;
    s[1] = s[0];
    s[1].variant = TL_VARIANT_PROGRAM;
    for (int v = 0; v < 2; v++) {
        s[v].st = launch(run_rank, &s[v], s[v].nranks);
        TL_ASSERT_EQ(s[v].st, 0);
    }
    const tl_solve_result *h = &s[0].res, *g = &s[1].res;
    TL_ASSERT_MSG(g->reason == h->reason && g->iterations == h->iterations &&
                      g->restarts == h->restarts && g->rounding_at == h->rounding_at &&
                      g->rnorm == h->rnorm && s[1].true_rel == s[0].true_rel,
                  "%s: program %s at %lld, %lld restarts vs host %s at %lld, %lld", what,
                  tl_stop_name(g->reason), (long long)g->iterations, (long long)g->restarts,
                  tl_stop_name(h->reason), (long long)h->iterations, (long long)h->restarts);
}

/* Benchmark mode past rounding level: CG's scalars underflow on an SPD
 * matrix (poisson7 n = 8: (r, M^-1 r) to 0 at iteration 356 without
 * Jacobi, 353 with, on one rank), where no step can follow. cg and pcg
 * stopped there with a breakdown before the iterations asked for (a
 * benchmark against pipecg compared different counts); now they restart
 * from b - A x where (r, M^-1 r) or p'Ap underflows (about 338 here) and
 * run them all, counting the restarts, on host scalars and the scalar
 * program alike, on 1 and 2 ranks. Outside benchmark mode the underflow
 * is still a breakdown. */
TL_TEST(fixed_iterations_cg_restarts_past_underflow)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    for (int k = 0; k < 8; k++) {
        run_spec s[2] = {{.A = &A, .method = k % 2 ? "pcg" : "cg", .precond = -1, .maxit = 1000,
                          .bval = 1.0, .nranks = 1 + k / 2 % 2}};
        /* k >= 4: to a tolerance no residual meets, not benchmark mode */
        if (k >= 4) s[0].rtol = 1e-300;
        char what[64];
        snprintf(what, sizeof what, "%s on %d ranks, %s", s[0].method, s[0].nranks,
                 k < 4 ? "benchmark" : "rtol 1e-300");
        solve_both_variants(s, what);
        const tl_solve_result *h = &s[0].res;
        if (k < 4) {
            TL_ASSERT_MSG(h->reason == TL_STOP_FIXED && h->iterations == 1000, "%s: %s (%s)", what,
                          tl_stop_name(h->reason), h->detail);
            TL_ASSERT_MSG(h->restarts >= 2 && h->rounding_at > 300 && h->rounding_at < 400,
                          "%s: %lld restarts, rounding level at %lld", what,
                          (long long)h->restarts, (long long)h->rounding_at);
            TL_ASSERT(strstr(h->detail, "rounding level"));
            TL_ASSERT_MSG(s[0].true_rel < 1e-12, "%s: true residual %g", what, s[0].true_rel);
        } else if (k % 2) {
            TL_ASSERT_MSG(h->reason == TL_STOP_BREAKDOWN && strstr(h->detail, "(r, M^-1 r) = 0") &&
                              h->iterations > 300 && h->iterations < 400 && h->restarts == 0,
                          "%s: %s (%s), %lld restarts", what, tl_stop_name(h->reason), h->detail,
                          (long long)h->restarts);
        } else {
            /* cg: (r, r) is ||r||^2, so ||r|| = 0 there, a stop of its own */
            TL_ASSERT_MSG(h->reason == TL_STOP_TRUE_RESIDUAL && h->restarts == 0, "%s: %s (%s)",
                          what, tl_stop_name(h->reason), h->detail);
        }
        free_run(&s[0]);
        free_run(&s[1]);
    }
    tl_csr_free(&A);
}

/* p'Ap underflows before (r, r) on a badly scaled system (poisson7
 * times 1e-100, b = 1e-80: subnormal at iteration 45, 0 at 64 on one
 * rank, where cg stopped "not SPD"; on 2 ranks subnormal p'Ap took steps
 * that grew the residual to 5e+29 ||b||): cg restarts from b - A x and
 * runs the iterations with the true residual at rounding level. Scaled
 * 1e-150, p'Ap is subnormal from b - A x too, and 0 in the end: the stop
 * it always was. */
TL_TEST(fixed_iterations_cg_restarts_where_pap_underflows)
{
    for (int k = 0; k < 4; k++) {
        tl_csr A = {0};
        gen(TL_GEN_POISSON7, 8, &A);
        for (int64_t e = 0; e < A.nnz; e++)
            A.val[e] *= k < 2 ? 1e-100 : 1e-150;
        run_spec s[2] = {{.A = &A, .method = "cg", .precond = -1, .maxit = 1000, .bval = 1e-80,
                          .nranks = 1 + k % 2}};
        char what[64];
        snprintf(what, sizeof what, "A 1e-%d on %d ranks", k < 2 ? 100 : 150, s[0].nranks);
        solve_both_variants(s, what);
        const tl_solve_result *r = &s[0].res;
        if (k < 2)
            TL_ASSERT_MSG(r->reason == TL_STOP_FIXED && r->iterations == 1000 && r->restarts >= 1 &&
                              r->rounding_at > 30 && r->rounding_at < 80 && s[0].true_rel < 1e-12,
                          "%s: %s (%s), %lld restarts, rounding level at %lld, true residual %g",
                          what, tl_stop_name(r->reason), r->detail, (long long)r->restarts,
                          (long long)r->rounding_at, s[0].true_rel);
        else
            TL_ASSERT_MSG(r->reason == TL_STOP_NOT_SPD && strstr(r->detail, "p'Ap = 0") &&
                              r->restarts >= 1 && r->iterations < 1000,
                          "%s: %s (%s), %lld restarts", what, tl_stop_name(r->reason), r->detail,
                          (long long)r->restarts);
        free_run(&s[0]);
        free_run(&s[1]);
        tl_csr_free(&A);
    }
}

/* b = 0, solved by x = 0 with no method, is converged in benchmark mode
 * too (before: "converged: no", true residual 0 > atol = 0, exit 3). */
TL_TEST(fixed_iterations_zero_rhs_converged)
{
    tl_csr A = {0};
    gen(TL_GEN_POISSON7, 8, &A);
    const char *all[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
    for (int k = 0; k < 5; k++) {
        run_spec s = {.A = &A, .method = all[k], .precond = -1, .maxit = 20, .bval = 0.0};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_ZERO && tl_stop_converged(s.res.reason), "%s: %s (%s)",
                      all[k], tl_stop_name(s.res.reason), s.res.detail);
        free_run(&s);
    }
    tl_csr_free(&A);
}

/* x0 that solves A x = b exactly (A = 2 I, b = 1, x0 = 0.5) in benchmark
 * mode: converged at iteration 0 like b = 0 (before: cg and pcg "matrix
 * not SPD: p'Ap = 0", pipecg "(r, M^-1 r) = 0", the BiCGStabs
 * "breakdown", exit 3), on host scalars and scalar programs. */
TL_TEST(fixed_iterations_exact_x0_converged)
{
    tl_csr A = {0};
    enum { N = 10 };
    TL_ASSERT_OK(tl_csr_alloc(&A, N, N, N));
    for (int i = 0; i < N; i++)
        A.rowptr[i] = i, A.colidx[i] = i, A.val[i] = 2.0;
    A.rowptr[N] = N;
    const char *all[] = {"cg", "pcg", "pipecg", "bicgstab", "pipebicgstab"};
    for (int k = 0; k < 10; k++) {
        const tl_method *m = tl_method_find(all[k % 5]);
        tl_variant v = k < 5 ? TL_VARIANT_HOST : TL_VARIANT_PROGRAM;
        if (!m->variants[v]) continue;
        run_spec s = {.A = &A, .method = all[k % 5], .precond = -1, .maxit = 5, .bval = 1.0,
                      .x0val = 0.5, .variant = v};
        s.st = launch(run_rank, &s, 2);
        TL_ASSERT_EQ(s.st, 0);
        TL_ASSERT_MSG(s.res.reason == TL_STOP_ZERO && s.res.iterations == 0, "%s variant %d: %s (%s)",
                      s.method, (int)v, tl_stop_name(s.res.reason), s.res.detail);
        free_run(&s);
    }
    tl_csr_free(&A);
}

TL_TEST(jacobi_zero_diagonal_is_an_error)
{
    tl_csr A = {0};
    TL_ASSERT_OK(tl_csr_alloc(&A, 2, 2, 2));
    A.rowptr[0] = 0, A.rowptr[1] = 1, A.rowptr[2] = 2;
    A.colidx[0] = 1, A.val[0] = 1.0;
    A.colidx[1] = 0, A.val[1] = 1.0;
    run_spec s = {
        .A = &A, .method = "bicgstab", .precond = TL_PRECOND_JACOBI, .rtol = 1e-8, .bval = 1.0};
    TL_ASSERT_EQ(launch(run_rank, &s, 2), 1);
    tl_csr_free(&A);
}

/* The summary fields of a schedule row restate its steps (the host backend
 * and the tests read the summary, the CUDA backend the steps): they must
 * never drift apart. */
TL_TEST(schedule_summaries_match_steps)
{
    for (int i = 0; i < TL_SCHED_COUNT; i++) {
        const tl_schedule *s = &tl_schedules[i];
        const tl_sched_step *ar = tl_schedule_step(s, TL_SOP_ALLREDUCE), *halo = tl_schedule_step(s, TL_SOP_HALO_POST);
        TL_ASSERT_MSG(s->halo_lane == halo->role, "%s: halo_lane %s, step %s", s->name, tl_role_name(s->halo_lane),
                      tl_role_name(halo->role));
        TL_ASSERT_MSG(s->allreduce_lane == ar->role, "%s: allreduce_lane %s, step %s", s->name,
                      tl_role_name(s->allreduce_lane), tl_role_name(ar->role));
        TL_ASSERT_MSG(s->host_chan == ar->chan, "%s: host_chan %d, allreduce step channel %d", s->name,
                      (int)s->host_chan, (int)ar->chan);
        TL_ASSERT_MSG(s->split_comm == (ar->chan == TL_CHAN_SPLIT), "%s: split_comm %d", s->name, s->split_comm);
    }
}

/* The driver's choice of a method's variant from what was asked and the
 * backend's capabilities (tl_method_choose), and the host backend's
 * answer to the capabilities query. */
TL_TEST(variants_chosen_from_capabilities)
{
    const tl_method *pcg = tl_method_find("pipecg"), *pbi = tl_method_find("pipebicgstab"),
                    *bi = tl_method_find("bicgstab");
    tl_backend_caps host;
    tl_backend_config bc = {.schedule = tl_schedule_find("three-split")};
    TL_ASSERT_OK(tl_backend_caps_query(&tl_backend_host_ops, NULL, NULL, &bc, &host));
    TL_ASSERT(!host.device_scalars && !host.fused_iterations && host.why_not[0]);
    tl_backend_caps gpu = {.device_scalars = 1, .fused_update = 1, .fused_iterations = 1};
    tl_backend_caps gpu2 = {.device_scalars = 1, .fused_update = 1, .why_not = "one rank only"};
    tl_method_ask aut = {.scalars = TL_ASK_SCALARS_AUTO}, loop = {.fused_iterations = 1};
    tl_method_ask prog = {.scalars = TL_ASK_SCALARS_PROGRAM};
    TL_ASSERT_EQ(tl_method_choose(pcg, &host, &aut).variant, TL_VARIANT_HOST);
    TL_ASSERT_EQ(tl_method_choose(pcg, &host, &prog).variant, TL_VARIANT_PROGRAM);
    TL_ASSERT_EQ(tl_method_choose(pcg, &gpu, &aut).variant, TL_VARIANT_PROGRAM);
    TL_ASSERT_EQ(tl_method_choose(pcg, &gpu, &loop).variant, TL_VARIANT_LOOP);
    tl_method_choice c = tl_method_choose(pcg, &gpu2, &loop);
    TL_ASSERT_EQ(c.variant, TL_VARIANT_PROGRAM);
    TL_ASSERT_STREQ(c.loop_why_not, "one rank only");
    c = tl_method_choose(pbi, &gpu, &loop);
    TL_ASSERT_EQ(c.variant, TL_VARIANT_PROGRAM);
    TL_ASSERT(strstr(c.loop_why_not, "pipecg on scalar programs only"));
    TL_ASSERT_EQ(tl_method_choose(bi, &gpu, &prog).variant, TL_VARIANT_HOST);
    /* every variant a method lists runs; the program and loop forms only
     * where the method has them */
    for (int i = 0; i < tl_nmethods; i++)
        TL_ASSERT_MSG(tl_methods[i].variants[TL_VARIANT_HOST], "%s", tl_methods[i].name);
    TL_ASSERT(pcg->variants[TL_VARIANT_LOOP] && !pbi->variants[TL_VARIANT_LOOP]);
}

/* The device memory estimate counts each method's vectors from its
 * table entry: every variant holds at most that many (tl_be_vec's count),
 * and the largest variant exactly that many. */
TL_TEST(work_vectors_bound_every_variant)
{
    tl_csr A;
    gen(TL_GEN_POISSON7, 6, &A);
    for (int i = 0; i < tl_nmethods; i++) {
        const tl_method *m = &tl_methods[i];
        int most = 0;
        for (int v = 0; v < TL_VARIANT_COUNT; v++) {
            if (!m->variants[v]) continue;
            run_spec s = {.A = &A, .method = m->name, .precond = -1, .rtol = 1e-8, .bval = 1.0,
                          .nranks = 2, .variant = (tl_variant)v};
            s.st = launch(run_rank, &s, 2);
            TL_ASSERT_EQ(s.st, 0);
            TL_ASSERT_MSG(s.vectors_peak <= m->work_vectors + TL_SOLVE_VECTORS,
                          "%s variant %d holds %d vectors, its entry says %d + %d", m->name, v,
                          s.vectors_peak, m->work_vectors, TL_SOLVE_VECTORS);
            if (s.vectors_peak > most) most = s.vectors_peak;
            free_run(&s);
        }
        TL_ASSERT_MSG(most == m->work_vectors + TL_SOLVE_VECTORS, "%s: at most %d vectors, entry %d",
                      m->name, most, m->work_vectors);
        /* the estimate's count when a caller gives none covers every method */
        TL_ASSERT_MSG(TL_BE_VECTORS_UNKNOWN >= m->work_vectors + TL_SOLVE_VECTORS, "%s", m->name);
    }
    tl_csr_free(&A);
}

/* The CUDA backend's estimate, by hand on a small matrix (every
 * allocation under the 2 MiB page) and in 2 MiB pages on a large one. */
TL_TEST(cuda_memory_need_estimate)
{
    tl_dist_matrix m;
    memset(&m, 0, sizeof m);
    m.nowned = 512;
    m.diag.nrows = 512, m.diag.nnz = 3200;
    m.offd.nrows = 512, m.offd.nnz = 0;
    tl_backend_config c = {.vectors = 8, .precond = TL_PRECOND_NONE};
    double mib4 = 4.0 * 1024 * 1024;
    /* trilap's dot partials (a wave of blocks) are among the small ones */
    double vec = 8 * 8.0 * 512, diag = 4.0 * 513 + 12.0 * 3200, offd = 4.0 * 513 + 12.0;
    TL_ASSERT_NEAR(tl_cu_be_memory_need(&m, &c), vec + diag + offd + mib4, 0.5);
    c.precond = TL_PRECOND_JACOBI;
    TL_ASSERT_NEAR(tl_cu_be_memory_need(&m, &c), vec + diag + offd + 8.0 * 512 + mib4, 0.5);
    c.vectors = 0; /* unknown: the largest method's */
    TL_ASSERT_NEAR(tl_cu_be_memory_need(&m, &c),
                   TL_BE_VECTORS_UNKNOWN * 8.0 * 512 + diag + offd + 8.0 * 512 + mib4, 0.5);
    /* 2^27 rows, 7 nonzeros each and 2^26 ghost ones, 15 vectors: whole
     * pages, nothing missed */
    double page = 2.0 * 1024 * 1024, n = 134217728.0;
    m.nowned = m.diag.nrows = m.offd.nrows = (int64_t)n;
    m.diag.nnz = 7 * (int64_t)n;
    m.offd.nnz = (int64_t)n / 2;
    c = (tl_backend_config){.vectors = 15, .precond = TL_PRECOND_JACOBI};
    double need = tl_cu_be_memory_need(&m, &c);
    double exact = 15 * 8 * n + 2 * (4 * n) + 7 * n * 12 + n / 2 * 12 + 8 * n;
    TL_ASSERT(need >= exact && need <= exact + 24 * page + mib4);
    TL_ASSERT_EQ(fmod(need - mib4, page), 0.0);
}

/* ||x||_2 scaled as LAPACK's dnrm2 (tl_solve_nrm2): (x, x) of entries of
 * 1e200 is inf and of 1e-200 is 0, which read as "||b|| = inf" and as
 * "b = 0: x = 0"; the norm itself is a double in both. */
TL_TEST(host_norm_is_scaled)
{
    const double big[] = {3e200, -4e200}, tiny[] = {3e-200, 4e-200}, zero[] = {0.0, -0.0}, inf[] = {1.0, INFINITY},
                 nan[] = {NAN, 1.0};
    double v;
    TL_ASSERT_OK(tl_solve_nrm2(NULL, big, 2, &v));
    TL_ASSERT_NEAR(v / 5e200, 1.0, 1e-15);
    TL_ASSERT_OK(tl_solve_nrm2(NULL, tiny, 2, &v));
    TL_ASSERT_NEAR(v / 5e-200, 1.0, 1e-15);
    TL_ASSERT_OK(tl_solve_nrm2(NULL, zero, 2, &v));
    TL_ASSERT(v == 0.0);
    TL_ASSERT_OK(tl_solve_nrm2(NULL, inf, 2, &v));
    TL_ASSERT(isinf(v));
    TL_ASSERT_OK(tl_solve_nrm2(NULL, nan, 2, &v));
    TL_ASSERT(isnan(v));
    TL_ASSERT_OK(tl_solve_nrm2(NULL, big, 0, &v));
    TL_ASSERT(v == 0.0);
}

/* Each results row says its own repeat's stop: converged and reason were
 * the last solve's on every row, beside per-repeat iterations. Repeats of
 * one run on the host stop alike (same x0, same arithmetic), so the row
 * writer is given a report whose repeats differ. */
TL_TEST(results_rows_each_repeat_its_reason)
{
    int64_t its[2] = {40, 12};
    double times[2] = {1e-3, 2e-3}, res[2] = {1e-3, 1e-9}, tres[2] = {1e-3, 1e-9};
    tl_stop_reason why[2] = {TL_STOP_MAXIT, TL_STOP_RTOL};
    tl_solve_report rep = {.ntimes = 2, .iterations = its, .times = times, .residuals = res,
                           .true_residuals = tres, .reasons = why, .nglobal = 8, .nnz = 20};
    rep.res.reason = TL_STOP_RTOL;
    tl_solve_config cfg = {.params = {.rtol = 1e-8, .max_iterations = 40}, .repeat = 2};
    tl_solve_labels lb = {.solver = "cg", .precond = "none", .schedule = "sync", .backend = "host",
                          .matrix = "gen:poisson7:2", .nranks = 1};
    const char *path = tl_test_path("rows.csv");
    TL_ASSERT_OK(tl_solve_results_append(path, &lb, &cfg, &rep, NULL));
    char *text = tl_test_slurp(path);
    char want[2][256];
    for (int k = 0; k < 2; k++)
        snprintf(want[k], sizeof want[k], ",%d,%lld,%.6e,%.6e,%.6e,%s,%s,", k, (long long)its[k], res[k], tres[k],
                 times[k], tl_stop_converged(why[k]) ? "yes" : "no", tl_stop_name(why[k]));
    TL_ASSERT_MSG(strstr(text, want[0]) && strstr(text, want[1]), "want rows with %s and %s in:\n%s", want[0], want[1],
                  text);
    free(text);
}

TL_TEST_MAIN(results_rows_each_repeat_its_reason, schedule_table, verdict_nan_without_sign, schedule_summaries_match_steps, method_registry,
             backend_ops_all_schedules,
             spmv_dot_equals_spmv_and_dot,
             methods_converge_poisson_1_to_4_ranks, bicgstab_convdiff_and_solution,
             distributed_solution_matches_serial, schedules_do_not_change_numerics,
             fixed_iteration_mode, not_spd_stops_cg_methods, bicgstab_breakdown_is_a_stop_reason,
             nonfinite_is_detected, rtol_base_r0_and_atol, residual_replacement_pipebicgstab,
             statistics_recorded, jacobi_zero_diagonal_is_an_error, pipecg_converges_on_hetero2d,
             fixed_iterations_past_rounding_level, fixed_iterations_pipebicgstab_drift,
             fixed_iterations_cg_restarts_past_underflow,
             fixed_iterations_cg_restarts_where_pap_underflows,
             fixed_iterations_zero_rhs_converged, fixed_iterations_exact_x0_converged,
             variants_chosen_from_capabilities,
             work_vectors_bound_every_variant, cuda_memory_need_estimate, host_norm_is_scaled)
