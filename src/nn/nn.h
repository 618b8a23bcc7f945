/* nn.h: the Drop7 policy/value network as its users see it: its configuration, the
 * layout of its parameters and buffers (PyTorch state_dict names and order), the host
 * state that backends exchange (always float64), a batch, and the trainer: an opaque handle
 * and its functions, which the float64 reference, the float32 CPU path and the GPU paths
 * all implement (their side of it is nn_backend.h).
 *
 * The network (bench/torch/drop7_reference.py):
 *   input (N,12,7,7) -> stem conv3x3 12->C, norm, ReLU
 *   blocks: x -> relu(x + norm(conv3x3(relu(norm(conv3x3(x))))))
 *   policy: conv1x1 C->32, norm(32), ReLU, flatten(1568), Linear(1568,7)
 *   value:  conv1x1 C->32, norm(32), ReLU, flatten(1568), Linear(1568,128), ReLU, Linear(128,1)
 *   loss = cross_entropy(logits, policy_target) + mse(value, value_target)   (means over N)
 *   AdamW(lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 1e-4)
 * norm is GroupNorm(8 groups, eps 1e-5) or BatchNorm2d (eps 1e-5, momentum 0.1). */
#ifndef GV_NN_NN_H
#define GV_NN_NN_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NN_BOARD 7
#define NN_CELLS 49
#define NN_IN_PLANES 12
#define NN_HEAD_CH 32
#define NN_HEAD_FLAT (NN_HEAD_CH * NN_CELLS) /* a head's flattened output, the input of its Linear */
#define NN_POLICY 7
#define NN_VALUE_HIDDEN 128
#define NN_GROUPS 8
#define NN_EPS 1e-5
#define NN_BN_MOMENTUM 0.1

typedef enum { NN_NORM_GROUP = 0, NN_NORM_BATCH = 1 } nn_norm;

typedef struct {
    int channels; /* C, a positive multiple of 8 */
    int blocks;   /* residual blocks, >= 0 */
    nn_norm norm;
} nn_config;

/* Validates a configuration (channels multiple of 8, 8..4096; blocks 0..64). */
gv_status nn_config_check(const nn_config *cfg, gv_err *err);
const char *nn_norm_name(nn_norm n); /* "group" / "batch" */

typedef enum {
    NN_T_PARAM = 0,        /* a learnable parameter: lives in nn_state.params */
    NN_T_RUNNING_MEAN = 1, /* BatchNorm buffer: lives in nn_state.buffers */
    NN_T_RUNNING_VAR = 2,  /* BatchNorm buffer: lives in nn_state.buffers */
    NN_T_NUM_BATCHES = 3,  /* BatchNorm num_batches_tracked (int64 scalar): nn_state.num_batches[index] */
} nn_tensor_kind;

typedef struct {
    char name[48];         /* PyTorch state_dict name, e.g. "blocks.0.c1.weight" */
    nn_tensor_kind kind;
    int ndim;
    int shape[4];
    size_t numel;
    size_t offset;         /* element offset into params or buffers; for NN_T_NUM_BATCHES the BN index */
} nn_tensor;

/* Each parameter tensor t (const nn_tensor *) of the layout L, in named_parameters order:
 * NN_FOR_EACH_PARAM(t, L) { ... }. */
#define NN_FOR_EACH_PARAM(t, L)                                                                 \
    for (const nn_tensor *t = (L)->t; t < (L)->t + (L)->ntensors; t++)                          \
        if (t->kind == NN_T_PARAM)

/* Every tensor of the state_dict in PyTorch's order (for each module in registration
 * order: weight, bias, then running_mean, running_var, num_batches_tracked). Parameters
 * are packed in named_parameters() order into one flat array; AdamW runs over it whole. */
typedef struct {
    nn_config cfg;
    int ntensors;
    nn_tensor *t;
    size_t nparams;   /* total parameter elements (C=128, 6 blocks: 2,006,888) */
    size_t nbuffers;  /* total running_mean + running_var elements (0 for GroupNorm) */
    int nbn;          /* number of BatchNorm layers (0 for GroupNorm) */
} nn_layout;

/* Builds the layout of cfg (cfg must pass nn_config_check). nn_layout_free releases t. */
void nn_layout_init(nn_layout *L, const nn_config *cfg);
void nn_layout_free(nn_layout *L);
/* Tensor by state_dict name, or NULL. */
const nn_tensor *nn_layout_find(const nn_layout *L, const char *name);

