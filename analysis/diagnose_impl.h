/* Internal to trilap-analyze diagnose (analysis/cmd_diagnose.c and
 * diagnose_*.c): its options, the facts gathered on each rank, the
 * evidence and measured values a rule's verdict writes, the rule table's
 * rows; then what each part gives the others. Named *_impl.h, as
 * runtime's internal headers are, so that make install leaves it out. */
#ifndef TL_ANALYSIS_DIAGNOSE_IMPL_H
#define TL_ANALYSIS_DIAGNOSE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/cli.h"

typedef struct diag_opts {
    double min_comm_share;   /* % of W for "substantial" communication */
    double serial_overlap;   /* comm_comm below this % -> serialised */
    double both_iters;       /* % of iterations with p2p or coll that hold both */
    double hidden_min;       /* hidden below this % -> no comm/compute overlap */
    double starve_ratio;     /* median overlapped / median alone */
    double starve_share;     /* excess time of the overlapped instances, % of W */
    int64_t min_samples;
    double launch_share;     /* % of compute-lane time in short gaps */
    double short_kernel_us;
    double exposed_share;    /* exposed communication, % of W */
    double wait_share;       /* waiting, % of the matched operations' time */
    double staging_share;    /* host-carried communication, % of W */
    double queued_share;     /* communication queued behind its stream after its launch, % of W */
    tl_an_common c;
} diag_opts;

#define US(x) ((double)(x) / 1e3)

/* Working times (transfer, after the last rank arrived) of one
 * communication kernel name on one rank, with compute or alone; where the
 * trace names the operations, of one operation of one size on it (label),
 * since a kernel name serves messages of any size. */
typedef struct starve_acc {
    uint32_t name;
    uint32_t label; /* names: the operation with its size (tl_an_oplabel.label), when by_op */
    int by_op;
    double *over, *alone;
    size_t no, na, capo, capa;
} starve_acc;

/* The communication of one rank by operation: what the trace says each
 * kernel served (an "op:" row: collective, size, process group) or, where
 * it does not, the kernel's name, on one stream. */
typedef struct op_acc {
    uint32_t label, kernel;  /* names: the operation (or the kernel), the kernel */
    int named;               /* label is an operation the trace named */
    uint64_t stream;         /* CUDA stream id */
    uint8_t lane;
    size_t n;
    int64_t total, exposed;  /* kernel time; the part not under compute */
    int64_t queued;          /* Σ launch to start spent behind earlier work on the stream, or another's */
    size_t nqueued;
    int64_t held;            /* the part behind another's: an event wait the trace records on the host only */
    size_t nheld;
    int64_t worst_q, worst_q_iter; /* the longest of those, its iteration and what it waited behind: */
    uint32_t worst_q_behind;       /* the activity's name (the wait's where worst_q_held), */
    size_t worst_q_op;             /* and its operation (SIZE_MAX: not communication) */
    int worst_q_held;
} op_acc;

/* The k-th operation of a kernel name on a rank (match.c's ordinal where
 * the trace does not name the operation) and its op_acc: late-ranks names
 * the operation it reports. */
typedef struct op_ord {
    uint32_t kernel, acc;
    int64_t k;
} op_ord;

typedef struct rank_diag {
    int rank;
    op_acc *acc;
    size_t nacc, capacc;
    op_ord *ord;
    size_t nord;
    int64_t ex_label[2];     /* the serialised example's p2p and coll operations (acc index, -1 none) */
    int64_t w0, w1, w;
    /* serialisation */
    size_t n_either, n_both, n_both_overlap;
    int64_t ex_iter, ex_p2p[2], ex_coll[2];
    /* comm on the compute streams */
    int64_t ncomm, comm_on_compute_stream;
    /* launch-bound */
    int64_t nlane, gaps_short, ngaps_short, lane_busy;
    double med_lane_us;
    starve_acc *st;
    size_t nst, capst;
    /* who carries the communication: NCCL kernels, or the host (its
     * exchanges and the copies that stage them) */
    int64_t u_nccl, u_host, u_host_p2p, u_host_coll, host_pc_overlap;
    int64_t n_staging; /* copies on a p2p/coll lane that touch host memory */
} rank_diag;

typedef struct diag_state {
    rank_diag *rd;
    size_t n, cap;
    const diag_opts *o;
    tl_an_names *names;
    const tl_an_rank_result *res;
    const tl_an_ops *ops;
} diag_state;

/* Names in findings are whole: the user finds the kernel or operation by
 * them (starvation cut them at 60 characters, the CSV too). A buffer of
 * DIAG_NAME_LEN holds any name a trace gives in practice; one longer still
 * ends in "..." rather than stopping mid-word unmarked. */
enum { DIAG_NAME_LEN = 1024 };

/* Evidence of one rule: lines appended over the ranks it fires on. */
typedef struct evidence {
    char text[8192];
    size_t len;
} evidence;

