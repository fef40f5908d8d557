/* The launcher: MPI ranks (one process each) or one thread per rank in one
 * process, the same rank_main either way. */
#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/comm_impl.h"
#include "runtime/devcomm.h"
#include "runtime/gpu.h"
#include "runtime/timing.h"
#include "runtime/tmpfile.h"

/* How long a failed rank waits for the others to reach the end before the
 * job is aborted: long enough for ranks that agreed on the failure, or
 * noticed it in a collective or the NCCL watchdog. TRILAP_ABORT_GRACE_S
 * sets it (ranks that take longer to wind down; the tests, which induce
 * stuck ranks, use less). */
#define TL_LAUNCH_GRACE_S 10.0

/* The grace period: TRILAP_ABORT_GRACE_S, else TL_LAUNCH_GRACE_S. */
static tl_status launch_grace(double *grace_s)
{
    const char *name = "TRILAP_ABORT_GRACE_S", *t = getenv(name);
    double v = TL_LAUNCH_GRACE_S;
    *grace_s = v; /* set on the error path too: gcc's -Wmaybe-uninitialized at the caller */
    TL_CHECK(!t || !*t || (tl_opts_parse_double(t, &v) == TL_OK && v > 0 && v <= 3600), TL_ERR_INVAL,
             "%s='%s': seconds a failed rank waits for the others, more than 0 and at most 3600", name, t);
    *grace_s = v;
    return TL_OK;
}

const tl_option tl_launch_options[] = {
    {.name = "gpus", .short_name = 'g', .type = TL_OPT_INT, .offset = offsetof(tl_launch_opts, gpus),
     .def = "0", .metavar = "N",
     .help = "thread launcher: ranks in this process, one GPU each (0: every visible GPU, 1 without GPUs)",
     .min = 0, .max = 4096},
    {.name = "launcher", .type = TL_OPT_ENUM, .offset = offsetof(tl_launch_opts, launcher), .def = "auto",
     .table = tl_launch_modes, .table_stride = sizeof tl_launch_modes[0], .table_count = 3,
     .help = "how ranks start; auto: mpi when started by mpirun/srun, else threads"},
    {.name = "ranks", .type = TL_OPT_INT, .offset = offsetof(tl_launch_opts, ranks), .def = "0", .metavar = "N",
     .help = "thread launcher: number of ranks, e.g. host-only ranks (0: as --gpus)", .min = 0, .max = 4096},
    {.name = "nccl-timeout", .type = TL_OPT_INT, .offset = offsetof(tl_launch_opts, timeout_s), .def = "300",
     .metavar = "S", .help = "give up GPU waits and abort NCCL communicators stuck this long, in seconds", .min = 1, .max = 86400},
    {.name = "no-gpu", .type = TL_OPT_FLAG, .offset = offsetof(tl_launch_opts, no_gpu), .def = "0",
     .help = "host-only ranks even where GPUs exist"},
    {.name = "device-comm", .type = TL_OPT_ENUM, .offset = offsetof(tl_launch_opts, device_comm), .def = "nccl",
     .table = tl_devcomm_kinds, .table_stride = sizeof tl_devcomm_kinds[0], .table_count = TL_DEVCOMM_COUNT,
     .help = "device-buffer communication: nccl (one GPU per rank), or host-staged (ranks may share a GPU)"},
};
const tl_launch_mode_info tl_launch_modes[3] = {
    [TL_LAUNCH_AUTO] = {"auto"}, [TL_LAUNCH_THREADS] = {"threads"}, [TL_LAUNCH_MPI] = {"mpi"}};

const size_t tl_launch_noptions = sizeof tl_launch_options / sizeof tl_launch_options[0];

tl_launch_mode tl_launch_detect(void)
{
    /* SLURM_PROCID alone is not enough: srun also starts plain programs */
    static const char *const keys[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = getenv(keys[i]);
        if (v && *v) return TL_LAUNCH_MPI;
    }
    return TL_LAUNCH_THREADS;
}

