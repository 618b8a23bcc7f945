/* huc_test.c: gpuvet's test ROM for Hudson's two boards (Pan Docs "HuC1", "HuC-3"), built
 * twice (build.sh; the type at $0147 says which this is; gbfix.py tags each 16 KiB bank
 * with its number in its last two bytes):
 *  huc1_test.gb  HuC1+RAM+BATTERY, 1 MiB ROM, 32 KiB RAM: ROM banks 1-63 at $4000; RAM with
 *                no enable (the $0000 register picks RAM, or with $0E the IR port, which
 *                reads $C0 when it sees no light); RAM banks at $4000; $6000 does nothing.
 *  huc3_test.gb  HuC3, 128 KiB ROM, 32 KiB RAM: ROM banks 0-7 at $4000; $0000 = $A RAM
 *                read/write, $0 read only, $B-$D the clock MCU, $E the IR port, others $FF;
 *                the MCU's commands (address, read and write with increment, the time
 *                copied out and in, the event kept at its distance, the status request),
 *                its response register, and its clock: set to 23:59 (minute 1439) of day
 *                5, it is still there 59 s later and at 00:00 of day 6 61 s after.
 * Battery: on its first boot (no save) it reports "huc: new save"; it always ends with a
 * pattern in every RAM bank (and the HuC3's clock at minute 100 of day 200), so a second
 * run reads that back ("huc: save restored") and writes the same file. */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define CART_TYPE (*(const volatile uint8_t *)0x0147)
#define TAG_HI (*(const volatile uint8_t *)0x7FFE)
#define SRAM ((volatile uint8_t *)0xA000)

static void wait_frames(uint16_t n)
{
    while (n--) {
        while (rLY == 144)
            ;
        while (rLY != 144)
            ;
    }
}

static uint8_t pattern(uint8_t bank, uint8_t i) { return (uint8_t)(bank * 0x35 + i * 11 + 3); }

/* The RAM pattern of a previous run (mode: what $0000 needs for RAM), and then the one
 * this run leaves. */
static uint8_t ram_saved(uint8_t mode)
{
    uint8_t bad = 0;
    MBC(0x0000) = mode;
    for (uint8_t b = 0; b < 4; b++) {
        MBC(0x4000) = b;
        for (uint8_t i = 0; i < 64; i++)
            bad += SRAM[i * 128] != pattern(b, i);
    }
    return bad == 0;
}

static void ram_leave(uint8_t mode)
{
    MBC(0x0000) = mode;
    for (uint8_t b = 0; b < 4; b++) {
        MBC(0x4000) = b;
        for (uint8_t i = 0; i < 64; i++)
            SRAM[i * 128] = pattern(b, i);
    }
    MBC(0x4000) = 0;
}

/* RAM banks hold their own bytes: one byte in each of banks 0-3 (mode: RAM's $0000 value). */
static void ram_banks(uint8_t mode, uint8_t base)
{
    MBC(0x0000) = mode;
    for (uint8_t b = 0; b < 4; b++) {
        MBC(0x4000) = b;
        SRAM[0x1ABC] = (uint8_t)(base + b);
    }
    uint8_t bad = 0;
    for (uint8_t b = 0; b < 4; b++) {
        MBC(0x4000) = b;
        bad += SRAM[0x1ABC] != (uint8_t)(base + b);
    }
    check(bad == 0, "RAM banks 0-3 distinct", bad, 0);
}

static void test_huc1(void)
{
    for (uint8_t b = 1; b < 64; b++) {
        MBC(0x2000) = b;
        check(TAG_HI == b, "HuC1 ROM bank at $4000", TAG_HI, b);
    }
    MBC(0x2000) = 0x21;
    MBC(0x6000) = 0x01; /* nothing there (games write it as if it were an MBC1) */
    check(TAG_HI == 0x21, "HuC1 $6000 is no register", TAG_HI, 0x21);
    ram_banks(0x00, 0x40); /* RAM with $00: no enable to write first */
    MBC(0x4000) = 2;
    MBC(0x0000) = 0x0A;
    check(SRAM[0x1ABC] == 0x42, "HuC1 $0A: RAM as well", SRAM[0x1ABC], 0x42);
    MBC(0x0000) = 0x0E;
    check(SRAM[0x1ABC] == 0xC0, "HuC1 IR port sees no light ($C0)", SRAM[0x1ABC], 0xC0);
    SRAM[0x1ABC] = 0x01; /* the transmitter on, not RAM */
    MBC(0x0000) = 0x00;
    check(SRAM[0x1ABC] == 0x42, "HuC1 IR write leaves RAM", SRAM[0x1ABC], 0x42);
    MBC(0x6000) = 0x00;
    check(SRAM[0x1ABC] == 0x42, "HuC1 $6000 leaves the RAM bank", SRAM[0x1ABC], 0x42);
}

/* ---- the HuC3's clock MCU ---- */

static uint8_t huc3_run(uint8_t cmd)
{
    MBC(0x0000) = 0x0D;
    while (!(SRAM[0] & 1)) /* ready */
        ;
    MBC(0x0000) = 0x0B;
    SRAM[0] = cmd;
    MBC(0x0000) = 0x0D;
    SRAM[0] = 0xFE; /* bit 0 clear: run it */
    while (!(SRAM[0] & 1))
        ;
    MBC(0x0000) = 0x0C;
    return SRAM[0];
}

