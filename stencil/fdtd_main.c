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

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "probes/probes.h"
#include "probes/trace.h"
#include "runtime/tmpfile.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/out.h"
#include "runtime/progress.h"
#include "runtime/results.h"
#include "stencil/fdtd.h"
#include "stencil/fdtd_cli.h"
#include "stencil/memneed.h"

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
    int progress;
} fdtd_opts;

#define O(f) offsetof(fdtd_opts, f)
static const tl_option model_options[] = {
    {.name = "grid", .type = TL_OPT_STRING, .offset = O(grid), .def = "64", .metavar = "N|NXxNYxNZ",
     .help = "grid points per axis"},
    {.name = "order", .type = TL_OPT_INT, .offset = O(order), .def = "8", .metavar = "2|4|8",
     .help = "order of the centred differences", .min = 2, .max = 8},
    {.name = "steps", .type = TL_OPT_INT, .offset = O(steps), .def = "100", .metavar = "N",
     .help = "time steps measured", .min = 1, .max = 1e9},
    {.name = "warmup", .type = TL_OPT_INT, .offset = O(warmup), .def = "0", .metavar = "N",
     .help = "time steps run before the measured ones", .min = 0, .max = 1e9},
    {.name = "dt", .type = TL_OPT_DOUBLE, .offset = O(dt), .def = "0", .metavar = "S",
     .help = "time step in s (0: --cfl times the stability limit; not with --cfl)", .min = 0, .max = 1e30},
    {.name = "cfl", .type = TL_OPT_DOUBLE, .offset = O(cfl), .def = "0.5", .metavar = "F",
     .help = "fraction of the stability limit", .min = 1e-9, .max = 1},
    {.name = "h", .type = TL_OPT_DOUBLE, .offset = O(h), .def = "1", .metavar = "M",
     .help = "grid spacing in m", .min = 1e-30, .max = 1e30},
    {.name = "cpml", .type = TL_OPT_INT, .offset = O(cpml), .def = "20", .metavar = "CELLS",
     .help = "CPML thickness on every outer face (0: none, p = v = 0 outside: low faces rigid, high faces "
             "pressure-release, stencil/README.md; when not given, a grid smaller than "
             "42 points gets a quarter of its smallest axis, with a note, and --periodic gets 0)",
     .min = 0, .max = 100000},
    {.name = "cpml-r", .type = TL_OPT_DOUBLE, .offset = O(cpml_r), .def = "1e-8", .metavar = "R",
     .help = "CPML target reflection", .min = 1e-300, .max = 1},
    {.name = "kappa-max", .type = TL_OPT_DOUBLE, .offset = O(kappa_max), .def = "5", .metavar = "K",
     .help = "CPML kappa_max", .min = 1, .max = 1e6},
    {.name = "alpha-frac", .type = TL_OPT_DOUBLE, .offset = O(alpha_frac), .def = "0.05", .metavar = "F",
     .help = "CPML alpha_max / sigma_max", .min = 0, .max = 1e6},
    {.name = "periodic", .type = TL_OPT_FLAG, .offset = O(periodic), .def = "0",
     .help = "periodic in every axis, without a CPML (--cpml is then 0 unless typed; above 0 it is refused)"},
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
    {.name = "kernel", .type = TL_OPT_ENUM, .offset = O(kernel), .def = "vec4-band", TABLE(tl_fdtd_kernels),
     .help = "--backend cuda only (the CPU has one reference kernel): tiled (shared-memory x-y tiles, z register queues, CPML boundary kernels), naive (one thread per point, CPML fused: the baseline; on one H200 2x tiled), pipelined (tiled with the next plane's loads in flight; on one H200 1.11x naive without CPML, 0.94x with), zcol8, zcol16, zcol16-y4, zcol32-y4 (a thread marches 8/16/32 z points of its column, z stencil in registers; blocks 32x8 or 32x4; CPML slabs by the same kernel; on one H200 0.85-0.94x naive), zcol8-fused, zcol16-fused (CPML fused as in naive), zcol16-y4-pf, zcol32-y4-pf (the next point's loads issued first; 1.06-1.08x naive), vec2, vec4, vec4-x128 (a thread updates 2 or 4 consecutive x points with vector loads, CPML fused as in naive; on one H200 vec4 1.38x naive, 1.20x with CPML), vec4-band (default: vec4 in bands of rows through all z where a plane's z window does not fit in L2; 1.62x naive at 1024^3); figures: stencil/README.md"},
    {.name = "decomp", .type = TL_OPT_STRING, .offset = O(decomp), .def = "1x1x1", .metavar = "PXxPYxPZ",
     .help = "subdomains per axis, or slab-z (1x1x4), block-xy (2x2x1), pencil-yz (1x2x2)"},
    {.name = "strategy", .type = TL_OPT_STRING, .offset = O(strategy), .metavar = "NAME",
     .help = "exchange: cpu: copy, ranks (one subdomain per rank: --ranks N or mpirun -np N, N = px*py*pz; the default on several ranks); cuda: host (staged through pinned memory), peer (cudaMemcpyPeerAsync), nccl (one process), devcomm (one subdomain per rank on its GPU, ghosts over --device-comm nccl|host; the default on several ranks) [copy / peer]"},
    {.name = "s", .type = TL_OPT_INT, .offset = O(s), .def = "1", .metavar = "S",
     .help = "local steps between exchanges (ghost depth 2 r s)", .min = 1, .max = 64},
    {.name = "gpus", .short_name = 'g', .type = TL_OPT_INT, .offset = O(gpus), .def = "0", .metavar = "N",
     .help = "cuda, one process: GPUs to spread the subdomains over (0: every visible one; a run of ranks has "
             "each on the GPU the launcher binds it to)", .min = 0, .max = 64},
    {.name = "overlap", .type = TL_OPT_FLAG, .offset = O(overlap), .def = "0",
     .help = "update the inner points of the last local step while the exchange runs"},
    {.name = "check-every", .type = TL_OPT_INT, .offset = O(check_every), .def = "100", .metavar = "N",
     .help = "NaN / blow-up check every N steps (0: at the end only)", .min = 0, .max = 1e9},
    {.name = "blowup", .type = TL_OPT_DOUBLE, .offset = O(blowup), .def = "1e30", .metavar = "P",
     .help = "|p| above this stops the run", .min = 1e-300, .max = 1e300},
    {.name = "energy-every", .type = TL_OPT_INT, .offset = O(energy_every), .def = "0", .metavar = "N",
     .help = "energy monitor period (0: off)", .min = 0, .max = 1e9},
    {.name = "slice", .type = TL_OPT_STRING, .offset = O(slice), .def = "z=mid", .metavar = "x|y|z=I|mid",
     .help = "plane of the pressure slices"},
    {.name = "slice-every", .type = TL_OPT_INT, .offset = O(slice_every), .def = "0", .metavar = "N",
     .help = "write a pressure slice every N steps into --slice-dir (0: none)", .min = 0, .max = 1e9},
    {.name = "slice-dir", .type = TL_OPT_STRING, .offset = O(slice_dir), .def = "fdtd-slices", .metavar = "DIR",
     .help = "folder of the slices (p-<step>.txt, the step in 6 digits or more: p-000010.txt; gnuplot matrix)"},
    {.name = "seismogram", .type = TL_OPT_STRING, .offset = O(seismogram), .metavar = "FILE",
     .help = "receiver traces as CSV (step,time_s,r0,...)"},
    {.name = "energy-out", .type = TL_OPT_STRING, .offset = O(energy_out), .metavar = "FILE",
     .help = "energy series as CSV (step,time_s,energy)"},
    {.name = "results", .type = TL_OPT_STRING, .offset = O(results), .metavar = "FILE",
     .help = "append the results row here (manifest.txt beside it)"},
    {.name = "trace", .type = TL_OPT_STRING, .offset = O(trace), .metavar = "DIR",
     .help = "probes trace of the run into DIR, trace.rank<R>.csv for each rank R"},
    {.name = "breakdown", .type = TL_OPT_STRING, .offset = O(breakdown), .metavar = "FILE",
     .help = "cuda: device time of every kernel and copy (CUDA event pairs) as CSV (op,count,total_s,mean_us,min_us,max_us)"},
    {.name = "label", .type = TL_OPT_STRING, .offset = O(label), .def = "run", .metavar = "NAME",
     .help = "first column of the results row (up to 200 characters)"},
    {.name = "compare-cpml", .type = TL_OPT_FLAG, .offset = O(compare_cpml), .def = "0",
     .help = "run without CPML, then with it, and report the overhead (T_cpml - T_none) / T_none (needs a CPML)"},
    {.name = "progress", .type = TL_OPT_FLAG, .offset = O(progress),
     .help = "a progress line on stderr (steps done, time left) even when it is not a terminal (on a terminal it "
             "is always on)"},
};
#undef O

