#!/usr/bin/env bash
# Renders the trilap figures (PNG and PDF) from CSV with gnuplot only:
#   scripts/render-plots.sh [--results DIR] [--out DIR] [--iter-range A:B] [--all]
# For every folder under DIR that holds traced runs (<folder>/<variant>/trace.rank*.csv,
# or gzipped, trace.rank*.csv.gz, where <folder> holds a three-stream results CSV):
#   <name>-timeline.{png,pdf}   Fig. 2-style timelines of the variants side by side
#   <name>-breakdown.{png,pdf}  stacked kernel-time bars per variant and GPU count
#   <name>-timeline-parts.{png,pdf} the single-operation variants (allreduce-only, ...)
# For every results CSV of the three-stream microbenchmark (variant, us_per_iter):
#   <name>-sweep-<column>.{png,pdf}  when it sweeps a size (ring_bytes, allreduce_bytes,
#                                    daxpy_bytes): time per iteration vs size, ideal bound
#   <name>-variants.{png,pdf}        otherwise: median time per variant (min..max), one
#                                    group per configuration (knob columns that differ)
# For NCCL size sweeps (op, comm, size_bytes, time_us): <name>.{png,pdf} log-log
# For STREAM results (function, bandwidth_gbs): <name>.{png,pdf} bandwidth bars
# The CSV these plots read is written beside them, so a figure can be redrawn
# with plots/*.gp alone. `make plots` runs this on results/ (plots/README.md).
# <name>: the source's path, / as -, below the trilap tree's results/ when
# --results is inside it (the names make plots gives), else below --results;
# sources.txt in --out lists each figure drawn there and its source;
# renders into one --out at once take turns at it (.sources.lock there,
# flock or a mkdir lock; after TL_RENDER_LOCK_WAIT seconds, 300, exit 1;
# whole seconds from 0 to 86400, another value refused, exit 2).
# Defaults: --results and --out the trilap tree's results/ and plots/out,
# from whatever folder it runs; --iter-range: the timelines' iterations
# (trilap-analyze timeline --iter-range; --iters, its old name, still
# works for one release). Skipped with a note: an empty CSV, a results CSV without rows,
# a source with a quote in its path, one whose figure name an earlier source
# took (in this run, or in one before into the same --out, that source still there); rows appended by commands of several commits (manifest.txt's
# blocks) are drawn together, said; rows whose run failed its own check (wrong > 0) or whose measured
# cell is no number ('-', NaN) are left out, said; a folder of runs traced
# without a GPU kernel (host ranks) gets no breakdown, said.
# Check runs are left out, said in one line: the folders of DIR named
# wave3-checks-*, device-session-* and device-logs (device sessions that
# re-ran the tests and benchmarks; their charts, a STREAM one per
# stream.csv, were 1,300 of the 1,629 files and most of the 6 min 25 s of
# `make plots`); --all renders them too, and a --results inside one (an
# explicit --results results/wave3-checks-h200) renders it whole.
# Each figure and its CSV are written under temporary names and renamed
# together when whole: a figure gnuplot cannot draw is one line, exit 1,
# nothing of it under a final name; Ctrl-C ends gnuplot and removes the
# part files (exit 130). TL_GNUPLOT names another
# gnuplot (make plots passes the one make found), TL_BIN the folder of
# trilap-analyze [bin].
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

results=""
out=""
iters=""
all=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --results|--out|--iter-range|--iters)
            [[ $# -ge 2 && -n $2 ]] || { echo "render-plots.sh: $1 needs a value (try --help)" >&2; exit 2; } ;;
    esac
    case "$1" in
        --results) results=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --iters|--iter-range)
            # one vocabulary (README): --iters counts iterations, a window is --iter-range
            [[ $2 =~ ^[0-9]*:[0-9]*$ && $2 != : ]] ||
                { echo "render-plots.sh: invalid $1 '$2': expected A:B, A: or :B (try --help)" >&2; exit 2; }
            [[ $1 == --iter-range ]] ||
                echo "render-plots.sh: note: --iters is now --iter-range; the old name will be removed in the next release" >&2
            iters=$2; shift 2 ;;
        --all) all=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "render-plots.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
