#!/usr/bin/env bash
# The four libFuzzer targets for 330 s each instead of make check's few
# seconds (session31, on the 2-core development VM, beside other work),
# run from the repository root, the fuzz targets built at 1d4b629 (the
# readers as session31 left them but for gzin's folder refusal, 14ac1c9),
# through the tests that run them in make check:
#   test_fuzz_mmio  fuzz_mmio (Matrix Market reader), fuzz_trace (trace
#                   reader and a run folder's rank set), fuzz_nsys (Nsight
#                   Systems sqlite reader)
#   test_fuzz_kineto  fuzz_kineto (PyTorch profiler / Kineto JSON reader)
# Each fails on a crash, a sanitizer report, a leak or a timeout.
set -eu
export TL_BUILD=build TL_BIN=bin TL_DATA=$(readlink -f ../shared/data)
make -j2 fuzz
for t in test_fuzz_mmio test_fuzz_kineto; do
    TL_FUZZ_SECONDS=330 TL_TEST_TIMEOUT=450 tests/run.sh build/tests/$t
done
