/* What every reader needs of its input, below them all (load_run_files.c lists a
 * run's files through the readers, and the readers ask this of theirs):
 * whether a path can be opened without waiting for a writer, and the rank
 * of a trace that names none. (A file gzipped twice is runtime/gzin.c's to
 * refuse, for every reader.) */
#include "analysis/analysis.h"

#include <sys/stat.h>

int tl_an_is_special(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

int tl_an_rank_unclaimed(const int *ranks, size_t n, size_t stride)
{
    int r = 0;
    for (int taken = 1; taken;) {
        taken = 0;
        for (size_t k = 0; k < n && !taken; k++)
            taken = *(const int *)(const void *)((const char *)ranks + k * stride) == r;
        r += taken;
    }
    return r;
}
