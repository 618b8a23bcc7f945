/* nn_check.h: the engine of `gpuvet check`. Checks each device's results against the
 * float64 host path: a square float32 GEMM (its float64 reference verified by long
 * double samples), then the Drop7 network's training-mode forward, loss, every gradient,
 * one AdamW step and the eval-mode forward, for each norm; or, with a reference file, the
 * same against a PyTorch dump (bench/torch/make_reference.py). Gradients are compared on
 * the device's own ReLU masks (docs/NN.md). Adds to the record "seed", "check" (one entry
 * per comparison: device, dtype, norm, what, metric, value, tolerance, pass) and
 * "check_summary". */
#ifndef GV_NN_NN_CHECK_H
#define GV_NN_NN_CHECK_H

#include <cJSON.h>
#include <stdio.h>

#include "dev/dev.h"
#include "nn/nn.h"

typedef struct {
    NN_SWEEP_MEMBERS;
    int channels, blocks, batch;
    int gemm_size;          /* 0: no GEMM check */
    int threads, tf32;
    int fault;              /* test hook: a kernel skips part of its output */
    uint64_t seed;
    const char *reference;  /* a PyTorch reference file, or NULL */
    FILE *out;              /* each comparison as it is made (PASS/FAIL lines), or NULL */
    int quiet;              /* out gets only failures and warnings */
} nn_check_opts;

typedef struct {
    int n, nfail;           /* comparisons made, failed */
} nn_check_result;

/* Runs the check. Errors (bad reference file, no device, out of memory) stop it; wrong
 * results are counted in r->nfail, not errors. GV_ERR_INPUT when nothing was compared. */
gv_status nn_check_run(const nn_check_opts *o, cJSON *rec, nn_check_result *r, gv_err *err);

/* scale[b->n] = sum_i |w_i r_i| + |b| of the value head's last layer per sample (value =
 * sum_i w_i r_i + b over its hidden units r_i >= 0): the float64 forward (train or eval
 * mode) from s on b with that layer's weight and bias replaced by their magnitudes. The
 * scale a float value is accurate to (nn_rel_l2_scale; docs/NN.md, `check`). */
gv_status nn_value_scale(const nn_layout *L, const nn_state *s, const nn_batch *b, int train, int threads,
                         double *scale, gv_err *err);

#endif
