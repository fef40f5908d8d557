/* Streaming trace reader: one row in memory at a time (at most
 * TL_TRACE_MAX_ROW bytes), so a reader's memory does not grow with the
 * file. Every error names the file, the line the row starts on and the
 * reason, and the reader refuses anything it does not fully understand. */
#include "probes/trace.h"

#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/gzin.h"
#include "runtime/out.h"

enum { TL_TRACE_MAX_META = 512, TL_TRACE_CHUNK = 1 << 16 };

/* A trace file read plainly or as gzip (runtime/gzin.h): the committed
 * results keep their traces gzipped, and trace.rank<R>.csv.gz is read like
 * the .csv. */
struct tl_trace_reader {
    tl_gzin *in;
    unsigned char chunk[TL_TRACE_CHUNK];
    size_t cpos, clen;  /* the unread bytes of chunk */
    int ceof;           /* the input is over */
    char *path;
    long long line;     /* lines consumed so far */
    long long row_line; /* where the current row started */
    char *buf;          /* the current row, fields unquoted in place */
    size_t len;
    int nmeta;
    char *meta_key[TL_TRACE_MAX_META], *meta_val[TL_TRACE_MAX_META];
    int eol;            /* line endings: 0 not seen yet, 1 LF, 2 CR LF */
    int flags;
    long long declared; /* records=N from the metadata, -1 without */
    long long nread;    /* records read so far */
    int at_end;         /* end of file reached, count checked */
    int cut;            /* the last row, cut short, dropped (TL_TRACE_ACCEPT_INCOMPLETE) */
    int rows;           /* past the header: a cut row may be left out, on purpose */
};

#define TL_ROW_ERR(r, ...) tl_row_error((r), __FILE__, __LINE__, __VA_ARGS__)
static tl_status tl_row_error(const tl_trace_reader *r, const char *file, int line, const char *fmt,
                              ...) __attribute__((format(printf, 4, 5)));
static tl_status tl_row_error(const tl_trace_reader *r, const char *file, int line, const char *fmt,
                              ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tl_error_report(TL_ERR_PARSE, file, line, NULL, "%s:%lld: %s", r->path, r->row_line,
                           msg);
}

/* Append one physical line (without its newline) to buf at len.
 * 1: a line ending in '\n'; 2: a last line without '\n'; 0: end of file. */
static tl_status tl_read_line(tl_trace_reader *r, int *got)
{
    int any = 0;
    for (;;) {
        if (r->cpos == r->clen) {
            if (r->ceof) break;
            char where[4200];
            snprintf(where, sizeof where, "%s:%lld", r->path, r->line + 1);
            TL_TRY(tl_gzin_read(r->in, r->chunk, sizeof r->chunk, &r->clen, where));
            r->cpos = 0;
            r->ceof = r->clen == 0;
            continue;
        }
        int c = r->chunk[r->cpos++];
        any = 1;
        if (c == '\0')
            return TL_ROW_ERR(r, "NUL byte in line %lld (binary data, not a trace)", r->line + 1);
        if (c == '\n') {
            r->buf[r->len] = '\0';
            r->line++;
            *got = 1;
            return TL_OK;
        }
        if (r->len + 2 >= TL_TRACE_MAX_ROW)
            return TL_ROW_ERR(r, "row longer than %d bytes", (int)TL_TRACE_MAX_ROW);
        r->buf[r->len++] = (char)c;
    }
    r->buf[r->len] = '\0';
    if (any) r->line++;
    *got = any ? 2 : 0;
    return TL_OK;
}

/* The line just read ended in '\n': a CR before it is the file's line
 * ending (a trace saved on Windows), the same for every line, and dropped.
 * Inside a quoted name a lone CR is the name's own in an LF file. */
