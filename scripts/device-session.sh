#!/usr/bin/env bash
# One bounded session on a lent GPU machine for everything that needs a GPU.
# The steps run in the order given; each is bounded by its own limit and by
# what is left of TOTAL_SECONDS; a failed step is recorded and the rest goes
# on. Everything lands in DEST, and DEST.tgz holds it in one file. A machine
# without a GPU (nvidia-smi -L lists none) is refused: exit 1, DEST not made.
#
#   scripts/device-session.sh DEST [TOTAL_SECONDS] [STEPS]      (TOTAL_SECONDS: 450)
#
# STEPS, a comma list (default: build,check-gpu,fdtd-verify,demo):
#   build            make all gpu-tests
#   build-fdtd       only what the fdtd-* steps need (trilap-fdtd, trilap-bench, the FDTD GPU tests)
#   check-gpu        make check-gpu: every GPU test (test_gpu_solvers cases 4 at
#                    a time, their GPU runs taking turns); every test's log in
#                    DEST/test-logs.txt (each after a `==> test-logs/NAME <==` line),
#                    the solver tests' run times in DEST/solver-times.txt
#   check-gpu-1      the same for the five longest solver comparisons only
#                    (about 150 s on one H200), and
#   check-gpu-2      for every other GPU test (about 260 s): make check-gpu in
#                    two device calls, `build,check-gpu-1` then `build,check-gpu-2`
#   solver-tests     test_gpu_solvers (4 cases at a time) and test_gpu_nccl alone,
#                    as make check-gpu runs them (a re-run after a fix there)
#   fdtd-tests       test_gpu_fdtd and test_gpu_fdtd_ranks alone
#   fdtd-verify      trilap-fdtd verify convergence / decomp on the GPU
#   fdtd-ranks       one pencil-yz 320^3 row per path: 4 ranks host-staged
#                    (strategy devcomm), one process host / peer
#   demo             make demo (the live solver part on the GPU)
#   fdtd-bench       scripts/bench-fdtd.sh: its default kernels at 320-640^3, the
#                    4-subdomain pencil-yz per strategy, traced
#   fdtd-kernels     scripts/bench-fdtd.sh: the FDTD_KERNELS (naive pipelined vec2 vec4
#                    vec4-x128 vec4-band) at 480^3, FDTD_DOUBLE (naive vec2 vec4)
#                    also in double, breakdowns of the FDTD_KERNELS
#   fdtd-sizes       FDTD_SIZE_KERNELS (naive vec4 vec4-band) at FDTD_SIZES (320 544
#                    640 800 1024)^3
#   solver-fuse      scripts/bench-solvers-gpu.sh --fuse-compare on p7-128, p7-256
#   solver-roof      scripts/bench-solver-roof.sh --trace: Pipe-PCG on poisson7 64-256^3
#                    against its byte roofline, the kernel variants side by side
#                    (VARIANTS); with OLD_TREE (a source tree) also its trilap-solve,
#                    built here, side by side and bit for bit; ROOF_BUDGET its
#                    seconds (default 170)
#   solver-protocol  scripts/bench-solvers-protocol.sh --breakdown, with what is left
#   solver-bench     scripts/bench-solvers-gpu.sh, with what is left
# Two GPUs (issue 14; skipped with fewer), each study in a folder with its manifest:
#   tristream-2gpu   run-tristream.sh 2 with the program's defaults, traced, and
#                    bench-trace-overhead.sh 2 three-split
#   solvers-2gpu     trilap-solve on 1 and 2 GPUs, every schedule, the paper's
#                    protocol (10,000 Pipe-PCG / 1,000 Pipe-BiCGStab iterations;
#                    PROTOCOL=quick: 1,000 / 100), traces of 64^3 and 256^3 diagnosed
#   fdtd-2gpu        trilap-fdtd on 1 and 2 GPUs: strategies at 320-1024^3, ghost
#                    widths, decompositions, traces, verify decomp
#   (the two-GPU session: build,check-gpu,tristream-2gpu,solvers-2gpu,fdtd-2gpu
#   in 1500 s, CHECK_GPU_LIMIT=600; it was scripts/device-two-gpu-session.sh)
# Matrices: TL_DATA (default ../shared/data, else .carry/data). CHECK_GPU_LIMIT:
# the seconds of check-gpu (default 420). OMP_NUM_THREADS: the OpenMP
# threads of the programs it runs (default 16).

