/* Run directories and rank traces: streamed through the probes' reader,
 * keeping only GPU activity intervals (32 bytes each) of one rank at a time. */
#include "analysis/analysis.h"
#include "analysis/grow.h"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/progress.h"

static int is_gpu_activity(const tl_trace_record *r)
{
    return r->kind == TL_KIND_KERNEL || r->kind == TL_KIND_MEMCPY || r->kind == TL_KIND_MEMSET;
}

/* The host carrying communication itself (runtime/marks.h): a host range
 * on a p2p or coll lane. */
static int is_comm_mark(const tl_trace_record *r)
{
    return r->kind == TL_KIND_HOST && (r->lane == TL_ROLE_P2P || r->lane == TL_ROLE_COLL);
}

/* The host computing (runtime/marks.h's category compute): a host range
 * named compute:..., off the communication lanes. It is the rank's compute
 * only where the rank has no GPU activity (trilap-solve --backend host,
 * trilap-fdtd --backend cpu); beside kernels it covers their enqueue. */
static int is_host_compute(const tl_trace_record *r)
{
    return r->kind == TL_KIND_HOST && !is_comm_mark(r) && r->name && !strncmp(r->name, "compute:", 8);
}

static tl_status meta_i64(const tl_trace_reader *rd, const char *path, const char *key, int64_t *out, int *found)
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
static tl_status odd_rows_meta(const tl_trace_reader *rd, const char *path, tl_an_meta *meta)
{
    int64_t ns = 0;
    int found;
    TL_TRY(meta_i64(rd, path, "odd_gpu_rows_long", &meta->odd_long, &found));
    TL_TRY(meta_i64(rd, path, "odd_gpu_rows_overlap", &meta->odd_overlap, &found));
    TL_TRY(meta_i64(rd, path, "odd_gpu_rows_overlap_ns", &ns, &found));
    meta->odd_overlap_us = 1e-3 * (double)ns;
    return TL_OK;
}

/* A time of the rank's clock on rank 0's: minus the offset at that time. */
static int64_t to_ref(const tl_an_meta *m, int64_t t)
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
    TL_TRY(meta_i64(rd, path, "clock_offset_end_ns", &end, &f_end));
    if (llabs(meta->clock_offset) <= meta->clock_unc && (!f_end || llabs(end) <= meta->clock_unc))
        snprintf(meta->clock_shared, sizeof meta->clock_shared, "process");
    return TL_OK;
}

static tl_status clock_meta(const tl_trace_reader *rd, const char *path, int flags, tl_an_meta *meta)
{
    const char *s = tl_trace_reader_meta(rd, "clock_sync");
    snprintf(meta->clock_sync, sizeof meta->clock_sync, "%s", s ? s : "none");
    int f_off = 0, f_at = 0, f_unc = 0;
    TL_TRY(meta_i64(rd, path, "clock_offset_ns", &meta->clock_offset, &f_off));
    TL_TRY(meta_i64(rd, path, "clock_offset_at_ns", &meta->clock_at, &f_at));
    TL_TRY(meta_i64(rd, path, "clock_uncertainty_ns", &meta->clock_unc, &f_unc));
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
 * (tl_kt_emit), read as a trace file's are; it hands its rank and nranks
 * over first, as it writes them on import. */
typedef struct kineto_peers {
    const char *path;
    tl_an_names *names;
    tl_an_peers *peers;
    int self, nranks;
} kineto_peers;

static tl_status kineto_peer_line(void *user, const char *key, const char *value)
{
    kineto_peers *k = user;
    if (!strcmp(key, "rank")) k->self = atoi(value);
    else if (!strcmp(key, "nranks")) k->nranks = atoi(value);
    else if (!strncmp(key, TL_TRACE_PEERS_KEY, strlen(TL_TRACE_PEERS_KEY)))
        return tl_an_peers_add(k->peers, k->path, key, value, k->self, k->nranks, k->names);
    return TL_OK;
}

static tl_status scan_kineto(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                             tl_an_names *names, tl_an_peers *peers)
{
    kineto_peers kp = {.path = path, .names = names, .peers = peers};
    return scan_foreign(path, NULL, 0, NULL, flags, cb, user, meta, peers ? kineto_peer_line : NULL, &kp);
}

/* tl_an_scan, also reading the trace's peers (analysis/peers.c) into
 * peers (names interning their names) where it is not NULL; they are
 * checked whatever the command, so a bad line is refused alike by all. */
static tl_status scan_trace(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta,
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
    TL_TRYGOTO(meta_i64(rd, path, "rank", &x, &found), st, fail);
    if (found) meta->rank = (int)x;
    TL_TRYGOTO(meta_i64(rd, path, "nranks", &x, &found), st, fail);
    if (found) meta->nranks = (int)x;
    /* device=all: the injection library traces every device of its process;
     * the rank's device is then the first device of its GPU records */
    const char *dv = tl_trace_reader_meta(rd, "device");
    if (!dv || strcmp(dv, "all") != 0) {
        TL_TRYGOTO(meta_i64(rd, path, "device", &x, &found), st, fail);
        if (found) meta->device = (int)x;
    }
    TL_TRYGOTO(meta_i64(rd, path, "dropped", &meta->dropped, &found), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "owner_guess", &meta->owner_guess, &found), st, fail);
    TL_TRYGOTO(odd_rows_meta(rd, path, meta), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "window_start_ns", &meta->w0, &fw0), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "window_end_ns", &meta->w1, &fw1), st, fail);
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
    TL_TRYGOTO(clock_meta(rd, path, flags, meta), st, fail);
    TL_TRYGOTO(tl_an_peers_read(rd, path, meta->rank, meta->nranks, names, peers), st, fail);
    if (meta->clock_aligned) {
        if (fw0) meta->w0 = to_ref(meta, meta->w0);
        if (fw1) meta->w1 = to_ref(meta, meta->w1);
        TL_CHECKGOTO((!fw0 || (meta->w0 >= -TL_TRACE_MAX_NS && meta->w0 <= TL_TRACE_MAX_NS)) &&
                         (!fw1 || (meta->w1 >= -TL_TRACE_MAX_NS && meta->w1 <= TL_TRACE_MAX_NS)),
                     TL_ERR_PARSE, st, fail, "%s: clock_offset_ns %" PRId64 " moves the window beyond +-2^61 ns", path,
                     meta->clock_offset);
    }
    TL_CHECKGOTO(!meta->window_from_meta || meta->w1 >= meta->w0, TL_ERR_PARSE, st, fail,
                 "%s: window_end_ns %" PRId64 " before window_start_ns %" PRId64, path, meta->w1, meta->w0);
    int64_t first = INT64_MAX, last = INT64_MIN, afirst = INT64_MAX, alast = INT64_MIN, lstart = INT64_MIN;
    int64_t declared_n = 0, nrec = 0;
    TL_TRYGOTO(meta_i64(rd, path, "records", &declared_n, &found), st, fail);
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
            rec.start_ns = to_ref(meta, rec.start_ns);
            rec.end_ns = to_ref(meta, rec.end_ns);
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
        if (is_gpu_activity(&rec)) {
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
    return scan_trace(path, flags, cb, user, meta, NULL, NULL);
}

