/* rtc_test.c: gpuvet's test ROM for the MBC3's real-time clock (MBC3+TIMER+RAM+BATTERY,
 * 64 KiB ROM, 32 KiB RAM; Pan Docs "MBC3" with its pull request 637's register details):
 *  - registers S M H DL DH keep 6, 6, 5, 8 and bits 0, 6, 7; unused bits read 0;
 *  - the latch as on the MBC3B: the registers show the running clock after power-on and
 *    after an even value at $6000, an odd value latches it (again only after an even one);
 *    writes reach the clock, not the latched copy;
 *  - the halt bit stops the clock; a write to S restarts the second (the sub-second
 *    counter), a write to another register does not;
 *  - one second of emulated time is one second: a tick between 0.92 and 1.09 s after S is
 *    written; 23:59:59 on day 511 rolls to day 0 with the day carry, which stays until
 *    written 0; values beyond 59/59/23 count on to the end of their bits and wrap without
 *    a carry;
 *  - selections $0D-$0F and RAM banks the cartridge lacks (4-7) read $FF and ignore writes;
 *    the high nibble of the selection is ignored; with RAM disabled the clock reads $FF.
 * Battery: on its first boot (no save) it reports "rtc: new save"; it always ends with
 * every RAM bank holding a pattern and the clock at 12:34:56, day $155, halted and latched,
 * so a second run reads that back ("rtc: save restored") and writes the same file. */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define SRAM ((volatile uint8_t *)0xA000)

static void sel(uint8_t r) { MBC(0x4000) = r; }
static uint8_t rd(uint8_t r) { sel(r); return SRAM[0]; }
static void wr(uint8_t r, uint8_t v) { sel(r); SRAM[0] = v; }
static void latch(void) { MBC(0x6000) = 0; MBC(0x6000) = 1; }

/* n frame periods (VBlank starts) */
static void wait_frames(uint16_t n)
{
    while (n--) {
        while (rLY == 144)
            ;
        while (rLY != 144)
            ;
    }
}

/* The clock halted at h:m:s day d (DH's carry bit from carry). */
static void set_time(uint8_t h, uint8_t m, uint8_t s, uint16_t d, uint8_t carry)
{
    wr(0x0C, 0x40);
    wr(0x08, s);
    wr(0x09, m);
    wr(0x0A, h);
    wr(0x0B, (uint8_t)d);
    wr(0x0C, (uint8_t)(0x40 | (d >> 8) | (carry ? 0x80 : 0)));
}

static void run_clock(void) { wr(0x0C, (uint8_t)(rd(0x0C) & 0xBF)); }

/* h:m:s on day 3, then 1.1 s of the running clock (one tick). */
static void one_second(uint8_t h, uint8_t m, uint8_t s)
{
    set_time(h, m, s, 3, 0);
    run_clock();
    wait_frames(66);
}

static uint8_t pattern(uint8_t bank, uint8_t i) { return (uint8_t)(bank * 0x3B + i * 7 + 1); }

/* The saved state of a previous run: the RAM pattern in 4 banks and the clock. */
static void check_save(void)
{
    uint8_t bad = 0;
    for (uint8_t b = 0; b < 4; b++) {
        sel(b);
        for (uint8_t i = 0; i < 64; i++)
            bad += SRAM[i * 128] != pattern(b, i);
    }
    check(bad == 0, "saved RAM banks", bad, 0);
    check(rd(0x08) == 56 && rd(0x09) == 34 && rd(0x0A) == 12, "saved clock 12:34:56", rd(0x09), 34);
    check(rd(0x0B) == 0x55 && rd(0x0C) == 0x41, "saved day $155, halted", rd(0x0C), 0x41);
}

static void leave_save(void)
{
    for (uint8_t b = 0; b < 4; b++) {
        sel(b);
        for (uint8_t i = 0; i < 64; i++)
            SRAM[i * 128] = pattern(b, i);
    }
    sel(0);
    SRAM[0x1FFE] = 'G';
    SRAM[0x1FFF] = 'V';
    set_time(12, 34, 56, 0x155, 0);
    latch();
}

