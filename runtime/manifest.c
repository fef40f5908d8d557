/* The run manifest: everything needed to know what produced a result. */
#include "runtime/results.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "runtime/comm.h"
#include "runtime/gpu.h"
#include "runtime/launch.h"
#include "runtime/manifest_impl.h"
#include "runtime/provenance.h"

#if TL_HAVE_MPI
#include <mpi.h>
#endif
#if TL_HAVE_CUPTI
#include <cupti.h>
#endif

extern char **environ;

/* A growing text buffer; on allocation failure it stops growing and
 * remembers, so the writer can report once. */
typedef struct text {
    char *p;
    size_t len, cap;
    int oom;
} text;

static void addf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(text *t, const char *fmt, ...)
{
    if (t->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if (t->p && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 4096) + (size_t)n;
        char *np = realloc(t->p, cap);
        if (!np) {
            t->oom = 1;
            return;
        }
        t->p = np;
        t->cap = cap;
    }
}

/* Values on one line: newlines in the environment or argv become spaces. */
static void add_oneline(text *t, const char *s)
{
    for (; *s; s++) addf(t, "%c", *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void add_command(text *t, int argc, char **argv)
{
    char *cmd = tl_manifest_command(argc, argv);
    if (!cmd) {
        t->oom = 1;
        return;
    }
    addf(t, "command: %s\n", cmd);
    free(cmd);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* NCCL_*, CUDA_*, OMPI_*, SLURM_*, PMIX_RANK/PMI_*, TL_* in sorted order. */
static void add_env(text *t)
{
    static const char *const prefixes[] = {"NCCL_", "CUDA_", "OMPI_", "SLURM_", "PMI_", "PMIX_RANK", "MV2_", "TL_",
                                           "NVIDIA_", "OMP_"};
    size_t n = 0;
    for (char **e = environ; e && *e; e++) n++;
    char **keep = calloc(n ? n : 1, sizeof *keep);
    if (!keep) {
        t->oom = 1;
        return;
    }
    size_t k = 0;
    for (char **e = environ; e && *e; e++)
        for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
            if (strncmp(*e, prefixes[i], strlen(prefixes[i])) == 0) {
                keep[k++] = *e;
                break;
            }
    qsort(keep, k, sizeof *keep, cmp_str);
    for (size_t i = 0; i < k; i++) {
        const char *eq = strchr(keep[i], '=');
        if (!eq) continue;
        addf(t, "env.%.*s: ", (int)(eq - keep[i]), keep[i]);
        add_oneline(t, eq + 1);
        addf(t, "\n");
    }
    free(keep);
}

/* What every rank contributes: its host and its GPU. */
typedef struct rank_info {
    char host[64];
    char gpu[192];
} rank_info;

/* The manifest's lines into *t on rank 0 (collective: every rank's host
 * and GPU are gathered); `results` lines follow the command when given. */
static tl_status manifest_text(tl_ctx *ctx, const char *results, const char *extra, text *t_out)
{
    TL_CHECK(ctx && ctx->hc, TL_ERR_INVAL, "manifest needs a rank context (inside tl_launch_run)");
    rank_info mine;
    memset(&mine, 0, sizeof mine);
    if (gethostname(mine.host, sizeof mine.host - 1) != 0) snprintf(mine.host, sizeof mine.host, "unknown");
    tl_gpu_device_name(ctx->device, mine.gpu, sizeof mine.gpu);
    rank_info *all = ctx->rank == 0 ? calloc((size_t)ctx->size, sizeof *all) : NULL;
    /* a failed allocation on rank 0 must not leave the others in the gather */
    tl_status st = tl_comm_agree(ctx, ctx->rank == 0 && !all ? TL_ERR_NOMEM : TL_OK);
    if (st != TL_OK) {
        free(all);
        if (st == TL_ERR_NOMEM) return TL_FAIL(st, "%d rank records", ctx->size);
        return st;
    }
    rank_info *scratch = all ? all : &mine; /* recv is ignored off the root */
    size_t *counts = NULL;
    if (ctx->rank == 0) {
        counts = calloc((size_t)ctx->size, sizeof *counts);
        if (!counts) st = TL_FAIL(TL_ERR_NOMEM, "%d counts", ctx->size);
        for (int r = 0; counts && r < ctx->size; r++) counts[r] = sizeof(rank_info);
    }
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK) st = tl_comm_gatherv(ctx, &mine, sizeof mine, scratch, counts, 0);
    free(counts);
    if (st != TL_OK || ctx->rank != 0) {
        free(all);
        return st == TL_OK ? TL_OK : tl_error_frame(st, TL_FILE_, __LINE__);
    }

    text t = {0};
    char date[64] = "unknown";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    char cwd[1024];
    addf(&t, "program: %s\n", ctx->program ? ctx->program : "unknown");
    add_command(&t, ctx->argc, ctx->argv);
    if (results) addf(&t, "%s", results);
    addf(&t, "version: %s\n", TL_VERSION);
    /* every provenance field names its value or why there is none */
    char commit[160];
    addf(&t, "git_commit: %s\n", tl_provenance_commit(commit, sizeof commit));
    addf(&t, "date: %s\n", date);
    addf(&t, "cwd: %s\n", getcwd(cwd, sizeof cwd) ? cwd : "unknown");
    addf(&t, "launcher: %s\n", ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads");
    addf(&t, "ranks: %d\n", ctx->size);
    addf(&t, "ranks_per_host: %d\n", ctx->local_size);
    for (int r = 0; r < ctx->size; r++) {
        addf(&t, "host.rank%d: %s\n", r, all[r].host);
        addf(&t, "gpu.rank%d: %s%s\n", r, all[r].gpu,
             strcmp(all[r].gpu, "none") ? ""
             : ctx->host_only           ? " (a host-only rank, as the command asked: --no-gpu, a host backend or a host program)"
             : TL_HAVE_CUDA             ? " (no GPU visible to this rank)"
                                        : " (built without CUDA)");
    }
    char rt[32], drv[96], nccl[32];
    tl_gpu_versions(rt, sizeof rt, drv, sizeof drv, nccl, sizeof nccl);
    addf(&t, "cuda_runtime: %s%s\n", rt,
         strcmp(rt, "none") ? "" : TL_HAVE_CUDA ? " (the CUDA runtime reported no version: no driver?)" : " (built without CUDA)");
    addf(&t, "driver: %s%s\n", drv, strcmp(drv, "none") ? "" : " (no NVIDIA driver loaded on this host)");
    addf(&t, "nccl: %s%s\n", nccl,
         strcmp(nccl, "none") ? "" : TL_HAVE_NCCL ? " (NCCL reported no version)" : " (built without NCCL)");
#if TL_HAVE_CUPTI
    uint32_t cupti = 0;
    if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS) addf(&t, "cupti: api %u\n", cupti);
    else addf(&t, "cupti: unavailable\n");
#else
    addf(&t, "cupti: none\n");
#endif
#if TL_HAVE_MPI
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, maj = 0, min = 0;
    MPI_Get_version(&maj, &min);
    if (MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        char *nl = strchr(lib, '\n');
        if (nl) *nl = '\0';
        char *comma = strchr(lib, ',');
        if (comma && comma - lib < 80) *comma = '\0'; /* "Open MPI v4.1.6, package: ..." */
    }
    addf(&t, "mpi: %s (MPI %d.%d)\n", lib[0] ? lib : "unknown", maj, min);
#else
    addf(&t, "mpi: none\n");
#endif
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    /* NVLink SHARP changes collective timings; say whether it was left on */
    addf(&t, "nccl_nvls_enable: %s\n", nvls ? nvls : "unset (NCCL default)");
    add_env(&t);
    if (extra && *extra) {
        addf(&t, "%s", extra);
        if (extra[strlen(extra) - 1] != '\n') addf(&t, "\n");
    }
    free(all);
    if (t.oom) {
        free(t.p);
        return TL_FAIL(TL_ERR_NOMEM, "manifest text");
    }
    *t_out = t;
    return TL_OK;
}

tl_status tl_manifest_write(tl_ctx *ctx, const char *path, const char *extra)
{
    text t = {0};
    TL_TRY(manifest_text(ctx, NULL, extra, &t));
    if (ctx->rank != 0) return TL_OK;
    tl_status st = tl_file_write_atomic(path, t.p, t.len);
    free(t.p);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}

tl_status tl_manifest_text(tl_ctx *ctx, const char *after_command, const char *extra, char **out, size_t *len)
{
    text t = {0};
    *out = NULL;
    *len = 0;
    TL_TRY(manifest_text(ctx, after_command, extra, &t));
    *out = t.p;
    *len = t.len;
    return TL_OK;
}