static int cmp_files(const void *a, const void *b)
{
    const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
    int d = tl_trace_rank_of_name(x) - tl_trace_rank_of_name(y);
    return d ? d : strcmp(x, y); /* trace.rank1.csv before trace.rank1.csv.gz */
}

/* What a rank file's header says about the run it belongs to. */
typedef struct rank_head {
    const char *base;       /* its name in the folder */
    int rank;               /* of its name */
    int64_t meta_rank, nranks, declared; /* rank=, nranks=, records=; -1 when not said */
    int subset;             /* rank_subset=yes: the source held only some of the run's ranks (import) */
    int has_rows;           /* at least one record */
    char clock[64];         /* clock=, "" when not said */
    char domain[256];       /* rank 0's clock when its window is put on it, else "" */
    int64_t w0, w1;         /* window_start_ns..window_end_ns on that clock */
    char host_clock[256];   /* its own raw clock, named by host and clock kind ("" when the host is not named) */
    int64_t r0, r1;         /* the window as recorded, on that clock */
} rank_head;

/* The clocks a rank's window can be compared on, as names: rank 0's when
 * the probes measured the offset or for rank 0 itself; else the raw clock
 * of its host, which every rank on that host shares. A measured offset
 * says the clocks may differ (tests play other hosts on one host), so a
 * measured rank is compared on rank 0's clock only. Neither for a host
 * not named without a measured offset. */
static void clock_domains(const tl_trace_reader *rd, const tl_an_meta *m, int flags, rank_head *h)
{
    const char *host = tl_trace_reader_meta(rd, "host"), *clock = tl_trace_reader_meta(rd, "clock");
    int reference = !strcmp(m->clock_sync, "reference");
    h->domain[0] = h->host_clock[0] = '\0';
    if (m->clock_aligned || m->clock_shared[0] || (reference && !(flags & TL_AN_RAW_CLOCK)))
        snprintf(h->domain, sizeof h->domain, "rank 0's clock (offsets measured by the probes)");
    if (!m->clock_aligned && host && host[0] && strcmp(host, "?") != 0)
        snprintf(h->host_clock, sizeof h->host_clock, "%s of host %s", clock ? clock : "the clock", host);
}

/* A rank file's header, and whether a first row follows; its window on
 * the clock the analysis puts it on (the flags' --raw-clock). */
static tl_status read_head(const char *path, int flags, rank_head *h)
{
    tl_trace_reader *rd = NULL;
    tl_trace_record rec;
    tl_an_meta m;
    int found = 0, fw0 = 0, fw1 = 0;
    tl_status st = TL_OK;
    memset(&m, 0, sizeof m);
    h->base = strrchr(path, '/') + 1;
    h->rank = tl_trace_rank_of_name(h->base);
    h->meta_rank = h->nranks = h->declared = -1;
    TL_TRY(tl_trace_reader_open(&rd, path, TL_TRACE_ACCEPT_INCOMPLETE));
    TL_TRYGOTO(meta_i64(rd, path, "rank", &h->meta_rank, &found), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "nranks", &h->nranks, &found), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "records", &h->declared, &found), st, fail);
    const char *s = tl_trace_reader_meta(rd, "rank_subset");
    h->subset = s && !strcmp(s, "yes");
    s = tl_trace_reader_meta(rd, "clock");
    snprintf(h->clock, sizeof h->clock, "%s", s ? s : "");
    /* whether ranks are of one run does not depend on how the analysis
     * shows their times: measured offsets place the windows, --raw-clock
     * or not */
    flags &= ~TL_AN_RAW_CLOCK;
    TL_TRYGOTO(clock_meta(rd, path, flags, &m), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "window_start_ns", &h->w0, &fw0), st, fail);
    TL_TRYGOTO(meta_i64(rd, path, "window_end_ns", &h->w1, &fw1), st, fail);
    if (fw0 && fw1) {
        clock_domains(rd, &m, flags, h);
        h->r0 = h->w0, h->r1 = h->w1;
        if (m.clock_aligned) h->w0 = to_ref(&m, h->w0), h->w1 = to_ref(&m, h->w1);
    }
    TL_TRYGOTO(tl_trace_reader_next(rd, &rec, &h->has_rows), st, fail); /* one row tells */
fail:
    tl_trace_reader_close(&rd);
    return st;
}

/* A rank's window on one of the clocks it can be compared on. */
typedef struct clock_window {
    const char *domain; /* "" when on none */
    int64_t w0, w1;
    const char *base;
} clock_window;

static clock_window on_rank0(const rank_head *h) { return (clock_window){h->domain, h->w0, h->w1, h->base}; }
static clock_window on_host(const rank_head *h) { return (clock_window){h->host_clock, h->r0, h->r1, h->base}; }

/* The windows of the ranks that lie on one clock overlap: the latest start
 * is before the earliest end. */
