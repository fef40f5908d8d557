/* Distributed CSR: rank 0 works out every rank's local numbering, blocks
 * and halo plan from the global matrix and sends each rank only its share,
 * so a rank's memory is proportional to its part. Message layout (int64):
 *   hdr: status, nowned, ninterior, nghost, nneighbors, diag_nnz, offd_nnz, nsend, nglobal
 *   ints: global_row[nowned+nghost], diag rowptr[nowned+1], diag col,
 *         offd rowptr[nowned+1], offd col, neighbors, send_count,
 *         recv_count (nneighbors each), send_idx[nsend]
 *   dbls: diag val, offd val */
#include "solvers/dist/dist.h"
#include "solvers/matrix/input_check.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"

enum { TAG_HDR = 0x7d10, TAG_INTS = 0x7d11, TAG_DBLS = 0x7d12, TAG_VEC = 0x7d13, NHDR = 9 };

/* Messages go in pieces of at most 1 GiB: MPI counts are int, and a rank's
 * share of a paper-sized matrix (Queen_4147: 330M nonzeros) can pass 2 GiB. */
static const size_t PIECE = (size_t)1 << 30;

static size_t npieces(size_t bytes)
{
    return (bytes + PIECE - 1) / PIECE;
}

/* Post the pieces of one message into reqs[*n ..]. */
static tl_status post(tl_ctx *ctx, int send, const void *buf, size_t bytes, int peer, int tag,
                      tl_request **reqs, size_t *n)
{
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t len = bytes - off < PIECE ? bytes - off : PIECE;
        char *p = (char *)buf + off; /* receives write here; sends only read */
        if (send)
            TL_TRY(tl_comm_isend(ctx, TL_CHAN_WORLD, p, len, peer, tag, &reqs[(*n)++]));
        else
            TL_TRY(tl_comm_irecv(ctx, TL_CHAN_WORLD, p, len, peer, tag, &reqs[(*n)++]));
    }
    return TL_OK;
}

/* One whole message, waited for. */
static tl_status xfer(tl_ctx *ctx, int send, const void *buf, size_t bytes, int peer, int tag)
{
    tl_request *req = NULL;
    for (size_t off = 0; off < bytes; off += PIECE) {
        size_t n = 0;
        size_t len = bytes - off < PIECE ? bytes - off : PIECE;
        TL_TRY(post(ctx, send, (const char *)buf + off, len, peer, tag, &req, &n));
        TL_TRY(tl_comm_wait(ctx, &req));
    }
    return TL_OK;
}

/* Rank 0's view of the whole distribution. */
typedef struct plan0 {
    int size;
    int64_t n;
    int64_t *loc;       /* n: local index of row i on its owner */
    int64_t *perm;      /* n: rows rank after rank in local order */
    int64_t *roff;      /* size+1 */
    int64_t *ninterior; /* size */
    int64_t *gptr;      /* size+1: ghost lists */
    int64_t *gglob;     /* ghosts of rank after rank, by (owner, global) */
    int64_t *seg;       /* size*size+1: start of owner o's run in q's ghost list, q*size+o */
} plan0;

static void plan0_free(plan0 *p)
{
    free(p->loc), free(p->perm), free(p->roff), free(p->ninterior);
    free(p->gptr), free(p->gglob), free(p->seg);
    memset(p, 0, sizeof *p);
}

typedef struct ghost_key {
    int owner;
    int64_t g;
} ghost_key;

static int cmp_ghost(const void *x, const void *y)
{
    const ghost_key *a = x, *b = y;
    if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
    return (a->g > b->g) - (a->g < b->g);
}

