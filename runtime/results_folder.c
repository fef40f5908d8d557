/* The folders an output option needs, made before the work and said
 * (results.h: tl_results_make_folder). Apart from results.c, which the
 * fuzz targets build without the host communication. */
#include "runtime/results.h"

#include <stdio.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/out.h"

/* The folder of `path` to make (its own, or the one it is in) into dir,
 * trailing slashes dropped; 0 where there is none (a bare file name). */
static int folder_to_make(const char *path, tl_results_folder which, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    if (which == TL_RESULTS_FOLDER_OF_FILE) {
        char *slash = strrchr(dir, '/');
        if (!slash) return 0;
        if (slash == dir) slash++; /* "/r.csv": the root */
        *slash = '\0';
    }
    for (size_t k = strlen(dir); k > 1 && dir[k - 1] == '/'; k--) dir[k - 1] = '\0';
    return dir[0] != '\0';
}

static tl_status make_and_say(const char *program, const char *option, const char *path, tl_results_folder which)
{
    char dir[4096], top[4096];
    if (!folder_to_make(path, which, dir, sizeof dir)) return TL_OK;
    TL_TRY(tl_mkdir_p_first(dir, top, sizeof top));
    if (!top[0]) return TL_OK; /* there already */
    if (strcmp(top, dir) == 0) fprintf(stderr, "%s: note: %s %s: created folder %s\n", program, option, path, dir);
    else fprintf(stderr, "%s: note: %s %s: created folders %s to %s\n", program, option, path, top, dir);
    return TL_OK;
}

tl_status tl_results_make_folder(tl_ctx *ctx, const char *option, const char *path, tl_results_folder which)
{
    tl_status st = ctx->rank == 0 && path && *path ? make_and_say(ctx->program, option, path, which) : TL_OK;
    return ctx->size > 1 ? tl_comm_agree(ctx, st) : st;
}
