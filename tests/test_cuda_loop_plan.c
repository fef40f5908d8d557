/* The persistent Pipe-PCG loop's order of items (solvers/backends/cuda/loop_plan.h),
 * on the host. An item handed out before something it waits for would
 * deadlock the GPU loop (its block spins on a flag no running block will
 * set), and a window too small is a race no host comparison reliably
 * shows: both are checked here, on patterns whose windows are known. */
#include <stdlib.h>

#include "solvers/backends/cuda/loop_plan.h"
#include "tests/tl_test.h"

typedef struct csr {
    int32_t n, *rp, *ci;
} csr;

/* rows i reading columns col(i, k, n), k < per (a negative one skipped) */
static csr make(int32_t n, int per, int32_t (*col)(int32_t i, int k, int32_t n))
{
    csr a = {n, malloc((size_t)(n + 1) * sizeof(int32_t)),
             malloc((size_t)n * per * sizeof(int32_t))};
    int32_t nnz = 0;
    for (int32_t i = 0; i < n; i++) {
        a.rp[i] = nnz;
        for (int k = 0; k < per; k++) {
            int32_t c = col(i, k, n);
            if (c >= 0) a.ci[nnz++] = c;
        }
    }
    a.rp[n] = nnz;
    return a;
}

static void csr_free(csr *a)
{
    free(a->rp);
    free(a->ci);
}

/* 7-point Laplacian on a 32^3 grid: 32,768 rows, neighbours 1,024 apart */
static int32_t poisson7(int32_t i, int k, int32_t n)
{
    (void)n;
    int32_t g = 32, x = i % g, y = i / g % g, z = i / (g * g);
    static const int d[7][3] = {{0, 0, -1}, {0, -1, 0}, {-1, 0, 0}, {0, 0, 0},
                                {1, 0, 0},  {0, 1, 0},  {0, 0, 1}};
    int32_t a = x + d[k][0], b = y + d[k][1], c = z + d[k][2];
    if (a < 0 || b < 0 || c < 0 || a >= g || b >= g || c >= g) return -1;
    return (c * g + b) * g + a;
}

/* every row reads column 0 and its own: tile 0 is read by every tile */
static int32_t first_column(int32_t i, int k, int32_t n)
{
    (void)n;
    return k == 0 ? 0 : i == 0 ? -1 : i;
}

TL_TEST(poisson7_windows_and_order)
{
    csr a = make(32 * 32 * 32, 7, poisson7);
    tl_cu_loop_plan p;
    TL_ASSERT_OK(tl_cu_loop_plan_make_with(a.rp, a.ci, a.n, 1024, 4, 1, &p));
    TL_ASSERT_EQ(p.ntiles, 32);
    TL_ASSERT_EQ(p.nitems, 96);
    /* a tile is one z plane: its rows read the planes above and below */
    for (int32_t t = 0; t < p.ntiles; t++) {
        TL_ASSERT_EQ(p.flo[t], t > 0 ? t - 1 : 0);
        TL_ASSERT_EQ(p.fhi[t], t < 31 ? t + 1 : 31);
        TL_ASSERT_EQ(p.rlo[t], p.flo[t]);
        TL_ASSERT_EQ(p.rhi[t], p.fhi[t]);
    }
    /* lag 1 asked for, the window reaches 1 tile: S(t) after DJ(t + 1) */
    TL_ASSERT_EQ(p.ahead, 4);
    TL_ASSERT_EQ(p.lag, 1);
    TL_ASSERT_OK(tl_cu_loop_plan_check(&p));
    /* the first items: U(0..3), then DJ(0) with U(4) */
    TL_ASSERT_EQ(p.items[0], TL_CU_ITEM(TL_CU_STEP_U, 0));
    TL_ASSERT_EQ(p.items[4], TL_CU_ITEM(TL_CU_STEP_U, 4));
    TL_ASSERT_EQ(p.items[5], TL_CU_ITEM(TL_CU_STEP_DJ, 0));
    TL_ASSERT_EQ(p.items[p.nitems - 1], TL_CU_ITEM(TL_CU_STEP_S, 31));
    tl_cu_loop_plan_free(&p);
    csr_free(&a);
}

