/* The block partition of a generated matrix from each rank's row range and
 * the generator's stencil alone (partstats.h): no array of one entry per
 * row, so 1024^3 rows in 256 blocks take milliseconds and kilobytes where
 * the row-by-row pass of tl_mpart_compute took a minute and 13 GB.
 *
 * A generated row (x, y, z) holds the column (x, y, z) + s for every offset
 * s of its kind's stencil whose end lies inside the grid, and nothing else
 * (gen.c drops no entry by its value), and the stencils are symmetric
 * (s in it, -s in it). Rows [lo, hi) then reach no column outside
 * [lo - reach, hi + reach), reach the largest |linear offset|, so the
 * border rows and the ghosts are found on the x-lines of those bands only,
 * each line as a union of intervals (one or two per offset); the nonzeros
 * are counted per offset in closed form. tests/test_model.c checks every
 * field and halo message against tl_mpart_compute. */
#include "model/partstats.h"

#include <stdlib.h>
#include <string.h>

#include "solvers/dist/partition.h"

typedef struct stencil {
    int64_t nx, ny, nz; /* nz = 1 for the 2D kind */
    int ns;
    int dx[TL_GEN_MAX_ROW], dy[TL_GEN_MAX_ROW], dz[TL_GEN_MAX_ROW];
    int64_t d[TL_GEN_MAX_ROW]; /* the linear offset dx + nx (dy + ny dz) */
    int64_t reach;
} stencil;

/* The offsets read from the generator itself: the row of the centre point
 * of the same kind on a 3-point grid. */
