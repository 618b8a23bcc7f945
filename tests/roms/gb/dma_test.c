/* dma_test.c: gpuvet's test ROM for the OAM DMA at the M-cycle (DMG and CGB), with the LCD
 * off. Checks, and reports over serial with the register signature:
 *  - timing (Pan Docs, "OAM DMA Transfer"; mooneye's oam_dma_timing and oam_dma_restart
 *    measure the same): after a write to $FF46 in M-cycle W, byte i is copied in M-cycle
 *    W + 2 + i; OAM reads $FF in W + 161 and the copied byte in W + 162; a write during a
 *    transfer starts a new one with the same delays, so OAM is locked until 162 M-cycles
 *    after the second write, and then holds the second source; on the CGB in double
 *    speed too (Pan Docs, "FF4D - KEY1": the OAM DMA runs twice as fast), in M-cycles;
 *  - bus conflicts: while a transfer copies, a read on the bus of its source returns the
 *    byte it copies in that M-cycle and a write there is lost; OAM reads $FF. The external
 *    bus carries cartridge ROM and, on the DMG, work RAM; the CGB has a bus of its own for
 *    work RAM (Pan Docs: on the CGB the CPU reaches ROM during a DMA from WRAM and WRAM
 *    during a DMA from ROM); VRAM is on the video bus; HRAM stays reachable. Each case
 *    runs from HRAM a write to $FF46, a read in W + 2 and in W + 5, a write in W + 9, a
 *    wait to the transfer's end and a last read. */
#include "common.h"

#define HRAM ((volatile uint8_t *)0xFF80)
#define RES ((volatile uint8_t *)0xFFF0) /* the stub's results: reads in W+2, W+5, after */

/* A source page of each kind: VRAM $8000 (a second at $8100), work RAM $D200, ROM $0100. */
#define VRAM_SRC(i) ((uint8_t)(0x40 + (i)))
#define VRAM_SRC2(i) ((uint8_t)(0xC0 + (i)))
#define WRAM_SRC(i) ((uint8_t)(0x80 + (i)))
#define WRAM_PAGE ((volatile uint8_t *)0xD200)
#define ROM_READ ((const volatile uint8_t *)0x0150)

uint8_t st_page, out_a, later;
uint16_t st_rd, st_wr;
extern const uint8_t stub_begin[], stub_end[];

/* Copied to HRAM: A = the source page, DE = the address read, HL = the one written. */
static void stub_code(void) __naked
{
    __asm
    _stub_begin::
        ldh (0x46), a       ; write in M-cycle W
        ld a, (de)          ; fetch W+1, read W+2: byte 0
        ld b, a             ; W+3
        ld a, (de)          ; fetch W+4, read W+5: byte 3
        ld c, a             ; W+6
        ld (hl), #0x5A      ; write in W+9
        ld a, #38           ; W+10, W+11
    1$:
        dec a               ; W+12 to W+162
        jr nz, 1$
        ld a, b
        ldh (0xF0), a
        ld a, c
        ldh (0xF1), a
        ld a, (de)
        ldh (0xF2), a
        ret
    _stub_end::
    __endasm;
}

static void run_stub(void) __naked
{
    __asm
        ld a, (_st_rd)
        ld e, a
        ld a, (_st_rd + 1)
        ld d, a
        ld a, (_st_wr)
        ld l, a
        ld a, (_st_wr + 1)
        ld h, a
        ld a, (_st_page)
        call 0xFF80
        ret
    __endasm;
}

/* From ROM, with VRAM as the source (ROM stays reachable): OAM read in W + 161, or in
 * W + 162 when later is 1 (a JR C taken is one M-cycle longer than one not taken). */
static void end_read(void) __naked
{
    __asm
        ld a, (_later)
        rra                 ; C = later
        ld hl, #0xFE00
        ld b, #39
        ld a, #0x80
        ldh (0x46), a       ; W
    1$:
        dec b               ; W+1 to W+155
        jr nz, 1$
        nop
        nop
        jr c, 2$            ; W+158 to W+159 (or W+160)
    2$:
        ld a, (hl)          ; read W+161 (or W+162)
        ld (_out_a), a
        ret
    __endasm;
}

/* A transfer from $8000, restarted from $8100 10 M-cycles later (W2); OAM read in
 * W2 + 161 (or W2 + 162 when later is 1). */
static void restart_read(void) __naked
{
    __asm
        ld a, (_later)
        rra
        ld hl, #0xFE00
        ld b, #39
        ld a, #0x80
        ldh (0x46), a       ; W1
        nop
        nop
        nop
        nop
        nop
        ld a, #0x81
        ldh (0x46), a       ; W2 = W1+10
    1$:
        dec b
        jr nz, 1$
        nop
        nop
        jr c, 2$
    2$:
        ld a, (hl)          ; read W2+161 (or W2+162)
        ld (_out_a), a
        ret
    __endasm;
}

static void check_oam(uint8_t second, const char *what)
{
    uint8_t bad = 0, i = 0, got = 0, want = 0;
    for (; i < 160; i++) {
        want = second ? VRAM_SRC2(i) : VRAM_SRC(i);
        got = OAM[i];
        if (got != want) {
            bad = 1;
            break;
        }
    }
    check(!bad, what, got, want);
}

