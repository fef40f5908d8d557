/* An Nsight Systems export's rank in the Kineto reader's form, for
 * `collectives` (kineto_comm.c), which reads what an NCCL kernel served and
 * what it waited behind from it: the GPU rows (kernels, copies, memsets and
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION's stream waits) as its stream rows,
 * the launch calls (CUPTI_ACTIVITY_KIND_RUNTIME, by correlation id) as its
 * runtime calls, the iterations (trilap's `iter` ranges, or the program's
 * with --iter-nvtx) as its ProfilerSteps, and the operation NCCL's NVTX
 * ranges tell (nsys.c, nccl_ops) as an `nccl:` op around the launch.
 * NCCL's NVTX payloads (communicator, message size) are not in an export,
 * so an op has no process group and no size (analysis/README.md,
 * "Collectives"). */
#include "analysis/kineto.h"
#include "analysis/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kn_build {
    tl_kt_trace *t;
    size_t cs, cc, cst, cop; /* capacities of s, c, steps, ops */
} kn_build;

static double us_of(int64_t ns)
{
    return (double)ns / 1e3;
}

static tl_status add_record(void *user, const tl_trace_record *r)
{
    kn_build *b = user;
    tl_kt_trace *t = b->t;
    uint32_t name;
    static const uint8_t gpu_kind[] = {[TL_KIND_KERNEL] = TL_KT_KERNEL, [TL_KIND_MEMCPY] = TL_KT_MEMCPY,
                                       [TL_KIND_MEMSET] = TL_KT_MEMSET, [TL_KIND_SYNC] = TL_KT_SYNC};
    if (r->device >= 0 && r->kind <= TL_KIND_SYNC) {
        TL_TRY(TL_AN_GROW(t->s, t->ns, b->cs, "GPU rows"));
        TL_TRY(tl_an_names_intern(t->names, r->name, &name));
        t->s[t->ns++] = (tl_kt_srow){us_of(r->start_ns), us_of(r->end_ns - r->start_ns), (int64_t)r->stream,
                                     r->corr ? (int64_t)r->corr : -1, r->bytes, name, r->device, gpu_kind[r->kind]};
    } else if (r->kind == TL_KIND_HOST && r->corr && !strncmp(r->name, "cuda:", 5)) {
        /* a launch: its own "thread", so that only its op (below) is around it */
        TL_TRY(TL_AN_GROW(t->c, t->nc, b->cc, "launches"));
        TL_TRY(tl_an_names_intern(t->names, r->name + 5, &name));
        t->c[t->nc++] = (tl_kt_crow){us_of(r->start_ns), us_of(r->end_ns - r->start_ns), (int64_t)r->corr,
                                     (int64_t)r->corr, name, TL_KT_RUNTIME};
    } else if (r->kind == TL_KIND_HOST && r->iter >= 0 && !strcmp(r->name, "iter")) {
        TL_TRY(TL_AN_GROW(t->steps, t->nsteps, b->cst, "iterations"));
        t->steps[t->nsteps++] = (tl_kt_step){us_of(r->start_ns), us_of(r->end_ns - r->start_ns), r->iter, 0};
    }
    return TL_OK;
}

static int cmp_crow(const void *a, const void *b)
{
    const tl_kt_crow *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

static int cmp_step(const void *a, const void *b)
{
    const tl_kt_step *x = a, *y = b;
    return x->ts_us < y->ts_us ? -1 : x->ts_us > y->ts_us;
}

/* NCCL's operation of a launch as the nccl:* op around it, on its "thread" */
static tl_status add_op(void *user, int64_t corr, const char *op, int p2p)
{
    (void)p2p; /* the op's name says it (ncclSend, ncclRecv) */
    kn_build *b = user;
    tl_kt_trace *t = b->t;
    const tl_kt_crow *ln = tl_kt_launch_of(t, corr);
    if (!ln) return TL_OK; /* a launch the rank does not hold (another thread-rank's) */
    char name[96];
    snprintf(name, sizeof name, "nccl:%s", op);
    TL_TRY(TL_AN_GROW(t->ops, t->nops, b->cop, "NCCL operations"));
    uint32_t id;
    TL_TRY(tl_an_names_intern(t->names, name, &id));
    t->ops[t->nops++] = (tl_kt_op){.ts_us = ln->ts_us, .dur_us = ln->dur_us, .tid = ln->tid, .ext = -1,
                                   .nelems = -1, .bytes = -1, .name = id, .peer = -1, .self_local = -1,
                                   .peer_local = -1};
    return TL_OK;
}

/* The steps numbered over the trace as every command numbers them
 * (iters.c, "A loop run again in one trace"): a number not above the one
 * before begins the loop again, numbered on after the highest so far
 * (PyTorch's warm-up step 0..4, then 0..29: 0..34) */
static void number_steps(tl_kt_trace *t)
{
    int64_t prev = 0, top = -1, off = 0;
    for (size_t i = 0; i < t->nsteps; i++) {
        int64_t k = t->steps[i].num;
        if (i && k <= prev) off = top + 1 - k;
        t->steps[i].num = k + off;
        if (t->steps[i].num > top) top = t->steps[i].num;
        prev = k;
    }
}

tl_status tl_kt_from_nsys(const char *rank_path, tl_kt_trace **out, tl_an_meta *meta)
{
    char file[4096];
    int rank = 0;
    const char *iter_nvtx = NULL;
    TL_CHECK(tl_an_nsys_path(rank_path, file, sizeof file, &rank, &iter_nvtx), TL_ERR_INVAL,
             "%s: not a rank of an Nsight Systems export", rank_path);
    tl_status st = TL_OK;
    kn_build b = {.t = calloc(1, sizeof *b.t)};
    TL_CHECK(b.t, TL_ERR_NOMEM, "%s", rank_path);
    tl_kt_trace *t = b.t;
    uint32_t id0;
    t->rank = t->world = -1;
    snprintf(t->path, sizeof t->path, "%s", rank_path);
    TL_TRYGOTO(tl_an_names_create(&t->names), st, fail);
    TL_TRYGOTO(tl_an_names_intern(t->names, "", &id0), st, fail);
    TL_TRYGOTO(tl_an_nsys_scan(file, rank, iter_nvtx, add_record, &b, meta, NULL), st, fail);
    if (t->nc) qsort(t->c, t->nc, sizeof *t->c, cmp_crow); /* tl_kt_launch_of: by correlation id */
    if (t->nsteps) qsort(t->steps, t->nsteps, sizeof *t->steps, cmp_step); /* tl_kt_step_at: by time */
    number_steps(t);
    TL_TRYGOTO(tl_an_nsys_nccl_ops(file, rank, add_op, &b), st, fail);
    t->rank = meta->rank;
    t->world = meta->nranks;
    snprintf(t->device_name, sizeof t->device_name, "%s", meta->device_name);
    *out = t;
    return TL_OK;
fail:
    tl_kt_free(&t);
    return st;
}
