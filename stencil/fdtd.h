/* 3D FDTD for the first-order acoustic system with a CFS/Roden-Gedney CPML
 * (arXiv 2606.06910):
 *
 *   p_t = -K div v,   v_t = -(1/rho) grad p,
 *
 * staggered in space (p at cell points, v_x at x + h/2, ...) and time
 * (leapfrog: v from p, then p from v), centred differences of order 2, 4
 * or 8. One global grid cut into px x py x pz subdomains with ghost depth
 * g = 2 r s (s local steps between exchanges, the ghost zone computed
 * redundantly); every subdomain lives in this process, on the CPU or on
 * one of the GPUs (several to a GPU when subdomains outnumber GPUs), or
 * one subdomain per rank (strategy "ranks", cpu; "devcomm", cuda), and the
 * halo moves by one of the exchange strategies (fdtd_impl.h).
 *
 *   tl_fdtd_config c; tl_fdtd_config_defaults(&c); c.n[0] = ...;
 *   TL_TRY(tl_fdtd_create(&f, &c));
 *   TL_TRY(tl_fdtd_run(f, ctx));          (steps, source, receivers, energy)
 *   TL_TRY(tl_fdtd_gather(f, TL_FDTD_P, out));
 *   tl_fdtd_destroy(&f);
 *
 * A decomposed run gives the single-domain result bit for bit on the same
 * backend: every point is updated by the same code from the same operands
 * in the same order, whichever subdomain (or ghost zone) holds it. */
#ifndef TL_FDTD_H
#define TL_FDTD_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/ctx.h"

enum { TL_FDTD_P = 0, TL_FDTD_VX, TL_FDTD_VY, TL_FDTD_VZ, TL_FDTD_NFIELDS };
typedef enum { TL_FDTD_BACKEND_CPU = 0, TL_FDTD_BACKEND_CUDA } tl_fdtd_backend_kind;
/* CUDA kernels (--kernel), the entries of tl_fdtd_kernels (kernels.c). */
typedef enum {
    TL_FDTD_KERNEL_TILED = 0,
    TL_FDTD_KERNEL_NAIVE,
    TL_FDTD_KERNEL_PIPE,
    TL_FDTD_KERNEL_ZCOL8,
    TL_FDTD_KERNEL_ZCOL16,
    TL_FDTD_KERNEL_ZCOL16_Y4,
    TL_FDTD_KERNEL_ZCOL32_Y4,
    TL_FDTD_KERNEL_ZCOL8_FUSED,
    TL_FDTD_KERNEL_ZCOL16_FUSED,
    TL_FDTD_KERNEL_ZCOL16_Y4_PF,
    TL_FDTD_KERNEL_ZCOL32_Y4_PF,
    TL_FDTD_KERNEL_VEC2,
    TL_FDTD_KERNEL_VEC4,
    TL_FDTD_KERNEL_VEC4_X128,
    TL_FDTD_KERNEL_VEC4_BAND,
    TL_FDTD_KERNEL_COUNT
} tl_fdtd_kernel_kind;

/* What a --kernel name runs: the variant (TL_FDTD_VARIANT_*, fdtd_kargs.h)
 * for the points outside the CPML slabs and the one for the slab boxes
 * (tl_fdtd_grid_classify), or, fused, one launch over the whole box with
 * CPML by a per-point branch. */
typedef struct tl_fdtd_kernel_info {
    const char *name; /* first: the --kernel option's table */
    int interior;     /* variant of the interior box (fused: of every box) */
    int boundary;     /* variant of the CPML slab boxes; unused when fused */
    int fused;
} tl_fdtd_kernel_info;
extern const tl_fdtd_kernel_info tl_fdtd_kernels[TL_FDTD_KERNEL_COUNT];

/* Initial value of field `field` at global point (i, j, k) (for v_x the
 * point is (i + 1/2, j, k)), time 0 for p and -dt/2 for v. */
typedef double (*tl_fdtd_init_fn)(void *arg, int field, int64_t i, int64_t j, int64_t k);

