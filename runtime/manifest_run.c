/* A command's block in manifest.txt beside its results file (results.h):
 * begun before its first row, ended after its last. */
#include "runtime/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/comm.h"
#include "runtime/manifest_impl.h"
#include "runtime/out.h"
#include "runtime/tmpfile.h"

static const char open_lines[] =
    " (while the command runs; one that stopped early keeps this line: its rows are those from here on that no "
    "later block names)";

static const char gone_lines[] =
    " (the command stopped without ending its block, as a later command found: killed, most likely; its rows are "
    "those from here on that no later block names)";

/* A process of this host that is no longer there (a pid on another host,
 * or one taken again since, counts as there). */
static int process_gone(long pid, const char *host)
{
    char here[64] = "host";
    gethostname(here, sizeof here - 1);
    return !strcmp(host, here) && tl_out_writer_gone(pid);
}

/* The folder's lock, which commands writing manifest.txt take in turn:
 * *fd to close, -1 where the file system locks no folder (some NFS
 * mounts), and the blocks are then written unlocked. Under the lock no
 * other writer's temporary is live, and a killed one's are removed. */
static void folder_lock(const char *mpath, int *fd)
{
    char dir[4096];
    const char *slash = strrchr(mpath, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - mpath) : 1, slash ? mpath : ".");
    if (!dir[0]) snprintf(dir, sizeof dir, "/");
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (*fd >= 0 && flock(*fd, LOCK_EX) < 0)
        if (errno != EINTR) {
            close(*fd);
            *fd = -1;
        }
    if (*fd >= 0) tl_out_remove_dead_temporaries(mpath);
}

static tl_status read_manifest(const char *mpath, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    struct stat sb;
    /* rewritten whole by rename: a FIFO there would hang the read */
    TL_CHECK(stat(mpath, &sb) != 0 || S_ISREG(sb.st_mode), TL_ERR_IO,
             "%s: not a regular file (the manifest beside a results file is read and written whole)", mpath);
    FILE *f = fopen(mpath, "rb");
    if (!f) return errno == ENOENT ? TL_OK : TL_FAIL(TL_ERR_IO, "%s: open: %s", mpath, strerror(errno));
    char *p = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 > cap) {
            char *np = realloc(p, cap = 2 * cap + 8192);
            if (!np) {
                free(p);
                fclose(f);
                return TL_FAIL(TL_ERR_NOMEM, "%s: %zu bytes", mpath, cap);
            }
            p = np;
        }
        size_t got = fread(p + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return TL_FAIL(TL_ERR_IO, "%s: read error", mpath);
    }
    p[n] = '\0';
    *data = p;
    *len = n;
    return TL_OK;
}

/* The value of `key` (with its ": ") on a line of [b, e), or NULL; *n its length. */
static const char *block_value(const char *b, const char *e, const char *key, size_t *n)
{
    size_t k = strlen(key);
    for (const char *line = b; line < e;) {
        const char *nl = memchr(line, '\n', (size_t)(e - line));
        if (!nl) nl = e;
        if ((size_t)(nl - line) >= k && !memcmp(line, key, k)) {
            *n = (size_t)(nl - line) - k;
            return line + k;
        }
        line = nl + 1;
    }
    return NULL;
}

static int value_is(const char *b, const char *e, const char *key, const char *want)
{
    size_t n = 0;
    const char *v = block_value(b, e, key, &n);
    return v && n == strlen(want) && !memcmp(v, want, n);
}

/* Where a block's open results_lines text starts, if the command that
 * began it is gone (run_id PID@HOST.TIME); else NULL. */
static const char *block_gone(const char *b, const char *e)
{
    size_t n = 0, k = strlen(open_lines);
    const char *lines = block_value(b, e, "results_lines: from ", &n);
    const char *open = lines ? memchr(lines, ' ', n) : NULL;
    if (!open || (size_t)(lines + n - open) != k || memcmp(open, open_lines, k)) return NULL;
    const char *id = block_value(b, e, "run_id: ", &n);
    const char *at = id ? memchr(id, '@', n) : NULL;
    char host[128];
    if (!at) return NULL;
    snprintf(host, sizeof host, "%.*s", (int)(id + n - at - 1), at + 1);
    char *dot = strrchr(host, '.'); /* the time after the host */
    if (!dot) return NULL;
    *dot = '\0';
    return process_gone(strtol(id, NULL, 10), host) ? open : NULL;
}

/* old's blocks (blank-line separated, each ending in one newline), without
 * those naming `drop` (a results file started afresh; NULL: none); the
 * one whose run_id is `id` replaced by `with` (NULL: left out); `add`
 * after them all (NULL: none).
 * Into f. Returns whether the id's block was there. */
