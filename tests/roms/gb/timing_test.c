/* timing_test.c: gpuvet's test ROM for the CPU's timing against the other units (DMG and
 * CGB). Checks, and reports over serial with the register signature:
 *  - when a HALT ends: the DMG resumes at the first M-cycle boundary at or after a VBlank
 *    request, where a running CPU would take the interrupt (mooneye's di_timing-GS and
 *    halt_ime1_timing2-GS); the CGB, on which those fail, takes one M-cycle more, so a
 *    frame later the running CPU takes the interrupt one M-cycle sooner after the wake. */
#include "common.h"

/* ---- when a HALT ends, against a running CPU's interrupt ------------------------------ */

static volatile uint8_t nvblank;
uint8_t later;

static void on_vblank(void)
{
    nvblank++;
}

/* IME clear, IE = VBlank: HALT until a VBlank request (the CPU resumes at the start of
 * M-cycle R), clear IF, EI, and DI in M-cycle R + 17555 (one frame is 17556 M-cycles), or
 * R + 17556 when later is 1 (a JR C taken is one M-cycle longer than one not taken). */
static void vblank_di(void) __naked
{
    __asm
        xor a
        ldh (0x0F), a
        inc a
        ldh (0xFF), a
        ld a, (_later)
        rra                 ; C = later
        halt
        jr c, 1$            ; R, R+1 (or R+2)
    1$:
        xor a               ; R+2
        ldh (0x0F), a
        ei
        ld bc, #2506        ; R+7
    2$:
        dec bc              ; R+10 to R+17551
        ld a, b
        or a, c
        jr nz, 2$
        nop
        nop
        nop
        nop
        di                  ; R+17555 (or R+17556)
        ret
    __endasm;
}

/* The DMG resumes in the request's M-cycle R, so the next frame's request (17556 M-cycles
 * later) comes after a DI at R + 17555 and before one at R + 17556 (mooneye's
 * di_timing-GS); the CGB resumes one M-cycle later, so it comes before both. */
static void test_halt_wake(void)
{
    uint8_t cgb = IS_CGB();
    hook_vblank = on_vblank;
    rLCDC = 0x91;
    wait_vblank();
    for (later = 0; later < 2; later++) {
        nvblank = 0;
        vblank_di();
        uint8_t want = later || cgb;
        check(nvblank == want, later ? "VBlank IRQ before DI at R+17556" : "VBlank IRQ before DI at R+17555", nvblank,
              want);
    }
    rIE = 0;
    rIF = 0;
    hook_vblank = 0;
}

void main(void)
{
    ser_puts(IS_CGB() ? "timing_test CGB\n" : "timing_test DMG\n");
    rIE = 0;
    test_halt_wake();
    report_checks();
}
