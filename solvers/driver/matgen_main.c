/* trilap-matgen: generate test matrices, convert Matrix Market to the
 * binary format, partition a matrix, describe a matrix file. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "runtime/options.h"
#include "runtime/out.h"
#include "runtime/results.h"
#include "runtime/tmpfile.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/gen.h"
#include "solvers/matrix/mmio.h"
#include "solvers/matrix/outfile.h"
#include "solvers/dist/partition.h"

#define PROG "trilap-matgen"

typedef struct matgen_opts {
    double peclet;
    double decades;
    const char *rhs;
    int method; /* PART_* */
} matgen_opts;

enum { PART_METIS, PART_METIS_RECURSIVE, PART_BLOCK };
static const char *const part_names[] = {
    [PART_METIS] = "metis", [PART_METIS_RECURSIVE] = "metis-recursive", [PART_BLOCK] = "block"};

static const tl_option matgen_options[] = {
    {.name = "peclet",
     .type = TL_OPT_DOUBLE,
     .offset = offsetof(matgen_opts, peclet),
     .def = TL_GEN_DEFAULT_PECLET, /* gen:convdiff:N's too */
     .metavar = "P",
     .help = "convdiff: cell Peclet number (0 = symmetric 7-point)",
     .min = 0,
     .max = TL_GEN_MAX_PECLET},
    {.name = "decades",
     .type = TL_OPT_DOUBLE,
     .offset = offsetof(matgen_opts, decades),
     .def = TL_GEN_DEFAULT_DECADES, /* gen:hetero2d:N's too */
     .metavar = "D",
     .help = "hetero2d: decades spanned by the edge coefficients (4: 1e-2 .. 1e2)",
     .min = 0,
     .max = TL_GEN_MAX_DECADES},
    {.name = "rhs",
     .type = TL_OPT_STRING,
     .offset = offsetof(matgen_opts, rhs),
     .metavar = "FILE",
     .help = "generators: also write b = A*ones (exact solution ones) as an array .mtx"},
    {.name = "method",
     .type = TL_OPT_ENUM,
     .offset = offsetof(matgen_opts, method),
     .def = "metis",
     TL_OPT_CHOICES(part_names),
     .metavar = "M",
     .help = "partition: partitioner"},
};

/* the purpose sentence first, as in every program's help, then the
 * commands (they came between the usage line and the purpose) */
static const char purpose[] =
    "Generate, convert and partition sparse matrices for trilap.\n\n"
    "Commands:\n"
    "  poisson7 N OUT        3D 7-point Laplacian on an N^3 grid (SPD)\n"
    "  poisson27 N OUT       3D 27-point Laplacian on an N^3 grid (SPD, poisson3da family)\n"
    "  convdiff N OUT        3D upwind convection-diffusion (nonsymmetric; --peclet)\n"
    "  hetero2d N OUT        2D 5-point Laplacian, N^2 rows, edge coefficients over --decades (SPD)\n"
    "  convert IN OUT        Matrix Market (.mtx, .mtx.gz) <-> binary (.tlcsr), by OUT's name\n"
    "  partition A NPARTS OUT  write a partition file (--method); prints edge cut and imbalance\n"
    "  info FILE             sizes and symmetry of a matrix file\n"
    "IN, A and FILE may be a generated matrix, gen:KIND:N[:PECLET], as trilap-solve takes it.\n"
    "OUT ending in .tlcsr is binary, .mtx or .mtx.gz is Matrix Market; - (stdout) or a pipe takes\n"
    "Matrix Market text";

/* an OUT whose format nothing says (before, - and /dev/stdout were refused
 * so, and a matrix could not be piped on) */
static const char not_matrix[] = "not .tlcsr, .mtx or .mtx.gz, nor - (stdout) or a pipe";

static int bad_arg(const char *what, const char *value)
{
    fprintf(stderr, PROG ": invalid %s '%s' (try --help)\n", what, value);
    return 2;
}

