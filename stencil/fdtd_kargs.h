/* Plain-C structs shared by the host code and the CUDA kernels: an array
 * layout, the arguments of an update kernel, a pack/unpack segment. */
#ifndef TL_FDTD_KARGS_H
#define TL_FDTD_KARGS_H

#include <stddef.h>
#include <stdint.h>

/* Element (x, y, z) of a box, local coordinates, is at off + x + y sx + z sxy. */
typedef struct tl_fdtd_layout {
    int64_t off, sx, sxy;
    int64_t lo[3], hi[3]; /* the box the array covers */
    size_t count;         /* elements allocated; 0: no array */
} tl_fdtd_layout;

/* CPML profile of an axis of N points: six arrays of N, in this order:
 * a, b, 1/kappa at p points (pressure update), the same at v points
 * (velocity update, i + 1/2). */
enum { TL_FDTD_PROF_A = 0, TL_FDTD_PROF_B, TL_FDTD_PROF_IK, TL_FDTD_PROF_AH, TL_FDTD_PROF_BH,
       TL_FDTD_PROF_IKH, TL_FDTD_PROF_N };

/* Kernel variants (fdtd_kernels.cu, fdtd_zcol.cu; the --kernel table in
 * kernels.c says which a run uses where): TILED, shared-memory tiles in
 * x-y with register queues marching along z (interior points only: no
 * CPML); CPML, one thread per point of a boundary box
 * (tl_fdtd_[vp]_cpml_kernel); NAIVE, the one-thread-per-point baseline
 * over any box, CPML fused in when `cpml`; PIPE, the tiled kernels with
 * every load of the next plane issued before the current plane's
 * barriers; ZCOL<nz>[_Y<by>], z-column kernels: a thread marches nz
 * consecutive z points of its (x, y) column keeping the z stencil in a
 * sliding register window, blocks of 32 x by (8 unless named), any box,
 * CPML in when `cpml`; _PF: the next point's DRAM loads issued before
 * this point's arithmetic; VEC<w>[_X128]: a thread updates w consecutive x
 * points with w-wide loads, blocks of 8 x 32 threads (32 x 32 points; w = 2:
 * 16 x 16), _X128: 32 x 8 threads (128 x 8 points), any box, CPML in when
 * `cpml` (fdtd_vec.cu); VEC4_BAND: VEC4 walking bands of block rows
 * through all z (the z window in L2 at large planes). The z-column
 * variants, then the vector ones, come last: tl_fdtd_cuda_update
 * dispatches on the ranges. */
enum { TL_FDTD_VARIANT_TILED = 0, TL_FDTD_VARIANT_CPML, TL_FDTD_VARIANT_NAIVE, TL_FDTD_VARIANT_PIPE,
       TL_FDTD_VARIANT_ZCOL8, TL_FDTD_VARIANT_ZCOL16, TL_FDTD_VARIANT_ZCOL16_Y4, TL_FDTD_VARIANT_ZCOL32_Y4,
       TL_FDTD_VARIANT_ZCOL16_Y4_PF, TL_FDTD_VARIANT_ZCOL32_Y4_PF,
       TL_FDTD_VARIANT_VEC2, TL_FDTD_VARIANT_VEC4, TL_FDTD_VARIANT_VEC4_X128, TL_FDTD_VARIANT_VEC4_BAND };

typedef struct tl_fdtd_kargs {
    void *f[4];            /* p, vx, vy, vz */
    const void *mat[4];    /* K dt; dt/rho at vx, vy, vz; all NULL: homogeneous */
    double kdt, bdt;       /* homogeneous K dt and dt / rho */
    double c[4];           /* difference coefficients over h */
    int r;
    int64_t off, sx, sxy;  /* the full-field layout */
    int64_t o[3], N[3];    /* global origin of local 0, global size */
    int64_t L;             /* CPML thickness; 0: none */
    void *psi[6][2];
    tl_fdtd_layout psil[6][2];
    const void *prof[3];   /* per axis, TL_FDTD_PROF_N * N[d] values */
} tl_fdtd_kargs;

/* The medium: K, rho, or K2, rho2 for global k >= layer_k > 0; nz planes,
 * repeating along z when periodic. The material arrays (fill.c) and the
 * energy monitor of both backends read it through the functions below, so
 * the monitor weighs each velocity by the density its update divides by. */
typedef struct tl_fdtd_medium {
    double K, rho, K2, rho2;
    int64_t layer_k, nz;
    int periodic;
} tl_fdtd_medium;

#ifdef __CUDACC__
#define TL_FDTD_HD __host__ __device__ static inline
#else
#define TL_FDTD_HD static inline
#endif

/* k: a global plane, 0 <= k < nz */
TL_FDTD_HD double tl_fdtd_medium_K(const tl_fdtd_medium *m, int64_t k)
{
    return m->layer_k > 0 && k >= m->layer_k ? m->K2 : m->K;
}
TL_FDTD_HD double tl_fdtd_medium_rho(const tl_fdtd_medium *m, int64_t k)
{
    return m->layer_k > 0 && k >= m->layer_k ? m->rho2 : m->rho;
}
/* The vz above plane k sits between k and k + 1: its buoyancy is
 * 2 / (rho_k + rho_k+1), the inverse of this mean. Above the last plane
 * the partner is plane 0 when periodic, the last plane itself otherwise
 * (p above the grid is 0, not a medium). */
TL_FDTD_HD double tl_fdtd_medium_rho_vz(const tl_fdtd_medium *m, int64_t k)
{
    int64_t k1 = k + 1 < m->nz ? k + 1 : m->periodic ? 0 : k;
    return 0.5 * (tl_fdtd_medium_rho(m, k) + tl_fdtd_medium_rho(m, k1));
}
/* Twice the energy density at a p point of plane k: p^2 / K + rho |v|^2,
 * vx, vy, vz each weighted by its own update's density (the scheme's
 * discrete energy; with rho_k for vz, the energy of a layered run without
 * losses drifted by the interface planes' vz). One function for the CPU
 * and the GPU: the same arithmetic in both. */
TL_FDTD_HD double tl_fdtd_medium_energy2(const tl_fdtd_medium *m, int64_t k, double p, double ux, double uy, double uz)
{
    double rho = tl_fdtd_medium_rho(m, k);
    return p * p / tl_fdtd_medium_K(m, k) + rho * (ux * ux + uy * uy) + tl_fdtd_medium_rho_vz(m, k) * (uz * uz);
}

/* One segment of a message: a box of one array and its place in the buffer. */
typedef struct tl_fdtd_segdesc {
    void *ptr;
    int64_t off, sx, sxy;
    int64_t lo[3], ext[3];
    int64_t buf_off, count;
} tl_fdtd_segdesc;

#endif
