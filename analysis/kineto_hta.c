/* Holistic Trace Analysis's figures on Kineto traces, reproduced exactly
 * (`overlap --hta`, `breakdown --hta`). HTA's rules, from its source
 * (hta/common/trace.py, trace_parser.py, trace_filter.py, utils/utils.py,
 * common/types.py, analyzers/communication_analysis.py,
 * breakdown_analysis.py), restated in analysis/README.md:
 *   rows       events with a dur and a cat (not "Trace"); a row is GPU when
 *              its args.stream >= 0 and args.correlation >= 0
 *   times      when any ts of the file is not an integer (or is missing),
 *              every row becomes [ceil(ts), floor(ts + dur)] µs
 *   filter     when the ranks loaded name two or more ProfilerStep#N: a GPU
 *              row stays only if a CPU row with its correlation id (its
 *              launch) starts before the last ProfilerStep's start
 *   classes    comm: ^nccl|^hip|^hccl|.*ncclKernel.*; memory: ^Memcpy,
 *              ^Memset, ^dma (and hip); compute: a name matching none of
 *              HTA's non-compute patterns; the rest "other"
 *   overlap    |U(comm) ∩ U(compute)| / |U(comm)|, unions over all streams
 *   temporal   kernel_time = last end - first start of the rows with a
 *              stream; idle = kernel_time - U(rows); compute = U(compute);
 *              non-compute = kernel_time - compute - idle */
#include "analysis/kineto.h"
#include "analysis/kineto_report.h"
#include "analysis/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { HTA_COMM, HTA_MEMORY, HTA_COMPUTE, HTA_OTHER } hta_class;

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* HTA's ComputeKernelGroupingPattern (inverse match): re.match, so each
 * alternative is anchored at the start; ".*X" means "contains X". */
static int hta_non_compute(const char *n)
{
    static const char *const prefix[] = {"nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet",
                                         "pe_exe", "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"};
    static const char *const contains[] = {"Memcpy", "Memset", "dma", "Sync"};
    for (size_t k = 0; k < sizeof prefix / sizeof prefix[0]; k++)
        if (has_prefix(n, prefix[k])) return 1;
    for (size_t k = 0; k < sizeof contains / sizeof contains[0]; k++)
        if (strstr(n, contains[k])) return 1;
    return has_prefix(n, "cuda") && strstr(n + 4, "LaunchKernel") != NULL; /* cuda.*LaunchKernel */
}

static hta_class hta_class_of(const char *n)
{
    if (has_prefix(n, "nccl") || has_prefix(n, "hip") || has_prefix(n, "hccl") || strstr(n, "ncclKernel"))
        return HTA_COMM;
    if (has_prefix(n, "Memcpy") || has_prefix(n, "hipMemcpy") || has_prefix(n, "Memset") ||
        has_prefix(n, "hipMemset") || has_prefix(n, "dma"))
        return HTA_MEMORY;
    return hta_non_compute(n) ? HTA_OTHER : HTA_COMPUTE;
}

typedef struct hiv {
    int64_t s, e; /* ns; e < s for sub-µs rows rounded inward (HTA keeps them) */
} hiv;

static int cmp_hiv(const void *a, const void *b)
{
    const hiv *x = a, *y = b;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    return x->e > y->e ? -1 : x->e < y->e;
}

/* HTA's merge_kernel_intervals: sorted by start, a row opens a group when
 * it starts after every end so far; in place, returns the group count. */
static size_t merge(hiv *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_hiv);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && v[i].s <= v[m - 1].e) {
            if (v[i].e > v[m - 1].e) v[m - 1].e = v[i].e;
        } else {
            v[m++] = v[i];
        }
    }
    return m;
}

static int64_t length(const hiv *v, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i].e - v[i].s;
    return sum;
}

static int64_t intersect(const hiv *a, size_t na, const hiv *b, size_t nb)
{
    int64_t sum = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s, e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s) sum += e - s;
        if (a[i].e < b[j].e) i++;
        else j++;
    }
    return sum;
}

/* HTA's time of a row, in ns (µs values when rounded). Whole µs and the
 * fraction apart, as tl_kt_ns does: epoch µs (1.7e15) times 1e3 is past a
 * double's 2^53, so ts * 1e3 would move each end by up to 128 ns and the
 * µs sums of the table by one (a 68 µs kernel counted 67.84 µs). */
static void hta_times(const tl_kt_trace *t, double ts, double dur, int64_t *s, int64_t *e)
{
    if (t->ts_float) {
        *s = (int64_t)ceil(ts) * 1000;
        *e = (int64_t)floor(ts + dur) * 1000;
    } else {
        double whole = floor(ts);
        *s = (int64_t)whole * 1000 + llround((ts - whole) * 1e3);
        *e = *s + llround(dur * 1e3);
    }
}

