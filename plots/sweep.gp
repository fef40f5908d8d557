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
gp_prog = "sweep.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "variant " . xcol . " median_us min_us max_us ideal_us"
gp_numbers = xcol
gp_any_number = "median_us"
load dir . "common.gp"
set title sprintf("three-stream microbenchmark: time per iteration vs %s", xcol) noenhanced
set xlabel sprintf("%s (bytes)", xcol) noenhanced
set ylabel "µs per iteration (median, min..max)"
stats file using (column(xcol)) nooutput
bytes_lo = STATS_min
bytes_hi = STATS_max
set logscale x 2
eval bytes_tics
set grid lc rgb "#dddddd"
set key top left noenhanced
vcolors = "2062260 14034728 2924588 16744206 9725885"
sel(v) = strcol("variant") eq v ? 1 : 0
# the key names only what is drawn: a variant the file lacks, or a bound
# without the three parts (ideal_us NaN), has no line, so no entry
# (read as text: a NaN that column() reads drops the whole record from stats)
is_num(c) = strcol(c) eq "" || strcol(c) eq "NaN" || strcol(c) eq "nan" ? 0 : 1
nrows = ""
do for [i = 1:words(variants)] {
    stats file using (sel(word(variants, i)) * is_num("median_us")) nooutput
    nrows = nrows . sprintf(" %d", STATS_sum)
}
stats file using (is_num("ideal_us")) nooutput
nideal = STATS_sum
plot for [i = 1:words(variants)] file using (sel(word(variants, i)) ? column(xcol) : NaN):(column("median_us")):(column("min_us")):(column("max_us")) \
        with yerrorlines lw 2 pt 7 lc rgb int(word(vcolors, i)) title (int(word(nrows, i)) > 0 ? word(variants, i) : ""), \
     file using (sel(word(variants, 1)) ? column(xcol) : NaN):(column("ideal_us")) with lines dt 2 lw 2 lc rgb "black" \
        title (nideal > 0 ? "ideal bound max(parts)" : "")
load dir . "finish.gp"
