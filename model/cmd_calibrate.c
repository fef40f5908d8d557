/* trilap-model calibrate: the measured numbers from trilap's result files,
 * the model's fixed costs and NCCL rate fitted on them by simulation, all
 * written to one calibration file that every prediction names. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cli.h"
#include "model/fit.h"

typedef struct calib_opts {
    const char *tristream, *traces, *comm, *stream, *out;
    double pcg_fixed_us, pcg_bw_frac, gpu_mem_gbs;
} calib_opts;

static const tl_option calib_options[] = {
    {.name = "tristream", .type = TL_OPT_STRING, .offset = offsetof(calib_opts, tristream),
     .def = "results/tristream-h200x2/tristream.csv", .metavar = "CSV",
     .help = "trilap-bench tristream results on two GPUs (parts alone, variants)"},
    {.name = "traces", .type = TL_OPT_STRING, .offset = offsetof(calib_opts, traces), .metavar = "DIR",
     .help = "its traces (DIR/two-stream, DIR/three-naive): the cost of a wait across streams (default: the "
             "--tristream CSV's folder, where trilap-bench tristream --trace writes them)"},
    {.name = "comm", .type = TL_OPT_STRING, .offset = offsetof(calib_opts, comm), .def = "results/comm-h200x2/comm.csv",
     .metavar = "CSV", .help = "trilap-bench comm results on the same two GPUs"},
    {.name = "stream", .type = TL_OPT_STRING, .offset = offsetof(calib_opts, stream),
     .def = "results/stream-h200/stream.csv", .metavar = "CSV", .help = "trilap-bench stream results on one GPU"},
    {.name = "pcg-fixed-us", .type = TL_OPT_DOUBLE, .offset = offsetof(calib_opts, pcg_fixed_us),
     .def = TL_MCALIB_ROOF_FIXED_US,
     .metavar = "US", .help = "Pipe-PCG us per iteration that do not scale with rows (roof-fit.awk; "
                              "results/solver-fixed-cost-h200)", .min = 0, .max = 1e6},
    {.name = "pcg-bw-frac", .type = TL_OPT_DOUBLE, .offset = offsetof(calib_opts, pcg_bw_frac),
     .def = TL_MCALIB_ROOF_BW_FRAC,
     .metavar = "F", .help = "the fraction of triad the rest runs at (same fit)", .min = 0.01, .max = 1},
    {.name = "gpu-mem-gbs", .type = TL_OPT_DOUBLE, .offset = offsetof(calib_opts, gpu_mem_gbs), .def = "0",
     .metavar = "GBS", .help = "the nominal memory bandwidth of the inputs' GPU, where model/platform.c does not know "
                               "it (0: the table's); predictions scale its triad by it, and the triad may not "
                               "exceed it", .min = 0, .max = 1e6},
    {.name = "out", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(calib_opts, out), .def = "-",
     .metavar = "FILE", .help = "calibration file to write (- for stdout)"},
};

/* The traces of the --tristream CSV's own run, its folder's (DIR/two-stream
 * and DIR/three-naive), where --traces is not given: before, a CSV given
 * alone was paired with the default run's traces in silence
 * (tristream-maxconn32-h200x2: xstream_us 1.34 where its own give 2.88).
 * 2, said naming --traces, when a CSV given has no traces beside it. */
