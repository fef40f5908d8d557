/* trilap-model: predictions of trilap's schedules at scale on SimGrid.
 * One program, one option table per subcommand (model/cmd_*.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "model/cli.h"
#include "model/model.h"
#include "runtime/launch.h"
#include "runtime/tmpfile.h"

static const struct {
    const char *name, *purpose;
    tl_mcmd_fn fn;
    int needs_simgrid;
} cmds[] = {
    {"calibrate", "measured results -> a calibration file (the fixed costs and rates fitted by simulation)",
     tl_mcmd_calibrate, 1},
    {"tristream", "the three-stream microbenchmark's variants on two H200s, predicted against measured",
     tl_mcmd_tristream, 1},
    {"solver", "Pipe-PCG or Pipe-BiCGStab under each schedule on 1-4096 GPUs of a platform (predicted)", tl_mcmd_solver, 1},
    {"fdtd", "seed paper 2's four-GPU FDTD tables (peer, host-staged, enlarged ghosts), predicted against the paper",
     tl_mcmd_fdtd, 1},
    {"platform", "write a built-in platform as a SimGrid platform file", tl_mcmd_platform, 0},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: trilap-model SUBCOMMAND [options]\n"
                 "Predicts trilap's schedules and exchange strategies at scale with SimGrid, from one- and two-GPU\n"
                 "measurements. Every time it prints is a prediction.\n\nSubcommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) fprintf(out, "  %-10s %s\n", cmds[i].name, cmds[i].purpose);
    fprintf(out, "\n`trilap-model SUBCOMMAND --help` lists its options.\n");
}

static void error_line(const char *fmt, va_list ap)
{
    fputs("trilap-model: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void tl_mcli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
}

void tl_mcli_failed(const char *fmt, ...)
{
    if (tl_error_reported()) return;
    va_list ap;
    va_start(ap, fmt);
    error_line(fmt, ap);
    va_end(ap);
}

/* A subcommand run as the one rank of a thread launch: the manifest beside
 * --results gathers its lines through a rank context (runtime/results.h),
 * as trilap-solve's and trilap-fdtd's do. The rank returns its exit
 * status here and TL_OK to the launcher, which then says nothing more. */
typedef struct sub_call {
    tl_mcmd_fn fn;
    int argc;
    char **argv;
    tl_mcli *cli;
    int rc;
} sub_call;

static tl_status sub_rank_main(tl_ctx *ctx, void *arg)
{
    sub_call *s = arg;
    s->cli->ctx = ctx;
    s->rc = s->fn(s->argc, s->argv, s->cli);
    s->cli->ctx = NULL;
    return TL_OK;
}

static int run_sub(tl_mcmd_fn fn, int argc, char **argv, tl_mcli *cli)
{
    sub_call s = {.fn = fn, .argc = argc - 1, .argv = argv + 1, .cli = cli, .rc = 1};
    /* one host rank, whatever launcher started this process: the
     * simulations are its children, no GPU is touched */
    tl_launch_opts lo = {.gpus = 1, .ranks = 1, .launcher = TL_LAUNCH_THREADS, .no_gpu = 1};
    int rc = tl_launch_run("trilap-model", &lo, argc, argv, sub_rank_main, &s);
    return rc ? rc : s.rc;
}

int main(int argc, char **argv)
{
    if (tl_tmpfile_handle_signals("trilap-model") != TL_OK) return 1;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("trilap-model %s (%s)\n", TL_VERSION, TL_GIT_COMMIT);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(argv[1], cmds[i].name) != 0) continue;
        if (cmds[i].needs_simgrid && !tl_model_have_simgrid()) {
            int help = 0;
            for (int a = 2; a < argc; a++) help |= !strcmp(argv[a], "--help") || !strcmp(argv[a], "-h");
            if (!help) {
                tl_mcli_error("built without SimGrid, the simulation engine: install libsimgrid-dev "
                              "(mk/debian-packages.txt) and rebuild");
                return 3;
            }
        }
        tl_log_set_prefix("trilap-model", -1);
        tl_mcli cli = {0};
        snprintf(cli.workdir, sizeof cli.workdir, "%s/trilap-model-XXXXXX",
                 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(cli.workdir)) {
            tl_mcli_error("cannot make a work directory under %s: %s", cli.workdir, strerror(errno));
            return 1;
        }
        /* gone with the program, however it ends (its platform files are
         * registered while they exist: model/fit.c) */
        if (tl_tmpfile_add(cli.workdir, TL_TMP_FOLDER) != TL_OK) {
            rmdir(cli.workdir);
            return 1;
        }
        int rc = run_sub(cmds[i].fn, argc, argv, &cli);
        tl_tmpfile_cleanup();
        return rc;
    }
    tl_mcli_error("unknown subcommand '%s' (try --help)", argv[1]);
    return 2;
}
