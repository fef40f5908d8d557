#include "model/jobs.h"

#include <string.h>

/* Events of a job. */
enum { EV_INPUT, EV_HALO, EV_DOTS, EV_REDUCED, EV_END0 /* + lane */ };

tl_status tl_mkcost_for(const tl_mcalib *c, const char *calib_path, const tl_mplatform *p, tl_mkcost *k)
{
    /* before, every triad was scaled as an H200's: an A100's calibration
     * predicted an A100 at 2,039/4,800 of its own bandwidth, in silence */
    const char *gpu = c->gpu[0] ? c->gpu : TL_MCALIB_DEFAULT_GPU;
    /* nothing named the GPU calibrate read: not taken as an H200's, as a
     * file from before the key is */
    const int unnamed = !strcmp(gpu, TL_MCALIB_GPU_UNNAMED);
    const tl_mplatform *own = unnamed ? NULL : tl_mplatform_of_device(gpu);
    /* one refusal for a GPU whose nominal bandwidth is not known, worded
     * for the two ways that happens */
    char what[256];
    if (unnamed)
        snprintf(what, sizeof what, "names no GPU (gpu = %s: no manifest, stream.csv device column or trace of its "
                 "inputs named the GPU measured)", TL_MCALIB_GPU_UNNAMED);
    else
        snprintf(what, sizeof what, "was measured on %.100s, whose nominal memory bandwidth the platform table "
                 "(model/platform.c) does not know", gpu);
    TL_CHECK(c->gpu_mem_gbs > 0 || own, TL_ERR_INVAL,
             "calibration %s %s, so its triad cannot be scaled to %s: %sadd 'gpu_mem_gbs = GB/s' (%s) to it, or "
             "calibrate again with --gpu-mem-gbs",
             calib_path, what, p->gpu, unnamed ? "put the GPU's CUDA device name in place of 'unknown', or " : "",
             unnamed ? "its nominal memory bandwidth" : "the vendor's figure");
    *k = (tl_mkcost){.fixed_s = 1e-6 * c->pcg_fixed_us / 4, /* dot, precond, SpMV, update on one rank */
                     .calib_nominal_gbs = c->gpu_mem_gbs > 0 ? c->gpu_mem_gbs : own->mem_gbs,
                     .calib_gpu = unnamed ? "a GPU its inputs do not name" : gpu};
    k->gbs = c->pcg_bw_frac * c->triad_gbs * p->mem_gbs / k->calib_nominal_gbs;
    return TL_OK;
}

static double kernel_s(const tl_mkcost *k, double bytes)
{
    return k->fixed_s + bytes / (k->gbs * 1e9);
}

typedef struct builder {
    tl_mjob *j;
    int lane_of_role[TL_ROLE_COUNT];
    int producer[TL_MODEL_MAX_EVENTS]; /* lane recording each event */
} builder;

static int lane_for(builder *b, tl_role role)
{
    if (b->lane_of_role[role] >= 0) return b->lane_of_role[role];
    tl_mjob *j = b->j;
    int l = j->nlanes++;
    j->lanes[l].name = tl_role_name(role);
    b->lane_of_role[role] = l;
    return l;
}

static tl_mop *push(tl_mjob *j, int lane, tl_mop op)
{
    tl_mlane *L = &j->lanes[lane];
    if (L->nops >= TL_MODEL_MAX_OPS) return NULL;
    int issued = 0;
    for (int l = 0; l < j->nlanes; l++) issued += j->lanes[l].nops;
    op.issue = issued; /* pushed in the host's order */
    L->ops[L->nops] = op;
    return &L->ops[L->nops++];
}

static void builder_init(builder *b, tl_mjob *j)
{
    b->j = j;
    for (int r = 0; r < TL_ROLE_COUNT; r++) b->lane_of_role[r] = -1;
    for (int e = 0; e < TL_MODEL_MAX_EVENTS; e++) b->producer[e] = -1;
    j->nlanes = 0;
    lane_for(b, TL_ROLE_COMPUTE); /* lane 0 */
}

static tl_mcat cat_of_event(int ev)
{
    return ev == EV_HALO ? TL_MCAT_P2P : ev == EV_REDUCED ? TL_MCAT_COLL : TL_MCAT_COMPUTE;
}

