#!/usr/bin/env bash
# Installs the Debian packages of mk/debian-packages.txt that are missing.
#   scripts/install-deps.sh [--require] [--list]
# `make check` and `make demo` run it first (before the build looks for its
# features), .ci/run with --require. As root it runs apt-get; with sudo that
# needs no password, sudo apt-get; otherwise it prints the one command that
# would install them and exits 0, so the caller goes on with what is there.
# Silent when nothing is missing.
#   --require            exit 1 when packages are still missing at the end (CI),
#                        or when it cannot tell (no dpkg-query: not Debian)
#   --list               print the package names and exit
#   TRILAP_NO_INSTALL=1  do nothing (make check TRILAP_NO_INSTALL=1 works too)
#   TRILAP_DRY_RUN=1     say what would run, run nothing; with --require, exit 1
#                        while a package is missing (a dry run installs none)
#   TRILAP_PACKAGES=FILE another package list [mk/debian-packages.txt]
set -euo pipefail
export LC_ALL=C # numbers in awk and printf with a '.' whatever locale the shell (or ssh) passes in

here=$(cd "$(dirname "$0")/.." && pwd)
list=${TRILAP_PACKAGES:-$here/mk/debian-packages.txt}
require=0 list_only=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --require) require=1; shift ;;
        --list) list_only=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "install-deps.sh: invalid argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[[ $list_only == 1 || ${TRILAP_NO_INSTALL:-0} != 1 ]] || exit 0
# a folder passes -r: sed then said "read error" and the run went on as if the list were empty
[[ -f $list && -r $list ]] || {
    echo "install-deps.sh: cannot read the package list $list$([[ -d $list ]] && echo ' (a folder, not a file)')" >&2
    exit 1
}
if [[ $list_only == 1 ]]; then sed 's/#.*//' "$list" | awk 'NF { print $1 }'; exit 0; fi
mapfile -t pkgs < <(sed 's/#.*//' "$list" | awk 'NF { print $1 }')

# Installed means dpkg's "ii" (dpkg -s also answers for a removed package
# whose configuration files remain).
missing_now() {
    local installed
    installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null |
        awk '$2 ~ /^ii/ { print $1 }') || true
    local p
    for p in "${pkgs[@]}"; do
        grep -qxF -- "$p" <<<"$installed" || echo "$p"
    done
}

[[ ${#pkgs[@]} -gt 0 ]] || exit 0
# Without dpkg-query nothing can be checked, without apt-get nothing
# installed: --require cannot say the packages are there, so it fails
# (before, it exited 0 after "install the equivalents yourself", and CI
# went on as if they were)
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: not a Debian system (no dpkg-query): install the equivalents" \
        "of ${pkgs[*]} yourself" >&2
    [[ $require == 0 ]] || { echo "install-deps.sh: --require: cannot check that they are installed here" >&2; exit 1; }
    exit 0
fi
mapfile -t missing < <(missing_now)
[[ ${#missing[@]} -eq 0 ]] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps.sh: missing Debian packages: ${missing[*]}; no apt-get to install them: install them yourself" >&2
    [[ $require == 0 ]] || { echo "install-deps.sh: --require: stopping without them" >&2; exit 1; }
    exit 0
fi

# Who may install: root, or sudo without a password.
run_as=()
if [[ $(id -u) == 0 ]]; then
    how="as root"
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    run_as=(sudo -n)
    how="with sudo"
else
    how=""
fi
cmd_line="sudo apt-get install -y --no-install-recommends ${missing[*]}"
[[ $(id -u) == 0 ]] && cmd_line="apt-get install -y --no-install-recommends ${missing[*]}"
echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
if [[ -z $how ]]; then
    echo "install-deps.sh: not root and no password-less sudo; to install them run" >&2
    echo "  $cmd_line" >&2
    if [[ $require == 1 ]]; then
        echo "install-deps.sh: --require: stopping without them" >&2
        exit 1
    fi
    echo "install-deps.sh: going on without them (TRILAP_NO_INSTALL=1 skips this check)" >&2
    exit 0
fi

# apt-get's and dpkg's chatter goes to a log, shown only when a step fails.
log=$(mktemp "${TMPDIR:-/tmp}/trilap-install-XXXXXX")
trap 'rm -f "$log"' EXIT
apt() {
    if [[ ${TRILAP_DRY_RUN:-0} == 1 ]]; then
        echo "install-deps.sh: would run: ${run_as[*]+${run_as[*]} }apt-get $*" >&2
        return 0
    fi
    if ! ${run_as[@]+"${run_as[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get "$@" >"$log" 2>&1; then
        tail -n 5 "$log" | sed 's/^/  /' >&2
        return 1
    fi
}
verb="installing them"
[[ ${TRILAP_DRY_RUN:-0} != 1 ]] || verb="dry run: would install them"
echo "install-deps.sh: $verb $how (apt-get; TRILAP_NO_INSTALL=1 skips this)" >&2
ok=1
apt update -qq || { echo "install-deps.sh: apt-get update failed" >&2; ok=0; }
if [[ $ok == 1 ]] && ! apt install -y -qq --no-install-recommends "${missing[@]}"; then
    # One name this release lacks fails the whole install: the others one by one.
    echo "install-deps.sh: apt-get install failed; trying the packages one by one" >&2
    for p in "${missing[@]}"; do
        apt install -y -qq --no-install-recommends "$p" ||
            echo "install-deps.sh: could not install $p" >&2
    done
fi
# --require answers whether the packages are there at the end; after a dry
# run they are as they were (before, it exited 0 as if installed, while a
# caller without root got 1 for the same machine)
dry=""
if [[ ${TRILAP_DRY_RUN:-0} == 1 ]]; then
    [[ $require == 1 ]] || exit 0
    still=("${missing[@]}") dry="dry run, nothing installed: "
else
    mapfile -t still < <(missing_now)
fi
if [[ ${#still[@]} -gt 0 ]]; then
    if [[ $require == 1 ]]; then
        echo "install-deps.sh: ${dry}still missing: ${still[*]}; --require: stopping without them" >&2
        exit 1
    fi
    echo "install-deps.sh: still missing: ${still[*]}; going on without them" >&2
    exit 0
fi
echo "install-deps.sh: installed ${missing[*]}" >&2
