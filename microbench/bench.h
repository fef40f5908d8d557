/* trilap-bench: the three-stream microbenchmark (tristream), device and
 * host memory bandwidth (stream) and NCCL latency/bandwidth (comm).
 *
 * Everything here but the rank drivers is pure C (no CUDA), so option
 * handling, sweeps, the bound/efficiency arithmetic, the correctness
 * formulas and the output formats are unit-tested without a GPU. */
#ifndef TL_BENCH_H
#define TL_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/comm.h"
#include "runtime/ctx.h"
#include "runtime/options.h"
#include "runtime/results.h"
#include "runtime/role.h"
#include "runtime/schedule.h"

/* ---- options ------------------------------------------------------------ */

typedef struct tl_tristream_opts {
    int64_t allreduce_count; /* doubles */
    int64_t ring_count;      /* doubles; 0 (not given) with ring_bytes 0: the default 32000 */
    int64_t ring_bytes;
    int64_t daxpy_count;    /* doubles per vector */
    const char *variants;   /* "all" or a comma list */
    int priorities;         /* 1: on (p2p and coll above compute) */
    int64_t split_max_ctas, split_min_ctas, daxpy_blocks;
    int64_t hw_queues;      /* CUDA_DEVICE_MAX_CONNECTIONS chosen for the process (0: CUDA's) */
    int64_t warmup, iters, repeat;
    int format;          /* tl_bench_format */
    const char *results; /* CSV file to append to, or NULL */
    const char *trace;   /* trace folder, or NULL */
    int64_t trace_iters;
    int trace_mode;          /* 0 off, 1 nvtx, 2 cupti: probes around the timed loop itself */
    int sweep;               /* tl_bench_sweep_kind */
    const char *sweep_range; /* START:END[:FACTOR] */
    int progress;            /* --progress: the progress line also off a terminal */
} tl_tristream_opts;

typedef struct tl_stream_opts {
    int64_t count; /* doubles per array */
    int64_t iters;
    int64_t block;  /* threads per block */
    int64_t vector; /* doubles per thread and load: 1 or 2 */
    int host;       /* run on the host (OpenMP) instead of the GPU */
    int format;     /* tl_bench_format */
    const char *results;
    int progress;   /* --progress: the progress line also off a terminal */
} tl_stream_opts;

/* --count 0 / --iters 0 (the defaults) made concrete: on GPUs 256M doubles
 * and 100 calls; on the host (--host) arrays of 4x the last-level cache, at
 * most 64 MiB per online core (a time bound: a plain run takes seconds) and
 * 1/8 of `avail` for the three (the bytes tl_hostmem_available gives, which
 * the run's memory check then holds them to; 0: unknown, no such cap), and
 * 20 calls. `note` (may be NULL) gets one line when the cap left the
 * arrays below 4x the cache. */
void tl_stream_resolve_sizes(tl_stream_opts *o, double avail, char *note, size_t nnote);
/* stream's and comm's options checked before the run (sizes, the host's
 * memory, --results), one line each; the sizes resolved (a note on
 * stderr when the host's arrays are capped). */
tl_status tl_stream_check(tl_stream_opts *o);

typedef struct tl_commbench_opts {
    int64_t min_bytes, max_bytes, factor;
    int64_t warmup, iters;
    int comm; /* TL_COMMBENCH_WORLD, _SPLIT or _BOTH */
    int ops;  /* TL_COMMBENCH_ALLREDUCE, _SENDRECV or _BOTH */
    int64_t split_max_ctas, split_min_ctas;
    int format; /* tl_bench_format */
    const char *results;
    int progress; /* --progress: the progress line also off a terminal */
} tl_commbench_opts;
/* (tl_stream_check's twin for comm) */
tl_status tl_commbench_check(const tl_commbench_opts *o);

/* --comm and --ops: one of the two, or both */
enum { TL_COMMBENCH_WORLD = 0, TL_COMMBENCH_ALLREDUCE = 0, TL_COMMBENCH_SPLIT = 1, TL_COMMBENCH_SENDRECV = 1,
       TL_COMMBENCH_BOTH = 2 };

extern const tl_option tl_tristream_options[];
extern const size_t tl_tristream_noptions;
extern const tl_option tl_stream_options[];
extern const size_t tl_stream_noptions;
extern const tl_option tl_commbench_options[];
extern const size_t tl_commbench_noptions;

/* Set CUDA_DEVICE_MAX_CONNECTIONS to `queues` before CUDA starts, unless
 * the environment already sets it (the user's word wins) or queues is 0.
 * With CUDA's default of 8 hardware queues the three streams' launches
 * share queues and NCCL kernels wait behind the DAXPY (2 H200s: three-split
 * 58.4 us, 1.18x the bound; with 32: 53.8 us, 1.09x). Says on stderr what
 * it chose; the manifest records the variable. */
