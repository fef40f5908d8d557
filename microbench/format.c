/* Output of every subcommand in three formats from one description of the
 * columns: a fixed-width table in the spirit of nccl-tests (names row,
 * units row, "# N rows, N wrong" footer), CSV and JSON with the same
 * columns (units in the names). Plus the results-file rows. */
#include "microbench/bench.h"

#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/results.h"

/* ---- meta ------------------------------------------------------------------ */

static tl_status kv_push(tl_bench_kv **kv, size_t *n, size_t *cap, const char *key,
                         const char *value)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        tl_bench_kv *nk = realloc(*kv, nc * sizeof *nk);
        if (!nk) return TL_FAIL(TL_ERR_NOMEM, "%zu preamble lines", nc);
        *kv = nk;
        *cap = nc;
    }
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return TL_FAIL(TL_ERR_NOMEM, "preamble line %s", key);
    }
    (*kv)[*n] = (tl_bench_kv){k, v};
    (*n)++;
    return TL_OK;
}

tl_status tl_bench_meta_add(tl_bench_meta *m, const char *key, const char *fmt, ...)
{
    char value[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    return kv_push(&m->kv, &m->n, &m->cap, key, value);
}

tl_status tl_bench_meta_add_opt(tl_bench_meta *m, const char *name, const char *value)
{
    return kv_push(&m->opt, &m->nopt, &m->optcap, name, value);
}

tl_status tl_bench_meta_add_opts(tl_bench_meta *m, const tl_optspec *spec)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return TL_FAIL(TL_ERR_NOMEM, "open_memstream for the option echo");
    tl_opts_echo(spec, f, "");
    fclose(f);
    tl_status st = TL_OK;
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = '\0';
        st = tl_bench_meta_add_opt(m, line, eq + 1);
        if (st != TL_OK) break;
    }
    free(text);
    return st;
}

void tl_bench_meta_free(tl_bench_meta *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) {
        free(m->kv[i].key);
        free(m->kv[i].value);
    }
    for (size_t i = 0; i < m->nopt; i++) {
        free(m->opt[i].key);
        free(m->opt[i].value);
    }
    free(m->kv);
    free(m->opt);
    memset(m, 0, sizeof *m);
}

/* ---- cells ------------------------------------------------------------------- */

static void cell_text(const tl_bench_col *c, const tl_bench_cell *v, tl_bench_format fmt, char *buf,
                      size_t n)
{
    switch (c->type) {
    case TL_COL_STR:
        snprintf(buf, n, "%s", v->s ? v->s : "");
        break;
    case TL_COL_INT:
    case TL_COL_INT32:
        snprintf(buf, n, "%" PRId64, v->i);
        break;
    case TL_COL_REAL:
        if (isfinite(v->d))
            snprintf(buf, n, "%.*f", c->prec, v->d);
        else
            snprintf(buf, n, "%s", fmt == TL_FMT_TABLE ? "-" : fmt == TL_FMT_JSON ? "null" : "");
        break;
    }
}

static int col_width(const tl_bench_col *c)
{
    int w = c->width, ln = (int)strlen(c->name), lu = (int)strlen(c->unit) + 2;
    if (ln > w) w = ln;
    if (c->unit[0] && lu > w) w = lu;
    return w;
}

static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"') fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", out);
        else if (ch == '\t')
            fputs("\\t", out);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

/* A preamble value on its '#' line: a newline from the environment or an
 * option (NCCL_LAUNCH_MODE=$'a\nb') ended the comment and put a stray line
 * before the table's header, which CSV readers took for the header; control
 * characters are written as C escapes instead. */
static void comment_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\n')
            fputs("\\n", out);
        else if (ch == '\r')
            fputs("\\r", out);
        else if (ch < 0x20 && ch != '\t')
            fprintf(out, "\\x%02x", ch);
        else
            fputc(ch, out);
    }
}

static void preamble(FILE *out, const tl_bench_meta *meta)
{
    if (!meta) return;
    for (size_t i = 0; i < meta->n; i++) {
        fprintf(out, "# %s: ", meta->kv[i].key);
        comment_text(out, meta->kv[i].value);
        fputc('\n', out);
    }
    for (size_t i = 0; i < meta->nopt; i++) {
        fprintf(out, "# opt: %s=", meta->opt[i].key);
        comment_text(out, meta->opt[i].value);
        fputc('\n', out);
    }
}

