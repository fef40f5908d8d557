/* trilap-bench host logic: options, sweeps, bound/efficiency arithmetic,
 * correctness formulas, output formats (golden files in tests/expected/,
 * built from fixed numbers so no timing enters them). */
#include "microbench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/results.h"
#include "tests/tl_test.h"

/* ---- helpers ------------------------------------------------------------------ */

static tl_status parse_tristream(tl_tristream_opts *to, tl_tristream_cfg *cfg, const char *args)
{
    char buf[512];
    char *argv[32];
    int argc = 0;
    argv[argc++] = "tristream";
    snprintf(buf, sizeof buf, "%s", args);
    for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
        argv[argc++] = strcmp(tok, "''") == 0 ? "" : tok;
    argv[argc] = NULL;
    tl_optgroup g = {"Tristream", tl_tristream_options, tl_tristream_noptions, to};
    tl_optspec spec = {
        .program = "trilap-bench", .usage = "tristream [options]", .groups = &g, .ngroups = 1};
    tl_optresult res;
    tl_status st = tl_opts_parse(&spec, argc, argv, &res);
    if (st != TL_OK) {
        free(res.positional);
        return st;
    }
    /* argv points into buf; resolve before it goes away */
    st = tl_tristream_resolve(to, &res, cfg);
    free(res.positional);
    to->variants = to->results = to->trace = to->sweep_range = NULL;
    return st;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* Compare `got` with tests/expected/<name>; TL_BENCH_REGEN=1 rewrites it. */
static void golden(const char *name, const char *got)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/expected/%s", tl_test_env("TL_SRC", "."), name);
    if (getenv("TL_BENCH_REGEN")) {
        FILE *f = fopen(path, "w");
        TL_ASSERT_MSG(f, "cannot write %s", path);
        fputs(got, f);
        fclose(f);
    }
    char *want = slurp(path);
    TL_ASSERT_MSG(want, "missing golden file %s (run with TL_BENCH_REGEN=1 from the source root)",
                  path);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "--- expected %s\n%s--- got\n%s", path, want, got);
        free(want);
        TL_TEST_FAIL_("output differs from %s", path);
    }
    free(want);
}

/* ---- options ------------------------------------------------------------------ */

TL_TEST(tristream_defaults)
{
    tl_tristream_opts to;
    tl_tristream_cfg cfg;
    TL_ASSERT_OK(parse_tristream(&to, &cfg, ""));
    TL_ASSERT_EQ(cfg.variants, (1u << TL_NVARIANTS) - 1);
    TL_ASSERT_EQ(cfg.allreduce_count, 2);
    TL_ASSERT_EQ(cfg.ring_count, 32000);
    TL_ASSERT_EQ(cfg.daxpy_count, 8388608);
    TL_ASSERT_EQ(cfg.warmup, 100);
    TL_ASSERT_EQ(cfg.iters, 10000);
    TL_ASSERT_EQ(cfg.repeat, 5);
    TL_ASSERT_EQ(cfg.trace_iters, 200);
    TL_ASSERT_EQ(cfg.priorities, 1);
    TL_ASSERT_EQ(cfg.daxpy_blocks, 0);
    TL_ASSERT_EQ(cfg.format, TL_FMT_TABLE);
    TL_ASSERT_EQ(cfg.trace_mode, 0);
    TL_ASSERT_EQ(cfg.sweep, TL_SWEEP_NONE);
    TL_ASSERT_EQ(cfg.npoints, 1);
    TL_ASSERT_EQ(cfg.needs_split, 1);
    tl_tristream_cfg_free(&cfg);
}

TL_TEST(tristream_good_options)
{
    tl_tristream_opts to;
    tl_tristream_cfg cfg;
    TL_ASSERT_OK(
        parse_tristream(&to, &cfg,
                        "--ring-bytes 512K --variants two-stream,three-naive --priorities off "
                        "--format json --daxpy-count 1M --allreduce-count 4 "
                        "--daxpy-blocks 264 --iters 7 --repeat 3 --warmup 0 "
                        "--trace /tmp/x --trace-mode cupti --trace-iters 9"));
    TL_ASSERT_EQ(cfg.ring_count, 65536);
    TL_ASSERT_EQ(cfg.variants, (1u << TL_VAR_TWO_STREAM) | (1u << TL_VAR_THREE_NAIVE));
    TL_ASSERT_EQ(cfg.needs_split, 0);
    TL_ASSERT_EQ(cfg.priorities, 0);
    TL_ASSERT_EQ(cfg.format, TL_FMT_JSON);
    TL_ASSERT_EQ(cfg.daxpy_count, 1048576);
    TL_ASSERT_EQ(cfg.allreduce_count, 4);
    TL_ASSERT_EQ(cfg.daxpy_blocks, 264);
    TL_ASSERT_EQ(cfg.iters, 7);
    TL_ASSERT_EQ(cfg.repeat, 3);
    TL_ASSERT_EQ(cfg.warmup, 0);
    TL_ASSERT_EQ(cfg.trace_mode, 2);
    TL_ASSERT_EQ(cfg.trace_iters, 9);
    tl_tristream_cfg_free(&cfg);

    TL_ASSERT_OK(parse_tristream(&to, &cfg,
                                 "--ring-count 1000 --variants three-split --split-max-ctas 4 --split-min-ctas 2"));
    TL_ASSERT_EQ(cfg.ring_count, 1000);
    TL_ASSERT_EQ(cfg.needs_split, 1);
    TL_ASSERT_EQ(cfg.split_max_ctas, 4);
    TL_ASSERT_EQ(cfg.split_min_ctas, 2);
    tl_tristream_cfg_free(&cfg);
}

