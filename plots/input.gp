# The input CSVs of a trilap plot, checked before anything reads them or
# `set output` makes the figure's file (common.gp loads this; a script
# that reads its CSV before common.gp loads it first): a missing, empty or
# header-only CSV, or one without a column the script reads, left a 0-byte
# figure under its final name after a screen of gnuplot warnings. The
# caller names its program (gp_prog), its CSVs (gp_inputs, words: a quoted
# one may hold spaces) and the columns each must have (gp_columns); one
# line and exit 1. Without gp_inputs, nothing is checked. gp_numbers: the
# columns that must hold a number in every row, gp_any_number: those of
# which one cell at least must (numbers.awk).
# s as one shell word: in '...', each ' as '\'' (a folder named it's
# broke the word: its input "no such file", its figure drawn and left as
# NAME.part<pid>.EXT, "mv: missing destination file operand")
gp_sh_q(s) = strstrt(s, "'") ? s[1:strstrt(s, "'") - 1] . "'\\''" . gp_sh_q(s[strstrt(s, "'") + 1:]) : s
gp_sh(s) = "'" . gp_sh_q(s) . "'"
gp_fail(f, why) = sprintf("%s: %s: %s", gp_prog, f, why)
if (exists("gp_inputs")) {
    if (!exists("gp_columns")) { gp_columns = "" }
    do for [gp_i = 1:words(gp_inputs)] {
        gp_f = word(gp_inputs, gp_i)
        if (system("test -f " . gp_sh(gp_f) . " && test -r " . gp_sh(gp_f) . " && echo y") ne "y") {
            print gp_fail(gp_f, "no such file, or not a readable one"); exit status 1
        }
        # the header: the first line that is no '#' comment, as gnuplot reads it
        gp_head = system("awk '!/^#/ && NF { sub(/\\r$/, \"\"); print; exit }' " . gp_sh(gp_f))
        if (gp_head eq "") { print gp_fail(gp_f, "empty, no header line"); exit status 1 }
        do for [gp_c in gp_columns] {
            if (!strstrt("," . gp_head . ",", "," . gp_c . ",")) {
                print gp_fail(gp_f, sprintf("no column %s (its header: %s)", gp_c, gp_head)); exit status 1
            }
        }
        if (system("awk '!/^#/ && NF && n++ { print \"y\"; exit }' " . gp_sh(gp_f)) ne "y") { print gp_fail(gp_f, "no rows under its header"); exit status 1 }
        if (!exists("gp_numbers")) { gp_numbers = "" }
        if (!exists("gp_any_number")) { gp_any_number = "" }
        gp_why = system("awk -v every=" . gp_sh(gp_numbers) . " -v any=" . gp_sh(gp_any_number) . \
            " -f " . gp_sh(dir . "../scripts/csv.awk") . " -f " . gp_sh(dir . "numbers.awk") . " " . gp_sh(gp_f))
        if (gp_why ne "") { print gp_fail(gp_f, gp_why); exit status 1 }
    }
}
