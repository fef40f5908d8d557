# Sourced (no `set` of its own: the caller's options hold) by the scripts
# that run a step under a time limit (bench-run.sh's users, bench-fdtd.sh,
# bench-cpml.sh, demo-solver.sh):
#
#   bounded SECONDS CMD [ARGS...]     # timeout SECONDS CMD ARGS; its status
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
