/* Available host memory and the check before large allocations. */
#include "runtime/hostmem.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

const char *tl_bytes_str(double bytes, char *buf, size_t n)
{
    if (bytes >= 1024.0 * 1024.0 * 1024.0)
        snprintf(buf, n, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
    else if (bytes >= 1024.0 * 1024.0)
        snprintf(buf, n, "%.1f MiB", bytes / (1024.0 * 1024.0));
    else if (bytes >= 1024.0)
        snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
    else
        snprintf(buf, n, "%.0f bytes", bytes);
    return buf;
}

static int meminfo_available(double *bytes)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
            *bytes = (double)kb * 1024.0;
            found = 1;
            break;
        }
    }
    fclose(f);
    return found;
}

/* What RLIMIT_AS (ulimit -v) leaves this process: the limit less what it
 * maps now (VmSize, /proc/self/statm's first field: its libraries, CUDA's
 * and MPI's mappings, thread stacks; some 300 MiB for trilap-fdtd), which
 * the limit counts too. 0 where no limit is set; the limit whole where
 * statm cannot be read. */
static int address_space_room(double *bytes)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 0;
    double mapped = 0;
    unsigned long long pages = 0;
    long psize = sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) == 1 && psize > 0) mapped = (double)pages * (double)psize;
        fclose(f);
    }
    double room = (double)rl.rlim_cur - mapped;
    *bytes = room > 0 ? room : 0;
    return 1;
}

tl_status tl_env_bytes(const char *name, double *bytes, int *set)
{
    const char *t = getenv(name);
    *set = t && *t;
    if (!*set) return TL_OK;
    char *end = NULL;
    errno = 0;
    double v = strtod(t, &end);
    TL_CHECK(!errno && end && !*end && v >= 0, TL_ERR_INVAL, "%s='%s' is not a byte count", name,
             t);
    *bytes = v;
    return TL_OK;
}

tl_status tl_hostmem_rooms(double *host, double *process)
{
    int set;
    *process = INFINITY;
    TL_TRY(tl_env_bytes("TRILAP_TEST_HOST_MEM", host, &set));
    if (set) return TL_OK;
    if (!meminfo_available(host)) {
        long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        TL_CHECK(pages > 0 && psize > 0, TL_ERR_SYS,
                 "cannot tell the available memory (no /proc/meminfo, sysconf failed)");
        *host = (double)pages * (double)psize;
    }
    double room;
    if (address_space_room(&room)) *process = room;
    return TL_OK;
}

tl_status tl_hostmem_available(double *bytes)
{
    double host, process;
    TL_TRY(tl_hostmem_rooms(&host, &process));
    *bytes = process < host ? process : host;
    return TL_OK;
}

tl_status tl_hostmem_check(const char *what, double need)
{
    double avail;
    TL_TRY(tl_hostmem_available(&avail));
    if (need <= avail) return TL_OK;
    char a[32], b[32];
    return TL_FAIL(TL_ERR_NOMEM, "%s needs %s of host memory; %s is available", what,
                   tl_bytes_str(need, a, sizeof a), tl_bytes_str(avail, b, sizeof b));
}
