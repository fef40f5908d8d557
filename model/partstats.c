#include "model/partstats.h"

#include <stdlib.h>
#include <string.h>

int64_t tl_mmatrix_nrows(const tl_mmatrix *m)
{
    return m->csr ? m->csr->nrows : tl_gen_nrows(m->gen);
}

static int row_of(const tl_mmatrix *m, int64_t i, int64_t *cols)
{
    if (m->csr) {
        int64_t a = m->csr->rowptr[i], b = m->csr->rowptr[i + 1];
        memcpy(cols, m->csr->colidx + a, (size_t)(b - a) * sizeof *cols);
        return (int)(b - a);
    }
    double vals[TL_GEN_MAX_ROW];
    return tl_gen_row(m->gen, i, cols, vals);
}

void tl_mpart_free(tl_mpart *p)
{
    if (!p) return;
    if (p->halo)
        for (int r = 0; r < p->nranks; r++) {
            free(p->halo[r].peer);
            free(p->halo[r].bytes);
            free(p->halo[r].from);
        }
    free(p->halo);
    free(p->r);
    memset(p, 0, sizeof *p);
}

/* Rank by rank: a ghost column counts once per receiving rank (stamp[c] ==
 * rank + 1 marks it seen), towards the rank that owns it. */
tl_status tl_mpart_compute(const tl_mmatrix *m, const int *part, int nranks, tl_mpart *out)
{
    memset(out, 0, sizeof *out);
    int64_t n = tl_mmatrix_nrows(m);
    TL_CHECK(nranks >= 1 && n >= nranks, TL_ERR_INVAL, "%lld rows cannot make %d parts", (long long)n, nranks);
    tl_status st = TL_OK;
    int64_t *start = calloc((size_t)nranks + 1, sizeof *start);
    int64_t *order = malloc((size_t)n * sizeof *order);
    int *stamp = calloc((size_t)n, sizeof *stamp);
    int64_t *from = calloc((size_t)nranks, sizeof *from);
    out->nranks = nranks;
    out->nrows = n;
    out->r = calloc((size_t)nranks, sizeof *out->r);
    out->halo = calloc((size_t)nranks, sizeof *out->halo);
    TL_CHECKGOTO(start && order && stamp && from && out->r && out->halo, TL_ERR_NOMEM, st, fail,
                 "partition statistics for %lld rows", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        TL_CHECKGOTO(part[i] >= 0 && part[i] < nranks, TL_ERR_INVAL, st, fail, "row %lld: part %d of %d",
                     (long long)i, part[i], nranks);
        start[part[i] + 1]++;
    }
    for (int r = 0; r < nranks; r++) start[r + 1] += start[r];
    {
        int64_t *fill = calloc((size_t)nranks, sizeof *fill);
        TL_CHECKGOTO(fill, TL_ERR_NOMEM, st, fail, "row order");
        for (int64_t i = 0; i < n; i++) order[start[part[i]] + fill[part[i]]++] = i;
        free(fill);
    }
    int64_t cols[TL_GEN_MAX_ROW > 4096 ? TL_GEN_MAX_ROW : 4096];
    for (int r = 0; r < nranks; r++) {
        tl_mrank_stats *S = &out->r[r];
        memset(from, 0, (size_t)nranks * sizeof *from);
        for (int64_t k = start[r]; k < start[r + 1]; k++) {
            int64_t i = order[k];
            if (m->csr) TL_CHECKGOTO(m->csr->rowptr[i + 1] - m->csr->rowptr[i] <= 4096, TL_ERR_UNSUPPORTED, st, fail,
                                     "row %lld has more than 4096 nonzeros", (long long)i);
            int len = row_of(m, i, cols);
            int border = 0;
            S->rows++;
            out->nnz += len;
            for (int e = 0; e < len; e++) {
                int64_t c = cols[e];
                int owner = part[c];
                if (owner == r) {
                    S->nnz_diag++;
                    continue;
                }
                S->nnz_offd++;
                border = 1;
                if (stamp[c] != r + 1) {
                    stamp[c] = r + 1;
                    from[owner]++;
                    S->ghosts++;
                }
            }
            S->border_rows += border;
        }
        for (int o = 0; o < nranks; o++)
            if (from[o]) TL_TRYGOTO(tl_mhalo_add(out->halo, o, r, from[o] * 8), st, fail);
    }
fail:
    free(start);
    free(order);
    free(stamp);
    free(from);
    if (st != TL_OK) tl_mpart_free(out);
    return st;
}
