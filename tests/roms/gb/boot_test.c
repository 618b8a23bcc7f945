/* boot_test.c: gpuvet's test ROM for VRAM as the boot ROM leaves it (Pan Docs, "Power Up
 * Sequence"), before the ROM has touched it: the header's logo ($0104-$0133; gbfix.py
 * --logo puts a pattern of ours there) unpacked into tiles 1-24 ($8010-$818F), each byte
 * four rows of colour 1, its high nibble the first two, every bit two pixels wide; on the
 * DMG the ® as tile 25 and the logo's tile map (tiles 1-12 at $9904, 25 at $9910, 13-24
 * at $9924); on the CGB no ®, and that map only for a DMG cartridge whose title checksum
 * (the B register it leaves: the sum of the title's 16 bytes when the licensee is
 * Nintendo, else 0) is $43 or $58; everything else zero. Built three times (build.sh):
 * boot_test.gb (a DMG cartridge of another licensee), boot_map_test.gb (a DMG cartridge,
 * licensee $01, title "C": checksum $43) and boot_cgb_test.gb (a CGB cartridge). Reports
 * over serial with the register signature. */
#include "common.h"

#define HEADER ((const volatile uint8_t *)0x0100)

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
    report_checks();
}
