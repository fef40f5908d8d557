/* Schedules: which stream and which communicator each operation of a
 * pipelined method uses. A schedule is a row of a static const table, not a
 * copy of the solver: the host backend reads `overlap_*` and `host_chan`,
 * the CUDA backend reads the stream roles and `split_comm`.
 *
 *   sync         no overlap: blocking halo exchange before the SpMV,
 *                blocking allreduce (the reference)
 *   two-stream   halo on its own stream (P2P) overlapped with the interior
 *                SpMV; allreduce on the compute stream / world communicator
 *   three-naive  allreduce on a third stream, same communicator: NCCL (and
 *                MPI on one communicator) may serialise it with the halo
 *   three-split  allreduce on a third stream and a split communicator
 *                (ncclCommSplit; MPI_Comm_dup on the host): triple overlap */
#ifndef TL_SCHEDULE_H
#define TL_SCHEDULE_H

#include <stddef.h>

#include "probes/trace.h"
#include "runtime/comm.h"

typedef enum {
    TL_SCHED_SYNC,
    TL_SCHED_TWO_STREAM,
    TL_SCHED_THREE_NAIVE,
    TL_SCHED_THREE_SPLIT,
    TL_SCHED_COUNT
} tl_sched_id;

typedef struct tl_schedule {
    const char *name;
    tl_sched_id id;
    int overlap_halo;       /* interior SpMV runs while the halo is in flight */
    int overlap_allreduce;  /* the allreduce is non-blocking, overlapped with precond + SpMV */
    tl_chan host_chan;      /* host backend: channel of the (i)allreduce */
    tl_role halo_lane;      /* CUDA backend: stream role of the halo send/recv */
    tl_role allreduce_lane; /* CUDA backend: stream role of the allreduce */
    int split_comm;         /* CUDA backend: allreduce on the ncclCommSplit communicator */
    const char *summary;    /* one line for --help and the README */
} tl_schedule;

extern const tl_schedule tl_schedules[TL_SCHED_COUNT];

/* By name; NULL when unknown. */
const tl_schedule *tl_schedule_find(const char *name);
/* "sync|two-stream|three-naive|three-split" */
const char *tl_schedule_choices(void);

#endif
