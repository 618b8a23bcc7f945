/* args.c: the declarative command-line parser (see args.h). */
#include "core/args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The item of a sep-separated list that starts at p: its length, and in *next where the
 * item after it starts (NULL after the last). */
static size_t list_item(const char *p, char sep, const char **next)
{
    const char *end = strchr(p, sep);
    *next = end ? end + 1 : NULL;
    return end ? (size_t)(end - p) : strlen(p);
}

/* Is w[0..wlen) one of the items of list, separated by sep ("--long|-s" with '|', choices
 * "fp32,bf16" with ',')? */
static int list_has(const char *list, char sep, const char *w, size_t wlen)
{
    for (const char *p = *list ? list : NULL, *next; p; p = next) {
        size_t n = list_item(p, sep, &next);
        if (n == wlen && strncmp(p, w, n) == 0)
            return 1;
    }
    return 0;
}

/* The long name of a spec, for messages. */
static void long_name(const char *spec_name, char *buf, size_t len)
{
    const char *bar = strchr(spec_name, '|');
    size_t n = bar ? (size_t)(bar - spec_name) : strlen(spec_name);
    if (n >= len)
        n = len - 1;
    memcpy(buf, spec_name, n);
    buf[n] = 0;
}

/* A whole number as people write it: an optional '-' and decimal digits, nothing else (no
 * spaces, no '+', no hexadecimal, which strtol would take). */
