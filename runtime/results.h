/* Results files: one CSV row per run appended atomically (an flock'd
 * single write), the header written once when the file is new or empty;
 * a file whose existing header differs is an error, not a silent mix.
 * And the run manifest written beside it. */
#ifndef TL_RESULTS_H
#define TL_RESULTS_H

#include <stddef.h>

#include "runtime/ctx.h"
#include "runtime/out.h" /* tl_mkdir_p, tl_mkdir_parent, tl_out_folder */

/* The rows one command appended to a results file, for its block in the
 * manifest: their lines (the header is line 1) as ranges. */
enum { TL_RESULTS_MAX_RANGES = 64 };
typedef struct tl_results_rows {
    long lo[TL_RESULTS_MAX_RANGES], hi[TL_RESULTS_MAX_RANGES];
    int nranges;
    int merged; /* more ranges than kept: the last one spans other commands' rows too */
    long count;
} tl_results_rows;

/* header: "variant,nranks,rep,us_per_iter"; row: "three-split,2,0,81.2".
 * A device or a pipe is refused (tl_results_unfit). rows (NULL: not kept)
 * takes the row's line. */
tl_status tl_results_append(const char *path, const char *header, const char *row, tl_results_rows *rows);
/* Before the first row: the file made with its header when it is missing
 * or empty (*fresh 1), its header checked otherwise; *next_line the line
 * the next row will take. Under the file's lock, as an append. */
tl_status tl_results_start(const char *path, const char *header, int *fresh, long *next_line);
/* Before the run: whether `path` can take this program's rows (not a
 * stream, it and manifest.txt beside it writable, an existing file's
 * header the same); one line naming the path and the reason. */
tl_status tl_results_check(const char *path, const char *header);
/* Why `path` cannot take results, or NULL: a device or a pipe
 * (/dev/stdout) has no header to find and no folder for manifest.txt; a
 * gzip name; manifest.txt itself, the manifest's own name.
 * Programs ask before their run, to refuse the option at once. */
const char *tl_results_unfit(const char *path);

/* The folder an output option needs, made before the run and said: the
 * one a results file goes in (TL_OUT_FOLDER_OF_FILE: --results
 * out/x/r.csv, out/x) or the folder named (TL_OUT_FOLDER_ITSELF:
 * --trace DIR). Where any part of it is missing, rank 0 makes it and
 * says one line on stderr naming what it made, so that a typo in a path
 * shows at once instead of a new tree made in silence:
 *   trilap-fdtd: note: --results out/x/r.csv: created folder out/x
 *   trilap-solve: note: --trace ot/tr: created folders ot to ot/tr
 * (runs, Slurm array jobs and the scripts name run folders not made yet).
 * Nothing is said where it is there. The folders made are registered as
 * tl_mkdir_p's: removed, while empty, if the program fails. Collective
 * on ctx (every rank calls, rank 0's path is used, the others may pass
 * NULL; agreed); path NULL on rank 0: nothing to make. */
tl_status tl_results_make_folder(tl_ctx *ctx, const char *option, const char *path, tl_out_folder which);

/* Manifest, key: value lines: program, command line, git commit, date,
 * host(s), launcher, ranks, GPU names per rank, driver/CUDA/NCCL/CUPTI/MPI
 * versions, NCCL_* and CUDA_* and OMPI_/SLURM_ environment, extra lines.
 * Collective on ctx (gathers host and GPU names); rank 0 writes it to
 * `path` through a temporary file and rename. */
tl_status tl_manifest_write(tl_ctx *ctx, const char *path, const char *extra);
/* The provenance of the rows one command appends to a results file: a
 * block of manifest.txt beside it (the lines above, and after `command:`
 * `results: NAME`, `results_lines:`, `run_id:`), one per command, a blank
 * line between blocks, so rows appended by several commands keep each its
 * own. tl_manifest_begin, before the first row: the results file started
 * (tl_results_start: a header that differs is refused here, before the
 * work; a file started afresh drops the blocks that named its old rows)
 * and the block added with `results_lines: from N`, which a command that
 * stops early leaves; tl_manifest_end, after the last row: that line made
 * the rows' own lines, `tail` lines added. manifest.txt is read and
 * rewritten (temporary name, rename) under a lock on its folder, so
 * commands of one folder take turns. Collective: every rank gives its host
 * and GPU to begin, and gets rank 0's verdict; rank 0's results and header
 * are the ones used (the others may pass NULL); run is rank 0's alone
 * (thread ranks may share it: the others never touch it), and so are end
 * and abort (the others return at once). */
typedef struct tl_manifest_run {
    char *results; /* rank 0: the results file; NULL: nothing begun */
    char *block;   /* the block as begun */
    char id[128];  /* its run_id */
    int fresh;     /* the command made the results file */
    long header_bytes; /* what it wrote there first: the header and its newline */
} tl_manifest_run;
tl_status tl_manifest_begin(tl_ctx *ctx, const char *results, const char *header, const char *extra,
                            tl_manifest_run *run);
tl_status tl_manifest_end(tl_ctx *ctx, tl_manifest_run *run, const tl_results_rows *rows, const char *tail);
/* After a failure: the block removed, and the results file too where the
 * command made it and added no row. Frees run. */
void tl_manifest_abort(tl_ctx *ctx, tl_manifest_run *run, const tl_results_rows *rows);

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
