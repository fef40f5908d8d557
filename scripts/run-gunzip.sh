#!/usr/bin/env bash
# A plain copy of a committed run folder: results/ keeps its traces gzipped
# (trace.rank<R>.csv.gz), trilap-analyze reads plain rank files.
#   scripts/run-gunzip.sh SRC DEST
# Copies SRC (a run folder, or a folder of run folders such as
# results/tristream-h200x2) to DEST and gunzips every *.csv.gz in the copy.
# DEST must not exist; on failure nothing is left at DEST.
set -euo pipefail
case ${1-} in -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[[ $# -eq 2 ]] || { echo "run-gunzip.sh: usage: run-gunzip.sh SRC DEST (try --help)" >&2; exit 2; }
src=$1 dest=$2
[[ -d $src ]] || { echo "run-gunzip.sh: $src: not a folder" >&2; exit 1; }
[[ ! -e $dest ]] || { echo "run-gunzip.sh: $dest: exists (give a new folder)" >&2; exit 1; }
mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$(dirname "$dest")/.run-gunzip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/." "$tmp/"
find "$tmp" -name '*.csv.gz' -exec gunzip {} +
mv "$tmp" "$dest"
trap - EXIT
