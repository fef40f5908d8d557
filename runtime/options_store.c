/* A value stored into its option's field, checked against the option's
 * type and range (one reason on refusal), and every field set to its
 * default before argv is read. */
#include "runtime/options.h"
#include "runtime/options_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *tl_opts_field(const tl_optgroup *g, const tl_option *o) { return (char *)g->dst + o->offset; }

static int has_range(const tl_option *o) { return o->min < o->max; }

/* A count option (count_of) typed with a byte unit ("64KB", "1KiB"),
 * parsed to v: why says both readings; 1 when refused. */
static int count_in_bytes(const tl_option *o, const char *text, int64_t v, char *why, size_t nwhy)
{
    size_t n = strlen(text);
    if (!o->count_of || o->count_bytes <= 0 || n < 2 || text[n - 1] != 'B') return 0;
    size_t unit = text[n - 2] == 'i' ? 2 : 1; /* "KiB" or "KB" */
    snprintf(why, nwhy, "a count of %s, not bytes: give %.*s for %lld %s, or %lld for %lld bytes", o->count_of,
             (int)(n - unit), text, (long long)v, o->count_of, (long long)(v / o->count_bytes), (long long)v);
    return 1;
}

/* Stores `text` into o's field when valid; otherwise says why in `why`
 * ("out of range ..." / "expected one of ..." are shown to the user, the
 * other reasons stand behind the one documented form) and stores nothing. */
tl_status tl_opts_store(const tl_optgroup *g, const tl_option *o, const char *text, char *why, size_t nwhy)
{
    why[0] = '\0';
    switch (o->type) {
    case TL_OPT_FLAG: {
        int b = 0;
        if (tl_opts_parse_bool(text, &b) != 0) {
            snprintf(why, nwhy, "expected 0|1|yes|no");
            return TL_ERR_PARSE;
        }
        *(int *)tl_opts_field(g, o) = b;
        return TL_OK;
    }
    case TL_OPT_INT:
    case TL_OPT_SIZE: {
        int64_t v = 0;
        tl_status st = o->type == TL_OPT_INT ? tl_opts_parse_int(text, &v) : tl_opts_parse_size(text, &v);
        if (st != TL_OK) {
            snprintf(why, nwhy, "%s", o->type == TL_OPT_INT ? "not an integer" : "not a size (N, NK, NM, NG)");
            return TL_ERR_PARSE;
        }
        if (has_range(o) && ((double)v < o->min || (double)v > o->max)) {
            snprintf(why, nwhy, "out of range [%.15g, %.15g]", o->min, o->max);
            return TL_ERR_INVAL;
        }
        if (o->type == TL_OPT_SIZE && count_in_bytes(o, text, v, why, nwhy)) return TL_ERR_INVAL;
        *(int64_t *)tl_opts_field(g, o) = v;
        return TL_OK;
    }
    case TL_OPT_DOUBLE: {
        double v = 0;
        if (tl_opts_parse_double(text, &v) != TL_OK) {
            /* 1e-310 is below a normal double, not beyond every double */
            const int range = errno == ERANGE, small = range && fabs(strtod(text, NULL)) < 1;
            snprintf(why, nwhy, !range ? "not a number"
                                : small ? "below the smallest normal double (2.2e-308 in magnitude)"
                                        : "beyond the range of a double (1.8e308 in magnitude)");
            return TL_ERR_PARSE;
        }
        if (has_range(o) && (v < o->min || v > o->max)) {
            snprintf(why, nwhy, "out of range [%.15g, %.15g]", o->min, o->max);
            return TL_ERR_INVAL;
        }
        *(double *)tl_opts_field(g, o) = v;
        return TL_OK;
    }
    case TL_OPT_ENUM: {
        int i = tl_opts_enum_index(o, text);
        if (i < 0) {
            size_t len = (size_t)snprintf(why, nwhy, "expected one of ");
            if (len < nwhy) tl_opts_enum_choices(o, why + len, nwhy - len);
            return TL_ERR_INVAL;
        }
        *(int *)tl_opts_field(g, o) = i;
        return TL_OK;
    }
    case TL_OPT_STRING:
        *(const char **)tl_opts_field(g, o) = text;
        return TL_OK;
    }
    snprintf(why, nwhy, "unknown option type %d", (int)o->type);
    return TL_ERR_INVAL;
}

static void clear(const tl_optgroup *g, const tl_option *o)
{
    switch (o->type) {
    case TL_OPT_FLAG: *(int *)tl_opts_field(g, o) = 0; break;
    case TL_OPT_INT:
    case TL_OPT_SIZE: *(int64_t *)tl_opts_field(g, o) = 0; break;
    case TL_OPT_DOUBLE: *(double *)tl_opts_field(g, o) = 0.0; break;
    case TL_OPT_STRING: *(const char **)tl_opts_field(g, o) = NULL; break;
    case TL_OPT_ENUM: *(int *)tl_opts_field(g, o) = 0; break;
    }
}

tl_status tl_opts_defaults(const tl_optspec *spec)
{
    for (size_t gi = 0; gi < spec->ngroups; gi++) {
        const tl_optgroup *g = &spec->groups[gi];
        for (size_t i = 0; i < g->nopts; i++) {
            const tl_option *o = &g->opts[i];
            clear(g, o);
            if (!o->def) continue;
            char why[1024];
            /* a bad default is a bug in the program's table, not user input */
            if (tl_opts_store(g, o, o->def, why, sizeof why) != TL_OK)
                return TL_FAIL(TL_ERR_INVAL, "%s: internal error: the default of --%s, '%s', is invalid: %s",
                               spec->program, o->name, o->def, why);
        }
    }
    return TL_OK;
}
