/* trilap-analyze compare A B: two runs side by side. A run directory with
 * traces gives the overlap metrics (max over ranks) and the iteration time
 * (median iteration, slowest rank); a results CSV (or a directory holding
 * only results.csv) gives us_per_iter per variant. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/cli.h"
#include "probes/trace.h" /* tl_trace_rank_of_name */

typedef struct cmp_opts {
    const char *baseline;
    tl_an_common c;
} cmp_opts;

enum { NM = 11 };
static const char *const mnames[NM][2] = {
    {"iteration_time", "us"}, {"window", "us"},          {"iterations", ""},          {"derived_comm_per_iter", "us"},
    {"comm_per_iter", "us"},  {"comm_calls_per_iter", ""}, {"idle_per_iter", "us"}, {"hidden", "%"},
    {"comm_comm", "%"},       {"triple", "%"},           {"launch_gaps_per_iter", "us"}};

/* Communication calls in the window: NCCL kernels and the host's
 * communication marks (trilap-solve's host marks a halo's post and its
 * wait, two calls; trilap-fdtd's one mark per exchange), else copies on the
 * communication lanes. Per step it tells a trilap-fdtd run at --s 2 (one
 * exchange every 2 steps) from one at --s 1, which the times need not. */
static int64_t comm_calls(const tl_an_rank_result *r)
{
    return r->n_nccl + r->n_marks ? r->n_nccl + r->n_marks : r->n_comm_copies;
}

static int has_traces(const char *dir)
{
    if (tl_an_is_nsys(dir) || tl_an_is_gzip_nsys(dir)) return 1; /* an Nsight Systems export stands for a run */
    if (tl_an_is_kineto(dir)) return 1; /* so does a PyTorch profiler trace */
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d))) {
        if (!strncmp(e->d_name, "trace.rank", 10)) found = 1;
        /* a folder of PyTorch profiler traces, one per rank */
        if (tl_an_json_name(e->d_name)) found = 1;
    }
    closedir(d);
    return found;
}

/* Max over ranks of each metric (the slowest rank sets the pace); none
 * says why the run has no iteration time where no rank marks an iteration
 * ("" where one does). */
static tl_status trace_metrics(const char *dir, const cmp_opts *o, double *x, size_t *nranks, char *clock,
                               size_t nclock, char *none, size_t nnone)
{
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o->c);
    oo.match = 1; /* hidden and triple on transfer time, as overlap prints them */
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    TL_TRYGOTO(tl_an_run_overlap(dir, &oo, names, NULL, NULL, &res, &nr), st, fail);
    tl_an_clock_say(&res[0].meta, nr, sizeof *res, clock, nclock);
    *nranks = nr;
    for (int j = 0; j < NM; j++) x[j] = -INFINITY;
    tl_an_iter_span have = {0};
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        /* a rank without iterations has no figure per iteration: its whole
         * window was printed as one iteration's (an export that marks none:
         * derived_comm_per_iter 468854.62 us, "iterations 0.00") */
        double it = res[r].nslices ? (double)res[r].nslices : NAN, lo, med, hi;
        have.n += res[r].nslices;
        TL_TRYGOTO(tl_an_iter_times(&res[r], &lo, &med, &hi), st, fail);
        double v[NM] = {med,
                        (double)m->w / 1e3,
                        (double)res[r].nslices,
                        tl_an_rank_host_only(&res[r]) ? NAN : (double)tl_an_m_derived(m) / 1e3 / it,
                        (double)tl_an_m_union(m, TL_AN_C_COMM_ALL) / 1e3 / it,
                        (double)comm_calls(&res[r]) / it,
                        (double)tl_an_m_idle(m) / 1e3 / it,
                        100 * tl_an_m_hidden(m),
                        100 * tl_an_m_ccover(m),
                        100 * tl_an_m_triple(m),
                        (double)m->launch_gaps / 1e3 / it};
        for (int j = 0; j < NM; j++)
            if (isfinite(v[j]) && v[j] > x[j]) x[j] = v[j];
    }
    for (int j = 0; j < NM; j++)
        if (!isfinite(x[j])) x[j] = NAN;
    if (have.n || !nr) snprintf(none, nnone, "%s", "");
    else tl_an_iters_had(have, &res[0].meta, none, nnone);
fail:
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    return st;
}

/* How many results*.csv files dir holds (results.csv counts alone when
 * there), the first of them in buf. */
