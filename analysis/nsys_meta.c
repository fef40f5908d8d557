/* An export's rank's metadata: the tl_an_meta the analysis reads and the
 * trilap trace keys import writes. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdio.h>
#include <string.h>

tl_status tl_an_nsys_meta_fill(tl_an_nsys *x, int rank, const char *iter_nvtx, tl_an_meta *meta,
                               tl_an_nsys_meta_fn mfn, void *user)
{
    memset(meta, 0, sizeof *meta);
    /* the name the rank is read again by (perfetto reads it twice) */
    snprintf(meta->path, sizeof meta->path, "%s#%d%s%s", x->path, rank, iter_nvtx ? TL_AN_NSYS_ITER_NVTX : "",
             iter_nvtx ? iter_nvtx : "");
    meta->rank = rank;
    meta->nranks = x->nranks;
    meta->device = -1;
    meta->complete = 1;
    snprintf(meta->clock_sync, sizeof meta->clock_sync, "none"); /* one session clock */
    snprintf(meta->clock, sizeof meta->clock, "nsys-session");
    snprintf(meta->host, sizeof meta->host, "%s", "?");
    snprintf(meta->device_name, sizeof meta->device_name, "%s", "?");
    tl_an_sqlite_stmt *s = NULL;
    if (x->has_kernel &&
        x->sq.prepare_v2(x->db, "SELECT min(deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1", -1, &s,
                           NULL) == TL_SQ_OK) {
        x->sq.bind_int64(s, 1, x->ranks[rank].pid);
        if (x->sq.step(s) == TL_SQ_ROW && x->sq.column_type(s, 0) != TL_SQ_NULL)
            meta->device = x->sq.column_int(s, 0);
    }
    x->sq.finalize(s);
    s = NULL;
    if (x->has_gpu && meta->device >= 0 &&
        x->sq.prepare_v2(x->db, "SELECT name FROM TARGET_INFO_GPU WHERE cuDevice = ?1 LIMIT 1", -1, &s, NULL) ==
            TL_SQ_OK) {
        x->sq.bind_int(s, 1, meta->device);
        if (x->sq.step(s) == TL_SQ_ROW && x->sq.column_text(s, 0))
            snprintf(meta->device_name, sizeof meta->device_name, "%s", (const char *)x->sq.column_text(s, 0));
    }
    x->sq.finalize(s);
    if (mfn) {
        char v[64];
        TL_TRY(tl_an_meta_keys_head(meta, mfn, user));
        TL_TRY(mfn(user, "clock", "nsys-session"));
        TL_TRY(mfn(user, "source", "nsys-sqlite"));
        snprintf(v, sizeof v, "%lld", (long long)(x->ranks[rank].pid / 16777216 % 16777216));
        TL_TRY(mfn(user, "pid", v));
        if (x->ranks[rank].tid) {
            snprintf(v, sizeof v, "%lld", (long long)(x->ranks[rank].tid % 16777216));
            TL_TRY(mfn(user, "tid", v));
        }
        TL_TRY(mfn(user, "lanes", "inferred"));
        /* an imported trace says where its iterations came from */
        if (iter_nvtx) TL_TRY(mfn(user, "iter_nvtx", iter_nvtx));
        /* NCCL kernels whose operation NCCL's NVTX ranges told (Generic ones
         * take their cat from it), of them named ones, and named ones the
         * ranges contradict (0 expected) */
        snprintf(v, sizeof v, "%zu", x->nops);
        TL_TRY(mfn(user, "nccl_nvtx_ops", v));
        snprintf(v, sizeof v, "%zu", x->nops_named);
        TL_TRY(mfn(user, "nccl_nvtx_named", v));
        snprintf(v, sizeof v, "%zu", x->nops_disagree);
        TL_TRY(mfn(user, "nccl_nvtx_disagree", v));
        TL_TRY(mfn(user, "window", "records"));
        TL_TRY(mfn(user, "complete", "yes"));
    }
    return TL_OK;
}
