/* trilap-fdtd verify convergence|time|reflection|energy|decomp: the
 * verification experiments of stencil/verify.h behind options, each
 * printing its table as CSV with a header row; decomp also on several
 * ranks (one subdomain each). */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/out.h"
#include "runtime/progress.h"
#include "stencil/verify_impl.h"

/* The energy experiment's input, checked before its two runs: the CPML
 * the grid holds, both runs' configurations, the slice folders. */
static tl_status energy_check(verify_args *va, int64_t n, int64_t L, int64_t steps, const char *d1, const char *d2)
{
    if (n < 2 * L + 2) { /* said as run says it: what to change */
        char grid[32];
        snprintf(grid, sizeof grid, "%" PRId64, n);
        tl_fdtd_cli_cpml_too_thick(grid, L, n >= 2 ? (n - 2) / 2 : 0, "--cells", 0);
        va->usage_error = 1;
        return TL_ERR_REMOTE; /* said */
    }
    if (va->o.every > steps && !va->every_typed) va->o.every = steps; /* the last step, not step 0 alone */
    if (va->o.every > steps) { /* the table held step 0's zeros alone, exit 0, and --slices nothing */
        char val[32], why[160];
        snprintf(val, sizeof val, "%" PRId64, va->o.every);
        snprintf(why, sizeof why,
                 "beyond the run's %" PRId64 " steps: no step after 0 would be sampled (give N <= %" PRId64 ")",
                 steps, steps);
        return tl_verify_refuse(va, "--every", val, why);
    }
    tl_error_context k;
    tl_error_context_begin(&k, "verify energy");
    tl_status st = tl_fdtd_verify_energy_check(&va->v, n, L, steps, va->o.every);
    if (st == TL_OK) st = tl_fdtd_verify_energy_check(&va->v, n, 0, steps, va->o.every);
    TL_TRY(tl_verify_end_run_check(va, &k, st));
    if (!d1) return TL_OK;
    /* "" made /cpml and /none at the root of the file system; the command
     * line's fault, exit 2 (it was exit 1, as a folder that cannot be made) */
    if (!*va->o.slices) return tl_verify_refuse(va, "--slices", "", "an empty folder name");
    char first[64]; /* the first slice each run writes */
    snprintf(first, sizeof first, "p-%06" PRId64 ".txt", va->o.every);
    st = tl_fdtd_cli_check_output("--slices", d1, first);
    if (st == TL_OK) st = tl_fdtd_cli_check_output("--slices", d2, first);
    return st; /* a file error: exit 1, as for run's outputs */
}

/* The energy table and its summary on stderr. The source's end is said
 * as the run has it: up to b81cb7b the header read "source stops
 * near t = 48.0" after any --steps, and a run shorter than that (--steps
 * 50: t = 11.2) reported the energy at the end / maximum, 1.000e+00 in
 * both, as if the CPML had absorbed nothing. */
static void energy_table(const tl_fdtd_energy_run *a, const tl_fdtd_energy_run *b, int64_t L, int64_t n,
                         int64_t steps)
{
    double dt = a->dt, t_end = (double)steps * dt;
    int64_t step_off = (int64_t)ceil(a->source_end / dt);
    char source[160];
    if (t_end >= a->source_end)
        snprintf(source, sizeof source, "source stops near t = %.1f (step %" PRId64 ")", a->source_end, step_off);
    else
        snprintf(source, sizeof source, "source still on at the last step (t = %.1f; it stops near t = %.1f, step %"
                 PRId64 ")", t_end, a->source_end, step_off);
    printf("# energy normalised by its maximum over every step; CPML %" PRId64 " cells; grid %" PRId64 "^3; %s\n", L,
           n, source);
    printf("step,time_s,energy_cpml,energy_none\n");
    for (int64_t i = 0; i < a->count && i < b->count; i++) {
        double step = a->samples[2 * i];
        printf("%.0f,%.6g,%.6e,%.6e\n", step, step * dt, a->max > 0 ? a->samples[2 * i + 1] / a->max : 0,
               b->max > 0 ? b->samples[2 * i + 1] / b->max : 0);
    }
    char on[128] = "";
    if (t_end < a->source_end)
        snprintf(on, sizeof on, " (the source is still on: --steps %" PRId64 " or more to see the CPML absorb)",
                 step_off);
    if (a->max > 0 && b->max > 0)
        fprintf(stderr, PROG ": energy at the end / maximum: %.3e with CPML, %.3e without%s\n", a->last / a->max,
                b->last / b->max, on);
}