# not -e / pipefail: every step is bounded and its outcome logged; a failed
# step must not cost the lent session the steps after it
set -u
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
# a command line it cannot run is refused before DEST is made: on a lent
# machine a mistyped step was a log line in a session that went on (exit 0),
# a TOTAL_SECONDS of 'abc' a session that skipped every step
usage="usage: device-session.sh DEST [TOTAL_SECONDS] [STEPS]; try --help"
case ${1:-} in
  '') echo "device-session.sh: no DEST given ($usage)" >&2; exit 2 ;;
  -*) echo "device-session.sh: invalid argument '$1' ($usage)" >&2; exit 2 ;;
esac
[ $# -le 3 ] || { echo "device-session.sh: invalid argument '$4' ($usage)" >&2; exit 2; }
dest=$1
total=${2:-450}
steps=${3:-build,check-gpu,fdtd-verify,demo}
[[ $total =~ ^[1-9][0-9]*$ ]] ||
    { echo "device-session.sh: invalid TOTAL_SECONDS '$total': a positive integer (try --help)" >&2; exit 2; }
# the steps are those the header lists ('#   NAME   what it does')
known=$(awk 'NR > 1 && !/^#/ { exit } /^#   [a-z][a-z0-9-]+  / { print $2 }' "$0")
IFS=, read -r -a order <<<"$steps,"
for s in "${order[@]}"; do
    grep -qxF -- "$s" <<<"$known" ||
        { echo "device-session.sh: unknown step '$s' in STEPS (try --help: it lists them)" >&2; exit 2; }
done
# a machine without a GPU is refused before DEST is made: every step
# needs one, and there the build step ran make -j16 and the rest failed
# one by one in a session that exited 0
nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]' ||
    { echo "device-session.sh: this machine lacks a GPU (nvidia-smi -L lists none): nothing run, $dest not made" >&2; exit 1; }
fdtd_kernels=${FDTD_KERNELS:-naive pipelined vec2 vec4 vec4-x128 vec4-band}
fdtd_double=${FDTD_DOUBLE:-naive vec2 vec4}
fdtd_sizes=${FDTD_SIZES:-320 544 640 800 1024}
fdtd_size_kernels=${FDTD_SIZE_KERNELS:-naive vec4 vec4-band}
mkdir -p "$dest" || exit 1
start=$SECONDS
left() { echo $((total - (SECONDS - start))); }
log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$dest/session.log"; }
# step LIMIT LOGFILE CMD...: bounded by LIMIT and by what is left
step() {
    local lim=$1 f=$2
    shift 2
    local l
    l=$(left)
    [ "$lim" -gt "$l" ] && lim=$l
    if [ "$lim" -le 5 ]; then
        log "skipped (no time left): $*"
        return 0
    fi
    echo "\$ $* (limit ${lim}s)" >>"$dest/$f"
    timeout "$lim" "$@" >>"$dest/$f" 2>&1
    log "exit $?: $* (limit ${lim}s)"
    return 0
}
# rest RESERVE: the seconds a budgeted step may use, keeping RESERVE for the tar
rest() { echo $(($(left) - $1)); }
# two_gpus STEP: true with two GPUs or more, else the step is logged as skipped
two_gpus() {
    [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -ge 2 ] && return 0
    log "skipped $1: needs 2 GPUs"
    return 1
}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
[ -f .trilap-commit ] && export TRILAP_COMMIT=$(head -n1 .trilap-commit)
export TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=${TL_DATA:-$PWD/../shared/data}
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/.carry/data
# the five test_gpu_solvers cases that take 65-125 s each (check-gpu-1)
long_solver_tests='^test_gpu_solvers:(cg_family_1138_bus|bicgstab_family_1138_bus|cg_family_ani4|bicgstab_family_ani1_nonsymm|fused_pass_equals_separate_kernels)$'
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN="$mpirun_path"
{
    echo "commit: $(cat .trilap-commit 2>/dev/null || git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "steps: $steps (total ${total} s)"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    nvidia-smi topo -m # how the GPUs connect (the two-GPU steps)
    echo "TL_DATA=$TL_DATA"
} >>"$dest/manifest.txt" 2>&1