static tl_status check_windows(const char *dir, const rank_head *h, size_t n, clock_window (*on)(const rank_head *))
{
    for (size_t k = 0; k < n; k++) {
        clock_window c = on(&h[k]), late = c, early = c;
        if (!c.domain[0]) continue;
        size_t first = k, il = k, ie = k;
        for (size_t j = 0; j < n; j++) {
            clock_window x = on(&h[j]);
            if (strcmp(x.domain, c.domain) != 0) continue;
            if (j < first) first = j;
            if (x.w0 > late.w0) late = x, il = j;
            if (x.w1 < early.w1) early = x, ie = j;
        }
        if (first < k) continue; /* this clock was checked */
        if (late.w0 <= early.w1) continue;
        clock_window a = ie < il ? early : late, b = ie < il ? late : early; /* in rank order */
        return TL_FAIL(TL_ERR_PARSE,
                       "%s: %s and %s are not of one run: their windows do not overlap (%.6f..%.6f s and %.6f..%.6f s "
                       "on %s); analyse each run in its own folder",
                       dir, a.base, b.base, (double)a.w0 / 1e9, (double)a.w1 / 1e9, (double)b.w0 / 1e9,
                       (double)b.w1 / 1e9, c.domain);
    }
    return TL_OK;
}

/* Ranks of one run share nranks= and clock=, and their measured windows
 * overlap wherever two lie on one clock (a run's ranks measure one region
 * together): on rank 0's clock after measured offsets, and on a host's raw
 * clock, with or without --raw-clock. Refused whatever the flags: no run
 * has such ranks. */
static tl_status check_one_run(const char *dir, const rank_head *h, size_t n)
{
    const rank_head *nr = NULL, *ck = NULL; /* the first to say nranks=, clock= */
    for (size_t k = 0; k < n; k++) {
        const rank_head *x = &h[k];
        TL_CHECK(!nr || x->nranks < 0 || x->nranks == nr->nranks, TL_ERR_PARSE,
                 "%s: %s and %s are not of one run: nranks=%lld and nranks=%lld", dir, nr ? nr->base : "", x->base,
                 nr ? (long long)nr->nranks : 0LL, (long long)x->nranks);
        TL_CHECK(!ck || !x->clock[0] || !strcmp(x->clock, ck->clock), TL_ERR_PARSE,
                 "%s: %s and %s are not of one run: clock=%s and clock=%s", dir, ck ? ck->base : "", x->base,
                 ck ? ck->clock : "", x->clock);
        if (!nr && x->nranks >= 0) nr = x;
        if (!ck && x->clock[0]) ck = x;
    }
    TL_TRY(check_windows(dir, h, n, on_host));
    TL_TRY(check_windows(dir, h, n, on_rank0));
    return TL_OK;
}

/* Two files of one rank (rank= in the metadata, else the name) are one
 * rank's trace twice, a copy under another rank's name, not a run with a
 * rank missing: reading both would match that rank's operations with
 * themselves (no waiting) and print its rows twice. Refused whatever the
 * flags, as two files named for one rank are. */
static tl_status check_distinct_ranks(const char *dir, const rank_head *h, size_t n)
{
    for (size_t k = 1; k < n; k++)
        for (size_t j = 0; j < k; j++) {
            int64_t a = h[j].meta_rank >= 0 ? h[j].meta_rank : h[j].rank;
            int64_t b = h[k].meta_rank >= 0 ? h[k].meta_rank : h[k].rank;
            if (a == b)
                return TL_FAIL(TL_ERR_PARSE,
                               "%s: %s and %s are both rank %lld (rank= in their metadata): one rank's trace twice, "
                               "not the ranks of one run; keep the file of each rank",
                               dir, h[j].base, h[k].base, (long long)a);
        }
    return TL_OK;
}

/* files[k] is trace.rank<k>.csv for k = 0..n-1, each file's rank= is its
 * name's and nranks= is n; a folder whose every file says rank_subset=yes
 * (an import of some of a run's ranks, as a PyTorch profiler trace set
 * may be) may skip ranks. A gap or a disagreement is refused; with
 * TL_TRACE_ACCEPT_INCOMPLETE it is accepted and said on stderr. */
static tl_status check_complete(const char *dir, const rank_head *h, size_t n, int flags)
{
    char why[512] = "";
    int subset = 1;
    for (size_t k = 0; k < n; k++) subset = subset && h[k].subset;
    for (size_t k = 0; k < n && !why[0]; k++) {
        if (!subset && (size_t)h[k].rank != k)
            snprintf(why, sizeof why, "rank %zu missing (the next file is %s)", k, h[k].base);
        else if (h[k].meta_rank >= 0 && h[k].meta_rank != h[k].rank)
            snprintf(why, sizeof why, "%s says rank=%lld in its metadata", h[k].base, (long long)h[k].meta_rank);
    }
    if (!why[0] && !subset && n && h[0].nranks >= 0 && (size_t)h[0].nranks != n)
        snprintf(why, sizeof why, "the metadata says nranks=%lld, the folder has %zu rank file%s",
                 (long long)h[0].nranks, n, n == 1 ? "" : "s");
    if (!why[0]) return TL_OK;
    if (!(flags & TL_TRACE_ACCEPT_INCOMPLETE))
        return TL_FAIL(TL_ERR_PARSE, "%s: incomplete run: %s; --accept-incomplete reads it anyway", dir, why);
    if (!(flags & TL_AN_QUIET)) tl_log("%s: incomplete run accepted: %s", dir, why);
    return TL_OK;
}

/* A run none of whose ranks recorded anything has nothing to analyse
 * (its figures would be 0 / 0). A file cut before its first row is left
 * to the reader, which says so, unless cut files are accepted. */
static tl_status check_activity(const char *dir, const rank_head *h, size_t n, int flags)
{
    int cut = 0;
    for (size_t k = 0; k < n; k++) {
        if (h[k].has_rows) return TL_OK;
        cut = cut || h[k].declared > 0;
    }
    if (cut && !(flags & TL_TRACE_ACCEPT_INCOMPLETE)) return TL_OK;
    if (n == 1)
        return TL_FAIL(TL_ERR_PARSE, "%s: no GPU or host activity recorded (%s holds no records): nothing to analyse",
                       dir, h[0].base);
    return TL_FAIL(TL_ERR_PARSE, "%s: no GPU or host activity recorded (none of its %zu rank files holds a record): "
                   "nothing to analyse", dir, n);
}

