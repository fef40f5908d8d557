/* Clock alignment over host messages: NTP's estimate on a ping-pong.
 * Rank 0 sends at t0 (its clock), rank r answers with its clock t1, rank 0
 * receives at t2: if the two legs take the same time, r's clock minus rank
 * 0's is t1 - (t0 + t2) / 2, wrong by at most (t2 - t0) / 2 however the
 * legs differ. Of TL_CLOCK_ALIGN_ROUNDS exchanges the one of least round
 * trip is kept (the others met a delay). Measured at start and at stop, the
 * two offsets give the drift between the clocks over the run. */
#include "probes/clock_align.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/clock.h"
#include "runtime/comm.h"

/* Weak: the shared libraries (libtrilap-probes.so, libtrilap-inject.so)
 * carry no host communication, and a context with host messages (ctx->hc)
 * only comes from the launcher, whose program links runtime/comm.c. */
#pragma weak tl_comm_isend
#pragma weak tl_comm_irecv
#pragma weak tl_comm_wait_for
#pragma weak tl_comm_allreduce

int64_t tl_clock_align_now(const tl_clock_align *ca) { return tl_clock_ns() + ca->skew; }

double tl_clock_align_patience_s(const tl_ctx *ctx)
{
    double own = 10.0 + 0.01 * (double)ctx->size;
    return ctx->timeout_s > 0 && ctx->timeout_s < own ? ctx->timeout_s : own;
}

/* Every message of the exchange waits at most the patience: a side that
 * stops in the middle of the rounds (a send or receive of its own failed)
 * leaves its peer waiting for a message that never comes, and rank 0
 * stopping leaves every rank after it waiting for its first ping, while
 * rank 0 waits for them in the agreement (before: all hung). Out in time,
 * the waiting side fails its measurement (TL_ERR_TIMEOUT) and the agreement
 * unmeasures every rank. */
static tl_status send_i64(tl_ctx *ctx, const int64_t *v, int n, int peer)
{
    tl_request *rq = NULL;
    TL_TRY(tl_comm_isend(ctx, TL_CHAN_WORLD, v, (size_t)n * sizeof *v, peer, TL_CLOCK_ALIGN_TAG, &rq));
    return tl_comm_wait_for(ctx, &rq, tl_clock_align_patience_s(ctx));
}

static tl_status recv_i64(tl_ctx *ctx, int64_t *v, int n, int peer)
{
    tl_request *rq = NULL;
    TL_TRY(tl_comm_irecv(ctx, TL_CHAN_WORLD, v, (size_t)n * sizeof *v, peer, TL_CLOCK_ALIGN_TAG, &rq));
    return tl_comm_wait_for(ctx, &rq, tl_clock_align_patience_s(ctx));
}

/* Which CLOCK_MONOTONIC this process reads, as two numbers: its kernel's
 * boot (boot_id, hashed) and its time namespace (Linux 5.6+ lets one shift
 * CLOCK_MONOTONIC per namespace, as containers may; without the file the
 * kernel has none, so 0). Two processes of equal ids read one clock. id[0]
 * 0: unknown (no /proc), never taken as shared. */
static void clock_id(int64_t id[2])
{
    id[0] = id[1] = 0;
    char b[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return;
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t k = 0; k < n; k++) h = (h ^ (unsigned char)b[k]) * 1099511628211ull;
    struct stat ns;
    id[0] = n ? (int64_t)(h | 1) : 0;
    id[1] = stat("/proc/self/ns/time", &ns) == 0 ? (int64_t)ns.st_ino : 0;
}

/* The test skew gives some rank of the run a clock of its own: then the
 * ranks are measured whatever they share, as the tests of the alignment
 * need (every process of a run reads the same TRILAP_TEST_CLOCK_SKEW). */
static int test_skewed(const tl_ctx *ctx)
{
    for (int r = 0; r < ctx->size; r++)
        if (tl_clock_test_skew(r) != 0) return 1;
    return 0;
}

