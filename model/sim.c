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
 * (simgrid_lib.h), which the world and each actor's argument reach. */
#include "model/model.h"

#include <ctype.h>
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

typedef struct sim_stage_msg {
    int src, dst, chan;
    int64_t bytes;
} sim_stage_msg;

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

static double wall_s(void)
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
    double ran = wall_s() - w->t_start;
    if (w->progress_fd < 0 || ran < w->t_next || done >= w->job->iters) return;
    w->t_next = ran + w->period;
    const tl_mjob *j = w->job;
    dprintf(w->progress_fd, "trilap-model: simulating %d GPUs%s%s: iteration %d of %d, %.0f s, about %.0f s left\n",
            j->nranks, j->label ? ", " : "", j->label ? j->label : "", done, j->iters, ran,
            ran / done * (j->iters - done));
}

typedef struct sim_actor_arg {
    sim_world *w;
    int rank, lane;
} sim_actor_arg;

/* An actor's argument: its address, argv[2] of the actor ("%p"), as
 * start_actor passes it. SimGrid copies an actor's arguments as strings,
 * and sg_actor_self_get_data would need the table before the actor had
 * it. */
static void *actor_arg(int argc, char **argv)
{
    void *p = NULL;
    if (argc < 3 || sscanf(argv[2], "%p", &p) != 1 || !p) abort();
    return p;
}

/* Starts `act` running code(argc, argv), argv {"actor", word, arg's
 * address}: word for the code itself (stage_main's node), the address
 * for actor_arg. */
static void start_actor(const tl_simgrid_lib *sg, sg_actor_t act, xbt_main_func_t code, const char *word, void *arg)
{
    char ptr[32];
    snprintf(ptr, sizeof ptr, "%p", arg);
    const char *av[] = {"actor", word, ptr, NULL};
    sg->sg_actor_start_(act, code, 3, av);
}

static sg_mailbox_t msg_box(const tl_simgrid_lib *sg, int chan, int src, int dst)
{
    char name[64];
    snprintf(name, sizeof name, "m%d.%d.%d", chan, src, dst);
    return sg->sg_mailbox_by_name(name);
}

static sg_mailbox_t stage_box(const tl_simgrid_lib *sg, int node)
{
    char name[32];
    snprintf(name, sizeof name, "stage%d", node);
    return sg->sg_mailbox_by_name(name);
}

/* A non-NULL payload for messages whose content does not matter (never
 * written through). */
static const char payload_token;
#define PAYLOAD ((void *)&payload_token)

static void nccl_fixed_cost(const tl_simgrid_lib *sg, sim_rank *R, double seconds)
{
    if (seconds <= 0) return;
    sg_exec_t e = sg->sg_actor_exec_init(seconds * R->nccl_speed0);
    sg->sg_exec_set_host(e, R->nccl);
    sg->sg_exec_start(e);
    sg->sg_exec_wait(e);
}

/* Sends and receives posted together, then waited for together. */
typedef struct sim_xfer {
    const tl_simgrid_lib *sg;
    sg_comm_t *c;
    int n, cap;
    void *sink; /* every receive lands here: the payloads carry nothing */
} sim_xfer;

static void xfer_add(sim_xfer *x, sg_comm_t c)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->c = realloc(x->c, (size_t)x->cap * sizeof *x->c);
        if (!x->c) abort();
    }
    x->c[x->n++] = c;
}

static void xfer_send(sim_xfer *x, int chan, int src, int dst, int64_t bytes)
{
    xfer_add(x, x->sg->sg_mailbox_put_async(msg_box(x->sg, chan, src, dst), PAYLOAD, (long)(bytes > 0 ? bytes : 1)));
}

static void xfer_recv(sim_xfer *x, int chan, int src, int dst)
{
    xfer_add(x, x->sg->sg_mailbox_get_async(msg_box(x->sg, chan, src, dst), &x->sink));
}

static void xfer_wait(sim_xfer *x)
{
    if (x->n) x->sg->sg_comm_wait_all(x->c, (size_t)x->n);
    x->n = 0;
}