TL_TEST(tristream_bad_options)
{
    static const char *const bad[] = {
        "--ring-bytes x",
        "--ring-bytes 12",                 /* not whole doubles */
        "--ring-count 10 --ring-bytes 80", /* both */
        "--variants foo",
        "--variants two-stream,two-stream",
        "--variants two-stream,",
        "--variants ''",
        "--priorities maybe",
        "--format xml",
        "--trace-mode cupti", /* no --trace folder */
        "--trace-mode fast --trace /tmp/x",
        "--sweep ring-bytes", /* no range */
        "--sweep-range 8:16", /* no sweep */
        "--sweep ring-bytes --sweep-range 12:48:2",
        "--sweep daxpy-bytes --sweep-range 1M:1K",
        "--sweep ring-size --sweep-range 8:16",
        "--split-max-ctas 4 --split-min-ctas 8",
        "--variants two-stream,three-naive --split-max-ctas 2", /* no split communicator */
        "--variants ring-only --split-min-ctas 1",
        "--split-max-ctas 65",
        "--iters 0",
        "--repeat -1",
        "--allreduce-count 0",
        "--ring-count 0", /* was run as the default 32000 */
        "--sweep ring-bytes --sweep-range 8:1K --ring-count 5", /* the sweep sets it */
        "--sweep daxpy-bytes --sweep-range 1K:1T",               /* beyond --daxpy-count */
        "--daxpy-count 1.5M",
        "--results ''",
        "--no-such-option 3",
        "stray-positional",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tl_tristream_opts to;
        tl_tristream_cfg cfg = {0};
        tl_status st = parse_tristream(&to, &cfg, bad[i]);
        TL_ASSERT_MSG(st != TL_OK, "accepted bad options: %s", bad[i]);
        tl_tristream_cfg_free(&cfg);
    }
}

TL_TEST(invalid_message_format)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    FILE *saved = stderr;
    stderr = mem;
    tl_status st = tl_bench_invalid("ring-bytes", "x", NULL);
    tl_bench_invalid("sweep-range", "8:4", "END is smaller than START");
    stderr = saved;
    fclose(mem);
    TL_ASSERT_EQ(st, TL_ERR_INVAL);
    TL_ASSERT_STREQ(
        text,
        "trilap-bench: invalid --ring-bytes 'x' (try --help)\n"
        "trilap-bench: invalid --sweep-range '8:4': END is smaller than START (try --help)\n");
    free(text);
}

TL_TEST(variant_lists)
{
    unsigned m = 0;
    TL_ASSERT_OK(tl_tristream_parse_variants("all", &m));
    TL_ASSERT_EQ(m, 0x3f);
    TL_ASSERT_OK(tl_tristream_parse_variants("three-split", &m));
    TL_ASSERT_EQ(m, 1u << TL_VAR_THREE_SPLIT);
    TL_ASSERT_OK(tl_tristream_parse_variants("daxpy-only,allreduce-only", &m));
    TL_ASSERT_EQ(m, (1u << TL_VAR_DAXPY_ONLY) | (1u << TL_VAR_ALLREDUCE_ONLY));
    TL_ASSERT(tl_tristream_parse_variants("three", &m) != TL_OK);
    TL_ASSERT(tl_tristream_parse_variants("three-split,all", &m) != TL_OK);
    TL_ASSERT(tl_tristream_parse_variants(",three-split", &m) != TL_OK);
    TL_ASSERT(tl_tristream_parse_variants("", &m) != TL_OK);
    TL_ASSERT(tl_tristream_parse_variants(NULL, &m) != TL_OK);
}

TL_TEST(variant_table)
{
    /* the schedules of the paper: what runs where */
    tl_tristream_variant v[TL_NVARIANTS];
    for (int i = 0; i < TL_NVARIANTS; i++)
        v[i] = tl_tristream_variant_get(i);
    TL_ASSERT_STREQ(v[TL_VAR_TWO_STREAM].name, "two-stream");
    TL_ASSERT_EQ(v[TL_VAR_TWO_STREAM].allreduce, TL_ROLE_COMPUTE);
    TL_ASSERT_EQ(v[TL_VAR_TWO_STREAM].daxpy, TL_ROLE_COMPUTE);
    TL_ASSERT_EQ(v[TL_VAR_TWO_STREAM].ring, TL_ROLE_P2P);
    TL_ASSERT_EQ(v[TL_VAR_THREE_NAIVE].allreduce, TL_ROLE_COLL);
    TL_ASSERT_EQ(v[TL_VAR_THREE_NAIVE].allreduce_comm, TL_CHAN_WORLD);
    TL_ASSERT_EQ(v[TL_VAR_THREE_SPLIT].allreduce, TL_ROLE_COLL);
    TL_ASSERT_EQ(v[TL_VAR_THREE_SPLIT].allreduce_comm, TL_CHAN_SPLIT);
    TL_ASSERT_EQ(v[TL_VAR_THREE_SPLIT].ring, TL_ROLE_P2P);
    TL_ASSERT_EQ(v[TL_VAR_THREE_SPLIT].daxpy, TL_ROLE_COMPUTE);
    TL_ASSERT_EQ(v[TL_VAR_RING_ONLY].allreduce, TL_ROLE_NONE);
    TL_ASSERT_EQ(v[TL_VAR_RING_ONLY].daxpy, TL_ROLE_NONE);
    TL_ASSERT_EQ(v[TL_VAR_DAXPY_ONLY].ring, TL_ROLE_NONE);
    TL_ASSERT_STREQ(tl_role_name(TL_ROLE_COLL), "coll");
}

