# Sourced (no `set` of its own: the caller's options hold) by
# bench-solvers-gpu.sh, bench-solver-roof.sh and bench-solvers-protocol.sh
# (bench_triad alone): the triad and
# one bounded trilap-solve run of a GPU benchmark. The caller sets out,
# BENCH, budget, start (its $SECONDS at the beginning) and log().
#
#   bench_triad
#
# trilap-bench stream into $out/stream.csv (output: logs/stream.txt), the
# triad bandwidth in GB/s into triad; without one the script stops (exit 1),
# its last line trilap-bench's reason.
#
#   bench_run NAME TIMEOUT BIN trilap-solve-args...
#
# One GPU over NCCL, block partition, fixed iterations, 1 warm-up and 3
# timed solves; the command and its output in $out/logs/NAME.txt, the
# results in $out/raw/NAME.csv; a skip for the budget in skipped.txt, a
# failure in failed.txt. Never past the budget by more than 15 s, so the
# caller's summary gets written.
. "$(dirname "${BASH_SOURCE[0]}")/bounded.sh"
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
    bounded "$t" "${cmd[@]}" >>"$out/logs/$name.txt" 2>&1
    local rc=$?
    log "$name: exit $rc"
    [ $rc -eq 0 ] || echo "$name exit $rc" >>"$out/failed.txt"
}

bench_triad() {
    log "stream"
    bounded 60 "$BENCH" stream --gpus 1 --results "$out/stream.csv" >"$out/logs/stream.txt" 2>&1
    triad=$(awk -F, -f "$(dirname "$0")/triad.awk" "$out/stream.csv" 2>/dev/null | head -n1)
    # trilap-bench's own line says why (no GPU, say): before, the log
    # named the file alone
    local why
    why=$(grep -m 1 '^trilap-bench' "$out/logs/stream.txt" 2>/dev/null)
    [ -n "$triad" ] || { log "no triad bandwidth${why:+: $why} (logs/stream.txt): stopping"; exit 1; }
    log "triad ${triad} GB/s"
}
