/* trilap-fdtd run: one simulation (tl_fdtd_cli_one_run), its results
 * row and the files it writes (seismogram, breakdown, energy). Internal
 * to the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/out.h"
#include "runtime/progress.h"
#include "stencil/fdtd_run_impl.h"

/* digits: tl_fdtd_digits(c), enough for the values to read back exactly */
static tl_status write_csv_series(const char *path, const char *header, const double *v, int64_t rows, int cols,
                                  double dt, int time_col_step, int digits)
{
    size_t cap = (size_t)(rows + 2) * (size_t)(cols + 2) * 26 + strlen(header) + 16, len = 0;
    char *t = malloc(cap);
    TL_CHECK(t != NULL, TL_ERR_NOMEM, "%zu bytes for %s", cap, path);
    len += (size_t)snprintf(t, cap, "%s\n", header);
    for (int64_t r = 0; r < rows; r++) {
        double step = time_col_step ? v[r * cols] : (double)(r + 1);
        len += (size_t)snprintf(t + len, cap - len, "%.0f,%.*g", step, digits, step * dt);
        for (int k = time_col_step ? 1 : 0; k < cols; k++)
            len += (size_t)snprintf(t + len, cap - len, ",%.*g", digits, v[r * cols + k]);
        len += (size_t)snprintf(t + len, cap - len, "\n");
    }
    tl_status st = tl_file_write_atomic(path, t, len); /* its folders made there */
    free(t);
    return st;
}

/* One simulation and its row (rank 0 appends it to --results, its line
 * kept in rows for the manifest) and files. --compare-cpml's reference run
 * (without CPML) writes its row alone: the seismogram, breakdown and
 * energy are the run's with CPML (they were written twice, the
 * reference's first). */
tl_status tl_fdtd_cli_one_run(tl_ctx *ctx, run_args *ra, const tl_fdtd_config *c_in, double none_s, double *seconds,
                              tl_results_rows *rows)
{
    const fdtd_opts *o = &ra->o;
    tl_fdtd *f = NULL;
    tl_fdtd_config cp = *c_in;
    const tl_fdtd_config *c = &cp;
    const int reference = o->compare_cpml && c->cpml == 0;
    tl_progress bar;
    if (ctx->rank == 0) { /* rank 0 speaks for the run: its steps are everyone's */
        tl_progress_begin(&bar, reference ? "run without CPML" : "run",
                          (double)(c->warmup + c->steps), "steps", tl_progress_mode_of(o->progress));
        cp.progress = &bar;
    }
    /* rank 0 first: a bad configuration fails there alone, said once */
    tl_status st = ctx->rank == 0 ? tl_fdtd_create_on(&f, c, ctx) : TL_OK;
    st = tl_comm_agree(ctx, st);
    if (st == TL_OK && ctx->rank != 0) st = tl_fdtd_create_on(&f, c, ctx);
    st = tl_comm_agree(ctx, st); /* no rank runs on without the others */
    TL_TRYGOTO(st, st, done);
    TL_TRYGOTO(tl_fdtd_run(f, ctx), st, done);
    if (cp.progress) tl_progress_end(&bar);
    cp.progress = NULL;
    tl_fdtd_stats S = tl_fdtd_stats_of(f);
    *seconds = S.seconds;
    if (ctx->rank != 0) {
        /* rank 0 prints and writes; the manifest is collective */
        if (o->results) TL_TRYGOTO(tl_comm_agree(ctx, TL_OK), st, done);
        goto done;
    }
    char decomp[64], over[32] = "";
    snprintf(decomp, sizeof decomp, "%dx%dx%d", c->pd[0], c->pd[1], c->pd[2]);
    if (none_s > 0) snprintf(over, sizeof over, "%.4f", (S.seconds - none_s) / none_s);
    char row[1024], label[512];
    /* the label is free text: quoted where a comma or a quote would split the row */
    snprintf(row, sizeof row,
             "%s,%s,%s,%s,%s,%d,%d,%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
             ",%.6g,%.6f,%.2f,%.2f,%.0f,%.0f,%.0f,%s",
             tl_results_field(label, sizeof label, o->label), backend_names[c->backend].name, c->backend == TL_FDTD_BACKEND_CUDA ? tl_fdtd_kernels[c->kernel].name : "-",
             c->strategy ? c->strategy : tl_fdtd_strategy_default(c->backend, 0), decomp, c->s,
             c->overlap, c->order, c->dbl ? "double" : "single", c->n[0], c->n[1], c->n[2], c->steps, c->cpml,
             S.dt, S.seconds, S.mpoints_s, S.gbs, S.min_bytes_per_point, S.mem_bytes, S.paper_mem_bytes, over);
    printf("%s\n", row);
    fflush(stdout);
    if (o->results) {
        TL_TRYGOTO(tl_comm_agree(ctx, tl_results_append(o->results, results_header, row, rows)), st, done);
    }
    if (reference) goto done;
    if (o->seismogram && c->nrec > 0) {
        char hdr[4096];
        size_t n = (size_t)snprintf(hdr, sizeof hdr, "step,time_s");
        for (int r = 0; r < c->nrec && n < sizeof hdr - 32; r++) n += (size_t)snprintf(hdr + n, sizeof hdr - n, ",r%d", r);
        TL_TRYGOTO(write_csv_series(o->seismogram, hdr, tl_fdtd_traces(f), c->steps + c->warmup, c->nrec, S.dt, 0,
                                    tl_fdtd_digits(c)), st, done);
    }
    if (o->breakdown && S.nops > 0) {
        char text[4096];
        size_t n = (size_t)snprintf(text, sizeof text, "op,count,total_s,mean_us,min_us,max_us\n");
        for (int k = 0; k < S.nops && n < sizeof text - 128; k++) {
            double mean = S.op[k].count ? 1e6 * S.op[k].total_s / (double)S.op[k].count : 0;
            n += (size_t)snprintf(text + n, sizeof text - n, "%s,%" PRId64 ",%.6f,%.3f,%.3f,%.3f\n", S.op[k].name,
                                  S.op[k].count, S.op[k].total_s, mean, 1e6 * S.op[k].min_s, 1e6 * S.op[k].max_s);
            printf("# breakdown: %-14s %8" PRId64 " calls %10.3f ms\n", S.op[k].name, S.op[k].count, 1e3 * S.op[k].total_s);
        }
        TL_TRYGOTO(tl_file_write_atomic(o->breakdown, text, n), st, done);
    }
    if (o->energy_out && c->energy_every > 0) {
        int64_t ne;
        const double *e = tl_fdtd_energy(f, &ne);
        TL_TRYGOTO(write_csv_series(o->energy_out, "step,time_s,energy", e, ne, 2, S.dt, 1, tl_fdtd_digits(c)), st, done);
    }
done:
    if (cp.progress) tl_progress_end(&bar); /* the line ends before an error's */
    tl_fdtd_destroy(&f);
    return st;
}