static void json_object(FILE *out, const char *name, const tl_bench_kv *kv, size_t n, int last)
{
    fprintf(out, "  \"%s\": {", name);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        json_string(out, kv[i].key);
        fputs(": ", out);
        json_string(out, kv[i].value);
    }
    fprintf(out, "%s}%s\n", n ? "\n  " : "", last ? "" : ",");
}

tl_status tl_bench_write(FILE *out, tl_bench_format fmt, const tl_bench_meta *meta,
                         const tl_bench_col *cols, size_t ncols, const tl_bench_cell *cells,
                         size_t nrows, int64_t wrong)
{
    char buf[256];
    switch (fmt) {
    case TL_FMT_TABLE:
        preamble(out, meta);
        fputc('#', out);
        for (size_t c = 0; c < ncols; c++)
            fprintf(out, " %*s", col_width(&cols[c]), cols[c].name);
        fputs("\n#", out);
        for (size_t c = 0; c < ncols; c++) {
            if (cols[c].unit[0])
                snprintf(buf, sizeof buf, "(%s)", cols[c].unit);
            else
                buf[0] = '\0';
            fprintf(out, " %*s", col_width(&cols[c]), buf);
        }
        fputc('\n', out);
        for (size_t r = 0; r < nrows; r++) {
            fputc(' ', out);
            for (size_t c = 0; c < ncols; c++) {
                cell_text(&cols[c], &cells[r * ncols + c], fmt, buf, sizeof buf);
                fprintf(out, " %*s", col_width(&cols[c]), buf);
            }
            fputc('\n', out);
        }
        fprintf(out, "# %zu rows, %" PRId64 " wrong\n", nrows, wrong);
        break;
    case TL_FMT_CSV:
        preamble(out, meta);
        for (size_t c = 0; c < ncols; c++) {
            if (c) fputc(',', out);
            fputs(cols[c].key, out);
        }
        fputc('\n', out);
        for (size_t r = 0; r < nrows; r++) {
            for (size_t c = 0; c < ncols; c++) {
                if (c) fputc(',', out);
                cell_text(&cols[c], &cells[r * ncols + c], fmt, buf, sizeof buf);
                csv_field(out, buf);
            }
            fputc('\n', out);
        }
        fprintf(out, "# %zu rows, %" PRId64 " wrong\n", nrows, wrong);
        break;
    case TL_FMT_JSON:
        fputs("{\n", out);
        json_object(out, "meta", meta ? meta->kv : NULL, meta ? meta->n : 0, 0);
        json_object(out, "options", meta ? meta->opt : NULL, meta ? meta->nopt : 0, 0);
        fputs("  \"rows\": [", out);
        for (size_t r = 0; r < nrows; r++) {
            fputs(r ? ",\n    {" : "\n    {", out);
            for (size_t c = 0; c < ncols; c++) {
                if (c) fputs(", ", out);
                json_string(out, cols[c].key);
                fputs(": ", out);
                cell_text(&cols[c], &cells[r * ncols + c], fmt, buf, sizeof buf);
                if (cols[c].type == TL_COL_STR)
                    json_string(out, buf);
                else
                    fputs(buf, out);
            }
            fputc('}', out);
        }
        fprintf(out, "%s],\n  \"nrows\": %zu,\n  \"wrong\": %" PRId64 "\n}\n", nrows ? "\n  " : "",
                nrows, wrong);
        break;
    default:
        return TL_FAIL(TL_ERR_INVAL, "unknown output format %d", (int)fmt);
    }
    if (ferror(out)) return TL_FAIL(TL_ERR_IO, "writing the results to stdout failed");
    return TL_OK;
}

void tl_bench_cells(const tl_bench_col *cols, size_t ncols, const void *row, tl_bench_cell *cells)
{
    const char *base = row;
    for (size_t c = 0; c < ncols; c++) {
        const char *m = base + cols[c].field;
        tl_bench_cell v = {0};
        switch (cols[c].type) {
        case TL_COL_STR:
            memcpy(&v.s, m, sizeof v.s);
            break;
        case TL_COL_INT:
            memcpy(&v.i, m, sizeof v.i);
            break;
        case TL_COL_INT32: {
            int k;
            memcpy(&k, m, sizeof k);
            v.i = k;
            break;
        }
        case TL_COL_REAL:
            memcpy(&v.d, m, sizeof v.d);
            break;
        }
        cells[c] = v;
    }
}

