/* hash.h: content hashes (xxHash XXH3-64) of framebuffers, sample streams and files. */
#ifndef GV_CORE_HASH_H
#define GV_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t gv_hash64(const void *data, size_t len);

/* Streaming form, for data produced in pieces (audio frame by frame). */
typedef struct gv_hasher gv_hasher;
gv_hasher *gv_hasher_new(void);
void gv_hasher_update(gv_hasher *h, const void *data, size_t len);
uint64_t gv_hasher_digest(const gv_hasher *h);
void gv_hasher_free(gv_hasher *h);

/* "%016llx" of a hash into buf (at least 17 bytes). */
void gv_hash_hex(uint64_t h, char *buf);

#ifdef __cplusplus
}
#endif

#endif
