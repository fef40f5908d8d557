#!/usr/bin/env bash
# The paper's schedule comparison for the pipelined solvers on NRANKS ranks:
# pipecg (Jacobi) on generated 3D Poisson matrices (7- and 27-point, the
# poisson3da family) and pipebicgstab (Jacobi) on convection-diffusion, each
# under every schedule (sync, two-stream, three-naive, three-split) in
# fixed-iteration benchmark mode (--rtol 0 --atol 0 --max-iterations K).
# Writes OUT/solver-schedules.csv (one row per timed solve), OUT/manifest.txt
# (trilap-solve's block per run, naming the lines of its rows), OUT/console.log, OUT/summary.txt and, with gnuplot, OUT/solver-bars.{png,pdf}.
#
#   scripts/run-solver-schedules.sh 4                          # 4 MPI ranks, host backend
#   LAUNCH=threads scripts/run-solver-schedules.sh 2 --n 64
#   BACKEND=cuda LAUNCH=srun scripts/run-solver-schedules.sh 8 --n 160 --iterations 500
#
# Options:
#   --matrices LIST   matrices, space or comma separated [poisson7 poisson27 convdiff]
#                     KIND (grid --n), KIND:N, gen:KIND:N[:PECLET] or a matrix file;
#                     SPEC@SOLVER overrides the method (default: pipebicgstab for
#                     convdiff, pipecg otherwise)
#   --n N             grid size of the generated matrices, N^3 rows [40]
#   --iterations K    iterations of every solve (fixed-iteration mode) [50]
#   --warmup W        untimed solves [1]
#   --repeat R        timed solves per trilap-solve run [3]
#   --rounds C        cycles over the schedules, so that a slow spell of the
#                     machine hits every schedule alike: C*R timed solves each [3]
#   --schedules LIST  [sync two-stream three-naive three-split]
#   --precond P       [jacobi]
#   --partition SPEC  passed to trilap-solve [auto]
#   --trace           trace every run: OUT/traces/<matrix>-<solver>/<schedule>/
#   -- ARGS...        further trilap-solve options
# Environment: LAUNCH=mpi (default; $MPIRUN -np N $MPIRUN_ARGS) | threads (one
# process: --ranks N --no-gpu, or --gpus N for cuda) | srun (srun -n N
# $SRUN_ARGS; default --mpi=pmix, and --gpu-bind=none for cuda);
# MPIRUN [mpirun], MPIRUN_ARGS []: where N exceeds the cores, --oversubscribe
# goes to an Open MPI mpirun alone (MPICH's and Intel MPI's mpiexec refuse
# it): one whose --version names Open MPI or OpenRTE, unless
# MPIRUN_OPEN_MPI=1 or 0 says whether it is;
# BACKEND=host (default) | cuda; OUT (default: a new folder in the checkout,
# results/solver-schedules-<backend><N>-<host>-<date>, untracked until you
# commit it; the last line names it);
# SOLVE (the trilap-solve binary), PLOT=0 to skip the figure.
# Exit: 0; 2 bad arguments; 1 missing program or results; trilap-solve's own
# status when a run fails (its message is shown and in OUT/console.log); 3 when
# a run stopped before K iterations (breakdown at rounding level: lower
# --iterations or raise --n; the timings are kept but not comparable); 130, 143,
# 129 when stopped by SIGINT, SIGTERM, SIGHUP (OUT removed if it holds no result).
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

prog=run-solver-schedules.sh
# one line (before: the reason, then a usage line; no NRANKS printed the
# whole header, 39 lines, to stderr)
bad() { echo "$prog: $* (usage: $prog NRANKS [options]; try --help)" >&2; exit 2; }
posint() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
# the header, to its last comment line (a fixed line count fell behind it)
help() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0; }

[[ $# -ge 1 ]] || bad "no NRANKS given"
case $1 in -h | --help) help ;; esac
nranks=$1
shift
argv="$*"
posint "$nranks" || bad "invalid NRANKS '$nranks': a positive integer"

matrices="poisson7 poisson27 convdiff"
n=40 iters=50 warmup=1 repeat=3 rounds=3 precond=jacobi partition="" trace=0
schedules="sync two-stream three-naive three-split"
extra=()
need() { [[ $# -ge 2 && -n $2 ]] || bad "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --matrices) need "$@"; matrices=${2//,/ }; shift 2 ;;
        --n) need "$@"; posint "$2" || bad "invalid --n '$2'"; n=$2; shift 2 ;;
        --iterations) need "$@"; posint "$2" || bad "invalid --iterations '$2'"; iters=$2; shift 2 ;;
        --warmup) need "$@"; [[ $2 =~ ^[0-9]+$ ]] || bad "invalid --warmup '$2'"; warmup=$2; shift 2 ;;
        --repeat) need "$@"; posint "$2" || bad "invalid --repeat '$2'"; repeat=$2; shift 2 ;;
        --rounds) need "$@"; posint "$2" || bad "invalid --rounds '$2'"; rounds=$2; shift 2 ;;
        --schedules) need "$@"; schedules=${2//,/ }; shift 2 ;;
        --precond) need "$@"; precond=$2; shift 2 ;;
        --partition) need "$@"; partition=$2; shift 2 ;;
        --trace) trace=1; shift ;;
        -h | --help) help ;;
        --) shift; extra=("$@"); break ;;
        *) bad "invalid argument '$1'" ;;
    esac
