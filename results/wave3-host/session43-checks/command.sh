#!/usr/bin/env bash
# session43: make check's wall and CPU time at two tests at a time, on this
# 2-core machine alone (no helper running), the build already made, with
# vmstat every 5 s beside it. Tree: 1b8c595 (session42's final code;
# test_clock_align still 21.5 s there).
set -u
export TRILAP_NO_INSTALL=1
vmstat 5 > make-check-jobs2-1b8c595.vmstat.txt &
/usr/bin/time -v make -j2 check > make-check-jobs2-1b8c595.log 2>&1
echo "rc $?" >> make-check-jobs2-1b8c595.log
kill %1
# idle share: awk 'NR>2{n++; id+=$15} END{print id/n}' make-check-jobs2-1b8c595.vmstat.txt
