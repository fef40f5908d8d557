/* The SimGrid engine: one actor per (rank, lane) runs the lane's operations
 * for every iteration; one daemon actor per (rank, communicator) runs the
 * communications handed to it in order (NCCL serialises the operations of
 * one communicator, whatever the stream: three-naive's cost); one daemon per
 * node stages host-staged halos. Events are counting semaphores, one per
 * (event, waiting lane); a wait across lanes ends the cross-lane latency
 * after the record, as one across CUDA streams does. Compute kernels run on host gpu<R>; an NCCL
 * operation's fixed cost runs on host nccl<R>, whose second power state
 * (the rate beside compute) is switched on while a compute kernel runs.
 *
 * SimGrid has one engine per process and cannot be reset, so every
 * simulation runs in a forked child; the parent reads the per-rank results
 * from a pipe and the child's stderr from a temporary file. SimGrid's
 * functions are called through the table the parent loads
 * (simgrid_lib.h), which the world and each actor's argument reach.
 *
 * Here the run: the child builds the world and starts its actors, the
 * parent reads what it gives back. The actors are sim_actors.c's, a
 * communication's messages sim_comm.c's, the platform's checks before the
 * run sim_platform.c's, a failure's reason in the file's terms
 * sim_reason.c's (sim_impl.h between them). */
#include "model/model.h"
#include "model/sim_impl.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#include "model/simgrid_lib.h"

int tl_model_have_simgrid(void)
{
    return TL_HAVE_SIMGRID;
}

#if TL_HAVE_SIMGRID

tl_status tl_model_engine_load(void)
{
    tl_simgrid_lib sg;
    TL_TRY(tl_simgrid_lib_load(&sg));
    tl_simgrid_lib_unload(&sg);
    return TL_OK;
}

static void child_run(const tl_simgrid_lib *sg, const tl_mjob *j, int fd, int progress_fd)
{
    char *args[] = {"trilap-model", "--log=root.thres:error", "--cfg=network/model:CM02",
                    "--cfg=network/crosstraffic:0", "--cfg=contexts/stack-size:64", NULL};
    int argc = 5;
    sg->simgrid_init(&argc, args);
    sg->simgrid_load_platform(j->platform);
    tl_sim_platform_values_or_die(sg);

    double period = j->progress_s > 0 ? j->progress_s : isatty(progress_fd) ? 5 : 30;
    sim_world w = {.sg = sg, .job = j, .progress_fd = progress_fd, .period = period};
    w.ranks = calloc((size_t)j->nranks, sizeof *w.ranks);
    sim_actor_arg *args_l = calloc((size_t)j->nranks * (TL_MODEL_MAX_LANES + TL_MODEL_MAX_CHANS), sizeof *args_l);
    if (!w.ranks || !args_l) exit(4);
    for (int l = 0; l < j->nlanes; l++)
        for (int k = 0; k < j->lanes[l].nops; k++)
            if (j->lanes[l].ops[k].kind == TL_MOP_WAIT) w.nwaiters[j->lanes[l].ops[k].ev][l] = 1;

    int maxnode = -1;
    for (int r = 0; r < j->nranks; r++) {
        sim_rank *R = &w.ranks[r];
        R->rank = r;
        R->gpu = tl_sim_host_or_die(sg, "gpu%d", r, j->platform);
        R->nccl = tl_sim_host_or_die(sg, "nccl%d", r, j->platform);
        if (sg->sg_host_get_nb_pstates(R->nccl) < 2) {
            fprintf(stderr, "host nccl%d needs two speeds (alone, beside compute; model/README.md)\n", r);
            exit(3);
        }
        /* one core: three-split's two communicators would queue on it as
         * three-naive's one does (before: simulated so, exit 0) */
        if (sg->sg_host_core_count(R->nccl) < TL_MODEL_MAX_CHANS) {
            fprintf(stderr, "host 'nccl%d' has %d core, where NCCL's engine needs %d (one per communicator, "
                            "core=\"%d\"; model/README.md)\n",
                    r, sg->sg_host_core_count(R->nccl), TL_MODEL_MAX_CHANS, TL_MODEL_MAX_CHANS);
            exit(3);
        }
        R->nccl_speed0 = sg->sg_host_get_pstate_speed(R->nccl, 0);
        R->res.nccl_rate = sg->sg_host_get_pstate_speed(R->nccl, 1) / R->nccl_speed0;
        if (tl_sim_gpu_node(sg, R->gpu) > maxnode) maxnode = tl_sim_gpu_node(sg, R->gpu);
        for (int e = 0; e < TL_MODEL_MAX_EVENTS; e++)
            for (int l = 0; l < TL_MODEL_MAX_LANES; l++) R->ev[e][l] = sg->sg_sem_init(0);
        for (int c = 0; c < TL_MODEL_MAX_CHANS; c++) {
            sim_chan *ch = &R->chan[c];
            /* the channel's operations, sorted by issue order */
            for (int l = 0; l < j->nlanes; l++)
                for (int k = 0; k < j->lanes[l].nops; k++) {
                    const tl_mop *o = &j->lanes[l].ops[k];
                    if (o->kind != TL_MOP_COMM || o->chan != c) continue;
                    int at = ch->nslots++;
                    while (at > 0 && j->lanes[ch->slot[at - 1].lane].ops[ch->slot[at - 1].k].issue > o->issue) {
                        ch->slot[at] = ch->slot[at - 1];
                        at--;
                    }
                    ch->slot[at] = (sim_slot){
                        .lane = l, .k = k, .submitted = sg->sg_sem_init(0), .done = sg->sg_sem_init(0)};
                }
            sim_actor_arg *a = &args_l[(size_t)r * (TL_MODEL_MAX_LANES + TL_MODEL_MAX_CHANS) + TL_MODEL_MAX_LANES + c];
            *a = (sim_actor_arg){.w = &w, .rank = r, .lane = c};
            sg_actor_t act = sg->sg_actor_init("chan", R->gpu);
            tl_sim_actor_start(sg, act, tl_sim_chan_main, "chan", a);
            sg->sg_actor_daemonize(act);
        }
        for (int l = 0; l < j->nlanes; l++) {
            sim_actor_arg *a = &args_l[(size_t)r * (TL_MODEL_MAX_LANES + TL_MODEL_MAX_CHANS) + l];
            *a = (sim_actor_arg){.w = &w, .rank = r, .lane = l};
            sg_actor_t act = sg->sg_actor_init(j->lanes[l].name, R->gpu);
            tl_sim_actor_start(sg, act, tl_sim_lane_main, "lane", a);
        }
    }
    for (int node = 0; node <= maxnode; node++) {
        char name[32], arg[16];
        snprintf(name, sizeof name, "cpu%d", node);
        sg_host_t h = sg->sg_host_by_name(name);
        if (!h) continue; /* a platform without host staging */
        snprintf(arg, sizeof arg, "%d", node);
        sg_actor_t act = sg->sg_actor_init("stage", h);
        tl_sim_actor_start(sg, act, tl_sim_stage_main, arg, &w);
        sg->sg_actor_daemonize(act);
    }
    tl_sim_routes_or_die(j, &w);
    w.t_start = tl_sim_wall_s();
    w.t_next = w.period;
    if (!j->check_only) sg->simgrid_run();
    for (int r = 0; r < j->nranks; r++) {
        const char *p = (const char *)&w.ranks[r].res;
        size_t left = sizeof w.ranks[r].res;
        while (left) {
            ssize_t k = write(fd, p, left);
            if (k <= 0) exit(5);
            p += k;
            left -= (size_t)k;
        }
    }
    exit(0);
}

