/* progress.c: one-line progress display on a terminal's stderr. */
#include "core/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "core/gv.h"

void gv_progress_init(gv_progress *p)
{
    p->enabled = !gv_quiet && isatty(2);
    p->drawn = 0;
    p->t0 = gv_now();
    p->last = 0;
}

void gv_progress_update(gv_progress *p, const char *fmt, ...)
{
    if (!p->enabled)
        return;
    double now = gv_now();
    if (p->drawn && now - p->last < 0.1)
        return;
    p->last = now;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r\033[K[%6.1fs] %s", now - p->t0, buf);
    fflush(stderr);
    p->drawn = 1;
}

void gv_progress_done(gv_progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = 0;
}
