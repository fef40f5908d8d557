/* Grid-matrix generators (definitions in gen.h), streamed row by row. */
#include "solvers/matrix/gen.h"
#include "solvers/matrix/input_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "runtime/hostmem.h"
#include "runtime/out.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/outfile.h"

static const char *const kind_names[] = {"poisson7", "poisson27", "convdiff", "hetero2d"};
enum { NKINDS = sizeof kind_names / sizeof kind_names[0] };

int tl_gen_kind_parse(const char *name)
{
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(name, kind_names[k]) == 0) return k;
    return -1;
}

/* The kinds' parameters: what the refusals call it, its range and its
 * default (one for gen: specs and trilap-matgen's options) */
static const struct gen_param_def {
    const char *name, *field, *def;
    double max;
} param_defs[] = {
    [TL_GEN_CONVDIFF] = {"convdiff's Peclet number", "PECLET", TL_GEN_DEFAULT_PECLET, TL_GEN_MAX_PECLET},
    [TL_GEN_HETERO2D] = {"hetero2d's decades", "D", TL_GEN_DEFAULT_DECADES, TL_GEN_MAX_DECADES},
};

/* The kind's parameter, or NULL when it takes none. */
static const struct gen_param_def *gen_param(tl_gen_kind k)
{
    return (size_t)k < sizeof param_defs / sizeof param_defs[0] && param_defs[k].name ? &param_defs[k] : NULL;
}

#define SPEC_STR_(x) #x
#define SPEC_STR(x) SPEC_STR_(x)

/* N: a whole decimal (digits only: no sign, space, 0x) in 1 .. TL_GEN_MAX_N,
 * else why not; a whole number too long for strtoll is out of range too
 * (it was "not a whole number in 1..2097151", which 3000000 is). */
static const char *spec_grid_size(const char *text, int64_t *n)
{
    if (!*text || strspn(text, "0123456789") != strlen(text)) return "is not a whole number";
    errno = 0;
    *n = strtoll(text, NULL, 10);
    if (errno == ERANGE || *n < 1 || *n > TL_GEN_MAX_N)
        return "is out of range [1, " SPEC_STR(TL_GEN_MAX_N) "]: " TL_GEN_MAX_N_WHY;
    return NULL;
}

/* A plain decimal in 0..max that a double holds, else why not: "1e-400",
 * which strtod reads as 0 (saying ERANGE), is refused, not taken as 0;
 * hexadecimal, inf and nan are no plain decimals. */
static const char *spec_param(const char *text, double max, double *v)
{
    if (!*text || strspn(text, "0123456789.eE+-") != strlen(text)) return "is not a decimal number";
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    if (*end != '\0' || end == text) return "is not a decimal number";
    if (errno == ERANGE) return fabs(*v) < 1.0 ? "is too small for a double (it would be read as 0)" : "is too large for a double";
    if (!(*v >= 0.0 && *v <= max)) return "is out of range";
    return NULL;
}

#define SPEC_FORMAT "gen:KIND:N[:PECLET]"
#define SPEC_KINDS "poisson7, poisson27, convdiff or hetero2d"

tl_status tl_gen_parse_spec(const char *spec, tl_gen *g)
{
    char buf[128], *field[5];
    int nf = 0;
    TL_INPUT_CHECK(snprintf(buf, sizeof buf, "%s", spec) < (int)sizeof buf, TL_ERR_INVAL,
                   "invalid generated matrix '%.60s...': longer than any " SPEC_FORMAT, spec);
    /* split on every ':' (strtok would pass over an empty field) */
    for (char *p = buf; nf < 5; p++) {
        field[nf++] = p;
        p = strchr(p, ':');
        if (!p) break;
        *p = '\0';
    }
    TL_INPUT_CHECK(nf >= 3 && strcmp(field[0], "gen") == 0, TL_ERR_INVAL,
                   "invalid generated matrix '%s': expected " SPEC_FORMAT ", KIND " SPEC_KINDS, spec);
    int k = tl_gen_kind_parse(field[1]);
    TL_INPUT_CHECK(k >= 0, TL_ERR_INVAL, "invalid generated matrix '%s': KIND '%s' is not " SPEC_KINDS " (" SPEC_FORMAT ")",
                   spec, field[1]);
    *g = (tl_gen){.kind = (tl_gen_kind)k, .peclet = 0.0};
    const char *nwhy = spec_grid_size(field[2], &g->n);
    TL_INPUT_CHECK(!nwhy, TL_ERR_INVAL, "invalid generated matrix '%s': N '%s' %s", spec, field[2], nwhy);
    const struct gen_param_def *pd = gen_param(g->kind);
    TL_INPUT_CHECK(nf == 3 || pd, TL_ERR_INVAL,
                   "invalid generated matrix '%s': %s takes no PECLET, but ':%s' follows N", spec, field[1], field[3]);
    TL_INPUT_CHECK(nf <= 4, TL_ERR_INVAL, "invalid generated matrix '%s': ':%s' after PECLET (" SPEC_FORMAT ")", spec,
                   field[4]);
    if (!pd) return TL_OK;
    const char *text = nf == 4 ? field[3] : pd->def;
    const char *why = spec_param(text, pd->max, &g->peclet);
    TL_INPUT_CHECK(!why, TL_ERR_INVAL, "invalid generated matrix '%s': %s '%s' %s (%s, 0..%.15g)", spec, pd->field,
                   text, why, pd->name, pd->max);
    return TL_OK;
}

