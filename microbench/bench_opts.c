/* trilap-bench option tables (one per subcommand), the variant table and
 * the checks that need more than one option. */
#include "microbench/bench.h"
#include "probes/trace.h"
#include "runtime/comm.h"
#include "runtime/hostmem.h"
#include "runtime/out.h"
#include "runtime/results.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#define TRI(f) offsetof(tl_tristream_opts, f)
#define STR(f) offsetof(tl_stream_opts, f)
#define COM(f) offsetof(tl_commbench_opts, f)

/* the names of the choice options' values, indexed by the enums the code switches on */
static const char *const format_names[] = {[TL_FMT_TABLE] = "table", [TL_FMT_CSV] = "csv", [TL_FMT_JSON] = "json"};
static const char *const onoff_names[] = {"off", "on"};
static const char *const trace_mode_names[] = {"off", "nvtx", "cupti"};
static const char *const sweep_names[] = {[TL_SWEEP_NONE] = "none", [TL_SWEEP_RING_BYTES] = "ring-bytes",
                                          [TL_SWEEP_ALLREDUCE_COUNT] = "allreduce-count",
                                          [TL_SWEEP_DAXPY_BYTES] = "daxpy-bytes"};
static const char *const comm_names[] = {
    [TL_COMMBENCH_WORLD] = "world", [TL_COMMBENCH_SPLIT] = "split", [TL_COMMBENCH_BOTH] = "both"};
static const char *const ops_names[] = {
    [TL_COMMBENCH_ALLREDUCE] = "allreduce", [TL_COMMBENCH_SENDRECV] = "sendrecv", [TL_COMMBENCH_BOTH] = "both"};

const char *tl_bench_sweep_name(tl_bench_sweep_kind kind) { return sweep_names[kind]; }

const tl_option tl_tristream_options[] = {
    {.name = "allreduce-count",
     .type = TL_OPT_SIZE,
     .offset = TRI(allreduce_count),
     .def = "2",
     .metavar = "N",
     .count_of = "doubles",
     .count_bytes = 8,
     .help = "doubles in the allreduce",
     .min = 1,
     .max = 1 << 30},
    {.name = "ring-count",
     .type = TL_OPT_SIZE,
     .offset = TRI(ring_count),
     .metavar = "N",
     .count_of = "doubles",
     .count_bytes = 8,
     .help = "doubles each rank sends to rank+1 (default 32000 = 256000 B)",
     /* 0 stands for "not given" (then 32000); a typed 0 is refused here
      * rather than silently run as the default */
     .min = 1,
     .max = 1 << 30},
    {.name = "ring-bytes",
     .type = TL_OPT_SIZE,
     .offset = TRI(ring_bytes),
     .metavar = "B",
     .help = "the same in bytes, a multiple of 8",
     .min = 8,
     .max = 8.0 * (1 << 30)},
    {.name = "daxpy-count",
     .type = TL_OPT_SIZE,
     .offset = TRI(daxpy_count),
     .def = "8M",
     .metavar = "N",
     .count_of = "doubles",
     .count_bytes = 8,
     .help = "doubles per DAXPY vector",
     .min = 1,
     .max = 1LL << 34},
    {.name = "variants",
     .type = TL_OPT_STRING,
     .offset = TRI(variants),
     .def = "all",
     .metavar = "LIST",
     .help =
         "comma list of allreduce-only,ring-only,daxpy-only,two-stream,three-naive,three-split"},
    {.name = "priorities",
     .type = TL_OPT_ENUM,
     .offset = TRI(priorities),
     .def = "on",
     TL_OPT_CHOICES(onoff_names),
     .help = "stream priorities: p2p and coll above compute"},
    {.name = "split-max-ctas",
     .type = TL_OPT_INT,
     .offset = TRI(split_max_ctas),
     .def = "0",
     .help = "ncclConfig_t.maxCTAs of the split communicator (0: NCCL default)",
     .min = 0,
     .max = 64},
    {.name = "split-min-ctas",
     .type = TL_OPT_INT,
     .offset = TRI(split_min_ctas),
     .def = "0",
     .help = "ncclConfig_t.minCTAs of the split communicator (0: NCCL default)",
     .min = 0,
     .max = 64},
    {.name = "hw-queues",
     .type = TL_OPT_INT,
     .offset = TRI(hw_queues),
     .def = "32",
     .metavar = "N",
     .help = "CUDA_DEVICE_MAX_CONNECTIONS for this run unless the environment sets it (0: CUDA's default, 8)",
     .min = 0,
     .max = 32},
    {.name = "daxpy-blocks",
     .type = TL_OPT_INT,
     .offset = TRI(daxpy_blocks),
     .def = "0",
     .help = "DAXPY grid: 0 one block per 512 doubles; N a grid-stride loop over N blocks",
     .min = 0,
     .max = 1 << 24},
    {.name = "warmup",
     .type = TL_OPT_INT,
     .offset = TRI(warmup),
     .def = "100",
     .help = "untimed iterations per variant and point",
     .min = 0,
     .max = 1e9},
    {.name = "iters",
     .type = TL_OPT_INT,
     .offset = TRI(iters),
     .def = "10000",
     .help = "timed iterations per repetition",
     .min = 1,
     .max = 1e9},
    {.name = "repeat",
     .type = TL_OPT_INT,
     .offset = TRI(repeat),
     .def = "5",
     .help = "repetitions (median, min, max)",
     .min = 1,
     .max = 1000},
    {.name = "format",
     .type = TL_OPT_ENUM,
     .offset = TRI(format),
     .def = "table",
     TL_OPT_CHOICES(format_names),
     .help = "stdout format"},
    {.name = "results",
     .type = TL_OPT_STRING,
     .offset = TRI(results),
     .metavar = "FILE",
     .help = "append a CSV row per variant and repetition; manifest.txt beside it"},
    {.name = "trace",
     .type = TL_OPT_STRING,
     .offset = TRI(trace),
     .metavar = "DIR",
     .help = "after timing, trace --trace-iters iterations into DIR/<variant>/"},
    {.name = "trace-iters",
     .type = TL_OPT_INT,
     .offset = TRI(trace_iters),
     .def = "200",
     .help = "iterations in the traced window",
     .min = 1,
     .max = 1e7},
    {.name = "trace-mode",
     .type = TL_OPT_ENUM,
     .offset = TRI(trace_mode),
     .def = "off",
     TL_OPT_CHOICES(trace_mode_names),
     .help = "what the timed loop records, to measure its cost: off = only the NVTX ranges "
             "every run emits for an attached tool (nsys); nvtx = + host ranges, into "
             "DIR/timed-nvtx/ with --trace DIR; cupti = + CUPTI activity (needs --trace DIR)"},
    {.name = "sweep",
     .type = TL_OPT_ENUM,
     .offset = TRI(sweep),
     .def = "none",
     TL_OPT_CHOICES(sweep_names),
     .help = "size to sweep"},
    {.name = "sweep-range",
     .type = TL_OPT_STRING,
     .offset = TRI(sweep_range),
     .metavar = "S:E[:F]",
     .help = "sweep START:END[:FACTOR] (FACTOR 2), sizes with K/M/G"},
    {.name = "progress",
     .type = TL_OPT_FLAG,
     .offset = TRI(progress),
     .help = "a progress line on stderr (repetitions done, time left) even when it is not a terminal (on a "
             "terminal it is always shown)"},
};
const size_t tl_tristream_noptions = sizeof tl_tristream_options / sizeof tl_tristream_options[0];

