#!/usr/bin/env bash
# session39's host figures quoted in its closing note, from the repository root
# with bin/ built and ../shared/data read-only beside it (TL_DATA overrides):
#   bash results/wave3-host/session39-checks/command.sh > output.txt 2>&1
set -u
data=${TL_DATA:-../shared/data}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
say() { echo; echo "\$ $*"; "$@" 2>&1; echo "(exit $?)"; }
echo "# commit $(git rev-parse --short=12 HEAD)"
# the option parser (runtime/options.c)
say bin/trilap-solve --no-no-gpu gen:poisson7:8
say bin/trilap-solve --rtol 0x1p-3 gen:poisson7:8
say bin/trilap-bench stream --host --count 64KB
# diagnose and collectives on the committed PyTorch profiler trace: the waits the host records
k=results/kineto-h200/torch-kineto.rank0.json.gz
echo; echo "\$ trilap-analyze diagnose $k | the queued-communication finding"
bin/trilap-analyze diagnose "$k" 2>&1 | grep -A3 'FINDING.*queued'
echo; echo "\$ trilap-analyze collectives $k | rows behind a host-recorded wait: count, least and most waited us"
bin/trilap-analyze collectives "$k" 2>/dev/null | grep 'event: cudaStreamWaitEvent' | awk '{print $(NF-6)}' | sort -n |
    awk '{ v[NR] = $1 } END { print NR " rows, " v[1] " to " v[NR] " us" }'
cp -r "$data/kineto/trace_diff_control" "$t/tdc" && chmod -R u+w "$t/tdc"
echo; echo "\$ trilap-analyze collectives trace_diff_control | its finding line"
bin/trilap-analyze collectives "$t/tdc" 2>&1 | grep '^# finding' | head -4
# compare: exchanges per step of two CPU FDTD runs, --s 1 and --s 2
for s in 1 2; do OMP_NUM_THREADS=1 bin/trilap-fdtd run --backend cpu --grid 32 --steps 8 --decomp 1x1x2 \
    --launcher threads --ranks 2 --s $s --trace "$t/s$s" > /dev/null 2>&1; done
echo; echo "\$ trilap-analyze compare (--s 1) (--s 2) | comm_calls_per_iter"
bin/trilap-analyze compare "$t/s1" "$t/s2" 2>&1 | grep comm_calls_per_iter
# trilap-model: the committed calibration's numbers read as an H200's and as an A100's
cp results/model/calib-h200.txt "$t/h200.txt"
{ grep -v "^gpu = " results/model/calib-h200.txt; echo "gpu = NVIDIA A100-SXM4-80GB"; } > "$t/a100.txt"
for c in h200 a100; do
    echo; echo "\$ trilap-model solver --calib $c.txt --platform a100-hdr --gpus 4 --schedules two-stream --matrix gen:poisson7:128 | kernels, iteration"
    bin/trilap-model solver --calib "$t/$c.txt" --platform a100-hdr --gpus 4 --schedules two-stream \
        --matrix gen:poisson7:128 2>&1 | grep -E '^# kernels|^ *4 ' | cut -c1-220
done
