/* A rank's trace loaded for the analysis (tl_an_rank_load): its records
 * kept as intervals (GPU activity, the host's communication and, on a rank
 * without GPU activity, its compute; 32 bytes each), its iterations, and
 * the "op:" / "wait:" rows joined to their kernels. The scan is
 * load_scan.c's, the run folder's files load_run_files.c's. */
#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "analysis/load_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The host carrying communication itself (runtime/marks.h): a host range
 * on a p2p or coll lane. */
static int is_comm_mark(const tl_trace_record *r)
{
    return r->kind == TL_KIND_HOST && (r->lane == TL_ROLE_P2P || r->lane == TL_ROLE_COLL);
}

/* The host computing (runtime/marks.h's category compute): a host range
 * named compute:..., off the communication lanes. It is the rank's compute
 * only where the rank has no GPU activity (trilap-solve --backend host,
 * trilap-fdtd --backend cpu); beside kernels it covers their enqueue. */
static int is_host_compute(const tl_trace_record *r)
{
    return r->kind == TL_KIND_HOST && !is_comm_mark(r) && r->name && !strncmp(r->name, "compute:", 8);
}

/* One side of an "op:" row's join with its kernel: the correlation id and
 * the kernel's start and stream, or the key, message size and launch. */
typedef struct corr_side {
    uint64_t corr;
    int64_t t, bytes;
    uint32_t id;
} corr_side;

typedef struct load_state {
    tl_an_rank *rk;
    tl_an_names *names;
    tl_an_record_fn also; /* the caller's own look at every record, in the same pass */
    void *also_user;
    corr_side *kern, *op; /* communication kernels with a correlation id; "op:" rows */
    corr_side *wait;      /* "wait:" rows: t their end */
    size_t nkern, capkern, nop, capop, nwait, capwait;
    int gpu; /* a GPU activity seen: the host's compute ranges are no compute (is_host_compute) */
} load_state;

static tl_status push_side(corr_side **a, size_t *n, size_t *cap, corr_side v)
{
    TL_TRY(TL_AN_GROW(*a, *n, *cap, "operation rows"));
    (*a)[(*n)++] = v;
    return TL_OK;
}

static int cmp_side(const void *a, const void *b)
{
    const corr_side *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_opl(const void *a, const void *b)
{
    const tl_an_oplabel *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (int)x->stream - (int)y->stream;
}

void tl_an_op_label(const char *key, int64_t bytes, char *out, size_t n)
{
    char size[32] = "";
    double b = (double)bytes;
    if (bytes >= 1000000) snprintf(size, sizeof size, " %.1f MB", b / 1e6);
    else if (bytes >= 1000) snprintf(size, sizeof size, " %.1f kB", b / 1e3);
    else if (bytes >= 0) snprintf(size, sizeof size, " %lld B", (long long)bytes);
    int w = (int)strcspn(key, " ");
    snprintf(out, n, "%.*s%s%s", w, key, size, key + w);
}

/* The operation of each communication kernel: its "op:" row by correlation
 * id (either may come first in the trace), and its "wait:" row if any. */
static tl_status join_oplabels(load_state *ls)
{
    tl_an_rank *rk = ls->rk;
    if (!ls->nkern || !ls->nop) return TL_OK;
    qsort(ls->kern, ls->nkern, sizeof *ls->kern, cmp_side);
    qsort(ls->op, ls->nop, sizeof *ls->op, cmp_side);
    if (ls->nwait) qsort(ls->wait, ls->nwait, sizeof *ls->wait, cmp_side);
    rk->opl = malloc(ls->nkern * sizeof *rk->opl);
    TL_CHECK(rk->opl, TL_ERR_NOMEM, "%zu operations", ls->nkern);
    for (size_t i = 0, j = 0, w = 0; i < ls->nkern; i++) {
        while (j < ls->nop && ls->op[j].corr < ls->kern[i].corr) j++;
        if (j == ls->nop || ls->op[j].corr != ls->kern[i].corr) continue;
        tl_an_oplabel *ol = &rk->opl[rk->nopl++];
        *ol = (tl_an_oplabel){.start = ls->kern[i].t, .launch = ls->op[j].t, .label = ls->op[j].id,
                              .key = ls->op[j].id, .stream = (uint16_t)ls->kern[i].id};
        while (w < ls->nwait && ls->wait[w].corr < ls->kern[i].corr) w++;
        if (w < ls->nwait && ls->wait[w].corr == ls->kern[i].corr)
            ol->held = ls->wait[w].t, ol->held_name = ls->wait[w].id;
        if (ls->op[j].bytes >= 0) {
            char label[640];
            tl_an_op_label(tl_an_names_get(ls->names, ol->key), ls->op[j].bytes, label, sizeof label);
            TL_TRY(tl_an_names_intern(ls->names, label, &ol->label));
        }
    }
    qsort(rk->opl, rk->nopl, sizeof *rk->opl, cmp_opl);
    return TL_OK;
}

const tl_an_oplabel *tl_an_rank_oplabel(const tl_an_rank *rk, const tl_an_ival *v)
{
    if (v->flags & TL_AN_F_SPLIT) return NULL;
    size_t lo = 0, hi = rk->nopl;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rk->opl[mid].start < v->start) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < rk->nopl && rk->opl[lo].start == v->start; lo++)
        if (rk->opl[lo].stream == v->stream) return &rk->opl[lo];
    return NULL;
}

