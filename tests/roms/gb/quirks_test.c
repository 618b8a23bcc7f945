/* quirks_test.c: gpuvet's test ROM for the documented hardware quirks (DMG and CGB).
 * Checks, and reports over serial with the register signature:
 *  - LCD on: the first line lasts 452 dots from the LCDC write (LY still 0 when read
 *    111 M-cycles after the write, 1 a cycle later), on the DMG as blargg's oam_bug
 *    1-lcd_sync measures it;
 *  - the DMG's OAM corruption bug (Pan Docs, "OAM Corruption Bug"): INC DE with DE in
 *    $FE00-$FEFF during mode 2 corrupts exactly the row being scanned, as the write rule
 *    says, and LD A,(HL+) with HL there as the read-during-increment rule says; the
 *    expected OAM is computed here from the untouched copy with those rules; no
 *    corruption at all on the CGB;
 *  - APU (Pan Docs, "Audio Details: Obscure Behavior"): extra length clocking when NRx4
 *    enables the length counter while the next frame-sequencer step does not clock it;
 *    leaving sweep subtract mode after a subtract calculation disables channel 1, and
 *    only then; the DMG keeps its length counters through power off and loads them from
 *    NRx1 while off, the CGB does not; wave RAM while channel 3 plays is the byte the
 *    channel reads (CGB) or unreachable ($FF, writes lost: DMG); on the CGB, NRx2 writes
 *    while a channel plays step its volume ("zombie" mode, seen through PCM12);
 *  - STOP (CGB, Pan Docs' STOP chart): with a speed switch requested it is one byte when
 *    an interrupt is pending and two bytes otherwise, and switches the speed either way;
 *  - EI then HALT with an interrupt pending: the interrupt is taken and returns to the
 *    HALT, which then waits for the next one (Pan Docs, "halt");
 *  - the timer (Pan Docs, "Timer obscure behaviour"): in the M-cycle in which TMA is
 *    loaded after an overflow, a TIMA write is ignored and a TMA write loads TIMA too;
 *    turning the timer off while its selected counter bit is set ticks TIMA on the DMG,
 *    not on the CGB;
 *  - a STAT write during VBlank requests the STAT interrupt on the DMG (it acts as $FF
 *    for one M-cycle: Pan Docs, "Spurious STAT interrupts"), not on the CGB. */
#include "common.h"

uint8_t out_a;
/* ---- LCD on --------------------------------------------------------------------------- */

/* LCDC := $81, then 109 (or 110) NOPs, then LDH A,(LY), whose read comes 112 (113)
 * M-cycles after the write's M-cycle: 448 (452) dots. */
static void lcd_on_ly109(void) __naked
{
    __asm
        ld a, #0x81
        ldh (0x40), a
        .rept 109
        nop
        .endm
        ldh a, (0x44)
        ld (_out_a), a
        ret
    __endasm;
}

static void lcd_on_ly110(void) __naked
{
    __asm
        ld a, #0x81
        ldh (0x40), a
        .rept 110
        nop
        .endm
        ldh a, (0x44)
        ld (_out_a), a
        ret
    __endasm;
}

static void test_lcd_on(void)
{
    lcd_off();
    lcd_on_ly109();
    check(out_a == 0, "LY 448 dots after LCD on", out_a, 0);
    lcd_off();
    lcd_on_ly110();
    check(out_a == 1, "LY 452 dots after LCD on", out_a, 1);
    lcd_off();
}

/* ---- OAM corruption bug --------------------------------------------------------------- */

static uint8_t oam0[160], oam1[160], expect[160];

/* Waits for mode 0, then for mode 2 of the next line, then INC DE with DE = $FE00 (the
 * increment's M-cycle falls on rows 5-15 of that line's OAM scan). */
static void oam_inc_de(void) __naked
{
    __asm
        ld de, #0xFE00
    1$:
        ldh a, (0x41)
        and a, #3
        jr nz, 1$
    2$:
        ldh a, (0x41)
        and a, #3
        cp a, #2
        jr nz, 2$
        inc de
        ret
    __endasm;
}

/* The same with LD A,(HL+) and HL = $FE00: a read and an increment in one M-cycle. */
static void oam_ld_hli(void) __naked
{
    __asm
        ld hl, #0xFE00
    1$:
        ldh a, (0x41)
        and a, #3
        jr nz, 1$
    2$:
        ldh a, (0x41)
        and a, #3
        cp a, #2
        jr nz, 2$
        ld a, (hl+)
        ret
    __endasm;
}

