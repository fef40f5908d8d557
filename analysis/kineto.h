/* PyTorch profiler (Kineto) Chrome-trace JSON, read into a compact form
 * (analysis/kineto.c) that the trace records of every command and HTA's
 * figures (analysis/kineto_hta.c) are both computed from. One file is one
 * rank; a folder of them is a run. Mapping and rules: analysis/README.md,
 * "PyTorch profiler (Kineto) traces". */
#ifndef TL_ANALYSIS_KINETO_H
#define TL_ANALYSIS_KINETO_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "analysis/p2p_channels.h"

/* What an event with a duration is, as far as the readers care. */
typedef enum {
    TL_KT_KERNEL, TL_KT_MEMCPY, TL_KT_MEMSET, TL_KT_SYNC, /* GPU side */
    TL_KT_RUNTIME,                                         /* cuda_runtime / cuda_driver: launches */
    TL_KT_OTHER                                            /* cpu_op, user_annotation, ... */
} tl_kt_kind;

/* An event that carries a "stream" (GPU activity, and anything else that
 * names one): kept whole, because HTA's rules look at the raw values. */
typedef struct tl_kt_srow {
    double ts_us, dur_us;   /* as written (µs, relative to base_ns) */
    int64_t stream;         /* args.stream as an integer; -1 when not numeric */
    int64_t corr;           /* args.correlation, -1 without */
    int64_t bytes;          /* args.bytes, -1 without */
    uint32_t name;          /* id in the trace's names */
    int32_t device;         /* args.device, -1 without */
    uint8_t kind;           /* tl_kt_kind */
} tl_kt_srow;

/* An event without a stream that has a correlation id (the runtime calls
 * that launched GPU work): HTA keeps a kernel only when its launch was
 * recorded before the last ProfilerStep; trilap reads launch delays. */
typedef struct tl_kt_crow {
    double ts_us, dur_us;
    int64_t corr, tid;
    uint32_t name;
    uint8_t kind;
} tl_kt_crow;

/* ProfilerStep#N ranges (any event so named without a stream). */
typedef struct tl_kt_step {
    double ts_us, dur_us;
    int64_t num;
    int gpu; /* a gpu_user_annotation: the step's span on a GPU stream (newer PyTorch writes one per stream
              * beside the host's), which HTA's last-step rule counts and the iterations do not */
} tl_kt_step;

/* The communication operations of the CPU side: record_param_comms,
 * nccl:*, c10d::* ops with what they say about the collective. */
typedef struct tl_kt_op {
    double ts_us, dur_us;
    int64_t tid, ext;       /* thread, External id */
    int64_t nelems;         /* In msg nelems, -1 without */
    int64_t bytes;          /* the message: nelems x dtype, or Input Dims x Input type; -1 without */
    uint32_t name, coll, pg;/* op name; Collective name; "NAME (DESC, ranks A-B)"; 0: none */
    uint32_t group_ranks;   /* "Process Group Ranks" as written ("[0, 2, 4]"): a member's global rank; 0: none */
    int32_t peer;           /* record_param_comms of a send or recv: its Dst Rank or Src Rank (global); -1 */
    int32_t self_local, peer_local; /* "nccl:send A->B", "nccl:recv A<-B": A and B, ranks in the group; -1 */
} tl_kt_op;

/* What a trace's events hold for the analysis, in order: a head reads
 * until GPU activity (or to the end). */
typedef enum tl_kt_activity { TL_KT_NONE, TL_KT_HOST_ONLY, TL_KT_GPU } tl_kt_activity;

typedef struct tl_kt_trace {
    char path[1024];
    int rank, world;        /* distributedInfo; -1 without */
    int64_t base_ns;        /* baseTimeNanoseconds (0 without): ts are µs after it */
    int ts_float;           /* some ts was not an integer (or missing): HTA rounds inward */
    tl_an_names *names;     /* id 0 is "" */
    tl_kt_srow *s;
    size_t ns;
    tl_kt_crow *c;
    size_t nc;
    tl_kt_step *steps;
    size_t nsteps;
    tl_kt_op *ops;
    size_t nops;
    char device_name[128];  /* deviceProperties name of the first GPU row's device */
    int64_t nevents;        /* traceEvents entries read */
    int has_activity;       /* tl_kt_activity: the most an event read was (GPU activity > a step, a sync, a
                               collective > none) */
    int trilap_export;      /* otherData.generator says trilap-analyze wrote it (perfetto): no trace of a run */
    int no_events;          /* read for its head only: a JSON object without traceEvents (a config file) */
} tl_kt_trace;

