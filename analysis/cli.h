/* Options every trilap-analyze subcommand shares, and the parse step. */
#ifndef TL_ANALYSIS_CLI_H
#define TL_ANALYSIS_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "runtime/options.h"
#include "runtime/out.h"

typedef struct tl_an_common {
    int accept_incomplete;
    int raw_clock;         /* --raw-clock: leave the clock alignment of the metadata unapplied */
    int align_clocks;      /* --align-clocks: offsets estimated from matched collective ends (match.c) */
    const char *csv;       /* --csv FILE */
    const char *iters;     /* --iter-range A:B (old name --iters) */
    const char *iter_nvtx; /* --iter-nvtx [DOMAIN:]NAME: an export's iterations from these NVTX ranges */
    double launch_gap_us;  /* --launch-gap-us */
    int64_t iter_lo, iter_hi;
    int hta;               /* --hta (overlap, breakdown): Holistic Trace Analysis's rules on Kineto traces */
    int progress;          /* --progress: a reading line per rank file, also off a terminal */
} tl_an_common;

extern const tl_option tl_an_common_opts[];
extern const size_t tl_an_common_nopts;
/* --hta, a group of its own (dst: the tl_an_common) for the commands that have it */
extern const tl_option tl_an_hta_opt;

/* Parse argv into the groups (the last group must be the common one):
 * returns -1 to go on (the caller frees res->positional), or the exit code
 * (0 after --help, 2 on bad input; nothing left to free). */
int tl_an_parse(const tl_optspec *spec, int argc, char **argv, tl_optresult *res, tl_an_common *c);

/* An option a command cannot apply in some mode: its destination field
 * (as tl_opts_given takes it), its name ("iter-range"), and flag = 1 for a
 * flag (an int field) off by default: typed off (--no-progress) it asks for
 * nothing, so only its --NAME spelling is refused. */
typedef struct tl_an_given {
    const void *field;
    const char *name;
    int flag;
} tl_an_given;

/* The first of the n options the user typed is refused in one line on
 * stderr, "PROGRAM: --NAME does not apply WHY (try --help)": returns 2;
 * -1 when none was typed (or only flags typed off). Call before freeing
 * pr->positional. */
int tl_an_refuse_given(const char *program, const tl_optresult *pr, const tl_an_given *g, size_t n, const char *why);

/* With --hta only --csv applies: HTA's figures are one per rank over the
 * whole trace, by its own rules. The common options other than --csv the
 * user typed are refused (2), with `own` (n more of the command's), and
 * so is an input plain as another source's (a trilap run, an Nsight
 * Systems export); -1 to go on. */
int tl_an_hta_refuse(const char *program, const tl_optresult *pr, const tl_an_common *c, const tl_an_given *own,
                     size_t n);

/* The overlap pass's options from the common ones (slices 0). */
tl_an_overlap_opts tl_an_overlap_opts_of(const tl_an_common *c);

/* The folder of an output a command writes (option: the one that named
 * path, "--csv", "--output"), made where missing and said in one line,
 * as every trilap program's outputs are (runtime/out.h:
 * tl_out_make_folder). For the moment the output is written, once every
 * input is read and accepted: a refused input stays one line and leaves
 * no folder (before, each writer made the folder in silence). */
tl_status tl_an_out_folder(const char *option, const char *path, tl_out_folder which);
/* The table as CSV into the file option names, its folder made and said
 * (tl_an_out_folder). */
tl_status tl_an_write_csv(const tl_an_table *t, const char *option, const char *path);
/* Print the table, write it as CSV when csv_path != NULL (--csv's file:
 * tl_an_write_csv, its folder said before the table). */
tl_status tl_an_emit(const tl_an_table *t, const char *csv_path);

/* A command reading several inputs refuses one given twice (by its file,
 * whatever the spelling), and with nested a folder and one of its files,
 * in one line on stderr saying why (what it would do with them): returns
 * 2; -1 to go on. Call before freeing pr->positional. */
int tl_an_refuse_repeated(const char *program, const tl_optresult *pr, const char *why, int nested);

/* The run column of input i of n: its shortest trailing path that no
 * other input ends in (a/three-split and b/three-split beside each other;
 * alone, its last component). */
void tl_an_run_label(char *const *inputs, size_t n, size_t i, char *buf, size_t len);

/* Preamble lines every table carries. */
tl_status tl_an_table_std_meta(tl_an_table *t, const char *command, const char *input);

#endif
