/* One rank's trace scanned record by record: a trilap rank file through
 * the probes' reader (its metadata, clock alignment, a file cut short, the
 * progress line), an Nsight Systems export's rank or a Kineto trace
 * through theirs (tl_an_scan). */
#include "analysis/analysis.h"
#include "analysis/load_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/progress.h"

int tl_an_record_is_gpu_activity(const tl_trace_record *r)
{
    return r->kind == TL_KIND_KERNEL || r->kind == TL_KIND_MEMCPY || r->kind == TL_KIND_MEMSET;
}

/* An Nsight Systems rank's records counted on its progress line. */
typedef struct counted {
    tl_an_record_fn cb;
    void *user;
    tl_progress *bar;
    int64_t n;
} counted;

static tl_status count_record(void *user, const tl_trace_record *r)
{
    counted *c = user;
    if ((++c->n & 0xffff) == 0) tl_progress_update(c->bar, (double)c->n);
    return c->cb ? c->cb(c->user, r) : TL_OK;
}

/* Nsight Systems exports and Kineto traces: no records= to size the line
 * by, so it is drawn only when asked (--progress): the records of an
 * export's rank as they stream, the events of a Kineto file as it parses. */
static tl_status scan_foreign(const char *path, const char *nfile, int nrank, const char *iter_nvtx, int flags,
                              tl_an_record_fn cb, void *user, tl_an_meta *meta, tl_an_nsys_meta_fn mfn,
                              void *muser)
{
    tl_progress bar = {0};
    int on = (flags & TL_AN_PROGRESS) && !(flags & TL_AN_QUIET);
    if (on) {
        const char *base = strrchr(nfile ? nfile : path, '/');
        base = base ? base + 1 : nfile ? nfile : path;
        char what[160];
        if (nfile) snprintf(what, sizeof what, "reading %.120s rank %d", base, nrank);
        else snprintf(what, sizeof what, "reading %.120s", base);
        tl_progress_begin(&bar, what, 0, nfile ? "records" : "events", TL_PROGRESS_ON);
    }
    tl_status st;
    if (nfile) {
        counted c = {.cb = cb, .user = user, .bar = &bar};
        st = tl_an_nsys_scan(nfile, nrank, iter_nvtx, on ? count_record : cb, on ? (void *)&c : user, meta, NULL);
        if (on) tl_progress_update(&bar, (double)c.n);
    } else {
        st = tl_an_kineto_scan(path, cb, user, meta, mfn, muser, on ? &bar : NULL);
    }
    tl_progress_end(&bar);
    return st;
}

/* part added to the "; "-separated reasons in buf */
static void join_reason(char *buf, size_t n, const char *part)
{
    size_t at = strlen(buf);
    snprintf(buf + at, n - at, "%s%s", at ? "; " : "", part);
}

/* A file cut short holds the records that start before its last one (the
 * probes write them by start): past that start the rank's activity is not
 * known, and judging the window the metadata says would count the lost
 * records' time as idle (53.6 % idle on a synthetic rank cut in half, 7.3 %
 * whole). The window ends at the last record's start. */
static void window_cut(tl_an_meta *meta, int64_t lstart)
{
    int64_t end = lstart > meta->w0 ? lstart : meta->w0;
    if (end >= meta->w1) return;
    meta->window_cut = 1;
    meta->cut_ns[0] = end - meta->w0;
    meta->cut_ns[1] = meta->w1 - meta->w0;
    meta->w1 = end;
}


/* The peers.<i> lines a Kineto trace's reader makes of its sends and recvs
 * (tl_kt_emit), read as a trace file's are, against the rank and nranks
 * it set in meta before it hands over any metadata line. */
typedef struct kineto_peers {
    const char *path;
    tl_an_names *names;
    tl_an_peers *peers;
    const tl_an_meta *meta;
} kineto_peers;

static tl_status kineto_peer_line(void *user, const char *key, const char *value)
{
    const kineto_peers *k = user;
    if (strncmp(key, TL_TRACE_PEERS_KEY, strlen(TL_TRACE_PEERS_KEY)) != 0) return TL_OK;
    return tl_an_peers_add(k->peers, k->path, key, value, k->meta->rank, k->meta->nranks, k->names);
}

