/* Building jobs: a solver iteration under a schedule (runtime/schedule.c's
 * row: which stream and communicator each step uses, which events it waits
 * for), the three-stream microbenchmark's variants, and an FDTD step under
 * an exchange strategy. */
#ifndef TL_MODEL_JOBS_H
#define TL_MODEL_JOBS_H

#include "model/calib.h"
#include "model/model.h"
#include "model/partstats.h"
#include "model/platform.h"
#include "runtime/schedule.h"

/* Kernel cost on the target GPU: fixed + bytes / gbs. */
typedef struct tl_mkcost {
    double fixed_s;       /* per kernel launch: the measured fixed part / kernels */
    double gbs;           /* effective bandwidth: measured fraction x triad x (target / calib_nominal_gbs) */
    double calib_nominal_gbs; /* the nominal memory bandwidth of the GPU the triad was measured on */
    const char *calib_gpu;    /* that GPU, as the calibration names it */
} tl_mkcost;

/* The kernel cost of c's measurements on p's GPU: the triad scaled by the
 * ratio of the two GPUs' nominal memory bandwidths. Refused, in one line,
 * where c's GPU is one the platform table does not know, or none
 * (TL_MCALIB_GPU_UNNAMED), and c gives no gpu_mem_gbs for it. */
tl_status tl_mkcost_for(const tl_mcalib *c, const char *calib_path, const tl_mplatform *p, tl_mkcost *k);

/* Pipe-PCG (Ghysels-Vanroose, Jacobi), per iteration in the CUDA backend's
 * order: dots, allreduce, precond, halo post, interior SpMV, border SpMV,
 * dot wait, update. Bytes moved per kernel and rank from its statistics. */
tl_status tl_mjob_pipecg(tl_mjob *j, const tl_schedule *s, const tl_mpart *part, const tl_mkcost *k,
                         const tl_mcalib *c, int iters);

/* Pipe-BiCGStab (Cools-Vanroose, right-preconditioned Jacobi), per
 * iteration in pipebicgstab_async.c's order: two halves, each an update
 * group, the preconditioner and local dots, their allreduce (2 and 5
 * doubles), the SpMV with its halo, the wait for the reduced dots; then
 * the scalar program's kernel. The same kernel costs as Pipe-PCG. */
tl_status tl_mjob_pipebicgstab(tl_mjob *j, const tl_schedule *s, const tl_mpart *part, const tl_mkcost *k,
                               const tl_mcalib *c, int iters);

/* The microbenchmark: allreduce, ring, DAXPY per iteration, every lane
 * joined at the iteration's end. The parts alone: "allreduce-only",
 * "ring-only", "daxpy-only" (s == NULL, part named). */
tl_status tl_mjob_tristream(tl_mjob *j, const tl_schedule *s, const char *part_alone, int nranks,
                            const tl_mcalib *c, int iters);

/* FDTD on a px x py x pz decomposition of an N^3 grid, radius r, `steps`
 * time steps, ghost enlargement s (exchange every s steps, depth r*s per
 * field), peer (NCCL-free direct copies: HALO) or host-staged (STAGED).
 * `mpoints_s`: the one-GPU rate at this N (Mpoints/s). */
typedef struct tl_mfdtd {
    int n, px, py, pz, radius, s, steps;
    int staged;
    double mpoints_s;
    double bytes_per_value;
    int fields_per_exchange; /* pressure and the normal velocity: 2 */
} tl_mfdtd;
tl_status tl_mjob_fdtd(tl_mjob *j, const tl_mfdtd *f);

#endif
