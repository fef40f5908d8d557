/* trilap-fdtd: the 3D FDTD acoustic solver with CPML.
 *   trilap-fdtd run [options]                  one simulation, a results row
 *   trilap-fdtd verify convergence|time|reflection|energy|decomp [options]
 * On one rank (the default) every subdomain is driven from this process,
 * on the CPU or spread over the GPUs. On several ranks (--launcher threads
 * --ranks N, or mpirun -np N) rank r holds subdomain r alone: cpu backend,
 * strategy "ranks" (host messages between the ranks); cuda backend,
 * strategy "devcomm" (subdomain r on the rank's GPU, ghosts over
 * --device-comm nccl|host). N must be px py pz. Rank 0 prints and writes. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "probes/probes.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/results.h"
#include "stencil/fdtd.h"
#include "stencil/verify.h"

#define PROG "trilap-fdtd"

/* The values of the enumerated options, indexed by the library's enums. */
typedef struct named {
    const char *name;
} named;
static const named backend_names[] = {[TL_FDTD_BACKEND_CPU] = {"cpu"}, [TL_FDTD_BACKEND_CUDA] = {"cuda"}};
static const named precision_names[] = {{"single"}, {"double"}};
#define TABLE(t) .table = t, .table_stride = sizeof t[0], .table_count = (int)(sizeof t / sizeof t[0])

typedef struct fdtd_opts {
    const char *grid;
    int64_t order, steps, warmup;
    double dt, cfl, h;
    int64_t cpml;
    double cpml_r, kappa_max, alpha_frac;
    int periodic;
    int precision;
    const char *source;
    double f0, amp;
    const char *receivers;
    double K, rho, K2, rho2;
    int64_t layer_k;
    int backend, kernel;
    const char *decomp, *strategy;
    int64_t s, gpus;
    int overlap;
    int64_t check_every;
    double blowup;
    int64_t energy_every;
    const char *slice;
    int64_t slice_every;
    const char *slice_dir;
    const char *seismogram, *energy_out, *results, *trace, *label, *breakdown;
    int compare_cpml;
} fdtd_opts;

#define O(f) offsetof(fdtd_opts, f)
static const tl_option model_options[] = {
    {.name = "grid", .type = TL_OPT_STRING, .offset = O(grid), .def = "64", .metavar = "N|NXxNYxNZ",
     .help = "grid points per axis"},
    {.name = "order", .type = TL_OPT_INT, .offset = O(order), .def = "8", .metavar = "2|4|8",
     .help = "order of the centred differences", .min = 2, .max = 8},
    {.name = "steps", .type = TL_OPT_INT, .offset = O(steps), .def = "100", .metavar = "N",
     .help = "time steps measured", .min = 0, .max = 1e9},
    {.name = "warmup", .type = TL_OPT_INT, .offset = O(warmup), .def = "0", .metavar = "N",
     .help = "time steps run before the measured ones", .min = 0, .max = 1e9},
    {.name = "dt", .type = TL_OPT_DOUBLE, .offset = O(dt), .def = "0", .metavar = "S",
     .help = "time step in s (0: --cfl times the stability limit)", .min = 0, .max = 1e30},
    {.name = "cfl", .type = TL_OPT_DOUBLE, .offset = O(cfl), .def = "0.5", .metavar = "F",
     .help = "fraction of the stability limit", .min = 1e-9, .max = 1},
    {.name = "h", .type = TL_OPT_DOUBLE, .offset = O(h), .def = "1", .metavar = "M",
     .help = "grid spacing in m", .min = 1e-30, .max = 1e30},
    {.name = "cpml", .type = TL_OPT_INT, .offset = O(cpml), .def = "20", .metavar = "CELLS",
     .help = "CPML thickness on every outer face (0: none, p = v = 0 outside)", .min = 0, .max = 100000},
    {.name = "cpml-r", .type = TL_OPT_DOUBLE, .offset = O(cpml_r), .def = "1e-8", .metavar = "R",
     .help = "CPML target reflection", .min = 1e-300, .max = 1},
    {.name = "kappa-max", .type = TL_OPT_DOUBLE, .offset = O(kappa_max), .def = "5", .metavar = "K",
     .help = "CPML kappa_max", .min = 1, .max = 1e6},
    {.name = "alpha-frac", .type = TL_OPT_DOUBLE, .offset = O(alpha_frac), .def = "0.05", .metavar = "F",
     .help = "CPML alpha_max / sigma_max", .min = 0, .max = 1e6},
    {.name = "periodic", .type = TL_OPT_FLAG, .offset = O(periodic), .def = "0",
     .help = "periodic in every axis (needs --cpml 0)"},
    {.name = "precision", .type = TL_OPT_ENUM, .offset = O(precision), .def = "single", TABLE(precision_names),
     .help = "floating point precision"},
    {.name = "K", .type = TL_OPT_DOUBLE, .offset = O(K), .def = "1", .metavar = "PA",
     .help = "bulk modulus", .min = 1e-300, .max = 1e300},
    {.name = "rho", .type = TL_OPT_DOUBLE, .offset = O(rho), .def = "1", .metavar = "KG/M3",
     .help = "density", .min = 1e-300, .max = 1e300},
    {.name = "layer-k", .type = TL_OPT_INT, .offset = O(layer_k), .def = "0", .metavar = "K",
     .help = "points with z index >= K get --K2 and --rho2 (0: homogeneous)", .min = 0, .max = 1 << 20},
    {.name = "K2", .type = TL_OPT_DOUBLE, .offset = O(K2), .def = "1", .metavar = "PA",
     .help = "bulk modulus of the lower layer", .min = 1e-300, .max = 1e300},
    {.name = "rho2", .type = TL_OPT_DOUBLE, .offset = O(rho2), .def = "1", .metavar = "KG/M3",
     .help = "density of the lower layer", .min = 1e-300, .max = 1e300},
    {.name = "source", .type = TL_OPT_STRING, .offset = O(source), .def = "center", .metavar = "center|none|I,J,K",
     .help = "Ricker point source added to p"},
    {.name = "f0", .type = TL_OPT_DOUBLE, .offset = O(f0), .def = "0.05", .metavar = "HZ",
     .help = "Ricker peak frequency (delay 1.2 / f0)", .min = 1e-300, .max = 1e300},
    {.name = "amp", .type = TL_OPT_DOUBLE, .offset = O(amp), .def = "1", .metavar = "A",
     .help = "source amplitude (p += amp dt ricker(t))", .min = -1e300, .max = 1e300},
    {.name = "receivers", .type = TL_OPT_STRING, .offset = O(receivers), .metavar = "I,J,K[;I,J,K...]",
     .help = "pressure receivers (seismograms)"},
};