static int results_files(const char *dir, char *buf, size_t n)
{
    struct stat sb;
    snprintf(buf, n, "%s/results.csv", dir);
    if (stat(buf, &sb) == 0) return 1;
    DIR *d = opendir(dir);
    int found = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (!strncmp(e->d_name, "results", 7) && len > 4 && !strcmp(e->d_name + len - 4, ".csv")) {
            if (found++ == 0) snprintf(buf, n, "%s/%s", dir, e->d_name);
        }
    }
    if (d) closedir(d);
    return found;
}

/* A results file, or the results file of a run directory: results.csv,
 * else the one results*.csv there. A traced run directory without one
 * is refused with what compare does with it instead. */
static tl_status results_path(const char *p, char *buf, size_t n, const char **out)
{
    struct stat sb;
    *out = p;
    if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) return TL_OK;
    int found = results_files(p, buf, n);
    *out = buf;
    if (found == 1) return TL_OK;
    if (found > 1)
        return TL_FAIL(TL_ERR_INVAL, "%s holds %d results*.csv files; name one (compare %s/FILE.csv ...)", p, found, p);
    if (has_traces(p))
        return TL_FAIL(TL_ERR_INVAL,
                       "%s is one traced run and holds no results file: compare needs a second run to set beside it "
                       "(trilap-analyze compare %s OTHER_RUN), or a results file of several variants",
                       p, p);
    return TL_FAIL(TL_ERR_IO, "%s: no results.csv in this directory (trilap-solve, trilap-bench --results FILE write one)",
                   p);
}

/* Two inputs of which one is a traced run without a results file: the
 * other one is what is wrong (missing, a pipe, results beside a trace), so
 * the message names it rather than the run (before, every such pair was
 * told "RUN is one traced run ... needs a second run"). */
static tl_status check_pair(const char *a, const char *b)
{
    int ta = has_traces(a), tb = has_traces(b);
    char buf[1100];
    struct stat sb;
    if (ta == tb) return TL_OK;
    const char *run = ta ? a : b, *other = ta ? b : a;
    if (results_files(run, buf, sizeof buf) > 0) return TL_OK; /* two results files, as before */
    if (stat(other, &sb) != 0)
        return TL_FAIL(TL_ERR_IO, "%s: %s: compare sets a second traced run beside %s", other, strerror(errno), run);
    if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return TL_FAIL(TL_ERR_INVAL, "%s: a pipe or a device: compare reads runs and results from files and folders "
                                     "(the readers open them more than once)", other);
    if (S_ISDIR(sb.st_mode))
        return TL_FAIL(TL_ERR_INVAL, "%s holds no traces (trace.rank*.csv, an Nsight Systems export, PyTorch profiler "
                                     "traces) to set beside the traced run %s: give a second traced run", other, run);
    return TL_FAIL(TL_ERR_INVAL, "%s is a file but no trace (a results file?): compare sets a traced run beside another "
                                 "traced run (compare %s OTHER_RUN) and results files beside results files",
                   other, run);
}

/* B's group for A's row x: the same variant at the same ranks; failing
 * that, when each file holds one variant (two runs of one program, a
 * schedule or build changed between them), B's row at the same ranks. */
static const tl_an_result *partner(const tl_an_result *x, const tl_an_result *rb, size_t nb, int single)
{
    const tl_an_result *y = NULL;
    for (size_t k = 0; k < nb; k++)
        if (!strcmp(rb[k].variant, x->variant) && rb[k].nranks == x->nranks) y = &rb[k];
    for (size_t k = 0; !y && single && k < nb; k++)
        if (rb[k].nranks == x->nranks) y = &rb[k];
    return y;
}

/* y is x's baseline: named `base` (microbenchmark variants), or a solver
 * label (solver/precond/schedule/backend:matrix) equal to x's but for one
 * part, which is `base` (the schedule two-stream of the same solve). */
static int is_baseline(const char *x, const char *y, const char *base)
{
    if (!strcmp(y, base)) return 1;
    int diff = 0, hit = 0;
    while (*x || *y) {
        size_t lx = strcspn(x, "/:"), ly = strcspn(y, "/:");
        int is_base = ly == strlen(base) && !strncmp(y, base, ly);
        hit |= is_base;
        if (lx != ly || strncmp(x, y, lx)) {
            if (!is_base || ++diff > 1) return 0;
        }
        x += lx;
        y += ly;
        if (*x != *y) return 0;
        if (*x) x++, y++;
    }
    return hit;
}

static int one_variant(const tl_an_result *r, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (strcmp(r[k].variant, r[0].variant)) return 0;
    return n > 0;
}

