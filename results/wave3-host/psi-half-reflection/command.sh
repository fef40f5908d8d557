#!/usr/bin/env bash
# The paper's reflection experiment (trilap-fdtd verify reflection: a Ricker
# pulse in a 40^3 interior, order 8, single precision) for each LABEL=BINARY
# given, at the default thicknesses and then at the 20 cells.
#   results/wave3-host/psi-half-reflection/command.sh float=bin/trilap-fdtd half=/tmp/exp-psi/bin/trilap-fdtd
# The half build is branch exp-psi-half (47e2052): the CPU reference rounds
# every memory variable to IEEE half (_Float16) after its update, as storing
# psi in 2 bytes would; everything else is main's.
set -eu
for lb in "$@"; do
  "${lb#*=}" verify reflection --precision single > "${lb%%=*}.csv"
  "${lb#*=}" verify reflection --precision single --cells 0,20 > "${lb%%=*}-20.csv"
done
