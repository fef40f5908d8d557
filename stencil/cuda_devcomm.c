/* The CUDA strategy per rank, "devcomm": rank r holds subdomain r on its
 * GPU (ctx->device), and every phase's messages move over the device
 * communication the launcher chose (runtime/devcomm.h, --device-comm):
 *
 *   nccl  ncclSend / ncclRecv of the phase's messages in one group on the
 *         subdomain's exchange stream (one GPU per rank);
 *   host  staged through pinned host memory over the ranks' host
 *         communicator (MPI or thread ranks; ranks may share a GPU): the
 *         calling thread waits for the packs, exchanges, and enqueues the
 *         copies back.
 *
 * Pack, exchange and unpack all run on the exchange stream, which has
 * waited for the compute stream's event (mark XCH_BEGIN) and which the
 * compute stream waits for after the last phase (XCH_END): the same
 * messages in the same dimension-ordered phases as one process, so the
 * result is the single domain's bit for bit. Stream order keeps the
 * buffers safe: a send buffer is packed again only after the exchange
 * that read it (the NCCL send, or the host provider's device-to-host copy,
 * sits before it on the stream), a receive buffer is refilled only after
 * the unpack that read it; the `sent` / `arrived` events that cuda.c's
 * pack and unpack wait for are recorded after the exchange all the same.
 * With --overlap the inner points of the last step are on the compute
 * stream before the exchange starts, so they run beside it (the host
 * provider's wait is for the exchange stream alone).
 *
 * Messages pair by their order in the plan, which every rank builds
 * alike: a rank's sends to b and b's receives from it both follow it, and
 * both providers match in that order (MPI's and the thread communicator's
 * posting order for one tag, NCCL's issue order per peer), so two messages
 * between the same two ranks in a phase (periodic, two subdomains along
 * the axis) never cross.
 *
 * Peer copies between ranks would need CUDA IPC (cudaIpcGetMemHandle on
 * one node): not implemented; trilap-fdtd refuses --strategy peer on
 * several ranks. */
#include <stdlib.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/comm.h"
#include "runtime/devcomm.h"
#include "runtime/gpu.h"
#include "stencil/cuda_impl.h"

static const char devcomm_what[] =
    "one subdomain per rank on its GPU, ghosts over --device-comm: NCCL send/recv, or host-staged through pinned "
    "memory (ranks may share a GPU)";

#if TL_HAVE_CUDA

typedef struct devcomm_state {
    tl_devcomm *dc;         /* made by the first tl_fdtd_run (collective) */
    tl_devcomm_peer *peers; /* this rank's entries of the busiest phase */
} devcomm_state;

static void devcomm_teardown(tl_fdtd *f)
{
    devcomm_state *ds = f->sglobal;
    if (!ds) return;
    tl_devcomm_destroy(&ds->dc);
    free(ds->peers);
    free(ds);
    f->sglobal = NULL;
}

/* Local (ranks may create one after another): the peer table. */
static tl_status devcomm_setup(tl_fdtd *f)
{
    TL_CHECK(TL_HAVE_NCCL || f->comm->device_comm != TL_DEVCOMM_NCCL, TL_ERR_UNSUPPORTED,
             "strategy devcomm over --device-comm nccl: this build has no NCCL (use --device-comm host)");
    int most = 1;
    for (int d = 0; d < 3; d++) {
        int n = 0;
        for (int k = 0; k < f->nmsg[d]; k++) n += f->msg[d][k].from == f->own || f->msg[d][k].to == f->own;
        if (n > most) most = n;
    }
    devcomm_state *ds;
    TL_ALLOC(ds, 1);
    f->sglobal = ds;
    TL_ALLOC(ds->peers, (size_t)most);
    return TL_OK;
}

/* For traces, each run (its own session): the exchange of each phase
 * involves the ranks of that phase's messages, one call per phase with
 * messages of this rank (devcomm_transfer), so the analysis pairs the
 * k-th exchange with the ranks of its phase alone. */
static tl_status devcomm_declare_peers(tl_fdtd *f, const devcomm_state *ds)
{
    tl_mark_peerset calls[3];
    int *rank = malloc((size_t)(f->nmsg[0] + f->nmsg[1] + f->nmsg[2] + 1) * sizeof *rank), n = 0;
    TL_CHECK(rank, TL_ERR_NOMEM, "the exchange's peers");
    for (int d = 0; d < 3; d++) {
        calls[d] = (tl_mark_peerset){.rank = rank + n, .n = tl_fdtd_phase_ranks(f, d, rank + n)};
        n += calls[d].n;
    }
    tl_status st = tl_devcomm_declare_peers(f->comm, ds->dc, calls, 3);
    free(rank);
    return st;
}

