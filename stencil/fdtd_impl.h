/* Inside the FDTD solver: subdomains, array layouts, the exchange plan,
 * and the tables of function pointers of the backends (CPU, CUDA) and the
 * exchange strategies. Not for programs: they use fdtd.h. */
#ifndef TL_FDTD_IMPL_H
#define TL_FDTD_IMPL_H

#include "stencil/fdtd.h"
#include "stencil/fdtd_kargs.h"

/* Memory variables: psi of dp/dx, dp/dy, dp/dz (velocity update) and of
 * dvx/dx, dvy/dy, dvz/dz (pressure update), each in a low and a high slab. */
enum { TL_FDTD_NPSI = 6 };

typedef struct tl_fdtd_box {
    int64_t lo[3], hi[3]; /* half-open, local coordinates of a subdomain */
} tl_fdtd_box;

typedef struct tl_fdtd_seg {
    int field;           /* 0..3 full fields; 4 + 2 m + side: psi m, slab side */
    tl_fdtd_box src;     /* in the sender's local coordinates */
    tl_fdtd_box dst;     /* in the receiver's */
    int64_t buf_off, count;
} tl_fdtd_seg;

enum { TL_FDTD_MAXSEG = 4 + 2 * TL_FDTD_NPSI };

/* One ghost message of the dimension-ordered exchange: phase (axis) d,
 * filling `to`'s ghost slab on `side` from `from`'s interior. */
typedef struct tl_fdtd_msg {
    int from, to, phase, side;
    int nseg;
    tl_fdtd_seg seg[TL_FDTD_MAXSEG];
    int64_t count;       /* elements */
    void *send, *recv;   /* contiguous buffers on the sender's / receiver's backend */
    void *state;         /* the strategy's (host buffer, events) */
} tl_fdtd_msg;

typedef struct tl_fdtd_sub {
    int id, coord[3], device;
    int64_t o[3], n[3];          /* owned points: global [o, o + n) */
    int64_t lpad[3], hpad[3];    /* ghost depth below / above: g, or r at an outer face */
    int nbr[3][2];               /* neighbour subdomain per axis and side, -1: outer face */
    int64_t wrap[3][2];          /* add to a global coordinate here to get the neighbour's */
    tl_fdtd_layout full;         /* p, vx, vy, vz and the material arrays */
    tl_fdtd_layout psi[TL_FDTD_NPSI][2];
    void *fld[TL_FDTD_NFIELDS];  /* backend memory */
    void *mat[4];                /* K dt at p points; dt/rho at vx, vy, vz points; NULL: homogeneous */
    void *psi_mem[TL_FDTD_NPSI][2];
    void *prof;                  /* CPML profiles on this subdomain's backend (kargs layout) */
    void *bstate;                /* backend per-subdomain state (streams, events) */
} tl_fdtd_sub;

struct tl_fdtd;

typedef struct tl_fdtd_backend {
    const char *name;
    const char *default_strategy;
    /* the host itself packs, moves and unpacks the ghosts (the CPU): its
     * exchange is communication time in traces (runtime/marks.h), where a
     * GPU backend's exchange range covers only the enqueue */
    int exchange_on_host;
    tl_status (*setup)(struct tl_fdtd *f);            /* allocate, upload initial fields */
    /* update v (or p) of subdomain sd over box b (local), CPML or interior class */
    tl_status (*update)(struct tl_fdtd *f, int sd, int which, const tl_fdtd_box *b, int cpml);
    tl_status (*add_source)(struct tl_fdtd *f, int sd, int64_t idx, double value);
    tl_status (*sample)(struct tl_fdtd *f, int sd, int64_t step); /* receivers of sd at step */
    tl_status (*pack)(struct tl_fdtd *f, tl_fdtd_msg *m);
    tl_status (*unpack)(struct tl_fdtd *f, tl_fdtd_msg *m);
    tl_status (*mark)(struct tl_fdtd *f, int what);   /* stream joins around the exchange */
    tl_status (*sync)(struct tl_fdtd *f);
    tl_status (*download)(struct tl_fdtd *f, int sd, int field, void *host); /* whole padded array */
    /* first owned point (x fastest, owned-box numbering) where p is not finite
     * or beyond the blow-up limit, and its value; *bad_idx = -1: none */
    tl_status (*check)(struct tl_fdtd *f, int sd, int64_t *bad_idx, double *value);
    tl_status (*energy)(struct tl_fdtd *f, int sd, double *e);
    tl_status (*fetch_traces)(struct tl_fdtd *f);
    /* --breakdown: forget (reset = 1) or collect the per-operation device times */
    tl_status (*timers)(struct tl_fdtd *f, int reset);
    void (*teardown)(struct tl_fdtd *f);
} tl_fdtd_backend;

/* Operations of the device-time breakdown (tl_fdtd_stats.op). */
enum { TL_FDTD_OP_V = 0, TL_FDTD_OP_V_CPML, TL_FDTD_OP_P, TL_FDTD_OP_P_CPML, TL_FDTD_OP_PACK, TL_FDTD_OP_COPY,
       TL_FDTD_OP_UNPACK };

/* mark(): register the streams with the probes (at the start of a run);
 * the exchange stream waits for the compute stream; the compute stream
 * waits for the exchange stream */
