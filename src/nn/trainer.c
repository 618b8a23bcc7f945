/* trainer.c: picks the backend behind the trainer interface of nn.h: the float64
 * reference and the float32 path on the CPU, the GPU trainer on "cuda"/"hip"/"gpu". */
#include <string.h>

#include "dev/dev.h"
#include "nn/nn.h"

gv_status nn_trainer_create(const char *device, const nn_layout *L, const nn_trainer_opts *opts,
                            nn_trainer **out, gv_err *err)
{
    *out = NULL;
    gv_status s = nn_config_check(&L->cfg, err);
    if (s != GV_OK)
        return s;
    if (opts->max_batch < 1)
        return gv_fail(err, GV_ERR_INPUT, "max_batch must be at least 1 (got %d)", opts->max_batch);
    if (!strcmp(device, "cpu")) {
        if (opts->dtype == NN_FP64)
            return nn_ref_create(L, opts, out, err);
        if (opts->dtype == NN_FP32)
            return nn_cpu32_create(L, opts, out, err);
        return gv_fail(err, GV_ERR_INPUT, "the CPU trains in fp64 or fp32, not %s", nn_dtype_name(opts->dtype));
    }
    if (!strncmp(device, "cuda", 4) || !strncmp(device, "hip", 3) || !strncmp(device, "gpu", 3)) {
        if (opts->dtype == NN_FP64)
            return gv_fail(err, GV_ERR_INPUT, "the GPU trains in fp32 or bf16, not fp64");
        return nn_gpu_create(L, opts, out, err);
    }
    return gv_fail(err, GV_ERR_INPUT, "unknown device '%s' (use cpu or cuda)", device);
}

nn_trainer *nn_trainer_new(const nn_trainer_ops *ops, const nn_layout *L, const nn_trainer_opts *opts, void *impl)
{
    nn_trainer *t = gv_xcalloc(1, sizeof *t);
    t->ops = ops;
    t->L = L;
    t->opts = *opts;
    t->impl = impl;
    return t;
}

void nn_forward_out(int n, const double *logits_src, const double *value_src, double l, double *logits,
                    double *value, double *loss)
{
    if (logits)
        memcpy(logits, logits_src, sizeof(double) * (size_t)n * NN_POLICY);
    if (value)
        memcpy(value, value_src, sizeof(double) * (size_t)n);
    if (loss)
        *loss = l;
}

double nn_trainer_lr(const nn_trainer *t)
{
    return t->opts.lr > 0 ? t->opts.lr : NN_LR;
}

gv_status nn_refuse_training(const char *backend, const char *what, gv_err *err)
{
    return gv_fail(err, GV_ERR_INPUT, "%s: %s: this trainer was opened for inference only (infer_only); open one "
                   "without it to train", backend, what);
}

gv_status nn_infer(nn_trainer *t, double *logits, double *value, gv_err *err)
{
    if (t->ops->infer)
        return t->ops->infer(t, logits, value, err);
    return t->ops->forward(t, 0, logits, value, NULL, err);
}

void nn_trainer_destroy(nn_trainer *t)
{
    if (t)
        t->ops->destroy(t);
}

int nn_dtype_parse(const char *s, nn_dtype *d)
{
    for (nn_dtype k = NN_FP64; k <= NN_BF16; k++)
        if (!strcmp(s, nn_dtype_name(k))) {
            *d = k;
            return 1;
        }
    return 0;
}

int nn_dtype_on(const dev_id *d, nn_dtype dt)
{
    return d->kind == DEV_CPU ? (dt == NN_FP32 || dt == NN_FP64) : (dt == NN_FP32 || dt == NN_BF16);
}

static const char *const conv_names[] = {"winograd", "im2col"};

const char *nn_cpu_conv_name(nn_cpu_conv c)
{
    return (unsigned)c < GV_ARRAY_LEN(conv_names) ? conv_names[c] : "?";
}

int nn_cpu_conv_parse(const char *s, nn_cpu_conv *c)
{
    for (size_t k = 0; k < GV_ARRAY_LEN(conv_names); k++)
        if (!strcmp(s, conv_names[k])) {
            *c = (nn_cpu_conv)k;
            return 1;
        }
    return 0;
}

gv_status nn_trainer_open(const dev_id *d, const nn_layout *L, nn_trainer_opts o, nn_trainer **t, gv_err *err)
{
    o.device_index = d->index;
    return nn_trainer_create(d->label, L, &o, t, err);
}
