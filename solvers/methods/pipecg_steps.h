/* Pipe-PCG's update pass as backend updates, from the one statement of
 * its recurrences (solvers/backends/pipecg_form.h): what method_pipecg.c
 * (scalars on the host) and pipecg_async.c (scalars in registers) both
 * enqueue. */
#ifndef TL_PIPECG_STEPS_H
#define TL_PIPECG_STEPS_H

#include "solvers/backends/backend.h"
#include "solvers/backends/pipecg_form.h"

/* The eight updates on vec[TL_PCG_*]: y = a + sign c b with c = alpha or
 * beta; with sref_alpha / sref_beta > 0, c is 1 times register sref - 1
 * of the last scalar program instead (tl_update.sref). */
static inline void tl_pipecg_updates(tl_vec *const *vec, double alpha, double beta, int sref_alpha,
                                     int sref_beta, tl_update *up)
{
    for (int j = 0; j < TL_PCG_NAXPY; j++) {
        const tl_pcg_axpy *a = &tl_pcg_axpys[j];
        up[j] = (tl_update){.y = vec[a->y],
                            .nterms = 2,
                            .coef = {1.0, a->sign * (a->alpha ? alpha : beta)},
                            .x = {vec[a->a], vec[a->b]},
                            .sref = {0, (unsigned char)(a->alpha ? sref_alpha : sref_beta)}};
    }
}

#endif