/* One step of a method's iteration in the order the CUDA backend enqueues
 * it: the schedule row gives its stream, communicator and waits. */
typedef struct mstep {
    tl_sched_op op;
    int produces;     /* event recorded right after it (-1: none) */
    int mark;         /* no operation: only the record of `produces` on op's stream */
    double row_bytes; /* vector kernels: bytes moved per owned row */
    int64_t ar_bytes; /* ALLREDUCE: the dots reduced, 8 B each */
    const char *name; /* a kernel that is not the op's own (the scalar program) */
} mstep;

/* Pipe-PCG (method_pipecg.c's order): dots, allreduce, precond, halo,
 * interior and border SpMV, dot wait, update. */
static const mstep pipecg_steps[] = {
    {TL_SOP_DOT, EV_DOTS, 0, 3 * 8, 0, NULL}, /* r, u, w */
    {TL_SOP_ALLREDUCE, EV_REDUCED, 0, 0, 24, NULL}, /* gamma, delta, |r|^2 */
    {TL_SOP_PRECOND, EV_INPUT, 0, 3 * 8, 0, NULL}, /* w, 1/diag -> m */
    {TL_SOP_HALO_POST, EV_HALO, 0, 0, 0, NULL},
    {TL_SOP_SPMV_INTERIOR, -1, 0, 0, 0, NULL},
    {TL_SOP_SPMV_BORDER, -1, 0, 0, 0, NULL},
    {TL_SOP_DOT_WAIT, -1, 0, 0, 0, NULL},
    {TL_SOP_UPDATE, -1, 0, 18 * 8, 0, NULL}, /* 10 vectors read, 8 written */
};

/* Pipe-BiCGStab (pipebicgstab_async.c): two halves, each an update group
 * with zh = M z (w^ = M w) and its local dots, the allreduce of those dots,
 * the SpMV of the preconditioned vector with its halo, and the wait for
 * the reduced dots. The SpMV's operand is marked ready at spmv_begin, on
 * the preconditioner's stream, after the allreduce was issued; beta and
 * alpha come from a scalar program that runs as a kernel of its own at the
 * iteration's end (regs_post flushes it; omega's runs in the second
 * group's kernel). Bytes: each vector read before the pass writes it, and
 * each written, once (the backend's statistics). */
static const mstep pipebicgstab_steps[] = {
    /* p, p^, s, s^, z (3 terms), q, q^, y (2): 12 read, 8 written */
    {TL_SOP_UPDATE, -1, 0, 20 * 8, 0, NULL},
    {TL_SOP_PRECOND, -1, 0, 3 * 8, 0, NULL},   /* z, 1/diag -> z^ */
    {TL_SOP_DOT, EV_DOTS, 0, 2 * 8, 0, NULL},  /* (q, y), (y, y) */
    {TL_SOP_ALLREDUCE, EV_REDUCED, 0, 0, 16, NULL},
    {TL_SOP_PRECOND, EV_INPUT, 1, 0, 0, NULL},
    {TL_SOP_HALO_POST, EV_HALO, 0, 0, 0, NULL},
    {TL_SOP_SPMV_INTERIOR, -1, 0, 0, 0, NULL}, /* v = A z^ */
    {TL_SOP_SPMV_BORDER, -1, 0, 0, 0, NULL},
    {TL_SOP_DOT_WAIT, -1, 0, 0, 0, NULL},
    /* x (3 terms), r (2), r^, w (3): x p^ q^ q y w^ z^ t v read, 4 written */
    {TL_SOP_UPDATE, -1, 0, 13 * 8, 0, NULL},
    {TL_SOP_PRECOND, -1, 0, 3 * 8, 0, NULL},   /* w, 1/diag -> w^ */
    {TL_SOP_DOT, EV_DOTS, 0, 5 * 8, 0, NULL},  /* r0~ with r, w, s, z; (r, r) */
    {TL_SOP_ALLREDUCE, EV_REDUCED, 0, 0, 40, NULL},
    {TL_SOP_PRECOND, EV_INPUT, 1, 0, 0, NULL},
    {TL_SOP_HALO_POST, EV_HALO, 0, 0, 0, NULL},
    {TL_SOP_SPMV_INTERIOR, -1, 0, 0, 0, NULL}, /* t = A w^ */
    {TL_SOP_SPMV_BORDER, -1, 0, 0, 0, NULL},
    {TL_SOP_DOT_WAIT, -1, 0, 0, 0, NULL},
    {TL_SOP_UPDATE, -1, 0, 0, 0, "scalars"},   /* beta, alpha: a launch, no vector */
};

