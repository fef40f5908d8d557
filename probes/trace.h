/* trilap trace v1: one CSV per rank (trace.rank<R>.csv). Leading
 * "# key=value" metadata lines, then the header row
 *   rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter
 * and one row per activity. `name` is quoted RFC 4180-style when it holds a
 * comma, a quote or a newline. See probes/README.md for every field.
 *
 * Metadata keys written by the probes (readers must accept unknown keys):
 *   format=trilap-trace  version=1  rank  nranks  host  device  device_name
 *   clock=CLOCK_MONOTONIC  program  args  cuda  nccl  cupti
 *   window_start_ns  window_end_ns  (the measured window; metrics use it)
 *   dropped=N  complete=yes|no  (no when CUPTI dropped records or was skipped)
 *   cupti_status=on|off|skipped-subscriber|unavailable
 *   rank_from  (the injection's: the launcher variable that gave the rank,
 *   claim, or none; nranks is then left out where no size variable was set)
 *   peers.0, peers.1, ...  (the ranks each point-to-point operation involves
 *   on this rank: tl_trace_peers below) */
#ifndef TL_TRACE_H
#define TL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/error.h"
#include "runtime/marks.h"
#include "runtime/role.h"

typedef enum { TL_CAT_COMPUTE, TL_CAT_P2P, TL_CAT_COLL, TL_CAT_MEMCPY, TL_CAT_MEMSET,
               TL_CAT_SYNC, TL_CAT_RANGE, TL_CAT_COUNT } tl_cat;
typedef enum { TL_KIND_KERNEL, TL_KIND_MEMCPY, TL_KIND_MEMSET, TL_KIND_SYNC, TL_KIND_NVTX,
               TL_KIND_HOST, TL_KIND_COUNT } tl_kind;

typedef struct tl_trace_record {
    int32_t rank, device;   /* device -1 for host activity */
    uint64_t stream;        /* CUDA stream id (CUPTI streamId); 0 for host */
    tl_role lane;
    tl_cat cat;
    tl_kind kind;
    const char *name;       /* reader: valid until the next tl_trace_read_next */
    int64_t start_ns, end_ns;
    uint64_t corr;          /* CUPTI correlation id, 0 when none */
    int64_t bytes;          /* bytes moved when known, -1 otherwise */
    int64_t iter;           /* enclosing iteration, -1 outside */
} tl_trace_record;

const char *tl_cat_name(tl_cat c);
const char *tl_kind_name(tl_kind k);
tl_status tl_cat_parse(const char *s, tl_cat *out);
tl_status tl_kind_parse(const char *s, tl_kind *out);

/* NCCL kernels by name, old (ncclKernel_*) and new (ncclDevKernel_*)
 * naming, mangled or not: SendRecv/Send/Recv -> TL_CAT_P2P;
 * AllReduce, ReduceScatter, AllGather, Broadcast, Reduce -> TL_CAT_COLL;
 * anything else -> TL_CAT_COMPUTE. */
tl_cat tl_trace_classify_kernel(const char *name);

/* What an NCCL kernel name says. NCCL 2.19+ may launch one "Generic" kernel
 * (ncclDevKernel_Generic, _Generic_1/_2/_4) for grouped or mixed work, whose
 * operation the name does not tell; tl_trace_classify_kernel counts it as
 * coll, tl_trace_classify_kernel_lane as p2p on a p2p lane, coll elsewhere.
 * An NCCL kernel with an operation not listed above counts as coll, and
 * so does NCCL's one-rank reduce kernel (oneRankReduce<...>, the ncclAvg
 * allreduce of a 1-rank communicator). */
typedef enum { TL_NCCL_NONE = 0, TL_NCCL_P2P, TL_NCCL_COLL, TL_NCCL_GENERIC } tl_nccl_kind;
tl_nccl_kind tl_trace_nccl_kernel(const char *name);
tl_cat tl_trace_classify_kernel_lane(const char *name, tl_role lane);

/* The lane of a stream nobody registered, from the NCCL kernels it ran
 * (counted with tl_trace_nccl_kernel; GENERIC counts as coll): p2p where
 * p2p kernels are the most, coll where any collective ran, else compute.
 * The one rule of the injection library and the Nsight Systems reader. */
