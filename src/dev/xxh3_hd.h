/* xxh3_hd.h: XXH3-64 (seed 0, default secret) for inputs longer than 240 bytes, written
 * for host and device (GV_HD) so a device can hash a framebuffer and return 8 bytes
 * per frame instead of the frame (69120 bytes for the Game Boy's). The result equals
 * gv_hash64() on the same bytes; the test suite checks this on the host. The 192-byte
 * default secret is passed in (the host takes it from libxxhash's header, see
 * dev_xxh3_secret()).
 *
 * The accumulator has 8 independent 64-bit lanes, so a lane-parallel form (one thread
 * per lane) is provided too: dev_xxh3_lane() runs lane i over the whole input and
 * dev_xxh3_merge() combines the 8 lanes. */
#ifndef GV_DEV_XXH3_HD_H
#define GV_DEV_XXH3_HD_H

#include <stddef.h>
#include <stdint.h>

#include "dev/gpu_common.h" /* GV_HD */

#define DEV_XXH3_SECRET_SIZE 192
#define DEV_XXH_P32_1 0x9E3779B1u
#define DEV_XXH_P32_2 0x85EBCA77u
#define DEV_XXH_P32_3 0xC2B2AE3Du
#define DEV_XXH_P64_1 0x9E3779B185EBCA87ull
#define DEV_XXH_P64_2 0xC2B2AE3D27D4EB4Full
#define DEV_XXH_P64_3 0x165667B19E3779F9ull
#define DEV_XXH_P64_4 0x85EBCA77C2B2AE63ull
#define DEV_XXH_P64_5 0x27D4EB2F165667C5ull

/* Copies libxxhash's default secret into out (host only; defined in xxh3_hd.c). */
#ifdef __cplusplus
extern "C"
#endif
void dev_xxh3_secret(uint8_t out[DEV_XXH3_SECRET_SIZE]);

GV_HD static inline uint64_t dev_xxh_rd64(const uint8_t *p)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    if (((uintptr_t)p & 7) == 0)
        return *(const uint64_t *)p; /* the device is little-endian */
#endif
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

GV_HD static inline uint64_t dev_xxh3_acc_init(int i)
{
    switch (i) {
    case 0: return DEV_XXH_P32_3;
    case 1: return DEV_XXH_P64_1;
    case 2: return DEV_XXH_P64_2;
    case 3: return DEV_XXH_P64_3;
    case 4: return DEV_XXH_P64_4;
    case 5: return DEV_XXH_P32_2;
    case 6: return DEV_XXH_P64_5;
    default: return DEV_XXH_P32_1;
    }
}

/* One stripe's contribution to lane i: the lane receives its neighbour's (i^1) input
 * word plus the 32x32 product of its own input word keyed by the secret. */
GV_HD static inline uint64_t dev_xxh3_stripe_lane(uint64_t acc, const uint8_t *in, const uint8_t *sec, int i)
{
    uint64_t v = dev_xxh_rd64(in + 8 * i);
    uint64_t k = v ^ dev_xxh_rd64(sec + 8 * i);
    acc += dev_xxh_rd64(in + 8 * (i ^ 1));
    acc += (uint64_t)(uint32_t)k * (uint64_t)(uint32_t)(k >> 32);
    return acc;
}

/* Lane i of the long-input loop over len (> 240) bytes. */
GV_HD static inline uint64_t dev_xxh3_lane(const uint8_t *in, size_t len, const uint8_t *sec, int i)
{
    const size_t stripes_per_block = (DEV_XXH3_SECRET_SIZE - 64) / 8;
    const size_t block = 64 * stripes_per_block;
    const size_t nblocks = (len - 1) / block;
    uint64_t acc = dev_xxh3_acc_init(i);
    for (size_t n = 0; n < nblocks; n++) {
        for (size_t s = 0; s < stripes_per_block; s++)
            acc = dev_xxh3_stripe_lane(acc, in + n * block + s * 64, sec + s * 8, i);
        /* scramble */
        acc ^= acc >> 47;
        acc ^= dev_xxh_rd64(sec + DEV_XXH3_SECRET_SIZE - 64 + 8 * i);
        acc *= DEV_XXH_P32_1;
    }
    size_t nstripes = ((len - 1) - block * nblocks) / 64;
    for (size_t s = 0; s < nstripes; s++)
        acc = dev_xxh3_stripe_lane(acc, in + nblocks * block + s * 64, sec + s * 8, i);
    acc = dev_xxh3_stripe_lane(acc, in + len - 64, sec + DEV_XXH3_SECRET_SIZE - 64 - 7, i);
    return acc;
}

GV_HD static inline uint64_t dev_xxh_mul128_fold64(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return (a * b) ^ __umul64hi(a, b);
#elif defined(__HIP_DEVICE_COMPILE__)
    return (a * b) ^ __umul64hi(a, b);
#else
    unsigned __int128 p = (unsigned __int128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#endif
}

GV_HD static inline uint64_t dev_xxh3_merge(const uint64_t acc[8], size_t len, const uint8_t *sec)
{
    uint64_t r = (uint64_t)len * DEV_XXH_P64_1;
    for (int i = 0; i < 4; i++)
        r += dev_xxh_mul128_fold64(acc[2 * i] ^ dev_xxh_rd64(sec + 11 + 16 * i),
                                   acc[2 * i + 1] ^ dev_xxh_rd64(sec + 11 + 16 * i + 8));
    r ^= r >> 37;
    r *= 0x165667919E3779F9ull;
    r ^= r >> 32;
    return r;
}

/* XXH3-64 of len > 240 bytes, sequentially. */
GV_HD static inline uint64_t dev_xxh3_long(const uint8_t *in, size_t len, const uint8_t *sec)
{
    uint64_t acc[8];
    for (int i = 0; i < 8; i++)
        acc[i] = dev_xxh3_lane(in, len, sec, i);
    return dev_xxh3_merge(acc, len, sec);
}

#endif
