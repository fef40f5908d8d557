/* trilap-fdtd verify convergence: the standing wave's spatial error and
 * rates for each order of --orders over the grids of --sizes, each run's
 * configuration checked before the table's first line. */
#include <inttypes.h>
#include <stdio.h>

#include "stencil/verify_impl.h"

/* --orders and --sizes, each run checked, before the table's first line */
static tl_status convergence_check(verify_args *va, const int64_t *orders, int no, const int64_t *sizes, int ns)
{
    for (int i = 0; i < no; i++)
        if (orders[i] != 2 && orders[i] != 4 && orders[i] != 8) {
            char why[64];
            snprintf(why, sizeof why, "%" PRId64 " is not 2, 4 or 8", orders[i]);
            return tl_verify_refuse(va, "--orders", va->o.orders, why);
        }
    for (int i = 0; i < no; i++)
        for (int j = 0; j < ns; j++) {
            char what[96];
            snprintf(what, sizeof what, "verify convergence, order %d, n = %" PRId64, (int)orders[i], sizes[j]);
            tl_error_context k;
            tl_error_context_begin(&k, what);
            TL_TRY(tl_verify_end_run_check(
                va, &k, tl_fdtd_verify_wave_check(&va->v, (int)orders[i], sizes[j], va->o.cfl)));
        }
    return TL_OK;
}

tl_status tl_verify_convergence(verify_args *va)
{
    int64_t orders[8], sizes[16];
    int no = tl_verify_parse_ints(va->o.orders, orders, 8), ns = tl_verify_parse_ints(va->o.sizes, sizes, 16);
    if (no <= 0) return tl_verify_refuse(va, "--orders", va->o.orders, "expected up to 8 of 2, 4, 8, comma-separated");
    if (ns <= 0) return tl_verify_refuse(va, "--sizes", va->o.sizes, "expected up to 16 grid sizes, comma-separated");
    TL_TRY(tl_verify_refuse_repeated_ints(va, "--orders", va->o.orders, orders, no));
    TL_TRY(tl_verify_refuse_repeated_ints(va, "--sizes", va->o.sizes, sizes, ns));
    /* the bounds of --grid: a size outside them was the solver's "grid size
     * 0 along x: must be 2 to 2^20", or 99999 the host's lack of 29801428.3
     * GiB (exit 1), neither naming --sizes */
    for (int j = 0; j < ns; j++)
        if (sizes[j] < 2 || sizes[j] > VERIFY_GRID_MAX) {
            char why[96];
            snprintf(why, sizeof why, "%" PRId64 " is not 2 to %d", sizes[j], (int)VERIFY_GRID_MAX);
            return tl_verify_refuse(va, "--sizes", va->o.sizes, why);
        }
    verify_wave_run runs[8 * 16];
    char cfl[32];
    for (int i = 0; i < no; i++)
        for (int j = 0; j < ns; j++) runs[i * ns + j] = (verify_wave_run){(int)orders[i], sizes[j], va->o.cfl};
    snprintf(cfl, sizeof cfl, "%g", va->o.cfl);
    TL_TRY(convergence_check(va, orders, no, sizes, ns)); /* --orders first: the span needs a valid order */
    TL_TRY(tl_verify_wave_steps_refused(va, "--cfl", cfl, runs, no * ns));
    tl_verify_wave_steps_note(va, "--cfl", cfl, runs, no * ns);
    printf("order,n,l2,linf,rate_l2,rate_linf\n");
    for (int i = 0; i < no; i++) {
        verify_rated r = {0};
        for (int j = 0; j < ns; j++) {
            double l2, li;
            TL_TRY(tl_fdtd_verify_wave(&va->v, (int)orders[i], sizes[j], va->o.cfl, 1, &l2, &li));
            char key[48], name[24];
            snprintf(key, sizeof key, "%d,%" PRId64, (int)orders[i], sizes[j]);
            snprintf(name, sizeof name, "%" PRId64, sizes[j]);
            tl_verify_rated_row(va, &r, key, name, (double)sizes[j], l2, li,
                                tl_fdtd_verify_wave_steps((int)orders[i], sizes[j], va->o.cfl, NULL));
        }
        char what[32];
        snprintf(what, sizeof what, "# order %d, n =", (int)orders[i]);
        tl_verify_floor_note(va, what, &r);
    }
    return TL_OK;
}