/* The earliest HTA start of a CPU row with this correlation id, or INT64_MAX. */
static int64_t launch_start(const tl_kt_trace *t, int64_t corr)
{
    size_t lo = 0, hi = t->nc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->c[mid].corr < corr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == t->nc || t->c[lo].corr != corr) return INT64_MAX;
    int64_t s, e;
    hta_times(t, t->c[lo].ts_us, t->c[lo].dur_us, &s, &e);
    return s;
}

tl_status tl_kt_hta_compute(const tl_kt_trace *t, int filter, tl_kt_hta *out)
{
    memset(out, 0, sizeof *out);
    out->rank = t->rank;
    int64_t last = INT64_MIN;
    for (size_t k = 0; k < t->nsteps; k++) {
        int64_t s, e;
        hta_times(t, t->steps[k].ts_us, t->steps[k].dur_us, &s, &e);
        if (s > last) last = s;
    }
    if (filter && last == INT64_MIN) {
        /* no step on this rank: HTA takes the first CPU row's start */
        for (size_t k = 0; k < t->nc; k++) {
            int64_t s, e;
            hta_times(t, t->c[k].ts_us, t->c[k].dur_us, &s, &e);
            if (last == INT64_MIN || s < last) last = s;
        }
    }
    out->filtered = filter && last != INT64_MIN;
    out->last_step_us = out->filtered ? (double)last / 1e3 : NAN;
    hiv *all = malloc((t->ns ? t->ns : 1) * sizeof *all), *comm = malloc((t->ns ? t->ns : 1) * sizeof *comm),
        *comp = malloc((t->ns ? t->ns : 1) * sizeof *comp);
    if (!all || !comm || !comp) {
        free(all);
        free(comm);
        free(comp);
        return TL_FAIL(TL_ERR_NOMEM, "%s: %zu rows", t->path, t->ns);
    }
    size_t na = 0, nm = 0, np = 0;
    for (size_t i = 0; i < t->ns; i++) {
        const tl_kt_srow *r = &t->s[i];
        if (r->stream == -1) continue;
        int64_t s, e;
        hta_times(t, r->ts_us, r->dur_us, &s, &e);
        int gpu = r->stream >= 0 && r->corr >= 0;
        if (out->filtered) {
            /* GPU rows by their launch; rows with a stream but no correlation are CPU rows to HTA */
            int keep = gpu ? launch_start(t, r->corr) < last : s < last;
            if (gpu) {
                out->kept += (size_t)keep;
                out->dropped += (size_t)!keep;
            }
            if (!keep) continue;
        } else if (gpu) {
            out->kept++;
        }
        hta_class c = hta_class_of(tl_an_names_get(t->names, r->name));
        all[na++] = (hiv){s, e};
        if (c == HTA_COMM) comm[nm++] = (hiv){s, e};
        else if (c == HTA_COMPUTE) comp[np++] = (hiv){s, e};
    }
    na = merge(all, na);
    nm = merge(comm, nm);
    np = merge(comp, np);
    out->comm_us = length(comm, nm);
    out->comp_us = length(comp, np);
    out->overlap_us = intersect(comm, nm, comp, np);
    out->kernel_us = na ? all[na - 1].e - all[0].s : 0;
    out->idle_us = out->kernel_us - length(all, na);
    free(all);
    free(comm);
    free(comp);
    /* the sums above are in ns: µs for the table */
    out->comm_us /= 1000;
    out->comp_us /= 1000;
    out->overlap_us /= 1000;
    out->kernel_us /= 1000;
    out->idle_us /= 1000;
    return TL_OK;
}

typedef struct rank_res {
    tl_kt_hta with, without;
} rank_res;

static double pct(int64_t a, int64_t b)
{
    return b ? 100.0 * (double)a / (double)b : NAN;
}

/* One input of the command: its rank files and HTA's figures of each. */
typedef struct hta_run {
    const char *input;
    char label[256]; /* the run column: the input's shortest trailing path no other input ends in */
    char **files;
    size_t nf, nsteps;
    rank_res *rr;
} hta_run;

/* HTA's figures of every rank of one input, with and without the filter;
 * the distinct ProfilerStep names of all its ranks decide which applies. */
