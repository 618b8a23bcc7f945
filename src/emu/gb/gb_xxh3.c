/* gb_xxh3.c: hands libxxhash's default XXH3 secret to the portable XXH3 of gb_xxh3.h
 * (the library keeps it in its header only). */
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "emu/gb/gb_xxh3.h"

void gb_xxh3_secret(uint8_t out[GB_XXH3_SECRET_SIZE])
{
    memcpy(out, XXH3_kSecret, GB_XXH3_SECRET_SIZE);
}
