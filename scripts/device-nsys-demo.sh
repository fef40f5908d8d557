#!/usr/bin/env bash
# One lent one-GPU call for issue 10 (Nsight Systems and the one-GPU demo):
# build; `nsys profile -t cuda,nvtx` of a plain `trilap-bench tristream
# --gpus 1` (no --trace: the NVTX ranges of every run) and of one with
# `--trace-mode nvtx` and no --trace, each exported to sqlite with a summary
# of its NVTX domains and ranges; then the live `make demo` on the GPU
# (TRILAP_NO_INSTALL=1: no internet there, and no gnuplot, so the report is
# written without pictures). Everything lands in $OUT/nsys-demo.tar.gz
# (OUT [device-out]).
#   scripts/device-nsys-demo.sh [BUDGET_SECONDS=280]
# NSYS: the nsys to run [/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys]
# Nsight Systems' importer needs libdw: .dw/*.deb (apt-get download libdw1
# libelf1) are unpacked into /tmp/dw when present.

# not -e: each step is bounded and logged, and a failed one must not stop the others
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
budget=${1:-280}
# before, 'x' ran the session with $((budget - ...)) reading it as 0
[[ $budget =~ ^[1-9][0-9]*$ ]] ||
    { echo "${0##*/}: invalid BUDGET_SECONDS '$budget': a positive integer (try --help)" >&2; exit 2; }
[ $# -le 1 ] || { echo "${0##*/}: invalid argument '$2': at most BUDGET_SECONDS (try --help)" >&2; exit 2; }
start=$(date +%s)
out=${OUT:-device-out}
# not -e: an OUT that is a file, or one it cannot write in, had every
# step run and its archive lost
mkdir -p -- "$out" 2>/dev/null && [ -d "$out" ] && [ -w "$out" ] ||
    { echo "${0##*/}: cannot write into OUT $out: $([ -e "$out" ] && [ ! -d "$out" ] && echo "a file is there, not a folder" || echo "not a folder it can make or write in")" >&2; exit 1; }
d=$(mktemp -d)/nsys-demo
mkdir -p "$d"
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
NSYS=${NSYS:-/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys}
for dw in .dw ../../.dw; do
    if ls "$dw"/*.deb >/dev/null 2>&1; then
        for f in "$dw"/*.deb; do dpkg -x "$f" /tmp/dw; done
        export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
        break
    fi
done
left() { echo $((budget - ($(date +%s) - start))); }
step() { # step NAME SECONDS command...
    local name=$1 want=$2
    shift 2
    if [ "$(left)" -lt "$want" ]; then
        echo "== $name: skipped ($(left)s left)" | tee -a "$d/steps.txt"
        return
    fi
    local t0
    t0=$(date +%s.%N)
    timeout -k 5 "$want" "$@" >"$d/$name.log" 2>&1
    local rc=$?
    echo "== $name: rc=$rc in $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")s" | tee -a "$d/steps.txt"
}
{
    nvidia-smi -L
    nproc
    "$NSYS" --version
    cat .trilap-commit 2>/dev/null
} >"$d/machine.txt" 2>&1
step build 150 make -j16 CUDA_ARCH=90 bin/trilap-bench bin/trilap-analyze
tail -n 3 "$d/build.log"
nsys_one() { # nsys_one NAME trilap-bench arguments...
    local name=$1
    shift
    step nsys-$name 60 "$NSYS" profile -t cuda,nvtx --sample none --cpuctxsw none --force-overwrite true \
        -o "$d/$name" bin/trilap-bench "$@"
    step export-$name 40 "$NSYS" export --type sqlite --force-overwrite true -o "$d/$name.sqlite" \
        "$d/$name.nsys-rep"
}
nsys_one plain tristream --gpus 1 --iters 100 --repeat 1 --warmup 10
nsys_one trace-mode-nvtx tristream --gpus 1 --variants three-split --trace-mode nvtx --iters 100 --repeat 1 \
    --warmup 10
# what each export holds: domains, and the ranges per domain and name
python3 - "$d" <<'PY' >"$d/nvtx-summary.txt" 2>&1
import glob, sqlite3, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.sqlite")):
    c = sqlite3.connect(f)
    name = "coalesce(text, (SELECT value FROM StringIds WHERE id = textId))"
    print("##", f.split("/")[-1])
    doms = dict(c.execute("SELECT domainId, %s FROM NVTX_EVENTS WHERE eventType = 75" % name).fetchall())
    print("domains:", sorted(set(doms.values())))
    for dom, n, k in c.execute("SELECT domainId, %s, count(*) FROM NVTX_EVENTS WHERE eventType = 59 "
                               "GROUP BY domainId, 2 ORDER BY domainId, 2" % name):
        print("  %-8s %-24s %6d" % (doms.get(dom, "(default)"), n, k))
    print("kernels:", c.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0])
PY
cat "$d/nvtx-summary.txt"
# the live demo on this one GPU, as the README's command
step demo 120 env TRILAP_NO_INSTALL=1 make -j16 CUDA_ARCH=90 demo DEMO_OUT="$d/demo"
tail -n 40 "$d/demo.log"
rm -f "$d"/*.qdstrm
ls -la "$d" >"$d/ls.txt"
echo "== total $(($(date +%s) - start))s" | tee -a "$d/steps.txt"
tar -C "$(dirname "$d")" -czf "$out/nsys-demo.tar.gz" nsys-demo
ls -la "$out"
