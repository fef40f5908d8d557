/* Table-driven option parsing: one tl_option table per group drives the
 * parser, --help and the "# opt:" echo lines. This file reads argv (long
 * and short options, old names, repeats, positional arguments); the
 * values (options_values.c), storing them (options_store.c), --help and
 * the echo (options_help.c) and the output checks (options_outputs.c)
 * have files of their own. */
#include "runtime/options.h"
#include "runtime/options_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"

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
            *(int *)tl_opts_field(neg.g, neg.o) = 0;
            typed[*ngiven] = neg.by_alias ? name + 3 : NULL;
            given[(*ngiven)++] = tl_opts_field(neg.g, neg.o);
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
            if (tl_opts_field(&spec->groups[g], &spec->groups[g].opts[i]) == field_ptr) return &spec->groups[g].opts[i];
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
            *(int *)tl_opts_field(f.g, f.o) = 1;
            given[ngiven++] = tl_opts_field(f.g, f.o);
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
        if (tl_opts_store(f.g, f.o, value, why, sizeof why) != TL_OK) {
            st = bad_value(spec, shown, value, why);
            goto done;
        }
        given[ngiven++] = tl_opts_field(f.g, f.o);
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
