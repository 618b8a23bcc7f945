/* drop7_train.c: the network of the Drop7 commands, and training on self-play datasets
 * (see drop7_train.h). */
#include "drop7/drop7_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/progress.h"
#include "core/record.h"
#include "core/rng.h"
#include "drop7/drop7.h"
#include "drop7/drop7_expecti.h"
#include "nn/ckpt.h"

gv_status drop7_net_open(const dev_id *d, const char *ckpt, const nn_config *fresh, uint64_t seed,
                         nn_trainer_opts o, drop7_net *n, gv_err *err)
{
    memset(n, 0, sizeof *n);
    nn_config cfg = fresh ? *fresh : (nn_config){0};
    nn_st_file f = {0};
    if (ckpt)
        GV_TRY(nn_ckpt_open(ckpt, &f, &cfg, err));
    gv_status s = nn_config_check(&cfg, err);
    if (s != GV_OK) {
        nn_st_free(&f);
        return s;
    }
    nn_layout_init(&n->L, &cfg);
    if ((s = nn_fits(d, &n->L, &o, err)) != GV_OK) {
        nn_st_free(&f);
        nn_layout_free(&n->L);
        return s;
    }
    nn_state_alloc(&n->s, &n->L);
    nn_state_init_random(&n->s, seed);
    n->value_scale = DROP7_VALUE_SCALE;
    if (ckpt) {
        const char *vs = nn_st_meta(&f, "value_scale");
        char *end = NULL;
        double v = vs ? strtod(vs, &end) : DROP7_VALUE_SCALE;
        if (vs && (end == vs || *end || !(v >= 1 && v <= 1e9)))
            s = gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ value_scale is \"%.40s\", not a number of points from 1 to 1e9",
                        ckpt, vs);
        else
            s = nn_ckpt_read_state(&f, "", &n->s, err);
        n->value_scale = v;
        nn_st_free(&f);
    }
    if (s == GV_OK)
        s = nn_trainer_open(d, &n->L, o, &n->t, err);
    if (s == GV_OK)
        s = nn_trainer_set_state(n->t, &n->s, err);
    if (s != GV_OK)
        drop7_net_close(n);
    return s;
}

gv_status drop7_net_player(const char *ckpt, drop7_net_search *p, gv_err *err)
{
    memset(p, 0, sizeof *p);
    nn_st_file f = {0};
    nn_config cfg = {0};
    GV_TRY(nn_ckpt_open(ckpt, &f, &cfg, err));
    static const char *keys[4] = {"player_search", "player_samples", "player_value_weight", "player_heuristic_weight"};
    const char *v[4];
    int have = 0;
    for (int i = 0; i < 4; i++)
        have += (v[i] = nn_st_meta(&f, keys[i])) != NULL;
    gv_status s = GV_OK;
    if (have && have < 4) {
        int miss = 0;
        while (v[miss])
            miss++;
        s = gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ names a player without %s (give all four player_ keys or none)",
                    ckpt, keys[miss]);
    }
    for (int i = 0; have == 4 && s == GV_OK && i < 4; i++) {
        char *end = NULL;
        double x = i ? strtod(v[i], &end) : 0;
        int ok = i == 0   ? !strcmp(v[0], "puct") || !strcmp(v[0], "expectimax0") || !strcmp(v[0], "expectimax1")
                 : i == 1 ? end != v[i] && !*end && x >= 1 && x <= DROP7_EXPECTI_MAX_SAMPLES && x == floor(x)
                          : end != v[i] && !*end && x >= 0 && x <= 1000;
        if (!ok)
            s = gv_fail(err, GV_ERR_INPUT, "%s: __metadata__ %s is \"%.40s\", not %s", ckpt, keys[i], v[i],
                        i == 0 ? "puct, expectimax0 or expectimax1" : i == 1 ? "a count of reveal samples" : "a weight 0..1000");
        else if (i == 0)
            snprintf(p->search, sizeof p->search, "%s", v[0]);
        else if (i == 1)
            p->samples = (int)x;
        else if (i == 2)
            p->value_weight = x;
        else
            p->heuristic_weight = x;
    }
    p->set = have == 4 && s == GV_OK;
    nn_st_free(&f);
    return s;
}