static const int sev_bit_to_event[TL_SEV_NEVENTS] = {EV_INPUT, EV_HALO, EV_DOTS, EV_REDUCED};

#define PUSH(j, lane, ...)                                                                                    \
    TL_CHECK(push((j), (lane), (tl_mop){__VA_ARGS__}), TL_ERR_INVAL, "more than %d operations on one lane", \
             TL_MODEL_MAX_OPS)

/* A method's iteration under a schedule: per step the waits its schedule
 * row names for events of other lanes, the step, and its event. */
static tl_status build_method(tl_mjob *j, const tl_schedule *s, const tl_mpart *part, const tl_mkcost *k,
                              const tl_mcalib *c, int iters, const mstep *steps, size_t nsteps)
{
    TL_TRY(tl_mjob_alloc(j, part->nranks));
    builder b;
    builder_init(&b, j);
    j->iters = iters;
    j->alpha_coll_s = 1e-6 * c->alpha_coll_us;
    j->alpha_p2p_s = 1e-6 * c->alpha_p2p_us;
    j->cross_lane_s = 1e-6 * c->xstream_us;
    j->ar_algo = TL_MAR_TREE;
    j->comm_needs_peers = 1;
    /* the producers first: a wait names the lane of its event's step */
    for (size_t i = 0; i < nsteps; i++)
        if (steps[i].produces >= 0)
            b.producer[steps[i].produces] = lane_for(&b, tl_schedule_step(s, steps[i].op)->role);
    for (size_t i = 0; i < nsteps; i++) {
        const mstep *m = &steps[i];
        const tl_sched_step *st = tl_schedule_step(s, m->op);
        int lane = lane_for(&b, st->role);
        for (int bit = 0; bit < TL_SEV_NEVENTS && !m->mark; bit++) {
            if (!(st->waits & (1u << bit))) continue;
            int ev = sev_bit_to_event[bit];
            if (b.producer[ev] == lane) continue; /* same stream: ordered already */
            PUSH(j, lane, .kind = TL_MOP_WAIT, .ev = ev, .cat = cat_of_event(ev), .name = "wait");
        }
        int chan = st->chan == TL_CHAN_SPLIT;
        if (m->mark) {
            /* only the record below */
        } else if (m->op == TL_SOP_HALO_POST) {
            PUSH(j, lane, .kind = TL_MOP_COMM, .comm = TL_MCOMM_HALO, .chan = chan, .cat = TL_MCAT_P2P,
                 .name = "halo");
        } else if (m->op == TL_SOP_ALLREDUCE) {
            PUSH(j, lane, .kind = TL_MOP_COMM, .comm = TL_MCOMM_ALLREDUCE, .chan = chan, .bytes = m->ar_bytes,
                 .cat = TL_MCAT_COLL, .name = "allreduce");
        } else if (m->op != TL_SOP_DOT_WAIT && m->op != TL_SOP_HALO_WAIT) {
            PUSH(j, lane, .kind = TL_MOP_KERNEL, .name = m->name ? m->name : tl_sched_op_name(m->op));
            for (int r = 0; r < part->nranks; r++) {
                const tl_mrank_stats *R = &part->r[r];
                double bytes = m->row_bytes * (double)R->rows;
                if (m->op == TL_SOP_SPMV_INTERIOR) /* values + columns, x, y, row pointers */
                    bytes = 12.0 * (double)R->nnz_diag + 20.0 * (double)R->rows;
                if (m->op == TL_SOP_SPMV_BORDER)
                    bytes = 12.0 * (double)R->nnz_offd + 20.0 * (double)R->border_rows + 8.0 * (double)R->ghosts;
                int no_border = m->op == TL_SOP_SPMV_BORDER && R->border_rows == 0;
                *tl_mjob_cost(j, r, lane, j->lanes[lane].nops - 1) = no_border ? 0 : kernel_s(k, bytes);
            }
        }
        if (m->produces >= 0) PUSH(j, lane, .kind = TL_MOP_RECORD, .ev = m->produces, .name = "record");
    }
    for (int r = 0; r < part->nranks; r++)
        for (int e = 0; e < part->halo[r].n; e++)
            TL_TRY(tl_mhalo_add(j->halo, r, part->halo[r].peer[e], part->halo[r].bytes[e]));
    return tl_mjob_check(j);
}

