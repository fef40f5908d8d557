/* Host communication marks: runtime code that itself carries a halo
 * exchange or a reduction on the host (the host-staged device-communication
 * provider: its waits for the stream, the host exchange, the copies back)
 * says when it starts and stops, so that traces count that time as
 * communication. The probes, a layer above, install the table when they are
 * created (ctx->marks); without it, or without probes, the calls cost one
 * test. The lane says which communication the time serves: TL_ROLE_P2P
 * (halo, send/recv) or TL_ROLE_COLL (reductions).
 *
 * Peers: where a program plans a point-to-point exchange it declares, once
 * per tracing session, the ranks each named operation involves on this
 * rank, so that the analysis pairs the operation with those ranks alone
 * and not with every rank (a halo waits for its neighbours; probes/README.md
 * "Peers of an operation"). Collectives declare nothing: they involve every
 * rank. */
#ifndef TL_MARKS_H
#define TL_MARKS_H

#include "runtime/ctx.h"
#include "runtime/role.h"

/* The ranks, besides this one, that one operation involves (n may be 0: a
 * rank without a neighbour for it says so). */
typedef struct tl_mark_peerset {
    const int *rank;
    int n;
} tl_mark_peerset;

/* `what` of tl_mark_peers for the NCCL point-to-point kernels the lane's
 * exchange launches (their names are NCCL's, unknown before the launch). */
#define TL_MARK_NCCL_KERNELS NULL

struct tl_comm_marks {
    void (*begin)(tl_ctx *ctx, tl_role lane, const char *what); /* what: a string literal */
    void (*end)(tl_ctx *ctx);
    tl_status (*peers)(tl_ctx *ctx, tl_role lane, const char *what, const tl_mark_peerset *sets, int nsets);
};

static inline void tl_mark_begin(tl_ctx *ctx, tl_role lane, const char *what)
{
    if (ctx && ctx->marks) ctx->marks->begin(ctx, lane, what);
}

static inline void tl_mark_end(tl_ctx *ctx)
{
    if (ctx && ctx->marks) ctx->marks->end(ctx);
}

/* The ranks the operation `what` (a mark's name, as tl_mark_begin gives it,
 * or TL_MARK_NCCL_KERNELS) on `lane` involves on this rank: its k-th
 * instance involves sets[k % nsets] (one set, but where the operation
 * alternates between neighbour sets, as the FDTD's y and z phases through
 * one exchange call do). A later declaration of the same operation
 * replaces the earlier. Not on the hot path: it may allocate. */
static inline tl_status tl_mark_peers(tl_ctx *ctx, tl_role lane, const char *what, const tl_mark_peerset *sets,
                                      int nsets)
{
    return ctx && ctx->marks && ctx->marks->peers ? ctx->marks->peers(ctx, lane, what, sets, nsets) : TL_OK;
}

#endif
