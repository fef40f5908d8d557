#!/usr/bin/env bash
# Issue 27, point 5, on a lent GPU: scripts/foreign/torch_kineto.py (two
# CUDA streams, GEMMs, copies, all-reduces on a one-rank NCCL group) run
# twice, the same 20 steps seen by torch.profiler (Kineto JSON) and by
# trilap's injection library (CUDA_INJECTION64_PATH), then compared per
# kernel by kineto_compare.py (counts and totals within 5 %) and analysed
# (overlap --hta, breakdown --hta, overlap --per-iter, collectives) where
# this machine's trilap-analyze reads the gzipped Kineto trace (built with
# zlib); otherwise the comparison is left to
# `scripts/foreign/device-kineto.sh --compare DIR` on a machine that has it. Everything lands in $OUT/kineto-h200.
#   scripts/foreign/device-kineto.sh            (on the GPU machine)
#   scripts/foreign/device-kineto.sh --compare results/kineto-h200

# not -e: the comparison's exit status is kept and the analyses still run (rc below)
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
an=$root/bin/trilap-analyze
compare() { # compare DIR: needs bin/trilap-analyze built with zlib
  local d=$1
  [ -f "$d/inject/trace.rank0.csv" ] || gzip -dk "$d/inject/trace.rank0.csv.gz"
  python3 "$root/scripts/foreign/kineto_compare.py" "$d/torch-kineto.rank0.json.gz" "$d/inject" "$d/window.json" \
    "$d/compare" --analyze "$an" > "$d/compare.txt" 2>&1
  local rc=$?
  rm -rf "$d/compare/inject-window"
  for c in "overlap --hta" "breakdown --hta" "overlap --per-iter" collectives; do
    # shellcheck disable=SC2086
    "$an" $c "$d/torch-kineto.rank0.json.gz" > "$d/kineto-${c// /_}.txt" 2>&1
  done
  "$an" breakdown "$d/inject" > "$d/inject-breakdown.txt" 2>&1
  rm -f "$d/inject/trace.rank0.csv"
  cat "$d/compare.txt"
  return $rc
}
if [ "${1:-}" = "--compare" ]; then compare "${2:?usage: ${0##*/} --compare DIR}"; exit; fi
out=${OUT:-device-out}/kineto-h200
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
{ nvidia-smi -L; python3 -c 'import torch;print("torch",torch.__version__,"cuda",torch.version.cuda,"nccl",torch.cuda.nccl.version())';
  cat "$root/.trilap-commit" 2>/dev/null; } > "$out/machine.txt" 2>&1
make -C "$root" -j16 CUDA_ARCH=90 build/lib/libtrilap-inject.so bin/trilap-analyze > "$out/build.log" 2>&1 ||
  { tail -n 20 "$out/build.log"; exit 1; }
rm -rf "$out/inject" "$out"/torch-kineto.rank0.json*
timeout 300 python3 "$root/scripts/foreign/torch_kineto.py" --profile "$out/torch-kineto.rank0.json" --steps 20 \
  > "$out/profile.log" 2>&1 || { tail -n 20 "$out/profile.log"; exit 1; }
gzip -9 "$out/torch-kineto.rank0.json"
timeout 300 env CUDA_INJECTION64_PATH="$root/build/lib/libtrilap-inject.so" TRILAP_TRACE_DIR="$out/inject" \
  python3 "$root/scripts/foreign/torch_kineto.py" --window "$out/window.json" --steps 20 > "$out/inject.log" 2>&1 ||
  { tail -n 20 "$out/inject.log"; exit 1; }
cat "$out/profile.log" "$out/inject.log" | grep -E 'torch_kineto:|trilap-inject'
gzip -9k "$out/inject/trace.rank0.csv"
rc=0
if "$an" overlap --hta "$out/torch-kineto.rank0.json.gz" > /dev/null 2>&1; then
  compare "$out"; rc=$?
else
  echo "kineto-h200: this trilap-analyze reads no Kineto traces (built without zlib): run" \
       "scripts/foreign/device-kineto.sh --compare DIR on the fetched folder"
  rm -f "$out/inject/trace.rank0.csv"
fi
ls -la "$out" "$out/inject"
exit $rc