static tl_status plan0_build(const tl_csr *A, const int *part, int size, plan0 *p)
{
    const int64_t n = A->nrows;
    int64_t *mark = NULL, *cnt = NULL;
    ghost_key *keys = NULL;
    tl_status st = TL_OK;
    memset(p, 0, sizeof *p);
    p->size = size;
    p->n = n;
    p->loc = malloc((n ? (size_t)n : 1) * sizeof *p->loc);
    p->perm = malloc((n ? (size_t)n : 1) * sizeof *p->perm);
    p->roff = calloc((size_t)size + 1, sizeof *p->roff);
    p->ninterior = calloc((size_t)size, sizeof *p->ninterior);
    p->gptr = calloc((size_t)size + 1, sizeof *p->gptr);
    p->seg = calloc((size_t)size * size + 1, sizeof *p->seg);
    mark = malloc((n ? (size_t)n : 1) * sizeof *mark);
    cnt = calloc((size_t)size, sizeof *cnt);
    TL_INPUT_CHECKGOTO(p->loc && p->perm && p->roff && p->ninterior && p->gptr && p->seg && mark &&
                           cnt,
                       TL_ERR_NOMEM, st, fail, "distribution plan for %lld rows over %d ranks",
                       (long long)n, size);
    /* border rows: coupled to a column owned elsewhere */
    for (int64_t i = 0; i < n; i++) {
        int r = part[i], border = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && !border; k++)
            border = part[A->colidx[k]] != r;
        mark[i] = border;
        p->roff[r + 1]++;
        if (!border) p->ninterior[r]++;
    }
    for (int r = 0; r < size; r++)
        p->roff[r + 1] += p->roff[r];
    {
        int64_t *icnt = calloc((size_t)size, sizeof *icnt);
        TL_INPUT_CHECKGOTO(icnt, TL_ERR_NOMEM, st, fail, "%d counters", size);
        for (int64_t i = 0; i < n; i++) {
            int r = part[i];
            p->loc[i] = mark[i] ? p->ninterior[r] + cnt[r]++ : icnt[r]++;
            p->perm[p->roff[r] + p->loc[i]] = i;
        }
        free(icnt);
    }
    /* ghost lists: distinct off-rank columns of each rank's rows */
    for (int64_t i = 0; i < n; i++)
        mark[i] = -1;
    for (int r = 0; r < size; r++) {
        int64_t ng = 0;
        for (int64_t l = p->ninterior[r]; l < p->roff[r + 1] - p->roff[r]; l++) {
            int64_t i = p->perm[p->roff[r] + l];
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int64_t j = A->colidx[k];
                if (part[j] != r && mark[j] != r) mark[j] = r, ng++;
            }
        }
        p->gptr[r + 1] = p->gptr[r] + ng;
    }
    p->gglob = malloc((p->gptr[size] ? (size_t)p->gptr[size] : 1) * sizeof *p->gglob);
    TL_INPUT_CHECKGOTO(p->gglob, TL_ERR_NOMEM, st, fail, "%lld ghosts", (long long)p->gptr[size]);
    for (int64_t i = 0; i < n; i++)
        mark[i] = -1;
    for (int r = 0; r < size; r++) {
        int64_t ng = p->gptr[r + 1] - p->gptr[r], c = 0;
        keys = malloc((ng ? (size_t)ng : 1) * sizeof *keys);
        TL_INPUT_CHECKGOTO(keys, TL_ERR_NOMEM, st, fail, "%lld ghosts", (long long)ng);
        for (int64_t l = p->ninterior[r]; l < p->roff[r + 1] - p->roff[r]; l++) {
            int64_t i = p->perm[p->roff[r] + l];
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int64_t j = A->colidx[k];
                if (part[j] != r && mark[j] != r) {
                    mark[j] = r;
                    keys[c].owner = part[j];
                    keys[c].g = j;
                    c++;
                }
            }
        }
        qsort(keys, (size_t)ng, sizeof *keys, cmp_ghost);
        for (int64_t k = 0; k < ng; k++) {
            p->gglob[p->gptr[r] + k] = keys[k].g;
            p->seg[(size_t)r * size + keys[k].owner + 1]++;
        }
        free(keys);
        keys = NULL;
    }
    /* seg[q*size+o] = start of owner o's run in q's list (relative to gptr[q]) */
    for (int q = 0; q < size; q++) {
        int64_t *s = p->seg + (size_t)q * size;
        int64_t run = 0;
        for (int o = 0; o < size; o++) {
            int64_t c = s[o + 1];
            s[o + 1] = 0;
            s[o] = run;
            run += c;
        }
    }
fail:
    free(mark);
    free(cnt);
    free(keys);
    if (st != TL_OK) plan0_free(p);
    return st;
}

/* Number of owner-o ghosts in q's list. */
static int64_t seg_count(const plan0 *p, int q, int o)
{
    int64_t start = p->seg[(size_t)q * p->size + o];
    int64_t end =
        o + 1 < p->size ? p->seg[(size_t)q * p->size + o + 1] : p->gptr[q + 1] - p->gptr[q];
    return end - start;
}

