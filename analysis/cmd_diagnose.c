/* trilap-analyze diagnose RUN_DIR: lost-overlap findings with evidence and
 * remedies. The rules are rows of one table (name, what is measured, the
 * threshold option, a verdict function that also writes the evidence, the
 * remedy); the report is written once over it. Rules and thresholds are
 * documented in analysis/README.md ("Diagnosis rules").
 *
 * This file: the command's options and its run. Its parts (diagnose_impl.h):
 * each rank's facts (diagnose_facts.c), the verdicts (diagnose_verdicts.c)
 * and how they write evidence (diagnose_evidence.c), the rule table
 * (diagnose_rules.c), the report (diagnose_report.c). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/diagnose_impl.h"

#define PCT_OPT(n, field, d, text)                                                                                \
    {.name = n, .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, field), .def = d, .metavar = "PCT",         \
     .help = text, .min = 0, .max = 100}

int tl_an_cmd_diagnose(int argc, char **argv)
{
    diag_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        PCT_OPT("min-comm-share", min_comm_share, "2", "communication counts as substantial from this % of the window"),
        PCT_OPT("serial-overlap", serial_overlap, "5", "p2p/coll overlap below this % means serialised"),
        PCT_OPT("both-iters", both_iters, "50", "p2p and coll issued together: both in this % of iterations"),
        PCT_OPT("hidden-min", hidden_min, "5", "hidden communication below this % means no comm/compute overlap"),
        {.name = "starve-ratio", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, starve_ratio), .def = "1.5",
         .metavar = "X", .help = "median overlapped / median alone duration that means starved", .min = 1,
         .max = 1e6},
        PCT_OPT("starve-share", starve_share, "2", "starved only if the extra working time is this % of the window"),
        {.name = "min-samples", .type = TL_OPT_INT, .offset = offsetof(diag_opts, min_samples), .def = "3",
         .metavar = "N", .help = "instances needed on each side for the starvation rule", .min = 1, .max = 1e9},
        PCT_OPT("launch-share", launch_share, "25", "compute-lane time in launch gaps that means launch-bound"),
        {.name = "short-kernel-us", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, short_kernel_us),
         .def = "20", .metavar = "US", .help = "launch-bound needs a median compute kernel at most this long",
         .min = 0, .max = 1e9},
        PCT_OPT("exposed-share", exposed_share, "10", "communication not under compute from this % of the window"),
        PCT_OPT("wait-share", wait_share, "30", "late ranks: this % of the matched operations' time spent waiting"),
        PCT_OPT("staging-share", staging_share, "5", "host-carried communication from this % of the window"),
        PCT_OPT("queued-share", queued_share, "5", "communication queued after its launch, this % of the window"),
    };
    const tl_optgroup groups[] = {
        {.title = "rules", .opts = own, .nopts = sizeof own / sizeof own[0], .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "diagnose", .usage = "[options] RUN_DIR",
                             .purpose = "Lost-overlap findings (serialised communicators or host lane, no "
                                        "comm/compute overlap, exposed communication, late ranks, queued "
                                        "communication, host staging, "
                                        "starved communication, launch-bound compute) with evidence and remedies.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_an_ops ops;
    memset(&ops, 0, sizeof ops);
    diag_state ds = {.o = &o, .ops = &ops};
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    oo.slices = 1;
    oo.ops_out = &ops;
    oo.match = 1;
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    ds.names = names;
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, tl_diag_rank_facts, &ds, &res, &nr), st, fail);
    ds.res = res;
    TL_TRYGOTO(tl_diag_report(pr.positional[0], &o, &ds, nr), st, fail);
fail:
    tl_diag_free(&ds);
    tl_an_ops_free(&ops);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