void tl_bench_choose_hw_queues(int64_t queues);

/* "trilap-bench: invalid --NAME 'VALUE': why (try --help)" on stderr;
 * returns TL_ERR_INVAL (main exits 2). */
tl_status tl_bench_invalid(const char *name, const char *value, const char *why);
/* Every rank has a GPU, or rank 0 says in one line that `what` needs one
 * per rank and every rank stops (TL_ERR_REMOTE on the others: one line
 * for the run, not one a rank). Collective. */
tl_status tl_bench_need_gpus(tl_ctx *ctx, const char *what);

/* ---- tristream variants: one table entry, one driver -------------------- */


/* A variant that is one of the solvers' schedules names its row
 * (runtime/schedule.h) and takes its streams and communicators from it:
 * allreduce = the ALLREDUCE step, ring = HALO_POST, DAXPY = UPDATE, so the
 * microbenchmark runs what the CUDA solver backend enqueues. The parts
 * alone name their stream here. Read variants through
 * tl_tristream_variant_get, which fills a schedule's streams in. */
typedef struct tl_tristream_variant {
    const char *name;
    const tl_schedule *schedule;    /* NULL: the roles below */
    tl_role allreduce, ring, daxpy; /* stream of each operation; TL_ROLE_NONE: not run */
    tl_chan allreduce_comm, ring_comm;
    const char *what;
} tl_tristream_variant;

enum {
    TL_VAR_ALLREDUCE_ONLY,
    TL_VAR_RING_ONLY,
    TL_VAR_DAXPY_ONLY,
    TL_VAR_TWO_STREAM,
    TL_VAR_THREE_NAIVE,
    TL_VAR_THREE_SPLIT,
    TL_NVARIANTS
};
extern const tl_tristream_variant tl_tristream_variants[TL_NVARIANTS];
/* Variant vi (0 <= vi < TL_NVARIANTS) with its schedule's streams filled in. */
tl_tristream_variant tl_tristream_variant_get(int vi);

/* "all" or "a,b,c" -> bit mask over tl_tristream_variants (table order). */
tl_status tl_tristream_parse_variants(const char *list, unsigned *mask);

/* Validated, resolved settings of one tristream run. */
typedef struct tl_tristream_cfg {
    unsigned variants;
    int64_t allreduce_count, ring_count, daxpy_count;
    int priorities;
    int64_t split_max_ctas, split_min_ctas, daxpy_blocks;
    int64_t warmup, iters, repeat, trace_iters;
    int format;      /* tl_bench_format */
    int trace_mode;  /* 0 off, 1 nvtx, 2 cupti */
    int sweep;       /* tl_bench_sweep_kind */
    int64_t *points; /* sweep values (bytes or count, as the kind says) */
    size_t npoints;  /* 1 without a sweep */
    int needs_split; /* a selected variant uses the split communicator */
} tl_tristream_cfg;

/* Check the options together (ring-count vs ring-bytes, sweep range, ...).
 * `res` is tl_opts_parse's answer (what was typed), before its positional
 * block is freed. Messages as tl_bench_invalid. */
tl_status tl_tristream_resolve(const tl_tristream_opts *o, const tl_optresult *res,
                               tl_tristream_cfg *cfg);
void tl_tristream_cfg_free(tl_tristream_cfg *cfg);
/* The folder under --trace DIR that variant `variant` at sweep point p is
 * traced into: [timed-<mode>/][<sweep>-<value>/]<variant>, the timed
 * loop's with --trace-mode nvtx or cupti (timed 1), else the traced
 * window's. The run and the check of its outputs name them here alone. */
void tl_tristream_trace_sub(const tl_tristream_cfg *cfg, int timed, size_t p, const char *variant, char *buf,
                            size_t n);
/* After tl_tristream_resolve, before the run: every folder the traces go
 * to can be made, and --results (with its manifest) lands on none of them,
 * none of the folders above them up to DIR, nor a rank file in them
 * (trace.rank<R>.csv); there the run failed after its measurement. After
 * one line naming --trace: 1 where a folder cannot be made (the file
 * system), 2 where --results collides with it (the options clash; it was
 * 1); else 0. */
int tl_tristream_outputs_refused(const tl_tristream_opts *o, const tl_tristream_cfg *cfg);
/* The sizes at sweep point p. */
void tl_tristream_point(const tl_tristream_cfg *cfg, size_t p, int64_t *allreduce_count,
                        int64_t *ring_count, int64_t *daxpy_count);

/* ---- sweeps --------------------------------------------------------------- */

