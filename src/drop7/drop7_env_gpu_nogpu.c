/* drop7_env_gpu_nogpu.c: the device Drop7 environment (drop7_env.h) in a build without a
 * GPU backend: open fails with drop7_gpu_open's message (GV_ERR_ENV, exit code 3 for a
 * command); the other entry points are only reachable through a context open never returns. */
#include <stddef.h>

#include "drop7/drop7_env.h"
#include "drop7/drop7_gpu.h"

gv_status drop7_env_gpu_open(int device, const drop7_rules *r, int n, int max_moves, drop7_env_gpu **out,
                             gv_err *err)
{
    drop7_gpu *g;
    *out = NULL;
    return drop7_gpu_open(device, &g, err);
}

const drop7_env_arrays *drop7_env_gpu_arrays(const drop7_env_gpu *e)
{
    return NULL;
}

int drop7_env_gpu_device(const drop7_env_gpu *e)
{
    return -1;
}

gv_status drop7_env_gpu_reset(drop7_env_gpu *e, uint64_t base, gv_err *err)
{
    drop7_gpu *g;
    return drop7_gpu_open(0, &g, err);
}

gv_status drop7_env_gpu_step(drop7_env_gpu *e, const void *actions, int on_device, int bits, long *ended,
                             gv_err *err)
{
    drop7_gpu *g;
    return drop7_gpu_open(0, &g, err);
}

gv_status drop7_env_gpu_sample(drop7_env_gpu *e, int player, gv_err *err)
{
    drop7_gpu *g;
    return drop7_gpu_open(0, &g, err);
}

gv_status drop7_env_gpu_records(drop7_env_gpu *e, int current, drop7_record *out, gv_err *err)
{
    drop7_gpu *g;
    return drop7_gpu_open(0, &g, err);
}

const char *drop7_env_gpu_name(const drop7_env_gpu *e)
{
    return "";
}

void drop7_env_gpu_close(drop7_env_gpu *e)
{
}
