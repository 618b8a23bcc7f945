/* drop7_game.h: the fast Drop7 game, written once and compiled for the host (drop7_game.c,
 * drop7_sim.c, drop7_encode.c) and for the device (drop7_gpu.cu): static inline functions,
 * __host__ __device__ under nvcc or hipcc (GV_INLINE). The rules are those of the plain
 * reference drop7_ref.c (docs/DROP7.md); the tests compare the two on millions of moves.
 *
 * The board is bitboards in one 64-bit word each: bit x*8 + r is the cell in column x,
 * r rows up from the bottom (r = 6 - y). Bit 7 of every byte and the eighth byte are
 * always 0, so shifts by 1 (up/down) and by 8 (right/left) never carry one column or row
 * into another board cell. occ has the occupied cells; p[0..3] the four bits of each
 * cell's code (1..7 a number, 8 solid, 9 cracked). Columns are always packed from the
 * bottom (gravity is applied after every explosion), so a column's height is the
 * popcount of its byte and its top disc the highest set bit.
 *
 * The generator is xoshiro256** seeded by splitmix64 and draws below n by rejection,
 * exactly core/rng.c (gv_rng_seed, gv_rng_u64, gv_rng_below): the same inline steps of
 * core/rng.h, with the seeding and the rejection restated here because the device cannot
 * call rng.c; test_drop7_rules checks that both give the same sequence. */
#ifndef GV_DROP7_DROP7_GAME_H
#define GV_DROP7_DROP7_GAME_H

#include <stdint.h>

#include "core/rng.h"
#include "dev/gpu_common.h" /* GV_INLINE, GV_UNROLL8 */
#include "drop7/drop7.h"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define D7_POPCNT(x) __popcll(x)
#else
#define D7_POPCNT(x) __builtin_popcountll(x)
#endif

#define D7_BOARD 0x007f7f7f7f7f7f7full  /* the 49 cells */
#define D7_ROW0 0x0001010101010101ull   /* bottom row (y = 6) */
#define D7_TOP (D7_ROW0 << 6)           /* top row (y = 0) */
#define D7_UP1 0x007e7e7e7e7e7e7eull    /* rows r >= 1 */
#define D7_UP2 0x007c7c7c7c7c7c7cull    /* rows r >= 2 */
#define D7_UP4 0x0070707070707070ull    /* rows r >= 4 */

typedef struct drop7_game {
    uint64_t occ;
    uint64_t p[4];
    uint64_t rng[4]; /* xoshiro256** state, the same words as gv_rng */
    int64_t score;
    int32_t level, drops_left, nmoves, chain_steps, max_chain, exploded, clears;
    uint8_t next, over, pad_[2];
} drop7_game;

/* ---- the generator (core/rng.h's steps, seeded and drawn as core/rng.c does) ---------- */

GV_INLINE void drop7_rng_seed(uint64_t *s, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        s[i] = gv_splitmix64(&x);
}

GV_INLINE uint64_t drop7_rng_u64(uint64_t *s)
{
    return gv_xoshiro256ss(s);
}

/* uniform in [0, n), n > 0, no modulo bias: gv_rng_below */
GV_INLINE uint64_t drop7_rng_below(uint64_t *s, uint64_t n)
{
    uint64_t lim = (0 - n) % n;
    for (;;) {
        uint64_t x = drop7_rng_u64(s);
        if (x >= lim)
            return x % n;
    }
}

/* A code 1..9 with probability w[c] / sum(w[1..9]) (the sum is > 0: drop7_rules_check). */
GV_INLINE int drop7_draw_code(uint64_t *s, const uint16_t *w)
{
    uint32_t total = 0;
    GV_UNROLL8
    for (int c = 1; c < DROP7_CODES; c++)
        total += w[c];
    uint32_t r = (uint32_t)drop7_rng_below(s, total);
    GV_UNROLL8
    for (int c = 1; c < DROP7_CODES; c++) {
        if (r < w[c])
            return c;
        r -= w[c];
    }
    return DROP7_CODES - 1; /* not reached */
}

