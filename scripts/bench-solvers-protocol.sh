#!/usr/bin/env bash
# The paper's solver benchmark protocol on one GPU, bounded by a budget of
# device time: the triad bandwidth first (trilap-bench stream), then per
# input one trilap-solve --backend cuda invocation running every schedule
# (sync, two-stream, three-naive, three-split) with 1 warm-up solve of 10
# iterations and 3 timed solves of K fixed iterations (K = 10,000 Pipe-PCG,
# 1,000 Pipe-BiCGStab, or fewer where the budget says so: the counts used
# are in manifest.txt and in every row), then optionally (--breakdown) the
# Sec. IV-C breakdown: two-stream vs three-split on a small and a large
# input, traced, event timer against CUPTI.
#
#   scripts/bench-solvers-protocol.sh [--breakdown] [--inputs LIST] OUT [BUDGET_S]
#
# BUDGET_S: seconds of device time for the whole script (default 300).
# Inputs, in this order (LIST: a space-separated subset of the names):
#   p7-64 p7-128 p7-256  gen:poisson7:64|128|256, pipecg
#   p27-128              gen:poisson27:128 (27-point stencil), pipecg
#   cd-128               gen:convdiff:128 (upwind convection-diffusion), pipebicgstab
#   1138_bus ani4        the shared SPD matrices, pipecg (TL_DATA/matrices)
#   ani1_nonsymm         the shared nonsymmetric matrix, pipebicgstab
#   p7-max               gen:poisson7:N, the largest N (multiple of 32, at most
#                        512) whose footprint fits 80 % of the GPU's memory and
#                        70 % of the host's available memory, and whose run
#                        fits what is left of the budget with K >= 100
#                        (manifest.txt shows the arithmetic; on one H200
#                        with 128 GB: 512^3, 134M rows, 30 GB on the GPU)
# Each input gets the budget left over the inputs left; K is scaled down
# from its estimated cost (plan(): setup + 4 schedules x (10 + 3 K)
# iterations at the estimated iteration time); an input whose K would fall
# under 20 is skipped, and said so. PLAN_ONLY=1 prints the plan (counts and
# estimates, then the manifest) without running or writing anything.
#
# OUT: stream.csv, raw/<input>.csv (trilap-solve --results: one row per
# timed solve; us_per_iter and warmup_iterations included), logs/<input>.txt
# (complete output), results.csv (solver, schedule, matrix, nranks, rep,
# iterations, time_s (max over ranks), us_per_iter, bytes_per_iter,
# roofline_us, roofline_ratio), summary.txt (median over reps per input and
# schedule, speedup over two-stream; printed at the end), skipped.txt,
# manifest.txt; with --breakdown: traces/<small|large>-<schedule>/,
# breakdown/*.csv and breakdown.txt (op, event-timer us, CUPTI us, ratio).
# Environment: SOLVE, BENCH, ANALYZE (binaries), TL_DATA (matrices: its
# matrices/; default ../shared/data, else .carry/data), BACKEND=host (a
# dry run of the plumbing on the host backend, no GPU: no triad, no
# CUPTI), SIZES_MAX (the largest N considered for p7-max, default 512),
# NCCL_NVLS_ENABLE (passed on, default 0); with PLAN_ONLY=1, TRIAD (GB/s),
# GPU_MIB and HOST_KIB stand in for the triad and the GPU's and host's memory.

# not -e: a failed run is recorded and the rest goes on
set -u
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/bounded.sh"
breakdown=0
inputs="p7-64 p7-128 p7-256 p27-128 cd-128 1138_bus ani4 ani1_nonsymm p7-max"
while [ $# -gt 0 ]; do
    # an option without its value: one line (before: bash's '$2: unbound variable', exit 1)
    case "$1" in --inputs) [ $# -ge 2 ] || { echo "bench-solvers-protocol.sh: $1 needs a value (try --help)" >&2; exit 2; } ;; esac
    case "$1" in
    --breakdown) breakdown=1; shift ;;
    --inputs) inputs=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "bench-solvers-protocol.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: bench-solvers-protocol.sh [--breakdown] [--inputs LIST] OUT [BUDGET_S]" >&2; exit 2; }
out=$1
budget=${2:-300}
case "$budget" in '' | *[!0-9]*) echo "bench-solvers-protocol.sh: invalid BUDGET_S '$budget' (seconds)" >&2; exit 2 ;; esac
known=" p7-64 p7-128 p7-256 p27-128 cd-128 1138_bus ani4 ani1_nonsymm p7-max "
for i in $inputs; do
    [[ $known == *" $i "* ]] || { echo "bench-solvers-protocol.sh: unknown input '$i' (one of:$known)" >&2; exit 2; }