static const tl_option exec_options[] = {
    {.name = "backend", .type = TL_OPT_ENUM, .offset = O(backend), .def = "cpu", TABLE(backend_names),
     .help = "CPU reference (OpenMP) or CUDA kernels"},
    {.name = "kernel", .type = TL_OPT_ENUM, .offset = O(kernel), .def = "vec4", TABLE(tl_fdtd_kernels),
     .help = "cuda: tiled (shared-memory x-y tiles, z register queues, CPML boundary kernels), naive (one thread per point, CPML fused: the baseline; on one H200 2x tiled), pipelined (tiled with the next plane's loads in flight; on one H200 1.11x naive without CPML, 0.94x with), zcol8, zcol16, zcol16-y4, zcol32-y4 (a thread marches 8/16/32 z points of its column, z stencil in registers; blocks 32x8 or 32x4; CPML slabs by the same kernel; on one H200 0.85-0.94x naive), zcol8-fused, zcol16-fused (CPML fused as in naive), zcol16-y4-pf, zcol32-y4-pf (the next point's loads issued first; 1.06-1.08x naive), vec2, vec4, vec4-x128 (a thread updates 2 or 4 consecutive x points with vector loads, CPML fused as in naive); figures: stencil/README.md"},
    {.name = "decomp", .type = TL_OPT_STRING, .offset = O(decomp), .def = "1x1x1", .metavar = "PXxPYxPZ",
     .help = "subdomains per axis, or slab-z (1x1x4), block-xy (2x2x1), pencil-yz (1x2x2)"},
    {.name = "strategy", .type = TL_OPT_STRING, .offset = O(strategy), .metavar = "NAME",
     .help = "exchange: cpu: copy, ranks (one subdomain per rank: --ranks N or mpirun -np N, N = px*py*pz; the default on several ranks); cuda: host (staged through pinned memory), peer (cudaMemcpyPeerAsync), nccl (one process), devcomm (one subdomain per rank on its GPU, ghosts over --device-comm nccl|host; the default on several ranks) [copy / peer]"},
    {.name = "s", .type = TL_OPT_INT, .offset = O(s), .def = "1", .metavar = "S",
     .help = "local steps between exchanges (ghost depth 2 r s)", .min = 1, .max = 64},
    {.name = "gpus", .type = TL_OPT_INT, .offset = O(gpus), .def = "0", .metavar = "N",
     .help = "cuda: GPUs to spread the subdomains over (0: every visible one)", .min = 0, .max = 64},
    {.name = "overlap", .type = TL_OPT_FLAG, .offset = O(overlap), .def = "0",
     .help = "update the inner points of the last local step while the exchange runs"},
    {.name = "check-every", .type = TL_OPT_INT, .offset = O(check_every), .def = "100", .metavar = "N",
     .help = "NaN / blow-up check every N steps (0: at the end only)", .min = 0, .max = 1e9},
    {.name = "blowup", .type = TL_OPT_DOUBLE, .offset = O(blowup), .def = "1e30", .metavar = "P",
     .help = "|p| above this stops the run", .min = 0, .max = 1e300},
    {.name = "energy-every", .type = TL_OPT_INT, .offset = O(energy_every), .def = "0", .metavar = "N",
     .help = "energy monitor period (0: off)", .min = 0, .max = 1e9},
    {.name = "slice", .type = TL_OPT_STRING, .offset = O(slice), .def = "z=mid", .metavar = "x|y|z=I|mid",
     .help = "plane of the pressure slices"},
    {.name = "slice-every", .type = TL_OPT_INT, .offset = O(slice_every), .def = "0", .metavar = "N",
     .help = "write a pressure slice every N steps into --slice-dir (0: none)", .min = 0, .max = 1e9},
    {.name = "slice-dir", .type = TL_OPT_STRING, .offset = O(slice_dir), .def = "fdtd-slices", .metavar = "DIR",
     .help = "folder of the slices (p-<step>.txt, gnuplot matrix)"},
    {.name = "seismogram", .type = TL_OPT_STRING, .offset = O(seismogram), .metavar = "FILE",
     .help = "receiver traces as CSV (step,time_s,r0,...)"},
    {.name = "energy-out", .type = TL_OPT_STRING, .offset = O(energy_out), .metavar = "FILE",
     .help = "energy series as CSV (step,time_s,energy)"},
    {.name = "results", .type = TL_OPT_STRING, .offset = O(results), .metavar = "FILE",
     .help = "append the results row here (manifest.txt beside it)"},
    {.name = "trace", .type = TL_OPT_STRING, .offset = O(trace), .metavar = "DIR",
     .help = "probes trace of the run (trace.rank0.csv) into DIR"},
    {.name = "breakdown", .type = TL_OPT_STRING, .offset = O(breakdown), .metavar = "FILE",
     .help = "cuda: device time of every kernel and copy (CUDA event pairs) as CSV (op,count,total_s,mean_us,min_us,max_us)"},
    {.name = "label", .type = TL_OPT_STRING, .offset = O(label), .def = "run", .metavar = "NAME",
     .help = "first column of the results row"},
    {.name = "compare-cpml", .type = TL_OPT_FLAG, .offset = O(compare_cpml), .def = "0",
     .help = "run without CPML, then with it, and report the overhead (T_cpml - T_none) / T_none"},
};
#undef O

