/* A rank's window checked against its records: a window its metadata
 * says ends (or starts) far from every record is a damaged or hand-edited
 * header, refused rather than judged over (tl_an_window_check). */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/analysis.h"

/* How far is far: past both a week and a hundred times what the records
 * span. A real window's empty edges can be long: under injection or
 * marked-start the window opens at the program's start and closes at its
 * end, and a PyTorch program may load data for minutes around a second of
 * GPU work, which is idle time the user traced, not damage. No job runs a
 * week past its last record; a window end years on, or typed a few digits
 * too long, does. */
#define FAR_NS ((int64_t)7 * 86400 * 1000000000)
#define FAR_TIMES 100

static const char *duration_say(int64_t ns, char *buf, size_t n)
{
    double s = (double)ns / 1e9;
    if (s >= 365.25 * 86400) snprintf(buf, n, "%.1f years", s / (365.25 * 86400));
    else if (s >= 86400) snprintf(buf, n, "%.1f days", s / 86400);
    else if (s >= 3600) snprintf(buf, n, "%.1f hours", s / 3600);
    else if (s >= 1) snprintf(buf, n, "%.1f s", s);
    else snprintf(buf, n, "%.1f us", (double)ns / 1e3);
    return buf;
}

static int far_from(int64_t gap, int64_t span)
{
    return gap > FAR_NS && gap / FAR_TIMES > span;
}

tl_status tl_an_window_check(const tl_an_rank *rk)
{
    const tl_an_meta *m = &rk->meta;
    if (!m->window_from_meta || rk->n == 0) return TL_OK;
    int64_t first = rk->v[0].start, last = rk->v[0].end; /* v sorted by start */
    for (size_t j = 1; j < rk->n; j++)
        if (rk->v[j].end > last) last = rk->v[j].end;
    int64_t span = last - first;
    char gap[48], spans[48];
    duration_say(span, spans, sizeof spans);
    /* the times are on rank 0's clock where the rank's was aligned to it:
     * the distance is what the line says, the header's value stays its own */
    TL_CHECK(!(m->w1 > last && far_from(m->w1 - last, span)), TL_ERR_PARSE,
             "%s: window_end_ns lies %s past its last record's end (at %" PRId64 " ns; its records span %s): a "
             "damaged or hand-edited header; delete its window_end_ns line to judge the span its records cover",
             m->path, duration_say(m->w1 - last, gap, sizeof gap), last, spans);
    TL_CHECK(!(m->w0 < first && far_from(first - m->w0, span)), TL_ERR_PARSE,
             "%s: window_start_ns lies %s before its first record's start (at %" PRId64 " ns; its records span %s): "
             "a damaged or hand-edited header; delete its window_start_ns line to judge the span its records cover",
             m->path, duration_say(first - m->w0, gap, sizeof gap), first, spans);
    return TL_OK;
}
