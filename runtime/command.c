/* A command line as a POSIX shell reads it back (tl_manifest_command,
 * results.h): the manifest's `command:` line, the programs' `# command:`
 * preambles and the traces' `args` metadata. Apart from the manifest's
 * writer, which needs the ranks, so that the probes' shared libraries
 * (probes/module.mk) can link it alone. */
#include "runtime/results.h"

#include <stdlib.h>
#include <string.h>

/* Needs no quotes: every character one the shell takes as it is. */
static int shell_safe(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./,:@%", *s)) return 0;
    return 1;
}

/* arg written at w as the shell reads it back (w NULL: only counted);
 * returns the bytes */
static size_t shell_word(const char *arg, char *w)
{
    size_t n = 0;
    if (shell_safe(arg)) {
        n = strlen(arg);
        if (w) memcpy(w, arg, n);
        return n;
    }
    if (w) w[n] = '\'';
    n++;
    for (const char *c = arg; *c; c++) {
        /* a quote closes, is escaped and opens again; a newline keeps the line one */
        const char *put = *c == '\'' ? "'\\''" : *c == '\n' || *c == '\r' ? " " : NULL;
        size_t k = put ? strlen(put) : 1;
        if (w) memcpy(w + n, put ? put : c, k);
        n += k;
    }
    if (w) w[n] = '\'';
    return n + 1;
}

char *tl_manifest_command(int argc, char *const argv[])
{
    size_t len = 1;
    for (int i = 0; i < argc && argv; i++) len += (i ? 1 : 0) + shell_word(argv[i], NULL);
    char *s = malloc(len), *w = s;
    if (!s) return NULL;
    for (int i = 0; i < argc && argv; i++) {
        if (i) *w++ = ' ';
        w += shell_word(argv[i], w);
    }
    *w = '\0';
    return s;
}
