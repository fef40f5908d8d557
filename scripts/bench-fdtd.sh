#!/usr/bin/env bash
# The FDTD benchmarks of issue 12 on one GPU, every step bounded in time:
#   scripts/bench-fdtd.sh OUT [--sizes "320 480 640"] [--more "544 800 1024"] [--steps N]
#                             [--strategies "host peer nccl"]
#   scripts/bench-fdtd.sh --summary OUT     only (re)write OUT/summary.csv
# In order of importance (bound the whole with `timeout` and run --summary after):
# triad; the tuned and the baseline kernels at --sizes with and without CPML; the
# 4-subdomain runs (tiled kernels); the --more sizes; double precision at 480^3.
# Writes into OUT:
#   stream.csv, stream.log      trilap-bench stream (triad: the bandwidth roofline)
#   fdtd.csv, manifest.txt      trilap-fdtd run rows: tuned (tiled) and baseline (naive) kernels
#                               at each size with and without CPML (--compare-cpml), double at 480^3
#   pencil.csv                  4-subdomain pencil-yz (1x2x2) on one GPU per strategy, untraced
#   pencil-<strategy>/          the same run traced (trace.rank0.csv)
#   breakdown-*.csv             per-operation device times (--breakdown): 480^3 per kernel,
#                               and the pencil runs per strategy
#   summary.csv                 Mpoints/s, GB/s at the kernel's minimum bytes per point, fraction
#                               of the triad bandwidth, CPML overhead, tuned / baseline
#   bench.log                   everything the programs printed
# Needs bin/trilap-fdtd and bin/trilap-bench built with CUDA.
set -euo pipefail

out=""
sizes="320 480 640"
more="544 800 1024"
steps=""
summary_only=0
strategies="host peer nccl"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sizes) sizes=$2; shift 2 ;;
        --more) more=$2; shift 2 ;;
        --summary) summary_only=1; shift ;;
        --steps) steps=$2; shift 2 ;;
        --strategies) strategies=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "bench-fdtd.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
        *) [[ -z $out ]] || { echo "bench-fdtd.sh: one output folder only ('$1')" >&2; exit 2; }; out=$1; shift ;;
    esac
done
[[ -n $out ]] || { echo "bench-fdtd.sh: no output folder (try --help)" >&2; exit 2; }
for n in $sizes $more; do [[ $n =~ ^[0-9]+$ ]] || { echo "bench-fdtd.sh: invalid size '$n' in --sizes" >&2; exit 2; }; done
[[ -z $steps || $steps =~ ^[0-9]+$ ]] || { echo "bench-fdtd.sh: invalid --steps '$steps'" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TL_BIN:-$here/bin}
if (( ! summary_only )); then
    for p in trilap-fdtd trilap-bench; do
        [[ -x $bin/$p ]] || { echo "bench-fdtd.sh: $bin/$p not built (make CUDA_ARCH=90 $bin/$p)" >&2; exit 1; }
    done
fi
log=$out/bench.log
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
# run LIMIT_S ARGS...: one bounded step; a failure is logged and the script goes on
run() {
    local lim=$1; shift
    say "\$ $*"
    if ! timeout "$lim" "$@" >> "$log" 2>&1; then say "  -> failed or timed out (limit ${lim}s)"; fi
    return 0
}
# size-dependent steps: about a second of measured time per run at 40 Gpoints/s
steps_for() { if [[ -n $steps ]]; then echo "$steps"; elif (( $1 >= 800 )); then echo 40; else echo 100; fi; }
common=(--backend cuda --warmup 5 --cpml 20 --source center --results "$out/fdtd.csv")

if (( ! summary_only )); then
    mkdir -p "$out"
    : > "$log"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >> "$log" 2>&1 || true
    run 60 "$bin/trilap-bench" stream --results "$out/stream.csv"
    for n in $sizes; do
        for k in tiled naive pipelined; do
            run 60 "$bin/trilap-fdtd" run "${common[@]}" --grid "$n" --steps "$(steps_for "$n")" --compare-cpml --kernel $k --label $k
        done
    done
    for st in $strategies; do
        pen=(--backend cuda --kernel tiled --grid 320 --warmup 5 --steps 40 --cpml 20 --decomp pencil-yz --strategy "$st")
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --label "pencil-$st" --results "$out/pencil.csv" \
            --breakdown "$out/breakdown-pencil-$st.csv"
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --label "pencil-$st-overlap" --overlap --results "$out/pencil.csv"
        run 60 "$bin/trilap-fdtd" run "${pen[@]}" --steps 10 --label "pencil-$st-traced" --trace "$out/pencil-$st"
    done
    for k in tiled naive pipelined; do # per-kernel device times (event pairs), outside fdtd.csv
        run 60 "$bin/trilap-fdtd" run --backend cuda --warmup 5 --cpml 20 --grid 480 --steps 50 --kernel $k \
            --label "breakdown-$k" --breakdown "$out/breakdown-$k-480.csv"
    done
    for n in $more; do
        for k in tiled naive pipelined; do
            run 60 "$bin/trilap-fdtd" run "${common[@]}" --grid "$n" --steps "$(steps_for "$n")" --compare-cpml --kernel $k --label $k
        done
    done
    run 60 "$bin/trilap-fdtd" run "${common[@]}" --grid 480 --steps "$(steps_for 480)" --compare-cpml --kernel tiled --precision double --label tiled-double
fi

# summary: bandwidth fractions against the measured triad
triad=$(awk -F, '$1 == "triad" { print $7 }' "$out/stream.csv" 2>/dev/null | tail -n1)
triad=${triad:-0}
if [[ -f $out/fdtd.csv ]]; then
    awk -F, -v triad="$triad" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { key = $c["label"] "," $c["nx"] "," ($c["cpml"] > 0 ? "cpml" : "none")
          mp[key] = $c["mpoints_s"]; gb[key] = $c["gbs"]; ov[key] = $c["cpml_overhead"]; order[++n] = key }
        END {
            print "label,n,boundary,mpoints_s,gbs,triad_gbs,fraction_of_triad,cpml_overhead,speedup_vs_naive"
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, f, ",")
                base = "naive," f[2] "," f[3]
                sp = (f[1] == "tiled" && (base in mp) && mp[base] > 0) ? sprintf("%.2f", mp[k] / mp[base]) : ""
                printf "%s,%.0f,%.1f,%.0f,%.3f,%s,%s\n", k, mp[k], gb[k], triad, (triad > 0 ? gb[k] / triad : 0), ov[k], sp
            }
        }' "$out/fdtd.csv" > "$out/summary.csv"
    say "summary (triad ${triad} GB/s):"
    tee -a "$log" < "$out/summary.csv" >&2
fi
