/* The CPU reference backend (C with OpenMP): the check of the GPU kernels
 * and CI's FDTD. Subdomains are host arrays, all in this process (the
 * exchange copies them) or one per rank (only that one is allocated; the
 * exchange sends host messages). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stencil/fdtd_impl.h"
#include "stencil/fill.h"
#include "stencil/memneed.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

/* Subnormal floats flushed to zero (and read as zero) by the thread that
 * runs an update, its own mode restored after it. The tail of a pulse
 * that the stencil spreads ahead of the wave falls below FLT_MIN within a
 * few steps, and a core computes on subnormals about a hundred times
 * slower: a single-precision 64^3 run with a source ran at 3-8 Mpoints/s
 * on 2 cores, slower than double and than a run without a source, and
 * 43 with one thread once flushed (stencil/README.md). Double is
 * left exact (its subnormals, below 2.2e-308, a pulse does not reach in
 * any run of this size), as is every other computation of the process;
 * the GPU, which computes subnormals at full speed, keeps them, a
 * difference far below the 1e-5 the GPU and CPU agree to. */
typedef unsigned long fp_mode;
static inline fp_mode fp_flush_subnormals(void)
{
#if defined(__SSE__)
    fp_mode was = _mm_getcsr();
    _mm_setcsr((unsigned)was | 0x8040u); /* MXCSR flush-to-zero (bit 15), denormals-are-zero (bit 6) */
    return was;
#elif defined(__aarch64__)
    fp_mode was;
    __asm__ volatile("mrs %0, fpcr" : "=r"(was));
    __asm__ volatile("msr fpcr, %0" : : "r"(was | (1ul << 24))); /* FPCR.FZ */
    return was;
#else
    return 0;
#endif
}
static inline void fp_restore(fp_mode was)
{
#if defined(__SSE__)
    _mm_setcsr((unsigned)was);
#elif defined(__aarch64__)
    __asm__ volatile("msr fpcr, %0" : : "r"(was));
#else
    (void)was;
#endif
}

/* Points a box (or an energy sum) needs before its loop is shared among
 * the OpenMP threads; a smaller one runs on the calling thread alone. A
 * team meets at a barrier at the end of every loop, 14 a step (interior
 * and 6 CPML slabs, v then p), and on a core another process also uses,
 * each barrier can wait for a descheduled thread's next time slice (ms):
 * on 2 busy cores, 2 threads ran 32^3 and 48^3 runs 14x and 31x slower
 * than one (medians; stencil/README.md). 32768 points is about 1 ms of one core's work, the
 * cost of such a wait. Every point's arithmetic is the same whoever runs
 * it: the fields do not depend on the thread count. */
enum { CPU_PARALLEL_MIN_POINTS = 32768 };

#define T float
#define SFX _f
#define FLUSH 1
#include "stencil/cpu_kernels_impl.h"
#undef T
#undef SFX
#undef FLUSH
#define T double
#define SFX _d
#define FLUSH 0
#include "stencil/cpu_kernels_impl.h"
#undef T
#undef SFX
#undef FLUSH

/* Reached only when the host had less than the checks before were told
 * (tl_fdtd_check_host_memory, ..._ranks): say what to do about it. */
static tl_status cpu_alloc(void **p, size_t count, size_t esz, int sd)
{
    *p = calloc(count ? count : 1, esz);
    TL_CHECK(*p != NULL, TL_ERR_NOMEM,
             "subdomain %d: no host memory for %zu x %zu bytes, though checked as available before the run (other "
             "programs took it since, or a limit such as ulimit -v counts the process's libraries too): run a "
             "smaller grid, or fewer ranks on this host",
             sd, count, esz);
    return TL_OK;
}

static tl_status cpu_setup(tl_fdtd *f)
{
    size_t esz = f->esz;
    TL_TRY(tl_fdtd_check_host_memory(f, 0.0));
    for (int i = 0; i < f->nsub; i++) {
        tl_fdtd_sub *s = &f->sub[i];
        s->device = -1;
        if (!tl_fdtd_mine(f, i)) continue; /* another rank's */
        for (int k = 0; k < TL_FDTD_NFIELDS; k++) {
            TL_TRY(cpu_alloc(&s->fld[k], s->full.count, esz, i));
            TL_TRY(tl_fdtd_fill_field(f, i, k, s->fld[k]));
        }
        if (tl_fdtd_heterogeneous(&f->cfg))
            for (int k = 0; k < 4; k++) {
                TL_TRY(cpu_alloc(&s->mat[k], s->full.count, esz, i));
                TL_TRY(tl_fdtd_fill_material(f, i, k, s->mat[k]));
            }
        for (int m = 0; m < TL_FDTD_NPSI; m++)
            for (int side = 0; side < 2; side++)
                if (s->psi[m][side].count) TL_TRY(cpu_alloc(&s->psi_mem[m][side], s->psi[m][side].count, esz, i));
        TL_TRY(cpu_alloc(&s->prof, tl_fdtd_profiles_count(f), esz, i));
        TL_TRY(tl_fdtd_fill_profiles(f, s->prof));
    }
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            tl_fdtd_msg *m = &f->msg[d][k];
            if (tl_fdtd_mine(f, m->from)) TL_TRY(cpu_alloc(&m->send, (size_t)m->count, esz, m->from));
            if (tl_fdtd_mine(f, m->to)) TL_TRY(cpu_alloc(&m->recv, (size_t)m->count, esz, m->to));
        }
    return TL_OK;
}

