/* helper_kineto_big SRC.json[.gz] OUT.json MB: a Kineto trace of at least
 * MB megabytes made by repeating the events of SRC, each copy shifted in
 * time past the previous one, its correlation and External ids moved out
 * of the others' way and its ProfilerStep numbers continued, so the result
 * is a valid trace of a longer run (for the size and speed benchmark,
 * scripts/bench-kineto.sh, and test_kineto's bounded-memory test; never
 * committed). SRC read whole with trilap's JSON reader (analysis/json.h),
 * the copies written with stdio to OUT.tmp, then renamed. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/json.h"
#include "runtime/gzin.h"

/* SRC's text, plain or gzip */
static char *slurp(const char *path, size_t *n)
{
    tl_gzin *in = NULL;
    if (tl_gzin_open(path, &in) != TL_OK) return NULL;
    size_t cap = 1 << 24, len = 0, got = 1;
    char *b = malloc(cap);
    while (b && got) {
        if (len == cap) {
            char *nb = realloc(b, 2 * cap);
            if (!nb) free(b);
            b = nb;
            cap *= 2;
            if (!b) break;
        }
        if (tl_gzin_read(in, b + len, cap - len, &got, NULL) != TL_OK) {
            free(b);
            b = NULL;
        }
        len += got;
    }
    tl_gzin_close(in);
    *n = len;
    return b;
}

/* The shortest text that reads back as d, a fraction or an exponent kept
 * so it stays a double (HTA rounds the times of a trace whose ts are) */
static void put_double(FILE *f, double d)
{
    char b[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d) break;
    }
    fprintf(f, "%s%s", b, strpbrk(b, ".eEn") ? "" : ".0");
}

