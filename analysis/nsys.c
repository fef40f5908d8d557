/* Nsight Systems exports (`nsys export --type sqlite`) read as trilap
 * traces: one process with CUDA activity is one rank (processes in globalPid
 * order), its records streamed in start order as tl_trace_record rows, so
 * every command reads an export the way it reads a run folder.
 *
 * Tables read: CUPTI_ACTIVITY_KIND_KERNEL (names through StringIds, the
 * mangled name when the export has it), _MEMCPY, _MEMSET,
 * _SYNCHRONIZATION, NVTX_EVENTS (push/pop and start/end ranges; domains and
 * categories from their create/name events), TARGET_INFO_GPU. A table the
 * export lacks (no memsets, no NVTX) is skipped. Mapping (analysis/README.md,
 * "Nsight Systems exports"):
 *   kernel      kind kernel, cat by probes/trace.h's NCCL rules and the lane
 *   memcpy      "memcpy HtoD" ... by copyKind, bytes
 *   memset      "memset", bytes
 *   sync        cudaEventSynchronize / cudaStreamWaitEvent / cudaStreamSynchronize / cudaDeviceSynchronize
 *   NVTX trilap domain: kind host, "<category>:<text>" as the probes write
 *               them; "iter" ranges with their int64 payload as the iteration,
 *               renumbered after the previous loop's when the count restarts
 *   NVTX others: kind nvtx, "<domain>:<text>" ("NCCL:ncclAllReduce"), the
 *               default domain's as they are
 *   launches    the CUDA API calls (CUPTI_ACTIVITY_KIND_RUNTIME) of the GPU
 *               rows: kind host, "cuda:cudaLaunchKernel_v7000", the GPU
 *               row's correlation id (Perfetto draws launch -> kernel)
 * Lanes per (device, stream) are inferred as the injection library infers
 * them (probes/README.md) and TRILAP_LANES="stream:lane,..." overrides. Times
 * are the export's (nanoseconds of the profiling session, one clock for all
 * processes of the report).
 *
 * This file opens an export and lists its ranks; the rest is a file a part
 * (nsys_impl.h): the ranks' names nsys_path.c's, the NCCL operations
 * nsys_nccl.c's, the lanes nsys_lanes.c's, the NVTX rows nsys_nvtx.c's, the
 * activity statement nsys_query.c's, the metadata nsys_meta.c's, the rows
 * read nsys_scan.c's. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/grow.h"

tl_status tl_an_nsys_sq_fail(tl_an_nsys *x, const char *what)
{
    return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s: %s", x->path, what, x->sq.errmsg(x->db));
}

/* 1 the table is there, 0 not, -1 sqlite could not tell (a damaged
 * file: "database disk image is malformed", "file is not a database") */
static int has_table(const tl_an_nsys *x, const char *name)
{
    tl_an_sqlite_stmt *s = NULL;
    int yes = -1;
    if (x->sq.prepare_v2(x->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1, &s, NULL) ==
        TL_SQ_OK) {
        x->sq.bind_text(s, 1, name, -1, NULL);
        int rc = x->sq.step(s);
        yes = rc == TL_SQ_ROW ? 1 : rc == TL_SQ_DONE ? 0 : -1;
    }
    x->sq.finalize(s);
    return yes;
}

void tl_an_nsys_close(tl_an_nsys *x)
{
    if (x->db) x->sq.close(x->db);
    tl_an_sqlite_unload(&x->sq);
    free(x->ranks);
    free(x->lanes);
    for (size_t i = 0; i < x->ndoms; i++) free(x->doms[i].name);
    free(x->doms);
    for (size_t i = 0; i < x->ncats; i++) free(x->cats[i].name);
    free(x->cats);
    free(x->ops);
    memset(x, 0, sizeof *x);
}

static tl_status push_rank(tl_an_nsys *x, tl_an_nsys_rank r)
{
    TL_TRY(TL_AN_GROW(x->ranks, (size_t)x->nranks, x->capranks, "ranks"));
    x->ranks[x->nranks++] = r;
    return TL_OK;
}

/* The ranks of one process: the threads that announced a trilap rank, in
 * rank order, when there are several (their GPU work is told apart by the
 * thread of each launch, probes/README.md), else the process. */
static tl_status add_ranks(tl_an_nsys *x, int64_t pid)
{
    tl_status st = TL_OK;
    tl_an_sqlite_stmt *s = NULL;
    int first = x->nranks;
    if (x->has_nvtx && x->has_runtime) {
        const char *q = "SELECT globalTid, min(int64Value) FROM NVTX_EVENTS WHERE " TL_AN_NSYS_RANK_MARK
                        " GROUP BY globalTid ORDER BY 2, 1";
        if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "rank threads");
        x->sq.bind_int64(s, 1, pid);
        while (st == TL_OK && x->sq.step(s) == TL_SQ_ROW)
            st = push_rank(x, (tl_an_nsys_rank){.pid = pid, .tid = x->sq.column_int64(s, 0),
                                          .number = x->sq.column_int64(s, 1)});
        x->sq.finalize(s);
        TL_TRY(st);
    }
    if (x->nranks - first >= 2) return TL_OK;
    x->nranks = first; /* one thread or none: the process is the rank */
    return push_rank(x, (tl_an_nsys_rank){.pid = pid, .number = -1});
}

/* Opens the export read-only and, unless a write-ahead log beside it holds
 * pages, immutable. Opened read-only the plain way, a file in WAL mode gets
 * -shm and -wal files written beside it (the user's folder), and cannot be
 * read at all from a folder this process may not write. A log with pages
 * may hold what the file lacks: then the plain way, which reads it. */