/* Host state exchanged between backends, always float64. All arrays owned by the state. */
typedef struct {
    const nn_layout *L;
    double *params;        /* L->nparams */
    double *buffers;       /* L->nbuffers */
    int64_t *num_batches;  /* L->nbn */
    double *adam_m;        /* L->nparams, AdamW first moment */
    double *adam_v;        /* L->nparams, AdamW second moment */
    int64_t adam_step;     /* AdamW steps taken so far */
} nn_state;

void nn_state_alloc(nn_state *s, const nn_layout *L);
void nn_state_free(nn_state *s);
void nn_state_copy(nn_state *dst, const nn_state *src);
/* PyTorch's default initialisation drawn from seed: conv/linear weights and biases
 * U(-1/sqrt(fan_in), 1/sqrt(fan_in)), norm weight 1 and bias 0, running_mean 0,
 * running_var 1, moments 0, step 0. */
void nn_state_init_random(nn_state *s, uint64_t seed);
/* Fills every value with NaN (step counters with -1), so that what a reader does not
 * write shows up in a comparison. */
void nn_state_poison(nn_state *s);

/* A batch: inputs and targets on the host (backends convert). The positions come in one
 * of three forms, exactly one of them set:
 *   x      float64 planes: the reference vectors (whose constant planes k/7 are not
 *          float32 values);
 *   x32    float32 planes: what the datasets hold (drop7_data.h);
 *   cells  the positions as the game has them (self-play): per position and cell the one
 *          plane of 0..9 that holds 1 there (NN_NO_PLANE: none), and in consts the values
 *          of planes 10 and 11 (constant over the board); 57 bytes where the planes take
 *          2352, expanded by the backend (a GPU's on the device).
 * The three are one input: positions of the same values give the same results. */
#define NN_NO_PLANE 255
typedef struct {
    int n;
    double *x;          /* (n, 12, 7, 7) float64, or NULL */
    float *x32;         /* (n, 12, 7, 7) float32, or NULL */
    uint8_t *cells;     /* (n, 49) plane index per cell (y * 7 + x), or NULL */
    float *consts;      /* (n, 2) planes 10 and 11, with cells */
    int64_t *policy;    /* (n,) class index in [0, 7) */
    double *value;      /* (n,) */
} nn_batch;

/* A batch of n zeros with positions as float64 planes (x), float32 planes (x32) or cells. */
typedef enum { NN_POS_F64 = 0, NN_POS_F32 = 1, NN_POS_CELLS = 2 } nn_positions;
void nn_batch_alloc(nn_batch *b, int n);
void nn_batch_alloc_as(nn_batch *b, int n, nn_positions form);
void nn_batch_free(nn_batch *b);
/* "planes" (x32) / "cells" -> *p; 0 for anything else. */
int nn_positions_parse(const char *s, nn_positions *p);
const char *nn_positions_name(nn_positions p); /* "float64" "planes" "cells" */
/* Drop7-like positions (one of 10 cell states per cell, two constant planes, as in
 * random_positions(); in b's form, the same draws in each), random policy targets and
 * standard-normal value targets. */
void nn_batch_random(nn_batch *b, uint64_t seed);
/* Checks a batch for a trainer of max_batch samples: 1 <= n <= max_batch, policy targets in
 * 0..6, cell codes 0..9 or NN_NO_PLANE. who names the trainer in the message. */
gv_status nn_batch_check(const nn_batch *b, int max_batch, const char *who, gv_err *err);
/* Positions first..first+count-1 of b as float32 planes into dst ((count, 12, 7, 7)): x32
 * copied, x converted or cells expanded, on up to threads OpenMP threads (0: all, 1: the
 * caller's alone). */
void nn_batch_x_f32(const nn_batch *b, size_t first, size_t count, float *dst, int threads);

typedef enum { NN_FP64 = 0, NN_FP32 = 1, NN_BF16 = 2 } nn_dtype;
const char *nn_dtype_name(nn_dtype d); /* "fp64" "fp32" "bf16" */

typedef struct {
    nn_dtype dtype;
    int tf32;           /* allow TF32 matrix units for fp32 (GPU only; off = true fp32) */
    int max_batch;      /* largest batch set_batch will be given */
    int threads;        /* CPU threads (0: all cores) */
    int fault;          /* test hook: nonzero makes one kernel skip part of its output write,
                           so that `check` must fail (see gpuvet check --inject-fault) */
    int cpu_conv;       /* 3x3 convolutions of the float32 CPU trainer (nn_cpu_conv) */
    double lr;          /* AdamW learning rate of the next step (0: NN_LR); a caller may change
                           it between steps (a schedule) with nn_trainer_set_lr */
    int infer_only;     /* the caller runs eval-mode forwards and infer alone (self-play, bench
                           infer): the float32 CPU trainer and the GPU trainer then hold no
                           gradients of activations or parameters (nor the GPU's ReLU masks and
                           data-gradient weights), and one block's activations for all blocks,
                           and refuse train-mode forwards, gradients, step and relu_masks
                           (GV_ERR_INPUT). The float64 reference ignores it. */
} nn_trainer_opts;

