/* gpu_nn.h: launchers of the GPU trainer's kernels (C++ linkage, used only by .cu files).
 *
 * Layouts. Activations are NHWC: a (M, C) row-major matrix with M = N*49 rows, row
 * m = n*49 + y*7 + x. They are stored as float (fp32 mode) or bf16 bits (bf16 mode);
 * `gdt` says which. Parameters, gradients and AdamW state are fp32 in PyTorch layout.
 * A 3x3 convolution reads input (y+ky-1, x+kx-1) for tap t = ky*3+kx; its weights are
 * given to the kernels as a (Cout, 9*Cin) matrix with column k = t*Cin + ci.
 * Every launcher enqueues on `st` and returns GV_OK or GV_ERR_ENV with err filled. */
#ifndef GV_NN_GPU_GPU_NN_H
#define GV_NN_GPU_GPU_NN_H

#include <stddef.h>

#include "core/gv.h"
#include "dev/gpu_blas.h"
#include "dev/gpu_common.h"
#include "nn/nn.h" /* the board: NN_CELLS rows per sample, NN_HEAD_FLAT */

/* bf16 tensor-core kernels exist for NVIDIA sm_80 and newer; everything else runs the
 * SIMT kernels (fp32 arithmetic on fp32 or bf16 storage). */
#if !GV_GPU_IS_HIP
#define GV_HAVE_MMA_BUILD 1
#else
#define GV_HAVE_MMA_BUILD 0
#endif

/* ---- 3x3 convolution as an implicit GEMM -------------------------------------------- */
typedef struct {
    const void *x;      /* (M, cin) input activations */
    const void *w;      /* (cout, 9*cin) weights, column t*cin + ci */
    void *y;            /* (M, cout) output */
    const void *res;    /* optional (M, cout) added to the output before rounding */
    int M, cin, cout;   /* cin, cout multiples of 8 */
    gpu_dtype dt;       /* storage of x, w, y, res */
    int fault;          /* test hook: skip some output writes */
    /* Split-K for small M (a few samples leave most multiprocessors idle with one CTA per
     * output tile): with ws, the K range is cut into splits that write fp32 partial sums
     * (splits x M x cout floats of ws), added in split order by one more kernel that also
     * adds res and rounds to dt. ws NULL: no split. */
    float *ws;
    size_t ws_elems;
    int sm_count;       /* multiprocessors: the split fills about one wave of CTAs */
    int splits;         /* 0: chosen from sm_count; else this many (at most what ws holds) */
} conv_args;

/* The own convolution kernels, as `impl` of the launchers: SIMT (fp32 arithmetic on fp32 or
 * bf16 storage, every GPU); MMA (bf16 mma.sync, NVIDIA sm_80+); WGMMA (bf16 wgmma, a build
 * for sm_90a on an sm_90 device: see gpu_conv_wgmma_built); WGMMA_TMA (WGMMA whose kernels
 * load their operands by TMA where gpu_conv_tma_applies / gpu_conv_wgrad_tma_applies, else
 * WGMMA's cp.async forms). Tensor-core forms apply to bf16; fp32 runs SIMT. */
enum { GPU_CONV_SIMT = 0, GPU_CONV_MMA = 1, GPU_CONV_WGMMA = 2, GPU_CONV_WGMMA_TMA = 3 };

gv_status gpu_conv3x3_fwd(const conv_args *a, int impl, cudaStream_t st, gv_err *err);
/* The K splits gpu_conv3x3_fwd makes of a forward (a->splits, else chosen from M and
 * sm_count; 1 without a workspace): a batch pinned to another size asks for that size's. */
int gpu_conv_fwd_splits(const conv_args *a);

typedef struct {
    const void *dy;     /* (M, cout) output gradient */
    const void *x;      /* (M, cin) input activations */
    float *dw;          /* fp32 gradient in PyTorch layout (cout, cin_real, 3, 3), accumulated */
    float *ws;          /* workspace for the split-K partial sums (splits x cout x 9*cin floats) */
    size_t ws_elems;
    int M, cin, cout;
    int cin_real;       /* channels that exist in the weight (the stem pads 12 to 16) */
    gpu_dtype dt;
    int splits;         /* split-K count over rows (0: choose) */
    int sm_count;
} wgrad_args;

/* Each split writes its partial sums to ws; a reduction kernel adds them, in a fixed order,
 * into dw (so the result is deterministic). dw is added to, not overwritten. */
