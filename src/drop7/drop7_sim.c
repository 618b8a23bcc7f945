/* drop7_sim.c: drop7_sim_batch, the one entry point of batched simulation: checks the
 * arguments and plays the games on the chosen device (the plain reference, the fast game
 * on CPU threads, or the GPU through drop7_gpu.h). No timing here: the caller times it. */
#include "drop7/drop7.h"
#include "drop7/drop7_game.h"
#include "drop7/drop7_gpu.h"

gv_status drop7_sim_batch(const drop7_rules *r, int player, const uint64_t *seeds, int ngames,
                          const drop7_sim_opts *opts, drop7_record *out, uint8_t *moves, gv_err *err)
{
    gv_status s = drop7_rules_check(r, err);
    if (s != GV_OK)
        return s;
    if (player != DROP7_PLAYER_RANDOM && player != DROP7_PLAYER_GREEDY)
        return gv_fail(err, GV_ERR_INPUT, "drop7: unknown player %d (0 random, 1 greedy)", player);
    if (ngames < 0 || (ngames > 0 && (!seeds || !out)))
        return gv_fail(err, GV_ERR_INPUT, "drop7: %d games need seeds and records", ngames);
    int max_moves = opts->max_moves > 0 ? opts->max_moves : DROP7_DEFAULT_MAX_MOVES;
    switch (opts->device) {
    case DROP7_DEVICE_REF:
        for (int i = 0; i < ngames; i++)
            drop7_ref_play(r, player, seeds[i], max_moves, &out[i], moves ? moves + (size_t)i * max_moves : NULL);
        return GV_OK;
    case DROP7_DEVICE_CPU:
        drop7_game_play_batch(r, player, seeds, ngames, max_moves, opts->threads, out, moves);
        return GV_OK;
    case DROP7_DEVICE_GPU: {
        drop7_gpu *g;
        if ((s = drop7_gpu_open(opts->gpu, &g, err)) != GV_OK)
            return s;
        s = drop7_gpu_play(g, r, player, seeds, ngames, max_moves, out, moves, err);
        drop7_gpu_close(g);
        return s;
    }
    }
    return gv_fail(err, GV_ERR_INPUT, "drop7: unknown device %d", (int)opts->device);
}