/* The run: the model and execution options turned into a configuration. */
typedef struct run_args {
    fdtd_opts o;
    tl_fdtd_config c;
    int64_t (*rec)[3];
    int nrec;
    int usage_error;     /* a rank found the ranks and the decomposition at odds: exit 2 */
    int device_comm_typed; /* --device-comm given: only a run of ranks (devcomm) uses it */
    int gpus_typed;        /* --gpus given: only a run in one process uses it */
    char note[2048];     /* notes on the input (a default adapted to it, a source or receiver
                            the run can hardly hear), a line each, said before the header */
} run_args;

/* The CPML the grid allows. The default (20 cells) needs 2 x 20 + 2 = 42
 * points per axis; on a smaller grid it shrinks to a quarter of the
 * smallest axis (half the grid stays interior) with a note, and --periodic
 * has none. A thickness the user typed is kept or refused, before anything
 * is printed: silently changing what was asked would mislabel the row. */
static int resolve_cpml(fdtd_opts *o, tl_fdtd_config *c, int given, char *note, size_t nnote)
{
    int64_t nmin = c->n[0] < c->n[1] ? c->n[0] : c->n[1];
    nmin = nmin < c->n[2] ? nmin : c->n[2];
    int64_t fits = nmin >= 2 ? (nmin - 2) / 2 : 0; /* largest L with n >= 2 L + 2 */
    if (o->periodic && !given) o->cpml = 0;
    if (given && o->periodic && o->cpml > 0) {
        fprintf(stderr, PROG ": --periodic has no outer boundary for a CPML; drop --cpml %" PRId64 " (or use --cpml 0)\n",
                o->cpml);
        return 2;
    }
    if (o->cpml > fits && given) return tl_fdtd_cli_cpml_too_thick(o->grid, o->cpml, fits, "--cpml", 1);
    if (o->cpml > fits) {
        /* said by rank 0 once the run is known to start: a refusal of
         * something else stays the one line it should be */
        int64_t L = nmin / 4;
        snprintf(note, nnote,
                 PROG ": note: a CPML of %" PRId64 " cell%s (a quarter of the %" PRId64 "-point axis), not the default "
                      "%" PRId64 ", which needs %" PRId64 " points per axis; --cpml N sets it",
                 L, L == 1 ? "" : "s", nmin, o->cpml, 2 * o->cpml + 2);
        o->cpml = L;
    }
    c->cpml = o->cpml;
    return 0;
}

/* Options that only mean something together: alone, one would be accepted
 * and do nothing (no file, or a monitor whose figures go nowhere; a
 * monitor alone is taken where --breakdown or --trace measure its cost). */
static int refuse_half_pairs(const fdtd_opts *o, const tl_optresult *res)
{
    static const char fmt[] = PROG ": %s without %s: %s\n";
    const char *alone = NULL, *missing = NULL, *why = NULL;
    int measured = o->breakdown || o->trace;
    if (o->energy_out && o->energy_every == 0)
        alone = "--energy-out", missing = "--energy-every N", why = "the energy monitor is off, nothing to write";
    else if (o->energy_every > 0 && !o->energy_out && !measured)
        alone = "--energy-every", missing = "--energy-out FILE",
        why = "the energy series would go nowhere (to time the monitor alone: --breakdown or --trace)";
    else if (o->seismogram && !o->receivers)
        alone = "--seismogram", missing = "--receivers I,J,K", why = "no receiver, nothing to write";
    else if (o->receivers && !o->seismogram && !measured)
        alone = "--receivers", missing = "--seismogram FILE",
        why = "the receivers' traces would go nowhere (to time them alone: --breakdown or --trace)";
    else if (o->slice_every == 0 && (tl_opts_given(res, &o->slice) || tl_opts_given(res, &o->slice_dir)))
        alone = tl_opts_given(res, &o->slice) ? "--slice" : "--slice-dir", missing = "--slice-every N",
        why = "no slice is written";
    if (alone) {
        fprintf(stderr, fmt, alone, missing, why);
        return 2;
    }
    int64_t total = o->warmup + o->steps; /* slices and energies are taken in warm-up steps too */
    if (o->slice_every > total) {
        fprintf(stderr, PROG ": --slice-every %" PRId64 " beyond the run's %" PRId64
                             " steps (--warmup and --steps): no slice would be written (give N <= %" PRId64 ")\n",
                o->slice_every, total, total);
        return 2;
    }
    /* before, --energy-out held the initial state's 0 alone, exit 0 */
    if (o->energy_every > total) {
        fprintf(stderr, PROG ": --energy-every %" PRId64 " beyond the run's %" PRId64
                             " steps (--warmup and --steps): no step's energy would be taken (give N <= %" PRId64 ")\n",
                o->energy_every, total, total);
        return 2;
    }
    return 0;
}

