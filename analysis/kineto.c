/* PyTorch profiler (Kineto) traces: the Chrome-trace JSON that
 * torch.profiler's export_chrome_trace writes, one file per rank, plain or
 * gzip-compressed.
 *
 * The JSON is parsed one event at a time by trilap's own reader (json.h):
 * the top-level object's keys are walked here, and each value (each element
 * of traceEvents, each other top-level value) is found across read chunks
 * (tl_json_scan; gathered only when it straddles two), parsed into one
 * arena, used and dropped. Memory is the compact rows
 * kept (tl_kt_srow ~64 bytes per GPU activity, tl_kt_crow ~48 per runtime
 * call) plus one event, never the document. runtime/gzin.h reads both plain
 * and compressed files, checks the gzip trailer and refuses bytes after
 * the gzip data; nothing is sized from a length the file claims. */
#include "analysis/kineto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/stat.h>

#include "analysis/json.h"
#include "analysis/grow.h"
#include "probes/trace.h" /* tl_trace_rank_of_name */
#include "runtime/gzin.h"
#include "runtime/out.h"
#include "runtime/progress.h"

enum {
    KT_CHUNK = 1 << 20,
    KT_MAX_VALUE = 64 << 20, /* one event (or top-level value) longer than this is refused */
    KT_MAX_DEPTH = 32,       /* json-c's default nesting limit, which the reader had */
    KT_MAX_STEP = 1 << 24,   /* ProfilerStep numbers are iteration indices */
    KT_MAX_RANK = 1 << 24,   /* as distributedInfo's rank is held */
    KT_MAX_DEVICES = 64
};

int64_t tl_kt_ns(const tl_kt_trace *t, double us)
{
    /* whole µs and the fraction apart: epoch µs (1.7e15) times 1e3 is past
     * a double's 2^53, the parts are not */
    double whole = floor(us);
    return t->base_ns + (int64_t)whole * 1000 + llround((us - whole) * 1e3);
}

void tl_kt_free(tl_kt_trace **t)
{
    if (!t || !*t) return;
    tl_an_names_destroy(&(*t)->names);
    free((*t)->s);
    free((*t)->c);
    free((*t)->steps);
    free((*t)->ops);
    free(*t);
    *t = NULL;
}

typedef struct loader {
    tl_kt_trace *t;
    const char *path;
    int meta_only;            /* stop at traceEvents once distributedInfo is known */
    tl_progress *bar;         /* --progress: events read so far (NULL: none) */
    tl_gzin *in;
    const char *mem;          /* tl_kt_load_mem */
    size_t msize, mpos;
    char *buf;
    size_t pos, len;
    int64_t off;              /* file offset of buf[0] (uncompressed) */
    int eof;
    tl_json_parser *json;
    char *val;                /* a value that straddles read chunks, gathered */
    size_t vlen, vcap;
    size_t cap_s, cap_c, cap_steps, cap_ops;
    int di_seen, has_events;
    struct { int64_t id; char name[128]; } dev[KT_MAX_DEVICES];
    int ndev;
} loader;

static tl_status refill(loader *L)
{
    L->off += (int64_t)L->len;
    L->pos = L->len = 0;
    if (L->eof) return TL_OK;
    if (L->mem) {
        size_t n = L->msize - L->mpos < KT_CHUNK ? L->msize - L->mpos : KT_CHUNK;
        memcpy(L->buf, L->mem + L->mpos, n);
        L->mpos += n;
        L->len = n;
        L->eof = n == 0;
        return TL_OK;
    }
    size_t n = 0;
    /* a stream cut short is an error naming how far the JSON had come */
    char where[4200];
    snprintf(where, sizeof where, "%s: after %" PRId64 " bytes of JSON", L->path, L->off);
    TL_TRY(tl_gzin_read(L->in, L->buf, KT_CHUNK, &n, where));
    L->len = n;
    L->eof = n == 0;
    return TL_OK;
}

/* The next non-blank character (left in place); 0 at the end of the input. */
static tl_status peek(loader *L, int *c)
{
    for (;;) {
        while (L->pos < L->len) {
            if (!tl_json_blank(L->buf[L->pos])) {
                *c = (unsigned char)L->buf[L->pos];
                return TL_OK;
            }
            L->pos++;
        }
        TL_TRY(refill(L));
        if (L->len == 0) {
            *c = 0;
            return TL_OK;
        }
    }
}

static tl_status expect(loader *L, const char *what, const char *set, int *got)
{
    TL_TRY(peek(L, got));
    if (!*got)
        return TL_FAIL(TL_ERR_PARSE, "%s: the JSON ends early (truncated?) where %s was expected", L->path, what);
    if (!strchr(set, *got))
        return TL_FAIL(TL_ERR_PARSE, "%s: byte %" PRId64 ": '%c' where %s was expected: not a Kineto JSON trace",
                       L->path, L->off + (int64_t)L->pos, *got >= 32 && *got < 127 ? *got : '?', what);
    L->pos++;
    return TL_OK;
}

/* Appends buf[0..n) to the value being gathered. */
static tl_status gather(loader *L, const char *buf, size_t n, int64_t start)
{
    TL_CHECK(L->vlen + n <= KT_MAX_VALUE, TL_ERR_PARSE, "%s: byte %" PRId64 ": one value longer than %d MiB: not a "
             "trace event", L->path, start, KT_MAX_VALUE >> 20);
    if (L->vlen + n > L->vcap) {
        size_t cap = L->vcap ? 2 * L->vcap : KT_CHUNK;
        while (cap < L->vlen + n) cap *= 2;
        char *v = realloc(L->val, cap);
        TL_CHECK(v, TL_ERR_NOMEM, "%s: a value of %zu bytes", L->path, L->vlen + n);
        L->val = v;
        L->vcap = cap;
    }
    memcpy(L->val + L->vlen, buf, n);
    L->vlen += n;
    return TL_OK;
}

/* One JSON value: its end found across chunks, then parsed whole (in the
 * chunk when it lies there, the usual case; else gathered). */
