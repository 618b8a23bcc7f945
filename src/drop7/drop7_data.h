/* drop7_data.h: self-play datasets, the files `gpuvet selfplay` writes and `gpuvet train
 * --data` reads. A dataset is a safetensors file (nn/safetensors.h) with three tensors and
 * a __metadata__ (docs/DROP7.md, "Self-play datasets"):
 *   planes  F32 (N, 12, 7, 7)  the network's input (drop7_encode_pos): planes 0..9 one-hot
 *                              per cell, 10 next disc / 7, 11 drops until the rise / 30
 *   policy  F32 (N, 7)         the search's visit distribution over the columns (sums to 1,
 *                              0 on full columns)
 *   value   F32 (N,)           (final score - score at the position) / value_scale, or with
 *                              value_discount g < 1 the discounted points still to come,
 *                              sum over the moves j >= t of g^(j-t) x (points of move j)
 *   metadata: format "gpuvet.drop7.selfplay", version "1", value_scale "10000", games
 *   (games played), seed, mode, and the player that made the positions: sims, temp_moves,
 *   dirichlet, noise, net (the checkpoint that played, or "random"), net_id (a hash of its
 *   parameters), value_discount (0 to 1; absent: 1, no discount).
 * The loader checks everything before a sample is used: names, dtypes, shapes (12 planes),
 * one-hot cells, constant planes 10 and 11 in [0, 1], distributions, finite values, and
 * every metadata field it knows (games a whole number from 1 to the sample count, seed,
 * mode, the player's settings in their ranges); every error is one GV_ERR_INPUT line naming
 * the file and the tensor, sample or field. */
#ifndef GV_DROP7_DROP7_DATA_H
#define GV_DROP7_DROP7_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "core/gv.h"
#include "nn/safetensors.h"

#define DROP7_DATA_FORMAT "gpuvet.drop7.selfplay"
#define DROP7_DATA_VERSION "1"
/* The value target of a position: (final score - score at the position) / this. */
#define DROP7_VALUE_SCALE 10000.0
#define DROP7_DATA_MAX_VALUE 1e5 /* |value| beyond this (10^9 points) is refused */

typedef struct {
    long n;
    float *planes;         /* (n, 12, 7, 7) */
    float *policy;         /* (n, 7) */
    float *value;          /* (n,) */
    long games;            /* from the metadata (0 when absent) */
    uint64_t seed;
    char mode[16];
    /* The player that made the positions (selfplay's settings): -1, NAN or "" when absent. */
    long sims, temp_moves;
    double dirichlet, noise;
    double discount;       /* value_discount: the values are discounted (below); NAN: absent, not discounted */
    char net[256];         /* the checkpoint that played, or "random" */
    char net_id[17];       /* drop7_net_id of that network */
} drop7_data;

/* Checks a parsed file and copies its samples into d (allocated; drop7_data_free). */
gv_status drop7_data_read(const nn_st_file *f, drop7_data *d, gv_err *err);
/* nn_st_load + drop7_data_read. */
gv_status drop7_data_load(const char *path, drop7_data *d, gv_err *err);
/* The same, except that a file that does not exist is not an error (*found 0, d empty);
 * one that exists but cannot be read is (a dataset is never taken for absent because it
 * could not be opened). */
gv_status drop7_data_load_if_exists(const char *path, drop7_data *d, int *found, gv_err *err);
/* The samples of files paths[0..n) joined into d (games add up; the player fields are
 * those of the first file). */
gv_status drop7_data_load_many(const char *const *paths, int n, drop7_data *d, gv_err *err);
/* Appends src's samples to dst (games add up). */
void drop7_data_append(drop7_data *dst, const drop7_data *src);
/* Writes d atomically with its metadata (fields that are absent are left out). */
gv_status drop7_data_save(const char *path, const drop7_data *d, gv_err *err);
void drop7_data_free(drop7_data *d);

#endif