typedef struct tl_fdtd_config {
    int64_t n[3];        /* global grid points per axis */
    int order;           /* 2, 4 or 8 (r = order / 2) */
    int order_fixed;     /* the caller offers no choice of order (verify's experiments but
                            convergence): a refusal's remedies name none */
    const char *grid_option; /* the option that sets the (cubic) grid, where the caller's is not
                                a grid ("--n-int": verify reflection); NULL: remedies say "a grid" */
    int64_t grid_option_less; /* points per axis of the grid that grid_option does not count
                                 (verify reflection: the CPML's 2 L) */
    double h;            /* grid spacing [m] */
    double dt;           /* time step [s]; 0: cfl * the stability limit */
    double cfl;          /* fraction of the stability limit when dt = 0 */
    int64_t steps;
    int periodic;        /* every axis periodic (manufactured solutions); no CPML then */
    int64_t cpml;        /* CPML thickness in cells on every outer face; 0: none (p = v = 0 outside) */
    double cpml_r;       /* target reflection R */
    double kappa_max;
    double alpha_frac;   /* alpha_max = alpha_frac * sigma_max */
    int dbl;             /* 1: double precision, 0: single */
    /* medium: K, rho everywhere, or K2, rho2 for k >= layer_k when layer_k > 0 */
    double K, rho, K2, rho2;
    int64_t layer_k;
    /* Ricker source added to p: amp * dt * ricker(t), f0 peak frequency, t0 = 1.2 / f0 */
    int source;
    int64_t src[3];
    double f0, amp;
    /* point receivers (p), sampled every step */
    int nrec;
    const int64_t (*rec)[3];
    /* initial condition (manufactured solutions); NULL: zero fields */
    tl_fdtd_init_fn init;
    void *init_arg;
    /* decomposition and schedule */
    int pd[3];           /* subdomains per axis */
    int s;               /* local steps between exchanges (ghost depth 2 r s) */
    tl_fdtd_backend_kind backend;
    tl_fdtd_kernel_kind kernel;
    const char *strategy;/* exchange strategy name (exchange.h); NULL: the backend's default */
    int gpus;            /* GPUs to spread the subdomains over; 0: every visible one */
    int overlap;         /* exchange beside the inner part of the last local step (CUDA) */
    int64_t check_every; /* NaN / blow-up check period in steps; 0: only at the end */
    double blowup;       /* |p| above this counts as blown up */
    int64_t energy_every;/* energy monitor period in steps; 0: off */
    /* pressure slices: every slice_every steps, plane slice_index of axis slice_axis */
    int64_t slice_every;
    int slice_axis;
    int64_t slice_index;
    const char *slice_dir;
    int trace; /* this run traced, in the session the program's --trace asked for
                  (probes.h: tl_probes_session_open); 0: not this run */
    int64_t warmup;      /* steps run (and discarded from timing) before the measured ones */
    int breakdown;       /* cuda: time every kernel and copy with event pairs (runtime/evtimer.h) */
    struct tl_progress *progress; /* advanced one unit per step, warm-up included (NULL: none) */
} tl_fdtd_config;

void tl_fdtd_config_defaults(tl_fdtd_config *c);

typedef struct tl_fdtd tl_fdtd;

typedef struct tl_fdtd_stats {
    double seconds;      /* measured steps, host clock after a device sync */
    double mpoints_s;    /* Nx Ny Nz Nt / (1e6 T) */
    double gbs;          /* min_bytes_per_point * Nx Ny Nz Nt / T / 1e9 */
    double min_bytes_per_point; /* of the update without CPML: 12 words per point per step */
    double mem_bytes;    /* allocated for fields, memory variables, buffers (largest device) */
    double paper_mem_bytes; /* the paper's Table 14 estimate: 10 fields of (nx+16)(ny+16)(nz+16) per device */
    double dt;
    int64_t steps;
    /* with breakdown: device time of the measured steps per operation, summed
     * over subdomains (update_v, update_v_cpml, update_p, update_p_cpml,
     * pack, copy, unpack) */
    int nops;
    struct {
        const char *name;
        int64_t count;
        double total_s, min_s, max_s;
    } op[8];
} tl_fdtd_stats;

