/* helper_kineto_big SRC.json[.gz] OUT.json MB: a Kineto trace of at least
 * MB megabytes made by repeating the events of SRC, each copy shifted in
 * time past the previous one, its correlation and External ids moved out
 * of the others' way and its ProfilerStep numbers continued, so the result
 * is a valid trace of a longer run (for the size and speed benchmark,
 * scripts/bench-kineto.sh, and test_kineto's bounded-memory test; never
 * committed). Written to OUT.tmp and renamed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if TL_HAVE_JSONC && TL_HAVE_ZLIB
#include <json-c/json.h>
#include <zlib.h>

static char *slurp(const char *path, size_t *n)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    size_t cap = 1 << 24, len = 0;
    char *b = malloc(cap + 1);
    int got;
    while (b && (got = gzread(g, b + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)got;
        if (len == cap) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb) free(b);
            b = nb;
            cap *= 2;
        }
    }
    gzclose(g);
    if (b) b[len] = '\0';
    *n = len;
    return b;
}

/* add `by` to an integer or double member */
static void shift(json_object *o, const char *key, double by)
{
    json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v)) return;
    if (json_object_is_type(v, json_type_int)) json_object_set_int64(v, json_object_get_int64(v) + (int64_t)by);
    else if (json_object_is_type(v, json_type_double)) json_object_set_double(v, json_object_get_double(v) + by);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: helper_kineto_big SRC.json[.gz] OUT.json MB\n");
        return 2;
    }
    double mb = atof(argv[3]);
    size_t n = 0;
    char *text = slurp(argv[1], &n);
    json_object *doc = text ? json_tokener_parse(text) : NULL;
    free(text);
    json_object *ev = NULL;
    if (!doc || !json_object_object_get_ex(doc, "traceEvents", &ev) || !json_object_is_type(ev, json_type_array)) {
        fprintf(stderr, "helper_kineto_big: %s: not a Kineto trace\n", argv[1]);
        return 1;
    }
    size_t ne = json_object_array_length(ev);
    /* the span of the source, its step numbers */
    double t0 = 1e300, t1 = -1e300;
    long s0 = -1, s1 = -1;
    for (size_t i = 0; i < ne; i++) {
        json_object *e = json_object_array_get_idx(ev, i), *v;
        if (json_object_object_get_ex(e, "ts", &v)) {
            double ts = json_object_get_double(v), dur = 0;
            json_object *d;
            if (json_object_object_get_ex(e, "dur", &d)) dur = json_object_get_double(d);
            if (ts < t0) t0 = ts;
            if (ts + dur > t1) t1 = ts + dur;
        }
        const char *name = json_object_object_get_ex(e, "name", &v) ? json_object_get_string(v) : "";
        long s;
        if (sscanf(name, "ProfilerStep#%ld", &s) == 1) {
            if (s0 < 0 || s < s0) s0 = s;
            if (s > s1) s1 = s;
        }
    }
    double span = t1 - t0 + 1000;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "helper_kineto_big: cannot write %s\n", tmp);
        return 1;
    }
    /* the top-level members other than traceEvents, then the copies */
    fputs("{", f);
    json_object_object_foreach(doc, key, val)
    {
        if (!strcmp(key, "traceEvents")) continue;
        fprintf(f, "\"%s\": %s, ", key, json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));
    }
    fputs("\"traceEvents\": [\n", f);
    long written = 0;
    int first = 1;
    for (long k = 0; (double)written < mb * 1e6; k++) {
        for (size_t i = 0; i < ne; i++) {
            json_object *e = json_object_array_get_idx(ev, i), *v, *args = NULL;
            json_object_object_get_ex(e, "args", &args);
            int meta = json_object_object_get_ex(e, "ph", &v) && !strcmp(json_object_get_string(v), "M");
            if (meta && k > 0) continue;
            if (k > 0) {
                /* from copy k-1 to copy k */
                shift(e, "ts", span);
                shift(e, "id", 100000000);
                shift(args, "correlation", 100000000);
                shift(args, "External id", 100000000);
                const char *name = json_object_object_get_ex(e, "name", &v) ? json_object_get_string(v) : "";
                long s;
                if (s0 >= 0 && sscanf(name, "ProfilerStep#%ld", &s) == 1) {
                    char nn[64];
                    snprintf(nn, sizeof nn, "ProfilerStep#%ld", s + (s1 - s0 + 1));
                    json_object_object_add(e, "name", json_object_new_string(nn));
                }
            }
            const char *js = json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN);
            written += fprintf(f, "%s%s", first ? "" : ",\n", js);
            first = 0;
        }
    }
    fputs("\n]}\n", f);
    if (fclose(f) != 0 || rename(tmp, argv[2]) != 0) {
        fprintf(stderr, "helper_kineto_big: cannot write %s\n", argv[2]);
        remove(tmp);
        return 1;
    }
    json_object_put(doc);
    return 0;
}

#else
int main(void)
{
    fprintf(stderr, "helper_kineto_big: needs json-c and zlib (libjson-c-dev, zlib1g-dev)\n");
    return 1;
}
#endif
