/* Inside the probes: the per-rank state shared by probes.c (API, trace
 * output), probes_host.c (host ranges, names), probes_nvtx.c (NVTX3) and
 * probes_cupti.c (the process-wide CUPTI collector). Not installed. */
#ifndef TL_PROBES_IMPL_H
#define TL_PROBES_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "probes/clock_align.h"
#include "probes/probes.h"
#include "runtime/clock.h" /* the trace clock */
#include "runtime/marks.h"

enum {
    TL_PROBE_MAX_DEPTH = 64,   /* nesting of push/pop kept */
    TL_PROBE_MAX_NAMES = 1024, /* distinct range names per rank */
    TL_PROBE_NAME_ARENA = 64 * 1024,
    TL_PROBE_MAX_STREAMS = 64, /* registered streams per rank */
    TL_PROBE_ALL_DEVICES = -2, /* consumer device: take every device's records (injection) */
    /* NVTX categories of host communication marks, after cat + 1 */
    TL_NVTX_CAT_HOST_P2P = TL_CAT_COUNT + 1,
    TL_NVTX_CAT_HOST_COLL = TL_CAT_COUNT + 2,
};

typedef enum {
    TL_CUPTI_OFF = 0,            /* not asked for (cfg.cupti = 0) or a host-only rank */
    TL_CUPTI_ON,                 /* collecting */
    TL_CUPTI_SKIPPED_SUBSCRIBER, /* another CUPTI client (nsys, ncu, sanitizer) holds it */
    TL_CUPTI_UNAVAILABLE,        /* not in the build, or CUPTI failed to start */
} tl_cupti_status;
const char *tl_cupti_status_name(tl_cupti_status s);

/* The activity kinds TRILAP_CUPTI_KINDS names, bits of tl_probes.cupti_kinds */
enum { TL_CUPTI_KIND_KERNEL, TL_CUPTI_KIND_MEMCPY, TL_CUPTI_KIND_MEMSET, TL_CUPTI_KIND_SYNC, TL_CUPTI_KIND_OVERHEAD,
       TL_CUPTI_NKINDS };
/* Which API calls are recorded (TRILAP_CUPTI_API): the runtime's calls that
 * enqueue work or wait for it (unset), the driver's too (driver), every
 * call (all). */
typedef enum { TL_CUPTI_API_LAUNCH, TL_CUPTI_API_DRIVER, TL_CUPTI_API_ALL } tl_cupti_api;
/* 1 when the API records of runtime or driver call name (as CUPTI names
 * its callbacks, a version suffix or not) are recorded unless
 * TRILAP_CUPTI_API=all: calls that enqueue work (a GPU record's launch,
 * its iteration and thread) and host waits (the thread of a wait). Pure,
 * in every build. */
int tl_probe_cupti_api_recorded(const char *name);

/* A finished host range: name id into the rank's name table. lane is
 * TL_ROLE_HOST for the program's ranges, TL_ROLE_P2P or TL_ROLE_COLL for
 * host communication marks (runtime/marks.h). */
typedef struct tl_probe_range {
    int64_t start, end, iter;
    uint32_t name;
    uint8_t cat, lane;
} tl_probe_range;

typedef struct tl_probe_open {
    int64_t start, iter;
    uint32_t name;
    uint8_t cat, lane;
} tl_probe_open;

typedef struct tl_probe_iterval {
    int64_t start, end, iter;
} tl_probe_iterval;

typedef struct tl_probe_name {
    const char *key; /* the caller's pointer, the fast path */
    uint32_t off;    /* the copy in the arena */
    void *nvtx;      /* registered NVTX string handle */
} tl_probe_name;

typedef struct tl_probe_streamreg {
    int device;
    uint32_t id; /* CUPTI stream id */
    tl_role lane;
    char label[32];
} tl_probe_streamreg;

struct tl_probes {
    tl_probes_config cfg;
    char outdir[512];
    int rank, nranks, device; /* device: -1 host-only, TL_PROBE_ALL_DEVICES injection */
    int infer_lanes;          /* unregistered streams get lanes from their NCCL kernels */
    const char *program;
    char *args; /* the command line quoted (tl_manifest_command), whole: the trace writer cuts it past
                   TL_TRACE_MAX_TEXT, marked (before, cut at 2,047 bytes without a mark) */

