#!/usr/bin/env bash
# What CPML costs the default FDTD kernel (issue 29, item 1), from one run:
#   scripts/bench-cpml.sh OUT [--sizes "480 1024"] [--kernel vec4-band] [--cpml 20] [--reps 2] [--ncu] [--ncu-fabric]
# Triad first (trilap-bench stream: the bandwidth roofline of this run), then per
# size and repetition one `trilap-fdtd run --compare-cpml` process (the same kernel
# without CPML, then with --cpml cells: order 8, single precision, centred source),
# then, with --ncu and where Nsight Compute is installed, ncu's throughput,
# occupancy, launch and instruction sections of every launch of the second
# step (both updates; with CPML the interior and the shell: the velocity
# update's boxes a launch each, four in float and six in double, the
# pressure update's in one;
# the launches a step are counted first, by ncu over a run of one step),
# with and without CPML, at the first size; with --ncu-fabric, ncu's raw
# counters of the same launches at the GPU's own clocks: the bytes that
# cross the fabric between the two L2 partitions, which bounds the update
# (stencil/README.md), and the time it was busy, each step against the
# other, and k, a shell point slot's cost beyond a plain point's, in plain
# point-times, from the measured ratio (ratio = 1 / (1 + k s), s the
# shell's point slots over the grid's points; the z slabs' points that
# the interior's launch runs, in float, are not shell slots, so their
# cost lands in k). Steps: 100 below 800^3, 40
# from 800^3 up (about a second each).
# Targets (issue 29 point 1): with CPML at least 0.88 of the rate without at 480^3,
# 0.92 at 1024^3; the target column is empty at other sizes, which have none.
# Writes into OUT:
#   stream.csv            trilap-bench stream
#   fdtd.csv, manifest.txt trilap-fdtd run rows (columns: stencil/README.md)
#   cpml.csv              n,rep,steps,none_mpoints_s,cpml_mpoints_s,ratio,target,none_of_triad,triad_gbs
#   table.txt             the same, fixed width (also printed)
#   ncu-<n>-cpml<c>.csv   --ncu: ncu --csv --page details of the vector kernels
#   ncu-<n>-cpml<c>.txt   --ncu: a line per launch and the CPML launches' share of
#                         each update (scripts/ncu-launches.awk; also printed)
#   ncu-fabric-<n>-cpml<c>.csv, .txt  --ncu-fabric: ncu --csv --page raw, and a line
#                         per launch (scripts/ncu-raw-per-point.awk)
#   fabric.txt            --ncu-fabric: the two steps side by side, and k (also printed)
#   bench.log             everything the programs printed
# cpml.csv and table.txt (and fabric.txt) are written under temporary names
# beside them and renamed once whole: a failure there is one line and exit
# 1, an earlier run's as they were.
# Exit status: 0 when every size ran (whether or not it meets its target), 1 otherwise.
# TL_BIN: the folder of trilap-fdtd and trilap-bench [bin]; ncu is looked for
# on PATH, then in CUDA_HOME [/usr/local/cuda]/bin and /opt/nvidia/nsight-compute.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

out=""
sizes="480 1024"
kernel=vec4-band
cpml=20
reps=2
ncu=0
ncu_fabric=0
while [[ $# -gt 0 ]]; do
    # an option without its value: one line (before: bash's '$2: unbound variable', exit 1)
    case "$1" in --sizes | --kernel | --cpml | --reps) [ $# -ge 2 ] || { echo "bench-cpml.sh: $1 needs a value (try --help)" >&2; exit 2; } ;; esac
    case "$1" in
        --sizes) sizes=$2; shift 2 ;;
        --kernel) kernel=$2; shift 2 ;;
        --cpml) cpml=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --ncu) ncu=1; shift ;;
        --ncu-fabric) ncu_fabric=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "bench-cpml.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
        *) [[ -z $out ]] || { echo "bench-cpml.sh: one output folder only ('$1')" >&2; exit 2; }; out=$1; shift ;;
    esac
