/* The "# key: value" lines every trilap-bench subcommand starts with. */
#include "microbench/bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"

#define NAME_LEN 64

tl_status tl_bench_meta_common(tl_bench_meta *m, tl_ctx *ctx, const char *subcommand)
{
    /* collective first: every rank's device name */
    char mine[NAME_LEN] = "none";
    if (ctx->device >= 0) tl_gpu_device_name(ctx->device, mine, sizeof mine);
    char *all = calloc((size_t)ctx->size, NAME_LEN);
    if (!all) return TL_FAIL(TL_ERR_NOMEM, "%d device names", ctx->size);
    tl_status st = tl_comm_allgather(ctx, mine, all, NAME_LEN);
    if (st != TL_OK) {
        free(all);
        return tl_error_frame(st, TL_FILE_, __LINE__);
    }
    char host[128] = "unknown", date[64] = "";
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char rt[64], drv[96], nccl[64];
    tl_gpu_versions(rt, sizeof rt, drv, sizeof drv, nccl, sizeof nccl);

    /* "NVIDIA H200 x2" when all agree, else a list */
    char gpus[1024] = "";
    int same = 1;
    for (int r = 1; r < ctx->size; r++)
        same &= strcmp(all + (size_t)r * NAME_LEN, all) == 0;
    if (same) {
        snprintf(gpus, sizeof gpus, "%s x%d", all, ctx->size);
    } else {
        size_t len = 0;
        for (int r = 0; r < ctx->size && len < sizeof gpus; r++)
            len += (size_t)snprintf(gpus + len, sizeof gpus - len, "%s%d:%s", r ? ", " : "", r,
                                    all + (size_t)r * NAME_LEN);
    }
    free(all);
    TL_TRY(tl_bench_meta_add(m, "program", "trilap-bench %s", subcommand));
    TL_TRY(tl_bench_meta_add(m, "version", "%s", TL_VERSION));
    TL_TRY(tl_bench_meta_add(m, "commit", "%s", TL_GIT_COMMIT));
    TL_TRY(tl_bench_meta_add(m, "date", "%s", date));
    TL_TRY(tl_bench_meta_add(m, "host", "%s", host));
    TL_TRY(tl_bench_meta_add(m, "launcher", "%s", ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads"));
    TL_TRY(tl_bench_meta_add(m, "ranks", "%d", ctx->size));
    TL_TRY(tl_bench_meta_add(m, "gpus", "%s", gpus));
    TL_TRY(tl_bench_meta_add(m, "cuda", "%s", rt));
    TL_TRY(tl_bench_meta_add(m, "driver", "%s", drv));
    TL_TRY(tl_bench_meta_add(m, "nccl", "%s", nccl));
    TL_TRY(tl_bench_meta_add(m, "CUDA_DEVICE_MAX_CONNECTIONS", "%s",
                             tl_bench_env("CUDA_DEVICE_MAX_CONNECTIONS")));
    TL_TRY(tl_bench_meta_add(m, "NCCL_LAUNCH_MODE", "%s", tl_bench_env("NCCL_LAUNCH_MODE")));
    return TL_OK;
}
