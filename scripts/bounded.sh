# Sourced (no `set` of its own: the caller's options hold) by the scripts
# that run a step under a time limit (bench-run.sh's users, bench-fdtd.sh,
# bench-cpml.sh, demo-solver.sh):
#
#   bounded SECONDS CMD [ARGS...]     # timeout SECONDS CMD ARGS; its status
#   bounded_step SECONDS CMD [ARGS...] # the same into $log, a failure said
#
# GNU timeout runs CMD in a process group of its own, which a terminal's ^C
# (SIGINT to the foreground group) misses: the step ran on to its end and
# the script went on to the next one (bench-cpml.sh started four steps
# after one ^C). `timeout --foreground` would stay in the terminal's group
# but then kills only CMD, not the children it started, at the limit. So
# the step runs in the background and the script waits for it: a SIGINT or
# SIGTERM to the script is passed to timeout (which passes it to CMD's
# group), the step is waited for, and then the script gets the signal
# again, its own trap (or bash's default) seeing it as before: exit 130 or
# 143 after what that trap leaves.
bounded() {
    local bounded_pid="" bounded_sig="" bounded_rc=0 bounded_traps
    bounded_traps=$(trap -p INT TERM)
    # the trap passes the signal on itself: one that comes before `wait`
    # begins would not cut it short
    trap 'bounded_sig=INT; [ -z "$bounded_pid" ] || kill -s INT "$bounded_pid" 2>/dev/null' INT
    trap 'bounded_sig=TERM; [ -z "$bounded_pid" ] || kill -s TERM "$bounded_pid" 2>/dev/null' TERM
    timeout "$@" &
    bounded_pid=$!
    [ -z "$bounded_sig" ] || kill -s "$bounded_sig" "$bounded_pid" 2>/dev/null
    wait "$bounded_pid" || bounded_rc=$?
    # a wait cut short by the signal: the step is still ending
    while kill -0 "$bounded_pid" 2>/dev/null; do wait "$bounded_pid" 2>/dev/null || true; done
    trap - INT TERM
    eval "$bounded_traps"
    [ -z "$bounded_sig" ] || kill -s "$bounded_sig" $$
    return "$bounded_rc"
}

# bounded_step LIMIT_S CMD [ARGS...]: one step of a benchmark into the
# caller's $log, said with the caller's say(); a failure is said with the
# program's own error line ("exit 1: trilap-fdtd: ...", "timed out (limit
# 60s)"; before, "failed or timed out" whatever the cause) and returns 1
# (bench-fdtd.sh and bench-cpml.sh had a copy each)
bounded_step() {
    local lim=$1 n rc=0 why
    shift
    say "\$ $*"
    # shellcheck disable=SC2154 # log: the caller's
    n=$(wc -l <"$log")
    bounded "$lim" "$@" >>"$log" 2>&1 || rc=$?
    [ "$rc" != 0 ] || return 0
    if [ "$rc" = 124 ]; then
        say "  -> timed out (limit ${lim}s)"
    else
        # a note before it is not why (the folders a run made are said in one)
        why=$(tail -n +"$((n + 1))" "$log" | awk '/^trilap-/ && !/^trilap-[a-z]+: note: / { print; exit }') || true
        say "  -> exit $rc${why:+: $why}"
    fi
    return 1
}
