/* fuzz_safetensors.c: libFuzzer target for the safetensors reader and the checkpoint layer
 * on top of it (make fuzz-safetensors FUZZ_SECONDS=600). Any input must give GV_OK or a
 * clean GV_ERR_INPUT: no crash, no leak, no read outside the buffer, no undefined
 * behaviour. Nothing is capped here: the checkpoint layer checks every tensor's shape
 * against the file before it allocates the network, so an input's network is bounded by
 * its own size, as a user's file is. */
#include <stdint.h>
#include <stdlib.h>

#include "nn/ckpt.h"
#include "nn/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    nn_st_file f;
    gv_err err;
    if (nn_st_parse(&f, "fuzz.safetensors", data, size, &err) != GV_OK)
        return 0;
    /* every tensor read back as float64 and as int64 with its own shape */
    for (int i = 0; i < f.n; i++) {
        const nn_st_tensor *t = &f.t[i];
        double *x = malloc(sizeof(double) * (t->numel ? t->numel : 1));
        int64_t *y = malloc(sizeof(int64_t) * (t->numel ? t->numel : 1));
        if (x && y) {
            nn_st_read_f64(&f, t->name, t->ndim, t->shape, x, &err);
            nn_st_read_i64(&f, t->name, t->ndim, t->shape, y, &err);
        }
        free(x);
        free(y);
    }
    nn_st_meta(&f, "channels");
    /* and as a checkpoint (what soak --init does) and a reference file (check --reference) */
    nn_config cfg;
    if (nn_ckpt_verify(&f, &cfg, &err) == GV_OK) {
        nn_layout L;
        nn_layout_init(&L, &cfg);
        nn_state s;
        nn_state_alloc(&s, &L);
        nn_ckpt_read_state(&f, "", &s, &err);
        nn_state_free(&s);
        nn_layout_free(&L);
    }
    nn_refdata r;
    if (nn_refdata_read(&r, &f, &err) == GV_OK)
        nn_refdata_free(&r);
    nn_batch b;
    if (nn_ckpt_read_batch(&f, &b, &err) == GV_OK)
        nn_batch_free(&b);
    nn_st_free(&f);
    return 0;
}
