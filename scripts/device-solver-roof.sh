#!/usr/bin/env bash
# One bounded device session for the Pipe-PCG roofline work (issue #11):
# build this tree (and, when OLD_TREE names another checkout, that one's
# trilap-solve, the kernels before), the side-by-side benchmark
# (scripts/bench-solver-roof.sh), then the GPU tests of what the kernels
# change. Everything lands in DEST; DEST.tgz holds it in one file.
#
#   scripts/device-solver-roof.sh DEST [TOTAL_SECONDS] [BENCH_SECONDS]
#
# Environment: OLD_TREE (a source tree to build as the "before" binary),
# TL_DATA (matrices; default ../shared/data, else .carry/data), TESTS (a
# grep -E pattern of test_gpu_solvers cases; default the ones below).
set -u
case ${1:-} in -h | --help) sed -n '2,12p' "$0"; exit 0 ;; esac
dest=${1:?usage: device-solver-roof.sh DEST [TOTAL_SECONDS] [BENCH_SECONDS]}
total=${2:-270}
bench=${3:-150}
mkdir -p "$dest" || exit 1
start=$SECONDS
left() { echo $((total - (SECONDS - start))); }
log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$dest/session.log"; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f .trilap-commit ] && export TRILAP_COMMIT=$(head -n1 .trilap-commit)
export TL_BUILD=build TL_BIN=bin TL_HAVE_CUDA=1 TL_DATA=${TL_DATA:-$PWD/../shared/data}
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/.carry/data
nvidia-smi >"$dest/nvidia-smi.txt" 2>&1
log "build (this tree${OLD_TREE:+ and $OLD_TREE})"
timeout 150 make -j16 CUDA_ARCH=90 bin/trilap-solve bin/trilap-bench bin/trilap-analyze \
    build/tests/test_gpu_solvers >"$dest/build.log" 2>&1 &
pnew=$!
old=
if [ -n "${OLD_TREE:-}" ]; then
    timeout 150 make -C "$OLD_TREE" -j16 CUDA_ARCH=90 bin/trilap-solve >"$dest/build-old.log" 2>&1 &
    pold=$!
    wait $pold && old=$OLD_TREE/bin/trilap-solve
    log "old build: ${old:-failed}"
fi
wait $pnew
rc=$?
log "build: exit $rc"
[ $rc -eq 0 ] || { tail -30 "$dest/build.log"; exit 1; }
# bit for bit: this build's default (separate kernels, one-wave grid) and
# --fuse against the old build's default, on 1138_bus to the tolerance
if [ -n "$old" ] && [ -f "$TL_DATA/matrices/1138_bus.mtx" ]; then
    mkdir -p "$dest/bits"
    for sv in pipecg pcg pipebicgstab; do
        for v in old new new-fuse; do
            bin=bin/trilap-solve opt=
            [ $v = old ] && bin=$old
            [ $v = new-fuse ] && opt=--fuse
            timeout 30 "$bin" --launcher threads --gpus 1 --backend cuda --solver $sv --rtol 1e-6 \
                --warmup 0 --repeat 1 --history "$dest/bits/$sv.$v.csv" $opt "$TL_DATA/matrices/1138_bus.mtx" \
                >"$dest/bits/$sv.$v.txt" 2>&1
        done
        for v in new new-fuse; do
            if cmp -s "$dest/bits/$sv.old.csv" "$dest/bits/$sv.$v.csv"; then r=identical; else r=DIFFERENT; fi
            log "bits 1138_bus $sv: $v vs old: $r ($(grep -m1 '^iterations:' "$dest/bits/$sv.$v.txt"); old $(grep -m1 '^iterations:' "$dest/bits/$sv.old.txt"))"
        done
    done
fi
b=$bench
[ "$b" -gt "$(($(left) - 60))" ] && b=$(($(left) - 60))
log "bench (budget ${b}s)"
timeout $((b + 30)) scripts/bench-solver-roof.sh ${old:+--old "$old"} --budget "$b" --trace "$dest/bench" \
    >"$dest/bench.log" 2>&1
log "bench: exit $?"
t=$(($(left) - 10))
if [ "$t" -gt 20 ]; then
    pat=${TESTS:-fused_pass|all_methods_poisson7|bicgstab_family_convdiff|cg_family_1138_bus|fixed_iterations_and_spmv_choices|all_methods_poisson27}
    log "tests (${t}s): $pat"
    TL_TEST_JOBS=4 TL_TEST_PARALLEL='test_gpu_solvers:' TL_TEST_FILTER="test_gpu_solvers:($pat)" \
        TL_TEST_TIMEOUT=$t timeout $((t + 5)) tests/run.sh build/tests/test_gpu_solvers >"$dest/tests.txt" 2>&1
    log "tests: exit $? ($(tail -n1 "$dest/tests.txt"))"
    mkdir -p "$dest/test-logs"
    cp build/test-logs/*.log "$dest/test-logs/" 2>/dev/null
else
    log "tests skipped (no time left)"
fi
log "done"
tar -czf "$dest.tgz" -C "$(dirname "$dest")" "$(basename "$dest")"
