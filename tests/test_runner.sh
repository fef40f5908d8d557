#!/usr/bin/env bash
# tests/run.sh itself, on a stand-in test binary (a script answering
# `--list` and running one NAME), driven as run.sh drives the C tests:
# `--list`, then one NAME (exit 0 pass, 1 fail, 77 skip).
#   temporaries_go_after_a_pass    the run's folder in TMPDIR (each test's
#                                  TMPDIR inside it) is gone when every
#                                  test passed
#   temporaries_stay_after_a_fail  and kept, and named, when one failed;
#                                  each test had a TMPDIR of its own there
#                                  (Open MPI's session folders of two
#                                  mpiruns in one TMPDIR collided), and
#                                  TL_TEST_SHARED was the run's folder
#   a_slow_test_holds_one_slot     a long test holds its slot alone: the
#                                  next tests run in the other slots
#                                  while it runs, and print after it, in
#                                  the list's order (run.sh waited for the
#                                  oldest test before starting another,
#                                  so one 29 s test held every slot)
#   no_process_per_test            run.sh starts no command of its own
#                                  for each test but the `timeout` that
#                                  runs it: a date (two), a grep, a
#                                  basename, a mkdir and an rm a test were
#                                  ~100 ms of CPU each on CI's 2 cores
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tests="temporaries_go_after_a_pass temporaries_stay_after_a_fail a_slow_test_holds_one_slot no_process_per_test"
fail() { echo "FAIL: $*" >&2; exit 1; }

# A probe folder with a stand-in binary whose tests `ok` and `bad` each
# leave a mkdtemp folder under TMPDIR and write down which TMPDIR and
# TL_TEST_SHARED they saw;
# `bad` exits 1 when BAD_FAILS=1. Prints the probe's path.
probe_with_fake() {
    local probe
    probe=$(mktemp -d "${TMPDIR:-/tmp}/tl_runner.XXXXXX")
    mkdir "$probe/tmp"
    cat >"$probe/fake" <<'EOF'
#!/usr/bin/env bash
set -eu
[ "$1" = --list ] && { echo "ok bad"; exit 0; }
d=$(mktemp -d "$TMPDIR/left.XXXXXX")
echo "$TMPDIR" >"$d/saw"
echo "$TL_TEST_SHARED" >"$d/shared"
[ "$1" = bad ] && [ "${BAD_FAILS:-0}" = 1 ] && exit 1
exit 0
EOF
    chmod +x "$probe/fake"
    echo "$probe"
}

# run.sh on a fresh probe's binary (in $probe, removed on exit), two tests
# at a time, TMPDIR in the probe, with BAD_FAILS=$1; its last line must be $2
probe=
trap '[ -z "$probe" ] || rm -rf "$probe"' EXIT
run_fake() {
    probe=$(probe_with_fake)
    BAD_FAILS=$1 TMPDIR=$probe/tmp TL_BUILD=$probe/build TL_TEST_JOBS=2 TL_TEST_PARALLEL=. \
        "$top/tests/run.sh" "$probe/fake" >"$probe/out" 2>&1 || true
    grep -qx "$2" "$probe/out" || fail "run.sh said: $(tail -n 3 "$probe/out")"
}

temporaries_go_after_a_pass() {
    run_fake 0 "2 passed, 0 failed, 0 skipped"
    local left
    left=$(ls -A "$probe/tmp")
    [ -z "$left" ] || fail "left in TMPDIR after every test passed: $left"
}

temporaries_stay_after_a_fail() {
    run_fake 1 "1 passed, 1 failed, 0 skipped"
    local kept
    kept=$(ls -d "$probe"/tmp/tlt.* 2>/dev/null) || fail "no run folder kept in TMPDIR: $(ls -A "$probe/tmp")"
    [ "$(echo "$kept" | wc -l)" -eq 1 ] || fail "more than one run folder: $kept"
    grep -qx "# the tests' temporary files are kept in $kept" "$probe/out" ||
        fail "the kept folder is not named: $(tail -n 4 "$probe/out")"
    # both tests' folders are there, each in a TMPDIR of its own inside
    # the run's folder, and both saw the run's folder as TL_TEST_SHARED
    local saws shared
    [ "$(ls -d "$kept"/t*/left.* | wc -l)" -eq 2 ] || fail "not both tests' folders in $kept: $(ls -AR "$kept")"
    saws=$(cat "$kept"/t*/left.*/saw | sort -u)
    [ "$(echo "$saws" | wc -l)" -eq 2 ] && [ -z "$(echo "$saws" | grep -v "^$kept/t[0-9]*\$")" ] ||
        fail "the tests saw TMPDIR '$saws', not one folder each in $kept"
    shared=$(cat "$kept"/t*/left.*/shared | sort -u)
    [ "$shared" = "$kept" ] || fail "the tests saw TL_TEST_SHARED '$shared', not the run's folder $kept"
}