/* ---- cells ----------------------------------------------------------------------------- */

GV_INLINE int32_t drop7_drops_of_level(const drop7_rules *R, int32_t level)
{
    int32_t d = R->drops_first - R->drops_step * (level - 1);
    return d > R->drops_min ? d : R->drops_min;
}

GV_INLINE uint64_t drop7_bit(int x, int y)
{
    return 1ull << (x * 8 + (DROP7_N - 1 - y));
}

GV_INLINE void drop7_set_cells(drop7_game *g, uint64_t b, int code)
{
    g->occ |= b;
    GV_UNROLL8
    for (int i = 0; i < 4; i++)
        g->p[i] |= b & (0 - (uint64_t)((code >> i) & 1));
}

GV_INLINE void drop7_clear_cells(drop7_game *g, uint64_t m)
{
    g->occ &= ~m;
    GV_UNROLL8
    for (int i = 0; i < 4; i++)
        g->p[i] &= ~m;
}

/* Code of the cell at bit b (0 when empty). */
GV_INLINE int drop7_cell_code(const drop7_game *g, uint64_t b)
{
    return (int)(((g->p[0] & b) != 0) | (((g->p[1] & b) != 0) << 1) | (((g->p[2] & b) != 0) << 2) |
                 (((g->p[3] & b) != 0) << 3));
}

/* Bit x set when column x has room (none once the game is over). */
GV_INLINE int drop7_legal(const drop7_game *g)
{
    if (g->over)
        return 0;
    /* gathers bit 8x of (room >> 6) into bit 56 + x: the 49 partial products of the
     * multiplication land on distinct bits, so nothing carries */
    uint64_t room = (~g->occ & D7_TOP) >> 6;
    return (int)(((room * 0x0102040810204000ull) >> 56) & 0x7f);
}

/* ---- the rules ------------------------------------------------------------------------- */

/* The numbered discs that explode now: value v and a horizontal or vertical run of
 * exactly v discs (covered discs count in runs). */
GV_INLINE uint64_t drop7_exploding(const drop7_game *g)
{
    const uint64_t occ = g->occ, p0 = g->p[0], p1 = g->p[1], p2 = g->p[2];
    const uint64_t num = occ & ~g->p[3];
    const uint64_t top = occ & ~(occ >> 1);   /* each column's top disc */
    uint64_t ge = occ & ~(occ << 8);          /* left ends of horizontal runs of length >= L */
    uint64_t X = 0;
    GV_UNROLL8
    for (int L = 1; L <= DROP7_N; L++) {
        uint64_t longer = ge & (occ >> (8 * L)); /* runs of length >= L + 1 */
        uint64_t exact = ge ^ longer;
        /* the L cells of each run of exactly L: runs in one row are apart, so no carries */
        uint64_t hcells = exact * (0x0101010101010101ull >> (64 - 8 * L));
        /* a column of height exactly L: all its cells, from its top disc at row L - 1 */
        uint64_t vcells = ((top & (D7_ROW0 << (L - 1))) >> (L - 1)) * ((1ull << L) - 1);
        uint64_t val = num & ((L & 1) ? p0 : ~p0) & ((L & 2) ? p1 : ~p1) & ((L & 4) ? p2 : ~p2);
        X |= val & (hcells | vcells);
        ge = longer;
    }
    return X;
}

/* Packs every column down to the bottom, keeping the order of its discs. */
GV_INLINE void drop7_gravity(drop7_game *g)
{
    for (;;) {
        uint64_t h = ~g->occ & D7_BOARD; /* holes, then every cell with a hole at or below it */
        h |= (h << 1) & D7_UP1;
        h |= (h << 2) & D7_UP2;
        h |= (h << 4) & D7_UP4;
        uint64_t mv = g->occ & (h << 1) & D7_UP1; /* discs with a hole somewhere below */
        if (!mv)
            return;
        g->occ = (g->occ & ~mv) | (mv >> 1);
        GV_UNROLL8
        for (int i = 0; i < 4; i++)
            g->p[i] = (g->p[i] & ~mv) | ((g->p[i] & mv) >> 1);
    }
}

