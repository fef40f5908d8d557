/* The probes: NVTX ranges, CUPTI activity records and host ranges of one
 * rank, written as a trilap trace after the measured region. Every call is
 * a cheap no-op when ctx->probes is NULL, so programs call them
 * unconditionally.
 *
 * Two kinds of probes. NVTX-only probes (no outdir) record nothing and
 * write nothing: they exist so that the program's ranges reach an attached
 * NVTX tool (nsys) in every run; without a tool none are made and
 * ctx->probes stays NULL. A program makes them once per rank
 *   TL_TRY(tl_probes_create(ctx, &(tl_probes_config){.nvtx = 1}));
 * Tracing probes (an outdir) record host ranges, and CUPTI activity when
 * asked, and write the trace at destroy. A tracing session may be opened
 * while NVTX-only probes are on: it takes their place (its ranges go to
 * NVTX and to the trace, once each) and its destroy puts them back.
 *
 *   tl_probes_config pc = {.outdir = "run1", .cupti = 1, .nvtx = 1};
 *   TL_TRY(tl_probes_create(ctx, &pc));
 *   tl_probe_stream(ctx, tl_gpu_stream(g, TL_ROLE_COMPUTE), TL_ROLE_COMPUTE, "compute");
 *   tl_probe_window_start(ctx);
 *   for (it = 0; it < n; it++) {
 *       tl_probe_iter_begin(ctx, it);
 *       tl_probe_push(ctx, TL_CAT_COMPUTE, "daxpy");  ... launch ...  tl_probe_pop(ctx);
 *       tl_probe_iter_end(ctx);
 *   }
 *   tl_probe_window_stop(ctx);   (after the device sync)
 *   TL_TRY(tl_probes_destroy(ctx));  (flushes CUPTI, writes outdir/trace.rank<R>.csv) */
#ifndef TL_PROBES_H
#define TL_PROBES_H

#include <stddef.h>
#include <stdint.h>

#include "probes/trace.h"
#include "runtime/ctx.h"
#include "runtime/launch.h"

typedef struct tl_probes_config {
    const char *outdir;     /* trace.rank<R>.csv goes here (created if missing); NULL: NVTX only */
    int cupti;              /* 1: collect CUPTI activity when possible; 0: NVTX + host only */
    int nvtx;               /* 1: emit NVTX ranges (reach a tool only when one is attached) */
    size_t buffer_bytes;    /* CUPTI buffer size [4 MiB] */
    int max_buffers;        /* bound on buffers in flight [64] */
    size_t max_ranges;      /* host ranges (and iterations) kept per rank [1 << 20]; more: dropped */
    const char *rank_from;  /* the injection's: where the rank came from (RANK, ..., "claim"); NULL: the launch */
} tl_probes_config;
/* cupti and nvtx are plain flags (a zeroed config gives host ranges only);
 * buffer_bytes, max_buffers, max_ranges: 0 means the default. The CUPTI
 * collector is one per process: the first rank to start it sets its buffer
 * size and count. */

/* outdir NULL: NVTX-only probes (cfg->nvtx must be 1, cupti 0), made only
 * when an NVTX tool is attached (else ctx->probes stays NULL). Fails when
 * probes of the same kind are already on for the rank. */
tl_status tl_probes_create(tl_ctx *ctx, const tl_probes_config *cfg);
/* Tracing probes: flush, write the trace (temp file + rename), free. Then
 * ctx->probes is what it was before the create: the NVTX-only probes the
 * session replaced, or NULL. Accepts ctx->probes NULL. */
tl_status tl_probes_destroy(tl_ctx *ctx);

/* A program's rank main wrapped in NVTX-only probes, so that an attached
 * tool sees its ranges in every run: pass tl_probes_rank_main to
 * tl_launch_run with a tl_probes_main naming the real one,
 *   tl_probes_main pm = {.fn = my_rank_main, .arg = &opts};
 *   tl_launch_run("trilap-x", &lo, argc, argv, tl_probes_rank_main, &pm);
 * fn gets ctx->opts = arg as it would unwrapped. NVTX-only probes that
 * cannot be made are said on stderr and the run goes on without them
 * (tracing never stops a program); sessions fn leaves open are destroyed. */
/* What a program was asked to trace, once, on its command line: the
 * wrapper puts it in ctx->trace, and the program's measured runs open
 * their sessions from it (tl_probes_session_open), so that one owner
 * decides where traces go and what they hold. */
struct tl_trace_request {
    const char *dir; /* --trace DIR; NULL: no traces (the NVTX ranges still reach a tool) */
    int cupti;       /* CUPTI activity records too (else host ranges and NVTX) */
};
typedef struct tl_probes_main {
    tl_rank_main_fn fn;
    void *arg;
    tl_trace_request trace;
} tl_probes_main;
tl_status tl_probes_rank_main(tl_ctx *ctx, void *main);

/* One measured run's tracing session, from ctx->trace: traces in
 * DIR/<sub> (DIR when sub is NULL or ""), CUPTI as asked unless cupti is
 * 0 or 1, room for max_ranges host ranges (0: the default); a program
 * on trilap's GPU streams then registers them (probes/gpu_lanes.h). Nothing
 * (TL_OK) when the program was not asked to trace; *on (may be NULL)
 * says whether a session was opened. Collective where the ranks are
 * several: rank 0 makes the folder first (tl_comm_mkdir, so that one
 * process removes all of it when the run fails), and the ranks agree
 * that each can write its trace, then that each started tracing, so one
 * rank's failure stops them all. Close it with
 * tl_probes_session_close, which the wrapper also does for a session
 * left open on an error path. */
typedef struct tl_probes_session {
    const char *sub;
    int cupti; /* -1: as the request says */
    size_t max_ranges;
} tl_probes_session;
tl_status tl_probes_session_open(tl_ctx *ctx, const tl_probes_session *s, int *on);
/* The open tracing session: flushed and written (tl_probes_destroy); the
 * NVTX-only probes come back. Nothing when none is open. */
tl_status tl_probes_session_close(tl_ctx *ctx);

/* Register a CUDA stream (cudaStream_t passed as void *) with its lane. */
void tl_probe_stream(tl_ctx *ctx, void *stream, tl_role lane, const char *label);
void tl_probe_push(tl_ctx *ctx, tl_cat cat, const char *name);
void tl_probe_pop(tl_ctx *ctx);
void tl_probe_iter_begin(tl_ctx *ctx, int64_t iter);
void tl_probe_iter_end(tl_ctx *ctx);
void tl_probe_window_start(tl_ctx *ctx);
void tl_probe_window_stop(tl_ctx *ctx);
/* Records dropped so far (CUPTI buffers full). */
uint64_t tl_probes_dropped(const tl_ctx *ctx);

#endif
