#include "model/fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/schedule.h"
#include "runtime/tmpfile.h"

tl_status tl_mfit_run(tl_mjob *j, const tl_mplatform *p, const tl_mplatform_params *q, const char *dir,
                      tl_mresult *res)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-%d.xml", dir, p->name, j->nranks);
    TL_TRY(tl_mplatform_write_job(p, q, j, path));
    tl_status st = tl_tmpfile_add(path, TL_TMP_FILE); /* an interrupted run leaves no platform behind */
    j->platform = path;
    if (st == TL_OK) st = tl_model_simulate(j, res);
    j->platform = NULL;
    remove(path);
    tl_tmpfile_forget(path);
    if (st != TL_OK && res->error[0]) /* the simulation's own reason, which tl_model_simulate leaves to us */
        return TL_FAIL(st, "SimGrid stopped the simulation of %d GPUs of platform %s: %s", j->nranks, p->name, res->error);
    return st;
}

static tl_status run_tristream(const tl_mcalib *c, const char *variant, const char *dir, int iters,
                               tl_mresult *res)
{
    const tl_schedule *s = tl_schedule_find(variant);
    tl_mjob j;
    TL_TRY(tl_mjob_tristream(&j, s, s ? NULL : variant, 2, c, iters));
    tl_mplatform_params q = {.nccl_rate = c->nccl_rate, .port_gbs = c->port_gbs, .port_lat_us = -1};
    tl_status st = tl_mfit_run(&j, tl_mplatform_find("h200-nvlink"), &q, dir, res);
    tl_mjob_free(&j);
    return st;
}

tl_status tl_mfit_tristream(const tl_mcalib *c, const char *variant, const char *dir, tl_mresult *res)
{
    return run_tristream(c, variant, dir, 200, res);
}

tl_status tl_mfit_calibrate(tl_mcalib *c, const char *dir)
{
    TL_CHECK(c->comm_allreduce16_us > 0 && c->comm_sendrecv8_us > 0 && c->port_gbs > 0, TL_ERR_INVAL,
             "the calibration needs the two-GPU comm results (--comm)");
    TL_CHECK(c->ts_split_us > 0 && c->ts_daxpy_us > 0, TL_ERR_INVAL,
             "the calibration needs the microbenchmark's results (--tristream)");
    /* alphas: the same operations with no fixed cost, on the measured port */
    tl_mcalib probe = *c;
    probe.alpha_coll_us = probe.alpha_p2p_us = 0;
    probe.nccl_rate = 1;
    probe.ts_allreduce_bytes = 16;
    probe.ts_ring_bytes = 8;
    tl_mresult r;
    TL_TRY(run_tristream(&probe, "allreduce-only", dir, 20, &r));
    c->alpha_coll_us = c->comm_allreduce16_us - 1e6 * r.iter_s;
    TL_TRY(run_tristream(&probe, "ring-only", dir, 20, &r));
    c->alpha_p2p_us = c->comm_sendrecv8_us - 1e6 * r.iter_s;
    TL_CHECK(c->alpha_coll_us > 0 && c->alpha_p2p_us > 0, TL_ERR_NUMERIC,
             "the measured 16 B allreduce (%.2f us) or 8 B send/recv (%.2f us) is faster than the platform's own "
             "latency: wrong platform for these results",
             c->comm_allreduce16_us, c->comm_sendrecv8_us);
    /* the rate beside compute: three-split's time falls as the rate rises */
    double lo = 1e-3, hi = 1;
    tl_mcalib t = *c;
    t.nccl_rate = hi;
    TL_TRY(run_tristream(&t, "three-split", dir, 200, &r));
    /* the model at full speed already slower than the measurement: no
     * rate reproduces it (before, the rate was set to 1 and the file said
     * "simulated three-split = measured" of a fit that missed it) */
    TL_CHECK(1e6 * r.iter_s <= c->ts_split_us, TL_ERR_NUMERIC,
             "three-split measured %.2f us, faster than the model at full NCCL rate (%.2f us): check the inputs",
             c->ts_split_us, 1e6 * r.iter_s);
    if (1e6 * r.iter_s == c->ts_split_us) {
        c->nccl_rate = 1;
        return TL_OK;
    }
    t.nccl_rate = lo;
    TL_TRY(run_tristream(&t, "three-split", dir, 200, &r));
    TL_CHECK(1e6 * r.iter_s >= c->ts_split_us, TL_ERR_NUMERIC,
             "three-split measured %.2f us, slower than the model at any rate (%.2f us): check the inputs",
             c->ts_split_us, 1e6 * r.iter_s);
    for (int it = 0; it < 30; it++) {
        t.nccl_rate = sqrt(lo * hi);
        TL_TRY(run_tristream(&t, "three-split", dir, 200, &r));
        if (1e6 * r.iter_s > c->ts_split_us)
            lo = t.nccl_rate;
        else
            hi = t.nccl_rate;
        if (hi / lo < 1.001) break;
    }
    c->nccl_rate = sqrt(lo * hi);
    return TL_OK;
}

