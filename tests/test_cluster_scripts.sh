#!/usr/bin/env bash
# The lent-GPU session scripts and the Slurm templates dry-run on a machine
# without a GPU or Slurm, under stand-ins for nvidia-smi, make, mpirun,
# nsys, srun and the programs; `--list` / NAME like the test binaries
# (exit 0 pass, 1 fail, 77 skip).
#   multirank_no_gpu_refused      run-multirank-h200.sh without a GPU: one
#                                 line naming what the machine lacks, exit 1,
#                                 DEST not made (before: every step ran and
#                                 failed, exit 0)
#   multirank_failed_step_exit_1  a step that fails (fdtd-r1): the last line
#                                 names it, exit 1, the other steps' files
#                                 kept (before: `== fdtd-r1: rc=1`, exit 0)
#   foreign_no_gpu_refused        foreign/device-run.sh OUT without a GPU:
#                                 one line, exit 1, OUT not made (before:
#                                 OUT read as its budget, exit 0 with a
#                                 foreign.tar.gz of failed steps)
#   session_no_gpu_refused        device-session.sh DEST without a GPU: one
#                                 line, exit 1, DEST not made (before: the
#                                 build ran make -j16, every step failed,
#                                 exit 0); with one, a session whose steps
#                                 the time leaves out ends with DEST.tgz
#   foreign_bad_arguments         no OUT, an option, a BUDGET_SECONDS that
#                                 is not a positive integer, a third
#                                 argument: one line, exit 2
#   foreign_failed_step_exit_1    a failed step: named in the last line,
#                                 exit 1, OUT/foreign.tar.gz kept; CuPy
#                                 missing is a line, not a failure
#   foreign_verify_bad_arguments  foreign/device-verify.sh OUT [BUDGET] as
#                                 device-run.sh: no OUT, an option, a bad
#                                 budget, a third argument: one line, exit 2
#                                 (before, OUT a variable and $1 the budget)
#   foreign_verify_no_gpu_refused foreign/device-verify.sh OUT without a GPU:
#                                 one line, exit 1, OUT not made (before:
#                                 every step ran and failed, exit 0)
#   foreign_verify_failed_step_exit_1
#                                 a failed step: named in the last line,
#                                 exit 1, OUT/verify.tar.gz kept (before:
#                                 exit 0); every step passing: exit 0
#   slurm_job_names_its_folder    each slurm/*.sbatch submitted as README
#                                 says, through a stand-in sbatch: a job
#                                 that finished ends with a line naming its
#                                 folder (the default, an OUT with a space,
#                                 an array task's OUT/task-<index>); before,
#                                 the program's last line
#   slurm_time_limit_named        a job a SIGTERM stops after a row: the rows
#                                 kept and named, and where squeue shows no
#                                 time left, the line says the time limit
#                                 sent it, naming the limit; a scancel not
#   slurm_job_sh_run_refused      slurm/job.sh run (bash, sbatch) rather than
#                                 sourced: one line, exit 2 (before, exit 0
#                                 having run nothing); --help its usage
#   slurm_comm_ranks_from_the_allocation
#                                 bench-comm.sbatch's mpirun: -np from
#                                 --ntasks, --map-by ppr:N:node only from
#                                 --ntasks-per-node, neither without them
#                                 (before, ppr:8:node under -N 2 --ntasks=8,
#                                 -np 2 without --ntasks)
#   schedules_oversubscribe_open_mpi_only
#                                 run-solver-schedules.sh with more ranks
#                                 than cores: --oversubscribe to an MPIRUN
#                                 whose --version names Open MPI or
#                                 OpenRTE, or with MPIRUN_OPEN_MPI=1, and
#                                 to no other (before, MPICH's mpiexec got
#                                 it too, and refused it)
#   bench_solver_scripts_keep_raw bench-op-timer.sh, bench-cg.sh and
#                                 bench-trace-overhead.sh solver under a
#                                 stand-in trilap-solve: OUT holds the table
#                                 (summary.txt), a manifest.txt and every
#                                 run's files under raw/ (trilap-solve's
#                                 CSVs and manifest, each run's output, the
#                                 traces gzipped); without OUT, a new folder
#                                 in the checkout's results/, named by the
#                                 last line (before, a folder under TMPDIR,
#                                 the table on stdout alone)
#   ci_run_sanitizers_beside_check
#                                 .ci/run under a stand-in make: make asan
#                                 and make tsan start at nice 19 while make
#                                 check runs, 600 s a test; the failing
#                                 one's "N failed" last, exit 1, when asan
#                                 or tsan fails, the sanitizer builds' log
#                                 named when they fail, check's failure its
#                                 own last line (before, make asan and make
#                                 tsan started once check had ended)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tests="multirank_no_gpu_refused multirank_failed_step_exit_1 foreign_no_gpu_refused session_no_gpu_refused foreign_bad_arguments
foreign_failed_step_exit_1 foreign_verify_bad_arguments foreign_verify_no_gpu_refused foreign_verify_failed_step_exit_1
slurm_job_names_its_folder slurm_time_limit_named slurm_job_sh_run_refused slurm_comm_ranks_from_the_allocation
schedules_oversubscribe_open_mpi_only bench_solver_scripts_keep_raw ci_run_sanitizers_beside_check"
fail() { echo "FAIL: $*" >&2; exit 1; }

