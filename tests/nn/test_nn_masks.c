/* test_nn_masks.c: the float64 reference following given ReLU masks (used to check bf16
 * gradients on the same linear piece as the device's run). Following its own masks must
 * reproduce its gradients exactly; flipping masks must change them; a mask of the wrong
 * size is refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dev/dev.h"
#include "nn/nn.h"

int main(void)
{
    nn_config cfg = {16, 2, NN_NORM_GROUP};
    nn_layout L;
    nn_layout_init(&L, &cfg);
    nn_state s;
    nn_state_alloc(&s, &L);
    nn_state_init_random(&s, 5);
    nn_batch b;
    nn_batch_alloc(&b, 6);
    nn_batch_random(&b, 6);
    nn_trainer_opts o = {0};
    o.dtype = NN_FP64;
    o.max_batch = 6;
    o.threads = 1;
    nn_trainer *t = NULL;
    gv_err e;
    size_t len = nn_relu_masks_len(&L, 6), np = L.nparams;
    uint8_t *mk = malloc(len);
    double *g0 = calloc(np, sizeof(double)), *g1 = calloc(np, sizeof(double)), *g2 = calloc(np, sizeof(double));
    if (nn_trainer_create(&DEV_ID_CPU, &L, &o, &t, &e) || nn_trainer_set_state(t, &s, &e) ||
        nn_trainer_set_batch(t, &b, &e) || nn_trainer_gradients(t, g0, NULL, &e) || nn_trainer_relu_masks(t, mk, &e)) {
        t_check(0, "masks: setup", "%s", e.msg);
        return t_done();
    }
    size_t ones = 0;
    for (size_t i = 0; i < len; i++)
        ones += mk[i];
    t_check(ones > len / 4 && ones < 3 * len / 4, "masks: own masks are mixed", "%zu of %zu ReLU outputs positive",
            ones, len);
    nn_trainer_set_state(t, &s, &e);
    gv_status st = nn_ref_follow_masks(t, mk, 6, &e);
    st = st ? st : nn_trainer_gradients(t, g1, NULL, &e);
    t_check(st == GV_OK && !memcmp(g0, g1, np * sizeof(double)), "masks: following its own masks",
            "gradients identical: %d", st == GV_OK && !memcmp(g0, g1, np * sizeof(double)));
    /* flip every 50th mask byte: the network is now another linear piece */
    for (size_t i = 0; i < len; i += 50)
        mk[i] ^= 1;
    nn_trainer_set_state(t, &s, &e);
    st = nn_ref_follow_masks(t, mk, 6, &e);
    st = st ? st : nn_trainer_gradients(t, g2, NULL, &e);
    double d = t_rel_l2(g2, g0, np);
    t_check(st == GV_OK && d > 1e-3, "masks: flipped masks change the gradient", "rel_l2 %.3g (must exceed 1e-3)", d);
    nn_ref_follow_masks(t, NULL, 0, &e);
    nn_trainer_set_state(t, &s, &e);
    nn_trainer_gradients(t, g1, NULL, &e);
    t_check(!memcmp(g0, g1, np * sizeof(double)), "masks: cleared", "ordinary ReLUs again give the same gradients");
    nn_trainer *c32 = NULL;
    o.dtype = NN_FP32;
    if (nn_trainer_create(&DEV_ID_CPU, &L, &o, &c32, &e) == GV_OK) {
        st = nn_ref_follow_masks(c32, mk, 6, &e);
        t_check(st == GV_ERR_INTERNAL, "masks: only the float64 reference follows masks (a programmer error)", "%s", e.msg);
        nn_trainer_destroy(c32);
    }
    nn_trainer_destroy(t);
    free(mk), free(g0), free(g1), free(g2);
    nn_batch_free(&b);
    nn_state_free(&s);
    nn_layout_free(&L);
    return t_done();
}
