/* mbc7_test.c: gpuvet's test ROM for the MBC7 (MBC7+SENSOR+RUMBLE+RAM+BATTERY, 128 KiB ROM;
 * Pan Docs "MBC7", the 93LC56 datasheet for the EEPROM's commands). Needs the input movie
 * tests/emu/input_mbc7.txt, which tilts the cartridge at frames 30 and 60:
 *  - ROM banks 0-7 at $4000 (bank 0 too, as on the MBC5);
 *  - $A000-$AFFF answers only with both RAM enables ($0A at $0000, $40 at $4000), the
 *    register in address bits 4-7; Ax6x reads $00, Ax7x and Ax9x-AxFx $FF, $B000 $FF;
 *  - the accelerometer reads $8000 until latched ($55 at Ax0x erases, $AA at Ax1x
 *    latches, once per erase); level it reads $81D0, tilted $70 per 1 g (x lower to the
 *    right, y lower to the bottom);
 *  - the EEPROM through Ax8x (CS bit 7, CLK bit 6, DI bit 1, DO bit 0): READ (a dummy 0
 *    first, then words one after another while CS stays high), EWEN/EWDS (programming is
 *    refused until EWEN), WRITE, ERASE, ERAL, WRAL, DO ready after CS rises, leading zeros
 *    before the start bit, a command cut short by CS.
 * Battery (the EEPROM is the save): on its first boot the EEPROM is blank ($FF: "mbc7: new
 * save"); it always ends with a pattern in every word, so a second run reads it back
 * ("mbc7: save restored") and writes the same file. */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define TAG_HI (*(const volatile uint8_t *)0x7FFE)
#define EE REG(0xA080)

static void wait_frames(uint16_t n)
{
    while (n--) {
        while (rLY == 144)
            ;
        while (rLY != 144)
            ;
    }
}

/* A register write through a call: SDCC 4.2.0 compiled `MBC(0x0000) = 0x00; MBC(0x4000) =
 * 0x40;` here into two stores to $0000. */
static void mbc_w(uint16_t a, uint8_t v)
{
    *(volatile uint8_t *)a = v;
}

static uint16_t axis(uint16_t lo_addr)
{
    return (uint16_t)(MBC(lo_addr) | MBC(lo_addr + 0x10) << 8);
}

static void check16(uint16_t got, uint16_t want, const char *what)
{
    check(got == want, what, (uint8_t)(got >> 8), (uint8_t)(want >> 8));
    if (got != want) {
        ser_hex16(got);
        ser_putc('\n');
    }
}

/* ---- the EEPROM's pins ---- */

static void ee_bit(uint8_t b)
{
    uint8_t d = b ? 0x82 : 0x80;
    EE = d;            /* CLK low, DI set */
    EE = d | 0x40;     /* the rising edge shifts DI in */
}

static void ee_bits(uint16_t v, uint8_t n)
{
    while (n--)
        ee_bit((uint8_t)((v >> n) & 1));
}

/* CS low then high, a 0 (as games send) and the start bit. */
static void ee_start(void)
{
    EE = 0x00;
    EE = 0x80;
    ee_bit(0);
    ee_bit(1);
}

static uint8_t ee_done(void)
{
    EE = 0x00;   /* CS falls: programming starts */
    EE = 0x80;   /* CS high again: DO tells ready (1) or busy (0) */
    uint8_t r = EE & 1;
    EE = 0x00;
    return r;
}

static void ee_cmd(uint16_t cmd10)
{
    ee_start();
    ee_bits(cmd10, 10);
}

static uint8_t ee_write(uint8_t a, uint16_t w)
{
    ee_cmd((uint16_t)(0x100 | a));
    ee_bits(w, 16);
    return ee_done();
}

static uint16_t ee_word_in(void)
{
    uint16_t w = 0;
    for (uint8_t i = 0; i < 16; i++) {
        EE = 0x80;
        EE = 0xC0;
        w = (uint16_t)(w << 1 | (EE & 1));
    }
    return w;
}

static uint16_t ee_read(uint8_t a)
{
    ee_cmd((uint16_t)(0x200 | a));
    uint16_t w = ee_word_in();
    EE = 0x00;
    return w;
}

#define EE_EWEN 0x0C0
#define EE_EWDS 0x000
#define EE_ERAL 0x080
#define EE_WRAL 0x040
#define ERASE(a) (0x300 | (a))

static uint16_t pattern(uint8_t n) { return (uint16_t)(n * 0x0301 + 0x4700); }

