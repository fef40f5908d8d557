/* Result tables: "# key: value" preamble, names row, units row,
 * right-aligned columns, "# N rows" footer; the same columns as CSV with the
 * units folded into the names (total_us) for gnuplot. */
#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "runtime/out.h"
#include "runtime/results.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct col {
    char name[48], unit[16];
    int text;
} col;

struct tl_an_table {
    char title[128];
    col *cols;
    size_t ncols, capcols;
    char **meta; /* "key: value" */
    size_t nmeta, capmeta;
    char **cells; /* nrows * ncols */
    size_t nrows, cap, cur;
};

tl_status tl_an_table_create(tl_an_table **out, const char *title)
{
    tl_an_table *t = NULL;
    TL_ALLOC(t, 1);
    snprintf(t->title, sizeof t->title, "%s", title ? title : "");
    *out = t;
    return TL_OK;
}

void tl_an_table_destroy(tl_an_table **pt)
{
    if (!pt || !*pt) return;
    tl_an_table *t = *pt;
    for (size_t i = 0; i < t->nmeta; i++) free(t->meta[i]);
    for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
    free(t->meta);
    free(t->cells);
    free(t->cols);
    free(t);
    *pt = NULL;
}

tl_status tl_an_table_col(tl_an_table *t, const char *name, const char *unit, int text)
{
    TL_CHECK(t->nrows == 0, TL_ERR_INVAL, "column %s added after rows", name);
    TL_TRY(TL_AN_GROW(t->cols, t->ncols, t->capcols, "columns"));
    col *c = t->cols;
    snprintf(c[t->ncols].name, sizeof c->name, "%s", name);
    snprintf(c[t->ncols].unit, sizeof c->unit, "%s", unit ? unit : "");
    c[t->ncols].text = text;
    t->ncols++;
    return TL_OK;
}

tl_status tl_an_table_meta(tl_an_table *t, const char *key, const char *fmt, ...)
{
    char val[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(val, sizeof val, fmt, ap);
    va_end(ap);
    TL_TRY(TL_AN_GROW(t->meta, t->nmeta, t->capmeta, "metadata"));
    char **m = t->meta;
    size_t len = strlen(key) + strlen(val) + 3;
    m[t->nmeta] = malloc(len);
    TL_CHECK(m[t->nmeta], TL_ERR_NOMEM, "metadata");
    snprintf(m[t->nmeta], len, "%s: %s", key, val);
    t->nmeta++;
    return TL_OK;
}

tl_status tl_an_table_row(tl_an_table *t)
{
    TL_CHECK(t->ncols > 0, TL_ERR_INVAL, "table %s has no columns", t->title);
    TL_TRY(tl_an_grow(&t->cells, &t->cap, t->nrows, t->ncols * sizeof *t->cells, "table rows"));
    for (size_t j = 0; j < t->ncols; j++) t->cells[t->nrows * t->ncols + j] = NULL;
    t->nrows++;
    t->cur = 0;
    return TL_OK;
}

tl_status tl_an_table_str(tl_an_table *t, const char *s)
{
    TL_CHECK(t->nrows > 0 && t->cur < t->ncols, TL_ERR_INVAL, "table %s: cell %zu beyond %zu columns", t->title,
             t->cur, t->ncols);
    char *d = strdup(s ? s : "-");
    TL_CHECK(d, TL_ERR_NOMEM, "cell");
    t->cells[(t->nrows - 1) * t->ncols + t->cur++] = d;
    return TL_OK;
}

tl_status tl_an_table_fmt(tl_an_table *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tl_an_table_str(t, buf);
}

tl_status tl_an_table_num(tl_an_table *t, double v, int decimals)
{
    if (!isfinite(v)) return tl_an_table_str(t, "-");
    return tl_an_table_fmt(t, "%.*f", decimals, v);
}

tl_status tl_an_table_int(tl_an_table *t, int64_t v) { return tl_an_table_fmt(t, "%lld", (long long)v); }

size_t tl_an_table_nrows(const tl_an_table *t) { return t->nrows; }

static const char *cell(const tl_an_table *t, size_t i, size_t j)
{
    const char *c = t->cells[i * t->ncols + j];
    return c ? c : "-";
}

/* Text columns wider than this are cut in the printed table (the CSV keeps
 * every character) and the footer says so: a C++ kernel name can run to
 * hundreds of characters. The last column is not cut: it pushes nothing. */
enum { MAX_TEXT_W = 60 };

/* Whether free text needs double quotes in the printed table to stay one
 * field for a reader that splits rows on blanks (gnuplot and pandas take
 * the quotes): it holds a blank, a control character (printed as a blank)
 * or a double quote, or is empty. `memcpy DtoD` read as two fields, and
 * `breakdown "my run"` put the rest of its row one field to the right. */
static int must_quote(const char *s)
{
    if (!*s) return 1;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || *s == '"') return 1;
    return 0;
}

