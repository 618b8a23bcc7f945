/* hdma_test.c: gpuvet's test ROM for starting an HBlank DMA (CGB, Pan Docs "LCD VRAM DMA
 * Transfers"): started with the LCD off, or during mode 0 of a visible line, its first
 * block of 16 bytes is copied at once and HDMA5 then reads the blocks left minus one;
 * a write with bit 7 clear stops it, after which HDMA5 reads $80 | the length bits of
 * that write (SameSuite's hdma_lcd_off and hdma_mode0 measure both). On the DMG HDMA5 is
 * no register and reads $FF. Reports over serial with the register signature. */
#include "common.h"

#define rHDMA1 REG(0xFF51)
#define rHDMA2 REG(0xFF52)
#define rHDMA3 REG(0xFF53)
#define rHDMA4 REG(0xFF54)
#define rHDMA5 REG(0xFF55)

static volatile uint8_t src[80];

/* Source p (16-byte aligned), destination $8800 (bank 0). */
static void hdma_setup(const volatile uint8_t *p)
{
    uint16_t a = (uint16_t)p;
    rHDMA1 = (uint8_t)(a >> 8);
    rHDMA2 = (uint8_t)a;
    rHDMA3 = 0x08;
    rHDMA4 = 0x00;
}

void main(void)
{
    ser_puts(IS_CGB() ? "hdma_test CGB\n" : "hdma_test DMG\n");
    if (!IS_CGB()) {
        check(rHDMA5 == 0xFF, "DMG: HDMA5 reads $FF", rHDMA5, 0xFF);
        report_checks();
    }
    for (uint8_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(0xA0 + i);
    /* the source's low 4 address bits are ignored: start at the first aligned byte */
    uint8_t skip = (uint8_t)((16 - ((uint16_t)src & 15)) & 15);
    lcd_off();
    rVBK = 0;
    for (uint16_t i = 0; i < 0x40; i++)
        VRAM[0x800 + i] = 0;
    hdma_setup(src + skip);
    rHDMA5 = 0x83; /* four blocks, HBlank mode, LCD off */
    uint8_t left = rHDMA5;
    check(left == 0x02, "LCD off: HDMA5 after the start", left, 0x02);
    check(VRAM[0x800] == (uint8_t)(0xA0 + skip), "LCD off: first block at once", VRAM[0x800], 0xA0 + skip);
    check(VRAM[0x80F] == (uint8_t)(0xAF + skip), "LCD off: first block's end", VRAM[0x80F], 0xAF + skip);
    check(VRAM[0x810] == 0, "LCD off: one block only", VRAM[0x810], 0);
    rHDMA5 = 0x00; /* stop */
    check(rHDMA5 == 0x80, "HDMA5 after a stop with $00", rHDMA5, 0x80);
    /* LCD on: start during mode 0 of a visible line */
    hdma_setup(src + skip);
    rLCDC = 0x91;
    while (rLY != 10)
        ;
    while ((rSTAT & 3) != 0)
        ;
    rHDMA5 = 0x81; /* two blocks: the first now */
    left = rHDMA5;
    check(left == 0x00, "mode 0: HDMA5 after the start", left, 0x00);
    rHDMA5 = 0x05; /* stop */
    check(rHDMA5 == 0x85, "HDMA5 after a stop with $05", rHDMA5, 0x85);
    report_checks();
}
