/* libtrilap-inject.so: traces an unmodified CUDA program.
 *
 *   CUDA_INJECTION64_PATH=build/lib/libtrilap-inject.so TRILAP_TRACE_DIR=out ./prog
 *
 * The CUDA driver loads this library in cuInit and calls
 * InitializeInjection(); it starts the probes' CUPTI collector for every
 * device of the process and writes out/trace.rank<R>.csv at exit. Stream
 * lanes are inferred from the NCCL kernels each stream ran (see
 * probes/README.md), or set with TRILAP_LANES="streamId:lane,...".
 *
 * Environment: TRILAP_TRACE_DIR [.] (%p, %h, %q{VAR} as nsys's -o), TRILAP_LANES, TRILAP_BUFFER_BYTES
 * [4 MiB], TRILAP_MAX_BUFFERS [64], TRILAP_CUPTI_KINDS, TRILAP_CUPTI_API: a value one cannot take turns
 * tracing off, said; the rank from OMPI_COMM_WORLD_RANK, PMI_RANK, RANK (torchrun), SLURM_PROCID or
 * PMIX_RANK, the size from the same launcher's variable.
 * A process no launcher gave a rank claims the lowest one no live process
 * of the folder holds (probes/rank_claim.h): the workers a program starts
 * itself get 0, 1, 2, ... instead of all writing trace.rank0.csv; its
 * trace then says rank_from=claim and no nranks.
 *
 * The injected program has no context to hand us and atexit handlers take
 * no argument, so the injection keeps its one rank context in a static
 * struct: the second documented exception to "no mutable globals" (the
 * first is the CUPTI collector in probes_cupti.c). */
#include "probes/rank_state.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "probes/rank_claim.h"
#include "runtime/out.h"

int InitializeInjection(void);

static struct {
    pthread_once_t once;
    int ok;
    tl_ctx ctx;
    tl_rank_claim claim; /* the rank, where no launcher gave one */
    char outdir[512];
    char dirspec[512]; /* TRILAP_TRACE_DIR as given, patterns unexpanded */
    char *cmdline; /* /proc/self/cmdline whole, for the process's life */
    char **argv;
    pid_t pid; /* the traced process: a child it forks inherits the exit handler */
    tl_trace_lanes lanes; /* TRILAP_LANES, read before the probes exist */
} tl_inject = {.once = PTHREAD_ONCE_INIT, .claim = {.rank = -1, .fd = -1}};

/* A launcher's rank variable and its size variable (NULL: it sets none) */
typedef struct tl_launcher_vars {
    const char *rank, *size;
} tl_launcher_vars;

/* A launcher variable's value into *v: 1 when a whole number below 2^30,
 * 0 when unset or empty, -1 otherwise, said (before: RANK=abc or RANK=-1
 * was passed over without a word, and the process claimed rank 0). */
static int tl_inject_env_rank(const char *key, int *v)
{
    const char *s = getenv(key);
    if (!s || !*s) return 0;
    char *end = NULL;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || errno || x >= (1L << 30)) {
        tl_log("%s='%s' is not a whole number below 2^30; passed over", key, s);
        return -1;
    }
    *v = (int)x;
    return 1;
}

/* The rank and size from the first launcher whose rank variable is set,
 * the size from that launcher's own variable: RANK=3 under srun took
 * SLURM_NTASKS=1 for its size, and a trace saying rank=3 nranks=1 is one
 * the reader refuses. A size that is not above the rank is left out,
 * said. *from NULL: no launcher gave a rank. */
