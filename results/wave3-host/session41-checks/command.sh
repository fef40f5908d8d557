#!/usr/bin/env bash
# The host figures of session41's closing note, from one command run in the repository root after
# `make all` (no GPU): bash results/wave3-host/session41-checks/command.sh > output.txt 2>&1
set -u
export LC_ALL=C
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
echo "# commit $(git rev-parse --short=12 HEAD)"
say() { echo; echo "\$ $*"; }
# solvers: OMP_NUM_THREADS read, gen: defaults shared with trilap-matgen, --results over an input
say "OMP_NUM_THREADS= trilap-solve --ranks 2 gen:poisson7:4 | threads"
OMP_NUM_THREADS= bin/trilap-solve --ranks 2 gen:poisson7:4 2>&1 | grep -iE "omp|OMP_NUM_THREADS" | grep -v "^libgomp"
say "OMP_NUM_THREADS=8 trilap-solve --ranks 2 gen:poisson7:4 | threads (cores here: $(nproc))"
OMP_NUM_THREADS=8 bin/trilap-solve --ranks 2 gen:poisson7:4 2>&1 | grep -iE "omp|warning"
say "trilap-matgen hetero2d 20 h20.mtx; trilap-solve --solver pcg h20.mtx / gen:hetero2d:20 | iterations"
bin/trilap-matgen hetero2d 20 "$t/h20.mtx" > /dev/null 2>&1
bin/trilap-solve --solver pcg "$t/h20.mtx" 2>&1 | grep -E "^iterations"
bin/trilap-solve --solver pcg gen:hetero2d:20 2>&1 | grep -E "^matrix|^iterations"
say "trilap-solve --results A.mtx A.mtx"
cp "$t/h20.mtx" "$t/A.mtx"
(cd "$t" && /work/main/bin/trilap-solve --results A.mtx A.mtx 2>&1; echo "exit $?")
say "a 1 x 1 Matrix Market file with its entry on two lines"
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 2\n1 1 1\n1 1 1\n' > "$t/dup.mtx"
bin/trilap-matgen info "$t/dup.mtx" 2>&1 | sed "s|$t/||g" | head -4; echo "exit ${PIPESTATUS[0]}"
say "trilap-bench tristream --sweep ring-bytes"
bin/trilap-bench tristream --sweep ring-bytes 2>&1; echo "exit $?"
# trilap-fdtd: the thinnest subdomain named; the slices kept after a blow-up
say "trilap-fdtd run --grid 9x16x16 --periodic --decomp 2x1x1 --steps 1"
bin/trilap-fdtd run --grid 9x16x16 --periodic --decomp 2x1x1 --steps 1 2>&1; echo "exit $?"
say "trilap-fdtd run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 10 --slice-every 3 --slice-dir sl"
(cd "$t" && /work/main/bin/trilap-fdtd run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 10 \
    --slice-every 3 --slice-dir sl 2>&1 >/dev/null; echo "exit $?"; ls sl)
# trilap-model: one configuration's rows, the traces beside the CSV, 32-bit parts, --calib-sizes
say "trilap-model calibrate --tristream results/tristream-knobs-h200x2/knobs.csv -o c.txt"
bin/trilap-model calibrate --tristream results/tristream-knobs-h200x2/knobs.csv -o "$t/c.txt" 2>&1; echo "exit $?"
say "trilap-model calibrate --tristream results/tristream-knobs-h200x2/knobs.csv --traces results/tristream-h200x2 -o c.txt"
bin/trilap-model calibrate --tristream results/tristream-knobs-h200x2/knobs.csv --traces results/tristream-h200x2 \
    -o "$t/c.txt" 2>&1; echo "exit $?"; ls "$t/c.txt" 2>&1 | sed "s|$t/||g"
say "trilap-model calibrate --tristream results/tristream-maxconn32-h200x2/tristream.csv -o c.txt | xstream_us, nccl_rate"
bin/trilap-model calibrate --tristream results/tristream-maxconn32-h200x2/tristream.csv -o "$t/c.txt" > /dev/null 2>&1
grep -E "^(xstream_us|nccl_rate)" "$t/c.txt"
say "trilap-model solver --platform h200-nvlink --gpus 2 --matrix gen:poisson7:1024 --iters 1 --schedules two-stream"
bin/trilap-model solver --platform h200-nvlink --gpus 2 --matrix gen:poisson7:1024 --iters 1 --schedules two-stream 2>&1; echo "exit $?"
say "trilap-model fdtd --calib-sizes 640,800"
bin/trilap-model fdtd --calib-sizes 640,800 2>&1; echo "exit $?"
# runtime: a .gz of less than gzip's magic
say "trilap-matgen info e.mtx.gz (one byte, 0x1f)"
printf '\037' > "$t/e.mtx.gz"
bin/trilap-matgen info "$t/e.mtx.gz" 2>&1 | sed "s|$t/||g"; echo "exit ${PIPESTATUS[0]}"
