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
 * processes of the report). */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/nsys_iters.h"
#include "analysis/sqlite_lib.h"
#include "analysis/grow.h"
#include "runtime/gzin.h"

int tl_an_nsys_path(const char *path, char *file, size_t n, int *rank, const char **iter_nvtx)
{
    /* FILE.sqlite#R names rank R of an export, FILE.sqlite#R#iter-nvtx=SPEC
     * with its iterations from the ranges SPEC names (tl_an_run_files_nvtx
     * makes them) */
    char head[4096];
    const char *spec = strstr(path, TL_AN_NSYS_ITER_NVTX);
    tl_an_file_said(path, head, sizeof head);
    *iter_nvtx = spec ? spec + strlen(TL_AN_NSYS_ITER_NVTX) : NULL;
    const char *hash = strrchr(head, '#');
    if (hash && hash[1]) {
        char *end = NULL;
        long r = strtol(hash + 1, &end, 10);
        if (*end == '\0' && r >= 0 && r < 1 << 20) {
            snprintf(file, n, "%.*s", (int)(hash - head), head);
            *rank = (int)r;
            return tl_an_is_nsys(file);
        }
    }
    return 0;
}

const char *tl_an_file_said(const char *path, char *buf, size_t n)
{
    const char *spec = strstr(path, TL_AN_NSYS_ITER_NVTX);
    snprintf(buf, n, "%.*s", spec ? (int)(spec - path) : (int)strlen(path), path);
    return buf;
}

int tl_an_is_nsys(const char *path)
{
    if (tl_an_is_special(path)) return 0; /* opening a FIFO would wait for a writer */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[16] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

int tl_an_is_gzip_nsys(const char *path)
{
    if (tl_an_is_special(path)) return 0;
    char head[16];
    int gz = 0;
    return tl_gzin_peek(path, head, sizeof head, &gz) == (long)sizeof head && gz &&
           memcmp(head, "SQLite format 3", 16) == 0;
}

typedef struct lane_of {
    int64_t device, stream;
    uint64_t p2p, coll;
    tl_role lane;
} lane_of;

/* A rank of an export: a process, or one thread of it when several of
 * its threads announced a trilap rank (probes_nvtx.c's "rank" mark: ranks
 * as threads of one process). */
typedef struct nsys_rank {
    int64_t pid, tid; /* tid 0: the whole process */
    int64_t number;   /* the rank the mark announced, -1 for a process */
} nsys_rank;

typedef struct nsys {
    const char *path;
    tl_an_sqlite sq;
    tl_an_sqlite_db *db;
    int has_kernel, has_memcpy, has_memset, has_sync, has_nvtx, has_gpu, has_runtime;
    nsys_rank *ranks;
    int nranks;
    size_t capranks;
    lane_of *lanes;
    size_t nlanes, caplanes;
    /* NVTX domains and categories of the process: (domain, id) -> name */
    struct dom { int64_t id; char *name; } *doms;
    size_t ndoms, capdoms;
    struct ncat { int64_t dom, id; char *name; } *cats;
    size_t ncats, capcats;
    int64_t trilap_dom; /* -1: none */
    /* NCCL kernels whose operation NCCL's NVTX ranges tell (nccl_ops) */
    struct nccl_op { int64_t corr; int p2p; char name[64]; } *ops; /* name: the range's, a group's operations */
    size_t nops, nops_named, nops_disagree; /* of them: named kernels, and named ones the ranges contradict */
    tl_trace_lanes lanes_env; /* TRILAP_LANES, the injection library's overrides */
} nsys;

static tl_status sq_fail(nsys *x, const char *what)
{
    return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s: %s", x->path, what, x->sq.errmsg(x->db));
}

/* 1 the table is there, 0 not, -1 sqlite could not tell (a damaged
 * file: "database disk image is malformed", "file is not a database") */
static int has_table(const nsys *x, const char *name)
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

/* A time column as read: an integer (not NULL, text or real) within
 * +-TL_TRACE_MAX_NS, so that no difference of two can overflow. */
static tl_status check_time(const nsys *x, tl_an_sqlite_stmt *s, int col, const char *table, int64_t row,
                            const char *what, int64_t *out)
{
    int type = x->sq.column_type(s, col);
    if (type != TL_SQ_INTEGER)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s row %lld: %s is %s, not an integer time", x->path,
                       table, (long long)row, what,
                       type == TL_SQ_NULL ? "NULL" : type == TL_SQ_TEXT ? "text" : type == TL_SQ_FLOAT ? "a real" : "a blob");
    int64_t v = x->sq.column_int64(s, col);
    if (v < -TL_TRACE_MAX_NS || v > TL_TRACE_MAX_NS)
        return TL_FAIL(TL_ERR_PARSE, "%s: Nsight Systems export: %s row %lld: %s %lld ns is beyond +-2^61 ns", x->path,
                       table, (long long)row, what, (long long)v);
    *out = v;
    return TL_OK;
}

static void nsys_close(nsys *x)
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

static tl_status push_rank(nsys *x, nsys_rank r)
{
    TL_TRY(TL_AN_GROW(x->ranks, (size_t)x->nranks, x->capranks, "ranks"));
    x->ranks[x->nranks++] = r;
    return TL_OK;
}

/* The ranks of one process: the threads that announced a trilap rank, in
 * rank order, when there are several (their GPU work is told apart by the
 * thread of each launch, probes/README.md), else the process. */
static tl_status add_ranks(nsys *x, int64_t pid)
{
    tl_status st = TL_OK;
    tl_an_sqlite_stmt *s = NULL;
    int first = x->nranks;
    if (x->has_nvtx && x->has_runtime) {
        const char *q = "SELECT globalTid, min(int64Value) FROM NVTX_EVENTS WHERE " TL_AN_NSYS_RANK_MARK
                        " GROUP BY globalTid ORDER BY 2, 1";
        if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return sq_fail(x, "rank threads");
        x->sq.bind_int64(s, 1, pid);
        while (st == TL_OK && x->sq.step(s) == TL_SQ_ROW)
            st = push_rank(x, (nsys_rank){.pid = pid, .tid = x->sq.column_int64(s, 0),
                                          .number = x->sq.column_int64(s, 1)});
        x->sq.finalize(s);
        TL_TRY(st);
    }
    if (x->nranks - first >= 2) return TL_OK;
    x->nranks = first; /* one thread or none: the process is the rank */
    return push_rank(x, (nsys_rank){.pid = pid, .number = -1});
}

