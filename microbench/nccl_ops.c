/* The allreduce and the ring send/recv, with non-blocking communicators. */
#include "microbench/nccl_ops.h"

#if TL_HAVE_CUDA && TL_HAVE_NCCL
#include "runtime/check.h"
#include "runtime/nccl.h"
#include "runtime/gpu.h"

tl_status tl_bench_nccl_done(tl_ctx *ctx, ncclResult_t r, ncclComm_t comm, const char *what)
{
    if (r == ncclSuccess) return TL_OK;
    if (r == ncclInProgress) return tl_nccl_ready(ctx, comm, what);
    return TL_FAIL(TL_ERR_NCCL, "%s: %s", what, ncclGetErrorString(r));
}

tl_status tl_bench_allreduce(tl_ctx *ctx, const double *send, double *recv, int64_t n,
                             ncclComm_t comm, cudaStream_t s)
{
    return tl_bench_nccl_done(ctx,
                              ncclAllReduce(send, recv, (size_t)n, ncclDouble, ncclSum, comm, s),
                              comm, "ncclAllReduce");
}

tl_status tl_bench_ring(tl_ctx *ctx, const double *send, double *recv, int64_t n, ncclComm_t comm,
                        cudaStream_t s)
{
    int next = (ctx->rank + 1) % ctx->size, prev = (ctx->rank - 1 + ctx->size) % ctx->size;
    TL_NCCL(ncclGroupStart());
    ncclResult_t r1 = ncclSend(send, (size_t)n, ncclDouble, next, comm, s);
    ncclResult_t r2 = ncclRecv(recv, (size_t)n, ncclDouble, prev, comm, s);
    ncclResult_t r3 = ncclGroupEnd(); /* always close the group, even after an error */
    if (r1 != ncclSuccess && r1 != ncclInProgress)
        return tl_bench_nccl_done(ctx, r1, comm, "ncclSend");
    if (r2 != ncclSuccess && r2 != ncclInProgress)
        return tl_bench_nccl_done(ctx, r2, comm, "ncclRecv");
    return tl_bench_nccl_done(ctx, r3, comm, "ncclGroupEnd(ncclSend, ncclRecv)");
}
#endif