done
SOLVE=${SOLVE:-$here/bin/trilap-solve}
BENCH=${BENCH:-$here/bin/trilap-bench}
ANALYZE=${ANALYZE:-$here/bin/trilap-analyze}
backend=${BACKEND:-cuda}
case $backend in cuda | host) ;; *) echo "bench-solvers-protocol.sh: invalid BACKEND '$backend': cuda or host (try --help)" >&2; exit 2 ;; esac
for b in "$SOLVE" "$BENCH" "$ANALYZE"; do
    [ -x "$b" ] || { echo "bench-solvers-protocol.sh: $b not built (make all)" >&2; exit 1; }
done
data=${TL_DATA:-$here/../shared/data}
[ -d "$data/matrices" ] || data=$here/.carry/data
[ -e "$out/results.csv" ] && { echo "bench-solvers-protocol.sh: $out/results.csv exists; give a new OUT" >&2; exit 2; }
given_out=$out
plan_only=${PLAN_ONLY:-0}
if [ "$plan_only" = 1 ]; then
    # a plan writes nothing under OUT (a folder of logs without results
    # would be taken for a failed run): its manifest and log go to a
    # scratch folder, the manifest is printed at the end
    out=$(mktemp -d) || exit 1
    trap 'cat "$out/manifest.txt" 2>/dev/null; rm -rf "$out"' EXIT
fi
mkdir -p "$out/raw" "$out/logs" || exit 1
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
start=$SECONDS
log() { printf '[%4ds] %s\n' $((SECONDS - start)) "$*" | tee -a "$out/console.log" >&2; }
: >"$out/skipped.txt"
manifest=$out/manifest.txt
{
    echo "script: scripts/bench-solvers-protocol.sh $([ $breakdown -eq 1 ] && echo '--breakdown ')--inputs '$inputs' $given_out $budget"
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname)"
    echo "commit: $(cat "$here/.trilap-commit" 2>/dev/null || git -C "$here" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
    echo "backend: $backend"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/gpu: /'
    echo "protocol: 1 warm-up solve of 10 iterations, 3 timed solves of K fixed iterations (--rtol 0 --atol 0), schedules sync two-stream three-naive three-split, one rank$([ "$backend" = cuda ] && echo ' over NCCL'), block partition"
} >"$manifest"

# ---- triad -------------------------------------------------------------------
# PLAN_ONLY=1: print what would run (each run taking its estimate), run
# nothing; TRIAD (GB/s), GPU_MIB and HOST_KIB stand in for the measurements
triad=""
if [ "$plan_only" = 1 ]; then
    triad=${TRIAD:-4394}
elif [ "$backend" = cuda ]; then
    . "$(dirname "$0")/bench-run.sh"
    bench_triad
    # trilap-bench has added its block (stream.csv) after these lines: the
    # script's next lines a block of their own
    printf '\nscript: (continued after trilap-bench stream)\ntriad_gbs: %s\n' "$triad" >>"$manifest"
fi
# for the cost estimate without a measured triad (host dry run): 50 GB/s
est_bw=${triad:-50}

# ---- the largest poisson7 ----------------------------------------------------
# Footprint per row, pipecg with Jacobi, one GPU: CSR 7 x (8 B value + 4 B
# column) + 8 B row pointer = 92 B, 16 vectors of 8 B = 128 B: 220 B. Host
# (rank 0 generates the whole matrix with 64-bit indices, then the
# distributed copy): 2 x (7 x 16 + 8) + 8 vectors x 8 B = 304 B.
gpu_mib=${GPU_MIB:-$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -n1 | tr -dc 0-9)}
host_kib=${HOST_KIB:-$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)}
maxn=$(awk -v g="${gpu_mib:-0}" -v h="${host_kib:-0}" -v cap="${SIZES_MAX:-512}" 'BEGIN {
    rg = g > 0 ? 0.8 * g * 1048576 / 220 : 0; rh = 0.7 * h * 1024 / 304
    r = (rg > 0 && rg < rh) ? rg : rh; if (g == 0) r = rh
    n = int(exp(log(r) / 3) / 32) * 32; if (n > cap) n = cap; if (n < 32) n = 32; print n }')
{
    echo "p7-max memory: GPU memory ${gpu_mib:-unknown} MiB, host MemAvailable ${host_kib:-unknown} KiB; 220 B/row on the GPU (80 %), 304 B/row on the host (70 %), N a multiple of 32 <= ${SIZES_MAX:-512}: N = $maxn ($((maxn * maxn * maxn)) rows, GPU $((maxn * maxn * maxn * 220 / 1000000000)) GB)"
} >>"$manifest"

