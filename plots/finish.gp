# The last line of every plot that writes a figure: the figure closed and
# its temporary name (common.gp: gp_part) renamed to `out`, so that `out`
# appears whole or not at all; a failure before this line leaves only
# NAME.part<pid>.EXT beside it. A rename that fails is one line, exit 1.
set output
if (gp_part ne out) {
    gp_mv = system("mv -f -- " . gp_sh(gp_part) . " " . gp_sh(out) . " 2>&1 && echo ok")
    if (gp_mv ne "ok") { print sprintf("%s: %s: cannot rename %s to it: %s", gp_prog, out, gp_part, gp_mv); exit status 1 }
}
