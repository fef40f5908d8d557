/* --help from the option table (wrapped, nothing cut, the defaults in
 * brackets) and the "# opt:" lines echoed into results. */
#include "runtime/options.h"
#include "runtime/options_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void format_value(const tl_optgroup *g, const tl_option *o, char *buf, size_t n)
{
    switch (o->type) {
    case TL_OPT_FLAG: snprintf(buf, n, "%d", *(const int *)tl_opts_field(g, o)); break;
    case TL_OPT_INT:
    case TL_OPT_SIZE: snprintf(buf, n, "%" PRId64, *(const int64_t *)tl_opts_field(g, o)); break;
    case TL_OPT_DOUBLE: {
        /* shortest text that reads back as the same double */
        double v = *(const double *)tl_opts_field(g, o);
        for (int prec = 6; prec <= 17; prec++) {
            snprintf(buf, n, "%.*g", prec, v);
            if (strtod(buf, NULL) == v) break;
        }
        break;
    }
    case TL_OPT_STRING: {
        const char *s = *(const char **)tl_opts_field(g, o);
        snprintf(buf, n, "%s", s ? s : "");
        break;
    }
    case TL_OPT_ENUM: {
        const char *s = tl_opts_enum_name(o, *(const int *)tl_opts_field(g, o));
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
                def = (o->def && tl_opts_parse_bool(o->def, &on) == 0 && on) ? "on" : "off";
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
            const char *s = o->type == TL_OPT_STRING ? *(const char *const *)tl_opts_field(g, o) : NULL;
            if (o->type != TL_OPT_STRING) format_value(g, o, val, sizeof val);
            for (const char *c = o->type == TL_OPT_STRING ? (s ? s : "") : val; *c; c++)
                fputc(*c == '\n' || *c == '\r' ? ' ' : *c, out);
            fputc('\n', out);
        }
    }
}
