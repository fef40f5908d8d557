/* The probes of one rank: create/destroy, stream registration, and the
 * trace written at destroy from the host ranges, the iterations and the
 * rank's CUPTI records, merged in time order. Nothing here runs inside the
 * measured window except tl_probe_stream (registration, before it). */
#include "probes/rank_state.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/out.h"
#include "runtime/provenance.h"
#include "runtime/results.h"

enum {
    TL_DEFAULT_BUFFER_BYTES = 4 << 20,
    TL_DEFAULT_MAX_BUFFERS = 64,
    TL_DEFAULT_MAX_RANGES = 1 << 20,
};


tl_status tl_probes_trace_name_free(const char *outdir, int rank)
{
    char final[600];
    struct stat sb;
    snprintf(final, sizeof final, "%s/trace.rank%d.csv", outdir, rank);
    TL_CHECK(lstat(final, &sb) != 0 || !S_ISDIR(sb.st_mode), TL_ERR_IO,
             "probes: %s is a folder: the rank's trace cannot be written there", final);
    return TL_OK;
}

tl_status tl_probes_outdir_writable(const char *outdir)
{
    TL_TRY(tl_mkdir_p(outdir));
    /* fail now, not after the measured region; as root by a file made
     * there (runtime/out.h): root passes access() on a read-only mount or
     * in sysfs, and its trace was then lost at exit ("cannot write ... no
     * trace written") */
    int err = tl_out_folder_refuses(outdir);
    if (err) return TL_FAIL(TL_ERR_IO, "probes: cannot write in %s: %s", outdir, strerror(err));
    return TL_OK;
}

static tl_status tl_probes_create_one(tl_ctx *ctx, const tl_probes_config *cfg, int device,
                                      int infer)
{
    TL_CHECK(ctx && cfg, TL_ERR_INVAL, "probes need a context and a configuration");
    TL_CHECK(cfg->outdir && *cfg->outdir, TL_ERR_INVAL, "probes need an output folder");
    TL_CHECK(!ctx->probes || ctx->probes->nvtx_only, TL_ERR_INVAL,
             "probes already created for rank %d", ctx->rank);
    TL_CHECK(cfg->max_buffers >= 0, TL_ERR_INVAL, "max_buffers=%d", cfg->max_buffers);
    TL_CHECK(cfg->buffer_bytes == 0 || cfg->buffer_bytes >= 4096, TL_ERR_INVAL,
             "buffer_bytes=%zu (at least 4096)", cfg->buffer_bytes);
    unsigned kinds = 0;
    tl_cupti_api api = TL_CUPTI_API_LAUNCH;
    if (cfg->cupti) TL_TRY(tl_probe_cupti_env(&kinds, &api));
    TL_TRY(tl_probes_outdir_writable(cfg->outdir));
    TL_TRY(tl_probes_trace_name_free(cfg->outdir, ctx->rank));
    tl_status st = TL_OK;
    tl_probes *p = calloc(1, sizeof *p);
    if (!p) return TL_FAIL(TL_ERR_NOMEM, "probes: %zu bytes", sizeof *p);
    p->cfg = *cfg;
    p->cupti_kinds = kinds;
    p->cupti_api = api;
    if (!p->cfg.buffer_bytes) p->cfg.buffer_bytes = TL_DEFAULT_BUFFER_BYTES;
    if (!p->cfg.max_buffers) p->cfg.max_buffers = TL_DEFAULT_MAX_BUFFERS;
    if (!p->cfg.max_ranges) p->cfg.max_ranges = TL_DEFAULT_MAX_RANGES;
    snprintf(p->outdir, sizeof p->outdir, "%s", cfg->outdir);
    p->cfg.outdir = p->outdir;
    p->rank = ctx->rank;
    /* size < 0: not known (an injected process that claimed its rank) */
    p->nranks = ctx->size > 0 ? ctx->size : ctx->size < 0 ? -1 : 1;
    p->device = device;
    p->infer_lanes = infer;
    p->tid = (uint32_t)syscall(SYS_gettid); /* the rank's own thread: probes are made by it */
    p->created_ns = tl_clock_ns();
    p->program = ctx->program ? ctx->program : "trilap";
    /* quoted as the manifest's command: line, so that it reads back as the
     * arguments (a path with a space, --receivers 'a;b') */
    p->args = tl_manifest_command(ctx->argc, ctx->argv);
    if (!p->args) TL_TRYGOTO(TL_FAIL(TL_ERR_NOMEM, "probes: the command line for the trace's args"), st, fail);
    tl_probe_nvtx_init(p);
    TL_TRYGOTO(tl_probe_host_init(p), st, fail);
    if (!cfg->cupti)
        p->cupti = TL_CUPTI_OFF;
    else if (device == -1)
        p->cupti = TL_CUPTI_UNAVAILABLE; /* a host-only rank: nothing to collect */
    else
        tl_probe_cupti_attach(p);
    p->outer = ctx->probes; /* NVTX-only probes, back at destroy */
    ctx->probes = p;
    ctx->marks = &tl_probe_marks;
    return TL_OK;
fail:
    tl_probe_host_fini(p);
    free(p->args);
    free(p);
    return st;
}

