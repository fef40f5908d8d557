/* Runs one host-communication scenario under the launcher, in either mode:
 *   helper_launch [--launcher threads --ranks N | under mpirun] SCENARIO
 * Spawned by tests/test_launch.c; prints "SCENARIO ok on N ranks" from
 * rank 0 and exits 0 when every check held. `--list` prints nothing (the
 * test runner asks every binary it is given). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "runtime/comm.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "runtime/out.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"
#include "tests/tl_test_helper.h"

typedef struct helper_opts {
    int64_t fail_rank;
    int64_t iters;
    const char *manifest;
    const char *scenario;
} helper_opts;

static const tl_option helper_options[] = {
    {.name = "fail-rank", .type = TL_OPT_INT, .offset = offsetof(helper_opts, fail_rank), .def = "1",
     .metavar = "R", .help = "the rank that fails in the failure scenarios", .min = 0, .max = 1024},
    {.name = "iters", .type = TL_OPT_INT, .offset = offsetof(helper_opts, iters), .def = "200", .metavar = "N",
     .help = "iterations of the p2p scenario", .min = 1, .max = 1000000},
    {.name = "manifest", .type = TL_OPT_STRING, .offset = offsetof(helper_opts, manifest), .metavar = "FILE",
     .help = "manifest scenario: where to write; mkdir scenario: the folder TOP/a/b to make; fail-output: the "
             "output the failing rank leaves unfinished"},
};

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) return TL_FAIL(TL_ERR_NUMERIC, __VA_ARGS__);           \
    } while (0)

static tl_status collectives(tl_ctx *ctx)
{
    int n = ctx->size, r = ctx->rank;
    TL_TRY(tl_comm_barrier(ctx));
    double d[3] = {r + 1.0, r + 1.0, r + 1.0};
    TL_TRY(tl_comm_allreduce(ctx, &d[0], 1, TL_DOUBLE, TL_SUM));
    TL_TRY(tl_comm_allreduce(ctx, &d[1], 1, TL_DOUBLE, TL_MAX));
    TL_TRY(tl_comm_allreduce(ctx, &d[2], 1, TL_DOUBLE, TL_MIN));
    CHECK(d[0] == n * (n + 1) / 2.0 && d[1] == n && d[2] == 1.0, "allreduce double: %g %g %g", d[0], d[1], d[2]);
    int64_t big = ((int64_t)1 << 40) + r;
    TL_TRY(tl_comm_allreduce(ctx, &big, 1, TL_INT64, TL_SUM));
    CHECK(big == ((int64_t)n << 40) + n * (n - 1) / 2, "allreduce int64 sum: %lld", (long long)big);
    int32_t i32[2] = {-r, -r};
    TL_TRY(tl_comm_allreduce(ctx, &i32[0], 1, TL_INT32, TL_MIN));
    TL_TRY(tl_comm_allreduce(ctx, &i32[1], 1, TL_INT32, TL_MAX));
    CHECK(i32[0] == -(n - 1) && i32[1] == 0, "allreduce int32: %d %d", i32[0], i32[1]);
    enum { V = 1000 };
    double *vec = malloc(V * sizeof *vec);
    if (!vec) return TL_FAIL(TL_ERR_NOMEM, "vector");
    for (int i = 0; i < V; i++) vec[i] = (double)r * i;
    tl_status st = tl_comm_allreduce(ctx, vec, V, TL_DOUBLE, TL_SUM);
    for (int i = 0; st == TL_OK && i < V; i++)
        if (vec[i] != (double)i * n * (n - 1) / 2) st = TL_FAIL(TL_ERR_NUMERIC, "allreduce vector[%d] = %g", i, vec[i]);
    free(vec);
    TL_TRY(st);

    unsigned char bc[100];
    int root = n - 1;
    for (int i = 0; i < 100; i++) bc[i] = r == root ? (unsigned char)(i * 7 + 3) : 0;
    TL_TRY(tl_comm_bcast(ctx, bc, sizeof bc, root));
    for (int i = 0; i < 100; i++) CHECK(bc[i] == (unsigned char)(i * 7 + 3), "bcast byte %d = %d", i, bc[i]);

    int32_t mine[3] = {r, 2 * r, 3 * r}, *all = calloc((size_t)n * 3, sizeof *all);
    if (!all) return TL_FAIL(TL_ERR_NOMEM, "allgather");
    st = tl_comm_allgather(ctx, mine, all, sizeof mine);
    for (int q = 0; st == TL_OK && q < n; q++)
        if (all[3 * q] != q || all[3 * q + 1] != 2 * q || all[3 * q + 2] != 3 * q)
            st = TL_FAIL(TL_ERR_NUMERIC, "allgather block %d: %d %d %d", q, all[3 * q], all[3 * q + 1], all[3 * q + 2]);
    free(all);
    TL_TRY(st);

    /* gatherv: rank q sends q+1 values of q */
    int32_t send[64];
    for (int i = 0; i <= r; i++) send[i] = r;
    size_t counts[64], total = 0;
    for (int q = 0; q < n; q++) total += counts[q] = (size_t)(q + 1) * sizeof(int32_t);
    int32_t *g = calloc(total / sizeof(int32_t) + 1, sizeof *g);
    if (!g) return TL_FAIL(TL_ERR_NOMEM, "gatherv");
    st = tl_comm_gatherv(ctx, send, (size_t)(r + 1) * sizeof(int32_t), g, r == 0 ? counts : NULL, 0);
    if (st == TL_OK && r == 0) {
        size_t at = 0;
        for (int q = 0; q < n; q++)
            for (int i = 0; i <= q; i++, at++)
                if (g[at] != q) st = TL_FAIL(TL_ERR_NUMERIC, "gatherv element %zu = %d, want %d", at, g[at], q);
    }
    free(g);
    TL_TRY(st);
    TL_TRY(tl_comm_agree(ctx, TL_OK));
    return TL_OK;
}