/* ---- the three tables --------------------------------------------------------- */
/* One line per column: name, unit, CSV/JSON key, type, width, decimals, and
 * the row member it shows. */
#define COL(row, member, name_, unit_, key_, type_, w, p)                                            \
    {.name = name_, .unit = unit_, .key = key_, .type = type_, .width = w, .prec = p,              \
     .field = offsetof(row, member)}

const tl_bench_col tl_tristream_cols[] = {
    COL(tl_tristream_row, variant, "variant", "", "variant", TL_COL_STR, 14, 0),
    COL(tl_tristream_row, allreduce_bytes, "allreduce", "B", "allreduce_bytes", TL_COL_INT, 9, 0),
    COL(tl_tristream_row, ring_bytes, "ring", "B", "ring_bytes", TL_COL_INT, 9, 0),
    COL(tl_tristream_row, daxpy_bytes, "daxpy", "B", "daxpy_bytes", TL_COL_INT, 10, 0),
    COL(tl_tristream_row, median_us, "median", "us", "median_us", TL_COL_REAL, 8, 2),
    COL(tl_tristream_row, min_us, "min", "us", "min_us", TL_COL_REAL, 8, 2),
    COL(tl_tristream_row, max_us, "max", "us", "max_us", TL_COL_REAL, 8, 2),
    COL(tl_tristream_row, speedup, "speedup", "x", "speedup", TL_COL_REAL, 7, 3),
    COL(tl_tristream_row, bound_us, "bound", "us", "bound_us", TL_COL_REAL, 8, 2),
    COL(tl_tristream_row, eff_pct, "eff", "%", "overlap_eff_pct", TL_COL_REAL, 6, 1),
    COL(tl_tristream_row, wrong, "#wrong", "", "wrong", TL_COL_INT, 6, 0),
};
const size_t tl_tristream_ncols = sizeof tl_tristream_cols / sizeof tl_tristream_cols[0];

void tl_tristream_cells(const tl_tristream_row *r, tl_bench_cell *c)
{
    tl_bench_cells(tl_tristream_cols, tl_tristream_ncols, r, c);
}

const tl_bench_col tl_stream_cols[] = {
    COL(tl_stream_row, function, "function", "", "function", TL_COL_STR, 8, 0),
    COL(tl_stream_row, rank, "rank", "", "rank", TL_COL_INT32, 4, 0),
    COL(tl_stream_row, device, "device", "", "device", TL_COL_STR, 12, 0),
    COL(tl_stream_row, bytes, "bytes", "B", "bytes", TL_COL_INT, 11, 0),
    COL(tl_stream_row, gbs, "bandwidth", "GB/s", "bandwidth_gbs", TL_COL_REAL, 9, 1),
    COL(tl_stream_row, min_ms, "min", "ms", "min_ms", TL_COL_REAL, 10, 6),
    COL(tl_stream_row, max_ms, "max", "ms", "max_ms", TL_COL_REAL, 10, 6),
    COL(tl_stream_row, avg_ms, "avg", "ms", "avg_ms", TL_COL_REAL, 10, 6),
    COL(tl_stream_row, wrong, "#wrong", "", "wrong", TL_COL_INT, 6, 0),
};
const size_t tl_stream_ncols = sizeof tl_stream_cols / sizeof tl_stream_cols[0];

void tl_stream_cells(const tl_stream_row *r, tl_bench_cell *c)
{
    tl_bench_cells(tl_stream_cols, tl_stream_ncols, r, c);
}