static tl_status stencil_of(const tl_gen *g, stencil *t)
{
    memset(t, 0, sizeof *t);
    int two = tl_gen_dims(g) == 2;
    tl_gen g3 = *g;
    g3.n = 3;
    int64_t cols[TL_GEN_MAX_ROW];
    double vals[TL_GEN_MAX_ROW];
    int64_t centre = two ? 4 : 13;
    int len = tl_gen_row(&g3, centre, cols, vals);
    TL_CHECK(len >= 1 && len <= TL_GEN_MAX_ROW, TL_ERR_INVAL, "%s: %d entries in a row", tl_gen_kind_name(g->kind),
             len);
    t->nx = t->ny = g->n;
    t->nz = two ? 1 : g->n;
    t->ns = len;
    for (int s = 0; s < len; s++) {
        t->dx[s] = (int)(cols[s] % 3) - 1;
        t->dy[s] = (int)(cols[s] / 3 % 3) - 1;
        t->dz[s] = two ? 0 : (int)(cols[s] / 9) - 1;
        t->d[s] = t->dx[s] + t->nx * (t->dy[s] + t->ny * t->dz[s]);
        int64_t a = t->d[s] < 0 ? -t->d[s] : t->d[s];
        t->reach = a > t->reach ? a : t->reach;
    }
    return TL_OK;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* |[l, u) n [0, k)| where [l, u) are the coordinates, along an axis of m
 * points, from which a step dd stays inside. */
static int64_t axis_below(int64_t m, int dd, int64_t k)
{
    int64_t l = dd < 0 ? -dd : 0, u = m - (dd > 0 ? dd : 0);
    return max64(0, min64(u, k) - l);
}

static int axis_inside(int64_t m, int dd, int64_t c)
{
    return c >= (dd < 0 ? -dd : 0) && c < m - (dd > 0 ? dd : 0);
}

/* Rows j < i whose entry at offset s exists: whole z-planes, then whole
 * y-lines of the plane of i, then the points of its line before it. */
static int64_t valid_before(const stencil *t, int s, int64_t i)
{
    int64_t plane = t->nx * t->ny, z = i / plane, y = i % plane / t->nx, x = i % t->nx;
    int64_t nx = axis_below(t->nx, t->dx[s], t->nx), ny = axis_below(t->ny, t->dy[s], t->ny);
    int64_t c = axis_below(t->nz, t->dz[s], z) * ny * nx;
    if (axis_inside(t->nz, t->dz[s], z)) {
        c += axis_below(t->ny, t->dy[s], y) * nx;
        if (axis_inside(t->ny, t->dy[s], y)) c += axis_below(t->nx, t->dx[s], x);
    }
    return c;
}

/* Rows of [a, b) whose entry at offset s exists. */
static int64_t valid_in(const stencil *t, int s, int64_t a, int64_t b)
{
    return a < b ? valid_before(t, s, b) - valid_before(t, s, a) : 0;
}

/* One x-line of a band: points base + x, x in [xa, xb), at (y, z). */
typedef struct line {
    int64_t base, y, z, xa, xb;
} line;

/* The next line of [*i, b), *i moved past it; 0 when none is left. */
static int line_next(const stencil *t, int64_t *i, int64_t b, line *L)
{
    if (*i >= b) return 0;
    L->xa = *i % t->nx;
    L->y = *i / t->nx % t->ny;
    L->z = *i / t->nx / t->ny;
    L->base = *i - L->xa;
    L->xb = min64(t->nx, L->xa + (b - *i));
    *i = L->base + L->xb;
    return 1;
}

typedef struct spans {
    int n;
    int64_t a[2 * TL_GEN_MAX_ROW], b[2 * TL_GEN_MAX_ROW];
} spans;

static void span_add(spans *sp, int64_t a, int64_t b)
{
    if (a >= b) return;
    sp->a[sp->n] = a;
    sp->b[sp->n++] = b;
}

/* Sorted by start and merged in place (insertion sort: a few dozen at
 * most, most lines have one or two). */
static void span_merge(spans *sp)
{
    for (int k = 1; k < sp->n; k++)
        for (int j = k; j > 0 && sp->a[j - 1] > sp->a[j]; j--) {
            int64_t a = sp->a[j], b = sp->b[j];
            sp->a[j] = sp->a[j - 1], sp->b[j] = sp->b[j - 1];
            sp->a[j - 1] = a, sp->b[j - 1] = b;
        }
    int m = 0;
    for (int k = 0; k < sp->n; k++)
        if (m && sp->a[k] <= sp->b[m - 1])
            sp->b[m - 1] = max64(sp->b[m - 1], sp->b[k]);
        else
            sp->a[m] = sp->a[k], sp->b[m++] = sp->b[k];
    sp->n = m;
}

/* Rows of the line with an entry outside [lo, hi): per offset, the x whose
 * column exists and falls below lo (a prefix) or at hi or above (a suffix). */
static int64_t border_rows_of(const stencil *t, const line *L, int64_t lo, int64_t hi)
{
    spans sp = {0};
    for (int s = 0; s < t->ns; s++) {
        if (!t->d[s] || !axis_inside(t->ny, t->dy[s], L->y) || !axis_inside(t->nz, t->dz[s], L->z)) continue;
        int64_t a = max64(L->xa, -t->dx[s]), b = min64(L->xb, t->nx - t->dx[s]);
        span_add(&sp, a, min64(b, lo - t->d[s] - L->base));
        span_add(&sp, max64(a, hi - t->d[s] - L->base), b);
    }
    span_merge(&sp);
    int64_t rows = 0;
    for (int k = 0; k < sp.n; k++) rows += sp.b[k] - sp.a[k];
    return rows;
}

/* Columns of the line (all outside [lo, hi)) that a row of [lo, hi)
 * reaches: per offset s, the x whose point less s is inside the grid and is
 * a row of [lo, hi); counted towards their owners in from[], whose touched
 * range widens [*omin, *omax]. */
static int64_t ghosts_of(const stencil *t, const line *L, int64_t lo, int64_t hi, int64_t nrows, int nranks,
                         int64_t *from, int *omin, int *omax)
{
    spans sp = {0};
    for (int s = 0; s < t->ns; s++) {
        if (!t->d[s] || !axis_inside(t->ny, -t->dy[s], L->y) || !axis_inside(t->nz, -t->dz[s], L->z)) continue;
        int64_t a = max64(L->xa, t->dx[s]), b = min64(L->xb, t->nx + t->dx[s]);
        span_add(&sp, max64(a, lo + t->d[s] - L->base), min64(b, hi + t->d[s] - L->base));
    }
    span_merge(&sp);
    int64_t ghosts = 0;
    for (int k = 0; k < sp.n; k++)
        for (int64_t c = L->base + sp.a[k], end = L->base + sp.b[k]; c < end;) {
            int o = tl_partition_block_owner(nrows, nranks, c);
            int64_t next = min64(end, tl_partition_block_first(nrows, nranks, o + 1));
            from[o] += next - c;
            ghosts += next - c;
            *omin = o < *omin ? o : *omin;
            *omax = o > *omax ? o : *omax;
            c = next;
        }
    return ghosts;
}

/* Rank r's statistics and the messages it receives, added in the order
 * tl_mpart_compute adds them (receiver, then owner, ascending). */
static tl_status block_rank(const stencil *t, int r, int64_t *from, tl_mpart *out)
{
    const int64_t n = out->nrows, lo = tl_partition_block_first(n, out->nranks, r),
                  hi = tl_partition_block_first(n, out->nranks, r + 1);
    tl_mrank_stats *S = &out->r[r];
    int64_t nnz = 0;
    S->rows = hi - lo;
    for (int s = 0; s < t->ns; s++) {
        int64_t d = t->d[s];
        nnz += valid_in(t, s, lo, hi);
        if (d > 0) S->nnz_offd += valid_in(t, s, max64(lo, hi - d), hi);
        if (d < 0) S->nnz_offd += valid_in(t, s, lo, min64(hi, lo - d));
    }
    S->nnz_diag = nnz - S->nnz_offd;
    out->nnz += nnz;
    line L;
    /* the rows within reach of either end, each once */
    int64_t low_end = min64(hi, lo + t->reach);
    for (int64_t i = lo; line_next(t, &i, low_end, &L);) S->border_rows += border_rows_of(t, &L, lo, hi);
    for (int64_t i = max64(low_end, hi - t->reach); line_next(t, &i, hi, &L);)
        S->border_rows += border_rows_of(t, &L, lo, hi);
    int omin = out->nranks, omax = -1;
    for (int64_t i = max64(0, lo - t->reach); line_next(t, &i, lo, &L);)
        S->ghosts += ghosts_of(t, &L, lo, hi, n, out->nranks, from, &omin, &omax);
    for (int64_t i = hi; line_next(t, &i, min64(n, hi + t->reach), &L);)
        S->ghosts += ghosts_of(t, &L, lo, hi, n, out->nranks, from, &omin, &omax);
    for (int o = omin; o <= omax; o++)
        if (from[o]) {
            TL_TRY(tl_mhalo_add(out->halo, o, r, from[o] * 8));
            from[o] = 0;
        }
    return TL_OK;
}

tl_status tl_mpart_block_gen(const tl_gen *g, int nranks, tl_mpart *out)
{
    memset(out, 0, sizeof *out);
    int64_t n = tl_gen_nrows(g);
    TL_CHECK(nranks >= 1 && n >= nranks, TL_ERR_INVAL, "%lld rows cannot make %d parts", (long long)n, nranks);
    stencil t;
    TL_TRY(stencil_of(g, &t));
    tl_status st = TL_OK;
    int64_t *from = calloc((size_t)nranks, sizeof *from);
    out->nranks = nranks;
    out->nrows = n;
    out->r = calloc((size_t)nranks, sizeof *out->r);
    out->halo = calloc((size_t)nranks, sizeof *out->halo);
    TL_CHECKGOTO(from && out->r && out->halo, TL_ERR_NOMEM, st, fail, "partition statistics for %d ranks", nranks);
    for (int r = 0; r < nranks; r++) TL_TRYGOTO(block_rank(&t, r, from, out), st, fail);
fail:
    free(from);
    if (st != TL_OK) tl_mpart_free(out);
    return st;
}