/* The rank set of a run folder (files sorted by rank): one file per rank,
 * the ranks of one run, complete (or accepted as not), something recorded. */
static tl_status check_rank_set(const char *dir, char **f, size_t n, int flags)
{
    for (size_t k = 1; k < n; k++) {
        const char *a = strrchr(f[k - 1], '/') + 1, *b = strrchr(f[k], '/') + 1;
        int r = tl_trace_rank_of_name(b);
        if (r == tl_trace_rank_of_name(a))
            return TL_FAIL(TL_ERR_PARSE, "%s: rank %d has two trace files, %s and %s; keep one", dir, r, a, b);
    }
    rank_head *h = calloc(n ? n : 1, sizeof *h);
    TL_CHECK(h, TL_ERR_NOMEM, "%zu rank files", n);
    tl_status st = TL_OK;
    for (size_t k = 0; k < n; k++) TL_TRYGOTO(read_head(f[k], flags, &h[k]), st, fail);
    TL_TRYGOTO(check_one_run(dir, h, n), st, fail);
    TL_TRYGOTO(check_distinct_ranks(dir, h, n), st, fail);
    TL_TRYGOTO(check_complete(dir, h, n, flags), st, fail);
    TL_TRYGOTO(check_activity(dir, h, n, flags), st, fail);
fail:
    free(h);
    return st;
}

tl_status tl_an_input_kind(const char *path)
{
    size_t n = strlen(path);
    if (tl_an_is_special(path))
        return TL_FAIL(TL_ERR_PARSE, "%s: a pipe or a device: traces are read from files (the readers open them more "
                                     "than once)", path);
    if (tl_an_is_gzip_nsys(path))
        return TL_FAIL(TL_ERR_PARSE, "%s: an Nsight Systems export compressed with gzip (SQLite reads files in place): "
                                     "gunzip -c %s > PLAIN.sqlite, then give PLAIN.sqlite", path, path);
    if (n > 7 && !strcmp(path + n - 7, ".sqlite"))
        return TL_FAIL(TL_ERR_PARSE, "%s: not an SQLite file (nsys export --type sqlite makes one)", path);
    /* a run is its folder (the ranks are read together), so one rank's file
     * given alone is named as what it is, with the input to give instead */
    const char *base = strrchr(path, '/');
    int rank = tl_trace_rank_of_name(base ? base + 1 : path);
    if (rank >= 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: one rank's file (rank %d) of a trilap run: give the run's folder, %.*s",
                       path, rank, base ? (int)(base - path) + (base == path) : 1, base ? path : ".");
    struct stat sb; /* a trace cut to nothing (a full disk, a copy stopped at once) */
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: empty file: no trace in it", path);
    return TL_OK;
}

/* An input that cannot be opened, said as what it is: the name may be a
 * file (a trace, an export) as well as a folder, and a link whose target
 * is gone is named with that target. */
static tl_status missing_input(const char *path, int err)
{
    struct stat sb;
    char target[PATH_MAX];
    ssize_t len;
    if (err == ENOENT && lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) &&
        (len = readlink(path, target, sizeof target - 1)) > 0) {
        target[len] = '\0';
        return TL_FAIL(TL_ERR_IO, "%s: a link to %s, which does not exist", path, target);
    }
    if (err == ENOENT)
        return TL_FAIL(TL_ERR_IO, "%s: no such file or folder (a trilap run's folder, a PyTorch profiler trace or an "
                                  "Nsight Systems sqlite export)", path);
    return TL_FAIL(TL_ERR_IO, "%s: cannot open: %s", path, strerror(err));
}

tl_status tl_an_run_files(const char *dir, int flags, char ***files, size_t *nfiles)
{
    return tl_an_run_files_nvtx(dir, flags, NULL, files, nfiles);
}

/* An export's ranks: FILE#R, with --iter-nvtx FILE#R#iter-nvtx=SPEC */
static tl_status nsys_rank_files(const char *dir, const char *iter_nvtx, char ***files, size_t *nfiles)
{
    int nr = 0;
    TL_TRY(tl_an_nsys_ranks(dir, &nr));
    char **f = calloc((size_t)nr, sizeof *f);
    TL_CHECK(f, TL_ERR_NOMEM, "%d ranks", nr);
    const char *tag = iter_nvtx ? TL_AN_NSYS_ITER_NVTX : "", *spec = iter_nvtx ? iter_nvtx : "";
    for (int r = 0; r < nr; r++) {
        size_t len = strlen(dir) + strlen(tag) + strlen(spec) + 16;
        f[r] = malloc(len);
        if (!f[r]) {
            tl_an_run_files_free(&f, (size_t)r);
            return TL_FAIL(TL_ERR_NOMEM, "path");
        }
        snprintf(f[r], len, "%s#%d%s%s", dir, r, tag, spec);
    }
    *files = f;
    *nfiles = (size_t)nr;
    return TL_OK;
}