TL_TEST(lag_grows_to_the_widest_window)
{
    /* tile 0 is read by every tile: S(t) needs DJ(0) .. DJ(t), and the
     * reverse window of tile 0 is every tile */
    csr a = make(8 * 512, 2, first_column);
    tl_cu_loop_plan p;
    TL_ASSERT_OK(tl_cu_loop_plan_make_with(a.rp, a.ci, a.n, 512, 1, 0, &p));
    TL_ASSERT_EQ(p.ntiles, 8);
    TL_ASSERT_EQ(p.flo[7], 0);
    TL_ASSERT_EQ(p.rhi[0], 7);
    TL_ASSERT_EQ(p.lag, 7);
    TL_ASSERT_OK(tl_cu_loop_plan_check(&p));
    tl_cu_loop_plan_free(&p);
    csr_free(&a);
}

TL_TEST(check_finds_a_broken_order)
{
    csr a = make(32 * 32 * 32, 7, poisson7);
    tl_cu_loop_plan p;
    TL_ASSERT_OK(tl_cu_loop_plan_make_with(a.rp, a.ci, a.n, 1024, 2, 1, &p));
    /* S(0) moved before DJ(1), which it reads */
    int32_t s0 = -1, dj1 = -1;
    for (int32_t i = 0; i < p.nitems; i++) {
        if (p.items[i] == TL_CU_ITEM(TL_CU_STEP_S, 0)) s0 = i;
        if (p.items[i] == TL_CU_ITEM(TL_CU_STEP_DJ, 1)) dj1 = i;
    }
    TL_ASSERT(s0 > dj1 && dj1 >= 0);
    uint32_t t = p.items[s0];
    p.items[s0] = p.items[dj1];
    p.items[dj1] = t;
    TL_ASSERT(tl_cu_loop_plan_check(&p) != TL_OK);
    /* a tile's step twice, another's missing */
    p.items[s0] = p.items[dj1];
    TL_ASSERT(tl_cu_loop_plan_check(&p) != TL_OK);
    tl_cu_loop_plan_free(&p);
    csr_free(&a);
}

TL_TEST(defaults_follow_the_measurements)
{
    /* 128^3-sized in rows (a tridiagonal pattern: windows of one tile) */
    int32_t n = 2097152;
    int32_t *rp = malloc((size_t)(n + 1) * sizeof *rp), *ci = malloc((size_t)n * sizeof *ci);
    for (int32_t i = 0; i < n; i++) {
        rp[i] = i;
        ci[i] = i;
    }
    rp[n] = n;
    tl_cu_loop_plan p;
    TL_ASSERT_OK(tl_cu_loop_plan_make(rp, ci, n, 528, &p));
    TL_ASSERT_EQ(p.tile, 1024);
    TL_ASSERT_EQ(p.ntiles, 2048);
    TL_ASSERT_EQ(p.ahead, 264);
    TL_ASSERT_EQ(p.lag, 1056);
    TL_ASSERT_OK(tl_cu_loop_plan_check(&p));
    tl_cu_loop_plan_free(&p);
    /* a one-tile matrix: every distance at most the tile count */
    TL_ASSERT_OK(tl_cu_loop_plan_make(rp, ci, 1000, 528, &p));
    TL_ASSERT_EQ(p.ntiles, 1);
    TL_ASSERT_EQ(p.ahead, 1);
    TL_ASSERT_EQ(p.lag, 1);
    TL_ASSERT_OK(tl_cu_loop_plan_check(&p));
    tl_cu_loop_plan_free(&p);
    free(rp);
    free(ci);
}

TL_TEST(bad_input_refused)
{
    int32_t rp[3] = {0, 1, 2}, ci[2] = {0, 5};
    tl_cu_loop_plan p;
    TL_ASSERT(tl_cu_loop_plan_make_with(rp, ci, 2, 1024, 1, 1, &p) != TL_OK);
    TL_ASSERT(p.items == NULL);
    TL_ASSERT(tl_cu_loop_plan_make_with(rp, ci, 0, 1024, 1, 1, &p) != TL_OK);
}

TL_TEST_MAIN(poisson7_windows_and_order, lag_grows_to_the_widest_window, check_finds_a_broken_order,
             defaults_follow_the_measurements, bad_input_refused)
