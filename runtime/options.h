/* Table-driven command-line options. One table per program (plus the
 * launcher's shared group) drives parsing, --help and the `# opt:` lines
 * echoed into results, so the three cannot drift.
 *
 *   static const tl_option bench_opts[] = {
 *       {.name = "ring-bytes", .type = TL_OPT_SIZE, .offset = offsetof(bench_opts_t, ring_bytes),
 *        .def = "256000", .metavar = "B", .help = "ring send/recv payload per rank"},
 *       ...
 *   };
 *
 * Values land in the struct at `offset` of the group's destination:
 *   FLAG -> int (0/1; --name sets, --no-name clears), INT and SIZE -> int64_t,
 *   DOUBLE -> double, STRING -> const char * (points into argv or the
 *   table; never freed), ENUM -> int, the index of the chosen entry of the
 *   option's table. SIZE accepts K, M, G suffixes (powers of 1024, as
 *   nccl-tests) and plain integers. A choice among fixed words is an ENUM
 *   over the caller's names, indexed by the caller's own enum, so the
 *   caller switches on the value and nothing compares the strings again:
 *
 *   enum { FMT_TABLE, FMT_CSV, FMT_JSON };
 *   static const char *const fmt_names[] = {[FMT_TABLE] = "table", [FMT_CSV] = "csv", [FMT_JSON] = "json"};
 *   {.name = "format", .type = TL_OPT_ENUM, .offset = offsetof(o, format), .def = "table",
 *    TL_OPT_CHOICES(fmt_names), .help = "output format"},
 *
 * or over a table of its own whose entries start with the name:
 *
 *   {.name = "schedule", .type = TL_OPT_ENUM, .offset = offsetof(o, schedule), .def = "three-split",
 *    .table = tl_schedules, .table_stride = sizeof tl_schedules[0], .table_count = TL_SCHED_COUNT} */
#ifndef TL_OPTIONS_H
#define TL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/error.h"

typedef enum { TL_OPT_FLAG, TL_OPT_INT, TL_OPT_SIZE, TL_OPT_DOUBLE, TL_OPT_STRING, TL_OPT_ENUM } tl_opt_type;

/* An ENUM option's table as an array of names: TL_OPT_CHOICES(fmt_names). */
#define TL_OPT_CHOICES(names)                                                                   \
    .table = (names), .table_stride = sizeof (names)[0], .table_count = (int)(sizeof(names) / sizeof (names)[0])

typedef struct tl_option {
    const char *name;    /* long name, without "--" */
    char short_name;     /* 0 for none */
    tl_opt_type type;
    size_t offset;       /* offsetof() into the group's destination struct */
    const char *def;     /* default, as text parsed like user input; NULL: zero/NULL */
    const char *metavar; /* shown in --help: --ring-bytes B */
    const char *help;    /* one line; the default is appended in brackets */
    double min, max;     /* INT/SIZE/DOUBLE range check when min < max */
    /* ENUM only: the table the value indexes (schedules, providers, ...),
     * whose entries start with `const char *name`; the field gets the
     * entry's index (int) and --help lists the names from the table. */
    const void *table;
    size_t table_stride; /* sizeof one entry */
    int table_count;
    /* old names, "n|size": still accepted for one release, with a note on
     * stderr naming the new one; not shown in --help */
    const char *aliases;
    /* SIZE only: a count of items of count_bytes each, named by count_of
     * ("doubles"). The size parser reads "64KB" as 64K, right for bytes,
     * but here a count count_bytes times the bytes typed: a byte unit is
     * refused, saying both readings. */
    const char *count_of;
    int count_bytes;
} tl_option;

typedef struct tl_optgroup {
    const char *title;       /* heading in --help */
    const tl_option *opts;
    size_t nopts;
    void *dst;               /* struct the offsets refer to */
} tl_optgroup;

