/* m3_test.c: gpuvet's test ROM for register writes during mode 3 (DMG). The BG shows
 * tiles whose pixels tell their tile and data set apart; every line from 8 to 135 writes
 * one register (BGP, SCX, LCDC's tile-data bit or SCY, 32 lines each) at a dot that moves
 * by one M-cycle a line; the next line's mode 2 restores it. Lines 136-143 write BGP over
 * the window at WX=0 (its own map at $9C00, one plain tile) with SCX = LY % 8, set with LCDC
 * in their mode 2. Lines 1-7 show the window at WX=0 too and write WX (a window tile's
 * first pixel on some lines). The writes come from a HALT (IME
 * off) woken by the line's mode-2 interrupt, so their dots are fixed. m3.py describes the
 * ROM (the tables come from it) and checks the picture.
 *
 * Built with M3W defined it is m3w_test, LCDC written as the fetcher reads it for the
 * window's first tiles and for objects: lines 0-71 show the window from the line's start
 * (WX=7) over an object at X = 0-7 (or none) and set its map or tile-data bit (two lines
 * of each 8 show the BG and clear LCDC.0 as the first pixels take their colours), lines
 * 72-119 show 8x16 objects and set the 8x8 size, lines 120-135 clear LCDC.5 as the
 * window begins and goes on, lines 136-143 write WX as the window would begin; only LCDC
 * is set in mode 2 (m3.py, "m3w_test"). */
#include "common.h"
#ifdef M3W
#include "m3w_data.h"
#else
#include "m3_data.h"
#endif

static void copy(volatile uint8_t *dst, const uint8_t *src, uint16_t n)
{
    while (n--)
        *dst++ = *src++;
}

#ifdef M3W
static void fill(volatile uint8_t *dst, uint8_t v, uint16_t n)
{
    while (n--)
        *dst++ = v;
}
#endif

/* Per line: HALT until the mode-2 interrupt (the line's dot 4); SCY, WX, BGP, SCX and LCDC get
 * the line's base values (mode 2: no effect on the picture; SCX from d, LCDC from e); a jump
 * into a slide of 31
 * NOPs runs LY % 32 of them, 2 more, then the line's write (its M-cycle 26 + LY % 32
 * M-cycles after the wake-up, at dot 108 + 4 * (LY % 32)). Then the next line's entry in
 * m3_line (register, value, SCX, LCDC, NOPs to skip) is looked up and IF is cleared.
 * m3w_test sets LCDC alone in mode 2 and runs M3_SLIDE_END NOPs after the slide (m3.py). */
static void run(void) __naked
{
    __asm
        di
        ld c, #0x80
        jp 00003$
    00001$:
        halt
        ld b, a
#ifndef M3W
        ld a, #M3_BGP0
        ldh (0x47), a
        xor a, a
        ldh (0x42), a
        ldh (0x4B), a
        ld a, d
        ldh (0x43), a
#endif
        ld a, e
        ldh (0x40), a
        ld a, b
        jp (hl)
    00002$:
        .rept 31
        nop
        .endm
        .rept M3_SLIDE_END
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
#ifdef M3W
    fill(VRAM, 0xFF, 16); /* tile 0 at $8000: black */
    copy(VRAM + 0x10, m3_objtiles, sizeof m3_objtiles); /* tiles 1-4: the window's, the objects' */
    fill(VRAM + 0x1000, 0x00, 16); /* tile 0 at $9000: white */
    fill(VRAM + 0x1010, 0xFF, 16); /* tile 1 at $9000: black */
    fill(VRAM + 0x1800, 0, 0x400);
    fill(VRAM + 0x1C00, 1, 0x400);
    fill(OAM, 0, 160);
    copy(OAM, m3_oam, sizeof m3_oam);
    rBGP = M3_BGP0;
    rOBP0 = M3_BGP0;
    rWY = 0;
    rWX = 7;
#else
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
#endif
    rSTAT = 0x20;
    rIE = 0x02;
    rLCDC = M3_LCDC0;
    run();
}