tl_status tl_an_run_files_nvtx(const char *dir, int flags, const char *iter_nvtx, char ***files, size_t *nfiles)
{
    *files = NULL;
    *nfiles = 0;
    if (tl_an_is_nsys(dir)) return nsys_rank_files(dir, iter_nvtx, files, nfiles);
    int kineto = 0;
    TL_TRY(tl_an_kineto_run_files(dir, files, nfiles, &kineto));
    if (kineto) return TL_OK;
    DIR *d = opendir(dir);
    if (!d && errno == ENOTDIR) {
        TL_TRY(tl_an_input_kind(dir));
        /* what its contents are instead, where they say (a gzip of a gzip
         * was "neither ..." and no more) */
        TL_TRY(tl_an_kineto_refuse_other(dir));
        return TL_FAIL(TL_ERR_PARSE, "%s: neither a run folder, a PyTorch profiler trace nor an Nsight Systems sqlite export",
                       dir);
    }
    if (!d) return missing_input(dir, errno);
    tl_status st = TL_OK;
    size_t n = 0, cap = 0;
    char **f = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        int r = tl_trace_rank_of_name(e->d_name);
        TL_CHECKGOTO(r != -2, TL_ERR_PARSE, st, fail,
                     "%s/%s: not a rank file name (trace.rank<R>.csv, R without leading zeros)", dir,
                     e->d_name);
        if (r < 0) continue;
        TL_TRYGOTO(TL_AN_GROW(f, n, cap, "file names"), st, fail);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        f[n] = malloc(len);
        TL_CHECKGOTO(f[n], TL_ERR_NOMEM, st, fail, "path");
        snprintf(f[n], len, "%s/%s", dir, e->d_name);
        n++;
        TL_CHECKGOTO(!tl_an_is_special(f[n - 1]), TL_ERR_PARSE, st, fail,
                     "%s: a pipe or a device: traces are read from files (the readers open them more than once)",
                     f[n - 1]);
    }
    /* a folder of JSON files none of which is a Kineto trace: why, rather
     * than that it holds no rank files */
    if (!n) TL_TRYGOTO(tl_an_kineto_refuse_other(dir), st, fail);
    TL_CHECKGOTO(n > 0, TL_ERR_IO, st, fail, "%s: no trace.rank<R>.csv%s files", dir,
                 TL_HAVE_ZLIB ? "[.gz]" : "");
    qsort(f, n, sizeof *f, cmp_files);
    closedir(d);
    d = NULL;
    TL_TRYGOTO(check_rank_set(dir, f, n, flags), st, fail);
    *files = f;
    *nfiles = n;
    return TL_OK;
fail:
    if (d) closedir(d);
    tl_an_run_files_free(&f, n);
    return st;
}

void tl_an_run_files_free(char ***files, size_t nfiles)
{
    if (!files || !*files) return;
    for (size_t i = 0; i < nfiles; i++) free((*files)[i]);
    free(*files);
    *files = NULL;
}

/* One side of an "op:" row's join with its kernel: the correlation id and
 * the kernel's start and stream, or the key, message size and launch. */
typedef struct corr_side {
    uint64_t corr;
    int64_t t, bytes;
    uint32_t id;
} corr_side;

typedef struct load_state {
    tl_an_rank *rk;
    tl_an_names *names;
    tl_an_record_fn also; /* the caller's own look at every record, in the same pass */
    void *also_user;
    corr_side *kern, *op; /* communication kernels with a correlation id; "op:" rows */
    corr_side *wait;      /* "wait:" rows: t their end */
    size_t nkern, capkern, nop, capop, nwait, capwait;
    int gpu; /* a GPU activity seen: the host's compute ranges are no compute (is_host_compute) */
} load_state;

static tl_status push_side(corr_side **a, size_t *n, size_t *cap, corr_side v)
{
    TL_TRY(TL_AN_GROW(*a, *n, *cap, "operation rows"));
    (*a)[(*n)++] = v;
    return TL_OK;
}

static int cmp_side(const void *a, const void *b)
{
    const corr_side *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_opl(const void *a, const void *b)
{
    const tl_an_oplabel *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (int)x->stream - (int)y->stream;
}

void tl_an_op_label(const char *key, int64_t bytes, char *out, size_t n)
{
    char size[32] = "";
    double b = (double)bytes;
    if (bytes >= 1000000) snprintf(size, sizeof size, " %.1f MB", b / 1e6);
    else if (bytes >= 1000) snprintf(size, sizeof size, " %.1f kB", b / 1e3);
    else if (bytes >= 0) snprintf(size, sizeof size, " %lld B", (long long)bytes);
    int w = (int)strcspn(key, " ");
    snprintf(out, n, "%.*s%s%s", w, key, size, key + w);
}

/* The operation of each communication kernel: its "op:" row by correlation
 * id (either may come first in the trace), and its "wait:" row if any. */
static tl_status join_oplabels(load_state *ls)
{
    tl_an_rank *rk = ls->rk;
    if (!ls->nkern || !ls->nop) return TL_OK;
    qsort(ls->kern, ls->nkern, sizeof *ls->kern, cmp_side);
    qsort(ls->op, ls->nop, sizeof *ls->op, cmp_side);
    if (ls->nwait) qsort(ls->wait, ls->nwait, sizeof *ls->wait, cmp_side);
    rk->opl = malloc(ls->nkern * sizeof *rk->opl);
    TL_CHECK(rk->opl, TL_ERR_NOMEM, "%zu operations", ls->nkern);
    for (size_t i = 0, j = 0, w = 0; i < ls->nkern; i++) {
        while (j < ls->nop && ls->op[j].corr < ls->kern[i].corr) j++;
        if (j == ls->nop || ls->op[j].corr != ls->kern[i].corr) continue;
        tl_an_oplabel *ol = &rk->opl[rk->nopl++];
        *ol = (tl_an_oplabel){.start = ls->kern[i].t, .launch = ls->op[j].t, .label = ls->op[j].id,
                              .key = ls->op[j].id, .stream = (uint16_t)ls->kern[i].id};
        while (w < ls->nwait && ls->wait[w].corr < ls->kern[i].corr) w++;
        if (w < ls->nwait && ls->wait[w].corr == ls->kern[i].corr)
            ol->held = ls->wait[w].t, ol->held_name = ls->wait[w].id;
        if (ls->op[j].bytes >= 0) {
            char label[640];
            tl_an_op_label(tl_an_names_get(ls->names, ol->key), ls->op[j].bytes, label, sizeof label);
            TL_TRY(tl_an_names_intern(ls->names, label, &ol->label));
        }
    }
    qsort(rk->opl, rk->nopl, sizeof *rk->opl, cmp_opl);
    return TL_OK;
}

const tl_an_oplabel *tl_an_rank_oplabel(const tl_an_rank *rk, const tl_an_ival *v)
{
    if (v->flags & TL_AN_F_SPLIT) return NULL;
    size_t lo = 0, hi = rk->nopl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->opl[mid].start < v->start) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < rk->nopl && rk->opl[lo].start == v->start; lo++)
        if (rk->opl[lo].stream == v->stream) return &rk->opl[lo];
    return NULL;
}