/* Some row of the file has the variant `base` as its baseline (is_baseline). */
static int baseline_found(const tl_an_result *r, size_t n, const char *base)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++)
            if (is_baseline(r[i].variant, r[k].variant, base)) return 1;
    return 0;
}

/* "a, b, c" of the file's distinct variants, the first few. */
static void variant_list(const tl_an_result *r, size_t n, char *out, size_t len)
{
    size_t used = 0, listed = 0, distinct = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < i && strcmp(r[k].variant, r[i].variant)) k++;
        if (k < i) continue;
        distinct++;
        if (listed == 8 || used >= len) continue;
        int w = snprintf(out + used, len - used, "%s%s", listed ? ", " : "", r[i].variant);
        if (w > 0) used += (size_t)w;
        listed++;
    }
    if (distinct > listed && used < len) snprintf(out + used, len - used, " and %zu more", distinct - listed);
}

/* Two results files none of whose rows meet (no variant of A at B's ranks):
 * runs of two kinds (a trilap-bench file beside a trilap-solve one), or of
 * one program at other GPU counts. Refused, naming both files' variants
 * (before, a table whose B and speedup columns were all "-", exit 0). */
static tl_status check_rows_meet(const char *a, const tl_an_result *ra, size_t na, const char *b,
                                 const tl_an_result *rb, size_t nb, int single)
{
    for (size_t i = 0; i < na; i++)
        if (partner(&ra[i], rb, nb, single)) return TL_OK;
    char va[512], vb[512];
    variant_list(ra, na, va, sizeof va);
    variant_list(rb, nb, vb, sizeof vb);
    return TL_FAIL(TL_ERR_INVAL,
                   "%s and %s share no variant at the same number of ranks (A's: %s; B's: %s): compare "
                   "sets runs of one kind side by side",
                   a, b, va, vb);
}

/* The table of one results file against its baseline, or of two files
 * side by side. */
/* The points of one file (side "A" or "B") with repetitions left out
 * for results that failed their check, one meta line each side that has
 * any: the reader leaves them out of every median (sweep counts them in a
 * column), and a median of fewer repetitions, or none, must say why. */
static tl_status wrong_said(tl_an_table *t, const char *side, const tl_an_result *r, size_t n)
{
    char said[1024] = "";
    size_t at = 0;
    int shown = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].wrong <= 0) continue;
        if (shown == 8 || at >= sizeof said) {
            more++;
            continue;
        }
        at += (size_t)snprintf(said + at, sizeof said - at, "%s%s at %d ranks %lld", shown++ ? ", " : "", r[i].variant,
                               r[i].nranks, (long long)r[i].wrong);
    }
    if (!shown) return TL_OK;
    return tl_an_table_meta(t, side[0] == 'A' ? "A_wrong" : "B_wrong",
                            "repetitions left out of %s's medians, their results failed their check (wrong column not "
                            "0): %s%s",
                            side, said, more ? " and more" : "");
}

static tl_status compare_results(const char *a, const tl_an_result *ra, size_t na, const char *b,
                                 const tl_an_result *rb, size_t nb, const cmp_opts *o, tl_an_table *t)
{
    tl_status st = TL_OK;
    int single = b && one_variant(ra, na) && one_variant(rb, nb) && strcmp(ra[0].variant, rb[0].variant) != 0;
    static const char *const cols[][2] = {{"variant", ""}, {"nranks", ""}, {"A_median", "us"}, {"A_min", "us"},
                                          {"A_max", "us"}, {"B_median", "us"}, {"B_min", "us"}, {"B_max", "us"},
                                          {"speedup", "x"}, {"B_variant", ""}};
    if (b) TL_TRY(check_rows_meet(a, ra, na, b, rb, nb, single));
    size_t ncols = single ? 10 : 9;
    for (size_t j = 0; j < ncols; j++) TL_TRY(tl_an_table_col(t, cols[j][0], cols[j][1], j == 0 || j == 9));
    TL_TRY(tl_an_table_meta(t, "A", "%s", a));
    if (b) {
        TL_TRY(tl_an_table_meta(t, "B", "%s", b));
        TL_TRY(tl_an_table_meta(t, "speedup", "A_median / B_median (us_per_iter, median over repetitions)"));
        if (single)
            TL_TRY(tl_an_table_meta(t, "pairing", "one variant in each file: A's row beside B's at the same ranks"));
    } else {
        TL_TRY(tl_an_table_meta(t, "B", "baseline variant %s of A at the same nranks", o->baseline));
        TL_TRY(tl_an_table_meta(t, "speedup", "baseline median / variant median"));
        if (!baseline_found(ra, na, o->baseline)) {
            char vars[512];
            variant_list(ra, na, vars, sizeof vars);
            TL_TRY(tl_an_table_meta(t, "baseline", "A has no variant %s (--baseline's default), so the B columns are "
                                                   "empty; its variants: %s",
                                    o->baseline, vars));
        }
    }
    TL_TRY(wrong_said(t, "A", ra, na));
    if (b) TL_TRY(wrong_said(t, "B", rb, nb));
    for (size_t i = 0; i < na; i++) {
        const tl_an_result *x = &ra[i], *y = NULL;
        if (b) {
            y = partner(x, rb, nb, single);
        } else {
            for (size_t k = 0; k < na; k++)
                if (is_baseline(x->variant, ra[k].variant, o->baseline) && ra[k].nranks == x->nranks) y = &ra[k];
        }
        TL_TRY(tl_an_table_row(t));
        TL_TRY(tl_an_table_str(t, x->variant));
        TL_TRY(tl_an_table_int(t, x->nranks));
        TL_TRY(tl_an_table_num(t, x->median, 2));
        TL_TRY(tl_an_table_num(t, x->min, 2));
        TL_TRY(tl_an_table_num(t, x->max, 2));
        TL_TRY(tl_an_table_num(t, y ? y->median : NAN, 2));
        TL_TRY(tl_an_table_num(t, y ? y->min : NAN, 2));
        TL_TRY(tl_an_table_num(t, y ? y->max : NAN, 2));
        double sp = !y ? NAN : b ? x->median / y->median : y->median / x->median;
        TL_TRY(tl_an_table_num(t, sp, 3));
        if (single) TL_TRY(tl_an_table_str(t, y ? y->variant : "-"));
    }
    return st;
}