/* How the float32 CPU trainer computes 3x3 convolutions: Winograd F(2x2,3x3) (wino.h, the
 * default) or im2col + sgemm (the plain path, kept beside it and compared with it). */
typedef enum { NN_CONV_WINOGRAD = 0, NN_CONV_IM2COL = 1 } nn_cpu_conv;
/* "winograd" / "im2col" -> *c; 0 for anything else. */
int nn_cpu_conv_parse(const char *s, nn_cpu_conv *c);
const char *nn_cpu_conv_name(nn_cpu_conv c);

/* A trainer: one network's parameters, optimiser state and batch resident in a backend
 * (the float64 reference, the float32 CPU path or the GPU), opaque to its users (the
 * backends' side is nn_backend.h). Every call returning gv_status returns GV_OK or an error
 * with err filled. */
typedef struct nn_trainer nn_trainer;

struct dev_id;
/* Creates a trainer on device dev (dev/dev.h: the CPU, or a GPU by its index) for
 * opts->dtype. The CPU supports fp64 and fp32; a GPU supports fp32 and bf16. Errors:
 * GV_ERR_INPUT for an unsupported combination, GV_ERR_ENV when the device cannot be opened. */
gv_status nn_trainer_create(const struct dev_id *dev, const nn_layout *L, const nn_trainer_opts *opts,
                            nn_trainer **out, gv_err *err);
/* Frees t and everything it holds (NULL: nothing). */
void nn_trainer_destroy(nn_trainer *t);

/* The backend: "cpu-fp64", "cpu-fp32", "cuda-fp32", "cuda-bf16". */
const char *nn_trainer_name(const nn_trainer *t);
/* The layout t was created with (the caller's, not copied). */
const nn_layout *nn_trainer_layout(const nn_trainer *t);
/* The device t runs on (as given to nn_trainer_create). */
const struct dev_id *nn_trainer_device(const nn_trainer *t);
/* The largest batch t takes (opts.max_batch). */
int nn_trainer_max_batch(const nn_trainer *t);
/* Sets the AdamW learning rate of the next steps (0: NN_LR); a schedule calls it between
 * steps. */
void nn_trainer_set_lr(nn_trainer *t, double lr);

/* Copies host state s (parameters, buffers, AdamW moments and step) into t. */
gv_status nn_trainer_set_state(nn_trainer *t, const nn_state *s, gv_err *err);
/* Copies t's state into host state s (of t's layout). */
gv_status nn_trainer_get_state(nn_trainer *t, nn_state *s, gv_err *err);
/* Makes b (checked as nn_batch_check does) the resident batch of the calls below. */
gv_status nn_trainer_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err);
/* Forward on the resident batch. train=1: batch statistics for BatchNorm and running
 * stats updated (as PyTorch's train mode); train=0: eval mode. logits (n*7), value (n)
 * and loss (scalar) are written to host doubles; any of them may be NULL. */
gv_status nn_trainer_forward(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err);
/* Forward (train mode, updating running stats) and backward: the gradient of the loss
 * with respect to every parameter into grads (L->nparams, named_parameters order). */
gv_status nn_trainer_gradients(nn_trainer *t, double *grads, double *loss, gv_err *err);
/* One training step: forward (train mode), backward, AdamW. When loss is not NULL the
 * step's loss (before the update) is returned, which may synchronise. */
gv_status nn_trainer_step(nn_trainer *t, double *loss, gv_err *err);
/* Waits for queued work (a no-op on the CPU). */
gv_status nn_trainer_sync(nn_trainer *t, gv_err *err);
/* Inference, the self-play case: the eval-mode forward of the resident batch, logits
 * (n*7) and value (n) to host doubles (either may be NULL), nothing else computed for
 * the caller and no state changed. The same numbers as nn_trainer_forward(t, 0, ...), by
 * the backend's fastest path (the GPU replays a captured graph per batch size). */
