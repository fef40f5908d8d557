# Shared by the trilap plots: CSV input with a header row (columns read by
# name), the terminal chosen from the output name, the category palette.
# Callers set `out` (a .png or .pdf path) and may set `width`, `height` (px;
# the PDF size is derived at 100 px per inch).
set datafile separator comma
set datafile columnheaders
if (!exists("width")) width = 1200
if (!exists("height")) height = 500
# the terminal follows the name's ending: without `out` the first use of it
# failed as "common.gp line 9: undefined variable: out", and any other
# ending (fig.svg, or a folder named x.pdf/) got the wrong file format
# (ARG0 names this file here, not the script that loads it)
gp_ending(s) = strlen(s) > 4 ? s[strlen(s) - 3:] : ""
if (!exists("out")) { print "no out: set out='x.png' or out='x.pdf', the figure's file"; exit status 2 }
if (gp_ending(out) ne ".png" && gp_ending(out) ne ".pdf") {
    print sprintf("out='%s': the figure's name ends in .png or .pdf (its format)", out); exit status 2
}
load dir . "input.gp"
is_pdf = gp_ending(out) eq ".pdf"
if (!exists("fontsize")) fontsize = 10
if (is_pdf) {
    set terminal pdfcairo enhanced color font sprintf("Sans,%d", fontsize - 1) size (width / 100.0), (height / 100.0)
} else {
    set terminal pngcairo enhanced color font sprintf("Sans,%d", fontsize) size width, height
}
# The figure is drawn under a temporary name beside `out`,
# NAME.part<pid>.EXT (pid: this gnuplot's), and the script's last line,
# `load dir . "finish.gp"`, renames it to `out`: gnuplot 5.4 opens `set
# output` at once and has no error trap, so a script run by hand that
# failed after its input checks (a bad column, a terminal error) left a
# 0-byte or cut figure under the final name. gp_staged=1: `out` is a
# temporary name already, renamed by the caller (scripts/render-gp.sh).
if (exists("gp_staged") && gp_staged) {
    gp_part = out
} else {
    gp_part = out[1:strlen(out) - 4] . ".part" . system("echo $PPID") . gp_ending(out)
}
# a folder that is not there: one line naming the figure, not gnuplot's
# "common.gp line 38: cannot open file" about its temporary name
gp_dir = system("dirname -- " . gp_sh(out))
if (system("test -d " . gp_sh(gp_dir) . " && echo y") ne "y") {
    print gp_fail(out, sprintf("no folder %s to write the figure in", gp_dir)); exit status 1
}
set output gp_part
# breakdown categories (cat_id of `trilap-analyze timeline`, in this order)
categories = "spmv fused-update dot precond pack-unpack axpy nccl-allreduce nccl-coll-other nccl-sendrecv memcpy memset compute gemm cutlass cusparse cudnn elementwise reduction host-comm"
palette = "2062260 1556175 9725885 9197131 12369186 2924588 14034728 16750742 16744206 8355711 13092807 14907330 10181046 5164484 9125192 14204888 11119017 6732650 12156236"
catcolor(i) = int(word(palette, int(i) + 1))
catcolor_of(name) = sum [k = 1:words(categories)] (word(categories, k) eq name ? int(word(palette, k)) : 0)
# Byte sizes on a log2 axis as IEC units ("32 B", "1 KiB", "32 MiB"):
# gnuplot's "%.0b %BB" prints "32   B" and "1 kiB". `bytes_tics` (a command
# string: `eval bytes_tics`) labels powers of two from bytes_lo to bytes_hi,
# about eight of them, which the caller sets from `stats`.
bytes_label(v) = v >= 2.0**40 ? sprintf("%g TiB", v / 2.0**40) : v >= 2.0**30 ? sprintf("%g GiB", v / 2.0**30) : \
    v >= 2.0**20 ? sprintf("%g MiB", v / 2.0**20) : v >= 2.0**10 ? sprintf("%g KiB", v / 2.0**10) : sprintf("%g B", v)
log2_floor(v) = floor(log(v) / log(2) + 1e-9)
log2_ceil(v) = ceil(log(v) / log(2) - 1e-9)
bytes_tics = "set xtics (); k_lo = log2_floor(bytes_lo); k_hi = log2_ceil(bytes_hi); " . \
    "k_step = k_hi - k_lo > 10 ? ceil((k_hi - k_lo) / 8.0) : 1; " . \
    "do for [k = k_lo:k_hi:k_step] { set xtics add (bytes_label(2.0**k) 2.0**k) }"
