/* gb_xxh3.h: XXH3-64 (seed 0, default secret) for inputs longer than 240 bytes, written
 * for host and device (GV_HD) so the device can hash its framebuffers and return 8 bytes
 * per frame instead of 69120. The result equals gv_hash64() on the same bytes; the test
 * suite checks this on the host. The 192-byte default secret is passed in (the host
 * takes it from libxxhash's header, see gb_xxh3_secret()).
 *
 * The accumulator has 8 independent 64-bit lanes, so a lane-parallel form (one thread
 * per lane) is provided too: gb_xxh3_lane() runs lane i over the whole input and
 * gb_xxh3_merge() combines the 8 lanes. */
#ifndef GV_EMU_GB_GB_XXH3_H
#define GV_EMU_GB_GB_XXH3_H

#include <stddef.h>
#include <stdint.h>

#include "dev/gpu_common.h" /* GV_HD */

#define GB_XXH3_SECRET_SIZE 192
#define GB_XXH_P32_1 0x9E3779B1u
#define GB_XXH_P32_2 0x85EBCA77u
#define GB_XXH_P32_3 0xC2B2AE3Du
#define GB_XXH_P64_1 0x9E3779B185EBCA87ull
#define GB_XXH_P64_2 0xC2B2AE3D27D4EB4Full
#define GB_XXH_P64_3 0x165667B19E3779F9ull
#define GB_XXH_P64_4 0x85EBCA77C2B2AE63ull
#define GB_XXH_P64_5 0x27D4EB2F165667C5ull

/* Copies libxxhash's default secret into out (host only; defined in gb_xxh3.c). */
#ifdef __cplusplus
extern "C"
#endif
void gb_xxh3_secret(uint8_t out[GB_XXH3_SECRET_SIZE]);

GV_HD static inline uint64_t gb_xxh_rd64(const uint8_t *p)
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

GV_HD static inline uint64_t gb_xxh3_acc_init(int i)
{
    switch (i) {
    case 0: return GB_XXH_P32_3;
    case 1: return GB_XXH_P64_1;
    case 2: return GB_XXH_P64_2;
    case 3: return GB_XXH_P64_3;
    case 4: return GB_XXH_P64_4;
    case 5: return GB_XXH_P32_2;
    case 6: return GB_XXH_P64_5;
    default: return GB_XXH_P32_1;
    }
}

/* One stripe's contribution to lane i: the lane receives its neighbour's (i^1) input
 * word plus the 32x32 product of its own input word keyed by the secret. */
GV_HD static inline uint64_t gb_xxh3_stripe_lane(uint64_t acc, const uint8_t *in, const uint8_t *sec, int i)
{
    uint64_t v = gb_xxh_rd64(in + 8 * i);
    uint64_t k = v ^ gb_xxh_rd64(sec + 8 * i);
    acc += gb_xxh_rd64(in + 8 * (i ^ 1));
    acc += (uint64_t)(uint32_t)k * (uint64_t)(uint32_t)(k >> 32);
    return acc;
}

/* Lane i of the long-input loop over len (> 240) bytes. */
GV_HD static inline uint64_t gb_xxh3_lane(const uint8_t *in, size_t len, const uint8_t *sec, int i)
{
    const size_t stripes_per_block = (GB_XXH3_SECRET_SIZE - 64) / 8;
    const size_t block = 64 * stripes_per_block;
    const size_t nblocks = (len - 1) / block;
    uint64_t acc = gb_xxh3_acc_init(i);
    for (size_t n = 0; n < nblocks; n++) {
        for (size_t s = 0; s < stripes_per_block; s++)
            acc = gb_xxh3_stripe_lane(acc, in + n * block + s * 64, sec + s * 8, i);
        /* scramble */
        acc ^= acc >> 47;
        acc ^= gb_xxh_rd64(sec + GB_XXH3_SECRET_SIZE - 64 + 8 * i);
        acc *= GB_XXH_P32_1;
    }
    size_t nstripes = ((len - 1) - block * nblocks) / 64;
    for (size_t s = 0; s < nstripes; s++)
        acc = gb_xxh3_stripe_lane(acc, in + nblocks * block + s * 64, sec + s * 8, i);
    acc = gb_xxh3_stripe_lane(acc, in + len - 64, sec + GB_XXH3_SECRET_SIZE - 64 - 7, i);
    return acc;
}

GV_HD static inline uint64_t gb_xxh_mul128_fold64(uint64_t a, uint64_t b)
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

GV_HD static inline uint64_t gb_xxh3_merge(const uint64_t acc[8], size_t len, const uint8_t *sec)
{
    uint64_t r = (uint64_t)len * GB_XXH_P64_1;
    for (int i = 0; i < 4; i++)
        r += gb_xxh_mul128_fold64(acc[2 * i] ^ gb_xxh_rd64(sec + 11 + 16 * i),
                                  acc[2 * i + 1] ^ gb_xxh_rd64(sec + 11 + 16 * i + 8));
    r ^= r >> 37;
    r *= 0x165667919E3779F9ull;
    r ^= r >> 32;
    return r;
}

/* XXH3-64 of len > 240 bytes, sequentially. */
GV_HD static inline uint64_t gb_xxh3_long(const uint8_t *in, size_t len, const uint8_t *sec)
{
    uint64_t acc[8];
    for (int i = 0; i < 8; i++)
        acc[i] = gb_xxh3_lane(in, len, sec, i);
    return gb_xxh3_merge(acc, len, sec);
}

#endif