/* Opens the export read-only and, unless a write-ahead log beside it holds
 * pages, immutable. Opened read-only the plain way, a file in WAL mode gets
 * -shm and -wal files written beside it (the user's folder), and cannot be
 * read at all from a folder this process may not write. A log with pages
 * may hold what the file lacks: then the plain way, which reads it. */
static int open_export(nsys *x, const char *path)
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

static tl_status nsys_open(nsys *x, const char *path)
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
        tl_status st = sq_fail(x, "cannot open");
        nsys_close(x);
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
        tl_status st = sq_fail(x, "reading the list of tables");
        nsys_close(x);
        return st;
    }
    if (!has_strings || !x->has_kernel) {
        nsys_close(x);
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
        st = sq_fail(x, "listing processes");
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
        st = sq_fail(x, "listing processes");
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
    if (st != TL_OK) nsys_close(x);
    return st;
}

/* TRILAP_LANES="stream:lane,..." (the injection library's syntax, read
 * at the export's opening: a bad one is refused there, where an item that
 * was not one used to be passed over without a word) */
static int lane_override(const nsys *x, int64_t stream, tl_role *lane)
{
    return stream >= 0 && tl_trace_lanes_find(&x->lanes_env, (uint64_t)stream, lane);
}

/* What an NCCL API range says: 1 p2p (ncclSend, ncclRecv), 2 a collective,
 * 3 a group's end (its operations tell), 4 a group's start, 0 nothing. */
static int nccl_range_kind(const char *t)
{
    static const char *const coll[] = {"ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast",
                                       "ncclReduce", "ncclBcast", "ncclAllToAll", "ncclGather", "ncclScatter"};
    if (!strcmp(t, "ncclSend") || !strcmp(t, "ncclRecv")) return 1;
    for (size_t k = 0; k < sizeof coll / sizeof coll[0]; k++)
        if (!strcmp(t, coll[k])) return 2;
    if (!strcmp(t, "ncclGroupEnd")) return 3;
    if (!strcmp(t, "ncclGroupStart")) return 4;
    return 0;
}

typedef struct nrange {
    int64_t tid, start, end;
    int kind;
    char name[24]; /* the call: ncclReduceScatter, the longest nccl_range_kind knows, fits */
} nrange;

static int cmp_nrange(const void *a, const void *b)
{
    const nrange *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end;
}

static int cmp_op(const void *a, const void *b)
{
    const struct nccl_op *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/* A group's operations named once each, in order: ncclSend+ncclRecv. */
static void group_op_name(char *out, size_t n, const char *op)
{
    size_t len = strlen(out), k = strlen(op);
    for (const char *p = out; (p = strstr(p, op)); p += k)
        if ((p == out || p[-1] == '+') && (p[k] == '\0' || p[k] == '+')) return;
    if (len + k + 2 <= n) snprintf(out + len, n - len, "%s%s", len ? "+" : "", op);
}

/* NCCL's NVTX ranges (domain "NCCL", on by default) enclose the launches of
 * the kernels they enqueue: the launch of an NCCL kernel (the API call of
 * the same correlation id) inside ncclAllReduce is a collective's, inside
 * ncclGroupEnd the group's operations (ncclSend/ncclRecv/... ranges on the
 * same thread since its ncclGroupStart) tell: all p2p, or all collectives.
 * For the Generic kernels, whose names do not say (probes/README.md). */
static tl_status nccl_ops(nsys *x, int64_t pid)
{
    int64_t dom = -1;
    for (size_t i = 0; i < x->ndoms; i++)
        if (!strcmp(x->doms[i].name, "NCCL")) dom = x->doms[i].id;
    if (dom < 0 || !x->has_runtime || !x->has_kernel) return TL_OK;
    tl_status st = TL_OK;
    tl_an_sqlite_stmt *s = NULL;
    nrange *rg = NULL;
    size_t nr = 0, cap = 0;
    const char *q = "SELECT globalTid, start, end, coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) FROM "
                    "NVTX_EVENTS WHERE domainId = ?2 AND eventType IN (59, 60) AND end IS NOT NULL AND "
                    "globalTid / 16777216 * 16777216 = ?1";
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return sq_fail(x, "NCCL ranges");
    x->sq.bind_int64(s, 1, pid);
    x->sq.bind_int64(s, 2, dom);
    int rc;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        const char *t = (const char *)x->sq.column_text(s, 3);
        int kind = t ? nccl_range_kind(t) : 0;
        if (!kind) continue;
        TL_TRYGOTO(TL_AN_GROW(rg, nr, cap, "NCCL ranges"), st, fail);
        rg[nr] = (nrange){x->sq.column_int64(s, 0), x->sq.column_int64(s, 1), x->sq.column_int64(s, 2), kind, ""};
        snprintf(rg[nr++].name, sizeof rg->name, "%s", t);
    }
    if (rc != TL_SQ_DONE) {
        st = sq_fail(x, "NCCL ranges");
        goto fail;
    }
    x->sq.finalize(s);
    s = NULL;
    if (!nr) goto fail;
    qsort(rg, nr, sizeof *rg, cmp_nrange);
    /* the launches of NCCL kernels */
    q = "SELECT r.correlationId, r.globalTid, r.start, (SELECT value FROM StringIds WHERE id = "
        "coalesce(k.mangledName, k.demangledName)) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
        "ON r.correlationId = k.correlationId AND r.globalTid / 16777216 * 16777216 = k.globalPid WHERE k.globalPid = ?1";
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) {
        st = sq_fail(x, "NCCL launches");
        goto fail;
    }
    x->sq.bind_int64(s, 1, pid);
    size_t ocap = 0;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        const char *name = (const char *)x->sq.column_text(s, 3);
        if (!name || tl_trace_nccl_kernel(name) == TL_NCCL_NONE) continue;
        int64_t corr = x->sq.column_int64(s, 0), tid = x->sq.column_int64(s, 1), t = x->sq.column_int64(s, 2);
        /* the innermost op or group-end range of the thread around the launch */
        size_t lo = 0, hi = nr; /* first range after (tid, t) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rg[mid].tid < tid || (rg[mid].tid == tid && rg[mid].start <= t)) lo = mid + 1;
            else hi = mid;
        }
        /* back from there: the first that contains t started last, the innermost */
        long in = -1;
        for (long i = (long)lo - 1, k = 0; i >= 0 && rg[i].tid == tid && k < 1024; i--, k++)
            if (rg[i].kind != 4 && t <= rg[i].end) {
                in = i;
                break;
            }
        if (in < 0) continue;
        int p2p = 0, coll = 0;
        char opname[64] = "";
        if (rg[in].kind == 3) {
            /* the operations since the group's start on that thread */
            long g = -1;
            for (long i = in - 1; i >= 0 && rg[i].tid == tid; i--)
                if (rg[i].kind == 4 && rg[i].end <= rg[in].start) {
                    g = i;
                    break;
                }
            for (long i = g + 1; g >= 0 && i < in; i++) {
                p2p += rg[i].kind == 1;
                coll += rg[i].kind == 2;
                if (rg[i].kind <= 2) group_op_name(opname, sizeof opname, rg[i].name);
            }
        } else {
            p2p = rg[in].kind == 1;
            coll = rg[in].kind == 2;
            snprintf(opname, sizeof opname, "%s", rg[in].name);
        }
        if ((p2p > 0) == (coll > 0)) continue; /* none, or mixed: the name and the lane decide */
        TL_TRYGOTO(TL_AN_GROW(x->ops, x->nops, ocap, "NCCL operations"), st, fail);
        x->ops[x->nops] = (struct nccl_op){corr, p2p > 0, ""};
        snprintf(x->ops[x->nops++].name, sizeof x->ops->name, "%s", opname);
        tl_nccl_kind nk = tl_trace_nccl_kernel(name);
        if (nk == TL_NCCL_P2P || nk == TL_NCCL_COLL) {
            x->nops_named++;
            x->nops_disagree += (nk == TL_NCCL_P2P) != (p2p > 0);
        }
    }
    if (rc != TL_SQ_DONE) {
        st = sq_fail(x, "NCCL launches");
        goto fail;
    }
    if (x->nops) qsort(x->ops, x->nops, sizeof *x->ops, cmp_op); /* never on NULL */
