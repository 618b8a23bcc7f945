/* stat_test.c: gpuvet's test ROM for the PPU's mode and STAT timing as the CPU sees it,
 * the timings mooneye's ppu tests measure on the DMG (acceptance/ppu: lcdon_timing,
 * lcdon_write_timing, intr_2_mode0_timing, intr_2_mode3_timing,
 * intr_2_mode0_timing_sprites, stat_lyc_onoff). Every case is a pair of runs one M-cycle
 * apart that must see different things. Reports over serial with the register signature.
 *  - LCD on (DMG): line 0 shows mode 0, then mode 3 from 80 dots after the LCDC write's
 *    M-cycle (no mode 2: no OAM scan); LY reaches 1 at 452 dots, and for one M-cycle
 *    STAT then shows mode 0 with the LY=LYC flag clear; mode 2 follows, mode 3 84 dots
 *    after LY changed and mode 0 256 dots after it;
 *  - the CPU's access (DMG): OAM writes pass in a line's first M-cycle and in the
 *    M-cycle between the scan and mode 3 (dot 80), but not in dots 4-79 or in mode 3;
 *    VRAM reads are refused from dot 80, VRAM writes from mode 3;
 *  - the mode-2 STAT interrupt (taken out of HALT, and out of a run of NOPs at the same
 *    dot on the DMG; out of HALT one M-cycle later on the CGB) comes 4 dots after LY
 *    changes: STAT shows mode 3 and then mode 0 at fixed distances from it, two M-cycles
 *    later with an object at X=0, four with two;
 *  - the LY=LYC flag keeps its value while the LCD is off and LYC changes; switching
 *    the LCD on compares LY 0 with LYC at once and requests the interrupt only when the
 *    flag rises. */
#include "common.h"

uint8_t out_a, out_b;

/* ---- LCD on --------------------------------------------------------------------------- */

uint8_t acc_n;             /* mooneye's NOP count between the LCDC write and the access */
volatile uint8_t *acc_addr;

/* LCDC := $81 in M-cycle W, then LD A,(DE) or LD (DE),A with DE = acc_addr: its access
 * comes at W + 8 + 4 * acc_n dots, as in mooneye's cases ("LDH (LCDC),A; NOPs; access").
 * JP (HL) into a run of 200 NOPs leaves acc_n - 1 of them (the jump is the first). */
#define LCD_ON_ACCESS(name, access)       \
    static void name(void) __naked        \
    {                                     \
        __asm__("ld a, (_acc_n)\n"        \
                "dec a\n"                 \
                "ld b, a\n"               \
                "ld a, #200\n"            \
                "sub a, b\n"              \
                "ld c, a\n"               \
                "ld b, #0\n"              \
                "ld hl, #00001$\n"        \
                "add hl, bc\n"            \
                "ld a, (_acc_addr)\n"     \
                "ld e, a\n"               \
                "ld a, (_acc_addr + 1)\n" \
                "ld d, a\n"               \
                "ld a, #0x81\n"           \
                "ldh (0x40), a\n"         \
                "jp (hl)\n"               \
                "00001$:\n"               \
                ".rept 200\n"             \
                "nop\n"                   \
                ".endm\n" access          \
                "ld (_out_a), a\n"        \
                "ret\n");                 \
    }
LCD_ON_ACCESS(lcd_on_read, "ld a, (de)\n")
LCD_ON_ACCESS(lcd_on_write, "ld (de), a\n")

/* The value at addr read n M-cycles after the LCD is switched on (mooneye's count). */
static uint8_t read_after_on(volatile uint8_t *addr, uint8_t n)
{
    lcd_off();
    acc_addr = addr;
    acc_n = n;
    lcd_on_read();
    return out_a;
}

/* 1 when a write of $81 n M-cycles after the LCD is switched on reached addr. */
static uint8_t write_after_on(volatile uint8_t *addr, uint8_t n)
{
    lcd_off();
    *addr = 0;
    acc_addr = addr;
    acc_n = n;
    lcd_on_write();
    lcd_off();
    return *addr == 0x81;
}

