/* The GPU each of calibrate's inputs was measured on, as the manifest.txt
 * beside it names it (gpu.rank<R>: lines, runtime/manifest.c), as its
 * traces name it (device_name metadata) and as stream.csv's device column
 * does. The model scales kernels from the calibration GPU's triad by its
 * nominal bandwidth and fits NCCL's costs on the tristream and comm runs
 * together: a stream.csv of another GPU mixed with traces of this one was
 * fitted into one calibration without a word. */
#include "model/calib.h"

#include "model/platform.h"
#include "probes/trace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* dir/manifest.txt opened in *f (mpath: its path), or *f NULL where
 * there is none: a measurement without provenance, nothing to compare */
static tl_status manifest_open(const char *option, const char *dir, char *mpath, size_t mn, FILE **f)
{
    snprintf(mpath, mn, "%s/manifest.txt", dir);
    *f = fopen(mpath, "r");
    TL_CHECK(*f || errno == ENOENT, TL_ERR_IO, "%s: %s: %s", option, mpath, strerror(errno));
    return TL_OK;
}

/* The GPU model of a device as runtime names it, in a manifest's
 * gpu.rank<R> line or stream.csv's device column ("NVIDIA H200 (device 0,
 * PCI 0000:00:06)"): the text before " (", blanks cut. The device number
 * and PCI address are the run's, not the hardware's. */
static void device_model(const char *text, char *model, size_t n)
{
    snprintf(model, n, "%.*s", (int)strcspn(text, "(\r\n"), text);
    size_t len = strlen(model);
    while (len && model[len - 1] == ' ') model[--len] = 0;
}

/* The first GPU model dir/manifest.txt names (the text before " (": the
 * device number and PCI address are the run's, not the hardware's), or ""
 * where there is no manifest or no GPU in it. A manifest that names two
 * models (runs of two machines appended to one file) is refused. */
static tl_status manifest_gpu(const char *option, const char *dir, char *gpu, size_t n, char *mpath, size_t mn)
{
    gpu[0] = 0;
    FILE *f = NULL;
    TL_TRY(manifest_open(option, dir, mpath, mn, &f));
    if (!f) return TL_OK;
    char line[1024];
    int r;
    tl_status st = TL_OK;
    while (st == TL_OK && fgets(line, sizeof line, f)) {
        int used = 0;
        if (sscanf(line, "gpu.rank%d: %n", &r, &used) != 1 || !used) continue;
        char model[256];
        device_model(line + used, model, sizeof model);
        if (!model[0] || strcmp(model, "none") == 0) continue;
        if (!gpu[0]) snprintf(gpu, n, "%s", model);
        else if (strcmp(gpu, model) != 0)
            st = TL_FAIL(TL_ERR_PARSE, "%s: %s names two GPUs, %s and %s: a calibration rests on one GPU model's "
                         "measurements", option, mpath, gpu, model);
    }
    fclose(f);
    return st;
}

