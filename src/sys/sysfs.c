/* sysfs.c: small-file readers below a root directory (see sysfs.h). */
#include "sys/sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sys_path(const char *root, const char *rel, char *out, size_t len)
{
    if (!root || !*root || !strcmp(root, "/"))
        snprintf(out, len, "%s", rel);
    else
        snprintf(out, len, "%s%s%s", root, rel[0] == '/' ? "" : "/", rel);
}

int sys_read_line(const char *root, const char *rel, char *buf, size_t len)
{
    char p[SYS_PATH_MAX];
    sys_path(root, rel, p, sizeof p);
    buf[0] = 0;
    FILE *f = fopen(p, "r");
    if (!f)
        return -errno;
    int r = 0;
    if (!fgets(buf, (int)len, f)) {
        r = ferror(f) ? -EIO : 0;
        buf[0] = 0;
    }
    fclose(f);
    size_t n = strlen(buf);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        buf[--n] = 0;
    return r;
}

int sys_read_text(const char *root, const char *rel, char **out)
{
    char p[SYS_PATH_MAX];
    sys_path(root, rel, p, sizeof p);
    *out = NULL;
    FILE *f = fopen(p, "r");
    if (!f)
        return -errno;
    /* sysfs and procfs files report size 0, so read until EOF. */
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return -ENOMEM;
    }
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
        if (n + 1 >= cap) {
            if (cap >= (1u << 20))
                break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return -ENOMEM;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -EIO;
    }
    buf[n] = 0;
    *out = buf;
    return 0;
}

/* Reads the first token of the first line as a whole number (signed or not). */
static int read_whole(const char *root, const char *rel, int is_signed, int64_t *sv, uint64_t *uv)
{
    char buf[128];
    int r = sys_read_line(root, rel, buf, sizeof buf);
    if (r)
        return r;
    if (!is_signed && buf[0] == '-')
        return -EINVAL;
    char *end;
    errno = 0;
    if (is_signed)
        *sv = strtoll(buf, &end, 10);
    else
        *uv = strtoull(buf, &end, 10);
    if (errno || end == buf || (*end && !isspace((unsigned char)*end)))
        return -EINVAL;
    return 0;
}

int sys_read_i64(const char *root, const char *rel, int64_t *v)
{
    return read_whole(root, rel, 1, v, NULL);
}

int sys_read_u64(const char *root, const char *rel, uint64_t *v)
{
    return read_whole(root, rel, 0, NULL, v);
}

/* Natural order: digit runs compare as numbers, so card2 < card10. */
static int natural_cmp(const void *pa, const void *pb)
{
    const char *a = pa, *b = pb;
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);
            if (x != y)
                return x < y ? -1 : 1;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        a++, b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

int sys_list_dir(const char *root, const char *rel, const char *prefix, char (*names)[SYS_NAME_MAX], int max)
{
    char p[SYS_PATH_MAX];
    sys_path(root, rel, p, sizeof p);
    DIR *d = opendir(p);
    if (!d)
        return -errno;
    int n = 0;
    size_t pl = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, prefix, pl) != 0 || strlen(e->d_name) >= SYS_NAME_MAX)
            continue;
        snprintf(names[n++], SYS_NAME_MAX, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, SYS_NAME_MAX, natural_cmp);
    return n;
}

int sys_text_value(const char *text, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        int sep_in_key = kl && strchr("=:", key[kl - 1]);
        if ((size_t)(end - line) >= kl && !strncmp(line, key, kl) && (sep_in_key || strchr(" \t:", line[kl]))) {
            const char *v = line + kl;
            while (v < end && (*v == ' ' || *v == '\t'))
                v++;
            if (v < end && *v == ':')
                v++;
            while (v < end && (*v == ' ' || *v == '\t'))
                v++;
            const char *ve = end;
            while (ve > v && isspace((unsigned char)ve[-1]))
                ve--;
            snprintf(buf, len, "%.*s", (int)(ve - v), v);
            return 1;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (len)
        buf[0] = 0;
    return 0;
}

const char *sys_why(int neg_errno)
{
    switch (-neg_errno) {
    case 0: return "ok";
    case ENOENT: return "missing";
    case EACCES: case EPERM: return "permission denied";
    case EINVAL: return "not a number";
    case ENOTDIR: return "not a directory";
    case ENODATA: case EOPNOTSUPP: return "not supported by the driver";
    default: return strerror(-neg_errno);
    }
}
