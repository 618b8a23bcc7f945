/* smoke_nogpu.c: the smoke test in a build without a GPU backend: stage 1 fails and says
 * how to get a GPU build. */
#include <string.h>

#include "dev/smoke.h"

static const char *names[SMOKE_STAGES] = {"open", "copy", "compile", "run", "readback"};

int dev_gpu_smoke(int index, smoke_report *r)
{
    memset(r, 0, sizeof *r);
    strcpy(r->backend, "none");
    for (int i = 0; i < SMOKE_STAGES; i++)
        r->stage[i].name = names[i];
    smoke_stage *s = &r->stage[0];
    s->ran = 1;
    snprintf(s->detail, sizeof s->detail, "this gpuvet was built without a GPU backend");
    snprintf(s->hint, sizeof s->hint,
             "install the CUDA toolkit (nvcc) or ROCm (hipcc) and rebuild with 'make GPU=cuda' or 'make GPU=hip'");
    return 0;
}
