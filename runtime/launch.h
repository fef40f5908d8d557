/* Launcher: runs `rank_main` once per rank, either as MPI ranks
 * (mpirun -np N prog; detected from OMPI_/PMI_/PMIX_/MV2_/SLURM env) or as
 * one thread per GPU in one process (prog --gpus N, like nccl-tests' -g).
 * The choice is automatic; --launcher threads|mpi forces it.
 *
 *   int main(int argc, char **argv) {
 *       tl_launch_opts lo; my_opts o;
 *       ... tl_opts_parse with the group {"Launch", tl_launch_options, tl_launch_noptions, &lo} ...
 *       return tl_launch_run("trilap-bench", &lo, argc, argv, bench_rank_main, &o);
 *   }
 *
 * The return value is the process exit code: 0 when every rank returned
 * TL_OK, 1 otherwise (the failing rank has printed why). */
#ifndef TL_LAUNCH_H
#define TL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/ctx.h"
#include "runtime/options.h"

typedef struct tl_launch_opts {
    int64_t gpus;          /* thread mode: ranks in this process [number of visible GPUs, or 1 without a GPU] */
    int launcher;          /* tl_launch_mode: auto|threads|mpi */
    int64_t ranks;         /* thread mode without GPUs: host ranks (0: same as --gpus) */
    int64_t timeout_s;     /* NCCL watchdog: abort a collective stuck this long */
    int no_gpu;            /* run host-only even where GPUs exist */
    int device_comm;       /* tl_devcomm_kind: nccl|host (runtime/devcomm.h) */
} tl_launch_opts;

/* The launch modes by tl_launch_mode, the table --launcher indexes. */
typedef struct tl_launch_mode_info {
    const char *name;
} tl_launch_mode_info;
extern const tl_launch_mode_info tl_launch_modes[3];

extern const tl_option tl_launch_options[];
extern const size_t tl_launch_noptions;

typedef tl_status (*tl_rank_main_fn)(tl_ctx *ctx, void *arg);

/* Detect the mode, start ranks, bind devices by local rank, set each
 * rank's log prefix, build ctx->hc, call rank_main, agree on the outcome,
 * tear down. Ranks outnumbering the GPUs of a host are an error, except
 * with --device-comm host, where they share them round-robin
 * (ctx->gpu_shared: NCCL refuses shared GPUs, the host-staged provider
 * does not): one line, exit 2. Returns the exit status (0, 1, 2). */
int tl_launch_run(const char *program, const tl_launch_opts *lo, int argc, char **argv,
                  tl_rank_main_fn rank_main, void *arg);

/* What the environment says (for tests and the manifest). */
tl_launch_mode tl_launch_detect(void);
/* The number of processes mpirun (or srun with PMI) started, from their
 * environment, before MPI starts: 0 where none says it. A program refuses
 * a run that needs one process before the launch with it, as it refuses
 * --ranks N (exit 2), where a refusal inside the ranks exits 1. */
int tl_launch_env_size(void);

/* The launch options typed that the run would not use, refused in one
 * line (1 returned): --gpus with --ranks (--ranks sets the thread
 * launcher's ranks; they share the visible GPUs), --gpus with --no-gpu,
 * and, where the run uses no GPU (`no_gpu_because` says why, e.g.
 * "--backend host"; NULL when it does), --device-comm and
 * --nccl-timeout. Call after tl_opts_parse, before res->positional is
 * freed. */
int tl_launch_opts_refused(const char *program, const tl_launch_opts *lo, const tl_optresult *res,
                           const char *no_gpu_because);

/* Under mpirun every process reads the same command line, so a refusal
 * before the launch (a bad option, an output that cannot be written) came
 * once per rank. Between begin and end only local rank 0 of each host
 * (from the MPI launcher's environment) writes to stderr; the others'
 * is held. A held process that exits with a failure first waits 5 s for
 * mpirun to end the job when local rank 0 exits with the same line; still
 * alive then (its failure was its own), it writes what it held. Outside
 * MPI, and where the local rank is unknown, nothing changes. End before
 * tl_launch_run: what a rank says from then on is its own. */
typedef struct tl_launch_quiet_state tl_launch_quiet_state;
typedef struct tl_launch_quiet {
    tl_launch_quiet_state *state; /* NULL: nothing held */
} tl_launch_quiet;
void tl_launch_quiet_begin(tl_launch_quiet *q);
void tl_launch_quiet_end(tl_launch_quiet *q);

#endif
