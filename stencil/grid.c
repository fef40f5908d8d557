/* The grid cut into subdomains: owned boxes, ghost depths, array layouts,
 * memory-variable slabs and the dimension-ordered exchange plan. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/fdtd_impl.h"

static const char axis_name[3] = {'x', 'y', 'z'};

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
/* the multiple of m at or below v, v of either sign */
static int64_t round_down(int64_t v, int64_t m) { return v >= 0 ? v / m * m : -round_up(-v, m); }

/* Elements a whole row is aligned to at local x = 0: 32 floats, one
 * 128-byte line, so a warp's eight quads of a row are one line. */
enum { ROW_ALIGN = 32 };
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The global range of the low (side 0) or high CPML slab along an axis:
 * points whose p or v position lies in the layer. */
static void slab_range(int64_t n, int64_t L, int side, int64_t *lo, int64_t *hi)
{
    if (side == 0) { *lo = 0; *hi = L; }
    else { *lo = n - 1 - L; *hi = n; }
}

static tl_status layouts_of(tl_fdtd *f, tl_fdtd_sub *s)
{
    const tl_fdtd_config *c = &f->cfg;
    /* full fields: x rows start ROW_ALIGN-aligned at local x = 0, so a
     * warp's loads of the owned points are aligned */
    int64_t x0 = round_up(s->lpad[0], ROW_ALIGN);
    int64_t sx = round_up(x0 + s->n[0] + s->hpad[0], ROW_ALIGN);
    int64_t sy = s->lpad[1] + s->n[1] + s->hpad[1];
    int64_t sz = s->lpad[2] + s->n[2] + s->hpad[2];
    tl_fdtd_layout *l = &s->full;
    l->sx = sx;
    l->sxy = sx * sy;
    l->off = x0 + s->lpad[1] * sx + s->lpad[2] * l->sxy;
    l->count = (size_t)(l->sxy * sz);
    for (int d = 0; d < 3; d++) {
        l->lo[d] = -s->lpad[d];
        l->hi[d] = s->n[d] + s->hpad[d];
    }
    for (int m = 0; m < TL_FDTD_NPSI; m++)
        for (int side = 0; side < 2; side++) {
            tl_fdtd_layout *q = &s->psi[m][side];
            memset(q, 0, sizeof *q);
            if (c->cpml <= 0) continue;
            int d = m % 3;
            int64_t glo, ghi;
            slab_range(c->n[d], c->cpml, side, &glo, &ghi);
            for (int e = 0; e < 3; e++) { q->lo[e] = l->lo[e]; q->hi[e] = l->hi[e]; }
            q->lo[d] = max64(l->lo[d], glo - s->o[d]);
            q->hi[d] = min64(l->hi[d], ghi - s->o[d]);
            if (q->hi[d] <= q->lo[d]) continue;
            /* rows start at a local x that is a multiple of `align` and
             * hold a multiple of it, so the quad at an aligned x is one
             * aligned vector in psi as in the fields (fdtd_vec.cu). The
             * y and z slabs' rows are whole rows of the box: aligned to
             * ROW_ALIGN as the fields' rows are, a warp's eight quads are
             * one 128-byte line. Aligned to 4 they started 16 bytes into a
             * sector, and each warp row of a z slab's memory variable
             * touched 5 sectors for 4 (ncu's source counters: 25 % more
             * L2 sectors than the bytes ask in its load and in its store,
             * results/wave3-checks-h200/session11/C). An x slab's rows
             * hold 20-odd points: at 32 they would take 64 points of
             * memory for no fewer sectors. */
            const int64_t align = d == 0 ? 4 : ROW_ALIGN;
            int64_t qx0 = round_down(q->lo[0], align);
            int64_t ex = round_up(q->hi[0] - qx0, align), ey = q->hi[1] - q->lo[1], ez = q->hi[2] - q->lo[2];
            q->sx = ex;
            q->sxy = ex * ey;
            q->off = -(qx0 + q->lo[1] * q->sx + q->lo[2] * q->sxy);
            q->count = (size_t)(ex * ey * ez);
        }
    return TL_OK;
}

