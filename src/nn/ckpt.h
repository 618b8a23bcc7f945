/* ckpt.h: the network's state as safetensors files with PyTorch state_dict names:
 * checkpoints that gpuvet writes and Drop7Net loads with load_state_dict(strict=True), and
 * the reference files written by PyTorch (bench/torch/make_reference.py, docs/NN.md):
 * initial state, batch, forward outputs, gradients, state after 1 and 10 AdamW steps,
 * losses and the eval-mode forward. Every error names the file and the tensor. */
#ifndef GV_NN_CKPT_H
#define GV_NN_CKPT_H

#include "nn/nn.h"
#include "nn/safetensors.h"

/* Values beyond this magnitude are refused in checkpoints and reference files: no network
 * holds or produces them, and they would overflow into NaN and look like a device error. */
#define NN_CKPT_MAX_ABS 1e12

/* Reads channels, blocks and norm from the tensors of a state_dict in f: channels from
 * stem.weight, blocks from the blocks.K.c1.weight present, norm from sn.running_mean.
 * Checks them against the file's __metadata__ (channels, blocks, norm) when it has one. */
gv_status nn_ckpt_config(const nn_st_file *f, nn_config *cfg, gv_err *err);

/* Reads every tensor of s->L (named prefix + state_dict name) from f into s: parameters,
 * running stats and num_batches_tracked. Strict: a missing tensor, a wrong shape or dtype,
 * or a non-finite value is an error naming the file and tensor. AdamW moments and step
 * are reset to zero (a state_dict does not hold them). */
gv_status nn_ckpt_read_state(const nn_st_file *f, const char *prefix, nn_state *s, gv_err *err);

/* Adds the state_dict of s to w under prefix, floats stored as dtype (F64, F32, BF16). */
void nn_ckpt_add_state(nn_st_writer *w, const char *prefix, const nn_state *s, nn_st_dtype dtype);

/* Writes s as a checkpoint (state_dict names, __metadata__ with the configuration),
 * atomically. */
gv_status nn_ckpt_save(const char *path, const nn_state *s, nn_st_dtype dtype, gv_err *err);
/* The same with more __metadata__ entries: nmeta pairs kv[2i] (key), kv[2i + 1] (value). */
gv_status nn_ckpt_save_meta(const char *path, const nn_state *s, nn_st_dtype dtype, const char *const *kv, int nmeta,
                            gv_err *err);

/* The configuration of the state_dict in f (nn_ckpt_config), and every tensor of that
 * network present with its exact shape: checked before anything of the network's size is
 * allocated, so a small file that declares a huge network is refused at once. */
gv_status nn_ckpt_verify(const nn_st_file *f, nn_config *cfg, gv_err *err);

/* Opens path, verifies it (nn_ckpt_verify), reads its configuration into *cfg (which the
 * caller lays out) and keeps the file open in f for nn_ckpt_read_state. */
gv_status nn_ckpt_open(const char *path, nn_st_file *f, nn_config *cfg, gv_err *err);

/* Reads the batch tensors input (N,12,7,7), policy_target (N,) and value_target (N,) into a
 * newly allocated b (N from the file). Policy targets must lie in [0, 7). */
gv_status nn_ckpt_read_batch(const nn_st_file *f, nn_batch *b, gv_err *err);

/* A whole reference file in memory. */
typedef struct {
    nn_config cfg;
    nn_layout L;
    nn_state init;          /* initial parameters and buffers */
    nn_batch batch;
    double *logits;         /* out.logits (n*7): forward in training mode from init */
    double *value;          /* out.value (n) */
    double loss;            /* out.loss */
    double *grads;          /* grad.<param> packed like nn_state.params */
    nn_state step1, step10; /* state after 1 and 10 AdamW steps (moments not in the file) */
    int nsteps;             /* length of loss.steps (10) */
    double loss_steps[16];  /* loss before each step */
    double *eval_logits;    /* eval.logits: eval-mode forward from step10 */
    double *eval_value;
} nn_refdata;

gv_status nn_refdata_load(nn_refdata *r, const char *path, gv_err *err);
/* The same from a parsed file (which the caller keeps and frees); every tensor's shape is
 * checked before the states are allocated. */
gv_status nn_refdata_read(nn_refdata *r, const nn_st_file *f, gv_err *err);
void nn_refdata_free(nn_refdata *r);

#endif