gv_status gpu_conv3x3_wgrad(const wgrad_args *a, int impl, cudaStream_t st, gv_err *err);

/* The two implementations behind the launchers above (conv_mma.cu, conv_simt.cu). */
/* The kernels with `splits` K splits (1: none; else a->ws holds splits x M x cout floats);
 * each launches the reduction (gpu_conv_splitk_reduce) itself. */
gv_status gpu_conv3x3_fwd_mma(const conv_args *a, int splits, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_fwd_wgmma(const conv_args *a, int splits, cudaStream_t st, gv_err *err);
/* Whether device (sm_90) runs the wgmma kernels: the binary holds sm_90a code for them (a
 * one-thread probe kernel reports it; synchronises). 0 on any other device or backend. */
int gpu_conv_wgmma_built(int device);
/* The forward with TMA loads (sm_90a): whether it applies to a (bf16, cin a multiple of 64,
 * M whole boards, 16-byte aligned x and w, a driver that encodes tensor maps); the kernel
 * fails with GV_ERR_INPUT where it does not. */
int gpu_conv_tma_applies(const conv_args *a);
gv_status gpu_conv3x3_fwd_wgmma_tma(const conv_args *a, int splits, cudaStream_t st, gv_err *err);
/* Y (M, cout) = sum over the splits' partials in a->ws + res, in a->dt. */
gv_status gpu_conv_splitk_reduce(const conv_args *a, int splits, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_wgrad_mma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_wgrad_wgmma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err);
/* The weight gradient with TMA loads (sm_90a): whether it applies (bf16, cin and cout
 * multiples of 64, M whole boards, rows_per_split a multiple of 64, 16-byte aligned x and
 * dy, a driver that encodes tensor maps); the kernel fails with GV_ERR_INPUT where not. */
int gpu_conv_wgrad_tma_applies(const wgrad_args *a, int rows_per_split);
gv_status gpu_conv3x3_wgrad_wgmma_tma(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st,
                                      gv_err *err);
/* Adds the splits' partial sums in ws into dw (PyTorch layout). */
gv_status gpu_wgrad_reduce(const wgrad_args *a, int splits, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_fwd_simt(const conv_args *a, int splits, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_wgrad_simt(const wgrad_args *a, int rows_per_split, int splits, cudaStream_t st, gv_err *err);

/* ---- the same convolutions through cuDNN (conv_cudnn.cu) ------------------------------ */
/* NVIDIA's cuDNN 9, loaded at run time (dlopen of GV_CUDNN_LIB, default libcudnn.so.9); in a
 * build without its header (GV_HAVE_CUDNN unset) or under HIP it is never available. */
typedef struct gpu_dnn gpu_dnn;
/* Opens a cuDNN handle that uses ws (ws_bytes, the caller's, kept until gpu_dnn_close) as
 * its workspace and holds room for one weight gradient of up to max_dw elements. When cuDNN
 * cannot be used, *out is NULL, why says why, and GV_OK is returned; an error only when
 * device memory runs out. */
gv_status gpu_dnn_open(gpu_dnn **out, void *ws, size_t ws_bytes, size_t max_dw, char *why, size_t why_len,
                       gv_err *err);
void gpu_dnn_close(gpu_dnn *h);
/* "cudnn 9.10.2" (the loaded library's version); "" for NULL. */
const char *gpu_dnn_name(const gpu_dnn *h);
/* Device memory h holds itself (not counting the caller's workspace). */
size_t gpu_dnn_bytes(const gpu_dnn *h);
/* As gpu_conv3x3_fwd (a->ws, splits and sm_count unused; res added before rounding; the
 * fault hook too); tf32: fp32 data on TF32 tensor cores, else FMA units. The first call of
 * a shape measures the algorithms on a's buffers (y is overwritten), which cannot happen
 * during a stream capture: gpu_dnn_plan_fwd does that part alone, before capturing. */
gv_status gpu_dnn_fwd(gpu_dnn *h, const conv_args *a, int tf32, cudaStream_t st, gv_err *err);
gv_status gpu_dnn_plan_fwd(gpu_dnn *h, const conv_args *a, int tf32, cudaStream_t st, gv_err *err);
/* As gpu_conv3x3_wgrad: dw (PyTorch layout, fp32) is added to; a->ws, splits unused. In
 * bf16 cuDNN writes the gradient in bf16 before it is added (as PyTorch's bf16 training). */
gv_status gpu_dnn_wgrad(gpu_dnn *h, const wgrad_args *a, int tf32, cudaStream_t st, gv_err *err);
gv_status gpu_dnn_plan_wgrad(gpu_dnn *h, const wgrad_args *a, int tf32, cudaStream_t st, gv_err *err);
/* Whether cuDNN runs a cin -> cout convolution and its weight gradient in dt at all: both
 * planned for one sample on zeroed scratch buffers (synchronises; an error says why not). */
gv_status gpu_dnn_probe(gpu_dnn *h, int cin, int cout, gpu_dtype dt, int tf32, gv_err *err);

/* ---- naive reference kernels for the self-test ---------------------------------------- */
gv_status gpu_conv3x3_fwd_naive(const conv_args *a, cudaStream_t st, gv_err *err);
gv_status gpu_conv3x3_wgrad_naive(const wgrad_args *a, cudaStream_t st, gv_err *err);

/* ---- normalisation ------------------------------------------------------------------- */
/* BatchNorm sums go through GPU_BN_BLOCKS partials per channel added in a fixed order
 * (deterministic results; see norm.cu); its scratch holds the 2*C sums and the partials. */
#define GPU_BN_BLOCKS 256
#define GPU_BN_ROWS 8
#define GPU_BN_SCRATCH(C) ((size_t)(2 + 2 * GPU_BN_BLOCKS) * (size_t)(C))
/* GroupNorm's backward adds dgamma/dbeta through at most this many per-block partials,
 * kept in the same scratch (fixed order, deterministic). */
#define GPU_GN_PARTS 512

/* Which GroupNorm kernels: AUTO the coalesced ones where the shape allows (gpu_gn_coalesced)
 * unless the environment sets GV_GN_OLD=1; OLD the earlier warp-per-group kernels (the
 * self-test's reference and the A/B baseline); NEW the coalesced ones where they apply. */
enum { GPU_GN_AUTO = 0, GPU_GN_OLD = 1, GPU_GN_NEW = 2 };
/* Whether the coalesced GroupNorm kernels handle C channels in dt. */
int gpu_gn_coalesced(int C, gpu_dtype dt);

typedef struct {
    int group;          /* 1 GroupNorm(8), 0 BatchNorm (batch statistics or running) */
    int N, C;           /* M = N*49 rows of C channels */
    const void *x;      /* (M, C) pre-norm input */
    const void *res;    /* optional (M, C) residual added after the norm */
    void *y;            /* (M, C) output: relu(norm(x) [+ res]) (relu when `relu`) */
    int relu;
    const float *gamma, *beta;
    float *mean, *rstd; /* GN: (N*8); BN: (C); written in training, read in eval */
    /* BatchNorm only */
    int train;          /* 1: batch statistics, updating running stats; 0: running stats */
    float *run_mean, *run_var;
    double *acc;        /* scratch: GPU_BN_SCRATCH(C) doubles */
    gpu_dtype dt;
    int fault;
    int impl;           /* GPU_GN_AUTO / OLD / NEW */
    uint8_t *bits;      /* optional: the ReLU mask as bits (gpu_norm_relu_bits), one byte per
                         * 16 bytes of y, bit e of byte i set when element i*W + e of y > 0
                         * (W = 16 / element size); the backward reads it instead of y */
} norm_fwd_args;

gv_status gpu_norm_fwd(const norm_fwd_args *a, cudaStream_t st, gv_err *err);

typedef struct {
    int group;
    int N, C;
    const void *x;      /* (M, C) the forward's pre-norm input */
    const void *out;    /* (M, C) the forward's output (relu mask: out > 0); NULL: no relu */
    const void *dout;   /* (M, C) gradient of the loss w.r.t. out */
    void *dx;           /* (M, C) gradient w.r.t. x */
    void *dres;         /* optional (M, C): the masked gradient (w.r.t. the residual input) */
    const float *gamma;
    const float *mean, *rstd;
    float *dgamma, *dbeta; /* added to */
    double *acc;        /* scratch: GPU_BN_SCRATCH(C) doubles (GN: the per-block partials) */
    int sm_count;
    gpu_dtype dt;
    int impl;           /* GPU_GN_AUTO / OLD / NEW */
    const uint8_t *bits; /* optional, instead of out: the forward's ReLU bit mask */
} norm_bwd_args;

/* Whether the norm kernels for these arguments (group, C, dt, impl) write and read the ReLU
 * mask as bits: the coalesced GroupNorm kernels do. Reading 1/16 of y's bytes instead of y
 * is what the backward saves; the forward writes those bytes besides y. */
int gpu_norm_relu_bits(int group, int C, gpu_dtype dt, int impl);

gv_status gpu_norm_bwd(const norm_bwd_args *a, cudaStream_t st, gv_err *err);

/* ---- elementwise, loss, optimiser ---------------------------------------------------- */
/* x (N,12,7,7) fp32 NCHW -> (M, 16) NHWC with channels 12..15 zero. */
gv_status gpu_pack_input(const float *x, void *out, int N, gpu_dtype dt, cudaStream_t st, gv_err *err);
/* A cells batch on the device ((N, 2) float consts, then (N, 49) plane indices, as
 * nn_batch's cells and consts) -> x (N,12,7,7) fp32 planes. */
gv_status gpu_expand_cells(const void *cells, float *x, int N, cudaStream_t st, gv_err *err);

/* Softmax cross-entropy + MSE. Inputs: raw logits (N,7) and raw value (N) fp32 without
 * bias; adds the biases, writes logits/value (fp32), loss terms summed into loss_acc
 * (double[2], zeroed before), dlogits (N,7) and dvalue (N) in dt scaled by 1/N, and the
 * bias gradients into gpb (7) and gvb (1) (accumulated). */
gv_status gpu_loss(const float *logits_raw, const float *value_raw, const float *pb, const float *vb,
                   const int *ptarget, const float *vtarget, int N, float *logits, float *value,
                   double *loss_acc, void *dlogits, void *dvalue, float *gpb, float *gvb, gpu_dtype dt,
                   int fault, cudaStream_t st, gv_err *err);
/* loss = (acc[0] + acc[1]) / N into loss_out (float). */
gv_status gpu_loss_finish(const double *acc, int N, float *loss_out, cudaStream_t st, gv_err *err);

/* y = relu(x + b) for x (N, H) fp32, y in dt. */
gv_status gpu_bias_relu(const float *x, const float *b, void *y, int N, int H, gpu_dtype dt, cudaStream_t st,
                        gv_err *err);
/* Value head second layer backward: dh[n][j] = dv[n] * w[j] * (h[n][j] > 0) into dt;
 * db[j] += sum_n dh[n][j]. dv in dt. */
gv_status gpu_value_hidden_bwd(const void *dv, const float *w, const void *h, void *dh, float *db, int N, int H,
                               gpu_dtype dt, cudaStream_t st, gv_err *err);

/* Weight preparation: copies of fp32 master weights in the kernels' layouts and dtype. */
enum { PREP_CONV_FWD = 0, PREP_CONV_DGRAD = 1, PREP_PLAIN = 2, PREP_HEAD_LINEAR = 3 };
typedef struct {
    int kind;
    int src;          /* element offset in the fp32 parameter array */
    int cout, cin;    /* conv: real shape; linear: (out, 32*49); plain: (count, 1) */
    int cin_pad;      /* conv fwd: padded input channels (stem 16) */
    void *dst;
} prep_desc;
/* descs is a device array of n descriptors; total bounds the largest element count. */
gv_status gpu_prep_weights(const float *params, const prep_desc *descs, int n, int max_elems, gpu_dtype dt,
                           cudaStream_t st, gv_err *err);
/* Head linear gradient computed in NHWC order (out, 49*32 with column pos*32+c) added into
 * the PyTorch-order gradient (out, 32*49 with column c*49+pos). */
gv_status gpu_head_grad_unpermute(const float *g_nhwc, float *g_torch, int out, cudaStream_t st, gv_err *err);

/* AdamW over n parameters (PyTorch semantics) at step *step_dev (the caller increments it
 * with gpu_step_inc first, so that the whole step can be replayed from a graph). */
gv_status gpu_step_inc(int *step_dev, cudaStream_t st, gv_err *err);
gv_status gpu_adamw(float *p, const float *g, float *m, float *v, size_t n, int *step_dev, float lr, float beta1,
                    float beta2, float eps, float wd, cudaStream_t st, gv_err *err);

/* Fill with a NaN bit pattern (all ones). */
gv_status gpu_poison(void *p, size_t bytes, cudaStream_t st, gv_err *err);

#endif