static tl_fdtd_box box_intersect(const tl_fdtd_box *a, const int64_t lo[3], const int64_t hi[3])
{
    tl_fdtd_box b;
    for (int d = 0; d < 3; d++) {
        b.lo[d] = max64(a->lo[d], lo[d]);
        b.hi[d] = min64(a->hi[d], hi[d]);
    }
    return b;
}

static tl_fdtd_box box_shift(const tl_fdtd_box *a, const int64_t sh[3])
{
    tl_fdtd_box b;
    for (int d = 0; d < 3; d++) {
        b.lo[d] = a->lo[d] + sh[d];
        b.hi[d] = a->hi[d] + sh[d];
    }
    return b;
}

static int box_inside(const tl_fdtd_box *a, const int64_t lo[3], const int64_t hi[3])
{
    for (int d = 0; d < 3; d++)
        if (a->lo[d] < lo[d] || a->hi[d] > hi[d]) return 0;
    return 1;
}

/* Message filling B's ghost slab (axis d, side) from A: the slab over B's
 * whole padded extent in the other axes, so corners and edges arrive
 * through the later phases (x, then y, then z). */
static tl_status plan_msg(tl_fdtd *f, tl_fdtd_sub *B, int d, int side, tl_fdtd_msg *m)
{
    tl_fdtd_sub *A = &f->sub[B->nbr[d][side]];
    memset(m, 0, sizeof *m);
    m->from = A->id;
    m->to = B->id;
    m->phase = d;
    m->side = side;
    tl_fdtd_box region;
    for (int e = 0; e < 3; e++) {
        region.lo[e] = B->full.lo[e];
        region.hi[e] = B->full.hi[e];
    }
    if (side == 0) region.hi[d] = 0;
    else region.lo[d] = B->n[d];
    int64_t sh[3];
    for (int e = 0; e < 3; e++) sh[e] = B->o[e] - A->o[e] + (e == d ? B->wrap[d][side] : 0);
    int64_t off = 0;
    for (int fld = 0; fld < 4 + 2 * TL_FDTD_NPSI; fld++) {
        const tl_fdtd_layout *lb = fld < 4 ? &B->full : &B->psi[(fld - 4) / 2][(fld - 4) % 2];
        const tl_fdtd_layout *la = fld < 4 ? &A->full : &A->psi[(fld - 4) / 2][(fld - 4) % 2];
        if (fld >= 4 && lb->count == 0) continue;
        tl_fdtd_seg *g = &m->seg[m->nseg];
        g->field = fld;
        g->dst = box_intersect(&region, lb->lo, lb->hi);
        if (tl_fdtd_box_empty(&g->dst)) continue;
        g->src = box_shift(&g->dst, sh);
        TL_CHECK(la->count > 0 && box_inside(&g->src, la->lo, la->hi), TL_ERR_INVAL,
                 "subdomain %d: ghost data of array %d along %c lies outside subdomain %d", B->id, fld,
                 axis_name[d], A->id);
        g->count = tl_fdtd_box_count(&g->dst);
        g->buf_off = off;
        off += g->count;
        m->nseg++;
    }
    m->count = off;
    return TL_OK;
}

/* "8 points along x, y and z", or "8 points along x and 16 along y":
 * v[d] for the axes in mask, the unit after the first value */
static void axis_list(char *buf, size_t nbuf, const int64_t v[3], unsigned mask, const char *one, const char *many)
{
    int axes[3], na = 0, same = 1;
    for (int d = 0; d < 3; d++)
        if (mask & (1u << d)) {
            if (na > 0 && v[d] != v[axes[0]]) same = 0;
            axes[na++] = d;
        }
    size_t at = 0;
    for (int i = 0; i < na && at < nbuf; i++) {
        const char *sep = i == 0 ? "" : i == na - 1 ? " and " : ", ";
        int64_t x = v[axes[i]];
        char a = axis_name[axes[i]];
        if (i == 0)
            at += (size_t)snprintf(buf + at, nbuf - at, "%" PRId64 " %s along %c", x, x == 1 ? one : many, a);
        else if (same) at += (size_t)snprintf(buf + at, nbuf - at, "%s%c", sep, a);
        else at += (size_t)snprintf(buf + at, nbuf - at, "%s%" PRId64 " along %c", sep, x, a);
    }
}

