/* trilap-fdtd verify decomp: every decomposition x strategy x s x overlap
 * x boundary of its lists against one domain, the plan parsed and checked
 * by rank 0 before any run; on several ranks a per-rank strategy spreads
 * each decomposition of as many subdomains one to a rank. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/progress.h"
#include "stencil/verify_impl.h"

/* The CPML of verify decomp's CPML runs, in cells */
enum { DECOMP_CPML = 8 };

/* What verify decomp runs: decompositions x strategies x s x overlap x the
 * three boundaries (no CPML, CPML, periodic), each against one domain. */
typedef struct decomp_plan {
    char dbuf[1024], sbuf[256], *names[32], *strats[8];
    int pd[32][3], nd, ns, nss, noverlap;
    int64_t ss[8], n, steps;
} decomp_plan;

/* One run of the plan: noise initial fields, a source and two receivers
 * (rec, which c points to). */
static void decomp_config(tl_fdtd_config *c, const verify_args *va, const decomp_plan *p, int i, int j, int k, int ov,
                          int boundary, int64_t rec[2][3])
{
    int64_t n = p->n;
    tl_fdtd_config_defaults(c);
    c->backend = va->v.backend;
    c->kernel = va->v.kernel;
    c->dbl = va->v.dbl;
    c->gpus = va->v.gpus;
    c->order_fixed = 1;
    c->grid_option = "--grid";
    c->n[0] = c->n[1] = c->n[2] = n;
    c->cpml = boundary == 1 ? DECOMP_CPML : 0;
    c->periodic = boundary == 2;
    c->init = tl_fdtd_init_noise;
    c->steps = p->steps;
    c->f0 = 0.1;
    for (int d = 0; d < 3; d++) c->src[d] = n / 2 - 3 + d;
    c->source = 1;
    const int64_t r[2][3] = {{n / 4, n / 2, n / 2}, {n - 3, n - 5, 2}};
    memcpy(rec, r, sizeof r);
    c->nrec = 2;
    c->rec = (const int64_t(*)[3])rec;
    memcpy(c->pd, p->pd[i], sizeof c->pd);
    c->strategy = p->strats[j];
    c->s = (int)p->ss[k];
    c->overlap = ov;
}

/* ranks: the decomposition spread over this run's ranks, one subdomain
 * each; a decomposition of another size needs another run */
static int decomp_ranked(const verify_args *va, const decomp_plan *p, int j)
{
    return tl_fdtd_strategy_per_rank(p->strats[j], va->v.backend) == 1;
}

static int decomp_runs_here(const tl_ctx *ctx, const verify_args *va, const decomp_plan *p, int i, int j)
{
    int nsub = p->pd[i][0] * p->pd[i][1] * p->pd[i][2];
    return decomp_ranked(va, p, j) ? nsub == ctx->size : ctx->rank == 0;
}

/* The lists, parsed by rank 0 (which says a refusal), then by the others
 * (each runs its part of the plan) */
