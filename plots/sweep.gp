# Microbenchmark sweep: time per iteration against the swept size for each
# variant (median, min..max bars) with the ideal bound max(parts).
#   gnuplot -e "file='sweep.csv'; xcol='ring_bytes'; out='sweep.png'" plots/sweep.gp
# Input: CSV from `trilap-analyze sweep RESULTS.csv --x COLUMN --csv FILE`.
if (!exists("file")) { print "sweep.gp: set file='sweep.csv' and out='x.png'"; exit status 2 }
if (!exists("xcol")) xcol = "ring_bytes"
if (!exists("variants")) variants = "two-stream three-naive three-split"
if (!exists("width")) width = 900
if (!exists("height")) height = 550
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
load dir . "common.gp"
set title sprintf("three-stream microbenchmark: time per iteration vs %s", xcol) noenhanced
set xlabel sprintf("%s (bytes)", xcol) noenhanced
set ylabel "µs per iteration (median, min..max)"
set logscale x 2
set format x "%.0b %BB"
set grid lc rgb "#dddddd"
set key top left noenhanced
vcolors = "2062260 14034728 2924588 16744206 9725885"
sel(v) = strcol("variant") eq v ? 1 : 0
plot for [i = 1:words(variants)] file using (sel(word(variants, i)) ? column(xcol) : NaN):(column("median_us")):(column("min_us")):(column("max_us")) \
        with yerrorlines lw 2 pt 7 lc rgb int(word(vcolors, i)) title word(variants, i), \
     file using (sel(word(variants, 1)) ? column(xcol) : NaN):(column("ideal_us")) with lines dt 2 lw 2 lc rgb "black" title "ideal bound max(parts)"
