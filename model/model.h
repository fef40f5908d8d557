/* model/: predictions at scale. A job is what every rank does in one
 * iteration (or one FDTD step): its streams ("lanes"), the operations on
 * each, the events that join them and the communications they hand to a
 * communicator. SimGrid runs the job on a platform (GPUs, NVLink or PCIe
 * inside a node, InfiniBand between nodes) and returns per rank the time
 * and its split into compute, exposed p2p and exposed collective time.
 *
 * Every number that comes out is a prediction; model/README.md says what
 * each parameter was measured or fitted on. */
#ifndef TL_MODEL_H
#define TL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/error.h"

#define TL_MODEL_MAX_LANES 3
#define TL_MODEL_MAX_OPS 32
#define TL_MODEL_MAX_EVENTS 8
#define TL_MODEL_MAX_CHANS 2

typedef enum {
    TL_MOP_KERNEL, /* a compute kernel: cost[rank][op] seconds on the GPU */
    TL_MOP_COMM,   /* a communication handed to channel `chan`; the lane waits for it */
    TL_MOP_RECORD, /* record event `ev` */
    TL_MOP_WAIT,   /* wait for event `ev` (recorded on another lane) */
} tl_mop_kind;

typedef enum {
    TL_MCOMM_HALO,      /* every rank sends halo[rank] messages to its neighbours */
    TL_MCOMM_ALLREDUCE, /* `bytes` reduced over all ranks (tree or ring as messages) */
    TL_MCOMM_RING,      /* `bytes` to rank+1, from rank-1 (the microbenchmark's ring) */
    TL_MCOMM_STAGED,    /* halo through the node's host: GPU -> host, host -> GPU */
} tl_mcomm_kind;

/* What the exposed time of a wait or a communication on the compute lane
 * is counted as. */
typedef enum { TL_MCAT_COMPUTE, TL_MCAT_P2P, TL_MCAT_COLL } tl_mcat;

typedef struct tl_mop {
    tl_mop_kind kind;
    int ev;            /* RECORD / WAIT */
    int skip_first;    /* WAIT: not in the first iteration (joins iteration i-1) */
    int chan;          /* COMM: communicator (0 world, 1 split) */
    tl_mcomm_kind comm;
    tl_mcat cat;       /* COMM and WAIT: category of its exposed time */
    int64_t bytes;     /* ALLREDUCE, RING */
    const char *name;  /* for listings */
    int issue;         /* COMM: the order the host issues it in, within an iteration;
                          a communicator runs its operations in this order (NCCL's) */
} tl_mop;

typedef struct tl_mlane {
    const char *name; /* "compute", "p2p", "coll" */
    int nops;
    tl_mop ops[TL_MODEL_MAX_OPS];
} tl_mlane;

/* One halo message list per rank: bytes[k] to peer[k]; and the ranks it
 * receives from (a non-symmetric matrix may send one way only). */
typedef struct tl_mhalo {
    int n;
    int *peer;
    int64_t *bytes;
    int nfrom;
    int *from;
} tl_mhalo;

/* Append a send of `bytes` from rank a to rank b (both lists). */
tl_status tl_mhalo_add(tl_mhalo *halo, int a, int b, int64_t bytes);

typedef enum { TL_MAR_TREE, TL_MAR_RING } tl_mar_algo;

typedef struct tl_mjob {
    int nranks;
    int iters;
    int nlanes;
    tl_mlane lanes[TL_MODEL_MAX_LANES]; /* lane 0 is the compute lane */
    double *cost;        /* [nranks][TL_MODEL_MAX_LANES][TL_MODEL_MAX_OPS] seconds (KERNEL) */
    tl_mhalo *halo;      /* [nranks] (HALO, STAGED) */
    tl_mar_algo ar_algo;
    /* NCCL: the fixed cost of one operation (launch, setup, the kernel's
     * own latency), run on the rank's NCCL engine, which progresses at the
     * speed of its nccl<R> host's second power state while a compute
     * kernel runs on that GPU: the platform file's rate (the calibration's
     * nccl_rate in the files trilap-model writes; model/README.md). */
    double alpha_p2p_s, alpha_coll_s;
    /* a lane that waits for another lane's event, or an NCCL operation
     * that follows one issued to another stream on its communicator, starts
     * this long after the event (measured: calib_trace.c) */
    double cross_lane_s;
    double staged_alpha_s; /* host-staged: per exchange, host copies and synchronisation */
    /* 1: communication is issued only where it has peers, as trilap's
     * solver backends do (no halo for a rank without neighbours, no device
     * communicator for one rank: backend_cuda.c); 0: every operation runs,
     * as the microbenchmark's NCCL calls do on any number of ranks */
    int comm_needs_peers;
    const char *platform;  /* SimGrid platform file: hosts gpu<R>, nccl<R>, cpu<R> */
    const char *label;     /* what a progress line calls the job ("two-stream"); NULL: nothing */
    double progress_s;     /* seconds between progress lines (0: 5 on a terminal, else 30) */
    /* 1: load the platform and check it for this job (hosts, values, the
     * routes its messages take), simulate nothing: a user's file tried
     * for every GPU count before anything is printed */
    int check_only;
} tl_mjob;

