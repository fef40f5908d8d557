# Sourced by the render scripts and demo.sh (no `set` of its own): one figure drawn by
# gnuplot, PNG then PDF, and the files drawn with it, each under a
# temporary name in its own folder (NAME.part<pid>.EXT), all renamed when
# the figure is whole: an interrupted or failed render (Ctrl-C, a gnuplot
# failure, a full disk) leaves no file, whole or cut, under a final name.
# gnuplot runs in the background and is waited for, so that a Ctrl-C
# reaches the caller's trap at once: gnuplot 5.4's own SIGINT handler can
# hang inside cairo with SIGINT blocked, and `make plots` hung there, a
# second Ctrl-C doing nothing.
#   . "$here/scripts/render-gp.sh"
#   trap 'render_gp_end; ...' EXIT; trap 'exit 130' INT; trap 'exit 143' TERM
#   render_gp_stage VAR FILE   (VAR: the temporary name to write FILE under)
#   render_gp PROG GNUPLOT SCRIPT BASE ASSIGNMENTS   (writes BASE.png, BASE.pdf,
#                                                     then renames what was staged)
#   render_gp_commit           (renames what was staged, without a figure)
#   render_gp_lock FILE [WAIT] || ... (held until render_gp_unlock or the end;
#                               1 after WAIT seconds, a whole number the
#                               caller checked, else TL_RENDER_LOCK_WAIT, 300)
# gp_staged=1 tells the script that `out` is a temporary name already
# (plots/common.gp stages a figure run by hand itself, and its own
# temporary would be left beside ours by a failure).
# render_gp_tmp is a folder of this run's scratch files (removed by
# render_gp_end). A figure gnuplot cannot draw is one line naming it and
# gnuplot's last line, exit 1; gnuplot's warnings of a figure drawn go to stderr.
# the staging of parts.sh: render_gp_stage is parts_stage, render_gp_commit parts_commit
. "${BASH_SOURCE[0]%/*}/parts.sh"
render_gp_pid=""
render_gp_tmp=$(mktemp -d "${TMPDIR:-/tmp}/render-gp.XXXXXX")
render_gp_lock_fd="" render_gp_lock_dir="" render_gp_locked=""

# For the caller's EXIT trap: gnuplot ended, the staged files and scratch removed.
render_gp_end() {
    [[ -z $render_gp_pid ]] || kill -TERM "$render_gp_pid" 2>/dev/null
    parts_drop
    rm -rf -- "$render_gp_tmp"
    render_gp_unlock
}

# The lock FILE, shared by renders into one folder (their read, check and
# rewrite of a file there one at a time): flock(1) on FILE, the lock going
# with the process however it ends; where flock is missing, mkdir of
# FILE.d holding "host pid", broken when that process is gone. Taken
# again while held, it returns at once. 1 when another holder keeps it
# WAIT seconds (TL_RENDER_LOCK_WAIT, 300).
render_gp_lock() {
    local wait=${2:-${TL_RENDER_LOCK_WAIT:-300}} i owner
    [[ -z $render_gp_locked ]] || return 0
    if command -v flock >/dev/null 2>&1; then
        [[ -n $render_gp_lock_fd ]] || exec {render_gp_lock_fd}>>"$1"
        flock -w "$wait" "$render_gp_lock_fd" || return 1
    else
        for ((i = 0; ; i++)); do
            mkdir -- "$1.d" 2>/dev/null && break
            owner=$(cat -- "$1.d/owner" 2>/dev/null) || owner=""
            # a holder of this host that is gone (killed) left it: broken,
            # but only while it still names that holder (between the read
            # and here the holder may have ended its lock and exited, and
            # another taken it, its owner line not yet written: in a CI
            # run of 16da729 that line went into a removed folder)
            if [[ $owner == "$HOSTNAME "* ]] && ! kill -0 "${owner#* }" 2>/dev/null &&
                ! ps -p "${owner#* }" >/dev/null 2>&1; then
                [[ $(cat -- "$1.d/owner" 2>/dev/null) != "$owner" ]] || rm -rf -- "$1.d"
                continue
            fi
            ((i < wait * 10)) || return 1
            sleep 0.1
        done
        echo "$HOSTNAME $$" >"$1.d/owner"
        render_gp_lock_dir=$1.d
    fi
    render_gp_locked=1
}

render_gp_unlock() {
    [[ -n $render_gp_locked ]] || return 0
    if [[ -n $render_gp_lock_dir ]]; then
        rm -rf -- "$render_gp_lock_dir"
        render_gp_lock_dir=""
    else
        flock -u "$render_gp_lock_fd"
    fi
    render_gp_locked=""
}

# VAR := the temporary name of FILE, beside it, renamed to FILE by the
# next render_gp
render_gp_stage() { parts_stage "$@"; }

render_gp() {
    local prog=$1 gnuplot=$2 script=$3 base=$4 assign=$5 ext log rc part
    for ext in png pdf; do
        render_gp_stage part "$base.$ext"
        "$gnuplot" -e "$assign; gp_staged=1; out='$part'" "$script" >"$render_gp_tmp/log" 2>&1 </dev/null &
        render_gp_pid=$!
        rc=0
        wait "$render_gp_pid" || rc=$?
        render_gp_pid=""
        log=$(cat -- "$render_gp_tmp/log")
        if [[ $rc -ne 0 ]]; then
            echo "$prog: gnuplot could not draw $base.$ext (${script##*/}): $(printf '%s\n' "$log" | awk 'NF { l = $0 } END { print l }')" >&2
            exit 1
        fi
        [[ -z $log ]] || printf '%s\n' "$log" >&2
    done
    # the figure is whole: what was drawn with it takes its final names
    render_gp_commit
}

# Every staged file renamed to its final name (render_gp calls it; a caller
# writing a file with no figure, too).
render_gp_commit() { parts_commit; }
