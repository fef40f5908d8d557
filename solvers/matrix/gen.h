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
 *   hetero2d   2D 5-point Laplacian on an n x n grid (n^2 rows) with
 *              heterogeneous edge coefficients, a two-phase medium: edge e
 *              between two points (or a point and the Dirichlet boundary)
 *              has k_e = 10^(-D/2) or 10^(D/2), chosen by a fixed hash of
 *              the edge (half each), so the coefficients span D decades
 *              (D = 4: 1e-2 and 1e2);
 *              row i: sum of its four k_e on the diagonal, -k_e per
 *              neighbour (SPD, ill-conditioned; deterministic)
 * Rows are produced one at a time, so writers stream. */
#ifndef TL_GEN_H
#define TL_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "solvers/matrix/csr.h"

typedef enum { TL_GEN_POISSON7, TL_GEN_POISSON27, TL_GEN_CONVDIFF, TL_GEN_HETERO2D } tl_gen_kind;

typedef struct tl_gen {
    tl_gen_kind kind;
    int64_t n;     /* grid points per dimension */
    double peclet; /* convdiff: cell Peclet number p >= 0; hetero2d: decades D (0 .. 12) */
} tl_gen;

#define TL_GEN_MAX_ROW 27
/* 2^21 - 1 points per side: (2^21)^3 rows would overflow the int64 row
 * index; one bound for every kind. The reason, as the refusals say it: */
#define TL_GEN_MAX_N 2097151
#define TL_GEN_MAX_N_WHY "2097151 is the largest N whose N^3 rows fit the 64-bit row index"
#define TL_GEN_MAX_PECLET 1e6      /* convdiff */
#define TL_GEN_MAX_DECADES 12.0    /* hetero2d: 1e-6 .. 1e6 */
/* Each kind's parameter when none is given, one default for both tools
 * (gen:KIND:N and `trilap-matgen KIND N`, whose --peclet and --decades
 * take these texts as their defaults): matgen's were 1 and 4, the spec's
 * 0.5 for both, so gen:hetero2d:20 was not hetero2d 20's matrix. convdiff
 * keeps the spec's 0.5, which committed results name as gen:convdiff:N;
 * hetero2d takes matgen's 4 (its definition above, D = 4), which no
 * committed result names as gen:hetero2d:N. */
#define TL_GEN_DEFAULT_PECLET "0.5" /* convdiff */
#define TL_GEN_DEFAULT_DECADES "4"  /* hetero2d */

/* "poisson7" | "poisson27" | "convdiff" | "hetero2d" -> kind; -1 when unknown. */
int tl_gen_kind_parse(const char *name);
/* "gen:KIND:N[:PECLET]" (trilap-solve's matrix argument) -> *g: N a
 * decimal 1 .. TL_GEN_MAX_N (not a whole number, or out of range with
 * TL_GEN_MAX_N_WHY); PECLET, convdiff's Peclet number or hetero2d's
 * decades (default TL_GEN_DEFAULT_PECLET, TL_GEN_DEFAULT_DECADES), a decimal within their
 * ranges, and no PECLET for poisson7 and poisson27. Anything else (an
 * extra field, an empty one, a value a double cannot hold) is one line
 * naming the spec and what is wrong. */
tl_status tl_gen_parse_spec(const char *spec, tl_gen *g);
const char *tl_gen_kind_name(tl_gen_kind k);
/* The spec, parsed into *g by tl_gen_parse_spec, as the reports name it:
 * a kind's parameter, given or not, in it ("gen:hetero2d:20" ->
 * "gen:hetero2d:20:4"). */
void tl_gen_spec_name(const char *spec, const tl_gen *g, char *buf, size_t n);

int64_t tl_gen_nrows(const tl_gen *g); /* n^3, or n^2 for hetero2d */
int tl_gen_dims(const tl_gen *g);       /* 3, or 2 for hetero2d */
/* hetero2d: the coefficient of edge (x, y, dir): dir 0 joins (x, y) and
 * (x+1, y), dir 1 joins (x, y) and (x, y+1); x, y in -1 .. n-1 (an end
 * outside the grid is the boundary). */
double tl_gen_hetero_coef(const tl_gen *g, int64_t x, int64_t y, int dir);
int tl_gen_symmetric(const tl_gen *g);
/* Row i: count (<= TL_GEN_MAX_ROW), columns ascending. */
int tl_gen_row(const tl_gen *g, int64_t i, int64_t *cols, double *vals);

/* In memory (tests, small runs). */
tl_status tl_gen_csr(const tl_gen *g, tl_csr *a);
/* A matrix by the name the tools take: a "gen:KIND:N[:PECLET]" spec
 * generated in memory (a refusal of its size names the spec, as a file's
 * names the file), else the file through tl_matrix_read (with `square`, a
 * 0 x 0 one refused too: nothing to solve or partition). trilap-solve and
 * trilap-matgen's info, convert and partition share it (matgen took a
 * spec for a file name: "gen:poisson7:4: cannot open"). */
tl_status tl_gen_load(const char *spec, int square, tl_csr *a);
/* Streamed to a file chosen by its name: .tlcsr (binary: three passes over
 * the rows, O(1) memory) or .mtx / .mtx.gz (symmetric storage for the
 * symmetric kinds). */
tl_status tl_gen_write(const tl_gen *g, const char *path);
/* The matrix to `path` and, unless rhs is NULL, b = A * ones to `rhs`, both
 * or neither: each written whole under a temporary name and synced, then
 * both renamed into place (only a failing second rename, in a folder that
 * took the first, could part them). rhs must be another file than path by
 * every spelling: the caller checks it (trilap-matgen, with tl_out_set_add,
 * which sees ./A.mtx and links too; a string compare here saw neither). */
tl_status tl_gen_write_files(const tl_gen *g, const char *path, const char *rhs);
/* What tl_gen_write_files checks before it writes a byte: the generator's
 * parameters, a name that says a matrix format, and room on the disk
 * (the folder path lands on, or the nearest above it that exists) for
 * the least such a matrix takes. For a caller that makes the output's
 * folder in between (trilap-matgen: a matrix too large for the disk is
 * refused in one line, before a folder is made and said for it). */
tl_status tl_gen_check_write(const tl_gen *g, const char *path);
/* b = A * ones (so x = ones solves it), as a Matrix Market array. */
tl_status tl_gen_write_rhs(const tl_gen *g, const char *path);

#endif
