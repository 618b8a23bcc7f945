/* test_nn_lr.c: the learning rate of the trainers (nn_trainer_opts.lr, changed between
 * steps as a schedule does): one step of the float64 reference and of the float32 CPU
 * trainer at a given rate against AdamW recomputed in float64 at that rate from the moments
 * the step produced; lr 0 is NN_LR; a second step at another rate follows it too. */
#include "nn_testlib.h"
#include <math.h>

#include "nn/ops.h"

/* One step of trainer t (state s0 set) at rate lr; its state after it into out. */
static int step_at(nn_trainer *t, double lr, nn_state *out, gv_err *err)
{
    nn_trainer_set_lr(t, lr);
    double loss;
    return nn_trainer_step(t, &loss, err) == GV_OK && nn_trainer_get_state(t, out, err) == GV_OK;
}

/* The parameters AdamW at rate lr gives from s with the moments the step produced (got's):
 * p (1 - lr wd) - lr / (1 - b1^t) m / (sqrt(v) / sqrt(1 - b2^t) + eps), in float64. */
static void expect(const nn_layout *L, const nn_state *s, const nn_state *got, double lr, double *want)
{
    double t = (double)got->adam_step, bc1 = 1 - pow(NN_BETA1, t), bc2 = 1 - pow(NN_BETA2, t);
    for (size_t i = 0; i < L->nparams; i++)
        want[i] = s->params[i] * (1 - lr * NN_WEIGHT_DECAY) -
                  lr / bc1 * got->adam_m[i] / (sqrt(got->adam_v[i]) / sqrt(bc2) + NN_ADAM_EPS);
}

int main(void)
{
    nn_config cfg = {16, 1, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_batch b;
    nn_batch_alloc(&b, 6);
    nn_batch_random(&b, 7);
    const struct { nn_dtype dt; const char *name; double tol; } kinds[] = {{NN_FP64, "fp64", 1e-12}, {NN_FP32, "fp32", 1e-4}};
    /* fp32: the new parameter is rounded to float32 (half an ulp of ~0.1 is ~3e-9), which
     * is ~1e-5 of a 2e-4-rate update: the tolerance is 1e-4 */
    const double rates[] = {0, 3e-3, 2e-4};
    for (size_t k = 0; k < GV_ARRAY_LEN(kinds); k++) {
        gv_err err = {{0}};
        nn_trainer_opts o = {.dtype = kinds[k].dt, .max_batch = b.n, .threads = 1};
        nn_trainer *t;
        nn_state s, got;
        nn_state_alloc(&s, &L), nn_state_alloc(&got, &L);
        double *want = calloc(L.nparams, sizeof(double));
        nn_state_init_random(&s, 11);
        if (nn_trainer_create(&DEV_ID_CPU, &L, &o, &t, &err) != GV_OK || nn_trainer_set_state(t, &s, &err) != GV_OK ||
            nn_trainer_set_batch(t, &b, &err) != GV_OK) {
            t_check(0, kinds[k].name, "create: %s", err.msg);
            continue;
        }
        for (size_t i = 0; i < GV_ARRAY_LEN(rates); i++) {
            double lr = rates[i] > 0 ? rates[i] : NN_LR;
            int ok = step_at(t, rates[i], &got, &err);
            expect(&L, &s, &got, lr, want);
            /* the update itself (params after minus before), relative to the wanted update */
            double *dg = calloc(L.nparams, sizeof(double)), *dw = calloc(L.nparams, sizeof(double));
            for (size_t j = 0; j < L.nparams; j++)
                dg[j] = got.params[j] - s.params[j], dw[j] = want[j] - s.params[j];
            double e = t_rel_l2(dg, dw, L.nparams);
            t_check(ok && e <= kinds[k].tol, "nn lr", "%s trainer, step %zu at lr %g%s: update rel_l2 %.2e against float64 "
                    "AdamW at that rate on the step's moments (tolerance %g)", kinds[k].name, i + 1, lr, rates[i] > 0 ? "" : " (opts.lr 0 = NN_LR)",
                    e, kinds[k].tol);
            free(dg), free(dw);
            nn_state_copy(&s, &got); /* the next step starts where this one ended */
            s.adam_step = got.adam_step;
        }
        nn_trainer_destroy(t);
        nn_state_free(&s), nn_state_free(&got);
        free(want);
    }
    nn_batch_free(&b);
    nn_layout_free(&L);
    return t_done();
}
