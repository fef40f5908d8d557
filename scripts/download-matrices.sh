#!/usr/bin/env bash
# Fetch the paper's six SuiteSparse matrices, verify each archive against a
# checksum list (sha256sum format), unpack to DEST/<Name>/<Name>.mtx.
# Skips archives already present and verified; resumes partial downloads.
#
#   scripts/download-matrices.sh [options] [NAME...]     (default: all six)
#     --dest DIR           where archives and matrices go [data/suitesparse]
#     --mirror URL         base URL, <URL>/<Group>/<Name>.tar.gz; file:// works
#                          [https://suitesparse-collection-website.herokuapp.com/MM]
#                          (also: https://sparse.tamu.edu/MM)
#     --checksums FILE     expected sha256 per archive [scripts/suitesparse.sha256]
#     --update-checksums   trust this download: record its sha256 in FILE
#     --no-verify          skip verification (not recommended)
#     --list               print the names, groups and URLs, then exit
#
# Verification fails closed: an archive without an entry in the checksum
# list is an error unless --update-checksums (first trusted download) or
# --no-verify is given.
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

here=$(cd "$(dirname "$0")" && pwd)
prog=download-matrices.sh
dest=data/suitesparse
mirror=https://suitesparse-collection-website.herokuapp.com/MM
sums=$here/suitesparse.sha256
update=0 verify=1 list=0
# name -> SuiteSparse group (the paper's Table of test matrices)
declare -A group=([audikw_1]=GHS_psdef [Bump_2911]=Janna [Flan_1565]=Janna [Geo_1438]=Janna
                  [Queen_4147]=Janna [Serena]=Janna)
all=(audikw_1 Bump_2911 Flan_1565 Geo_1438 Queen_4147 Serena)

die() { echo "$prog: $*" >&2; exit 1; }
usage_err() { echo "$prog: $* (try --help)" >&2; exit 2; }

names=()
while [ $# -gt 0 ]; do
  case $1 in
    --dest) [ $# -ge 2 ] || usage_err "--dest needs a value"; dest=$2; shift 2 ;;
    --dest=*) dest=${1#*=}; shift ;;
    --mirror) [ $# -ge 2 ] || usage_err "--mirror needs a value"; mirror=$2; shift 2 ;;
    --mirror=*) mirror=${1#*=}; shift ;;
    --checksums) [ $# -ge 2 ] || usage_err "--checksums needs a value"; sums=$2; shift 2 ;;
    --checksums=*) sums=${1#*=}; shift ;;
    --update-checksums) update=1; shift ;;
    --no-verify) verify=0; shift ;;
    --list) list=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) usage_err "invalid option '$1'" ;;
    *) [ -n "${group[$1]:-}" ] || usage_err "invalid matrix '$1' (one of: ${all[*]})"; names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")
mirror=${mirror%/}

if [ $list = 1 ]; then
  for n in "${names[@]}"; do printf '%-11s %-9s %s/%s/%s.tar.gz\n' "$n" "${group[$n]}" "$mirror" "${group[$n]}" "$n"; done
  exit 0
fi

expected() { # sha256 recorded for archive $1, or empty
  [ -f "$sums" ] || return 0
  awk -v f="$1" '$0 !~ /^#/ && NF >= 2 && $2 == f { print $1; exit }' "$sums"
}

record() { # record sha256 $1 for archive $2 (replacing an old entry)
  local tmp err
  # called where set -e does not hold (check's caller tests it): each step
  # checked, so that a full disk is one line, not 'recorded' with FILE
  # replaced by a cut copy
  tmp=$(mktemp "$sums.XXXXXX" 2>&1) || die "cannot record $2's sha256 in $sums: ${tmp##*: }"
  if ! err=$({ { [ ! -f "$sums" ] || awk -v f="$2" '!(NF >= 2 && $2 == f && $0 !~ /^#/)' "$sums"; } >"$tmp" &&
    { [ -s "$tmp" ] || printf '# sha256  archive (sha256sum format), written by %s --update-checksums\n' "$prog" >"$tmp"; } &&
    printf '%s  %s\n' "$1" "$2" >>"$tmp" && chmod 644 "$tmp" && mv "$tmp" "$sums"; } 2>&1); then
    rm -f "$tmp"
    # printf's and mv's reason ends their line; awk's is in brackets
    err=${err##*: } err=${err##*(}
    die "cannot record $2's sha256 in $sums: ${err%)}"
  fi
}

fetch() { # resume-capable download of URL $1 into $2 (a .part file)
  local url=$1 out=$2 have
  have=$(stat -c %s "$out" 2>/dev/null || echo 0)
  [ "$have" -gt 0 ] && echo "  resuming at byte $have"
  case $url in
    file://*)
      local src=${url#file://}
      [ -f "$src" ] || { echo "$prog: $url: no such file" >&2; return 1; }
      tail -c +"$((have + 1))" "$src" >>"$out" ;;
    *)
      if command -v curl >/dev/null; then
        local quiet=()
        [ -t 2 ] || quiet=(-sS) # the progress meter only on a terminal
        curl -fL ${quiet[@]+"${quiet[@]}"} --retry 3 --retry-delay 5 -C - -o "$out" "$url"
      elif command -v wget >/dev/null; then
        wget -c -O "$out" "$url"
      else
        echo "$prog: need curl or wget to download $url" >&2; return 1
      fi ;;
  esac
}

reach() { # one line and exit 1 where $1's host cannot be reached (no network, no such host)
  local url=$1 err rc=0
  # without it, curl --retry tried a host it could not resolve four times
  # over 15 s, each try one 'curl: (6)' line before the script's own
  case $url in file://*) return 0 ;; esac
  command -v curl >/dev/null || return 0
  err=$(curl -sS -I -L -o /dev/null --connect-timeout 20 "$url" 2>&1) || rc=$?
  case $rc in
    6 | 7 | 28) echo "$prog: $2: cannot reach $url: ${err#curl: (*) } (curl exit $rc); nothing downloaded" >&2; return 1 ;;
  esac
}