static tl_status verify_energy(verify_args *va)
{
    int64_t cells[16];
    const char *list = va->o.cells ? va->o.cells : "20";
    int nc = tl_verify_parse_ints(list, cells, 16);
    if (nc <= 0) return tl_verify_refuse(va, "--cells", list, "expected up to 16 CPML thicknesses, comma-separated");
    /* the table has one column with CPML: a list would run its first
     * non-zero entry and drop the rest (before, --cells 4,8,0 was --cells 4) */
    if (nc != 1 || cells[0] == 0)
        return tl_verify_refuse(va, "--cells", list, "verify energy runs one CPML thickness, above 0, against none");
    int64_t L = cells[0];
    int64_t n = va->o.n > 0 ? va->o.n : 64, steps = va->o.steps > 0 ? va->o.steps : 600;
    char d1[4096], d2[4096];
    if (va->o.slices) {
        snprintf(d1, sizeof d1, "%s/cpml", va->o.slices);
        snprintf(d2, sizeof d2, "%s/none", va->o.slices);
    }
    TL_TRY(tl_verify_refuse_idle_s(va, (const int(*)[3])&va->v.pd, 1, "--decomp"));
    TL_TRY(energy_check(va, n, L, steps, va->o.slices ? d1 : NULL, va->o.slices ? d2 : NULL));
    tl_fdtd_energy_run a = {0}, b = {0};
    tl_status st = TL_OK;
    /* a line per run, one unit per step (the two runs take as long) */
    tl_fdtd_vopts vo = va->v;
    tl_progress bar;
    vo.progress = &bar;
    tl_progress_begin(&bar, "verify energy, with CPML", (double)steps, "steps", tl_progress_mode_of(va->o.progress));
    st = tl_fdtd_verify_energy(&vo, n, L, steps, va->o.every, va->o.slices ? d1 : NULL, &a);
    tl_progress_end(&bar);
    TL_TRYGOTO(st, st, done);
    tl_progress_begin(&bar, "verify energy, no CPML", (double)steps, "steps", tl_progress_mode_of(va->o.progress));
    st = tl_fdtd_verify_energy(&vo, n, 0, steps, va->o.every, va->o.slices ? d2 : NULL, &b);
    tl_progress_end(&bar);
    TL_TRYGOTO(st, st, done);
    energy_table(&a, &b, L, n, steps);
done:
    free(a.samples);
    free(b.samples);
    return st;
}

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

static tl_status verify_decomp(tl_ctx *ctx, verify_args *va)
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

static tl_status verify_rank(tl_ctx *ctx, void *arg)
{
    verify_args *va = arg;
    if (ctx->size > 1 && strcmp(va->what, "decomp")) {
        if (ctx->rank == 0)
            fprintf(stderr, PROG ": verify %s runs on one rank; only verify decomp takes several (strategy ranks)\n",
                    va->what);
        if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) va->usage_error = 1;
        return TL_ERR_REMOTE;
    }
    if (!strcmp(va->what, "decomp")) return verify_decomp(ctx, va); /* its lists first: a plan's own checks */
    TL_TRY(tl_verify_gpu_lacking(ctx, va));
    if (!strcmp(va->what, "convergence")) return tl_verify_convergence(va);
    if (!strcmp(va->what, "time")) return tl_verify_time(va);
    if (!strcmp(va->what, "reflection")) return tl_verify_reflection(va);
    return verify_energy(va);
}

int tl_fdtd_cli_verify(int argc, char **argv, int full_argc, char **full_argv, tl_launch_quiet *quiet)
{
    verify_args va;
    tl_launch_opts lo;
    tl_option lopts[TL_FDTD_CLI_LAUNCH_NOPTS];
    memset(&va, 0, sizeof va);
    memset(&lo, 0, sizeof lo);
    tl_fdtd_cli_launch_group(lopts, "thread launcher: ranks, for verify decomp alone (the others run on one): each "
                                    "decomposition of --decomps with px*py*pz of them spread one subdomain per rank "
                                    "(strategy ranks, cuda devcomm), the others named as not run; 1: one process");
    const tl_optgroup groups[] = {{"Verification", tl_verify_options, tl_verify_noptions, &va.o},
                                  {"Launch", lopts, TL_FDTD_CLI_LAUNCH_NOPTS, &lo}};
    /* the parser's lines begin PROG ": " as every other (fdtd_cli.h) */
    const tl_optspec spec = {.program = PROG,
                             .command = "verify",
                             .usage = "convergence|time|reflection|energy|decomp [options]",
                             .purpose = "Reproduces the paper's verification tables as CSV on stdout. An "
                                        "experiment takes the options whose help names it, and those that "
                                        "name none.",
                             .groups = groups, .ngroups = 2, .max_positional = 1};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) {
        free(res.positional);
        return 0;
    }
    if (res.npositional == 0) { /* the parser's "expected 1 argument, got 0" named neither verify nor what */
        free(res.positional);
        fprintf(stderr, PROG ": verify needs an experiment: " VERIFY_EXPERIMENTS " (try --help)\n");
        return 2;
    }
    va.what = res.positional[0];
    int refused = tl_verify_options_refused(&va, &res, &lo);
    va.every_typed = tl_opts_given(&res, &va.o.every);
    free(res.positional); /* tl_opts_given's record with it */
    if (refused) return 2;
    tl_fdtd_vopts_defaults(&va.v);
    va.v.backend = (tl_fdtd_backend_kind)va.o.backend;
    va.v.kernel = (tl_fdtd_kernel_kind)va.o.kernel;
    va.v.dbl = va.o.precision == 1;
    va.v.strategy = va.o.strategy;
    va.v.s = (int)va.o.s;
    va.v.gpus = (int)va.o.gpus;
    va.v.order_fixed = strcmp(va.what, "convergence") != 0; /* --orders is convergence's alone */
    /* the remedies name it: convergence said "a grid of at least 16 points
     * along z", an option it does not take (reflection's, --n-int, is set
     * where its margin is known) */
    va.v.grid_option = strcmp(va.what, "convergence") ? "--grid" : "--sizes";
    if (tl_fdtd_cli_parse_decomp(va.o.decomp, va.v.pd) != 0)
        return tl_fdtd_cli_bad("--decomp", va.o.decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    int rc = tl_fdtd_cli_launch(&lo, quiet, full_argc, full_argv, verify_rank, &va, va.v.backend == TL_FDTD_BACKEND_CUDA,
                            NULL);
    return va.usage_error ? 2 : rc;
}

