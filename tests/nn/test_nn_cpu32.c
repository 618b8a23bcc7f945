/* test_nn_cpu32.c: the float32 CPU trainer against the float64 reference trainer: on the
 * PyTorch reference files (C=32, 6 blocks, GroupNorm and BatchNorm) and on small random
 * configurations (channel counts 8..48, 0..2 blocks, odd batch sizes, 1 to 4 threads; one
 * sample on 4 threads runs its convolutions shared among them): training-mode forward
 * (logits, value, loss <= 1e-5; the value relative to the scale sum|w r|+|b| its last layer
 * sums at, see nn_value_scale), every gradient (<= 1e-4), running
 * stats, the AdamW step recomputed in float64 from the trainer's own moments, and the
 * eval-mode forward. Gradients jump where a ReLU input is zero, and a few inputs lie within
 * rounding of zero, so gradients and moments are compared with float64 on the fp32 run's
 * own ReLU masks (nn_ref_follow_masks), and the masks with float64's own (at most 1e-4 of
 * them may differ). Also that the fault hook makes the comparison fail, and that two runs
 * on several threads agree bit for bit (a race would not); GroupNorm's work units both
 * tapered (the default) and equal. Positions as float32 planes or as cells give both
 * trainers the same results as float64 planes of the same values, and nn_batch_x_f32
 * gives the float32 values of each form. Everything runs twice: with the 3x3 convolutions by Winograd
 * (the default) and by im2col + sgemm (the plain path). */
#include "nn_testlib.h"
#include "nn/nn_check.h"
#include "nn/ops.h"

#define TOL_FWD 1e-5
#define TOL_GRAD 1e-4

#define TOL_MASKS 1e-4

/* The float32 trainer's convolution path under test (set by main for each pass). */
static nn_cpu_conv conv;

typedef struct {
    double *logits, *value, loss, *grads;
    nn_state after; /* state after one step */
    double *eval_logits, *eval_value;
    uint8_t *masks; /* ReLU masks of the gradients' forward */
} run_out;

/* forward (train), gradients and one step from state s on batch b, then an eval forward
 * from eval_state (or the state after the step when NULL). With follow (fp64 only), the
 * reference applies those ReLU masks instead of deciding its own. */
static int run(const char *dtype_name, nn_dtype dt, int threads, int fault, const nn_layout *L, const nn_state *s,
               const nn_batch *b, const nn_state *eval_state, const uint8_t *follow, run_out *o)
{
    gv_err err = {{0}};
    nn_trainer_opts opts = {.dtype = dt, .max_batch = b->n, .threads = threads, .fault = fault, .cpu_conv = conv};
    nn_trainer *t;
    if (nn_trainer_create(&DEV_ID_CPU, L, &opts, &t, &err) != GV_OK) {
        t_check(0, dtype_name, "create: %s", err.msg);
        return 0;
    }
    int n = b->n;
    o->logits = malloc(sizeof(double) * n * NN_POLICY), o->value = malloc(sizeof(double) * n);
    o->eval_logits = malloc(sizeof(double) * n * NN_POLICY), o->eval_value = malloc(sizeof(double) * n);
    o->grads = malloc(sizeof(double) * L->nparams);
    t_poison(o->logits, (size_t)n * NN_POLICY), t_poison(o->value, n), t_poison(o->grads, L->nparams);
    t_poison(o->eval_logits, (size_t)n * NN_POLICY), t_poison(o->eval_value, n);
    o->loss = NAN;
    o->masks = calloc(nn_relu_masks_len(L, n), 1);
    nn_state_alloc(&o->after, L);
    int ok = (!follow || nn_ref_follow_masks(t, follow, n, &err) == GV_OK) &&
             nn_trainer_set_batch(t, b, &err) == GV_OK &&
             nn_trainer_set_state(t, s, &err) == GV_OK &&
             nn_trainer_forward(t, 1, o->logits, o->value, &o->loss, &err) == GV_OK &&
             nn_trainer_set_state(t, s, &err) == GV_OK && nn_trainer_gradients(t, o->grads, NULL, &err) == GV_OK &&
             nn_trainer_relu_masks(t, o->masks, &err) == GV_OK &&
             nn_trainer_set_state(t, s, &err) == GV_OK && nn_trainer_step(t, NULL, &err) == GV_OK &&
             nn_trainer_get_state(t, &o->after, &err) == GV_OK &&
             (!eval_state || nn_trainer_set_state(t, eval_state, &err) == GV_OK) &&
             nn_trainer_forward(t, 0, o->eval_logits, o->eval_value, NULL, &err) == GV_OK;
    if (!ok)
        t_check(0, dtype_name, "trainer call failed: %s", err.msg);
    nn_trainer_destroy(t);
    return ok;
}

