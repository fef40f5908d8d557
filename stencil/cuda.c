/* The CUDA backend: subdomains mapped onto the visible GPUs (block-wise,
 * several to a GPU when they outnumber the GPUs), or, per rank (strategy
 * devcomm), this rank's subdomain alone on the rank's GPU (ctx->device:
 * local rank % GPUs, as the launcher binds it); arrays in device memory,
 * kernels from fdtd_kernels.cu on each subdomain's compute stream, pack
 * and unpack on its exchange stream. Stubs without CUDA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/evtimer.h"
#include "runtime/gpu.h"
#include "stencil/cuda_impl.h"
#include "stencil/fill.h"
#include "stencil/memneed.h"
#include "runtime/hostmem.h"

#if TL_HAVE_CUDA
#include "stencil/fdtd_kernels.h"

static const char *const op_names[] = {[TL_FDTD_OP_V] = "update_v",      [TL_FDTD_OP_V_CPML] = "update_v_cpml",
                                       [TL_FDTD_OP_P] = "update_p",      [TL_FDTD_OP_P_CPML] = "update_p_cpml",
                                       [TL_FDTD_OP_PACK] = "pack",       [TL_FDTD_OP_COPY] = "copy",
                                       [TL_FDTD_OP_UNPACK] = "unpack"};

tl_status tl_fdtd_cuda_time(tl_fdtd *f, int dev, int op, int end, cudaStream_t s)
{
    tl_fdtd_cuda *g = f->bglobal;
    if (!g || !g->evt[dev]) return TL_OK;
    TL_TRY(end ? tl_evtimer_end(g->evt[dev], op, s) : tl_evtimer_begin(g->evt[dev], op, s));
    return TL_OK;
}

/* Whether this process drives a subdomain on GPU d. */
static int dev_used(const tl_fdtd *f, int d)
{
    for (int i = 0; i < f->nsub; i++)
        if (tl_fdtd_mine(f, i) && f->sub[i].device == d) return 1;
    return 0;
}

/* Wait for stream s: per rank under the runtime's watch (a peer that fails
 * or never sends ends the wait with an error instead of a hang). */
static tl_status stream_wait(tl_fdtd *f, cudaStream_t s, const char *what)
{
    if (f->comm && f->comm->gpu) TL_TRY(tl_gpu_sync(f->comm, s, what));
    else TL_CUDA(cudaStreamSynchronize(s));
    return TL_OK;
}

static tl_status cuda_timers(tl_fdtd *f, int reset)
{
    tl_fdtd_cuda *g = f->bglobal;
    if (!f->cfg.breakdown) return TL_OK;
    tl_fdtd_stats *S = &f->stats;
    S->nops = (int)(sizeof op_names / sizeof op_names[0]);
    for (int k = 0; k < S->nops; k++) {
        S->op[k].name = op_names[k];
        S->op[k].count = 0;
        S->op[k].total_s = S->op[k].min_s = S->op[k].max_s = 0;
    }
    for (int d = 0; d < g->ngpu; d++) {
        if (!g->evt[d]) continue; /* no subdomain of this process there */
        TL_CUDA(cudaSetDevice(d));
        if (reset) {
            TL_TRY(tl_evtimer_reset(g->evt[d]));
            continue;
        }
        TL_TRY(tl_evtimer_collect(g->evt[d]));
        for (int k = 0; k < S->nops; k++) {
            tl_evtimer_stat e = tl_evtimer_stat_of(g->evt[d], k);
            if (e.count == 0) continue;
            if (S->op[k].count == 0 || e.min_s < S->op[k].min_s) S->op[k].min_s = e.min_s;
            if (e.max_s > S->op[k].max_s) S->op[k].max_s = e.max_s;
            S->op[k].count += e.count;
            S->op[k].total_s += e.total_s;
        }
    }
    return TL_OK;
}

static tl_status dev_alloc_fill(void **d, size_t bytes, const void *host)
{
    TL_CUDA(cudaMalloc(d, bytes ? bytes : 1));
    if (host) TL_CUDA(cudaMemcpy(*d, host, bytes, cudaMemcpyHostToDevice));
    else TL_CUDA(cudaMemset(*d, 0, bytes ? bytes : 1));
    return TL_OK;
}

