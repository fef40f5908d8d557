# A CSV file's rows with one tab between cells, for awk -F'\t' readers
# (with csv.awk: awk -f scripts/csv.awk -f scripts/csv-tabs.awk FILE).
{
    n = csv_split($0, f)
    row = f[1]
    for (i = 2; i <= n; i++) row = row "\t" f[i]
    print row
}