static void run_free(run_out *o)
{
    free(o->logits), free(o->value), free(o->grads), free(o->eval_logits), free(o->eval_value), free(o->masks);
    nn_state_free(&o->after);
}

/* fp32 run f against fp64 run r (forward, loss, running stats, eval) and fp64 run rg on f's
 * ReLU masks (gradients, moments); returns the number of failed comparisons. The value
 * head's output is one sum per sample, compared relative to the scale it is summed at
 * (nn_value_scale, nn_rel_l2_scale; docs/NN.md): a value near 0 (a value head that cancels)
 * has a plain relative error larger by scale/|value|. */
static int compare(const char *what, const nn_layout *L, const nn_state *s0, const nn_batch *b, const run_out *f,
                   const run_out *r, const run_out *rg, int report)
{
    char nm[400];
    int bad = 0, n = b->n;
    struct {
        const char *name;
        const double *a, *b;
        size_t len;
        double tol;
    } cmp[] = {
        {"forward logits", f->logits, r->logits, (size_t)n * NN_POLICY, TOL_FWD},
        {"loss", &f->loss, &r->loss, 1, TOL_FWD},
        {"running stats after the step", f->after.buffers, r->after.buffers, L->nbuffers, TOL_FWD},
        {"AdamW m after the step", f->after.adam_m, rg->after.adam_m, L->nparams, TOL_GRAD},
        {"AdamW v after the step", f->after.adam_v, rg->after.adam_v, L->nparams, TOL_GRAD},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(cmp); i++) {
        if (cmp[i].len == 0)
            continue;
        double e = t_rel_l2(cmp[i].a, cmp[i].b, cmp[i].len);
        bad += !(e <= cmp[i].tol);
        if (report) {
            snprintf(nm, sizeof nm, "%.300s %s", what, cmp[i].name);
            t_check(e <= cmp[i].tol, nm, "rel_l2 %.3g (tolerance %g)", e, cmp[i].tol);
        }
    }
    /* the values, relative to the scale the value head computes them at (nn_value_scale) */
    double *vs = malloc(sizeof(double) * n), *evs = malloc(sizeof(double) * n);
    gv_err verr = {{0}};
    if (nn_value_scale(L, s0, b, 1, 1, vs, &verr) != GV_OK ||
        nn_value_scale(L, &r->after, b, 0, 1, evs, &verr) != GV_OK) {
        fprintf(stderr, "nn_value_scale: %s\n", verr.msg);
        exit(1);
    }
    struct {
        const char *name;
        const double *a, *b, *scale;
    } vc[] = {{"forward value", f->value, r->value, vs}, {"eval forward value", f->eval_value, r->eval_value, evs}};
    for (size_t i = 0; i < GV_ARRAY_LEN(vc); i++) {
        double e = nn_rel_l2_scale(vc[i].a, vc[i].b, vc[i].scale, (size_t)n), plain = t_rel_l2(vc[i].a, vc[i].b, (size_t)n);
        double nb = 0, ns = 0;
        for (int k = 0; k < n; k++)
            nb += vc[i].b[k] * vc[i].b[k], ns += vc[i].scale[k] * vc[i].scale[k];
        bad += !(e <= TOL_FWD);
        if (report) {
            snprintf(nm, sizeof nm, "%.300s %s", what, vc[i].name);
            t_check(e <= TOL_FWD, nm,
                    "rel_l2 %.3g of the scale sum|w r|+|b| (%.3g, %.3g times the value's norm), plain rel_l2 %.3g "
                    "(tolerance %g)",
                    e, sqrt(ns), nb > 0 ? sqrt(ns / nb) : INFINITY, plain, TOL_FWD);
        }
    }
    free(vs), free(evs);
    /* gradients, tensor by tensor */
    double worst = 0;
    const char *wn = "";
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind != NN_T_PARAM)
            continue;
        double e = t_rel_l2(f->grads + t->offset, rg->grads + t->offset, t->numel);
        if (!(e <= worst))
            worst = e, wn = t->name;
    }
    bad += !(worst <= TOL_GRAD);
    if (report) {
        snprintf(nm, sizeof nm, "%.300s gradients", what);
        t_check(worst <= TOL_GRAD, nm, "worst tensor %s rel_l2 %.3g (tolerance %g)", wn, worst, TOL_GRAD);
    }
    /* the AdamW update recomputed in float64 from the trainer's own moments */
    size_t np = L->nparams;
    double *want = calloc(np, sizeof(double)), *got = calloc(np, sizeof(double));
    double bc1 = 1 - NN_BETA1, bc2 = 1 - NN_BETA2;
    for (size_t i = 0; i < np; i++) {
        double pi = s0->params[i] * (1 - NN_LR * NN_WEIGHT_DECAY);
        pi -= NN_LR / bc1 * f->after.adam_m[i] / (sqrt(f->after.adam_v[i]) / sqrt(bc2) + NN_ADAM_EPS);
        want[i] = pi - s0->params[i];
        got[i] = f->after.params[i] - s0->params[i];
    }
    double e = t_rel_l2(got, want, np);
    bad += !(e <= TOL_FWD);
    if (report) {
        snprintf(nm, sizeof nm, "%.300s AdamW update", what);
        t_check(e <= TOL_FWD, nm, "rel_l2 %.3g of the step against float64 AdamW on its moments (tolerance %g)", e,
                TOL_FWD);
    }
    free(want), free(got);
    double el = t_rel_l2(f->eval_logits, r->eval_logits, (size_t)n * NN_POLICY);
    bad += !(el <= TOL_FWD);
    if (report) {
        snprintf(nm, sizeof nm, "%.300s eval forward logits", what);
        t_check(el <= TOL_FWD, nm, "on the float64 state after the step: rel_l2 %.3g (tolerance %g)", el, TOL_FWD);
    }
    size_t ml = nn_relu_masks_len(L, n), diff = 0;
    for (size_t i = 0; i < ml; i++)
        diff += f->masks[i] != r->masks[i];
    bad += !((double)diff / (double)ml <= TOL_MASKS);
    if (report) {
        snprintf(nm, sizeof nm, "%.300s ReLU masks", what);
        t_check((double)diff / (double)ml <= TOL_MASKS, nm, "%zu of %zu differ from float64's own (at most %g of them)",
                diff, ml, TOL_MASKS);
    }
    return bad;
}

