/* ckpt.c: the network's state and reference vectors as safetensors files with PyTorch
 * state_dict names (see ckpt.h). */
#include "nn/ckpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void tensor_shape64(const nn_tensor *t, int64_t *shape)
{
    for (int i = 0; i < t->ndim; i++)
        shape[i] = t->shape[i];
}

/* A tensor of the state as the file names it: prefix + its state_dict name, and its shape. */
typedef struct {
    char name[128];
    int64_t shape[4];
} ckpt_key;

static ckpt_key tensor_key(const nn_tensor *t, const char *prefix)
{
    ckpt_key key;
    snprintf(key.name, sizeof key.name, "%s%s", prefix, t->name);
    tensor_shape64(t, key.shape);
    return key;
}

gv_status nn_ckpt_config(const nn_st_file *f, nn_config *cfg, gv_err *err)
{
    const nn_st_tensor *stem = nn_st_find(f, "stem.weight");
    if (!stem)
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor 'stem.weight' is missing (not a Drop7 checkpoint?)", f->path);
    if (stem->ndim != 4 || stem->shape[1] != NN_IN_PLANES || stem->shape[2] != 3 || stem->shape[3] != 3 ||
        stem->shape[0] < 1 || stem->shape[0] > 4096)
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor 'stem.weight' should have shape (C, 12, 3, 3)", f->path);
    memset(cfg, 0, sizeof *cfg);
    cfg->channels = (int)stem->shape[0];
    cfg->norm = nn_st_find(f, "sn.running_mean") ? NN_NORM_BATCH : NN_NORM_GROUP;
    while (cfg->blocks <= 64) {
        char name[48];
        snprintf(name, sizeof name, "blocks.%d.c1.weight", cfg->blocks);
        if (!nn_st_find(f, name))
            break;
        cfg->blocks++;
    }
    gv_status s = nn_config_check(cfg, err);
    if (s != GV_OK) {
        char msg[GV_ERRLEN];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        return gv_fail(err, GV_ERR_INPUT, "%s: %s", f->path, msg);
    }
    const char *mc = nn_st_meta(f, "channels"), *mb = nn_st_meta(f, "blocks"), *mn = nn_st_meta(f, "norm");
    if ((mc && atoi(mc) != cfg->channels) || (mb && atoi(mb) != cfg->blocks) ||
        (mn && strcmp(mn, nn_norm_name(cfg->norm)) != 0))
        return gv_fail(err, GV_ERR_INPUT,
                       "%s: __metadata__ says channels %s, blocks %s, norm %s but the tensors say %d, %d, %s", f->path,
                       mc ? mc : "?", mb ? mb : "?", mn ? mn : "?", cfg->channels, cfg->blocks, nn_norm_name(cfg->norm));
    return GV_OK;
}

gv_status nn_ckpt_read_state(const nn_st_file *f, const char *prefix, nn_state *s, gv_err *err)
{
    const nn_layout *L = s->L;
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        ckpt_key key = tensor_key(t, prefix);
        gv_status st;
        if (t->kind == NN_T_NUM_BATCHES) {
            st = nn_st_read_i64(f, key.name, 0, key.shape, &s->num_batches[t->offset], err);
            if (st == GV_OK && s->num_batches[t->offset] < 0)
                st = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' is negative", f->path, key.name);
        } else {
            double *dst = t->kind == NN_T_PARAM ? s->params + t->offset : s->buffers + t->offset;
            st = nn_st_read_f64(f, key.name, t->ndim, key.shape, dst, err);
            for (size_t k = 0; st == GV_OK && k < t->numel; k++)
                if (!isfinite(dst[k]) || fabs(dst[k]) > NN_CKPT_MAX_ABS || (t->kind == NN_T_RUNNING_VAR && dst[k] < 0))
                    st = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' holds %s value %g at index %zu", f->path, key.name,
                                 !isfinite(dst[k]) ? "a non-finite" : dst[k] < 0 && t->kind == NN_T_RUNNING_VAR ? "a negative variance"
                                 : "an absurdly large", dst[k], k);
        }
        if (st != GV_OK)
            return st;
    }
    memset(s->adam_m, 0, sizeof(double) * L->nparams);
    memset(s->adam_v, 0, sizeof(double) * L->nparams);
    s->adam_step = 0;
    return GV_OK;
}

