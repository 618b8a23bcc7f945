/* sysfs.h: reading the small text files of /sys, /proc and /dev below a root directory.
 * Every reader of the machine's state takes such a root ("" or NULL for "/"), so tests can
 * point it at fixture trees that mimic real machines (tests/fixtures/sysfs/). */
#ifndef GV_SYS_SYSFS_H
#define GV_SYS_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define SYS_PATH_MAX 512

/* root + "/" + rel into out (rel starts with "/"; root NULL or "" means the real one). */
void sys_path(const char *root, const char *rel, char *out, size_t len);

/* Reads the first line of root/rel into buf without its newline. Returns 0, or a negative
 * errno (the file is missing: -ENOENT; unreadable: -EACCES) so callers can say why. */
int sys_read_line(const char *root, const char *rel, char *buf, size_t len);

/* Reads the whole file (at most 1 MiB) into a malloc'd NUL-terminated string; 0 or -errno. */
int sys_read_text(const char *root, const char *rel, char **out);

/* Reads a decimal integer (first token of the first line); 0 or -errno (-EINVAL: not a number). */
int sys_read_u64(const char *root, const char *rel, uint64_t *v);
int sys_read_i64(const char *root, const char *rel, int64_t *v);

/* Names in directory root/rel that start with prefix, sorted by natural order (card2 before
 * card10); returns how many were stored (at most max), or -errno when the directory cannot
 * be read. Each name is stored in names[i] (SYS_NAME_MAX bytes). */
#define SYS_NAME_MAX 64
int sys_list_dir(const char *root, const char *rel, const char *prefix, char (*names)[SYS_NAME_MAX], int max);

/* Finds "key<sep>value" in a text of lines (/proc/cpuinfo "model name\t: X", /proc/meminfo
 * "MemTotal:  123 kB", KFD properties "gfx_target_version 110003"). Copies the value with
 * surrounding blanks removed into buf; returns 1 when found, 0 when not. */
int sys_text_value(const char *text, const char *key, char *buf, size_t len);

/* A short reason for a negative errno from the readers above: "missing", "permission denied". */
const char *sys_why(int neg_errno);

#endif