/* fn's OAM read in the M-cycle before its (last) transfer's end reads $FF, the one in the
 * next the first byte of the source (second: the one at $8100); OAM holds the source. */
static void end_case(void (*fn)(void), uint8_t second, const char *what)
{
    uint8_t first = second ? VRAM_SRC2(0) : VRAM_SRC(0);
    ser_puts(what);
    ser_putc('\n');
    later = 0;
    fn();
    check(out_a == 0xFF, "OAM read 161 M-cycles after the write", out_a, 0xFF);
    later = 1;
    fn();
    check(out_a == first, "OAM read 162 M-cycles after the write", out_a, first);
    check_oam(second, "OAM after the transfer");
}

#include "speed.h"

/* One stub case: page, the address read during the transfer and the one written. Checks
 * the reads in W+2 and W+5 against r0 and r3, the read after the transfer against after,
 * and the written byte against written (0x5A when the write reached it). */
static void stub_case(const char *what, uint8_t page, uint16_t rd, uint16_t wr, uint8_t r0, uint8_t r3,
                      uint8_t after, uint8_t written)
{
    st_page = page;
    st_rd = rd;
    st_wr = wr;
    run_stub();
    ser_puts(what);
    ser_putc('\n');
    check(RES[0] == r0, "read in W+2", RES[0], r0);
    check(RES[1] == r3, "read in W+5", RES[1], r3);
    check(RES[2] == after, "read after the transfer", RES[2], after);
    uint8_t w = *(volatile uint8_t *)wr;
    check(w == written, "the write in W+9", w, written);
}

void main(void)
{
    uint8_t cgb = IS_CGB();
    ser_puts(cgb ? "dma_test CGB\n" : "dma_test DMG\n");
    __asm__("di");
    lcd_off();
    for (uint8_t i = 0; i < 160; i++) {
        VRAM[i] = VRAM_SRC(i);
        VRAM[0x100 + i] = VRAM_SRC2(i);
        WRAM_PAGE[i] = WRAM_SRC(i);
    }
    for (uint8_t i = 0; i < (uint8_t)(stub_end - stub_begin); i++)
        HRAM[i] = stub_begin[i];

    /* timing */
    end_case(end_read, 0, "one transfer");
    end_case(restart_read, 1, "a restarted transfer");
    if (cgb) { /* in double speed the DMA copies a byte per (faster) M-cycle too */
        rIE = 0;
        speed_switch();
        end_case(end_read, 0, "one transfer, double speed");
        end_case(restart_read, 1, "a restarted transfer, double speed");
        speed_switch();
    }

    /* bus conflicts */
    uint8_t rom = *ROM_READ, rom0 = *(const volatile uint8_t *)0x0100, rom3 = *(const volatile uint8_t *)0x0103;
    volatile uint8_t *w1 = (volatile uint8_t *)0xD800, *w2 = (volatile uint8_t *)0xD900;
    volatile uint8_t *v1 = (volatile uint8_t *)0x9000, *v2 = (volatile uint8_t *)0x9100;
    *v1 = 0x11, *v2 = 0x22, *w1 = 0x33, *w2 = 0x44;
    stub_case("VRAM source, VRAM accesses", 0x80, 0x9000, 0x9100, VRAM_SRC(0), VRAM_SRC(3), 0x11, 0x22);
    check_oam(0, "OAM after the transfer");
    stub_case("VRAM source, WRAM accesses", 0x80, 0xD800, 0xD900, 0x33, 0x33, 0x33, 0x5A);
    *w2 = 0x44;
    stub_case("VRAM source, OAM read, HRAM write", 0x80, 0xFE10, 0xFFF8, 0xFF, 0xFF, VRAM_SRC(0x10), 0x5A);
    HRAM[0x79] = 0x77;
    stub_case("VRAM source, HRAM accesses", 0x80, 0xFFF9, 0xFFFA, 0x77, 0x77, 0x77, 0x5A);
    stub_case("WRAM source, WRAM accesses", 0xD2, 0xD800, 0xD900, WRAM_SRC(0), WRAM_SRC(3), 0x33, 0x44);
    if (cgb) {
        stub_case("WRAM source, ROM read (CGB: another bus)", 0xD2, 0x0150, 0xD900, rom, rom, rom, 0x44);
        stub_case("ROM source, WRAM accesses (CGB: another bus)", 0x01, 0xD800, 0xD900, 0x33, 0x33, 0x33, 0x5A);
    } else {
        stub_case("WRAM source, ROM read (DMG: one bus)", 0xD2, 0x0150, 0xD900, WRAM_SRC(0), WRAM_SRC(3), rom, 0x44);
        stub_case("ROM source, WRAM accesses (DMG: one bus)", 0x01, 0xD800, 0xD900, rom0, rom3, 0x33, 0x44);
    }
    *w2 = 0x44;
    stub_case("ROM source, ROM read", 0x01, 0x0150, 0xD900, rom0, rom3, rom, cgb ? 0x5A : 0x44);
    report_checks();
}