/* Thread ranks read one process's CLOCK_MONOTONIC: their offsets are 0
 * exactly, and a measured one would only add its noise (+-25 us on a busy
 * host) to every cross-rank figure, so nothing is measured; known before
 * any message, so also when a rank's probes failed. */
static int one_process(const tl_ctx *ctx) { return ctx->mode == TL_LAUNCH_THREADS && !test_skewed(ctx); }

static void clock_begin(const tl_ctx *ctx, tl_clock_align *ca)
{
    ca->skew = tl_clock_test_skew(ctx->rank);
    ca->reference = ctx->rank == 0;
    ca->method = "none";
    ca->shared = ctx->size > 1 && one_process(ctx) ? "process" : NULL;
}

tl_status tl_clock_align_measure(tl_ctx *ctx, tl_clock_align *ca)
{
    if (ca->nsamples == 0) clock_begin(ctx, ca);
    if (!ctx->hc || ctx->size < 2 || ca->nsamples >= 2 || !tl_comm_wait_for || one_process(ctx)) return TL_OK;
    int skewed = test_skewed(ctx);
    /* MPI ranks on one host read one CLOCK_MONOTONIC too (system-wide on
     * Linux), unless a time namespace shifts it; a host name proves
     * neither (containers may share one), so the probes compare boot and
     * namespace ids, which the analysis cannot. They still measure: the
     * offsets, within their uncertainty of 0, stay in the metadata for a
     * user checking the clocks, and the analysis leaves them unapplied
     * (clock_shared=host). */
    int64_t id[2];
    clock_id(id);
    tl_clock_sample *out = &ca->s[ca->nsamples];
    if (ctx->rank == 0) {
        for (int r = 1; r < ctx->size; r++) {
            tl_clock_sample best = {.rtt = INT64_MAX};
            for (int k = 0; k < TL_CLOCK_ALIGN_ROUNDS; k++) {
                int64_t t0 = tl_clock_align_now(ca), t1 = 0;
                TL_TRY(send_i64(ctx, &t0, 1, r));
                TL_TRY(recv_i64(ctx, &t1, 1, r));
                int64_t t2 = tl_clock_align_now(ca);
                if (t2 - t0 < best.rtt)
                    best = (tl_clock_sample){.offset = t1 - (t0 + (t2 - t0) / 2), .at = t1, .rtt = t2 - t0,
                                             .unc = (t2 - t0 + 1) / 2};
            }
            int64_t res[6] = {best.offset, best.at, best.rtt, best.unc, id[0], id[1]};
            TL_TRY(send_i64(ctx, res, 6, r));
        }
        *out = (tl_clock_sample){.at = tl_clock_align_now(ca)};
    } else {
        for (int k = 0; k < TL_CLOCK_ALIGN_ROUNDS; k++) {
            int64_t t0 = 0;
            TL_TRY(recv_i64(ctx, &t0, 1, 0));
            int64_t t1 = tl_clock_align_now(ca);
            TL_TRY(send_i64(ctx, &t1, 1, 0));
        }
        int64_t res[6];
        TL_TRY(recv_i64(ctx, res, 6, 0));
        *out = (tl_clock_sample){.offset = res[0], .at = res[1], .rtt = res[2], .unc = res[3]};
        ca->shared = !skewed && id[0] && res[4] == id[0] && res[5] == id[1] ? "host" : NULL;
    }
    ca->method = ctx->mode == TL_LAUNCH_MPI ? "mpi-pingpong" : "threads-pingpong";
    ca->nsamples++;
    return TL_OK;
}

