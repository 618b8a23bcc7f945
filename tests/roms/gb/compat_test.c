/* compat_test.c: gpuvet's test ROM for a DMG cartridge (header $0143 = $00), run on the
 * DMG and on the CGB, where it runs in the CGB's DMG compatibility mode (Pan Docs,
 * "Power Up Sequence: Compatibility palettes", "CGB Registers"). Checks, and reports over
 * serial with the register signature:
 *  - A at boot: $11 on the CGB (the hardware), $01 on the DMG (the first line printed
 *    names the model it found: test_gb_roms.sh compares it with --model);
 *  - the CGB-mode registers read $FF (KEY1, VBK, HDMA5, BCPS/BCPD, OCPS/OCPD, OPRI, SVBK,
 *    PCM12) and do nothing: no WRAM or VRAM banking, palette RAM writes lost;
 *  - the hardware is still the CGB's: no OAM corruption bug, wave RAM read while
 *    channel 3 plays gives the byte it reads (the DMG: corruption, $FF).
 * Then it shows a picture for compat.py to check: BG stripes of colours 0-3 through
 * BGP $D2, and two overlapping objects (OBP0 colour 1 at X 60, OBP1 colour 2 at X 56,
 * OAM order 0 then 1) whose overlap shows the one with the smaller X (DMG priority), in
 * the DMG's greys or, on the CGB, the compatibility palettes. */
#include "common.h"

static const uint8_t cgb_regs[] = {0x4D, 0x4F, 0x55, 0x68, 0x69, 0x6A, 0x6B, 0x6C, 0x70, 0x76};

static void test_regs(void)
{
    uint8_t bad = 0;
    for (uint8_t i = 0; i < sizeof cgb_regs; i++)
        if (REG(0xFF00 | cgb_regs[i]) != 0xFF) {
            bad++;
            ser_puts("register FF");
            ser_hex8(cgb_regs[i]);
            ser_puts(" reads ");
            ser_hex8(REG(0xFF00 | cgb_regs[i]));
            ser_putc('\n');
        }
    check(bad == 0, "CGB-mode registers read $FF", bad, 0);
    volatile uint8_t *d = (volatile uint8_t *)0xD000;
    rSVBK = 2;
    *d = 0x22;
    rSVBK = 3;
    *d = 0x33;
    rSVBK = 2;
    check(*d == 0x33, "no WRAM banks", *d, 0x33);
    lcd_off();
    rVBK = 1;
    VRAM[0] = 0xA5;
    rVBK = 0;
    check(VRAM[0] == 0xA5, "no VRAM banks", VRAM[0], 0xA5);
    rBCPS = 0x80;
    for (uint8_t i = 0; i < 8; i++)
        rBCPD = 0x00; /* would turn BG palette 0 black in CGB mode: lost here */
}

static void oam_inc_de(void) __naked
{
    __asm
        ld de, #0xFE00
    1$:
        ldh a, (0x41)
        and a, #3
        jr nz, 1$
    2$:
        ldh a, (0x41)
        and a, #3
        cp a, #2
        jr nz, 2$
        inc de
        ret
    __endasm;
}

static void test_hardware(void)
{
    lcd_off();
    for (uint8_t i = 0; i < 160; i++)
        OAM[i] = (uint8_t)(i * 37 + 11);
    rLCDC = 0x81;
    wait_vblank();
    oam_inc_de();
    lcd_off();
    uint8_t changed = 0;
    for (uint8_t i = 0; i < 160; i++)
        if (OAM[i] != (uint8_t)(i * 37 + 11))
            changed++;
    check(IS_CGB() ? changed == 0 : changed != 0, IS_CGB() ? "no OAM bug on the CGB" : "OAM bug on the DMG", changed,
          0);
    rNR52 = 0;
    rNR52 = 0x80;
    rNR51 = 0;
    for (uint8_t i = 0; i < 16; i++)
        WAVE_RAM[i] = (uint8_t)(0x10 + i);
    rNR30 = 0x80;
    rNR32 = 0x00;
    rNR33 = 0x00;
    rNR34 = 0x87;
    uint8_t rd = WAVE_RAM[15];
    rNR30 = 0;
    check(rd == (IS_CGB() ? 0x10 : 0xFF), "wave RAM while channel 3 plays", rd, IS_CGB() ? 0x10 : 0xFF);
}

static void picture(void)
{
    lcd_off();
    for (uint8_t t = 0; t < 6; t++) { /* tile t: solid colour t & 3 (tile 4: 1, tile 5: 2) */
        uint8_t c = t < 4 ? t : (uint8_t)(t - 3);
        for (uint8_t r = 0; r < 8; r++) {
            VRAM[t * 16 + r * 2] = (c & 1) ? 0xFF : 0x00;
            VRAM[t * 16 + r * 2 + 1] = (c & 2) ? 0xFF : 0x00;
        }
    }
    volatile uint8_t *map = (volatile uint8_t *)0x9800;
    for (uint16_t i = 0; i < 32 * 18; i++)
        map[i] = (uint8_t)((i & 31) / 5 < 4 ? (i & 31) / 5 : 0);
    for (uint8_t i = 0; i < 160; i++)
        OAM[i] = 0;
    OAM[0] = 16 + 80, OAM[1] = 8 + 60, OAM[2] = 4, OAM[3] = 0x00;
    OAM[4] = 16 + 80, OAM[5] = 8 + 56, OAM[6] = 5, OAM[7] = 0x10;
    rSCX = 0;
    rSCY = 0;
    rBGP = 0xD2;
    rOBP0 = 0xE4;
    rOBP1 = 0xE4;
    rLCDC = 0x93;
}

void main(void)
{
    ser_puts(IS_CGB() ? "compat_test CGB\n" : "compat_test DMG\n");
    rIE = 0;
    test_regs();
    test_hardware();
    picture();
    report_checks();
}
