#!/usr/bin/env bash
# branch persistent-wip (rebased on 2c20393): the persistent Pipe-PCG loop (--persistent). Smoke run,
# marginal us/iter against the default at 128^3 and 256^3, then its GPU tests
set -u
export NCCL_NVLS_ENABLE=0 TL_DATA=$PWD/.carry/data OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
R=$PWD; mkdir -p /tmp/p && tar xzf .carry/perssrc.tgz -C /tmp/p && cd /tmp/p
make -j16 CUDA_ARCH=90 all gpu-tests > $OUT/build.log 2>&1; echo "build rc $? $(( $(date +%s) - t0 )) s"
S="bin/trilap-solve --launcher threads --gpus 1 --backend cuda --partition block --solver pipecg --no-op-timer"
timeout 25 $S --rtol 1e-8 --warmup 0 --repeat 1 --persistent gen:poisson7:64 > $OUT/smoke.txt 2>&1; rc=$?
grep -E "^(iterations|true residual|converged|persistent|reason):" $OUT/smoke.txt; echo "smoke rc $rc"
timeout 25 $S --rtol 1e-8 --warmup 0 --repeat 1 gen:poisson7:64 > $OUT/smoke-default.txt 2>&1
grep -E "^(iterations|true residual):" $OUT/smoke-default.txt
if [ $rc -ne 0 ]; then tail -5 $OUT/smoke.txt; exit 0; fi
timeout 30 bin/trilap-bench stream --gpus 1 --results $OUT/stream.csv > $OUT/stream.txt 2>&1; awk -F, -f scripts/triad.awk $OUT/stream.csv | head -1
mkdir -p $OUT/t
for n in 128 192 256; do
  case $n in 128) ks="1200 300";; 192) ks="400 100";; *) ks="160 40";; esac
  for v in default persistent; do
    o=""; [ $v = persistent ] && o=--persistent
    for k in $ks; do
      timeout 40 $S --rtol 0 --atol 0 --warmup 1 --repeat 3 --max-iterations $k $o --results $OUT/t/$n-$v-$k.csv gen:poisson7:$n > $OUT/t/$n-$v-$k.txt 2>&1 || echo "$n $v $k failed"
    done
    python3 $R/results/solver-overlap-diag-h200/marginal.py "$n $v" $OUT/t/$n-$v-${ks% *}.csv $OUT/t/$n-$v-${ks#* }.csv
  done
done
grep -h "^persistent:" $OUT/t/*-persistent-*.txt | sort | uniq -c
echo "bench $(( $(date +%s) - t0 )) s"
TL_TEST_TIMEOUT=120 TL_TEST_FILTER='test_gpu_solvers:(persistent_loop|fixed_iterations_past_suspect_steps|cg_family_1138_bus)$' timeout 260 make CUDA_ARCH=90 TL_DATA=$TL_DATA check-gpu > $OUT/check-gpu.log 2>&1
grep -E "^(ok|not ok)|passed" $OUT/check-gpu.log | tail -8
echo "total $(( $(date +%s) - t0 )) s"
(cd $OUT && tar czf all.tgz t smoke*.txt stream.* check-gpu.log build.log && rm -rf t)
