#!/usr/bin/env bash
# session35: every command of README.md and REPRODUCE.md that runs without
# a GPU, run as the documents write it, from the repository root of a
# built tree; outputs the documents send into results/ or the tree go to
# a scratch folder instead (S, default /tmp/repro-s35/run). Each command's
# full output is in S/ID.log; it prints, per command, its exit status,
# its wall time and the lines that carry the documents' claims, each
# checked against the committed file where there is one (out.txt beside
# this file is session35's print). Sections: firsthour r0 r2 r3 r6 r7 r7awk r9 r12 (the default),
# r7full (Table 8 on four decompositions, 4.5 min).
#   results/wave3-host/session35-repro/command.sh [SECTION ...]
set -u
S=${S:-/tmp/repro-s35/run}
# the shared data (Kineto traces, bench-petsc-compare.sh's matrices)
export TL_DATA=${TL_DATA:-/work/shared/data}
K=$TL_DATA/kineto/trace_filter
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$S"

# run ID COMMAND: the command through bash from the root, its output in
# S/ID.log, one line of exit status and wall time
run() {
  local id=$1 t0 rc
  shift
  echo "### $id: $*"
  t0=$(date +%s.%N)
  bash -c "$*" > "$S/$id.log" 2>&1
  rc=$?
  echo "exit $rc; $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')"
}
# show ID PATTERN: the lines of S/ID.log that carry a claim
show() { grep -E -- "$2" "$S/$1.log" | head -n "${3:-12}"; }

# a model CSV without its comments and, where it has one, its last
# column, sim_wall_s, the seconds the simulation itself took
no_sim() { grep -v '^#' "$1" | awk -F, 'NR == 1 { cut = ($NF == "sim_wall_s") } { if (cut) NF--; print }' OFS=,; }

