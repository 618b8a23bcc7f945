/* gv.c: error reporting, checked allocation, clocks and atomic file writes. */
#include "core/gv.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gv_quiet = 0;

int gv_status_exit(gv_status s)
{
    switch (s) {
    case GV_OK: return GV_EXIT_OK;
    case GV_ERR_INPUT: return GV_EXIT_USAGE;
    case GV_ERR_ENV: return GV_EXIT_ENV;
    case GV_ERR_WRONG: return GV_EXIT_FAIL;
    }
    return GV_EXIT_ENV;
}

gv_status gv_fail(gv_err *err, gv_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fprintf(stderr, "gpuvet: %s%s\n", prefix, buf);
}

void gv_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("", fmt, ap);
    va_end(ap);
}

void gv_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void gv_info(const char *fmt, ...)
{
    if (gv_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static void oom(size_t n, const char *file, int line)
{
    fprintf(stderr, "gpuvet: out of memory allocating %zu bytes at %s:%d\n", n, file, line);
    exit(GV_EXIT_ENV);
}

void *gv_xmalloc_(size_t n, const char *file, int line)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n, file, line);
    return p;
}

void *gv_xcalloc_(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size, file, line);
    return p;
}

void *gv_xrealloc_(void *p, size_t n, const char *file, int line)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n, file, line);
    return q;
}

char *gv_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = gv_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

void *gv_aligned_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0)
        return NULL;
    return p;
}

double gv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gv_utc_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

gv_status gv_write_file_atomic(const char *path, const void *data, size_t len, gv_err *err)
{
    size_t plen = strlen(path);
    char *tmp = gv_xmalloc(plen + 16);
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        gv_status s = gv_fail(err, GV_ERR_ENV, "cannot create a temporary file beside '%s': %s",
                              path, strerror(errno));
        free(tmp);
        return s;
    }
    const uint8_t *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fsync(fd) != 0)
        goto fail;
    /* mkstemp creates 0600; give the file the usual permissions under the umask. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto fail;
    free(tmp);
    return GV_OK;
fail:;
    gv_status s = gv_fail(err, GV_ERR_ENV, "cannot write '%s': %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    unlink(tmp);
    free(tmp);
    return s;
}

gv_status gv_read_file(const char *path, size_t max_len, uint8_t **data, size_t *len, gv_err *err)
{
    if (max_len == 0)
        max_len = (size_t)1 << 30;
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gv_fail(err, GV_ERR_INPUT, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is not a regular file", path);
    }
    if ((uint64_t)st.st_size > max_len) {
        fclose(f);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is too large (%lld bytes, at most %zu accepted)",
                       path, (long long)st.st_size, max_len);
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return gv_fail(err, GV_ERR_ENV, "out of memory reading '%s' (%zu bytes)", path, n);
    }
    size_t got = fread(buf, 1, n, f);
    int rerr = ferror(f);
    fclose(f);
    if (got != n || rerr) {
        free(buf);
        return gv_fail(err, GV_ERR_INPUT, "cannot read '%s': short read (%zu of %zu bytes)", path, got, n);
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return GV_OK;
}

int gv_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
