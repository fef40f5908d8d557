#!/usr/bin/env bash
# The two readers session36 changed, fuzzed for 330 s each side by side on
# the 2-core development VM, the fuzz targets built at 230bbb1: fuzz_nsys
# (the Nsight Systems sqlite reader, SQLite now loaded at run time) and
# fuzz_kineto (the PyTorch profiler / Kineto reader on trilap's own JSON
# reader, which the target also checks against its scanner on the raw
# input), through the tests that run them in make check. Each fails on a
# crash, a sanitizer report, a leak or a timeout.
set -eu
export TL_BUILD=build TL_BIN=bin TL_DATA=$(readlink -f ../shared/data)
make -j2 fuzz
TL_FUZZ_SECONDS=330 TL_TEST_TIMEOUT=450 TL_TEST_FILTER=test_fuzz_mmio:fuzz_nsys_bounded \
    tests/run.sh build/tests/test_fuzz_mmio > nsys.txt 2>&1 &
TL_FUZZ_SECONDS=330 TL_TEST_TIMEOUT=450 tests/run.sh build/tests/test_fuzz_kineto > kineto.txt 2>&1
wait
cat nsys.txt kineto.txt