static void test_lcd_on(void)
{
    /* STAT (mode bits and the LY=LYC flag, LYC = 1) n M-cycles after the LCDC write */
    static const uint8_t at[] = {17, 18, 110, 111, 112, 131, 132, 174, 175};
    static const uint8_t want[] = {0x80, 0x83, 0x80, 0x80, 0x86, 0x86, 0x87, 0x87, 0x84};
    static const char *const what[] = {
        "STAT at 17: line 0, mode 0 (no OAM scan)", "STAT at 18: line 0, mode 3",
        "STAT at 110: line 0, mode 0", "STAT at 111: LY 1, mode 0, flag clear",
        "STAT at 112: line 1, mode 2, flag set", "STAT at 131: line 1, mode 2",
        "STAT at 132: line 1, mode 3", "STAT at 174: line 1, mode 3", "STAT at 175: line 1, mode 0",
    };
    rLYC = 1;
    for (uint8_t i = 0; i < sizeof at; i++) {
        uint8_t v = read_after_on(&rSTAT, at[i]);
        check(v == want[i], what[i], v, want[i]);
    }
    rLYC = 0;
    uint8_t ly = read_after_on(&rLY, 110);
    check(ly == 0, "LY at 110", ly, 0);
    ly = read_after_on(&rLY, 111);
    check(ly == 1, "LY at 111", ly, 1);
    /* writes: OAM refused in line 0's mode 3 (18), passed at line 1's dot 0 (111) and dot
     * 80 (131), refused at dot 4 (112), 76 (130) and in mode 3 (132); VRAM refused in mode
     * 3 only */
    static const uint8_t wat[] = {17, 18, 111, 112, 130, 131, 132};
    static const uint8_t woam[] = {1, 0, 1, 0, 0, 1, 0};
    static const uint8_t wvram[] = {1, 0, 1, 1, 1, 1, 0};
    static const char *const wwhat[] = {
        "OAM write at 17", "OAM write at 18", "OAM write at 111 (dot 0)", "OAM write at 112 (dot 4)",
        "OAM write at 130 (dot 76)", "OAM write at 131 (dot 80)", "OAM write at 132 (dot 84)",
    };
    static const char *const vwhat[] = {
        "VRAM write at 17", "VRAM write at 18", "VRAM write at 111", "VRAM write at 112",
        "VRAM write at 130", "VRAM write at 131 (dot 80)", "VRAM write at 132 (mode 3)",
    };
    for (uint8_t i = 0; i < sizeof wat; i++) {
        uint8_t ok = write_after_on(&OAM[0], wat[i]);
        check(ok == woam[i], wwhat[i], ok, woam[i]);
        ok = write_after_on(&VRAM[0], wat[i]);
        check(ok == wvram[i], vwhat[i], ok, wvram[i]);
    }
    /* VRAM reads: free at 130 (dot 76), refused at 131 (dot 80), free again at 175 */
    lcd_off();
    VRAM[0] = 0x5A;
    uint8_t v = read_after_on(&VRAM[0], 130);
    check(v == 0x5A, "VRAM read at 130 (dot 76)", v, 0x5A);
    v = read_after_on(&VRAM[0], 131);
    check(v == 0xFF, "VRAM read at 131 (dot 80)", v, 0xFF);
    v = read_after_on(&VRAM[0], 175);
    check(v == 0x5A, "VRAM read at 175 (mode 0)", v, 0x5A);
    lcd_off();
    rLCDC = 0x81;
}

/* ---- the mode-2 interrupt -------------------------------------------------------------- */

/* Hooks for the STAT interrupt: k NOPs, then LDH A,(STAT), whose read comes 45 + k
 * M-cycles after the dispatch began (5 of dispatch, 38 of crt0's vector and irq_common,
 * k, and the read in the instruction's third M-cycle); mooneye's intr_2_mode0_timing
 * reads 63 M-cycles after it (its handler is shorter). Then IE := 0: no second one. */
#define STAT_HOOK(k)                   \
    static void hook_k##k(void) __naked \
    {                                  \
        __asm__(".rept " #k "\n"       \
                "nop\n"                \
                ".endm\n"              \
                "ldh a, (0x41)\n"      \
                "ld (_out_a), a\n"     \
                "xor a, a\n"           \
                "ldh (0xFF), a\n"      \
                "ret\n");              \
    }
STAT_HOOK(16)
STAT_HOOK(17)
STAT_HOOK(18)
STAT_HOOK(19)
STAT_HOOK(20)
STAT_HOOK(21)
STAT_HOOK(22)

/* In mode 3 of line 67: selects the mode-2 STAT source and waits for its interrupt (line
 * 68's), in HALT or in a run of NOPs (the same dot on the DMG: mooneye's
 * halt_ime1_timing2). */
static void wait_mode2_halt(void) __naked
{
    __asm
        ld a, #0x20
        ldh (0x41), a
        xor a, a
        ldh (0x0F), a
        ei
        halt
        nop
        di
        ret
    __endasm;
}

static void wait_mode2_nops(void) __naked
{
    __asm
        ld a, #0x20
        ldh (0x41), a
        xor a, a
        ldh (0x0F), a
        ei
        .rept 120
        nop
        .endm
        di
        ret
    __endasm;
}

static void wait_mode(uint8_t m)
{
    while ((rSTAT & 3) != m)
        ;
}

/* STAT's mode read by hook h after the mode-2 interrupt of line 67. */
static uint8_t mode_after_int(void (*h)(void), uint8_t halt)
{
    hook_stat = h;
    rIE = 0x02;
    while (rLY != 66)
        ;
    wait_mode(0);
    wait_mode(3);
    if (halt)
        wait_mode2_halt();
    else
        wait_mode2_nops();
    rIE = 0;
    hook_stat = 0;
    return out_a & 3;
}

static void objects_at_x0(uint8_t n)
{
    lcd_off();
    for (uint8_t i = 0; i < 160; i++)
        OAM[i] = 0;
    for (uint8_t i = 0; i < n; i++) {
        OAM[i * 4] = 0x52; /* rows cover line 66 */
        OAM[i * 4 + 1] = 0;
    }
    rLCDC = n ? 0x83 : 0x81;
}

