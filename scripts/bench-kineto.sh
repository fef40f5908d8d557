#!/usr/bin/env bash
# Size and speed of the PyTorch profiler (Kineto) reader: a trace of MB
# megabytes made from a shared one (tests/helper_kineto_big: its events
# repeated, shifted in time), plain and gzip-compressed, analysed by
# `overlap --hta`, `overlap` and `collectives`; prints per run the seconds,
# the rate in MB/s of uncompressed JSON, the peak resident memory and its
# ratio to the uncompressed size (issue 27 asks for at most 2).
#
#   scripts/bench-kineto.sh [MB [SRC.json.gz]]        (defaults: 200, trace_filter rank 0)
#
# SRC by default: $TL_DATA/kineto/trace_filter/sampled_rank-0.json.gz, TL_DATA
# the shared data folder [../shared/data beside the checkout], as for the
# tests and bench-solvers-protocol.sh. TL_BIN, TL_BUILD: where trilap-analyze
# and the test helper are [bin, build] (make all tests builds both); OUT: the
# folder for the traces and outputs, kept [a new one under TMPDIR, removed
# at the end, whether the run succeeds or fails].
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
mb=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
data=${TL_DATA:-$root/../shared/data}
src=${2:-$data/kineto/trace_filter/sampled_rank-0.json.gz}
[[ $mb =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid MB '$mb': a positive integer (try --help)" >&2; exit 2; }
[ $# -le 2 ] || { echo "${0##*/}: invalid argument '$3': at most MB and SRC (try --help)" >&2; exit 2; }
an=${TL_BIN:-$root/bin}/trilap-analyze
big=${TL_BUILD:-$root/build}/tests/helper_kineto_big
for x in "$an" "$big"; do [ -x "$x" ] || { echo "${0##*/}: $x not built (make all tests builds it)" >&2; exit 1; }; done
if [ ! -f "$src" ]; then
  [ $# -ge 2 ] && { echo "${0##*/}: $src: no such trace" >&2; exit 1; }
  echo "${0##*/}: $src: no such trace (set TL_DATA to the shared data folder, or give SRC)" >&2; exit 1
fi
command -v /usr/bin/time >/dev/null || [ -x /usr/bin/time ] || { echo "${0##*/}: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
. "$root/scripts/parts.sh"
# a scratch folder of its own goes at the end, whatever the outcome: the
# traces are made again in seconds (before, ~2.1 MB per MB, 420 MB at the
# default size, stayed in TMPDIR after every run); an OUT given is kept
scratch=""
if [ -n "${OUT:-}" ]; then
  out=$OUT
  mkdir -p "$out"
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/trilap-kineto-bench-XXXXXX")
  scratch=$out
fi
finish() {
  local rc=$?
  parts_drop
  [ -n "$scratch" ] || return 0
  rm -rf -- "$scratch"
  [ "$rc" = 0 ] || echo "${0##*/}: stopped (exit $rc); its scratch folder $scratch removed (OUT=DIR keeps the traces)" >&2
}
trap finish EXIT
"$big" "$src" "$out/big.json" "$mb"
parts_stage gz "$out/big.json.gz"
gzip -1 -c "$out/big.json" > "$gz"
parts_commit
bytes=$(stat -c %s "$out/big.json")
printf '# Kineto reader: %s (%.1f MB uncompressed, %.1f MB gzip) from %s on %s, %s\n' "$out/big.json" \
  "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$(stat -c %s "$out/big.json.gz")" 'BEGIN { print b / 1e6 }')" \
  "$(basename "$src")" "$(uname -n)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf '%-12s %-14s %8s %8s %9s %9s\n' input command seconds MB_s rss_MB rss_ratio
for input in big.json big.json.gz; do
  for cmd in "overlap --hta" overlap collectives; do
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %M' -o "$out/time" "$an" $cmd "$out/$input" > "$out/out.txt"
    read -r sec kb < "$out/time"
    awk -v i="$input" -v c="$cmd" -v s="$sec" -v k="$kb" -v b="$bytes" 'BEGIN {
      printf "%-12s %-14s %8.2f %8.1f %9.1f %9.3f\n", i, c, s, b / 1e6 / (s > 0 ? s : 1e-9), k / 1024, k * 1024 / b }'
  done
done