/* Iterations beyond this are a corrupt trace, not a long run. */
#define MAX_ITER (1 << 26)

static tl_status grow_iters(int64_t **a, size_t *n, size_t it)
{
    if (it < *n) return TL_OK;
    size_t m = *n ? *n : 64;
    while (m <= it) m *= 2;
    int64_t *na = realloc(*a, m * sizeof *na);
    TL_CHECK(na, TL_ERR_NOMEM, "%zu iterations", m);
    *a = na;
    for (size_t k = *n; k < m; k++) na[k] = INT64_MAX;
    *n = m;
    return TL_OK;
}

static tl_status keep_host_iter(tl_an_rank *rk, const tl_trace_record *r)
{
    TL_CHECK(r->iter < MAX_ITER, TL_ERR_PARSE, "%s: iteration %" PRId64 " beyond %d (a corrupt trace)",
             rk->meta.path, r->iter, MAX_ITER);
    TL_TRY(TL_AN_GROW(rk->hit, rk->nhit, rk->caphit, "iteration ranges"));
    rk->hit[rk->nhit++] = (tl_an_hostiter){.start = r->start_ns, .iter = r->iter, .num = r->iter};
    return TL_OK;
}

/* The rank has GPU activity after all: its host's compute ranges kept so
 * far are enqueues, not compute, and no more are kept. */
static void drop_host_compute(load_state *ls)
{
    tl_an_rank *rk = ls->rk;
    size_t m = 0;
    for (size_t j = 0; j < rk->n; j++)
        if (!tl_an_ival_is_host_compute(&rk->v[j])) rk->v[m++] = rk->v[j];
    rk->n = m;
    ls->gpu = 1;
}

static tl_status keep_record(void *user, const tl_trace_record *r)
{
    load_state *ls = user;
    tl_an_rank *rk = ls->rk;
    if (ls->also) TL_TRY(ls->also(ls->also_user, r));
    if (r->kind == TL_KIND_HOST && r->iter >= 0 && r->name && !strcmp(r->name, "iter"))
        return keep_host_iter(rk, r);
    if (r->kind == TL_KIND_HOST && r->corr && r->name && !strncmp(r->name, "op:", 3) && r->name[3]) {
        corr_side o = {.corr = r->corr, .t = r->start_ns, .bytes = r->bytes};
        TL_TRY(tl_an_names_intern(ls->names, r->name + 3, &o.id));
        return push_side(&ls->op, &ls->nop, &ls->capop, o);
    }
    if (r->kind == TL_KIND_HOST && r->corr && r->name && !strncmp(r->name, "wait:", 5) && r->name[5]) {
        corr_side o = {.corr = r->corr, .t = r->end_ns};
        TL_TRY(tl_an_names_intern(ls->names, r->name + 5, &o.id));
        return push_side(&ls->wait, &ls->nwait, &ls->capwait, o);
    }
    int mark = is_comm_mark(r);
    if (is_gpu_activity(r) && !ls->gpu) drop_host_compute(ls);
    /* a rank with a device traced without CUPTI (--trace-mode nvtx) has no
     * GPU activity either: its compute:* ranges time enqueues all the same */
    int host_compute = !ls->gpu && ls->rk->meta.device < 0 && is_host_compute(r);
    if (!is_gpu_activity(r) && !mark && !host_compute) return TL_OK;
    TL_CHECK(r->iter < MAX_ITER, TL_ERR_PARSE, "%s: iteration %" PRId64 " beyond %d (a corrupt trace)",
             rk->meta.path, r->iter, MAX_ITER);
    TL_TRY(TL_AN_GROW(rk->v, rk->n, rk->cap, "intervals"));
    tl_an_ival *v = &rk->v[rk->n];
    memset(v, 0, sizeof *v);
    v->start = r->start_ns;
    v->end = r->end_ns;
    v->iter = (int32_t)(r->iter < 0 ? -1 : r->iter);
    v->lane = (uint8_t)r->lane;
    v->cat = (uint8_t)r->cat;
    v->kind = (uint8_t)r->kind;
    TL_TRY(tl_an_names_intern(ls->names, r->name ? r->name : "", &v->name));
    /* the host's own exchanges and reductions are no kernel family of
     * their name (the timeline coloured them "compute") */
    v->group = (uint8_t)(mark           ? TL_AN_G_HOST_COMM
                         : host_compute ? TL_AN_G_COMPUTE
                                        : tl_an_names_group(ls->names, v->name, r->kind, r->cat));
    size_t s = 0;
    while (s < rk->nstreams && rk->streams[s] != r->stream) s++;
    if (s == rk->nstreams) {
        TL_CHECK(s < UINT16_MAX, TL_ERR_PARSE, "more than %d streams", UINT16_MAX);
        TL_TRY(TL_AN_GROW(rk->streams, s, rk->capstreams, "streams"));
        rk->streams[rk->nstreams++] = r->stream;
    }
    v->stream = (uint16_t)s;
    if (r->corr && r->kind == TL_KIND_KERNEL && (r->cat == TL_CAT_P2P || r->cat == TL_CAT_COLL))
        TL_TRY(push_side(&ls->kern, &ls->nkern, &ls->capkern,
                         (corr_side){.corr = r->corr, .t = r->start_ns, .id = (uint32_t)s}));
    if (r->iter >= 0 && !mark && !host_compute) { /* iterations are bounded by their GPU activity */
        size_t it = (size_t)r->iter;
        TL_TRY(grow_iters(&rk->iter_start, &rk->niter, it));
        if (r->start_ns < rk->iter_start[it]) rk->iter_start[it] = r->start_ns;
    }
    rk->n++;
    return TL_OK;
}

tl_status tl_an_rank_load(const char *path, int flags, tl_an_names *names, tl_an_rank *rk)
{
    return tl_an_rank_load_also(path, flags, names, rk, NULL, NULL);
}

