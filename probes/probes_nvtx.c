/* NVTX3 ranges in the "trilap" domain: one category per trace category
 * (named, so Nsight Systems can filter on them), range names registered
 * once per rank, iterations as an "iter" range carrying the iteration
 * number as its payload. Without a tool attached NVTX calls return at
 * once; NCCL's own NVTX ranges live in NCCL's domain and are left alone. */
#include "probes/probes_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* NVTX-only probes: a rank's ranges for an attached tool, in every run.
 * They reuse the hot path of probes_host.c unchanged; its host bookkeeping
 * gets room for one range and one iteration, fills at once and is never
 * written (its two clock reads per range, some 40 ns, are small next to
 * the tool's own handling of each range). Without a tool nothing is made and
 * ctx->probes stays NULL, so a program without a tool pays nothing. */
tl_status tl_probe_nvtx_only_create(tl_ctx *ctx, const tl_probes_config *cfg)
{
    TL_CHECK(!cfg->cupti, TL_ERR_INVAL, "probes: CUPTI activity needs an output folder (outdir)");
    TL_CHECK(cfg->nvtx, TL_ERR_INVAL,
             "probes need an output folder (or nvtx = 1 for NVTX ranges only)");
    TL_CHECK(!ctx->probes, TL_ERR_INVAL, "probes already created for rank %d", ctx->rank);
    tl_status st = TL_OK;
    tl_probes *p = calloc(1, sizeof *p);
    if (!p) return TL_FAIL(TL_ERR_NOMEM, "probes: %zu bytes", sizeof *p);
    p->cfg = *cfg;
    p->cfg.max_ranges = 1;
    p->cfg.outdir = p->outdir; /* "" */
    p->nvtx_only = 1;
    p->rank = ctx->rank;
    p->nranks = ctx->size > 0 ? ctx->size : 1;
    p->device = ctx->device >= 0 ? ctx->device : -1;
    p->program = ctx->program ? ctx->program : "trilap";
    p->cupti = TL_CUPTI_OFF;
    tl_probe_nvtx_init(p); /* before the names: they register NVTX strings */
    if (!p->nvtx_domain) {
        free(p);
        return TL_OK;
    }
    TL_TRYGOTO(tl_probe_host_init(p), st, fail);
    ctx->probes = p;
    return TL_OK;
fail:
    free(p);
    return st;
}

void tl_probe_nvtx_close_open(tl_probes *p)
{
    int open = p->depth < TL_PROBE_MAX_DEPTH ? p->depth : TL_PROBE_MAX_DEPTH;
    for (int d = 0; d < open; d++)
        tl_probe_nvtx_pop(p);
    if (p->cur_iter >= 0) tl_probe_nvtx_pop(p);
}

void tl_probe_nvtx_only_destroy(tl_probes *p)
{
    tl_probe_nvtx_close_open(p); /* so the tool's stack is balanced */
    tl_probe_host_fini(p);
    free(p);
}

tl_status tl_probes_rank_main(tl_ctx *ctx, void *main)
{
    const tl_probes_main *m = main;
    ctx->opts = m->arg;
    tl_status pst = tl_probes_create(ctx, &(tl_probes_config){.nvtx = 1});
    if (pst != TL_OK) tl_log("probes: no NVTX ranges in this run (%s)", tl_strerror(pst));
    tl_status st = m->fn(ctx, m->arg);
    /* a tracing session fn left open on its error path, then ours */
    while (ctx->probes) {
        pst = tl_probes_destroy(ctx);
        if (st == TL_OK) st = pst;
    }
    return st;
}

#if TL_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#if TL_HAVE_CUDA
#include <nvtx3/nvToolsExtCudaRt.h>
#endif

/* ARGB per category, as the timelines in plots/ colour them. */
static const uint32_t tl_nvtx_colors[TL_CAT_COUNT] = {
    [TL_CAT_COMPUTE] = 0xFF4C72B0, [TL_CAT_P2P] = 0xFFDD8452,    [TL_CAT_COLL] = 0xFF55A868,
    [TL_CAT_MEMCPY] = 0xFF8172B3,  [TL_CAT_MEMSET] = 0xFF937860, [TL_CAT_SYNC] = 0xFFC44E52,
    [TL_CAT_RANGE] = 0xFF8C8C8C,
};

void tl_probe_nvtx_init(tl_probes *p)
{
    if (!p->cfg.nvtx) return;
    nvtxDomainHandle_t d = nvtxDomainCreateA("trilap");
    p->nvtx_domain = d;
    if (!d) return; /* no tool attached: every call below is skipped */
    /* Category 0 is NVTX's "none"; ours are cat + 1, then the host's
     * communication marks (runtime/marks.h), which the Nsight Systems reader
     * counts as communication by these names. */
    for (int c = 0; c < TL_CAT_COUNT; c++)
        nvtxDomainNameCategoryA(d, (uint32_t)c + 1, tl_cat_name((tl_cat)c));
    nvtxDomainNameCategoryA(d, TL_NVTX_CAT_HOST_P2P, "host-p2p");
    nvtxDomainNameCategoryA(d, TL_NVTX_CAT_HOST_COLL, "host-coll");
    /* Which rank this thread is: ranks may be threads of one process, and
     * the Nsight Systems reader keeps them apart by the thread of this mark. */
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = (uint32_t)TL_CAT_RANGE + 1;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = p->rank;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "rank";
    nvtxDomainMarkEx(d, &a);
}

void *tl_probe_nvtx_string(tl_probes *p, const char *s)
{
    if (!p->nvtx_domain) return NULL;
    return nvtxDomainRegisterStringA((nvtxDomainHandle_t)p->nvtx_domain, s);
}

/* Event attributes carrying the category and its colour; the caller adds
 * the message (and a payload). */
static nvtxEventAttributes_t nvtx_attrs(tl_cat cat)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = (uint32_t)cat + 1;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = (unsigned)cat < TL_CAT_COUNT ? tl_nvtx_colors[cat] : 0xFF000000;
    return a;
}