/* Explodes, hits, reveals and drops until nothing explodes; step0 is the chain step count
 * to continue from (0 for a fresh chain). Scores every step and the board clear.
 * Returns the number of steps that exploded discs. */
GV_INLINE int drop7_resolve(const drop7_rules *R, drop7_game *g, int step0)
{
    int step = step0, steps = 0;
    for (;;) {
        uint64_t X = drop7_exploding(g);
        if (!X)
            break;
        step++;
        steps++;
        int n = (int)D7_POPCNT(X);
        g->score += (int64_t)n * R->chain_points[step < DROP7_MAX_CHAIN ? step : DROP7_MAX_CHAIN];
        g->exploded += n;
        uint64_t cov = g->occ & g->p[3];
        if (cov) {
            /* exploding neighbours below, above, left and right of each cell */
            uint64_t a = X << 1, b = X >> 1, c = X << 8, d = X >> 8;
            uint64_t ge1 = (a | b | c | d) & cov;
            uint64_t ge2 = R->hit_each_neighbour ? ((a & b) | (c & d) | ((a | b) & (c | d))) & cov : 0;
            uint64_t solid = cov & ~g->p[0], cracked = cov & g->p[0];
            uint64_t reveal = (cracked & ge1) | (solid & ge2);
            g->p[0] |= solid & ge1 & ~ge2; /* solid (1000) -> cracked (1001) */
            /* numbers drawn in bit order: columns left to right, each bottom to top */
            while (reveal) {
                uint64_t bit = reveal & (0 - reveal);
                reveal ^= bit;
                drop7_clear_cells(g, bit);
                drop7_set_cells(g, bit, drop7_draw_code(g->rng, R->reveal_weight));
            }
        }
        drop7_clear_cells(g, X);
        drop7_gravity(g);
    }
    if (steps) {
        g->chain_steps += steps;
        if (step > g->max_chain)
            g->max_chain = step;
        if (!g->occ) {
            g->score += R->clear_bonus;
            g->clears++;
        }
    }
    return steps;
}

/* A new game from seed: start_discs random discs (an attempt draws a column, then a code;
 * it is dropped unless the column is full or the disc would make something explode; at
 * most 4 * start_discs attempts), then the first next disc. */
GV_INLINE void drop7_game_new(const drop7_rules *R, drop7_game *g, uint64_t seed)
{
    g->occ = 0;
    for (int i = 0; i < 4; i++)
        g->p[i] = 0;
    drop7_rng_seed(g->rng, seed);
    g->score = 0;
    g->level = 1;
    g->drops_left = drop7_drops_of_level(R, 1);
    g->nmoves = g->chain_steps = g->max_chain = g->exploded = g->clears = 0;
    g->over = 0;
    g->pad_[0] = g->pad_[1] = 0;
    int placed = 0;
    for (int a = 0; a < 4 * R->start_discs && placed < R->start_discs; a++) {
        int x = (int)drop7_rng_below(g->rng, DROP7_N);
        int code = drop7_draw_code(g->rng, R->start_weight);
        uint64_t col = (g->occ >> (8 * x)) & 0x7f;
        if (col == 0x7f)
            continue;
        uint64_t b = 1ull << (8 * x + D7_POPCNT(col));
        drop7_set_cells(g, b, code);
        if (drop7_exploding(g)) {
            drop7_clear_cells(g, b);
            continue;
        }
        placed++;
    }
    g->next = (uint8_t)drop7_draw_code(g->rng, R->next_weight);
}

/* Plays column x (legal, game not over): the drop and its chain; after the level's last
 * drop a row of solid discs rises (the game ends instead when a disc is in the top row)
 * with the level bonus and its own chain; the game ends when no column has room; else
 * the next disc is drawn. Returns the drop's chain length. */
