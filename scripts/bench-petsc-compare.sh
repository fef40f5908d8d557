#!/usr/bin/env bash
# Compare trilap's Krylov methods with PETSc's on the same distributed
# matrix, per matrix, method and rank count. Two modes:
#
#   iterations (default): iterations to the same relative tolerance
#     (||r|| <= rtol ||b||, unpreconditioned 2-norm) and solver times;
#   timing (--iterations K): the paper's fixed-iteration benchmark mode
#     (rtol = atol = 0, exactly K iterations) for both, time per iteration,
#     over --rounds C rounds that alternate trilap and PETSc, so a slow
#     spell of a shared machine hits both; the ratio trilap / PETSc of the
#     median time per iteration, and per round (side by side).
#
#   scripts/bench-petsc-compare.sh [--ranks "1 2 4"] [--rtol 1e-6] [--iterations K] [--rounds 1]
#                            [--repeat 3] [--solvers LIST] [--out DIR] [--csv] [MATRIX ...]
#
# MATRIX: a Matrix Market file, a .tlcsr file or gen:KIND:N (default: the
# shared matrices and two generated ones; with --iterations, gen:poisson7:64).
# SPD matrices run pcg, pipecg, bicgstab and pipebicgstab; nonsymmetric ones
# (name containing "nonsymm" or "convdiff") only the BiCGStab pair;
# --solvers overrides both. Jacobi, b = ones, x0 = 0, block partition, one
# OpenMP thread per rank (OMP_NUM_THREADS=1). --out DIR keeps every run's
# output (DIR/raw/), the rows as CSV (DIR/petsc-compare.csv), the table
# (DIR/summary.txt) and DIR/manifest.txt; an existing DIR/summary.txt is
# refused. Needs MPI and a PETSc build (make PETSC=1); TL_MPIRUN overrides
# the mpirun command (given --allow-run-as-root --oversubscribe only where
# its --version says Open MPI or OpenRTE: srun gets -np alone), TL_BIN the folder of
# trilap-solve, TL_DATA the shared
# data folder whose matrices/ it reads [../shared/data beside the
# checkout; the default matrices, 1138_bus, ani4 and ani1_nonsymm, are there].
# Exit: 0; 2 bad arguments; 1 a matrix file that is not there (a default
# one: set TL_DATA), as trilap-solve's missing matrix; trilap-solve's own status
# when a run fails (other than 3, a solve stopped without converging, which is a result):
# its message is shown, the script stops, and an --out DIR it made is
# removed if nothing was measured yet (else DIR/raw/ keeps the runs).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TL_BIN:-$here/bin}
data=${TL_DATA:-$here/../shared/data}
mpirun=${TL_MPIRUN:-mpirun}
args=("$@")
ranks="1 2 4" rtol=1e-6 repeat=3 csv=0 iters=0 rounds=1 solvers_opt="" out=""
mats=()
usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; }   # the header comment, to its end
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "bench-petsc-compare.sh: $1 needs a value (try --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --ranks) need "$@"; ranks=$2; shift 2 ;;
    --rtol) need "$@"; rtol=$2; shift 2 ;;
    --repeat) need "$@"; repeat=$2; shift 2 ;;
    --iterations) need "$@"; iters=$2; shift 2 ;;
    --rounds) need "$@"; rounds=$2; shift 2 ;;
    --solvers) need "$@"; solvers_opt=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    --csv) csv=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench-petsc-compare.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) mats+=("$1"); shift ;;
  esac
done
for v in "$iters" "$rounds" "$repeat"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "bench-petsc-compare.sh: invalid count '$v' (try --help)" >&2; exit 2; }
done
[ "$rounds" -ge 1 ] && [ "$repeat" -ge 1 ] || { echo "bench-petsc-compare.sh: --rounds and --repeat must be >= 1" >&2; exit 2; }
for r in $ranks; do
  [[ $r =~ ^[1-9][0-9]*$ ]] || { echo "bench-petsc-compare.sh: invalid rank count '$r' (try --help)" >&2; exit 2; }
done
[ -n "${ranks// /}" ] || { echo "bench-petsc-compare.sh: --ranks lists no rank count (try --help)" >&2; exit 2; }
# a bad --rtol or solver made every run fail, and the table held only dashes, exit 0
[[ $rtol =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] && awk -v x="$rtol" 'BEGIN{exit !(x > 0 && x < 1)}' ||
  { echo "bench-petsc-compare.sh: invalid --rtol '$rtol': a number between 0 and 1 (try --help)" >&2; exit 2; }
if [ -n "$solvers_opt" ]; then
  IFS=, read -r -a list <<<"$solvers_opt,"
  for s in "${list[@]}"; do
    case $s in
      cg|pcg|pipecg|bicgstab|pipebicgstab) ;;
      *) echo "bench-petsc-compare.sh: invalid --solvers '$solvers_opt': '$s' is not cg, pcg, pipecg, bicgstab or pipebicgstab (try --help)" >&2; exit 2 ;;
    esac
  done
