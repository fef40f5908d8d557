#!/usr/bin/env bash
# Runs every test of the given test binaries, each in its own process under a
# timeout, TAP-style, and ends with "N passed, N failed, N skipped".
# TL_TEST_TIMEOUT (seconds, default 300) bounds one test; TL_TEST_FILTER
# (a grep -E pattern over binary:name) selects tests; TL_TEST_EXCLUDE (the
# same kind of pattern) drops tests from that selection.
# TL_TEST_JOBS=N (default 1) runs up to N tests at once, but only those
# whose binary:name matches TL_TEST_PARALLEL (a grep -E pattern, default
# none): the others run alone, after everything started before them has
# finished, so tests that must not share the machine (timing, a GPU) keep
# it to themselves. Results print in the order of the list either way.
# The tests' temporary files (their mkdtemp folders, mpirun's session
# files) go under one folder made for the run in TMPDIR (a TMPDIR of its
# own for each test inside it), removed at the
# end when every test passed and kept, named in the last lines, when one
# failed. A run of `make check` left 366 folders and 282 MB in /tmp
# before.
# not -e: a failing test is counted and the others still run
set -uo pipefail
timeout_s=${TL_TEST_TIMEOUT:-300}
filter=${TL_TEST_FILTER:-}
exclude=${TL_TEST_EXCLUDE:-}
jobs=${TL_TEST_JOBS:-1}
parallel=${TL_TEST_PARALLEL:-}
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: invalid TL_TEST_JOBS '$jobs' (a positive integer)" >&2; exit 2 ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
# two tests at a time on two cores: an OpenMP team that spins at its
# barriers (libgomp's default) takes the cores the other test and its own
# ranks' threads wait for; passive threads sleep there instead
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
logdir=${TL_BUILD:-build}/test-logs
mkdir -p "$logdir"
# one folder for the whole run, with one TMPDIR a test inside it: Open
# MPI's session folders of two tests' mpiruns at the same time in one
# TMPDIR collided now and then ("File exists", open-mpi/ompi#8510); the
# lock files that tests running together share (test_gpu_solvers'
# TL_GPU_SLOTS) are in TL_TEST_SHARED, the run's folder. Short names, as
# mpirun puts its sockets' paths under them.
tmp_root=$(mktemp -d "${TMPDIR:-/tmp}/tlt.XXXXXX") ||
  { echo "run.sh: cannot make a temporary folder in ${TMPDIR:-/tmp}" >&2; exit 2; }
export TMPDIR=$tmp_root TL_TEST_SHARED=$tmp_root
# stopped: the tests still running go too (timeout passes the signal on)
stop() {
  local p
  for p in $(jobs -p); do pkill -TERM -P "$p" 2>/dev/null; done
  wait
  rm -rf "$tmp_root"
  exit 130
}
trap stop INT TERM
n=0 passed=0 failed=0 skipped=0
failures=()
# tests started and not yet reported, oldest first: "pid n base t"
queue=()
# seconds (in hundredths) each suite (binary or script) took, and their order
declare -A suite_cs=()
suites=()
# Per test, run.sh starts no process but the test's own (a subshell, mkdir,
# timeout): a date, a grep, a basename and an rm for each of a check's
# ~960 tests were about 100 ms of CPU a test on CI's two cores (200 empty
# tests: 19.6 s), the tests' own time. now_us sets now, in microseconds.
if [ -n "${EPOCHREALTIME:-}" ]; then
  now_us() { now=${EPOCHREALTIME/[.,]/}; }
else
  now_us() { now=$(( $(date +%s%N) / 1000 )); }
fi
now_us
run_start=$now

# A test that ends says its number, exit status and time (hundredths of a
# second) on this pipe (a line is written whole),
# so that the next one starts in its slot at once, whichever ended: a wait
# for the oldest test held every slot while one long test ran (29 s of
# test_structure.sh:builds_with_clang, with the other two slots idle after
# their first test). `wait -n` would miss a test that ended before the wait.
mkfifo "$tmp_root/ended" && exec 3<>"$tmp_root/ended" ||
  { echo "run.sh: cannot make a pipe in $tmp_root" >&2; exit 2; }
running=0
declare -A ended=()

# one test in the background (its TMPDIR made with its binary's)
launch() {
    local bin=$1 t=$2 log=$3
    (
        export TMPDIR=$tmp_root/t$n
        now_us
        start=$now
        timeout -k 5 "$timeout_s" "$bin" "$t" >"$log" 2>&1 3>&-
        rc=$?
        now_us
        echo "$n $rc $(( (now - start) / 10000 ))" >&3
    ) &
    queue+=("$! $n ${bin##*/} $t")
    running=$((running + 1))
}

