/* nn_testlib.h: helpers the network tests share: finding (or generating) the PyTorch
 * reference files, and comparing a trainer's results with expected arrays. */
#ifndef GV_TESTS_NN_TESTLIB_H
#define GV_TESTS_NN_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dev/dev.h"
#include "nn/ckpt.h"
#include "nn/nn.h"

/* Puts into path the reference file `name` (drop7_c<C>_<norm>_n<N>.safetensors, 6 blocks):
 * $GV_REF_DIR/name when present, else one generated into $GV_BUILD/ref/ with $PYTHON and
 * bench/torch/make_reference.py. Returns 0 (after a SKIP line) when neither is possible. */
__attribute__((unused))
static int t_ref_file(const char *name, char *path, size_t len)
{
    const char *dir = getenv("GV_REF_DIR");
    if (dir && *dir) {
        snprintf(path, len, "%s/%s", dir, name);
        if (access(path, R_OK) == 0)
            return 1;
    }
    const char *py = getenv("PYTHON"), *root = getenv("GV_ROOT"), *build = getenv("GV_BUILD");
    int c = 0, n = 0;
    char norm[16] = "";
    if (sscanf(name, "drop7_c%d_%15[a-z]_n%d.safetensors", &c, norm, &n) != 3) {
        t_skip(name, "not a reference file name this test knows how to generate");
        return 0;
    }
    if (!py || !*py || !root || !build) {
        t_skip(name, "no reference file (GV_REF_DIR=%s) and no python3 with torch (PYTHON) to generate one",
               dir && *dir ? dir : "unset");
        return 0;
    }
    snprintf(path, len, "%s/ref/%s", build, name);
    if (access(path, R_OK) == 0)
        return 1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/ref' && '%s' '%s/bench/torch/make_reference.py' --out '%s' --channels %d "
             "--blocks 6 --norm %s --batch %d --seed %d", build, py, root, path, c, norm, n,
             strcmp(norm, "batch") ? 1 : 2);
    if (system(cmd) != 0 || access(path, R_OK) != 0) {
        t_skip(name, "generating it with %s failed", py);
        return 0;
    }
    return 1;
}

/* Fills n doubles with NaN: what a trainer does not write cannot pass a comparison. */
__attribute__((unused))
static void t_poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = NAN;
}

/* Compares every parameter tensor's gradient; prints one line per tensor when verbose,
 * else only failures and one summary line with the worst tensor. */
__attribute__((unused))
static void t_check_grads(const char *what, const nn_layout *L, const double *g, const double *ref, double tol,
                          int verbose)
{
    double worst = 0;
    const char *wname = "";
    int bad = 0, count = 0;
    for (int i = 0; i < L->ntensors; i++) {
        const nn_tensor *t = &L->t[i];
        if (t->kind != NN_T_PARAM)
            continue;
        count++;
        double e = t_rel_l2(g + t->offset, ref + t->offset, t->numel);
        char nm[320];
        snprintf(nm, sizeof nm, "%s grad %s", what, t->name);
        if (verbose || !(e <= tol)) {
            t_check(e <= tol, nm, "rel_l2 %.3g (tolerance %g)", e, tol);
            bad += !(e <= tol);
        }
        if (!(e <= worst)) {
            worst = e;
            wname = t->name;
        }
    }
    if (!verbose && !bad)
        t_check(1, what, "all %d gradients within rel_l2 %g (worst %.3g, %s)", count, tol, worst, wname);
}

/* The three forms positions come in (nn_batch x float64, x32 float32, cells) must be one
 * input: on the same values (float32 ones, widened for x; the last position empty, as
 * self-play's padding), t's eval forward and its loss must come out bit for bit the same.
 * t must take batches of n. */
