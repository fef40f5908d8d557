/* NVTX3 ranges in the "trilap" domain: one category per trace category
 * (named, so Nsight Systems can filter on them), range names registered
 * once per rank, iterations as an "iter" range carrying the iteration
 * number as its payload. Without a tool attached NVTX calls return at
 * once; NCCL's own NVTX ranges live in NCCL's domain and are left alone. */
#include "probes/rank_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

void tl_probe_nvtx_close_open(tl_probes *p)
{
    int open = p->depth < TL_PROBE_MAX_DEPTH ? p->depth : TL_PROBE_MAX_DEPTH;
    for (int d = 0; d < open; d++)
        tl_probe_nvtx_pop(p);
    if (p->cur_iter >= 0) tl_probe_nvtx_pop(p);
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

/* Which rank this thread is: ranks may be threads of one process, and the
 * Nsight Systems reader keeps them apart by the thread of this mark. */
static void mark_rank(const tl_probes *p)
{
    nvtxEventAttributes_t a = nvtx_attrs(TL_CAT_RANGE);
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = p->rank;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "rank";
    nvtxDomainMarkEx((nvtxDomainHandle_t)p->nvtx_domain, &a);
}

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
    mark_rank(p);
}

void *tl_probe_nvtx_string(tl_probes *p, const char *s)
{
    if (!p->nvtx_domain) return NULL;
    return nvtxDomainRegisterStringA((nvtxDomainHandle_t)p->nvtx_domain, s);
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
