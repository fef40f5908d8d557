# Sourced by the Slurm templates of this folder after scripts/bench-out.sh
# (no `set` of its own; lines name the template by bench_out_name): what a
# job needs before it runs a trilap program, and the job's folder.
#
#   . "$root/scripts/bench-out.sh"; . "$root/scripts/slurm/job.sh"
#   bench_out_name=NAME.sbatch
#   slurm_job_env MODULES LAUNCHER PROGRAM...   # modules loaded, programs start
#   slurm_job_out DEFAULT                       # the folder, in $bench_out_dir

# Run rather than sourced (bash job.sh, sbatch job.sh), it defined its
# functions and exited 0, a job that ran nothing taken for one that passed
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case ${1:-} in -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac
    echo "job.sh: sourced by the slurm/*.sbatch templates, not run: submit one of them (sbatch" \
        "--gpus-per-node=4 --ntasks-per-node=4 scripts/slurm/tristream.sbatch; their --help says more)" >&2
    exit 2
fi

# Loads MODULES (TRILAP_MODULES, e.g. "cuda nccl openmpi") with the site's
# `module`, then checks that LAUNCHER (srun, mpirun) is on PATH and that
# each PROGRAM finds its shared libraries; else one line and exit 1,
# before any folder is made. A job submitted with --export=NONE, as some
# sites require, keeps none of the submitting shell's PATH,
# LD_LIBRARY_PATH or loaded modules: without this check its first sign was
# the loader's "error while loading shared libraries" from every rank.
slurm_job_env() {
    local modules=$1 launcher=$2 prog missing
    shift 2
    [ -z "$modules" ] || slurm_job_modules "$modules"
    # sbatch --export=NONE sets SLURM_EXPORT_ENV=NONE in the job, which srun
    # (and mpirun's daemons, started by srun) then apply to each step: the
    # ranks would not get the modules loaded here, nor NCCL_NVLS_ENABLE
    # (sbatch(1): set it to ALL in the job script)
    export SLURM_EXPORT_ENV=ALL
    command -v "$launcher" >/dev/null 2>&1 || {
        echo "$bench_out_name: $launcher is not on this job's PATH: load the module that provides it" \
            "(TRILAP_MODULES; under sbatch --export=NONE the job has none of your shell's PATH)" >&2
        exit 1
    }
    for prog; do
        # ldd says nothing useful of a script (a stand-in): only ELF files
        missing=$(ldd "$prog" 2>/dev/null | awk '/=> not found/ { printf "%s%s", n++ ? ", " : "", $1 }') || true
        [ -z "$missing" ] || {
            echo "$bench_out_name: $prog cannot start in this job: $missing not found; load the modules it was" \
                "built with (TRILAP_MODULES='cuda nccl openmpi', or the template's site line; under sbatch" \
                "--export=NONE the job has none of your shell's LD_LIBRARY_PATH or loaded modules)" >&2
            exit 1
        }
    done
}

