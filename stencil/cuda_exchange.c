/* The CUDA exchange strategies, one table each (the paper's two and NCCL):
 *
 *   host  device -> pinned host -> device: cudaMemcpyAsync into a pinned
 *         buffer on the sender's exchange stream, then out of it on the
 *         receiver's, joined by an event (no host synchronisation);
 *   peer  cudaMemcpyPeerAsync from the sender's buffer straight into the
 *         receiver's, with peer access enabled where the GPUs allow it
 *         (one GPU: a device-to-device copy);
 *   nccl  ncclSend / ncclRecv of every message of a phase in one group, one
 *         communicator rank per GPU (ncclCommInitAll) on a stream of its
 *         own; messages between subdomains of one GPU are sends to self.
 *
 * All three move the same packed buffers in the same order, so their
 * results are identical bit for bit; they differ only in the copy. */
#include <stdio.h>
#include <stdlib.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/gpu.h"
#include "stencil/cuda_impl.h"

#if TL_HAVE_CUDA

static void no_teardown(tl_fdtd *f) {}

/* ---- host-staged ---------------------------------------------------------- */

static tl_status host_setup(tl_fdtd *f)
{
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            tl_fdtd_msg *m = &f->msg[d][k];
            tl_fdtd_cuda_msg *cm = m->state;
            TL_TRY(tl_gpu_host_alloc(&cm->h_stage, (size_t)m->count * f->esz));
        }
    return TL_OK;
}

static void host_teardown(tl_fdtd *f)
{
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            tl_fdtd_cuda_msg *cm = f->msg[d][k].state;
            if (cm) tl_gpu_host_free(&cm->h_stage);
        }
}

/* One half of a staged message: on GPU dev, stream s waits for `after`,
 * copies bytes from src to dst (timed, traced as `name`), then records
 * `done`. */
static tl_status staged_copy(tl_fdtd *f, int dev, cudaStream_t s, cudaEvent_t after, const char *name, void *dst,
                             const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaEvent_t done)
{
    TL_CUDA(cudaSetDevice(dev));
    TL_CUDA(cudaStreamWaitEvent(s, after, 0));
    tl_probe_push(f->ctx, TL_CAT_MEMCPY, name);
    TL_TRY(tl_fdtd_cuda_time(f, dev, TL_FDTD_OP_COPY, 0, s));
    TL_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, s));
    TL_TRY(tl_fdtd_cuda_time(f, dev, TL_FDTD_OP_COPY, 1, s));
    tl_probe_pop(f->ctx);
    TL_CUDA(cudaEventRecord(done, s));
    return TL_OK;
}

static tl_status host_transfer(tl_fdtd *f, int phase)
{
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        tl_fdtd_cuda_msg *cm = m->state;
        tl_fdtd_cuda_sub *A = tl_fdtd_cuda_sub_of(f, m->from), *B = tl_fdtd_cuda_sub_of(f, m->to);
        size_t bytes = (size_t)m->count * f->esz;
        /* the pinned buffer is free once the last unpack has run */
        TL_TRY(staged_copy(f, f->sub[m->from].device, A->s_xch, cm->unpacked, "copy_d2h", cm->h_stage, m->send,
                           bytes, cudaMemcpyDeviceToHost, cm->sent));
        TL_TRY(staged_copy(f, f->sub[m->to].device, B->s_xch, cm->sent, "copy_h2d", m->recv, cm->h_stage, bytes,
                           cudaMemcpyHostToDevice, cm->arrived));
    }
    return TL_OK;
}

const tl_fdtd_strategy tl_fdtd_xch_host = {
    .name = "host",
    .backend = TL_FDTD_BACKEND_CUDA,
    .what = "device -> pinned host -> device (the paper's host-staged exchange)",
    .setup = host_setup,
    .transfer = host_transfer,
    .teardown = host_teardown,
};

/* ---- peer ----------------------------------------------------------------- */

static tl_status peer_setup(tl_fdtd *f)
{
    const tl_fdtd_cuda *g = f->bglobal;
    for (int a = 0; a < g->ngpu; a++)
        for (int b = 0; b < g->ngpu; b++) {
            if (a == b) continue;
            int on = 0;
            TL_TRY(tl_gpu_peer_enable(a, b, &on));
            if (!on) tl_log("note: GPU %d cannot access GPU %d directly; cudaMemcpyPeerAsync goes through the host", a, b);
        }
    return TL_OK;
}