static void huc3_addr(uint8_t a)
{
    huc3_run((uint8_t)(0x40 | (a & 15)));
    huc3_run((uint8_t)(0x50 | (a >> 4)));
}

static void huc3_put(uint8_t a, uint16_t v, uint8_t n)
{
    huc3_addr(a);
    for (uint8_t k = 0; k < n; k++, v >>= 4)
        huc3_run((uint8_t)(0x30 | (v & 15)));
}

static uint16_t huc3_get(uint8_t a, uint8_t n)
{
    uint16_t v = 0;
    huc3_addr(a);
    for (uint8_t k = 0; k < n; k++)
        v |= (uint16_t)(huc3_run(0x10) & 15) << (4 * k);
    return v;
}

/* Sets the time through $00-$06 and extended command 1. */
static void huc3_set_time(uint16_t minute, uint16_t day)
{
    huc3_put(0x00, minute, 3);
    huc3_put(0x03, day, 3);
    huc3_run(0x61);
}

static uint16_t huc3_minute(void)
{
    huc3_run(0x60); /* the time to $00-$06 */
    return huc3_get(0x00, 3);
}

static uint16_t huc3_day(void)
{
    huc3_run(0x60);
    return huc3_get(0x03, 3);
}

static void check16(uint16_t got, uint16_t want, const char *what)
{
    check(got == want, what, (uint8_t)got, (uint8_t)want);
}

static void test_huc3(void)
{
    for (uint8_t b = 0; b < 8; b++) {
        MBC(0x2000) = b;
        check(TAG_HI == b, "HuC3 ROM bank at $4000", TAG_HI, b);
    }
    MBC(0x2000) = 1;
    ram_banks(0x0A, 0x50);
    MBC(0x4000) = 3;
    MBC(0x0000) = 0x00; /* read only */
    SRAM[0x1ABC] = 0x99;
    check(SRAM[0x1ABC] == 0x53, "HuC3 mode $0: RAM read only", SRAM[0x1ABC], 0x53);
    MBC(0x0000) = 0x05;
    check(SRAM[0x1ABC] == 0xFF, "HuC3 mode $5: open bus", SRAM[0x1ABC], 0xFF);
    SRAM[0x1ABC] = 0x98;
    MBC(0x0000) = 0x0E;
    check(SRAM[0] == 0xC0, "HuC3 IR port sees no light", SRAM[0], 0xC0);
    SRAM[0] = 0x01;
    MBC(0x0000) = 0x0A;
    check(SRAM[0x1ABC] == 0x53, "HuC3 RAM kept", SRAM[0x1ABC], 0x53);
    MBC(0x4000) = 0;

    MBC(0x0000) = 0x0D;
    check(SRAM[0] & 1, "HuC3 semaphore ready", SRAM[0], 1);
    check(huc3_run(0x62) == 0xE1, "HuC3 status request: command 6, result 1", huc3_run(0x62), 0xE1);
    huc3_put(0x20, 0x1234, 4); /* write with increment, read back with increment */
    check16(huc3_get(0x20, 4), 0x1234, "HuC3 nibbles $20-$23");
    check(huc3_run(0x10) == 0x90, "HuC3 response: the command, the nibble at $24", huc3_run(0x10), 0x90);

    /* the event ($58-$5D) keeps its distance when the time is set */
    huc3_set_time(1000, 7);
    huc3_put(0x58, 1100, 3);
    huc3_put(0x5B, 7, 3);
    huc3_set_time(1400, 7);
    check16(huc3_get(0x58, 3), 60, "HuC3 event minute moved on");
    check16(huc3_get(0x5B, 3), 8, "HuC3 event day moved on");

    /* the clock: a minute of emulated time from the moment it was set */
    huc3_set_time(1439, 5);
    wait_frames(3524); /* 59.0 s */
    check16(huc3_minute(), 1439, "HuC3 still 23:59 after 59 s");
    wait_frames(120);  /* 61.0 s */
    check16(huc3_minute(), 0, "HuC3 00:00 after 61 s");
    check16(huc3_day(), 6, "HuC3 day 6 after 61 s");
}

void main(void)
{
    uint8_t huc3 = CART_TYPE == 0xFE;
    uint8_t mode = huc3 ? 0x0A : 0x00;
    ser_puts(huc3 ? "huc3_test\n" : "huc1_test\n");
    uint8_t restored = ram_saved(mode);
    if (huc3 && restored) {
        check16(huc3_minute(), 100, "saved HuC3 minute");
        check16(huc3_day(), 200, "saved HuC3 day");
    }
    ser_puts(restored ? "huc: save restored\n" : "huc: new save\n");
    if (huc3)
        test_huc3();
    else
        test_huc1();
    ram_leave(mode);
    if (huc3) { /* the time, then no event and a known memory */
        huc3_set_time(100, 200);
        huc3_put(0x58, 0, 6);
        huc3_put(0x20, 0, 5);
        huc3_addr(0);
    }
    MBC(0x0000) = 0x00;
    report_checks();
}
