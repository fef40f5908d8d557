/* The two NCCL operations trilap-bench measures, shared by tristream and
 * comm so both time exactly the same calls. Built with NCCL only. */
#ifndef TL_BENCH_NCCL_OPS_H
#define TL_BENCH_NCCL_OPS_H

#include "config.h"
#include "runtime/ctx.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

/* A call's result on a non-blocking communicator: ncclInProgress waits
 * (under the watchdog) until the communicator is ready for its next call. */
tl_status tl_bench_nccl_done(tl_ctx *ctx, ncclResult_t r, ncclComm_t comm, const char *what);
/* ncclAllReduce(sum) of n doubles, out of place. */
tl_status tl_bench_allreduce(tl_ctx *ctx, const double *send, double *recv, int64_t n,
                             ncclComm_t comm, cudaStream_t s);
/* Send n doubles to rank+1 and receive n from rank-1, in one group. */
tl_status tl_bench_ring(tl_ctx *ctx, const double *send, double *recv, int64_t n, ncclComm_t comm,
                        cudaStream_t s);
#endif

#endif
