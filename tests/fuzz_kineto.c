/* libFuzzer target for the PyTorch profiler (Kineto) reader (built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined; run by
 * test_fuzz_kineto). Any input must either load, turn into records and
 * HTA's figures without a sanitizer report, or be refused cleanly: no
 * crash, no leak, nothing left allocated. The JSON reader (json.h) is also
 * given the input as one value, and its end must be found alike whether
 * the input comes whole or in two pieces. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/json.h"
#include "analysis/kineto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tl_status check(void *user, const tl_trace_record *r)
{
    (void)user;
    if (r->end_ns < r->start_ns) abort(); /* the reader refuses such events */
    return TL_OK;
}

static void json_alone(const char *text, size_t size)
{
    tl_json_parser *p = tl_json_parser_create(32);
    if (!p) abort();
    const tl_json *v = NULL;
    tl_json_error err;
    tl_json_result r = tl_json_parse(p, text, size, &v, &err);
    if ((r == TL_JSON_OK) != (v != NULL) || (r != TL_JSON_OK && (err.pos > size || !err.reason))) abort();
    tl_json_scan_state whole, two;
    int done_whole, done_two;
    tl_json_scan_start(&whole);
    size_t n_whole = tl_json_scan(&whole, text, size, &done_whole), half = size / 2;
    tl_json_scan_start(&two);
    size_t n_two = tl_json_scan(&two, text, half, &done_two);
    if (!done_two) {
        if (n_two != half) abort();
        n_two += tl_json_scan(&two, text + half, size - half, &done_two);
    }
    if (n_whole != n_two || done_whole != done_two) abort();
    tl_json_parser_destroy(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_alone((const char *)data, size);
    tl_kt_trace *t = NULL;
    if (tl_kt_load_mem("fuzz.json", (const char *)data, size, &t) == TL_OK) {
        tl_an_meta m;
        tl_kt_hta h;
        if (tl_kt_emit(t, check, NULL, &m, NULL, NULL) != TL_OK) abort();
        if (tl_kt_hta_compute(t, 1, &h) != TL_OK || tl_kt_hta_compute(t, 0, &h) != TL_OK) abort();
        tl_kt_free(&t);
    } else if (t) {
        abort(); /* a refused trace leaves nothing allocated */
    }
    return 0;
}