static tl_status parse_value(loader *L, const tl_json **out)
{
    *out = NULL;
    tl_json_scan_state sc;
    tl_json_scan_start(&sc);
    L->vlen = 0;
    int64_t start = L->off + (int64_t)L->pos;
    const char *text = NULL;
    size_t len = 0;
    for (int done = 0; !done;) {
        if (L->pos == L->len) {
            TL_TRY(refill(L));
            if (L->len == 0)
                return TL_FAIL(TL_ERR_PARSE, "%s: the JSON ends early inside the value at byte %" PRId64
                                             " (truncated?)", L->path, start);
        }
        const char *at = L->buf + L->pos;
        size_t n = tl_json_scan(&sc, at, L->len - L->pos, &done);
        L->pos += n;
        if (done && !L->vlen) {
            text = at;
            len = n;
        } else {
            TL_TRY(gather(L, at, n, start));
            text = L->val;
            len = L->vlen;
        }
    }
    tl_json_error err;
    tl_json_result r = tl_json_parse(L->json, text, len, out, &err);
    if (L->vcap > 2 * KT_CHUNK) { /* the tree holds copies: a huge value's text is not kept for the next */
        free(L->val);
        L->val = NULL;
        L->vcap = L->vlen = 0;
    }
    TL_CHECK(r != TL_JSON_NOMEM, TL_ERR_NOMEM, "%s: byte %" PRId64 ": a value of %zu bytes", L->path, start, len);
    TL_CHECK(r == TL_JSON_OK, TL_ERR_PARSE, "%s: byte %" PRId64 ": invalid JSON: %s", L->path,
             start + (int64_t)err.pos, err.reason);
    return TL_OK;
}

static int get_num(const tl_json *o, const char *key, double *v, int *is_double)
{
    const tl_json *x = tl_json_get(o, key);
    tl_json_type ty = tl_json_type_of(x);
    if (!x || (ty != TL_JSON_INT && ty != TL_JSON_DOUBLE)) return 0;
    *v = tl_json_double(x);
    if (is_double) *is_double = ty == TL_JSON_DOUBLE;
    return 1;
}

/* An integer argument: ints, integral doubles and numeric strings (HTA's
 * pd.to_numeric); `def` otherwise. */
static int64_t get_int(const tl_json *o, const char *key, int64_t def)
{
    const tl_json *x = tl_json_get(o, key);
    switch (tl_json_type_of(x)) {
    case TL_JSON_INT: return tl_json_int(x);
    case TL_JSON_DOUBLE: {
        double d = tl_json_double(x);
        return isfinite(d) && fabs(d) < 9e18 ? (int64_t)d : def;
    }
    case TL_JSON_STRING: {
        const char *s = tl_json_string(x);
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        return errno == 0 && end != s && *end == '\0' ? v : def;
    }
    default: return def;
    }
}

static const char *get_str(const tl_json *o, const char *key)
{
    return tl_json_string(tl_json_get(o, key));
}

