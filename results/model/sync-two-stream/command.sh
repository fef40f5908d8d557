#!/usr/bin/env bash
# sync against two-stream on small problems, predicted (fix-model3): which of
# the calibration's costs makes sync the faster, each turned off in turn.
# Run from the repository root; rows in rows.csv (the calibration in its
# `calib` column), printed tables in out.txt.
set -euo pipefail
D=results/model/sync-two-stream
C=results/model/calib-h200.txt
sed 's/^xstream_us *= .*/xstream_us = 0/' $C > $D/calib-xstream0.txt
sed 's/^nccl_rate *= .*/nccl_rate = 1/' $C > $D/calib-rate1.txt
rm -f $D/rows.csv $D/out.txt
echo "calib,matrix,gpus,schedule,iter_us" > $D/rows.csv
for cal in $C $D/calib-xstream0.txt $D/calib-rate1.txt; do
  for n in 32 64 128; do
    bin/trilap-model solver --calib $cal --platform a100-hdr --gpus 2,8 --schedules two-stream,sync \
      --matrix gen:poisson7:$n --iters 100 | tee -a $D/out.txt |
      awk -v cal="$(basename $cal .txt)" -v n=$n '!/^#/ { print cal ",gen:poisson7:" n "," $1 "," $2 "," $3 }' >> $D/rows.csv
  done
done