TL_TEST(variants_are_the_solver_schedules)
{
    /* one vocabulary: each schedule variant runs what the solvers' row of
     * the same name says, allreduce = ALLREDUCE, ring = HALO_POST, DAXPY = UPDATE */
    int schedules = 0;
    for (int i = 0; i < TL_NVARIANTS; i++) {
        tl_tristream_variant v = tl_tristream_variant_get(i);
        if (!v.schedule) continue;
        schedules++;
        const tl_schedule *s = tl_schedule_find(v.name);
        TL_ASSERT(s == v.schedule);
        TL_ASSERT_EQ(v.allreduce, s->steps[TL_SOP_ALLREDUCE].role);
        TL_ASSERT_EQ(v.allreduce_comm, s->steps[TL_SOP_ALLREDUCE].chan);
        TL_ASSERT_EQ(v.ring, s->steps[TL_SOP_HALO_POST].role);
        TL_ASSERT_EQ(v.ring_comm, s->steps[TL_SOP_HALO_POST].chan);
        TL_ASSERT_EQ(v.daxpy, s->steps[TL_SOP_UPDATE].role);
        TL_ASSERT_EQ(v.allreduce_comm == TL_CHAN_SPLIT, s->split_comm);
    }
    TL_ASSERT_EQ(schedules, 3);
}

TL_TEST(stream_and_comm_options)
{
    tl_stream_opts so;
    tl_commbench_opts co;
    tl_optgroup gs = {"Stream", tl_stream_options, tl_stream_noptions, &so};
    tl_optgroup gc = {"Comm", tl_commbench_options, tl_commbench_noptions, &co};
    tl_optspec ss = {.program = "trilap-bench", .groups = &gs, .ngroups = 1};
    tl_optspec cs = {.program = "trilap-bench", .groups = &gc, .ngroups = 1};
    TL_ASSERT_OK(tl_opts_defaults(&ss));
    /* 0: sized when the run starts (GPU: 256M doubles, 100 calls) */
    TL_ASSERT_EQ(so.count, 0);
    TL_ASSERT_EQ(so.iters, 0);
    TL_ASSERT_EQ(so.vector, 2);
    TL_ASSERT_EQ(so.host, 0);
    tl_stream_opts gpu = so;
    tl_stream_resolve_sizes(&gpu, 0, NULL, 0);
    TL_ASSERT_EQ(gpu.count, 1LL << 28);
    TL_ASSERT_EQ(gpu.iters, 100);
    /* the host: 4x the last-level cache within 64 MiB per core and 1/8 of
     * free memory; 20 calls; a typed size stays */
    tl_stream_opts host = so;
    host.host = 1;
    char note[512];
    tl_stream_resolve_sizes(&host, 0, note, sizeof note);
    TL_ASSERT_EQ(host.iters, 20);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    TL_ASSERT(host.count >= 1024 && host.count * 8 <= (cores > 0 ? cores : 1) * (64LL << 20));
    /* within 1/8 of the memory given for the three: 256 MiB, 1398101 doubles each */
    host.count = 0;
    tl_stream_resolve_sizes(&host, 256.0 * (1 << 20), note, sizeof note);
    TL_ASSERT_EQ(host.count, 1398101);
    host.count = 4096;
    host.iters = 7;
    tl_stream_resolve_sizes(&host, 0, note, sizeof note);
    TL_ASSERT_EQ(host.count, 4096);
    TL_ASSERT_EQ(host.iters, 7);
    TL_ASSERT_STREQ(note, "");
    TL_ASSERT_OK(tl_opts_defaults(&cs));
    TL_ASSERT_EQ(co.min_bytes, 8);
    TL_ASSERT_EQ(co.max_bytes, 128LL << 20);
    TL_ASSERT_EQ(co.factor, 2);
    TL_ASSERT_EQ(co.warmup, 5);
    TL_ASSERT_EQ(co.iters, 20);
    TL_ASSERT_EQ(co.comm, TL_COMMBENCH_BOTH);
    /* nccl-tests' short options */
    char *args[] = {"comm", "-b", "512K", "-e", "8M",     "-f",    "4",
                    "-w",   "1",  "-n",   "3",  "--comm", "split", NULL};
    tl_optresult res;
    TL_ASSERT_OK(tl_opts_parse(&cs, 13, args, &res));
    free(res.positional);
    TL_ASSERT_EQ(co.min_bytes, 512 * 1024);
    TL_ASSERT_EQ(co.max_bytes, 8 << 20);
    TL_ASSERT_EQ(co.factor, 4);
    TL_ASSERT_EQ(co.iters, 3);
    TL_ASSERT_EQ(co.comm, TL_COMMBENCH_SPLIT);
    char *bad1[] = {"stream", "--vector", "4", NULL};
    char *bad2[] = {"stream", "--count", "10x", NULL};
    char *bad3[] = {"comm", "--comm", "both,world", NULL};
    char *bad4[] = {"comm", "-f", "1", NULL};
    TL_ASSERT(tl_opts_parse(&ss, 3, bad1, &res) == TL_ERR_INVAL);
    TL_ASSERT(tl_opts_parse(&ss, 3, bad2, &res) == TL_ERR_INVAL);
    TL_ASSERT(tl_opts_parse(&cs, 3, bad3, &res) == TL_ERR_INVAL);
    TL_ASSERT(tl_opts_parse(&cs, 3, bad4, &res) == TL_ERR_INVAL);
}

/* ---- sweeps -------------------------------------------------------------------- */

static void expect_points(const char *range, const int64_t *want, size_t n)
{
    int64_t *p = NULL;
    size_t np = 0;
    const char *why = NULL;
    TL_ASSERT_MSG(tl_sweep_parse(range, &p, &np, &why) == TL_OK, "%s: %s", range, why);
    TL_ASSERT_MSG(np == n, "%s: %zu points, want %zu", range, np, n);
    for (size_t i = 0; i < n; i++)
        TL_ASSERT_MSG(p[i] == want[i], "%s: point %zu = %lld", range, i, (long long)p[i]);
    free(p);
}

