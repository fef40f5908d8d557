/* The folders an output option needs, made before the work and said
 * (results.h: tl_results_make_folder): rank 0 makes and says them as
 * every program's outputs are (runtime/out.h: tl_out_make_folder), the
 * ranks agree. Apart from results.c, which the fuzz targets build without
 * the host communication. */
#include "runtime/results.h"

#include "runtime/comm.h"
#include "runtime/out.h"

tl_status tl_results_make_folder(tl_ctx *ctx, const char *option, const char *path, tl_out_folder which)
{
    tl_status st = ctx->rank == 0 ? tl_out_make_folder(ctx->program, option, path, which) : TL_OK;
    return ctx->size > 1 ? tl_comm_agree(ctx, st) : st;
}
