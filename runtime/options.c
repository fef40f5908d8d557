/* Table-driven option parsing: one tl_option table per group drives the
 * parser, --help and the "# opt:" echo lines. */
#include "runtime/options.h"
#include "runtime/out.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
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
    /* beyond a double either way: 1e400, and 1e-400, which would be read as 0
     * (--rtol 1e-400 turned a solve into a fixed-iteration benchmark), and
     * a subnormal (1e-310), which keeps fewer digits than typed */
    if (errno == ERANGE) return TL_ERR_PARSE; /* errno stays ERANGE: store() says so */
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
static tl_status store(const tl_optgroup *g, const tl_option *o, const char *text, char *why, size_t nwhy)
{
    why[0] = '\0';
    switch (o->type) {
    case TL_OPT_FLAG: {
        int b = 0;
        if (parse_bool(text, &b) != 0) {
            snprintf(why, nwhy, "expected 0|1|yes|no");
            return TL_ERR_PARSE;
        }
        *(int *)field(g, o) = b;
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
        *(int64_t *)field(g, o) = v;
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
        *(double *)field(g, o) = v;
        return TL_OK;
    }
    case TL_OPT_ENUM: {
        int i = enum_index(o, text);
        if (i < 0) {
            size_t len = (size_t)snprintf(why, nwhy, "expected one of ");
            if (len < nwhy) tl_opts_enum_choices(o, why + len, nwhy - len);
            return TL_ERR_INVAL;
        }
        *(int *)field(g, o) = i;
        return TL_OK;
    }
    case TL_OPT_STRING:
        *(const char **)field(g, o) = text;
        return TL_OK;
    }
    snprintf(why, nwhy, "unknown option type %d", (int)o->type);
    return TL_ERR_INVAL;
}

static void clear(const tl_optgroup *g, const tl_option *o)
{
    switch (o->type) {
    case TL_OPT_FLAG: *(int *)field(g, o) = 0; break;
    case TL_OPT_INT:
    case TL_OPT_SIZE: *(int64_t *)field(g, o) = 0; break;
    case TL_OPT_DOUBLE: *(double *)field(g, o) = 0.0; break;
    case TL_OPT_STRING: *(const char **)field(g, o) = NULL; break;
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
            char why[1024];
            /* a bad default is a bug in the program's table, not user input */
            if (store(g, o, o->def, why, sizeof why) != TL_OK)
                return TL_FAIL(TL_ERR_INVAL, "%s: internal error: the default of --%s, '%s', is invalid: %s",
                               spec->program, o->name, o->def, why);
        }
    }
    return TL_OK;
}

/* ---- lookup -------------------------------------------------------------- */

typedef struct found {
    const tl_optgroup *g;
    const tl_option *o;
    int by_alias; /* matched one of o->aliases, an old name */
} found;

static found find_long(const tl_optspec *spec, const char *name, size_t len)
{
    for (size_t gi = 0; gi < spec->ngroups; gi++)
        for (size_t i = 0; i < spec->groups[gi].nopts; i++) {
            const tl_option *o = &spec->groups[gi].opts[i];
            if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return (found){&spec->groups[gi], o, 0};
        }
    /* the current names first: an alias never shadows an option */
    for (size_t gi = 0; gi < spec->ngroups; gi++)
        for (size_t i = 0; i < spec->groups[gi].nopts; i++) {
            const tl_option *o = &spec->groups[gi].opts[i];
            for (const char *p = o->aliases; p && *p;) {
                const char *bar = strchr(p, '|');
                size_t alen = bar ? (size_t)(bar - p) : strlen(p);
                if (alen == len && strncmp(p, name, len) == 0) return (found){&spec->groups[gi], o, 1};
                p = bar ? bar + 1 : p + alen;
            }
        }
    return (found){NULL, NULL, 0};
}

static found find_short(const tl_optspec *spec, char c)
{
    for (size_t gi = 0; gi < spec->ngroups; gi++)
        for (size_t i = 0; i < spec->groups[gi].nopts; i++) {
            const tl_option *o = &spec->groups[gi].opts[i];
            if (o->short_name && o->short_name == c) return (found){&spec->groups[gi], o, 0};
        }
    return (found){NULL, NULL, 0};
}