/* Ring isend/irecv on both channels, interleaved with iallreduce on both,
 * waited in an order unlike the posting order. */
static tl_status p2p(tl_ctx *ctx, int64_t iters)
{
    int n = ctx->size, r = ctx->rank, right = (r + 1) % n, left = (r - 1 + n) % n;
    enum { M = 4096 };
    double *buf = calloc(8 * (size_t)M, sizeof *buf);
    if (!buf) return TL_FAIL(TL_ERR_NOMEM, "p2p buffers");
    double *sa = buf, *sb = buf + M, *ss = buf + 2 * M, *ra = buf + 3 * M, *rb = buf + 4 * M, *rs = buf + 5 * M,
           *aw = buf + 6 * M, *as = buf + 7 * M;
    tl_status st = TL_OK;
    for (int64_t k = 0; k < iters && st == TL_OK; k++) {
        size_t len = 1 + (size_t)((k * 37) % M);
        int tag = (int)(k % 7);
        for (size_t i = 0; i < len; i++) {
            sa[i] = r * 1e6 + k + i;
            sb[i] = -(r * 1e6 + k + i);
            ss[i] = r + 0.5 * k + i;
            aw[i] = r + k + i;
            as[i] = 2.0 * r - k;
        }
        tl_request *q[7] = {0};
        /* two messages with the same (channel, peer, tag) must arrive in order */
        /* odd ranks post their sends before the receive, even ranks after:
         * both orders must match the same way */
        if (r % 2) TL_TRYGOTO(tl_comm_isend(ctx, TL_CHAN_WORLD, sa, len * sizeof(double), right, tag, &q[2]), st, fail);
        TL_TRYGOTO(tl_comm_irecv(ctx, TL_CHAN_WORLD, ra, len * sizeof(double), left, tag, &q[0]), st, fail);
        TL_TRYGOTO(tl_comm_iallreduce(ctx, TL_CHAN_SPLIT, as, len, &q[1]), st, fail);
        if (!(r % 2)) TL_TRYGOTO(tl_comm_isend(ctx, TL_CHAN_WORLD, sa, len * sizeof(double), right, tag, &q[2]), st, fail);
        TL_TRYGOTO(tl_comm_iallreduce(ctx, TL_CHAN_WORLD, aw, len, &q[3]), st, fail);
        TL_TRYGOTO(tl_comm_isend(ctx, TL_CHAN_WORLD, sb, len * sizeof(double), right, tag, &q[4]), st, fail);
        TL_TRYGOTO(tl_comm_isend(ctx, TL_CHAN_SPLIT, ss, len * sizeof(double), left, tag, &q[5]), st, fail);
        TL_TRYGOTO(tl_comm_irecv(ctx, TL_CHAN_SPLIT, rs, len * sizeof(double), right, tag, &q[6]), st, fail);
        TL_TRYGOTO(tl_comm_wait(ctx, &q[3]), st, fail);
        TL_TRYGOTO(tl_comm_wait(ctx, &q[6]), st, fail);
        TL_TRYGOTO(tl_comm_wait(ctx, &q[0]), st, fail);
        /* the second WORLD message is received only now, after the first was waited */
        TL_TRYGOTO(tl_comm_irecv(ctx, TL_CHAN_WORLD, rb, len * sizeof(double), left, tag, &q[0]), st, fail);
        TL_TRYGOTO(tl_comm_waitall(ctx, q, 7), st, fail);
        for (size_t i = 0; i < len; i++) {
            double want_aw = (double)n * (n - 1) / 2 + (double)n * (k + i), want_as = (double)n * (n - 1) - (double)n * k;
            if (ra[i] != left * 1e6 + k + i || rb[i] != -(left * 1e6 + k + i) || rs[i] != right + 0.5 * k + i ||
                aw[i] != want_aw || as[i] != want_as) {
                st = TL_FAIL(TL_ERR_NUMERIC,
                             "iteration %lld element %zu: ra %g rb %g rs %g aw %g (want %g) as %g (want %g)",
                             (long long)k, i, ra[i], rb[i], rs[i], aw[i], want_aw, as[i], want_as);
                break;
            }
        }
        continue;
    fail:
        tl_comm_waitall(ctx, q, 7);
    }
    free(buf);
    TL_TRY(st);
    return TL_OK;
}