static tl_kt_kind kind_of(const char *cat)
{
    if (!strcasecmp(cat, "kernel")) return TL_KT_KERNEL;
    if (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy")) return TL_KT_MEMCPY;
    if (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memset")) return TL_KT_MEMSET;
    if (!strcasecmp(cat, "cuda_sync")) return TL_KT_SYNC;
    if (!strcasecmp(cat, "cuda_runtime") || !strcasecmp(cat, "cuda_driver") || !strcasecmp(cat, "runtime") ||
        !strcasecmp(cat, "driver"))
        return TL_KT_RUNTIME;
    return TL_KT_OTHER;
}

static int is_comm_op(const char *name)
{
    return !strcmp(name, "record_param_comms") || !strncmp(name, "nccl:", 5) || !strncmp(name, "c10d::", 6);
}

/* Bytes of one element of a PyTorch dtype as the profiler names it
 * (record_param_comms' "dtype": Float, BFloat16; nccl:*'s "Input type":
 * float, c10::Half); 0 when unknown. */
static int dtype_bytes(const char *d)
{
    static const struct {
        const char *name;
        int bytes;
    } tab[] = {{"float", 4},     {"double", 8},   {"half", 2},    {"c10::half", 2}, {"bfloat16", 2},
               {"c10::bfloat16", 2}, {"int", 4},  {"long", 8},    {"long int", 8}, {"short", 2},
               {"byte", 1},      {"char", 1},     {"bool", 1},    {"signed char", 1}, {"unsigned char", 1},
               {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"complexfloat", 8}, {"complexdouble", 16}};
    for (size_t i = 0; d && i < sizeof tab / sizeof tab[0]; i++)
        if (!strcasecmp(d, tab[i].name)) return tab[i].bytes;
    return 0;
}

/* The message of a communication op in bytes, -1 when the event does not
 * say: record_param_comms' "In msg nelems" x "dtype", else the tensors of
 * "Input Dims" whose "Input type" has a known size (nccl:* ops). */
static int64_t message_bytes(const tl_json *args)
{
    int64_t n = get_int(args, "In msg nelems", -1);
    int b = dtype_bytes(get_str(args, "dtype"));
    if (n >= 0 && b) return n <= ((int64_t)1 << 50) / b ? n * b : -1; /* a claim beyond 1 PB: none */
    const tl_json *dims = tl_json_get(args, "Input Dims"), *types = tl_json_get(args, "Input type");
    if (!tl_json_is(dims, TL_JSON_ARRAY) || !tl_json_is(types, TL_JSON_ARRAY)) return -1;
    int64_t total = -1;
    size_t nt = tl_json_length(dims);
    for (size_t i = 0; i < nt && i < tl_json_length(types); i++) {
        const tl_json *ty = tl_json_at(types, i), *d = tl_json_at(dims, i);
        int eb = tl_json_is(ty, TL_JSON_STRING) ? dtype_bytes(tl_json_string(ty)) : 0;
        if (!eb || !tl_json_is(d, TL_JSON_ARRAY) || !tl_json_length(d)) continue;
        int64_t p = eb;
        for (size_t k = 0; k < tl_json_length(d) && p >= 0; k++) {
            /* a claim past 2^50 bytes is no tensor: dropped, not wrapped
             * (a dimension read as json-c read one, whatever its type) */
            int64_t x = tl_json_to_int64(tl_json_at(d, k));
            if (x < 0 || (x > 0 && p > ((int64_t)1 << 50) / x)) p = -1;
            else p *= x;
        }
        if (p >= 0) total = (total < 0 ? 0 : total) + p;
    }
    return total;
}

/* "Process Group Ranks" ("[0, 1, 2, 3]") as "ranks 0-3" (a contiguous
 * set) or "ranks 0,2,4,6" (the first eight, then "..."); "" without. */
static void pg_ranks(const char *s, char *out, size_t n)
{
    out[0] = '\0';
    if (!s || *s != '[') return;
    long long first = -1, prev = -1, cnt = 0;
    int contiguous = 1;
    char list[96] = "";
    size_t len = 0;
    for (const char *p = s + 1; *p;) {
        char *end = NULL;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        if (cnt == 0) first = v;
        else if (v != prev + 1) contiguous = 0;
        if (cnt < 8 && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", cnt ? "," : "", v);
        prev = v;
        cnt++;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    if (!cnt) return;
    if (contiguous && cnt > 1) snprintf(out, n, "ranks %lld-%lld", first, prev);
    else snprintf(out, n, "rank%s %s%s", cnt > 1 ? "s" : "", list, cnt > 8 ? ",..." : "");
}

/* "ProfilerStep#N" (HTA's ^ProfilerStep#(\d+)): N, or -1. */
static int64_t step_number(const char *name)
{
    if (strncmp(name, "ProfilerStep#", 13) != 0) return -1;
    const char *p = name + 13;
    if (*p < '0' || *p > '9') return -1;
    int64_t n = 0;
    while (*p >= '0' && *p <= '9' && n <= KT_MAX_STEP) n = n * 10 + (*p++ - '0');
    return n;
}

/* A string that becomes a name in the records: well-formed UTF-8, as the
 * trace reader takes names, so what import writes reads back (the JSON
 * reader passes the bytes of a string through unchecked). */
static tl_status check_text(loader *L, const char *what, const char *s)
{
    size_t bad = s ? tl_trace_utf8_bad(s) : (size_t)-1;
    TL_CHECK(bad == (size_t)-1, TL_ERR_PARSE,
             "%s: traceEvents[%" PRId64 "]: %s is not valid UTF-8 (byte 0x%02x at offset %zu)", L->path,
             L->t->nevents - 1, what, (unsigned char)s[bad], bad);
    return TL_OK;
}

static tl_status check_time(loader *L, const char *name, int has_ts, double ts, double dur)
{
    /* read as 0, a missing ts would put the row at the epoch (or at
     * baseTimeNanoseconds) and stretch the window over 1.7e15 µs */
    TL_CHECK(has_ts, TL_ERR_PARSE, "%s: traceEvents[%" PRId64 "] '%.80s' has no ts (a number of µs): not a time",
             L->path, L->t->nevents - 1, name);
    /* base_ns + ts µs must stay an int64 of ns; a duration below zero is an
     * end before the start */
    TL_CHECK(isfinite(ts) && isfinite(dur) && fabs(ts) < 4e15, TL_ERR_PARSE,
             "%s: event '%.80s' has ts=%g dur=%g: not a time in µs", L->path, name, ts, dur);
    TL_CHECK(dur >= 0, TL_ERR_PARSE, "%s: event '%.80s' at ts=%.3f ends before it starts (dur=%g)", L->path, name, ts,
             dur);
    TL_CHECK(dur < 4e15, TL_ERR_PARSE, "%s: event '%.80s' at ts=%.3f lasts %g µs: not a time", L->path, name, ts,
             dur);
    return TL_OK;
}

/* A kernel, copy or memset without what places it: its duration, its name
 * (the rules classify kernels by name) or the device and stream it ran on
 * (args.device, args.stream). Skipped, or written as "" on device -1, it
 * vanished from the run or became a nameless host row without a word. */
static tl_status check_gpu_event(loader *L, const tl_json *e, const char *cat)
{
    if (!cat || kind_of(cat) > TL_KT_MEMSET) return TL_OK;
    const char *name = get_str(e, "name");
    const tl_json *args = tl_json_get(e, "args");
    double x = 0;
    const char *miss = !get_num(e, "dur", &x, NULL)                    ? "no dur (a number of µs)"
                       : !name || !name[0]                            ? "no name"
                       : get_int(args, "device", INT64_MIN) == INT64_MIN ? "no args.device (the GPU it ran on)"
                       : get_int(args, "stream", INT64_MIN) == INT64_MIN ? "no args.stream"
                                                                      : NULL;
    TL_CHECK(!miss, TL_ERR_PARSE, "%s: traceEvents[%" PRId64 "] '%.80s' (%s) has %s: not a GPU activity record",
             L->path, L->t->nevents - 1, name && name[0] ? name : "?", cat, miss);
    return TL_OK;
}

int tl_kt_group_rank(const char *list, int local)
{
    if (!list || *list != '[' || local < 0) return -1;
    const char *p = list + 1;
    for (int i = 0;; i++) {
        while (*p == ' ') p++;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || v >= KT_MAX_RANK) return -1;
        if (i == local) return (int)v;
        p = end;
        while (*p == ' ') p++;
        if (*p++ != ',') return -1;
    }
}

/* "nccl:send A->B" / "nccl:recv A<-B" (ProcessGroupNCCL's names of its
 * point-to-point ops, A this rank and B the other end, ranks in the
 * process group): 1 with both, else 0. */
static int p2p_name_ranks(const char *name, int32_t *self_local, int32_t *peer_local)
{
    int send = !strncmp(name, "nccl:send ", 10);
    if (!send && strncmp(name, "nccl:recv ", 10) != 0) return 0;
    int a = -1, b = -1, used = 0;
    if (sscanf(name + 10, send ? "%d->%d%n" : "%d<-%d%n", &a, &b, &used) != 2 || name[10 + used] != '\0' || a < 0 ||
        b < 0 || a >= KT_MAX_RANK || b >= KT_MAX_RANK)
        return 0;
    *self_local = a;
    *peer_local = b;
    return 1;
}

/* The other end of a point-to-point comm op, as far as the op says it:
 * record_param_comms' "Dst Rank" / "Src Rank" (global, newer PyTorch) and
 * the process group's members, nccl:*'s ranks in its name. A Dst Rank
 * that is no rank is refused as any unreadable field is. */
static tl_status p2p_ends(loader *L, const tl_json *args, const char *name, const char *coll, tl_kt_op *o)
{
    o->peer = o->self_local = o->peer_local = -1;
    const char *gr = get_str(args, "Process Group Ranks");
    TL_TRY(check_text(L, "its Process Group Ranks", gr ? gr : ""));
    if (gr) TL_TRY(tl_an_names_intern(L->t->names, gr, &o->group_ranks));
    p2p_name_ranks(name, &o->self_local, &o->peer_local);
    const char *key = !coll ? NULL : !strcmp(coll, "send") ? "Dst Rank" : !strcmp(coll, "recv") ? "Src Rank" : NULL;
    if (!key || !tl_json_get(args, key)) return TL_OK;
    int64_t peer = get_int(args, key, INT64_MIN);
    char said[32] = "(not an integer)";
    if (peer != INT64_MIN) snprintf(said, sizeof said, "%" PRId64, peer);
    TL_CHECK(peer >= 0 && peer < KT_MAX_RANK, TL_ERR_PARSE,
             "%s: traceEvents[%" PRId64 "] %s of a %s: %s %s is not a rank", L->path, L->t->nevents - 1, name, coll,
             key, said);
    o->peer = (int32_t)peer;
    return TL_OK;
}

/* An event the records are made of (tl_kt_emit): GPU activity (a
 * kernel, copy or memset: TL_KT_GPU), else a sync, a ProfilerStep, a
 * collective that record_param_comms names (TL_KT_HOST_ONLY). */
static int activity_of(const tl_json *e)
{
    const char *cat = get_str(e, "cat"), *name = get_str(e, "name");
    double dur = 0;
    if (!cat || !get_num(e, "dur", &dur, NULL) || !strcmp(cat, "Trace")) return TL_KT_NONE;
    if (kind_of(cat) <= TL_KT_MEMSET) return TL_KT_GPU;
    if (kind_of(cat) == TL_KT_SYNC || (name && step_number(name) >= 0)) return TL_KT_HOST_ONLY;
    return name && !strcmp(name, "record_param_comms") && get_str(tl_json_get(e, "args"), "Collective name")
               ? TL_KT_HOST_ONLY
               : TL_KT_NONE;
}

static tl_status on_event(loader *L, const tl_json *e)
{
    tl_kt_trace *t = L->t;
    TL_CHECK(tl_json_is(e, TL_JSON_OBJECT), TL_ERR_PARSE,
             "%s: traceEvents[%" PRId64 "] is not an object", L->path, t->nevents);
    t->nevents++;
    if (L->bar && (t->nevents & 0xfff) == 0) tl_progress_update(L->bar, (double)t->nevents);
    if (L->meta_only) {
        int a = activity_of(e);
        if (a > t->has_activity) t->has_activity = a;
        return TL_OK;
    }
    double ts = 0, dur = 0;
    int ts_double = 0;
    int has_ts = get_num(e, "ts", &ts, &ts_double);
    /* HTA (pandas) rounds every time when the ts column is not all integers */
    if (!has_ts || ts_double) t->ts_float = 1;
    const char *cat = get_str(e, "cat");
    TL_TRY(check_gpu_event(L, e, cat));
    if (!cat || !get_num(e, "dur", &dur, NULL) || !strcmp(cat, "Trace")) return TL_OK;
    const char *name = get_str(e, "name");
    if (!name) name = "";
    TL_TRY(check_text(L, "the event's name", name));
    const tl_json *args = tl_json_get(e, "args");
    if (!tl_json_is(args, TL_JSON_OBJECT)) args = NULL;
    tl_kt_kind kind = kind_of(cat);
    int64_t stream = get_int(args, "stream", -1), corr = get_int(args, "correlation", -1);
    int gpu = kind <= TL_KT_SYNC;
    if (gpu || stream != -1) {
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->s, t->ns, L->cap_s, L->path));
        tl_kt_srow *r = &t->s[t->ns];
        *r = (tl_kt_srow){.ts_us = ts, .dur_us = dur, .stream = stream, .corr = corr,
                          .bytes = get_int(args, "bytes", -1), .device = (int32_t)get_int(args, "device", -1),
                          .kind = (uint8_t)kind};
        TL_TRY(tl_an_names_intern(t->names, name, &r->name));
        t->ns++;
        return TL_OK;
    }
    int64_t step = step_number(name);
    if (step >= 0) {
        TL_CHECK(step < KT_MAX_STEP, TL_ERR_PARSE, "%s: '%.80s': step number beyond %d", L->path, name, KT_MAX_STEP);
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->steps, t->nsteps, L->cap_steps, L->path));
        t->steps[t->nsteps++] =
            (tl_kt_step){.ts_us = ts, .dur_us = dur, .num = step, .gpu = !strcasecmp(cat, "gpu_user_annotation")};
    }
    /* HTA counts these device-wide syncs as GPU rows, never as CPU ones */
    int gpu_sync = !strcmp(name, "Event Sync") || !strcmp(name, "Context Sync");
    if (corr != -1 && !gpu_sync) {
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->c, t->nc, L->cap_c, L->path));
        tl_kt_crow *r = &t->c[t->nc];
        *r = (tl_kt_crow){.ts_us = ts, .dur_us = dur, .corr = corr, .tid = get_int(e, "tid", -1),
                          .kind = (uint8_t)kind};
        TL_TRY(tl_an_names_intern(t->names, name, &r->name));
        t->nc++;
    }
    if (kind == TL_KT_OTHER && is_comm_op(name)) {
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->ops, t->nops, L->cap_ops, L->path));
        tl_kt_op *o = &t->ops[t->nops];
        *o = (tl_kt_op){.ts_us = ts, .dur_us = dur, .tid = get_int(e, "tid", -1),
                        .ext = get_int(args, "External id", -1), .nelems = get_int(args, "In msg nelems", -1),
                        .bytes = message_bytes(args)};
        TL_TRY(tl_an_names_intern(t->names, name, &o->name));
        const char *coll = get_str(args, "Collective name");
        TL_TRY(check_text(L, "its Collective name", coll));
        if (coll) TL_TRY(tl_an_names_intern(t->names, coll, &o->coll));
        const char *pg = get_str(args, "Process Group Name"), *pgd = get_str(args, "Process Group Description");
        TL_TRY(check_text(L, "its Process Group Name", pg));
        TL_TRY(check_text(L, "its Process Group Description", pgd));
        if (pg || pgd) {
            char b[256], rk[112];
            pg_ranks(get_str(args, "Process Group Ranks"), rk, sizeof rk);
            snprintf(b, sizeof b, "%s%s%s%s%s%s", pg ? pg : "?", pgd || rk[0] ? " (" : "", pgd ? pgd : "",
                     pgd && rk[0] ? ", " : "", rk, pgd || rk[0] ? ")" : "");
            tl_trace_utf8_cut(b);
            TL_TRY(tl_an_names_intern(t->names, b, &o->pg));
        }
        TL_TRY(p2p_ends(L, args, name, coll, o));
        t->nops++;
    }
    return TL_OK;
}