void nn_ckpt_add_state(nn_st_writer *w, const char *prefix, const nn_state *s, nn_st_dtype dtype)
{
    const nn_layout *L = s->L;
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        ckpt_key key = tensor_key(t, prefix);
        if (t->kind == NN_T_NUM_BATCHES)
            nn_st_writer_add_i64(w, key.name, 0, key.shape, &s->num_batches[t->offset]);
        else
            nn_st_writer_add_f64(w, key.name, dtype, t->ndim, key.shape,
                                 (t->kind == NN_T_PARAM ? s->params : s->buffers) + t->offset);
    }
}

gv_status nn_ckpt_save(const char *path, const nn_state *s, nn_st_dtype dtype, gv_err *err)
{
    return nn_ckpt_save_meta(path, s, dtype, NULL, 0, err);
}

gv_status nn_ckpt_save_meta(const char *path, const nn_state *s, nn_st_dtype dtype, const char *const *kv, int nmeta,
                            gv_err *err)
{
    nn_st_writer *w = nn_st_writer_new();
    char buf[32];
    snprintf(buf, sizeof buf, "%d", s->L->cfg.channels);
    nn_st_writer_meta(w, "channels", buf);
    snprintf(buf, sizeof buf, "%d", s->L->cfg.blocks);
    nn_st_writer_meta(w, "blocks", buf);
    nn_st_writer_meta(w, "norm", nn_norm_name(s->L->cfg.norm));
    nn_st_writer_meta(w, "groups", "8");
    snprintf(buf, sizeof buf, "%lld", (long long)s->adam_step);
    nn_st_writer_meta(w, "adam_step", buf);
    nn_st_writer_meta(w, "writer", "gpuvet " GV_VERSION);
    for (int i = 0; i < nmeta; i++)
        nn_st_writer_meta(w, kv[2 * i], kv[2 * i + 1]);
    nn_ckpt_add_state(w, "", s, dtype);
    gv_status st = nn_st_writer_save(w, path, err);
    nn_st_writer_free(w);
    return st;
}

/* Every tensor of layout L (with prefix, and "grad." for the parameters when grads) is in
 * the file with its exact shape: checked before anything of L's size is allocated, so that
 * a small file that declares a huge network is refused at once. */
static gv_status check_tensors(const nn_st_file *f, const nn_layout *L, const char *prefix, int params_only,
                               gv_err *err)
{
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (params_only && t->kind != NN_T_PARAM)
            continue;
        char name[128];
        snprintf(name, sizeof name, "%s%s", prefix, t->name);
        int64_t shape[4];
        tensor_shape64(t, shape);
        gv_status s = nn_st_expect(f, name, t->kind == NN_T_NUM_BATCHES ? 0 : t->ndim, shape, err);
        if (s != GV_OK)
            return s;
    }
    return GV_OK;
}

gv_status nn_ckpt_verify(const nn_st_file *f, nn_config *cfg, gv_err *err)
{
    gv_status s = nn_ckpt_config(f, cfg, err);
    if (s == GV_OK) {
        nn_layout L;
        nn_layout_init(&L, cfg);
        s = check_tensors(f, &L, "", 0, err);
        nn_layout_free(&L);
    }
    return s;
}

gv_status nn_ckpt_open(const char *path, nn_st_file *f, nn_config *cfg, gv_err *err)
{
    gv_status s = nn_st_load(f, path, err);
    if (s != GV_OK)
        return s;
    s = nn_ckpt_verify(f, cfg, err);
    if (s != GV_OK)
        nn_st_free(f);
    return s;
}