static int traces_beside(const char *tri, int tri_given, char *dir, size_t n)
{
    const char *slash = strrchr(tri, '/');
    if (!slash) snprintf(dir, n, ".");
    else snprintf(dir, n, "%.*s", slash == tri ? 1 : (int)(slash - tri), tri);
    char a[4200], b[4200];
    snprintf(a, sizeof a, "%s/two-stream", dir);
    snprintf(b, sizeof b, "%s/three-naive", dir);
    struct stat sa, sb;
    /* a CSV that is not there is said as such by its reader */
    int there = stat(a, &sa) == 0 && S_ISDIR(sa.st_mode) && stat(b, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (there || !tri_given || access(tri, F_OK) != 0) return 0;
    tl_mcli_error("invalid --tristream '%s' without --traces: no traces of its run beside it (%s/two-stream, "
                  "%s/three-naive): name them with --traces DIR", tri, dir, dir);
    return 2;
}

/* Where nothing the calibration rests on names its GPU: one note saying
 * so, what the file says, and what the triad is held to. */
static void unnamed_gpu_say(const tl_mcalib *c, const char *stream)
{
    char held[160];
    if (c->gpu_mem_gbs > 0) snprintf(held, sizeof held, "held to and scaled from --gpu-mem-gbs %g", c->gpu_mem_gbs);
    else
        snprintf(held, sizeof held, "held to no GPU's nominal memory bandwidth, and a prediction from it needs that "
                                    "figure (--gpu-mem-gbs GBS)");
    fprintf(stderr, "trilap-model: note: no manifest, stream.csv device column or trace names the GPU measured: the "
                    "calibration says gpu = %s, its triad_gbs %.1f (%s) %s\n",
            TL_MCALIB_GPU_UNNAMED, c->triad_gbs, stream, held);
}

/* The four inputs measured on one GPU model, as their manifests, their
 * traces' device_name and stream.csv's device column name it, and the
 * triad within that GPU's nominal bandwidth; c->gpu that model (the
 * manifests', else the device column's or the traces'), or
 * TL_MCALIB_GPU_UNNAMED. The checks' one refusal, or their notes, on
 * stderr. */
static tl_status of_one_gpu(tl_mcalib *c, const tl_mcalib_input *machine, int n, const char *traces,
                            const char *stream)
{
    /* the fit would mix two machines in silence: an A100's triad scaled as
     * an H200's, beside H200 traces */
    tl_mcalib_gpu held;
    TL_TRY(tl_mcalib_same_gpu(machine, n, &held));
    /* the traces' own device_name: before, an A100's traces beside H200
     * manifests were fitted without a word */
    tl_mcalib_unnamed unnamed;
    tl_error_context k;
    tl_error_context_begin(&k, "--traces");
    tl_status st = tl_mcalib_traces_of_gpu(traces, &held, &unnamed);
    tl_error_context_end(&k);
    TL_TRY(st);
    /* a run on an H200 whose manifests say H100 was calibrated as an H100
     * at 4,411 GB/s, 1.3x what an H100 can move, its device column unread;
     * without manifests the triad was held to nothing */
    tl_error_context_begin(&k, "--stream");
    st = tl_mcalib_stream_of_gpu(c, stream, &held);
    tl_error_context_end(&k);
    TL_TRY(st);
    tl_mcalib_unnamed_say(&unnamed, &held);
    /* the GPU the triad was held to and predictions scale it from,
     * whatever named it: before, the manifests' alone, so that an A100's
     * stream.csv without manifests was written without the key and
     * predicted as an H200's */
    snprintf(c->gpu, sizeof c->gpu, "%s", held.model[0] ? held.model : TL_MCALIB_GPU_UNNAMED);
    if (!held.model[0]) unnamed_gpu_say(c, stream);
    return TL_OK;
}

int tl_mcmd_calibrate(int argc, char **argv, tl_mcli *cli)
{
    calib_opts o;
    tl_optgroup g = {"Calibrate", calib_options, sizeof calib_options / sizeof calib_options[0], &o};
    tl_optspec spec = {.program = "trilap-model", .command = "calibrate", .usage = "[options]",
                       .purpose = "Reads measured results and fits the model's fixed costs and NCCL rate on them.",
                       .groups = &g, .ngroups = 1, .min_positional = 0, .max_positional = 0};
    int rc = tl_mcli_parse(cli, &spec, argc, argv);
    if (rc >= 0) return rc;
    tl_mcalib c = {.pcg_fixed_us = o.pcg_fixed_us, .pcg_bw_frac = o.pcg_bw_frac, .gpu_mem_gbs = o.gpu_mem_gbs};
    /* the defaults are files of the trilap tree, found from any folder */
    char tri[4096], traces[4096], comm[4096], stream[4096];
    tl_mcli_tree_path(o.tristream, tl_mcli_given(cli, &o.tristream), tri, sizeof tri);
    if (o.traces) tl_mcli_tree_path(o.traces, 1, traces, sizeof traces);
    else if (traces_beside(tri, tl_mcli_given(cli, &o.tristream), traces, sizeof traces)) return 2;
    tl_mcli_tree_path(o.comm, tl_mcli_given(cli, &o.comm), comm, sizeof comm);
    tl_mcli_tree_path(o.stream, tl_mcli_given(cli, &o.stream), stream, sizeof stream);
    /* the inputs and the manifests beside them, which say their GPU */
    const tl_mcalib_input machine[] = {
        {"--tristream", tri, 0}, {"--traces", traces, 1}, {"--comm", comm, 0}, {"--stream", stream, 0}};
    enum { NMACHINE = sizeof machine / sizeof machine[0] };
    /* every file read, the traces' and the manifests among them: -o over
     * one of them left a calibration where the measurement was */
    char rank_traces[TL_MCALIB_TRACE_FILES][4200], manifests[NMACHINE][4250];
    tl_mcalib_trace_files(traces, rank_traces);
    const char *inputs[3 + TL_MCALIB_TRACE_FILES + NMACHINE] = {tri, comm, stream};
    for (int k = 0; k < TL_MCALIB_TRACE_FILES; k++) inputs[3 + k] = rank_traces[k];
    for (int k = 0; k < NMACHINE; k++) {
        tl_mcalib_manifest_of(&machine[k], manifests[k], sizeof manifests[k]);
        inputs[3 + TL_MCALIB_TRACE_FILES + k] = manifests[k];
    }
    int refused = tl_mcli_outputs_refused(cli, NULL, inputs, sizeof inputs / sizeof inputs[0]);
    if (refused) return refused;
    /* the reader's line names the file and the reason, after the option
     * that named it (a default's file may be missing from a copy) */
    const struct {
        const char *option, *path;
        tl_status (*read)(tl_mcalib *c, const char *path);
    } reads[] = {{"--tristream", tri, tl_mcalib_read_tristream},
                 {"--traces", traces, tl_mcalib_read_traces},
                 {"--comm", comm, tl_mcalib_read_comm},
                 {"--stream", stream, tl_mcalib_read_stream}};
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        tl_error_context k;
        tl_error_context_begin(&k, reads[i].option);
        tl_status st = reads[i].read(&c, reads[i].path);
        tl_error_context_end(&k);
        if (st != TL_OK) return 1;
    }
    if (of_one_gpu(&c, machine, NMACHINE, traces, stream) != TL_OK) return 1;
    if (tl_mcli_out_folder_unmade(cli, o.out)) return 1;
    if (tl_model_engine_load() != TL_OK) return 1;
    fprintf(stderr, "trilap-model: fitting the fixed costs and the NCCL rate (about 40 simulations)\n");
    if (tl_mfit_calibrate(&c, cli->workdir) != TL_OK) {
        tl_mcli_failed("calibration failed");
        return 1;
    }
    if (tl_mcalib_save(&c, o.out) != TL_OK) return 1;
    return 0;
}