typedef struct tl_optspec {
    const char *program;     /* "trilap-bench": every line the parser prints begins with it */
    const char *command;     /* "diagnose": a program's command, after it in the usage line; NULL: none */
    const char *usage;       /* "[options] A.mtx [b.mtx] [x0.mtx]" */
    const char *purpose;     /* one sentence */
    const tl_optgroup *groups;
    size_t ngroups;
    int min_positional, max_positional; /* max < 0: unlimited */
} tl_optspec;

typedef struct tl_optresult {
    int exit_now;            /* --help or --version was printed: exit 0 */
    int npositional;
    char **positional;       /* pointers into argv, in order */
    /* the destination fields argv set (a default that was not typed is
     * not here): in the same block as `positional`, freed with it */
    const void **given;
    const char **typed; /* per given field: the old name it was typed under (into argv), or NULL */
    int ngiven;
} tl_optresult;

/* Fill every group's destination with the defaults. */
tl_status tl_opts_defaults(const tl_optspec *spec);

/* Defaults, then argv. Bad input prints one line on stderr,
 *   trilap-bench: invalid --ring-bytes 'x' (try --help)
 * and returns TL_ERR_INVAL (callers exit 2). --help/-h and --version print
 * to stdout and set exit_now. --debug (every program) sets TRILAP_DEBUG=1:
 * error lines then carry file:line, the failing expression and the frames.
 * An alias prints a note and counts as its option. `res->positional` must
 * be freed by free(). */
tl_status tl_opts_parse(const tl_optspec *spec, int argc, char **argv, tl_optresult *res);

void tl_opts_print_help(const tl_optspec *spec, FILE *out);

/* The user typed the option whose field is `field_ptr` (&o.cpml): a
 * default can then adapt (a CPML shrunk to a small grid) where a value the
 * user asked for is refused instead. Valid until res->positional is freed. */
int tl_opts_given(const tl_optresult *res, const void *field_ptr);

/* The long name the user typed for the option at `field_ptr`, without its
 * dashes: an old name (alias) where the last one given was typed so,
 * into buf (n bytes), else `name`. A refusal then names what was typed
 * ("--n is not an option of ..." after the note that --n is now --grid). */
const char *tl_opts_typed_name(const tl_optresult *res, const void *field_ptr, const char *name, char *buf, size_t n);

/* "# opt: name=value" for every option of every group, current values. */
void tl_opts_echo(const tl_optspec *spec, FILE *out, const char *line_prefix);

/* After tl_opts_parse: every output the command was given, checked before
 * the work (runtime/out.h): the string options named in `files` (files)
 * and `folders` (folders), "a|b" lists. After one line naming the options
 * or the path and the reason: 2 when two files are one path (the command
 * line's fault, said first), 1 when the file system refuses one; 0 when
 * all can be written. */
int tl_opts_outputs_refused(const tl_optspec *spec, const char *files, const char *folders);
/* After tl_opts_parse: the first output of `files` or `folders` (as
 * tl_opts_outputs_refused takes them) given an empty name: its long name
 * without dashes, in `name`, and *folder (when not NULL) set for a
 * folder; NULL when none is. The command line's fault, which each program
 * says in its own form before tl_opts_outputs_refused, whose check would
 * take it for the file system's. */
const char *tl_opts_empty_output(const tl_optspec *spec, const char *files, const char *folders, int *folder,
                                 char name[64]);
/* After tl_opts_parse: the value of the string option `name` (NULL: not
 * set, or no such string option in spec). */
const char *tl_opts_string_of(const tl_optspec *spec, const char *name);

/* Parse one value as the option would (exposed for tests and sweeps). */
tl_status tl_opts_parse_size(const char *text, int64_t *out);
tl_status tl_opts_parse_int(const char *text, int64_t *out);
tl_status tl_opts_parse_double(const char *text, double *out);

/* Index of `value` in a "a|b|c" list, or -1. */
int tl_opts_choice_index(const char *choices, const char *value);
/* ENUM: the name of entry i of the option's table (NULL out of range), and
 * "a|b|c" of all of them into buf. */
const char *tl_opts_enum_name(const tl_option *o, int i);
const char *tl_opts_enum_choices(const tl_option *o, char *buf, size_t n);

#endif
