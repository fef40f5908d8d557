#!/usr/bin/env bash
# sync against two-stream on small problems, predicted (session32): with the
# calibration as committed, and with its cross-stream wait set to 0
set -eu
D=results/wave3-host/model-sync
sed 's/^xstream_us *= *[0-9.]*/xstream_us = 0/' results/model/calib-h200.txt > $D/calib-xstream0.txt
for m in gen:poisson7:32 gen:poisson7:64 gen:poisson7:128; do
  bin/trilap-model solver --gpus 2,8 --schedules sync,two-stream --matrix $m --results $D/sync-two-stream.csv
  bin/trilap-model solver --calib $D/calib-xstream0.txt --gpus 2,8 --schedules sync,two-stream --matrix $m \
    --results $D/sync-two-stream-xstream0.csv
done
