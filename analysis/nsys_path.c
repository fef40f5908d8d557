/* An Nsight Systems export known by its first bytes (SQLite's, plain or
 * under gzip), and the names of its ranks: FILE.sqlite#R, with
 * #iter-nvtx=SPEC when the iterations are a program's own NVTX ranges. */
#include "analysis/analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gzin.h"

int tl_an_nsys_path(const char *path, char *file, size_t n, int *rank, const char **iter_nvtx)
{
    /* FILE.sqlite#R names rank R of an export, FILE.sqlite#R#iter-nvtx=SPEC
     * with its iterations from the ranges SPEC names (tl_an_run_files_nvtx
     * makes them) */
    char head[4096];
    const char *spec = strstr(path, TL_AN_NSYS_ITER_NVTX);
    tl_an_file_said(path, head, sizeof head);
    *iter_nvtx = spec ? spec + strlen(TL_AN_NSYS_ITER_NVTX) : NULL;
    const char *hash = strrchr(head, '#');
    if (hash && hash[1]) {
        char *end = NULL;
        long r = strtol(hash + 1, &end, 10);
        if (*end == '\0' && r >= 0 && r < 1 << 20) {
            snprintf(file, n, "%.*s", (int)(hash - head), head);
            *rank = (int)r;
            return tl_an_is_nsys(file);
        }
    }
    return 0;
}

const char *tl_an_file_said(const char *path, char *buf, size_t n)
{
    const char *spec = strstr(path, TL_AN_NSYS_ITER_NVTX);
    snprintf(buf, n, "%.*s", spec ? (int)(spec - path) : (int)strlen(path), path);
    return buf;
}

int tl_an_is_nsys(const char *path)
{
    if (tl_an_is_special(path)) return 0; /* opening a FIFO would wait for a writer */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[16] = {0};
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

int tl_an_is_gzip_nsys(const char *path)
{
    if (tl_an_is_special(path)) return 0;
    char head[16];
    int gz = 0;
    return tl_gzin_peek(path, head, sizeof head, &gz) == (long)sizeof head && gz &&
           memcmp(head, "SQLite format 3", 16) == 0;
}
