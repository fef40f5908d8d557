/* trilap-fdtd: the 3D FDTD acoustic solver with CPML.
 *   trilap-fdtd run [options]                  one simulation, a results row
 *   trilap-fdtd verify convergence|time|reflection|energy|decomp [options]
 * On one rank (the default) every subdomain is driven from this process,
 * on the CPU or spread over the GPUs. On several ranks (--launcher threads
 * --ranks N, or mpirun -np N) rank r holds subdomain r alone: cpu backend,
 * strategy "ranks" (host messages between the ranks); cuda backend,
 * strategy "devcomm" (subdomain r on the rank's GPU, ghosts over
 * --device-comm nccl|host). N must be px py pz. Rank 0 prints and writes.
 * This file: main, and run's option tables and parse; run's parts are
 * fdtd_run_*.c (fdtd_run_impl.h), verify's fdtd_verify_main.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/tmpfile.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "stencil/fdtd.h"
#include "stencil/fdtd_cli.h"
#include "stencil/fdtd_run_impl.h"

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
    int rc = tl_fdtd_cli_build_config(&ra, &lo, &spec, &res);
    free(res.positional);
    if (rc) {
        free(ra.rec);
        return rc;
    }
    rc = tl_fdtd_cli_launch(&lo, quiet, full_argc, full_argv, tl_fdtd_cli_run_rank, &ra,
                            ra.c.backend == TL_FDTD_BACKEND_CUDA, ra.o.trace);
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
