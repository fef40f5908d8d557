#!/usr/bin/env bash
# session9 call D: this tree (942b654, branch exp-cpml-earlyv: the CPML build
# reads the fields it writes with the memory variable, before the
# stencil's loads) against main (.carry/main = 5b1f80b): the FDTD GPU tests
# of this tree (bit for bit), CPML float 480/1024 three rounds alternated,
# and where its velocity shell kernel's loads sit in the SASS
set -u
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
O=$OUT/session9/D; mkdir -p $O/cpml
( make -C .carry/main -j6 CUDA_ARCH=90 bin/trilap-fdtd > $O/build-main.log 2>&1; echo "main build exit $?" >> $O/build-main.log ) &
make -j8 CUDA_ARCH=90 bin/trilap-fdtd bin/trilap-bench build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/build-ev.log 2>&1; echo "ev build exit $?"
wait; tail -qn1 $O/build-*.log
cp bin/trilap-bench .carry/main/bin/
echo "[$SECONDS s] tests"
TL_HAVE_MPI=1 TL_MPIRUN=$(command -v mpirun) TL_HAVE_CUDA=1 TL_TEST_TIMEOUT=75 timeout 150 tests/run.sh build/tests/test_gpu_fdtd build/tests/test_gpu_fdtd_ranks > $O/ev-tests.log 2>&1
echo "[$SECONDS s] ev tests: $(tail -n1 $O/ev-tests.log)"; grep -h "^not ok" $O/ev-tests.log | head
run() { # tree round
  local b=bin; [ $1 = ev ] || b=.carry/$1/bin
  TL_BIN=$b timeout 60 scripts/bench-cpml.sh $O/cpml/$1-r$2 --sizes "480 1024" --reps 1 > /dev/null 2>&1
  echo "$1 r$2 $(awk '{ printf " %s", $6 }' $O/cpml/$1-r$2/table.txt | tail -c 30)"
}
for r in 1 2 3; do for t in main ev; do run $t $r; done; done
ratio() { awk '$1 == 480 { s += $6; n++ } END { printf "%.4f", s / n }' $O/cpml/$1-r*/table.txt; }
for t in main ev; do echo "$t 480 mean $(ratio $t)"; done
/usr/local/cuda/bin/cuobjdump -sass build/obj/stencil/fdtd_vec.o > $O/sass.txt 2>&1
awk '/Function : .*tl_fdtd_v_vec_kernelIfLi4ELi4ELi8ELi8ELb1E/ { on = 1; next } /Function :/ { on = 0 } on && /LDG|STG|EXIT/ { sub(/ *\/\* 0x[0-9a-f]* \*\/ *$/, ""); print }' $O/sass.txt | head -40 > $O/v-shell-loads.txt
cat $O/v-shell-loads.txt
rm -f $O/sass.txt
echo "[$SECONDS s] done"
cd $OUT && tar czf session9-D.tgz session9 && rm -rf session9
