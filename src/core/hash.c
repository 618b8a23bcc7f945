/* hash.c: thin wrapper over libxxhash (Debian's libxxhash-dev). */
#include "core/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <xxhash.h>

#include "core/gv.h"

struct gv_hasher {
    XXH3_state_t *st;
};

uint64_t gv_hash64(const void *data, size_t len)
{
    return XXH3_64bits(data, len);
}

gv_hasher *gv_hasher_new(void)
{
    gv_hasher *h = gv_xmalloc(sizeof *h);
    h->st = XXH3_createState();
    if (!h->st) {
        fprintf(stderr, "gpuvet: out of memory creating a hash state\n");
        exit(GV_EXIT_ENV);
    }
    XXH3_64bits_reset(h->st);
    return h;
}

void gv_hasher_update(gv_hasher *h, const void *data, size_t len)
{
    XXH3_64bits_update(h->st, data, len);
}

uint64_t gv_hasher_digest(const gv_hasher *h)
{
    return XXH3_64bits_digest(h->st);
}

void gv_hasher_free(gv_hasher *h)
{
    if (!h)
        return;
    XXH3_freeState(h->st);
    free(h);
}

void gv_hash_hex(uint64_t h, char *buf)
{
    snprintf(buf, 17, "%016llx", (unsigned long long)h);
}
