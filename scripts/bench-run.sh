# Sourced (no `set` of its own: the caller's options hold) by
# bench-solvers-gpu.sh and bench-solver-roof.sh: the triad and
# one bounded trilap-solve run of a GPU benchmark. The caller sets out,
# BENCH, budget, start (its $SECONDS at the beginning) and log().
#
#   bench_triad
#
# trilap-bench stream into $out/stream.csv (output: logs/stream.txt), the
# triad bandwidth in GB/s into triad; without one the caller stops (exit 1).
#
#   bench_run NAME TIMEOUT BIN trilap-solve-args...
#
# One GPU over NCCL, block partition, fixed iterations, 1 warm-up and 3
# timed solves; the command and its output in $out/logs/NAME.txt, the
# results in $out/raw/NAME.csv; a skip for the budget in skipped.txt, a
# failure in failed.txt. Never past the budget by more than 15 s, so the
# caller's summary gets written.
bench_run() {
    local name=$1 t=$2 bin=$3
    shift 3
    if [ $((SECONDS - start)) -ge "$budget" ]; then
        log "skip $name (budget ${budget}s spent)"
        echo "$name skipped (budget)" >>"$out/skipped.txt"
        return
    fi
    local rest=$((budget + 15 - (SECONDS - start)))
    [ "$t" -gt "$rest" ] && t=$rest
    local cmd=("$bin" --launcher threads --gpus 1 --backend cuda --partition block --rtol 0
        --atol 0 --warmup 1 --repeat 3 --results "$out/raw/$name.csv" "$@")
    echo "$ ${cmd[*]}" >"$out/logs/$name.txt"
    timeout "$t" "${cmd[@]}" >>"$out/logs/$name.txt" 2>&1
    local rc=$?
    log "$name: exit $rc"
    [ $rc -eq 0 ] || echo "$name exit $rc" >>"$out/failed.txt"
}

bench_triad() {
    log "stream"
    timeout 60 "$BENCH" stream --gpus 1 --results "$out/stream.csv" >"$out/logs/stream.txt" 2>&1
    triad=$(awk -F, -f "$(dirname "$0")/triad.awk" "$out/stream.csv" 2>/dev/null | head -n1)
    [ -n "$triad" ] || { log "no triad bandwidth (logs/stream.txt)"; exit 1; }
    log "triad ${triad} GB/s"
}