static void allreduce_tree(sim_xfer *x, int chan, int rank, int n, int64_t bytes)
{
    int top = 1;
    while (top < n) top <<= 1;
    /* binomial reduce to rank 0 ... */
    for (int mask = 1; mask < top; mask <<= 1) {
        if (rank & mask) {
            xfer_send(x, chan, rank, rank - mask, bytes);
            xfer_wait(x);
            break;
        }
        if (rank + mask < n) {
            xfer_recv(x, chan, rank + mask, rank);
            xfer_wait(x);
        }
    }
    /* ... and the broadcast back down the same tree */
    int mask = top >> 1;
    int low = rank ? (rank & -rank) : top; /* the bit a rank receives on */
    if (rank) {
        xfer_recv(x, chan, rank - low, rank);
        xfer_wait(x);
    }
    for (mask = low >> 1; mask >= 1; mask >>= 1)
        if (rank + mask < n) xfer_send(x, chan, rank, rank + mask, bytes);
    xfer_wait(x);
}

static void allreduce_ring(sim_xfer *x, int chan, int rank, int n, int64_t bytes)
{
    int64_t chunk = (bytes + n - 1) / n;
    for (int step = 0; step < 2 * (n - 1); step++) {
        xfer_send(x, chan, rank, (rank + 1) % n, chunk);
        xfer_recv(x, chan, (rank + n - 1) % n, rank);
        xfer_wait(x);
    }
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

/* The node a GPU is on: its property `node`, 0 without one (a platform
 * without nodes: one host) */
static int gpu_node(const tl_simgrid_lib *sg, sg_host_t gpu)
{
    const char *np = sg->sg_host_get_property_value(gpu, "node");
    return np ? atoi(np) : 0;
}

static void run_comm(sim_world *w, sim_rank *R, int chan, const tl_mop *op, sim_xfer *x)
{
    const tl_mjob *j = w->job;
    const tl_simgrid_lib *sg = w->sg;
    int n = j->nranks, me = R->rank;
    switch (op->comm) {
    case TL_MCOMM_HALO: {
        nccl_fixed_cost(sg, R, j->alpha_p2p_s);
        const tl_mhalo *h = &j->halo[me];
        for (int k = 0; k < h->nfrom; k++) xfer_recv(x, chan, h->from[k], me);
        for (int k = 0; k < h->n; k++) xfer_send(x, chan, me, h->peer[k], h->bytes[k]);
        xfer_wait(x);
        break;
    }
    case TL_MCOMM_RING:
        nccl_fixed_cost(sg, R, j->alpha_p2p_s);
        if (n > 1) {
            xfer_recv(x, chan, (me + n - 1) % n, me);
            xfer_send(x, chan, me, (me + 1) % n, op->bytes);
            xfer_wait(x);
        }
        break;
    case TL_MCOMM_ALLREDUCE:
        nccl_fixed_cost(sg, R, j->alpha_coll_s);
        if (n > 1) {
            if (j->ar_algo == TL_MAR_RING)
                allreduce_ring(x, chan, me, n, op->bytes);
            else
                allreduce_tree(x, chan, me, n, op->bytes);
        }
        break;
    case TL_MCOMM_STAGED: {
        if (j->staged_alpha_s > 0) sg->sg_actor_sleep_for(j->staged_alpha_s);
        const tl_mhalo *h = &j->halo[me];
        int node = gpu_node(sg, R->gpu);
        for (int k = 0; k < h->nfrom; k++) xfer_recv(x, chan, h->from[k], me);
        for (int k = 0; k < h->n; k++) {
            sim_stage_msg *m = malloc(sizeof *m);
            if (!m) abort();
            *m = (sim_stage_msg){.src = me, .dst = h->peer[k], .chan = chan, .bytes = h->bytes[k]};
            xfer_add(x, sg->sg_mailbox_put_async(stage_box(sg, node), m, (long)(h->bytes[k] > 0 ? h->bytes[k] : 1)));
        }
        xfer_wait(x);
        break;
    }
    }
}

/* The host of a node: receives a staged halo in host memory and sends it on
 * to the destination GPU, one message at a time (one host thread). */
static void stage_main(int argc, char **argv)
{
    const sim_world *w = actor_arg(argc, argv);
    const tl_simgrid_lib *sg = w->sg;
    int node = atoi(argv[1]);
    sg_mailbox_t box = stage_box(sg, node);
    for (;;) {
        sim_stage_msg *m = sg->sg_mailbox_get(box);
        sg->sg_mailbox_put(msg_box(sg, m->chan, m->src, m->dst), PAYLOAD, (long)(m->bytes > 0 ? m->bytes : 1));
        free(m);
    }
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
static void chan_main(int argc, char **argv)
{
    sim_actor_arg *a = actor_arg(argc, argv);
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
            run_comm(a->w, R, a->lane, &j->lanes[sl->lane].ops[sl->k], &x);
            prev_lane = sl->lane;
            prev_end = sg->simgrid_get_clock();
            sg->sg_sem_release(sl->done);
        }
}

static void lane_main(int argc, char **argv)
{
    sim_actor_arg *a = actor_arg(argc, argv);
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

/* 1 when the platform has a host gpu<K>, K > i. */
static int gpu_beyond(const tl_simgrid_lib *sg, int i)
{
    sg_host_t *hosts = sg->sg_host_list();
    size_t n = sg->sg_host_count();
    int found = 0;
    for (size_t k = 0; k < n && !found; k++) {
        int r;
        char tail;
        found = sscanf(sg->sg_host_get_name(hosts[k]), "gpu%d%c", &r, &tail) == 1 && r > i;
    }
    free(hosts);
    return found;
}

static sg_host_t host_or_die(const tl_simgrid_lib *sg, const char *fmt, int i, const char *platform)
{
    char name[32];
    snprintf(name, sizeof name, fmt, i);
    sg_host_t h = sg->sg_host_by_name(name);
    if (!h && i > 0 && !strcmp(fmt, "gpu%d") && !gpu_beyond(sg, i)) {
        /* the file's GPUs end before this rank: exit 6 tells the parent
         * the job has more ranks than the file holds, the command line's
         * fault (it reads R back from this line) */
        fprintf(stderr, "no host '%s' (the file holds %d GPUs, gpu0 to gpu%d)\n", name, i, i - 1);
        exit(6);
    }
    if (!h) {
        fprintf(stderr, "no host '%s' (rank R needs hosts gpu<R> and nccl<R>; model/README.md)\n", name);
        exit(3);
    }
    return h;
}

/* A link's name as the platform file spells it: SimGrid splits a
 * SPLITDUPLEX link X into X_UP and X_DOWN, names the file never holds
 * (a refusal named nic3_DOWN for the file's nic3). A half is known by
 * its twin; a link the file itself calls X_DOWN has none. */
static const char *link_file_name(const tl_simgrid_lib *sg, sg_link_t *links, size_t n, size_t i, char *buf,
                                  size_t len)
{
    const char *name = sg->sg_link_get_name(links[i]);
    size_t k = strlen(name);
    int up = k > 3 && !strcmp(name + k - 3, "_UP"), down = k > 5 && !strcmp(name + k - 5, "_DOWN");
    if (!up && !down) return name;
    size_t stem = k - (up ? 3 : 5);
    snprintf(buf, len, "%.*s%s", (int)stem, name, up ? "_DOWN" : "_UP");
    for (size_t t = 0; t < n; t++)
        if (t != i && !strcmp(sg->sg_link_get_name(links[t]), buf)) {
            snprintf(buf, len, "%.*s", (int)stem, name);
            return buf;
        }
    return name;
}

/* A platform value the engine would take and then simulate as nonsense:
 * SimGrid loads a zero or negative bandwidth or speed and stops mid-run
 * with "The Impossible Did Happen", after the preamble was printed, and
 * takes a negative latency or an NCCL engine faster beside compute than
 * alone (rate above 1, which calibrate and `platform --nccl-rate` refuse)
 * and predicts faster than physics. Said on stderr in one line, as a
 * missing host is: the parent names the file. */
static void platform_values_or_die(const tl_simgrid_lib *sg)
{
    /* the counts once: each call lists every link (host) again */
    sg_link_t *links = sg->sg_link_list();
    size_t nlinks = sg->sg_link_count(), nhosts = sg->sg_host_count();
    char lname[256];
    for (size_t i = 0; i < nlinks; i++) {
        double bw = sg->sg_link_get_bandwidth(links[i]), lat = sg->sg_link_get_latency(links[i]);
        if (!(bw > 0) || !isfinite(bw) || !(lat >= 0) || !isfinite(lat)) {
            fprintf(stderr, "link '%s': bandwidth %g B/s and latency %g s, where a bandwidth must be > 0 and a "
                            "latency >= 0 (model/README.md)\n",
                    link_file_name(sg, links, nlinks, i, lname, sizeof lname), bw, lat);
            exit(3);
        }
        /* SimGrid reads a value without a unit in bytes per second and
         * seconds: bandwidth="200" predicted 10 s an iteration, no word,
         * and latency="0.5" (NVLink's 0.5 us) 5 s. A hop of a GPU cluster
         * takes microseconds; the slowest port fitted here, the FDTD
         * paper's, 1.3 ms at most (fdtd --calib-sizes, any pair) */
        if (bw < 1e6 || lat > 10e-3) {
            fprintf(stderr, "link '%s': bandwidth %g B/s and latency %g s, most likely a value without its unit "
                            "(SimGrid takes B/s and s): give one, as bandwidth=\"200GBps\" latency=\"2us\"\n",
                    link_file_name(sg, links, nlinks, i, lname, sizeof lname), bw, lat);
            exit(3);
        }
    }
    free(links);
    sg_host_t *hosts = sg->sg_host_list();
    for (size_t i = 0; i < nhosts; i++) {
        const char *name = sg->sg_host_get_name(hosts[i]);
        double s0 = sg->sg_host_get_pstate_speed(hosts[i], 0);
        for (unsigned long k = 0; k < sg->sg_host_get_nb_pstates(hosts[i]); k++) {
            double s = sg->sg_host_get_pstate_speed(hosts[i], k);
            if (!(s > 0) || !isfinite(s)) {
                fprintf(stderr, "host '%s': speed %g flop/s in power state %lu, must be > 0\n", name, s, k);
                exit(3);
            }
            /* nccl<R>'s second state is its rate beside compute: a fraction */
            if (k == 1 && strncmp(name, "nccl", 4) == 0 && s > s0) {
                fprintf(stderr, "host '%s': speed beside compute %g flop/s above its speed alone %g: NCCL's rate "
                                "beside a compute kernel must lie in (0, 1] (model/README.md)\n",
                        name, s, s0);
                exit(3);
            }
        }
        const char *np = strncmp(name, "gpu", 3) == 0 ? sg->sg_host_get_property_value(hosts[i], "node") : NULL;
        if (np && (np[strspn(np, "0123456789")] || !np[0] || strlen(np) > 9)) {
            fprintf(stderr, "host '%s': property node '%s' is not a node number (0, 1, ...)\n", name, np);
            exit(3);
        }
    }
    free(hosts);
}

/* The host a route names: gpu<R> or cpu<N>; dies, in one line, where
 * the platform has no such host (a host-staged halo needs its node's). */
static sg_host_t route_host(const sim_world *w, int cpu, int i, int n)
{
    const tl_simgrid_lib *sg = w->sg;
    if (!cpu) return w->ranks[i].gpu;
    char name[32];
    snprintf(name, sizeof name, "cpu%d", i);
    sg_host_t h = sg->sg_host_by_name(name);
    if (h) return h;
    fprintf(stderr, "no host '%s' (a host-staged halo goes through its node's host cpu<N>, at %d GPUs; "
                    "model/README.md)\n", name, n);
    exit(3);
}

/* Dies, in one line, where the platform has no route the job's message
 * takes (SimGrid's own test for a message: no link and no latency). */
static int route_or_die(const tl_mroute *rt, void *arg)
{
    const sim_world *w = arg;
    const tl_simgrid_lib *sg = w->sg;
    int n = w->job->nranks;
    sg_host_t a = route_host(w, rt->src_cpu, rt->src, n), b = route_host(w, rt->dst_cpu, rt->dst, n);
    xbt_dynar_t links = sg->xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg->sg_host_get_route(a, b, links);
    int none = sg->xbt_dynar_is_empty(links) && sg->sg_host_get_route_latency(a, b) <= 0;
    sg->xbt_dynar_free(&links);
    if (!none) return 0;
    if (rt->dst_cpu)
        fprintf(stderr, "no route from %s to %s (rank %d stages %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->what, n);
    else if (rt->src_cpu)
        fprintf(stderr, "no route from %s to %s (rank %d sends rank %d %s %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->peer, rt->what, sg->sg_host_get_name(a), n);
    else
        fprintf(stderr, "no route from %s to %s (rank %d sends rank %d %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->peer, rt->what, n);
    exit(3);
}

/* Every route the job's messages take exists, host-staged ones too.
 * Before, a platform file without one was found out mid-run: after the
 * preamble and the rows of the smaller GPU counts, SimGrid's "no
 * connecting path", exit 1; a host-staged route was never looked up. */
static void routes_or_die(const tl_mjob *j, sim_world *w)
{
    int *node = malloc((size_t)j->nranks * sizeof *node);
    if (!node) exit(4);
    for (int r = 0; r < j->nranks; r++) node[r] = gpu_node(w->sg, w->ranks[r].gpu);
    tl_mjob_each_route(j, node, route_or_die, w);
    free(node);
}

static void child_run(const tl_simgrid_lib *sg, const tl_mjob *j, int fd, int progress_fd)
{
    char *args[] = {"trilap-model", "--log=root.thres:error", "--cfg=network/model:CM02",
                    "--cfg=network/crosstraffic:0", "--cfg=contexts/stack-size:64", NULL};
    int argc = 5;
    sg->simgrid_init(&argc, args);
    sg->simgrid_load_platform(j->platform);
    platform_values_or_die(sg);

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
        R->gpu = host_or_die(sg, "gpu%d", r, j->platform);
        R->nccl = host_or_die(sg, "nccl%d", r, j->platform);
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
        if (gpu_node(sg, R->gpu) > maxnode) maxnode = gpu_node(sg, R->gpu);
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
            start_actor(sg, act, chan_main, "chan", a);
            sg->sg_actor_daemonize(act);
        }
        for (int l = 0; l < j->nlanes; l++) {
            sim_actor_arg *a = &args_l[(size_t)r * (TL_MODEL_MAX_LANES + TL_MODEL_MAX_CHANS) + l];
            *a = (sim_actor_arg){.w = &w, .rank = r, .lane = l};
            sg_actor_t act = sg->sg_actor_init(j->lanes[l].name, R->gpu);
            start_actor(sg, act, lane_main, "lane", a);
        }
    }
    for (int node = 0; node <= maxnode; node++) {
        char name[32], arg[16];
        snprintf(name, sizeof name, "cpu%d", node);
        sg_host_t h = sg->sg_host_by_name(name);
        if (!h) continue; /* a platform without host staging */
        snprintf(arg, sizeof arg, "%d", node);
        sg_actor_t act = sg->sg_actor_init("stage", h);
        start_actor(sg, act, stage_main, arg, &w);
        sg->sg_actor_daemonize(act);
    }
    routes_or_die(j, &w);
    w.t_start = wall_s();
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

/* The text after SimGrid's log prefix of an error or critical message
 * ("[0.0] file:95: [xbt_exception/ERROR] Parse error at ..."), or NULL. */
static const char *simgrid_error(const char *line)
{
    static const char *const levels[] = {"/ERROR] ", "/CRITICAL] "};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const char *e = strstr(line, levels[i]);
        if (e) return e + strlen(levels[i]);
    }
    return NULL;
}

/* The child's reason: SimGrid's first error message without its log
 * prefix, or else its last non-empty stderr line (ours). */
static void child_reason(FILE *f, char *buf, size_t n)
{
    char line[1024];
    int have_error = 0;
    buf[0] = 0;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *e = simgrid_error(line);
        if (e && !have_error && !strstr(e, "Exiting now")) {
            snprintf(buf, n, "%.500s", e);
            have_error = 1;
        } else if (line[0] && !have_error && !e)
            snprintf(buf, n, "%.500s", line);
    }
}

/* The whole file as text, NUL-ended (NULL: unreadable, or too large to
 * hold, where the caller keeps SimGrid's words). */
static char *file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len >= 0 && len < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)len, f);
        text[got] = 0;
    }
    fclose(f);
    return text;
}

