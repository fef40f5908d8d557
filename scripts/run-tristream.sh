#!/usr/bin/env bash
# The paper's Sec. II-C microbenchmark on N GPUs of one node: every variant,
# results CSV + manifest + console log under OUT (and a trace window with
# TRACE=1). Extra arguments go to trilap-bench tristream.
#
#   scripts/run-tristream.sh 2                       # thread launcher, 2 GPUs
#   LAUNCH=mpi scripts/run-tristream.sh 4 --iters 100000
#   OUT=rerun/tristream-h200x2 TRACE=1 scripts/run-tristream.sh 2   # + OUT/<variant>/trace.rank<R>.csv
#   (TRACE=1 into an OUT holding <variant>/trace.rank* of an earlier run is refused, exit 2)
#   LAUNCH=srun scripts/run-tristream.sh 4   # srun -n 4 $SRUN_ARGS (default --mpi=pmix --gpu-bind=none)
# OUT [results/tristream-<host>-<N>gpu-<date>]; BENCH: the trilap-bench to run
# [bin/trilap-bench]; LAUNCH=mpi runs MPIRUN [mpirun] -np N MPIRUN_ARGS.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
usage() { echo "usage: ${0##*/} NGPUS [trilap-bench tristream options...]" >&2; exit 2; }
case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
[ $# -ge 1 ] || usage
n=$1; shift
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: invalid NGPUS '$n': a positive integer (try --help)" >&2; exit 2; }
case ${LAUNCH:-threads} in
  threads | mpi | srun) ;;
  *) echo "${0##*/}: invalid LAUNCH '$LAUNCH': threads, mpi or srun (try --help)" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH:-$root/bin/trilap-bench}
[ -x "$bench" ] || { echo "${0##*/}: $bench not built (run make)" >&2; exit 1; }
# the launcher LAUNCH names must be there before OUT is made (before, bash's
# "line 42: srun: command not found", exit 127, after OUT was begun)
case ${LAUNCH:-threads} in
  mpi) launcher=${MPIRUN:-mpirun} launcher=${launcher%% *} hint="load the MPI module, or set MPIRUN" ;;
  srun) launcher=srun hint="LAUNCH=srun runs inside a Slurm allocation; elsewhere LAUNCH=threads or mpi" ;;
  *) launcher="" ;;
esac
[ -z "$launcher" ] || command -v "$launcher" >/dev/null 2>&1 ||
  { echo "${0##*/}: LAUNCH=$LAUNCH but $launcher is not on PATH ($hint)" >&2; exit 1; }
out=${OUT:-$root/results/tristream-$(hostname -s)-${n}gpu-$(date +%Y%m%d-%H%M%S)}
# the probes would write trace.rank<R>.csv beside the earlier run's (a
# committed .csv.gz): two traces of one rank, which make demo refuses
if [ "${TRACE:-0}" = 1 ] && [ -d "$out" ] && old=$(find "$out" -mindepth 2 -maxdepth 2 -name 'trace.rank*' -print -quit) && [ -n "$old" ]; then
  echo "${0##*/}: TRACE=1 into $out, which holds an earlier run's traces ($old): choose another OUT" >&2
  exit 2
fi
# a failed run leaves no folder of results behind (its errors are on stderr)
. "$root/scripts/bench-out.sh"
bench_out_begin "$out"
args=(tristream --results "$out/tristream.csv" "$@")
# traces as OUT/<variant>/trace.rank<R>.csv, the layout make demo and trilap-analyze read
if [ "${TRACE:-0}" = 1 ]; then args+=(--trace "$out"); fi
case ${LAUNCH:-threads} in
  threads) cmd=("$bench" "${args[@]}" --gpus "$n") ;;
  mpi) cmd=(${MPIRUN:-mpirun} -np "$n" ${MPIRUN_ARGS:-} "$bench" "${args[@]}") ;;
  # as scripts/slurm/tristream.sbatch: PMIx sets the variables that select the
  # MPI launcher, and every rank sees all GPUs of its node (ranks bind to them
  # by their local rank); SRUN_ARGS replaces both
  srun) srun_default="--mpi=pmix --gpu-bind=none"
        cmd=(srun -n "$n" ${SRUN_ARGS-$srun_default} "$bench" "${args[@]}") ;;
esac
bench_out_log "$out/tristream.log"
echo "# ${cmd[*]}" | tee -a "$out/tristream.log"
"${cmd[@]}" 2> >(tee -a "$out/tristream.err" >&2) | tee -a "$out/tristream.log"
echo "# results in $out" >&2
