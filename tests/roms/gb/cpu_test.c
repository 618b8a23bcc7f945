/* cpu_test.c: gpuvet's CPU test ROM (DMG and CGB). Checks, and reports over serial:
 *  - the results and flags of the 8-bit ALU, rotates/shifts, BIT, DAA, ADD HL,rr,
 *    ADD SP,e and LD HL,SP+e against tables computed by gen_cpu.py's reference model;
 *  - the M-cycle count of 51 instruction forms, measured with TIMA at 262144 Hz over 32
 *    repetitions, against the documented counts;
 *  - timer interrupt and TMA reload, the HALT bug, EI's one-instruction delay, DIV and
 *    TIMA rates, interrupt priority, the LYC STAT interrupt, OAM DMA;
 *  - on CGB: WRAM and VRAM banks, palette RAM, general and HBlank VRAM DMA, and the
 *    double-speed switch (timings measured again at double speed).
 * Ends with "Passed" or "Failed" and the register signature. */
#include "common.h"
#include "cpu_gen.h"

uint8_t in_a, in_b, in_f, in_h, in_l, out_a, out_f, out_h, out_l, t_result;
uint8_t scratch[48];

/* A check of an operation on the operands x and y (named on the line before its FAIL). */
static void check_op(uint8_t ok, const char *what, uint8_t x, uint8_t y, uint8_t got, uint8_t want)
{
    if (!ok && check_failures() < CHECK_SHOWN) {
        ser_puts("operands ");
        ser_hex8(x);
        ser_putc(' ');
        ser_hex8(y);
        ser_putc('\n');
    }
    check(ok, what, got, want);
}

static void test_alu(void)
{
    uint16_t k = 0;
    for (uint8_t op = 0; op < NB; op++)
        for (uint8_t fi = 0; fi < 2; fi++)
            for (uint8_t ai = 0; ai < 16; ai++)
                for (uint8_t bi = 0; bi < 16; bi++, k += 2) {
                    in_a = bin_values[ai];
                    in_b = bin_values[bi];
                    in_f = f_in[fi];
                    bin_fn[op]();
                    check_op(out_a == bin_expect[k], bin_names[op], in_a, in_b, out_a, bin_expect[k]);
                    check_op(out_f == bin_expect[k + 1], bin_names[op], in_a, in_b, out_f, bin_expect[k + 1]);
                }
    k = 0;
    for (uint8_t u = 0; u < NU; u++)
        for (uint8_t fi = 0; fi < 2; fi++)
            for (uint8_t ai = 0; ai < 32; ai++, k += 2) {
                in_a = un_values[ai];
                in_f = f_in[fi];
                un_fn[u]();
                check_op(out_a == un_expect[k], un_names[u], in_a, in_f, out_a, un_expect[k]);
                check_op(out_f == un_expect[k + 1], un_names[u], in_a, in_f, out_f, un_expect[k + 1]);
            }
    k = 0;
    for (uint8_t f = 0; f < 8; f++) {
        uint8_t a = 0;
        do {
            in_a = a;
            in_f = (uint8_t)(f << 4);
            t_daa();
            check_op(out_a == daa_expect[k], "daa", in_a, in_f, out_a, daa_expect[k]);
            check_op(out_f == daa_expect[k + 1], "daa", in_a, in_f, out_f, daa_expect[k + 1]);
            k += 2;
        } while (++a != 0);
    }
    k = 0;
    for (uint8_t fi = 0; fi < 2; fi++)
        for (uint8_t hi = 0; hi < 16; hi++)
            for (uint8_t di = 0; di < 16; di++, k += 3) {
                in_h = (uint8_t)(w16_values[hi] >> 8);
                in_l = (uint8_t)w16_values[hi];
                in_a = (uint8_t)(w16_values[di] >> 8);
                in_b = (uint8_t)w16_values[di];
                in_f = f_in[fi];
                t_addhl();
                check_op(out_h == addhl_expect[k] && out_l == addhl_expect[k + 1], "add hl,de", in_h, in_a, out_h,
                      addhl_expect[k]);
                check_op(out_f == addhl_expect[k + 2], "add hl,de f", in_h, in_a, out_f, addhl_expect[k + 2]);
            }
    k = 0;
    for (uint8_t si = 0; si < 8; si++)
        for (uint8_t ei = 0; ei < NE; ei++, k += 3) {
            in_h = (uint8_t)(sp_values[si] >> 8);
            in_l = (uint8_t)sp_values[si];
            in_f = 0xF0;
            addsp_fn[ei]();
            check_op(out_h == spe_expect[k] && out_l == spe_expect[k + 1], "add sp,e", in_l, e_values[ei], out_l,
                  spe_expect[k + 1]);
            check_op(out_f == spe_expect[k + 2], "add sp,e f", in_l, e_values[ei], out_f, spe_expect[k + 2]);
            ldhl_fn[ei]();
            check_op(out_h == spe_expect[k] && out_l == spe_expect[k + 1], "ld hl,sp+e", in_l, e_values[ei], out_l,
                  spe_expect[k + 1]);
            check_op(out_f == spe_expect[k + 2], "ld hl,sp+e f", in_l, e_values[ei], out_f, spe_expect[k + 2]);
        }
}

