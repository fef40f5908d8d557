# session26 call A, run as: T=560 bash .carry/s26.sh (kind nvidia-h200, timeout 590 s; an H200 came), on c709110
# .carry/s26.sh:
#!/usr/bin/env bash
# session26: on an H200, the CPML figure first (s26A.sh); on any other card,
# make check-gpu part 1 then part 2 (s26B.sh)
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
echo "card: $name"
case $name in
    *H200*) exec bash .carry/s26A.sh ;;
    *) exec bash .carry/s26B.sh ;;
esac

# .carry/s26A.sh, which it chose (the card is an H200):
#!/usr/bin/env bash
# session26 call A (one H200): the build, bench-cpml.sh at 480^3 and 1024^3,
# three repetitions (issue 29 point 1 on the card its target is set on, the
# merged z fold's first H200 run), then make check-gpu part 2, then part 1,
# each bounded by what is left of T.
set -u
# the tgz after every step: a call cut short brings back only files two folders down
pack() { (cd $OUT && tar czf session26-A.tgz session26); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session26/A; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data scripts/device-session.sh $O/build $((T - 10 - SECONDS)) build > /dev/null 2>&1
tail -n 2 $O/build/session.log; echo "[$SECONDS s] build"
timeout 150 scripts/bench-cpml.sh $O/cpml --sizes "480 1024" --reps 3 > $O/cpml.out 2>&1
echo "bench-cpml exit $?"; cat $O/cpml/table.txt 2>/dev/null || tail -n 5 $O/cpml.out
echo "[$SECONDS s] cpml"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 $((T - 10 - SECONDS)) check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log; grep "^not ok" $O/check-gpu-2/check-gpu.log | head
echo "[$SECONDS s] check-gpu-2"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=150 scripts/device-session.sh $O/check-gpu-1 $((T - SECONDS)) check-gpu-1 > /dev/null 2>&1
tail -n 2 $O/check-gpu-1/session.log; grep "^not ok" $O/check-gpu-1/check-gpu.log | head
echo "[$SECONDS s] check-gpu-1"
pack
rm -rf $OUT/session26
