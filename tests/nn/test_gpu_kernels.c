/* test_gpu_kernels.c: the GPU trainer's kernels against plain references
 * (src/nn/gpu/selftest.cu): the convolutions against naive device kernels; the norms, the
 * loss, AdamW and the heads against float64 host formulas. Skips with a message where no
 * GPU can be used. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "nn/gpu/selftest.h"

int main(void)
{
    const char *s = getenv("GV_SEED");
    unsigned long long seed = s ? strtoull(s, NULL, 10) : gv_rng_fresh_seed();
    int fails = nn_gpu_selftest(0, seed);
    /* GV_KERNEL_BENCH=1 adds kernel timings at training sizes (information only). */
    if (fails >= 0 && getenv("GV_KERNEL_BENCH")) {
        nn_gpu_kernel_bench(0, 8192, 128);
        nn_gpu_kernel_bench(0, 8192, 64);
        nn_gpu_kernel_bench(0, 256, 128);
    }
    /* GV_NORM_BENCH=1: the GroupNorm kernels, earlier, coalesced and coalesced with the ReLU
     * bit mask, at 64 and 128 channels and batches 8192 and 1024 (information only). */
    if (fails >= 0 && getenv("GV_NORM_BENCH")) {
        const int shapes[][2] = {{8192, 128}, {8192, 64}, {1024, 128}, {1024, 64}};
        for (int i = 0; i < 4; i++)
            nn_gpu_norm_bench(0, shapes[i][0], shapes[i][1]);
    }
    if (fails < 0) { /* skipped (the SKIP line is printed): a failure where a GPU is expected */
        const char *e = getenv("GV_EXPECT_GPU");
        if (e && !strcmp(e, "1")) {
            printf("FAIL gpu kernels: GV_EXPECT_GPU=1 but the self-test could not use a GPU\n");
            return 1;
        }
    }
    return fails > 0 ? 1 : 0;
}