void drop7_net_close(drop7_net *n)
{
    if (n->t)
        nn_trainer_destroy(n->t);
    if (n->L.t) {
        nn_state_free(&n->s);
        nn_layout_free(&n->L);
    }
    memset(n, 0, sizeof *n);
}

void drop7_net_id(const drop7_net *n, char id[17])
{
    gv_hasher *h = gv_hasher_new();
    int32_t shape[3] = {n->L.cfg.channels, n->L.cfg.blocks, (int32_t)n->L.cfg.norm};
    gv_hasher_update(h, shape, sizeof shape);
    gv_hasher_update(h, n->s.params, sizeof(double) * n->L.nparams);
    gv_hasher_update(h, n->s.buffers, sizeof(double) * n->L.nbuffers);
    if (n->value_scale != DROP7_VALUE_SCALE) /* another scale is another player (ids of before kept) */
        gv_hasher_update(h, &n->value_scale, sizeof n->value_scale);
    gv_hash_hex(gv_hasher_digest(h), id);
    gv_hasher_free(h);
}

gv_status drop7_net_path(const char *name, char *path, size_t n, gv_err *err)
{
    if (strcmp(name, "default")) {
        snprintf(path, n, "%s", name);
        return GV_OK;
    }
    char tried[3][1200], exe[1024];
    int nt = 0;
    const char *env = getenv("GV_MODELS");
    if (env && env[0])
        snprintf(tried[nt++], sizeof tried[0], "%s/%s", env, DROP7_DEFAULT_NET);
    /* GV_MODELS, when set, is the only place looked in (as models/README.md says) */
    ssize_t k = nt ? 0 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0; /* the binary's folder: build/<gpu>/ of a tree, or bin/ of an install */
            snprintf(tried[nt++], sizeof tried[0], "%s/../../models/%s", exe, DROP7_DEFAULT_NET);
            snprintf(tried[nt++], sizeof tried[0], "%s/../share/gpuvet/models/%s", exe, DROP7_DEFAULT_NET);
        }
    }
    for (int i = 0; i < nt; i++)
        if (access(tried[i], R_OK) == 0) {
            snprintf(path, n, "%s", tried[i]);
            return GV_OK;
        }
    return gv_fail(err, GV_ERR_ENV, "--net default: no shipped network %s (looked in %s%s%s): run the gpuvet of a source tree "
                   "(models/) or of make install, set GV_MODELS to the folder that holds it, give --net CKPT, or train "
                   "one with bench/drop7/train_strong.sh and copy its best.st to models/%s",
                   DROP7_DEFAULT_NET, nt > 0 ? tried[0] : "$GV_MODELS", nt > 1 ? ", " : "", nt > 1 ? tried[1] : "",
                   DROP7_DEFAULT_NET);
}

/* The learning rate of step k of total: linear warm-up, then cosine down to lr * lr_final. */
static double lr_at(const drop7_train_opts *o, long k, long total)
{
    double peak = o->lr > 0 ? o->lr : NN_LR;
    long warm = (long)ceil(o->warmup * (double)total);
    if (k < warm)
        return peak * (double)(k + 1) / (double)warm;
    double t = total > warm ? (double)(k - warm) / (double)(total - warm) : 1;
    return peak * (o->lr_final + (1 - o->lr_final) * 0.5 * (1 + cos(M_PI * t)));
}

/* Sample idx[i] of d into row i of b; its column drawn from the visit distribution. */
static void fill(const drop7_data *d, const long *idx, int n, double vmul, nn_batch *b, gv_rng *r)
{
    b->n = n;
    for (int i = 0; i < n; i++) {
        memcpy(b->x32 + (size_t)i * DROP7_PLANE_FLOATS, d->planes + (size_t)idx[i] * DROP7_PLANE_FLOATS,
               sizeof(float) * DROP7_PLANE_FLOATS);
        const float *p = d->policy + (size_t)idx[i] * DROP7_N;
        double u = gv_rng_uniform(r);
        int a = -1;
        for (int c = 0; c < DROP7_N; c++) {
            if (p[c] <= 0)
                continue;
            a = c; /* the last positive column takes what rounding leaves */
            if (u < p[c])
                break;
            u -= p[c];
        }
        b->policy[i] = a < 0 ? 0 : a;
        b->value[i] = d->value[idx[i]] * vmul;
    }
}