typedef struct colval {
    int64_t c;
    double v;
} colval;

static int cmp_colval(const void *x, const void *y)
{
    const colval *a = x, *b = y;
    return (a->c > b->c) - (a->c < b->c);
}

static void sort_row(int64_t *col, double *val, int64_t len, colval *tmp)
{
    for (int64_t k = 0; k < len; k++)
        tmp[k].c = col[k], tmp[k].v = val[k];
    if (len > 16) {
        qsort(tmp, (size_t)len, sizeof *tmp, cmp_colval);
    } else {
        for (int64_t a = 1; a < len; a++) {
            colval x = tmp[a];
            int64_t b = a - 1;
            while (b >= 0 && tmp[b].c > x.c)
                tmp[b + 1] = tmp[b], b--;
            tmp[b + 1] = x;
        }
    }
    for (int64_t k = 0; k < len; k++)
        col[k] = tmp[k].c, val[k] = tmp[k].v;
}

/* Where a rank's share goes, in the one layout of both: the message to
 * that rank (pack_rank), or rank 0's own matrix (own_share), which so
 * skips a message of its whole share and its copy. On one rank the two
 * took 69 % of a 192^3 run; at 256^3 the run took 6.6-7.3 s instead of
 * 10.6-11.6, 4.7 GB instead of 6.9 (results/wave3-host/one-part-stats). */
typedef struct share_dest {
    int64_t *grow, *drp, *dcol, *orp, *ocol, *nb, *scnt, *rcnt, *sidx;
    double *dval, *oval;
} share_dest;

/* The sizes of rank r's share, in hdr (the message's header), and its
 * longest row */
static void share_count(const tl_csr *A, const int *part, const plan0 *p, int r, int64_t hdr[NHDR],
                        int64_t *maxrow)
{
    const int size = p->size;
    const int64_t nowned = p->roff[r + 1] - p->roff[r];
    const int64_t *rows = p->perm + p->roff[r];
    int64_t dnnz = 0, onnz = 0, nn = 0, nsend = 0;
    *maxrow = 0;
    for (int64_t l = 0; l < nowned; l++) {
        int64_t i = rows[l], len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > *maxrow) *maxrow = len;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (part[A->colidx[k]] == r)
                dnnz++;
            else
                onnz++;
        }
    }
    for (int q = 0; q < size; q++) {
        if (q == r) continue;
        int64_t sc = seg_count(p, q, r), rc = seg_count(p, r, q);
        if (sc || rc) nn++;
        nsend += sc;
    }
    hdr[0] = TL_OK;
    hdr[1] = nowned, hdr[2] = p->ninterior[r], hdr[3] = p->gptr[r + 1] - p->gptr[r], hdr[4] = nn;
    hdr[5] = dnnz, hdr[6] = onnz, hdr[7] = nsend, hdr[8] = p->n;
}

/* Rank r's share, sized by hdr, into d. gidx: scratch of n entries. */
static tl_status share_fill(const tl_csr *A, const int *part, const plan0 *p, int r, int64_t *gidx,
                            const int64_t hdr[NHDR], int64_t maxrow, const share_dest *d)
{
    const int size = p->size;
    const int64_t nowned = hdr[1], nghost = hdr[3];
    const int64_t *rows = p->perm + p->roff[r], *ghosts = p->gglob + p->gptr[r];
    colval *tmp = malloc((size_t)(maxrow ? maxrow : 1) * sizeof *tmp);
    if (!tmp) return TL_FAIL(TL_ERR_NOMEM, "rank %d's share: a row of %lld", r, (long long)maxrow);
    memcpy(d->grow, rows, (size_t)nowned * sizeof *d->grow);
    memcpy(d->grow + nowned, ghosts, (size_t)nghost * sizeof *d->grow);
    for (int64_t g = 0; g < nghost; g++)
        gidx[ghosts[g]] = g;
    d->drp[0] = d->orp[0] = 0;
    int64_t dk = 0, ok = 0;
    for (int64_t l = 0; l < nowned; l++) {
        int64_t i = rows[l], d0 = dk, o0 = ok;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t j = A->colidx[k];
            if (part[j] == r)
                d->dcol[dk] = p->loc[j], d->dval[dk++] = A->val[k];
            else
                d->ocol[ok] = gidx[j], d->oval[ok++] = A->val[k];
        }
        sort_row(d->dcol + d0, d->dval + d0, dk - d0, tmp);
        sort_row(d->ocol + o0, d->oval + o0, ok - o0, tmp);
        d->drp[l + 1] = dk;
        d->orp[l + 1] = ok;
    }
    int64_t c = 0, s = 0;
    for (int q = 0; q < size; q++) {
        if (q == r) continue;
        int64_t sc = seg_count(p, q, r), rc = seg_count(p, r, q);
        if (!sc && !rc) continue;
        d->nb[c] = q;
        d->scnt[c] = sc;
        d->rcnt[c] = rc;
        const int64_t *theirs = p->gglob + p->gptr[q] + p->seg[(size_t)q * size + r];
        for (int64_t k = 0; k < sc; k++)
            d->sidx[s++] = p->loc[theirs[k]];
        c++;
    }
    free(tmp);
    return TL_OK;
}