const tl_option tl_stream_options[] = {
    {.name = "count",
     .type = TL_OPT_SIZE,
     .offset = STR(count),
     .def = "0",
     .metavar = "N",
     .count_of = "doubles",
     .count_bytes = 8,
     .help = "doubles per array, 3 arrays (0: 256M on GPUs; with --host 4x the last-level cache, at most "
             "64 MiB per online core and 1/8 of the available memory, so that a plain run takes seconds) [0]",
     .min = 0,
     .max = 1LL << 34},
    {.name = "iters",
     .type = TL_OPT_INT,
     .offset = STR(iters),
     .def = "0",
     .help = "calls of each function; the first is dropped (0: 100 on GPUs, 20 with --host) [0]",
     .min = 0,
     .max = 1e6},
    {.name = "block",
     .type = TL_OPT_INT,
     .offset = STR(block),
     .def = "256",
     .help = "threads per block",
     .min = 32,
     .max = 1024},
    {.name = "vector",
     .type = TL_OPT_INT,
     .offset = STR(vector),
     .def = "2",
     .help = "doubles per thread (1, or 2 with double2 loads)",
     .min = 1,
     .max = 2},
    {.name = "host",
     .type = TL_OPT_FLAG,
     .offset = STR(host),
     .help = "measure the host (OpenMP, rank 0) instead of the GPUs"},
    {.name = "format",
     .type = TL_OPT_ENUM,
     .offset = STR(format),
     .def = "table",
     TL_OPT_CHOICES(format_names),
     .help = "stdout format"},
    {.name = "results",
     .type = TL_OPT_STRING,
     .offset = STR(results),
     .metavar = "FILE",
     .help = "append a CSV row per function and rank; manifest.txt beside it"},
    {.name = "progress",
     .type = TL_OPT_FLAG,
     .offset = STR(progress),
     .help = "with --host: a progress line on stderr even when it is not a terminal (on a terminal it is always "
             "shown)"},
};
const size_t tl_stream_noptions = sizeof tl_stream_options / sizeof tl_stream_options[0];