static tl_status setup_sub(tl_fdtd *f, int i, void *host)
{
    tl_fdtd_sub *s = &f->sub[i];
    size_t bytes = s->full.count * f->esz;
    TL_CUDA(cudaSetDevice(s->device));
    tl_fdtd_cuda_sub *cs;
    TL_ALLOC(cs, 1);
    s->bstate = cs;
    int lo, hi;
    TL_CUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    TL_CUDA(cudaStreamCreateWithPriority(&cs->s_comp, cudaStreamNonBlocking, lo));
    TL_CUDA(cudaStreamCreateWithPriority(&cs->s_xch, cudaStreamNonBlocking, hi));
    TL_CUDA(cudaEventCreateWithFlags(&cs->ev_comp, cudaEventDisableTiming));
    TL_CUDA(cudaEventCreateWithFlags(&cs->ev_xch, cudaEventDisableTiming));
    TL_CUDA(cudaStreamCreateWithPriority(&cs->shell.s, cudaStreamNonBlocking, hi));
    TL_CUDA(cudaEventCreateWithFlags(&cs->shell.fork, cudaEventDisableTiming));
    TL_CUDA(cudaEventCreateWithFlags(&cs->shell.join, cudaEventDisableTiming));
    for (int k = 0; k < TL_FDTD_NFIELDS; k++) {
        if (f->cfg.init) TL_TRY(tl_fdtd_fill_field(f, i, k, host));
        TL_TRY(dev_alloc_fill(&s->fld[k], bytes, f->cfg.init ? host : NULL)); /* zero fields: a device memset */
    }
    if (tl_fdtd_heterogeneous(&f->cfg))
        for (int k = 0; k < 4; k++) {
            TL_TRY(tl_fdtd_fill_material(f, i, k, host));
            TL_TRY(dev_alloc_fill(&s->mat[k], bytes, host));
        }
    for (int m = 0; m < TL_FDTD_NPSI; m++)
        for (int side = 0; side < 2; side++)
            if (s->psi[m][side].count) TL_TRY(dev_alloc_fill(&s->psi_mem[m][side], s->psi[m][side].count * f->esz, NULL));
    TL_TRY(tl_fdtd_fill_profiles(f, host));
    TL_TRY(dev_alloc_fill(&s->prof, tl_fdtd_profiles_count(f) * f->esz, host));
    /* receivers owned here */
    for (int r = 0; r < f->cfg.nrec; r++) cs->nloc += f->rec_sub[r] == i;
    if (cs->nloc) {
        int64_t total = f->cfg.warmup + f->cfg.steps;
        int64_t *idx;
        TL_ALLOC(cs->loc_rec, (size_t)cs->nloc);
        TL_ALLOC(idx, (size_t)cs->nloc);
        for (int r = 0, j = 0; r < f->cfg.nrec; r++)
            if (f->rec_sub[r] == i) {
                cs->loc_rec[j] = r;
                idx[j++] = f->rec_idx[r];
            }
        tl_status st = dev_alloc_fill((void **)&cs->d_rec_idx, (size_t)cs->nloc * sizeof *idx, idx);
        free(idx);
        TL_TRY(st);
        TL_TRY(dev_alloc_fill((void **)&cs->d_traces, (size_t)(cs->nloc * (total > 0 ? total : 1)) * sizeof(double), NULL));
    }
    TL_CUDA(cudaMalloc((void **)&cs->d_bad, sizeof *cs->d_bad));
    TL_CUDA(cudaMalloc((void **)&cs->d_e, sizeof *cs->d_e));
    return TL_OK;
}

/* A message's buffers, segment descriptors and events: the sender's side
 * where this process holds the sender, the receiver's where it holds the
 * receiver (per rank: one side, or both for a message to itself). */
