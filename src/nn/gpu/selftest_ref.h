/* selftest_ref.h: float64 host references of the GPU trainer's kernels other than the 3x3
 * convolutions, written as the direct formulas on the trainer's layouts (NHWC activations,
 * parameters in PyTorch layout): GroupNorm and BatchNorm forward and backward, AdamW with
 * every hyperparameter an argument, and the policy and value heads with the loss, forward
 * and backward. The kernel self-test (selftest.cu) compares the kernels with them;
 * tests/nn/test_gpu_refs.c checks them on the CPU (gradients against finite differences,
 * AdamW against nn_adamw_f64). Plain C, built in every configuration. */
#ifndef GV_NN_GPU_SELFTEST_REF_H
#define GV_NN_GPU_SELFTEST_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One norm layer over NHWC activations: M = n*49 rows of C channels. GroupNorm(8) takes its
 * statistics per sample and group of C/8 channels, BatchNorm2d per channel over all rows;
 * eps NN_EPS, BatchNorm's momentum NN_BN_MOMENTUM. */
typedef struct {
    int group; /* 1 GroupNorm(8), 0 BatchNorm */
    int train; /* BatchNorm: 1 batch statistics (running stats updated), 0 the running stats */
    int relu;  /* y = relu(norm(x) + res) */
    int n, C;
} nn_kref_norm;

/* Forward: y (M, C) = [relu](gamma * (x - mean) * rstd + beta [+ res]); res may be NULL.
 * Writes the statistics it used to mean and rstd: GroupNorm (n*8, sample-major), BatchNorm
 * (C). BatchNorm in train mode updates run_mean and run_var (momentum, unbiased variance)
 * unless they are NULL; in eval mode it reads them. */
void nn_kref_norm_forward(const nn_kref_norm *k, const double *x, const double *res, const double *gamma,
                          const double *beta, double *run_mean, double *run_var, double *mean, double *rstd,
                          double *y);

/* Backward of a training forward, from the statistics it wrote. mask: the ReLU's output
 * (elements > 0 pass the gradient: the device's own output, or the reference's y), NULL
 * without a ReLU. Writes dx and, when not NULL, dres (the masked gradient, which is the
 * residual's); adds to dgamma and dbeta (C each). */
void nn_kref_norm_backward(const nn_kref_norm *k, const double *x, const double *mask, const double *dout,
                           const double *gamma, const double *mean, const double *rstd, double *dx, double *dres,
                           double *dgamma, double *dbeta);

/* AdamW over n elements for step t (already counted, t >= 1), PyTorch's formula:
 *   p *= 1 - lr*wd;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
 *   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps). */
void nn_kref_adamw(double *p, const double *g, double *m, double *v, size_t n, int64_t t, double lr, double b1,
                   double b2, double eps, double wd);

/* The two heads and the loss on the trunk's output, as the trainer runs them:
 *   policy: 1x1 conv C->32, norm, ReLU, flatten (index c*49 + pos), Linear(1568, 7)
 *   value:  1x1 conv C->32, norm, ReLU, flatten, Linear(1568, 128), ReLU, Linear(128, 1)
 *   loss:   cross-entropy + mean squared error (nn_loss_f64)
 * The norms are GroupNorm(8) or BatchNorm in train mode. */
typedef struct {
    int n, C, group;
    const double *trunk;                          /* (n*49, C) NHWC */
    const double *pc_w, *pn_g, *pn_b;             /* (32, C), (32), (32) */
    const double *pf_w, *pf_b;                    /* (7, 1568), (7) */
    const double *vc_w, *vn_g, *vn_b;             /* (32, C), (32), (32) */
    const double *vf1_w, *vf1_b, *vf2_w, *vf2_b;  /* (128, 1568), (128), (1, 128), (1) */
    double *pn_rm, *pn_rv, *vn_rm, *vn_rv;        /* BatchNorm's running stats (32 each), updated; may be NULL */
    const int64_t *ptarget;                       /* (n) in 0..6 */
    const double *vtarget;                        /* (n) */
    /* The ReLU masks the backward follows (elements > 0 pass), or NULL for the reference's
     * own: the norms' outputs (n*49, 32) NHWC and the value head's hidden layer (n, 128). */
    const double *mask_p, *mask_v, *mask_h;
} nn_kref_heads;

/* Everything the heads compute, in one allocation (nn_kref_heads_out_alloc / _free).
 * Gradients are in the parameters' layouts; g_trunk is NHWC like the trunk. */
typedef struct {
    int n, C;
    double *logits;      /* (n, 7) */
    double *value;       /* (n) */
    double *value_scale; /* (n): sum_i |vf2_w[i] h[i]| + |vf2_b|, the scale the value is summed at */
    double loss;
    double *hp_x, *hp_a, *hv_x, *hv_a; /* (n*49, 32): the 1x1 convolutions' outputs, the norms' */
    double *vh;          /* (n, 128): the hidden layer after its ReLU */
    double *pmean, *prstd, *vmean, *vrstd; /* the norms' statistics (n*8 or 32 each) */
    double *dlogits, *dvalue;              /* (n, 7), (n) */
    double *g_pc_w, *g_pn_g, *g_pn_b, *g_pf_w, *g_pf_b;
    double *g_vc_w, *g_vn_g, *g_vn_b, *g_vf1_w, *g_vf1_b, *g_vf2_w, *g_vf2_b;
    double g_vf2_b_scale; /* sum_n |dL/dvalue_n|: the scale the value bias's gradient is summed at */
    double *g_trunk;      /* (n*49, C) */
    double *scratch;      /* the backward's activation gradients */
} nn_kref_heads_out;

/* Returns NULL when memory runs out. */
nn_kref_heads_out *nn_kref_heads_out_alloc(int n, int C);
void nn_kref_heads_out_free(nn_kref_heads_out *o);

/* The forward and the loss; with backward, every gradient too. in->n, in->C must be those
 * of out. */
void nn_kref_heads_run(const nn_kref_heads *in, int backward, nn_kref_heads_out *out);

#ifdef __cplusplus
}
#endif

#endif
