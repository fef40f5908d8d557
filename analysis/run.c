/* The overlap metrics of a run: one rank file at a time (load, sort, one
 * sweep for the window and every iteration slice, free), so memory follows
 * the largest rank's GPU activity, not the run. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double tl_an_median(double *x, size_t n)
{
    if (!n) return NAN;
    qsort(x, n, sizeof *x, cmp_d);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

tl_status tl_an_iter_times(const tl_an_rank_result *r, double *min, double *median, double *max)
{
    *min = *median = *max = NAN;
    if (!r->nslices) return TL_OK;
    double *w = malloc(r->nslices * sizeof *w);
    TL_CHECK(w, TL_ERR_NOMEM, "%zu iterations", r->nslices);
    for (size_t k = 0; k < r->nslices; k++) w[k] = (double)r->iter_w[k] / 1e3;
    *median = tl_an_median(w, r->nslices);
    *min = w[0];
    *max = w[r->nslices - 1];
    free(w);
    return TL_OK;
}

int tl_an_rank_host_only(const tl_an_rank_result *r)
{
    return r->meta.device < 0 && r->n_gpu_compute == 0 && r->n_nccl == 0 && r->n_comm_copies == 0;
}

void tl_an_rank_results_free(tl_an_rank_result **pr, size_t n)
{
    if (!pr || !*pr) return;
    for (size_t i = 0; i < n; i++) {
        free((*pr)[i].slices);
        free((*pr)[i].iters);
        free((*pr)[i].iter_w);
        tl_an_split_free(&(*pr)[i].split);
    }
    free(*pr);
    *pr = NULL;
}

/* The communication activities with time in the selection [w0, w1), as
 * the waiting table counts operations (it counted the whole file: a traced
 * solve's warm-up before the window, every iteration beside --iter-range). */
static void count_comm(const tl_an_rank *rk, int64_t w0, int64_t w1, tl_an_rank_result *r)
{
    for (size_t j = 0; j < rk->n; j++) {
        const tl_an_ival *v = &rk->v[j];
        if (!tl_an_ival_in_selection(v, w0, w1)) continue; /* as the waiting table counts (match.c) */
        r->n_marks += v->kind == TL_KIND_HOST && tl_an_ival_is_comm(v);
        r->n_comm_copies += v->kind != TL_KIND_KERNEL && v->kind != TL_KIND_HOST && tl_an_ival_is_comm(v);
        r->n_nccl += v->kind == TL_KIND_KERNEL && tl_an_ival_is_comm(v);
        r->n_host_compute += tl_an_ival_is_host_compute(v);
        r->n_gpu_compute += v->kind == TL_KIND_KERNEL && tl_an_ival_class(v) == TL_AN_C_COMPUTE;
    }
}