static tl_status fdtd_time(const tl_mfdtd *f, const tl_mplatform *p, double lat_us, double gbs, const char *dir,
                           double *t)
{
    tl_mjob j;
    TL_TRY(tl_mjob_fdtd(&j, f));
    tl_mplatform_params q = {.nccl_rate = 1, .port_gbs = gbs, .port_lat_us = lat_us};
    tl_mresult r;
    tl_status st = tl_mfit_run(&j, p, &q, dir, &r);
    if (st == TL_OK) *t = r.iter_s * j.iters;
    tl_mjob_free(&j);
    return st;
}

/* The run time is affine in the port latency and in 1/bandwidth while the
 * messages' order stays the same: three simulations per row give its
 * coefficients and a 2x2 solve the parameters. Where the order changes
 * between the probe point and the answer (host-staged: the node's one
 * host thread queues the messages differently), the answer misses its own
 * calibration rows; Newton steps on coefficients taken at the answer
 * itself then bring both rows to within 0.01%, or the fit fails. */
tl_status tl_mfit_fdtd_port(const tl_mfdtd f[2], const double measured_s[2], const tl_mplatform *p, const char *dir,
                            double *lat_us, double *gbs)
{
    const double b0 = 10, l1 = 10;
    double a[2], b[2], t0[2];
    for (int i = 0; i < 2; i++) {
        double tl, tb;
        TL_TRY(fdtd_time(&f[i], p, 0, b0, dir, &t0[i]));
        TL_TRY(fdtd_time(&f[i], p, l1, b0, dir, &tl));
        TL_TRY(fdtd_time(&f[i], p, 0, b0 / 2, dir, &tb));
        a[i] = (tl - t0[i]) / l1;    /* s per us of latency */
        b[i] = (tb - t0[i]) * b0;    /* s per (1/(GB/s)) */
    }
    double det = a[0] * b[1] - a[1] * b[0];
    TL_CHECK(fabs(det) > 1e-300, TL_ERR_NUMERIC, "the two calibration rows do not separate latency from bandwidth");
    double y0 = measured_s[0] - t0[0], y1 = measured_s[1] - t0[1];
    double L = (y0 * b[1] - y1 * b[0]) / det;
    double u = (a[0] * y1 - a[1] * y0) / det; /* 1/B - 1/b0 */
    double inv = u + 1 / b0;
    TL_CHECK(L >= 0 && inv > 0, TL_ERR_NUMERIC,
             "no latency >= 0 and bandwidth > 0 reproduce the two calibration rows (latency %.3g us, 1/B %.3g)", L,
             inv);
    for (int it = 0;; it++) {
        double t[2], worst = 0;
        for (int i = 0; i < 2; i++) {
            TL_TRY(fdtd_time(&f[i], p, L, 1 / inv, dir, &t[i]));
            worst = fmax(worst, fabs(t[i] - measured_s[i]) / measured_s[i]);
        }
        if (worst < 1e-4) break;
        TL_CHECK(it < 20, TL_ERR_NUMERIC,
                 "the port fitted on the two calibration rows misses them by %.2f%% (the exchange's timing is not "
                 "affine in latency and 1/bandwidth there)",
                 100 * worst);
        const double dl = fmax(1, 0.01 * L), du = 0.01 * inv;
        for (int i = 0; i < 2; i++) {
            double tl, tb;
            TL_TRY(fdtd_time(&f[i], p, L + dl, 1 / inv, dir, &tl));
            TL_TRY(fdtd_time(&f[i], p, L, 1 / (inv + du), dir, &tb));
            a[i] = (tl - t[i]) / dl;
            b[i] = (tb - t[i]) / du;
        }
        det = a[0] * b[1] - a[1] * b[0];
        TL_CHECK(fabs(det) > 1e-300, TL_ERR_NUMERIC, "the two calibration rows do not separate latency from bandwidth");
        y0 = measured_s[0] - t[0], y1 = measured_s[1] - t[1];
        L += (y0 * b[1] - y1 * b[0]) / det;
        inv += (a[0] * y1 - a[1] * y0) / det;
        TL_CHECK(L >= 0 && inv > 0, TL_ERR_NUMERIC,
                 "no latency >= 0 and bandwidth > 0 reproduce the two calibration rows (latency %.3g us, 1/B %.3g)",
                 L, inv);
    }
    *lat_us = L;
    *gbs = 1 / inv;
    return TL_OK;
}
