#!/usr/bin/env bash
# ptxas's registers and spills of the FDTD vector kernels (stencil/fdtd_vec.cu)
# of three trees, sm_90, nvcc 13.0, no GPU needed: the tree before session4
# (9c8f6e9), after the hoisted psi read (8b44ae0) and after the 32-bit slab
# tests (919e50c). One line per kernel: update, precision, order R, width W,
# block BX BY, CPML build (c1) or plain (c0), registers, spill stores/loads (B).
#   results/wave3-checks-h200/session4/ptxas/command.sh OUTDIR   (from the repository root, after make: build/config.h)
set -euo pipefail
out=${1:?usage: command.sh OUTDIR}
mkdir -p "$out"
for c in 9c8f6e9 8b44ae0 919e50c; do
    t=$(mktemp -d)
    git archive "$c" stencil runtime/error.h | tar -x -C "$t"
    mkdir -p "$t/build" && cp build/config.h "$t/build/"
    (cd "$t" && /usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O2 -std=c++17 -gencode arch=compute_90,code=sm_90 \
        -Xptxas -v -cubin stencil/fdtd_vec.cu -o /dev/null) 2> "$t/ptxas.log"
    awk '/Compiling entry/ { match($0, /tl_fdtd_[pv]_vec_kernelI.*EEEv/); n = substr($0, RSTART + 8, RLENGTH - 12)
                            gsub(/_vec_kernelI/, " ", n); gsub(/E?Li/, " ", n); gsub(/ELb/, " c", n) }
         /spill stores/ { sp = $5 "/" $9 }
         /Used [0-9]+ registers/ { print n, "regs", $5, "spill", sp }' "$t/ptxas.log" | sort > "$out/$c.txt"
    rm -rf "$t"
done