static tl_status tl_line_end(tl_trace_reader *r, int inq)
{
    int cr = r->len > 0 && r->buf[r->len - 1] == '\r';
    if (r->eol == 0) r->eol = cr ? 2 : 1;
    if (r->eol == 2) {
        if (cr) {
            r->buf[--r->len] = '\0';
            return TL_OK;
        }
        if (!inq)
            return TL_ROW_ERR(r, "line %lld ends in LF, the lines before it in CR LF (mixed line "
                                 "endings)", r->line);
        return TL_OK;
    }
    if (cr && !inq)
        return TL_ROW_ERR(r, "line %lld ends in CR LF, the lines before it in LF (mixed line "
                             "endings)", r->line);
    return TL_OK;
}

/* What a refused cut row can be read with: only a data row's cut may be
 * left out; a cut header leaves nothing to read. */
static const char *cut_hint(const tl_trace_reader *r)
{
    return r->rows ? "; read it without that row only on purpose (trilap-analyze --accept-incomplete)" : "";
}

/* A whole row: continues over newlines inside a quoted field. */
static tl_status tl_read_row(tl_trace_reader *r, int *got)
{
    r->len = 0;
    r->row_line = r->line + 1;
    int g;
    TL_TRY(tl_read_line(r, &g));
    if (g == 0) {
        *got = 0;
        return TL_OK;
    }
    /* a file copied or written until its disk filled ends mid-row: what
     * is there of the row may parse (an iter of 12 cut to 1), so under
     * TL_TRACE_ACCEPT_INCOMPLETE it is dropped whole, and said */
    const int drop_cut = (r->flags & TL_TRACE_ACCEPT_INCOMPLETE) != 0;
    /* a metadata line is one line, its value unquoted (the writer writes a
     * newline in it as a space): a '"' there (an argument 'say "hi' in
     * args=) opens no quoted field, where counting it took the header and
     * every record after it for one row */
    const int meta = r->len > 0 && r->buf[0] == '#';
    for (;;) {
        int inq = 0;
        for (size_t i = 0; i < r->len && !meta; i++)
            if (r->buf[i] == '"') inq = !inq;
        if (g == 2 && drop_cut) break;
        if (g == 2)
            return TL_ROW_ERR(r, "truncated last row (no newline at the end of the file)%s", cut_hint(r));
        TL_TRY(tl_line_end(r, inq));
        if (!inq) break;
        r->buf[r->len++] = '\n';
        TL_TRY(tl_read_line(r, &g));
        if (g == 0 && drop_cut) break;
        if (g == 0) return TL_ROW_ERR(r, "truncated last row (quoted name not closed)%s", cut_hint(r));
    }
    if (g != 1) {
        r->cut = 1;
        *got = 0;
        return TL_OK;
    }
    *got = 1;
    return TL_OK;
}

static void tl_reader_free(tl_trace_reader *r)
{
    if (!r) return;
    tl_gzin_close(r->in);
    for (int i = 0; i < r->nmeta; i++) {
        free(r->meta_key[i]);
        free(r->meta_val[i]);
    }
    free(r->buf);
    free(r->path);
    free(r);
}

const char *tl_trace_reader_meta(const tl_trace_reader *r, const char *key)
{
    if (!r || !key) return NULL;
    for (int i = 0; i < r->nmeta; i++)
        if (strcmp(r->meta_key[i], key) == 0) return r->meta_val[i];
    return NULL;
}

static tl_status tl_meta_line(tl_trace_reader *r)
{
    const char *s = r->buf + 1;
    while (*s == ' ')
        s++;
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) return TL_ROW_ERR(r, "metadata line is not '# key=value'");
    size_t klen = (size_t)(eq - s);
    char *key = strndup(s, klen);
    if (!key) return TL_FAIL(TL_ERR_NOMEM, "%s: metadata", r->path);
    if (tl_trace_reader_meta(r, key)) {
        tl_status st = TL_ROW_ERR(r, "duplicate metadata key '%s'", key);
        free(key);
        return st;
    }
    if (r->nmeta == TL_TRACE_MAX_META) {
        free(key);
        return TL_ROW_ERR(r, "more than %d metadata lines", (int)TL_TRACE_MAX_META);
    }
    char *val = strdup(eq + 1);
    if (!val) {
        free(key);
        return TL_FAIL(TL_ERR_NOMEM, "%s: metadata", r->path);
    }
    r->meta_key[r->nmeta] = key;
    r->meta_val[r->nmeta] = val;
    r->nmeta++;
    return TL_OK;
}

