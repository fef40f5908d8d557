# csv_split(line, f): the cells of one CSV row as RFC 4180 reads them, into
# f[1..n] (quotes removed, doubled quotes made single); returns n. awk -F,
# splits inside quotes: trilap-solve quotes its matrix name and tristream
# its environment values, and a comma there moved every column after it.
# trilap's writers keep a row on one line (CR and LF written as spaces), so
# a line is a row. The cells are strings, not awk's numeric strings as
# fields are: add 0 before comparing one as a number. Loaded before the
# program that calls it, or in front of an inline program's text (mawk,
# Debian's awk, has no -e):
#
#   awk -f scripts/csv.awk -f PROGRAM.awk FILE...
#   awk "$(cat scripts/csv.awk)"'PROGRAM' FILE...
#
# csv_field(s) is the way back, tl_results_field's: s quoted only where it
# must be (a comma or a double quote in it), its quotes doubled.
function csv_split(line, f,    n, i, len, ch, cur, q) {
    split("", f)
    n = 0; cur = ""; q = 0; len = length(line)
    for (i = 1; i <= len; i++) {
        ch = substr(line, i, 1)
        if (q) {
            if (ch != "\"") cur = cur ch
            else if (substr(line, i + 1, 1) == "\"") { cur = cur ch; i++ }
            else q = 0
        } else if (ch == "\"") q = 1
        else if (ch == ",") { f[++n] = cur; cur = "" }
        else cur = cur ch
    }
    f[++n] = cur
    return n
}

function csv_field(s) {
    if (s !~ /[,"]/) return s
    gsub(/"/, "\"\"", s)
    return "\"" s "\""
}
