#!/usr/bin/env bash
# session12 call B: make check-gpu part 2 (every GPU test but the five long
# solver comparisons) on main after session11's layout-neutral grid.c
# commits (5fc10b0, 211f16d) and this session's new test of a quad that
# both x slabs cut
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session12/B; mkdir -p $O
TL_DATA=.carry/data CHECK_GPU_LIMIT=300 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log | tail -n 8
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
grep -h "gpu_vec_cpml_quad_cut_by_slabs" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head -2
echo "[$SECONDS s] done"
cd $OUT && tar czf session12-B.tgz session12 && rm -rf session12
