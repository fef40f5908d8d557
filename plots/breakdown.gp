# Kernel-time breakdown: stacked bars of each category's mean GPU time per
# iteration (a host-backend run's: its host's compute and communication
# ranges), one bar per run (variant and GPU or rank count), with the iteration
# time (window / iterations) as a marker: categories that overlap stack
# above it.
#   gnuplot -e "file='stack.csv'; out='breakdown.png'" plots/breakdown.gp
# Input: CSV from `trilap-analyze breakdown RUN_DIR... --stack-csv FILE`.
if (!exists("file")) { print "breakdown.gp: set file='stack.csv' and out='x.png'"; exit status 2 }
if (!exists("width")) width = 1000
if (!exists("height")) height = 500
# common.gp lives beside this script, wherever gnuplot is started
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "breakdown.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "run nranks window_per_iter_us"
load dir . "common.gp"
# a host-backend rank (trilap-solve --backend host, trilap-fdtd --backend
# cpu) stacks its host's compute and communication ranges, not GPU time
stats file using (column('host-comm')) nooutput
host_ranks = STATS_sum > 0
if (host_ranks) {
    set title "Time per iteration by category (mean over ranks)\n{/*0.8 host ranks: their host's compute and communication ranges; bars above the marker ran concurrently}"
} else {
    set title "GPU time per iteration by kernel category (mean over ranks)\n{/*0.8 NCCL kernel time includes waiting for the peer rank; bars above the marker ran concurrently}"
}
set ylabel "µs per iteration"
set style data histogram
set style histogram rowstacked
set style fill solid 0.9 border lc rgb "#333333"
set boxwidth 0.6
set key outside right top vertical noenhanced Left reverse
set grid ytics lc rgb "#dddddd"
set yrange [0:*]
set xtics noenhanced rotate by -20 left
set bmargin 6
label(r, g) = host_ranks ? sprintf("%s\n%d rank%s", r, g, g == 1 ? "" : "s") : sprintf("%s\n%d GPU%s", r, g, g == 1 ? "" : "s")
cmd = ""
do for [k = 1:words(categories)] {
    c = word(categories, k)
    stats file using (column(c)) nooutput
    if (STATS_sum > 0) {
        cmd = cmd . sprintf("%s file using (column('%s')):xtic(label(strcol('run'), column('nranks'))) lc rgb %d title '%s'", \
                            cmd eq "" ? "" : ", ", c, int(word(palette, k)), c)
    }
}
# no category with time (ranks traced without a GPU kernel): nothing to
# stack, said, and no empty figure left (common.gp opened its temporary)
if (cmd eq "") {
    print sprintf("breakdown.gp: %s: no kernel time in any category (no GPU kernel in the traces); nothing to stack", file)
    set output
    system("rm -f -- " . gp_sh(gp_part))
    exit status 1
}
cmd = cmd . ", file using 0:(column('window_per_iter_us')) with points pt 7 ps 1.8 lc rgb 'black' title 'iteration time (traced window / iterations)'"
# timed=1: the CSV has a timed_us column, the untraced median of the same run
if (exists("timed") && timed) {
    cmd = cmd . ", file using 0:(column('timed_us')) with points pt 9 ps 2.2 lc rgb '#1f4e9c' title 'iteration time (untraced median)'"
}
eval("plot " . cmd)
load dir . "finish.gp"
