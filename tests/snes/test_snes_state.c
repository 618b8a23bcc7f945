/* test_snes_state.c: SNES save states of a machine whose CPU runs far ahead of the frame:
 * a program that starts 64 KiB DMAs in a loop (each takes more than a frame) is saved after
 * five frames, loaded into a fresh machine, and both run three more frames: the load must
 * be accepted and the two machines' states and pictures must be the same bytes. (States
 * like this were refused as "impossible" before; fuzz-snes_state's coverage showed it.) */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "emu/snes/snes_int.h"

/* clc xce; lda #$81 sta $4200; loop: inc $2140 lda #$0F sta $2100 inc $210D
 * stz $4305 (64 KiB) lda #$01 sta $420B bra loop; nmi: rti */
static const uint8_t prog[] = {
    0x18, 0xFB, 0xA9, 0x81, 0x8D, 0x00, 0x42, 0xEE, 0x40, 0x21, 0xA9, 0x0F, 0x8D, 0x00, 0x21,
    0xEE, 0x0D, 0x21, 0x9C, 0x05, 0x43, 0xA9, 0x01, 0x8D, 0x0B, 0x42, 0x80, 0xEB, 0x40,
};

int main(void)
{
    static uint8_t rom[0x8000];
    memcpy(rom, prog, sizeof prog);
    uint8_t *h = rom + 0x7FC0;
    memcpy(h, "STATE TEST", 10);
    h[0x15] = 0x20, h[0x16] = 0x02, h[0x17] = 5, h[0x18] = 1;
    h[0x3C] = 0x00, h[0x3D] = 0x80;
    h[0x2A] = (uint8_t)(sizeof prog - 1), h[0x2B] = 0x80;
    snes_rom_sign(rom, sizeof rom, 0x7FC0);
    snes_cart *c = NULL;
    gv_err e = {0};
    gv_status lst = snes_cart_load(rom, sizeof rom, "state.sfc", &c, &e);
    if (!t_check(lst == GV_OK, "cart", "a 32 KiB LoROM built here: %s", lst == GV_OK ? "loaded" : e.msg))
        return t_done();
    snes *a, *b;
    snes_new(c, SNES_OUT_VIDEO | SNES_OUT_AUDIO, &a, &e);
    snes_new(c, SNES_OUT_VIDEO | SNES_OUT_AUDIO, &b, &e);
    for (int f = 0; f < 5; f++)
        snes_run_frame(a);
    unsigned long long ahead = (unsigned long long)(a->cpu.s.clock - a->s.frame_start);
    uint8_t *st, *sa, *sb;
    size_t n, na, nb;
    snes_state_save(a, &st, &n, &e);
    gv_status r = snes_state_load(b, st, n, &e);
    t_check(r == GV_OK && ahead > SNES_FRAME_CLOCKS / 2, "load far ahead",
            "CPU %llu master clocks past the frame's start (a DMA of 64 KiB); load status %d %s", ahead, r,
            r ? e.msg : "");
    for (int f = 0; f < 3; f++)
        snes_run_frame(a), snes_run_frame(b);
    snes_state_save(a, &sa, &na, &e);
    snes_state_save(b, &sb, &nb, &e);
    t_check(na == nb && !memcmp(sa, sb, na) && !memcmp(snes_native_fb(a), snes_native_fb(b), SNES_W * SNES_H * 3),
            "continue after load", "3 more frames: states of %zu and %zu bytes %s, last pictures %s", na, nb,
            na == nb && !memcmp(sa, sb, na) ? "equal" : "differ",
            !memcmp(snes_native_fb(a), snes_native_fb(b), SNES_W * SNES_H * 3) ? "equal" : "differ");
    free(st), free(sa), free(sb);
    snes_free(a), snes_free(b);
    snes_cart_free(c);
    return t_done();
}