/* fp32 against fp64 on state s and batch b: forward with the free-running float64 path,
 * gradients with float64 on the fp32 run's ReLU masks. */
static void one_config(const char *what, const nn_layout *L, const nn_state *s, const nn_batch *b, int threads)
{
    run_out r, f, rg;
    if (!run(what, NN_FP64, 0, 0, L, s, b, NULL, NULL, &r))
        return;
    if (run(what, NN_FP32, threads, 0, L, s, b, &r.after, NULL, &f)) {
        if (run(what, NN_FP64, 0, 0, L, s, b, NULL, f.masks, &rg)) {
            compare(what, L, s, b, &f, &r, &rg, 1);
            run_free(&rg);
        }
        run_free(&f);
    }
    run_free(&r);
}

/* The same call twice on two and three threads must give bit-identical results: the work
 * split and every reduction order are fixed (GroupNorm's units go to whichever thread is
 * free, but are summed in unit order), so a difference means a race. BatchNorm with 16
 * channels (norms of different widths share the team sums), and GroupNorm; 50 samples are
 * at least four per unit on both thread counts (8 and 12 units), so GroupNorm's units are
 * the tapered ones (cpu32.c, unit_share). */
static void repeatability(nn_norm norm)
{
    nn_config cfg = {16, 2, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 77);
    nn_batch b;
    nn_batch_alloc(&b, 50);
    nn_batch_random(&b, 78);
    for (int threads = 2; threads <= 3; threads++) {
        nn_trainer_opts o = {.dtype = NN_FP32, .max_batch = b.n, .threads = threads, .cpu_conv = conv};
        nn_trainer *t;
        gv_err err = {{0}};
        if (nn_trainer_create(&DEV_ID_CPU, &L, &o, &t, &err) != GV_OK) {
            t_check(0, "repeatability", "%s", err.msg);
            break;
        }
        double *g[2], loss[2], *p[2];
        nn_state after;
        nn_state_alloc(&after, &L);
        nn_trainer_set_batch(t, &b, &err);
        int same = 1;
        for (int k = 0; k < 2; k++) {
            g[k] = malloc(sizeof(double) * L.nparams), p[k] = malloc(sizeof(double) * L.nparams);
            nn_trainer_set_state(t, &s, &err);
            nn_trainer_gradients(t, g[k], &loss[k], &err);
            nn_trainer_set_state(t, &s, &err);
            for (int i = 0; i < 3; i++)
                nn_trainer_step(t, NULL, &err);
            nn_trainer_get_state(t, &after, &err);
            memcpy(p[k], after.params, sizeof(double) * L.nparams);
        }
        same = loss[0] == loss[1] && !memcmp(g[0], g[1], sizeof(double) * L.nparams) &&
               !memcmp(p[0], p[1], sizeof(double) * L.nparams);
        t_check(same, "repeatability", "%s %s C=16, batch 50, %d threads: loss, %zu gradients and the state after 3 "
                "steps bit-identical in two runs: %s", nn_cpu_conv_name(conv), nn_norm_name(norm), threads, L.nparams,
                same ? "yes" : "no");
        for (int k = 0; k < 2; k++)
            free(g[k]), free(p[k]);
        nn_state_free(&after);
        nn_trainer_destroy(t);
    }
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
}

