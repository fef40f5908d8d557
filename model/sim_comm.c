/* One communication's messages in the SimGrid engine (sim.c): NCCL's
 * fixed cost on host nccl<R>, a halo's and a ring's point-to-point
 * messages, the allreduce (binomial tree or ring), and a host-staged halo
 * through its node's host cpu<N>, whose daemon forwards it to the
 * destination GPU. */
#include "model/model.h"
#include "model/sim_impl.h"

#include <stdio.h>
#include <stdlib.h>

#include "config.h"

#if TL_HAVE_SIMGRID

typedef struct sim_stage_msg {
    int src, dst, chan;
    int64_t bytes;
} sim_stage_msg;

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

void tl_sim_comm_run(sim_world *w, sim_rank *R, int chan, const tl_mop *op, sim_xfer *x)
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
        int node = tl_sim_gpu_node(sg, R->gpu);
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
void tl_sim_stage_main(int argc, char **argv)
{
    const sim_world *w = tl_sim_actor_arg(argc, argv);
    const tl_simgrid_lib *sg = w->sg;
    int node = atoi(argv[1]);
    sg_mailbox_t box = stage_box(sg, node);
    for (;;) {
        sim_stage_msg *m = sg->sg_mailbox_get(box);
        sg->sg_mailbox_put(msg_box(sg, m->chan, m->src, m->dst), PAYLOAD, (long)(m->bytes > 0 ? m->bytes : 1));
        free(m);
    }
}

#endif