/* Options typed (fields[i], names[i] without "--") where what they set is
 * absent: accepted, each would do nothing while the preamble printed its
 * value. One line, "trilap-fdtd: --f0 and --amp with --source none:
 * there is no source to shape (give --source center or I,J,K, or drop
 * --f0 and --amp)"; 2, or 0 when none of them was typed. give: the other
 * way out, or NULL. */
static int refuse_idle(const tl_optresult *res, const char *const names[], const void *const fields[], int n,
                       const char *with, const char *why, const char *give)
{
    const char *typed[8];
    int k = 0;
    for (int i = 0; i < n && k < 8; i++)
        if (tl_opts_given(res, fields[i])) typed[k++] = names[i];
    if (k == 0) return 0;
    char list[256];
    tl_fdtd_cli_join_options(list, sizeof list, typed, k);
    fprintf(stderr, PROG ": %s %s: %s (%s%sdrop %s)\n", list, with, why, give ? give : "", give ? ", or " : "",
            list);
    return 2;
}

/* An output named by an empty string: the command line's fault, exit 2
 * (it was "--seismogram: an output file name is empty", exit 1, and for
 * --results a clash with its own manifest); 0, or 2 after one line. The
 * slice folder only where slices are taken (--slice-dir alone is refused
 * as half a pair). */
static int output_name_empty(const tl_optspec *spec, const fdtd_opts *o)
{
    char name[64], opt[68];
    int folder;
    if (!tl_opts_empty_output(spec, "results|seismogram|energy-out|breakdown",
                              o->slice_every > 0 ? "trace|slice-dir" : "trace", &folder, name))
        return 0;
    snprintf(opt, sizeof opt, "--%s", name);
    return tl_fdtd_cli_bad(opt, "", folder ? "an empty folder name" : "an empty file name");
}

/* Options that contradict others or set what this run does not have,
 * each refused where typed (a default never is): --dt with --cfl (--dt
 * won), the CPML's shape or --compare-cpml without a CPML (its row had an
 * empty overhead), the lower layer's medium without --layer-k, a lower
 * layer below the grid (a homogeneous run paying for material arrays),
 * the pulse with --source none, or of amplitude 0; --compare-cpml with slices, which are
 * written inside the timed steps (its reference run would write them
 * too, or not and be timed without them). */
static int refuse_options_without_effect(const fdtd_opts *o, const tl_fdtd_config *c, const tl_optresult *res)
{
    if (o->dt > 0 && tl_opts_given(res, &o->dt) && tl_opts_given(res, &o->cfl)) {
        fprintf(stderr, PROG ": --dt %g and --cfl %g both set the time step (--dt would win); give one of them\n",
                o->dt, o->cfl);
        return 2;
    }
    if (c->cpml == 0) {
        /* what leaves the run without a CPML, and what would give it one */
        char by[160];
        const char *give = NULL, *has = "has none";
        if (o->periodic) snprintf(by, sizeof by, "--periodic");
        else if (tl_opts_given(res, &o->cpml)) snprintf(by, sizeof by, "--cpml 0"), give = "give --cpml N";
        else /* the default shrunk to nothing (resolve_cpml) */
            snprintf(by, sizeof by, "--grid %s", o->grid), give = "give a larger --grid", has = "has no room for one";
        if (o->compare_cpml) {
            fprintf(stderr, PROG ": --compare-cpml needs a CPML: %s %s (%s%sdrop --compare-cpml)\n", by, has,
                    give ? give : "", give ? ", or " : "");
            return 2;
        }
        static const char *const shape[] = {"cpml-r", "kappa-max", "alpha-frac"};
        const void *const shape_fields[] = {&o->cpml_r, &o->kappa_max, &o->alpha_frac};
        char with[192];
        snprintf(with, sizeof with, "with %s", by);
        if (refuse_idle(res, shape, shape_fields, 3, with, "there is no CPML to shape", give)) return 2;
    }
    if (o->compare_cpml && o->slice_every > 0) {
        fprintf(stderr, PROG ": --compare-cpml times a run with CPML against one without, and --slice-every %" PRId64
                             " writes files inside the timed steps of both (take slices in a run of their own, or "
                             "drop --compare-cpml)\n",
                o->slice_every);
        return 2;
    }
    if (o->layer_k == 0) {
        static const char *const lower[] = {"K2", "rho2"};
        const void *const lower_fields[] = {&o->K2, &o->rho2};
        const char *with = tl_opts_given(res, &o->layer_k) ? "with --layer-k 0" : "without --layer-k K";
        if (refuse_idle(res, lower, lower_fields, 2, with, "there is no lower layer to set", "give --layer-k K"))
            return 2;
    }
    if (o->layer_k >= c->n[2]) {
        fprintf(stderr,
                PROG ": --layer-k %" PRId64 " lies beyond the grid's %" PRId64 " points along z (k = 0 to %" PRId64
                     "): the lower layer would be empty (give K below %" PRId64 ", or drop --layer-k)\n",
                o->layer_k, c->n[2], c->n[2] - 1, c->n[2]);
        return 2;
    }
    if (!c->source) {
        static const char *const pulse[] = {"f0", "amp"};
        const void *const pulse_fields[] = {&o->f0, &o->amp};
        if (refuse_idle(res, pulse, pulse_fields, 2, "with --source none", "there is no source to shape",
                        "give --source center or I,J,K"))
            return 2;
        /* run starts from zero fields: without a source they stay 0, and so
         * did every trace, energy and slice written (exit 0); the monitors
         * alone stay, timed by --breakdown or --trace */
        const char *out[3];
        const void *out_fields[3];
        int n = 0;
        if (o->seismogram) out[n] = "seismogram", out_fields[n++] = &o->seismogram;
        if (o->energy_out) out[n] = "energy-out", out_fields[n++] = &o->energy_out;
        if (o->slice_every > 0) out[n] = "slice-every", out_fields[n++] = &o->slice_every;
        if (refuse_idle(res, out, out_fields, n, "with --source none",
                        "the run starts from zero fields and, without a source, what it records would be 0 throughout",
                        "give --source center or I,J,K"))
            return 2;
    }
    /* a source that adds nothing: the run went ahead with zero fields and
     * a preamble naming the source (--source none is that run, said) */
    if (c->source && o->amp == 0)
        return tl_fdtd_cli_bad("--amp", "0", "a source of amplitude 0 adds nothing (for a run without one: --source "
                                             "none)");
    return 0;
}

