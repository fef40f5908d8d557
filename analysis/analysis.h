/* trilap-analyze internals: GPU activity intervals, the sweep that computes
 * the overlap metrics of DESIGN.md "Overlap metrics", run loading, kernel
 * categories and result tables. Every metric is defined in
 * analysis/README.md; this header only says how the code is split. */
#ifndef TL_ANALYSIS_H
#define TL_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/trace.h"
#include "runtime/error.h"

/* ---- intervals -------------------------------------------------------- */

/* One activity of one rank: a kernel, memcpy or memset, or a host
 * communication mark (kind host on lane p2p/coll: the host itself carrying
 * a halo exchange or a reduction, probes/README.md). 32 bytes, so a 1 GB
 * trace keeps at most a third of its size in memory. */
typedef struct tl_an_ival {
    int64_t start, end;  /* ns, trace clock */
    int32_t iter;        /* -1 outside an iteration */
    uint32_t name;       /* id in tl_an_names */
    uint16_t stream;     /* rank-local stream index (tl_an_rank.streams) */
    uint8_t lane, cat;   /* tl_role, tl_cat */
    uint8_t kind, group; /* tl_kind, tl_an_group */
    uint8_t flags;       /* TL_AN_F_* */
    uint8_t pad_;
} tl_an_ival;

/* flags: the part of a communication operation spent before its last rank
 * arrived (match.c), and the rest of an operation split so (not counted
 * again as an activity). */
enum { TL_AN_F_WAIT = 1, TL_AN_F_SPLIT = 2 };

/* Overlap classes of the sweep: one bit each. P2P and COLL are
 * communication doing work (transfer); P2P_WAIT and COLL_WAIT the same
 * operations while they wait for the last rank to arrive (match.c).
 * Communication is NCCL kernels, copies on a p2p/coll lane (staging, peer
 * copies) and the host's communication marks. */
enum {
    TL_AN_C_COMPUTE = 1, TL_AN_C_P2P = 2, TL_AN_C_COLL = 4, TL_AN_C_OTHER = 8,
    TL_AN_C_P2P_WAIT = 16, TL_AN_C_COLL_WAIT = 32, TL_AN_NCLASS = 6, TL_AN_NMASK = 64,
    TL_AN_C_COMM = TL_AN_C_P2P | TL_AN_C_COLL,
    TL_AN_C_P2P_ALL = TL_AN_C_P2P | TL_AN_C_P2P_WAIT,
    TL_AN_C_COLL_ALL = TL_AN_C_COLL | TL_AN_C_COLL_WAIT,
    TL_AN_C_COMM_ALL = TL_AN_C_P2P_ALL | TL_AN_C_COLL_ALL,
};
int tl_an_ival_class(const tl_an_ival *v);
/* A host range of a rank without GPU activity, its compute:* marks (the
 * loader keeps them only there, group TL_AN_G_COMPUTE): its compute. */
int tl_an_ival_is_host_compute(const tl_an_ival *v);
/* Is it one of the activities communication consists of (any class above
 * with P2P/COLL, waiting or not)? */
int tl_an_ival_is_comm(const tl_an_ival *v);
/* A communication operation that can be matched across ranks: an NCCL
 * kernel or a host communication mark (copies are parts of those). */
int tl_an_ival_is_comm_op(const tl_an_ival *v);
/* Does activity v count in the selection [w0, w1): time inside it, or, of
 * no length, starting in it? Every count of a selection asks this (the
 * "# communication:" line, the waiting table, diagnose's staging copies),
 * so a count and the times summed beside it cover the same records. */
int tl_an_ival_in_selection(const tl_an_ival *v, int64_t w0, int64_t w1);
/* Is the host mark named `name` a non-blocking post (trilap's split-phase
 * operations: "p2p:halo_post", "coll:allreduce_post")? It returns once
 * posted, waiting for no peer: its time is no waiting (match.c). */
int tl_an_mark_is_post(const char *name);

/* Sort by start (then longer first, so containers come before contents). */
void tl_an_ival_sort(tl_an_ival *v, size_t n);

/* Raw sums of one window or slice, ns. Ratios are derived by the
 * tl_an_m_* helpers so sums over slices stay exact. */
typedef struct tl_an_metrics {
    int64_t w;                /* window (slice) length */
    int64_t by_mask[TL_AN_NMASK]; /* time during which exactly that set of classes is busy */
    int64_t sum_compute;      /* Σ compute-kernel durations (clipped) */
    int64_t launch_gaps;      /* idle stretches no longer than the launch-gap threshold */
    int64_t ncompute, np2p, ncoll, nother; /* activities starting in it */
} tl_an_metrics;

int64_t tl_an_m_union(const tl_an_metrics *m, int classes); /* |any of classes busy| */
int64_t tl_an_m_inter(const tl_an_metrics *m, int classes); /* |all of classes busy| */
/* |for each of the n groups, at least one of its classes busy| */
int64_t tl_an_m_cover(const tl_an_metrics *m, const int *groups, int n);
int64_t tl_an_m_idle(const tl_an_metrics *m);
/* Ratios, NaN when the denominator is 0 (printed "-" with the reason). On
 * transfer time (waiting for a late rank is not communication hidden):
 *   hidden  |comm ∩ compute| / U(comm)       triple |p2p ∩ coll ∩ compute| / W
 * on the operations' whole time (the figures before wave 3):
 *   hidden_all, triple_all, and comm_comm |p2p ∩ coll| / min(U(p2p), U(coll)). */
double tl_an_m_hidden(const tl_an_metrics *m);
double tl_an_m_hidden_all(const tl_an_metrics *m);
double tl_an_m_ccover(const tl_an_metrics *m);
double tl_an_m_triple(const tl_an_metrics *m);
double tl_an_m_triple_all(const tl_an_metrics *m);
/* Communication exposed: U(comm, waiting included) not under compute. */
int64_t tl_an_m_exposed(const tl_an_metrics *m);
/* Time communication only waits: U(comm, waiting included) − U(comm transfer). */
int64_t tl_an_m_waiting(const tl_an_metrics *m);
int64_t tl_an_m_derived(const tl_an_metrics *m); /* W − Σ compute-kernel durations */
/* Whether the compute kernels' sum, each clipped to the window, exceeds
 * it: kernels that ran at once, where W − Σ compute (the paper's method,
 * one kernel at a time) goes negative; overlap says so under its table. */
