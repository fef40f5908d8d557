#!/usr/bin/env bash
# A user's first hour (issue 31) on a machine without a GPU, driven the way
# tests/run.sh drives the C test binaries: `test_firsthour.sh --list` names
# the tests, `test_firsthour.sh NAME` runs one (exit 0 pass, 1 fail, 77 skip).
#   help_walk         every program's and command's --help: nothing cut, one
#                     default per option, every listed option accepted with
#                     its default, options a command ignores not accepted
#   errors_one_line   the issue's error cases: one line each, no "->" frame,
#                     no file:line, no C expression; --debug brings them back
#   fdtd_small_grid   trilap-fdtd run --grid 32 runs (the CPML shrinks, with a
#                     note); a CPML the grid cannot hold is refused first
#   compare_solver    trilap-analyze compare on two trilap-solve results
#                     files and on a run directory
#   progress          stream --host and verify reflection: a progress line
#                     with --progress, none without it off a terminal, and a
#                     plain stream --host within its stated time
#   progress_runs     trilap-solve (its PETSc path too), trilap-fdtd run and
#                     trilap-analyze (a line per rank file read): a progress
#                     line with --progress, none without it off a terminal
#   solver_words      schedule printed in every method's block (it makes cg's
#                     halo and allreduce blocking or overlapped too); a
#                     one-line warning for cg/pcg on a nonsymmetric matrix,
#                     and for ranks that own no rows
#   host_trace        overlap on a host-backend trace says it has no GPU
#                     lanes and gives no derived communication
#   provenance        manifest and trace metadata name the device, CUDA,
#                     driver and commit, or why each is unknown
#   demo_solver       the no-GPU solver demo says what it shows, quotes no
#                     speedup, and runs both schedules on two ranks
#   aliases           an old option name works, with a note naming the new one
#   install_headers   make install: every library's public headers (solvers/
#                     too), no private *_impl.h, every include resolvable
#   results_to_a_pipe --results naming a pipe (as /dev/stdout behind |):
#                     refused at once in one line, nothing run or written,
#                     no manifest.txt beside it (it went to /dev as root)
#   installed_model   make install: a PREFIX with a blank refused before
#                     anything is written (make split it: files beside it);
#                     an installed trilap-model finds its calibration under
#                     PREFIX/share/trilap, and without one says --calib;
#                     its calibrate, run from another folder, reads the
#                     installed measurements and gives the committed values;
#                     the data's size is the one README.md states
#   outputs_one_path  two output options naming one file (same.csv,
#                     ./same.csv): refused in one line before reading,
#                     nothing written (the second table replaced the first)
#   no_shared_data    a clone without the shared test data (no TL_DATA, no
#                     ../shared/data): a test that reads a shared matrix
#                     skips, naming the folder; one file missing from a
#                     folder that is there still fails; the mmio fuzzer
#                     runs from its seeds
#   readme_quickstart README.md's no-GPU block as written: each bin/ line
#                     runs in a fresh folder, its diagnose finds the rules
#                     its comment names; the report `less` names is where
#                     `make demo` writes it; REPRODUCE.md's trilap-analyze
#                     lines on results/ run
#   readme_paths      every document README.md names in backquotes
#                     (`x/README.md`) is in the checkout, and a section it
#                     quotes after one ("The trace format") is a heading
#                     there: it sent a clone's reader to ../shared/DESIGN.md
set -euo pipefail
bin=${TL_BIN:-bin}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
tests="help_walk errors_one_line fdtd_small_grid compare_solver progress progress_runs solver_words host_trace provenance
  demo_solver aliases install_headers installed_model results_to_a_pipe outputs_one_path output_limits model_interrupted
  scripts_leave_nothing readme_quickstart readme_paths no_shared_data"

fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl_firsthour.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# every command line that has its own --help
commands() {
    echo "trilap-solve"
    echo "trilap-matgen"
    for s in tristream stream comm; do echo "trilap-bench $s"; done
    for s in breakdown overlap diagnose timeline perfetto compare import sweep; do echo "trilap-analyze $s"; done
    echo "trilap-fdtd run"
    echo "trilap-fdtd verify"
    for s in calibrate tristream solver fdtd platform; do echo "trilap-model $s"; done
}

# "--name ARG [default]" of each option line of a help text, one per line:
# name, then the argument word (or -), then the default (or -)
options_of() {
    awk '
        /^(  -[a-zA-Z], |      )--[a-z]/ {
            line = $0; sub(/^ *(-[a-zA-Z], )?/, "", line)
            n = split(line, w, " "); name = w[1]; sub(/^--/, "", name)
            arg = (n >= 2 && w[2] !~ /^[a-z(]/ || w[2] ~ /\|/) ? w[2] : "-"
            cur = name; args[cur] = arg; order[++k] = cur; text[cur] = line; next
        }
        /^ {20,}/ && cur != "" { text[cur] = text[cur] " " $0; next }
        { cur = "" }
        END {
            for (i = 1; i <= k; i++) {
                o = order[i]; t = text[o]; d = "-"
                if (match(t, /\[[^]]*\] *$/)) d = substr(t, RSTART + 1, RLENGTH - 2)
                sub(/ *$/, "", d)
                print o "\t" args[o] "\t" d
            }
        }'
}