/* 1 when arg names one of spec's options (--name, --name=..., --no-FLAG,
 * -x, or a built-in): given where a value was due, it is a forgotten
 * value, not the value (`--results --overlap` wrote the results into a
 * file named --overlap and ran without overlap) */
static int names_an_option(const tl_optspec *spec, const char *arg)
{
    if (arg[0] != '-' || !arg[1]) return 0;
    if (arg[1] != '-') return isalpha((unsigned char)arg[1]) && (find_short(spec, arg[1]).o || arg[1] == 'h');
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (find_long(spec, name, len).o) return 1;
    if (len > 3 && !strncmp(name, "no-", 3) && find_long(spec, name + 3, len - 3).o) return 1;
    static const char *const builtin[] = {"help", "version", "debug"};
    for (size_t k = 0; k < sizeof builtin / sizeof builtin[0]; k++)
        if (strlen(builtin[k]) == len && !strncmp(builtin[k], name, len)) return 1;
    return 0;
}

/* ---- parse --------------------------------------------------------------- */

static tl_status bad_value(const tl_optspec *spec, const char *shown, const char *value,
                           const char *why)
{
    /* the reason, whatever it is: "invalid --iters 'abc'" alone left the
     * user to guess whether a number, a size or a name was wanted */
    if (why && why[0]) fprintf(stderr, "%s: invalid %s '%s': %s (try --help)\n", spec->program, shown, value, why);
    else fprintf(stderr, "%s: invalid %s '%s' (try --help)\n", spec->program, shown, value);
    return TL_ERR_INVAL;
}

/* An old name still works for one release; the note says what replaces it
 * so that scripts are changed before it goes. */
static void alias_note(const tl_optspec *spec, const char *name, size_t len, const tl_option *o)
{
    fprintf(stderr, "%s: note: --%.*s is now --%s; the old name will be removed in the next release\n",
            spec->program, (int)len, name, o->name);
}

/* What one argument asked of the parser: take its option's value, go on
 * to the next argument (it was handled whole), or stop (help, version, an
 * error in *st). */
enum { ARG_VALUE, ARG_NEXT, ARG_DONE };

/* --name[=value], --no-name, and the built-in --help, --version, --debug. */
static int long_option(const tl_optspec *spec, const char *name, found *f, const char **value,
                       char *shown, size_t cap, tl_optresult *res, const void **given, const char **typed,
                       int *ngiven, tl_status *st)
{
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    *f = find_long(spec, name, len);
    if (!f->o && len == 4 && strncmp(name, "help", 4) == 0 && !eq) {
        tl_opts_print_help(spec, stdout);
        res->exit_now = 1;
        return ARG_DONE;
    }
    if (!f->o && len == 7 && strncmp(name, "version", 7) == 0 && !eq) {
        printf("%s %s (%s)\n", spec->program, TL_VERSION, TL_GIT_COMMIT);
        res->exit_now = 1;
        return ARG_DONE;
    }
    if (!f->o && len == 5 && strncmp(name, "debug", 5) == 0 && !eq) {
        /* through the environment, which error.c reads: every rank,
         * thread or process, sees it without a global of our own */
        setenv("TRILAP_DEBUG", "1", 1);
        return ARG_NEXT;
    }
    if (!f->o && len > 3 && strncmp(name, "no-", 3) == 0 && !eq) {
        found neg = find_long(spec, name + 3, len - 3);
        /* --no-no-gpu: a flag whose name is already a negative has no
         * negated form (its default is off: leave it out) */
        if (neg.o && neg.o->type == TL_OPT_FLAG && strncmp(neg.o->name, "no-", 3) == 0) {
            fprintf(stderr, "%s: unknown option '--%.*s': --%s has no negated form; leave it out (it is off unless given)\n",
                    spec->program, (int)len, name, neg.o->name);
            *st = TL_ERR_INVAL;
            return ARG_DONE;
        }
        if (neg.o && neg.o->type == TL_OPT_FLAG) {
            if (neg.by_alias) alias_note(spec, name + 3, len - 3, neg.o);
            *(int *)field(neg.g, neg.o) = 0;
            typed[*ngiven] = neg.by_alias ? name + 3 : NULL;
            given[(*ngiven)++] = field(neg.g, neg.o);
            return ARG_NEXT;
        }
    }
    if (!f->o) {
        fprintf(stderr, "%s: unknown option '--%.*s' (try --help)\n", spec->program, (int)len, name);
        *st = TL_ERR_INVAL;
        return ARG_DONE;
    }
    if (f->by_alias) alias_note(spec, name, len, f->o);
    snprintf(shown, cap, "--%s", f->o->name);
    if (eq) *value = eq + 1;
    return ARG_VALUE;
}