/* One subdomain without --periodic exchanges no ghosts: --s S > 1 and
 * --overlap change nothing but the row's columns and the preamble's
 * ghost depth (up to e2e0d87 accepted: "s: 2  ghost: 16" for a run with
 * no ghost, at the same memory and the same result). 2 after one line,
 * or 0. */
static int refuse_without_exchange(const fdtd_opts *o, const tl_fdtd_config *c)
{
    if (c->pd[0] * c->pd[1] * c->pd[2] > 1 || c->periodic || (o->s <= 1 && !o->overlap)) return 0;
    char s[48], list[128];
    const char *typed[2];
    int k = 0;
    snprintf(s, sizeof s, "s %" PRId64, o->s);
    if (o->s > 1) typed[k++] = s;
    if (o->overlap) typed[k++] = "overlap";
    tl_fdtd_cli_join_options(list, sizeof list, typed, k);
    fprintf(stderr, PROG ": %s with one subdomain (--decomp %s) and no --periodic: there is no ghost exchange to %s "
                         "(give --decomp PXxPYxPZ or --periodic, or drop %s)\n",
            list, o->decomp, o->s > 1 ? (o->overlap ? "space out or overlap" : "space out") : "overlap", list);
    return 2;
}

/* The files the run writes outside its folders: --results and the
 * manifest.txt beside it, the seismogram, the energy, the breakdown (a
 * NULL path: not asked for) */
enum { RUN_NFILES = 5 };
typedef struct run_file {
    const char *option, *path;
} run_file;

static void run_files(const fdtd_opts *o, run_file f[RUN_NFILES], char *manifest, size_t nmanifest)
{
    if (o->results) tl_results_manifest_path(o->results, manifest, nmanifest);
    f[0] = (run_file){"--results", o->results};
    /* a folder's name has no manifest beside it: "--results d/" was "--results
     * (its manifest) d/manifest.txt lies under the file --results names";
     * check_outputs says "a folder; give a file name" */
    int folder = o->results && *o->results && o->results[strlen(o->results) - 1] == '/';
    f[1] = (run_file){"--results (its manifest)", o->results && !folder ? manifest : NULL};
    f[2] = (run_file){"--seismogram", o->seismogram};
    f[3] = (run_file){"--energy-out", o->energy_out};
    f[4] = (run_file){"--breakdown", o->breakdown};
}

/* Every output's folder made now, and said (tl_results_make_folder, one
 * line for each that was missing): a typo in a path shows before the
 * work, not as a tree made in silence. Before, only --results' and
 * --trace's were; --seismogram, --energy-out, --breakdown and --slice-dir
 * had theirs made by the writers after the run without a word.
 * Collective. */
static tl_status make_output_folders(tl_ctx *ctx, const fdtd_opts *o)
{
    char manifest[4096];
    run_file f[RUN_NFILES];
    run_files(o, f, manifest, sizeof manifest); /* f[1], the manifest, goes in --results' folder */
    TL_TRY(tl_results_make_folder(ctx, f[0].option, f[0].path, TL_OUT_FOLDER_OF_FILE));
    TL_TRY(tl_results_make_folder(ctx, "--trace", o->trace, TL_OUT_FOLDER_ITSELF));
    for (int k = 2; k < RUN_NFILES; k++)
        TL_TRY(tl_results_make_folder(ctx, f[k].option, f[k].path, TL_OUT_FOLDER_OF_FILE));
    return tl_results_make_folder(ctx, "--slice-dir", o->slice_every > 0 ? o->slice_dir : NULL,
                                  TL_OUT_FOLDER_ITSELF);
}

/* A folder the run fills (out.path: the folder): the slices
 * (p-<step>.txt, every `every` steps up to `last`) or the trace
 * (trace.rank<R>.csv; every: 0) */
typedef struct run_folder {
    run_file out;
    int64_t every, last;
} run_folder;

/* Whether folder d writes a file called `name`, and its label for the
 * line that names it. The trace folder's are every name the analysis
 * reads as a rank's trace (tl_trace_rank_of_name), whatever the ranks:
 * trilap-analyze would read another file of that name as one. */
static int folder_writes(const run_folder *d, const char *name, char *label, size_t n)
{
    if (d->every == 0) {
        int rank = tl_trace_rank_of_name(name);
        if (rank >= 0) snprintf(label, n, "--trace (the trace of rank %d)", rank);
        else snprintf(label, n, "--trace (a rank trace's name)");
        return rank != -1;
    }
    char *end, own[64];
    if (strncmp(name, "p-", 2) || name[2] < '0' || name[2] > '9') return 0;
    long long step = strtoll(name + 2, &end, 10);
    snprintf(own, sizeof own, "p-%06lld.txt", step); /* the name solver.c gives it: one spelling */
    if (strcmp(own, name) || step < d->every || step > d->last || step % d->every) return 0;
    snprintf(label, n, "--slice-dir (its slice of step %lld)", step);
    return 1;
}

/* Output b on output a's path, or under it (a a file there): one line
 * naming both (runtime/out.h), 1. one: room for a set of one. */
static int lands_on(tl_out_set *one, const run_file *a, const run_file *b)
{
    one->n = 0;
    return tl_out_set_add(one, PROG, a->option, a->path) == 0 && tl_out_set_meets(one, PROG, b->option, b->path);
}

/* Output b on, or under, a file that folder d writes: one line naming
 * both (runtime/out.h, as for two files), 1. Each name in b's path is
 * tried as one of the folder's files: d/p-000010.txt, ./d/x/../p-000010.txt
 * and dlink/p-000010.txt alike. one: room for a set of one. */
static int meets_folder_files(tl_out_set *one, const run_folder *d, const run_file *b)
{
    char part[256], label[96], at[4608];
    for (const char *p = b->path, *next; *p; p = next) {
        size_t len = strcspn(p, "/");
        next = p + len + (p[len] == '/');
        if (len == 0 || len >= sizeof part) continue;
        memcpy(part, p, len);
        part[len] = '\0';
        if (!folder_writes(d, part, label, sizeof label)) continue;
        snprintf(at, sizeof at, "%s/%s", d->out.path, part);
        if (lands_on(one, &(run_file){label, at}, b)) return 1;
    }
    return 0;
}

/* Two of the run's outputs that land on one path: the command line's
 * fault (exit 2; before, 1, as if the file system had refused), said
 * before the file system is asked about any. A file on another, or under
 * it (--results r.csv --seismogram r.csv/s.csv failed after the run with
 * "r.csv is not a folder"); the trace or slice folder on or under a file
 * (--results x --trace x printed the preamble, wrote x, then failed with
 * "x is not a folder", exit 1); any output on or under a file one of
 * those folders writes (--seismogram d/p-000010.txt --slice-dir d: the
 * slice of step 10 replaced by the seismogram after the run, exit 0). */
