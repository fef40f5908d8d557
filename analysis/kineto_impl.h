/* Internal to the Kineto reader (kineto.c, kineto_args.c,
 * kineto_events.c, kineto_files.c): its limits, the chunked reader's
 * state, and what its parts give each other. Named *_impl.h so that make
 * install leaves it out. */
#ifndef TL_ANALYSIS_KINETO_IMPL_H
#define TL_ANALYSIS_KINETO_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/json.h"
#include "analysis/kineto.h"
#include "runtime/gzin.h"
#include "runtime/progress.h"

enum {
    KT_CHUNK = 1 << 20,
    KT_MAX_VALUE = 64 << 20, /* one event (or top-level value) longer than this is refused */
    KT_MAX_DEPTH = 32,       /* json-c's default nesting limit, which the reader had */
    KT_MAX_STEP = 1 << 24,   /* ProfilerStep numbers are iteration indices */
    KT_MAX_RANK = 1 << 24,   /* as distributedInfo's rank is held */
    KT_MAX_DEVICES = 64
};

/* The reader of one trace (kineto.c), which each event is read into (kineto_events.c). */
typedef struct tl_kt_loader {
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
} tl_kt_loader;

/* kineto_args.c: what an event's fields and arguments say */

/* A number (int or double) under key: 1 with *v (and whether it was
 * written as a double), else 0. */
int tl_kt_arg_num(const tl_json *o, const char *key, double *v, int *is_double);
/* An integer argument: ints, integral doubles and numeric strings (HTA's
 * pd.to_numeric); `def` otherwise. */
int64_t tl_kt_arg_int(const tl_json *o, const char *key, int64_t def);
/* A string under key, NULL without. */
const char *tl_kt_arg_str(const tl_json *o, const char *key);
/* An event's cat as a tl_kt_kind. */
tl_kt_kind tl_kt_kind_of(const char *cat);
/* record_param_comms, nccl:* and c10d::* ops: a communication op. */
int tl_kt_is_comm_op(const char *name);
/* The message of a communication op in bytes, -1 when the event does not say. */
int64_t tl_kt_message_bytes(const tl_json *args);
/* "Process Group Ranks" ("[0, 1, 2, 3]") as "ranks 0-3" or "ranks 0,2,4,6"; "" without. */
void tl_kt_pg_ranks_say(const char *s, char *out, size_t n);
/* "ProfilerStep#N" (HTA's ^ProfilerStep#(\d+)): N, or -1. */
int64_t tl_kt_step_number(const char *name);

/* kineto_events.c: one element of traceEvents into the compact rows (or,
 * reading the head only, into the activity the trace holds). */
tl_status tl_kt_on_event(tl_kt_loader *L, const tl_json *e);

/* kineto.c: a trace's head, what a folder's listing needs of it: its rank
 * and world size (distributedInfo, -1 without) and whether it holds
 * activity, read up to its first activity; *other: not a trace of the run
 * (a Perfetto export trilap-analyze wrote, or a JSON object without
 * traceEvents), with why. */
tl_status tl_kt_head_read(const char *path, int *rank, int *world, int *activity, const char **other);

#endif