/* An integer metadata value in [lo, hi]; *found 0 when the key is absent. */
static tl_status tl_meta_int(tl_trace_reader *r, const char *key, int64_t lo, int64_t hi,
                             int64_t *out, int *found)
{
    const char *s = tl_trace_reader_meta(r, key);
    *found = 0;
    if (!s) return TL_OK;
    char *e = NULL;
    errno = 0;
    const char *d = *s == '-' ? s + 1 : s;
    long long v = *d >= '0' && *d <= '9' ? strtoll(s, &e, 10) : 0;
    if (!e || *e || (errno && errno != ERANGE))
        return TL_FAIL(TL_ERR_PARSE, "%s: metadata %s='%.40s' is not an integer", r->path, key, s);
    if (lo == 0 && v < 0)
        return TL_FAIL(TL_ERR_PARSE, "%s: metadata %s=%.40s is negative", r->path, key, s);
    if (errno || v < lo || v > hi)
        return TL_FAIL(TL_ERR_PARSE, "%s: metadata %s=%.40s is out of range [%" PRId64 ", %" PRId64 "]",
                       r->path, key, s, lo, hi);
    *out = v;
    *found = 1;
    return TL_OK;
}

/* What the metadata declares must be possible: a rank below nranks, a
 * window inside the time range rows may have, a record count. */
static tl_status tl_meta_check(tl_trace_reader *r)
{
    int64_t rank = 0, nranks = 0, w0 = 0, w1 = 0, v = 0;
    int frank, fnr, fw0, fw1, f;
    TL_TRY(tl_meta_int(r, "rank", 0, INT32_MAX - 1, &rank, &frank));
    TL_TRY(tl_meta_int(r, "nranks", 1, INT32_MAX, &nranks, &fnr));
    if (frank && fnr && rank >= nranks)
        return TL_FAIL(TL_ERR_PARSE, "%s: metadata rank=%" PRId64 " is not below nranks=%" PRId64,
                       r->path, rank, nranks);
    TL_TRY(tl_meta_int(r, "window_start_ns", -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &w0, &fw0));
    TL_TRY(tl_meta_int(r, "window_end_ns", -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &w1, &fw1));
    if (fw0 && fw1 && w1 < w0)
        return TL_FAIL(TL_ERR_PARSE, "%s: metadata window_end_ns=%" PRId64
                                     " before window_start_ns=%" PRId64, r->path, w1, w0);
    /* clock alignment (probes/clock_align.c): offsets are differences of
     * two clocks, bounded like the times themselves */
    TL_TRY(tl_meta_int(r, "clock_offset_ns", -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &v, &f));
    TL_TRY(tl_meta_int(r, "clock_offset_at_ns", -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &v, &f));
    TL_TRY(tl_meta_int(r, "clock_uncertainty_ns", 0, TL_TRACE_MAX_NS, &v, &f));
    TL_TRY(tl_meta_int(r, "dropped", 0, INT64_MAX, &v, &f));
    int64_t n = -1;
    TL_TRY(tl_meta_int(r, "records", 0, INT64_MAX, &n, &f));
    r->declared = f ? n : -1;
    return TL_OK;
}

