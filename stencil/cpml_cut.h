/* The CPML cut of an update's box (fdtd_vec.cu's launch). The CPML build
 * of the vector kernels, with its memory variables and slab tests, holds
 * more registers than the plain build and runs fewer blocks an SM, so an
 * update with CPML is cut: an interior that runs the plain build (or a
 * build carrying the slabs of the folded axes, whose tests are uniform
 * over a block or a warp) and a shell of boxes that runs the CPML build.
 * Host code, so that the partition is tested without a GPU (test_fdtd). */
#ifndef TL_STENCIL_CPML_CUT_H
#define TL_STENCIL_CPML_CUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interior's x edges are rounded inward to whole rows of 32 elements:
 * rows start on a 128-byte line at local x = 0 (grid.c), and an interior
 * whose rows began off their lines ran the update with CPML at 0.55 of
 * the rate without instead of 0.80 (480^3, results/wave3-checks-h200/
 * session6/T). */
enum { TL_FDTD_CUT_ALIGN = 32 };

/* Points lo..hi-1 along each axis, local coordinates */
typedef struct tl_fdtd_cut_box {
    int64_t lo[3], hi[3];
} tl_fdtd_cut_box;

typedef struct tl_fdtd_cpml_cut {
    /* 0: the box has no interior (along an axis not folded, every point
     * is in a slab or a rounded edge) and runs the CPML build whole */
    int interior;
    tl_fdtd_cut_box in;
    /* the interior holds points of a folded axis's slab: its build must
     * carry them */
    int in_slabs;
    int nshell;
    /* the shell, none empty, in launch order: from the last axis cut
     * down, low side then high; along axis e, the interior's extent on
     * the axes cut after e and the box's whole extent on the others */
    tl_fdtd_cut_box shell[6];
} tl_fdtd_cpml_cut;

/* The cut of box lo..hi. slab_end[e]: the local coordinate where axis e's
 * low slab ends; slab_start[e]: where its high slab starts. fold: bit e
 * set for an axis whose slabs the interior's build carries, y (bit 1)
 * and z (bit 2) only: a quad's x points may straddle a slab's edge. */
void tl_fdtd_cpml_cut_of(const int64_t lo[3], const int64_t hi[3], const int64_t slab_end[3],
                         const int64_t slab_start[3], unsigned fold, tl_fdtd_cpml_cut *c);

#ifdef __cplusplus
}
#endif

#endif
