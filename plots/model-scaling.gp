# trilap-model's predictions at scale in the style of the seed paper's
# Figs. 3-6: per GPU count one bar per schedule (us per iteration), the
# three-split speedup over two-stream printed above each group (at the
# two-stream bar's height). The groups stand side by side in the order of
# --gpus, one tic each, so any counts (3,6,12 as well as 4,8,...,256) get
# a group and a label of their own. Every bar is a SimGrid prediction and the title
# says so.
#   gnuplot -e "file='results/model/pipecg-poisson7-256-a100-hdr.csv'; out='x.png'" plots/model-scaling.gp
# Input: `trilap-model solver --results` (gpus, schedule, iter_us,
# speedup_vs_two_stream; platform, method, matrix, partition where it has
# them): one prediction, a file whose platform, method, matrix or
# partition take two values (--results appends every run to one file) is
# refused, one line, exit 1 (before, drawn overlaid under one label). The
# y label's method is the file's method column (pipecg: Pipe-PCG,
# pipebicgstab: Pipe-BiCGStab; before, `method`, default "Pipe-PCG",
# whatever the file held); `method` given names it for a file without
# the column and is refused where it contradicts the file's. Optional:
# `title`, `schedules` (default: those the file holds, in the order sync
# two-stream three-naive three-split; one it does not hold is refused,
# exit 2, where its key entry was drawn without a bar), `width`, `height`.
if (!exists("file") || !exists("out")) { print "model-scaling.gp: set file='x.csv' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 1000
if (!exists("height")) height = 520
if (!exists("fontsize")) fontsize = 11
if (!exists("title")) title = file
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "model-scaling.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "gpus schedule iter_us speedup_vs_two_stream"
# the speedup is missing (empty; NaN before qa-model11) in a file without
# two-stream: its labels are left out
gp_numbers = "gpus iter_us"
# the file is read below before common.gp sets the output: checked first
set datafile separator comma
set datafile columnheaders
load dir . "input.gp"
undefine gp_inputs
# the prediction each row is of: its identity columns, those it has
has_col(c) = strstrt("," . gp_head . ",", "," . c . ",") > 0
id_cols = ""
do for [c in "platform method matrix partition"] { if (has_col(c)) { id_cols = id_cols . (id_cols eq "" ? "" : " ") . c } }
run_at(k) = k > words(id_cols) ? "" : strcol(word(id_cols, k)) . (k < words(id_cols) ? " " : "") . run_at(k + 1)
run1 = ""
run2 = ""
file_method = ""
present = " "
stats file using (r = run_at(1), run1 = (run1 eq "" ? r : run1), run2 = ((run2 eq "" && r ne run1) ? r : run2), \
                  present = (strstrt(present, " " . strcol("schedule") . " ") ? present : present . strcol("schedule") . " "), \
                  file_method = (has_col("method") && file_method eq "" ? strcol("method") : file_method), 0) nooutput
if (run2 ne "") {
    print gp_fail(file, sprintf("rows of two predictions or more (%s: %s, %s): plot one trilap-model solver run's rows", \
                                id_cols, run1, run2)); exit status 1
}
method_label(m) = m eq "pipecg" ? "Pipe-PCG" : m eq "pipebicgstab" ? "Pipe-BiCGStab" : m
if (file_method ne "" && exists("method") && method ne method_label(file_method)) {
    print gp_fail(file, sprintf("method='%s', where its rows are %s (%s): the label is the file's; leave method out", \
                                method, file_method, method_label(file_method))); exit status 2
}
if (file_method ne "") { method = method_label(file_method) }
ylabel_method = exists("method") ? method . " " : ""
# the schedules drawn: those the file holds, as trilap-model orders them
if (!exists("schedules")) {
    schedules = ""
    do for [s in "sync two-stream three-naive three-split"] {
        if (strstrt(present, " " . s . " ")) { schedules = schedules . (schedules eq "" ? "" : " ") . s }
    }
    do for [s in present] {
        if (!strstrt(" sync two-stream three-naive three-split ", " " . s . " ")) { schedules = schedules . " " . s }
    }
}
do for [s in schedules] {
    if (!strstrt(present, " " . s . " ")) {
        print gp_fail(file, sprintf("schedules='%s': no rows of %s (it holds:%s)", schedules, s, present[1:strlen(present) - 1])); exit status 2
    }
}
load dir . "common.gp"
set title "PREDICTED (SimGrid, trilap-model): " . title noenhanced
set ylabel "µs per " . ylabel_method . "iteration (predicted)"
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
scolors = "2062260 14034728 2924588 16744206 9725885"
pick(name) = strcol("schedule") eq name ? column("iter_us") : 1/0
# the speedups only where a three-split row has one (a number: empty or NaN
# without two-stream): a one-row file without one crashed gnuplot 5.4 (a
# segfault, a 0-byte figure left)
has_speedup(dummy) = strcol("schedule") eq "three-split" && column("speedup_vs_two_stream") == column("speedup_vs_two_stream")
stats file using (has_speedup(0) ? 1 : 0) nooutput
nsplit = STATS_sum
plot for [i = 1:n] file using (group(column("gpus")) + (i - (n + 1) / 2.0) * bw):(pick(word(schedules, i))) \
       with boxes lc rgb int(word(scolors, i)) title word(schedules, i), \
     for [s = 1:(nsplit > 0)] file using (group(column("gpus"))):(has_speedup(0) ? column("iter_us") * column("speedup_vs_two_stream") : 1/0):\
       (sprintf("%.2fx", column("speedup_vs_two_stream"))) with labels offset 0, 1.2 font ",9" notitle
load dir . "finish.gp"
