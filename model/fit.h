/* Fitting the model's few free parameters by simulation, each on named
 * measurements (model/README.md lists which), and running a job on a
 * built-in platform written for it. */
#ifndef TL_MODEL_FIT_H
#define TL_MODEL_FIT_H

#include "model/calib.h"
#include "model/jobs.h"
#include "model/model.h"
#include "model/platform.h"

/* Write `p` for j->nranks GPUs into dir and simulate j on it. */
tl_status tl_mfit_run(tl_mjob *j, const tl_mplatform *p, const tl_mplatform_params *q, const char *dir,
                      tl_mresult *res);

/* alpha_coll_us, alpha_p2p_us from the two-GPU comm results (simulated
 * 16 B allreduce and 8 B send/recv = measured), then nccl_rate from the
 * microbenchmark's three-split (bisection: simulated = measured). */
tl_status tl_mfit_calibrate(tl_mcalib *c, const char *dir);

/* The microbenchmark's variants and parts on the two-GPU H200 platform. */
tl_status tl_mfit_tristream(const tl_mcalib *c, const char *variant, const char *dir, tl_mresult *res);

/* FDTD: the port latency (us) and bandwidth (GB/s) that make the simulated
 * run times of two measured rows equal to them; `f[2]` the two rows'
 * jobs, `measured_s[2]` their run times. */
tl_status tl_mfit_fdtd_port(const tl_mfdtd f[2], const double measured_s[2], const tl_mplatform *p, const char *dir,
                            double *lat_us, double *gbs);

#endif
