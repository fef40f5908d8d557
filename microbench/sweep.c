/* Sweep points: a geometric series START, START*F, ... <= END, as
 * nccl-tests' -b/-e/-f. */
#include "microbench/bench.h"

#include <stdlib.h>
#include <string.h>

tl_status tl_sweep_series(int64_t start, int64_t end, int64_t factor, int64_t **points,
                          size_t *npoints, const char **why)
{
    *points = NULL;
    *npoints = 0;
    if (start <= 0) {
        *why = "START must be positive";
        return TL_ERR_PARSE;
    }
    if (end < start) {
        *why = "END is smaller than START";
        return TL_ERR_PARSE;
    }
    if (factor < 2) {
        *why = "FACTOR must be an integer >= 2";
        return TL_ERR_PARSE;
    }
    size_t n = 0;
    for (int64_t v = start;; v *= factor) {
        n++;
        if (v > end / factor) break; /* the next one would pass END (or overflow) */
    }
    if (n > TL_SWEEP_MAX_POINTS) {
        *why = "more than 64 points";
        return TL_ERR_PARSE;
    }
    int64_t *p = malloc(n * sizeof *p);
    if (!p) return TL_FAIL(TL_ERR_NOMEM, "%zu sweep points", n);
    int64_t v = start;
    for (size_t i = 0; i < n; i++) {
        p[i] = v;
        if (i + 1 < n) v *= factor;
    }
    *points = p;
    *npoints = n;
    return TL_OK;
}

tl_status tl_sweep_parse(const char *range, int64_t **points, size_t *npoints, const char **why)
{
    *points = NULL;
    *npoints = 0;
    *why = "expected START:END[:FACTOR]";
    if (!range) return TL_ERR_PARSE;
    char buf[128];
    if (strlen(range) >= sizeof buf) return TL_ERR_PARSE;
    strcpy(buf, range);
    char *c1 = strchr(buf, ':');
    if (!c1) return TL_ERR_PARSE;
    *c1 = '\0';
    char *c2 = strchr(c1 + 1, ':');
    if (c2 && strchr(c2 + 1, ':')) return TL_ERR_PARSE; /* a fourth part: the form, not FACTOR, is wrong */
    if (c2) *c2 = '\0';
    int64_t start = 0, end = 0, factor = 2;
    if (tl_opts_parse_size(buf, &start) != TL_OK) {
        *why = "START is not a size (N, NK, NM, NG)";
        return TL_ERR_PARSE;
    }
    if (tl_opts_parse_size(c1 + 1, &end) != TL_OK) {
        *why = "END is not a size (N, NK, NM, NG)";
        return TL_ERR_PARSE;
    }
    if (c2 && tl_opts_parse_int(c2 + 1, &factor) != TL_OK) {
        *why = "FACTOR must be an integer >= 2";
        return TL_ERR_PARSE;
    }
    return tl_sweep_series(start, end, factor, points, npoints, why);
}