TL_TEST(sweep_ranges)
{
    expect_points("8:64:2", (int64_t[]){8, 16, 32, 64}, 4);
    expect_points("8:100:3", (int64_t[]){8, 24, 72}, 3);
    expect_points("1K:1M:4", (int64_t[]){1024, 4096, 16384, 65536, 262144, 1048576}, 6);
    expect_points("16:16", (int64_t[]){16}, 1);
    expect_points("4K:64K", (int64_t[]){4096, 8192, 16384, 32768, 65536}, 5);
    expect_points("2G:8G:2", (int64_t[]){2LL << 30, 4LL << 30, 8LL << 30}, 3);
    /* no overflow past INT64_MAX */
    expect_points("4611686018427387904:9223372036854775807:2", (int64_t[]){4611686018427387904LL},
                  1);
    int64_t *p = NULL;
    size_t n = 0;
    const char *why = NULL;
    TL_ASSERT_OK(tl_sweep_series(8, 128LL << 20, 2, &p, &n, &why));
    TL_ASSERT_EQ(n, 25); /* nccl-tests -b 8 -e 128M -f 2 */
    TL_ASSERT_EQ(p[24], 128LL << 20);
    free(p);
}

TL_TEST(sweep_bad_ranges)
{
    static const char *const bad[] = {"8:4", "0:8",   "8:64:1",  "8:64:0",   "8:64:x",
                                      "8",   "a:b",   "8:b",     "8:64:2:1", ":64",
                                      "8:",  "-8:64", "8:64:-2", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t *p = (int64_t *)1;
        size_t n = 99;
        const char *why = NULL;
        TL_ASSERT_MSG(tl_sweep_parse(bad[i], &p, &n, &why) != TL_OK, "accepted '%s'", bad[i]);
        TL_ASSERT(why && *why);
        TL_ASSERT(p == NULL && n == 0);
    }
    int64_t *p = NULL;
    size_t n = 0;
    const char *why = NULL;
    TL_ASSERT(tl_sweep_parse(NULL, &p, &n, &why) != TL_OK);
    /* a fourth part is the form's fault (it was "FACTOR must be an integer >= 2") */
    TL_ASSERT(tl_sweep_parse("8:64:2:1", &p, &n, &why) != TL_OK);
    TL_ASSERT_STREQ(why, "expected START:END[:FACTOR]");
}

/* The folders a run traces into, as tristream names them and the check of
 * its outputs walks them (README: DIR/<variant>/, DIR/timed-<mode>/..., a
 * sweep's DIR/<sweep>-<value>/<variant>/). */
TL_TEST(tristream_trace_folders)
{
    tl_tristream_opts to;
    tl_tristream_cfg cfg;
    char sub[256];
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--trace T --trace-mode nvtx"));
    tl_tristream_trace_sub(&cfg, 0, 0, "three-split", sub, sizeof sub);
    TL_ASSERT_STREQ(sub, "three-split");
    tl_tristream_trace_sub(&cfg, 1, 0, "three-split", sub, sizeof sub);
    TL_ASSERT_STREQ(sub, "timed-nvtx/three-split");
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--trace T --trace-mode cupti --sweep ring-bytes --sweep-range 8K:1M:8"));
    tl_tristream_trace_sub(&cfg, 0, 1, "two-stream", sub, sizeof sub);
    TL_ASSERT_STREQ(sub, "ring-bytes-65536/two-stream");
    tl_tristream_trace_sub(&cfg, 1, 2, "ring-only", sub, sizeof sub);
    TL_ASSERT_STREQ(sub, "timed-cupti/ring-bytes-524288/ring-only");
    tl_tristream_cfg_free(&cfg);
}

TL_TEST(sweep_points_apply)
{
    tl_tristream_opts to;
    tl_tristream_cfg cfg;
    int64_t a, r, d;
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--sweep daxpy-bytes --sweep-range 8M:32M:2"));
    TL_ASSERT_EQ(cfg.npoints, 3);
    tl_tristream_point(&cfg, 2, &a, &r, &d);
    TL_ASSERT_EQ(d, 4 << 20);
    TL_ASSERT_EQ(r, 32000);
    TL_ASSERT_EQ(a, 2);
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--sweep ring-bytes --sweep-range 8K:1M:8"));
    TL_ASSERT_EQ(cfg.npoints, 3);
    tl_tristream_point(&cfg, 1, &a, &r, &d);
    TL_ASSERT_EQ(r, 8192);
    TL_ASSERT_EQ(d, 8 << 20);
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--sweep allreduce-count --sweep-range 1:1K:32"));
    TL_ASSERT_EQ(cfg.npoints, 3);
    tl_tristream_point(&cfg, 0, &a, &r, &d);
    TL_ASSERT_EQ(a, 1);
    tl_tristream_point(&cfg, 2, &a, &r, &d);
    TL_ASSERT_EQ(a, 1024);
    tl_tristream_cfg_free(&cfg);
}

/* ---- metrics ------------------------------------------------------------------- */

TL_TEST(efficiency_arithmetic)
{
    TL_ASSERT_NEAR(tl_overlap_efficiency(100, 60, 60), 1.0, 1e-15);
    TL_ASSERT_NEAR(tl_overlap_efficiency(100, 60, 100), 0.0, 1e-15);
    TL_ASSERT_NEAR(tl_overlap_efficiency(100, 60, 80), 0.5, 1e-15);
    TL_ASSERT_NEAR(tl_overlap_efficiency(100, 60, 110), -0.25, 1e-15); /* slower than serial */
    TL_ASSERT(isnan(tl_overlap_efficiency(60, 60, 60)));               /* nothing to overlap */
    TL_ASSERT(isnan(tl_overlap_efficiency(NAN, 60, 60)));
    TL_ASSERT(isnan(tl_overlap_efficiency(100, 60, INFINITY)));
}

