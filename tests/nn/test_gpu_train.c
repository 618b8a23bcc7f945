/* test_gpu_train.c: the GPU trainer end to end without the host reference: training on a
 * fixed batch must keep every value finite and lower the loss (fp32 and bf16, GroupNorm
 * and BatchNorm), and the fp32 and bf16 trainers must agree on the first forward within
 * bf16's tolerance; inference (the captured eval-mode forward) gives exactly the eval
 * forward's logits and value, at two batch sizes, with BatchNorm's running statistics, and
 * again after training steps have changed the weights; the training-mode forward repeats
 * bit for bit; positions as float32 planes or as cells (expanded on the device) give the
 * same outputs as float64 planes of the same values; a trainer opened for inference only
 * gives the full trainer's eval outputs bit for bit in less memory and refuses to train;
 * inference pinned to a batch size (nn_trainer_pin_batch) gives each position of a smaller
 * batch the numbers of the full batch bit for bit (self-play's padded batches).
 * Exact agreement with the float64 host path is `gpuvet check`'s job (tests/nn).
 * GV_TRAIN_BENCH=1 adds step timings at benchmark sizes (information only). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn_testlib.h"
#include "core/gv.h"
#include "dev/dev.h"
#include "nn/nn.h"

/* The GPU these tests run on. */
static const dev_id gpu0 = {DEV_GPU, 0, "gpu"};

/* The GPU trainer (GPU 0) for L in dtype dt, for batches of up to maxb. */
static int make(const nn_layout *L, nn_dtype dt, int maxb, nn_trainer **t, gv_err *e)
{
    nn_trainer_opts o = {.dtype = dt, .max_batch = maxb};
    return nn_trainer_create(&gpu0, L, &o, t, e);
}

static void train_case(nn_norm norm, nn_dtype dt)
{
    char name[96];
    snprintf(name, sizeof name, "gpu soak %s %s c32 b2 n64", nn_dtype_name(dt), nn_norm_name(norm));
    nn_config cfg = {32, 2, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 7);
    nn_batch b;
    nn_batch_alloc(&b, 64);
    nn_batch_random(&b, 8);
    nn_trainer *t = NULL;
    gv_err e;
    if (make(&L, dt, 64, &t, &e) != GV_OK || nn_trainer_set_state(t, &s, &e) != GV_OK ||
        nn_trainer_set_batch(t, &b, &e) != GV_OK) {
        t_check(0, name, "setup failed: %s", e.msg);
        goto out;
    }
    double first = NAN, last = NAN;
    int finite = 1;
    for (int i = 0; i < 150; i++) {
        double loss;
        if (nn_trainer_step(t, &loss, &e) != GV_OK) {
            t_check(0, name, "step %d failed: %s", i, e.msg);
            goto out;
        }
        finite &= isfinite(loss);
        if (i == 0)
            first = loss;
        last = loss;
    }
    if (nn_trainer_get_state(t, &s, &e) != GV_OK) {
        t_check(0, name, "get_state failed: %s", e.msg);
        goto out;
    }
    for (size_t i = 0; i < L.nparams; i++)
        finite &= isfinite(s.params[i]);
    t_check(finite && last < first / 3, name, "loss %.4f -> %.4f after 150 steps (must fall 3x), all finite %d, adam step %lld",
            first, last, finite, (long long)s.adam_step);
out:
    nn_trainer_destroy(t);
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
}

static void agree_case(void)
{
    nn_config cfg = {64, 2, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 11);
    nn_batch b;
    nn_batch_alloc(&b, 100);
    nn_batch_random(&b, 12);
    double *l32 = calloc(700, sizeof(double)), *l16 = calloc(700, sizeof(double));
    nn_trainer *t32 = NULL, *t16 = NULL;
    gv_err e;
    if (make(&L, NN_FP32, 100, &t32, &e) || make(&L, NN_BF16, 100, &t16, &e) || nn_trainer_set_state(t32, &s, &e) ||
        nn_trainer_set_state(t16, &s, &e) || nn_trainer_set_batch(t32, &b, &e) || nn_trainer_set_batch(t16, &b, &e) ||
        nn_trainer_forward(t32, 1, l32, NULL, NULL, &e) || nn_trainer_forward(t16, 1, l16, NULL, NULL, &e)) {
        t_check(0, "gpu fp32 vs bf16 logits", "failed: %s", e.msg);
    } else {
        double d = t_rel_l2(l16, l32, 700);
        t_check(d <= 2e-2, "gpu fp32 vs bf16 logits", "rel_l2 %.3g (tolerance 2e-2)", d);
    }
    nn_trainer_destroy(t32);
    nn_trainer_destroy(t16);
    free(l32);
    free(l16);
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
}