tl_status tl_trace_reader_open(tl_trace_reader **out, const char *path, int flags)
{
    TL_CHECK(out && path, TL_ERR_INVAL, "trace reader needs a path");
    *out = NULL;
    tl_status st = TL_OK;
    tl_trace_reader *r = calloc(1, sizeof *r);
    if (!r) return TL_FAIL(TL_ERR_NOMEM, "trace reader for %s", path);
    r->path = strdup(path);
    r->buf = malloc(TL_TRACE_MAX_ROW);
    if (!r->path || !r->buf) {
        tl_reader_free(r);
        return TL_FAIL(TL_ERR_NOMEM, "trace reader for %s", path);
    }
    r->declared = -1;
    TL_TRYGOTO(tl_gzin_open(path, &r->in), st, fail);
    for (;;) {
        int got;
        TL_TRYGOTO(tl_read_row(r, &got), st, fail);
        if (!got) {
            st = TL_ROW_ERR(r, "missing header row (end of file after %lld lines)", r->line);
            goto fail;
        }
        if (r->buf[0] == '#') {
            TL_TRYGOTO(tl_meta_line(r), st, fail);
            continue;
        }
        if (strcmp(r->buf, TL_TRACE_HEADER) != 0) {
            st = TL_ROW_ERR(r, "missing header row: expected '%s', found '%.80s'", TL_TRACE_HEADER,
                            r->buf);
            goto fail;
        }
        break;
    }
    const char *fmt = tl_trace_reader_meta(r, "format");
    const char *ver = tl_trace_reader_meta(r, "version");
    const char *complete = tl_trace_reader_meta(r, "complete");
    r->row_line = 1;
    if (!fmt || strcmp(fmt, "trilap-trace") != 0) {
        st = TL_ROW_ERR(r, "not a trilap trace (format=%s, expected format=trilap-trace)",
                        fmt ? fmt : "(missing)");
        goto fail;
    }
    if (!ver || strcmp(ver, "1") != 0) {
        st = TL_ROW_ERR(r, "trace version %s not supported (this reader reads version 1)",
                        ver ? ver : "(missing)");
        goto fail;
    }
    if (complete && strcmp(complete, "yes") != 0 && strcmp(complete, "no") != 0) {
        st = TL_ROW_ERR(r, "complete=%s (expected yes or no)", complete);
        goto fail;
    }
    if (complete && strcmp(complete, "no") == 0 && !(flags & TL_TRACE_ACCEPT_INCOMPLETE)) {
        const char *dropped = tl_trace_reader_meta(r, "dropped");
        const char *cupti = tl_trace_reader_meta(r, "cupti_status");
        st = TL_ROW_ERR(r,
                        "incomplete trace (complete=no, dropped=%s, cupti_status=%s); "
                        "read it anyway only on purpose (trilap-analyze --accept-incomplete)",
                        dropped ? dropped : "?", cupti ? cupti : "?");
        goto fail;
    }
    TL_TRYGOTO(tl_meta_check(r), st, fail);
    r->flags = flags;
    r->rows = 1;
    r->row_line = r->line;
    /* a gzip'd trace cut short past its header (a copy stopped, a writer
     * killed while gzip ran) reads as a file cut there; before it the
     * flag cannot mend the cut, and the refusal does not name it */
    tl_gzin_on_cut(r->in, (flags & TL_TRACE_ACCEPT_INCOMPLETE) != 0,
                   "; read what it holds only on purpose (trilap-analyze --accept-incomplete)");
    *out = r;
    return TL_OK;
fail:
    tl_reader_free(r);
    return st;
}

/* Split the row into fields in place, unquoting RFC 4180 quoted fields. */
static tl_status tl_split(tl_trace_reader *r, char **fld, int *nfld)
{
    int n = 0;
    char *p = r->buf, *end = r->buf + r->len;
    for (;;) {
        if (n == TL_TRACE_NFIELDS) return TL_ROW_ERR(r, "more than %d fields", TL_TRACE_NFIELDS);
        if (*p == '"') {
            char *dst = p, *src = p + 1;
            fld[n++] = dst;
            for (;;) {
                if (src >= end) return TL_ROW_ERR(r, "quoted field %d not closed", n);
                if (*src == '"') {
                    if (src[1] == '"') {
                        *dst++ = '"';
                        src += 2;
                        continue;
                    }
                    src++;
                    break;
                }
                *dst++ = *src++;
            }
            if (src < end && *src != ',')
                return TL_ROW_ERR(r, "text after the closing quote of field %d", n);
            *dst = '\0';
            if (src >= end) break;
            p = src + 1;
        } else {
            fld[n++] = p;
            char *c = memchr(p, ',', (size_t)(end - p));
            if (!c) break;
            *c = '\0';
            p = c + 1;
        }
    }
    *nfld = n;
    return TL_OK;
}