int tl_launch_env_size(void)
{
    static const char *const keys[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS"};
    if (tl_launch_detect() != TL_LAUNCH_MPI) return 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = getenv(keys[i]);
        char *end;
        long n = v && *v ? strtol(v, &end, 10) : 0;
        if (v && *v && !*end && n > 0 && n < 1 << 24) return (int)n;
    }
    return 0;
}

int tl_launch_opts_refused(const char *program, const tl_launch_opts *lo, const tl_optresult *res,
                           const char *no_gpu_because)
{
    if (tl_opts_given(res, &lo->gpus) && tl_opts_given(res, &lo->ranks)) {
        fprintf(stderr, "%s: --gpus and --ranks: give one (--ranks N ranks share the visible GPUs; --gpus N ranks "
                        "take one GPU each)\n", program);
        return 1;
    }
    if (tl_opts_given(res, &lo->gpus) && lo->no_gpu) {
        fprintf(stderr, "%s: --gpus and --no-gpu: give one (--ranks N for host-only ranks)\n", program);
        return 1;
    }
    const char *gpu_only = !no_gpu_because                            ? NULL
                           : tl_opts_given(res, &lo->device_comm) ? "--device-comm"
                           : tl_opts_given(res, &lo->timeout_s)   ? "--nccl-timeout"
                                                                  : NULL;
    if (!gpu_only) return 0;
    fprintf(stderr, "%s: %s: this run uses no GPU (%s)\n", program, gpu_only, no_gpu_because);
    return 1;
}

/* This process's rank on its host, as the MPI launcher set it; -1 unknown. */
static int env_local_rank(void)
{
    static const char *const keys[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK",
                                       "SLURM_LOCALID"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = getenv(keys[i]);
        char *end;
        long r = v && *v ? strtol(v, &end, 10) : -1;
        if (v && *v && !*end && r >= 0 && r < INT_MAX) return (int)r;
    }
    return -1;
}

/* On the heap: the exit handler reads it after main's frame is gone. */
struct tl_launch_quiet_state {
    int saved;  /* stderr as it was */
    int held;   /* what was written meanwhile (an unlinked file) */
    int active; /* between begin and end */
};

/* Put stderr back; with `say`, after writing what was held. */
static void quiet_release(tl_launch_quiet_state *s, int say)
{
    fflush(stderr);
    dup2(s->saved, STDERR_FILENO);
    if (say && lseek(s->held, 0, SEEK_SET) == 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(s->held, buf, sizeof buf)) > 0)
            if (write(STDERR_FILENO, buf, (size_t)n) != n) break;
    }
    close(s->saved);
    close(s->held);
    s->active = 0;
}

static void quiet_at_exit(int status, void *arg)
{
    tl_launch_quiet_state *s = arg;
    if (!s->active) return;
    if (status != 0) {
        /* local rank 0 found the same and exits with it: mpirun ends this
         * process meanwhile (its SIGTERM line goes to the held file) */
        struct timespec t = {.tv_sec = 5};
        while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
    }
    quiet_release(s, status != 0);
}

void tl_launch_quiet_begin(tl_launch_quiet *q)
{
    q->state = NULL;
    if (tl_launch_detect() != TL_LAUNCH_MPI || env_local_rank() <= 0) return;
    tl_launch_quiet_state *s = malloc(sizeof *s);
    FILE *held = tmpfile();
    if (!s || !held) {
        free(s);
        if (held) fclose(held);
        return; /* every rank speaks, as before */
    }
    fflush(stderr);
    s->held = fcntl(fileno(held), F_DUPFD_CLOEXEC, 3);
    s->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    fclose(held);
    s->active = 1;
    int registered = s->held >= 0 && s->saved >= 0 && on_exit(quiet_at_exit, s) == 0;
    if (!registered || dup2(s->held, STDERR_FILENO) < 0) {
        if (s->held >= 0) close(s->held);
        if (s->saved >= 0) close(s->saved);
        s->active = 0; /* a registered handler finds it inactive */
        if (!registered) free(s);
        return;
    }
    q->state = s;
}

