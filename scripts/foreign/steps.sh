# Bounded steps for the lent-GPU scripts of this folder, sourced by them
# (no `set` of its own: the caller's options hold)
# after they set `budget` (seconds), `start` (date +%s) and `d` (the
# output folder). A step that would not fit in what is left is skipped,
# saying so, rather than cut short by the lent call's own limit.
left() { echo $((budget - ($(date +%s) - start))); }
step() { # step NAME SECONDS command...: output in $d/NAME.log, the line in $d/steps.txt
  local name=$1 want=$2; shift 2
  if [ "$(left)" -lt "$want" ]; then echo "== $name: skipped ($(left)s left)" | tee -a "$d/steps.txt"; return; fi
  local t0=$(date +%s.%N)
  timeout -k 5 "$want" "$@" > "$d/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc in $(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")s" | tee -a "$d/steps.txt"
}
