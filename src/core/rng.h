/* rng.h: a small deterministic generator (xoshiro256**, seeded by splitmix64) for inputs
 * and initial weights, so that runs are reproducible from a seed on every platform. */
#ifndef GV_CORE_RNG_H
#define GV_CORE_RNG_H

#include <stdint.h>

#include "core/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t s[4];
} gv_rng;

/* The generator's two steps, for the host and the device (the Drop7 simulation draws in
 * kernels with exactly these): splitmix64 advances *x and returns its output; xoshiro256**
 * advances the state s[4] and returns its output. */
GV_HD static inline uint64_t gv_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

GV_HD static inline uint64_t gv_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

GV_HD static inline uint64_t gv_xoshiro256ss(uint64_t s[4])
{
    uint64_t result = gv_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gv_rng_rotl(s[3], 45);
    return result;
}

void gv_rng_seed(gv_rng *r, uint64_t seed);
uint64_t gv_rng_u64(gv_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double gv_rng_uniform(gv_rng *r);
/* Standard normal (Box-Muller). */
double gv_rng_normal(gv_rng *r);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t gv_rng_below(gv_rng *r, uint64_t n);
/* A seed from the clock and the process, for "fresh each run" inputs. */
uint64_t gv_rng_fresh_seed(void);

#ifdef __cplusplus
}
#endif

#endif