# `module load MODULES`; the `module` function comes from the site's
# Lmod or Environment Modules (MODULESHOME, /etc/profile.d) where the job
# did not inherit it. One line and exit 1 when it cannot.
slurm_job_modules() {
    local f log rc=0
    if ! command -v module >/dev/null 2>&1; then
        for f in ${MODULESHOME:+"$MODULESHOME/init/bash"} /etc/profile.d/lmod.sh /etc/profile.d/modules.sh; do
            [ -r "$f" ] || continue
            # the sites' init scripts read unset variables
            set +u
            . "$f"
            set -u
            break
        done
    fi
    command -v module >/dev/null 2>&1 || {
        echo "$bench_out_name: TRILAP_MODULES='$1' but this job has no module command (no Lmod or Environment" \
            "Modules: MODULESHOME unset, no /etc/profile.d/lmod.sh or modules.sh)" >&2
        exit 1
    }
    log=$(mktemp)
    set +u
    # shellcheck disable=SC2086 # a list of module names
    module load $1 2>"$log" || rc=$?
    set -u
    if [ "$rc" != 0 ]; then
        echo "$bench_out_name: module load $1 failed: $(awk 'NF { $1 = $1; print; exit }' "$log")" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

# The job's folder: OUT, else DEFAULT-<job id>. A task of a job array
# (sbatch --array) writes OUT/task-<index> (DEFAULT-<array job id>/
# task-<index>), so tasks sharing OUT neither overwrite each other's CSVs
# nor remove a sibling's folder when they fail. Each writes beside OUT
# first and renames its folder into OUT when it keeps it (bench-out.sh's
# bench_out_begin_staged, tagged with the task's job id and, where Slurm
# names it, its cluster: SLURM_CLUSTER_NAME), so that a task that fails
# before a row leaves nothing, and OUT is made by the first task that
# keeps a folder, never empty. What tasks killed outright left beside OUT
# is seen to first (slurm_job_sweep).
slurm_job_out() {
    local out cluster=${SLURM_CLUSTER_NAME:-}
    # the last line names the folder; a SIGTERM says whether the time limit sent it
    bench_out_say_where=1 bench_out_why=slurm_job_why_signal
    if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
        out=${OUT:-$1-$SLURM_JOB_ID}
        slurm_job_sweep "$out"
        bench_out_begin "$out"
        return
    fi
    out=${OUT:-$1-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}}
    slurm_job_sweep "$out"
    # a name a folder's name can hold whole, else none recorded
    [[ $cluster =~ ^[A-Za-z0-9_-]+$ ]] || cluster=""
    bench_out_begin_staged "$out/task-$SLURM_ARRAY_TASK_ID" "$SLURM_JOB_ID${cluster:+.$cluster}"
}

# Why the job's SIGTERM came, for bench-out.sh's line: at the time limit
# squeue shows (almost) no time left, and the line names the limit (before,
# "interrupted (SIGTERM)" alike for scancel and a limit too short, which
# Slurm's own "DUE TO TIME LIMIT" line said only in its log); nothing where
# squeue cannot tell.
slurm_job_why_signal() {
    local left limit
    [ "$bench_out_signal" = TERM ] || return 0
    read -r left limit < <(squeue -h -j "$SLURM_JOB_ID" -o '%L %l' 2>/dev/null </dev/null) || return 0
    [[ $left =~ ^0:0[0-9]$ ]] || return 0
    echo ": job $SLURM_JOB_ID reached its time limit, $limit (sbatch --time=... gives it more)"
}