static void (*const hooks[])(void) = {hook_k16, hook_k17, hook_k18, hook_k19,
                                     hook_k20, hook_k21, hook_k22};

/* STAT's mode read by hook k after the mode-2 interrupt out of HALT; the CGB takes one
 * M-cycle more to wake (mooneye's halt_ime1_timing2-GS fails there), so its reads come an
 * M-cycle later and hook k - 1 reads where hook k does on the DMG. */
static uint8_t mode_after_halt(uint8_t k)
{
    return mode_after_int(hooks[k - 16 - (IS_CGB() ? 1 : 0)], 1);
}

static void test_mode2_int(void)
{
    /* mode 0 at the read 63 M-cycles after dispatch (k = 18), mode 3 one M-cycle before */
    objects_at_x0(0);
    uint8_t m = mode_after_halt(18);
    check(m == 0, "mode 0 63 M-cycles after the mode-2 interrupt (HALT; CGB 62)", m, 0);
    m = mode_after_halt(17);
    check(m == 3, "mode 3 62 M-cycles after the mode-2 interrupt (HALT; CGB 61)", m, 3);
    m = mode_after_int(hook_k18, 0);
    check(m == 0, "mode 0 63 M-cycles after the mode-2 interrupt (NOPs)", m, 0);
    m = mode_after_int(hook_k17, 0);
    check(m == 3, "mode 3 62 M-cycles after the mode-2 interrupt (NOPs)", m, 3);
    /* an object at X=0 lengthens mode 3 by 2 M-cycles as STAT shows it, two by 4 */
    objects_at_x0(1);
    m = mode_after_halt(20);
    check(m == 0, "one object at X=0: mode 0 at 65 M-cycles (CGB 64)", m, 0);
    m = mode_after_halt(19);
    check(m == 3, "one object at X=0: mode 3 at 64 M-cycles (CGB 63)", m, 3);
    objects_at_x0(2);
    m = mode_after_halt(22);
    check(m == 0, "two objects at X=0: mode 0 at 67 M-cycles (CGB 66)", m, 0);
    m = mode_after_halt(21);
    check(m == 3, "two objects at X=0: mode 3 at 66 M-cycles (CGB 65)", m, 3);
    objects_at_x0(0);
}

/* ---- the LY=LYC flag with the LCD off ---------------------------------------------------- */

static volatile uint8_t stat_ints;

static void count_stat(void)
{
    stat_ints++;
}

/* As mooneye's stat_lyc_onoff (STAT selects the LY=LYC source, IE the STAT interrupt):
 * the LCD is switched off in VBlank (LY 144) with LYC = lyc_off, LYC := lyc_new; returns
 * STAT's flag then; *after gets the flag right after the LCD is switched on again, and
 * stat_ints counts the interrupts from then. */
static uint8_t lyc_case(uint8_t lyc_off, uint8_t lyc_new, uint8_t *after)
{
    __asm__("di");
    wait_vblank();
    rLYC = lyc_off;
    rLCDC = 0;
    rIF = 0;
    stat_ints = 0;
    __asm__("ei");
    uint8_t off = rSTAT & 4;
    rLYC = lyc_new;
    uint8_t off2 = rSTAT & 4;
    check(off == off2, "the flag with the LCD off does not follow LYC", off2, off);
    rLCDC = 0x81;
    *after = rSTAT & 4;
    __asm__("nop");
    __asm__("di");
    return off;
}

static void test_lyc_off(void)
{
    uint8_t after, f;
    hook_stat = count_stat;
    rSTAT = 0x40;
    rIE = 0x02;
    /* LY 144 = LYC when the LCD goes off: the flag stays set */
    f = lyc_case(144, 1, &after);
    check(f == 4, "LY=LYC flag kept with the LCD off", f, 4);
    check(after == 0, "LCD on: LY 0 vs LYC 1 clears it", after, 0);
    check(stat_ints == 0, "  and requests no interrupt", stat_ints, 0);
    f = lyc_case(144, 0, &after);
    check(after == 4, "LCD on: LY 0 vs LYC 0 keeps it set", after, 4);
    check(stat_ints == 0, "  and requests no interrupt", stat_ints, 0);
    /* LY 144, LYC 0 when the LCD goes off: clear, and it rises at LCD on */
    f = lyc_case(0, 0, &after);
    check(f == 0, "LY=LYC flag clear with the LCD off", f, 0);
    check(after == 4, "LCD on: LY 0 vs LYC 0 sets it", after, 4);
    check(stat_ints == 1, "  and requests the interrupt", stat_ints, 1);
    rIE = 0;
    rSTAT = 0;
    hook_stat = 0;
}

void main(void)
{
    ser_puts(IS_CGB() ? "stat_test CGB\n" : "stat_test DMG\n");
    rLCDC = 0x81;
    if (!IS_CGB())
        test_lcd_on(); /* the CGB's line 0 differs (mooneye: lcdon tests fail on the CGB) */
    test_mode2_int();
    test_lyc_off();
    report_checks();
}