static tl_status decomp_plan_parse(const tl_ctx *ctx, verify_args *va, decomp_plan *p)
{
    const char *defs = ctx->size > 1                          ? tl_fdtd_strategy_default(va->v.backend, 1)
                       : va->v.backend == TL_FDTD_BACKEND_CUDA ? (TL_HAVE_NCCL ? "host,peer,nccl" : "host,peer")
                                                               : "copy";
    const char *strategies = va->o.strategies ? va->o.strategies : defs;
    p->nd = tl_verify_parse_decomps(va, va->o.decomps ? va->o.decomps : "1x1x1,slab-z,block-xy,pencil-yz", p->dbuf,
                          sizeof p->dbuf, p->names, p->pd, 32);
    if (p->nd < 0) return TL_ERR_REMOTE; /* said */
    snprintf(p->sbuf, sizeof p->sbuf, "%s", strategies);
    p->ns = tl_verify_split_names(p->sbuf, p->strats, 8);
    if (p->ns <= 0)
        return tl_verify_refuse(va, "--strategies", strategies, "expected up to 8 strategy names, comma-separated");
    TL_TRY(tl_verify_refuse_repeated_names(va, "--strategies", strategies, p->strats, p->ns));
    for (int j = 0; j < p->ns; j++) {
        const int kind = tl_fdtd_strategy_per_rank(p->strats[j], va->v.backend);
        if (kind < 0) {
            char why[160];
            snprintf(why, sizeof why, "'%.30s' is not a strategy of --backend %s (%s)", p->strats[j],
                     backend_names[va->v.backend].name, tl_fdtd_strategy_names());
            return tl_verify_refuse(va, "--strategies", strategies, why);
        }
        /* a per-rank strategy's subdomain is on its rank's GPU: --gpus was
         * accepted and did nothing there */
        if (kind == 1 && va->v.gpus > 0) {
            if (va->o.strategies)
                fprintf(stderr,
                        PROG ": --gpus %d spreads the subdomains of one process over GPUs; --strategies %s: %s runs "
                             "each subdomain on its rank's GPU, the one the launcher binds it to (drop --gpus, or "
                             "'%s' from the list; CUDA_VISIBLE_DEVICES sets the GPUs)\n",
                        va->v.gpus, strategies, p->strats[j], p->strats[j]);
            else
                fprintf(stderr,
                        PROG ": --gpus %d spreads the subdomains of one process over GPUs; %d ranks run strategy %s "
                             "(their default), each subdomain on its rank's GPU, the one the launcher binds it to "
                             "(drop --gpus; CUDA_VISIBLE_DEVICES sets the GPUs)\n",
                        va->v.gpus, ctx->size, p->strats[j]);
            va->usage_error = 1;
            return TL_ERR_REMOTE;
        }
    }
    p->nss = tl_verify_parse_ints(va->o.ss, p->ss, 8);
    if (p->nss <= 0) return tl_verify_refuse(va, "--ss", va->o.ss, "expected up to 8 values of s, comma-separated");
    for (int k = 0; k < p->nss; k++)
        if (p->ss[k] < 1 || p->ss[k] > 64) { /* was the solver's "verify decomp, ..., s = 0: s = 0: ..." */
            char why[64];
            snprintf(why, sizeof why, "%" PRId64 " is not 1 to 64", p->ss[k]);
            return tl_verify_refuse(va, "--ss", va->o.ss, why);
        }
    TL_TRY(tl_verify_refuse_repeated_ints(va, "--ss", va->o.ss, p->ss, p->nss));
    p->n = va->o.n > 0 ? va->o.n : 64;
    if (p->n < 2 * DECOMP_CPML + 2) { /* was the solver's "grid size 16 along x is too small for a CPML of 8 cells" */
        char val[32], why[128];
        snprintf(val, sizeof val, "%" PRId64, p->n);
        snprintf(why, sizeof why,
                 "each shape also runs with a CPML of %d cells on each side, which needs %d points per axis",
                 DECOMP_CPML, 2 * DECOMP_CPML + 2);
        return tl_verify_refuse(va, "--grid", val, why);
    }
    p->steps = va->o.steps > 0 ? va->o.steps : 24;
    p->noverlap = va->v.backend == TL_FDTD_BACKEND_CUDA ? 2 : 1;
    return TL_OK;
}

/* Every run's configuration checked before any runs, by rank 0 (it says a
 * refusal once; the one-process runs are its own) */
static tl_status decomp_plan_check(const tl_ctx *ctx, verify_args *va, const decomp_plan *p)
{
    int runs = 0;
    for (int i = 0; i < p->nd; i++)
        for (int j = 0; j < p->ns; j++) {
            if (!decomp_runs_here(ctx, va, p, i, j)) continue;
            runs++;
            for (int k = 0; k < p->nss; k++)
                for (int b = 0; b < 3; b++) {
                    tl_fdtd_config c;
                    int64_t rec[2][3];
                    decomp_config(&c, va, p, i, j, k, 0, b, rec);
                    char what[128];
                    snprintf(what, sizeof what, "verify decomp, %s, %s, s = %d", p->names[i], p->strats[j], c.s);
                    tl_error_context kx;
                    tl_error_context_begin(&kx, what);
                    TL_TRY(tl_verify_end_run_check(va, &kx, tl_fdtd_verify_config_check(&c)));
                }
        }
    if (runs == 0) { /* every decomposition is of another size than the per-rank strategies need */
        fprintf(stderr, PROG ": no decomposition in --decomps has %d subdomain%s for a per-rank strategy; run with "
                        "--ranks N or mpirun -np N, N = px*py*pz\n", ctx->size, ctx->size == 1 ? "" : "s");
        va->usage_error = 1;
        return TL_ERR_REMOTE; /* said */
    }
    return TL_OK;
}

/* The plan parsed and checked before any run, every rank taking rank 0's
 * verdict: a refusal of the input is said once and every rank exits 2. */