const tl_bench_col tl_comm_cols[] = {
    COL(tl_comm_row, op, "op", "", "op", TL_COL_STR, 9, 0),
    COL(tl_comm_row, comm, "comm", "", "comm", TL_COL_STR, 5, 0),
    COL(tl_comm_row, bytes, "size", "B", "size_bytes", TL_COL_INT, 10, 0),
    COL(tl_comm_row, count, "count", "elements", "count", TL_COL_INT, 10, 0),
    COL(tl_comm_row, type, "type", "", "type", TL_COL_STR, 6, 0),
    COL(tl_comm_row, redop, "redop", "", "redop", TL_COL_STR, 5, 0),
    COL(tl_comm_row, time_us, "time", "us", "time_us", TL_COL_REAL, 8, 2),
    COL(tl_comm_row, algbw_gbs, "algbw", "GB/s", "algbw_gbs", TL_COL_REAL, 7, 2),
    COL(tl_comm_row, busbw_gbs, "busbw", "GB/s", "busbw_gbs", TL_COL_REAL, 7, 2),
    COL(tl_comm_row, wrong, "#wrong", "", "wrong", TL_COL_INT, 6, 0),
};
const size_t tl_comm_ncols = sizeof tl_comm_cols / sizeof tl_comm_cols[0];

void tl_comm_cells(const tl_comm_row *r, tl_bench_cell *c)
{
    tl_bench_cells(tl_comm_cols, tl_comm_ncols, r, c);
}

/* ---- results-file rows ------------------------------------------------------- */

const char tl_tristream_results_header[] =
    "variant,nranks,rep,us_per_iter,allreduce_bytes,ring_bytes,daxpy_bytes,iters,warmup,"
    "priorities,split_max_ctas,split_min_ctas,daxpy_blocks,trace_mode,"
    "cuda_device_max_connections,nccl_launch_mode,wrong";

const char *tl_tristream_results_row(const tl_tristream_sample *s, char *buf, size_t n)
{
    /* the two environment values are free text: quoted where a comma or a
     * quote would split the row */
    char conn[256], launch[256];
    tl_results_field(conn, sizeof conn, s->max_connections);
    tl_results_field(launch, sizeof launch, s->launch_mode);
    snprintf(buf, n,
             "%s,%d,%d,%.4f,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRId64
             ",%" PRId64 ",%" PRId64 ",%s,%s,%s,%" PRId64,
             s->variant, s->nranks, s->rep, s->us_per_iter, s->allreduce_bytes, s->ring_bytes,
             s->daxpy_bytes, s->iters, s->warmup, s->priorities ? "on" : "off", s->split_max_ctas,
             s->split_min_ctas, s->daxpy_blocks, s->trace_mode, conn, launch,
             s->wrong);
    return buf;
}

const char tl_stream_results_header[] =
    "function,rank,device,count,bytes,iters,bandwidth_gbs,min_ms,max_ms,avg_ms,wrong";

const char *tl_stream_results_row(const tl_stream_row *r, int64_t count, int64_t iters, char *buf,
                                  size_t n)
{
    char dev[128];
    size_t k = 0;
    /* device names never hold commas in practice; keep the row parseable anyway */
    for (const char *p = r->device; *p && k + 1 < sizeof dev; p++)
        dev[k++] = *p == ',' ? ' ' : *p;
    dev[k] = '\0';
    snprintf(buf, n, "%s,%d,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%.3f,%.6f,%.6f,%.6f,%" PRId64,
             r->function, r->rank, dev, count, r->bytes, iters, r->gbs, r->min_ms, r->max_ms,
             r->avg_ms, r->wrong);
    return buf;
}

const char tl_comm_results_header[] =
    "op,comm,nranks,size_bytes,count,type,redop,iters,time_us,algbw_gbs,busbw_gbs,wrong";

const char *tl_comm_results_row(const tl_comm_row *r, int nranks, int64_t iters, char *buf,
                                size_t n)
{
    snprintf(buf, n, "%s,%s,%d,%" PRId64 ",%" PRId64 ",%s,%s,%" PRId64 ",%.3f,%.4f,%.4f,%" PRId64,
             r->op, r->comm, nranks, r->bytes, r->count, r->type, r->redop, iters, r->time_us,
             r->algbw_gbs, r->busbw_gbs, r->wrong);
    return buf;
}

const char *tl_bench_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : "unset";
}

tl_status tl_bench_manifest_begin(tl_ctx *ctx, const char *results, const char *header, const char *subcommand,
                                  tl_manifest_run *mr)
{
    if (!results) return TL_OK;
    char extra[64];
    snprintf(extra, sizeof extra, "subcommand: %s\n", subcommand);
    return tl_manifest_begin(ctx, results, header, extra, mr);
}
