/* drop7_game.c: the host side of the fast game (drop7_game.h, whose inline functions are
 * the game itself, shared with the device): whole games in batches on OpenMP threads,
 * one game per iteration. Games are independent and each writes only its own record and
 * moves, so the records do not depend on the thread count or the schedule. */
#include "drop7/drop7_game.h"

#include <omp.h>

void drop7_game_play_batch(const drop7_rules *R, int player, const uint64_t *seeds, int ngames, int max_moves,
                           int threads, drop7_record *out, uint8_t *moves)
{
    int nthr = threads > 0 ? threads : omp_get_max_threads();
    /* dynamic: game lengths vary by an order of magnitude */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthr) if (ngames > 1)
    for (int i = 0; i < ngames; i++)
        drop7_game_play(R, player, seeds[i], max_moves, &out[i], moves ? moves + (size_t)i * max_moves : NULL);
}