typedef struct tl_mrank_result {
    double end_s;                   /* end of the last iteration */
    double compute_s;               /* compute kernels on the compute lane */
    double exposed_p2p_s, exposed_coll_s;
    double nccl_rate;               /* nccl<R>'s speed beside compute / alone, as loaded */
} tl_mrank_result;

typedef struct tl_mresult {
    int nranks;
    double iter_s;   /* max over ranks of end / iters */
    double compute_s, exposed_p2p_s, exposed_coll_s; /* of the slowest rank, per iteration */
    int slowest;
    double wall_s;   /* seconds the simulation itself took */
    double nccl_rate_lo, nccl_rate_hi; /* NCCL's rate beside compute over the ranks, as the platform gives it */
    char error[512]; /* why the simulation failed (TL_ERR_PARSE), one line */
    int gpus_held;   /* TL_ERR_PARSE for want of host gpu<R>, R > 0: the platform file's R GPUs; else 0 */
} tl_mresult;

static inline double *tl_mjob_cost(const tl_mjob *j, int rank, int lane, int op)
{
    return &j->cost[((size_t)rank * TL_MODEL_MAX_LANES + (size_t)lane) * TL_MODEL_MAX_OPS + (size_t)op];
}

/* Job storage: cost table and halo lists for nranks, zeroed. */
tl_status tl_mjob_alloc(tl_mjob *j, int nranks);
void tl_mjob_free(tl_mjob *j);
/* Structural checks: every WAIT has a RECORD of its event on another lane,
 * channels and lanes in range. */
tl_status tl_mjob_check(const tl_mjob *j);

/* A route a job's messages take, between hosts gpu<R> and cpu<N> (a
 * host-staged halo: a GPU to its node's host, that host to the peer). */
typedef struct tl_mroute {
    int src, dst;               /* rank R (gpu<R>), or node N (cpu<N>) */
    int src_cpu, dst_cpu;       /* 1: src / dst is cpu<N> */
    int rank, peer;             /* the ranks whose message it carries */
    const char *what;           /* "its halo", ... for a refusal */
} tl_mroute;

/* fn(route, arg) for every route the messages of j take (the same route
 * more than once where several messages share it), until fn answers
 * non-zero, which it returns; node[r]: rank r's node. The engine checks
 * them before it simulates, and a built-in platform written for the job
 * lists only them (its file lists every route: N^2 of them). */
int tl_mjob_each_route(const tl_mjob *j, const int *node, int (*fn)(const tl_mroute *route, void *arg),
                       void *arg);

/* Runs the job under SimGrid in a child process (SimGrid's engine is one per
 * process) and returns what it measured. A platform SimGrid refuses (or one
 * without the hosts a rank needs) comes back as TL_ERR_PARSE, nothing
 * printed, its reason in res->error: the caller says it in one line. */
tl_status tl_model_simulate(const tl_mjob *j, tl_mresult *res);

/* Whether this build has SimGrid (mk/config.mk: TL_HAVE_SIMGRID). */
int tl_model_have_simgrid(void);

/* Loads SimGrid's library (model/simgrid_lib.h), as tl_model_simulate
 * does first; one that cannot be loaded is one line naming it and why. A
 * command calls it once its arguments are checked, before it prints or
 * fits: a start that simulates nothing (--help, a refusal) loads none of
 * it, and the load's failure is not taken for the job's. */
tl_status tl_model_engine_load(void);

#endif