static void folder_of(const char *path, int is_dir, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (is_dir) snprintf(dir, n, "%s", path);
    else if (!slash) snprintf(dir, n, ".");
    else snprintf(dir, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

void tl_mcalib_manifest_of(const tl_mcalib_input *in, char *path, size_t n)
{
    char dir[4200];
    folder_of(in->path, in->is_dir, dir, sizeof dir);
    snprintf(path, n, "%s/manifest.txt", dir);
}

tl_status tl_mcalib_same_gpu(const tl_mcalib_input *in, int n, tl_mcalib_gpu *held)
{
    memset(held, 0, sizeof *held);
    const tl_mcalib_input *by = NULL;
    for (int i = 0; i < n; i++) {
        char dir[4200], gpu[256], mpath[4250];
        folder_of(in[i].path, in[i].is_dir, dir, sizeof dir);
        TL_TRY(manifest_gpu(in[i].option, dir, gpu, sizeof gpu, mpath, sizeof mpath));
        if (!gpu[0]) continue;
        if (!by) {
            by = &in[i];
            snprintf(held->model, sizeof held->model, "%s", gpu);
            snprintf(held->by, sizeof held->by, "%s", mpath);
            continue;
        }
        TL_CHECK(strcmp(held->model, gpu) == 0, TL_ERR_PARSE,
                 "%s: %s was measured on %s (%s), %s %s on %s (%s): a calibration rests on one GPU model's "
                 "measurements; give all four of the same machine",
                 in[i].option, in[i].path, gpu, mpath, by->option, by->path, held->model, held->by);
    }
    return TL_OK;
}

/* The GPU a trace's device_name names (the model before " ("), "" where
 * it names none: "unknown (the CUDA driver named no device 0)" of traces
 * written before the probes found the driver, "none" of older ones and of
 * host-only ranks, or no key at all. */
static tl_status trace_gpu(const char *path, char *model, size_t n, char *value, size_t nv)
{
    tl_trace_reader *rd = NULL;
    TL_TRY(tl_trace_reader_open(&rd, path, 0));
    const char *v = tl_trace_reader_meta(rd, "device_name");
    snprintf(value, nv, "%s", v ? v : "");
    tl_trace_reader_close(&rd);
    device_model(value, model, n);
    if (!strcmp(model, "unknown") || !strcmp(model, "none")) model[0] = 0;
    return TL_OK;
}

tl_status tl_mcalib_traces_of_gpu(const char *dir, tl_mcalib_gpu *held, tl_mcalib_unnamed *unnamed)
{
    char paths[TL_MCALIB_TRACE_FILES][4200];
    tl_mcalib_trace_files(dir, paths);
    memset(unnamed, 0, sizeof *unnamed);
    unnamed->of = TL_MCALIB_TRACE_FILES;
    for (int k = 0; k < TL_MCALIB_TRACE_FILES; k++) {
        char model[256], value[256];
        TL_TRY(trace_gpu(paths[k], model, sizeof model, value, sizeof value));
        if (!model[0]) {
            if (!unnamed->n++) {
                snprintf(unnamed->first, sizeof unnamed->first, "%.4199s", paths[k]);
                snprintf(unnamed->value, sizeof unnamed->value, "%s", value);
            }
        } else if (!held->model[0]) {
            snprintf(held->model, sizeof held->model, "%s", model);
            snprintf(held->by, sizeof held->by, "the trace %.4200s", paths[k]);
        } else
            TL_CHECK(strcmp(model, held->model) == 0, TL_ERR_PARSE,
                     "%s: device_name %s, where %s names %s: a calibration rests on one GPU model's measurements; "
                     "give the traces of a run on %s, or manifests naming the GPU measured",
                     paths[k], model, held->by, held->model, held->model);
    }
    return TL_OK;
}

void tl_mcalib_unnamed_say(const tl_mcalib_unnamed *u, const tl_mcalib_gpu *held)
{
    if (!u->n || !held->model[0]) return; /* nothing names a GPU: the triad's note says so */
    char said[300];
    if (u->value[0]) snprintf(said, sizeof said, "device_name=%s", u->value);
    else snprintf(said, sizeof said, "no device_name");
    fprintf(stderr, "trilap-model: note: %d of %d traces name no GPU (%s: %s): not compared with %s, which %s names\n",
            u->n, u->of, u->first, said, held->model, held->by);
}

tl_status tl_mcalib_manifest_ranks(const char *csv, int want, const char *needs)
{
    char dir[4200], mpath[4250];
    folder_of(csv, 0, dir, sizeof dir);
    FILE *f = NULL;
    TL_TRY(manifest_open(csv, dir, mpath, sizeof mpath, &f));
    if (!f) return TL_OK;
    /* a folder's manifest holds a block per command, each opening with the
     * results file it wrote (`results: NAME`; an older manifest has one
     * block and no such line): only this file's blocks say its run */
    const char *base = strrchr(csv, '/') ? strrchr(csv, '/') + 1 : csv;
    char line[1024];
    int lineno = 0, ranks, ours = 1;
    tl_status st = TL_OK;
    while (st == TL_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strncmp(line, "results: ", 9)) {
            line[strcspn(line, "\n")] = '\0';
            ours = !strcmp(line + 9, base);
        } else if (ours && sscanf(line, "ranks: %d", &ranks) == 1 && ranks != want)
            st = TL_FAIL(TL_ERR_PARSE, "%s (no column of its run's size): %s:%d: ranks: %d, a run of %d GPU%s: "
                         "calibrate needs %s", csv, mpath, lineno, ranks, ranks, ranks == 1 ? "" : "s", needs);
    }
    fclose(f);
    return st;
}

/* The triad against the nominal memory bandwidth predictions scale it
 * from (the calibration's gpu_mem_gbs, else the table's figure of the GPU
 * the inputs name): no GPU's STREAM triad exceeds its own. A GPU the
 * table has no figure for, and none given, is said and not checked; a
 * triad of a GPU nothing names is not checked either, and calibrate's
 * one note on that GPU says so. */
static tl_status triad_within_nominal(const tl_mcalib *c, const char *csv, const tl_mcalib_gpu *held)
{
    const char *gpu = held->model;
    const tl_mplatform *p = gpu[0] ? tl_mplatform_of_device(gpu) : NULL;
    double nominal = c->gpu_mem_gbs > 0 ? c->gpu_mem_gbs : p ? p->mem_gbs : 0;
    if (nominal <= 0) {
        if (gpu[0])
            fprintf(stderr, "trilap-model: note: %s: triad_gbs %.1f not held to the nominal memory bandwidth of %s: "
                            "model/platform.c has no figure for it (--gpu-mem-gbs gives one)\n",
                    csv, c->triad_gbs, gpu);
        return TL_OK;
    }
    TL_CHECK(c->triad_gbs <= nominal, TL_ERR_PARSE,
             "%s gives triad_gbs = %.1f GB/s, above the %g GB/s nominal memory bandwidth of %s (%s): no GPU's "
             "triad exceeds its own, so the run was of another GPU; calibrate from a run of %s, or with manifests "
             "naming the GPU measured", csv, c->triad_gbs, nominal, gpu[0] ? gpu : "the calibration's GPU",
             c->gpu_mem_gbs > 0 ? "--gpu-mem-gbs" : "model/platform.c", gpu[0] ? gpu : "that GPU");
    return TL_OK;
}

tl_status tl_mcalib_stream_of_gpu(const tl_mcalib *c, const char *csv, tl_mcalib_gpu *held)
{
    tl_csv t;
    TL_TRY(tl_csv_read(csv, &t));
    int d = tl_csv_col(&t, "device");
    tl_status st = TL_OK;
    for (int r = 0; d >= 0 && r < t.nrows && st == TL_OK; r++) {
        char model[256];
        device_model(t.rows[r][d], model, sizeof model);
        if (!model[0]) continue;
        if (!held->model[0]) {
            /* nothing else names the GPU: the run's own device, which its
             * other rows and the triad are held to */
            snprintf(held->model, sizeof held->model, "%s", model);
            snprintf(held->by, sizeof held->by, "%s:%d", csv, t.line[r]);
        } else if (strcmp(model, held->model) != 0)
            st = TL_FAIL(TL_ERR_PARSE, "%s:%d: device %s, where %s names %s: a calibration rests on one GPU model's "
                         "measurements; give a stream.csv of %s, or manifests naming the GPU measured",
                         csv, t.line[r], model, held->by, held->model, held->model);
    }
    tl_csv_free(&t);
    if (st != TL_OK) return st;
    return triad_within_nominal(c, csv, held);
}
