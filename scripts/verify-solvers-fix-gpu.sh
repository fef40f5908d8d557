#!/usr/bin/env bash
# Bounded check on a GPU machine of the three CUDA-backend fixes after
# device-run-7 (at most 150 s after the build, each step bounded; about
# 80 s expected):
#   1. every run of one invocation is right (--schedule all, five solvers,
#      warm-up + repeats): the same iteration count in every schedule;
#   2. pipebicgstab with device scalars runs 300 benchmark iterations and
#      converges on convdiff 64^3 (it broke down at iteration 4);
#   3. four cases of tests/gpu/test_gpu_solvers in parallel;
#   4. the SpMV default (now a thread per row on poisson7) against the old
#      choice (trilap:4), event-timer rates.
#
#   make -j16 CUDA_ARCH=90 bin/trilap-solve build/tests/test_gpu_solvers
#   scripts/verify-solvers-fix-gpu.sh OUT
set -u
out=${1:?usage: verify-solvers-fix-gpu.sh OUT}
mkdir -p "$out" || exit 1
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TL_BUILD=build TL_BIN=bin TL_DATA=${TL_DATA:-$PWD/../shared/data} TL_HAVE_CUDA=1
[ -d "$TL_DATA/matrices" ] || export TL_DATA=$PWD/shared/data
mpirun_path=$(command -v mpirun || true)
[ -n "$mpirun_path" ] && export TL_HAVE_MPI=1 TL_MPIRUN=$mpirun_path
keys='^(solver|schedule|reason|iterations|true residual|spmv|scalars):'

echo "== 1. runs of one invocation" | tee "$out/verify.log"
timeout 25 bin/trilap-solve --launcher threads --gpus 1 --backend cuda --schedule all \
    --solver cg,pcg,pipecg,bicgstab,pipebicgstab --warmup 1 --repeat 2 --no-stats \
    --results "$out/multi.csv" gen:poisson7:32 >"$out/multi.txt" 2>&1
echo "exit $?" | tee -a "$out/verify.log"
grep -E "$keys" "$out/multi.txt" | paste - - - - - - - - | tee -a "$out/verify.log"
# iterations per solver over all timed solves (one value per solver expected)
awk -F, 'NR > 1 { print $1, $8 }' "$out/multi.csv" | sort | uniq -c | tee -a "$out/verify.log"

echo "== 2. pipebicgstab, device scalars" | tee -a "$out/verify.log"
timeout 15 bin/trilap-solve --launcher threads --gpus 1 --backend cuda --solver pipebicgstab \
    --scalars program --rtol 0 --atol 0 --max-iterations 300 --warmup 0 --repeat 1 --no-stats \
    gen:convdiff:64 >"$out/pbicg-fixed.txt" 2>&1
echo "fixed 300: exit $?" | tee -a "$out/verify.log"
grep -E "$keys" "$out/pbicg-fixed.txt" | tee -a "$out/verify.log"
timeout 15 bin/trilap-solve --launcher threads --gpus 1 --backend cuda \
    --solver bicgstab,pipebicgstab --scalars program --warmup 0 --repeat 1 --no-stats \
    gen:convdiff:64 >"$out/pbicg-conv.txt" 2>&1
echo "to rtol 1e-8: exit $?" | tee -a "$out/verify.log"
grep -E "$keys" "$out/pbicg-conv.txt" | tee -a "$out/verify.log"

echo "== 3. test_gpu_solvers (4 cases in parallel)" | tee -a "$out/verify.log"
printf '%s\n' all_methods_poisson27 bicgstab_family_convdiff bicgstab_family_ani1_nonsymm \
    fixed_iterations_and_spmv_choices | xargs -P 4 -I{} sh -c \
    "timeout 70 build/tests/test_gpu_solvers {} >'$out/{}.out' 2>'$out/{}.err'; echo \"{} exit \$?\" >>'$out/status.txt'"
cat "$out/status.txt" | tee -a "$out/verify.log"
grep -h "^FAIL\|comparisons" "$out"/*.err | head -40 | tee -a "$out/verify.log"

echo "== 4. SpMV default against the old choice" | tee -a "$out/verify.log"
timeout 25 bin/trilap-solve --launcher threads --gpus 1 --backend cuda --solver pipecg \
    --spmv trilap,trilap:4 --rtol 0 --atol 0 --max-iterations 300 --warmup 1 --repeat 3 \
    gen:poisson7:128 >"$out/spmv.txt" 2>&1
echo "exit $?" | tee -a "$out/verify.log"
grep -E '^(spmv|time per iteration):|^spmv ' "$out/spmv.txt" | tee -a "$out/verify.log"
