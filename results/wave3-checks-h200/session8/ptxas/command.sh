#!/usr/bin/env bash
# ptxas's registers and spills of the FDTD vector kernels (stencil/fdtd_vec.cu),
# sm_90, nvcc 13.0, no GPU needed: main's kernels (d878512, unchanged through
# session8), branch exp-cpml-zpair (1bcace7, this session: two z planes a thread in
# float's CPML build, the shell's blocks at 14 per SM, 72 registers) and the
# same at 12 per SM (80 registers). One line per kernel: update, precision,
# order R, width W, block BX BY, CPML build (c1) or plain (c0), registers,
# spill stores/loads (B).
#   results/wave3-checks-h200/session8/ptxas/command.sh OUTDIR   (from the repository root, after make: build/config.h)
set -euo pipefail
out=${1:?usage: command.sh OUTDIR}
mkdir -p "$out"
for c in d878512 1bcace7 1bcace7:80; do
    t=$(mktemp -d)
    git archive "${c%%:*}" stencil runtime/error.h | tar -x -C "$t"
    if [[ $c == *:80 ]]; then
        sed -i 's/CPML ? 14 : per256/CPML ? 12 : per256/' "$t/stencil/fdtd_vec.cu"
        grep -q 'CPML ? 12 : per256' "$t/stencil/fdtd_vec.cu" || { echo "command.sh: $c: min_blocks not found" >&2; exit 1; }
    fi
    mkdir -p "$t/build" && cp build/config.h "$t/build/"
    echo "ptxas: $c ..." >&2
    (cd "$t" && /usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 \
        -Xptxas -v -cubin stencil/fdtd_vec.cu -o /dev/null) 2> "$t/ptxas.log"
    awk '/Compiling entry/ { match($0, /tl_fdtd_[pv]_vec_kernelI.*EEEv/); n = substr($0, RSTART + 8, RLENGTH - 12)
                            gsub(/_vec_kernelI/, " ", n); gsub(/E?Li/, " ", n); gsub(/ELb/, " c", n) }
         /spill stores/ { sp = $5 "/" $9 }
         /Used [0-9]+ registers/ { print n, "regs", $5, "spill", sp }' "$t/ptxas.log" | sort > "$out/${c/:/-}.txt"
    rm -rf "$t"
done