void tl_launch_quiet_end(tl_launch_quiet *q)
{
    if (!q->state || !q->state->active) return;
    quiet_release(q->state, 0); /* held by the exit handler's registration: not freed */
    q->state = NULL;
}

static void ctx_init(tl_ctx *ctx, const char *program, int argc, char **argv, void *arg)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->program = program;
    ctx->device = -1;
    ctx->argc = argc;
    ctx->argv = argv;
    ctx->opts = arg;
}

/* A rank's GPU state left behind by rank_main: destroy it when every rank
 * succeeded, else abort the communicators (a destroy could wait on peers). */
static void gpu_cleanup(tl_ctx *ctx, int any_failed)
{
    if (!ctx->gpu) return;
    if (any_failed) tl_gpu_abort(ctx);
    else tl_gpu_destroy(ctx);
}

/* A usage error (exit 2). Every rank of a host finds the same, so only
 * the one that `says` prints it: one line, not one per rank. */
static tl_status check_gpus(const tl_launch_opts *lo, int ranks_here, int ngpu, const char *how, int says)
{
    if (ngpu > 0 && ranks_here > ngpu && lo->device_comm != TL_DEVCOMM_HOST) {
        if (!says) return TL_ERR_INVAL;
        return TL_FAIL(TL_ERR_INVAL, "%d ranks %s but only %d GPU%s visible; use fewer ranks, --device-comm host to "
                       "share GPUs, or --no-gpu for host-only ranks",
                       ranks_here, how, ngpu, ngpu == 1 ? " is" : "s are");
    }
    return TL_OK;
}

/* Round-robin over the host's GPUs; shared when ranks outnumber them. */
static void bind_device(tl_ctx *ctx, const tl_launch_opts *lo, int local_rank, int local_size, int ngpu)
{
    ctx->device_comm = lo->device_comm;
    ctx->timeout_s = (double)lo->timeout_s;
    ctx->device = ngpu > 0 ? local_rank % ngpu : -1;
    ctx->host_only = lo->no_gpu;
    ctx->gpu_shared = ngpu > 0 && local_size > ngpu;
}

/* ---- threads ------------------------------------------------------------- */

typedef struct launch_common {
    const char *program;
    int argc;
    char **argv;
    tl_rank_main_fn fn;
    void *arg;
    int nranks, ngpu;
    const tl_launch_opts *lo;
    tl_threadcomm_shared *sh;
    /* completion, watched by the launching thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int finished, first_failed;
    int64_t failed_at_ns;
    double grace_s; /* launch_grace */
} launch_common;

typedef struct rank_thread {
    launch_common *lc;
    int rank;
    tl_status st;
    pthread_t tid;
} rank_thread;