/* ---- NVTX-only probes and the program wrapper ---------------------------- */

/* NVTX-only probes: a rank's ranges for an attached tool, in every run.
 * They reuse the hot path of probes_host.c unchanged; its host bookkeeping
 * gets room for one range and one iteration, fills at once and is never
 * written (its two clock reads per range, some 40 ns, are small next to
 * the tool's own handling of each range). Without a tool nothing is made and
 * ctx->probes stays NULL, so a program without a tool pays nothing. */
tl_status tl_probe_nvtx_only_create(tl_ctx *ctx, const tl_probes_config *cfg)
{
    TL_CHECK(!cfg->cupti, TL_ERR_INVAL, "probes: CUPTI activity needs an output folder (outdir)");
    TL_CHECK(cfg->nvtx, TL_ERR_INVAL,
             "probes need an output folder (or nvtx = 1 for NVTX ranges only)");
    TL_CHECK(!ctx->probes, TL_ERR_INVAL, "probes already created for rank %d", ctx->rank);
    tl_status st = TL_OK;
    tl_probes *p = calloc(1, sizeof *p);
    if (!p) return TL_FAIL(TL_ERR_NOMEM, "probes: %zu bytes", sizeof *p);
    p->cfg = *cfg;
    p->cfg.max_ranges = 1;
    p->cfg.outdir = p->outdir; /* "" */
    p->nvtx_only = 1;
    p->rank = ctx->rank;
    p->nranks = ctx->size > 0 ? ctx->size : 1;
    p->device = ctx->device >= 0 ? ctx->device : -1;
    p->program = ctx->program ? ctx->program : "trilap";
    p->cupti = TL_CUPTI_OFF;
    tl_probe_nvtx_init(p); /* before the names: they register NVTX strings */
    if (!p->nvtx_domain) {
        free(p);
        return TL_OK;
    }
    TL_TRYGOTO(tl_probe_host_init(p), st, fail);
    ctx->probes = p;
    return TL_OK;
fail:
    free(p);
    return st;
}

void tl_probe_nvtx_only_destroy(tl_probes *p)
{
    tl_probe_nvtx_close_open(p); /* so the tool's stack is balanced */
    tl_probe_host_fini(p);
    free(p);
}

tl_status tl_probes_rank_main(tl_ctx *ctx, void *main)
{
    const tl_probes_main *m = main;
    ctx->opts = m->arg;
    ctx->trace = &m->trace;
    tl_status pst = tl_probes_create(ctx, &(tl_probes_config){.nvtx = 1});
    if (pst != TL_OK) tl_log("probes: no NVTX ranges in this run (%s)", tl_strerror(pst));
    tl_status st = m->fn(ctx, m->arg);
    /* a tracing session fn left open on its error path, then ours */
    while (ctx->probes) {
        pst = tl_probes_destroy(ctx);
        if (st == TL_OK) st = pst;
    }
    ctx->trace = NULL;
    return st;
}

/* Collective over the ranks (every rank creates its probes): the ranks agree
 * that all made them, then measure their clock offsets to rank 0
 * (clock_align.c); a rank whose create failed still takes part in the
 * agreement, so nobody waits for it. */