enum { TL_FDTD_MARK_REGISTER = -1, TL_FDTD_MARK_XCH_BEGIN = 0, TL_FDTD_MARK_XCH_END };

typedef struct tl_fdtd_strategy {
    const char *name;
    tl_fdtd_backend_kind backend;
    const char *what;    /* one line for --help and the README */
    /* 1: rank r of the context holds subdomain r alone (ranks must equal
     * subdomains); 0: this process holds every subdomain */
    int per_rank;
    tl_status (*setup)(struct tl_fdtd *f);
    /* optional, collective on f->comm: what needs every rank at once (a
     * device communicator), at the start of every tl_fdtd_run, before the
     * first step; setup runs where ranks may create one after another */
    tl_status (*start)(struct tl_fdtd *f);
    /* move every message of a phase from its send buffer into its receive
     * buffer, after the packs and before the unpacks */
    tl_status (*transfer)(struct tl_fdtd *f, int phase);
    void (*teardown)(struct tl_fdtd *f);
} tl_fdtd_strategy;

const tl_fdtd_strategy *tl_fdtd_strategy_find(const char *name, tl_fdtd_backend_kind b);

extern const tl_fdtd_backend tl_fdtd_backend_cpu;
extern const tl_fdtd_backend tl_fdtd_backend_cuda;

struct tl_fdtd {
    tl_fdtd_config cfg;
    int r, g, nsub;
    double dt, c[4];
    size_t esz;                  /* 4 or 8 */
    tl_fdtd_sub *sub;
    tl_fdtd_msg *msg[3];         /* per phase */
    int nmsg[3];
    /* CPML profiles per axis, host, double: kargs order (see fdtd_kargs.h) */
    double *prof_host[3];
    const tl_fdtd_backend *be;
    const tl_fdtd_strategy *st;
    void *bglobal;               /* backend-wide state */
    void *sglobal;               /* strategy-wide state */
    tl_ctx *ctx;                 /* during run, for the probes */
    /* per-rank strategy: the ranks the subdomains are spread over and the
     * one this rank holds; NULL and -1 when this process holds them all */
    tl_ctx *comm;
    int own;
    double *traces;              /* nrec x (warmup + steps) */
    int64_t *rec_sub, *rec_idx;  /* owner subdomain and local index per receiver */
    double *energy;              /* (step, energy) pairs */
    int64_t nenergy;
    int64_t step;                /* steps done */
    int64_t nslices, slice_first; /* slices written (rank 0), said where the run fails */
    tl_fdtd_box *inner;          /* per subdomain: the part of the last step beside the exchange */
    tl_fdtd_stats stats;
};

/* The ranks this rank's messages of phase d go to or come from (subdomain
 * r is rank r), one per message, in plan order: itself where it sends to
 * itself, a rank twice where two messages go between them. rank[] has
 * room for f->nmsg[d]; returns how many. For traces: the peers of the
 * phase's exchange (runtime/marks.h tl_mark_peers). */
int tl_fdtd_phase_ranks(const struct tl_fdtd *f, int d, int *rank);

/* Whether this process holds subdomain sd (its memory, its updates). */
static inline int tl_fdtd_mine(const struct tl_fdtd *f, int sd) { return f->own < 0 || f->own == sd; }

/* Element index of local point (x, y, z) in a layout. */
static inline int64_t tl_fdtd_index(const tl_fdtd_layout *l, int64_t x, int64_t y, int64_t z)
{
    return l->off + x + y * l->sx + z * l->sxy;
}
static inline int tl_fdtd_box_empty(const tl_fdtd_box *b)
{
    return b->hi[0] <= b->lo[0] || b->hi[1] <= b->lo[1] || b->hi[2] <= b->lo[2];
}
static inline int64_t tl_fdtd_box_count(const tl_fdtd_box *b)
{
    return tl_fdtd_box_empty(b) ? 0 : (b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]);
}

/* grid.c: cut the grid, layouts, the exchange plan */
/* Whether the grid of c cuts into its px py pz subdomains, each at least
 * the ghost depth g thick where it has a neighbour: the refusal, in one
 * line, that tl_fdtd_grid_build would give, before anything is allocated. */
tl_status tl_fdtd_grid_check(const tl_fdtd_config *c, int g);
tl_status tl_fdtd_grid_build(tl_fdtd *f);
void tl_fdtd_grid_free(tl_fdtd *f);
/* Split box b of subdomain sd into its interior part (no CPML slab on any
 * axis) and up to 6 CPML boxes; returns the count in *n (out[0] interior,
 * possibly empty). */
void tl_fdtd_grid_classify(const tl_fdtd *f, int sd, const tl_fdtd_box *b, tl_fdtd_box out[7], int cls[7], int *n);
/* Fill a kernel-argument struct for subdomain sd (pointers from the backend's memory). */
void tl_fdtd_kargs_of(const tl_fdtd *f, int sd, tl_fdtd_kargs *a);
/* model.c: the CPML profiles of every axis (host, double) */
tl_status tl_fdtd_model_profiles(tl_fdtd *f);
/* the segment descriptors of a message, sender (send = 1) or receiver side */
void tl_fdtd_msg_descs(const tl_fdtd *f, const tl_fdtd_msg *m, int send, tl_fdtd_segdesc *d);

#endif
