#!/usr/bin/env bash
# Compare trilap's Krylov methods with PETSc's on the same distributed
# matrix: iterations to the same relative tolerance (||r|| <= rtol ||b||,
# unpreconditioned 2-norm) and solver times, per matrix, method and rank
# count. Prints a fixed-width table (or CSV with --csv).
#
#   scripts/petsc-compare.sh [--ranks "1 2 4"] [--rtol 1e-6] [--repeat 3] [--csv] [MATRIX ...]
#
# MATRIX: a Matrix Market file, a .tlcsr file or gen:KIND:N (default: the
# shared matrices and two generated ones). SPD matrices run pcg, pipecg,
# bicgstab and pipebicgstab; nonsymmetric ones (name containing "nonsymm" or
# "convdiff") only the BiCGStab pair. Needs MPI and a PETSc build
# (make PETSC=1); TL_MPIRUN overrides the mpirun command.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TL_BIN:-$here/bin}
data=${TL_DATA:-$here/../shared/data}
mpirun=${TL_MPIRUN:-mpirun}
ranks="1 2 4" rtol=1e-6 repeat=3 csv=0
mats=()
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) ranks=$2; shift 2 ;;
    --rtol) rtol=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --csv) csv=1; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "petsc-compare.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) mats+=("$1"); shift ;;
  esac
done
if [ ${#mats[@]} -eq 0 ]; then
  mats=("$data/matrices/1138_bus.mtx" "$data/matrices/ani4.mtx" "$data/matrices/ani1_nonsymm.mtx"
        gen:poisson7:24 gen:convdiff:24)
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -x "$bin/trilap-solve" ] || { echo "petsc-compare.sh: $bin/trilap-solve not built (make)" >&2; exit 1; }

# run BACKEND RANKS MATRIX SOLVERS -> lines "solver iterations time converged".
# PETSc's KSPPIPEBCGS replaces the residual every 100 iterations (up to
# 1000); trilap's pipebicgstab does the same with --residual-replacement 100.
run() {
  local extra=()
  [ "$1" = host ] && extra=(--residual-replacement 100)
  "$mpirun" -np "$2" --oversubscribe "$bin/trilap-solve" --backend "$1" --solver "$4" --rtol "$rtol" "${extra[@]}" \
    --warmup 1 --repeat "$repeat" --no-stats --partition block "$3" 2>/dev/null |
    awk -F': ' '$1=="solver"{s=$2} $1=="converged"{c=$2} $1=="iterations"{i=$2}
                $1=="solver time"{split($2,t," "); print s, i, t[1], c}' || true
}

fmt='%-16s %-13s %5s %8s %8s %5s %12s %12s %6s %6s\n'
if [ $csv -eq 1 ]; then
  echo "matrix,method,ranks,trilap_iterations,petsc_iterations,diff,trilap_time_s,petsc_time_s,trilap_converged,petsc_converged"
else
  echo "# trilap vs PETSc: iterations to ||r|| <= $rtol ||b|| (Jacobi, x0 = 0, b = ones),"
  echo "# solver time = median of $repeat timed solves after 1 warm-up, max over ranks; block partition"
  printf "$fmt" matrix method ranks trilap petsc diff trilap petsc trilap petsc
  printf "$fmt" "" "" "" its its its "time_s" "time_s" conv conv
fi
rows=0 bad=0
for m in "${mats[@]}"; do
  name=$(basename "$m"); name=${name%.gz}; name=${name%.mtx}
  case $m in *nonsymm*|*convdiff*) solvers=bicgstab,pipebicgstab ;; *) solvers=pcg,pipecg,bicgstab,pipebicgstab ;; esac
  for r in $ranks; do
    mine=$(run host "$r" "$m" "$solvers")
    theirs=$(run petsc "$r" "$m" "$solvers")
    for s in ${solvers//,/ }; do
      read -r _ ti tt tc < <(grep "^$s " <<<"$mine" || echo "$s - - -")
      read -r _ pi pt pc < <(grep "^$s " <<<"$theirs" || echo "$s - - -")
      d=-
      if [[ $ti =~ ^[0-9]+$ && $pi =~ ^[0-9]+$ ]]; then d=$((ti - pi)); fi
      rows=$((rows + 1))
      case $s in pipe*) if [[ $d == - ]] || [ "${d#-}" -gt 2 ]; then bad=$((bad + 1)); fi ;; esac
      if [ $csv -eq 1 ]; then
        echo "$name,$s,$r,$ti,$pi,$d,$tt,$pt,$tc,$pc"
      else
        printf "$fmt" "$name" "$s" "$r" "$ti" "$pi" "$d" "$tt" "$pt" "$tc" "$pc"
      fi
    done
  done
done
[ $csv -eq 1 ] || echo "# $rows rows, $bad pipelined rows differing by more than 2 iterations"