help_walk() {
    local cmd out n=0
    while read -r cmd; do
        # shellcheck disable=SC2086
        out=$("$bin"/$cmd --help) || fail "$cmd --help exited non-zero"
        [ -n "$out" ] || fail "$cmd --help printed nothing"
        grep -q '^usage: ' <<<"$out" || fail "$cmd --help has no usage line"
        grep -q -- '--debug' <<<"$out" || fail "$cmd --help does not list --debug"
        # a default printed twice ("[20] [0,8,12,16,24]") or a list cut short
        if grep -v '^usage: ' <<<"$out" | grep -nE '\] \[[^]]*\]$'; then fail "$cmd --help: two defaults on one option"; fi
        if grep -nE '\|[a-z0-9-]?$' <<<"$out"; then fail "$cmd --help: a list of choices cut short"; fi
        local args=()
        while IFS=$'\t' read -r name arg def; do
            case $name in help | version | debug) continue ;; esac
            n=$((n + 1))
            if [ "$arg" != "-" ]; then
                local v=$def
                case $v in - | '' | *' '* | *:*' '*) v= ;; esac
                if [ -z "$v" ]; then
                    case $arg in
                      *'|'*) v=${arg%%|*} ;;
                      FILE* | *.csv | *.json | *.png) v=$tmp/opt-$name.out ;;
                      DIR*) v=$tmp/dir-$name ;;
                      *) continue ;; # no default to try: the functional tests cover it
                    esac
                fi
                args+=("--$name" "$v")
            else
                args+=("--$name")
            fi
        done < <(options_of <<<"$out")
        # the parser stores each value, then --help exits 0: a listed
        # option refused with its own default is a bug in the table. All
        # of a command's options in one start (a start each was 213
        # starts, 5 s of CPU); the same help again shows that none of
        # them ended the parse before --help
        # shellcheck disable=SC2086
        "$bin"/$cmd "${args[@]}" --help >"$tmp/out" 2>"$tmp/err" ||
            fail "$cmd ${args[*]}: refused ($(head -c 300 "$tmp/err"))"
        [ "$(cat "$tmp/out")" = "$out" ] || fail "$cmd ${args[*]} --help: not the help --help alone prints"
    done < <(commands)
    [ "$n" -gt 100 ] || fail "only $n options found across the programs' help"
    # options a command would ignore are not accepted there
    "$bin"/trilap-analyze perfetto --csv "$tmp/x.csv" --help >/dev/null 2>&1 && fail "perfetto accepts --csv"
    "$bin"/trilap-analyze timeline --launch-gap-us 5 --help >/dev/null 2>&1 && fail "timeline accepts --launch-gap-us"
    "$bin"/trilap-analyze sweep --iter-range 1:2 --help >/dev/null 2>&1 && fail "sweep accepts --iter-range"
    # the whole kernel list, the default at its end
    "$bin"/trilap-fdtd run --help | tr '\n' ' ' | grep -q 'vec4-band.*\[vec4-band\]' ||
        fail "trilap-fdtd run --help: the kernel list or its default is missing"
    echo "$n options exercised"
}

# one error line: exit status non-zero, stderr exactly one line, no frame,
# no source position, no C expression
one_line() {
    local want_rc=$1
    shift
    local rc=0
    "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" -ne 0 ] || fail "$* succeeded"
    [ "$want_rc" = any ] || [ "$rc" -eq "$want_rc" ] || fail "$*: exit $rc, expected $want_rc"
    local lines
    lines=$(grep -vc '^trilap-[a-z]*\( [a-z]*\)\?: note: ' "$tmp/err" || true)
    [ "$lines" -eq 1 ] || fail "$*: $lines error lines: $(cat "$tmp/err")"
    if grep -E -- '-> |\.c:[0-9]|&&|\|\||[a-z_]+->[a-z_]|>= [0-9]|failed: ' "$tmp/err"; then
        fail "$*: developer detail in the user's line"
    fi
}