# wait for any running test to end
wait_one() {
    local k rc cs
    read -r -u 3 k rc cs || { echo "run.sh: the tests' pipe closed" >&2; exit 2; }
    ended[$k]="$rc $cs"
    running=$((running - 1))
}

# wait for the oldest started test and print its line
report_oldest() {
    local pid k base t
    read -r pid k base t <<<"${queue[0]}"
    queue=("${queue[@]:1}")
    wait "$pid"
    local log="$logdir/$base.$t.log" rc cs
    read -r rc cs <<<"${ended[$k]}"
    unset "ended[$k]"
    local secs
    printf -v secs '%d.%02d' $((cs / 100)) $((cs % 100))
    [ -n "${suite_cs[$base]+x}" ] || { suite_cs[$base]=0; suites+=("$base"); }
    suite_cs[$base]=$((suite_cs[$base] + cs))
    case $rc in
      0) passed=$((passed + 1)); echo "ok $k - $base:$t (${secs}s)" ;;
      77) skipped=$((skipped + 1)); echo "ok $k - $base:$t # SKIP $(grep -m1 '^SKIP:' "$log" | cut -c7-)" ;;
      124|137) failed=$((failed + 1)); failures+=("$base:$t"); echo "not ok $k - $base:$t # TIMEOUT after ${timeout_s}s"; sed 's/^/#   /' "$log" | tail -n 20 ;;
      *) failed=$((failed + 1)); failures+=("$base:$t"); echo "not ok $k - $base:$t (exit $rc)"; sed 's/^/#   /' "$log" | tail -n 30 ;;
    esac
}

# print the tests that ended, in the list's order (up to the first still running)
report_ended() {
    local pid k rest
    while [ ${#queue[@]} -gt 0 ]; do
        read -r pid k rest <<<"${queue[0]}"
        [ -n "${ended[$k]+x}" ] || return 0
        report_oldest
    done
}

drain() {
    while [ "$running" -gt 0 ]; do wait_one; done
    report_ended
}

for bin in "$@"; do
  [ -x "$bin" ] || { drain; echo "run.sh: $bin: not built" >&2; failed=$((failed + 1)); continue; }
  base=${bin##*/}
  names=$("$bin" --list) || { drain; echo "run.sh: $bin --list failed" >&2; failed=$((failed + 1)); continue; }
  selected=()
  for t in $names; do
    if [ -n "$filter" ] && ! [[ $base:$t =~ $filter ]]; then continue; fi
    if [ -n "$exclude" ] && [[ $base:$t =~ $exclude ]]; then continue; fi
    selected+=("$t")
  done
  # the selected tests' TMPDIRs, t<n> in the run's folder, in one mkdir
  dirs=()
  for ((i = n + 1; i <= n + ${#selected[@]}; i++)); do dirs+=("$tmp_root/t$i"); done
  [ ${#dirs[@]} -eq 0 ] || mkdir "${dirs[@]}" || { echo "run.sh: cannot make the tests' folders in $tmp_root" >&2; exit 2; }
  for t in "${selected[@]}"; do
    n=$((n + 1))
    if [ "$jobs" -gt 1 ] && [ -n "$parallel" ] && [[ $base:$t =~ $parallel ]]; then
      while [ "$running" -ge "$jobs" ]; do wait_one; done
      report_ended
      launch "$bin" "$t" "$logdir/$base.$t.log"
    else
      drain
      launch "$bin" "$t" "$logdir/$base.$t.log"
      drain
    fi
  done
done
drain
# where the time went: every suite, slowest first, then the whole run
if [ ${#suites[@]} -gt 0 ]; then
  echo "# time per suite (s):"
  for b in "${suites[@]}"; do printf '%d %s\n' "${suite_cs[$b]}" "$b"; done | sort -rn |
    while read -r cs b; do printf '#   %8d.%02d  %s\n' $((cs / 100)) $((cs % 100)) "$b"; done
  now_us
  total=$(( (now - run_start) / 10000 ))
  printf '#   %8d.%02d  total (wall)\n' $((total / 100)) $((total % 100))
fi
if [ "$failed" -eq 0 ]; then
  rm -rf "$tmp_root"
else
  echo "# the tests' temporary files are kept in $tmp_root"
fi
if [ ${#failures[@]} -gt 0 ]; then echo "# failed: ${failures[*]}"; fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