__attribute__((unused))
static void t_positions_case(const char *what, nn_trainer *t, const nn_state *s, int n, uint64_t seed)
{
    nn_batch b[3];
    const nn_positions forms[3] = {NN_POS_F64, NN_POS_F32, NN_POS_CELLS};
    for (int k = 0; k < 3; k++) {
        nn_batch_alloc_as(&b[k], n, forms[k]);
        nn_batch_random(&b[k], seed); /* the same draws in each form */
    }
    /* the last position empty, as self-play pads a batch: no plane set, constants 0 */
    const size_t per = (size_t)NN_IN_PLANES * NN_CELLS, last = (size_t)n - 1;
    memset(b[2].cells + last * NN_CELLS, NN_NO_PLANE, NN_CELLS);
    b[2].consts[2 * last] = b[2].consts[2 * last + 1] = 0;
    memset(b[1].x32 + last * per, 0, sizeof(float) * per);
    for (size_t i = 0; i < (size_t)n * per; i++)
        b[0].x[i] = b[1].x32[i];
    double *l[3], *v[3], loss[3] = {NAN, NAN, NAN};
    gv_err err = {{0}};
    int ok = nn_trainer_set_state(t, s, &err) == GV_OK;
    for (int k = 0; k < 3; k++) {
        l[k] = malloc(sizeof(double) * (size_t)n * NN_POLICY), v[k] = malloc(sizeof(double) * (size_t)n);
        t_poison(l[k], (size_t)n * NN_POLICY), t_poison(v[k], (size_t)n);
        ok = ok && nn_trainer_set_batch(t, &b[k], &err) == GV_OK &&
             nn_trainer_forward(t, 0, l[k], v[k], &loss[k], &err) == GV_OK;
    }
    for (int k = 1; k < 3; k++) {
        char name[256];
        snprintf(name, sizeof name, "%s: positions as %s vs float64 planes (x), n=%d, one empty", what,
                 k == 1 ? "float32 planes (x32)" : "cells", n);
        if (!ok) {
            t_check(0, name, "trainer call failed: %s", err.msg);
            continue;
        }
        int same = memcmp(l[0], l[k], sizeof(double) * (size_t)n * NN_POLICY) == 0 &&
                   memcmp(v[0], v[k], sizeof(double) * (size_t)n) == 0 && memcmp(&loss[0], &loss[k], sizeof(double)) == 0;
        t_check(same, name, "eval logits rel_l2 %.3g, value %.3g, loss %.17g vs %.17g (must be identical)",
                t_rel_l2(l[k], l[0], (size_t)n * NN_POLICY), t_rel_l2(v[k], v[0], (size_t)n), loss[k], loss[0]);
    }
    for (int k = 0; k < 3; k++) {
        free(l[k]), free(v[k]);
        nn_batch_free(&b[k]);
    }
}

/* A trainer opened for inference only (ti) against a full one (t) of the same backend,
 * both from state *s: on a batch of n drawn from seed (after `steps` training steps of t
 * on it, whose state *s and ti then take), ti's infer and eval forward must give t's eval
 * forward bit for bit: logits, value and loss. */
__attribute__((unused))
static void t_infer_only_same(const char *what, nn_trainer *t, nn_trainer *ti, nn_state *s, int n, uint64_t seed,
                              int steps)
{
    const size_t nl = (size_t)n * NN_POLICY, nv = (size_t)n;
    nn_batch b;
    nn_batch_alloc(&b, n);
    nn_batch_random(&b, seed);
    double *out[6], loss[2] = {NAN, NAN}; /* logits, value: t's eval forward, ti's infer, ti's eval forward */
    for (int j = 0; j < 6; j++) {
        out[j] = malloc(sizeof(double) * (j % 2 ? nv : nl));
        t_poison(out[j], j % 2 ? nv : nl);
    }
    gv_err e = {{0}};
    int ok = nn_trainer_set_batch(t, &b, &e) == GV_OK && nn_trainer_set_batch(ti, &b, &e) == GV_OK;
    for (int k = 0; ok && k < steps; k++)
        ok = nn_trainer_step(t, NULL, &e) == GV_OK;
    ok = ok && (!steps || (nn_trainer_get_state(t, s, &e) == GV_OK && nn_trainer_set_state(ti, s, &e) == GV_OK)) &&
         nn_trainer_forward(t, 0, out[0], out[1], &loss[0], &e) == GV_OK &&
         nn_trainer_infer(ti, out[2], out[3], &e) == GV_OK &&
         nn_trainer_forward(ti, 0, out[4], out[5], &loss[1], &e) == GV_OK;
    char name[256];
    snprintf(name, sizeof name, "%s: inference-only trainer, n=%d%s", what, n, steps ? ", after training" : "");
    if (!ok) {
        t_check(0, name, "trainer call failed: %s", e.msg);
    } else {
        int same = !memcmp(&loss[0], &loss[1], sizeof(double));
        for (int j = 2; j < 6; j++)
            same &= !memcmp(out[j], out[j % 2], sizeof(double) * (j % 2 ? nv : nl));
        t_check(same, name, "vs the full trainer's eval forward: infer logits rel_l2 %.3g, value %.3g; eval forward "
                "logits %.3g, value %.3g, loss %.17g vs %.17g (must be identical)", t_rel_l2(out[2], out[0], nl),
                t_rel_l2(out[3], out[1], nv), t_rel_l2(out[4], out[0], nl), t_rel_l2(out[5], out[1], nv), loss[1],
                loss[0]);
    }
    for (int j = 0; j < 6; j++)
        free(out[j]);
    nn_batch_free(&b);
}

