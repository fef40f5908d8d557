/* The calibration a prediction rests on: measured numbers (read from the
 * committed results) and the parameters fitted on them, each with where it
 * came from. Written and read as `key = value  # source` lines. */
#ifndef TL_MODEL_CALIB_H
#define TL_MODEL_CALIB_H

#include <limits.h>
#include <stdio.h>

#include "runtime/error.h"

/* calibrate's defaults for the kernel cost: the roof fit of
 * results/solver-fixed-cost-h200 (96-256^3), measured; strings, as its
 * options take them */
#define TL_MCALIB_ROOF_FIXED_US "21.6"
#define TL_MCALIB_ROOF_BW_FRAC "0.905"

/* calibrate's four inputs' paths (the traces' with its
 * "/{two-stream,three-naive}"), each up to PATH_MAX, in the source line */
#define TL_MCALIB_SOURCE_MAX (4 * (PATH_MAX + 32))

typedef struct tl_mcalib {
    /* measured: the three-stream microbenchmark's parts alone (us per
     * iteration, median of repetitions) and its variants */
    double ts_allreduce_us, ts_ring_us, ts_daxpy_us;
    double ts_two_us, ts_naive_us, ts_split_us;
    double ts_ring_bytes, ts_allreduce_bytes;
    /* measured: trilap-bench comm on two GPUs */
    double comm_allreduce16_us; /* allreduce of 2 doubles, world */
    double comm_sendrecv8_us;   /* sendrecv of 8 B */
    double port_gbs;            /* sendrecv busbw at the largest size */
    /* measured: triad on one GPU (GB/s) */
    double triad_gbs;
    /* measured on one H200 (results/solver-fixed-cost-h200, roof-fit.awk over
     * 96^3-256^3): Pipe-PCG us/iter = fixed + bytes / (frac x triad) */
    double pcg_fixed_us, pcg_bw_frac;
    /* measured in the tristream traces (model/calib_trace.c): a kernel's
     * start after the kernel it waits for on the same stream, on another
     * stream, and the excess the model charges per cross-stream wait */
    double xstream_same_us, xstream_cross_us, xstream_us;
    /* fitted by simulation (model/fit.c) */
    double alpha_coll_us, alpha_p2p_us; /* an NCCL operation's fixed cost */
    double nccl_rate;                   /* NCCL progress beside a compute kernel */
    /* the files it came from: four paths of up to PATH_MAX, blanks
     * between (512 bytes cut a cluster's long paths, an input dropped
     * from the record in silence) */
    char source[TL_MCALIB_SOURCE_MAX];
    /* the GPU the inputs name (the `gpu` key): their manifests', else the
     * one stream.csv's device column or the traces' device_name name
     * (tl_mcalib_gpu); TL_MCALIB_GPU_UNNAMED where none names one, and a
     * prediction then needs gpu_mem_gbs; "": the file predates the key,
     * and a prediction takes the triad as an H200's, saying so */
    char gpu[256];
    double gpu_mem_gbs; /* its nominal memory bandwidth (`gpu_mem_gbs`); 0: the platform table's */
} tl_mcalib;

/* Measured numbers from result files (NULL: that part is left unset). */
tl_status tl_mcalib_read_tristream(tl_mcalib *c, const char *csv);
tl_status tl_mcalib_read_comm(tl_mcalib *c, const char *csv);
tl_status tl_mcalib_read_stream(tl_mcalib *c, const char *csv);
/* DIR/two-stream and DIR/three-naive traces of trilap-bench tristream. */
tl_status tl_mcalib_read_traces(tl_mcalib *c, const char *dir);
/* The files tl_mcalib_read_traces reads in dir (each rank's trace of the
 * two variants), for refusing an output over one of them. */
enum { TL_MCALIB_TRACE_FILES = 4 };
void tl_mcalib_trace_files(const char *dir, char paths[TL_MCALIB_TRACE_FILES][4200]);

/* calibrate's inputs, each with the option that named it; is_dir for the
 * traces' folder, else a file whose folder holds its manifest.txt. */