#define KT_NO_EVENTS "no traceEvents array: not a PyTorch profiler (Kineto) trace"
#define KT_EXPORT "a Perfetto export written by trilap-analyze (otherData.generator), not a PyTorch profiler " \
                  "trace: analyse the traces it was made from"

static tl_status on_top_value(loader *L, const char *key, const tl_json *v)
{
    tl_kt_trace *t = L->t;
    const char *gen = get_str(v, "generator");
    if (!strcmp(key, "otherData") && gen && !strncmp(gen, "trilap-analyze", 14)) {
        /* the same events again, on a clock and in names of trilap's own:
         * read as a trace, a folder's export was one more rank */
        t->trilap_export = 1;
        TL_CHECK(L->meta_only, TL_ERR_PARSE, "%s: %s", L->path, KT_EXPORT);
    }
    if (!strcmp(key, "distributedInfo") && tl_json_is(v, TL_JSON_OBJECT)) {
        int64_t r = get_int(v, "rank", -1), w = get_int(v, "world_size", -1);
        TL_CHECK(r >= -1 && r < KT_MAX_RANK && w >= -1 && w < KT_MAX_RANK && (w < 0 || r < w), TL_ERR_PARSE,
                 "%s: distributedInfo rank %" PRId64 " of world_size %" PRId64 " is not a rank", L->path, r, w);
        t->rank = (int)r;
        t->world = (int)w;
        L->di_seen = 1;
    } else if (!strcmp(key, "baseTimeNanoseconds")) {
        /* ts are µs after it (newer Kineto): the epoch time of the trace */
        int ok = tl_json_is(v, TL_JSON_INT);
        int64_t b = ok ? tl_json_int(v) : -1;
        TL_CHECK(ok && b >= 0 && b < (int64_t)4e18, TL_ERR_PARSE,
                 "%s: baseTimeNanoseconds is not a time in ns", L->path);
        t->base_ns = b;
    } else if (!strcmp(key, "deviceProperties") && tl_json_is(v, TL_JSON_ARRAY)) {
        size_t n = tl_json_length(v);
        for (size_t i = 0; i < n && L->ndev < KT_MAX_DEVICES; i++) {
            const tl_json *d = tl_json_at(v, i);
            const char *nm = get_str(d, "name");
            if (!nm) continue;
            L->dev[L->ndev].id = get_int(d, "id", -1);
            snprintf(L->dev[L->ndev].name, sizeof L->dev[0].name, "%s", nm);
            L->ndev++;
        }
    }
    return TL_OK;
}

