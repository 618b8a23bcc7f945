/* drop7_selfplay.h: the engine of `gpuvet selfplay`: games of the network's search written
 * as a dataset (drop7_data.h), chunk by chunk, resumable. Safe to run against a file that
 * matters: the output is locked while the run writes it (a second run on it is refused), an
 * existing dataset is replaced only when asked (force) or continued (resume) only when its
 * player is this one (seed, mode, network, simulations, temperature moves, noise), and a
 * dataset that exists but cannot be read is an error, never taken for absent. */
#ifndef GV_DROP7_DROP7_SELFPLAY_H
#define GV_DROP7_DROP7_SELFPLAY_H

#include <cJSON.h>

#include "drop7/drop7_agent.h"
#include "drop7/drop7_train.h"

typedef struct {
    drop7_agent_opts play; /* the player: rules, net, sims, noise, temperature, parallel, seed
                              (game i plays play.seed + i); ngames and record are set here */
    const drop7_net *net;  /* the network behind play.net (its parameters name it: drop7_net_id),
                              NULL for a player without one (play.policy expectimax) */
    const char *net_name;  /* the checkpoint it came from, or NULL for a fresh random one; the
                              player's name ("expectimax1") without a network */
    const char *mode;      /* "normal" or "hardcore", as play.rules */
    const char *device;    /* the device's label, for the record */
    long games;            /* games the dataset holds at the end */
    long chunk;            /* games between writes (>= 1) */
    const char *out;       /* the dataset */
    int resume;            /* continue out when it exists */
    int force;             /* replace out when it exists */
} drop7_selfplay_opts;

/* Plays and writes; the record gets "selfplay" {out, device, games_played, games_in_file,
 * positions_in_file, sims, moves, evals, score_mean, score_ci95, score_median, seconds_total,
 * seconds_search, seconds_inference, seconds_game, seconds_write}. Informational lines go
 * through gv_info (resuming, each chunk written). GV_ERR_INPUT: an existing dataset without
 * resume or force, or one that cannot be read, or whose player differs (the message names
 * the setting); GV_ERR_ENV: out locked by another run, or a write failed (the file keeps
 * its last complete chunk). */
gv_status drop7_selfplay_run(const drop7_selfplay_opts *o, cJSON *rec, gv_err *err);

#endif
