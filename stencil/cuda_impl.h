/* The CUDA backend's state, shared by cuda.c and the exchange strategies
 * of cuda_exchange.c. Every subdomain has a compute stream and an
 * exchange stream on its GPU, joined by events; every message has the
 * events that order its pack, transfer and unpack across subdomains. */
#ifndef TL_FDTD_CUDA_IMPL_H
#define TL_FDTD_CUDA_IMPL_H

#include "config.h"
#include "stencil/fdtd_impl.h"

#if TL_HAVE_CUDA
#include <cuda_runtime.h>

#include "stencil/fdtd_kernels.h"

enum { TL_FDTD_MAXGPU = 64 };

typedef struct tl_fdtd_cuda_sub {
    cudaStream_t s_comp, s_xch;  /* roles compute and p2p */
    cudaEvent_t ev_comp, ev_xch; /* compute done before the exchange; exchange done */
    tl_fdtd_shell_stream shell;  /* the vector kernels' CPML shell (fdtd_kernels.h) */
    int nloc;                    /* receivers owned */
    int *loc_rec;                /* their numbers */
    int64_t *d_rec_idx;
    double *d_traces;            /* nloc per step */
    unsigned long long *d_bad;
    double *d_e;
} tl_fdtd_cuda_sub;

typedef struct tl_fdtd_cuda_msg {
    cudaEvent_t packed;          /* sender's device: send buffer filled */
    cudaEvent_t sent;            /* sender's device: send buffer read (free again) */
    cudaEvent_t arrived;         /* receiver's device: receive buffer filled */
    cudaEvent_t unpacked;        /* receiver's device: receive buffer read (free again) */
    tl_fdtd_segdesc *d_src, *d_dst;
    void *h_stage;               /* host-staged strategy: pinned buffer */
} tl_fdtd_cuda_msg;

typedef struct tl_evtimer tl_evtimer; /* runtime/evtimer.h */

typedef struct tl_fdtd_cuda {
    int ngpu;
    int sms[TL_FDTD_MAXGPU];
    tl_evtimer *evt[TL_FDTD_MAXGPU]; /* --breakdown: event pairs per operation, one timer per GPU */
} tl_fdtd_cuda;

/* Event-pair timing of operation op (TL_FDTD_OP_*) on stream s of GPU dev;
 * nothing without --breakdown. */
tl_status tl_fdtd_cuda_time(tl_fdtd *f, int dev, int op, int end, cudaStream_t s);

static inline tl_fdtd_cuda_sub *tl_fdtd_cuda_sub_of(tl_fdtd *f, int sd) { return f->sub[sd].bstate; }
static inline tl_fdtd_cuda_msg *tl_fdtd_cuda_msg_of(tl_fdtd_msg *m) { return m->state; }
#endif

#endif
