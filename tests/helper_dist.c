/* helper_dist: distributes a matrix over the ranks of either launcher and
 * checks the result against the serial matrix (spawned by test_dist, also
 * under mpirun). Exit 0 when every check holds on every rank.
 *   helper_dist [--launcher threads --ranks N] [--partition P] [--bad-part] MATRIX
 * MATRIX: a .mtx[.gz] / .tlcsr file, or poisson7:N, poisson27:N, convdiff:N. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/comm.h"
#include "runtime/launch.h"
#include "runtime/options.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/dist/dist.h"
#include "solvers/matrix/gen.h"
#include "solvers/dist/partition.h"

typedef struct hopts {
    const char *partition;
    int bad_part;
    const char *matrix;
} hopts;

static const tl_option hopt_table[] = {
    {.name = "partition",
     .type = TL_OPT_STRING,
     .offset = offsetof(hopts, partition),
     .def = "block",
     .metavar = "P",
     .help = "block | metis | metis-recursive | FILE"},
    {.name = "bad-part",
     .type = TL_OPT_FLAG,
     .offset = offsetof(hopts, bad_part),
     .def = "0",
     .help = "give the last row a part id >= ranks (error path)"},
};

static tl_status load(const char *spec, tl_csr *a)
{
    const char *colon = strchr(spec, ':');
    if (colon) {
        char kind[32];
        size_t len = (size_t)(colon - spec);
        TL_CHECK(len < sizeof kind, TL_ERR_INVAL, "matrix spec '%s'", spec);
        memcpy(kind, spec, len);
        kind[len] = '\0';
        int k = tl_gen_kind_parse(kind);
        TL_CHECK(k >= 0, TL_ERR_INVAL, "unknown generator '%s'", kind);
        tl_gen g = {.kind = (tl_gen_kind)k, .n = atoll(colon + 1), .peclet = 1.0};
        TL_TRY(tl_gen_csr(&g, a));
        return TL_OK;
    }
    TL_TRY(tl_matrix_read(spec, 1, a));
    return TL_OK;
}

/* Local structure: numbering, blocks, plan shape. */
static tl_status check_local(tl_ctx *ctx, const tl_dist_matrix *m)
{
    const tl_halo_plan *h = &m->halo;
    TL_CHECK(m->nowned == m->ninterior + m->nborder, TL_ERR_INVAL, "nowned %lld",
             (long long)m->nowned);
    TL_CHECK(m->diag.nrows == m->nowned && m->diag.ncols == m->nowned, TL_ERR_INVAL, "diag shape");
    TL_CHECK(m->offd.nrows == m->nowned && m->offd.ncols == m->nghost, TL_ERR_INVAL, "offd shape");
    TL_TRY(tl_csr_check(&m->diag, "diag block"));
    TL_TRY(tl_csr_check(&m->offd, "offd block"));
    for (int64_t i = 0; i < m->nowned; i++) {
        int64_t len = m->offd.rowptr[i + 1] - m->offd.rowptr[i];
        if (i < m->ninterior)
            TL_CHECK(len == 0, TL_ERR_INVAL, "interior row %lld has ghost entries", (long long)i);
        else
            TL_CHECK(len > 0, TL_ERR_INVAL, "border row %lld has no ghost entries", (long long)i);
    }
    TL_CHECK(h->nrecv == m->nghost && h->recv_offset[h->nneighbors] == m->nghost, TL_ERR_INVAL,
             "recv total");
    TL_CHECK(h->send_offset[h->nneighbors] == h->nsend, TL_ERR_INVAL, "send total");
    TL_CHECK(h->bytes_per_exchange == h->nsend * 8, TL_ERR_INVAL, "bytes");
    for (int k = 0; k < h->nneighbors; k++) {
        TL_CHECK(h->neighbors[k] != ctx->rank && (k == 0 || h->neighbors[k] > h->neighbors[k - 1]),
                 TL_ERR_INVAL, "neighbour list");
        TL_CHECK(h->send_count[k] + h->recv_count[k] > 0, TL_ERR_INVAL, "idle neighbour %d",
                 h->neighbors[k]);
        for (int64_t g = h->recv_offset[k] + 1; g < h->recv_offset[k + 1]; g++)
            TL_CHECK(m->global_row[m->nowned + g] > m->global_row[m->nowned + g - 1], TL_ERR_INVAL,
                     "ghosts of neighbour %d not ascending", h->neighbors[k]);
    }
    for (int64_t k = 0; k < h->nsend; k++)
        TL_CHECK(h->send_idx[k] >= 0 && h->send_idx[k] < m->nowned, TL_ERR_INVAL, "send index %lld",
                 (long long)h->send_idx[k]);
    return TL_OK;
}

/* Every row owned by exactly one rank; every ghost owned by the neighbour
 * it is received from; send and receive counts match pairwise. Uses
 * O(nglobal) scratch per rank (a test, not the library). */