done
[[ -n $out ]] || { echo "bench-cpml.sh: no output folder (try --help)" >&2; exit 2; }
for n in $sizes; do [[ $n =~ ^[0-9]+$ ]] || { echo "bench-cpml.sh: invalid size '$n' in --sizes" >&2; exit 2; }; done
[[ -n $sizes ]] || { echo "bench-cpml.sh: empty --sizes" >&2; exit 2; }
[[ $kernel =~ ^[a-z0-9-]+$ ]] || { echo "bench-cpml.sh: invalid --kernel '$kernel'" >&2; exit 2; }
[[ $cpml =~ ^[1-9][0-9]*$ ]] || { echo "bench-cpml.sh: invalid --cpml '$cpml' (cells, at least 1)" >&2; exit 2; }
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "bench-cpml.sh: invalid --reps '$reps'" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/bounded.sh"
bin=${TL_BIN:-$here/bin}
for p in trilap-fdtd trilap-bench; do
    [[ -x $bin/$p ]] || { echo "bench-cpml.sh: $bin/$p not built (make CUDA_ARCH=90 $bin/$p)" >&2; exit 1; }
done
mkdir -p "$out"
log=$out/bench.log
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log" >&2; }
failed=0
# run LIMIT_S ARGS...: one bounded step; a failure is logged with the
# program's own error line, counted, and the script goes on
run() { bounded_step "$@" || failed=1; }
steps_for() { if (( $1 >= 800 )); then echo 40; else echo 100; fi; }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv >> "$log" 2>&1 || true
rm -f "$out/stream.csv" "$out/fdtd.csv"
run 120 "$bin/trilap-bench" stream --results "$out/stream.csv"
for n in $sizes; do
    for ((r = 1; r <= reps; r++)); do
        run 300 "$bin/trilap-fdtd" run --backend cuda --kernel "$kernel" --grid "$n" --steps "$(steps_for "$n")" \
            --warmup 5 --cpml "$cpml" --source center --compare-cpml --label "cpml-$n-rep$r" --results "$out/fdtd.csv"
    done