int tl_an_m_compute_overlaps_w(const tl_an_metrics *m);
void tl_an_m_add(tl_an_metrics *acc, const tl_an_metrics *m);

/* The sweep over intervals sorted by start, clipped to [w0, w1). Slices
 * (per-iteration windows) are [bounds[k], bounds[k+1]) and the last one
 * [bounds[nb-1], w1); bounds ascending. `slices` (nb entries) may be NULL
 * when nb = 0. Idle stretches of at most gap_ns count as launch gaps. */
tl_status tl_an_sweep(const tl_an_ival *v, size_t n, int64_t w0, int64_t w1, const int64_t *bounds,
                      size_t nb, int64_t gap_ns, tl_an_metrics *whole, tl_an_metrics *slices);

/* Union of one class as disjoint sorted segments [2k, 2k+1]. */
tl_status tl_an_union_segments(const tl_an_ival *v, size_t n, int classes, int64_t **seg, size_t *nseg);
/* Overlap of [s, e) with the segments. */
int64_t tl_an_overlap_with(const int64_t *seg, size_t nseg, int64_t s, int64_t e);

/* ---- names and kernel categories -------------------------------------- */

typedef struct tl_an_names tl_an_names;
tl_status tl_an_names_create(tl_an_names **out);
void tl_an_names_destroy(tl_an_names **n);
tl_status tl_an_names_intern(tl_an_names *n, const char *s, uint32_t *id);
const char *tl_an_names_get(const tl_an_names *n, uint32_t id);
size_t tl_an_names_count(const tl_an_names *n);
/* What people read: the demangled name, and the short one (Nsight Systems'
 * way: function name without scope, template arguments, parameters). The
 * trace keeps the name as CUPTI gave it (mangled). */
const char *tl_an_names_full(const tl_an_names *n, uint32_t id);
const char *tl_an_names_short(const tl_an_names *n, uint32_t id);

/* analysis/demangle.c: abi::__cxa_demangle (libstdc++); names that are not
 * mangled C++ (extern "C", nvjet_...) come back as they are; *full malloc'd. */
tl_status tl_an_demangle(const char *name, char **full);
void tl_an_qualified_name(const char *full, char *out, size_t n); /* "ns::f" of "void ns::f<T>(int)" */
void tl_an_short_name(const char *full, char *out, size_t n);     /* "f" */

/* Categories of the breakdown (table in analysis/README.md). */
typedef enum {
    TL_AN_G_SPMV, TL_AN_G_FUSED, TL_AN_G_DOT, TL_AN_G_PRECOND, TL_AN_G_PACK, TL_AN_G_AXPY,
    TL_AN_G_ALLREDUCE, TL_AN_G_COLL, TL_AN_G_P2P, TL_AN_G_MEMCPY, TL_AN_G_MEMSET, TL_AN_G_COMPUTE,
    /* library families of foreign programs (after the first 12: cat_id of the timeline is stable) */
    TL_AN_G_GEMM, TL_AN_G_CUTLASS, TL_AN_G_SPARSE, TL_AN_G_DNN, TL_AN_G_ELEMENTWISE, TL_AN_G_REDUCTION,
    TL_AN_G_HOST_COMM, /* the host carrying communication itself: a range on a p2p or coll lane */
    TL_AN_G_COUNT
} tl_an_group;
tl_an_group tl_an_group_of(tl_kind kind, tl_cat cat, const char *name);
/* The same for an interned name, without demangling again. */
tl_an_group tl_an_names_group(const tl_an_names *n, uint32_t id, tl_kind kind, tl_cat cat);
const char *tl_an_group_name(tl_an_group g);
/* Is a copy, by its name's direction ("memcpy DtoD", "memcpy PtoP", Kineto's
 * "Memcpy DtoD (Device -> Device)"), one between device memories: NCCL's
 * own copies, peer copies, which no host stages? A name without a
 * direction is not (it may be staged). */
int tl_an_copy_is_device(const char *name);

/* ---- runs --------------------------------------------------------------- */

typedef struct tl_an_meta {
    char path[1024];
    int rank, nranks, device;
    int rank_by_place;     /* the source names no rank (a Kineto trace without distributedInfo): the
                            * run's loaders give it one (tl_an_rank_unclaimed), as import names its file */
    char host[128], device_name[128];
    int64_t w0, w1;        /* window from metadata, or first start .. last end */
    int window_from_meta;
    int window_cut;        /* the file was cut short: w1 is its last record's start, not where the window
                            * ended (tl_an_window_cut_say) */
    int64_t cut_ns[2];     /* window_cut: the window's length so, and as the metadata said */
    int complete;          /* complete=yes (or absent) */
    int iters_from_host;   /* iteration bounds from the host's "iter" ranges (tl_an_rank) */
    int64_t dropped;
    /* clock alignment to rank 0 (probes/clock_align.c), applied by tl_an_scan
     * unless TL_AN_RAW_CLOCK: t_rank0 = t - (offset + (t - at) * drift_ppb / 1e9) */
    int clock_aligned;
    char clock_sync[32];   /* metadata clock_sync, "none" without */
    char clock_shared[16]; /* "process", "host": rank 0's very clock, no offset applied (load_meta.c); "" */
    int64_t clock_offset, clock_at, clock_unc;
    double clock_drift_ppb;
    char clock[64];        /* the clock the source writes: CLOCK_MONOTONIC, nsys-session, kineto-host; "?" */
    char program[64];      /* the program traced (metadata program=: trilap-fdtd, or an injected program's
                            * name); "" where the source names none (Nsight Systems, Kineto) */
    /* iterations a run of the loop went back to and ran again (iters.c:
     * cg_async's restart in benchmark mode), numbered on over the window,
     * so from there the numbers printed are not the program's: how many
     * times, the first such: its number as traced, the one before it, and
     * its number over the window */
    int64_t reruns, rerun_iter, rerun_after, rerun_num;
    /* GPU rows neither CUPTI nor Nsight Systems records, as a Kineto trace
     * holds them (an edited or synthetic trace; kineto_records.c): rows
     * lasting over a day, rows starting more than 1 us before the previous
     * one on their stream ended, and the most by which one did (us) */
    int64_t odd_long, odd_overlap;
    double odd_overlap_us;
    /* --align-clocks (tl_an_run_overlap): the offset to the first rank
     * estimated from the ends of clock_ends matched collectives and applied
     * to the cross-rank figures; clock_ends 0: none estimated. clock_ends_est
     * is the estimate itself, which a rank reading rank 0's very clock
     * (clock_shared) does not get: its clock_est is 0 */
    int64_t clock_est, clock_ends_est;
    size_t clock_ends;
    /* An Nsight Systems rank without trilap's iter ranges: its NVTX ranges
     * that look like steps (`step 3`: "step", 3 or more; nsys_iters.c's
     * tl_an_nsys_steps_hint picks the name), for the refusal to name
     * --iter-nvtx (count 0: none) */
    char nvtx_steps_name[64];
    int64_t nvtx_steps;
    /* GPU and API records the probes gave this rank by the last rule,
     * the guess (metadata owner_guess; probes/README.md "Which rank a
     * record belongs to"): ranks sharing a GPU and a process */
    int64_t owner_guess;
} tl_an_meta;