const tl_option tl_commbench_options[] = {
    {.name = "min-bytes",
     .short_name = 'b',
     .type = TL_OPT_SIZE,
     .offset = COM(min_bytes),
     .def = "8",
     .metavar = "B",
     .help = "smallest size, a multiple of 8 (doubles)",
     .min = 8,
     .max = 1LL << 34},
    {.name = "max-bytes",
     .short_name = 'e',
     .type = TL_OPT_SIZE,
     .offset = COM(max_bytes),
     .def = "128M",
     .metavar = "B",
     .help = "largest size",
     .min = 8,
     .max = 1LL << 34},
    {.name = "factor",
     .short_name = 'f',
     .type = TL_OPT_INT,
     .offset = COM(factor),
     .def = "2",
     .help = "size multiplier",
     .min = 2,
     .max = 1 << 20},
    {.name = "warmup",
     .short_name = 'w',
     .type = TL_OPT_INT,
     .offset = COM(warmup),
     .def = "5",
     .help = "untimed calls per size",
     .min = 0,
     .max = 1e7},
    {.name = "iters",
     .short_name = 'n',
     .type = TL_OPT_INT,
     .offset = COM(iters),
     .def = "20",
     .help = "timed calls per size",
     .min = 1,
     .max = 1e7},
    {.name = "comm",
     .type = TL_OPT_ENUM,
     .offset = COM(comm),
     .def = "both",
     TL_OPT_CHOICES(comm_names),
     .help = "communicator"},
    {.name = "ops",
     .type = TL_OPT_ENUM,
     .offset = COM(ops),
     .def = "both",
     TL_OPT_CHOICES(ops_names),
     .help = "operations"},
    {.name = "split-max-ctas",
     .type = TL_OPT_INT,
     .offset = COM(split_max_ctas),
     .def = "0",
     .help = "ncclConfig_t.maxCTAs of the split communicator (0: NCCL default)",
     .min = 0,
     .max = 64},
    {.name = "split-min-ctas",
     .type = TL_OPT_INT,
     .offset = COM(split_min_ctas),
     .def = "0",
     .help = "ncclConfig_t.minCTAs of the split communicator (0: NCCL default)",
     .min = 0,
     .max = 64},
    {.name = "format",
     .type = TL_OPT_ENUM,
     .offset = COM(format),
     .def = "table",
     TL_OPT_CHOICES(format_names),
     .help = "stdout format"},
    {.name = "results",
     .type = TL_OPT_STRING,
     .offset = COM(results),
     .metavar = "FILE",
     .help = "append a CSV row per size, op and communicator; manifest.txt beside it"},
    {.name = "progress",
     .type = TL_OPT_FLAG,
     .offset = COM(progress),
     .help = "a progress line on stderr (measurements done, time left) even when it is not a terminal (on a "
             "terminal it is always shown)"},
};
const size_t tl_commbench_noptions = sizeof tl_commbench_options / sizeof tl_commbench_options[0];

/* In paper order: the parts alone, then the schedules. */
const tl_tristream_variant tl_tristream_variants[TL_NVARIANTS] = {
    [TL_VAR_ALLREDUCE_ONLY] = {.name = "allreduce-only",
                               .allreduce = TL_ROLE_COMPUTE,
                               .ring = TL_ROLE_NONE,
                               .daxpy = TL_ROLE_NONE,
                               .what = "the allreduce alone"},
    [TL_VAR_RING_ONLY] = {.name = "ring-only",
                          .allreduce = TL_ROLE_NONE,
                          .ring = TL_ROLE_P2P,
                          .daxpy = TL_ROLE_NONE,
                          .what = "the ring alone"},
    [TL_VAR_DAXPY_ONLY] = {.name = "daxpy-only",
                           .allreduce = TL_ROLE_NONE,
                           .ring = TL_ROLE_NONE,
                           .daxpy = TL_ROLE_COMPUTE,
                           .what = "the DAXPY alone"},
    [TL_VAR_TWO_STREAM] = {.name = "two-stream",
                           .schedule = &tl_schedules[TL_SCHED_TWO_STREAM],
                           .what = "compute: allreduce then DAXPY; p2p: ring"},
    [TL_VAR_THREE_NAIVE] = {.name = "three-naive",
                            .schedule = &tl_schedules[TL_SCHED_THREE_NAIVE],
                            .what = "three streams, one communicator"},
    [TL_VAR_THREE_SPLIT] = {.name = "three-split",
                            .schedule = &tl_schedules[TL_SCHED_THREE_SPLIT],
                            .what = "three streams, allreduce on the split communicator"},
};

tl_tristream_variant tl_tristream_variant_get(int vi)
{
    tl_tristream_variant v = tl_tristream_variants[vi];
    if (v.schedule) {
        const tl_sched_step *ar = tl_schedule_step(v.schedule, TL_SOP_ALLREDUCE);
        const tl_sched_step *halo = tl_schedule_step(v.schedule, TL_SOP_HALO_POST);
        v.allreduce = ar->role;
        v.allreduce_comm = ar->chan;
        v.ring = halo->role;
        v.ring_comm = halo->chan;
        v.daxpy = tl_schedule_step(v.schedule, TL_SOP_UPDATE)->role;
    }
    return v;
}

