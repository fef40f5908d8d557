/* trilap-fdtd verify convergence|time|reflection|energy|decomp: the
 * verification experiments of stencil/verify.h behind options, each
 * printing its table as CSV with a header row; decomp also on several
 * ranks (one subdomain each). */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/progress.h"
#include "stencil/fdtd_cli.h"
#include "stencil/verify.h"

typedef struct verify_opts {
    int backend, kernel, precision;
    const char *decomp, *decomps, *strategy, *strategies, *orders, *sizes, *cfls,
        *cells, *ss;
    int64_t s, n_int, n, steps, every, gpus;
    double f0, cfl;
    const char *slices;
    int progress;
} verify_opts;

#define V(f) offsetof(verify_opts, f)
static const tl_option verify_options[] = {
    {.name = "backend", .type = TL_OPT_ENUM, .offset = V(backend), .def = "cpu", TABLE(backend_names), .help = "backend"},
    {.name = "kernel", .type = TL_OPT_ENUM, .offset = V(kernel), .def = "vec4-band", TABLE(tl_fdtd_kernels),
     .help = "cuda kernels"},
    {.name = "precision", .type = TL_OPT_ENUM, .offset = V(precision), .def = "double", TABLE(precision_names),
     .help = "floating point precision"},
    {.name = "decomp", .type = TL_OPT_STRING, .offset = V(decomp), .def = "1x1x1", .metavar = "PXxPYxPZ",
     .help = "convergence, time, energy: decomposition"},
    {.name = "decomps", .type = TL_OPT_STRING, .offset = V(decomps), .metavar = "LIST",
     .help = "reflection: decompositions [1x1x1: decomposed runs equal the single domain bit for bit, which "
             "verify decomp checks]; decomp: [1x1x1,slab-z,block-xy,pencil-yz]"},
    {.name = "strategy", .type = TL_OPT_STRING, .offset = V(strategy), .metavar = "NAME", .help = "exchange strategy"},
    {.name = "strategies", .type = TL_OPT_STRING, .offset = V(strategies), .metavar = "LIST",
     .help = "decomp: strategies (default: the backend's: copy, or host,peer,nccl; on several ranks ranks, or devcomm)"},
    {.name = "s", .type = TL_OPT_INT, .offset = V(s), .def = "1", .metavar = "S", .help = "local steps between exchanges",
     .min = 1, .max = 64},
    {.name = "ss", .type = TL_OPT_STRING, .offset = V(ss), .def = "1,2", .metavar = "LIST",
     .help = "decomp: values of s (subdomains must be at least g = 2 r s thick)"},
    {.name = "orders", .type = TL_OPT_STRING, .offset = V(orders), .def = "2,4,8", .metavar = "LIST",
     .help = "convergence: orders"},
    {.name = "sizes", .type = TL_OPT_STRING, .offset = V(sizes), .def = "8,16,32", .metavar = "LIST",
     .help = "convergence: grid sizes"},
    {.name = "cfl", .type = TL_OPT_DOUBLE, .offset = V(cfl), .def = "0.5", .metavar = "F",
     .help = "convergence: CFL fraction", .min = 1e-6, .max = 1},
    {.name = "cfls", .type = TL_OPT_STRING, .offset = V(cfls), .def = "0.8,0.4,0.2,0.1", .metavar = "LIST",
     .help = "time: CFL fractions (dt halves along the list)"},
    {.name = "grid", .type = TL_OPT_INT, .offset = V(n), .def = "0", .metavar = "N", .aliases = "n",
     .help = "time: grid points per axis [16]; energy: [64]; decomp: [64]", .min = 0, .max = 4096},
    {.name = "cells", .type = TL_OPT_STRING, .offset = V(cells), .metavar = "LIST",
     .help = "reflection: CPML thicknesses [0,8,12,16,24]; energy: the one with CPML is the first non-zero [20]"},
    {.name = "n-int", .type = TL_OPT_INT, .offset = V(n_int), .def = "40", .metavar = "N",
     .help = "reflection: interior points per axis", .min = 8, .max = 4096},
    {.name = "f0", .type = TL_OPT_DOUBLE, .offset = V(f0), .def = "0.05", .metavar = "F",
     .help = "reflection: Ricker peak frequency (c = h = 1)", .min = 1e-6, .max = 0.5},
    {.name = "steps", .type = TL_OPT_INT, .offset = V(steps), .def = "0", .metavar = "N",
     .help = "energy: steps [600]; decomp: [24]", .min = 0, .max = 1e9},
    {.name = "every", .type = TL_OPT_INT, .offset = V(every), .def = "10", .metavar = "N",
     .help = "energy: sampling period in steps", .min = 1, .max = 1e9},
    {.name = "slices", .type = TL_OPT_STRING, .offset = V(slices), .metavar = "DIR",
     .help = "energy: pressure slices into DIR/cpml and DIR/none"},
    {.name = "gpus", .short_name = 'g', .type = TL_OPT_INT, .offset = V(gpus), .def = "0", .metavar = "N",
     .help = "cuda: GPUs to use", .min = 0, .max = 64},
    {.name = "progress", .type = TL_OPT_FLAG, .offset = V(progress),
     .help = "reflection, energy, decomp: a progress line on stderr (runs or steps done, time left) even when "
             "it is not a terminal"},
};
#undef V

