# Overlap timeline in the style of the paper's Fig. 2: one row per lane
# (Compute, P2P, Collective) per rank, boxes coloured by category, time in
# µs; several runs side by side (e.g. three-naive vs three-split).
#   gnuplot -e "files='naive.csv split.csv'; titles='three-naive three-split'; out='timeline.png'" plots/timeline.gp
# Input: CSV from `trilap-analyze timeline RUN_DIR --iters A:B -o FILE.csv`.
if (!exists("files")) { print "timeline.gp: set files='a.csv b.csv' and out='x.png'"; exit status 2 }
if (!exists("titles")) titles = files
n = words(files)
if (!exists("width")) width = 700 * n
if (!exists("height")) height = 360
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
load dir . "common.gp"
set multiplot layout 1, n title "GPU activity per lane (boxes coloured by kernel category)"
set xlabel "time (µs)"
set bmargin 5
set grid xtics lc rgb "#dddddd"
set style fill solid 0.9 border lc rgb "#333333"
unset key
# one time axis for all panels, so iteration lengths compare at a glance
tall = 0
do for [i = 1:n] {
    stats word(files, i) using (column("end_us")) nooutput
    tall = STATS_max > tall ? STATS_max : tall
}
do for [i = 1:n] {
    f = word(files, i)
    set autoscale xy  # stats honours the ranges of the previous panel
    # legend: the categories this run has, every panel alike so they line up
    present = ""
    do for [k = 1:words(categories)] {
        stats f using (column("cat_id") == k - 1 ? 1 : 0) nooutput
        if (STATS_sum > 0) { present = present . " " . sprintf("%d", k) }
    }
    stats f using (column("row")) nooutput
    maxrow = STATS_max
    set yrange [maxrow + 0.7 : -0.7]
    set xrange [0 : tall * 1.02]
    set title word(titles, i) noenhanced
    set ytics () nomirror
    set key outside bottom horizontal center font ",8" noenhanced
    plot f using ((column("start_us") + column("end_us")) / 2):(column("row")):((column("end_us") - column("start_us")) / 2):(0.38):(catcolor(column("cat_id"))):ytic(strcol("row_label")) \
            with boxxyerror lc rgb variable notitle, \
         for [k in present] NaN with boxes lc rgb int(word(palette, int(k))) title word(categories, int(k))
}
unset multiplot
