#!/usr/bin/env bash
# The integer divisions and the registers and spills of the FDTD vector
# kernels (stencil/fdtd_vec.cu) of four trees, sm_90, nvcc 13.0, no GPU
# needed: main (e190f59), the face builds (8e65e7a), the multiply-and-shift
# block walk (41dc8b4) and both (909fa8b). Per tree: <commit>-div.txt, the
# div/rem instructions in the PTX of each float order-8, width-4, 8 x 32
# kernel; <commit>-regs.txt, ptxas's registers and spill stores/loads (B).
#   results/wave3-checks-h200/session5/ptx/command.sh OUTDIR   (from the repository root, after make: build/config.h)
set -euo pipefail
out=${1:?usage: command.sh OUTDIR}
mkdir -p "$out"
for c in e190f59 8e65e7a 41dc8b4 909fa8b; do
    t=$(mktemp -d)
    git archive "$c" stencil runtime/error.h | tar -x -C "$t"
    mkdir -p "$t/build" && cp build/config.h "$t/build/"
    nv() { (cd "$t" && /usr/local/cuda/bin/nvcc -Ibuild -I. -D_GNU_SOURCE -O2 -std=c++17 "$@" stencil/fdtd_vec.cu); }
    nv -arch=compute_90 -ptx -o "$t/k.ptx"
    awk '/^\.entry/ { n = $2 } /^\.entry/ && !/fLi4ELi4ELi8ELi32E/ { n = "" }
         n != "" && /\t(div|rem)\.[su](32|64)/ { c[n]++ } n != "" { seen[n] = 1 }
         END { for (k in seen) print (k in c ? c[k] : 0), k }' "$t/k.ptx" | sort -k2 > "$out/$c-div.txt"
    nv -gencode arch=compute_90,code=sm_90 -Xptxas -v -cubin -o /dev/null 2> "$t/ptxas.log"
    awk '/Compiling entry/ { n = ""; if (match($0, /tl_fdtd_[pv]_vec_(cpml_)?kernelI[fd]Li4ELi4ELi8ELi32E[^E]*E/)) n = substr($0, RSTART, RLENGTH) }
         /spill stores/ { sp = $5 "/" $9 }
         /Used [0-9]+ registers/ { if (n != "") print n, "regs", $5, "spill", sp; n = "" }' "$t/ptxas.log" | sort > "$out/$c-regs.txt"
    rm -rf "$t"
done