static tl_status check_output_clashes(const fdtd_opts *o)
{
    char manifest[4096], at[RUN_NFILES][4096], label[RUN_NFILES][128];
    run_file files[RUN_NFILES];
    const run_folder folders[2] = {{{"--trace", o->trace}, 0, 0},
                                   {{"--slice-dir", o->slice_every > 0 ? o->slice_dir : NULL}, o->slice_every,
                                    o->warmup + o->steps}};
    tl_out_set one;
    run_files(o, files, manifest, sizeof manifest);
    for (int f = 0; f < RUN_NFILES; f++) {
        if (!files[f].path) continue;
        const char *path = tl_out_written_at(files[f].path, at[f], sizeof at[f]);
        if (strcmp(path, files[f].path)) {
            snprintf(label[f], sizeof label[f], "%s (a link to it)", files[f].option);
            files[f] = (run_file){label[f], path};
        }
        for (int e = 0; e < f; e++)
            if (files[e].path && (lands_on(&one, &files[e], &files[f]) || lands_on(&one, &files[f], &files[e])))
                return TL_ERR_INVAL;
    }
    for (int d = 0; d < 2; d++)
        for (int f = 0; f < RUN_NFILES && folders[d].out.path; f++)
            if (files[f].path && lands_on(&one, &files[f], &folders[d].out)) return TL_ERR_INVAL;
    for (int d = 0; d < 2; d++) {
        const run_file *other = &folders[1 - d].out;
        if (!folders[d].out.path || !*folders[d].out.path) continue; /* an empty name: check_outputs says it */
        for (int f = 0; f < RUN_NFILES; f++)
            if (files[f].path && meets_folder_files(&one, &folders[d], &files[f])) return TL_ERR_INVAL;
        if (other->path && meets_folder_files(&one, &folders[d], other)) return TL_ERR_INVAL;
    }
    return TL_OK;
}

/* --receivers I,J,K[;I,J,K...] into ra->rec and c; 2 (said) on a bad list */
static int parse_receivers(run_args *ra, const char *list, tl_fdtd_config *c)
{
    int n = 1;
    for (const char *q = list; *q; q++) n += *q == ';';
    ra->rec = calloc((size_t)n, sizeof *ra->rec);
    if (!ra->rec) return tl_fdtd_cli_bad("--receivers", list, "out of memory");
    char *dup = strdup(list), *save = NULL;
    if (!dup) return tl_fdtd_cli_bad("--receivers", list, "out of memory");
    for (char *t = strtok_r(dup, ";", &save); t; t = strtok_r(NULL, ";", &save))
        if (tl_fdtd_cli_parse_triple(t, ',', ra->rec[ra->nrec++], 0) != 0) {
            free(dup);
            return tl_fdtd_cli_bad("--receivers", list, "expected I,J,K[;I,J,K...]");
        }
    free(dup);
    /* '' or ';': no receiver, and --seismogram was silently not written */
    if (ra->nrec == 0) return tl_fdtd_cli_bad("--receivers", list, "no receiver; expected I,J,K[;I,J,K...]");
    /* strtok_r skips empty entries: '1,2,3;;4,5,6' and '1,2,3;' ran
     * without a word, as verify's lists ending in a comma did */
    if (ra->nrec != n)
        return tl_fdtd_cli_bad("--receivers", list,
                               "an empty entry (two ';' together, or one at an end); expected I,J,K[;I,J,K...]");
    c->nrec = ra->nrec;
    c->rec = (const int64_t(*)[3])ra->rec;
    return 0;
}

static int build_config(run_args *ra, const tl_launch_opts *lo, const tl_optspec *spec, const tl_optresult *res)
{
    fdtd_opts *o = &ra->o;
    tl_fdtd_config *c = &ra->c;
    tl_fdtd_config_defaults(c);
    if (tl_fdtd_cli_parse_triple(o->grid, 'x', c->n, 1) != 0) return tl_fdtd_cli_bad("--grid", o->grid, "expected N or NXxNYxNZ");
    /* the solver's bounds (tl_fdtd_config_check), said as the option typed:
     * before, --grid 1 was "grid size 1 along x: must be 2 to 2^20", and
     * --grid 0 "every axis needs at least one point" */
    for (int d = 0; d < 3; d++)
        if (c->n[d] < 2 || c->n[d] > (1 << 20))
            return tl_fdtd_cli_bad("--grid", o->grid, "every axis needs 2 to 2^20 points");
    if (tl_fdtd_cli_refuse_cuda_only(res, o->backend, &o->kernel, &o->gpus, lo) != 0) return 2;
    if (o->breakdown && o->backend != TL_FDTD_BACKEND_CUDA) {
        /* was the solver's "the per-kernel breakdown times GPU work ...", naming no option */
        fprintf(stderr, PROG ": --breakdown %s times GPU kernels and copies with CUDA events; --backend cpu has "
                             "none (add --backend cuda, or drop --breakdown)\n", o->breakdown);
        return 2;
    }
    if (resolve_cpml(o, c, tl_opts_given(res, &o->cpml), ra->note, sizeof ra->note) != 0) return 2;
    if (o->order != 2 && o->order != 4 && o->order != 8) {
        char b[32];
        snprintf(b, sizeof b, "%" PRId64, o->order);
        return tl_fdtd_cli_bad("--order", b, "must be 2, 4 or 8");
    }
    c->order = (int)o->order;
    c->steps = o->steps;
    c->warmup = o->warmup;
    c->dt = o->dt;
    c->cfl = o->cfl;
    c->h = o->h;
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
        if (tl_fdtd_cli_parse_triple(o->source, ',', c->src, 0) != 0) return tl_fdtd_cli_bad("--source", o->source, "expected center, none or I,J,K");
    }
    if (o->receivers && parse_receivers(ra, o->receivers, c) != 0) return 2;
    c->backend = (tl_fdtd_backend_kind)o->backend;
    c->kernel = (tl_fdtd_kernel_kind)o->kernel;
    if (tl_fdtd_cli_parse_decomp(o->decomp, c->pd) != 0)
        return tl_fdtd_cli_bad("--decomp", o->decomp, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz");
    if (tl_fdtd_cli_bad_strategy(o->strategy, o->backend)) return 2;
    c->strategy = o->strategy;
    ra->device_comm_typed = tl_opts_given(res, &lo->device_comm);
    ra->gpus_typed = tl_opts_given(res, &o->gpus);
    c->s = (int)o->s;
    c->gpus = (int)o->gpus;
    c->overlap = o->overlap;
    c->check_every = o->check_every;
    c->blowup = o->blowup;
    c->energy_every = o->energy_every;
    if (o->slice_every > 0) {
        const char *s = o->slice;
        int a = s[0] == 'x' ? 0 : s[0] == 'y' ? 1 : s[0] == 'z' ? 2 : -1;
        if (a < 0 || s[1] != '=') return tl_fdtd_cli_bad("--slice", s, "expected x=I, y=I or z=I (I a number or mid)");
        c->slice_axis = a;
        if (!strcmp(s + 2, "mid")) c->slice_index = c->n[a] / 2;
        else {
            char *end;
            long long v = strtoll(s + 2, &end, 10);
            /* "z=mid,x=1" (two planes where one is meant) was "index outside the grid" */
            if (end == s + 2 || *end) return tl_fdtd_cli_bad("--slice", s, "expected one plane, x=I, y=I or z=I (I a number or mid)");
            if (v < 0 || v >= c->n[a]) return tl_fdtd_cli_bad("--slice", s, "index outside the grid");
            c->slice_index = v;
        }
        c->slice_every = o->slice_every;
        c->slice_dir = o->slice_dir;
    }
    c->trace = o->trace != NULL;
    c->breakdown = o->breakdown != NULL;
    if (output_name_empty(spec, o)) return 2;
    if (o->results && tl_results_unfit(o->results)) return tl_fdtd_cli_bad("--results", o->results, tl_results_unfit(o->results));
    if (check_output_clashes(o) != TL_OK) return 2;
    /* it wrote a row whose first column was blank, which names no run */
    if (!o->label[0]) return tl_fdtd_cli_bad("--label", "", "an empty label; the results row's first column names the run");
    if (strlen(o->label) > 200) { /* the row's field was cut at 511 bytes without a word */
        fprintf(stderr, PROG ": --label is %zu characters long; the results row takes at most 200 (try --help)\n",
                strlen(o->label));
        return 2;
    }
    if (refuse_options_without_effect(o, c, res) != 0 || refuse_without_exchange(o, c) != 0) return 2;
    if (refuse_half_pairs(o, res) != 0 || tl_fdtd_cli_receiver_repeated(ra->rec, ra->nrec, o->receivers) != 0)
        return 2;
    if (tl_fdtd_cli_medium_refused(c) != 0) return 2;
    tl_fdtd_cli_note_cpml_points(c, ra->note, sizeof ra->note);
    return tl_fdtd_cli_pulse_unheard(c, tl_opts_given(res, &o->f0), ra->note, sizeof ra->note);
}