void tl_bench_choose_hw_queues(int64_t queues)
{
    const char *env = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    if (env && *env) {
        tl_log("note: CUDA_DEVICE_MAX_CONNECTIONS=%s from the environment (not --hw-queues %lld)", env,
               (long long)queues);
        return;
    }
    if (queues <= 0) return;
    char v[24];
    snprintf(v, sizeof v, "%lld", (long long)queues);
    if (setenv("CUDA_DEVICE_MAX_CONNECTIONS", v, 1) != 0) tl_log("could not set CUDA_DEVICE_MAX_CONNECTIONS=%s", v);
}

/* What a user without a GPU can run instead of WHAT, as the refusal's end:
 * the refusal is the first thing a laptop's first run of it prints. */
static const char *no_gpu_instead(const char *what)
{
    if (strcmp(what, "stream") == 0) return "; use --host";
    if (strcmp(what, "tristream") == 0)
        return "; without one, make demo analyses the committed 2 x H200 run and trilap-model tristream predicts it";
    if (strcmp(what, "comm") == 0)
        return "; without one, results/comm-h200x2 holds a committed 2 x H200 run (comm.csv, and comm.log against "
               "nccl-tests)";
    return "";
}

tl_status tl_bench_need_gpus(tl_ctx *ctx, const char *what)
{
    tl_status st = tl_comm_agree(ctx, ctx->device >= 0 ? TL_OK : TL_ERR_UNSUPPORTED);
    if (st == TL_OK) return TL_OK;
    if (ctx->rank != 0) return TL_ERR_REMOTE;
    return TL_FAIL(TL_ERR_UNSUPPORTED, "%s needs one GPU per rank (none visible, or --no-gpu)%s", what,
                   no_gpu_instead(what));
}

tl_status tl_bench_invalid(const char *name, const char *value, const char *why)
{
    if (why && *why)
        fprintf(stderr, "trilap-bench: invalid --%s '%s': %s (try --help)\n", name,
                value ? value : "", why);
    else
        fprintf(stderr, "trilap-bench: invalid --%s '%s' (try --help)\n", name, value ? value : "");
    return TL_ERR_INVAL;
}

tl_status tl_tristream_parse_variants(const char *list, unsigned *mask)
{
    *mask = 0;
    if (!list || !*list) return TL_ERR_PARSE;
    if (strcmp(list, "all") == 0) {
        *mask = (1u << TL_NVARIANTS) - 1;
        return TL_OK;
    }
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int found = -1;
        for (int v = 0; v < TL_NVARIANTS; v++)
            if (strlen(tl_tristream_variants[v].name) == len &&
                strncmp(tl_tristream_variants[v].name, p, len) == 0)
                found = v;
        if (found < 0 || (*mask & (1u << found))) { /* unknown, empty or repeated */
            *mask = 0;
            return TL_ERR_PARSE;
        }
        *mask |= 1u << found;
        if (!comma) return TL_OK;
        p = comma + 1;
    }
}

/* Before the run, in one line each: what the option table's ranges
 * cannot say (exit 2), a name --results cannot take whatever the file
 * system holds (exit 2: manifest.txt, its own manifest's name, was 1), and
 * --results against the file system (tl_results_check: not after the
 * measurement; exit 1, a file error, as in every program). */
static tl_status results_check(const char *results, const char *header)
{
    if (!results) return TL_OK;
    if (!*results) return tl_bench_invalid("results", results, "empty file name");
    if (tl_results_unfit(results)) return tl_bench_invalid("results", results, tl_results_unfit(results));
    /* a link to its own manifest (m.csv -> manifest.txt): the manifest was
     * written over the rows; exit 2, the options clash as trilap-solve's */
    tl_out_set own = {0};
    if (tl_results_set_add(&own, "trilap-bench", results)) return TL_ERR_INVAL;
    tl_error_context k; /* the line names the option, the file and why */
    tl_error_context_begin(&k, "--results");
    tl_status st = tl_results_check(results, header);
    tl_error_context_end(&k);
    return st == TL_OK ? TL_OK : TL_ERR_IO; /* a file error (exit 1), not a usage error */
}

/* The split communicator's CTA limits where NCCL would be handed minCTAs
 * above maxCTAs */
static tl_status split_ctas_ordered(int64_t max, int64_t min)
{
    char v[32];
    if (max <= 0 || min <= max) return TL_OK;
    snprintf(v, sizeof v, "%lld", (long long)min);
    return tl_bench_invalid("split-min-ctas", v, "greater than --split-max-ctas");
}

/* ... and where the run makes no split communicator (why) */
static tl_status split_ctas_unused(int64_t max, int64_t min, const char *why)
{
    char v[32];
    if (max <= 0 && min <= 0) return TL_OK;
    snprintf(v, sizeof v, "%lld", (long long)(max > 0 ? max : min));
    return tl_bench_invalid(max > 0 ? "split-max-ctas" : "split-min-ctas", v, why);
}