/* Attribute `name`'s value in the tag [tag, end) into out ("" when it has none). */
static void tag_attr(const char *tag, const char *end, const char *name, char *out, size_t n)
{
    size_t k = strlen(name);
    out[0] = 0;
    for (const char *a = tag; a + k + 2 < end; a++) {
        if (!isspace((unsigned char)a[0]) || strncmp(a + 1, name, k) || a[k + 1] != '=') continue;
        char q = a[k + 2];
        const char *v = a + k + 3, *close = q == '"' || q == '\'' ? memchr(v, q, (size_t)(end - v)) : NULL;
        if (close) snprintf(out, n, "%.*s", (int)(close - v), v);
        return;
    }
}

/* The next element `<NAME ` (not `<NAME_ctn`) from p on, its end in *end; NULL: none. */
static const char *next_tag(const char *p, const char *name, const char **end)
{
    size_t k = strlen(name);
    while ((p = strstr(p, name)) != NULL) {
        if (p[-1] == '<' && (isspace((unsigned char)p[k]) || p[k] == '/')) {
            *end = p + strcspn(p, ">");
            return p - 1;
        }
        p += k;
    }
    return NULL;
}

/* The ids of the file's elements <tag ...>: how many, the first eight
 * in list ("a, b, ..."). */
static int declared_ids(const char *text, const char *tag, char *list, size_t n)
{
    const char *t, *end;
    char v[256];
    int count = 0;
    list[0] = 0;
    for (t = text; (t = next_tag(t + 1, tag, &end)) != NULL; t = end, count++) {
        tag_attr(t, end, "id", v, sizeof v);
        size_t used = strlen(list);
        if (count < 8) snprintf(list + used, n - used, "%s%.40s", count ? ", " : "", v);
        else if (count == 8) snprintf(list + used, n - used, ", ...");
    }
    return count;
}