typedef enum {
    TL_SWEEP_NONE = 0,
    TL_SWEEP_RING_BYTES,
    TL_SWEEP_ALLREDUCE_COUNT,
    TL_SWEEP_DAXPY_BYTES
} tl_bench_sweep_kind;
/* "none", "ring-bytes", ... as --sweep spells them */
const char *tl_bench_sweep_name(tl_bench_sweep_kind kind);
#define TL_SWEEP_MAX_POINTS 64
/* "START:END[:FACTOR]" (sizes take K/M/G), FACTOR an integer >= 2 [2]:
 * START, START*F, ... <= END. At most TL_SWEEP_MAX_POINTS points;
 * *points is malloc'd. TL_ERR_PARSE with *why set on a bad range. */
tl_status tl_sweep_parse(const char *range, int64_t **points, size_t *npoints, const char **why);
/* The same geometric series, for `comm` (min, max, factor). */
tl_status tl_sweep_series(int64_t start, int64_t end, int64_t factor, int64_t **points,
                          size_t *npoints, const char **why);

/* ---- metrics --------------------------------------------------------------- */

/* One result row of tristream: a variant at one point. */
typedef struct tl_tristream_row {
    const char *variant;
    int64_t allreduce_bytes, ring_bytes, daxpy_bytes;
    double median_us, min_us, max_us;
    double speedup;  /* two-stream median / this median; NAN when two-stream is absent */
    double bound_us; /* max(allreduce-only, ring-only, daxpy-only); NAN when a part is absent */
    double eff_pct;  /* overlap efficiency in %; NAN for single parts or absent parts */
    int64_t wrong;
} tl_tristream_row;

/* (sum of parts - t) / (sum of parts - max part), as a fraction; NAN when
 * the parts do not overlap-able (sum == max) or an input is not finite. */
double tl_overlap_efficiency(double sum_parts, double max_part, double t);
/* Fill speedup, bound_us and eff_pct of rows[0..n) (one point, any order). */
void tl_tristream_derive(tl_tristream_row *rows, size_t n);

/* nccl-tests factors: algbw = bytes / t; busbw = algbw * factor. */
double tl_busbw_factor(const char *op, int nranks);

/* ---- correctness (host side) ------------------------------------------- */
#include "microbench/patterns.h"
/* Number of elements of buf[0..n) that the expectation calls wrong. */
int64_t tl_bench_count_wrong(const double *buf, int64_t n, const tl_bench_expect *e);

/* BabelStream's analytic values after `iters` rounds of copy, mul, add,
 * triad starting from a=0.1, b=0.2, c=0.0 with scalar 0.4; dot = a*b*n. */
typedef struct tl_stream_gold {
    double a, b, c, sum;
} tl_stream_gold;
tl_stream_gold tl_stream_gold_of(int64_t iters, int64_t n);
#define TL_STREAM_SCALAR 0.4
#define TL_STREAM_INIT_A 0.1
#define TL_STREAM_INIT_B 0.2
#define TL_STREAM_INIT_C 0.0

/* ---- output: one writer for the three formats --------------------------- */

typedef enum { TL_FMT_TABLE = 0, TL_FMT_CSV, TL_FMT_JSON } tl_bench_format;