void main(void)
{
    ser_puts("rtc_test\n");
    MBC(0x0000) = 0x0A;
    sel(0);
    if (SRAM[0x1FFE] == 'G' && SRAM[0x1FFF] == 'V') {
        ser_puts("rtc: save restored\n");
        check_save();
    } else {
        ser_puts("rtc: new save\n");
    }
    MBC(0x6000) = 0; /* the registers show the running clock */

    /* widths: unused bits read 0 (halted, so nothing counts meanwhile) */
    wr(0x0C, 0x40);
    wr(0x08, 0xFF);
    check(rd(0x08) == 0x3F, "S keeps 6 bits", rd(0x08), 0x3F);
    wr(0x09, 0xFF);
    check(rd(0x09) == 0x3F, "M keeps 6 bits", rd(0x09), 0x3F);
    wr(0x0A, 0xFF);
    check(rd(0x0A) == 0x1F, "H keeps 5 bits", rd(0x0A), 0x1F);
    wr(0x0B, 0xFF);
    check(rd(0x0B) == 0xFF, "DL keeps 8 bits", rd(0x0B), 0xFF);
    wr(0x0C, 0xFF);
    check(rd(0x0C) == 0xC1, "DH keeps bits 0, 6, 7", rd(0x0C), 0xC1);
    sel(0x18);
    check(SRAM[0] == 0x3F, "selection's high nibble ignored ($18 is S)", SRAM[0], 0x3F);
    check(SRAM[0x1234] == 0x3F, "any address in $A000-$BFFF", SRAM[0x1234], 0x3F);

    /* the latch (MBC3B): odd latches, even shows the running clock again */
    set_time(1, 2, 5, 0, 0);
    check(rd(0x08) == 5, "running clock shown before a latch", rd(0x08), 5);
    MBC(0x6000) = 1;
    wr(0x08, 9);
    check(rd(0x08) == 5, "latched copy keeps its value", rd(0x08), 5);
    MBC(0x6000) = 0;
    check(rd(0x08) == 9, "even value: the clock got the write", rd(0x08), 9);
    MBC(0x6000) = 1;
    wr(0x08, 12);
    MBC(0x6000) = 1;
    check(rd(0x08) == 9, "no second latch without an even value", rd(0x08), 9);
    MBC(0x6000) = 2;
    MBC(0x6000) = 3;
    check(rd(0x08) == 12, "latch again after an even value", rd(0x08), 12);
    MBC(0x6000) = 0;

    /* halted: nothing counts */
    set_time(0, 0, 0, 0, 0);
    wait_frames(90);
    check(rd(0x08) == 0, "halted clock stays", rd(0x08), 0);

    /* one second; a write to S restarts it, a write to M does not */
    run_clock();
    wait_frames(30);     /* 0.5 s into a second */
    wr(0x08, 0);         /* restart it */
    wait_frames(27);     /* 0.45 s */
    wr(0x09, 0);         /* does not restart it */
    wait_frames(28);     /* 0.92 s after the S write */
    check(rd(0x08) == 0, "no tick 0.92 s after S was written", rd(0x08), 0);
    wait_frames(10);     /* 1.09 s */
    check(rd(0x08) == 1, "a tick 1.09 s after S was written", rd(0x08), 1);

    /* the day counter's overflow and its carry */
    set_time(23, 59, 59, 511, 0);
    run_clock();
    wait_frames(66);
    latch();
    check(rd(0x08) == 0 && rd(0x09) == 0 && rd(0x0A) == 0, "23:59:59 rolls to 00:00:00", rd(0x0A), 0);
    check(rd(0x0B) == 0 && rd(0x0C) == 0x80, "day 511 rolls to 0 with the carry", rd(0x0C), 0x80);
    wait_frames(66);
    latch();
    check(rd(0x0C) == 0x80 && rd(0x08) == 1, "the carry stays", rd(0x0C), 0x80);
    wr(0x0C, 0x00);
    MBC(0x6000) = 0;
    check(rd(0x0C) == 0x00, "the carry cleared by a write", rd(0x0C), 0x00);

    /* out-of-range values: on to the end of their bits, wrapping without a carry */
    one_second(5, 7, 63);
    check(rd(0x08) == 0 && rd(0x09) == 7, "S 63 wraps to 0 without a carry", rd(0x09), 7);
    one_second(5, 63, 59);
    check(rd(0x09) == 0 && rd(0x0A) == 5, "M 63 wraps to 0 without a carry", rd(0x0A), 5);
    one_second(31, 59, 59);
    check(rd(0x0A) == 0 && rd(0x0B) == 3, "H 31 wraps to 0 without a carry", rd(0x0B), 3);
    one_second(6, 1, 60);
    check(rd(0x08) == 61 && rd(0x09) == 1, "S 60 counts on to 61", rd(0x08), 61);

    /* selections the cartridge does not have */
    wr(0x0C, 0x40);
    for (uint8_t r = 0x0D; r <= 0x0F; r++) {
        sel(r);
        SRAM[0] = 0x12;
        check(SRAM[0] == 0xFF, "selection $0D-$0F reads $FF", SRAM[0], 0xFF);
    }
    sel(0);
    SRAM[5] = 0x66;
    sel(4);
    SRAM[5] = 0x77;
    check(SRAM[5] == 0xFF, "RAM bank 4 (of 4) reads $FF", SRAM[5], 0xFF);
    sel(0);
    check(SRAM[5] == 0x66, "a write to bank 4 reaches no RAM", SRAM[5], 0x66);
    MBC(0x0000) = 0x00;
    sel(0x08);
    check(SRAM[0] == 0xFF, "RAM and clock disabled: $FF", SRAM[0], 0xFF);
    SRAM[0] = 7;
    MBC(0x0000) = 0x0A;
    check(rd(0x08) == 61, "a write while disabled is lost", rd(0x08), 61);

    leave_save();
    MBC(0x0000) = 0x00;
    report_checks();
}
