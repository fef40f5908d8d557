/* Ranks claimed by record locks in a trace folder (see rank_claim.h). */
#include "probes/rank_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { TL_CLAIM_MAX_RANKS = 4096, TL_CLAIM_RETRIES = 64 };

/* 1: the lock on fd is a claim on path (the file was not removed or
 * replaced between our open and our lock, as a releasing holder does) */
static int tl_claim_current(int fd, const char *path)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

tl_status tl_probes_rank_claim(const char *dir, tl_rank_claim *c)
{
    c->rank = -1;
    c->fd = -1;
    int retries = 0;
    for (int r = 0; r < TL_CLAIM_MAX_RANKS; r++) {
        int n = snprintf(c->path, sizeof c->path, "%s/trace.rank%d.claim", dir, r);
        TL_CHECK(n > 0 && (size_t)n < sizeof c->path, TL_ERR_INVAL, "%s: folder name too long for a rank claim", dir);
        int fd = open(c->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        TL_CHECK(fd >= 0, TL_ERR_IO, "%s: cannot claim a rank: %s", c->path, strerror(errno));
        struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fcntl(fd, F_SETLK, &whole) != 0) {
            int e = errno;
            close(fd);
            TL_CHECK(e == EACCES || e == EAGAIN, TL_ERR_IO, "%s: cannot lock: %s", c->path, strerror(e));
            continue; /* a live process holds rank r */
        }
        if (!tl_claim_current(fd, c->path)) {
            /* its holder gave it back between our open and our lock: the
             * rank is free, through the file now at that name */
            close(fd);
            TL_CHECK(++retries < TL_CLAIM_RETRIES, TL_ERR_IO, "%s: rank claims keep changing", dir);
            r--;
            continue;
        }
        /* the holder's pid, for a person looking at the folder */
        char pid[32];
        int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)len) != len) {
            int e = errno;
            unlink(c->path);
            close(fd);
            return TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", c->path, strerror(e));
        }
        c->rank = r;
        c->fd = fd;
        return TL_OK;
    }
    return TL_FAIL(TL_ERR_IO, "%s: ranks 0 to %d are all claimed by live processes", dir, TL_CLAIM_MAX_RANKS - 1);
}

void tl_probes_rank_release(tl_rank_claim *c)
{
    if (c->rank < 0) return;
    /* removed while still locked: a process that opened the old file
     * finds it is no longer the one at that name, and looks again */
    unlink(c->path);
    close(c->fd);
    c->rank = -1;
    c->fd = -1;
}
