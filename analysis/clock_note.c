/* How the ranks of a run were put on one clock, said in one line: every
 * cross-rank figure (waiting for the last rank, late ranks, matched
 * operations and their skew) is only as good as this. The cases follow
 * the sources (DESIGN.md "Trace format", Wave 2 and 3): the probes'
 * CLOCK_MONOTONIC with offsets measured over host messages, one host's
 * clock, one Nsight Systems session, and Kineto's per-host system clock
 * for which no offset is ever measured; and --align-clocks, offsets
 * estimated from the ends of matched collectives (match.c). */
#include "analysis/analysis.h"

#include <stdio.h>
#include <string.h>

static const tl_an_meta *meta_at(const tl_an_meta *m, size_t k, size_t stride)
{
    return (const tl_an_meta *)(const void *)((const char *)m + k * stride);
}

/* " rank 1 +8.4 us, rank 2 ..." from out + w: each rank's offset applied;
 * a rank on rank 0's very clock gets none, and the list says what the ends
 * said of it (all_shared: the line said no offsets: the ends alone). */
static void ends_list(const tl_an_meta *m, size_t n, size_t stride, char *out, size_t len, int w, int all_shared)
{
    for (size_t k = 1; k < n && k <= 8 && w >= 0 && (size_t)w < len; k++) {
        const tl_an_meta *x = meta_at(m, k, stride);
        const char *sep = k + 1 < n ? "," : "";
        if (all_shared)
            w += snprintf(out + w, len - (size_t)w, " rank %d %+.1f us%s", x->rank, (double)x->clock_ends_est / 1e3,
                          sep);
        else if (x->clock_shared[0])
            w += snprintf(out + w, len - (size_t)w, " rank %d none (rank %d's clock itself; its ends %+.1f us)%s",
                          x->rank, meta_at(m, 0, stride)->rank, (double)x->clock_ends_est / 1e3, sep);
        else
            w += snprintf(out + w, len - (size_t)w, " rank %d %+.1f us%s", x->rank, (double)x->clock_est / 1e3, sep);
    }
    if (n > 9 && w >= 0 && (size_t)w < len) snprintf(out + w, len - (size_t)w, " ...");
}

