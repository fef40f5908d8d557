/* Writes synthetic trilap traces shaped like the three-stream microbenchmark
 * (times in µs per iteration, rank r shifted by r/2 µs), for the analysis
 * tests, the demo check and the 1 GB timing:
 *   helper_synth_trace OUTDIR VARIANT NRANKS NITER [MIN_BYTES]
 * VARIANT: naive (allreduce and ring serialised: one communicator), split
 * (they overlap), two-stream, launch-bound, starved, no-overlap, staged
 * (host-staged allreduce and halo exchange carried by the host, rank r
 * computing 10r us longer, so the others wait for the last rank),
 * compute-only (no communication at all), host-only (staged's shape on
 * ranks without a GPU, as trilap-solve --backend host traces them: the
 * host's compute, allreduce and exchange as host ranges, device -1) and
 * mixed-host (even ranks staged, odd ranks host-only).
 * MIN_BYTES > 0 repeats the iterations until each rank file reaches it.
 * The metadata names the program TL_SYNTH_PROGRAM names, trilap-bench
 * without it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probes/trace.h"

static const char *const K_AR = "ncclDevKernel_AllReduce_Sum_f64_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
static const char *const K_SR = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
static const char *const K_AXPY = "void tl_daxpy_kernel<double>(long, double, double const*, double*)";
static const char *const K_SHORT = "tl_vec_update_kernel";

typedef struct ctx {
    tl_trace_writer *w;
    int rank, nranks;
    int64_t base;
    long long rows;
} ctx;

static int rec(ctx *c, tl_role lane, tl_cat cat, tl_kind kind, const char *name, double s_us, double e_us,
               int64_t bytes, int64_t iter)
{
    uint64_t stream = lane == TL_ROLE_COMPUTE ? 13 : lane == TL_ROLE_P2P ? 14 : lane == TL_ROLE_COLL ? 15 : 16;
    tl_trace_record r = {.rank = c->rank, .device = kind == TL_KIND_HOST ? -1 : c->rank, .stream = stream,
                         .lane = lane, .cat = cat, .kind = kind, .name = name,
                         .start_ns = c->base + (int64_t)(s_us * 1000), .end_ns = c->base + (int64_t)(e_us * 1000),
                         .corr = (uint64_t)c->rows + 1, .bytes = bytes, .iter = iter};
    c->rows++;
    if (!c->w) return 0; /* dry run: count only */
    return tl_trace_writer_record(c->w, &r) == TL_OK ? 0 : -1;
}

/* A rank without a GPU: every rank of host-only, the odd ones of mixed-host. */
static int host_only(const ctx *c, const char *v)
{
    return !strcmp(v, "host-only") || (!strcmp(v, "mixed-host") && c->rank % 2);
}