/* TOP/a/b made for all ranks: rank 0's process alone holds the folders
 * it made, so its cleanup (as on a failure or an interrupt) leaves nothing
 * of them, whichever rank arrived first. */
static tl_status mkdir_one_owner(tl_ctx *ctx, const char *top)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/a/b", top);
    TL_TRY(tl_comm_mkdir(ctx, dir));
    struct stat sb;
    CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode), "rank %d: %s not made", ctx->rank, dir);
    TL_TRY(tl_comm_barrier(ctx));
    if (ctx->rank == 0) tl_tmpfile_cleanup();
    TL_TRY(tl_comm_barrier(ctx));
    snprintf(dir, sizeof dir, "%s/a", top);
    CHECK(stat(dir, &sb) != 0, "rank %d: %s left after rank 0's cleanup", ctx->rank, dir);
    return TL_OK;
}

static tl_status rank_main(tl_ctx *ctx, void *arg)
{
    const helper_opts *o = arg;
    const char *s = o->scenario;
    int fail_rank = (int)(o->fail_rank % ctx->size);
    if (strcmp(s, "collectives") == 0) {
        TL_TRY(collectives(ctx));
    } else if (strcmp(s, "p2p") == 0) {
        TL_TRY(p2p(ctx, o->iters));
    } else if (strcmp(s, "agree-fail") == 0) {
        TL_TRY(tl_comm_barrier(ctx));
        tl_status mine = ctx->rank == fail_rank ? TL_FAIL(TL_ERR_INVAL, "induced failure") : TL_OK;
        tl_status st = tl_comm_agree(ctx, mine);
        printf("rank %d: agree: %s\n", ctx->rank, tl_strerror(st));
        fflush(stdout);
        return st;
    } else if (strcmp(s, "fail") == 0) {
        /* the failing rank leaves without telling anyone; the others must
         * not wait for it forever */
        if (ctx->rank == fail_rank) return TL_FAIL(TL_ERR_INVAL, "induced failure without agree");
        for (int i = 0; i < 1000000; i++) TL_TRY(tl_comm_barrier(ctx));
    } else if (strcmp(s, "stuck") == 0) {
        /* the others compute for a minute without any call that could
         * notice the failure: the launcher must give up on them */
        if (ctx->rank == fail_rank) return TL_FAIL(TL_ERR_INVAL, "induced failure while the others compute");
        for (int i = 0; i < 600; i++) {
            struct timespec nap = {0, 100000000};
            nanosleep(&nap, NULL);
        }
    } else if (strcmp(s, "fail-output") == 0) {
        /* the failing rank fails with an output unfinished (its temporary
         * and the folder made for it registered) while the others compute
         * past the grace period: the launcher aborts the job, and what the
         * failing rank registered must go first */
        if (ctx->rank == fail_rank) {
            tl_out out;
            TL_TRY(tl_out_open(&out, o->manifest));
            fputs("unfinished\n", out.f);
            fflush(out.f);
            return TL_FAIL(TL_ERR_INVAL, "induced failure with an output unfinished");
        }
        struct timespec nap = {60, 0};
        nanosleep(&nap, NULL);
    } else if (strcmp(s, "mismatch") == 0) {
        int32_t x = 1;
        if (ctx->rank == 0) TL_TRY(tl_comm_barrier(ctx));
        else TL_TRY(tl_comm_allreduce(ctx, &x, 1, TL_INT32, TL_SUM));
    } else if (strcmp(s, "truncate") == 0) {
        double big[4] = {1, 2, 3, 4}, small[2];
        tl_request *q = NULL;
        if (ctx->rank == 0) TL_TRY(tl_comm_isend(ctx, TL_CHAN_WORLD, big, sizeof big, 1, 0, &q));
        if (ctx->rank == 1) TL_TRY(tl_comm_irecv(ctx, TL_CHAN_WORLD, small, sizeof small, 0, 0, &q));
        TL_TRY(tl_comm_agree(ctx, tl_comm_wait(ctx, &q)));
    } else if (strcmp(s, "mkdir") == 0) {
        TL_TRY(mkdir_one_owner(ctx, o->manifest));
    } else if (strcmp(s, "manifest") == 0) {
        TL_TRY(tl_manifest_write(ctx, o->manifest, "matrix: 1138_bus.mtx\nscenario: manifest\n"));
    } else {
        return TL_FAIL(TL_ERR_INVAL, "unknown scenario '%s'", s);
    }
    if (ctx->rank == 0) {
        printf("%s ok on %d ranks (%s)\n", s, ctx->size, ctx->mode == TL_LAUNCH_MPI ? "mpi" : "threads");
        fflush(stdout);
    }
    return TL_OK;
}

int main(int argc, char **argv)
{
    tl_launch_opts lo;
    helper_opts ho;
    const tl_test_helper h = {.program = "helper_launch",
                              .usage = "[options] collectives|p2p|agree-fail|fail|stuck|fail-output|mismatch|truncate|manifest|mkdir",
                              .purpose = "Checks the runtime's host communication under either launcher.",
                              .group = "Scenario",
                              .options = helper_options,
                              .noptions = sizeof helper_options / sizeof helper_options[0],
                              .opts = &ho,
                              .lo = &lo,
                              .positional = &ho.scenario,
                              .rank_main = rank_main};
    return tl_test_helper_main(&h, argc, argv);
}