done
first=${sizes%% *}
ncu_bin=""
if (( ncu || ncu_fabric )); then
    ncu_bin=$(command -v ncu || true)
    for cand in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /opt/nvidia/nsight-compute/*/ncu; do
        [[ -z $ncu_bin && -x $cand ]] && ncu_bin=$cand
    done
    [[ -n $ncu_bin ]] || say "bench-cpml.sh: --ncu / --ncu-fabric: ncu not found, skipped"
fi
# per_step_of CELLS: per_step, the vector kernels' launches in one step,
# as ncu counts them in a run of one step (one cheap metric, a few
# seconds; once for --ncu and --ncu-fabric), so that the profiles below
# cover the second step whole whatever the build launches (main: 2
# without CPML, 9 with; a variant on a branch may launch more or fewer,
# and a fixed count profiled the wrong ones); fails where ncu counted none
declare -A counted=()
per_step_of() {
    if [[ -z ${counted[$1]:-} ]]; then
        # bounded, not timeout inside $(...): a ^C stops it and the script
        bounded 120 "$ncu_bin" --csv --page raw --kernel-name regex:vec --metrics launch__grid_size \
            "$bin/trilap-fdtd" run --backend cuda --kernel "$kernel" --grid "$first" --steps 1 --cpml "$1" \
            > "$out/ncu-count.csv" 2>> "$log" || true
        counted[$1]=$(grep -c '^"[0-9]' "$out/ncu-count.csv" || true)
        rm -f "$out/ncu-count.csv"
        say "ncu: ${counted[$1]} launches a step at $first^3 with --cpml $1"
        (( counted[$1] > 0 )) || { say "  -> ncu counted no launch of a step (see $log)"; failed=1; }
    fi
    per_step=${counted[$1]}
    (( per_step > 0 ))
}
if (( ncu )) && [[ -n $ncu_bin ]]; then
    for c in 0 "$cpml"; do
        per_step_of "$c" || continue
        say "\$ $ncu_bin ... trilap-fdtd run --grid $first --cpml $c > $out/ncu-$first-cpml$c.csv"
        bounded 150 "$ncu_bin" --csv --page details --kernel-name regex:vec --launch-skip "$per_step" \
            --launch-count "$per_step" --section InstructionStats \
            --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section SchedulerStats --section SourceCounters \
            "$bin/trilap-fdtd" run --backend cuda --kernel "$kernel" --grid "$first" --steps 3 --cpml "$c" \
            > "$out/ncu-$first-cpml$c.csv" 2>> "$log" || say "  -> ncu failed or timed out"
        awk -f "$here/scripts/ncu-launches.awk" "$out/ncu-$first-cpml$c.csv" > "$out/ncu-$first-cpml$c.txt" \
            2>> "$log" && cat "$out/ncu-$first-cpml$c.txt" >&2
    done
fi
if (( ncu_fabric )) && [[ -n $ncu_bin ]]; then
    fabric_metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum
    fabric_metrics+=,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum
    fabric_metrics+=,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed
    for c in 0 "$cpml"; do
        per_step_of "$c" || continue
        f=$out/ncu-fabric-$first-cpml$c
        say "\$ $ncu_bin --clock-control none --page raw ... trilap-fdtd run --grid $first --cpml $c > $f.csv"
        bounded 150 "$ncu_bin" --clock-control none --csv --page raw --kernel-name regex:vec --launch-skip "$per_step" \
            --launch-count "$per_step" --metrics "$fabric_metrics" \
            "$bin/trilap-fdtd" run --backend cuda --kernel "$kernel" --grid "$first" --steps 3 --cpml "$c" \
            > "$f.csv" 2>> "$log" || { say "  -> ncu failed or timed out"; failed=1; }
        awk -f "$here/scripts/ncu-raw-per-point.awk" "$f.csv" > "$f.txt" 2>> "$log" ||
            { say "  -> $f.csv: no launches read (see $log)"; failed=1; }
    done
fi

[[ -f $out/fdtd.csv ]] || { echo "bench-cpml.sh: no $out/fdtd.csv (see $log)" >&2; exit 1; }
triad=$( (awk -F, -f "$here/scripts/triad.awk" "$out/stream.csv" 2>/dev/null || true) | head -n1)
triad=${triad:-0}
# cpml.csv and table.txt (and fabric.txt) under temporary names, renamed
# once whole (parts.sh): a run killed or failing while writing them left
# them cut, an earlier run's lost, and the cut table read as whole
. "$here/scripts/parts.sh"
trap parts_drop EXIT
parts_stage csv "$out/cpml.csv"
parts_stage table "$out/table.txt"
cannot() { echo "bench-cpml.sh: cannot write $out/$1; cpml.csv and table.txt left as they were (see $log)" >&2; exit 1; }
# pair each label's rows: cpml 0 and cpml > 0 of one process
awk -F, -v triad="$triad" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $1 == "label" { next }
    { l = $c["label"]; if (!(l in seen)) { seen[l] = 1; order[++k] = l }
      n[l] = $c["nx"]; st[l] = $c["steps"]
      if ($c["cpml"] > 0) cp[l] = $c["mpoints_s"]; else { no[l] = $c["mpoints_s"]; gb[l] = $c["gbs"] } }
    END {
        print "n,rep,steps,none_mpoints_s,cpml_mpoints_s,ratio,target,none_of_triad,triad_gbs"
        for (i = 1; i <= k; i++) {
            l = order[i]; rep = l; sub(/.*-rep/, "", rep)
            if (!(l in no) || !(l in cp) || no[l] <= 0) { printf "%s,%s,%s,%s,%s,,,,%s\n", n[l], rep, st[l], no[l], cp[l], triad; continue }
            tgt = n[l] == 480 ? "0.88" : n[l] == 1024 ? "0.92" : ""
            printf "%s,%s,%s,%.0f,%.0f,%.3f,%s,%s,%s\n", n[l], rep, st[l], no[l], cp[l], cp[l] / no[l], tgt,
                   (triad > 0 ? sprintf("%.3f", gb[l] / triad) : ""), triad
        }
    }' "$out/fdtd.csv" > "$csv" 2>> "$log" || cannot "cpml.csv from $out/fdtd.csv"
awk -F, -v kernel="$kernel" -v cells="$cpml" '
    NR == 1 { printf "# kernel %s, CPML %s cells against none, one process per row; triad (same run) in GB/s\n", kernel, cells
              printf "%5s %3s %5s %12s %12s %6s %6s %9s %7s\n", "n", "rep", "steps", "none Mpt/s", "CPML Mpt/s", "ratio", "target", "of triad", "triad"; next }
    { printf "%5s %3s %5s %12s %12s %6s %6s %9s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' \
    "$csv" > "$table" 2>> "$log" || cannot table.txt
parts_commit
tee -a "$log" < "$out/table.txt"
if (( ncu_fabric )) && [[ -s $out/ncu-fabric-$first-cpml0.txt && -s $out/ncu-fabric-$first-cpml$cpml.txt ]]; then
    # ncu-raw-per-point.awk's lines: launch, update, build, slots_M, ...;
    # its last: "total  N launches, T us, L2 fabric busy B us, M MB over the L2 fabric"
    # (without a fabric counter B or M is not there, and the step is refused).
    # s is the velocity shell's slots (its boxes are the pressure shell's;
    # in float the z slabs' points of the interior's x-y extent run in
    # the interior's launch, the z-slab build, and are not in s: their
    # cost lands in k);
    # a launch it cannot name (update or build ?: a branch's new kernel)
    # would be left out of s, so then s and k are not printed at all
    parts_stage fabric "$out/fabric.txt"
    awk -v n="$first" -v cells="$cpml" '
        FNR == 1 { file++ }
        $1 == "total" { launches[file] = $2; us[file] = $4 + 0; busy[file] = $9 + 0; mb[file] = $11 + 0; next }
        file == 2 && $1 ~ /^[0-9]+$/ && ($2 == "?" || $3 == "?") { unknown = unknown (unknown == "" ? "" : ", ") $1 }
        file == 2 && $2 == "v" && $3 == "cpml" { shell += $4 }
        FILENAME ~ /cpml\.csv$/ && FNR > 1 && $1 == n && $6 != "" { ratio += $6; reps++ }
        END {
            if (!busy[1] || !busy[2] || !mb[1] || !mb[2]) { print "bench-cpml.sh: the ncu fabric files lack the fabric counters" > "/dev/stderr"; exit 1 }
            printf "# L2 fabric of the second step at %d^3 (ncu --page raw, the GPU'"'"'s own clocks): MB between the two L2 partitions, us busy\n", n
            printf "%5s %8s %10s %14s %10s\n", "cpml", "launches", "kernels_us", "fabric_busy_us", "fabric_MB"
            printf "%5d %8d %10.1f %14.1f %10.1f\n", 0, launches[1], us[1], busy[1], mb[1]
            printf "%5d %8d %10.1f %14.1f %10.1f\n", cells, launches[2], us[2], busy[2], mb[2]
            printf "none / CPML: fabric bytes %.3f, fabric busy %.3f (the ratio the CPML step would reach at the other'"'"'s busy share)\n",
                   mb[1] / mb[2], busy[1] / busy[2]
            s = shell * 1e6 / (n * n * n)
            if (unknown != "")
                printf "shell: s and k not computed: launch %s of the CPML step is not known as a v or p update of the plain or CPML build (ncu-fabric-%d-cpml%d.txt)\n", unknown, n, cells
            else if (reps && s > 0) {
                r = ratio / reps
                printf "shell: s = %.3f of the point slots; at the measured ratio %.4f (mean of %d), k = (1 / ratio - 1) / s = %.2f\n", s, r, reps, (1 / r - 1) / s
            }
        }' FS=' ' "$out/ncu-fabric-$first-cpml0.txt" "$out/ncu-fabric-$first-cpml$cpml.txt" FS=, "$out/cpml.csv" \
        > "$fabric" 2>> "$log" && parts_commit && tee -a "$log" < "$out/fabric.txt" ||
        { parts_drop; say "bench-cpml.sh: no fabric.txt (see $log)"; failed=1; }
fi
exit "$failed"
