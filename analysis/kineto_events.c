/* One Kineto event read into the compact rows (tl_kt_on_event): checked
 * (names as UTF-8, times, what places a GPU activity), kept as a GPU or
 * stream row, a runtime call, a ProfilerStep or a communication op with
 * its process group, message size and, for a send or recv, its other end. */
#include "analysis/kineto_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/grow.h"
#include "probes/trace.h" /* tl_trace_utf8_bad, tl_trace_utf8_cut */

/* A string that becomes a name in the records: well-formed UTF-8, as the
 * trace reader takes names, so what import writes reads back (the JSON
 * reader passes the bytes of a string through unchecked). */
static tl_status check_text(tl_kt_loader *L, const char *what, const char *s)
{
    size_t bad = s ? tl_trace_utf8_bad(s) : (size_t)-1;
    TL_CHECK(bad == (size_t)-1, TL_ERR_PARSE,
             "%s: traceEvents[%" PRId64 "]: %s is not valid UTF-8 (byte 0x%02x at offset %zu)", L->path,
             L->t->nevents - 1, what, (unsigned char)s[bad], bad);
    return TL_OK;
}

static tl_status check_time(tl_kt_loader *L, const char *name, int has_ts, double ts, double dur)
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
static tl_status check_gpu_event(tl_kt_loader *L, const tl_json *e, const char *cat)
{
    if (!cat || tl_kt_kind_of(cat) > TL_KT_MEMSET) return TL_OK;
    const char *name = tl_kt_arg_str(e, "name");
    const tl_json *args = tl_json_get(e, "args");
    double x = 0;
    const char *miss = !tl_kt_arg_num(e, "dur", &x, NULL)                      ? "no dur (a number of µs)"
                       : !name || !name[0]                                     ? "no name"
                       : tl_kt_arg_int(args, "device", INT64_MIN) == INT64_MIN ? "no args.device (the GPU it ran on)"
                       : tl_kt_arg_int(args, "stream", INT64_MIN) == INT64_MIN ? "no args.stream"
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
static tl_status p2p_ends(tl_kt_loader *L, const tl_json *args, const char *name, const char *coll, tl_kt_op *o)
{
    o->peer = o->self_local = o->peer_local = -1;
    const char *gr = tl_kt_arg_str(args, "Process Group Ranks");
    TL_TRY(check_text(L, "its Process Group Ranks", gr ? gr : ""));
    if (gr) TL_TRY(tl_an_names_intern(L->t->names, gr, &o->group_ranks));
    p2p_name_ranks(name, &o->self_local, &o->peer_local);
    const char *key = !coll ? NULL : !strcmp(coll, "send") ? "Dst Rank" : !strcmp(coll, "recv") ? "Src Rank" : NULL;
    if (!key || !tl_json_get(args, key)) return TL_OK;
    int64_t peer = tl_kt_arg_int(args, key, INT64_MIN);
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
    const char *cat = tl_kt_arg_str(e, "cat"), *name = tl_kt_arg_str(e, "name");
    double dur = 0;
    if (!cat || !tl_kt_arg_num(e, "dur", &dur, NULL) || !strcmp(cat, "Trace")) return TL_KT_NONE;
    if (tl_kt_kind_of(cat) <= TL_KT_MEMSET) return TL_KT_GPU;
    if (tl_kt_kind_of(cat) == TL_KT_SYNC || (name && tl_kt_step_number(name) >= 0)) return TL_KT_HOST_ONLY;
    return name && !strcmp(name, "record_param_comms") && tl_kt_arg_str(tl_json_get(e, "args"), "Collective name")
               ? TL_KT_HOST_ONLY
               : TL_KT_NONE;
}

tl_status tl_kt_on_event(tl_kt_loader *L, const tl_json *e)
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
    int has_ts = tl_kt_arg_num(e, "ts", &ts, &ts_double);
    /* HTA (pandas) rounds every time when the ts column is not all integers */
    if (!has_ts || ts_double) t->ts_float = 1;
    const char *cat = tl_kt_arg_str(e, "cat");
    TL_TRY(check_gpu_event(L, e, cat));
    if (!cat || !tl_kt_arg_num(e, "dur", &dur, NULL) || !strcmp(cat, "Trace")) return TL_OK;
    const char *name = tl_kt_arg_str(e, "name");
    if (!name) name = "";
    TL_TRY(check_text(L, "the event's name", name));
    const tl_json *args = tl_json_get(e, "args");
    if (!tl_json_is(args, TL_JSON_OBJECT)) args = NULL;
    tl_kt_kind kind = tl_kt_kind_of(cat);
    int64_t stream = tl_kt_arg_int(args, "stream", -1), corr = tl_kt_arg_int(args, "correlation", -1);
    int gpu = kind <= TL_KT_SYNC;
    if (gpu || stream != -1) {
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->s, t->ns, L->cap_s, L->path));
        tl_kt_srow *r = &t->s[t->ns];
        *r = (tl_kt_srow){.ts_us = ts, .dur_us = dur, .stream = stream, .corr = corr,
                          .bytes = tl_kt_arg_int(args, "bytes", -1),
                          .device = (int32_t)tl_kt_arg_int(args, "device", -1),
                          .kind = (uint8_t)kind};
        TL_TRY(tl_an_names_intern(t->names, name, &r->name));
        t->ns++;
        return TL_OK;
    }
    int64_t step = tl_kt_step_number(name);
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
        *r = (tl_kt_crow){.ts_us = ts, .dur_us = dur, .corr = corr, .tid = tl_kt_arg_int(e, "tid", -1),
                          .kind = (uint8_t)kind};
        TL_TRY(tl_an_names_intern(t->names, name, &r->name));
        t->nc++;
    }
    if (kind == TL_KT_OTHER && tl_kt_is_comm_op(name)) {
        TL_TRY(check_time(L, name, has_ts, ts, dur));
        TL_TRY(TL_AN_GROW(t->ops, t->nops, L->cap_ops, L->path));
        tl_kt_op *o = &t->ops[t->nops];
        *o = (tl_kt_op){.ts_us = ts, .dur_us = dur, .tid = tl_kt_arg_int(e, "tid", -1),
                        .ext = tl_kt_arg_int(args, "External id", -1),
                        .nelems = tl_kt_arg_int(args, "In msg nelems", -1),
                        .bytes = tl_kt_message_bytes(args)};
        TL_TRY(tl_an_names_intern(t->names, name, &o->name));
        const char *coll = tl_kt_arg_str(args, "Collective name");
        TL_TRY(check_text(L, "its Collective name", coll));
        if (coll) TL_TRY(tl_an_names_intern(t->names, coll, &o->coll));
        const char *pg = tl_kt_arg_str(args, "Process Group Name");
        const char *pgd = tl_kt_arg_str(args, "Process Group Description");
        TL_TRY(check_text(L, "its Process Group Name", pg));
        TL_TRY(check_text(L, "its Process Group Description", pgd));
        if (pg || pgd) {
            char b[256], rk[112];
            tl_kt_pg_ranks_say(tl_kt_arg_str(args, "Process Group Ranks"), rk, sizeof rk);
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
