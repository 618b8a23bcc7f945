/* xxh3_hd.c: hands libxxhash's default XXH3 secret to the portable XXH3 of xxh3_hd.h
 * (the library keeps it in its header only). */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "dev/xxh3_hd.h"

void dev_xxh3_secret(uint8_t out[DEV_XXH3_SECRET_SIZE])
{
    memcpy(out, XXH3_kSecret, DEV_XXH3_SECRET_SIZE);
}
