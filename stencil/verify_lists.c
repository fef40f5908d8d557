/* trilap-fdtd verify's list options (--orders, --sizes, --cfls, --cells,
 * --decomps, --strategies, --ss) into their entries, and the refusal of
 * an entry given twice. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/verify_impl.h"

/* A comma list of integers, each 0 or more, into out (at most max): the
 * count, or -1 for an entry that is not one, an empty entry at the end,
 * or more entries than max */
int tl_verify_parse_ints(const char *s, int64_t *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        if (n == max) return -1; /* more entries than the table holds, not cut short */
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0 || errno == ERANGE) return -1; /* not 2^63 - 1 for what is past it */
        out[n++] = v;
        if (*end == ',' && end[1]) p = end + 1; /* "8," was taken as "8" */
        else if (*end == '\0') break;
        else return -1;
    }
    return n;
}

/* The same of numbers above 0 */
int tl_verify_parse_doubles(const char *s, double *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        if (n == max) return -1; /* more entries than the table holds, not cut short */
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v > 0)) return -1;
        out[n++] = v;
        if (*end == ',' && end[1]) p = end + 1; /* "8," was taken as "8" */
        else if (*end == '\0') break;
        else return -1;
    }
    return n;
}

/* A list's entry given twice is refused: it is a row twice, and where a
 * rate is taken against the row before (convergence, time) a rate of
 * log 1 / log 1, printed "-nan" with exit 0 (before). The index of the
 * first entry equal to an earlier one, or -1. */
static int repeated_i64(const int64_t *v, int n)
{
    for (int j = 1; j < n; j++)
        for (int i = 0; i < j; i++)
            if (v[i] == v[j]) return j;
    return -1;
}

tl_status tl_verify_refuse_repeated_ints(verify_args *va, const char *opt, const char *list, const int64_t *v, int n)
{
    int j = repeated_i64(v, n);
    if (j < 0) return TL_OK;
    char why[96];
    snprintf(why, sizeof why, "%" PRId64 " is given twice", v[j]);
    return tl_verify_refuse(va, opt, list, why);
}

tl_status tl_verify_refuse_repeated_names(verify_args *va, const char *opt, const char *list, char *const *names, int n)
{
    for (int j = 1; j < n; j++)
        for (int i = 0; i < j; i++)
            if (!strcmp(names[i], names[j])) {
                char why[96];
                snprintf(why, sizeof why, "'%.40s' is given twice", names[j]);
                return tl_verify_refuse(va, opt, list, why);
            }
    return TL_OK;
}

/* A comma list of names, split in s: the count, or -1 for more than max */
int tl_verify_split_names(char *s, char **out, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == max) return -1; /* more names than the table holds, not cut short */
        out[n++] = t;
    }
    return n;
}

/* --decomps into names (in buf) and their decompositions; the count, or
 * -1 after the refusal */
int tl_verify_parse_decomps(verify_args *va, const char *list, char *buf, size_t nbuf, char **names, int pd[][3],
                            int max)
{
    snprintf(buf, nbuf, "%s", list);
    int nd = tl_verify_split_names(buf, names, max);
    if (nd <= 0) {
        tl_verify_refuse(va, "--decomps", list, "expected PXxPYxPZ, slab-z, block-xy or pencil-yz, comma-separated");
        return -1;
    }
    for (int i = 0; i < nd; i++)
        if (tl_fdtd_cli_parse_decomp(names[i], pd[i]) != 0) {
            char why[160];
            snprintf(why, sizeof why, "'%.40s' is not PXxPYxPZ, slab-z, block-xy or pencil-yz", names[i]);
            tl_verify_refuse(va, "--decomps", list, why);
            return -1;
        }
    for (int j = 1; j < nd; j++)
        for (int i = 0; i < j; i++)
            if (!memcmp(pd[i], pd[j], sizeof pd[i])) {
                char why[160];
                if (!strcmp(names[i], names[j]))
                    snprintf(why, sizeof why, "'%.40s' is given twice", names[j]);
                else
                    snprintf(why, sizeof why, "'%.40s' and '%.40s' are one decomposition, %dx%dx%d", names[i],
                             names[j], pd[j][0], pd[j][1], pd[j][2]);
                tl_verify_refuse(va, "--decomps", list, why);
                return -1;
            }
    return nd;
}