/* A text cell as the printed table shows it, written to out (NULL: only
 * measured); returns its width in characters. In double quotes, its quotes
 * doubled, where must_quote says; a control character (a kernel name with
 * a newline, as a foreign trace may hold) as a space, so that one row stays
 * one line. Wider than cut (0: never cut): cut to that width with "..."
 * inside the quotes, so they stay paired. Widths count UTF-8 characters
 * (the traces' names are UTF-8: the readers refuse anything else): in
 * bytes, a name with 'é' pushed the rest of its row right, and the cut
 * could split a character. */
static size_t show(FILE *out, const char *s, size_t cut)
{
    const size_t q = must_quote(s);
    if (cut && show(NULL, s, 0) <= cut) cut = 0;
    const size_t room = !cut ? SIZE_MAX : cut > 3 + 2 * q ? cut - 3 - 2 * q : 0;
    size_t w = 0;
    if (q && out) fputc('"', out);
    for (size_t i = 0; s[i];) {
        size_t nb = 1, cw = s[i] == '"' ? 2 : 1;
        while (((unsigned char)s[i + nb] & 0xc0) == 0x80) nb++;
        if (w + cw > room) break;
        if (out && s[i] == '"') fputc('"', out);
        if (out && (unsigned char)s[i] < 0x20) fputc(' ', out);
        else if (out) fwrite(s + i, 1, nb, out);
        w += cw;
        i += nb;
    }
    if (cut && out) fputs("...", out);
    if (q && out) fputc('"', out);
    return w + (cut ? 3 : 0) + 2 * q;
}

/* last: the row's last printed cell, whole and unpadded when text */
static void put_cell(FILE *out, const col *c, size_t w, const char *s, int last)
{
    if (!c->text) {
        fprintf(out, " %*s", (int)w, s);
        return;
    }
    fputc(' ', out);
    size_t n = show(out, s, c->text == 1 && !last ? w : 0);
    if (!last && n < w) fprintf(out, "%*s", (int)(w - n), "");
}

