# Schedule comparison of the pipelined solvers in the style of the paper's
# Figs. 3-6: one panel per matrix / method / rank count, one bar per
# schedule (median solver time of the timed solves, min..max as error bars),
# labelled with the speedup over two-stream (median(two-stream) / median).
#   gnuplot -e "file='solver-schedules.csv'; out='solver-bars.png'" plots/solver-bars.gp
# Input: the results CSV of `trilap-solve --results` (one row per timed
# solve), e.g. from scripts/run-solver-schedules.sh; columns used: matrix,
# solver, nranks, schedule, solver_time_s, iterations. Optional: `cols`
# (panels per row, default up to 3), `width`, `height`, `dir`.
if (!exists("file")) { print "solver-bars.gp: set file='solver-schedules.csv' and out='x.png'"; exit status 2 }
if (!exists("out")) { print "solver-bars.gp: set out='x.png' or out='x.pdf'"; exit status 2 }
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "solver-bars.gp"
gp_inputs = sprintf('"%s"', file) # one word, spaces and all
gp_columns = "matrix solver nranks schedule solver_time_s iterations"
load dir . "input.gp"

# the order of the paper's figures; schedules the CSV lacks are left out
schedules = "sync two-stream three-naive three-split"
colors = "0x8c8c8c 0x1f77b4 0xff7f0e 0x2ca02c"
set datafile separator comma
set datafile columnheaders

# groups in the order they first appear: "matrix|solver|nranks"
gkey(m, s, n) = m . "|" . s . "|" . n
groups = ""
has(list, k) = strstrt(" " . list . " ", " " . k . " ") > 0
stats file using (k = gkey(strcol("matrix"), strcol("solver"), strcol("nranks")), \
                  groups = has(groups, k) ? groups : (groups eq "" ? k : groups . " " . k), 0) nooutput
ng = words(groups)
if (ng == 0) { print sprintf("solver-bars.gp: no rows in %s", file); exit status 1 }
field(k, i) = (i == 1 ? k[1:strstrt(k, "|") - 1] : field(k[strstrt(k, "|") + 1:], i - 1))
last(k) = strstrt(k, "|") ? last(k[strstrt(k, "|") + 1:]) : k
gmatrix(k) = field(k, 1)
gsolver(k) = field(k, 2)
granks(k) = last(k)
basename(s) = strstrt(s, "/") ? basename(s[strstrt(s, "/") + 1:]) : s
short(m) = m[1:4] eq "gen:" ? m[5:] : basename(m)

# one CSV line per bar (same separator and header rule as the input)
set print $bars
print "group,schedule,median_ms,min_ms,max_ms"
do for [g = 1:ng] {
    k = word(groups, g)
    base = 0
    do for [si = 1:words(schedules)] {
        s = word(schedules, si)
        sel(x) = (gkey(strcol("matrix"), strcol("solver"), strcol("nranks")) eq k && strcol("schedule") eq s) ? x : NaN
        stats file using (sel(1) == 1 ? 1 : 0) nooutput
        if (STATS_sum > 0) {
            stats file using (sel(column("solver_time_s") * 1e3)) nooutput
            if (s eq "two-stream") { base = STATS_median }
            print sprintf("%d,%d,%g,%g,%g", g, si, STATS_median, STATS_min, STATS_max)
        }
    }
    bases = (g == 1 ? "" : bases . " ") . sprintf("%g", base)
}
unset print

# the iteration count for the panel titles (all solves of one run share it)
stats file using (column("iterations")) nooutput
iters = STATS_max == STATS_min ? sprintf("%d iterations", STATS_max) : sprintf("%d..%d iterations", STATS_min, STATS_max)

if (!exists("cols")) cols = ng < 3 ? ng : 3
rows = int((ng + cols - 1) / cols)
if (!exists("width")) width = 420 * cols
if (!exists("height")) height = 360 * rows + 40
load dir . "common.gp"

set multiplot layout rows, cols title sprintf("Pipelined solvers: solver time per schedule (median, min..max; label: speedup over two-stream; %s)", iters) noenhanced
set style fill solid 0.85 border lc rgb "#333333"
set boxwidth 0.7
set grid ytics lc rgb "#dddddd"
set ylabel "solver time (ms)"
set xrange [0.4:words(schedules) + 0.6]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set xtics () noenhanced font ",8"
do for [si = 1:words(schedules)] { set xtics add (word(schedules, si) si) }
unset key
base_of(g) = word(bases, int(g)) + 0.0
on(g, v) = $1 == g ? v : NaN
speedup(g, med) = base_of(g) > 0 ? sprintf("%.2f×", base_of(g) / med) : ""
do for [g = 1:ng] {
    k = word(groups, g)
    r = granks(k)
    set title sprintf("%s, %s, %s rank%s", short(gmatrix(k)), gsolver(k), r, r eq "1" ? "" : "s") noenhanced
    # every column filtered, so other panels' bars do not widen the autoscaled y range
    plot $bars using (on(g, $2)):(on(g, $3)):(int(word(colors, int($2)))) with boxes lc rgb variable, \
         $bars using (on(g, $2)):(on(g, $4)):(0):(on(g, $5 - $4)) with vectors heads size 0.08, 90 lc rgb "black", \
         $bars using (on(g, $2)):(on(g, $5)):(speedup($1, $3)) with labels offset 0, 0.8 font ",9"
}
unset multiplot
load dir . "finish.gp"
