/* What each rank of a row partition holds and sends: rows, nonzeros of the
 * diagonal and ghost blocks, border rows, and its halo messages (the same
 * plan solvers/dist builds: every ghost column received once from its
 * owner), worked out from the matrix rows and the partition alone, without
 * distributing anything. */
#ifndef TL_MODEL_PARTSTATS_H
#define TL_MODEL_PARTSTATS_H

#include <stdint.h>

#include "model/model.h"
#include "solvers/matrix/csr.h"
#include "solvers/matrix/gen.h"

typedef struct tl_mrank_stats {
    int64_t rows, nnz_diag, nnz_offd, border_rows, ghosts;
} tl_mrank_stats;

typedef struct tl_mpart {
    int nranks;
    int64_t nrows, nnz;
    tl_mrank_stats *r; /* nranks */
    tl_mhalo *halo;    /* nranks: values sent to each neighbour (x 8 B) */
} tl_mpart;

/* Rows come from a CSR (csr != NULL) or are generated one at a time. */
typedef struct tl_mmatrix {
    const tl_csr *csr;
    const tl_gen *gen;
} tl_mmatrix;

int64_t tl_mmatrix_nrows(const tl_mmatrix *m);

/* part[i] in 0..nranks-1 for each row. Halo bytes are values x 8. Row by
 * row: O(rows) time and memory (METIS partitions, Matrix Market files). */
tl_status tl_mpart_compute(const tl_mmatrix *m, const int *part, int nranks, tl_mpart *out);
/* The same statistics for the block partition (tl_partition_block) of a
 * generated matrix, from the row ranges and the stencil: O(ranks) memory,
 * time O(ranks x boundary lines) (partstats_block.c). */
tl_status tl_mpart_block_gen(const tl_gen *g, int nranks, tl_mpart *out);
void tl_mpart_free(tl_mpart *p);

#endif