static int bad(const char *opt, const char *val, const char *why)
{
    fprintf(stderr, PROG ": invalid %s '%s'%s%s (try --help)\n", opt, val, why ? ": " : "", why ? why : "");
    return 2;
}

static int parse_triple(const char *s, char sep, int64_t out[3], int allow_one)
{
    char *end;
    for (int d = 0; d < 3; d++) {
        long long v = strtoll(s, &end, 10);
        if (end == s || v < 0) return -1;
        out[d] = v;
        if (d < 2) {
            if (*end == '\0' && d == 0 && allow_one) {
                out[1] = out[2] = v;
                return 0;
            }
            if (*end != sep) return -1;
            s = end + 1;
        }
    }
    return *end == '\0' ? 0 : -1;
}

static int parse_decomp(const char *s, int pd[3])
{
    int64_t p[3];
    if (!strcmp(s, "slab-z")) s = "1x1x4";
    else if (!strcmp(s, "block-xy")) s = "2x2x1";
    else if (!strcmp(s, "pencil-yz")) s = "1x2x2";
    if (parse_triple(s, 'x', p, 0) != 0) return -1;
    for (int d = 0; d < 3; d++) {
        if (p[d] < 1 || p[d] > 4096) return -1;
        pd[d] = (int)p[d];
    }
    return 0;
}

/* The run: the model and execution options turned into a configuration. */
typedef struct run_args {
    fdtd_opts o;
    tl_fdtd_config c;
    int64_t (*rec)[3];
    int nrec;
    char cmdline[2048];
    int usage_error;     /* a rank found the ranks and the decomposition at odds: exit 2 */
} run_args;

