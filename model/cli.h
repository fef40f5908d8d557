/* trilap-model's subcommands and what they share: the preamble, the work
 * directory for platform files, the outputs checked against the inputs,
 * the results CSV (temporary name, then rename). */
#ifndef TL_MODEL_CLI_H
#define TL_MODEL_CLI_H

#include <stdio.h>

#include "model/calib.h"
#include "runtime/options.h"
#include "runtime/out.h"

typedef struct tl_mcli {
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

/* After tl_mcli_parse, before any work: 1 after one line when an output
 * (--out, --results) is a file the command reads (inputs: the paths it
 * will open, NULL entries skipped; `--results cal.txt --calib cal.txt`
 * left a CSV where the calibration was, exit 0). */
int tl_mcli_outputs_refused(const tl_mcli *cli, const char *const *inputs, size_t ninputs);

/* A results CSV opened with its header line; rows follow, then
 * tl_out_close (runtime/out.h) commits or drops it. */
tl_status tl_mcsv_open(tl_out *w, const char *path, const char *header);

/* `path` itself, or, when it is relative and not in the current folder,
 * the same path in the trilap tree this program was built in (its
 * bin/..), or under the share/trilap/ folder of the prefix it was
 * installed in (make install copies the default calibration there): the
 * default calibration is a file of that tree, and the program may run
 * from anywhere. The answer is in buf (n bytes). */
const char *tl_mcli_tree_path(const char *path, char *buf, size_t n);

/* "4,8,16" -> ints in [1, hi] (at most max of them); 0 on a bad list, with
 * the reason in why (n bytes). */
int tl_mcli_int_list(const char *text, int *out, int max, int hi, char *why, size_t n);

/* One line for the user: "trilap-model: <what>". */
void tl_mcli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same line for a step that failed, printed only when nothing below
 * it has said why (tl_error_reported): the error stays one line. */
void tl_mcli_failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
