/* The operation of each NCCL kernel of an export's rank, from NCCL's NVTX
 * ranges around its launch (tl_an_nsys_nccl_ops), and a kernel's class,
 * which for NCCL's Generic kernels that operation decides. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/grow.h"

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
tl_status tl_an_nsys_nccl_ops_read(tl_an_nsys *x, int64_t pid)
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
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "NCCL ranges");
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
        st = tl_an_nsys_sq_fail(x, "NCCL ranges");
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
        st = tl_an_nsys_sq_fail(x, "NCCL launches");
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
        st = tl_an_nsys_sq_fail(x, "NCCL launches");
        goto fail;
    }
    if (x->nops) qsort(x->ops, x->nops, sizeof *x->ops, cmp_op); /* never on NULL */
fail:
    x->sq.finalize(s);
    free(rg);
    return st;
}

/* 1 p2p, 0 coll, -1 unknown */
static int nccl_op_of(const tl_an_nsys *x, int64_t corr)
{
    struct nccl_op key = {.corr = corr};
    const struct nccl_op *hit = x->nops ? bsearch(&key, x->ops, x->nops, sizeof *x->ops, cmp_op) : NULL;
    return hit ? hit->p2p : -1;
}

/* A kernel's class by name and lane; for NCCL's Generic kernels what
 * NCCL's NVTX ranges say of the operation decides (for named ones it
 * agrees). */
tl_cat tl_an_nsys_kernel_cat(const tl_an_nsys *x, const tl_trace_record *r)
{
    tl_cat cat = tl_trace_classify_kernel_lane(r->name, r->lane);
    if (tl_trace_nccl_kernel(r->name) == TL_NCCL_GENERIC) {
        int op = nccl_op_of(x, (int64_t)r->corr);
        if (op >= 0) cat = op ? TL_CAT_P2P : TL_CAT_COLL;
    }
    return cat;
}

tl_status tl_an_nsys_nccl_ops(const char *path, int rank, tl_an_nsys_op_fn fn, void *user)
{
    tl_an_nsys ex, *x = &ex;
    tl_status st = TL_OK;
    TL_TRY(tl_an_nsys_open(x, path));
    TL_CHECKGOTO(rank >= 0 && rank < x->nranks, TL_ERR_INVAL, st, fail, "%s: no rank %d (the export has %d ranks "
                 "with CUDA activity)", path, rank, x->nranks);
    TL_TRYGOTO(tl_an_nsys_nvtx_names_read(x, x->ranks[rank].pid), st, fail);
    TL_TRYGOTO(tl_an_nsys_nccl_ops_read(x, x->ranks[rank].pid), st, fail);
    for (size_t i = 0; i < x->nops && st == TL_OK; i++) st = fn(user, x->ops[i].corr, x->ops[i].name, x->ops[i].p2p);
fail:
    tl_an_nsys_close(x);
    return st;
}
