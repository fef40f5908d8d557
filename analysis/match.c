/* Communication operations matched across ranks. An NCCL collective or
 * send/recv, or a host-staged exchange, can only move data once every rank
 * of it has arrived: the k-th operation of one name on one rank is the k-th
 * of that name on every other rank (NCCL runs a communicator's operations in
 * issue order; trilap's host exchanges are collective calls in program
 * order). On the aligned clock, the time an operation spends before its
 * last rank starts it is waiting (skew), the rest is transfer
 * (DESIGN.md "Wave 3"). Names whose count differs between ranks are left
 * unmatched and counted. */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

typedef struct opstart {
    uint32_t name;
    int64_t start, iter;
} opstart;

typedef struct rank_ops {
    opstart *v;
    size_t n, cap;
    tl_an_names *names;
} rank_ops;

static tl_status collect(void *user, const tl_trace_record *r)
{
    rank_ops *ro = user;
    tl_an_ival v = {.kind = (uint8_t)r->kind, .cat = (uint8_t)r->cat, .lane = (uint8_t)r->lane};
    int mark = r->kind == TL_KIND_HOST && (r->lane == TL_ROLE_P2P || r->lane == TL_ROLE_COLL);
    if (r->kind != TL_KIND_KERNEL && !mark) return TL_OK;
    if (!tl_an_ival_is_comm_op(&v)) return TL_OK;
    if (ro->n == ro->cap) {
        size_t cap = ro->cap ? 2 * ro->cap : 256;
        opstart *nv = realloc(ro->v, cap * sizeof *nv);
        TL_CHECK(nv, TL_ERR_NOMEM, "%zu communication operations", cap);
        ro->v = nv;
        ro->cap = cap;
    }
    uint32_t id;
    TL_TRY(tl_an_names_intern(ro->names, r->name ? r->name : "", &id));
    ro->v[ro->n++] = (opstart){.name = id, .start = r->start_ns, .iter = r->iter};
    return TL_OK;
}

static int cmp_opstart(const void *a, const void *b)
{
    const opstart *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Operations of one name on one rank: [lo, hi) of its sorted list. */
static void name_range(const rank_ops *ro, uint32_t name, size_t *lo, size_t *hi)
{
    size_t a = 0, b = ro->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (ro->v[m].name < name) a = m + 1;
        else b = m;
    }
    *lo = a;
    while (a < ro->n && ro->v[a].name == name) a++;
    *hi = a;
}

void tl_an_ops_free(tl_an_ops *o)
{
    if (!o) return;
    free(o->op);
    free(o->base);
    free(o->count);
    memset(o, 0, sizeof *o);
}

static tl_status add_op(tl_an_ops *o, const tl_an_op *op)
{
    if (o->nop == o->capop) {
        size_t cap = o->capop ? 2 * o->capop : 256;
        tl_an_op *n = realloc(o->op, cap * sizeof *n);
        TL_CHECK(n, TL_ERR_NOMEM, "%zu matched operations", cap);
        o->op = n;
        o->capop = cap;
    }
    o->op[o->nop++] = *op;
    return TL_OK;
}

tl_status tl_an_ops_build(char *const *files, size_t nf, int flags, tl_an_names *names, tl_an_ops *o)
{
    tl_status st = TL_OK;
    memset(o, 0, sizeof *o);
    o->nranks = nf;
    if (nf < 2) return TL_OK; /* one rank waits for nobody */
    rank_ops *ro = calloc(nf, sizeof *ro);
    TL_CHECK(ro, TL_ERR_NOMEM, "%zu ranks", nf);
    for (size_t f = 0; f < nf; f++) {
        tl_an_meta meta;
        ro[f].names = names;
        TL_TRYGOTO(tl_an_scan(files[f], flags, collect, &ro[f], &meta), st, fail);
        if (ro[f].n > 1) qsort(ro[f].v, ro[f].n, sizeof *ro[f].v, cmp_opstart);
    }
    size_t nn = tl_an_names_count(names);
    o->base = calloc(nn ? nn : 1, sizeof *o->base);
    o->count = calloc(nn ? nn : 1, sizeof *o->count);
    TL_CHECKGOTO(o->base && o->count, TL_ERR_NOMEM, st, fail, "%zu names", nn);
    o->nnames = nn;
    /* every name rank 0 has; a name some other rank lacks is unmatched too */
    for (size_t i = 0; i < ro[0].n;) {
        uint32_t name = ro[0].v[i].name;
        size_t lo0, hi0;
        name_range(&ro[0], name, &lo0, &hi0);
        i = hi0;
        size_t cnt = hi0 - lo0;
        int same = 1;
        for (size_t f = 1; f < nf && same; f++) {
            size_t lo, hi;
            name_range(&ro[f], name, &lo, &hi);
            same = hi - lo == cnt;
        }
        if (!same) {
            o->unmatched_names++;
            o->unmatched_ops += cnt;
            continue;
        }
        o->base[name] = o->nop;
        o->count[name] = cnt;
        for (size_t k = 0; k < cnt; k++) {
            tl_an_op op = {.name = name, .k = (int64_t)k, .arrive = INT64_MIN, .first = INT64_MAX};
            for (size_t f = 0; f < nf; f++) {
                size_t lo, hi;
                name_range(&ro[f], name, &lo, &hi);
                const opstart *x = &ro[f].v[lo + k];
                if (x->start > op.arrive) {
                    op.arrive = x->start;
                    op.last_rank = (int)f;
                    op.iter = x->iter;
                }
                if (x->start < op.first) op.first = x->start;
            }
            TL_TRYGOTO(add_op(o, &op), st, fail);
        }
    }
fail:
    for (size_t f = 0; f < nf; f++) free(ro[f].v);
    free(ro);
    if (st != TL_OK) tl_an_ops_free(o);
    return st;
}

