/* What a Kineto event's fields and arguments say, as the reader takes
 * them: numbers, integers and strings, the event's kind, a communication
 * op's message size (from its element count and dtype, or its tensors)
 * and process group ranks, a ProfilerStep's number. */
#include "analysis/kineto_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int tl_kt_arg_num(const tl_json *o, const char *key, double *v, int *is_double)
{
    const tl_json *x = tl_json_get(o, key);
    tl_json_type ty = tl_json_type_of(x);
    if (!x || (ty != TL_JSON_INT && ty != TL_JSON_DOUBLE)) return 0;
    *v = tl_json_double(x);
    if (is_double) *is_double = ty == TL_JSON_DOUBLE;
    return 1;
}

/* An integer argument: ints, integral doubles and numeric strings (HTA's
 * pd.to_numeric); `def` otherwise. */
int64_t tl_kt_arg_int(const tl_json *o, const char *key, int64_t def)
{
    const tl_json *x = tl_json_get(o, key);
    switch (tl_json_type_of(x)) {
    case TL_JSON_INT: return tl_json_int(x);
    case TL_JSON_DOUBLE: {
        double d = tl_json_double(x);
        return isfinite(d) && fabs(d) < 9e18 ? (int64_t)d : def;
    }
    case TL_JSON_STRING: {
        const char *s = tl_json_string(x);
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        return errno == 0 && end != s && *end == '\0' ? v : def;
    }
    default: return def;
    }
}

const char *tl_kt_arg_str(const tl_json *o, const char *key)
{
    return tl_json_string(tl_json_get(o, key));
}

tl_kt_kind tl_kt_kind_of(const char *cat)
{
    if (!strcasecmp(cat, "kernel")) return TL_KT_KERNEL;
    if (!strcasecmp(cat, "gpu_memcpy") || !strcasecmp(cat, "memcpy")) return TL_KT_MEMCPY;
    if (!strcasecmp(cat, "gpu_memset") || !strcasecmp(cat, "memset")) return TL_KT_MEMSET;
    if (!strcasecmp(cat, "cuda_sync")) return TL_KT_SYNC;
    if (!strcasecmp(cat, "cuda_runtime") || !strcasecmp(cat, "cuda_driver") || !strcasecmp(cat, "runtime") ||
        !strcasecmp(cat, "driver"))
        return TL_KT_RUNTIME;
    return TL_KT_OTHER;
}

int tl_kt_is_comm_op(const char *name)
{
    return !strcmp(name, "record_param_comms") || !strncmp(name, "nccl:", 5) || !strncmp(name, "c10d::", 6);
}

/* Bytes of one element of a PyTorch dtype as the profiler names it
 * (record_param_comms' "dtype": Float, BFloat16; nccl:*'s "Input type":
 * float, c10::Half); 0 when unknown. */
static int dtype_bytes(const char *d)
{
    static const struct {
        const char *name;
        int bytes;
    } tab[] = {{"float", 4},     {"double", 8},   {"half", 2},    {"c10::half", 2}, {"bfloat16", 2},
               {"c10::bfloat16", 2}, {"int", 4},  {"long", 8},    {"long int", 8}, {"short", 2},
               {"byte", 1},      {"char", 1},     {"bool", 1},    {"signed char", 1}, {"unsigned char", 1},
               {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"complexfloat", 8}, {"complexdouble", 16}};
    for (size_t i = 0; d && i < sizeof tab / sizeof tab[0]; i++)
        if (!strcasecmp(d, tab[i].name)) return tab[i].bytes;
    return 0;
}

/* The message of a communication op in bytes, -1 when the event does not
 * say: record_param_comms' "In msg nelems" x "dtype", else the tensors of
 * "Input Dims" whose "Input type" has a known size (nccl:* ops). */
int64_t tl_kt_message_bytes(const tl_json *args)
{
    int64_t n = tl_kt_arg_int(args, "In msg nelems", -1);
    int b = dtype_bytes(tl_kt_arg_str(args, "dtype"));
    if (n >= 0 && b) return n <= ((int64_t)1 << 50) / b ? n * b : -1; /* a claim beyond 1 PB: none */
    const tl_json *dims = tl_json_get(args, "Input Dims"), *types = tl_json_get(args, "Input type");
    if (!tl_json_is(dims, TL_JSON_ARRAY) || !tl_json_is(types, TL_JSON_ARRAY)) return -1;
    int64_t total = -1;
    size_t nt = tl_json_length(dims);
    for (size_t i = 0; i < nt && i < tl_json_length(types); i++) {
        const tl_json *ty = tl_json_at(types, i), *d = tl_json_at(dims, i);
        int eb = tl_json_is(ty, TL_JSON_STRING) ? dtype_bytes(tl_json_string(ty)) : 0;
        if (!eb || !tl_json_is(d, TL_JSON_ARRAY) || !tl_json_length(d)) continue;
        int64_t p = eb;
        for (size_t k = 0; k < tl_json_length(d) && p >= 0; k++) {
            /* a claim past 2^50 bytes is no tensor: dropped, not wrapped
             * (a dimension read as json-c read one, whatever its type) */
            int64_t x = tl_json_to_int64(tl_json_at(d, k));
            if (x < 0 || (x > 0 && p > ((int64_t)1 << 50) / x)) p = -1;
            else p *= x;
        }
        if (p >= 0) total = (total < 0 ? 0 : total) + p;
    }
    return total;
}

/* "Process Group Ranks" ("[0, 1, 2, 3]") as "ranks 0-3" (a contiguous
 * set) or "ranks 0,2,4,6" (the first eight, then "..."); "" without. */
void tl_kt_pg_ranks_say(const char *s, char *out, size_t n)
{
    out[0] = '\0';
    if (!s || *s != '[') return;
    long long first = -1, prev = -1, cnt = 0;
    int contiguous = 1;
    char list[96] = "";
    size_t len = 0;
    for (const char *p = s + 1; *p;) {
        char *end = NULL;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        if (cnt == 0) first = v;
        else if (v != prev + 1) contiguous = 0;
        if (cnt < 8 && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%lld", cnt ? "," : "", v);
        prev = v;
        cnt++;
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    if (!cnt) return;
    if (contiguous && cnt > 1) snprintf(out, n, "ranks %lld-%lld", first, prev);
    else snprintf(out, n, "rank%s %s%s", cnt > 1 ? "s" : "", list, cnt > 8 ? ",..." : "");
}

/* "ProfilerStep#N" (HTA's ^ProfilerStep#(\d+)): N, or -1. */
int64_t tl_kt_step_number(const char *name)
{
    if (strncmp(name, "ProfilerStep#", 13) != 0) return -1;
    const char *p = name + 13;
    if (*p < '0' || *p > '9') return -1;
    int64_t n = 0;
    while (*p >= '0' && *p <= '9' && n <= KT_MAX_STEP) n = n * 10 + (*p++ - '0');
    return n;
}