static int parse_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p && n < max) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0) return -1;
        out[n++] = v;
        if (*end == ',') p = end + 1;
        else if (*end == '\0') break;
        else return -1;
    }
    return n;
}

static int parse_dlist(const char *s, double *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p && n < max) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v > 0)) return -1;
        out[n++] = v;
        if (*end == ',') p = end + 1;
        else if (*end == '\0') break;
        else return -1;
    }
    return n;
}

typedef struct verify_args {
    verify_opts o;
    const char *what;
    tl_fdtd_vopts v;
    int usage_error;
} verify_args;

static double rate(double e0, double e1, double ratio) { return e0 > 0 && e1 > 0 ? log(e0 / e1) / log(ratio) : NAN; }

static tl_status verify_convergence(verify_args *va)
{
    int64_t orders[8], sizes[16];
    int no = parse_list(va->o.orders, orders, 8), ns = parse_list(va->o.sizes, sizes, 16);
    TL_CHECK(no > 0, TL_ERR_INVAL, "invalid --orders '%s'", va->o.orders);
    TL_CHECK(ns > 0, TL_ERR_INVAL, "invalid --sizes '%s'", va->o.sizes);
    printf("order,n,l2,linf,rate_l2,rate_linf\n");
    for (int i = 0; i < no; i++) {
        double pl2 = 0, pli = 0;
        for (int j = 0; j < ns; j++) {
            double l2, li;
            TL_TRY(tl_fdtd_verify_wave(&va->v, (int)orders[i], sizes[j], va->o.cfl, 1, &l2, &li));
            if (j == 0) printf("%d,%" PRId64 ",%.6e,%.6e,,\n", (int)orders[i], sizes[j], l2, li);
            else
                printf("%d,%" PRId64 ",%.6e,%.6e,%.3f,%.3f\n", (int)orders[i], sizes[j], l2, li,
                       rate(pl2, l2, (double)sizes[j] / (double)sizes[j - 1]),
                       rate(pli, li, (double)sizes[j] / (double)sizes[j - 1]));
            fflush(stdout);
            pl2 = l2;
            pli = li;
        }
    }
    return TL_OK;
}

static tl_status verify_time(verify_args *va)
{
    double cfls[16];
    int nc = parse_dlist(va->o.cfls, cfls, 16);
    TL_CHECK(nc > 0, TL_ERR_INVAL, "invalid --cfls '%s'", va->o.cfls);
    int64_t n = va->o.n > 0 ? va->o.n : 16;
    printf("dt,l2,linf,rate_l2,rate_linf\n");
    double pl2 = 0, pli = 0, pdt = 0;
    for (int j = 0; j < nc; j++) {
        double l2, li;
        tl_fdtd_config c;
        tl_fdtd_config_defaults(&c);
        c.order = 8;
        c.h = 1.0 / (double)n;
        double dtmax = tl_fdtd_dt_max(&c), dt = 0.5 / ceil(0.5 / (cfls[j] * dtmax));
        TL_TRY(tl_fdtd_verify_wave(&va->v, 8, n, cfls[j], 0, &l2, &li));
        if (j == 0) printf("%.6e,%.6e,%.6e,,\n", dt, l2, li);
        else printf("%.6e,%.6e,%.6e,%.3f,%.3f\n", dt, l2, li, rate(pl2, l2, pdt / dt), rate(pli, li, pdt / dt));
        fflush(stdout);
        pl2 = l2;
        pli = li;
        pdt = dt;
    }
    return TL_OK;
}