/* Instruction timing: TIMA at 262144 Hz advances once per 4 M-cycles, so 32 repetitions
 * of a c-cycle instruction advance it 8c times (plus a baseline of 0 or 1). */
static void test_timing(const char *tag)
{
    rTMA = 0;
    rTAC = 0x05;
    t_time_base();
    uint8_t base = t_result;
    for (uint8_t i = 0; i < NT; i++) {
        t_fn[i]();
        uint8_t c = (uint8_t)((uint8_t)(t_result - base + 4) >> 3);
        check_op(c == t_cycles[i], t_names[i], tag[0], t_result, c, t_cycles[i]);
    }
    rTAC = 0;
}

/* ---- interrupts, HALT, timers --------------------------------------------------------- */

static volatile uint8_t nirq, irq_log[4], irq_val;

static void on_timer(void)
{
    irq_val = rTIMA;
    irq_log[nirq & 3] = 4;
    nirq++;
}

static void on_vblank(void)
{
    irq_log[nirq & 3] = 1;
    nirq++;
}

static void on_stat(void)
{
    irq_val = rLY;
    irq_log[nirq & 3] = 2;
    nirq++;
}

static void halt_bug_seq(void) __naked
{
    __asm
        xor a
        halt
        inc a
        ld (_out_a), a
        ret
    __endasm;
}

static void ei_di_seq(void) __naked
{
    __asm
        ei
        di
        ret
    __endasm;
}

static void ei_nop_di_seq(void) __naked
{
    __asm
        ei
        nop
        di
        ret
    __endasm;
}

/* DIV reset then read after 58 or 66 NOPs: 61 and 69 M-cycles after the reset, DIV
 * (one count per 64 M-cycles) reads 0 and then 1. */