/* An inference-only trainer ti (after a batch was set) refuses each training call with
 * GV_ERR_INPUT saying why, and holds less memory than the full trainer t. */
__attribute__((unused))
static void t_infer_only_limits(const char *what, nn_trainer *t, nn_trainer *ti)
{
    gv_err r[4] = {{{0}}};
    uint8_t *masks = malloc(nn_relu_masks_len(nn_trainer_layout(ti), nn_trainer_max_batch(ti)));
    double *g = malloc(sizeof(double) * nn_trainer_layout(ti)->nparams);
    gv_status st[4] = {nn_trainer_step(ti, NULL, &r[0]), nn_trainer_gradients(ti, g, NULL, &r[1]),
                       nn_trainer_forward(ti, 1, NULL, NULL, NULL, &r[2]), nn_trainer_relu_masks(ti, masks, &r[3])};
    int refused = 1;
    for (int j = 0; j < 4; j++)
        refused &= st[j] == GV_ERR_INPUT && strstr(r[j].msg, "inference only") != NULL;
    char name[256];
    snprintf(name, sizeof name, "%s: inference-only trainer refuses training", what);
    t_check(refused, name, "step %d, gradients %d, train forward %d, relu_masks %d (each must be %d): \"%s\"", st[0],
            st[1], st[2], st[3], GV_ERR_INPUT, r[0].msg);
    free(masks), free(g);
    size_t full = nn_trainer_peak_bytes(t), held = nn_trainer_peak_bytes(ti);
    snprintf(name, sizeof name, "%s: inference-only trainer memory", what);
    t_check(held < full, name, "%.2f MiB vs the full trainer's %.2f MiB (must be less)", held / 1048576.0,
            full / 1048576.0);
}

/* The whole comparison on device (dev/dev.h) with options o: a full trainer
 * and one opened for inference only, both from state *s; t_infer_only_same at batch n
 * (seed), 1 (seed + 1) and n after two training steps (seed + 2), then t_infer_only_limits.
 * o.max_batch must be at least n. */
__attribute__((unused))
static void t_infer_only_case(const char *what, const dev_id *device, const nn_layout *L, nn_trainer_opts o,
                              nn_state *s, int n, uint64_t seed)
{
    nn_trainer *t = NULL, *ti = NULL;
    gv_err e = {{0}};
    nn_trainer_opts oi = o;
    o.infer_only = 0, oi.infer_only = 1;
    if (nn_trainer_create(device, L, &o, &t, &e) != GV_OK || nn_trainer_create(device, L, &oi, &ti, &e) != GV_OK ||
        nn_trainer_set_state(t, s, &e) != GV_OK || nn_trainer_set_state(ti, s, &e) != GV_OK) {
        t_check(0, what, "setup failed: %s", e.msg);
    } else {
        t_infer_only_same(what, t, ti, s, n, seed, 0);
        t_infer_only_same(what, t, ti, s, 1, seed + 1, 0);
        t_infer_only_same(what, t, ti, s, n, seed + 2, 2);
        t_infer_only_limits(what, t, ti);
    }
    nn_trainer_destroy(t);
    nn_trainer_destroy(ti);
}

#endif