/* Every refusal of a configuration that tl_fdtd_create would give before
 * it allocates: sizes, order, CFL, source and receivers inside the grid,
 * the strategy's name, the cut into subdomains at least the ghost depth
 * thick. One line naming the input and the reason (TL_ERR_INVAL), so that
 * a program refuses bad input before it prints or writes anything. Not
 * checked here: the ranks a per-rank strategy needs, and memory. */
tl_status tl_fdtd_config_check(const tl_fdtd_config *c);
/* Checks the configuration (tl_fdtd_config_check), cuts the grid, allocates every subdomain on its backend, sets
 * the initial condition. Errors name the input and the reason. */
tl_status tl_fdtd_create(tl_fdtd **out, const tl_fdtd_config *cfg);
/* The same over the ranks of ctx when the strategy is per-rank: rank r
 * holds subdomain r alone, and ctx->size must equal px py pz. "ranks"
 * (cpu): the ghosts move as host messages (runtime/comm.h); "devcomm"
 * (cuda): subdomain r on ctx->device, the ghosts over the device
 * communication the launcher chose (runtime/devcomm.h: NCCL, or
 * host-staged). Not collective itself (rank 0 may create first, so a bad
 * configuration is said once); tl_fdtd_run, tl_fdtd_gather and
 * tl_fdtd_energy_now are (devcomm: the first tl_fdtd_run creates ctx->gpu
 * if it is not there, and the device communication). Other strategies
 * ignore ctx (tl_fdtd_create passes NULL). */
tl_status tl_fdtd_create_on(tl_fdtd **out, const tl_fdtd_config *cfg, tl_ctx *ctx);
/* 1: strategy `name` of backend b puts one subdomain on each rank; 0: it
 * drives every subdomain from one process; -1: b has no such strategy. */
int tl_fdtd_strategy_per_rank(const char *name, tl_fdtd_backend_kind b);
/* The default strategy of backend b: in one process (per_rank = 0: copy,
 * peer) or one subdomain per rank (1: ranks, devcomm). */
const char *tl_fdtd_strategy_default(tl_fdtd_backend_kind b, int per_rank);
/* "cpu: copy|ranks; cuda: host|peer|nccl|devcomm", for messages */
const char *tl_fdtd_strategy_names(void);
void tl_fdtd_destroy(tl_fdtd **f);

/* warmup + steps time steps (warm-up steps are counted in the simulated
 * time; only the measured steps are timed). Stops with TL_ERR_NUMERIC
 * naming the step and the point where p is not finite or exceeds blowup. */
tl_status tl_fdtd_run(tl_fdtd *f, tl_ctx *ctx);

/* The global field (n[0] n[1] n[2] values, x fastest), in double. Per-rank:
 * collective, out filled on rank 0 only (others may pass NULL). */
tl_status tl_fdtd_gather(tl_fdtd *f, int field, double *out);
/* Receiver samples: nrec values per step, step-major (after tl_fdtd_run;
 * per-rank: complete on rank 0, gathered at the end of the run). */
const double *tl_fdtd_traces(const tl_fdtd *f);
/* Energy monitor: (step, energy) pairs, *count of them. */
const double *tl_fdtd_energy(const tl_fdtd *f, int64_t *count);
tl_fdtd_stats tl_fdtd_stats_of(const tl_fdtd *f);
double tl_fdtd_dt(const tl_fdtd *f);
/* Field energy 1/2 sum (p^2/K + rho |v|^2) h^3 over the grid, now; each
 * velocity weighted by the density its update divides by (vz: the mean of
 * the planes it sits between). */
tl_status tl_fdtd_energy_now(tl_fdtd *f, double *e);

/* Significant digits that write a value of c's precision so that it reads
 * back exactly: 9 (single), 17 (double). The seismogram, energy and slice
 * files use them. */
int tl_fdtd_digits(const tl_fdtd_config *c);
/* Stability: the largest dt for order and medium (c_max sqrt(3) sum|c_m| dt / h <= 1). */
double tl_fdtd_dt_max(const tl_fdtd_config *c);
/* Staggered-difference coefficients of order 2r, c[0..r-1]. */
void tl_fdtd_coefficients(int order, double c[4]);
/* Ricker wavelet of peak frequency f0 delayed by t0 = 1.2 / f0. */
double tl_fdtd_ricker(double t, double f0);

#endif