static tl_status setup_msg(tl_fdtd *f, tl_fdtd_msg *m)
{
    tl_fdtd_cuda_msg *cm;
    TL_ALLOC(cm, 1);
    m->state = cm;
    size_t bytes = (size_t)m->count * f->esz;
    tl_fdtd_segdesc d[TL_FDTD_MAXSEG];
    const tl_fdtd_sub *A = &f->sub[m->from], *B = &f->sub[m->to];
    if (tl_fdtd_mine(f, m->from)) {
        TL_CUDA(cudaSetDevice(A->device));
        TL_CUDA(cudaMalloc(&m->send, bytes));
        tl_fdtd_msg_descs(f, m, 1, d);
        TL_TRY(dev_alloc_fill((void **)&cm->d_src, sizeof d, d));
        TL_CUDA(cudaEventCreateWithFlags(&cm->packed, cudaEventDisableTiming));
        TL_CUDA(cudaEventCreateWithFlags(&cm->sent, cudaEventDisableTiming));
    }
    if (tl_fdtd_mine(f, m->to)) {
        TL_CUDA(cudaSetDevice(B->device));
        TL_CUDA(cudaMalloc(&m->recv, bytes));
        tl_fdtd_msg_descs(f, m, 0, d);
        TL_TRY(dev_alloc_fill((void **)&cm->d_dst, sizeof d, d));
        TL_CUDA(cudaEventCreateWithFlags(&cm->arrived, cudaEventDisableTiming));
        TL_CUDA(cudaEventCreateWithFlags(&cm->unpacked, cudaEventDisableTiming));
    }
    return TL_OK;
}

/* Every GPU's share of the subdomains against its free memory
 * (cudaMemGetInfo), and the host's staging of the initial fields, before
 * anything is allocated. */
static tl_status check_device_memory(tl_fdtd *f, int ngpu, double host_staging)
{
    char what[256], a[32], b[32], c[32];
    tl_fdtd_run_label(f, what, sizeof what);
    for (int d = 0; d < ngpu; d++) {
        double need = 0;
        int nsub = 0;
        for (int i = 0; i < f->nsub; i++)
            if (tl_fdtd_mine(f, i) && f->sub[i].device == d) {
                need += tl_fdtd_sub_bytes(f, i);
                nsub++;
            }
        if (!nsub) continue;
        double free_b = 0, total_b = 0;
        TL_CUDA(cudaSetDevice(d));
        TL_TRY(tl_gpu_mem_info(&free_b, &total_b));
        TL_CHECK(need <= free_b, TL_ERR_NOMEM,
                 "%s needs %s on GPU %d (%d subdomain%s); %s of its %s is free: use more GPUs "
                 "(--gpus, --decomp) or a smaller grid",
                 what, tl_bytes_str(need, a, sizeof a), d, nsub, nsub == 1 ? "" : "s",
                 tl_bytes_str(free_b, b, sizeof b), tl_bytes_str(total_b, c, sizeof c));
    }
    return tl_hostmem_check(what, host_staging);
}

