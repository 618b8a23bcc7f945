/* layout.c: the Drop7 network's tensors in PyTorch state_dict order, the float64 host
 * state and batches shared by every backend (see nn.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "nn/nn.h"

gv_status nn_config_check(const nn_config *cfg, gv_err *err)
{
    if (cfg->channels < 8 || cfg->channels > 4096 || cfg->channels % 8 != 0)
        return gv_fail(err, GV_ERR_INPUT, "channels must be a multiple of 8 from 8 to 4096 (got %d)", cfg->channels);
    if (cfg->blocks < 0 || cfg->blocks > 64)
        return gv_fail(err, GV_ERR_INPUT, "blocks must be from 0 to 64 (got %d)", cfg->blocks);
    if (cfg->norm != NN_NORM_GROUP && cfg->norm != NN_NORM_BATCH)
        return gv_fail(err, GV_ERR_INPUT, "unknown norm %d", (int)cfg->norm);
    return GV_OK;
}

const char *nn_norm_name(nn_norm n)
{
    return n == NN_NORM_BATCH ? "batch" : "group";
}

const char *nn_dtype_name(nn_dtype d)
{
    switch (d) {
    case NN_FP64: return "fp64";
    case NN_FP32: return "fp32";
    case NN_BF16: return "bf16";
    }
    return "?";
}

typedef struct {
    nn_layout *L;
    int cap;
} builder;

static nn_tensor *add(builder *b, const char *name, nn_tensor_kind kind, int ndim, int s0, int s1, int s2, int s3)
{
    nn_layout *L = b->L;
    if (L->ntensors == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        L->t = gv_xrealloc(L->t, sizeof(nn_tensor) * (size_t)b->cap);
    }
    nn_tensor *t = &L->t[L->ntensors++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%.47s", name);
    t->kind = kind;
    t->ndim = ndim;
    int s[4] = {s0, s1, s2, s3};
    t->numel = 1;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = s[i];
        t->numel *= (size_t)s[i];
    }
    switch (kind) {
    case NN_T_PARAM:
        t->offset = L->nparams;
        L->nparams += t->numel;
        break;
    case NN_T_RUNNING_MEAN:
    case NN_T_RUNNING_VAR:
        t->offset = L->nbuffers;
        L->nbuffers += t->numel;
        break;
    case NN_T_NUM_BATCHES:
        t->offset = (size_t)L->nbn++;
        break;
    }
    return t;
}

static void add_conv(builder *b, const char *name, int cout, int cin, int k)
{
    char n[96];
    snprintf(n, sizeof n, "%.40s.weight", name);
    add(b, n, NN_T_PARAM, 4, cout, cin, k, k);
}

static void add_norm(builder *b, const char *name, int c)
{
    char n[96];
    snprintf(n, sizeof n, "%.40s.weight", name);
    add(b, n, NN_T_PARAM, 1, c, 0, 0, 0);
    snprintf(n, sizeof n, "%.40s.bias", name);
    add(b, n, NN_T_PARAM, 1, c, 0, 0, 0);
    if (b->L->cfg.norm == NN_NORM_BATCH) {
        snprintf(n, sizeof n, "%.40s.running_mean", name);
        add(b, n, NN_T_RUNNING_MEAN, 1, c, 0, 0, 0);
        snprintf(n, sizeof n, "%.40s.running_var", name);
        add(b, n, NN_T_RUNNING_VAR, 1, c, 0, 0, 0);
        snprintf(n, sizeof n, "%.40s.num_batches_tracked", name);
        add(b, n, NN_T_NUM_BATCHES, 0, 0, 0, 0, 0);
    }
}

static void add_linear(builder *b, const char *name, int out, int in)
{
    char n[96];
    snprintf(n, sizeof n, "%.40s.weight", name);
    add(b, n, NN_T_PARAM, 2, out, in, 0, 0);
    snprintf(n, sizeof n, "%.40s.bias", name);
    add(b, n, NN_T_PARAM, 1, out, 0, 0, 0);
}

void nn_layout_init(nn_layout *L, const nn_config *cfg)
{
    memset(L, 0, sizeof *L);
    L->cfg = *cfg;
    builder b = {L, 0};
    int C = cfg->channels;
    add_conv(&b, "stem", C, NN_IN_PLANES, 3);
    add_norm(&b, "sn", C);
    for (int i = 0; i < cfg->blocks; i++) {
        char n[96];
        snprintf(n, sizeof n, "blocks.%d.c1", i);
        add_conv(&b, n, C, C, 3);
        snprintf(n, sizeof n, "blocks.%d.n1", i);
        add_norm(&b, n, C);
        snprintf(n, sizeof n, "blocks.%d.c2", i);
        add_conv(&b, n, C, C, 3);
        snprintf(n, sizeof n, "blocks.%d.n2", i);
        add_norm(&b, n, C);
    }
    add_conv(&b, "pc", NN_HEAD_CH, C, 1);
    add_norm(&b, "pn", NN_HEAD_CH);
    add_linear(&b, "pf", NN_POLICY, NN_HEAD_FLAT);
    add_conv(&b, "vc", NN_HEAD_CH, C, 1);
    add_norm(&b, "vn", NN_HEAD_CH);
    add_linear(&b, "vf1", NN_VALUE_HIDDEN, NN_HEAD_FLAT);
    add_linear(&b, "vf2", 1, NN_VALUE_HIDDEN);
}

void nn_layout_free(nn_layout *L)
{
    free(L->t);
    memset(L, 0, sizeof *L);
}

const nn_tensor *nn_layout_find(const nn_layout *L, const char *name)
{
    for (int i = 0; i < L->ntensors; i++)
        if (strcmp(L->t[i].name, name) == 0)
            return &L->t[i];
    return NULL;
}

void nn_state_alloc(nn_state *s, const nn_layout *L)
{
    memset(s, 0, sizeof *s);
    s->L = L;
    s->params = gv_xcalloc(L->nparams, sizeof(double));
    s->buffers = gv_xcalloc(L->nbuffers ? L->nbuffers : 1, sizeof(double));
    s->num_batches = gv_xcalloc(L->nbn ? (size_t)L->nbn : 1, sizeof(int64_t));
    s->adam_m = gv_xcalloc(L->nparams, sizeof(double));
    s->adam_v = gv_xcalloc(L->nparams, sizeof(double));
}

void nn_state_free(nn_state *s)
{
    GV_FREE(s->params, s->buffers, s->num_batches, s->adam_m, s->adam_v);
    memset(s, 0, sizeof *s);
}

void nn_state_copy(nn_state *dst, const nn_state *src)
{
    const nn_layout *L = src->L;
    memcpy(dst->params, src->params, sizeof(double) * L->nparams);
    memcpy(dst->buffers, src->buffers, sizeof(double) * L->nbuffers);
    memcpy(dst->num_batches, src->num_batches, sizeof(int64_t) * (size_t)L->nbn);
    memcpy(dst->adam_m, src->adam_m, sizeof(double) * L->nparams);
    memcpy(dst->adam_v, src->adam_v, sizeof(double) * L->nparams);
    dst->adam_step = src->adam_step;
}

/* Is tensor i a norm's weight or bias? The norm modules are sn, pn, vn and blocks.K.n1/n2:
 * two-letter module names with an 'n' in them (conv and linear modules are c1, c2, pc, vc,
 * pf, vf1, vf2, stem). */
