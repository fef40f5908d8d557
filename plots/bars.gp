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
gp_prog = "bars.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "label"
do for [gp_s in series] { gp_columns = gp_columns . " " . gp_s . " " . gp_s . "_min " . gp_s . "_max" }
gp_any_number = series
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
# The tic labels hang from their tics down to the right: the last ones ran
# past the figure's right edge (`max_ctas=2+conn=32` of the knob study cut
# to `max_ctas=2+con`). A first pass into nothing gives the plot's frame
# and the terminal's character; the right margin is then widened until
# every label ends inside the figure, and the bottom one deepened to hold
# the longest (a label's length as gnuplot estimates it: its characters
# times the character's width).
set output "/dev/null"
plot for [i = 1:words(series)] file using (column(word(series, i))):(column(word(series, i) . "_min")):(column(word(series, i) . "_max")):xtic(strcol("label")) \
        lc rgb int(word(scolors, (i - 1) % words(scolors) + 1)) title word(series, i)
scale = GPVAL_TERM_SCALE
hchar = GPVAL_TERM_HCHAR / scale
vchar = GPVAL_TERM_VCHAR / scale
fig_w = GPVAL_TERM_XSIZE / scale
tilt = 25 * pi / 180
# how far a label of n characters reaches right of its tic, and below the axis
reach_x(n) = n * hchar * cos(tilt) + vchar * sin(tilt) + hchar
reach_y(n) = n * hchar * sin(tilt) + vchar * cos(tilt) + vchar
# the right border (terminal units) that keeps the label of tic x, n
# characters, inside the figure: the tic moves with the border
at(x) = (x - GPVAL_X_MIN) / (GPVAL_X_MAX - GPVAL_X_MIN)
border_for(x, n) = at(x) <= 0 ? GPVAL_TERM_XMAX : \
    GPVAL_TERM_XMIN + (fig_w - reach_x(n) - GPVAL_TERM_XMIN) / at(x)
stats file using (border_for(column(0), strlen(strcol("label")))) nooutput
if (STATS_min < GPVAL_TERM_XMAX) { set rmargin at screen STATS_min / fig_w }
stats file using (strlen(strcol("label"))) nooutput
if (reach_y(STATS_max) > 6 * vchar) { set bmargin ceil(reach_y(STATS_max) / vchar) }
# a title wider than the figure (a long results path after the what) is
# broken before its "(" (it ran off both edges)
cut = strstrt(title, " (")
if (strlen(title) * hchar > fig_w - 2 * hchar && cut > 0) { set title title[1:cut - 1] . "\n" . title[cut + 1:] noenhanced }
set output gp_part
replot
load dir . "finish.gp"
