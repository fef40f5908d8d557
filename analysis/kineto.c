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
 * the gzip data; nothing is sized from a length the file claims.
 *
 * This file: the chunked reader, the top-level values, tl_kt_load and the
 * head a folder's listing reads. Its parts (kineto_impl.h): each event's
 * fields (kineto_args.c), each event into the rows (kineto_events.c), a
 * run's files (kineto_files.c). */
#include "analysis/kineto_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/json.h"
#include "probes/trace.h" /* TL_TRACE_MAX_NS */
#include "runtime/gzin.h"
#include "runtime/progress.h"

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

static tl_status refill(tl_kt_loader *L)
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
static tl_status peek(tl_kt_loader *L, int *c)
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

static tl_status expect(tl_kt_loader *L, const char *what, const char *set, int *got)
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
static tl_status gather(tl_kt_loader *L, const char *buf, size_t n, int64_t start)
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
static tl_status parse_value(tl_kt_loader *L, const tl_json **out)
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

#define KT_NO_EVENTS "no traceEvents array: not a PyTorch profiler (Kineto) trace"
#define KT_EXPORT "a Perfetto export written by trilap-analyze (otherData.generator), not a PyTorch profiler " \
                  "trace: analyse the traces it was made from"

static tl_status on_top_value(tl_kt_loader *L, const char *key, const tl_json *v)
{
    tl_kt_trace *t = L->t;
    const char *gen = tl_kt_arg_str(v, "generator");
    if (!strcmp(key, "otherData") && gen && !strncmp(gen, "trilap-analyze", 14)) {
        /* the same events again, on a clock and in names of trilap's own:
         * read as a trace, a folder's export was one more rank */
        t->trilap_export = 1;
        TL_CHECK(L->meta_only, TL_ERR_PARSE, "%s: %s", L->path, KT_EXPORT);
    }
    if (!strcmp(key, "distributedInfo") && tl_json_is(v, TL_JSON_OBJECT)) {
        int64_t r = tl_kt_arg_int(v, "rank", -1), w = tl_kt_arg_int(v, "world_size", -1);
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
            const char *nm = tl_kt_arg_str(d, "name");
            if (!nm) continue;
            L->dev[L->ndev].id = tl_kt_arg_int(d, "id", -1);
            snprintf(L->dev[L->ndev].name, sizeof L->dev[0].name, "%s", nm);
            L->ndev++;
        }
    }
    return TL_OK;
}

/* The top-level object: its keys walked here, traceEvents element by element. */
static tl_status walk(tl_kt_loader *L)
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
                    TL_TRY(tl_kt_on_event(L, v));
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
    tl_kt_loader L = {.path = label, .meta_only = meta_only, .bar = bar, .mem = mem, .msize = msize};
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
tl_status tl_kt_head_read(const char *path, int *rank, int *world, int *activity, const char **other)
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
    TL_TRY(tl_kt_head_read(path, rank, world, activity, &other));
    TL_CHECK(!other, TL_ERR_PARSE, "%s: %s", path, other);
    return TL_OK;
}