static void div_seq(void) __naked
{
    __asm
        ldh (0x04), a
        .rept 58
        nop
        .endm
        ldh a, (0x04)
        ld (_out_a), a
        ldh (0x04), a
        .rept 66
        nop
        .endm
        ldh a, (0x04)
        ld (_out_f), a
        ret
    __endasm;
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

static void test_irq(void)
{
    hook_timer = on_timer;
    hook_vblank = on_vblank;
    hook_stat = on_stat;
    /* timer interrupt and reload from TMA */
    nirq = 0;
    rIF = 0;
    rTIMA = 0xF8;
    rTMA = 0x80;
    rTAC = 0x05;
    rIE = 0x04;
    ei_halt();
    rTAC = 0;
    check_op(nirq == 1, "timer irq count", 0, 0, nirq, 1);
    check_op(irq_val >= 0x80 && irq_val < 0xA0, "tma reload", 0, 0, irq_val, 0x80);
    /* HALT bug: IME=0 with an interrupt pending: the byte after HALT runs twice */
    rIE = 0x04;
    rIF = 0x04;
    halt_bug_seq();
    check_op(out_a == 2, "halt bug", 0, 0, out_a, 2);
    /* EI takes effect after the next instruction */
    nirq = 0;
    rIF = 0x04;
    ei_di_seq();
    check_op(nirq == 0, "ei;di", 0, 0, nirq, 0);
    ei_nop_di_seq();
    check_op(nirq == 1, "ei;nop;di", 0, 0, nirq, 1);
    /* priority: VBlank before timer */
    nirq = 0;
    rIE = 0x05;
    rIF = 0x05;
    ei_nop_di_seq();
    check_op(nirq == 2 && irq_log[0] == 1 && irq_log[1] == 4, "irq priority", irq_log[0], irq_log[1], nirq, 2);
    /* DIV */
    div_seq();
    check_op(out_a == 0, "div 61", 0, 0, out_a, 0);
    check_op(out_f == 1, "div 69", 0, 0, out_f, 1);
    /* TIMA at 4096 Hz (falling edges of counter bit 9, every 4 DIV counts): 16 increments
     * while DIV goes 0 -> $40. Enabled right after the DIV reset, while bit 9 is low. */
    rDIV = 0;
    rTIMA = 0;
    rTAC = 0x04;
    while (rDIV != 0x40)
        ;
    uint8_t t = rTIMA;
    rTAC = 0;
    check_op(t == 16, "tima 4096", 0, 0, t, 16);
    /* LYC=LY STAT interrupt */
    nirq = 0;
    rIF = 0;
    rLYC = 100;
    rSTAT = 0x40;
    rIF = 0; /* the DMG's STAT write may itself request a STAT interrupt */
    rIE = 0x02;
    ei_halt();
    rSTAT = 0;
    check_op(nirq == 1 && irq_val == 100, "lyc irq", 0, 0, irq_val, 100);
    rIE = 0;
    rIF = 0;
}

/* OAM DMA from $C100, started and waited for from HRAM (the only memory the CPU can
 * reach during the transfer): LD A,$C1; LDH ($46),A; LD A,40; 1: DEC A; JR NZ,1; RET. */
static const uint8_t dma_code[] = {0x3E, 0xC1, 0xE0, 0x46, 0x3E, 0x28, 0x3D, 0x20, 0xFD, 0xC9};

static void test_dma(void)
{
    volatile uint8_t *src = (volatile uint8_t *)0xC100;
    volatile uint8_t *hram = (volatile uint8_t *)0xFF80;
    for (uint8_t i = 0; i < 160; i++)
        src[i] = (uint8_t)(i * 3 + 1);
    for (uint8_t i = 0; i < sizeof dma_code; i++)
        hram[i] = dma_code[i];
    wait_vblank();
    ((void (*)(void))0xFF80)();
    lcd_off(); /* OAM is readable at any time with the LCD off */
    uint8_t bad = 0;
    for (uint8_t i = 0; i < 160; i++)
        if (OAM[i] != (uint8_t)(i * 3 + 1))
            bad++;
    rLCDC = 0x91;
    check_op(bad == 0, "oam dma", 0, 0, bad, 0);
}

/* ---- CGB ------------------------------------------------------------------------------ */

#include "speed.h"

static void test_cgb(void)
{
    /* WRAM banks 1-7 at $D000 (0 selects 1) */
    volatile uint8_t *d = (volatile uint8_t *)0xD800;
    for (uint8_t b = 1; b < 8; b++) {
        rSVBK = b;
        *d = (uint8_t)(b * 0x11);
    }
    uint8_t bad = 0;
    for (uint8_t b = 1; b < 8; b++) {
        rSVBK = b;
        if (*d != (uint8_t)(b * 0x11))
            bad++;
    }
    rSVBK = 0;
    if (*d != 0x11)
        bad++;
    rSVBK = 1;
    check_op(bad == 0, "wram banks", 0, 0, bad, 0);
    /* VRAM banks, palette RAM, general DMA (LCD off) */
    lcd_off();
    rVBK = 1;
    VRAM[0] = 0xA5;
    rVBK = 0;
    VRAM[0] = 0x5A;
    rVBK = 1;
    uint8_t v1 = VRAM[0];
    rVBK = 0;
    check_op(v1 == 0xA5 && VRAM[0] == 0x5A, "vram banks", v1, VRAM[0], v1, 0xA5);
    rBCPS = 0x88; /* auto-increment from byte 8 */
    for (uint8_t i = 0; i < 8; i++)
        rBCPD = (uint8_t)(0x10 + i);
    bad = 0;
    for (uint8_t i = 0; i < 8; i++) {
        rBCPS = (uint8_t)(8 + i);
        if (rBCPD != (uint8_t)(0x10 + i))
            bad++;
    }
    check_op(bad == 0, "palette ram", 0, 0, bad, 0);
    volatile uint8_t *src = (volatile uint8_t *)0xC200;
    for (uint8_t i = 0; i < 64; i++)
        src[i] = (uint8_t)(0xC0 ^ i);
    REG(0xFF51) = 0xC2;
    REG(0xFF52) = 0x00;
    REG(0xFF53) = 0x08;
    REG(0xFF54) = 0x00;
    REG(0xFF55) = 0x01; /* general DMA, 2 blocks */
    bad = 0;
    for (uint8_t i = 0; i < 32; i++)
        if (VRAM[0x800 + i] != (uint8_t)(0xC0 ^ i))
            bad++;
    check_op(bad == 0 && REG(0xFF55) == 0xFF, "general dma", bad, REG(0xFF55), bad, 0);
    /* HBlank DMA: 3 blocks, one per line, LCD on */
    rLCDC = 0x91;
    REG(0xFF51) = 0xC2;
    REG(0xFF52) = 0x00;
    REG(0xFF53) = 0x0A;
    REG(0xFF54) = 0x00;
    wait_vblank();
    REG(0xFF55) = 0x82;
    while (REG(0xFF55) != 0xFF)
        ;
    lcd_off();
    bad = 0;
    for (uint8_t i = 0; i < 48; i++)
        if (VRAM[0xA00 + i] != (uint8_t)(0xC0 ^ i))
            bad++;
    check_op(bad == 0, "hblank dma", 0, 0, bad, 0);
    rLCDC = 0x91;
    /* double speed: DIV advances twice as fast against the LCD's lines */
    rIE = 0;
    speed_switch();
    check_op(rKEY1 == 0xFE, "key1 after switch", 0, 0, rKEY1, 0xFE);
    wait_vblank();
    while (rLY != 10)
        ;
    rDIV = 0;
    while (rLY != 42) /* 32 lines = 14592 dots: DIV counts 57 at single, 114 at double speed */
        ;
    uint8_t dv = rDIV;
    check_op(dv >= 112 && dv <= 115, "div at double speed", 0, 0, dv, 114);
    test_timing("D");
    speed_switch();
    check_op(rKEY1 == 0x7E, "key1 back", 0, 0, rKEY1, 0x7E);
}

void main(void)
{
    ser_puts(IS_CGB() ? "cpu_test CGB\n" : "cpu_test DMG\n");
    rIE = 0;
    test_alu();
    test_timing("S");
    test_irq();
    test_dma();
    if (IS_CGB())
        test_cgb();
    report_checks();
}