/* -x, -xVALUE, and the built-in -h. */
static int short_option(const tl_optspec *spec, const char *arg, found *f, const char **value,
                        char *shown, size_t cap, tl_optresult *res, tl_status *st)
{
    *f = find_short(spec, arg[1]);
    if (!f->o && arg[1] == 'h' && arg[2] == '\0') {
        tl_opts_print_help(spec, stdout);
        res->exit_now = 1;
        return ARG_DONE;
    }
    if (!f->o) {
        fprintf(stderr, "%s: unknown option '-%c' (try --help)\n", spec->program, arg[1]);
        *st = TL_ERR_INVAL;
        return ARG_DONE;
    }
    snprintf(shown, cap, "-%c", arg[1]);
    if (arg[2] != '\0') {
        if (f->o->type == TL_OPT_FLAG) {
            fprintf(stderr, "%s: option '-%c' takes no value, got '%s' (try --help)\n",
                    spec->program, arg[1], arg);
            *st = TL_ERR_INVAL;
            return ARG_DONE;
        }
        *value = arg + 2; /* -n4 */
    }
    return ARG_VALUE;
}

/* The option whose field is field_ptr in spec's groups, or NULL */
static const tl_option *option_at(const tl_optspec *spec, const void *field_ptr)
{
    for (size_t g = 0; g < spec->ngroups; g++)
        for (size_t i = 0; i < spec->groups[g].nopts; i++)
            if (field(&spec->groups[g], &spec->groups[g].opts[i]) == field_ptr) return &spec->groups[g].opts[i];
    return NULL;
}

/* An option given more than once keeps its last value, as a wrapper's
 * defaults before "$@" are meant to be overridden (as sbatch's command
 * line overrides its #SBATCH lines); said once per option, at its last
 * occurrence, so that a value dropped by a slip (--grid 16 ... --grid 20)
 * is seen. typed[k]: the old name occurrence k was typed under, or NULL. */
static void note_repeats(const tl_optspec *spec, const void *const *given, const char *const *typed, int ngiven)
{
    for (int j = 0; j < ngiven; j++) {
        int later = 0, before = 0, first = j;
        for (int k = 0; k < ngiven; k++) {
            if (k == j || given[k] != given[j]) continue;
            if (k > j) later = 1;
            else if (before++ == 0) first = k;
        }
        const tl_option *o = later || !before ? NULL : option_at(spec, given[j]);
        if (!o) continue;
        const char *a = typed[first] ? typed[first] : o->name, *b = typed[j] ? typed[j] : o->name;
        int na = (int)strcspn(a, "="), nb = (int)strcspn(b, "=");
        char what[160], times[32];
        if (before == 1) snprintf(times, sizeof times, "twice");
        else snprintf(times, sizeof times, "%d times", before + 1);
        if (na != nb || strncmp(a, b, (size_t)na) != 0)
            snprintf(what, sizeof what, "--%.*s and --%.*s are one option, given %s", na, a, nb, b, times);
        else if (o->type == TL_OPT_FLAG)
            snprintf(what, sizeof what, "--%s (or --no-%s) is given %s", o->name, o->name, times);
        else
            snprintf(what, sizeof what, "--%s is given %s", o->name, times);
        fprintf(stderr, "%s: note: %s; the last one given is used\n", spec->program, what);
    }
}

