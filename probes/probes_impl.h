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

enum {
    TL_PROBE_MAX_DEPTH = 64,   /* nesting of push/pop kept */
    TL_PROBE_MAX_NAMES = 1024, /* distinct range names per rank */
    TL_PROBE_NAME_ARENA = 64 * 1024,
    TL_PROBE_MAX_STREAMS = 64, /* registered streams per rank */
    TL_PROBE_ALL_DEVICES = -2, /* consumer device: take every device's records (injection) */
};

typedef enum {
    TL_CUPTI_OFF = 0,            /* not asked for (cfg.cupti = 0) or a host-only rank */
    TL_CUPTI_ON,                 /* collecting */
    TL_CUPTI_SKIPPED_SUBSCRIBER, /* another CUPTI client (nsys, ncu, sanitizer) holds it */
    TL_CUPTI_UNAVAILABLE,        /* not in the build, or CUPTI failed to start */
} tl_cupti_status;
const char *tl_cupti_status_name(tl_cupti_status s);

/* A finished host range: name id into the rank's name table. */
typedef struct tl_probe_range {
    int64_t start, end, iter;
    uint32_t name;
    uint8_t cat;
} tl_probe_range;

typedef struct tl_probe_open {
    int64_t start, iter;
    uint32_t name;
    uint8_t cat;
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
    char args[2048];

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

    void *nvtx_domain; /* nvtxDomainHandle_t, NULL without NVTX */
    tl_cupti_status cupti;
    int cupti_attached;

    int nvtx_only;            /* no outdir: NVTX ranges only, nothing written */
    struct tl_probes *outer;  /* the NVTX-only probes a tracing session replaced */
};

enum { TL_PROBE_NAME_ITER = 0, TL_PROBE_NAME_OVERFLOW = 1 };

/* Injection mode: one consumer for every device's records, lanes inferred
 * for streams not named in lane overrides. */
tl_status tl_probes_create_inject(tl_ctx *ctx, const tl_probes_config *cfg);
tl_status tl_probes_lane_override(tl_ctx *ctx, uint32_t stream_id, tl_role lane);


/* probes_host.c */
tl_status tl_probe_host_init(tl_probes *p);
void tl_probe_host_fini(tl_probes *p);
uint32_t tl_probe_name_id(tl_probes *p, const char *name);
const char *tl_probe_name_str(const tl_probes *p, uint32_t id);
/* Iteration current on this rank's host at time t (-1 outside any). */
int64_t tl_probe_iter_at(const tl_probes *p, int64_t t);

/* probes_nvtx.c: all no-ops without NVTX in the build or with cfg.nvtx = 0 */
void tl_probe_nvtx_init(tl_probes *p);
/* NVTX-only probes (cfg->outdir NULL): made only when an NVTX tool is
 * attached; their destroy closes what is still open and writes nothing. */
tl_status tl_probe_nvtx_only_create(tl_ctx *ctx, const tl_probes_config *cfg);
void tl_probe_nvtx_only_destroy(tl_probes *p);
/* Pop the NVTX ranges (and iteration) the program left open. */
void tl_probe_nvtx_close_open(tl_probes *p);
void *tl_probe_nvtx_string(tl_probes *p, const char *s);
void tl_probe_nvtx_push(const tl_probes *p, tl_cat cat, uint32_t name);
void tl_probe_nvtx_iter(const tl_probes *p, int64_t iter);
void tl_probe_nvtx_pop(const tl_probes *p);
void tl_probe_nvtx_stream(const tl_probes *p, void *stream, const char *label);

/* probes_cupti.c: the process-wide collector (see the file's comment) */
typedef struct tl_probe_gpu {
    tl_trace_record *recs; /* kernel names point into names[] */
    size_t n;
    char **names; /* copies of CUPTI's kernel names (sparse table) */
    size_t nnames;
    uint64_t overhead_ns, overhead_n, iter_unknown;
    uint64_t incomplete; /* records flushed unfinished, left out */
    const char *clock;   /* how CUPTI times reached the trace clock; NULL without CUPTI */
} tl_probe_gpu;
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
/* offset_ns is added to every CUPTI time (0 when CUPTI uses our clock). */
tl_status tl_probe_convert(tl_probes *p, const tl_cbuf *bufs, int nbufs, int64_t offset_ns,
                           tl_probe_gpu *g);

#endif