/* What a verdict measured on one rank: the value compared with the rule's
 * threshold (NaN: not applicable, printed "-") and the rule's other
 * conditions as measured, each with its threshold ("-" for a rule of one
 * condition), so a value past the threshold beside "ok" says why. */
typedef struct measured {
    double value;
    char also[DIAG_NAME_LEN + 160]; /* a kernel's name whole (starvation's) */
    const char *na; /* the rule does not apply to the rank by design: why (NULL: it applies) */
} measured;

/* A verdict: 1 when the rule fires on rank r, *m what it measured;
 * evidence written only when it fires. */
typedef int (*verdict_fn)(const diag_state *s, size_t r, measured *m, evidence *e);

/* The program that wrote the trace (its metadata's program=): a remedy
 * names the options of trilap's own programs, and none of them for any
 * other (a program traced by injection or an Nsight Systems export, which
 * name no program). A PyTorch profiler trace, read or imported, is a
 * PyTorch program's: its remedies say what to change in one. */
typedef enum { PROG_OTHER, PROG_SOLVE, PROG_BENCH, PROG_FDTD, PROG_TORCH, NPROG } prog_kind;

typedef struct remedy_text {
    const char *gpu;
    /* on host-only ranks, where it differs: the other points at rules or
     * figures that are n/a there (host-staging, GPU streams) */
    const char *host;
    /* on GPU ranks whose host carries their communication (no NCCL
     * kernel), where it differs: advice on NCCL kernels and their streams
     * fits no such rank */
    const char *staged;
} remedy_text;

/* Which of a rule's remedy texts fits a rank */
typedef enum { REM_GPU, REM_HOST, REM_STAGED, NREM } remedy_kind;

typedef struct rule {
    const char *name;
    const char *measure;   /* the value column */
    const char *option;    /* the threshold's option */
    size_t thr;            /* offset of the threshold in diag_opts */
    verdict_fn verdict;
    const char *headline;  /* FINDING */
    const char *evidence;  /* the evidence's heading */
    /* the remedy for each program that writes traces (tl_diag_prog_of): an
     * entry left NULL takes trilap-solve's, PyTorch's the other programs' first
     * (queued-communication's, which reads PyTorch profiler launches, is
     * PyTorch's); the other programs' name none of trilap's options */
    remedy_text remedy[NPROG];
    const char *ok;        /* what an ok means */
} rule;

/* diagnose_facts.c: one rank's facts (user: the diag_state), the
 * callback of tl_an_run_overlap; what they hold, freed */
tl_status tl_diag_rank_facts(void *user, const tl_an_rank *rk, const tl_an_rank_result *res);
void tl_diag_free(diag_state *s);

/* diagnose_evidence.c: a line of evidence appended (cut at the buffer's
 * end); the other conditions a verdict measured; a name cut to n bytes
 * (snprintf's len) made to end in "..."; what findings call an operation;
 * the (up to) n operations of rank d largest in the int64 field of op_acc
 * at offset off (total, exposed, queued), their count; the top three said
 * as evidence lines, the first after `what` */
void tl_diag_say(evidence *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_diag_also(measured *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tl_diag_name_fit(char *out, size_t n, int len);
void tl_diag_op_name(const diag_state *s, const op_acc *a, char *out, size_t n);
size_t tl_diag_top_ops(const rank_diag *d, size_t off, size_t *idx, size_t n);
void tl_diag_say_top_ops(const diag_state *s, const rank_diag *d, evidence *e, size_t off, const char *what);

/* diagnose_verdicts.c: the rules' verdicts (verdict_fn), in the table's
 * order: serialised-communicators, serialised-host-lane,
 * no-comm-compute-overlap, exposed-communication, late-ranks,
 * queued-communication, host-staging, starved-communication,
 * launch-bound-compute */
int tl_diag_verdict_serial(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_serial_host(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_nohide(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_exposed(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_late(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_queued(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_staging(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_starve(const diag_state *s, size_t r, measured *mv, evidence *e);
int tl_diag_verdict_launch(const diag_state *s, size_t r, measured *mv, evidence *e);

/* diagnose_rules.c: the rules, in the order the report takes them; the
 * program that wrote a trace (its metadata); which remedy text fits a
 * rank; a rule's threshold among the options; its remedy for program p on
 * a rank of kind k */
extern const rule tl_diag_rules[];
extern const int tl_diag_nrules;
prog_kind tl_diag_prog_of(const tl_an_meta *m);
remedy_kind tl_diag_remedy_kind_of(const tl_an_rank_result *r);
double tl_diag_threshold(const diag_opts *o, const rule *ru);
const char *tl_diag_remedy_of(const rule *ru, prog_kind p, remedy_kind k);

/* diagnose_report.c: the report of run dir's nr ranks on stdout, and the
 * verdicts' table to --csv */
tl_status tl_diag_report(const char *dir, const diag_opts *o, diag_state *s, size_t nr);

#endif