fail:
    x->sq.finalize(s);
    free(rg);
    return st;
}

/* The communication an MPI call carries: point-to-point (sends,
 * receives, their waits and tests, one-sided) or collective; TL_ROLE_NONE
 * for other calls (MPI_Comm_rank, ...) and names that are not MPI's. A
 * wait is counted as p2p: its request does not say what it waits for. */
static tl_role mpi_lane(const char *fn)
{
    static const char *const coll[] = {"Allreduce", "Iallreduce", "Reduce", "Ireduce", "Bcast", "Ibcast",
                                       "Allgather", "Iallgather", "Gather", "Igather", "Scatter", "Iscatter",
                                       "Alltoall", "Ialltoall", "Reduce_scatter", "Ireduce_scatter", "Barrier",
                                       "Ibarrier", "Scan", "Exscan", "Neighbor_"};
    static const char *const p2p[] = {"Send", "Isend", "Ssend", "Issend", "Bsend", "Rsend", "Recv", "Irecv",
                                      "Sendrecv", "Wait", "Test", "Probe", "Iprobe", "Mprobe", "Mrecv", "Put",
                                      "Get", "Accumulate", "Start", "Win_"};
    if (strncmp(fn, "MPI_", 4) != 0) return TL_ROLE_NONE;
    fn += 4;
    for (size_t k = 0; k < sizeof coll / sizeof coll[0]; k++)
        if (!strncmp(fn, coll[k], strlen(coll[k]))) return TL_ROLE_COLL;
    for (size_t k = 0; k < sizeof p2p / sizeof p2p[0]; k++)
        if (!strncmp(fn, p2p[k], strlen(p2p[k]))) return TL_ROLE_P2P;
    return TL_ROLE_NONE;
}

/* 1 p2p, 0 coll, -1 unknown */
static int nccl_op_of(const nsys *x, int64_t corr)
{
    struct nccl_op key = {.corr = corr};
    const struct nccl_op *hit = x->nops ? bsearch(&key, x->ops, x->nops, sizeof *x->ops, cmp_op) : NULL;
    return hit ? hit->p2p : -1;
}

/* Lanes of the process's streams, inferred like the injection library's. */
static tl_status infer_lanes(nsys *x, int64_t pid)
{
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    const char *q = "SELECT k.deviceId, k.streamId, s.value, count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
                    "StringIds s ON s.id = coalesce(k.mangledName, k.demangledName) WHERE k.globalPid = ?1 "
                    "GROUP BY 1, 2, 3";
    if (x->has_kernel && x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return sq_fail(x, "kernels per stream");
    if (s) x->sq.bind_int64(s, 1, pid);
    int rc = TL_SQ_DONE;
    while (s && (rc = x->sq.step(s)) == TL_SQ_ROW) {
        int64_t dev = x->sq.column_int64(s, 0), str = x->sq.column_int64(s, 1);
        const char *name = (const char *)x->sq.column_text(s, 2);
        uint64_t cnt = (uint64_t)x->sq.column_int64(s, 3);
        size_t j = 0;
        while (j < x->nlanes && !(x->lanes[j].device == dev && x->lanes[j].stream == str)) j++;
        if (j == x->nlanes) {
            TL_TRYGOTO(TL_AN_GROW(x->lanes, j, x->caplanes, "streams"), st, fail);
            x->lanes[j] = (lane_of){.device = dev, .stream = str};
            x->nlanes++;
        }
        switch (tl_trace_nccl_kernel(name)) {
        case TL_NCCL_P2P: x->lanes[j].p2p += cnt; break;
        case TL_NCCL_COLL:
        case TL_NCCL_GENERIC: x->lanes[j].coll += cnt; break;
        default: break;
        }
    }
    if (rc != TL_SQ_DONE) {
        st = sq_fail(x, "kernels per stream");
        goto fail;
    }
    /* streams that ran only copies or memsets: in the table too, so the
     * per-row lookup never falls back to parsing TRILAP_LANES */
    for (int t = 0; t < 2; t++) {
        if (!(t ? x->has_memset : x->has_memcpy)) continue;
        x->sq.finalize(s);
        s = NULL;
        const char *q2 = t ? "SELECT DISTINCT deviceId, streamId FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1"
                           : "SELECT DISTINCT deviceId, streamId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1";
        if (x->sq.prepare_v2(x->db, q2, -1, &s, NULL) != TL_SQ_OK) {
            st = sq_fail(x, "copies per stream");
            goto fail;
        }
        x->sq.bind_int64(s, 1, pid);
        while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
            int64_t dev = x->sq.column_int64(s, 0), str = x->sq.column_int64(s, 1);
            size_t j = 0;
            while (j < x->nlanes && !(x->lanes[j].device == dev && x->lanes[j].stream == str)) j++;
            if (j < x->nlanes) continue;
            TL_TRYGOTO(TL_AN_GROW(x->lanes, j, x->caplanes, "streams"), st, fail);
            x->lanes[j] = (lane_of){.device = dev, .stream = str};
            x->nlanes++;
        }
        if (rc != TL_SQ_DONE) {
            st = sq_fail(x, "copies per stream");
            goto fail;
        }
    }
    for (size_t j = 0; j < x->nlanes; j++) {
        lane_of *l = &x->lanes[j];
        l->lane = tl_trace_lane_of_stream(l->p2p, l->coll);
        tl_role o;
        if (lane_override(x, l->stream, &o)) l->lane = o;
    }
fail:
    x->sq.finalize(s);
    return st;
}

