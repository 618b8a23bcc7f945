/* envadv.h: the environment settings this machine should use, derived from a probe record
 * (`gpuvet env`): thread counts, the kernel/JIT cache, allocator settings and the library
 * path for a vendor runtime whose first-found copy is broken. Printed as POSIX shell lines
 * so that eval "$(gpuvet env)" works in sh and bash. */
#ifndef GV_SYS_ENVADV_H
#define GV_SYS_ENVADV_H

#include <stdio.h>

#include <cJSON.h>

typedef struct {
    char name[48];
    char value[1024];
    int unset;          /* 1: the variable should not be set at all */
    char comment[320];  /* why, in one line */
} sys_env_setting;

#define SYS_ENV_MAX 16

/* Fills out[0..max) from a probe record and the environment (envp NULL: the process's);
 * returns how many settings there are. */
int sys_env_advice(const cJSON *probe, char **envp, sys_env_setting *out, int max);

/* Prints "# comment" and "export NAME='value'" (or "unset NAME") lines. */
void sys_env_print(const sys_env_setting *s, int n, FILE *f);

/* Compares the settings with the environment, prints one line per setting ("ok ..." or
 * "differs ...") and returns how many differ. */
int sys_env_check(const sys_env_setting *s, int n, char **envp, FILE *f);

#endif