probe=$(mktemp -d "${TMPDIR:-/tmp}/tl_cluster.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$probe"' EXIT

# fake NAME BODY: an executable stand-in $probe/fake/NAME running BODY
fake() {
    mkdir -p "$probe/fake"
    printf '#!/usr/bin/env bash\n%s\n' "$2" >"$probe/fake/$1"
    chmod +x "$probe/fake/$1"
}

# A machine with a GPU as the scripts see it: nvidia-smi lists one, make,
# mpirun and nsys succeed, and a checkout in $probe/tree whose programs
# succeed except trilap-fdtd (FDTD_RC) and tests/run.sh
gpu_machine() {
    fake nvidia-smi 'case $1 in -L) echo "GPU 0: NVIDIA H200 (UUID: GPU-0)" ;; *) echo "NVIDIA H200, 143771 MiB, 570.0" ;; esac'
    fake make 'exit 0'
    fake mpirun '[ "$1" = --version ] && { echo "mpirun (Open MPI) 4.1"; exit 0; }; shift 2; exec "$@"'
    fake nsys 'echo "nsys 2025.3"'
    mkdir -p "$probe/tree/bin" "$probe/tree/tests" "$probe/tree/build/tests"
    local p
    for p in trilap-solve trilap-analyze trilap-bench; do
        printf '#!/usr/bin/env bash\nexit 0\n' >"$probe/tree/bin/$p"
    done
    printf '#!/usr/bin/env bash\nexit ${FDTD_RC:-0}\n' >"$probe/tree/bin/trilap-fdtd"
    printf '#!/usr/bin/env bash\nexit 0\n' >"$probe/tree/tests/run.sh"
    printf '#!/usr/bin/env bash\nexit 0\n' >"$probe/tree/build/tests/helper_inject_target"
    chmod +x "$probe/tree/bin/"* "$probe/tree/tests/run.sh" "$probe/tree/build/tests/helper_inject_target"
}

# run_in DIR SCRIPT ARGS...: SCRIPT from DIR with the stand-ins first on a
# PATH without the machine's nvidia-smi; output in $probe/said, status in rc
run_in() {
    local dir=$1
    shift
    mkdir -p "$probe/fake"
    rc=0
    (cd "$dir" && PATH="$probe/fake:/usr/local/bin:/usr/bin:/bin" NSYS=nsys "$@") >"$probe/said" 2>&1 </dev/null || rc=$?
}

# no_gpu_refused SCRIPT ARGS... (the last one the folder it must not make)
no_gpu_refused() {
    fake nvidia-smi 'echo "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver." >&2; exit 9'
    run_in "$probe" "$@"
    [ "$rc" = 1 ] || fail "$1 without a GPU: exit $rc, not 1: $(tail -n 3 "$probe/said")"
    [ "$(wc -l <"$probe/said")" = 1 ] || fail "$1 without a GPU: not one line: $(head -n 5 "$probe/said")"
    grep -q 'GPU' "$probe/said" || fail "$1 without a GPU: the line does not say so: $(cat "$probe/said")"
    [ ! -e "${*: -1}" ] || fail "$1 without a GPU made ${*: -1}: $(ls -A "${*: -1}")"
}

multirank_no_gpu_refused() {
    no_gpu_refused "$top/scripts/run-multirank-h200.sh" "$probe/dest" 240
}

# A budget no step's want comes near (a day): the build wants 240 s of the
# budget, and with a budget of 240 a clock second ticking before it was
# skipped ("build (skipped)"), which a loaded machine did 5 runs in 10
multirank_failed_step_exit_1() {
    local budget=86400
    gpu_machine
    FDTD_RC=1 run_in "$probe/tree" "$top/scripts/run-multirank-h200.sh" "$probe/dest" "$budget"
    [ "$rc" = 1 ] || fail "a failed step: exit $rc, not 1: $(tail -n 3 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q 'fdtd-r1' || fail "the last line does not name fdtd-r1: $(tail -n 2 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q "$probe/dest" || fail "the last line does not name DEST: $(tail -n 1 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q 'pcg-threads' && fail "the last line names a step that passed: $(tail -n 1 "$probe/said")"
    [ -f "$probe/dest/pcg-threads-r4.log" ] || fail "the steps that passed left no log: $(ls -A "$probe/dest")"
    # every step passing: exit 0, and the last line says where the results are
    FDTD_RC=0 run_in "$probe/tree" "$top/scripts/run-multirank-h200.sh" "$probe/dest2" "$budget"
    [ "$rc" = 0 ] || fail "every step passing: exit $rc: $(tail -n 3 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q "$probe/dest2" || fail "the last line does not name DEST: $(tail -n 1 "$probe/said")"
    # one CSV: a header, then the runs' rows (each run had printed a header
    # of its own, session43/B's kernel-counts.csv six)
    [ "$(grep -c '^run,rank,' "$probe/dest2/kernel-counts.csv")" = 1 ] ||
        fail "kernel-counts.csv: not one header: $(head -n 4 "$probe/dest2/kernel-counts.csv")"
}

foreign_no_gpu_refused() {
    no_gpu_refused "$top/scripts/foreign/device-run.sh" "$probe/out"
}

session_no_gpu_refused() {
    no_gpu_refused "$top/scripts/device-session.sh" "$probe/session"
    # with a GPU it goes on: 5 s leave no step time, so none runs
    gpu_machine
    run_in "$probe/tree" "$top/scripts/device-session.sh" "$probe/session" 5 build
    [ "$rc" = 0 ] || fail "device-session.sh with a GPU: exit $rc: $(tail -n 3 "$probe/said")"
    grep -q 'skipped (no time left)' "$probe/session/session.log" ||
        fail "device-session.sh with a GPU: no skipped step: $(cat "$probe/session/session.log")"
    [ -s "$probe/session.tgz" ] || fail "device-session.sh with a GPU made no $probe/session.tgz"
}

# bad_arguments SCRIPT: no OUT, an option, a BUDGET_SECONDS that is not a
# positive integer, a third argument: one line, exit 2, OUT not made
bad_arguments() {
    local args name=${1##*/}
    for args in "" "$probe/out abc" "$probe/out 0" "--bogus" "$probe/out 60 extra"; do
        # shellcheck disable=SC2086 # the arguments, split
        run_in "$probe" "$1" $args
        [ "$rc" = 2 ] || fail "$name '$args': exit $rc, not 2: $(tail -n 3 "$probe/said")"
        [ "$(wc -l <"$probe/said")" = 1 ] || fail "$name '$args': not one line: $(head -n 5 "$probe/said")"
        [ ! -e "$probe/out" ] || fail "$name '$args' made OUT"
    done
}

foreign_bad_arguments() {
    bad_arguments "$top/scripts/foreign/device-run.sh"
}

foreign_verify_bad_arguments() {
    bad_arguments "$top/scripts/foreign/device-verify.sh"
}

# gpu_machine with scripts/foreign/ in its tree and a python3 with torch
# and without CuPy, whose programs exit PROG_RC (77 by default: no GPU)
foreign_machine() {
    gpu_machine
    fake python3 'case "$*" in *"import cupy"*) exit 1 ;; *"import torch"*) exit 0 ;; *_prog.py*) exit ${PROG_RC:-77} ;; esac
exec /usr/bin/python3 "$@"'
    mkdir -p "$probe/tree/scripts/foreign"
    cp "$top/scripts/foreign/"*.sh "$probe/tree/scripts/foreign/"
}

# SCRIPT (scripts/foreign/) run where the PyTorch program fails: exit 1,
# the last line naming torch-plain-1 and OUT/TARBALL, which holds
# DIR/steps.txt
failed_step_said() {
    local script=$1 tarball=$2 dir=$3
    foreign_machine
    REPS=1 run_in "$probe/tree" "scripts/foreign/$script" "$probe/out" 600
    [ "$rc" = 1 ] || fail "failed steps: exit $rc, not 1: $(tail -n 3 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q 'torch-plain-1' || fail "the last line does not name torch-plain-1: $(tail -n 2 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q "$probe/out/$tarball" || fail "the last line does not name the tarball: $(tail -n 1 "$probe/said")"
    # the listing whole before grep: `tar | grep -q` under pipefail failed
    # where grep's early exit sent tar a SIGPIPE (flaky, on a loaded machine)
    tar -tzf "$probe/out/$tarball" >"$probe/listing" || fail "$tarball does not list"
    grep -q "$dir/steps.txt" "$probe/listing" || fail "$tarball lacks steps.txt"
}

foreign_failed_step_exit_1() {
    failed_step_said device-run.sh foreign.tar.gz foreign
    tail -n 1 "$probe/said" | grep -q 'cupy' && fail "the last line counts CuPy, which is optional: $(tail -n 1 "$probe/said")"
    grep -q 'cupy.*CuPy' "$probe/said" || fail "no line says the CuPy steps were skipped: $(grep -i cupy "$probe/said")"
}

foreign_verify_no_gpu_refused() {
    no_gpu_refused "$top/scripts/foreign/device-verify.sh" "$probe/vout"
    [ ! -e "$probe/vout" ] || fail "device-verify.sh without a GPU made OUT: $(ls -A "$probe/vout")"
}

foreign_verify_failed_step_exit_1() {
    failed_step_said device-verify.sh verify.tar.gz verify
    tail -n 1 "$probe/said" | grep -q 'cupy\|gpu-probes' && fail "the last line names CuPy or a step that passed: $(tail -n 1 "$probe/said")"
    # every step passing: exit 0, the last line naming the tarball
    PROG_RC=0 REPS=1 run_in "$probe/tree" scripts/foreign/device-verify.sh "$probe/out2" 600
    [ "$rc" = 0 ] || fail "every step passing: exit $rc: $(tail -n 3 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q "every step passed; results in $probe/out2/verify.tar.gz" ||
        fail "every step passing: $(tail -n 1 "$probe/said")"
}

# A checkout in $probe/tree holding scripts/ and stand-in trilap-bench and
# trilap-fdtd that write a CSV header and a row to --results, then sleep
# SLEEP seconds; stand-ins for srun, mpirun, squeue (saying SQUEUE) and an
# sbatch that runs the job at once in the submit folder, job id 4242
slurm_cluster() {
    mkdir -p "$probe/tree/bin"
    cp -r "$top/scripts" "$probe/tree/"
    local p
    for p in trilap-bench trilap-fdtd; do
        # shellcheck disable=SC2016 # the stand-in's own expansions
        printf '%s\n' '#!/usr/bin/env bash' 'while [ $# -gt 0 ]; do [ "$1" = --results ] && res=$2; shift; done' \
            'printf "variant,us\nthree-split,58.4\n" >"$res"; echo "bench: wrote $res"; sleep "${SLEEP:-0}"' \
            >"$probe/tree/bin/$p"
        chmod +x "$probe/tree/bin/$p"
    done
    fake srun 'while [ $# -gt 0 ]; do case $1 in --*) shift ;; *) break ;; esac; done; exec "$@"'
    fake mpirun 'while [ $# -gt 0 ]; do case $1 in -np | --map-by | --bind-to | -x) shift 2 ;; *) break ;; esac; done; exec "$@"'
    fake squeue 'echo "${SQUEUE:-}"'
    fake sbatch 'while [ $# -gt 0 ]; do case $1 in -*) shift ;; *) break ;; esac; done
s=$1; shift
SLURM_JOB_ID=${SLURM_JOB_ID:-4242} SLURM_SUBMIT_DIR=$PWD exec bash "$s" "$@"'
}

slurm_job_names_its_folder() {
    slurm_cluster
    local t want
    for t in tristream fdtd-ranks bench-comm; do
        run_in "$probe/tree" sbatch --gpus-per-node=4 --ntasks-per-node=4 "scripts/slurm/$t.sbatch"
        want="$t.sbatch: finished; the results are in $probe/tree/results/${t/bench-/}-slurm-4242"
        [ "$rc" = 0 ] && [ "$(tail -n 1 "$probe/said")" = "$want" ] ||
            fail "$t.sbatch: exit $rc, its last line not '$want': $(tail -n 2 "$probe/said")"
        OUT="$probe/shared fs/$t run" run_in "$probe/tree" sbatch "scripts/slurm/$t.sbatch"
        want="$t.sbatch: finished; the results are in $probe/shared fs/$t run"
        [ "$rc" = 0 ] && [ "$(tail -n 1 "$probe/said")" = "$want" ] && ls "$probe/shared fs/$t run/"*.csv >/dev/null ||
            fail "$t.sbatch, OUT with a space: exit $rc, its last line not '$want': $(tail -n 2 "$probe/said")"
        OUT="$probe/shared fs/$t array" SLURM_ARRAY_JOB_ID=4000 SLURM_ARRAY_TASK_ID=3 \
            run_in "$probe/tree" sbatch --array=0-3 "scripts/slurm/$t.sbatch"
        want="$t.sbatch: finished; the results are in $probe/shared fs/$t array/task-3"
        [ "$rc" = 0 ] && [ "$(tail -n 1 "$probe/said")" = "$want" ] ||
            fail "$t.sbatch, an array task: exit $rc, its last line not '$want': $(tail -n 2 "$probe/said")"
    done
}

# sigterm_job SQUEUE: tristream.sbatch into $probe/out, SIGTERM to its
# process group (as Slurm sends it to the job's processes) once its CSV
# holds a row; its output in $probe/said, status in rc
sigterm_job() {
    local pid n=0
    (cd "$probe/tree" && PATH="$probe/fake:/usr/local/bin:/usr/bin:/bin" SQUEUE=$1 SLEEP=30 OUT=$probe/out \
        exec setsid sbatch scripts/slurm/tristream.sbatch) >"$probe/said" 2>&1 </dev/null &
    pid=$!
    until grep -q three-split "$probe/out/tristream.csv" 2>/dev/null; do
        [ $((n += 1)) -lt 100 ] || { kill -KILL -- -"$pid"; fail "the job wrote no row in 10 s: $(cat "$probe/said")"; }
        sleep 0.1
    done
    kill -TERM -- -"$pid"
    rc=0
    wait "$pid" || rc=$?
}

slurm_time_limit_named() {
    slurm_cluster
    sigterm_job "0:00 30:00"
    [ "$rc" = 143 ] || fail "a job stopped at its time limit: exit $rc, not 143: $(tail -n 2 "$probe/said")"
    tail -n 1 "$probe/said" | grep -q '^tristream.sbatch: interrupted (SIGTERM): job 4242 reached its time limit, 30:00' ||
        fail "the last line does not name the time limit: $(tail -n 2 "$probe/said")"
    tail -n 1 "$probe/said" | grep -qF "the rows written before it are in $probe/out" ||
        fail "the last line does not name the rows kept: $(tail -n 1 "$probe/said")"
    grep -q three-split "$probe/out/tristream.csv" || fail "the row written before the SIGTERM is gone"
    rm -rf "$probe/out"
    sigterm_job "12:31 30:00"
    tail -n 1 "$probe/said" | grep -q 'interrupted (SIGTERM); the rows' ||
        fail "a scancel with time left: $(tail -n 1 "$probe/said")"
}

slurm_job_sh_run_refused() {
    slurm_cluster
    local how
    for how in bash sbatch; do
        run_in "$probe/tree" "$how" scripts/slurm/job.sh
        [ "$rc" = 2 ] && [ "$(wc -l <"$probe/said")" = 1 ] && grep -q '^job.sh: sourced by' "$probe/said" ||
            fail "$how scripts/slurm/job.sh: exit $rc, not 2 with one line: $(head -n 3 "$probe/said")"
    done
    run_in "$probe/tree" bash scripts/slurm/job.sh --help
    [ "$rc" = 0 ] && grep -q 'slurm_job_env MODULES LAUNCHER' "$probe/said" ||
        fail "job.sh --help: exit $rc: $(head -n 3 "$probe/said")"
}

# what mpirun was given, before the program, by sbatch's task options
slurm_comm_ranks_from_the_allocation() {
    slurm_cluster
    # shellcheck disable=SC2016 # the stand-in's own expansions
    fake mpirun 'a=; while [ $# -gt 0 ]; do case $1 in -np | --map-by | --bind-to | -x) a="$a $1 $2"; shift 2 ;; *) break ;; esac; done
echo "mpirun:$a" >>"$MPIRUN_SAID"; exec "$@"'
    local case env want
    for case in "SLURM_NTASKS=8 SLURM_NNODES=2|-np 8 --bind-to none" \
        "SLURM_NTASKS=8 SLURM_NTASKS_PER_NODE=4 SLURM_NNODES=2|-np 8 --map-by ppr:4:node --bind-to none" \
        "SLURM_NNODES=1|--bind-to none"; do
        env=${case%|*} want="mpirun: ${case#*|} -x NCCL_DEBUG -x NCCL_NVLS_ENABLE"
        rm -f "$probe/mpirun-said"
        # shellcheck disable=SC2086 # the job's variables, one word each
        run_in "$probe/tree" env $env MPIRUN_SAID="$probe/mpirun-said" OUT="$probe/comm" sbatch scripts/slurm/bench-comm.sbatch
        [ "$rc" = 0 ] && [ "$(sort -u "$probe/mpirun-said")" = "$want" ] && [ "$(wc -l <"$probe/mpirun-said")" = 2 ] ||
            fail "bench-comm.sbatch with $env: exit $rc, mpirun given: $(cat "$probe/mpirun-said" 2>&1), not '$want'"
        rm -rf "$probe/comm"
    done
}

# A stand-in trilap-solve ($probe/solve) writing one row of --results
# (its --schedule, --max-iterations as the iterations), as trilap-solve does
solve_stand_in() {
    # shellcheck disable=SC2016 # the stand-in's own expansions
    printf '%s\n' '#!/usr/bin/env bash' \
        'while [ $# -gt 0 ]; do case $1 in --results) res=$2 ;; --schedule) sched=$2 ;; --max-iterations) it=$2 ;; esac; shift; done' \
        '[ -s "$res" ] || echo "solver,precond,schedule,backend,matrix,nranks,rep,iterations,solver_time_s,reason" >"$res"' \
        'echo "pipecg,jacobi,$sched,host,\"gen:poisson7:4\",1,0,$it,1.0e-03,fixed" >>"$res"' >"$probe/solve"
    chmod +x "$probe/solve"
}

# mpi_stand_in NAME VERSION-LINE ACCEPTS: a launcher that prints
# VERSION-LINE for --version, writes its options before the program to
# $probe/mpi-said and runs the program once; it refuses --oversubscribe,
# as MPICH's mpiexec does, unless ACCEPTS is 1
mpi_stand_in() {
    # shellcheck disable=SC2016 # the stand-in's own expansions
    fake "$1" '[ "$1" = --version ] && { echo "'"$2"'"; exit 0; }
a=; while [ $# -gt 0 ]; do case $1 in -np) a="$a $1 $2"; shift 2 ;; --*) a="$a $1"; shift ;; *) break ;; esac; done
echo "$a" >"'"$probe"'/mpi-said"
case "'"$3"'$a" in 0*--oversubscribe*) echo "unrecognized argument oversubscribe" >&2; exit 255 ;; esac
exec "$@"'
}

schedules_oversubscribe_open_mpi_only() {
    solve_stand_in
    mpi_stand_in mpirun "mpirun (Open MPI) 4.1.4" 1
    mpi_stand_in orterun "orterun (OpenRTE) 1.6.5" 1
    mpi_stand_in mpiexec "HYDRA build details:" 0
    mpi_stand_in impi "Intel(R) MPI Library for Linux* OS, Version 2021.10" 0
    # a site's wrapper of Open MPI's mpirun, its --version its own
    mpi_stand_in site-mpirun "site-mpirun 2.0" 1
    local case env ranks want n=0
    # more ranks than any machine running this has cores, and 1
    for case in "MPIRUN=mpirun|4096|-np 4096 --oversubscribe" "MPIRUN=orterun|4096|-np 4096 --oversubscribe" \
        "MPIRUN=mpiexec|4096|-np 4096" "MPIRUN=impi|4096|-np 4096" "MPIRUN=mpirun|1|-np 1" \
        "MPIRUN=site-mpirun|4096|-np 4096" "MPIRUN=site-mpirun MPIRUN_OPEN_MPI=1|4096|-np 4096 --oversubscribe" "MPIRUN=mpirun MPIRUN_OPEN_MPI=0|4096|-np 4096"; do
        IFS='|' read -r env ranks want <<<"$case"
        rm -f "$probe/mpi-said"
        # shellcheck disable=SC2086 # the variables, one word each
        run_in "$probe" env $env SOLVE="$probe/solve" PLOT=0 OUT="$probe/sched-$((n += 1))" \
            "$top/scripts/run-solver-schedules.sh" "$ranks" --matrices poisson7 --n 4 --iterations 2 \
            --warmup 0 --repeat 1 --rounds 1 --schedules sync
        [ "$rc" = 0 ] && [ "$(cat "$probe/mpi-said" 2>&1)" = " $want" ] ||
            fail "run-solver-schedules.sh $ranks with $env: exit $rc, the launcher given '$(cat "$probe/mpi-said" 2>&1)', not ' $want': $(tail -n 2 "$probe/said")"
    done
}

# A checkout in $probe/tree holding scripts/ and a stand-in
# bin/trilap-solve: one row of --results with us_per_iter and a block of
# the manifest.txt beside it, 'solver: pipecg' on stdout, and with --trace
# DIR a DIR/trace.rank0.csv of some 20 KB
bench_tree() {
    mkdir -p "$probe/tree/bin"
    cp -r "$top/scripts" "$probe/tree/"
    # shellcheck disable=SC2016 # the stand-in's own expansions
    printf '%s\n' '#!/usr/bin/env bash' 'res= tr=' \
        'while [ $# -gt 0 ]; do case $1 in --results) res=$2 ;; --trace) tr=$2 ;; esac; shift; done' \
        '[ -s "$res" ] || echo "solver,matrix,us_per_iter" >"$res"' \
        'echo "pipecg,\"gen:poisson7:8\",12.5" >>"$res"; echo "command: trilap-solve" >>"${res%/*}/manifest.txt"' \
        '[ -z "$tr" ] || { mkdir -p "$tr"; seq 1 5000 >"$tr/trace.rank0.csv"; }' 'echo "solver: pipecg"' \
        >"$probe/tree/bin/trilap-solve"
    chmod +x "$probe/tree/bin/trilap-solve"
}

bench_solver_scripts_keep_raw() {
    bench_tree
    local case script args raw out
    for case in "bench-op-timer.sh|gen:poisson7:8 2|pipecg-default.csv pipecg-default.1.txt" \
        "bench-cg.sh|8 2|p7-8-pipecg.csv p7-8-cg.1.txt" \
        "bench-trace-overhead.sh|solver gen:poisson7:8 2|off.csv nvtx.1.txt trace-nvtx-1/trace.rank0.csv.gz"; do
        IFS='|' read -r script args raw <<<"$case"
        out=$probe/out-$script
        # shellcheck disable=SC2086 # the arguments, split
        ROUNDS=1 REPEAT=1 OUT=$out TMPDIR=$probe/tmp run_in "$probe/tree" scripts/$script $args
        [ "$rc" = 0 ] || fail "$script $args: exit $rc: $(tail -n 3 "$probe/said")"
        grep -q ' 1.0000$' "$out/summary.txt" 2>/dev/null || fail "$script: no table in OUT/summary.txt: $(ls -A "$out")"
        grep -q "^script: scripts/$script $args" "$out/manifest.txt" 2>/dev/null ||
            fail "$script: OUT/manifest.txt does not name the command: $(head -n 3 "$out/manifest.txt" 2>&1)"
        for f in $raw manifest.txt; do
            [ -s "$out/raw/$f" ] || fail "$script: no raw/$f in OUT: $(cd "$out" && find . -type f | sort | head -n 20)"
        done
        [ -z "$(find "$out/raw" -name '*.csv' -path '*/raw/trace-*')" ] ||
            fail "$script: a trace not gzipped: $(find "$out/raw" -path '*/raw/trace-*')"
        [ ! -e "$probe/tmp" ] || [ -z "$(ls -A "$probe/tmp")" ] || fail "$script wrote under TMPDIR: $(ls -A "$probe/tmp")"
    done
    # without OUT: a new folder of results/, its name the last line
    ROUNDS=1 REPEAT=1 TMPDIR=$probe/tmp run_in "$probe/tree" scripts/bench-cg.sh 8 2
    out=$(tail -n 1 "$probe/said" | sed -n 's/^bench-cg.sh: finished; the results are in //p')
    [ "$rc" = 0 ] && [ "${out#"$probe"/tree/results/bench-cg-}" != "$out" ] && [ -s "$out/raw/p7-8-cg.csv" ] ||
        fail "bench-cg.sh without OUT: exit $rc, its last line '$(tail -n 1 "$probe/said")'"
}

# .ci/run in $probe/ci with a stand-in make that logs each goal with its
# nice level and TL_TEST_TIMEOUT; its `check` ends once the stand-ins of
# make asan and make tsan have (5 s at most; at once when check or the
# sanitizer builds fail), and the goals in FAIL fail
ci_run() {
    mkdir -p "$probe/ci/.ci" "$probe/ci/scripts" "$probe/ci/build" "$probe/ci/data/matrices"
    cp "$top/.ci/run" "$probe/ci/.ci/run"
    printf '#!/usr/bin/env bash\nexit 0\n' >"$probe/ci/scripts/install-deps.sh"
    chmod +x "$probe/ci/scripts/install-deps.sh"
    # shellcheck disable=SC2016 # the stand-in's own expansions
    fake make 'goal=${*: -1}
for a; do case $a in check | asan | tsan | asan-build) goal=$a ;; esac; done
echo "$goal nice=$(nice) timeout=${TL_TEST_TIMEOUT:-}" >>"$CI_LOG"
if [ "$goal" = check ] && [[ " $FAIL " != *" check "* && " $FAIL " != *" asan-build "* ]]; then
    for _ in $(seq 100); do [ -e "$CI_LOG.asan" ] && [ -e "$CI_LOG.tsan" ] && break; sleep 0.05; done
    [ -e "$CI_LOG.asan" ] && [ -e "$CI_LOG.tsan" ] || { echo "check: 1 failed (no asan and tsan beside it)"; exit 1; }
fi
touch "$CI_LOG.$goal"
[[ " $FAIL " != *" $goal "* ]] || { echo "$goal: 1 failed"; exit 1; }
echo "$goal: 0 failed"'
    rm -f "$probe/ci.log"*
    CI_LOG=$probe/ci.log FAIL=$1 TL_DATA=$probe/ci/data run_in "$probe/ci" .ci/run
}

ci_run_sanitizers_beside_check() {
    local case fails want_rc want_last
    for case in "|0|tsan: 0 failed" "asan|1|asan: 1 failed" "tsan|1|tsan: 1 failed" \
        "asan-build|1|.ci/run: the sanitizer builds failed (build/sanitizer-build.log)" "check|1|check: 1 failed"; do
        IFS='|' read -r fails want_rc want_last <<<"$case"
        ci_run "$fails"
        [ "$rc" = "$want_rc" ] && [ "$(tail -n 1 "$probe/said")" = "$want_last" ] ||
            fail ".ci/run with '$fails' failing: exit $rc, its last lines: $(tail -n 4 "$probe/said")"
        # check at the niceness this test runs at (`nice make check`: 10)
        [ -n "$fails" ] || {
            grep -qx 'asan nice=19 timeout=600' "$probe/ci.log" && grep -qx 'tsan nice=19 timeout=600' "$probe/ci.log" &&
                grep -qx "check nice=$(nice) timeout=" "$probe/ci.log"
        } || fail ".ci/run's makes (goal, nice level, TL_TEST_TIMEOUT): $(cat "$probe/ci.log")"
    done
}

case ${1:-} in
    --list) echo $tests ;;
    multirank_no_gpu_refused | multirank_failed_step_exit_1 | foreign_no_gpu_refused | session_no_gpu_refused | \
        foreign_bad_arguments | foreign_failed_step_exit_1 | foreign_verify_bad_arguments | foreign_verify_no_gpu_refused | \
        foreign_verify_failed_step_exit_1 | slurm_job_names_its_folder | slurm_time_limit_named | \
        slurm_job_sh_run_refused | slurm_comm_ranks_from_the_allocation | schedules_oversubscribe_open_mpi_only | \
        bench_solver_scripts_keep_raw | ci_run_sanitizers_beside_check) "$1" ;;
    *) echo "test_cluster_scripts.sh: unknown test '${1:-}' (--list names them)" >&2; exit 2 ;;
esac