# `slow` passes once `q3`, three tests after it, has run (it gives up
# after 20 s): two slots, so q1, q2 and q3 must run in the second one
# while slow holds the first
a_slow_test_holds_one_slot() {
    probe=$(mktemp -d "${TMPDIR:-/tmp}/tl_runner.XXXXXX")
    cat >"$probe/fake" <<'EOF'
#!/usr/bin/env bash
set -eu
case $1 in
    --list) echo "slow q1 q2 q3" ;;
    slow) for _ in $(seq 400); do [ -e "$TL_TEST_SHARED/q3.done" ] && exit 0; sleep 0.05; done; exit 1 ;;
    *) touch "$TL_TEST_SHARED/$1.done" ;;
esac
EOF
    chmod +x "$probe/fake"
    mkdir "$probe/tmp"
    TMPDIR=$probe/tmp TL_BUILD=$probe/build TL_TEST_JOBS=2 TL_TEST_PARALLEL=. "$top/tests/run.sh" "$probe/fake" >"$probe/out" 2>&1 || true
    local said
    said=$(grep -E '^(not )?ok ' "$probe/out" | sed 's/ (.*//' | paste -sd, -)
    [ "$said" = "ok 1 - fake:slow,ok 2 - fake:q1,ok 3 - fake:q2,ok 4 - fake:q3" ] ||
        fail "run.sh said '$said' (q1-q3 did not run while slow did, or printed out of order): $(tail -n 3 "$probe/out")"
    grep -qx "4 passed, 0 failed, 0 skipped" "$probe/out" || fail "run.sh said: $(tail -n 3 "$probe/out")"
}

# run.sh on 40 tests that do nothing, every command it may start on PATH
# as a stand-in that counts its calls: `timeout` 40 times (each test's
# own), the others a few times for the whole run
no_process_per_test() {
    probe=$(mktemp -d "${TMPDIR:-/tmp}/tl_runner.XXXXXX")
    mkdir "$probe/bin" "$probe/tmp"
    local c real counts others
    for c in basename cat cut date grep mkdir mkfifo mktemp rm sed seq sleep sort tail tee timeout tr wc; do
        real=$(command -v "$c") || continue
        printf '#!/bin/sh\necho %s >>"%s/calls"\nexec %s "$@"\n' "$c" "$probe" "$real" >"$probe/bin/$c"
        chmod +x "$probe/bin/$c"
    done
    printf '#!/bin/sh\n[ "$1" = --list ] && echo %s\nexit 0\n' "$(printf 't%d ' $(seq 40))" >"$probe/fake"
    chmod +x "$probe/fake"
    PATH=$probe/bin:$PATH TMPDIR=$probe/tmp TL_BUILD=$probe/build TL_TEST_JOBS=2 TL_TEST_PARALLEL=. \
        "$top/tests/run.sh" "$probe/fake" >"$probe/out" 2>&1 || true
    grep -qx "40 passed, 0 failed, 0 skipped" "$probe/out" || fail "run.sh said: $(tail -n 3 "$probe/out")"
    counts=$(sort "$probe/calls" | uniq -c | awk '{ printf "%s %s, ", $2, $1 }')
    [ "$(grep -cx timeout "$probe/calls")" = 40 ] || fail "not one timeout a test: $counts"
    others=$(grep -cvx timeout "$probe/calls" || true)
    [ "$others" -le 8 ] || fail "run.sh started $others other commands for 40 tests: $counts"
}

case ${1:-} in
    --list) echo $tests ;;
    temporaries_go_after_a_pass | temporaries_stay_after_a_fail | a_slow_test_holds_one_slot | no_process_per_test) "$1" ;;
    *) echo "test_runner.sh: unknown test '${1:-}' (--list names them)" >&2; exit 2 ;;
esac
