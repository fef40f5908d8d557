#include "solvers/methods/method.h"

#include <stdio.h>
#include <string.h>

#include "solvers/methods/pipecg_async.h"

/* cg and pcg share one code path: CG is PCG with M = I. */
const tl_method tl_methods[] = {
    {.name = "cg",
     .work_vectors = 4,
     .variants = {[TL_VARIANT_HOST] = tl_method_cg, [TL_VARIANT_PROGRAM] = tl_method_cg_async},
     .spd = 1,
     .pipelined = 0,
     .default_precond = TL_PRECOND_NONE,
     .summary = "conjugate gradients (Hestenes-Stiefel)"},
    {.name = "pcg",
     .work_vectors = 4,
     .variants = {[TL_VARIANT_HOST] = tl_method_cg, [TL_VARIANT_PROGRAM] = tl_method_cg_async},
     .spd = 1,
     .pipelined = 0,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "preconditioned conjugate gradients"},
    {.name = "pipecg",
     .work_vectors = 11,
     .variants = {[TL_VARIANT_HOST] = tl_method_pipecg,
                  [TL_VARIANT_PROGRAM] = tl_method_pipecg_async,
                  [TL_VARIANT_LOOP] = tl_method_pipecg_async},
     .spd = 1,
     .pipelined = 1,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "pipelined PCG (Ghysels & Vanroose 2014): one fused allreduce per iteration, "
                "overlapped with precond + SpMV"},
    {.name = "bicgstab",
     .work_vectors = 8,
     .variants = {[TL_VARIANT_HOST] = tl_method_bicgstab},
     .spd = 0,
     .pipelined = 0,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "BiCGStab (van der Vorst 1992), right-preconditioned"},
    {.name = "pipebicgstab",
     .work_vectors = 17,
     .variants = {[TL_VARIANT_HOST] = tl_method_pipebicgstab,
                  [TL_VARIANT_PROGRAM] = tl_method_pipebicgstab_async},
     .spd = 0,
     .pipelined = 1,
     .periodic_replacement = 1,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "pipelined BiCGStab (Cools & Vanroose 2017): two allreduces per iteration, each "
                "overlapped with precond + SpMV"},
};
const int tl_nmethods = (int)(sizeof tl_methods / sizeof tl_methods[0]);

const tl_method *tl_method_find(const char *name)
{
    for (int i = 0; i < tl_nmethods; i++)
        if (name && strcmp(tl_methods[i].name, name) == 0) return &tl_methods[i];
    return NULL;
}

const char *tl_variant_scalars_name(tl_variant v)
{
    return v == TL_VARIANT_HOST ? "host" : "program (device-resident)";
}

tl_method_choice tl_method_choose(const tl_method *m, const tl_backend_caps *caps,
                                  const tl_method_ask *ask)
{
    tl_method_choice c = {.variant = TL_VARIANT_HOST};
    int program = ask->scalars == TL_ASK_SCALARS_PROGRAM ||
                  (ask->scalars == TL_ASK_SCALARS_AUTO && caps->device_scalars);
    if (program && m->variants[TL_VARIANT_PROGRAM]) c.variant = TL_VARIANT_PROGRAM;
    if (!ask->fused_iterations) return c;
    if (c.variant != TL_VARIANT_PROGRAM || !m->variants[TL_VARIANT_LOOP])
        snprintf(c.loop_why_not, sizeof c.loop_why_not, "%s",
                 "pipecg on scalar programs only");
    else if (!caps->fused_iterations)
        snprintf(c.loop_why_not, sizeof c.loop_why_not, "%s", caps->why_not);
    else
        c.variant = TL_VARIANT_LOOP;
    return c;
}
