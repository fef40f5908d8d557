/* Row partitioning: METIS 5 (k-way or recursive bisection) on the
 * symmetrised graph of the matrix without self loops, contiguous row blocks
 * as a fallback, and partition files (the paper's artifact format: a Matrix
 * Market integer array vector of part ids 0..nparts-1, one per row,
 * optionally gzipped). */
#ifndef TL_PARTITION_H
#define TL_PARTITION_H

#include <stdint.h>

#include "solvers/matrix/csr.h"

typedef enum {
    TL_PART_BLOCK,
    TL_PART_METIS_KWAY,
    TL_PART_METIS_RECURSIVE,
    TL_PART_FILE
} tl_part_method;

/* Contiguous blocks of n/nparts rows (the first n % nparts one longer). */
tl_status tl_partition_block(int64_t n, int nparts, int *part);
/* The same blocks without a row array: the first row of part p (p = nparts
 * gives n), and the part that holds row i (0 <= i < n, nparts >= 1). */
int64_t tl_partition_block_first(int64_t n, int nparts, int p);
int tl_partition_block_owner(int64_t n, int nparts, int64_t i);
/* METIS; nparts == 1 gives all zeros, and nparts >= rows a row to each of
 * the first parts (the blocks), without calling METIS. Returns
 * TL_ERR_UNSUPPORTED when built without METIS. */
tl_status tl_partition_metis(const tl_csr *a, int nparts, int recursive, int *part);
/* Whether tl_partition_metis calls METIS for nrows rows in nparts parts
 * (a report names the split it gave when it does not). */
int tl_partition_metis_called(int64_t nrows, int nparts);
/* `spec`: "block", "metis" (k-way), "metis-recursive", or a file name. */
tl_status tl_partition_by_spec(const char *spec, const tl_csr *a, int nparts, int *part);
/* Whether `spec` names a partition file (none of the methods above). */
int tl_partition_spec_is_file(const char *spec);

tl_status tl_partition_read(const char *path, int64_t n, int nparts, int *part);
tl_status tl_partition_write(const char *path, const int *part, int64_t n);

typedef struct tl_partition_stats {
    int nparts;
    int64_t edgecut; /* undirected edges of the symmetrised graph between parts */
    int64_t min_rows, max_rows;
    double imbalance; /* max part rows / mean part rows */
    int64_t max_nnz;  /* nonzeros of the heaviest part */
    int empty_parts;  /* parts without a row */
} tl_partition_stats;
tl_status tl_partition_stats_compute(const tl_csr *a, const int *part, int nparts,
                                     tl_partition_stats *s);

/* The symmetrised adjacency (i ~ j when a_ij or a_ji is stored, i != j),
 * sorted rows; xadj n+1, adj xadj[n]. Caller frees both. */
tl_status tl_graph_symmetrize(const tl_csr *a, int64_t **xadj, int64_t **adj);

#endif
