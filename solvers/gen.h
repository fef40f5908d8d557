/* Test-matrix generators on an n x n x n grid, lexicographic numbering
 * i = x + n (y + n z), homogeneous Dirichlet boundary (neighbours outside
 * the grid dropped), scaled by h^2 so entries are O(1):
 *   poisson7   7-point Laplacian: 6 on the diagonal, -1 per neighbour (SPD)
 *   poisson27  27-point: 26 on the diagonal, -1 per neighbour (SPD; the
 *              paper's poisson3da family)
 *   convdiff   -Laplace(u) + beta . grad(u), beta = (1,1,1), first-order
 *              upwind: with cell Peclet number p = |beta_x| h, diagonal
 *              6 + 3p, -(1 + p) for the x-1, y-1, z-1 neighbours and -1 for
 *              x+1, y+1, z+1 (nonsymmetric M-matrix for p > 0; BiCGStab)
 * Rows are produced one at a time, so writers stream. */
#ifndef TL_GEN_H
#define TL_GEN_H

#include <stdint.h>

#include "solvers/csr.h"

typedef enum { TL_GEN_POISSON7, TL_GEN_POISSON27, TL_GEN_CONVDIFF } tl_gen_kind;

typedef struct tl_gen {
    tl_gen_kind kind;
    int64_t n;     /* grid points per dimension */
    double peclet; /* convdiff only: cell Peclet number p >= 0 */
} tl_gen;

#define TL_GEN_MAX_ROW 27

/* "poisson7" | "poisson27" | "convdiff" -> kind; -1 when unknown. */
int tl_gen_kind_parse(const char *name);
const char *tl_gen_kind_name(tl_gen_kind k);

int64_t tl_gen_nrows(const tl_gen *g);
int tl_gen_symmetric(const tl_gen *g);
/* Row i: count (<= TL_GEN_MAX_ROW), columns ascending. */
int tl_gen_row(const tl_gen *g, int64_t i, int64_t *cols, double *vals);

/* In memory (tests, small runs). */
tl_status tl_gen_csr(const tl_gen *g, tl_csr *a);
/* Streamed to a file chosen by its name: .tlcsr (binary: three passes over
 * the rows, O(1) memory) or .mtx / .mtx.gz (symmetric storage for the
 * symmetric kinds). */
tl_status tl_gen_write(const tl_gen *g, const char *path);
/* b = A * ones (so x = ones solves it), as a Matrix Market array. */
tl_status tl_gen_write_rhs(const tl_gen *g, const char *path);

#endif
