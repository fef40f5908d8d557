/* Host communication marks: runtime code that itself carries a halo
 * exchange or a reduction on the host (the host-staged device-communication
 * provider: its waits for the stream, the host exchange, the copies back)
 * says when it starts and stops, so that traces count that time as
 * communication. The probes, a layer above, install the table when they are
 * created (ctx->marks); without it, or without probes, the calls cost one
 * test. The lane says which communication the time serves: TL_ROLE_P2P
 * (halo, send/recv) or TL_ROLE_COLL (reductions). */
#ifndef TL_MARKS_H
#define TL_MARKS_H

#include "runtime/ctx.h"
#include "runtime/role.h"

struct tl_comm_marks {
    void (*begin)(tl_ctx *ctx, tl_role lane, const char *what); /* what: a string literal */
    void (*end)(tl_ctx *ctx);
};

static inline void tl_mark_begin(tl_ctx *ctx, tl_role lane, const char *what)
{
    if (ctx && ctx->marks) ctx->marks->begin(ctx, lane, what);
}

static inline void tl_mark_end(tl_ctx *ctx)
{
    if (ctx && ctx->marks) ctx->marks->end(ctx);
}

#endif