static tl_status cuda_setup(tl_fdtd *f)
{
    int visible = 0;
    cudaError_t e = cudaGetDeviceCount(&visible);
    TL_CHECK(e == cudaSuccess, TL_ERR_CUDA, "the cuda backend needs a GPU: cudaGetDeviceCount: %s", cudaGetErrorString(e));
    TL_CHECK(visible > 0, TL_ERR_INVAL, "the cuda backend needs a GPU, and none is visible");
    int ngpu;
    if (f->own >= 0) { /* per rank: the launcher's binding, several ranks to a GPU with --device-comm host */
        int dev = f->comm->device;
        TL_CHECK(dev >= 0, TL_ERR_INVAL,
                 "rank %d has no GPU (--no-gpu, or none visible): one subdomain per rank on the cuda backend needs one",
                 f->comm->rank);
        TL_CHECK(dev < visible && dev < TL_FDTD_MAXGPU, TL_ERR_INVAL, "rank %d is bound to GPU %d of %d visible",
                 f->comm->rank, dev, visible);
        ngpu = dev + 1; /* device numbers 0..dev; this rank uses dev alone */
        for (int i = 0; i < f->nsub; i++) f->sub[i].device = tl_fdtd_mine(f, i) ? dev : -1;
    } else {
        ngpu = f->cfg.gpus > 0 ? f->cfg.gpus : visible;
        TL_CHECK(ngpu <= visible, TL_ERR_INVAL, "--gpus %d: only %d GPU%s visible", ngpu, visible,
                 visible == 1 ? " is" : "s are");
        if (ngpu > f->nsub) ngpu = f->nsub;
        if (ngpu > TL_FDTD_MAXGPU) ngpu = TL_FDTD_MAXGPU;
        for (int i = 0; i < f->nsub; i++) f->sub[i].device = (int)((int64_t)i * ngpu / f->nsub);
    }
    tl_fdtd_cuda *g;
    TL_ALLOC(g, 1);
    f->bglobal = g;
    g->ngpu = ngpu;
    for (int d = 0; d < ngpu; d++) {
        if (!dev_used(f, d)) continue;
        TL_CUDA(cudaDeviceGetAttribute(&g->sms[d], cudaDevAttrMultiProcessorCount, d));
        if (f->cfg.breakdown) { /* events belong to a device: one timer per GPU */
            TL_CUDA(cudaSetDevice(d));
            TL_TRY(tl_evtimer_create(&g->evt[d], (int)(sizeof op_names / sizeof op_names[0]), op_names));
        }
    }
    size_t maxcount = tl_fdtd_profiles_count(f);
    for (int i = 0; i < f->nsub; i++)
        if (tl_fdtd_mine(f, i) && f->sub[i].full.count > maxcount) maxcount = f->sub[i].full.count;
    TL_TRY(check_device_memory(f, ngpu, (double)maxcount * (double)f->esz));
    void *host = malloc(maxcount * f->esz);
    TL_CHECK(host != NULL, TL_ERR_NOMEM, "%zu bytes of staging for the initial fields", maxcount * f->esz);
    tl_status st = TL_OK;
    for (int i = 0; i < f->nsub && st == TL_OK; i++)
        if (tl_fdtd_mine(f, i)) st = setup_sub(f, i, host);
    free(host);
    TL_TRY(st);
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            tl_fdtd_msg *m = &f->msg[d][k];
            if (tl_fdtd_mine(f, m->from) || tl_fdtd_mine(f, m->to)) TL_TRY(setup_msg(f, m));
        }
    /* the uploads and memsets ran on the legacy stream, which the
     * non-blocking streams do not wait for */
    for (int d = 0; d < ngpu; d++)
        if (dev_used(f, d)) {
            TL_CUDA(cudaSetDevice(d));
            TL_CUDA(cudaDeviceSynchronize());
        }
    return TL_OK;
}

static void cuda_teardown(tl_fdtd *f)
{
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            tl_fdtd_msg *m = &f->msg[d][k];
            tl_fdtd_cuda_msg *cm = m->state;
            cudaFree(m->send);
            cudaFree(m->recv);
            m->send = m->recv = NULL;
            if (!cm) continue;
            cudaFree(cm->d_src);
            cudaFree(cm->d_dst);
            if (cm->packed) cudaEventDestroy(cm->packed);
            if (cm->sent) cudaEventDestroy(cm->sent);
            if (cm->arrived) cudaEventDestroy(cm->arrived);
            if (cm->unpacked) cudaEventDestroy(cm->unpacked);
            free(cm);
            m->state = NULL;
        }
    for (int i = 0; i < f->nsub; i++) {
        tl_fdtd_sub *s = &f->sub[i];
        if (s->device >= 0) cudaSetDevice(s->device);
        for (int k = 0; k < 4; k++) {
            cudaFree(s->fld[k]);
            cudaFree(s->mat[k]);
            s->fld[k] = s->mat[k] = NULL;
        }
        for (int m = 0; m < TL_FDTD_NPSI; m++)
            for (int side = 0; side < 2; side++) {
                cudaFree(s->psi_mem[m][side]);
                s->psi_mem[m][side] = NULL;
            }
        cudaFree(s->prof);
        s->prof = NULL;
        tl_fdtd_cuda_sub *cs = s->bstate;
        if (!cs) continue;
        if (cs->s_comp) cudaStreamDestroy(cs->s_comp);
        if (cs->s_xch) cudaStreamDestroy(cs->s_xch);
        if (cs->ev_comp) cudaEventDestroy(cs->ev_comp);
        if (cs->ev_xch) cudaEventDestroy(cs->ev_xch);
        if (cs->shell.s) cudaStreamDestroy(cs->shell.s);
        if (cs->shell.fork) cudaEventDestroy(cs->shell.fork);
        if (cs->shell.join) cudaEventDestroy(cs->shell.join);
        cudaFree(cs->d_rec_idx);
        cudaFree(cs->d_traces);
        cudaFree(cs->d_bad);
        cudaFree(cs->d_e);
        free(cs->loc_rec);
        free(cs);
        s->bstate = NULL;
    }
    tl_fdtd_cuda *g = f->bglobal;
    if (g)
        for (int d = 0; d < g->ngpu; d++)
            if (g->evt[d]) {
                cudaSetDevice(d);
                tl_evtimer_destroy(&g->evt[d]);
            }
    free(f->bglobal);
    f->bglobal = NULL;
}

