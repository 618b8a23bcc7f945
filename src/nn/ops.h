/* ops.h: pieces shared by the network's backends inside src/nn: AdamW in float64 (the
 * reference, also used by `check` to recompute a device's update) and float32, the loss,
 * and the relative L2 error every comparison uses. */
#ifndef GV_NN_OPS_H
#define GV_NN_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks an element-wise kernel to be built for AVX-512, AVX2+FMA and the x86-64 baseline;
 * the loader picks the one this CPU runs (GCC function multiversioning, by the CPU's
 * features as __builtin_cpu_supports reads them). Other compilers and machines (aarch64)
 * build the portable loop once, and so does a ThreadSanitizer build: the loader runs the
 * clones' resolvers before the sanitizer's runtime is up, and their instrumented entry
 * crashed every program that links them (make tsan). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define NN_HOT __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NN_HOT
#endif

/* One AdamW step with PyTorch's semantics (torch.optim.AdamW, single-tensor path): for
 * step t (already incremented, t >= 1):
 *   p *= 1 - lr*wd;  m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g
 *   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 * over n elements, with the hyperparameters of nn.h. */
void nn_adamw_f64(double *p, const double *g, double *m, double *v, size_t n, int64_t t, double lr);
/* The same in float32 arithmetic, threaded over threads OpenMP threads (0: default). */
void nn_adamw_f32(float *p, const float *g, float *m, float *v, size_t n, int64_t t, double lr, int threads);

/* Cross-entropy of logits (n,7) against targets plus squared error of value (n) against
 * value targets, summed over these n samples and divided by `denom` (the whole batch's size,
 * so that a batch can be done in parts: the loss is the sum of the parts). When
 * dlogits/dvalue are not NULL, writes the gradient of the loss with respect to logits and
 * value. Computed in float64. */
double nn_loss_f64(const double *logits, const double *value, const int64_t *policy, const double *vtarget, int n,
                   int denom, double *dlogits, double *dvalue);

/* Relative L2 error ||a - b|| / ||b|| (b is the reference); INFINITY when any value is
 * NaN or infinite, so that NaN never passes; ||a|| when ||b|| is 0. */
double nn_rel_l2(const double *a, const double *b, size_t n);

/* ||a - b|| / max(||b||, ||scale||): the error of values b that are sums, relative to the
 * scale they are summed at (scale[i] = sum of the magnitudes of b[i]'s terms; see
 * nn_value_scale). INFINITY as nn_rel_l2 for non-finite values. */
double nn_rel_l2_scale(const double *a, const double *b, const double *scale, size_t n);

#ifdef __cplusplus
}
#endif

#endif