tl_status tl_model_simulate(const tl_mjob *j, tl_mresult *res)
{
    memset(res, 0, sizeof *res);
    TL_TRY(tl_mjob_check(j));
    TL_CHECK(j->platform, TL_ERR_INVAL, "no platform");
    tl_simgrid_lib sg;
    TL_TRY(tl_simgrid_lib_load(&sg));
    tl_status st = TL_OK;
    tl_mrank_result *rr = calloc((size_t)j->nranks, sizeof *rr);
    FILE *err = tmpfile();
    int fds[2] = {-1, -1};
    if (!rr || !err || pipe(fds) != 0) {
        st = TL_FAIL(TL_ERR_SYS, "simulation set-up: %s", strerror(errno));
        goto fail;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        st = TL_FAIL(TL_ERR_SYS, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        /* ^C reaches the child too: it dies quietly, and the parent alone
         * removes its temporary files and says so (runtime/tmpfile.h) */
        const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) signal(sigs[k], SIG_DFL);
        /* and it ends with the parent, however the parent ends */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
        close(fds[0]);
        int user_err = dup(2); /* progress lines; -1: none */
        dup2(fileno(err), 2);
        child_run(&sg, j, fds[1], user_err);
    }
    close(fds[1]);
    fds[1] = -1;
    size_t want = (size_t)j->nranks * sizeof *rr, got = 0;
    while (got < want) {
        ssize_t k = read(fds[0], (char *)rr + got, want - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (got != want || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        tl_sim_child_reason(err, res->error, sizeof res->error);
        tl_sim_reason_in_file_terms(j->platform, res->error, sizeof res->error);
        /* ranks 0..R-1 found their hosts, and the file has no gpu<K> beyond: it holds R GPUs */
        int beyond = WIFEXITED(status) && WEXITSTATUS(status) == 6;
        if (!beyond || sscanf(res->error, "no host 'gpu%d'", &res->gpus_held) != 1) res->gpus_held = 0;
        if (!res->error[0] && WIFSIGNALED(status))
            snprintf(res->error, sizeof res->error, "the simulation was killed by signal %d (%s)", WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
        else if (!res->error[0])
            snprintf(res->error, sizeof res->error, "the simulation stopped without a reason");
        st = TL_ERR_PARSE; /* not printed here: the caller names the platform in one line */
        goto fail;
    }
    res->nranks = j->nranks;
    res->nccl_rate_lo = res->nccl_rate_hi = rr[0].nccl_rate;
    for (int r = 0; r < j->nranks; r++) {
        if (rr[r].end_s > rr[res->slowest].end_s) res->slowest = r;
        res->nccl_rate_lo = fmin(res->nccl_rate_lo, rr[r].nccl_rate);
        res->nccl_rate_hi = fmax(res->nccl_rate_hi, rr[r].nccl_rate);
    }
    const tl_mrank_result *s = &rr[res->slowest];
    res->iter_s = s->end_s / j->iters;
    res->compute_s = s->compute_s / j->iters;
    res->exposed_p2p_s = s->exposed_p2p_s / j->iters;
    res->exposed_coll_s = s->exposed_coll_s / j->iters;
    res->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
fail:
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    if (err) fclose(err);
    free(rr);
    tl_simgrid_lib_unload(&sg);
    return st;
}

#else

tl_status tl_model_engine_load(void)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED, "built without SimGrid (install libsimgrid-dev and rebuild)");
}

tl_status tl_model_simulate(const tl_mjob *j, tl_mresult *res)
{
    (void)j;
    (void)res;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "built without SimGrid (install libsimgrid-dev and rebuild)");
}

#endif
