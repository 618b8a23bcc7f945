/* battery_test.c: gpuvet's cartridge test ROM (MBC5 + RAM + battery, 1 MiB ROM, 32 KiB
 * RAM). Checks that each of the 64 ROM banks appears at $4000 when selected (gbfix.py
 * tags each bank with its number) and that RAM banks are distinct, then counts boots in
 * battery RAM: it prints "boot N" where N is one more than the count it found. */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define SRAM ((volatile uint8_t *)0xA000)

void main(void)
{
    uint8_t ok = 1;
    for (uint8_t b = 1; b < 64; b++) {
        MBC(0x2000) = b;
        MBC(0x3000) = 0;
        if (*(volatile uint8_t *)0x7FFE != b || *(volatile uint8_t *)0x7FFF != 0) {
            ok = 0;
            ser_puts("FAIL rom bank ");
            ser_hex8(b);
            ser_putc('\n');
        }
    }
    MBC(0x2000) = 1;
    MBC(0x0000) = 0x0A; /* RAM on */
    for (uint8_t b = 1; b < 4; b++) {
        MBC(0x4000) = b;
        SRAM[0x100] = (uint8_t)(0xB0 + b);
    }
    for (uint8_t b = 1; b < 4; b++) {
        MBC(0x4000) = b;
        if (SRAM[0x100] != (uint8_t)(0xB0 + b)) {
            ok = 0;
            ser_puts("FAIL ram bank\n");
        }
    }
    MBC(0x4000) = 0;
    uint8_t n = (SRAM[0] == 'G' && SRAM[1] == 'V') ? SRAM[2] : 0;
    n++;
    SRAM[0] = 'G';
    SRAM[1] = 'V';
    SRAM[2] = n;
    MBC(0x0000) = 0x00; /* RAM off */
    ser_puts("boot ");
    ser_hex8(n);
    ser_putc('\n');
    report(ok);
}