/* How the ranks of a run were put on one clock, in one line for the
 * output ("ranks aligned to rank 0 by offsets measured ...", "each rank on
 * its own host's clock, offsets unknown: ..."), from their metadata. m[k]
 * is at (const char *)m + k * stride (the meta of a result array). */
void tl_an_clock_say(const tl_an_meta *m, size_t n, size_t stride, char *out, size_t len);
/* Which ranks' files hold records whose rank the probes guessed, and how
 * many, in one line for a "# note:" (out), or NULL where none does: the
 * per-rank figures of those ranks may mix ranks' records. m as above. */
const char *tl_an_guessed_owners_say(const tl_an_meta *m, size_t n, size_t stride, char *out, size_t len);

/* tl_an_scan flag (beside TL_TRACE_ACCEPT_INCOMPLETE): times as written;
 * tl_an_run_overlap / tl_an_ops_build flag: the ranks' clock offsets
 * estimated from the ends of matched collectives and applied to the
 * cross-rank figures (--align-clocks); tl_an_scan / tl_an_run_files flag
 * TL_AN_QUIET: a file read again in the same command, whose warnings and
 * progress line the first reading gave (said once, not per pass) */
enum { TL_AN_RAW_CLOCK = 1 << 8, TL_AN_ALIGN_ENDS = 1 << 9, TL_AN_PROGRESS = 1 << 10, TL_AN_QUIET = 1 << 11 };
/* Reading a rank file of at least this many records (its metadata's
 * records=) draws a progress line on a terminal; with TL_AN_PROGRESS
 * (--progress) every file does, on a terminal or not. */
#define TL_AN_PROGRESS_RECORDS 1000000

/* Called for each record of a trace; non-zero status stops the scan. */
typedef tl_status (*tl_an_record_fn)(void *user, const tl_trace_record *r);

/* Stream one trace file: meta filled from the metadata (window fallback
 * computed from GPU activity), cb for each record. */
tl_status tl_an_scan(const char *path, int flags, tl_an_record_fn cb, void *user, tl_an_meta *meta);

/* ---- Nsight Systems exports (analysis/nsys.c) ----------------------------
 * An export (`nsys export --type sqlite`) stands wherever a run folder does:
 * tl_an_run_files lists its ranks as "FILE.sqlite#R" and tl_an_scan reads
 * them. Without sqlite3 in the build these fail saying so. */
int tl_an_is_nsys(const char *path); /* an SQLite file */
int tl_an_is_gzip_nsys(const char *path); /* an SQLite file compressed with gzip (unreadable in place) */
/* "FILE#R" naming rank R of an export, "FILE#R#iter-nvtx=SPEC" taking its
 * iterations from the NVTX ranges SPEC names (--iter-nvtx): 1 with file,
 * rank and iter_nvtx (NULL: trilap's iter ranges) set. */
#define TL_AN_NSYS_ITER_NVTX "#iter-nvtx="
int tl_an_nsys_path(const char *path, char *file, size_t n, int *rank, const char **iter_nvtx);
/* A rank file's name as a message says it: an export's rank FILE#R without
 * the --iter-nvtx spec its name carries for the reader (buf, n). */
const char *tl_an_file_said(const char *path, char *buf, size_t n);
tl_status tl_an_nsys_ranks(const char *path, int *nranks);
/* The NCCL kernels of rank `rank` of an export whose operation NCCL's NVTX
 * ranges tell (the range around the launch, or a group's operations:
 * "ncclAllReduce", "ncclSend+ncclRecv"; README "Nsight Systems exports"),
 * each handed to fn by its correlation id, p2p 1 for point-to-point. */
typedef tl_status (*tl_an_nsys_op_fn)(void *user, int64_t corr, const char *op, int p2p);
tl_status tl_an_nsys_nccl_ops(const char *path, int rank, tl_an_nsys_op_fn fn, void *user);

/* --iter-nvtx checked on every rank of an export before a command reads
 * it: what the ranges cannot give (no range of the name, nested ones,
 * two threads marking) is TL_ERR_INVAL, said in one line. */
tl_status tl_an_nsys_iter_check(const char *path, const char *iter_nvtx);
/* Metadata of an imported rank, as trilap trace keys (for `import`). */
typedef tl_status (*tl_an_nsys_meta_fn)(void *user, const char *key, const char *value);
/* The keys an imported rank's trace begins with, from its metadata:
 * format, version, rank, nranks, device, device_name (both readers). */
tl_status tl_an_meta_keys_head(const struct tl_an_meta *m, tl_an_nsys_meta_fn mfn, void *user);
/* iter_nvtx: NULL for trilap's iter ranges, else [DOMAIN:]NAME (nsys_iters.c) */
tl_status tl_an_nsys_scan(const char *path, int rank, const char *iter_nvtx, tl_an_record_fn cb, void *user,
                          struct tl_an_meta *meta, tl_an_nsys_meta_fn mfn);

