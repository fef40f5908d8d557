/* The lane of each (device, stream) of an export's rank, inferred from its
 * kernels as the injection library infers it, TRILAP_LANES overriding. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include "analysis/grow.h"

/* TRILAP_LANES="stream:lane,..." (the injection library's syntax, read
 * at the export's opening: a bad one is refused there, where an item that
 * was not one used to be passed over without a word) */
static int lane_override(const tl_an_nsys *x, int64_t stream, tl_role *lane)
{
    return stream >= 0 && tl_trace_lanes_find(&x->lanes_env, (uint64_t)stream, lane);
}

/* Lanes of the process's streams, inferred like the injection library's. */
tl_status tl_an_nsys_lanes_infer(tl_an_nsys *x, int64_t pid)
{
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    const char *q = "SELECT k.deviceId, k.streamId, s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                    "StringIds s ON s.id = coalesce(k.mangledName, k.demangledName) WHERE k.globalPid = ?1 "
                    "GROUP BY 1, 2, 3";
    if (x->has_kernel && x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK)
        return tl_an_nsys_sq_fail(x, "kernels per stream");
    if (s) x->sq.bind_int64(s, 1, pid);
    int rc = TL_SQ_DONE;
    while (s && (rc = x->sq.step(s)) == TL_SQ_ROW) {
        int64_t dev = x->sq.column_int64(s, 0), str = x->sq.column_int64(s, 1);
        const char *name = (const char *)x->sq.column_text(s, 2);
        uint64_t cnt = (uint64_t)x->sq.column_int64(s, 3);
        size_t j = 0;
        while (j < x->nlanes && !(x->lanes[j].device == dev && x->lanes[j].stream == str)) j++;
        if (j == x->nlanes) {
            TL_TRYGOTO(TL_AN_GROW(x->lanes, j, x->caplanes, "streams"), st, fail);
            x->lanes[j] = (tl_an_nsys_lane){.device = dev, .stream = str};
            x->nlanes++;
        }
        switch (tl_trace_nccl_kernel(name)) {
        case TL_NCCL_P2P: x->lanes[j].p2p += cnt; break;
        case TL_NCCL_COLL:
        case TL_NCCL_GENERIC: x->lanes[j].coll += cnt; break;
        default: break;
        }
    }
    if (rc != TL_SQ_DONE) {
        st = tl_an_nsys_sq_fail(x, "kernels per stream");
        goto fail;
    }
    /* streams that ran only copies or memsets: in the table too, so the
     * per-row lookup never falls back to parsing TRILAP_LANES */
    for (int t = 0; t < 2; t++) {
        if (!(t ? x->has_memset : x->has_memcpy)) continue;
        x->sq.finalize(s);
        s = NULL;
        const char *q2 = t ? "SELECT DISTINCT deviceId, streamId FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1"
                           : "SELECT DISTINCT deviceId, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1";
        if (x->sq.prepare_v2(x->db, q2, -1, &s, NULL) != TL_SQ_OK) {
            st = tl_an_nsys_sq_fail(x, "copies per stream");
            goto fail;
        }
        x->sq.bind_int64(s, 1, pid);
        while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
            int64_t dev = x->sq.column_int64(s, 0), str = x->sq.column_int64(s, 1);
            size_t j = 0;
            while (j < x->nlanes && !(x->lanes[j].device == dev && x->lanes[j].stream == str)) j++;
            if (j < x->nlanes) continue;
            TL_TRYGOTO(TL_AN_GROW(x->lanes, j, x->caplanes, "streams"), st, fail);
            x->lanes[j] = (tl_an_nsys_lane){.device = dev, .stream = str};
            x->nlanes++;
        }
        if (rc != TL_SQ_DONE) {
            st = tl_an_nsys_sq_fail(x, "copies per stream");
            goto fail;
        }
    }
    for (size_t j = 0; j < x->nlanes; j++) {
        tl_an_nsys_lane *l = &x->lanes[j];
        l->lane = tl_trace_lane_of_stream(l->p2p, l->coll);
        tl_role o;
        if (lane_override(x, l->stream, &o)) l->lane = o;
    }
fail:
    x->sq.finalize(s);
    return st;
}

tl_role tl_an_nsys_lane_find(const tl_an_nsys *x, int64_t dev, int64_t stream)
{
    for (size_t j = 0; j < x->nlanes; j++)
        if (x->lanes[j].device == dev && x->lanes[j].stream == stream) return x->lanes[j].lane;
    tl_role o;
    if (lane_override(x, stream, &o)) return o;
    /* a stream that ran no kernel (copies only): compute, as the injection
     * library infers it; device-wide rows have no stream */
    return dev >= 0 && stream > 0 ? TL_ROLE_COMPUTE : TL_ROLE_OTHER;
}