# name -> matrix solver K0 bytes-per-row nonzeros-per-row (estimates: bytes
# one iteration moves per row, from results/device-session-b2d4186's
# H200 runs: poisson7 pipecg 1.58 ms at 256^3 with triad 4394 GB/s). The
# data folder is @data, put back after the words are read: its path may
# hold a space
spec() {
    case $1 in
    p7-64) echo "gen:poisson7:64 pipecg 10000 300 7" ;;
    p7-128) echo "gen:poisson7:128 pipecg 10000 300 7" ;;
    p7-256) echo "gen:poisson7:256 pipecg 10000 300 7" ;;
    p7-max) echo "gen:poisson7:$2 pipecg 10000 300 7" ;;
    p27-128) echo "gen:poisson27:128 pipecg 10000 650 27" ;;
    cd-128) echo "gen:convdiff:128 pipebicgstab 1000 900 7" ;;
    1138_bus) echo "@data/matrices/1138_bus.mtx pipecg 10000 300 0" ;;
    ani4) echo "@data/matrices/ani4.mtx pipecg 10000 300 0" ;;
    ani1_nonsymm) echo "@data/matrices/ani1_nonsymm.mtx pipebicgstab 1000 900 0" ;;
    esac
}
# "rows nonzeros" of a generated spec or a Matrix Market file's size line
# (symmetric storage counted twice: near enough for an estimate)
size_of() {
    case $1 in
    gen:*:*) local n=${1##*:}; echo "$((n * n * n)) $((n * n * n * $2))" ;;
    *) grep -v '^%' "$1" 2>/dev/null | head -n1 | awk '{ print $1 + 0, 2 * $3 }' ;;
    esac
}
# plan ROWS NNZ BYTES_PER_ROW K0 SHARE -> "K EST SETUP": the iteration
# time over 70 % of triad (at least 60 us: launch-bound small inputs),
# setup (generation, distribution, upload: 3 s + 80 ns per nonzero, the
# host's streaming rate measured in solvers/README.md, twice), K the
# largest count (two significant digits, at most K0) whose estimated
# cost setup + 4 schedules x (10 + 3 K) iterations fits SHARE
plan() {
    awk -v rows="$1" -v nnz="$2" -v b="$3" -v k0="$4" -v share="$5" -v bw="$est_bw" 'BEGIN {
        t = rows * b / (0.7 * bw * 1e9); if (t < 60e-6) t = 60e-6
        setup = 3 + nnz * 8e-8
        k = int((share - setup) / (4 * 3 * t) - 10 / 3)
        if (k > k0) k = k0
        if (k >= 100) { m = 10 ^ int(log(k) / log(10) - 1); k = int(k / m) * m }
        if (k < 0) k = 0
        est = setup + 4 * (10 + 3 * k) * t
        printf "%d %d %d\n", k, est + 0.5, setup + 0.5 }'
}