tl_status tl_an_rank_load_also(const char *path, int flags, tl_an_names *names, tl_an_rank *rk, tl_an_record_fn also,
                               void *user)
{
    memset(rk, 0, sizeof *rk);
    load_state ls = {.rk = rk, .names = names, .also = also, .also_user = user};
    tl_status st = scan_trace(path, flags, keep_record, &ls, &rk->meta, names, &rk->peers);
    if (st == TL_OK) st = join_oplabels(&ls);
    free(ls.kern);
    free(ls.op);
    free(ls.wait);
    if (st != TL_OK) {
        tl_an_rank_free(rk);
        return tl_error_frame(st, __FILE__, __LINE__);
    }
    /* Give back the growth slack: the sort and the sweep need no more. */
    if (rk->n && rk->n < rk->cap) {
        tl_an_ival *nv = realloc(rk->v, rk->n * sizeof *nv);
        if (nv) {
            rk->v = nv;
            rk->cap = rk->n;
        }
    }
    tl_an_ival_sort(rk->v, rk->n);
    st = tl_an_window_check(rk); /* every command that reads a trilap rank */
    if (st == TL_OK) st = tl_an_rank_number_iters(rk);
    if (st != TL_OK) {
        tl_an_rank_free(rk);
        return tl_error_frame(st, __FILE__, __LINE__);
    }
    /* No GPU activity carries its iteration (the probes could not attribute
     * the launches): the host's iteration ranges bound the iterations, so
     * windows are still selected by time and no activity is dropped. */
    int gpu_iters = 0;
    for (size_t k = 0; k < rk->niter && !gpu_iters; k++) gpu_iters = rk->iter_start[k] != INT64_MAX;
    if (!gpu_iters && rk->nhost) {
        free(rk->iter_start);
        rk->iter_start = rk->host_start;
        rk->niter = rk->nhost;
        rk->host_start = NULL;
        rk->nhost = 0;
        rk->iters_from_host = rk->meta.iters_from_host = 1;
    }
    return TL_OK;
}

void tl_an_rank_free(tl_an_rank *rk)
{
    if (!rk) return;
    free(rk->v);
    free(rk->streams);
    free(rk->iter_start);
    free(rk->host_start);
    free(rk->hit);
    free(rk->opl);
    tl_an_peers_free(&rk->peers);
    memset(rk, 0, sizeof *rk);
}

tl_status tl_an_rank_slices(const tl_an_rank *rk, int64_t lo, int64_t hi, int64_t **bounds, int64_t **iters,
                            size_t *nb, int64_t *w0, int64_t *w1)
{
    *bounds = NULL;
    *iters = NULL;
    *nb = 0;
    size_t m = 0;
    for (size_t k = 0; k < rk->niter; k++)
        if (rk->iter_start[k] != INT64_MAX) m++;
    int64_t *b = malloc((m ? m : 1) * sizeof *b), *it = malloc((m ? m : 1) * sizeof *it);
    if (!b || !it) {
        free(b);
        free(it);
        return TL_FAIL(TL_ERR_NOMEM, "%zu iterations", m);
    }
    size_t j = 0;
    int64_t prev = INT64_MIN, sel_end = INT64_MIN;
    int first_selected = 0; /* the selection holds the run's first iteration */
    for (size_t k = 0; k < rk->niter; k++) {
        if (rk->iter_start[k] == INT64_MAX) continue;
        int64_t s = rk->iter_start[k] > prev ? rk->iter_start[k] : prev;
        int first = prev == INT64_MIN;
        prev = s;
        int64_t ik = (int64_t)k;
        if (ik < lo) continue;
        if (hi >= 0 && ik > hi) {
            if (j && sel_end == INT64_MIN) sel_end = s; /* next iteration's bound closes the selection */
            continue;
        }
        first_selected |= first;
        b[j] = s;
        it[j] = ik;
        j++;
    }
    /* The first iteration's slice starts at the window start and the last
     * one's ends at the window end, so the slices partition the window:
     * activity before the first iteration's first GPU activity (NCCL
     * kernels whose launch the probes could not attribute, iter -1; a
     * profiler's warm-up) is the first iteration's. A selection keeps the
     * window's start when it holds the first iteration and its end when it
     * holds the last, so `0:` and `0:LAST` are the whole window. */
    if (j && first_selected && b[0] > *w0) b[0] = *w0;
    if (j && !first_selected) *w0 = b[0];
    if (j && sel_end != INT64_MIN) *w1 = sel_end;
    /* iterations all before the window's first activity, or all after its
     * end (an export's steps whose GPU work was launched outside them):
     * they select none of it, as a range the run does not have (before:
     * overlap "window end 2000 before start 5200", breakdown 0 rows) */
    if (*w1 < *w0) j = 0, *w1 = *w0;
    *bounds = b;
    *iters = it;
    *nb = j;
    return TL_OK;
}

const char *tl_an_iters_str(int64_t lo, int64_t hi, char *buf, size_t n)
{
    if (hi < 0) snprintf(buf, n, "%lld:", (long long)lo);
    else snprintf(buf, n, "%lld:%lld", (long long)lo, (long long)hi);
    return buf;
}

tl_an_iter_span tl_an_rank_iter_span(const tl_an_rank *rk)
{
    tl_an_iter_span h = {-1, -1, 0};
    for (size_t k = 0; k < rk->niter; k++) {
        if (rk->iter_start[k] == INT64_MAX) continue;
        if (!h.n) h.lo = (int64_t)k;
        h.hi = (int64_t)k;
        h.n++;
    }
    return h;
}

tl_an_iter_span tl_an_iter_span_join(tl_an_iter_span a, tl_an_iter_span b)
{
    if (!a.n) return b;
    if (!b.n) return a;
    return (tl_an_iter_span){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.n > b.n ? a.n : b.n};
}

/* "iterations 0..199", or "150 iterations between 0 and 199" where some
 * have no activity */
static void span_say(tl_an_iter_span h, char *buf, size_t n)
{
    if (h.n == (size_t)(h.hi - h.lo + 1))
        snprintf(buf, n, "iterations %lld..%lld", (long long)h.lo, (long long)h.hi);
    else
        snprintf(buf, n, "%zu iterations between %lld and %lld", h.n, (long long)h.lo, (long long)h.hi);
}