static const char *const tl_field_names[TL_TRACE_NFIELDS] = {
    "rank", "device",   "stream", "lane", "cat",   "kind",
    "name", "start_ns", "end_ns", "corr", "bytes", "iter"};

static tl_status tl_int(tl_trace_reader *r, const char *s, int col, int64_t lo, int64_t hi,
                        int64_t *out)
{
    char *e;
    errno = 0;
    /* strtoll would take leading blanks and a '+'; the writer never writes them. */
    const char *d = *s == '-' ? s + 1 : s;
    if (!(*d >= '0' && *d <= '9'))
        return TL_ROW_ERR(r, "bad number in %s: '%.40s'", tl_field_names[col], s);
    long long v = strtoll(s, &e, 10);
    if (!*e && (errno == ERANGE || v < lo || v > hi)) { /* a number, but none this column holds */
        if (hi == TL_TRACE_MAX_NS)
            return TL_ROW_ERR(r, "bad number in %s: '%.40s' is beyond 2^61 ns (73 years), not a time",
                              tl_field_names[col], s);
        return TL_ROW_ERR(r, "bad number in %s: '%.40s' is outside %lld..%lld", tl_field_names[col], s,
                          (long long)lo, (long long)hi);
    }
    if (*e || errno) return TL_ROW_ERR(r, "bad number in %s: '%.40s'", tl_field_names[col], s);
    *out = v;
    return TL_OK;
}

static tl_status tl_uint(tl_trace_reader *r, const char *s, int col, uint64_t *out)
{
    char *e;
    errno = 0;
    if (!(*s >= '0' && *s <= '9'))
        return TL_ROW_ERR(r, "bad number in %s: '%.40s'", tl_field_names[col], s);
    unsigned long long v = strtoull(s, &e, 10);
    if (*e || errno) return TL_ROW_ERR(r, "bad number in %s: '%.40s'", tl_field_names[col], s);
    *out = v;
    return TL_OK;
}

