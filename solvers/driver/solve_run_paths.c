/* The names of trilap-solve's runs and where each run's files go: one
 * run writes the names given; several put the run's name in each. */
#include <stdio.h>
#include <string.h>

#include "runtime/out.h"
#include "solvers/driver/solve_impl.h"

/* "SCHEDULE.SOLVER.SPMV", a part for each list of several entries, so that
 * no run's files overwrite another's; "" when one run is all there is. */
void tl_solve_cli_run_name(char *buf, size_t n, const solve_opts *o, const solve_run *run)
{
    const char *parts[3] = {o->nschedules > 1 ? run->schedule->name : NULL,
                            o->nmethods > 1 ? run->method->name : NULL, o->nspmvs > 1 ? run->spmv->label : NULL};
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < 3; k++)
        if (parts[k] && at < n) at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "." : "", parts[k]);
}

/* "x.mtx" for one run; "x[.SCHEDULE][.SOLVER][.SPMV].mtx" with several:
 * the run's name before the extension (and a .gz after it), so that the
 * files keep their type and compression (x.mtx.gz.cg was plain text) */
void tl_solve_cli_run_file_path(char *buf, size_t n, const char *path, const solve_opts *o, const solve_run *run)
{
    char name[256];
    tl_solve_cli_run_name(name, sizeof name, o, run);
    if (!strcmp(path, "/dev/null")) name[0] = '\0'; /* it takes every run's output (as root /dev/null.cg was made) */
    const char *slash = strrchr(path, '/');
    size_t b = slash ? (size_t)(slash + 1 - path) : 0, len = strlen(path);
    size_t end = len - b > 3 && tl_out_names_gzip(path) ? len - 3 : len, at = end;
    for (size_t k = end; k > b + 1; k--) /* a name's leading dot starts no extension */
        if (path[k - 1] == '.') {
            at = k - 1;
            break;
        }
    snprintf(buf, n, "%.*s%s%s%s", (int)at, path, name[0] ? "." : "", name, path + at);
}

/* The run's trace folder: DIR for one run, DIR/SCHEDULE.SOLVER.SPMV (the
 * parts of tl_solve_cli_run_name) with several, each trace holding one run. */
void tl_solve_cli_run_trace_folder(char *buf, size_t n, const solve_opts *o, const solve_run *run)
{
    char name[256];
    tl_solve_cli_run_name(name, sizeof name, o, run);
    snprintf(buf, n, "%s%s%s", o->trace, name[0] ? "/" : "", name);
}
