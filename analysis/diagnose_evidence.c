/* trilap-analyze diagnose: how a verdict writes what it found, its
 * evidence lines and the other conditions it measured, and how findings
 * name operations (whole, or ending in "...") and pick the largest. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diagnose_impl.h"

void tl_diag_name_fit(char *out, size_t n, int len)
{
    if (len >= 0 && (size_t)len < n) return;
    if (n > 4) memcpy(out + n - 4, "...", 4);
}

/* What findings call an operation: "nccl:all_reduce 8.2 MB on process
 * group 0 (default_pg, ranks 0-1) on stream 40" where the trace names it,
 * "ncclDevKernel_AllReduce_Sum_f64_RING_LL (kernel) on the coll stream
 * 14" where only the kernel says. */
void tl_diag_op_name(const diag_state *s, const op_acc *a, char *out, size_t n)
{
    int len;
    if (a->named && a->stream)
        len = snprintf(out, n, "%s on stream %llu", tl_an_names_get(s->names, a->label),
                       (unsigned long long)a->stream);
    else if (a->named)
        len = snprintf(out, n, "%s (the host)", tl_an_names_get(s->names, a->label));
    else
        len = snprintf(out, n, "%s (kernel; the trace names no operation) on the %s stream %llu",
                       tl_an_names_short(s->names, a->kernel), tl_role_name((tl_role)a->lane),
                       (unsigned long long)a->stream);
    tl_diag_name_fit(out, n, len);
}

void tl_diag_say(evidence *e, const char *fmt, ...)
{
    if (e->len >= sizeof e->text - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->text + e->len, sizeof e->text - e->len, fmt, ap);
    va_end(ap);
    if (n > 0) e->len += (size_t)n;
    if (e->len >= sizeof e->text) e->len = sizeof e->text - 1;
}

void tl_diag_also(measured *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(m->also, sizeof m->also, fmt, ap);
    va_end(ap);
    tl_diag_name_fit(m->also, sizeof m->also, len);
}

static int64_t acc_field(const op_acc *a, size_t off) { return *(const int64_t *)(const void *)((const char *)a + off); }

/* The (up to) n operations of rank d with the largest int64 field at
 * offset `off` (total, exposed, queued), that field > 0; their count. */
size_t tl_diag_top_ops(const rank_diag *d, size_t off, size_t *idx, size_t n)
{
    size_t m = 0;
    for (size_t a = 0; a < d->nacc; a++) {
        int64_t v = acc_field(&d->acc[a], off);
        if (v <= 0) continue;
        size_t p = m < n ? m++ : n;
        if (p == n && v <= acc_field(&d->acc[idx[n - 1]], off)) continue;
        if (p == n) p = n - 1;
        while (p > 0 && acc_field(&d->acc[idx[p - 1]], off) < v) {
            idx[p] = idx[p - 1];
            p--;
        }
        idx[p] = a;
    }
    return m;
}

/* "      most exposed: OP: n operations, X us of Y us ..." for the top three. */
void tl_diag_say_top_ops(const diag_state *s, const rank_diag *d, evidence *e, size_t off, const char *what)
{
    size_t idx[3];
    size_t m = tl_diag_top_ops(d, off, idx, 3);
    char nm[DIAG_NAME_LEN];
    for (size_t i = 0; i < m; i++) {
        const op_acc *a = &d->acc[idx[i]];
        tl_diag_op_name(s, a, nm, sizeof nm);
        if (off == offsetof(op_acc, total))
            tl_diag_say(e, "      %s %s: %zu operation%s, %.1f us\n", i ? "then" : what, nm, a->n, a->n == 1 ? "" : "s",
                US(a->total));
        else
            tl_diag_say(e, "      %s %s: %zu operation%s, %.1f us not under compute of their %.1f us\n",
                i ? "then" : what, nm, a->n, a->n == 1 ? "" : "s", US(acc_field(a, off)), US(a->total));
    }
}