static tl_status tl_probes_create_as(tl_ctx *ctx, const tl_probes_config *cfg, int device,
                                     int infer)
{
    tl_status st = tl_probes_create_one(ctx, cfg, device, infer);
    tl_status cst = ctx ? tl_clock_align_start(ctx, st == TL_OK ? &ctx->probes->clock : NULL) : TL_OK;
    if (cst == TL_ERR_TIMEOUT)
        tl_log("probes: clock alignment to rank 0 failed: the other side of the exchange stopped answering "
               "(nothing within %.0f s); this trace keeps its own clock",
               tl_clock_align_patience_s(ctx));
    else if (cst != TL_OK)
        tl_log("probes: clock alignment to rank 0 failed; this trace keeps its own clock");
    return st;
}

tl_status tl_probes_create(tl_ctx *ctx, const tl_probes_config *cfg)
{
    TL_CHECK(ctx && cfg, TL_ERR_INVAL, "probes need a context and a configuration");
    if (!cfg->outdir) {
        TL_TRY(tl_probe_nvtx_only_create(ctx, cfg));
        if (ctx->probes) ctx->marks = &tl_probe_marks; /* the host's communication in the tool too */
        return TL_OK;
    }
    return tl_probes_create_as(ctx, cfg, ctx->device >= 0 ? ctx->device : -1, 0);
}

tl_status tl_probes_create_inject(tl_ctx *ctx, const tl_probes_config *cfg)
{
    return tl_probes_create_as(ctx, cfg, TL_PROBE_ALL_DEVICES, 1);
}

void tl_probe_stream(tl_ctx *ctx, void *stream, tl_role lane, const char *label)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p) return;
    if (p->nstreams == TL_PROBE_MAX_STREAMS) {
        tl_log("probes: more than %d streams registered; %s stays lane other", TL_PROBE_MAX_STREAMS,
               label ? label : "(unnamed)");
        return;
    }
    tl_probe_streamreg *s = &p->streams[p->nstreams++];
    s->device = p->device >= 0 ? p->device : -1;
    s->id = p->cupti_attached ? tl_probe_cupti_stream_id(stream) : 0;
    s->lane = (unsigned)lane < TL_ROLE_COUNT ? lane : TL_ROLE_OTHER;
    snprintf(s->label, sizeof s->label, "%s", label ? label : tl_role_name(s->lane));
    tl_probe_nvtx_stream(p, stream, label);
}

/* Injection: TRILAP_LANES="streamId:lane,...", for every device. */
tl_status tl_probes_lane_override(tl_ctx *ctx, uint32_t stream_id, tl_role lane)
{
    tl_probes *p = ctx ? ctx->probes : NULL;
    TL_CHECK(p, TL_ERR_INVAL, "no probes");
    TL_CHECK(p->nstreams < TL_PROBE_MAX_STREAMS, TL_ERR_INVAL, "more than %d lane overrides",
             TL_PROBE_MAX_STREAMS);
    tl_probe_streamreg *s = &p->streams[p->nstreams++];
    s->device = -1;
    s->id = stream_id;
    s->lane = lane;
    snprintf(s->label, sizeof s->label, "%s", tl_role_name(lane));
    return TL_OK;
}

uint64_t tl_probes_dropped(const tl_ctx *ctx)
{
    const tl_probes *p = ctx ? ctx->probes : NULL;
    if (!p) return 0;
    return p->host_dropped + (p->cupti == TL_CUPTI_ON ? tl_probe_cupti_dropped() : 0);
}

/* ---- the trace ----------------------------------------------------------- */

/* Versions for the metadata, from whatever the process has loaded: the
 * driver and NCCL are looked up by symbol so that the probes (and the
 * injection library) link neither. */
typedef struct tl_probe_prov {
    char cuda[96], driver[128], cupti[64], nccl[64], devname[256], commit[160];
} tl_probe_prov;

/* A CUDA driver API function of the driver this process has loaded, NULL
 * where it has none. The runtime dlopens libcuda.so.1 without
 * RTLD_GLOBAL, so its symbols are not in the global scope a plain
 * dlsym(RTLD_DEFAULT) searches: every GPU trace said `device_name=unknown
 * (the CUDA driver named no device 0)`. RTLD_NOLOAD finds the loaded
 * library and loads none into a host-only process. */
static void *driver_sym(void *drv, const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    return f || !drv ? f : dlsym(drv, name);
}

