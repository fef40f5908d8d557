/* The NCCL layer on top of runtime/gpu.h: bootstrap (unique id over the
 * host communicator, non-blocking init so it can time out), the split
 * communicator with CTA limits, and the watchdog that turns a stuck or
 * failed NCCL operation into an error instead of a hang. Optional: a build
 * without NCCL links, and tl_nccl_create says NCCL is missing. */
#ifndef TL_NCCL_H
#define TL_NCCL_H

#include "runtime/comm.h"
#include "runtime/gpu.h"

#if TL_HAVE_NCCL
#include <nccl.h>
#endif

typedef struct tl_nccl_config {
    int split;           /* also create the split communicator (three-split schedule) */
    int split_max_ctas;  /* ncclConfig_t.maxCTAs for the split communicator, 0: NCCL default */
    int split_min_ctas;  /* ncclConfig_t.minCTAs, 0: NCCL default */
} tl_nccl_config;

#if TL_HAVE_NCCL
struct tl_nccl {
    ncclComm_t world;   /* all ranks */
    ncclComm_t split;   /* ncclCommSplit of world (same ranks, its own resources); NULL unless asked */
};
/* The communicator of a channel: TL_CHAN_SPLIT falls back to world when no split was made. */
ncclComm_t tl_nccl_comm(const tl_ctx *ctx, tl_chan ch);
/* Split `parent` with ncclCommSplit (color 0, key rank) and the CTA limits,
 * where the NCCL version has them. Collective. */
tl_status tl_nccl_split(tl_ctx *ctx, ncclComm_t parent, int max_ctas, int min_ctas, ncclComm_t *out);
/* After a call on a non-blocking communicator of your own that returned
 * ncclInProgress: wait (polls ncclCommGetAsyncError under the watchdog). */
tl_status tl_nccl_ready(tl_ctx *ctx, ncclComm_t comm, const char *what);
#endif

/* Needs ctx->gpu. Creates world (and split), warms them up, registers the
 * watch with ctx->gpu, sets ctx->gpu->nccl. Collective. Fails clearly when
 * ranks share a GPU (NCCL refuses that: use --device-comm host) or the
 * build has no NCCL. */
tl_status tl_nccl_create(tl_ctx *ctx, const tl_nccl_config *cfg);
/* Finalize (or abort, if finalizing cannot finish) and free; reached from
 * tl_gpu_destroy / tl_gpu_abort through the watch's release hook (the
 * device layer never calls up). abort: never waits on other ranks. Accept NULL. */
void tl_nccl_destroy(tl_ctx *ctx);
void tl_nccl_abort(tl_ctx *ctx);

#endif