/* compare on results files: read them, refuse what cannot apply (2), print
 * the table; the exit code. */
static int compare_files(const char *a, const char *b, const cmp_opts *o, const tl_optresult *pr, tl_an_table *t)
{
    const tl_an_given traced[] = {
        {&o->c.iters, "iter-range", 0},          {&o->c.launch_gap_us, "launch-gap-us", 0},
        {&o->c.align_clocks, "align-clocks", 1}, {&o->c.raw_clock, "raw-clock", 1},
        {&o->c.accept_incomplete, "accept-incomplete", 1}, {&o->c.progress, "progress", 1},
    };
    int rc = tl_an_refuse_given("trilap-analyze compare", pr, traced, sizeof traced / sizeof traced[0],
                                "to results files: they hold timings per run, not traces");
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_result *ra = NULL, *rb = NULL;
    size_t na = 0, nb = 0;
    char pa[1100], pb[1100];
    const char *fa = NULL, *fb = NULL;
    if (b) TL_TRYGOTO(check_pair(a, b), st, fail);
    TL_TRYGOTO(results_path(a, pa, sizeof pa, &fa), st, fail);
    TL_TRYGOTO(tl_an_results_read(fa, NULL, &ra, &na), st, fail);
    if (b) TL_TRYGOTO(results_path(b, pb, sizeof pb, &fb), st, fail);
    if (b) TL_TRYGOTO(tl_an_results_read(fb, NULL, &rb, &nb), st, fail);
    if (!b && tl_opts_given(pr, &o->baseline) && !baseline_found(ra, na, o->baseline)) {
        char vars[512];
        variant_list(ra, na, vars, sizeof vars);
        fprintf(stderr, "trilap-analyze: invalid --baseline '%s': %s has no such variant (its variants: %s)\n",
                o->baseline, fa, vars);
        rc = 2;
        goto fail;
    }
    TL_TRYGOTO(compare_results(a, ra, na, b, rb, nb, o, t), st, fail);
    TL_TRYGOTO(tl_an_emit(t, o->c.csv), st, fail);
fail:
    free(ra);
    free(rb);
    return rc >= 0 ? rc : st == TL_OK ? 0 : 1;
}

