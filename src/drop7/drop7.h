/* drop7.h: the game of Drop7 (rules in docs/DROP7.md, each with its public source): the
 * rules struct that holds every number of the game, the plain reference implementation
 * (drop7_ref.c), the encoding of a position into the network's 12 input planes
 * (drop7_encode.c) and batched simulation with game records on the reference, on CPU
 * threads and on the GPU (drop7_sim.c, drop7_gpu.h). The fast game itself, written once
 * for host and device, is in drop7_game.h.
 *
 * Coordinates: x is the column, 0 (left) to 6; y is the row, 0 the TOP row to 6 the
 * bottom row, as the board is drawn and as the encoding lays it out (c*49 + y*7 + x).
 * Discs fall towards y = 6. Nothing here allocates except where a comment says so. */
#ifndef GV_DROP7_DROP7_H
#define GV_DROP7_DROP7_H

#include <stdint.h>

#include "core/gv.h"
#include "core/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DROP7_N 7                 /* the board is DROP7_N x DROP7_N */
#define DROP7_CELLS 49
#define DROP7_MAX_CHAIN 49        /* a chain step explodes >= 1 disc and none appear: <= 49 steps */
#define DROP7_PLANES 12           /* network input planes, (12, 7, 7) float32 per position */
#define DROP7_PLANE_FLOATS (DROP7_PLANES * DROP7_CELLS)
#define DROP7_DEFAULT_MAX_MOVES 5000 /* per-game cap of the simulators (a cap, not a rule) */

/* Cell codes (also the codes of the next disc). 1..7 are the numbered discs. A covered
 * disc is SOLID until hit once, then CRACKED; the next hit reveals a number. */
enum {
    DROP7_EMPTY = 0,
    DROP7_SOLID = 8,
    DROP7_CRACKED = 9,
    DROP7_CODES = 10,
};

/* Why a game ended. */
enum {
    DROP7_END_NONE = 0,     /* still running */
    DROP7_END_FULL = 1,     /* every column is full: the next disc does not fit */
    DROP7_END_OVERFLOW = 2, /* a rising row would push a disc out of the top */
    DROP7_END_CAP = 3,      /* the simulator's move cap was reached (not a rule of the game) */
};

/* Every number of the game. drop7_rules_normal / drop7_rules_hardcore fill the two
 * public modes; a caller may change any field and must then pass drop7_rules_check. */
typedef struct drop7_rules {
    int32_t drops_first;   /* drops before the first rise (normal 30, hardcore 5) */
    int32_t drops_step;    /* each level has this many fewer drops (normal 1, hardcore 0) */
    int32_t drops_min;     /* but never fewer than this (5) */
    int32_t level_bonus;   /* points when a row rises successfully (normal 7000, hardcore 17000) */
    int32_t clear_bonus;   /* points when a chain leaves the board empty (70000) */
    int32_t start_discs;   /* at most this many discs on the board before the first move */
    int32_t hit_each_neighbour; /* 1: each exploding neighbour hits a covered disc once (two
                                 * neighbours crack and reveal it in one step); 0: a covered
                                 * disc takes at most one hit per chain step */
    int32_t rise_chain_continues; /* 0: a chain set off by a rising row starts again at step 1;
                                   * 1: it continues the step count of the drop's chain */
    /* Relative weights of the disc codes 1..9 (index 0 unused, must be 0): the next disc,
     * the discs of the starting board, and the number a covered disc reveals (1..7 only). */
    uint16_t next_weight[DROP7_CODES];
    uint16_t start_weight[DROP7_CODES];
    uint16_t reveal_weight[DROP7_CODES];
    /* chain_points[k]: points for each disc exploding at chain step k (1..DROP7_MAX_CHAIN);
     * index 0 unused. Default floor(7 k^2.5): 7, 39, 109, 224, 391, ... */
    int32_t chain_points[DROP7_MAX_CHAIN + 1];
} drop7_rules;

typedef enum { DROP7_MODE_NORMAL = 0, DROP7_MODE_HARDCORE = 1 } drop7_mode;

void drop7_rules_normal(drop7_rules *r);
void drop7_rules_hardcore(drop7_rules *r);
void drop7_rules_init(drop7_rules *r, drop7_mode mode);
/* floor(7 * k^2.5) computed exactly in integers (isqrt(49 k^5)), k >= 0. */
int32_t drop7_chain_points_default(int k);
/* Checks every field; GV_ERR_INPUT with the field named when one is out of range. */
gv_status drop7_rules_check(const drop7_rules *r, gv_err *err);
/* Drops of level L (1-based): max(drops_min, drops_first - drops_step * (L - 1)). */
int32_t drop7_rules_drops(const drop7_rules *r, int32_t level);

/* A position in plain form: what the reference works on and what both implementations
 * load and store, so they can be compared field by field. The RNG state is part of the
 * position: revealed numbers and the next discs are drawn from it (docs/DROP7.md gives
 * the order of the draws). */