static tl_status decomp_plan_make(tl_ctx *ctx, verify_args *va, decomp_plan *p)
{
    int root = ctx->rank == 0;
    tl_status st = TL_OK;
    if (root) {
        st = decomp_plan_parse(ctx, va, p);
        if (st == TL_OK) st = decomp_plan_check(ctx, va, p);
    }
    int refused = root && va->usage_error;
    if (tl_comm_agree(ctx, st) != TL_OK) {
        if (tl_comm_bcast(ctx, &refused, sizeof refused, 0) == TL_OK && refused && ctx->mode == TL_LAUNCH_MPI)
            va->usage_error = 1; /* thread ranks share va: rank 0 has set it */
        return TL_ERR_REMOTE;
    }
    /* the lists rank 0 accepted, for this rank's part of the plan */
    return root ? TL_OK : decomp_plan_parse(ctx, va, p);
}

/* One row per run of the plan into out (rank 0's; NULL elsewhere) */
static tl_status decomp_rows(tl_ctx *ctx, const verify_args *va, const decomp_plan *p, FILE *out, tl_progress *bar,
                             int *rows, int *wrong)
{
    static const char *const boundary_names[3] = {"zero", "cpml8", "periodic"};
    for (int i = 0; i < p->nd; i++)
        for (int j = 0; j < p->ns; j++) {
            int nsub = p->pd[i][0] * p->pd[i][1] * p->pd[i][2], ranked = decomp_ranked(va, p, j);
            if (ranked && nsub != ctx->size && out)
                fprintf(out, "# %s,%s: %d subdomains, %d rank%s: not run (run with --ranks %d or mpirun -np %d)\n",
                        p->names[i], p->strats[j], nsub, ctx->size, ctx->size == 1 ? "" : "s", nsub, nsub);
            if (!decomp_runs_here(ctx, va, p, i, j)) continue;
            for (int k = 0; k < p->nss; k++)
                for (int ov = 0; ov < p->noverlap; ov++)
                    for (int b = 0; b < 3; b++) {
                        tl_fdtd_config c;
                        int64_t rec[2][3];
                        decomp_config(&c, va, p, i, j, k, ov, b, rec);
                        double m;
                        TL_TRY(tl_fdtd_verify_decomp_on(ranked ? ctx : NULL, &c, &m));
                        if (out)
                            fprintf(out, "%s,%s,%d,%d,%s,%.3e,%s\n", p->names[i], p->strats[j], c.s, ov,
                                    boundary_names[b], m, m == 0 ? "yes" : "no");
                        *wrong += m != 0;
                        (*rows)++;
                        tl_progress_update(bar, bar->done + 1);
                    }
        }
    return TL_OK;
}

tl_status tl_verify_decomp(tl_ctx *ctx, verify_args *va)
{
    int root = ctx->rank == 0; /* prints; alone runs the one-process strategies */
    decomp_plan *p = calloc(1, sizeof *p);
    tl_status st = tl_comm_agree(ctx, p ? TL_OK : TL_FAIL(TL_ERR_NOMEM, "verify decomp: the plan"));
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(decomp_plan_make(ctx, va, p), st, done);
    TL_TRYGOTO(tl_verify_gpu_lacking(ctx, va), st, done);
    /* the table is printed whole once every run has succeeded: a run that
     * fails half-way leaves no rows that look like a result */
    char *table = NULL;
    size_t table_len = 0;
    FILE *out = root ? open_memstream(&table, &table_len) : NULL;
    TL_CHECKGOTO(!root || out, TL_ERR_NOMEM, st, done, "verify decomp: the table");
    int wrong = 0, rows = 0;
    /* a unit per run of rank 0 (decompositions x strategies x s x overlap
     * x boundaries; the runs a rank count skips end the line early) */
    tl_progress bar;
    tl_progress_begin(&bar, "verify decomp", (double)p->nd * p->ns * p->nss * p->noverlap * 3, "runs",
                      root ? tl_progress_mode_of(va->o.progress) : TL_PROGRESS_OFF);
    st = decomp_rows(ctx, va, p, out, &bar, &rows, &wrong);
    tl_progress_end(&bar);
    if (out) fclose(out);
    if (st == TL_OK && root)
        printf("decomp,strategy,s,overlap,boundary,max_abs_diff,identical\n%s# %d rows, %d not identical\n", table,
               rows, wrong);
    free(table);
    TL_TRYGOTO(st, st, done);
    if (!root) st = wrong ? TL_ERR_REMOTE : TL_OK; /* rank 0 says why */
    /* rows that differ are the result itself: printed, and the exit says so */
    else if (wrong) st = TL_FAIL(TL_ERR_NUMERIC, "%d decomposed runs differ from the single domain", wrong);
done:
    free(p);
    return st;
}
