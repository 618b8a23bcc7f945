/* drop7_train.h: the network as the Drop7 commands use it: opened from a checkpoint (or
 * drawn fresh from a seed) on a device, and trained on self-play datasets (`gpuvet train
 * --data`): a shuffled split into training and validation samples, AdamW with a linear
 * warm-up and a cosine decay of the learning rate, one checkpoint per epoch written
 * atomically, and per epoch the training loss and the validation losses in the record.
 *
 * The trainers' loss takes one column per sample (cross-entropy with a class index), and a
 * dataset holds the search's visit distribution: each time a sample is used, its column is
 * drawn from that distribution, an unbiased estimate of the cross-entropy with the whole
 * distribution (whose gradient is the expectation of the sampled ones). The validation
 * loss is the exact cross-entropy with the distribution, computed from the logits. */
#ifndef GV_DROP7_DROP7_TRAIN_H
#define GV_DROP7_DROP7_TRAIN_H

#include <cJSON.h>

#include "dev/dev.h"
#include "drop7/drop7_data.h"
#include "nn/nn.h"

typedef struct {
    nn_layout L;
    nn_state s;
    nn_trainer *t;
    double value_scale;    /* points per unit of the value head: the checkpoint's __metadata__
                              value_scale, DROP7_VALUE_SCALE when it has none */
} drop7_net;

/* The network a --net names: "default" is the shipped network DROP7_DEFAULT_NET, looked for
 * in $GV_MODELS, then in models/ of the source tree the binary was built in (two folders
 * above build/<gpu>/gpuvet), then in share/gpuvet/models/ beside an installed binary's
 * bin/; any other name is a path, copied as it is. A missing default is GV_ERR_ENV (exit 3)
 * with one line naming where it was looked for and what to do. */
#define DROP7_DEFAULT_NET "drop7-default.st"
gv_status drop7_net_path(const char *name, char *path, size_t n, gv_err *err);

/* Opens the network on device d for batches up to max_batch: from checkpoint ckpt (its
 * shape from the file; a wrong or corrupt file is GV_ERR_INPUT naming it; its value scale
 * from __metadata__ value_scale, a number of points from 1 to 10^9), or, when ckpt is
 * NULL, fresh from fresh and seed (PyTorch's initialisation). */
gv_status drop7_net_open(const dev_id *d, const char *ckpt, const nn_config *fresh, uint64_t seed,
                         nn_trainer_opts o, drop7_net *n, gv_err *err);
void drop7_net_close(drop7_net *n);

/* The player a checkpoint was made for, from its __metadata__ (all four or none):
 * player_search ("puct", "expectimax0" or "expectimax1"), player_samples (reveal samples,
 * 1..DROP7_EXPECTI_MAX_SAMPLES), player_value_weight and player_heuristic_weight (the leaf
 * V x value - H x heuristic, 0..1000). `play` and `selfplay` take them for the flags not given,
 * so that --net default plays as its model card says. */
typedef struct {
    int set;                 /* 0: the checkpoint names no player */
    char search[16];
    int samples;
    double value_weight, heuristic_weight;
} drop7_net_search;
/* Reads ckpt's player into p; a partial or malformed one is GV_ERR_INPUT naming the file and key. */
gv_status drop7_net_player(const char *ckpt, drop7_net_search *p, gv_err *err);
/* A name of n's network that does not depend on where it came from: 16 hexadecimal digits
 * (and a NUL) of a hash of its shape, parameters and buffers. */
void drop7_net_id(const drop7_net *n, char id[17]);

typedef struct {
    int epochs;            /* passes over the training samples */
    int batch;             /* samples per step (the last partial batch of an epoch is dropped) */
    double lr;             /* peak learning rate (NN_LR when 0) */
    double warmup;         /* share of the steps with a linear warm-up (0.05) */
    double lr_final;       /* the cosine ends at lr * lr_final (0.1) */
    double val_frac;       /* share of the samples held out for validation (0.1) */
    uint64_t seed;         /* the split, the shuffles and the sampled columns */
    double value_scale;    /* the value head learns (points still to come) / this, and the
                              checkpoint says so (__metadata__ value_scale); 0: DROP7_VALUE_SCALE,
                              the dataset's own scale */
    const char *save;      /* checkpoint written after every epoch (NULL: none) */
    int progress;
} drop7_train_opts;

/* Trains n on d; the record gets "train_drop7" {samples, train_samples, val_samples, steps,
 * epochs: [{epoch, lr, train_loss, val_policy_ce, val_value_mse, val_loss, seconds}]}. */
gv_status drop7_train_run(drop7_net *n, const drop7_data *d, const drop7_train_opts *o, cJSON *rec, gv_err *err);

#endif
