/* An export's rank read as trace records (tl_an_nsys_scan): each row of
 * the activity statement checked and made a tl_trace_record, its
 * iterations trilap's or, with --iter-nvtx, the program's steps
 * (tl_an_nsys_iter_check). */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A time column as read: an integer (not NULL, text or real) within
 * +-TL_TRACE_MAX_NS, so that no difference of two can overflow. */
static tl_status check_time(const tl_an_nsys *x, tl_an_sqlite_stmt *s, int col, const char *table, int64_t row,
                            const char *what, int64_t *out)
{
    int type = x->sq.column_type(s, col);
    if (type != TL_SQ_INTEGER)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s row %lld: %s is %s, not an integer time", x->path,
                       table, (long long)row, what,
                       type == TL_SQ_NULL ? "NULL" : type == TL_SQ_TEXT ? "text" : type == TL_SQ_FLOAT ? "a real" : "a blob");
    int64_t v = x->sq.column_int64(s, col);
    if (v < -TL_TRACE_MAX_NS || v > TL_TRACE_MAX_NS)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s row %lld: %s %lld ns is beyond +-2^61 ns", x->path,
                       table, (long long)row, what, (long long)v);
    *out = v;
    return TL_OK;
}

static const char *memcpy_name(int kind)
{
    /* ENUM_CUDA_MEMCPY_OPER, the same values as CUpti_ActivityMemcpyKind */
    static const char *const names[] = {"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                        "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH",
                                        "memcpy PtoP"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "memcpy";
}

static const char *sync_name(int type)
{
    switch (type) { /* ENUM_CUPTI_SYNC_TYPE */
    case 1: return "cudaEventSynchronize";
    case 2: return "cudaStreamWaitEvent";
    case 3: return "cudaStreamSynchronize";
    case 4: return "cudaDeviceSynchronize";
    default: return "synchronize";
    }
}

/* Rank r's step ranges (--iter-nvtx); an export without NVTX has none. */
static tl_status load_steps(tl_an_nsys *x, const char *path, const char *iter_nvtx, int r, tl_an_nsys_steps *steps)
{
    memset(steps, 0, sizeof *steps);
    TL_CHECK(x->has_nvtx, TL_ERR_INVAL, "%s: --iter-nvtx %s: the export has no NVTX ranges (no NVTX_EVENTS table: "
             "profile with nsys -t nvtx)", path, iter_nvtx);
    return tl_an_nsys_steps_load(&x->sq, x->db, path, iter_nvtx, x->ranks[r].pid, x->ranks[r].tid, steps);
}

tl_status tl_an_nsys_iter_check(const char *path, const char *iter_nvtx)
{
    tl_an_nsys ex, *x = &ex;
    TL_TRY(tl_an_nsys_open(x, path));
    tl_status st = TL_OK;
    for (int r = 0; r < x->nranks && st == TL_OK; r++) {
        tl_an_nsys_steps steps;
        st = load_steps(x, path, iter_nvtx, r, &steps);
        tl_an_nsys_steps_free(&steps);
    }
    tl_an_nsys_close(x);
    return st;
}

/* A row of the activity query checked as the CSV reader checks a row:
 * times in range and in order, a kernel's or launch's name in StringIds
 * (else an NCCL kernel would silently count as compute), bytes >= 0. */
static tl_status check_row(tl_an_nsys *x, tl_an_sqlite_stmt *s, const char *path, int what, int64_t row,
                           const char *txt, tl_trace_record *r)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                         "NVTX_EVENTS", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    const char *table = what >= 0 && what <= 6 ? tables[what] : "?";
    TL_TRY(check_time(x, s, 1, table, row, "start", &r->start_ns));
    TL_TRY(check_time(x, s, 2, table, row, "end", &r->end_ns));
    TL_CHECK(r->end_ns >= r->start_ns, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: ends before it starts (end %lld < start %lld)", path, table,
             (long long)row, (long long)r->end_ns, (long long)r->start_ns);
    TL_CHECK(txt || (what != 0 && what != 6), TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: its %s is not in StringIds", path, table, (long long)row,
             what == 0 ? "name (mangledName / demangledName)" : "nameId");
    /* a name the trace reader would refuse in what import writes */
    size_t bad = txt ? tl_trace_utf8_bad(txt) : (size_t)-1;
    TL_CHECK(bad == (size_t)-1, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: its name is not valid UTF-8 (byte 0x%02x at offset %zu)", path,
             table, (long long)row, (unsigned char)txt[bad], bad);
    TL_CHECK((what != 1 && what != 2) || x->sq.column_int64(s, 7) >= 0, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: bytes %lld is negative", path, table, (long long)row,
             (long long)x->sq.column_int64(s, 7));
    return TL_OK;
}