static tl_status scan_kineto(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                             tl_an_names *names, tl_an_peers *peers)
{
    kineto_peers kp = {.path = path, .names = names, .peers = peers, .meta = meta};
    return scan_foreign(path, NULL, 0, NULL, flags, cb, user, meta, peers ? kineto_peer_line : NULL, &kp);
}

/* tl_an_scan, also reading the trace's peers (analysis/peers.c) into
 * peers (names interning their names) where it is not NULL; they are
 * checked whatever the command, so a bad line is refused alike by all. */
tl_status tl_an_scan_with_peers(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                                tl_an_names *names, tl_an_peers *peers)
{
    tl_status st = TL_OK;
    char nfile[1024];
    int nrank = 0;
    const char *iter_nvtx = NULL;
    if (tl_an_nsys_path(path, nfile, sizeof nfile, &nrank, &iter_nvtx))
        return scan_foreign(path, nfile, nrank, iter_nvtx, flags, cb, user, meta, NULL, NULL);
    if (tl_an_is_kineto(path)) return scan_kineto(path, flags, cb, user, meta, names, peers);
    tl_trace_reader *rd = NULL;
    tl_progress bar = {0}; /* reading a large file */
    memset(meta, 0, sizeof *meta);
    snprintf(meta->path, sizeof meta->path, "%s", path);
    TL_TRYGOTO(tl_trace_reader_open(&rd, path, flags & TL_TRACE_ACCEPT_INCOMPLETE), st, fail);
    int found = 0, fw0 = 0, fw1 = 0;
    int64_t x = 0;
    meta->rank = meta->nranks = meta->device = -1;
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "rank", &x, &found), st, fail);
    if (found) meta->rank = (int)x;
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "nranks", &x, &found), st, fail);
    if (found) meta->nranks = (int)x;
    /* device=all: the injection library traces every device of its process;
     * the rank's device is then the first device of its GPU records */
    const char *dv = tl_trace_reader_meta(rd, "device");
    if (!dv || strcmp(dv, "all") != 0) {
        TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "device", &x, &found), st, fail);
        if (found) meta->device = (int)x;
    }
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "dropped", &meta->dropped, &found), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "owner_guess", &meta->owner_guess, &found), st, fail);
    TL_TRYGOTO(tl_an_odd_rows_meta_read(rd, path, meta), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "window_start_ns", &meta->w0, &fw0), st, fail);
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "window_end_ns", &meta->w1, &fw1), st, fail);
    const char *s = tl_trace_reader_meta(rd, "host");
    snprintf(meta->host, sizeof meta->host, "%s", s ? s : "?");
    s = tl_trace_reader_meta(rd, "device_name");
    snprintf(meta->device_name, sizeof meta->device_name, "%s", s ? s : "?");
    s = tl_trace_reader_meta(rd, "program");
    snprintf(meta->program, sizeof meta->program, "%s", s ? s : "");
    s = tl_trace_reader_meta(rd, "clock");
    /* its name: an imported trace says more after it ("kineto-host (...)") */
    snprintf(meta->clock, sizeof meta->clock, "%.*s", s ? (int)strcspn(s, " ") : 1, s ? s : "?");
    s = tl_trace_reader_meta(rd, "complete");
    meta->complete = !s || strcmp(s, "no") != 0;
    meta->window_from_meta = fw0 && fw1;
    TL_TRYGOTO(tl_an_clock_meta_read(rd, path, flags, meta), st, fail);
    TL_TRYGOTO(tl_an_peers_read(rd, path, meta->rank, meta->nranks, names, peers), st, fail);
    if (meta->clock_aligned) {
        if (fw0) meta->w0 = tl_an_on_rank0_clock(meta, meta->w0);
        if (fw1) meta->w1 = tl_an_on_rank0_clock(meta, meta->w1);
        TL_CHECKGOTO((!fw0 || (meta->w0 >= -TL_TRACE_MAX_NS && meta->w0 <= TL_TRACE_MAX_NS)) &&
                         (!fw1 || (meta->w1 >= -TL_TRACE_MAX_NS && meta->w1 <= TL_TRACE_MAX_NS)),
                     TL_ERR_PARSE, st, fail, "%s: clock_offset_ns %" PRId64 " moves the window beyond +-2^61 ns", path,
                     meta->clock_offset);
    }
    TL_CHECKGOTO(!meta->window_from_meta || meta->w1 >= meta->w0, TL_ERR_PARSE, st, fail,
                 "%s: window_end_ns %" PRId64 " before window_start_ns %" PRId64, path, meta->w1, meta->w0);
    int64_t first = INT64_MAX, last = INT64_MIN, afirst = INT64_MAX, alast = INT64_MIN, lstart = INT64_MIN;
    int64_t declared_n = 0, nrec = 0;
    TL_TRYGOTO(tl_an_meta_i64_read(rd, path, "records", &declared_n, &found), st, fail);
    if (!(flags & TL_AN_QUIET) && ((flags & TL_AN_PROGRESS) || (found && declared_n >= TL_AN_PROGRESS_RECORDS))) {
        const char *base = strrchr(path, '/');
        char what[160];
        snprintf(what, sizeof what, "reading %s", base ? base + 1 : path);
        tl_progress_begin(&bar, what, found ? (double)declared_n : 0, "records",
                          flags & TL_AN_PROGRESS ? TL_PROGRESS_ON : TL_PROGRESS_AUTO);
    }
    for (;;) {
        tl_trace_record rec;
        int got = 0;
        TL_TRYGOTO(tl_trace_reader_next(rd, &rec, &got), st, fail);
        if (!got) break;
        if ((++nrec & 0xffff) == 0) tl_progress_update(&bar, (double)nrec);
        if (meta->rank < 0) meta->rank = rec.rank;
        if (meta->device < 0 && rec.device >= 0) meta->device = rec.device;
        if (meta->clock_aligned) {
            rec.start_ns = tl_an_on_rank0_clock(meta, rec.start_ns);
            rec.end_ns = tl_an_on_rank0_clock(meta, rec.end_ns);
            /* the reader bounded both the times and the offset; the sum may
             * not stay inside, and every later difference relies on it */
            TL_CHECKGOTO(rec.start_ns >= -TL_TRACE_MAX_NS && rec.end_ns <= TL_TRACE_MAX_NS,
                         TL_ERR_PARSE, st, fail,
                         "%s: clock_offset_ns %" PRId64 " moves a record to %" PRId64 " .. %" PRId64
                         " ns, beyond +-2^61 ns (a corrupt offset)",
                         path, meta->clock_offset, rec.start_ns, rec.end_ns);
        }
        if (rec.start_ns < afirst) afirst = rec.start_ns;
        if (rec.end_ns > alast) alast = rec.end_ns;
        if (rec.start_ns > lstart) lstart = rec.start_ns;
        if (tl_an_record_is_gpu_activity(&rec)) {
            if (rec.start_ns < first) first = rec.start_ns;
            if (rec.end_ns > last) last = rec.end_ns;
        }
        if (cb) TL_TRYGOTO(cb(user, &rec), st, fail);
    }
    long long declared = 0, nread = 0;
    /* both only reached under TL_TRACE_ACCEPT_INCOMPLETE (the reader refuses otherwise) */
    int miscount = tl_trace_reader_count(rd, &declared, &nread), cut = tl_trace_reader_cut(rd);
    if ((miscount || cut) && !(flags & TL_AN_QUIET)) {
        char why[256] = "", count[96];
        if (cut & TL_TRACE_CUT_GZIP) join_reason(why, sizeof why, "its gzip data ends inside a member (cut short)");
        if (cut & TL_TRACE_CUT_ROW) join_reason(why, sizeof why, "it ends mid-row, and that row is left out");
        snprintf(count, sizeof count, "the metadata says records=%lld, the file has %lld", declared, nread);
        if (miscount) join_reason(why, sizeof why, count);
        tl_log("%s: incomplete trace accepted: %s", path, why);
    }
    if (miscount || cut) meta->complete = 0;
    if (!meta->window_from_meta) {
        meta->w0 = first != INT64_MAX ? first : afirst != INT64_MAX ? afirst : 0;
        meta->w1 = last != INT64_MIN ? last : alast != INT64_MIN ? alast : meta->w0;
    }
    if (cut || (miscount && nread < declared)) window_cut(meta, lstart);
    if (meta->rank < 0) meta->rank = 0;
    tl_progress_update(&bar, (double)nrec);
fail:
    tl_progress_end(&bar);
    tl_trace_reader_close(&rd);
    return st;
}

tl_status tl_an_scan(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta)
{
    return tl_an_scan_with_peers(path, flags, cb, user, meta, NULL, NULL);
}
