/* trilap-analyze: breakdowns, overlap metrics, lost-overlap diagnosis,
 * timelines and Perfetto export of trilap traces. One subcommand per file. */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/kineto.h"
#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/tmpfile.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} cmds[] = {
    {"breakdown", tl_an_cmd_breakdown, "kernel-time breakdown per name and category (RUN_DIR...)"},
    {"overlap", tl_an_cmd_overlap, "overlap metrics per rank and iteration, with reconciliation (RUN_DIR)"},
    {"diagnose", tl_an_cmd_diagnose, "lost-overlap findings with evidence and remedies (RUN_DIR)"},
    {"timeline", tl_an_cmd_timeline, "gnuplot-ready timeline rows of a few iterations (RUN_DIR -o FILE.csv)"},
    {"perfetto", tl_an_cmd_perfetto,
     "Chrome/Perfetto trace JSON, gzip'd for a .gz name (RUN_DIR -o trace.json[.gz])"},
    {"compare", tl_an_cmd_compare, "two runs or results files side by side, or one results file's variants against a "
                                   "baseline (RUN_A [RUN_B])"},
    {"import", tl_an_cmd_import, "an Nsight Systems sqlite export or PyTorch profiler traces as trilap trace files "
                                 "(FILE.sqlite|TRACE.json[.gz]|DIR -o DIR)"},
    {"collectives", tl_an_cmd_collectives, "PyTorch profiler traces, Nsight Systems exports: each NCCL kernel's "
                                           "operation, process group, launch delay and what it waited behind; skew "
                                           "across ranks (TRACE.json[.gz]|DIR|FILE.sqlite)"},
    {"sweep", tl_an_cmd_sweep,
     "microbenchmark results per size: median/min/max per variant, ideal bound (RESULTS.csv)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: trilap-analyze COMMAND [options] ARGS...\n"
                 "Analyse trilap traces (run directories holding trace.rank<R>.csv[.gz]), Nsight Systems sqlite "
                 "exports, PyTorch profiler (Kineto) traces (TRACE.json[.gz] or a folder of them) and results CSV "
                 "files.\n\n"
                 "commands:\n");
    /* the descriptions in one column past the longest name (a fixed 10
     * pushed collectives' one column to the right) */
    int w = 0;
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if ((int)strlen(cmds[i].name) > w) w = (int)strlen(cmds[i].name);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) fprintf(out, "  %-*s  %s\n", w, cmds[i].name, cmds[i].what);
    fprintf(out, "\n`trilap-analyze COMMAND --help` lists the options of one command; metrics are defined in "
                 "analysis/README.md.\n");
}

int main(int argc, char **argv)
{
    tl_log_set_prefix("trilap-analyze", -1);
    if (tl_tmpfile_handle_signals("trilap-analyze") != TL_OK) return 1;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("trilap-analyze %s (git %s)\n", TL_VERSION, TL_GIT_COMMIT);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) {
            int rc = cmds[i].fn(argc - 1, argv + 1);
            if (rc != 0) tl_tmpfile_cleanup(); /* temporary outputs, folders made for them */
            return rc;
        }
    fprintf(stderr, "trilap-analyze: unknown command '%s' (try --help)\n", argv[1]);
    return 2;
}