static void *rank_thread_main(void *p)
{
    rank_thread *rt = p;
    launch_common *lc = rt->lc;
    tl_ctx ctx;
    ctx_init(&ctx, lc->program, lc->argc, lc->argv, lc->arg);
    ctx.rank = ctx.local_rank = rt->rank;
    ctx.size = ctx.local_size = lc->nranks;
    ctx.mode = TL_LAUNCH_THREADS;
    bind_device(&ctx, lc->lo, rt->rank, lc->nranks, lc->ngpu);
    tl_log_set_prefix(lc->program, lc->nranks > 1 ? rt->rank : -1);

    tl_status st = tl_threadcomm_create(lc->sh, rt->rank, &ctx.hc);
    if (st == TL_OK && ctx.device >= 0) st = tl_gpu_bind(ctx.device);
    if (st == TL_OK) st = lc->fn(&ctx, lc->arg);
    if (st != TL_OK) {
        tl_comm_announce_failure(&ctx); /* before the abort, which may wait on the peers */
        gpu_cleanup(&ctx, 1);
        if (st != TL_ERR_REMOTE && (tl_error_debug() || !tl_error_reported())) tl_log("failed: %s", tl_strerror(st));
        /* wake everyone waiting for this rank */
        tl_threadcomm_fail(lc->sh, rt->rank);
    } else {
        st = tl_comm_agree(&ctx, TL_OK);
        gpu_cleanup(&ctx, st != TL_OK);
    }
    tl_hostcomm_destroy(&ctx.hc);
    pthread_mutex_lock(&lc->mu);
    rt->st = st;
    lc->finished++;
    if (st != TL_OK && lc->first_failed < 0) {
        lc->first_failed = rt->rank;
        lc->failed_at_ns = tl_clock_ns();
    }
    pthread_cond_broadcast(&lc->cv);
    pthread_mutex_unlock(&lc->mu);
    return NULL;
}

/* Wait for every started rank; after a failure, at most the grace period.
 * Returns 0 when all finished. */
static int wait_ranks(launch_common *lc, int started)
{
    pthread_mutex_lock(&lc->mu);
    while (lc->finished < started) {
        if (lc->first_failed >= 0 && (double)(tl_clock_ns() - lc->failed_at_ns) * 1e-9 > lc->grace_s) break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000;
        if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&lc->cv, &lc->mu, &until);
    }
    int stuck = started - lc->finished, first = lc->first_failed;
    pthread_mutex_unlock(&lc->mu);
    if (stuck > 0)
        tl_log("%d rank%s still running %.3g s after rank %d failed; aborting", stuck, stuck == 1 ? " is" : "s are",
               lc->grace_s, first);
    return stuck;
}

static int run_threads(const char *program, const tl_launch_opts *lo, int argc, char **argv,
                       tl_rank_main_fn fn, void *arg, double grace_s)
{
    launch_common lc = {.program = program, .argc = argc, .argv = argv, .fn = fn, .arg = arg,
                        .lo = lo, .first_failed = -1, .grace_s = grace_s};
    lc.ngpu = lo->no_gpu ? 0 : tl_gpu_count();
    lc.nranks = lo->ranks > 0 ? (int)lo->ranks : lo->gpus > 0 ? (int)lo->gpus : lc.ngpu > 0 ? lc.ngpu : 1;
    if (check_gpus(lo, lc.nranks, lc.ngpu, "in this process", 1) != TL_OK) return 2;
    if (tl_threadcomm_shared_create(lc.nranks, &lc.sh) != TL_OK) return 1;
    rank_thread *rt = calloc((size_t)lc.nranks, sizeof *rt);
    if (!rt) {
        tl_threadcomm_shared_destroy(&lc.sh);
        TL_FAIL(TL_ERR_NOMEM, "%d rank threads", lc.nranks);
        return 1;
    }
    pthread_mutex_init(&lc.mu, NULL);
    pthread_cond_init(&lc.cv, NULL);
    int started = 0, failed = 0;
    for (int r = 0; r < lc.nranks; r++) {
        rt[r].lc = &lc;
        rt[r].rank = r;
        rt[r].st = TL_ERR_REMOTE;
        int rc = pthread_create(&rt[r].tid, NULL, rank_thread_main, &rt[r]);
        if (rc != 0) {
            TL_FAIL(TL_ERR_SYS, "pthread_create for rank %d: %s", r, strerror(rc));
            tl_threadcomm_fail(lc.sh, r);
            pthread_mutex_lock(&lc.mu);
            if (lc.first_failed < 0) lc.first_failed = r, lc.failed_at_ns = tl_clock_ns();
            pthread_mutex_unlock(&lc.mu);
            failed = 1;
            break;
        }
        started++;
    }
    if (wait_ranks(&lc, started) > 0) {
        /* the thread-mode MPI_Abort: ranks stuck where no error reaches
         * them cannot be joined, and returning would free what they use;
         * their unfinished outputs go as main's error path takes them
         * (before, a stuck rank's temporary and the folder made for it
         * stayed) */
        tl_tmpfile_cleanup();
        fflush(stdout);
        fflush(stderr);
        _exit(1);
    }
    for (int r = 0; r < started; r++) {
        pthread_join(rt[r].tid, NULL);
        if (rt[r].st != TL_OK) failed = 1;
    }
    free(rt);
    pthread_cond_destroy(&lc.cv);
    pthread_mutex_destroy(&lc.mu);
    tl_threadcomm_shared_destroy(&lc.sh);
    return failed ? 1 : 0;
}

