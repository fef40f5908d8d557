/* Internal to runtime/: the provider table behind devcomm.h, one file per
 * provider (devcomm_nccl.c, devcomm_host.c). */
#ifndef TL_DEVCOMM_IMPL_H
#define TL_DEVCOMM_IMPL_H

#include "runtime/devcomm.h"

typedef struct tl_devcomm_ops {
    const char *name;
    tl_status (*init)(tl_ctx *ctx, tl_devcomm *dc, const tl_devcomm_config *cfg);
    void (*fini)(tl_devcomm *dc);
#if TL_HAVE_CUDA
    tl_status (*allreduce)(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, double *d_buf, size_t count, cudaStream_t s);
    tl_status (*exchange)(tl_ctx *ctx, tl_devcomm *dc, tl_chan ch, const tl_devcomm_peer *peers, int n,
                          cudaStream_t s);
#endif
} tl_devcomm_ops;

typedef struct tl_devcomm_host tl_devcomm_host; /* devcomm_host.c */

struct tl_devcomm {
    const tl_devcomm_ops *ops;
    tl_devcomm_kind kind;
    tl_devcomm_host *host; /* the host provider's staging state */
};

#if TL_HAVE_CUDA
/* The host provider's exchange as its mark names it ("staged exchange",
 * "mpi exchange" with a CUDA-aware MPI): the mark and its peers alike. */
const char *tl_devcomm_host_exchange_what(const tl_devcomm *dc);
#endif

extern const tl_devcomm_ops tl_devcomm_nccl_ops;
extern const tl_devcomm_ops tl_devcomm_host_ops;

#endif
