# A prediction beside what it predicts: per row two bars (measured or the
# paper's figure, and trilap-model's prediction), the error in % above.
#   gnuplot -e "file='results/model/tristream-h200x2.csv'; label='variant'; a='measured_us'; b='predicted_us'; out='x.png'" plots/model-validation.gp
#   gnuplot -e "file='results/model/fdtd-paper2.csv'; label='grid strategy s'; a='paper_s'; b='predicted_s'; ylabel='s'; out='x.png'" plots/model-validation.gp
# `label`: one or more columns joined into the row's tic; `a`, `b`: the two
# columns (b is the prediction); `error_pct` is printed above each row
# the `role` column calls a prediction (or every row where there is no
# `role`), the role's first word above the others ("fitted", "input",
# "calibration"): their +0.0% read as predictions that hit.
if (!exists("file") || !exists("out") || !exists("a") || !exists("b")) { print "model-validation.gp: set file, label, a, b and out"; exit status 2 }
if (!exists("label")) label = "label"
if (!exists("width")) width = 1200
if (!exists("height")) height = 520
if (!exists("fontsize")) fontsize = 10
if (!exists("title")) title = file
if (!exists("ylabel")) ylabel = "µs per iteration"
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "model-validation.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = label . " " . a . " " . b
gp_numbers = a . " " . b
load dir . "common.gp"
set title "measured / paper (left) against PREDICTED by trilap-model (right): " . title noenhanced
set ylabel ylabel
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.38
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set xtics noenhanced rotate by -35 left
set bmargin 7
set key outside top center horizontal noenhanced
lab(k) = words(label) == 1 ? strcol(word(label, 1)) : words(label) == 2 ? strcol(word(label, 1)) . " " . strcol(word(label, 2)) : strcol(word(label, 1)) . " " . strcol(word(label, 2)) . " s=" . strcol(word(label, 3))
# the last tic label, slanted right from its tic, inside the figure: a
# fixed 9 characters cut fdtd-paper2's "1024 peer-4gpu s=1" at "s="
stats file using (gp_last = lab(0), 0) nooutput
set rmargin (strlen(gp_last) * 0.82 + 1 > 9 ? int(strlen(gp_last) * 0.82 + 1) : 9)
has_role = strstrt("," . gp_head . ",", ",role,") > 0
errlab(x) = (!has_role || strstrt(strcol("role"), "predict") == 1) ? sprintf("%+.1f%%", column("error_pct")) : word(strcol("role"), 1)
plot file using ($0 - 0.2):(column(a)):xtic(lab(0)) with boxes lc rgb "#888888" title a, \
     file using ($0 + 0.2):(column(b)) with boxes lc rgb "#1f77b4" title b . " (predicted; above: its error, or its role)", \
     file using ($0 + 0.2):(column(b)):(errlab(0)) with labels offset 0, 0.8 font ",8" notitle
load dir . "finish.gp"