tl_status tl_mjob_pipecg(tl_mjob *j, const tl_schedule *s, const tl_mpart *part, const tl_mkcost *k,
                         const tl_mcalib *c, int iters)
{
    return build_method(j, s, part, k, c, iters, pipecg_steps, sizeof pipecg_steps / sizeof pipecg_steps[0]);
}

tl_status tl_mjob_pipebicgstab(tl_mjob *j, const tl_schedule *s, const tl_mpart *part, const tl_mkcost *k,
                               const tl_mcalib *c, int iters)
{
    return build_method(j, s, part, k, c, iters, pipebicgstab_steps,
                        sizeof pipebicgstab_steps / sizeof pipebicgstab_steps[0]);
}

tl_status tl_mjob_tristream(tl_mjob *j, const tl_schedule *s, const char *part_alone, int nranks,
                            const tl_mcalib *c, int iters)
{
    TL_TRY(tl_mjob_alloc(j, nranks));
    builder b;
    builder_init(&b, j);
    j->iters = iters;
    j->alpha_coll_s = 1e-6 * c->alpha_coll_us;
    j->alpha_p2p_s = 1e-6 * c->alpha_p2p_us;
    j->cross_lane_s = 1e-6 * c->xstream_us;
    j->ar_algo = TL_MAR_TREE;
    int want_ar = 1, want_ring = 1, want_daxpy = 1;
    tl_role r_ar = TL_ROLE_COMPUTE, r_ring = TL_ROLE_P2P, r_daxpy = TL_ROLE_COMPUTE;
    int c_ar = 0, c_ring = 0;
    if (s) {
        r_ar = tl_schedule_step(s, TL_SOP_ALLREDUCE)->role;
        c_ar = tl_schedule_step(s, TL_SOP_ALLREDUCE)->chan == TL_CHAN_SPLIT;
        r_ring = tl_schedule_step(s, TL_SOP_HALO_POST)->role;
        c_ring = tl_schedule_step(s, TL_SOP_HALO_POST)->chan == TL_CHAN_SPLIT;
        r_daxpy = tl_schedule_step(s, TL_SOP_UPDATE)->role;
    } else {
        TL_CHECK(part_alone, TL_ERR_INVAL, "a schedule or a part");
        want_ar = strcmp(part_alone, "allreduce-only") == 0;
        want_ring = strcmp(part_alone, "ring-only") == 0;
        want_daxpy = strcmp(part_alone, "daxpy-only") == 0;
        TL_CHECK(want_ar + want_ring + want_daxpy == 1, TL_ERR_INVAL, "unknown part '%s'", part_alone);
        /* a part alone runs on one stream and joins none: the model's
         * lane 0, where its time counts as exposed */
        r_ar = r_daxpy = r_ring = TL_ROLE_COMPUTE;
    }
    int l_ar = want_ar ? lane_for(&b, r_ar) : -1, l_ring = want_ring ? lane_for(&b, r_ring) : -1;
    int l_daxpy = want_daxpy ? lane_for(&b, r_daxpy) : -1;
    /* every lane in use waits for the others' end of the previous iteration
     * (lane 0 exists even where a part alone leaves it empty: no join then) */
    int used[TL_MODEL_MAX_LANES] = {0};
    if (l_ar >= 0) used[l_ar] = 1;
    if (l_ring >= 0) used[l_ring] = 1;
    if (l_daxpy >= 0) used[l_daxpy] = 1;
    for (int l = 0; l < j->nlanes; l++)
        for (int m = 0; m < j->nlanes; m++)
            if (m != l && used[l] && used[m])
                push(j, l, (tl_mop){.kind = TL_MOP_WAIT, .ev = EV_END0 + m, .skip_first = 1,
                                    .cat = m == l_ring ? TL_MCAT_P2P : m == l_ar ? TL_MCAT_COLL : TL_MCAT_COMPUTE,
                                    .name = "join"});
    /* host issue order: allreduce, ring, DAXPY */
    if (want_ar)
        push(j, l_ar, (tl_mop){.kind = TL_MOP_COMM, .comm = TL_MCOMM_ALLREDUCE, .chan = c_ar,
                               .bytes = (int64_t)c->ts_allreduce_bytes, .cat = TL_MCAT_COLL, .name = "allreduce"});
    if (want_ring)
        push(j, l_ring, (tl_mop){.kind = TL_MOP_COMM, .comm = TL_MCOMM_RING, .chan = c_ring,
                                 .bytes = (int64_t)c->ts_ring_bytes, .cat = TL_MCAT_P2P, .name = "ring"});
    if (want_daxpy) {
        push(j, l_daxpy, (tl_mop){.kind = TL_MOP_KERNEL, .name = "daxpy"});
        for (int r = 0; r < nranks; r++)
            *tl_mjob_cost(j, r, l_daxpy, j->lanes[l_daxpy].nops - 1) = 1e-6 * c->ts_daxpy_us;
    }
    int nused = used[0] + used[1] + used[2];
    for (int l = 0; l < j->nlanes; l++)
        if (nused > 1 && used[l]) push(j, l, (tl_mop){.kind = TL_MOP_RECORD, .ev = EV_END0 + l, .name = "end"});
    return tl_mjob_check(j);
}

