/* rng.h: a small deterministic generator (xoshiro256**, seeded by splitmix64) for inputs
 * and initial weights, so that runs are reproducible from a seed on every platform. */
#ifndef GV_CORE_RNG_H
#define GV_CORE_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t s[4];
} gv_rng;

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
