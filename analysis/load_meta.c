/* A rank file's metadata the loader and the run folder's checks both read:
 * integer keys, the GPU rows import carried, and the rank's clock put on
 * rank 0's (the offset, drift and whether the clock is rank 0's own); and
 * the first keys import writes of a rank another reader made. */
#include "analysis/analysis.h"
#include "analysis/load_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_status tl_an_meta_i64_read(const tl_trace_reader *rd, const char *path, const char *key, int64_t *out, int *found)
{
    const char *s = tl_trace_reader_meta(rd, key);
    *found = 0;
    if (!s) return TL_OK;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    TL_CHECK(errno == 0 && end != s && *end == '\0', TL_ERR_PARSE, "%s: metadata %s='%s' is not an integer", path,
             key, s);
    *out = v;
    *found = 1;
    return TL_OK;
}

/* A Kineto trace's GPU rows no tracer writes, as import carries them
 * (kineto_records.c), for the note tl_an_odd_rows_say prints */
tl_status tl_an_odd_rows_meta_read(const tl_trace_reader *rd, const char *path, tl_an_meta *meta)
{
    int64_t ns = 0;
    int found;
    TL_TRY(tl_an_meta_i64_read(rd, path, "odd_gpu_rows_long", &meta->odd_long, &found));
    TL_TRY(tl_an_meta_i64_read(rd, path, "odd_gpu_rows_overlap", &meta->odd_overlap, &found));
    TL_TRY(tl_an_meta_i64_read(rd, path, "odd_gpu_rows_overlap_ns", &ns, &found));
    meta->odd_overlap_us = 1e-3 * (double)ns;
    return TL_OK;
}

/* A time of the rank's clock on rank 0's: minus the offset at that time. */
int64_t tl_an_on_rank0_clock(const tl_an_meta *m, int64_t t)
{
    double drift = m->clock_drift_ppb * 1e-9 * (double)(t - m->clock_at);
    return t - m->clock_offset - (int64_t)(drift < 0 ? drift - 0.5 : drift + 0.5);
}

/* Whether the rank reads rank 0's very clock, so that no offset is
 * applied: the probes say so (clock_shared=process: thread ranks of one
 * process; host: processes of one kernel boot and time namespace, their
 * measured offsets kept for reading). Traces written before that key
 * measured thread ranks too (threads-pingpong): one process, one clock,
 * so offsets within their uncertainty of 0 are the exchange's noise and
 * left unapplied; the test skew's (seconds, milliseconds) stand out and
 * are applied. */
static tl_status clock_shared(const tl_trace_reader *rd, const char *path, int measured, tl_an_meta *meta)
{
    const char *s = tl_trace_reader_meta(rd, "clock_shared");
    meta->clock_shared[0] = '\0';
    if (s) {
        TL_CHECK(!strcmp(s, "process") || !strcmp(s, "host"), TL_ERR_PARSE,
                 "%s: metadata clock_shared='%.40s' is neither process nor host", path, s);
        snprintf(meta->clock_shared, sizeof meta->clock_shared, "%s", s);
        return TL_OK;
    }
    if (!measured || strcmp(meta->clock_sync, "threads-pingpong") != 0) return TL_OK;
    int64_t end = 0;
    int f_end = 0;
    TL_TRY(tl_an_meta_i64_read(rd, path, "clock_offset_end_ns", &end, &f_end));
    if (llabs(meta->clock_offset) <= meta->clock_unc && (!f_end || llabs(end) <= meta->clock_unc))
        snprintf(meta->clock_shared, sizeof meta->clock_shared, "process");
    return TL_OK;
}

tl_status tl_an_clock_meta_read(const tl_trace_reader *rd, const char *path, int flags, tl_an_meta *meta)
{
    const char *s = tl_trace_reader_meta(rd, "clock_sync");
    snprintf(meta->clock_sync, sizeof meta->clock_sync, "%s", s ? s : "none");
    int f_off = 0, f_at = 0, f_unc = 0;
    TL_TRY(tl_an_meta_i64_read(rd, path, "clock_offset_ns", &meta->clock_offset, &f_off));
    TL_TRY(tl_an_meta_i64_read(rd, path, "clock_offset_at_ns", &meta->clock_at, &f_at));
    TL_TRY(tl_an_meta_i64_read(rd, path, "clock_uncertainty_ns", &meta->clock_unc, &f_unc));
    TL_CHECK(!f_unc || meta->clock_unc >= 0, TL_ERR_PARSE, "%s: clock_uncertainty_ns %lld is negative", path,
             (long long)meta->clock_unc);
    const char *d = tl_trace_reader_meta(rd, "clock_drift_ppb");
    meta->clock_drift_ppb = 0;
    if (d) {
        char *end = NULL;
        errno = 0;
        meta->clock_drift_ppb = strtod(d, &end);
        TL_CHECK(errno == 0 && end != d && *end == '\0' && meta->clock_drift_ppb > -1e8 && meta->clock_drift_ppb < 1e8,
                 TL_ERR_PARSE, "%s: metadata clock_drift_ppb='%s' is not a drift in ppb", path, d);
    }
    TL_CHECK(f_off == f_at, TL_ERR_PARSE, "%s: clock_offset_ns and clock_offset_at_ns come together", path);
    TL_TRY(clock_shared(rd, path, f_off && f_unc, meta));
    meta->clock_aligned = f_off && !meta->clock_shared[0] && !(flags & TL_AN_RAW_CLOCK);
    if (!meta->clock_aligned) meta->clock_offset = meta->clock_at = 0, meta->clock_drift_ppb = 0;
    return TL_OK;
}

tl_status tl_an_meta_keys_head(const tl_an_meta *m, tl_an_nsys_meta_fn mfn, void *user)
{
    char v[64];
    TL_TRY(mfn(user, "format", "trilap-trace"));
    TL_TRY(mfn(user, "version", "1"));
    snprintf(v, sizeof v, "%d", m->rank);
    TL_TRY(mfn(user, "rank", v));
    snprintf(v, sizeof v, "%d", m->nranks);
    TL_TRY(mfn(user, "nranks", v));
    snprintf(v, sizeof v, "%d", m->device);
    TL_TRY(mfn(user, "device", v));
    return mfn(user, "device_name", m->device_name);
}