static int rewrite(FILE *f, const char *old, size_t len, const char *drop, const char *id, const char *with,
                   const char *add)
{
    const char *p = old, *end = old + len;
    int found = 0;
    while (p < end) {
        while (p < end && *p == '\n') p++;
        if (p == end) break;
        const char *b = p, *e = p;
        while (e < end && !(*e == '\n' && e + 1 < end && e[1] == '\n')) e++;
        if (e < end) e++; /* the block's own last newline */
        p = e;
        if (drop && value_is(b, e, "results: ", drop)) continue;
        if (id && value_is(b, e, "run_id: ", id)) {
            found = 1;
            if (with) fprintf(f, "%s\n", with);
            continue;
        }
        const char *open = block_gone(b, e);
        if (open) /* said once, by the first command to find it */
            fprintf(f, "%.*s%s%.*s", (int)(open - b), b, gone_lines, (int)(e - open - strlen(open_lines)),
                    open + strlen(open_lines));
        else fprintf(f, "%.*s", (int)(e - b), b);
        fprintf(f, "%s\n", e[-1] == '\n' ? "" : "\n");
    }
    if (add) fprintf(f, "%s", add);
    return found;
}

/* manifest.txt beside results rewritten by rewrite(), under the folder's lock. */
static tl_status edit_locked(const char *results, const char *drop, const char *id, const char *with,
                             const char *add, const char *again)
{
    char mpath[4096];
    tl_results_manifest_path(results, mpath, sizeof mpath);
    char *old = NULL, *all = NULL;
    size_t len = 0, n = 0;
    tl_status st = read_manifest(mpath, &old, &len);
    FILE *f = st == TL_OK ? open_memstream(&all, &n) : NULL;
    if (st == TL_OK && !f) st = TL_FAIL(TL_ERR_NOMEM, "%s: %zu bytes", mpath, len);
    if (f) {
        /* a block gone from the file (removed by hand) is written again */
        if (!rewrite(f, old ? old : "", len, drop, id, with, add) && again) fprintf(f, "%s", again);
        st = fclose(f) != 0 ? TL_FAIL(TL_ERR_NOMEM, "%s", mpath)
             : n > 0        ? tl_file_write_atomic(mpath, all, n)
             : unlink(mpath) == 0 || errno == ENOENT ? TL_OK /* its last block gone */
                                                     : TL_FAIL(TL_ERR_IO, "%s: unlink: %s", mpath, strerror(errno));
    }
    free(all);
    free(old);
    return st;
}

static tl_status edit(const char *results, const char *drop, const char *id, const char *with, const char *add,
                      const char *again)
{
    char mpath[4096];
    tl_results_manifest_path(results, mpath, sizeof mpath);
    int lock;
    folder_lock(mpath, &lock);
    tl_status st = edit_locked(results, drop, id, with, add, again);
    if (lock >= 0) close(lock);
    return st;
}

/* The block with `lines` right after its `results:` line. */
static char *with_lines(const char *block, const char *lines)
{
    const char *r = strstr(block, "\nresults: ");
    const char *nl = r ? strchr(r + 1, '\n') : NULL;
    size_t at = nl ? (size_t)(nl + 1 - block) : strlen(block);
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    if (!f) return NULL;
    fprintf(f, "%.*s%s%s", (int)at, block, lines, block + at);
    return fclose(f) == 0 ? out : (free(out), NULL);
}

static void run_free(tl_manifest_run *run)
{
    if (run->results) tl_tmpfile_forget(run->results); /* ended or aborted: no signal's to take */
    free(run->results);
    free(run->block);
    memset(run, 0, sizeof *run);
}

/* The results file's name as its block's `results:` line holds it: on
 * one line, so that a name with a newline cannot start a block of its
 * own, and told apart from every other name (C escapes: \n, \r, \\). */
static void one_line_name(const char *results, char *buf, size_t n)
{
    const char *slash = strrchr(results, '/');
    size_t k = 0;
    for (const char *c = slash ? slash + 1 : results; *c && k + 3 < n; c++) {
        const int esc = *c == '\n' || *c == '\r' || *c == '\\';
        if (esc) buf[k++] = '\\';
        buf[k++] = *c == '\n' ? 'n' : *c == '\r' ? 'r' : *c;
    }
    if (n) buf[k < n ? k : n - 1] = '\0';
}

static tl_status begin_rank0(tl_manifest_run *run, const char *header, char *block)
{
    /* one hold of the folder's lock for the start and the block: of two
     * commands starting one file, the second sees it started and leaves
     * the first's block (a block added between the two was dropped) */
    char mpath[4096];
    tl_results_manifest_path(run->results, mpath, sizeof mpath);
    TL_TRY(tl_mkdir_parent(run->results)); /* a folder to lock */
    int lock;
    folder_lock(mpath, &lock);
    long next = 0;
    tl_status st = tl_results_start(run->results, header, &run->fresh, &next);
    run->header_bytes = (long)strcspn(header, "\r\n") + 1;
    /* a signal before its first row takes the file it started, as a failure does */
    if (st == TL_OK && run->fresh) st = tl_tmpfile_add_header(run->results, run->header_bytes);
    char lines[512];
    snprintf(lines, sizeof lines, "results_lines: from %ld%s\nrun_id: %s\n", next, open_lines, run->id);
    if (st == TL_OK) run->block = with_lines(block, lines);
    if (st == TL_OK && !run->block) st = TL_FAIL(TL_ERR_NOMEM, "%s: manifest block", mpath);
    char name[4096];
    one_line_name(run->results, name, sizeof name);
    if (st == TL_OK) st = edit_locked(run->results, run->fresh ? name : NULL, NULL, NULL, run->block, NULL);
    if (lock >= 0) close(lock);
    return st;
}

