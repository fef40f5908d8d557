/* The statement that reads a rank's activity from an export: every
 * activity table of the process in start order, and, for ranks that are
 * threads, the thread that issued each GPU row. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdio.h>

/* The thread that issued each GPU row of a process, for ranks that are
 * threads: the thread of its launching API call (same correlation id),
 * else the thread that launched most of its stream's other rows (NCCL's
 * launches may be missing). Temporary tables of this connection (the
 * export itself stays read-only). */
tl_status tl_an_nsys_thread_owners_make(tl_an_nsys *x, int64_t pid)
{
    static const char *const ddl =
        "DROP TABLE IF EXISTS temp.tl_corr_tid; DROP TABLE IF EXISTS temp.tl_stream_tid;"
        "CREATE TEMP TABLE tl_corr_tid(corr INTEGER PRIMARY KEY, tid INTEGER);"
        "CREATE TEMP TABLE tl_stream_tid(dev INTEGER, stream INTEGER, tid INTEGER, PRIMARY KEY(dev, stream));";
    if (x->sq.exec(x->db, ddl, NULL, NULL, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "thread owners");
    char q[2048];
    size_t n = (size_t)snprintf(q, sizeof q, "INSERT OR IGNORE INTO temp.tl_stream_tid SELECT dev, stream, tid FROM "
                                             "(SELECT k.deviceId AS dev, k.streamId AS stream, c.tid AS tid, count(*) "
                                             "AS cnt FROM (");
    static const char *const acts[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET"};
    const int have[] = {x->has_kernel, x->has_memcpy, x->has_memset};
    const char *u = "";
    for (int k = 0; k < 3; k++)
        if (have[k]) {
            n += (size_t)snprintf(q + n, sizeof q - n,
                                  "%sSELECT deviceId, streamId, correlationId FROM %s WHERE globalPid = ?1", u, acts[k]);
            u = " UNION ALL ";
        }
    snprintf(q + n, sizeof q - n, ") k JOIN temp.tl_corr_tid c ON c.corr = k.correlationId GROUP BY 1, 2, 3 "
                                  "ORDER BY cnt DESC, tid)");
    const char *const steps[] = {"INSERT OR IGNORE INTO temp.tl_corr_tid SELECT correlationId, globalTid FROM "
                                 "CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid / 16777216 * 16777216 = ?1 AND "
                                 "correlationId IS NOT NULL",
                                 q};
    for (int i = 0; i < 2; i++) {
        tl_an_sqlite_stmt *s = NULL;
        if (x->sq.prepare_v2(x->db, steps[i], -1, &s, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "thread owners");
        x->sq.bind_int64(s, 1, pid);
        int rc = x->sq.step(s);
        x->sq.finalize(s);
        if (rc != TL_SQ_DONE) return tl_an_nsys_sq_fail(x, "thread owners");
    }
    return TL_OK;
}

/* One statement over every activity table of the process, in start order
 * (an enclosing range before what it encloses). by_thread: only the rows
 * of thread ?2 (tl_an_nsys_thread_owners_make made its tables). */
tl_status tl_an_nsys_records_prepare(tl_an_nsys *x, int by_thread, tl_an_sqlite_stmt **out)
{
    char q[6144] = "";
    const char *u = "";
    size_t n = 0;
    const char *gpu_own = by_thread ? " AND coalesce((SELECT tid FROM temp.tl_corr_tid WHERE corr = correlationId), "
                                      "(SELECT tid FROM temp.tl_stream_tid WHERE dev = deviceId AND stream = "
                                      "streamId)) = ?2"
                                    : "";
    const char *host_own = by_thread ? " AND globalTid = ?2" : "";
#define ADD(...) (n += (size_t)snprintf(q + n, sizeof q - n, __VA_ARGS__))
    if (x->has_kernel) {
        ADD("%sSELECT 0, start, end, deviceId, streamId, correlationId, (SELECT value FROM StringIds WHERE id = "
            "coalesce(mangledName, demangledName)), -1, 0, rowid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_memcpy) {
        ADD("%sSELECT 1, start, end, deviceId, streamId, correlationId, NULL, bytes, copyKind, rowid FROM "
            "CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_memset) {
        ADD("%sSELECT 2, start, end, deviceId, streamId, correlationId, NULL, bytes, 0, rowid FROM "
            "CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_sync) {
        ADD("%sSELECT 3, start, end, deviceId, streamId, correlationId, NULL, -1, syncType, rowid FROM "
            "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_nvtx) {
        /* a thread-rank's ranges: its own, and the start/end ranges of threads
         * that are no rank (the process's, as its --iter-nvtx steps are) */
        ADD("%sSELECT 4, start, end, coalesce(domainId, 0), coalesce(category, 0), int64Value IS NOT NULL, "
            "coalesce(text, (SELECT value FROM StringIds WHERE id = textId)), coalesce(int64Value, -1), 0, rowid FROM "
            "NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL AND globalTid / 16777216 * 16777216 = ?1%s",
            u, by_thread ? " AND (globalTid = ?2 OR (eventType = 60 AND globalTid NOT IN " TL_AN_NSYS_RANK_THREADS "))"
                         : "");
        /* each probes session creates the trilap domain anew: its iterations restart at 0 */
        ADD(" UNION ALL SELECT 5, start, start, 0, 0, 0, NULL, -1, 0, rowid FROM NVTX_EVENTS WHERE eventType = 75 AND "
            "coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) = 'trilap' AND "
            "globalTid / 16777216 * 16777216 = ?1%s",
            host_own);
    }
    if (x->has_runtime) {
        /* the CUDA API calls that launched the GPU rows (same correlation id) */
        ADD("%sSELECT 6, start, end, 0, 0, correlationId, (SELECT value FROM StringIds WHERE id = nameId), -1, 0, rowid "
            "FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid / 16777216 * 16777216 = ?1%s AND correlationId IN (",
            u, host_own);
        const char *v = "";
        if (x->has_kernel) {
            ADD("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1");
            v = " UNION ";
        }
        if (x->has_memcpy) {
            ADD("%sSELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1", v);
            v = " UNION ";
        }
        if (x->has_memset) ADD("%sSELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1", v);
        ADD(")");
    }
    ADD(" ORDER BY 2, 3 DESC");
#undef ADD
    TL_CHECK(n < sizeof q, TL_ERR_INVAL, "query too long");
    if (x->sq.prepare_v2(x->db, q, -1, out, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "reading activity");
    return TL_OK;
}
