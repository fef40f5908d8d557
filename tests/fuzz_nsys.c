/* libFuzzer target for the Nsight Systems sqlite reader (built by `make
 * fuzz` with clang -fsanitize=fuzzer,address,undefined; run by
 * test_fuzz_mmio from a corpus of small exports). The input is the export
 * file itself. Any input is read or refused cleanly: no crash, no
 * sanitizer report, no leak; every record read is possible (ends at or
 * after its start, times within the trace format's range). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "runtime/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tl_status check_record(void *user, const tl_trace_record *r)
{
    (void)user;
    if (r->end_ns < r->start_ns || r->start_ns < -TL_TRACE_MAX_NS || r->end_ns > TL_TRACE_MAX_NS || !r->name)
        abort();
    return TL_OK;
}

static char path[64], dir[64];

static void remove_dir(void)
{
    rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz-nsys-XXXXXX");
        if (!mkdtemp(dir)) abort();
        atexit(remove_dir);
        snprintf(path, sizeof path, "%s/x.sqlite", dir);
        tl_log_set_prefix("fuzz_nsys", -1);
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, size, f);
    fclose(f);
    int nr = 0;
    if (tl_an_nsys_ranks(path, &nr) == TL_OK)
        for (int r = 0; r < nr && r < 4; r++) {
            tl_an_meta meta;
            (void)tl_an_nsys_scan(path, r, NULL, check_record, NULL, &meta, NULL);
        }
    unlink(path);
    return 0;
}
