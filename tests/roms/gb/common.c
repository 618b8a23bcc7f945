/* common.c: serial output, counted checks and the pass/fail report shared by the test ROMs. */
#include "common.h"

void ser_putc(char c)
{
    rSB = (uint8_t)c;
    rSC = 0x81;
    while (rSC & 0x80)
        ;
}

void ser_puts(const char *s)
{
    while (*s)
        ser_putc(*s++);
}

static const char hexd[] = "0123456789ABCDEF";

void ser_hex8(uint8_t v)
{
    ser_putc(hexd[v >> 4]);
    ser_putc(hexd[v & 15]);
}

void ser_hex16(uint16_t v)
{
    ser_hex8((uint8_t)(v >> 8));
    ser_hex8((uint8_t)v);
}

static void sig_pass(void) __naked
{
    __asm
        ld b, #3
        ld c, #5
        ld d, #8
        ld e, #13
        ld h, #21
        ld l, #34
        ld b, b
        ret
    __endasm;
}

static void sig_fail(void) __naked
{
    __asm
        ld a, #0x42
        ld b, a
        ld c, a
        ld d, a
        ld e, a
        ld h, a
        ld l, a
        ld b, b
        ret
    __endasm;
}

void report(uint8_t ok)
{
    ser_puts(ok ? "Passed\n" : "Failed\n");
    if (ok)
        sig_pass();
    else
        sig_fail();
    __asm
        di
    1$:
        halt
        nop
        jr 1$
    __endasm;
}

static uint16_t nfail, nchecks;

uint16_t check_failures(void)
{
    return nfail;
}

void check(uint8_t ok, const char *what, uint8_t got, uint8_t want)
{
    nchecks++;
    if (ok)
        return;
    if (nfail++ >= CHECK_SHOWN)
        return;
    ser_puts("FAIL ");
    ser_puts(what);
    ser_puts(" got ");
    ser_hex8(got);
    ser_puts(" want ");
    ser_hex8(want);
    ser_putc('\n');
}

void report_checks(void)
{
    ser_puts("checks ");
    ser_hex16(nchecks);
    ser_puts(" failures ");
    ser_hex16(nfail);
    ser_putc('\n');
    report(nfail == 0);
}

void wait_vblank(void)
{
    while (rLY != 144)
        ;
}

void lcd_off(void)
{
    if (rLCDC & 0x80) {
        wait_vblank();
        rLCDC = rLCDC & 0x7F;
    }
}