static int build_config(run_args *ra)
{
    fdtd_opts *o = &ra->o;
    tl_fdtd_config *c = &ra->c;
    tl_fdtd_config_defaults(c);
    if (parse_triple(o->grid, 'x', c->n, 1) != 0) return bad("--grid", o->grid, "expected N or NXxNYxNZ");
    if (o->order != 2 && o->order != 4 && o->order != 8) {
        char b[32];
        snprintf(b, sizeof b, "%" PRId64, o->order);
        return bad("--order", b, "must be 2, 4 or 8");
    }
    c->order = (int)o->order;
    c->steps = o->steps;
    c->warmup = o->warmup;
    c->dt = o->dt;
    c->cfl = o->cfl;
    c->h = o->h;
    c->cpml = o->cpml;
    c->cpml_r = o->cpml_r;
    c->kappa_max = o->kappa_max;
    c->alpha_frac = o->alpha_frac;
    c->periodic = o->periodic;
    c->dbl = o->precision == 1;
    c->K = o->K;
    c->rho = o->rho;
    c->K2 = o->K2;
    c->rho2 = o->rho2;
    c->layer_k = o->layer_k;
    c->f0 = o->f0;
    c->amp = o->amp;
    if (!strcmp(o->source, "none")) c->source = 0;
    else if (!strcmp(o->source, "center")) {
        c->source = 1;
        for (int d = 0; d < 3; d++) c->src[d] = c->n[d] / 2;
    } else {
        c->source = 1;
        if (parse_triple(o->source, ',', c->src, 0) != 0) return bad("--source", o->source, "expected center, none or I,J,K");
    }
    if (o->receivers) {
        int n = 1;
        for (const char *q = o->receivers; *q; q++) n += *q == ';';
        ra->rec = calloc((size_t)n, sizeof *ra->rec);
        if (!ra->rec) return bad("--receivers", o->receivers, "out of memory");
        char *dup = strdup(o->receivers), *save = NULL;
        for (char *t = strtok_r(dup, ";", &save); t; t = strtok_r(NULL, ";", &save))
            if (parse_triple(t, ',', ra->rec[ra->nrec++], 0) != 0) {
                free(dup);
                return bad("--receivers", o->receivers, "expected I,J,K[;I,J,K...]");
            }
        free(dup);
        c->nrec = ra->nrec;
        c->rec = (const int64_t(*)[3])ra->rec;
    }
    c->backend = (tl_fdtd_backend_kind)o->backend;
    c->kernel = (tl_fdtd_kernel_kind)o->kernel;
    if (parse_decomp(o->decomp, c->pd) != 0)
        return bad("--decomp", o->decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    c->strategy = o->strategy;
    c->s = (int)o->s;
    c->gpus = (int)o->gpus;
    c->overlap = o->overlap;
    c->check_every = o->check_every;
    c->blowup = o->blowup;
    c->energy_every = o->energy_every;
    if (o->slice_every > 0) {
        const char *s = o->slice;
        int a = s[0] == 'x' ? 0 : s[0] == 'y' ? 1 : s[0] == 'z' ? 2 : -1;
        if (a < 0 || s[1] != '=') return bad("--slice", s, "expected x=I, y=I or z=I (I a number or mid)");
        c->slice_axis = a;
        if (!strcmp(s + 2, "mid")) c->slice_index = c->n[a] / 2;
        else {
            char *end;
            long long v = strtoll(s + 2, &end, 10);
            if (end == s + 2 || *end || v < 0 || v >= c->n[a]) return bad("--slice", s, "index outside the grid");
            c->slice_index = v;
        }
        c->slice_every = o->slice_every;
        c->slice_dir = o->slice_dir;
    }
    c->trace_dir = o->trace;
    c->breakdown = o->breakdown != NULL;
    return 0;
}

static const char results_header[] =
    "label,backend,kernel,strategy,decomp,s,overlap,order,precision,nx,ny,nz,steps,cpml,dt,time_s,mpoints_s,gbs,"
    "min_bytes_per_point,mem_bytes,paper_mem_bytes,cpml_overhead";

static tl_status write_csv_series(const char *path, const char *header, const double *v, int64_t rows, int cols,
                                  double dt, int time_col_step)
{
    size_t cap = (size_t)(rows + 2) * (size_t)(cols + 2) * 26 + strlen(header) + 16, len = 0;
    char *t = malloc(cap);
    TL_CHECK(t != NULL, TL_ERR_NOMEM, "%zu bytes for %s", cap, path);
    len += (size_t)snprintf(t, cap, "%s\n", header);
    for (int64_t r = 0; r < rows; r++) {
        double step = time_col_step ? v[r * cols] : (double)(r + 1);
        len += (size_t)snprintf(t + len, cap - len, "%.0f,%.9g", step, step * dt);
        for (int k = time_col_step ? 1 : 0; k < cols; k++) len += (size_t)snprintf(t + len, cap - len, ",%.9g", v[r * cols + k]);
        len += (size_t)snprintf(t + len, cap - len, "\n");
    }
    tl_status st = tl_mkdir_parent(path);
    if (st == TL_OK) st = tl_file_write_atomic(path, t, len);
    free(t);
    return st;
}

static tl_status one_run(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c, double none_s, double *seconds)
{
    const fdtd_opts *o = &ra->o;
    tl_fdtd *f = NULL;
    /* rank 0 first: a bad configuration fails there alone, said once */
    tl_status st = ctx->rank == 0 ? tl_fdtd_create_on(&f, c, ctx) : TL_OK;
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK && ctx->rank != 0) st = tl_fdtd_create_on(&f, c, ctx);
    st = tl_comm_agree(ctx, st); /* no rank runs on without the others */
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(tl_fdtd_run(f, ctx), st, done);
    tl_fdtd_stats S = tl_fdtd_stats_of(f);
    *seconds = S.seconds;
    if (ctx->rank != 0) {
        /* rank 0 prints and writes; the manifest is collective */
        if (o->results) {
            TL_TRYGOTO(tl_comm_agree(ctx, TL_OK), st, done);
            TL_TRYGOTO(tl_manifest_write(ctx, "", NULL), st, done);
        }
        goto done;
    }
    char decomp[64], over[32] = "";
    snprintf(decomp, sizeof decomp, "%dx%dx%d", c->pd[0], c->pd[1], c->pd[2]);
    if (none_s > 0) snprintf(over, sizeof over, "%.4f", (S.seconds - none_s) / none_s);
    char row[1024];
    snprintf(row, sizeof row,
             "%s,%s,%s,%s,%s,%d,%d,%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
             ",%.6g,%.6f,%.2f,%.2f,%.0f,%.0f,%.0f,%s",
             o->label, backend_names[c->backend].name, c->backend == TL_FDTD_BACKEND_CUDA ? tl_fdtd_kernels[c->kernel].name : "-",
             c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0), decomp, c->s,
             c->overlap, c->order, c->dbl ? "double" : "single", c->n[0], c->n[1], c->n[2], c->steps, c->cpml,
             S.dt, S.seconds, S.mpoints_s, S.gbs, S.min_bytes_per_point, S.mem_bytes, S.paper_mem_bytes, over);
    printf("%s\n", row);
    fflush(stdout);
    if (o->results) {
        TL_TRYGOTO(tl_comm_agree(ctx, tl_results_append(o->results, results_header, row)), st, done);
        char mpath[4096];
        tl_results_manifest_path(o->results, mpath, sizeof mpath);
        TL_TRYGOTO(tl_manifest_write(ctx, mpath, NULL), st, done);
    }
    if (o->seismogram && c->nrec > 0) {
        char hdr[4096];
        size_t n = (size_t)snprintf(hdr, sizeof hdr, "step,time_s");
        for (int r = 0; r < c->nrec && n < sizeof hdr - 32; r++) n += (size_t)snprintf(hdr + n, sizeof hdr - n, ",r%d", r);
        TL_TRYGOTO(write_csv_series(o->seismogram, hdr, tl_fdtd_traces(f), c->steps + c->warmup, c->nrec, S.dt, 0), st, done);
    }
    if (o->breakdown && S.nops > 0) {
        char text[4096];
        size_t n = (size_t)snprintf(text, sizeof text, "op,count,total_s,mean_us,min_us,max_us\n");
        for (int k = 0; k < S.nops && n < sizeof text - 128; k++) {
            double mean = S.op[k].count ? 1e6 * S.op[k].total_s / (double)S.op[k].count : 0;
            n += (size_t)snprintf(text + n, sizeof text - n, "%s,%" PRId64 ",%.6f,%.3f,%.3f,%.3f\n", S.op[k].name,
                                  S.op[k].count, S.op[k].total_s, mean, 1e6 * S.op[k].min_s, 1e6 * S.op[k].max_s);
            printf("# breakdown: %-14s %8" PRId64 " calls %10.3f ms\n", S.op[k].name, S.op[k].count, 1e3 * S.op[k].total_s);
        }
        TL_TRYGOTO(tl_mkdir_parent(o->breakdown), st, done);
        TL_TRYGOTO(tl_file_write_atomic(o->breakdown, text, n), st, done);
    }
    if (o->energy_out && c->energy_every > 0) {
        int64_t ne;
        const double *e = tl_fdtd_energy(f, &ne);
        TL_TRYGOTO(write_csv_series(o->energy_out, "step,time_s,energy", e, ne, 2, S.dt, 1), st, done);
    }
