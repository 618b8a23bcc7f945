/* args.h: a small declarative command-line parser shared by every subcommand.
 * Each command lists its flags in an array of args_spec; args_parse validates values
 * (numbers, ranges, lists) and reports the first problem as a one-line message that
 * names the flag. `--name value` and `--name=value` are both accepted. */
#ifndef GV_CORE_ARGS_H
#define GV_CORE_ARGS_H

#include <stdio.h>

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ARGS_FLAG,      /* int*: set to 1 when present */
    ARGS_INT,       /* long*: a whole number in [min, max] */
    ARGS_DOUBLE,    /* double*: a finite number in [dmin, dmax] */
    ARGS_STR,       /* const char**: any non-empty string */
    ARGS_INT_LIST,  /* args_int_list*: comma-separated whole numbers, each in [min, max] */
    ARGS_CHOICE,    /* const char**: one of the comma-separated words in `choices` */
    ARGS_CHOICE_LIST, /* args_str_list*: comma-separated words, each one of `choices` */
} args_kind;

#define ARGS_LIST_MAX 64

typedef struct {
    int n;
    long v[ARGS_LIST_MAX];
} args_int_list;

typedef struct {
    int n;
    char v[ARGS_LIST_MAX][32];
} args_str_list;

typedef struct {
    const char *name;    /* "--batch"; an optional short alias after a '|': "--output|-o" */
    args_kind kind;
    void *dest;
    const char *meta;    /* shown in help: "N", "FILE", "LIST" */
    const char *help;    /* one line; defaults are stated here */
    long min, max;       /* ARGS_INT, ARGS_INT_LIST */
    double dmin, dmax;   /* ARGS_DOUBLE */
    const char *choices; /* ARGS_CHOICE, ARGS_CHOICE_LIST: "fp32,bf16" */
} args_spec;

/* Result of args_parse besides a gv_status. */
enum { ARGS_OK = 0, ARGS_HELP = 1 };

/* Parses argv[0..argc) (the words after the subcommand). Positional arguments are stored
 * in pos (at most max_pos, else an error). Returns ARGS_HELP when -h/--help was given,
 * ARGS_OK on success, or GV_ERR_INPUT with err naming the flag and the problem. */
int args_parse(const args_spec *specs, int nspecs, int argc, char **argv,
               const char **pos, int max_pos, int *npos, gv_err *err);

/* Prints "usage: ...", the description and one line per flag. */
void args_print_help(FILE *f, const char *usage, const char *description,
                     const args_spec *specs, int nspecs);

/* Helpers for commands that validate further. */
int args_list_has(const args_str_list *l, const char *word);

/* The flags every measuring subcommand shares. */
typedef struct {
    const char *devices; /* "cpu" or "cpu,cuda" */
    const char *json;    /* record path or NULL */
    int quiet;
} args_common;

#define ARGS_COMMON_SPECS(c)                                                                   \
    {"--devices", ARGS_STR, &(c)->devices, "LIST", "devices to use: cpu, cuda, or cpu,cuda (default cpu, plus cuda when present)", 0, 0, 0, 0, NULL}, \
    ARGS_OUTPUT_SPECS(&(c)->json, &(c)->quiet)

/* --threads as every command that runs on CPU threads spells it (t: long *; 0: all cores). */
#define ARGS_THREADS_SPEC(t) {"--threads", ARGS_INT, (t), "N", "CPU threads (default: all cores)", 0, 1024, 0, 0, NULL}

/* --json and --quiet|-q as every command spells them (json: const char **, quiet: int *). */
#define ARGS_OUTPUT_SPECS(json, quiet)                                                                                 \
    {"--json", ARGS_STR, (json), "FILE", "write the run's JSON record to FILE (atomically)", 0, 0, 0, 0, NULL}, \
    {"--quiet|-q", ARGS_FLAG, (quiet), NULL, "print only results and errors", 0, 0, 0, 0, NULL}

#ifdef __cplusplus
}
#endif

#endif
