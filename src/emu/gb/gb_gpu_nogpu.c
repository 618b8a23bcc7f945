/* gb_gpu_nogpu.c: the Game Boy device renderers in a build without a GPU backend: every
 * entry point says so (the CLI turns it into exit code 3). */
#include "emu/gb/gb_gpu.h"

#define NO_GPU_MSG "this gpuvet was built without a GPU backend (--video/--audio device need 'make GPU=cuda' or 'make GPU=hip')"

gv_status gb_gpu_open(int n, int video, int audio, const uint8_t *secret, const gb_lfsr_jump *J, gb_gpu **out,
                      gv_err *err)
{
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

/* The others are only reachable through a context that open never returns here. */
gv_status gb_gpu_staging(gb_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                         uint32_t **voff, uint32_t **aoff, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status gb_gpu_submit(gb_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status gb_gpu_wait(gb_gpu *g, int slot, const uint64_t **hashes, const int16_t **samples, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status gb_gpu_frame(gb_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

void gb_gpu_close(gb_gpu *g)
{
    (void)g;
}
