# The triad bandwidth (GB/s) of a `trilap-bench stream --results` CSV,
# found by the header's column names.
NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
$c["function"] == "triad" { print $c["bandwidth_gbs"] }