static int split_names(char *s, char **out, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) out[n++] = t;
    return n;
}

static tl_status verify_reflection(verify_args *va)
{
    int64_t cells[16];
    const char *list = va->o.cells ? va->o.cells : "0,8,12,16,24";
    int nc = parse_list(list, cells, 16);
    TL_CHECK(nc > 0, TL_ERR_INVAL, "invalid --cells '%s'", list);
    char buf[1024], *names[32];
    snprintf(buf, sizeof buf, "%s", va->o.decomps ? va->o.decomps : "1x1x1");
    int nd = split_names(buf, names, 32);
    tl_fdtd_vopts v[32];
    for (int i = 0; i < nd; i++) {
        v[i] = va->v;
        TL_CHECK(tl_fdtd_cli_parse_decomp(names[i], v[i].pd) == 0, TL_ERR_INVAL, "invalid decomposition '%s' in --decomps", names[i]);
    }
    double r[32 * 16];
    /* one unit per run: the reference, then every decomposition x thickness */
    tl_progress bar;
    tl_progress_begin(&bar, "verify reflection", 1.0 + nd * nc, "runs", tl_progress_mode_of(va->o.progress));
    for (int i = 0; i < nd; i++) v[i].progress = &bar;
    tl_status st = tl_fdtd_verify_reflection(v, nd, va->o.n_int, va->o.f0, cells, nc, r);
    tl_progress_end(&bar);
    TL_TRY(st);
    printf("decomp,cells,ratio\n");
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < nc; j++) printf("%s,%" PRId64 ",%.6e\n", names[i], cells[j], r[i * nc + j]);
    return TL_OK;
}

static tl_status verify_energy(verify_args *va)
{
    int64_t cells[16];
    const char *list = va->o.cells ? va->o.cells : "20";
    int nc = parse_list(list, cells, 16);
    TL_CHECK(nc > 0, TL_ERR_INVAL, "invalid --cells '%s'", list);
    int64_t L = 20;
    for (int j = 0; j < nc; j++)
        if (cells[j] > 0) {
            L = cells[j];
            break;
        }
    int64_t n = va->o.n > 0 ? va->o.n : 64, steps = va->o.steps > 0 ? va->o.steps : 600;
    /* said as run says it, before anything runs: what to change */
    TL_CHECK(n >= 2 * L + 2, TL_ERR_INVAL,
             "--grid %" PRId64 " is too small for a %" PRId64 "-cell CPML on each side (it needs %" PRId64
             " points per axis); use --cells %" PRId64 " or less, or a grid of at least %" PRId64,
             n, L, 2 * L + 2, (n - 2) / 2, 2 * L + 2);
    tl_fdtd_energy_run a = {0}, b = {0};
    tl_status st = TL_OK;
    char d1[4096], d2[4096];
    if (va->o.slices) {
        snprintf(d1, sizeof d1, "%s/cpml", va->o.slices);
        snprintf(d2, sizeof d2, "%s/none", va->o.slices);
    }
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
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    double dt = c.cfl * tl_fdtd_dt_max(&c);
    printf("# energy normalised by its maximum over every step; CPML %" PRId64 " cells; grid %" PRId64
           "^3; source stops near t = %.1f\n", L, n, 2.4 / 0.05);
    printf("step,time_s,energy_cpml,energy_none\n");
    for (int64_t i = 0; i < a.count && i < b.count; i++) {
        double step = a.samples[2 * i];
        printf("%.0f,%.6g,%.6e,%.6e\n", step, step * dt, a.max > 0 ? a.samples[2 * i + 1] / a.max : 0,
               b.max > 0 ? b.samples[2 * i + 1] / b.max : 0);
    }
    if (a.max > 0 && b.max > 0)
        fprintf(stderr, PROG ": energy at the end / maximum: %.3e with CPML, %.3e without\n", a.last / a.max,
                b.last / b.max);
done:
    free(a.samples);
    free(b.samples);
    return st;
}

