/* Clock alignment across nodes: each rank's offset to rank 0's clock,
 * measured over host messages (runtime/comm.h, MPI or thread ranks) when
 * the probes start and again when they stop, stored in the trace metadata
 * and applied by trilap-analyze (analysis/load_meta.c). See probes/README.md,
 * "Clock alignment". */
#ifndef TL_CLOCK_ALIGN_H
#define TL_CLOCK_ALIGN_H

#include <stdint.h>

#include "probes/trace.h"
#include "runtime/ctx.h"

/* One measurement: this rank's clock minus rank 0's, at local time `at`,
 * from the exchange of least round trip (uncertainty: half of it). */
typedef struct tl_clock_sample {
    int64_t offset, at, rtt, unc;
} tl_clock_sample;

typedef struct tl_clock_align {
    int nsamples;         /* 0: not measured, 1: at start, 2: at start and stop */
    int reference;        /* rank 0: the clock the others are put on */
    const char *method;   /* "mpi-pingpong", "threads-pingpong", "none" */
    int64_t skew;         /* test only: TRILAP_TEST_CLOCK_SKEW shift of this rank's clock */
    const char *shared;   /* "process", "host": reads rank 0's very clock (offsets 0 exactly); NULL: not known to */
    tl_clock_sample s[2]; /* at start, at stop */
} tl_clock_align;

enum { TL_CLOCK_ALIGN_ROUNDS = 16, TL_CLOCK_ALIGN_TAG = 31770 };

/* This rank's trace clock: CLOCK_MONOTONIC, plus the test skew. */
int64_t tl_clock_align_now(const tl_clock_align *ca);


/* How long one message of the exchange is waited for: 10 s, and 10 ms per
 * rank, as rank r's first ping comes after rank 0 measured the r - 1 ranks
 * before it (16 round trips and a result each, about a millisecond on a
 * cluster's network), or ctx->timeout_s (--nccl-timeout) where that is
 * shorter: no wait on another rank outlasts what the run allows one. A peer
 * that stopped (its own send or receive failed) leaves the other side
 * waiting no longer than this. */
double tl_clock_align_patience_s(const tl_ctx *ctx);

/* Collective over ctx's ranks (call it on every rank, at probes start and
 * at stop): rank 0 ping-pongs TL_CLOCK_ALIGN_ROUNDS times with each other
 * rank in turn and sends it its offset, and whether the two read one
 * clock (shared "host"). Nothing happens (method "none") with one rank or
 * without host messages (the injection library), and for thread ranks,
 * one process's one clock (shared "process"), unless the test skew gives
 * some rank a clock of its own. */
tl_status tl_clock_align_measure(tl_ctx *ctx, tl_clock_align *ca);

/* At probes start, on every rank that tried to create probes, with ca NULL
 * where that failed: the ranks agree (an allreduce) that all have probes,
 * and measure only then; otherwise ca stays unmeasured (clock_sync=none)
 * and tl_clock_align_stop does nothing, so no rank waits for one without
 * probes. A measurement that failed on any rank is agreed the same way:
 * every rank's ca unmeasured, TL_ERR_REMOTE where the failure was
 * another's, TL_ERR_TIMEOUT (unreported) where this rank's peer stopped
 * answering within tl_clock_align_patience_s. */
tl_status tl_clock_align_start(tl_ctx *ctx, tl_clock_align *ca);
/* At probes stop: the second measurement, where the first one was made. */
tl_status tl_clock_align_stop(tl_ctx *ctx, tl_clock_align *ca);

/* The clock_* metadata keys (probes/README.md) into a trace being written. */
tl_status tl_clock_align_meta(const tl_clock_align *ca, tl_trace_writer *w);

#endif