static void tl_inject_launcher_rank(tl_ctx *ctx, const char **from)
{
    /* RANK / WORLD_SIZE: torchrun's (and torch.distributed's env://), read
     * before SLURM_PROCID, which is the node's task under srun + torchrun;
     * without them every process of a torchrun job was rank 0 and wrote
     * over the others' trace.rank0.csv */
    static const tl_launcher_vars launchers[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                                 {"PMI_RANK", "PMI_SIZE"},
                                                 {"RANK", "WORLD_SIZE"},
                                                 {"SLURM_PROCID", "SLURM_NTASKS"},
                                                 {"PMIX_RANK", NULL}};
    *from = NULL;
    ctx->rank = 0;
    /* -1, not known: nranks is left out of the trace */
    ctx->size = -1;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        if (tl_inject_env_rank(launchers[i].rank, &ctx->rank) <= 0) continue;
        *from = launchers[i].rank;
        tl_log_set_prefix("trilap-inject", ctx->rank);
        int size = -1;
        if (launchers[i].size && tl_inject_env_rank(launchers[i].size, &size) > 0 && size <= ctx->rank) {
            tl_log("%s=%d is not above %s=%d: the trace says no nranks", launchers[i].size, size, *from, ctx->rank);
            size = -1;
        }
        ctx->size = size;
        return;
    }
}

/* A count from the environment into *v: 1 when set to a whole number from
 * min to max, 0 when unset or empty, -1 (said on stderr) otherwise: a typo
 * read as the default, or "4M" as 4, would trace with a size nobody
 * asked for; 0 was the default and 2^64-1 bytes a buffer that never came
 * (a trace without a record, said nowhere). */
static int tl_inject_env_count(const char *key, unsigned long long min, unsigned long long max, unsigned long long *v)
{
    const char *s = getenv(key);
    if (!s || !*s) return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end) {
        tl_log("%s='%s' is not a whole number", key, s);
        return -1;
    }
    if (errno || x < min || x > max) {
        tl_log("%s='%s' is not from %llu to %llu (unset for the default)", key, s, min, max);
        return -1;
    }
    *v = x;
    return 1;
}

/* TRILAP_TRACE_DIR with nsys's patterns expanded into out: %p the pid,
 * %h the host name, %q{VAR} VAR's value, %% a '%'. A program that starts
 * its workers one after another (a sweep's trials) gives each a folder of
 * its own with out/%p, where claims would give each rank 0 in turn. 0,
 * said, on an unknown pattern, an unset VAR or a name too long. */
static int tl_inject_expand_dir(const char *spec, char *out, size_t n)
{
    size_t at = 0;
    for (const char *s = spec; *s; s++) {
        char piece[512];
        const char *add = piece;
        if (*s != '%') {
            piece[0] = *s, piece[1] = '\0';
        } else if (s[1] == '%' || s[1] == 'p' || s[1] == 'h') {
            if (s[1] == '%') snprintf(piece, sizeof piece, "%%");
            else if (s[1] == 'p') snprintf(piece, sizeof piece, "%ld", (long)getpid());
            else if (gethostname(piece, sizeof piece - 1) != 0) snprintf(piece, sizeof piece, "unknown");
            piece[sizeof piece - 1] = '\0';
            s++;
        } else if (s[1] == 'q' && s[2] == '{' && strchr(s + 3, '}')) {
            const char *end = strchr(s + 3, '}');
            snprintf(piece, sizeof piece, "%.*s", (int)(end - s - 3), s + 3);
            add = piece[0] ? getenv(piece) : NULL;
            if (!piece[0]) {
                tl_log("TRILAP_TRACE_DIR='%s': %%q{} names no variable", spec);
                return 0;
            }
            if (!add) {
                tl_log("TRILAP_TRACE_DIR='%s': %%q{%s}: %s is not set", spec, piece, piece);
                return 0;
            }
            s = end;
        } else {
            tl_log("TRILAP_TRACE_DIR='%s': unknown pattern '%%%.1s' (%%p pid, %%h host, %%q{VAR} a variable, %%%% a "
                   "'%%')",
                   spec, s + 1);
            return 0;
        }
        size_t len = strlen(add);
        if (at + len >= n) {
            tl_log("TRILAP_TRACE_DIR='%s': the folder's name is over %zu bytes", spec, n - 1);
            return 0;
        }
        memcpy(out + at, add, len);
        at += len;
    }
    out[at] = '\0';
    if (!at) tl_log("TRILAP_TRACE_DIR='%s' names no folder once expanded", spec);
    return at > 0;
}

/* /proc/self/cmdline whole, NUL-separated arguments, into *out (n bytes,
 * NUL-terminated): 0 without /proc, and 0, said, when it was not read
 * whole. */
