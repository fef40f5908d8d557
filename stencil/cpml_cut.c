/* The CPML cut of an update's box: cpml_cut.h */
#include "stencil/cpml_cut.h"

#include <string.h>

/* c rounded up (up != 0) or down to a multiple of TL_FDTD_CUT_ALIGN, for
 * negative c too (a halo's local coordinates) */
static int64_t aligned(int64_t c, int up)
{
    const int64_t a = TL_FDTD_CUT_ALIGN;
    int64_t q = c / a * a; /* towards zero */
    if (q == c) return c;
    if (up) return c > 0 ? q + a : q;
    return c > 0 ? q : q - a;
}

void tl_fdtd_cpml_cut_of(const int64_t lo[3], const int64_t hi[3], const int64_t slab_end[3],
                         const int64_t slab_start[3], unsigned fold, tl_fdtd_cpml_cut *c)
{
    memset(c, 0, sizeof *c);
    fold &= 6u;
    int64_t in_lo[3], in_hi[3];
    c->interior = 1;
    for (int e = 0; e < 3; e++) {
        in_lo[e] = lo[e] < slab_end[e] ? slab_end[e] : lo[e];
        in_hi[e] = hi[e] > slab_start[e] ? slab_start[e] : hi[e];
        if (e == 0) {
            if (in_lo[0] > lo[0]) in_lo[0] = aligned(in_lo[0], 1);
            if (in_hi[0] < hi[0]) in_hi[0] = aligned(in_hi[0], 0);
        }
        const int folded = (int)(fold >> e & 1u);
        if (folded && (in_lo[e] > lo[e] || in_hi[e] < hi[e])) c->in_slabs = 1;
        if (!folded && in_hi[e] <= in_lo[e]) c->interior = 0;
    }
    if (!c->interior) {
        c->in_slabs = 0;
        return;
    }
    for (int e = 0; e < 3; e++) {
        const int folded = (int)(fold >> e & 1u);
        c->in.lo[e] = folded ? lo[e] : in_lo[e];
        c->in.hi[e] = folded ? hi[e] : in_hi[e];
    }
    for (int e = 2; e >= 0; e--) {
        if (fold >> e & 1u) continue;
        for (int side = 0; side < 2; side++) {
            tl_fdtd_cut_box s;
            int empty = 0;
            for (int d = 0; d < 3; d++) {
                const int inner = d > e && !(fold >> d & 1u);
                s.lo[d] = inner ? in_lo[d] : lo[d];
                s.hi[d] = inner ? in_hi[d] : hi[d];
            }
            if (side == 0) s.hi[e] = in_lo[e];
            else s.lo[e] = in_hi[e];
            for (int d = 0; d < 3; d++) empty |= s.hi[d] <= s.lo[d];
            if (!empty) c->shell[c->nshell++] = s;
        }
    }
}