/* "FILE:LINE: the route from S to D names KIND 'ID', which the file does
 * not declare (its N KINDs: a, b, ...)" into buf; route: its <route> tag,
 * NULL where the name sits elsewhere (a zone route). */
static void undeclared_said(const char *platform, const char *text, const char *at, const char *route,
                            const char *kind, const char *id, char *buf, size_t n)
{
    int line = 1;
    for (const char *t = text; t < at; t++) line += *t == '\n';
    char src[64] = "", dst[64] = "", where[160] = "a route", list[400];
    if (route) {
        const char *end = route + strcspn(route, ">");
        tag_attr(route, end, "src", src, sizeof src);
        tag_attr(route, end, "dst", dst, sizeof dst);
        snprintf(where, sizeof where, "the route from %s to %s", src, dst);
    }
    int count = declared_ids(text, kind, list, sizeof list);
    snprintf(buf, n, "%s:%d: %s names %s '%s', which the file does not declare (its %d %s%s%s%s)", platform, line,
             where, kind, id, count, kind, count == 1 ? "" : "s", count ? ": " : "", list);
}

/* The last <route> tag starting before at, or NULL. */
static const char *route_before(const char *text, const char *at)
{
    const char *t, *end, *route = NULL;
    for (t = text; (t = next_tag(t + 1, "route", &end)) != NULL && t < at; t = end) route = t;
    return route;
}