# ---- the protocol runs -------------------------------------------------------
launch=(--backend cuda --launcher threads --gpus 1 --device-comm nccl)
timer=(--no-op-timer) # the iteration time without the event timer's brackets (cuda only: host has none)
[ "$backend" = host ] && launch=(--backend host --launcher threads --ranks 1 --no-gpu) && timer=()
sim=0
left() { echo $((budget - (SECONDS - start) - sim)); }
set -- $inputs
nleft=$#
# reserve for the breakdown step (4 traced runs of 200 iterations; a
# 256^3 one takes 15-25 s with its matrix generation: 40 s was too little at 401e5f3)
reserve=0
[ $breakdown -eq 1 ] && reserve=90
for name in "$@"; do
    nleft_now=$nleft
    nleft=$((nleft - 1))
    avail=$(( $(left) - reserve ))
    share=$((avail / nleft_now))
    if [ "$name" = p7-max ]; then
        # the largest N that fits memory and, with K >= 100, this input's share
        n=$maxn
        while :; do
            read -r matrix solver k0 brow nzr <<<"$(spec p7-max "$n")"
            read -r rows nnz <<<"$(size_of "$matrix" "$nzr")"
            read -r k est setup <<<"$(plan "$rows" "$nnz" "$brow" "$k0" "$share")"
            [ "$k" -ge 100 ] || [ "$n" -le 288 ] && break
            n=$((n - 32))
        done
        echo "p7-max: N = $n (largest multiple of 32 <= $maxn with K >= 100 in ${share} s; K = $k)" >>"$manifest"
    else
        read -r matrix solver k0 brow nzr <<<"$(spec "$name")"
        matrix=${matrix/#@data/$data}
        read -r rows nnz <<<"$(size_of "$matrix" "$nzr")"
        if [ -z "${rows:-}" ] || [ "${rows:-0}" -le 0 ]; then
            log "skip $name: $matrix not found"
            echo "$name: skipped ($matrix not found)" >>"$out/skipped.txt"
            continue
        fi
        read -r k est setup <<<"$(plan "$rows" "$nnz" "$brow" "$k0" "$share")"
    fi
    if [ "$k" -lt 20 ]; then
        log "skip $name: $share s left for it, setup alone ~${setup} s (K would be $k)"
        echo "$name: skipped (budget: $share s for it, K would be $k)" >>"$out/skipped.txt"
        continue
    fi
    t=$((2 * est + 30))
    rest=$(( $(left) + 10 ))
    [ "$t" -gt "$rest" ] && t=$rest
    if [ "$t" -le 5 ]; then
        echo "$name: skipped (budget spent)" >>"$out/skipped.txt"
        log "skip $name: budget spent"
        continue
    fi
    echo "iterations $name: $matrix $solver K=$k (paper: $k0; estimated ${est} s, setup ${setup} s)" >>"$manifest"
    cmd=("$SOLVE" "${launch[@]}" --partition block --solver "$solver" --schedule all
        --rtol 0 --atol 0 --max-iterations "$k" --warmup 1 --warmup-iterations 10 --repeat 3
        ${timer[@]+"${timer[@]}"} --results "$out/raw/$name.csv" "$matrix")
    echo "\$ ${cmd[*]}" >"$out/logs/$name.txt"
    log "$name: $matrix $solver K=$k (estimated ${est} s, limit ${t} s)"
    if [ "$plan_only" = 1 ]; then
        sim=$((sim + est))
        continue
    fi
    bounded "$t" "${cmd[@]}" >>"$out/logs/$name.txt" 2>&1
    rc=$?
    log "$name: exit $rc"
    [ $rc -eq 0 ] || echo "$name: exit $rc (logs/$name.txt)" >>"$out/skipped.txt"
done
if [ "$plan_only" = 1 ]; then
    log "plan only: estimated total $((SECONDS - start + sim)) s of $budget s (+ breakdown $reserve s)"
    exit 0
fi

# ---- results.csv: rows per timed solve with the byte roofline ----------------
# csv.awk in front of the programs that read the raw rows: trilap-solve
# quotes its matrix name
csv_awk=$(cat "$here/scripts/csv.awk")
# bytes per iteration of each (solver, schedule) block: every operation's
# bytes but halo and allreduce (summed over the 3 timed solves) / (3 K)
for f in "$out"/logs/*.txt; do
    case $f in */stream.txt | */\*.txt) continue ;; esac
    awk -v input="$(basename "$f" .txt)" '
    function flush() { if (solver != "" && iters > 0 && nt > 0) printf "%s,%s,%s,%.1f\n", input, solver, schedule, sum / (nt * iters); solver = ""; sum = 0 }
    /^solver: / { flush(); solver = $2; schedule = "-" }
    /^schedule: / { schedule = $2 }
    /^iterations: / { iters = $2 }
    /^timed solves: / { nt = $3 }
    /^(spmv|dot|update|precond|loop) +[0-9]/ { sum += $4 }
    END { flush() }' "$f"