typedef struct drop7_pos {
    uint8_t cell[DROP7_N][DROP7_N]; /* [y][x], y = 0 the top row; DROP7_EMPTY, 1..7, SOLID, CRACKED */
    uint8_t next;                   /* code of the disc the next move drops */
    uint8_t over;                   /* DROP7_END_*: nonzero once the game has ended */
    int32_t level;                  /* 1 + rows risen so far */
    int32_t drops_left;             /* drops until the next row rises (>= 1 while the game runs) */
    int32_t nmoves;                 /* moves played */
    int64_t score;
    int32_t chain_steps;            /* chain steps so far (every step that exploded discs) */
    int32_t max_chain;              /* longest chain so far */
    int32_t exploded;               /* discs exploded so far */
    int32_t clears;                 /* board-clear bonuses so far */
    gv_rng rng;                     /* the game's generator (xoshiro256**, core/rng.h) */
} drop7_pos;

/* ---- players and game records ------------------------------------------------------- */

/* The random player picks uniformly among the legal columns with its own generator,
 * gv_rng seeded with (seed ^ DROP7_PLAYER_SEED_XOR), so that the game's own sequence is
 * the same whoever plays. The greedy player plays the column whose move gains the most
 * points (the whole move: its chain, a rise and its chain, bonuses), found by playing every
 * legal column on a copy of the game, generator included; ties go to the lowest column. */
typedef enum { DROP7_PLAYER_RANDOM = 0, DROP7_PLAYER_GREEDY = 1 } drop7_player;
#define DROP7_PLAYER_SEED_XOR 0x5deece66d2b3c9a1ull

typedef struct drop7_record {
    uint64_t seed;
    uint64_t moves_hash; /* FNV-1a 64 of the columns played, one byte each */
    int64_t score;
    int32_t nmoves;
    int32_t level;
    int32_t chain_steps;
    int32_t max_chain;
    int32_t exploded;
    int32_t clears;
    int32_t end;                  /* DROP7_END_* */
    uint8_t board[DROP7_CELLS];   /* final board, [y*7 + x], y = 0 the top row */
    uint8_t next;                 /* the disc that would have come next (0 once the game is over) */
    uint8_t pad[2];
} drop7_record;

#define DROP7_FNV_OFFSET 0xcbf29ce484222325ull
#define DROP7_FNV_PRIME 0x100000001b3ull

/* 0 when a and b are equal field by field; else 1 with the first difference in msg. */
int drop7_record_diff(const drop7_record *a, const drop7_record *b, char *msg, size_t len);

/* ---- the plain reference (drop7_ref.c): obviously correct, slow ---------------------- */

/* A new game from seed: up to rules->start_discs random discs (docs/DROP7.md), the first next disc. */
void drop7_ref_new(const drop7_rules *r, uint64_t seed, drop7_pos *p);
/* 1 when column x can take a disc (the game must not be over). */
int drop7_ref_legal(const drop7_pos *p, int x);
/* Plays column x (must be legal, game not over): drop, chain, maybe a rising row and its
 * chain, end-of-game check, next disc. Returns the chain length of the drop (0: nothing
 * exploded). */
int drop7_ref_step(const drop7_rules *r, drop7_pos *p, int x);
/* Plays a whole game with a player (drop7_player) up to max_moves moves; fills rec and,
 * when moves is not NULL, moves[0..nmoves-1] (room for max_moves). */
void drop7_ref_play(const drop7_rules *r, int player, uint64_t seed, int max_moves, drop7_record *rec,
                    uint8_t *moves);

/* ---- batched simulation (drop7_sim.c) ------------------------------------------------ */

typedef enum {
    DROP7_DEVICE_REF = 0, /* the plain reference, one game after another */
    DROP7_DEVICE_CPU = 1, /* the fast game on OpenMP threads */
    DROP7_DEVICE_GPU = 2, /* the fast game, one GPU thread per game (drop7_gpu.h) */
} drop7_device;

typedef struct drop7_sim_opts {
    drop7_device device;
    int threads;   /* CPU: OpenMP threads, 0 = all the process may use */
    int gpu;       /* GPU: device index */
    int max_moves; /* per-game cap, 0 = DROP7_DEFAULT_MAX_MOVES */
} drop7_sim_opts;

/* Plays ngames games, game i from seeds[i], with player (drop7_player) on the chosen
 * device; out[i] is game i's record and, when moves is not NULL, moves[i * max_moves ..]
 * its columns (max_moves after the default applies). The records do not depend on the
 * device or the thread count. Does no timing (the caller times it). GV_ERR_INPUT for bad
 * rules or arguments, GV_ERR_ENV when the device cannot be used (no GPU backend, no
 * device, out of memory). */
gv_status drop7_sim_batch(const drop7_rules *r, int player, const uint64_t *seeds, int ngames,
                          const drop7_sim_opts *opts, drop7_record *out, uint8_t *moves, gv_err *err);

/* ---- encoding (drop7_encode.c) ------------------------------------------------------ */

/* The 12 input planes of drop7_reference.py, (12, 7, 7) float32 at c*49 + y*7 + x:
 * 0 empty, 1..7 disc value, 8 solid, 9 cracked (one-hot per cell), 10 the next disc's
 * value / 7 (0 for a covered next disc), 11 drops until the rise / 30. */
void drop7_encode_pos(const drop7_pos *p, float *out);
/* Bit x set when column x is legal (0 once the game is over). */
uint8_t drop7_legal_mask_pos(const drop7_pos *p);

#ifdef __cplusplus
}
#endif

#endif