void tl_gen_spec_name(const char *spec, const tl_gen *g, char *buf, size_t n)
{
    int colons = 0; /* gen:KIND:N has 2, with its parameter 3 */
    for (const char *p = spec; (p = strchr(p, ':')); p++)
        colons++;
    const struct gen_param_def *pd = colons == 2 ? gen_param(g->kind) : NULL;
    snprintf(buf, n, "%s%s%s", spec, pd ? ":" : "", pd ? pd->def : "");
}

const char *tl_gen_kind_name(tl_gen_kind k)
{
    return (unsigned)k < NKINDS ? kind_names[k] : "?";
}

int tl_gen_dims(const tl_gen *g)
{
    return g->kind == TL_GEN_HETERO2D ? 2 : 3;
}

int64_t tl_gen_nrows(const tl_gen *g)
{
    return tl_gen_dims(g) == 2 ? g->n * g->n : g->n * g->n * g->n;
}

/* splitmix64 (Steele, Lea, Flood 2014): a fixed, platform-independent
 * hash, so the same spec gives the same matrix everywhere */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double tl_gen_hetero_coef(const tl_gen *g, int64_t x, int64_t y, int dir)
{
    /* edges numbered on the (n+1) x (n+1) lattice of lower-left ends */
    uint64_t id = ((uint64_t)(y + 1) * (uint64_t)(g->n + 1) + (uint64_t)(x + 1)) * 2u + (unsigned)dir;
    /* two phases, half the edges each: the high-contrast medium is what
     * makes pipelined CG lose accuracy (a log-uniform spread of the same
     * range is much milder) */
    return pow(10.0, (mix64(id) >> 63) ? 0.5 * g->peclet : -0.5 * g->peclet);
}

static int hetero_row(const tl_gen *g, int64_t i, int64_t *cols, double *vals)
{
    const int64_t n = g->n, x = i % n, y = i / n;
    /* the four edges of point (x, y); an end outside is the boundary */
    double ks = tl_gen_hetero_coef(g, x, y - 1, 1), kw = tl_gen_hetero_coef(g, x - 1, y, 0);
    double ke = tl_gen_hetero_coef(g, x, y, 0), kn = tl_gen_hetero_coef(g, x, y, 1);
    int c = 0;
    if (y > 0) cols[c] = i - n, vals[c++] = -ks;
    if (x > 0) cols[c] = i - 1, vals[c++] = -kw;
    cols[c] = i, vals[c++] = ks + kw + ke + kn;
    if (x < n - 1) cols[c] = i + 1, vals[c++] = -ke;
    if (y < n - 1) cols[c] = i + n, vals[c++] = -kn;
    return c;
}

int tl_gen_symmetric(const tl_gen *g)
{
    return g->kind != TL_GEN_CONVDIFF || g->peclet == 0.0;
}

