#!/usr/bin/env bash
# session36 call B: on a GPU node without libsqlite3-dev or libjson-c-dev, trilap-analyze (SQLite loaded
# at run time, JSON read by its own reader) reads the Nsight Systems export made there; which libraries the
# node has; a PyTorch profiler (Kineto) trace made there, read by trilap-analyze; then
# bench-cpml.sh (480, 1024^3), rewritten around scripts/parts.sh in this session. First the build
# and the FDTD GPU tests (scripts/device-session.sh build,fdtd-tests).
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session36/B; mkdir -p $O; T=/tmp/fh; rm -rf $T; mkdir -p $T
pack() { (cd $OUT && tar czf session36-B.tgz session36); }
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
step() {
    local name=$1 lim=$2; shift 2
    local t0=$SECONDS
    { echo "\$ $*"; timeout $lim "$@"; echo "# exit $? after $((SECONDS - t0)) s"; } > $O/$name.txt 2>&1
    tail -n 1 $O/$name.txt | sed "s/^/$name: /"
}
{ ldconfig -p | grep -E 'libsqlite3|libjson-c'; ls /usr/include/sqlite3.h /usr/include/json-c 2>&1; } > $O/libs.txt 2>&1; cat $O/libs.txt
# the build and the FDTD GPU tests (trilap-fdtd's output checks, prefixes and --gpus refusal merged after call A)
TL_DATA=.carry/data scripts/device-session.sh $O/fdtd 260 build,fdtd-tests > /dev/null 2>&1
tail -n 3 $O/fdtd/session.log; grep "^not ok" $O/fdtd/fdtd-tests.log | head; echo "[$SECONDS s] build, fdtd-tests"
grep -E '^  (SQLite|json-c)' $O/fdtd/build.log
step ldd 10 sh -c 'ldd bin/trilap-analyze | grep -E "sqlite|json|libdl"'
pack
mkdir -p /tmp/dw && for d in .carry/dw/*.deb; do dpkg -x $d /tmp/dw; done
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
step nsys 120 env LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu $NSYS profile -t cuda,nvtx -o $T/rep bin/trilap-solve --backend cuda --solver pipecg gen:poisson7:64
step nsys-export 120 env LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu $NSYS export --type sqlite -o $T/rep.sqlite $T/rep.nsys-rep
step nsys-diagnose 30 bin/trilap-analyze diagnose $T/rep.sqlite
step nsys-breakdown 30 bin/trilap-analyze breakdown $T/rep.sqlite
pack
cat > $T/kineto.py <<'PY'
import torch, sys
from torch.profiler import profile, ProfilerActivity
a = torch.randn(2048, 2048, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
    for _ in range(20):
        a = torch.tanh(a @ a) * 0.5
    torch.cuda.synchronize()
p.export_chrome_trace(sys.argv[1])
print("written", sys.argv[1])
PY
step kineto 120 python3 $T/kineto.py $T/kineto.json
gzip -c $T/kineto.json > $O/kineto.json.gz 2>/dev/null
step kineto-diagnose 30 bin/trilap-analyze diagnose $T/kineto.json
pack
# the GPU scripts the scripts36 merge touched (parts.sh; the checkout's bin/ by default)
step bench-cpml 120 scripts/bench-cpml.sh $O/cpml --sizes "480 1024" --reps 1
cat $O/cpml/table.txt 2>/dev/null; pack
rm -rf $OUT/session36