static uint16_t word(const uint8_t *o, uint8_t row, uint8_t w)
{
    return (uint16_t)(o[row * 8 + w * 2] | (o[row * 8 + w * 2 + 1] << 8));
}

static void set_word(uint8_t *o, uint8_t row, uint8_t w, uint16_t v)
{
    o[row * 8 + w * 2] = (uint8_t)v;
    o[row * 8 + w * 2 + 1] = (uint8_t)(v >> 8);
}

static void copy_row(uint8_t *o, uint8_t dst, uint8_t src)
{
    for (uint8_t i = 0; i < 8; i++)
        o[dst * 8 + i] = o[src * 8 + i];
}

/* Runs fn with OAM filled, LCD on, then compares OAM with the rule's result. read: the
 * read-during-increment rule, else the write rule. Returns the corrupted row (0: none). */
static uint8_t oam_case(void (*fn)(void), uint8_t read)
{
    lcd_off();
    for (uint8_t i = 0; i < 160; i++) {
        oam0[i] = (uint8_t)(i * 37 + 11);
        OAM[i] = oam0[i];
    }
    rLCDC = 0x81;
    wait_vblank();
    fn();
    lcd_off();
    uint8_t last = 0;
    for (uint8_t i = 0; i < 160; i++) {
        oam1[i] = OAM[i];
        expect[i] = oam0[i];
        if (oam1[i] != oam0[i])
            last = (uint8_t)(i >> 3);
    }
    if (!last)
        return 0;
    /* last is the scanned row r for both rules (the read rule also rewrites r-1, r-2) */
    uint8_t r = last;
    if (read && r >= 4 && r < 19) {
        uint16_t a = word(expect, r - 2, 0), b = word(expect, r - 1, 0), c = word(expect, r, 0);
        uint16_t d = word(expect, r - 1, 2);
        set_word(expect, r - 1, 0, (uint16_t)((b & (a | c | d)) | (a & c & d)));
        copy_row(expect, r, r - 1);
        copy_row(expect, r - 2, r - 1);
    }
    uint16_t a = word(expect, r, 0), b = word(expect, r - 1, 0), c = word(expect, r - 1, 2);
    set_word(expect, r, 0, read ? (uint16_t)(b | (a & c)) : (uint16_t)(((a ^ c) & (b ^ c)) ^ c));
    for (uint8_t w = 1; w < 4; w++)
        set_word(expect, r, w, word(expect, r - 1, w));
    return r;
}

static void test_oam_bug(void)
{
    for (uint8_t read = 0; read < 2; read++) {
        uint8_t r = oam_case(read ? oam_ld_hli : oam_inc_de, read);
        uint8_t bad = 0;
        for (uint8_t i = 0; i < 160; i++)
            if (oam1[i] != expect[i])
                bad++;
        if (IS_CGB()) {
            check(r == 0, read ? "cgb: no OAM bug (ld a,(hl+))" : "cgb: no OAM bug (inc de)", r, 0);
        } else {
            check(r >= 4 && r < 19, read ? "oam bug row (ld a,(hl+))" : "oam bug row (inc de)", r, 8);
            check(bad == 0, read ? "oam bug read+inc rule" : "oam bug write rule", bad, 0);
        }
    }
}

/* ---- APU ------------------------------------------------------------------------------ */

static void apu_restart(void)
{
    rNR52 = 0;
    rNR52 = 0x80;
    rNR51 = 0;
    rNR50 = 0x77;
}

static void wait_div(uint8_t n)
{
    while (rDIV < n)
        ;
}

/* Channel 2 with length 2; length enabled at DIV 40 (after sequencer step 0: the next
 * step does not clock lengths, so the enable clocks it to 1) or at DIV 70 (after step 1:
 * no extra clock). Steps come every 32 DIV counts from the DIV reset. */
static void test_len_extra(void)
{
    for (uint8_t late = 0; late < 2; late++) {
        rDIV = 0;
        apu_restart();
        rNR22 = 0xF0;
        rNR21 = 64 - 2;
        rNR24 = 0x80;
        wait_div(late ? 70 : 40);
        rNR24 = 0x40;
        wait_div(110); /* after step 2 */
        uint8_t on110 = (rNR52 >> 1) & 1;
        wait_div(170); /* after step 4 */
        uint8_t on170 = (rNR52 >> 1) & 1;
        if (!late) {
            check(on110 == 0, "length enabled before a non-length step: clocked once", on110, 0);
        } else {
            check(on110 == 1, "length enabled before a length step: not clocked", on110, 1);
            check(on170 == 0, "length 2 ends after two steps", on170, 0);
        }
    }
}