/* ---- PyTorch profiler (Kineto) traces (analysis/kineto*.c) ---------------
 * A Kineto trace (.json or .json.gz, one per rank) stands wherever a run
 * folder does, and so does a folder of them (ranks from distributedInfo).
 * A .json.gz in a build without zlib fails saying so. */
int tl_an_is_kineto(const char *path); /* a file whose JSON text starts with '{' (or a .json.gz) */
int tl_an_json_name(const char *name); /* a name a Kineto trace goes by: .json or .json.gz, in any case */
/* An input that is no Kineto trace refused with why, where its contents
 * say: a file of gzip inside gzip or of text that is no JSON object, a
 * folder of .json files none of which is a trace (the first one's reason):
 * "path: why". TL_OK where nothing here says (the caller's line stands).
 * A folder's first .json that its reader refuses (an empty file) fails
 * with the reader's one line, so the caller adds none. */
tl_status tl_an_kineto_refuse_other(const char *path);
/* A Kineto trace, or a folder holding one and no trilap rank file: a
 * question only, nothing said (tl_an_kineto_run_files reads and checks). */
int tl_an_is_kineto_run(const char *path);
/* The rank files of a Kineto trace or a folder of them, sorted by rank;
 * *found = 0 (and nothing listed) when `dir` is neither. */
tl_status tl_an_kineto_run_files(const char *dir, char ***files, size_t *nfiles, int *found);
/* A trace's distributedInfo rank and world size (-1 without) and whether
 * it holds activity (GPU rows, steps, collectives), read up to the first. */
tl_status tl_an_kineto_head(const char *path, int *rank, int *world, int *activity);
/* bar (NULL: none): the traceEvents read, on a progress line begun by the caller */
struct tl_progress;
tl_status tl_an_kineto_scan(const char *path, tl_an_record_fn cb, void *user, struct tl_an_meta *meta,
                            tl_an_nsys_meta_fn mfn, void *muser, struct tl_progress *bar);

/* trace.rank*.csv of a run dir, sorted by rank number (or the ranks of an
 * Nsight Systems export); free each and the array. The ranks must be
 * 0..n-1, each once, and agree with each file's rank= and nranks=
 * metadata; a name such as trace.rank01.csv is refused. flags: with
 * TL_TRACE_ACCEPT_INCOMPLETE a gap or disagreement is accepted and said on
 * stderr. */
tl_status tl_an_run_files(const char *dir, int flags, char ***files, size_t *nfiles);
/* The same, an Nsight Systems export's ranks named to take their
 * iterations from the NVTX ranges iter_nvtx names (NULL: trilap's) */
tl_status tl_an_run_files_nvtx(const char *dir, int flags, const char *iter_nvtx, char ***files, size_t *nfiles);
/* Inputs are files or folders: a FIFO or a device would block the open
 * until a writer comes, and the readers open a file more than once. 1 when
 * path exists and is neither (checked before any open; analysis/input.c,
 * below the readers and the loader, which all ask it). */
int tl_an_is_special(const char *path);
/* The refusal of an input no reader takes when its kind says why (a pipe
 * or a device, a gzip-compressed SQLite export, a text file named
 * .sqlite); TL_OK when nothing does, for the caller to say what it
 * expected. */
tl_status tl_an_input_kind(const char *path);
void tl_an_run_files_free(char ***files, size_t nfiles);
/* The rank of a trace that names none (a Kineto trace without
 * distributedInfo, tl_an_meta.rank_by_place): the smallest that none of
 * the n traces before it in the run holds, their ranks the ints at
 * (const char *)ranks + k * stride. Such traces take, in name order, the
 * ranks the others do not claim (0, 1, ... when none names one), and a
 * run's files come in that rank order (kineto.c), so each one's rank is
 * the first left by the files before it: every command and import number
 * them alike (analysis/input.c). */
int tl_an_rank_unclaimed(const int *ranks, size_t n, size_t stride);

/* What a communication kernel served, from a host row named "op:<key>"
 * that carries the kernel's correlation id and the message size in bytes
 * (the Kineto reader writes them at the launch call's times; the key is
 * the collective and its process group, "nccl:all_reduce on process group
 * 0 (default_pg, ranks 0-1)"). Kept per rank, sorted by start. */
typedef struct tl_an_oplabel {
    int64_t start;    /* the kernel's start (its interval's, before any split) */
    int64_t launch;   /* the start of the row: the launch call */
    uint32_t label;   /* id in tl_an_names of what findings call it: the key with the size */
    uint32_t key;     /* id of the key: what pairs it across ranks (match.c) */
    uint16_t stream;  /* rank-local stream index, as tl_an_ival.stream */
    /* a "wait:" row of the same correlation id (a Kineto trace's
     * cudaStreamWaitEvent recorded on the host only): the end of the other
     * stream's work it held the kernel behind, and its name; else 0 */
    int64_t held;
    uint32_t held_name;
} tl_an_oplabel;

/* An operation's name with its message size where known (bytes < 0: the
 * key alone): "nccl:all_reduce 8.2 MB on process group 0 (...)", the size
 * after the key's first word. */
void tl_an_op_label(const char *key, int64_t bytes, char *out, size_t n);
/* What stands between an operation and its process group in a key and its
 * label (the Kineto reader writes it, tl_kt_comm_key; diagnose reads the
 * group back out of a label). */
#define TL_AN_ON_PG " on process group "
/* How a Kineto send or recv (or batch) keyed by its channel begins
 * (tl_kt_comm_key): an operation paired with its other end alone; a
 * point-to-point key without it was paired across its process group
 * (match.c notes it). */
#define TL_AN_P2P_CHANNEL "nccl:p2p "

/* A host "iter" range: its start, its number as traced and its number
 * over the window (iters.c) */
typedef struct tl_an_hostiter {
    int64_t start, iter, num;
} tl_an_hostiter;