done >"$out/bytes.csv"
{
    echo "input,solver,schedule,matrix,nranks,rep,iterations,time_s,us_per_iter,bytes_per_iter,roofline_us,roofline_ratio"
    for f in "$out"/raw/*.csv; do
        [ -f "$f" ] || continue
        awk -v input="$(basename "$f" .csv)" -v triad="${triad:-0}" "$csv_awk"'
        FNR == NR { csv_split($0, r); b[r[1] "," r[2] "," r[3]] = r[4] + 0; next }
        FNR == 1 { n = csv_split($0, h); for (i = 1; i <= n; i++) c[h[i]] = i; next }
        { csv_split($0, r); m = csv_field(r[c["matrix"]])
          key = input "," r[c["solver"]] "," r[c["schedule"]]
          by = (key in b) ? b[key] : 0
          roof = (triad > 0 && by > 0) ? by / (triad * 1e3) : 0
          us = r[c["us_per_iter"]]
          printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%.0f,%.3f,%s\n", input, r[c["solver"]], r[c["schedule"]], m, r[c["nranks"]], r[c["rep"]],
                 r[c["iterations"]], r[c["solver_time_s"]], us, by, roof, (roof > 0) ? sprintf("%.3f", us / roof) : "-" }' \
            "$out/bytes.csv" "$f"
    done
} >"$out/results.csv"
rm -f "$out/bytes.csv"

# ---- summary: median over reps per input and schedule --------------------------
{
    echo "# triad: ${triad:-not measured (BACKEND=host)} GB/s; K per input: manifest.txt; time: max over ranks; roofline: bytes of all kernels of one iteration / triad"
    printf '%-13s %-13s %-12s %6s %12s %10s %8s %8s\n' input solver schedule K "us/iter" roof_us ratio speedup
    printf '%-13s %-13s %-12s %6s %12s %10s %8s %8s\n' "" "" "" "" median "" "" "vs 2-str"
    awk "$csv_awk"'NR > 1 { csv_split($0, r); k = r[1] SUBSEP r[2] SUBSEP r[3]; n[k]++; v[k, n[k]] = r[9] + 0; K[k] = r[7]; roof[k] = r[11] + 0
                      if (!(k in seen)) { seen[k] = 1; order[++no] = k } }
        function med(k,   i, j, t, a, m) { m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
            for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
        END { for (i = 1; i <= no; i++) { k = order[i]; split(k, p, SUBSEP); md[k] = med(k); base[p[1], p[2]] = (p[3] == "two-stream") ? md[k] : base[p[1], p[2]] }
              for (i = 1; i <= no; i++) { k = order[i]; split(k, p, SUBSEP); b = base[p[1], p[2]]
                  printf "%-13s %-13s %-12s %6d %12.2f %10.2f %8s %8s\n", p[1], p[2], p[3], K[k], md[k], roof[k],
                         (roof[k] > 0) ? sprintf("%.3f", md[k] / roof[k]) : "-", (b > 0 && md[k] > 0) ? sprintf("%.3f", b / md[k]) : "-" } }' \
        "$out/results.csv"
    [ -s "$out/skipped.txt" ] && sed 's/^/# skipped or failed: /' "$out/skipped.txt"
} >"$out/summary.txt"

# ---- Sec. IV-C breakdown (optional) --------------------------------------------
if [ $breakdown -eq 1 ] && [ "$backend" = cuda ]; then
    mkdir -p "$out/traces" "$out/breakdown"
    bk=200
    for pair in "small gen:poisson7:64" "large gen:poisson7:256"; do
        read -r size matrix <<<"$pair"
        for sched in two-stream three-split; do
            t=$(( $(left) + 10 ))
            [ "$t" -gt 60 ] && t=60
            if [ "$t" -le 10 ]; then
                echo "breakdown $size $sched: skipped (budget spent)" >>"$out/skipped.txt"
                continue
            fi
            d=$out/traces/$size-$sched
            log "breakdown $size $sched ($bk iterations, traced)"
            bounded "$t" "$SOLVE" "${launch[@]}" --partition block --solver pipecg --schedule "$sched" \
                --rtol 0 --atol 0 --max-iterations $bk --warmup 1 --warmup-iterations 10 --repeat 1 \
                --trace "$d" --cupti "$matrix" >"$out/logs/breakdown-$size-$sched.txt" 2>&1 ||
                { echo "breakdown $size $sched: exit $? (logs/breakdown-$size-$sched.txt)" >>"$out/skipped.txt"; continue; }
            bounded 60 "$ANALYZE" breakdown "$d" --csv "$out/breakdown/$size-$sched.csv" >"$out/breakdown/$size-$sched.txt" 2>&1
            bounded 60 "$ANALYZE" overlap "$d" --csv "$out/breakdown/$size-$sched-overlap.csv" >"$out/breakdown/$size-$sched-overlap.txt" 2>&1
        done
    done
    "$here/scripts/render-solver-breakdown.sh" "$out" >"$out/breakdown.txt" 2>&1 ||
        log "breakdown table failed (breakdown.txt)"
    log "breakdown: $out/breakdown.txt"
fi

echo "elapsed_s: $((SECONDS - start))" >>"$manifest"
echo "trilap-solve: raw/manifest.txt (a block per run, naming the lines of its rows)" >>"$manifest"
cat "$out/summary.txt"
[ $breakdown -eq 1 ] && [ -f "$out/breakdown.txt" ] && cat "$out/breakdown.txt"
log "done in $((SECONDS - start)) s (budget $budget s)"
[ ! -s "$out/skipped.txt" ] || ! grep -q "exit" "$out/skipped.txt"