done
for s in $schedules; do
    case $s in sync | two-stream | three-naive | three-split) ;; *) bad "invalid schedule '$s'" ;; esac
done
[[ -n ${schedules// /} ]] || bad "--schedules is empty"
[[ -n ${matrices// /} ]] || bad "--matrices is empty"

backend=${BACKEND:-host}
case $backend in host | cuda) ;; *) bad "BACKEND must be host or cuda, not '$backend'" ;; esac
launch=${LAUNCH:-mpi}
case $launch in mpi | threads | srun) ;; *) bad "LAUNCH must be mpi, threads or srun, not '$launch'" ;; esac
case ${MPIRUN_OPEN_MPI:-} in 1 | 0 | '') ;; *) bad "MPIRUN_OPEN_MPI must be 1 or 0, not '$MPIRUN_OPEN_MPI'" ;; esac

# spec -> "matrix solver tag"
resolve() {
    local e=$1 m s="" kind
    if [[ $e == *@* ]]; then s=${e##*@}; e=${e%@*}; fi
    case $e in
        poisson7 | poisson27 | convdiff) m=gen:$e:$n ;;
        poisson7:* | poisson27:* | convdiff:*) m=gen:$e ;;
        *) m=$e ;;
    esac
    if [[ $m == gen:* ]]; then
        kind=${m#gen:}
        kind=${kind%%:*}
        [[ -n $s ]] || { [[ $kind == convdiff ]] && s=pipebicgstab || s=pipecg; }
    else
        [[ -f $m ]] || bad "matrix file '$m' not found"
        s=${s:-pipecg}
    fi
    case $s in pipecg | pipebicgstab | cg | pcg | bicgstab) ;; *) bad "invalid solver '$s' in '$1'" ;; esac
    local tag
    tag=$(basename "$m" | sed 's/^gen://; s/\.gz$//; s/\.mtx$//; s/\.tlcsr$//; s/[^A-Za-z0-9._-]/-/g')
    printf '%s %s %s\n' "$m" "$s" "$tag-$s"
}
runs=()
for e in $matrices; do runs+=("$(resolve "$e")"); done

root=$(cd "$(dirname "$0")/.." && pwd)
solve=${SOLVE:-$root/bin/trilap-solve}
[[ -x $solve ]] || { echo "$prog: $solve not built (run make)" >&2; exit 1; }
# the launcher must be there before OUT is made (before, bash's "line 151:
# mpirun: command not found", exit 127, on a machine without MPI)
case $launch in
    mpi) need=${MPIRUN:-mpirun} need=${need%% *} hint="load the MPI module or set MPIRUN; LAUNCH=threads runs the ranks as threads without MPI" ;;
    srun) need=srun hint="LAUNCH=srun runs inside a Slurm allocation; elsewhere LAUNCH=threads or mpi" ;;
    *) need="" ;;
esac
[[ -z $need ]] || command -v "$need" >/dev/null 2>&1 ||
    { echo "$prog: LAUNCH=$launch but $need is not on PATH ($hint)" >&2; exit 1; }
host=$(hostname -s)
out=${OUT:-$root/results/solver-schedules-$backend$nranks-$host-$(date +%Y%m%d-%H%M%S)}
csv=$out/solver-schedules.csv
log=$out/console.log
# trilap-solve appends to --results: refuse to mix a new run into an old one
[[ ! -e $csv ]] || { echo "$prog: $csv exists; choose another OUT or remove it" >&2; exit 1; }
made=0
[[ -e $out ]] || made=1
mkdir -p "$out"
# ^C, SIGTERM (scancel, a Slurm time limit) or SIGHUP: a failed run, said
# in one line, the folder removed when it holds no result (left with its
# console.log, unsaid, before)
stopped() {
    if [[ $made == 1 && ! -s $csv ]]; then
        rm -rf "$out"
        echo "$prog: interrupted ($1) before any result; $out removed" >&2
    else
        echo "$prog: interrupted ($1); the results before it are in $csv" >&2
    fi
    exit "$2"
}
trap 'stopped SIGINT 130' INT
trap 'stopped SIGTERM 143' TERM
trap 'stopped SIGHUP 129' HUP

