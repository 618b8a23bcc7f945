/* dev_gpu_nogpu.c: the GPU side of the device layer in a build without a GPU backend.
 * Every entry point reports that the binary has no GPU backend and how to get one. */
#include "dev/dev.h"

#define NO_GPU_MSG "this gpuvet was built without a GPU backend; rebuild with 'make GPU=cuda' or 'make GPU=hip'"

const char *dev_gpu_backend(void)
{
    return NULL;
}

int dev_gpu_count(gv_err *err)
{
    if (err)
        gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
    return 0;
}

gv_status dev_gpu_query(int index, dev_gpu_info *info, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status dev_gpu_download(int index, void *dst, const void *src, size_t bytes, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status dev_gpu_gemm_open(int index, int M, int N, int K, dev_gemm_dtype dt, dev_gpu_gemm **out, gv_err *err)
{
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

/* The remaining entry points can only be reached through a context that open returned,
 * which never happens in this build; they fail the same way for safety. */
gv_status dev_gpu_gemm_set_inputs(dev_gpu_gemm *g, const float *A, const float *B, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status dev_gpu_gemm_poison(dev_gpu_gemm *g, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status dev_gpu_gemm_run(dev_gpu_gemm *g, int reps, double *seconds, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

gv_status dev_gpu_gemm_get_output(dev_gpu_gemm *g, float *C, gv_err *err)
{
    return gv_fail(err, GV_ERR_ENV, NO_GPU_MSG);
}

size_t dev_gpu_gemm_bytes(const dev_gpu_gemm *g)
{
    return 0;
}

void dev_gpu_gemm_close(dev_gpu_gemm *g)
{
}
