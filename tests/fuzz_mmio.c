/* libFuzzer target for the Matrix Market reader (built by `make fuzz` with
 * clang -fsanitize=fuzzer,address,undefined; run by test_fuzz_mmio). Any
 * input must either parse into a valid CSR or fail cleanly: no crash, no
 * sanitizer report, no leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "solvers/matrix/mmio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tl_csr a;
    tl_mm_info info;
    /* bounded dimensions: a header may declare any size, and the reader
     * must refuse rather than allocate it */
    if (tl_mm_parse_csr("fuzz.mtx", (const char *)data, size, 0, 1 << 16, &a, &info) == TL_OK) {
        if (tl_csr_check(&a, "fuzz.mtx") != TL_OK || a.nrows != info.nrows || a.ncols != info.ncols)
            abort();
        tl_csr_free(&a);
    } else if (a.rowptr || a.colidx || a.val) {
        abort(); /* a failed parse leaves nothing allocated */
    }
    return 0;
}