static void bench(int C, int batch, nn_dtype dt)
{
    nn_config cfg = {C, 6, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 3);
    nn_batch b;
    nn_batch_alloc(&b, batch);
    nn_batch_random(&b, 4);
    nn_trainer *t = NULL;
    gv_err e;
    if (make(&L, dt, batch, &t, &e) || nn_trainer_set_state(t, &s, &e) || nn_trainer_set_batch(t, &b, &e)) {
        printf("# bench c%d b%d %s: %s\n", C, batch, nn_dtype_name(dt), e.msg);
        goto out;
    }
    for (int i = 0; i < 5; i++)
        nn_trainer_step(t, NULL, &e);
    nn_trainer_sync(t, &e);
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = gv_now();
        for (int i = 0; i < 20; i++)
            nn_trainer_step(t, NULL, &e);
        nn_trainer_sync(t, &e);
        double dt_ = (gv_now() - t0) / 20;
        best = dt_ < best ? dt_ : best;
    }
    double loss;
    nn_trainer_step(t, &loss, &e);
    nn_trainer_profile(t);
    printf("# bench c%d b%d %s: best step %.3f ms, %.0f samples/s, %.2f GiB held, loss %.4f\n", C, batch,
           nn_dtype_name(dt), best * 1e3, batch / best, nn_trainer_peak_bytes(t) / 1073741824.0, loss);
out:
    nn_trainer_destroy(t);
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
}

/* The training-mode forward, run 5 times from one state on one batch, must give the same
 * bits every time: its BatchNorm statistics are summed in a fixed order (a run-to-run
 * difference would flip ReLU inputs near zero between the forward of `gradients` and that
 * of `step`, as float atomics did). */
static void repeat_case(nn_norm norm, nn_dtype dt)
{
    const int n = 512;
    nn_config cfg = {64, 2, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 41);
    nn_batch b;
    nn_batch_alloc(&b, n);
    nn_batch_random(&b, 42);
    double *l0 = calloc((size_t)n * 7, sizeof(double)), *l1 = calloc((size_t)n * 7, sizeof(double));
    double *v0 = calloc((size_t)n, sizeof(double)), *v1 = calloc((size_t)n, sizeof(double));
    char name[96];
    snprintf(name, sizeof name, "gpu forward repeats bit for bit %s %s c64 n%d", nn_dtype_name(dt),
             nn_norm_name(norm), n);
    nn_trainer *t = NULL;
    gv_err e;
    int ok = make(&L, dt, n, &t, &e) == GV_OK && nn_trainer_set_batch(t, &b, &e) == GV_OK &&
             nn_trainer_set_state(t, &s, &e) == GV_OK && nn_trainer_forward(t, 1, l0, v0, NULL, &e) == GV_OK;
    int differ = 0;
    for (int r = 1; ok && r < 5; r++) {
        ok = nn_trainer_set_state(t, &s, &e) == GV_OK && nn_trainer_forward(t, 1, l1, v1, NULL, &e) == GV_OK;
        differ += ok && (memcmp(l0, l1, sizeof(double) * n * 7) || memcmp(v0, v1, sizeof(double) * n));
    }
    if (!ok)
        t_check(0, name, "failed: %s", e.msg);
    else
        t_check(differ == 0, name, "%d of 4 repeats differ from the first in a logit or value bit (must be 0)", differ);
    nn_trainer_destroy(t);
    free(l0), free(l1), free(v0), free(v1);
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
}

/* nn_trainer_infer (a replayed graph) against nn_trainer_forward(t, 0) on the same state and
 * batch: bit-identical outputs expected (the same kernels on the same inputs). */
