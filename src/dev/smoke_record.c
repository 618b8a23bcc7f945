/* smoke_record.c: a smoke report as a record entry ("smoke" in docs/RECORD.md). */
#include <math.h>

#include "core/record.h"
#include "dev/smoke.h"

cJSON *dev_smoke_json(const smoke_report *r, int index)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "backend", r->backend);
    cJSON_AddNumberToObject(o, "index", index);
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON *st = cJSON_AddArrayToObject(o, "stages");
    int all = 1;
    for (int i = 0; i < SMOKE_STAGES; i++) {
        const smoke_stage *s = &r->stage[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "stage", s->name);
        cJSON_AddBoolToObject(e, "ran", s->ran);
        cJSON_AddBoolToObject(e, "pass", s->ran && s->ok);
        gv_json_add_num(e, "seconds", s->ran ? s->seconds : NAN);
        cJSON_AddStringToObject(e, "detail", s->detail);
        if (s->hint[0])
            cJSON_AddStringToObject(e, "hint", s->hint);
        cJSON_AddItemToArray(st, e);
        all &= s->ran && s->ok;
    }
    cJSON_AddBoolToObject(o, "pass", all);
    return o;
}