/* The top-level object: its keys walked here, traceEvents element by element. */
static tl_status walk(loader *L)
{
    int c;
    const tl_json *v = NULL;
    TL_TRY(peek(L, &c));
    TL_CHECK(c, TL_ERR_PARSE, "%s: empty file: not a Kineto JSON trace", L->path);
    TL_TRY(expect(L, "'{' (a Kineto trace is one JSON object)", "{", &c));
    TL_TRY(peek(L, &c));
    if (c == '}') {
        L->pos++;
        goto done;
    }
    for (;;) {
        TL_TRY(peek(L, &c));
        TL_CHECK(c == '"', TL_ERR_PARSE, "%s: byte %" PRId64 ": a key of the top-level object was expected%s",
                 L->path, L->off + (int64_t)L->pos, c ? "" : " (the JSON ends early: truncated?)");
        TL_TRY(parse_value(L, &v));
        char key[64];
        snprintf(key, sizeof key, "%s", tl_json_string(v));
        TL_TRY(expect(L, "':'", ":", &c));
        if (!strcmp(key, "traceEvents")) {
            TL_TRY(expect(L, "'[' (traceEvents is an array)", "[", &c));
            L->has_events = 1;
            TL_TRY(peek(L, &c));
            if (c == ']') L->pos++;
            else
                for (;;) {
                    TL_TRY(parse_value(L, &v));
                    TL_TRY(on_event(L, v));
                    /* the rank is known and the trace holds GPU activity: enough */
                    if (L->meta_only && L->di_seen && L->t->has_activity == TL_KT_GPU) return TL_OK;
                    TL_TRY(expect(L, "',' or ']' in traceEvents", ",]", &c));
                    if (c == ']') break;
                }
        } else {
            TL_TRY(parse_value(L, &v));
            TL_TRY(on_top_value(L, key, v));
            if (L->meta_only && ((L->di_seen && L->has_events) || L->t->trilap_export)) return TL_OK;
        }
        TL_TRY(expect(L, "',' or '}' after a top-level value", ",}", &c));
        if (c == '}') break;
    }
done:
    TL_TRY(peek(L, &c));
    TL_CHECK(c == 0, TL_ERR_PARSE, "%s: byte %" PRId64 ": text after the end of the JSON object", L->path,
             L->off + (int64_t)L->pos);
    /* a folder's other JSON files (a config, a manifest) are told apart
     * by their head and left out there; loaded, such a file is refused */
    if (L->meta_only && !L->has_events) L->t->no_events = 1;
    else TL_CHECK(L->has_events, TL_ERR_PARSE, "%s: %s", L->path, KT_NO_EVENTS);
    return TL_OK;
}

static int cmp_crow(const void *a, const void *b)
{
    const tl_kt_crow *x = a, *y = b;
    if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
    return x->ts_us < y->ts_us ? -1 : x->ts_us > y->ts_us;
}

static int cmp_step(const void *a, const void *b)
{
    const tl_kt_step *x = a, *y = b;
    return x->ts_us < y->ts_us ? -1 : x->ts_us > y->ts_us;
}

/* Every kept time on the trace's clock within +-2^61 ns, as the other
 * readers keep theirs, so that no difference of two (nor the sum of two
 * differences) overflows. check_time bounded ts and the base apart; their
 * sum is known only now, since baseTimeNanoseconds may follow traceEvents. */
static tl_status check_span(const tl_kt_trace *t, const char *name, double ts, double dur)
{
    int64_t s = tl_kt_ns(t, ts), e = tl_kt_ns(t, ts + dur);
    TL_CHECK(s >= -TL_TRACE_MAX_NS && e <= TL_TRACE_MAX_NS, TL_ERR_PARSE,
             "%s: event '%.80s' at ts=%.3f µs is at %" PRId64 " .. %" PRId64 " ns (baseTimeNanoseconds %" PRId64
             " + ts): beyond +-2^61 ns, not a time",
             t->path, name, ts, s, e, t->base_ns);
    return TL_OK;
}