errors_one_line() {
    one_line 2 "$bin"/trilap-fdtd run --grid 32 --cpml 20
    [ ! -s "$tmp/out" ] || fail "trilap-fdtd run refused after printing: $(head -3 "$tmp/out")"
    grep -q 'use --cpml 15' "$tmp/err" || fail "the CPML refusal does not say what to do: $(cat "$tmp/err")"
    one_line any "$bin"/trilap-fdtd verify energy --grid 24 --steps 20
    grep -q 'use --cells 11 or less, or a grid of at least 42' "$tmp/err" ||
        fail "verify energy's CPML refusal does not say what to do: $(cat "$tmp/err")"
    # the no-GPU refusals, where there is no GPU to run on (on a GPU
    # machine these commands run; make check-gpu covers them there): exit
    # 1 in every program, the machine's lack (trilap-fdtd's was 2)
    local gpu=0
    if [ "${TL_HAVE_CUDA:-0}" = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi
    if [ $gpu = 0 ]; then
        one_line 1 "$bin"/trilap-fdtd run --grid 16 --backend cuda
        [ ! -s "$tmp/out" ] || fail "trilap-fdtd --backend cuda printed before failing"
        one_line 1 "$bin"/trilap-bench tristream
        one_line 1 "$bin"/trilap-bench stream
    fi
    one_line 2 "$bin"/trilap-fdtd run --grid 16 --kernel naive
    one_line 2 "$bin"/trilap-fdtd --bogus
    one_line 1 "$bin"/trilap-solve "$tmp/missing.mtx"
    # with PETSc: the thread launcher refused before the launch, exit 2;
    # without: the build's lack, exit 1
    if [ "${TL_HAVE_PETSC:-0}" = 1 ]; then
        one_line 2 "$bin"/trilap-solve gen:poisson7:8 --backend petsc
    else
        one_line 1 "$bin"/trilap-solve gen:poisson7:8 --backend petsc
    fi
    grep -q 'not supported in this build' "$tmp/err" && fail "petsc: 'not supported in this build' in a build that has it"
    printf 'a,b\n1,2\n' >"$tmp/notresults.csv"
    one_line 1 "$bin"/trilap-analyze compare "$tmp/notresults.csv"
    one_line 2 "$bin"/trilap-bench stream --host --count x
    one_line 2 "$bin"/trilap-model solver --gpus 4,x
    one_line 1 "$bin"/trilap-model tristream --calib "$tmp/missing.txt"
    # the developer's view is one switch away
    local rc=0
    TRILAP_DEBUG=1 "$bin"/trilap-analyze compare "$tmp/notresults.csv" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" -ne 0 ] && grep -qE '\.c:[0-9]+' "$tmp/err" || fail "TRILAP_DEBUG=1 shows no source position: $(cat "$tmp/err")"
    rc=0
    "$bin"/trilap-analyze compare --debug "$tmp/notresults.csv" >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" -ne 0 ] && grep -qE '\.c:[0-9]+' "$tmp/err" || fail "--debug shows no source position: $(cat "$tmp/err")"
}

fdtd_small_grid() {
    "$bin"/trilap-fdtd run --grid 32 --steps 4 >"$tmp/out" 2>"$tmp/err" || fail "run --grid 32: $(cat "$tmp/err")"
    grep -q '^run,cpu,-,copy,1x1x1,1,0,8,single,32,32,32,4,8,' "$tmp/out" || fail "no results row with an 8-cell CPML: $(cat "$tmp/out")"
    grep -q 'note: a CPML of 8 cells' "$tmp/err" || fail "no note on the shrunk CPML: $(cat "$tmp/err")"
    grep -q 'kernel: cpu reference' "$tmp/out" || fail "the header names a CUDA kernel on the CPU"
    "$bin"/trilap-fdtd run --grid 32 --steps 2 --compare-cpml >"$tmp/out" 2>"$tmp/err" || fail "--compare-cpml: $(cat "$tmp/err")"
    [ "$(grep -c '^run,' "$tmp/out")" -eq 2 ] || fail "--compare-cpml: not two rows"
    "$bin"/trilap-fdtd run --grid 8 --steps 2 --periodic >/dev/null 2>"$tmp/err" || fail "--periodic on a small grid: $(cat "$tmp/err")"
}

compare_solver() {
    cd "$tmp"
    "$bin"/trilap-solve gen:poisson7:8 --repeat 2 --schedule two-stream --results a.csv >/dev/null 2>&1 || fail "trilap-solve a"
    "$bin"/trilap-solve gen:poisson7:8 --repeat 2 --schedule three-split --results b.csv >/dev/null 2>&1 || fail "trilap-solve b"
    "$bin"/trilap-analyze compare a.csv b.csv --csv c.csv >out 2>err || fail "compare a.csv b.csv: $(cat err)"
    grep -q 'two-stream' c.csv && grep -q 'three-split' c.csv || fail "compare: the two variants are not named: $(cat c.csv)"
    awk -F, 'NR == 2 { exit !($2 == 1 && $9 > 0) }' c.csv || fail "compare: no speedup for the pair: $(cat c.csv)"
    mkdir run && cat a.csv >run/results.csv && tail -n +2 b.csv >>run/results.csv
    "$bin"/trilap-analyze compare run --csv d.csv >out 2>err || fail "compare RUN_DIR: $(cat err)"
    # the three-split row's baseline is the two-stream row of the same solve
    awk -F, '/three-split/ { found = 1; ok = $6 != "" && $6 != "-" } END { exit !(found && ok) }' d.csv ||
        fail "compare RUN_DIR: the three-split row has no two-stream baseline: $(cat d.csv)"
}

progress() {
    local err
    "$bin"/trilap-bench stream --host --count 1M --iters 5 --progress >/dev/null 2>"$tmp/err" || fail "stream --host --progress"
    grep -qE 'stream --host 100% 5/5 calls \[[0-9:]+, [0-9.]+ calls/s\]' "$tmp/err" ||
        fail "no final progress line: $(cat "$tmp/err")"
    "$bin"/trilap-bench stream --host --count 1M --iters 5 >/dev/null 2>"$tmp/err" || fail "stream --host"
    if grep -q 'calls/s' "$tmp/err"; then fail "a progress line off a terminal without --progress"; fi
    # the plain command, sized from the machine: seconds, bounded here at 60
    local t0=$SECONDS
    timeout 60 "$bin"/trilap-bench stream --host >/dev/null 2>&1 || fail "plain stream --host failed or ran past 60 s"
    echo "stream --host: $((SECONDS - t0)) s"
    "$bin"/trilap-fdtd verify reflection --n-int 8 --cells 0,4 --progress >"$tmp/out" 2>"$tmp/err" ||
        fail "verify reflection: $(cat "$tmp/err")"
    grep -q 'verify reflection 100% 3/3 runs' "$tmp/err" || fail "verify reflection: no progress line: $(cat "$tmp/err")"
    [ "$(grep -c '^1x1x1,' "$tmp/out")" -eq 2 ] || fail "verify reflection: not one row per thickness: $(cat "$tmp/out")"
}

progress_runs() {
    "$bin"/trilap-solve gen:poisson7:16 --warmup 1 --repeat 2 --progress >/dev/null 2>"$tmp/err" || fail "solve --progress"
    grep -qE '^trilap-solve: pipecg 100% 3/3 solves \[[0-9:]+, [0-9.]+ solves/s\]$' "$tmp/err" ||
        fail "trilap-solve: no final progress line: $(cat "$tmp/err")"
    "$bin"/trilap-solve gen:poisson7:16 --repeat 2 >/dev/null 2>"$tmp/err" || fail "solve"
    if grep -q 'solves/s' "$tmp/err"; then fail "trilap-solve: a progress line off a terminal without --progress"; fi
    # the PETSc path too (its KSP's monitor moves the line), where it is built
    if [ "${TL_HAVE_PETSC:-0}" = 1 ] && [ -n "${TL_MPIRUN:-}" ]; then
        # shellcheck disable=SC2086 # TL_MPIRUN is a command with its options
        $TL_MPIRUN -np 2 "$bin"/trilap-solve --backend petsc gen:poisson7:16 --warmup 1 --repeat 2 --progress \
            >/dev/null 2>"$tmp/err" || fail "solve --backend petsc --progress: $(cat "$tmp/err")"
        grep -qE 'pipecg 100% 3/3 solves \[[0-9:]+, [0-9.]+ solves/s\]$' "$tmp/err" ||
            fail "trilap-solve --backend petsc: no final progress line: $(cat "$tmp/err")"
    fi
    # trilap-analyze: a reading line per rank file with --progress, none without it off a terminal
    local run_dir
    run_dir="$(cd "$(dirname "$0")" && pwd)/data/demo-1gpu/three-split"
    "$bin"/trilap-analyze overlap "$run_dir" --progress >/dev/null 2>"$tmp/err" || fail "analyze --progress: $(cat "$tmp/err")"
    grep -qE '^trilap-analyze: reading trace\.rank0\.csv(\.gz)? 100% [0-9]+/[0-9]+ records \[' "$tmp/err" ||
        fail "trilap-analyze overlap: no reading line: $(cat "$tmp/err")"
    "$bin"/trilap-analyze overlap "$run_dir" >/dev/null 2>"$tmp/err" || fail "analyze"
    if grep -q 'records/s' "$tmp/err"; then fail "trilap-analyze: a progress line off a terminal without --progress"; fi
    "$bin"/trilap-fdtd run --grid 16 --steps 5 --warmup 1 --progress >"$tmp/out" 2>"$tmp/err" || fail "fdtd --progress"
    grep -qE 'run 100% 6/6 steps \[[0-9:]+, [0-9.]+ steps/s\]$' "$tmp/err" ||
        fail "trilap-fdtd run: no final progress line: $(cat "$tmp/err")"
    if grep -q 'steps/s' "$tmp/out"; then fail "trilap-fdtd run: progress on stdout"; fi
    "$bin"/trilap-fdtd run --grid 16 --steps 5 >/dev/null 2>"$tmp/err" || fail "fdtd run"
    if grep -q 'steps/s' "$tmp/err"; then fail "trilap-fdtd run: a progress line off a terminal without --progress"; fi
    # verify energy (two runs, a line each) and decomp (a unit per run)
    "$bin"/trilap-fdtd verify energy --grid 48 --cells 12 --steps 20 --every 10 --progress >/dev/null 2>"$tmp/err" ||
        fail "verify energy --progress: $(cat "$tmp/err")"
    grep -qE 'verify energy, with CPML 100% 20/20 steps' "$tmp/err" && grep -qE 'verify energy, no CPML 100% 20/20 steps' "$tmp/err" ||
        fail "verify energy: no final progress lines: $(cat "$tmp/err")"
    "$bin"/trilap-fdtd verify decomp --grid 24 --decomps 1x1x1,1x1x2 --ss 1 --progress >/dev/null 2>"$tmp/err" ||
        fail "verify decomp --progress: $(cat "$tmp/err")"
    grep -qE 'verify decomp 100% 6/6 runs' "$tmp/err" || fail "verify decomp: no final progress line: $(cat "$tmp/err")"
    "$bin"/trilap-fdtd verify decomp --grid 24 --decomps 1x1x1 --ss 1 >/dev/null 2>"$tmp/err" || fail "verify decomp"
    if grep -q 'runs/s' "$tmp/err"; then fail "verify decomp: a progress line off a terminal without --progress"; fi
}

solver_words() {
    "$bin"/trilap-solve gen:poisson7:8 --solver cg,pcg,pipecg --repeat 1 --schedule two-stream >"$tmp/out" 2>"$tmp/err" ||
        fail "trilap-solve cg,pcg,pipecg: $(cat "$tmp/err")"
    # a schedule line in each of the three blocks, right after its solver and precond
    [ "$(grep -c '^schedule: two-stream$' "$tmp/out")" -eq 3 ] || fail "schedule lines: $(grep -E '^(solver|schedule): ' "$tmp/out")"
    awk '/^solver: / { n = NR } /^schedule: / { if (NR != n + 2) exit 1 }' "$tmp/out" ||
        fail "a schedule line outside its block's head"
    [ ! -s "$tmp/err" ] || fail "a warning on a symmetric matrix: $(cat "$tmp/err")"
    local m
    for m in pcg cg; do
        "$bin"/trilap-solve gen:convdiff:8 --solver $m --repeat 1 --max-iterations 50 >/dev/null 2>"$tmp/err" || true
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^trilap-solve: warning: $m assumes a symmetric matrix and gen:convdiff:8 is not" "$tmp/err" ||
            fail "$m on a nonsymmetric matrix: $(cat "$tmp/err")"
    done
    "$bin"/trilap-solve gen:convdiff:8 --solver bicgstab --repeat 1 >/dev/null 2>"$tmp/err" || fail "bicgstab on convdiff"
    [ ! -s "$tmp/err" ] || fail "bicgstab warned: $(cat "$tmp/err")"
    # more ranks than rows' worth: the idle ones said, once
    "$bin"/trilap-solve gen:poisson7:2 --launcher threads --ranks 10 --no-gpu --partition block --repeat 1 >/dev/null 2>"$tmp/err" ||
        fail "10 ranks on 8 rows: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^trilap-solve: warning: 2 of the 10 ranks own no rows of gen:poisson7:2 (8 rows)" "$tmp/err" ||
        fail "idle ranks: $(cat "$tmp/err")"
    # the default partition on a small graph: METIS left 17 of 20 parts
    # empty, where a block split gives every rank a row
    "$bin"/trilap-solve "${TL_DATA:-../shared/data}/matrices/ani1_nonsymm.mtx" --solver bicgstab --launcher threads --ranks 20 --no-gpu \
        --repeat 1 --max-iterations 5 >"$tmp/out" 2>"$tmp/err" || true
    grep -q '^partition: metis' "$tmp/out" && fail "auto kept METIS's empty parts: $(grep '^partition' "$tmp/out")"
    grep -q '^partition: block (20 parts, .*rows 1\.\.2' "$tmp/out" && [ ! -s "$tmp/err" ] ||
        fail "auto on 20 ranks of 36 rows: $(grep '^partition' "$tmp/out") $(cat "$tmp/err")"
}

host_trace() {
    "$bin"/trilap-solve gen:poisson7:12 --repeat 1 --launcher threads --ranks 2 --trace "$tmp/tr" >/dev/null 2>&1 ||
        fail "traced host solve"
    "$bin"/trilap-analyze overlap "$tmp/tr" --csv "$tmp/ov.csv" >"$tmp/out" 2>"$tmp/err" || fail "overlap: $(cat "$tmp/err")"
    [ "$(grep -c '^# gpu_lanes: rank [01]: none' "$tmp/out")" -eq 2 ] || fail "no word on the missing GPU lanes: $(head -20 "$tmp/out")"
    # derived_comm is "-", not the window
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^derived_comm/) c = i; next }
             $1 == "0" || $1 == "1" { n++; if ($c != "" && $c != "-" && $c != "NaN") bad = 1 }
             END { exit !(c && n == 2 && !bad) }' "$tmp/ov.csv" || fail "derived_comm given on a host trace: $(cat "$tmp/ov.csv")"
}

