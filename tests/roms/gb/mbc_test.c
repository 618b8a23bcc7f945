/* mbc_test.c: gpuvet's test ROM for two cartridge wirings (Pan Docs, "MBC1", "MBC2"),
 * built twice (build.sh; the type at $0147 says which this is; gbfix.py tags each 16 KiB
 * bank with its number in its last two bytes, $3FFE/$7FFE as mapped):
 *  mbc2_test.gb  MBC2+BATTERY, 256 KiB: one register range $0000-$3FFF where address bit 8
 *                picks the RAM enable (clear) or the 4-bit ROM bank (set; 0 selects 1);
 *                $4000-$7FFF writes do nothing; 512 cells of 4 bits at $A000-$A1FF,
 *                echoed up to $BFFF, untouched by writes while disabled.
 *  mbc1m_test.gb MBC1, 1 MiB wired as an MBC1M multi-game cartridge (bank 0 repeated at
 *                $10, $20 and $30 with its header, as each game begins): the 2-bit register
 *                gives bank bits 4-5, the 5-bit register's top bit is unconnected but still
 *                counts for the 0-reads-as-1 rule, and in mode 1 $0000-$3FFF shows bank
 *                $00/$10/$20/$30.
 * Reports over serial with the register signature. */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define CART_TYPE (*(const volatile uint8_t *)0x0147)
#define TAG_LO (*(const volatile uint8_t *)0x3FFE)
#define TAG_HI (*(const volatile uint8_t *)0x7FFE)
#define SRAM ((volatile uint8_t *)0xA000)

static void test_mbc2(void)
{
    for (uint8_t b = 1; b < 16; b++) {
        MBC(0x2100) = b;
        check(TAG_HI == b, "MBC2 bank at $2100", TAG_HI, b);
    }
    MBC(0x2100) = 0;
    check(TAG_HI == 1, "MBC2 bank 0 reads as 1", TAG_HI, 1);
    MBC(0x3F00) = 0x13; /* 4 bits */
    check(TAG_HI == 3, "MBC2 bank $13 at $3F00", TAG_HI, 3);
    MBC(0x2000) = 0x05; /* bit 8 clear: the RAM enable, not the bank */
    check(TAG_HI == 3, "MBC2 $2000 is no bank register", TAG_HI, 3);
    MBC(0x4100) = 0x07; /* nothing there */
    check(TAG_HI == 3, "MBC2 $4100 is no register", TAG_HI, 3);
    MBC(0x0000) = 0x0A;
    for (uint16_t i = 0; i < 512; i++)
        SRAM[i] = (uint8_t)(i * 7 + 3);
    uint8_t bad = 0, echo = 0;
    for (uint16_t i = 0; i < 512; i++) {
        uint8_t want = (uint8_t)(i * 7 + 3) & 0x0F;
        bad += (SRAM[i] & 0x0F) != want;
        echo += (SRAM[0x200 + i] & 0x0F) != want || (SRAM[0x1E00 + i] & 0x0F) != want;
    }
    check(bad == 0, "MBC2 RAM keeps 4 bits a cell", bad, 0);
    check(echo == 0, "MBC2 RAM echoes every $200", echo, 0);
    MBC(0x0100) = 0x0A; /* bit 8 set: bank 10; RAM stays enabled */
    check(TAG_HI == 10, "MBC2 $0100 is the bank register", TAG_HI, 10);
    SRAM[0x10] = 0x0C;
    check((SRAM[0x10] & 0x0F) == 0x0C, "MBC2 RAM still enabled", SRAM[0x10] & 0x0F, 0x0C);
    MBC(0x0000) = 0x00;
    SRAM[0x10] = 0x05; /* lost */
    MBC(0x0200) = 0x0A;
    check((SRAM[0x10] & 0x0F) == 0x0C, "MBC2 RAM writes lost while disabled", SRAM[0x10] & 0x0F, 0x0C);
    MBC(0x0000) = 0x00;
}

/* the bank at $4000 for the 5-bit register r and the 2-bit register g */
static void mbc1m_case(uint8_t r, uint8_t g, uint8_t want, const char *what)
{
    MBC(0x2000) = r;
    MBC(0x4000) = g;
    check(TAG_HI == want, what, TAG_HI, want);
}

static void test_mbc1m(void)
{
    mbc1m_case(0x03, 1, 0x13, "MBC1M bank 3 of game 1");
    mbc1m_case(0x13, 2, 0x23, "MBC1M ignores bit 4 of the bank");
    mbc1m_case(0x00, 3, 0x31, "MBC1M bank 0 reads as 1");
    mbc1m_case(0x10, 1, 0x10, "MBC1M bank $10 is not 0 to the 0-to-1 rule");
    mbc1m_case(0x0F, 0, 0x0F, "MBC1M bank $0F of game 0");
    MBC(0x6000) = 1; /* mode 1: the 2-bit register also banks $0000-$3FFF */
    for (uint8_t g = 1; g < 4; g++) {
        MBC(0x4000) = g;
        check(TAG_LO == (uint8_t)(g << 4), "MBC1M mode 1 bank at $0000", TAG_LO, (uint8_t)(g << 4));
    }
    MBC(0x4000) = 0;
    MBC(0x6000) = 0;
}

void main(void)
{
    if (CART_TYPE == 0x06) {
        ser_puts("mbc2_test\n");
        test_mbc2();
    } else {
        ser_puts("mbc1m_test\n");
        test_mbc1m();
    }
    report_checks();
}
