/* Schedules: which stream and which communicator each operation of a
 * pipelined method uses. A schedule is a row of a static const table, not a
 * copy of the solver: the host backend reads `overlap_*` and `host_chan`,
 * the CUDA backend reads only `steps` (per operation: stream role,
 * communicator, events waited for); halo_lane, allreduce_lane and
 * split_comm summarise the steps for tests and output.
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

#include "runtime/role.h"
#include "runtime/comm.h"

typedef enum {
    TL_SCHED_SYNC,
    TL_SCHED_TWO_STREAM,
    TL_SCHED_THREE_NAIVE,
    TL_SCHED_THREE_SPLIT,
    TL_SCHED_COUNT
} tl_sched_id;

/* The operations of a pipelined iteration, as the CUDA backend enqueues
 * them, and the events that join their streams. Each step of a row names
 * its stream role, its communicator and the events it waits for (a wait
 * is enqueued only when the event's stream differs from the step's);
 * the backend records each event right after the step that produces it:
 *   INPUT    compute: the SpMV operand is written (recorded at spmv_begin)
 *   HALO     end of the halo exchange (ghosts in place)
 *   DOTS     end of the local dot kernel
 *   REDUCED  end of the allreduce
 * The same vocabulary describes the three-stream microbenchmark's
 * variants (allreduce = ALLREDUCE, ring = HALO_POST, DAXPY = UPDATE). */
typedef enum {
    TL_SOP_HALO_POST,     /* pack + grouped send/recv of the halo */
    TL_SOP_HALO_WAIT,     /* where the ghosts are joined (the border SpMV's stream) */
    TL_SOP_SPMV_INTERIOR, /* diagonal block (all owned rows) */
    TL_SOP_SPMV_BORDER,   /* ghost block on the border rows */
    TL_SOP_DOT,           /* local parts of the fused dots */
    TL_SOP_ALLREDUCE,     /* the one allreduce of an iteration's dots */
    TL_SOP_DOT_WAIT,      /* where the reduced dots are consumed */
    TL_SOP_UPDATE,        /* fused vector updates */
    TL_SOP_PRECOND,       /* preconditioner */
    TL_SOP_COUNT
} tl_sched_op;

typedef enum {
    TL_SEV_INPUT = 1u << 0,
    TL_SEV_HALO = 1u << 1,
    TL_SEV_DOTS = 1u << 2,
    TL_SEV_REDUCED = 1u << 3,
    TL_SEV_NEVENTS = 4
} tl_sched_event;

typedef struct tl_sched_step {
    tl_role role;   /* stream */
    tl_chan chan;   /* communicator (communication steps) */
    unsigned waits; /* TL_SEV_* mask */
} tl_sched_step;

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
    tl_sched_step steps[TL_SOP_COUNT]; /* what the CUDA backend reads */
} tl_schedule;

extern const tl_schedule tl_schedules[TL_SCHED_COUNT];

/* "halo_post", ...; "unknown" out of range. */
const char *tl_sched_op_name(tl_sched_op op);
/* "input", "halo", "dots", "reduced"; index = bit position. */
const char *tl_sched_event_name(int bit);
/* The stream role and channel a step uses, and its waits. */
static inline const tl_sched_step *tl_schedule_step(const tl_schedule *s, tl_sched_op op)
{
    return &s->steps[op];
}

/* By name; NULL when unknown. */
const tl_schedule *tl_schedule_find(const char *name);
/* "sync|two-stream|three-naive|three-split" */
const char *tl_schedule_choices(void);

#endif