static const char *const update_names[2][2] = {{"update_v", "update_v_cpml"}, {"update_p", "update_p_cpml"}};

static tl_status cuda_update(tl_fdtd *f, int sd, int which, const tl_fdtd_box *b, int cpml)
{
    tl_fdtd_sub *s = &f->sub[sd];
    tl_fdtd_cuda_sub *cs = s->bstate;
    tl_fdtd_cuda *g = f->bglobal;
    tl_fdtd_kargs a;
    tl_fdtd_kargs_of(f, sd, &a);
    /* the --kernel table: interior or CPML slab box, or fused over any box */
    const tl_fdtd_kernel_info *ki = &tl_fdtd_kernels[f->cfg.kernel];
    int variant = ki->fused || !cpml ? ki->interior : ki->boundary;
    TL_CUDA(cudaSetDevice(s->device));
    /* a fused kernel counts as the plain update */
    int op = (which ? TL_FDTD_OP_P : TL_FDTD_OP_V) + (cpml && !ki->fused);
    tl_probe_push(f->ctx, TL_CAT_COMPUTE, update_names[which][cpml ? 1 : 0]);
    TL_TRY(tl_fdtd_cuda_time(f, s->device, op, 0, cs->s_comp));
    tl_status st = tl_fdtd_cuda_update(&a, which, b->lo, b->hi, variant, cpml, f->esz == 8, g->sms[s->device], cs->s_comp,
                                         &cs->shell);
    tl_probe_pop(f->ctx);
    TL_TRY(st);
    TL_TRY(tl_fdtd_cuda_time(f, s->device, op, 1, cs->s_comp));
    return TL_OK;
}

static tl_status cuda_add_source(tl_fdtd *f, int sd, int64_t idx, double value)
{
    tl_fdtd_sub *s = &f->sub[sd];
    TL_CUDA(cudaSetDevice(s->device));
    TL_TRY(tl_fdtd_cuda_source(s->fld[TL_FDTD_P], idx, value, f->esz == 8, tl_fdtd_cuda_sub_of(f, sd)->s_comp));
    return TL_OK;
}

static tl_status cuda_sample(tl_fdtd *f, int sd, int64_t step)
{
    tl_fdtd_sub *s = &f->sub[sd];
    tl_fdtd_cuda_sub *cs = s->bstate;
    if (!cs->nloc) return TL_OK;
    TL_CUDA(cudaSetDevice(s->device));
    TL_TRY(tl_fdtd_cuda_sample(s->fld[TL_FDTD_P], cs->d_rec_idx, cs->nloc, cs->d_traces + step * cs->nloc, f->esz == 8,
                               cs->s_comp));
    return TL_OK;
}