static const char results_header[] =
    "label,backend,kernel,strategy,decomp,s,overlap,order,precision,nx,ny,nz,steps,cpml,dt,time_s,mpoints_s,gbs,"
    "min_bytes_per_point,mem_bytes,paper_mem_bytes,cpml_overhead";

/* digits: tl_fdtd_digits(c), enough for the values to read back exactly */
static tl_status write_csv_series(const char *path, const char *header, const double *v, int64_t rows, int cols,
                                  double dt, int time_col_step, int digits)
{
    size_t cap = (size_t)(rows + 2) * (size_t)(cols + 2) * 26 + strlen(header) + 16, len = 0;
    char *t = malloc(cap);
    TL_CHECK(t != NULL, TL_ERR_NOMEM, "%zu bytes for %s", cap, path);
    len += (size_t)snprintf(t, cap, "%s\n", header);
    for (int64_t r = 0; r < rows; r++) {
        double step = time_col_step ? v[r * cols] : (double)(r + 1);
        len += (size_t)snprintf(t + len, cap - len, "%.0f,%.*g", step, digits, step * dt);
        for (int k = time_col_step ? 1 : 0; k < cols; k++)
            len += (size_t)snprintf(t + len, cap - len, ",%.*g", digits, v[r * cols + k]);
        len += (size_t)snprintf(t + len, cap - len, "\n");
    }
    tl_status st = tl_file_write_atomic(path, t, len); /* its folders made there */
    free(t);
    return st;
}

/* One simulation and its row (rank 0 appends it to --results, its line
 * kept in rows for the manifest) and files. --compare-cpml's reference run
 * (without CPML) writes its row alone: the seismogram, breakdown and
 * energy are the run's with CPML (they were written twice, the
 * reference's first). */
static tl_status one_run(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c_in, double none_s, double *seconds,
                         tl_results_rows *rows)
{
    const fdtd_opts *o = &ra->o;
    tl_fdtd *f = NULL;
    tl_fdtd_config cp = *c_in;
    const tl_fdtd_config *c = &cp;
    const int reference = o->compare_cpml && c->cpml == 0;
    tl_progress bar;
    if (ctx->rank == 0) { /* rank 0 speaks for the run: its steps are everyone's */
        tl_progress_begin(&bar, reference ? "run without CPML" : "run",
                          (double)(c->warmup + c->steps), "steps", tl_progress_mode_of(o->progress));
        cp.progress = &bar;
    }
    /* rank 0 first: a bad configuration fails there alone, said once */
    tl_status st = ctx->rank == 0 ? tl_fdtd_create_on(&f, c, ctx) : TL_OK;
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK && ctx->rank != 0) st = tl_fdtd_create_on(&f, c, ctx);
    st = tl_comm_agree(ctx, st); /* no rank runs on without the others */
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(tl_fdtd_run(f, ctx), st, done);
    if (cp.progress) tl_progress_end(&bar);
    cp.progress = NULL;
    tl_fdtd_stats S = tl_fdtd_stats_of(f);
    *seconds = S.seconds;
    if (ctx->rank != 0) {
        /* rank 0 prints and writes; the manifest is collective */
        if (o->results) TL_TRYGOTO(tl_comm_agree(ctx, TL_OK), st, done);
        goto done;
    }
    char decomp[64], over[32] = "";
    snprintf(decomp, sizeof decomp, "%dx%dx%d", c->pd[0], c->pd[1], c->pd[2]);
    if (none_s > 0) snprintf(over, sizeof over, "%.4f", (S.seconds - none_s) / none_s);
    char row[1024], label[512];
    /* the label is free text: quoted where a comma or a quote would split the row */
    snprintf(row, sizeof row,
             "%s,%s,%s,%s,%s,%d,%d,%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
             ",%.6g,%.6f,%.2f,%.2f,%.0f,%.0f,%.0f,%s",
             tl_results_field(label, sizeof label, o->label), backend_names[c->backend].name, c->backend == TL_FDTD_BACKEND_CUDA ? tl_fdtd_kernels[c->kernel].name : "-",
             c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0), decomp, c->s,
             c->overlap, c->order, c->dbl ? "double" : "single", c->n[0], c->n[1], c->n[2], c->steps, c->cpml,
             S.dt, S.seconds, S.mpoints_s, S.gbs, S.min_bytes_per_point, S.mem_bytes, S.paper_mem_bytes, over);
    printf("%s\n", row);
    fflush(stdout);
    if (o->results) {
        TL_TRYGOTO(tl_comm_agree(ctx, tl_results_append(o->results, results_header, row, rows)), st, done);
    }
    if (reference) goto done;
    if (o->seismogram && c->nrec > 0) {
        char hdr[4096];
        size_t n = (size_t)snprintf(hdr, sizeof hdr, "step,time_s");
        for (int r = 0; r < c->nrec && n < sizeof hdr - 32; r++) n += (size_t)snprintf(hdr + n, sizeof hdr - n, ",r%d", r);
        TL_TRYGOTO(write_csv_series(o->seismogram, hdr, tl_fdtd_traces(f), c->steps + c->warmup, c->nrec, S.dt, 0,
                                    tl_fdtd_digits(c)), st, done);
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
        TL_TRYGOTO(tl_file_write_atomic(o->breakdown, text, n), st, done);
    }
    if (o->energy_out && c->energy_every > 0) {
        int64_t ne;
        const double *e = tl_fdtd_energy(f, &ne);
        TL_TRYGOTO(write_csv_series(o->energy_out, "step,time_s,energy", e, ne, 2, S.dt, 1, tl_fdtd_digits(c)), st, done);
    }
