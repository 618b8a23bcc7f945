/* m3_test.c: gpuvet's test ROM for register writes during mode 3 (DMG). The BG shows
 * tiles whose pixels tell their tile and data set apart; every line from 8 to 135 writes
 * one register (BGP, SCX, LCDC's tile-data bit or SCY, 32 lines each) at a dot that moves
 * by one M-cycle a line; the next line's mode 2 restores it. Lines 136-143 write BGP over
 * the window at WX=0 (its own map at $9C00, one plain tile) with SCX = LY % 8, set with LCDC
 * in their mode 2. Lines 1-7 show the window at WX=0 too and write WX (a window tile's
 * first pixel on some lines). The writes come from a HALT (IME
 * off) woken by the line's mode-2 interrupt, so their dots are fixed. m3.py describes the
 * ROM (the tables come from it) and checks the picture. */
#include "common.h"
#include "m3_data.h"

static void copy(volatile uint8_t *dst, const uint8_t *src, uint16_t n)
{
    while (n--)
        *dst++ = *src++;
}

/* Per line: HALT until the mode-2 interrupt (the line's dot 4); SCY, WX, BGP, SCX and LCDC get
 * the line's base values (mode 2: no effect on the picture; SCX from d, LCDC from e); a jump
 * into a slide of 31
 * NOPs runs LY % 32 of them, 2 more, then the line's write (its M-cycle 26 + LY % 32
 * M-cycles after the wake-up, at dot 108 + 4 * (LY % 32)). Then the next line's entry in
 * m3_line (register, value, SCX, LCDC, NOPs to skip) is looked up and IF is cleared. */
static void run(void) __naked
{
    __asm
        di
        ld c, #0x80
        jp 00003$
    00001$:
        halt
        ld b, a
        ld a, #M3_BGP0
        ldh (0x47), a
        xor a, a
        ldh (0x42), a
        ldh (0x4B), a
        ld a, d
        ldh (0x43), a
        ld a, e
        ldh (0x40), a
        ld a, b
        jp (hl)
    00002$:
        .rept 31
        nop
        .endm
        .rept 2
        nop
        .endm
        ldh (c), a
    00003$:
        ldh a, (0x44)
        inc a
        ld l, a
        ld h, #0
        add hl, hl
        add hl, hl
        add hl, hl
        ld de, #_m3_line
        add hl, de
        ld a, (hl+)
        ld c, a
        ld a, (hl+)
        ld b, a
        ld a, (hl+)
        ld d, a
        ld a, (hl+)
        ld e, a
        ld a, (hl)
        add a, #<00002$
        ld l, a
        ld a, #>00002$
        adc a, #0
        ld h, a
        xor a, a
        ldh (0x0F), a
        ld a, b
        jp 00001$
    __endasm;
}

void main(void)
{
    lcd_off();
    copy(VRAM, m3_tiles, sizeof m3_tiles);
    copy(VRAM + 0x1000, m3_tiles9, sizeof m3_tiles9);
    copy(VRAM + 0x1800, m3_bgmap, sizeof m3_bgmap);
    for (uint8_t i = 0; i < 16; i++)
        VRAM[M3_WTILE * 16 + i] = 0xFF; /* the window's tile: colour 3 */
    for (uint16_t i = 0; i < 0x400; i++)
        VRAM[0x1C00 + i] = M3_WTILE;
    for (uint8_t i = 0; i < 160; i++)
        OAM[i] = 0;
    rBGP = M3_BGP0;
    rSCX = 0;
    rSCY = 0;
    rWY = 0;
    rWX = 0;
    rSTAT = 0x20;
    rIE = 0x02;
    rLCDC = M3_LCDC0;
    run();
}