gv_status nn_ckpt_read_batch(const nn_st_file *f, nn_batch *b, gv_err *err)
{
    memset(b, 0, sizeof *b);
    const nn_st_tensor *x = nn_st_find(f, "input");
    if (!x)
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor 'input' is missing", f->path);
    if (x->ndim != 4 || x->shape[0] < 1 || x->shape[0] > (1 << 20))
        return gv_fail(err, GV_ERR_INPUT, "%s: tensor 'input' should have shape (N, 12, 7, 7) with N from 1 to 2^20",
                       f->path);
    int n = (int)x->shape[0];
    int64_t sx[4] = {n, NN_IN_PLANES, NN_BOARD, NN_BOARD}, sn[1] = {n};
    nn_batch_alloc(b, n);
    gv_status s = nn_st_read_f64(f, "input", 4, sx, b->x, err);
    if (s == GV_OK)
        s = nn_st_read_i64(f, "policy_target", 1, sn, b->policy, err);
    if (s == GV_OK)
        s = nn_st_read_f64(f, "value_target", 1, sn, b->value, err);
    for (int i = 0; s == GV_OK && i < n; i++)
        if (b->policy[i] < 0 || b->policy[i] >= NN_POLICY)
            s = gv_fail(err, GV_ERR_INPUT, "%s: tensor 'policy_target' holds %lld at index %d (classes are 0 to 6)",
                        f->path, (long long)b->policy[i], i);
    for (size_t i = 0; s == GV_OK && i < (size_t)n * NN_IN_PLANES * NN_CELLS; i++)
        if (!isfinite(b->x[i]))
            s = gv_fail(err, GV_ERR_INPUT, "%s: tensor 'input' holds a non-finite value at index %zu", f->path, i);
    if (s != GV_OK)
        nn_batch_free(b);
    return s;
}

void nn_refdata_free(nn_refdata *r)
{
    if (r->L.t) {
        nn_state_free(&r->init);
        nn_state_free(&r->step1);
        nn_state_free(&r->step10);
    }
    nn_batch_free(&r->batch);
    GV_FREE(r->logits, r->value, r->grads, r->eval_logits, r->eval_value);
    nn_layout_free(&r->L);
    memset(r, 0, sizeof *r);
}

/* Reads the gradients grad.<param> into grads, packed like nn_state.params. */
static gv_status read_grads(const nn_st_file *f, const nn_layout *L, double *grads, gv_err *err)
{
    NN_FOR_EACH_PARAM(t, L) {
        char name[128];
        snprintf(name, sizeof name, "grad.%s", t->name);
        int64_t shape[4];
        tensor_shape64(t, shape);
        gv_status s = nn_st_read_f64(f, name, t->ndim, shape, grads + t->offset, err);
        if (s != GV_OK)
            return s;
    }
    return GV_OK;
}

gv_status nn_refdata_load(nn_refdata *r, const char *path, gv_err *err)
{
    memset(r, 0, sizeof *r);
    nn_st_file f;
    gv_status s = nn_st_load(&f, path, err);
    if (s != GV_OK)
        return s;
    s = nn_refdata_read(r, &f, err);
    nn_st_free(&f);
    return s;
}

