# Overlap timeline in the style of the paper's Fig. 2: one row per lane
# (Compute, P2P, Collective) per rank, boxes coloured by category, time in
# µs; several runs side by side (e.g. three-naive vs three-split), all on
# one time axis so their iteration lengths compare at a glance.
#   gnuplot -e "files='naive.csv split.csv'; titles='three-naive three-split'; out='timeline.png'" plots/timeline.gp
# Input: CSV from `trilap-analyze timeline RUN_DIR --iter-range A:B -o FILE.csv`
# (every rank over the same time span). Optional: `subtitle` (a line under
# the title), `width`, `height`.
if (!exists("files")) { print "timeline.gp: set files='a.csv b.csv' and out='x.png'"; exit status 2 }
if (!exists("titles")) titles = files
n = words(files)
if (!exists("width")) width = 620 * n + 120
if (!exists("height")) height = 460
if (!exists("fontsize")) fontsize = 12
if (!exists("subtitle")) subtitle = ""
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "timeline.gp"
gp_inputs = files
gp_columns = "row cat_id start_us work_start_us end_us clock_unc_us"
load dir . "common.gp"
head = "GPU activity per lane and rank (boxes coloured by kernel category)"
if (subtitle ne "") head = head . "\n" . subtitle
# the legend lists the categories of every panel, once, in a strip at the bottom
present = ""
do for [i = 1:n] {
    do for [k = 1:words(categories)] {
        stats word(files, i) using (column("cat_id") == k - 1 ? 1 : 0) nooutput
        if (STATS_sum > 0 && strstrt(present . " ", sprintf(" %d ", k)) == 0) { present = present . sprintf(" %d", k) }
    }
}
set multiplot layout 1, n title head noenhanced
set xlabel "time (µs) from the first selected iteration"
set grid xtics lc rgb "#dddddd"
set style fill solid 0.9 border lc rgb "#333333"
set tmargin 4
set bmargin 6.5
set lmargin 14
# one time axis and one set of rows for all panels
tall = 0
maxrow = 0
do for [i = 1:n] {
    stats word(files, i) using (column("end_us")) nooutput
    tall = STATS_max > tall ? STATS_max : tall
    stats word(files, i) using (column("row")) nooutput
    maxrow = STATS_max > maxrow ? STATS_max : maxrow
}
nranks = int(maxrow / 4) + 1
has_other = 0
do for [i = 1:n] {
    stats word(files, i) using (int(column("row")) % 4 == 3 ? 1 : 0) nooutput
    has_other = STATS_sum > 0 ? 1 : has_other
}
do for [i = 1:n] {
    f = word(files, i)
    set autoscale xy  # stats honours the ranges of the previous panel
    # a rank put on rank 0's clock (traces of several nodes): its
    # uncertainty, drawn below as a shaded band of +-U at the start and a
    # note by its rows (older timeline files have no clock_unc_us column)
    array unc[nranks]
    do for [r = 1:nranks] { unc[r] = 0 }
    hdr = system("head -n 1 -- " . gp_sh(f))
    do for [r = 1:(strstrt(hdr, "clock_unc_us") ? nranks - 1 : 0)] {
        stats f using (int(column("row")) / 4 == r ? column("clock_unc_us") : 0) nooutput
        unc[r + 1] = STATS_max
    }
    set yrange [4 * nranks - (has_other ? 0.5 : 1.4) : -0.6]
    set xrange [0 : tall * 1.02]
    tfont = sprintf(",%d", fontsize + 2)
    set title word(titles, i) font tfont noenhanced
    set ytics () nomirror
    # every lane of every rank gets its row, even when the run left it empty
    do for [r = 0:nranks - 1] {
        set ytics add (sprintf("r%d Compute", r) 4 * r, sprintf("r%d P2P", r) 4 * r + 1, \
                       sprintf("r%d Collective", r) 4 * r + 2)
        if (has_other) { set ytics add (sprintf("r%d copy/other", r) 4 * r + 3) }
    }
    unset arrow
    do for [r = 1:nranks - 1] {
        set arrow from graph 0, first (4 * r - (has_other ? 0.5 : 1)) to graph 1, first (4 * r - (has_other ? 0.5 : 1)) nohead lc rgb "#888888" dt 2
    }
    unset key
    unset object
    unset label
    do for [r = 1:nranks - 1] {
        u = unc[r + 1]
        if (u > 0) {
            set object 200 + r rect from first -u, first 4 * r - 0.45 to first u, first 4 * r + 2.45 \
                fc rgb "#f4a582" fs transparent solid 0.5 noborder behind
            set label 200 + r sprintf("clock +-%.2f µs", u) at graph 1, first 4 * r - 0.3 right font ",9" tc rgb "#b2182b" front
        }
    }
    if (i == 1) {
        # the legend: one strip across the figure (a key would wrap inside a panel)
        step = 200.0 / width
        x0 = 0.5 - (words(present) + 1.6) * step / 2
        do for [m = 1:words(present)] {
            k = int(word(present, m))
            xm = x0 + (m - 1) * step
            set object m rect from screen xm, screen 0.03 to screen xm + 28.0 / width, screen 0.03 + 16.0 / height \
                fc rgb int(word(palette, k)) fs solid 0.9 border lc rgb "#333333" front
            set label m word(categories, k) at screen xm + 34.0 / width, screen 0.03 + 8.0 / height left noenhanced front
        }
        xm = x0 + words(present) * step
        set object 99 rect from screen xm, screen 0.03 to screen xm + 28.0 / width, screen 0.03 + 16.0 / height \
            fc rgb "#555555" fs pattern 4 border lc rgb "#555555" front
        set label 99 "communication waiting for the peer rank" at screen xm + 34.0 / width, screen 0.03 + 8.0 / height left front
    }
    # NCCL kernels: the part before the last rank started the same operation
    # (waiting for a peer) hatched, the work after it solid
    ws(c) = column("work_start_us") > column("start_us") ? c : NaN
    plot f using (ws((column("start_us") + column("work_start_us")) / 2)):(column("row")):((column("work_start_us") - column("start_us")) / 2):(0.36):(catcolor(column("cat_id"))) \
            with boxxyerror fs pattern 4 border lc rgb variable lc rgb variable notitle, \
         f using ((column("work_start_us") + column("end_us")) / 2):(column("row")):((column("end_us") - column("work_start_us")) / 2):(0.36):(catcolor(column("cat_id"))) \
            with boxxyerror fs solid 0.9 border lc rgb "#333333" lc rgb variable notitle
}
unset multiplot
load dir . "finish.gp"
