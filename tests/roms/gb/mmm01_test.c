/* mmm01_test.c: gpuvet's test ROM for the MMM01 multi-game mapper (MMM01+RAM+BATTERY, 8 MiB
 * ROM, 128 KiB RAM; Pan Docs "MMM01"), built twice (build.sh): mmm01_test.gb and, with
 * MUX=1, mmm01m_test.gb. gbfix.py --mmm01 puts this program in every 16 KiB bank (so it
 * runs on whatever the mapper maps at $0000), each bank's number in its last two bytes,
 * the cartridge's header (type $0D) in the menu's place, the last 32 KiB, and a game's
 * header at $0100. As the menu it checks that the last 32 KiB is mapped at power-on, sets
 * up a game (ROM bank low/mid/high, the masks, RAM bank low/high, mode, multiplex, the
 * mode lock) and enables mapping; as the game it checks which banks $0000-$3FFF and
 * $4000-$7FFF show, that the menu's bits and the masked bits cannot be written any more
 * while the game's can, bank 0 of the game mapped as 1 at $4000, RAM enable and RAM
 * banking (modes 0 and 1; with multiplex, ROM bank mid as the RAM bank and the mode lock).
 * It leaves one marker byte in the RAM banks it uses (tests/gb/test_gb_roms.sh finds them
 * in the battery file at their physical banks: 6 and 7, or 13); a second run finds its
 * marker ("mmm01: save restored"). */
#include "common.h"

#define MBC(a) (*(volatile uint8_t *)(a))
#define TAG0 (*(const volatile uint16_t *)0x3FFE)
#define TAG1 (*(const volatile uint16_t *)0x7FFE)
#define SRAM ((volatile uint8_t *)0xA000)

static void check_bank(uint16_t got, uint16_t want, const char *what)
{
    check(got == want, what, (uint8_t)got, (uint8_t)want);
}

#ifndef MUX
/* Game: ROM high 1 (banks 128+), mid 2 (+64), low $0F under the mask %11000 (a 128 KiB
 * game: bits 3-4 of low select it, 01 here): banks 200-207. RAM high 1 (banks 4-7), low
 * %10 under the mask %10 (a 16 KiB RAM: banks 6-7). */
static void menu(void)
{
    MBC(0x2000) = 0x48;      /* low %01000, mid 2 */
    MBC(0x6000) = 0x30;      /* ROM mask %11000, mode 0, no multiplex */
    MBC(0x2000) = 0x57;      /* the masked bits 3-4 keep %01: low %01111 */
    MBC(0x4000) = 0x16;      /* RAM low %10, RAM high 1, ROM high 1 */
    MBC(0x0000) = 0x2A;      /* RAM mask %10, RAM on */
    MBC(0x0000) = 0x6A;      /* mapping on */
}

static void game(void)
{
    check_bank(TAG0, 200, "$0000: bank 0 of the game");
    check_bank(TAG1, 207, "$4000: low as the menu left it (masked bits kept)");
    MBC(0x2000) = 0x00;
    check_bank(TAG1, 201, "$4000: game bank 0 maps 1");
    MBC(0x2000) = 0x03;
    check_bank(TAG1, 203, "$4000: game bank 3");
    MBC(0x2000) = 0x7F;      /* mid and the masked bits are no longer writable */
    check_bank(TAG1, 207, "$4000: game bank 7, mid kept");
    MBC(0x4000) = 0x31;      /* RAM low bit 0 writable; ROM high, RAM high not */
    MBC(0x6000) = 0x7F;      /* mode 1; the mask and multiplex not */
    check_bank(TAG0, 200, "$0000 kept after the game's writes");
    check_bank(TAG1, 207, "$4000 kept after the game's writes");
    MBC(0x0000) = 0x00;      /* RAM off; the mapping stays on */
    check(SRAM[0] == 0xFF, "RAM disabled reads $FF", SRAM[0], 0xFF);
    check_bank(TAG0, 200, "mapping stays on");
    MBC(0x0000) = 0x0A;
    MBC(0x6000) = 0x00;      /* mode 0: RAM bank 4 | (low & mask) = 6 */
    uint8_t restored = SRAM[0] == 0x66;
    ser_puts(restored ? "mmm01: save restored\n" : "mmm01: new save\n");
    SRAM[0] = 0x66;
    MBC(0x6000) = 0x01;      /* mode 1: RAM bank 4 | low = 7 */
    SRAM[0] = 0x77;
    MBC(0x6000) = 0x00;
    check(SRAM[0] == 0x66, "mode 0: RAM bank 6", SRAM[0], 0x66);
    MBC(0x6000) = 0x01;
    check(SRAM[0] == 0x77, "mode 1: RAM bank 7", SRAM[0], 0x77);
    MBC(0x0000) = 0x00;
}
#else
/* Multiplex: ROM high 2 (banks 256+), RAM low %10 under the mask %10 as ROM bits 5-6 (a
 * 1 MiB game: banks 320-383), ROM mask 0; mid 1 as RAM bits 0-1 with RAM high 3: RAM
 * bank 13; the mode lock on (mode 0 for good). */
static void menu(void)
{
    MBC(0x2000) = 0x20;      /* low 0, mid 1 */
    MBC(0x6000) = 0x40;      /* multiplex, ROM mask 0, mode 0 */
    MBC(0x4000) = 0x6E;      /* RAM low %10, RAM high 3, ROM high 2, mode lock */
    MBC(0x0000) = 0x2A;      /* RAM mask %10, RAM on */
    MBC(0x0000) = 0x6A;      /* mapping on */
}

static void game(void)
{
    check_bank(TAG0, 320, "mux $0000: bank 0 of the game");
    check_bank(TAG1, 321, "mux $4000: game bank 0 maps 1");
    MBC(0x2000) = 0x05;
    check_bank(TAG1, 325, "mux $4000: game bank 5");
    MBC(0x4000) = 0x01;      /* RAM low %11: ROM bits 5-6 at $4000 */
    check_bank(TAG1, 357, "mux $4000: game bank $25");
    check_bank(TAG0, 320, "mux $0000 in mode 0: the masked bits only");
    MBC(0x6000) = 0x01;      /* locked: stays mode 0 */
    check_bank(TAG0, 320, "mux mode lock keeps mode 0");
    MBC(0x2000) = 0x20;      /* low 0: bank $20 of the game is $21 at $4000, as on the MBC1 */
    check_bank(TAG1, 353, "mux $4000: game bank $20 maps $21");
    uint8_t restored = SRAM[0] == 0x55;
    ser_puts(restored ? "mmm01: save restored\n" : "mmm01: new save\n");
    SRAM[0] = 0x55;          /* RAM bank 3 << 2 | mid 1 = 13 */
    MBC(0x2000) = 0x01;
    check(SRAM[0] == 0x55, "mux RAM bank from mid", SRAM[0], 0x55);
    MBC(0x0000) = 0x00;
}
#endif

void main(void)
{
    ser_puts("mmm01_test\n");
    check_bank(TAG0, 510, "menu: $0000 shows bank 510 (the last 32 KiB)");
    check_bank(TAG1, 511, "menu: $4000 shows bank 511");
    MBC(0x2000) = 0x05;      /* unmapped: the menu stays whatever the registers say */
    check_bank(TAG1, 511, "menu: bank writes do not move it");
    menu();
    game();
    report_checks();
}