static tl_status check_global(tl_ctx *ctx, const tl_dist_matrix *m)
{
    const int64_t n = m->nglobal;
    const int size = ctx->size;
    int64_t *own = calloc((size_t)n + 1, sizeof *own), *who = calloc((size_t)n + 1, sizeof *who);
    int64_t *cnt = calloc((size_t)size * size * 2, sizeof *cnt);
    tl_status st = TL_OK;
    TL_CHECKGOTO(own && who && cnt, TL_ERR_NOMEM, st, fail, "scratch");
    for (int64_t k = 0; k < m->nowned; k++) {
        own[m->global_row[k]]++;
        who[m->global_row[k]] = ctx->rank;
    }
    const tl_halo_plan *h = &m->halo;
    for (int k = 0; k < h->nneighbors; k++) {
        cnt[((size_t)ctx->rank * size + h->neighbors[k]) * 2 + 0] = h->send_count[k];
        cnt[((size_t)ctx->rank * size + h->neighbors[k]) * 2 + 1] = h->recv_count[k];
    }
    TL_TRYGOTO(tl_comm_allreduce(ctx, own, (size_t)n, TL_INT64, TL_SUM), st, fail);
    TL_TRYGOTO(tl_comm_allreduce(ctx, who, (size_t)n, TL_INT64, TL_SUM), st, fail);
    TL_TRYGOTO(tl_comm_allreduce(ctx, cnt, (size_t)size * size * 2, TL_INT64, TL_SUM), st, fail);
    for (int64_t i = 0; i < n; i++)
        TL_CHECKGOTO(own[i] == 1, TL_ERR_INVAL, st, fail, "row %lld owned by %lld ranks",
                     (long long)i, (long long)own[i]);
    for (int k = 0; k < h->nneighbors; k++)
        for (int64_t g = h->recv_offset[k]; g < h->recv_offset[k + 1]; g++) {
            int64_t gi = m->global_row[m->nowned + g];
            TL_CHECKGOTO(who[gi] == h->neighbors[k], TL_ERR_INVAL, st, fail,
                         "ghost %lld received from rank %d but owned by %lld", (long long)gi,
                         h->neighbors[k], (long long)who[gi]);
        }
    for (int r = 0; r < size; r++)
        for (int q = 0; q < size; q++)
            TL_CHECKGOTO(cnt[((size_t)r * size + q) * 2] == cnt[((size_t)q * size + r) * 2 + 1],
                         TL_ERR_INVAL, st, fail, "rank %d sends %lld to %d, which expects %lld", r,
                         (long long)cnt[((size_t)r * size + q) * 2], q,
                         (long long)cnt[((size_t)q * size + r) * 2 + 1]);
fail:
    free(own), free(who), free(cnt);
    return st;
}

/* Halo values land where the plan says: ghost slot g gets the value of
 * global row global_row[nowned + g]; twice, through the same exchange. */
static tl_status check_halo(tl_ctx *ctx, const tl_dist_matrix *m, tl_halo_xchg *hx, double *x)
{
    for (int round = 1; round <= 2; round++) {
        for (int64_t k = 0; k < m->nowned; k++)
            x[k] = (double)m->global_row[k] * round + 0.5;
        for (int64_t g = 0; g < m->nghost; g++)
            x[m->nowned + g] = -1.0;
        TL_TRY(tl_halo_begin(ctx, hx, x));
        TL_TRY(tl_halo_end(ctx, hx, x));
        for (int64_t g = 0; g < m->nghost; g++)
            TL_CHECK(x[m->nowned + g] == (double)m->global_row[m->nowned + g] * round + 0.5,
                     TL_ERR_INVAL, "ghost %lld holds %g", (long long)m->global_row[m->nowned + g],
                     x[m->nowned + g]);
    }
    return TL_OK;
}