static tl_tristream_row row(const char *v, double med)
{
    return (tl_tristream_row){.variant = v, .median_us = med, .min_us = med, .max_us = med};
}

TL_TEST(derive_bound_speedup_efficiency)
{
    tl_tristream_row r[6] = {row("allreduce-only", 12), row("ring-only", 14),
                             row("daxpy-only", 50),     row("two-stream", 70),
                             row("three-naive", 65),    row("three-split", 52)};
    tl_tristream_derive(r, 6);
    /* sum 76, max 50 */
    TL_ASSERT(isnan(r[0].bound_us) && isnan(r[0].eff_pct));
    TL_ASSERT_NEAR(r[0].speedup, 70.0 / 12.0, 1e-12);
    TL_ASSERT_NEAR(r[3].bound_us, 50, 0);
    TL_ASSERT_NEAR(r[3].speedup, 1.0, 0);
    TL_ASSERT_NEAR(r[3].eff_pct, 100.0 * 6.0 / 26.0, 1e-12);
    TL_ASSERT_NEAR(r[4].eff_pct, 100.0 * 11.0 / 26.0, 1e-12);
    TL_ASSERT_NEAR(r[5].speedup, 70.0 / 52.0, 1e-12);
    TL_ASSERT_NEAR(r[5].bound_us, 50, 0);
    TL_ASSERT_NEAR(r[5].eff_pct, 100.0 * 24.0 / 26.0, 1e-12);

    /* order does not matter; missing parts give no bound, no two-stream no speedup */
    tl_tristream_row s[3] = {row("three-split", 52), row("ring-only", 14), row("daxpy-only", 50)};
    tl_tristream_derive(s, 3);
    TL_ASSERT(isnan(s[0].bound_us) && isnan(s[0].eff_pct) && isnan(s[0].speedup));
    tl_tristream_row t[2] = {row("two-stream", 70), row("three-split", 35)};
    tl_tristream_derive(t, 2);
    TL_ASSERT_NEAR(t[1].speedup, 2.0, 0);
}

TL_TEST(busbw_factors)
{
    TL_ASSERT_NEAR(tl_busbw_factor("allreduce", 2), 1.0, 0);
    TL_ASSERT_NEAR(tl_busbw_factor("allreduce", 4), 1.5, 0);
    TL_ASSERT_NEAR(tl_busbw_factor("allreduce", 8), 1.75, 0);
    TL_ASSERT_NEAR(tl_busbw_factor("allreduce", 1), 0.0, 0);
    TL_ASSERT_NEAR(tl_busbw_factor("sendrecv", 2), 1.0, 0);
    TL_ASSERT_NEAR(tl_busbw_factor("sendrecv", 64), 1.0, 0);
}

/* ---- correctness formulas ------------------------------------------------------ */

TL_TEST(pattern_sums_exact)
{
    for (int n = 1; n <= 9; n++)
        for (int salt = 0; salt < 7; salt += 3)
            for (int64_t j = 0; j < 3000; j += 37) {
                double s = 0;
                for (int r = n - 1; r >= 0; r--)
                    s += tl_bench_pattern(r, salt, j);
                TL_ASSERT_MSG(s == tl_bench_pattern_sum(n, salt, j), "n=%d salt=%d j=%lld", n, salt,
                              (long long)j);
            }
    /* neighbours and repetitions differ, so stale or shifted data is caught */
    TL_ASSERT(tl_bench_pattern(0, 1, 5) != tl_bench_pattern(1, 1, 5));
    TL_ASSERT(tl_bench_pattern(0, 1, 5) != tl_bench_pattern(0, 2, 5));
    TL_ASSERT(tl_bench_pattern(0, 1, 5) != tl_bench_pattern(0, 1, 6));
    /* large ranks and salts stay exact integers */
    double big = tl_bench_pattern(1 << 20, 0xfffff, 1020);
    TL_ASSERT(big == floor(big) && big < 4294967296.0);
}

TL_TEST(daxpy_closed_form)
{
    double y = 0.0;
    const double x = 1.0;
    for (int64_t k = 1; k <= 200000; k++) {
        y = fma(TL_BENCH_DAXPY_A, x, y);
        if (k % 9973 == 0 || k == 200000)
            TL_ASSERT_MSG(y == tl_bench_daxpy_expected(k), "k=%lld", (long long)k);
    }
    TL_ASSERT(tl_bench_daxpy_expected(1024) == 1.0);
}

TL_TEST(count_wrong)
{
    double buf[8];
    tl_bench_expect e = {.kind = TL_EXPECT_SUM, .nranks = 3, .salt = 2};
    for (int j = 0; j < 8; j++)
        buf[j] = tl_bench_pattern_sum(3, 2, j);
    TL_ASSERT_EQ(tl_bench_count_wrong(buf, 8, &e), 0);
    buf[3] += 1;
    buf[6] = NAN;
    TL_ASSERT_EQ(tl_bench_count_wrong(buf, 8, &e), 2);
    tl_bench_expect p = {.kind = TL_EXPECT_PATTERN, .rank = 1, .salt = 4};
    for (int j = 0; j < 8; j++)
        buf[j] = tl_bench_pattern(1, 4, j);
    TL_ASSERT_EQ(tl_bench_count_wrong(buf, 8, &p), 0);
    p.rank = 0; /* data from the wrong neighbour */
    TL_ASSERT_EQ(tl_bench_count_wrong(buf, 8, &p), 8);
    tl_bench_expect c = {.kind = TL_EXPECT_CONST, .value = 10.0, .tol = 1e-8};
    double v[3] = {10.0 + 5e-8, 10.0 - 2e-7, 10.0};
    TL_ASSERT_EQ(tl_bench_count_wrong(v, 3, &c), 1);
    c.tol = 0;
    TL_ASSERT_EQ(tl_bench_count_wrong(v, 3, &c), 2);
}

