#!/usr/bin/env bash
# session6 call V: this tree (the CPML shell on its own stream, as
# .carry/side1 measured in call U) built whole; make check-gpu part 2
# (every GPU test but the five long solver comparisons, which call T ran
# on 7427db5, whose solver code this tree keeps); then CPML float 480/1024,
# two rounds, and double 480 once
set -u
export NCCL_NVLS_ENABLE=0
O=$OUT/session6/V; mkdir -p $O/cpml
TL_DATA=.carry/data CHECK_GPU_LIMIT=330 scripts/device-session.sh $O/check-gpu-2 440 build,check-gpu-2 > /dev/null 2>&1
cat $O/check-gpu-2/session.log
grep -h "^not ok" $O/check-gpu-2/test-logs/*.log 2>/dev/null | head
for r in 1 2; do
  timeout 70 scripts/bench-cpml.sh $O/cpml/r$r --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "r$r"; tail -n2 $O/cpml/r$r/table.txt
done
timeout 40 bin/trilap-fdtd run --backend cuda --grid 480 --steps 40 --warmup 3 --cpml 20 --source center --precision double --compare-cpml --label dbl --results $O/cpml/double.csv >> $O/cpml/double.log 2>&1 || echo "double failed"
cut -d, -f1,9,14,17 $O/cpml/double.csv
gzip -9 $O/check-gpu-2/test-logs.txt 2>/dev/null
cd $OUT && tar czf session6-V.tgz session6 && rm -rf session6