/* The validation losses: cross-entropy with the whole visit distribution, value MSE. */
static gv_status validate(drop7_net *n, const drop7_data *d, const long *idx, long nval, int batch, double vmul,
                          nn_batch *b, double *ce, double *mse, gv_err *err)
{
    double *logits = gv_xcalloc((size_t)batch * NN_POLICY, sizeof(double)), *value = gv_xcalloc((size_t)batch, sizeof(double));
    gv_rng r;
    gv_rng_seed(&r, 1);
    double sce = 0, sse = 0;
    gv_status s = GV_OK;
    for (long i = 0; i < nval && s == GV_OK; i += batch) {
        int k = (int)(nval - i < batch ? nval - i : batch);
        fill(d, idx + i, k, vmul, b, &r);
        s = nn_trainer_set_batch(n->t, b, err);
        if (s == GV_OK)
            s = nn_trainer_forward(n->t, 0, logits, value, NULL, err);
        for (int j = 0; j < k && s == GV_OK; j++) {
            const double *l = logits + (size_t)j * NN_POLICY;
            double mx = l[0], z = 0;
            for (int c = 1; c < NN_POLICY; c++)
                mx = l[c] > mx ? l[c] : mx;
            for (int c = 0; c < NN_POLICY; c++)
                z += exp(l[c] - mx);
            const float *p = d->policy + (size_t)idx[i + j] * DROP7_N;
            for (int c = 0; c < NN_POLICY; c++)
                sce -= p[c] * (l[c] - mx - log(z));
            double dv = value[j] - d->value[idx[i + j]] * vmul;
            sse += dv * dv;
        }
    }
    *ce = nval ? sce / (double)nval : NAN;
    *mse = nval ? sse / (double)nval : NAN;
    free(logits), free(value);
    return s;
}

