/* The main() of a test helper program: ranks under the launcher, running
 * one scenario (or on one folder) named by the positional argument. */
#ifndef TL_TEST_HELPER_H
#define TL_TEST_HELPER_H

#include <stdlib.h>
#include <string.h>

#include "runtime/launch.h"
#include "runtime/options.h"

typedef struct tl_test_helper {
    const char *program, *usage, *purpose;
    const char *group;         /* the title of the helper's own options */
    const tl_option *options;
    size_t noptions;
    void *opts;                /* what `options` fill */
    tl_launch_opts *lo;        /* what the launch options fill */
    const char **positional;   /* where the one positional argument goes */
    tl_rank_main_fn rank_main; /* called with `opts` */
} tl_test_helper;

/* `--list` prints nothing and exits 0 (the test runner asks every binary it
 * is given); otherwise parse, then run rank_main on every rank. Returns the
 * exit code: 2 for bad arguments. */
static inline int tl_test_helper_main(const tl_test_helper *h, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) return 0;
    const tl_optgroup groups[] = {
        {h->group, h->options, h->noptions, h->opts},
        {"Launch", tl_launch_options, tl_launch_noptions, h->lo},
    };
    const tl_optspec spec = {.program = h->program, .usage = h->usage, .purpose = h->purpose, .groups = groups,
                             .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult res;
    if (tl_opts_parse(&spec, argc, argv, &res) != TL_OK) return 2;
    if (res.exit_now) return 0;
    *h->positional = res.positional[0];
    int rc = tl_launch_run(h->program, h->lo, argc, argv, h->rank_main, h->opts);
    free(res.positional);
    return rc;
}

#endif