for s in "${order[@]}"; do
    case $s in
    build) step 170 build.log make -j16 CUDA_ARCH=90 all gpu-tests ;;
    build-fdtd)
        step 120 build.log make -j16 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd \
            build/tests/test_gpu_fdtd_ranks
        ;;
    check-gpu | check-gpu-1 | check-gpu-2)
        sel=()
        [ "$s" = check-gpu-1 ] && sel=(TL_TEST_FILTER="$long_solver_tests")
        [ "$s" = check-gpu-2 ] && sel=(TL_TEST_EXCLUDE="$long_solver_tests")
        step "${CHECK_GPU_LIMIT:-420}" check-gpu.log env "${sel[@]}" make CUDA_ARCH=90 TL_DATA="$TL_DATA" check-gpu
        mkdir -p "$dest/test-logs"
        cp build/test-logs/*.log "$dest/test-logs/" 2>/dev/null
        grep -h '^gpu run:\|^host references:\|comparisons' build/test-logs/test_gpu_solvers.*.log \
            >"$dest/solver-times.txt" 2>/dev/null
        tail -n 1 "$dest/check-gpu.log" | tee -a "$dest/session.log"
        ;;
    solver-tests)
        step 300 solver-tests.log env TL_TEST_TIMEOUT=280 TL_TEST_JOBS=4 TL_TEST_PARALLEL='^test_gpu_solvers:' \
            tests/run.sh build/tests/test_gpu_solvers build/tests/test_gpu_nccl
        mkdir -p "$dest/test-logs"
        cp build/test-logs/test_gpu_solvers.*.log build/test-logs/test_gpu_nccl.*.log "$dest/test-logs/" 2>/dev/null
        tail -n 1 "$dest/solver-tests.log" | tee -a "$dest/session.log"
        ;;
    fdtd-tests)
        step 120 fdtd-tests.log env TL_TEST_TIMEOUT=75 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks
        tail -n 1 "$dest/fdtd-tests.log" | tee -a "$dest/session.log"
        ;;
    fdtd-bench)
        step 120 fdtd-bench.log scripts/bench-fdtd.sh "$dest/fdtd-bench" --sizes "320 480 640" --more ""
        scripts/bench-fdtd.sh --summary "$dest/fdtd-bench" >>"$dest/fdtd-bench.log" 2>&1
        ;;
    fdtd-verify)
        step 15 fdtd-verify-convergence-gpu.csv bin/trilap-fdtd verify convergence --backend cuda --sizes 8,16,32
        step 75 fdtd-verify-decomp-gpu.csv bin/trilap-fdtd verify decomp --backend cuda --grid 64 --steps 12 \
            --decomps slab-z,block-xy,pencil-yz --ss 1,2
        ;;
    fdtd-ranks)
        b=(run --backend cuda --grid 320 --cpml 20 --decomp pencil-yz --steps 50 --warmup 5
            --results "$dest/fdtd-ranks/pencil.csv")
        mkdir -p "$dest/fdtd-ranks"
        step 25 fdtd-ranks.log bin/trilap-fdtd "${b[@]}" --label ranks4-host --launcher threads --ranks 4 \
            --device-comm host
        step 15 fdtd-ranks.log bin/trilap-fdtd "${b[@]}" --label process-host --strategy host
        step 15 fdtd-ranks.log bin/trilap-fdtd "${b[@]}" --label process-peer --strategy peer
        ;;
    demo) step 150 demo.log env TRILAP_NO_INSTALL=1 make CUDA_ARCH=90 demo DEMO_OUT="$dest/demo" ;;
    fdtd-kernels)
        step 100 fdtd-kernels.log scripts/bench-fdtd.sh "$dest/fdtd-kernels" --sizes 480 --more "" --steps 100 \
            --kernels "$fdtd_kernels" --double "$fdtd_double" --breakdown "$fdtd_kernels" --strategies ""
        ;;
    fdtd-sizes)
        step 110 fdtd-sizes.log scripts/bench-fdtd.sh "$dest/fdtd-sizes" --sizes "$fdtd_sizes" --more "" --steps 50 \
            --kernels "$fdtd_size_kernels" --double "" --breakdown "" --strategies ""
        ;;
    solver-fuse)
        step 80 solver-fuse.log scripts/bench-solvers-gpu.sh --cases p7-128,p7-256 --fuse-compare --budget 60 \
            "$dest/solver-fuse"
        ;;
    solver-roof)
        old=
        if [ -n "${OLD_TREE:-}" ]; then
            step 150 solver-roof-build-old.log make -C "$OLD_TREE" -j16 CUDA_ARCH=90 bin/trilap-solve
            [ -x "$OLD_TREE/bin/trilap-solve" ] && old=$OLD_TREE/bin/trilap-solve
        fi
        b=$(rest 30)
        [ "$b" -gt "${ROOF_BUDGET:-170}" ] && b=${ROOF_BUDGET:-170}
        if [ "$b" -gt 40 ]; then
            step $((b + 30)) solver-roof.log scripts/bench-solver-roof.sh ${old:+--old "$old"} --budget "$b" \
                --trace "$dest/solver-roof"
        else
            log "solver roof skipped (no time left)"
        fi
        ;;
    solver-protocol)
        b=$(rest 30)
        if [ "$b" -gt 60 ]; then
            step $((b + 20)) solver-protocol.log scripts/bench-solvers-protocol.sh --breakdown \
                "$dest/solver-protocol" "$b"
        else
            log "solver protocol skipped (no time left)"
        fi
        ;;
    solver-bench)
        b=$(rest 25)
        if [ "$b" -gt 30 ]; then
            step $((b + 15)) solver-bench.log scripts/bench-solvers-gpu.sh --budget "$b" "$dest/solver-bench"
        else
            log "solver bench skipped (no time left)"
        fi
        ;;
    tristream-2gpu)
        two_gpus "$s" || continue
        # the program's defaults: no knob set by hand
        step 300 tristream.log env OUT="$dest/tristream" TRACE=1 scripts/run-tristream.sh 2
        step 200 overhead.log env OUT="$dest/trace-overhead" scripts/bench-trace-overhead.sh 2 three-split -- \
            --iters 2000 --repeat 5
        ;;
    solvers-2gpu)
        two_gpus "$s" || continue
        if [ "${PROTOCOL:-paper}" = quick ]; then pcg_it=1000 bicg_it=100; else pcg_it=10000 bicg_it=1000; fi
        d=$dest/solvers
        mkdir -p "$d"
        proto=(--rtol 0 --atol 0 --warmup 10 --repeat 3 --schedule all --backend cuda --results "$d/results.csv")
        for g in 1 2; do
            for m in gen:poisson7:64 gen:poisson7:128 gen:poisson7:256 gen:poisson27:128 \
                "$TL_DATA/matrices/1138_bus.mtx" "$TL_DATA/matrices/ani4.mtx"; do
                step 240 solvers.log bin/trilap-solve --gpus $g "${proto[@]}" --solver pipecg --max-iterations $pcg_it "$m"
            done
            for m in gen:convdiff:128 "$TL_DATA/matrices/ani1_nonsymm.mtx"; do
                step 240 solvers.log bin/trilap-solve --gpus $g "${proto[@]}" --solver pipebicgstab \
                    --max-iterations $bicg_it "$m"
            done
        done
        # traces for the Sec. IV-C breakdown and diagnose: a small and a large input
        for m in gen:poisson7:64 gen:poisson7:256; do
            for sc in two-stream three-naive three-split; do
                step 120 solvers.log bin/trilap-solve --gpus 2 --backend cuda --solver pipecg --schedule $sc --rtol 0 \
                    --atol 0 --max-iterations 200 --warmup 10 --repeat 1 --cupti --trace "$d/trace-${m##*:}-$sc" "$m"
                step 30 solvers.log bin/trilap-analyze diagnose "$d/trace-${m##*:}-$sc"
            done
        done
        ;;
    fdtd-2gpu)
        two_gpus "$s" || continue
        d=$dest/fdtd
        mkdir -p "$d"
        fdtd2() { step 120 fdtd.log bin/trilap-fdtd run --backend cuda --results "$d/results.csv" "$@"; }
        for n in 320 480 640 800 1024; do
            fdtd2 --grid $n --steps 100 --gpus 1 --label "1gpu-$n"
            for st in host peer nccl; do
                fdtd2 --grid $n --steps 100 --gpus 2 --decomp 1x1x2 --strategy $st --label "$st-$n"
            done
        done
        for sv in 1 2 4 8; do fdtd2 --grid 480 --steps 96 --gpus 2 --decomp 1x1x2 --strategy peer --s $sv --label "s$sv-480"; done
        for dc in 1x1x2 1x2x1 2x1x1; do
            fdtd2 --grid 480 --steps 100 --gpus 2 --decomp $dc --strategy peer --label "decomp-$dc"
        done
        fdtd2 --grid 480 --steps 20 --gpus 2 --decomp 1x1x2 --strategy host --trace "$d/trace-host-480" --label trace-host
        fdtd2 --grid 480 --steps 20 --gpus 2 --decomp 1x1x2 --strategy peer --trace "$d/trace-peer-480" --label trace-peer
        step 120 fdtd-verify-decomp.csv bin/trilap-fdtd verify decomp --backend cuda --gpus 2 --grid 128 \
            --decomps 1x1x2,1x2x1,2x1x1 --ss 1,2,4,8
        ;;
    *) log "unknown step '$s' (scripts/device-session.sh --help lists them)" ;;
    esac
done
# the tests' logs as one file, the way results/ keeps them
if [ -d "$dest/test-logs" ]; then
    (cd "$dest" && tail -n +1 test-logs/*.log >test-logs.txt 2>/dev/null) && rm -rf "$dest/test-logs"
fi
log "session done"
tar czf "$dest.tgz" -C "$(dirname "$dest")" "$(basename "$dest")"