tl_status tl_trace_reader_next(tl_trace_reader *r, tl_trace_record *rec, int *got)
{
    TL_CHECK(r && rec && got, TL_ERR_INVAL, "reader, record and got needed");
    *got = 0;
    if (r->at_end) return TL_OK;
    int g;
    TL_TRY(tl_read_row(r, &g));
    if (!g) {
        r->at_end = 1;
        if (r->declared >= 0 && r->nread != r->declared && !(r->flags & TL_TRACE_ACCEPT_INCOMPLETE)) {
            r->row_line = r->line;
            return TL_ROW_ERR(r,
                              "the metadata says records=%lld, the file has %lld (%s); read it anyway "
                              "only on purpose (trilap-analyze --accept-incomplete)",
                              r->declared, r->nread,
                              r->nread < r->declared ? "cut short" : "rows added after it was written");
        }
        return TL_OK;
    }
    char *f[TL_TRACE_NFIELDS];
    int n = 0;
    TL_TRY(tl_split(r, f, &n));
    if (n != TL_TRACE_NFIELDS)
        return TL_ROW_ERR(r, "wrong field count: %d, expected %d", n, TL_TRACE_NFIELDS);
    int64_t v;
    TL_TRY(tl_int(r, f[0], 0, 0, INT32_MAX, &v));
    rec->rank = (int32_t)v;
    TL_TRY(tl_int(r, f[1], 1, -1, INT32_MAX, &v));
    rec->device = (int32_t)v;
    TL_TRY(tl_uint(r, f[2], 2, &rec->stream));
    if (tl_role_parse(f[3], &rec->lane) != TL_OK)
        return TL_ROW_ERR(r, "unknown lane '%.40s'", f[3]);
    if (tl_cat_parse(f[4], &rec->cat) != TL_OK) return TL_ROW_ERR(r, "unknown cat '%.40s'", f[4]);
    if (tl_kind_parse(f[5], &rec->kind) != TL_OK)
        return TL_ROW_ERR(r, "unknown kind '%.40s'", f[5]);
    rec->name = f[6];
    size_t bad = tl_trace_utf8_bad(f[6]);
    if (bad != (size_t)-1)
        return TL_ROW_ERR(r, "name is not valid UTF-8 (byte 0x%02x at offset %zu)",
                          (unsigned char)f[6][bad], bad);
    TL_TRY(tl_int(r, f[7], 7, -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &rec->start_ns));
    TL_TRY(tl_int(r, f[8], 8, -TL_TRACE_MAX_NS, TL_TRACE_MAX_NS, &rec->end_ns));
    if (rec->end_ns < rec->start_ns)
        return TL_ROW_ERR(r, "end before start: end_ns %" PRId64 " < start_ns %" PRId64,
                          rec->end_ns, rec->start_ns);
    TL_TRY(tl_uint(r, f[9], 9, &rec->corr));
    TL_TRY(tl_int(r, f[10], 10, -1, INT64_MAX, &rec->bytes));
    TL_TRY(tl_int(r, f[11], 11, -1, INT64_MAX, &rec->iter));
    r->nread++;
    *got = 1;
    return TL_OK;
}

int tl_trace_reader_cut(const tl_trace_reader *r)
{
    return r->at_end ? (r->cut ? TL_TRACE_CUT_ROW : 0) | (tl_gzin_cut(r->in) ? TL_TRACE_CUT_GZIP : 0) : 0;
}

int tl_trace_reader_count(const tl_trace_reader *r, long long *declared, long long *read)
{
    *declared = r->declared;
    *read = r->nread;
    return r->at_end && r->declared >= 0 && r->nread != r->declared;
}

void tl_trace_reader_close(tl_trace_reader **r)
{
    if (!r) return;
    tl_reader_free(*r);
    *r = NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int tl_trace_rank_of_name(const char *name)
{
    static const char pre[] = "trace.rank";
    size_t np = sizeof pre - 1, n = strlen(name);
    /* .gz in any case is gzip, as everywhere (tl_out_names_gzip); trilap's own part stays lower case */
    int gz = TL_HAVE_ZLIB && tl_out_names_gzip(name) && n >= 7 && !strncmp(name + n - 7, ".csv", 4);
    size_t ns = ends_with(name, ".csv") ? 4 : gz ? 7 : 0;
    if (!ns || n <= np + ns || strncmp(name, pre, np) != 0) return -1;
    const char *d = name + np, *e = name + n - ns;
    long long r = 0;
    for (const char *p = d; p < e; p++) {
        if (*p < '0' || *p > '9') return -1;
        r = 10 * r + (*p - '0');
        if (r > INT_MAX) return -2;
    }
    if (e - d > 1 && *d == '0') return -2;
    return (int)r;
}

void tl_trace_rank_path(const char *dir, int rank, char *buf, size_t cap)
{
    static const char *const gz[] = {"gz", "GZ", "Gz", "gZ"};
    snprintf(buf, cap, "%s/trace.rank%d.csv", dir, rank);
    if (!TL_HAVE_ZLIB || access(buf, F_OK) == 0) return;
    for (size_t k = 0; k < sizeof gz / sizeof gz[0]; k++) {
        snprintf(buf, cap, "%s/trace.rank%d.csv.%s", dir, rank, gz[k]);
        if (access(buf, F_OK) == 0) return;
    }
    snprintf(buf, cap, "%s/trace.rank%d.csv.gz", dir, rank); /* none there: the name it would have */
}
