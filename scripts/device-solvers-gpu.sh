#!/usr/bin/env bash
# The solver part of scripts/device-session.sh: build, the GPU correctness
# tests (tests/gpu/test_gpu_solvers as make check-gpu runs them: 4 cases at
# a time, GPU runs taking turns), then the paper's protocol
# (scripts/bench-solvers-protocol.sh --breakdown) with what is left of the
# time, into DEST; --rates: scripts/bench-solvers-gpu.sh (SpMV and update
# rates, kernel sweeps) instead of the protocol.
#
#   scripts/device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench|--rates]
set -euo pipefail
dest=${1:?usage: device-solvers-gpu.sh DEST [TOTAL_SECONDS] [--no-tests|--no-bench|--rates]}
total=${2:-280}
case "${3:-all}" in
all) steps=build,solver-tests,solver-protocol ;;
--no-tests) steps=build,solver-protocol ;;
--no-bench) steps=build,solver-tests ;;
--rates) steps=build,solver-tests,solver-bench ;;
*) echo "device-solvers-gpu.sh: unknown option '$3' (--no-tests|--no-bench|--rates)" >&2; exit 2 ;;
esac
exec "$(dirname "$0")/device-session.sh" "$dest" "$total" "$steps"
