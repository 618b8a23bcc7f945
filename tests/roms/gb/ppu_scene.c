/* ppu_scene.c: gpuvet's PPU scene ROM (DMG and CGB). Loads the scene of scene.py (tiles,
 * BG and window maps, CGB attributes and palettes, 40 objects in 8x16 mode, 12 of them on
 * the same lines), then runs with two mid-frame changes made in HBlank from the LYC
 * interrupt: SCX changes after line 71, the window is off for lines 110-119. The test
 * compares the picture with the one scene.py computes from the same description. */
#include "common.h"
#include "scene_data.h"

static void copy(volatile uint8_t *dst, const uint8_t *src, uint16_t n)
{
    while (n--)
        *dst++ = *src++;
}

static void on_stat(void)
{
    uint8_t ly = rLY;
    while (rSTAT & 3) /* wait for HBlank of this line */
        ;
    if (ly == LYC_SCX) {
        rSCX = SCX1;
        rLYC = LYC_WOFF;
    } else if (ly == LYC_WOFF) {
        rLCDC = LCDC0 & ~0x20;
        rLYC = LYC_WON;
    } else {
        rLCDC = LCDC0;
        rLYC = LYC_SCX;
    }
}

static void on_vblank(void)
{
    rSCX = SCX0;
}

void main(void)
{
    lcd_off();
    copy(VRAM, tiles0, sizeof tiles0);
    copy(VRAM + 0x1800, bgmap, sizeof bgmap);
    copy(VRAM + 0x1C00, winmap, sizeof winmap);
    copy(OAM, oam_init, sizeof oam_init);
    if (IS_CGB()) {
        rVBK = 1;
        copy(VRAM, tiles1, sizeof tiles1);
        copy(VRAM + 0x1800, bgattr, sizeof bgattr);
        for (uint16_t i = 0; i < 0x400; i++) /* window map attributes: zero */
            VRAM[0x1C00 + i] = 0;
        rVBK = 0;
        rBCPS = 0x80;
        for (uint8_t i = 0; i < 64; i++)
            rBCPD = cgb_bgpal[i];
        rOCPS = 0x80;
        for (uint8_t i = 0; i < 64; i++)
            rOCPD = cgb_obpal[i];
    }
    rBGP = BGP0;
    rOBP0 = OBP00;
    rOBP1 = OBP10;
    rSCX = SCX0;
    rSCY = SCY0;
    rWX = WX0;
    rWY = WY0;
    rLYC = LYC_SCX;
    rSTAT = 0x40;
    hook_stat = on_stat;
    hook_vblank = on_vblank;
    rIF = 0;
    rIE = 0x03;
    rLCDC = LCDC0;
    __asm
        ei
    __endasm;
    for (;;) {
        __asm
            halt
            nop
        __endasm;
    }
}
