/* The actors of the SimGrid engine (sim.c): one per (rank, lane) runs the
 * lane's operations for every iteration (kernels on host gpu<R>, the
 * communications handed to its communicator's daemon, event records and
 * waits); one daemon per (rank, communicator) runs that communicator's
 * operations in the host's issue order. Events are counting semaphores,
 * one per (event, waiting lane); a wait across lanes ends the cross-lane
 * latency after the record, as one across CUDA streams does. Also the
 * progress line of a long run and an actor's argument. */
#include "model/model.h"
#include "model/sim_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config.h"

#if TL_HAVE_SIMGRID

double tl_sim_wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* After rank 0's compute lane ends iteration `done`: 4,096 GPUs take
 * minutes per schedule, silent before. Every 5 s on a terminal, every 30 s
 * elsewhere (or every j->progress_s); a run shorter than that says
 * nothing. */
static void progress(sim_world *w, int done)
{
    double ran = tl_sim_wall_s() - w->t_start;
    if (w->progress_fd < 0 || ran < w->t_next || done >= w->job->iters) return;
    w->t_next = ran + w->period;
    const tl_mjob *j = w->job;
    dprintf(w->progress_fd, "trilap-model: simulating %d GPUs%s%s: iteration %d of %d, %.0f s, about %.0f s left\n",
            j->nranks, j->label ? ", " : "", j->label ? j->label : "", done, j->iters, ran,
            ran / done * (j->iters - done));
}

/* An actor's argument: its address, argv[2] of the actor ("%p"), as
 * tl_sim_actor_start passes it. SimGrid copies an actor's arguments as strings,
 * and sg_actor_self_get_data would need the table before the actor had
 * it. */
void *tl_sim_actor_arg(int argc, char **argv)
{
    void *p = NULL;
    if (argc < 3 || sscanf(argv[2], "%p", &p) != 1 || !p) abort();
    return p;
}

/* Starts `act` running code(argc, argv), argv {"actor", word, arg's
 * address}: word for the code itself (tl_sim_stage_main's node), the address
 * for actor_arg. */
void tl_sim_actor_start(const tl_simgrid_lib *sg, sg_actor_t act, xbt_main_func_t code, const char *word, void *arg)
{
    char ptr[32];
    snprintf(ptr, sizeof ptr, "%p", arg);
    const char *av[] = {"actor", word, ptr, NULL};
    sg->sg_actor_start_(act, code, 3, av);
}

/* Whether rank `me` issues the operation at all (tl_mjob.comm_needs_peers):
 * one that is not issued pays neither NCCL's fixed cost nor a wait behind
 * the communicator's previous stream. */
static int comm_issued(const tl_mjob *j, int me, const tl_mop *op)
{
    if (!j->comm_needs_peers) return 1;
    if (j->nranks == 1) return 0;
    if (op->comm == TL_MCOMM_HALO || op->comm == TL_MCOMM_STAGED) return j->halo[me].n > 0 || j->halo[me].nfrom > 0;
    return 1;
}

/* Sleeps until `t`, when that is still to come. */
static void sleep_until(const tl_simgrid_lib *sg, double t)
{
    double now = sg->simgrid_get_clock();
    if (t > now) sg->sg_actor_sleep_for(t - now);
}

/* NCCL orders one communicator's operations by making the stream of the
 * next wait for an event recorded after the previous one: across streams
 * that costs the cross-lane latency (two-stream's ring after its allreduce,
 * beside the DAXPY; three-naive's, after it), on one stream nothing. */
