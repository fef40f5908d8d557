/* A row-distributed matrix on one rank, and its halo plan.
 *
 * Local numbering: owned rows first, interior rows (no ghost coupling)
 * before border rows; ghost columns after the owned ones, grouped by owning
 * neighbour in the order of halo.neighbors, ascending global index within a
 * neighbour. So y = A x is   y = diag * x_owned          (while the halo flies)
 *                            y[border] += offd * x_ghost  (after it lands)
 * and received ghost values land contiguously in x[nowned ..]. */
#ifndef TL_DIST_H
#define TL_DIST_H

#include <stdint.h>

#include "runtime/ctx.h"
#include "solvers/matrix/csr.h"

typedef struct tl_halo_plan {
    int nneighbors;
    int *neighbors;        /* ranks, ascending */
    int64_t *send_count;   /* per neighbour */
    int64_t *send_offset;  /* per neighbour, into send_idx (nneighbors + 1 entries) */
    int64_t *send_idx;     /* owned local indices to pack, per neighbour in turn */
    int64_t *recv_count;   /* per neighbour: ghosts it owns */
    int64_t *recv_offset;  /* per neighbour, into the ghost range (nneighbors + 1 entries) */
    int64_t nsend, nrecv;  /* totals; nrecv == nghost */
    int64_t bytes_per_exchange; /* (nsend) * sizeof(double): what this rank sends per halo exchange */
} tl_halo_plan;

typedef struct tl_dist_matrix {
    int64_t nglobal;       /* global rows = cols */
    int64_t nowned, ninterior, nborder, nghost; /* nowned = ninterior + nborder */
    int64_t *global_row;   /* nowned + nghost: global index of each local index */
    tl_csr diag;           /* nowned x nowned, local owned columns */
    tl_csr offd;           /* nowned x nghost, ghost columns 0..nghost-1; rows < ninterior are empty */
    tl_halo_plan halo;
    /* Rank 0 only (NULL elsewhere): every rank's owned global rows in its
     * local order, rank after rank (nglobal entries; rank r's run starts at
     * root_offset[r], size + 1 entries), for scatter_vec / gather_vec. */
    int64_t *root_rows;
    int64_t *root_offset;
    int nranks;            /* ranks the matrix is distributed over */
} tl_dist_matrix;

/* Collective on ctx. `global` and `part` (part[i] = rank of row i) are read
 * on rank 0 only (others pass NULL); rank 0 scatters each rank its rows, so
 * memory per rank is proportional to its part. */
tl_status tl_dist_create(tl_ctx *ctx, const tl_csr *global, const int *part, tl_dist_matrix **out);
void tl_dist_destroy(tl_dist_matrix **m);

/* Collective: rank 0's global vector (length nglobal) -> each rank's owned
 * part in local order; and back (gather to rank 0). */
tl_status tl_dist_scatter_vec(tl_ctx *ctx, const tl_dist_matrix *m, const double *global, double *local);
tl_status tl_dist_gather_vec(tl_ctx *ctx, const tl_dist_matrix *m, const double *local, double *global);

/* Host halo exchange over ctx->hc, split-phase. The exchange object owns
 * the pack buffers and requests, so begin/end allocate nothing: begin packs
 * x's owned values and posts isend/irecv (channel TL_CHAN_WORLD), end waits
 * and leaves the ghost values in x[nowned ..]. */
typedef struct tl_halo_xchg tl_halo_xchg;
tl_status tl_halo_xchg_create(tl_ctx *ctx, const tl_dist_matrix *m, tl_halo_xchg **out);
void tl_halo_xchg_destroy(tl_halo_xchg **h);
tl_status tl_halo_begin(tl_ctx *ctx, tl_halo_xchg *h, double *x);
tl_status tl_halo_end(tl_ctx *ctx, tl_halo_xchg *h, double *x);

#endif
