# Grouped bars with min..max error bars: one group per CSV row, one bar per
# series (e.g. the microbenchmark's variants per configuration, or the
# STREAM kernels' bandwidth).
#   gnuplot -e "file='knobs.csv'; series='two-stream three-naive three-split'; out='knobs.png'" plots/bars.gp
# Input: a CSV whose first column `label` names the group and which has, for
# each series S, the columns S (the bar), S_min and S_max. Optional: `title`,
# `ylabel`, `width`, `height`, `ymin` (default 0).
if (!exists("file") || !exists("series")) { print "bars.gp: set file='x.csv', series='a b' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 1000
if (!exists("height")) height = 520
if (!exists("fontsize")) fontsize = 11
if (!exists("title")) title = ""
if (!exists("ylabel")) ylabel = "µs per iteration (median, min..max)"
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
load dir . "common.gp"
set title title noenhanced
set ylabel ylabel
set style data histogram
set style histogram errorbars gap 1.5 lw 1
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.9
set grid ytics lc rgb "#dddddd"
if (exists("ymin")) { set yrange [ymin:*] } else { set yrange [0:*] }
set xtics noenhanced rotate by -25 left
set bmargin 6
set key outside top center horizontal noenhanced
scolors = "2062260 14034728 2924588 16744206 9725885 9197131 8355711"
plot for [i = 1:words(series)] file using (column(word(series, i))):(column(word(series, i) . "_min")):(column(word(series, i) . "_max")):xtic(strcol("label")) \
        lc rgb int(word(scolors, (i - 1) % words(scolors) + 1)) title word(series, i)