void tl_sim_chan_main(int argc, char **argv)
{
    sim_actor_arg *a = tl_sim_actor_arg(argc, argv);
    const tl_simgrid_lib *sg = a->w->sg;
    sim_rank *R = &a->w->ranks[a->rank];
    sim_chan *c = &R->chan[a->lane];
    const tl_mjob *j = a->w->job;
    sim_xfer x = {.sg = sg};
    int prev_lane = -1;
    double prev_end = 0;
    if (c->nslots == 0) return; /* a communicator this job never uses */
    for (;;)
        for (int i = 0; i < c->nslots; i++) {
            sim_slot *sl = &c->slot[i];
            sg->sg_sem_acquire(sl->submitted);
            if (!comm_issued(j, a->rank, &j->lanes[sl->lane].ops[sl->k])) continue; /* nobody waits */
            if (prev_lane >= 0 && sl->lane != prev_lane) sleep_until(sg, prev_end + j->cross_lane_s);
            tl_sim_comm_run(a->w, R, a->lane, &j->lanes[sl->lane].ops[sl->k], &x);
            prev_lane = sl->lane;
            prev_end = sg->simgrid_get_clock();
            sg->sg_sem_release(sl->done);
        }
}

void tl_sim_lane_main(int argc, char **argv)
{
    sim_actor_arg *a = tl_sim_actor_arg(argc, argv);
    sim_world *w = a->w;
    const tl_simgrid_lib *sg = w->sg;
    const tl_mjob *j = w->job;
    sim_rank *R = &w->ranks[a->rank];
    const tl_mlane *L = &j->lanes[a->lane];
    double speed = sg->sg_host_get_speed(R->gpu);
    for (int it = 0; it < j->iters; it++) {
        for (int k = 0; k < L->nops; k++) {
            const tl_mop *o = &L->ops[k];
            double t0 = sg->simgrid_get_clock();
            switch (o->kind) {
            case TL_MOP_KERNEL: {
                double s = *tl_mjob_cost(j, a->rank, a->lane, k);
                if (s <= 0) break;
                if (a->lane == 0) sg->sg_host_set_pstate(R->nccl, 1);
                sg->sg_actor_execute(s * speed);
                if (a->lane == 0) {
                    sg->sg_host_set_pstate(R->nccl, 0);
                    R->res.compute_s += sg->simgrid_get_clock() - t0;
                }
                break;
            }
            case TL_MOP_COMM: {
                /* one not issued queues behind nothing on its communicator:
                 * its slot is passed over, never waited for */
                int issued = comm_issued(j, a->rank, o);
                sim_chan *c = &R->chan[o->chan];
                for (int i = 0; i < c->nslots; i++)
                    if (c->slot[i].lane == a->lane && c->slot[i].k == k) {
                        sg->sg_sem_release(c->slot[i].submitted);
                        if (issued) sg->sg_sem_acquire(c->slot[i].done);
                    }
                break;
            }
            case TL_MOP_RECORD:
                for (int l = 0; l < j->nlanes; l++)
                    if (w->nwaiters[o->ev][l]) {
                        sim_evtimes *et = &R->evt[o->ev][l];
                        if (et->nrec - et->nwait >= SIM_EV_KEEP) {
                            fprintf(stderr, "lane %s ran %d records of an event ahead of its waiter\n", L->name,
                                    SIM_EV_KEEP);
                            exit(6);
                        }
                        et->t[et->nrec++ % SIM_EV_KEEP] = sg->simgrid_get_clock();
                        sg->sg_sem_release(R->ev[o->ev][l]);
                    }
                break;
            case TL_MOP_WAIT: {
                if (o->skip_first && it == 0) break;
                sg->sg_sem_acquire(R->ev[o->ev][a->lane]);
                sim_evtimes *et = &R->evt[o->ev][a->lane];
                sleep_until(sg, et->t[et->nwait++ % SIM_EV_KEEP] + j->cross_lane_s);
                break;
            }
            }
            if (a->lane == 0 && (o->kind == TL_MOP_COMM || o->kind == TL_MOP_WAIT)) {
                double dt = sg->simgrid_get_clock() - t0;
                if (o->cat == TL_MCAT_P2P) R->res.exposed_p2p_s += dt;
                if (o->cat == TL_MCAT_COLL) R->res.exposed_coll_s += dt;
            }
        }
        if (a->rank == 0 && a->lane == 0) progress(w, it + 1);
    }
    double now = sg->simgrid_get_clock();
    if (now > R->res.end_s) R->res.end_s = now;
}

#endif
