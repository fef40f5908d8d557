#!/usr/bin/env bash
# Renders the FDTD figures (PNG and PDF) from committed raw results with gnuplot:
#   scripts/render-fdtd-plots.sh [--cpu DIR] [--gpu DIR] [--out DIR]
#   fdtd-snapshots.{png,pdf}  pressure with and without CPML (the paper's Fig. 2),
#                             from DIR_cpu/slices/{cpml,none}/p-<step>.txt
#   fdtd-energy.{png,pdf}     normalised energy with and without CPML (Fig. 3),
#                             from DIR_cpu/energy.csv (`trilap-fdtd verify energy`)
#   fdtd-pencil-timeline.{png,pdf}  the 4-subdomain pencil-yz runs on one GPU per
#                             strategy (host, peer, nccl), two steps each, from
#                             DIR_gpu/bench/pencil-<strategy>/trace.rank0.csv[.gz]
#                             through `trilap-analyze timeline`, subtitled with
#                             the GPU DIR_gpu/bench/manifest.txt names
# Defaults: --cpu results/fdtd-cpu --gpu results/fdtd-h200 --out plots/out,
# folders of the trilap tree, from whatever folder it runs. FDTD_STEPS
# ("150 250 350"): the snapshots' steps, each a slice the run wrote.
# TL_GNUPLOT names another gnuplot, TL_BIN the folder of trilap-analyze [bin].
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in
cpu=""
gpu=""
out=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cpu|--gpu|--out)
            [[ $# -ge 2 && -n $2 ]] || { echo "render-fdtd-plots.sh: $1 needs a value (try --help)" >&2; exit 2; } ;;
    esac
    case "$1" in
        --cpu) cpu=$2; shift 2 ;;
        --gpu) gpu=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "render-fdtd-plots.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
cpu=${cpu:-$here/results/fdtd-cpu}
gpu=${gpu:-$here/results/fdtd-h200}
out=${out:-$here/plots/out}
for arg in "$cpu" "$gpu" "$out"; do
    # gnuplot takes every path inside a quoted string
    [[ $arg != *[\'\"]* ]] || { echo "render-fdtd-plots.sh: '$arg': gnuplot cannot take a path with a quote in it; choose another folder" >&2; exit 2; }
done
bin=${TL_BIN:-$here/bin}
gnuplot=${TL_GNUPLOT:-gnuplot} # another gnuplot, as demo.sh takes it (make plots passes the one make found)
command -v "$gnuplot" >/dev/null || { echo "render-fdtd-plots.sh: $gnuplot not found (install gnuplot-nox, or set TL_GNUPLOT)" >&2; exit 1; }
# --out is made now, so that a place it cannot be made (a file in the way,
# /proc, a read-only disk) is said before anything is drawn (it was mkdir's
# own message); the folders made here are removed again, when left empty,
# on the way out
made_from="" # the highest folder this run made
if [[ -e $out && ! -d $out ]]; then
    echo "render-fdtd-plots.sh: --out $out: a file, not a folder; give a folder" >&2; exit 1
elif [[ ! -e $out ]]; then
    d=$out
    while [[ ! -e $d ]]; do made_from=$d; d=$(dirname "$d"); done
    [[ -d $d ]] || { echo "render-fdtd-plots.sh: --out $out: $d is a file, not a folder; give a folder" >&2; exit 1; }
    why=$(mkdir -p -- "$out" 2>&1) || { echo "render-fdtd-plots.sh: --out $out: cannot be made (${why##*: })" >&2; exit 1; }
fi
[[ -w $out ]] || { echo "render-fdtd-plots.sh: --out $out: not writable" >&2; exit 1; }
# a figure and the CSV beside it are written under temporary names and
# renamed when the figure is whole; those left by a failure or a signal are
# removed
. "$here/scripts/render-gp.sh"
trap 'render_gp_end; [[ -z $made_from || ! -d $made_from ]] || find "$made_from" -depth -type d -empty -delete' EXIT
# Ctrl-C or a kill: gnuplot ended and the part files removed (above)
trap 'exit 130' INT
trap 'exit 143' TERM
gp() { # script, output base, gnuplot assignments
    mkdir -p "$out"
    render_gp render-fdtd-plots.sh "$gnuplot" "$here/plots/$1" "$2" "$3"
}
made=0
if [[ -f $cpu/energy.csv ]]; then
    gp fdtd-energy.gp "$out/fdtd-energy" "file='$cpu/energy.csv'"
    made=$((made + 1))
fi
if [[ -d $cpu/slices/cpml && -d $cpu/slices/none ]]; then
    steps=${FDTD_STEPS:-"150 250 350"}
    gp fdtd-snapshots.gp "$out/fdtd-snapshots" \
        "dirs='\"$cpu/slices/cpml\" \"$cpu/slices/none\"'; titles='CPML none'; steps='$steps'"
    made=$((made + 1))
fi
files="" titles=""
for s in host peer nccl; do
    t=$gpu/bench/pencil-$s/trace.rank0.csv
    [[ -f $t || -f $t.gz ]] || continue
    [[ -x $bin/trilap-analyze ]] || { echo "render-fdtd-plots.sh: $bin/trilap-analyze not built (make)" >&2; exit 1; }
    mkdir -p "$out"
    render_gp_stage csv "$out/fdtd-pencil-$s.csv" # renamed with the figure
    "$bin/trilap-analyze" timeline "$gpu/bench/pencil-$s" --iter-range 8:9 -o "$csv" > /dev/null
    files+="\"$csv\" "
    titles+="$s "
done
if [[ -n $files ]]; then
    # a measured figure names its hardware: the GPU of the runs' manifest
    # (the title said only "GPU activity per lane and rank")
    hw=$(sed -n 's/^gpu\.rank0: \([^(]*[^ (]\).*/\1/p' "$gpu/bench/manifest.txt" 2>/dev/null | tr -d "'\"" | sort -u | paste -sd / -)
    sub="pencil-yz, rank 0, steps 8-9, on ${hw:-a GPU $gpu/bench/manifest.txt does not name} (${gpu#"$here"/})"
    gp timeline.gp "$out/fdtd-pencil-timeline" "files='${files% }'; titles='${titles% }'; subtitle='$sub'"
    made=$((made + 1))
fi
(( made > 0 )) || { echo "render-fdtd-plots.sh: nothing to draw under $cpu or $gpu" >&2; exit 1; }
echo "render-fdtd-plots.sh: $made figures in $out" >&2