static int tl_inject_read_cmdline(char **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f) return 0;
    size_t cap = 0;
    char *b = NULL;
    for (;;) {
        if (*n + 1 >= cap) {
            char *nb = realloc(b, cap ? 2 * cap : 4096);
            if (!nb) break;
            b = nb;
            cap = cap ? 2 * cap : 4096;
        }
        size_t got = fread(b + *n, 1, cap - 1 - *n, f);
        *n += got;
        if (got == 0) break;
    }
    int whole = b && feof(f) && !ferror(f);
    fclose(f);
    if (!whole) {
        free(b);
        *n = 0;
        tl_log("cannot read /proc/self/cmdline whole; the trace's args are left empty");
        return 0;
    }
    b[*n] = '\0';
    *out = b;
    return 1;
}

/* The arguments of /proc/self/cmdline, all of them, for the metadata
 * (before: the first 4,095 bytes and 63 arguments, cut without a mark). */
static void tl_inject_cmdline(void)
{
    size_t n = 0;
    int argc = 0;
    if (tl_inject_read_cmdline(&tl_inject.cmdline, &n)) {
        size_t count = 0;
        for (size_t i = 0; i < n; i++) count += tl_inject.cmdline[i] == '\0';
        tl_inject.argv = calloc(count + 2, sizeof *tl_inject.argv);
        for (size_t i = 0; tl_inject.argv && i < n; i += strlen(tl_inject.cmdline + i) + 1)
            tl_inject.argv[argc++] = tl_inject.cmdline + i;
        if (!tl_inject.argv)
            tl_log("no memory for the %zu arguments of the command line; the trace's args are left empty", count);
    }
    tl_inject.ctx.argc = argc;
    tl_inject.ctx.argv = tl_inject.argv;
    const char *prog = argc ? strrchr(tl_inject.argv[0], '/') : NULL;
    tl_inject.ctx.program = prog ? prog + 1 : argc ? tl_inject.argv[0] : "unknown";
}

/* TRILAP_LANES="streamId:lane,..." into tl_inject.lanes: 0, said, on an
 * item that is not one (tl_trace_lanes_parse). */
static int tl_inject_lanes(const char *spec)
{
    char why[256];
    if (tl_trace_lanes_parse(spec, &tl_inject.lanes, why, sizeof why) == TL_OK) return 1;
    tl_log("TRILAP_LANES='%.200s': %s", spec, why);
    return 0;
}

static void tl_inject_exit(void)
{
    /* a child the program forked that calls exit() has the parent's
     * records and claim: its trace would take the parent's name, and its
     * release the parent's claim */
    if (!tl_inject.ok || getpid() != tl_inject.pid) return;
    tl_inject.ok = 0;
    int rank = tl_inject.ctx.rank;
    /* The log prefix is per thread; exit may run on another than cuInit. */
    tl_log_set_prefix("trilap-inject", rank);
    if (tl_probes_destroy(&tl_inject.ctx) == TL_OK)
        tl_log("wrote %s/trace.rank%d.csv", tl_inject.outdir, rank);
    else
        tl_log("no trace written");
    tl_probes_rank_release(&tl_inject.claim); /* after the trace: the rank is free once written */
}

/* No launcher rank: the lowest rank free in the folder (said when it is
 * not 0: another process of the folder is traced at the same time). */
static int tl_inject_claim(void)
{
    if (tl_probes_rank_claim(tl_inject.outdir, &tl_inject.claim) != TL_OK) {
        /* a folder without file locks (an NFS mount without them, say)
         * still gets its trace, as before claims: rank 0 */
        tl_log("rank 0 without a claim: processes tracing into %s at the same time write over one another's "
               "trace.rank0.csv",
               tl_inject.outdir);
        tl_inject.ctx.rank = 0;
        return 1;
    }
    tl_inject.ctx.rank = tl_inject.claim.rank;
    tl_log_set_prefix("trilap-inject", tl_inject.ctx.rank);
    /* free, yet written: by a rerun, or by a worker that exited before
     * this one started, whose trace would go without a word */
    char earlier[600];
    snprintf(earlier, sizeof earlier, "%s/trace.rank%d.csv", tl_inject.outdir, tl_inject.ctx.rank);
    if (access(earlier, F_OK) == 0)
        tl_log("%s, an earlier process's, is written over at exit; TRILAP_TRACE_DIR=%s/%%p gives each process a "
               "folder of its own",
               earlier, tl_inject.dirspec);
    if (tl_inject.ctx.rank > 0)
        tl_log("no launcher rank in the environment (OMPI_COMM_WORLD_RANK, PMI_RANK, RANK, SLURM_PROCID, "
               "PMIX_RANK); rank %d claimed in %s, lower ranks being traced by live processes",
               tl_inject.ctx.rank, tl_inject.outdir);
    return 1;
}