fi
# a matrix that is not there: exit 1, as trilap-solve's missing matrix
# (a file that cannot be read); a default one says what to do, for a
# clone without the shared data beside it
missing="no such matrix file"
if [ ${#mats[@]} -eq 0 ]; then
  if [ "$iters" -gt 0 ]; then
    mats=(gen:poisson7:64)
  else
    mats=("$data/matrices/1138_bus.mtx" "$data/matrices/ani4.mtx" "$data/matrices/ani1_nonsymm.mtx"
          gen:poisson7:24 gen:convdiff:24)
    missing="$missing (set TL_DATA to the shared data folder, or name the matrices)"
  fi
fi
for m in "${mats[@]}"; do
  case $m in gen:*) ;; *) [ -r "$m" ] || { echo "bench-petsc-compare.sh: $m: $missing" >&2; exit 1; } ;; esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
[ -x "$bin/trilap-solve" ] || { echo "bench-petsc-compare.sh: $bin/trilap-solve not built (make)" >&2; exit 1; }
# --allow-run-as-root and --oversubscribe are Open MPI's mpirun's: srun or
# MPICH's mpiexec (TL_MPIRUN) refuse them (before, passed to whichever ran)
mpi_opts=()
if "$mpirun" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE'; then mpi_opts=(--allow-run-as-root --oversubscribe); fi
made=0
if [ -n "$out" ]; then
  [ -e "$out/summary.txt" ] && { echo "bench-petsc-compare.sh: $out/summary.txt exists; choose another --out" >&2; exit 2; }
  [ -e "$out" ] || made=1
  mkdir -p "$out/raw"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rawdir=${out:+$out/raw}
rawdir=${rawdir:-$tmp}

# run BACKEND RANKS MATRIX SOLVERS TAG -> lines "solver iterations time converged",
# the complete output kept in $rawdir/TAG.txt. A run that fails (exit
# status other than 0 or 3) stops the script with its status. PETSc's KSPPIPEBCGS replaces
# the residual every 100 iterations (up to 1000); trilap's pipebicgstab
# does the same with --residual-replacement 100 (given where the list holds it).
# Both are trilap's options: trilap-solve refuses them with --backend petsc
# (PETSc runs one thread per rank here by OMP_NUM_THREADS=1).
run() {
  local extra=() stop=(--rtol "$rtol")
  [ "$1" = host ] && extra=(--omp-threads 1)
  # only where pipebicgstab runs: trilap-solve refuses it elsewhere, and
  # --solvers pcg,pipecg gave trilap a row of dashes
  [ "$1" = host ] && [[ ,$4, == *,pipebicgstab,* ]] && extra+=(--residual-replacement 100)
  [ "$iters" -gt 0 ] && stop=(--rtol 0 --atol 0 --max-iterations "$iters")
  local f="$rawdir/$5.txt"
  { echo "# $mpirun ${mpi_opts[*]+${mpi_opts[*]} }-np $2 $bin/trilap-solve --backend $1 --solver $4 ${stop[*]} ${extra[*]} --warmup 1 --repeat $repeat --partition block $3"
    echo "# start $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"; } >"$f"
  local rc=0
  "$mpirun" ${mpi_opts[@]+"${mpi_opts[@]}"} -np "$2" "$bin/trilap-solve" --backend "$1" --solver "$4" \
    "${stop[@]}" "${extra[@]}" --warmup 1 --repeat "$repeat" --partition block "$3" >>"$f" 2>&1 || rc=$?
  # 3: a solve stopped without converging (PETSc's KSPBCGS breaking down
  # on 1138_bus, say), a result of the comparison; any other failure
  # (before: kept as a row of dashes, exit 0) stops the script
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    grep -m 1 '^trilap-solve' "$f" >&2 || tail -n 5 "$f" >&2
    if [ "$made" = 1 ] && [ "$(wc -l <"$csvfile")" -le 1 ]; then
      rm -rf "$out"
      echo "bench-petsc-compare.sh: trilap-solve --backend $1 exited $rc ($5) before any result; $out removed (message above)" >&2
    else
      echo "bench-petsc-compare.sh: trilap-solve --backend $1 exited $rc ($5); stopping (message above${out:+, its output in $f})" >&2
    fi
    exit "$rc"
  fi
  awk -F': ' '$1=="solver"{s=$2} $1=="converged"{c=$2} $1=="iterations"{i=$2}
              $1=="solver time"{split($2,t," ")}
              $1=="solver time min"{split($2,m," "); print s, i, t[1], c, m[1]}' "$f"
}

