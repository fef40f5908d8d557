#!/usr/bin/env bash
# Runs every test of the given test binaries, each in its own process under a
# timeout, TAP-style, and ends with "N passed, N failed, N skipped".
# TL_TEST_TIMEOUT (seconds, default 300) bounds one test; TL_TEST_FILTER
# (a grep -E pattern over binary:name) selects tests.
set -uo pipefail
timeout_s=${TL_TEST_TIMEOUT:-300}
filter=${TL_TEST_FILTER:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
logdir=${TL_BUILD:-build}/test-logs
mkdir -p "$logdir"
n=0 passed=0 failed=0 skipped=0
failures=()
for bin in "$@"; do
  [ -x "$bin" ] || { echo "run.sh: $bin: not built" >&2; failed=$((failed + 1)); continue; }
  base=$(basename "$bin")
  names=$("$bin" --list) || { echo "run.sh: $bin --list failed" >&2; failed=$((failed + 1)); continue; }
  for t in $names; do
    if [ -n "$filter" ] && ! grep -qE "$filter" <<<"$base:$t"; then continue; fi
    n=$((n + 1))
    log="$logdir/$base.$t.log"
    start=$(date +%s%N)
    timeout -k 5 "$timeout_s" "$bin" "$t" >"$log" 2>&1
    rc=$?
    cs=$(( ($(date +%s%N) - start) / 10000000 )); secs=$(printf '%d.%02d' $((cs / 100)) $((cs % 100)))
    case $rc in
      0) passed=$((passed + 1)); echo "ok $n - $base:$t (${secs}s)" ;;
      77) skipped=$((skipped + 1)); echo "ok $n - $base:$t # SKIP $(grep -m1 '^SKIP:' "$log" | cut -c7-)" ;;
      124|137) failed=$((failed + 1)); failures+=("$base:$t"); echo "not ok $n - $base:$t # TIMEOUT after ${timeout_s}s"; sed 's/^/#   /' "$log" | tail -n 20 ;;
      *) failed=$((failed + 1)); failures+=("$base:$t"); echo "not ok $n - $base:$t (exit $rc)"; sed 's/^/#   /' "$log" | tail -n 30 ;;
    esac
  done
done
if [ ${#failures[@]} -gt 0 ]; then echo "# failed: ${failures[*]}"; fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