tl_status tl_clock_align_start(tl_ctx *ctx, tl_clock_align *ca)
{
    if (ca) {
        memset(ca, 0, sizeof *ca);
        clock_begin(ctx, ca);
    }
    if (!ctx->hc || ctx->size < 2 || !tl_comm_allreduce || !tl_comm_wait_for) return TL_OK;
    int32_t all = ca != NULL;
    TL_TRY(tl_comm_allreduce(ctx, &all, 1, TL_INT32, TL_MIN));
    if (!all || !ca) return TL_OK;
    /* Agreed, as at stop every rank measured at start waits for rank 0's
     * ping: rank 0's exchange with rank 2 failing after rank 1's finished
     * left rank 1 measured and rank 0 not, and rank 1 waited at stop for a
     * ping that never came. A failure anywhere unmeasures every rank. */
    tl_status st = tl_clock_align_measure(ctx, ca);
    int32_t ok = st == TL_OK;
    tl_status ast = tl_comm_allreduce(ctx, &ok, 1, TL_INT32, TL_MIN);
    if (st == TL_OK && ast == TL_OK && ok) return TL_OK;
    memset(ca, 0, sizeof *ca);
    clock_begin(ctx, ca);
    /* the failed rank said why, but for one whose peer stopped (unreported
     * TL_ERR_TIMEOUT); the others' line is the caller's */
    return st != TL_OK ? st : ast != TL_OK ? ast : TL_ERR_REMOTE;
}

tl_status tl_clock_align_stop(tl_ctx *ctx, tl_clock_align *ca)
{
    /* measured at start means every rank has probes and comes here too */
    if (!ca || ca->nsamples != 1) return TL_OK;
    return tl_clock_align_measure(ctx, ca);
}

static tl_status meta_i64(tl_trace_writer *w, const char *key, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRId64, v);
    return tl_trace_writer_meta(w, key, b);
}

tl_status tl_clock_align_meta(const tl_clock_align *ca, tl_trace_writer *w)
{
    if (ca->shared) TL_TRY(tl_trace_writer_meta(w, "clock_shared", ca->shared));
    if (ca->nsamples == 0) {
        TL_TRY(tl_trace_writer_meta(w, "clock_sync", "none"));
        return TL_OK;
    }
    TL_TRY(tl_trace_writer_meta(w, "clock_sync", ca->reference ? "reference" : ca->method));
    TL_TRY(meta_i64(w, "clock_ref_rank", 0));
    if (ca->reference) return TL_OK;
    const tl_clock_sample *b = &ca->s[0], *e = &ca->s[ca->nsamples - 1];
    TL_TRY(meta_i64(w, "clock_offset_ns", b->offset));
    TL_TRY(meta_i64(w, "clock_offset_at_ns", b->at));
    TL_TRY(meta_i64(w, "clock_rtt_ns", b->rtt));
    int64_t unc = b->unc;
    if (ca->nsamples == 2) {
        TL_TRY(meta_i64(w, "clock_offset_end_ns", e->offset));
        TL_TRY(meta_i64(w, "clock_offset_end_at_ns", e->at));
        TL_TRY(meta_i64(w, "clock_rtt_end_ns", e->rtt));
        if (e->unc > unc) unc = e->unc;
        /* drift in parts per billion: ns of offset gained per second. A
         * change within the two measurements' uncertainty is noise, not a
         * drift (+-20 us 300 us apart read as 1.3e8 ppb, which the analysis
         * refused, the trace with it), and one beyond 1e6 ppb a clock step
         * no crystal drifts by: both written as 0, the start's offset kept */
        double dt = (double)(e->at - b->at);
        double change = (double)(e->offset - b->offset);
        double ppb = dt > 0 ? change / dt * 1e9 : 0.0;
        if (fabs(change) <= (double)b->unc + (double)e->unc || fabs(ppb) >= 1e6) ppb = 0.0;
        char v[48];
        snprintf(v, sizeof v, "%.3f", ppb);
        TL_TRY(tl_trace_writer_meta(w, "clock_drift_ppb", v));
    } else {
        TL_TRY(tl_trace_writer_meta(w, "clock_drift_ppb", "0"));
    }
    TL_TRY(meta_i64(w, "clock_uncertainty_ns", unc));
    TL_TRY(meta_i64(w, "clock_rounds", TL_CLOCK_ALIGN_ROUNDS));
    return TL_OK;
}