tl_role tl_trace_lane_of_stream(uint64_t p2p, uint64_t coll);

/* Offset of the first byte of s that does not belong to a well-formed
 * UTF-8 sequence (overlong forms, surrogates and code points above
 * U+10FFFF included), (size_t)-1 when s is valid. The reader refuses a
 * name that is not; the readers of other formats refuse one before
 * writing it, so what import writes reads back. */
size_t tl_trace_utf8_bad(const char *s);
/* s cut at its first byte that tl_trace_utf8_bad finds: a name put
 * together in a fixed buffer from valid parts is cut in the middle of a
 * character only at its end, and must not carry the half into a trace. */
void tl_trace_utf8_cut(char *s);

/* One "streamId:lane" item of TRILAP_LANES (lane a tl_role name); 0 when
 * it is not one. */
int tl_trace_lane_item(const char *item, uint64_t *stream, tl_role *lane);

/* TRILAP_LANES="streamId:lane,...", read alike by the injection library
 * and the Nsight Systems reader: every item a stream id below 2^32 and a
 * lane, no empty item, no stream given twice, at most TL_TRACE_MAX_LANES.
 * TL_ERR_PARSE with the reason in why (one line naming the item) where it
 * is not so: before, an empty item was skipped and a stream given twice
 * took whichever lane came first, without a word. */
enum { TL_TRACE_MAX_LANES = 64 };
typedef struct tl_trace_lanes {
    int n;
    uint32_t id[TL_TRACE_MAX_LANES];
    tl_role lane[TL_TRACE_MAX_LANES];
} tl_trace_lanes;
tl_status tl_trace_lanes_parse(const char *spec, tl_trace_lanes *out, char *why, size_t nwhy);
/* The lane spec gives stream id, or 0 when it names none. */
int tl_trace_lanes_find(const tl_trace_lanes *l, uint64_t id, tl_role *lane);

/* ---- peers of an operation (probes/README.md "Peers of an operation") ----
 * One metadata line per operation name, keys numbered from 0 with no gap:
 *   # peers.<i>=<sets> <name>
 * <name> the operation as its rows name it (a host mark, "p2p:staged
 * exchange"), or "nccl:p2p" for every NCCL point-to-point kernel of the
 * rank; <sets> the ranks it involves besides this one, ascending,
 * comma-separated, "none" for none, and where the operation alternates
 * between neighbour sets, several sets separated by ';': its k-th instance
 * (from 0) involves set k mod (the number of sets). The name comes last so
 * that it may hold blanks, ';' and ','. */
#define TL_TRACE_PEERS_KEY "peers."
typedef struct tl_trace_peers {
    char *name;
    int nsets;  /* >= 1 */
    int *first; /* nsets + 1 entries: set s is rank[first[s]] .. rank[first[s + 1] - 1] */
    int *rank;
} tl_trace_peers;
/* The name the trace gives the operation `what` of tl_mark_peers on
 * `lane`: the mark's rows' "p2p:what" ("coll:" on the coll lane), and
 * "nccl:p2p" for TL_MARK_NCCL_KERNELS. */
void tl_trace_peers_name(tl_role lane, const char *what, char *buf, size_t n);
/* The value of name's line (malloc'd in *out): each set sorted, without
 * repeats and without `self` (this rank). */
tl_status tl_trace_peers_format(const char *name, int self, const tl_mark_peerset *sets, int nsets, char **out);
/* A line's value read back: TL_ERR_PARSE with the reason in why (a rank
 * that is not a number, not below nranks (when nranks > 0), `self`, or
 * twice in one set; no name). */
tl_status tl_trace_peers_parse(const char *value, int self, int nranks, tl_trace_peers *out, char *why, size_t nwhy);
void tl_trace_peers_free(tl_trace_peers *p);

