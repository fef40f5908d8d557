#!/usr/bin/env bash
# The FDTD benchmarks of issue 12 on one GPU, every step bounded in time:
#   scripts/bench-fdtd.sh OUT [--sizes "320 480 640"] [--more "544 800 1024"] [--steps N]
#                             [--kernels "naive pipelined vec4 vec4-band"] [--double "naive vec2"]
#                             [--breakdown "naive pipelined vec4"] [--strategies "host peer nccl"]
#   scripts/bench-fdtd.sh --summary OUT     only (re)write OUT/summary.csv and OUT/table.txt
# In order of importance (bound the whole with `timeout`; each step is bounded too, a
# failure is logged and the script goes on): triad (trilap-bench stream); every
# --kernels entry at each --sizes n^3, single precision, order 8, with and without
# CPML (20 cells, --compare-cpml: one process); the --double kernels at the first
# size in double precision; the --breakdown kernels' per-operation device times there
# with CPML; the 4-subdomain pencil-yz (1x2x2) runs on one GPU per --strategies entry
# (tiled kernels, 320^3: untimed, with --overlap, and traced); every kernel at the
# --more sizes. Empty lists skip their step.
# Writes into OUT:
#   stream.csv                  trilap-bench stream (triad: the bandwidth roofline)
#   fdtd.csv, manifest.txt      trilap-fdtd run rows (columns: stencil/README.md)
#   breakdown-<kernel>.csv      --breakdown: update_v, update_v_cpml, update_p, ... device times
#   pencil.csv, pencil-<st>/    the pencil-yz runs per strategy (trace.rank0.csv in the folder),
#   breakdown-pencil-<st>.csv   and their per-operation device times
#   summary.csv                 kernel,precision,n,boundary,mpoints_s,gbs,min_bytes_per_point,
#                               triad_gbs,fraction_of_triad,vs_naive,cpml_overhead
#   table.txt                   the same as a fixed-width table (also printed)
#   bench.log                   everything the programs printed
# GB/s is the kernel's minimum bytes per point per step (48 B single, 96 B double:
# every kernel here has the same minimum) times points and steps over the time;
# vs_naive is Mpoints/s over the naive kernel's in the same size, precision and boundary.
# The steps per run: --steps, else 40 from 800^3 up and 100 below (about a second of
# measured time at 40 Gpoints/s). Needs bin/trilap-fdtd and bin/trilap-bench built with CUDA.
# TL_BIN: the folder of those programs [bin].
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

out=""
sizes="320 480 640"
more="544 800 1024"
steps=""
kernels="naive pipelined vec4 vec4-band"
double="naive vec2"
breakdown="naive pipelined vec4"
strategies="host peer nccl"
summary_only=0
while [[ $# -gt 0 ]]; do
    # an option without its value: one line (before: bash's '$2: unbound variable', exit 1)
    case "$1" in --sizes | --more | --steps | --kernels | --double | --breakdown | --strategies) [ $# -ge 2 ] || { echo "bench-fdtd.sh: $1 needs a value (try --help)" >&2; exit 2; } ;; esac
    case "$1" in
        --sizes) sizes=$2; shift 2 ;;
        --more) more=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --kernels) kernels=$2; shift 2 ;;
        --double) double=$2; shift 2 ;;
        --breakdown) breakdown=$2; shift 2 ;;
        --strategies) strategies=$2; shift 2 ;;
        --summary) summary_only=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "bench-fdtd.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
        *) [[ -z $out ]] || { echo "bench-fdtd.sh: one output folder only ('$1')" >&2; exit 2; }; out=$1; shift ;;
    esac
