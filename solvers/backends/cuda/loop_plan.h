/* The order in which the persistent Pipe-PCG loop (kernels.h,
 * tl_cu_pipecg_loop) hands out its work: the rows of a rank in tiles,
 * three steps per tile and iteration, and for each tile the tiles its
 * SpMV rows read. Plain C, so the host tests check the order without a
 * GPU (tests/test_cuda_loop_plan.c).
 *
 * Iteration k of the loop is, per tile t:
 *   DJ_k(t)  the local dots (r, u), (w, u), (r, r) of the tile and m = D^-1 w
 *   S_k(t)   n = A m on the tile's rows
 *   U_k(t)   the eight AXPYs, with alpha and beta of iteration k's program
 * The blocks of one kernel take items from a counter in this order, per
 * iteration block k = 0 .. K: for t = 0, 1, ... the items U_{k-1}(t),
 * DJ_k(t - ahead), S_k(t - ahead - lag) that exist. Every item waits for
 * what it reads or overwrites:
 *   DJ_k(t)  U_{k-1}(t), and S_{k-1} of the tiles whose rows read m(t)
 *   S_k(t)   DJ_k of the tiles its rows read
 *   U_k(t)   S_k(t) (and through it DJ_k(t)), and the program of
 *            iteration k, run by the last DJ_k item once all are done;
 *            in a launch's last iteration, where it also writes m(t),
 *            S_k of the tiles whose rows read m(t)
 * and each of those is handed out earlier, so that some running block
 * holds it: the loop cannot deadlock (tl_cu_loop_plan_check). */
#ifndef TL_CUDA_LOOP_PLAN_H
#define TL_CUDA_LOOP_PLAN_H

#include <stdint.h>

#include "runtime/error.h"

enum { TL_CU_STEP_U = 0, TL_CU_STEP_DJ = 1, TL_CU_STEP_S = 2 };

/* An item: (step << 24) | tile. */
#define TL_CU_ITEM(step, tile) (((uint32_t)(step) << 24) | (uint32_t)(tile))
#define TL_CU_ITEM_STEP(it) ((int)((it) >> 24))
#define TL_CU_ITEM_TILE(it) ((int32_t)((it) & 0xffffffu))

typedef struct tl_cu_loop_plan {
    int32_t tile, ntiles;
    int32_t ahead, lag; /* how many tiles DJ runs behind U, and S behind DJ */
    int32_t nitems;     /* items per iteration block: 3 ntiles */
    uint32_t *items;
    /* per tile t: [flo[t], fhi[t]] the tiles of m its rows read, [rlo[t],
     * rhi[t]] the tiles whose rows read its m; both contain t */
    int32_t *flo, *fhi, *rlo, *rhi;
} tl_cu_loop_plan;

/* The plan for the nrows x nrows CSR block (rowptr, colidx) run by
 * `resident` blocks at once. Tiles of 1,024 rows up to 4 Mi rows, 2,048
 * above; ahead = resident / 2 and lag = the larger of the widest window,
 * twice the resident blocks and a quarter of the tiles, each at most the
 * tile count (one H200, results/solver-persistent-h200/: an item handed
 * out right after what it waits for waits; 128^3 best with 1,024-row
 * tiles, ahead 256, lag 1,024-1,536 on 528 blocks; 256^3 with 2,048-row
 * tiles, ahead 256, lag 2,048). */
tl_status tl_cu_loop_plan_make(const int32_t *rowptr, const int32_t *colidx, int32_t nrows,
                               int resident, tl_cu_loop_plan *p);
/* The same with the tile size and distances given (tests, sweeps). */
tl_status tl_cu_loop_plan_make_with(const int32_t *rowptr, const int32_t *colidx, int32_t nrows,
                                    int32_t tile, int32_t ahead, int32_t lag,
                                    tl_cu_loop_plan *p);
void tl_cu_loop_plan_free(tl_cu_loop_plan *p);

/* Every tile's three items once per iteration block, and every wait on
 * an item handed out earlier (the order above): TL_OK, else what breaks. */
tl_status tl_cu_loop_plan_check(const tl_cu_loop_plan *p);

#endif
