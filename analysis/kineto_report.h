/* HTA's report of Kineto traces (kineto_hta.c), for the commands that
 * take --hta: apart from kineto.h, the reader, which the loader includes,
 * because it takes the commands' common options (cli.h), a level above
 * the readers. */
#ifndef TL_ANALYSIS_KINETO_REPORT_H
#define TL_ANALYSIS_KINETO_REPORT_H

#include <stddef.h>

#include "analysis/cli.h"

/* `overlap --hta` (what = 0) and `breakdown --hta` (what = 1) on n runs
 * (each a Kineto file or a folder of them): every input read, then HTA's
 * table of all their ranks printed and written (--csv) once; breakdown's
 * rows name their input in a run column. The exit code. */
int tl_kt_hta_report(int what, char *const *inputs, size_t n, const tl_an_common *c);

#endif
