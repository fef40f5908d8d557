/* A rank's iteration slices and the --iter-range selection: parsed,
 * applied to the rank's iterations, and said (what the run has, what was
 * used, why nothing was). */
#include "analysis/analysis.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

tl_status tl_an_rank_slices(const tl_an_rank *rk, int64_t lo, int64_t hi, int64_t **bounds, int64_t **iters,
                            size_t *nb, int64_t *w0, int64_t *w1)
{
    *bounds = NULL;
    *iters = NULL;
    *nb = 0;
    size_t m = 0;
    for (size_t k = 0; k < rk->niter; k++)
        if (rk->iter_start[k] != INT64_MAX) m++;
    int64_t *b = malloc((m ? m : 1) * sizeof *b), *it = malloc((m ? m : 1) * sizeof *it);
    if (!b || !it) {
        free(b);
        free(it);
        return TL_FAIL(TL_ERR_NOMEM, "%zu iterations", m);
    }
    size_t j = 0;
    int64_t prev = INT64_MIN, sel_end = INT64_MIN;
    int first_selected = 0; /* the selection holds the run's first iteration */
    for (size_t k = 0; k < rk->niter; k++) {
        if (rk->iter_start[k] == INT64_MAX) continue;
        int64_t s = rk->iter_start[k] > prev ? rk->iter_start[k] : prev;
        int first = prev == INT64_MIN;
        prev = s;
        int64_t ik = (int64_t)k;
        if (ik < lo) continue;
        if (hi >= 0 && ik > hi) {
            if (j && sel_end == INT64_MIN) sel_end = s; /* next iteration's bound closes the selection */
            continue;
        }
        first_selected |= first;
        b[j] = s;
        it[j] = ik;
        j++;
    }
    /* The first iteration's slice starts at the window start and the last
     * one's ends at the window end, so the slices partition the window:
     * activity before the first iteration's first GPU activity (NCCL
     * kernels whose launch the probes could not attribute, iter -1; a
     * profiler's warm-up) is the first iteration's. A selection keeps the
     * window's start when it holds the first iteration and its end when it
     * holds the last, so `0:` and `0:LAST` are the whole window. */
    if (j && first_selected && b[0] > *w0) b[0] = *w0;
    if (j && !first_selected) *w0 = b[0];
    if (j && sel_end != INT64_MIN) *w1 = sel_end;
    /* iterations all before the window's first activity, or all after its
     * end (an export's steps whose GPU work was launched outside them):
     * they select none of it, as a range the run does not have (before:
     * overlap "window end 2000 before start 5200", breakdown 0 rows) */
    if (*w1 < *w0) j = 0, *w1 = *w0;
    *bounds = b;
    *iters = it;
    *nb = j;
    return TL_OK;
}

const char *tl_an_iters_str(int64_t lo, int64_t hi, char *buf, size_t n)
{
    if (hi < 0) snprintf(buf, n, "%lld:", (long long)lo);
    else snprintf(buf, n, "%lld:%lld", (long long)lo, (long long)hi);
    return buf;
}

tl_an_iter_span tl_an_rank_iter_span(const tl_an_rank *rk)
{
    tl_an_iter_span h = {-1, -1, 0};
    for (size_t k = 0; k < rk->niter; k++) {
        if (rk->iter_start[k] == INT64_MAX) continue;
        if (!h.n) h.lo = (int64_t)k;
        h.hi = (int64_t)k;
        h.n++;
    }
    return h;
}

tl_an_iter_span tl_an_iter_span_join(tl_an_iter_span a, tl_an_iter_span b)
{
    if (!a.n) return b;
    if (!b.n) return a;
    return (tl_an_iter_span){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.n > b.n ? a.n : b.n};
}

/* "iterations 0..199", or "150 iterations between 0 and 199" where some
 * have no activity */
static void span_say(tl_an_iter_span h, char *buf, size_t n)
{
    if (h.n == (size_t)(h.hi - h.lo + 1))
        snprintf(buf, n, "iterations %lld..%lld", (long long)h.lo, (long long)h.hi);
    else
        snprintf(buf, n, "%zu iterations between %lld and %lld", h.n, (long long)h.lo, (long long)h.hi);
}

const char *tl_an_sh_word(const char *s, char *buf, size_t n)
{
    size_t at = 0;
    if (n < 3) return memset(buf, 0, n);
    buf[at++] = '\'';
    for (; *s; s++) {
        const char *w = *s == '\'' ? "'\\''" : (char[2]){*s, '\0'};
        size_t len = strlen(w);
        if (at + len + 2 > n) break; /* cut: the rest would not fit */
        memcpy(buf + at, w, len);
        at += len;
    }
    buf[at++] = '\'';
    buf[at] = '\0';
    return buf;
}

const char *tl_an_steps_hint(const tl_an_meta *m, char *buf, size_t n)
{
    char word[256];
    if (!m->nvtx_steps) snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "; it has %lld NVTX ranges '%s N': give --iter-nvtx %s to take its iterations from them",
                 (long long)m->nvtx_steps, m->nvtx_steps_name,
                 tl_an_sh_word(m->nvtx_steps_name, word, sizeof word));
    return buf;
}

