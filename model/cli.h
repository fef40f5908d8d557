/* trilap-model's subcommands and what they share: the preamble, the work
 * directory for platform files, the outputs checked against the inputs,
 * the results CSV (rows appended, manifest.txt beside it, as trilap-solve's
 * and trilap-fdtd's). */
#ifndef TL_MODEL_CLI_H
#define TL_MODEL_CLI_H

#include <stdio.h>

#include "model/calib.h"
#include "runtime/ctx.h"
#include "runtime/options.h"
#include "runtime/out.h"
#include "runtime/results.h"

typedef struct tl_mcli {
    tl_ctx *ctx;            /* the one rank the subcommand runs as (main.c), for the manifest */
    const tl_optspec *spec; /* for the `# opt:` lines */
    char workdir[256];      /* platform files; removed at exit */
    const void *given[64];  /* the fields argv set (tl_mcli_given) */
    int ngiven;
} tl_mcli;

typedef int (*tl_mcmd_fn)(int argc, char **argv, tl_mcli *cli);

int tl_mcmd_calibrate(int argc, char **argv, tl_mcli *cli);
int tl_mcmd_tristream(int argc, char **argv, tl_mcli *cli);
int tl_mcmd_solver(int argc, char **argv, tl_mcli *cli);
int tl_mcmd_fdtd(int argc, char **argv, tl_mcli *cli);
int tl_mcmd_platform(int argc, char **argv, tl_mcli *cli);

/* A subcommand's options (none positional) parsed by spec, which
 * cli->spec then names: -1 to go on, else the exit status (0 after --help
 * or --version, 2 after a bad option, said in one line). */
int tl_mcli_parse(tl_mcli *cli, const tl_optspec *spec, int argc, char **argv);
/* After tl_mcli_parse: 1 when the user typed the option of this field. */
int tl_mcli_given(const tl_mcli *cli, const void *field);

/* `# key: value` lines every output starts with. */
void tl_mcli_preamble(FILE *out, const tl_mcli *cli, const char *sub, const tl_mcalib *c, const char *calib_path);

/* After tl_mcli_parse, before any work: refused when an output
 * (--out, --results, or the manifest.txt beside --results) is a file the
 * command reads (inputs: the paths it will open, NULL entries skipped;
 * `--results cal.txt --calib cal.txt` left a CSV where the calibration
 * was, exit 0), or when --results cannot take this command's rows (a file
 * of another header; results_header: the command's, NULL where it has no
 * --results): the exit status, after one line (1; 2 for an --out named
 * .gz, which is read back as plain text), else 0. */
/* --out's folder made where missing, once the inputs are read and before
 * the work, and said as every program's outputs are (runtime/out.h:
 * tl_out_make_folder; it was made in silence as the file was written);
 * --results' is made so by tl_mcsv_begin. 1 after one line where it
 * cannot be made, else 0. */
int tl_mcli_out_folder_unmade(const tl_mcli *cli, const char *out);
int tl_mcli_outputs_refused(const tl_mcli *cli, const char *results_header, const char *const *inputs,
                            size_t ninputs);

/* A results CSV as every trilap program keeps one: rows appended under
 * the header (written when the file is new or empty, checked otherwise),
 * and this command's block in manifest.txt beside it (runtime/results.h),
 * so that two commands' rows stay, each with what made it. */
typedef struct tl_mcsv {
    const char *path, *header; /* path NULL: no --results, rows go nowhere */
    tl_ctx *ctx;
    tl_manifest_run mr;
    tl_results_rows rows;
} tl_mcsv;
/* Before the first row (and the preamble): the file started or its header
 * checked, the block begun with `extra` (key: value lines, or NULL). */
tl_status tl_mcsv_begin(tl_mcsv *w, const tl_mcli *cli, const char *path, const char *header, const char *extra);
/* One row, appended at once (nothing without a path). */
tl_status tl_mcsv_row(tl_mcsv *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ok: the block ends naming the rows' lines; not ok (the command failed):
 * rows kept and said stopped, or the block and a file it made without a
 * row removed. A zeroed or ended tl_mcsv does nothing. */
tl_status tl_mcsv_end(tl_mcsv *w, int ok);

/* `path` itself when absolute, or given (`given`: on the command line)
 * and in the current folder; else the same path in the trilap tree this
 * program was built in (its bin/..), or under the share/trilap/ folder of
 * the prefix it was installed in (make install copies the default
 * calibration and calibrate's measurements there), where it is there;
 * else `path`. A default is a file of that tree, whatever the current
 * folder (another checkout's results/ among them), and the program may
 * run from anywhere. The answer is in buf (n bytes). */
const char *tl_mcli_tree_path(const char *path, int given, char *buf, size_t n);

/* "4,8,16" -> ints in [1, hi] (at most max of them); 0 on a bad list, with
 * the reason in why (n bytes). */
int tl_mcli_int_list(const char *text, int *out, int max, int hi, char *why, size_t n);

/* One line for the user: "trilap-model: <what>". */
void tl_mcli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same line for a step that failed, printed only when nothing below
 * it has said why (tl_error_reported): the error stays one line. */
void tl_mcli_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
