/* file.c: whole-file reads and atomic writes (see gv.h). Every output gpuvet writes goes
 * through gv_afile: a temporary beside the target, written, fsync'd and renamed, so that
 * a kill, a full disk or a concurrent writer never leaves a partial file or loses the old
 * one. Plain POSIX; nothing here is big enough to want a library. */
#include "core/gv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct gv_afile {
    char *path;    /* what the user named (for messages) */
    char *target;  /* what gets replaced: path, or a symbolic link's target */
    char *tmp;     /* NULL when writing straight into a pipe or device */
    int fd;
    gv_status st;  /* the first error */
    char msg[GV_ERRLEN];
};

#define TMP_TAG ".gvtmp."

/* The file a path names after following symbolic links (the link's target when the target
 * does not exist yet); a copy of path when it is no link. NULL on a loop or bad link. */
static char *resolve_target(const char *path)
{
    char *cur = gv_xstrdup(path);
    for (int depth = 0; depth < 40; depth++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        buf[n] = 0;
        char *next;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash) {
            next = gv_xstrdup(buf);
        } else { /* relative to the link's folder */
            size_t dl = (size_t)(slash - cur) + 1;
            next = gv_xmalloc(dl + (size_t)n + 1);
            memcpy(next, cur, dl);
            memcpy(next + dl, buf, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

/* Removes temporaries of target that writers no longer running left behind. */
static void remove_stale(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? gv_xmalloc((size_t)(slash - target) + 2) : gv_xstrdup(".");
    if (slash) {
        size_t dl = (size_t)(slash - target);
        memcpy(dir, target, dl ? dl : 1);
        dir[dl ? dl : 1] = 0;
    }
    const char *base = slash ? slash + 1 : target;
    size_t bl = strlen(base), tl = strlen(TMP_TAG);
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            const char *nm = e->d_name;
            if (strncmp(nm, base, bl) || strncmp(nm + bl, TMP_TAG, tl))
                continue;
            char *end;
            long pid = strtol(nm + bl + tl, &end, 10);
            if (pid <= 0 || *end != '.' || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
                continue; /* not ours, or its writer is still running */
            size_t need = strlen(dir) + strlen(nm) + 2;
            char *full = gv_xmalloc(need);
            snprintf(full, need, "%s/%s", dir, nm);
            unlink(full);
            free(full);
        }
        closedir(d);
    }
    free(dir);
}

static gv_status afail(gv_afile *f, gv_status code, const char *what, gv_err *err)
{
    if (f->st == GV_OK) {
        f->st = code;
        snprintf(f->msg, sizeof f->msg, "cannot write '%.300s': %s: %s", f->path, what, strerror(errno));
    }
    return gv_fail(err, f->st, "%s", f->msg);
}

static void afile_free(gv_afile *f)
{
    if (f->fd >= 0)
        close(f->fd);
    GV_FREE(f->path, f->target, f->tmp, f);
}

gv_status gv_afile_open(const char *path, gv_afile **out, gv_err *err)
{
    static atomic_uint counter;
    *out = NULL;
    /* A pipe, terminal or device (e.g. /dev/stdout) cannot be replaced by a rename, and
     * there is no old file to lose: write into it directly. */
    struct stat pst;
    if (stat(path, &pst) == 0 && !S_ISREG(pst.st_mode) && !S_ISDIR(pst.st_mode)) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return gv_fail(err, GV_ERR_ENV, "cannot write '%s': %s", path, strerror(errno));
        gv_afile *f = gv_xcalloc(1, sizeof *f);
        f->path = gv_xstrdup(path);
        f->fd = fd;
        *out = f;
        return GV_OK;
    }
    char *target = resolve_target(path);
    if (!target)
        return gv_fail(err, GV_ERR_INPUT, "cannot write '%s': the symbolic link cannot be followed: %s", path,
                       strerror(errno));
    struct stat st;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        free(target);
        return gv_fail(err, GV_ERR_INPUT, "cannot write '%s': it is a folder", path);
    }
    remove_stale(target);
    gv_afile *f = gv_xcalloc(1, sizeof *f);
    f->path = gv_xstrdup(path);
    f->target = target;
    size_t n = strlen(target) + 64;
    f->tmp = gv_xmalloc(n);
    f->fd = -1;
    for (int tries = 0; tries < 100 && f->fd < 0; tries++) {
        snprintf(f->tmp, n, "%s" TMP_TAG "%ld.%u", target, (long)getpid(), atomic_fetch_add(&counter, 1));
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (f->fd < 0 && errno != EEXIST)
            break;
    }
    if (f->fd < 0) {
        gv_status s = gv_fail(err, GV_ERR_ENV,
                              "cannot write '%s': cannot create a file in its folder: %s", path, strerror(errno));
        afile_free(f);
        return s;
    }
    *out = f;
    return GV_OK;
}