static void spmv_block(const tl_csr *a, const double *x, double *y, int add)
{
    for (int64_t i = 0; i < a->nrows; i++) {
        double s = add ? y[i] : 0.0;
        for (int64_t k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            s += a->val[k] * x[a->colidx[k]];
        y[i] = s;
    }
}

static tl_status rank_main(tl_ctx *ctx, void *arg)
{
    const hopts *o = arg;
    tl_csr A = {0};
    int *part = NULL;
    tl_dist_matrix *m = NULL;
    tl_halo_xchg *hx = NULL;
    double *xg = NULL, *yg = NULL, *yref = NULL, *xl = NULL, *yl = NULL;
    tl_status st = TL_OK;
    tl_partition_stats ps = {0};
    if (ctx->rank == 0) {
        st = load(o->matrix, &A);
        if (st == TL_OK) {
            part = malloc((size_t)(A.nrows ? A.nrows : 1) * sizeof *part);
            st = part ? tl_partition_by_spec(o->partition, &A, ctx->size, part) : TL_ERR_NOMEM;
        }
        if (st == TL_OK) st = tl_partition_stats_compute(&A, part, ctx->size, &ps);
        if (st == TL_OK && o->bad_part && A.nrows > 0) part[A.nrows - 1] = ctx->size;
    }
    TL_TRYGOTO(tl_comm_agree(ctx, st), st, fail);
    TL_TRYGOTO(tl_dist_create(ctx, ctx->rank == 0 ? &A : NULL, part, &m), st, fail);
    TL_TRYGOTO(tl_comm_agree(ctx, check_local(ctx, m)), st, fail);
    TL_TRYGOTO(tl_comm_agree(ctx, check_global(ctx, m)), st, fail);
    TL_TRYGOTO(tl_halo_xchg_create(ctx, m, &hx), st, fail);
    xl = calloc((size_t)(m->nowned + m->nghost + 1), sizeof *xl);
    yl = calloc((size_t)(m->nowned + 1), sizeof *yl);
    TL_CHECKGOTO(xl && yl, TL_ERR_NOMEM, st, fail, "vectors");
    TL_TRYGOTO(tl_comm_agree(ctx, check_halo(ctx, m, hx, xl)), st, fail);
    /* SpMV with the overlap the backends use: diagonal block while the halo flies */
    if (ctx->rank == 0) {
        xg = malloc((size_t)(A.nrows + 1) * sizeof *xg);
        yg = malloc((size_t)(A.nrows + 1) * sizeof *yg);
        yref = malloc((size_t)(A.nrows + 1) * sizeof *yref);
        TL_CHECKGOTO(xg && yg && yref, TL_ERR_NOMEM, st, fail, "vectors");
        for (int64_t i = 0; i < A.nrows; i++)
            xg[i] = sin((double)i) + 2.0;
        tl_csr_spmv(&A, xg, yref);
    }
    TL_TRYGOTO(tl_dist_scatter_vec(ctx, m, xg, xl), st, fail);
    TL_TRYGOTO(tl_halo_begin(ctx, hx, xl), st, fail);
    spmv_block(&m->diag, xl, yl, 0);
    TL_TRYGOTO(tl_halo_end(ctx, hx, xl), st, fail);
    spmv_block(&m->offd, xl + m->nowned, yl, 1);
    TL_TRYGOTO(tl_dist_gather_vec(ctx, m, yl, yg), st, fail);
    int64_t halo[2] = {m->halo.nsend, m->nghost};
    TL_TRYGOTO(tl_comm_allreduce(ctx, halo, 2, TL_INT64, TL_SUM), st, fail);
    if (ctx->rank == 0) {
        double err = 0.0, scale = 0.0;
        for (int64_t i = 0; i < A.nrows; i++) {
            err = fmax(err, fabs(yg[i] - yref[i]));
            scale = fmax(scale, fabs(yref[i]));
        }
        printf("matrix: %s\nranks: %d\npartition: %s\nrows: %lld\nedge cut: %lld\nimbalance: %.3f\n"
               "halo values: %lld sent, %lld received\nspmv max error: %.3e (scale %.3e)\n",
               o->matrix, ctx->size, o->partition, (long long)A.nrows, (long long)ps.edgecut,
               ps.imbalance, (long long)halo[0], (long long)halo[1], err, scale);
        st = err <= 1e-13 * (scale > 0 ? scale : 1.0)
                 ? TL_OK
                 : TL_FAIL(TL_ERR_NUMERIC, "distributed SpMV differs by %g", err);
    }
    TL_TRYGOTO(tl_comm_agree(ctx, st), st, fail);
    if (ctx->rank == 0) printf("dist check: ok\n");
fail:
    tl_halo_xchg_destroy(&hx);
    tl_dist_destroy(&m);
    tl_csr_free(&A);
    free(part), free(xg), free(yg), free(yref), free(xl), free(yl);
    return st;
}

int main(int argc, char **argv)
{
    hopts o;
    tl_launch_opts lo;
    tl_optgroup groups[] = {{"Check", hopt_table, sizeof hopt_table / sizeof hopt_table[0], &o},
                            {"Launch", tl_launch_options, tl_launch_noptions, &lo}};
    tl_optspec spec = {.program = "helper_dist",
                       .usage = "[options] MATRIX",
                       .purpose = "Distribute a matrix and check it against the serial one.",
                       .groups = groups,
                       .ngroups = 2,
                       .min_positional = 1,
                       .max_positional = 1};
    tl_optresult res = {0};
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) return 0;
    o.matrix = res.positional[0];
    lo.no_gpu = 1;
    int rc = tl_launch_run("helper_dist", &lo, argc, argv, rank_main, &o);
    free(res.positional);
    return rc;
}
