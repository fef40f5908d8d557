/* Why a simulation's child failed, read by the parent from the child's
 * stderr (SimGrid's first error, else our last line), and SimGrid's
 * refusals of a platform file said again in the file's terms: the line of
 * the route naming an unknown link or host with the ids the file declares,
 * an id given twice under the name the file gives it. */
#include "model/model.h"
#include "model/sim_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if TL_HAVE_SIMGRID

/* The text after SimGrid's log prefix of an error or critical message
 * ("[0.0] file:95: [xbt_exception/ERROR] Parse error at ..."), or NULL. */
static const char *simgrid_error(const char *line)
{
    static const char *const levels[] = {"/ERROR] ", "/CRITICAL] "};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const char *e = strstr(line, levels[i]);
        if (e) return e + strlen(levels[i]);
    }
    return NULL;
}

/* The child's reason: SimGrid's first error message without its log
 * prefix, or else its last non-empty stderr line (ours). */
void tl_sim_child_reason(FILE *f, char *buf, size_t n)
{
    char line[1024];
    int have_error = 0;
    buf[0] = 0;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *e = simgrid_error(line);
        if (e && !have_error && !strstr(e, "Exiting now")) {
            snprintf(buf, n, "%.500s", e);
            have_error = 1;
        } else if (line[0] && !have_error && !e)
            snprintf(buf, n, "%.500s", line);
    }
}

/* The whole file as text, NUL-ended (NULL: unreadable, or too large to
 * hold, where the caller keeps SimGrid's words). */
static char *file_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len >= 0 && len < (1L << 30) && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1)) != NULL) {
        size_t got = fread(text, 1, (size_t)len, f);
        text[got] = 0;
    }
    fclose(f);
    return text;
}

/* Attribute `name`'s value in the tag [tag, end) into out ("" when it has none). */
static void tag_attr(const char *tag, const char *end, const char *name, char *out, size_t n)
{
    size_t k = strlen(name);
    out[0] = 0;
    for (const char *a = tag; a + k + 2 < end; a++) {
        if (!isspace((unsigned char)a[0]) || strncmp(a + 1, name, k) || a[k + 1] != '=') continue;
        char q = a[k + 2];
        const char *v = a + k + 3, *close = q == '"' || q == '\'' ? memchr(v, q, (size_t)(end - v)) : NULL;
        if (close) snprintf(out, n, "%.*s", (int)(close - v), v);
        return;
    }
}

/* The next element `<NAME ` (not `<NAME_ctn`) from p on, its end in *end; NULL: none. */
static const char *next_tag(const char *p, const char *name, const char **end)
{
    size_t k = strlen(name);
    while ((p = strstr(p, name)) != NULL) {
        if (p[-1] == '<' && (isspace((unsigned char)p[k]) || p[k] == '/')) {
            *end = p + strcspn(p, ">");
            return p - 1;
        }
        p += k;
    }
    return NULL;
}

/* The ids of the file's elements <tag ...>: how many, the first eight
 * in list ("a, b, ..."). */
static int declared_ids(const char *text, const char *tag, char *list, size_t n)
{
    const char *t, *end;
    char v[256];
    int count = 0;
    list[0] = 0;
    for (t = text; (t = next_tag(t + 1, tag, &end)) != NULL; t = end, count++) {
        tag_attr(t, end, "id", v, sizeof v);
        size_t used = strlen(list);
        if (count < 8) snprintf(list + used, n - used, "%s%.40s", count ? ", " : "", v);
        else if (count == 8) snprintf(list + used, n - used, ", ...");
    }
    return count;
}

/* "FILE:LINE: the route from S to D names KIND 'ID', which the file does
 * not declare (its N KINDs: a, b, ...)" into buf; route: its <route> tag,
 * NULL where the name sits elsewhere (a zone route). */
static void undeclared_said(const char *platform, const char *text, const char *at, const char *route,
                            const char *kind, const char *id, char *buf, size_t n)
{
    int line = 1;
    for (const char *t = text; t < at; t++) line += *t == '\n';
    char src[64] = "", dst[64] = "", where[160] = "a route", list[400];
    if (route) {
        const char *end = route + strcspn(route, ">");
        tag_attr(route, end, "src", src, sizeof src);
        tag_attr(route, end, "dst", dst, sizeof dst);
        snprintf(where, sizeof where, "the route from %s to %s", src, dst);
    }
    int count = declared_ids(text, kind, list, sizeof list);
    snprintf(buf, n, "%s:%d: %s names %s '%s', which the file does not declare (its %d %s%s%s%s)", platform, line,
             where, kind, id, count, kind, count == 1 ? "" : "s", count ? ": " : "", list);
}