int tl_an_cmd_compare(int argc, char **argv)
{
    cmp_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "baseline", .type = TL_OPT_STRING, .offset = offsetof(cmp_opts, baseline), .def = "two-stream",
         .metavar = "VARIANT", .help = "with one results file: the variant the speedups are over"},
    };
    const tl_optgroup groups[] = {
        {.title = "compare", .opts = own, .nopts = 1, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "compare", .usage = "[options] RUN_A [RUN_B]",
                             .purpose = "Two traced runs (or results CSV files) side by side: iteration time, "
                                        "derived communication, overlap metrics, speedup.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 2};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    const char *a = pr.positional[0], *b = pr.npositional > 1 ? pr.positional[1] : NULL;
    const tl_an_given baseline[] = {{&o.baseline, "baseline", 0}};
    rc = b ? tl_an_refuse_given(spec.program, &pr, baseline, 1,
                                "with two inputs: B is the baseline (--baseline names one variant of a single results "
                                "file)")
           : -1;
    if (rc >= 0) goto fail;
    /* one rank's file is not a run: named as such, with the folder to give,
     * as every other command names it (compare said "a file but no trace
     * (a results file?)") */
    for (int i = 0; i < pr.npositional; i++) {
        const char *slash = strrchr(pr.positional[i], '/');
        if (tl_trace_rank_of_name(slash ? slash + 1 : pr.positional[i]) >= 0)
            TL_TRYGOTO(tl_an_input_kind(pr.positional[i]), st, fail);
    }
    /* a run against itself is its own figures twice, speedup 1 throughout:
     * no question compare answers (it printed that table, exit 0). By the
     * file only: one rank's Kineto trace beside its run's folder is a part
     * beside the whole, two inputs. */
    if ((rc = tl_an_refuse_repeated(spec.program, &pr, "A against itself: the same figures twice, speedup 1", 0)) >= 0)
        goto fail;
    TL_TRYGOTO(tl_an_table_create(&t, "compare"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "compare", a), st, fail);
    if (b && has_traces(a) && has_traces(b)) {
        double xa[NM], xb[NM];
        char ca[512], cb[512], nonea[640], noneb[640];
        size_t na = 0, nb = 0;
        TL_TRYGOTO(trace_metrics(a, &o, xa, &na, ca, sizeof ca, nonea, sizeof nonea), st, fail);
        TL_TRYGOTO(trace_metrics(b, &o, xb, &nb, cb, sizeof cb, noneb, sizeof noneb), st, fail);
        TL_TRYGOTO(tl_an_table_meta(t, "A", "%s", a), st, fail);
        TL_TRYGOTO(tl_an_table_meta(t, "B", "%s", b), st, fail);
        /* each value is its run's slowest rank: of runs at other rank
         * counts, ranks that each had another share of the work */
        TL_TRYGOTO(tl_an_table_meta(t, "ranks", "A %zu, B %zu%s", na, nb,
                                    na == nb ? ""
                                             : " (not the same: each value is the max over its own run's ranks, "
                                               "each of which had another share of the work)"),
                   st, fail);
        TL_TRYGOTO(tl_an_table_meta(t, "clock A", "%s", ca), st, fail);
        TL_TRYGOTO(tl_an_table_meta(t, "clock B", "%s", cb), st, fail);
        TL_TRYGOTO(tl_an_table_meta(t, "values", "max over ranks; iteration_time = median iteration; "
                                                 "comm_calls_per_iter = NCCL kernels and host communication marks "
                                                 "per iteration (per step for trilap-fdtd); speedup = A/B for times"),
                   st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "metric", "", 1), st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "unit", "", 1), st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "A", "", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "B", "", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "B_minus_A", "", 0), st, fail);
        TL_TRYGOTO(tl_an_table_col(t, "A_over_B", "x", 0), st, fail);
        for (int j = 0; j < NM; j++) {
            TL_TRYGOTO(tl_an_table_row(t), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, mnames[j][0]), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, mnames[j][1][0] ? mnames[j][1] : "-"), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, xa[j], 2), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, xb[j], 2), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, xb[j] - xa[j], 2), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, xa[j] / xb[j], 3), st, fail);
        }
        tl_an_table_print(t, stdout);
        /* a zero or missing median has no ratio: "-", as the table's column */
        if (xb[0] > 0 && isfinite(xa[0] / xb[0]))
            printf("# speedup of B over A: %.3fx (iteration time)\n", xa[0] / xb[0]);
        else if (nonea[0] || noneb[0]) /* was "B nan us" */
            printf("# speedup of B over A: - (%s, %s, has no iteration time: %s)\n", nonea[0] ? "A" : "B",
                   nonea[0] ? a : b, nonea[0] ? nonea : noneb);
        else
            printf("# speedup of B over A: - (iteration time: A %.2f us, B %.2f us)\n", xa[0], xb[0]);
        if (o.c.csv) TL_TRYGOTO(tl_an_write_csv(t, "--csv", o.c.csv), st, fail);
    } else {
        rc = compare_files(a, b, &o, &pr, t);
    }
fail:
    tl_an_table_destroy(&t);
    free(pr.positional);
    return rc >= 0 ? rc : st == TL_OK ? 0 : 1;
}