cores=$(nproc)
# open_mpi MPIRUN: whether MPIRUN is Open MPI's, whose --oversubscribe
# the others refuse (before, given to any MPIRUN)
open_mpi() {
    case ${MPIRUN_OPEN_MPI:-} in
        1) return 0 ;;
        0) return 1 ;;
        *) "$1" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE' ;;
    esac
}
launcher=()
# word splitting of MPIRUN, MPIRUN_ARGS and SRUN_ARGS (user-given options) is intended
# shellcheck disable=SC2206
case $launch in
    mpi)
        launcher=(${MPIRUN:-mpirun} -np "$nranks")
        if [[ $nranks -gt $cores ]] && open_mpi "${launcher[0]}"; then launcher+=(--oversubscribe); fi
        launcher+=(${MPIRUN_ARGS:-})
        ;;
    srun)
        # PMIx lets trilap-solve see the MPI launch; CUDA ranks pick their GPU by local rank
        # and must see every GPU of the node (as scripts/slurm/tristream.sbatch)
        srun_default="--mpi=pmix"
        [[ $backend == host ]] || srun_default+=" --gpu-bind=none"
        launcher=(srun -n "$nranks" ${SRUN_ARGS-$srun_default})
        ;;
esac
# what a failure message names: mpirun or srun refuse before trilap-solve starts
ran=trilap-solve
[[ ${#launcher[@]} -eq 0 ]] || ran="${launcher[0]##*/} -n $nranks trilap-solve"
group=()
if [[ $launch == threads ]]; then
    if [[ $backend == cuda ]]; then group=(--launcher threads --gpus "$nranks"); else group=(--launcher threads --ranks "$nranks" --no-gpu); fi
elif [[ $backend == host ]]; then
    group=(--no-gpu) # host ranks never touch a GPU, even on a GPU node
fi

{
    echo "# script: scripts/$prog $nranks${argv:+ $argv}"
    echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# host: $host ($cores cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
    echo "# git: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
    echo "# ranks: $nranks"
    echo "# launch: $launch${launcher[*]:+ (${launcher[*]})}"
    if [[ $launch == mpi && $nranks -gt $cores ]]; then
        echo "# oversubscribed: yes ($nranks ranks on $cores cores)$([[ " ${launcher[*]} " == *' --oversubscribe '* ]] || echo ", no --oversubscribe: ${launcher[0]} is not Open MPI's")"
    fi
    echo "# backend: $backend"
    echo "# iterations: $iters (fixed-iteration mode), warmup $warmup, timed solves $repeat per run, $rounds rounds over the schedules"
    echo "# schedules: $schedules"
    echo "# out: $out"
} | tee "$log"

for r in "${runs[@]}"; do
    read -r m s tag <<<"$r"
    for ((round = 1; round <= rounds; round++)); do for sched in $schedules; do
        args=(--solver "$s" --precond "$precond" --schedule "$sched" --backend "$backend"
            --rtol 0 --atol 0 --max-iterations "$iters" --warmup "$warmup" --repeat "$repeat"
            --results "$csv")
        [[ -z $partition ]] || args+=(--partition "$partition")
        [[ $trace == 0 || $round -gt 1 ]] || args+=(--trace "$out/traces/$tag/$sched")
        cmd=("${launcher[@]}" "$solve" "${group[@]}" "${args[@]}" "${extra[@]}" "$m")
        echo "# ${cmd[*]}" | tee -a "$log"
        rc=0
        # stderr stays on the terminal and goes into the log too
        "${cmd[@]}" 2> >(tee -a "$log" >&2) | tee -a "$log" || rc=$?
        wait # the stderr tee has flushed
        # 3: stopped before --max-iterations (a breakdown); the iteration
        # check below marks the row WRONG and the script exits 3 at the end
        if [[ $rc -ne 0 && $rc -ne 3 ]]; then
            if [[ $made == 1 && ! -s $csv ]]; then
                # nothing measured (trilap-solve refused its arguments, say): no folder of results left
                rm -rf "$out"
                echo "$prog: $ran exited $rc ($tag, schedule $sched) before any result; $out removed (message above)" >&2
            else
                echo "$prog: $ran exited $rc ($tag, schedule $sched, round $round); stopping (message above, log in $log)" | tee -a "$log" >&2
            fi
            exit "$rc"
        fi
    done; done
done
[[ -s $csv ]] || { echo "$prog: no results in $csv" >&2; exit 1; }

# Summary per matrix/method (and rank count): scripts/solver-schedules-summary.awk
summary() {
    awk -v want="$iters" -v order="$schedules" -f "$root/scripts/csv.awk" \
        -f "$root/scripts/solver-schedules-summary.awk" "$1"
}
src=0
summary "$csv" >"$out/summary.txt" || src=$?
tee -a "$log" <"$out/summary.txt"

if [[ ${PLOT:-1} != 0 ]] && command -v gnuplot >/dev/null; then
    for ext in png pdf; do
        gnuplot -e "file='$csv'; out='$out/solver-bars.$ext'" "$root/plots/solver-bars.gp"
    done
    echo "# figure: $out/solver-bars.png, $out/solver-bars.pdf" | tee -a "$log"
fi
echo "# results in $out" | tee -a "$log"
if [[ $src -ne 0 ]]; then
    echo "$prog: some runs stopped before $iters iterations (marked WRONG); lower --iterations or raise --n" | tee -a "$log" >&2
    exit 3
fi