typedef struct tl_mcalib_input {
    const char *option, *path;
    int is_dir;
} tl_mcalib_input;
/* The manifest.txt that says in's run (beside the file, in the folder):
 * read, so no output may replace it. */
void tl_mcalib_manifest_of(const tl_mcalib_input *in, char *path, size_t n);
/* The GPU calibrate's measurements are held to: the model the inputs'
 * manifests name, else the first their traces (device_name) or
 * stream.csv's device column name; "" where nothing names one. by: what
 * named it, for a refusal to quote ("r/manifest.txt", "the trace
 * d/two-stream/trace.rank0.csv", "s.csv:2"). */
typedef struct tl_mcalib_gpu {
    char model[256];
    char by[4300];
} tl_mcalib_gpu;
/* Every input whose manifest.txt names a GPU names the same model
 * (calib_machine.c); one that differs is refused naming both. held: that
 * model and the first manifest naming it, model "" where none does. */
tl_status tl_mcalib_same_gpu(const tl_mcalib_input *in, int n, tl_mcalib_gpu *held);
/* The traces calibrate reads in dir (tl_mcalib_trace_files) that name no
 * GPU (device_name unknown, none or absent): how many of how many, the
 * first and its value, for tl_mcalib_unnamed_say. */
typedef struct tl_mcalib_unnamed {
    int n, of;
    char first[4200], value[256];
} tl_mcalib_unnamed;
/* Each of dir's traces that names a GPU names held's (the first names it
 * where held names none): one that does not is refused naming both files
 * and both GPUs. Those naming none are counted in *unnamed. */
tl_status tl_mcalib_traces_of_gpu(const char *dir, tl_mcalib_gpu *held, tl_mcalib_unnamed *unnamed);
/* One note on stderr where traces name no GPU and something else does:
 * they were not compared. */
void tl_mcalib_unnamed_say(const tl_mcalib_unnamed *u, const tl_mcalib_gpu *held);
/* The stream CSV is a run of the GPU held names: every row's device
 * column (where it has one) names that model (where held names none, the
 * first row's, which held takes), and c's triad is no more than its
 * nominal memory bandwidth (c->gpu_mem_gbs, else model/platform.c's
 * figure; a GPU the table lacks: said, not checked; no GPU named and no
 * figure: not checked, calibrate's note says so). Refused in one line
 * naming the file. */
tl_status tl_mcalib_stream_of_gpu(const tl_mcalib *c, const char *csv, tl_mcalib_gpu *held);
/* The `ranks:` lines of the manifest.txt beside csv (its command blocks)
 * each say want; one that does not is refused naming it, its line and
 * needs. No manifest, or none with such a line: nothing to compare. */
tl_status tl_mcalib_manifest_ranks(const char *csv, int want, const char *needs);

/* The GPU the calibration's triad was measured on, where c->gpu is ""
 * (a file from before the key). */
#define TL_MCALIB_DEFAULT_GPU "NVIDIA H200"
/* c->gpu where no input named the GPU measured: no platform's device, so
 * a prediction scales the triad only from gpu_mem_gbs (refused without
 * it), never as an H200's. */
#define TL_MCALIB_GPU_UNNAMED "unknown"

tl_status tl_mcalib_load(tl_mcalib *c, const char *path);
/* Temporary name + rename; "-" writes to stdout. */
tl_status tl_mcalib_save(const tl_mcalib *c, const char *path);
void tl_mcalib_print(const tl_mcalib *c, FILE *out, const char *prefix);
/* One line per fitted or derived parameter: its value, how it was had and
 * the measurement and file it rests on (the file from `source`). */
void tl_mcalib_print_origins(const tl_mcalib *c, FILE *out, const char *prefix);

/* One CSV file's rows as fields; header names looked up once. Exposed for
 * the tests. */
typedef struct tl_csv {
    int ncols, nrows;
    char **head;  /* ncols */
    char ***rows; /* nrows x ncols */
    int *line;    /* nrows: each row's line in the file, for a refusal to name */
} tl_csv;
tl_status tl_csv_read(const char *path, tl_csv *t);
int tl_csv_col(const tl_csv *t, const char *name); /* -1 when absent */
void tl_csv_free(tl_csv *t);

#endif
