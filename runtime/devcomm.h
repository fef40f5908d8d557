/* Device-buffer communication with providers behind one table:
 *
 *   nccl  ncclAllReduce and grouped ncclSend/ncclRecv on the given stream,
 *         world or split communicator by channel (needs one GPU per rank);
 *   host  staged through pinned host buffers over the ranks' host
 *         communicator (MPI ranks or thread ranks; CUDA-aware MPI passes
 *         device pointers directly where the MPI says it can). Slower by
 *         nature; lets several ranks share one GPU (NCCL refuses that),
 *         so multi-rank GPU code is testable on one GPU, and serves sites
 *         without NCCL. The host thread waits for the stream, exchanges,
 *         and enqueues the copies back: the operation is complete on the
 *         stream when the call returns, in stream order with later work.
 *
 * Every program chooses with --device-comm nccl|host (runtime/launch.h).
 * Collective on ctx: every rank calls in the same order. */
#ifndef TL_DEVCOMM_H
#define TL_DEVCOMM_H

#include <stddef.h>

#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/marks.h"

typedef enum { TL_DEVCOMM_NCCL = 0, TL_DEVCOMM_HOST, TL_DEVCOMM_COUNT } tl_devcomm_kind;

typedef struct tl_devcomm tl_devcomm;

/* The providers, by kind: the table --device-comm indexes. */
typedef struct tl_devcomm_kind_info {
    const char *name;
    const char *summary;
} tl_devcomm_kind_info;
extern const tl_devcomm_kind_info tl_devcomm_kinds[TL_DEVCOMM_COUNT];

typedef struct tl_devcomm_config {
    tl_devcomm_kind kind;
    int split;           /* nccl: also a split communicator for TL_CHAN_SPLIT; host: the split channel */
    int split_max_ctas;  /* nccl: CTA limits of the split communicator (0: default) */
    int split_min_ctas;
} tl_devcomm_config;

/* One neighbour of a grouped exchange. Rank a's entry for b pairs with b's
 * entry for a: a's send_bytes equal b's recv_bytes. Either side may be 0.
 * Several entries for the same peer (two messages between one pair, as a
 * periodic axis of two subdomains gives) pair up in the order they are
 * listed: the k-th of a's entries for b with the k-th of b's for a, in
 * both providers (NCCL runs one pair's calls in order; the host provider
 * matches by order on one tag). */
typedef struct tl_devcomm_peer {
    int rank;
    const void *d_send;
    size_t send_bytes;
    void *d_recv;
    size_t recv_bytes;
} tl_devcomm_peer;

/* "nccl" or "host"; NULL out of range. */
const char *tl_devcomm_kind_name(tl_devcomm_kind k);

/* Needs ctx->gpu. nccl: creates ctx->gpu->nccl (tl_nccl_create) if not
 * there. host: pinned staging buffers grow on demand. Collective. */
tl_status tl_devcomm_create(tl_ctx *ctx, const tl_devcomm_config *cfg, tl_devcomm **out);
/* Frees the provider's buffers (the NCCL communicators go with ctx->gpu). Accepts NULL. */
void tl_devcomm_destroy(tl_devcomm **dc);
const char *tl_devcomm_name(const tl_devcomm *dc);
tl_devcomm_kind tl_devcomm_kind_of(const tl_devcomm *dc);

#if TL_HAVE_CUDA
/* In-place sum of `count` doubles of d_buf over all ranks, on stream s. */
tl_status tl_devcomm_allreduce(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count,
                               cudaStream_t s);
/* Every send and receive with the n peers as one group, on stream s. */
tl_status tl_devcomm_exchange(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers,
                              int n, cudaStream_t s);
/* For traces, once per tracing session (after it opened): the ranks this
 * rank's exchanges involve, so that the analysis pairs each with those
 * ranks alone (runtime/marks.h tl_mark_peers), under the name the
 * provider's exchange has in the trace (the host provider's mark, "staged
 * exchange" or "mpi exchange"; NCCL's point-to-point kernels). calls: the
 * peer ranks of each call of the program's cycle of calls, as it gives
 * them to tl_devcomm_exchange (this rank among them where it sends to
 * itself), the k-th call the (k mod ncalls)-th: the provider leaves out a
 * call it does not trace (no peer; the host provider's with this rank
 * alone). Nothing without probes. */
tl_status tl_devcomm_declare_peers(tl_ctx *ctx, const tl_devcomm *dc, const tl_mark_peerset *calls, int ncalls);
#endif

#endif
