/* Per-rank GPU state: the stream trio (compute / p2p / collective) and the
 * NCCL communicators, with the watchdog that turns a stuck or failed NCCL
 * operation into an error instead of a hang. Collective on ctx. */
#ifndef TL_GPU_H
#define TL_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/ctx.h"

#if TL_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if TL_HAVE_NCCL
#include <nccl.h>
#endif

typedef struct tl_gpu_config {
    int use_priorities;  /* give s_p2p and s_coll the greatest priority, s_compute the least */
    int split;           /* also create the split communicator (three-split schedule) */
    int split_max_ctas;  /* ncclConfig_t.maxCTAs for the split communicator, 0: NCCL default */
    int split_min_ctas;  /* ncclConfig_t.minCTAs, 0: NCCL default */
    double timeout_s;    /* watchdog: abort communicators stuck this long (<= 0: 300 s) */
} tl_gpu_config;

struct tl_gpu {
    int device;
#if TL_HAVE_CUDA
    cudaStream_t s_compute, s_p2p, s_coll;
#endif
#if TL_HAVE_NCCL
    ncclComm_t world;   /* all ranks */
    ncclComm_t split;   /* ncclCommSplit of world (same ranks, its own resources); NULL unless asked */
#endif
    int prio_low, prio_high; /* the device's stream priority range, as used */
    double timeout_s;
};

/* Create streams and NCCL communicators (unique id over MPI_Bcast, or
 * shared between threads through ctx->hc). Sets ctx->gpu. Without CUDA or
 * NCCL in the build: TL_ERR_UNSUPPORTED naming what is missing. */
tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg);
void tl_gpu_destroy(tl_ctx *ctx);

/* Wait for a stream with the watchdog: polls the stream and
 * ncclCommGetAsyncError of the given communicators; on an NCCL error or
 * after the timeout, aborts them and returns an error naming the rank, the
 * operation `what` and the reason. comms may be NULL/0. */
#if TL_HAVE_CUDA && TL_HAVE_NCCL
tl_status tl_gpu_sync(tl_ctx *ctx, cudaStream_t s, const char *what);
/* Split `parent` with ncclCommSplit (color 0, key rank) and the CTA limits,
 * where the NCCL version has them. */
tl_status tl_nccl_split(tl_ctx *ctx, ncclComm_t parent, int max_ctas, int min_ctas, ncclComm_t *out);
#endif
/* Device-wide: synchronise every stream of this rank, with the watchdog. */
tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what);

/* Make `device` current for the calling thread (the launcher does this
 * for every rank before rank_main; CUDA state is per thread). */
tl_status tl_gpu_bind(int device);

/* After a failure: abort the NCCL communicators (never waits on other
 * ranks), free the streams, set ctx->gpu = NULL. Accepts ctx->gpu == NULL. */
void tl_gpu_abort(tl_ctx *ctx);

/* Device name for manifests ("NVIDIA H200"); "none" without CUDA or device. */
void tl_gpu_device_name(int device, char *buf, size_t n);

#if TL_HAVE_CUDA && TL_HAVE_NCCL
/* NCCL is bootstrapped on a non-blocking communicator (config.blocking = 0)
 * so that init can time out; world and split are blocking ncclCommSplits
 * of it, so ordinary NCCL calls on them return ncclSuccess once enqueued.
 * For a non-blocking communicator of your own: after a call that returned
 * ncclInProgress, wait with this (polls ncclCommGetAsyncError under the
 * watchdog) before the next call on it. */
tl_status tl_nccl_ready(tl_ctx *ctx, ncclComm_t comm, const char *what);
#endif

/* Version strings for manifests ("13.0", "2.28.3", driver "580.95.05 (CUDA 13.0)");
 * "none" for what is missing. */
void tl_gpu_versions(char *cuda_rt, size_t n1, char *driver, size_t n2, char *nccl, size_t n3);

/* Number of visible GPUs (0 without CUDA or without devices). */
int tl_gpu_count(void);

#endif
