/* test_nn_ref.c: the float64 reference trainer against PyTorch's float64 reference files
 * (GroupNorm and BatchNorm): forward, loss, every gradient, the state after 1 and 10 AdamW
 * steps (parameters, running stats, num_batches_tracked), the losses of the 10 steps and the
 * eval-mode forward, each to relative L2 error <= 1e-10. */
#include "nn_testlib.h"

#define TOL 1e-10

static void check_state(const char *what, const nn_state *got, const nn_state *want)
{
    const nn_layout *L = want->L;
    char nm[400];
    snprintf(nm, sizeof nm, "%.300s params", what);
    double e = t_rel_l2(got->params, want->params, L->nparams);
    t_check(e <= TOL, nm, "rel_l2 %.3g over %zu parameters (tolerance %g)", e, L->nparams, TOL);
    if (L->cfg.norm != NN_NORM_BATCH)
        return;
    snprintf(nm, sizeof nm, "%.300s running stats", what);
    e = t_rel_l2(got->buffers, want->buffers, L->nbuffers);
    t_check(e <= TOL, nm, "rel_l2 %.3g over %zu running_mean/var values (tolerance %g)", e, L->nbuffers, TOL);
    int same = 1;
    for (int i = 0; i < L->nbn; i++)
        same &= got->num_batches[i] == want->num_batches[i];
    snprintf(nm, sizeof nm, "%.300s num_batches_tracked", what);
    t_check(same, nm, "%lld in layer 0 (PyTorch %lld), all %d layers equal: %s", (long long)got->num_batches[0],
            (long long)want->num_batches[0], L->nbn, same ? "yes" : "no");
}

static void run_file(const char *name)
{
    char path[1024];
    if (!t_ref_file(name, path, sizeof path))
        return;
    nn_refdata r;
    gv_err err = {{0}};
    gv_status ls = nn_refdata_load(&r, path, &err);
    if (!t_check(ls == GV_OK, name, "read %s: %s", path, ls == GV_OK ? "every tensor present, shapes as expected" : err.msg))
        return;
    int n = r.batch.n;
    nn_trainer_opts o = {.dtype = NN_FP64, .max_batch = n};
    nn_trainer *t;
    if (nn_trainer_create(&DEV_ID_CPU, &r.L, &o, &t, &err) != GV_OK) {
        t_check(0, name, "creating the fp64 trainer: %s", err.msg);
        nn_refdata_free(&r);
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "%s fp64", name);
    double *logits = malloc(sizeof(double) * n * NN_POLICY), *value = malloc(sizeof(double) * n);
    double *grads = malloc(sizeof(double) * r.L.nparams), loss = NAN;
    nn_state st;
    nn_state_alloc(&st, &r.L);
    nn_trainer_set_batch(t, &r.batch, &err);

    nn_trainer_set_state(t, &r.init, &err);
    t_poison(logits, (size_t)n * NN_POLICY), t_poison(value, n);
    nn_trainer_forward(t, 1, logits, value, &loss, &err);
    double e = t_rel_l2(logits, r.logits, (size_t)n * NN_POLICY);
    char nm[320];
    snprintf(nm, sizeof nm, "%s forward logits", what);
    t_check(e <= TOL, nm, "rel_l2 %.3g (tolerance %g)", e, TOL);
    e = t_rel_l2(value, r.value, n);
    snprintf(nm, sizeof nm, "%s forward value", what);
    t_check(e <= TOL, nm, "rel_l2 %.3g (tolerance %g)", e, TOL);
    e = t_rel_l2(&loss, &r.loss, 1);
    snprintf(nm, sizeof nm, "%s loss", what);
    t_check(e <= TOL, nm, "%.15g vs PyTorch %.15g, rel %.3g (tolerance %g)", loss, r.loss, e, TOL);

    nn_trainer_set_state(t, &r.init, &err);
    t_poison(grads, r.L.nparams);
    nn_trainer_gradients(t, grads, NULL, &err);
    t_check_grads(what, &r.L, grads, r.grads, TOL, 1);

    nn_trainer_set_state(t, &r.init, &err);
    double losses[10];
    t_poison(losses, 10);
    for (int k = 0; k < 10; k++) {
        nn_trainer_step(t, &losses[k], &err);
        if (k == 0 || k == 9) {
            nn_trainer_get_state(t, &st, &err);
            snprintf(nm, sizeof nm, "%s after %d AdamW step%s", what, k + 1, k ? "s" : "");
            check_state(nm, &st, k ? &r.step10 : &r.step1);
        }
    }
    e = t_rel_l2(losses, r.loss_steps, 10);
    snprintf(nm, sizeof nm, "%s loss.steps", what);
    t_check(e <= TOL, nm, "10 losses %.4f .. %.4f, rel_l2 %.3g (tolerance %g)", losses[0], losses[9], e, TOL);

    t_poison(logits, (size_t)n * NN_POLICY), t_poison(value, n);
    nn_trainer_forward(t, 0, logits, value, NULL, &err);
    e = t_rel_l2(logits, r.eval_logits, (size_t)n * NN_POLICY);
    snprintf(nm, sizeof nm, "%s eval logits", what);
    t_check(e <= TOL, nm, "rel_l2 %.3g (tolerance %g)", e, TOL);
    e = t_rel_l2(value, r.eval_value, n);
    snprintf(nm, sizeof nm, "%s eval value", what);
    t_check(e <= TOL, nm, "rel_l2 %.3g (tolerance %g)", e, TOL);

    nn_state_free(&st);
    free(logits), free(value), free(grads);
    nn_trainer_destroy(t);
    nn_refdata_free(&r);
}

int main(void)
{
    run_file("drop7_c32_group_n8.safetensors");
    run_file("drop7_c32_batch_n8.safetensors");
    return t_done();
}
