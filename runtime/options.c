/* Table-driven option parsing: one tl_option table per group drives the
 * parser, --help and the "# opt:" echo lines. */
#include "runtime/options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* ---- value parsers ----------------------------------------------------- */

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
    if (errno == ERANGE && fabs(v) > 1.0) return TL_ERR_PARSE;
    if (end == text || *end != '\0' || !isfinite(v)) return TL_ERR_PARSE;
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

static int parse_bool(const char *text, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(text, yes[i]) == 0) { *out = 1; return 0; }
        if (strcmp(text, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

/* ---- storing ------------------------------------------------------------- */

static void *field(const tl_optgroup *g, const tl_option *o) { return (char *)g->dst + o->offset; }

static int has_range(const tl_option *o) { return o->min < o->max; }

/* Why `text` is not a valid value for `o` ("" when it is); stores it when valid. */
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

static int enum_index(const tl_option *o, const char *text)
{
    for (int i = 0; i < o->table_count; i++) {
        const char *name = tl_opts_enum_name(o, i);
        if (name && text && strcmp(name, text) == 0) return i;
    }
    return -1;
}

static const char *store(const tl_optgroup *g, const tl_option *o, const char *text, char *why,
                         size_t nwhy)
{
    why[0] = '\0';
    switch (o->type) {
    case TL_OPT_FLAG: {
        int b = 0;
        if (parse_bool(text, &b) != 0) return "expected 0|1|yes|no";
        *(int *)field(g, o) = b;
        return why;
    }
    case TL_OPT_INT:
    case TL_OPT_SIZE: {
        int64_t v = 0;
        tl_status st = o->type == TL_OPT_INT ? tl_opts_parse_int(text, &v) : tl_opts_parse_size(text, &v);
        if (st != TL_OK) return o->type == TL_OPT_INT ? "not an integer" : "not a size (N, NK, NM, NG)";
        if (has_range(o) && ((double)v < o->min || (double)v > o->max)) {
            snprintf(why, nwhy, "out of range [%.15g, %.15g]", o->min, o->max);
            return why;
        }
        *(int64_t *)field(g, o) = v;
        return why;
    }
    case TL_OPT_DOUBLE: {
        double v = 0;
        if (tl_opts_parse_double(text, &v) != TL_OK) return "not a number";
        if (has_range(o) && (v < o->min || v > o->max)) {
            snprintf(why, nwhy, "out of range [%.15g, %.15g]", o->min, o->max);
            return why;
        }
        *(double *)field(g, o) = v;
        return why;
    }
    case TL_OPT_CHOICE:
        if (tl_opts_choice_index(o->choices, text) < 0) {
            snprintf(why, nwhy, "expected one of %s", o->choices ? o->choices : "(none)");
            return why;
        }
        *(const char **)field(g, o) = text;
        return why;
    case TL_OPT_ENUM: {
        int i = enum_index(o, text);
        if (i < 0) {
            char list[256];
            snprintf(why, nwhy, "expected one of %s", tl_opts_enum_choices(o, list, sizeof list));
            return why;
        }
        *(int *)field(g, o) = i;
        return why;
    }
    case TL_OPT_STRING:
        *(const char **)field(g, o) = text;
        return why;
    }
    return "unknown option type";
}

static void clear(const tl_optgroup *g, const tl_option *o)
{
    switch (o->type) {
    case TL_OPT_FLAG: *(int *)field(g, o) = 0; break;
    case TL_OPT_INT:
    case TL_OPT_SIZE: *(int64_t *)field(g, o) = 0; break;
    case TL_OPT_DOUBLE: *(double *)field(g, o) = 0.0; break;
    case TL_OPT_STRING:
    case TL_OPT_CHOICE: *(const char **)field(g, o) = NULL; break;
    case TL_OPT_ENUM: *(int *)field(g, o) = 0; break;
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
            char why[160];
            const char *bad = store(g, o, o->def, why, sizeof why);
            /* a bad default is a bug in the program's table, not user input */
            TL_CHECK(bad[0] == '\0', TL_ERR_INVAL, "%s: default of --%s '%s': %s", spec->program,
                     o->name, o->def, bad);
        }
    }
    return TL_OK;
}

/* ---- lookup -------------------------------------------------------------- */

typedef struct found {
    const tl_optgroup *g;
    const tl_option *o;
} found;

static found find_long(const tl_optspec *spec, const char *name, size_t len)
{
    for (size_t gi = 0; gi < spec->ngroups; gi++)
        for (size_t i = 0; i < spec->groups[gi].nopts; i++) {
            const tl_option *o = &spec->groups[gi].opts[i];
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return (found){&spec->groups[gi], o};
        }
    return (found){NULL, NULL};
}

static found find_short(const tl_optspec *spec, char c)
{
    for (size_t gi = 0; gi < spec->ngroups; gi++)
        for (size_t i = 0; i < spec->groups[gi].nopts; i++) {
            const tl_option *o = &spec->groups[gi].opts[i];
            if (o->short_name && o->short_name == c) return (found){&spec->groups[gi], o};
        }
    return (found){NULL, NULL};
}

/* ---- parse --------------------------------------------------------------- */

static tl_status bad_value(const tl_optspec *spec, const char *shown, const char *value,
                           const char *why)
{
    /* malformed values keep the one documented form; range and choice
     * errors say what would have been accepted */
    if (why && why[0] && (strncmp(why, "out of", 6) == 0 || strncmp(why, "expected one", 12) == 0))
        fprintf(stderr, "%s: invalid %s '%s': %s (try --help)\n", spec->program, shown, value, why);
    else
        fprintf(stderr, "%s: invalid %s '%s' (try --help)\n", spec->program, shown, value);
    return TL_ERR_INVAL;
}

tl_status tl_opts_parse(const tl_optspec *spec, int argc, char **argv, tl_optresult *res)
{
    memset(res, 0, sizeof *res);
    TL_TRY(tl_opts_defaults(spec));
    char **pos = calloc((size_t)(argc > 0 ? argc : 1), sizeof *pos);
    if (!pos) return TL_FAIL(TL_ERR_NOMEM, "%d argument pointers", argc);
    int npos = 0, only_positional = 0;
    tl_status st = TL_OK;

    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (only_positional || arg[0] != '-' || arg[1] == '\0') {
            pos[npos++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        found f = {NULL, NULL};
        const char *value = NULL;
        char shown[160];
        if (arg[1] == '-') {
            const char *name = arg + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            f = find_long(spec, name, len);
            if (!f.o && len == 4 && strncmp(name, "help", 4) == 0 && !eq) {
                tl_opts_print_help(spec, stdout);
                res->exit_now = 1;
                goto done;
            }
            if (!f.o && len == 7 && strncmp(name, "version", 7) == 0 && !eq) {
                printf("%s %s (%s)\n", spec->program, TL_VERSION, TL_GIT_COMMIT);
                res->exit_now = 1;
                goto done;
            }
            if (!f.o && len > 3 && strncmp(name, "no-", 3) == 0 && !eq) {
                found neg = find_long(spec, name + 3, len - 3);
                if (neg.o && neg.o->type == TL_OPT_FLAG) {
                    *(int *)field(neg.g, neg.o) = 0;
                    continue;
                }
            }
            if (!f.o) {
                fprintf(stderr, "%s: unknown option '--%.*s' (try --help)\n", spec->program, (int)len,
                        name);
                st = TL_ERR_INVAL;
                goto done;
            }
            snprintf(shown, sizeof shown, "--%s", f.o->name);
            if (eq) value = eq + 1;
        } else {
            f = find_short(spec, arg[1]);
            if (!f.o && arg[1] == 'h' && arg[2] == '\0') {
                tl_opts_print_help(spec, stdout);
                res->exit_now = 1;
                goto done;
            }
            if (!f.o) {
                fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", spec->program, arg[1]);
                st = TL_ERR_INVAL;
                goto done;
            }
            snprintf(shown, sizeof shown, "-%c", arg[1]);
            if (arg[2] != '\0') {
                if (f.o->type == TL_OPT_FLAG) {
                    fprintf(stderr, "%s: option '-%c' takes no value, got '%s' (try --help)\n",
                            spec->program, arg[1], arg);
                    st = TL_ERR_INVAL;
                    goto done;
                }
                value = arg + 2; /* -n4 */
            }
        }
        if (f.o->type == TL_OPT_FLAG && !value) {
            *(int *)field(f.g, f.o) = 1;
            continue;
        }
        if (!value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", spec->program, shown);
                st = TL_ERR_INVAL;
                goto done;
            }
            value = argv[++i];
        }
        char why[160];
        const char *bad = store(f.g, f.o, value, why, sizeof why);
        if (bad[0]) {
            st = bad_value(spec, shown, value, bad);
            goto done;
        }
    }

    if (npos < spec->min_positional) {
        fprintf(stderr, "%s: expected %s%d argument%s, got %d (try --help)\n", spec->program,
                spec->max_positional == spec->min_positional ? "" : "at least ", spec->min_positional,
                spec->min_positional == 1 ? "" : "s", npos);
        st = TL_ERR_INVAL;
    } else if (spec->max_positional >= 0 && npos > spec->max_positional) {
        fprintf(stderr, "%s: unexpected argument '%s' (at most %d; try --help)\n", spec->program,
                pos[spec->max_positional], spec->max_positional);
        st = TL_ERR_INVAL;
    }
done:
    if (st != TL_OK || res->exit_now) {
        free(pos);
        pos = NULL;
        npos = 0;
    }
    res->positional = pos;
    res->npositional = npos;
    return st;
}

/* ---- help and echo --------------------------------------------------------- */

static void format_value(const tl_optgroup *g, const tl_option *o, char *buf, size_t n)
{
    switch (o->type) {
    case TL_OPT_FLAG: snprintf(buf, n, "%d", *(const int *)field(g, o)); break;
    case TL_OPT_INT:
    case TL_OPT_SIZE: snprintf(buf, n, "%" PRId64, *(const int64_t *)field(g, o)); break;
    case TL_OPT_DOUBLE: {
        /* shortest text that reads back as the same double */
        double v = *(const double *)field(g, o);
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(buf, n, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break;
        }
        break;
    }
    case TL_OPT_STRING:
    case TL_OPT_CHOICE: {
        const char *s = *(const char **)field(g, o);
        snprintf(buf, n, "%s", s ? s : "");
        break;
    }
    case TL_OPT_ENUM: {
        const char *s = tl_opts_enum_name(o, *(const int *)field(g, o));
        snprintf(buf, n, "%s", s ? s : "");
        break;
    }
    }
}

static void help_line(FILE *out, char short_name, const char *lhs_long, const char *help,
                      const char *def)
{
    char lhs[128];
    if (short_name)
        snprintf(lhs, sizeof lhs, "  -%c, %s", short_name, lhs_long);
    else
        snprintf(lhs, sizeof lhs, "      %s", lhs_long);
    if (strlen(lhs) > 30)
        fprintf(out, "%s\n%-32s", lhs, "");
    else
        fprintf(out, "%-32s", lhs);
    fprintf(out, "%s", help ? help : "");
    if (def) fprintf(out, " [%s]", def);
    fputc('\n', out);
}

void tl_opts_print_help(const tl_optspec *spec, FILE *out)
{
    fprintf(out, "usage: %s %s\n", spec->program, spec->usage ? spec->usage : "[options]");
    if (spec->purpose) fprintf(out, "%s\n", spec->purpose);
    for (size_t gi = 0; gi < spec->ngroups; gi++) {
        const tl_optgroup *g = &spec->groups[gi];
        fprintf(out, "\n%s:\n", g->title ? g->title : "Options");
        for (size_t i = 0; i < g->nopts; i++) {
            const tl_option *o = &g->opts[i];
            char lhs[128], list[256];
            const char *def = o->def;
            const char *choices = o->type == TL_OPT_ENUM ? tl_opts_enum_choices(o, list, sizeof list)
                                  : o->type == TL_OPT_CHOICE ? o->choices : NULL;
            if (o->type == TL_OPT_FLAG) {
                int on = 0;
                snprintf(lhs, sizeof lhs, "--%s", o->name);
                def = (o->def && parse_bool(o->def, &on) == 0 && on) ? "on" : "off";
            } else {
                const char *mv = o->metavar ? o->metavar
                                 : choices ? choices
                                 : o->type == TL_OPT_DOUBLE ? "X"
                                 : o->type == TL_OPT_STRING ? "S" : "N";
                snprintf(lhs, sizeof lhs, "--%s %s", o->name, mv);
            }
            char help[512];
            if (choices && o->metavar)
                snprintf(help, sizeof help, "%s (%s)", o->help ? o->help : "", choices);
            else
                snprintf(help, sizeof help, "%s", o->help ? o->help : "");
            help_line(out, o->short_name, lhs, help, def);
        }
    }
    fprintf(out, "\nGeneral:\n");
    help_line(out, 'h', "--help", "show this help and exit", NULL);
    help_line(out, 0, "--version", "print the version and git commit and exit", NULL);
}

void tl_opts_echo(const tl_optspec *spec, FILE *out, const char *line_prefix)
{
    const char *prefix = line_prefix ? line_prefix : "# opt: ";
    for (size_t gi = 0; gi < spec->ngroups; gi++) {
        const tl_optgroup *g = &spec->groups[gi];
        for (size_t i = 0; i < g->nopts; i++) {
            char val[256];
            format_value(g, &g->opts[i], val, sizeof val);
            fprintf(out, "%s%s=%s\n", prefix, g->opts[i].name, val);
        }
    }
}