static tl_status check_spans(const tl_kt_trace *t)
{
    for (size_t i = 0; i < t->ns; i++)
        TL_TRY(check_span(t, tl_an_names_get(t->names, t->s[i].name), t->s[i].ts_us, t->s[i].dur_us));
    for (size_t i = 0; i < t->nc; i++)
        TL_TRY(check_span(t, tl_an_names_get(t->names, t->c[i].name), t->c[i].ts_us, t->c[i].dur_us));
    for (size_t i = 0; i < t->nsteps; i++) TL_TRY(check_span(t, "ProfilerStep", t->steps[i].ts_us, t->steps[i].dur_us));
    for (size_t i = 0; i < t->nops; i++)
        TL_TRY(check_span(t, tl_an_names_get(t->names, t->ops[i].name), t->ops[i].ts_us, t->ops[i].dur_us));
    return TL_OK;
}

static tl_status load(const char *label, const char *mem, size_t msize, int meta_only, tl_progress *bar,
                      tl_kt_trace **out)
{
    *out = NULL;
    tl_status st = TL_OK;
    loader L = {.path = label, .meta_only = meta_only, .bar = bar, .mem = mem, .msize = msize};
    tl_kt_trace *t = calloc(1, sizeof *t);
    TL_CHECK(t, TL_ERR_NOMEM, "trace");
    L.t = t;
    snprintf(t->path, sizeof t->path, "%s", label);
    t->rank = t->world = -1;
    TL_TRYGOTO(tl_an_names_create(&t->names), st, fail);
    uint32_t id0;
    TL_TRYGOTO(tl_an_names_intern(t->names, "", &id0), st, fail);
    L.buf = malloc(KT_CHUNK);
    L.json = tl_json_parser_create(KT_MAX_DEPTH);
    TL_CHECKGOTO(L.buf && L.json, TL_ERR_NOMEM, st, fail, "reader buffers");
    if (!mem) {
        TL_TRYGOTO(tl_gzin_open(label, &L.in), st, fail);
    }
    TL_TRYGOTO(walk(&L), st, fail);
    TL_TRYGOTO(check_spans(t), st, fail);
    if (bar) tl_progress_update(bar, (double)t->nevents);
    if (t->nc) qsort(t->c, t->nc, sizeof *t->c, cmp_crow);
    if (t->nsteps) qsort(t->steps, t->nsteps, sizeof *t->steps, cmp_step);
    snprintf(t->device_name, sizeof t->device_name, "?");
    for (size_t i = 0; i < t->ns; i++)
        if (t->s[i].kind <= TL_KT_MEMSET && t->s[i].device >= 0) {
            for (int d = 0; d < L.ndev; d++)
                if (L.dev[d].id == t->s[i].device) snprintf(t->device_name, sizeof t->device_name, "%s", L.dev[d].name);
            break;
        }
    *out = t;
    t = NULL;
fail:
    tl_gzin_close(L.in);
    tl_json_parser_destroy(&L.json);
    free(L.val);
    free(L.buf);
    tl_kt_free(&t);
    return st;
}

tl_status tl_kt_load(const char *path, tl_kt_trace **out)
{
    return load(path, NULL, 0, 0, NULL, out);
}

tl_status tl_kt_load_progress(const char *path, tl_progress *bar, tl_kt_trace **out)
{
    return load(path, NULL, 0, 0, bar, out);
}

tl_status tl_kt_load_mem(const char *label, const char *data, size_t size, tl_kt_trace **out)
{
    return load(label, data, size, 0, NULL, out);
}

/* What a folder's listing needs of a trace: its rank and world size
 * (distributedInfo, -1 without) and whether it holds activity, read up to
 * its first activity. */
/* tl_an_kineto_head, and whether trilap-analyze wrote the file (*export:
 * nothing else is read). */
/* *other: not a trace of the run (a Perfetto export trilap-analyze wrote,
 * or a JSON object without traceEvents), with why */
static tl_status head(const char *path, int *rank, int *world, int *activity, const char **other)
{
    tl_kt_trace *t = NULL;
    TL_TRY(load(path, NULL, 0, 1, NULL, &t));
    *rank = t->rank;
    *world = t->world;
    *activity = t->has_activity;
    *other = t->trilap_export ? KT_EXPORT : t->no_events ? KT_NO_EVENTS : NULL;
    tl_kt_free(&t);
    return TL_OK;
}

tl_status tl_an_kineto_head(const char *path, int *rank, int *world, int *activity)
{
    const char *other = NULL;
    TL_TRY(head(path, rank, world, activity, &other));
    TL_CHECK(!other, TL_ERR_PARSE, "%s: %s", path, other);
    return TL_OK;
}

/* ---- what the rest of trilap sees -------------------------------------- */

int tl_an_json_name(const char *name)
{
    /* in any case, as .gz is everywhere in trilap: a folder of RANK0.JSON
     * or x.JSON.GZ read as holding no trace */
    size_t len = strlen(name);
    if (tl_out_names_gzip(name)) len -= 3;
    return len > 5 && !strncasecmp(name + len - 5, ".json", 5);
}

/* A Kineto trace: a file whose (decompressed) text starts with '{'. */
int tl_an_is_kineto(const char *path)
{
    if (tl_an_is_special(path)) return 0; /* opening a FIFO would wait for a writer */
    /* gzip whatever the name: torch.profiler writes X.json.gz, and a copy
     * renamed X.json was refused as "not a trace" */
    char head[4096];
    int gz = 0;
    long got = tl_gzin_peek(path, head, sizeof head, &gz);
    for (long i = 0; i < got; i++)
        if (head[i] != ' ' && head[i] != '\n' && head[i] != '\r' && head[i] != '\t') return head[i] == '{';
    /* gzip unreadable from the start (or in a build without zlib): the
     * name decides, and loading says what is wrong */
    return gz && tl_an_json_name(path);
}

typedef struct rank_file {
    int rank, world, activity; /* tl_an_kineto_head */
    char *path;
} rank_file;

static int cmp_rank_file(const void *a, const void *b)
{
    const rank_file *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return strcmp(x->path, y->path);
}

#define KT_NO_ACTIVITY "no GPU or host activity recorded (traceEvents hold no kernel, copy, memset, sync, " \
                       "ProfilerStep or collective): nothing to analyse"