tl_status tl_mjob_fdtd(tl_mjob *j, const tl_mfdtd *f)
{
    int nr = f->px * f->py * f->pz;
    TL_CHECK(f->n % f->px == 0 && f->n % f->py == 0 && f->n % f->pz == 0, TL_ERR_INVAL,
             "grid %d does not divide into %dx%dx%d", f->n, f->px, f->py, f->pz);
    TL_CHECK(f->s >= 1 && f->steps % f->s == 0, TL_ERR_INVAL, "%d steps in exchanges of %d", f->steps, f->s);
    TL_TRY(tl_mjob_alloc(j, nr));
    j->nlanes = 1;
    j->lanes[0].name = "compute";
    j->iters = f->steps / f->s;
    j->alpha_p2p_s = 0; /* fitted into the platform's port latency instead */
    double lx = (double)f->n / f->px, ly = (double)f->n / f->py, lz = (double)f->n / f->pz;
    double face[3] = {ly * lz, lx * lz, lx * ly};
    int dims[3] = {f->px, f->py, f->pz};
    /* one exchange per step and field (s = 1), or all fields every s steps, r*s deep */
    int rounds = f->s == 1 ? f->fields_per_exchange : 1;
    int fields = f->s == 1 ? 1 : f->fields_per_exchange;
    double depth = (double)f->radius * f->s;
    for (int q = 0; q < rounds; q++) {
        push(j, 0, (tl_mop){.kind = TL_MOP_KERNEL, .name = "update"});
        push(j, 0, (tl_mop){.kind = TL_MOP_COMM, .comm = f->staged ? TL_MCOMM_STAGED : TL_MCOMM_HALO,
                            .cat = TL_MCAT_P2P, .name = "exchange"});
    }
    for (int r = 0; r < nr; r++) {
        int c[3] = {r % f->px, (r / f->px) % f->py, r / (f->px * f->py)};
        double points = lx * ly * lz, extra = 0;
        for (int d = 0; d < 3; d++)
            for (int dir = -1; dir <= 1; dir += 2) {
                int cc = c[d] + dir;
                if (cc < 0 || cc >= dims[d]) continue;
                int nb[3] = {c[0], c[1], c[2]};
                nb[d] = cc;
                int peer = nb[0] + f->px * (nb[1] + f->py * nb[2]);
                /* the ghost layers recomputed between exchanges: on average r(s-1) deep */
                extra += face[d] * f->radius * (f->s - 1);
                double bytes = face[d] * depth * fields * f->bytes_per_value;
                TL_TRY(tl_mhalo_add(j->halo, r, peer, (int64_t)bytes));
            }
        double step_s = (points + extra) / (f->mpoints_s * 1e6);
        for (int q = 0; q < rounds; q++) *tl_mjob_cost(j, r, 0, 2 * q) = step_s * f->s / rounds;
    }
    return tl_mjob_check(j);
}
