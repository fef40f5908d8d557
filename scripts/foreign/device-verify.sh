#!/usr/bin/env bash
# The second lent H200 call of issue 13: the finished injection + analysis
# against fresh runs. Builds the injection library, trilap-analyze and the
# GPU probes test; runs test_gpu_probes (inject_analysed: the injected
# helper through every command); the PyTorch and CuPy programs with
# --iters 2000 untraced and traced, alternating, REPS times (overhead of a
# 1 s loop); every analysis command on the first traced run of each; the
# clock-alignment test under mpirun. Everything in OUT/verify.tar.gz,
# which the last line names.
#   scripts/foreign/device-verify.sh OUT [BUDGET_SECONDS=280]
# It needs a GPU (nvidia-smi -L lists one), make, mpirun and PyTorch
# (python3 -c 'import torch'): where one is missing it says so in one line
# and exits 1 before OUT is made. The CuPy steps are optional: where CuPy
# does not import they are skipped, a line saying so. Every other step is
# required: one that fails, or that the budget leaves no time for, is
# named in the last line, exit 1 (before, exit 0 whatever failed), the
# other steps' files still in OUT/verify.tar.gz.
# REPS: the untraced and traced runs of each program [4].

# not -e: each step is bounded and logged, and a failed one must not stop the others
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# OUT was a variable and $1 the budget, unlike device-run.sh OUT [BUDGET]:
# `device-verify.sh OUT` was refused as a bad budget
. "$(dirname "$0")/steps.sh" # steps_args, left, step, steps_need, steps_end
steps_args device-verify.sh "$@" # out, budget
REPS=${REPS:-4}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "device-verify.sh: invalid REPS '$REPS': a positive integer" >&2; exit 2; }
steps_need device-verify.sh "$out" gpu make mpirun torch
progs="torch cupy"
python3 -c 'import cupy' >/dev/null 2>&1 || progs=torch
start=$(date +%s)
d=$(mktemp -d)/verify
why=$(mkdir -p -- "$d" "$out" 2>&1) || { echo "device-verify.sh: OUT $out: cannot be made (${why##*: })" >&2; exit 1; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
INJ=$PWD/build/lib/libtrilap-inject.so
cat .trilap-commit > "$d/commit.txt" 2>/dev/null
step build 150 make -j16 CUDA_ARCH=90 bin/trilap-analyze bin/trilap-bench build/lib/libtrilap-inject.so \
  build/tests/helper_inject_target build/tests/test_gpu_probes build/tests/test_clock_align build/tests/helper_clock_skew
tail -n 3 "$d/build.log"
step gpu-probes 80 env TL_TEST_TIMEOUT=40 TL_BUILD=build TL_BIN=bin tests/run.sh build/tests/test_gpu_probes
grep -E '^(ok|not ok|[0-9]+ passed)' "$d/gpu-probes.log"
cp build/test-logs/test_gpu_probes.inject_analysed.log "$d/" 2>/dev/null
step clock-align 40 env TL_BUILD=build TL_BIN=bin TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) tests/run.sh build/tests/test_clock_align
grep -E '^(ok|not ok|[0-9]+ passed)' "$d/clock-align.log"
cp build/test-logs/test_clock_align.*.log "$d/" 2>/dev/null
[ "$progs" != torch ] ||
  echo "== cupy: its steps skipped: CuPy does not import here (optional)" | tee -a "$d/steps.txt"
for r in $(seq 1 "$REPS"); do
  for prog in $progs; do
    step $prog-plain-$r 40 python3 scripts/foreign/${prog}_prog.py --iters 2000
    step $prog-inject-$r 40 env CUDA_INJECTION64_PATH=$INJ TRILAP_TRACE_DIR=$d/$prog-inject-$r \
      python3 scripts/foreign/${prog}_prog.py --iters 2000
  done
done
grep -h -E 'prog:' "$d"/*-plain-*.log "$d"/*-inject-*.log
for prog in $progs; do
  t=$d/$prog-inject-1
  [ -f "$t/trace.rank0.csv" ] || continue
  for c in breakdown overlap diagnose; do step an-$prog-$c 20 bin/trilap-analyze $c "$t"; done
  step an-$prog-timeline 20 bin/trilap-analyze timeline "$t" -o "$t/timeline.csv"
  step an-$prog-perfetto 30 bin/trilap-analyze perfetto "$t" -o "$t/perfetto.json"
  gzip -9 "$t/trace.rank0.csv" "$t/perfetto.json" "$t/timeline.csv" 2>/dev/null
done
for r in $(seq 2 "$REPS"); do rm -rf "$d"/*-inject-$r; done
echo "== total $(( $(date +%s) - start ))s" | tee -a "$d/steps.txt"
# under a temporary name, renamed once whole: a run cut short leaves no cut tarball
tar -C "$(dirname "$d")" -czf "$out/verify.part$$.tar.gz" verify &&
  mv -f -- "$out/verify.part$$.tar.gz" "$out/verify.tar.gz" ||
  { rm -f -- "$out/verify.part$$.tar.gz"; steps_failed+=("the tarball (tar failed)"); }
ls -la "$out"
steps_end device-verify.sh "$out/verify.tar.gz"