gv_status nn_trainer_infer(nn_trainer *t, double *logits, double *value, gv_err *err);
/* From now on, nn_trainer_infer of any batch of at most n positions gives each position
 * exactly the numbers it gets in a batch of n: the GPU's choices that otherwise follow the
 * batch size (cuDNN or its own kernels, the split of a convolution's sum, the BLAS kernels of
 * the heads) are made once for all of these sizes. Self-play pins to its slots and pads its
 * batches to a few sizes (drop7_agent.c). The pinned choices need not be those of an unpinned
 * batch of n (one split serves every size: the last bits of a result may differ from an
 * unpinned run's). 0 lets each batch size choose again. GV_ERR_INPUT when n is outside
 * 0..max_batch. Training is not affected. */
gv_status nn_trainer_pin_batch(nn_trainer *t, int n, gv_err *err);
/* Peak memory held by the backend for this trainer, in bytes (0 if unknown). */
size_t nn_trainer_peak_bytes(nn_trainer *t);

/* Whether t's backend provides its ReLU masks (all three do). */
int nn_trainer_has_relu_masks(const nn_trainer *t);
/* The ReLU masks of the last train-mode forward: one byte per ReLU output, 1 where the
 * ReLU passed its input. Layout in nn_relu_masks_len's comment. Used to compare bf16
 * gradients with float64 ones on the same linear piece of the network (see
 * nn_ref_follow_masks). GV_ERR_INPUT where the backend does not provide them. */
gv_status nn_trainer_relu_masks(nn_trainer *t, uint8_t *masks, gv_err *err);

/* Which 3x3 convolutions a GPU trainer runs ("cudnn 9.10.2", "own mma", "own simt"; see
 * GV_CUDNN in gpu/trainer.cu); NULL for a trainer of another backend. */
const char *nn_trainer_conv_path(const nn_trainer *t);
/* Runs one training step eagerly with per-kind timings and prints them (the GPU trainer;
 * another backend prints a line saying it has none). The state advances by one step. */
void nn_trainer_profile(nn_trainer *t);

/* Bytes of the ReLU masks for a batch of n, in this order, each in PyTorch's NCHW layout:
 * stem (n,C,49); for each block its first ReLU (n,C,49) and its output (n,C,49); the
 * policy head (n,32,49); the value head (n,32,49); the value hidden layer (n,128). */
size_t nn_relu_masks_len(const nn_layout *L, int n);

/* Makes the float64 reference trainer (cpu, fp64) apply these masks instead of deciding
 * its ReLUs itself (NULL: back to ordinary ReLUs); GV_ERR_INPUT for a trainer of another
 * backend. A ReLU network is piecewise linear; with the masks of a bf16 run, the reference
 * differentiates the same linear piece, so the remaining difference is the bf16 arithmetic
 * alone. About 1% of pre-activations change sign under bf16 rounding, which by itself
 * moves every gradient by 10-20%. The masks are copied; n must match the batch later given
 * to the trainer. */
gv_status nn_ref_follow_masks(nn_trainer *ref, const uint8_t *masks, int n, gv_err *err);

/* "fp64", "fp32", "bf16" -> *d; 0 for anything else. */
int nn_dtype_parse(const char *s, nn_dtype *d);

struct dev_id;
/* Does device d train in dtype dt? (fp64 and fp32 on the CPU, fp32 and bf16 on a GPU.) */
int nn_dtype_on(const struct dev_id *d, nn_dtype dt);
/* Whether a network of layout L with trainer options o can fit device d at all, before
 * anything is allocated: a lower bound of the bytes its host state and trainer hold,
 * against the machine's memory and swap (and the GPU's memory on a GPU). GV_ERR_ENV with
 * the figures when not; nn_trainer_open checks it, and engines call it before they make
 * the host state (nn_state_alloc) of a network they are about to open. */
gv_status nn_fits(const struct dev_id *d, const nn_layout *L, const nn_trainer_opts *o, gv_err *err);
/* nn_fits, then nn_trainer_create on device d with options o. */
gv_status nn_trainer_open(const struct dev_id *d, const nn_layout *L, nn_trainer_opts o, nn_trainer **t,
                          gv_err *err);

/* AdamW hyperparameters (PyTorch defaults of the reference). */
#define NN_LR 1e-3
#define NN_BETA1 0.9
#define NN_BETA2 0.999
#define NN_ADAM_EPS 1e-8
#define NN_WEIGHT_DECAY 1e-4

/* The devices (dev/dev.h), dtypes and norms an engine runs over: the first members of the
 * options of nn_check and nn_bench, spelled once. */
#define NN_SWEEP_MEMBERS                                                                          \
    const dev_id *devs;                                                                           \
    int ndev;                                                                                     \
    nn_dtype dtypes[4];                                                                           \
    int ndtypes;                                                                                  \
    nn_norm norms[2];                                                                             \
    int nnorms

#ifdef __cplusplus
}
#endif

#endif