static const tl_option *tristream_option(const char *name)
{
    for (size_t i = 0; i < tl_tristream_noptions; i++)
        if (strcmp(tl_tristream_options[i].name, name) == 0) return &tl_tristream_options[i];
    return NULL;
}

/* A sweep sets one size at every point: the option that fixes that size
 * would do nothing, and each point must lie in that option's own range
 * (a sweep to 1T reached the GPUs with a DAXPY of 2^37 doubles that
 * --daxpy-count refuses). */
static tl_status sweep_check(const tl_tristream_opts *o, const tl_optresult *res,
                             const tl_tristream_cfg *cfg)
{
    static const struct {
        int kind;
        const char *option, *also; /* the options that fix the swept size */
        int64_t unit;              /* the option's unit in the sweep's: 8 B per double */
    } swept[] = {
        {TL_SWEEP_RING_BYTES, "ring-count", "ring-bytes", 8},
        {TL_SWEEP_ALLREDUCE_COUNT, "allreduce-count", NULL, 1},
        {TL_SWEEP_DAXPY_BYTES, "daxpy-count", NULL, 8},
    };
    /* "1KB" is 1K to the size parser: bytes where the sweep is of bytes,
     * but 1K doubles (8 KiB) for an allreduce count */
    if (cfg->sweep == TL_SWEEP_ALLREDUCE_COUNT && strchr(o->sweep_range, 'B'))
        return tl_bench_invalid("sweep-range", o->sweep_range,
                                "--sweep allreduce-count counts doubles, not bytes: give the sizes without B");
    for (size_t k = 0; k < sizeof swept / sizeof swept[0]; k++) {
        if (swept[k].kind != cfg->sweep) continue;
        const char *names[2] = {swept[k].option, swept[k].also};
        for (int j = 0; j < 2; j++) {
            const tl_option *opt = names[j] ? tristream_option(names[j]) : NULL;
            if (!opt || !tl_opts_given(res, (const char *)o + opt->offset)) continue;
            char v[32];
            snprintf(v, sizeof v, "%lld", (long long)*(const int64_t *)((const char *)o + opt->offset));
            char why[96];
            snprintf(why, sizeof why, "--sweep %s sets this size at each point; give one or the other",
                     tl_bench_sweep_name(cfg->sweep));
            return tl_bench_invalid(names[j], v, why);
        }
        const tl_option *opt = tristream_option(swept[k].option);
        int64_t last = cfg->points[cfg->npoints - 1];
        if ((double)(last / swept[k].unit) > opt->max) {
            char why[160], bytes[48] = "";
            if (swept[k].unit > 1)
                snprintf(bytes, sizeof bytes, " doubles (%.15g B)",
                         opt->max * (double)swept[k].unit);
            snprintf(why, sizeof why, "the point %lld is beyond the largest --%s, %.15g%s", (long long)last,
                     opt->name, opt->max, bytes);
            return tl_bench_invalid("sweep-range", o->sweep_range, why);
        }
    }
    return TL_OK;
}

/* What is wrong with a --variants list tl_tristream_parse_variants
 * refused, said of its first bad entry. */
static tl_status variants_refused(const char *list)
{
    char why[320], names[200] = "";
    unsigned seen = 0;
    for (int v = 0; v < TL_NVARIANTS; v++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", v ? ", " : "",
                 tl_tristream_variants[v].name);
    snprintf(why, sizeof why, "an empty entry (two commas, or one at an end)");
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (len == 0) break;
        int found = -1;
        for (int v = 0; v < TL_NVARIANTS; v++)
            if (strlen(tl_tristream_variants[v].name) == len && !strncmp(tl_tristream_variants[v].name, p, len))
                found = v;
        if (len == 3 && !strncmp(p, "all", 3)) {
            snprintf(why, sizeof why, "all stands alone: it is every variant");
            break;
        }
        if (found < 0 || (seen >> found) & 1u) {
            if (found < 0)
                snprintf(why, sizeof why, "'%.*s' is not a variant (all, or a comma list of %s)", (int)len, p, names);
            else
                snprintf(why, sizeof why, "%s is given twice", tl_tristream_variants[found].name);
            break;
        }
        seen |= 1u << found;
        p += len;
        if (!*p) break;
    }
    return tl_bench_invalid("variants", list, why);
}

/* The streams variant v's operations run on differ: stream priorities
 * order them (a part runs on one stream, where they order nothing). */
static int variant_overlaps(int vi)
{
    tl_tristream_variant v = tl_tristream_variant_get(vi);
    tl_role roles[3] = {v.allreduce, v.ring, v.daxpy}, first = TL_ROLE_NONE;
    for (int k = 0; k < 3; k++) {
        if (roles[k] == TL_ROLE_NONE) continue;
        if (first != TL_ROLE_NONE && roles[k] != first) return 1;
        first = roles[k];
    }
    return 0;
}

/* A knob of an operation no selected variant runs would do nothing:
 * the split communicator's CTA limits, the DAXPY grid, stream
 * priorities where no variant runs two streams at once. */
