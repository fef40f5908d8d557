# Pressure snapshots with and without CPML (the paper's Fig. 2): one row
# per run, one column per step, the plane through the source.
#   gnuplot -e "dirs='slices/cpml slices/none'; titles='CPML none'; steps='150 300 450'; out='fdtd-snapshots.png'" plots/fdtd-snapshots.gp
# Input: the slice files `trilap-fdtd run --slice-every` or `verify energy
# --slices` writes (DIR/p-<step>.txt: a '#' line, then a whitespace matrix).
# amax: the colour range +-amax (default: half the largest |p| of the
# first file; this line said the largest).
if (!exists("dirs")) { print "fdtd-snapshots.gp: set dirs='a b', steps='100 200', out='x.png'"; exit status 2 }
if (!exists("steps")) { print "fdtd-snapshots.gp: set steps='100 200 300'"; exit status 2 }
if (!exists("titles")) titles = dirs
nr = words(dirs)
nc = words(steps)
if (!exists("width")) width = 330 * nc + 120
if (!exists("height")) height = 300 * nr + 60
dirname(s) = strstrt(s, "/") ? s[1:strstrt(s, "/")] . dirname(s[strstrt(s, "/") + 1:]) : ""
if (!exists("dir")) dir = dirname(ARG0)
gp_prog = "fdtd-snapshots.gp"
load dir . "common.gp"
set datafile separator whitespace
set datafile nocolumnheaders
set datafile separator whitespace
slice(d, s) = sprintf("%s/p-%06d.txt", d, int(s))
# every step a number and every slice there, said in one line (a missing
# one surfaced as "undefined variable: STATS_min", a word as gnuplot's
# "Non-numeric string found")
digits(s) = strlen(s) == 0 ? 1 : (strstrt("0123456789", s[1:1]) > 0 ? digits(s[2:]) : 0)
do for [j = 1:nc] {
    if (!digits(word(steps, j))) {
        print sprintf("fdtd-snapshots.gp: steps='%s': '%s' is not a step number", steps, word(steps, j)); exit status 2
    }
    do for [i = 1:nr] {
        if (system("test -r " . gp_sh(slice(word(dirs, i), word(steps, j))) . " && echo y") ne "y") {
            print sprintf("fdtd-snapshots.gp: no slice %s (the run wrote none at step %s)", slice(word(dirs, i), word(steps, j)), word(steps, j))
            exit status 1
        }
    }
}
if (!exists("amax")) {
    stats slice(word(dirs, 1), word(steps, 1)) matrix using 3 nooutput
    amax = (abs(STATS_min) > abs(STATS_max) ? abs(STATS_min) : abs(STATS_max)) * 0.5
}
set palette defined (-1 "#2c4fa1", -0.3 "#9cb7e0", 0 "#ffffff", 0.3 "#f2a38a", 1 "#b2182b")
set cbrange [-amax:amax]
set size ratio -1
unset xtics
unset ytics
set multiplot layout nr, nc title "pressure in the plane of the source" noenhanced
do for [i = 1:nr] {
    do for [j = 1:nc] {
        set title sprintf("%s, step %s", word(titles, i), word(steps, j)) noenhanced
        if (j == nc) { set colorbox } else { unset colorbox }
        plot slice(word(dirs, i), word(steps, j)) matrix with image notitle
    }
}
unset multiplot
load dir . "finish.gp"
