# Sourced by bench-cg.sh and bench-op-timer.sh (no `set` of its own): their
# two optional arguments (SIZES or MATRIX, then ITERATIONS), then `--` and
# trilap-solve's options.
#
#   . "$root/scripts/bench-args.sh"
#   bench_args PROG FIRST ITERS "$@"  # defaults of the two; errors name PROG
#   shift "$bench_args_shift"         # "$@": trilap-solve's options
#   # $bench_arg: FIRST or the caller's; $bench_iters: a positive integer
#
# An option before -- is no first argument (before: '--bogus' went to
# trilap-solve as bench-op-timer.sh's MATRIX, which refused it after OUT
# and a log in it were made). A bad one is one line and exit 2.
bench_args() {
    local prog=$1 next="(trilap-solve options go after --; try --help)"
    bench_arg=$2 bench_iters=$3 bench_args_shift=0
    shift 3
    case ${1:-} in --) ;; -*) echo "$prog: invalid argument '$1' $next" >&2; exit 2 ;; esac
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then bench_arg=$1 bench_args_shift=1; shift; fi
    if [ $# -gt 0 ] && [ "$1" != "--" ]; then bench_iters=$1 bench_args_shift=2; shift; fi
    case ${1:-} in
      --) bench_args_shift=$((bench_args_shift + 1)) ;;
      ?*) echo "$prog: invalid argument '$1' $next" >&2; exit 2 ;;
    esac
    [[ $bench_iters =~ ^[1-9][0-9]*$ ]] ||
      { echo "$prog: invalid ITERATIONS '$bench_iters': a positive integer (try --help)" >&2; exit 2; }
}