static tl_status push_ival(tl_an_rank *rk, const tl_an_ival *v)
{
    if (rk->n == rk->cap) {
        size_t cap = rk->cap ? rk->cap + rk->cap / 2 + 16 : 64;
        tl_an_ival *nv = realloc(rk->v, cap * sizeof *nv);
        TL_CHECK(nv, TL_ERR_NOMEM, "%zu intervals", cap);
        rk->v = nv;
        rk->cap = cap;
    }
    rk->v[rk->n++] = *v;
    return TL_OK;
}

void tl_an_split_free(tl_an_split *s)
{
    if (!s) return;
    free(s->by_name);
    s->by_name = NULL;
    s->nnames = 0;
}

static tl_status count_split(tl_an_split *sum, uint32_t name, int64_t wait, int64_t transfer)
{
    size_t i = 0;
    while (i < sum->nnames && sum->by_name[i].name != name) i++;
    if (i == sum->nnames) {
        tl_an_split_sum *n = realloc(sum->by_name, (i + 1) * sizeof *n);
        TL_CHECK(n, TL_ERR_NOMEM, "%zu operation names", i + 1);
        sum->by_name = n;
        sum->by_name[sum->nnames++] = (tl_an_split_sum){.name = name};
    }
    tl_an_split_sum *b = &sum->by_name[i];
    b->matched++;
    b->wait_ns += wait;
    b->transfer_ns += transfer;
    sum->matched++;
    sum->wait_ns += wait;
    sum->transfer_ns += transfer;
    return TL_OK;
}

tl_status tl_an_ops_split(const tl_an_ops *o, tl_an_rank *rk, tl_an_split *sum)
{
    memset(sum, 0, sizeof *sum);
    if (!o->nop) return TL_OK;
    size_t *seen = calloc(o->nnames ? o->nnames : 1, sizeof *seen);
    TL_CHECK(seen, TL_ERR_NOMEM, "%zu names", o->nnames);
    tl_status st = TL_OK;
    size_t n0 = rk->n;
    for (size_t j = 0; j < n0; j++) {
        tl_an_ival v = rk->v[j];
        if (!tl_an_ival_is_comm_op(&v) || v.name >= o->nnames || !o->count[v.name]) continue;
        size_t k = seen[v.name]++;
        if (k >= o->count[v.name]) continue;
        const tl_an_op *op = &o->op[o->base[v.name] + k];
        if (op->arrive <= v.start || op->arrive >= v.end) {
            /* first to nobody's wait, or a peer that began after this one
             * ended: not the same operation after all, left whole */
            TL_TRYGOTO(count_split(sum, v.name, 0, v.end - v.start), st, fail);
            continue;
        }
        rk->v[j].end = op->arrive;
        rk->v[j].flags |= TL_AN_F_WAIT;
        TL_TRYGOTO(count_split(sum, v.name, op->arrive - v.start, v.end - op->arrive), st, fail);
        tl_an_ival rest = v;
        rest.start = op->arrive;
        rest.flags |= TL_AN_F_SPLIT;
        TL_TRYGOTO(push_ival(rk, &rest), st, fail);
    }
    if (rk->n != n0) tl_an_ival_sort(rk->v, rk->n);
fail:
    free(seen);
    return st;
}
