/* Option values read from text (integers, sizes, doubles, booleans, a
 * word of an "a|b|c" list) and the names of an ENUM option's table: what
 * the parser stores and --help lists. */
#include "runtime/options.h"
#include "runtime/options_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_status tl_opts_parse_int(const char *text, int64_t *out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return TL_ERR_PARSE;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') return TL_ERR_PARSE;
    *out = (int64_t)v;
    return TL_OK;
}

tl_status tl_opts_parse_size(const char *text, int64_t *out)
{
    if (!text || !*text || !isdigit((unsigned char)*text)) return TL_ERR_PARSE;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text) return TL_ERR_PARSE;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return TL_ERR_PARSE;
    }
    /* "64K" and "64KB" / "64KiB" all mean 65536 */
    if (shift && (strcmp(end, "B") == 0 || strcmp(end, "iB") == 0)) end += strlen(end);
    if (*end != '\0') return TL_ERR_PARSE;
    if (v > ((unsigned long long)INT64_MAX >> shift)) return TL_ERR_PARSE;
    *out = (int64_t)(v << shift);
    return TL_OK;
}

tl_status tl_opts_parse_double(const char *text, double *out)
{
    if (!text || !*text || isspace((unsigned char)*text)) return TL_ERR_PARSE;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    /* beyond a double either way: 1e400, and 1e-400, which would be read as 0
     * (--rtol 1e-400 turned a solve into a fixed-iteration benchmark), and
     * a subnormal (1e-310), which keeps fewer digits than typed */
    if (errno == ERANGE) return TL_ERR_PARSE; /* errno stays ERANGE: tl_opts_store() says so */
    if (end == text || *end != '\0' || !isfinite(v)) return TL_ERR_PARSE;
    /* strtod reads C99 hexadecimal floats too (0x1p-3): no user of a
     * tolerance or a size means one, and a typo like "0x5" would run */
    const char *digits = text + (*text == '+' || *text == '-');
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) return TL_ERR_PARSE;
    *out = v;
    return TL_OK;
}

int tl_opts_choice_index(const char *choices, const char *value)
{
    if (!choices || !value) return -1;
    size_t vlen = strlen(value);
    int idx = 0;
    for (const char *p = choices;; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vlen && strncmp(p, value, len) == 0) return idx;
        if (!bar) return -1;
        p = bar + 1;
    }
}

int tl_opts_parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(text, yes[i]) == 0) { *out = 1; return 0; }
        if (strcmp(text, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

/* ---- an ENUM option's names ----------------------------------------------- */

const char *tl_opts_enum_name(const tl_option *o, int i)
{
    if (!o->table || i < 0 || i >= o->table_count) return NULL;
    return *(const char *const *)((const char *)o->table + (size_t)i * o->table_stride);
}

const char *tl_opts_enum_choices(const tl_option *o, char *buf, size_t n)
{
    size_t len = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < o->table_count && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s", i ? "|" : "", tl_opts_enum_name(o, i));
        if (w < 0) break;
        len += (size_t)w;
    }
    return buf;
}

int tl_opts_enum_index(const tl_option *o, const char *text)
{
    for (int i = 0; i < o->table_count; i++) {
        const char *name = tl_opts_enum_name(o, i);
        if (name && text && strcmp(name, text) == 0) return i;
    }
    return -1;
}