static tl_status cuda_fetch_traces(tl_fdtd *f)
{
    int64_t total = f->cfg.warmup + f->cfg.steps;
    for (int i = 0; i < f->nsub; i++) {
        tl_fdtd_cuda_sub *cs = f->sub[i].bstate;
        if (!tl_fdtd_mine(f, i) || !cs->nloc || total == 0) continue;
        double *h = malloc((size_t)(cs->nloc * total) * sizeof *h);
        TL_CHECK(h != NULL, TL_ERR_NOMEM, "receiver traces");
        TL_CUDA(cudaSetDevice(f->sub[i].device));
        cudaError_t e = cudaMemcpy(h, cs->d_traces, (size_t)(cs->nloc * total) * sizeof *h, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            for (int64_t t = 0; t < total; t++)
                for (int j = 0; j < cs->nloc; j++) f->traces[t * f->cfg.nrec + cs->loc_rec[j]] = h[t * cs->nloc + j];
        free(h);
        TL_CUDA(e);
    }
    return TL_OK;
}

/* Packs m on its sender's exchange stream once the last transfer has read
 * the send buffer, or (unpack) unpacks it on its receiver's once it has
 * arrived; timed and traced, then `packed` / `unpacked` recorded. */
static tl_status cuda_copy(tl_fdtd *f, tl_fdtd_msg *m, int unpack)
{
    tl_fdtd_sub *S = &f->sub[unpack ? m->to : m->from];
    tl_fdtd_cuda_sub *cs = S->bstate;
    tl_fdtd_cuda_msg *cm = m->state;
    const int op = unpack ? TL_FDTD_OP_UNPACK : TL_FDTD_OP_PACK;
    TL_CUDA(cudaSetDevice(S->device));
    TL_CUDA(cudaStreamWaitEvent(cs->s_xch, unpack ? cm->arrived : cm->sent, 0));
    tl_probe_push(f->ctx, TL_CAT_COMPUTE, unpack ? "unpack" : "pack");
    TL_TRY(tl_fdtd_cuda_time(f, S->device, op, 0, cs->s_xch));
    tl_status st = tl_fdtd_cuda_pack(unpack ? cm->d_dst : cm->d_src, m->nseg, m->count, unpack ? m->recv : m->send,
                                     unpack, f->esz == 8, cs->s_xch);
    tl_probe_pop(f->ctx);
    TL_TRY(st);
    TL_TRY(tl_fdtd_cuda_time(f, S->device, op, 1, cs->s_xch));
    TL_CUDA(cudaEventRecord(unpack ? cm->unpacked : cm->packed, cs->s_xch));
    return TL_OK;
}

static tl_status cuda_pack(tl_fdtd *f, tl_fdtd_msg *m) { return cuda_copy(f, m, 0); }
static tl_status cuda_unpack(tl_fdtd *f, tl_fdtd_msg *m) { return cuda_copy(f, m, 1); }

static tl_status cuda_mark(tl_fdtd *f, int what)
{
    for (int i = 0; i < f->nsub; i++) {
        if (!tl_fdtd_mine(f, i)) continue;
        tl_fdtd_cuda_sub *cs = f->sub[i].bstate;
        TL_CUDA(cudaSetDevice(f->sub[i].device));
        if (what == TL_FDTD_MARK_REGISTER) {
            tl_probe_stream(f->ctx, cs->s_comp, TL_ROLE_COMPUTE, "compute");
            tl_probe_stream(f->ctx, cs->s_xch, TL_ROLE_P2P, "exchange");
            tl_probe_stream(f->ctx, cs->shell.s, TL_ROLE_COMPUTE, "compute-shell");
        } else if (what == TL_FDTD_MARK_XCH_BEGIN) {
            TL_CUDA(cudaEventRecord(cs->ev_comp, cs->s_comp));
            TL_CUDA(cudaStreamWaitEvent(cs->s_xch, cs->ev_comp, 0));
        } else {
            TL_CUDA(cudaEventRecord(cs->ev_xch, cs->s_xch));
            TL_CUDA(cudaStreamWaitEvent(cs->s_comp, cs->ev_xch, 0));
        }
    }
    return TL_OK;
}

static tl_status cuda_sync(tl_fdtd *f)
{
    for (int i = 0; i < f->nsub; i++) {
        if (!tl_fdtd_mine(f, i)) continue;
        tl_fdtd_cuda_sub *cs = f->sub[i].bstate;
        TL_CUDA(cudaSetDevice(f->sub[i].device));
        TL_TRY(stream_wait(f, cs->s_comp, "fdtd: the compute stream"));
        TL_TRY(stream_wait(f, cs->s_xch, "fdtd: the exchange stream"));
    }
    return TL_OK;
}

static tl_status cuda_download(tl_fdtd *f, int sd, int field, void *host)
{
    TL_CUDA(cudaSetDevice(f->sub[sd].device));
    TL_CUDA(cudaMemcpy(host, f->sub[sd].fld[field], f->sub[sd].full.count * f->esz, cudaMemcpyDeviceToHost));
    return TL_OK;
}

static tl_status cuda_check(tl_fdtd *f, int sd, int64_t *bad, double *value)
{
    tl_fdtd_sub *s = &f->sub[sd];
    tl_fdtd_cuda_sub *cs = s->bstate;
    TL_CUDA(cudaSetDevice(s->device));
    TL_CUDA(cudaMemsetAsync(cs->d_bad, 0xff, sizeof *cs->d_bad, cs->s_comp));
    TL_TRY(tl_fdtd_cuda_check(s->fld[TL_FDTD_P], &s->full, s->n, f->cfg.blowup, cs->d_bad, f->esz == 8, cs->s_comp));
    unsigned long long q = 0;
    TL_CUDA(cudaMemcpyAsync(&q, cs->d_bad, sizeof q, cudaMemcpyDeviceToHost, cs->s_comp));
    TL_TRY(stream_wait(f, cs->s_comp, "fdtd: the blow-up check"));
    *bad = q == ~0ULL ? -1 : (int64_t)q;
    if (*bad >= 0) {
        int64_t x = *bad % s->n[0], y = *bad / s->n[0] % s->n[1], z = *bad / (s->n[0] * s->n[1]);
        int64_t i = tl_fdtd_index(&s->full, x, y, z);
        double v8 = 0;
        float v4 = 0;
        TL_CUDA(cudaMemcpy(f->esz == 8 ? (void *)&v8 : (void *)&v4, (const char *)s->fld[TL_FDTD_P] + (size_t)i * f->esz,
                           f->esz, cudaMemcpyDeviceToHost));
        *value = f->esz == 8 ? v8 : (double)v4;
    }
    return TL_OK;
}

static tl_status cuda_energy(tl_fdtd *f, int sd, double *e)
{
    tl_fdtd_sub *s = &f->sub[sd];
    tl_fdtd_cuda_sub *cs = s->bstate;
    tl_fdtd_kargs a;
    tl_fdtd_kargs_of(f, sd, &a);
    tl_fdtd_medium md = tl_fdtd_medium_of(&f->cfg);
    TL_CUDA(cudaSetDevice(s->device));
    TL_CUDA(cudaMemsetAsync(cs->d_e, 0, sizeof *cs->d_e, cs->s_comp));
    TL_TRY(tl_fdtd_cuda_energy(&a, s->n, &md, cs->d_e, f->esz == 8, cs->s_comp));
    TL_CUDA(cudaMemcpyAsync(e, cs->d_e, sizeof *e, cudaMemcpyDeviceToHost, cs->s_comp));
    TL_TRY(stream_wait(f, cs->s_comp, "fdtd: the energy"));
    return TL_OK;
}

const tl_fdtd_backend tl_fdtd_backend_cuda = {
    .name = "cuda",
    .default_strategy = "peer",
    .setup = cuda_setup,
    .update = cuda_update,
    .add_source = cuda_add_source,
    .sample = cuda_sample,
    .pack = cuda_pack,
    .unpack = cuda_unpack,
    .mark = cuda_mark,
    .sync = cuda_sync,
    .download = cuda_download,
    .check = cuda_check,
    .energy = cuda_energy,
    .fetch_traces = cuda_fetch_traces,
    .timers = cuda_timers,
    .teardown = cuda_teardown,
};

#else /* !TL_HAVE_CUDA */

static tl_status cuda_missing(tl_fdtd *f)
{
    return TL_FAIL(TL_ERR_UNSUPPORTED, "the cuda backend is not built (nvcc was not found): use --backend cpu");
}
static void cuda_nothing(tl_fdtd *f) {}

const tl_fdtd_backend tl_fdtd_backend_cuda = {
    .name = "cuda",
    .default_strategy = "peer",
    .setup = cuda_missing,
    .teardown = cuda_nothing,
};
#endif