    /* host ranges: preallocated, filled without locks or allocation */
    tl_probe_range *ranges;
    size_t nranges, cap_ranges;
    tl_probe_open stack[TL_PROBE_MAX_DEPTH];
    int depth; /* may exceed TL_PROBE_MAX_DEPTH; only the first are kept */
    tl_probe_iterval *iters;
    size_t niters, cap_iters;
    int64_t cur_iter, iter_start;
    uint64_t host_dropped, unbalanced;
    int64_t window_start, window_end;

    /* names: ids index names[]; id 0 is "iter", 1 the overflow name */
    tl_probe_name names[TL_PROBE_MAX_NAMES];
    uint32_t nnames;
    uint32_t slot[2 * TL_PROBE_MAX_NAMES]; /* open addressing on the pointer: id + 1, 0 empty */
    char arena[TL_PROBE_NAME_ARENA];
    size_t arena_used;
    uint64_t names_dropped;

    tl_probe_streamreg streams[TL_PROBE_MAX_STREAMS];
    int nstreams;

    tl_clock_align clock; /* offset to rank 0's clock at start and stop (clock_align.c) */

    /* the peers of each point-to-point operation, as tl_mark_peers declared
     * them: a peers.<i> value each ("<sets> <name>", peers.c) */
    char **peers;
    int npeers, cappeers;

    void *nvtx_domain; /* nvtxDomainHandle_t, NULL without NVTX */
    tl_cupti_status cupti;
    int cupti_attached;
    unsigned cupti_kinds;  /* bits 1 << TL_CUPTI_KIND_*, from TRILAP_CUPTI_KINDS */
    tl_cupti_api cupti_api; /* from TRILAP_CUPTI_API */

    uint32_t tid;             /* the rank's thread (gettid), which CUPTI's API records name */
    int64_t created_ns;       /* CLOCK_MONOTONIC at create: the window of a trace without rows starts there */
    int nvtx_only;            /* no outdir: NVTX ranges only, nothing written */
    struct tl_probes *outer;  /* the NVTX-only probes a tracing session replaced */
};

enum { TL_PROBE_NAME_ITER = 0, TL_PROBE_NAME_OVERFLOW = 1 };

/* Injection mode: one consumer for every device's records, lanes inferred
 * for streams not named in lane overrides. */
tl_status tl_probes_create_inject(tl_ctx *ctx, const tl_probes_config *cfg);
tl_status tl_probes_lane_override(tl_ctx *ctx, uint32_t stream_id, tl_role lane);
/* TL_OK unless a folder sits where rank's trace goes in outdir, whose
 * rename would fail only once the run is over */
tl_status tl_probes_trace_name_free(const char *outdir, int rank);
/* outdir made if missing, and a file written there (TL_ERR_IO, said, when
 * none can be) */
tl_status tl_probes_outdir_writable(const char *outdir);


/* peers.c: tl_mark_peers (the marks table's peers), the trace's
 * peers.<i> lines, and their memory */
tl_status tl_probe_peers_declare(tl_ctx *ctx, tl_role lane, const char *what, const tl_mark_peerset *sets, int nsets);
tl_status tl_probe_peers_meta(const tl_probes *p, tl_trace_writer *w);
void tl_probe_peers_free(tl_probes *p);

/* probes_host.c */
tl_status tl_probe_host_init(tl_probes *p);
void tl_probe_host_fini(tl_probes *p);
uint32_t tl_probe_name_id(tl_probes *p, const char *name);
static inline const char *tl_probe_name_str(const tl_probes *p, uint32_t id)
{
    return id < p->nnames ? p->arena + p->names[id].off : "?";
}
/* Iteration current on this rank's host at time t (-1 outside any). */
int64_t tl_probe_iter_at(const tl_probes *p, int64_t t);
/* The host communication ranges of a rank (ranges of category p2p or coll,
 * marks included), sorted by start, to find the communication a copy was
 * enqueued for. */
