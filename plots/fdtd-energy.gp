# FDTD energy with and without CPML, normalised by its maximum, against
# time (the paper's Fig. 3): with CPML it falls by orders of magnitude once
# the source has stopped and the waves have left; without, it stays.
#   gnuplot -e "file='energy.csv'; out='fdtd-energy.png'" plots/fdtd-energy.gp
# Input: `trilap-fdtd verify energy` (columns step,time_s,energy_cpml,energy_none).
if (!exists("file")) { print "fdtd-energy.gp: set file='energy.csv' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 800
if (!exists("height")) height = 500
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "fdtd-energy.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "time_s energy_cpml energy_none"
gp_numbers = gp_columns
load dir . "common.gp"
if (!exists("title")) title = "field energy, normalised by its maximum"
set title title noenhanced
set xlabel "time (s; c = 1, h = 1)"
set ylabel "E / max E"
set logscale y
set format y "10^{%L}"
set yrange [1e-12:2]
set grid lc rgb "#dddddd"
set key bottom left
pos(v) = v > 0 ? v : NaN
plot file using (column("time_s")):(pos(column("energy_cpml"))) with linespoints lw 2 pt 7 ps 0.6 lc rgb "#1f77b4" title "with CPML", \
     file using (column("time_s")):(pos(column("energy_none"))) with linespoints lw 2 pt 5 ps 0.6 lc rgb "#d62728" title "without CPML (p = v = 0 outside)"
load dir . "finish.gp"