/* A rank's peers of its point-to-point operations: its trace's peers.<i>
 * lines (probes/trace.h), each name interned (nccl: the line names every
 * NCCL p2p kernel of the rank, "nccl:p2p"); a Kineto trace's are made by
 * its reader from the sends and recvs whose ends it names (tl_kt_emit).
 * None: a trace that names no peers (before the key, Nsight Systems, a
 * Kineto trace whose sends and recvs do not say their ends).
 * analysis/peers.c. */
typedef struct tl_an_peer_op {
    uint32_t name;
    int nccl;
    tl_trace_peers tp;
} tl_an_peer_op;
typedef struct tl_an_peers {
    tl_an_peer_op *op;
    size_t n;
} tl_an_peers;
/* The peers.<i> lines of an open trace, each checked (a rank that is not
 * one of the run's nranks or is self, a name given twice, a line past a
 * gap in the numbering: TL_ERR_PARSE in one line naming the file, the key
 * and the value); out NULL: checked only. */
tl_status tl_an_peers_read(const tl_trace_reader *rd, const char *path, int self, int nranks, tl_an_names *names,
                           tl_an_peers *out);
/* One line (key peers.<i>, its value) added to p, checked as above. */
tl_status tl_an_peers_add(tl_an_peers *p, const char *path, const char *key, const char *value, int self,
                          int nranks, tl_an_names *names);
void tl_an_peers_free(tl_an_peers *p);
/* The peers the rank names of the operation `name` (p2p_kernel: an NCCL
 * p2p kernel, which a nccl:p2p line covers), NULL where it names none. */
const tl_trace_peers *tl_an_peers_find(const tl_an_peers *p, uint32_t name, int p2p_kernel);

/* One rank's GPU activity intervals and iteration bounds. */
typedef struct tl_an_rank {
    tl_an_meta meta;
    tl_an_ival *v;
    size_t n, cap;
    uint64_t *streams;     /* stream index -> CUDA stream id */
    size_t nstreams, capstreams;
    int64_t *iter_start;   /* [iter]: first start of GPU activity of iter, INT64_MAX if none */
    size_t niter;          /* entries of iter_start */
    /* The host's "iter" ranges: the iteration bounds when no GPU activity
     * carries its iteration (iters_from_host = 1 then), as read (hit) and
     * each iteration's first start (host_start) */
    tl_an_hostiter *hit;
    size_t nhit, caphit;
    int64_t *host_start;
    size_t nhost;
    int iters_from_host;
    tl_an_oplabel *opl;    /* the operations its communication kernels served */
    size_t nopl;
    tl_an_peers peers;     /* the peers its trace names of its point-to-point operations */
} tl_an_rank;

/* The operation communication kernel v of rk served, or NULL when the
 * trace does not say (v a part split off at the last arrival: NULL). */
const tl_an_oplabel *tl_an_rank_oplabel(const tl_an_rank *rk, const tl_an_ival *v);

tl_status tl_an_rank_load(const char *path, int flags, tl_an_names *names, tl_an_rank *rk);
/* A window its metadata says ends more than a week and 100 times its
 * records' span past its last record (or starts so before its first): a
 * damaged or hand-edited header, refused in one line naming the file and
 * the field (analysis/window.c); tl_an_rank_load asks it of every rank
 * (before, W of years, every share diluted). */
tl_status tl_an_window_check(const tl_an_rank *rk);
/* The same, also handing every record to `also` in the same pass (what
 * the intervals do not keep: a copy's bytes), so a command that needs
 * more of the records than the intervals reads the file once. */
tl_status tl_an_rank_load_also(const char *path, int flags, tl_an_names *names, tl_an_rank *rk, tl_an_record_fn also,
                               void *user);
/* Iterations numbered over the window where the traced loop began again
 * (the iterations of rk->v, iter_start, host_start; iters.c). */
tl_status tl_an_rank_number_iters(tl_an_rank *rk);
/* The line saying why m's iteration numbers differ from the program's
 * after a rerun (m->reruns), in buf; NULL when they do not. */
const char *tl_an_reruns_say(const tl_an_meta *m, char *buf, size_t n);
/* The line saying m's trace holds such rows, in buf; NULL when none. */
const char *tl_an_odd_rows_say(const tl_an_meta *m, char *buf, size_t n);
/* Iteration numbers as traced, taken in time order, numbered over the
 * window (iters.c: a number not above the one before begins a new run of
 * the loop, numbered on after the highest so far); the first rerun or
 * number repeated is noted in m for tl_an_reruns_say. Start from
 * {.top = -1}; Kineto's collectives numbers its steps so too. */
typedef struct tl_an_iters_renumber {
    int64_t prev, top, off, first; /* the number before; the highest given; added to this run's; its first */
    int seen;
} tl_an_iters_renumber;
int64_t tl_an_iters_next(tl_an_iters_renumber *rn, int64_t k, tl_an_meta *m);
void tl_an_rank_free(tl_an_rank *rk);

/* Per-iteration slice bounds from iter_start (monotone), restricted to
 * iterations lo..hi (hi < 0: all). bounds/iters: nb entries, malloc'd.
 * w0, w1: in, the rank's window; out, the selection's: from the first
 * selected iteration's bound (the window start when that is the run's
 * first iteration, whose slice then begins there) to the next
 * iteration's bound (the window end when the last is selected), so the
 * slices partition the window. Unchanged when no iteration is selected. */
tl_status tl_an_rank_slices(const tl_an_rank *rk, int64_t lo, int64_t hi, int64_t **bounds,
                            int64_t **iters, size_t *nb, int64_t *w0, int64_t *w1);

/* ---- communication operations matched across ranks (analysis/match.c) -- */

/* An operation's place in the pairing: the seq-th of its key in its group,
 * in launch order. Where the trace names the operation (an "op:" row:
 * Kineto's collective and process group) the key is that name and the
 * group the iteration of the launch (ProfilerStep), as `collectives`
 * matches them; elsewhere (trilap's own traces) the key is the kernel's or
 * host mark's name and the group the whole trace (TL_AN_WHOLE). */
