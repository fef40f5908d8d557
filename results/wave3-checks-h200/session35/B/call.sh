#!/usr/bin/env bash
# session35 call B: README's "Your first hour" on a GPU node, the commands as written there,
# each with its wall time and exit status, then Nsight Systems' export read by trilap-analyze.
# The machine has no internet: make demo runs with TRILAP_NO_INSTALL=1 (nothing to install: its
# Debian packages' check needs apt's network); no gnuplot there, so the demo says the pictures need it.
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session35/B; mkdir -p $O; T=/tmp/fh; rm -rf $T; mkdir -p $T
pack() { (cd $OUT && tar czf session35-B.tgz session35); }
echo "tree: .trilap-commit $(cat .trilap-commit)" | tee $O/tree.txt
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
# step NAME LIMIT CMD...: the command line, its output, wall seconds and exit status into $O/NAME.txt
step() {
    local name=$1 lim=$2; shift 2
    local t0=$SECONDS
    { echo "\$ $*"; timeout $lim "$@"; echo "# exit $? after $((SECONDS - t0)) s"; } > $O/$name.txt 2>&1
    tail -n 1 $O/$name.txt | sed "s/^/$name: /"
}
step make 300 make -j16 CUDA_ARCH=90 all
step demo 200 env TRILAP_NO_INSTALL=1 make demo
cp demo-out/report.txt $O/demo-report.txt 2>/dev/null
pack
step tristream 120 bin/trilap-bench tristream --trace $T/tr
step diagnose 30 bin/trilap-analyze diagnose $T/tr/three-naive
step compare 30 bin/trilap-analyze compare $T/tr/two-stream $T/tr/three-split
step solve 60 bin/trilap-solve --backend cuda --solver pipecg --schedule two-stream,three-split gen:poisson7:128
pack
cat > $T/prog.py <<'PY'
import torch
a = torch.randn(2048, 2048, device="cuda")
for _ in range(50):
    a = torch.tanh(a @ a) * 0.5
torch.cuda.synchronize()
print("done", float(a.sum()))
PY
step inject 120 mpirun --allow-run-as-root -np 2 -x CUDA_INJECTION64_PATH=$PWD/build/lib/libtrilap-inject.so -x TRILAP_TRACE_DIR=$T/inj python3 $T/prog.py
step inject-diagnose 30 bin/trilap-analyze diagnose $T/inj
mkdir -p /tmp/dw && for d in .carry/dw/*.deb; do dpkg -x $d /tmp/dw; done
export LD_LIBRARY_PATH=/tmp/dw/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NSYS=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
step nsys 120 $NSYS profile -t cuda,nvtx -o $T/rep bin/trilap-solve --backend cuda --solver pipecg gen:poisson7:64
step nsys-export 120 $NSYS export --type sqlite -o $T/rep.sqlite $T/rep.nsys-rep
step nsys-diagnose 30 bin/trilap-analyze diagnose $T/rep.sqlite
pack
rm -rf $OUT/session35