/* nn_batch_x_f32 (the GPU's staging of the positions) gives the float32 values of every
 * form: float64 planes converted, float32 planes copied and cells expanded (the same
 * draws), on one thread and on all, from an offset, across more pieces than it threads
 * over; and nn_batch_check refuses a cell code outside 0..9 and NN_NO_PLANE. */
static void positions_f32(void)
{
    const int n = 300, first = 7, count = 250;
    const size_t per = (size_t)NN_IN_PLANES * NN_CELLS, len = (size_t)count * per;
    nn_batch b[3];
    for (int f = 0; f < 3; f++) {
        nn_batch_alloc_as(&b[f], n, (nn_positions)f);
        nn_batch_random(&b[f], 5);
    }
    float *want = malloc(sizeof(float) * len), *got = malloc(sizeof(float) * len);
    for (size_t i = 0; i < len; i++)
        want[i] = (float)b[NN_POS_F64].x[first * per + i];
    int threads[] = {1, 0};
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < 3; f++) {
            memset(got, 0xff, sizeof(float) * len);
            nn_batch_x_f32(&b[f], first, count, got, threads[k]);
            size_t bad = 0;
            for (size_t i = 0; i < len; i++)
                bad += memcmp(&got[i], &want[i], sizeof(float)) != 0;
            t_check(bad == 0, "nn_batch_x_f32", "%s positions %d..%d on %s: %zu of %zu floats differ from "
                    "(float)x (must be 0)", f == NN_POS_F64 ? "float64" : f == NN_POS_F32 ? "float32" : "cells", first,
                    first + count - 1, threads[k] == 1 ? "1 thread" : "all threads", bad, len);
        }
    gv_err err = {{0}};
    b[NN_POS_CELLS].cells[3 * NN_CELLS + 5] = NN_NO_PLANE;
    int ok = nn_batch_check(&b[NN_POS_CELLS], n, "test", &err) == GV_OK;
    b[NN_POS_CELLS].cells[3 * NN_CELLS + 5] = 10;
    int refused = nn_batch_check(&b[NN_POS_CELLS], n, "test", &err) == GV_ERR_INPUT;
    t_check(ok && refused && strstr(err.msg, "cell 5 of sample 3 has plane 10"), "nn_batch_check cells",
            "code %d accepted: %s; code 10 refused: %s (\"%s\")", NN_NO_PLANE, ok ? "yes" : "no",
            refused ? "yes" : "no", err.msg);
    free(want), free(got);
    for (int f = 0; f < 3; f++)
        nn_batch_free(&b[f]);
}

