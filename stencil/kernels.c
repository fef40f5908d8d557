/* The --kernel table: which CUDA kernel variant updates which points.
 * Plain C (no CUDA needed): the option parser, the driver (fused or not)
 * and the CUDA backend (which variant to launch) read it. Figures of each
 * on one H200: stencil/README.md, results/fdtd-kernels-h200/. */
#include "stencil/fdtd.h"
#include "stencil/fdtd_kargs.h"

const tl_fdtd_kernel_info tl_fdtd_kernels[TL_FDTD_KERNEL_COUNT] = {
    [TL_FDTD_KERNEL_TILED] = {.name = "tiled", .interior = TL_FDTD_VARIANT_TILED, .boundary = TL_FDTD_VARIANT_CPML},
    [TL_FDTD_KERNEL_NAIVE] = {.name = "naive", .interior = TL_FDTD_VARIANT_NAIVE, .fused = 1},
    [TL_FDTD_KERNEL_PIPE] = {.name = "pipelined", .interior = TL_FDTD_VARIANT_PIPE, .boundary = TL_FDTD_VARIANT_CPML},
    /* z-column kernels: the slab boxes by the same kernel with its CPML terms */
    [TL_FDTD_KERNEL_ZCOL8] = {.name = "zcol8", .interior = TL_FDTD_VARIANT_ZCOL8, .boundary = TL_FDTD_VARIANT_ZCOL8},
    [TL_FDTD_KERNEL_ZCOL16] = {.name = "zcol16", .interior = TL_FDTD_VARIANT_ZCOL16,
                               .boundary = TL_FDTD_VARIANT_ZCOL16},
    [TL_FDTD_KERNEL_ZCOL16_Y4] = {.name = "zcol16-y4", .interior = TL_FDTD_VARIANT_ZCOL16_Y4,
                                  .boundary = TL_FDTD_VARIANT_ZCOL16_Y4},
    [TL_FDTD_KERNEL_ZCOL32_Y4] = {.name = "zcol32-y4", .interior = TL_FDTD_VARIANT_ZCOL32_Y4,
                                  .boundary = TL_FDTD_VARIANT_ZCOL32_Y4},
    /* one launch per update, the CPML branch per point as the baseline's */
    [TL_FDTD_KERNEL_ZCOL8_FUSED] = {.name = "zcol8-fused", .interior = TL_FDTD_VARIANT_ZCOL8, .fused = 1},
    [TL_FDTD_KERNEL_ZCOL16_FUSED] = {.name = "zcol16-fused", .interior = TL_FDTD_VARIANT_ZCOL16, .fused = 1},
    /* the next point's DRAM loads issued before this point's work (1.06-1.08x
     * the baseline at 480^3); the slabs by the one-thread-per-point CPML
     * kernels, measured faster on them (36 against 26 Gpoints/s for the
     * velocity update at 480^3) */
    [TL_FDTD_KERNEL_ZCOL16_Y4_PF] = {.name = "zcol16-y4-pf", .interior = TL_FDTD_VARIANT_ZCOL16_Y4_PF,
                                     .boundary = TL_FDTD_VARIANT_CPML},
    [TL_FDTD_KERNEL_ZCOL32_Y4_PF] = {.name = "zcol32-y4-pf", .interior = TL_FDTD_VARIANT_ZCOL32_Y4_PF,
                                     .boundary = TL_FDTD_VARIANT_CPML},
    /* w consecutive x points a thread, w-wide loads (fdtd_vec.cu); CPML
     * fused per point as in the baseline */
    [TL_FDTD_KERNEL_VEC2] = {.name = "vec2", .interior = TL_FDTD_VARIANT_VEC2, .fused = 1},
    [TL_FDTD_KERNEL_VEC4] = {.name = "vec4", .interior = TL_FDTD_VARIANT_VEC4, .fused = 1},
    [TL_FDTD_KERNEL_VEC4_X128] = {.name = "vec4-x128", .interior = TL_FDTD_VARIANT_VEC4_X128, .fused = 1},
    /* vec4 in bands of block rows through all z, where a plane's z window
     * does not fit in L2 (800^3 and up); the default (model.c) */
    [TL_FDTD_KERNEL_VEC4_BAND] = {.name = "vec4-band", .interior = TL_FDTD_VARIANT_VEC4_BAND, .fused = 1},
};