static tl_status peer_transfer(tl_fdtd *f, int phase)
{
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        tl_fdtd_cuda_msg *cm = m->state;
        tl_fdtd_cuda_sub *A = tl_fdtd_cuda_sub_of(f, m->from), *B = tl_fdtd_cuda_sub_of(f, m->to);
        int da = f->sub[m->from].device, db = f->sub[m->to].device;
        TL_CUDA(cudaSetDevice(da));
        TL_CUDA(cudaStreamWaitEvent(A->s_xch, cm->unpacked, 0)); /* the receive buffer is free */
        tl_probe_push(f->ctx, TL_CAT_MEMCPY, "copy_peer");
        TL_TRY(tl_fdtd_cuda_time(f, da, TL_FDTD_OP_COPY, 0, A->s_xch));
        TL_CUDA(cudaMemcpyPeerAsync(m->recv, db, m->send, da, (size_t)m->count * f->esz, A->s_xch));
        TL_TRY(tl_fdtd_cuda_time(f, da, TL_FDTD_OP_COPY, 1, A->s_xch));
        tl_probe_pop(f->ctx);
        TL_CUDA(cudaEventRecord(cm->sent, A->s_xch));
        TL_CUDA(cudaSetDevice(db));
        TL_CUDA(cudaStreamWaitEvent(B->s_xch, cm->sent, 0));
        TL_CUDA(cudaEventRecord(cm->arrived, B->s_xch));
    }
    return TL_OK;
}

const tl_fdtd_strategy tl_fdtd_xch_peer = {
    .name = "peer",
    .backend = TL_FDTD_BACKEND_CUDA,
    .what = "cudaMemcpyPeerAsync between the GPUs, peer access enabled (the paper's direct exchange)",
    .setup = peer_setup,
    .transfer = peer_transfer,
    .teardown = no_teardown,
};

/* ---- NCCL ----------------------------------------------------------------- */

#if TL_HAVE_NCCL
typedef struct nccl_state {
    int ngpu;
    ncclComm_t comm[TL_FDTD_MAXGPU];
    cudaStream_t s[TL_FDTD_MAXGPU];
    cudaEvent_t done[TL_FDTD_MAXGPU];
    const tl_ctx *registered; /* the run whose probes know the NCCL streams */
} nccl_state;

static void nccl_teardown(tl_fdtd *f)
{
    nccl_state *ns = f->sglobal;
    if (!ns) return;
    for (int d = 0; d < ns->ngpu; d++) {
        cudaSetDevice(d);
        if (ns->comm[d]) ncclCommDestroy(ns->comm[d]);
        if (ns->s[d]) cudaStreamDestroy(ns->s[d]);
        if (ns->done[d]) cudaEventDestroy(ns->done[d]);
    }
    free(ns);
    f->sglobal = NULL;
}

static tl_status nccl_setup(tl_fdtd *f)
{
    const tl_fdtd_cuda *g = f->bglobal;
    nccl_state *ns;
    TL_ALLOC(ns, 1);
    f->sglobal = ns;
    ns->ngpu = g->ngpu;
    int devs[TL_FDTD_MAXGPU];
    for (int d = 0; d < g->ngpu; d++) devs[d] = d;
    TL_NCCL(ncclCommInitAll(ns->comm, g->ngpu, devs));
    for (int d = 0; d < g->ngpu; d++) {
        int lo, hi;
        TL_CUDA(cudaSetDevice(d));
        TL_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
        TL_CUDA(cudaStreamCreateWithPriority(&ns->s[d], cudaStreamNonBlocking, hi));
        TL_CUDA(cudaEventCreateWithFlags(&ns->done[d], cudaEventDisableTiming));
    }
    return TL_OK;
}