/* SimGrid's "Link not found: X" ("Uncaught exception std::invalid_argument:
 * ..."), said in the file's terms: the line of the route naming X, and the
 * links the file declares. Left as it is where the file cannot be read or
 * no route names X. */
static void unknown_link_in_file_terms(const char *platform, const char *id, char *buf, size_t n)
{
    char *text = file_text(platform), v[256];
    const char *end, *at = NULL, *t;
    if (!text) return;
    for (t = text; !at && (t = next_tag(t + 1, "link_ctn", &end)) != NULL; t = end) {
        tag_attr(t, end, "id", v, sizeof v);
        if (!strcmp(v, id)) at = t;
    }
    if (at) undeclared_said(platform, text, at, route_before(text, at), "link", id, buf, n);
    free(text);
}

/* SimGrid's "Parse error at F:L: Route dst='X' does name a node. Existing
 * netpoints:" (its words, "does" for "does not", the list cut off on
 * lines of their own), said as an unknown link is: the route, the host
 * and the hosts the file declares. */
static void unknown_host_in_file_terms(const char *platform, char *buf, size_t n)
{
    const char *e = strstr(buf, ": Route "), *d = e;
    char end_name[8], id[256];
    if (!e || sscanf(e, ": Route %7[a-z]='%255[^']' does name a node", end_name, id) != 2) return;
    while (d > buf && isdigit((unsigned char)d[-1])) d--;
    int line = d < e ? atoi(d) : 0;
    char *text = line > 0 ? file_text(platform) : NULL;
    const char *at = text;
    for (int k = 1; k < line && at; k++) at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
    const char *rend, *route = at && *at ? next_tag(at + 1, "route", &rend) : NULL;
    if (route && route < at + strcspn(at, "\n")) undeclared_said(platform, text, route, route, "host", id, buf, n);
    free(text);
}

