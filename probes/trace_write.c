/* Trace writer: metadata lines, then the header row (written with the first
 * record, or at commit for an empty trace), then records, through tl_out
 * (runtime/out.h): a reader never sees half a trace. */
#include "probes/trace.h"
#include "runtime/clock.h"
#include "runtime/out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_trace_writer {
    tl_out out;
    FILE *f; /* out.f */
    const char *path; /* out.path */
    int header_done;
    long long nrecords;
    long long declared; /* the records=N metadata, -1 when not given */
    int64_t skew; /* test only: TRILAP_TEST_CLOCK_SKEW of the file's rank (runtime/clock.h) */
};

tl_status tl_trace_writer_open(tl_trace_writer **out, const char *path)
{
    TL_CHECK(out && path && *path, TL_ERR_INVAL, "trace writer needs a path");
    *out = NULL;
    tl_trace_writer *w = calloc(1, sizeof *w);
    if (!w) return TL_FAIL(TL_ERR_NOMEM, "trace writer for %s", path);
    tl_status st = tl_out_open(&w->out, path);
    if (st != TL_OK) {
        free(w);
        return st;
    }
    w->f = w->out.f;
    w->path = w->out.path;
    w->declared = -1;
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    *out = w;
    return TL_OK;
}

/* How much of text is written: all of it up to TL_TRACE_MAX_TEXT bytes,
 * else what fits beside the cut mark, ending before a UTF-8 character's
 * continuation bytes (the reader refuses text that is not UTF-8). */
static size_t tl_text_kept(const char *text)
{
    size_t n = strlen(text);
    if (n <= TL_TRACE_MAX_TEXT) return n;
    size_t keep = TL_TRACE_MAX_TEXT - 32;
    while (keep > 0 && ((unsigned char)text[keep] & 0xC0) == 0x80) keep--;
    return keep;
}

static void tl_text_cut_mark(FILE *f, const char *text, size_t kept)
{
    size_t n = strlen(text);
    if (kept < n) fprintf(f, "...[%zu bytes, cut]", n);
}

static int tl_meta_key_ok(const char *k)
{
    if (!k || !*k) return 0;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '-' || *k == '.'))
            return 0;
    return 1;
}

tl_status tl_trace_writer_meta(tl_trace_writer *w, const char *key, const char *value)
{
    TL_CHECK(w, TL_ERR_INVAL, "no writer");
    TL_CHECK(!w->header_done, TL_ERR_INVAL, "%s: metadata %s after the first record", w->path,
             key ? key : "(null)");
    TL_CHECK(tl_meta_key_ok(key), TL_ERR_INVAL, "%s: bad metadata key '%s' (letters, digits, _-.)",
             w->path, key ? key : "(null)");
    if (!strcmp(key, "rank") && value) w->skew = tl_clock_test_skew(atoi(value));
    if (!strcmp(key, "records")) {
        /* the count the reader checks the file against: it must be one */
        char *end = NULL;
        long long v = value ? strtoll(value, &end, 10) : -1;
        TL_CHECK(value && *value && end && !*end && v >= 0, TL_ERR_INVAL,
                 "%s: metadata records=%s is not a record count", w->path, value ? value : "");
        w->declared = v;
    }
    if (w->skew && value && (!strcmp(key, "window_start_ns") || !strcmp(key, "window_end_ns"))) {
        fprintf(w->f, "# %s=%lld\n", key, strtoll(value, NULL, 10) + (long long)w->skew);
        return TL_OK;
    }
    fprintf(w->f, "# %s=", key);
    /* One line per key: a newline in a value (an argument, say) becomes a space. */
    const char *v = value ? value : "";
    size_t keep = tl_text_kept(v);
    for (size_t i = 0; i < keep; i++)
        fputc(v[i] == '\n' || v[i] == '\r' ? ' ' : v[i], w->f);
    tl_text_cut_mark(w->f, v, keep);
    fputc('\n', w->f);
    return TL_OK;
}

static void tl_write_name(FILE *f, const char *name)
{
    if (!name) name = "";
    size_t keep = tl_text_kept(name);
    if (keep == strlen(name) && !strpbrk(name, ",\"\r\n")) {
        fputs(name, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < keep; i++) {
        if (name[i] == '"') fputc('"', f);
        fputc(name[i], f);
    }
    tl_text_cut_mark(f, name, keep);
    fputc('"', f);
}

tl_status tl_trace_writer_record(tl_trace_writer *w, const tl_trace_record *r)
{
    TL_CHECK(w && r, TL_ERR_INVAL, "no writer or record");
    TL_CHECK((unsigned)r->lane < TL_ROLE_COUNT && (unsigned)r->cat < TL_CAT_COUNT &&
                 (unsigned)r->kind < TL_KIND_COUNT,
             TL_ERR_INVAL, "%s: record %lld: lane %d, cat %d, kind %d out of range", w->path,
             w->nrecords + 1, (int)r->lane, (int)r->cat, (int)r->kind);
    TL_CHECK(r->start_ns >= -TL_TRACE_MAX_NS && r->end_ns <= TL_TRACE_MAX_NS &&
                 r->start_ns + w->skew >= -TL_TRACE_MAX_NS && r->end_ns + w->skew <= TL_TRACE_MAX_NS,
             TL_ERR_INVAL, "%s: record %lld (%s): times %" PRId64 " .. %" PRId64 " beyond +-2^61 ns",
             w->path, w->nrecords + 1, r->name ? r->name : "", r->start_ns, r->end_ns);
    TL_CHECK(r->end_ns >= r->start_ns, TL_ERR_INVAL,
             "%s: record %lld (%s): end %" PRId64 " before start %" PRId64, w->path,
             w->nrecords + 1, r->name ? r->name : "", r->end_ns, r->start_ns);
    if (!w->header_done) {
        fputs(TL_TRACE_HEADER "\n", w->f);
        w->header_done = 1;
    }
    fprintf(w->f, "%" PRId32 ",%" PRId32 ",%" PRIu64 ",%s,%s,%s,", r->rank, r->device, r->stream,
            tl_role_name(r->lane), tl_cat_name(r->cat), tl_kind_name(r->kind));
    tl_write_name(w->f, r->name);
    fprintf(w->f, ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 "\n", r->start_ns + w->skew,
            r->end_ns + w->skew, r->corr, r->bytes, r->iter);
    w->nrecords++;
    return TL_OK;
}

tl_status tl_trace_writer_close(tl_trace_writer **pw, int commit)
{
    if (!pw || !*pw) return TL_OK;
    tl_trace_writer *w = *pw;
    *pw = NULL;
    tl_status st = TL_OK;
    if (commit && !w->header_done) fputs(TL_TRACE_HEADER "\n", w->f);
    if (commit && w->declared >= 0 && w->declared != w->nrecords) {
        /* a file that disagrees with its own metadata is never put in place */
        st = TL_FAIL(TL_ERR_INVAL, "%s: metadata says records=%lld, %lld written", w->path,
                     w->declared, w->nrecords);
        commit = 0;
    }
    tl_status cst = tl_out_close(&w->out, commit);
    free(w);
    return st != TL_OK ? st : cst;
}