/* A launch: a host row carrying the correlation id of its GPU row. With
 * --iter-nvtx its iteration is the step range holding its call, which its
 * GPU rows take (they come after it: none starts before its launch). */
static tl_status launch_row(tl_an_nsys *x, tl_an_sqlite_stmt *s, const char *txt, tl_an_nsys_host_state *hs,
                            tl_trace_record *r, char *name, size_t cap)
{
    r->device = -1;
    r->lane = TL_ROLE_HOST;
    r->cat = TL_CAT_RANGE;
    r->kind = TL_KIND_HOST;
    r->corr = (uint64_t)x->sq.column_int64(s, 5);
    snprintf(name, cap, "cuda:%s", txt ? txt : "?");
    tl_trace_utf8_cut(name); /* a long name cut in a character: not into the trace */
    r->name = name;
    if (!hs->steps) {
        r->iter = r->start_ns < hs->it_end ? hs->it_num : -1;
        return TL_OK;
    }
    r->iter = tl_an_nsys_steps_at(hs->steps, r->start_ns);
    return tl_an_nsys_steps_launch(hs->steps, (int64_t)r->corr, r->iter);
}

tl_status tl_an_nsys_scan(const char *path, int rank, const char *iter_nvtx, tl_an_record_fn cb, void *user,
                          tl_an_meta *meta, tl_an_nsys_meta_fn mfn)
{
    tl_an_nsys ex, *x = &ex;
    tl_an_nsys_steps steps = {0};
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_an_nsys_open(x, path));
    TL_CHECKGOTO(rank >= 0 && rank < x->nranks, TL_ERR_INVAL, st, fail, "%s: no rank %d (the export has %d ranks "
                 "with CUDA activity)", path, rank, x->nranks);
    int64_t pid = x->ranks[rank].pid, tid = x->ranks[rank].tid;
    TL_TRYGOTO(tl_an_nsys_nvtx_names_read(x, pid), st, fail);
    TL_TRYGOTO(tl_an_nsys_nccl_ops_read(x, pid), st, fail);
    TL_TRYGOTO(tl_an_nsys_meta_fill(x, rank, iter_nvtx, meta, mfn, user), st, fail);
    TL_TRYGOTO(tl_an_nsys_lanes_infer(x, pid), st, fail);
    if (iter_nvtx) TL_TRYGOTO(load_steps(x, path, iter_nvtx, rank, &steps), st, fail);
    if (tid) TL_TRYGOTO(tl_an_nsys_thread_owners_make(x, pid), st, fail);
    TL_TRYGOTO(tl_an_nsys_records_prepare(x, tid != 0, &s), st, fail);
    x->sq.bind_int64(s, 1, pid);
    if (tid) x->sq.bind_int64(s, 2, tid);
    int64_t first = INT64_MAX, last = INT64_MIN;
    tl_an_nsys_host_state hs = {.it_end = INT64_MIN, .it_num = -1, .it_max = -1, .it_last = -1, .comm_end = INT64_MIN,
                                .comm_lane = TL_ROLE_NONE, .steps = iter_nvtx ? &steps : NULL};
    char name[1024];
    /* launches made inside the host's communication ranges: their copies
     * serve that communication (the probes' rule, probes_convert.c) */
    enum { NLAUNCH = 1024 };
    struct { int64_t corr; tl_role lane; } in_comm[NLAUNCH];
    size_t nin = 0;
    int rc;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        int what = x->sq.column_int(s, 0);
        if (what == 5) {
            /* a new session: number its iterations after the previous ones' */
            hs.it_base = hs.it_max + 1;
            hs.it_last = -1;
            continue;
        }
        tl_trace_record r = {.rank = rank, .bytes = -1, .iter = -1};
        int64_t row = x->sq.column_int64(s, 9);
        const char *txt = (const char *)x->sq.column_text(s, 6);
        TL_TRYGOTO(check_row(x, s, path, what, row, txt, &r), st, fail);
        if (what == 6) {
            TL_TRYGOTO(launch_row(x, s, txt, &hs, &r, name, sizeof name), st, fail);
            if (r.start_ns < hs.comm_end) {
                in_comm[nin % NLAUNCH].corr = (int64_t)r.corr;
                in_comm[nin % NLAUNCH].lane = hs.comm_lane;
                nin++;
            }
            if (cb) TL_TRYGOTO(cb(user, &r), st, fail);
            continue;
        }
        if (what <= 3) {
            r.device = x->sq.column_int(s, 3);
            int64_t stream = x->sq.column_int64(s, 4);
            r.stream = stream < 0 || stream == 4294967295LL ? 0 : (uint64_t)stream;
            r.corr = (uint64_t)x->sq.column_int64(s, 5);
            r.lane = tl_an_nsys_lane_find(x, r.device, stream);
            /* without --iter-nvtx GPU rows keep iter -1: the analysis places
             * them by time in the host's iteration ranges (trilap's) */
            if (hs.steps)
                r.iter = what == 3 ? tl_an_nsys_steps_at(hs.steps, r.start_ns)
                                   : tl_an_nsys_steps_of_corr(hs.steps, (int64_t)r.corr);
        }
        switch (what) {
        case 0:
            r.kind = TL_KIND_KERNEL;
            r.name = txt ? txt : "?";
            r.cat = tl_an_nsys_kernel_cat(x, &r);
            break;
        case 1:
            r.kind = TL_KIND_MEMCPY;
            r.cat = TL_CAT_MEMCPY;
            r.name = memcpy_name(x->sq.column_int(s, 8));
            r.bytes = x->sq.column_int64(s, 7);
            for (size_t k = 0; k < nin && k < NLAUNCH; k++)
                if (in_comm[k].corr == (int64_t)r.corr) r.lane = in_comm[k].lane;
            break;
        case 2:
            r.kind = TL_KIND_MEMSET;
            r.cat = TL_CAT_MEMSET;
            r.name = "memset";
            r.bytes = x->sq.column_int64(s, 7);
            break;
        case 3:
            r.kind = TL_KIND_SYNC;
            r.cat = TL_CAT_SYNC;
            r.name = sync_name(x->sq.column_int(s, 8));
            if (!r.stream) r.lane = TL_ROLE_OTHER;
            break;
        default:
            TL_TRYGOTO(tl_an_nsys_nvtx_row(x, s, path, row, txt, &hs, &r, name, sizeof name), st, fail);
            break;
        }
        if (what <= 2) {
            if (r.start_ns < first) first = r.start_ns;
            if (r.end_ns > last) last = r.end_ns;
        }
        if (meta->device < 0 && r.device >= 0) meta->device = r.device;
        if (r.name == name) tl_trace_utf8_cut(name); /* an NVTX name cut in a character */
        if (cb) TL_TRYGOTO(cb(user, &r), st, fail);
    }
    if (rc != TL_SQ_DONE) {
        st = tl_an_nsys_sq_fail(x, "reading activity");
        goto fail;
    }
    meta->w0 = first != INT64_MAX ? first : 0;
    meta->w1 = last != INT64_MIN ? last : meta->w0;
    /* no iterations of trilap's: ranges that look like steps, to name them */
    if (!iter_nvtx && hs.it_max < 0 && x->has_nvtx)
        st = tl_an_nsys_steps_hint(&x->sq, x->db, pid, meta->nvtx_steps_name, sizeof meta->nvtx_steps_name,
                                   &meta->nvtx_steps);
fail:
    x->sq.finalize(s);
    tl_an_nsys_steps_free(&steps);
    tl_an_nsys_close(x);
    return st;
}