static int64_t hdr_nints(const int64_t *h)
{
    return (h[1] + h[3]) + 2 * (h[1] + 1) + h[5] + h[6] + 3 * h[4] + h[7];
}

/* The message's arrays, in its order: global rows, diagonal block's row
 * pointers and columns, off-diagonal's, neighbours, send and receive
 * counts, send indices; values: diagonal's, off-diagonal's */
static share_dest dest_in_message(const int64_t *h, int64_t *ints, double *dbls)
{
    share_dest d;
    d.grow = ints, d.drp = d.grow + h[1] + h[3], d.dcol = d.drp + h[1] + 1;
    d.orp = d.dcol + h[5], d.ocol = d.orp + h[1] + 1, d.nb = d.ocol + h[6];
    d.scnt = d.nb + h[4], d.rcnt = d.scnt + h[4], d.sidx = d.rcnt + h[4];
    d.dval = dbls, d.oval = dbls + h[5];
    return d;
}

/* Rank r's message. gidx: scratch of n entries. */
static tl_status pack_rank(const tl_csr *A, const int *part, const plan0 *p, int r, int64_t *gidx,
                           int64_t hdr[NHDR], int64_t **ints_out, double **dbls_out)
{
    int64_t maxrow;
    share_count(A, part, p, r, hdr, &maxrow);
    const int64_t nints = hdr_nints(hdr), ndbls = hdr[5] + hdr[6];
    int64_t *ints = malloc((size_t)(nints ? nints : 1) * sizeof *ints);
    double *dbls = malloc((size_t)(ndbls ? ndbls : 1) * sizeof *dbls);
    tl_status st = ints && dbls ? TL_OK
                                : TL_FAIL(TL_ERR_NOMEM, "rank %d's share: %lld + %lld words", r,
                                          (long long)nints, (long long)ndbls);
    if (st == TL_OK) {
        share_dest d = dest_in_message(hdr, ints, dbls);
        st = share_fill(A, part, p, r, gidx, hdr, maxrow, &d);
    }
    if (st != TL_OK) {
        free(ints), free(dbls);
        return st;
    }
    *ints_out = ints;
    *dbls_out = dbls;
    return TL_OK;
}

/* m's arrays, sized by a share's header h */
static tl_status dist_alloc(const int64_t *h, int nranks, tl_dist_matrix *m)
{
    const int64_t nowned = h[1], nghost = h[3], nn = h[4];
    m->nglobal = h[8];
    m->nowned = nowned;
    m->ninterior = h[2];
    m->nborder = nowned - h[2];
    m->nghost = nghost;
    m->nranks = nranks;
    TL_ALLOC(m->global_row, nowned + nghost);
    TL_TRY(tl_csr_alloc(&m->diag, nowned, nowned, h[5]));
    TL_TRY(tl_csr_alloc(&m->offd, nowned, nghost, h[6]));
    tl_halo_plan *hp = &m->halo;
    hp->nneighbors = (int)nn;
    TL_ALLOC(hp->neighbors, nn);
    TL_ALLOC(hp->send_count, nn);
    TL_ALLOC(hp->send_offset, nn + 1);
    TL_ALLOC(hp->recv_count, nn);
    TL_ALLOC(hp->recv_offset, nn + 1);
    TL_ALLOC(hp->send_idx, h[7]);
    return TL_OK;
}