GV_INLINE int drop7_step(const drop7_rules *R, drop7_game *g, int x)
{
    uint64_t col = (g->occ >> (8 * x)) & 0x7f;
    drop7_set_cells(g, 1ull << (8 * x + D7_POPCNT(col)), g->next);
    int chain = drop7_resolve(R, g, 0);
    g->nmoves++;
    if (--g->drops_left == 0) {
        if (g->occ & D7_TOP) {
            g->over = DROP7_END_OVERFLOW;
            g->next = 0;
            return chain;
        }
        g->occ = (g->occ << 1) | D7_ROW0;
        for (int i = 0; i < 4; i++)
            g->p[i] <<= 1;
        g->p[3] |= D7_ROW0; /* solid = 1000 */
        g->score += R->level_bonus;
        g->level++;
        g->drops_left = drop7_drops_of_level(R, g->level);
        drop7_resolve(R, g, R->rise_chain_continues ? chain : 0);
    }
    if (!(~g->occ & D7_TOP)) {
        g->over = DROP7_END_FULL;
        g->next = 0;
        return chain;
    }
    g->next = (uint8_t)drop7_draw_code(g->rng, R->next_weight);
    return chain;
}

/* ---- players ------------------------------------------------------------------------- */

/* A uniform legal column, from the player's own generator prng. */
GV_INLINE int drop7_pick_random(const drop7_game *g, uint64_t *prng)
{
    int m = drop7_legal(g);
    int k = (int)drop7_rng_below(prng, (uint64_t)D7_POPCNT((uint64_t)m));
    for (int x = 0; x < DROP7_N; x++)
        if ((m >> x) & 1) {
            if (k == 0)
                return x;
            k--;
        }
    return -1; /* not reached: the game is not over, so m != 0 */
}

/* The legal column whose whole move gains the most points, the lowest on ties. */
GV_INLINE int drop7_pick_greedy(const drop7_rules *R, const drop7_game *g)
{
    int m = drop7_legal(g), best = -1;
    int64_t best_gain = 0;
    for (int x = 0; x < DROP7_N; x++) {
        if (!((m >> x) & 1))
            continue;
        drop7_game t = *g;
        drop7_step(R, &t, x);
        int64_t gain = t.score - g->score;
        if (best < 0 || gain > best_gain) {
            best = x;
            best_gain = gain;
        }
    }
    return best;
}

/* ---- records and encoding ------------------------------------------------------------ */

GV_INLINE void drop7_game_record(const drop7_game *g, uint64_t seed, uint64_t moves_hash, int capped,
                                 drop7_record *rec)
{
    rec->seed = seed;
    rec->moves_hash = moves_hash;
    rec->score = g->score;
    rec->nmoves = g->nmoves;
    rec->level = g->level;
    rec->chain_steps = g->chain_steps;
    rec->max_chain = g->max_chain;
    rec->exploded = g->exploded;
    rec->clears = g->clears;
    rec->end = g->over ? g->over : (capped ? DROP7_END_CAP : DROP7_END_NONE);
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            rec->board[y * DROP7_N + x] = (uint8_t)drop7_cell_code(g, drop7_bit(x, y));
    rec->next = g->next;
    rec->pad[0] = rec->pad[1] = 0;
}

/* One whole game: player DROP7_PLAYER_RANDOM or _GREEDY, at most max_moves moves; moves
 * (room for max_moves, or NULL) gets the columns. */
GV_INLINE void drop7_game_play(const drop7_rules *R, int player, uint64_t seed, int max_moves, drop7_record *rec,
                               uint8_t *moves)
{
    drop7_game g;
    uint64_t prng[4];
    drop7_game_new(R, &g, seed);
    drop7_rng_seed(prng, seed ^ DROP7_PLAYER_SEED_XOR);
    uint64_t h = DROP7_FNV_OFFSET;
    while (!g.over && g.nmoves < max_moves) {
        int x = player == DROP7_PLAYER_GREEDY ? drop7_pick_greedy(R, &g) : drop7_pick_random(&g, prng);
        if (moves)
            moves[g.nmoves] = (uint8_t)x;
        h = (h ^ (uint64_t)x) * DROP7_FNV_PRIME;
        drop7_step(R, &g, x);
    }
    drop7_game_record(&g, seed, h, !g.over, rec);
}

