#!/usr/bin/env bash
# session42's host figures: the user-visible changes, each command with its
# output and exit status; run from the repository root after `make`, with
# ../shared/data as TL_DATA (bash results/wave3-host/session42-checks/command.sh > output.txt 2>&1)
set -u
export LC_ALL=C
data=${TL_DATA:-../shared/data}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
say() { printf '\n$ %s\n' "$*"; "$@" 2>&1; echo "[exit $?]"; }
echo "tree: $(git rev-parse --short=12 HEAD)"
# a trace of 1 of 8 ranks (Kineto) named as such; waiting not claimed
say sh -c "bin/trilap-analyze overlap $data/kineto/trace_diff_control | grep -E '^# (ranks|waiting)'"
say sh -c "bin/trilap-analyze diagnose $data/kineto/trace_diff_control | grep -E 'late-ranks\\]'"
# host-staged exchanges in breakdown on GPU ranks; staging copies over the selection; guessed owners said
say sh -c "bin/trilap-analyze breakdown results/multirank-h200/pcg-threads-r2 | grep -E 'host-comm|staged|# note'"
say sh -c "bin/trilap-analyze diagnose results/multirank-h200/pcg-threads-r2 --iter-range 100:110 | grep -E 'staging copies'"
say sh -c "bin/trilap-analyze diagnose results/multirank-h200/pcg-threads-r4 | grep -m1 'most delayed'"
# derived_comm negative where compute kernels ran at once: kept, said
say sh -c "bin/trilap-analyze overlap results/fdtd-h200/bench/pencil-nccl | grep -E 'derived_comm < 0|^  0 '"
# gzip inside gzip refused by every reader; results read gzip'd
bin/trilap-matgen poisson7 4 "$t/p.mtx" > /dev/null 2>&1
gzip -c "$t/p.mtx" | gzip -c > "$t/p.mtx.gz"
say bin/trilap-matgen info "$t/p.mtx.gz"
: > "$t/r.csv.gz"
say bin/trilap-analyze sweep "$t/r.csv.gz"
# trilap-fdtd: thread ranks' memory added up, one line; the CFL excess shown
say bin/trilap-fdtd run --grid 4096x4096x4096 --steps 1 --launcher threads --ranks 4 --no-gpu --decomp 1x2x2
say bin/trilap-fdtd run --grid 16 --steps 2 --cpml 0 --dt 0.4489
# trilap-model: tristream's platform names the calibration's GPU
say sh -c "bin/trilap-model tristream | grep '^# platform'"
# the Kineto reader linear in NCCL kernels: the test's own figures (4x the kernels, time within 8x)
say sh -c "build/tests/test_kineto nccl_kernels_read_in_linear_time 2>&1 | grep -E 'NCCL kernels'"
# an exported platform predicts with its own GPU: the file and the built-in alike
bin/trilap-model platform --platform h100-ndr --gpus 4 --out "$t/p.xml" > /dev/null 2>&1
say sh -c "bin/trilap-model solver --platform-file $t/p.xml --gpus 4 --matrix gen:poisson7:128 --schedules two-stream | grep -E '^ +4 +two-stream|as the file names it'"
say sh -c "bin/trilap-model solver --platform h100-ndr --gpus 4 --matrix gen:poisson7:128 --schedules two-stream | grep -E '^ +4 +two-stream'"
# posts wait for nobody: a 4-rank host run's waiting, by operation
bin/trilap-solve --launcher threads --ranks 4 --no-gpu --trace "$t/th4" gen:poisson7:32 > /dev/null 2>&1
say sh -c "bin/trilap-analyze overlap $t/th4 | grep -E 'halo_post|halo_wait' | head -8"
