#!/usr/bin/env bash
# Renders the trilap figures (PNG and PDF) from CSV with gnuplot only:
#   scripts/render-plots.sh [--results DIR] [--out DIR]
# For every folder under DIR that holds traced runs (<folder>/<variant>/trace.rank*.csv):
#   <name>-timeline.{png,pdf}   Fig. 2-style timelines of the variants side by side
#   <name>-breakdown.{png,pdf}  stacked kernel-time bars per variant and GPU count
# For every results.csv that sweeps a size (ring_bytes, allreduce_bytes, daxpy_bytes):
#   <name>-sweep-<column>.{png,pdf}  time per iteration vs size with the ideal bound
# The CSV these plots read is written beside them, so a figure can be redrawn
# with plots/*.gp alone. `make plots` runs this on results/ (plots/README.md).
set -euo pipefail

results=results
out=plots/out
iters=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --results) results=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --iters) iters=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "render-plots.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${TL_BIN:-$here/bin}
analyze=$bin/trilap-analyze
plots=$here/plots
command -v gnuplot >/dev/null || { echo "render-plots.sh: gnuplot not found (install gnuplot-nox)" >&2; exit 1; }
[[ -x $analyze ]] || { echo "render-plots.sh: $analyze not built (run make)" >&2; exit 1; }
[[ -d $results ]] || { echo "render-plots.sh: no results folder $results" >&2; exit 1; }

# variants in the order of the paper's figures, others after them
order_variants() {
    local d v listed=" "
    for v in two-stream three-naive three-split; do
        [[ -f $1/$v/trace.rank0.csv ]] && { printf '%s\n' "$v"; listed+="$v "; }
    done
    for d in "$1"/*/; do
        v=$(basename "$d")
        [[ -f $d/trace.rank0.csv && $listed != *" $v "* ]] && printf '%s\n' "$v"
    done
    return 0
}

gp() { # script, output base, gnuplot assignments
    local script=$1 base=$2 assign=$3 ext
    for ext in png pdf; do
        gnuplot -e "$assign; out='$base.$ext'" "$plots/$script"
    done
    echo "  $base.png, $base.pdf"
}

rendered=0
while IFS= read -r parent; do
    name=$(echo "${parent#"$results"}" | sed 's|^/||; s|/|-|g')
    [[ -n $name ]] || name=$(basename "$parent")
    mapfile -t variants < <(order_variants "$parent")
    [[ ${#variants[@]} -gt 0 ]] || continue
    echo "render-plots.sh: $parent (${variants[*]})"
    mkdir -p "$out"
    files="" titles="" dirs=()
    for v in "${variants[@]}"; do
        csv=$out/$name-timeline-$v.csv
        "$analyze" timeline "$parent/$v" ${iters:+--iters "$iters"} -o "$csv" >/dev/null
        files+="$csv " titles+="$v " dirs+=("$parent/$v")
    done
    gp timeline.gp "$out/$name-timeline" "files='${files% }'; titles='${titles% }'"
    "$analyze" breakdown "${dirs[@]}" --stack-csv "$out/$name-breakdown.csv" >/dev/null
    gp breakdown.gp "$out/$name-breakdown" "file='$out/$name-breakdown.csv'"
    rendered=$((rendered + 1))
done < <(find "$results" -name 'trace.rank0.csv' -printf '%h\n' | xargs -r -n1 dirname | sort -u)

while IFS= read -r res; do
    header=$(awk '!/^#/ {print; exit}' "$res")
    [[ ,$header, == *,variant,* && ,$header, == *,us_per_iter,* ]] || continue
    name=$(echo "${res#"$results"}" | sed 's|^/||; s|/results.csv$||; s|/|-|g; s|\.csv$||')
    for col in ring_bytes allreduce_bytes daxpy_bytes; do
        [[ ,$header, == *,$col,* ]] || continue
        distinct=$(awk -F, -v c="$col" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k}' "$res" | sort -u | wc -l)
        [[ $distinct -ge 3 ]] || continue
        echo "render-plots.sh: $res sweeps $col ($distinct sizes)"
        mkdir -p "$out"
        "$analyze" sweep "$res" --x "$col" --csv "$out/$name-sweep-$col.csv" >/dev/null
        gp sweep.gp "$out/$name-sweep-$col" "file='$out/$name-sweep-$col.csv'; xcol='$col'"
        rendered=$((rendered + 1))
    done
done < <(find "$results" -name '*.csv' ! -name 'trace.rank*.csv' | sort)

if [[ $rendered -eq 0 ]]; then
    echo "render-plots.sh: nothing to plot under $results (no traced runs, no size sweeps)"
fi