/* Read one Kineto trace (.json, or gzip-compressed). Refuses, naming the
 * file and the reason: text that is not JSON or ends early, no traceEvents
 * array, events that are not objects, GPU activity with a negative or
 * non-finite duration or time or without a ts, a corrupt gzip stream. */
tl_status tl_kt_load(const char *path, tl_kt_trace **out);
/* The same, counting the traceEvents read on `bar` (--progress). */
struct tl_progress;
tl_status tl_kt_load_progress(const char *path, struct tl_progress *bar, tl_kt_trace **out);
void tl_kt_free(tl_kt_trace **t);

/* The same reader over a buffer already in memory (the fuzz target). */
tl_status tl_kt_load_mem(const char *label, const char *data, size_t size, tl_kt_trace **out);

/* Times: ns on the trace's clock (base_ns + ts µs). */
int64_t tl_kt_ns(const tl_kt_trace *t, double us);

/* The ProfilerStep holding time `us` (HTA: ts <= us < ts + dur; the last
 * such), its number or -1: the iteration of a launch. */
int64_t tl_kt_step_at(const tl_kt_trace *t, double us);
/* The same step's place in t->steps, t->nsteps where none. */
size_t tl_kt_step_find(const tl_kt_trace *t, double us);

/* Records as tl_an_scan hands them to its callback (from a loaded trace);
 * mfn (NULL: none) gets, with muser, the metadata a trace file would carry
 * (import writes it), its peers.<i> lines last. */
tl_status tl_kt_emit(const tl_kt_trace *t, tl_an_record_fn cb, void *user, tl_an_meta *meta,
                     tl_an_nsys_meta_fn mfn, void *muser);

/* ---- collectives (analysis/kineto_comm.c) ------------------------------ */

/* What the CPU side says about the NCCL kernel of row `i`: the operation
 * (all_reduce, all_to_all, send, ... from the innermost nccl:* op around its
 * launch, else record_param_comms' Collective name), the process group and
 * the message size of the record_param_comms around the launch, and the
 * launch itself. 0 when the launch or the operation is not in the trace. */
typedef struct tl_kt_comm {
    const tl_kt_crow *launch;
    char op[64];      /* "all_reduce" */
    char pg[128];     /* "0 (default_pg, ranks 0-1)", "?" without */
    int64_t nelems;   /* -1 without */
    int64_t bytes;    /* the message, -1 without (nccl:*'s tensors, else record_param_comms') */
    int p2p;          /* a point-to-point operation (send, recv, batch_isend_irecv) */
    /* A send or recv, or a batch of them, whose other ends the trace
     * names (TL_AN_P2P_MAX_CHANNELS channels at most): an other end
     * (global; the lowest of a batch's), its channels and their text,
     * "0->1", "0->1, 1->0", "0->1 x2, 2->0" (tl_an_p2p_channels_write);
     * -1 and "" else */
    int peer;
    tl_an_p2p_channels chans;
    char chan[TL_AN_P2P_CHANNELS_TEXT];
    uint32_t group_ranks; /* the process group's "Process Group Ranks" (a name id), 0 where unsaid */
} tl_kt_comm;
/* The communication ops of a trace indexed for tl_kt_comm_of (built once
 * per trace; free with tl_kt_comm_index_free). */
