/* trilap-fdtd verify reflection: the CPML's reflection for each thickness
 * of --cells and decomposition of --decomps against a grid too large for
 * anything to return, every grid kept within verify's bound and every
 * run's configuration checked before the runs. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "runtime/progress.h"
#include "stencil/verify_impl.h"

/* Every grid verify reflection would build within VERIFY_GRID_MAX points
 * per axis, or one line naming the option that outgrows it (before,
 * --cells 0,100000 was refused as the host's lack of 238561658.9 GiB for
 * "the 200040x200040x200040 grid", exit 1, and --f0 1e-6 as "grid size
 * 2400098 along x: must be 2 to 2^20", neither naming the option). */
static tl_status reflection_bounds(verify_args *va, const char *list, const int64_t *cells, int nc)
{
    int64_t n_int = va->o.n_int, thickest = 0;
    for (int k = 0; k < nc; k++) thickest = cells[k] > thickest ? cells[k] : thickest;
    if (n_int + 2 * thickest > VERIFY_GRID_MAX) {
        char why[256], val[32];
        snprintf(val, sizeof val, "%" PRId64, n_int);
        snprintf(why, sizeof why,
                 "%" PRId64 " cells on each side of the %" PRId64 "-point interior make %" PRId64
                 " points per axis, and verify's grids stop at %d: at most %" PRId64 " %s%s",
                 thickest, n_int, n_int + 2 * thickest, VERIFY_GRID_MAX,
                 va->o.cells ? (VERIFY_GRID_MAX - n_int) / 2 : VERIFY_GRID_MAX - 2 * thickest,
                 va->o.cells ? "cells with this --n-int" : "interior points with --cells ", va->o.cells ? "" : list);
        /* the option typed is the one to change: --n-int under the default --cells */
        return va->o.cells ? tl_verify_refuse(va, "--cells", list, why) : tl_verify_refuse(va, "--n-int", val, why);
    }
    int64_t ref = tl_fdtd_verify_reflection_reference_n(n_int, va->o.f0);
    if (ref <= VERIFY_GRID_MAX) return TL_OK;
    fprintf(stderr,
            PROG ": --n-int %" PRId64 " with --f0 %g: the reference run (the interior in a grid where nothing "
                 "returns within the window) needs %" PRId64 " points per axis, and verify's grids stop at %d (give a "
                 "smaller --n-int or a higher --f0)\n",
            n_int, va->o.f0, ref, VERIFY_GRID_MAX);
    va->usage_error = 1;
    return TL_ERR_REMOTE; /* said */
}

tl_status tl_verify_reflection(verify_args *va)
{
    int64_t cells[16];
    const char *list = va->o.cells ? va->o.cells : "0,8,12,16,24";
    int nc = tl_verify_parse_ints(list, cells, 16);
    if (nc <= 0) return tl_verify_refuse(va, "--cells", list, "expected up to 16 CPML thicknesses, comma-separated");
    TL_TRY(tl_verify_refuse_repeated_ints(va, "--cells", list, cells, nc));
    TL_TRY(reflection_bounds(va, list, cells, nc));
    char buf[1024], *names[32];
    int pd[32][3];
    int nd = tl_verify_parse_decomps(va, va->o.decomps ? va->o.decomps : "1x1x1", buf, sizeof buf, names, pd, 32);
    if (nd < 0) return TL_ERR_REMOTE; /* said */
    TL_TRY(tl_verify_refuse_idle_s(va, (const int(*)[3])pd, nd, "--decomps"));
    char what[128];
    /* named as the run it is: "the 2498x2498x2498 grid" alone was a grid no option sets */
    snprintf(what, sizeof what, "verify reflection, the reference run (--n-int %" PRId64 " inside a grid where nothing "
             "returns within the window, for --f0 %g)", va->o.n_int, va->o.f0);
    tl_error_context kr;
    tl_error_context_begin(&kr, what);
    TL_TRY(tl_verify_end_run_check(va, &kr, tl_fdtd_verify_reflection_reference_check(&va->v, va->o.n_int, va->o.f0)));
    tl_fdtd_vopts v[32];
    for (int i = 0; i < nd; i++) {
        v[i] = va->v;
        memcpy(v[i].pd, pd[i], sizeof pd[i]);
        snprintf(what, sizeof what, "verify reflection, %s", names[i]);
        tl_error_context k;
        tl_error_context_begin(&k, what);
        TL_TRY(tl_verify_end_run_check(
            va, &k, tl_fdtd_verify_reflection_check(&v[i], 1, va->o.n_int, va->o.f0, cells, nc)));
    }
    double r[32 * 16];
    /* one unit per run: the reference, then every decomposition x thickness */
    tl_progress bar;
    tl_progress_begin(&bar, "verify reflection", 1.0 + nd * nc, "runs", tl_progress_mode_of(va->o.progress));
    for (int i = 0; i < nd; i++) v[i].progress = &bar;
    tl_status st = tl_fdtd_verify_reflection(v, nd, va->o.n_int, va->o.f0, cells, nc, r);
    tl_progress_end(&bar);
    TL_TRY(st);
    printf("decomp,cells,ratio\n");
    for (int i = 0; i < nd; i++)
        for (int j = 0; j < nc; j++) printf("%s,%" PRId64 ",%.6e\n", names[i], cells[j], r[i * nc + j]);
    return TL_OK;
}