void tl_an_table_print(const tl_an_table *t, FILE *out)
{
    if (t->title[0]) fprintf(out, "# table: %s\n", t->title);
    for (size_t i = 0; i < t->nmeta; i++) fprintf(out, "# %s\n", t->meta[i]);
    size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
    if (!w) return;
    size_t *ncut = calloc(t->ncols ? t->ncols : 1, sizeof *ncut);
    if (!ncut) {
        free(w);
        return;
    }
    /* the last printed column, when text, is never cut: nothing after it
     * goes out of line (diagnose's other_conditions, which name a kernel) */
    size_t last = t->ncols;
    for (size_t j = 0; j < t->ncols; j++)
        if (t->cols[j].text != 2) last = j;
    for (size_t j = 0; j < t->ncols; j++) {
        const size_t unit_w = t->cols[j].unit[0] ? show(NULL, t->cols[j].unit, 0) : 1; /* "-" */
        w[j] = show(NULL, t->cols[j].name, 0);
        if (unit_w > w[j]) w[j] = unit_w;
        for (size_t i = 0; i < t->nrows; i++) {
            size_t len = t->cols[j].text ? show(NULL, cell(t, i, j), 0) : strlen(cell(t, i, j));
            if (t->cols[j].text == 1 && j != last && len > MAX_TEXT_W) {
                ncut[j]++;
                len = MAX_TEXT_W;
            }
            if (len > w[j]) w[j] = len;
        }
    }
    for (int row = 0; row < 2; row++) {
        fputc('#', out);
        for (size_t j = 0; j < t->ncols; j++) {
            if (t->cols[j].text == 2) continue;
            /* a name given by the user (sweep --x) is one field too */
            const char *s = row == 0 ? t->cols[j].name : (t->cols[j].unit[0] ? t->cols[j].unit : "-");
            const size_t n = show(NULL, s, 0), pad = w[j] > n && !(j == last && t->cols[j].text) ? w[j] - n : 0;
            fprintf(out, " %*s", t->cols[j].text ? 0 : (int)pad, "");
            show(out, s, 0);
            if (t->cols[j].text) fprintf(out, "%*s", (int)pad, "");
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < t->nrows; i++) {
        fputc(' ', out);
        for (size_t j = 0; j < t->ncols; j++)
            if (t->cols[j].text != 2) put_cell(out, &t->cols[j], w[j], cell(t, i, j), j == last);
        fputc('\n', out);
    }
    fprintf(out, "# %zu rows\n", t->nrows);
    for (size_t j = 0; j < t->ncols; j++)
        if (ncut[j] && t->cols[j].text != 2)
            fprintf(out, "# column %s: %zu cell%s cut to %d characters (\"...\"); the CSV (--csv) has them whole\n",
                    t->cols[j].name, ncut[j], ncut[j] == 1 ? "" : "s", MAX_TEXT_W);
    free(ncut);
    free(w);
}

tl_status tl_an_csv_put(FILE *f, const char *s, int always)
{
    /* the quoting at most doubles the text, and a name can be of any
     * length: a buffer of its size, so that nothing is cut */
    char small[512], *buf = small;
    const size_t n = 2 * strlen(s) + 3;
    if (n > sizeof small) buf = malloc(n);
    TL_CHECK(buf, TL_ERR_NOMEM, "a CSV field of %zu bytes", n);
    fputs(always ? tl_results_quote(buf, n, s) : tl_results_field(buf, n, s), f);
    if (buf != small) free(buf);
    return TL_OK;
}

/* The column's name with its unit folded in (total_us), as a CSV field:
 * sweep's first column is named by the user (--x). */
static tl_status csv_unit_name(FILE *f, const col *c)
{
    const char *u = !c->unit[0] || !strcmp(c->unit, "-") ? ""
                    : !strcmp(c->unit, "%")             ? "pct"
                    : !strcmp(c->unit, "GB/s")          ? "GBps"
                                                        : c->unit;
    char name[sizeof c->name + sizeof c->unit + 1];
    snprintf(name, sizeof name, "%s%s%s", c->name, *u ? "_" : "", u);
    return tl_an_csv_put(f, name, 0);
}

tl_status tl_an_table_write_csv(const tl_an_table *t, const char *path)
{
    tl_status st = TL_OK;
    tl_out o;
    FILE *f = NULL;
    TL_TRY(tl_out_open_text(&o, path, &f)); /* gzip'd for a .gz name */
    for (size_t j = 0; j < t->ncols; j++) {
        if (j) fputc(',', f);
        TL_TRYGOTO(csv_unit_name(f, &t->cols[j]), st, fail);
    }
    fputc('\n', f);
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->ncols; j++) {
            if (j) fputc(',', f);
            /* a number that is not there is an empty field, as the results
             * files leave one, which gnuplot and pandas read as missing (it
             * was NaN, beside the results files' empty fields); a text
             * cell ("-" for no unit) is its text */
            const char *c = cell(t, i, j);
            TL_TRYGOTO(tl_an_csv_put(f, t->cols[j].text || strcmp(c, "-") ? c : "", 0), st, fail);
        }
        fputc('\n', f);
    }
    TL_TRY(tl_out_close(&o, 1));
    return TL_OK;
fail:
    tl_out_close(&o, 0);
    return st;
}