static void test_sweep_negate(void)
{
    /* subtract calculation at the trigger (shift 2), then negate cleared: channel off */
    apu_restart();
    rNR12 = 0xF0;
    rNR10 = 0x0A;
    rNR13 = 0x00;
    rNR14 = 0x84;
    uint8_t on = rNR52 & 1;
    rNR10 = 0x02;
    uint8_t after = rNR52 & 1;
    check(on == 1 && after == 0, "leaving sweep subtract mode after a calculation", after, 0);
    /* add mode at the trigger, negate set and cleared again: no subtract calculation */
    apu_restart();
    rNR12 = 0xF0;
    rNR10 = 0x02;
    rNR13 = 0x00;
    rNR14 = 0x84;
    rNR10 = 0x0A;
    rNR10 = 0x02;
    after = rNR52 & 1;
    check(after == 1, "sweep negate without a subtract calculation", after, 1);
}

static void test_power_len(void)
{
    rLCDC = 0x81; /* the frames below are counted on LY */
    rNR52 = 0;
    rNR41 = 64 - 5; /* DMG: loads the length counter while off; CGB: ignored */
    rNR52 = 0x80;
    rNR42 = 0xF0;
    rNR44 = 0xC0; /* trigger, length on: 5 (DMG) or a reloaded 64 (CGB) */
    for (uint8_t f = 0; f < 3; f++) { /* 2-3 frames: 8-13 length clocks, far fewer than 63 */
        while (rLY == 144)
            ;
        wait_vblank();
    }
    uint8_t on = (rNR52 >> 3) & 1;
    check(on == (IS_CGB() ? 1 : 0), "NR41 while off, then power on", on, IS_CGB() ? 1 : 0);
}

static void test_wave_ram(void)
{
    apu_restart();
    rNR30 = 0;
    for (uint8_t i = 0; i < 16; i++)
        WAVE_RAM[i] = (uint8_t)(0x10 + i);
    rNR30 = 0x80;
    rNR32 = 0x00;
    rNR33 = 0x00;
    rNR34 = 0x87; /* 512 dots per sample: no read for a while after the trigger */
    uint8_t rd = WAVE_RAM[15];
    WAVE_RAM[15] = 0xAB;
    rNR30 = 0;
    uint8_t b0 = WAVE_RAM[0], b15 = WAVE_RAM[15];
    if (IS_CGB()) {
        check(rd == 0x10, "cgb wave read while playing: the byte being read", rd, 0x10);
        check(b0 == 0xAB && b15 == 0x1F, "cgb wave write while playing: the byte being read", b0, 0xAB);
    } else {
        check(rd == 0xFF, "dmg wave read while playing, no read then", rd, 0xFF);
        check(b0 == 0x10 && b15 == 0x1F, "dmg wave write while playing, no read then: lost", b15, 0x1F);
    }
}

/* CGB: volume 1, increase, period 0; two writes of $08 while playing step it to 3. */
static void test_zombie(void)
{
    apu_restart();
    rNR11 = 0x80;
    rNR12 = 0x18;
    rNR13 = 0x00;
    rNR14 = 0x87;
    rNR12 = 0x08;
    rNR12 = 0x08;
    uint8_t hi = 0;
    for (uint8_t i = 0; i < 200; i++) {
        uint8_t v = REG(0xFF76) & 15;
        if (v > hi)
            hi = v;
    }
    check(hi == 3, "zombie volume steps", hi, 3);
    apu_restart();
}

/* ---- STOP and HALT -------------------------------------------------------------------- */

/* STOP with KEY1 armed; the two INC A after it count the bytes STOP took. The opcode is
 * emitted alone ($10): the assembler's STOP adds a $00 byte. */
static void stop_switch(void) __naked
{
    __asm
        ld a, #0x30
        ldh (0x00), a
        ld a, #1
        ldh (0x4d), a
        xor a, a
        .db 0x10
        inc a
        inc a
        ld (_out_a), a
        ret
    __endasm;
}