/* The network's input in its compact form (nn_batch's cells): per cell [y*7 + x] the plane
 * (0..9, the cell's code) that holds 1 there, and consts[0..1] the values of the constant
 * planes 10 (the next disc, /7) and 11 (drops left, /30). */
GV_INLINE void drop7_game_cells(const drop7_game *g, uint8_t *cells, float *consts)
{
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            cells[y * DROP7_N + x] = (uint8_t)drop7_cell_code(g, drop7_bit(x, y));
    consts[0] = (g->next >= 1 && g->next <= 7) ? (float)g->next / 7.0f : 0.0f;
    consts[1] = (float)g->drops_left / 30.0f;
}

/* The 12 planes, (12, 7, 7) float32 at c*49 + y*7 + x, y = 0 the top row (drop7.h): the
 * cells above, expanded. */
GV_INLINE void drop7_game_encode(const drop7_game *g, float *out)
{
    uint8_t cells[DROP7_CELLS];
    float consts[2];
    drop7_game_cells(g, cells, consts);
    for (int i = 0; i < DROP7_PLANE_FLOATS; i++)
        out[i] = 0.0f;
    for (int i = 0; i < DROP7_CELLS; i++) {
        out[cells[i] * DROP7_CELLS + i] = 1.0f;
        out[10 * DROP7_CELLS + i] = consts[0];
        out[11 * DROP7_CELLS + i] = consts[1];
    }
}

/* ---- plain positions (host) ---------------------------------------------------------- */

GV_INLINE void drop7_game_load(const drop7_pos *p, drop7_game *g)
{
    g->occ = 0;
    for (int i = 0; i < 4; i++)
        g->p[i] = 0;
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            if (p->cell[y][x])
                drop7_set_cells(g, drop7_bit(x, y), p->cell[y][x]);
    for (int i = 0; i < 4; i++)
        g->rng[i] = p->rng.s[i];
    g->score = p->score;
    g->level = p->level;
    g->drops_left = p->drops_left;
    g->nmoves = p->nmoves;
    g->chain_steps = p->chain_steps;
    g->max_chain = p->max_chain;
    g->exploded = p->exploded;
    g->clears = p->clears;
    g->next = p->next;
    g->over = p->over;
    g->pad_[0] = g->pad_[1] = 0;
}

GV_INLINE void drop7_game_store(const drop7_game *g, drop7_pos *p)
{
    for (int y = 0; y < DROP7_N; y++)
        for (int x = 0; x < DROP7_N; x++)
            p->cell[y][x] = (uint8_t)drop7_cell_code(g, drop7_bit(x, y));
    for (int i = 0; i < 4; i++)
        p->rng.s[i] = g->rng[i];
    p->score = g->score;
    p->level = g->level;
    p->drops_left = g->drops_left;
    p->nmoves = g->nmoves;
    p->chain_steps = g->chain_steps;
    p->max_chain = g->max_chain;
    p->exploded = g->exploded;
    p->clears = g->clears;
    p->next = g->next;
    p->over = g->over;
}

#ifdef __cplusplus
extern "C" {
#endif
/* Host entry points of drop7_game.c, for callers that want a symbol, not an inline: */
/* the CPU batch: game i from seeds[i] on `threads` OpenMP threads (0: all). */
void drop7_game_play_batch(const drop7_rules *R, int player, const uint64_t *seeds, int ngames, int max_moves,
                           int threads, drop7_record *out, uint8_t *moves);
/* (n, 12, 7, 7) float32 planes and n legal masks (legal may be NULL). */
void drop7_game_encode_batch(const drop7_game *g, int n, float *out, uint8_t *legal);
#ifdef __cplusplus
}
#endif

#endif