int tl_gen_row(const tl_gen *g, int64_t i, int64_t *cols, double *vals)
{
    const int64_t n = g->n;
    const int64_t x = i % n, y = (i / n) % n, z = i / (n * n);
    int c = 0;
    if (g->kind == TL_GEN_HETERO2D) return hetero_row(g, i, cols, vals);
    if (g->kind == TL_GEN_POISSON27) {
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t X = x + dx, Y = y + dy, Z = z + dz;
                    if (X < 0 || X >= n || Y < 0 || Y >= n || Z < 0 || Z >= n) continue;
                    cols[c] = X + n * (Y + n * Z);
                    vals[c] = (dx | dy | dz) ? -1.0 : 26.0;
                    c++;
                }
        return c;
    }
    const double p = g->kind == TL_GEN_CONVDIFF ? g->peclet : 0.0;
    const double lo = -1.0 - p, hi = -1.0;
    /* ascending column order: z-1, y-1, x-1, self, x+1, y+1, z+1 */
    if (z > 0) cols[c] = i - n * n, vals[c++] = lo;
    if (y > 0) cols[c] = i - n, vals[c++] = lo;
    if (x > 0) cols[c] = i - 1, vals[c++] = lo;
    cols[c] = i, vals[c++] = 6.0 + 3.0 * p;
    if (x < n - 1) cols[c] = i + 1, vals[c++] = hi;
    if (y < n - 1) cols[c] = i + n, vals[c++] = hi;
    if (z < n - 1) cols[c] = i + n * n, vals[c++] = hi;
    return c;
}

static tl_status check_gen(const tl_gen *g)
{
    TL_INPUT_CHECK(g->n >= 1 && g->n <= TL_GEN_MAX_N, TL_ERR_INVAL, "grid size n=%lld (1 .. 2^21-1)",
                   (long long)g->n);
    TL_INPUT_CHECK((unsigned)g->kind < NKINDS, TL_ERR_INVAL, "generator kind %d", (int)g->kind);
    if (g->kind == TL_GEN_HETERO2D)
        TL_INPUT_CHECK(g->peclet >= 0.0 && g->peclet <= TL_GEN_MAX_DECADES, TL_ERR_INVAL,
                       "hetero2d: %g decades (0 .. %g)", g->peclet, TL_GEN_MAX_DECADES);
    else
        TL_INPUT_CHECK(g->peclet >= 0.0 && g->peclet <= TL_GEN_MAX_PECLET, TL_ERR_INVAL,
                       "Peclet number %g (0 .. %g)", g->peclet, TL_GEN_MAX_PECLET);
    return TL_OK;
}

tl_status tl_gen_csr(const tl_gen *g, tl_csr *a)
{
    TL_TRY(check_gen(g));
    int64_t n = tl_gen_nrows(g), cols[TL_GEN_MAX_ROW];
    double vals[TL_GEN_MAX_ROW];
    /* at least a diagonal per row: refuse what cannot fit before counting
     * 10^18 rows (tl_csr_alloc checks the exact size after) */
    char what[96];
    snprintf(what, sizeof what, "a generated matrix of %lld rows", (long long)n);
    TL_TRY(tl_hostmem_check(what, 24.0 * (double)n));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += tl_gen_row(g, i, cols, vals);
    TL_TRY(tl_csr_alloc(a, n, n, nnz));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        a->rowptr[i] = k;
        k += tl_gen_row(g, i, a->colidx + k, a->val + k);
    }
    a->rowptr[n] = k;
    return TL_OK;
}

/* A 0 x 0 file read as a system: trilap-solve "converged" on it and
 * advised "1 of the 1 ranks owns no rows ...; use fewer ranks", partition
 * "use at most 0 parts"; a generator makes no such matrix. */
static tl_status load_file(const char *path, int square, tl_csr *a)
{
    TL_TRY(tl_matrix_read(path, square, a));
    if (!square || a->nrows > 0) return TL_OK;
    tl_csr_free(a);
    return TL_FAIL(TL_ERR_PARSE, "%s: matrix is 0 x 0, but the solvers need at least one row",
                   path);
}

tl_status tl_gen_load(const char *spec, int square, tl_csr *a)
{
    if (strncmp(spec, "gen:", 4) != 0) return load_file(spec, square, a);
    tl_gen g;
    TL_TRY(tl_gen_parse_spec(spec, &g));
    tl_error_context k;
    tl_error_context_begin(&k, spec);
    tl_status st = tl_gen_csr(&g, a);
    tl_error_context_end(&k);
    return st;
}

/* Buffered word stream into the file and the checksum. */
typedef struct wstream {
    tl_outfile *f;
    tl_bin_sum *sum;
    uint64_t buf[4096];
    size_t n;
} wstream;

static tl_status ws_flush(wstream *w)
{
    tl_bin_sum_update(w->sum, w->buf, w->n);
    TL_TRY(tl_outfile_write(w->f, w->buf, 8 * w->n));
    w->n = 0;
    return TL_OK;
}