/* One iteration starting at t (µs); returns its period. */
static double iteration(ctx *c, const char *v, int64_t it, double t, int *err)
{
    int e = 0;
    e |= rec(c, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "iteration", t, t + 2, -1, it);
    if (!strcmp(v, "naive")) {
        e |= rec(c, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t, t + 12, 16, it);
        e |= rec(c, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t + 12.5, t + 26.5, 256000, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t + 1, t + 51, 201326592, it);
        *err |= e;
        return 60;
    }
    if (!strcmp(v, "split")) {
        e |= rec(c, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t, t + 14, 256000, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t + 1, t + 13, 16, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t + 1, t + 51, 201326592, it);
        *err |= e;
        return 55;
    }
    if (!strcmp(v, "two-stream")) {
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t, t + 12, 16, it);
        e |= rec(c, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t + 12.5, t + 26.5, 256000, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t + 12.5, t + 62.5, 201326592, it);
        *err |= e;
        return 65;
    }
    if (!strcmp(v, "no-overlap")) {
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t, t + 14, 256000, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t + 14, t + 26, 16, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t + 26, t + 76, 201326592, it);
        *err |= e;
        return 80;
    }
    if (!strcmp(v, "launch-bound")) {
        e |= rec(c, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t, t + 14, 256000, it);
        for (int k = 0; k < 20; k++) e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_SHORT, t + 5 * k, t + 5 * k + 2, -1, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t + 1, t + 13, 16, it);
        *err |= e;
        return 100;
    }
    if (!strcmp(v, "starved")) {
        e |= rec(c, TL_ROLE_P2P, TL_CAT_P2P, TL_KIND_KERNEL, K_SR, t, t + 14, 256000, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t + 1, t + 51, 201326592, it);
        if (it % 2) e |= rec(c, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t + 52, t + 64, 16, it);
        else e |= rec(c, TL_ROLE_COLL, TL_CAT_COLL, TL_KIND_KERNEL, K_AR, t + 5, t + 45, 16, it);
        *err |= e;
        return 66;
    }
    if (host_only(c, v)) {
        double c0 = 40 + 10.0 * c->rank, last = 40 + 10.0 * (c->nranks - 1);
        /* no GPU record carries the iteration: the host's iter range does */
        e |= rec(c, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "iter", t, t + last + 21, -1, it);
        e |= rec(c, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "compute:spmv", t, t + c0, -1, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_RANGE, TL_KIND_HOST, "coll:staged allreduce", t + c0, t + last + 9, -1, it);
        e |= rec(c, TL_ROLE_P2P, TL_CAT_RANGE, TL_KIND_HOST, "p2p:staged exchange", t + last + 9, t + last + 21, -1,
                 it);
        *err |= e;
        return last + 22;
    }
    if (!strcmp(v, "staged") || !strcmp(v, "mixed-host")) {
        /* compute, then the allreduce staged through the host, then the halo:
         * each exchange completes 5 us after the last rank arrives */
        double c0 = 40 + 10.0 * c->rank, last = 40 + 10.0 * (c->nranks - 1);
        /* the host's compute mark around the launch and the wait after it
         * (as trilap-solve's on a GPU): an enqueue, no compute of its own */
        e |= rec(c, TL_ROLE_HOST, TL_CAT_RANGE, TL_KIND_HOST, "compute:axpy", t, t + c0 + 20, -1, it);
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t, t + c0, 201326592, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "memcpy DtoH", t + c0, t + c0 + 2, 16, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_RANGE, TL_KIND_HOST, "coll:staged allreduce", t + c0, t + last + 9, -1, it);
        e |= rec(c, TL_ROLE_COLL, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "memcpy HtoD", t + last + 7, t + last + 9, 16, it);
        double h = t + last + 9;
        e |= rec(c, TL_ROLE_P2P, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "memcpy DtoH", h, h + 3, 65536, it);
        e |= rec(c, TL_ROLE_P2P, TL_CAT_RANGE, TL_KIND_HOST, "p2p:staged exchange", h, h + 12, -1, it);
        e |= rec(c, TL_ROLE_P2P, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "memcpy HtoD", h + 9, h + 12, 65536, it);
        *err |= e;
        return last + 22;
    }
    if (!strcmp(v, "compute-only")) {
        e |= rec(c, TL_ROLE_COMPUTE, TL_CAT_COMPUTE, TL_KIND_KERNEL, K_AXPY, t, t + 50, 201326592, it);
        *err |= e;
        return 52;
    }
    *err = 2;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s OUTDIR naive|split|two-stream|launch-bound|starved|no-overlap|staged|compute-only|host-only|mixed-host NRANKS NITER [MIN_BYTES]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *v = argv[2];
    int nranks = atoi(argv[3]);
    long long niter = atoll(argv[4]), min_bytes = argc > 5 ? atoll(argv[5]) : 0;
    mkdir(dir, 0755);
    for (int r = 0; r < nranks; r++) {
        char path[4096], buf[64];
        snprintf(path, sizeof path, "%s/trace.rank%d.csv", dir, r);
        /* dry run of one iteration: its period and rows (metadata goes first) */
        ctx dry = {.rank = r, .nranks = nranks};
        int err = 0;
        double period = iteration(&dry, v, 1, 0, &err);
        if (err || period <= 0) {
            fprintf(stderr, "%s: unknown variant %s\n", argv[0], v);
            return 2;
        }
        long long n = niter, per_rows = dry.rows;
        if (min_bytes > 0 && n * per_rows * 110 < min_bytes) n = min_bytes / (per_rows * 110) + 1;
        ctx c = {.rank = r, .nranks = nranks, .base = 1000000000LL + r * 500};
        if (tl_trace_writer_open(&c.w, path) != TL_OK) return 1;
        tl_trace_writer_meta(c.w, "format", "trilap-trace");
        tl_trace_writer_meta(c.w, "version", "1");
        snprintf(buf, sizeof buf, "%d", r);
        tl_trace_writer_meta(c.w, "rank", buf);
        tl_trace_writer_meta(c.w, "device", host_only(&c, v) ? "-1" : buf);
        snprintf(buf, sizeof buf, "%d", nranks);
        tl_trace_writer_meta(c.w, "nranks", buf);
        tl_trace_writer_meta(c.w, "host", "synthetic");
        tl_trace_writer_meta(c.w, "device_name", host_only(&c, v) ? "none (a host-only rank)" : "synthetic GPU");
        /* the program diagnose's remedies speak to: the schedules are
         * trilap-bench's; TL_SYNTH_PROGRAM names another (trilap-fdtd, or
         * one trilap did not write) */
        const char *prog = getenv("TL_SYNTH_PROGRAM");
        tl_trace_writer_meta(c.w, "program", prog && *prog ? prog : "trilap-bench");
        tl_trace_writer_meta(c.w, "args", v);
        snprintf(buf, sizeof buf, "%lld", (long long)c.base);
        tl_trace_writer_meta(c.w, "window_start_ns", buf);
        snprintf(buf, sizeof buf, "%lld", (long long)c.base + (long long)(n * period * 1000));
        tl_trace_writer_meta(c.w, "window_end_ns", buf);
        tl_trace_writer_meta(c.w, "complete", "yes");
        double t = 0;
        if (!host_only(&c, v))
            err |= rec(&c, TL_ROLE_COPY, TL_CAT_MEMCPY, TL_KIND_MEMCPY, "memcpy HtoD", -20, -10, 1 << 20, -1);
        for (long long it = 0; it < n; it++) t += iteration(&c, v, it, t, &err);
        if (err) {
            fprintf(stderr, "%s: write error\n", argv[0]);
            tl_trace_writer_close(&c.w, 0);
            return 1;
        }
        if (tl_trace_writer_close(&c.w, 1) != TL_OK) return 1;
    }
    return 0;
}
