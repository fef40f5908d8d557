/* Internal to the Nsight Systems export reader (nsys.c, nsys_nccl.c,
 * nsys_lanes.c, nsys_nvtx.c, nsys_query.c, nsys_meta.c, nsys_scan.c): the
 * open export's state and what its parts give each other. Named *_impl.h
 * so that make install leaves it out. */
#ifndef TL_ANALYSIS_NSYS_IMPL_H
#define TL_ANALYSIS_NSYS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "analysis/nsys_iters.h"
#include "analysis/sqlite_lib.h"

/* A stream's lane: its NCCL kernels counted, the lane they make it. */
typedef struct tl_an_nsys_lane {
    int64_t device, stream;
    uint64_t p2p, coll;
    tl_role lane;
} tl_an_nsys_lane;

/* A rank of an export: a process, or one thread of it when several of
 * its threads announced a trilap rank (probes_nvtx.c's "rank" mark: ranks
 * as threads of one process). */
typedef struct tl_an_nsys_rank {
    int64_t pid, tid; /* tid 0: the whole process */
    int64_t number;   /* the rank the mark announced, -1 for a process */
} tl_an_nsys_rank;

/* An export open: its tables, ranks, and what is read of the rank at hand. */
typedef struct tl_an_nsys {
    const char *path;
    tl_an_sqlite sq;
    tl_an_sqlite_db *db;
    int has_kernel, has_memcpy, has_memset, has_sync, has_nvtx, has_gpu, has_runtime;
    tl_an_nsys_rank *ranks;
    int nranks;
    size_t capranks;
    tl_an_nsys_lane *lanes;
    size_t nlanes, caplanes;
    /* NVTX domains and categories of the process: (domain, id) -> name */
    struct dom { int64_t id; char *name; } *doms;
    size_t ndoms, capdoms;
    struct ncat { int64_t dom, id; char *name; } *cats;
    size_t ncats, capcats;
    int64_t trilap_dom; /* -1: none */
    /* NCCL kernels whose operation NCCL's NVTX ranges tell (tl_an_nsys_nccl_ops_read) */
    struct nccl_op { int64_t corr; int p2p; char name[64]; } *ops; /* name: the range's, a group's operations */
    size_t nops, nops_named, nops_disagree; /* of them: named kernels, and named ones the ranges contradict */
    tl_trace_lanes lanes_env; /* TRILAP_LANES, the injection library's overrides */
} tl_an_nsys;

/* What the host's side of a scan carries from row to row: the iteration
 * open on the host (trilap "iter" ranges, for the iter column of host
 * ranges) and the communication range open on it. */
typedef struct tl_an_nsys_host_state {
    int64_t it_end, it_num, it_base, it_max, it_last;
    int64_t comm_end;
    tl_role comm_lane;
    tl_an_nsys_steps *steps; /* --iter-nvtx: the iterations are these ranges, not trilap's */
} tl_an_nsys_host_state;

/* nsys.c: the export opened, its ranks */

/* Opens the export and lists its ranks; a failure leaves nothing open. */
tl_status tl_an_nsys_open(tl_an_nsys *x, const char *path);
/* Closes what tl_an_nsys_open opened and frees what was read. */
void tl_an_nsys_close(tl_an_nsys *x);
/* The failure of an sqlite call: the export, what was read, sqlite's message. */
tl_status tl_an_nsys_sq_fail(tl_an_nsys *x, const char *what);

/* nsys_nvtx.c: NVTX rows */

/* Reads the process's NVTX domain and category names (and the trilap domain). */
tl_status tl_an_nsys_nvtx_names_read(tl_an_nsys *x, int64_t pid);
/* An NVTX_EVENTS row of the activity statement as a trace row (name written into name[cap]). */
tl_status tl_an_nsys_nvtx_row(tl_an_nsys *x, tl_an_sqlite_stmt *s, const char *path, int64_t row, const char *txt,
                              tl_an_nsys_host_state *hs, tl_trace_record *r, char *name, size_t cap);

/* nsys_nccl.c: NCCL kernels' operations */

/* Reads the operations NCCL's NVTX ranges give the process's NCCL kernels into x->ops. */
tl_status tl_an_nsys_nccl_ops_read(tl_an_nsys *x, int64_t pid);
/* A kernel's class: by name and lane, a Generic NCCL kernel's by its operation. */
tl_cat tl_an_nsys_kernel_cat(const tl_an_nsys *x, const tl_trace_record *r);

/* nsys_lanes.c: the lanes of streams */

/* Infers the lane of each (device, stream) of the process into x->lanes. */
tl_status tl_an_nsys_lanes_infer(tl_an_nsys *x, int64_t pid);
/* The lane of a (device, stream) row, after tl_an_nsys_lanes_infer. */
tl_role tl_an_nsys_lane_find(const tl_an_nsys *x, int64_t dev, int64_t stream);

/* nsys_query.c: the activity statement */

/* Makes the temporary tables of the thread behind each GPU row (ranks that are threads). */
tl_status tl_an_nsys_thread_owners_make(tl_an_nsys *x, int64_t pid);
/* Prepares the statement of the process's activity in start order (?1 pid, ?2 tid when by_thread). */
tl_status tl_an_nsys_records_prepare(tl_an_nsys *x, int by_thread, tl_an_sqlite_stmt **out);

/* nsys_meta.c: a rank's metadata */

/* Fills meta for rank `rank` and hands its trace keys to mfn (when not NULL). */
tl_status tl_an_nsys_meta_fill(tl_an_nsys *x, int rank, const char *iter_nvtx, tl_an_meta *meta,
                               tl_an_nsys_meta_fn mfn, void *user);

#endif
