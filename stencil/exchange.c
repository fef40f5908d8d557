/* The exchange strategies, one table each, chosen by name. The CPU
 * backend's "copy" (every subdomain in this process) and "ranks" (one
 * subdomain per rank, host messages) live here; the CUDA ones in one
 * process (host-staged, peer, NCCL) in cuda_exchange.c and the CUDA one
 * per rank (device communication) in cuda_devcomm.c, stubs there when the
 * build has no CUDA or NCCL. */
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "stencil/fdtd_impl.h"

static tl_status copy_setup(tl_fdtd *f) { return TL_OK; }
static void copy_teardown(tl_fdtd *f) {}

static tl_status copy_transfer(tl_fdtd *f, int phase)
{
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        memcpy(m->recv, m->send, (size_t)m->count * f->esz);
    }
    return TL_OK;
}

static const tl_fdtd_strategy xch_copy = {
    .name = "copy",
    .backend = TL_FDTD_BACKEND_CPU,
    .what = "host memory copies between the subdomains' buffers (cpu backend)",
    .setup = copy_setup,
    .transfer = copy_transfer,
    .teardown = copy_teardown,
};

/* ranks: this rank's messages of a phase as isend / irecv of the same
 * contiguous buffers copy uses, every receive posted before the sends;
 * the unpacks wait for all of them, so the phases stay ordered (x, y, z)
 * and the result is the one-process result bit for bit. A message to
 * itself (periodic, one subdomain along the axis) is a memcpy. The tag
 * is the receiver's (phase, side): unique between two ranks in a phase
 * even when both sides join the same pair (two subdomains, periodic). */
typedef struct ranks_state {
    tl_request **req; /* enough for the busiest phase */
} ranks_state;

static tl_status ranks_setup(tl_fdtd *f)
{
    size_t most = 1;
    for (int d = 0; d < 3; d++) {
        size_t n = 0;
        for (int k = 0; k < f->nmsg[d]; k++)
            n += (size_t)(f->msg[d][k].from == f->own) + (size_t)(f->msg[d][k].to == f->own);
        if (n > most) most = n;
    }
    ranks_state *rs;
    TL_ALLOC(rs, 1);
    rs->req = calloc(most, sizeof *rs->req);
    if (!rs->req) {
        free(rs);
        return TL_FAIL(TL_ERR_NOMEM, "%zu message requests", most);
    }
    f->sglobal = rs;
    return TL_OK;
}

static void ranks_teardown(tl_fdtd *f)
{
    ranks_state *rs = f->sglobal;
    if (!rs) return;
    free(rs->req);
    free(rs);
    f->sglobal = NULL;
}

static tl_status ranks_transfer(tl_fdtd *f, int phase)
{
    ranks_state *rs = f->sglobal;
    tl_ctx *ctx = f->comm;
    size_t n = 0;
    tl_status st = TL_OK;
    for (int pass = 0; pass < 2 && st == TL_OK; pass++) /* receives, then sends */
        for (int k = 0; k < f->nmsg[phase] && st == TL_OK; k++) {
            tl_fdtd_msg *m = &f->msg[phase][k];
            size_t bytes = (size_t)m->count * f->esz;
            int tag = 2 * phase + m->side;
            if (m->from == f->own && m->to == f->own) {
                if (pass == 0) memcpy(m->recv, m->send, bytes);
            } else if (pass == 0 && m->to == f->own)
                st = tl_comm_irecv(ctx, TL_CHAN_WORLD, m->recv, bytes, m->from, tag, &rs->req[n++]);
            else if (pass == 1 && m->from == f->own)
                st = tl_comm_isend(ctx, TL_CHAN_WORLD, m->send, bytes, m->to, tag, &rs->req[n++]);
        }
    if (st != TL_OK) n--; /* the failed post made no request */
    tl_status w = tl_comm_waitall(ctx, rs->req, n);
    return st != TL_OK ? st : w;
}

static const tl_fdtd_strategy xch_ranks = {
    .name = "ranks",
    .backend = TL_FDTD_BACKEND_CPU,
    .what = "one subdomain per rank, host messages between the ranks (runtime/comm.h; MPI or thread ranks; cpu backend)",
    .per_rank = 1,
    .setup = ranks_setup,
    .transfer = ranks_transfer,
    .teardown = ranks_teardown,
};

extern const tl_fdtd_strategy tl_fdtd_xch_host, tl_fdtd_xch_peer, tl_fdtd_xch_nccl, tl_fdtd_xch_devcomm;

static const tl_fdtd_strategy *const strategies[] = {&xch_copy, &xch_ranks, &tl_fdtd_xch_host, &tl_fdtd_xch_peer,
                                                     &tl_fdtd_xch_nccl, &tl_fdtd_xch_devcomm};

const tl_fdtd_strategy *tl_fdtd_strategy_find(const char *name, tl_fdtd_backend_kind b)
{
    for (size_t i = 0; i < sizeof strategies / sizeof strategies[0]; i++)
        if (strcmp(strategies[i]->name, name) == 0 && strategies[i]->backend == b) return strategies[i];
    return NULL;
}

int tl_fdtd_strategy_per_rank(const char *name, tl_fdtd_backend_kind b)
{
    const tl_fdtd_strategy *s = name ? tl_fdtd_strategy_find(name, b) : NULL;
    return s ? s->per_rank : -1;
}

const char *tl_fdtd_strategy_default(tl_fdtd_backend_kind b, int per_rank)
{
    if (b == TL_FDTD_BACKEND_CUDA) return per_rank ? "devcomm" : "peer";
    return per_rank ? "ranks" : "copy";
}

const char *tl_fdtd_strategy_names(void) { return "cpu: copy|ranks; cuda: host|peer|nccl|devcomm"; }