/* What would let axes `thin` (each too thin for g = order s) run, each
 * alone: a larger grid always; fewer subdomains where every thin axis has
 * several and fewer fit; a lower order or a smaller s where one fits.
 * Only what the user can change: no "fewer subdomains" for one, no
 * "smaller s" at s = 1 (before, both were said whatever the cut), no
 * order where the caller fixes it (verify decomp, time, reflection,
 * energy said "order 4 or lower" up to e2e0d87). */
static void ghost_remedies(char *buf, size_t nbuf, const tl_fdtd_config *c, int g, unsigned thin)
{
    const int *P = c->pd;
    int64_t need[3] = {0}, fit[3] = {0}, base_min = INT64_MAX;
    int fewer = 1;
    for (int d = 0; d < 3; d++) {
        if (!(thin & (1u << d))) continue;
        need[d] = (int64_t)g * P[d];
        fit[d] = c->n[d] / g; /* the most subdomains g thick each */
        if (fit[d] < 1 && !c->periodic) fit[d] = 1; /* one has no neighbour along d */
        if (P[d] == 1 || fit[d] < 1) fewer = 0;
        base_min = min64(base_min, c->n[d] / P[d]);
    }
    char item[4][160];
    int ni = 0;
    char list[128];
    if (c->grid_option) { /* the caller's grid is cubic: the most any thin axis needs */
        int64_t most = 0;
        for (int d = 0; d < 3; d++) most = max64(most, need[d]);
        snprintf(item[ni++], sizeof item[0], "%s %" PRId64 " or more", c->grid_option, most - c->grid_option_less);
    } else {
        axis_list(list, sizeof list, need, thin, "point", "points");
        snprintf(item[ni++], sizeof item[0], "a grid of at least %s", list);
    }
    if (fewer) {
        axis_list(list, sizeof list, fit, thin, "subdomain", "subdomains");
        snprintf(item[ni++], sizeof item[0], "at most %s", list);
    }
    int lower = 0; /* the highest order below c->order whose ghosts fit */
    for (int o = 2; o < c->order; o *= 2)
        if ((int64_t)o * c->s <= base_min) lower = o;
    if (lower > 0 && !c->order_fixed)
        snprintf(item[ni++], sizeof item[0], lower == 2 ? "order 2" : "order %d or lower", lower);
    int64_t s_fit = base_min / c->order;
    if (c->s > 1 && s_fit >= 1)
        snprintf(item[ni++], sizeof item[0], s_fit == 1 ? "s = 1" : "s = %" PRId64 " or less", s_fit);
    size_t at = 0;
    for (int i = 0; i < ni && at < nbuf; i++)
        at += (size_t)snprintf(buf + at, nbuf - at, "%s%s", i == 0 ? "" : i == ni - 1 ? ", or " : ", ", item[i]);
}

tl_status tl_fdtd_grid_check(const tl_fdtd_config *c, int g)
{
    const int *P = c->pd;
    for (int d = 0; d < 3; d++)
        TL_CHECK(c->n[d] >= P[d], TL_ERR_INVAL, "%" PRId64 " points along %c cannot be cut into %d subdomains",
                 c->n[d], axis_name[d], P[d]);
    /* Along d the first n % P subdomains have n / P + 1 points, the others
     * n / P; each needs g of them where it has a neighbour along d. Of the
     * subdomains too thin, name the thinnest, the first of its size (k =
     * n % P along d), the lowest axis among equals: up to 58a8851 the
     * lowest id too thin, subdomain 0's 5 points of --grid 9 cut in two
     * where subdomain 1 has 4. */
    int worst = -1, worst_id = 0;
    int64_t worst_points = 0;
    unsigned thin = 0; /* every axis too thin: the remedies must mend them all */
    for (int d = 0; d < 3; d++) {
        int64_t base = c->n[d] / P[d], rem = c->n[d] % P[d];
        if ((P[d] == 1 && !c->periodic) || base >= g) continue;
        thin |= 1u << d;
        int64_t stride = d == 0 ? 1 : d == 1 ? P[0] : (int64_t)P[0] * P[1];
        if (worst < 0 || base < worst_points) worst = d, worst_id = (int)(rem * stride), worst_points = base;
    }
    if (worst < 0) return TL_OK;
    char who[64], fix[512];
    if ((int64_t)P[0] * P[1] * P[2] == 1) snprintf(who, sizeof who, "the grid has");
    else snprintf(who, sizeof who, "subdomain %d has", worst_id);
    ghost_remedies(fix, sizeof fix, c, g, thin);
    return TL_FAIL(TL_ERR_INVAL,
                   "%s %" PRId64 " %s along %c, fewer than the ghost depth g = 2 r s = %d (order %d, s = %d); "
                   "use %s",
                   who, worst_points, worst_points == 1 ? "point" : "points", axis_name[worst], g, c->order, c->s,
                   fix);
}