#define TL_AN_WHOLE INT64_MIN
typedef struct tl_an_opseq {
    int64_t group;          /* iteration of the launch, or TL_AN_WHOLE */
    int64_t launch, start;  /* ns: order within (group, key); ties by start, then `at` */
    uint32_t key;
    size_t at;              /* the caller's index */
    int64_t seq;            /* set: n-th of (group, key), from 0 */
} tl_an_opseq;
/* Sorts v by (group, key, launch, start, at) and numbers each (group, key). */
void tl_an_opseq_number(tl_an_opseq *v, size_t n);

typedef struct tl_an_op {
    uint32_t name;    /* the key: an operation the trace names, or an NCCL kernel's or host mark's name */
    uint32_t label;   /* what to call it: the first rank's label (with its size), else name */
    int named;        /* the trace named the operation (paired within its iteration) */
    int64_t group;    /* its iteration (named), or TL_AN_WHOLE */
    int64_t k;        /* ordinal among (group, name)'s operations, on every rank */
    int64_t iter;     /* the iteration of the last rank's part */
    int64_t first;    /* earliest start over the ranks */
    int64_t arrive;   /* latest start: the last rank arrives */
    int64_t first_end;/* earliest end: the ranks ran it together if arrive < first_end */
    int last_rank;    /* index (in rank-file order) of the last rank */
    int in_span;      /* set by tl_an_ops_split: counted on some rank (its part there has time in that rank's window) */
    int post;         /* a non-blocking post (tl_an_mark_is_post): it waits for nobody */
    int view;         /* -1: matched across every rank; else the rank file whose operation it is, matched with
                       * that rank's peers alone (its trace's peers.<i>: a halo waits for its neighbours) */
    uint32_t ranks;   /* view >= 0: "R:P,Q", the rank and the peers it paired with (a name id) */
} tl_an_op;

typedef struct tl_an_ops {
    size_t nranks;
    tl_an_op *op;     /* sorted by (group, name, k, view); times on the first rank's clock less offset */
    size_t nop, capop;
    size_t unmatched_names, unmatched_ops; /* (group, key)s whose count differs between ranks */
    int64_t *offset;  /* [rank file]: its clock minus the first's, estimated (TL_AN_ALIGN_ENDS), else 0;
                       * 0 also for a rank that reads the first's very clock (clock_shared) */
    int64_t *ends_est; /* [rank file]: the estimate, applied or not (data: the spread of the ends) */
    size_t offset_ends; /* matched operations the estimate rests on (0: none made) */
    /* point-to-point operation names matched across every rank of more than
     * two, since no trace names their peers; the first few of them */
    size_t p2p_all;
    uint32_t p2p_all_name[3];
} tl_an_ops;

/* Load every rank (one at a time) and match its communication operations:
 * a collective across every rank, the k-th of a name on each; a
 * point-to-point operation whose peers a trace names (peers.<i>) on each
 * rank with that rank's peers alone, one operation per rank (view), the
 * k-th on the rank with the k-th on each peer of set k mod nsets (a rank
 * whose trace names none of an operation others name: with every rank).
 * One rank: nothing to match (nop = 0). With TL_AN_ALIGN_ENDS in flags,
 * each rank's clock offset to the first is estimated from the matched
 * operations' ends (tl_an_offset_median of the differences: a collective
 * ends on its ranks together) and the operations' times are put on the
 * first rank's clock; a rank whose metadata says it reads the first's
 * very clock (clock_shared) keeps its times (ends_est holds the estimate). */
tl_status tl_an_ops_build(char *const *files, size_t nf, int flags, tl_an_names *names, tl_an_ops *o);
void tl_an_ops_free(tl_an_ops *o);
/* The note that point-to-point operations were matched across every rank
 * for want of peers (o->p2p_all), in buf, without "# note: "; NULL when
 * there is none to give. */
const char *tl_an_ops_pairing_say(const tl_an_ops *o, const tl_an_names *names, char *buf, size_t n);
/* The median of n differences (sorts d), 0 for none: the offset estimate
 * of match.c and `collectives`. */
int64_t tl_an_offset_median(int64_t *d, size_t n);
/* The ranks' kernels of op ran at the same time (the last started before
 * the first ended): a pair that did not is not one operation. */
int tl_an_op_together(const tl_an_op *op);
/* An operation whose ranks waited for each other: one that ran together
 * and is no post (a non-blocking post returns without its peers). Only
 * these have waiting, a last rank and a delay (match.c). */
int tl_an_op_waits(const tl_an_op *op);

/* Rank file f's matched operations split at the last arrival (on its own
 * clock: plus its offset): [start, arrive) flagged TL_AN_F_WAIT, [arrive,
 * end) appended (TL_AN_F_SPLIT); rk->v sorted again. rk must hold every
 * record of its rank (the ordinals count from the first). The sums are
 * over the rank's window [w0, w1) (its --iter-range selection), as every
 * other figure: an operation is counted where its part on the rank has time
 * in the window, and its waiting and transfer times are clipped to the
 * window (as the overlap metrics clip every activity), so what is counted
 * is what is summed; consecutive ranges add up in time, and count an
 * operation that straddles their boundary in both. Operations counted on
 * any rank get in_span (the most delayed operations of the selection). */
typedef struct tl_an_split_sum {
    uint32_t name;                /* an operation's name (id in tl_an_names); unused in the totals */
    int named;                    /* name is an operation the trace named (tl_an_op.named) */
    size_t matched;
    int64_t wait_ns, transfer_ns; /* Σ over the rank's matched operations */
} tl_an_split_sum;
typedef struct tl_an_split {
    size_t matched;
    int64_t wait_ns, transfer_ns;
    size_t last;                  /* of the matched, those the rank arrived last at (after another, the kernels running together) */
    size_t others_last;           /* those another rank arrived last at, the kernels running together */
    size_t together;              /* of the matched, those whose kernels ran on every rank at once (none: the
                                     ranks' clocks do not line up, or nothing paired) */
    size_t worst;                 /* index in tl_an_ops.op of the most delayed of those that ran together
                                     (SIZE_MAX: none delayed) */
    tl_an_split_sum *by_name;     /* the same per operation name; free with tl_an_split_free */
    size_t nnames, capnames;
} tl_an_split;
void tl_an_split_free(tl_an_split *s);
tl_status tl_an_ops_split(tl_an_ops *o, size_t f, tl_an_rank *rk, int64_t w0, int64_t w1, tl_an_split *sum);