tl_status tl_an_run_overlap(const char *dir, const tl_an_overlap_opts *o, tl_an_names *names, tl_an_rank_fn each,
                            void *user, tl_an_rank_result **out, size_t *nranks)
{
    tl_status st = TL_OK;
    char **files = NULL;
    size_t nf = 0;
    tl_an_rank_result *res = NULL;
    tl_an_rank rk;
    memset(&rk, 0, sizeof rk);
    int64_t *bounds = NULL;
    tl_an_ops ops;
    memset(&ops, 0, sizeof ops);
    *out = NULL;
    *nranks = 0;
    TL_TRYGOTO(tl_an_run_files_nvtx(dir, o->flags, o->iter_nvtx, &files, &nf), st, fail);
    res = calloc(nf, sizeof *res);
    TL_CHECKGOTO(res, TL_ERR_NOMEM, st, fail, "%zu ranks", nf);
    /* a first pass over every rank: when did the last rank arrive at each
     * communication operation (match.c) */
    if (o->match) TL_TRYGOTO(tl_an_ops_build(files, nf, o->flags, names, &ops), st, fail);
    /* the first pass read every rank of a run of two or more: what a file
     * warns of or a progress line was said then */
    int again = o->match && nf > 1 ? TL_AN_QUIET : 0;
    for (size_t f = 0; f < nf; f++) {
        TL_TRYGOTO(tl_an_rank_load(files[f], o->flags | again, names, &rk), st, fail);
        if (rk.meta.rank_by_place) rk.meta.rank = tl_an_rank_unclaimed(&res[0].meta.rank, f, sizeof *res);
        tl_an_rank_result *r = &res[f];
        r->meta = rk.meta;
        if (ops.offset_ends) {
            r->meta.clock_est = ops.offset[f];
            r->meta.clock_ends_est = ops.ends_est[f];
            r->meta.clock_ends = ops.offset_ends;
        }
        int64_t w0 = rk.meta.w0, w1 = rk.meta.w1;
        size_t nb = 0;
        TL_TRYGOTO(tl_an_rank_slices(&rk, o->iter_lo, o->iter_hi, &bounds, &r->iters, &nb, &w0, &w1), st, fail);
        char sel[48], had[640], said[1100];
        r->have = tl_an_rank_iter_span(&rk);
        /* a rank that recorded nothing (no GPU activity, no communication of
         * its host's) has no iteration to select from: it is read as without
         * a range (idle over its window), as a run where only some ranks
         * recorded nothing is read */
        int act = tl_an_rank_activity(&rk);
        TL_CHECKGOTO(nb > 0 || tl_an_iters_all(o->iter_lo, o->iter_hi) || act == TL_AN_ACT_NONE, TL_ERR_INVAL, st,
                     fail, "%s: no %s in iterations %s (%s)", tl_an_file_said(files[f], said, sizeof said),
                     tl_an_activity_name(act),
                     tl_an_iters_str(o->iter_lo, o->iter_hi, sel, sizeof sel),
                     tl_an_iters_had(r->have, &rk.meta, had, sizeof had));
        count_comm(&rk, w0, w1, r); /* before the split adds each operation's transfer part */
        /* waiting and transfer over the selection, as every other figure */
        TL_TRYGOTO(tl_an_ops_split(&ops, f, &rk, w0, w1, &r->split), st, fail);
        r->meta.w0 = w0;
        r->meta.w1 = w1;
        r->nslices = nb;
        r->iter_w = calloc(nb ? nb : 1, sizeof *r->iter_w);
        TL_CHECKGOTO(r->iter_w, TL_ERR_NOMEM, st, fail, "%zu iterations", nb);
        for (size_t k = 0; k < nb; k++) {
            int64_t lo = bounds[k] > w0 ? bounds[k] : w0, hi = k + 1 < nb && bounds[k + 1] < w1 ? bounds[k + 1] : w1;
            r->iter_w[k] = hi > lo ? hi - lo : 0;
        }
        if (o->slices) {
            /* 184 bytes per iteration: only while someone needs them */
            r->slices = calloc(nb ? nb : 1, sizeof *r->slices);
            TL_CHECKGOTO(r->slices, TL_ERR_NOMEM, st, fail, "%zu iterations", nb);
        }
        TL_TRYGOTO(tl_an_sweep(rk.v, rk.n, w0, w1, bounds, r->slices ? nb : 0, o->gap_ns, &r->whole, r->slices), st,
                   fail);
        if (each) TL_TRYGOTO(each(user, &rk, r), st, fail);
        if (o->slices < 2) {
            free(r->slices);
            r->slices = NULL;
        }
        free(bounds);
        bounds = NULL;
        tl_an_rank_free(&rk);
    }
    *out = res;
    *nranks = nf;
    res = NULL;
    if (o->ops_out) {
        *o->ops_out = ops;
        memset(&ops, 0, sizeof ops);
    }
fail:
    tl_an_ops_free(&ops);
    free(bounds);
    tl_an_rank_free(&rk);
    tl_an_rank_results_free(&res, nf);
    tl_an_run_files_free(&files, nf);
    return st;
}
