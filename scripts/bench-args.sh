# Sourced by bench-cg.sh, bench-op-timer.sh and bench-trace-overhead.sh
# solver (no `set` of its own): their two optional arguments (SIZES or
# MATRIX, then ITERATIONS), then `--` and trilap-solve's options, and
# their ROUNDS and REPEAT (3 each). bench-knobs.sh takes bench_args_count
# alone (its counts, with `prog` set to its name).
#
#   . "$root/scripts/bench-args.sh"
#   bench_args PROG NAME FIRST ITERS "$@"  # NAME: the first's (SIZES), FIRST and
#                                          # ITERS their defaults; errors name PROG
#   shift "$bench_args_shift"         # "$@": trilap-solve's options
#   # $bench_arg: FIRST or the caller's; $bench_iters, $bench_rounds,
#   # $bench_repeat: positive integers
#
# An option before -- is no first argument (before: '--bogus' went to
# trilap-solve as bench-op-timer.sh's MATRIX, which refused it after OUT
# and a log in it were made), nor is an empty one (bench-cg.sh '' printed
# an empty table, exit 0). A bad one is one line and exit 2, and so is a
# ROUNDS or REPEAT that is no positive integer (before, in bench-cg.sh and
# bench-op-timer.sh, ROUNDS=x was bash's "line 39: x: unbound variable",
# exit 1, and REPEAT=0 or x went to trilap-solve, refused after OUT was
# made).
bench_args() {
    local prog=$1 name=$2 next="(trilap-solve options go after --; try --help)"
    bench_arg=$3 bench_iters=$4 bench_args_shift=0
    shift 4
    case ${1:-} in --) ;; -*) echo "$prog: invalid argument '$1' $next" >&2; exit 2 ;; esac
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then bench_arg=$1 bench_args_shift=1; shift; fi
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then bench_iters=$1 bench_args_shift=2; shift; fi
    case ${1:-} in
      --) bench_args_shift=$((bench_args_shift + 1)) ;;
      ?*) echo "$prog: invalid argument '$1' $next" >&2; exit 2 ;;
    esac
    [[ $bench_arg == *[![:space:]]* ]] || { echo "$prog: invalid $name '$bench_arg': empty (try --help)" >&2; exit 2; }
    bench_rounds=${ROUNDS:-3} bench_repeat=${REPEAT:-3}
    bench_args_count ITERATIONS "$bench_iters"
    bench_args_count ROUNDS "$bench_rounds"
    bench_args_count REPEAT "$bench_repeat"
}

bench_args_count() { # NAME VALUE (prog: bench_args's)
    [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "$prog: invalid $1 '$2': a positive integer (try --help)" >&2; exit 2; }
}