done:
    tl_fdtd_destroy(&f);
    return st;
}

/* Several ranks: one subdomain each, px py pz ranks, the backend's
 * per-rank strategy (cpu: ranks; cuda: devcomm, a GPU bound to every
 * rank). At odds: rank 0 prints one line, every rank stops (TL_ERR_REMOTE:
 * the launcher adds nothing) and main exits 2. */
static tl_status ranks_usage(tl_ctx *ctx, int *usage_error, tl_fdtd_config *c)
{
    int nsub = c->pd[0] * c->pd[1] * c->pd[2];
    const char *def = tl_fdtd_strategy_default(c->backend, 1), *be = backend_names[c->backend].name;
    int kind = c->strategy ? tl_fdtd_strategy_per_rank(c->strategy, c->backend) : 1;
    int ranked = ctx->size > 1 || (c->strategy && kind == 1);
    int cuda = c->backend == TL_FDTD_BACKEND_CUDA;
    char why[512] = "";
    if (!ranked) return TL_OK;
    if (kind < 0)
        snprintf(why, sizeof why, "%d ranks with --strategy %s: not a strategy of --backend %s; several ranks use "
                 "--strategy %s (their default)", ctx->size, c->strategy, be, def);
    else if (kind == 0 && cuda && !strcmp(c->strategy, "peer"))
        snprintf(why, sizeof why,
                 "%d ranks with --strategy peer: cudaMemcpyPeerAsync needs every subdomain in one process (CUDA IPC "
                 "between ranks is not implemented); several ranks use --strategy devcomm (their default: NCCL or "
                 "host-staged, by --device-comm)", ctx->size);
    else if (kind == 0)
        snprintf(why, sizeof why,
                 "%d ranks with --strategy %s: that strategy moves ghosts inside one process; several ranks use "
                 "--strategy %s (their default%s)",
                 ctx->size, c->strategy, def, cuda ? ": NCCL or host-staged, by --device-comm" : "");
    else if (nsub != ctx->size)
        snprintf(why, sizeof why,
                 "%d rank%s for --decomp %dx%dx%d: one subdomain per rank needs px*py*pz = %d ranks "
                 "(--ranks %d, or mpirun -np %d)",
                 ctx->size, ctx->size == 1 ? "" : "s", c->pd[0], c->pd[1], c->pd[2], nsub, nsub, nsub);
    else if (cuda && ctx->device < 0)
        snprintf(why, sizeof why,
                 "%d rank%s with --backend cuda and no GPU (--no-gpu, or none visible): one subdomain per rank needs a "
                 "GPU bound to every rank (ranks share one with --device-comm host)",
                 ctx->size, ctx->size == 1 ? "" : "s");
    if (!why[0]) {
        c->strategy = def;
        return TL_OK;
    }
    if (ctx->rank == 0) fprintf(stderr, PROG ": %s\n", why);
    if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) *usage_error = 1; /* thread ranks share it: rank 0 writes */
    return TL_ERR_REMOTE;
}