typedef struct tl_probe_commidx {
    int64_t *start, *end, *maxend; /* maxend[i]: the largest end of entries 0..i */
    uint8_t *lane;
    size_t n;
} tl_probe_commidx;
tl_status tl_probe_commidx_build(const tl_probes *p, tl_probe_commidx *ix);
void tl_probe_commidx_free(tl_probe_commidx *ix);
/* TL_ROLE_P2P or TL_ROLE_COLL when host time t lies inside a communication
 * range (the innermost one), else TL_ROLE_NONE. */
tl_role tl_probe_comm_lane_at(const tl_probe_commidx *ix, int64_t t);
/* The marks table the probes install in ctx->marks. */
extern const tl_comm_marks tl_probe_marks;

/* probes.c: NVTX-only probes (cfg->outdir NULL), made only when an NVTX
 * tool is attached; their destroy closes what is still open and writes
 * nothing. */
tl_status tl_probe_nvtx_only_create(tl_ctx *ctx, const tl_probes_config *cfg);
void tl_probe_nvtx_only_destroy(tl_probes *p);

/* probes_nvtx.c: all no-ops without NVTX in the build or with cfg.nvtx = 0 */
void tl_probe_nvtx_init(tl_probes *p);
/* Pop the NVTX ranges (and iteration) the program left open. */
void tl_probe_nvtx_close_open(tl_probes *p);
void *tl_probe_nvtx_string(tl_probes *p, const char *s);
void tl_probe_nvtx_push(const tl_probes *p, tl_cat cat, tl_role lane, uint32_t name);
void tl_probe_nvtx_iter(const tl_probes *p, int64_t iter);
void tl_probe_nvtx_pop(const tl_probes *p);
void tl_probe_nvtx_stream(const tl_probes *p, void *stream, const char *label);

/* probes_owner.c: which rank of a collection round issued a GPU record.
 * Ranks may share a device and a process (thread launcher, host-staged
 * device communication), so the device alone does not say; in order:
 *   device  the only rank of the round on the record's device;
 *   stream  the only rank that registered the record's (device, stream);
 *   thread  the rank whose thread made the API call: the launch, or the
 *           wait itself for a sync record (CUPTI's correlation id,
 *           thread ids of type SYSTEM = gettid);
 *   vote    the rank that owns most of the stream's other records (a
 *           tie: the lower rank);
 *   guess   the lowest rank on the device (counted: owner_guess).
 * "Lowest" and "lower" by rank number: the round is in the order its
 * ranks reached collection.
 * Every rank of the round applies the same rules to the same buffers, so
 * the union of their traces holds each record once. */
typedef enum { TL_OWN_DEVICE, TL_OWN_STREAM, TL_OWN_THREAD, TL_OWN_VOTE, TL_OWN_GUESS,
               TL_OWN_COUNT } tl_owner_rule;
typedef struct tl_owner_rank {
    int rank;   /* the rank's number: "lowest rank" is by it */
    int device; /* TL_PROBE_ALL_DEVICES: every device (injection) */
    uint32_t tid;
    const tl_probe_streamreg *streams;
    int nstreams;
} tl_owner_rank;
typedef struct tl_owner_vote {
    int device;
    uint32_t stream;
    uint32_t *count; /* per rank of the round */
} tl_owner_vote;
typedef struct tl_probe_owners {
    const tl_owner_rank *ranks; /* the round, in the order its ranks reached collection */
    int n;
    tl_owner_vote *votes;
    size_t nvotes, capvotes;
} tl_probe_owners;
/* Index into ranks of the owner, -1 when no rank of the round runs on the
 * device; tid 0: the launching call is unknown. *rule says which rule
 * decided. Pure: no CUPTI, so host tests cover it. */
int tl_probe_owner_of(const tl_probe_owners *o, int device, uint32_t stream, uint32_t tid,
                      tl_owner_rule *rule);
/* The owner of a host wait whose context no GPU record of the buffers
 * names (its device unknown): the only rank of the round, else the rank
 * whose thread called it (tid, 0: unknown), else the lowest rank, said
 * as guessed (as records of an unknown issuer are). */
int tl_probe_owner_of_wait(const tl_probe_owners *o, uint32_t tid, tl_owner_rule *rule);
/* The round's ranks (as they reached collection) into ranks[] (nround
 * slots) and *o; returns p's index there, -1 when p is not in the round. */
