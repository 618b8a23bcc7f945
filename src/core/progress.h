/* progress.h: a one-line progress display on stderr for long runs, shown only when stderr
 * is a terminal and --quiet is off; redrawn at most ten times a second. */
#ifndef GV_CORE_PROGRESS_H
#define GV_CORE_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int enabled;
    int drawn;
    double last;
    double t0;
} gv_progress;

/* Routes stdout through a stream that clears a drawn progress line first (only when stdout
 * is a terminal; once). main() calls it before anything copies the stdout pointer;
 * gv_progress_init calls it too. */
void gv_progress_stdout(void);
void gv_progress_init(gv_progress *p);
/* Redraws the line "[elapsed] text" (rate-limited). */
void gv_progress_update(gv_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Clears the line. */
void gv_progress_done(gv_progress *p);

#ifdef __cplusplus
}
#endif

#endif
