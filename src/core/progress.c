/* progress.c: one-line progress display on a terminal's stderr. Results go to stdout while
 * a progress line may be drawn on the same terminal; so that they never land glued to its
 * text, the first progress line replaces stdout with a stream (glibc's fopencookie) that
 * clears a drawn progress line before it writes. main() installs it before any engine can
 * keep a copy of the stdout pointer (the check engine printed through such a copy, and its
 * first result of each phase landed on the progress line). This is the one place that
 * knows about it: commands print as usual. */
#include "core/progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "core/gv.h"

static int line_drawn;   /* a progress line is on the terminal now */

static void clear_line(void)
{
    if (line_drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        line_drawn = 0;
    }
}

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
    clear_line();
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(1, buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

/* stdout through out_write, line buffered as a terminal's is (once; only when both
 * streams are the same kind of terminal output, the only case where they can collide). */
void gv_progress_stdout(void)
{
    static int done;
    if (done || !isatty(1))
        return;
    done = 1;
    fflush(stdout);
    cookie_io_functions_t io = {NULL, out_write, NULL, NULL};
    FILE *f = fopencookie(NULL, "w", io);
    if (f) {
        setvbuf(f, NULL, _IOLBF, 0);
        stdout = f;
    }
}

void gv_progress_init(gv_progress *p)
{
    p->enabled = !gv_quiet && isatty(2);
    p->drawn = 0;
    p->t0 = gv_now();
    p->last = 0;
    if (p->enabled)
        gv_progress_stdout();
}

void gv_progress_update(gv_progress *p, const char *fmt, ...)
{
    if (!p->enabled)
        return;
    double now = gv_now();
    if (p->drawn && line_drawn && now - p->last < 0.1)
        return;
    p->last = now;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fflush(stdout); /* results printed so far come first */
    fprintf(stderr, "\r\033[K[%6.1fs] %s", now - p->t0, buf);
    fflush(stderr);
    p->drawn = 1;
    line_drawn = 1;
}

void gv_progress_done(gv_progress *p)
{
    if (p->enabled && p->drawn)
        clear_line();
    p->drawn = 0;
}