/* SimGrid's refusal of an id given twice, in the file's terms: a host's
 * came as "Uncaught exception simgrid::AssertionError by maestro/0:
 * Refusing to create a second host named 'gpu1'.", a SPLITDUPLEX link's
 * named its half, port1_UP. Other reasons are left as they are. */
static void reason_in_file_terms(const char *platform, char *buf, size_t n)
{
    char id[256];
    const char *h = strstr(buf, "Refusing to create a second host named '");
    if (h && sscanf(h, "Refusing to create a second host named '%255[^']'", id) == 1) {
        snprintf(buf, n, "host '%s' is declared twice (each host id once; model/README.md)", id);
        return;
    }
    if (strstr(buf, "' does name a node")) {
        unknown_host_in_file_terms(platform, buf, n);
        return;
    }
    const char *unknown = strstr(buf, "Link not found: ");
    if (unknown && sscanf(unknown, "Link not found: %255s", id) == 1) {
        unknown_link_in_file_terms(platform, id, buf, n);
        return;
    }
    if (sscanf(buf, "Link '%255[^']' declared several times", id) != 1) return;
    size_t k = strlen(id);
    char *text = file_text(platform), quoted[300];
    snprintf(quoted, sizeof quoted, "\"%.290s\"", id);
    int spelt = text && strstr(text, quoted); /* a link the file names port1_UP itself */
    free(text);
    if (!spelt) {
        if (k > 3 && !strcmp(id + k - 3, "_UP")) id[k - 3] = 0;
        else if (k > 5 && !strcmp(id + k - 5, "_DOWN")) id[k - 5] = 0;
    }
    snprintf(buf, n, "link '%s' is declared twice (each link id once; model/README.md)", id);
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
        child_reason(err, res->error, sizeof res->error);
        reason_in_file_terms(j->platform, res->error, sizeof res->error);
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