firsthour() {
  run fh-demo "make demo DEMO_OUT=$S/demo-out"     # as written: make demo (demo-out/ in the tree)
  show fh-demo '^(variant|two-stream|three-naive|three-split) |^took'
  ls "$S/demo-out" | grep -E '^(report.txt|timeline.png|breakdown.png)$'
  run fh-solve "bin/trilap-solve --backend host --solver pipecg gen:poisson7:32 --trace $S/tr"
  show fh-solve 'converged|iterations|residual' 6
  run fh-diagnose "bin/trilap-analyze diagnose $S/tr"
  show fh-diagnose '^FINDING|^# clock|no finding' 8
  run kineto-overlap-hta "bin/trilap-analyze overlap --hta $K/"
  show kineto-overlap-hta '^# rank|^ +[01] '
  run kineto-breakdown-hta "bin/trilap-analyze breakdown --hta $K/"
  show kineto-breakdown-hta '^# run|trace_filter +[01] '
  run kineto-per-iter "bin/trilap-analyze overlap --per-iter $K/"
  run kineto-collectives "bin/trilap-analyze collectives $K/"
  run kineto-diagnose "bin/trilap-analyze diagnose $K/"
  show kineto-diagnose '^# clock|^FINDING 2|most: |longest' 6
  rm -rf "$S/inst"
  run install "make install PREFIX=$S/inst"
  echo "share/trilap: $(find "$S/inst/share/trilap" -type f | wc -l) files, $(find "$S/inst/share/trilap" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }') bytes"
  run help "make help"
}
# make on a built tree: what it found (the first make of a fresh clone,
# timed, is in README.md; make check, check-gpu, asan and tsan are not run)
r0() {
  run make "make"
  show make 'CUDA|NCCL|CUPTI|MPI|METIS|gnuplot|PETSc|SimGrid' 14
}
r2() {
  rm -rf "$S/plots" "$S/wait-table.md"
  run plots "make plots PLOTS_OUT=$S/plots"      # as written: plots/out in the tree
  echo "$(find "$S/plots" -type f ! -name ".*" | wc -l) files (and $(find "$S/plots" -type f -name ".*" | wc -l) hidden: the lock file)"
  local r v
  for r in tristream-h200x2 tristream-maxconn32-h200x2; do
    for v in two-stream three-naive three-split; do
      run "overlap-$r-$v" "bin/trilap-analyze overlap results/$r/$v"
      wait_table "$r" "$v" "$S/overlap-$r-$v.log" >> "$S/wait-table.md"
    done
  done
  cat "$S/wait-table.md"
  echo "against REPRODUCE.md's table: $(grep -E '^\| (default|MAX_CONNECTIONS=32) \|' REPRODUCE.md | diff -q - "$S/wait-table.md" > /dev/null && echo same || echo differs)"
  for v in two-stream three-naive three-split; do
    run "diagnose-$v" "bin/trilap-analyze diagnose results/tristream-h200x2/$v"
    echo "$v: $(grep '^FINDING' "$S/diagnose-$v.log" | sed 's/:.*//' | tr '\n' ' ')"
  done
}
# wait_table RUN VARIANT LOG: REPRODUCE.md's row of the waiting table
# ("Waiting vs transfer") from overlap's two tables
wait_table() {
  awk -v run="$1" -v v="$2" '
    /^# rank +W/ { m = 1; next }
    m == 1 && /^ +[01] / { h[$1] = $9; ha[$1] = $10; t[$1] = $12; ta[$1] = $13; if ($1 == 1) m = 2; next }
    /^# table: communication waiting/ { w = 1 }
    w && /AllReduce/ { aw[$1] = $4; at[$1] = $5 }
    w && /SendRecv/ { sw[$1] = $4; st[$1] = $5 }
    END {
      printf "| %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s | %s / %s |\n",
        run ~ /maxconn/ ? "MAX_CONNECTIONS=32" : "default", v, ha[0], ha[1], h[0], h[1], ta[0], ta[1], t[0], t[1],
        aw[0], at[0], aw[1], at[1], sw[0], st[0], sw[1], st[1]
    }' "$3"
}
r3() {
  run breakdown-three-split "bin/trilap-analyze breakdown results/tristream-h200x2/three-split"
  show breakdown-three-split 'category' 8
}
r6() {
  run petsc-compare-no-data "TL_DATA=$S/no-data scripts/bench-petsc-compare.sh --out $S/petsc-none"   # a clone without ../shared/data
  show petsc-compare-no-data '.' 2
  rm -rf "$S/petsc-compare"
  run petsc-compare "scripts/bench-petsc-compare.sh --out $S/petsc-compare"   # as written: --out petsc-compare
  tail -n 1 "$S/petsc-compare.log"
  echo "iterations and convergence marks against results/petsc-compare-vm/compare.txt: $(diff <(its_conv results/petsc-compare-vm/compare.txt) <(its_conv "$S/petsc-compare/summary.txt") > /dev/null && echo same || echo differs) ($(its_conv "$S/petsc-compare/summary.txt" | wc -l) rows)"
  run schedules-2 "OUT=$S/sched2 scripts/run-solver-schedules.sh 2"   # as written: OUT under results/
  tail -n 4 "$S/schedules-2.log"
  run schedules-4 "OUT=$S/sched4 scripts/run-solver-schedules.sh 4"
  tail -n 4 "$S/schedules-4.log"
}
# its_conv TABLE: the comparison's matrix, method, ranks, iterations and
# convergence marks, its times left out
its_conv() { awk 'NF >= 10 && $3 ~ /^[0-9]+$/ { print $1, $2, $3, $4, $5, $6, $9, $10 }' "$1"; }
# same_csv ID FILE: S/ID.log's rows against results/fdtd-cpu/FILE's
same_csv() {
  echo "against results/fdtd-cpu/$2: $(diff <(grep -v '^#' "$S/$1.log") <(grep -v '^#' "results/fdtd-cpu/$2") > /dev/null && echo same || echo differs)"
}
r7() {
  run fdtd-convergence "bin/trilap-fdtd verify convergence"
  same_csv fdtd-convergence convergence.csv
  run fdtd-time "bin/trilap-fdtd verify time"
  same_csv fdtd-time time.csv
  run fdtd-decomp "bin/trilap-fdtd verify decomp"
  show fdtd-decomp 'rows|not identical' 3
  same_csv fdtd-decomp decomp.csv
  run fdtd-decomp-s48 "bin/trilap-fdtd verify decomp --grid 128 --steps 20 --decomps 1x1x2,1x2x1 --ss 4,8"
  show fdtd-decomp-s48 'rows|not identical' 3
  same_csv fdtd-decomp-s48 decomp-s4-s8.csv
  run fdtd-decomp-mpi "mpirun --oversubscribe -np 4 bin/trilap-fdtd verify decomp --decomps slab-z,block-xy,pencil-yz"
  show fdtd-decomp-mpi 'rows|not identical' 3
  run fdtd-energy10 "bin/trilap-fdtd verify energy --every 10 > $S/energy.csv"
  show fdtd-energy10 'energy at the end'
  run fdtd-energy50 "bin/trilap-fdtd verify energy --every 50 --slices $S/slices"
  show fdtd-energy50 'energy at the end'
  run fdtd-reflection "bin/trilap-fdtd verify reflection"
  show fdtd-reflection '.' 12
  echo "against results/fdtd-cpu/reflection.csv's 1x1x1 rows: $(diff <(grep -v '^#' "$S/fdtd-reflection.log") <(sed -n '1p; /^1x1x1,/p' results/fdtd-cpu/reflection.csv) > /dev/null && echo same || echo differs)"
  run fdtd-plots "scripts/render-fdtd-plots.sh --out $S/fdtd-plots"
  ls "$S/fdtd-plots"
}
# Table 8 as reflection.csv was made: four decompositions (4.5 min on 2
# cores at a load of 3; not in the default list)
r7full() {
  run fdtd-reflection-4 "bin/trilap-fdtd verify reflection --decomps 1x1x1,slab-z,block-xy,pencil-yz"
  same_csv fdtd-reflection-4 reflection.csv
}
r7awk() {
  local n=results/wave3-checks-h200
  run ncu-launches "zcat $n/session4/M/ncu/ncu-480-cpml20.csv.gz | awk -f scripts/ncu-launches.awk"
  tail -n 4 "$S/ncu-launches.log"
  run sass-zbox "zcat $n/session7/Y/ncu/zbox-sass.csv.gz | awk -v warps=36000 -f scripts/ncu-sass-ops.awk"
  tail -n 2 "$S/sass-zbox.log"
  run sass-interior "zcat $n/session7/Y/ncu/interior-sass.csv.gz | awk -v warps=639184 -f scripts/ncu-sass-ops.awk"
  tail -n 2 "$S/sass-interior.log"
  local f
  for f in session8/C/ncu/breakdown-cpml20 session8/C/ncu/sectors-cpml20 session8/C/ncu/breakdown-cpml0 \
           session9/C/ncu/sectors-cpml20 session10/F/ncu/breakdown-cpml20 session10/F/ncu/sectors-cpml20 \
           session11/C/ncu/fabric-cpml0 session11/E/ncu/fabric-cpml20; do
    run "per-point-${f//\//-}" "zcat $n/$f.csv.gz | awk -f scripts/ncu-raw-per-point.awk"
    tail -n 3 "$S/per-point-${f//\//-}.log"
  done
  run l2-excess "zcat $n/session11/C/ncu/source-zlo-v.csv.gz | awk -v per=4610000 -f scripts/ncu-l2-excess.awk"
  tail -n 4 "$S/l2-excess.log"
  run timeline-s8d "bin/trilap-analyze timeline $n/session8/D/trace-cpml20-r1 --iter-range 7:7 -o $S/t.csv"
  echo "$(wc -l < "$S/t.csv") lines in t.csv"
}
r9() {
  run foreign-breakdown "bin/trilap-analyze breakdown results/foreign-h200/torch-inject-1"
  show foreign-breakdown 'category' 6
  run foreign-zcat "zcat results/foreign-h200/torch.sqlite.gz > $S/torch.sqlite"
  run foreign-diagnose "bin/trilap-analyze diagnose $S/torch.sqlite"
  show foreign-diagnose '^FINDING|^# clock' 6
  rm -rf "$S/imported"
  run foreign-import "bin/trilap-analyze import $S/torch.sqlite -o $S/imported"
  ls "$S/imported" | head -n 5
}
r12() {
  local m=$S/model
  rm -rf "$m"; mkdir -p "$m"
  run model-calibrate "bin/trilap-model calibrate -o $m/calib-h200.txt"
  echo "calibration against the committed one: $(diff <(grep -v '^#' results/model/calib-h200.txt) <(grep -v '^#' "$m/calib-h200.txt") > /dev/null && echo same || echo differs)"
  run model-tristream "bin/trilap-model tristream --results $m/tristream-h200x2.csv"
  show model-tristream '^ +(two-stream|three-naive|three-split) |rows, ' 6
  run model-fdtd "bin/trilap-model fdtd --results $m/fdtd-paper2.csv"
  show model-fdtd 'fastest s|largest|within' 6
  run model-pipecg-256 "bin/trilap-model solver --platform a100-hdr --gpus 4,8,16,32,64,128,256 --matrix gen:poisson7:256 --results $m/pipecg-poisson7-256-a100-hdr.csv"
  show model-pipecg-256 'speedup|^ *(4|16|64|256) ' 10
  run model-pipecg-128-metis "bin/trilap-model solver --platform a100-hdr --partition metis --gpus 4,8,16,32,64 --matrix gen:poisson7:128 --results $m/pipecg-poisson7-128-metis-a100-hdr.csv"
  show model-pipecg-128-metis 'speedup|^ *(4|16|64) ' 10
  run model-pipebicgstab-256 "bin/trilap-model solver --method pipebicgstab --platform h100-ndr --gpus 4,8,16,32,64,128,256 --matrix gen:poisson7:256 --results $m/pipebicgstab-poisson7-256-h100-ndr.csv"
  show model-pipebicgstab-256 'speedup|^ *(4|16|64|256) ' 10
  run gnuplot-fig5 "gnuplot -e \"file='$m/pipecg-poisson7-256-a100-hdr.csv'; title='Pipe-PCG poisson7 256^3 a100-hdr'; out='$m/model-fig5.png'\" plots/model-scaling.gp"
  run gnuplot-fig6 "gnuplot -e \"file='$m/pipebicgstab-poisson7-256-h100-ndr.csv'; method='Pipe-BiCGStab'; title='...'; out='$m/model-fig6.png'\" plots/model-scaling.gp"
  run gnuplot-t12 "gnuplot -e \"file='$m/fdtd-paper2.csv'; label='grid strategy s'; a='paper_s'; b='predicted_s'; ylabel='s'; out='$m/model-t12.png'\" plots/model-validation.gp"
  local f
  for f in tristream-h200x2 fdtd-paper2 pipecg-poisson7-256-a100-hdr pipecg-poisson7-128-metis-a100-hdr pipebicgstab-poisson7-256-h100-ndr; do
    echo "$f.csv against the committed one, the simulation's own seconds (sim_wall_s) aside: $(diff <(no_sim results/model/$f.csv) <(no_sim "$m/$f.csv") > /dev/null && echo same || echo differs)"
  done
  ls "$m"
  run bench-model "make bench-model"
  tail -n 3 "$S/bench-model.log"
}

[ $# -gt 0 ] || set -- firsthour r0 r2 r3 r6 r7 r7awk r9 r12
echo "# commit: $(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- . ':!results' || echo -dirty); date: $(date -u +%FT%TZ); $(nproc) cores; $(. /etc/os-release && echo "$PRETTY_NAME"); GPU: $(g=$(nvidia-smi -L 2>/dev/null | head -n 1); echo "${g:-none}")"
for sec in "$@"; do
  echo "## $sec"
  "$sec"
done