static tl_status run_rank(tl_ctx *ctx, void *arg)
{
    run_args *ra = arg;
    tl_fdtd_config cr = ra->c; /* this rank's: the strategy may become "ranks" */
    const tl_fdtd_config *c = &cr;
    TL_TRY(ranks_usage(ctx, &ra->usage_error, &cr));
    if (ctx->rank == 0) { /* rank 0 prints */
        printf("# trilap-fdtd %s (%s)\n# command: %s\n", TL_VERSION, TL_GIT_COMMIT, ra->cmdline);
        printf("# grid: %" PRId64 "x%" PRId64 "x%" PRId64 "\n# order: %d\n# steps: %" PRId64 " (+%" PRId64 " warm-up)\n",
               c->n[0], c->n[1], c->n[2], c->order, c->steps, c->warmup);
        printf("# cpml: %" PRId64 " cells, R = %g, kappa_max = %g, alpha_max = %g sigma_max, sigma_max = -4 c_max ln(R) / (2 L h)\n",
               c->cpml, c->cpml_r, c->kappa_max, c->alpha_frac);
        printf("# backend: %s  kernel: %s  decomposition: %dx%dx%d  s: %d  ghost: %d\n", backend_names[c->backend].name,
               tl_fdtd_kernels[c->kernel].name,
               c->pd[0], c->pd[1], c->pd[2], c->s, c->order * c->s);
        if (ctx->size > 1 && c->backend == TL_FDTD_BACKEND_CUDA)
            printf("# ranks: %d, one subdomain each (strategy devcomm, %s device communication%s)\n", ctx->size,
                   ctx->device_comm == TL_DEVCOMM_HOST ? "host-staged" : "NCCL",
                   ctx->gpu_shared ? ", ranks sharing GPUs" : "");
        else if (ctx->size > 1)
            printf("# ranks: %d, one subdomain each (strategy ranks, host messages)\n", ctx->size);
        printf("%s\n", results_header);
    }
    double t_none = 0, t = 0;
    if (ra->o.compare_cpml && c->cpml > 0) {
        tl_fdtd_config c0 = *c;
        c0.cpml = 0;
        c0.trace_dir = NULL;
        TL_TRY(one_run(ctx, ra, &c0, 0, &t_none));
    }
    TL_TRY(one_run(ctx, ra, c, t_none, &t));
    return TL_OK;
}

static void join_cmdline(char *buf, size_t n, int argc, char **argv)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && len + 2 < n; i++) len += (size_t)snprintf(buf + len, n - len, i ? " %s" : "%s", argv[i]);
}

/* The launcher's options these commands take: --launcher, --ranks, --no-gpu,
 * --device-comm (its --gpus is run's own: the GPUs one process spreads
 * subdomains over). One rank unless asked: several are one subdomain each. */
enum { LAUNCH_NOPTS = 4 };
static void launch_group(tl_option out[LAUNCH_NOPTS])
{
    size_t n = 0;
    for (size_t i = 0; i < tl_launch_noptions && n < LAUNCH_NOPTS; i++) {
        const tl_option *t = &tl_launch_options[i];
        if (strcmp(t->name, "launcher") && strcmp(t->name, "ranks") && strcmp(t->name, "no-gpu") &&
            strcmp(t->name, "device-comm"))
            continue;
        out[n] = *t;
        if (!strcmp(t->name, "ranks")) {
            out[n].def = "1";
            out[n].min = 1;
            out[n].help = "thread launcher: ranks, one subdomain each (--decomp px*py*pz of them; cuda: rank r on "
                          "GPU r % GPUs, several to a GPU with --device-comm host); 1: this process drives every "
                          "subdomain";
        }
        n++;
    }
}

static int launch(tl_launch_opts *lo, int argc, char **argv, tl_rank_main_fn fn, void *arg, int cuda)
{
    lo->gpus = 0;
    lo->timeout_s = 300;
    if (lo->ranks < 1) lo->ranks = 1;
    if (!cuda) lo->no_gpu = 1;
    /* trilap's NVTX ranges reach an attached tool (nsys) in every run */
    tl_probes_main pm = {.fn = fn, .arg = arg};
    return tl_launch_run(PROG, lo, argc, argv, tl_probes_rank_main, &pm);
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
    run_args ra;
    tl_launch_opts lo;
    tl_option lopts[LAUNCH_NOPTS];
    memset(&ra, 0, sizeof ra);
    memset(&lo, 0, sizeof lo);
    launch_group(lopts);
    const tl_optgroup groups[] = {{"Model", model_options, sizeof model_options / sizeof model_options[0], &ra.o},
                                  {"Execution and output", exec_options, sizeof exec_options / sizeof exec_options[0], &ra.o},
                                  {"Launch", lopts, LAUNCH_NOPTS, &lo}};
    const tl_optspec spec = {.program = PROG " run", .usage = "[options]",
                             .purpose = "Runs one 3D acoustic FDTD simulation (staggered p-v, CPML) and prints a results row.",
                             .groups = groups, .ngroups = 3, .max_positional = 0};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    free(res.positional);
    if (res.exit_now) return 0;
    int rc = build_config(&ra);
    if (rc) {
        free(ra.rec);
        return rc;
    }
    join_cmdline(ra.cmdline, sizeof ra.cmdline, full_argc, full_argv);
    rc = launch(&lo, full_argc, full_argv, run_rank, &ra, ra.c.backend == TL_FDTD_BACKEND_CUDA);
    free(ra.rec);
    return ra.usage_error ? 2 : rc;
}