static tl_role lane_find(const nsys *x, int64_t dev, int64_t stream)
{
    for (size_t j = 0; j < x->nlanes; j++)
        if (x->lanes[j].device == dev && x->lanes[j].stream == stream) return x->lanes[j].lane;
    tl_role o;
    if (lane_override(x, stream, &o)) return o;
    /* a stream that ran no kernel (copies only): compute, as the injection
     * library infers it; device-wide rows have no stream */
    return dev >= 0 && stream > 0 ? TL_ROLE_COMPUTE : TL_ROLE_OTHER;
}

/* NVTX domain names (DomainCreate, event type 75) and category names
 * (NvtxCategory, 33) of the process. */
static tl_status read_nvtx_names(nsys *x, int64_t pid)
{
    if (!x->has_nvtx) return TL_OK;
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    const char *q = "SELECT eventType, coalesce(domainId, 0), coalesce(category, 0), coalesce(text, (SELECT value FROM "
                    "StringIds WHERE id = textId)) FROM NVTX_EVENTS WHERE eventType IN (33, 75) AND "
                    "globalTid / 16777216 * 16777216 = ?1";
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return sq_fail(x, "NVTX domains");
    x->sq.bind_int64(s, 1, pid);
    int rc;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        int type = x->sq.column_int(s, 0);
        int64_t dom = x->sq.column_int64(s, 1), cat = x->sq.column_int64(s, 2);
        const char *txt = (const char *)x->sq.column_text(s, 3);
        char *name = strdup(txt ? txt : "");
        TL_CHECKGOTO(name, TL_ERR_NOMEM, st, fail, "NVTX names");
        if (type == 75) {
            st = TL_AN_GROW(x->doms, x->ndoms, x->capdoms, "NVTX domains");
            if (st != TL_OK) {
                free(name);
                goto fail;
            }
            x->doms[x->ndoms].id = dom;
            x->doms[x->ndoms++].name = name;
            if (!strcmp(name, "trilap")) x->trilap_dom = dom;
        } else {
            st = TL_AN_GROW(x->cats, x->ncats, x->capcats, "NVTX categories");
            if (st != TL_OK) {
                free(name);
                goto fail;
            }
            x->cats[x->ncats].dom = dom;
            x->cats[x->ncats].id = cat;
            x->cats[x->ncats++].name = name;
        }
    }
    if (rc != TL_SQ_DONE) st = sq_fail(x, "NVTX domains");
fail:
    x->sq.finalize(s);
    return st;
}

static const char *dom_name(const nsys *x, int64_t dom)
{
    for (size_t i = 0; i < x->ndoms; i++)
        if (x->doms[i].id == dom) return x->doms[i].name;
    return NULL;
}

static const char *cat_name(const nsys *x, int64_t dom, int64_t cat)
{
    for (size_t i = 0; i < x->ncats; i++)
        if (x->cats[i].dom == dom && x->cats[i].id == cat) return x->cats[i].name;
    return NULL;
}

static const char *memcpy_name(int kind)
{
    /* ENUM_CUDA_MEMCPY_OPER, the same values as CUpti_ActivityMemcpyKind */
    static const char *const names[] = {"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                        "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH",
                                        "memcpy PtoP"};
    return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "memcpy";
}

static const char *sync_name(int type)
{
    switch (type) { /* ENUM_CUPTI_SYNC_TYPE */
    case 1: return "cudaEventSynchronize";
    case 2: return "cudaStreamWaitEvent";
    case 3: return "cudaStreamSynchronize";
    case 4: return "cudaDeviceSynchronize";
    default: return "synchronize";
    }
}

/* The thread that issued each GPU row of a process, for ranks that are
 * threads: the thread of its launching API call (same correlation id),
 * else the thread that launched most of its stream's other rows (NCCL's
 * launches may be missing). Temporary tables of this connection (the
 * export itself stays read-only). */
static tl_status thread_owners(nsys *x, int64_t pid)
{
    static const char *const ddl =
        "DROP TABLE IF EXISTS temp.tl_corr_tid; DROP TABLE IF EXISTS temp.tl_stream_tid;"
        "CREATE TEMP TABLE tl_corr_tid(corr INTEGER PRIMARY KEY, tid INTEGER);"
        "CREATE TEMP TABLE tl_stream_tid(dev INTEGER, stream INTEGER, tid INTEGER, PRIMARY KEY(dev, stream));";
    if (x->sq.exec(x->db, ddl, NULL, NULL, NULL) != TL_SQ_OK) return sq_fail(x, "thread owners");
    char q[2048];
    size_t n = (size_t)snprintf(q, sizeof q, "INSERT OR IGNORE INTO temp.tl_stream_tid SELECT dev, stream, tid FROM "
                                             "(SELECT k.deviceId AS dev, k.streamId AS stream, c.tid AS tid, count(*) "
                                             "AS cnt FROM (");
    static const char *const acts[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                       "CUPTI_ACTIVITY_KIND_MEMSET"};
    const int have[] = {x->has_kernel, x->has_memcpy, x->has_memset};
    const char *u = "";
    for (int k = 0; k < 3; k++)
        if (have[k]) {
            n += (size_t)snprintf(q + n, sizeof q - n,
                                  "%sSELECT deviceId, streamId, correlationId FROM %s WHERE globalPid = ?1", u, acts[k]);
            u = " UNION ALL ";
        }
    snprintf(q + n, sizeof q - n, ") k JOIN temp.tl_corr_tid c ON c.corr = k.correlationId GROUP BY 1, 2, 3 "
                                  "ORDER BY cnt DESC, tid)");
    const char *const steps[] = {"INSERT OR IGNORE INTO temp.tl_corr_tid SELECT correlationId, globalTid FROM "
                                 "CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid / 16777216 * 16777216 = ?1 AND "
                                 "correlationId IS NOT NULL",
                                 q};
    for (int i = 0; i < 2; i++) {
        tl_an_sqlite_stmt *s = NULL;
        if (x->sq.prepare_v2(x->db, steps[i], -1, &s, NULL) != TL_SQ_OK) return sq_fail(x, "thread owners");
        x->sq.bind_int64(s, 1, pid);
        int rc = x->sq.step(s);
        x->sq.finalize(s);
        if (rc != TL_SQ_DONE) return sq_fail(x, "thread owners");
    }
    return TL_OK;
}

