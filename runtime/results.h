/* Results files: one CSV row per run appended atomically (an flock'd
 * single write), the header written once when the file is new or empty;
 * a file whose existing header differs is an error, not a silent mix.
 * And the run manifest written beside it. */
#ifndef TL_RESULTS_H
#define TL_RESULTS_H

#include <stddef.h>

#include "runtime/ctx.h"
#include "runtime/out.h" /* tl_mkdir_p, tl_mkdir_parent */

/* The rows one run appended to a results file, for its block in the
 * manifest: their line numbers (the header is line 1). */
typedef struct tl_results_rows {
    long first, last; /* 0 before the first row */
    long count;       /* fewer than last - first + 1 where another run's rows came between */
    int fresh;        /* this run wrote the header: the file's earlier rows, if any, are gone */
} tl_results_rows;

/* header: "variant,nranks,rep,us_per_iter"; row: "three-split,2,0,81.2".
 * A device or a pipe is refused (tl_results_unfit). rows (NULL: not kept)
 * takes the row's line. */
tl_status tl_results_append(const char *path, const char *header, const char *row, tl_results_rows *rows);
/* Before the run: whether `path` can take this program's rows (not a
 * stream, it and manifest.txt beside it writable, an existing file's
 * header the same); one line naming the path and the reason. */
tl_status tl_results_check(const char *path, const char *header);
/* Why `path` cannot take results, or NULL: a device or a pipe
 * (/dev/stdout) has no header to find and no folder for manifest.txt.
 * Programs ask before their run, to refuse the option at once. */
const char *tl_results_unfit(const char *path);

/* Manifest, key: value lines: program, command line, git commit, date,
 * host(s), launcher, ranks, GPU names per rank, driver/CUDA/NCCL/CUPTI/MPI
 * versions, NCCL_* and CUDA_* and OMPI_/SLURM_ environment, extra lines.
 * Collective on ctx (gathers host and GPU names); rank 0 writes it to
 * `path` through a temporary file and rename. */
tl_status tl_manifest_write(tl_ctx *ctx, const char *path, const char *extra);
/* The same lines as a block of manifest.txt beside `results`, after its
 * `program:` and `command:` the results file's name and the lines the run
 * appended (`results: fdtd.csv`, `results_lines: 2-3`). Blocks of earlier
 * runs stay, a blank line between blocks, so rows appended by several
 * commands keep each its provenance; those naming this results file go
 * when the run started it afresh (rows->fresh). Rank 0 reads and rewrites
 * the file (temp + rename) under the results file's lock; the other
 * ranks pass results NULL. Collective. */
tl_status tl_manifest_add(tl_ctx *ctx, const char *results, const tl_results_rows *rows, const char *extra);

/* One CSV field as RFC 4180 reads it: in double quotes, each inner double
 * quote doubled (`a "b",c` -> `"a ""b"",c"`), for free text in a row (a
 * label, a file name) whose commas would otherwise split it; CR and LF
 * become spaces, so that a row stays one line for the line-reading tools
 * (awk, gnuplot, tl_results_split). Written to
 * buf (n bytes); a text too long is cut inside the quotes, which stay
 * paired. Returns buf. */
const char *tl_results_quote(char *buf, size_t n, const char *s);
/* The same, quoted only where it must be (a comma, a double quote, CR or
 * LF in it): plain names stay as they are for readers that split on commas. */
const char *tl_results_field(char *buf, size_t n, const char *s);
/* One row split in place as RFC 4180 reads it, the inverse of
 * tl_results_field: f[k] points at field k, its quotes removed and its
 * doubled quotes made single. The row ends at its first CR or LF outside
 * quotes. Returns the number of fields, or -1 with why (nwhy bytes) saying
 * what is wrong: a quoted field not closed on its line, text after a
 * closing quote, more than maxf fields. */
int tl_results_split(char *line, char **f, int maxf, char *why, size_t nwhy);

/* A command line as a POSIX shell reads it back: arguments joined by
 * spaces, each one with a character outside [A-Za-z0-9-_=+./,:@%] or empty
 * in single quotes ('it'\''s'), newlines as spaces so that it stays one line.
 * The manifest's `command:` and the programs' `# command:` preambles.
 * Returns a string to free, NULL when out of memory. */
char *tl_manifest_command(int argc, char *const argv[]);

/* The manifest path beside a results file: "<dir of results>/manifest.txt". */
void tl_results_manifest_path(const char *results, char *buf, size_t n);
/* tl_out_set_add of a results file and of the manifest written beside it
 * ("--results (its manifest)"); 1 after its line when either lands where
 * another output of the run does. */
int tl_results_set_add(tl_out_set *s, const char *program, const char *results);


/* Write a whole file atomically: temp name in the same folder, rename. */
tl_status tl_file_write_atomic(const char *path, const void *data, size_t bytes);

#endif