const char *tl_an_sh_word(const char *s, char *buf, size_t n)
{
    size_t at = 0;
    if (n < 3) return memset(buf, 0, n);
    buf[at++] = '\'';
    for (; *s; s++) {
        const char *w = *s == '\'' ? "'\\''" : (char[2]){*s, '\0'};
        size_t len = strlen(w);
        if (at + len + 2 > n) break; /* cut: the rest would not fit */
        memcpy(buf + at, w, len);
        at += len;
    }
    buf[at++] = '\'';
    buf[at] = '\0';
    return buf;
}

const char *tl_an_steps_hint(const tl_an_meta *m, char *buf, size_t n)
{
    char word[256];
    if (!m->nvtx_steps) snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "; it has %lld NVTX ranges '%s N': give --iter-nvtx %s to take its iterations from them",
                 (long long)m->nvtx_steps, m->nvtx_steps_name,
                 tl_an_sh_word(m->nvtx_steps_name, word, sizeof word));
    return buf;
}

const char *tl_an_no_iters_say(const tl_an_meta *m, const char *input, const char *so, char *buf, size_t n)
{
    char hint[256];
    snprintf(buf, n, "to %s: it marks no iterations (iter -1 everywhere), so %s%s", input, so,
             m ? tl_an_steps_hint(m, hint, sizeof hint) : "");
    return buf;
}

const char *tl_an_iters_had(tl_an_iter_span have, const tl_an_meta *m, char *buf, size_t n)
{
    char span[256];
    if (have.n) {
        span_say(have, span, sizeof span);
        /* a rank's file cut short has fewer than the run: the refusal
         * named its file and gave its iterations as the run's */
        snprintf(buf, n, "%s %s", m && m->window_cut ? "its file, cut short, has" : "the run has", span);
    } else if (!strncmp(m->clock, "nsys-session", 12) && m->nvtx_steps)
        snprintf(buf, n, "the trace marks no trilap iterations (NVTX ranges iter in the domain trilap)%s",
                 tl_an_steps_hint(m, span, sizeof span));
    else if (!strncmp(m->clock, "nsys-session", 12))
        snprintf(buf, n, "the trace marks no iterations: an Nsight Systems export takes them from NVTX ranges named "
                         "iter in the domain trilap, the iteration number their int64 payload, as trilap's probes "
                         "emit them, or from the ranges --iter-nvtx NAME names (analysis/README.md, \"Nsight "
                         "Systems exports\"); without --iter-range the whole window is analysed");
    else if (!strncmp(m->clock, "kineto-host", 11))
        snprintf(buf, n, "the trace marks no iterations: a PyTorch profiler trace takes them from its ProfilerStep#N "
                         "ranges (call prof.step() once per iteration); without --iter-range the whole window is "
                         "analysed");
    else
        snprintf(buf, n, "the trace marks no iterations: trilap's probes mark them (tl_probe_iter_begin / "
                         "tl_probe_iter_end, probes/README.md), a program traced by injection has none; without "
                         "--iter-range the whole window is analysed");
    return buf;
}

const char *tl_an_window_cut_say(const tl_an_meta *m, char *buf, size_t n)
{
    if (!m->window_cut) snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "its file cut short, so judged over the window its records cover: %.1f us to its last "
                         "record's start, of the %.1f us its metadata says",
                 (double)m->cut_ns[0] / 1e3, (double)m->cut_ns[1] / 1e3);
    return buf;
}

const char *tl_an_selection_say(int64_t lo, int64_t hi, tl_an_iter_span used, tl_an_iter_span have, char *buf,
                                size_t n)
{
    char asked[48], span[96];
    tl_an_iters_str(lo, hi, asked, sizeof asked);
    if (!used.n && !have.n && tl_an_iters_all(lo, hi)) { /* read whole, as without the range */
        snprintf(buf, n, "%s (the run marks no iterations: its whole window)", asked);
        return buf;
    }
    if (!used.n) {
        snprintf(buf, n, "%s (none of them in this run)", asked);
        return buf;
    }
    if (used.lo == lo && used.hi == hi) {
        snprintf(buf, n, "%s", asked);
        return buf;
    }
    span_say(have, span, sizeof span);
    if (hi < 0 && used.lo == lo) { /* open at its end: to the last, as asked */
        snprintf(buf, n, "%lld:%lld (--iter-range %s, to the last iteration the run has)", (long long)used.lo,
                 (long long)used.hi, asked);
        return buf;
    }
    snprintf(buf, n, "%lld:%lld (--iter-range %s clipped: the run has %s)", (long long)used.lo, (long long)used.hi,
             asked, span);
    return buf;
}

const char *tl_an_results_selection_say(const tl_an_rank_result *res, size_t nr, int64_t lo, int64_t hi, char *buf,
                                        size_t n)
{
    tl_an_iter_span have = {-1, -1, 0}, used = {-1, -1, 0};
    for (size_t r = 0; r < nr; r++) {
        have = tl_an_iter_span_join(have, res[r].have);
        if (res[r].nslices)
            used = tl_an_iter_span_join(used, (tl_an_iter_span){res[r].iters[0], res[r].iters[res[r].nslices - 1],
                                                                res[r].nslices});
    }
    return tl_an_selection_say(lo, hi, used, have, buf, n);
}

int tl_an_iters_all(int64_t lo, int64_t hi) { return lo == 0 && hi < 0; }

tl_status tl_an_parse_iters(const char *s, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = -1;
    if (!s) return TL_OK;
    if (!*s) return TL_ERR_INVAL; /* given, but empty: not the whole run by accident */
    const char *colon = strchr(s, ':');
    char *end = NULL;
    if (colon != s) {
        errno = 0;
        long long a = strtoll(s, &end, 10);
        if (errno || end == s || (colon ? end != colon : *end != '\0') || a < 0) return TL_ERR_INVAL;
        *lo = a;
        if (!colon) *hi = a;
    }
    if (colon && colon[1]) {
        errno = 0;
        long long b = strtoll(colon + 1, &end, 10);
        if (errno || *end != '\0' || b < *lo) return TL_ERR_INVAL;
        *hi = b;
    }
    return TL_OK;
}