/* One statement over every activity table of the process, in start order
 * (an enclosing range before what it encloses). by_thread: only the rows
 * of thread ?2 (thread_owners made its tables). */
static tl_status prepare_records(nsys *x, int by_thread, tl_an_sqlite_stmt **out)
{
    char q[6144] = "";
    const char *u = "";
    size_t n = 0;
    const char *gpu_own = by_thread ? " AND coalesce((SELECT tid FROM temp.tl_corr_tid WHERE corr = correlationId), "
                                      "(SELECT tid FROM temp.tl_stream_tid WHERE dev = deviceId AND stream = "
                                      "streamId)) = ?2"
                                    : "";
    const char *host_own = by_thread ? " AND globalTid = ?2" : "";
#define ADD(...) (n += (size_t)snprintf(q + n, sizeof q - n, __VA_ARGS__))
    if (x->has_kernel) {
        ADD("%sSELECT 0, start, end, deviceId, streamId, correlationId, (SELECT value FROM StringIds WHERE id = "
            "coalesce(mangledName, demangledName)), -1, 0, rowid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_memcpy) {
        ADD("%sSELECT 1, start, end, deviceId, streamId, correlationId, NULL, bytes, copyKind, rowid FROM "
            "CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_memset) {
        ADD("%sSELECT 2, start, end, deviceId, streamId, correlationId, NULL, bytes, 0, rowid FROM "
            "CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_sync) {
        ADD("%sSELECT 3, start, end, deviceId, streamId, correlationId, NULL, -1, syncType, rowid FROM "
            "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION WHERE globalPid = ?1%s",
            u, gpu_own);
        u = " UNION ALL ";
    }
    if (x->has_nvtx) {
        /* a thread-rank's ranges: its own, and the start/end ranges of threads
         * that are no rank (the process's, as its --iter-nvtx steps are) */
        ADD("%sSELECT 4, start, end, coalesce(domainId, 0), coalesce(category, 0), int64Value IS NOT NULL, "
            "coalesce(text, (SELECT value FROM StringIds WHERE id = textId)), coalesce(int64Value, -1), 0, rowid FROM "
            "NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL AND globalTid / 16777216 * 16777216 = ?1%s",
            u, by_thread ? " AND (globalTid = ?2 OR (eventType = 60 AND globalTid NOT IN " TL_AN_NSYS_RANK_THREADS "))"
                         : "");
        /* each probes session creates the trilap domain anew: its iterations restart at 0 */
        ADD(" UNION ALL SELECT 5, start, start, 0, 0, 0, NULL, -1, 0, rowid FROM NVTX_EVENTS WHERE eventType = 75 AND "
            "coalesce(text, (SELECT value FROM StringIds WHERE id = textId)) = 'trilap' AND "
            "globalTid / 16777216 * 16777216 = ?1%s",
            host_own);
    }
    if (x->has_runtime) {
        /* the CUDA API calls that launched the GPU rows (same correlation id) */
        ADD("%sSELECT 6, start, end, 0, 0, correlationId, (SELECT value FROM StringIds WHERE id = nameId), -1, 0, rowid "
            "FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE globalTid / 16777216 * 16777216 = ?1%s AND correlationId IN (",
            u, host_own);
        const char *v = "";
        if (x->has_kernel) {
            ADD("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1");
            v = " UNION ";
        }
        if (x->has_memcpy) {
            ADD("%sSELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE globalPid = ?1", v);
            v = " UNION ";
        }
        if (x->has_memset) ADD("%sSELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE globalPid = ?1", v);
        ADD(")");
    }
    ADD(" ORDER BY 2, 3 DESC");
#undef ADD
    TL_CHECK(n < sizeof q, TL_ERR_INVAL, "query too long");
    if (x->sq.prepare_v2(x->db, q, -1, out, NULL) != TL_SQ_OK) return sq_fail(x, "reading activity");
    return TL_OK;
}

static tl_status fill_meta(nsys *x, int rank, const char *iter_nvtx, tl_an_meta *meta, tl_an_nsys_meta_fn mfn,
                           void *user)
{
    memset(meta, 0, sizeof *meta);
    /* the name the rank is read again by (perfetto reads it twice) */
    snprintf(meta->path, sizeof meta->path, "%s#%d%s%s", x->path, rank, iter_nvtx ? TL_AN_NSYS_ITER_NVTX : "",
             iter_nvtx ? iter_nvtx : "");
    meta->rank = rank;
    meta->nranks = x->nranks;
    meta->device = -1;
    meta->complete = 1;
    snprintf(meta->clock_sync, sizeof meta->clock_sync, "none"); /* one session clock */
    snprintf(meta->clock, sizeof meta->clock, "nsys-session");
    snprintf(meta->host, sizeof meta->host, "%s", "?");
    snprintf(meta->device_name, sizeof meta->device_name, "%s", "?");
    tl_an_sqlite_stmt *s = NULL;
    if (x->has_kernel &&
        x->sq.prepare_v2(x->db, "SELECT min(deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE globalPid = ?1", -1, &s,
                           NULL) == TL_SQ_OK) {
        x->sq.bind_int64(s, 1, x->ranks[rank].pid);
        if (x->sq.step(s) == TL_SQ_ROW && x->sq.column_type(s, 0) != TL_SQ_NULL)
            meta->device = x->sq.column_int(s, 0);
    }
    x->sq.finalize(s);
    s = NULL;
    if (x->has_gpu && meta->device >= 0 &&
        x->sq.prepare_v2(x->db, "SELECT name FROM TARGET_INFO_GPU WHERE cuDevice = ?1 LIMIT 1", -1, &s, NULL) ==
            TL_SQ_OK) {
        x->sq.bind_int(s, 1, meta->device);
        if (x->sq.step(s) == TL_SQ_ROW && x->sq.column_text(s, 0))
            snprintf(meta->device_name, sizeof meta->device_name, "%s", (const char *)x->sq.column_text(s, 0));
    }
    x->sq.finalize(s);
    if (mfn) {
        char v[64];
        TL_TRY(mfn(user, "format", "trilap-trace"));
        TL_TRY(mfn(user, "version", "1"));
        snprintf(v, sizeof v, "%d", rank);
        TL_TRY(mfn(user, "rank", v));
        snprintf(v, sizeof v, "%d", x->nranks);
        TL_TRY(mfn(user, "nranks", v));
        snprintf(v, sizeof v, "%d", meta->device);
        TL_TRY(mfn(user, "device", v));
        TL_TRY(mfn(user, "device_name", meta->device_name));
        TL_TRY(mfn(user, "clock", "nsys-session"));
        TL_TRY(mfn(user, "source", "nsys-sqlite"));
        snprintf(v, sizeof v, "%lld", (long long)(x->ranks[rank].pid / 16777216 % 16777216));
        TL_TRY(mfn(user, "pid", v));
        if (x->ranks[rank].tid) {
            snprintf(v, sizeof v, "%lld", (long long)(x->ranks[rank].tid % 16777216));
            TL_TRY(mfn(user, "tid", v));
        }
        TL_TRY(mfn(user, "lanes", "inferred"));
        /* an imported trace says where its iterations came from */
        if (iter_nvtx) TL_TRY(mfn(user, "iter_nvtx", iter_nvtx));
        /* NCCL kernels whose operation NCCL's NVTX ranges told (Generic ones
         * take their cat from it), of them named ones, and named ones the
         * ranges contradict (0 expected) */
        snprintf(v, sizeof v, "%zu", x->nops);
        TL_TRY(mfn(user, "nccl_nvtx_ops", v));
        snprintf(v, sizeof v, "%zu", x->nops_named);
        TL_TRY(mfn(user, "nccl_nvtx_named", v));
        snprintf(v, sizeof v, "%zu", x->nops_disagree);
        TL_TRY(mfn(user, "nccl_nvtx_disagree", v));
        TL_TRY(mfn(user, "window", "records"));
        TL_TRY(mfn(user, "complete", "yes"));
    }
    return TL_OK;
}

tl_status tl_an_nsys_nccl_ops(const char *path, int rank, tl_an_nsys_op_fn fn, void *user)
{
    nsys ex, *x = &ex;
    tl_status st = TL_OK;
    TL_TRY(nsys_open(x, path));
    TL_CHECKGOTO(rank >= 0 && rank < x->nranks, TL_ERR_INVAL, st, fail, "%s: no rank %d (the export has %d ranks "
                 "with CUDA activity)", path, rank, x->nranks);
    TL_TRYGOTO(read_nvtx_names(x, x->ranks[rank].pid), st, fail);
    TL_TRYGOTO(nccl_ops(x, x->ranks[rank].pid), st, fail);
    for (size_t i = 0; i < x->nops && st == TL_OK; i++) st = fn(user, x->ops[i].corr, x->ops[i].name, x->ops[i].p2p);
fail:
    nsys_close(x);
    return st;
}

tl_status tl_an_nsys_ranks(const char *path, int *nranks)
{
    nsys ex, *x = &ex;
    *nranks = 0;
    TL_TRY(nsys_open(x, path));
    *nranks = x->nranks;
    nsys_close(x);
    return TL_OK;
}

/* Rank r's step ranges (--iter-nvtx); an export without NVTX has none. */
static tl_status load_steps(nsys *x, const char *path, const char *iter_nvtx, int r, tl_an_nsys_steps *steps)
{
    memset(steps, 0, sizeof *steps);
    TL_CHECK(x->has_nvtx, TL_ERR_INVAL, "%s: --iter-nvtx %s: the export has no NVTX ranges (no NVTX_EVENTS table: "
             "profile with nsys -t nvtx)", path, iter_nvtx);
    return tl_an_nsys_steps_load(&x->sq, x->db, path, iter_nvtx, x->ranks[r].pid, x->ranks[r].tid, steps);
}

tl_status tl_an_nsys_iter_check(const char *path, const char *iter_nvtx)
{
    nsys ex, *x = &ex;
    TL_TRY(nsys_open(x, path));
    tl_status st = TL_OK;
    for (int r = 0; r < x->nranks && st == TL_OK; r++) {
        tl_an_nsys_steps steps;
        st = load_steps(x, path, iter_nvtx, r, &steps);
        tl_an_nsys_steps_free(&steps);
    }
    nsys_close(x);
    return st;
}

/* A row of the activity query checked as the CSV reader checks a row:
 * times in range and in order, a kernel's or launch's name in StringIds
 * (else an NCCL kernel would silently count as compute), bytes >= 0. */
static tl_status check_row(nsys *x, tl_an_sqlite_stmt *s, const char *path, int what, int64_t row, const char *txt,
                           tl_trace_record *r)
{
    static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                         "NVTX_EVENTS", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"};
    const char *table = what >= 0 && what <= 6 ? tables[what] : "?";
    TL_TRY(check_time(x, s, 1, table, row, "start", &r->start_ns));
    TL_TRY(check_time(x, s, 2, table, row, "end", &r->end_ns));
    TL_CHECK(r->end_ns >= r->start_ns, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: ends before it starts (end %lld < start %lld)", path, table,
             (long long)row, (long long)r->end_ns, (long long)r->start_ns);
    TL_CHECK(txt || (what != 0 && what != 6), TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: its %s is not in StringIds", path, table, (long long)row,
             what == 0 ? "name (mangledName / demangledName)" : "nameId");
    /* a name the trace reader would refuse in what import writes */
    size_t bad = txt ? tl_trace_utf8_bad(txt) : (size_t)-1;
    TL_CHECK(bad == (size_t)-1, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: its name is not valid UTF-8 (byte 0x%02x at offset %zu)", path,
             table, (long long)row, (unsigned char)txt[bad], bad);
    TL_CHECK((what != 1 && what != 2) || x->sq.column_int64(s, 7) >= 0, TL_ERR_PARSE,
             "%s: Nsight Systems export: %s row %lld: bytes %lld is negative", path, table, (long long)row,
             (long long)x->sq.column_int64(s, 7));
    return TL_OK;
}

/* A kernel's class by name and lane; for NCCL's Generic kernels what
 * NCCL's NVTX ranges say of the operation decides (for named ones it
 * agrees). */
static tl_cat kernel_cat(const nsys *x, const tl_trace_record *r)
{
    tl_cat cat = tl_trace_classify_kernel_lane(r->name, r->lane);
    if (tl_trace_nccl_kernel(r->name) == TL_NCCL_GENERIC) {
        int op = nccl_op_of(x, (int64_t)r->corr);
        if (op >= 0) cat = op ? TL_CAT_P2P : TL_CAT_COLL;
    }
    return cat;
}

/* What the host's side of a scan carries from row to row: the iteration
 * open on the host (trilap "iter" ranges, for the iter column of host
 * ranges) and the communication range open on it. */
typedef struct host_state {
    int64_t it_end, it_num, it_base, it_max, it_last;
    int64_t comm_end;
    tl_role comm_lane;
    tl_an_nsys_steps *steps; /* --iter-nvtx: the iterations are these ranges, not trilap's */
} host_state;

/* An NVTX_EVENTS row: trilap's own ranges (iterations, host
 * communication marks, operations) and foreign ones (MPI calls as the host
 * communicating); the record's name is written into name[cap]. */
static tl_status nvtx_row(nsys *x, tl_an_sqlite_stmt *s, const char *path, int64_t row, const char *txt, host_state *hs,
                          tl_trace_record *r, char *name, size_t cap)
{
    int64_t dom = x->sq.column_int64(s, 3), cat = x->sq.column_int64(s, 4);
    int has_payload = x->sq.column_int(s, 5);
    int64_t payload = x->sq.column_int64(s, 7);
    r->device = -1;
    r->lane = TL_ROLE_HOST;
    r->cat = TL_CAT_RANGE;
    if (!txt) txt = "";
    if (dom == x->trilap_dom && dom >= 0) {
        r->kind = TL_KIND_HOST;
        TL_CHECK(!has_payload || payload <= INT32_MAX, TL_ERR_PARSE,
                 "%s: Nsight Systems export: NVTX_EVENTS row %lld: iteration payload %lld out of range", path,
                 (long long)row, (long long)payload);
        if (!hs->steps && !strcmp(txt, "iter") && has_payload && payload >= 0) {
            snprintf(name, cap, "iter");
            /* a loop's iterations count up: one that does not is a
             * new loop (warm-up then timed, the next variant) */
            if (payload <= hs->it_last) hs->it_base = hs->it_max + 1;
            hs->it_last = payload;
            r->iter = hs->it_base + payload;
            if (r->iter > hs->it_max) hs->it_max = r->iter;
            hs->it_end = r->end_ns;
            hs->it_num = r->iter;
        } else {
            const char *cn = cat_name(x, dom, cat);
            /* the host's own communication (runtime/marks.h): on its lane */
            if (cn && !strcmp(cn, "host-p2p")) r->lane = TL_ROLE_P2P, cn = "p2p";
            if (cn && !strcmp(cn, "host-coll")) r->lane = TL_ROLE_COLL, cn = "coll";
            if (cn && (!strcmp(cn, "p2p") || !strcmp(cn, "coll")) && r->end_ns > hs->comm_end) {
                hs->comm_end = r->end_ns;
                hs->comm_lane = !strcmp(cn, "p2p") ? TL_ROLE_P2P : TL_ROLE_COLL;
            }
            snprintf(name, cap, "%s:%s", cn ? cn : "range", txt);
            r->iter = r->start_ns < hs->it_end ? hs->it_num : -1;
        }
    } else {
        r->kind = TL_KIND_NVTX;
        const char *dn = dom ? dom_name(x, dom) : NULL;
        if (dn) snprintf(name, cap, "%s:%s", dn, txt);
        else snprintf(name, cap, "%s", txt);
        r->iter = r->start_ns < hs->it_end ? hs->it_num : -1;
        /* an MPI call (nsys -t mpi, or an MPI NVTX layer) is the host communicating */
        tl_role ml = mpi_lane(txt);
        if (ml != TL_ROLE_NONE) {
            r->kind = TL_KIND_HOST;
            r->lane = ml;
            snprintf(name, cap, "%s:%s", ml == TL_ROLE_P2P ? "p2p" : "coll", txt);
        }
    }
    r->name = name;
    if (hs->steps) {
        /* a step range is an iteration as trilap's "iter" ranges are */
        int64_t k = tl_an_nsys_steps_row(hs->steps, r->start_ns, row);
        r->iter = k >= 0 ? k : tl_an_nsys_steps_at(hs->steps, r->start_ns);
        if (k >= 0) r->kind = TL_KIND_HOST, r->lane = TL_ROLE_HOST, snprintf(name, cap, "iter");
    }
    return TL_OK;
}

/* A launch: a host row carrying the correlation id of its GPU row. With
 * --iter-nvtx its iteration is the step range holding its call, which its
 * GPU rows take (they come after it: none starts before its launch). */
static tl_status launch_row(nsys *x, tl_an_sqlite_stmt *s, const char *txt, host_state *hs, tl_trace_record *r,
                            char *name, size_t cap)
{
    r->device = -1;
    r->lane = TL_ROLE_HOST;
    r->cat = TL_CAT_RANGE;
    r->kind = TL_KIND_HOST;
    r->corr = (uint64_t)x->sq.column_int64(s, 5);
    snprintf(name, cap, "cuda:%s", txt ? txt : "?");
    tl_trace_utf8_cut(name); /* a long name cut in a character: not into the trace */
    r->name = name;
    if (!hs->steps) {
        r->iter = r->start_ns < hs->it_end ? hs->it_num : -1;
        return TL_OK;
    }
    r->iter = tl_an_nsys_steps_at(hs->steps, r->start_ns);
    return tl_an_nsys_steps_launch(hs->steps, (int64_t)r->corr, r->iter);
}

tl_status tl_an_nsys_scan(const char *path, int rank, const char *iter_nvtx, tl_an_record_fn cb, void *user,
                          tl_an_meta *meta, tl_an_nsys_meta_fn mfn)
{
    nsys ex, *x = &ex;
    tl_an_nsys_steps steps = {0};
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    TL_TRY(nsys_open(x, path));
    TL_CHECKGOTO(rank >= 0 && rank < x->nranks, TL_ERR_INVAL, st, fail, "%s: no rank %d (the export has %d ranks "
                 "with CUDA activity)", path, rank, x->nranks);
    int64_t pid = x->ranks[rank].pid, tid = x->ranks[rank].tid;
    TL_TRYGOTO(read_nvtx_names(x, pid), st, fail);
    TL_TRYGOTO(nccl_ops(x, pid), st, fail);
    TL_TRYGOTO(fill_meta(x, rank, iter_nvtx, meta, mfn, user), st, fail);
    TL_TRYGOTO(infer_lanes(x, pid), st, fail);
    if (iter_nvtx) TL_TRYGOTO(load_steps(x, path, iter_nvtx, rank, &steps), st, fail);
    if (tid) TL_TRYGOTO(thread_owners(x, pid), st, fail);
    TL_TRYGOTO(prepare_records(x, tid != 0, &s), st, fail);
    x->sq.bind_int64(s, 1, pid);
    if (tid) x->sq.bind_int64(s, 2, tid);
    int64_t first = INT64_MAX, last = INT64_MIN;
    host_state hs = {.it_end = INT64_MIN, .it_num = -1, .it_max = -1, .it_last = -1, .comm_end = INT64_MIN,
                     .comm_lane = TL_ROLE_NONE, .steps = iter_nvtx ? &steps : NULL};
    char name[1024];
    /* launches made inside the host's communication ranges: their copies
     * serve that communication (the probes' rule, probes_convert.c) */
    enum { NLAUNCH = 1024 };
    struct { int64_t corr; tl_role lane; } in_comm[NLAUNCH];
    size_t nin = 0;
    int rc;
    while ((rc = x->sq.step(s)) == TL_SQ_ROW) {
        int what = x->sq.column_int(s, 0);
        if (what == 5) {
            /* a new session: number its iterations after the previous ones' */
            hs.it_base = hs.it_max + 1;
            hs.it_last = -1;
            continue;
        }
        tl_trace_record r = {.rank = rank, .bytes = -1, .iter = -1};
        int64_t row = x->sq.column_int64(s, 9);
        const char *txt = (const char *)x->sq.column_text(s, 6);
        TL_TRYGOTO(check_row(x, s, path, what, row, txt, &r), st, fail);
        if (what == 6) {
            TL_TRYGOTO(launch_row(x, s, txt, &hs, &r, name, sizeof name), st, fail);
            if (r.start_ns < hs.comm_end) {
                in_comm[nin % NLAUNCH].corr = (int64_t)r.corr;
                in_comm[nin % NLAUNCH].lane = hs.comm_lane;
                nin++;
            }
            if (cb) TL_TRYGOTO(cb(user, &r), st, fail);
            continue;
        }
        if (what <= 3) {
            r.device = x->sq.column_int(s, 3);
            int64_t stream = x->sq.column_int64(s, 4);
            r.stream = stream < 0 || stream == 4294967295LL ? 0 : (uint64_t)stream;
            r.corr = (uint64_t)x->sq.column_int64(s, 5);
            r.lane = lane_find(x, r.device, stream);
            /* without --iter-nvtx GPU rows keep iter -1: the analysis places
             * them by time in the host's iteration ranges (trilap's) */
            if (hs.steps)
                r.iter = what == 3 ? tl_an_nsys_steps_at(hs.steps, r.start_ns)
                                   : tl_an_nsys_steps_of_corr(hs.steps, (int64_t)r.corr);
        }
        switch (what) {
        case 0:
            r.kind = TL_KIND_KERNEL;
            r.name = txt ? txt : "?";
            r.cat = kernel_cat(x, &r);
            break;
        case 1:
            r.kind = TL_KIND_MEMCPY;
            r.cat = TL_CAT_MEMCPY;
            r.name = memcpy_name(x->sq.column_int(s, 8));
            r.bytes = x->sq.column_int64(s, 7);
            for (size_t k = 0; k < nin && k < NLAUNCH; k++)
                if (in_comm[k].corr == (int64_t)r.corr) r.lane = in_comm[k].lane;
            break;
        case 2:
            r.kind = TL_KIND_MEMSET;
            r.cat = TL_CAT_MEMSET;
            r.name = "memset";
            r.bytes = x->sq.column_int64(s, 7);
            break;
        case 3:
            r.kind = TL_KIND_SYNC;
            r.cat = TL_CAT_SYNC;
            r.name = sync_name(x->sq.column_int(s, 8));
            if (!r.stream) r.lane = TL_ROLE_OTHER;
            break;
        default:
            TL_TRYGOTO(nvtx_row(x, s, path, row, txt, &hs, &r, name, sizeof name), st, fail);
            break;
        }
        if (what <= 2) {
            if (r.start_ns < first) first = r.start_ns;
            if (r.end_ns > last) last = r.end_ns;
        }
        if (meta->device < 0 && r.device >= 0) meta->device = r.device;
        if (r.name == name) tl_trace_utf8_cut(name); /* an NVTX name cut in a character */
        if (cb) TL_TRYGOTO(cb(user, &r), st, fail);
    }
    if (rc != TL_SQ_DONE) {
        st = sq_fail(x, "reading activity");
        goto fail;
    }
    meta->w0 = first != INT64_MAX ? first : 0;
    meta->w1 = last != INT64_MIN ? last : meta->w0;
    /* no iterations of trilap's: ranges that look like steps, to name them */
    if (!iter_nvtx && hs.it_max < 0 && x->has_nvtx)
        st = tl_an_nsys_steps_hint(&x->sq, x->db, pid, meta->nvtx_steps_name, sizeof meta->nvtx_steps_name,
                                   &meta->nvtx_steps);
fail:
    x->sq.finalize(s);
    tl_an_nsys_steps_free(&steps);
    nsys_close(x);
    return st;
}