tl_status tl_fdtd_grid_build(tl_fdtd *f)
{
    const tl_fdtd_config *c = &f->cfg;
    int P[3] = {c->pd[0], c->pd[1], c->pd[2]};
    TL_TRY(tl_fdtd_grid_check(c, f->g));
    f->nsub = P[0] * P[1] * P[2];
    TL_ALLOC(f->sub, (size_t)f->nsub);
    for (int kz = 0; kz < P[2]; kz++)
        for (int ky = 0; ky < P[1]; ky++)
            for (int kx = 0; kx < P[0]; kx++) {
                int id = (kz * P[1] + ky) * P[0] + kx;
                tl_fdtd_sub *s = &f->sub[id];
                s->id = id;
                s->coord[0] = kx;
                s->coord[1] = ky;
                s->coord[2] = kz;
                for (int d = 0; d < 3; d++) {
                    int64_t n = c->n[d], base = n / P[d], rem = n % P[d], k = s->coord[d];
                    s->n[d] = base + (k < rem);
                    s->o[d] = k * base + (k < rem ? k : rem);
                    for (int side = 0; side < 2; side++) {
                        int kk = k + (side ? 1 : -1);
                        int64_t wrap = 0;
                        if (kk < 0 || kk >= P[d]) {
                            if (!c->periodic) { s->nbr[d][side] = -1; continue; }
                            wrap = kk < 0 ? n : -n;
                            kk = (kk + P[d]) % P[d];
                        }
                        int kc[3] = {kx, ky, kz};
                        kc[d] = kk;
                        s->nbr[d][side] = (kc[2] * P[1] + kc[1]) * P[0] + kc[0];
                        s->wrap[d][side] = wrap;
                    }
                    s->lpad[d] = s->nbr[d][0] >= 0 ? f->g : f->r;
                    s->hpad[d] = s->nbr[d][1] >= 0 ? f->g : f->r;
                }
                TL_TRY(layouts_of(f, s));
            }
    for (int d = 0; d < 3; d++) {
        int cnt = 0;
        for (int i = 0; i < f->nsub; i++)
            for (int side = 0; side < 2; side++) cnt += f->sub[i].nbr[d][side] >= 0;
        f->nmsg[d] = 0;
        TL_ALLOC(f->msg[d], (size_t)cnt);
        for (int i = 0; i < f->nsub; i++)
            for (int side = 0; side < 2; side++)
                if (f->sub[i].nbr[d][side] >= 0) TL_TRY(plan_msg(f, &f->sub[i], d, side, &f->msg[d][f->nmsg[d]++]));
    }
    return TL_OK;
}

void tl_fdtd_grid_free(tl_fdtd *f)
{
    for (int d = 0; d < 3; d++) {
        free(f->msg[d]);
        f->msg[d] = NULL;
        f->nmsg[d] = 0;
    }
    free(f->sub);
    f->sub = NULL;
}

