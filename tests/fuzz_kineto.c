/* libFuzzer target for the PyTorch profiler (Kineto) reader (built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined; run by
 * test_fuzz_kineto). Any input must either load, turn into records and
 * HTA's figures without a sanitizer report, or be refused cleanly: no
 * crash, no leak, nothing left allocated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/kineto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tl_status check(void *user, const tl_trace_record *r)
{
    (void)user;
    if (r->end_ns < r->start_ns) abort(); /* the reader refuses such events */
    return TL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tl_kt_trace *t = NULL;
    if (tl_kt_load_mem("fuzz.json", (const char *)data, size, &t) == TL_OK) {
        tl_an_meta m;
        tl_kt_hta h;
        if (tl_kt_emit(t, check, NULL, &m, NULL) != TL_OK) abort();
        if (tl_kt_hta_compute(t, 1, &h) != TL_OK || tl_kt_hta_compute(t, 0, &h) != TL_OK) abort();
        tl_kt_free(&t);
    } else if (t) {
        abort(); /* a refused trace leaves nothing allocated */
    }
    return 0;
}