static tl_status ws_put(wstream *w, const void *word)
{
    memcpy(&w->buf[w->n++], word, 8);
    if (w->n == sizeof w->buf / sizeof w->buf[0]) TL_TRY(ws_flush(w));
    return TL_OK;
}

static tl_status write_bin(const tl_gen *g, tl_outfile *f)
{
    const int64_t n = tl_gen_nrows(g);
    int64_t cols[TL_GEN_MAX_ROW], nnz = 0;
    double vals[TL_GEN_MAX_ROW];
    tl_bin_sum sum;
    unsigned char hdr[TL_BIN_HEADER_BYTES] = {0};
    wstream w = {.f = f, .sum = &sum};
    tl_bin_sum_init(&sum);
    TL_TRY(tl_outfile_need_seek(f));
    TL_TRY(tl_outfile_write(f, hdr, sizeof hdr)); /* rewritten at the end */
    TL_TRY(ws_put(&w, &nnz));
    for (int64_t i = 0; i < n; i++) {
        nnz += tl_gen_row(g, i, cols, vals);
        TL_TRY(ws_put(&w, &nnz));
    }
    for (int64_t i = 0; i < n; i++) {
        int c = tl_gen_row(g, i, cols, vals);
        for (int k = 0; k < c; k++)
            TL_TRY(ws_put(&w, &cols[k]));
    }
    for (int64_t i = 0; i < n; i++) {
        int c = tl_gen_row(g, i, cols, vals);
        for (int k = 0; k < c; k++)
            TL_TRY(ws_put(&w, &vals[k]));
    }
    TL_TRY(ws_flush(&w));
    tl_bin_header h = {.version = TL_BIN_VERSION,
                       .flags = tl_gen_symmetric(g) ? TL_BIN_FLAG_SYMMETRIC : 0,
                       .nrows = n,
                       .ncols = n,
                       .nnz = nnz,
                       .checksum = tl_bin_sum_final(&sum)};
    tl_bin_header_encode(&h, hdr);
    TL_TRY(tl_outfile_pwrite(f, hdr, sizeof hdr, 0));
    return TL_OK;
}

static tl_status write_mtx(const tl_gen *g, tl_outfile *f)
{
    const int64_t n = tl_gen_nrows(g);
    const int sym = tl_gen_symmetric(g);
    int64_t cols[TL_GEN_MAX_ROW], nnz = 0;
    double vals[TL_GEN_MAX_ROW];
    for (int64_t i = 0; i < n; i++) {
        int c = tl_gen_row(g, i, cols, vals);
        for (int k = 0; k < c; k++)
            nnz += !sym || cols[k] <= i;
    }
    TL_TRY(tl_outfile_printf(f, "%%%%MatrixMarket matrix coordinate real %s\n",
                             sym ? "symmetric" : "general"));
    TL_TRY(tl_outfile_printf(f, "%% trilap-matgen %s n=%lld", tl_gen_kind_name(g->kind),
                             (long long)g->n));
    if (g->kind == TL_GEN_CONVDIFF) TL_TRY(tl_outfile_printf(f, " peclet=%.17g", g->peclet));
    if (g->kind == TL_GEN_HETERO2D) TL_TRY(tl_outfile_printf(f, " decades=%.17g", g->peclet));
    TL_TRY(tl_outfile_printf(f, "\n%lld %lld %lld\n", (long long)n, (long long)n, (long long)nnz));
    for (int64_t i = 0; i < n; i++) {
        int c = tl_gen_row(g, i, cols, vals);
        for (int k = 0; k < c; k++)
            if (!sym || cols[k] <= i)
                TL_TRY(tl_outfile_printf(f, "%lld %lld %.17g\n", (long long)i + 1,
                                         (long long)cols[k] + 1, vals[k]));
    }
    return TL_OK;
}

/* b = A * ones as a Matrix Market array. */
static tl_status write_rhs(const tl_gen *g, tl_outfile *f)
{
    const int64_t n = tl_gen_nrows(g);
    int64_t cols[TL_GEN_MAX_ROW];
    double vals[TL_GEN_MAX_ROW];
    TL_TRY(tl_outfile_printf(f, "%%%%MatrixMarket matrix array real general\n%% b = A * ones, %s n=%lld\n%lld 1\n",
                             tl_gen_kind_name(g->kind), (long long)g->n, (long long)n));
    for (int64_t i = 0; i < n; i++) {
        int c = tl_gen_row(g, i, cols, vals);
        double s = 0.0;
        for (int k = 0; k < c; k++)
            s += vals[k];
        TL_TRY(tl_outfile_printf(f, "%.17g\n", s));
    }
    return TL_OK;
}