static void test_eeprom(void)
{
    /* the save first: blank, or the pattern a previous run left */
    uint8_t blank = 1, saved = 1;
    for (uint8_t n = 0; n < 128; n++) {
        uint16_t w = ee_read(n);
        blank &= w == 0xFFFF;
        saved &= w == pattern(n);
    }
    ser_puts(saved ? "mbc7: save restored\n" : blank ? "mbc7: new save\n" : "mbc7: save damaged\n");
    check(saved || blank, "EEPROM blank or restored", saved, 1);

    /* READ: the dummy 0, then word after word */
    ee_cmd(0x200 | 5);
    check((EE & 1) == 0, "READ: a dummy 0 before the data", EE & 1, 0);
    uint16_t w5 = ee_word_in(), w6 = ee_word_in();
    EE = 0x00;
    check16(w6, ee_read(6), "READ goes on to the next word");
    check16(w5, ee_read(5), "READ of word 5 twice");

    ee_cmd(EE_EWDS);
    ee_done();
    ee_write(5, 0x1234);
    check16(ee_read(5), w5, "WRITE refused before EWEN");
    ee_cmd(EE_EWEN);
    ee_done();
    check(ee_write(5, 0x1234) == 1, "DO ready after a WRITE", 0, 1);
    check16(ee_read(5), 0x1234, "WRITE word 5");
    check16(ee_read(4), w5 == 0xFFFF ? 0xFFFF : pattern(4), "WRITE leaves word 4");
    /* leading zeros before the start bit are ignored */
    EE = 0x00;
    EE = 0x80;
    ee_bit(0);
    ee_bit(0);
    ee_bit(0);
    ee_bit(1);
    ee_bits(0x100 | 9, 10);
    ee_bits(0xBEEF, 16);
    ee_done();
    check16(ee_read(9), 0xBEEF, "zeros before the start bit");
    /* CS falling in the middle of a WRITE's data: nothing is written */
    ee_cmd(0x100 | 9);
    ee_bits(0x12, 8);
    ee_done();
    check16(ee_read(9), 0xBEEF, "a WRITE cut short writes nothing");
    ee_cmd(ERASE(5));
    ee_done();
    check16(ee_read(5), 0xFFFF, "ERASE word 5");
    ee_cmd(EE_WRAL);
    ee_bits(0xA55A, 16);
    ee_done();
    check16(ee_read(0), 0xA55A, "WRAL word 0");
    check16(ee_read(127), 0xA55A, "WRAL word 127");
    ee_cmd(EE_ERAL);
    ee_done();
    check16(ee_read(64), 0xFFFF, "ERAL word 64");
    ee_cmd(EE_EWDS);
    ee_done();
    ee_cmd(ERASE(7));
    ee_write(7, 0x0000);
    check16(ee_read(7), 0xFFFF, "EWDS refuses WRITE again");
    /* the pins read back: CS, CLK, DI as written */
    EE = 0xC2;
    check((EE & 0xFE) == 0xC2, "Ax8x reads CS CLK DI", EE & 0xFE, 0xC2);
    EE = 0x00;
    /* the save every run leaves */
    ee_cmd(EE_EWEN);
    ee_done();
    for (uint8_t n = 0; n < 128; n++)
        ee_write(n, pattern(n));
    ee_cmd(EE_EWDS);
    ee_done();
    uint8_t bad = 0;
    for (uint8_t n = 0; n < 128; n++)
        bad += ee_read(n) != pattern(n);
    check(bad == 0, "the pattern in all 128 words", bad, 0);
}

void main(void)
{
    ser_puts("mbc7_test\n");
    for (uint8_t b = 0; b < 8; b++) {
        MBC(0x2000) = b;
        check(TAG_HI == b, "ROM bank at $4000", TAG_HI, b);
    }
    MBC(0x2000) = 1;

    /* the two enables */
    check(MBC(0xA030) == 0xFF, "no enable: $FF", MBC(0xA030), 0xFF);
    MBC(0x0000) = 0x0A;
    check(MBC(0xA030) == 0xFF, "enable 1 alone: $FF", MBC(0xA030), 0xFF);
    mbc_w(0x0000, 0x00);
    mbc_w(0x4000, 0x40);
    check(MBC(0xA030) == 0xFF, "enable 2 alone: $FF", MBC(0xA030), 0xFF);
    mbc_w(0x0000, 0x0A);
    check16(axis(0xA020), 0x8000, "X before a latch");
    check16(axis(0xA040), 0x8000, "Y before a latch");
    check(MBC(0xA060) == 0x00 && MBC(0xA070) == 0xFF, "Ax6x $00, Ax7x $FF", MBC(0xA060), 0x00);
    check(MBC(0xA090) == 0xFF && MBC(0xAFF0) == 0xFF && MBC(0xB020) == 0xFF, "Ax9x-AxFx, $B000 $FF", MBC(0xA090),
          0xFF);
    check(MBC(0xA000) == 0xFF && MBC(0xA010) == 0xFF, "the latch registers read $FF", MBC(0xA000), 0xFF);
    check(MBC(0xAF3F) == 0x80, "address bits 0-3 and 8-11 ignored", MBC(0xAF3F), 0x80);

    /* level until frame 30 of the movie */
    wait_frames(5);
    MBC(0xA000) = 0x55;
    MBC(0xA010) = 0xAA;
    check16(axis(0xA020), 0x81D0, "X level");
    check16(axis(0xA040), 0x81D0, "Y level");
    wait_frames(40); /* tilted: right side down by half (TiltX 16384), top down fully (TiltY -32767) */
    MBC(0xA010) = 0xAA;
    check16(axis(0xA020), 0x81D0, "no second latch without an erase");
    MBC(0xA000) = 0x55;
    check16(axis(0xA020), 0x8000, "the erase reads $8000");
    MBC(0xA010) = 0xAA;
    check16(axis(0xA020), 0x81D0 - 0x38, "X half right");
    check16(axis(0xA040), 0x81D0 + 0x70, "Y top down");
    wait_frames(30); /* TiltX -32768 (fully left), TiltY 32767 (bottom down) */
    MBC(0xA000) = 0x55;
    MBC(0xA010) = 0xAA;
    check16(axis(0xA020), 0x81D0 + 0x70, "X fully left");
    check16(axis(0xA040), 0x81D0 - 0x70, "Y bottom down");

    test_eeprom();
    MBC(0x4000) = 0x00;
    check(MBC(0xA030) == 0xFF, "enable 2 cleared: $FF", MBC(0xA030), 0xFF);
    MBC(0x0000) = 0x00;
    report_checks();
}
