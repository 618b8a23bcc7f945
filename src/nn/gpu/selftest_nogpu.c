/* selftest_nogpu.c: the kernel self-test in a build without a GPU backend. */
#include <stdio.h>

#include "nn/gpu/selftest.h"

int nn_gpu_selftest(int device_index, unsigned long long seed)
{
    (void)device_index;
    (void)seed;
    printf("SKIP gpu kernels: this gpuvet was built without a GPU backend (make GPU=cuda)\n");
    return -1;
}

void nn_gpu_kernel_bench(int device_index, int batch, int C)
{
    (void)device_index;
    (void)batch;
    (void)C;
}

void nn_gpu_norm_bench(int device_index, int batch, int C)
{
    (void)device_index;
    (void)batch;
    (void)C;
}
