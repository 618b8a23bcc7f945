/* selftest.h: the GPU trainer's kernels against naive device references, kernel by kernel:
 * each fast convolution (tensor-core and SIMT, forward and weight gradient) is compared
 * with a one-thread-per-output kernel that accumulates in double, on random inputs and
 * shapes that do not fill whole tiles. Prints one PASS/FAIL line per comparison. */
#ifndef GV_NN_GPU_SELFTEST_H
#define GV_NN_GPU_SELFTEST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the number of failed comparisons, or -1 when no GPU could be used (a SKIP line
 * saying why has been printed). */
int nn_gpu_selftest(int device_index, unsigned long long seed);

/* Prints the time and TFLOP/s of each convolution kernel for (batch, C) (no checks). */
void nn_gpu_kernel_bench(int device_index, int batch, int C);
/* Prints the time and GB/s of the GroupNorm kernels, earlier and coalesced (no checks). */
void nn_gpu_norm_bench(int device_index, int batch, int C);

#ifdef __cplusplus
}
#endif

#endif