typedef struct tl_kt_comm_index {
    size_t *at;    /* places in t->ops of the nccl:* and record_param_comms ops, by (thread, start, place) */
    double *reach; /* the latest end (µs) of at[0..p] on at[p]'s thread */
    size_t n;
} tl_kt_comm_index;
tl_status tl_kt_comm_index_build(const tl_kt_trace *t, tl_kt_comm_index *out);
void tl_kt_comm_index_free(tl_kt_comm_index *ix);
int tl_kt_comm_of(const tl_kt_trace *t, const tl_kt_comm_index *ix, size_t i, tl_kt_comm *out);
/* What pairs it across ranks, the collective and its process group:
 * "nccl:all_reduce on process group 0 (default_pg, ranks 0-1)",
 * "nccl:all_reduce (process group not in the trace)"; findings call it so
 * with the message size (tl_an_op_label): "nccl:all_reduce 8.2 MB on ...".
 * A send or recv whose ends the trace names is its channel, the same text
 * at both ends, "nccl:p2p 0->1 on process group ...": NCCL delivers one
 * channel's messages in order, so the k-th of it on the sender is the k-th
 * on the receiver, while the k-th send of one rank and of another are
 * unrelated (tl_kt_emit names each rank's peers of it). A batch is its
 * channels, "nccl:p2p 0->1, 1->0 on ...", "nccl:p2p 0->1, 1->2 on ...":
 * match.c pairs each with the operations holding the same-numbered
 * messages of its channels at their other ends (p2p_channels.h), whatever
 * their grouping. out: TL_KT_KEY_MAX bytes, which hold any channels'. */
#define TL_KT_KEY_MAX 512
void tl_kt_comm_key(const tl_kt_comm *c, char *out, size_t n);
/* The global rank of member `local` of a "Process Group Ranks" list
 * ("[0, 2, 4]"), -1 where the list does not hold it (shorter, cut, not a
 * list). */
int tl_kt_group_rank(const char *list, int local);
/* The runtime call of a correlation id (the first), or NULL. */
const tl_kt_crow *tl_kt_launch_of(const tl_kt_trace *t, int64_t corr);

/* GPU rows by device and end (sorted): what a stream's event wait waited
 * for. Build once per trace; free .e. */
typedef struct tl_kt_end {
    int32_t device;
    int64_t end; /* ns */
    size_t i;    /* the row */
} tl_kt_end;
typedef struct tl_kt_ends {
    tl_kt_end *e;
    size_t n;
} tl_kt_ends;
tl_status tl_kt_ends_build(const tl_kt_trace *t, tl_kt_ends *out);
/* Kernel row `k` launched by `ln`, where the launching thread made its
 * stream wait for an event since its previous launch (a cudaStreamWaitEvent
 * the trace records on the host only: older traces have no GPU-side wait):
 * the other stream's activity that ended last between the launch and the
 * kernel's start, which the wait held it behind; else NULL. The records
 * carry it as a "wait:" row (tl_kt_emit), collectives as "event: ...". */
const tl_kt_end *tl_kt_host_wait(const tl_kt_trace *t, const tl_kt_ends *en, size_t k, const tl_kt_crow *ln);
/* Its name: "cudaStreamWaitEvent, stream 7: Memset (Device)". */
void tl_kt_host_wait_name(const tl_kt_trace *t, const tl_kt_end *w, char *out, size_t n);

/* Rank FILE#R[#iter-nvtx=SPEC] of an Nsight Systems export in this form
 * (analysis/kineto_nsys.c), for collectives: GPU rows, launches, the
 * iterations as steps, NCCL's operations from its NVTX ranges as nccl:*
 * ops (without process group or size: the export does not keep them);
 * meta: the export reader's. */
tl_status tl_kt_from_nsys(const char *rank_path, tl_kt_trace **out, tl_an_meta *meta);

/* ---- HTA (analysis/kineto_hta.c) --------------------------------------- */

typedef struct tl_kt_hta {
    int rank;
    int64_t comm_us, comp_us, overlap_us;  /* unions and |comm ∩ comp| */
    int64_t kernel_us, idle_us;            /* first start to last end; gaps in it */
    size_t kept, dropped;                  /* GPU rows HTA's filter kept, dropped */
    int filtered;                          /* the filter ran (two or more ProfilerStep names) */
    double last_step_us;                   /* the last ProfilerStep's start (µs, trace clock) */
} tl_kt_hta;

/* HTA's figures of one trace; `filter`: apply HTA's ProfilerStep filter
 * (HTA applies it when the ranks it loads name two or more steps). */
tl_status tl_kt_hta_compute(const tl_kt_trace *t, int filter, tl_kt_hta *out);

#endif
