/* Per-rank device state without NCCL: the bound device, one stream per
 * role (runtime/role.h) with priorities, pinned host buffers, peer access,
 * and a watched stream sync that gives up after a deadline instead of
 * hanging. The NCCL layer (runtime/nccl.h) sits on top and registers its
 * communicators with the watch, so a sync also notices NCCL errors.
 * Collective on ctx only where it says so. */
#ifndef TL_GPU_H
#define TL_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/ctx.h"
#include "runtime/role.h"

#if TL_HAVE_CUDA
#include <cuda_runtime.h>
#endif

typedef struct tl_gpu_config {
    int use_priorities;  /* p2p, coll and copy streams get the greatest priority, compute the least */
    double timeout_s;    /* watched syncs give up after this long (<= 0: the launcher's --nccl-timeout, else 300 s) */
} tl_gpu_config;

typedef struct tl_nccl tl_nccl; /* runtime/nccl.h */

/* What a watched sync asks, at every poll, of the layers above the device
 * (NCCL: ncclCommGetAsyncError; give_up: abort the communicators). */
typedef struct tl_gpu_watch {
    tl_status (*check)(tl_ctx *ctx, void *arg, const char *what); /* non-OK (reported): stop waiting, fail */
    int (*pending)(tl_ctx *ctx, void *arg); /* work accepted but not on a stream yet: an idle stream is not done */
    void (*give_up)(tl_ctx *ctx, void *arg); /* after a failure, deadline or a peer's failure */
    /* tl_gpu_destroy (abort 0) or tl_gpu_abort (abort 1): the layer frees
     * itself first, so the device layer never calls up into it */
    void (*release)(tl_ctx *ctx, void *arg, int abort);
    const char *timeout_hint; /* the likely cause a deadline error names (NULL: a kernel that does not end) */
    void *arg;
} tl_gpu_watch;

struct tl_gpu {
    int device;
    int shared;          /* other ranks use this device too (host-staged runs on one GPU) */
#if TL_HAVE_CUDA
    cudaStream_t streams[TL_ROLE_NSTREAMS]; /* by role: tl_gpu_stream */
#endif
    int prio_low, prio_high; /* the device's stream priority range, as used */
    double timeout_s;
    tl_gpu_watch watch;  /* zero unless a layer above registered one */
    tl_nccl *nccl;       /* NULL unless tl_nccl_create */
};

/* Bind ctx->device, create the streams. Sets ctx->gpu. Agreed across
 * ranks (collective). Without CUDA: TL_ERR_UNSUPPORTED. */
tl_status tl_gpu_create(tl_ctx *ctx, const tl_gpu_config *cfg);
/* Release the layers above (their registered watch), free the streams, ctx->gpu = NULL. Accepts NULL. */
void tl_gpu_destroy(tl_ctx *ctx);
/* After a failure: abort the layers above without waiting on other ranks, free. */
void tl_gpu_abort(tl_ctx *ctx);

#if TL_HAVE_CUDA
/* The stream of a role (compute for roles without a stream of their own). */
cudaStream_t tl_gpu_stream(const tl_gpu *g, tl_role role);
/* Wait for stream s under the watch: polls the stream and the registered
 * check; after timeout_s, or once a peer rank failed, gives up and returns
 * an error naming the rank, `what` and the reason. */
tl_status tl_gpu_sync(tl_ctx *ctx, cudaStream_t s, const char *what);
#endif
/* Every stream of this rank, watched. OK without ctx->gpu. */
tl_status tl_gpu_sync_all(tl_ctx *ctx, const char *what);

/* Page-locked host memory (cudaHostAlloc, portable), for staging and
 * asynchronous copies. free accepts NULL and sets *p = NULL. */
tl_status tl_gpu_host_alloc(void **p, size_t bytes);
void tl_gpu_host_free(void **p);

/* Enable access from `device` (current) to `peer`'s memory where the
 * hardware allows; *enabled = 0 when it does not (not an error: callers
 * fall back to cudaMemcpyPeerAsync through the host, and say so). Same
 * device: *enabled = 1. Already enabled: OK. */
tl_status tl_gpu_peer_enable(int device, int peer, int *enabled);

/* Make `device` current for the calling thread (the launcher does this
 * for every rank before rank_main; CUDA state is per thread). */
tl_status tl_gpu_bind(int device);

/* Device name for manifests ("NVIDIA H200"); "none" without CUDA or device. */
void tl_gpu_device_name(int device, char *buf, size_t n);

#if TL_HAVE_CUDA
/* The wait loop behind every watched operation, for the layers above the
 * device (runtime/nccl.c). done() returns 1 when finished, 0 while
 * running, -1 on its own error (put in *st, already reported). On an error,
 * the watch's check failing, a peer's failure or the deadline it announces
 * this rank's failure, calls the watch's give_up and returns the error. */
typedef int (*tl_gpu_done_fn)(void *arg, tl_status *st);
tl_status tl_gpu_wait(tl_ctx *ctx, const char *what, tl_gpu_done_fn done, void *arg);
#endif

/* Version strings for manifests ("13.0", "2.28.3", driver "580.95.05 (CUDA 13.0)");
 * "none" for what is missing. */
void tl_gpu_versions(char *cuda_rt, size_t n1, char *driver, size_t n2, char *nccl, size_t n3);

/* Free and total memory of the calling thread's device (cudaMemGetInfo;
 * 0 without CUDA). TRILAP_TEST_DEVICE_MEM (bytes) replaces the free
 * figure, so tests can play a small GPU. */
tl_status tl_gpu_mem_info(double *free_b, double *total_b);

/* Before a run allocates on ctx's GPU: TL_ERR_NOMEM on every rank unless
 * `need` bytes, with what the other ranks sharing that GPU (--device-comm
 * host, same host) ask, fit its free memory. One line, from the first
 * rank of the GPU: "<what> needs 31.9 GiB on GPU 0; 20.1 GiB of its
 * 139.8 GiB is free: <advice>". Collective on ctx. */
tl_status tl_gpu_mem_check(tl_ctx *ctx, const char *what, double need, const char *advice);

/* Number of visible GPUs (0 without CUDA or without devices). */
int tl_gpu_count(void);

#endif
