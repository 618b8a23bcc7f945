/* render_gpu_nogpu.c: the device renderer in a build without a GPU backend: opening it
 * reports that the binary has none and how to get one (the CLI exits 3). */
#include "emu/nes/nes_gpu.h"

#define NO_GPU_MSG "this gpuvet was built without a GPU backend, so '--video device' / '--audio device' cannot run; rebuild with 'make GPU=cuda' or 'make GPU=hip'"

int nes_gpu_count(void)
{
    return 0;
}

gv_status nes_gpu_open(int device, int max_instances, const uint8_t *chr_rom, uint32_t chr_size,
                       const nes_atab *tab, const uint32_t *rgb, nes_gpu **out, gv_err *err)
{
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

/* The remaining entry points need a context from nes_gpu_open, which this build never
 * returns; they fail the same way for safety. */
gv_status nes_gpu_stage(nes_gpu *g, int slot, size_t bytes, uint8_t **buf, gv_err *err)
{
    *buf = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status nes_gpu_submit(nes_gpu *g, int slot, int n, const uint32_t *off, size_t bytes, int video,
                         int audio, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status nes_gpu_wait(nes_gpu *g, int slot, const uint8_t **rgb, const uint64_t **pieces, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

const char *nes_gpu_name(const nes_gpu *g)
{
    return "none";
}

void nes_gpu_close(nes_gpu *g)
{
}
