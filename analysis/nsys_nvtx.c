/* An export's NVTX_EVENTS rows as trace rows: the process's domain and
 * category names, trilap's own ranges (iterations, the host's
 * communication), other programs' ranges, MPI calls as the host
 * communicating. */
#include "analysis/analysis.h"
#include "analysis/nsys_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/grow.h"

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

/* NVTX domain names (DomainCreate, event type 75) and category names
 * (NvtxCategory, 33) of the process. */
tl_status tl_an_nsys_nvtx_names_read(tl_an_nsys *x, int64_t pid)
{
    if (!x->has_nvtx) return TL_OK;
    tl_an_sqlite_stmt *s = NULL;
    tl_status st = TL_OK;
    const char *q = "SELECT eventType, coalesce(domainId, 0), coalesce(category, 0), coalesce(text, (SELECT value FROM "
                    "StringIds WHERE id = textId)) FROM NVTX_EVENTS WHERE eventType IN (33, 75) AND "
                    "globalTid / 16777216 * 16777216 = ?1";
    if (x->sq.prepare_v2(x->db, q, -1, &s, NULL) != TL_SQ_OK) return tl_an_nsys_sq_fail(x, "NVTX domains");
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
    if (rc != TL_SQ_DONE) st = tl_an_nsys_sq_fail(x, "NVTX domains");
fail:
    x->sq.finalize(s);
    return st;
}

static const char *dom_name(const tl_an_nsys *x, int64_t dom)
{
    for (size_t i = 0; i < x->ndoms; i++)
        if (x->doms[i].id == dom) return x->doms[i].name;
    return NULL;
}

static const char *cat_name(const tl_an_nsys *x, int64_t dom, int64_t cat)
{
    for (size_t i = 0; i < x->ncats; i++)
        if (x->cats[i].dom == dom && x->cats[i].id == cat) return x->cats[i].name;
    return NULL;
}

/* An NVTX_EVENTS row: trilap's own ranges (iterations, host
 * communication marks, operations) and foreign ones (MPI calls as the host
 * communicating); the record's name is written into name[cap]. */
tl_status tl_an_nsys_nvtx_row(tl_an_nsys *x, tl_an_sqlite_stmt *s, const char *path, int64_t row, const char *txt,
                              tl_an_nsys_host_state *hs, tl_trace_record *r, char *name, size_t cap)
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