/* Iterations beyond this are a corrupt trace, not a long run. */
#define MAX_ITER (1 << 26)

static tl_status grow_iters(int64_t **a, size_t *n, size_t it)
{
    if (it < *n) return TL_OK;
    size_t m = *n ? *n : 64;
    while (m <= it) m *= 2;
    int64_t *na = realloc(*a, m * sizeof *na);
    TL_CHECK(na, TL_ERR_NOMEM, "%zu iterations", m);
    *a = na;
    for (size_t k = *n; k < m; k++) na[k] = INT64_MAX;
    *n = m;
    return TL_OK;
}

static tl_status keep_host_iter(tl_an_rank *rk, const tl_trace_record *r)
{
    TL_CHECK(r->iter < MAX_ITER, TL_ERR_PARSE, "%s: iteration %" PRId64 " beyond %d (a corrupt trace)",
             rk->meta.path, r->iter, MAX_ITER);
    TL_TRY(TL_AN_GROW(rk->hit, rk->nhit, rk->caphit, "iteration ranges"));
    rk->hit[rk->nhit++] = (tl_an_hostiter){.start = r->start_ns, .iter = r->iter, .num = r->iter};
    return TL_OK;
}

/* The rank has GPU activity after all: its host's compute ranges kept so
 * far are enqueues, not compute, and no more are kept. */
static void drop_host_compute(load_state *ls)
{
    tl_an_rank *rk = ls->rk;
    size_t m = 0;
    for (size_t j = 0; j < rk->n; j++)
        if (!tl_an_ival_is_host_compute(&rk->v[j])) rk->v[m++] = rk->v[j];
    rk->n = m;
    ls->gpu = 1;
}

static tl_status keep_record(void *user, const tl_trace_record *r)
{
    load_state *ls = user;
    tl_an_rank *rk = ls->rk;
    if (ls->also) TL_TRY(ls->also(ls->also_user, r));
    if (r->kind == TL_KIND_HOST && r->iter >= 0 && r->name && !strcmp(r->name, "iter"))
        return keep_host_iter(rk, r);
    if (r->kind == TL_KIND_HOST && r->corr && r->name && !strncmp(r->name, "op:", 3) && r->name[3]) {
        corr_side o = {.corr = r->corr, .t = r->start_ns, .bytes = r->bytes};
        TL_TRY(tl_an_names_intern(ls->names, r->name + 3, &o.id));
        return push_side(&ls->op, &ls->nop, &ls->capop, o);
    }
    if (r->kind == TL_KIND_HOST && r->corr && r->name && !strncmp(r->name, "wait:", 5) && r->name[5]) {
        corr_side o = {.corr = r->corr, .t = r->end_ns};
        TL_TRY(tl_an_names_intern(ls->names, r->name + 5, &o.id));
        return push_side(&ls->wait, &ls->nwait, &ls->capwait, o);
    }
    int mark = is_comm_mark(r);
    if (tl_an_record_is_gpu_activity(r) && !ls->gpu) drop_host_compute(ls);
    /* a rank with a device traced without CUPTI (--trace-mode nvtx) has no
     * GPU activity either: its compute:* ranges time enqueues all the same */
    int host_compute = !ls->gpu && ls->rk->meta.device < 0 && is_host_compute(r);
    if (!tl_an_record_is_gpu_activity(r) && !mark && !host_compute) return TL_OK;
    TL_CHECK(r->iter < MAX_ITER, TL_ERR_PARSE, "%s: iteration %" PRId64 " beyond %d (a corrupt trace)",
             rk->meta.path, r->iter, MAX_ITER);
    TL_TRY(TL_AN_GROW(rk->v, rk->n, rk->cap, "intervals"));
    tl_an_ival *v = &rk->v[rk->n];
    memset(v, 0, sizeof *v);
    v->start = r->start_ns;
    v->end = r->end_ns;
    v->iter = (int32_t)(r->iter < 0 ? -1 : r->iter);
    v->lane = (uint8_t)r->lane;
    v->cat = (uint8_t)r->cat;
    v->kind = (uint8_t)r->kind;
    TL_TRY(tl_an_names_intern(ls->names, r->name ? r->name : "", &v->name));
    /* the host's own exchanges and reductions are no kernel family of
     * their name (the timeline coloured them "compute") */
    v->group = (uint8_t)(mark           ? TL_AN_G_HOST_COMM
                         : host_compute ? TL_AN_G_COMPUTE
                                        : tl_an_names_group(ls->names, v->name, r->kind, r->cat));
    size_t s = 0;
    while (s < rk->nstreams && rk->streams[s] != r->stream) s++;
    if (s == rk->nstreams) {
        TL_CHECK(s < UINT16_MAX, TL_ERR_PARSE, "more than %d streams", UINT16_MAX);
        TL_TRY(TL_AN_GROW(rk->streams, s, rk->capstreams, "streams"));
        rk->streams[rk->nstreams++] = r->stream;
    }
    v->stream = (uint16_t)s;
    if (r->corr && r->kind == TL_KIND_KERNEL && (r->cat == TL_CAT_P2P || r->cat == TL_CAT_COLL))
        TL_TRY(push_side(&ls->kern, &ls->nkern, &ls->capkern,
                         (corr_side){.corr = r->corr, .t = r->start_ns, .id = (uint32_t)s}));
    if (r->iter >= 0 && !mark && !host_compute) { /* iterations are bounded by their GPU activity */
        size_t it = (size_t)r->iter;
        TL_TRY(grow_iters(&rk->iter_start, &rk->niter, it));
        if (r->start_ns < rk->iter_start[it]) rk->iter_start[it] = r->start_ns;
    }
    rk->n++;
    return TL_OK;
}

