/* gv.c: error reporting, checked allocation, clocks, the CPU count. Files: file.c. */
#include "core/gv.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
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
    case GV_ERR_INTERNAL: return GV_EXIT_INTERNAL;
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

void *gv_grow_(void *p, size_t *cap, size_t need, size_t first, size_t elem, const char *file, int line)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    *cap = c;
    return gv_xrealloc_(p, c * elem, file, line);
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

double gv_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void gv_utc_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
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

uint64_t gv_host_mem_bytes(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    return ((uint64_t)si.totalram + (uint64_t)si.totalswap) * (uint64_t)si.mem_unit;
}

const char *gv_fmt_bytes(double bytes, char *buf, size_t len)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5)
        bytes /= 1024, u++;
    snprintf(buf, len, u == 0 || bytes >= 100 ? "%.0f %s" : "%.1f %s", bytes, unit[u]);
    return buf;
}

void gv_free_list(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
}
