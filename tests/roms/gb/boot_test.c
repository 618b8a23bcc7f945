/* boot_test.c: gpuvet's test ROM for VRAM as the boot ROM leaves it (Pan Docs, "Power Up
 * Sequence"), before the ROM has touched it: the header's logo ($0104-$0133; gbfix.py
 * --logo puts a pattern of ours there) unpacked into tiles 1-24 ($8010-$818F), each byte
 * four rows of colour 1, its high nibble the first two, every bit two pixels wide; on the
 * DMG the ® as tile 25 and the logo's tile map (tiles 1-12 at $9904, 25 at $9910, 13-24
 * at $9924); on the CGB no ®, and that map only for a DMG cartridge whose title checksum
 * (the B register it leaves: the sum of the title's 16 bytes when the licensee is
 * Nintendo, else 0) is $43 or $58; everything else zero. Built three times (build.sh):
 * boot_test.gb (a DMG cartridge of another licensee), boot_map_test.gb (a DMG cartridge,
 * licensee $01, title "C": checksum $43) and boot_cgb_test.gb (a CGB cartridge). Also DIV
 * as the boot ROM leaves it (div_entry), where it is documented. Reports over serial with
 * the register signature. */
#include "common.h"

#define HEADER ((const volatile uint8_t *)0x0100)
/* what div_entry (at $01B0) pushed: DIV six times, at SP $FFFE */
#define DIV_READ(i) REG(0xFFFD - 2 * (i))

/* Entered from $0100 (gbfix.py --entry 0x01B0 makes its JP come here) before crt0's start,
 * in M-cycle 5 after the boot ROM's hand-over ($0100's NOP is M-cycle 0, its JP 1-4):
 * reads DIV six times, as mooneye's boot_div tests do, first in M-cycle 13 (A = $01: the
 * DMG) or 34 (A = $11: the CGB), then 64, 63, 64, 64 and 65 M-cycles apart, pushing each
 * read; then on to start with A kept. Placed at $01B0, between crt0's code and $0200. */
static void div_entry_code(void) __naked
{
    __asm
        .area _BOOTDIV (ABS)
        .org 0x01B0
    div_entry::
        ld c, a             ; 5
        cp a, #0x11         ; 6, 7
        jr z, 2$            ; 8, 9 (10 when taken)
        nop                 ; 10
    1$:
        ldh a, (0x04)       ; read in 13 (CGB: 34)
        push af
        ld b, #14           ; 57 M-cycles
    3$:
        dec b
        jr nz, 3$
        ldh a, (0x04)
        push af
        ld b, #13           ; 53 + 3
    4$:
        dec b
        jr nz, 4$
        nop
        nop
        nop
        ldh a, (0x04)
        push af
        ld b, #14
    5$:
        dec b
        jr nz, 5$
        ldh a, (0x04)
        push af
        ld b, #14
    6$:
        dec b
        jr nz, 6$
        ldh a, (0x04)
        push af
        ld b, #14           ; 57 + 1
    7$:
        dec b
        jr nz, 7$
        nop
        ldh a, (0x04)
        push af
        ld a, c
        jp 0x0150           ; start, in crt0
    2$:
        ld b, #4            ; 11 to 27
    8$:
        dec b
        jr nz, 8$
        nop                 ; 28
        jr 1$               ; 29 to 31
        .area _CODE
    __endasm;
}

/* the ® of the DMG's boot ROM, row by row */
static const uint8_t reg_mark[8] = {0x3C, 0x42, 0xB9, 0xA5, 0xB9, 0xA5, 0x42, 0x3C};

static uint8_t widen(uint8_t n)
{
    uint8_t r = 0;
    for (uint8_t i = 0; i < 4; i++) {
        r <<= 2;
        if (n & 8)
            r |= 3;
        n <<= 1;
    }
    return r;
}

/* What the byte at $8000 + a should hold. */
static uint8_t want_at(uint16_t a, uint8_t dmg, uint8_t map)
{
    if (a >= 0x10 && a < 0x190) {
        uint8_t k = a & 7, b = HEADER[4 + ((a - 0x10) >> 3)];
        if (k & 1)
            return 0;
        return widen(k < 4 ? b >> 4 : b & 15);
    }
    if (a >= 0x190 && a < 0x1A0)
        return dmg && !(a & 1) ? reg_mark[(a - 0x190) >> 1] : 0;
    if (map && a >= 0x1904 && a < 0x1910)
        return (uint8_t)(a - 0x1904 + 1);
    if (map && a == 0x1910)
        return 25;
    if (map && a >= 0x1924 && a < 0x1930)
        return (uint8_t)(a - 0x1924 + 13);
    return 0;
}

void main(void)
{
    uint8_t dmg = !IS_CGB(), compat = IS_CGB() && !(HEADER[0x43] & 0x80);
    uint8_t sum = 0;
    for (uint8_t i = 0x34; i < 0x44; i++)
        sum += HEADER[i];
    /* the licensee is Nintendo: old code $01, or $33 and new code "01" */
    uint8_t nintendo = HEADER[0x4B] == 0x33 ? HEADER[0x44] == '0' && HEADER[0x45] == '1' : HEADER[0x4B] == 0x01;
    uint8_t b = nintendo ? sum : 0;
    uint8_t map = dmg || (compat && (b == 0x43 || b == 0x58));
    ser_puts(dmg ? "boot_test DMG" : compat ? "boot_test CGB, DMG cartridge" : "boot_test CGB");
    ser_puts(map ? ", logo map\n" : "\n");
    lcd_off(); /* VRAM is readable outside mode 3 */
    uint16_t bad = 0;
    for (uint16_t a = 0; a < 0x2000; a++) {
        uint8_t got = VRAM[a], want = want_at(a, dmg, map);
        if (got != want && bad++ < 8) {
            ser_puts("at ");
            ser_hex16(0x8000 + a);
            ser_putc(' ');
            check(0, "VRAM", got, want);
        }
    }
    check(bad == 0, "VRAM bytes wrong (up to 255)", bad > 255 ? 255 : (uint8_t)bad, 0);
    /* DIV after the boot ROM, its value and phase as mooneye's boot_div-dmgABCmgb (DMG) and
     * boot_div-cgbABCDE (CGB, a DMG cartridge of another licensee than Nintendo: the boot
     * ROM's duration depends on the header) measure them: the first read right after an
     * increment, the third and fourth right before one, the sixth right after one again. */
    static const uint8_t div_dmg[6] = {0xAC, 0xAD, 0xAD, 0xAE, 0xAF, 0xB1};
    static const uint8_t div_cgb[6] = {0x27, 0x28, 0x28, 0x29, 0x2A, 0x2C};
    const uint8_t *want = dmg ? div_dmg : compat && !nintendo ? div_cgb : 0;
    for (uint8_t i = 0; want && i < 6; i++)
        check(DIV_READ(i) == want[i], "DIV read after the boot", DIV_READ(i), want[i]);
    report_checks();
}