const char *tl_an_no_iters_say(const tl_an_meta *m, const char *input, const char *so, char *buf, size_t n)
{
    char hint[256];
    snprintf(buf, n, "to %s: it marks no iterations (iter -1 everywhere), so %s%s", input, so,
             m ? tl_an_steps_hint(m, hint, sizeof hint) : "");
    return buf;
}

const char *tl_an_iters_had(tl_an_iter_span have, const tl_an_meta *m, char *buf, size_t n)
{
    char span[256];
    if (have.n) {
        span_say(have, span, sizeof span);
        /* a rank's file cut short has fewer than the run: the refusal
         * named its file and gave its iterations as the run's */
        snprintf(buf, n, "%s %s", m && m->window_cut ? "its file, cut short, has" : "the run has", span);
    } else if (!strncmp(m->clock, "nsys-session", 12) && m->nvtx_steps)
        snprintf(buf, n, "the trace marks no trilap iterations (NVTX ranges iter in the domain trilap)%s",
                 tl_an_steps_hint(m, span, sizeof span));
    else if (!strncmp(m->clock, "nsys-session", 12))
        snprintf(buf, n, "the trace marks no iterations: an Nsight Systems export takes them from NVTX ranges named "
                         "iter in the domain trilap, the iteration number their int64 payload, as trilap's probes "
                         "emit them, or from the ranges --iter-nvtx NAME names (analysis/README.md, \"Nsight "
                         "Systems exports\"); without --iter-range the whole window is analysed");
    else if (!strncmp(m->clock, "kineto-host", 11))
        snprintf(buf, n, "the trace marks no iterations: a PyTorch profiler trace takes them from its ProfilerStep#N "
                         "ranges (call prof.step() once per iteration); without --iter-range the whole window is "
                         "analysed");
    else
        snprintf(buf, n, "the trace marks no iterations: trilap's probes mark them (tl_probe_iter_begin / "
                         "tl_probe_iter_end, probes/README.md), a program traced by injection has none; without "
                         "--iter-range the whole window is analysed");
    return buf;
}

const char *tl_an_window_cut_say(const tl_an_meta *m, char *buf, size_t n)
{
    if (!m->window_cut) snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "its file cut short, so judged over the window its records cover: %.1f us to its last "
                         "record's start, of the %.1f us its metadata says",
                 (double)m->cut_ns[0] / 1e3, (double)m->cut_ns[1] / 1e3);
    return buf;
}

const char *tl_an_selection_say(int64_t lo, int64_t hi, tl_an_iter_span used, tl_an_iter_span have, char *buf,
                                size_t n)
{
    char asked[48], span[96];
    tl_an_iters_str(lo, hi, asked, sizeof asked);
    if (!used.n && !have.n && tl_an_iters_all(lo, hi)) { /* read whole, as without the range */
        snprintf(buf, n, "%s (the run marks no iterations: its whole window)", asked);
        return buf;
    }
    if (!used.n) {
        snprintf(buf, n, "%s (none of them in this run)", asked);
        return buf;
    }
    if (used.lo == lo && used.hi == hi) {
        snprintf(buf, n, "%s", asked);
        return buf;
    }
    span_say(have, span, sizeof span);
    if (hi < 0 && used.lo == lo) { /* open at its end: to the last, as asked */
        snprintf(buf, n, "%lld:%lld (--iter-range %s, to the last iteration the run has)", (long long)used.lo,
                 (long long)used.hi, asked);
        return buf;
    }
    snprintf(buf, n, "%lld:%lld (--iter-range %s clipped: the run has %s)", (long long)used.lo, (long long)used.hi,
             asked, span);
    return buf;
}

const char *tl_an_results_selection_say(const tl_an_rank_result *res, size_t nr, int64_t lo, int64_t hi, char *buf,
                                        size_t n)
{
    tl_an_iter_span have = {-1, -1, 0}, used = {-1, -1, 0};
    for (size_t r = 0; r < nr; r++) {
        have = tl_an_iter_span_join(have, res[r].have);
        if (res[r].nslices)
            used = tl_an_iter_span_join(used, (tl_an_iter_span){res[r].iters[0], res[r].iters[res[r].nslices - 1],
                                                                res[r].nslices});
    }
    return tl_an_selection_say(lo, hi, used, have, buf, n);
}

int tl_an_iters_all(int64_t lo, int64_t hi) { return lo == 0 && hi < 0; }

tl_status tl_an_parse_iters(const char *s, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = -1;
    if (!s) return TL_OK;
    if (!*s) return TL_ERR_INVAL; /* given, but empty: not the whole run by accident */
    const char *colon = strchr(s, ':');
    char *end = NULL;
    if (colon != s) {
        errno = 0;
        long long a = strtoll(s, &end, 10);
        if (errno || end == s || (colon ? end != colon : *end != '\0') || a < 0) return TL_ERR_INVAL;
        *lo = a;
        if (!colon) *hi = a;
    }
    if (colon && colon[1]) {
        errno = 0;
        long long b = strtoll(colon + 1, &end, 10);
        if (errno || *end != '\0' || b < *lo) return TL_ERR_INVAL;
        *hi = b;
    }
    return TL_OK;
}
