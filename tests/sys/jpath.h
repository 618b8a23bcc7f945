/* jpath.h: reading test expectations out of JSON records by dotted path ("gpus.0.arch":
 * numeric steps index arrays), shared by the sys tests. */
#ifndef GV_TESTS_SYS_JPATH_H
#define GV_TESTS_SYS_JPATH_H

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static const cJSON *get(const cJSON *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
        o = isdigit((unsigned char)t[0]) ? cJSON_GetArrayItem(o, atoi(t)) : cJSON_GetObjectItem(o, t);
    return o;
}

__attribute__((unused)) static const char *gs(const cJSON *o, const char *path)
{
    const cJSON *v = get(o, path);
    return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

__attribute__((unused)) static double gn(const cJSON *o, const char *path)
{
    const cJSON *v = get(o, path);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

#endif