gv_status nn_refdata_read(nn_refdata *r, const nn_st_file *fp, gv_err *err)
{
    memset(r, 0, sizeof *r);
    const nn_st_file f = *fp; /* read only: the caller frees it */
    const char *path = f.path;
    gv_status s = nn_ckpt_verify(&f, &r->cfg, err);
    if (s != GV_OK)
        return s;
    nn_layout_init(&r->L, &r->cfg);
    /* every tensor's shape before any state of the file's size is allocated */
    if ((s = check_tensors(&f, &r->L, "step1.", 0, err)) != GV_OK || (s = check_tensors(&f, &r->L, "step10.", 0, err)) != GV_OK ||
        (s = check_tensors(&f, &r->L, "grad.", 1, err)) != GV_OK) {
        nn_layout_free(&r->L);
        memset(r, 0, sizeof *r);
        return s;
    }
    nn_state_alloc(&r->init, &r->L);
    nn_state_alloc(&r->step1, &r->L);
    nn_state_alloc(&r->step10, &r->L);
    s = nn_ckpt_read_batch(&f, &r->batch, err);
    int n = r->batch.n;
    int64_t s_logits[2] = {n, NN_POLICY}, s_n[1] = {n};
    r->logits = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    r->value = gv_xcalloc((size_t)n, sizeof(double));
    r->eval_logits = gv_xcalloc((size_t)n * NN_POLICY, sizeof(double));
    r->eval_value = gv_xcalloc((size_t)n, sizeof(double));
    r->grads = gv_xcalloc(r->L.nparams, sizeof(double));
    if (s == GV_OK)
        s = nn_ckpt_read_state(&f, "", &r->init, err);
    if (s == GV_OK)
        s = nn_st_read_f64(&f, "out.logits", 2, s_logits, r->logits, err);
    if (s == GV_OK)
        s = nn_st_read_f64(&f, "out.value", 1, s_n, r->value, err);
    if (s == GV_OK)
        s = nn_st_read_f64(&f, "out.loss", 0, NULL, &r->loss, err);
    if (s == GV_OK)
        s = read_grads(&f, &r->L, r->grads, err);
    if (s == GV_OK)
        s = nn_ckpt_read_state(&f, "step1.", &r->step1, err);
    if (s == GV_OK)
        s = nn_ckpt_read_state(&f, "step10.", &r->step10, err);
    if (s == GV_OK) {
        const nn_st_tensor *ls = nn_st_find(&f, "loss.steps");
        if (!ls || ls->ndim != 1 || ls->shape[0] != 10) {
            s = gv_fail(err, GV_ERR_INPUT, "%s: tensor 'loss.steps' is missing or not of shape (10)", path);
        } else {
            r->nsteps = 10;
            int64_t s10[1] = {10};
            s = nn_st_read_f64(&f, "loss.steps", 1, s10, r->loss_steps, err);
        }
    }
    if (s == GV_OK)
        s = nn_st_read_f64(&f, "eval.logits", 2, s_logits, r->eval_logits, err);
    if (s == GV_OK)
        s = nn_st_read_f64(&f, "eval.value", 1, s_n, r->eval_value, err);
    /* A reference a network produced has finite values of sane size everywhere: anything
     * else is a broken file, not a wrong device (bad input, exit 2). */
    const struct {
        const char *name;
        const double *x;
        size_t n;
    } outs[] = {{"input", r->batch.x, (size_t)n * NN_IN_PLANES * NN_CELLS}, {"value_target", r->batch.value, (size_t)n},
                {"out.logits", r->logits, (size_t)n * NN_POLICY}, {"out.value", r->value, (size_t)n},
                {"out.loss", &r->loss, 1}, {"grad.*", r->grads, r->L.nparams}, {"loss.steps", r->loss_steps, 10},
                {"eval.logits", r->eval_logits, (size_t)n * NN_POLICY}, {"eval.value", r->eval_value, (size_t)n}};
    for (size_t i = 0; s == GV_OK && i < GV_ARRAY_LEN(outs); i++)
        for (size_t k = 0; s == GV_OK && k < outs[i].n; k++)
            if (!isfinite(outs[i].x[k]) || fabs(outs[i].x[k]) > NN_CKPT_MAX_ABS)
                s = gv_fail(err, GV_ERR_INPUT, "%s: tensor '%s' holds %g at index %zu: not a value a network produces "
                            "(a broken reference file)", path, outs[i].name, outs[i].x[k], k);
    if (s != GV_OK)
        nn_refdata_free(r);
    return s;
}
