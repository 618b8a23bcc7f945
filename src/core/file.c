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
#include <sys/file.h>
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

/* Following a symbolic link that another user planted in a shared folder is how a program
 * run by root (or by anyone) is made to overwrite a file it never named. The kernel refuses
 * such a follow when fs.protected_symlinks is set; gpuvet applies the same rule itself, on
 * every link of the path, so that it holds on machines where the setting is off: a link in
 * a sticky, world-writable folder is followed only when it belongs to the user running
 * gpuvet or to the folder's owner. Only the links' owners and folders are looked at here;
 * where a link leads is left to the kernel. */
static gv_status check_links(const char *path, gv_err *err)
{
    size_t n = strlen(path);
    char *pre = gv_xmalloc(n + 1);
    gv_status s = GV_OK;
    for (size_t i = 1; i <= n && s == GV_OK; i++) {
        if (i < n && path[i] != '/')
            continue;
        memcpy(pre, path, i);
        pre[i] = 0;
        struct stat ls, ds;
        if (lstat(pre, &ls) != 0 || !S_ISLNK(ls.st_mode))
            continue;
        /* the folder holding this link: the prefix up to its last slash */
        char *slash = strrchr(pre, '/');
        const char *dir = ".";
        if (slash == pre)
            dir = "/";
        else if (slash)
            *slash = 0, dir = pre;
        if (stat(dir, &ds) != 0)
            continue;
        uid_t me = geteuid();
        if ((ds.st_mode & S_ISVTX) && (ds.st_mode & S_IWOTH) && ls.st_uid != me && ls.st_uid != ds.st_uid) {
            if (slash && slash != pre)
                *slash = '/';
            s = gv_fail(err, GV_ERR_INPUT, "cannot write '%s': '%s' is a symbolic link in a shared folder that another "
                        "user (uid %u) owns; gpuvet does not follow such links: give the real path", path, pre,
                        (unsigned)ls.st_uid);
        }
    }
    free(pre);
    return s;
}

/* The file that path names, as the kernel resolves it (every link followed under the
 * kernel's own rules), as an absolute path; a link to a file that does not exist yet gets
 * that file created, empty, through the link. NULL with errno set when it cannot be opened. */
static char *kernel_target(const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        int c = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
        if (c < 0)
            return NULL;
        close(c);
        fd = open(path, O_PATH | O_CLOEXEC);
    }
    if (fd < 0)
        return NULL;
    char proc[64], buf[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(proc, buf, sizeof buf - 1);
    int e = errno;
    close(fd);
    if (n <= 0 || buf[0] != '/') {
        errno = n < 0 ? e : ENOENT;
        return NULL;
    }
    buf[n] = 0;
    return gv_xstrdup(buf);
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
    GV_TRY(check_links(path, err));
    /* A pipe, terminal or device (e.g. /dev/stdout) cannot be replaced by a rename, and
     * there is no old file to lose: write into it directly. */
    struct stat pst, lst;
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
    /* A symbolic link is written through: its target (as the kernel resolves it) is
     * replaced and the link stays. */
    char *target;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (!(target = kernel_target(path)))
            return gv_fail(err, GV_ERR_INPUT, "cannot write '%s': the symbolic link cannot be followed: %s", path,
                           strerror(errno));
    } else {
        target = gv_xstrdup(path);
    }
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
    /* Opened without blocking, so that a named pipe or a device is refused here instead of
     * waiting for a writer that may never come; a regular file ignores the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return GV_OK;
        return gv_fail(err, GV_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
    }
    *found = 1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        gv_status s = gv_fail(err, GV_ERR_ENV, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return s;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return gv_fail(err, GV_ERR_INPUT, "cannot read '%s': it is %s, not a regular file", path,
                       S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a named pipe"
                       : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
                       : "something else");
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

/* ---- advisory locks on outputs ------------------------------------------------------------ */

struct gv_lock {
    char *path; /* PATH.lock */
    int fd;
};

gv_status gv_lock_output(const char *path, gv_lock **out, gv_err *err)
{
    *out = NULL;
    GV_TRY(check_links(path, err));
    size_t n = strlen(path) + 8;
    char *lp = gv_xmalloc(n);
    snprintf(lp, n, "%s.lock", path);
    /* The lock file is removed by its holder when it is done; a process that opened it just
     * before may then lock the removed file: it checks that the file it locked is still the
     * one at the path, and starts over when it is not. */
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            gv_status s = gv_fail(err, errno == ELOOP ? GV_ERR_INPUT : GV_ERR_ENV,
                                  "cannot lock '%s' for writing: cannot open '%s': %s", path, lp,
                                  errno == ELOOP ? "it is a symbolic link" : strerror(errno));
            free(lp);
            return s;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            char who[32] = "";
            ssize_t r = pread(fd, who, sizeof who - 1, 0);
            who[r > 0 ? r : 0] = 0;
            who[strcspn(who, "\n")] = 0;
            close(fd);
            gv_status s = e == EWOULDBLOCK
                ? gv_fail(err, GV_ERR_ENV, "'%s' is being written by another gpuvet (process %s holds %s): wait for it "
                          "to finish, or write to another file", path, who[0] ? who : "?", lp)
                : gv_fail(err, GV_ERR_ENV, "cannot lock '%s' for writing (%s): %s", path, lp, strerror(e));
            free(lp);
            return s;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(lp, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            char pid[32];
            int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
                /* the holder's number is only for the other process's message */
            }
            gv_lock *l = gv_xcalloc(1, sizeof *l);
            l->path = lp;
            l->fd = fd;
            *out = l;
            return GV_OK;
        }
        close(fd);
    }
    free(lp);
    return gv_fail(err, GV_ERR_ENV, "cannot lock '%s' for writing: its lock file keeps being replaced", path);
}

void gv_unlock_output(gv_lock *l)
{
    if (!l)
        return;
    unlink(l->path); /* while still held: see gv_lock_output */
    close(l->fd);
    free(l->path);
    free(l);
}