/* Both backends take every form of positions as one input. */
static void positions_checks(void)
{
    nn_config cfg = {16, 1, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 41);
    nn_dtype dts[] = {NN_FP64, NN_FP32};
    for (int k = 0; k < 2; k++) {
        nn_trainer_opts opts = {.dtype = dts[k], .max_batch = 9, .threads = 2, .cpu_conv = conv};
        nn_trainer *t;
        gv_err err = {{0}};
        char what[96];
        snprintf(what, sizeof what, "cpu-%s (%s) C=16", nn_dtype_name(dts[k]), nn_cpu_conv_name(conv));
        if (nn_trainer_create(&DEV_ID_CPU, &L, &opts, &t, &err) != GV_OK) {
            t_check(0, what, "create: %s", err.msg);
            continue;
        }
        t_positions_case(what, t, &s, 9, 42);
        nn_trainer_destroy(t);
    }
    nn_state_free(&s);
    nn_layout_free(&L);
}

static void all_checks(void)
{
    positions_checks();
    repeatability(NN_NORM_BATCH);
    repeatability(NN_NORM_GROUP);
    const char *files[] = {"drop7_c32_group_n8.safetensors", "drop7_c32_batch_n8.safetensors"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        if (!t_ref_file(files[i], path, sizeof path))
            continue;
        nn_refdata r;
        gv_err err = {{0}};
        if (nn_refdata_load(&r, path, &err) != GV_OK) {
            t_check(0, files[i], "load: %s", err.msg);
            continue;
        }
        char what[300];
        snprintf(what, sizeof what, "%s fp32 (%s) vs fp64", files[i], nn_cpu_conv_name(conv));
        one_config(what, &r.L, &r.init, &r.batch, 0);
        nn_refdata_free(&r);
    }
    /* random configurations: any multiple of 8 channels, any block count, odd batches */
    struct {
        int c, blocks, n, threads;
        nn_norm norm;
    } cfgs[] = {
        {8, 0, 3, 1, NN_NORM_GROUP}, {8, 1, 1, 4, NN_NORM_BATCH}, {16, 1, 5, 2, NN_NORM_BATCH}, {24, 2, 7, 2, NN_NORM_GROUP},
        {48, 1, 37, 2, NN_NORM_BATCH}, {40, 2, 70, 2, NN_NORM_GROUP},
    };
    for (size_t i = 0; i < GV_ARRAY_LEN(cfgs); i++) {
        nn_config cfg = {cfgs[i].c, cfgs[i].blocks, cfgs[i].norm};
        nn_layout L;
        nn_layout_init(&L, &cfg);
        nn_state s;
        nn_state_alloc(&s, &L);
        nn_state_init_random(&s, 100 + i);
        /* non-trivial norm parameters and running stats, so that every term is exercised */
        for (int k = 0; k < L.ntensors; k++) {
            const nn_tensor *t = &L.t[k];
            if (t->kind == NN_T_PARAM && t->ndim == 1)
                for (size_t j = 0; j < t->numel; j++)
                    s.params[t->offset + j] += 0.1 * sin(1.0 + (double)j + k);
            if (t->kind == NN_T_RUNNING_VAR)
                for (size_t j = 0; j < t->numel; j++)
                    s.buffers[t->offset + j] = 1.0 + 0.5 * cos((double)j);
        }
        nn_batch b;
        nn_batch_alloc(&b, cfgs[i].n);
        nn_batch_random(&b, 200 + i);
        char what[160];
        snprintf(what, sizeof what, "C=%d blocks=%d %s n=%d threads=%d fp32 (%s) vs fp64", cfg.channels, cfg.blocks,
                 nn_norm_name(cfg.norm), b.n, cfgs[i].threads, nn_cpu_conv_name(conv));
        one_config(what, &L, &s, &b, cfgs[i].threads);
        if (cfgs[i].norm == NN_NORM_GROUP && b.n >= 4 * 8) {
            /* the GroupNorm batch of at least four samples per unit ran on tapered units
             * (cpu32.c, unit_share): the same with equal units */
            setenv("GV_CPU_TAPER", "0", 1);
            snprintf(what, sizeof what, "C=%d blocks=%d %s n=%d threads=%d fp32 (%s), equal units "
                     "(GV_CPU_TAPER=0) vs fp64", cfg.channels, cfg.blocks, nn_norm_name(cfg.norm), b.n,
                     cfgs[i].threads, nn_cpu_conv_name(conv));
            one_config(what, &L, &s, &b, cfgs[i].threads);
            unsetenv("GV_CPU_TAPER");
        }
        if (i == 2 || i == 3) {
            /* the fault hook must make the same comparison fail */
            run_out r, f;
            if (run(what, NN_FP64, 0, 0, &L, &s, &b, NULL, NULL, &r)) {
                if (run(what, NN_FP32, cfgs[i].threads, 1, &L, &s, &b, &r.after, NULL, &f)) {
                    int bad = compare(what, &L, &s, &b, &f, &r, &r, 0);
                    snprintf(what, sizeof what, "C=%d %s %s fault hook", cfg.channels, nn_norm_name(cfg.norm),
                             nn_cpu_conv_name(conv));
                    t_check(bad > 0, what, "with opts.fault=1, %d comparisons fail (must be > 0)", bad);
                    run_free(&f);
                }
                run_free(&r);
            }
        }
        nn_batch_free(&b);
        nn_state_free(&s);
        nn_layout_free(&L);
    }
}

