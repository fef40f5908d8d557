#!/usr/bin/env bash
# The solver part of scripts/device-session.sh: build, the GPU correctness
# tests (tests/gpu/test_gpu_solvers, five cases at a time), then
# scripts/bench-solvers-gpu.sh with what is left of the time, into DEST.
#
#   scripts/device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench]
set -euo pipefail
dest=${1:?usage: device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench]}
total=${2:-280}
case "${3:-all}" in
all) steps=build,solver-tests,solver-bench ;;
--no-tests) steps=build,solver-bench ;;
--no-bench) steps=build,solver-tests ;;
*) echo "device-solvers-gpu.sh: unknown option '$3' (--no-tests|--no-bench)" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/device-session.sh" "$dest" "$total" "$steps"