static tl_status knobs_unused(const tl_tristream_opts *o, const tl_optresult *res, tl_tristream_cfg *cfg)
{
    cfg->needs_split = (cfg->variants >> TL_VAR_THREE_SPLIT) & 1u;
    if (!cfg->needs_split)
        TL_TRY(split_ctas_unused(o->split_max_ctas, o->split_min_ctas,
                                 "no selected variant uses the split communicator (three-split)"));
    int daxpy = 0, overlap = 0;
    for (int vi = 0; vi < TL_NVARIANTS; vi++)
        if ((cfg->variants >> vi) & 1u) {
            daxpy |= tl_tristream_variant_get(vi).daxpy != TL_ROLE_NONE;
            overlap |= variant_overlaps(vi);
        }
    if (!overlap && tl_opts_given(res, &o->priorities))
        return tl_bench_invalid("priorities", o->priorities ? "on" : "off",
                                "no selected variant runs two streams at once (two-stream, three-naive, three-split)");
    if (daxpy || o->daxpy_blocks == 0) return TL_OK;
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)o->daxpy_blocks);
    return tl_bench_invalid("daxpy-blocks", v, "no selected variant runs the DAXPY");
}

tl_status tl_tristream_resolve(const tl_tristream_opts *o, const tl_optresult *res,
                               tl_tristream_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    char buf[32];
    if (tl_tristream_parse_variants(o->variants, &cfg->variants) != TL_OK)
        return variants_refused(o->variants);
    if (o->ring_count > 0 && o->ring_bytes > 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)o->ring_bytes);
        return tl_bench_invalid("ring-bytes", buf, "give --ring-count or --ring-bytes, not both");
    }
    if (o->ring_bytes % 8 != 0) {
        snprintf(buf, sizeof buf, "%lld", (long long)o->ring_bytes);
        return tl_bench_invalid("ring-bytes", buf, "not a multiple of 8 (doubles)");
    }
    cfg->ring_count = o->ring_count > 0   ? o->ring_count
                      : o->ring_bytes > 0 ? o->ring_bytes / 8
                                          : 32000;
    cfg->allreduce_count = o->allreduce_count;
    cfg->daxpy_count = o->daxpy_count;
    cfg->priorities = o->priorities;
    cfg->split_max_ctas = o->split_max_ctas;
    cfg->split_min_ctas = o->split_min_ctas;
    TL_TRY(split_ctas_ordered(o->split_max_ctas, o->split_min_ctas));
    cfg->daxpy_blocks = o->daxpy_blocks;
    cfg->warmup = o->warmup;
    cfg->iters = o->iters;
    cfg->repeat = o->repeat;
    cfg->trace_iters = o->trace_iters;
    cfg->format = o->format;
    cfg->trace_mode = o->trace_mode;
    /* nvtx without a folder: the loop's NVTX ranges are those every run
     * emits; there is nowhere to write host ranges, so none are kept (said
     * below, once every check has passed) */
    int nvtx_noted = cfg->trace_mode == 1 && !o->trace;
    if (nvtx_noted) cfg->trace_mode = 0;
    if (cfg->trace_mode == 2 && !o->trace)
        return tl_bench_invalid("trace-mode", "cupti",
                                "needs --trace DIR for the CUPTI records (NVTX ranges for nsys "
                                "are on in every run without it)");
    if (o->trace && !*o->trace) return tl_bench_invalid("trace", o->trace, "empty folder name");
    if (!o->trace && tl_opts_given(res, &o->trace_iters)) {
        snprintf(buf, sizeof buf, "%lld", (long long)o->trace_iters);
        return tl_bench_invalid("trace-iters", buf, "the traced window it sizes is run with --trace DIR only");
    }
    TL_TRY(results_check(o->results, tl_tristream_results_header));
    cfg->sweep = o->sweep;
    if (cfg->sweep != TL_SWEEP_NONE) {
        const char *why = NULL;
        /* the option typed is --sweep; the range is START:END[:FACTOR]
         * (tl_sweep_parse: FACTOR defaults to 2) */
        if (!o->sweep_range)
            return tl_bench_invalid("sweep", sweep_names[cfg->sweep], "needs --sweep-range START:END[:FACTOR]");
        if (tl_sweep_parse(o->sweep_range, &cfg->points, &cfg->npoints, &why) != TL_OK)
            return tl_bench_invalid("sweep-range", o->sweep_range, why);
        if (cfg->sweep != TL_SWEEP_ALLREDUCE_COUNT)
            for (size_t i = 0; i < cfg->npoints; i++)
                if (cfg->points[i] % 8 != 0) {
                    tl_tristream_cfg_free(cfg);
                    return tl_bench_invalid("sweep-range", o->sweep_range,
                                            "byte sizes must be multiples of 8 (doubles)");
                }
        if (sweep_check(o, res, cfg) != TL_OK) {
            tl_tristream_cfg_free(cfg);
            return TL_ERR_INVAL;
        }
    } else {
        if (o->sweep_range)
            return tl_bench_invalid("sweep-range", o->sweep_range, "given without --sweep");
        cfg->npoints = 1;
    }
    if (knobs_unused(o, res, cfg) != TL_OK) {
        tl_tristream_cfg_free(cfg);
        return TL_ERR_INVAL;
    }
    /* a note for a run that goes on: a refused one is its one line alone */
    if (nvtx_noted)
        fprintf(stderr, "trilap-bench: note: --trace-mode nvtx without --trace records no host ranges: "
                        "the timed loop has the NVTX ranges of every run (trace_mode=off in "
                        "the results)\n");
    return TL_OK;
}