static int open_export(tl_an_nsys *x, const char *path)
{
    size_t n = strlen(path);
    char *name = malloc(3 * n + 32);
    if (!name) return TL_SQ_NOMEM;
    struct stat st;
    snprintf(name, 3 * n + 32, "%s-wal", path);
    if (stat(name, &st) == 0 && st.st_size > 0) {
        free(name);
        return x->sq.open_v2(path, &x->db, TL_SQ_OPEN_READONLY, NULL);
    }
    /* a URI: an absolute path after an empty authority; % ? # escaped */
    char *u = name + sprintf(name, "file:%s", path[0] == '/' ? "//" : "");
    for (const char *c = path; *c; c++)
        u += *c == '%' || *c == '?' || *c == '#' ? sprintf(u, "%%%02X", (unsigned char)*c) : sprintf(u, "%c", *c);
    strcpy(u, "?immutable=1");
    int rc = x->sq.open_v2(name, &x->db, TL_SQ_OPEN_READONLY | TL_SQ_OPEN_URI, NULL);
    free(name);
    return rc;
}

tl_status tl_an_nsys_open(tl_an_nsys *x, const char *path)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    x->trilap_dom = -1;
    TL_CHECK(tl_an_is_nsys(path), TL_ERR_PARSE, "%s: not an SQLite file (nsys export --type sqlite makes one)", path);
    const char *lanes = getenv("TRILAP_LANES");
    char why[256];
    TL_CHECK(!lanes || !*lanes || tl_trace_lanes_parse(lanes, &x->lanes_env, why, sizeof why) == TL_OK, TL_ERR_INVAL,
             "TRILAP_LANES='%.200s': %s", lanes, why);
    TL_TRY(tl_an_sqlite_load(&x->sq, path));
    if (open_export(x, path) != TL_SQ_OK) {
        tl_status st = tl_an_nsys_sq_fail(x, "cannot open");
        tl_an_nsys_close(x);
        return st;
    }
    x->has_kernel = has_table(x, "CUPTI_ACTIVITY_KIND_KERNEL");
    x->has_memcpy = has_table(x, "CUPTI_ACTIVITY_KIND_MEMCPY");
    x->has_memset = has_table(x, "CUPTI_ACTIVITY_KIND_MEMSET");
    x->has_sync = has_table(x, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    x->has_nvtx = has_table(x, "NVTX_EVENTS");
    x->has_gpu = has_table(x, "TARGET_INFO_GPU");
    x->has_runtime = has_table(x, "CUPTI_ACTIVITY_KIND_RUNTIME");
    int has_strings = has_table(x, "StringIds");
    if (x->has_kernel < 0 || x->has_memcpy < 0 || x->has_memset < 0 || x->has_sync < 0 || x->has_nvtx < 0 ||
        x->has_gpu < 0 || x->has_runtime < 0 || has_strings < 0) {
        tl_status st = tl_an_nsys_sq_fail(x, "reading the list of tables");
        tl_an_nsys_close(x);
        return st;
    }
    if (!has_strings || !x->has_kernel) {
        tl_an_nsys_close(x);
        return TL_FAIL(TL_ERR_PARSE, "%s: no CUDA activity tables (%s missing): not an Nsight Systems export of a "
                                     "CUDA trace (nsys profile -t cuda; nsys export --type sqlite)",
                       path, has_strings ? "CUPTI_ACTIVITY_KIND_KERNEL" : "StringIds");
    }
    /* the ranks: processes that ran GPU work */
    char q[512] = "SELECT DISTINCT globalPid FROM (";
    const char *u = "";
    static const char *const acts[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET"};
    const int have[] = {x->has_kernel, x->has_memcpy, x->has_memset};
    for (int k = 0; k < 3; k++)
        if (have[k]) {
            snprintf(q + strlen(q), sizeof q - strlen(q), "%sSELECT globalPid FROM %s", u, acts[k]);
            u = " UNION ";
        }
    snprintf(q + strlen(q), sizeof q - strlen(q), ") ORDER BY globalPid");
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) {
        st = tl_an_nsys_sq_fail(x, "listing processes");
        goto fail;
    }
    int64_t *pids = NULL;
    size_t npids = 0, cappids = 0;
    int rc;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        /* a row of no process (NULL, text) would be a rank of its own that
         * every per-process query passes over: its rows silently gone */
        if (x->sq.column_type(s, 0) != TL_SQ_INTEGER) {
            free(pids);
            const char *v = (const char *)x->sq.column_text(s, 0);
            st = TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: a kernel, copy or memset row has globalPid %s%.40s%s: "
                                       "not a process id",
                         path, v ? "'" : "NULL", v ? v : "", v ? "'" : "");
            goto fail;
        }
        st = TL_AN_GROW(pids, npids, cappids, "processes");
        if (st != TL_OK) {
            free(pids);
            goto fail;
        }
        pids[npids++] = x->sq.column_int64(s, 0);
    }
    if (rc != TL_SQ_DONE) {
        free(pids);
        st = tl_an_nsys_sq_fail(x, "listing processes");
        goto fail;
    }
    x->sq.finalize(s);
    s = NULL;
    for (size_t i = 0; i < npids && st == TL_OK; i++) st = add_ranks(x, pids[i]);
    free(pids);
    if (st != TL_OK) goto fail;
    TL_CHECKGOTO(x->nranks > 0, TL_ERR_PARSE, st, fail, "%s: the export holds no CUDA kernels, copies or memsets", path);
fail:
    x->sq.finalize(s);
    if (st != TL_OK) tl_an_nsys_close(x);
    return st;
}

tl_status tl_an_nsys_ranks(const char *path, int *nranks)
{
    tl_an_nsys ex, *x = &ex;
    *nranks = 0;
    TL_TRY(tl_an_nsys_open(x, path));
    *nranks = x->nranks;
    tl_an_nsys_close(x);
    return TL_OK;
}
