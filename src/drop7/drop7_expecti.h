/* drop7_expecti.h: the expectimax baselines of Drop7 (`play --policy expectimax1|expectimax2`,
 * docs/DROP7.md "The expectimax players"): search over the player's columns and the coming
 * discs, the best expected points.
 *
 * What is searched. The disc to drop now is known (the game shows it). Depth d enumerates d
 * coming discs, so the tree has d + 1 of the player's moves:
 *   Q_d(s, x) = gain(s, x) + [game over after x: -over_penalty
 *                             | d = 0: -h(s')
 *                             | else: sum over c of next_weight[c] / W * max_y Q_{d-1}(s'_c, y)]
 * where s' is s after column x (the drop, its chain, a rise and its chain), s'_c is s' with
 * the next disc set to code c, W = sum of next_weight[1..9], and the max runs over the
 * legal columns of s'_c. The next disc's distribution is known from the rules: every code
 * with a nonzero weight is enumerated and averaged exactly with its weight.
 *
 * What is sampled. The numbers that cracked discs reveal are random (reveal_weight) and
 * can set off more explosions; a move may reveal several, and each can cascade, so exact
 * averaging would multiply the tree by 7 per revealed disc. They are sampled instead: for
 * each of K samples (`samples`), every simulated move at ply p (0 = the move played now)
 * runs on a copy of the game whose generator is seeded with s_k + p, where s_0, s_1, ...
 * are the successive outputs of gv_splitmix64 on a state that starts at the move's seed. The same s_k + p for all columns and all chance codes of a
 * ply is a common random number: columns are compared on the same reveals. Q is the sum
 * over the K samples. The rising row is all solid discs, not random.
 *
 * The leaf heuristic h(s) = cell_penalty x (discs on the board) + covered_penalty x (covered
 * discs); a game that ends on the path scores its points minus over_penalty. The defaults
 * (drop7_expecti_defaults) were tuned on seeds 2,000,000+ (docs/DROP7.md gives the figures).
 *
 * Arithmetic: integers only, Q scaled by W^d and summed over the samples (no division), so
 * ties are exact; ties go to the lowest column. Same game, same move seed: same column. */
#ifndef GV_DROP7_DROP7_EXPECTI_H
#define GV_DROP7_DROP7_EXPECTI_H

#include <stdint.h>

#include "drop7/drop7_game.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DROP7_EXPECTI_MAX_DEPTH 2
#define DROP7_EXPECTI_MAX_SAMPLES 16

typedef struct drop7_expecti_opts {
    int depth;               /* coming discs enumerated: 0..DROP7_EXPECTI_MAX_DEPTH */
    int samples;             /* K, reveal samples per move: 1..DROP7_EXPECTI_MAX_SAMPLES */
    int32_t cell_penalty;    /* points per disc on the board at a leaf */
    int32_t covered_penalty; /* points per covered disc (solid or cracked) at a leaf, on top */
    int32_t over_penalty;    /* points when the game ends on the path */
} drop7_expecti_opts;

/* The tuned settings of the `expectimax1` (depth 1) and `expectimax2` (depth 2) players. */
void drop7_expecti_defaults(drop7_expecti_opts *o, int depth);

/* Q of every column of g for the move seed: q[x] for the legal columns (INT64_MIN for the
 * others), in points x W^depth x samples. Returns the best legal column (the lowest on
 * ties), -1 when the game is over. */
int drop7_expecti_values(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed,
                         int64_t *q);

/* The column of the expectimax player: drop7_expecti_values' best column. */
int drop7_expecti_pick(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed);

/* cols[i] = drop7_expecti_pick(R, o, g[i], seeds[i]) for i < n, on `threads` OpenMP
 * threads (0: all); the result does not depend on the thread count. */
void drop7_expecti_pick_batch(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *const *g,
                              const uint64_t *seeds, int n, int threads, int *cols);

/* Whole games of the expectimax player: game i from seed + i (drop7_game_new), its move
 * seeds the successive gv_rng_u64 of a search generator seeded with
 * (seed + i) ^ DROP7_EXPECTI_SEED_XOR, at most max_moves moves (0: DROP7_DEFAULT_MAX_MOVES);
 * fills score, nmoves and end (DROP7_END_*, _CAP at the cap) of each game and returns the
 * moves played in all. One OpenMP region over the games on `threads` threads (0: all),
 * each game played through by one thread: the result does not depend on the thread count. */
#define DROP7_EXPECTI_SEED_XOR 0x9e3779b97f4a7c15ull
long drop7_expecti_play_batch(const drop7_rules *R, const drop7_expecti_opts *o, uint64_t seed, int ngames,
                              int max_moves, int threads, int64_t *score, int32_t *nmoves, int32_t *end);

/* The search of one move with the leaf valued from outside (the network's value: the
 * `--search expectimax0|expectimax1` players of drop7_agent.h), in two halves so that the
 * leaves of many games go to the network as one batch:
 *   drop7_expecti_expand plays the tree of depth 0 or 1 (the same moves, seeds and samples
 *   as drop7_expecti_values) and lists its leaves: the positions after the last move of a
 *   path that did not end the game;
 *   drop7_expecti_back combines the leaves' values v (points still to come) as the
 *   recursion above does with -h: Q_0(s, x) = gain + v(s'), or gain - over_penalty where
 *   the game ended; the same sums, maxima and weights above it, in double.
 * With v = -h (drop7_expecti_back with v NULL) the Q are drop7_expecti_values' exactly
 * (integers below 2^53: test_drop7_expecti compares them). Depth 2 is refused here (its
 * 21,952 leaves per sample are beyond a network's budget per move). */
#define DROP7_EXPECTI_TREE_MAX_DEPTH 1

typedef struct drop7_expecti_tree {
    int depth, samples, cap;  /* cap: leaves the arrays hold */
    int legal;                /* the root's legal columns */
    int nleaves;
    int64_t *gain0;           /* (samples * 7): the points of the first move x */
    uint8_t *over0, *legal0;  /* its game ended; the legal columns after it */
    int64_t *gain1;           /* depth 1: (samples * 7 * DROP7_CODES * 7) the second move's points */
    uint8_t *over1;
    int32_t *leaf;            /* per node of the last ply: its leaf's index, -1: none */
    drop7_game *pos;          /* (cap) the leaves' positions */
    int64_t *h;               /* (cap) their heuristic h (the penalties) */
} drop7_expecti_tree;

/* Allocates t for o->depth (0..DROP7_EXPECTI_TREE_MAX_DEPTH) and o->samples. */
void drop7_expecti_tree_init(drop7_expecti_tree *t, const drop7_expecti_opts *o);
void drop7_expecti_tree_free(drop7_expecti_tree *t);
/* Plays g's move tree for move_seed and lists its leaves (t->pos[0..t->nleaves)); returns
 * t->nleaves. */
int drop7_expecti_expand(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_game *g, uint64_t move_seed,
                         drop7_expecti_tree *t);
/* q[x] of the legal columns (-INFINITY for the others), in points x W^depth x samples, from
 * the leaves' values v[0..nleaves) in points (NULL: -h, the heuristic); returns the best
 * legal column (the lowest on ties), -1 when the game is over. */
int drop7_expecti_back(const drop7_rules *R, const drop7_expecti_opts *o, const drop7_expecti_tree *t, const double *v,
                       double *q);

#ifdef __cplusplus
}
#endif

#endif
