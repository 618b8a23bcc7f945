/* gpu_nogpu.c: the GPU trainer's constructor in a build without a GPU backend. */
#include "nn/nn_backend.h"

gv_status nn_gpu_create(const dev_id *dev, const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out,
                        gv_err *err)
{
    *out = NULL;
    return gv_fail(err, GV_ERR_ENV,
                   "this gpuvet was built without a GPU backend; rebuild with 'make GPU=cuda' or 'make GPU=hip'");
}
