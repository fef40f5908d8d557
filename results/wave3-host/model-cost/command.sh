#!/usr/bin/env bash
# session29: trilap-model's cost at scale (block statistics from the
# stencil) and an exported platform against the built-in one. Run from
# the repository root after `make all`; writes into this folder.
set -euo pipefail
D=results/wave3-host/model-cost
M=bin/trilap-model
rm -f $D/*.csv $D/manifest.txt $D/*.xml
/usr/bin/time -f '%e s wall, %U s user, %M KB max RSS' $M solver --platform a100-hdr --gpus 64,256 \
    --matrix gen:poisson7:1024 --iters 1 --schedules two-stream --results $D/poisson7-1024.csv \
    > $D/poisson7-1024.txt 2> $D/poisson7-1024.time
/usr/bin/time -f '%e s wall, %U s user, %M KB max RSS' $M solver --platform a100-hdr --gpus 4,8,16,32,64,128,256 \
    --matrix gen:poisson7:512 --results $D/poisson7-512.csv > $D/poisson7-512.txt 2> $D/poisson7-512.time
# the export with the calibration's rate (now the default) and with rate 1 (the old default)
$M platform --platform a100-hdr --gpus 8 -o $D/a100-8.xml > /dev/null
$M platform --platform a100-hdr --gpus 8 --nccl-rate 1 -o $D/a100-8-rate1.xml > /dev/null
for p in builtin a100-8 a100-8-rate1; do
    if [ $p = builtin ]; then opt="--platform a100-hdr"; else opt="--platform-file $D/$p.xml"; fi
    # shellcheck disable=SC2086
    $M solver $opt --gpus 8 --matrix gen:poisson7:64 --results $D/platform-$p.csv > $D/platform-$p.txt
done