provenance() {
    "$bin"/trilap-solve gen:poisson7:8 --repeat 1 --trace "$tmp/pt" --results "$tmp/pr/r.csv" >/dev/null 2>&1 ||
        fail "solve with --trace and --results"
    local m=$tmp/pr/manifest.txt t=$tmp/pt/trace.rank0.csv key v
    for key in gpu.rank0 cuda_runtime driver git_commit; do
        v=$(sed -n "s/^$key: //p" "$m")
        [ -n "$v" ] || fail "manifest: no $key"
        case $v in none* | unknown*) [[ $v == *'('*')'* ]] || fail "manifest: $key '$v' without a reason" ;; esac
    done
    for key in device_name cuda driver git_commit; do
        v=$(sed -n "s/^# $key=//p" "$t")
        [ -n "$v" ] || fail "trace metadata: no $key"
        case $v in none* | unknown*) [[ $v == *'('*')'* ]] || fail "trace: $key '$v' without a reason" ;; esac
    done
    # both name the same commit
    [ "$(sed -n 's/^git_commit: \([^ ]*\).*/\1/p' "$m")" = "$(sed -n 's/^# git_commit=\([^ ]*\).*/\1/p' "$t")" ] ||
        fail "manifest and trace name different commits"
}

demo_solver() {
    if [ "${TL_HAVE_CUDA:-0}" = 1 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
        echo "SKIP: a GPU is here: make check-gpu and the demo cover the GPU path"
        exit 77
    fi
    local top
    top=$(cd "$(dirname "$0")/.." && pwd)
    SOLVE="$bin"/trilap-solve ANALYZE="$bin"/trilap-analyze GNUPLOT=0 "$top"/scripts/demo-solver.sh --n 24 --iterations 10 \
        "$tmp/demo" >"$tmp/out" 2>"$tmp/err" || fail "demo-solver.sh: $(cat "$tmp/err")"
    local r=$tmp/demo/report.md
    grep -q 'speedup of three-split: not measured here (no GPU' "$r" || fail "the no-GPU report quotes a speedup: $(cat "$r")"
    grep -q 'no GPU here: both schedules run on the host backend (2 thread ranks)' "$r" || fail "the report does not say what it shows"
    grep -q 'come from another run, the committed GPU traces' "$r" || fail "the report does not say where its timeline comes from"
    grep -q "true residuals: .* (the same)" "$r" || fail "the two schedules disagree or are not compared: $(grep residual "$r")"
    # both schedules in one invocation, on two ranks
    grep -q '^ranks: 2$' "$tmp/demo/solve.txt" || fail "the demo's solve is not on two ranks"
    [ "$(grep -c '^schedule: ' "$tmp/demo/solve.txt")" -eq 2 ] || fail "not both schedules in one invocation"
}

aliases() {
    "$bin"/trilap-fdtd verify time --n 8 --cfls 0.8,0.4 >"$tmp/out" 2>"$tmp/err" || fail "verify time --n: $(cat "$tmp/err")"
    grep -q 'note: --n is now --grid' "$tmp/err" || fail "no note for the alias --n: $(cat "$tmp/err")"
    "$bin"/trilap-fdtd verify time --grid 8 --cfls 0.8,0.4 >"$tmp/out2" 2>"$tmp/err" || fail "verify time --grid"
    cmp -s "$tmp/out" "$tmp/out2" || fail "--n 8 and --grid 8 differ"
    if grep -q note "$tmp/err"; then fail "a note without an alias: $(cat "$tmp/err")"; fi
}

install_headers() {
    local top
    top=$(cd "$(dirname "$0")/.." && pwd)
    # the headers alone: `make install` would first build `all` in this
    # test's environment, which need not be the configuration make check used
    make -C "$top" -s install-headers DESTDIR="$tmp/inst" PREFIX=/usr BUILD="${TL_BUILD:-build}" >"$tmp/log" 2>&1 ||
        fail "make install-headers: $(tail -5 "$tmp/log")"
    local inc=$tmp/inst/usr/include/trilap
    for m in runtime probes solvers microbench analysis stencil; do
        [ -n "$(find "$inc/$m" -name '*.h' 2>/dev/null)" ] || fail "no headers of $m installed"
    done
    [ -f "$inc/solvers/matrix/csr.h" ] || fail "solvers/matrix/csr.h not installed"
    [ -z "$(find "$inc" -name '*_impl.h')" ] || fail "private headers installed: $(find "$inc" -name '*_impl.h')"
    # every trilap include of an installed header is installed too
    local h i
    while read -r h; do
        while read -r i; do
            [ -f "$inc/$i" ] || fail "${h#"$inc"/} includes $i, which is not installed"
        done < <(sed -n 's/^#include "\([a-z]*\/[a-z0-9_/]*\.h\)".*/\1/p' "$h")
    done < <(find "$inc" -name '*.h')
}

installed_model() {
    local top rc=0 d=$tmp/inst
    top=$(cd "$(dirname "$0")/.." && pwd)
    mkdir "$d" && cd "$d"
    make -C "$top" -s install PREFIX="$d/a b" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ $rc -eq 2 ] && grep -q "make install: '$d/a b' holds a blank" "$tmp/err" ||
        fail "make install into a prefix with a blank: exit $rc: $(cat "$tmp/err")"
    [ -z "$(ls -A "$d")" ] || fail "make install with a blank wrote $(ls -A "$d")"
    # the data make install puts under the prefix, then the program beside it
    make -C "$top" -s install-data DESTDIR="$d" PREFIX=/usr >"$tmp/log" 2>&1 || fail "make install-data: $(cat "$tmp/log")"
    # README.md's size of it (it said 193,986 bytes after calib-h200.txt had grown by 18)
    local want got
    want=$(grep -o '[0-9,]* bytes in its [a-z]* files' "$top"/README.md | head -n 1 | cut -d' ' -f1 | tr -d ,)
    got=$(find "$d/usr/share/trilap" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
    [ -n "$want" ] && [ "$got" = "$want" ] || fail "README.md says make install's data is '$want' bytes; installed: $got"
    mkdir -p "$d/usr/bin" && cp "$bin/trilap-model" "$d/usr/bin/"
    "$d/usr/bin/trilap-model" tristream >"$tmp/out" 2>"$tmp/err" || fail "installed trilap-model tristream: $(cat "$tmp/err")"
    grep -q "^# calibration: $d/usr/share/trilap/results/model/calib-h200.txt" "$tmp/out" ||
        fail "not the installed calibration: $(head -n 8 "$tmp/out")"
    # before: "results/tristream-h200x2/tristream.csv: No such file or directory"
    "$d/usr/bin/trilap-model" calibrate -o "$d/c.txt" >/dev/null 2>"$tmp/err" ||
        fail "installed trilap-model calibrate: $(cat "$tmp/err")"
    grep -q "^source = $d/usr/share/trilap/results/tristream-h200x2/tristream.csv " "$d/c.txt" ||
        fail "calibrate did not read the installed measurements: $(grep '^source' "$d/c.txt")"
    diff <(grep -v '^source' "$d/c.txt") <(grep -v '^source' "$top/results/model/calib-h200.txt") >"$tmp/diff" ||
        fail "installed calibrate differs from results/model/calib-h200.txt: $(cat "$tmp/diff")"
    rm -r "$d/usr/share"
    one_line 1 "$d/usr/bin/trilap-model" tristream
    grep -q -- "calib-h200.txt: No such file or directory (--calib FILE names one" "$tmp/err" ||
        fail "no word of --calib: $(cat "$tmp/err")"
}

results_to_a_pipe() {
    local p=$tmp/pipe/results.csv
    mkdir -p "$tmp/pipe" && mkfifo "$p"
    one_line 2 "$bin"/trilap-solve --results "$p" gen:poisson7:8
    one_line 2 "$bin"/trilap-fdtd run --grid 16 --steps 2 --results "$p"
    one_line 2 "$bin"/trilap-bench tristream --results "$p"
    one_line 2 "$bin"/trilap-bench stream --host --results "$p"
    one_line 2 "$bin"/trilap-bench comm --results "$p"
    grep -q "invalid --results '$p': a device, a pipe" "$tmp/err" || fail "the refusal does not say why: $(cat "$tmp/err")"
    [ -p "$p" ] || fail "$p is no longer a pipe"
    [ "$(ls "$tmp/pipe")" = results.csv ] || fail "written beside the pipe: $(ls "$tmp/pipe")"
}

outputs_one_path() {
    local top run
    top=$(cd "$(dirname "$0")/.." && pwd)
    run=$top/results/tristream-h200x2/three-split
    mkdir "$tmp/one" && cd "$tmp/one"
    # the options clash: exit 2 (was 1, as if the file system had refused)
    one_line 2 "$bin"/trilap-analyze overlap "$run" --csv same.csv --iter-csv ./same.csv
    grep -q -- "--iter-csv and --csv both name same.csv: give each a file of its own" "$tmp/err" ||
        fail "the refusal does not name both: $(cat "$tmp/err")"
    one_line 2 "$bin"/trilap-analyze breakdown "$run" --csv "$tmp/one/b.csv" --stack-csv "$tmp/one/../one/b.csv"
    cd - >/dev/null
    [ -z "$(ls "$tmp/one")" ] || fail "written: $(ls "$tmp/one")"
    "$bin"/trilap-analyze overlap "$run" --csv - --iter-csv - >/dev/null || fail "two tables to stdout refused"
}

# a report that could not be written is a failure: stdout on a full
# device; a write past the file size limit (ulimit -f) removes the
# temporary output it was writing and says so
output_limits() {
    local top run rc=0
    top=$(cd "$(dirname "$0")/.." && pwd)
    run=$top/results/tristream-h200x2/three-split
    [ -c /dev/full ] || { echo "no /dev/full" >&2; return 0; }
    "$bin"/trilap-analyze overlap "$run" >/dev/full 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q '^trilap-analyze: standard output: write failed: No space left on device$' "$tmp/err" ||
        fail "overlap > /dev/full: exit $rc: $(cat "$tmp/err")"
    rc=0
    "$bin"/trilap-solve gen:poisson7:4 --repeat 1 >/dev/full 2>"$tmp/err" || rc=$?
    # it failed in an earlier flush: the reason is still said
    [ "$rc" -eq 1 ] && grep -qx 'trilap-solve: standard output: write failed: No space left on device' "$tmp/err" ||
        fail "trilap-solve > /dev/full: exit $rc: $(cat "$tmp/err")"
    { "$bin"/trilap-analyze overlap "$run" 2>"$tmp/err" | head -1 >/dev/null; } || true
    [ ! -s "$tmp/err" ] || fail "a reader that stopped (| head) is reported: $(cat "$tmp/err")"
    # the same with SIGPIPE ignored (as some batch shells leave it): the
    # pipe failed in an earlier flush, errno gone by the exit (before: "write
    # failed", exit 1)
    rc=0
    (trap '' PIPE && "$bin"/trilap-fdtd verify convergence --sizes 8,16,32 2>"$tmp/err" | head -c 10 >/dev/null &&
        exit "${PIPESTATUS[0]}") || rc=$?
    [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || fail "| head with SIGPIPE ignored: exit $rc: $(cat "$tmp/err")"
    mkdir "$tmp/lim"
    rc=0
    (ulimit -f 100 && exec "$bin"/trilap-analyze perfetto "$run" -o "$tmp/lim/p.json") 2>"$tmp/err" || rc=$?
    [ "$rc" -eq 153 ] && grep -q 'file size limit exceeded (SIGXFSZ); unfinished outputs removed, finished files kept' "$tmp/err" ||
        fail "perfetto past ulimit -f: exit $rc: $(cat "$tmp/err")"
    [ -z "$(ls "$tmp/lim")" ] || fail "left after SIGXFSZ: $(ls "$tmp/lim")"
}

# trilap-model stopped in a simulation: its work folder and platform file
# go, and so does the simulation's child process
model_interrupted() {
    "$bin"/trilap-model solver --help >/dev/null 2>&1 || return 0
    "$bin"/trilap-model solver --gpus 4 --matrix gen:poisson7:4 >/dev/null 2>&1 || { echo "no SimGrid" >&2; return 0; }
    mkdir "$tmp/mw"
    TMPDIR=$tmp/mw "$bin"/trilap-model solver --gpus 1024 --matrix gen:poisson7:128 >/dev/null 2>"$tmp/err" &
    local pid=$! n=0
    while [ -z "$(ls "$tmp/mw")" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    sleep 0.5 # inside a simulation
    kill -TERM "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 143 ] || fail "trilap-model after SIGTERM: exit $rc: $(cat "$tmp/err")"
    sleep 0.2
    [ -z "$(ls "$tmp/mw")" ] || fail "left after SIGTERM: $(ls -R "$tmp/mw")"
    if pgrep -f "trilap-model solver --gpus 1024 --matrix gen:poisson7:128" >/dev/null; then
        fail "the simulation outlived trilap-model"
    fi
}

# the run scripts leave no folder of results when nothing was measured,
# and the helpers' refusals are one line
scripts_leave_nothing() {
    local top rc
    top=$(cd "$(dirname "$0")/.." && pwd)
    "$top"/scripts/run-tristream.sh --help | grep -q 'every variant' || fail "run-tristream.sh --help"
    rc=0
    LAUNCH=foo OUT=$tmp/rt "$top"/scripts/run-tristream.sh 2 2>"$tmp/err" || rc=$?
    [ $rc -eq 2 ] && [ ! -e "$tmp/rt" ] || fail "LAUNCH=foo: exit $rc, $(ls "$tmp")"
    if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
        rc=0
        TL_BIN=$bin BENCH=$bin/trilap-bench OUT=$tmp/rt "$top"/scripts/run-tristream.sh 2 >/dev/null 2>"$tmp/err" || rc=$?
        [ $rc -ne 0 ] && [ ! -e "$tmp/rt" ] || fail "run-tristream.sh without a GPU: exit $rc, left $(ls "$tmp")"
    fi
    rc=0
    SOLVE=$bin/trilap-solve LAUNCH=threads PLOT=0 OUT=$tmp/rss "$top"/scripts/run-solver-schedules.sh 2 --precond bogus \
        >/dev/null 2>"$tmp/err" || rc=$?
    [ $rc -ne 0 ] && [ ! -e "$tmp/rss" ] || fail "run-solver-schedules.sh --precond bogus: exit $rc, left $(ls "$tmp")"
    # a launcher that refuses before trilap-solve starts is the one named
    printf '#!/bin/sh\necho "not enough slots" >&2\nexit 1\n' >"$tmp/refusing-mpirun"
    chmod +x "$tmp/refusing-mpirun"
    rc=0
    SOLVE=$bin/trilap-solve MPIRUN=$tmp/refusing-mpirun PLOT=0 OUT=$tmp/rss "$top"/scripts/run-solver-schedules.sh 2 \
        >/dev/null 2>"$tmp/err" || rc=$?
    [ $rc -eq 1 ] && [ ! -e "$tmp/rss" ] && grep -q 'refusing-mpirun -n 2 trilap-solve exited 1 (' "$tmp/err" ||
        fail "run-solver-schedules.sh under a refusing mpirun: exit $rc: $(cat "$tmp/err")"
    rc=0
    "$top"/scripts/download-matrices.sh --dest "$tmp/dl" --no-verify --mirror "file://$tmp/nowhere" Serena \
        >/dev/null 2>"$tmp/err" || rc=$?
    [ $rc -eq 1 ] && [ ! -e "$tmp/dl" ] && grep -q 'download failed, nothing received' "$tmp/err" ||
        fail "download-matrices.sh from nowhere: exit $rc: $(cat "$tmp/err"); left $(ls "$tmp")"
    one_line 1 env TRILAP_PACKAGES="$tmp/nolist" "$top"/scripts/install-deps.sh --list
}

no_shared_data() {
    local t=${TL_BUILD:-build}/tests/test_binfmt rc=0
    [ -x "$t" ] || fail "$t not built"
    TL_DATA=$tmp/none "$t" round_trip >"$tmp/out" 2>&1 || rc=$?
    [ $rc -eq 77 ] && grep -q "^SKIP: no shared matrices at $tmp/none/matrices (set TL_DATA" "$tmp/out" ||
        fail "no shared data: exit $rc: $(cat "$tmp/out")"
    mkdir -p "$tmp/part/matrices"
    rc=0
    TL_DATA=$tmp/part "$t" round_trip >"$tmp/out" 2>&1 || rc=$?
    [ $rc -eq 1 ] || fail "a shared matrix missing from its folder: exit $rc: $(cat "$tmp/out")"
    # the fuzzer's corpus takes the matrices only where they are (built with clang's libFuzzer)
    t=${TL_BUILD:-build}/tests/test_fuzz_mmio
    if [ -x "$t" ]; then
        rc=0
        TL_DATA=$tmp/none TL_FUZZ_SECONDS=1 "$t" fuzz_mmio_bounded >"$tmp/out" 2>&1 || rc=$?
        [ $rc -eq 0 ] || [ $rc -eq 77 ] || fail "test_fuzz_mmio without the shared data: exit $rc: $(tail -3 "$tmp/out")"
    fi
}

# the lines of the first ```sh block after README.md's "Without a GPU"
readme_nogpu_block() {
    awk '/^Without a GPU/ { f = 1 } f && /^```sh/ { b = 1; next } b && /^```/ { exit } b' "$1"/README.md
}

# a user's first commands, from the document itself so that they cannot drift
readme_quickstart() {
    local top line last dir rule n=0
    top=$(cd "$(dirname "$0")/.." && pwd)
    readme_nogpu_block "$top" >"$tmp/block"
    grep -q '^make demo' "$tmp/block" || fail "README.md: no no-GPU block starting with make demo: $(cat "$tmp/block")"
    mkdir "$tmp/clone"
    while IFS= read -r line; do
        line=${line%%#*}
        n=$((n + 1))
        (cd "$tmp/clone" && eval "\"$bin\"/${line#bin/}") >"$tmp/out.$n" 2>"$tmp/err.$n" ||
            fail "README.md: '$line' failed: $(tail -3 "$tmp/err.$n")"
        last=$line
    done < <(grep '^bin/' "$tmp/block")
    [ $n -ge 2 ] || fail "README.md: fewer than two bin/ commands in the no-GPU block"
    grep -q '^FINDING 1 ' "$tmp/out.$n" || fail "README.md: '$last' shows no finding: $(head -5 "$tmp/out.$n")"
    # each rule its comment names (a word with hyphens) is a finding
    for rule in $(sed -n '/^bin\/trilap-analyze diagnose/,$s/.*# //p' "$tmp/block" | grep -o -E '[a-z]+(-[a-z]+)+'); do
        grep -q "^FINDING [0-9]* \[$rule\]" "$tmp/out.$n" || fail "README.md: '$last' names $rule, not found: $(grep '^FINDING' "$tmp/out.$n")"
    done
    # `less demo-out/report.txt`: the folder make demo writes by default
    line=$(sed -n 's/^less \([^ ]*\).*/\1/p' "$tmp/block")
    dir=${line%%/*}
    grep -q "^DEMO_OUT ?= $dir\$" "$top"/analysis/module.mk || fail "README.md: less $line, but make demo writes elsewhere"
    if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
        (cd "$top" && TL_BIN=$bin scripts/demo.sh --out "$tmp/clone/$dir") >"$tmp/demo.out" 2>&1 ||
            fail "demo.sh: $(tail -3 "$tmp/demo.out")"
        [ -s "$tmp/clone/$line" ] || fail "README.md: less $line, but the demo wrote $(ls "$tmp/clone/$dir")"
    fi
    # REPRODUCE.md's analyses of committed runs, which read and write nothing else
    n=0
    while IFS= read -r line; do
        line=${line%%#*}
        n=$((n + 1))
        (cd "$top" && eval "\"$bin\"/${line#bin/}") >/dev/null 2>"$tmp/err" ||
            fail "REPRODUCE.md: '$line' failed: $(tail -3 "$tmp/err")"
    done < <(awk '/^```sh/ { b = 1; next } /^```/ { b = 0 } b' "$top"/REPRODUCE.md |
        grep -E '^bin/trilap-analyze [a-z]+ +results/' | grep -v -e ' -o ' -e '--csv')
    [ $n -ge 4 ] || fail "REPRODUCE.md: $n trilap-analyze lines on results/, sections 2 and 3 have 4"
}

# a clone has only what is in it: each named document, and each section
# quoted after it, `analysis/README.md` ("Overlap metrics")
readme_paths() {
    local top doc sec n=0
    top=$(cd "$(dirname "$0")/.." && pwd)
    while IFS= read -r doc; do
        n=$((n + 1))
        [ -f "$top/$doc" ] || fail "README.md names $doc, which a clone does not have"
    done < <(grep -o '`[^` ]*\.md`' "$top"/README.md | tr -d '`' | sort -u)
    [ $n -ge 3 ] || fail "README.md: only $n documents named"
    while IFS=$'\t' read -r doc sec; do
        grep -qE "^#+ $sec" "$top/$doc" || fail "README.md quotes \"$sec\" of $doc, not a heading there"
    done < <(tr '\n' ' ' <"$top"/README.md | grep -oE '`[^` ]+\.md` \("[^"]+"\)' |
        sed -E 's/^`([^`]+)` \("([^"]+)"\)$/\1\t\2/')
}

case ${1:-} in
  --list) printf '%s\n' $tests ;;
  '') echo "usage: $0 --list | TEST" >&2; exit 2 ;;
  *)
    grep -qw -- "$1" <<<"$tests" || { echo "$0: unknown test '$1'" >&2; exit 2; }
    "$1"
    ;;
esac
