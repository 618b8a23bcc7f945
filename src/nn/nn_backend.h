/* nn_backend.h: the trainer as its backends see it (nn.h is the users' side, as ggml's
 * ggml-backend-impl.h is to ggml-backend.h): the table of functions each backend implements,
 * the trainer structure around it, the helpers the backends share and their constructors.
 * Included by the backends (ref.c, cpu32.c, gpu/trainer.cu, gpu_nogpu.c), by trainer.c,
 * which calls through the table for everyone else, and by tests that open a backend directly. */
#ifndef GV_NN_NN_BACKEND_H
#define GV_NN_NN_BACKEND_H

#include "dev/dev.h"
#include "nn/nn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The trainer interface a backend implements. Each entry does what nn.h says of the
 * nn_trainer_<entry> that calls it; state and batch are resident in the backend between
 * calls. The entries marked optional may be NULL, and the wrapper then does what is said. */
typedef struct {
    const char *name;  /* "cpu-fp64", "cpu-fp32", "cuda-fp32", "cuda-bf16" */
    gv_status (*set_state)(nn_trainer *t, const nn_state *s, gv_err *err);
    gv_status (*get_state)(nn_trainer *t, nn_state *s, gv_err *err);
    gv_status (*set_batch)(nn_trainer *t, const nn_batch *b, gv_err *err);
    gv_status (*forward)(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err);
    gv_status (*gradients)(nn_trainer *t, double *grads, double *loss, gv_err *err);
    gv_status (*step)(nn_trainer *t, double *loss, gv_err *err);
    gv_status (*sync)(nn_trainer *t, gv_err *err);
    size_t (*peak_bytes)(nn_trainer *t);
    /* Frees the trainer (t itself included) and everything it holds. */
    void (*destroy)(nn_trainer *t);
    /* Optional: where a backend does not provide its ReLU masks, nn_trainer_relu_masks
     * fails and nn_trainer_has_relu_masks says 0. */
    gv_status (*relu_masks)(nn_trainer *t, uint8_t *masks, gv_err *err);
    /* Optional: NULL where forward(t, 0, ...) is already the fastest path (the CPU's skips
     * re-packing unchanged weights and runs a batch of one on one thread); nn_trainer_infer
     * then runs the eval-mode forward. */
    gv_status (*infer)(nn_trainer *t, double *logits, double *value, gv_err *err);
    /* Optional (the GPU's): which 3x3 convolutions the trainer runs; NULL: no path to name. */
    const char *(*conv_path)(const nn_trainer *t);
    /* Optional (the GPU's): one profiled training step; NULL: nn_trainer_profile says so. */
    void (*profile)(nn_trainer *t);
    /* Optional (the GPU's): NULL where nothing is chosen by the batch size; nn_trainer_pin_batch
     * then only checks n. */
    gv_status (*pin_batch)(nn_trainer *t, int n, gv_err *err);
} nn_trainer_ops;

struct nn_trainer {
    const nn_trainer_ops *ops;
    const nn_layout *L;
    nn_trainer_opts opts;  /* opts.lr is changed by nn_trainer_set_lr */
    dev_id dev;            /* the device it runs on (set by nn_trainer_create) */
    void *impl;            /* the backend's own state */
};

/* A host backend's trainer around its impl (aborts when out of memory, like gv_xcalloc);
 * ops->destroy frees it. */
nn_trainer *nn_trainer_new(const nn_trainer_ops *ops, const nn_layout *L, const nn_trainer_opts *opts, void *impl);

/* The learning rate t's next step uses: t->opts.lr, or NN_LR when it is 0. */
double nn_trainer_lr(const nn_trainer *t);

/* A host backend's forward outputs to the caller's (see nn_trainer_forward): logits (n*7)
 * and value (n) copied from the backend's doubles, loss l; each destination may be NULL. */
void nn_forward_out(int n, const double *logits_src, const double *value_src, double l, double *logits,
                    double *value, double *loss);

/* The error of a training call (what: "a training step", ...) on a trainer of backend
 * (its ops->name) opened with infer_only: GV_ERR_INPUT. */
gv_status nn_refuse_training(const char *backend, const char *what, gv_err *err);

/* Backend constructors used by nn_trainer_create: the float64 reference (ref.c), the
 * float32 CPU path (cpu32.c), the GPU trainer (gpu/trainer.cu; gpu_nogpu.c in a build
 * without a GPU backend). */
gv_status nn_ref_create(const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out, gv_err *err);
gv_status nn_cpu32_create(const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out, gv_err *err);
gv_status nn_gpu_create(const dev_id *dev, const nn_layout *L, const nn_trainer_opts *opts, nn_trainer **out,
                        gv_err *err);

#ifdef __cplusplus
}
#endif

#endif
