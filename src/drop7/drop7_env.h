/* drop7_env.h: n Drop7 games stepped move by move with the caller's columns, the engine of
 * the Python package's Drop7Env (docs/PYTHON.md). A slot holds one game at a time; game k of
 * slot i plays seed base + i + k * n, so the games of one reset are those `gpuvet bench drop7
 * --seed base` plays, and a slot whose game ends starts its next game in the same step
 * (autoreset). The per-slot steps are written once for the host and the device (GV_INLINE,
 * as drop7_game.h): the host runs them in a loop, drop7_env_gpu.cu one thread per slot, so
 * both give the same observations, rewards and records.
 *
 * Below them, the device environment (drop7_env_gpu.cu; drop7_env_gpu_nogpu.c in builds
 * without a GPU backend, where open fails with drop7_gpu_open's GV_ERR_ENV message): the
 * slots and every output array live in device memory, which the caller may read in place
 * (the Python package hands them to PyTorch through DLPack). */
#ifndef GV_DROP7_DROP7_ENV_H
#define GV_DROP7_DROP7_ENV_H

#include <stdint.h>

#include "drop7/drop7.h"
#include "drop7/drop7_game.h"

/* One slot: the game in progress and what its record needs. */
typedef struct drop7_slot {
    drop7_game g;
    uint64_t prng[4]; /* the random player's generator of the game (drop7_game_play seeds it so) */
    uint64_t seed;    /* the game's seed */
    uint64_t hash;    /* FNV-1a 64 of its columns so far */
    uint64_t games;   /* games begun in the slot since the reset */
} drop7_slot;

/* Starts slot i's next game (of n slots, seeds from base). */
GV_INLINE void drop7_slot_begin(const drop7_rules *R, drop7_slot *s, uint64_t base, int i, int n)
{
    uint64_t seed = base + (uint64_t)i + s->games * (uint64_t)n;
    s->games++;
    s->seed = seed;
    s->hash = DROP7_FNV_OFFSET;
    drop7_game_new(R, &s->g, seed);
    drop7_rng_seed(s->prng, seed ^ DROP7_PLAYER_SEED_XOR);
}

/* The slot's observation: obs (12, 7, 7) float32 (drop7_game_encode) and mask 7 bytes, 1
 * where the column is legal. */
GV_INLINE void drop7_slot_observe(const drop7_slot *s, float *obs, uint8_t *mask)
{
    drop7_game_encode(&s->g, obs);
    int m = drop7_legal(&s->g);
    for (int x = 0; x < DROP7_N; x++)
        mask[x] = (uint8_t)((m >> x) & 1);
}

/* Whether column a is a legal move of the slot's game. */
GV_INLINE int drop7_slot_legal(const drop7_slot *s, int64_t a)
{
    return a >= 0 && a < DROP7_N && ((drop7_legal(&s->g) >> a) & 1);
}

/* Where one step of slot i writes: the slot's element of each array (obs and final_obs 588
 * floats, mask 7 bytes, record one). */
typedef struct {
    float *obs, *final_obs;
    uint8_t *mask;
    double *reward;
    uint8_t *terminated, *truncated, *done;
    drop7_record *record;
    uint64_t *seed;
} drop7_slot_out;

/* Plays legal column a in slot i: reward the points it made, terminated the game is over,
 * truncated it reached max_moves, done either, seed the game's seed. A game that ended
 * leaves its record and last position in record and final_obs, and the slot starts its next
 * game (autoreset); obs and mask then show the slot's current position. Returns 1 when the
 * game ended. */
GV_INLINE int drop7_slot_step(const drop7_rules *R, drop7_slot *s, int64_t a, uint64_t base, int i, int n,
                              int max_moves, const drop7_slot_out *o)
{
    int64_t before = s->g.score;
    drop7_step(R, &s->g, (int)a);
    s->hash = (s->hash ^ (uint64_t)a) * DROP7_FNV_PRIME;
    uint8_t term = s->g.over != 0, trunc = !s->g.over && s->g.nmoves >= max_moves;
    *o->reward = (double)(s->g.score - before);
    *o->terminated = term;
    *o->truncated = trunc;
    *o->done = term | trunc;
    *o->seed = s->seed;
    if (term || trunc) {
        drop7_game_record(&s->g, s->seed, s->hash, trunc, o->record);
        drop7_game_encode(&s->g, o->final_obs);
        drop7_slot_begin(R, s, base, i, n);
    }
    drop7_slot_observe(s, o->obs, o->mask);
    return term || trunc;
}

