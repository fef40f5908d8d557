#!/usr/bin/env bash
# session45: what each start of trilap-solve and trilap-model costs before
# (dadf975, session44's final code: cuSPARSE and SimGrid linked) and after
# (this session's code: both loaded where a run needs them), on this 2-core
# machine alone. OLD is a build of dadf975 (`git worktree add ../old45
# dadf975e && make -C ../old45 -j2 bin/trilap-solve bin/trilap-model`), NEW
# the checkout's bin/. Writes libraries.csv (ldd's count, and whether
# cuSPARSE, nvJitLink or SimGrid is among them) and starts.csv (each
# `--help`, 20 rounds, old and new alternated: wall, user and sys seconds).
# Run from the repository root: OLD=../old45/bin bash command.sh OUTDIR
set -euo pipefail
export LC_ALL=C
old=${OLD:?OLD names the old build\'s bin folder}
out=${1:?usage: OLD=DIR bash command.sh OUTDIR}
echo "build,program,libraries,cusparse,nvjitlink,simgrid" > "$out/libraries.csv"
for b in old new; do
    dir=$old; [ "$b" = new ] && dir=bin
    for p in trilap-solve trilap-model; do
        l=$(ldd "$dir/$p")
        printf '%s,%s,%d,%d,%d,%d\n' "$b" "$p" "$(wc -l <<<"$l")" "$(grep -c libcusparse <<<"$l" || true)" \
            "$(grep -c libnvJitLink <<<"$l" || true)" "$(grep -c libsimgrid <<<"$l" || true)" >> "$out/libraries.csv"
    done
done
echo "round,build,program,wall_s,user_s,sys_s" > "$out/starts.csv"
t=$(mktemp)
for r in $(seq 1 20); do
    for p in trilap-solve trilap-model; do
        for b in old new; do
            dir=$old; [ "$b" = new ] && dir=bin
            /usr/bin/time -f '%e,%U,%S' -o "$t" "$dir/$p" --help > /dev/null 2>&1
            printf '%d,%s,%s,%s\n' "$r" "$b" "$p" "$(cat "$t")" >> "$out/starts.csv"
        done
    done
    echo "round $r of 20" >&2
done
rm -f "$t"
# medians: awk -F, 'NR>1 {k=$2","$3; v[k]=v[k]" "$4+$5+$6}' ... (README.md)