#define KT_NO_GPU "no GPU activity recorded (traceEvents hold steps or CPU operators but no kernel, copy or " \
                  "memset: a profile of the CPU only): nothing to analyse; profile with " \
                  "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]"

/* A trace (or a run's traces) the analysis can give figures of: GPU
 * activity somewhere (tl_kt_activity). */
static tl_status check_activity(const char *what, int activity)
{
    TL_CHECK(activity != TL_KT_NONE, TL_ERR_PARSE, "%s: %s", what, KT_NO_ACTIVITY);
    TL_CHECK(activity == TL_KT_GPU, TL_ERR_PARSE, "%s: %s", what, KT_NO_GPU);
    return TL_OK;
}

/* A folder entry that is a trilap rank file (the folder is then a trilap
 * run, whose JSON files are Perfetto exports and manifests); a rank claim
 * an injected process left (trace.rank<R>.claim) is none. */
static int trilap_rank_file(const char *name) { return tl_trace_rank_of_name(name) != -1; }

/* Why a file's text is no Kineto trace, as its first bytes say: 1 with why
 * filled (gzip inside gzip, text that is no JSON object), else 0. */
static int file_why_not(const char *path, char *why, size_t n)
{
    unsigned char head[4096];
    int gz = 0;
    long got = tl_gzin_peek(path, head, sizeof head, &gz);
    if (tl_gzin_inside(head, got, gz)) {
        tl_gzin_twice_why(path, why, n); /* the words of every reader (runtime/gzin.c) */
        return 1;
    }
    /* the text: said of a file named as a trace (a CSV given to overlap is
     * not told about JSON) */
    const char *slash = strrchr(path, '/');
    if (!tl_an_json_name(slash ? slash + 1 : path)) return 0;
    long i = 0;
    while (i < got && tl_json_blank(head[i])) i++;
    if (i >= got || head[i] == '{') return 0;
    char first[16] = "binary data";
    if (head[i] >= 0x20 && head[i] < 0x7f) snprintf(first, sizeof first, "'%c'", head[i]);
    snprintf(why, n, "its %stext begins with %s, not '{': a PyTorch profiler (Kineto) trace is one JSON object holding "
                     "traceEvents", gz == 1 ? "decompressed " : "", first);
    return 1;
}

static tl_status why_not(const char *path, char *why, size_t n, int *is)
{
    *is = 0;
    struct stat sb;
    if (stat(path, &sb) != 0 || tl_an_is_special(path)) return TL_OK;
    if (S_ISREG(sb.st_mode)) {
        *is = file_why_not(path, why, n);
        return TL_OK;
    }
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(path) : NULL;
    if (!d) return TL_OK;
    /* the first .json by name (readdir's order is the file system's) */
    size_t njson = 0;
    char first[256] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (trilap_rank_file(e->d_name)) { /* a trilap run: its own reader says what is wrong */
            njson = 0;
            break;
        }
        if (!tl_an_json_name(e->d_name)) continue;
        njson++;
        if (!first[0] || strcmp(e->d_name, first) < 0) snprintf(first, sizeof first, "%s", e->d_name);
    }
    closedir(d);
    if (!njson) return TL_OK;
    char file[4352], one[320];
    snprintf(file, sizeof file, "%s/%s", path, first);
    if (!file_why_not(file, one, sizeof one)) {
        /* read for what it is instead of a trace; a file the reader
         * refuses (empty, no JSON) is refused in the reader's line, which
         * names it and why, and no line of the folder's follows */
        int rank, world, activity;
        const char *other = NULL;
        TL_TRY(head(file, &rank, &world, &activity, &other));
        if (!other) return TL_OK;
        snprintf(one, sizeof one, "%s", other);
    }
    snprintf(why, n, "no PyTorch profiler (Kineto) trace among its %zu .json file%s (%s: %s)", njson,
             njson == 1 ? "" : "s", first, one);
    *is = 1;
    return TL_OK;
}

tl_status tl_an_kineto_refuse_other(const char *path)
{
    char why[512];
    int is = 0;
    TL_TRY(why_not(path, why, sizeof why, &is));
    TL_CHECK(!is, TL_ERR_PARSE, "%s: %s", path, why);
    return TL_OK;
}

int tl_an_is_kineto_run(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return 0;
    if (S_ISREG(sb.st_mode)) return tl_an_is_kineto(path);
    DIR *d = S_ISDIR(sb.st_mode) ? opendir(path) : NULL;
    if (!d) return 0;
    int kineto = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (trilap_rank_file(e->d_name)) {
            kineto = 0;
            break;
        }
        if (kineto || !tl_an_json_name(e->d_name)) continue;
        char file[4096];
        if (snprintf(file, sizeof file, "%s/%s", path, e->d_name) < (int)sizeof file) kineto = tl_an_is_kineto(file);
    }
    closedir(d);
    return kineto;
}

/* A folder's .json that no reader can open (a dangling link, a folder, a
 * pipe or a device, no permission) or that holds nothing refused, in the
 * reader's own line: it may be a rank's trace (an empty one: a rank killed
 * before its profiler wrote), and the run read without it would be a run
 * short. */
static tl_status refuse_unreadable(const char *path)
{
    if (tl_an_is_special(path)) return TL_FAIL(TL_ERR_PARSE, "%s: a pipe or a device: traces are read from files", path);
    tl_gzin *in = NULL;
    TL_TRY(tl_gzin_open(path, &in));
    char c;
    size_t got = 0;
    tl_status st = tl_gzin_read(in, &c, 1, &got, NULL); /* damage: the reader's line */
    tl_gzin_close(in);
    TL_TRY(st);
    TL_CHECK(got, TL_ERR_PARSE, "%s: empty file: not a Kineto JSON trace", path);
    return TL_OK; /* readable after all (it changed since the listing): left out, as a file that is no trace */
}

/* Whether a folder's .json that is no Kineto trace cannot be read at all
 * or is empty (rather than holding other text). */
static int unreadable(const char *path)
{
    char c;
    int gz = 0;
    return tl_an_is_special(path) || tl_gzin_peek(path, &c, 1, &gz) <= 0;
}

/* The Kineto traces of a folder, unordered (*n = 0: none, or the folder
 * is a trilap run). A .json that cannot be read is refused once the
 * listing has found the folder to be no trilap run, whose reader says what
 * is wrong with it instead. */