static int is_norm_param(const nn_layout *L, int i)
{
    const char *name = L->t[i].name;
    const char *last = strrchr(name, '.');
    const char *mod = name;
    for (const char *p = name; p < last; p++)
        if (*p == '.')
            mod = p + 1;
    return last - mod == 2 && (mod[0] == 'n' || mod[1] == 'n');
}

void nn_state_init_random(nn_state *s, uint64_t seed)
{
    const nn_layout *L = s->L;
    gv_rng r;
    gv_rng_seed(&r, seed);
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind == NN_T_RUNNING_MEAN) {
            for (size_t k = 0; k < t->numel; k++)
                s->buffers[t->offset + k] = 0.0;
            continue;
        }
        if (t->kind == NN_T_RUNNING_VAR) {
            for (size_t k = 0; k < t->numel; k++)
                s->buffers[t->offset + k] = 1.0;
            continue;
        }
        if (t->kind == NN_T_NUM_BATCHES) {
            s->num_batches[t->offset] = 0;
            continue;
        }
        double *p = s->params + t->offset;
        if (is_norm_param(L, i)) {
            int is_weight = strstr(t->name, ".weight") != NULL;
            for (size_t k = 0; k < t->numel; k++)
                p[k] = is_weight ? 1.0 : 0.0;
            continue;
        }
        /* conv/linear weight: fan_in = numel / out; a linear bias takes its weight's fan-in */
        size_t fan_in;
        if (t->ndim >= 2) {
            fan_in = t->numel / (size_t)t->shape[0];
        } else {
            const nn_tensor *w = &L->t[i - 1];
            fan_in = w->numel / (size_t)w->shape[0];
        }
        double bound = 1.0 / sqrt((double)fan_in);
        for (size_t k = 0; k < t->numel; k++)
            p[k] = (2.0 * gv_rng_uniform(&r) - 1.0) * bound;
    }
    memset(s->adam_m, 0, sizeof(double) * L->nparams);
    memset(s->adam_v, 0, sizeof(double) * L->nparams);
    s->adam_step = 0;
}