static void test_stop(void)
{
    rIE = 0x04;
    rIF = 0x04; /* a timer interrupt pending, IME clear: STOP is one byte */
    stop_switch();
    check(out_a == 2, "stop with an interrupt pending: 1 byte", out_a, 2);
    check(rKEY1 == 0xFE, "stop with an interrupt pending: speed switched", rKEY1, 0xFE);
    rIE = 0;
    rIF = 0; /* none pending: two bytes (and a HALT that times out) */
    stop_switch();
    check(out_a == 1, "stop without an interrupt: 2 bytes", out_a, 1);
    check(rKEY1 == 0x7E, "stop without an interrupt: speed switched back", rKEY1, 0x7E);
}

/* ---- timer --------------------------------------------------------------------------- */

/* TIMA $FF, TMA $23, timer off; DIV reset (M-cycle W: the system counter restarts), TAC
 * $05 at W+3 (counter 12: 4 M-cycles per increment, bit 3 selected), then (HL) := B at
 * W+5: TIMA overflows at W+4 (cycle A) and TMA is loaded at W+5 (cycle B). */
static void timer_cycle_b(void) __naked
{
    __asm
        xor a, a
        ldh (0x07), a
        ld a, #0xFF
        ldh (0x05), a
        ld a, #0x23
        ldh (0x06), a
        ld a, #5
        ldh (0x04), a
        ldh (0x07), a
        ld (hl), b
        ldh a, (0x05)
        ld (_out_a), a
        xor a, a
        ldh (0x07), a
        ret
    __endasm;
}

static void tima_b_write(void) __naked
{
    __asm
        ld hl, #0xFF05
        ld b, #0x55
        jp _timer_cycle_b
    __endasm;
}

static void tma_b_write(void) __naked
{
    __asm
        ld hl, #0xFF06
        ld b, #0x66
        jp _timer_cycle_b
    __endasm;
}

/* Timer on (TAC $05); DIV reset at W; TIMA := $10 at W+2 (counter 8); bit 3 falls at W+4
 * (TIMA $11); TAC := 0 at W+6 with counter 24 (bit 3 set): the DMG ticks TIMA to $12. */
static void tac_off_glitch(void) __naked
{
    __asm
        ld a, #5
        ldh (0x07), a
        ld hl, #0xFF05
        ld b, #0x10
        ldh (0x04), a
        ld (hl), b
        xor a, a
        ldh (0x07), a
        ldh a, (0x05)
        ld (_out_a), a
        ret
    __endasm;
}

static void test_timer(void)
{
    rIE = 0;
    tima_b_write();
    check((uint8_t)(out_a - 0x23) < 8, "TIMA write in the reload cycle is ignored", out_a, 0x23);
    tma_b_write();
    check((uint8_t)(out_a - 0x66) < 8, "TMA write in the reload cycle loads TIMA", out_a, 0x66);
    rIF = 0;
    tac_off_glitch();
    check(out_a == (IS_CGB() ? 0x11 : 0x12), "turning the timer off with its bit set", out_a, IS_CGB() ? 0x11 : 0x12);
}

static void test_stat_write(void)
{
    rLCDC = 0x81;
    rIE = 0;
    rSTAT = 0;
    wait_vblank();
    rIF = 0;
    rSTAT = 0x00;
    uint8_t f = rIF & 2;
    rIF = 0;
    check(f == (IS_CGB() ? 0 : 2), "STAT write in VBlank requests the STAT interrupt (DMG only)", f, IS_CGB() ? 0 : 2);
}

static volatile uint8_t ntimer;

static void on_timer(void)
{
    ntimer++;
}

static void ei_halt(void) __naked
{
    __asm
        ei
        halt
        nop
        di
        ret
    __endasm;
}

static void test_ei_halt(void)
{
    hook_timer = on_timer;
    ntimer = 0;
    rTAC = 0;
    rTIMA = 0xC0;
    rTMA = 0x00;
    rIE = 0x04;
    rIF = 0x04;
    rTAC = 0x05; /* the next overflow comes 64 counts of 16 dots later */
    ei_halt();
    rTAC = 0;
    rIE = 0;
    check(ntimer == 2, "ei; halt with an interrupt pending returns to the halt", ntimer, 2);
}

void main(void)
{
    ser_puts(IS_CGB() ? "quirks_test CGB\n" : "quirks_test DMG\n");
    rIE = 0;
    if (!IS_CGB())
        test_lcd_on();
    test_oam_bug();
    test_len_extra();
    test_sweep_negate();
    test_power_len();
    test_wave_ram();
    if (IS_CGB()) {
        test_zombie();
        test_stop();
    }
    test_ei_halt();
    test_timer();
    test_stat_write();
    rLCDC = 0x91;
    report_checks();
}
