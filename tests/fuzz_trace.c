/* libFuzzer target for the trace reader and a run folder's rank set (built
 * by `make fuzz` with clang -fsanitize=fuzzer,address,undefined; run by
 * test_fuzz_mmio). The input is one to four files separated by lines
 * "@@ NAME", NAME one of the rank file names below (a bad one included):
 * each is written to a fresh folder, which tl_an_run_files lists and
 * tl_an_rank_load reads. Any input is read whole or refused cleanly: no
 * crash, no sanitizer report, no leak; an accepted folder holds ranks
 * 0..n-1, each once. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "runtime/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"trace.rank0.csv", "trace.rank1.csv", "trace.rank2.csv", "trace.rank01.csv"};

static char dir[64];

static void remove_dir(void)
{
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-trace-XXXXXX");
        if (!mkdtemp(dir)) abort();
        atexit(remove_dir);
        tl_log_set_prefix("fuzz_trace", -1);
    }
    /* split into files: "@@ k\n" starts file k (0..3); text before the
     * first marker is rank 0's */
    const char *p = (const char *)data, *end = p + size;
    int which = 0, written[4] = {0};
    while (p <= end) {
        const char *m = NULL;
        for (const char *q = p; q + 4 <= end; q++)
            if (q[0] == '@' && q[1] == '@' && q[2] == ' ' && (q == p || q[-1] == '\n')) {
                m = q;
                break;
            }
        const char *stop = m ? m : end;
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[which]);
        FILE *f = fopen(path, written[which] ? "ab" : "wb");
        if (!f) abort();
        fwrite(p, 1, (size_t)(stop - p), f);
        fclose(f);
        written[which] = 1;
        if (!m) break;
        which = (m[3] - '0') & 3;
        p = m + 4;
        while (p < end && *p != '\n') p++;
        if (p < end) p++;
    }
    for (int flags = 0; flags < 2; flags++) {
        char **files = NULL;
        size_t n = 0;
        int fl = flags ? TL_TRACE_ACCEPT_INCOMPLETE : 0;
        if (tl_an_run_files(dir, fl, &files, &n) == TL_OK) {
            if (!flags)
                for (size_t k = 0; k < n; k++) {
                    char want[128];
                    snprintf(want, sizeof want, "%s/trace.rank%zu.csv", dir, k);
                    if (strcmp(files[k], want) != 0) abort(); /* ranks 0..n-1, each once */
                }
            tl_an_names *nm = NULL;
            if (tl_an_names_create(&nm) != TL_OK) abort();
            for (size_t k = 0; k < n; k++) {
                tl_an_rank rk;
                if (tl_an_rank_load(files[k], fl, nm, &rk) == TL_OK) {
                    for (size_t i = 0; i < rk.n; i++)
                        if (rk.v[i].end < rk.v[i].start) abort();
                    tl_an_rank_free(&rk);
                }
            }
            tl_an_names_destroy(&nm);
            tl_an_run_files_free(&files, n);
        } else if (files) {
            abort(); /* a refusal leaves nothing allocated */
        }
    }
    for (int k = 0; k < 4; k++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        unlink(path);
    }
    return 0;
}