/* "A:B", "A:", ":B", "A" -> lo, hi (hi = -1: open). */
/* A selection as the user wrote it: "A:B", or "A:" for one open at its end. */
const char *tl_an_iters_str(int64_t lo, int64_t hi, char *buf, size_t n);
tl_status tl_an_parse_iters(const char *s, int64_t *lo, int64_t *hi);
/* The open range 0:, every iteration: on a rank that marks none, its whole
 * window (every command reads it so; any other range selects nothing). */
int tl_an_iters_all(int64_t lo, int64_t hi);

/* "; it has 35 NVTX ranges 'step N': give --iter-nvtx 'step' ..." for an
 * export rank whose ranges look like steps (tl_an_meta.nvtx_steps), else "" */
const char *tl_an_steps_hint(const tl_an_meta *m, char *buf, size_t n);

/* s as one shell word in buf[n], for a command a line tells to type:
 * '...' with each ' as '\'' (a range named `it's step 3` was given as
 * --iter-nvtx 'it's step', which no shell takes as typed). */
const char *tl_an_sh_word(const char *s, char *buf, size_t n);
/* Why an option that works on iterations does not apply to input, which
 * marks none: "to IN: it marks no iterations (iter -1 everywhere), so SO",
 * and on an export with ranges that look like steps tl_an_steps_hint's
 * "; it has 35 NVTX ranges 'step N': give --iter-nvtx 'step' ..." (m NULL:
 * no rank read): overlap --per-iter and --iter-csv, timeline --count.
 * An --iter-range that selects nothing says it in tl_an_iters_had's words,
 * with the same hint. */
const char *tl_an_no_iters_say(const tl_an_meta *m, const char *input, const char *so, char *buf, size_t n);

/* The iterations a rank has: with GPU activity (or the host's, where its
 * GPU activity carries none), lo..hi, n of them (fewer than hi - lo + 1
 * where some have no activity); lo = hi = -1, n = 0 where it marks none. */
typedef struct tl_an_iter_span {
    int64_t lo, hi;
    size_t n;
} tl_an_iter_span;
tl_an_iter_span tl_an_rank_iter_span(const tl_an_rank *rk);
/* What a rank recorded that an --iter-range selects: TL_AN_ACT_GPU (a
 * kernel, copy or memset), else TL_AN_ACT_HOST (the host's own compute
 * and communication: a host-backend or CPU rank), else TL_AN_ACT_NONE;
 * and its name in a refusal ("no host activity in iterations 500:"). */
enum { TL_AN_ACT_NONE, TL_AN_ACT_HOST, TL_AN_ACT_GPU };
int tl_an_ival_activity(const tl_an_ival *v);
int tl_an_rank_activity(const tl_an_rank *rk);
const char *tl_an_activity_name(int activity);
/* The span of two ranks (or runs) together. */
tl_an_iter_span tl_an_iter_span_join(tl_an_iter_span a, tl_an_iter_span b);
/* What an --iter-range that selected nothing met, for its refusal: "the
 * run has iterations 0..199", "its file, cut short, has iterations
 * 0..119" of a rank's file cut short; or, where the trace marks none, that, and
 * how a program marks them for the source that wrote it (meta->clock:
 * NVTX ranges for an Nsight Systems export, ProfilerStep for a PyTorch
 * profiler trace, the probes' iteration calls for trilap's). Before, the
 * refusal said only "no GPU activity in iterations 500:600". */
const char *tl_an_iters_had(tl_an_iter_span have, const tl_an_meta *m, char *buf, size_t n);
/* A window shortened because its file was cut short (tl_an_meta.window_cut),
 * in words for a rank's line: "its file cut short, so judged over the
 * window its records cover: 5499.5 us to its last record's start, of the
 * 11000.0 us its metadata says"; "" for a window as written. */
const char *tl_an_window_cut_say(const tl_an_meta *m, char *buf, size_t n);
/* The selection --iter-range lo:hi made, for a table's preamble: the
 * iterations used (first..last selected, `used`), and where they are not
 * the ones asked for, why: "150:199 (--iter-range 150:250 clipped: the
 * run has iterations 0..199)"; before, "150:250" of a run of 200. */
const char *tl_an_selection_say(int64_t lo, int64_t hi, tl_an_iter_span used, tl_an_iter_span have, char *buf,
                                size_t n);

/* ---- tables ------------------------------------------------------------- */

typedef struct tl_an_table tl_an_table;
tl_status tl_an_table_create(tl_an_table **t, const char *title);
void tl_an_table_destroy(tl_an_table **t);
/* Column with its unit ("us", "%", "" for none); right-aligned unless text
 * (1: text, cut to 60 characters when printed unless it is the last
 * printed column, the footer says how many; 3: a label (a run's), printed
 * whole; 2: text written to the CSV only). Printed text is one field for a
 * reader that splits rows on blanks: in double quotes, its quotes doubled,
 * when it holds a blank, a control character or a double quote, or is
 * empty; in the CSV every field is one as RFC 4180 reads it
 * (tl_an_csv_put). */
