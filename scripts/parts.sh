# Sourced by the scripts that write results or figures, no `set` of its own:
# files written under temporary names beside their final ones and
# renamed together once all are whole, so that a failed or interrupted
# run (a full disk, an awk that fails, ^C, a kill) leaves no cut file
# under a final name, and an earlier run's files as they were.
#
#   . "$here/scripts/parts.sh"
#   trap parts_drop EXIT          (or from the caller's own EXIT trap)
#   parts_stage VAR FILE          VAR := FILE's temporary name: NAME.part<pid>.EXT
#                                 in FILE's folder (the ending kept: gnuplot
#                                 picks a figure's format from it)
#   parts_commit                  every staged file renamed to its final name
#   parts_drop                    every staged file not yet renamed removed
#
# A run killed outright (SIGKILL) leaves its NAME.part<pid>.EXT files, never
# a cut FILE. Used by bench-fdtd.sh, bench-cpml.sh, bench-cpml-trees.sh,
# bench-kineto.sh, render-roof-summary.sh and render-gp.sh (bench-fdtd.sh and
# render-roof-summary.sh had one copy each, bench-cpml.sh none: a run
# killed while writing cpml.csv or table.txt left them cut).
parts_staged=() parts_finals=()

parts_stage() { # (no locals: VAR may be the caller's local of any name)
    if [[ ${2##*/} == ?*.* ]]; then
        parts_staged+=("${2%.*}.part$$.${2##*.}")
    else
        parts_staged+=("$2.part$$")
    fi
    parts_finals+=("$2")
    printf -v "$1" '%s' "${parts_staged[-1]}"
}

parts_commit() {
    local i
    for i in "${!parts_staged[@]}"; do
        mv -f -- "${parts_staged[i]}" "${parts_finals[i]}"
    done
    parts_staged=() parts_finals=()
}

parts_drop() {
    [[ ${#parts_staged[@]} -eq 0 ]] || rm -f -- "${parts_staged[@]}"
    parts_staged=() parts_finals=()
}
