# trilap-model's predictions at scale in the style of the seed paper's
# Figs. 3-6: per GPU count one bar per schedule (us per iteration), the
# three-split speedup over two-stream printed above each group (at the
# two-stream bar's height). The groups stand side by side in the order of
# --gpus, one tic each, so any counts (3,6,12 as well as 4,8,...,256) get
# a group and a label of their own. Every bar is a SimGrid prediction and the title
# says so.
#   gnuplot -e "file='results/model/pipecg-poisson7-256-a100-hdr.csv'; out='x.png'" plots/model-scaling.gp
# Input: `trilap-model solver --results` (gpus, schedule, iter_us,
# speedup_vs_two_stream). Optional: `title`, `method` (the y label's
# method, default "Pipe-PCG"), `schedules` (default
# "two-stream three-naive three-split"), `width`, `height`.
if (!exists("file") || !exists("out")) { print "model-scaling.gp: set file='x.csv' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 1000
if (!exists("height")) height = 520
if (!exists("fontsize")) fontsize = 11
if (!exists("schedules")) schedules = "two-stream three-naive three-split"
if (!exists("title")) title = file
if (!exists("method")) method = "Pipe-PCG"
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "model-scaling.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "gpus schedule iter_us speedup_vs_two_stream"
# the speedup is NaN in a file without two-stream: its labels are left out
gp_numbers = "gpus iter_us"
load dir . "common.gp"
set title "PREDICTED (SimGrid, trilap-model): " . title noenhanced
set ylabel "µs per " . method . " iteration (predicted)"
set xlabel "GPUs"
set style fill solid 0.85 border lc rgb "#333333"
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set key outside top center horizontal noenhanced
n = words(schedules)
bw = 0.8 / n
set boxwidth bw
# the GPU counts as they first appear (" 4 8 16 "), and a count's group
glist = " "
stats file using (g = sprintf("%d ", column("gpus")), glist = strstrt(glist, " " . g) ? glist : glist . g, 0) nooutput
ng = words(glist)
group_at(g, k) = k > ng ? 1/0 : (int(word(glist, k)) == g ? k : group_at(g, k + 1))
group(g) = group_at(int(g), 1)
set xtics ()
set xrange [0.4:ng + 0.6]
do for [k = 1:ng] { set xtics add (word(glist, k) k) }
scolors = "2062260 14034728 2924588 16744206"
pick(name) = strcol("schedule") eq name ? column("iter_us") : 1/0
# the speedups only where a three-split row has one (a number: NaN without
# two-stream): a one-row file without one crashed gnuplot 5.4 (a
# segfault, a 0-byte figure left)
has_speedup(dummy) = strcol("schedule") eq "three-split" && column("speedup_vs_two_stream") == column("speedup_vs_two_stream")
stats file using (has_speedup(0) ? 1 : 0) nooutput
nsplit = STATS_sum
plot for [i = 1:n] file using (group(column("gpus")) + (i - (n + 1) / 2.0) * bw):(pick(word(schedules, i))) \
       with boxes lc rgb int(word(scolors, i)) title word(schedules, i), \
     for [s = 1:(nsplit > 0)] file using (group(column("gpus"))):(has_speedup(0) ? column("iter_us") * column("speedup_vs_two_stream") : 1/0):\
       (sprintf("%.2fx", column("speedup_vs_two_stream"))) with labels offset 0, 1.2 font ",9" notitle
load dir . "finish.gp"
