/* trainer.c: the trainer functions of nn.h: nn_trainer_create picks the backend by the
 * device's kind (the float64 reference and the float32 path on the CPU, the GPU trainer on a
 * GPU), and
 * the thin nn_trainer_<verb> wrappers call through its table (nn_backend.h), standing in
 * where a backend leaves an optional entry out. */
#include <stdio.h>
#include <string.h>

#include "dev/dev.h"
#include "nn/nn_backend.h"

gv_status nn_trainer_create(const dev_id *dev, const nn_layout *L, const nn_trainer_opts *opts,
                            nn_trainer **out, gv_err *err)
{
    *out = NULL;
    gv_status s = nn_config_check(&L->cfg, err);
    if (s != GV_OK)
        return s;
    if (opts->max_batch < 1)
        return gv_fail(err, GV_ERR_INPUT, "max_batch must be at least 1 (got %d)", opts->max_batch);
    if (dev->kind == DEV_CPU) {
        if (opts->dtype == NN_FP64)
            s = nn_ref_create(L, opts, out, err);
        else if (opts->dtype == NN_FP32)
            s = nn_cpu32_create(L, opts, out, err);
        else
            return gv_fail(err, GV_ERR_INPUT, "the CPU trains in fp64 or fp32, not %s", nn_dtype_name(opts->dtype));
    } else {
        if (opts->dtype == NN_FP64)
            return gv_fail(err, GV_ERR_INPUT, "the GPU trains in fp32 or bf16, not fp64");
        s = nn_gpu_create(dev, L, opts, out, err);
    }
    if (s == GV_OK)
        (*out)->dev = *dev;
    return s;
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

void nn_trainer_destroy(nn_trainer *t)
{
    if (t)
        t->ops->destroy(t);
}

/* The accessors: what the handle holds. */
const char *nn_trainer_name(const nn_trainer *t)
{
    return t->ops->name;
}

const nn_layout *nn_trainer_layout(const nn_trainer *t)
{
    return t->L;
}

const dev_id *nn_trainer_device(const nn_trainer *t)
{
    return &t->dev;
}

int nn_trainer_max_batch(const nn_trainer *t)
{
    return t->opts.max_batch;
}

void nn_trainer_set_lr(nn_trainer *t, double lr)
{
    t->opts.lr = lr;
}

/* The calls every backend implements: straight through its table. */
gv_status nn_trainer_set_state(nn_trainer *t, const nn_state *s, gv_err *err)
{
    return t->ops->set_state(t, s, err);
}

gv_status nn_trainer_get_state(nn_trainer *t, nn_state *s, gv_err *err)
{
    return t->ops->get_state(t, s, err);
}

gv_status nn_trainer_set_batch(nn_trainer *t, const nn_batch *b, gv_err *err)
{
    return t->ops->set_batch(t, b, err);
}

gv_status nn_trainer_forward(nn_trainer *t, int train, double *logits, double *value, double *loss, gv_err *err)
{
    return t->ops->forward(t, train, logits, value, loss, err);
}

gv_status nn_trainer_gradients(nn_trainer *t, double *grads, double *loss, gv_err *err)
{
    return t->ops->gradients(t, grads, loss, err);
}

gv_status nn_trainer_step(nn_trainer *t, double *loss, gv_err *err)
{
    return t->ops->step(t, loss, err);
}

gv_status nn_trainer_sync(nn_trainer *t, gv_err *err)
{
    return t->ops->sync(t, err);
}

size_t nn_trainer_peak_bytes(nn_trainer *t)
{
    return t->ops->peak_bytes(t);
}

/* The optional calls: the backend's entry, or what stands in for it. */
gv_status nn_trainer_infer(nn_trainer *t, double *logits, double *value, gv_err *err)
{
    if (t->ops->infer)
        return t->ops->infer(t, logits, value, err);
    return t->ops->forward(t, 0, logits, value, NULL, err);
}

gv_status nn_trainer_pin_batch(nn_trainer *t, int n, gv_err *err)
{
    if (n < 0 || n > t->opts.max_batch)
        return gv_fail(err, GV_ERR_INPUT, "%s: cannot pin inference to batch %d (the trainer holds 1..%d)", t->ops->name,
                       n, t->opts.max_batch);
    return t->ops->pin_batch ? t->ops->pin_batch(t, n, err) : GV_OK;
}

int nn_trainer_has_relu_masks(const nn_trainer *t)
{
    return t->ops->relu_masks != NULL;
}

gv_status nn_trainer_relu_masks(nn_trainer *t, uint8_t *masks, gv_err *err)
{
    if (!t->ops->relu_masks)
        return gv_fail(err, GV_ERR_INPUT, "%s: this backend does not report its ReLU masks", t->ops->name);
    return t->ops->relu_masks(t, masks, err);
}

const char *nn_trainer_conv_path(const nn_trainer *t)
{
    return t && t->ops->conv_path ? t->ops->conv_path(t) : NULL;
}

void nn_trainer_profile(nn_trainer *t)
{
    if (t->ops->profile)
        t->ops->profile(t);
    else
        printf("# profile: %s: no per-kind profile (only the GPU trainer has one)\n", t->ops->name);
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
    GV_TRY(nn_fits(d, L, &o, err));
    return nn_trainer_create(d, L, &o, t, err);
}

/* A lower bound of what a trainer and its host state hold, from the shapes alone: the host
 * state (nn_state: parameters and AdamW's two moments in float64), the trainer's parameters
 * (with gradients and moments unless inference only) and one batch's activations (four
 * arrays of (batch, C, 7, 7) per block and two for the stem when training, four shared
 * arrays for inference). The trainers hold more than this (scratch, workspaces, heads). */
static void min_bytes(const nn_layout *L, const nn_trainer_opts *o, double *host, double *params, double *acts)
{
    double e = o->dtype == NN_FP64 ? 8 : o->dtype == NN_BF16 ? 2 : 4, pe = o->dtype == NN_FP64 ? 8 : 4;
    double M = (double)o->max_batch * NN_CELLS, C = L->cfg.channels;
    *host = 24.0 * (double)L->nparams;
    *params = pe * (double)L->nparams * (o->infer_only ? 1 : 4);
    *acts = e * M * C * (o->infer_only ? 4 : 4.0 * L->cfg.blocks + 2);
}

gv_status nn_fits(const dev_id *d, const nn_layout *L, const nn_trainer_opts *o, gv_err *err)
{
    double host, params, acts;
    min_bytes(L, o, &host, &params, &acts);
    int cpu = d->kind == DEV_CPU;
    double have_host = (double)gv_host_mem_bytes(), need_host = cpu ? host + params + acts : host;
    char a[32], b[32], c[32], h[32];
    if (have_host > 0 && need_host > have_host)
        return gv_fail(err, GV_ERR_ENV, "a %d-channel, %d-block network at batch %d needs at least %s of memory "
                       "(parameters and optimiser state %s, activations %s); this machine has %s of memory and swap: "
                       "use fewer channels or blocks, or a smaller batch", L->cfg.channels, L->cfg.blocks, o->max_batch,
                       gv_fmt_bytes(need_host, a, sizeof a), gv_fmt_bytes(cpu ? host + params : host, b, sizeof b),
                       gv_fmt_bytes(cpu ? acts : 0, c, sizeof c), gv_fmt_bytes(have_host, h, sizeof h));
    if (cpu)
        return GV_OK;
    dev_gpu_info gi;
    gv_err e2;
    double have_dev = dev_gpu_query(d->index, &gi, &e2) == GV_OK ? (double)gi.mem_total : 0;
    if (have_dev > 0 && params + acts > have_dev)
        return gv_fail(err, GV_ERR_ENV, "a %d-channel, %d-block network at batch %d needs at least %s on %s "
                       "(parameters and optimiser state %s, activations %s); it has %s: use fewer channels or blocks, "
                       "or a smaller batch", L->cfg.channels, L->cfg.blocks, o->max_batch,
                       gv_fmt_bytes(params + acts, a, sizeof a), d->label, gv_fmt_bytes(params, b, sizeof b),
                       gv_fmt_bytes(acts, c, sizeof c), gv_fmt_bytes(have_dev, h, sizeof h));
    return GV_OK;
}