/* Collective: the rank's GPU state (the launcher destroys it at the end)
 * and the device communication, once per solver; the exchange's peers for
 * every run's trace. */
static tl_status devcomm_start(tl_fdtd *f)
{
    devcomm_state *ds = f->sglobal;
    tl_ctx *ctx = f->comm;
    if (ds->dc) return devcomm_declare_peers(f, ds);
    if (!ctx->gpu) {
        tl_gpu_config gc = {.use_priorities = 1};
        TL_TRY(tl_gpu_create(ctx, &gc)); /* agreed across ranks */
    }
    tl_devcomm_config dcfg = {.kind = (tl_devcomm_kind)ctx->device_comm};
    /* the host provider's events belong to the current device: this rank's
     * (a one-process run on this thread may have left another current) */
    cudaError_t e = cudaSetDevice(f->sub[f->own].device);
    tl_status st = e == cudaSuccess ? tl_devcomm_create(ctx, &dcfg, &ds->dc)
                                    : TL_FAIL(TL_ERR_CUDA, "cudaSetDevice(%d): %s", f->sub[f->own].device,
                                              cudaGetErrorString(e));
    TL_TRY(tl_comm_agree(ctx, st)); /* the host provider's is local: none exchanges without the others */
    return devcomm_declare_peers(f, ds);
}

static tl_status devcomm_transfer(tl_fdtd *f, int phase)
{
    devcomm_state *ds = f->sglobal;
    TL_CHECK(ds->dc != NULL, TL_ERR_INVAL, "strategy devcomm: an exchange before tl_fdtd_run made the communicator");
    tl_fdtd_sub *S = &f->sub[f->own];
    tl_fdtd_cuda_sub *cs = S->bstate;
    int n = 0;
    for (int k = 0; k < f->nmsg[phase]; k++) { /* plan order: the pairing */
        tl_fdtd_msg *m = &f->msg[phase][k];
        int out = m->from == f->own, in = m->to == f->own;
        if (!out && !in) continue;
        size_t bytes = (size_t)m->count * f->esz;
        ds->peers[n++] = (tl_devcomm_peer){.rank = out ? m->to : m->from, /* subdomain r is rank r */
                                           .d_send = out ? m->send : NULL,
                                           .send_bytes = out ? bytes : 0,
                                           .d_recv = in ? m->recv : NULL,
                                           .recv_bytes = in ? bytes : 0};
    }
    if (n == 0) return TL_OK;
    TL_CUDA(cudaSetDevice(S->device));
    tl_probe_push(f->ctx, TL_CAT_P2P, "devcomm_exchange");
    TL_TRY(tl_fdtd_cuda_time(f, S->device, TL_FDTD_OP_COPY, 0, cs->s_xch));
    tl_status st = tl_devcomm_exchange(f->comm, ds->dc, TL_CHAN_WORLD, ds->peers, n, cs->s_xch);
    tl_probe_pop(f->ctx);
    TL_TRY(st);
    TL_TRY(tl_fdtd_cuda_time(f, S->device, TL_FDTD_OP_COPY, 1, cs->s_xch));
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        tl_fdtd_cuda_msg *cm = m->state;
        if (m->from == f->own) TL_CUDA(cudaEventRecord(cm->sent, cs->s_xch));
        if (m->to == f->own) TL_CUDA(cudaEventRecord(cm->arrived, cs->s_xch));
    }
    return TL_OK;
}

const tl_fdtd_strategy tl_fdtd_xch_devcomm = {
    .name = "devcomm",
    .backend = TL_FDTD_BACKEND_CUDA,
    .what = devcomm_what,
    .per_rank = 1,
    .setup = devcomm_setup,
    .start = devcomm_start,
    .transfer = devcomm_transfer,
    .teardown = devcomm_teardown,
};

#else /* !TL_HAVE_CUDA */

static tl_status devcomm_missing(tl_fdtd *f)
{
    (void)f;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "the devcomm strategy is not built (nvcc was not found)");
}
static void devcomm_nothing(tl_fdtd *f) { (void)f; }
const tl_fdtd_strategy tl_fdtd_xch_devcomm = {.name = "devcomm", .backend = TL_FDTD_BACKEND_CUDA,
                                              .what = devcomm_what, .per_rank = 1, .setup = devcomm_missing,
                                              .teardown = devcomm_nothing};
#endif