tl_status tl_opts_parse(const tl_optspec *spec, int argc, char **argv, tl_optresult *res)
{
    memset(res, 0, sizeof *res);
    TL_TRY(tl_opts_defaults(spec));
    /* one block: the positional pointers, then the fields argv set (one
     * free() releases both) */
    size_t slots = (size_t)(argc > 0 ? argc : 1);
    void **block = calloc(3 * slots, sizeof(void *));
    if (!block) return TL_FAIL(TL_ERR_NOMEM, "%d argument pointers", argc);
    char **pos = (char **)block;
    const void **given = (const void **)(block + slots);
    const char **typed = (const char **)(block + 2 * slots);
    int npos = 0, ngiven = 0, only_positional = 0;
    tl_status st = TL_OK;

    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        /* a negative number is an argument, not an option: `matgen
         * poisson7 -3` said "unknown option '-3'", never what was wrong
         * with the size (no short option is a digit) */
        int negative = arg[0] == '-' && (isdigit((unsigned char)arg[1]) || arg[1] == '.') && !find_short(spec, arg[1]).o;
        if (only_positional || arg[0] != '-' || arg[1] == '\0' || negative) {
            pos[npos++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        found f = {NULL, NULL, 0};
        const char *value = NULL;
        char shown[160];
        int act = arg[1] == '-' ? long_option(spec, arg + 2, &f, &value, shown, sizeof shown, res,
                                              given, typed, &ngiven, &st)
                                : short_option(spec, arg, &f, &value, shown, sizeof shown, res, &st);
        if (act == ARG_DONE) goto done;
        if (act == ARG_NEXT) continue;
        typed[ngiven] = f.by_alias ? arg + 2 : NULL;
        if (f.o->type == TL_OPT_FLAG && !value) {
            *(int *)field(f.g, f.o) = 1;
            given[ngiven++] = field(f.g, f.o);
            continue;
        }
        if (!value) {
            if (i + 1 >= argc) {
                fprintf(stderr, "%s: option '%s' needs a value (try --help)\n", spec->program, shown);
                st = TL_ERR_INVAL;
                goto done;
            }
            if (names_an_option(spec, argv[i + 1])) {
                fprintf(stderr, "%s: option '%s' needs a value, and '%s' is an option (a value that is one: "
                                "%s=%s; try --help)\n",
                        spec->program, shown, argv[i + 1], shown, argv[i + 1]);
                st = TL_ERR_INVAL;
                goto done;
            }
            value = argv[++i];
        }
        char why[1024];
        if (store(f.g, f.o, value, why, sizeof why) != TL_OK) {
            st = bad_value(spec, shown, value, why);
            goto done;
        }
        given[ngiven++] = field(f.g, f.o);
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
    if (st == TL_OK) note_repeats(spec, given, typed, ngiven);
done:
    if (st != TL_OK || res->exit_now) {
        free(block);
        pos = NULL;
        given = NULL;
        typed = NULL;
        npos = ngiven = 0;
    }
    res->positional = pos;
    res->npositional = npos;
    res->given = given;
    res->typed = typed;
    res->ngiven = ngiven;
    return st;
}

const char *tl_opts_typed_name(const tl_optresult *res, const void *field_ptr, const char *name, char *buf, size_t n)
{
    for (int i = res->ngiven - 1; i >= 0; i--)
        if (res->given[i] == field_ptr) {
            if (!res->typed[i]) return name;
            snprintf(buf, n, "%.*s", (int)strcspn(res->typed[i], "="), res->typed[i]);
            return buf;
        }
    return name;
}

int tl_opts_given(const tl_optresult *res, const void *field_ptr)
{
    for (int i = 0; i < res->ngiven; i++)
        if (res->given[i] == field_ptr) return 1;
    return 0;
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
    case TL_OPT_STRING: {
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

/* Help lines: the option at the left, its text from column 32, words
 * wrapped before column 100 and nothing cut, however long a list of
 * choices or a text grows (a cut list hid the default kernel once). */
enum { HELP_COL = 32, HELP_WIDTH = 100 };

static void put_wrapped(FILE *out, const char *text, int col)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        const char *w = p;
        while (*p && *p != ' ') p++;
        int wl = (int)(p - w);
        if (wl == 0) break;
        if (col > HELP_COL && col + 1 + wl > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COL, "");
            col = HELP_COL;
        } else if (col > HELP_COL) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", wl, w);
        col += wl;
    }
    fputc('\n', out);
}

/* A help text that gives its own default ("[16]; energy: [64]"): a
 * bracket after a blank or first. One inside a word is syntax
 * (gen:KIND:N[:PECLET], trilap[:T]), and hid the table's default. */
static int states_default(const char *help)
{
    return help && (help[0] == '[' || strstr(help, " ["));
}

static void help_line(FILE *out, char short_name, const char *lhs_long, const char *lhs_arg,
                      const char *help, const char *choices, const char *def)
{
    int col = short_name ? fprintf(out, "  -%c, --%s", short_name, lhs_long) : fprintf(out, "      --%s", lhs_long);
    if (lhs_arg) col += fprintf(out, " %s", lhs_arg);
    if (col > HELP_COL - 2) {
        fputc('\n', out);
        col = 0;
    }
    fprintf(out, "%*s", HELP_COL - col, "");
    /* one text, then wrapped: help, the choices where the metavar hid them,
     * and the default in brackets unless the text states its own */
    size_t n = strlen(help ? help : "") + (choices ? strlen(choices) + 3 : 0) + (def ? strlen(def) + 3 : 0) + 1;
    char *text = malloc(n);
    if (!text) {
        fprintf(out, "%s\n", help ? help : "");
        return;
    }
    size_t len = (size_t)snprintf(text, n, "%s", help ? help : "");
    if (choices) len += (size_t)snprintf(text + len, n - len, "%s(%s)", len ? " " : "", choices);
    if (def && !states_default(help)) snprintf(text + len, n - len, "%s[%s]", len ? " " : "", def);
    put_wrapped(out, text, HELP_COL);
    free(text);
}

void tl_opts_print_help(const tl_optspec *spec, FILE *out)
{
    fprintf(out, "usage: %s%s%s %s\n", spec->program, spec->command ? " " : "", spec->command ? spec->command : "",
            spec->usage ? spec->usage : "[options]");
    if (spec->purpose) fprintf(out, "%s\n", spec->purpose);
    for (size_t gi = 0; gi < spec->ngroups; gi++) {
        const tl_optgroup *g = &spec->groups[gi];
        if (g->nopts == 0) continue; /* a shared group this command takes nothing of */
        fprintf(out, "\n%s:\n", g->title ? g->title : "Options");
        for (size_t i = 0; i < g->nopts; i++) {
            const tl_option *o = &g->opts[i];
            char *list = NULL;
            const char *def = o->def, *choices = NULL, *arg = NULL;
            if (o->type == TL_OPT_ENUM) {
                size_t n = 1;
                for (int k = 0; k < o->table_count; k++) n += strlen(tl_opts_enum_name(o, k)) + 1;
                list = malloc(n);
                if (list) choices = tl_opts_enum_choices(o, list, n);
            }
            if (o->type == TL_OPT_FLAG) {
                int on = 0;
                def = (o->def && parse_bool(o->def, &on) == 0 && on) ? "on" : "off";
            } else {
                arg = o->metavar ? o->metavar
                      : choices ? choices
                      : o->type == TL_OPT_DOUBLE ? "X"
                      : o->type == TL_OPT_STRING ? "S" : "N";
            }
            help_line(out, o->short_name, o->name, arg, o->help, choices && o->metavar ? choices : NULL, def);
            free(list);
        }
    }
    fprintf(out, "\nGeneral:\n");
    help_line(out, 'h', "help", NULL, "show this help and exit", NULL, NULL);
    help_line(out, 0, "version", NULL, "print the version and git commit and exit", NULL, NULL);
    help_line(out, 0, "debug", NULL,
              "errors name the source file and line, the failing check and the call frames (as TRILAP_DEBUG=1)",
              NULL, NULL);
}

void tl_opts_echo(const tl_optspec *spec, FILE *out, const char *line_prefix)
{
    const char *prefix = line_prefix ? line_prefix : "# opt: ";
    for (size_t gi = 0; gi < spec->ngroups; gi++) {
        const tl_optgroup *g = &spec->groups[gi];
        for (size_t i = 0; i < g->nopts; i++) {
            const tl_option *o = &g->opts[i];
            char val[64];
            fprintf(out, "%s%s=", prefix, o->name);
            /* a string whole, on its one line: a path is not cut at 255
             * bytes, and a newline in a label does not start a line of
             * data under the prefix (it is written as a space, as the
             * trace's metadata writes it) */
            const char *s = o->type == TL_OPT_STRING ? *(const char *const *)field(g, o) : NULL;
            if (o->type != TL_OPT_STRING) format_value(g, o, val, sizeof val);
            for (const char *c = o->type == TL_OPT_STRING ? (s ? s : "") : val; *c; c++)
                fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
            fputc('\n', out);
        }
    }
}

const char *tl_opts_string_of(const tl_optspec *spec, const char *name)
{
    for (size_t g = 0; g < spec->ngroups; g++)
        for (size_t i = 0; i < spec->groups[g].nopts; i++) {
            const tl_option *o = &spec->groups[g].opts[i];
            if (o->type == TL_OPT_STRING && !strcmp(o->name, name))
                return *(const char *const *)((const char *)spec->groups[g].dst + o->offset);
        }
    return NULL;
}

/* The path of string option o in spec's group g, or NULL */
static const char *string_at(const tl_optspec *spec, size_t g, const tl_option *o)
{
    return *(const char *const *)((const char *)spec->groups[g].dst + o->offset);
}

/* The outputs named in `files` or `folders` (which == 0: files, 1:
 * folders), fn called with each set one's --name and path until it
 * answers non-zero, which it returns */
static int each_output(const tl_optspec *spec, const char *files, const char *folders,
                       int (*fn)(const tl_optspec *, const char *what, const char *path, int folder, void *),
                       void *arg)
{
    for (size_t g = 0; g < spec->ngroups; g++)
        for (size_t i = 0; i < spec->groups[g].nopts; i++) {
            const tl_option *o = &spec->groups[g].opts[i];
            int folder = tl_opts_choice_index(folders, o->name) >= 0;
            if (o->type != TL_OPT_STRING || (!folder && tl_opts_choice_index(files, o->name) < 0)) continue;
            const char *path = string_at(spec, g, o);
            if (!path) continue;
            char what[64];
            snprintf(what, sizeof what, "--%s", o->name);
            int rc = fn(spec, what, path, folder, arg);
            if (rc) return rc;
        }
    return 0;
}

static int output_clashes(const tl_optspec *spec, const char *what, const char *path, int folder, void *seen)
{
    return !folder && tl_out_set_add(seen, spec->program, what, path) ? 2 : 0;
}

static int output_unwritable(const tl_optspec *spec, const char *what, const char *path, int folder, void *arg)
{
    (void)spec;
    (void)arg;
    return tl_out_check_as(what, folder ? tl_out_check_folder : tl_out_check, path) != TL_OK;
}

/* each_output's answer to the first output given an empty name: 1 for a
 * file, 2 for a folder (its name into *arg) */
static int output_empty(const tl_optspec *spec, const char *what, const char *path, int folder, void *arg)
{
    (void)spec;
    if (*path) return 0;
    snprintf(arg, 64, "%s", what + 2);
    return folder ? 2 : 1;
}

const char *tl_opts_empty_output(const tl_optspec *spec, const char *files, const char *folders, int *folder,
                                 char name[64])
{
    int rc = each_output(spec, files, folders, output_empty, name);
    if (folder) *folder = rc == 2;
    return rc ? name : NULL;
}

int tl_opts_outputs_refused(const tl_optspec *spec, const char *files, const char *folders)
{
    /* the clash first: it is the command line's whatever the file system
     * holds (two outputs at one path under a folder that cannot be made
     * are still two outputs at one path) */
    tl_out_set seen = {0};
    int rc = each_output(spec, files, folders, output_clashes, &seen);
    return rc ? rc : each_output(spec, files, folders, output_unwritable, NULL);
}