/* The last <route> tag starting before at, or NULL. */
static const char *route_before(const char *text, const char *at)
{
    const char *t, *end, *route = NULL;
    for (t = text; (t = next_tag(t + 1, "route", &end)) != NULL && t < at; t = end) route = t;
    return route;
}

/* SimGrid's "Link not found: X" ("Uncaught exception std::invalid_argument:
 * ..."), said in the file's terms: the line of the route naming X, and the
 * links the file declares. Left as it is where the file cannot be read or
 * no route names X. */
static void unknown_link_in_file_terms(const char *platform, const char *id, char *buf, size_t n)
{
    char *text = file_text(platform), v[256];
    const char *end, *at = NULL, *t;
    if (!text) return;
    for (t = text; !at && (t = next_tag(t + 1, "link_ctn", &end)) != NULL; t = end) {
        tag_attr(t, end, "id", v, sizeof v);
        if (!strcmp(v, id)) at = t;
    }
    if (at) undeclared_said(platform, text, at, route_before(text, at), "link", id, buf, n);
    free(text);
}

/* SimGrid's "Parse error at F:L: Route dst='X' does name a node. Existing
 * netpoints:" (its words, "does" for "does not", the list cut off on
 * lines of their own), said as an unknown link is: the route, the host
 * and the hosts the file declares. */
static void unknown_host_in_file_terms(const char *platform, char *buf, size_t n)
{
    const char *e = strstr(buf, ": Route "), *d = e;
    char end_name[8], id[256];
    if (!e || sscanf(e, ": Route %7[a-z]='%255[^']' does name a node", end_name, id) != 2) return;
    while (d > buf && isdigit((unsigned char)d[-1])) d--;
    int line = d < e ? atoi(d) : 0;
    char *text = line > 0 ? file_text(platform) : NULL;
    const char *at = text;
    for (int k = 1; k < line && at; k++) at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL;
    const char *rend, *route = at && *at ? next_tag(at + 1, "route", &rend) : NULL;
    if (route && route < at + strcspn(at, "\n")) undeclared_said(platform, text, route, route, "host", id, buf, n);
    free(text);
}

/* SimGrid's refusal of an id given twice, in the file's terms: a host's
 * came as "Uncaught exception simgrid::AssertionError by maestro/0:
 * Refusing to create a second host named 'gpu1'.", a SPLITDUPLEX link's
 * named its half, port1_UP. Other reasons are left as they are. */
void tl_sim_reason_in_file_terms(const char *platform, char *buf, size_t n)
{
    char id[256];
    const char *h = strstr(buf, "Refusing to create a second host named '");
    if (h && sscanf(h, "Refusing to create a second host named '%255[^']'", id) == 1) {
        snprintf(buf, n, "host '%s' is declared twice (each host id once; model/README.md)", id);
        return;
    }
    if (strstr(buf, "' does name a node")) {
        unknown_host_in_file_terms(platform, buf, n);
        return;
    }
    const char *unknown = strstr(buf, "Link not found: ");
    if (unknown && sscanf(unknown, "Link not found: %255s", id) == 1) {
        unknown_link_in_file_terms(platform, id, buf, n);
        return;
    }
    if (sscanf(buf, "Link '%255[^']' declared several times", id) != 1) return;
    size_t k = strlen(id);
    char *text = file_text(platform), quoted[300];
    snprintf(quoted, sizeof quoted, "\"%.290s\"", id);
    int spelt = text && strstr(text, quoted); /* a link the file names port1_UP itself */
    free(text);
    if (!spelt) {
        if (k > 3 && !strcmp(id + k - 3, "_UP")) id[k - 3] = 0;
        else if (k > 5 && !strcmp(id + k - 5, "_DOWN")) id[k - 5] = 0;
    }
    snprintf(buf, n, "link '%s' is declared twice (each link id once; model/README.md)", id);
}

#endif
