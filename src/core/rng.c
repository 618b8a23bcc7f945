/* rng.c: xoshiro256** (Blackman and Vigna), seeded with splitmix64. */
#include "core/rng.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

void gv_rng_seed(gv_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = gv_splitmix64(&x);
}

uint64_t gv_rng_u64(gv_rng *r)
{
    return gv_xoshiro256ss(r->s);
}

double gv_rng_uniform(gv_rng *r)
{
    return (double)(gv_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

double gv_rng_normal(gv_rng *r)
{
    double u1 = gv_rng_uniform(r), u2 = gv_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

uint64_t gv_rng_below(gv_rng *r, uint64_t n)
{
    uint64_t lim = -n % n; /* 2^64 mod n */
    for (;;) {
        uint64_t x = gv_rng_u64(r);
        if (x >= lim)
            return x % n;
    }
}

uint64_t gv_rng_fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    return gv_splitmix64(&x);
}