TL_TEST(stream_gold_values)
{
    tl_stream_gold g = tl_stream_gold_of(1, 10);
    /* c = a = 0.1; b = 0.4 c = 0.04; c = a + b = 0.14; a = b + 0.4 c = 0.096 */
    TL_ASSERT_NEAR(g.c, 0.14, 1e-15);
    TL_ASSERT_NEAR(g.b, 0.04, 1e-15);
    TL_ASSERT_NEAR(g.a, 0.096, 1e-15);
    TL_ASSERT_NEAR(g.sum, 0.096 * 0.04 * 10, 1e-15);
    TL_ASSERT_EQ(tl_stream_bytes("copy", 100), 1600);
    TL_ASSERT_EQ(tl_stream_bytes("mul", 100), 1600);
    TL_ASSERT_EQ(tl_stream_bytes("add", 100), 2400);
    TL_ASSERT_EQ(tl_stream_bytes("triad", 100), 2400);
    TL_ASSERT_EQ(tl_stream_bytes("dot", 100), 1600);
}

TL_TEST(stream_host_verifies)
{
    tl_stream_row rows[5];
    TL_ASSERT_OK(tl_stream_host(100003, 4, 0, rows));
    static const char *const names[5] = {"copy", "mul", "add", "triad", "dot"};
    for (int f = 0; f < 5; f++) {
        TL_ASSERT_STREQ(rows[f].function, names[f]);
        TL_ASSERT_EQ(rows[f].wrong, 0);
        TL_ASSERT_EQ(rows[f].bytes, tl_stream_bytes(names[f], 100003));
        TL_ASSERT(rows[f].gbs > 0 && isfinite(rows[f].gbs));
        TL_ASSERT(rows[f].min_ms <= rows[f].avg_ms && rows[f].avg_ms <= rows[f].max_ms);
    }
    TL_ASSERT(tl_stream_host(0, 4, 0, rows) != TL_OK);
    TL_ASSERT(tl_stream_host(16, 1, 0, rows) != TL_OK);
}

/* ---- output formats ------------------------------------------------------------- */

static void fixed_meta(tl_bench_meta *m)
{
    memset(m, 0, sizeof *m);
    TL_ASSERT_OK(tl_bench_meta_add(m, "program", "trilap-bench %s", "tristream"));
    TL_ASSERT_OK(tl_bench_meta_add(m, "ranks", "%d", 2));
    TL_ASSERT_OK(tl_bench_meta_add(m, "note", "%s", "a \"quoted\", value"));
    TL_ASSERT_OK(tl_bench_meta_add_opt(m, "iters", "10000"));
    TL_ASSERT_OK(tl_bench_meta_add_opt(m, "results", ""));
}

static char *render_tristream(tl_bench_format fmt)
{
    tl_tristream_row r[6] = {row("allreduce-only", 12.25), row("ring-only", 14.5),
                             row("daxpy-only", 50.125),    row("two-stream", 70.0),
                             row("three-naive", 65.5),     row("three-split", 52.75)};
    const int64_t sizes[6][3] = {{16, 0, 0},
                                 {0, 256000, 0},
                                 {0, 0, 67108864},
                                 {16, 256000, 67108864},
                                 {16, 256000, 67108864},
                                 {16, 256000, 67108864}};
    for (int i = 0; i < 6; i++) {
        r[i].allreduce_bytes = sizes[i][0];
        r[i].ring_bytes = sizes[i][1];
        r[i].daxpy_bytes = sizes[i][2];
        r[i].min_us = r[i].median_us - 0.5;
        r[i].max_us = r[i].median_us + 1.25;
    }
    r[4].wrong = 3;
    tl_tristream_derive(r, 6);
    tl_bench_cell cells[6 * 11];
    TL_ASSERT_EQ(tl_tristream_ncols, 11);
    for (int i = 0; i < 6; i++)
        tl_tristream_cells(&r[i], cells + i * 11);
    tl_bench_meta m;
    fixed_meta(&m);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TL_ASSERT_OK(tl_bench_write(f, fmt, &m, tl_tristream_cols, tl_tristream_ncols, cells, 6, 3));
    fclose(f);
    tl_bench_meta_free(&m);
    return text;
}

TL_TEST(tristream_table_golden)
{
    char *t = render_tristream(TL_FMT_TABLE);
    golden("bench_tristream.table", t);
    /* every data row has the same width as the names row */
    size_t w = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# opt", 5) == 0 || strncmp(line, "# ", 2) == 0) {
            if (strstr(line, "variant")) w = strlen(line);
            continue;
        }
        if (line[0] == '#') continue;
        TL_ASSERT_EQ(strlen(line), w);
    }
    TL_ASSERT(w > 0);
    free(t);
}

TL_TEST(tristream_csv_golden)
{
    char *t = render_tristream(TL_FMT_CSV);
    golden("bench_tristream.csv", t);
    free(t);
}

TL_TEST(tristream_json_golden)
{
    char *t = render_tristream(TL_FMT_JSON);
    golden("bench_tristream.json", t);
    free(t);
}