static int bad_arg_why(const char *what, const char *value, const char *why)
{
    fprintf(stderr, PROG ": invalid %s '%s': %s (try --help)\n", what, value, why);
    return 2;
}

/* An empty file name for `what`: the command line's fault, one line, 2
 * (an OUT said "not .tlcsr, .mtx or .mtx.gz", and partition's OUT and
 * --rhs "an output file name is empty", exit 1); else 0. */
static int empty_name(const char *what, const char *name)
{
    return name && !name[0] ? bad_arg_why(what, name, "an empty file name") : 0;
}

/* A command given other than `want` arguments: one line saying what it
 * takes (before: "invalid arguments for 'info' (try --help)"). np counts
 * the command itself. */
static int bad_arity(const char *cmd, int np, int want, const char *takes)
{
    char why[160];
    snprintf(why, sizeof why, "it takes %s (%d argument%s), got %d", takes, want - 1, want == 2 ? "" : "s", np - 1);
    return bad_arg_why("arguments for", cmd, why);
}

/* A whole number lo .. hi for `what`, else its refusal saying which
 * (before: "invalid grid size N '0' (try --help)", no reason given), and
 * why hi is the bound when `bound` says; 0 when taken, 2 when refused. */
static int parse_count(const char *what, const char *text, int64_t lo, int64_t hi, const char *bound, int64_t *v)
{
    char why[192];
    if (tl_opts_parse_int(text, v) != TL_OK) return bad_arg_why(what, text, "not a whole number");
    if (*v >= lo && *v <= hi) return 0;
    snprintf(why, sizeof why, "out of range [%" PRId64 ", %" PRId64 "]%s%s", lo, hi, bound ? ": " : "",
             bound ? bound : "");
    return bad_arg_why(what, text, why);
}

/* Where the report goes: stderr when an output is this process's stdout
 * ("-", /dev/stdout, the file stdout was sent to), which then carries that
 * file alone (before: `--rhs - > b.mtx` and `partition A 4 - > p.mtx` got
 * the report appended to the Matrix Market data). */