/* m's halo plan from a share's neighbours and their counts */
static tl_status halo_finish(const int64_t *h, const int64_t *nb, const int64_t *scnt,
                             const int64_t *rcnt, tl_dist_matrix *m)
{
    const int64_t nn = h[4], nghost = h[3];
    tl_halo_plan *hp = &m->halo;
    for (int64_t k = 0; k < nn; k++) {
        hp->neighbors[k] = (int)nb[k];
        hp->send_count[k] = scnt[k];
        hp->recv_count[k] = rcnt[k];
        hp->send_offset[k + 1] = hp->send_offset[k] + scnt[k];
        hp->recv_offset[k + 1] = hp->recv_offset[k] + rcnt[k];
    }
    hp->nsend = h[7];
    hp->nrecv = nghost;
    hp->bytes_per_exchange = h[7] * (int64_t)sizeof(double);
    TL_INPUT_CHECK(hp->recv_offset[nn] == nghost, TL_ERR_INVAL,
                   "halo plan receives %lld values for %lld ghosts", (long long)hp->recv_offset[nn],
                   (long long)nghost);
    return TL_OK;
}

/* Build the rank's matrix from its message; takes ownership of nothing. */
static tl_status unpack(const int64_t *h, const int64_t *ints, const double *dbls, int nranks,
                        tl_dist_matrix *m)
{
    const int64_t nowned = h[1], nghost = h[3], dnnz = h[5], onnz = h[6];
    TL_TRY(dist_alloc(h, nranks, m));
    /* read only: the message's arrays are not written through d */
    const share_dest d = dest_in_message(h, (int64_t *)ints, (double *)dbls);
    memcpy(m->global_row, d.grow, (size_t)(nowned + nghost) * sizeof *d.grow);
    memcpy(m->diag.rowptr, d.drp, (size_t)(nowned + 1) * sizeof *d.drp);
    memcpy(m->diag.colidx, d.dcol, (size_t)dnnz * sizeof *d.dcol);
    memcpy(m->diag.val, d.dval, (size_t)dnnz * sizeof *d.dval);
    memcpy(m->offd.rowptr, d.orp, (size_t)(nowned + 1) * sizeof *d.orp);
    memcpy(m->offd.colidx, d.ocol, (size_t)onnz * sizeof *d.ocol);
    memcpy(m->offd.val, d.oval, (size_t)onnz * sizeof *d.oval);
    memcpy(m->halo.send_idx, d.sidx, (size_t)h[7] * sizeof *d.sidx);
    return halo_finish(h, d.nb, d.scnt, d.rcnt, m);
}

/* Rank 0's own share, written straight into m's arrays. gidx: scratch of
 * n entries. */
static tl_status own_share(const tl_csr *A, const int *part, const plan0 *p, int64_t *gidx,
                           tl_dist_matrix *m)
{
    int64_t hdr[NHDR], maxrow;
    share_count(A, part, p, 0, hdr, &maxrow);
    TL_TRY(dist_alloc(hdr, p->size, m));
    const int64_t nn = hdr[4];
    int64_t *counts;
    TL_ALLOC(counts, 3 * nn);
    share_dest d = {.grow = m->global_row,
                    .drp = m->diag.rowptr,
                    .dcol = m->diag.colidx,
                    .dval = m->diag.val,
                    .orp = m->offd.rowptr,
                    .ocol = m->offd.colidx,
                    .oval = m->offd.val,
                    .nb = counts,
                    .scnt = counts + nn,
                    .rcnt = counts + 2 * nn,
                    .sidx = m->halo.send_idx};
    tl_status st = share_fill(A, part, p, 0, gidx, hdr, maxrow, &d);
    if (st == TL_OK) st = halo_finish(hdr, d.nb, d.scnt, d.rcnt, m);
    free(counts);
    return st;
}

static tl_status check_inputs(const tl_ctx *ctx, const tl_csr *A, const int *part)
{
    TL_INPUT_CHECK(A && part, TL_ERR_INVAL, "rank 0 must pass the global matrix and the partition");
    TL_INPUT_CHECK(A->nrows == A->ncols, TL_ERR_INVAL,
                   "distributing a %lld x %lld matrix: must be square", (long long)A->nrows,
                   (long long)A->ncols);
    for (int64_t i = 0; i < A->nrows; i++)
        if (part[i] < 0 || part[i] >= ctx->size)
            return TL_FAIL(TL_ERR_INVAL, "row %lld assigned to part %d, but there are %d ranks",
                           (long long)i, part[i], ctx->size);
    return TL_OK;
}