tl_status tl_manifest_begin(tl_ctx *ctx, const char *results, const char *header, const char *extra,
                            tl_manifest_run *run)
{
    TL_CHECK(ctx, TL_ERR_INVAL, "manifest needs a rank context (inside tl_launch_run)");
    if (ctx->rank == 0) memset(run, 0, sizeof *run);
    TL_CHECK(ctx->rank != 0 || (results && header), TL_ERR_INVAL, "rank 0 names the results file and its header");
    char named[4200] = "", name[4096];
    if (ctx->rank == 0) {
        one_line_name(results, name, sizeof name);
        snprintf(named, sizeof named, "results: %s\n", name);
        char host[64] = "host";
        gethostname(host, sizeof host - 1);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(run->id, sizeof run->id, "%ld@%s.%lld%09ld", (long)getpid(), host, (long long)ts.tv_sec, ts.tv_nsec);
        run->results = strdup(results);
    }
    char *block = NULL;
    size_t len = 0;
    /* every rank enters the gather, whatever rank 0's allocation did */
    tl_status st = tl_manifest_text(ctx, ctx->rank == 0 ? named : NULL, extra, &block, &len);
    if (st == TL_OK && ctx->rank == 0)
        st = run->results ? begin_rank0(run, header, block) : TL_FAIL(TL_ERR_NOMEM, "%s", results);
    free(block);
    if (st != TL_OK && ctx->rank == 0) run_free(run);
    /* rank 0's verdict (a results file of other rows, say) is every rank's */
    st = tl_comm_agree(ctx, st);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}

/* "2-3,7" (the rows' lines), "none" */
static void lines_of(const tl_results_rows *rows, char *buf, size_t n)
{
    size_t at = 0;
    if (!rows || rows->count == 0) snprintf(buf, n, "none");
    for (int i = 0; rows && i < rows->nranges && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, rows->lo[i] == rows->hi[i] ? "%s%ld" : "%s%ld-%ld", i ? "," : "",
                               rows->lo[i], rows->hi[i]);
    if (rows && rows->merged && at < n)
        snprintf(buf + at, n - at, " (%ld rows; other commands' rows among the last range)", rows->count);
}

/* The block as begun, its open line replaced by `lines`, `tail` after it. */
static char *ended_block(const tl_manifest_run *run, const char *lines, const char *tail)
{
    const char *from = strstr(run->block, "\nresults_lines: ");
    const char *nl = from ? strchr(from + 1, '\n') : NULL;
    char *done = NULL;
    size_t n = 0;
    FILE *f = nl ? open_memstream(&done, &n) : NULL;
    if (!f) return NULL;
    fprintf(f, "%.*s\nresults_lines: %s%s%s", (int)(from - run->block), run->block, lines, nl, tail ? tail : "");
    return fclose(f) == 0 ? done : (free(done), NULL);
}

static tl_status end_rank0(tl_manifest_run *run, const tl_results_rows *rows, const char *tail)
{
    char lines[2048], gone[2300];
    lines_of(rows, lines, sizeof lines);
    /* a block no longer there was dropped by a command that started the
     * file again (or removed by hand): its lines may name another's rows */
    snprintf(gone, sizeof gone,
             "%s (this block was gone from manifest.txt when the command ended: the results file was started again "
             "meanwhile, or the block removed; lines before a restart are not in this file)",
             lines);
    char *done = ended_block(run, lines, tail), *again = ended_block(run, gone, tail);
    tl_status st = done && again ? edit(run->results, NULL, run->id, done, NULL, again)
                                 : TL_FAIL(TL_ERR_NOMEM, "manifest block");
    free(done);
    free(again);
    run_free(run);
    if (st != TL_OK) return tl_error_frame(st, TL_FILE_, __LINE__);
    return TL_OK;
}

tl_status tl_manifest_end(tl_ctx *ctx, tl_manifest_run *run, const tl_results_rows *rows, const char *tail)
{
    if (ctx->rank != 0 || !run->results) return TL_OK; /* nothing begun */
    return end_rank0(run, rows, tail);
}

void tl_manifest_abort(tl_ctx *ctx, tl_manifest_run *run, const tl_results_rows *rows)
{
    if (ctx->rank != 0 || !run->results) return;
    if (rows && rows->count > 0) { /* its rows stay, and so does what made them */
        (void)end_rank0(run, rows, "stopped: the command failed after these rows\n"); /* a failure said its line */
        return;
    }
    char mpath[4096];
    tl_results_manifest_path(run->results, mpath, sizeof mpath);
    int lock;
    folder_lock(mpath, &lock);
    /* a file this command made and left at the header it wrote, no other's rows in it */
    struct stat sb;
    if (run->fresh && stat(run->results, &sb) == 0 && sb.st_size == run->header_bytes) unlink(run->results);
    (void)edit_locked(run->results, NULL, run->id, NULL, NULL, NULL); /* a failure has said its line */
    if (lock >= 0) close(lock);
    run_free(run);
}