/* A rank's trace file: trace.rank<R>.csv or, gzipped, trace.rank<R>.csv.gz
 * (the reader reads both where zlib is built in; .gz in any case).
 * tl_trace_rank_of_name:
 * R of such a file name (decimal, no leading zeros); -1 not a rank file at
 * all; -2 a rank file name that cannot be trusted (trace.rank01.csv, a
 * rank beyond int), refused since trace.rank1.csv may stand beside it.
 * tl_trace_rank_path: dir's file of rank R, the plain one unless only the
 * gzipped one is there. */
int tl_trace_rank_of_name(const char *name);
void tl_trace_rank_path(const char *dir, int rank, char *buf, size_t cap);

/* The header row, without the newline; rows longer than TL_TRACE_MAX_ROW
 * bytes are rejected by the reader (it keeps one row in memory). */
#define TL_TRACE_HEADER "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter"
enum { TL_TRACE_NFIELDS = 12, TL_TRACE_MAX_ROW = 65536 };
/* A record's name or a metadata value longer than this is written cut, at
 * a character's start, and marked ("...[70000 bytes, cut]"), so that every
 * row the writer writes fits the reader's TL_TRACE_MAX_ROW, quotes doubled
 * and all (a C++ kernel's mangled name can run to tens of kilobytes). */
enum { TL_TRACE_MAX_TEXT = 16384 };
/* Times (start_ns, end_ns, the window, clock offsets) lie within
 * +-2^61 ns (73 years): the difference of two and the sum of two such
 * differences cannot overflow int64, so no later arithmetic on them can.
 * The reader refuses anything outside. */
#define TL_TRACE_MAX_NS ((int64_t)1 << 61)

/* ---- writer: temp file, renamed into place by close(commit=1) ---------- */
typedef struct tl_trace_writer tl_trace_writer;
tl_status tl_trace_writer_open(tl_trace_writer **w, const char *path);
tl_status tl_trace_writer_meta(tl_trace_writer *w, const char *key, const char *value);
tl_status tl_trace_writer_record(tl_trace_writer *w, const tl_trace_record *r); /* first call writes the header */
/* commit=1: flush, close, rename into place; 0: remove the temp file. */
tl_status tl_trace_writer_close(tl_trace_writer **w, int commit);

/* ---- streaming reader: memory does not grow with the file -------------- */
typedef struct tl_trace_reader tl_trace_reader;
enum { TL_TRACE_ACCEPT_INCOMPLETE = 1 };
/* Reads the metadata and header; rejects a missing header, another format
 * or version, metadata that cannot be true (rank >= nranks, a window
 * ending before it starts, times beyond TL_TRACE_MAX_NS, a records count
 * that is not a number) and (without the flag) complete=no, naming the
 * file. LF or CR LF line endings, one kind per file. */
tl_status tl_trace_reader_open(tl_trace_reader **r, const char *path, int flags);
const char *tl_trace_reader_meta(const tl_trace_reader *r, const char *key); /* NULL if absent */
/* 1: a record in *rec; 0: end of file; errors name file, row and reason
 * (bad number, a time beyond TL_TRACE_MAX_NS, end before start, unknown
 * lane/cat/kind, wrong field count, a NUL byte, a name that is not UTF-8,
 * truncated last row). At the end of the file, a records=N metadata line
 * that disagrees with the rows read is refused, and so is a last row cut
 * short (without the flag; with it, that row is dropped). */
tl_status tl_trace_reader_next(tl_trace_reader *r, tl_trace_record *rec, int *got);
/* After the end: 1 when the rows read disagree with records=N (accepted
 * under TL_TRACE_ACCEPT_INCOMPLETE, for the caller to say so). */
int tl_trace_reader_count(const tl_trace_reader *r, long long *declared, long long *read);
/* After the end, how the file was cut (only under TL_TRACE_ACCEPT_INCOMPLETE:
 * refused otherwise): TL_TRACE_CUT_ROW, it ended mid-row and that row was
 * dropped; TL_TRACE_CUT_GZIP, its gzip data ended inside a member; 0: not cut. */
enum { TL_TRACE_CUT_ROW = 1, TL_TRACE_CUT_GZIP = 2 };
int tl_trace_reader_cut(const tl_trace_reader *r);
void tl_trace_reader_close(tl_trace_reader **r);

#endif
