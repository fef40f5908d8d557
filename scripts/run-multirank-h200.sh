#!/usr/bin/env bash
# Issue 26's acceptance on one GPU: Pipe-PCG on gen:poisson7:128 (200
# fixed iterations) with 1, 2 and 4 ranks over --device-comm host, under
# the thread launcher and mpirun, traced with CUPTI; the same commands under
# `nsys profile` untraced, whose kernel summary the traces' kernel counts
# are set against (per rank and summed); the FDTD with 4 host-staged ranks
# (pencil-yz); overlap, diagnose and breakdown of every run. Everything
# lands in DEST (traces gzipped) with a manifest.
#   scripts/run-multirank-h200.sh DEST [BUDGET_SECONDS=540]
# It needs a GPU (nvidia-smi -L lists one), make, mpirun and nsys: where
# one is missing it says so in one line and exits 1 before DEST is made.
# Every step is required (none optional): a step that fails, or that the
# budget leaves no time for, is named in the last line, exit 1, the other
# steps' files kept in DEST; the last line names DEST either way.
# NSYS: the nsys to run [/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys]
# Nsight Systems' importer needs libdw: .carry-dw/*.deb (apt-get download
# libdw1 libelf1) are unpacked into /tmp/dw when present.

# not -e: a failed step is recorded and the rest goes on
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# not -e, so the arguments are checked here: '--bogus' was a DEST mkdir
# refused, and the session went on to its build in the current folder
usage="run-multirank-h200.sh DEST [BUDGET_SECONDS]"
case ${1:-} in
    '') echo "run-multirank-h200.sh: no DEST given (usage: $usage; try --help)" >&2; exit 2 ;;
    -*) echo "run-multirank-h200.sh: invalid argument '$1' (usage: $usage; try --help)" >&2; exit 2 ;;