/* The least Matrix Market text of `rows` diagonal entries "i i v\n": the
 * row number twice in its own digits, two spaces, a one-digit value, the
 * newline (6 bytes a row took the numbers as one digit each, so that
 * hetero2d 100000, 10^10 rows of 24 bytes and more, passed a disk of 82 GB
 * and counted rows for ten minutes before writing). */
static double mtx_text_least(double rows)
{
    double total = 0;
    int digits = 1;
    for (double lo = 1; lo <= rows; lo *= 10, digits++)
        total += (fmin(rows, lo * 10 - 1) - lo + 1) * (2.0 * digits + 4);
    return total;
}

/* The file at `path` cannot fit the free space of the folder it goes
 * into: refused before the work (poisson7 100000 counted 10^15 rows for
 * days before writing, or filled the disk with a .tlcsr). A lower bound
 * per row, so nothing that fits is refused: the diagonal alone (8 bytes of
 * row pointer and 16 of entry in a .tlcsr; mtx_text_least in Matrix Market
 * text, which gzip shrinks at most 1032 times). */
static tl_status check_disk(const tl_gen *g, const char *path)
{
    if (tl_out_in_place(path)) return TL_OK; /* a stream or a device: no folder to fill */
    const double rows = (double)tl_gen_nrows(g);
    const double need = tl_path_has_suffix(path, ".tlcsr") ? 24.0 * rows
                        : tl_path_has_suffix(path, ".gz") ? mtx_text_least(rows) / 1032.0
                                                          : mtx_text_least(rows);
    char dir[4096];
    struct statvfs fs;
    /* the missing folders are made on the nearest that exists; one that
     * cannot be read is tl_out_check's to say */
    if (tl_out_nearest_folder(path, dir, sizeof dir) != 0 || statvfs(dir, &fs) != 0) return TL_OK;
    const double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    TL_INPUT_CHECK(need <= avail, TL_ERR_IO,
                   "%s: a %s matrix of %.0f rows needs at least %.3g GB on disk; %s has %.3g GB free", path,
                   tl_gen_kind_name(g->kind), rows, need / 1e9, dir, avail / 1e9);
    return TL_OK;
}

tl_status tl_gen_check_write(const tl_gen *g, const char *path)
{
    TL_TRY(check_gen(g));
    TL_INPUT_CHECK(tl_path_takes_matrix(path), TL_ERR_INVAL,
                   "%s: output name must end in .tlcsr, .mtx or .mtx.gz (or be -, stdout)", path);
    return check_disk(g, path);
}

tl_status tl_gen_write_files(const tl_gen *g, const char *path, const char *rhs)
{
    tl_outfile *f = NULL, *r = NULL;
    tl_status st = TL_OK;
    TL_TRY(tl_gen_check_write(g, path));
    int bin = tl_path_has_suffix(path, ".tlcsr");
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(bin ? write_bin(g, f) : write_mtx(g, f), st, fail);
    TL_TRYGOTO(tl_outfile_finish(f), st, fail);
    if (rhs) {
        TL_TRYGOTO(tl_outfile_open(rhs, &r), st, fail);
        TL_TRYGOTO(write_rhs(g, r), st, fail);
        TL_TRYGOTO(tl_outfile_finish(r), st, fail);
    }
    TL_TRYGOTO(tl_outfile_commit(&f), st, fail);
    if (r) TL_TRYGOTO(tl_outfile_commit(&r), st, fail);
    return TL_OK;
fail:
    tl_outfile_abort(&f);
    tl_outfile_abort(&r);
    return st;
}

tl_status tl_gen_write(const tl_gen *g, const char *path)
{
    return tl_gen_write_files(g, path, NULL);
}

tl_status tl_gen_write_rhs(const tl_gen *g, const char *path)
{
    tl_outfile *f = NULL;
    tl_status st = TL_OK;
    TL_TRY(check_gen(g));
    TL_TRY(tl_outfile_open(path, &f));
    TL_TRYGOTO(write_rhs(g, f), st, fail);
    return tl_outfile_commit(&f);
fail:
    tl_outfile_abort(&f);
    return st;
}