gv_status drop7_train_run(drop7_net *n, const drop7_data *d, const drop7_train_opts *o, cJSON *rec, gv_err *err)
{
    if (o->epochs < 1 || o->batch < 1)
        return gv_fail(err, GV_ERR_INPUT, "train: epochs and batch must be at least 1");
    long nval = (long)floor(o->val_frac * (double)d->n), ntrain = d->n - nval;
    if (ntrain < 1)
        return gv_fail(err, GV_ERR_INPUT, "train: %ld samples leave none for training after the validation split", d->n);
    int batch = (int)(ntrain < o->batch ? ntrain : o->batch);
    if (batch > nn_trainer_max_batch(n->t))
        return gv_fail(err, GV_ERR_INTERNAL, "train: batch %d above the trainer's %d", batch,
                       nn_trainer_max_batch(n->t));
    long per_epoch = ntrain / batch, total = per_epoch * o->epochs;
    double vscale = o->value_scale > 0 ? o->value_scale : DROP7_VALUE_SCALE, vmul = DROP7_VALUE_SCALE / vscale;
    if (!(vscale >= 1 && vscale <= 1e9))
        return gv_fail(err, GV_ERR_INPUT, "train: the value scale must be 1 to 1e9 points (got %g)", vscale);
    char vsbuf[32];
    snprintf(vsbuf, sizeof vsbuf, "%.17g", vscale);
    const char *kv[2] = {"value_scale", vsbuf};
    n->value_scale = vscale;
    gv_lock *lock = NULL; /* the checkpoint is rewritten every epoch: one run at a time */
    if (o->save)
        GV_TRY(gv_lock_output(o->save, &lock, err));
    gv_rng r;
    gv_rng_seed(&r, o->seed);
    long *idx = gv_xmalloc(sizeof(long) * (size_t)d->n);
    for (long i = 0; i < d->n; i++)
        idx[i] = i;
    for (long i = d->n - 1; i > 0; i--) { /* the split: a shuffle, validation at the end */
        long j = (long)gv_rng_below(&r, (uint64_t)i + 1), t = idx[i];
        idx[i] = idx[j], idx[j] = t;
    }
    long *val = idx + ntrain;
    nn_batch b;
    nn_batch_alloc_as(&b, batch, NN_POS_F32);
    cJSON *tr = gv_json_add_obj(rec, "train_drop7");
    cJSON_AddNumberToObject(tr, "samples", (double)d->n);
    cJSON_AddNumberToObject(tr, "train_samples", (double)ntrain);
    cJSON_AddNumberToObject(tr, "val_samples", (double)nval);
    cJSON_AddNumberToObject(tr, "batch", batch);
    cJSON_AddNumberToObject(tr, "steps", (double)total);
    gv_json_add_num(tr, "lr_peak", o->lr > 0 ? o->lr : NN_LR);
    gv_json_add_num(tr, "value_scale", vscale);
    cJSON *eps = gv_json_add_arr(tr, "epochs");
    gv_progress pg;
    if (o->progress)
        gv_progress_init(&pg);
    gv_status s = GV_OK;
    long k = 0;
    for (int e = 1; e <= o->epochs && s == GV_OK; e++) {
        double t0 = gv_now(), sum = 0;
        for (long i = ntrain - 1; i > 0; i--) { /* this epoch's order */
            long j = (long)gv_rng_below(&r, (uint64_t)i + 1), t = idx[i];
            idx[i] = idx[j], idx[j] = t;
        }
        double lr = NAN;
        for (long st = 0; st < per_epoch && s == GV_OK; st++, k++) {
            fill(d, idx + st * batch, batch, vmul, &b, &r);
            lr = lr_at(o, k, total);
            nn_trainer_set_lr(n->t, lr);
            double loss = NAN;
            s = nn_trainer_set_batch(n->t, &b, err);
            if (s == GV_OK)
                s = nn_trainer_step(n->t, &loss, err);
            if (s == GV_OK && !isfinite(loss))
                s = gv_fail(err, GV_ERR_WRONG, "train: the loss is not finite at step %ld (epoch %d)", k + 1, e);
            sum += loss;
            if (o->progress)
                gv_progress_update(&pg, "epoch %d of %d, step %ld of %ld, loss %.4f", e, o->epochs, k + 1, total, loss);
        }
        double ce = NAN, mse = NAN;
        if (s == GV_OK && nval)
            s = validate(n, d, val, nval, batch, vmul, &b, &ce, &mse, err);
        if (s == GV_OK && o->save) {
            s = nn_trainer_get_state(n->t, &n->s, err);
            if (s == GV_OK)
                s = vscale == DROP7_VALUE_SCALE ? nn_ckpt_save(o->save, &n->s, NN_ST_F32, err)
                                                : nn_ckpt_save_meta(o->save, &n->s, NN_ST_F32, kv, 1, err);
        }
        if (s != GV_OK)
            break;
        cJSON *ep = cJSON_CreateObject();
        cJSON_AddNumberToObject(ep, "epoch", e);
        gv_json_add_num(ep, "lr", lr);
        gv_json_add_num(ep, "train_loss", per_epoch ? sum / (double)per_epoch : NAN);
        gv_json_add_num(ep, "val_policy_ce", ce);
        gv_json_add_num(ep, "val_value_mse", mse);
        gv_json_add_num(ep, "val_loss", ce + mse);
        gv_json_add_num(ep, "seconds", gv_now() - t0);
        cJSON_AddItemToArray(eps, ep);
        if (o->progress)
            gv_progress_done(&pg);
        if (!gv_quiet)
            printf("epoch %d: train loss %.4f, validation: policy cross-entropy %.4f, value MSE %.4f (lr %.2e, %.1f s)%s%s\n",
                   e, per_epoch ? sum / (double)per_epoch : NAN, ce, mse, lr, gv_now() - t0, o->save ? ", saved " : "",
                   o->save ? o->save : "");
    }
    if (o->progress)
        gv_progress_done(&pg);
    nn_batch_free(&b);
    free(idx);
    gv_unlock_output(lock);
    return s;
}
