/* Outputs written whole or not at all (runtime/out.h). */
#include "runtime/out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/tmpfile.h"

int tl_out_in_place(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

tl_status tl_out_open(tl_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    int n = snprintf(o->path, sizeof o->path, "%s", path);
    TL_CHECK(n > 0 && (size_t)n < sizeof o->path, TL_ERR_INVAL, "output name empty or too long: %.200s", path);
    struct stat st;
    TL_CHECK(stat(path, &st) != 0 || !S_ISDIR(st.st_mode), TL_ERR_IO, "%s: a folder; give a file name", path);
    if (tl_out_in_place(path)) {
        o->f = fopen(path, "w");
        if (!o->f) return TL_FAIL(TL_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return TL_OK;
    }
    /* pid + thread + clock, created exclusively: unique across the rank
     * threads of one run without shared state */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int fd = -1, err = EEXIST;
    for (int attempt = 0; attempt < 100 && fd < 0 && err == EEXIST; attempt++) {
        snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%ld.%d", path, (long)getpid(), (long)gettid(),
                 (int)(now.tv_nsec % 1000000) + attempt);
        sigset_t held;
        tl_tmpfile_hold(&held);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        tl_status reg = fd >= 0 ? tl_tmpfile_add(o->tmp, TL_TMP_FILE) : TL_OK;
        tl_tmpfile_release(&held);
        if (reg != TL_OK) {
            close(fd);
            unlink(o->tmp);
            o->tmp[0] = '\0';
            return reg;
        }
    }
    if (fd < 0) {
        o->tmp[0] = '\0';
        return TL_FAIL(TL_ERR_IO, "%s: cannot write (under a temporary name beside it): %s", path, strerror(err));
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        close(fd);
        unlink(o->tmp);
        tl_tmpfile_forget(o->tmp);
        o->tmp[0] = '\0';
        return TL_FAIL(TL_ERR_NOMEM, "%s: cannot set up the output", path);
    }
    return TL_OK;
}

tl_status tl_out_close(tl_out *o, int commit)
{
    if (!o->f) return TL_OK;
    int bad = ferror(o->f);
    int err = errno ? errno : EIO; /* a failed write's, unless a later call took errno */
    /* on disk before it takes the path's place (not for a stream) */
    if (commit && !bad && o->tmp[0] && (fflush(o->f) != 0 || fsync(fileno(o->f)) != 0)) bad = 1, err = errno;
    if (fclose(o->f) != 0) bad = 1, err = errno;
    o->f = NULL;
    if (!o->tmp[0]) /* in place: nothing to drop or move */
        return commit && bad ? TL_FAIL(TL_ERR_IO, "%s: write failed: %s", o->path, strerror(err)) : TL_OK;
    if (commit && !bad && rename(o->tmp, o->path) == 0) {
        tl_tmpfile_forget(o->tmp);
        return TL_OK;
    }
    if (commit && !bad) err = errno;
    remove(o->tmp);
    tl_tmpfile_forget(o->tmp);
    if (!commit) return TL_OK;
    return TL_FAIL(TL_ERR_IO, "%s: %s failed: %s", o->path, bad ? "write" : "rename", strerror(err));
}