median() { sort -g | awk '{a[NR]=$1} END{if(NR==0){print "-"; exit} if(NR%2) print a[(NR+1)/2]; else printf "%.6e\n",(a[NR/2]+a[NR/2+1])/2}'; }

{
  if [ -n "$out" ]; then
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "cores: $(getconf _NPROCESSORS_ONLN)"
    echo "load average (start): $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
    echo "git commit: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$here" diff --quiet 2>/dev/null || echo ' (modified)')"
    echo "trilap-solve: $bin/trilap-solve sha256 $(sha256sum "$bin/trilap-solve" | cut -d' ' -f1)"
    echo "mpirun: $("$mpirun" --version 2>/dev/null | head -1)"
    echo "petsc: $(pkg-config --modversion PETSc 2>/dev/null || pkg-config --modversion petsc 2>/dev/null || echo unknown)"
    echo "command: $0 ${args[*]}"
    echo "mode: $([ "$iters" -gt 0 ] && echo "timing, $iters fixed iterations, $rounds rounds" || echo "iterations to rtol $rtol")"
    echo "ranks: $ranks; repeat: $repeat (+1 warm-up); OMP_NUM_THREADS=1; partition block"
  fi
} >"$tmp/manifest"

csvfile=$tmp/rows.csv
echo "matrix,method,ranks,round,backend,iterations,solver_time_s,time_per_iteration_s,converged,solver_time_min_s,time_per_iteration_min_s" >"$csvfile"
rows=0 bad=0 slow=0
summary=$tmp/summary
if [ "$iters" -gt 0 ]; then
  fmt='%-18s %-13s %5s %6s %7s %7s %12s %12s %7s %7s %7s %12s %12s %7s\n'
  { echo "# trilap (host) vs PETSc: $iters fixed iterations (rtol = atol = 0), Jacobi, x0 = 0, b = ones, block partition,"
    echo "# 1 OpenMP thread per rank; per round each backend: 1 warm-up + $repeat timed solves (median, max over ranks),"
    echo "# trilap and PETSc alternating for $rounds rounds; ratio = median over rounds of trilap / PETSc time per iteration,"
    echo "# ratio min/max: of the per-round ratios (the two measured side by side in one round);"
    echo "# best: the fastest timed solve of each over all rounds (least disturbed by other load), and their ratio;"
    echo "# PETSc's pipecg does $((iters + 1)) at the limit (KSPPIPECG loops while i <= max_it) and says so: s/it divides by each one's count"
    printf "$fmt" matrix method ranks rounds trilap petsc trilap petsc ratio ratio ratio trilap petsc ratio
    printf "$fmt" "" "" "" "" its its "s/it" "s/it" "" min max "best s/it" "best s/it" best; } >"$summary"
else
  fmt='%-16s %-13s %5s %8s %8s %5s %12s %12s %6s %6s\n'
  { echo "# trilap vs PETSc: iterations to ||r|| <= $rtol ||b|| (Jacobi, x0 = 0, b = ones),"
    echo "# solver time = median of $repeat timed solves after 1 warm-up, max over ranks; block partition"
    printf "$fmt" matrix method ranks trilap petsc diff trilap petsc trilap petsc
    printf "$fmt" "" "" "" its its its "time_s" "time_s" conv conv; } >"$summary"
fi
[ $csv -eq 1 ] || cat "$summary"