static void infer_case(nn_norm norm, nn_dtype dt)
{
    nn_config cfg = {32, 2, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 21);
    nn_trainer *t = NULL;
    gv_err e;
    char name[128];
    if (make(&L, dt, 64, &t, &e) != GV_OK || nn_trainer_set_state(t, &s, &e) != GV_OK) {
        t_check(0, "gpu infer", "setup failed: %s", e.msg);
        goto out;
    }
    int sizes[] = {64, 1, 64};
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        nn_batch b;
        nn_batch_alloc(&b, n);
        nn_batch_random(&b, 30 + k);
        double *fl = calloc((size_t)n * 7, sizeof(double)), *fv = calloc((size_t)n, sizeof(double));
        double *il = calloc((size_t)n * 7, sizeof(double)), *iv = calloc((size_t)n, sizeof(double));
        for (int i = 0; i < n * 7; i++)
            il[i] = NAN;
        for (int i = 0; i < n; i++)
            iv[i] = NAN;
        /* k == 2: two training steps first (new weights, new running stats), on the same batch size */
        int ok = nn_trainer_set_batch(t, &b, &e) == GV_OK &&
                 (k < 2 || (nn_trainer_step(t, NULL, &e) == GV_OK && nn_trainer_step(t, NULL, &e) == GV_OK)) &&
                 nn_trainer_infer(t, il, iv, &e) == GV_OK && nn_trainer_forward(t, 0, fl, fv, NULL, &e) == GV_OK;
        snprintf(name, sizeof name, "gpu infer %s %s c32 n%d%s", nn_dtype_name(dt), nn_norm_name(norm), n,
                 k == 2 ? " after 2 steps" : "");
        if (!ok) {
            t_check(0, name, "failed: %s", e.msg);
        } else {
            double dl = t_rel_l2(il, fl, (size_t)n * 7), dv = t_rel_l2(iv, fv, (size_t)n);
            t_check(dl == 0 && dv == 0, name, "captured eval forward vs eager eval forward: logits rel_l2 %.3g, "
                    "value %.3g (must be 0)", dl, dv);
        }
        free(fl), free(fv), free(il), free(iv);
        nn_batch_free(&b);
    }
    t_positions_case(nn_dtype_name(dt), t, &s, 64, 33);
out:
    nn_trainer_destroy(t);
    nn_state_free(&s);
    nn_layout_free(&L);
}

/* A trainer opened for inference alone (its blocks sharing four activation buffers; three
 * blocks, so that the outputs' two buffers both serve as input and residual) against a full
 * one (nn_testlib.h): the same outputs bit for bit at two batch sizes and after training,
 * the training calls refused, less memory. Both run the own convolution kernels
 * (GV_CUDNN=0): cuDNN's algorithm is picked by timing per trainer, and two algorithms need
 * not agree to the bit. */
static void infer_only_case(nn_norm norm, nn_dtype dt)
{
    nn_config cfg = {32, 3, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 41);
    const char *cudnn = getenv("GV_CUDNN");
    char *keep = cudnn ? strdup(cudnn) : NULL;
    setenv("GV_CUDNN", "0", 1);
    char what[96];
    snprintf(what, sizeof what, "gpu %s %s c32 b3", nn_dtype_name(dt), nn_norm_name(norm));
    t_infer_only_case(what, &gpu0, &L, (nn_trainer_opts){.dtype = dt, .max_batch = 64}, &s, 64, 50);
    if (keep)
        setenv("GV_CUDNN", keep, 1);
    else
        unsetenv("GV_CUDNN");
    free(keep);
    nn_state_free(&s);
    nn_layout_free(&L);
}

/* nn_trainer_pin_batch: with the trainer pinned to P, inference of the first n positions of
 * a batch of P gives exactly the full batch's rows, at every size self-play pads to and at
 * odd ones; unpinned, the batch sizes choose their own kernels (the rows that differ then
 * are printed, information only: they may or may not differ on a given GPU). Positions as
 * cells, as self-play gives them. */