typedef struct tl_bench_kv {
    char *key, *value;
} tl_bench_kv;
typedef struct tl_bench_meta {
    tl_bench_kv *kv; /* "# key: value" preamble, in order */
    size_t n, cap;
    tl_bench_kv *opt; /* "# opt: name=value" lines */
    size_t nopt, optcap;
} tl_bench_meta;
tl_status tl_bench_meta_add(tl_bench_meta *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tl_status tl_bench_meta_add_opt(tl_bench_meta *m, const char *name, const char *value);
/* Every option of `spec` with its current value (through tl_opts_echo). */
tl_status tl_bench_meta_add_opts(tl_bench_meta *m, const tl_optspec *spec);
void tl_bench_meta_free(tl_bench_meta *m);

/* The row member a column shows: const char * (STR), int64_t (INT), int
 * (INT32), double (REAL). */
typedef enum { TL_COL_STR, TL_COL_INT, TL_COL_INT32, TL_COL_REAL } tl_bench_coltype;
/* A column names its value: the member of the row struct at `field`, so a
 * column and its value sit on one line of the table. */
typedef struct tl_bench_col {
    const char *name; /* table names row */
    const char *unit; /* table units row, "" for none */
    const char *key;  /* CSV/JSON name, with the unit: "median_us" */
    tl_bench_coltype type;
    int width, prec; /* table width (grown to fit the names), decimals of REAL */
    size_t field;    /* offsetof the row member */
} tl_bench_col;
typedef struct tl_bench_cell {
    const char *s; /* STR */
    int64_t i;     /* INT */
    double d;      /* REAL; NAN prints "-" (table), "" (CSV), null (JSON) */
} tl_bench_cell;

/* The cells of one row (a tl_*_row) as cols name them. */
void tl_bench_cells(const tl_bench_col *cols, size_t ncols, const void *row, tl_bench_cell *cells);

/* Preamble, names row, units row, rows (cells row-major, ncols per row),
 * footer "# N rows, N wrong". */
tl_status tl_bench_write(FILE *out, tl_bench_format fmt, const tl_bench_meta *meta,
                         const tl_bench_col *cols, size_t ncols, const tl_bench_cell *cells,
                         size_t nrows, int64_t wrong);

/* Each subcommand's columns and rows in that form. */
extern const tl_bench_col tl_tristream_cols[];
extern const size_t tl_tristream_ncols;
void tl_tristream_cells(const tl_tristream_row *r, tl_bench_cell *cells);

typedef struct tl_stream_row {
    const char *function; /* copy, mul, add, triad, dot */
    int rank;
    const char *device; /* "NVIDIA H200" or "host" */
    int64_t bytes;      /* moved per call */
    double gbs;         /* bytes / min time, 1e9 B/s */
    double min_ms, max_ms, avg_ms;
    int64_t wrong;
} tl_stream_row;
extern const tl_bench_col tl_stream_cols[];
extern const size_t tl_stream_ncols;
void tl_stream_cells(const tl_stream_row *r, tl_bench_cell *cells);
/* Bytes each function moves over n doubles (BabelStream's counting). */
int64_t tl_stream_bytes(const char *function, int64_t n);

typedef struct tl_comm_row {
    const char *op;   /* allreduce | sendrecv */
    const char *comm; /* world | split */
    int64_t bytes, count;
    const char *type, *redop;
    double time_us, algbw_gbs, busbw_gbs;
    int64_t wrong;
} tl_comm_row;
extern const tl_bench_col tl_comm_cols[];
extern const size_t tl_comm_ncols;
void tl_comm_cells(const tl_comm_row *r, tl_bench_cell *cells);

/* ---- results files (tl_results_append rows) -------------------------------- */

extern const char tl_tristream_results_header[];
typedef struct tl_tristream_sample {
    const char *variant;
    int nranks, rep;
    double us_per_iter;
    int64_t allreduce_bytes, ring_bytes, daxpy_bytes, iters, warmup;
    int priorities;
    int64_t split_max_ctas, split_min_ctas, daxpy_blocks;
    const char *trace_mode, *max_connections, *launch_mode;
    int64_t wrong;
} tl_tristream_sample;
/* The CSV row (no newline) into buf; returns buf. */
const char *tl_tristream_results_row(const tl_tristream_sample *s, char *buf, size_t n);

extern const char tl_stream_results_header[];
const char *tl_stream_results_row(const tl_stream_row *r, int64_t count, int64_t iters, char *buf,
                                  size_t n);
extern const char tl_comm_results_header[];
/* A subcommand's block in manifest.txt beside --results (results NULL:
 * none), begun before its first row (tl_manifest_begin, "subcommand:
 * NAME"). Collective: every rank calls it, rank 0's results are used. */
tl_status tl_bench_manifest_begin(tl_ctx *ctx, const char *results, const char *header, const char *subcommand,
                                  tl_manifest_run *mr);
const char *tl_comm_results_row(const tl_comm_row *r, int nranks, int64_t iters, char *buf,
                                size_t n);

/* An environment variable for the preamble: its value, or "unset". */
const char *tl_bench_env(const char *name);

/* ---- the subcommands (rank mains run under tl_launch_run) ---------------- */

typedef struct tl_bench_run {
    const tl_optspec *spec;       /* for the preamble's option lines */
    const void *opts;             /* the subcommand's options */
    const tl_tristream_cfg *tcfg; /* tristream only */
} tl_bench_run;

tl_status tl_tristream_rank_main(tl_ctx *ctx, void *arg);
tl_status tl_stream_rank_main(tl_ctx *ctx, void *arg);
tl_status tl_commbench_rank_main(tl_ctx *ctx, void *arg);

/* Host STREAM (OpenMP): fills rows[0..5) for arrays of n doubles. Returns
 * TL_ERR_NUMERIC when verification fails (rows still filled, wrong > 0). */
tl_status tl_stream_host(int64_t n, int64_t iters, int progress, tl_stream_row rows[5]);
/* The threads tl_stream_host's loops run on, called from the thread that
 * runs them (1 in a build without OpenMP). */
int tl_stream_host_threads(void);

/* Common preamble of every subcommand (version, commit, ranks, devices). */
tl_status tl_bench_meta_common(tl_bench_meta *m, tl_ctx *ctx, const char *subcommand);

#endif