for m in "${mats[@]}"; do
  name=$(basename "$m"); name=${name%.gz}; name=${name%.mtx}; name=${name//:/-}
  case $m in *nonsymm*|*convdiff*) solvers=bicgstab,pipebicgstab ;; *) solvers=pcg,pipecg,bicgstab,pipebicgstab ;; esac
  [ -n "$solvers_opt" ] && solvers=$solvers_opt
  for r in $ranks; do
    for ((k = 1; k <= rounds; k++)); do
      # alternate which backend goes first, so neither always runs after the other
      if [ $((k % 2)) -eq 1 ]; then order="host petsc"; else order="petsc host"; fi
      for be in $order; do
        # not in a pipeline: a failed run's exit leaves the script
        run "$be" "$r" "$m" "$solvers" "$name-np$r-$be-round$k" >"$tmp/lines"
        while read -r s i t c tm; do
          tpi=- tpm=-
          if [[ $i =~ ^[0-9]+$ ]] && [ "$i" -gt 0 ]; then
            tpi=$(awk -v t="$t" -v i="$i" 'BEGIN{printf "%.6e", t/i}')
            tpm=$(awk -v t="$tm" -v i="$i" 'BEGIN{printf "%.6e", t/i}')
          fi
          echo "$name,$s,$r,$k,$be,$i,$t,$tpi,$c,$tm,$tpm"
        done <"$tmp/lines" >>"$csvfile"
      done
    done
    for s in ${solvers//,/ }; do
      pick() { awk -F, -v m="$name" -v s="$s" -v r="$r" -v b="$1" -v c="$2" '$1==m && $2==s && $3==r && $5==b {print $c}' "$csvfile"; }
      rows=$((rows + 1))
      if [ "$iters" -gt 0 ]; then
        ti=$(pick host 6 | sort -u | tr '\n' '/' | sed 's,/$,,'); pi=$(pick petsc 6 | sort -u | tr '\n' '/' | sed 's,/$,,')
        tt=$(pick host 8 | median); pt=$(pick petsc 8 | median)
        ratio=- rmin=- rmax=- bratio=-
        tb=$(pick host 11 | sort -g | head -1); pb=$(pick petsc 11 | sort -g | head -1)
        if [[ $tt != - && $pt != - && $tt != "" && $pt != "" ]]; then
          ratio=$(awk -v a="$tt" -v b="$pt" 'BEGIN{printf "%.3f", a/b}')
          per=$(awk -F, -v m="$name" -v s="$s" -v r="$r" '$1==m && $2==s && $3==r && $8!="-" {t[$4 FS $5]=$8; k[$4]=1}
                END{for (x in k) if ((x FS "host") in t && (x FS "petsc") in t) printf "%.4f\n", t[x FS "host"]/t[x FS "petsc"]}' "$csvfile" | sort -g)
          rmin=$(head -1 <<<"$per"); rmax=$(tail -1 <<<"$per")
          bratio=$(awk -v a="$tb" -v b="$pb" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.3f", a/b; else print "-"}')
          awk -v x="$ratio" 'BEGIN{exit !(x > 1.1)}' && slow=$((slow + 1))
        fi
        # PETSc's count too (before: trilap's alone; a KSP stopping early at
        # rounding level, KSPBCGS at 426 of 1000 on poisson7:8, passed);
        # a row counted once
        want=$iters
        [ "$s" = pipecg ] && want=$((iters + 1))
        [[ $ratio != - && $ti == "$iters" && $pi == "$want" ]] || bad=$((bad + 1))
        line=$(printf "$fmt" "$name" "$s" "$r" "$rounds" "$ti" "$pi" "$tt" "$pt" "$ratio" "$rmin" "$rmax" "${tb:--}" "${pb:--}" "$bratio")
      else
        read -r ti tt tc < <(paste -d' ' <(pick host 6) <(pick host 7) <(pick host 9) | head -1; echo "- - -")
        read -r pi pt pc < <(paste -d' ' <(pick petsc 6) <(pick petsc 7) <(pick petsc 9) | head -1; echo "- - -")
        d=-
        if [[ $ti =~ ^[0-9]+$ && $pi =~ ^[0-9]+$ ]]; then d=$((ti - pi)); fi
        case $s in pipe*) if [[ $d == - ]] || [ "${d#-}" -gt 2 ]; then bad=$((bad + 1)); fi ;; esac
        line=$(printf "$fmt" "$name" "$s" "$r" "$ti" "$pi" "$d" "$tt" "$pt" "$tc" "$pc")
      fi
      echo "$line" >>"$summary"
      [ $csv -eq 1 ] || echo "$line"
    done
  done
done
if [ "$iters" -gt 0 ]; then
  foot="# $rows rows, $slow with trilap slower than 1.1x PETSc, $bad without a complete measurement or with another iteration count than $iters (PETSc's pipecg $((iters + 1)))"
else
  foot="# $rows rows, $bad pipelined rows differing by more than 2 iterations"
fi
echo "$foot" >>"$summary"
if [ $csv -eq 1 ]; then cat "$csvfile"; else echo "$foot"; fi
if [ -n "$out" ]; then
  echo "load average (end): $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)" >>"$tmp/manifest"
  cp "$csvfile" "$out/petsc-compare.csv"
  cp "$tmp/manifest" "$out/manifest.txt"
  cp "$summary" "$out/summary.txt"
fi