static int parse_long(const char *s, long *out)
{
    const char *d = s + (*s == '-');
    if (!*d)
        return -1;
    for (const char *p = d; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int set_value(const args_spec *s, const char *val, gv_err *err)
{
    char nm[64];
    long_name(s->name, nm, sizeof nm);
    switch (s->kind) {
    case ARGS_FLAG:
        break;
    case ARGS_INT: {
        long v;
        if (parse_long(val, &v))
            return gv_fail(err, GV_ERR_INPUT, "%s: expected a whole number, got '%s'", nm, val);
        if (v < s->min || v > s->max)
            return gv_fail(err, GV_ERR_INPUT, "%s: %ld is out of range (%ld to %ld)", nm, v, s->min, s->max);
        *(long *)s->dest = v;
        break;
    }
    case ARGS_DOUBLE: {
        /* decimal only: digits, one '.', an exponent; no spaces, hexadecimal, inf or nan */
        int ok = *val != 0;
        for (const char *p = val; *p && ok; p++)
            ok = (*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '-' || *p == '+';
        errno = 0;
        char *end;
        double v = ok ? strtod(val, &end) : 0;
        if (!ok || errno || *end || !isfinite(v))
            return gv_fail(err, GV_ERR_INPUT, "%s: expected a number, got '%s'", nm, val);
        if (v < s->dmin || v > s->dmax)
            return gv_fail(err, GV_ERR_INPUT, "%s: %g is out of range (%g to %g)", nm, v, s->dmin, s->dmax);
        *(double *)s->dest = v;
        break;
    }
    case ARGS_STR:
        if (!*val)
            return gv_fail(err, GV_ERR_INPUT, "%s: expected a value, got an empty string", nm);
        *(const char **)s->dest = val;
        break;
    case ARGS_CHOICE:
        if (!list_has(s->choices, ',', val, strlen(val)))
            return gv_fail(err, GV_ERR_INPUT, "%s: '%s' is not one of %s", nm, val, s->choices);
        *(const char **)s->dest = val;
        break;
    case ARGS_INT_LIST: {
        args_int_list *l = s->dest;
        l->n = 0;
        for (const char *p = val, *next; p; p = next) {
            size_t n = list_item(p, ',', &next);
            char item[64];
            if (n == 0 || n >= sizeof item)
                return gv_fail(err, GV_ERR_INPUT, "%s: expected comma-separated whole numbers, got '%s'", nm, val);
            memcpy(item, p, n);
            item[n] = 0;
            long v;
            if (parse_long(item, &v))
                return gv_fail(err, GV_ERR_INPUT, "%s: '%s' is not a whole number", nm, item);
            if (v < s->min || v > s->max)
                return gv_fail(err, GV_ERR_INPUT, "%s: %ld is out of range (%ld to %ld)", nm, v, s->min, s->max);
            if (l->n == ARGS_LIST_MAX)
                return gv_fail(err, GV_ERR_INPUT, "%s: more than %d values", nm, ARGS_LIST_MAX);
            l->v[l->n++] = v;
        }
        break;
    }
    case ARGS_CHOICE_LIST: {
        args_str_list *l = s->dest;
        l->n = 0;
        for (const char *p = val, *next; p; p = next) {
            size_t n = list_item(p, ',', &next);
            if (n == 0 || n >= sizeof l->v[0])
                return gv_fail(err, GV_ERR_INPUT, "%s: expected a comma-separated list, got '%s'", nm, val);
            if (s->choices && !list_has(s->choices, ',', p, n))
                return gv_fail(err, GV_ERR_INPUT, "%s: '%.*s' is not one of %s", nm, (int)n, p, s->choices);
            if (l->n == ARGS_LIST_MAX)
                return gv_fail(err, GV_ERR_INPUT, "%s: more than %d values", nm, ARGS_LIST_MAX);
            memcpy(l->v[l->n], p, n);
            l->v[l->n][n] = 0;
            l->n++;
        }
        break;
    }
    }
    return GV_OK;
}

int args_parse(const args_spec *specs, int nspecs, int argc, char **argv,
               const char **pos, int max_pos, int *npos, gv_err *err)
{
    int np = 0;
    int only_pos = 0;
    unsigned char seen[256] = {0}; /* a flag given twice is a mistake, not "the last wins" */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!only_pos && strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (!only_pos && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0))
            return ARGS_HELP;
        if (only_pos || a[0] != '-' || a[1] == 0) {
            if (np >= max_pos)
                return gv_fail(err, GV_ERR_INPUT, "unexpected argument '%s'", a);
            if (pos)
                pos[np] = a;
            np++;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t wlen = eq ? (size_t)(eq - a) : strlen(a);
        const args_spec *s = NULL;
        for (int k = 0; k < nspecs; k++)
            if (list_has(specs[k].name, '|', a, wlen)) {
                s = &specs[k];
                break;
            }
        if (!s)
            return gv_fail(err, GV_ERR_INPUT, "unknown flag '%.*s' (see --help)", (int)wlen, a);
        int idx = (int)(s - specs);
        if (idx < 256 && seen[idx]++) {
            char nm[64];
            long_name(s->name, nm, sizeof nm);
            return gv_fail(err, GV_ERR_INPUT, "%s is given twice (give it once; lists take commas: 1,2,3)", nm);
        }
        if (s->kind == ARGS_FLAG) {
            if (eq)
                return gv_fail(err, GV_ERR_INPUT, "%.*s takes no value", (int)wlen, a);
            *(int *)s->dest = 1;
            continue;
        }
        const char *val;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                return gv_fail(err, GV_ERR_INPUT, "%s needs a value (%s)", a, s->meta ? s->meta : "VALUE");
            val = argv[++i];
        }
        int st = set_value(s, val, err);
        if (st != GV_OK)
            return st;
    }
    if (npos)
        *npos = np;
    return ARGS_OK;
}

void args_print_help(FILE *f, const char *usage, const char *description,
                     const args_spec *specs, int nspecs)
{
    fprintf(f, "usage: %s\n\n%s\n", usage, description);
    if (nspecs > 0)
        fprintf(f, "\noptions:\n");
    for (int k = 0; k < nspecs; k++) {
        char left[96];
        char names[64];
        snprintf(names, sizeof names, "%s", specs[k].name);
        for (char *p = names; *p; p++)
            if (*p == '|')
                *p = ',';
        if (specs[k].meta)
            snprintf(left, sizeof left, "%s %s", names, specs[k].meta);
        else
            snprintf(left, sizeof left, "%s", names);
        fprintf(f, "  %-24s %s\n", left, specs[k].help ? specs[k].help : "");
    }
    fprintf(f, "  %-24s %s\n", "-h,--help", "show this help");
}

int args_list_has(const args_str_list *l, const char *word)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], word) == 0)
            return 1;
    return 0;
}
