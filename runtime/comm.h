/* Host communication for both launchers: collectives and point-to-point
 * messages between ranks, over MPI or over shared memory between threads.
 * "Collective on ctx": every rank calls in the same order.
 *
 * Channels separate independent message streams, as MPI communicators do:
 * TL_CHAN_WORLD for ordinary traffic, TL_CHAN_SPLIT for the three-split
 * schedule's allreduce (an MPI_Comm_dup in MPI mode). */
#ifndef TL_COMM_H
#define TL_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/ctx.h"

typedef enum { TL_DOUBLE, TL_INT64, TL_INT32 } tl_dtype;
typedef enum { TL_SUM, TL_MAX, TL_MIN } tl_op;
typedef enum { TL_CHAN_WORLD = 0, TL_CHAN_SPLIT = 1, TL_CHAN_COUNT } tl_chan;

typedef struct tl_request tl_request; /* opaque, owned by the comm */

tl_status tl_comm_barrier(tl_ctx *ctx);
tl_status tl_comm_allreduce(tl_ctx *ctx, void *buf, size_t count, tl_dtype t, tl_op op);
tl_status tl_comm_bcast(tl_ctx *ctx, void *buf, size_t bytes, int root);
/* recv gets size*bytes, rank r's block at r*bytes. */
tl_status tl_comm_allgather(tl_ctx *ctx, const void *send, void *recv, size_t bytes);
/* Variable-size gather to root: counts (bytes) known to root, displs computed. */
tl_status tl_comm_gatherv(tl_ctx *ctx, const void *send, size_t bytes, void *recv,
                          const size_t *counts, int root);

/* Agree on a status across ranks before the next collective, so one rank's
 * failure never leaves the others waiting: returns `st` on the failing
 * rank, TL_ERR_REMOTE on the others, TL_OK when all succeeded. */
tl_status tl_comm_agree(tl_ctx *ctx, tl_status st);

/* A folder every rank writes in, made by rank 0 before the others go on
 * (collective; tl_mkdir_p, agreed). Under mpirun each rank is a process
 * with its own list of the folders it made, removed again when it fails or
 * is interrupted (runtime/tmpfile.h): made by whichever rank came first,
 * DIR of one process and DIR/sub of another, the one removing DIR found
 * DIR/sub still there and left it. */
tl_status tl_comm_mkdir(tl_ctx *ctx, const char *dir);

/* Non-blocking, for the host backend's overlap. A request is finished by
 * tl_comm_wait (which frees it). Buffers stay untouched until then. */
tl_status tl_comm_iallreduce(tl_ctx *ctx, tl_chan ch, double *buf, size_t count, tl_request **req);
tl_status tl_comm_isend(tl_ctx *ctx, tl_chan ch, const void *buf, size_t bytes, int peer, int tag,
                        tl_request **req);
tl_status tl_comm_irecv(tl_ctx *ctx, tl_chan ch, void *buf, size_t bytes, int peer, int tag,
                        tl_request **req);
tl_status tl_comm_wait(tl_ctx *ctx, tl_request **req);
/* tl_comm_wait for a peer that may stop without failing the run (the
 * probes' clock measurement): after timeout_s the request is withdrawn,
 * its buffer no longer touched, and TL_ERR_TIMEOUT returned unreported
 * (the caller says what it waited for); TL_ERR_REMOTE once another rank
 * announced its failure. A send or receive; a non-blocking allreduce,
 * which cannot be withdrawn, waits as tl_comm_wait. */
tl_status tl_comm_wait_for(tl_ctx *ctx, tl_request **req, double timeout_s);
tl_status tl_comm_waitall(tl_ctx *ctx, tl_request **reqs, size_t n);

/* Nonzero once another rank is known to have failed (the launcher marks a
 * rank whose rank_main returned an error; tl_comm_announce_failure does it
 * earlier); lets long waits such as the NCCL watchdog stop early. */
int tl_comm_peer_failed(const tl_ctx *ctx);

/* This rank has failed: tell the others now, before anything that may wait
 * on them (ncclCommAbort can wait for its local peers to abort too), so
 * their waits and watchdogs stop instead of waiting for this rank. Once per
 * rank; later calls do nothing. Thread mode: marks the rank failed; MPI
 * mode: a notice to every rank and this rank's part of the launcher's final
 * outcome agreement. */
void tl_comm_announce_failure(tl_ctx *ctx);

/* 1 when ranks are MPI processes and the MPI takes device pointers
 * (CUDA-aware); 0 for thread ranks and plain MPI. */
int tl_comm_cuda_aware(const tl_ctx *ctx);

#if TL_HAVE_MPI
#include <mpi.h>
/* The MPI communicator of a channel (MPI mode only; MPI_COMM_NULL otherwise). */
MPI_Comm tl_comm_mpi(const tl_ctx *ctx, tl_chan ch);
#endif

#endif