static tl_status load_run(hta_run *r)
{
    tl_status st = TL_OK;
    tl_kt_trace *t = NULL;
    int64_t *steps = NULL;
    size_t capsteps = 0;
    int found = 0;
    TL_TRY(tl_an_kineto_run_files(r->input, &r->files, &r->nf, &found));
    if (!found) TL_TRY(tl_an_kineto_refuse_other(r->input));
    if (!found)
        return TL_FAIL(TL_ERR_INVAL, "%s: --hta applies Holistic Trace Analysis's rules to PyTorch profiler (Kineto) "
                                     "traces; this is not one (a .json or .json.gz trace, or a folder of them)",
                       r->input);
    r->rr = calloc(r->nf, sizeof *r->rr);
    TL_CHECKGOTO(r->rr, TL_ERR_NOMEM, st, fail, "%zu ranks", r->nf);
    for (size_t f = 0; f < r->nf; f++) {
        TL_TRYGOTO(tl_kt_load(r->files[f], &t), st, fail);
        TL_TRYGOTO(tl_kt_hta_compute(t, 1, &r->rr[f].with), st, fail);
        TL_TRYGOTO(tl_kt_hta_compute(t, 0, &r->rr[f].without), st, fail);
        for (size_t k = 0; k < t->nsteps; k++) {
            size_t j = 0;
            while (j < r->nsteps && steps[j] != t->steps[k].num) j++;
            if (j < r->nsteps) continue;
            TL_TRYGOTO(TL_AN_GROW(steps, r->nsteps, capsteps, "steps"), st, fail);
            steps[r->nsteps++] = t->steps[k].num;
        }
        tl_kt_free(&t);
    }
fail:
    tl_kt_free(&t);
    free(steps);
    return st;
}

/* The table of every input's ranks, printed and written (--csv) once, after
 * every input was read: `breakdown --hta A B` names each row's input in its
 * run column, as breakdown does without --hta. */