gv_status gv_afile_write(gv_afile *f, const void *data, size_t len, gv_err *err)
{
    if (f->st != GV_OK)
        return gv_fail(err, f->st, "%s", f->msg);
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t w = write(f->fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return afail(f, GV_ERR_ENV, "write", err);
        }
        p += w;
        len -= (size_t)w;
    }
    return GV_OK;
}

void gv_afile_abort(gv_afile *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (f->tmp)
        unlink(f->tmp);
    afile_free(f);
}

gv_status gv_afile_commit(gv_afile *f, gv_err *err)
{
    if (f->st != GV_OK) {
        gv_status s = gv_fail(err, f->st, "%s", f->msg);
        gv_afile_abort(f);
        return s;
    }
    if (!f->tmp) { /* a pipe or device: nothing to rename */
        int fd = f->fd;
        f->fd = -1;
        gv_status s = close(fd) == 0 ? GV_OK : afail(f, GV_ERR_ENV, "closing it", err);
        afile_free(f);
        return s;
    }
    /* The new file takes the old one's permission bits, or the usual ones under the umask. */
    struct stat st;
    mode_t mode;
    if (stat(f->target, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    gv_status s = GV_OK;
    if (fchmod(f->fd, mode) != 0)
        s = afail(f, GV_ERR_ENV, "setting its permissions", err);
    else if (fsync(f->fd) != 0)
        s = afail(f, GV_ERR_ENV, "flushing it to disk", err);
    int fd = f->fd;
    f->fd = -1;
    if (close(fd) != 0 && s == GV_OK)
        s = afail(f, GV_ERR_ENV, "closing it", err);
    if (s == GV_OK && rename(f->tmp, f->target) != 0)
        s = afail(f, GV_ERR_ENV, "renaming the temporary file into place", err);
    if (s != GV_OK) {
        gv_afile_abort(f);
        return s;
    }
    afile_free(f);
    return GV_OK;
}

gv_status gv_write_file_atomic(const char *path, const void *data, size_t len, gv_err *err)
{
    gv_afile *f;
    gv_status s = gv_afile_open(path, &f, err);
    if (s != GV_OK)
        return s;
    if ((s = gv_afile_write(f, data, len, err)) != GV_OK) {
        gv_afile_abort(f);
        return s;
    }
    return gv_afile_commit(f, err);
}

gv_status gv_read_file_if_exists(const char *path, size_t max_len, uint8_t **data, size_t *len, int *found,
                                 gv_err *err)
{
    if (max_len == 0)
        max_len = (size_t)1 << 30;
    *data = NULL;
    *len = 0;
    *found = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return GV_OK;
        return gv_fail(err, GV_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
    }
    *found = 1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is not a regular file", path);
    }
    if ((uint64_t)st.st_size > max_len) {
        close(fd);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is too large (%lld bytes, at most %zu accepted)", path,
                       (long long)st.st_size, max_len);
    }
    size_t n = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(n + 1);
    if (!buf) {
        close(fd);
        return gv_fail(err, GV_ERR_ENV, "out of memory reading '%s' (%zu bytes)", path, n);
    }
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            gv_status s = r < 0 ? gv_fail(err, GV_ERR_ENV, "cannot read '%s': %s", path, strerror(errno))
                                : gv_fail(err, GV_ERR_INPUT, "cannot read '%s': it shrank while being read", path);
            free(buf);
            close(fd);
            return s;
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return GV_OK;
}

gv_status gv_read_file(const char *path, size_t max_len, uint8_t **data, size_t *len, gv_err *err)
{
    int found;
    gv_status s = gv_read_file_if_exists(path, max_len, data, len, &found, err);
    if (s == GV_OK && !found)
        return gv_fail(err, GV_ERR_INPUT, "cannot open '%s': %s", path, strerror(ENOENT));
    return s;
}