check() { # verify archive $1 (path) named $2; 0 ok, 1 mismatch, 3 no entry
  local want got
  [ $verify = 1 ] || return 0
  want=$(expected "$2")
  got=$(sha256sum "$1" | awk '{print $1}')
  if [ -z "$want" ]; then
    if [ $update = 1 ]; then record "$got" "$2"; echo "  recorded sha256 $got in $sums"; return 0; fi
    return 3
  fi
  [ "$want" = "$got" ] && return 0
  echo "  checksum mismatch for $2: expected $want, got $got" >&2
  return 1
}

# --update-checksums replaces FILE by a new one made beside it: checked
# before the work, which otherwise went on and said 'recorded' (exit 0)
# after mktemp and mv had failed
if [ $update = 1 ] && [ $verify = 1 ]; then
  d=$(dirname "$sums")
  [ -d "$d" ] && [ -w "$d" ] || die "cannot write --checksums $sums: $d is not a folder it can write in"
fi
# the highest folder of --dest this run makes (data/ of data/suitesparse)
made_from=""
d=$dest
while [ ! -e "$d" ]; do made_from=$d; d=$(dirname "$d"); done
err=$(mkdir -p "$dest" 2>&1) || die "cannot create --dest $dest: ${err##*: }"
# checked before the work: else the first .part file was refused by bash
# ('line 83: ...: Read-only file system') and the mirror blamed for it
[ -w "$dest" ] || die "cannot write in --dest $dest"
unpacking=""
# a run that fetched nothing leaves no empty folder behind (it left data/
# when it made data/suitesparse), and an unpack cut short no part of one
trap '[ -z "$unpacking" ] || rm -rf "$unpacking"
      [ -z "$made_from" ] || find "$made_from" -depth -type d -empty -delete 2>/dev/null; true' EXIT
failed=0 reached=0
for n in "${names[@]}"; do
  tgz=$n.tar.gz url=$mirror/${group[$n]}/$tgz arch=$dest/$tgz mtx=$dest/$n/$n.mtx
  echo "$n: $url"
  if [ $verify = 1 ] && [ $update = 0 ] && [ -z "$(expected "$tgz")" ]; then
    echo "$prog: $n: no checksum for $tgz in $sums; verification fails closed." >&2
    echo "$prog:   after a download you trust, run with --update-checksums to record it (or --no-verify)." >&2
    failed=1; continue
  fi
  if [ -f "$arch" ]; then
    rc=0; check "$arch" "$tgz" || rc=$?
    if [ $rc = 0 ] && [ -f "$mtx" ]; then echo "  present and verified: $mtx (skipped)"; continue; fi
    if [ $rc != 0 ]; then echo "  $arch fails verification: downloading again"; rm -f "$arch"; fi
  fi
  if [ ! -f "$arch" ]; then
    if [ $reached = 0 ]; then reach "$url" "$n" || { failed=1; break; }; reached=1; fi
    rc=0; fetch "$url" "$arch.part" || rc=$?
    if [ $rc != 0 ]; then
      if [ -s "$arch.part" ]; then
        echo "$prog: $n: download failed (the partial file $arch.part is kept for resuming)" >&2
      else
        rm -f "$arch.part"
        echo "$prog: $n: download failed, nothing received" >&2
      fi
      failed=1
      # no network (curl: 6 host not resolved, 7 no connection): the other matrices would fail the same way
      if [ $rc = 6 ] || [ $rc = 7 ]; then
        echo "$prog: cannot reach ${mirror%%/mat*} (curl exit $rc); the other matrices are not tried" >&2
        break
      fi
      continue
    fi
    rc=0; check "$arch.part" "$tgz" || rc=$?
    if [ $rc != 0 ]; then
      echo "$prog: $n: downloaded archive does not match $sums; removed" >&2
      rm -f "$arch.part"; failed=1; continue
    fi
    mv "$arch.part" "$arch"
  fi
  # unpacked beside DEST/<Name> and moved into place whole: an unpack cut
  # short (^C, a full disk) left part of the matrix at $mtx, which the next
  # run took for all of it ("present and verified")
  unpacking=$(mktemp -d "$dest/.$n.unpack.XXXXXX")
  if ! tar -xzf "$arch" -C "$unpacking"; then
    rm -rf "$unpacking"; unpacking=""
    echo "$prog: $n: cannot unpack $arch" >&2; failed=1; continue
  fi
  if [ ! -f "$unpacking/$n/$n.mtx" ]; then
    rm -rf "$unpacking"; unpacking=""
    echo "$prog: $n: $arch does not contain $n/$n.mtx" >&2; failed=1; continue
  fi
  rm -rf "${dest:?}/$n"
  mv "$unpacking/$n" "$dest/$n"
  rm -rf "$unpacking"; unpacking=""
  echo "  ok: $mtx"
done
exit $failed
