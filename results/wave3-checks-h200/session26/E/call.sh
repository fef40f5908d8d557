# session26 call E, run as: T=470 bash .carry/s26E.sh (no kind: an H100 came), on 87f9dce; the same command line first ran .carry/s26.sh piped into head -n 1, meant to print the card only, which went on into s26B.sh's build and check-gpu-1 and was cut by the closed pipe (about 190 s, nothing kept)
#!/usr/bin/env bash
# session26 call E (one GPU, any card): this session's host-side changes on
# a GPU machine: the build, make demo's live path (it now writes into a
# folder of its own inside --out and moves its files in at the end), then
# make check-gpu part 2 (the solver and FDTD programs' output checks with
# the GPU backends), on the tree at .trilap-commit
set -u
pack() { (cd $OUT && tar czf session26-E.tgz session26); }
export NCCL_NVLS_ENABLE=0
T=${T:-590}
O=$OUT/session26/E; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > $O/gpu.txt 2>&1; tail -n 1 $O/gpu.txt
TL_DATA=.carry/data scripts/device-session.sh $O/demo $((T - 10 - SECONDS)) build,demo > /dev/null 2>&1
tail -n 3 $O/demo/session.log; ls -A $O/demo/demo | tr '\n' ' '; echo; head -n 3 $O/demo/demo/report.txt
echo "[$SECONDS s] build,demo"
pack
TL_DATA=.carry/data CHECK_GPU_LIMIT=290 scripts/device-session.sh $O/check-gpu-2 $((T - SECONDS)) check-gpu-2 > /dev/null 2>&1
tail -n 2 $O/check-gpu-2/session.log; grep "^not ok" $O/check-gpu-2/check-gpu.log | head
echo "[$SECONDS s] check-gpu-2"
pack
rm -rf $OUT/session26