static void tl_probe_versions(tl_probe_prov *v, int device)
{
    snprintf(v->cupti, sizeof v->cupti, "none");
    snprintf(v->nccl, sizeof v->nccl, "none");
    void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    int (*rt_version)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
    int (*drv_version)(int *) = (int (*)(int *))driver_sym(libcuda, "cuDriverGetVersion");
    int rt = 0, drv = 0, x = 0;
    if (drv_version && drv_version(&x) == 0 && x > 0) drv = x;
    /* the runtime's own version where the process exports it (a shared
     * libcudart); trilap's programs link it statically, and then the
     * driver's CUDA version is what the metadata can name */
    if (rt_version && rt_version(&x) == 0 && x > 0) rt = x;
    if (rt)
        snprintf(v->cuda, sizeof v->cuda, "%d.%d", rt / 1000, (rt % 1000) / 10);
    else if (drv)
        snprintf(v->cuda, sizeof v->cuda, "driver-api %d.%d (the runtime's own version is not visible to the probes)",
                 drv / 1000, (drv % 1000) / 10);
    else
        snprintf(v->cuda, sizeof v->cuda, "none (no CUDA driver loaded in this process: a host-only run)");
    char kmod[64];
    tl_provenance_driver_module(kmod, sizeof kmod);
    if (kmod[0] && drv)
        snprintf(v->driver, sizeof v->driver, "%s (CUDA %d.%d)", kmod, drv / 1000, (drv % 1000) / 10);
    else if (kmod[0])
        snprintf(v->driver, sizeof v->driver, "%s", kmod);
    else if (drv)
        snprintf(v->driver, sizeof v->driver, "CUDA %d.%d (no /proc/driver/nvidia/version to name the module)",
                 drv / 1000, (drv % 1000) / 10);
    else
        snprintf(v->driver, sizeof v->driver, "none (no NVIDIA driver loaded on this host)");
    int (*nccl_version)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "ncclGetVersion");
    if (nccl_version && nccl_version(&x) == 0 && x > 0) {
        /* NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z before 2.9, X*10000+Y*100+Z after. */
        if (x >= 20900)
            snprintf(v->nccl, sizeof v->nccl, "%d.%d.%d", x / 10000, (x % 10000) / 100, x % 100);
        else
            snprintf(v->nccl, sizeof v->nccl, "%d.%d.%d", x / 1000, (x % 1000) / 100, x % 100);
    }
    if (device < 0) {
        snprintf(v->devname, sizeof v->devname, "none (a host-only rank: no GPU in use)");
    } else {
        snprintf(v->devname, sizeof v->devname, "unknown (the CUDA driver named no device %d)", device);
        int (*dev_get)(int *, int) = (int (*)(int *, int))driver_sym(libcuda, "cuDeviceGet");
        int (*dev_name)(char *, int, int) = (int (*)(char *, int, int))driver_sym(libcuda, "cuDeviceGetName");
        int dev = 0;
        char name[256];
        if (dev_get && dev_name && dev_get(&dev, device) == 0 && dev_name(name, (int)sizeof name, dev) == 0 && name[0])
            snprintf(v->devname, sizeof v->devname, "%s", name);
    }
    if (libcuda) dlclose(libcuda);
    uint32_t cv = tl_probe_cupti_version();
    if (cv) snprintf(v->cupti, sizeof v->cupti, "%u", cv);
    tl_provenance_commit(v->commit, sizeof v->commit);
}