static void pin_case(nn_norm norm, nn_dtype dt, int C, int blocks, int P)
{
    nn_config cfg = {C, blocks, norm};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 61);
    nn_trainer *t = NULL;
    gv_err e;
    char name[128];
    snprintf(name, sizeof name, "gpu pinned batch %s %s c%d b%d P%d", nn_dtype_name(dt), nn_norm_name(norm), C,
             blocks, P);
    nn_batch b;
    nn_batch_alloc_as(&b, P, NN_POS_CELLS);
    nn_batch_random(&b, 62);
    double *rl = calloc((size_t)P * 7, sizeof(double)), *rv = calloc((size_t)P, sizeof(double));
    double *l = calloc((size_t)P * 7, sizeof(double)), *v = calloc((size_t)P, sizeof(double));
    if (make(&L, dt, P, &t, &e) != GV_OK || nn_trainer_set_state(t, &s, &e) != GV_OK ||
        nn_trainer_pin_batch(t, P, &e) != GV_OK || nn_trainer_set_batch(t, &b, &e) != GV_OK ||
        nn_trainer_infer(t, rl, rv, &e) != GV_OK) {
        t_check(0, name, "setup failed: %s", e.msg);
        goto out;
    }
    const int sizes[] = {1, 5, 8, 16, 24, 32, 48, 64, 96, 100, 128, 160, 192, 224, P};
    for (int pinned = 1; pinned >= 0; pinned--) {
        if (nn_trainer_pin_batch(t, pinned ? P : 0, &e) != GV_OK) {
            t_check(0, name, "pin_batch(%d) failed: %s", pinned ? P : 0, e.msg);
            goto out;
        }
        int bad_sizes = 0, checked = 0;
        long bad_rows = 0;
        char list[256] = "";
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            int n = sizes[k];
            if (n > P)
                continue;
            nn_batch view = b; /* the first n positions */
            view.n = n;
            for (int i = 0; i < n * 7; i++)
                l[i] = NAN;
            if (nn_trainer_set_batch(t, &view, &e) != GV_OK || nn_trainer_infer(t, l, v, &e) != GV_OK) {
                t_check(0, name, "batch %d: %s", n, e.msg);
                goto out;
            }
            long rows = 0;
            for (int i = 0; i < n; i++)
                rows += memcmp(l + (size_t)i * 7, rl + (size_t)i * 7, sizeof(double) * 7) || memcmp(&v[i], &rv[i], sizeof(double));
            checked++;
            if (rows) {
                bad_sizes++, bad_rows += rows;
                size_t u = strlen(list);
                snprintf(list + u, sizeof list - u, "%s%d (%ld rows)", u ? ", " : "", n, rows);
            }
        }
        if (pinned)
            t_check(bad_sizes == 0, name, "pinned to %d: %d batch sizes (1..%d) against the full batch's rows: %d "
                    "differ%s%s (must be 0)", P, checked, P, bad_sizes, bad_sizes ? ": " : "", list);
        else
            printf("# %s unpinned: %d of %d batch sizes differ from the full batch in some row%s%s (information)\n",
                   name, bad_sizes, checked, bad_sizes ? ": " : "", list);
    }
    t_check(nn_trainer_pin_batch(t, P + 1, &e) == GV_ERR_INPUT, name, "pin_batch(%d) on a trainer of %d refused: %s",
            P + 1, P, e.msg);
out:
    free(rl), free(rv), free(l), free(v);
    nn_batch_free(&b);
    nn_trainer_destroy(t);
    nn_state_free(&s);
    nn_layout_free(&L);
}

int main(void)
{
    gv_err e;
    if (dev_gpu_count(&e) <= 0) {
        t_skip_gpu("gpu trainer", "no GPU: %s", e.msg);
        return 0;
    }
    train_case(NN_NORM_GROUP, NN_FP32);
    train_case(NN_NORM_GROUP, NN_BF16);
    train_case(NN_NORM_BATCH, NN_FP32);
    train_case(NN_NORM_BATCH, NN_BF16);
    agree_case();
    repeat_case(NN_NORM_BATCH, NN_FP32);
    repeat_case(NN_NORM_BATCH, NN_BF16);
    repeat_case(NN_NORM_GROUP, NN_FP32);
    infer_case(NN_NORM_GROUP, NN_FP32);
    infer_case(NN_NORM_BATCH, NN_BF16);
    infer_only_case(NN_NORM_GROUP, NN_BF16);
    infer_only_case(NN_NORM_BATCH, NN_FP32);
    pin_case(NN_NORM_BATCH, NN_BF16, 128, 6, 256); /* self-play's network on the GPU (issue 43's runs) */
    pin_case(NN_NORM_GROUP, NN_BF16, 64, 2, 512);
    pin_case(NN_NORM_BATCH, NN_FP32, 128, 2, 256);
    if (getenv("GV_TRAIN_BENCH")) {
        bench(128, 8192, NN_BF16);
        bench(128, 256, NN_BF16);
        bench(128, 8192, NN_FP32);
        bench(64, 1024, NN_BF16);
    }
    return t_done();
}
