/* trilap-analyze sweep RESULTS.csv --x COLUMN: the tristream results of a
 * size sweep as one row per (size, variant): median/min/max us_per_iter over
 * repetitions, the ideal bound max(allreduce-only, ring-only, daxpy-only)
 * at that size, and the overlap efficiency
 * (sum of parts − time) / (sum of parts − max part), as issue 4 defines it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"

typedef struct sw_opts {
    const char *x;
    tl_an_common c;
} sw_opts;

static const char *const parts[3] = {"allreduce-only", "ring-only", "daxpy-only"};

int tl_an_cmd_sweep(int argc, char **argv)
{
    sw_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        {.name = "x", .type = TL_OPT_STRING, .offset = offsetof(sw_opts, x), .def = "ring_bytes", .metavar = "COLUMN",
         .help = "the swept column (ring_bytes, allreduce_bytes, daxpy_bytes)"},
    };
    const tl_optgroup groups[] = {
        {.title = "sweep", .opts = own, .nopts = 1, .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "sweep", .usage = "[options] RESULTS.csv",
                             .purpose = "Per size and variant: median/min/max time per iteration, the ideal bound "
                                        "and the overlap efficiency.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_result *r = NULL;
    size_t n = 0;
    tl_an_table *t = NULL;
    st = tl_an_results_read(pr.positional[0], o.x, &r, &n);
    /* --x naming a column the file lacks: the command line's value does
     * not fit the input, exit 2 as compare's --baseline (it was 1) */
    if (st == TL_ERR_INVAL) rc = 2;
    if (st != TL_OK) goto fail;
    /* grouped by variant (first-seen order), then nranks and size, so a plot
     * that filters one variant draws an unbroken line */
    for (size_t i = 1; i < n; i++) {
        tl_an_result key = r[i];
        size_t vi = 0;
        while (strcmp(r[vi].variant, key.variant)) vi++;
        size_t j = i;
        while (j > 0) {
            size_t vj = 0;
            while (strcmp(r[vj].variant, r[j - 1].variant)) vj++;
            int before = vi < vj || (vi == vj && (key.nranks < r[j - 1].nranks ||
                                                   (key.nranks == r[j - 1].nranks && key.x < r[j - 1].x)));
            if (!before) break;
            r[j] = r[j - 1];
            j--;
        }
        r[j] = key;
    }
    TL_TRYGOTO(tl_an_table_create(&t, "sweep"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "sweep", pr.positional[0]), st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "ideal", "max of the allreduce-only, ring-only and daxpy-only medians at the "
                                           "same size and nranks"),
               st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "efficiency", "(sum of parts - median) / (sum of parts - max part), 100%% = ideal"),
               st, fail);
    TL_TRYGOTO(tl_an_table_meta(t, "wrong", "repetitions whose results failed their check (wrong column not 0), "
                                           "left out of reps, median, min and max"),
               st, fail);
    static const char *const cols[][2] = {{"x", ""}, {"variant", ""}, {"nranks", ""}, {"reps", ""}, {"wrong", ""},
                                          {"median", "us"}, {"min", "us"}, {"max", "us"}, {"ideal", "us"},
                                          {"sum_parts", "us"}, {"efficiency", "%"}};
    for (size_t j = 0; j < 11; j++)
        TL_TRYGOTO(tl_an_table_col(t, j == 0 ? o.x : cols[j][0], cols[j][1], j == 1), st, fail);
    for (size_t i = 0; i < n; i++) {
        double pm[3] = {NAN, NAN, NAN};
        for (size_t k = 0; k < n; k++)
            for (int p = 0; p < 3; p++)
                if (r[k].x == r[i].x && r[k].nranks == r[i].nranks && !strcmp(r[k].variant, parts[p]))
                    pm[p] = r[k].median;
        /* a part not measured at this point leaves no bound: fmax passes
         * over NaN, so ideal was the max of the parts there were while
         * sum_parts said "-" (a file without daxpy-only: ideal 10.064 us,
         * its ring-only median) */
        double sum = pm[0] + pm[1] + pm[2], ideal = isnan(sum) ? NAN : fmax(pm[0], fmax(pm[1], pm[2]));
        double eff = 100 * (sum - r[i].median) / (sum - ideal);
        TL_TRYGOTO(tl_an_table_row(t), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, r[i].x, 0), st, fail);
        TL_TRYGOTO(tl_an_table_str(t, r[i].variant), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].nranks), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].n), st, fail);
        TL_TRYGOTO(tl_an_table_int(t, r[i].wrong), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, r[i].median, 3), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, r[i].min, 3), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, r[i].max, 3), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, ideal, 3), st, fail);
        TL_TRYGOTO(tl_an_table_num(t, sum, 3), st, fail);
        /* a part alone has no overlap to be efficient at */
        int part = strstr(r[i].variant, "-only") != NULL;
        TL_TRYGOTO(tl_an_table_num(t, part || isnan(sum) ? NAN : eff, 1), st, fail);
    }
    TL_TRYGOTO(tl_an_emit(t, o.c.csv), st, fail);
fail:
    tl_an_table_destroy(&t);
    free(r);
    free(pr.positional);
    return rc == 2 ? 2 : st == TL_OK ? 0 : 1;
}
