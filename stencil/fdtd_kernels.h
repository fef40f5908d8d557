/* CUDA kernels of the FDTD solver behind C launchers (stream last; each
 * checks its launch). Only built with CUDA.
 *
 * Bytes a time step must move per point (single precision, homogeneous
 * medium): the velocity update reads p and reads and writes vx, vy, vz
 * (7 words, 28 B); the pressure update reads vx, vy, vz and reads and
 * writes p (5 words, 20 B): 48 B per point per step (96 B in double; a
 * layered medium adds K and three buoyancies, 64 B). A CPML point adds
 * the read and write of one memory variable per slab axis per update
 * (16 B per axis). What each kernel achieves is measured in
 * results/fdtd-h200/, results/fdtd-kernels-h200/, results/fdtd-vec-h200/
 * and stated in stencil/README.md. The variants (TL_FDTD_VARIANT_*) are in fdtd_kargs.h. */
#ifndef TL_FDTD_KERNELS_H
#define TL_FDTD_KERNELS_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "stencil/fdtd_kargs.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "runtime/error.h"

/* The CPML shell's stream (fdtd_vec.cu's launch): a vector kernel's
 * update of a box with CPML runs the box's interior on the update's
 * stream and its shell of slab points here, forked after what the
 * update's stream holds (fork) and joined back before what follows the
 * update (join). At the greatest priority, block slots the interior
 * frees go to the shell, whose launches are bound by latency, not bytes:
 * run beside the interior instead of after it, the update of 480^3 with
 * 20 cells went from 0.804 to 0.830 of the rate without CPML
 * (results/wave3-checks-h200/session6/U). */
typedef struct tl_fdtd_shell_stream {
    cudaStream_t s;
    cudaEvent_t fork, join;
} tl_fdtd_shell_stream;

/* which: 0 velocity, 1 pressure, over the box [lo, hi) (local coordinates);
 * sms: the device's multiprocessors (the tiled kernels' z chunks); cpml:
 * the box holds CPML points (the naive and z-column kernels take the
 * memory variables then); shell: the vector kernels' CPML shell stream
 * (NULL: all on s). */
tl_status tl_fdtd_cuda_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3], const int64_t hi[3],
                              int variant, int cpml, int dbl, int sms, cudaStream_t s,
                              const tl_fdtd_shell_stream *shell);
tl_status tl_fdtd_cuda_source(void *d_p, int64_t idx, double value, int dbl, cudaStream_t s);
/* d_out[j] = p[d_idx[j]], j < n */
tl_status tl_fdtd_cuda_sample(const void *d_p, const int64_t *d_idx, int n, double *d_out, int dbl, cudaStream_t s);
/* unpack 0: the segments' boxes into d_buf; 1: d_buf into the boxes */
tl_status tl_fdtd_cuda_pack(const tl_fdtd_segdesc *d_desc, int nseg, int64_t total, void *d_buf, int unpack,
                            int dbl, cudaStream_t s);
/* *d_bad = min over owned points q (x fastest) where p is not finite or |p| > limit */
tl_status tl_fdtd_cuda_check(const void *d_p, const tl_fdtd_layout *l, const int64_t n[3], double limit,
                             unsigned long long *d_bad, int dbl, cudaStream_t s);
/* *d_e += 1/2 sum (p^2 / K + rho |v|^2) over the owned points */
tl_status tl_fdtd_cuda_energy(const tl_fdtd_kargs *a, const int64_t n[3], const tl_fdtd_medium *md, double *d_e,
                              int dbl, cudaStream_t s);
/* The z-column kernels (fdtd_zcol.cu, variants TL_FDTD_VARIANT_ZCOL*),
 * called by tl_fdtd_cuda_update; returns the launch's error. */
cudaError_t tl_fdtd_cuda_zcol_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3], const int64_t hi[3],
                                     int variant, int cpml, int dbl, cudaStream_t s);
/* The vector kernels (fdtd_vec.cu, variants TL_FDTD_VARIANT_VEC*), the same. */
cudaError_t tl_fdtd_cuda_vec_update(const tl_fdtd_kargs *a, int which, const int64_t lo[3], const int64_t hi[3],
                                    int variant, int cpml, int dbl, cudaStream_t s,
                                    const tl_fdtd_shell_stream *shell);

#ifdef __cplusplus
}
#endif

#endif