static tl_status verify_decomp(tl_ctx *ctx, verify_args *va)
{
    char buf[1024], sbuf[256], *names[32], *strats[8];
    snprintf(buf, sizeof buf, "%s", va->o.decomps ? va->o.decomps : "1x1x1,slab-z,block-xy,pencil-yz");
    int nd = split_names(buf, names, 32);
    const char *defs = ctx->size > 1                          ? tl_fdtd_strategy_default(va->v.backend, 1)
                       : va->v.backend == TL_FDTD_BACKEND_CUDA ? (TL_HAVE_NCCL ? "host,peer,nccl" : "host,peer")
                                                               : "copy";
    int root = ctx->rank == 0; /* prints; alone runs the one-process strategies */
    snprintf(sbuf, sizeof sbuf, "%s", va->o.strategies ? va->o.strategies : defs);
    int ns = split_names(sbuf, strats, 8);
    int64_t ss[8];
    int nss = parse_list(va->o.ss, ss, 8);
    TL_CHECK(nss > 0, TL_ERR_INVAL, "invalid --ss '%s'", va->o.ss);
    int64_t n = va->o.n > 0 ? va->o.n : 64;
    for (int i = 0; i < nd; i++) {
        int pd[3];
        TL_CHECK(tl_fdtd_cli_parse_decomp(names[i], pd) == 0, TL_ERR_INVAL, "invalid decomposition '%s' in --decomps",
                 names[i]);
    }
    /* the table is printed whole once every run has succeeded: a run that
     * fails half-way leaves no rows that look like a result */
    char *table = NULL;
    size_t table_len = 0;
    FILE *out = root ? open_memstream(&table, &table_len) : NULL;
    TL_CHECK(!root || out, TL_ERR_NOMEM, "verify decomp: the table");
    tl_status st = TL_OK;
    int wrong = 0, rows = 0;
    /* a unit per run of rank 0 (decompositions x strategies x s x overlap
     * x boundaries; the runs a rank count skips end the line early) */
    tl_progress bar;
    tl_progress_begin(&bar, "verify decomp",
                      (double)nd * ns * nss * (va->v.backend == TL_FDTD_BACKEND_CUDA ? 2 : 1) * 3, "runs",
                      root ? tl_progress_mode_of(va->o.progress) : TL_PROGRESS_OFF);
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < ns; j++) {
            /* ranks: the decomposition spread over this run's ranks, one
             * subdomain each; a decomposition of another size needs another run */
            int pd[3], ranked = tl_fdtd_strategy_per_rank(strats[j], va->v.backend) == 1;
            tl_fdtd_cli_parse_decomp(names[i], pd); /* checked above */
            if (ranked && pd[0] * pd[1] * pd[2] != ctx->size) {
                if (root)
                    fprintf(out, "# %s,%s: %d subdomains, %d rank%s: not run (run with --ranks %d or mpirun -np %d)\n",
                           names[i], strats[j], pd[0] * pd[1] * pd[2], ctx->size, ctx->size == 1 ? "" : "s",
                           pd[0] * pd[1] * pd[2], pd[0] * pd[1] * pd[2]);
                continue;
            }
            if (!ranked && !root) continue;
            for (int k = 0; k < nss; k++)
                for (int ov = 0; ov < (va->v.backend == TL_FDTD_BACKEND_CUDA ? 2 : 1); ov++)
                    for (int cp = 0; cp < 3; cp++) { /* no CPML, CPML, periodic */
                        tl_fdtd_config c;
                        tl_fdtd_config_defaults(&c);
                        c.backend = va->v.backend;
                        c.kernel = va->v.kernel;
                        c.dbl = va->v.dbl;
                        c.gpus = va->v.gpus;
                        c.n[0] = c.n[1] = c.n[2] = n;
                        c.cpml = cp == 1 ? 8 : 0;
                        c.periodic = cp == 2;
                        c.init = tl_fdtd_init_noise;
                        c.steps = va->o.steps > 0 ? va->o.steps : 24;
                        c.f0 = 0.1;
                        for (int d = 0; d < 3; d++) c.src[d] = n / 2 - 3 + d;
                        c.source = 1;
                        int64_t rec[2][3] = {{n / 4, n / 2, n / 2}, {n - 3, n - 5, 2}};
                        c.nrec = 2;
                        c.rec = (const int64_t(*)[3])rec;
                        tl_fdtd_cli_parse_decomp(names[i], c.pd);
                        c.strategy = strats[j];
                        c.s = (int)ss[k];
                        c.overlap = ov;
                        double m;
                        TL_TRYGOTO(tl_fdtd_verify_decomp_on(ranked ? ctx : NULL, &c, &m), st, fail);
                        if (root)
                            fprintf(out, "%s,%s,%d,%d,%s,%.3e,%s\n", names[i], strats[j], c.s, ov,
                                    cp == 0 ? "zero" : cp == 1 ? "cpml8" : "periodic", m, m == 0 ? "yes" : "no");
                        wrong += m != 0;
                        rows++;
                        tl_progress_update(&bar, bar.done + 1);
                    }
        }
    tl_progress_end(&bar);
    if (!root) return wrong ? TL_ERR_REMOTE : TL_OK; /* rank 0 says why */
    TL_CHECKGOTO(rows > 0, TL_ERR_INVAL, st, fail,
                 "no decomposition in --decomps has %d subdomain%s for a per-rank strategy", ctx->size,
                 ctx->size == 1 ? "" : "s");
    fclose(out);
    out = NULL;
    printf("decomp,strategy,s,overlap,boundary,max_abs_diff,identical\n%s# %d rows, %d not identical\n", table, rows,
           wrong);
    free(table);
    table = NULL;
    /* rows that differ are the result itself: printed, and the exit says so */
    TL_CHECK(wrong == 0, TL_ERR_NUMERIC, "%d decomposed runs differ from the single domain", wrong);
    return TL_OK;
