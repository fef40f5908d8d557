/* What every reader needs of its input, below them all (load.c lists a
 * run's files through the readers, and the readers ask this of theirs):
 * whether a path can be opened without waiting for a writer, the rank of
 * a trace that names none, and whether a file is gzipped twice. */
#include "analysis/analysis.h"

#include <sys/stat.h>

#include "runtime/gzin.h"

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

int tl_an_gzip_inside(const unsigned char *head, long got, int gz)
{
    return gz == 1 && got >= 2 && head[0] == 0x1f && head[1] == 0x8b;
}

int tl_an_gzip_twice(const char *path)
{
    unsigned char head[2];
    int gz = 0;
    long got = tl_gzin_peek(path, head, sizeof head, &gz);
    return tl_an_gzip_inside(head, got, gz);
}
