/* The progress line: one format, redrawn in place on a terminal, whole
 * lines at most once a second elsewhere (only when asked). */
#include "runtime/progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "runtime/clock.h"
#include "runtime/error.h"

enum { TTY_PERIOD_NS = 100000000, LOG_PERIOD_NS = 1000000000 };

void tl_progress_begin_on(tl_progress *p, FILE *out, int tty, const char *what, double total, const char *unit,
                          tl_progress_mode mode)
{
    memset(p, 0, sizeof *p);
    snprintf(p->what, sizeof p->what, "%s", what ? what : "");
    p->unit = unit ? unit : "";
    p->total = total;
    p->out = out;
    p->tty = tty;
    p->on = mode == TL_PROGRESS_ON || (mode == TL_PROGRESS_AUTO && tty);
    p->t0_ns = p->last_ns = tl_clock_ns();
}

void tl_progress_begin(tl_progress *p, const char *what, double total, const char *unit, tl_progress_mode mode)
{
    tl_progress_begin_on(p, stderr, isatty(STDERR_FILENO), what, total, unit, mode);
}

/* mm:ss, or h:mm:ss past an hour, as tqdm prints them */
static void clock_text(double s, char *buf, size_t n)
{
    if (!(s >= 0) || s > 360000) {
        snprintf(buf, n, "?");
        return;
    }
    long t = (long)s; /* whole seconds gone, as tqdm counts them */
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%02ld:%02ld", t / 60, t % 60);
}

/* counts as integers when they are, else with one decimal */
static void count_text(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.1f", v);
}

void tl_progress_format(const tl_progress *p, double elapsed_s, char *buf, size_t n)
{
    char done[32], total[32], el[24], left[24];
    count_text(p->done, done, sizeof done);
    count_text(p->total, total, sizeof total);
    clock_text(elapsed_s, el, sizeof el);
    double rate = elapsed_s > 0 ? p->done / elapsed_s : 0;
    int finished = p->total > 0 && p->done >= p->total;
    char tail[64];
    if (finished)
        tail[0] = '\0';
    else if (rate > 0 && p->total > 0) {
        clock_text((p->total - p->done) / rate, left, sizeof left);
        snprintf(tail, sizeof tail, "<%s", left);
    } else
        snprintf(tail, sizeof tail, "<?");
    char rate_text[48];
    if (rate <= 0)
        snprintf(rate_text, sizeof rate_text, "? %s/s", p->unit);
    else if (rate >= 100)
        snprintf(rate_text, sizeof rate_text, "%.0f %s/s", rate, p->unit);
    else
        snprintf(rate_text, sizeof rate_text, "%.3g %s/s", rate, p->unit);
    if (p->total > 0) {
        int pct = (int)floor(100.0 * p->done / p->total);
        if (pct > 100) pct = 100;
        snprintf(buf, n, "%s%s %3d%% %s/%s %s [%s%s, %s]", tl_log_prefix(), p->what, pct, done, total, p->unit,
                 el, tail, rate_text);
    } else {
        snprintf(buf, n, "%s%s %s %s [%s, %s]", tl_log_prefix(), p->what, done, p->unit, el, rate_text);
    }
}

static void draw(tl_progress *p, int64_t now, int final)
{
    char line[512];
    tl_progress_format(p, (double)(now - p->t0_ns) * 1e-9, line, sizeof line);
    if (p->tty)
        fprintf(p->out, "\r%s\033[K%s", line, final ? "\n" : "");
    else
        fprintf(p->out, "%s\n", line);
    fflush(p->out);
    p->last_ns = now;
    p->drawn = 1;
}

void tl_progress_update(tl_progress *p, double done)
{
    p->done = done;
    if (!p->on) return;
    int64_t now = tl_clock_ns();
    /* off a terminal the finished line is tl_progress_end's alone: a log
     * does not get the same 100% line twice */
    if (!p->tty && p->total > 0 && done >= p->total) return;
    if (now - p->last_ns >= (p->tty ? TTY_PERIOD_NS : LOG_PERIOD_NS)) draw(p, now, 0);
}

void tl_progress_clear(tl_progress *p)
{
    if (!p->on || !p->tty || !p->drawn) return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->last_ns = 0; /* redraw at the next update */
}

void tl_progress_end(tl_progress *p)
{
    if (p->on) draw(p, tl_clock_ns(), 1);
    p->on = 0;
}
