/* A program's tracing sessions, opened from the one request its rank main
 * wrapper holds (probes.h: tl_probes_session_open). */
#include "probes/probes.h"

#include <stdio.h>

#include "probes/rank_state.h"
#include "runtime/check.h"
#include "runtime/comm.h"

/* The folder a session of s writes in, into buf (n bytes): 1, 0 when
 * ctx was not asked to trace, -1 when the name does not fit. */
static int session_dir(const tl_ctx *ctx, const tl_probes_session *s, char *buf, size_t n)
{
    const tl_trace_request *rq = ctx ? ctx->trace : NULL;
    if (!rq || !rq->dir) return 0;
    const char *sub = s && s->sub && *s->sub ? s->sub : NULL;
    int k = sub ? snprintf(buf, n, "%s/%s", rq->dir, sub) : snprintf(buf, n, "%s", rq->dir);
    return k > 0 && (size_t)k < n ? 1 : -1;
}

/* st as every rank of the run sees it (one process: st itself) */
static tl_status agreed(tl_ctx *ctx, tl_status st) { return ctx->size > 1 ? tl_comm_agree(ctx, st) : st; }

tl_status tl_probes_session_open(tl_ctx *ctx, const tl_probes_session *s, int *on)
{
    if (on) *on = 0;
    TL_CHECK(ctx, TL_ERR_INVAL, "a tracing session needs a rank context");
    const tl_trace_request *rq = ctx->trace;
    char dir[1024];
    int has = session_dir(ctx, s, dir, sizeof dir);
    if (!has) return TL_OK;
    TL_CHECK(has > 0, TL_ERR_INVAL, "--trace %s: the folder name is too long", rq->dir);
    /* rank 0 makes the folder before the others go on, so that one
     * process removes all of it when the run fails (runtime/comm.h) */
    TL_TRY(tl_comm_mkdir(ctx, dir));
    /* agreed before any rank starts tracing: a rank that would fail to
     * write its trace stops them all, and none leaves a trace behind */
    TL_TRY(agreed(ctx, tl_probes_trace_name_free(dir, ctx->rank)));
    tl_probes_config pc = {.outdir = dir,
                           .cupti = s && s->cupti >= 0 ? s->cupti : rq->cupti,
                           .nvtx = 1,
                           .max_ranges = s ? s->max_ranges : 0};
    /* agreed too: one rank's probes that cannot start never leave the
     * others waiting in the run's first collective */
    TL_TRY(agreed(ctx, tl_probes_create(ctx, &pc)));
    if (on) *on = 1;
    return TL_OK;
}

tl_status tl_probes_session_close(tl_ctx *ctx)
{
    if (!ctx || !ctx->probes || ctx->probes->nvtx_only) return TL_OK;
    return tl_probes_destroy(ctx);
}