static int is_stdout(const char *out)
{
    struct stat a, b;
    if (!out) return 0;
    if (strcmp(out, "-") == 0) return 1;
    return stat(out, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static FILE *report_stream(const char *out)
{
    return is_stdout(out) ? stderr : stdout;
}

/* An output's folder, made where missing once the inputs are read and
 * checked (a refused input stays one line and leaves no folder) and
 * said, as every trilap program says its outputs' (runtime/out.h:
 * tl_out_make_folder); what: "output" for OUT, as the refusals name it,
 * or "--rhs". Before, the writers made it in silence. */
static tl_status out_folder(const char *what, const char *path)
{
    return tl_out_make_folder(PROG, what, path, TL_OUT_FOLDER_OF_FILE);
}

static tl_status cmd_generate(tl_gen_kind kind, int64_t n, const char *out, const matgen_opts *o)
{
    tl_gen g = {.kind = kind,
                .n = n,
                .peclet = kind == TL_GEN_CONVDIFF   ? o->peclet
                          : kind == TL_GEN_HETERO2D ? o->decades
                                                    : 0.0};
    TL_TRY(tl_gen_check_write(&g, out)); /* a matrix larger than the disk, before a folder is made for it */
    TL_TRY(out_folder("output", out));
    TL_TRY(out_folder("--rhs", o->rhs));
    TL_TRY(tl_gen_write_files(&g, out, o->rhs));
    int64_t rows = tl_gen_nrows(&g);
    FILE *rep = is_stdout(o->rhs) ? stderr : report_stream(out);
    fprintf(rep, "matrix: %s\nkind: %s\ngrid: %" PRId64 "^%d\nrows: %" PRId64 "\nsymmetric: %s\n", out,
           tl_gen_kind_name(kind), n, tl_gen_dims(&g), rows, tl_gen_symmetric(&g) ? "yes" : "no");
    if (kind == TL_GEN_CONVDIFF) fprintf(rep, "peclet: %g\n", g.peclet);
    if (kind == TL_GEN_HETERO2D) fprintf(rep, "decades: %g\n", g.peclet);
    if (o->rhs) fprintf(rep, "rhs: %s (b = A*ones)\n", o->rhs);
    return TL_OK;
}

static tl_status cmd_convert(const char *in, const char *out)
{
    tl_csr a = {0};
    tl_status st = TL_OK;
    TL_TRY(tl_gen_load(in, 0, &a));
    int sym = tl_csr_is_symmetric(&a, 0.0, NULL, NULL); /* exactly: stored as symmetric */
    TL_TRYGOTO(out_folder("output", out), st, fail);
    if (tl_path_has_suffix(out, ".tlcsr"))
        TL_TRYGOTO(tl_bin_write(out, &a, sym ? TL_BIN_FLAG_SYMMETRIC : 0), st, fail);
    else
        TL_TRYGOTO(tl_mm_write_csr(out, &a, sym), st, fail);
    fprintf(report_stream(out), "matrix: %s\nrows: %" PRId64 "\ncols: %" PRId64 "\nnonzeros: %" PRId64
           "\nsymmetric: %s\nwritten: %s\n",
           in, a.nrows, a.ncols, a.nnz, sym ? "yes" : "no", out);
fail:
    tl_csr_free(&a);
    return st;
}

static tl_status cmd_partition(const char *in, int nparts, const char *out, const matgen_opts *o)
{
    tl_csr a = {0};
    int *part = NULL;
    tl_partition_stats s;
    tl_status st = TL_OK;
    TL_TRY(tl_gen_load(in, 1, &a));
    part = malloc((size_t)(a.nrows ? a.nrows : 1) * sizeof *part);
    TL_CHECKGOTO(part, TL_ERR_NOMEM, st, fail, "partition of %" PRId64 " rows", a.nrows);
    switch (o->method) {
    case PART_BLOCK: TL_TRYGOTO(tl_partition_block(a.nrows, nparts, part), st, fail); break;
    default: TL_TRYGOTO(tl_partition_metis(&a, nparts, o->method == PART_METIS_RECURSIVE, part), st, fail); break;
    }
    TL_TRYGOTO(tl_partition_stats_compute(&a, part, nparts, &s), st, fail);
    /* after the partitioner, which may refuse the matrix (METIS's 32-bit
     * indices) */
    TL_TRYGOTO(out_folder("output", out), st, fail);
    TL_TRYGOTO(tl_partition_write(out, part, a.nrows), st, fail);
    const int skipped = o->method != PART_BLOCK && nparts > 1 && !tl_partition_metis_called(a.nrows, nparts);
    fprintf(report_stream(out), "matrix: %s\nrows: %" PRId64 "\nparts: %d\nmethod: %s%s\nedge cut: %" PRId64
           "\nrows per part: %" PRId64 " .. %" PRId64 "\nimbalance: %.4f\nwritten: %s\n",
           in, a.nrows, nparts, part_names[o->method],
           skipped ? " (as many parts as rows or more: a row each, METIS not called)" : "", s.edgecut, s.min_rows,
           s.max_rows, s.imbalance, out);
    /* as trilap-solve says of its ranks: `partition A 600` of 512 rows
     * wrote 88 empty parts with "rows per part: 0 .. 1" alone */
    if (s.empty_parts > 0)
        fprintf(stderr, PROG ": warning: %d of the %d parts get%s no rows of %s (%" PRId64 " row%s): a run on this "
                "file has %s with nothing to compute in every allreduce and halo phase; use at most %" PRId64
                " part%s\n", s.empty_parts, nparts, s.empty_parts == 1 ? "s" : "", in, a.nrows, a.nrows == 1 ? "" : "s",
                s.empty_parts == 1 ? "a rank" : "ranks", a.nrows, a.nrows == 1 ? "" : "s");
fail:
    free(part);
    tl_csr_free(&a);
    return st;
}

static tl_status cmd_info(const char *in)
{
    tl_csr a = {0};
    TL_TRY(tl_gen_load(in, 0, &a));
    int64_t maxrow = 0;
    for (int64_t i = 0; i < a.nrows; i++)
        if (a.rowptr[i + 1] - a.rowptr[i] > maxrow) maxrow = a.rowptr[i + 1] - a.rowptr[i];
    printf("matrix: %s\nrows: %" PRId64 "\ncols: %" PRId64 "\nnonzeros: %" PRId64
           "\nmax row: %" PRId64 "\nmean row: %.2f\nsymmetric: %s\n",
           in, a.nrows, a.ncols, a.nnz, maxrow, a.nrows ? (double)a.nnz / (double)a.nrows : 0.0,
           tl_csr_is_symmetric(&a, 0.0, NULL, NULL) ? "yes" : "no");
    tl_csr_free(&a);
    return TL_OK;
}

/* The options a command does not use, typed with it (before: taken and
 * dropped, the file the same as without them): one line naming the option,
 * its value and what it belongs to, 2. --rhs is refused by run_command. */
static int unused_option(const char *cmd, int kind, const matgen_opts *o, const tl_optresult *res)
{
    char value[64];
    if (kind != TL_GEN_CONVDIFF && tl_opts_given(res, &o->peclet)) {
        snprintf(value, sizeof value, "%g", o->peclet);
        fprintf(stderr, PROG ": invalid --peclet '%s': only convdiff takes a Peclet number, not %s (try --help)\n",
                value, cmd);
        return 2;
    }
    if (kind != TL_GEN_HETERO2D && tl_opts_given(res, &o->decades)) {
        snprintf(value, sizeof value, "%g", o->decades);
        fprintf(stderr, PROG ": invalid --decades '%s': only hetero2d takes decades of coefficients, not %s (try --help)\n",
                value, cmd);
        return 2;
    }
    if (strcmp(cmd, "partition") != 0 && tl_opts_given(res, &o->method)) {
        fprintf(stderr, PROG ": invalid --method '%s': only partition takes a partitioner, not %s (try --help)\n",
                part_names[o->method], cmd);
        return 2;
    }
    return 0;
}

/* The command line's command: its arguments checked (2 when bad), its
 * outputs checked (their folders made, and said, once the inputs are
 * read: out_folder), then the work. *st: the work's. */
static int run_command(char **pos, int np, const matgen_opts *o, const tl_optresult *res, tl_status *st)
{
    const char *cmd = pos[0];
    int kind = tl_gen_kind_parse(cmd);
    int64_t n = 0, k = 0;
    if (kind < 0 && strcmp(cmd, "convert") != 0 && strcmp(cmd, "partition") != 0 && strcmp(cmd, "info") != 0)
        return bad_arg("command", cmd);
    int rc = unused_option(cmd, kind, o, res);
    if (rc) return rc;
    if (kind >= 0) {
        if (np != 3) return bad_arity(cmd, np, 3, "N OUT");
        if (parse_count("grid size N", pos[1], 1, TL_GEN_MAX_N, TL_GEN_MAX_N_WHY, &n)) return 2;
        if (empty_name("output", pos[2]) || empty_name("--rhs", o->rhs)) return 2;
        if (!tl_path_takes_matrix(pos[2])) return bad_arg_why("output name", pos[2], not_matrix);
        /* --rhs checked here alone: not the matrix's file by any spelling
         * (A.mtx, ./A.mtx, a link: b was renamed over the matrix, exit 0),
         * then writable, as the matrix is */
        tl_out_set seen = {0};
        if (o->rhs && (tl_out_set_add(&seen, PROG, "the matrix", pos[2]) || tl_out_set_add(&seen, PROG, "--rhs", o->rhs)))
            return 2;
        if (tl_path_refuse_text_binary(PROG, "--rhs", o->rhs, "b", TL_TEXT_MATRIX_MARKET)) return 2;
        /* one stream of two files is neither (the set above keeps files, not streams) */
        if (o->rhs && is_stdout(pos[2]) && is_stdout(o->rhs)) {
            fprintf(stderr, PROG ": the matrix (%s) and --rhs (%s) both go to stdout: give one of them a file\n",
                    pos[2], o->rhs);
            return 2;
        }
        if ((*st = tl_out_check(pos[2])) == TL_OK && o->rhs) *st = tl_out_check_as("--rhs", tl_out_check, o->rhs);
        if (*st == TL_OK) *st = cmd_generate((tl_gen_kind)kind, n, pos[2], o);
        return 0;
    }
    /* --rhs belongs to the generators: elsewhere it would be dropped */
    if (o->rhs) return bad_arg_why("--rhs", o->rhs, "only a generator writes a right-hand side");
    /* it was "trilap-matgen: : cannot open: ...", naming nothing */
    if (np >= 2 && empty_name("input", pos[1])) return 2;
    tl_gen spec;
    if (np >= 2 && strncmp(pos[1], "gen:", 4) == 0 && tl_gen_parse_spec(pos[1], &spec) != TL_OK) return 2;
    if (strcmp(cmd, "convert") == 0) {
        if (np != 3) return bad_arity(cmd, np, 3, "IN OUT");
        if (empty_name("output", pos[2])) return 2;
        if (!tl_path_takes_matrix(pos[2])) return bad_arg_why("output name", pos[2], not_matrix);
        /* it rewrote the file in place, converting nothing, exit 0 */
        if (tl_out_same_file(pos[2], pos[1]))
            return bad_arg_why("output", pos[2], "the matrix it converts; give the converted matrix a file of its own");
        if ((*st = tl_out_check(pos[2])) == TL_OK) *st = cmd_convert(pos[1], pos[2]);
    } else if (strcmp(cmd, "partition") == 0) {
        if (np != 4) return bad_arity(cmd, np, 4, "A NPARTS OUT");
        if (parse_count("NPARTS", pos[2], 1, 1 << 20, NULL, &k) || empty_name("output", pos[3])) return 2;
        if (tl_path_refuse_text_binary(PROG, "output", pos[3], "a partition", TL_TEXT_MATRIX_MARKET)) return 2;
        /* it replaced the matrix with its partition, without a word */
        if (tl_out_same_file(pos[3], pos[1]))
            return bad_arg_why("output", pos[3], "the matrix it partitions; give the partition a file of its own");
        if ((*st = tl_out_check(pos[3])) == TL_OK) *st = cmd_partition(pos[1], (int)k, pos[3], o);
    } else if (strcmp(cmd, "info") == 0) {
        if (np != 2) return bad_arity(cmd, np, 2, "FILE");
        *st = cmd_info(pos[1]);
    } else {
        return bad_arg("command", cmd);
    }
    return 0;
}

int main(int argc, char **argv)
{
    matgen_opts o;
    tl_optgroup groups[] = {
        {"Options", matgen_options, sizeof matgen_options / sizeof matgen_options[0], &o}};
    tl_optspec spec = {.program = PROG,
                       .usage = "COMMAND ARGS...",
                       .purpose = purpose,
                       .groups = groups,
                       .ngroups = 1,
                       .min_positional = 1,
                       .max_positional = 4};
    tl_optresult res = {0};
    tl_log_set_prefix(PROG, -1);
    if (tl_tmpfile_handle_signals(PROG) != TL_OK) return 1;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) return 0;
    tl_status st = TL_OK;
    int rc = run_command(res.positional, res.npositional, &o, &res, &st);
    free(res.positional); /* and what tl_opts_given reads */
    if (rc) return rc;
    if (st != TL_OK) tl_tmpfile_cleanup(); /* temporary outputs, folders made for them */
    return st == TL_OK ? 0 : 1;
}