/* ---- MPI ----------------------------------------------------------------- */

#if TL_HAVE_MPI
static tl_status mpi_local(int *local_rank, int *local_size)
{
    MPI_Comm node = MPI_COMM_NULL;
    int rank = 0;
    TL_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    TL_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int rc1 = MPI_Comm_rank(node, local_rank), rc2 = MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
    TL_MPI(rc1);
    TL_MPI(rc2);
    return TL_OK;
}

/* Under mpirun the processes are the ranks: a thread launcher's count
 * (--ranks, --gpus; above 1, as the programs' defaults are 0 or 1) other
 * than mpirun's would be ignored, the run not the one asked for. */
static tl_status mpi_count_refused(const tl_launch_opts *lo, int size, int says, int by_launcher)
{
    const char *opt = lo->ranks > 1 ? "--ranks" : "--gpus";
    int n = lo->ranks > 1 ? lo->ranks : lo->gpus;
    if (n <= 1 || n == size) return TL_OK;
    if (!says) return TL_ERR_INVAL;
    /* --launcher mpi started by hand: MPI's singleton, no mpirun to blame */
    if (!by_launcher)
        return TL_FAIL(TL_ERR_INVAL, "%s %d with --launcher mpi outside mpirun or srun: this process is one rank; use "
                       "mpirun -np %d, or --launcher threads %s %d", opt, n, n, opt, n);
    return TL_FAIL(TL_ERR_INVAL, "%s %d: under mpirun every process is one rank and mpirun started %d; use mpirun -np %d, "
                   "or leave %s out", opt, n, size, n, opt);
}

/* MPI_Abort ends this process without returning to main, whose error
 * path would remove the unfinished outputs, and mpirun's SIGTERM, whose
 * handler would, is ignored by a failed rank (run_mpi): this rank's
 * temporaries and the folders made for them go first, as the thread
 * launcher's abort does (before, a failed rank aborting after the grace
 * period left its out.csv.*.tmp). */
