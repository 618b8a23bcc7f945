/* drop7_gpu_nogpu.c: Drop7 on the GPU in a build without a GPU backend: open says so
 * (GV_ERR_ENV, exit code 3 for a command); the other entry points are only reachable
 * through a context that open never returns here. */
#include "drop7/drop7_gpu.h"

#define NO_GPU_MSG "this gpuvet was built without a GPU backend (Drop7 on the GPU needs 'make GPU=cuda' or 'make GPU=hip')"

gv_status drop7_gpu_open(int device, drop7_gpu **out, gv_err *err)
{
    (void)device;
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status drop7_gpu_play(drop7_gpu *g, const drop7_rules *r, int player, const uint64_t *seeds, int ngames,
                         int max_moves, drop7_record *out, uint8_t *moves, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

const char *drop7_gpu_name(const drop7_gpu *g)
{
    (void)g;
    return "";
}

void drop7_gpu_close(drop7_gpu *g)
{
    (void)g;
}
