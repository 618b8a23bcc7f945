/* gv.h: what every part of gpuvet shares: exit codes, error reporting, checked
 * allocation, clocks and file reads and atomic writes. Library code returns a status and fills an
 * error message; only src/cli/ decides to exit. */
#ifndef GV_CORE_GV_H
#define GV_CORE_GV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hd.h" /* GV_SANITIZED */

#ifdef __cplusplus
extern "C" {
#endif

#define GV_VERSION "0.1.0"

/* Exit codes of the gpuvet command (documented in README.md and `gpuvet --help`). */
enum {
    GV_EXIT_OK = 0,      /* success */
    GV_EXIT_FAIL = 1,    /* a check found wrong results (or a smoke stage failed) */
    GV_EXIT_USAGE = 2,   /* bad usage or bad input: flags, files, checkpoints, ROMs */
    GV_EXIT_ENV = 3,     /* the environment cannot do it: device missing, out of memory, I/O */
    GV_EXIT_INTERNAL = 4, /* an internal error: a bug in gpuvet (please report it with the message) */
};

/* Status codes returned by library functions. GV_OK is 0; the others are negative
 * and map onto exit codes with gv_status_exit(). */
typedef enum {
    GV_OK = 0,
    GV_ERR_INPUT = -1,   /* the caller's input (a file, an argument) is bad */
    GV_ERR_ENV = -2,     /* the system cannot do it (no device, no memory, I/O error) */
    GV_ERR_WRONG = -3,   /* the computation ran but its result is wrong */
    GV_ERR_INTERNAL = -4, /* gpuvet broke one of its own rules (a programmer error) */
} gv_status;

int gv_status_exit(gv_status s);

/* Returns a failed status from the calling function: GV_TRY(step(x, err)); */
#define GV_TRY(expr)                                                                               \
    do {                                                                                           \
        gv_status s_ = (expr);                                                                     \
        if (s_ != GV_OK)                                                                           \
            return s_;                                                                             \
    } while (0)

/* A caller-owned buffer that a failing function fills with a one-line message. */
#define GV_ERRLEN 512
typedef struct { char msg[GV_ERRLEN]; } gv_err;

/* Formats into err (if not NULL) and returns code, so that `return gv_fail(e, ...)` reads well. */
gv_status gv_fail(gv_err *err, gv_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Messages on stderr, prefixed "gpuvet: ". gv_warn adds "warning: ". */
void gv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Global quiet flag of the CLI (set by --quiet): suppresses informational output only. */
extern int gv_quiet;
void gv_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that aborts with file and line on failure: for small, bounded allocations
 * whose failure means the machine is unusable. Large buffers use malloc and report. */
#define gv_xmalloc(n) gv_xmalloc_((n), __FILE__, __LINE__)
#define gv_xcalloc(n, s) gv_xcalloc_((n), (s), __FILE__, __LINE__)
#define gv_xrealloc(p, n) gv_xrealloc_((p), (n), __FILE__, __LINE__)
void *gv_xmalloc_(size_t n, const char *file, int line);
void *gv_xcalloc_(size_t n, size_t size, const char *file, int line);
void *gv_xrealloc_(void *p, size_t n, const char *file, int line);
char *gv_xstrdup(const char *s);
/* A growable array: returns p with room for need elements of elem bytes, *cap (in elements)
 * doubled from first (when 0) until it holds them; p itself when it already does. Aborts like
 * gv_xrealloc. Use: b->p = gv_grow(b->p, &b->cap, b->n + len, 4096). */
#define gv_grow(p, cap, need, first) gv_grow_((p), (cap), (need), (first), sizeof *(p), __FILE__, __LINE__)
void *gv_grow_(void *p, size_t *cap, size_t need, size_t first, size_t elem, const char *file, int line);
/* 64-byte aligned allocation (free with free()); NULL on failure. */
void *gv_aligned_alloc(size_t n);
/* Frees every pointer given, in order (NULL ones included): GV_FREE(m->a, m->b, m). C only
 * (the .cu files have gpu_free for device buffers). */
#define GV_FREE(...) gv_free_list((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
void gv_free_list(void *const *p, size_t n);

/* Monotonic clock in seconds. */
double gv_now(void);
/* CPU time this process has used so far, all threads (seconds). */
double gv_cpu_now(void);
/* Wall-clock time as an ISO 8601 UTC string into buf (at least 32 bytes). */
void gv_utc_iso(char *buf, size_t len);

/* ---- files (file.c) ---- */

/* Writes len bytes to path atomically: a temporary file beside the target is written,
 * flushed and renamed over it, so a reader sees the old file or the new one, never a
 * partial one. On failure (full disk, I/O error) the temporary is removed and path is
 * untouched. A path that is a symbolic link is written through: its target (as the kernel
 * resolves it) is replaced and the link stays; a link in a sticky, world-writable folder
 * that belongs neither to the user nor to the folder's owner is refused (GV_ERR_INPUT), as
 * the kernel's fs.protected_symlinks rule refuses it. An existing file keeps its permission
 * bits; a new one gets 0666 under the umask. Temporaries are named PATH.gvtmp.PID.N; those a killed writer left
 * behind (PID no longer running) are removed by the next write to the same path. */
gv_status gv_write_file_atomic(const char *path, const void *data, size_t len, gv_err *err);

/* The same, streamed: open, write any number of times (the first error sticks and is
 * returned by later calls), then commit (flush and rename) or abort (remove). Both free f. */
typedef struct gv_afile gv_afile;
gv_status gv_afile_open(const char *path, gv_afile **out, gv_err *err);
gv_status gv_afile_write(gv_afile *f, const void *data, size_t len, gv_err *err);
gv_status gv_afile_commit(gv_afile *f, gv_err *err);
void gv_afile_abort(gv_afile *f);

/* Reads a whole file into a malloc'd buffer (NUL-terminated for convenience; *len excludes
 * the NUL). max_len bounds the size accepted (0: 1 GiB). Caller frees *data. A missing or
 * unreadable file, or a directory, is GV_ERR_INPUT; a read error is GV_ERR_ENV. */
gv_status gv_read_file(const char *path, size_t max_len, uint8_t **data, size_t *len, gv_err *err);
/* The same, except that a file that does not exist is not an error: GV_OK, *data NULL and
 * *found 0. Anything else that stops the read (permissions, I/O) is still an error. */
gv_status gv_read_file_if_exists(const char *path, size_t max_len, uint8_t **data, size_t *len, int *found,
                                 gv_err *err);

/* An advisory lock on an output that a long run rewrites again and again (a self-play
 * dataset, a checkpoint per epoch, a battery file), so that two runs never write one file
 * at once and lose each other's work: PATH.lock beside it, held with flock(2) until
 * gv_unlock_output (or the process's end) and then removed. Another process holding it is
 * GV_ERR_ENV naming the file and that process. NULL-safe unlock. */
typedef struct gv_lock gv_lock;
gv_status gv_lock_output(const char *path, gv_lock **out, gv_err *err);
void gv_unlock_output(gv_lock *l);

/* Number of online CPU cores the process may run on. */
int gv_cpu_count(void);
/* The machine's memory and swap together, in bytes (0 when unknown): the most that a
 * process could ever hold. */
uint64_t gv_host_mem_bytes(void);
/* A byte count for a message: "512 MiB", "23.5 GiB", "2.1 TiB" (buf: 32 bytes). */
const char *gv_fmt_bytes(double bytes, char *buf, size_t len);

#define GV_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define GV_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GV_MAX(a, b) ((a) > (b) ? (a) : (b))

#ifdef __cplusplus
}
#endif

#endif
