/* probe.h: what this machine is, as a JSON object ("gpuvet.probe/1", documented field by
 * field in docs/PROBE.md): CPU, memory, kernel, BLAS, each GPU with its memory pool and
 * device-node permissions, driver libraries and environment pitfalls. A field that does not
 * apply or cannot be read is null with a "<field>_why" string beside it.
 *
 * Use:  cJSON *p = sys_probe_json(NULL);        the real machine
 *       sys_probe_print(p, stdout);              the text view
 *       cJSON_AddItemToObject(rec_host, "probe", p);   (the record then owns p) */
#ifndef GV_SYS_PROBE_H
#define GV_SYS_PROBE_H

#include <stdio.h>

#include <cJSON.h>

#define SYS_PROBE_SCHEMA "gpuvet.probe/1"

typedef struct {
    const char *root;      /* NULL or "": the real /sys, /proc, /dev, /etc, /opt; else a fixture tree */
    char **envp;           /* NULL: this process's environment */
    const char *nvml_lib;  /* NULL: libnvidia-ml.so.1 (or $GPUVET_NVML) */
    int no_runtime;        /* 1: do not ask the GPU runtime (fixture trees describe other machines) */
} sys_probe_opts;

/* Never NULL; the caller owns the result. */
cJSON *sys_probe_json_opts(const sys_probe_opts *o);
/* The real machine (root NULL) or a fixture tree, with this process's environment. */
cJSON *sys_probe_json(const char *root);

/* Prints the probe as text: one section per part, every warning at the end. */
void sys_probe_print(const cJSON *probe, FILE *f);
/* The machine in one line: CPU, cores, memory, the GPUs (or why none), warnings. */
void sys_probe_summary(const cJSON *probe, char *buf, size_t len);

/* Looks up an environment variable in envp (NULL: the process's); NULL when unset. */
const char *sys_env_get(char **envp, const char *name);

#endif
