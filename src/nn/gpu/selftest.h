/* selftest.h: the GPU trainer's kernels against plain references, kernel by kernel: each
 * fast convolution (tensor-core and SIMT, forward and weight gradient) against a
 * one-thread-per-output kernel that accumulates in double, on random inputs and shapes that
 * do not fill whole tiles; GroupNorm, BatchNorm, the loss, AdamW and both heads (called as
 * the trainer calls them) against float64 host formulas (selftest_ref.h). Prints one
 * PASS/FAIL line per comparison. */
#ifndef GV_NN_GPU_SELFTEST_H
#define GV_NN_GPU_SELFTEST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the number of failed comparisons, or -1 when no GPU could be used (a SKIP line
 * saying why has been printed). With GV_SELFTEST_BREAK=1 in the environment the references
 * of the BatchNorm, loss, AdamW and head comparisons are moved by three tolerances first,
 * so each of those lines must FAIL: the proof that they can. */
int nn_gpu_selftest(int device_index, unsigned long long seed);

/* Prints the time and TFLOP/s of each convolution kernel for (batch, C) (no checks). */
void nn_gpu_kernel_bench(int device_index, int batch, int C);
/* Prints the time and GB/s of the GroupNorm kernels, earlier and coalesced (no checks). */
void nn_gpu_norm_bench(int device_index, int batch, int C);

#ifdef __cplusplus
}
#endif

#endif
