/* emu_state.c: the save-state head of emu_state.h. */
#include "emu/common/emu_state.h"

#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

void emu_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    emu_put32(p, (uint32_t)v);
    emu_put32(p + 4, (uint32_t)(v >> 32));
}

uint32_t emu_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint64_t emu_get64(const uint8_t *p)
{
    return (uint64_t)emu_get32(p) | ((uint64_t)emu_get32(p + 4) << 32);
}

uint8_t *emu_state_new(size_t payload, const char magic[8], uint32_t version, uint32_t w0, uint32_t w1, uint32_t w2,
                       uint64_t rom_hash)
{
    uint8_t *b = calloc(1, EMU_STATE_HEAD + payload);
    if (!b)
        return NULL;
    memcpy(b, magic, 8);
    emu_put32(b + 8, version);
    emu_put32(b + 12, w0);
    emu_put32(b + 16, w1);
    emu_put32(b + 20, w2);
    put64(b + 24, rom_hash);
    return b;
}

void emu_state_seal(uint8_t *b, size_t n)
{
    put64(b + 32, gv_hash64(b + EMU_STATE_HEAD, n - EMU_STATE_HEAD));
}

int emu_state_sealed(const uint8_t *b, size_t n)
{
    return emu_get64(b + 32) == gv_hash64(b + EMU_STATE_HEAD, n - EMU_STATE_HEAD);
}