#if defined(__CUDACC__) || defined(__HIPCC__)
/* A block's copy of the rules in shared memory R, made by all its threads (kernels that run
 * the game keep the rules there). */
static __device__ __forceinline__ void drop7_rules_to_shared(drop7_rules *R, const drop7_rules *rules)
{
    static_assert(sizeof(drop7_rules) % 4 == 0, "the rules are copied to shared memory as 32-bit words");
    const uint32_t *src = (const uint32_t *)rules;
    uint32_t *dst = (uint32_t *)R;
    for (int k = threadIdx.x; k < (int)(sizeof(drop7_rules) / 4); k += blockDim.x)
        dst[k] = src[k];
    __syncthreads();
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The error of an illegal column a in slot i (GV_ERR_INPUT, the legal columns listed);
 * GV_OK when a is legal. */
gv_status drop7_slot_check(const drop7_slot *s, int i, int64_t a, const char *what, gv_err *err);

/* ---- the device environment ------------------------------------------------------------ */

typedef struct drop7_env_gpu drop7_env_gpu;

/* The environment's device arrays (C order, n = the slots). They are rewritten by every
 * reset and step, and freed by close. */
typedef struct {
    float *obs;             /* (n, 12, 7, 7) the current positions */
    uint8_t *mask;          /* (n, 7) 1 where the column is legal */
    double *reward;         /* (n) the points of the last step's move */
    uint8_t *terminated;    /* (n) */
    uint8_t *truncated;     /* (n) */
    uint8_t *done;          /* (n) terminated or truncated: where record and final_obs hold */
    float *final_obs;       /* (n, 12, 7, 7) the last position of a game that ended */
    uint64_t *seed;         /* (n) the seed of the game the last move was played in */
    int64_t *sample;        /* (n) the columns of the last drop7_env_gpu_sample */
} drop7_env_arrays;

/* Opens n slots on GPU `device` with rules r (checked) and the move cap max_moves. GV_ERR_ENV
 * with drop7_gpu_open's message where there is no usable GPU; *out is then NULL. */
gv_status drop7_env_gpu_open(int device, const drop7_rules *r, int n, int max_moves, drop7_env_gpu **out,
                             gv_err *err);
const drop7_env_arrays *drop7_env_gpu_arrays(const drop7_env_gpu *e);
int drop7_env_gpu_device(const drop7_env_gpu *e);
/* Every slot starts its first game (slot i: seed base + i); obs and mask show them. */
gv_status drop7_env_gpu_reset(drop7_env_gpu *e, uint64_t base, gv_err *err);
/* One move in every slot: actions (n columns, signed integers of `bits` 8, 16, 32 or 64) in
 * device memory of the environment's GPU (on_device) or on the host. Every column is checked
 * first: an illegal one fails with drop7_slot_check's message and nothing is played. *ended
 * gets the games that ended. Returns when the device is done. */
gv_status drop7_env_gpu_step(drop7_env_gpu *e, const void *actions, int on_device, int bits, long *ended,
                             gv_err *err);
/* The CLI's player's columns for the current positions into the sample array (player
 * DROP7_PLAYER_RANDOM: each game's own player generator, as drop7_game_play draws them). */
gv_status drop7_env_gpu_sample(drop7_env_gpu *e, int player, gv_err *err);
/* The records (n, host memory) of the games that ended in the last step (where done is 1;
 * current 0), or of the games in progress (current 1). */
gv_status drop7_env_gpu_records(drop7_env_gpu *e, int current, drop7_record *out, gv_err *err);
const char *drop7_env_gpu_name(const drop7_env_gpu *e);
void drop7_env_gpu_close(drop7_env_gpu *e);

#ifdef __cplusplus
}
#endif

#endif
