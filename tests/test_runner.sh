#!/usr/bin/env bash
# tests/run.sh itself, on a stand-in test binary (a script answering
# `--list` and running one NAME), driven as run.sh drives the C tests:
# `--list`, then one NAME (exit 0 pass, 1 fail, 77 skip).
#   temporaries_go_after_a_pass    the run's TMPDIR folder, shared by its
#                                  tests, is gone when every test passed
#   temporaries_stay_after_a_fail  and kept, and named, when one failed
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tests="temporaries_go_after_a_pass temporaries_stay_after_a_fail"
fail() { echo "FAIL: $*" >&2; exit 1; }

# A probe folder with a stand-in binary whose tests `ok` and `bad` each
# leave a mkdtemp folder under TMPDIR and write down which TMPDIR they saw;
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
    # both tests' folders are there, and both saw the run's folder as TMPDIR
    local saws
    saws=$(cat "$kept"/left.*/saw | sort -u)
    [ "$(ls -d "$kept"/left.* | wc -l)" -eq 2 ] || fail "not both tests' folders in $kept: $(ls -A "$kept")"
    [ "$saws" = "$kept" ] || fail "the tests saw TMPDIR '$saws', not the run's folder $kept"
}

case ${1:-} in
    --list) echo $tests ;;
    temporaries_go_after_a_pass | temporaries_stay_after_a_fail) "$1" ;;
    *) echo "test_runner.sh: unknown test '${1:-}' (--list names them)" >&2; exit 2 ;;
esac
