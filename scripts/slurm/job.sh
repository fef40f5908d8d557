# Sourced by the Slurm templates of this folder after scripts/bench-out.sh
# (no `set` of its own; lines name the template by bench_out_name): what a
# job needs before it runs a trilap program, and the job's folder.
#
#   . "$root/scripts/bench-out.sh"; . "$root/scripts/slurm/job.sh"
#   bench_out_name=NAME.sbatch
#   slurm_job_env MODULES LAUNCHER PROGRAM...   # modules loaded, programs start
#   slurm_job_out DEFAULT                       # the folder, in $bench_out_dir

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
# bench_out_begin_staged, tagged with the task's job id): a task that fails
# before a row leaves nothing, and OUT is made by the first task that keeps
# a folder, never empty. What tasks killed outright left beside OUT goes
# first (slurm_job_sweep).
slurm_job_out() {
    local out
    if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
        out=${OUT:-$1-$SLURM_JOB_ID}
        slurm_job_sweep "$out"
        bench_out_begin "$out"
        return
    fi
    out=${OUT:-$1-${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}}
    slurm_job_sweep "$out"
    bench_out_begin_staged "$out/task-$SLURM_ARRAY_TASK_ID" "$SLURM_JOB_ID"
}

# The folders beside OUT (.OUT.task-<index>.<job id>.XXXXXX) of tasks
# killed outright (SIGKILL, the node lost), whose traps never ran: each
# removed, said in one line, once its job is no longer running, as squeue
# answers (not listed, "Invalid job id", or in a final state), or at once
# when the job id is this job's own (a requeued job's earlier run: this
# run's folder is not made yet). Where squeue is missing or cannot answer
# (the controller unreachable) they stay. Before, they stayed for good and
# their manifests named them.
# Those of the naming before the job id was in it (.OUT.task-<index>.XXXXXX,
# runs of an older checkout) are asked about by the job ids their
# manifests record (env.SLURM_JOB_ID: the program's manifest, begun when
# the program starts); one with none (killed before its program started,
# or still starting: nothing tells which) is never removed, and is named
# in one line a run, with the command that removes them, for when no job
# writes into OUT.
slurm_job_sweep() {
    local up=$1 base d rest ids id keep=()
    base=$(basename "$up")
    for d in "$(dirname "$up")/.$base".task-*; do
        [ -d "$d" ] || continue
        rest=${d##*/."$base".task-}
        if [[ $rest =~ ^[0-9]+\.([0-9]+)\.[A-Za-z0-9]{6}$ ]]; then
            ids=${BASH_REMATCH[1]}
        elif [[ $rest =~ ^([0-9]+)\.[A-Za-z0-9]{6}$ ]]; then
            ids=$(slurm_job_ids_of "$d/task-${BASH_REMATCH[1]}")
            [ -n "$ids" ] || { keep+=("$d"); continue; }
        else
            continue
        fi
        for id in $ids; do
            [ "$id" = "$SLURM_JOB_ID" ] || slurm_job_gone "$id" || continue 2
        done
        rm -rf -- "$d" &&
            echo "$bench_out_name: removed $d, left by job ${ids//$'\n'/, }, no longer running (a task killed outright)" >&2
    done
    [ ${#keep[@]} -eq 0 ] || echo "$bench_out_name: kept ${#keep[@]} folder(s) beside $up left by tasks of an older" \
        "trilap that name no job (none in the name, no manifest), so whether one still runs cannot be asked; once no" \
        "job writes into $up, remove them: rm -rf --$(printf ' %q' "${keep[@]}")" >&2
}

# The job ids a staged task folder's manifest records (env.SLURM_JOB_ID of
# each command that wrote there), a line each; none without a manifest.
slurm_job_ids_of() {
    [ -f "$1/manifest.txt" ] || return 0
    awk '$1 == "env.SLURM_JOB_ID:" && $2 ~ /^[0-9]+$/ && !seen[$2]++ { print $2 }' "$1/manifest.txt"
}

# Whether job ID is no longer running, by squeue: 0 when it is not
# listed ("Invalid job id specified" once Slurm has forgotten it) or is in
# a final state; 1 while it runs or is pending or completing, and where
# squeue is missing or fails otherwise (it cannot be told).
slurm_job_gone() {
    local said rc=0
    command -v squeue >/dev/null 2>&1 || return 1
    said=$(squeue -h -j "$1" -t all -o %T 2>&1) || rc=$?
    if [ "$rc" != 0 ]; then
        [[ $said == *"Invalid job id"* ]]
        return
    fi
    [[ -z ${said//[[:space:]]/} || $said =~ ^[[:space:]]*(BOOT_FAIL|CANCELLED|COMPLETED|DEADLINE|FAILED|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|TIMEOUT)[[:space:]]*$ ]]
}
