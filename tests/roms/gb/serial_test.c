/* serial_test.c: gpuvet's test ROM for the phase of the serial shift clock (internal
 * clock, 8192 Hz): it is bit 8 of the system counter, a bit going out at each of its
 * falling edges, so a transfer ends at the eighth falling edge after its start, not 4096
 * dots after it. The ROM resets DIV (the counter to 0), starts a transfer 0 or about 330
 * dots later (both before the first edge, at 512) and reads DIV when SC's bit 7 clears:
 * $10 both times (the end at 4096), where a transfer timed from its start reads $11 the
 * second time. Reports over serial with the register signature. */
#include "common.h"

uint8_t div_at_end[2];

/* One transfer of $FF, started right after the DIV reset (delay 1) or after a loop of
 * about 330 dots (delay 20); DIV at its end into div_at_end[i]. */
static void timed(void) __naked
{
    __asm
        ld      c, #0x01                ; C: the index into div_at_end
        ld      b, #1
    2$:
        ld      a, #0xff
        ldh     (0x01), a               ; SB
        ldh     (0x04), a               ; DIV = 0
    3$:
        dec     b
        jr      nz, 3$
        ld      a, #0x81
        ldh     (0x02), a               ; start, internal clock
    4$:
        ldh     a, (0x02)
        bit     7, a
        jr      nz, 4$
        ldh     a, (0x04)
        ld      hl, #_div_at_end
        ld      e, c
        ld      d, #0
        dec     e
        add     hl, de
        ld      (hl), a
        dec     c
        ret     nz
        ld      c, #0x02                ; second pass: index 1, long delay
        ld      b, #20
        jr      2$
    __endasm;
}

void main(void)
{
    ser_puts(IS_CGB() ? "serial_test CGB\n" : "serial_test DMG\n");
    rIE = 0;
    timed();
    check(div_at_end[0] == 0x10, "DIV at the end, started at once", div_at_end[0], 0x10);
    check(div_at_end[1] == 0x10, "DIV at the end, started 330 dots later", div_at_end[1], 0x10);
    report_checks();
}
