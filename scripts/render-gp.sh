# Sourced by the render scripts and demo.sh (no `set` of its own): one figure drawn by
# gnuplot, PNG then PDF, each under a temporary name renamed when whole.
# gnuplot runs in the background and is waited for, so that a Ctrl-C
# reaches the caller's trap at once: gnuplot 5.4's own SIGINT handler can
# hang inside cairo with SIGINT blocked, and `make plots` hung there, a
# second Ctrl-C doing nothing.
#   . "$here/scripts/render-gp.sh"
#   trap 'render_gp_end; ...' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
#   render_gp PROG GNUPLOT SCRIPT BASE ASSIGNMENTS   (writes BASE.png, BASE.pdf)
# A figure gnuplot cannot draw is one line naming it and gnuplot's last
# line, exit 1; gnuplot's warnings of a figure drawn go to stderr.
render_gp_drawing="" render_gp_pid=""
render_gp_log=$(mktemp "${TMPDIR:-/tmp}/render-gp.log.XXXXXX")

# For the caller's EXIT trap: gnuplot ended, its part figure and log removed.
render_gp_end() {
    [[ -z $render_gp_pid ]] || kill -TERM "$render_gp_pid" 2>/dev/null
    rm -f -- "$render_gp_drawing" "$render_gp_log"
}

render_gp() {
    local prog=$1 gnuplot=$2 script=$3 base=$4 assign=$5 ext log rc
    for ext in png pdf; do
        render_gp_drawing=$base.part$$.$ext
        "$gnuplot" -e "$assign; out='$render_gp_drawing'" "$script" >"$render_gp_log" 2>&1 </dev/null &
        render_gp_pid=$!
        rc=0
        wait "$render_gp_pid" || rc=$?
        render_gp_pid=""
        log=$(cat -- "$render_gp_log")
        if [[ $rc -ne 0 ]]; then
            echo "$prog: gnuplot could not draw $base.$ext (${script##*/}): $(printf '%s\n' "$log" | awk 'NF { l = $0 } END { print l }')" >&2
            exit 1
        fi
        [[ -z $log ]] || printf '%s\n' "$log" >&2
        mv -f -- "$render_gp_drawing" "$base.$ext"
        render_gp_drawing=""
    done
}