TL_TEST(stream_and_comm_tables_golden)
{
    tl_stream_row sr[2] = {{.function = "triad",
                            .rank = 0,
                            .device = "NVIDIA H200",
                            .bytes = 6442450944,
                            .gbs = 4321.5,
                            .min_ms = 1.4908,
                            .max_ms = 1.52,
                            .avg_ms = 1.5011},
                           {.function = "dot",
                            .rank = 1,
                            .device = "NVIDIA H200",
                            .bytes = 4294967296,
                            .gbs = 4100.25,
                            .min_ms = 1.0475,
                            .max_ms = 1.1,
                            .avg_ms = 1.06,
                            .wrong = 1}};
    tl_comm_row cr[2] = {{.op = "allreduce",
                          .comm = "world",
                          .bytes = 8,
                          .count = 1,
                          .type = "double",
                          .redop = "sum",
                          .time_us = 12.125,
                          .algbw_gbs = 0.00066,
                          .busbw_gbs = 0.00066},
                         {.op = "sendrecv",
                          .comm = "split",
                          .bytes = 8388608,
                          .count = 1048576,
                          .type = "double",
                          .redop = "none",
                          .time_us = 49.25,
                          .algbw_gbs = 170.33,
                          .busbw_gbs = 170.33}};
    tl_bench_cell sc[2 * 9], cc[2 * 10];
    TL_ASSERT_EQ(tl_stream_ncols, 9);
    TL_ASSERT_EQ(tl_comm_ncols, 10);
    for (int i = 0; i < 2; i++) {
        tl_stream_cells(&sr[i], sc + i * 9);
        tl_comm_cells(&cr[i], cc + i * 10);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    TL_ASSERT_OK(tl_bench_write(f, TL_FMT_TABLE, NULL, tl_stream_cols, 9, sc, 2, 1));
    TL_ASSERT_OK(tl_bench_write(f, TL_FMT_CSV, NULL, tl_stream_cols, 9, sc, 2, 1));
    TL_ASSERT_OK(tl_bench_write(f, TL_FMT_TABLE, NULL, tl_comm_cols, 10, cc, 2, 0));
    TL_ASSERT_OK(tl_bench_write(f, TL_FMT_JSON, NULL, tl_comm_cols, 10, cc, 0, 0));
    fclose(f);
    golden("bench_stream_comm.txt", text);
    free(text);
}

/* The STREAM table's times are precise enough that bytes / printed min is
 * the printed bandwidth: a 64 KiB copy's fastest call of 1.7345 us printed
 * as "0.0017" ms, which gives 38.6 GB/s against the printed 37.8. The
 * bandwidth is rounded to 0.1 GB/s and the time to 1 ns; both together
 * stay within 0.1 % here. */
TL_TEST(stream_table_times_match_bandwidth)
{
    tl_stream_row r = {.function = "copy", .rank = 0, .device = "host", .bytes = 65536, .min_ms = 0.0017345,
                       .max_ms = 0.0019, .avg_ms = 0.0018};
    r.gbs = (double)r.bytes / (r.min_ms * 1e-3) * 1e-9;
    tl_bench_cell c[9];
    tl_stream_cells(&r, c);
    for (int fmt = TL_FMT_TABLE; fmt <= TL_FMT_CSV; fmt++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        TL_ASSERT_OK(tl_bench_write(f, (tl_bench_format)fmt, NULL, tl_stream_cols, 9, c, 1, 0));
        fclose(f);
        const char *row = strstr(text, fmt == TL_FMT_CSV ? "\ncopy," : "copy");
        TL_ASSERT_MSG(row, "%s", text);
        char fn[16], dev[16];
        int rank = -1;
        long long bytes = 0;
        double gbs = 0, mn = 0;
        int got = fmt == TL_FMT_CSV
                      ? sscanf(row + 1, "%15[^,],%d,%15[^,],%lld,%lf,%lf", fn, &rank, dev, &bytes, &gbs, &mn)
                      : sscanf(row, "%15s %d %15s %lld %lf %lf", fn, &rank, dev, &bytes, &gbs, &mn);
        TL_ASSERT_EQ(got, 6);
        double again = (double)bytes / (mn * 1e-3) * 1e-9;
        TL_ASSERT_MSG(fabs(again - gbs) <= 1e-3 * gbs, "%s: %lld B / %.6f ms = %.2f GB/s, printed %.1f", text, bytes,
                      mn, again, gbs);
        free(text);
    }
}

TL_TEST(results_rows)
{
    char buf[1024];
    tl_tristream_sample s = {.variant = "three-split",
                             .nranks = 2,
                             .rep = 4,
                             .us_per_iter = 81.23456,
                             .allreduce_bytes = 16,
                             .ring_bytes = 256000,
                             .daxpy_bytes = 67108864,
                             .iters = 10000,
                             .warmup = 100,
                             .priorities = 1,
                             .split_max_ctas = 4,
                             .split_min_ctas = 0,
                             .daxpy_blocks = 0,
                             .trace_mode = "off",
                             .max_connections = "unset",
                             .launch_mode = "GROUP",
                             .wrong = 0};
    TL_ASSERT_STREQ(
        tl_tristream_results_row(&s, buf, sizeof buf),
        "three-split,2,4,81.2346,16,256000,67108864,10000,100,on,4,0,0,off,unset,GROUP,0");
    /* as many fields as the header names, and the required columns first */
    int commas_h = 0, commas_r = 0;
    for (const char *p = tl_tristream_results_header; *p; p++)
        commas_h += *p == ',';
    for (const char *p = buf; *p; p++)
        commas_r += *p == ',';
    TL_ASSERT_EQ(commas_h, commas_r);
    TL_ASSERT(strncmp(tl_tristream_results_header, "variant,nranks,rep,us_per_iter,", 31) == 0);
    /* the environment's values are free text: a comma in one split the row */
    s.launch_mode = "GROUP,\"x\"";
    TL_ASSERT_STREQ(tl_tristream_results_row(&s, buf, sizeof buf),
                    "three-split,2,4,81.2346,16,256000,67108864,10000,100,on,4,0,0,off,unset,\"GROUP,\"\"x\"\"\",0");

    tl_stream_row sr = {.function = "triad",
                        .rank = 1,
                        .device = "NVIDIA H200, rev B",
                        .bytes = 6442450944,
                        .gbs = 4321.5,
                        .min_ms = 1.5,
                        .max_ms = 1.6,
                        .avg_ms = 1.55,
                        .wrong = 0};
    TL_ASSERT_STREQ(tl_stream_results_row(&sr, 268435456, 100, buf, sizeof buf),
                    "triad,1,NVIDIA H200  rev "
                    "B,268435456,6442450944,100,4321.500,1.500000,1.600000,1.550000,0");
    tl_comm_row cr = {.op = "allreduce",
                      .comm = "split",
                      .bytes = 16,
                      .count = 2,
                      .type = "double",
                      .redop = "sum",
                      .time_us = 12.5,
                      .algbw_gbs = 0.00128,
                      .busbw_gbs = 0.00128};
    TL_ASSERT_STREQ(tl_comm_results_row(&cr, 2, 20, buf, sizeof buf),
                    "allreduce,split,2,16,2,double,sum,20,12.500,0.0013,0.0013,0");
}

TL_TEST(manifest_path_and_env)
{
    char buf[256];
    tl_results_manifest_path("results/h200/bench.csv", buf, sizeof buf);
    TL_ASSERT_STREQ(buf, "results/h200/manifest.txt");
    tl_results_manifest_path("bench.csv", buf, sizeof buf);
    TL_ASSERT_STREQ(buf, "manifest.txt");
    tl_results_manifest_path("/r.csv", buf, sizeof buf);
    TL_ASSERT_STREQ(buf, "/manifest.txt");
    setenv("TL_BENCH_TEST_VAR", "GROUP", 1);
    TL_ASSERT_STREQ(tl_bench_env("TL_BENCH_TEST_VAR"), "GROUP");
    setenv("TL_BENCH_TEST_VAR", "", 1);
    TL_ASSERT_STREQ(tl_bench_env("TL_BENCH_TEST_VAR"), "unset");
    unsetenv("TL_BENCH_TEST_VAR");
    TL_ASSERT_STREQ(tl_bench_env("TL_BENCH_TEST_VAR"), "unset");
}

TL_TEST(meta_captures_every_option)
{
    tl_tristream_opts to;
    tl_optgroup g = {"Tristream", tl_tristream_options, tl_tristream_noptions, &to};
    tl_optspec spec = {.program = "trilap-bench", .groups = &g, .ngroups = 1};
    TL_ASSERT_OK(tl_opts_defaults(&spec));
    tl_bench_meta m = {0};
    TL_ASSERT_OK(tl_bench_meta_add_opts(&m, &spec));
    TL_ASSERT_EQ(m.nopt, tl_tristream_noptions);
    int seen = 0;
    for (size_t i = 0; i < m.nopt; i++) {
        if (strcmp(m.opt[i].key, "variants") == 0) seen += strcmp(m.opt[i].value, "all") == 0;
        if (strcmp(m.opt[i].key, "daxpy-count") == 0)
            seen += strcmp(m.opt[i].value, "8388608") == 0;
        if (strcmp(m.opt[i].key, "trace") == 0) seen += strcmp(m.opt[i].value, "") == 0;
    }
    TL_ASSERT_EQ(seen, 3);
    tl_bench_meta_free(&m);
    TL_ASSERT_EQ(m.nopt, 0);
    tl_tristream_cfg cfg;
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--format json --sweep daxpy-bytes --sweep-range 1M:2M --priorities off"));
    TL_ASSERT_EQ(cfg.format, TL_FMT_JSON);
    TL_ASSERT_EQ(cfg.sweep, TL_SWEEP_DAXPY_BYTES);
    TL_ASSERT_EQ(cfg.priorities, 0);
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT(parse_tristream(&to, &cfg, "--format xml") != TL_OK);
}

/* --trace-mode as its help says: nvtx needs no folder (the loop keeps the
 * NVTX ranges every run emits, no host ranges: recorded as off), nvtx with
 * a folder records host ranges, cupti needs one. */
TL_TEST(trace_mode_without_folder)
{
    tl_tristream_opts to;
    tl_tristream_cfg cfg;
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--trace-mode nvtx"));
    TL_ASSERT_EQ(cfg.trace_mode, 0);
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT_OK(parse_tristream(&to, &cfg, "--trace-mode nvtx --trace /tmp/x"));
    TL_ASSERT_EQ(cfg.trace_mode, 1);
    tl_tristream_cfg_free(&cfg);
    TL_ASSERT_EQ(parse_tristream(&to, &cfg, "--trace-mode cupti"), TL_ERR_INVAL);
}

/* The program picks 32 hardware queues unless the environment says otherwise. */
TL_TEST(hw_queues_default_and_override)
{
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
    tl_bench_choose_hw_queues(0);
    TL_ASSERT(getenv("CUDA_DEVICE_MAX_CONNECTIONS") == NULL);
    tl_bench_choose_hw_queues(32);
    TL_ASSERT_STREQ(getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "32");
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
    tl_bench_choose_hw_queues(32);
    TL_ASSERT_STREQ(getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "4");
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

TL_TEST_MAIN(tristream_defaults, tristream_good_options, tristream_bad_options,
             invalid_message_format, variant_lists, variant_table, variants_are_the_solver_schedules, stream_and_comm_options,
             sweep_ranges, sweep_bad_ranges, sweep_points_apply, tristream_trace_folders, efficiency_arithmetic,
             derive_bound_speedup_efficiency, busbw_factors, pattern_sums_exact, daxpy_closed_form,
             count_wrong, stream_gold_values, stream_host_verifies, tristream_table_golden,
             tristream_csv_golden, tristream_json_golden, stream_and_comm_tables_golden,
             stream_table_times_match_bandwidth,
             results_rows, manifest_path_and_env, meta_captures_every_option,
             trace_mode_without_folder, hw_queues_default_and_override)