static tl_status send_share(tl_ctx *ctx, int r, const int64_t *hdr, const int64_t *ints,
                            const double *dbls)
{
    TL_TRY(xfer(ctx, 1, hdr, NHDR * sizeof *hdr, r, TAG_HDR));
    if (hdr[0] != TL_OK) return TL_OK;
    TL_TRY(xfer(ctx, 1, ints, (size_t)hdr_nints(hdr) * sizeof *ints, r, TAG_INTS));
    TL_TRY(xfer(ctx, 1, dbls, (size_t)(hdr[5] + hdr[6]) * sizeof *dbls, r, TAG_DBLS));
    return TL_OK;
}

static tl_status create_root(tl_ctx *ctx, const tl_csr *A, const int *part, tl_dist_matrix *m)
{
    plan0 p = {0};
    int64_t *gidx = NULL, *ints = NULL;
    double *dbls = NULL;
    int64_t hdr[NHDR];
    tl_status st = check_inputs(ctx, A, part);
    int r = 1;
    if (st == TL_OK) st = plan0_build(A, part, ctx->size, &p);
    if (st == TL_OK) {
        gidx = malloc((A->nrows ? (size_t)A->nrows : 1) * sizeof *gidx);
        if (!gidx) st = TL_FAIL(TL_ERR_NOMEM, "%lld ghost indices", (long long)A->nrows);
    }
    /* rank 0's own share last, so its failure cannot strand a receiver */
    for (; st == TL_OK && r < ctx->size; r++) {
        TL_TRYGOTO(pack_rank(A, part, &p, r, gidx, hdr, &ints, &dbls), st, fail);
        TL_TRYGOTO(send_share(ctx, r, hdr, ints, dbls), st, fail);
        free(ints), free(dbls);
        ints = NULL, dbls = NULL;
    }
    if (st == TL_OK) {
        TL_TRYGOTO(own_share(A, part, &p, gidx, m), st, fail);
        m->root_rows = p.perm;
        m->root_offset = p.roff;
        p.perm = p.roff = NULL;
    }
fail:
    if (st != TL_OK) {
        /* tell the ranks still waiting for a share */
        int64_t bad[NHDR] = {TL_ERR_REMOTE};
        for (; r < ctx->size; r++)
            send_share(ctx, r, bad, NULL, NULL);
    }
    free(ints), free(dbls), free(gidx);
    plan0_free(&p);
    return st;
}

static tl_status create_other(tl_ctx *ctx, tl_dist_matrix *m)
{
    int64_t hdr[NHDR] = {0};
    int64_t *ints = NULL;
    double *dbls = NULL;
    tl_status st = TL_OK;
    TL_TRY(xfer(ctx, 0, hdr, sizeof hdr, 0, TAG_HDR));
    if (hdr[0] != TL_OK) return TL_ERR_REMOTE;
    int64_t ni = hdr_nints(hdr), nd = hdr[5] + hdr[6];
    ints = malloc((size_t)(ni ? ni : 1) * sizeof *ints);
    dbls = malloc((size_t)(nd ? nd : 1) * sizeof *dbls);
    /* rank 0 is left blocked in its send; the launcher's failure handling ends the job */
    TL_INPUT_CHECKGOTO(ints && dbls, TL_ERR_NOMEM, st, fail, "share of %lld + %lld words",
                       (long long)ni, (long long)nd);
    TL_TRYGOTO(xfer(ctx, 0, ints, (size_t)ni * sizeof *ints, 0, TAG_INTS), st, fail);
    TL_TRYGOTO(xfer(ctx, 0, dbls, (size_t)nd * sizeof *dbls, 0, TAG_DBLS), st, fail);
    TL_TRYGOTO(unpack(hdr, ints, dbls, ctx->size, m), st, fail);
fail:
    free(ints);
    free(dbls);
    return st;
}

