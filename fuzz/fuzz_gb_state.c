/* fuzz_gb_state.c: libFuzzer target for save-state loading. A fixed small program (a
 * timer, two sound channels, VRAM writes) is the cartridge. Each input goes to
 * gb_state_load as is; then its payload checksum is recomputed so that mutated states
 * also reach the field validation, and when the state is accepted the machine runs two
 * frames from it with every output. Nothing may crash, hang or read out of bounds.
 *   make fuzz-gb_state FUZZ_SECONDS=300 */
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/gb/gb.h"
#include "emu/gb/gb_int.h"

static const uint8_t prog[] = {
    0x3E, 0x05, 0xE0, 0x07, 0x3E, 0x80, 0xE0, 0x26, 0x3E, 0x77, 0xE0, 0x24, 0x3E, 0xFF, 0xE0, 0x25,
    0x3E, 0xF0, 0xE0, 0x12, 0x3E, 0x80, 0xE0, 0x11, 0x3E, 0x87, 0xE0, 0x14, 0x3E, 0xF0, 0xE0, 0x21,
    0x3E, 0x24, 0xE0, 0x22, 0x3E, 0x80, 0xE0, 0x23, 0x21, 0x00, 0x80, 0xF0, 0x44, 0xFE, 0x90, 0x20,
    0xFA, 0xF0, 0x05, 0x22, 0xE0, 0x13, 0x7D, 0xE6, 0x0F, 0x6F, 0xF0, 0x44, 0xFE, 0x90, 0x28, 0xFA,
    0x18, 0xE9,
};

static gb_cart *cart;

static gb_cart *make_cart(void)
{
    static uint8_t rom[32768];
    rom[0x100] = 0x00, rom[0x101] = 0xC3, rom[0x102] = 0x50, rom[0x103] = 0x01;
    memcpy(rom + 0x134, "STATEFUZZ", 9);
    rom[0x143] = 0x80;
    rom[0x147] = 0x13; /* MBC3+RAM+BATTERY: cartridge RAM is part of the state */
    rom[0x149] = 0x02;
    uint8_t x = 0;
    for (int i = 0x134; i <= 0x14C; i++)
        x = (uint8_t)(x - rom[i] - 1);
    rom[0x14D] = x;
    memcpy(rom + 0x150, prog, sizeof prog);
    gb_cart *c = NULL;
    gv_err e;
    gb_cart_load(rom, sizeof rom, "state-fuzz", &c, &e);
    return c;
}

static void try_state(const uint8_t *d, size_t n, gb_model m)
{
    gb *g;
    gv_err e;
    if (gb_new(cart, m, GB_OUT_VIDEO_NATIVE | GB_OUT_VIDEO_LOG | GB_OUT_AUDIO_NATIVE, &g, &e) != GV_OK)
        return;
    if (gb_state_load(g, d, n, &e) == GV_OK)
        for (int f = 0; f < 2; f++)
            gb_run_frame(g);
    gb_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cart)
        cart = make_cart();
    try_state(data, size, GB_MODEL_CGB);
    if (size > 40) {
        uint8_t *d = malloc(size);
        memcpy(d, data, size);
        uint64_t h = gv_hash64(d + 40, size - 40);
        for (int i = 0; i < 8; i++)
            d[32 + i] = (uint8_t)(h >> (8 * i));
        try_state(d, size, GB_MODEL_CGB);
        try_state(d, size, GB_MODEL_DMG);
        free(d);
    }
    return 0;
}
