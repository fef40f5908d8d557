# A prediction beside what it predicts: per row two bars (measured or the
# paper's figure, and trilap-model's prediction), the error in % above.
#   gnuplot -e "file='results/model/tristream-h200x2.csv'; label='variant'; a='measured_us'; b='predicted_us'; out='x.png'" plots/model-validation.gp
#   gnuplot -e "file='results/model/fdtd-paper2.csv'; label='grid strategy s'; a='paper_s'; b='predicted_s'; ylabel='s'; out='x.png'" plots/model-validation.gp
# `label`: one or more columns joined into the row's tic; `a`, `b`: the two
# columns (b is the prediction); `error_pct` is printed when present.
if (!exists("file") || !exists("out") || !exists("a") || !exists("b")) { print "model-validation.gp: set file, label, a, b and out"; exit status 2 }
if (!exists("label")) label = "label"
if (!exists("width")) width = 1200
if (!exists("height")) height = 520
if (!exists("fontsize")) fontsize = 10
if (!exists("title")) title = file
if (!exists("ylabel")) ylabel = "µs per iteration"
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
load dir . "common.gp"
set title "measured / paper (left) against PREDICTED by trilap-model (right): " . title noenhanced
set ylabel ylabel
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.38
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set xtics noenhanced rotate by -35 left
set bmargin 7
set rmargin 9
set key outside top center horizontal noenhanced
lab(k) = words(label) == 1 ? strcol(word(label, 1)) : words(label) == 2 ? strcol(word(label, 1)) . " " . strcol(word(label, 2)) : strcol(word(label, 1)) . " " . strcol(word(label, 2)) . " s=" . strcol(word(label, 3))
plot file using ($0 - 0.2):(column(a)):xtic(lab(0)) with boxes lc rgb "#888888" title a, \
     file using ($0 + 0.2):(column(b)) with boxes lc rgb "#1f77b4" title b . " (predicted)", \
     file using ($0 + 0.2):(column(b)):(sprintf("%+.1f%%", column("error_pct"))) with labels offset 0, 0.8 font ",8" notitle