tl_status tl_an_rank_load(const char *path, int flags, tl_an_names *names, tl_an_rank *rk)
{
    return tl_an_rank_load_also(path, flags, names, rk, NULL, NULL);
}

tl_status tl_an_rank_load_also(const char *path, int flags, tl_an_names *names, tl_an_rank *rk, tl_an_record_fn also,
                               void *user)
{
    memset(rk, 0, sizeof *rk);
    load_state ls = {.rk = rk, .names = names, .also = also, .also_user = user};
    tl_status st = tl_an_scan_with_peers(path, flags, keep_record, &ls, &rk->meta, names, &rk->peers);
    if (st == TL_OK) st = join_oplabels(&ls);
    free(ls.kern);
    free(ls.op);
    free(ls.wait);
    if (st != TL_OK) {
        tl_an_rank_free(rk);
        return tl_error_frame(st, __FILE__, __LINE__);
    }
    /* Give back the growth slack: the sort and the sweep need no more. */
    if (rk->n && rk->n < rk->cap) {
        tl_an_ival *nv = realloc(rk->v, rk->n * sizeof *nv);
        if (nv) {
            rk->v = nv;
            rk->cap = rk->n;
        }
    }
    tl_an_ival_sort(rk->v, rk->n);
    st = tl_an_window_check(rk); /* every command that reads a trilap rank */
    if (st == TL_OK) st = tl_an_rank_number_iters(rk);
    if (st != TL_OK) {
        tl_an_rank_free(rk);
        return tl_error_frame(st, __FILE__, __LINE__);
    }
    /* No GPU activity carries its iteration (the probes could not attribute
     * the launches): the host's iteration ranges bound the iterations, so
     * windows are still selected by time and no activity is dropped. */
    int gpu_iters = 0;
    for (size_t k = 0; k < rk->niter && !gpu_iters; k++) gpu_iters = rk->iter_start[k] != INT64_MAX;
    if (!gpu_iters && rk->nhost) {
        free(rk->iter_start);
        rk->iter_start = rk->host_start;
        rk->niter = rk->nhost;
        rk->host_start = NULL;
        rk->nhost = 0;
        rk->iters_from_host = rk->meta.iters_from_host = 1;
    }
    return TL_OK;
}

void tl_an_rank_free(tl_an_rank *rk)
{
    if (!rk) return;
    free(rk->v);
    free(rk->streams);
    free(rk->iter_start);
    free(rk->host_start);
    free(rk->hit);
    free(rk->opl);
    tl_an_peers_free(&rk->peers);
    memset(rk, 0, sizeof *rk);
}

