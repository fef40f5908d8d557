#include "solvers/methods/method.h"

#include <string.h>

/* cg and pcg share one code path: CG is PCG with M = I. */
const tl_method tl_methods[] = {
    {.name = "cg",
     .solve = tl_method_cg,
     .spd = 1,
     .pipelined = 0,
     .default_precond = TL_PRECOND_NONE,
     .summary = "conjugate gradients (Hestenes-Stiefel)"},
    {.name = "pcg",
     .solve = tl_method_cg,
     .spd = 1,
     .pipelined = 0,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "preconditioned conjugate gradients"},
    {.name = "pipecg",
     .solve = tl_method_pipecg,
     .spd = 1,
     .pipelined = 1,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "pipelined PCG (Ghysels & Vanroose 2014): one fused allreduce per iteration, "
                "overlapped with precond + SpMV"},
    {.name = "bicgstab",
     .solve = tl_method_bicgstab,
     .spd = 0,
     .pipelined = 0,
     .default_precond = TL_PRECOND_JACOBI,
     .summary = "BiCGStab (van der Vorst 1992), right-preconditioned"},
    {.name = "pipebicgstab",
     .solve = tl_method_pipebicgstab,
     .spd = 0,
     .pipelined = 1,
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