void nn_batch_alloc_as(nn_batch *b, int n, nn_positions form)
{
    const size_t nx = (size_t)n * NN_IN_PLANES * NN_CELLS;
    memset(b, 0, sizeof *b);
    b->n = n;
    if (form == NN_POS_F64)
        b->x = gv_xcalloc(nx, sizeof(double));
    else if (form == NN_POS_F32)
        b->x32 = gv_xcalloc(nx, sizeof(float));
    else {
        b->cells = gv_xcalloc((size_t)n * NN_CELLS, 1);
        b->consts = gv_xcalloc((size_t)n * 2, sizeof(float));
    }
    b->policy = gv_xcalloc((size_t)n, sizeof(int64_t));
    b->value = gv_xcalloc((size_t)n, sizeof(double));
}

void nn_batch_alloc(nn_batch *b, int n)
{
    nn_batch_alloc_as(b, n, NN_POS_F64);
}

void nn_batch_free(nn_batch *b)
{
    free(b->x);
    free(b->x32);
    free(b->cells);
    free(b->consts);
    free(b->policy);
    free(b->value);
    memset(b, 0, sizeof *b);
}

static const char *const pos_names[] = {"float64", "planes", "cells"};

int nn_positions_parse(const char *s, nn_positions *p)
{
    for (int i = NN_POS_F32; i <= NN_POS_CELLS; i++)
        if (strcmp(s, pos_names[i]) == 0) {
            *p = (nn_positions)i;
            return 1;
        }
    return 0;
}

const char *nn_positions_name(nn_positions p)
{
    return pos_names[p];
}

void nn_batch_random(nn_batch *b, uint64_t seed)
{
    gv_rng r;
    gv_rng_seed(&r, seed);
    const size_t per = (size_t)NN_IN_PLANES * NN_CELLS;
    for (int i = 0; i < b->n; i++) {
        uint8_t cell[NN_CELLS];
        for (int c = 0; c < NN_CELLS; c++)
            cell[c] = (uint8_t)gv_rng_below(&r, 10);
        double nxt = (double)(1 + gv_rng_below(&r, 7)) / 7.0;
        double rise = (double)(1 + gv_rng_below(&r, 30)) / 30.0;
        if (b->cells) {
            memcpy(b->cells + (size_t)i * NN_CELLS, cell, NN_CELLS);
            b->consts[2 * i] = (float)nxt, b->consts[2 * i + 1] = (float)rise;
        } else {
            for (size_t k = 0; k < per; k++) {
                int c = (int)(k % NN_CELLS), plane = (int)(k / NN_CELLS);
                double v = plane == 10 ? nxt : plane == 11 ? rise : plane == cell[c] ? 1.0 : 0.0;
                if (b->x32)
                    b->x32[(size_t)i * per + k] = (float)v;
                else
                    b->x[(size_t)i * per + k] = v;
            }
        }
        b->policy[i] = (int64_t)gv_rng_below(&r, NN_POLICY);
        b->value[i] = gv_rng_normal(&r);
    }
}

gv_status nn_batch_check(const nn_batch *b, int max_batch, const char *who, gv_err *err)
{
    if (b->n < 1 || b->n > max_batch)
        return gv_fail(err, GV_ERR_INPUT, "%s: batch of %d outside 1..%d (max_batch)", who, b->n, max_batch);
    if (!b->x + !b->x32 + !b->cells != 2 || (b->cells && !b->consts))
        return gv_fail(err, GV_ERR_INPUT, "%s: a batch needs exactly one form of positions (x, x32 or cells with "
                       "consts)", who);
    for (int i = 0; i < b->n; i++)
        if (b->policy[i] < 0 || b->policy[i] >= NN_POLICY)
            return gv_fail(err, GV_ERR_INPUT, "%s: policy target %lld of sample %d is not in 0..6", who,
                           (long long)b->policy[i], i);
    for (size_t i = 0; b->cells && i < (size_t)b->n * NN_CELLS; i++)
        if (b->cells[i] >= 10 && b->cells[i] != NN_NO_PLANE)
            return gv_fail(err, GV_ERR_INPUT, "%s: cell %zu of sample %zu has plane %d (not 0..9 or %d, none)", who,
                           i % NN_CELLS, i / NN_CELLS, b->cells[i], NN_NO_PLANE);
    return GV_OK;
}

size_t nn_relu_masks_len(const nn_layout *L, int n)
{
    size_t C = (size_t)L->cfg.channels, P = NN_CELLS;
    return (size_t)n * (C * P * (1 + 2 * (size_t)L->cfg.blocks) + 2 * NN_HEAD_CH * P + NN_VALUE_HIDDEN);
}

void nn_state_poison(nn_state *s)
{
    const nn_layout *L = s->L;
    for (size_t i = 0; i < L->nparams; i++)
        s->params[i] = s->adam_m[i] = s->adam_v[i] = NAN;
    for (size_t i = 0; i < L->nbuffers; i++)
        s->buffers[i] = NAN;
    for (int i = 0; i < L->nbn; i++)
        s->num_batches[i] = -1;
    s->adam_step = -1;
}