void tl_probe_nvtx_push(const tl_probes *p, tl_cat cat, tl_role lane, uint32_t name)
{
    if (!p->nvtx_domain) return;
    nvtxEventAttributes_t a = nvtx_attrs(cat);
    if (lane == TL_ROLE_P2P) a.category = TL_NVTX_CAT_HOST_P2P;
    if (lane == TL_ROLE_COLL) a.category = TL_NVTX_CAT_HOST_COLL;
    if (p->names[name].nvtx) {
        a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        a.message.registered = (nvtxStringHandle_t)p->names[name].nvtx;
    } else {
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = tl_probe_name_str(p, name);
    }
    nvtxDomainRangePushEx((nvtxDomainHandle_t)p->nvtx_domain, &a);
}

void tl_probe_nvtx_iter(const tl_probes *p, int64_t iter)
{
    if (!p->nvtx_domain) return;
    nvtxEventAttributes_t a = nvtx_attrs(TL_CAT_RANGE);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = iter;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = (nvtxStringHandle_t)p->names[TL_PROBE_NAME_ITER].nvtx;
    nvtxDomainRangePushEx((nvtxDomainHandle_t)p->nvtx_domain, &a);
}

void tl_probe_nvtx_pop(const tl_probes *p)
{
    if (p->nvtx_domain) nvtxDomainRangePop((nvtxDomainHandle_t)p->nvtx_domain);
}

void tl_probe_nvtx_stream(const tl_probes *p, void *stream, const char *label)
{
#if TL_HAVE_CUDA
    if (p->nvtx_domain && label) nvtxNameCudaStreamA((cudaStream_t)stream, label);
#endif
}

#else /* !TL_HAVE_NVTX: host ranges are still recorded by probes_host.c */

void tl_probe_nvtx_init(tl_probes *p)
{
    p->nvtx_domain = NULL;
}
void *tl_probe_nvtx_string(tl_probes *p, const char *s)
{
    return NULL;
}
void tl_probe_nvtx_push(const tl_probes *p, tl_cat cat, tl_role lane, uint32_t name) {}
void tl_probe_nvtx_iter(const tl_probes *p, int64_t iter) {}
void tl_probe_nvtx_pop(const tl_probes *p) {}
void tl_probe_nvtx_stream(const tl_probes *p, void *stream, const char *label) {}

#endif