done:
    if (cp.progress) tl_progress_end(&bar); /* the line ends before an error's */
    tl_fdtd_destroy(&f);
    return st;
}

/* Several ranks: one subdomain each, px py pz ranks, the backend's
 * per-rank strategy (cpu: ranks; cuda: devcomm, a GPU bound to every
 * rank). At odds: rank 0 prints one line, every rank stops (TL_ERR_REMOTE:
 * the launcher adds nothing) and main exits 2. So is --device-comm typed
 * for a run in one process, whose exchange never uses it, and --gpus for
 * a run of ranks, each on the GPU the launcher bound it to (accepted, it
 * did nothing). */
static tl_status ranks_usage(tl_ctx *ctx, run_args *ra, tl_fdtd_config *c)
{
    int nsub = c->pd[0] * c->pd[1] * c->pd[2];
    const char *def = tl_fdtd_strategy_default(c->backend, 1);
    const char *one = c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0);
    /* a strategy not of the backend was refused by build_config */
    int kind = c->strategy ? tl_fdtd_strategy_per_rank(c->strategy, c->backend) : 1;
    int ranked = ctx->size > 1 || (c->strategy && kind == 1);
    int cuda = c->backend == TL_FDTD_BACKEND_CUDA;
    char why[512] = "";
    int no_gpu = 0; /* the machine's lack, not the command line's: exit 1 */
    if (!ranked && !(cuda && ra->device_comm_typed)) return TL_OK;
    if (!ranked)
        snprintf(why, sizeof why,
                 "--device-comm %s moves ghosts between ranks; this run is one process (--strategy %s) (run px*py*pz "
                 "ranks with --strategy devcomm, or drop --device-comm)",
                 tl_devcomm_kinds[ctx->device_comm].name, one);
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
    else if (ra->gpus_typed)
        snprintf(why, sizeof why,
                 "--gpus %d spreads the subdomains of one process over GPUs; in a run of ranks each rank's subdomain "
                 "is on the GPU the launcher binds it to, its local rank %% the host's GPUs (drop --gpus; "
                 "CUDA_VISIBLE_DEVICES sets the GPUs)", c->gpus);
    else if (cuda && ctx->device < 0) {
        no_gpu = 1;
        snprintf(why, sizeof why,
                 "%d rank%s with --backend cuda and no GPU (--no-gpu, or none visible): one subdomain per rank needs a "
                 "GPU bound to every rank (ranks share one with --device-comm host)",
                 ctx->size, ctx->size == 1 ? "" : "s");
    }
    if (!why[0]) {
        c->strategy = def;
        return TL_OK;
    }
    if (ctx->rank == 0) fprintf(stderr, PROG ": %s\n", why);
    if (!no_gpu && (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI))
        ra->usage_error = 1; /* thread ranks share it: rank 0 writes */
    return TL_ERR_REMOTE;
}

/* The files the run will write, each checked before anything runs: one
 * line naming the option and the path (an option without its partner was
 * refused already: refuse_half_pairs; two on one path: check_output_clashes). */
static tl_status check_outputs(const fdtd_opts *o, const tl_fdtd_config *c)
{
    char manifest[4096];
    run_file files[RUN_NFILES];
    run_files(o, files, manifest, sizeof manifest);
    for (int f = 0; f < RUN_NFILES; f++)
        if (files[f].path) TL_TRY(tl_fdtd_cli_check_output(files[f].option, files[f].path, NULL));
    if (c->slice_every > 0) {
        char first[64];
        snprintf(first, sizeof first, "p-%06" PRId64 ".txt", c->slice_every);
        TL_TRY(tl_fdtd_cli_check_output("--slice-dir", c->slice_dir, first));
    }
    if (o->trace) TL_TRY(tl_fdtd_cli_check_output("--trace", o->trace, "trace.rank0.csv"));
    return TL_OK;
}

/* The input refused before anything is printed or written: rank 0 judges
 * (the line comes from it alone), every rank takes its verdict and stops;
 * main exits 2 for the configuration, 1 for an output that cannot be
 * written (a file error, as in every program). Notes on the input (the
 * CPML's) are said only after this, when the run goes ahead. */
static tl_status refuse_bad_input(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c)
{
    if (tl_comm_agree(ctx, ctx->rank == 0 ? tl_fdtd_config_check(c) : TL_OK) != TL_OK) {
        if (ctx->rank == 0 || ctx->mode == TL_LAUNCH_MPI) ra->usage_error = 1; /* thread ranks share it: rank 0 writes */
        return TL_ERR_REMOTE;
    }
    return tl_comm_agree(ctx, ctx->rank == 0 ? check_outputs(&ra->o, c) : TL_OK) == TL_OK ? TL_OK : TL_ERR_REMOTE;
}

