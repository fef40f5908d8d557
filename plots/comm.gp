# NCCL operation time against message size, log-log: one line per
# operation and communicator (world vs split), from `trilap-bench comm`.
#   gnuplot -e "file='results/comm-h200x2/comm.csv'; out='comm.png'" plots/comm.gp
# Input: the comm results CSV (op, comm, size_bytes, time_us columns, `#`
# preamble allowed).
if (!exists("file")) { print "comm.gp: set file='comm.csv' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 900
if (!exists("height")) height = 560
if (!exists("fontsize")) fontsize = 11
if (!exists("title")) title = "NCCL time per operation vs message size"
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "comm.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "op comm size_bytes time_us"
gp_numbers = "size_bytes time_us"
load dir . "common.gp"
set datafile commentschars "#"
set title title noenhanced
set xlabel "message size (bytes)"
set ylabel "time per operation (µs)"
stats file using (column("size_bytes")) nooutput
bytes_lo = STATS_min
bytes_hi = STATS_max
set logscale xy 2
eval bytes_tics
set format y "%g"
set logscale y 10
set grid xtics ytics mxtics mytics lc rgb "#dddddd", lc rgb "#f0f0f0"
set key top left noenhanced
ops = "allreduce allreduce sendrecv sendrecv"
comms = "world split world split"
lcol = "14034728 9725885 16744206 2062260"
ldt = "1 2 1 2"
lpt = "7 6 5 4"
pick(o, c) = (strcol("op") eq o && strcol("comm") eq c) ? column("time_us") : NaN
# the key names only the series the file has (a --comm world run listed
# both split communicator lines, with nothing drawn for them)
nser = ""
do for [i = 1:4] {
    stats file using ((strcol("op") eq word(ops, i) && strcol("comm") eq word(comms, i)) ? 1 : 0) nooutput
    nser = nser . sprintf(" %d", STATS_sum)
}
# the sizes of the three-stream microbenchmark's defaults
set arrow from 16, graph 0 to 16, graph 1 nohead lc rgb "#999999" dt 3
set label "tristream allreduce (16 B)" at 16, graph 0.97 offset 0.5, 0 font ",9" tc rgb "#666666"
set arrow from 256000, graph 0 to 256000, graph 1 nohead lc rgb "#999999" dt 3
set label "tristream ring (256 kB)" at 256000, graph 0.97 right offset -0.5, 0 font ",9" tc rgb "#666666"
set key top left noenhanced at graph 0.02, graph 0.9
# smooth unique: each series sorted by size and joined, whatever the row order
plot for [i = 1:4] file using (column("size_bytes")):(pick(word(ops, i), word(comms, i))) \
        smooth unique with linespoints lw 2 pt int(word(lpt, i)) ps 0.9 dt int(word(ldt, i)) lc rgb int(word(lcol, i)) \
        title (int(word(nser, i)) > 0 ? sprintf("%s on the %s communicator", word(ops, i), word(comms, i)) : "")
load dir . "finish.gp"
