#!/usr/bin/env bash
# session22's analysis changes, before and after, on committed and shared
# traces: OLD names a bin/ folder built at 484dddb (the session's start),
# bin/ is d5344d2's. Run from the repository root with OUT set.
set -euo pipefail
R=results/tristream-h200x2/three-split
for v in old new; do
    b=bin; [ $v = old ] && b=${OLD:?a bin/ folder built at 484dddb}
    $b/trilap-analyze timeline $R --iter-range 0:199 -o "$OUT/timeline-$v.csv" > /dev/null
    awk -F, 'NR > 1 && $12 > $9 { s[$1] += $12 - $9 } END { printf "hatched wait: rank 0 %.1f us, rank 1 %.1f us\n", s[0], s[1] }' \
        "$OUT/timeline-$v.csv" > "$OUT/timeline-waits-$v.txt"
    $b/trilap-analyze overlap $R > "$OUT/overlap-$v.txt"
    $b/trilap-analyze diagnose $R --iter-range 199:199 > "$OUT/diagnose-199-$v.txt"
    $b/trilap-analyze overlap ../shared/data/kineto/trace_filter > "$OUT/overlap-kineto-$v.txt" 2>&1
    gzip -9 "$OUT/timeline-$v.csv"
done