static int tl_rec_cmp(const void *a, const void *b)
{
    const tl_trace_record *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    /* Enclosing ranges before what they enclose. */
    if (x->end_ns != y->end_ns) return x->end_ns > y->end_ns ? -1 : 1;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

typedef struct {
    char *label[TL_PROBE_MAX_NAMES][TL_CAT_COUNT]; /* "cat:name", made on first use */
} tl_labels;

static const char *tl_label(tl_labels *lb, const tl_probes *p, uint32_t name, uint8_t cat,
                            tl_status *st)
{
    if (name >= p->nnames || cat >= TL_CAT_COUNT) return "?";
    char **l = &lb->label[name][cat];
    if (!*l) {
        const char *n = tl_probe_name_str(p, name);
        size_t len = strlen(n) + 16;
        *l = malloc(len);
        if (!*l) {
            *st = TL_FAIL(TL_ERR_NOMEM, "probes: range label");
            return "?";
        }
        snprintf(*l, len, "%s:%s", tl_cat_name((tl_cat)cat), n);
    }
    return *l;
}

static tl_status tl_meta_i64(tl_trace_writer *w, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return tl_trace_writer_meta(w, key, b);
}

/* What a trace's metadata says of its records, besides the session's. */
typedef struct trace_summary {
    size_t n;                 /* records */
    int64_t w0, w1;           /* the window */
    const char *wsrc;         /* where the window came from */
    uint64_t dropped, cdropped;
} trace_summary;

/* The metadata lines of a rank's trace, "complete" apart (written last,
 * after everything it vouches for). */
static tl_status tl_write_trace_meta(tl_trace_writer *w, const tl_probes *p,
                                     const tl_probe_gpu *g, const trace_summary *sm)
{
    char host[256] = "unknown", b[64];
    gethostname(host, sizeof host - 1);
    tl_probe_prov pv;
    tl_probe_versions(&pv, p->device >= 0 ? p->device : (p->device == TL_PROBE_ALL_DEVICES ? 0 : -1));
    TL_TRY(tl_trace_writer_meta(w, "format", "trilap-trace"));
    TL_TRY(tl_trace_writer_meta(w, "version", "1"));
    TL_TRY(tl_meta_i64(w, "rank", p->rank));
    if (p->nranks > 0) TL_TRY(tl_meta_i64(w, "nranks", p->nranks));
    if (p->cfg.rank_from) TL_TRY(tl_trace_writer_meta(w, "rank_from", p->cfg.rank_from));
    TL_TRY(tl_trace_writer_meta(w, "host", host));
    snprintf(b, sizeof b, "%s", p->device == TL_PROBE_ALL_DEVICES ? "all" : "");
    if (!b[0]) snprintf(b, sizeof b, "%d", p->device);
    TL_TRY(tl_trace_writer_meta(w, "device", b));
    TL_TRY(tl_trace_writer_meta(w, "device_name", pv.devname));
    TL_TRY(tl_trace_writer_meta(w, "clock", "CLOCK_MONOTONIC"));
    TL_TRY(tl_trace_writer_meta(w, "program", p->program));
    TL_TRY(tl_trace_writer_meta(w, "args", p->args));
    TL_TRY(tl_trace_writer_meta(w, "cuda", pv.cuda));
    TL_TRY(tl_trace_writer_meta(w, "driver", pv.driver));
    TL_TRY(tl_trace_writer_meta(w, "git_commit", pv.commit));
    TL_TRY(tl_trace_writer_meta(w, "nccl", pv.nccl));
    TL_TRY(tl_trace_writer_meta(w, "cupti", pv.cupti));
    TL_TRY(tl_trace_writer_meta(w, "cupti_status", tl_cupti_status_name(p->cupti)));
    TL_TRY(tl_trace_writer_meta(w, "cupti_clock", g->clock ? g->clock : "none"));
    TL_TRY(tl_trace_writer_meta(w, "lanes", p->infer_lanes ? "inferred" : "registered"));
    TL_TRY(tl_meta_i64(w, "window_start_ns", sm->w0));
    TL_TRY(tl_meta_i64(w, "window_end_ns", sm->w1));
    TL_TRY(tl_trace_writer_meta(w, "window", sm->wsrc));
    TL_TRY(tl_meta_i64(w, "buffer_bytes", (int64_t)p->cfg.buffer_bytes));
    TL_TRY(tl_meta_i64(w, "max_buffers", p->cfg.max_buffers));
    TL_TRY(tl_meta_i64(w, "dropped", (int64_t)sm->dropped));
    TL_TRY(tl_meta_i64(w, "dropped_cupti", (int64_t)sm->cdropped));
    TL_TRY(tl_meta_i64(w, "dropped_host", (int64_t)p->host_dropped));
    TL_TRY(tl_meta_i64(w, "dropped_incomplete", (int64_t)g->incomplete));
    TL_TRY(tl_meta_i64(w, "unbalanced_pops", (int64_t)p->unbalanced));
    TL_TRY(tl_meta_i64(w, "names_dropped", (int64_t)p->names_dropped));
    TL_TRY(tl_meta_i64(w, "iter_unknown", (int64_t)g->iter_unknown));
    TL_TRY(tl_meta_i64(w, "cupti_overhead_ns", (int64_t)g->overhead_ns));
    TL_TRY(tl_meta_i64(w, "cupti_overhead_records", (int64_t)g->overhead_n));
    TL_TRY(tl_meta_i64(w, "records", (int64_t)sm->n));
    /* how each GPU record was found to be this rank's (probes_owner.c) */
    for (int r = 0; r < TL_OWN_COUNT; r++) {
        char key[32];
        snprintf(key, sizeof key, "owner_%s", tl_owner_rule_name((tl_owner_rule)r));
        TL_TRY(tl_meta_i64(w, key, (int64_t)g->by_rule[r]));
    }
    TL_TRY(tl_meta_i64(w, "comm_copies", (int64_t)g->comm_copies));
    for (int i = 0; i < p->nstreams; i++) {
        char key[64], val[96];
        snprintf(key, sizeof key, "stream.%d.%u", p->streams[i].device, p->streams[i].id);
        snprintf(val, sizeof val, "%s %s", tl_role_name(p->streams[i].lane), p->streams[i].label);
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= p->streams[j].device == p->streams[i].device &&
                   p->streams[j].id == p->streams[i].id;
        if (!dup) TL_TRY(tl_trace_writer_meta(w, key, val));
    }
    TL_TRY(tl_probe_peers_meta(p, w));
    return tl_clock_align_meta(&p->clock, w);
}

static tl_status tl_write_trace(tl_probes *p, const tl_probe_gpu *g, int64_t now)
{
    tl_status st = TL_OK;
    tl_trace_writer *w = NULL;
    tl_labels *lb = calloc(1, sizeof *lb);
    size_t n = p->nranges + p->niters + g->n, k = 0;
    tl_trace_record *all = malloc((n ? n : 1) * sizeof *all);
    if (!lb || !all) {
        st = TL_FAIL(TL_ERR_NOMEM, "probes: %zu trace rows", n);
        goto fail;
    }
    for (size_t i = 0; i < p->nranges; i++) {
        const tl_probe_range *r = &p->ranges[i];
        all[k++] = (tl_trace_record){.rank = p->rank,
                                     .device = -1,
                                     .lane = (tl_role)r->lane,
                                     .cat = TL_CAT_RANGE,
                                     .kind = TL_KIND_HOST,
                                     .name = tl_label(lb, p, r->name, r->cat, &st),
                                     .start_ns = r->start,
                                     .end_ns = r->end,
                                     .bytes = -1,
                                     .iter = r->iter};
    }
    for (size_t i = 0; i < p->niters; i++)
        all[k++] = (tl_trace_record){.rank = p->rank,
                                     .device = -1,
                                     .lane = TL_ROLE_HOST,
                                     .cat = TL_CAT_RANGE,
                                     .kind = TL_KIND_HOST,
                                     .name = "iter",
                                     .start_ns = p->iters[i].start,
                                     .end_ns = p->iters[i].end,
                                     .bytes = -1,
                                     .iter = p->iters[i].iter};
    for (size_t i = 0; i < g->n; i++)
        all[k++] = g->recs[i];
    if (st != TL_OK) goto fail;
    qsort(all, n, sizeof *all, tl_rec_cmp);

    int64_t w0 = p->window_start, w1 = p->window_end;
    const char *wsrc = "marked";
    if (w0 < 0) {
        wsrc = "records";
        /* none: the probes' life, so that the empty traces of processes
         * traced together (an injected job that ran no GPU work) still
         * overlap, and read as one run with nothing in it, not as runs
         * apart */
        w0 = n ? all[0].start_ns : p->created_ns;
        w1 = n ? w0 : now;
        for (size_t i = 0; i < n; i++)
            if (all[i].end_ns > w1) w1 = all[i].end_ns;
    } else if (w1 < w0) {
        wsrc = "marked-start"; /* started, never stopped: up to destroy */
        w1 = now;
    }
    uint64_t cdropped = p->cupti == TL_CUPTI_ON ? tl_probe_cupti_dropped() : 0;
    uint64_t dropped = cdropped + p->host_dropped + g->incomplete;
    int complete = dropped == 0 && p->cupti != TL_CUPTI_SKIPPED_SUBSCRIBER &&
                   !(p->cupti == TL_CUPTI_UNAVAILABLE && p->device != -1 && p->cfg.cupti);
    char path[600];
    snprintf(path, sizeof path, "%s/trace.rank%d.csv", p->outdir, p->rank);
    TL_TRYGOTO(tl_trace_writer_open(&w, path), st, fail);
    const trace_summary sm = {
        .n = n, .w0 = w0, .w1 = w1, .wsrc = wsrc, .dropped = dropped, .cdropped = cdropped};
    TL_TRYGOTO(tl_write_trace_meta(w, p, g, &sm), st, fail);
    TL_TRYGOTO(tl_trace_writer_meta(w, "complete", complete ? "yes" : "no"), st, fail);
    for (size_t i = 0; i < n; i++)
        TL_TRYGOTO(tl_trace_writer_record(w, &all[i]), st, fail);
    TL_TRYGOTO(tl_trace_writer_close(&w, 1), st, fail);
    if (dropped)
        tl_log("probes: %" PRIu64 " records dropped (%" PRIu64 " CUPTI, %" PRIu64 " host, %" PRIu64
               " unfinished): %s marked incomplete; raise buffer_bytes/max_buffers/max_ranges or "
               "shorten the window",
               dropped, cdropped, p->host_dropped, g->incomplete, path);
fail:
    tl_trace_writer_close(&w, 0);
    if (lb)
        for (int i = 0; i < TL_PROBE_MAX_NAMES; i++)
            for (int c = 0; c < TL_CAT_COUNT; c++)
                free(lb->label[i][c]);
    free(lb);
    free(all);
    return st;
}

tl_status tl_probes_destroy(tl_ctx *ctx)
{
    if (!ctx || !ctx->probes) return TL_OK;
    tl_probes *p = ctx->probes;
    ctx->probes = p->outer;
    if (p->nvtx_only) {
        tl_probe_nvtx_only_destroy(p);
        return TL_OK;
    }
    /* the second offset, for the drift (collective, where create was) */
    if (tl_clock_align_stop(ctx, &p->clock) != TL_OK)
        tl_log("probes: clock alignment to rank 0 at stop failed; no drift measured");
    tl_probe_nvtx_close_open(p); /* what is still open, closed for the tool too */
    int64_t now = tl_clock_ns();
    /* what is still open is closed here as its pop or iter_end would close
     * it, and what finds no slot is counted lost as they count it (before,
     * an open iteration with its slots full, ranges nested beyond the
     * stack and ranges with theirs full went without a count, and the
     * trace said complete=yes) */
    if (p->cur_iter >= 0 && p->niters < p->cap_iters)
        p->iters[p->niters++] =
            (tl_probe_iterval){.start = p->iter_start, .end = now, .iter = p->cur_iter};
    else if (p->cur_iter >= 0)
        p->host_dropped++;
    p->cur_iter = -1;
    int open = p->depth < TL_PROBE_MAX_DEPTH ? p->depth : TL_PROBE_MAX_DEPTH;
    p->unbalanced += (uint64_t)(p->depth - open);
    p->host_dropped += (uint64_t)(p->depth - open); /* nested beyond the stack: never kept */
    for (int d = open - 1; d >= 0; d--) {
        p->unbalanced++;
        if (p->nranges < p->cap_ranges)
            p->ranges[p->nranges++] = (tl_probe_range){.start = p->stack[d].start,
                                                       .end = now,
                                                       .iter = p->stack[d].iter,
                                                       .name = p->stack[d].name,
                                                       .cat = p->stack[d].cat,
                                                       .lane = p->stack[d].lane};
        else
            p->host_dropped++;
    }
    tl_probe_gpu g;
    tl_status st = tl_probe_cupti_collect(p, &g);
    if (st == TL_OK) st = tl_write_trace(p, &g, now);
    if (st != TL_OK) tl_error_frame(st, __FILE__, __LINE__);
    tl_probe_gpu_free(&g);
    tl_probe_host_fini(p);
    tl_probe_peers_free(p);
    free(p->args);
    free(p);
    return st;
}