# The folders beside OUT (.OUT.task-<index>.<job id>[.<cluster>].XXXXXX) of
# tasks killed outright (SIGKILL, the node lost), whose traps never ran,
# once their job is no longer running, as squeue answers for the cluster
# the folder names (not listed, "Invalid job id", or in a final state), or
# at once when the job id is this job's own on this cluster (a requeued
# job's earlier run: this run's folder is not made yet): a folder holding
# results (a CSV row, a trace, any file but the log, the manifest, a
# header-only CSV or an empty one) goes into OUT as
# task-<index>.killed-<job id>, one line saying so; one holding none is
# removed, one line. Before, it was removed whatever it held: the rows of
# a task killed past its time limit went with it.
# A job of another cluster than this job's (sbatch -M, a federation), or
# of a cluster not recorded while squeue here may ask another
# (SLURM_CLUSTERS), is asked about with squeue -M CLUSTER; where that
# cannot be done the folder stays, one line saying why (before, squeue's
# "Invalid job id" for a job of another cluster, which may still run, read
# as gone). Where squeue is missing or cannot answer (the controller
# unreachable) they stay.
# Those of the naming before the job id was in it (.OUT.task-<index>.XXXXXX,
# runs of an older checkout) are asked about by the job ids (and clusters)
# their manifests record (env.SLURM_JOB_ID: the program's manifest, begun
# when the program starts); one with none (killed before its program
# started, or still starting: nothing tells which) is never removed, and
# is named in one line a run, with the command that removes them, for
# when no job writes into OUT.
slurm_job_sweep() {
    local up=$1 base d rest idx who job keep=()
    base=$(basename "$up")
    for d in "$(dirname "$up")/.$base".task-*; do
        [ -d "$d" ] || continue
        rest=${d##*/."$base".task-}
        if [[ $rest =~ ^([0-9]+)\.([0-9]+)(\.([A-Za-z0-9_-]+))?\.[A-Za-z0-9]{6}$ ]]; then
            idx=${BASH_REMATCH[1]} who="${BASH_REMATCH[2]} ${BASH_REMATCH[4]}"
        elif [[ $rest =~ ^([0-9]+)\.[A-Za-z0-9]{6}$ ]]; then
            idx=${BASH_REMATCH[1]}
            who=$(slurm_job_ids_of "$d/task-$idx")
            [ -n "$who" ] || { keep+=("$d"); continue; }
        else
            continue
        fi
        while read -r job; do
            # shellcheck disable=SC2086 # the id, then the cluster if any
            slurm_job_over "$d" $job || continue 2
        done <<<"$who"
        slurm_job_clear "$d" "$up" "$idx" "$(awk '{ printf "%s%s", (NR > 1 ? "-" : ""), $1 }' <<<"$who")"
    done
    [ ${#keep[@]} -eq 0 ] || echo "$bench_out_name: kept ${#keep[@]} folder(s) beside $up left by tasks of an older" \
        "trilap that name no job (none in the name, no manifest), so whether one still runs cannot be asked; once no" \
        "job writes into $up, remove them: rm -rf --$(printf ' %q' "${keep[@]}")" >&2
}

# Whether job ID [of CLUSTER] that wrote folder D is over: its id this
# job's own on this cluster, or squeue says it is gone; where squeue
# cannot be asked about its cluster, one line says why the folder stays.
slurm_job_over() {
    local d=$1 id=$2 cluster=${3:-} rc=0
    [ "$id" != "$SLURM_JOB_ID" ] || [ "$cluster" != "${SLURM_CLUSTER_NAME:-}" ] || return 0
    slurm_job_gone "$id" "$cluster" || rc=$?
    [ "$rc" != 2 ] || echo "$bench_out_name: kept $d: $slurm_job_why" >&2
    return "$rc"
}

# The staged folder D (its task folder D/task-INDEX) of a task whose jobs
# (IDS, joined by -) are over: into UP as task-INDEX.killed-IDS where it
# holds results (slurm_job_has_results), its files naming it there
# (bench_out_repath); else removed. One line each way.
slurm_job_clear() {
    local d=$1 up=$2 idx=$3 ids=$4 to err n=1
    if ! slurm_job_has_results "$d"; then
        rm -rf -- "$d" &&
            echo "$bench_out_name: removed $d, left by job ${ids//-/, }, no longer running (a task killed outright, no row)" >&2
        return 0
    fi
    to=$up/task-$idx.killed-$ids
    while [ -e "$to" ]; do to=$up/task-$idx.killed-$ids.$((++n)); done
    if err=$({ mkdir -p -- "$up" && mv -T -- "$d/task-$idx" "$to"; } 2>&1); then
        rmdir -- "$d" 2>/dev/null || true
        bench_out_repath "$d/task-$idx" "$to" ||
            echo "$bench_out_name: $to: its files still name $d/task-$idx, where it was written" >&2
        echo "$bench_out_name: job ${ids//-/, }, no longer running, was killed outright after it wrote results:" \
            "kept in $to" >&2
    elif [ -d "$d/task-$idx" ]; then
        echo "$bench_out_name: kept $d: job ${ids//-/, }, killed outright, wrote results there, and they cannot" \
            "move to $to (${err##*: })" >&2
    fi
}

# Whether staged folder D holds what a user could want: a CSV with a row
# below its header (bench_out_has_rows), or a non-empty file other than
# the template's log, the manifest (begun when the program starts) and
# the part files of a write cut short (NAME.part<pid>.EXT: parts.sh)
slurm_job_has_results() {
    bench_out_has_rows "$1" && return 0
    find "$1" -type f -size +0 ! -name '*.csv' ! -name '*.log' ! -name manifest.txt ! -name '*.part[0-9]*' \
        -print -quit 2>/dev/null | grep -q .
}

# The job ids a staged task folder's manifest records (env.SLURM_JOB_ID of
# each command that wrote there), a line each, with the cluster its block
# records (env.SLURM_CLUSTER_NAME) after it; none without a manifest.
slurm_job_ids_of() {
    [ -f "$1/manifest.txt" ] || return 0
    awk 'function flush() { if (id != "" && !seen[id]++) print id, cl; id = cl = "" }
         $1 == "program:" { flush() }
         $1 == "env.SLURM_CLUSTER_NAME:" && $2 ~ /^[A-Za-z0-9_-]+$/ { cl = $2 }
         $1 == "env.SLURM_JOB_ID:" && $2 ~ /^[0-9]+$/ { id = $2 }
         END { flush() }' "$1/manifest.txt"
}

# Whether job ID of CLUSTER (none: not recorded) is no longer running, by
# squeue: 0 when it is not listed ("Invalid job id specified" once Slurm
# has forgotten it) or is in a final state; 1 while it runs or is pending
# or completing, and where squeue is missing or fails otherwise (it
# cannot be told); 2 where squeue cannot be asked about its cluster, why
# in slurm_job_why. A job of this job's cluster is asked about here
# (SLURM_CLUSTERS aside: it may point squeue at others), one of another
# cluster with squeue -M (which needs the site's slurmdbd); one of no
# recorded cluster only where nothing says there are several (this job's
# SLURM_CLUSTER_NAME and SLURM_CLUSTERS unset), since squeue would answer
# for another job of the same id.
slurm_job_gone() {
    local id=$1 cluster=$2 here=${SLURM_CLUSTER_NAME:-} said rc=0 ask=(squeue)
    slurm_job_why=""
    command -v squeue >/dev/null 2>&1 || return 1
    if [ -n "$cluster" ] && [ "$cluster" = "$here" ]; then
        ask=(env -u SLURM_CLUSTERS squeue)
    elif [ -n "$cluster" ]; then
        ask=(squeue -M "$cluster")
    elif [ -n "$here${SLURM_CLUSTERS:-}" ]; then
        printf -v slurm_job_why '%s' "job $id's cluster is not recorded (an older trilap's folder, or no" \
            " SLURM_CLUSTER_NAME in its job) and squeue here answers for ${here:-SLURM_CLUSTERS=$SLURM_CLUSTERS}," \
            " where the id may be another job's; remove it once that job is over"
        return 2
    fi
    said=$("${ask[@]}" -h -j "$id" -t all -o %T 2>&1 </dev/null) || rc=$?
    # squeue -M heads its answer "CLUSTER: NAME", -h or not
    said=$(grep -v '^CLUSTER: ' <<<"$said" || true)
    if [ "$rc" != 0 ]; then
        [[ $said == *"Invalid job id"* ]] && return 0
        [ -n "$cluster" ] && [ "$cluster" != "$here" ] || return 1
        printf -v slurm_job_why '%s' "job $id ran on cluster $cluster, and squeue -M $cluster cannot answer here" \
            " ($(awk 'NF { $1 = $1; print; exit }' <<<"$said"))"
        return 2
    fi
    [[ -z ${said//[[:space:]]/} || $said =~ ^[[:space:]]*(BOOT_FAIL|CANCELLED|COMPLETED|DEADLINE|FAILED|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|TIMEOUT)[[:space:]]*$ ]]
}
