# Bounded steps for the lent-GPU scripts of this folder, sourced by them
# (no `set` of its own: the caller's options hold)
# after they set `budget` (seconds), `start` (date +%s) and `d` (the
# output folder). A step that would not fit in what is left is skipped,
# saying so, rather than cut short by the lent call's own limit.
# The steps that failed or were skipped go in steps_failed, for a last
# line that names them (steps_end). steps_need refuses, before any work,
# a machine that lacks what the caller needs; steps_args reads OUT and
# the budget from their command line.
# steps_args NAME ARGS...: the callers' command line, OUT [BUDGET_SECONDS=280],
# into out and budget; no OUT, an option, a third argument or a budget
# that is not a positive integer refused in one line, exit 2
steps_args() {
  local name=$1 usage="$1 OUT [BUDGET_SECONDS]"
  shift
  case ${1:-} in
    '') echo "$name: no OUT given (usage: $usage; try --help)" >&2; exit 2 ;;
    -*) echo "$name: invalid argument '$1' (usage: $usage; try --help)" >&2; exit 2 ;;
  esac
  [ $# -le 2 ] || { echo "$name: invalid argument '$3' (usage: $usage; try --help)" >&2; exit 2; }
  out=$1
  budget=${2:-280}
  [[ $budget =~ ^[1-9][0-9]*$ ]] ||
    { echo "$name: invalid BUDGET_SECONDS '$budget': a positive integer (usage: $usage)" >&2; exit 2; }
}
left() { echo $((budget - ($(date +%s) - start))); }
steps_failed=()
step() { # step NAME SECONDS command...: output in $d/NAME.log, the line in $d/steps.txt
  local name=$1 want=$2; shift 2
  if [ "$(left)" -lt "$want" ]; then
    echo "== $name: skipped ($(left)s left)" | tee -a "$d/steps.txt"
    steps_failed+=("$name (skipped)")
    return 1
  fi
  local t0=$(date +%s.%N)
  timeout -k 5 "$want" "$@" > "$d/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc in $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")s" | tee -a "$d/steps.txt"
  [ "$rc" = 0 ] || steps_failed+=("$name (rc=$rc)")
  return "$rc"
}
# steps_end NAME WHERE: the last line, NAME's verdict and WHERE the results
# are; exit 1 when a step failed or was skipped (before, exit 0 whatever failed)
steps_end() {
  if [ ${#steps_failed[@]} -eq 0 ]; then echo "$1: every step passed; results in $2"; exit 0; fi
  echo "$1: ${#steps_failed[@]} step(s) did not pass: $(printf '%s, ' "${steps_failed[@]}" | sed 's/, $//');" \
    "the others' results in $2" >&2
  exit 1
}
# steps_need NAME OUT WHAT...: where this machine lacks any WHAT (gpu:
# nvidia-smi -L lists one; torch: python3 imports it; else a command,
# CMD or CMD|WORDS naming it), one line naming them, exit 1, OUT not made
steps_need() {
  local name=$1 out=$2 w lacks=()
  shift 2
  for w; do
    case $w in
      gpu) nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]' || lacks+=("a GPU (nvidia-smi -L lists none)") ;;
      torch) python3 -c 'import torch' >/dev/null 2>&1 || lacks+=("PyTorch (python3 -c 'import torch' fails)") ;;
      *) command -v "${w%%|*}" >/dev/null 2>&1 || lacks+=("${w#*|}") ;;
    esac
  done
  [ ${#lacks[@]} -eq 0 ] && return 0
  echo "$name: this machine lacks $(printf '%s, ' "${lacks[@]}" | sed 's/, $//'): nothing run, $out not made" >&2
  exit 1
}
