/* record.h: the JSON run record. Every measuring command builds one cJSON object (the
 * record), fills it, and writes it atomically with --json; tables, Markdown and HTML are
 * views of it. Layout of every record:
 *   { "schema": "gpuvet.run/1", "gpuvet_version", "command", "argv": [...],
 *     "started_at", "finished_at", "host": {hostname, ...}, "exit_code",
 *     ...command-specific keys... }
 * Commands add their own keys (for example "check": [...], "bench_train": [...]). */
#ifndef GV_CORE_RECORD_H
#define GV_CORE_RECORD_H

#include <cJSON.h>

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GV_RECORD_SCHEMA "gpuvet.run/1"

/* New record for `gpuvet <command> argv...`. Never NULL (aborts on out of memory). */
cJSON *gv_record_new(const char *command, int argc, char **argv);

/* Sets "finished_at" (now) and "exit_code". */
void gv_record_finish(cJSON *rec, int exit_code);

/* gv_record_finish, then writes the record to path atomically ("-": standard output). */
gv_status gv_record_finish_write(cJSON *rec, int exit_code, const char *path, gv_err *err);

/* Convenience builders (never NULL). */
cJSON *gv_json_doubles(const double *x, int n);
cJSON *gv_json_add_obj(cJSON *parent, const char *key);
cJSON *gv_json_add_arr(cJSON *parent, const char *key);
/* Adds a number, or null when x is not finite (JSON has no NaN). */
void gv_json_add_num(cJSON *obj, const char *key, double x);
/* Reading a record, the one getter of its fields (every layer reads numbers and strings with
 * these): the number at key (NAN when absent or not a number), the string at key (dflt, which
 * may be NULL, when absent or not a string). */
double gv_json_num(const cJSON *obj, const char *key);
const char *gv_json_str(const cJSON *obj, const char *key, const char *dflt);

/* Loads a record written by gpuvet; checks that it parses and carries the schema tag. */
gv_status gv_record_load(const char *path, cJSON **out, gv_err *err);

#ifdef __cplusplus
}
#endif

#endif