done
[[ -n $out ]] || { echo "bench-fdtd.sh: no output folder (try --help)" >&2; exit 2; }
for n in $sizes $more; do [[ $n =~ ^[0-9]+$ ]] || { echo "bench-fdtd.sh: invalid size '$n' in --sizes/--more" >&2; exit 2; }; done
[[ -z $steps || $steps =~ ^[0-9]+$ ]] || { echo "bench-fdtd.sh: invalid --steps '$steps'" >&2; exit 2; }
for k in $kernels $double $breakdown $strategies; do
    [[ $k =~ ^[a-z0-9-]+$ ]] || { echo "bench-fdtd.sh: invalid kernel or strategy name '$k'" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/bounded.sh"
bin=${TL_BIN:-$here/bin}
log=$out/bench.log
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
# run LIMIT_S ARGS...: one bounded step; a failure is logged with the
# program's own error line and the script goes on
run() { bounded_step "$@" || true; }
steps_for() { if [[ -n $steps ]]; then echo "$steps"; elif (( $1 >= 800 )); then echo 40; else echo 100; fi; }

if (( ! summary_only )); then
    for p in trilap-fdtd trilap-bench; do
        [[ -x $bin/$p ]] || { echo "bench-fdtd.sh: $bin/$p not built (make CUDA_ARCH=90 $bin/$p)" >&2; exit 1; }
    done
    mkdir -p "$out"
    : > "$log"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >> "$log" 2>&1 || true
    run 60 "$bin/trilap-bench" stream --results "$out/stream.csv"
    common=(--backend cuda --warmup 5 --cpml 20 --source center --compare-cpml --results "$out/fdtd.csv")
    sweep() { # sweep SIZE...: every kernel at each size
        local n k
        for n in "$@"; do
            for k in $kernels; do
                run 60 "$bin/trilap-fdtd" run "${common[@]}" --grid "$n" --steps "$(steps_for "$n")" --kernel "$k" --label "$k"
            done
        done
    }
    # shellcheck disable=SC2086
    sweep $sizes
    first=${sizes%% *}
    if [[ -n $first ]]; then
        for k in $double; do
            run 60 "$bin/trilap-fdtd" run "${common[@]}" --grid "$first" --steps "$(steps_for "$first")" --kernel "$k" \
                --label "$k-double" --precision double
        done
        for k in $breakdown; do # per-operation device times, outside fdtd.csv
            run 60 "$bin/trilap-fdtd" run --backend cuda --warmup 5 --cpml 20 --source center --grid "$first" --steps 50 \
                --kernel "$k" --label "breakdown-$k" --breakdown "$out/breakdown-$k.csv"
        done
    fi
    for st in $strategies; do
        # no --steps in pen: each run gives its own once (a second --steps would win, with a note)
        pen=(--backend cuda --kernel tiled --grid 320 --warmup 5 --cpml 20 --decomp pencil-yz --strategy "$st")
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --steps 40 --label "pencil-$st" --results "$out/pencil.csv" \
            --breakdown "$out/breakdown-pencil-$st.csv"
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --steps 40 --label "pencil-$st-overlap" --overlap --results "$out/pencil.csv"
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --steps 10 --label "pencil-$st-traced" --trace "$out/pencil-$st"
    done
    # shellcheck disable=SC2086
    sweep $more
fi

[[ -f $out/fdtd.csv ]] || { echo "bench-fdtd.sh: no $out/fdtd.csv" >&2; exit 1; }
# summary.csv and table.txt written under temporary names and renamed, both
# once both are whole (parts.sh): a failed or interrupted rewrite
# (--summary over a committed folder) left them cut, the earlier ones lost
. "$here/scripts/parts.sh"
trap parts_drop EXIT
parts_stage summary "$out/summary.csv"
parts_stage table "$out/table.txt"
triad=$( (awk -F, '$1 == "triad" { print $7 }' "$out/stream.csv" 2>/dev/null || true) | tail -n1)
triad=${triad:-0}
awk -F, -v triad="$triad" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $1 == "label" { next }
    { key = $c["kernel"] "," $c["precision"] "," $c["nx"] "," ($c["cpml"] > 0 ? "cpml" : "none")
      if (!(key in mp)) order[++n] = key
      mp[key] = $c["mpoints_s"]; gb[key] = $c["gbs"]; mb[key] = $c["min_bytes_per_point"]; ov[key] = $c["cpml_overhead"] }
    END {
        print "kernel,precision,n,boundary,mpoints_s,gbs,min_bytes_per_point,triad_gbs,fraction_of_triad,vs_naive,cpml_overhead"
        for (i = 1; i <= n; i++) {
            k = order[i]; split(k, f, ",")
            base = "naive," f[2] "," f[3] "," f[4]
            vs = ((base in mp) && mp[base] > 0) ? sprintf("%.3f", mp[k] / mp[base]) : ""
            printf "%s,%.0f,%.1f,%s,%.0f,%.3f,%s,%s\n", k, mp[k], gb[k], mb[k], triad, (triad > 0 ? gb[k] / triad : 0), vs, ov[k]
        }
    }' "$out/fdtd.csv" > "$summary" ||
    { echo "bench-fdtd.sh: cannot write $out/summary.csv from $out/fdtd.csv; summary.csv and table.txt left as they were" >&2; exit 1; }
awk -F, -v triad="$triad" '
    NR == 1 { printf "# triad %s GB/s; GB/s at the minimum bytes per point (B/pt)\n", triad
              printf "%-13s %-6s %5s %-5s %10s %8s %5s %9s %8s %9s\n", "kernel", "prec", "n", "CPML", "Mpoints/s", "GB/s", "B/pt", "of triad", "x naive", "CPML cost"; next }
    { printf "%-13s %-6s %5s %-5s %10s %8s %5s %9s %8s %9s\n", $1, $2, $3, $4, $5, $6, $7, $9, $10, $11 }' \
    "$summary" > "$table" ||
    { echo "bench-fdtd.sh: cannot write $out/table.txt; summary.csv and table.txt left as they were" >&2; exit 1; }
parts_commit
tee -a "$log" < "$out/table.txt" >&2
