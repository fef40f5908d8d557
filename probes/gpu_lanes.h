/* The runtime's role streams (runtime/gpu.h) on their trace lanes, for
 * programs that run on them; a header of its own so that the probes'
 * shared libraries, which link no GPU runtime, do not need it. */
#ifndef TL_PROBES_GPU_LANES_H
#define TL_PROBES_GPU_LANES_H

#include "probes/probes.h"
#include "runtime/gpu.h"
#include "runtime/role.h"

/* Each role stream of ctx->gpu on the lane of its role, once a session is
 * open and the streams exist; nothing otherwise. */
static inline void tl_probe_gpu_roles(tl_ctx *ctx)
{
#if TL_HAVE_CUDA
    if (!ctx || !ctx->gpu || !ctx->probes) return;
    for (int r = TL_ROLE_COMPUTE; r <= TL_ROLE_COLL; r++)
        tl_probe_stream(ctx, (void *)tl_gpu_stream(ctx->gpu, (tl_role)r), (tl_role)r,
                        tl_role_name((tl_role)r));
#else
    (void)ctx;
#endif
}

#endif
