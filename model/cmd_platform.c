/* trilap-model platform: a built-in platform written as a SimGrid platform
 * file, to read or to edit and pass back with --platform-file. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/cli.h"
#include "model/platform.h"

typedef struct plat_opts {
    const char *name, *out, *calib;
    int64_t gpus;
    double nccl_rate;
} plat_opts;

static const tl_option plat_options[] = {
    {.name = "platform", .type = TL_OPT_STRING, .offset = offsetof(plat_opts, name), .def = "a100-hdr",
     .metavar = "NAME", .help = "h200-nvlink|a100-hdr|h100-ndr|rtx6000-pcie"},
    {.name = "gpus", .type = TL_OPT_INT, .offset = offsetof(plat_opts, gpus), .def = "8", .metavar = "N",
     .help = "GPUs (ranks)", .min = 1, .max = TL_MPLATFORM_MAX_GPUS},
    {.name = "calib", .type = TL_OPT_STRING, .offset = offsetof(plat_opts, calib), .def = "results/model/calib-h200.txt",
     .metavar = "FILE", .help = "calibration file whose nccl_rate the file gets, as solver applies it to a built-in "
                                "platform"},
    {.name = "nccl-rate", .type = TL_OPT_DOUBLE, .offset = offsetof(plat_opts, nccl_rate), .metavar = "F",
     .help = "NCCL progress beside a compute kernel, instead of the calibration's nccl_rate", .min = 1e-6, .max = 1},
    {.name = "out", .short_name = 'o', .type = TL_OPT_STRING, .offset = offsetof(plat_opts, out), .metavar = "XML",
     .help = "file to write (required)"},
};

int tl_mcmd_platform(int argc, char **argv, tl_mcli *cli)
{
    plat_opts o;
    tl_optgroup g = {"Platform", plat_options, sizeof plat_options / sizeof plat_options[0], &o};
    tl_optspec spec = {.program = "trilap-model", .command = "platform", .usage = "--out XML [options]",
                       .purpose = "Writes a built-in platform as a SimGrid platform file.", .groups = &g, .ngroups = 1};
    int rc = tl_mcli_parse(cli, &spec, argc, argv);
    if (rc >= 0) return rc;
    const tl_mplatform *p = tl_mplatform_find(o.name);
    if (!p) {
        tl_mcli_error("invalid --platform '%s' (%s)", o.name, tl_mplatform_choices());
        return 2;
    }
    int gpus = (int)o.gpus;
    char list[32];
    snprintf(list, sizeof list, "%d", gpus);
    if ((rc = tl_mplatform_gpus_refused(p, &gpus, 1, list)) != 0) return rc;
    if (!o.out) {
        tl_mcli_error("platform needs --out XML (try --help)");
        return 2;
    }
    /* the calibration's rate, so that the file and the built-in platform
     * predict alike (the default was 1: NCCL beside compute at full speed) */
    int rate_given = tl_mcli_given(cli, &o.nccl_rate);
    if (rate_given && tl_mcli_given(cli, &o.calib)) {
        tl_mcli_error("--nccl-rate and --calib both set the NCCL rate: give one (try --help)");
        return 2;
    }
    char calib[4096];
    const char *inputs[] = {rate_given ? NULL
                                       : tl_mcli_tree_path(o.calib, tl_mcli_given(cli, &o.calib), calib, sizeof calib)};
    int refused = tl_mcli_outputs_refused(cli, NULL, inputs, 1);
    if (refused) return refused;
    if (!rate_given) {
        tl_mcalib c;
        if (tl_mcalib_load(&c, inputs[0]) != TL_OK) return 1; /* the reader's line names it */
        o.nccl_rate = c.nccl_rate;
    }
    tl_mplatform_params q = {.nccl_rate = o.nccl_rate, .port_lat_us = -1};
    if (tl_mcli_out_folder_unmade(cli, o.out)) return 1;
    if (tl_mplatform_write(p, &q, (int)o.gpus, o.out) != TL_OK) return 1; /* tl_out's line names it */
    return 0;
}