void tl_fdtd_grid_classify(const tl_fdtd *f, int sd, const tl_fdtd_box *b, tl_fdtd_box out[7], int cls[7], int *n)
{
    const tl_fdtd_config *c = &f->cfg;
    const tl_fdtd_sub *s = &f->sub[sd];
    *n = 0;
    if (tl_fdtd_box_empty(b)) return;
    if (c->cpml <= 0) {
        out[0] = *b;
        cls[0] = 0;
        *n = 1;
        return;
    }
    int64_t ilo[3], ihi[3];
    for (int d = 0; d < 3; d++) {
        ilo[d] = min64(max64(c->cpml - s->o[d], b->lo[d]), b->hi[d]);
        ihi[d] = min64(max64(c->n[d] - 1 - c->cpml - s->o[d], ilo[d]), b->hi[d]);
    }
    tl_fdtd_box in = *b;
    for (int d = 0; d < 3; d++) { in.lo[d] = ilo[d]; in.hi[d] = ihi[d]; }
    out[(*n)] = in;
    cls[(*n)++] = 0;
    /* shells: x pieces over the whole box, y pieces inside x, z inside x and y */
    tl_fdtd_box rest = *b;
    for (int d = 0; d < 3; d++) {
        tl_fdtd_box lo = rest, hi = rest;
        lo.hi[d] = ilo[d];
        hi.lo[d] = ihi[d];
        if (!tl_fdtd_box_empty(&lo)) { out[*n] = lo; cls[(*n)++] = 1; }
        if (!tl_fdtd_box_empty(&hi)) { out[*n] = hi; cls[(*n)++] = 1; }
        rest.lo[d] = ilo[d];
        rest.hi[d] = ihi[d];
    }
}

void tl_fdtd_kargs_of(const tl_fdtd *f, int sd, tl_fdtd_kargs *a)
{
    const tl_fdtd_config *c = &f->cfg;
    const tl_fdtd_sub *s = &f->sub[sd];
    memset(a, 0, sizeof *a);
    for (int i = 0; i < 4; i++) {
        a->f[i] = s->fld[i];
        a->mat[i] = s->mat[i];
        a->c[i] = f->c[i];
    }
    a->kdt = c->K * f->dt;
    a->bdt = f->dt / c->rho;
    a->r = f->r;
    a->off = s->full.off;
    a->sx = s->full.sx;
    a->sxy = s->full.sxy;
    for (int d = 0; d < 3; d++) {
        a->o[d] = s->o[d];
        a->N[d] = c->n[d];
    }
    a->L = c->cpml;
    for (int m = 0; m < TL_FDTD_NPSI; m++)
        for (int side = 0; side < 2; side++) {
            a->psi[m][side] = s->psi_mem[m][side];
            a->psil[m][side] = s->psi[m][side];
        }
    const char *prof = s->prof;
    size_t off = 0;
    for (int d = 0; d < 3; d++) {
        a->prof[d] = prof ? prof + off : NULL;
        off += (size_t)(TL_FDTD_PROF_N * c->n[d]) * f->esz;
    }
}

void tl_fdtd_msg_descs(const tl_fdtd *f, const tl_fdtd_msg *m, int send, tl_fdtd_segdesc *dd)
{
    const tl_fdtd_sub *s = &f->sub[send ? m->from : m->to];
    for (int i = 0; i < m->nseg; i++) {
        const tl_fdtd_seg *g = &m->seg[i];
        const tl_fdtd_layout *l;
        void *ptr;
        if (g->field < 4) {
            l = &s->full;
            ptr = s->fld[g->field];
        } else {
            int k = (g->field - 4) / 2, side = (g->field - 4) % 2;
            l = &s->psi[k][side];
            ptr = s->psi_mem[k][side];
        }
        const tl_fdtd_box *b = send ? &g->src : &g->dst;
        tl_fdtd_segdesc *d = &dd[i];
        d->ptr = ptr;
        d->off = l->off;
        d->sx = l->sx;
        d->sxy = l->sxy;
        for (int e = 0; e < 3; e++) {
            d->lo[e] = b->lo[e];
            d->ext[e] = b->hi[e] - b->lo[e];
        }
        d->buf_off = g->buf_off;
        d->count = g->count;
    }
}