static void put_string(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* v, or v moved by `by` when it is a number and by is not 0 */
static void put_value(FILE *f, const tl_json *v, double by)
{
    switch (tl_json_type_of(v)) {
    case TL_JSON_NULL: fputs("null", f); break;
    case TL_JSON_BOOL: fputs(tl_json_bool(v) ? "true" : "false", f); break;
    case TL_JSON_INT: fprintf(f, "%" PRId64, tl_json_int(v) + (int64_t)by); break;
    case TL_JSON_DOUBLE: put_double(f, tl_json_double(v) + by); break;
    case TL_JSON_STRING: put_string(f, tl_json_string(v), tl_json_string_len(v)); break;
    case TL_JSON_ARRAY:
        fputc('[', f);
        for (size_t i = 0; i < tl_json_length(v); i++) {
            if (i) fputc(',', f);
            put_value(f, tl_json_at(v, i), 0);
        }
        fputc(']', f);
        break;
    case TL_JSON_OBJECT:
        fputc('{', f);
        for (size_t i = 0; i < tl_json_length(v); i++) {
            if (i) fputc(',', f);
            put_string(f, tl_json_key_at(v, i), strlen(tl_json_key_at(v, i)));
            fputc(':', f);
            put_value(f, tl_json_value_at(v, i), 0);
        }
        fputc('}', f);
        break;
    }
}

typedef struct {
    double t0, t1; /* the span of SRC's events */
    long s0, s1;   /* its ProfilerStep numbers */
} source;

static void survey(const tl_json *ev, source *src)
{
    *src = (source){1e300, -1e300, -1, -1};
    for (size_t i = 0; i < tl_json_length(ev); i++) {
        const tl_json *e = tl_json_at(ev, i), *ts = tl_json_get(e, "ts");
        if (ts) {
            double t = tl_json_double(ts), dur = tl_json_double(tl_json_get(e, "dur"));
            if (t < src->t0) src->t0 = t;
            if (t + dur > src->t1) src->t1 = t + dur;
        }
        const char *name = tl_json_string(tl_json_get(e, "name"));
        long s;
        if (name && sscanf(name, "ProfilerStep#%ld", &s) == 1) {
            if (src->s0 < 0 || s < src->s0) src->s0 = s;
            if (s > src->s1) src->s1 = s;
        }
    }
}

/* Event e as copy k: its time, ids and step number moved k copies on. */
static void put_event(FILE *f, const tl_json *e, long k, const source *src)
{
    double span = src->t1 - src->t0 + 1000, ids = 100000000.0 * (double)k;
    fputc('{', f);
    for (size_t i = 0; i < tl_json_length(e); i++) {
        const char *key = tl_json_key_at(e, i);
        const tl_json *v = tl_json_value_at(e, i);
        long s;
        if (i) fputc(',', f);
        put_string(f, key, strlen(key));
        fputc(':', f);
        if (!strcmp(key, "ts")) put_value(f, v, span * (double)k);
        else if (!strcmp(key, "id")) put_value(f, v, ids);
        else if (!strcmp(key, "name") && src->s0 >= 0 && tl_json_string(v) &&
                 sscanf(tl_json_string(v), "ProfilerStep#%ld", &s) == 1)
            fprintf(f, "\"ProfilerStep#%ld\"", s + k * (src->s1 - src->s0 + 1));
        else if (!strcmp(key, "args") && tl_json_is(v, TL_JSON_OBJECT)) {
            fputc('{', f);
            for (size_t j = 0; j < tl_json_length(v); j++) {
                const char *ak = tl_json_key_at(v, j);
                if (j) fputc(',', f);
                put_string(f, ak, strlen(ak));
                fputc(':', f);
                int id = !strcmp(ak, "correlation") || !strcmp(ak, "External id");
                put_value(f, tl_json_value_at(v, j), id ? ids : 0);
            }
            fputc('}', f);
        } else {
            put_value(f, v, 0);
        }
    }
    fputc('}', f);
}

static int write_copies(FILE *f, const tl_json *doc, const tl_json *ev, double mb)
{
    source src;
    survey(ev, &src);
    /* the top-level members other than traceEvents, then the copies */
    fputc('{', f);
    for (size_t i = 0; i < tl_json_length(doc); i++) {
        const char *key = tl_json_key_at(doc, i);
        if (!strcmp(key, "traceEvents")) continue;
        put_string(f, key, strlen(key));
        fputs(": ", f);
        put_value(f, tl_json_value_at(doc, i), 0);
        fputs(", ", f);
    }
    fputs("\"traceEvents\": [\n", f);
    int first = 1;
    for (long k = 0; (double)ftell(f) < mb * 1e6; k++)
        for (size_t i = 0; i < tl_json_length(ev); i++) {
            const tl_json *e = tl_json_at(ev, i);
            const char *ph = tl_json_string(tl_json_get(e, "ph"));
            if (k > 0 && ph && !strcmp(ph, "M")) continue; /* metadata once */
            if (!first) fputs(",\n", f);
            put_event(f, e, k, &src);
            first = 0;
        }
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: helper_kineto_big SRC.json[.gz] OUT.json MB\n");
        return 2;
    }
    size_t n = 0;
    char *text = slurp(argv[1], &n);
    tl_json_parser *p = tl_json_parser_create(64);
    const tl_json *doc = NULL;
    tl_json_error err = {0};
    if (!text || !p || tl_json_parse(p, text, n, &doc, &err) != TL_JSON_OK) {
        fprintf(stderr, "helper_kineto_big: %s: %s at byte %zu\n", argv[1], text ? err.reason : "cannot read",
                err.pos);
        return 1;
    }
    const tl_json *ev = tl_json_get(doc, "traceEvents");
    if (!tl_json_is(ev, TL_JSON_ARRAY)) {
        fprintf(stderr, "helper_kineto_big: %s: not a Kineto trace\n", argv[1]);
        return 1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "helper_kineto_big: cannot write %s\n", tmp);
        return 1;
    }
    int bad = write_copies(f, doc, ev, atof(argv[3]));
    if (fclose(f) != 0 || bad || rename(tmp, argv[2]) != 0) {
        fprintf(stderr, "helper_kineto_big: cannot write %s\n", argv[2]);
        remove(tmp);
        return 1;
    }
    tl_json_parser_destroy(&p);
    free(text);
    return 0;
}