static tl_status list_json(const char *dir, DIR *d, rank_file **out, size_t *nout)
{
    tl_status st = TL_OK;
    rank_file *rf = NULL;
    size_t n = 0, cap = 0;
    char *bad = NULL; /* the first .json that cannot be read */
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (trilap_rank_file(e->d_name)) {
            for (size_t i = 0; i < n; i++) free(rf[i].path);
            n = 0;
            free(bad);
            bad = NULL;
            break;
        }
        if (!tl_an_json_name(e->d_name)) continue;
        char *p = malloc(strlen(dir) + len + 2);
        TL_CHECKGOTO(p, TL_ERR_NOMEM, st, fail, "path");
        sprintf(p, "%s/%s", dir, e->d_name);
        if (tl_an_is_special(p) || !tl_an_is_kineto(p)) { /* opening a FIFO would wait for a writer */
            if (!bad && unreadable(p)) bad = p;
            else free(p);
            continue;
        }
        st = TL_AN_GROW(rf, n, cap, "files");
        if (st != TL_OK) {
            free(p);
            goto fail;
        }
        rf[n++] = (rank_file){.rank = -1, .world = -1, .path = p};
    }
    if (bad) TL_TRYGOTO(refuse_unreadable(bad), st, fail);
    free(bad);
    *out = rf;
    *nout = n;
    return TL_OK;
fail:
    free(bad);
    for (size_t i = 0; i < n; i++) free(rf[i].path);
    free(rf);
    return st;
}

/* The traces of one run, ordered by rank: each rank once, one world size
 * (a sample of a run's ranks is a run, as HTA's trace sets are), and some
 * activity in one of them; a Perfetto export trilap-analyze wrote into the
 * folder, and any other JSON object without traceEvents (a config, a
 * manifest), is left out (*n: the traces kept). */
static tl_status order_ranks(const char *dir, rank_file *rf, size_t *np)
{
    /* X.json beside X.json.gz is one trace kept twice: with distributedInfo
     * one rank twice (refused below), without it two ranks of one */
    for (size_t i = 0; i < *np; i++) {
        size_t li = strlen(rf[i].path);
        for (size_t j = 0; j < *np; j++)
            TL_CHECK(!(strlen(rf[j].path) == li + 3 && !strncmp(rf[j].path, rf[i].path, li) &&
                       tl_out_names_gzip(rf[j].path)),
                     TL_ERR_PARSE, "%s: %s and %s are one trace, plain and gzipped; keep one", dir,
                     strrchr(rf[i].path, '/') + 1, strrchr(rf[j].path, '/') + 1);
    }
    int activity = 0;
    for (size_t i = 0; i < *np; i++) {
        const char *other = NULL;
        TL_TRY(head(rf[i].path, &rf[i].rank, &rf[i].world, &rf[i].activity, &other));
        if (other) rf[i].rank = -2;
        else if (rf[i].rank < 0) rf[i].rank = 1 << 30; /* without distributedInfo: after those with it */
        if (rf[i].activity > activity) activity = rf[i].activity;
    }
    size_t n = 0;
    for (size_t i = 0; i < *np; i++) {
        if (rf[i].rank == -2) free(rf[i].path);
        else rf[n++] = rf[i];
    }
    *np = n;
    if (!n) return TL_OK;
    qsort(rf, n, sizeof *rf, cmp_rank_file);
    const rank_file *w = NULL; /* the first trace that states its world size */
    for (size_t i = 0; i < n; i++) {
        TL_CHECK(i == 0 || rf[i].rank != rf[i - 1].rank || rf[i].rank == 1 << 30, TL_ERR_PARSE,
                 "%s and %s: both are rank %d (distributedInfo): one folder holds one run", rf[i - 1].path,
                 rf[i].path, rf[i].rank);
        if (rf[i].world < 0) continue;
        TL_CHECK(!w || rf[i].world == w->world, TL_ERR_PARSE,
                 "%s and %s are not of one run: distributedInfo says world_size %d and %d", w ? w->path : "",
                 rf[i].path, w ? w->world : 0, rf[i].world);
        if (!w) w = &rf[i];
    }
    TL_TRY(check_activity(dir, activity));
    /* in the order of the ranks the readers give them (tl_an_rank_unclaimed
     * for those without distributedInfo, which come last), so every table
     * lists its ranks in order and the readers find each rank from the
     * files before it */
    for (size_t i = 0; i < n; i++)
        if (rf[i].rank == 1 << 30) rf[i].rank = tl_an_rank_unclaimed(&rf[0].rank, i, sizeof *rf);
    qsort(rf, n, sizeof *rf, cmp_rank_file);
    return TL_OK;
}

static tl_status one_file(const char *path, char ***files, size_t *nfiles, int *found)
{
    int rank, world, activity;
    TL_TRY(tl_an_kineto_head(path, &rank, &world, &activity));
    TL_TRY(check_activity(path, activity));
    char **f = calloc(1, sizeof *f);
    TL_CHECK(f, TL_ERR_NOMEM, "path");
    f[0] = strdup(path);
    if (!f[0]) {
        free(f);
        return TL_FAIL(TL_ERR_NOMEM, "path");
    }
    *files = f;
    *nfiles = 1;
    *found = 1;
    return TL_OK;
}

tl_status tl_an_kineto_run_files(const char *dir, char ***files, size_t *nfiles, int *found)
{
    *files = NULL;
    *nfiles = 0;
    *found = 0;
    struct stat sb;
    if (stat(dir, &sb) != 0) return TL_OK;
    if (S_ISREG(sb.st_mode)) return tl_an_is_kineto(dir) ? one_file(dir, files, nfiles, found) : TL_OK;
    if (!S_ISDIR(sb.st_mode)) return TL_OK;
    DIR *d = opendir(dir);
    if (!d) return TL_OK;
    rank_file *rf = NULL;
    size_t n = 0;
    tl_status st = list_json(dir, d, &rf, &n);
    closedir(d);
    if (st != TL_OK || !n) goto done;
    st = order_ranks(dir, rf, &n);
    if (st != TL_OK || !n) goto done;
    char **f = calloc(n, sizeof *f);
    TL_CHECKGOTO(f, TL_ERR_NOMEM, st, done, "%zu files", n);
    for (size_t i = 0; i < n; i++) {
        f[i] = rf[i].path;
        rf[i].path = NULL;
    }
    *files = f;
    *nfiles = n;
    *found = 1;
done:
    for (size_t i = 0; i < n; i++) free(rf[i].path);
    free(rf);
    return st;
}