fail:
    tl_progress_end(&bar);
    if (out) fclose(out);
    free(table);
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
    if (ctx->size == 1 && tl_fdtd_cli_no_cuda(ctx, va->v.backend == TL_FDTD_BACKEND_CUDA, "verify")) {
        va->usage_error = 1;
        return TL_ERR_REMOTE;
    }
    if (ctx->size > 1 && va->v.backend == TL_FDTD_BACKEND_CUDA && ctx->device < 0) { /* said once, not per rank */
        if (ctx->rank == 0)
            fprintf(stderr, PROG ": %d ranks with --backend cuda and no GPU (--no-gpu, or none visible): one subdomain "
                            "per rank needs a GPU bound to every rank (ranks share one with --device-comm host)\n",
                    ctx->size);
        if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) va->usage_error = 1;
        return TL_ERR_REMOTE;
    }
    if (!strcmp(va->what, "convergence")) return verify_convergence(va);
    if (!strcmp(va->what, "time")) return verify_time(va);
    if (!strcmp(va->what, "reflection")) return verify_reflection(va);
    if (!strcmp(va->what, "energy")) return verify_energy(va);
    return verify_decomp(ctx, va);
}

int tl_fdtd_cli_verify(int argc, char **argv, int full_argc, char **full_argv)
{
    verify_args va;
    tl_launch_opts lo;
    tl_option lopts[TL_FDTD_CLI_LAUNCH_NOPTS];
    memset(&va, 0, sizeof va);
    memset(&lo, 0, sizeof lo);
    tl_fdtd_cli_launch_group(lopts);
    static const char *const kinds[] = {"convergence", "time", "reflection", "energy", "decomp"};
    const tl_optgroup groups[] = {{"Verification", verify_options, sizeof verify_options / sizeof verify_options[0], &va.o},
                                  {"Launch", lopts, TL_FDTD_CLI_LAUNCH_NOPTS, &lo}};
    const tl_optspec spec = {.program = PROG " verify", .usage = "convergence|time|reflection|energy|decomp [options]",
                             .purpose = "Reproduces the paper's verification tables as CSV on stdout.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) {
        free(res.positional);
        return 0;
    }
    va.what = res.positional[0];
    free(res.positional);
    int known = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) known |= !strcmp(va.what, kinds[i]);
    if (!known) return tl_fdtd_cli_bad("experiment", va.what, "expected convergence, time, reflection, energy or decomp");
    tl_fdtd_vopts_defaults(&va.v);
    va.v.backend = (tl_fdtd_backend_kind)va.o.backend;
    va.v.kernel = (tl_fdtd_kernel_kind)va.o.kernel;
    va.v.dbl = va.o.precision == 1;
    va.v.strategy = va.o.strategy;
    va.v.s = (int)va.o.s;
    va.v.gpus = (int)va.o.gpus;
    if (tl_fdtd_cli_parse_decomp(va.o.decomp, va.v.pd) != 0)
        return tl_fdtd_cli_bad("--decomp", va.o.decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    int rc = tl_fdtd_cli_launch(&lo, full_argc, full_argv, verify_rank, &va, va.v.backend == TL_FDTD_BACKEND_CUDA,
                            NULL);
    return va.usage_error ? 2 : rc;
}

