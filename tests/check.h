/* check.h: the tiny harness every C test uses. A test prints one line per comparison:
 *   PASS name: what was compared and the figures
 *   FAIL name: ...
 *   SKIP name: why it could not run here
 * tests/run.sh counts these lines; t_done() returns the exit status for main(). */
#ifndef GV_TESTS_CHECK_H
#define GV_TESTS_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_npass, t_nfail;

static void t_vline(const char *tag, const char *name, const char *fmt, va_list ap)
{
    printf("%s %s: ", tag, name);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
}

/* Records one comparison; returns ok so a test can stop early on failure. */
__attribute__((format(printf, 3, 4), unused))
static int t_check(int ok, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vline(ok ? "PASS" : "FAIL", name, fmt, ap);
    va_end(ap);
    if (ok)
        t_npass++;
    else
        t_nfail++;
    return ok;
}

__attribute__((format(printf, 2, 3), unused))
static void t_skip(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    t_vline("SKIP", name, fmt, ap);
    va_end(ap);
}

/* A GPU step that cannot run: a SKIP, or a FAIL where GV_EXPECT_GPU=1 says this machine has a
 * usable GPU (tests/README.md). */
__attribute__((format(printf, 2, 3), unused))
static void t_skip_gpu(const char *name, const char *fmt, ...)
{
    const char *e = getenv("GV_EXPECT_GPU");
    int expect = e && !strcmp(e, "1");
    va_list ap;
    va_start(ap, fmt);
    t_vline(expect ? "FAIL" : "SKIP", name, fmt, ap);
    va_end(ap);
    if (expect)
        t_nfail++;
}

/* Relative L2 error ||a - b|| / ||b|| (b is the reference); NaN or Inf anywhere gives
 * INFINITY, so a NaN never passes a tolerance test. When ||b|| is 0 returns ||a||. */
__attribute__((unused))
static double t_rel_l2(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i]) || !isfinite(b[i]))
            return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

__attribute__((unused))
static int t_done(void)
{
    return t_nfail ? 1 : 0;
}

#endif
