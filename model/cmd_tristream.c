/* trilap-model tristream: the microbenchmark's parts and variants on the two
 * GPUs of the node the calibration measured, predicted from it, beside what
 * was measured there. The node is h200-nvlink's two-GPU layout with the
 * calibration's port: every time the simulation takes comes from the
 * calibration, so the layout's name is not the GPU's. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cli.h"
#include "model/fit.h"

typedef struct ts_opts {
    const char *calib, *results;
} ts_opts;

static const tl_option ts_options[] = {
    {.name = "calib", .type = TL_OPT_STRING, .offset = offsetof(ts_opts, calib), .def = "results/model/calib-h200.txt",
     .metavar = "FILE", .help = "calibration file (trilap-model calibrate)"},
    {.name = "results", .type = TL_OPT_STRING, .offset = offsetof(ts_opts, results), .metavar = "CSV",
     .help = "also append the rows to CSV (header once; manifest.txt beside it)"},
};

static const char ts_header[] = "variant,measured_us,predicted_us,error_pct,compute_us,exposed_p2p_us,exposed_coll_us,role";

int tl_mcmd_tristream(int argc, char **argv, tl_mcli *cli)
{
    ts_opts o;
    tl_optgroup g = {"Tristream", ts_options, sizeof ts_options / sizeof ts_options[0], &o};
    tl_optspec spec = {.program = "trilap-model", .command = "tristream", .usage = "[options]",
                       .purpose = "Predicts the three-stream microbenchmark on the two GPUs of the calibration's node "
                                  "and compares with the measured run the calibration names.",
                       .groups = &g, .ngroups = 1};
    int rc = tl_mcli_parse(cli, &spec, argc, argv);
    if (rc >= 0) return rc;
    tl_mcalib c;
    char calib[4096];
    o.calib = tl_mcli_tree_path(o.calib, tl_mcli_given(cli, &o.calib), calib, sizeof calib);
    const char *inputs[] = {o.calib};
    int refused = tl_mcli_outputs_refused(cli, ts_header, inputs, 1);
    if (refused) return refused;
    if (tl_mcalib_load(&c, o.calib) != TL_OK) return 1; /* the reader's line names it */
    if (tl_model_engine_load() != TL_OK) return 1;
    const struct {
        const char *variant;
        double measured;
        const char *role;
    } rows[] = {
        {"allreduce-only", c.ts_allreduce_us, "predicted (alpha from the comm results)"},
        {"ring-only", c.ts_ring_us, "predicted"},
        {"daxpy-only", c.ts_daxpy_us, "input (one-GPU kernel time)"},
        {"two-stream", c.ts_two_us, "predicted"},
        {"three-naive", c.ts_naive_us, "predicted"},
        {"three-split", c.ts_split_us, "fitted (nccl_rate)"},
    };
    char extra[4200];
    snprintf(extra, sizeof extra, "model: tristream (PREDICTED: SimGrid, not measured)\ncalibration: %s\n", o.calib);
    tl_mcsv w;
    if (tl_mcsv_begin(&w, cli, o.results, ts_header, extra) != TL_OK) return 1;
    tl_mcli_preamble(stdout, cli, "tristream", &c, o.calib);
    /* before: "platform: h200-nvlink" whatever GPU the calibration was measured on */
    const char *gpu = !c.gpu[0]                                ? "GPU not named by its manifests"
                      : !strcmp(c.gpu, TL_MCALIB_GPU_UNNAMED) ? "a GPU its inputs do not name"
                                                               : c.gpu;
    printf("# platform: the calibration's node, 2 GPUs (%s), h200-nvlink's layout at the measured port %.0f GB/s\n",
           gpu, c.port_gbs);
    printf("#%15s %10s %10s %8s %9s %9s %9s  %s\n", "variant", "measured", "predicted", "error", "compute", "exp.p2p",
           "exp.coll", "role");
    printf("#%15s %10s %10s %8s %9s %9s %9s\n", "", "(us)", "(us)", "(%)", "(us)", "(us)", "(us)");
    double pred[6];
    int bad = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tl_mresult r;
        if (tl_mfit_tristream(&c, rows[i].variant, cli->workdir, &r) != TL_OK) {
            tl_mcli_failed("simulating %s failed", rows[i].variant);
            tl_mcsv_end(&w, 0);
            return 1;
        }
        pred[i] = 1e6 * r.iter_s;
        double err = 100 * (pred[i] - rows[i].measured) / rows[i].measured;
        bad += fabs(err) > 10;
        printf(" %15s %10.2f %10.2f %+8.1f %9.2f %9.2f %9.2f  %s\n", rows[i].variant, rows[i].measured, pred[i], err,
               1e6 * r.compute_s, 1e6 * r.exposed_p2p_s, 1e6 * r.exposed_coll_s, rows[i].role);
        if (tl_mcsv_row(&w, "%s,%.3f,%.3f,%.2f,%.3f,%.3f,%.3f,%s", rows[i].variant, rows[i].measured, pred[i], err,
                        1e6 * r.compute_s, 1e6 * r.exposed_p2p_s, 1e6 * r.exposed_coll_s, rows[i].role) != TL_OK) {
            tl_mcsv_end(&w, 0);
            return 1;
        }
    }
    /* the order of the three schedule variants, measured and predicted */
    int mo = (c.ts_split_us < c.ts_two_us) + 2 * (c.ts_two_us < c.ts_naive_us);
    int po = (pred[5] < pred[3]) + 2 * (pred[3] < pred[4]);
    printf("# order three-split < two-stream < three-naive: measured %s, predicted %s\n", mo == 3 ? "yes" : "no",
           po == 3 ? "yes" : "no");
    printf("# %zu rows, %d beyond 10%%\n", sizeof rows / sizeof rows[0], bad);
    if (tl_mcsv_end(&w, 1) != TL_OK) return 1;
    return 0;
}