esac
[ $# -le 2 ] || { echo "run-multirank-h200.sh: invalid argument '$3' (usage: $usage; try --help)" >&2; exit 2; }
dest=$1
budget=${2:-540}
[[ $budget =~ ^[1-9][0-9]*$ ]] ||
    { echo "run-multirank-h200.sh: invalid BUDGET_SECONDS '$budget': a positive integer (try --help)" >&2; exit 2; }
NSYS=${NSYS:-/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys}
# a machine without a GPU ran every step to its failure and exited 0
lacks=()
nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]' || lacks+=("a GPU (nvidia-smi -L lists none)")
for t in make mpirun; do command -v "$t" >/dev/null 2>&1 || lacks+=("$t"); done
command -v "$NSYS" >/dev/null 2>&1 || lacks+=("Nsight Systems (NSYS=$NSYS)")
[ ${#lacks[@]} -eq 0 ] || {
    echo "run-multirank-h200.sh: this machine lacks $(printf '%s, ' "${lacks[@]}" | sed 's/, $//'): nothing run, $dest not made" >&2
    exit 1
}
start=$(date +%s)
why=$(mkdir -p -- "$dest" 2>&1) || { echo "run-multirank-h200.sh: DEST $dest: cannot be made (${why##*: })" >&2; exit 1; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=4
if ls .carry-dw/*.deb >/dev/null 2>&1; then
    for f in .carry-dw/*.deb; do dpkg -x "$f" /tmp/dw; done
    export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
left() { echo $((budget - ($(date +%s) - start))); }
failed=() # the steps that failed or were skipped, as the last line names them
step() { # step NAME SECONDS command...
    local name=$1 want=$2
    shift 2
    if [ "$(left)" -lt "$want" ]; then
        echo "== $name: skipped ($(left)s left)" | tee -a "$dest/steps.txt"
        failed+=("$name (skipped)")
        return 1
    fi
    local t0=$SECONDS
    echo "\$ $*" >"$dest/$name.log"
    timeout -k 5 "$want" "$@" >>"$dest/$name.log" 2>&1
    local rc=$?
    echo "== $name: rc=$rc in $((SECONDS - t0))s" | tee -a "$dest/steps.txt"
    [ "$rc" = 0 ] || failed+=("$name (rc=$rc)")
    return $rc
}
# the last line: where the results are, and the steps that did not pass
finish() {
    echo "== total $(($(date +%s) - start))s" | tee -a "$dest/steps.txt"
    if [ ${#failed[@]} -eq 0 ]; then
        echo "run-multirank-h200.sh: every step passed; results in $dest (steps.txt, manifest.txt)"
        exit 0
    fi
    echo "run-multirank-h200.sh: ${#failed[@]} step(s) did not pass: $(printf '%s, ' "${failed[@]}" | sed 's/, $//');" \
        "the others' results in $dest (each step's log: $dest/NAME.log)" | tee -a "$dest/steps.txt" >&2
    exit 1
}
{
    echo "commit: $(cat .trilap-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    "$NSYS" --version
    mpirun --version | head -n 1
} >"$dest/manifest.txt" 2>&1
step build 240 make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-fdtd bin/trilap-analyze \
    build/tests/test_gpu_multirank || finish
solve="bin/trilap-solve --backend cuda --solver pipecg --device-comm host gen:poisson7:128 --rtol 0 --atol 0"
solve="$solve --max-iterations 200 --warmup 0 --repeat 1 --stats"
analyse_one() { # analyse_one NAME COMMAND ARGS...: a failure named in the last line
    local n=$1 c=$2
    shift 2
    bin/trilap-analyze "$c" "$@" >"$dest/$n.$c.txt" 2>&1 || failed+=("$n $c (rc=$?)")
}
analyse() { # analyse RUN
    local run=$1 n
    n=$(basename "$run")
    analyse_one "$n" overlap "$run" --csv "$run.overlap.csv"
    analyse_one "$n" diagnose "$run"
    analyse_one "$n" breakdown "$run" --csv "$run.breakdown.csv"
}
# kernels per rank in a trace (every row of kind kernel, whole session) and
# the Instances of nsys's kernel summary
count() { # count RUN NSYS_CSV
    python3 - "$@" <<'PY'
import csv, glob, sys
run, ns = sys.argv[1], sys.argv[2]
per = {}
for f in sorted(glob.glob(run + "/trace.rank*.csv")):
    rows = (l for l in open(f) if not l.startswith("#"))
    for r in csv.DictReader(rows):
        if r["kind"] == "kernel":
            per[int(r["rank"])] = per.get(int(r["rank"]), 0) + 1
tot = 0
try:
    rows = [l for l in open(ns) if "," in l]
    for r in csv.DictReader(rows):
        tot += int(r["Instances"])
except OSError:
    tot = -1
s = sum(per.values())
for k in sorted(per):
    print("%s,%d,%d,%d,%d,%s" % (run.split("/")[-1], k, per[k], s, tot, "yes" if s == tot else "NO"))
PY
}
# one header for the six runs' rows (each run had printed its own)
echo "run,rank,kernels_trace,kernels_sum_over_ranks,kernels_nsys,equal" >"$dest/kernel-counts.csv"
for r in 1 2 4; do
    step "pcg-threads-r$r" 90 $solve --ranks "$r" --trace "$dest/pcg-threads-r$r" --cupti && analyse "$dest/pcg-threads-r$r"
    step "pcg-mpi-r$r" 90 mpirun -np "$r" $solve --launcher mpi --trace "$dest/pcg-mpi-r$r" --cupti &&
        analyse "$dest/pcg-mpi-r$r"
    step "nsys-r$r" 90 "$NSYS" profile -t cuda,nvtx --sample none --cpuctxsw none --force-overwrite true \
        -o "$dest/nsys-r$r" $solve --ranks "$r" &&
        step "nsys-stats-r$r" 60 "$NSYS" stats -r cuda_gpu_kern_sum --format csv --force-export true \
            -o "$dest/nsys-r$r" "$dest/nsys-r$r.nsys-rep"
    count "$dest/pcg-threads-r$r" "$dest/nsys-r${r}_cuda_gpu_kern_sum.csv" >>"$dest/kernel-counts.csv"
    count "$dest/pcg-mpi-r$r" "$dest/nsys-r${r}_cuda_gpu_kern_sum.csv" >>"$dest/kernel-counts.csv"
done
# a short two-rank export for the Nsight Systems reader (ranks are threads of one process)
step nsys-export-r2 120 bash -c "'$NSYS' profile -t cuda,nvtx --sample none --cpuctxsw none --force-overwrite true \
    -o '$dest/nsys-short-r2' ${solve/--max-iterations 200/--max-iterations 20} --ranks 2 &&
    '$NSYS' export --type sqlite --force-overwrite true -o '$dest/nsys-short-r2.sqlite' '$dest/nsys-short-r2.nsys-rep'" &&
    bin/trilap-analyze overlap "$dest/nsys-short-r2.sqlite" >"$dest/nsys-short-r2.overlap.txt" 2>&1
step fdtd-r4 120 bin/trilap-fdtd run --backend cuda --ranks 4 --device-comm host --decomp pencil-yz --grid 256 \
    --steps 50 --trace "$dest/fdtd-r4" && analyse "$dest/fdtd-r4"
step fdtd-r1 60 bin/trilap-fdtd run --backend cuda --grid 256 --steps 50 --trace "$dest/fdtd-r1" &&
    analyse "$dest/fdtd-r1"
# the GPU test of these cases, as make check-gpu runs it
step test-gpu-multirank 150 env TL_BIN=bin TL_BUILD=build TL_HAVE_MPI=1 TL_MPIRUN="$(command -v mpirun)" \
    tests/run.sh build/tests/test_gpu_multirank
rm -f "$dest"/*.qdstrm "$dest"/nsys-r?.nsys-rep "$dest"/nsys-r?.sqlite
find "$dest" -name 'trace.rank*.csv' -exec gzip -9 {} +
finish
