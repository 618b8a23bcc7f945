/* fuzz_snes_state.c: libFuzzer target for SNES save-state loading. The cartridge is a small
 * program made here (NMI on, DMA of its own code to VRAM, a CPU loop writing the PPU and the
 * sound ports). Each input goes to snes_state_load as is; then its payload checksum is
 * recomputed so that mutated states also reach the field validation, and when a state is
 * accepted the machine runs two frames from it with every output. Nothing may crash, hang
 * or read out of bounds. The seed is a state this target saves itself: run it once with
 * SNES_FUZZ_SEED=FILE to write one.
 *   make fuzz-snes_state FUZZ_SECONDS=600 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "emu/snes/snes_int.h"

/* clc xce; lda #$81 sta $4200; loop: inc $2140 lda #$0F sta $2100 inc $210D
 * lda #$01 sta $420B (DMA channel 0, registers as reset left them) bra loop; nmi: rti */
static const uint8_t prog[] = {
    0x18, 0xFB, 0xA9, 0x81, 0x8D, 0x00, 0x42, 0xEE, 0x40, 0x21, 0xA9, 0x0F, 0x8D, 0x00, 0x21,
    0xEE, 0x0D, 0x21, 0x9C, 0x05, 0x43, 0xA9, 0x01, 0x8D, 0x0B, 0x42, 0x80, 0xEB, 0x40,
};

static snes_cart *cart;

static snes_cart *make_cart(void)
{
    static uint8_t rom[0x8000];
    memcpy(rom, prog, sizeof prog);
    uint8_t *h = rom + 0x7FC0;
    memcpy(h, "STATE FUZZ", 10);
    h[0x15] = 0x20, h[0x16] = 0x02, h[0x17] = 5, h[0x18] = 1;
    h[0x3C] = 0x00, h[0x3D] = 0x80;
    h[0x2A] = (uint8_t)(sizeof prog - 1), h[0x2B] = 0x80; /* native NMI: the rti */
    snes_rom_sign(rom, sizeof rom, 0x7FC0);
    snes_cart *c = NULL;
    gv_err e;
    snes_cart_load(rom, sizeof rom, "state-fuzz", &c, &e);
    return c;
}

static void try_state(const uint8_t *d, size_t n)
{
    snes *m;
    gv_err e;
    if (snes_new(cart, SNES_OUT_VIDEO | SNES_OUT_VIDEO_LOG | SNES_OUT_AUDIO, &m, &e) != GV_OK)
        return;
    if (snes_state_load(m, d, n, &e) == GV_OK)
        for (int f = 0; f < 2; f++)
            snes_run_frame(m);
    snes_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cart) {
        cart = make_cart();
        const char *seed = getenv("SNES_FUZZ_SEED");
        snes *m;
        gv_err e;
        uint8_t *st;
        size_t n;
        if (seed && snes_new(cart, SNES_OUT_VIDEO, &m, &e) == GV_OK) {
            for (int f = 0; f < 5; f++)
                snes_run_frame(m);
            if (snes_state_save(m, &st, &n, &e) == GV_OK) {
                FILE *f = fopen(seed, "wb");
                if (f) {
                    fwrite(st, 1, n, f);
                    fclose(f);
                }
                free(st);
            }
            snes_free(m);
        }
    }
    try_state(data, size);
    if (size > 40) {
        uint8_t *d = malloc(size);
        memcpy(d, data, size);
        uint64_t h = gv_hash64(d + 40, size - 40);
        for (int i = 0; i < 8; i++)
            d[32 + i] = (uint8_t)(h >> (8 * i));
        try_state(d, size);
        free(d);
    }
    return 0;
}