void tl_tristream_cfg_free(tl_tristream_cfg *cfg)
{
    if (!cfg) return;
    free(cfg->points);
    cfg->points = NULL;
    cfg->npoints = 0;
}

void tl_tristream_trace_sub(const tl_tristream_cfg *cfg, int timed, size_t p, const char *variant, char *buf,
                            size_t n)
{
    char mode[32] = "", point[96] = "";
    if (timed) snprintf(mode, sizeof mode, "timed-%s/", trace_mode_names[cfg->trace_mode]);
    if (cfg->sweep != TL_SWEEP_NONE)
        snprintf(point, sizeof point, "%s-%" PRId64 "/", tl_bench_sweep_name((tl_bench_sweep_kind)cfg->sweep),
                 cfg->points[p]);
    snprintf(buf, n, "%s%s%s", mode, point, variant);
}

/* One variant's trace folder DIR/sub: it can be made (else 1, the file
 * system's answer); the results (when `beside` holds them) are neither the
 * folder, nor one above it up to DIR, nor the rank file in it that bears
 * the results' own name (else 2: the options clash). 0 when taken. */
static int trace_folder_refused(const tl_out_set *beside, const char *results, const char *dir, const char *sub,
                                const char *variant, const char *timed)
{
    char path[4400], what[64];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (tl_out_check_as("--trace", tl_out_check_folder, path) != TL_OK) return 1;
    if (!results) return 0;
    snprintf(what, sizeof what, "--trace (variant %s's %sfolder)", variant, timed);
    /* the results at a folder between DIR and the variant's (timed-nvtx,
     * ring-bytes-8): the variant's folder lies under them */
    if (tl_out_set_meets(beside, "trilap-bench", what, path)) return 2;
    /* the name the rows land at: a link's file (ln.csv -> T/V/trace.rank0.csv
     * was looked for as ln.csv, and the trace replaced the rows) */
    char at[4352];
    const char *landed = tl_out_written_at(results, at, sizeof at);
    const char *slash = strrchr(landed, '/'), *base = slash ? slash + 1 : landed;
    if (tl_trace_rank_of_name(base) < 0) return 0;
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, base);
    snprintf(what, sizeof what, "--trace (variant %s's %srank file)", variant, timed);
    return tl_out_set_meets(beside, "trilap-bench", what, path) ? 2 : 0;
}

int tl_tristream_outputs_refused(const tl_tristream_opts *o, const tl_tristream_cfg *cfg)
{
    if (!o->trace) return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->trace);
    for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = '\0'; /* T/ said as T */
    tl_out_set beside = {0};
    if (o->results && tl_results_set_add(&beside, "trilap-bench", o->results)) return 2;
    if (o->results && tl_out_set_meets(&beside, "trilap-bench", "--trace", dir)) return 2; /* above every variant's folder */
    /* the traced windows always, the timed loops with --trace-mode nvtx or cupti */
    for (int timed = 0; timed <= (cfg->trace_mode > 0); timed++) {
        char label[32] = "";
        if (timed) snprintf(label, sizeof label, "timed-%s ", trace_mode_names[cfg->trace_mode]);
        for (size_t p = 0; p < cfg->npoints; p++)
            for (int vi = 0; vi < TL_NVARIANTS; vi++) {
                if (!(cfg->variants & (1u << vi))) continue;
                char sub[256];
                tl_tristream_trace_sub(cfg, timed, p, tl_tristream_variants[vi].name, sub, sizeof sub);
                int rc = trace_folder_refused(&beside, o->results, dir, sub, tl_tristream_variants[vi].name, label);
                if (rc) return rc;
            }
    }
    return 0;
}

void tl_tristream_point(const tl_tristream_cfg *cfg, size_t p, int64_t *allreduce_count,
                        int64_t *ring_count, int64_t *daxpy_count)
{
    *allreduce_count = cfg->allreduce_count;
    *ring_count = cfg->ring_count;
    *daxpy_count = cfg->daxpy_count;
    if (cfg->sweep == TL_SWEEP_NONE || p >= cfg->npoints) return;
    switch (cfg->sweep) {
    case TL_SWEEP_RING_BYTES:
        *ring_count = cfg->points[p] / 8;
        break;
    case TL_SWEEP_ALLREDUCE_COUNT:
        *allreduce_count = cfg->points[p];
        break;
    case TL_SWEEP_DAXPY_BYTES:
        *daxpy_count = cfg->points[p] / 8;
        break;
    default:
        break;
    }
}