static tl_status report(int what, hta_run *runs, size_t nrun, const tl_an_common *c)
{
    tl_status st = TL_OK;
    tl_an_table *tb = NULL;
    int several = nrun > 1;
    TL_TRYGOTO(tl_an_table_create(&tb, what ? "temporal breakdown (HTA)" : "comm/comp overlap (HTA)"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(tb, what ? "breakdown --hta" : "overlap --hta", runs[0].input), st, fail);
    for (size_t k = 1; k < nrun; k++) TL_TRYGOTO(tl_an_table_meta(tb, "input", "%s", runs[k].input), st, fail);
    for (size_t k = 0; k < nrun; k++)
        TL_TRYGOTO(tl_an_table_meta(tb, "ranks", "%s%s%zu", several ? runs[k].label : "", several ? ": " : "",
                                    runs[k].nf),
                   st, fail);
    TL_TRYGOTO(tl_an_table_meta(tb, "rules", "Holistic Trace Analysis's (analysis/README.md, \"HTA's rules\"): "
                                             "GPU rows with a stream and a correlation id; comm = ^nccl|ncclKernel "
                                             "names, memcpy/memset neither comm nor compute; sub-us times rounded "
                                             "inward when the trace has fractional ts"),
               st, fail);
    for (size_t k = 0; k < nrun; k++) {
        const char *pre = several ? runs[k].label : "", *sep = several ? ": " : "";
        size_t ns = runs[k].nsteps;
        if (ns >= 2)
            TL_TRYGOTO(tl_an_table_meta(tb, "selection", "%s%s%zu ProfilerStep names: GPU rows whose launch starts "
                                                         "before the last ProfilerStep (HTA's default)", pre, sep, ns),
                       st, fail);
        else
            TL_TRYGOTO(tl_an_table_meta(tb, "selection", "%s%s%zu ProfilerStep name%s: every GPU row (HTA filters "
                                                         "only with two or more)", pre, sep, ns, ns == 1 ? "" : "s"),
                       st, fail);
    }
    TL_TRYGOTO(tl_an_table_meta(tb, "without --hta", "%s", what ? "breakdown gives GPU time per kernel and category over "
                                                           "the whole trace (or --iter-range), no launch filter"
                                                         : "overlap's hidden = |comm∩compute|/U(comm) over the "
                                                           "whole trace window (or --iter-range), compute = every "
                                                           "non-NCCL kernel, p2p and coll apart, no launch filter"),
               st, fail);
    if (what) TL_TRYGOTO(tl_an_table_col(tb, "run", "", 3), st, fail); /* a label, quoted when it holds a blank */
    TL_TRYGOTO(tl_an_table_col(tb, "rank", "", 0), st, fail);
    if (what == 0) {
        TL_TRYGOTO(tl_an_table_col(tb, "comm", "us", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "comp", "us", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "overlap", "us", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "comp_comm_overlap", "%", 0), st, fail);
    } else {
        static const char *const cols[] = {"kernel_time", "idle_time", "compute_time", "non_compute_time"};
        for (int j = 0; j < 4; j++) TL_TRYGOTO(tl_an_table_col(tb, cols[j], "us", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "idle", "%", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "compute", "%", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(tb, "non_compute", "%", 0), st, fail);
    }
    TL_TRYGOTO(tl_an_table_col(tb, "gpu_rows_kept", "", 0), st, fail);
    TL_TRYGOTO(tl_an_table_col(tb, "gpu_rows_dropped", "", 0), st, fail);
    for (size_t k = 0; k < nrun; k++)
        for (size_t f = 0; f < runs[k].nf; f++) {
            const tl_kt_hta *h = runs[k].nsteps >= 2 ? &runs[k].rr[f].with : &runs[k].rr[f].without;
            TL_TRYGOTO(tl_an_table_row(tb), st, fail);
            if (what) TL_TRYGOTO(tl_an_table_str(tb, runs[k].label), st, fail);
            TL_TRYGOTO(tl_an_table_int(tb, h->rank >= 0 ? h->rank : (int64_t)f), st, fail);
            if (what == 0) {
                TL_TRYGOTO(tl_an_table_int(tb, h->comm_us), st, fail);
                TL_TRYGOTO(tl_an_table_int(tb, h->comp_us), st, fail);
                TL_TRYGOTO(tl_an_table_int(tb, h->overlap_us), st, fail);
                TL_TRYGOTO(tl_an_table_num(tb, pct(h->overlap_us, h->comm_us), 2), st, fail);
            } else {
                int64_t nc = h->kernel_us - h->comp_us - h->idle_us;
                TL_TRYGOTO(tl_an_table_int(tb, h->kernel_us), st, fail);
                TL_TRYGOTO(tl_an_table_int(tb, h->idle_us), st, fail);
                TL_TRYGOTO(tl_an_table_int(tb, h->comp_us), st, fail);
                TL_TRYGOTO(tl_an_table_int(tb, nc), st, fail);
                TL_TRYGOTO(tl_an_table_num(tb, pct(h->idle_us, h->kernel_us), 2), st, fail);
                TL_TRYGOTO(tl_an_table_num(tb, pct(h->comp_us, h->kernel_us), 2), st, fail);
                TL_TRYGOTO(tl_an_table_num(tb, pct(nc, h->kernel_us), 2), st, fail);
            }
            TL_TRYGOTO(tl_an_table_int(tb, (int64_t)h->kept), st, fail);
            TL_TRYGOTO(tl_an_table_int(tb, (int64_t)h->dropped), st, fail);
        }
    TL_TRYGOTO(tl_an_emit(tb, c->csv), st, fail);
    /* a ratio without a denominator prints '-': said why, as every table does */
    for (size_t k = 0; k < nrun; k++)
        for (size_t f = 0; f < runs[k].nf; f++) {
            const tl_kt_hta *h = runs[k].nsteps >= 2 ? &runs[k].rr[f].with : &runs[k].rr[f].without;
            int rank = h->rank >= 0 ? h->rank : (int)f;
            const char *pre = nrun > 1 ? runs[k].label : "", *sep = nrun > 1 ? " " : "";
            if (what == 0 && h->comm_us == 0)
                printf("# -: %s%srank %d keeps no communication kernel (HTA's comm names: ^nccl, ncclKernel, ...), so "
                       "comp_comm_overlap is undefined\n", pre, sep, rank);
            else if (what == 1 && h->kernel_us == 0)
                printf("# -: %s%srank %d keeps no GPU time, so idle, compute and non_compute are undefined\n", pre, sep,
                       rank);
        }
fail:
    tl_an_table_destroy(&tb);
    return st;
}

int tl_kt_hta_report(int what, char *const *inputs, size_t n, const tl_an_common *c)
{
    tl_status st = TL_OK;
    hta_run *runs = calloc(n ? n : 1, sizeof *runs);
    TL_CHECKGOTO(runs, TL_ERR_NOMEM, st, fail, "%zu inputs", n);
    for (size_t k = 0; k < n; k++) {
        runs[k].input = inputs[k];
        tl_an_run_label(inputs, n, k, runs[k].label, sizeof runs[k].label);
    }
    for (size_t k = 0; k < n; k++) TL_TRYGOTO(load_run(&runs[k]), st, fail);
    st = report(what, runs, n, c);
fail:
    for (size_t k = 0; runs && k < n; k++) {
        tl_an_run_files_free(&runs[k].files, runs[k].nf);
        free(runs[k].rr);
    }
    free(runs);
    return st == TL_OK ? 0 : 1;
}