/* The inference-only float32 trainer (its blocks sharing four activation arrays; three
 * blocks, so that the outputs' two arrays both serve as input and residual) against a full
 * one (nn_testlib.h): the same outputs bit for bit on 1 and 3 threads, at batch 1 (one unit
 * whose convolutions all threads share, from 4 threads), 37 and after training, the
 * training calls refused, less memory. */
static void infer_only(nn_norm norm)
{
    nn_config cfg = {16, 3, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    for (int threads = 1; threads <= 4; threads += 3) {
        nn_state_init_random(&s, 90);
        char what[96];
        snprintf(what, sizeof what, "cpu-fp32 %s %s C=16 blocks=3, %d thread%s", nn_cpu_conv_name(conv),
                 nn_norm_name(norm), threads, threads > 1 ? "s" : "");
        nn_trainer_opts o = {.dtype = NN_FP32, .max_batch = 37, .threads = threads, .cpu_conv = conv};
        t_infer_only_case(what, &DEV_ID_CPU, &L, o, &s, 37, 91);
    }
    nn_state_free(&s);
    nn_layout_free(&L);
}

int main(void)
{
    positions_f32();
    nn_cpu_conv convs[] = {NN_CONV_WINOGRAD, NN_CONV_IM2COL};
    for (size_t i = 0; i < GV_ARRAY_LEN(convs); i++) {
        conv = convs[i];
        all_checks();
        infer_only(NN_NORM_GROUP);
        infer_only(NN_NORM_BATCH);
    }
    return t_done();
}