# the lock's wait is checked with the command line, before --out is made:
# 'abc' and '-1' were flock's own line, then "another render into it has
# held ... for abc s", exit 1; '1e9' a wait of 31 years (flock reads it
# as a number; the mkdir lock's arithmetic, bash's error)
lock_wait=${TL_RENDER_LOCK_WAIT:-300}
[[ $lock_wait =~ ^[0-9]{1,5}$ ]] && ((10#$lock_wait <= 86400)) || {
    echo "render-plots.sh: invalid TL_RENDER_LOCK_WAIT '$lock_wait': whole seconds from 0 to 86400 (try --help)" >&2
    exit 2
}
lock_wait=$((10#$lock_wait)) # 010 is ten seconds, not octal eight
here=$(cd "$(dirname "$0")/.." && pwd)
results=${results:-$here/results}
[[ $results == / ]] || results=${results%/} # find's paths, which -path matches, have no //
out=${out:-$here/plots/out}
for arg in "$results" "$out"; do
    # gnuplot takes every path inside a quoted string
    [[ $arg != *[\'\"]* ]] || { echo "render-plots.sh: '$arg': gnuplot cannot take a path with a quote in it; choose another folder" >&2; exit 2; }
done
bin=${TL_BIN:-$here/bin}
analyze=$bin/trilap-analyze
plots=$here/plots
gnuplot=${TL_GNUPLOT:-gnuplot} # another gnuplot, as demo.sh takes it (make plots passes the one make found)
command -v "$gnuplot" >/dev/null || { echo "render-plots.sh: $gnuplot not found (install gnuplot-nox, or set TL_GNUPLOT)" >&2; exit 1; }
[[ -x $analyze ]] || { echo "render-plots.sh: $analyze not built (run make)" >&2; exit 1; }
[[ -d $results ]] || { echo "render-plots.sh: no results folder $results" >&2; exit 1; }
# --out is made now, so that a place it cannot be made (a file in the way,
# /proc, a read-only disk) is said before anything is drawn (it was mkdir's
# own message after the first figures); the folders made here are removed
# again, when left empty, on the way out
made_from="" # the highest folder this run made
if [[ -e $out && ! -d $out ]]; then
    echo "render-plots.sh: --out $out: a file, not a folder; give a folder" >&2; exit 1
elif [[ ! -e $out ]]; then
    d=$out
    while [[ ! -e $d ]]; do made_from=$d; d=$(dirname "$d"); done
    [[ -d $d ]] || { echo "render-plots.sh: --out $out: $d is a file, not a folder; give a folder" >&2; exit 1; }
    why=$(mkdir -p -- "$out" 2>&1) || { echo "render-plots.sh: --out $out: cannot be made (${why##*: })" >&2; exit 1; }
fi
[[ -w $out ]] || { echo "render-plots.sh: --out $out: not writable" >&2; exit 1; }
# a figure and the CSV beside it are written under temporary names and
# renamed when the figure is whole; those left by a failure or a signal are
# removed
. "$here/scripts/render-gp.sh"
trap 'render_gp_end
      if [[ -n $made_from && -d $made_from ]]; then
          # the lock file alone is no drawing: an --out made for nothing goes
          [[ $(ls -A -- "$out") != .sources.lock ]] || rm -f -- "$out/.sources.lock"
          find "$made_from" -depth -type d -empty -delete
      fi' EXIT
# Ctrl-C or a kill: gnuplot ended and the part files removed (above);
# 130 and 143 as a shell says a command ended by SIGINT or SIGTERM
trap 'exit 130' INT
trap 'exit 143' TERM

# variants in the order of the paper's figures, others after them
order_variants() {
    local d v listed=" "
    for v in two-stream three-naive three-split; do
        [[ -f $1/$v/trace.rank0.csv || -f $1/$v/trace.rank0.csv.gz ]] && { printf '%s\n' "$v"; listed+="$v "; }
    done
    for d in "$1"/*/; do
        v=$(basename "$d")
        [[ (-f $d/trace.rank0.csv || -f $d/trace.rank0.csv.gz) && $listed != *" $v "* ]] && printf '%s\n' "$v"
    done
    return 0
}

gp() { # script, output base, gnuplot assignments
    render_gp render-plots.sh "$gnuplot" "$plots/$1" "$2" "$3"
    record "${2##*/}"
    echo "  $2.png, $2.pdf"
}

# gnuplot takes every path inside a quoted string: a run folder or results
# file with a quote in its name is skipped, said once, and the rest drawn
# (it stopped the whole rendering on gnuplot's "unexpected or unrecognized
# token")
has_quote() { [[ $1 == *[\'\"]* ]]; }
skip_quoted() { echo "render-plots.sh: $1: gnuplot cannot take a path with a quote in it; skipped (rename it)" >&2; }

# Figures are named from their source's path (a/b/results.csv -> a-b-...)
# below the trilap tree's results/ when --results is inside it, so that
# --results results/a/x and results/b/x draw a-x-... and b-x-..., the names
# make plots gives them (both drew x-..., the second over the first);
# below --results otherwise.
# (cd && pwd -P rather than GNU readlink -f: macOS's readlink had no -f
# before 12.3, and make plots runs on laptops)
real_path() { (cd -- "$(dirname -- "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename -- "$1")"); }
results_root=$(cd -- "$here/results" && pwd -P)
below_root=$(cd -- "$results" && pwd -P)
case $below_root in
    "$results_root"/*) below_root=${below_root#"$results_root/"}/ ;;
    *) below_root="" ;;
esac
fig_name() { # source path -> figure name
    local rel=${1#"$results"}
    rel=$below_root${rel#/}
    rel=${rel%/}
    [[ -n $rel ]] || rel=$(basename -- "$1")
    [[ -d $1 ]] || rel=$(sed 's|/results[.]csv$||; s|[.]csv$||' <<<"$rel")
    printf '%s\n' "${rel//\//-}"
}

# Two sources can still map to one name (a-b/x.csv and a/b-x.csv; folders
# outside results/ of one base name given in two runs): the second
# replaced the first's figure and CSV without a word. The first keeps it;
# the second is skipped, said once. Across runs, sources.txt in --out names
# the source of each figure drawn there; a figure whose source is gone is
# drawn over.
# Two renders into one --out at once check and rewrite sources.txt one at
# a time, under .sources.lock there (render_gp_lock), held from the check
# of a figure name until its entry is written: before, both could pass the
# check and draw one name, and the later rename of sources.txt dropped the
# other's entries.
declare -A made_by=()
index=$out/sources.txt
claimed="" # the source of the figures drawn next, as sources.txt names it
index_lock() {
    render_gp_lock "$out/.sources.lock" "$lock_wait" || {
        echo "render-plots.sh: --out $out: another render into it has held $out/.sources.lock for" \
            "$lock_wait s (TL_RENDER_LOCK_WAIT); try again when it ends" >&2
        exit 1
    }
}
claim() { # figure base name, source
    local prev=""
    if [[ -n ${made_by[$1]:-} && ${made_by[$1]} != "$2" ]]; then
        echo "render-plots.sh: $2: its figure would be $1, as that of ${made_by[$1]}; skipped (rename one)" >&2
        return 1
    fi
    claimed=$(real_path "$2")
    index_lock
    [[ ! -f $index ]] || prev=$(awk -F'\t' -v n="$1" '$1 == n { s = $2 } END { print s }' "$index")
    if [[ -n $prev && $prev != "$claimed" && -e $prev && (-e $out/$1.png || -e $out/$1.pdf) ]]; then
        render_gp_unlock
        echo "render-plots.sh: $2: its figure would be $1, as that of $prev, drawn into $out before" \
            "($index); skipped (remove $out/$1.*, or give another --out)" >&2
        return 1
    fi
    made_by[$1]=$2
}
# a figure drawn: its source into sources.txt, written whole
record() { # figure base name
    local part
    index_lock
    render_gp_stage part "$index"
    { if [[ -f $index ]]; then awk -F'\t' -v n="$1" '$1 != n' "$index"
      else printf '# figure\tsource (scripts/render-plots.sh)\n'; fi
      printf '%s\t%s\n' "$1" "$claimed"; } > "$part"
    render_gp_commit
    render_gp_unlock
}

# a results CSV holds rows beyond its header (an interrupted run leaves the
# header alone, and gnuplot fails on a file with no points)
has_rows() { awk '!/^#/ && NF { if (++n > 1) exit } END { exit n < 2 }' "$1"; }

# the rows of a results CSV as RFC 4180 reads them, one tab between cells:
# tristream quotes its environment values, so a comma inside quotes is not
# a column (awk -F, read `"a,b"` as two, and the knob labels after it wrong)
csv_cells() { awk -f "$here/scripts/csv.awk" -f "$here/scripts/csv-tabs.awk" "$1"; }
# The commits whose commands appended rows to a results file, one per line,
# from the blocks of the manifest.txt beside it (results: NAME, git_commit:)
results_commits() {
    local m
    m="$(dirname -- "$1")/manifest.txt"
    [[ -f $m ]] || return 0
    awk -v name="$(basename -- "$1")" 'BEGIN { RS = "" }
        { c = ""; mine = 0; n = split($0, l, "\n")
          for (i = 1; i <= n; i++) { if (l[i] == "results: " name) mine = 1
                                     if (l[i] ~ /^git_commit: /) c = substr(l[i], 13) }
          if (mine && c != "" && !seen[c]++) print c }' "$m"
}

# ", on 2 × NVIDIA H200": the GPUs of the first of the folders given that
# has a manifest.txt (its gpu.rank<N> lines, host ranks left out), for a
# measured figure's title, which named only its source's path; nothing
# where no manifest names a GPU
hardware_of() {
    local d
    for d in "$@"; do
        [[ -f $d/manifest.txt ]] || continue
        # a tab of its own: \t in a replacement is GNU sed's alone
        sed -n 's/^gpu\.rank\([0-9]*\): \([^(]*[^ (]\).*/\1'$'\t''\2/p' "$d/manifest.txt" | tr -d "'\"" | sort -u |
            awk -F'\t' '$2 != "none" { if (!($2 in n)) o[++k] = $2; n[$2]++ }
                END { for (i = 1; i <= k; i++) s = s (i > 1 ? " + " : ", on ") (n[o[i]] > 1 ? n[o[i]] " × " : "") o[i]; printf "%s", s }'
        return 0
    done
}
is_tristream() { local h; h=$(awk '!/^#/ {print; exit}' "$1"); [[ ,$h, == *,variant,* && ,$h, == *,us_per_iter,* ]]; }

# committed runs keep their traces gzipped (results/README.md), and
# trilap-analyze reads them so; of those, the three-stream runs (a results CSV
# beside the variants) are rendered: the figure families of results/figures,
# not every traced solver or FDTD run. A folder of plain traces (a fresh run) always is.
tristream_run() { local f; for f in "$1/tristream.csv" "$1/results.csv"; do [[ -f $f ]] && is_tristream "$f" && return 0; done; return 1; }

# the check runs' folders (--help), pruned from both finds below unless --all
check_runs=('wave3-checks-*' 'device-session-*' 'device-logs')
prune=()
if [[ $all == 0 ]]; then
    skipped=()
    for g in "${check_runs[@]}"; do
        for d in "$results"/$g; do
            if [[ -d $d ]]; then skipped+=("${d##*/}"); fi
        done
        prune+=(${prune[0]+-o} -path "$results/$g")
    done
    prune=(\( "${prune[@]}" \) -prune -o)
    [[ ${#skipped[@]} -eq 0 ]] ||
        echo "render-plots.sh: ${#skipped[@]} folder(s) of check runs left out (${skipped[*]}); --all renders them" >&2
fi

rendered=0
while IFS= read -r parent; do
    name=$(fig_name "$parent")
    [[ -n $(find "$parent" -mindepth 2 -maxdepth 2 -name trace.rank0.csv) ]] || tristream_run "$parent" || continue
    if has_quote "$parent"; then skip_quoted "$parent"; continue; fi
    variants=()
    while IFS= read -r v; do
        if has_quote "$v"; then skip_quoted "$parent/$v"; else variants+=("$v"); fi
    done < <(order_variants "$parent")
    [[ ${#variants[@]} -gt 0 ]] || continue
    claim "$name-timeline" "$parent" || continue
    echo "render-plots.sh: $parent (${variants[*]})"
    mkdir -p "$out"
    dirs=()
    for v in "${variants[@]}"; do dirs+=("$parent/$v"); done
    # the schedules side by side; the single-operation variants in a figure of their own
    for group in schedules parts; do
        files="" titles=""
        for v in "${variants[@]}"; do
            case $v in two-stream|three-naive|three-split) [[ $group == schedules ]] || continue ;;
                       *) [[ $group == parts ]] || continue ;; esac
            render_gp_stage csv "$out/$name-timeline-$v.csv"
            "$analyze" timeline "$parent/$v" ${iters:+--iter-range "$iters"} -o "$csv" >/dev/null
            files+="\"$csv\" " titles+="$v "
        done
        [[ -n $files ]] || continue
        base=$out/$name-timeline
        [[ $group == parts && ${#variants[@]} -gt $(wc -w <<<"$titles") ]] && base+=-parts
        gp timeline.gp "$base" "files='${files% }'; titles='${titles% }'; subtitle='$parent$(hardware_of "$parent" "$parent/${variants[0]}")'"
    done
    stack=$render_gp_tmp/stack.csv
    "$analyze" breakdown "${dirs[@]}" --stack-csv "$stack" >/dev/null
    # traces with nothing to stack (no GPU kernel, and no host compute or
    # communication ranges, which a host-backend rank's breakdown stacks):
    # said, and the next folder drawn (breakdown.gp stopped the whole
    # rendering, "invalid expression")
    if ! awk -F, '/^#/ {next} !h {h = 1; next} {for (i = 5; i <= NF; i++) if ($i + 0 > 0) found = 1} END {exit !found}' \
            "$stack"; then
        echo "render-plots.sh: $parent: nothing to stack in its traces (no GPU kernel, no host compute or communication range); no breakdown drawn" >&2
        rendered=$((rendered + 1))
        continue
    fi
    render_gp_stage csv "$out/$name-breakdown.csv"
    # the untraced median of the same run as a second marker, where the run has one
    has_timed=0
    for f in "$parent/tristream.csv" "$parent/results.csv"; do
        [[ -f $f ]] && is_tristream "$f" && has_rows "$f" || continue
        "$analyze" compare "$f" --csv "$render_gp_tmp/timed.csv" >/dev/null
        awk -F, -f "$here/scripts/timed-column.awk" "$render_gp_tmp/timed.csv" "$stack" > "$csv"
        has_timed=1
        break
    done
    [[ $has_timed == 1 ]] || cp -- "$stack" "$csv"
    gp breakdown.gp "$out/$name-breakdown" "file='$csv'; timed=$has_timed"
    rendered=$((rendered + 1))
done < <(find "$results" ${prune[@]+"${prune[@]}"} \( -name 'trace.rank0.csv' -o -name 'trace.rank0.csv.gz' \) -print |
    while IFS= read -r f; do dirname -- "$(dirname -- "$f")"; done | sort -u)

# median, min and max of us_per_iter per (configuration, variant) of a
# tristream results CSV -> label,<variant>,<variant>_min,<variant>_max,...
# (bars.gp input). A configuration is the knob columns that differ from the
# first row ("conn=32+blocks=528"); with none, the label is $1. Prints the
# variants it wrote to stderr, the schedules only when there are several
# configurations.
variant_table() {
    csv_cells "$2" | awk -F'\t' -v label="$1" -v order="two-stream three-naive three-split allreduce-only ring-only daxpy-only" '
        BEGIN { nk = split("priorities split_max_ctas split_min_ctas daxpy_blocks cuda_device_max_connections nccl_launch_mode trace_mode", kc, " ")
                split("prio max_ctas min_ctas blocks conn launch trace", ks, " ") }
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { if (!base_set) { for (j = 1; j <= nk; j++) if (kc[j] in c) base[j] = $c[kc[j]]; base_set = 1 }
          g = ""
          for (j = 1; j <= nk; j++) if ((kc[j] in c) && $c[kc[j]] != base[j]) { g = g (g == "" ? "" : "+") ks[j] "=" $c[kc[j]]; vary[j] = 1 }
          # gnuplot cuts a tic label at a comma, quoted or not
          gsub(/,/, ";", g)
          if (g == "") g = label
          if (!(g in seen)) { seen[g] = 1; groups[++ng] = g }
          k = g SUBSEP $c["variant"]; n[k]++; x[k, n[k]] = $c["us_per_iter"] + 0; has[$c["variant"]] = 1 }
        END {
            nv = split(order, o, " "); line = "label"
            for (j = 1; j <= nv; j++) if ((o[j] in has) && (ng == 1 || j <= 3)) { vs[++m] = o[j]; line = line "," o[j] "," o[j] "_min," o[j] "_max" }
            if (!m) for (j = 1; j <= nv; j++) if (o[j] in has) { vs[++m] = o[j]; line = line "," o[j] "," o[j] "_min," o[j] "_max" }
            print line
            # the configuration of the first row: "base", or its value when one knob varies
            bname = label
            if (ng > 1) { nvary = 0; for (j in vary) { nvary++; jv = j }; bname = nvary == 1 ? ks[jv] "=" base[jv] : "base" }
            for (gi = 1; gi <= ng; gi++) {
                line = groups[gi] == label ? bname : groups[gi]
                for (j = 1; j <= m; j++) {
                    k = groups[gi] SUBSEP vs[j]; cnt = n[k]
                    if (!cnt) { line = line ",NaN,NaN,NaN"; continue }
                    for (a = 1; a <= cnt; a++) v[a] = x[k, a]
                    for (a = 2; a <= cnt; a++) { t = v[a]; b = a - 1; while (b > 0 && v[b] > t) { v[b + 1] = v[b]; b-- }; v[b + 1] = t }
                    med = cnt % 2 ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
                    line = line "," med "," v[1] "," v[cnt]
                }
                print line
            }
            for (j = 1; j <= m; j++) printf "%s ", vs[j] > "/dev/stderr"
        }'
}

# a results row as a figure takes it (awk, on its cells one tab apart):
# kind() 0 drawn, 1 its run failed its own check (wrong > 0), 2 its
# measured cell (column m) is no number ('-', NaN, empty); head() reads the
# header row
row_kind='function head() { for (i = 1; i <= NF; i++) { if ($i == "wrong") w = i; if ($i == m) c = i }; h = 1 }
    function kind() { if (w && $w + 0 > 0) return 1
                      return $c ~ /^ *[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)? *$/ ? 0 : 2 }
'
while IFS= read -r res; do
    # a results file cut to nothing (a run killed before its header, a
    # full disk) was passed over without a word, as a CSV of another kind
    if [[ ! -s $res ]]; then
        echo "render-plots.sh: $res: an empty file; skipped" >&2
        continue
    fi
    header=$(awk '!/^#/ {print; exit}' "$res")
    name=$(fig_name "$res")
    if [[ (,$header, == *,op,* && ,$header, == *,size_bytes,* && ,$header, == *,time_us,*) ||
          (,$header, == *,function,* && ,$header, == *,bandwidth_gbs,*) ||
          (,$header, == *,variant,* && ,$header, == *,us_per_iter,*) ]] && ! has_rows "$res"; then
        echo "render-plots.sh: $res: a header without rows; skipped" >&2
        continue
    fi
    if [[ (,$header, == *,op,* && ,$header, == *,size_bytes,* && ,$header, == *,time_us,*) ||
          (,$header, == *,function,* && ,$header, == *,bandwidth_gbs,*) ||
          (,$header, == *,variant,* && ,$header, == *,us_per_iter,*) ]] && has_quote "$res"; then
        skip_quoted "$res"
        continue
    fi
    # the column a figure draws: no other file is drawn
    if [[ ,$header, == *,op,* && ,$header, == *,size_bytes,* && ,$header, == *,time_us,* ]]; then measure=time_us
    elif [[ ,$header, == *,function,* && ,$header, == *,bandwidth_gbs,* ]]; then measure=bandwidth_gbs
    elif [[ ,$header, == *,variant,* && ,$header, == *,us_per_iter,* ]]; then measure=us_per_iter
    else continue; fi
    # rows appended by commands of several commits are drawn together (one
    # median, one bar), said: a change between them is not a spread
    mapfile -t commits < <(results_commits "$res")
    [[ ${#commits[@]} -lt 2 ]] ||
        echo "render-plots.sh: $res: its rows come from ${#commits[@]} commits (${commits[*]}, manifest.txt), drawn" \
            "together; give each commit a results file of its own to compare them" >&2
    # a row whose run failed its own check (wrong > 0: the operations did not
    # give what they must) is no measurement, and neither is one whose
    # measured cell is no number ('-', NaN, empty: a failed run's row, or one
    # written by hand): awk read '-' as 0, a bar of 0 that pulled the median
    # down (70 and '-' drew 35), and gnuplot stopped on NaN ("No valid
    # points"). Drawn from the rows that remain, and said.
    read -r nbad nnan eg < <(csv_cells "$res" | awk -F'\t' -v m="$measure" "$row_kind"'
        /^#/ {next} !h {head(); next}
        { k = kind(); if (k == 1) nbad++; else if (k == 2 && !nnan++) eg = $c }
        END {print nbad + 0, nnan + 0, eg}')
    src=$res
    if [[ $nbad -gt 0 || $nnan -gt 0 ]]; then
        checked=$render_gp_tmp/checked.csv # the rows that passed
        paste -d $'\001' <(csv_cells "$res") "$res" |
            awk -F'\001' -v m="$measure" "$row_kind"'/^#/ {print $2; next} {raw = $2; FS = "\t"; $0 = $1; FS = "\001"}
                !h {head(); print raw; next} !kind() {print raw}' > "$checked"
        src=$checked
        if ! has_rows "$src"; then
            if [[ $nnan -eq 0 ]]; then
                echo "render-plots.sh: $res: every row failed its own check (wrong > 0); skipped" >&2
            elif [[ $nbad -eq 0 ]]; then
                echo "render-plots.sh: $res: no row has a number in $measure (one has '$eg'); skipped" >&2
            else
                echo "render-plots.sh: $res: no row passed its own check (wrong > 0) with a number in $measure; skipped" >&2
            fi
            continue
        fi
        [[ $nbad -eq 0 ]] ||
            echo "render-plots.sh: $res: drawn without the $nbad row(s) whose run failed its own check (wrong > 0)" >&2
        [[ $nnan -eq 0 ]] ||
            echo "render-plots.sh: $res: drawn without the $nnan row(s) whose $measure is not a number (one has '$eg')" >&2
    fi
    if [[ ,$header, == *,op,* && ,$header, == *,size_bytes,* && ,$header, == *,time_us,* ]]; then
        claim "$name" "$res" || continue
        echo "render-plots.sh: $res (NCCL time vs size)"
        mkdir -p "$out"
        # the rows drawn, beside the figure as every other figure's
        render_gp_stage csv "$out/$name.csv"
        cp -- "$src" "$csv"
        gp comm.gp "$out/$name" "file='$csv'; title='NCCL time per operation vs message size ($res$(hardware_of "$(dirname "$res")"))'"
        rendered=$((rendered + 1))
        continue
    fi
    if [[ ,$header, == *,function,* && ,$header, == *,bandwidth_gbs,* ]]; then
        claim "$name" "$res" || continue
        echo "render-plots.sh: $res (STREAM bandwidth)"
        mkdir -p "$out"
        # bandwidth from the min/max times where present (bytes / time)
        render_gp_stage csv "$out/$name.csv"
        csv_cells "$src" | awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; print "label,GB/s,GB/s_min,GB/s_max"; next}
            { b = $c["bandwidth_gbs"]; lo = b; hi = b
              if (("bytes" in c) && ("max_ms" in c) && $c["max_ms"] > 0) { lo = $c["bytes"] / ($c["max_ms"] * 1e6); hi = $c["bytes"] / ($c["min_ms"] * 1e6) }
              print $c["function"] " (rank " $c["rank"] ")," b "," lo "," hi }' > "$csv"
        # stream --host writes device "host" in every row: its loops measure
        # the host's memory, not a GPU's
        what='GPU memory bandwidth, STREAM kernels'
        if csv_cells "$src" | awk -F'\t' '/^#/ {next} !h {for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next}
                                         !("device" in c) || $c["device"] != "host" {exit 1}'; then
            what='host memory bandwidth, STREAM loops (OpenMP)'
        fi
        # bandwidth_gbs is bytes / the fastest call; the bar spans the slowest
        # to the fastest of the timed calls (the first is dropped)
        gp bars.gp "$out/$name" "file='$csv'; series='GB/s'; ylabel='GB/s (best call; slowest..fastest call)'; \
            title='$what ($res$(hardware_of "$(dirname "$res")"))'; width=800"
        rendered=$((rendered + 1))
        continue
    fi
    [[ ,$header, == *,variant,* && ,$header, == *,us_per_iter,* ]] || continue
    swept=0
    for col in ring_bytes allreduce_bytes daxpy_bytes; do
        [[ ,$header, == *,$col,* ]] || continue
        distinct=$(csv_cells "$src" | awk -F'\t' -v c="$col" '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == c) k = i; h = 1; next} {print $k}' | sort -u | wc -l)
        [[ $distinct -ge 3 ]] || continue
        swept=1
        claim "$name-sweep-$col" "$res" || continue
        echo "render-plots.sh: $res sweeps $col ($distinct sizes)"
        mkdir -p "$out"
        render_gp_stage csv "$out/$name-sweep-$col.csv"
        "$analyze" sweep "$src" --x "$col" --csv "$csv" >/dev/null
        gp sweep.gp "$out/$name-sweep-$col" "file='$csv'; xcol='$col'"
        rendered=$((rendered + 1))
    done
    # no sweep: the variants' medians per configuration (knob studies, trace modes)
    if [[ $swept -eq 0 ]] && claim "$name-variants" "$res"; then
        echo "render-plots.sh: $res (variants per configuration)"
        mkdir -p "$out"
        render_gp_stage csv "$out/$name-variants.csv"
        vs=$(variant_table "$(basename "$(dirname "$res")")" "$src" 2>&1 >"$csv")
        ngroups=$(($(wc -l <"$csv") - 1))
        gp bars.gp "$out/$name-variants" "file='$csv'; series='${vs% }'; \
            title='three-stream microbenchmark, untraced ($res$(hardware_of "$(dirname "$res")"))'; width=$((ngroups > 3 ? 1300 : 900))"
        rendered=$((rendered + 1))
    fi
done < <(find "$results" ${prune[@]+"${prune[@]}"} -name '*.csv' ! -name 'trace.rank*.csv' -print | sort)

if [[ $rendered -eq 0 ]]; then
    echo "render-plots.sh: nothing to plot under $results (no traced runs, no size sweeps)"
fi
