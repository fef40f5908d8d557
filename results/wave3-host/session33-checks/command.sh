#!/usr/bin/env bash
# session33's host figures: run from the repository root of a built tree
# (make all), the machine otherwise idle; prints out.txt. Each part is one
# behaviour this session changed, on the tree as it stands now.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
part() { printf '\n== part %s: %s\n' "$1" "$2"; }
run() { printf '$ %s\n' "$*"; "$@" 2>&1; printf '(exit %d)\n' $?; }
v() { run "$@" | grep -E "$pat"; }

part 1 "trilap-solve, benchmark mode: CG's (r, M^-1 r) underflowing to 0 is a breakdown, not 'matrix not SPD'"
pat='^(converged|reason|iterations|true residual):|^\(exit'
for s in cg pcg; do v bin/trilap-solve --solver $s --rtol 0 --atol 0 --max-iterations 400 --warmup 0 --repeat 1 gen:poisson7:8; done
part 2 "trilap-solve, benchmark mode: b = 0 converged"
printf '%%%%MatrixMarket matrix array real general\n512 1\n' > "$T/b0.mtx"
for i in $(seq 512); do echo 0; done >> "$T/b0.mtx"
v bin/trilap-solve --solver pipecg --rtol 0 --atol 0 --max-iterations 20 --warmup 0 --repeat 1 gen:poisson7:8 "$T/b0.mtx"

part 3 "Matrix Market: a symmetric file with entries in both triangles"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 4\n1 2 1\n2 1 1\n2 2 4\n' > "$T/both.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n1 2 1\n2 2 4\n' > "$T/upper.mtx"
run bin/trilap-matgen info "$T/both.mtx"
pat='^(symmetric|nonzeros):|^\(exit'; v bin/trilap-matgen info "$T/upper.mtx"

part 4 "exit status without a GPU: 1 in every program (trilap-fdtd's was 2)"
run bin/trilap-fdtd run --backend cuda --grid 16 --steps 2 --no-gpu
run bin/trilap-solve --backend cuda --no-gpu gen:poisson7:8
run bin/trilap-bench tristream --no-gpu

part 5 "trilap-fdtd: what --cpml 0 and --periodic are, in the preamble; --blowup 0 and --slice-every beyond the run refused"
pat='^# cpml:|^\(exit'
v bin/trilap-fdtd run --grid 16 --steps 2 --cpml 0
v bin/trilap-fdtd run --grid 16 --steps 2 --periodic
run bin/trilap-fdtd run --grid 16 --steps 2 --blowup 0
run bin/trilap-fdtd run --grid 16 --steps 2 --slice-every 5 --slice-dir "$T/sl"

part 6 "trilap-fdtd: a periodic layered medium keeps its energy (it rose 0.062 -> 0.193 in 2,000 steps before 1c57cd2, test_fdtd:layered_periodic_keeps_its_energy)"
run bin/trilap-fdtd run --grid 24 --steps 2000 --periodic --layer-k 16 --K2 1 --rho2 4 --precision double --energy-every 500 --energy-out "$T/e.csv" > /dev/null
cat "$T/e.csv"

part 7 "trilap-analyze: a missing input, a dangling link, an empty rank file beside a Kineto trace"
run bin/trilap-analyze overlap "$T/nonexistent"
ln -s "$T/gone.json" "$T/rank0.json"
run bin/trilap-analyze overlap "$T/rank0.json"
mkdir "$T/kt" && zcat "${TL_DATA:-../shared/data}/kineto/trace_filter/sampled_rank-0.json.gz" > "$T/kt/rank0.json" && : > "$T/kt/rank1.json"
run bin/trilap-analyze overlap "$T/kt"

part 8 "render-plots.sh: rows of two commits in one results file said"
mkdir "$T/res" && printf 'variant,nranks,rep,us_per_iter,wrong\nthree-split,2,0,50,0\nthree-split,2,0,40,0\n' > "$T/res/knobs.csv"
printf 'program: trilap-bench\ngit_commit: aaaa111\nresults: knobs.csv\nresults_lines: 2\n\nprogram: trilap-bench\ngit_commit: bbbb222\nresults: knobs.csv\nresults_lines: 3\n' > "$T/res/manifest.txt"
run scripts/render-plots.sh --results "$T/res" --out "$T/out" 2>&1 | grep -v "^  "

part 9 "make install-data: the size of share/trilap/ (the documents said about 206 KB)"
make -s install-data PREFIX="$T/inst" > /dev/null 2>&1; echo "(exit $?)"
find "$T/inst" -type f -printf '%s\n' | awk '{ s += $1; n++ } END { printf "%d files, %d bytes\n", n, s }'
