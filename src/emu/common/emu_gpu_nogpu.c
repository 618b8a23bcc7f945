/* emu_gpu_nogpu.c: the emulators' device pipeline in a build without a GPU backend: there
 * is no device, and opening says how to build one (the commands turn it into exit 3). */
#include "emu/common/emu_gpu.h"

#define NO_GPU_MSG                                                                                         \
    "this gpuvet was built without a GPU backend: --video/--audio device need 'make GPU=cuda' or "        \
    "'make GPU=hip' (docs/BUILD.md)"

gv_status emu_gpu_open(const dev_id *dev, const emu_gpu_ops *ops, const void *cart, const void *m0, int n, int video,
                       int audio, emu_gpu **out, gv_err *err)
{
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

/* The others are reachable only through a pipeline that open never returns here. */
gv_status emu_gpu_staging(emu_gpu *g, int slot, size_t vbytes, size_t abytes, uint8_t **vbuf, uint8_t **abuf,
                          uint32_t **voff, uint32_t **aoff, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status emu_gpu_submit(emu_gpu *g, int slot, size_t vbytes, size_t abytes, int astride, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status emu_gpu_wait(emu_gpu *g, int slot, const uint8_t **vres, const uint8_t **ares, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status emu_gpu_frame(emu_gpu *g, int i, uint8_t *rgb, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status emu_gpu_obs(emu_gpu *g, int w, int h, int down, int grey, const uint8_t **out, int *device, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

const char *emu_gpu_name(const emu_gpu *g)
{
    return "none";
}

void emu_gpu_close(emu_gpu *g)
{
    (void)g;
}
