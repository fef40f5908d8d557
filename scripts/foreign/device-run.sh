#!/usr/bin/env bash
# One lent H200 call that records the foreign-program data of issue 13:
# build the injection library, the microbenchmark and the inject helper;
# PyTorch and CuPy programs untraced and traced by libtrilap-inject.so,
# alternating, REPS times each (the overhead, same machine, same call);
# Nsight Systems profiles (cuda,nvtx) of a PyTorch run, of
# trilap-bench tristream --gpus 1 and of the inject helper, exported to
# sqlite with `nsys stats` cuda_gpu_kern_sum next to them. Everything
# lands in OUT/foreign.tar.gz, which the last line names.
#   scripts/foreign/device-run.sh OUT [BUDGET_SECONDS=280]
# It needs a GPU (nvidia-smi -L lists one), make, Nsight Systems and
# PyTorch (python3 -c 'import torch'): where one is missing it says so in
# one line and exits 1 before OUT is made. The CuPy steps are optional:
# where CuPy does not import they are skipped, a line saying so, and the
# run does not fail for it. Every other step is required: one that fails,
# or that the budget leaves no time for, is named in the last line, exit 1,
# the other steps' files still in OUT/foreign.tar.gz.
# NSYS: the nsys to run [/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys]
# NSYS_WANT: the seconds of each profile [60].
# REPS: the untraced and traced runs of each program [3].

# not -e: each step is bounded and logged, and a failed one must not stop the others
set -uo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# OUT was a variable and $1 the budget, so `device-run.sh OUT` (REPRODUCE.md)
# ran with the budget "OUT", every step's test an error, exit 0
. "$(dirname "$0")/steps.sh" # steps_args, left, step, steps_need, steps_end
steps_args device-run.sh "$@" # out, budget
REPS=${REPS:-3}
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "device-run.sh: invalid REPS '$REPS': a positive integer" >&2; exit 2; }
NSYS=${NSYS:-/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys}
steps_need device-run.sh "$out" gpu make "$NSYS|Nsight Systems (NSYS=$NSYS)" torch
progs="torch cupy"
python3 -c 'import cupy' >/dev/null 2>&1 || progs=torch
start=$(date +%s)
d=$(mktemp -d)/foreign
why=$(mkdir -p -- "$d" "$out" 2>&1) || { echo "device-run.sh: OUT $out: cannot be made (${why##*: })" >&2; exit 1; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ls .dw/*.deb >/dev/null 2>&1; then
  for f in .dw/*.deb; do dpkg -x "$f" /tmp/dw; done
  export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
INJ=$PWD/build/lib/libtrilap-inject.so
{ nvidia-smi -L; nproc; python3 -c 'import torch,sys;print("torch",torch.__version__,"cuda",torch.version.cuda,"nccl",torch.cuda.nccl.version())';
  python3 -c 'import cupy;print("cupy",cupy.__version__)'; "$NSYS" --version; cat .trilap-commit 2>/dev/null; } > "$d/machine.txt" 2>&1
[ "$progs" != torch ] ||
  echo "== cupy: its steps skipped: CuPy does not import here (optional)" | tee -a "$d/steps.txt"
step build 120 make -j16 CUDA_ARCH=90 build/lib/libtrilap-inject.so bin/trilap-bench build/tests/helper_inject_target
tail -n 3 "$d/build.log"
# overhead: the program's own loop time, and the process wall time, untraced vs traced
for prog in $progs; do
  for r in $(seq 1 "$REPS"); do
    step $prog-plain-$r 40 python3 scripts/foreign/${prog}_prog.py --iters 200
    step $prog-inject-$r 40 env CUDA_INJECTION64_PATH=$INJ TRILAP_TRACE_DIR=$d/$prog-inject-$r \
      python3 scripts/foreign/${prog}_prog.py --iters 200
  done
done
grep -h -E 'prog:|trilap-inject' "$d"/*-plain-*.log "$d"/*-inject-*.log | head -40
step helper-inject 30 env CUDA_INJECTION64_PATH=$INJ TRILAP_TRACE_DIR=$d/helper-inject build/tests/helper_inject_target 20
nsys_one() { # nsys_one NAME command...
  local name=$1; shift
  step nsys-$name ${NSYS_WANT:-60} "$NSYS" profile -t cuda,nvtx --sample none --cpuctxsw none --force-overwrite true -o "$d/$name" "$@"
  step export-$name 30 "$NSYS" export --type sqlite --force-overwrite true -o "$d/$name.sqlite" "$d/$name.nsys-rep"
  step stats-$name 30 bash -c "'$NSYS' stats --report cuda_gpu_kern_sum --format csv '$d/$name.sqlite' > '$d/$name.kern_sum.csv'; '$NSYS' stats --report cuda_gpu_mem_time_sum --format csv '$d/$name.sqlite' > '$d/$name.mem_time_sum.csv'"
}
nsys_one torch python3 scripts/foreign/torch_prog.py --iters 30 --nvtx
nsys_one tristream bin/trilap-bench tristream --gpus 1 --iters 300 --repeat 1 --warmup 20 --trace "$d/tristream-probes" --trace-iters 100
NSYS_WANT=30 nsys_one helper build/tests/helper_inject_target 10
[ "$progs" = torch ] || NSYS_WANT=30 nsys_one cupy python3 scripts/foreign/cupy_prog.py --iters 30
# the schema of the export, for the importer
python3 - "$d" <<'PY' > "$d/sqlite-schema.txt" 2>&1
import sqlite3, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/*.sqlite")):
    c = sqlite3.connect(f)
    print("##", f)
    for (name, sql) in c.execute("select name, sql from sqlite_master where type='table' order by name"):
        n = c.execute("select count(*) from [%s]" % name).fetchone()[0]
        print("-- %s rows=%d\n%s" % (name, n, sql))
PY
rm -f "$d"/*.nsys-rep.qdstrm
ls -la "$d" > "$d/ls.txt"
echo "== total $(( $(date +%s) - start ))s" | tee -a "$d/steps.txt"
# under a temporary name, renamed once whole: a run cut short leaves no cut tarball
tar -C "$(dirname "$d")" --exclude "*.nsys-rep" -czf "$out/foreign.part$$.tar.gz" foreign &&
  mv -f -- "$out/foreign.part$$.tar.gz" "$out/foreign.tar.gz" ||
  { rm -f -- "$out/foreign.part$$.tar.gz"; steps_failed+=("the tarball (tar failed)"); }
ls -la "$out"
steps_end device-run.sh "$out/foreign.tar.gz"