static void cpu_teardown(tl_fdtd *f)
{
    for (int i = 0; i < f->nsub; i++) {
        tl_fdtd_sub *s = &f->sub[i];
        for (int k = 0; k < 4; k++) {
            free(s->fld[k]);
            free(s->mat[k]);
            s->fld[k] = s->mat[k] = NULL;
        }
        for (int m = 0; m < TL_FDTD_NPSI; m++)
            for (int side = 0; side < 2; side++) {
                free(s->psi_mem[m][side]);
                s->psi_mem[m][side] = NULL;
            }
        free(s->prof);
        s->prof = NULL;
    }
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < f->nmsg[d]; k++) {
            free(f->msg[d][k].send);
            free(f->msg[d][k].recv);
            f->msg[d][k].send = f->msg[d][k].recv = NULL;
        }
}

static tl_status cpu_update(tl_fdtd *f, int sd, int which, const tl_fdtd_box *b, int cpml)
{
    tl_fdtd_kargs a;
    tl_fdtd_kargs_of(f, sd, &a);
    if (f->esz == 4) update_f(&a, b, which, cpml);
    else update_d(&a, b, which, cpml);
    return TL_OK;
}

static tl_status cpu_add_source(tl_fdtd *f, int sd, int64_t idx, double value)
{
    void *p = f->sub[sd].fld[TL_FDTD_P];
    if (f->esz == 4) ((float *)p)[idx] += (float)value;
    else ((double *)p)[idx] += value;
    return TL_OK;
}

static tl_status cpu_sample(tl_fdtd *f, int sd, int64_t step)
{
    const void *p = f->sub[sd].fld[TL_FDTD_P];
    for (int r = 0; r < f->cfg.nrec; r++) {
        if (f->rec_sub[r] != sd) continue;
        int64_t i = f->rec_idx[r];
        f->traces[step * f->cfg.nrec + r] = f->esz == 4 ? (double)((const float *)p)[i] : ((const double *)p)[i];
    }
    return TL_OK;
}

/* m's segments into its send buffer, or (unpack) its receive buffer into
 * the halo segments. */
static tl_status cpu_copy(tl_fdtd *f, tl_fdtd_msg *m, int unpack)
{
    tl_fdtd_segdesc d[TL_FDTD_MAXSEG];
    tl_fdtd_msg_descs(f, m, !unpack, d);
    void *buf = unpack ? m->recv : m->send;
    if (f->esz == 4) pack_f(d, m->nseg, buf, unpack);
    else pack_d(d, m->nseg, buf, unpack);
    return TL_OK;
}

static tl_status cpu_pack(tl_fdtd *f, tl_fdtd_msg *m) { return cpu_copy(f, m, 0); }
static tl_status cpu_unpack(tl_fdtd *f, tl_fdtd_msg *m) { return cpu_copy(f, m, 1); }

static tl_status cpu_nothing(tl_fdtd *f) { return TL_OK; }
static tl_status cpu_timers(tl_fdtd *f, int reset) { return TL_OK; }
static tl_status cpu_mark(tl_fdtd *f, int what) { return TL_OK; }

static tl_status cpu_download(tl_fdtd *f, int sd, int field, void *host)
{
    memcpy(host, f->sub[sd].fld[field], f->sub[sd].full.count * f->esz);
    return TL_OK;
}

static tl_status cpu_check(tl_fdtd *f, int sd, int64_t *bad, double *value)
{
    const tl_fdtd_sub *s = &f->sub[sd];
    *bad = f->esz == 4 ? check_f(s->fld[0], &s->full, s->n, f->cfg.blowup)
                       : check_d(s->fld[0], &s->full, s->n, f->cfg.blowup);
    if (*bad >= 0) {
        int64_t x = *bad % s->n[0], y = *bad / s->n[0] % s->n[1], z = *bad / (s->n[0] * s->n[1]);
        int64_t i = tl_fdtd_index(&s->full, x, y, z);
        *value = f->esz == 4 ? (double)((const float *)s->fld[0])[i] : ((const double *)s->fld[0])[i];
    }
    return TL_OK;
}

static tl_status cpu_energy(tl_fdtd *f, int sd, double *e)
{
    tl_fdtd_kargs a;
    tl_fdtd_kargs_of(f, sd, &a);
    tl_fdtd_medium md = tl_fdtd_medium_of(&f->cfg);
    *e = f->esz == 4 ? energy_f(&a, f->sub[sd].n, &md) : energy_d(&a, f->sub[sd].n, &md);
    return TL_OK;
}

const tl_fdtd_backend tl_fdtd_backend_cpu = {
    .name = "cpu",
    .default_strategy = "copy",
    .exchange_on_host = 1,
    .setup = cpu_setup,
    .update = cpu_update,
    .add_source = cpu_add_source,
    .sample = cpu_sample,
    .pack = cpu_pack,
    .unpack = cpu_unpack,
    .mark = cpu_mark,
    .sync = cpu_nothing,
    .download = cpu_download,
    .check = cpu_check,
    .energy = cpu_energy,
    .fetch_traces = cpu_nothing,
    .timers = cpu_timers,
    .teardown = cpu_teardown,
};
