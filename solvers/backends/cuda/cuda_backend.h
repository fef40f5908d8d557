/* The CUDA backend's state, shared by its files: backend_cuda.c and
 * backend_cuda_*.c (the operations), fused_iterations.c (the persistent
 * loop behind fused_iterations and the capabilities query) and
 * update_args.c (the update kernel's arguments, which both build). Private
 * to this folder; it names no function of the operations' files (those
 * are backend_cuda_impl.h's), so the files below it do not call back up
 * into them. */
#ifndef TL_CUDA_BACKEND_H
#define TL_CUDA_BACKEND_H

#include <cuda_runtime.h>

#include "runtime/devcomm.h"
#include "runtime/evtimer.h"
#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/kernels.h"
#include "solvers/backends/cuda/spmv.h"

/* Event-timer operations, mapped to the statistics rows. */
enum {
    ET_SPMV_INT,
    ET_SPMV_BORDER,
    ET_HALO,
    ET_DOT,
    ET_ALLREDUCE,
    ET_UPDATE,
    ET_PRECOND,
    ET_LOOP,
    ET_COUNT
};
typedef struct cuda_slot {
    double *d_part; /* block partials of the dot kernel */
    unsigned *d_count;
    double *d_res; /* TL_DOT_MAX reduced dots */
    double *h_res; /* pinned copy */
    cudaEvent_t ev_dots, ev_reduced;
    cudaStream_t dots_on; /* where ev_dots was recorded (the update's stream after update_fused) */
    int n, active;
    int kept; /* dots an update_fused left in d_res for the next dot_begin(slot, 0) */
} cuda_slot;

typedef struct cuda_backend {
    tl_backend base;
    int own_gpu;
    tl_devcomm *dc;
    cudaStream_t s[TL_SOP_COUNT]; /* stream of each step */
    cudaEvent_t ev_input, ev_halo;
    tl_cu_spmv *spmv;
    double *d_dinv;
    int32_t *d_send_idx;
    double *d_sendbuf;
    tl_devcomm_peer *peers;
    int npeers;
    int halo; /* ranks to talk to */
    int halo_pending;
    int spmv_dot; /* spmv_dot's dot in the product's pass (else the dot kernel after it) */
    cuda_slot slot[TL_DOT_SLOTS];
    tl_evtimer *et;
    /* device-resident scalars: program state (two parities), registers,
     * the program the next update's prologue runs, and a ring of pinned
     * register copies for the host's lagged checks */
    double *d_state, *d_regs, *h_state;
    double *h_ring; /* TL_SC_RING * TL_SC_REGS */
    cudaEvent_t ev_ring[TL_SC_RING];
    int64_t ring_tag[TL_SC_RING];
    /* without cfg.regs_copy: every program run's registers also go to a
     * slot of h_runs (mapped pinned memory, RUN_SLOTS slots of RUN_STRIDE
     * doubles), written by the kernel itself with the run's number after
     * them, so a post puts nothing on the stream (an event record between
     * two kernels would stop the programmatic launch of the second): the
     * host polls the slot for run_seq[tag % TL_SC_RING], in run_of[] */
    double *h_runs, *d_runs;
    int64_t nruns, run_seq[TL_SC_RING];
    int last_run, run_of[TL_SC_RING];
    int parity, have_regs;
    int sms; /* an update with a scalar program or a tail runs one wave of blocks on them */
    int pdl; /* kernels by programmatic dependent launch (cfg.pdl, on devices that have it) */
    unsigned ev_needed; /* TL_SEV_* events some step waits for on another stream */
    tl_sc_prog pend_prog;
    tl_sc_io pend_io;
    /* the persistent loop (cfg.fused_iterations, fused_iterations.c): its plan and state on the
     * device, made at its first call (loop.items non-NULL), the blocks it
     * runs, its iterations numbered for the backend's life (loop_iter: the
     * next one), and the tag that continues the current solve */
    tl_cu_loop_args loop;
    int loop_blocks;
    unsigned loop_iter;
    int64_t loop_tag;
} cuda_backend;

_Static_assert((int)TL_UPDATE_MAX <= (int)TL_CU_UPD_MAX &&
                   (int)TL_UPDATE_MAXTERMS <= (int)TL_CU_UPD_TERMS,
               "fused update kernel too small for tl_update");
_Static_assert((int)TL_DOT_MAX <= (int)TL_CU_DOT_MAX, "dot kernel too small for TL_DOT_MAX");
_Static_assert((int)TL_UPDATE_DOTS <= (int)TL_CU_FUSE_DOTS, "fused kernel too small for TL_UPDATE_DOTS");
/* register slots of program runs: more than the host can trail by (a post
 * per run at most, TL_SC_RING posts in flight) */
enum { RUN_SLOTS = 2 * TL_SC_RING, RUN_STRIDE = TL_SC_REGS + 1 };

static inline cuda_backend *cb_of(tl_backend *be)
{
    return (cuda_backend *)be;
}

static inline const tl_sched_step *step(const tl_backend *be, tl_sched_op op)
{
    return tl_schedule_step(be->cfg.schedule, op);
}

static inline tl_cu_launch on(const cuda_backend *cb, cudaStream_t s)
{
    return (tl_cu_launch){.s = s, .pdl = cb->pdl};
}

/* Whether the backend makes a device communicator: not on one rank,
 * which has no halo, and where an allreduce returns its input yet on its
 * own stream cost each reduction two cross-stream joins between kernels
 * that programmatic dependent launch would otherwise overlap (pcg,
 * poisson7 128^3: 148.55 us with the default three-split schedule
 * against 146.40 with --schedule sync, results/wave3-checks-h200/
 * session5/R). Without one the local dots are the global ones
 * (tl_cu_be_dot_begin). */
static inline int tl_cu_be_device_comm(const tl_ctx *ctx)
{
    return ctx->size > 1;
}

/* The event timer of operation `et` (none without --op-timer). */
static inline tl_status tl_cu_be_timer_begin(cuda_backend *cb, int et, cudaStream_t s)
{
    return cb->et ? tl_evtimer_begin(cb->et, et, s) : TL_OK;
}
static inline tl_status tl_cu_be_timer_end(cuda_backend *cb, int et, cudaStream_t s)
{
    return cb->et ? tl_evtimer_end(cb->et, et, s) : TL_OK;
}

/* A scalar program not consumed by an update runs alone (its dots may be
 * overwritten by what comes next). */
static inline tl_status tl_cu_be_flush_scalars(cuda_backend *cb)
{
    if (cb->pend_prog == TL_SC_NONE) return TL_OK;
    tl_sc_prog p = cb->pend_prog;
    cb->pend_prog = TL_SC_NONE;
    return tl_cu_scalars_run(p, cb->pend_io, on(cb, cb->s[TL_SOP_UPDATE]));
}

/* update_args.c: the kernel arguments of updates u, the vectors the pass
 * reads before writing them (rd) and writes (wr). */
tl_status tl_cu_be_update_args(cuda_backend *cb, const tl_update *u, int nu, tl_cu_update_args *a,
                               const tl_vec **rd, int *nrd, const tl_vec **wr, int *nwr);

#endif
