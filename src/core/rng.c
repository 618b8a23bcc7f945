/* rng.c: xoshiro256** (Blackman and Vigna), seeded with splitmix64. */
#include "core/rng.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void gv_rng_seed(gv_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t gv_rng_u64(gv_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
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
    return splitmix64(&x);
}