void tl_an_clock_say(const tl_an_meta *m, size_t n, size_t stride, char *out, size_t len)
{
    size_t aligned = 0, measured = 0, kineto = 0, nsys = 0, shared = 0, threads = 0;
    int one_host = 1;
    int64_t unc = 0;
    for (size_t k = 0; k < n; k++) {
        const tl_an_meta *x = meta_at(m, k, stride);
        aligned += x->clock_aligned;
        measured += strcmp(x->clock_sync, "none") != 0 && strcmp(x->clock_sync, "reference") != 0 &&
                    !x->clock_shared[0];
        shared += k > 0 && x->clock_shared[0]; /* rank 0 is the clock the others share */
        threads += k > 0 && !strcmp(x->clock_shared, "process");
        kineto += !strncmp(x->clock, "kineto-host", 11); /* an imported trace keeps the whole sentence */
        nsys += !strncmp(x->clock, "nsys-session", 12);
        one_host &= !strcmp(x->host, meta_at(m, 0, stride)->host) && strcmp(x->host, "?") != 0;
        if (x->clock_aligned && x->clock_unc > unc) unc = x->clock_unc;
    }
    size_t ends = n > 1 ? meta_at(m, 1, stride)->clock_ends : 0;
    if (ends && shared + 1 >= n) {
        /* every rank reads rank 0's clock: --align-clocks has nothing to
         * correct, and what the ends say is their spread, not an offset */
        const tl_an_meta *m0 = meta_at(m, 0, stride);
        int w = snprintf(out, len, "all ranks on rank %d's clock itself (%s): --align-clocks applies no offsets; the "
                                   "ends of %zu matched collectives differ from rank %d's by (median; their spread, "
                                   "not a clock offset):",
                         m0->rank, threads == shared ? "threads of one process" : "one host's boot and time namespace",
                         ends, m0->rank);
        ends_list(m, n, stride, out, len, w, 1);
    } else if (ends) {
        const tl_an_meta *m0 = meta_at(m, 0, stride);
        int w = aligned + shared + 1 >= n && aligned
                    ? snprintf(out, len, "ranks on rank %d's clock by the probes' measured offsets (%s), then ", m0->rank,
                               meta_at(m, n - 1, stride)->clock_sync)
                : shared + 1 >= n
                    ? snprintf(out, len, "ranks on rank %d's clock itself (%s), then ", m0->rank,
                               threads == shared ? "threads of one process" : "one host's")
                    : snprintf(out, len, "each rank on its own clock (%s), ", m0->clock);
        /* the caveat before the list: a long list is what gets cut */
        w += snprintf(out + w, (size_t)w < len ? len - (size_t)w : 0,
                      "offsets to rank %d estimated from the ends of %zu matched collectives (median difference; a "
                      "collective ends on its ranks together), applied to the cross-rank figures (--align-clocks: "
                      "waiting, late-ranks, most delayed), holding to the spread of those ends, not to a measured "
                      "offset:",
                      m0->rank, ends);
        ends_list(m, n, stride, out, len, w, 0);
    } else if (n <= 1) {
        snprintf(out, len, "one rank on its own clock (%s): nothing across ranks to align",
                 n ? meta_at(m, 0, stride)->clock : "?");
    } else if (kineto) {
        snprintf(out, len, "each rank on its own host's system clock (Kineto: baseTimeNanoseconds + ts), offsets "
                           "unknown (Kineto measures none): cross-rank figures (waiting for the last rank, "
                           "late-ranks, matched skew) hold only as far as the hosts' clocks agree (exact on one "
                           "host; NTP typically 0.1-10 ms across hosts); `trilap-analyze collectives` estimates "
                           "the offsets from matched collective ends; overlap, diagnose and compare apply them "
                           "with --align-clocks");
    } else if (nsys == n) {
        snprintf(out, len, "one Nsight Systems session clock for every rank: no offsets needed");
    } else if (shared + 1 >= n) {
        /* as one host's clock without measured offsets, below: nothing to correct */
        if (threads == shared)
            snprintf(out, len, "all ranks threads of one process on %s's %s: one clock, no offsets needed",
                     meta_at(m, 0, stride)->host, meta_at(m, 0, stride)->clock);
        else
            snprintf(out, len, "all ranks on one host's %s (the probes checked its boot and time namespace): one "
                               "clock, no offsets needed (the offsets they measured, within their uncertainty of 0, "
                               "stay in the metadata)", meta_at(m, 0, stride)->clock);
    } else if (aligned && aligned + shared + 1 >= n) {
        snprintf(out, len, "ranks aligned to rank 0's clock by the offsets the probes measured over host messages "
                           "(%s), uncertainty up to %.3f us: cross-rank figures hold to that%s",
                 meta_at(m, n - 1, stride)->clock_sync, (double)unc / 1e3,
                 shared ? "; ranks on rank 0's host read its clock itself (no offset)" : "");
    } else if (measured) {
        snprintf(out, len, "each rank on its own clock: the measured offsets are ignored (--raw-clock or "
                           "missing on some ranks): cross-rank figures hold only as far as the clocks agree");
    } else if (one_host) {
        snprintf(out, len, "all ranks on one host's %s: one clock, no offsets needed",
                 meta_at(m, 0, stride)->clock);
    } else {
        snprintf(out, len, "each rank on its own clock (%s), offsets not measured: cross-rank figures (waiting, "
                           "late-ranks, matched operations) are only meaningful if the ranks shared a host",
                 meta_at(m, 0, stride)->clock);
    }
}

/* The thread launcher's ranks share a GPU and a process, and CUPTI hands
 * every record to one collector: a record no rule could give its rank went
 * to a guessed one (owner_guess=3656 on rank 1 of a 2-rank thread run),
 * which the figures of that rank then hold as its own. */
const char *tl_an_guessed_owners_say(const tl_an_meta *m, size_t n, size_t stride, char *out, size_t len)
{
    size_t nguess = 0;
    int w = 0;
    for (size_t k = 0; k < n && w >= 0 && (size_t)w < len; k++) {
        const tl_an_meta *x = meta_at(m, k, stride);
        if (x->owner_guess <= 0) continue;
        w += snprintf(out + w, len - (size_t)w, nguess ? ", rank %d's %lld" : "rank %d's file holds %lld", x->rank,
                      (long long)x->owner_guess);
        nguess++;
    }
    if (!nguess) return NULL;
    if (w >= 0 && (size_t)w < len)
        snprintf(out + w, len - (size_t)w,
                 " GPU or API records whose rank the probes guessed (owner_guess; ranks sharing a GPU and a process, "
                 "no rule of probes/README.md \"Which rank a record belongs to\" decided): %s per-rank figures may "
                 "mix ranks' records",
                 nguess > 1 ? "their" : "its");
    return out;
}