tl_status tl_dist_create(tl_ctx *ctx, const tl_csr *global, const int *part, tl_dist_matrix **out)
{
    tl_dist_matrix *m = NULL;
    tl_status st;
    *out = NULL;
    m = calloc(1, sizeof *m);
    if (!m)
        st = TL_FAIL(TL_ERR_NOMEM, "tl_dist_matrix");
    else if (ctx->rank == 0)
        st = create_root(ctx, global, part, m);
    else
        st = create_other(ctx, m);
    st = tl_comm_agree(ctx, st);
    if (st != TL_OK) {
        tl_dist_destroy(&m);
        return st == TL_ERR_REMOTE ? st : tl_error_frame(st, TL_FILE_, __LINE__);
    }
    *out = m;
    return TL_OK;
}

void tl_dist_destroy(tl_dist_matrix **pm)
{
    tl_dist_matrix *m = pm ? *pm : NULL;
    if (!m) return;
    free(m->global_row);
    tl_csr_free(&m->diag);
    tl_csr_free(&m->offd);
    free(m->halo.neighbors);
    free(m->halo.send_count);
    free(m->halo.send_offset);
    free(m->halo.send_idx);
    free(m->halo.recv_count);
    free(m->halo.recv_offset);
    free(m->root_rows);
    free(m->root_offset);
    free(m);
    *pm = NULL;
}

tl_status tl_dist_scatter_vec(tl_ctx *ctx, const tl_dist_matrix *m, const double *global,
                              double *local)
{
    tl_status st = TL_OK;
    if (ctx->rank != 0) {
        TL_TRY(xfer(ctx, 0, local, (size_t)m->nowned * sizeof *local, 0, TAG_VEC));
        return TL_OK;
    }
    int64_t maxn = 0;
    for (int r = 1; r < m->nranks; r++)
        if (m->root_offset[r + 1] - m->root_offset[r] > maxn)
            maxn = m->root_offset[r + 1] - m->root_offset[r];
    double *buf = malloc((size_t)(maxn ? maxn : 1) * sizeof *buf);
    /* a rank already waiting cannot be told; the allocation is tiny next to the matrix */
    TL_INPUT_CHECK(buf, TL_ERR_NOMEM, "scatter buffer of %lld values", (long long)maxn);
    for (int r = 1; r < m->nranks && st == TL_OK; r++) {
        int64_t b = m->root_offset[r], c = m->root_offset[r + 1] - b;
        for (int64_t k = 0; k < c; k++)
            buf[k] = global[m->root_rows[b + k]];
        st = xfer(ctx, 1, buf, (size_t)c * sizeof *buf, r, TAG_VEC);
    }
    free(buf);
    TL_TRY(st);
    for (int64_t k = 0; k < m->nowned; k++)
        local[k] = global[m->root_rows[k]];
    return TL_OK;
}

tl_status tl_dist_gather_vec(tl_ctx *ctx, const tl_dist_matrix *m, const double *local,
                             double *global)
{
    if (ctx->rank != 0) {
        TL_TRY(xfer(ctx, 1, local, (size_t)m->nowned * sizeof *local, 0, TAG_VEC));
        return TL_OK;
    }
    tl_status st = TL_OK;
    size_t nreq = 0, maxreq = 0;
    for (int r = 1; r < m->nranks; r++)
        maxreq += npieces((size_t)(m->root_offset[r + 1] - m->root_offset[r]) * sizeof(double));
    double *buf = malloc((size_t)(m->nglobal ? m->nglobal : 1) * sizeof *buf);
    tl_request **req = calloc(maxreq + 1, sizeof *req);
    if (!buf || !req) {
        free(buf), free(req);
        return TL_FAIL(TL_ERR_NOMEM, "gather buffer of %lld values", (long long)m->nglobal);
    }
    /* all receives at once: ranks send as soon as they are ready */
    for (int r = 1; r < m->nranks && st == TL_OK; r++) {
        int64_t b = m->root_offset[r], c = m->root_offset[r + 1] - b;
        st = post(ctx, 0, buf + b, (size_t)c * sizeof *buf, r, TAG_VEC, req, &nreq);
    }
    tl_status wst = tl_comm_waitall(ctx, req, nreq);
    if (st == TL_OK) st = wst;
    if (st == TL_OK) {
        for (int64_t k = 0; k < m->nowned; k++)
            global[m->root_rows[k]] = local[k];
        for (int64_t k = m->root_offset[1]; k < m->nglobal; k++)
            global[m->root_rows[k]] = buf[k];
    }
    free(buf);
    free(req);
    return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
}