static int mpi_abort_job(void)
{
    tl_tmpfile_cleanup();
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

static int run_mpi(const char *program, const tl_launch_opts *lo, int argc, char **argv,
                   tl_rank_main_fn fn, void *arg, double grace_s)
{
    int inited = 0, provided = 0;
    /* asked before MPI_Init, which sets OMPI_COMM_WORLD_SIZE in a singleton too */
    const int by_launcher = tl_launch_detect() == TL_LAUNCH_MPI;
    MPI_Initialized(&inited);
    if (!inited) {
        int rc = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
        if (rc != MPI_SUCCESS) {
            tl_mpi_report(rc, TL_FILE_, __LINE__, "MPI_Init_thread");
            return 1;
        }
    }
    tl_ctx ctx;
    ctx_init(&ctx, program, argc, argv, arg);
    ctx.mode = TL_LAUNCH_MPI;
    tl_status st = tl_mpicomm_create(&ctx.hc);
    if (st != TL_OK) return mpi_abort_job(); /* cannot agree without a communicator */
    ctx.rank = ctx.hc->rank;
    ctx.size = ctx.hc->size;
    tl_log_set_prefix(program, ctx.size > 1 ? ctx.rank : -1);
    if (ctx.rank != 0) tl_tmpfile_signal_quiet(); /* one "interrupted" line per job, not per rank */
    st = mpi_count_refused(lo, ctx.size, ctx.rank == 0, by_launcher);
    int usage = st != TL_OK;
    if (st == TL_OK && ctx.rank == 0 && (lo->gpus > 1 || lo->ranks > 1))
        tl_log("note: --gpus and --ranks are for the thread launcher; under mpirun every process is one rank");
    if (st == TL_OK) st = mpi_local(&ctx.local_rank, &ctx.local_size);
    int ngpu = lo->no_gpu ? 0 : tl_gpu_count();
    if (st == TL_OK) {
        st = check_gpus(lo, ctx.local_size, ngpu, "on this host", ctx.local_rank == 0);
        usage = st != TL_OK;
    }
    if (st == TL_OK) bind_device(&ctx, lo, ctx.local_rank, ctx.local_size, ngpu);
    if (st == TL_OK && ctx.device >= 0) st = tl_gpu_bind(ctx.device);
    st = tl_comm_agree(&ctx, st);
    if (st == TL_OK) st = fn(&ctx, arg);
    if (st != TL_OK) {
        /* The first rank to exit non-zero has mpirun SIGTERM the others,
         * a few milliseconds behind on the same way out: the cleanup
         * handler (runtime/tmpfile.h) would say "terminated (SIGTERM)" for
         * ranks ending by themselves, two at once garbled into one line.
         * This rank is on its way out (the final agreement within its
         * grace period, after which main removes the temporary outputs,
         * or the abort, which removes them itself: mpi_abort_job), so it
         * lets SIGTERM pass. */
        signal(SIGTERM, SIG_IGN);
        tl_comm_announce_failure(&ctx); /* before the abort, which may wait on the peers */
        gpu_cleanup(&ctx, 1);
        if (st != TL_ERR_REMOTE && !usage && (tl_error_debug() || !tl_error_reported())) tl_log("failed: %s", tl_strerror(st));
    }
    int any_failed = 1;
    tl_status ast = tl_mpicomm_final_agree(ctx.hc, st, grace_s, &any_failed);
    if (ast != TL_OK) {
        /* the others are stuck somewhere this rank will never reach */
        tl_log("the other ranks did not finish within %.3g s of this rank's failure; aborting the job",
               grace_s);
        return mpi_abort_job();
    }
    gpu_cleanup(&ctx, any_failed);
    tl_hostcomm_destroy(&ctx.hc);
    if (!inited) MPI_Finalize();
    return !any_failed ? 0 : usage ? 2 : 1;
}
#endif

int tl_launch_run(const char *program, const tl_launch_opts *lo, int argc, char **argv,
                  tl_rank_main_fn rank_main, void *arg)
{
    tl_log_set_prefix(program, -1);
    tl_launch_mode mode = (tl_launch_mode)lo->launcher;
    if (mode == TL_LAUNCH_AUTO) mode = tl_launch_detect();
    if (mode != TL_LAUNCH_THREADS && mode != TL_LAUNCH_MPI) {
        TL_FAIL(TL_ERR_INVAL, "unknown launcher %d (auto|threads|mpi)", lo->launcher);
        return 1;
    }
    double grace_s;
    if (launch_grace(&grace_s) != TL_OK) return 2;
    if (mode == TL_LAUNCH_THREADS) return run_threads(program, lo, argc, argv, rank_main, arg, grace_s);
#if TL_HAVE_MPI
    return run_mpi(program, lo, argc, argv, rank_main, arg, grace_s);
#else
    TL_FAIL(TL_ERR_UNSUPPORTED, "%s: this build has no MPI (install libopenmpi-dev and rebuild); use --launcher threads",
            lo->launcher == TL_LAUNCH_MPI ? "--launcher mpi" : "started by an MPI launcher");
    return 1;
#endif
}