/* ---- verify --------------------------------------------------------------- */

typedef struct verify_opts {
    int backend, kernel, precision;
    const char *decomp, *decomps, *strategy, *strategies, *orders, *sizes, *cfls,
        *cells, *ss;
    int64_t s, n_int, n, steps, every, gpus;
    double f0, cfl;
    const char *slices;
} verify_opts;

#define V(f) offsetof(verify_opts, f)
static const tl_option verify_options[] = {
    {.name = "backend", .type = TL_OPT_ENUM, .offset = V(backend), .def = "cpu", TABLE(backend_names), .help = "backend"},
    {.name = "kernel", .type = TL_OPT_ENUM, .offset = V(kernel), .def = "vec4", TABLE(tl_fdtd_kernels),
     .help = "cuda kernels"},
    {.name = "precision", .type = TL_OPT_ENUM, .offset = V(precision), .def = "double", TABLE(precision_names),
     .help = "floating point precision"},
    {.name = "decomp", .type = TL_OPT_STRING, .offset = V(decomp), .def = "1x1x1", .metavar = "PXxPYxPZ",
     .help = "convergence, time, energy: decomposition"},
    {.name = "decomps", .type = TL_OPT_STRING, .offset = V(decomps), .def = "1x1x1,slab-z,block-xy,pencil-yz",
     .metavar = "LIST", .help = "reflection, decomp: decompositions"},
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
    {.name = "n", .type = TL_OPT_INT, .offset = V(n), .def = "0", .metavar = "N",
     .help = "time: grid size [16]; energy: [64]; decomp: [64]", .min = 0, .max = 4096},
    {.name = "cells", .type = TL_OPT_STRING, .offset = V(cells), .def = "0,8,12,16,24", .metavar = "LIST",
     .help = "reflection: CPML thicknesses; energy: the one with CPML is the first non-zero [20]"},
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
    {.name = "gpus", .type = TL_OPT_INT, .offset = V(gpus), .def = "0", .metavar = "N", .help = "cuda: GPUs to use",
     .min = 0, .max = 64},
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
    int nc = parse_list(va->o.cells, cells, 16);
    TL_CHECK(nc > 0, TL_ERR_INVAL, "invalid --cells '%s'", va->o.cells);
    char buf[1024], *names[32];
    snprintf(buf, sizeof buf, "%s", va->o.decomps);
    int nd = split_names(buf, names, 32);
    tl_fdtd_vopts v[32];
    for (int i = 0; i < nd; i++) {
        v[i] = va->v;
        TL_CHECK(parse_decomp(names[i], v[i].pd) == 0, TL_ERR_INVAL, "invalid decomposition '%s' in --decomps", names[i]);
    }
    double r[32 * 16];
    TL_TRY(tl_fdtd_verify_reflection(v, nd, va->o.n_int, va->o.f0, cells, nc, r));
    printf("decomp,cells,ratio\n");
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < nc; j++) printf("%s,%" PRId64 ",%.6e\n", names[i], cells[j], r[i * nc + j]);
    return TL_OK;
}

static tl_status verify_energy(verify_args *va)
{
    int64_t cells[16];
    int nc = parse_list(va->o.cells, cells, 16);
    TL_CHECK(nc > 0, TL_ERR_INVAL, "invalid --cells '%s'", va->o.cells);
    int64_t L = 20;
    for (int j = 0; j < nc; j++)
        if (cells[j] > 0) {
            L = cells[j];
            break;
        }
    if (!strcmp(va->o.cells, "0,8,12,16,24")) L = 20; /* the default list is the reflection experiment's */
    int64_t n = va->o.n > 0 ? va->o.n : 64, steps = va->o.steps > 0 ? va->o.steps : 600;
    double *a = NULL, *b = NULL;
    int64_t na = 0, nb = 0;
    tl_status st = TL_OK;
    char d1[4096], d2[4096];
    if (va->o.slices) {
        snprintf(d1, sizeof d1, "%s/cpml", va->o.slices);
        snprintf(d2, sizeof d2, "%s/none", va->o.slices);
    }
    TL_TRYGOTO(tl_fdtd_verify_energy(&va->v, n, L, steps, va->o.every, va->o.slices ? d1 : NULL, &a, &na), st, done);
    TL_TRYGOTO(tl_fdtd_verify_energy(&va->v, n, 0, steps, va->o.every, va->o.slices ? d2 : NULL, &b, &nb), st, done);
    double ma = 0, mb = 0;
    for (int64_t i = 0; i < na; i++) ma = a[2 * i + 1] > ma ? a[2 * i + 1] : ma;
    for (int64_t i = 0; i < nb; i++) mb = b[2 * i + 1] > mb ? b[2 * i + 1] : mb;
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    double dt = c.cfl * tl_fdtd_dt_max(&c);
    printf("# energy normalised by its maximum; CPML %" PRId64 " cells; grid %" PRId64 "^3; source stops near t = %.1f\n", L,
           n, 2.4 / 0.05);
    printf("step,time_s,energy_cpml,energy_none\n");
    for (int64_t i = 0; i < na && i < nb; i++)
        printf("%.0f,%.6g,%.6e,%.6e\n", a[2 * i], a[2 * i] * dt, ma > 0 ? a[2 * i + 1] / ma : 0, mb > 0 ? b[2 * i + 1] / mb : 0);
    if (na > 0 && nb > 0)
        fprintf(stderr, PROG ": energy at the end / maximum: %.3e with CPML, %.3e without\n", a[2 * (na - 1) + 1] / ma,
                b[2 * (nb - 1) + 1] / mb);
done:
    free(a);
    free(b);
    return st;
}

