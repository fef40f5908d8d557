/* The CUDA backend's vectors: in device memory, zero-filled, uploaded and
 * downloaded on the rank's update stream; fill. */
#include "config.h"

#if TL_HAVE_CUDA

#include <stdlib.h>

#include "probes/probes.h"
#include "runtime/check.h"
#include "runtime/gpu.h"
#include "solvers/backends/cuda/backend_cuda_impl.h"

tl_status tl_cu_be_vec_create(tl_backend *be, tl_vec **out)
{
    tl_status st = TL_OK;
    tl_vec *v = NULL;
    TL_ALLOC(v, 1);
    v->nalloc = be->m->nowned + be->m->nghost;
    size_t bytes = (size_t)(v->nalloc ? v->nalloc : 1) * sizeof(double);
    TL_CUDAGOTO(cudaMalloc((void **)&v->data, bytes), st, fail);
    /* Zero-filled on the rank's own stream and waited for: a plain
     * cudaMemset runs on the legacy default stream, which the role streams
     * (cudaStreamNonBlocking) are not ordered with, so it could land after
     * the first upload or kernel on the vector. That was the "0 iterations
     * after the first run" bug: from the second run of a process on,
     * cudaMalloc hands back the previous run's memory (not zero), and a
     * late zero-fill wiped b after vec_set (b = 0: "x = 0", 0 iterations)
     * or left stale values in work vectors a method assumes zero. */
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDAGOTO(cudaMemsetAsync(v->data, 0, bytes, s), st, fail_mem);
    TL_TRYGOTO(tl_gpu_sync(be->ctx, s, "vector zero-fill"), st, fail_mem);
    *out = v;
    return TL_OK;
fail_mem:
    cudaFree(v->data);
fail:
    free(v);
    return st;
}

void tl_cu_be_vec_destroy(tl_backend *be, tl_vec **v)
{
    if (!v || !*v) return;
    cudaFree((*v)->data);
    free(*v);
    *v = NULL;
}

tl_status tl_cu_be_vec_set(tl_backend *be, tl_vec *v, const double *local)
{
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDA(cudaMemcpyAsync(v->data, local, (size_t)be->m->nowned * sizeof(double),
                            cudaMemcpyHostToDevice, s));
    return tl_gpu_sync(be->ctx, s, "vector upload");
}

tl_status tl_cu_be_vec_get(tl_backend *be, const tl_vec *v, double *local)
{
    cudaStream_t s = cb_of(be)->s[TL_SOP_UPDATE];
    TL_CUDA(cudaMemcpyAsync(local, v->data, (size_t)be->m->nowned * sizeof(double),
                            cudaMemcpyDeviceToHost, s));
    return tl_gpu_sync(be->ctx, s, "vector download");
}

tl_status tl_cu_be_fill(tl_backend *be, tl_vec *v, double alpha)
{
    cuda_backend *cb = cb_of(be);
    cudaStream_t s = cb->s[TL_SOP_UPDATE];
    int64_t n = be->m->nowned;
    TL_TRY(tl_cu_be_flush_scalars(cb));
    tl_probe_push(be->ctx, TL_CAT_COMPUTE, "fill");
    tl_status st = tl_cu_be_timer_begin(cb, ET_UPDATE, s);
    if (st == TL_OK) st = tl_cu_fill(v->data, alpha, n, on(cb, s));
    if (st == TL_OK) st = tl_cu_be_timer_end(cb, ET_UPDATE, s);
    tl_probe_pop(be->ctx);
    TL_TRY(st);
    tl_backend_stat(be, TL_OP_UPDATE, 0, (double)n * sizeof(double));
    return TL_OK;
}

#endif /* TL_HAVE_CUDA */
