/* Internal to the SimGrid engine (sim.c, sim_actors.c, sim_comm.c,
 * sim_platform.c, sim_reason.c): the simulated world the forked child
 * builds, and what the parts give each other. Named *_impl.h so that make
 * install leaves it out. Only with TL_HAVE_SIMGRID. */
#ifndef TL_MODEL_SIM_IMPL_H
#define TL_MODEL_SIM_IMPL_H

#include <stdio.h>

#include "config.h"

#include "model/model.h"
#include "model/simgrid_lib.h"

#if TL_HAVE_SIMGRID

/* A communicator's operations in the host's issue order: the lane that
 * reaches one first does not overtake an operation issued before it. */
typedef struct sim_slot {
    int lane, k;
    sg_sem_t submitted, done;
} sim_slot;

typedef struct sim_chan {
    int nslots;
    sim_slot slot[TL_MODEL_MAX_LANES * TL_MODEL_MAX_OPS];
} sim_chan;

/* When each of the last SIM_EV_KEEP records of an event happened, for a
 * waiting lane (its n-th wait matches the n-th record). Lanes are joined by
 * their data every iteration, so a producer is never that far ahead. */
enum { SIM_EV_KEEP = 16 };
typedef struct sim_evtimes {
    double t[SIM_EV_KEEP];
    unsigned nrec, nwait;
} sim_evtimes;

typedef struct sim_rank {
    int rank;
    sg_host_t gpu, nccl;
    double nccl_speed0;
    sg_sem_t ev[TL_MODEL_MAX_EVENTS][TL_MODEL_MAX_LANES]; /* [event][waiting lane] */
    sim_evtimes evt[TL_MODEL_MAX_EVENTS][TL_MODEL_MAX_LANES];
    sim_chan chan[TL_MODEL_MAX_CHANS];
    tl_mrank_result res;
} sim_rank;

typedef struct sim_world {
    const tl_simgrid_lib *sg; /* SimGrid's functions, loaded by the parent */
    const tl_mjob *job;
    sim_rank *ranks;
    int nwaiters[TL_MODEL_MAX_EVENTS][TL_MODEL_MAX_LANES];
    /* progress on the user's stderr (the child's own goes to a file):
     * a line every `period` seconds of a run that has gone that long */
    int progress_fd;
    double t_start, t_next, period;
} sim_world;

typedef struct sim_actor_arg {
    sim_world *w;
    int rank, lane;
} sim_actor_arg;

/* Sends and receives posted together, then waited for together. */
typedef struct sim_xfer {
    const tl_simgrid_lib *sg;
    sg_comm_t *c;
    int n, cap;
    void *sink; /* every receive lands here: the payloads carry nothing */
} sim_xfer;

/* sim_actors.c: what a lane and a communicator's daemon do */

/* Seconds on the monotonic clock, for the progress lines. */
double tl_sim_wall_s(void);
/* An actor's argument, as tl_sim_actor_start passed it (argv[2]). */
void *tl_sim_actor_arg(int argc, char **argv);
/* Starts act running code with argv {"actor", word, arg's address}. */
void tl_sim_actor_start(const tl_simgrid_lib *sg, sg_actor_t act, xbt_main_func_t code, const char *word, void *arg);
/* The daemon of one (rank, communicator): its operations in issue order. */
void tl_sim_chan_main(int argc, char **argv);
/* One (rank, lane): the lane's operations for every iteration. */
void tl_sim_lane_main(int argc, char **argv);

/* sim_comm.c: one communication's messages */

/* Runs one communication of rank R on communicator chan, x its transfers. */
void tl_sim_comm_run(sim_world *w, sim_rank *R, int chan, const tl_mop *op, sim_xfer *x);
/* The daemon of a node's host cpu<N>: forwards host-staged halos. */
void tl_sim_stage_main(int argc, char **argv);

/* sim_platform.c: the loaded platform, checked before the run (each
 * refusal one line on stderr and an exit code the parent reads) */

/* The node a GPU is on (its property `node`, 0 without one). */
int tl_sim_gpu_node(const tl_simgrid_lib *sg, sg_host_t gpu);
/* The host named fmt with i (gpu%d, nccl%d); exits 6 or 3 without one. */
sg_host_t tl_sim_host_or_die(const tl_simgrid_lib *sg, const char *fmt, int i, const char *platform);
/* Exits 3 on a link or host value SimGrid would simulate as nonsense. */
void tl_sim_platform_values_or_die(const tl_simgrid_lib *sg);
/* Exits 3 where a route the job's messages take does not exist. */
void tl_sim_routes_or_die(const tl_mjob *j, sim_world *w);

/* sim_reason.c: why the child failed, in the platform file's terms */

/* The child's reason from its stderr f: SimGrid's first error, else its last line. */
void tl_sim_child_reason(FILE *f, char *buf, size_t n);
/* SimGrid's refusal in buf said again in the terms of the file platform. */
void tl_sim_reason_in_file_terms(const char *platform, char *buf, size_t n);

#endif /* TL_HAVE_SIMGRID */

#endif
