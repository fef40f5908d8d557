/* Internal to the CUDA backend's operations (backend_cuda.c, whose table
 * names them, and backend_cuda_*.c): what each part gives the others.
 * The files below them (fused_iterations.c, update_args.c) include
 * cuda_backend.h alone and call nothing here. Named *_impl.h so that
 * make install leaves it out. */
#ifndef TL_BACKEND_CUDA_IMPL_H
#define TL_BACKEND_CUDA_IMPL_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "solvers/backends/backend.h"
#include "solvers/backends/cuda/cuda_backend.h"

/* backend_cuda_events.c: the events some step waits for on another stream
 * than theirs (TL_SEV_* bits: only those are recorded), a record of one,
 * and the waits of step op on its stream (slot: the dots' events) */
unsigned tl_cu_be_events_needed(const cuda_backend *cb);
tl_status tl_cu_be_record(const cuda_backend *cb, unsigned bit, cudaEvent_t ev, cudaStream_t s);
tl_status tl_cu_be_join(cuda_backend *cb, tl_sched_op op, int slot);

/* backend_cuda_vectors.c: vectors in device memory, fill */
tl_status tl_cu_be_vec_create(tl_backend *be, tl_vec **out);
void tl_cu_be_vec_destroy(tl_backend *be, tl_vec **v);
tl_status tl_cu_be_vec_set(tl_backend *be, tl_vec *v, const double *local);
tl_status tl_cu_be_vec_get(tl_backend *be, const tl_vec *v, double *local);
tl_status tl_cu_be_fill(tl_backend *be, tl_vec *v, double alpha);

/* backend_cuda_updates.c: the update kernel, and with its tail */
tl_status tl_cu_be_update(tl_backend *be, const tl_update *u, int nu);
tl_status tl_cu_be_update_fused(tl_backend *be, const tl_update *u, int nu,
                                const tl_update_tail *t);

/* backend_cuda_dots.c: the dot kernel into slot's result (spmv_dot's
 * where the product's pass cannot make it), dot_begin, dot_end */
tl_status tl_cu_be_dot_local(cuda_backend *cb, int slot, int n, tl_vec *const *x, tl_vec *const *y);
tl_status tl_cu_be_dot_begin(tl_backend *be, int slot, int n, tl_vec *const *x, tl_vec *const *y);
tl_status tl_cu_be_dot_end(tl_backend *be, int slot, double *out);

/* backend_cuda_scalars.c: the device-resident scalars' operations */
tl_status tl_cu_be_dot_end_async(tl_backend *be, int slot);
tl_status tl_cu_be_dot_fetch(tl_backend *be, int slot, double *out, int n);
tl_status tl_cu_be_scalars_init(tl_backend *be, const double *state);
tl_status tl_cu_be_scalars(tl_backend *be, tl_sc_prog prog, int slot);
tl_status tl_cu_be_regs_post(tl_backend *be, int64_t tag);
tl_status tl_cu_be_regs_get(tl_backend *be, int64_t tag, double *regs);

/* backend_cuda_spmv.c: whether spmv_end runs the ghost block (create's
 * choice of the dot in the product's pass reads it), the SpMV's halves,
 * spmv_dot */
int tl_cu_be_has_border(const cuda_backend *cb);
tl_status tl_cu_be_spmv_begin(tl_backend *be, tl_vec *x, tl_vec *y);
tl_status tl_cu_be_spmv_end(tl_backend *be, tl_vec *x, tl_vec *y);
tl_status tl_cu_be_spmv_dot(tl_backend *be, tl_vec *x, tl_vec *y, int slot);

/* backend_cuda_lifecycle.c: create (a failure destroys what was made) and
 * destroy (NULL accepted) */
tl_status tl_cu_be_create(tl_ctx *ctx, const tl_dist_matrix *m, const tl_backend_config *cfg,
                          tl_backend **out);
void tl_cu_be_destroy(tl_backend **bep);

#endif