static tl_status nccl_transfer(tl_fdtd *f, int phase)
{
    nccl_state *ns = f->sglobal;
    if (f->ctx && ns->registered != f->ctx) { /* the trace puts the NCCL kernels on the p2p lane */
        for (int d = 0; d < ns->ngpu; d++) tl_probe_stream(f->ctx, ns->s[d], TL_ROLE_P2P, "nccl");
        ns->registered = f->ctx;
    }
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        tl_fdtd_cuda_msg *cm = m->state;
        int da = f->sub[m->from].device, db = f->sub[m->to].device;
        TL_CUDA(cudaSetDevice(da));
        TL_CUDA(cudaStreamWaitEvent(ns->s[da], cm->packed, 0));
        TL_CUDA(cudaSetDevice(db));
        TL_CUDA(cudaStreamWaitEvent(ns->s[db], cm->unpacked, 0));
    }
    tl_probe_push(f->ctx, TL_CAT_P2P, "nccl_sendrecv");
    for (int d = 0; d < ns->ngpu; d++) {
        TL_CUDA(cudaSetDevice(d));
        TL_TRY(tl_fdtd_cuda_time(f, d, TL_FDTD_OP_COPY, 0, ns->s[d]));
    }
    TL_NCCL(ncclGroupStart());
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        int da = f->sub[m->from].device, db = f->sub[m->to].device;
        size_t bytes = (size_t)m->count * f->esz;
        TL_NCCL(ncclSend(m->send, bytes, ncclInt8, db, ns->comm[da], ns->s[da]));
        TL_NCCL(ncclRecv(m->recv, bytes, ncclInt8, da, ns->comm[db], ns->s[db]));
    }
    TL_NCCL(ncclGroupEnd());
    tl_probe_pop(f->ctx);
    for (int d = 0; d < ns->ngpu; d++) {
        TL_CUDA(cudaSetDevice(d));
        TL_TRY(tl_fdtd_cuda_time(f, d, TL_FDTD_OP_COPY, 1, ns->s[d]));
        TL_CUDA(cudaEventRecord(ns->done[d], ns->s[d]));
    }
    for (int k = 0; k < f->nmsg[phase]; k++) {
        tl_fdtd_msg *m = &f->msg[phase][k];
        tl_fdtd_cuda_msg *cm = m->state;
        int da = f->sub[m->from].device, db = f->sub[m->to].device;
        TL_CUDA(cudaSetDevice(da));
        TL_CUDA(cudaEventRecord(cm->sent, ns->s[da]));
        TL_CUDA(cudaSetDevice(db));
        TL_CUDA(cudaStreamWaitEvent(tl_fdtd_cuda_sub_of(f, m->to)->s_xch, ns->done[db], 0));
        TL_CUDA(cudaEventRecord(cm->arrived, tl_fdtd_cuda_sub_of(f, m->to)->s_xch));
    }
    return TL_OK;
}

const tl_fdtd_strategy tl_fdtd_xch_nccl = {
    .name = "nccl",
    .backend = TL_FDTD_BACKEND_CUDA,
    .what = "ncclSend/ncclRecv in one group per phase, one communicator rank per GPU",
    .setup = nccl_setup,
    .transfer = nccl_transfer,
    .teardown = nccl_teardown,
};
#else
static tl_status nccl_missing(tl_fdtd *f)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED, "the nccl strategy is not built (nccl.h was not found): use host or peer");
}
const tl_fdtd_strategy tl_fdtd_xch_nccl = {
    .name = "nccl", .backend = TL_FDTD_BACKEND_CUDA, .what = "ncclSend/ncclRecv (not built)",
    .setup = nccl_missing, .transfer = NULL, .teardown = no_teardown,
};
#endif

#else /* !TL_HAVE_CUDA */

static tl_status cuda_missing(tl_fdtd *f)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED, "CUDA exchange strategies are not built (nvcc was not found)");
}
static void no_teardown(tl_fdtd *f) {}
const tl_fdtd_strategy tl_fdtd_xch_host = {.name = "host", .backend = TL_FDTD_BACKEND_CUDA,
                                           .what = "host-staged (not built)", .setup = cuda_missing,
                                           .teardown = no_teardown};
const tl_fdtd_strategy tl_fdtd_xch_peer = {.name = "peer", .backend = TL_FDTD_BACKEND_CUDA,
                                           .what = "peer copies (not built)", .setup = cuda_missing,
                                           .teardown = no_teardown};
const tl_fdtd_strategy tl_fdtd_xch_nccl = {.name = "nccl", .backend = TL_FDTD_BACKEND_CUDA,
                                           .what = "NCCL (not built)", .setup = cuda_missing,
                                           .teardown = no_teardown};
#endif