int tl_probe_owners_of_round(tl_probe_owners *o, tl_owner_rank *ranks, tl_probes *const *round, int nround,
                             const tl_probes *p);
/* Record that rank idx issued a record on (device, stream), for the vote. */
tl_status tl_probe_owner_vote(tl_probe_owners *o, int device, uint32_t stream, int idx);
void tl_probe_owners_free(tl_probe_owners *o);
const char *tl_owner_rule_name(tl_owner_rule r);

/* probes_cupti.c: the process-wide collector (see the file's comment) */
typedef struct tl_probe_gpu {
    tl_trace_record *recs; /* kernel names point into names[] */
    size_t n;
    char **names; /* copies of CUPTI's kernel names (sparse table) */
    size_t nnames;
    uint64_t overhead_ns, overhead_n, iter_unknown;
    uint64_t incomplete; /* records flushed unfinished, left out */
    uint64_t by_rule[TL_OWN_COUNT]; /* how this rank's GPU records were attributed */
    uint64_t comm_copies;           /* copies enqueued inside a communication range */
    const char *clock;   /* how CUPTI times reached the trace clock; NULL without CUPTI */
} tl_probe_gpu;
/* TRILAP_CUPTI_KINDS and TRILAP_CUPTI_API read into *kinds and *api;
 * a value that is not one of their names is refused, naming it. */
tl_status tl_probe_cupti_env(unsigned *kinds, tl_cupti_api *api);
/* Attach this rank; sets p->cupti. Failures to start CUPTI are reported
 * and recorded as TL_CUPTI_UNAVAILABLE, not returned: tracing must never
 * stop the program. */
void tl_probe_cupti_attach(tl_probes *p);
/* Stream id as CUPTI reports it, 0 on failure. */
uint32_t tl_probe_cupti_stream_id(void *stream);
/* Flush, take this rank's records (converted, lanes and iterations
 * assigned), and detach; the last rank out stops CUPTI. */
tl_status tl_probe_cupti_collect(tl_probes *p, tl_probe_gpu *out);
void tl_probe_gpu_free(tl_probe_gpu *g);
uint64_t tl_probe_cupti_dropped(void);
uint32_t tl_probe_cupti_version(void); /* 0 without CUPTI */

/* probes_convert.c: one rank's records out of completed CUPTI buffers */
typedef struct tl_cbuf {
    uint8_t *data;
    size_t valid;
} tl_cbuf;
/* offset_ns is added to every CUPTI time (0 when CUPTI uses our clock).
 * round: the ranks collecting together (p among them), whose records the
 * buffers mix; p gets only the records it issued (probes_owner.c). */
tl_status tl_probe_convert(tl_probes *p, tl_probes *const *round, int nround, const tl_cbuf *bufs,
                           int nbufs, int64_t offset_ns, tl_probe_gpu *g);
/* The conversion past CUPTI, on records already decoded (pure, so the
 * host tests feed it records). A record as decoded, with what its
 * correlation id found: the launching call's time and thread. */
typedef struct tl_probe_cand {
    tl_trace_record r; /* device -1: a wait on a context no GPU record of the buffers names */
    uint32_t stream, tid;
    int known; /* the launching call was found (launch, tid) */
    int64_t launch;
} tl_probe_cand;
typedef struct tl_probe_keep {
    const tl_probes *p;
    const tl_probe_owners *own;
    int me; /* p's index in the round */
    const tl_probe_commidx *comm;
    int64_t off; /* CUPTI's 0 on the trace clock: an unfinished record's times */
} tl_probe_keep;
/* c appended to g (1) when p issued it, lane, category, iteration and a
 * copy's communication lane set; 0 when another rank's, or unfinished
 * (counted in g->incomplete). The kernel name is c's. */
int tl_probe_keep_own(const tl_probe_keep *k, const tl_probe_cand *c, tl_probe_gpu *g);
/* Injection mode: lanes of records on unregistered streams from the NCCL
 * kernels each stream ran. */
tl_status tl_probe_infer_lanes(tl_probe_gpu *g, const tl_probes *p);

#endif