static tl_status run_rank(tl_ctx *ctx, void *arg)
{
    run_args *ra = arg;
    tl_fdtd_config cr = ra->c; /* this rank's: the strategy may become "ranks" */
    const tl_fdtd_config *c = &cr;
    if (ctx->size == 1 && tl_fdtd_cli_no_cuda(ctx, c->backend == TL_FDTD_BACKEND_CUDA))
        return TL_ERR_REMOTE; /* said; exit 1, the machine's, not the command line's */
    TL_TRY(ranks_usage(ctx, ra, &cr));
    TL_TRY(refuse_bad_input(ctx, ra, c));
    /* a grid the host cannot hold is refused before the preamble; ranks
     * sharing a host add their needs up */
    TL_TRY(tl_comm_agree(ctx, ctx->size > 1 ? tl_fdtd_check_host_memory_ranks(c, ctx)
                                            : tl_fdtd_check_host_memory_early(c)));
    TL_TRY(make_output_folders(ctx, &ra->o));
    /* the results file started and this command's block begun before any
     * work: a file of other rows is refused here, not after the run */
    tl_manifest_run mr = {0};
    if (ra->o.results)
        TL_TRY(tl_manifest_begin(ctx, ra->o.results, results_header, NULL, &mr));
    if (ctx->rank == 0 && ra->note[0]) fprintf(stderr, "%s\n", ra->note);
    if (ctx->rank == 0) { /* rank 0 prints */
        /* quoted as the manifest quotes it, so that it can be pasted into a shell */
        char *cmd = tl_manifest_command(ctx->argc, ctx->argv);
        TL_CHECK(cmd, TL_ERR_NOMEM, "the command line for the preamble");
        printf("# trilap-fdtd %s (%s)\n# command: %s\n", TL_VERSION, TL_GIT_COMMIT, cmd);
        free(cmd);
        printf("# grid: %" PRId64 "x%" PRId64 "x%" PRId64 "\n# order: %d\n# steps: %" PRId64 " (+%" PRId64 " warm-up)\n",
               c->n[0], c->n[1], c->n[2], c->order, c->steps, c->warmup);
        /* the R, kappa and alpha of no CPML said nothing of the boundary the run had */
        if (c->cpml > 0)
            printf("# cpml: %" PRId64 " cells, R = %g, kappa_max = %g, alpha_max = %g sigma_max, "
                   "sigma_max = -4 c_max ln(R) / (2 L h)\n",
                   c->cpml, c->cpml_r, c->kappa_max, c->alpha_frac);
        else
            printf("# cpml: none; %s\n", c->periodic ? "periodic in every axis"
                                                    : "p = v = 0 outside: low faces rigid, high faces pressure-release");
        printf("# backend: %s  kernel: %s  decomposition: %dx%dx%d  s: %d  ghost: %d\n", backend_names[c->backend].name,
               c->backend == TL_FDTD_BACKEND_CUDA ? tl_fdtd_kernels[c->kernel].name : "cpu reference",
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
    tl_results_rows rows = {0};
    tl_status st = TL_OK;
    if (ra->o.compare_cpml && c->cpml > 0) {
        tl_fdtd_config c0 = *c;
        c0.cpml = 0;
        c0.trace = 0;
        st = one_run(ctx, ra, &c0, 0, &t_none, &rows);
    }
    if (st == TL_OK) st = one_run(ctx, ra, c, t_none, &t, &rows);
    /* one block for the command's rows, both of --compare-cpml's */
    if (st == TL_OK) return tl_manifest_end(ctx, &mr, &rows, NULL);
    tl_manifest_abort(ctx, &mr, &rows);
    return tl_error_frame(st, TL_FILE_, __LINE__);
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv, tl_launch_quiet *quiet)
{
    run_args ra;
    tl_launch_opts lo;
    tl_option lopts[TL_FDTD_CLI_LAUNCH_NOPTS];
    memset(&ra, 0, sizeof ra);
    memset(&lo, 0, sizeof lo);
    tl_fdtd_cli_launch_group(lopts, "thread launcher: ranks, one subdomain each (--decomp px*py*pz of them; cuda: "
                                    "rank r on GPU r % GPUs, several to a GPU with --device-comm host); 1: this "
                                    "process drives every subdomain");
    const tl_optgroup groups[] = {{"Model", model_options, sizeof model_options / sizeof model_options[0], &ra.o},
                                  {"Execution and output", exec_options, sizeof exec_options / sizeof exec_options[0], &ra.o},
                                  {"Launch", lopts, TL_FDTD_CLI_LAUNCH_NOPTS, &lo}};
    /* the parser's lines begin PROG ": " as every other (fdtd_cli.h) */
    const tl_optspec spec = {.program = PROG, .command = "run", .usage = "[options]",
                             .purpose = "Runs one 3D acoustic FDTD simulation (staggered p-v, CPML) and prints a results "
                                        "row (--compare-cpml: two runs, two rows).",
                             .groups = groups, .ngroups = 3, .max_positional = 0};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) return 0;
    int rc = build_config(&ra, &lo, &spec, &res);
    free(res.positional);
    if (rc) {
        free(ra.rec);
        return rc;
    }
    rc = tl_fdtd_cli_launch(&lo, quiet, full_argc, full_argv, run_rank, &ra, ra.c.backend == TL_FDTD_BACKEND_CUDA,
                            ra.o.trace);
    free(ra.rec);
    return ra.usage_error ? 2 : rc;
}

int main(int argc, char **argv)
{
    if (tl_tmpfile_handle_signals(PROG) != TL_OK) return 1;
    int rc = -1;
    tl_launch_quiet quiet; /* under mpirun, a refusal before the launch once per host */
    tl_launch_quiet_begin(&quiet);
    if (argc >= 2 && !strcmp(argv[1], "run")) rc = cmd_run(argc - 1, argv + 1, argc, argv, &quiet);
    if (argc >= 2 && !strcmp(argv[1], "verify")) rc = tl_fdtd_cli_verify(argc - 1, argv + 1, argc, argv, &quiet);
    if (rc > 0) tl_tmpfile_cleanup(); /* temporary outputs, folders made for them */
    if (rc >= 0) return rc;
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf(PROG " %s (%s)\n", TL_VERSION, TL_GIT_COMMIT);
        return 0;
    }
    /* an unknown word is one line, as in the other trilap programs; the
     * usage is for --help, and for no command at all */
    if (argc >= 2 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help")) {
        fprintf(stderr, PROG ": unknown %s '%s' (try --help)\n", argv[1][0] == '-' ? "option" : "command", argv[1]);
        return 2;
    }
    FILE *out = argc >= 2 ? stdout : stderr;
    fprintf(out, "usage: " PROG " run [options] | " PROG " verify convergence|time|reflection|energy|decomp [options]\n"
                 "3D acoustic FDTD (staggered pressure-velocity, orders 2/4/8) with CPML, on the CPU or GPUs;\n"
                 "`" PROG " run --help` and `" PROG " verify --help` list the options.\n");
    return out == stdout ? 0 : 2;
}