/* The variables that say how to trace, each checked before anything is
 * made: 0, said, when one cannot be taken as given. */
static int tl_inject_settings(tl_probes_config *pc)
{
    const char *dir = getenv("TRILAP_TRACE_DIR"), *lanes = getenv("TRILAP_LANES");
    unsigned long long bytes = 0, nbuf = 0;
    unsigned kinds = 0;
    tl_cupti_api api;
    snprintf(tl_inject.dirspec, sizeof tl_inject.dirspec, "%s", dir && *dir ? dir : ".");
    if (!tl_inject_expand_dir(tl_inject.dirspec, tl_inject.outdir, sizeof tl_inject.outdir) ||
        tl_inject_env_count("TRILAP_BUFFER_BYTES", 4096, 1ULL << 30, &bytes) < 0 ||
        tl_inject_env_count("TRILAP_MAX_BUFFERS", 1, 1 << 16, &nbuf) < 0 || tl_probe_cupti_env(&kinds, &api) != TL_OK ||
        (lanes && *lanes && !tl_inject_lanes(lanes)))
        return 0;
    pc->buffer_bytes = (size_t)bytes;
    pc->max_buffers = (int)nbuf;
    return 1;
}

/* The trace folder made and written to, its errors naming
 * TRILAP_TRACE_DIR, and the rank claimed in it where no launcher gave one. */
static int tl_inject_folder(const char *rank_from)
{
    char what[600];
    snprintf(what, sizeof what, "TRILAP_TRACE_DIR='%s'", tl_inject.dirspec);
    tl_error_context k;
    tl_error_context_begin(&k, what);
    int ok = tl_probes_outdir_writable(tl_inject.outdir) == TL_OK;
    tl_error_context_end(&k);
    return ok && (rank_from || tl_inject_claim());
}

static void tl_inject_init(void)
{
    const char *rank_from;
    tl_inject.pid = getpid();
    tl_inject_cmdline();
    tl_log_set_prefix("trilap-inject", 0);
    tl_inject_launcher_rank(&tl_inject.ctx, &rank_from);
    tl_inject.ctx.device = -1;
    tl_log_set_prefix("trilap-inject", tl_inject.ctx.rank);
    tl_probes_config pc = {
        .outdir = tl_inject.outdir,
        .cupti = 1,
        .nvtx = 0, /* the program's own NVTX ranges are left alone */
    };
    if (!tl_inject_settings(&pc) || !tl_inject_folder(rank_from)) {
        tl_log("tracing off for this process");
        return;
    }
    /* none: no launcher rank and no claim (rank 0) */
    pc.rank_from = rank_from ? rank_from : tl_inject.claim.rank >= 0 ? "claim" : "none";
    if (tl_probes_create_inject(&tl_inject.ctx, &pc) != TL_OK) {
        tl_probes_rank_release(&tl_inject.claim);
        tl_log("tracing off for this process");
        return;
    }
    for (int i = 0; i < tl_inject.lanes.n; i++)
        if (tl_probes_lane_override(&tl_inject.ctx, tl_inject.lanes.id[i], tl_inject.lanes.lane[i]) != TL_OK) break;
    tl_inject.ok = 1;
    /* Registered during cuInit, after the CUDA runtime's own handlers, so it
     * runs before they tear CUDA down. */
    atexit(tl_inject_exit);
}

/* Called by the CUDA driver; 1 means success. */
int InitializeInjection(void)
{
    pthread_once(&tl_inject.once, tl_inject_init);
    return 1;
}