/* The last-level cache in bytes: the highest level sysconf knows, else
 * 32 MiB (a server's L3; too large only makes the arrays larger). */
static int64_t last_level_cache(void)
{
    const int names[] = {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        long v = sysconf(names[i]);
        if (v > 0) return v;
    }
    return 32LL << 20;
}

void tl_stream_resolve_sizes(tl_stream_opts *o, double avail, char *note, size_t nnote)
{
    if (note && nnote) note[0] = '\0';
    if (o->iters == 0) o->iters = o->host ? 20 : 100;
    if (o->count != 0) return;
    if (!o->host) {
        o->count = 256LL << 20;
        return;
    }
    /* BabelStream's rule: each array at least 4x the last-level cache, so
     * that memory, not cache, is measured */
    int64_t llc = last_level_cache(), want = 4 * llc;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t cap = (int64_t)(cores > 0 ? cores : 1) * (64LL << 20);
    if (avail > 0 && (int64_t)(avail / 8) / 3 < cap) cap = (int64_t)(avail / 8) / 3;
    int64_t bytes = want < cap ? want : cap;
    if (bytes < 1024 * 8) bytes = 1024 * 8;
    o->count = bytes / 8;
    /* sizes as the preamble's "(10.7 MiB each)": whole MiB read 10 there */
    char have[32], cache[32];
    if (bytes < want && note)
        snprintf(note, nnote,
                 "note: stream --host: arrays of %s, below 4x the %s last-level cache (capped at 64 MiB "
                 "per core and 1/8 of the available memory); some of the traffic may hit the cache; --count sets "
                 "the size",
                 tl_bytes_str((double)(bytes / 8 * 8), have, sizeof have),
                 tl_bytes_str((double)llc, cache, sizeof cache));
}

tl_status tl_stream_check(tl_stream_opts *o)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)o->count);
    if (o->count > 0 && o->count < 1024)
        return tl_bench_invalid("count", v,
                                o->host ? "at least 1024 doubles (0: sized from the machine)"
                                        : "at least 1024 doubles (0: 256M on GPUs)");
    if (o->iters == 1)
        return tl_bench_invalid("iters", "1", "at least 2: the first call is dropped (0: 20 on the host, 100 on GPUs)");
    /* the default host size from the memory the check below holds it to
     * (sysconf's free pages knew no RLIMIT_AS: a plain run was refused
     * the size it had chosen, naming a --count never typed) */
    double avail = 0;
    if (o->host) TL_TRY(tl_hostmem_available(&avail));
    char note[512];
    tl_stream_resolve_sizes(o, avail, note, sizeof note);
    if (o->block % 32 != 0) {
        snprintf(v, sizeof v, "%lld", (long long)o->block);
        return tl_bench_invalid("block", v, "not a multiple of 32 (the warp size)");
    }
    if (o->host) {
        char what[96];
        snprintf(what, sizeof what, "--count %lld (three arrays of doubles)", (long long)o->count);
        TL_TRY(tl_hostmem_check(what, 3.0 * 8.0 * (double)o->count));
    }
    tl_status st = results_check(o->results, tl_stream_results_header);
    /* the note on the arrays' size is for a run that goes on: a refused
     * one is said in its one line alone */
    if (st == TL_OK && note[0]) fprintf(stderr, "trilap-bench: %s\n", note);
    return st;
}

tl_status tl_commbench_check(const tl_commbench_opts *o)
{
    char v[32];
    /* the sizes are of doubles, as tristream's --ring-bytes: -b 12 measured
     * 8 B (its row said size 8) where the user asked for 12 */
    if (o->min_bytes % 8 != 0) {
        snprintf(v, sizeof v, "%lld", (long long)o->min_bytes);
        return tl_bench_invalid("min-bytes", v, "not a multiple of 8 (doubles)");
    }
    if (o->max_bytes < o->min_bytes) {
        /* both sizes as the program read them: -e 1K was said as '1024' */
        char hi[32], lo[32], why[96];
        snprintf(v, sizeof v, "%lld", (long long)o->max_bytes);
        snprintf(why, sizeof why, "%s, smaller than --min-bytes %lld (%s)",
                 tl_bytes_str((double)o->max_bytes, hi, sizeof hi), (long long)o->min_bytes,
                 tl_bytes_str((double)o->min_bytes, lo, sizeof lo));
        return tl_bench_invalid("max-bytes", v, why);
    }
    TL_TRY(split_ctas_ordered(o->split_max_ctas, o->split_min_ctas));
    if (o->comm == TL_COMMBENCH_WORLD)
        TL_TRY(split_ctas_unused(o->split_max_ctas, o->split_min_ctas, "--comm world measures no split communicator"));
    return results_check(o->results, tl_comm_results_header);
}
