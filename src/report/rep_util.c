/* rep_util.c: field access and the noise of a measurement, shared by verdicts, views and
 * compare (see rep_int.h). */
#include <math.h>
#include <string.h>

#include "core/gv.h"
#include "core/record.h"
#include "report/rep_int.h"

double rep_value(const cJSON *e, const char *kind)
{
    if (!strcmp(kind, "train"))
        return gv_json_num(e, "samples_per_s_median");
    if (!strcmp(kind, "matmul"))
        return gv_json_num(e, "gflops_median");
    return gv_json_num(e, "fps_median");
}

double rep_noise(const cJSON *e, const char *kind)
{
    double med = rep_value(e, kind), lo = NAN, hi = NAN, cv = NAN;
    if (!strcmp(kind, "train")) {
        lo = gv_json_num(e, "samples_per_s_min");
        hi = gv_json_num(e, "samples_per_s_max");
        if (!isfinite(hi))
            hi = gv_json_num(e, "samples_per_s_best");
        cv = gv_json_num(e, "cv");
    } else if (!strcmp(kind, "matmul")) {
        lo = gv_json_num(e, "gflops_min");
        hi = gv_json_num(e, "gflops_best");
    } else {
        lo = gv_json_num(e, "fps_min");
        hi = gv_json_num(e, "fps_max");
        if (!isfinite(hi))
            hi = gv_json_num(e, "fps_best");
        /* Older records hold only the best and the median: assume the spread is symmetric. */
        if (!isfinite(lo) && isfinite(hi))
            lo = med - (hi - med);
        cv = gv_json_num(e, "cv");
    }
    double n = 0.02;
    if (isfinite(med) && med > 0 && isfinite(lo) && isfinite(hi))
        n = GV_MAX(n, (hi - lo) / med);
    if (isfinite(cv))
        n = GV_MAX(n, 2 * cv);
    return n;
}