static tl_status verify_decomp(tl_ctx *ctx, verify_args *va)
{
    char buf[1024], sbuf[256], *names[32], *strats[8];
    snprintf(buf, sizeof buf, "%s", va->o.decomps);
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
    if (root) printf("decomp,strategy,s,overlap,boundary,max_abs_diff,identical\n");
    int wrong = 0, rows = 0;
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < ns; j++) {
            /* ranks: the decomposition spread over this run's ranks, one
             * subdomain each; a decomposition of another size needs another run */
            int pd[3], ranked = tl_fdtd_strategy_per_rank(strats[j], va->v.backend) == 1;
            TL_CHECK(parse_decomp(names[i], pd) == 0, TL_ERR_INVAL, "invalid decomposition '%s'", names[i]);
            if (ranked && pd[0] * pd[1] * pd[2] != ctx->size) {
                if (root)
                    printf("# %s,%s: %d subdomains, %d rank%s: not run (run with --ranks %d or mpirun -np %d)\n",
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
                        TL_CHECK(parse_decomp(names[i], c.pd) == 0, TL_ERR_INVAL, "invalid decomposition '%s'", names[i]);
                        c.strategy = strats[j];
                        c.s = (int)ss[k];
                        c.overlap = ov;
                        double m;
                        TL_TRY(tl_fdtd_verify_decomp_on(ranked ? ctx : NULL, &c, &m));
                        if (root) {
                            printf("%s,%s,%d,%d,%s,%.3e,%s\n", names[i], strats[j], c.s, ov,
                                   cp == 0 ? "zero" : cp == 1 ? "cpml8" : "periodic", m, m == 0 ? "yes" : "no");
                            fflush(stdout);
                        }
                        wrong += m != 0;
                        rows++;
                    }
        }
    if (root) printf("# %d rows, %d not identical\n", rows, wrong);
    if (!root) return wrong ? TL_ERR_REMOTE : TL_OK; /* rank 0 says why */
    TL_CHECK(rows > 0, TL_ERR_INVAL, "no decomposition in --decomps has %d subdomain%s for a per-rank strategy",
             ctx->size, ctx->size == 1 ? "" : "s");
    TL_CHECK(wrong == 0, TL_ERR_NUMERIC, "%d decomposed runs differ from the single domain", wrong);
    return TL_OK;
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

static int cmd_verify(int argc, char **argv, int full_argc, char **full_argv)
{
    verify_args va;
    tl_launch_opts lo;
    tl_option lopts[LAUNCH_NOPTS];
    memset(&va, 0, sizeof va);
    memset(&lo, 0, sizeof lo);
    launch_group(lopts);
    static const char *const kinds[] = {"convergence", "time", "reflection", "energy", "decomp"};
    const tl_optgroup groups[] = {{"Verification", verify_options, sizeof verify_options / sizeof verify_options[0], &va.o},
                                  {"Launch", lopts, LAUNCH_NOPTS, &lo}};
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
    if (!known) return bad("experiment", va.what, "expected convergence, time, reflection, energy or decomp");
    tl_fdtd_vopts_defaults(&va.v);
    va.v.backend = (tl_fdtd_backend_kind)va.o.backend;
    va.v.kernel = (tl_fdtd_kernel_kind)va.o.kernel;
    va.v.dbl = va.o.precision == 1;
    va.v.strategy = va.o.strategy;
    va.v.s = (int)va.o.s;
    va.v.gpus = (int)va.o.gpus;
    if (parse_decomp(va.o.decomp, va.v.pd) != 0)
        return bad("--decomp", va.o.decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    int rc = launch(&lo, full_argc, full_argv, verify_rank, &va, va.v.backend == TL_FDTD_BACKEND_CUDA);
    return va.usage_error ? 2 : rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "run")) return cmd_run(argc - 1, argv + 1, argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "verify")) return cmd_verify(argc - 1, argv + 1, argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf(PROG " %s (%s)\n", TL_VERSION, TL_GIT_COMMIT);
        return 0;
    }
    FILE *out = argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) ? stdout : stderr;
    fprintf(out, "usage: " PROG " run [options] | " PROG " verify convergence|time|reflection|energy|decomp [options]\n"
                 "3D acoustic FDTD (staggered pressure-velocity, orders 2/4/8) with CPML, on the CPU or GPUs;\n"
                 "`" PROG " run --help` and `" PROG " verify --help` list the options.\n");
    if (out == stderr && argc >= 2) fprintf(stderr, PROG ": unknown command '%s' (try --help)\n", argv[1]);
    return out == stdout ? 0 : 2;
}
