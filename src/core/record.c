/* record.c: building, writing and loading JSON run records (see record.h). */
#include "core/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *check(void *p)
{
    if (!p) {
        fprintf(stderr, "gpuvet: out of memory building a JSON record\n");
        exit(GV_EXIT_ENV);
    }
    return p;
}

cJSON *gv_record_new(const char *command, int argc, char **argv)
{
    cJSON *r = check(cJSON_CreateObject());
    cJSON_AddStringToObject(r, "schema", GV_RECORD_SCHEMA);
    cJSON_AddStringToObject(r, "gpuvet_version", GV_VERSION);
    cJSON_AddStringToObject(r, "command", command);
    cJSON *a = check(cJSON_AddArrayToObject(r, "argv"));
    for (int i = 0; i < argc; i++)
        cJSON_AddItemToArray(a, check(cJSON_CreateString(argv[i])));
    char ts[40];
    gv_utc_iso(ts, sizeof ts);
    cJSON_AddStringToObject(r, "started_at", ts);
    cJSON *h = check(cJSON_AddObjectToObject(r, "host"));
    char name[256] = "";
    if (gethostname(name, sizeof name - 1) != 0)
        strcpy(name, "unknown");
    cJSON_AddStringToObject(h, "hostname", name);
    cJSON_AddNumberToObject(h, "cpus", gv_cpu_count());
    return r;
}

void gv_record_finish(cJSON *rec, int exit_code)
{
    char ts[40];
    gv_utc_iso(ts, sizeof ts);
    cJSON_DeleteItemFromObject(rec, "finished_at");
    cJSON_DeleteItemFromObject(rec, "exit_code");
    cJSON_AddStringToObject(rec, "finished_at", ts);
    cJSON_AddNumberToObject(rec, "exit_code", exit_code);
}

gv_status gv_record_finish_write(cJSON *rec, int exit_code, const char *path, gv_err *err)
{
    gv_record_finish(rec, exit_code);
    char *text = cJSON_Print(rec);
    if (!text)
        return gv_fail(err, GV_ERR_ENV, "out of memory printing the JSON record for '%s'", path);
    size_t n = strlen(text);
    char *withnl = gv_xmalloc(n + 2);
    memcpy(withnl, text, n);
    withnl[n] = '\n';
    withnl[n + 1] = 0;
    cJSON_free(text);
    gv_status s = GV_OK;
    if (!strcmp(path, "-")) { /* standard output */
        fflush(stdout);
        if (fwrite(withnl, 1, n + 1, stdout) != n + 1 || fflush(stdout) != 0)
            s = gv_fail(err, GV_ERR_ENV, "cannot write the JSON record to standard output");
    } else {
        s = gv_write_file_atomic(path, withnl, n + 1, err);
    }
    free(withnl);
    return s;
}

cJSON *gv_json_doubles(const double *x, int n)
{
    cJSON *a = check(cJSON_CreateArray());
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, check(isfinite(x[i]) ? cJSON_CreateNumber(x[i]) : cJSON_CreateNull()));
    return a;
}

cJSON *gv_json_add_obj(cJSON *parent, const char *key)
{
    return check(cJSON_AddObjectToObject(parent, key));
}

cJSON *gv_json_add_arr(cJSON *parent, const char *key)
{
    return check(cJSON_AddArrayToObject(parent, key));
}

void gv_json_add_num(cJSON *obj, const char *key, double x)
{
    if (isfinite(x))
        cJSON_AddNumberToObject(obj, key, x);
    else
        cJSON_AddNullToObject(obj, key);
}

double gv_json_num(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *gv_json_str(const cJSON *obj, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

gv_status gv_record_load(const char *path, cJSON **out, gv_err *err)
{
    uint8_t *data;
    size_t len;
    *out = NULL;
    gv_status s = gv_read_file(path, 256u << 20, &data, &len, err);
    if (s != GV_OK)
        return s;
    cJSON *r = cJSON_ParseWithLength((const char *)data, len);
    free(data);
    if (!r)
        return gv_fail(err, GV_ERR_INPUT, "'%s' is not valid JSON", path);
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(r, "schema");
    if (!cJSON_IsObject(r) || !cJSON_IsString(sch) || strncmp(sch->valuestring, "gpuvet.run/", 11) != 0) {
        cJSON_Delete(r);
        return gv_fail(err, GV_ERR_INPUT, "'%s' is not a gpuvet run record (no \"schema\": \"gpuvet.run/...\")", path);
    }
    *out = r;
    return GV_OK;
}