tl_status tl_an_table_col(tl_an_table *t, const char *name, const char *unit, int text);
tl_status tl_an_table_meta(tl_an_table *t, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tl_status tl_an_table_row(tl_an_table *t); /* starts a row */
tl_status tl_an_table_str(tl_an_table *t, const char *s);
tl_status tl_an_table_fmt(tl_an_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
tl_status tl_an_table_num(tl_an_table *t, double v, int decimals); /* NaN -> "-" */
tl_status tl_an_table_int(tl_an_table *t, int64_t v);
size_t tl_an_table_nrows(const tl_an_table *t);
void tl_an_table_print(const tl_an_table *t, FILE *out);
/* CSV, units in the names (total_us), atomically written. */
tl_status tl_an_table_write_csv(const tl_an_table *t, const char *path);
/* One CSV field of free text written whole to f: runtime's
 * tl_results_field (quoted only where it holds a comma, a double quote, CR
 * or LF; always: tl_results_quote, in quotes whatever it holds), with a
 * buffer of its size so that a long name is not cut. */
tl_status tl_an_csv_put(FILE *f, const char *s, int always);


/* ---- results CSV (microbenchmark results) ------------------------------ */

typedef struct tl_an_result {
    /* the variant column; in a trilap-solve results file (no variant
     * column) solver/precond/schedule/backend:matrix */
    char variant[192];
    int nranks;
    double x;                  /* value of the x column (sweeps); 0 without one */
    int64_t n;                 /* repetitions whose results passed their check */
    int64_t wrong;             /* repetitions left out: their wrong column was not 0 */
    double median, min, max;   /* us_per_iter over the n kept; NaN where n is 0 */
} tl_an_result;
/* Groups by (variant, nranks[, xcol]) in first-seen order; *out malloc'd.
 * Reads microbenchmark results (variant, nranks, us_per_iter) and
 * trilap-solve --results files (solver, schedule, ..., nranks, us_per_iter).
 * xcol: a numeric column to group by too (a sweep's size), or NULL; a
 * file without it fails TL_ERR_INVAL naming the columns it has (the
 * caller's value does not fit: a usage refusal), other failures are
 * TL_ERR_PARSE, TL_ERR_IO or TL_ERR_NOMEM.
 * A group's rows are repetitions of one configuration: rows that differ
 * in another column than the measured ones (rep, us_per_iter, wrong,
 * iterations, residuals, times, converged, reason) are refused. A row
 * whose wrong column is not 0 (its results failed their check) is counted
 * in `wrong` and left out of the times: a broken run's speed is no
 * measurement of the configuration. */
tl_status tl_an_results_read(const char *path, const char *xcol, tl_an_result **out, size_t *nout);

/* ---- subcommands (argv[0] is the subcommand name) ----------------------- */

int tl_an_cmd_breakdown(int argc, char **argv);
int tl_an_cmd_overlap(int argc, char **argv);
int tl_an_cmd_diagnose(int argc, char **argv);
int tl_an_cmd_timeline(int argc, char **argv);
int tl_an_cmd_perfetto(int argc, char **argv);
int tl_an_cmd_compare(int argc, char **argv);
int tl_an_cmd_sweep(int argc, char **argv);
int tl_an_cmd_import(int argc, char **argv);
/* `trilap-analyze collectives` (kineto_comm.c): every NCCL kernel with
 * its operation, process group, launch delay and what it waited behind;
 * the operations matched across the ranks given, with their skew;
 * communication concurrency per rank. */
int tl_an_cmd_collectives(int argc, char **argv);

/* Shared by overlap, diagnose, compare: the metrics of one run. */
typedef struct tl_an_rank_result {
    tl_an_meta meta;
    tl_an_metrics whole;
    tl_an_metrics *slices; /* per iteration; NULL unless opts.slices (see there) */
    int64_t *iters;        /* iteration numbers of the slices */
    int64_t *iter_w;       /* slice lengths (iteration times), always */
    size_t nslices;
    tl_an_split split;     /* its communication operations matched across ranks (whole trace) */
    int64_t n_marks;       /* host communication marks, n_comm_copies: copies on p2p/coll lanes (with time in the window) */
    int64_t n_comm_copies;
    int64_t n_nccl;        /* NCCL kernels */
    int64_t n_gpu_compute; /* compute kernels, n_host_compute: its host's compute ranges (with time in the window) */
    int64_t n_host_compute;
    tl_an_iter_span have;  /* the iterations it has, whatever the selection */
} tl_an_rank_result;

/* tl_an_selection_say of a run's ranks: the iterations their slices hold
 * (used) and have, joined over the ranks; what overlap, timeline and
 * perfetto print of --iter-range lo:hi. */
/* A trace of some of a run's ranks (a Kineto trace's world_size, an
 * import's nranks= with rank_subset=yes, above the ranks read): the
 * metadata's world size, or 0 for a whole run; with `buf`, the "# ranks:"
 * text naming the ranks present ("1 of 8: rank 3 (...)"). Waiting for an
 * absent rank is not in the trace (cmd_overlap.c). */
int tl_an_ranks_subset(const tl_an_rank_result *res, size_t nr, char *buf, size_t n);
const char *tl_an_results_selection_say(const tl_an_rank_result *res, size_t nr, int64_t lo, int64_t hi, char *buf,
                                        size_t n);

typedef struct tl_an_overlap_opts {
    int flags;            /* TL_TRACE_ACCEPT_INCOMPLETE */
    int64_t iter_lo, iter_hi;
    int64_t gap_ns;       /* launch-gap threshold */
    int slices;           /* per-iteration metrics: 0 none, 1 for `each` only, 2 kept in the result */
    int match;            /* 1: split communication into waiting and transfer (match.c); 0: whole kernels */
    tl_an_ops *ops_out;   /* if set: receives the matched operations (the caller frees them) */
    const char *iter_nvtx; /* --iter-nvtx: an export's iterations from these NVTX ranges (NULL: trilap's) */
} tl_an_overlap_opts;

/* Per rank, one rank file at a time (memory: the largest rank's intervals).
 * `each` (may be NULL) sees every rank's loaded intervals before they are
 * freed, sorted by start. */
typedef tl_status (*tl_an_rank_fn)(void *user, const tl_an_rank *rk, const tl_an_rank_result *res);
tl_status tl_an_run_overlap(const char *dir, const tl_an_overlap_opts *o, tl_an_names *names,
                            tl_an_rank_fn each, void *user, tl_an_rank_result **out, size_t *nranks);
void tl_an_rank_results_free(tl_an_rank_result **r, size_t n);
/* A rank whose trace has no GPU lanes: no device, no kernel, copy or NCCL
 * record (a host-backend run). Its derived communication is undefined. */
int tl_an_rank_host_only(const tl_an_rank_result *r);

/* The median of x[0..n), sorted in place: the middle value, or the mean
 * of the two middle ones; NAN when n is 0. */
double tl_an_median(double *x, size_t n);

/* A rank's iteration times in us, its slices' lengths: min, median
 * (tl_an_median) and max; NAN each without slices. */
tl_status tl_an_iter_times(const tl_an_rank_result *r, double *min, double *median, double *max);

#endif
