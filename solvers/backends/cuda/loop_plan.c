/* The persistent Pipe-PCG loop's order of items (see loop_plan.h). */
#include "solvers/backends/cuda/loop_plan.h"

#include <stdlib.h>

static int32_t at_most(int64_t v, int32_t cap)
{
    return v > cap ? cap : (int32_t)v;
}

/* The tiles of m each tile's rows read, and their reverse. */
static tl_status windows(const int32_t *rowptr, const int32_t *colidx, int32_t nrows,
                         tl_cu_loop_plan *p)
{
    for (int32_t t = 0; t < p->ntiles; t++) {
        p->flo[t] = p->fhi[t] = t;
        p->rlo[t] = p->rhi[t] = t;
    }
    for (int32_t i = 0; i < nrows; i++) {
        int32_t t = i / p->tile;
        for (int32_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            int32_t c = colidx[k];
            TL_CHECK(c >= 0 && c < nrows, TL_ERR_INVAL,
                     "loop plan: row %d reads column %d of a %d x %d block", i, c, nrows, nrows);
            int32_t j = c / p->tile;
            if (j < p->flo[t]) p->flo[t] = j;
            if (j > p->fhi[t]) p->fhi[t] = j;
        }
    }
    /* S(t) waits for every tile of [flo[t], fhi[t]], so the tiles that
     * must be done with m(j) are those whose interval holds j */
    for (int32_t t = 0; t < p->ntiles; t++)
        for (int32_t j = p->flo[t]; j <= p->fhi[t]; j++) {
            if (t < p->rlo[j]) p->rlo[j] = t;
            if (t > p->rhi[j]) p->rhi[j] = t;
        }
    return TL_OK;
}

tl_status tl_cu_loop_plan_make_with(const int32_t *rowptr, const int32_t *colidx, int32_t nrows,
                                    int32_t tile, int32_t ahead, int32_t lag,
                                    tl_cu_loop_plan *p)
{
    *p = (tl_cu_loop_plan){0};
    TL_CHECK(nrows > 0 && tile > 0, TL_ERR_INVAL, "loop plan: %d rows in tiles of %d", nrows,
             tile);
    int64_t nt = ((int64_t)nrows + tile - 1) / tile;
    TL_CHECK(nt < (1 << 24), TL_ERR_INVAL, "loop plan: %lld tiles (at most 2^24)", (long long)nt);
    p->tile = tile;
    p->ntiles = (int32_t)nt;
    p->ahead = ahead < 1 ? 1 : at_most(ahead, p->ntiles);
    tl_status st = TL_OK;
    p->nitems = 3 * p->ntiles;
    p->flo = calloc((size_t)p->ntiles, sizeof *p->flo);
    p->fhi = calloc((size_t)p->ntiles, sizeof *p->fhi);
    p->rlo = calloc((size_t)p->ntiles, sizeof *p->rlo);
    p->rhi = calloc((size_t)p->ntiles, sizeof *p->rhi);
    p->items = calloc((size_t)p->nitems, sizeof *p->items);
    TL_CHECKGOTO(p->flo && p->fhi && p->rlo && p->rhi && p->items, TL_ERR_NOMEM, st, fail,
                 "loop plan of %d tiles", p->ntiles);
    TL_TRYGOTO(windows(rowptr, colidx, nrows, p), st, fail);
    int32_t widest = 0;
    for (int32_t t = 0; t < p->ntiles; t++) {
        int32_t w = p->fhi[t] - t > t - p->flo[t] ? p->fhi[t] - t : t - p->flo[t];
        if (w > widest) widest = w;
    }
    /* S(t) comes `lag` steps after DJ(t): at least its window's reach */
    p->lag = at_most(lag > widest ? lag : widest, p->ntiles);
    int32_t k = 0;
    for (int64_t s = 0; s < (int64_t)p->ntiles + p->ahead + p->lag; s++) {
        int64_t d = s - p->ahead, v = d - p->lag;
        if (s < p->ntiles) p->items[k++] = TL_CU_ITEM(TL_CU_STEP_U, s);
        if (d >= 0 && d < p->ntiles) p->items[k++] = TL_CU_ITEM(TL_CU_STEP_DJ, d);
        if (v >= 0 && v < p->ntiles) p->items[k++] = TL_CU_ITEM(TL_CU_STEP_S, v);
    }
    TL_CHECKGOTO(k == p->nitems, TL_ERR_INVAL, st, fail, "loop plan: %d items of %d", k, p->nitems);
    return TL_OK;
fail:
    tl_cu_loop_plan_free(p);
    return st;
}

tl_status tl_cu_loop_plan_make(const int32_t *rowptr, const int32_t *colidx, int32_t nrows,
                               int resident, tl_cu_loop_plan *p)
{
    int32_t tile = nrows <= (4 << 20) ? 1024 : 2048;
    int64_t nt = ((int64_t)nrows + tile - 1) / tile;
    int64_t lag = 2 * (int64_t)resident > nt / 4 ? 2 * (int64_t)resident : nt / 4;
    return tl_cu_loop_plan_make_with(rowptr, colidx, nrows, tile, resident / 2,
                                     at_most(lag, INT32_MAX), p);
}

void tl_cu_loop_plan_free(tl_cu_loop_plan *p)
{
    free(p->items);
    free(p->flo);
    free(p->fhi);
    free(p->rlo);
    free(p->rhi);
    *p = (tl_cu_loop_plan){0};
}

tl_status tl_cu_loop_plan_check(const tl_cu_loop_plan *p)
{
    tl_status st = TL_OK;
    int32_t *pos = calloc(3 * (size_t)p->ntiles, sizeof *pos);
    TL_CHECK(pos, TL_ERR_NOMEM, "loop plan check of %d tiles", p->ntiles);
    for (int32_t i = 0; i < 3 * p->ntiles; i++)
        pos[i] = -1;
    for (int32_t i = 0; i < p->nitems; i++) {
        int step = TL_CU_ITEM_STEP(p->items[i]);
        int32_t t = TL_CU_ITEM_TILE(p->items[i]);
        TL_CHECKGOTO(step >= 0 && step < 3 && t < p->ntiles, TL_ERR_INVAL, st, done,
                     "loop plan: item %d is step %d of tile %d", i, step, t);
        TL_CHECKGOTO(pos[3 * t + step] < 0, TL_ERR_INVAL, st, done,
                     "loop plan: step %d of tile %d twice (items %d and %d)", step, t,
                     pos[3 * t + step], i);
        pos[3 * t + step] = i;
    }
    for (int32_t t = 0; t < p->ntiles; t++) {
        for (int step = 0; step < 3; step++)
            TL_CHECKGOTO(pos[3 * t + step] >= 0, TL_ERR_INVAL, st, done,
                         "loop plan: no step %d for tile %d", step, t);
        /* within an iteration block; what an item waits for in the block
         * before it is handed out earlier anyway */
        TL_CHECKGOTO(pos[3 * t + TL_CU_STEP_DJ] > pos[3 * t + TL_CU_STEP_U], TL_ERR_INVAL, st,
                     done, "loop plan: DJ of tile %d before the U it waits for", t);
        for (int32_t j = p->flo[t]; j <= p->fhi[t]; j++)
            TL_CHECKGOTO(pos[3 * t + TL_CU_STEP_S] > pos[3 * j + TL_CU_STEP_DJ], TL_ERR_INVAL, st,
                         done, "loop plan: S of tile %d before the DJ of tile %d it reads", t, j);
    }
done:
    free(pos);
    return st;
}
